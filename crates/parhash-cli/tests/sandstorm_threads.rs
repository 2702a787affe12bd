//! `parhash sum -a sandstorm256 -j N` (and `sandstorm256-ref`): the digest of a file split over
//! threads does not depend on N, and equals the library's serial hash of the same bytes, both
//! through the memory-mapped path (files of 1 MiB and more, fed in 32 MiB pieces) and through
//! standard input (read in 8 MiB pieces, never mapped).

use std::fs::File;
use std::path::Path;
use std::process::Command;

use parhash::{Algorithm, Hasher};

/// `parhash sum -a <alg> -j <threads>` of `path`, named (so mapped) or, with `piped`, as
/// standard input (so read); the digest.
fn sum(alg: &str, threads: &str, path: &Path, piped: bool) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_parhash"));
    cmd.args(["sum", "-a", alg, "-j", threads]);
    if piped {
        cmd.stdin(File::open(path).unwrap());
    } else {
        cmd.arg(path);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{alg} -j {threads}: {out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    stdout
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn thread_count_does_not_change_the_digest() {
    let dir = tempfile::tempdir().unwrap();
    // Over 32 MiB (the mapped piece) and not a whole number of blocks: the threaded level-2
    // path, a second piece that starts inside a superblock, and the padding all run.
    let len = (32 << 20) + 3 * 64_000 + 37;
    let data: Vec<u8> = (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).rotate_left(7) as u8)
        .collect();
    let path = dir.path().join("big.bin");
    std::fs::write(&path, &data).unwrap();
    for alg in [Algorithm::Sandstorm256, Algorithm::Sandstorm256Ref] {
        // The fast serial form (one compression at a time, one thread), which the library's
        // tests check against the literal reference across every level boundary.
        let mut serial = Hasher::with_variant(alg.variant("sequential").unwrap());
        serial.update(&data);
        let expected = serial.finalize().to_hex();
        for threads in ["1", "2", "3"] {
            let mapped = sum(alg.name(), threads, &path, false);
            assert_eq!(mapped, expected, "{alg} -j {threads}, mapped file");
        }
        let piped = sum(alg.name(), "2", &path, true);
        assert_eq!(piped, expected, "{alg} -j 2, standard input");
    }
}
