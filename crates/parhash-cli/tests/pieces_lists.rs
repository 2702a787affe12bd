//! Piece lists as part of every list `sum` writes: `--pieces` with `--resume` (a run cut
//! short, its piece list whole, cut, torn, damaged or missing), `--update` (files changed,
//! removed and added, then `check --locate` finds the right bytes), `--lists` (one piece list
//! beside each list), and the JSON forms (`sum --json --pieces`, `check --locate --json`)
//! checked against XXH3-128 computed here, by the xxhash-rust crate, piece by piece.

mod support;

use std::fs;
use std::path::Path;
use std::process::Output;

use serde_json::Value;
use support::fails_with;

const PIECE: usize = 4096;

fn parhash(dir: &Path, args: &[&str]) -> Output {
    support::parhash_in(dir, args, &[])
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(dir: &Path, args: &[&str]) -> Output {
    let out = parhash(dir, args);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    out
}

fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = support::Rng(seed);
    (0..len).map(|_| rng.next() as u8).collect()
}

/// Sizes around the piece size: empty, under one piece, exactly one, several and a bit.
const SIZES: [usize; 8] = [
    0,
    1,
    PIECE - 1,
    PIECE,
    PIECE + 1,
    3 * PIECE + 17,
    5 * PIECE,
    70,
];

/// A fresh directory holding `d`, with one file of each of [`SIZES`], `f0` to `f7`.
fn make_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("d")).unwrap();
    for (i, &len) in SIZES.iter().enumerate() {
        let name = dir.path().join(format!("d/f{i}"));
        fs::write(name, data(len, i as u64 + 1)).unwrap();
    }
    dir
}

fn read(dir: &Path, name: &str) -> Vec<u8> {
    fs::read(dir.join(name)).unwrap_or_else(|err| panic!("{name}: {err}"))
}

/// Byte offsets just after each record (`end` line) of a piece list.
fn record_ends(pieces: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut at = 0;
    for line in pieces.split_inclusive(|&b| b == b'\n') {
        at += line.len();
        if line.starts_with(b"end ") {
            ends.push(at);
        }
    }
    ends
}

/// Byte offsets just after each line of a list.
fn line_ends(list: &[u8]) -> Vec<usize> {
    record_ends_by(list, b'\n')
}

fn record_ends_by(list: &[u8], terminator: u8) -> Vec<usize> {
    let mut at = 0;
    (list.split_inclusive(|&b| b == terminator))
        .map(|line| {
            at += line.len();
            at
        })
        .collect()
}

/// A run of `sum -r d --pieces=4KiB -o L` cut short after `kept` lines, with `pieces` as its
/// piece list (or none), then resumed with `extra`: the list and piece list must be those of
/// the uninterrupted run, byte for byte. Returns the resumed run's standard error.
fn resumed(dir: &Path, kept: usize, pieces: Option<Vec<u8>>, extra: &[&str]) -> String {
    let full = read(dir, "FULL");
    fs::write(dir.join("L"), &full[..line_ends(&full)[kept - 1]]).unwrap();
    let side = dir.join("L.parhash-pieces");
    match pieces {
        Some(pieces) => fs::write(&side, pieces).unwrap(),
        None => {
            let _ = fs::remove_file(&side);
        }
    }
    let args = [&["sum", "-r", "d", "-o", "L", "--resume"], extra].concat();
    let out = ok(dir, &args);
    assert_eq!(text(&read(dir, "L")), text(&full), "{args:?}");
    assert_eq!(
        text(&read(dir, "L.parhash-pieces")),
        text(&read(dir, "FULL.parhash-pieces")),
        "{args:?}"
    );
    assert!(!dir.join("L.parhash-pieces.tmp").exists());
    text(&out.stderr)
}

