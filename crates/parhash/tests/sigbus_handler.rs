//! parhash's process-wide `SIGBUS` handler: the first memory map a file hasher makes installs
//! it, and a caller that owns `SIGBUS` keeps it out with `file::disable_memory_maps` (or
//! `memory_maps(false)` on each hasher); files are then read, with the same digests. Each case
//! runs in a child process of its own: the handler, once installed, stays for the process.

use std::process::Command;

use parhash::file::{
    disable_memory_maps, sigbus_handler_installed, FileHasher, ReadAhead, ReadStrategy,
};
use parhash::{hash, Algorithm, Hasher, Threads};

const CASE: &str = "PARHASH_TEST_SIGBUS_CASE";
const TEST: &str = "a_map_installs_the_handler_and_the_opt_outs_keep_it_out";

#[test]
fn a_map_installs_the_handler_and_the_opt_outs_keep_it_out() {
    if let Ok(case) = std::env::var(CASE) {
        return run(&case);
    }
    for case in ["maps", "disabled", "per-hasher"] {
        let out = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", TEST, "--nocapture", "--test-threads=1"])
            .env(CASE, case)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "case {case}: {:?}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Hashes a file that BLAKE3 on two threads reads ahead as one stream, which a thread of its
/// own maps in where maps are allowed (Linux); checks the digest and whether the handler is
/// in place after.
fn run(case: &str) {
    assert!(!sigbus_handler_installed(), "installed before any map");
    let mut files = FileHasher::new(Hasher::builder(Algorithm::Blake3).threads(Threads::new(2)))
        .read_strategy(ReadStrategy::Sequential)
        .read_ahead(ReadAhead::Always);
    match case {
        "maps" => {}
        "disabled" => disable_memory_maps(),
        "per-hasher" => files = files.memory_maps(false),
        _ => panic!("no case {case}"),
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    let data: Vec<u8> = (0..16u32 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(&path, &data).unwrap();
    assert_eq!(
        files.hash_path(&path).unwrap(),
        hash(Algorithm::Blake3, &data)
    );
    let expected = case == "maps" && cfg!(target_os = "linux");
    assert_eq!(sigbus_handler_installed(), expected, "case {case}");
}
