//! End-to-end tests of the reports made for programs and for puzzled people: `--json` of `sum`,
//! `check` and `list` (every line parsed with serde_json and compared with the plain output of
//! the same run, or of coreutils' sha256sum on the same files), and `check`'s note on a failed
//! line whose algorithm was assumed from its digest length.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use base64::Engine;
use serde_json::Value;

mod support;
use support::{require_tool, run_in_locale, Run};

fn parhash(dir: &Path, args: &[&str]) -> Run {
    run_in_locale(dir, "C.UTF-8", env!("CARGO_BIN_EXE_parhash"), args, b"")
}

fn run(dir: &Path, program: &str, args: &[&str]) -> Run {
    run_in_locale(dir, "C.UTF-8", program, args, b"")
}

/// Every line of standard output as JSON; fails on a line that is not one JSON object.
fn records(run: &Run) -> Vec<Value> {
    assert!(
        run.stdout.is_empty() || run.stdout.ends_with(b"\n"),
        "{run:?}"
    );
    run.stdout
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| {
            let value: Value = serde_json::from_slice(line)
                .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(line)));
            assert!(value.is_object(), "{value}");
            value
        })
        .collect()
}

/// The exact bytes of a record's name: `path_bytes` (base64) when given, else `path`.
fn name_bytes(record: &Value, field: &str) -> Vec<u8> {
    match record.get(format!("{field}_bytes")) {
        Some(Value::String(b64)) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap();
            let lossy = String::from_utf8_lossy(&bytes);
            assert_eq!(record[field], lossy.as_ref(), "{record}");
            assert!(std::str::from_utf8(&bytes).is_err(), "{record}");
            bytes
        }
        _ => record[field].as_str().unwrap().as_bytes().to_vec(),
    }
}

/// NUL-terminated `HEX  NAME` records (`-z`: names verbatim) as (name, hex).
fn zero_lines(stdout: &[u8]) -> Vec<(Vec<u8>, String)> {
    stdout
        .split(|&b| b == 0)
        .filter(|r| !r.is_empty())
        .map(|r| {
            let hex = String::from_utf8(r[..64].to_vec()).unwrap();
            assert_eq!(&r[64..66], b"  ");
            (r[66..].to_vec(), hex)
        })
        .collect()
}

/// Files with names that plain output must escape or that are not UTF-8, and an empty one.
fn odd_files(dir: &Path) -> Vec<&'static str> {
    let names: [&[u8]; 5] = [
        b"plain",
        b"new\nline",
        b"back\\slash",
        b"not-utf8-\xff",
        b"empty",
    ];
    for name in names {
        let path = dir.join(std::ffi::OsStr::from_bytes(name));
        let content = if name == b"empty" { &b""[..] } else { name };
        fs::write(path, content).unwrap();
    }
    vec!["plain", "new\nline", "back\\slash", "empty"]
}