#[test]
fn resume_keeps_the_pieces_written_and_adds_the_new_files() {
    let dir = make_tree();
    let dir = dir.path();
    ok(dir, &["sum", "-r", "d", "--pieces=4KiB", "-o", "FULL"]);
    let full_pieces = read(dir, "FULL.parhash-pieces");
    let ends = record_ends(&full_pieces);
    assert_eq!(ends.len(), SIZES.len());
    let header = full_pieces.iter().position(|&b| b == b'\n').unwrap() + 1;
    for kept in [1, 3, 6] {
        // The piece list as a crash leaves it: as far as the list, or one record further
        // (it is written first), or its next record torn.
        for cut in [ends[kept - 1], ends[kept], ends[kept] - 7] {
            let stderr = resumed(
                dir,
                kept,
                Some(full_pieces[..cut].to_vec()),
                &["--pieces=4KiB"],
            );
            assert!(!stderr.contains("pieces were hashed again"), "{stderr}");
        }
        // Without --pieces the run goes on with the piece list it finds.
        let stderr = resumed(dir, kept, Some(full_pieces[..ends[kept - 1]].to_vec()), &[]);
        assert!(!stderr.contains("pieces were hashed again"), "{stderr}");
        // Cut before the list's last line: that line's file is hashed again for its pieces.
        let cut = if kept > 1 { ends[kept - 2] } else { header };
        let stderr = resumed(
            dir,
            kept,
            Some(full_pieces[..cut].to_vec()),
            &["--pieces=4KiB"],
        );
        assert!(
            stderr.contains("L.parhash-pieces: 1 listed files had no record that agrees"),
            "{stderr}"
        );
    }
    // No piece list at all, one of another list, and one damaged in a kept record: made
    // again, said, never taken as it is.
    let stderr = resumed(dir, 4, None, &["--pieces=4KiB"]);
    assert!(stderr.contains("4 listed files had no record"), "{stderr}");
    let f1 = read(dir, "d/f1");
    fs::write(dir.join("d/f1"), b"x").unwrap();
    ok(dir, &["sum", "-r", "d", "--pieces=4KiB", "-o", "OTHER"]);
    fs::write(dir.join("d/f1"), f1).unwrap();
    let stderr = resumed(
        dir,
        4,
        Some(read(dir, "OTHER.parhash-pieces")),
        &["--pieces=4KiB"],
    );
    assert!(stderr.contains("1 listed files had no record"), "{stderr}");
    let mut damaged = full_pieces.clone();
    let digit = ends[2] - 10;
    damaged[digit] = if damaged[digit] == b'0' { b'1' } else { b'0' };
    let stderr = resumed(dir, 4, Some(damaged), &["--pieces=4KiB"]);
    assert!(stderr.contains("1 listed files had no record"), "{stderr}");
    // Another piece size: every kept record is made again at the size asked for.
    ok(dir, &["sum", "-r", "d", "--pieces=8KiB", "-o", "FULL"]);
    let stderr = resumed(dir, 4, Some(full_pieces), &["--pieces=8KiB"]);
    assert!(stderr.contains("4 listed files had no record"), "{stderr}");
}

#[test]
fn resume_after_a_kill_ends_with_the_uninterrupted_piece_list() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    fs::create_dir_all(dir.join("d")).unwrap();
    for i in 0..400 {
        fs::write(
            dir.join(format!("d/f{i:03}")),
            data(PIECE * (i % 5) + i, i as u64 + 1),
        )
        .unwrap();
    }
    ok(dir, &["sum", "-r", "d", "--pieces=4KiB", "-o", "FULL"]);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_parhash"))
        .args(["sum", "-j", "1", "-r", "d", "--pieces=4KiB", "-o", "L"])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while fs::read(dir.join("L")).map_or(0, |l| line_ends(&l).len()) < 50
        && std::time::Instant::now() < deadline
        && child.try_wait().unwrap().is_none()
    {
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    let _ = child.kill();
    child.wait().unwrap();
    ok(
        dir,
        &["sum", "-r", "d", "--pieces=4KiB", "-o", "L", "--resume"],
    );
    assert!(read(dir, "L") == read(dir, "FULL"));
    assert!(read(dir, "L.parhash-pieces") == read(dir, "FULL.parhash-pieces"));
}

/// `check --locate LIST`'s standard output.
fn locate(dir: &Path, list: &str) -> String {
    text(&parhash(dir, &["check", "--locate", list]).stdout)
}

fn change_byte(dir: &Path, name: &str, at: usize) {
    let mut bytes = read(dir, name);
    bytes[at] ^= 0x55;
    fs::write(dir.join(name), bytes).unwrap();
}

