//! Seed study 5's other data layout: equal-length messages laid out block-interleaved
//! beforehand ([`parhash::batch::Interleaved`]) against the gathered layout the `batch` engine
//! reads ([`batch::hash_many_with`]), and the host-side cost of the layout; tabled by
//! [`layout_table`] for the accelerator and batch presets.

use std::time::Duration;

use parhash::batch::{self, BatchOptions, Interleaved};
use parhash::lab::batch as lab_batch;
use parhash::lab::lanes::Width;
use parhash::threads::Threads;
use parhash::Algorithm;

use crate::measure::work_cost;
use crate::report::Table;
use crate::timer::Stats;
use crate::units::{format_size, sig3};

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
    let laid_out = Interleaved::with_width(algorithm, &msgs, width).ok()?;
    let one = BatchOptions {
        threads: Threads::ONE,
        kernel: Some(width.into()),
    };
    let gathered = work_cost(
        || batch::hash_many_with(algorithm, &msgs, one)[0].as_bytes()[0],
        samples,
        min_sample,
    )
    .0;
    let interleaved = work_cost(|| laid_out.hash()[0].as_bytes()[0], samples, min_sample).0;
    let layout = work_cost(
        || {
            Interleaved::with_width(algorithm, &msgs, width)
                .map(|l| l.len() as u8)
                .unwrap_or(0)
        },
        samples,
        min_sample,
    )
    .0;
    Some((gathered, interleaved, layout))
}

/// Gathered against pre-interleaved layout ([`interleaved_cost`]), one thread, the widest
/// vector kernel: one row per algorithm and length, `messages_for(lanes)` messages per batch.
/// Also returns the algorithms without lane kernels (no interleaved layout), for a note.
pub fn layout_table(
    algorithms: &[Algorithm],
    lengths: &[usize],
    messages_for: impl Fn(usize) -> usize,
    samples: usize,
    min_sample: Duration,
) -> (Table, Vec<&'static str>) {
    let mut table = Table::new(&[
        "algorithm",
        "message",
        "messages",
        "gathered ns/B",
        "interleaved ns/B",
        "gain",
        "layout ns/B (host)",
    ]);
    let width = Width::detect();
    let mut without = Vec::new();
    for &alg in algorithms {
        let Some(lane_count) = lab_batch::lane_kernel(alg, width).map(|k| k.lanes()) else {
            without.push(alg.name());
            continue;
        };
        let messages = messages_for(lane_count);
        for &len in lengths {
            let Some((g, i, l)) = interleaved_cost(alg, len, messages, samples, min_sample) else {
                continue;
            };
            let per_byte = |ns: f64| ns / (len * messages).max(1) as f64;
            table.push(vec![
                format!("{} ({lane_count} lanes, {})", alg.name(), width.name()),
                format_size(len),
                messages.to_string(),
                sig3(per_byte(g.median)),
                sig3(per_byte(i.median)),
                format!("{:+.1}%", (g.median - i.median) / g.median * 100.0),
                sig3(per_byte(l.median)),
            ]);
        }
    }
    (table, without)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_cost_runs() {
        let (g, i, l) = interleaved_cost(Algorithm::Keccak256, 200, 8, 2, Duration::ZERO).unwrap();
        assert!(g.median > 0.0 && i.median > 0.0 && l.median > 0.0);
        assert!(
            interleaved_cost(Algorithm::Whirlpool, 200, 8, 2, Duration::ZERO).is_none()
                || lab_batch::has_lanes(Algorithm::Whirlpool)
        );
    }
}
