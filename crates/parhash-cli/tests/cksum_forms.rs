//! coreutils `cksum`'s forms in `parhash sum` and `check`: the legacy checksums (`-a crc`,
//! `sysv`, `bsd`) against coreutils' own `cksum -a`, `cksum`, `sum -s` and `sum -r` (9.1 has
//! them all) at random lengths; `--base64`, `--raw` and `--untagged` (coreutils 9.2, newer
//! than the controls here) against digests Python computes (`hashlib`, `zlib`, `base64`);
//! `check` reading base64 digests that parhash and Python wrote; the refusals in coreutils'
//! words.

use std::fs;
use std::path::Path;

mod support;
use support::{require_tool, run_in_locale, Rng, Run};

const LEGACY: [&str; 3] = ["crc", "sysv", "bsd"];

fn parhash(dir: &Path, args: &[&str], stdin: &[u8]) -> Run {
    run_in_locale(dir, "C", env!("CARGO_BIN_EXE_parhash"), args, stdin)
}

fn tool(dir: &Path, program: &str, args: &[&str], stdin: &[u8]) -> Run {
    let run = run_in_locale(dir, "C", program, args, stdin);
    assert_eq!(run.code, Some(0), "{program} {args:?}: {run:?}");
    run
}

/// Files of lengths around the block sizes (512, 1024), the bytes a length takes in
/// `cksum`'s CRC (255, 256, 65536) and the sums' wrap-arounds, and random ones; their names.
fn fixture(dir: &Path, seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    let mut lengths = vec![
        0, 1, 9, 255, 256, 511, 512, 513, 1023, 1024, 1025, 65535, 65536,
    ];
    lengths.extend((0..12).map(|_| rng.below(300_000) as usize));
    lengths
        .iter()
        .enumerate()
        .map(|(i, &len)| {
            let name = format!("f{i}");
            let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            fs::write(dir.join(&name), data).unwrap();
            name
        })
        .collect()
}

