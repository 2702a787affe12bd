//! BLAKE2b, BLAKE2s, BLAKE3, SHAKE128 and SHAKE256 from the command line, byte for byte against
//! the tools people switch from: GNU `b2sum` and `cksum -a blake2b` (coreutils 9), `b3sum`, and
//! Python's `hashlib` where no tool exists (BLAKE2s, SHAKE). Output lengths (`-l`, in bits;
//! b3sum's `--length` in bytes), `--tag` lines, and check lists in both directions.
//!
//! A missing control tool skips its comparison with a printed reason; under CI (`CI` set, as
//! `.ci/run` does) it fails the test, so a green CI run has compared everything.

mod support;

use std::fs;
use std::path::Path;
use std::process::Command;

use support::{checks_ok, require_tool, run_in_locale, Run};

fn run(dir: &Path, program: &str, args: &[&str]) -> Run {
    run_in_locale(dir, "C.UTF-8", program, args, b"")
}

fn parhash(dir: &Path, args: &[&str]) -> Run {
    run(dir, env!("CARGO_BIN_EXE_parhash"), args)
}

/// Files of awkward names and lengths: empty, one byte, around BLAKE2's and BLAKE3's block
/// and chunk sizes, and one of several BLAKE3 pieces (1 MiB each), which parhash spreads over
/// threads. No carriage return in names: b3sum 1.2 does not escape it (coreutils 9 does).
fn fixture() -> (tempfile::TempDir, Vec<&'static str>) {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("abc", b"abc".to_vec()),
        ("with space", vec![7; 128]),
        ("new\nline", vec![9; 1025]),
        (
            "back\\slash",
            (0..5000u32).map(|i| (i % 251) as u8).collect(),
        ),
        (
            "pieces",
            (0..(3 << 20) + 4321u32).map(|i| (i % 253) as u8).collect(),
        ),
    ];
    for (name, data) in &files {
        fs::write(dir.path().join(name), data).unwrap();
    }
    (dir, files.into_iter().map(|(n, _)| n).collect())
}

/// The fixture, or None where a control of `tools` is missing ([`require_tool`]: the test
/// skips, or fails under CI).
fn fixture_for(tools: &[&str]) -> Option<(tempfile::TempDir, Vec<&'static str>)> {
    tools.iter().all(|tool| require_tool(tool)).then(fixture)
}

/// The fixture with only its names that need no escaping (no newline, no backslash), for
/// controls that print names as they are (Python's hashlib, `openssl dgst -r`), as
/// [`fixture_for`] gives it.
fn plain_fixture(tool: &str) -> Option<(tempfile::TempDir, Vec<&'static str>)> {
    let (dir, names) = fixture_for(&[tool])?;
    let plain = names
        .into_iter()
        .filter(|n| !n.contains(['\n', '\\']))
        .collect();
    Some((dir, plain))
}

/// Checks that `parhash sum -a ALGORITHM -l BITS` of `names` prints `expected`, a control's
/// lines, and that both those lines (with `-a`) and parhash's tagged list check clean.
/// Returns the tagged list.
fn sums_as_control(
    dir: &Path,
    algorithm: &str,
    bits: &str,
    names: &[&str],
    expected: &str,
) -> String {
    let ours = parhash(dir, &args(&["sum", "-a", algorithm, "-l", bits], names));
    assert_eq!(ours.code, Some(0), "{}", ours.stderr);
    // Not `assert_eq!`: the lines of a long digest would fill the report.
    assert!(
        ours.stdout_text() == expected,
        "{algorithm}, {bits} bits: parhash and the control differ"
    );
    checks_ok(
        dir,
        PARHASH,
        &["check", "-a", algorithm],
        expected,
        names.len(),
    );
    let tagged = parhash(
        dir,
        &args(&["sum", "--tag", "-a", algorithm, "-l", bits], names),
    );
    checks_ok(dir, PARHASH, &["check"], &tagged.stdout_text(), names.len());
    tagged.stdout_text()
}

