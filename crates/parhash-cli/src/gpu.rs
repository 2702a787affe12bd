//! `parhash sum --device gpu`: files hashed by the CUDA backend (`parhash-cuda`). sha256,
//! sha3-256 and keccak256 go in batches of many files (one GPU thread per file): a reader
//! thread reads each batch's files at once (the file engine's reads and its rule for the
//! storage, `--read`) while the GPU hashes the batch before; files over 64 MiB, and files
//! with holes, are hashed by the CPU, streamed. parsha256 (`--tree-height`, `--iv-bits`)
//! hashes each file as a tree of GPU threads, read once, a piece at a time on every core into
//! pinned memory while the piece before is copied. The lines are the CPU's, byte for byte.
//! Without a usable GPU this stops with the backend's one message, `no usable CUDA GPU:
//! <reason>`.

use std::ffi::OsString;
use std::io::{self, Read, Write};

use anyhow::{Context, Result};
use parhash::file::{read_whole_files, FileInput, WholeFile};
use parhash::{Algorithm, Output};
use parhash_cuda::wins::Scale;
use parhash_cuda::{Gpu, SourceError};

use crate::flags::SumArgs;
use crate::input;
use crate::many::Item;
use crate::messages::{report_failure, WRITE_ERROR};
use parhash_format::line::{write_failure, write_line, LineStyle};

/// Bytes of file data per batch (bounds memory on huge file lists: one batch is hashed while
/// the next is read).
const BATCH_BYTES: usize = 256 << 20;

/// Files per batch at most.
const BATCH_FILES: usize = 1 << 20;

/// Files larger than this are hashed by the batched kernels' CPU twin, streamed: one GPU thread
/// per message is far slower than a CPU core on one long message, and streaming keeps memory
/// bounded. (PARSHA-256 is the GPU's way to hash one long message.)
pub const LARGE_FILE: u64 = 64 << 20;

/// One file of a batch, in command-line order.
#[derive(Debug)]
enum Entry {
    /// Read into memory, to be hashed on the GPU.
    Read(Vec<u8>),
    /// Already hashed (on the CPU: a large file, one with holes, or below `auto`'s size).
    Done(Output),
    /// Could not be read.
    Failed(io::Error),
}

/// What runs on the GPU: many files per batch, or each file as PARSHA-256's tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum GpuJob {
    Batch,
    Parsha { tree_height: u32, iv_bits: u32 },
}

fn job_for(algorithm: Algorithm, args: &SumArgs) -> Result<GpuJob> {
    Gpu::check_algorithm(algorithm)?;
    Ok(if algorithm == Algorithm::Parsha256 {
        let params = args.hashing.tree_params();
        GpuJob::Parsha {
            tree_height: params.tree_height(),
            iv_bits: params.iv_bits(),
        }
    } else {
        GpuJob::Batch
    })
}

/// Runs `sum --device gpu` over `files` (with `-r`, the files below the directories among
/// them, as on the CPU); `Ok(false)` when a file failed.
pub fn run(
    algorithm: Algorithm,
    files: &[OsString],
    args: &SumArgs,
    style: LineStyle,
) -> Result<bool> {
    let job = job_for(algorithm, args)?;
    run_on(&Gpu::open()?, job, 0, algorithm, files, args, style)
}

/// Runs `sum --device auto`: on the GPU where `parhash bench --preset gpu` recorded it winning
/// on this machine ([`parhash_cuda::wins`]): PARSHA-256 files of the recorded size and more
/// (smaller ones on the CPU), and the batched algorithms' command lines of the recorded number
/// of files or more. `None` (nothing started) where the record, the GPU or this invocation
/// (`-r`: how many files, and how large, is known only once walked) rules the GPU out, and the
/// caller hashes everything on the CPU.
pub fn run_auto(
    algorithm: Algorithm,
    files: &[OsString],
    args: &SumArgs,
    style: LineStyle,
) -> Option<Result<bool>> {
    if args.recursive {
        return None;
    }
    let job = job_for(algorithm, args).ok()?;
    let scale = match job {
        GpuJob::Parsha {
            tree_height,
            iv_bits,
        } => Scale::Tree {
            tree_height,
            iv_bits,
        },
        GpuJob::Batch => Scale::Files,
    };
    let record = parhash_cuda::wins::load()?;
    let from = record
        .gpu_from(&record.device, algorithm.info().name, scale)?
        .max(1);
    // Opening the GPU costs more than hashing a few small files: only when the record says
    // this command line is worth it.
    let (worth_it, min_bytes) = match job {
        GpuJob::Parsha { .. } => (
            files
                .iter()
                .any(|f| std::fs::metadata(f).is_ok_and(|m| m.is_file() && m.len() >= from)),
            from,
        ),
        GpuJob::Batch => (files.len() as u64 >= from, 0),
    };
    if !worth_it {
        return None;
    }
    let gpu = Gpu::open().ok().filter(|g| g.name() == record.device)?;
    Some(run_on(&gpu, job, min_bytes, algorithm, files, args, style))
}

