//! The quick tour (the default `parhash bench`): one algorithm per family, the seed's lengths,
//! single and multi-message, memory on one and all threads, file sources at two lengths, the
//! peers — the whole lab in under a minute.

use std::time::Duration;

use super::{one_per_family, spec, Preset};
use crate::lab::{run_sweeps, LabOptions};
use crate::source::Source;

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "tour",
    study: "",
    about:
        "quick tour: every family, seed lengths, SMH/MMH, memory/page cache/disk, peers (< 1 min)",
    run,
};

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let mut opts = opts.clone();
    if !opts.tiny {
        opts.budget = opts.budget.min(Duration::from_secs(40));
    }
    let algorithms = one_per_family();
    let main = spec(algorithms.clone(), &opts);
    let mut files = spec(algorithms.into_iter().take(2).collect(), &opts);
    files.sources = vec![Source::PageCache, Source::Disk];
    files.lengths = if opts.tiny {
        vec![64]
    } else {
        vec![64, 64 << 10]
    };
    files.peers = false;
    files.anchor = false;
    let mut report = run_sweeps("parhash bench: quick tour", &[main, files], &opts)?;
    report.notes.push(
        "more: --preset NAME (parhash bench --list-presets), or sweep axes such as \
         --algorithms, --variants all, --lengths 1MiB..1GiB, --threads 1..N"
            .into(),
    );
    Ok(report)
}

use crate::report::Report;
