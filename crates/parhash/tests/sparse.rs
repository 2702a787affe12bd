//! Sparse files (`parhash::file`): a file with holes hashes to the digest of its bytes by
//! every engine path (one algorithm on one or two threads, several at once, the parts of one
//! file), its holes are not read, and a write into a hole while it is hashed is still a change.
//! Each file is checked to really have holes (fewer blocks than its length), so that a file
//! system that fills them cannot make these tests pass on the dense path.
#![cfg(target_os = "linux")]

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

use parhash::file::{combine_parts, hash_part, FileHasher, FileModified, MultiHasher, Progress};
use parhash::parts::Plan;
use parhash::{hash, Algorithm, Hasher, Threads};

const MIB: u64 = 1 << 20;

/// Held by every test here: [`the_holes_are_not_read`] counts the bytes the whole process
/// reads (the parts of a file are read on several threads), so no other test may read meanwhile.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A file of `len` bytes made with `set_len`, data written only at `extents` (offset, length);
/// its bytes as they read, and the number of data bytes.
fn sparse_file(dir: &Path, name: &str, len: u64, extents: &[(u64, u64)]) -> (PathBuf, Vec<u8>) {
    let path = dir.join(name);
    let file = File::create(&path).unwrap();
    file.set_len(len).unwrap();
    let mut bytes = vec![0u8; len as usize];
    let mut data_len = 0;
    for (i, &(offset, n)) in extents.iter().enumerate() {
        let data: Vec<u8> = (0..n)
            .map(|j| (j * 31 + i as u64 * 7 + j / 509) as u8 | 1)
            .collect();
        file.write_all_at(&data, offset).unwrap();
        bytes[offset as usize..(offset + n) as usize].copy_from_slice(&data);
        data_len += n;
    }
    file.sync_all().unwrap();
    let allocated = file.metadata().unwrap().blocks() * 512;
    // Each extent may take a few blocks more than its bytes (4 KiB each end).
    assert!(
        allocated < len && allocated <= data_len + extents.len() as u64 * 8192,
        "{name}: {allocated} bytes allocated of {len} ({data_len} of data): \
         the file system filled the holes, so these tests would not test them"
    );
    (path, bytes)
}

/// The files: holes at the start, in the middle, at the end, everywhere, between many small
/// extents, and around extents that start and end off page boundaries.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let len = 9 * MIB + 1234;
    let many: Vec<(u64, u64)> = (0..len / 40_000).map(|i| (i * 40_000 + 13, 200)).collect();
    let cases: [(&str, &[(u64, u64)]); 6] = [
        ("start", &[(5 * MIB + 17, len - 5 * MIB - 17)]),
        ("middle", &[(0, MIB + 3), (7 * MIB, 2 * MIB + 1234)]),
        ("end", &[(0, 2 * MIB + 100)]),
        ("whole", &[]),
        ("many", &many),
        (
            "unaligned",
            &[(4097, 5000), (3 * MIB + 1, 70_000), (8 * MIB - 3, 6)],
        ),
    ];
    cases
        .iter()
        .map(|(name, extents)| sparse_file(dir, name, len, extents))
        .collect()
}

const ALGORITHMS: [Algorithm; 5] = [
    Algorithm::Blake3,
    Algorithm::Sha256,
    Algorithm::Parsha256,
    Algorithm::Sandstorm256,
    Algorithm::Crc32c,
];

#[test]
fn a_sparse_file_hashes_as_its_bytes_do() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    for (path, bytes) in files(dir.path()) {
        for alg in ALGORITHMS {
            let expected = hash(alg, &bytes);
            for threads in [1, 2] {
                let files = FileHasher::new(Hasher::builder(alg).threads(Threads::new(threads)));
                let got = files.hash_path(&path).unwrap();
                assert_eq!(got, expected, "{alg} on {threads} threads, {path:?}");
            }
        }
        let multi = MultiHasher::new(ALGORITHMS.map(Hasher::builder));
        let expected: Vec<_> = ALGORITHMS.iter().map(|&alg| hash(alg, &bytes)).collect();
        assert_eq!(multi.hash_path(&path).unwrap(), expected, "{path:?}");
    }
}

