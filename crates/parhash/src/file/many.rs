//! Many files at once, results in input order: small files read in parallel and hashed side by
//! side in SIMD lanes, larger ones read with overlap, everything else in order.
//!
//! IMPLEMENTATION NOTE. Inputs are taken [`WINDOW`] at a time. Within a window, worker threads
//! (the library's pool, `threads::run_workers`) claim inputs one by one; a regular file of at
//! most [`SMALL_FILE`] bytes (up to 2 MiB where the algorithm has lanes and memory allows:
//! [`LANE_MEMORY`]) is read whole and submitted to the worker's own
//! [`crate::batch::JobManager`], which hashes up to 16 files at once and drops each file's
//! bytes as soon as its digest is out (where the builder forces a variant or tree parameters,
//! which the lanes do not take, each small file gets a hasher of its own instead). So the
//! memory in use is at most [`LANE_MEMORY`] of file data plus one window of
//! digests (at most [`WINDOW_DIGEST_BYTES`]: long XOF digests make shorter windows), however
//! many files there are. A larger regular file is hashed by the worker that
//! claimed it, through the same code as [`FileHasher::hash_file`] (so every error is the same):
//! several large files at once, one per thread. Where the algorithm has a tree mode (it splits
//! one file over all threads itself), large files are instead hashed in order, one at a time,
//! when the caller asks for them, as are standard input, directories and FIFOs.
//!
//! Where reading several files at once would make the storage seek ([`ReadStrategy`]:
//! `Sequential`, or `Auto` when the window's first regular file is not in the page cache and
//! lies on a rotational device or a network file system), one worker reads and hashes the
//! window's files in turn (still 16 small files side by side in its lanes).

use std::collections::VecDeque;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::sparse::Extents;
use super::{read, regular_file_len, storage_of, FileHasher, FileVersion, ReadStrategy, Storage};
use crate::batch::JobManager;
use crate::{Hasher, Output, Threads};
use engine::{Early, Windows};

/// Files up to this size are read whole and hashed in lanes; larger ones piece by piece. Above
/// it a file is long enough for the single-message code (or a tree mode) to run at full speed,
/// and reading it whole would cost more memory than it saves time.
pub const SMALL_FILE: u64 = 64 * 1024;

/// File bytes a worker's lanes may hold at once: where the lanes run many times faster than
/// one message (MD5: 16 lanes, 12x; BLAKE2b, SHA-1, SHA-512: 3x), a file of a few hundred KiB
/// gains as much from them as a small one, so files are read whole into the lanes up to the
/// size that keeps every worker's lanes within this much memory.
pub(crate) const LANE_MEMORY: u64 = 64 << 20;

/// The largest file read whole into lanes, however much memory [`LANE_MEMORY`] would allow:
/// a worker's last few files run with lanes idle, and this bounds how long that lasts (16 MD5s
/// of 2 MiB in lanes alone take about 4 ms).
const LANE_FILE_MAX: u64 = 2 << 20;

/// The largest file a worker of `workers` reads whole into its `lanes` lanes:
/// [`SMALL_FILE`] at least, up to [`LANE_FILE_MAX`] where [`LANE_MEMORY`] allows it (each
/// worker holds at most one file more than its lanes).
pub(crate) fn lane_file_limit(workers: usize, lanes: usize) -> u64 {
    (LANE_MEMORY / (workers.max(1) * (lanes + 1)) as u64).clamp(SMALL_FILE, LANE_FILE_MAX)
}

/// Inputs per window: enough to keep every thread's lanes full between the points where
/// results are handed on in order.
pub(crate) const WINDOW: usize = 4096;

/// Digest bytes one window may hold. A window of fixed-length digests is far below it; one of
/// long extendable-output digests (up to [`Output::MAX`], 1 MiB) has fewer inputs instead, so
/// that a window of them stays within this much memory (64 inputs of 1 MiB digests).
const WINDOW_DIGEST_BYTES: usize = 64 << 20;

