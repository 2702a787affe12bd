//! `parhash check --audit`: a tree changed in every way at once against the list `sum -r`
//! wrote of it (every status, duplicates in the list, on disk and on both sides, a vanished
//! copy, names with newlines and invalid UTF-8), read back from `--json` and from the report
//! for people; the exit status; a subset audit; a list made by coreutils' sha256sum; a list of
//! 10^5 files.

mod support;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Output;

use base64::Engine;
use serde_json::Value;
use support::{fails_with, succeeded};

fn parhash(dir: &Path, args: &[&str]) -> Output {
    support::parhash_in(dir, args, &[])
}

fn write(dir: &Path, name: &[u8], content: &str) {
    let path = dir.join(OsStr::from_bytes(name));
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

fn remove(dir: &Path, name: &[u8]) {
    fs::remove_file(dir.join(OsStr::from_bytes(name))).unwrap();
}

/// `sum -r .` of `dir` written to `dir/LIST`.
fn list_of(dir: &Path) {
    let out = succeeded(parhash(dir, &["sum", "-r", "."]));
    fs::write(dir.join("LIST"), out.stdout).unwrap();
}

/// A name from a JSON object: `path_bytes` when the name is not UTF-8, else `path`.
fn name_of(record: &Value, field: &str) -> Option<Vec<u8>> {
    match record.get(format!("{field}_bytes")).and_then(Value::as_str) {
        Some(b64) => Some(
            base64::engine::general_purpose::STANDARD
                .decode(b64)
                .unwrap(),
        ),
        None => record[field].as_str().map(|s| s.as_bytes().to_vec()),
    }
}

/// What `--json` says of each file: status, moved-from name, and the copies (name, listed,
/// on_disk), by name; and the summary.
type Verdicts = BTreeMap<Vec<u8>, (String, Option<Vec<u8>>, Vec<(Vec<u8>, bool, Value)>)>;

fn json_verdicts(stdout: &[u8]) -> (Verdicts, Value) {
    let mut verdicts = Verdicts::new();
    let mut summary = Value::Null;
    // Each verdict's group and copy count, then the groups (after every verdict).
    let mut pending = Vec::new();
    let mut groups = BTreeMap::new();
    for line in stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let record: Value = serde_json::from_slice(line).unwrap();
        match record["type"].as_str() {
            Some("audit") => {
                assert!(
                    groups.is_empty() && summary.is_null(),
                    "groups come after verdicts"
                );
                let name = name_of(&record, "path").unwrap();
                let status = record["status"].as_str().unwrap().to_string();
                let count = record["copies"].as_u64().unwrap();
                assert_eq!(record["group"].is_null(), count == 0);
                pending.push((
                    name,
                    status,
                    name_of(&record, "from"),
                    record["group"].as_u64(),
                    count,
                ));
            }
            Some("audit_group") => {
                assert!(summary.is_null());
                let names: Vec<_> = (record["names"].as_array().unwrap().iter())
                    .map(|c| {
                        let name = name_of(c, "path").unwrap();
                        (name, c["listed"].as_bool().unwrap(), c["on_disk"].clone())
                    })
                    .collect();
                assert_eq!(record["group"].as_u64(), Some(groups.len() as u64));
                groups.insert(record["group"].as_u64().unwrap(), names);
            }
            Some("audit_summary") => summary = record,
            other => panic!("unexpected record type {other:?}"),
        }
    }
    let plain = |name: &[u8]| name.strip_prefix(b"./").unwrap_or(name).to_vec();
    for (name, status, from, group, count) in pending {
        let copies: Vec<_> = group.map_or(Vec::new(), |group| {
            (groups[&group].iter())
                .filter(|c| {
                    plain(&c.0) != plain(&name) && Some(plain(&c.0)) != from.as_deref().map(plain)
                })
                .cloned()
                .collect()
        });
        assert_eq!(copies.len() as u64, count);
        let old = verdicts.insert(name, (status, from, copies));
        assert!(old.is_none(), "two verdicts for one name");
    }
    (verdicts, summary)
}

