//! parhash's multi-message engine ([`parhash::batch`]) as a lab engine, so that multi-message
//! (MMH) configurations measure the SIMD lanes, not only threads over one-message hashers.
//!
//! - `batch`: [`parhash::batch::hash_many_with`] as users call it: the fastest kernel of this
//!   CPU ([`parhash::lab::batch::best_kernel`]), groups with fewer messages than lanes hashed
//!   one by one, and the configuration's thread count (messages gathered from wherever they
//!   lie in memory);
//! - `batch-<kernel>` (`batch-portable`, `batch-avx2`, `batch-avx512`, `batch-sha-ni`): the same
//!   with that kernel forced, even for a single message, to compare the kernels.
//!
//! The other data layout of seed study 5 (messages laid out block-interleaved beforehand) is
//! measured by the lab's `layout` module, above the engines.
//!
//! Only algorithms with lane kernels ([`parhash::lab::batch::has_lanes`]) get batch engines: for
//! the others the batch API is threads over the one-message hasher, which the lab measures
//! already.

use std::sync::Arc;

use parhash::batch::{self, BatchOptions};
use parhash::lab::batch as lab_batch;
use parhash::lab::lanes::Kernel;
use parhash::{Algorithm, Hasher, Threads};

use crate::engine::{Engine, EngineRef, StreamHasher};
use crate::tree_params::TreeParams;
use crate::units::format_size;

/// The variant name of the batch engine.
pub const BATCH: &str = "batch";

/// [`batch::hash_many_with`] as an engine, with the library's kernel choice or a forced one.
struct BatchEngine {
    algorithm: Algorithm,
    kernel: Option<Kernel>,
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
    fn variant(&self) -> String {
        match self.kernel {
            None => BATCH.to_string(),
            Some(kernel) => kernel_variant(kernel),
        }
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        Box::new(OneAtATime(Hasher::new(self.algorithm)))
    }
    fn hash_batch(&self, messages: &[&[u8]], threads: usize) -> Option<u8> {
        let opts = BatchOptions {
            threads: threads.max(1).into(),
            kernel: self.kernel,
        };
        let digests = batch::hash_many_with(self.algorithm, messages, opts);
        Some(
            digests
                .iter()
                .fold(0u8, |a, d| a.wrapping_add(d.as_bytes()[0])),
        )
    }
    fn threads_used(
        &self,
        message_len: usize,
        messages: usize,
        threads: usize,
    ) -> (usize, Option<String>) {
        let used = lab_batch::threads_used(
            message_len.saturating_mul(messages),
            messages,
            Threads::new(threads),
        )
        .count();
        // One sentence for every batch so limited (a footnote each would repeat it).
        let why = (used < threads).then(|| {
            format!(
                "the batch engine gives each thread at least {} of work (64 B counted per \
                 message), so smaller batches run on fewer threads: its minimum work per \
                 thread, as designed",
                format_size(lab_batch::MIN_BYTES_PER_THREAD)
            )
        });
        (used, why)
    }
}

/// The variant name of the batch engine with `kernel` forced: `batch-avx2`, `batch-sha-ni`...
pub fn kernel_variant(kernel: Kernel) -> String {
    format!("{BATCH}-{}", kernel.name())
}

/// The `batch` engine of `algorithm` and one `batch-<kernel>` engine per kernel this CPU runs,
/// when it has lane kernels (for [`super::EXTRA_ENGINES`]; they take no tree parameters).
pub fn batch_engines(algorithm: Algorithm, _tree: &[TreeParams]) -> Vec<EngineRef> {
    if !lab_batch::has_lanes(algorithm) {
        return Vec::new();
    }
    std::iter::once(None)
        .chain(lab_batch::kernels(algorithm).into_iter().map(Some))
        .map(|kernel| Arc::new(BatchEngine { algorithm, kernel }) as EngineRef)
        .collect()
}

/// Lanes of `algorithm`'s fastest kernel on this CPU and the kernel's name (`avx512`,
/// `sha-ni`...), or `None` without lane kernels.
pub fn lanes(algorithm: Algorithm) -> Option<(usize, &'static str)> {
    let kernel = lab_batch::best_kernel(algorithm);
    lab_batch::lane_kernel(algorithm, kernel).map(|k| (k.lanes(), kernel.name()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_engines_agree_with_one_at_a_time() {
        for alg in [Algorithm::Md5, Algorithm::Sha256] {
            let engines = batch_engines(alg, &[]);
            let variants: Vec<String> = engines.iter().map(|e| e.variant()).collect();
            let mut want_variants = vec![BATCH.to_string()];
            want_variants.extend(lab_batch::kernels(alg).into_iter().map(kernel_variant));
            assert_eq!(variants, want_variants);
            assert!(variants.contains(&"batch-portable".to_string()));
            let data: Vec<Vec<u8>> = (0..20).map(|i| vec![i as u8; 100 + i]).collect();
            let msgs: Vec<&[u8]> = data.iter().map(Vec::as_slice).collect();
            let want = msgs.iter().fold(0u8, |a, m| {
                a.wrapping_add(parhash::hash(alg, m).as_bytes()[0])
            });
            for e in &engines {
                for threads in [1, 2] {
                    assert_eq!(e.hash_batch(&msgs, threads), Some(want), "{}", e.label());
                }
            }
        }
        assert!(
            batch_engines(Algorithm::Whirlpool, &[]).is_empty()
                || lab_batch::has_lanes(Algorithm::Whirlpool)
        );
    }

    #[test]
    fn small_batches_say_they_ran_on_fewer_threads() {
        let engine = &batch_engines(Algorithm::Md5, &[])[0];
        // 64 x 4 KiB counts 260 KiB: one thread's minimum, so one thread.
        let (used, why) = engine.threads_used(4096, 64, 2);
        assert_eq!(used, 1);
        assert!(why.unwrap().contains("256 KiB"));
        // 16 x 64 KiB is enough for two.
        assert_eq!(engine.threads_used(64 << 10, 16, 2), (2, None));
        // A one-message engine driven by the lab: one thread per message at most.
        let sequential = crate::engines::parhash_variant(Algorithm::Md5, "sequential").unwrap();
        assert_eq!(sequential.threads_used(64, 1, 2).0, 1);
        assert_eq!(sequential.threads_used(64, 8, 2), (2, None));
    }
}
