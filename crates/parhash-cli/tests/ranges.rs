//! Outboards and byte ranges end to end: `sum -a blake3 --outboard` writes bao's outboard
//! (the `bao` crate's, byte for byte, which the crate verifies slices with) and iroh's
//! chunk groups, in the read that hashes every algorithm; `check --range` verifies a range
//! at the start, the end, across groups, and reports an empty range, one past the end, a
//! missing or damaged outboard, damaged data and a file changed since `sum`; `sum --range`
//! gives the digests of a range under a name that says so.

mod support;

use std::fs;
use std::io::{Cursor, Read};
use std::path::Path;
use std::process::Output;

use parhash::outboard::{encode_grouped, ChunkGroup};
use parhash::{hash, Algorithm};
use support::{fails_with, parhash_in, require_tool, Rng};

fn parhash(dir: &Path, args: &[&str]) -> Output {
    parhash_in(dir, args, &[])
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    (0..len).map(|_| rng.next() as u8).collect()
}

fn hex(alg: Algorithm, bytes: &[u8]) -> String {
    hash(alg, bytes).to_hex()
}

/// Sizes around the chunk's, a 16 KiB group's and the encoder's 1 MiB units' boundaries.
const SIZES: [usize; 9] = [
    0,
    1,
    1023,
    1024,
    1025,
    16 * 1024 + 1,
    64 * 1024,
    1 << 20,
    (3 << 20) + 5000,
];

#[test]
fn outboards_are_baos_written_in_the_read_of_every_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = SIZES.iter().map(|len| format!("f{len}")).collect();
    for (name, &len) in names.iter().zip(&SIZES) {
        fs::write(dir.path().join(name), data(len, len as u64 + 1)).unwrap();
    }
    let mut args = vec!["sum", "-a", "blake3,sha256", "--outboard"];
    args.extend(names.iter().map(String::as_str));
    let out = parhash(dir.path(), &args);
    assert!(out.status.success(), "{}", stderr(&out));
    let mut expected = String::new();
    for (name, &len) in names.iter().zip(&SIZES) {
        let bytes = data(len, len as u64 + 1);
        expected += &format!("BLAKE3 ({name}) = {}\n", hex(Algorithm::Blake3, &bytes));
        expected += &format!("SHA256 ({name}) = {}\n", hex(Algorithm::Sha256, &bytes));
        let outboard = fs::read(dir.path().join(format!("{name}.obao"))).unwrap();
        let (bao_outboard, bao_root) = bao::encode::outboard(&bytes);
        assert_eq!(outboard, bao_outboard, "{name}: the bao crate's outboard");
        assert_eq!(bao_root.to_hex().as_str(), hex(Algorithm::Blake3, &bytes));
        // The bao crate verifies a slice taken with the outboard parhash wrote.
        if len > 0 {
            let (start, count) = (len as u64 / 3, (len as u64 / 2).max(1));
            let mut slice = Vec::new();
            bao::encode::SliceExtractor::new_outboard(
                Cursor::new(&bytes),
                Cursor::new(&outboard),
                start,
                count,
            )
            .read_to_end(&mut slice)
            .unwrap();
            let mut decoded = Vec::new();
            bao::decode::SliceDecoder::new(&slice[..], &bao_root, start, count)
                .read_to_end(&mut decoded)
                .unwrap();
            assert_eq!(decoded, bytes[start as usize..(start + count) as usize]);
        }
        assert!(!dir.path().join(format!("{name}.obao.tmp")).exists());
    }
    assert_eq!(stdout(&out), expected);
}