/// The tree in which everything happens at once: its directory.
fn changed_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files: &[(&[u8], &str)] = &[
        (b"keep", "keep"),
        (b"sub/change", "before"),
        (b"sub/gone", "gone for good"),
        (b"old/move-me", "moved content"),
        // Duplicates on both sides, all in place: never missing, never moved.
        (b"both/1", "twin"),
        (b"both/2", "twin"),
        // Listed twice; one is rewritten.
        (b"listdup/a", "listed twice"),
        (b"listdup/b", "listed twice"),
        // Listed once; copied on disk.
        (b"diskdup/orig", "copied on disk"),
        // A duplicate set of which one copy vanishes.
        (b"vanish/kept", "one copy left"),
        (b"vanish/lost", "one copy left"),
        // Odd names: kept, and moved to an invalid UTF-8 name.
        (b"odd/new\nline", "newline"),
        (b"odd/latin1-\xe9", "latin1"),
        (b"odd/to-move", "to an odd name"),
    ];
    for (name, content) in files {
        write(d, name, content);
    }
    list_of(d);
    write(d, b"sub/change", "after");
    remove(d, b"sub/gone");
    remove(d, b"old/move-me");
    write(d, b"new/moved-here", "moved content");
    write(d, b"new/fresh", "fresh");
    write(d, b"listdup/b", "rewritten");
    write(d, b"diskdup/copy", "copied on disk");
    remove(d, b"vanish/lost");
    remove(d, b"odd/to-move");
    write(d, b"odd/moved\n\xff", "to an odd name");
    dir
}

#[test]
fn every_status_at_once_in_json() {
    let dir = changed_tree();
    let out = parhash(dir.path(), &["check", "--audit", "--json", "LIST"]);
    assert_eq!(out.status.code(), Some(1));
    let (verdicts, summary) = json_verdicts(&out.stdout);
    let status = |name: &[u8]| verdicts[name].0.as_str();
    for name in [
        &b"./keep"[..],
        b"./both/1",
        b"./both/2",
        b"./listdup/a",
        b"./diskdup/orig",
        b"./vanish/kept",
        b"./odd/new\nline",
        b"./odd/latin1-\xe9",
    ] {
        assert_eq!(status(name), "matched", "{}", String::from_utf8_lossy(name));
    }
    assert_eq!(status(b"./sub/change"), "changed");
    assert_eq!(status(b"./listdup/b"), "changed");
    assert_eq!(status(b"./sub/gone"), "missing");
    assert_eq!(status(b"./vanish/lost"), "missing");
    assert_eq!(status(b"./new/fresh"), "new");
    assert_eq!(status(b"./diskdup/copy"), "new");
    assert_eq!(status(b"./new/moved-here"), "moved");
    assert_eq!(
        verdicts[&b"./new/moved-here"[..]].1.as_deref(),
        Some(&b"./old/move-me"[..])
    );
    assert_eq!(status(b"./odd/moved\n\xff"), "moved");
    assert_eq!(
        verdicts[&b"./odd/moved\n\xff"[..]].1.as_deref(),
        Some(&b"./odd/to-move"[..])
    );
    // 8 matched + 2 changed + 2 missing + 2 new + 2 moved: every file once, the list not.
    assert_eq!(verdicts.len(), 16);

    let copies = |name: &[u8]| verdicts[name].2.clone();
    let t = Value::Bool(true);
    let f = Value::Bool(false);
    assert_eq!(
        copies(b"./both/1"),
        [(b"./both/2".to_vec(), true, t.clone())]
    );
    assert_eq!(
        copies(b"./listdup/a"),
        [(b"./listdup/b".to_vec(), true, f.clone())]
    );
    assert_eq!(
        copies(b"./diskdup/copy"),
        [(b"./diskdup/orig".to_vec(), true, t.clone())]
    );
    assert_eq!(
        copies(b"./diskdup/orig"),
        [(b"./diskdup/copy".to_vec(), false, t.clone())]
    );
    // The vanished copy is missing, and says where its content still is.
    assert_eq!(
        copies(b"./vanish/lost"),
        [(b"./vanish/kept".to_vec(), true, t.clone())]
    );
    assert_eq!(
        copies(b"./vanish/kept"),
        [(b"./vanish/lost".to_vec(), true, f)]
    );
    assert!(copies(b"./sub/gone").is_empty());
    assert!(copies(b"./keep").is_empty());

    let counts: Vec<u64> = [
        "matched",
        "changed",
        "missing",
        "missing_with_copy",
        "new",
        "moved",
    ]
    .iter()
    .map(|k| summary[k].as_u64().unwrap())
    .collect();
    assert_eq!(counts, [8, 2, 2, 1, 2, 2]);
    assert_eq!(summary["duplicates"], 7);
    assert_eq!(summary["passed"], false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("parhash: LIST: audit: 8 matched, 2 changed, 2 missing (1 with a copy on disk), 2 new, 2 moved, 0 unreadable; 7 sharing"),
        "{stderr}"
    );
}

