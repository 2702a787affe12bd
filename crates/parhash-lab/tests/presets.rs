//! Every preset runs in tiny mode (seconds) and writes a well-formed report; presets whose
//! algorithms are not built say so instead of failing.

mod common;

use parhash_lab::{output, presets, LabOptions};

#[test]
fn every_preset_runs_tiny() {
    for preset in presets::ALL {
        let mut opts = LabOptions::new();
        opts.tiny = true;
        opts.progress = false;
        opts.budget = std::time::Duration::from_secs(2);
        opts.out_dir = std::env::temp_dir().join(format!(
            "parhash-lab-preset-{}-{}",
            preset.name,
            std::process::id()
        ));
        let report = (preset.run)(&opts).unwrap_or_else(|e| panic!("{}: {e}", preset.name));
        assert!(
            !report.measurements.is_empty()
                || !report.sections.is_empty()
                || report.notes.iter().any(|n| n.contains("not built")),
            "{} produced nothing and said nothing",
            preset.name
        );
        output::write_all(&report, &opts.out_dir).unwrap();
        let html = std::fs::read_to_string(opts.out_dir.join("report.html")).unwrap();
        common::check_html(&html);
        let json = output::read_json(&opts.out_dir.join("report.json")).unwrap();
        assert_eq!(json.measurements.len(), report.measurements.len());
        let _ = std::fs::remove_dir_all(&opts.out_dir);
    }
}