#[test]
fn sum_json_has_the_digests_sha256sum_prints_and_the_errors_it_reports() {
    if !require_tool("sha256sum") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut names = odd_files(dir.path());
    names.push("no-such-file");
    // The one-by-one path (one file), the many-files path and the directory walk.
    let walk = ["-r", "."];
    for args in [vec!["plain"], names.clone(), walk.to_vec()] {
        let ours = parhash(dir.path(), &[&["sum", "--json"], &args[..]].concat());
        let plain = parhash(dir.path(), &[&["sum", "-z"], &args[..]].concat());
        let theirs = if args == walk {
            // sha256sum has no -r: it gets the files of the (flat) directory in byte order.
            let mut files: Vec<Vec<u8>> = fs::read_dir(dir.path())
                .unwrap()
                .map(|e| [&b"./"[..], e.unwrap().file_name().as_bytes()].concat())
                .collect();
            files.sort();
            let out = std::process::Command::new("sha256sum")
                .arg("-z")
                .args(files.iter().map(|f| std::ffi::OsStr::from_bytes(f)))
                .current_dir(dir.path())
                .output()
                .unwrap();
            out.stdout
        } else {
            let theirs = run(dir.path(), "sha256sum", &[&["-z"], &args[..]].concat());
            assert_eq!(ours.code, theirs.code, "{args:?}");
            theirs.stdout
        };
        assert_eq!(plain.stdout, theirs, "{args:?}");
        let expected = zero_lines(&theirs);
        let control_args = &args;
        let records = records(&ours);
        let digests: Vec<(Vec<u8>, String)> = records
            .iter()
            .filter(|r| r.get("digest").is_some())
            .map(|r| {
                assert_eq!(r["algorithm"], "sha256", "{r}");
                (
                    name_bytes(r, "path"),
                    r["digest"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(digests, expected, "{control_args:?}");
        if args == walk {
            // The walk meets the name that is not UTF-8.
            assert!(records.iter().any(|r| r.get("path_bytes").is_some()));
        }
        // Each error on standard error has its record, and the exit status says so.
        let failures: Vec<&Value> = records
            .iter()
            .filter(|r| r.get("error").is_some())
            .collect();
        assert_eq!(failures.len(), ours.stderr.lines().count(), "{ours:?}");
        assert_eq!(ours.code, Some(if failures.is_empty() { 0 } else { 1 }));
        assert_eq!(ours.stderr, plain.stderr);
        for failure in failures {
            assert_eq!(failure["path"], "no-such-file");
            assert_eq!(failure["error"], "No such file or directory");
            assert_eq!(failure["errno"], libc::ENOENT);
            assert!(failure.get("digest").is_none());
        }
    }
}

#[test]
fn sum_json_of_parsha256_records_the_tree_parameters() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), b"abc").unwrap();
    let ours = parhash(
        dir.path(),
        &[
            "sum",
            "--json",
            "-a",
            "parsha256",
            "--tree-height",
            "5",
            "f",
        ],
    );
    let tagged = parhash(
        dir.path(),
        &["sum", "--tag", "-a", "parsha256", "--tree-height", "5", "f"],
    );
    let record = &records(&ours)[0];
    assert_eq!(
        (&record["tree_height"], &record["iv_bits"]),
        (&Value::from(5), &Value::from(256))
    );
    let line = format!(
        "PARSHA256-T5-IV256 (f) = {}\n",
        record["digest"].as_str().unwrap()
    );
    assert_eq!(tagged.stdout_text(), line);
}

#[test]
fn json_does_not_go_with_other_output_formats() {
    let dir = tempfile::tempdir().unwrap();
    for flag in ["-z", "--tag", "-b", "-t"] {
        let run = parhash(dir.path(), &["sum", "--json", flag, "f"]);
        assert_eq!(run.code, Some(1), "{flag}: {run:?}");
        assert!(run.stderr.contains("--json"), "{flag}: {}", run.stderr);
        assert!(run.stdout.is_empty());
    }
    let run = parhash(dir.path(), &["check", "--json", "-z", "f"]);
    assert_eq!(run.code, Some(1), "{run:?}");
}

/// A list with good lines (one escaped, one not UTF-8), a damaged one, a comment, an improper
/// line and a missing file, made with sha256sum.
fn mixed_list(dir: &Path) {
    odd_files(dir);
    let mut list = run(dir, "sha256sum", &["plain", "new\nline"]).stdout;
    let odd = fs::read(dir.join(std::ffi::OsStr::from_bytes(b"not-utf8-\xff"))).unwrap();
    let odd_hex = parhash::hash(parhash::Algorithm::Sha256, &odd).to_hex();
    list.extend_from_slice(format!("{odd_hex}  ").as_bytes());
    list.extend_from_slice(b"not-utf8-\xff\n");
    let empty = run(dir, "sha256sum", &["empty"]).stdout_text();
    list.extend_from_slice(empty.replacen('e', "0", 1).as_bytes());
    list.extend_from_slice(b"# a comment\nnot a checksum line\n");
    list.extend_from_slice(empty.replace("empty", "gone").as_bytes());
    fs::write(dir.join("LIST"), &list).unwrap();
}

#[test]
fn check_json_reports_what_sha256sum_reports_line_by_line() {
    if !require_tool("sha256sum") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    mixed_list(dir.path());
    let theirs = run(dir.path(), "sha256sum", &["-c", "LIST"]);
    let plain = parhash(dir.path(), &["check", "LIST"]);
    assert_eq!(plain.stdout, theirs.stdout);
    let ours = parhash(dir.path(), &["check", "--json", "LIST"]);
    assert_eq!((ours.code, &ours.stderr), (plain.code, &plain.stderr));
    let records = records(&ours);
    let (summary, lines) = records.split_last().unwrap();
    assert!(lines
        .iter()
        .all(|r| r["type"] == "line" && r["list"] == "LIST"));

    // The checked lines, in order, say what sha256sum says of them.
    let checked: Vec<&Value> = lines.iter().filter(|r| r["status"] != "improper").collect();
    let report: Vec<&[u8]> = theirs
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(checked.len(), report.len(), "{records:?}");
    for (record, line) in checked.iter().zip(&report) {
        let verdict = match record["status"].as_str().unwrap() {
            "ok" => "OK",
            "failed" => "FAILED",
            "missing" | "unreadable" => "FAILED open or read",
            other => panic!("{other}"),
        };
        let ours = [
            name_bytes(record, "path"),
            format!(": {verdict}").into_bytes(),
        ]
        .concat();
        // sha256sum escapes a name with a newline: compare with its unescaped form.
        let expected = match line.strip_prefix(b"\\") {
            Some(escaped) => String::from_utf8(escaped.to_vec())
                .unwrap()
                .replace("\\n", "\n")
                .into_bytes(),
            None => line.to_vec(),
        };
        assert_eq!(ours, expected, "{record}");
        assert_eq!(record["algorithm"], "sha256");
        assert_eq!(record["algorithm_from"], "length");
        let ok = record["status"] == "ok";
        assert_eq!(record["expected"] == record["actual"], ok, "{record}");
    }
    // The improper line is the list's line 6 (after 4 checksum lines and a comment).
    let improper: Vec<&Value> = lines.iter().filter(|r| r["status"] == "improper").collect();
    assert_eq!(improper.len(), 1);
    assert_eq!(improper[0]["line"], 6);
    let missing = checked.iter().find(|r| r["status"] == "missing").unwrap();
    assert_eq!(missing["line"], 7);
    assert_eq!(missing["errno"], libc::ENOENT);

    // The summary counts what sha256sum's WARNING lines count.
    assert_eq!(summary["type"], "summary");
    let count = |status: &str| lines.iter().filter(|r| r["status"] == status).count();
    for status in ["ok", "failed", "missing", "unreadable", "improper"] {
        assert_eq!(summary[status], count(status), "{status}: {summary}");
    }
    assert!(theirs
        .stderr
        .contains("WARNING: 1 line is improperly formatted"));
    assert!(theirs
        .stderr
        .contains("WARNING: 1 listed file could not be read"));
    assert!(theirs
        .stderr
        .contains("WARNING: 1 computed checksum did NOT match"));
    assert_eq!(summary["passed"], false);
}

#[test]
fn check_json_follows_quiet_status_ignore_missing_and_tags() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), b"abc").unwrap();
    let tagged = parhash(dir.path(), &["sum", "--tag", "-a", "sha3-256", "f"]);
    fs::write(dir.path().join("TAGGED"), &tagged.stdout).unwrap();
    let ours = parhash(dir.path(), &["check", "--json", "TAGGED"]);
    let checked = records(&ours);
    assert_eq!(checked[0]["algorithm"], "sha3-256");
    assert_eq!(checked[0]["algorithm_from"], "tag");
    assert_eq!(checked[1]["passed"], true);
    let forced = parhash(
        dir.path(),
        &["sum", "-c", "--json", "-a", "sha3-256", "TAGGED"],
    );
    assert_eq!(records(&forced)[0]["algorithm_from"], "option");

    let mut list = tagged.stdout_text();
    list.push_str(&list.replace("(f)", "(gone)"));
    fs::write(dir.path().join("L"), list).unwrap();
    let quiet = records(&parhash(dir.path(), &["check", "--json", "--quiet", "L"]));
    assert_eq!(quiet.len(), 2, "{quiet:?}");
    assert_eq!(quiet[0]["status"], "missing");
    let ignoring = records(&parhash(
        dir.path(),
        &["check", "--json", "--ignore-missing", "L"],
    ));
    assert_eq!(ignoring.len(), 2, "{ignoring:?}");
    assert_eq!(ignoring[0]["status"], "ok");
    assert_eq!(
        (&ignoring[1]["missing"], &ignoring[1]["passed"]),
        (&0.into(), &true.into())
    );
    let status = parhash(dir.path(), &["check", "--json", "--status", "L"]);
    assert_eq!((status.stdout.len(), status.code), (0, Some(1)));
}

