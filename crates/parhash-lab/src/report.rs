//! A run's results: the machine, the roofs, every measurement, derived tables and the sections
//! presets add; printed to the terminal, and written as CSV, JSON, plots and HTML by `output`.

use serde::{Deserialize, Serialize};

use crate::chart::Chart;
use crate::classify::SummaryTable;
use crate::compare::{peer_comparisons, PeerComparison};
use crate::measure::Measurement;
use crate::paired::PairedRatio;
use crate::roofs::Roofs;
use crate::source::Source;
use crate::units::{format_rate, format_size, sig3};

/// A plain table: headers and rows of text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these headers and no rows.
    pub fn new<S: AsRef<str>>(headers: &[S]) -> Table {
        Table {
            headers: headers.iter().map(|h| h.as_ref().to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row.
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// Which columns hold numbers (right-aligned): those, past the first, where most cells
    /// start like one.
    pub fn numeric_columns(&self) -> Vec<bool> {
        // A number, a sign, or a ratio written `x1.08`.
        let starts_numeric = |s: &str| {
            let mut chars = s.chars();
            match chars.next() {
                Some('x') => chars.next().is_some_and(|c| c.is_ascii_digit()),
                Some(c) => c.is_ascii_digit() || c == '-' || c == '+',
                None => false,
            }
        };
        (0..self.headers.len())
            .map(|i| {
                let n = self
                    .rows
                    .iter()
                    .filter(|r| r.get(i).is_some_and(|c| starts_numeric(c)))
                    .count();
                i > 0 && 2 * n >= self.rows.len().max(1)
            })
            .collect()
    }

    /// Aligned plain text, columns separated by two spaces, numbers right-aligned.
    pub fn to_text(&self) -> String {
        let cols = self.headers.len();
        let mut width = vec![0usize; cols];
        for row in std::iter::once(&self.headers).chain(&self.rows) {
            for (i, cell) in row.iter().enumerate().take(cols) {
                width[i] = width[i].max(cell.chars().count());
            }
        }
        let numeric = self.numeric_columns();
        let mut out = String::new();
        let line = |row: &Vec<String>, out: &mut String| {
            let cells: Vec<String> = (0..cols)
                .map(|i| {
                    let cell = row.get(i).map(String::as_str).unwrap_or("");
                    if numeric[i] {
                        format!("{cell:>w$}", w = width[i])
                    } else {
                        format!("{cell:<w$}", w = width[i])
                    }
                })
                .collect();
            out.push_str(cells.join("  ").trim_end());
            out.push('\n');
        };
        line(&self.headers, &mut out);
        let rule: Vec<String> = width.iter().map(|w| "-".repeat(*w)).collect();
        out.push_str(&rule.join("  "));
        out.push('\n');
        for row in &self.rows {
            line(row, &mut out);
        }
        out
    }
}

/// A titled block of text and an optional table, added by a preset or by the lab.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Section {
    pub title: String,
    pub paragraphs: Vec<String>,
    pub table: Option<Table>,
}

/// Facts about the machine the run measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    pub cpu: String,
    pub features: String,
    pub threads: usize,
    /// Measured time-stamp-counter frequency (Hz), where there is a TSC.
    pub tsc_hz: Option<f64>,
    pub os: String,
}

impl Machine {
    /// Describes this machine, measuring the TSC frequency over `window`.
    pub fn detect(window: std::time::Duration) -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| std::env::consts::ARCH.to_string());
        Machine {
            cpu,
            features: parhash::lab::platform::describe(),
            threads: parhash::threads::available(),
            tsc_hz: crate::timer::tsc_frequency(window),
            os: std::env::consts::OS.to_string(),
        }
    }

    /// One line: CPU, threads, features, TSC.
    pub fn summary(&self) -> String {
        format!("{}; {}", self.cpu_summary(), self.clock_summary())
    }

    /// The CPU, its threads and the features parhash uses.
    pub fn cpu_summary(&self) -> String {
        format!("{}, {} threads, {}", self.cpu, self.threads, self.features)
    }

    /// The time-stamp counter the cycle figures count.
    pub fn clock_summary(&self) -> String {
        match self.tsc_hz {
            Some(hz) => format!(
                "TSC {:.3} GHz (measured; cycles below are TSC ticks)",
                hz / 1e9
            ),
            None => "no time-stamp counter: cycles not reported".into(),
        }
    }
}

