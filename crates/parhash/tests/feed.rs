//! `MultiHasher::hash_file_feeding`: the digests and a consumer's copy of the bytes from one
//! read, whichever read the engine picks (a map, reads, a sparse file's holes from memory),
//! and a file that changes while it is read failing as with the digests alone.

use std::fs::File;
use std::io::{self, Seek, SeekFrom, Write};
use std::time::Duration;

use parhash::file::{FileChangedSize, FileModified, MultiHasher};
use parhash::{hash, Algorithm, Hasher};

fn data(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 131 % 251) as u8).collect()
}

/// The digests `engine` gives for `file` and the bytes its consumer was fed, checked in order.
fn fed(engine: &MultiHasher, file: &File) -> io::Result<(Vec<parhash::Output>, Vec<u8>)> {
    let mut bytes = Vec::new();
    let digests = engine.hash_file_feeding(file, |offset, piece| {
        assert_eq!(offset, bytes.len() as u64, "pieces in order");
        bytes.extend_from_slice(piece);
        Ok(())
    })?;
    Ok((digests, bytes))
}

/// Every read the engine has, for lengths from empty to several of its pieces: the consumer
/// gets the file's bytes, each builder its digest.
#[test]
fn the_consumer_gets_the_bytes_the_hashers_hash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    let all = data(21 << 20 | 777);
    let algorithm_sets: [&[Algorithm]; 4] = [
        &[],
        // A tree mode: mapped.
        &[Algorithm::Blake3],
        // One stream: read.
        &[Algorithm::Sha256],
        &[Algorithm::Sha256, Algorithm::Blake3, Algorithm::Xxh128],
    ];
    for len in [0, 1, 5000, 1 << 20, all.len()] {
        std::fs::write(&path, &all[..len]).unwrap();
        for algorithms in algorithm_sets {
            for maps in [true, false] {
                let engine = MultiHasher::new(algorithms.iter().map(|&a| Hasher::builder(a)))
                    .memory_maps(maps);
                let (digests, bytes) = fed(&engine, &File::open(&path).unwrap()).unwrap();
                assert!(bytes == all[..len], "{len} {algorithms:?} maps {maps}");
                let expected: Vec<_> = algorithms.iter().map(|&a| hash(a, &all[..len])).collect();
                assert_eq!(digests, expected, "{len} {algorithms:?} maps {maps}");
            }
        }
    }
}

/// A sparse file (holes at the start, middle and end) feeds the same bytes as the dense one.
#[test]
fn holes_are_fed_as_zeros() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sparse");
    let len = 40u64 << 20;
    let mut dense = vec![0u8; len as usize];
    let mut file = File::create(&path).unwrap();
    file.set_len(len).unwrap();
    for at in [9u64 << 20, 20 << 20, (30 << 20) + 12345] {
        let chunk = data(1 << 20);
        file.seek(SeekFrom::Start(at)).unwrap();
        file.write_all(&chunk).unwrap();
        dense[at as usize..at as usize + chunk.len()].copy_from_slice(&chunk);
    }
    file.sync_all().unwrap();
    for algorithms in [&[][..], &[Algorithm::Blake3], &[Algorithm::Sha256]] {
        let engine = MultiHasher::new(algorithms.iter().map(|&a| Hasher::builder(a)));
        let (digests, bytes) = fed(&engine, &File::open(&path).unwrap()).unwrap();
        assert!(bytes == dense, "{algorithms:?}");
        let expected: Vec<_> = algorithms.iter().map(|&a| hash(a, &dense)).collect();
        assert_eq!(digests, expected);
    }
}

/// A file cut short or rewritten while it is read (by the consumer itself, between two pieces)
/// is the engine's error, on the map and on the read path.
#[test]
fn a_file_that_changes_while_read_fails() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    let all = data(24 << 20);
    for algorithms in [&[][..], &[Algorithm::Blake3], &[Algorithm::Sha256]] {
        for maps in [true, false] {
            let engine =
                MultiHasher::new(algorithms.iter().map(|&a| Hasher::builder(a))).memory_maps(maps);
            std::fs::write(&path, &all).unwrap();
            let file = File::open(&path).unwrap();
            let writer = File::options().write(true).open(&path).unwrap();
            let err = engine
                .hash_file_feeding(&file, |offset, _| {
                    if offset == 0 {
                        writer.set_len(1 << 20).unwrap();
                    }
                    Ok(())
                })
                .unwrap_err();
            let changed = err
                .get_ref()
                .and_then(|e| e.downcast_ref::<FileChangedSize>());
            assert_eq!(
                changed.map(|c| c.expected),
                Some(all.len() as u64),
                "{algorithms:?} maps {maps}: {err}"
            );

            std::fs::write(&path, &all).unwrap();
            let file = File::open(&path).unwrap();
            let writer = File::options().write(true).open(&path).unwrap();
            let later = writer.metadata().unwrap().modified().unwrap() + Duration::from_secs(5);
            let err = engine
                .hash_file_feeding(&file, |_, _| {
                    writer.set_modified(later).unwrap();
                    Ok(())
                })
                .unwrap_err();
            assert!(
                err.get_ref().is_some_and(|e| e.is::<FileModified>()),
                "{algorithms:?} maps {maps}: {err}"
            );
        }
    }
}

/// The consumer's error stops the hashing and is the result.
#[test]
fn the_consumers_error_is_returned() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, data(12 << 20)).unwrap();
    let engine = MultiHasher::new([Hasher::builder(Algorithm::Sha256)]);
    let mut calls = 0;
    let err = engine
        .hash_file_feeding(&File::open(&path).unwrap(), |_, _| {
            calls += 1;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
    assert_eq!(err.to_string(), "disk full");
    assert_eq!(calls, 1);
}

/// Input of unknown length (a pipe) is fed to its end.
#[cfg(unix)]
#[test]
fn a_pipe_is_fed_to_its_end() {
    let all = data(3 << 20);
    let mut child = std::process::Command::new("cat")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writing = {
        let all = all.clone();
        std::thread::spawn(move || stdin.write_all(&all))
    };
    let stdout: std::os::fd::OwnedFd = child.stdout.take().unwrap().into();
    let pipe = File::from(stdout);
    let engine = MultiHasher::new([Algorithm::Md5, Algorithm::Parsha256].map(Hasher::builder));
    let (digests, bytes) = fed(&engine, &pipe).unwrap();
    writing.join().unwrap().unwrap();
    child.wait().unwrap();
    assert!(bytes == all);
    assert_eq!(digests[0], hash(Algorithm::Md5, &all));
    assert_eq!(digests[1], hash(Algorithm::Parsha256, &all));
}
