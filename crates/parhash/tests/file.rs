//! The file engine (`parhash::file`) against the in-memory hash: every algorithm, lengths at
//! the edges of its pieces and of the overlapped reads, files that shrink or grow while they
//! are read (changed through the progress callback, at a known point), many files in order.

mod common;

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Once;

use parhash::file::{FileHasher, FileInput, ReadAhead, ReadStrategy};
use parhash::lab::file::{OVERLAP_FROM_PIECES, PIECE, READ_AHEAD, SMALL_FILE};
use parhash::{hash, Algorithm, Hasher, Threads, TreeParams};
use rand::{rngs::StdRng, Rng, SeedableRng};

use common::files::{
    changed_size, seeded_bytes as random_bytes, write_file, ResizeAfterFirstPiece,
};

fn files(alg: Algorithm) -> FileHasher<'static> {
    FileHasher::new(Hasher::builder(alg))
}

/// The piece size the engine uses for `alg` on one thread.
fn piece(alg: Algorithm) -> usize {
    parhash::lab::file::piece_size(alg, Threads::ONE)
}

/// The largest piece size of a tree mode on one or two threads.
fn tree_piece() -> usize {
    parhash::lab::file::piece_size(Algorithm::Sandstorm256, Threads::new(2))
}

#[test]
fn every_algorithm_hashes_a_file_as_it_hashes_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = StdRng::seed_from_u64(17);
    for &alg in Algorithm::ALL {
        // Empty, around the small-file limit, random, and (for the one-thread algorithms,
        // whose pieces are small) across pieces and into the overlapped reads.
        let small = SMALL_FILE as usize;
        let mut lens = vec![0, 1, 63, 64, 65, small, small + 1];
        lens.push(rng.random_range(1..200_000));
        if !Hasher::splits_over_threads(alg) {
            let overlapped = PIECE * OVERLAP_FROM_PIECES as usize + 1;
            lens.extend([PIECE - 1, PIECE, PIECE + 1, overlapped]);
        }
        for len in lens {
            let data = random_bytes(len, len as u64);
            let path = write_file(dir.path(), "f", &data);
            let got = files(alg).hash_path(&path).unwrap();
            assert_eq!(got, hash(alg, &data), "{alg}, {len} bytes");
        }
    }
}

#[test]
fn tree_modes_hash_across_pieces_and_overlapped_reads() {
    let dir = tempfile::tempdir().unwrap();
    let overlapped = tree_piece() * (OVERLAP_FROM_PIECES as usize + 1) + 12_345;
    for alg in [Algorithm::Sandstorm256, Algorithm::Parsha256] {
        for len in [tree_piece() - 1, tree_piece(), tree_piece() + 1, overlapped] {
            let data = random_bytes(len, len as u64);
            let path = write_file(dir.path(), "f", &data);
            for threads in [1, 2] {
                for (mode, maps) in READ_AHEAD_MODES.into_iter().flat_map(with_and_without_maps) {
                    let builder = Hasher::builder(alg).threads(Threads::new(threads));
                    // One stream, as each read-ahead mode reads it (tests/read_strategies.rs
                    // has the threads that read their own pieces).
                    let files = FileHasher::new(builder)
                        .read_ahead(mode)
                        .memory_maps(maps)
                        .read_strategy(ReadStrategy::Sequential);
                    let got = files.hash_path(&path).unwrap();
                    let what = format!("{alg}, {len} bytes, {threads} threads, {mode:?}, {maps}");
                    assert_eq!(got, hash(alg, &data), "{what}");
                }
            }
        }
    }
}

#[test]
fn parsha256_tree_parameters_reach_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let params = TreeParams::new(5, 0).unwrap();
    let builder = Hasher::builder(Algorithm::Parsha256).tree_params(params);
    let small = random_bytes(5_000, 1);
    let large = random_bytes(3 * tree_piece() + 7, 2);
    let paths = [
        write_file(dir.path(), "small", &small),
        write_file(dir.path(), "large", &large),
    ];
    let expected = |data: &[u8]| {
        let mut h = builder.clone().build().unwrap();
        h.update(data);
        h.finalize()
    };
    let got: Vec<_> = FileHasher::new(builder.clone())
        .hash_paths(&paths)
        .map(|(_, r)| r.unwrap())
        .collect();
    assert_eq!(got, [expected(&small), expected(&large)]);
    assert_ne!(
        got[0],
        hash(Algorithm::Parsha256, &small),
        "T = 5 is not the default"
    );
}