fn args<'a>(prefix: &[&'a str], names: &[&'a str]) -> Vec<&'a str> {
    prefix.iter().chain(names).copied().collect()
}

const PARHASH: &str = env!("CARGO_BIN_EXE_parhash");

#[test]
fn blake2b_is_b2sum_and_cksum_byte_for_byte() {
    let Some((dir, names)) = fixture_for(&["b2sum", "cksum"]) else {
        return;
    };
    let dir = dir.path();
    for length in [None, Some("8"), Some("160"), Some("256"), Some("512")] {
        let l: Vec<&str> = length.map_or(vec![], |bits| vec!["-l", bits]);
        let ours = parhash(
            dir,
            &args(&[&["sum", "-a", "blake2b"], &l[..]].concat(), &names),
        );
        let b2sum = run(dir, "b2sum", &args(&l, &names));
        assert_eq!(ours.code, Some(0), "{}", ours.stderr);
        assert_eq!(ours.stdout_text(), b2sum.stdout_text(), "-l {length:?}");
        let tagged = parhash(
            dir,
            &args(&[&["sum", "--tag", "-a", "b2"], &l[..]].concat(), &names),
        );
        let b2sum_tagged = run(dir, "b2sum", &args(&[&["--tag"], &l[..]].concat(), &names));
        assert_eq!(
            tagged.stdout_text(),
            b2sum_tagged.stdout_text(),
            "--tag -l {length:?}"
        );
        // cksum -a blake2b writes tagged lines by default (`BLAKE2b-256 (NAME) = ...`).
        let cksum = run(
            dir,
            "cksum",
            &args(&[&["-a", "blake2b"], &l[..]].concat(), &names),
        );
        assert_eq!(
            tagged.stdout_text(),
            cksum.stdout_text(),
            "cksum -l {length:?}"
        );

        // Lists cross over: ours checked by b2sum and cksum, theirs by parhash.
        checks_ok(dir, "b2sum", &["-c"], &ours.stdout_text(), names.len());
        checks_ok(dir, "cksum", &["-c"], &tagged.stdout_text(), names.len());
        checks_ok(
            dir,
            PARHASH,
            &["check", "-a", "blake2b"],
            &b2sum.stdout_text(),
            names.len(),
        );
        checks_ok(dir, PARHASH, &["check"], &cksum.stdout_text(), names.len());
        checks_ok(
            dir,
            PARHASH,
            &["sum", "-c", "-a", "blake2b"],
            &ours.stdout_text(),
            names.len(),
        );
        // Each line says its length: -l is accepted and ignored when checking, as by b2sum.
        let ignored = ["check", "-a", "blake2b", "-l", "160"];
        checks_ok(dir, PARHASH, &ignored, &b2sum.stdout_text(), names.len());
        checks_ok(
            dir,
            "b2sum",
            &["-c", "-l", "160"],
            &b2sum.stdout_text(),
            names.len(),
        );
    }
}

#[test]
fn blake3_is_b3sum_byte_for_byte() {
    let Some((dir, names)) = fixture_for(&["b3sum"]) else {
        return;
    };
    let dir = dir.path();
    // b3sum's --length counts bytes, parhash's -l bits. Past 128 bytes (parhash's old limit)
    // and many 64-byte output blocks, up to 64 KiB.
    for (bits, bytes) in [
        (None, None),
        (Some("8"), Some("1")),
        (Some("512"), Some("64")),
        (Some("1024"), Some("128")),
        (Some("1032"), Some("129")),
        (Some("1600"), Some("200")),
        (Some("8000"), Some("1000")),
        (Some("524288"), Some("65536")),
    ] {
        let b3: Vec<&str> = bytes.map_or(vec![], |n| vec!["--length", n]);
        let expected = run(dir, "b3sum", &args(&b3, &names));
        assert_eq!(expected.code, Some(0), "{}", expected.stderr);
        for threads in ["1", "2", "0"] {
            let l: Vec<&str> = bits.map_or(vec![], |n| vec!["-l", n]);
            let prefix = [&["sum", "-a", "blake3", "-j", threads], &l[..]].concat();
            let ours = parhash(dir, &args(&prefix, &names));
            assert_eq!(ours.code, Some(0), "{}", ours.stderr);
            assert_eq!(
                ours.stdout_text(),
                expected.stdout_text(),
                "-l {bits:?}, -j {threads}"
            );
        }
        // parhash checks b3sum's lists of any length.
        checks_ok(
            dir,
            PARHASH,
            &["check", "-a", "blake3"],
            &expected.stdout_text(),
            names.len(),
        );
        // A tagged list names the algorithm and the length.
        let l: Vec<&str> = bits.map_or(vec![], |n| vec!["-l", n]);
        let tagged = parhash(
            dir,
            &args(&[&["sum", "--tag", "-a", "b3"], &l[..]].concat(), &names),
        );
        checks_ok(dir, PARHASH, &["check"], &tagged.stdout_text(), names.len());
        // JSON Lines carry the same digests.
        let json = parhash(
            dir,
            &args(
                &[&["sum", "--json", "-a", "blake3"], &l[..]].concat(),
                &names,
            ),
        );
        assert_eq!(json_digests(&json.stdout_text()), hex_column(&expected));
    }
    // b3sum -c reads parhash's lists (it takes only 32-byte digests).
    let ours = parhash(dir, &args(&["sum", "-a", "blake3"], &names));
    checks_ok(dir, "b3sum", &["-c"], &ours.stdout_text(), names.len());
    // Standard input too, in pieces over threads.
    let data = fs::read(dir.join("pieces")).unwrap();
    let piped = Command::new("sh")
        .args([
            "-c",
            &format!("{PARHASH} sum -a blake3 -j 2 - < pieces; b3sum - < pieces"),
        ])
        .current_dir(dir)
        .output()
        .unwrap();
    let text = String::from_utf8(piped.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0], lines[1]);
    assert_eq!(data.len(), (3 << 20) + 4321);
}

