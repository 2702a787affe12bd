//! `parhash::file::read_whole_files`: the bytes of many files for a caller that hashes them
//! elsewhere (the GPU's batches). Every read strategy and thread count gives each file's bytes
//! in input order; what is not read (standard input, failed inputs, FIFOs, directories, files
//! over the limit, files with holes) is left in its place, and errors are the file's own.

mod common;

use std::fs::File;
use std::io;

use parhash::file::{read_whole_files, FileInput, ReadStrategy, WholeFile};
use parhash::lab::file::SMALL_FILE;
use parhash::Threads;

use common::files::{seeded_bytes, write_file};

/// What a test expects of one input.
#[derive(Debug)]
enum Expect {
    Bytes(Vec<u8>),
    Left,
    NotFound,
}

fn check(inputs: &[FileInput], expected: &[Expect], up_to: u64) {
    for read in ReadStrategy::ALL {
        for threads in [1, 2, 5] {
            let got = read_whole_files(inputs, up_to, read, Threads::new(threads));
            assert_eq!(got.len(), inputs.len(), "{read} -j {threads}");
            for (i, (got, want)) in got.iter().zip(expected).enumerate() {
                let ok = match (got, want) {
                    (WholeFile::Read(data), Expect::Bytes(bytes)) => data == bytes,
                    (WholeFile::Left, Expect::Left) => true,
                    (WholeFile::Failed(e), Expect::NotFound) => e.kind() == io::ErrorKind::NotFound,
                    _ => false,
                };
                assert!(
                    ok,
                    "{read} -j {threads}, input {i}: got {got:?}, want {want:?}"
                );
            }
        }
    }
}

#[test]
fn every_strategy_gives_each_file_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let up_to = 3 * SMALL_FILE;
    let lens = [
        0,
        1,
        55,
        SMALL_FILE as usize - 1,
        SMALL_FILE as usize,
        SMALL_FILE as usize + 1,
        up_to as usize,
        up_to as usize + 1,
        7,
    ];
    let mut inputs = Vec::new();
    let mut expected = Vec::new();
    for (i, &len) in lens.iter().enumerate() {
        let data = seeded_bytes(len, i as u64);
        let path = write_file(dir.path(), &format!("f{i}"), &data);
        // Paths from a walk are opened without a look first: the same bytes.
        inputs.push(if i % 2 == 0 {
            FileInput::Path(path)
        } else {
            FileInput::Walked(path)
        });
        expected.push(if len as u64 <= up_to {
            Expect::Bytes(data)
        } else {
            Expect::Left
        });
        if i == 3 {
            inputs.push(FileInput::Path(dir.path().join("missing")));
            expected.push(Expect::NotFound);
            inputs.push(FileInput::Stdin);
            expected.push(Expect::Left);
            inputs.push(FileInput::Failed(io::Error::other("listing failed")));
            expected.push(Expect::Left);
            inputs.push(FileInput::Path(dir.path().to_path_buf()));
            expected.push(Expect::Left);
        }
    }
    check(&inputs, &expected, up_to);
    // A limit below the small files' size is still the limit.
    let small = [
        FileInput::Path(dir.path().join("f2")),
        FileInput::Path(dir.path().join("f1")),
    ];
    check(
        &small,
        &[Expect::Left, Expect::Bytes(seeded_bytes(1, 1))],
        10,
    );
    assert!(read_whole_files(&[], up_to, ReadStrategy::Auto, Threads::ALL).is_empty());
}

/// Many files, so that several workers claim them at once.
#[test]
fn thousands_of_files_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<(FileInput, Expect)> = (0..3000)
        .map(|i| {
            let data = seeded_bytes(i % 200, i as u64);
            let path = write_file(dir.path(), &format!("{i}"), &data);
            (FileInput::Path(path), Expect::Bytes(data))
        })
        .collect();
    let (inputs, expected): (Vec<_>, Vec<_>) = files.into_iter().unzip();
    check(&inputs, &expected, SMALL_FILE);
}

/// A FIFO is not opened (its open would wait for a writer): left for its reader.
#[cfg(unix)]
#[test]
fn a_fifo_is_left_unopened() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
    let data = seeded_bytes(100, 9);
    let path = write_file(dir.path(), "after", &data);
    check(
        &[FileInput::Path(fifo), FileInput::Path(path)],
        &[Expect::Left, Expect::Bytes(data)],
        SMALL_FILE,
    );
}

/// A file with holes over [`SMALL_FILE`] bytes is left (the engine does not read holes); one
/// of at most [`SMALL_FILE`] is read whole, holes and all.
#[cfg(target_os = "linux")]
#[test]
fn a_file_with_holes_is_left_over_the_small_size() {
    use std::os::unix::fs::{FileExt, MetadataExt};
    let dir = tempfile::tempdir().unwrap();
    let sparse = |name: &str, len: u64| {
        let path = dir.path().join(name);
        let file = File::create(&path).unwrap();
        file.set_len(len).unwrap();
        file.write_all_at(b"end", len - 3).unwrap();
        file.sync_all().unwrap();
        let allocated = file.metadata().unwrap().blocks() * 512;
        assert!(allocated < len, "{name}: the file system filled the holes");
        let mut bytes = vec![0; len as usize];
        bytes[len as usize - 3..].copy_from_slice(b"end");
        (path, bytes)
    };
    let (large, _) = sparse("large", 4 << 20);
    let (small, small_bytes) = sparse("small", SMALL_FILE);
    check(
        &[FileInput::Path(large), FileInput::Path(small)],
        &[Expect::Left, Expect::Bytes(small_bytes)],
        8 << 20,
    );
}