/// Every way of reading a large file: on the hashing thread, on a reader thread, and the
/// default (the hashing thread while the file is cached, which it is here, then the reader
/// thread from the first read that finds no cached bytes, here the changed end).
const READ_AHEAD_MODES: [ReadAhead; 3] = [
    ReadAhead::WhenNotCached,
    ReadAhead::Always,
    ReadAhead::Never,
];

/// Each mode with maps allowed and without (a reader thread then maps the pieces in ahead of
/// the hasher, or reads them into buffers).
fn with_and_without_maps(mode: ReadAhead) -> [(ReadAhead, bool); 2] {
    [(mode, true), (mode, false)]
}

/// Whether a file `alg` reads ahead (`mode`) is mapped in rather than read when `maps` allows
/// it: only for the algorithms that spread one message over threads.
fn mapped_ahead(alg: Algorithm, mode: ReadAhead, maps: bool) -> bool {
    cfg!(target_os = "linux")
        && maps
        && mode != ReadAhead::Never
        && Hasher::splits_over_threads(alg)
}

#[test]
fn every_read_ahead_path_gives_the_digest_of_memory() {
    // Lengths around the pieces the reader thread has in flight, and random ones, each mapped
    // in (BLAKE3) and read.
    let dir = tempfile::tempdir().unwrap();
    let mut rng = StdRng::seed_from_u64(27);
    for alg in [Algorithm::Md5, Algorithm::Sha256, Algorithm::Blake3] {
        let piece = piece(alg);
        let around = (READ_AHEAD + OVERLAP_FROM_PIECES as usize + 1) * piece;
        let mut lens = vec![around - 1, around, around + 1];
        let overlapped = OVERLAP_FROM_PIECES as usize * piece + 1;
        lens.extend((0..3).map(|_| rng.random_range(overlapped..around)));
        for len in lens {
            let data = random_bytes(len, len as u64);
            let path = write_file(dir.path(), "f", &data);
            for maps in [true, false] {
                let files = FileHasher::new(Hasher::builder(alg).threads(Threads::ONE))
                    .read_ahead(ReadAhead::Always)
                    .memory_maps(maps);
                let got = files.hash_path(&path).unwrap();
                assert_eq!(got, hash(alg, &data), "{alg}, {len} bytes, maps {maps}");
            }
        }
    }
}

/// A file of `pieces` pieces, resized to `new_len` after the first: its result.
fn hash_resized(
    alg: Algorithm,
    pieces: usize,
    new_len: u64,
    mode: ReadAhead,
    maps: bool,
) -> (u64, io::Result<parhash::Output>) {
    let dir = tempfile::tempdir().unwrap();
    let len = pieces * piece(alg) + 5;
    let path = write_file(dir.path(), "changing", &random_bytes(len, 3));
    let resize = ResizeAfterFirstPiece {
        path: path.clone(),
        new_len,
        done: Once::new(),
    };
    let builder = Hasher::builder(alg).threads(Threads::ONE);
    let result = FileHasher::new(builder)
        .read_ahead(mode)
        .memory_maps(maps)
        .with_progress(&resize)
        .hash_path(&path);
    (len as u64, result)
}

#[test]
fn a_file_that_shrinks_is_an_error_not_a_crash() {
    // Read by the hashing thread (two pieces), and by a reader thread (more pieces than it
    // reads ahead, so the truncation lands before it is done).
    let overlapped = READ_AHEAD + OVERLAP_FROM_PIECES as usize + 2;
    for alg in [
        Algorithm::Md5,
        Algorithm::Sha256,
        Algorithm::Sandstorm512,
        Algorithm::Parsha256,
    ] {
        for pieces in [1, overlapped] {
            for (mode, new_len) in READ_AHEAD_MODES.into_iter().zip([0, 100, 0]) {
                for maps in [true, false] {
                    let (len, result) = hash_resized(alg, pieces, new_len, mode, maps);
                    let err = result.expect_err("a truncated file has no digest");
                    assert_eq!(err.to_string(), "file changed size while being read");
                    let changed = changed_size(&err);
                    assert_eq!(changed.expected, len, "{alg}");
                    let found = changed.found.expect("ended early");
                    let what = format!("{alg}, {pieces} pieces, {mode:?}, maps {maps}");
                    if pieces > 1 && mapped_ahead(alg, mode, maps) {
                        // A map finds the file's length now (and this shows the map was used).
                        assert_eq!(found, new_len, "{what}");
                    } else {
                        // Where the read met the new end: after the first piece at the earliest.
                        let first = piece(alg) as u64;
                        assert!((first..len).contains(&found), "{what}: {found} of {len}");
                    }
                }
            }
        }
    }
}

