//! Object stores' multipart checksums from the command line (`sum --etag`, `sum --composite`,
//! `--part-size`, `--match`, and `check` finding the part size), against an independent
//! computation: Python's `hashlib`, `zlib` and a bitwise CRC-32C written in the control
//! script itself. Files of random sizes (the seed is printed), an empty file, one smaller than
//! a part, exactly one part, a last part of one byte.
//!
//! A missing `python3` skips the comparisons with a printed reason; under CI (`CI` set) it
//! fails the test.

mod support;

use std::fs;
use std::path::Path;

use support::{require_tool, run_in_locale, Rng, Run};

const PARHASH: &str = env!("CARGO_BIN_EXE_parhash");
const MIB: u64 = 1 << 20;

fn parhash(dir: &Path, args: &[&str]) -> Run {
    run_in_locale(dir, "C.UTF-8", PARHASH, args, b"")
}

/// The control: for each `FILE FORM PART_SIZE` triple, the value S3 shows (`hex-N` for
/// `etag`, `base64-N` for an algorithm's composite checksum; part size 0: the plain MD5).
const CONTROL: &str = r#"
import base64, hashlib, sys, zlib

def crc32c(data):
    crc = 0xFFFFFFFF
    table = crc32c.table
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return (crc ^ 0xFFFFFFFF).to_bytes(4, "big")

crc32c.table = []
for n in range(256):
    c = n
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    crc32c.table.append(c)

def digest(alg, data):
    if alg == "crc32":
        return zlib.crc32(data).to_bytes(4, "big")
    if alg == "crc32c":
        return crc32c(data)
    return hashlib.new(alg, data).digest()

args = sys.argv[1:]
for path, form, size in zip(args[0::3], args[1::3], args[2::3]):
    data = open(path, "rb").read()
    size = int(size)
    if size == 0:
        print(hashlib.md5(data).hexdigest())
        continue
    parts = [data[i:i + size] for i in range(0, len(data), size)] or [b""]
    alg = "md5" if form == "etag" else form
    combined = digest(alg, b"".join(digest(alg, part) for part in parts))
    text = combined.hex() if form == "etag" else base64.b64encode(combined).decode()
    print(f"{text}-{len(parts)}")
"#;

/// The control's values for `(file, form, part size)`, in order.
fn control(dir: &Path, asks: &[(&str, &str, u64)]) -> Vec<String> {
    let sizes: Vec<String> = asks.iter().map(|a| a.2.to_string()).collect();
    let mut args = vec!["-c", CONTROL];
    for ((file, form, _), size) in asks.iter().zip(&sizes) {
        args.extend([*file, *form, size.as_str()]);
    }
    let out = run_in_locale(dir, "C.UTF-8", "python3", &args, b"");
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    out.stdout_text().lines().map(str::to_string).collect()
}

/// Writes `len` pseudo-random bytes to `dir/name`.
fn write_file(dir: &Path, name: &str, len: u64, rng: &mut Rng) {
    let mut data = Vec::with_capacity(len as usize + 8);
    while (data.len() as u64) < len {
        data.extend_from_slice(&rng.next().to_le_bytes());
    }
    data.truncate(len as usize);
    fs::write(dir.join(name), data).unwrap();
}

/// A seeded generator and an empty directory; `None` (the test skipped, failed under CI)
/// without the control.
fn with_control() -> Option<(Rng, tempfile::TempDir)> {
    require_tool("python3").then(|| (seeded(), tempfile::tempdir().unwrap()))
}

/// The [`fixture`]'s files: each name and size.
type Files = Vec<(String, u64)>;

/// [`with_control`] with the [`fixture`]'s files written in the directory.
fn fixture_with_control() -> Option<(Rng, tempfile::TempDir, Files)> {
    let (mut rng, dir) = with_control()?;
    let files = fixture(dir.path(), &mut rng);
    Some((rng, dir, files))
}