/// Inputs per window for digests of `digest_len` bytes: [`WINDOW`], or fewer for digests so
/// long that a whole window would hold more than [`WINDOW_DIGEST_BYTES`].
pub(super) fn window_len(digest_len: usize) -> usize {
    (WINDOW_DIGEST_BYTES / digest_len.max(1)).clamp(1, WINDOW)
}

/// One input of [`FileHasher::hash_files`].
#[derive(Debug)]
pub enum FileInput {
    /// A file to open and hash: regular, FIFO, device, `/proc` file, ... Looked at before it
    /// is opened (one `stat`), so that what is not a regular file is opened once, in its turn.
    Path(PathBuf),
    /// A path a directory walk found to be a regular file (or a link to one), by the entry
    /// type the directory gave: opened without a `stat` first (on a tree of small files that
    /// is one system call in four). Should it have become a FIFO since, its open waits for a
    /// writer, as `cat`'s would.
    Walked(PathBuf),
    /// This process's standard input (hashed in order, when its turn comes).
    Stdin,
    /// An input that failed before hashing (a directory that could not be listed): its error
    /// comes out in its place.
    Failed(io::Error),
}

impl From<PathBuf> for FileInput {
    fn from(path: PathBuf) -> FileInput {
        FileInput::Path(path)
    }
}

impl From<&Path> for FileInput {
    fn from(path: &Path) -> FileInput {
        FileInput::Path(path.to_path_buf())
    }
}

impl<'p> FileHasher<'p> {
    /// Hashes every input, yielding `(key, digest or error)` in input order; `key` is the
    /// caller's own (a name to print) and is handed back untouched. Inputs are read a window
    /// (a few thousand) at a time, so memory stays bounded however many there are; a failure is
    /// that input's result and the others go on. Progress: [`super::Progress::file_done`] for
    /// each input hashed or failed while hashing.
    pub fn hash_files<K, I>(&self, inputs: I) -> HashFiles<FileHasher<'p>, K, I::IntoIter>
    where
        I: IntoIterator<Item = (K, FileInput)>,
    {
        HashFiles::new(self.clone(), inputs.into_iter())
    }

    /// [`FileHasher::hash_files`] over paths, each its own key.
    pub fn hash_paths<P, I>(
        &self,
        paths: I,
    ) -> HashFiles<FileHasher<'p>, P, impl Iterator<Item = (P, FileInput)>>
    where
        P: AsRef<Path>,
        I: IntoIterator<Item = P>,
    {
        self.hash_files(paths.into_iter().map(|p| {
            let input = FileInput::from(p.as_ref());
            (p, input)
        }))
    }

    /// Claims inputs until none are left; returns (index, outcome) for each one it claimed.
    fn worker(&self, window: &[FileInput], next: &AtomicUsize) -> Vec<(usize, Early<Output>)> {
        let alg = self.algorithm();
        let mut lanes: Option<JobManager<'static>> =
            self.builder.lanes_agree().then(|| JobManager::new(alg));
        let whole_up_to = match &lanes {
            Some(lanes) if lanes.lanes() > 0 => {
                lane_file_limit(self.builder.threads_allowed().count(), lanes.lanes())
            }
            _ => SMALL_FILE,
        };
        let large_here = !Hasher::splits_over_threads(alg);
        // Job ids count up from 0: entry `id` says which input and how many bytes.
        let mut jobs: Vec<(usize, u64)> = Vec::new();
        let mut out = Vec::new();
        let collect = |done: (u64, Output), jobs: &[(usize, u64)], out: &mut Vec<_>| {
            let (index, len) = jobs[done.0 as usize];
            self.file_done(len);
            out.push((index, Early::Done(done.1)));
        };
        while let Some((index, path, walked)) = claim_path(window, next, &mut out) {
            let outcome = match open_regular(path, walked, whole_up_to) {
                Ok(Regular::Small(data)) => match &mut lanes {
                    Some(lanes) => {
                        jobs.push((index, data.len() as u64));
                        lanes.submit(data);
                        while let Some(done) = lanes.poll() {
                            collect(done, &jobs, &mut out);
                        }
                        continue;
                    }
                    None => self
                        .hash_small(&data)
                        .map(|digest| (digest, data.len() as u64)),
                },
                Ok(Regular::Large(file)) if large_here => self.hash_file_counted(&file),
                Ok(Regular::Large(_) | Regular::Not) => {
                    out.push((index, Early::InOrder));
                    continue;
                }
                Err(error) => Err(error),
            };
            let (result, bytes) = split(outcome);
            self.file_done(bytes);
            out.push((index, result.map_or_else(Early::Failed, Early::Done)));
        }
        if let Some(lanes) = &mut lanes {
            for done in lanes.flush() {
                collect(done, &jobs, &mut out);
            }
        }
        out
    }

