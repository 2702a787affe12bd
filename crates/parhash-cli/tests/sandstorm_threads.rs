//! `parhash sum -a sandstorm256 -j N`: the digest of a file split over threads does not depend
//! on N and equals the library's one-shot `parhash::hash` of the same bytes.

use std::process::Command;

use parhash::Algorithm;

#[test]
fn thread_count_does_not_change_the_digest() {
    let dir = tempfile::tempdir().unwrap();
    // Just over 8 MiB (the CLI's update size) and not a whole number of blocks, so that the
    // threaded level-2 path, a second update and the padding all run.
    let len = (8 << 20) + 3 * 64_000 + 37;
    let data: Vec<u8> = (0..len)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761).rotate_left(7) as u8)
        .collect();
    let path = dir.path().join("big.bin");
    std::fs::write(&path, &data).unwrap();
    let expected = parhash::hash(Algorithm::Sandstorm256, &data).to_hex();
    for threads in ["1", "2", "3"] {
        let out = Command::new(env!("CARGO_BIN_EXE_parhash"))
            .args(["sum", "-a", "sandstorm256", "-j", threads])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "-j {threads}: {out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let digest = stdout.split_whitespace().next().unwrap_or_default();
        assert_eq!(digest, expected, "-j {threads}");
    }
}
