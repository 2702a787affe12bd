//! Which bottleneck limits a configuration: a pure function of its measured time and of the
//! roofs and compute rate measured in the same run.
//!
//! The model: hashing a batch costs at least the time the source needs to deliver it
//! (`reads x latency + bytes / bandwidth`) and the time the hash needs on cache-resident data
//! (`bytes / (compute rate x threads)`). The share of the measured time each model explains
//! decides: a source explaining most of it is the bottleneck (memory, disk or the transfer to
//! an accelerator); else compute when the hash runs near its in-cache rate; else, for short
//! messages, the fixed per-message costs (setup, padding, finalisation, dispatch) dominate.

use serde::{Deserialize, Serialize};

use crate::source::Source;

/// What limits a configuration's speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bottleneck {
    /// The hash computation itself.
    Compute,
    /// Reading memory (or copying from the page cache).
    Memory,
    /// Reading the disk.
    Disk,
    /// Moving data to the accelerator.
    Transfer,
    /// Fixed costs per message: short messages.
    PerMessageOverhead,
}

impl Bottleneck {
    /// Name used in tables and files.
    pub fn name(self) -> &'static str {
        match self {
            Bottleneck::Compute => "compute",
            Bottleneck::Memory => "memory",
            Bottleneck::Disk => "disk",
            Bottleneck::Transfer => "transfer",
            Bottleneck::PerMessageOverhead => "per-message overhead",
        }
    }
}

/// A source's speed: fixed cost per read call plus bytes over bandwidth.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Roof {
    /// Bytes per second.
    pub bandwidth: f64,
    /// Seconds per read call (0 for memory).
    pub latency: f64,
}

impl Roof {
    /// Time to deliver `bytes` in `reads` calls.
    pub fn time(&self, bytes: f64, reads: f64) -> f64 {
        reads * self.latency + bytes / self.bandwidth
    }
}

/// Everything the classification looks at for one configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassifyInput {
    /// Measured seconds for one batch.
    pub seconds: f64,
    /// Bytes in one batch.
    pub bytes: f64,
    /// Read calls per batch (0 for memory).
    pub reads: f64,
    /// Length of each message.
    pub message_len: usize,
    /// The source's roof (memory at this thread count, page cache, disk).
    pub source_roof: Roof,
    /// The bottleneck the source stands for.
    pub source_kind: Bottleneck,
    /// The engine's single-thread rate on long, cache-resident messages (bytes per second).
    pub compute_rate: f64,
    /// Threads that actually work on the batch at once.
    pub effective_threads: f64,
    /// Host-to-accelerator roof, for engines that run on one.
    pub transfer_roof: Option<Roof>,
}

/// Share of the measured time a source must explain to be the bottleneck.
pub const SOURCE_SHARE: f64 = 0.6;
/// Share of the measured time the streaming compute model must explain to call it compute-bound.
pub const COMPUTE_SHARE: f64 = 0.6;
/// Messages shorter than this are "short" (the seed's 8..1536 B; long is 4 KiB and up).
pub const LONG_MESSAGE: usize = 4096;

/// The bottleneck of one configuration (see the module docs for the model).
pub fn classify(x: &ClassifyInput) -> Bottleneck {
    if x.seconds <= 0.0 || x.bytes <= 0.0 {
        return Bottleneck::PerMessageOverhead;
    }
    let source_share = x.source_roof.time(x.bytes, x.reads) / x.seconds;
    let transfer_share = x
        .transfer_roof
        .map(|r| r.time(x.bytes, 1.0) / x.seconds)
        .unwrap_or(0.0);
    let compute_share = x.bytes / (x.compute_rate * x.effective_threads.max(1.0)) / x.seconds;
    if transfer_share >= SOURCE_SHARE && transfer_share >= source_share {
        return Bottleneck::Transfer;
    }
    if source_share >= SOURCE_SHARE {
        return x.source_kind;
    }
    if compute_share >= COMPUTE_SHARE {
        return Bottleneck::Compute;
    }
    if x.message_len < LONG_MESSAGE {
        return Bottleneck::PerMessageOverhead;
    }
    if source_share > compute_share {
        x.source_kind
    } else {
        Bottleneck::Compute
    }
}

/// A row of the summary table: single or multi message, from memory or disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SummaryRow {
    pub multi_message: bool,
    pub disk: bool,
}

impl SummaryRow {
    /// The four rows, in the seed's order.
    pub const ALL: [SummaryRow; 4] = [
        SummaryRow::ONE_MESSAGE_MEMORY,
        SummaryRow {
            multi_message: false,
            disk: true,
        },
        SummaryRow {
            multi_message: true,
            disk: false,
        },
        SummaryRow {
            multi_message: true,
            disk: true,
        },
    ];

