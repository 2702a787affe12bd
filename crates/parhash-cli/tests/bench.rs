//! `parhash bench` end to end: the binary runs presets in tiny mode, writes its files, and
//! rejects bad flags with a message.

use std::process::Command;

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
    ] {
        assert!(text.contains(name), "{name} missing from:\n{text}");
    }
}

#[test]
fn tiny_tour_writes_report() {
    let dir = tempfile::tempdir().unwrap();
    let out = parhash()
        .args(["bench", "--tiny", "--no-progress", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("roofs"), "{text}");
    assert!(text.contains("dominating bottleneck"), "{text}");
    for f in ["results.csv", "report.json", "report.txt", "report.html"] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
}

#[test]
fn bad_flags_fail_with_a_message() {
    let out = parhash()
        .args(["bench", "--tiny", "--lengths", "4q"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--lengths"));
    let out = parhash()
        .args(["bench", "--preset", "nope"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown preset"));
}