/// The single-purpose tool that prints what `cksum -a ALG` prints.
fn classic_tool(alg: &str) -> (&'static str, &'static [&'static str]) {
    match alg {
        "crc" => ("cksum", &[]),
        "sysv" => ("sum", &["-s"]),
        _ => ("sum", &["-r"]),
    }
}

#[test]
fn legacy_checksums_print_what_cksum_and_sum_print() {
    if !require_tool("cksum") || !require_tool("sum") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let names = fixture(dir.path(), 0x5eed_c0de);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    for alg in LEGACY {
        let with_a = [&["-a", alg][..], &names[..]].concat();
        let ours = parhash(dir.path(), &[&["sum"][..], &with_a[..]].concat(), b"");
        assert_eq!(ours.code, Some(0), "{alg}: {ours:?}");
        let control = tool(dir.path(), "cksum", &with_a, b"");
        assert_eq!(ours.stdout_text(), control.stdout_text(), "cksum -a {alg}");
        let (program, flags) = classic_tool(alg);
        let classic = tool(dir.path(), program, &[flags, &names[..]].concat(), b"");
        assert_eq!(
            ours.stdout_text(),
            classic.stdout_text(),
            "{program} {flags:?}"
        );
        assert_cksum_flags_change_nothing(dir.path(), &with_a, &ours.stdout);
        // -z ends lines with NUL.
        let zero = parhash(dir.path(), &[&["sum", "-z"][..], &with_a[..]].concat(), b"");
        let control = tool(
            dir.path(),
            "cksum",
            &[&["-z"][..], &with_a[..]].concat(),
            b"",
        );
        assert_eq!(zero.stdout, control.stdout, "-z -a {alg}");
        // Standard input: no name without operands, `-` when it is named.
        let data = fs::read(dir.path().join(names[5])).unwrap();
        for operands in [&[][..], &["-"]] {
            let args = [&["-a", alg][..], operands].concat();
            let ours = parhash(dir.path(), &[&["sum"][..], &args].concat(), &data);
            let control = tool(dir.path(), "cksum", &args, &data);
            assert_eq!(ours.stdout_text(), control.stdout_text(), "{args:?} < data");
        }
    }
}

/// `--tag`, `--untagged`, `-b` and `--base64` change nothing in a legacy checksum's lines, as
/// in `cksum`: `parhash sum FLAG ARGS` prints `expected`.
fn assert_cksum_flags_change_nothing(dir: &Path, args: &[&str], expected: &[u8]) {
    for extra in [&["--tag"][..], &["--untagged"], &["-b"], &["--base64"]] {
        let args = [&["sum"][..], extra, args].concat();
        assert_eq!(parhash(dir, &args, b"").stdout, expected, "{args:?}");
    }
}

/// Runs `python3 -c CODE ARGS` in `dir`: the independent control of digests and encodings.
fn python(dir: &Path, code: &str, args: &[&str]) -> Vec<u8> {
    tool(dir, "python3", &[&["-c", code][..], args].concat(), b"").stdout
}

/// Python's digest of a file for `parhash`'s algorithm name, as raw bytes on standard output.
const PY_DIGEST: &str = "import sys, hashlib, zlib, struct
alg, path = sys.argv[1], sys.argv[2]
data = open(path, 'rb').read()
if alg == 'crc32':
    out = struct.pack('>I', zlib.crc32(data))
else:
    out = hashlib.new(alg, data).digest()
sys.stdout.buffer.write(out)";

/// Python's base64 of the raw digest (`PY_DIGEST`'s), as text.
const PY_BASE64: &str = "import sys, base64
sys.stdout.write(base64.b64encode(open(sys.argv[1], 'rb').read()).decode())";

const HASHES: [(&str, &str); 6] = [
    ("md5", "MD5"),
    ("sha1", "SHA1"),
    ("sha256", "SHA256"),
    ("sha512", "SHA512"),
    ("blake2b", "BLAKE2b"),
    ("crc32", "CRC32"),
];

#[test]
fn raw_and_base64_digests_are_pythons() {
    if !require_tool("python3") || !require_tool("cksum") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let names = fixture(dir.path(), 0xba5e_0064);
    let mut rng = Rng(7);
    for _ in 0..6 {
        let name = names[rng.below(names.len() as u64) as usize].as_str();
        for (alg, tag) in HASHES {
            let raw = parhash(dir.path(), &["sum", "--raw", "-a", alg, name], b"");
            assert_eq!(raw.code, Some(0), "{alg}: {raw:?}");
            let expected = python(dir.path(), PY_DIGEST, &[alg, name]);
            assert_eq!(raw.stdout, expected, "--raw -a {alg} {name}");
            // From standard input too.
            let data = fs::read(dir.path().join(name)).unwrap();
            let piped = parhash(dir.path(), &["sum", "--raw", "-a", alg], &data);
            assert_eq!(piped.stdout, expected, "--raw -a {alg} < {name}");

            fs::write(dir.path().join("digest"), &expected).unwrap();
            let b64 = String::from_utf8(python(dir.path(), PY_BASE64, &["digest"])).unwrap();
            let gnu = parhash(dir.path(), &["sum", "--base64", "-a", alg, name], b"");
            assert_eq!(gnu.stdout_text(), format!("{b64}  {name}\n"), "{alg}");
            let bsd = parhash(
                dir.path(),
                &["sum", "--base64", "--tag", "-a", alg, name],
                b"",
            );
            assert_eq!(bsd.stdout_text(), format!("{tag} ({name}) = {b64}\n"));
        }
        // The legacy checksums' raw form is the checksum alone, big-endian, as coreutils
        // prints it in decimal.
        for alg in LEGACY {
            let raw = parhash(dir.path(), &["sum", "--raw", "-a", alg, name], b"");
            let printed = tool(dir.path(), "cksum", &["-a", alg, name], b"").stdout_text();
            let value: u64 = printed.split_whitespace().next().unwrap().parse().unwrap();
            let width = if alg == "crc" { 4 } else { 2 };
            assert_eq!(
                raw.stdout,
                value.to_be_bytes()[8 - width..],
                "--raw -a {alg}"
            );
        }
    }
}

#[test]
fn untagged_gives_gnu_lines_and_the_last_of_tag_and_untagged_wins() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), "abc").unwrap();
    let md5 = "900150983cd24fb0d6963f7d28e17f72";
    let sha1 = "a9993e364706816aba3e25717850c26c9cd0d89d";
    let gnu = format!("{md5}  f\n{sha1}  f\n");
    let bsd = format!("MD5 (f) = {md5}\nSHA1 (f) = {sha1}\n");
    for (flags, expected) in [
        (&[][..], &bsd),
        (&["--untagged"], &gnu),
        (&["--tag", "--untagged"], &gnu),
        (&["--untagged", "--tag"], &bsd),
    ] {
        let args = [&["sum", "-a", "md5,sha1"][..], flags, &["f"]].concat();
        let run = parhash(dir.path(), &args, b"");
        assert_eq!(&run.stdout_text(), expected, "{flags:?}");
    }
    let one = parhash(dir.path(), &["sum", "--untagged", "-a", "md5", "f"], b"");
    assert_eq!(one.stdout_text(), format!("{md5}  f\n"));
}

