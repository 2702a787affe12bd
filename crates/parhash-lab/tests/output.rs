//! A tiny sweep end to end: the files are written, and CSV and JSON read back to the same
//! measurements.

mod common;

use parhash::Algorithm;
use parhash_lab::{output, run_sweep, source::Source, sweep::SweepSpec, LabOptions};

fn tiny_opts(name: &str) -> LabOptions {
    let mut opts = LabOptions::new();
    opts.tiny = true;
    opts.progress = false;
    opts.budget = std::time::Duration::from_secs(2);
    opts.out_dir = std::env::temp_dir().join(format!("parhash-lab-{name}-{}", std::process::id()));
    opts
}

#[test]
fn tiny_sweep_writes_parseable_files() {
    let opts = tiny_opts("output");
    let mut spec = SweepSpec::new(vec![Algorithm::Md5]);
    spec.lengths = vec![8, 4096];
    spec.multiplicities = vec![1, 4];
    spec.sources = vec![Source::Memory, Source::Disk];
    spec.threads = vec![1, 2];
    let report = run_sweep("test", &spec, &opts).unwrap();
    assert!(!report.measurements.is_empty());
    assert!(report.measurements.iter().all(|m| m.bottleneck.is_some()));
    assert!(report.summary.is_some());
    assert!(report
        .measurements
        .iter()
        .any(|m| m.threads == 2 && m.speedup_vs_1_thread.is_some()));
    // Multi-message configurations ran through the batch engine too (MD5 has lanes).
    assert!(report
        .measurements
        .iter()
        .any(|m| m.variant == "batch" && m.messages == 4));
    // Peers and the anchor were measured in the same run, and their ratios tabled.
    let peers = report.peers_table().expect("peers table");
    assert!(peers
        .rows
        .iter()
        .any(|r| r.iter().skip(4).any(|c| c != "-")));
    // The TSC frequency is reported where there is one, with cycles per byte.
    if report.machine.tsc_hz.is_some() {
        assert!(report.machine.summary().contains("GHz"));
        assert!(report
            .measurements
            .iter()
            .all(|m| m.cycles_per_byte.is_some()));
    }

    let files = output::write_all(&report, &opts.out_dir).unwrap();
    for f in &files {
        assert!(std::fs::metadata(f).unwrap().len() > 0, "{}", f.display());
    }
    let csv = output::read_csv(&opts.out_dir.join("results.csv")).unwrap();
    assert_eq!(csv.len(), report.measurements.len());
    for (a, b) in csv.iter().zip(&report.measurements) {
        assert_eq!(a.config(), b.config());
        assert_eq!(a.bottleneck, b.bottleneck);
        assert!((a.ns_per_byte - b.ns_per_byte).abs() <= 1e-9 * b.ns_per_byte.abs().max(1.0));
    }
    let json = output::read_json(&opts.out_dir.join("report.json")).unwrap();
    assert_eq!(json.measurements.len(), report.measurements.len());
    assert_eq!(json.summary, report.summary);
    // The HTML report is well-formed, self-contained, and holds the tables and plots.
    let html = std::fs::read_to_string(opts.out_dir.join("report.html")).unwrap();
    let (tables, svgs) = common::check_html(&html);
    assert!(tables >= 3, "{tables} tables");
    if parhash_lab::plots::font().is_ok() {
        let plots: Vec<_> = std::fs::read_dir(opts.out_dir.join("plots"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        let svg_files = plots
            .iter()
            .filter(|p| p.extension().unwrap() == "svg")
            .count();
        let png_files = plots
            .iter()
            .filter(|p| p.extension().unwrap() == "png")
            .count();
        // Every chart as SVG and PNG files, inline as SVG and as a PNG data URI in the page.
        assert!(svg_files >= 3, "{plots:?}");
        assert_eq!(svg_files, png_files);
        assert_eq!(svgs, svg_files);
        assert_eq!(html.matches("data:image/png;base64,").count(), png_files);
        // Threads 1 and 2 make no speed-up plot (two points a line): a table stands in.
        assert!(!opts.out_dir.join("plots/speedup-vs-threads.svg").exists());
        assert!(html.contains("Speed-up against 1 thread, per form, on 2 threads"));
        for name in [
            "algorithm-md5",
            "parhash-vs-best-peer",
            "throughput-vs-messages",
        ] {
            assert!(
                opts.out_dir.join(format!("plots/{name}.svg")).exists(),
                "{name}"
            );
            let png = std::fs::read(opts.out_dir.join(format!("plots/{name}.png"))).unwrap();
            assert_eq!(&png[1..4], b"PNG");
        }
        // md5's chart holds parhash's forms and both peers on the same axes, with the memory
        // roof drawn as a line (a legend entry), its lengths written as sizes.
        let svg = std::fs::read_to_string(opts.out_dir.join("plots/algorithm-md5.svg")).unwrap();
        // (parhash's forms are named by variant, which depends on the CPU: `parhash scheduled`,
        // `parhash sequential`, ...)
        for entry in [
            "memory roof",
            "parhash ",
            "openssl",
            "rustcrypto md-5",
            "4 KiB",
        ] {
            assert!(svg.contains(entry), "{entry} missing from md5's chart");
        }
    }
    let _ = std::fs::remove_dir_all(&opts.out_dir);
}
