//! The quick tour's terminal views on a real (tiny) run: the summary fits on one screen and holds
//! the roofs, the bottleneck table, the peers and the verdict; the long view holds every row;
//! the peers are compared like with like.

use std::sync::OnceLock;

use parhash_lab::compare::paired_against_best_peer;
use parhash_lab::{engine::Provider, presets, summary, LabOptions, Report};

/// One tiny tour shared by the tests of this file (they would share its scratch folder).
fn tiny_tour() -> &'static Report {
    static TOUR: OnceLock<Report> = OnceLock::new();
    TOUR.get_or_init(|| {
        let mut opts = LabOptions::new();
        opts.tiny = true;
        opts.progress = false;
        opts.budget = std::time::Duration::from_secs(3);
        opts.out_dir =
            std::env::temp_dir().join(format!("parhash-lab-summary-{}", std::process::id()));
        let tour = presets::find("tour").expect("the tour preset");
        let report = (tour.run)(&opts).expect("the tour runs");
        let _ = std::fs::remove_dir_all(&opts.out_dir);
        report
    })
}

#[test]
fn tour_summary_fits_a_screen_and_the_long_view_holds_every_row() {
    let report = tiny_tour();
    assert!(report.measurements.len() > 60, "a tour measures many rows");
    let text = summary::summary_text(report);
    let lines = text.lines().count();
    // A full-height terminal: the verdict names the losses and the threads that did not scale
    // too.
    assert!(lines <= 55, "{lines} lines:\n{text}");
    for wanted in [
        "roofs: memory",
        "what limits hashing here",
        "one message, memory",
        "many messages, disk",
        "parhash against the best peer",
        "sha256",
        "-- verdict",
        "long messages (4 KiB and up) are",
        "short messages (under 4 KiB) are",
        "--verbose prints them",
    ] {
        assert!(text.contains(wanted), "summary lacks {wanted:?}:\n{text}");
    }
    // No measurement row, and no word a newcomer cannot know.
    assert!(!text.contains("ns/B"), "{text}");
    for jargon in ["SMH", "MMH", "seed study"] {
        assert!(!text.contains(jargon), "{jargon} in:\n{text}");
    }
    assert!(text.lines().all(|l| l.chars().count() <= 130), "{text}");
    // The verdict counts the cells the table counts, so that the two say the same.
    let table = summary::bottleneck_table(report).expect("a bottleneck table");
    let row = table
        .rows
        .iter()
        .find(|r| r[0] == "one message, memory")
        .expect("the one-message memory row");
    let verdict = summary::verdict(report);
    for (cell, starts) in [(&row[1], "short messages"), (&row[2], "long messages")] {
        let count = cell
            .rsplit_once('(')
            .map(|(_, c)| c.trim_end_matches(')').replace('/', " of "))
            .unwrap_or_else(|| panic!("no count in {cell:?}"));
        let sentence = verdict
            .iter()
            .find(|s| s.starts_with(starts))
            .unwrap_or_else(|| panic!("no {starts:?} sentence in {verdict:#?}"));
        assert!(
            sentence.contains(&format!("({count},")),
            "table {cell:?}, verdict: {sentence}"
        );
    }

    let full = summary::full_text(report);
    for m in &report.measurements {
        assert!(full.contains(&m.label()), "{} missing", m.label());
    }
    assert!(full.lines().count() > report.measurements.len());
    for (term, _) in summary::TERMS {
        assert!(full.contains(term), "term {term} not defined");
    }
    // Every non-scaling cell carries a footnote, and every footnote is listed.
    let notes = report.scaling_footnotes();
    for (i, note) in notes.iter().enumerate() {
        assert!(
            full.contains(&format!("[{}] {}", i + 1, &note[..20])),
            "{note}"
        );
    }
}

#[test]
fn tour_peers_meet_parhash_s_fastest_form_on_the_same_work() {
    let report = tiny_tour();
    let comparisons = report.peer_comparisons();
    assert!(!comparisons.is_empty());
    for c in &comparisons {
        for p in &c.peers {
            assert_eq!(
                (
                    p.algorithm.as_str(),
                    p.message_len,
                    p.messages,
                    p.threads,
                    p.source
                ),
                (
                    c.parhash.algorithm.as_str(),
                    c.parhash.message_len,
                    c.parhash.messages,
                    c.parhash.threads,
                    c.parhash.source
                )
            );
        }
        let same_work = |m: &&parhash_lab::measure::Measurement| {
            m.provider == Provider::Parhash
                && m.algorithm == c.parhash.algorithm
                && m.message_len == c.parhash.message_len
                && m.messages == c.parhash.messages
                && m.threads == c.parhash.threads
                && m.source == c.parhash.source
        };
        // A form's paired ratio against the best peer, where it was paired with every peer.
        let against_best_peer = |form: &parhash_lab::measure::Measurement| {
            paired_against_best_peer(form, &c.peers, &report.paired)
        };
        match against_best_peer(c.parhash) {
            // Forms a few per cent apart trade places between sweeps, so where forms were
            // paired the one shown is the best against the peers, whatever the sweep said.
            Some(shown) => {
                for m in report.measurements.iter().filter(same_work) {
                    if let Some(ratio) = against_best_peer(m) {
                        assert!(
                            ratio <= shown,
                            "{} paired better than {}",
                            m.label(),
                            c.parhash.label()
                        );
                    }
                }
            }
            // Otherwise no parhash form measured on the same work was faster.
            None => {
                let faster = report
                    .measurements
                    .iter()
                    .filter(same_work)
                    .any(|m| m.ns_per_byte < c.parhash.ns_per_byte);
                assert!(!faster, "{} is not the fastest form", c.parhash.label());
            }
        }
    }
    // The tour's sha256 on one 64 B message is not represented by the batch engine.
    let sha = comparisons
        .iter()
        .find(|c| c.algorithm() == "sha256" && c.message_len() == 64)
        .expect("sha256 at 64 B against its peers");
    assert_ne!(sha.parhash.variant, "batch");
}

#[test]
fn tour_pairs_its_peers_from_memory_and_the_tables_say_so() {
    let report = tiny_tour();
    assert!(!report.paired.is_empty(), "the tour pairs its peers");
    for p in &report.paired {
        assert_eq!(
            (p.source, p.threads),
            (parhash_lab::source::Source::Memory, 1)
        );
        assert_eq!(p.ratio.rounds, parhash_lab::paired::PairPlan::TINY_ROUNDS);
        assert!(p.ratio.min <= p.ratio.median && p.ratio.median <= p.ratio.max);
    }
    // Each pairs the form the peers table names, and the table shows its range.
    let comparisons = report.peer_comparisons();
    let paired: Vec<_> = comparisons
        .iter()
        .filter(|c| !c.paired.is_empty())
        .collect();
    assert!(!paired.is_empty());
    for c in &paired {
        for p in &c.paired {
            assert_eq!(p.parhash_variant, c.parhash.variant);
        }
    }
    let table = report.peers_table().expect("a peers table");
    assert!(
        table
            .rows
            .iter()
            .any(|r| r.iter().skip(4).any(|c| c.contains('('))),
        "{}",
        table.to_text()
    );
    let full = summary::full_text(report);
    assert!(full.contains("are paired"), "{full}");
    assert!(full.contains("paired pass:"), "{full}");
}