#[test]
fn check_json_summarizes_lists_that_fail_as_a_whole() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("JUNK"), "junk\n").unwrap();
    let ours = parhash(dir.path(), &["check", "--json", "JUNK", "NOPE"]);
    assert_eq!(ours.code, Some(1));
    let records = records(&ours);
    assert_eq!(records.len(), 3, "{records:?}");
    assert_eq!(records[0]["status"], "improper");
    let junk = &records[1];
    assert_eq!(
        (&junk["type"], &junk["list"], &junk["passed"]),
        (&"summary".into(), &"JUNK".into(), &false.into())
    );
    assert_eq!(junk["error"], "no properly formatted checksum lines found");
    assert_eq!(junk["errno"], Value::Null);
    let nope = &records[2];
    assert_eq!(
        (&nope["list"], &nope["errno"]),
        (&"NOPE".into(), &libc::ENOENT.into())
    );
    assert_eq!(nope["error"], "No such file or directory");
}

#[test]
fn list_json_has_one_record_per_algorithm_of_the_plain_list() {
    let dir = tempfile::tempdir().unwrap();
    let plain = parhash(dir.path(), &["list"]).stdout_text();
    let records = records(&parhash(dir.path(), &["list", "--json"]));
    let blocks: Vec<&str> = plain.split("\n\n").skip(1).collect();
    // The last block is the closing explanation.
    assert_eq!(records.len(), blocks.len() - 1);
    for (record, block) in records.iter().zip(&blocks) {
        let name = record["name"].as_str().unwrap();
        assert!(block.starts_with(&format!("{name} ")), "{name}: {block}");
        let bits = record["digest_bits"].as_u64().unwrap();
        assert!(block.contains(&format!("{bits}-bit digest")), "{block}");
        assert_eq!(
            record["broken"] == true,
            block.contains("BROKEN"),
            "{block}"
        );
        assert!(block.contains(record["note"].as_str().unwrap()), "{block}");
        for variant in record["variants"].as_array().unwrap() {
            assert!(block.contains(variant["name"].as_str().unwrap()), "{block}");
        }
        assert_eq!(
            record["batch"].is_null(),
            block.contains("threads only"),
            "{record} {block}"
        );
        // What `-a` accepts: the name itself, its tag and aliases.
        for alias in record["aliases"].as_array().unwrap() {
            let alias = alias.as_str().unwrap();
            let hashed = parhash(dir.path(), &["sum", "-a", alias, "/dev/null"]);
            let canonical = parhash(dir.path(), &["sum", "-a", name, "/dev/null"]);
            assert_eq!(hashed.stdout, canonical.stdout, "{alias}");
        }
    }
}

