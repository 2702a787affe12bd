//! `sum --pieces` and `check --locate`: single-byte changes found in their piece (both ends
//! of every piece and a dense sample between), damaged ranges merged, a file grown or cut, a
//! damaged or forged piece list reported as damage of the piece list, no piece list, the
//! audit's count of changed pieces, and the list itself unchanged by --pieces.

mod support;

use std::fs;
use std::path::Path;
use std::process::Output;

use support::fails_with;

const PIECE: usize = 4096;
const LEN: usize = 16 * PIECE;

fn parhash(dir: &Path, args: &[&str]) -> Output {
    support::parhash_in(dir, args, &[])
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = support::Rng(seed);
    (0..len).map(|_| rng.next() as u8).collect()
}

/// `dir/f` of [`LEN`] bytes with its list `LIST` and piece list of 4 KiB pieces.
fn listed(dir: &Path) -> Vec<u8> {
    let content = data(LEN, 7);
    fs::write(dir.join("f"), &content).unwrap();
    let out = parhash(dir, &["sum", "--pieces=4KiB", "-o", "LIST", "f"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(dir.join("LIST.parhash-pieces").exists());
    content
}

fn locate(dir: &Path) -> (Output, String, String) {
    let out = parhash(dir, &["check", "--locate", "LIST"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    (out, stdout, stderr)
}

#[test]
fn every_single_byte_change_is_found_in_its_piece() {
    let dir = tempfile::tempdir().unwrap();
    let content = listed(dir.path());
    let (out, stdout, _) = locate(dir.path());
    assert!(out.status.success());
    assert_eq!(stdout, "f: OK\n");
    // Both ends of every piece, and every 193rd byte between.
    let mut positions: Vec<usize> = (0..LEN / PIECE)
        .flat_map(|p| [p * PIECE, p * PIECE + PIECE - 1])
        .chain((0..LEN).step_by(193))
        .collect();
    positions.sort_unstable();
    positions.dedup();
    for at in positions {
        let mut changed = content.clone();
        changed[at] ^= 0x5a;
        fs::write(dir.path().join("f"), &changed).unwrap();
        let (out, stdout, stderr) = locate(dir.path());
        let piece = at / PIECE;
        let expected = format!(
            "f: FAILED at bytes {}-{}\n",
            piece * PIECE,
            piece * PIECE + PIECE - 1
        );
        assert_eq!(out.status.code(), Some(1), "byte {at}: {stderr}");
        assert_eq!(stdout, expected, "byte {at}: {stderr}");
    }
}

#[test]
fn adjacent_damaged_pieces_merge_and_a_size_change_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let content = listed(dir.path());
    let mut changed = content.clone();
    for at in [10, PIECE + 5, 5 * PIECE, LEN - 1] {
        changed[at] ^= 1;
    }
    fs::write(dir.path().join("f"), &changed).unwrap();
    let (_, stdout, _) = locate(dir.path());
    assert_eq!(
        stdout,
        "f: FAILED at bytes 0-8191, 20480-24575, 61440-65535\n"
    );
    // Grown: the new bytes are the damage.
    let mut grown = content.clone();
    grown.extend_from_slice(b"0123456789");
    fs::write(dir.path().join("f"), &grown).unwrap();
    let (_, stdout, _) = locate(dir.path());
    assert_eq!(
        stdout,
        "f: FAILED at bytes 65536-65545 (now 65546 bytes, listed 65536)\n"
    );
    // Cut inside a piece: that piece and every listed one after it.
    fs::write(dir.path().join("f"), &content[..60000]).unwrap();
    let (out, stdout, _) = locate(dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout,
        "f: FAILED at bytes 57344-65535 (now 60000 bytes, listed 65536)\n"
    );
}

#[test]
fn a_damaged_piece_list_is_damage_of_the_list_not_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let content = listed(dir.path());
    let pieces_path = dir.path().join("LIST.parhash-pieces");
    let good = fs::read(&pieces_path).unwrap();
    // One hex digit of the third piece's digest changed.
    let line_start = good
        .iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'\n')
        .nth(1)
        .unwrap()
        .0
        + 1;
    let mut damaged = good.clone();
    let at = line_start + 2 * 65 + 3;
    damaged[at] = if damaged[at] == b'0' { b'1' } else { b'0' };
    fs::write(&pieces_path, &damaged).unwrap();
    // The file is intact: OK, and the piece list's damage said.
    let (out, stdout, stderr) = locate(dir.path());
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stdout, "f: OK\n");
    assert!(
        stderr.contains("LIST.parhash-pieces: the piece list of f is damaged"),
        "{stderr}"
    );
    // The file damaged too: FAILED, not located by a piece list that cannot be trusted.
    let mut changed = content.clone();
    changed[100] ^= 1;
    fs::write(dir.path().join("f"), &changed).unwrap();
    let (out, stdout, stderr) = locate(dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout, "f: FAILED\n");
    assert!(stderr.contains("is damaged: cannot locate"), "{stderr}");

    // A piece list rewritten consistently (its CHECK recomputed) for other content: every
    // piece the same as the damaged file's, so it cannot be the list line's file.
    use parhash_format::pieces::{self, PieceRecord};
    let mut forged = pieces::HEADER.to_vec();
    let record = PieceRecord {
        tag: "SHA256".into(),
        piece_size: PIECE as u64,
        file_size: LEN as u64,
        digest: parhash::hash(parhash::Algorithm::Sha256, &content)
            .as_bytes()
            .to_vec(),
        name: b"f".to_vec(),
    };
    let digests: Vec<_> = changed
        .chunks(PIECE)
        .map(|c| parhash::hash(pieces::PIECE_ALGORITHM, c))
        .collect();
    pieces::write_record(&mut forged, &record, digests.iter().map(|d| d.as_bytes()));
    fs::write(&pieces_path, &forged).unwrap();
    let (out, stdout, stderr) = locate(dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout, "f: FAILED\n");
    assert!(
        stderr.contains("does not agree with the list's line"),
        "{stderr}"
    );
    // And one recording another digest than the list's line.
    let mut other = pieces::HEADER.to_vec();
    let record = PieceRecord {
        digest: vec![0; 32],
        ..record
    };
    pieces::write_record(&mut other, &record, digests.iter().map(|d| d.as_bytes()));
    fs::write(&pieces_path, &other).unwrap();
    let (_, stdout, stderr) = locate(dir.path());
    assert_eq!(stdout, "f: FAILED\n");
    assert!(stderr.contains("is of another digest"), "{stderr}");
}