/// The `digest` field of each `sum --json` line.
fn json_digests(lines: &str) -> Vec<String> {
    lines
        .lines()
        .map(|line| {
            let object: serde_json::Value = serde_json::from_str(line).unwrap();
            object["digest"].as_str().expect("a digest").to_string()
        })
        .collect()
}

/// The digest column of `HEX  NAME` lines (a leading `\` marks an escaped name).
fn hex_column(run: &Run) -> Vec<String> {
    run.stdout_text()
        .lines()
        .map(|line| {
            let line = line.strip_prefix('\\').unwrap_or(line);
            line.split(' ').next().unwrap().to_string()
        })
        .collect()
}

/// `hashlib.NAME(data[, digest_size]).hexdigest([length])` of each file, as `HEX  NAME` lines.
fn python_lines(dir: &Path, algorithm: &str, bytes: usize, names: &[&str]) -> String {
    let python = algorithm.replace("shake", "shake_");
    let script = format!(
        "import hashlib, sys\n\
         for name in sys.argv[1:]:\n\
         \x20   data = open(name, 'rb').read()\n\
         \x20   if '{algorithm}'.startswith('shake'):\n\
         \x20       digest = hashlib.{python}(data).hexdigest({bytes})\n\
         \x20   else:\n\
         \x20       digest = hashlib.{python}(data, digest_size={bytes}).hexdigest()\n\
         \x20   print(digest + '  ' + name)\n"
    );
    let out = run(dir, "python3", &args(&["-c", &script], names));
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    out.stdout_text()
}

#[test]
fn blake2s_and_shake_are_pythons_hashlib() {
    let Some((dir, names)) = plain_fixture("python3") else {
        return;
    };
    let dir = dir.path();
    for (algorithm, default_bytes, lengths) in [
        ("blake2s", 32, &[32][..]),
        // Past 128 bytes (parhash's old limit), SHAKE's rates (168 and 136 bytes), to 64 KiB.
        ("shake128", 32, &[128, 129, 200, 1000, 65_536]),
        ("shake256", 64, &[128, 129, 200, 1000, 65_536]),
    ] {
        for &bytes in [1, 20, default_bytes].iter().chain(lengths) {
            let bits = (bytes * 8).to_string();
            let expected = python_lines(dir, algorithm, bytes, &names);
            // Round trips too: tagged (the tag names the length) and plain with -a.
            let tagged = sums_as_control(dir, algorithm, &bits, &names, &expected);
            if bytes == default_bytes {
                let plain = parhash(dir, &args(&["sum", "-a", algorithm], &names));
                assert_eq!(plain.stdout_text(), expected, "{algorithm} default length");
            }
            let tag = tagged.split(" (").next().unwrap().to_string();
            let upper = algorithm.to_uppercase().replace("BLAKE2S", "BLAKE2s");
            let expected_tag = if bytes == default_bytes {
                upper
            } else {
                format!("{upper}-{bits}")
            };
            assert_eq!(tag, expected_tag);
        }
    }
}