/// BLAKE3 alone: a file of more than one unit is hashed in place from its map, each thread
/// writing its units' parents (the library's `encode_mapped`), and gives bao's outboard too.
#[test]
fn outboards_of_blake3_alone_are_baos() {
    let dir = tempfile::tempdir().unwrap();
    for len in [(3 << 20) + 5000, 9 << 20] {
        let bytes = data(len, len as u64);
        fs::write(dir.path().join("f"), &bytes).unwrap();
        // In place on one thread and all; --read sequential and --no-mmap: read in order.
        for how in [
            ["-j", "1"],
            ["-j", "0"],
            ["--read", "sequential"],
            ["--no-mmap", "-j0"],
        ] {
            let mut args = vec!["sum", "-a", "blake3", "--outboard", "f"];
            args.extend(how);
            let out = parhash(dir.path(), &args);
            assert!(out.status.success(), "{}", stderr(&out));
            let hex = hex(Algorithm::Blake3, &bytes);
            assert_eq!(stdout(&out), format!("{hex}  f\n"));
            let (bao_outboard, _) = bao::encode::outboard(&bytes);
            let outboard = fs::read(dir.path().join("f.obao")).unwrap();
            assert!(outboard == bao_outboard, "{len} bytes, {how:?}");
        }
    }
}

/// The `bao` tool (crates.io `bao_bin`, installed by scripts/install-test-deps.sh): it decodes
/// each file and a slice of it with the outboard parhash wrote, its own outboard is the same
/// bytes, and `parhash check --range` verifies ranges with the outboard the tool wrote.
#[test]
fn the_bao_tool_and_parhash_read_each_others_outboards() {
    if !require_tool("bao") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new("bao")
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "bao {args:?}: {}", stderr(&out));
        out.stdout
    };
    for &len in &SIZES {
        let bytes = listed(dir.path(), "f", len, 0);
        let root = hex(Algorithm::Blake3, &bytes);
        assert_eq!(
            run(&["decode", &root, "f", "--outboard=f.obao"]),
            bytes,
            "{len}"
        );
        let (start, count) = (len / 3, (len / 2).max(1));
        let slice = run(&[
            "slice",
            &start.to_string(),
            &count.to_string(),
            "f",
            "--outboard=f.obao",
        ]);
        fs::write(dir.path().join("slice"), slice).unwrap();
        let decoded = run(&[
            "decode-slice",
            &root,
            &start.to_string(),
            &count.to_string(),
            "slice",
        ]);
        assert_eq!(
            decoded,
            bytes[start.min(len)..(start + count).min(len)],
            "{len}"
        );
        // The tool's own outboard: parhash's bytes, and what `check --range` reads.
        run(&["encode", "f", "--outboard=bao.obao"]);
        let ours = fs::read(dir.path().join("f.obao")).unwrap();
        assert!(
            fs::read(dir.path().join("bao.obao")).unwrap() == ours,
            "{len}"
        );
        if len > 0 {
            fs::rename(dir.path().join("bao.obao"), dir.path().join("f.obao")).unwrap();
            let range = format!("{start}:{}", count.min(len - start));
            let out = check_range(dir.path(), &range);
            assert!(out.status.success(), "{len} {range}: {}", stderr(&out));
            assert!(stdout(&out).starts_with("f: OK ("), "{}", stdout(&out));
        }
    }
}

#[test]
fn iroh_groups_go_under_a_directory_with_k_in_the_name() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    let bytes = data(100_000, 7);
    fs::write(dir.path().join("sub/a"), &bytes).unwrap();
    let out = parhash(
        dir.path(),
        &[
            "sum",
            "-a",
            "blake3",
            "--outboard=obs",
            "--chunk-group",
            "4",
            "sub/a",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!("{}  sub/a\n", hex(Algorithm::Blake3, &bytes))
    );
    let (_, expected) = encode_grouped(&bytes, ChunkGroup::IROH);
    assert_eq!(
        fs::read(dir.path().join("obs/sub/a.obao4")).unwrap(),
        expected
    );
    fs::write(dir.path().join("list"), stdout(&out)).unwrap();
    let out = parhash(
        dir.path(),
        &["check", "--range", "16KiB:1", "--outboard", "obs", "list"],
    );
    assert_eq!(
        stdout(&out),
        "sub/a: OK (bytes 16384-16384)\n",
        "{}",
        stderr(&out)
    );
    assert!(out.status.success());
}

