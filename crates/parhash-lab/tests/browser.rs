//! The HTML report in a real browser: a tiny tour's report renders cleanly in headless
//! Chromium (`scripts/check-report.sh`: plots laid out with labels, images decoding, no empty
//! section, no raw Markdown), and the same check fails on a page broken on purpose. Skipped
//! without chromium, except under CI (`CI` set), where a missing browser is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

use parhash_lab::{output, presets, LabOptions};

fn browser_available() -> bool {
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .any(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

fn check_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/check-report.sh")
}

/// Runs the check on `dir`: (passed, what it printed).
fn check(dir: &Path) -> (bool, String) {
    let out = Command::new("bash")
        .arg(check_script())
        .arg(dir)
        .output()
        .expect("bash runs the check script");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn tour_report_renders_cleanly_in_chromium_and_a_broken_one_does_not() {
    if !browser_available() {
        assert!(
            std::env::var_os("CI").is_none(),
            "chromium is missing under CI (.ci/run installs it)"
        );
        eprintln!("skipped: no chromium (apt-get install -y chromium)");
        return;
    }
    if parhash_lab::plots::font().is_err() {
        assert!(std::env::var_os("CI").is_none(), "no font under CI");
        eprintln!("skipped: no font, so no plots");
        return;
    }
    let base = std::env::temp_dir().join(format!("parhash-lab-browser-{}", std::process::id()));
    let mut opts = LabOptions::new();
    opts.tiny = true;
    opts.progress = false;
    opts.budget = std::time::Duration::from_secs(3);
    opts.out_dir = base.join("good");
    let tour = presets::find("tour").expect("the tour preset");
    let report = (tour.run)(&opts).expect("the tour runs");
    output::write_all(&report, &opts.out_dir).expect("report written");

    let (ok, text) = check(&opts.out_dir);
    assert!(ok, "the tour's report fails the browser check:\n{text}");
    assert!(text.contains("OK "), "{text}");
    let shot = std::fs::metadata(opts.out_dir.join("report-screenshot.png")).expect("screenshot");
    assert!(shot.len() > 10_000, "screenshot of {} bytes", shot.len());

    // The same page broken three ways: a plot emptied, a section left empty, raw Markdown.
    let html = std::fs::read_to_string(opts.out_dir.join("report.html")).unwrap();
    let svg_start = html.find("<svg").expect("a plot");
    let svg_end = svg_start + html[svg_start..].find("</svg>").expect("its end") + "</svg>".len();
    let broken = format!(
        "{}<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>{}",
        &html[..svg_start],
        &html[svg_end..]
    )
    .replace("</body>", "<p>`raw`</p>\n<h2>Left empty</h2>\n</body>");
    let bad_dir = base.join("broken");
    std::fs::create_dir_all(&bad_dir).unwrap();
    std::fs::write(bad_dir.join("report.html"), broken).unwrap();
    let (ok, text) = check(&bad_dir);
    assert!(!ok, "a broken page passed:\n{text}");
    for problem in ["plot", "empty section: Left empty", "backticks"] {
        assert!(text.contains(problem), "{problem} not reported:\n{text}");
    }
    let _ = std::fs::remove_dir_all(&base);
}