#[test]
fn update_keeps_recomputes_and_drops_pieces_and_locate_finds_the_right_bytes() {
    let dir = make_tree();
    let dir = dir.path();
    ok(dir, &["sum", "-r", "d", "--pieces=4KiB", "-o", "L"]);
    // f5 changed in its third piece, f2 removed, g added.
    change_byte(dir, "d/f5", 2 * PIECE + 5);
    fs::remove_file(dir.join("d/f2")).unwrap();
    fs::write(dir.join("d/g"), data(2 * PIECE + 3, 99)).unwrap();
    // Without --rehash-changed f5 keeps its line and its pieces: locate says where it changed.
    let out = ok(
        dir,
        &["sum", "-r", "d", "--pieces=4KiB", "-o", "L", "--update"],
    );
    assert!(
        !text(&out.stderr).contains("pieces were hashed again"),
        "{}",
        text(&out.stderr)
    );
    let pieces = text(&read(dir, "L.parhash-pieces"));
    assert!(
        !pieces.contains(" d/f2\n") && pieces.contains(" d/g\n"),
        "{pieces}"
    );
    let shown = locate(dir, "L");
    assert!(
        shown.contains("d/f5: FAILED at bytes 8192-12287\n"),
        "{shown}"
    );
    assert!(
        shown.contains("d/g: OK\n") && shown.contains("d/f6: OK\n"),
        "{shown}"
    );
    // With it, f5 is hashed again and its pieces with it: the list and piece list are a
    // fresh run's, byte for byte.
    ok(
        dir,
        &[
            "sum",
            "-r",
            "d",
            "--pieces=4KiB",
            "-o",
            "L",
            "--update",
            "--rehash-changed",
        ],
    );
    ok(dir, &["sum", "-r", "d", "--pieces=4KiB", "-o", "FRESH"]);
    assert_eq!(text(&read(dir, "L")), text(&read(dir, "FRESH")));
    assert_eq!(
        text(&read(dir, "L.parhash-pieces")),
        text(&read(dir, "FRESH.parhash-pieces"))
    );
    assert!(!dir.join("L.parhash-pieces.tmp").exists());
    // Changed again after the update: found in the right piece, the file grown too.
    change_byte(dir, "d/f5", 3 * PIECE);
    change_byte(dir, "d/g", 0);
    let mut grown = read(dir, "d/f6");
    grown.extend_from_slice(b"more");
    fs::write(dir.join("d/f6"), grown).unwrap();
    let shown = locate(dir, "L");
    assert!(
        shown.contains("d/f5: FAILED at bytes 12288-12304\n"),
        "{shown}"
    );
    assert!(shown.contains("d/g: FAILED at bytes 0-4095\n"), "{shown}");
    assert!(
        shown.contains("d/f6: FAILED at bytes 20480-20483 (now 20484 bytes, listed 20480)\n"),
        "{shown}"
    );
    // Without --pieces the update goes on with the piece list; one that is gone is made
    // again, except for a file that changed since it was listed: no pieces for it, said.
    fs::remove_file(dir.join("L.parhash-pieces")).unwrap();
    ok(dir, &["sum", "-r", "d", "-o", "L", "--update"]);
    assert!(!dir.join("L.parhash-pieces").exists());
    let out = ok(
        dir,
        &["sum", "-r", "d", "--pieces=4KiB", "-o", "L", "--update"],
    );
    let stderr = text(&out.stderr);
    for name in ["d/f5", "d/f6", "d/g"] {
        let said = format!("{name}: no pieces recorded: it changed since it was listed");
        assert!(stderr.contains(&said), "{stderr}");
    }
    assert!(stderr.contains("8 listed files had no record"), "{stderr}");
    let shown = text(&parhash(dir, &["check", "--locate", "L"]).stderr);
    assert!(
        shown.contains("cannot locate: no piece list for d/f5"),
        "{shown}"
    );
    let shown = locate(dir, "L");
    assert!(
        shown.contains("d/g: FAILED\n") && shown.contains("d/f7: OK\n"),
        "{shown}"
    );
}

#[test]
fn lists_get_a_piece_list_each_and_resume_keeps_them() {
    let dir = make_tree();
    let dir = dir.path();
    let lists = [
        "sum",
        "-a",
        "md5,sha256",
        "-r",
        "d",
        "--pieces=4KiB",
        "--lists",
    ];
    fs::create_dir_all(dir.join("FULL")).unwrap();
    ok(dir, &[&lists[..], &["FULL"]].concat());
    for name in ["MD5SUMS", "SHA256SUMS"] {
        let pieces = text(&read(dir, &format!("FULL/{name}.parhash-pieces")));
        let tag = if name == "MD5SUMS" { "MD5" } else { "SHA256" };
        assert!(
            pieces.contains(&format!("\nfile {tag} 4096 12305 ")),
            "{pieces}"
        );
    }
    // The same pieces under each list's digest.
    let strip = |name: &str| -> Vec<String> {
        text(&read(dir, name))
            .lines()
            .filter(|l| !l.starts_with("file ") && !l.starts_with("end "))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        strip("FULL/MD5SUMS.parhash-pieces"),
        strip("FULL/SHA256SUMS.parhash-pieces")
    );
    // Cut short after 3 files (each piece list a different way), resumed.
    fs::create_dir_all(dir.join("OUT")).unwrap();
    for (name, extra) in [("MD5SUMS", 0), ("SHA256SUMS", 1)] {
        let full = read(dir, &format!("FULL/{name}"));
        fs::write(
            dir.join(format!("OUT/{name}")),
            &full[..line_ends(&full)[2]],
        )
        .unwrap();
        let pieces = read(dir, &format!("FULL/{name}.parhash-pieces"));
        let cut = record_ends(&pieces)[2 + extra];
        fs::write(
            dir.join(format!("OUT/{name}.parhash-pieces")),
            &pieces[..cut],
        )
        .unwrap();
    }
    ok(dir, &[&lists[..], &["OUT", "--resume"]].concat());
    for name in [
        "MD5SUMS",
        "SHA256SUMS",
        "MD5SUMS.parhash-pieces",
        "SHA256SUMS.parhash-pieces",
    ] {
        assert!(
            read(dir, &format!("OUT/{name}")) == read(dir, &format!("FULL/{name}")),
            "{name}"
        );
    }
    change_byte(dir, "d/f6", PIECE + 1);
    for name in ["OUT/MD5SUMS", "OUT/SHA256SUMS"] {
        let shown = locate(dir, name);
        assert!(
            shown.contains("d/f6: FAILED at bytes 4096-8191\n"),
            "{name}: {shown}"
        );
    }
}