#[test]
fn outboards_need_blake3_and_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a"), b"abc").unwrap();
    let out = parhash(dir.path(), &["sum", "-a", "sha256", "--outboard", "a"]);
    fails_with(&out, 1, "add -a blake3");
    assert!(!dir.path().join("a.obao").exists());
    let out = parhash(dir.path(), &["sum", "-a", "blake3", "--outboard", "-"]);
    fails_with(&out, 1, "needs a regular file");
    let out = parhash(
        dir.path(),
        &[
            "sum",
            "-a",
            "blake3",
            "--outboard",
            "--chunk-group",
            "11",
            "a",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
}

/// A file of `len` bytes with its BLAKE3 list and outboard of chunk group `k`, in `dir`.
fn listed(dir: &Path, name: &str, len: usize, k: u8) -> Vec<u8> {
    let bytes = data(len, 99);
    fs::write(dir.join(name), &bytes).unwrap();
    let group = k.to_string();
    let out = parhash(
        dir,
        &[
            "sum",
            "-a",
            "blake3",
            "--outboard",
            "--chunk-group",
            &group,
            name,
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    fs::write(dir.join("LIST"), &out.stdout).unwrap();
    bytes
}

fn check_range(dir: &Path, range: &str) -> Output {
    parhash(dir, &["check", "--range", range, "LIST"])
}

#[test]
fn ranges_verify_at_the_start_the_end_and_across_groups() {
    let dir = tempfile::tempdir().unwrap();
    let len = (2 << 20) + 3000;
    for k in [0, 4] {
        listed(dir.path(), "big", len, k);
        let end = len as u64;
        for (range, shown) in [
            ("0:4KiB".to_string(), "bytes 0-4095".to_string()),
            (
                format!("{}:100", end - 100),
                format!("bytes {}-{}", end - 100, end - 1),
            ),
            ("1023:2".into(), "bytes 1023-1024".into()),
            ("16380:10".into(), "bytes 16380-16389".into()),
            ("1MiB:1MiB".into(), "bytes 1048576-2097151".into()),
            (format!("0:{end}"), format!("bytes 0-{}", end - 1)),
        ] {
            let out = check_range(dir.path(), &range);
            assert_eq!(
                stdout(&out),
                format!("big: OK ({shown})\n"),
                "k={k} {range}: {}",
                stderr(&out)
            );
            assert!(out.status.success());
        }
        fs::remove_file(
            dir.path()
                .join(if k == 0 { "big.obao" } else { "big.obao4" }),
        )
        .unwrap();
    }
}

#[test]
fn empty_ranges_and_ranges_past_the_end_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    listed(dir.path(), "f", 5000, 0);
    let out = check_range(dir.path(), "10:0");
    fails_with(&out, 1, "holds no bytes");
    let out = check_range(dir.path(), "4990:11");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "f: FAILED open or read (bytes 4990-5000)\n");
    assert!(
        stderr(&out).contains("past the end of the file (5000 bytes)"),
        "{}",
        stderr(&out)
    );
    let out = check_range(dir.path(), "4KiB");
    fails_with(&out, 1, "OFFSET:LENGTH");
}

#[test]
fn a_missing_outboard_says_how_to_make_one() {
    let dir = tempfile::tempdir().unwrap();
    listed(dir.path(), "f", 5000, 0);
    fs::remove_file(dir.path().join("f.obao")).unwrap();
    let out = check_range(dir.path(), "0:1");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "f: FAILED open or read (bytes 0-0)\n");
    assert!(
        stderr(&out).contains(
            "no outboard (f.obao not found): write one with `parhash sum -a blake3 --outboard f`"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn damage_is_told_apart_in_the_outboard_and_in_the_data() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = listed(dir.path(), "f", 200_000, 0);
    // A damaged outboard node on the range's path: the outboard's damage, no verdict on the data.
    let mut outboard = fs::read(dir.path().join("f.obao")).unwrap();
    outboard[8 + 3] ^= 1;
    fs::write(dir.path().join("f.obao"), &outboard).unwrap();
    let out = check_range(dir.path(), "0:1KiB");
    assert_eq!(stdout(&out), "f: FAILED open or read (bytes 0-1023)\n");
    assert!(
        stderr(&out).contains("f.obao: outboard damaged at byte 8"),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("did NOT match"), "{}", stderr(&out));
    outboard[8 + 3] ^= 1;
    fs::write(dir.path().join("f.obao"), &outboard).unwrap();
    // Damaged data: FAILED where the range holds it, OK elsewhere.
    let mut damaged = bytes.clone();
    damaged[150_000] ^= 0x10;
    fs::write(dir.path().join("f"), &damaged).unwrap();
    let out = check_range(dir.path(), "140000:20000");
    assert_eq!(stdout(&out), "f: FAILED (bytes 140000-159999)\n");
    assert!(
        stderr(&out).contains("data damaged at bytes 149504-150527"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("1 computed checksum did NOT match"),
        "{}",
        stderr(&out)
    );
    assert_eq!(out.status.code(), Some(1));
    let out = check_range(dir.path(), "0:100000");
    assert_eq!(stdout(&out), "f: OK (bytes 0-99999)\n", "{}", stderr(&out));
}

#[test]
fn a_file_changed_since_sum_fails() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = listed(dir.path(), "f", 70_000, 4);
    bytes.extend_from_slice(&[1; 3000]);
    fs::write(dir.path().join("f"), &bytes).unwrap();
    let out = check_range(dir.path(), "0:1000");
    assert_eq!(
        stdout(&out),
        "f: FAILED (bytes 0-999)\n",
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("73000 bytes long"),
        "{}",
        stderr(&out)
    );
    // Another algorithm's line has no outboard: untagged lines are BLAKE3's, tagged ones of
    // another algorithm improper.
    let sha256 = format!("SHA256 (f) = {}\n", hex(Algorithm::Sha256, &bytes));
    fs::write(dir.path().join("LIST"), sha256).unwrap();
    let out = check_range(dir.path(), "0:1000");
    fails_with(&out, 1, "no properly formatted");
    let out = parhash(
        dir.path(),
        &["check", "-a", "sha256", "--range", "0:1", "LIST"],
    );
    fails_with(&out, 1, "leave out -a");
}

#[test]
fn sum_range_hashes_only_the_range_under_a_name_that_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = data(3 << 20, 5);
    fs::write(dir.path().join("f"), &bytes).unwrap();
    let out = parhash(
        dir.path(),
        &[
            "sum",
            "-a",
            "blake3,sha256,parsha256",
            "--range",
            "1MiB:1000",
            "f",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let slice = &bytes[1 << 20..(1 << 20) + 1000];
    let name = "f (bytes 1048576-1049575)";
    let parsha = stdout(&out).lines().nth(2).unwrap().to_string();
    assert_eq!(
        stdout(&out),
        format!(
            "BLAKE3 ({name}) = {}\nSHA256 ({name}) = {}\n{parsha}\n",
            hex(Algorithm::Blake3, slice),
            hex(Algorithm::Sha256, slice)
        )
    );
    assert!(
        parsha.ends_with(&hex(Algorithm::Parsha256, slice)),
        "{parsha}"
    );
    let out = parhash(dir.path(), &["sum", "--range", "3MiB:0", "f"]);
    assert_eq!(
        stdout(&out),
        format!("{}  f (no bytes at 3145728)\n", hex(Algorithm::Sha256, b""))
    );
    let out = parhash(dir.path(), &["sum", "--range", "3MiB:1", "f"]);
    fails_with(&out, 1, "goes past the end of the file (3145728 bytes)");
    let out = parhash(dir.path(), &["sum", "--range", "1:1", "--outboard", "f"]);
    assert_eq!(out.status.code(), Some(1));
}
