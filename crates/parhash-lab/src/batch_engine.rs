//! parhash's multi-message engine ([`parhash::batch`]) as a lab engine, so that multi-message
//! (MMH) configurations measure the SIMD lanes, not only threads over one-message hashers.
//!
//! - `batch`: [`parhash::batch::hash_many_with`] with the widest lane kernel of this CPU and the
//!   configuration's thread count (messages gathered from wherever they lie in memory);
//! - [`interleaved_cost`]: the other data layout of seed study 5, equal-length messages laid out
//!   block-interleaved beforehand ([`parhash::batch::Interleaved`]), for the accelerator preset.
//!
//! Only algorithms with lane kernels ([`parhash::batch::has_lanes`]) get a `batch` engine: for
//! the others the batch API is threads over the one-message hasher, which the lab measures
//! already.

use std::sync::Arc;
use std::time::Duration;

use parhash::batch::{self, BatchOptions, Interleaved};
use parhash::lanes::{Kernel, Width};
use parhash::{Algorithm, Hasher};

use crate::engine::{Engine, EngineRef, Provider, StreamHasher};
use crate::timer::Stats;

/// The variant name of the batch engine.
pub const BATCH: &str = "batch";

/// [`batch::hash_many_with`] as an engine.
struct BatchEngine {
    algorithm: Algorithm,
}

/// One message at a time (only for the lab's single-message probes): the default hasher.
struct OneAtATime(Hasher);

impl StreamHasher for OneAtATime {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
    fn finish_reset(&mut self) -> u8 {
        self.0.finalize_reset().as_bytes()[0]
    }
}

impl Engine for BatchEngine {
    fn algorithm(&self) -> String {
        self.algorithm.name().to_string()
    }
    fn provider(&self) -> Provider {
        Provider::Parhash
    }
    fn variant(&self) -> String {
        BATCH.to_string()
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        Box::new(OneAtATime(Hasher::new(self.algorithm)))
    }
    fn hash_batch(&self, messages: &[&[u8]], threads: usize) -> Option<u8> {
        let opts = BatchOptions {
            threads: threads.max(1),
            kernel: None,
        };
        let digests = batch::hash_many_with(self.algorithm, messages, opts);
        Some(
            digests
                .iter()
                .fold(0u8, |a, d| a.wrapping_add(d.as_bytes()[0])),
        )
    }
}

/// The `batch` engine of `algorithm` when it has lane kernels (for
/// [`crate::engine::EXTRA_ENGINES`]; takes no tree parameters).
pub fn batch_engines(algorithm: Algorithm, _tree: &[String]) -> Vec<EngineRef> {
    if batch::has_lanes(algorithm) {
        vec![Arc::new(BatchEngine { algorithm })]
    } else {
        Vec::new()
    }
}

/// Lanes of `algorithm`'s fastest kernel on this CPU and the kernel's name (`avx512`,
/// `sha-ni`...), or `None` without lane kernels.
pub fn lanes(algorithm: Algorithm) -> Option<(usize, &'static str)> {
    let kernel = Kernel::best_for(algorithm);
    batch::lane_kernel(algorithm, kernel).map(|k| (k.lanes(), kernel.name()))
}

/// Time to hash `messages` equal messages of `len` bytes on one thread, in nanoseconds per
/// batch (median/min/max of `samples`), in the two layouts of seed study 5: `(gathered,
/// interleaved, layout)` where `gathered` reads each message from its own place
/// ([`batch::hash_many_with`]), `interleaved` hashes a batch laid out block-interleaved
/// beforehand ([`Interleaved::hash`]), and `layout` is the host-side cost of building that
/// layout. `None` when `algorithm` has no lane kernel.
pub fn interleaved_cost(
    algorithm: Algorithm,
    len: usize,
    messages: usize,
    samples: usize,
    min_sample: Duration,
) -> Option<(Stats, Stats, Stats)> {
    let width = Width::detect();
    let mut data = vec![0u8; len * messages];
    crate::source::fill_pattern(&mut data);
    let msgs: Vec<&[u8]> = data.chunks(len.max(1)).take(messages).collect();
    let msgs: Vec<&[u8]> = if len == 0 {
        vec![&[][..]; messages]
    } else {
        msgs
    };
    let laid_out = Interleaved::new(algorithm, &msgs, width).ok()?;
    let one = BatchOptions {
        threads: 1,
        kernel: Some(width.into()),
    };
    let gathered = crate::measure::work_cost(
        || batch::hash_many_with(algorithm, &msgs, one)[0].as_bytes()[0],
        samples,
        min_sample,
    )
    .0;
    let interleaved =
        crate::measure::work_cost(|| laid_out.hash()[0].as_bytes()[0], samples, min_sample).0;
    let layout = crate::measure::work_cost(
        || {
            Interleaved::new(algorithm, &msgs, width)
                .map(|l| l.len() as u8)
                .unwrap_or(0)
        },
        samples,
        min_sample,
    )
    .0;
    Some((gathered, interleaved, layout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_engine_agrees_with_one_at_a_time() {
        let alg = Algorithm::Md5;
        let engines = batch_engines(alg, &[]);
        assert_eq!(engines.len(), 1);
        let e = &engines[0];
        assert_eq!(e.variant(), BATCH);
        let data: Vec<Vec<u8>> = (0..20).map(|i| vec![i as u8; 100 + i]).collect();
        let msgs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
        let want = msgs.iter().fold(0u8, |a, m| {
            a.wrapping_add(parhash::hash(alg, m).as_bytes()[0])
        });
        for threads in [1, 2] {
            assert_eq!(e.hash_batch(&msgs, threads), Some(want));
        }
        assert!(
            batch_engines(Algorithm::Whirlpool, &[]).is_empty()
                || batch::has_lanes(Algorithm::Whirlpool)
        );
    }

    #[test]
    fn interleaved_cost_runs() {
        let (g, i, l) = interleaved_cost(Algorithm::Keccak256, 200, 8, 2, Duration::ZERO).unwrap();
        assert!(g.median > 0.0 && i.median > 0.0 && l.median > 0.0);
        assert!(
            interleaved_cost(Algorithm::Whirlpool, 200, 8, 2, Duration::ZERO).is_none()
                || batch::has_lanes(Algorithm::Whirlpool)
        );
    }
}