    /// One message at a time, from memory (the row the verdict's first sentences read).
    pub const ONE_MESSAGE_MEMORY: SummaryRow = SummaryRow {
        multi_message: false,
        disk: false,
    };

    /// `one message, memory`, `many messages, disk`...
    pub fn name(self) -> String {
        format!(
            "{}, {}",
            if self.multi_message {
                "many messages"
            } else {
                "one message"
            },
            if self.disk { "disk" } else { "memory" }
        )
    }

    /// Whether a configuration of `messages` messages read from `source` is counted in this
    /// row, on any number of threads. A warm file is served from RAM, so page-cache reads
    /// count as memory; only cold reads count as disk.
    pub fn holds(self, messages: usize, source: Source) -> bool {
        (messages > 1) == self.multi_message && (source == Source::Disk) == self.disk
    }
}

/// Which configurations a cell of the summary table counts ([`SummaryRow::holds`]), in words for
/// the table's caption (the verdict's counts are read from the same cells).
pub const COUNTED: &str = "cells count parhash's forms on every thread count; memory rows \
                           count page-cache reads too, disk rows only cold reads";

/// The summary table's columns: (long messages, on an accelerator, header).
pub const SUMMARY_COLUMNS: [(bool, bool, &str); 4] = [
    (false, false, "short, software"),
    (true, false, "long, software"),
    (false, true, "short, accelerator"),
    (true, true, "long, accelerator"),
];

/// One classified measurement, as the summary sees it.
#[derive(Clone, Copy, Debug)]
pub struct Classified {
    pub messages: usize,
    pub message_len: usize,
    pub source: Source,
    pub accelerator: bool,
    pub bottleneck: Bottleneck,
}

/// The count behind one cell of the summary table: its most frequent bottleneck, how many of
/// the cell's configurations have it, and how many the cell holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellCount {
    pub bottleneck: Bottleneck,
    pub count: usize,
    pub total: usize,
}

/// Counts the cell of `row` and the column of long or short messages, in software or on an
/// accelerator (ties go to the earlier [`Bottleneck`]); `None` when nothing was measured in it.
/// The table and the verdict both read this, so they count the same configurations.
pub fn count_cell(
    items: &[Classified],
    row: SummaryRow,
    long: bool,
    accelerator: bool,
) -> Option<CellCount> {
    let mut counts = std::collections::BTreeMap::new();
    for c in items.iter().filter(|c| {
        row.holds(c.messages, c.source)
            && (c.message_len >= LONG_MESSAGE) == long
            && c.accelerator == accelerator
    }) {
        *counts.entry(c.bottleneck).or_insert(0usize) += 1;
    }
    let total = counts.values().sum();
    let top = counts.values().copied().max()?;
    let (bottleneck, count) = counts.into_iter().find(|&(_, n)| n == top)?;
    Some(CellCount {
        bottleneck,
        count,
        total,
    })
}

/// The bottleneck table of the Keccak-and-SIMD-on-an-FPGA-Xeon study: rows one message or many
/// messages at once x memory/disk, columns short/long x software/accelerator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SummaryTable {
    pub columns: Vec<String>,
    /// (row name, one cell per column).
    pub rows: Vec<(String, Vec<String>)>,
    /// The counts the cells are written from, row by row in [`SummaryRow::ALL`]'s order,
    /// column by column in [`SUMMARY_COLUMNS`]' order (empty in reports written before them).
    #[serde(default)]
    pub counts: Vec<Vec<Option<CellCount>>>,
}

impl SummaryTable {
    /// The count of `row`'s cell for long or short messages, in software or on an accelerator.
    pub fn count(&self, row: SummaryRow, long: bool, accelerator: bool) -> Option<CellCount> {
        let r = SummaryRow::ALL.iter().position(|&x| x == row)?;
        let c = SUMMARY_COLUMNS
            .iter()
            .position(|&(l, a, _)| l == long && a == accelerator)?;
        *self.counts.get(r)?.get(c)?
    }
}

