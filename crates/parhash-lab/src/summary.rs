//! The short terminal view of a report (what `parhash bench` prints without `--verbose`): the
//! roofs, what limits hashing on this machine, parhash against the best peer per algorithm, and
//! a few plain sentences of verdict, in about 50 lines. Every row stays in the report files and
//! in the long view ([`full_text`], `--verbose`, `report.txt`).

use crate::classify::{Bottleneck, Roof, SummaryRow, COUNTED, LONG_MESSAGE};
use crate::compare::PeerComparison;
use crate::engine::Provider;
use crate::measure::Measurement;
use crate::report::{work_text, Report, Table};
use crate::source::Source;
use crate::units::{format_rate, format_size, si};

/// Words the report uses that a newcomer cannot know, each defined once (the long view and the
/// HTML report print them).
pub const TERMS: &[(&str, &str)] = &[
    (
        "one message / many messages",
        "one message: a single message hashed from start to end (one file, one request); many \
         messages: a batch of independent messages hashed together (many files or records), so \
         that SIMD lanes and threads can work side by side",
    ),
    (
        "form",
        "one of parhash's implementations of an algorithm (sequential, sha-ni, batch, ...); \
         parhash picks the fastest at run time, the lab measures each. A form named parallel \
         computes parts of one compression at once in SIMD registers: it runs on the threads \
         the thr column gives, often just one",
    ),
    (
        "thr, x1thr",
        "threads the configuration ran on; its speed-up over the same configuration on one \
         thread ([n] after it: why it did not scale, listed under the table)",
    ),
    (
        "roof",
        "the fastest this machine delivers data from a source (memory, page cache, disk, GPU \
         transfer), measured in the same run",
    ),
    (
        "bottleneck",
        "what limits a configuration: compute (the hash itself), memory, disk, transfer (to a \
         GPU), or per-message overhead (setup, padding and finalisation, which dominate short \
         messages)",
    ),
    ("short, long", "messages under 4 KiB; 4 KiB and up"),
    (
        "ns/B, cyc/B",
        "nanoseconds and time-stamp-counter ticks per byte (lower is faster)",
    ),
    (
        "peers",
        "other implementations of the same algorithm measured in the same run: OpenSSL (the \
         system's libcrypto), the RustCrypto crates, the blake3 crate; a ratio above 1 means \
         parhash is faster",
    ),
    (
        "paired ratio",
        "a ratio against a peer from interleaved samples: after the sweep, parhash's fastest \
         form and the peer are timed alternately in one process, round after round (about 1 ms \
         each), and the ratio is the median of the per-round ratios, in parentheses their \
         interquartile range (middle half); load and clock changes land on both sides of a \
         round alike, and each sample starts 2 ms after the other side's (a core that ran \
         512-bit instructions keeps a lower clock that long). Work from memory on one thread \
         with batches up to 1 MiB is paired (the rest: the ratio of the two cells timed \
         apart); --paired-rounds sets the rounds",
    ),
];

/// Roofs in two lines.
fn roofs_lines(report: &Report) -> Vec<String> {
    let Some(r) = &report.roofs else {
        return Vec::new();
    };
    let mut out = vec![
        format!(
            "roofs: memory {} on 1 thread, {} on {}; page cache {}; cold disk {} + {:.0} us per read",
            format_rate(r.memory_1t),
            format_rate(r.memory_nt),
            r.threads,
            format_rate(r.page_cache.bandwidth),
            format_rate(r.disk.bandwidth),
            r.disk.latency * 1e6
        ),
        format!("       GPU transfer: {}", r.transfer_text()),
    ];
    out.extend(r.notes.iter().map(|n| format!("note: {n}")));
    out
}

/// The bottleneck table, without the accelerator columns when no accelerator ran.
pub fn bottleneck_table(report: &Report) -> Option<Table> {
    let full = report.summary_table()?;
    let keep: Vec<usize> = (0..full.headers.len())
        .filter(|&i| {
            i == 0
                || !full
                    .rows
                    .iter()
                    .all(|r| r.get(i).is_some_and(|c| c == "no accelerator"))
        })
        .collect();
    let pick = |row: &Vec<String>| keep.iter().map(|&i| row[i].clone()).collect::<Vec<_>>();
    Some(Table {
        headers: pick(&full.headers),
        rows: full.rows.iter().map(pick).collect(),
    })
}

