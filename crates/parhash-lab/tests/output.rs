//! A tiny sweep end to end: the files are written, and CSV and JSON read back to the same
//! measurements.

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
    // The HTML report is well-formed (an XML parser accepts it) and holds the tables.
    let html = std::fs::read_to_string(opts.out_dir.join("report.html")).unwrap();
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&html, options)
        .expect("report.html is well-formed");
    let tables = doc
        .descendants()
        .filter(|n| n.has_tag_name("table"))
        .count();
    assert!(tables >= 3, "{tables} tables");
    if parhash_lab::plots::font().is_ok() {
        assert!(doc.descendants().any(|n| n.has_tag_name("svg")));
        assert!(html.contains("data:image/png;base64,"));
        assert!(opts.out_dir.join("plots/ns-per-byte-1.png").exists());
    }
    let _ = std::fs::remove_dir_all(&opts.out_dir);
}