    /// A small file's digest with a hasher of its own, on this worker's thread only.
    pub(super) fn hash_small(&self, data: &[u8]) -> io::Result<Output> {
        let builder = self
            .builder
            .clone()
            .threads(Threads::ONE)
            .expected_len(data.len() as u64);
        let mut hasher = builder.build().map_err(io::Error::other)?;
        hasher.update(data);
        super::finish(hasher)
    }
}

impl engine::Windows for FileHasher<'_> {
    type Digest = Output;

    fn window_len(&self) -> usize {
        window_len(self.builder.output_len())
    }

    /// Reads and hashes the window's regular files on the builder's threads: small ones in
    /// each worker's lanes, large ones by the worker (unless the algorithm's tree mode splits
    /// each file over the threads itself: those are left for the in-order pass).
    fn hash_window(&self, window: &[FileInput]) -> Vec<Early<Output>> {
        let workers = workers_for(window, self.read_strategy, self.builder.threads_allowed());
        on_workers(window.len(), workers, |next| self.worker(window, next))
    }

    fn hash_in_order(&self, input: FileInput) -> io::Result<Output> {
        let (result, bytes) = match input {
            FileInput::Failed(error) => return Err(error),
            FileInput::Stdin => split(self.hash_reader_counted(io::stdin().lock())),
            FileInput::Path(path) | FileInput::Walked(path) => match File::open(path) {
                Ok(file) => split(self.hash_file_counted(&file)),
                Err(error) => (Err(error), 0),
            },
        };
        self.file_done(bytes);
        result
    }
}

/// The next path of `window` for this worker, from the shared counter, with its index and
/// whether a walk found it a regular file ([`FileInput::Walked`]); the inputs that are no
/// paths (standard input, failures) claimed on the way are left in `out` for the in-order
/// pass. `None` when every input is claimed.
pub(super) fn claim_path<'w, D>(
    window: &'w [FileInput],
    next: &AtomicUsize,
    out: &mut Vec<(usize, Early<D>)>,
) -> Option<(usize, &'w Path, bool)> {
    loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        match window.get(index)? {
            FileInput::Path(path) => return Some((index, path, false)),
            FileInput::Walked(path) => return Some((index, path, true)),
            _ => out.push((index, Early::InOrder)),
        }
    }
}

/// The workers that read a window's files: one when they are read one at a time, else up to
/// `threads`.
pub(super) fn workers_for(window: &[FileInput], read: ReadStrategy, threads: Threads) -> Threads {
    if one_file_at_a_time(window, read) {
        Threads::ONE
    } else {
        threads.at_most(window.len())
    }
}

/// Whether the window's files are read one at a time: asked for, or (`Auto`) the first
/// regular file is not cached and lies on storage that several readers make seek. Storage
/// of unknown kind keeps the parallel reads here (unlike one large file, where one stream
/// still hashes on every thread, one worker would also hash on one).
fn one_file_at_a_time(window: &[FileInput], read: ReadStrategy) -> bool {
    match read {
        ReadStrategy::Sequential => true,
        ReadStrategy::Parallel => false,
        ReadStrategy::Auto => window
            .iter()
            .filter_map(|input| match input {
                // Only a regular file is opened here: opening a FIFO would block, or take
                // the data its writer meant for the hash.
                FileInput::Walked(path) => Some(path),
                FileInput::Path(path) if is_regular(path) => Some(path),
                _ => None,
            })
            .find_map(|path| {
                let file = File::open(path).ok()?;
                regular_file_len(&file).map(|len| storage_of(&file, len))
            })
            .is_some_and(|storage| matches!(storage, Storage::Rotational | Storage::Network)),
    }
}