/// Everything one run produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub title: String,
    /// The command line that produced it.
    pub command: String,
    pub machine: Machine,
    pub roofs: Option<Roofs>,
    /// The engines' single-thread in-cache rates: (label, bytes per second).
    pub compute_rates: Vec<(String, f64)>,
    pub measurements: Vec<Measurement>,
    /// Ratios of parhash against peers from interleaved samples (see [`crate::paired`]); the
    /// comparisons use them where present.
    #[serde(default)]
    pub paired: Vec<PairedRatio>,
    pub summary: Option<SummaryTable>,
    pub sections: Vec<Section>,
    /// Charts a preset adds to the ones drawn from the measurements.
    #[serde(default)]
    pub charts: Vec<Chart>,
    pub notes: Vec<String>,
    /// Seconds the run took.
    pub seconds: f64,
}

impl Report {
    /// An empty report for `machine`.
    pub fn new(title: &str, command: &str, machine: Machine) -> Report {
        Report {
            title: title.to_string(),
            command: command.to_string(),
            machine,
            roofs: None,
            compute_rates: Vec::new(),
            measurements: Vec::new(),
            paired: Vec::new(),
            summary: None,
            sections: Vec::new(),
            charts: Vec::new(),
            notes: Vec::new(),
            seconds: 0.0,
        }
    }

    /// The roofs as a table.
    pub fn roofs_table(&self) -> Option<Table> {
        let r = self.roofs.as_ref()?;
        let mut t = Table::new(&["roof", "rate", "latency per read", "how"]);
        t.push(vec![
            "memory read, 1 thread".into(),
            format_rate(r.memory_1t),
            "-".into(),
            format!("streaming sum over {}", format_size(r.memory_bytes)),
        ]);
        t.push(vec![
            format!("memory read, {} threads", r.threads),
            format_rate(r.memory_nt),
            "-".into(),
            "same, split over threads".into(),
        ]);
        t.push(vec![
            "page-cache read".into(),
            format_rate(r.page_cache.bandwidth),
            format!("{:.1} us", r.page_cache.latency * 1e6),
            format!("1 MiB reads of a warm {} file", format_size(r.file_bytes)),
        ]);
        t.push(vec![
            "cold disk read".into(),
            format_rate(r.disk.bandwidth),
            format!("{:.1} us", r.disk.latency * 1e6),
            "same after posix_fadvise(DONTNEED)".into(),
        ]);
        t.push(vec![
            "host-to-accelerator transfer".into(),
            r.transfer
                .as_ref()
                .map(|(_, bw)| format_rate(*bw))
                .unwrap_or_else(|| "no GPU".into()),
            "-".into(),
            r.transfer_text(),
        ]);
        Some(t)
    }

    /// Every measurement as a table (the terminal's main view).
    pub fn measurements_table(&self) -> Table {
        let mut t = Table::new(&[
            "engine",
            "length",
            "msgs",
            "source",
            "thr",
            "ns/B",
            "min..max",
            "cyc/B",
            "GB/s",
            "msg/s",
            "x1thr",
            "xbase",
            "bottleneck",
        ]);
        for m in &self.measurements {
            t.push(vec![
                m.label(),
                format_size(m.message_len),
                m.messages.to_string(),
                m.source.name().into(),
                m.threads.to_string(),
                sig3(m.ns_per_byte),
                format!("{}..{}", sig3(m.ns_per_byte_min), sig3(m.ns_per_byte_max)),
                m.cycles_per_byte.map(sig3).unwrap_or_else(|| "-".into()),
                sig3(m.gb_per_s),
                sig3(m.messages_per_s),
                self.speedup_cell(m),
                m.speedup_vs_baseline
                    .map(sig3)
                    .unwrap_or_else(|| "-".into()),
                m.bottleneck
                    .map(|b| b.name().to_string())
                    .unwrap_or_else(|| "-".into()),
            ]);
        }
        t
    }

    /// The x1thr cell of `m`: the speed-up, and the number of the footnote saying why it did
    /// not scale ([`Report::scaling_footnotes`]).
    pub fn speedup_cell(&self, m: &Measurement) -> String {
        let Some(s) = m.speedup_vs_1_thread else {
            return "-".into();
        };
        match &m.scaling_note {
            Some(note) => {
                let n = self
                    .scaling_footnotes()
                    .iter()
                    .position(|f| f == note)
                    .map_or(0, |i| i + 1);
                format!("{} [{n}]", sig3(s))
            }
            None => sig3(s),
        }
    }