/// Hashes `files` (walked with `-r`) on `gpu`: in batches, or (PARSHA-256) one file at a
/// time, those under `min_bytes` (and standard input, when it is above 0) on the CPU.
fn run_on(
    gpu: &Gpu,
    job: GpuJob,
    min_bytes: u64,
    algorithm: Algorithm,
    files: &[OsString],
    args: &SumArgs,
    style: LineStyle,
) -> Result<bool> {
    let mut out = Lines::new(algorithm, style);
    let items = crate::many::items_for(files, args.recursive);
    let (tree_height, iv_bits) = match job {
        // The next batch's files are read at once (the file engine's reads and `--read`'s
        // rule) while the GPU hashes this one.
        GpuJob::Batch => {
            pipeline(
                group(items, BATCH_FILES, BATCH_BYTES as u64),
                |batch| read_batch(batch, algorithm, args),
                |batch| hash_batch(gpu, algorithm, batch, 0, 0),
                |batch, digests| out.write(batch, digests),
            )?;
            return out.finish();
        }
        GpuJob::Parsha {
            tree_height,
            iv_bits,
        } => (tree_height, iv_bits),
    };
    for item in items {
        let (name, entry) = match item {
            Item::Failed { name, error } => (name, Entry::Failed(error)),
            Item::Hash { name, source, .. } => {
                let entry = match &source {
                    input::Source::Path(path)
                        if min_bytes > 0
                            && std::fs::metadata(path).is_ok_and(|m| m.len() < min_bytes) =>
                    {
                        hashed_on_cpu(algorithm, &source, args)
                    }
                    input::Source::Path(path) => {
                        match parsha_file(gpu, path, tree_height, iv_bits)? {
                            Ok(digest) => Entry::Done(digest),
                            Err(err) => Entry::Failed(err),
                        }
                    }
                    input::Source::Stdin if min_bytes > 0 => {
                        hashed_on_cpu(algorithm, &source, args)
                    }
                    // Read whole, one message on the GPU.
                    input::Source::Stdin => read_in_turn(&source),
                };
                (name, entry)
            }
        };
        let batch = vec![(name, entry)];
        let digests = hash_batch(gpu, algorithm, &batch, tree_height, iv_bits)?;
        out.write(batch, digests)?;
    }
    out.finish()
}

/// The files of one batch, in command-line order, with what became of each.
type Batch = Vec<(Vec<u8>, Entry)>;

/// Runs `read` over `batches` on a thread of its own, one batch ahead of `hash` and `write`
/// on this one. At most two batches are held (one waits while the next is read); when
/// `hash` or `write` fails, the reader stops at its next batch.
fn pipeline<N: Send, B: Send>(
    batches: impl Iterator<Item = N> + Send,
    read: impl Fn(N) -> B + Sync,
    mut hash: impl FnMut(&B) -> Result<Vec<[u8; 32]>>,
    mut write: impl FnMut(B, Vec<[u8; 32]>) -> Result<()>,
) -> Result<()> {
    let (send, ready) = std::sync::mpsc::sync_channel::<B>(1);
    let read = &read;
    std::thread::scope(|scope| {
        scope.spawn(move || {
            for names in batches {
                // The receiver is gone only when hashing or writing failed.
                if send.send(read(names)).is_err() {
                    break;
                }
            }
        });
        for batch in ready {
            let digests = hash(&batch)?;
            write(batch, digests)?;
        }
        Ok(())
    })
}

/// One input of a batch before it is read: its name, and what a look at it found (its length
/// where it is a regular file), or why it has no digest.
type Named = (Vec<u8>, Result<(input::Source, Option<u64>), io::Error>);

