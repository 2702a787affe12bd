//! The quick tour (the default `parhash bench`): one algorithm per family, the seed's lengths,
//! single and multi-message (the batch engine's SIMD lanes against multiplicity), memory on one
//! and all threads, file sources at two lengths, the peers — the whole lab in under a minute.
//! The one-message peer ratios (8 B to 256 KiB, memory, one thread) are paired: parhash's
//! fastest form and each peer timed alternately after the sweep ([`crate::paired`]); the file
//! cells have no peers, and the multi-message cells none either.

use super::{one_per_family, spec, Preset};
use crate::lab::{run_sweeps, LabOptions};
use crate::source::Source;

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "tour",
    study: "",
    about:
        "quick tour: every family, 8 B to 256 KiB, one and many messages, memory/page cache/disk, peers (< 1 min)",
    run,
};

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let opts = opts.clone();
    let algorithms = one_per_family();
    // Single message over the seed's lengths, with the peers.
    let mut single = spec(algorithms.clone(), &opts);
    single.multiplicities = vec![1];
    single.threads = vec![1];
    // Many messages on 1 and all threads: short, middle and long (batches of at most 1 MiB).
    let mut multi = spec(algorithms.clone(), &opts);
    multi.peers = false;
    multi.anchor = false;
    multi.lengths = if opts.tiny { vec![64] } else { vec![64, 4096] };
    let mut multi_long = multi.clone();
    multi_long.lengths = vec![64 << 10];
    multi_long.multiplicities = vec![16];
    // Files: page cache and cold disk, for two algorithms.
    let mut files = multi.clone();
    files.algorithms.truncate(2);
    files.sources = vec![Source::PageCache, Source::Disk];
    files.lengths = if opts.tiny {
        vec![64]
    } else {
        vec![64, 64 << 10]
    };
    files.multiplicities = vec![1, 16];
    // Throughput against multiplicity, one thread: the batch engine fills its SIMD lanes.
    let mut lanes = multi.clone();
    lanes
        .algorithms
        .retain(|&a| parhash::lab::batch::has_lanes(a));
    lanes.lengths = if opts.tiny { vec![64] } else { vec![4096] };
    lanes.multiplicities = if opts.tiny {
        vec![1, 4]
    } else {
        vec![1, 2, 4, 8, 16, 32, 64]
    };
    lanes.threads = vec![1];
    let mut parts = vec![single, multi, files, lanes];
    if !opts.tiny {
        parts.push(multi_long);
    }
    let mut report = run_sweeps("parhash bench: quick tour", &parts, &opts)?;
    report.notes.push(
        "more: --preset NAME (parhash bench --list-presets), or sweep axes such as \
         --algorithms, --variants all, --lengths 1MiB..1GiB, --threads 1..N"
            .into(),
    );
    Ok(report)
}

use crate::report::Report;