/// Python's tagged base64 line for `parhash`'s algorithm: `TAG (NAME) = BASE64`.
const PY_LINE: &str = "import sys, hashlib, base64, zlib
alg, tag, path = sys.argv[1:4]
data = open(path, 'rb').read()
d = zlib.crc32(data).to_bytes(4, 'big') if alg == 'crc32' else hashlib.new(alg, data).digest()
sys.stdout.write('%s (%s) = %s\\n' % (tag, path, base64.b64encode(d).decode()))";

#[test]
fn check_reads_base64_digests_from_parhash_and_python() {
    if !require_tool("python3") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let names = fixture(dir.path(), 0x0c4e_cb64);
    let names: Vec<&str> = names.iter().take(8).map(String::as_str).collect();
    // CRC-32's 8 base64 characters are as many as its hex digits: read as base64 all the same.
    for (alg, tag) in HASHES {
        // parhash's own lines.
        let args = [&["sum", "--base64", "--tag", "-a", alg][..], &names[..]].concat();
        let list = parhash(dir.path(), &args, b"").stdout;
        let check = parhash(dir.path(), &["check", "--strict"], &list);
        assert_eq!(check.code, Some(0), "{alg}: {check:?}");
        assert_eq!(check.stdout_text().matches(": OK\n").count(), names.len());
        // Python's, checked with and without -a.
        let mut python_list = Vec::new();
        for name in &names {
            python_list.extend(python(dir.path(), PY_LINE, &[alg, tag, name]));
        }
        for args in [
            &["check", "--strict"][..],
            &["check", "--strict", "-a", alg],
        ] {
            let check = parhash(dir.path(), args, &python_list);
            assert_eq!(check.code, Some(0), "{alg} {args:?}: {check:?}");
        }
        // A digest of another file fails; the padding cut away is no digest at all.
        let text = String::from_utf8(python_list.clone()).unwrap();
        let first = text.lines().next().unwrap();
        let second_digest = text.lines().nth(1).unwrap().rsplit(' ').next().unwrap();
        let swapped = format!(
            "{} = {second_digest}\n",
            first.rsplit_once(" = ").unwrap().0
        );
        let check = parhash(dir.path(), &["check"], swapped.as_bytes());
        assert_eq!(check.code, Some(1), "{alg}: {check:?}");
        assert!(check.stdout_text().ends_with(": FAILED\n"), "{check:?}");
        if first.ends_with('=') {
            let unpadded = format!("{}\n", first.trim_end_matches('='));
            let check = parhash(dir.path(), &["check"], unpadded.as_bytes());
            assert_eq!(check.code, Some(1));
            assert!(
                check
                    .stderr
                    .contains("no properly formatted checksum lines found"),
                "{check:?}"
            );
        }
    }
}