#[test]
fn a_file_that_grows_is_an_error() {
    for alg in [
        Algorithm::Sha256,
        Algorithm::Sandstorm256,
        Algorithm::Parsha256,
    ] {
        for (pieces, (mode, maps)) in [1, READ_AHEAD + 4].into_iter().flat_map(|p| {
            READ_AHEAD_MODES
                .into_iter()
                .flat_map(with_and_without_maps)
                .map(move |m| (p, m))
        }) {
            let grown = (pieces * piece(alg) + 100) as u64;
            let (len, result) = hash_resized(alg, pieces, grown, mode, maps);
            let err = result.expect_err("a grown file has no digest");
            let changed = changed_size(&err);
            assert_eq!((changed.expected, changed.found), (len, None), "{alg}");
        }
    }
}

#[test]
fn many_files_come_out_in_order_with_their_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = StdRng::seed_from_u64(21);
    let mut inputs = Vec::new();
    let mut expected: Vec<Option<Vec<u8>>> = Vec::new();
    for i in 0..300 {
        match i % 50 {
            7 => {
                inputs.push((i, FileInput::Path(dir.path().join("missing"))));
                expected.push(None);
            }
            8 => {
                inputs.push((i, FileInput::Failed(io::Error::other("listed as failed"))));
                expected.push(None);
            }
            9 => {
                // Larger than a small file, over the overlap limit of one-thread algorithms.
                let data = random_bytes(3 * PIECE + rng.random_range(0..1000), i as u64);
                let path = write_file(dir.path(), &i.to_string(), &data);
                let input = if (i / 50) % 2 == 0 {
                    FileInput::Path(path)
                } else {
                    FileInput::Walked(path)
                };
                inputs.push((i, input));
                expected.push(Some(data));
            }
            10 => {
                // Walked: opened without a look first; a missing one fails as a path does.
                inputs.push((i, FileInput::Walked(dir.path().join("missing"))));
                expected.push(None);
            }
            _ => {
                let data = random_bytes(rng.random_range(0..3000), i as u64);
                let path = write_file(dir.path(), &i.to_string(), &data);
                // Every other file as a walk hands it on (small and large alike).
                let input = if i % 2 == 0 {
                    FileInput::Walked(path)
                } else {
                    FileInput::Path(path)
                };
                inputs.push((i, input));
                expected.push(Some(data));
            }
        }
    }
    for alg in [Algorithm::Md5, Algorithm::Sha256, Algorithm::Sandstorm256] {
        // A forced variant keeps small files out of the lanes (which do not take it).
        let variants = alg.variants();
        let variant = variants.iter().find(|v| v.available).unwrap();
        for builder in [
            Hasher::builder(alg).threads(Threads::new(3)),
            Hasher::builder(alg).variant(alg.variant(variant.name).unwrap()),
        ] {
            let inputs = inputs.iter().map(|(i, input)| {
                let input = match input {
                    FileInput::Path(p) => FileInput::Path(p.clone()),
                    FileInput::Walked(p) => FileInput::Walked(p.clone()),
                    FileInput::Failed(e) => FileInput::Failed(io::Error::other(e.to_string())),
                    FileInput::Stdin => FileInput::Stdin,
                };
                (*i, input)
            });
            let outcomes: Vec<_> = FileHasher::new(builder).hash_files(inputs).collect();
            assert_eq!(outcomes.len(), expected.len());
            for (index, ((key, result), want)) in outcomes.iter().zip(&expected).enumerate() {
                assert_eq!(*key, index, "{alg}: in input order");
                match (result, want) {
                    (Ok(digest), Some(data)) => {
                        assert_eq!(*digest, hash(alg, data), "{alg} #{key}")
                    }
                    (Err(err), None) if key % 50 == 8 => {
                        assert_eq!(err.to_string(), "listed as failed")
                    }
                    (Err(err), None) => assert_eq!(err.kind(), io::ErrorKind::NotFound),
                    _ => panic!("{alg} #{key}: {result:?}"),
                }
            }
        }
    }
}