#[test]
fn a_failed_untagged_line_names_the_algorithm_assumed_from_its_length() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), b"abc").unwrap();
    let list = parhash(dir.path(), &["sum", "-a", "parsha256", "f"]);
    fs::write(dir.path().join("LIST"), &list.stdout).unwrap();
    let ours = parhash(dir.path(), &["check", "LIST"]);
    assert_eq!(
        (ours.stdout_text().as_str(), ours.code),
        ("f: FAILED\n", Some(1))
    );
    let lines: Vec<&str> = ours.stderr.lines().collect();
    assert_eq!(
        lines[0],
        "parhash: WARNING: 1 computed checksum did NOT match"
    );
    assert_eq!(lines.len(), 2, "{lines:?}");
    let note = lines[1];
    assert!(note.starts_with("parhash: note: 1 failed line has no algorithm tag"));
    assert!(note.contains("sha256 was assumed from its digest length (64 hex digits)"));
    assert!(note.contains("with -a"), "{note}");
    assert!(note.contains("parsha256"), "{note}");
    assert!(note.contains("blake3"), "{note}");
    // As the note says: -a picks the algorithm, and the file checks.
    let forced = parhash(dir.path(), &["check", "-a", "parsha256", "LIST"]);
    assert_eq!(
        (forced.stdout_text().as_str(), forced.code),
        ("f: OK\n", Some(0))
    );
    assert_eq!(forced.stderr, "");
    // A failure with -a, or of a tagged line, has nothing to add; nor has --status.
    fs::write(dir.path().join("f"), b"abd").unwrap();
    for args in [
        &["check", "-a", "parsha256", "LIST"][..],
        &["check", "--status", "LIST"],
    ] {
        let run = parhash(dir.path(), args);
        assert!(!run.stderr.contains("note:"), "{args:?}: {}", run.stderr);
        assert_eq!(run.code, Some(1));
    }
    // The note comes once per algorithm and counts the lines.
    let twice = [list.stdout.clone(), list.stdout].concat();
    fs::write(dir.path().join("LIST"), twice).unwrap();
    let run = parhash(dir.path(), &["check", "LIST"]);
    assert_eq!(run.stderr.matches("note:").count(), 1, "{}", run.stderr);
    assert!(run.stderr.contains("2 failed lines have no algorithm tag"));
}