/// What [`read_whole_files`] made of one input.
#[derive(Debug)]
pub enum WholeFile {
    /// Every byte of it.
    Read(Vec<u8>),
    /// It could not be opened or read, or it changed while it was read (the errors of
    /// [`FileHasher::hash_file`]).
    Failed(io::Error),
    /// Not read: standard input, a [`FileInput::Failed`], what is not a regular file (a FIFO
    /// is opened once, by its reader, in its turn), a regular file of more than the caller's
    /// limit, or one over [`SMALL_FILE`] bytes with holes (the file engine does not read
    /// them): the caller's, in input order.
    Left,
}

/// Reads the regular files among `inputs` of at most `up_to` bytes whole, with the file
/// engine's rules: as many at once as `threads` allows where the storage serves parallel
/// reads, one at a time where [`ReadStrategy`] (`read`, or `Auto`'s look at the first file)
/// says several readers would make it seek, and the same checks as
/// [`FileHasher::hash_files`]' small files (a file over [`SMALL_FILE`] bytes that changes
/// while it is read fails with [`super::FileModified`]). For a caller that hashes the bytes
/// elsewhere (a GPU's batches); one outcome per input, in input order.
pub fn read_whole_files(
    inputs: &[FileInput],
    up_to: u64,
    read: ReadStrategy,
    threads: Threads,
) -> Vec<WholeFile> {
    let workers = workers_for(inputs, read, threads);
    let outcomes = on_workers(inputs.len(), workers, |next| {
        let mut out = Vec::new();
        while let Some((index, path, walked)) = claim_path(inputs, next, &mut out) {
            let outcome = match open_regular(path, walked, up_to) {
                Ok(Regular::Small(data)) if data.len() as u64 <= up_to => Early::Done(data),
                Ok(_) => Early::InOrder,
                Err(error) => Early::Failed(error),
            };
            out.push((index, outcome));
        }
        out
    });
    outcomes
        .into_iter()
        .map(|outcome| match outcome {
            Early::Done(data) => WholeFile::Read(data),
            Early::Failed(error) => WholeFile::Failed(error),
            Early::InOrder => WholeFile::Left,
        })
        .collect()
}

/// Runs `worker` on `workers` threads, each claiming inputs from a shared counter and
/// returning (index, outcome) for those it claimed; the `len` outcomes in input order.
pub(super) fn on_workers<D: Send>(
    len: usize,
    workers: Threads,
    worker: impl Fn(&AtomicUsize) -> Vec<(usize, Early<D>)> + Sync,
) -> Vec<Early<D>> {
    let next = AtomicUsize::new(0);
    let mut early: Vec<Option<Early<D>>> = (0..len).map(|_| None).collect();
    let runs = crate::threads::run_workers(workers, || worker(&next));
    for (index, e) in runs.into_iter().flatten() {
        early[index] = Some(e);
    }
    early
        .into_iter()
        .map(|e| e.expect("every input is claimed by a worker"))
        .collect()
}

/// What [`HashFiles`] hashes with: [`FileHasher`] (a digest per file) or
/// [`super::MultiHasher`] (a digest per file and algorithm). Sealed: its methods are the
/// file module's own.
pub(super) mod engine {
    use super::{io, FileInput};

    /// What the parallel pass made of one input.
    pub enum Early<D> {
        Done(D),
        Failed(io::Error),
        /// Not a regular file, or a large one left for the in-order pass.
        InOrder,
    }

