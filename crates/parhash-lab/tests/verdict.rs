//! The verdict and the report around it on made-up measurements (the lab says where parhash
//! loses, not only where it wins): the losses to peers are named like the wins, the
//! verdict counts the cells the bottleneck table counts, the threads sentence names the worst
//! configurations, the cold-file sentence names the wait per read, the speed-up plot needs three
//! thread counts, and PARSHA-256's chart shows the SHA-256 lines it promises.

use parhash_lab::classify::{self, Bottleneck, Classified, Roof};
use parhash_lab::engine::Provider;
use parhash_lab::measure::Measurement;
use parhash_lab::report::Machine;
use parhash_lab::roofs::Roofs;
use parhash_lab::source::Source;
use parhash_lab::{html, plots, summary, Report};

const GB: f64 = 1e9;

/// A measurement of `label` (`provider algorithm/variant`) on `messages` messages of `len`
/// bytes from `source` on `threads` threads, at `gb_per_s`.
fn measured(
    label: &str,
    len: usize,
    messages: usize,
    source: Source,
    threads: usize,
    gb_per_s: f64,
) -> Measurement {
    Measurement {
        gb_per_s,
        ..Measurement::made_up(label, len, messages, source, threads, 1.0 / gb_per_s)
    }
}

/// One message from memory on one thread.
fn single(label: &str, len: usize, gb_per_s: f64) -> Measurement {
    measured(label, len, 1, Source::Memory, 1, gb_per_s)
}

/// A report of `measurements` on a 2-thread machine with a 3.31 GB/s disk that waits 49 us per
/// read; the bottleneck table is summarized from parhash's rows as the lab does.
fn report_of(measurements: Vec<Measurement>) -> Report {
    let machine = Machine {
        cpu: "test CPU".into(),
        features: "none".into(),
        threads: 2,
        tsc_hz: None,
        os: "linux".into(),
    };
    let mut report = Report::new("test", "parhash bench", machine);
    report.roofs = Some(Roofs {
        memory_1t: 10.0 * GB,
        memory_nt: 15.0 * GB,
        threads: 2,
        memory_bytes: 256 << 20,
        page_cache: Roof {
            bandwidth: 8.0 * GB,
            latency: 2e-6,
        },
        disk: Roof {
            bandwidth: 3.31 * GB,
            latency: 49e-6,
        },
        file_bytes: 64 << 20,
        transfer: None,
        notes: Vec::new(),
    });
    let classified: Vec<Classified> = measurements
        .iter()
        .filter(|m| m.provider == Provider::Parhash)
        .filter_map(|m| {
            Some(Classified {
                messages: m.messages,
                message_len: m.message_len,
                source: m.source,
                accelerator: false,
                bottleneck: m.bottleneck?,
            })
        })
        .collect();
    report.summary = Some(classify::summarize(&classified, false));
    report.measurements = measurements;
    report
}

fn verdict_line(report: &Report, starts: &str) -> String {
    let verdict = summary::verdict(report);
    verdict
        .iter()
        .find(|s| s.starts_with(starts))
        .unwrap_or_else(|| panic!("no verdict sentence starting {starts:?} in {verdict:#?}"))
        .clone()
}

#[test]
fn verdict_names_the_losses_to_peers_worst_first() {
    let report = report_of(vec![
        // parhash at 1 GB/s against peers at 1/ratio GB/s: ratio = how many times faster.
        single("parhash sha1/sha-ni", 64, 1.0),
        single("rustcrypto sha1/sha1", 64, 1.0 / 0.73),
        single("openssl sha1/OpenSSL 3", 64, 1.0 / 1.2),
        single("parhash blake3/blake3-crate", 64, 1.0),
        single("blake3 blake3/blake3 (1 thread)", 64, 1.0 / 0.75),
        single("parhash sha256/sha-ni", 64, 1.0),
        single("rustcrypto sha256/sha2", 64, 1.0 / 0.88),
        single("parhash sha256/sha-ni", 4096, 1.0),
        single("rustcrypto sha256/sha2", 4096, 1.0 / 1.02),
        single("parhash md5/scheduled", 64, 1.0),
        single("openssl md5/OpenSSL 3", 64, 1.0 / 0.9),
        single("parhash md5/scheduled", 4096, 1.0),
        single("openssl md5/OpenSSL 3", 4096, 1.0 / 0.93),
        single("parhash skein512-256/parallel", 64, 1.0),
        single("rustcrypto skein512-256/skein", 64, 1.0 / 6.0),
    ]);
    let peers = verdict_line(&report, "peers:");
    assert!(
        peers.contains("behind the best peer (by over 5 %) in 5 of 7 comparisons, worst first:"),
        "{peers}"
    );
    let named = [
        "sha1 at 64 B x0.730 (rustcrypto)",
        "blake3 at 64 B x0.750 (blake3)",
        "sha256 at 64 B x0.880 (rustcrypto)",
        "md5 at 64 B x0.900 (openssl)",
    ];
    let at: Vec<usize> = named
        .iter()
        .map(|n| {
            peers
                .find(n)
                .unwrap_or_else(|| panic!("{n} not in: {peers}"))
        })
        .collect();
    assert!(
        at.windows(2).all(|w| w[0] < w[1]),
        "not worst first: {peers}"
    );
    // A few named, the rest counted.
    assert!(peers.contains("and 1 more"), "{peers}");
    assert!(!peers.contains("md5 at 4 KiB"), "{peers}");
    // The wins on the longest messages are still said: sha256 (4 KiB) and skein512-256.
    assert!(peers.contains("for 2 of 5 algorithms"), "{peers}");
    // In the report files too (report.txt wraps its lines).
    let full = summary::full_text(&report);
    let unwrapped = full.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        unwrapped.contains("sha1 at 64 B x0.730 (rustcrypto)"),
        "{full}"
    );
    assert!(html::render(&report, &[], &[]).contains("sha1 at 64 B x0.730 (rustcrypto)"));
}