/// The parts of one sparse file, hashed one by one (as on several machines), combine to the
/// digest of its bytes.
#[test]
fn the_parts_of_a_sparse_file_combine_to_its_digest() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    for (path, bytes) in files(dir.path()) {
        let file = File::open(&path).unwrap();
        for alg in [
            Algorithm::Blake3,
            Algorithm::Parsha256,
            Algorithm::Sandstorm256,
        ] {
            let plan = Plan::new(alg, bytes.len() as u64, 3).unwrap();
            let states: Vec<_> = (0..plan.parts())
                .map(|i| hash_part(&plan, i, &file).unwrap())
                .collect();
            let got = combine_parts(&plan, &states, &file).unwrap();
            assert_eq!(got, hash(alg, &bytes), "{alg}, {path:?}");
        }
    }
}

/// This process's bytes read by system calls so far (`rchar`, all its threads: those that
/// hash the parts of a file read them).
fn bytes_read_by_this_process() -> u64 {
    let io = std::fs::read_to_string("/proc/self/io").unwrap();
    io.lines()
        .find_map(|line| line.strip_prefix("rchar: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap()
}

/// A 1 GiB file holding 16 MiB of data is hashed reading about its data, not its holes.
#[test]
fn the_holes_are_not_read() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let len = 1024 * MIB;
    let extents: Vec<(u64, u64)> = (0..16).map(|i| (i * 64 * MIB + 4096 * i, MIB)).collect();
    let path = dir.path().join("big");
    let file = File::create(&path).unwrap();
    file.set_len(len).unwrap();
    let data: Vec<u8> = (0..MIB).map(|i| (i * 13 + i / 4093) as u8).collect();
    for &(offset, _) in &extents {
        file.write_all_at(&data, offset).unwrap();
    }
    let allocated = file.metadata().unwrap().blocks() * 512;
    assert!(
        allocated <= 17 * MIB,
        "holes filled: {allocated} bytes allocated"
    );
    drop(file);
    for alg in [Algorithm::Blake3, Algorithm::Sandstorm256] {
        // The same bytes from memory, a piece at a time.
        let mut expected = Hasher::builder(alg).build().unwrap();
        let zeros = vec![0u8; MIB as usize];
        let mut at = 0;
        for &(offset, n) in &extents {
            while at < offset {
                let step = (offset - at).min(MIB);
                expected.update(&zeros[..step as usize]);
                at += step;
            }
            expected.update(&data[..n as usize]);
            at += n;
        }
        while at < len {
            let step = (len - at).min(MIB);
            expected.update(&zeros[..step as usize]);
            at += step;
        }
        let files = FileHasher::new(Hasher::builder(alg).threads(Threads::new(2)));
        let before = bytes_read_by_this_process();
        let got = files.hash_path(&path).unwrap();
        let read = bytes_read_by_this_process() - before;
        assert_eq!(got, expected.finalize(), "{alg}");
        // The data, and a piece more where a piece holds data and hole.
        assert!(read <= 16 * MIB + MIB, "{alg}: {read} bytes read");
    }
}

/// Writes into the file's first hole once the first piece is hashed, keeping its size.
struct FillAHole<'f>(&'f File, std::sync::Once);

impl Progress for FillAHole<'_> {
    fn hashed(&self, _bytes: u64) {
        self.1
            .call_once(|| self.0.write_all_at(b"late", 6 * MIB).unwrap());
    }
}

/// Data written into a hole while the file is hashed is a change of the file, as for any
/// file rewritten while it is read.
#[test]
fn a_hole_written_while_hashed_is_a_change() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    for alg in [Algorithm::Blake3, Algorithm::Sha256] {
        let (path, _) = sparse_file(dir.path(), alg.name(), 9 * MIB, &[(0, MIB)]);
        let file = File::options().read(true).write(true).open(&path).unwrap();
        let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        file.set_modified(past).unwrap();
        let writer = FillAHole(&file, std::sync::Once::new());
        let files = FileHasher::new(Hasher::builder(alg));
        let err: io::Error = files.with_progress(&writer).hash_file(&file).unwrap_err();
        assert!(
            err.get_ref().is_some_and(|e| e.is::<FileModified>()),
            "{alg}: {err}"
        );
    }
}