/// The comparisons of one message on one thread from memory, grouped by algorithm.
fn comparisons_by_algorithm(report: &Report) -> Vec<Vec<PeerComparison<'_>>> {
    let mut out: Vec<Vec<PeerComparison>> = Vec::new();
    for c in report.peer_comparisons() {
        let m = c.parhash;
        if m.messages != 1 || m.threads != 1 || m.source != Source::Memory {
            continue;
        }
        match out.last_mut() {
            Some(group) if group[0].algorithm() == c.algorithm() => group.push(c),
            _ => out.push(vec![c]),
        }
    }
    out
}

/// The shortest length of a group to headline: 64 B when measured (8 B is mostly padding),
/// else the shortest.
fn short_of<'a, 'b>(group: &'b [PeerComparison<'a>]) -> &'b PeerComparison<'a> {
    group
        .iter()
        .find(|c| c.message_len() == 64)
        .unwrap_or(&group[0])
}

fn ratio_cell(c: &PeerComparison) -> String {
    match c.best_peer() {
        Some((peer, ratio)) => format!("x{} {}", crate::units::sig3(ratio), peer.provider.name()),
        None => "-".into(),
    }
}

/// One row per algorithm: parhash's fastest form on long messages and its ratio against the
/// best peer at a short and the longest length.
pub fn headline_peers_table(report: &Report) -> Option<Table> {
    let groups = comparisons_by_algorithm(report);
    if groups.is_empty() {
        return None;
    }
    let mut t = Table::new(&[
        "algorithm",
        "parhash, longest",
        "GB/s",
        "vs best peer, short",
        "vs best peer, longest",
    ]);
    for group in &groups {
        let long = group.last().expect("non-empty group");
        let short = short_of(group);
        t.push(vec![
            long.algorithm().to_string(),
            format!(
                "{} {}",
                long.parhash.variant,
                format_size(long.message_len())
            ),
            crate::units::sig3(long.parhash.gb_per_s),
            if std::ptr::eq(short, long) {
                "-".into()
            } else {
                format!(
                    "{} ({})",
                    ratio_cell(short),
                    format_size(short.message_len())
                )
            },
            ratio_cell(long),
        ]);
    }
    Some(t)
}

/// The line under the headline table where some of its ratios are paired ([`crate::paired`]).
pub fn headline_note(report: &Report) -> Option<String> {
    let all_paired = comparisons_by_algorithm(report).iter().flatten().all(|c| {
        c.best_peer()
            .is_some_and(|(p, _)| c.paired_with(p).is_some())
    });
    (!report.paired.is_empty()).then(|| {
        format!(
            "ratios from interleaved samples: parhash and the peer timed alternately in one \
             process, the median of the per-round ratios{}",
            if all_paired {
                ""
            } else {
                " (where the peers table gives a range; the others from cells timed apart)"
            }
        )
    })
}

fn parhash_where(report: &Report, keep: impl Fn(&Measurement) -> bool) -> Vec<&Measurement> {
    report
        .measurements
        .iter()
        .filter(|m| m.provider == Provider::Parhash && keep(m))
        .collect()
}

fn fastest<'a>(ms: &[&'a Measurement]) -> Option<&'a Measurement> {
    ms.iter()
        .copied()
        .max_by(|a, b| a.gb_per_s.total_cmp(&b.gb_per_s))
}

/// "compute-bound", "dominated by per-message overhead".
fn bound(b: Bottleneck) -> String {
    match b {
        Bottleneck::PerMessageOverhead => "dominated by per-message overhead".into(),
        other => format!("{}-bound", other.name()),
    }
}

fn label_of(m: &Measurement) -> String {
    format!("{}/{}", m.algorithm, m.variant)
}