/// The most frequent bottleneck in each cell ([`count_cell`]), with its share; `no accelerator`
/// in the accelerator columns when none was measured, `not measured` for empty software cells.
/// Which configurations a cell counts: [`SummaryRow::holds`] ([`COUNTED`] in words).
pub fn summarize(items: &[Classified], have_accelerator: bool) -> SummaryTable {
    let mut rows = Vec::new();
    let mut counts = Vec::new();
    for row in SummaryRow::ALL {
        let row_counts: Vec<Option<CellCount>> = SUMMARY_COLUMNS
            .iter()
            .map(|&(long, accel, _)| count_cell(items, row, long, accel))
            .collect();
        let cells = SUMMARY_COLUMNS
            .iter()
            .zip(&row_counts)
            .map(|(&(_, accel, _), count)| match count {
                Some(c) => format!("{} ({}/{})", c.bottleneck.name(), c.count, c.total),
                None if accel && !have_accelerator => "no accelerator".to_string(),
                None => "not measured".to_string(),
            })
            .collect();
        rows.push((row.name(), cells));
        counts.push(row_counts);
    }
    SummaryTable {
        columns: SUMMARY_COLUMNS.iter().map(|c| c.2.to_string()).collect(),
        rows,
        counts,
    }
}

/// What the lab knows about a configuration run on several threads, to say why it did not
/// get faster.
#[derive(Clone, Debug, PartialEq)]
pub struct ScalingFacts {
    /// Threads asked for.
    pub threads: usize,
    /// Threads the engine really used and why, when fewer than asked
    /// ([`crate::engine::Engine::threads_used`]).
    pub engine_limit: Option<(usize, String)>,
    /// Hardware threads of the machine.
    pub hardware_threads: usize,
    /// Seconds one thread takes for the batch (measured in the same run).
    pub one_thread_seconds: f64,
    /// Measured speed-up against one thread.
    pub speedup: f64,
    pub bottleneck: Option<Bottleneck>,
}

/// A batch one thread hashes faster than this is too little work to share: starting work on
/// another thread and waiting for it costs tens of microseconds (on a VM).
pub const MIN_SHARED_SECONDS: f64 = 200e-6;

/// Whether a speed-up earns at least half of the ideal gain of `threads` usable threads.
pub fn scales(speedup: f64, threads: usize) -> bool {
    speedup >= 1.0 + 0.5 * (threads.max(1) as f64 - 1.0)
}