    /// The distinct reasons why cells did not scale, numbered from 1 in the order they appear.
    pub fn scaling_footnotes(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for note in self
            .measurements
            .iter()
            .filter_map(|m| m.scaling_note.as_ref())
        {
            if !out.contains(note) {
                out.push(note.clone());
            }
        }
        out
    }

    /// The multi-thread measurements that did not scale (those with a scaling note), the
    /// lowest speed-up first.
    pub fn not_scaling(&self) -> Vec<&Measurement> {
        let mut out: Vec<&Measurement> = self
            .measurements
            .iter()
            .filter(|m| m.scaling_note.is_some() && m.speedup_vs_1_thread.is_some())
            .collect();
        out.sort_by(|a, b| {
            let speedup = |m: &Measurement| m.speedup_vs_1_thread.unwrap_or(1.0);
            speedup(a).total_cmp(&speedup(b))
        });
        out
    }

    /// Only the configurations that did not scale, worst first, at most `limit` rows and a last
    /// row counting the rest: the short table the verdict points to (the full one has every
    /// measurement).
    pub fn not_scaling_table(&self, limit: usize) -> Option<Table> {
        let misses = self.not_scaling();
        if misses.is_empty() {
            return None;
        }
        let mut t = Table::new(&["form", "work", "thr", "x1thr [why]"]);
        for m in misses.iter().take(limit) {
            t.push(vec![
                m.label(),
                work_text_without_threads(m),
                m.threads.to_string(),
                self.speedup_cell(m),
            ]);
        }
        if misses.len() > limit {
            t.push(vec![
                format!("... and {} more", misses.len() - limit),
                "(every measurement's x1thr column)".into(),
                String::new(),
                String::new(),
            ]);
        }
        Some(t)
    }

    /// The thread counts of the configurations measured against one thread (1 included), in
    /// increasing order: the speed-up plot needs three of them to show a trend.
    pub fn speedup_thread_counts(&self) -> Vec<usize> {
        let mut counts: Vec<usize> = self
            .measurements
            .iter()
            .filter(|m| m.speedup_vs_1_thread.is_some())
            .map(|m| m.threads)
            .chain(std::iter::once(1))
            .collect();
        counts.sort_unstable();
        counts.dedup();
        if counts.len() < 2 {
            return Vec::new();
        }
        counts
    }

    /// Speed-up on the most threads measured, one row per form: how many of its configurations
    /// scaled, and its best and worst. It stands in for the speed-up plot where fewer than three
    /// thread counts were measured (a line through two points per form says less than a
    /// number does).
    pub fn speedup_table(&self) -> Option<Table> {
        let most = *self.speedup_thread_counts().last()?;
        let mut forms: Vec<(String, Vec<&Measurement>)> = Vec::new();
        for m in self
            .measurements
            .iter()
            .filter(|m| m.threads == most && m.speedup_vs_1_thread.is_some())
        {
            match forms.iter_mut().find(|(label, _)| *label == m.label()) {
                Some((_, ms)) => ms.push(m),
                None => forms.push((m.label(), vec![m])),
            }
        }
        let mut t = Table::new(&[
            "form".to_string(),
            "scaled".to_string(),
            format!("best x1thr on {most} threads"),
            "at".to_string(),
            "worst x1thr [why]".to_string(),
            "at".to_string(),
        ]);
        for (label, ms) in forms {
            let speedup = |m: &&Measurement| m.speedup_vs_1_thread.unwrap_or(1.0);
            let best = ms.iter().max_by(|a, b| speedup(a).total_cmp(&speedup(b)));
            let worst = ms.iter().min_by(|a, b| speedup(a).total_cmp(&speedup(b)));
            let (Some(best), Some(worst)) = (best, worst) else {
                continue;
            };
            let scaled = ms.iter().filter(|m| m.scaling_note.is_none()).count();
            // One configuration is its own best and worst: said once.
            let (worst_cell, worst_work) = if ms.len() > 1 {
                (self.speedup_cell(worst), work_text_without_threads(worst))
            } else {
                ("-".into(), "-".into())
            };
            t.push(vec![
                label,
                format!("{scaled} of {}", ms.len()),
                self.speedup_cell(best),
                work_text_without_threads(best),
                worst_cell,
                worst_work,
            ]);
        }
        Some(t)
    }

