//! Several algorithms, one read (`parhash::file::MultiHasher`) against each algorithm alone
//! (`FileHasher` and the in-memory hash): lengths at the edges of its pieces and of the
//! pieces in flight, every thread count, many files in order (small, large, missing,
//! directories), files that shrink or grow while read (an error for every algorithm at
//! once), input of unknown length, and progress that counts each byte once.

mod common;

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Once;

use parhash::file::{FileHasher, FileInput, MultiHasher, Progress};
use parhash::lab::file::{PIECE, PIECES_IN_FLIGHT, SMALL_FILE};
use parhash::{hash, Algorithm, Hasher, Output, Threads, TreeParams};

use common::files::{changed_size, seeded_bytes, write_file, ResizeAfterFirstPiece};

/// The algorithms release lists use, and some that take other paths: a tree mode that needs
/// the length first, one with lanes of another width, an extendable-output function.
const SETS: [&[Algorithm]; 5] = [
    &[
        Algorithm::Md5,
        Algorithm::Sha1,
        Algorithm::Sha256,
        Algorithm::Sha512,
    ],
    &[Algorithm::Sha256, Algorithm::Md5],
    &[Algorithm::Blake2b, Algorithm::Blake3, Algorithm::Sha256],
    &[
        Algorithm::Parsha256,
        Algorithm::Sandstorm256,
        Algorithm::Sha1,
    ],
    &[Algorithm::Shake256, Algorithm::Sha3_256],
];

fn multi(algs: &[Algorithm], threads: usize) -> MultiHasher<'static> {
    MultiHasher::new(
        algs.iter()
            .map(|&alg| Hasher::builder(alg).threads(Threads::new(threads))),
    )
}

fn each(algs: &[Algorithm], data: &[u8]) -> Vec<Output> {
    algs.iter().map(|&alg| hash(alg, data)).collect()
}

#[test]
fn every_set_equals_each_algorithm_alone() {
    let dir = tempfile::tempdir().unwrap();
    let lens = [
        0,
        1,
        SMALL_FILE as usize,
        PIECE - 1,
        PIECE,
        2 * PIECE + 1,
        // More pieces than are ever in flight, so buffers go round.
        (PIECES_IN_FLIGHT + 3) * PIECE + 777,
    ];
    for (i, len) in lens.into_iter().enumerate() {
        let data = seeded_bytes(len, i as u64);
        let path = write_file(dir.path(), "f", &data);
        for algs in SETS {
            let expected = each(algs, &data);
            for threads in [1, 2, 3, 8] {
                let got = multi(algs, threads).hash_path(&path).unwrap();
                assert_eq!(got, expected, "{algs:?}, {len} bytes, {threads} threads");
            }
            let got = multi(algs, 2).hash_reader(&data[..]).unwrap();
            assert_eq!(got, expected, "{algs:?}, {len} bytes from a reader");
        }
    }
}

#[test]
fn builders_settings_reach_every_digest() {
    let dir = tempfile::tempdir().unwrap();
    let data = seeded_bytes(3 * PIECE + 9, 5);
    let path = write_file(dir.path(), "f", &data);
    let params = TreeParams::new(5, 0).unwrap();
    let builders = [
        Hasher::builder(Algorithm::Parsha256).tree_params(params),
        Hasher::builder(Algorithm::Blake2b).digest_size(32),
        Hasher::builder(Algorithm::Blake3).digest_size(100),
    ];
    let expected: Vec<Output> = builders
        .iter()
        .map(|b| FileHasher::new(b.clone()).hash_path(&path).unwrap())
        .collect();
    let got = MultiHasher::new(builders.clone()).hash_path(&path).unwrap();
    assert_eq!(got, expected);
    assert_eq!(got[2].as_bytes().len(), 100);
    assert_ne!(
        got[0],
        hash(Algorithm::Parsha256, &data),
        "T = 5 is not the default"
    );
}

#[test]
fn one_algorithm_alone_is_the_file_engine() {
    let dir = tempfile::tempdir().unwrap();
    let data = seeded_bytes(5 * PIECE, 6);
    let path = write_file(dir.path(), "f", &data);
    for alg in [Algorithm::Blake3, Algorithm::Sha256, Algorithm::Parsha256] {
        let got = multi(&[alg], 2).hash_path(&path).unwrap();
        assert_eq!(got, [hash(alg, &data)], "{alg}");
    }
}