#[test]
fn the_report_for_people() {
    let dir = changed_tree();
    let out = parhash(dir.path(), &["check", "--audit", "--quiet", "LIST"]);
    assert_eq!(out.status.code(), Some(1));
    let expected: &[&[u8]] = &[
        b"./listdup/b: CHANGED\n",
        b"./sub/change: CHANGED\n",
        b"./sub/gone: MISSING\n",
        b"./vanish/lost: MISSING, content at ./vanish/kept\n",
        b"./diskdup/copy: NEW, copy of ./diskdup/orig\n",
        b"./new/fresh: NEW\n",
        b"./new/moved-here: MOVED from ./old/move-me\n",
        // Both names escaped, as check escapes a name with a newline.
        b"\\./odd/moved\\n\xff: MOVED from ./odd/to-move\n",
    ];
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&expected.concat())
    );
    // Without --quiet, matched files are `OK` lines, in the list's order, before the rest.
    let out = parhash(dir.path(), &["check", "--audit", "LIST"]);
    let text = out.stdout;
    assert!(text.starts_with(b"./both/1: OK\n./both/2: OK\n./diskdup/orig: OK\n"));
    let odd = b"\\./odd/new\\nline: OK\n";
    assert!(text.windows(odd.len()).any(|w| w == odd));
    // --status: nothing at all, the exit status says it.
    let out = parhash(dir.path(), &["check", "--audit", "--status", "LIST"]);
    assert_eq!(
        (out.status.code(), &out.stdout[..], &out.stderr[..]),
        (Some(1), &b""[..], &b""[..])
    );
}

#[test]
fn an_unchanged_tree_passes() {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in [("a", "1"), ("d/b", "2"), ("d/c", "2"), ("e/f/g", "3")] {
        write(dir.path(), name.as_bytes(), content);
    }
    list_of(dir.path());
    let out = parhash(dir.path(), &["check", "--audit", "LIST"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, b"./a: OK\n./d/b: OK\n./d/c: OK\n./e/f/g: OK\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("4 matched, 0 changed, 0 missing, 0 new, 0 moved"),
        "{stderr}"
    );
    // One file more anywhere fails the audit.
    write(dir.path(), b"e/extra", "4");
    let out = parhash(dir.path(), &["check", "--audit", "--quiet", "LIST"]);
    assert_eq!(
        (out.status.code(), &out.stdout[..]),
        (Some(1), &b"./e/extra: NEW\n"[..])
    );
}

/// A list written inside the tree by `sum -r -o`: neither it nor its side file (nor their
/// `.tmp`, left by a crash of `--update`) is part of the dataset the audit reports.
#[test]
fn the_files_sum_o_writes_are_not_reported() {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in [("a", "1"), ("d/b", "2")] {
        write(dir.path(), name.as_bytes(), content);
    }
    succeeded(parhash(dir.path(), &["sum", "-r", "-o", "LIST", "."]));
    assert!(dir.path().join("LIST.parhash-meta").exists());
    write(dir.path(), b"LIST.tmp", "a torn update");
    let out = parhash(dir.path(), &["check", "--audit", "LIST"]);
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).as_ref()
        ),
        (Some(0), "./a: OK\n./d/b: OK\n"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Another file of that name elsewhere in the tree is data all the same.
    write(dir.path(), b"d/LIST.parhash-meta", "data");
    let out = parhash(dir.path(), &["check", "--audit", "--quiet", "LIST"]);
    assert_eq!(
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).as_ref()
        ),
        (Some(1), "./d/LIST.parhash-meta: NEW\n")
    );
}