    /// The engine behind [`super::HashFiles`].
    pub trait Windows {
        /// What one input gives.
        type Digest;
        /// Inputs per window.
        fn window_len(&self) -> usize;
        /// The outcome of every input of `window`, its regular files hashed in parallel.
        fn hash_window(&self, window: &[FileInput]) -> Vec<Early<Self::Digest>>;
        /// One input left for the in-order pass, on the calling thread.
        fn hash_in_order(&self, input: FileInput) -> io::Result<Self::Digest>;
    }
}

/// A result and the bytes it covered (0 for a failure), for progress.
pub(super) fn split<D>(outcome: io::Result<(D, u64)>) -> (io::Result<D>, u64) {
    match outcome {
        Ok((digest, bytes)) => (Ok(digest), bytes),
        Err(error) => (Err(error), 0),
    }
}

/// What [`open_regular`] found.
pub(super) enum Regular {
    /// A regular file of at most [`SMALL_FILE`] bytes (or the caller's larger limit), read
    /// whole.
    Small(Vec<u8>),
    /// A larger regular file, open.
    Large(File),
    /// Not a regular file (or its metadata could not be read), or one that says 0 bytes but
    /// holds more than [`SMALL_FILE`]: left to the in-order pass.
    Not,
}

/// Whether `path` is a regular file (or a link to one), without opening it.
fn is_regular(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file())
}

/// Opens `path` and reads it whole when it is a small regular file. Opening and reading fail
/// exactly as [`FileHasher::hash_file`] would (same calls, same errors). What is known not to
/// be a regular file is not opened at all: the in-order pass opens it once (a FIFO opened
/// here too would block this worker, or lose its writer's data to the first open). `walked`:
/// a walk found it regular, so it is opened without that look (the `fstat` after the open
/// still decides). A file of more than [`SMALL_FILE`] and at most `whole_up_to` bytes is read
/// whole too, with the checks of the piece-by-piece read (a change while it is read is
/// [`super::FileModified`]), unless it has holes, which are not read ([`super::sparse`]).
pub(super) fn open_regular(path: &Path, walked: bool, whole_up_to: u64) -> io::Result<Regular> {
    if !walked && std::fs::metadata(path).is_ok_and(|meta| !meta.is_file()) {
        return Ok(Regular::Not);
    }
    let file = File::open(path)?;
    Ok(match regular_file_len(&file) {
        None => Regular::Not,
        // procfs and sysfs files say 0 bytes whatever they hold: read to the end, if short.
        Some(0) => {
            let mut data = Vec::new();
            let len = read::read_to_end(
                &mut io::Read::take(&file, SMALL_FILE + 1),
                SMALL_FILE as usize + 1,
                |bytes| data.extend_from_slice(bytes),
            )?;
            if len > SMALL_FILE {
                Regular::Not
            } else {
                Regular::Small(data)
            }
        }
        Some(len) => match read_whole_up_to(&file, len, whole_up_to)? {
            Some(data) => Regular::Small(data),
            None => Regular::Large(file),
        },
    })
}

/// The `len` bytes of the regular file `file`, just opened by the caller (its offset 0: it is
/// read with `read(2)`), read whole, if there are at most `up_to` of them
/// (and at most [`SMALL_FILE`], or it has no holes, which are not read: [`super::sparse`]);
/// `None` for a larger file, and for one that says 0 bytes (procfs and sysfs files say so
/// whatever they hold: the caller reads those to their end). A file of more than
/// [`SMALL_FILE`] bytes gets the checks of the piece-by-piece read: a change while it is read
/// is [`super::FileModified`].
///
/// # Errors
/// A read error; [`super::FileChangedSize`] or [`super::FileModified`] for a file that changed.
pub(crate) fn read_whole_up_to(file: &File, len: u64, up_to: u64) -> io::Result<Option<Vec<u8>>> {
    if len == 0 {
        return Ok(None);
    }
    if len <= SMALL_FILE {
        return read::read_whole_opened(file, len).map(Some);
    }
    if len > up_to || Extents::of(file, len).is_some() {
        return Ok(None);
    }
    match FileVersion::of(file) {
        Some(version) if version.len() == len => {
            let data = read::read_whole_opened(file, len)?;
            version.check(file)?;
            Ok(Some(data))
        }
        _ => Ok(None),
    }
}