/// The inputs in batches of at most `max_files` files and about `max_bytes` of file data to
/// read (the last file may pass it), by the lengths their files have now (a file that grows
/// is bounded by [`LARGE_FILE`] when it is read). Runs on [`pipeline`]'s reader thread, so
/// the one look at each file is not on the GPU's side either.
fn group(
    items: impl Iterator<Item = Item>,
    max_files: usize,
    max_bytes: u64,
) -> impl Iterator<Item = Vec<Named>> {
    let mut items = items.peekable();
    std::iter::from_fn(move || {
        items.peek()?;
        let (mut batch, mut bytes) = (Vec::new(), 0u64);
        while bytes < max_bytes && batch.len() < max_files {
            let Some(item) = items.next() else { break };
            let named = match item {
                Item::Failed { name, error } => (name, Err(error)),
                Item::Hash { name, source, .. } => {
                    let len = match &source {
                        input::Source::Path(path) => std::fs::metadata(path)
                            .ok()
                            .filter(|m| m.is_file())
                            .map(|m| m.len()),
                        input::Source::Stdin => None,
                    };
                    bytes += len.filter(|&len| len <= LARGE_FILE).unwrap_or(0);
                    (name, Ok((source, len)))
                }
            };
            batch.push(named);
        }
        Some(batch)
    })
}

/// Reads a batch's regular files of at most [`LARGE_FILE`] bytes at once; hashes larger
/// ones (and files with holes, which are not read) on the CPU, streamed; reads standard
/// input and what is not a regular file whole, in turn.
fn read_batch(batch: Vec<Named>, algorithm: Algorithm, args: &SumArgs) -> Batch {
    let inputs: Vec<FileInput> = batch
        .iter()
        .map(|(_, named)| match named {
            // A regular file a moment ago: opened without a second look.
            Ok((input::Source::Path(path), Some(len))) if *len <= LARGE_FILE => {
                FileInput::Walked(path.clone())
            }
            // Left for the loop below, in its turn.
            _ => FileInput::Stdin,
        })
        .collect();
    let read = read_whole_files(&inputs, LARGE_FILE, args.hashing.read, args.hashing.threads);
    batch
        .into_iter()
        .zip(read)
        .map(|((name, named), whole)| {
            let entry = match (whole, named) {
                (_, Err(error)) => Entry::Failed(error),
                (WholeFile::Read(data), _) => Entry::Read(data),
                (WholeFile::Failed(err), _) => Entry::Failed(err),
                (WholeFile::Left, Ok((source, Some(_)))) => hashed_on_cpu(algorithm, &source, args),
                (WholeFile::Left, Ok((source, None))) => read_in_turn(&source),
            };
            (name, entry)
        })
        .collect()
}

/// One input hashed by the CPU's file engine (streamed, with its checks).
fn hashed_on_cpu(algorithm: Algorithm, source: &input::Source, args: &SumArgs) -> Entry {
    match input::hash_input(algorithm, source, &args.hashing) {
        Ok(digest) => Entry::Done(digest),
        Err(err) => Entry::Failed(err),
    }
}

/// Standard input, or what is not a regular file, read whole for the GPU.
fn read_in_turn(source: &input::Source) -> Entry {
    let read = match source {
        input::Source::Stdin => {
            let mut data = Vec::new();
            io::stdin().lock().read_to_end(&mut data).map(|_| data)
        }
        input::Source::Path(path) => std::fs::read(path),
    };
    match read {
        Ok(data) => Entry::Read(data),
        Err(err) => Entry::Failed(err),
    }
}

/// The GPU's digests of a batch's files read into memory, in order.
fn hash_batch(
    gpu: &Gpu,
    algorithm: Algorithm,
    batch: &Batch,
    tree_height: u32,
    iv_bits: u32,
) -> Result<Vec<[u8; 32]>> {
    let inputs: Vec<&[u8]> = batch
        .iter()
        .filter_map(|(_, e)| match e {
            Entry::Read(d) => Some(d.as_slice()),
            _ => None,
        })
        .collect();
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    Ok(gpu.hash_many(algorithm, &inputs, tree_height, iv_bits)?)
}

/// Writes each file's line (or its failure) in order.
struct Lines {
    algorithm: Algorithm,
    style: LineStyle,
    stdout: crate::stdio::Stdout,
    lines: Vec<u8>,
    all_ok: bool,
}

impl Lines {
    fn new(algorithm: Algorithm, style: LineStyle) -> Lines {
        Lines {
            algorithm,
            style,
            stdout: crate::stdio::stdout(),
            lines: Vec::new(),
            all_ok: true,
        }
    }