#[test]
fn a_subset_against_the_whole_list() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, content) in [
        ("in/a", "a"),
        ("in/b", "b"),
        ("out/c", "c"),
        ("out/d", "d"),
        ("out/e", "e"),
    ] {
        write(d, name.as_bytes(), content);
    }
    list_of(d);
    // out/c moved into the subset, out/d copied into it, out/e untouched, out/gone-too
    // deleted (outside the subset: not reported), in/b deleted.
    fs::rename(d.join("out/c"), d.join("in/c")).unwrap();
    fs::copy(d.join("out/d"), d.join("in/d")).unwrap();
    remove(d, b"in/b");
    remove(d, b"out/e");
    let out = parhash(
        d,
        &["check", "--audit", "--audit-path", "in", "--json", "LIST"],
    );
    assert_eq!(out.status.code(), Some(1));
    let (verdicts, _) = json_verdicts(&out.stdout);
    let got: Vec<(String, String, Option<String>)> = verdicts
        .iter()
        .map(|(name, (status, from, _))| {
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            (text(name), status.clone(), from.as_deref().map(text))
        })
        .collect();
    let want =
        |n: &str, s: &str, f: Option<&str>| (n.to_string(), s.to_string(), f.map(str::to_string));
    assert_eq!(
        got,
        [
            want("./in/a", "matched", None),
            want("./in/b", "missing", None),
            want("in/c", "moved", Some("./out/c")),
            want("in/d", "new", None),
        ]
    );
    // The copy's original lies outside the subset: listed, not looked at.
    assert_eq!(
        verdicts[&b"in/d"[..]].2,
        [(b"./out/d".to_vec(), true, Value::Null)]
    );
    // Overlapping subsets: each file once.
    let args = [
        "check",
        "--audit",
        "--quiet",
        "--audit-path",
        "in/",
        "--audit-path",
        "./in",
    ];
    let out = parhash(d, &[&args[..], &["--audit-path", "in/c", "LIST"]].concat());
    assert_eq!(
        out.stdout,
        b"./in/b: MISSING\nin/c: MOVED from ./out/c\nin/d: NEW, copy of ./out/d\n"
    );
    // The whole tree sees out/e gone too.
    let out = parhash(d, &["check", "--audit", "--quiet", "LIST"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("./out/e: MISSING\n"));
    // A subset that is gone altogether: all its listed names are missing.
    fs::remove_dir_all(d.join("in")).unwrap();
    let out = parhash(
        d,
        &["check", "--audit", "--audit-path", "in", "--quiet", "LIST"],
    );
    assert_eq!(out.stdout, b"./in/a: MISSING\n./in/b: MISSING\n");
}

#[test]
fn a_list_made_by_sha256sum() {
    if !support::require_tool("sha256sum") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, content) in [("a", "1"), ("b c", "2"), ("s/d", "3"), ("s/e", "3")] {
        write(d, name.as_bytes(), content);
    }
    let out = std::process::Command::new("sha256sum")
        .args(["a", "b c", "s/d", "s/e"])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(out.status.success());
    fs::write(d.join("SHA256SUMS"), out.stdout).unwrap();
    // Names without `./` match the walk's `./NAME`.
    let out = parhash(d, &["check", "--audit", "--quiet", "SHA256SUMS"]);
    assert_eq!((out.status.code(), &out.stdout[..]), (Some(0), &b""[..]));
    fs::rename(d.join("s/e"), d.join("f")).unwrap();
    write(d, b"a", "changed");
    let out = parhash(d, &["check", "--audit", "--quiet", "SHA256SUMS"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "a: CHANGED\n./f: MOVED from s/e\n"
    );
}

#[test]
fn usage_and_list_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = parhash(d, &["check", "--audit", "NOLIST"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "parhash: NOLIST: No such file or directory\n"
    );
    let out = parhash(d, &["check", "--audit", "A", "B"]);
    fails_with(&out, 1, "--audit takes exactly one checksum list");
    // A line of another algorithm is improperly formatted; --strict fails on it.
    write(d, b"x", "x");
    let sha = parhash(d, &["sum", "x"]).stdout;
    let md5 = parhash(d, &["sum", "-a", "md5", "x"]).stdout;
    fs::write(d.join("MIXED"), [sha, md5].concat()).unwrap();
    let out = parhash(d, &["check", "--audit", "-w", "MIXED"]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("MIXED: 2: improperly formatted SHA256 checksum line"),
        "{stderr}"
    );
    assert!(
        stderr.contains("WARNING: 1 line is improperly formatted"),
        "{stderr}"
    );
    let out = parhash(d, &["check", "--audit", "--strict", "MIXED"]);
    assert_eq!(out.status.code(), Some(1));
}