    /// Every piece of work parhash and a peer measured, with the paired ratios where there are
    /// some ([`crate::compare::peer_comparisons`]).
    pub fn peer_comparisons(&self) -> Vec<PeerComparison<'_>> {
        peer_comparisons(&self.measurements, &self.paired)
    }

    /// parhash against its peers, like with like: each row is a piece of work a peer measured
    /// (algorithm, length, messages, threads, source) against parhash's fastest form on that
    /// same work; ratio = peer time / parhash time, above 1 means parhash is faster. A ratio
    /// from interleaved samples is written with its interquartile range, `1.08 (1.05-1.11)`
    /// ([`Report::paired_note`] says so under the table); one without a range is the ratio of
    /// the two cells timed apart.
    pub fn peers_table(&self) -> Option<Table> {
        use crate::engine::Provider;
        let comparisons = self.peer_comparisons();
        if comparisons.is_empty() {
            return None;
        }
        let providers: Vec<Provider> = [
            Provider::Openssl,
            Provider::Rustcrypto,
            Provider::Blake3,
            Provider::Crate,
        ]
        .into_iter()
        .filter(|p| comparisons.iter().any(|c| c.peer(*p).is_some()))
        .collect();
        let mut headers: Vec<String> = ["algorithm", "work", "parhash's fastest form", "GB/s"]
            .map(String::from)
            .to_vec();
        headers.extend(providers.iter().map(|p| format!("x {}", p.name())));
        let mut t = Table::new(&headers);
        for c in &comparisons {
            let m = c.parhash;
            let mut row = vec![
                m.algorithm.clone(),
                work_text(m),
                m.variant.clone(),
                sig3(m.gb_per_s),
            ];
            row.extend(providers.iter().map(|p| {
                c.peer(*p)
                    .map(|o| match c.paired_with(o) {
                        Some(pair) => format!(
                            "{} ({}-{})",
                            sig3(pair.ratio.median),
                            sig3(pair.ratio.q1),
                            sig3(pair.ratio.q3)
                        ),
                        None => sig3(c.ratio(o)),
                    })
                    .unwrap_or_else(|| "-".into())
            }));
            t.push(row);
        }
        Some(t)
    }

    /// The line under the peers tables where some ratios are paired: how they were taken.
    pub fn paired_note(&self) -> Option<String> {
        let most = self.paired.iter().map(|p| p.ratio.rounds).max()?;
        let fewest = self.paired.iter().map(|p| p.ratio.rounds).min()?;
        let rounds = if fewest == most {
            most.to_string()
        } else {
            format!("{fewest}-{most}")
        };
        let unpaired = self
            .peer_comparisons()
            .iter()
            .any(|c| c.peers.iter().any(|p| c.paired_with(p).is_none()));
        Some(format!(
            "ratios with a range in parentheses are paired: parhash's form and the peer sampled \
             alternately in one process ({rounds} rounds of a short sample each), the median of the \
             per-round ratios and their interquartile range; where several forms' best samples were within \
             {:.0} % of each other in the sweep, each was paired and the form shown is the best against \
             the best peer{}",
            (crate::paired::CONTENDERS_WITHIN - 1.0) * 100.0,
            if unpaired {
                "; ratios without one come from the two cells timed apart (files, several \
                 threads, batches over 1 MiB, or work past the pass's share of the budget)"
            } else {
                ""
            }
        ))
    }

    /// parhash's forms measured, each with what it does (the library's own words, where it
    /// has them).
    pub fn forms_table(&self) -> Option<Table> {
        let mut t = Table::new(&["form", "what it does"]);
        let mut seen = Vec::new();
        for m in self
            .measurements
            .iter()
            .filter(|m| m.provider == crate::engine::Provider::Parhash)
        {
            let label = format!("{}/{}", m.algorithm, m.variant);
            if seen.contains(&label) {
                continue;
            }
            seen.push(label.clone());
            t.push(vec![label, form_about(&m.algorithm, &m.variant)]);
        }
        (!t.rows.is_empty()).then_some(t)
    }

    /// The summary as a table.
    pub fn summary_table(&self) -> Option<Table> {
        let s = self.summary.as_ref()?;
        let mut headers = vec!["".to_string()];
        headers.extend(s.columns.iter().cloned());
        let mut t = Table::new(&headers);
        for (name, cells) in &s.rows {
            let mut row = vec![name.clone()];
            row.extend(cells.iter().cloned());
            t.push(row);
        }
        Some(t)
    }
}

