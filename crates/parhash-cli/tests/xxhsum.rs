//! XXH64, XXH3 and XXH128 from the command line, byte for byte against xxHash's own `xxhsum`
//! (`-H1`, `-H3`, `-H2`): GNU and tagged lines, and lists checked in both directions; and the
//! checksums (CRCs with them) in one read with a cryptographic hash.
//!
//! A missing `xxhsum` skips the comparison with a printed reason; under CI (`CI` set, as
//! `.ci/run` does, which installs it) it fails the test.

mod support;

use std::fs;
use std::path::Path;

use support::{checks_ok, require_tool, run_in_locale, Run};

const PARHASH: &str = env!("CARGO_BIN_EXE_parhash");

fn run(dir: &Path, program: &str, args: &[&str]) -> Run {
    run_in_locale(dir, "C.UTF-8", program, args, b"")
}

/// Files around XXH3's length classes (0, 1-3, 4-8, 9-16, 17-128, 129-240, one and several
/// 1024-byte blocks) and a long one; names that need no escaping (xxhsum prints names as
/// they are).
fn fixture() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut names = Vec::new();
    for len in [0usize, 1, 3, 8, 16, 100, 200, 1024, 5000, (1 << 20) + 7] {
        let name = format!("file {len}");
        let data: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
        fs::write(dir.path().join(&name), data).unwrap();
        names.push(name);
    }
    (dir, names)
}

fn with<'a>(prefix: &[&'a str], names: &'a [String]) -> Vec<&'a str> {
    prefix
        .iter()
        .copied()
        .chain(names.iter().map(String::as_str))
        .collect()
}

#[test]
fn xxh64_xxh3_and_xxh128_are_xxhsum_byte_for_byte() {
    if !require_tool("xxhsum") {
        return;
    }
    let (dir, names) = fixture();
    let dir = dir.path();
    let n = names.len();
    // xxhsum writes XXH3 tagged even without --tag (its digests look like XXH64's).
    for (alg, flag, plain_is_tagged) in [
        ("xxh64", "-H1", false),
        ("xxh128", "-H2", false),
        ("xxh3", "-H3", true),
    ] {
        let theirs = run(dir, "xxhsum", &with(&[flag], &names));
        assert_eq!(theirs.code, Some(0), "{}", theirs.stderr);
        let ours = match plain_is_tagged {
            true => run(dir, PARHASH, &with(&["sum", "--tag", "-a", alg], &names)),
            false => run(dir, PARHASH, &with(&["sum", "-a", alg], &names)),
        };
        assert_eq!(ours.code, Some(0), "{}", ours.stderr);
        assert_eq!(ours.stdout_text(), theirs.stdout_text(), "{alg}");
        let theirs_tagged = run(dir, "xxhsum", &with(&["--tag", flag], &names));
        let ours_tagged = run(dir, PARHASH, &with(&["sum", "--tag", "-a", alg], &names));
        assert_eq!(
            ours_tagged.stdout_text(),
            theirs_tagged.stdout_text(),
            "{alg} --tag"
        );

        // Lists cross over: xxhsum's checked by parhash (-a for untagged lines, which say
        // only their length), ours by xxhsum.
        checks_ok(
            dir,
            PARHASH,
            &["check", "-a", alg],
            &theirs.stdout_text(),
            n,
        );
        checks_ok(dir, PARHASH, &["check"], &theirs_tagged.stdout_text(), n);
        checks_ok(dir, "xxhsum", &["-c"], &ours.stdout_text(), n);
        checks_ok(dir, "xxhsum", &["-c"], &ours_tagged.stdout_text(), n);
    }
    // 16 hex digits alone are XXH64's, as xxhsum -c (whose default is -H1) takes them.
    let h1 = run(dir, "xxhsum", &with(&["-H1"], &names));
    checks_ok(dir, PARHASH, &["check"], &h1.stdout_text(), n);
}

#[test]
fn checksums_and_a_hash_in_one_read_check_back() {
    let (dir, names) = fixture();
    let dir = dir.path();
    let algorithms = "sha256,crc32,crc32c,crc64nvme,xxh64,xxh3,xxh128";
    let out = run(dir, PARHASH, &with(&["sum", "-a", algorithms], &names));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let text = out.stdout_text();
    assert_eq!(text.lines().count(), 7 * names.len(), "{text}");
    for tag in [
        "SHA256",
        "CRC32",
        "CRC32C",
        "CRC64NVME",
        "XXH64",
        "XXH3",
        "XXH128",
    ] {
        let line = format!("{tag} (file 0) = ");
        assert!(text.contains(&line), "{line} in {text}");
    }
    // Each file's lines equal one algorithm at a time.
    for alg in algorithms.split(',') {
        let one = run(dir, PARHASH, &with(&["sum", "--tag", "-a", alg], &names));
        for line in one.stdout_text().lines() {
            assert!(text.contains(line), "{line} in {text}");
        }
    }
    checks_ok(dir, PARHASH, &["check"], &text, 7 * names.len());
    // The check values (CRC catalogue, xxhsum) of 123456789, the empty file's digest too.
    fs::write(dir.join("check"), b"123456789").unwrap();
    let check = run(
        dir,
        PARHASH,
        &["sum", "-a", "crc32,crc32c,crc64nvme", "check"],
    );
    assert_eq!(
        check.stdout_text(),
        "CRC32 (check) = cbf43926\nCRC32C (check) = e3069283\nCRC64NVME (check) = ae8b14860a799888\n"
    );
}

#[test]
fn help_and_list_say_the_checksums_are_not_cryptographic() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let words = parhash::AlgorithmInfo::NOT_CRYPTOGRAPHIC;
    for args in [&["--help"][..], &["sum", "--help"], &["check", "--help"]] {
        let help = run(dir, PARHASH, args).stdout_text();
        // Help wraps its lines: compare with single spaces.
        let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(words), "{args:?}: {help}");
    }
    let list = run(dir, PARHASH, &["list"]).stdout_text();
    for name in ["crc32", "crc32c", "crc64nvme", "xxh64", "xxh3", "xxh128"] {
        let line = list
            .lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} not listed:\n{list}"));
        assert!(line.contains(words), "{line}");
    }
    assert!(!list
        .lines()
        .any(|l| l.starts_with("sha256 ") && l.contains(words)));
}