/// A ratio against a peer within this much of 1 counts as level with it (timings on a shared
/// machine wander by a few per cent).
const LEVEL: f64 = 0.95;

/// How many cells a verdict sentence names before it counts the rest.
const NAMED: usize = 4;

/// `a, b, c and 3 more` of the first [`NAMED`] of `items`.
fn first_few(items: &[String], rest_where: &str) -> String {
    let mut text = items
        .iter()
        .take(NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > NAMED {
        text.push_str(&format!(" and {} more ({rest_where})", items.len() - NAMED));
    }
    text
}

/// The "one message" sentence for long or short messages: the bottleneck of the table's cell
/// with its count (the same cell, so the same numbers), then what the run measured best.
fn one_message_sentence(report: &Report, long: bool) -> Option<String> {
    let row = SummaryRow::ONE_MESSAGE_MEMORY;
    let cell = report.summary.as_ref()?.count(row, long, false)?;
    let counted = format!("{} of {}, counted as in the table", cell.count, cell.total);
    let one = |m: &Measurement| m.messages == 1 && m.threads == 1 && m.source == Source::Memory;
    if long {
        let measured = parhash_where(report, |m| one(m) && m.message_len >= LONG_MESSAGE);
        let best = fastest(&measured).map(|best| {
            let roof = report
                .roofs
                .as_ref()
                .map(|r| format!(" against a {} memory roof", format_rate(r.memory_nt)))
                .unwrap_or_default();
            format!(
                ": best {} per core ({} at {}){roof}",
                format_rate(best.rate()),
                label_of(best),
                format_size(best.message_len)
            )
        });
        return Some(format!(
            "long messages (4 KiB and up) are {} ({counted}){}.",
            bound(cell.bottleneck),
            best.unwrap_or_default()
        ));
    }
    let measured = parhash_where(report, |m| one(m) && m.message_len < LONG_MESSAGE);
    let len = measured
        .iter()
        .map(|m| m.message_len)
        .find(|&l| l == 64)
        .or_else(|| measured.iter().map(|m| m.message_len).min())
        .unwrap_or(0);
    let at_len: Vec<&Measurement> = measured
        .iter()
        .copied()
        .filter(|m| m.message_len == len)
        .collect();
    let best = fastest(&at_len).map(|best| {
        format!(
            ": at {} the fastest form hashes {} messages/s on one core ({})",
            format_size(len),
            si(best.messages_per_s),
            label_of(best)
        )
    });
    Some(format!(
        "short messages (under 4 KiB) are {} ({counted}){}.",
        bound(cell.bottleneck),
        best.unwrap_or_default()
    ))
}

/// The cold-file sentence: the best rate from a cold disk against the disk's roof, and what the
/// measured wait per read allows at that read size (rate ~ read size / latency), so that the
/// reader sees whether the wait per read or the disk's bandwidth holds it.
pub fn cold_files_sentence(best: &Measurement, disk: &Roof) -> String {
    let mut work = format_size(best.message_len);
    if best.messages > 1 {
        work.push_str(&format!(" x{}", best.messages));
    }
    if best.threads > 1 {
        work.push_str(&format!(" on {} threads", best.threads));
    }
    let mut sentence = format!(
        "cold files: best {} from disk ({work}), {:.0} % of the {} disk roof",
        format_rate(best.rate()),
        100.0 * best.rate() / disk.bandwidth,
        format_rate(disk.bandwidth)
    );
    let bytes = (best.message_len * best.messages) as f64;
    let read = bytes / best.reads_per_batch.max(1) as f64;
    if disk.latency <= 0.0 || read <= 0.0 {
        sentence.push('.');
        return sentence;
    }
    let per_reader = read / disk.latency;
    let waits = format!(
        "each cold read waits about {:.0} us (measured), and {} / {:.0} us = {} per reader",
        disk.latency * 1e6,
        format_size(read as usize),
        disk.latency * 1e6,
        format_rate(per_reader)
    );
    let readers = best.threads.min(best.messages).max(1) as f64;
    if best.rate() > 1.5 * readers * per_reader {
        // Faster than one wait per read: small reads share pages that read-ahead brought in.
        sentence.push_str(&format!(
            ": {waits}, yet more was measured: reads this small share pages, and read-ahead \
             serves most of them."
        ));
    } else if per_reader < disk.bandwidth {
        sentence.push_str(&format!(
            ": {waits}, so the wait per read, not the disk's bandwidth, holds it there (larger \
             reads, or more at once, would raise it)."
        ));
    } else {
        sentence.push_str(&format!(
            ": {waits}, over the disk's bandwidth, so the bandwidth is the limit at this read \
             size."
        ));
    }
    sentence
}

/// parhash against its peers, wins and losses alike: on the longest messages per algorithm,
/// then every comparison where it is behind the best peer, worst first ("sha1 at 64 B x0.73
/// (rustcrypto)"), a few named and the rest counted.
fn peers_sentence(report: &Report) -> Option<String> {
    let groups = comparisons_by_algorithm(report);
    let longest: Vec<&PeerComparison> = groups.iter().filter_map(|g| g.last()).collect();
    let all = report.peer_comparisons();
    if all.is_empty() {
        return None;
    }
    let is_behind = |c: &PeerComparison| c.best_peer().is_some_and(|(_, r)| r < LEVEL);
    let mut sentence = String::from("peers: ");
    if !longest.is_empty() {
        sentence.push_str(&format!(
            "on the longest messages parhash is at least as fast as the best peer (within 5 %) \
             for {} of {} algorithms; ",
            longest.iter().filter(|c| !is_behind(c)).count(),
            longest.len()
        ));
    }
    let mut behind: Vec<(&PeerComparison, &Measurement, f64)> = all
        .iter()
        .filter_map(|c| {
            let (peer, ratio) = c.best_peer()?;
            (ratio < LEVEL).then_some((c, peer, ratio))
        })
        .collect();
    behind.sort_by(|a, b| a.2.total_cmp(&b.2));
    if behind.is_empty() {
        sentence.push_str(&format!(
            "behind the best peer in none of the {} comparisons.",
            all.len()
        ));
        return Some(sentence);
    }
    let named: Vec<String> = behind
        .iter()
        .map(|(c, peer, ratio)| {
            format!(
                "{} at {} x{} ({})",
                c.algorithm(),
                work_text(c.parhash),
                crate::units::sig3(*ratio),
                peer.provider.name()
            )
        })
        .collect();
    sentence.push_str(&format!(
        "behind the best peer (by over 5 %) in {} of {} comparisons, worst first: {}.",
        behind.len(),
        all.len(),
        first_few(&named, "the peers table in report.txt and report.html")
    ));
    Some(sentence)
}

/// The threads sentence: how many multi-thread configurations did not scale, and the worst of
/// them, with a pointer to the short table of only those.
fn threads_sentence(report: &Report) -> Option<String> {
    let multi = multi_thread_count(report);
    let misses = report.not_scaling();
    if misses.is_empty() {
        return None;
    }
    let worst: Vec<String> = misses
        .iter()
        .take(3)
        .map(|m| {
            format!(
                "{} x{} ({})",
                label_of(m),
                crate::units::sig3(m.speedup_vs_1_thread.unwrap_or(1.0)),
                work_text(m)
            )
        })
        .collect();
    Some(format!(
        "threads: {} of {multi} multi-thread configurations did not scale (under half the ideal \
         gain); worst: {}; all, with why: 'threads that did not scale' in report.txt and \
         report.html.",
        misses.len(),
        worst.join(", ")
    ))
}

/// A few plain sentences: what limits long and short messages, what many messages at once
/// gain, files, and parhash against its peers: where it wins and where it loses. Only what the
/// run measured.
pub fn verdict(report: &Report) -> Vec<String> {
    let mut out = Vec::new();
    out.extend(one_message_sentence(report, true));
    out.extend(one_message_sentence(report, false));
    let one = |m: &Measurement| m.messages == 1 && m.threads == 1 && m.source == Source::Memory;
    let many = parhash_where(report, |m| m.messages > 1 && m.source == Source::Memory);
    if let Some(best) = fastest(&many) {
        let alone = parhash_where(report, |m| {
            one(m) && m.algorithm == best.algorithm && m.message_len == best.message_len
        });
        let gain = fastest(&alone)
            .map(|a| {
                format!(
                    ", x{} one message at a time",
                    crate::units::sig3(best.gb_per_s / a.gb_per_s)
                )
            })
            .unwrap_or_default();
        out.push(format!(
            "many messages at once: best {} ({}, {} x{} on {} thread(s){gain}).",
            format_rate(best.rate()),
            label_of(best),
            format_size(best.message_len),
            best.messages,
            best.threads
        ));
    }
    let disk = parhash_where(report, |m| m.source == Source::Disk);
    if let (Some(best), Some(r)) = (fastest(&disk), &report.roofs) {
        out.push(cold_files_sentence(best, &r.disk));
    }
    out.extend(peers_sentence(report));
    out.extend(threads_sentence(report));
    out
}

/// The bottleneck table's title; [`COUNTED`], on the line under it, says which configurations
/// its cells count.
pub const BOTTLENECK_TITLE: &str =
    "what limits hashing here: the most frequent bottleneck in each cell (count/total)";

/// Rows of the short table of configurations that did not scale, before it counts the rest.
pub const NOT_SCALING_ROWS: usize = 20;

/// "threads that did not scale (24 of 29 multi-thread configurations), worst first".
pub fn not_scaling_title(report: &Report) -> String {
    format!(
        "threads that did not scale ({} of {} multi-thread configurations), worst first",
        report.not_scaling().len(),
        multi_thread_count(report)
    )
}

/// How many configurations were measured against the same one on one thread.
fn multi_thread_count(report: &Report) -> usize {
    report
        .measurements
        .iter()
        .filter(|m| m.speedup_vs_1_thread.is_some())
        .count()
}

/// The title of [`Report::speedup_table`].
pub fn speedup_title(report: &Report) -> String {
    let counts = report.speedup_thread_counts();
    format!(
        "speed-up against 1 thread, per form, on {} threads (thread counts measured: {})",
        counts.last().copied().unwrap_or(1),
        counts
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// Wraps `text` at `width` columns, later lines indented by `indent` spaces.
fn wrap(text: &str, width: usize, indent: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let limit = if lines.is_empty() {
            width
        } else {
            width - indent
        };
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > limit {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l
            } else {
                format!("{}{l}", " ".repeat(indent))
            }
        })
        .collect()
}

/// The verdict as wrapped bullet lines.
pub fn verdict_text(report: &Report) -> String {
    let mut out = String::new();
    for sentence in verdict(report) {
        for line in wrap(&format!("- {sentence}"), 100, 2) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// The short terminal view (see the module docs).
pub fn summary_text(report: &Report) -> String {
    let mut out = String::new();
    out.push_str(&format!("== {}\n", report.title));
    // The clock in a word: a CPU name and its features can fill most of a screen's width
    // (the long view explains the ticks).
    let clock = match report.machine.tsc_hz {
        Some(hz) => format!("TSC {:.3} GHz", hz / 1e9),
        None => "no TSC".to_string(),
    };
    out.push_str(&format!(
        "machine: {}; {clock}\n",
        report.machine.cpu_summary()
    ));
    for l in roofs_lines(report) {
        out.push_str(&l);
        out.push('\n');
    }
    out.push('\n');
    if let Some(t) = bottleneck_table(report) {
        out.push_str(&format!("-- {BOTTLENECK_TITLE}\n{COUNTED}\n"));
        out.push_str(&t.to_text());
        out.push('\n');
    }
    if let Some(t) = headline_peers_table(report) {
        out.push_str(
            "-- parhash against the best peer, same algorithm, one message, 1 thread \
             (x above 1: parhash faster)\n",
        );
        out.push_str(&t.to_text());
        for line in headline_note(report).iter().flat_map(|n| wrap(n, 100, 0)) {
            out.push_str(&line);
            out.push('\n');
        }
        out.push('\n');
    }
    let verdict = verdict_text(report);
    if !verdict.is_empty() {
        out.push_str("-- verdict\n");
        out.push_str(&verdict);
        out.push('\n');
    }
    for s in &report.sections {
        out.push_str(&format!("-- {}\n", s.title));
        for p in &s.paragraphs {
            out.push_str(p);
            out.push('\n');
        }
        if let Some(t) = &s.table {
            out.push_str(&t.to_text());
        }
        out.push('\n');
    }
    let hidden = report.measurements.len();
    if hidden > 0 || !report.notes.is_empty() {
        let text = format!(
            "{hidden} measurements and {} notes are in the report files (results.csv, \
             report.json, report.txt, report.html); --verbose prints them here.",
            report.notes.len()
        );
        for line in wrap(&text, 100, 0) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// Every term of [`TERMS`] as `name: meaning` lines.
pub fn terms_text() -> String {
    let mut out = String::new();
    for (term, meaning) in TERMS {
        for line in wrap(&format!("{term}: {meaning}"), 100, 4) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

fn section(out: &mut String, title: &str, body: &str) {
    if !body.is_empty() {
        out.push_str(&format!("-- {title}\n{body}\n"));
    }
}

/// The long view: everything the report holds (`--verbose`, `report.txt`).
pub fn full_text(report: &Report) -> String {
    let mut out = String::new();
    out.push_str(&format!("== {}\n", report.title));
    out.push_str(&format!("machine: {}\n", report.machine.summary()));
    out.push_str(&format!("command: {}\n\n", report.command));
    if let Some(t) = report.roofs_table() {
        let mut body = t.to_text();
        for n in &report.roofs.as_ref().expect("roofs").notes {
            body.push_str(&format!("note: {n}\n"));
        }
        section(&mut out, "roofs (measured in this run)", &body);
    }
    if let Some(t) = bottleneck_table(report) {
        section(
            &mut out,
            BOTTLENECK_TITLE,
            &format!("{COUNTED}\n{}", t.to_text()),
        );
    }
    section(&mut out, "verdict", &verdict_text(report));
    if let Some(t) = report.peers_table() {
        section(
            &mut out,
            "peers, like with like: each against parhash's fastest form on the same work \
             (x above 1: parhash faster)",
            &format!(
                "{}{}",
                t.to_text(),
                report
                    .paired_note()
                    .map(|n| wrap(&n, 100, 0).join("\n") + "\n")
                    .unwrap_or_default()
            ),
        );
    }
    if let Some(t) = report.speedup_table() {
        section(&mut out, &speedup_title(report), &t.to_text());
    }
    if let Some(t) = report.not_scaling_table(NOT_SCALING_ROWS) {
        let mut body = t.to_text();
        for (i, n) in report.scaling_footnotes().iter().enumerate() {
            for line in wrap(&format!("[{}] {n}", i + 1), 100, 4) {
                body.push_str(&line);
                body.push('\n');
            }
        }
        section(&mut out, &not_scaling_title(report), &body);
    }
    if !report.measurements.is_empty() {
        section(
            &mut out,
            "measurements (median of samples; x1thr: speed-up vs 1 thread, [n]: why it did not \
             scale, listed under 'threads that did not scale'; xbase: vs --baseline)",
            &report.measurements_table().to_text(),
        );
    }
    if let Some(t) = report.forms_table() {
        section(&mut out, "parhash's forms measured", &t.to_text());
    }
    for s in &report.sections {
        let mut body = String::new();
        for p in &s.paragraphs {
            body.push_str(p);
            body.push('\n');
        }
        if let Some(t) = &s.table {
            body.push_str(&t.to_text());
        }
        section(&mut out, &s.title, &body);
    }
    section(&mut out, "terms", &terms_text());
    for n in &report.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_at_width_with_indent() {
        let lines = wrap("- one two three four five six", 12, 2);
        assert_eq!(lines, ["- one two", "  three four", "  five six"]);
        assert!(lines.iter().all(|l| l.chars().count() <= 12));
    }
}