#[test]
fn refusals_in_coreutils_words() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), "abc").unwrap();
    let refused = |args: &[&str], message: &str| {
        let run = parhash(dir.path(), args, b"");
        assert_eq!(run.code, Some(1), "{args:?}: {run:?}");
        assert!(run.stdout.is_empty(), "{args:?}: {run:?}");
        assert!(
            run.stderr.starts_with(&format!("parhash: {message}\n")),
            "{args:?}: {run:?}"
        );
    };
    refused(
        &["sum", "--raw", "f", "f"],
        "the --raw option is not supported with multiple files",
    );
    refused(
        &["sum", "--raw", "--base64", "f"],
        "--base64 and --raw are mutually exclusive",
    );
    refused(
        &["sum", "--raw", "-a", "md5,sha1", "f"],
        "--raw takes one algorithm",
    );
    let not_checked = "--check is not supported with --algorithm={bsd,sysv,crc}";
    for alg in LEGACY {
        refused(&["check", "-a", alg, "f"], not_checked);
        refused(&["sum", "-c", "-a", alg, "f"], not_checked);
    }
    // cksum says the same.
    if require_tool("cksum") {
        for alg in LEGACY {
            let run = run_in_locale(dir.path(), "C", "cksum", &["-c", "-a", alg, "f"], b"");
            assert_eq!(run.code, Some(1));
            assert_eq!(run.stderr, format!("cksum: {not_checked}\n"));
        }
    }
    // A legacy line, tagged or not, is no checksum line, as for `cksum -c`.
    for alg in LEGACY {
        let list = parhash(dir.path(), &["sum", "-a", alg, "f"], b"").stdout;
        let check = parhash(dir.path(), &["check"], &list);
        assert_eq!(check.code, Some(1), "{alg}: {check:?}");
        assert!(check
            .stderr
            .contains("no properly formatted checksum lines found"));
    }
    for line in [
        "CRC (f) = 00000000\n",
        "SYSV (f) = 0000\n",
        "BSD (f) = 0000\n",
    ] {
        let check = parhash(dir.path(), &["check"], line.as_bytes());
        assert_eq!(check.code, Some(1), "{line}: {check:?}");
    }
    // --raw is for one output stream of one digest.
    for conflicting in [&["--json"][..], &["-r"], &["--lists", "."], &["-o", "L"]] {
        let args = [&["sum", "--raw"][..], conflicting, &["f"]].concat();
        let run = parhash(dir.path(), &args, b"");
        assert_eq!(run.code, Some(1), "{args:?}: {run:?}");
    }
}

/// Python's `cksum -a crc32b` lines (coreutils 9.6, newer than the `cksum` here): zlib's
/// CRC-32 in decimal, the byte count, the name.
const PY_CRC32B: &str = "import sys, zlib
for path in sys.argv[1:]:
    data = open(path, 'rb').read()
    sys.stdout.write('%d %d %s\\n' % (zlib.crc32(data), len(data), path))";

#[test]
fn crc32b_prints_what_cksum_9_6_prints() {
    if !require_tool("python3") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let names = fixture(dir.path(), 0xc3c3_2b2b);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let with_a = [&["-a", "crc32b"][..], &names[..]].concat();
    let ours = parhash(dir.path(), &[&["sum"][..], &with_a[..]].concat(), b"");
    assert_eq!(ours.code, Some(0), "{ours:?}");
    assert_eq!(ours.stdout, python(dir.path(), PY_CRC32B, &names));
    assert_cksum_flags_change_nothing(dir.path(), &with_a, &ours.stdout);
    // The check value (CRC-32/ISO-HDLC of `123456789`, 0xCBF43926), from standard input: no
    // name without operands, `-` when named; --raw the CRC alone, big-endian; -z a NUL.
    let check = b"123456789";
    let run = |args: &[&str]| {
        parhash(
            dir.path(),
            &[&["sum", "-a", "crc32b"][..], args].concat(),
            check,
        )
    };
    assert_eq!(run(&[]).stdout_text(), "3421780262 9\n");
    assert_eq!(run(&["-"]).stdout_text(), "3421780262 9 -\n");
    assert_eq!(run(&["-z", "-"]).stdout, b"3421780262 9 -\0");
    assert_eq!(run(&["--raw"]).stdout, 0xCBF4_3926u32.to_be_bytes());
    // crc32 stays zlib's CRC-32 in hex, as S3 and the CRC tools show it.
    let hex = parhash(dir.path(), &["sum", "-a", "crc32"], check);
    assert_eq!(hex.stdout_text(), "cbf43926  -\n");
    // `cksum -c` 9.6 refuses it, in these words; its lines are no checksum lines.
    let refused = parhash(dir.path(), &["check", "-a", "crc32b", names[0]], b"");
    assert_eq!(refused.code, Some(1), "{refused:?}");
    assert!(
        refused.stderr.starts_with(
            "parhash: --check is not supported with --algorithm={bsd,sysv,crc,crc32b}\n"
        ),
        "{refused:?}"
    );
    let check = parhash(dir.path(), &["check"], &ours.stdout);
    assert_eq!(check.code, Some(1), "{check:?}");
    assert!(check
        .stderr
        .contains("no properly formatted checksum lines found"));
    let tagged = parhash(dir.path(), &["check"], b"CRC32B (f0) = cbf43926\n");
    assert_eq!(tagged.code, Some(1), "{tagged:?}");
}