/// 10^5 files, a few of them changed, moved and removed (about 15 s in a debug build).
/// `check --audit --json` of `n` identical (empty) files, one of them renamed since the list
/// was made, and one more added: its standard output.
fn identical_files_json(n: usize) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for i in 0..n {
        write(d, format!("same/{i:04}").as_bytes(), "");
    }
    list_of(d);
    fs::rename(d.join("same/0000"), d.join("same/renamed")).unwrap();
    write(d, b"same/added", "");
    let out = parhash(d, &["check", "--audit", "--json", "LIST"]);
    assert_eq!(out.status.code(), Some(1));
    out.stdout
}

#[test]
fn identical_files_make_a_report_linear_in_their_number() {
    // Every record listing all its copies made 500 empty files an 11.9 MB report.
    let (small, large) = (identical_files_json(300), identical_files_json(600));
    let ratio = large.len() as f64 / small.len() as f64;
    assert!(ratio < 2.2, "{} then {} bytes", small.len(), large.len());
    let (verdicts, summary) = json_verdicts(&small);
    assert_eq!(verdicts.len(), 301);
    // The new names pair with the gone one in byte order: `added` is the move.
    let (status, from, copies) = &verdicts[&b"./same/added"[..]];
    assert_eq!(
        (status.as_str(), from.as_deref()),
        ("moved", Some(&b"./same/0000"[..]))
    );
    assert_eq!(copies.len(), 300);
    assert_eq!(verdicts[&b"./same/renamed"[..]].0, "new");
    assert_eq!(verdicts[&b"./same/renamed"[..]].2.len(), 301);
    assert_eq!(
        (
            &summary["matched"],
            &summary["moved"],
            &summary["new"],
            &summary["duplicates"]
        ),
        (
            &Value::from(299),
            &Value::from(1),
            &Value::from(1),
            &Value::from(301)
        )
    );
}

#[test]
fn a_list_of_100000_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for i in 0..100_000 {
        write(
            d,
            format!("d{}/f{i}", i % 100).as_bytes(),
            &format!("content {i}"),
        );
    }
    list_of(d);
    write(d, b"d1/f1", "changed");
    fs::rename(d.join("d2/f2"), d.join("d3/moved")).unwrap();
    remove(d, b"d4/f4");
    write(d, b"d5/new", "new");
    let out = parhash(d, &["check", "--audit", "--quiet", "LIST"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "./d1/f1: CHANGED\n./d4/f4: MISSING\n./d3/moved: MOVED from ./d2/f2\n./d5/new: NEW\n"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("99997 matched, 1 changed, 1 missing, 1 new, 1 moved"),
        "{stderr}"
    );
}

#[test]
fn unreadable_files_and_nul_terminated_reports() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, b"new\nline", "x");
    std::os::unix::fs::symlink("nowhere", d.join("dangling")).unwrap();
    let out = parhash(d, &["sum", "-z", "new\nline"]);
    fs::write(d.join("LIST"), out.stdout).unwrap();
    // A dangling link is walked (as `sum -r` walks it) and cannot be read: unreadable, with
    // check's message; -z reads the list and writes the report NUL-terminated, names raw.
    let out = parhash(d, &["check", "--audit", "-z", "LIST"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        out.stdout,
        b"new\nline: OK\0./dangling: FAILED open or read\0"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("parhash: ./dangling: No such file or directory\n"),
        "{stderr}"
    );
    assert!(stderr.contains("1 matched, 0 changed, 0 missing, 0 new, 0 moved, 1 unreadable"));
    // The same as JSON (which does not go with -z: a list of escaped lines).
    let out = parhash(d, &["sum", "new\nline"]);
    fs::write(d.join("LIST"), out.stdout).unwrap();
    let out = parhash(d, &["check", "--audit", "--json", "LIST"]);
    let (verdicts, _) = json_verdicts(&out.stdout);
    assert_eq!(verdicts[&b"new\nline"[..]].0, "matched");
    let second = out.stdout.split(|&b| b == b'\n').nth(1).unwrap();
    let record: Value = serde_json::from_slice(second).unwrap();
    assert_eq!(
        (&record["status"], &record["errno"]),
        (&Value::from("unreadable"), &Value::from(2))
    );
}