/// `openssl dgst -shakeN -xoflen BYTES -r` of each file, as `HEX  NAME` lines.
fn openssl_lines(dir: &Path, algorithm: &str, bytes: usize, names: &[&str]) -> String {
    let flag = format!("-{algorithm}");
    let length = bytes.to_string();
    let out = run(
        dir,
        "openssl",
        &args(&["dgst", &flag, "-xoflen", &length, "-r"], names),
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    // `-r` writes `HEX *NAME`, coreutils' binary-mode marker.
    out.stdout_text().replace(" *", "  ")
}

#[test]
fn shake_of_any_length_is_openssls() {
    let Some((dir, names)) = plain_fixture("openssl") else {
        return;
    };
    let dir = dir.path();
    for algorithm in ["shake128", "shake256"] {
        for bytes in [129, 200, 1000, 65_536, 1 << 20] {
            let expected = openssl_lines(dir, algorithm, bytes, &names);
            let bits = (bytes * 8).to_string();
            // OpenSSL's list checks with -a; the tagged list without.
            sums_as_control(dir, algorithm, &bits, &names, &expected);
        }
    }
}

#[test]
fn a_wrong_long_digest_fails_its_check() {
    let Some((dir, names)) = fixture_for(&["b3sum"]) else {
        return;
    };
    let dir = dir.path();
    let list = run(dir, "b3sum", &args(&["--length", "1000"], &names)).stdout_text();
    // The last hex digit of the first line changed: that line fails, the others pass.
    let digits = list.find("  ").unwrap();
    let mut damaged = list.clone().into_bytes();
    damaged[digits - 1] = if damaged[digits - 1] == b'0' {
        b'1'
    } else {
        b'0'
    };
    fs::write(dir.join("list"), &damaged).unwrap();
    let out = parhash(dir, &["check", "-a", "blake3", "list"]);
    assert_eq!(out.code, Some(1), "{}", out.stdout_text());
    assert_eq!(out.stdout_text().matches(": FAILED").count(), 1);
    assert_eq!(out.stdout_text().matches(": OK").count(), names.len() - 1);
}

#[test]
fn length_errors_are_usage_errors_that_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    for (args, says) in [
        (&["sum", "-a", "blake2b", "-l", "7"][..], "multiple of 8"),
        (
            &["sum", "-a", "blake2b", "-l", "520"],
            "blake2b digests are 8 to 512 bits",
        ),
        (
            &["sum", "-a", "blake3", "-l", "8388616"],
            "blake3 digests are 8 to 8388608 bits (1 MiB)",
        ),
        (
            // A gigabyte of output: refused with the limit, not attempted.
            &["sum", "-a", "shake128", "-l", "8000000000"],
            "shake128 digests are 8 to 8388608 bits (1 MiB)",
        ),
        (
            &["sum", "-a", "blake3", "-l", "99999999999999999999999"],
            "99999999999999999999999 bits is too long: digests are at most 8388608 bits",
        ),
        (
            &["sum", "-a", "sha256", "-l", "128"],
            "sha256 digests are always 256 bits; -l applies to blake2b",
        ),
        (
            &["sum", "-l", "256"],
            "-l needs -a: it sets the digest length of blake2b",
        ),
        (
            &["check", "-a", "blake2s", "-l", "512"],
            "blake2s digests are 8 to 256 bits",
        ),
        (&["sum", "-a", "blake2b", "-l", "x"], "a number of bits"),
    ] {
        let out = parhash(dir, args);
        // A usage error of sum or check exits 1, as coreutils' tools do (docs/cli.md, "Exit
        // status").
        assert_eq!(out.code, Some(1), "{args:?}");
        assert!(out.stderr.contains(says), "{args:?}: {}", out.stderr);
    }
    // b2sum's spellings are names here; near misses are suggested.
    let out = parhash(dir, &["sum", "-a", "b2sm"]);
    out.fails_in_one_line(1, "did you mean 'blake2b'?");
}