    /// The lines of `batch`, whose files read into memory have `digests`, in order.
    fn write(&mut self, batch: Batch, digests: Vec<[u8; 32]>) -> Result<()> {
        let mut next = digests.iter();
        for (name, entry) in batch {
            let digest = match entry {
                Entry::Read(_) => {
                    Output::from_slice(next.next().expect("one digest per file read"))
                }
                Entry::Done(digest) => digest,
                Entry::Failed(err) => {
                    write_failure(&mut self.lines, self.algorithm, &name, &err, self.style);
                    self.stdout.write_all(&self.lines).context(WRITE_ERROR)?;
                    self.lines.clear();
                    report_failure(&name, &err);
                    self.all_ok = false;
                    continue;
                }
            };
            write_line(&mut self.lines, self.algorithm, &digest, &name, self.style);
        }
        self.stdout.write_all(&self.lines).context(WRITE_ERROR)?;
        self.lines.clear();
        Ok(())
    }

    /// Flushes; whether every file was hashed.
    fn finish(mut self) -> Result<bool> {
        self.stdout.flush().context(WRITE_ERROR)?;
        Ok(self.all_ok)
    }
}

/// PARSHA-256 of one file on the GPU ([`Gpu::parsha256_file`]: read once, the CPU's rules for
/// a file that changes). `Ok(Err(..))`: the file could not be read or changed, a failure of that
/// file alone; `Err(..)`: the GPU failed.
fn parsha_file(
    gpu: &Gpu,
    path: &std::path::Path,
    tree_height: u32,
    iv_bits: u32,
) -> Result<io::Result<Output>> {
    match gpu.parsha256_file(path, tree_height, iv_bits) {
        Ok(run) => Ok(Ok(Output::from_slice(&run.digest))),
        Err(SourceError::Read(e)) => Ok(Err(e)),
        Err(SourceError::Gpu(e)) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parhash_format::escape;
    use std::path::Path;

    fn write(dir: &Path, name: &str, data: &[u8]) -> OsString {
        let path = dir.join(name);
        std::fs::write(&path, data).unwrap();
        path.into_os_string()
    }

    #[test]
    fn batches_end_at_their_file_count_or_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<OsString> = (0..10)
            .map(|i| write(dir.path(), &format!("{i}"), &[1; 100]))
            .collect();
        fn groups(
            files: &[OsString],
            max_files: usize,
            max_bytes: u64,
        ) -> impl Iterator<Item = Vec<Named>> + '_ {
            group(crate::many::items_for(files, false), max_files, max_bytes)
        }
        let sizes = |max_files, max_bytes| -> Vec<usize> {
            groups(&files, max_files, max_bytes)
                .map(|b| b.len())
                .collect()
        };
        assert_eq!(sizes(4, u64::MAX), [4, 4, 2]);
        assert_eq!(sizes(100, 250), [3, 3, 3, 1]);
        assert_eq!(sizes(100, 1), vec![1; 10]);
        assert!(groups(&[], 4, 100).next().is_none());
        // What is not a regular file (or is gone) counts no bytes and is looked at once.
        let others = [
            OsString::from("-"),
            dir.path().join("missing").into_os_string(),
            dir.path().as_os_str().to_owned(),
        ];
        let batch: Vec<Named> = groups(&others, 100, 1).flatten().collect();
        assert!(batch
            .iter()
            .all(|(_, named)| matches!(named, Ok((_, None)))));
        assert_eq!(groups(&others, 100, 1).count(), 1);
    }

    /// `-r`: the walk's files, in the walk's order and with its names (those the CPU prints),
    /// each read whole, over batches of any size.
    #[test]
    fn a_walked_tree_is_read_in_the_walks_order() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("tree");
        std::fs::create_dir_all(tree.join("b/c")).unwrap();
        for (i, name) in ["z", "a", "b/y", "b/c/x", "b/c/w", "m"].iter().enumerate() {
            std::fs::write(tree.join(name), vec![i as u8; i * 1000]).unwrap();
        }
        let roots = [tree.into_os_string()];
        let walked: Vec<(Vec<u8>, Vec<u8>)> = crate::many::items_for(&roots, true)
            .map(|item| match item {
                Item::Hash {
                    name,
                    source: input::Source::Path(path),
                    walked: true,
                } => (name, std::fs::read(path).unwrap()),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(walked.len(), 6);
        let args = crate::flags::tests::sum(&["-r"]);
        for max_files in [1, 4, 100] {
            let batches = group(crate::many::items_for(&roots, true), max_files, u64::MAX);
            let read: Vec<(Vec<u8>, Vec<u8>)> = batches
                .flat_map(|batch| read_batch(batch, Algorithm::Sha256, &args))
                .map(|(name, entry)| match entry {
                    Entry::Read(data) => (name, data),
                    other => panic!("{other:?}"),
                })
                .collect();
            assert_eq!(read, walked, "batches of {max_files}");
        }
    }

    /// The pipeline hands every batch on in order, and a failure stops the reader.
    #[test]
    fn the_pipeline_keeps_order_and_stops_reading_at_a_failure() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let digest = |n: &u32| -> [u8; 32] { [*n as u8; 32] };
        let mut written = Vec::new();
        pipeline(
            (0..50u32).map(|i| vec![i, i + 100]),
            |names: Vec<u32>| names,
            |batch: &Vec<u32>| Ok(batch.iter().map(digest).collect()),
            |batch, digests| {
                assert_eq!(digests, batch.iter().map(digest).collect::<Vec<_>>());
                written.extend(batch);
                Ok(())
            },
        )
        .unwrap();
        let want: Vec<u32> = (0..50).flat_map(|i| [i, i + 100]).collect();
        assert_eq!(written, want);

        let reads = AtomicUsize::new(0);
        let mut hashed = 0;
        let err = pipeline(
            0..1000u32,
            |n| {
                reads.fetch_add(1, Ordering::Relaxed);
                n
            },
            |&n| {
                hashed += 1;
                if n == 2 {
                    anyhow::bail!("the GPU failed")
                }
                Ok(Vec::new())
            },
            |_, _| Ok(()),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "the GPU failed");
        assert_eq!(hashed, 3);
        // Batch 2 failed; the reader may have read two more before it saw the receiver gone.
        assert!(reads.load(Ordering::Relaxed) <= 5, "{reads:?}");
    }

    /// Every kind of input a batch meets becomes what the GPU path needs of it, in order: the
    /// bytes of small files, the CPU's digest of files it does not read whole, each failure
    /// its own.
    #[test]
    fn a_batch_reads_small_files_and_leaves_the_rest_to_the_cpu() {
        let dir = tempfile::tempdir().unwrap();
        let small: Vec<Vec<u8>> = (0..300usize)
            .map(|i| (0..i * 7).map(|j| (i * 31 + j) as u8).collect())
            .collect();
        let mut files: Vec<OsString> = small
            .iter()
            .enumerate()
            .map(|(i, data)| write(dir.path(), &format!("s{i}"), data))
            .collect();
        // A file with holes over the small size: hashed by the CPU, which skips its holes.
        let sparse = dir.path().join("sparse");
        let file = std::fs::File::create(&sparse).unwrap();
        file.set_len(1 << 20).unwrap();
        drop(file);
        files.insert(5, sparse.into_os_string());
        files.insert(9, dir.path().join("missing").into_os_string());
        files.insert(12, dir.path().as_os_str().to_owned());
        for read in ["auto", "sequential", "parallel"] {
            for threads in ["1", "3"] {
                let args = crate::flags::tests::sum(&["--read", read, "-j", threads]);
                let items = crate::many::items_for(&files, false);
                let names: Vec<Named> = group(items, usize::MAX, u64::MAX).flatten().collect();
                let batch = read_batch(names, Algorithm::Sha256, &args);
                assert_eq!(batch.len(), files.len());
                let mut small = small.iter();
                for (i, (name, entry)) in batch.iter().enumerate() {
                    assert_eq!(name, escape::os_bytes(&files[i]).as_ref());
                    match (i, entry) {
                        (5, Entry::Done(digest)) => {
                            assert_eq!(*digest, parhash::hash(Algorithm::Sha256, &vec![0; 1 << 20]))
                        }
                        (9, Entry::Failed(e)) => assert_eq!(e.kind(), io::ErrorKind::NotFound),
                        (12, Entry::Failed(e)) => assert_eq!(e.kind(), io::ErrorKind::IsADirectory),
                        (5 | 9 | 12, other) => panic!("input {i}: {other:?}"),
                        (_, Entry::Read(data)) => assert_eq!(Some(data), small.next()),
                        (_, other) => panic!("input {i}: {other:?}"),
                    }
                }
                assert!(small.next().is_none());
            }
        }
    }
}