#[test]
fn verdict_counts_the_cells_the_bottleneck_table_counts() {
    let with = |mut m: Measurement, b: Bottleneck| {
        m.bottleneck = Some(b);
        m
    };
    let report = report_of(vec![
        with(
            single("parhash md5/scheduled", 64, 0.5),
            Bottleneck::PerMessageOverhead,
        ),
        // Page-cache reads and more threads count in the table's "one message, memory" row.
        with(
            measured("parhash md5/scheduled", 64, 1, Source::PageCache, 1, 0.4),
            Bottleneck::PerMessageOverhead,
        ),
        with(
            measured(
                "parhash sandstorm256/threads",
                64,
                1,
                Source::Memory,
                2,
                0.2,
            ),
            Bottleneck::Compute,
        ),
        with(
            single("parhash md5/scheduled", 4096, 0.8),
            Bottleneck::Compute,
        ),
        with(
            measured("parhash md5/scheduled", 4096, 1, Source::PageCache, 1, 0.7),
            Bottleneck::Compute,
        ),
        with(
            measured(
                "parhash sandstorm256/threads",
                4096,
                1,
                Source::Memory,
                2,
                1.5,
            ),
            Bottleneck::Memory,
        ),
    ]);
    let table = summary::bottleneck_table(&report).expect("a bottleneck table");
    let row = table
        .rows
        .iter()
        .find(|r| r[0] == "one message, memory")
        .expect("the one-message memory row");
    assert_eq!(row[1], "per-message overhead (2/3)");
    assert_eq!(row[2], "compute (2/3)");
    let long = verdict_line(&report, "long messages");
    assert!(long.contains("compute-bound (2 of 3,"), "{long}");
    let short = verdict_line(&report, "short messages");
    assert!(
        short.contains("dominated by per-message overhead (2 of 3,"),
        "{short}"
    );
    // The table says which configurations its cells count.
    let text = summary::summary_text(&report);
    assert!(
        text.contains("memory rows count page-cache reads too"),
        "{text}"
    );
}

#[test]
fn threads_sentence_names_the_worst_and_points_to_a_short_table() {
    let mut ms = Vec::new();
    for (algorithm, speedup) in [
        ("sha1/sha-ni", 0.5),
        ("md5/batch", 0.6),
        ("sha256/sha-ni", 0.9),
        ("blake3/blake3-crate", 1.1),
        ("jh256/parallel", 1.2),
        ("whirlpool/fused-asm", 1.9),
    ] {
        let label = format!("parhash {algorithm}");
        ms.push(measured(&label, 64, 64, Source::Memory, 1, 0.1));
        let mut two = measured(&label, 64, 64, Source::Memory, 2, 0.1 * speedup);
        two.speedup_vs_1_thread = Some(speedup);
        if speedup < 1.5 {
            two.scaling_note = Some("too little work to share".into());
        }
        ms.push(two);
    }
    let report = report_of(ms);
    let threads = verdict_line(&report, "threads:");
    assert!(
        threads.contains("5 of 6 multi-thread configurations did not scale"),
        "{threads}"
    );
    for worst in [
        "sha1/sha-ni x0.500 (64 B x64, 2 threads)",
        "md5/batch x0.600 (64 B x64, 2 threads)",
        "sha256/sha-ni x0.900 (64 B x64, 2 threads)",
    ] {
        assert!(threads.contains(worst), "{worst} not in: {threads}");
    }
    assert!(!threads.contains("jh256"), "three named: {threads}");
    assert!(threads.contains("threads that did not scale"), "{threads}");
    // That table lists only those that did not scale, worst first.
    let full = summary::full_text(&report);
    let start = full
        .find("-- threads that did not scale (5 of 6 multi-thread configurations)")
        .unwrap_or_else(|| panic!("no short table in:\n{full}"));
    let section = &full[start..full[start..].find("\n\n").map_or(full.len(), |e| start + e)];
    assert!(!section.contains("whirlpool"), "{section}");
    let sha1 = section.find("sha1/sha-ni").expect("sha1 listed");
    let jh = section.find("jh256/parallel").expect("jh256 listed");
    assert!(sha1 < jh, "{section}");
    assert!(
        section.contains("[1] too little work to share"),
        "{section}"
    );
    let page = html::render(&report, &[], &[]);
    assert!(page.contains("id=\"not-scaling\""), "html lacks the table");
}