#[test]
fn without_a_piece_list_locate_says_how_to_make_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut content = listed(dir.path());
    fs::remove_file(dir.path().join("LIST.parhash-pieces")).unwrap();
    let (out, stdout, stderr) = locate(dir.path());
    assert!(out.status.success());
    assert_eq!((stdout.as_str(), stderr.as_str()), ("f: OK\n", ""));
    content[0] ^= 1;
    fs::write(dir.path().join("f"), &content).unwrap();
    let (out, stdout, stderr) = locate(dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout, "f: FAILED\n");
    assert!(
        stderr.contains(
            "cannot locate: no piece list for f; make one with parhash sum --pieces -o LIST"
        ),
        "{stderr}"
    );
}

#[test]
fn pieces_leave_the_list_as_it_was_and_the_audit_counts_changed_pieces() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("t/sub")).unwrap();
    fs::write(root.join("t/a"), data(3 * PIECE + 1, 1)).unwrap();
    let b = data(LEN, 2);
    fs::write(root.join("t/sub/b"), &b).unwrap();
    fs::write(root.join("t/empty"), b"").unwrap();
    let with = parhash(root, &["sum", "-r", "--pieces=4KiB", "-o", "LIST", "t"]);
    assert!(with.status.success(), "{}", text(&with.stderr));
    let without = parhash(root, &["sum", "-r", "-o", "PLAIN", "t"]);
    assert!(without.status.success());
    assert_eq!(
        fs::read(root.join("LIST")).unwrap(),
        fs::read(root.join("PLAIN")).unwrap()
    );
    assert_eq!(
        fs::read(root.join("LIST.parhash-meta")).unwrap().len(),
        fs::read(root.join("PLAIN.parhash-meta")).unwrap().len()
    );
    let index = parhash_format::pieces::PieceIndex::read(
        &fs::read(root.join("LIST.parhash-pieces")).unwrap()[..],
    )
    .unwrap();
    assert_eq!((index.len(), index.damaged), (3, 0));
    // Two pieces of sub/b changed: the audit says how much.
    let mut changed = b.clone();
    changed[PIECE] ^= 1;
    changed[9 * PIECE + 7] ^= 1;
    fs::write(root.join("t/sub/b"), &changed).unwrap();
    let out = parhash(root, &["check", "--audit", "--audit-path", "t", "LIST"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stdout).contains("t/sub/b: CHANGED (2 of 16 pieces, 8 KiB)\n"),
        "{}",
        text(&out.stdout)
    );
    let out = parhash(
        root,
        &["check", "--audit", "--json", "--audit-path", "t", "LIST"],
    );
    let record = text(&out.stdout)
        .lines()
        .find(|l| l.contains("t/sub/b"))
        .unwrap()
        .to_string();
    let value: serde_json::Value = serde_json::from_str(&record).unwrap();
    assert_eq!(value["status"], "changed");
    assert_eq!(
        (
            &value["pieces"],
            &value["pieces_changed"],
            &value["bytes_changed"]
        ),
        (&16.into(), &2.into(), &8192.into())
    );
    // And check --locate of the tree's list, several algorithms' first.
    let (out, stdout, _) = locate(root);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout.contains("t/sub/b: FAILED at bytes 4096-8191, 36864-40959\n"),
        "{stdout}"
    );
    assert!(stdout.contains("t/a: OK\n") && stdout.contains("t/empty: OK\n"));
}

#[test]
fn pieces_go_with_a_list_file_only() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), b"x").unwrap();
    let out = parhash(dir.path(), &["sum", "--pieces", "f"]);
    assert_eq!(out.status.code(), Some(1));
    let out = parhash(dir.path(), &["sum", "--pieces=100", "-o", "L", "f"]);
    fails_with(&out, 1, "at least 1024 bytes");
    // Default size, several algorithms: the record is of the first one's line.
    let out = parhash(
        dir.path(),
        &["sum", "-a", "md5,sha256", "--pieces", "-o", "L", "f"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let pieces = text(&fs::read(dir.path().join("L.parhash-pieces")).unwrap());
    assert!(pieces.contains("\nfile MD5 1048576 1 "), "{pieces}");
}