/// Asserts that standard error says `text`.
fn says(out: &Run, text: &str) {
    assert!(out.stderr.contains(text), "{text}: {}", out.stderr);
}

fn seeded() -> Rng {
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("seed {seed}");
    Rng(seed)
}

/// The files: empty, smaller than a part, exactly one 5 MiB part, two parts and a last one
/// of one byte, and two of random sizes up to 21 MiB.
fn fixture(dir: &Path, rng: &mut Rng) -> Vec<(String, u64)> {
    let mut files = vec![
        ("empty".to_string(), 0),
        ("small".to_string(), 1000 + rng.below(4000)),
        ("one part".to_string(), 5 * MIB),
        ("last byte".to_string(), 10 * MIB + 1),
    ];
    for n in 0..2 {
        files.push((format!("random {n}"), rng.below(21 * MIB) + 1));
    }
    for (name, len) in &files {
        write_file(dir, name, *len, rng);
    }
    files
}

/// `sum`'s line for `name`: `TAG (name) = VALUE`.
fn line(tag: &str, name: &str, value: &str) -> String {
    format!("{tag} ({name}) = {value}\n")
}

#[test]
fn etags_and_composites_and_their_json_match_the_control_for_several_part_sizes() {
    let Some((mut rng, dir, files)) = fixture_with_control() else {
        return;
    };
    let dir = dir.path();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    let sizes = [5 * MIB, 8 * MIB, 5 * MIB + 1 + rng.below(4 * MIB)];
    let size_list = sizes.map(|s| s.to_string()).join(",");

    let mut args = vec!["sum", "--etag", "--part-size", size_list.as_str()];
    args.extend(&names);
    let out = parhash(dir, &args);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let asks: Vec<(&str, &str, u64)> = (names.iter())
        .flat_map(|&name| sizes.map(|size| (name, "etag", size)))
        .collect();
    let expected: String = (asks.iter().zip(control(dir, &asks)))
        .map(|((name, _, _), value)| line("ETAG", name, &value))
        .collect();
    assert_eq!(out.stdout_text(), expected);

    // Every composite algorithm, from one read, after the ETag.
    let two = "8MiB,5MiB";
    let mut args = vec!["sum", "--etag", "--composite", "-a", "sha1,sha256,crc32"];
    args.extend(["--part-size", two]);
    args.extend(&names);
    let out = parhash(dir, &args);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let forms = [
        ("etag", "ETAG"),
        ("sha1", "SHA1-COMPOSITE"),
        ("sha256", "SHA256-COMPOSITE"),
        ("crc32", "CRC32-COMPOSITE"),
    ];
    let mut asks = Vec::new();
    for &name in &names {
        for (form, _) in forms {
            asks.extend([(name, form, 8 * MIB), (name, form, 5 * MIB)]);
        }
    }
    let values = control(dir, &asks);
    let expected: String = (asks.iter().zip(&values))
        .map(|((name, form, _), value)| {
            let tag = forms.iter().find(|f| f.0 == *form).unwrap().1;
            line(tag, name, value)
        })
        .collect();
    assert_eq!(out.stdout_text(), expected);

    // The same values as --json records, a missing file's error once per form and size.
    let mut args = vec!["sum", "--json", "--etag", "--composite", "-a", "crc32,sha1"];
    args.extend(["--part-size", size_list.as_str()]);
    args.extend(&names);
    args.push("missing");
    let out = parhash(dir, &args);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    says(&out, "missing: No such file or directory");
    let records: Vec<serde_json::Value> = (out.stdout_text().lines())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let forms = [
        ("etag", "md5"),
        ("composite", "crc32"),
        ("composite", "sha1"),
    ];
    let mut asks = Vec::new();
    for &name in &names {
        for (form, algorithm) in forms {
            let control_form = if form == "etag" { "etag" } else { algorithm };
            asks.extend(sizes.map(|size| (name, control_form, size)));
        }
    }
    let values = control(dir, &asks);
    // Each file's records in the plain lines' order, then the missing file's, one per form
    // and size.
    assert_eq!(records.len(), asks.len() + forms.len() * sizes.len());
    for (n, ((name, control_form, size), value)) in asks.iter().zip(&values).enumerate() {
        let (form, algorithm) = forms[(n / sizes.len()) % forms.len()];
        assert_eq!(control_form == &"etag", form == "etag");
        let parts: u64 = value.rsplit_once('-').unwrap().1.parse().unwrap();
        assert_eq!(
            records[n],
            serde_json::json!({"path": name, "form": form, "algorithm": algorithm,
                               "part_size": size, "parts": parts, "value": value}),
        );
    }
    for record in &records[asks.len()..] {
        assert_eq!(record["path"], "missing");
        assert_eq!(record["errno"], 2);
        assert!(record.get("value").is_none(), "{record}");
    }
    // The one-piece ETag: the MD5, no part size.
    let out = parhash(dir, &["sum", "--json", "--etag", "small"]);
    let [md5] = &control(dir, &[("small", "etag", 0)])[..] else {
        panic!()
    };
    let record: serde_json::Value = serde_json::from_str(out.stdout_text().trim_end()).unwrap();
    assert_eq!(
        record,
        serde_json::json!({"path": "small", "form": "etag", "algorithm": "md5",
                           "part_size": null, "value": md5}),
    );
}