/// Why a multi-thread configuration got less than half the ideal gain, in a sentence for the
/// cell; `None` when it scaled (or ran on one thread).
pub fn explain_scaling(f: &ScalingFacts) -> Option<String> {
    let usable = f.threads.min(f.hardware_threads.max(1));
    if f.threads <= 1 || scales(f.speedup, usable) {
        return None;
    }
    if usable <= 1 {
        return Some(format!(
            "this machine has {} hardware thread(s): more threads share it",
            f.hardware_threads
        ));
    }
    if let Some((used, why)) = &f.engine_limit {
        if *used < usable {
            return Some(why.clone());
        }
    }
    if let Some(b @ (Bottleneck::Memory | Bottleneck::Disk | Bottleneck::Transfer)) = f.bottleneck {
        return Some(format!(
            "{}-bound: more threads cannot read faster than the {} roof",
            b.name(),
            b.name()
        ));
    }
    if f.one_thread_seconds < MIN_SHARED_SECONDS {
        // One sentence for all such cells (a footnote each would repeat it).
        return Some(format!(
            "too little work to share: one thread hashes the batch in under {:.0} us, and handing \
             work to another thread and waiting for it costs tens of microseconds",
            MIN_SHARED_SECONDS * 1e6
        ));
    }
    Some(
        "not explained by the lab's model; a busy shared machine gives this too (rerun to check)"
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const GB: f64 = 1e9;

    fn input(seconds: f64, bytes: f64, message_len: usize) -> ClassifyInput {
        ClassifyInput {
            seconds,
            bytes,
            reads: 0.0,
            message_len,
            source_roof: Roof {
                bandwidth: 20.0 * GB,
                latency: 0.0,
            },
            source_kind: Bottleneck::Memory,
            compute_rate: 2.0 * GB,
            effective_threads: 1.0,
            transfer_roof: None,
        }
    }

    #[test]
    fn near_in_cache_rate_is_compute() {
        // 1 MB in 0.55 ms: 1.8 GB/s against a 2 GB/s compute rate and 20 GB/s memory.
        assert_eq!(classify(&input(0.55e-3, 1e6, 65536)), Bottleneck::Compute);
    }

    #[test]
    fn at_memory_roof_is_memory() {
        let mut x = input(1e6 / (18.0 * GB), 1e6, 65536);
        x.compute_rate = 10.0 * GB;
        x.effective_threads = 4.0;
        assert_eq!(classify(&x), Bottleneck::Memory);
    }

    #[test]
    fn short_and_slow_is_per_message_overhead() {
        // 64 messages of 8 B in 20 us: 25 MB/s, far below both roofs.
        assert_eq!(
            classify(&input(20e-6, 512.0, 8)),
            Bottleneck::PerMessageOverhead
        );
    }

    #[test]
    fn long_and_slow_picks_the_larger_share() {
        // Explained by neither at 60%: compute explains 25%, memory 2.5% -> compute.
        assert_eq!(classify(&input(2e-3, 1e6, 65536)), Bottleneck::Compute);
    }

    #[test]
    fn disk_latency_counts() {
        // One 512-byte cold read taking 110 us on a disk with 100 us latency: disk-bound even
        // though the bytes are few.
        let mut x = input(110e-6, 512.0, 8);
        x.reads = 1.0;
        x.source_roof = Roof {
            bandwidth: 1.0 * GB,
            latency: 100e-6,
        };
        x.source_kind = Bottleneck::Disk;
        assert_eq!(classify(&x), Bottleneck::Disk);
    }

    #[test]
    fn transfer_roof_wins_when_it_explains_the_time() {
        let mut x = input(1e6 / (3.0 * GB), 1e6, 1 << 20);
        x.compute_rate = 100.0 * GB;
        x.transfer_roof = Some(Roof {
            bandwidth: 3.2 * GB,
            latency: 0.0,
        });
        assert_eq!(classify(&x), Bottleneck::Transfer);
    }

    #[test]
    fn degenerate_input_does_not_divide_by_zero() {
        assert_eq!(
            classify(&input(0.0, 0.0, 0)),
            Bottleneck::PerMessageOverhead
        );
    }

    #[test]
    fn summary_cells() {
        let item = |messages, len, source, b| Classified {
            messages,
            message_len: len,
            source,
            accelerator: false,
            bottleneck: b,
        };
        let items = [
            item(1, 8, Source::Memory, Bottleneck::PerMessageOverhead),
            item(1, 64, Source::Memory, Bottleneck::PerMessageOverhead),
            item(1, 64, Source::PageCache, Bottleneck::Compute),
            item(1, 65536, Source::Memory, Bottleneck::Compute),
            item(64, 65536, Source::Disk, Bottleneck::Disk),
        ];
        let t = summarize(&items, false);
        assert_eq!(t.rows.len(), 4);
        assert_eq!(t.rows[0].0, "one message, memory");
        assert_eq!(t.rows[0].1[0], "per-message overhead (2/3)");
        assert_eq!(t.rows[0].1[1], "compute (1/1)");
        assert_eq!(t.rows[0].1[2], "no accelerator");
        assert_eq!(t.rows[1].1[0], "not measured");
        assert_eq!(t.rows[3].1[1], "disk (1/1)");
        // The cells are written from the counts the verdict reads.
        let one_memory_short = t.count(SummaryRow::ONE_MESSAGE_MEMORY, false, false);
        assert_eq!(
            one_memory_short,
            Some(CellCount {
                bottleneck: Bottleneck::PerMessageOverhead,
                count: 2,
                total: 3
            })
        );
        assert_eq!(t.count(SummaryRow::ALL[1], false, false), None);
    }

    fn facts(threads: usize, speedup: f64) -> ScalingFacts {
        ScalingFacts {
            threads,
            engine_limit: None,
            hardware_threads: 2,
            one_thread_seconds: 0.1,
            speedup,
            bottleneck: Some(Bottleneck::Compute),
        }
    }

    #[test]
    fn scaling_cells_are_explained() {
        // Scaled: nothing to say.
        assert_eq!(explain_scaling(&facts(2, 1.9)), None);
        assert_eq!(explain_scaling(&facts(1, 1.0)), None);
        // The engine's own minimum work per thread comes first.
        let mut f = facts(2, 1.0);
        f.engine_limit = Some((1, "the engine's minimum".into()));
        assert_eq!(explain_scaling(&f).unwrap(), "the engine's minimum");
        // Then the source's roof, then too little work.
        let mut f = facts(2, 1.0);
        f.bottleneck = Some(Bottleneck::Memory);
        assert!(explain_scaling(&f).unwrap().starts_with("memory-bound"));
        let mut f = facts(2, 0.6);
        f.one_thread_seconds = 5e-6;
        let why = explain_scaling(&f).unwrap();
        assert!(why.starts_with("too little work"), "{why}");
        assert!(explain_scaling(&facts(2, 1.1))
            .unwrap()
            .contains("not explained"));
        // More threads than the machine has: judged against its threads.
        let mut f = facts(4, 1.9);
        f.hardware_threads = 2;
        assert_eq!(explain_scaling(&f), None);
    }
}