/// What parhash's form `variant` of `algorithm` does: the library's summary for its variants,
/// a sentence for the lab's extra engines (batch, tree, GPU).
pub fn form_about(algorithm: &str, variant: &str) -> String {
    if let Some(info) = parhash::Algorithm::from_name(algorithm)
        .ok()
        .and_then(|a| a.variants().into_iter().find(|v| v.name == variant))
    {
        return info.summary.to_string();
    }
    let base = variant.split(['[', '-']).next().unwrap_or(variant);
    match base {
        "batch" if variant == "batch" => {
            "many messages at once (parhash::batch): the SIMD lanes of each core, batches \
             spread over the threads"
                .into()
        }
        "batch" => format!(
            "the batch engine with the {} kernel forced",
            variant.trim_start_matches("batch-")
        ),
        "threads" => "one message split over the threads (tree mode)".into(),
        "tree" => "one message as a tree hashed over the threads".into(),
        "gpu" => "on the GPU, host-to-device copies included".into(),
        _ => "-".into(),
    }
}

/// The work of a measurement in a few words: `4 KiB`, `64 B x64, 2 threads, disk`.
pub fn work_text(m: &Measurement) -> String {
    let mut out = format_size(m.message_len);
    if m.messages > 1 {
        out.push_str(&format!(" x{}", m.messages));
    }
    if m.threads > 1 {
        out.push_str(&format!(", {} threads", m.threads));
    }
    if m.source != Source::Memory {
        out.push_str(&format!(", {}", m.source.name()));
    }
    out
}

/// The work of a measurement without its threads (a column of their own): `64 B x16, disk`.
pub fn work_text_without_threads(m: &Measurement) -> String {
    let mut out = format_size(m.message_len);
    if m.messages > 1 {
        out.push_str(&format!(" x{}", m.messages));
    }
    if m.source != Source::Memory {
        out.push_str(&format!(", {}", m.source.name()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns() {
        let mut t = Table::new(&["name", "value"]);
        t.push(vec!["a".into(), "1".into()]);
        t.push(vec!["long name".into(), "100".into()]);
        let text = t.to_text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[2].ends_with("  1"));
        assert!(lines[3].starts_with("long name"));
    }

    #[test]
    fn the_peers_table_shows_the_paired_ratio_where_there_is_one() {
        use crate::compare::tests::measured;
        use crate::paired::{PairedRatio, RatioSpread};
        let machine = Machine {
            cpu: "cpu".into(),
            features: String::new(),
            threads: 2,
            tsc_hz: None,
            os: "linux".into(),
        };
        let mut report = Report::new("t", "parhash bench", machine);
        report.measurements = vec![
            measured("parhash sha256/sha-ni", 64, 1, 1.0),
            measured("rustcrypto sha256/sha2", 64, 1, 0.8),
            measured("parhash sha256/sha-ni", 1024, 1, 1.0),
            measured("rustcrypto sha256/sha2", 1024, 1, 0.9),
        ];
        let table = |r: &Report| r.peers_table().expect("a peers table");
        // Apart: the ratios of the cells, no range, no note.
        let apart = table(&report);
        assert_eq!(apart.headers[4], "x rustcrypto");
        assert_eq!(
            (apart.rows[0][4].as_str(), apart.rows[1][4].as_str()),
            ("0.800", "0.900")
        );
        assert!(report.paired_note().is_none());
        // Paired at 64 B: that row's cell is the median with its interquartile range.
        report.paired.push(PairedRatio {
            algorithm: "sha256".into(),
            message_len: 64,
            messages: 1,
            threads: 1,
            source: Source::Memory,
            parhash_variant: "sha-ni".into(),
            peer: crate::engine::Provider::Rustcrypto,
            peer_variant: "sha2".into(),
            ratio: RatioSpread {
                median: 1.12,
                q1: 1.1,
                q3: 1.15,
                min: 0.9,
                max: 1.3,
                rounds: 21,
            },
        });
        let paired = table(&report);
        assert_eq!(paired.rows[0][4], "1.12 (1.10-1.15)");
        assert_eq!(paired.rows[1][4], "0.900");
        assert!(paired.numeric_columns()[4]);
        let note = report.paired_note().expect("a note under the table");
        assert!(
            note.contains("21 rounds") && note.contains("timed apart"),
            "{note}"
        );
        // The summary's headline and the long view say it too.
        let full = crate::summary::full_text(&report);
        assert!(
            full.contains("1.12 (1.10-1.15)") && full.contains("are paired"),
            "{full}"
        );
        assert!(crate::summary::headline_note(&report).is_some());
    }
}