#[test]
fn long_xof_digests_of_many_files_come_out_in_order() {
    // 1 MiB digests make windows of 64 inputs (to bound memory): 100 files span two, with a
    // large file (hashed in order by BLAKE3's tree mode, by a worker for SHAKE) in each.
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<Vec<u8>> = (0..100)
        .map(|i| match i % 40 {
            5 => random_bytes(2 * PIECE + 17, i),
            _ => random_bytes(i as usize * 13, i),
        })
        .collect();
    let paths: Vec<PathBuf> = data
        .iter()
        .enumerate()
        .map(|(i, d)| write_file(dir.path(), &i.to_string(), d))
        .collect();
    for alg in [Algorithm::Blake3, Algorithm::Shake128] {
        let builder = Hasher::builder(alg).digest_size(parhash::Output::MAX);
        let outcomes: Vec<_> = FileHasher::new(builder.clone().threads(Threads::new(3)))
            .hash_paths(&paths)
            .collect();
        assert_eq!(outcomes.len(), data.len());
        for ((path, result), d) in outcomes.iter().zip(&data) {
            let mut h = builder.clone().build().unwrap();
            h.update(d);
            let digest = result.as_ref().unwrap();
            assert_eq!(digest.len(), parhash::Output::MAX);
            assert!(*digest == h.finalize(), "{alg}: {}", path.display());
        }
    }
}

#[test]
fn files_that_say_zero_bytes_are_read_to_their_end() {
    // procfs files report size 0 whatever they hold; PARSHA-256 must not be told "0 bytes".
    let path = Path::new("/proc/version");
    let Ok(content) = std::fs::read(path) else {
        return; // not Linux
    };
    assert!(!content.is_empty());
    for alg in [Algorithm::Parsha256, Algorithm::Sha256] {
        let expected = hash(alg, &content);
        assert_eq!(files(alg).hash_path(path).unwrap(), expected, "{alg}");
        let many: Vec<_> = files(alg).hash_paths([path]).collect();
        assert_eq!(*many[0].1.as_ref().unwrap(), expected, "{alg}, many files");
    }
}

#[test]
fn a_reader_of_unknown_length_is_hashed_to_its_end() {
    let data = random_bytes(2 * tree_piece() + 3, 9);
    for alg in [
        Algorithm::Md5,
        Algorithm::Parsha256,
        Algorithm::Sandstorm256,
    ] {
        let got = files(alg).hash_reader(&data[..]).unwrap();
        assert_eq!(got, hash(alg, &data), "{alg}");
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_is_read_as_a_stream() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo here
    }
    let data = random_bytes(PIECE * 3 + 11, 5);
    let writer = {
        let (fifo, data) = (fifo.clone(), data.clone());
        std::thread::spawn(move || File::create(fifo).unwrap().write_all(&data).unwrap())
    };
    let got = files(Algorithm::Parsha256).hash_path(&fifo).unwrap();
    writer.join().unwrap();
    assert_eq!(got, hash(Algorithm::Parsha256, &data));
}

#[test]
fn files_read_whole_into_lanes_give_the_digest_of_memory() {
    // Files a little over a small file, up to and past the largest a worker reads whole into
    // its lanes (2 MiB), side by side with small ones, on one thread and several: the lanes
    // and the piece-by-piece read must agree with the in-memory hash at every size.
    let dir = tempfile::tempdir().unwrap();
    let small = SMALL_FILE as usize;
    let sizes = [
        0,
        small - 1,
        small,
        small + 1,
        small + 64,
        3 * small + 5,
        1 << 20,
        (2 << 20) - 1,
        2 << 20,
        (2 << 20) + 1,
        3 << 20,
    ];
    let mut paths = Vec::new();
    let mut datas = Vec::new();
    for (i, &len) in sizes.iter().chain(sizes.iter().rev()).enumerate() {
        let data = random_bytes(len, 900 + i as u64);
        paths.push(write_file(dir.path(), &format!("m{i}"), &data));
        datas.push(data);
    }
    for alg in [
        Algorithm::Md5,
        Algorithm::Sha1,
        Algorithm::Sha256,
        Algorithm::Sha512,
        Algorithm::Sha3_256,
        Algorithm::Blake3,
    ] {
        for threads in [1, 2, 3] {
            let builder = Hasher::builder(alg).threads(Threads::new(threads));
            let got: Vec<_> = FileHasher::new(builder).hash_paths(&paths).collect();
            for ((path, result), data) in got.iter().zip(&datas) {
                let digest = result.as_ref().unwrap();
                assert_eq!(*digest, hash(alg, data), "{alg} x{threads}: {path:?}");
            }
        }
    }
}