/// XXH3-128 of each `size`-byte piece of `bytes`, hex, by the xxhash-rust crate.
fn pieces_of(bytes: &[u8], size: usize) -> Vec<String> {
    (bytes.chunks(size))
        .map(|piece| format!("{:032x}", xxhash_rust::xxh3::xxh3_128(piece)))
        .collect()
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    (text(out).lines())
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

#[test]
fn json_records_carry_the_pieces_and_the_located_ranges() {
    let dir = make_tree();
    let dir = dir.path();
    // One algorithm, then several: `piece_size` and `pieces` beside the digest(s).
    for algorithms in ["sha256", "md5,blake3"] {
        let out = ok(
            dir,
            &[
                "sum",
                "--json",
                "-a",
                algorithms,
                "--pieces=4KiB",
                "-r",
                "d",
            ],
        );
        let records = json_lines(&out.stdout);
        assert_eq!(records.len(), SIZES.len());
        for (i, record) in records.iter().enumerate() {
            let name = format!("d/f{i}");
            assert_eq!(record["path"], name.as_str());
            assert_eq!(record["piece_size"], 4096);
            let listed: Vec<&str> = (record["pieces"].as_array().unwrap().iter())
                .map(|d| d.as_str().unwrap())
                .collect();
            assert_eq!(listed, pieces_of(&read(dir, &name), PIECE), "{name}");
            let several = algorithms.contains(',');
            assert_eq!(record.get("digests").is_some(), several, "{record}");
            assert_eq!(record.get("digest").is_some(), !several, "{record}");
        }
    }
    // Without -o, --lists or --json there is nowhere for the pieces to go.
    let out = parhash(dir, &["sum", "--pieces", "d/f1"]);
    fails_with(&out, 1, "--json");
    // check --locate --json: the ranges of a file that fails, as offset and length.
    ok(dir, &["sum", "-r", "d", "--pieces=4KiB", "-o", "L"]);
    change_byte(dir, "d/f5", 1);
    change_byte(dir, "d/f5", 2 * PIECE + 1);
    change_byte(dir, "d/f6", 3 * PIECE);
    change_byte(dir, "d/f6", 4 * PIECE);
    let out = parhash(dir, &["check", "--locate", "--json", "L"]);
    assert_eq!(out.status.code(), Some(1));
    let records = json_lines(&out.stdout);
    let line = |path: &str| {
        (records.iter())
            .find(|r| r["type"] == "line" && r["path"] == path)
            .unwrap_or_else(|| panic!("{path}: {records:?}"))
    };
    assert_eq!(line("d/f0")["status"], "ok");
    assert!(line("d/f0").get("located").is_none());
    let f5 = &line("d/f5")["located"];
    assert_eq!(line("d/f5")["status"], "failed");
    assert_eq!(
        f5,
        &serde_json::json!({"piece_size": 4096, "size": 12305, "listed_size": 12305,
            "pieces_changed": 2, "bytes_changed": 8192,
            "ranges": [{"offset": 0, "length": 4096}, {"offset": 8192, "length": 4096}]})
    );
    let f6 = &line("d/f6")["located"];
    assert_eq!(
        f6["ranges"],
        serde_json::json!([{"offset": 12288, "length": 8192}])
    );
    assert_eq!(f6["pieces_changed"], 2);
    // The digests of the damaged pieces differ from the listed ones; the others are equal.
    let listed = text(&read(dir, "L.parhash-pieces"));
    let now = pieces_of(&read(dir, "d/f6"), PIECE);
    for (i, digest) in now.iter().enumerate() {
        assert_eq!(listed.contains(digest.as_str()), i < 3, "piece {i}");
    }
    let summary = records.last().unwrap();
    assert_eq!(
        (summary["type"].as_str(), summary["failed"].as_u64()),
        (Some("summary"), Some(2))
    );
}
