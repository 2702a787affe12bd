//! `parhash bench` end to end: the binary runs presets in tiny mode, writes its files, and
//! rejects bad flags with a message.

mod support;

use std::process::Command;

use support::succeeded;

fn parhash() -> Command {
    Command::new(env!("CARGO_BIN_EXE_parhash"))
}

#[test]
fn list_presets_names_every_study() {
    let out = parhash()
        .args(["bench", "--list-presets"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for name in [
        "tour",
        "sandstorm",
        "whirlpool",
        "internal-parallelism",
        "parsha",
        "accelerator",
        "batch",
    ] {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
}

#[test]
fn tiny_tour_writes_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = succeeded(
        parhash()
            .args(["bench", "--tiny", "--no-progress", "--out"])
            .arg(dir.path())
            .output()
            .unwrap(),
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("roofs"), "{text}");
    assert!(text.contains("what limits hashing here"), "{text}");
    assert!(text.contains("--verbose prints them"), "{text}");
    for f in ["results.csv", "report.json", "report.txt", "report.html"] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    // --verbose prints every row, as report.txt holds them.
    let out = parhash()
        .args(["bench", "--tiny", "--no-progress", "--verbose", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    let long = String::from_utf8(out.stdout).unwrap();
    assert!(long.lines().count() > 2 * text.lines().count(), "{long}");
    assert!(long.contains("-- measurements"), "{long}");
}

/// Runs `parhash bench ARGS` and returns its exit status and standard error.
fn bench(args: &[&str]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let out = parhash()
        .arg("bench")
        .args(args)
        .args(["--no-progress", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A usage error: exit status 2 and one line on standard error holding `needle`.
fn assert_usage_error(args: &[&str], needle: &str) {
    let (code, stderr) = bench(args);
    assert_eq!(code, Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.contains(needle), "{args:?}: {stderr}");
}

#[test]
fn bad_flags_fail_with_a_message() {
    assert_usage_error(&["--tiny", "--lengths", "4q"], "--lengths");
    assert_usage_error(&["--preset", "nope"], "unknown preset");
}

#[test]
fn bad_tree_parameters_are_usage_errors() {
    // Unknown keys and bad values name the valid keys (the old help's example among them).
    for set in ["chunk=4KiB,fanout=4", "T=0", "l=64", "T=x"] {
        assert_usage_error(
            &["--tiny", "-a", "parsha256", "--tree", set],
            "valid keys: T (tree height",
        );
    }
    // Sets that no engine of the sweep takes would change nothing.
    assert_usage_error(
        &["--tiny", "-a", "sha256", "--tree", "T=5"],
        "no engine of this sweep takes tree parameters",
    );
}

#[test]
fn unknown_baseline_is_a_usage_error_listing_valid_names() {
    assert_usage_error(
        &["--tiny", "-a", "md5", "--no-peers", "--baseline", "nope"],
        "valid in this run: batch",
    );
    assert_usage_error(
        &["--tiny", "--preset", "batch", "--baseline", "nope"],
        "openssl",
    );
}

/// Sweeps that would measure nothing, or nonsense, are usage errors naming what is valid, not an
/// empty report with exit status 0.
#[test]
fn empty_or_meaningless_sweeps_are_usage_errors() {
    let md5 = ["--tiny", "--no-peers", "-a", "md5"];
    let with = |extra: &[&'static str]| [&md5[..], extra].concat();
    assert_usage_error(
        &with(&["--variants", "nosuch"]),
        "no algorithm of this sweep has 'nosuch' (valid: default, all, sequential",
    );
    assert_usage_error(&with(&["--variants", ","]), "names no variant");
    assert_usage_error(
        &with(&["-t", "0"]),
        "--threads: thread counts must be 1 or more",
    );
    assert_usage_error(&with(&["-t", "0..2"]), "--threads");
    assert_usage_error(
        &with(&["-m", "0"]),
        "--messages: messages per batch must be 1 or more",
    );
    assert_usage_error(&with(&["-l", "0"]), "--lengths: 0-byte messages");
    assert_usage_error(&with(&["-l", "0..1KiB"]), "--lengths: 0-byte messages");
    assert_usage_error(&["--tiny", "-a", ""], "--algorithms: '' names no algorithm");
    assert_usage_error(&["--tiny", "-a", " , "], "names no algorithm");
    // Names that some algorithm of a mixed sweep has stay valid (a note for the others).
    let (code, stderr) = bench(&[
        "--tiny",
        "--no-peers",
        "-a",
        "md5,parsha256",
        "--variants",
        "tree",
        "-l",
        "64",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
}

/// A report folder that cannot be made is an error naming it, before any measurement.
#[test]
fn unusable_report_folder_is_named() {
    let out = parhash()
        .args([
            "bench",
            "--tiny",
            "--no-progress",
            "-a",
            "md5",
            "--out",
            "/proc/parhash-no-such/x",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("/proc/parhash-no-such/x"), "{stderr}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// `--paired-rounds N` sets the rounds of the paired pass the peers table reports (its note says
/// how many); 0 turns it off and the table keeps the ratios of cells timed apart.
#[test]
fn paired_rounds_reach_the_peers_table() {
    let dir = tempfile::tempdir().unwrap();
    let run = |rounds: &str| {
        let out = succeeded(
            parhash()
                .args(["bench", "--tiny", "--no-progress", "--verbose", "-a", "md5"])
                .args(["-l", "64", "-m", "1", "-t", "1", "--paired-rounds", rounds])
                .arg("--out")
                .arg(dir.path())
                .output()
                .unwrap(),
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let paired = run("3");
    assert!(paired.contains("are paired"), "{paired}");
    assert!(paired.contains("(3 rounds"), "{paired}");
    let apart = run("0");
    assert!(apart.contains("-- peers, like with like"), "{apart}");
    assert!(!apart.contains("are paired"), "{apart}");
    let (code, stderr) = bench(&["--tiny", "--paired-rounds", "some"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--paired-rounds"), "{stderr}");
}
