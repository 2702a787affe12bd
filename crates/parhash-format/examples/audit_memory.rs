//! How much memory `check --audit` holds for a list of N entries, measured without making N
//! files: the [`Auditor`] is fed a list as `sum -r` writes it (names in walk order, 32-byte
//! digests) and a walk that finds every listed file, a share of them changed, and as many new
//! files; the verdicts are then drained as the CLI drains them. Prints the peak resident set
//! (`VmHWM`) and bytes per list entry. (BENCHMARKS.md, `check --audit`.)
//!
//!     cargo run --release -p parhash-format --example audit_memory -- 10000000 60 1
//!
//! Arguments: entries, name length in bytes (at least 24), percent of files changed (as
//! many again are new).

use std::io;

use parhash_format::audit::Auditor;

/// A 32-byte digest standing for file `index` (`version` 1 for a changed file): SplitMix64,
/// which spreads indices over digests as a hash would, at no cost worth measuring.
fn digest(index: u64, version: u64) -> [u8; 32] {
    let mut state = index.wrapping_mul(2).wrapping_add(version);
    let mut out = [0u8; 32];
    for chunk in out.chunks_mut(8) {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out
}

/// `./shard-0001/sample-000000042...` padded to `len` bytes: names sort (byte order, which is
/// walk order here: every name has the same depth) as their indices do.
fn name(index: u64, len: usize, prefix: &str) -> Vec<u8> {
    let mut name = format!("./shard-{:04}/{prefix}-{:09}", index / 10_000, index).into_bytes();
    name.resize(len.max(name.len()), b'x');
    name
}

fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn main() -> io::Result<()> {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|arg| arg.parse().expect("arguments are numbers"))
        .collect();
    let entries = args.first().copied().unwrap_or(1_000_000);
    let name_len = args.get(1).copied().unwrap_or(60) as usize;
    let changed_percent = args.get(2).copied().unwrap_or(1);
    let changed_every = (100 / changed_percent.max(1)).max(1);

    let before = peak_rss_kib();
    let mut audit = Auditor::new(32);
    for i in 0..entries {
        audit.listed(&name(i, name_len, "sample"), &digest(i, 0), true)?;
    }
    let after_list = peak_rss_kib();
    let mut not_matched = 0u64;
    for i in 0..entries {
        let changed = changed_percent > 0 && i % changed_every == 0;
        not_matched += changed as u64;
        audit.found(&name(i, name_len, "sample"), Ok(&digest(i, changed as u64)))?;
        if changed {
            // As many new files, each a copy of a listed one (duplicates to find).
            audit.found(&name(i, name_len, "zz-new"), Ok(&digest(i + 1, 0)))?;
            not_matched += 1;
        }
    }
    let mut report = audit.finish(|_| false);
    let mut counts = std::collections::BTreeMap::new();
    for verdict in report.verdicts() {
        *counts.entry(verdict.status.name()).or_insert(0u64) += 1;
    }
    let peak = peak_rss_kib();
    println!("entries {entries}, names of {name_len} bytes, {not_matched} files not matched");
    println!("verdicts {counts:?}");
    println!(
        "peak RSS {:.1} MB (list read: {:.1} MB, at start {:.1} MB); {:.0} bytes per list entry",
        peak as f64 / 1024.0,
        after_list as f64 / 1024.0,
        before as f64 / 1024.0,
        (peak - before) as f64 * 1024.0 / entries.max(1) as f64
    );
    Ok(())
}
