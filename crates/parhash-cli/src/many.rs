//! Many inputs at once (`sum` over many files): small files read in parallel and hashed side by
//! side in SIMD lanes, everything else streamed, results in the order the inputs were given.
//!
//! IMPLEMENTATION NOTE. Inputs are taken [`WINDOW`] at a time. Within a window, worker threads
//! claim inputs one by one; a regular file of at most [`SMALL_FILE`] bytes is read whole and
//! submitted to the worker's own `parhash::batch::JobManager`, which hashes up to 16 files at
//! once and drops each file's bytes as soon as its digest is out. So the memory in use is about
//! threads x lanes x `SMALL_FILE` of file data plus one window of digests, however many files
//! there are. A larger regular file is streamed by the worker that claimed it through
//! `input::hash_input` (the function the one-by-one path uses, so every error comes out worded
//! exactly as there): several large files are read and hashed at once, one per thread, with a
//! fixed buffer each. Where the algorithm has a tree mode (it splits one file over all threads
//! itself), large files instead go in order, one at a time, as do standard input, directories
//! and FIFOs. A window's results are handed on in input order once it is done.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Result;
use parhash::batch::JobManager;
use parhash::{Algorithm, Output, Threads};

use crate::flags::HashOptions;
use crate::input::{hash_input, Source};
use crate::progress::ManyProgress;

/// Files up to this size are read whole and hashed in lanes; larger ones are streamed. Above
/// it a file is long enough for the single-message code (or a tree mode) to run at full speed,
/// and reading it whole would cost more memory than it saves time.
pub const SMALL_FILE: u64 = 64 * 1024;

/// Inputs per window: enough to keep every thread's lanes full between the points where
/// results are handed on in order.
pub const WINDOW: usize = 4096;

/// One input: a name to report and what to hash, or an error found before hashing (a
/// directory of `-r` that could not be read).
#[derive(Debug)]
pub enum Item {
    Hash { name: Vec<u8>, source: Source },
    Failed { name: Vec<u8>, error: io::Error },
}

/// What became of one input, in order.
pub type Outcome = (Vec<u8>, io::Result<Output>);

/// Hashes every item with `alg`, handing each window's outcomes, in input order, to `emit`
/// (called with the progress bar hidden).
pub fn run(
    alg: Algorithm,
    items: impl Iterator<Item = Item>,
    options: &HashOptions,
    progress: &ManyProgress,
    mut emit: impl FnMut(Vec<Outcome>) -> Result<()>,
) -> Result<()> {
    // The library's policy says how many, and its pool runs them (see `hash_in_parallel`).
    let threads = options.threads.count();
    // Streamed inputs report to the many-files bar, not a bar of their own.
    let streaming = HashOptions {
        no_progress: true,
        ..options.clone()
    };
    let mut items = items.peekable();
    while items.peek().is_some() {
        let window: Vec<Item> = items.by_ref().take(WINDOW).collect();
        // Tree parameters (PARSHA-256's T and l) and `-l`'s digest sizes reach only the
        // one-by-one path, not the lanes' hashers: hash each file in order.
        let hashed = if crate::parsha::takes_tree_params(alg) || options.digest_size(alg).is_some()
        {
            window.iter().map(|_| Early::Stream).collect()
        } else {
            hash_in_parallel(alg, &window, threads, &streaming, progress)
        };
        let mut outcomes = Vec::with_capacity(window.len());
        for (item, early) in window.into_iter().zip(hashed) {
            if matches!(early, Early::Stream) && !outcomes.is_empty() {
                // What is done goes out before a stream that may take long (a FIFO, stdin).
                progress.suspend(|| emit(std::mem::take(&mut outcomes)))?;
            }
            outcomes.push(match (item, early) {
                (Item::Failed { name, error }, _) => (name, Err(error)),
                (Item::Hash { name, .. }, Early::Done(digest)) => (name, Ok(digest)),
                (Item::Hash { name, .. }, Early::Failed(error)) => {
                    progress.file_done(0);
                    (name, Err(error))
                }
                (Item::Hash { name, source }, Early::Stream) => {
                    let result = hash_input(alg, &source, &streaming);
                    progress.file_done(stream_len(&source));
                    (name, result)
                }
            });
        }
        progress.suspend(|| emit(outcomes))?;
    }
    Ok(())
}

/// What the parallel pass made of one input.
enum Early {
    Done(Output),
    Failed(io::Error),
    /// Not a regular file, or a large one of a tree mode: hash it in order with the streaming
    /// code.
    Stream,
}