#[test]
fn many_files_each_read_once_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut inputs = Vec::new();
    let mut contents = Vec::new();
    for i in 0..300usize {
        // Mostly small files for the lanes, some around the limit, a few large ones.
        let len = match i % 50 {
            7 => 2 * PIECE + i,
            13 => SMALL_FILE as usize + 1,
            _ => (i * 997) % 9000,
        };
        let data = seeded_bytes(len, i as u64 + 100);
        let path = write_file(dir.path(), &format!("f{i}"), &data);
        inputs.push(path);
        contents.push(Some(data));
        if i % 40 == 3 {
            inputs.push(dir.path().join("missing"));
            contents.push(None);
        }
        if i % 90 == 5 {
            inputs.push(dir.path().to_path_buf());
            contents.push(None);
        }
    }
    for algs in SETS {
        for threads in [1, 2, 3] {
            let files = multi(algs, threads);
            let got: Vec<(PathBuf, io::Result<Vec<Output>>)> = files
                .hash_files(
                    inputs
                        .iter()
                        .map(|p| (p.clone(), FileInput::Path(p.clone()))),
                )
                .collect();
            assert_eq!(got.len(), inputs.len());
            for ((path, result), data) in got.iter().zip(&contents) {
                let what = format!("{algs:?}, {threads} threads, {}", path.display());
                match data {
                    Some(data) => assert_eq!(result.as_ref().unwrap(), &each(algs, data), "{what}"),
                    None => {
                        // The same error as one algorithm alone gives.
                        let alone = FileHasher::new(Hasher::builder(algs[0])).hash_path(path);
                        let (got, alone) = (result.as_ref().unwrap_err(), alone.unwrap_err());
                        assert_eq!(got.kind(), alone.kind(), "{what}");
                        assert_eq!(got.to_string(), alone.to_string(), "{what}");
                    }
                }
            }
        }
    }
}

#[test]
fn a_file_that_changes_size_fails_for_every_algorithm() {
    let algs = SETS[0];
    let pieces = 2 * PIECES_IN_FLIGHT + 4;
    let len = (pieces * PIECE + 5) as u64;
    for new_len in [len / 2, 10, 0, len + 1, len + 3 * PIECE as u64] {
        for threads in [1, 2, 4] {
            let dir = tempfile::tempdir().unwrap();
            let path = write_file(dir.path(), "changing", &seeded_bytes(len as usize, 3));
            let resize = ResizeAfterFirstPiece {
                path: path.clone(),
                new_len,
                done: Once::new(),
            };
            let err = multi(algs, threads)
                .with_progress(&resize)
                .hash_path(&path)
                .unwrap_err();
            let what = format!("{len} -> {new_len}, {threads} threads");
            assert_eq!(
                err.to_string(),
                "file changed size while being read",
                "{what}"
            );
            let changed = changed_size(&err);
            assert_eq!(changed.expected, len, "{what}");
            assert_eq!(changed.found.is_none(), new_len > len, "{what}");
        }
    }
}

/// Counts what progress is told.
#[derive(Default)]
struct Count {
    started: AtomicU64,
    hashed: AtomicU64,
    done: AtomicU64,
}

impl Progress for Count {
    fn started(&self, _len: Option<u64>) {
        self.started.fetch_add(1, Ordering::Relaxed);
    }
    fn hashed(&self, bytes: u64) {
        self.hashed.fetch_add(bytes, Ordering::Relaxed);
    }
    fn file_done(&self, bytes: u64) {
        self.done.fetch_add(bytes, Ordering::Relaxed);
    }
}

#[test]
fn progress_counts_each_byte_once() {
    let dir = tempfile::tempdir().unwrap();
    let large = 3 * PIECE + 1;
    let paths = [
        write_file(dir.path(), "large", &seeded_bytes(large, 1)),
        write_file(dir.path(), "small", &seeded_bytes(1000, 2)),
    ];
    let count = Count::default();
    let files = multi(SETS[0], 2);
    let files = files.with_progress(&count);
    let got: Vec<_> = files
        .hash_files(paths.iter().map(|p| (p, FileInput::Path(p.clone()))))
        .collect();
    assert!(got.iter().all(|(_, r)| r.is_ok()));
    assert_eq!(
        count.started.load(Ordering::Relaxed),
        1,
        "only the large file is streamed"
    );
    assert_eq!(count.hashed.load(Ordering::Relaxed), large as u64);
    assert_eq!(count.done.load(Ordering::Relaxed), large as u64 + 1000);
}