#[test]
fn crc32c_composite_and_the_one_piece_etag() {
    let Some((mut rng, dir)) = with_control() else {
        return;
    };
    let dir = dir.path();
    write_file(dir, "f", 10 * MIB + 1, &mut rng);
    write_file(dir, "g", rng.below(3000), &mut rng);
    let out = parhash(
        dir,
        &[
            "sum",
            "--composite",
            "-a",
            "crc32c",
            "--part-size",
            "5MiB",
            "f",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let [value] = &control(dir, &[("f", "crc32c", 5 * MIB)])[..] else {
        panic!()
    };
    assert_eq!(out.stdout_text(), line("CRC32C-COMPOSITE", "f", value));
    // No part size: an object uploaded in one piece, whose ETag is its MD5.
    let out = parhash(dir, &["sum", "--etag", "f", "g"]);
    let values = control(dir, &[("f", "etag", 0), ("g", "etag", 0)]);
    let expected = line("ETAG", "f", &values[0]) + &line("ETAG", "g", &values[1]);
    assert_eq!(out.stdout_text(), expected);
}

#[test]
fn check_finds_the_part_size() {
    let Some((mut rng, dir, files)) = fixture_with_control() else {
        return;
    };
    let dir = dir.path();
    // Each file uploaded with a part size a tool might pick: a usual one, or its size over
    // a part count rounded up to a whole MiB or to a byte.
    let mut asks = Vec::new();
    for (name, len) in &files {
        let count = rng.below(3) + 1;
        let choices = [
            [5, 8, 16][rng.below(3) as usize] * MIB,
            len.div_ceil(count).div_ceil(MIB).max(1) * MIB,
            len.div_ceil(count).max(1),
        ];
        let size = choices[rng.below(3) as usize];
        // S3 takes no part under 5 MiB but the last, and a size it refuses is never found
        // (`sizes_s3_refuses_are_never_found`): such an upload is made with the usual size.
        let size = if size >= 5 * MIB || *len <= size {
            size
        } else {
            choices[0]
        };
        let form = ["etag", "sha256", "crc32"][rng.below(3) as usize];
        asks.push((name.as_str(), form, size));
    }
    let values = control(dir, &asks);
    let tag = |form: &str| match form {
        "etag" => "ETAG".to_string(),
        other => format!("{}-COMPOSITE", other.to_uppercase()),
    };
    let mut list = String::new();
    for ((name, form, _), value) in asks.iter().zip(&values) {
        // S3 shows ETags in quotes; the list may keep them.
        let shown = match *form {
            "etag" => format!("\"{value}\""),
            _ => value.clone(),
        };
        list += &line(&tag(form), name, &shown);
    }
    // A composite value without its count (as GetObjectAttributes shows it), from an 8 MiB
    // upload.
    let [bare] = &control(dir, &[("last byte", "sha256", 8 * MIB)])[..] else {
        panic!()
    };
    let bare = bare.rsplit_once('-').unwrap().0;
    list += &line("SHA256-COMPOSITE", "last byte", bare);
    fs::write(dir.join("list"), &list).unwrap();
    let out = parhash(dir, &["check", "list"]);
    assert_eq!(
        out.code,
        Some(0),
        "{list}\n{}\n{}",
        out.stdout_text(),
        out.stderr
    );
    let report = out.stdout_text();
    for ((name, _, size), value) in asks.iter().zip(&values) {
        let parts: u64 = value.rsplit_once('-').unwrap().1.parse().unwrap();
        let reported = report
            .lines()
            .find(|l| l.starts_with(&format!("{name}: OK (")))
            .unwrap();
        if parts > 1 {
            // The size found gives the same parts: the one uploaded with, or one as good.
            let found = reported
                .strip_prefix(&format!("{name}: OK (part size "))
                .unwrap();
            assert!(found.ends_with(')'), "{reported}");
            if *size % MIB == 0 && [5, 8, 16].contains(&(size / MIB)) {
                assert_eq!(found, format!("{} MiB)", size / MIB), "{reported}");
            }
        } else {
            assert_eq!(reported, format!("{name}: OK (one part)"));
        }
    }
    assert!(
        report.contains("last byte: OK (part size 8 MiB, 2 parts)"),
        "{report}"
    );

    // A value no part size gives: FAILED, with the sizes tried.
    let wrong = format!("ETAG (last byte) = {}-2\n", "0".repeat(32));
    fs::write(dir.join("wrong"), &wrong).unwrap();
    let out = parhash(dir, &["check", "wrong"]);
    assert_eq!(out.code, Some(1));
    let report = out.stdout_text();
    assert!(
        report.starts_with("last byte: FAILED (tried part sizes "),
        "{report}"
    );
    assert!(
        report.contains("8 MiB") && report.contains("for 2 parts"),
        "{report}"
    );
    says(&out, "1 computed checksum did NOT match");
    // Other tools' lines and these in one list, and `sum -c` reads them too.
    let md5 = control(dir, &[("small", "etag", 0)]).remove(0);
    let mixed = format!("{md5}  small\n{list}");
    fs::write(dir.join("mixed"), &mixed).unwrap();
    let out = parhash(dir, &["sum", "-c", "mixed"]);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout_text().starts_with("small: OK\n"));
}

#[test]
fn match_finds_the_part_size_of_a_value_from_the_console() {
    let Some((mut rng, dir)) = with_control() else {
        return;
    };
    let dir = dir.path();
    write_file(dir, "f", 16 * MIB + 1 + rng.below(8 * MIB), &mut rng);
    let values = control(dir, &[("f", "etag", 8 * MIB), ("f", "sha256", 16 * MIB)]);
    let quoted = format!("\"{}\"", values[0]);
    let out = parhash(dir, &["sum", "--etag", "--match", &quoted, "f"]);
    assert_eq!(
        (out.code, out.stdout_text()),
        (Some(0), "f: OK (part size 8 MiB)\n".into())
    );
    let args = [
        "sum",
        "--composite",
        "-a",
        "sha256",
        "--match",
        &values[1],
        "f",
    ];
    let out = parhash(dir, &args);
    assert_eq!(out.stdout_text(), "f: OK (part size 16 MiB)\n");
    // A wrong value fails; standard input has no length to find part sizes from.
    let wrong = format!("{}-3", "1".repeat(32));
    let out = parhash(dir, &["sum", "--etag", "--match", &wrong, "f", "-"]);
    assert_eq!(out.code, Some(1));
    let report = out.stdout_text();
    assert!(
        report.starts_with("f: FAILED (tried part sizes "),
        "{report}"
    );
    assert!(report.ends_with("-: FAILED open or read\n"), "{report}");
    says(&out, "name a file, not standard input");
}

#[test]
fn sizes_s3_refuses_are_never_found() {
    let Some((mut rng, dir)) = with_control() else {
        return;
    };
    let dir = dir.path();
    // 10 MiB in 3 parts: only parts under S3's 5 MiB give 3, so no S3 upload made the value,
    // though parts of 4 MiB give it.
    write_file(dir, "f", 10 * MIB, &mut rng);
    let value = control(dir, &[("f", "etag", 4 * MIB)]).remove(0);
    let out = parhash(dir, &["sum", "--etag", "--match", &value, "f"]);
    assert_eq!(
        (out.code, out.stdout_text()),
        (
            Some(1),
            "f: FAILED (no usual part size fits this file for 3 parts)\n".into()
        )
    );
    fs::write(dir.join("list"), format!("ETAG (f) = {value}\n")).unwrap();
    let out = parhash(dir, &["check", "list"]);
    assert_eq!(out.code, Some(1));
    assert_eq!(
        out.stdout_text(),
        "f: FAILED (no usual part size fits this file for 3 parts)\n"
    );
}

#[test]
fn bad_part_sizes_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    fs::write(dir.join("f"), b"data").unwrap();
    for (size, why) in [
        ("0", "at least 1 byte"),
        ("eight", "not a size"),
        ("1MiB", "under S3's smallest part"),
        ("4194304", "under S3's smallest part"),
        ("6GiB", "over S3's largest part"),
        ("8MB", "ambiguous"),
    ] {
        // Alone, or among good sizes (in one list or in repeated flags): refused all the same.
        let listed = format!("8MiB,{size},16MiB");
        for sizes in [
            &["--part-size", size][..],
            &["--part-size", &listed],
            &["--part-size", "8MiB", "--part-size", size],
        ] {
            let out = parhash(dir, &[&["sum", "--etag"], sizes, &["f"]].concat());
            // `sum`'s usage errors exit 1, as coreutils' sha256sum's do.
            assert_eq!(out.code, Some(1), "{sizes:?}: {}", out.stderr);
            says(&out, why);
            assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
            assert!(out.stdout.is_empty(), "{sizes:?}: {}", out.stdout_text());
        }
    }
    let out = parhash(
        dir,
        &[
            "sum",
            "--composite",
            "-a",
            "crc64nvme",
            "--part-size",
            "8MiB",
        ],
    );
    assert_eq!(out.code, Some(1));
    says(&out, "whole file's");
}