#[test]
fn cold_file_sentence_names_the_wait_per_read_that_holds_it() {
    let mut cold = measured("parhash md5/batch", 64 << 10, 16, Source::Disk, 2, 1.24);
    cold.bottleneck = Some(Bottleneck::Disk);
    let report = report_of(vec![cold]);
    let line = verdict_line(&report, "cold files:");
    for wanted in [
        "best 1.24 GB/s from disk (64 KiB x16 on 2 threads)",
        "3.31 GB/s disk roof",
        "49 us",
        "64 KiB / 49 us = 1.34 GB/s per reader",
        "not the disk's bandwidth",
    ] {
        assert!(line.contains(wanted), "{wanted:?} not in: {line}");
    }
    // At 1 MiB per read the wait costs little: the bandwidth is the limit.
    let mut big = measured("parhash md5/batch", 1 << 20, 16, Source::Disk, 2, 3.0);
    big.bottleneck = Some(Bottleneck::Disk);
    let line = verdict_line(&report_of(vec![big]), "cold files:");
    assert!(line.contains("the bandwidth is the limit"), "{line}");
}

#[test]
fn speed_up_plot_needs_three_thread_counts_else_a_table() {
    let at = |threads: usize, speedup: f64| {
        let mut m = measured(
            "parhash sha1/batch",
            4096,
            64,
            Source::Memory,
            threads,
            speedup,
        );
        if threads > 1 {
            m.speedup_vs_1_thread = Some(speedup);
        }
        m
    };
    let two = report_of(vec![at(1, 1.0), at(2, 1.9)]);
    let names: Vec<String> = plots::charts(&two).into_iter().map(|c| c.name).collect();
    assert!(
        !names.iter().any(|n| n == "speedup-vs-threads"),
        "a plot of two points per line: {names:?}"
    );
    let page = html::render(&two, &[], &[]);
    assert!(
        page.contains("Speed-up against 1 thread, per form, on 2 threads"),
        "no speed-up table in the page"
    );
    assert!(summary::full_text(&two).contains("speed-up against 1 thread, per form"));
    // More cores: the plot is drawn.
    let four = report_of(vec![at(1, 1.0), at(2, 1.9), at(4, 3.5)]);
    let names: Vec<String> = plots::charts(&four).into_iter().map(|c| c.name).collect();
    assert!(names.iter().any(|n| n == "speedup-vs-threads"), "{names:?}");
}

#[test]
fn parsha256_chart_shows_sha256_as_its_peer_and_peerless_charts_promise_none() {
    let mut ms = Vec::new();
    for len in [64, 4096] {
        ms.push(single("parhash parsha256/parallel", len, 0.2));
        ms.push(single("parhash sha256/sha-ni", len, 1.0));
        ms.push(single("openssl sha256/OpenSSL 3", len, 0.9));
        ms.push(single("parhash blake256/parallel", len, 0.5));
    }
    let charts = plots::charts(&report_of(ms));
    let parsha = charts
        .iter()
        .find(|c| c.name == "algorithm-parsha256")
        .expect("PARSHA-256's chart");
    let peers: Vec<&str> = parsha
        .series
        .iter()
        .filter(|s| s.peer)
        .map(|s| s.name.as_str())
        .collect();
    assert!(
        peers
            .iter()
            .any(|n| n.starts_with("sha256") && n.contains("openssl")),
        "{peers:?}"
    );
    assert!(
        peers
            .iter()
            .any(|n| n.starts_with("sha256") && n.contains("parhash")),
        "{peers:?}"
    );
    assert!(parsha.title.contains("sha256"), "{}", parsha.title);
    let blake = charts
        .iter()
        .find(|c| c.name == "algorithm-blake256")
        .expect("BLAKE-256's chart");
    assert!(blake.series.iter().all(|s| !s.peer));
    assert!(!blake.title.contains("its peers"), "{}", blake.title);
}