#[test]
fn blake3_keyed_and_derive_key_are_b3sums() {
    let Some((dir, names)) = fixture_for(&["b3sum"]) else {
        return;
    };
    let dir = dir.path();
    let key = b"whats the Elvish word for friend";
    let keyed = |program: &str, args: &[&str], stdin: &[u8]| {
        run_in_locale(dir, "C.UTF-8", program, args, stdin)
    };
    // --keyed: the 32-byte key on standard input, files as arguments; -j 1 and all cores (the
    // 3 MiB file is several 1 MiB pieces hashed on threads and merged in keyed mode).
    let expected = keyed("b3sum", &args(&["--keyed"], &names), key);
    assert_eq!(expected.code, Some(0), "{}", expected.stderr);
    for threads in ["1", "0"] {
        let prefix = ["sum", "-a", "blake3", "--keyed", "-j", threads];
        let ours = keyed(PARHASH, &args(&prefix, &names), key);
        assert_eq!(ours.code, Some(0), "{}", ours.stderr);
        assert_eq!(ours.stdout_text(), expected.stdout_text(), "-j {threads}");
    }
    // b3sum's keyed list checks with the key.
    fs::write(dir.join("list"), expected.stdout_text()).unwrap();
    let checked = keyed(PARHASH, &["check", "-a", "blake3", "--keyed", "list"], key);
    assert_eq!(checked.code, Some(0), "{}", checked.stderr);
    // --derive-key CONTEXT, with a longer output too.
    let context = "parhash 2026-11-27 derive-key test";
    for (bits, bytes) in [(None, None), (Some("800"), Some("100"))] {
        let b3: Vec<&str> = bytes.map_or(vec![], |n| vec!["--length", n]);
        let b3 = [&["--derive-key", context], &b3[..]].concat();
        let expected = run(dir, "b3sum", &args(&b3, &names));
        assert_eq!(expected.code, Some(0), "{}", expected.stderr);
        let l: Vec<&str> = bits.map_or(vec![], |n| vec!["-l", n]);
        let prefix = [&["sum", "-a", "blake3", "--derive-key", context], &l[..]].concat();
        let ours = parhash(dir, &args(&prefix, &names));
        assert_eq!(ours.code, Some(0), "{}", ours.stderr);
        assert_eq!(ours.stdout_text(), expected.stdout_text(), "-l {bits:?}");
    }
    // Usage errors, one line each: another algorithm, a key of another length, stdin twice.
    for (argv, stdin, says) in [
        (
            &["sum", "-a", "sha256", "--keyed", "abc"][..],
            &key[..],
            "-a blake3",
        ),
        (
            &["sum", "--derive-key", "x", "abc"][..],
            &b""[..],
            "-a blake3",
        ),
        (
            &["sum", "-a", "blake3", "--keyed", "abc"][..],
            &key[..31],
            "exactly 32 bytes",
        ),
        (
            &["sum", "-a", "blake3", "--keyed", "abc"][..],
            &[key, &b"!"[..]].concat()[..],
            "exactly 32",
        ),
        (
            &["sum", "-a", "blake3", "--keyed"][..],
            &key[..],
            "name the files",
        ),
        (
            &["sum", "-a", "blake3", "--keyed", "--derive-key", "x", "abc"][..],
            &key[..],
            "cannot be used",
        ),
    ] {
        let out = keyed(PARHASH, argv, stdin);
        assert_eq!(out.code, Some(1), "{argv:?}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{argv:?}: {}", out.stderr);
    }
}