#[test]
fn a_file_of_too_many_parts_is_an_error_and_the_others_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    // Sparse: 10,001 parts of 5 MiB, never read.
    let huge = fs::File::create(dir.join("huge")).unwrap();
    huge.set_len(10_000 * 5 * MIB + 1).unwrap();
    fs::write(dir.join("small"), b"abc").unwrap();
    let out = parhash(
        dir,
        &["sum", "--etag", "--part-size", "5MiB", "huge", "small"],
    );
    assert_eq!(out.code, Some(1));
    // MD5(MD5("abc")), its one part's (Python's hashlib).
    let expected = "ETAG (small) = af5da9f45af7a300e3aded972f8ff687-1\n";
    assert_eq!(out.stdout_text(), expected);
    says(
        &out,
        "huge: parts of 5 MiB: 10001 parts are over S3's 10,000",
    );
    let out = parhash(
        dir,
        &["sum", "--json", "--etag", "--part-size", "5MiB", "huge"],
    );
    assert_eq!(out.code, Some(1));
    let record: serde_json::Value = serde_json::from_str(out.stdout_text().trim_end()).unwrap();
    assert_eq!(record["errno"], serde_json::Value::Null);
    assert!(record["error"]
        .as_str()
        .unwrap()
        .contains("over S3's 10,000"));
}