/// Reads and hashes the window's regular files on `threads` threads (the library's pool, see
/// `parhash::threads::run_workers`): small ones in each worker's lanes, large ones streamed by
/// the worker (unless the algorithm's tree mode splits each file over the threads itself).
fn hash_in_parallel(
    alg: Algorithm,
    window: &[Item],
    threads: usize,
    streaming: &HashOptions,
    progress: &ManyProgress,
) -> Vec<Early> {
    let next = AtomicUsize::new(0);
    let workers = Threads::new(threads.clamp(1, window.len().max(1)));
    let large_in_workers = !parhash::Hasher::splits_over_threads(alg);
    let mut early: Vec<Option<Early>> = (0..window.len()).map(|_| None).collect();
    let runs = parhash::threads::run_workers(workers, || {
        let large = large_in_workers.then_some(streaming);
        worker(alg, window, &next, large, progress)
    });
    for (index, e) in runs.into_iter().flatten() {
        early[index] = Some(e);
    }
    early
        .into_iter()
        .map(|e| e.expect("every input is claimed by a worker"))
        .collect()
}

/// Claims inputs until none are left; returns (index, outcome) for each one it claimed. Large
/// regular files are streamed here with `large`'s options, or left to the in-order pass when
/// it is `None`.
fn worker(
    alg: Algorithm,
    window: &[Item],
    next: &AtomicUsize,
    large: Option<&HashOptions>,
    progress: &ManyProgress,
) -> Vec<(usize, Early)> {
    let mut lanes: JobManager<'static> = JobManager::new(alg);
    // Job ids count up from 0: entry `id` says which input and how many bytes.
    let mut jobs: Vec<(usize, u64)> = Vec::new();
    let mut out = Vec::new();
    let collect = |done: (u64, Output), jobs: &[(usize, u64)], out: &mut Vec<_>| {
        let (index, len) = jobs[done.0 as usize];
        progress.file_done(len);
        out.push((index, Early::Done(done.1)));
    };
    loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        let Some(item) = window.get(index) else { break };
        let Item::Hash {
            source: source @ Source::Path(path),
            ..
        } = item
        else {
            out.push((index, Early::Stream));
            continue;
        };
        match read_small(path) {
            Ok(Regular::Small(data)) => {
                jobs.push((index, data.len() as u64));
                lanes.submit(data);
                while let Some(done) = lanes.poll() {
                    collect(done, &jobs, &mut out);
                }
            }
            Ok(Regular::Large(len)) => match large {
                Some(options) => match hash_input(alg, source, options) {
                    Ok(digest) => {
                        progress.file_done(len);
                        out.push((index, Early::Done(digest)));
                    }
                    Err(error) => out.push((index, Early::Failed(error))),
                },
                None => out.push((index, Early::Stream)),
            },
            Ok(Regular::Not) => out.push((index, Early::Stream)),
            Err(error) => out.push((index, Early::Failed(error))),
        }
    }
    for done in lanes.flush() {
        collect(done, &jobs, &mut out);
    }
    out
}

/// What [`read_small`] found.
enum Regular {
    /// A regular file of at most [`SMALL_FILE`] bytes, read whole.
    Small(Vec<u8>),
    /// A larger regular file (its length), not read.
    Large(u64),
    /// Not a regular file (or its metadata could not be read): left to the streaming code.
    Not,
}

/// Reads a small regular file whole. Opening and reading fail exactly as `hash_input` would
/// (same calls, same errors).
fn read_small(path: &Path) -> io::Result<Regular> {
    let mut file = File::open(path)?;
    let Ok(meta) = file.metadata() else {
        return Ok(Regular::Not);
    };
    if !meta.is_file() {
        return Ok(Regular::Not);
    }
    if meta.len() > SMALL_FILE {
        return Ok(Regular::Large(meta.len()));
    }
    let mut data = Vec::with_capacity(meta.len() as usize + 1);
    file.read_to_end(&mut data)?;
    Ok(Regular::Small(data))
}

/// Bytes of a streamed input, for the progress bar (0 when not a regular file).
fn stream_len(source: &Source) -> u64 {
    match source {
        Source::Path(path) => std::fs::metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .map_or(0, |m| m.len()),
        Source::Stdin => 0,
    }
}

/// The items `sum` hashes for its command-line names: `-` is standard input; with
/// `recursive`, a directory stands for the files below it (see `walk`).
pub fn items_for(names: &[std::ffi::OsString], recursive: bool) -> impl Iterator<Item = Item> + '_ {
    names.iter().flat_map(move |file| {
        let name = crate::escape::os_bytes(file).into_owned();
        let source = Source::from_name(&name);
        let walk_root = match &source {
            Source::Path(path) if recursive && path.is_dir() => Some(PathBuf::from(file)),
            _ => None,
        };
        let single = walk_root.is_none().then_some(Item::Hash { name, source });
        let walked = walk_root.into_iter().flat_map(|root| {
            crate::walk::Walk::new(root).map(|entry| match entry {
                crate::walk::Entry::File(path) => Item::Hash {
                    name: crate::escape::os_bytes(path.as_os_str()).into_owned(),
                    source: Source::Path(path),
                },
                crate::walk::Entry::Unreadable(path, error) => Item::Failed {
                    name: crate::escape::os_bytes(path.as_os_str()).into_owned(),
                    error,
                },
            })
        });
        single.into_iter().chain(walked)
    })
}