/// The outcomes of [`FileHasher::hash_files`], in input order. Each window of inputs is hashed
/// in parallel when the first of its outcomes is asked for; inputs left for the in-order pass
/// (large files of a tree mode, standard input, FIFOs) are hashed when their turn comes, so a
/// caller that prints each outcome as it arrives shows progress file by file.
pub struct HashFiles<E: Windows, K, I> {
    files: E,
    inputs: I,
    pending: VecDeque<(K, Pending<E::Digest>)>,
}

/// An outcome waiting to be handed on.
enum Pending<D> {
    Ready(io::Result<D>),
    InOrder(FileInput),
}

impl<E: Windows, K, I: Iterator<Item = (K, FileInput)>> HashFiles<E, K, I> {
    pub(super) fn new(files: E, inputs: I) -> Self {
        HashFiles {
            files,
            inputs,
            pending: VecDeque::new(),
        }
    }

    /// The next outcome if it is ready without hashing anything more (so a caller can write a
    /// run of outcomes at once before waiting for the next).
    pub fn next_ready(&mut self) -> Option<(K, io::Result<E::Digest>)> {
        match self.pending.front() {
            Some((_, Pending::Ready(_))) => self.next(),
            _ => None,
        }
    }

    /// Hashes the next window's regular files.
    fn fill_window(&mut self) {
        let window = self.files.window_len();
        let (keys, inputs): (Vec<K>, Vec<FileInput>) = self.inputs.by_ref().take(window).unzip();
        if inputs.is_empty() {
            return;
        }
        let early = self.files.hash_window(&inputs);
        for ((key, input), early) in keys.into_iter().zip(inputs).zip(early) {
            let pending = match (input, early) {
                (FileInput::Failed(error), _) | (_, Early::Failed(error)) => {
                    Pending::Ready(Err(error))
                }
                (_, Early::Done(digest)) => Pending::Ready(Ok(digest)),
                (input, Early::InOrder) => Pending::InOrder(input),
            };
            self.pending.push_back((key, pending));
        }
    }
}

impl<E: Windows, K, I: Iterator<Item = (K, FileInput)>> Iterator for HashFiles<E, K, I> {
    type Item = (K, io::Result<E::Digest>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.pending.is_empty() {
            self.fill_window();
        }
        let (key, pending) = self.pending.pop_front()?;
        Some(match pending {
            Pending::Ready(result) => (key, result),
            Pending::InOrder(input) => (key, self.files.hash_in_order(input)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_hold_files_within_their_memory() {
        assert_eq!(lane_file_limit(1, 16), LANE_FILE_MAX);
        assert_eq!(lane_file_limit(0, 16), LANE_FILE_MAX);
        assert_eq!(lane_file_limit(1024, 16), SMALL_FILE);
        for workers in [1, 2, 3, 8, 16, 64] {
            for lanes in [2, 4, 8, 16] {
                let limit = lane_file_limit(workers, lanes);
                assert!((SMALL_FILE..=LANE_FILE_MAX).contains(&limit));
                let held = limit * (workers * (lanes + 1)) as u64;
                assert!(
                    limit == SMALL_FILE || held <= LANE_MEMORY,
                    "{workers} {lanes}"
                );
            }
        }
    }

    #[test]
    fn long_digests_make_short_windows() {
        assert_eq!(window_len(32), WINDOW);
        assert_eq!(window_len(Output::INLINE), WINDOW);
        assert_eq!(window_len(0), WINDOW);
        assert_eq!(window_len(Output::MAX), 64);
        assert_eq!(window_len(usize::MAX), 1);
        for len in [1, 200, 20_000, 100_000, Output::MAX] {
            assert!(
                window_len(len) * len <= WINDOW_DIGEST_BYTES.max(len),
                "{len}"
            );
        }
    }
}
