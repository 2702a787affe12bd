//! Every preset runs in tiny mode (seconds) and writes a well-formed report; presets whose
//! algorithms are not built say so instead of failing.

mod common;

use parhash_lab::{output, presets, LabOptions};

/// Tiny mode (seconds), no progress bar.
fn tiny_options() -> LabOptions {
    let mut opts = LabOptions::new();
    opts.tiny = true;
    opts.progress = false;
    opts.budget = std::time::Duration::from_secs(2);
    opts
}

#[test]
fn every_preset_runs_tiny() {
    for preset in presets::ALL {
        let mut opts = tiny_options();
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

/// The end-to-end preset: a row per algorithm with every timing filled (the digests of file
/// and memory agree, or the preset fails), and the reading limits.
#[test]
fn end_to_end_preset_times_each_algorithm_from_file_and_memory() {
    let mut opts = tiny_options();
    opts.out_dir = std::env::temp_dir().join(format!("parhash-lab-e2e-{}", std::process::id()));
    let report = (presets::find("end-to-end").unwrap().run)(&opts).unwrap();
    let files = &report.sections[0];
    let table = files.table.as_ref().unwrap();
    let names: Vec<(&str, &str)> = table
        .rows
        .iter()
        .map(|row| (row[0].as_str(), row[2].as_str()))
        .collect();
    // Every algorithm twice: the file as its writer left it in the page cache, then read back.
    let algorithms = ["blake3", "sandstorm256", "parsha256", "sha256"];
    let expected: Vec<(&str, &str)> = ["its writer", "a read"]
        .iter()
        .flat_map(|&cached| algorithms.iter().map(move |&alg| (alg, cached)))
        .collect();
    assert_eq!(names, expected);
    for row in &table.rows {
        // Timings (all threads, one, speed-up, the one-thread run's cores busy, the speed-up
        // limit, memory, memory / file) are numbers.
        for cell in &row[3..10] {
            assert!(cell.parse::<f64>().is_ok_and(|x| x > 0.0), "{row:?}");
        }
        // The limit is the machine's threads over the cores the one-thread run kept busy, at
        // most the threads (both cells rounded to three figures).
        let threads = report.machine.threads.max(1) as f64;
        let cores_busy: f64 = row[6].parse().unwrap();
        let limit: f64 = row[7].parse().unwrap();
        let expected = (threads / cores_busy).min(threads);
        assert!((limit - expected).abs() <= 0.01 * expected, "{row:?}");
    }
    assert!(report.roofs.is_some());
    let limits = report.sections[1].table.as_ref().unwrap();
    let cached: Vec<&str> = limits.rows.iter().map(|row| row[1].as_str()).collect();
    assert_eq!(cached, ["its writer", "a read"]);
    let _ = std::fs::remove_dir_all(&opts.out_dir);
}

/// The batch preset in tiny mode: every path of the full run on small data (windows past the
/// memory cap, OpenSSL's cut-off, every kernel), its tables and one chart per algorithm.
#[test]
fn batch_preset_measures_multiplicity_kernels_and_layouts() {
    let preset = presets::find("batch").expect("batch preset registered");
    let opts = tiny_options();
    let report = (preset.run)(&opts).unwrap();
    let algorithms = ["sha256", "sha1", "md5", "sha512", "sha3-256", "keccak256"];
    for alg in algorithms {
        let batch = |messages: usize| {
            report
                .measurements
                .iter()
                .any(|m| m.algorithm == alg && m.variant == "batch" && m.messages == messages)
        };
        // 100 x 4 KiB is over the tiny cap of 64 KiB: measured from windows, not skipped.
        assert!(batch(1) && batch(10) && batch(100), "{alg}");
        assert!(report
            .measurements
            .iter()
            .any(|m| m.algorithm == alg && m.variant == "batch-portable"));
    }
    assert!(report
        .measurements
        .iter()
        .any(|m| m.algorithm == "sha256" && m.provider == parhash_lab::engine::Provider::Openssl));
    // The run's messages are figures: every row has both units.
    assert!(report
        .measurements
        .iter()
        .all(|m| m.messages_per_s > 0.0 && m.gb_per_s > 0.0));
    let titles: Vec<&str> = report.sections.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(titles.len(), 4, "{titles:?}");
    assert!(titles[0].contains("Multiplicity decides"), "{titles:?}");
    let multiplicity = report.sections[1].table.as_ref().unwrap();
    assert_eq!(multiplicity.rows.len(), algorithms.len() * 2 * 3);
    // keccak256 is compared with OpenSSL's SHA3-256 (OpenSSL has no Keccak-256).
    let keccak = multiplicity
        .rows
        .iter()
        .find(|r| r[0] == "keccak256")
        .unwrap();
    assert_ne!(keccak[7], "-", "{keccak:?}");
    let charts: Vec<&str> = report.charts.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(charts.len(), algorithms.len(), "{charts:?}");
    assert!(charts.contains(&"batch-sha3-256"));
    assert!(
        !report.notes.iter().any(|n| n.contains("skipped")),
        "{:?}",
        report.notes
    );
}

/// The PARSHA-256 preset in tiny mode: the speed-up table has a row per thread count, and from
/// two threads on, the ceiling of independent one-thread runs beside it.
#[test]
fn parsha_preset_sets_the_speed_up_beside_the_machines_ceiling() {
    let preset = presets::find("parsha").expect("parsha preset registered");
    let opts = tiny_options();
    let report = (preset.run)(&opts).unwrap();
    let scaling = report
        .sections
        .iter()
        .find(|s| s.title.contains("speed-up vs threads"))
        .and_then(|s| s.table.as_ref())
        .expect("a speed-up table");
    let threads = parhash::threads::available().max(2);
    assert_eq!(scaling.rows.len(), threads);
    let two = &scaling.rows[1];
    assert_eq!(two[0], "2");
    for cell in &two[1..5] {
        let figure: f64 = cell.trim_end_matches('x').parse().unwrap_or(0.0);
        assert!(figure > 0.0, "{two:?}");
    }
    assert!(two[5].ends_with(" %"), "{two:?}");
}
