//! Several algorithms, one read ([`MultiHasher`]): each file is read once and its pieces go to
//! one hasher per algorithm, the hashers spread over the threads; many small files go through
//! each algorithm's SIMD lanes, read once too.
//!
//! IMPLEMENTATION NOTE (who does what). A large file's pieces are read into a few shared
//! buffers ([`PIECES_IN_FLIGHT`]); every worker thread takes whatever task is free: read the
//! next piece, or bring one algorithm's hasher up to the last piece read (each hasher is
//! owned by one worker at a time, so it sees the pieces in order). A piece's buffer goes back
//! to the reader once every algorithm has hashed it. So the slowest algorithm sets the pace
//! alone only where it is slower than all the others together divided by the threads, and
//! reads overlap hashing with no reader thread of its own. Reads are `pread`s of exactly the
//! file's length ([`super::read`]), never a map: a file that shrinks or grows fails, for
//! every algorithm at once. Each hasher runs on one thread here (a tree mode's own threads
//! would compete with the other algorithms for the same cores); one algorithm alone is
//! hashed as [`FileHasher`] hashes it.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use super::many::engine::{Early, Windows};
use super::many::{claim_path, on_workers, open_regular, split, window_len, workers_for, Regular};
use super::read::{check_end, fill, give_back, take_buffer, Buffer};
use super::{
    finish, piece_size, spool, FileHasher, FileInput, FileVersion, HashFiles, Progress,
    ReadStrategy, SMALL_FILE,
};
use crate::batch::JobManager;
use crate::{Hasher, HasherBuilder, Output, Threads};

/// Pieces read and not yet hashed by every algorithm: enough that a fast algorithm need not
/// wait for a slow one at every piece, few enough to stay in the last-level cache.
pub const PIECES_IN_FLIGHT: usize = 8;

/// Hashes files with several algorithms at once, each file read once: the digests of a file
/// come in the order of the builders. Cheap to clone.
///
/// ```no_run
/// use parhash::file::MultiHasher;
/// use parhash::{Algorithm, Hasher};
///
/// let files = MultiHasher::new([Algorithm::Md5, Algorithm::Sha256].map(Hasher::builder));
/// let digests = files.hash_path("big.iso")?;
/// println!("md5 {} sha256 {}", digests[0], digests[1]);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone)]
pub struct MultiHasher<'p> {
    pub(super) builders: Vec<HasherBuilder>,
    pub(super) progress: Option<&'p dyn Progress>,
    read_strategy: ReadStrategy,
    pub(super) maps: bool,
}

impl std::fmt::Debug for MultiHasher<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MultiHasher")
            .field("builders", &self.builders)
            .field("progress", &self.progress.is_some())
            .field("read_strategy", &self.read_strategy)
            .field("maps", &self.maps)
            .finish()
    }
}

impl<'p> MultiHasher<'p> {
    /// Hashes files with each builder's hasher (their `expected_len` is replaced by each
    /// file's size), on as many threads as the builders allow (the most any of them allows).
    pub fn new(builders: impl IntoIterator<Item = HasherBuilder>) -> MultiHasher<'static> {
        MultiHasher {
            builders: builders.into_iter().collect(),
            progress: None,
            read_strategy: ReadStrategy::default(),
            maps: true,
        }
    }

    /// The same, reading files as `strategy` says ([`FileHasher::read_strategy`]; it matters
    /// for one algorithm alone and for many files at once).
    #[must_use]
    pub fn read_strategy(mut self, strategy: ReadStrategy) -> Self {
        self.read_strategy = strategy;
        self
    }

    /// The same, with or without memory maps for one algorithm alone
    /// ([`FileHasher::memory_maps`]; default `true`).
    #[must_use]
    pub fn memory_maps(mut self, maps: bool) -> Self {
        self.maps = maps;
        self
    }

    /// The same, reporting to `progress`: every byte once, however many algorithms hash it.
    pub fn with_progress<'q>(&self, progress: &'q dyn Progress) -> MultiHasher<'q> {
        MultiHasher {
            builders: self.builders.clone(),
            progress: Some(progress),
            read_strategy: self.read_strategy,
            maps: self.maps,
        }
    }

    /// The builders, in the order of the digests.
    pub fn builders(&self) -> &[HasherBuilder] {
        &self.builders
    }

    /// Opens `path` and hashes what it holds ([`MultiHasher::hash_file`]).
    ///
    /// # Errors
    /// As [`File::open`] and [`MultiHasher::hash_file`].
    pub fn hash_path(&self, path: impl AsRef<std::path::Path>) -> io::Result<Vec<Output>> {
        self.hash_file(&File::open(path)?)
    }

    /// Every algorithm's digest of `file`, read once, as [`FileHasher::hash_file`] reads it.
    ///
    /// # Errors
    /// As [`FileHasher::hash_file`], for all algorithms at once: a file that changed size
    /// while it was read gives no digest at all.
    pub fn hash_file(&self, file: &File) -> io::Result<Vec<Output>> {
        self.hash_file_counted(file).map(|(digests, _)| digests)
    }

    /// Every algorithm's digest of what `reader` gives until its end.
    ///
    /// # Errors
    /// As [`FileHasher::hash_reader`].
    pub fn hash_reader(&self, reader: impl Read + Send) -> io::Result<Vec<Output>> {
        self.hash_reader_counted(reader).map(|(digests, _)| digests)
    }

    /// Hashes every input as [`FileHasher::hash_files`] does, yielding all its digests at
    /// once: small files in each algorithm's lanes, each file read once.
    pub fn hash_files<K, I>(&self, inputs: I) -> HashFiles<MultiHasher<'p>, K, I::IntoIter>
    where
        I: IntoIterator<Item = (K, FileInput)>,
    {
        HashFiles::new(self.clone(), inputs.into_iter())
    }

    /// The single-algorithm engine for builder `index`, with these settings.
    fn one(&self, index: usize) -> FileHasher<'p> {
        FileHasher {
            builder: self.builders[index].clone(),
            progress: self.progress,
            read_ahead: super::ReadAhead::default(),
            read_strategy: self.read_strategy,
            maps: self.maps,
        }
    }

    /// The threads that may work at once: the most any builder allows.
    fn threads(&self) -> Threads {
        let allowed = self.builders.iter().map(HasherBuilder::threads_allowed);
        allowed.max_by_key(|t| t.count()).unwrap_or(Threads::ONE)
    }

    fn hash_file_counted(&self, file: &File) -> io::Result<(Vec<Output>, u64)> {
        if self.builders.len() == 1 {
            return self.one(0).hash_file_counted(file).map(one_of_one);
        }
        match FileVersion::of(file) {
            // procfs and sysfs files say 0 bytes whatever they hold (as FileHasher).
            Some(before) if !before.is_empty() => {
                let len = before.len();
                let read_at = super::sparse::positional_reader(file, len);
                let mut offset = 0;
                let read = |buf: &mut [u8]| {
                    if offset == len {
                        check_end(file, len)?;
                        return Ok(0);
                    }
                    let want = buf.len().min((len - offset) as usize);
                    read_at(offset, &mut buf[..want])?;
                    offset += want as u64;
                    Ok(want)
                };
                let digests = self.fan_out(Some(len), read)?;
                before.check_large(file)?;
                Ok((digests, len))
            }
            _ => self.hash_reader_counted(file),
        }
    }

    fn hash_reader_counted(&self, mut reader: impl Read + Send) -> io::Result<(Vec<Output>, u64)> {
        if self.builders.len() == 1 {
            return self.one(0).hash_reader_counted(reader).map(one_of_one);
        }
        let needs_length = self
            .builders
            .iter()
            .any(|b| b.algorithm().needs_message_length());
        if needs_length {
            let data = spool(&mut reader)?;
            let mut rest = &data[..];
            let read = |buf: &mut [u8]| {
                let n = buf.len().min(rest.len());
                buf[..n].copy_from_slice(&rest[..n]);
                rest = &rest[n..];
                Ok(n)
            };
            let digests = self.fan_out(Some(data.len() as u64), read)?;
            return Ok((digests, data.len() as u64));
        }
        let mut total = 0;
        let mut ended = false;
        let read = |buf: &mut [u8]| {
            // A short fill was the end: a terminal is not asked again.
            if ended {
                return Ok(0);
            }
            let n = fill(&mut reader, buf)?;
            ended = n < buf.len();
            total += n as u64;
            Ok(n)
        };
        let digests = self.fan_out(None, read)?;
        Ok((digests, total))
    }

    /// Every algorithm's digest of the pieces `read` gives (it fills a buffer and says how
    /// many bytes it put there, 0 at the end), `len` bytes in all when known.
    fn fan_out(
        &self,
        len: Option<u64>,
        read: impl FnMut(&mut [u8]) -> io::Result<usize> + Send,
    ) -> io::Result<Vec<Output>> {
        let hashers = self
            .builders
            .iter()
            .map(|b| {
                let builder = b.clone().threads(Threads::ONE);
                let builder = match len {
                    Some(len) => builder.expected_len(len),
                    None => builder,
                };
                builder.build().map_err(io::Error::other)
            })
            .collect::<io::Result<Vec<Hasher>>>()?;
        if let Some(progress) = self.progress {
            progress.started(len);
        }
        let piece = self
            .builders
            .iter()
            .map(|b| piece_size(b.algorithm(), Threads::ONE))
            .max()
            .unwrap_or(super::PIECE);
        let shared = FanOut::new(hashers, piece, read);
        let workers = self.threads().at_most(self.builders.len());
        crate::threads::run_workers(workers, || shared.work(self.progress));
        shared.finish()
    }

    /// Claims inputs until none are left (as [`FileHasher`]'s worker): a small file read
    /// once and handed to every algorithm's lanes, the others left for the in-order pass.
    fn worker(&self, window: &[FileInput], next: &AtomicUsize) -> Vec<(usize, Early<Vec<Output>>)> {
        let engines: Vec<FileHasher<'p>> = (0..self.builders.len()).map(|i| self.one(i)).collect();
        let mut lanes: Vec<Option<JobManager<'static>>> = self
            .builders
            .iter()
            .map(|b| b.lanes_agree().then(|| JobManager::new(b.algorithm())))
            .collect();
        let laned = lanes.iter().any(Option::is_some);
        // Every small file goes to every lane manager in the same order, so job `id` is the
        // same file in each: entry `id` gathers its digests.
        let mut jobs: Vec<Gathering> = Vec::new();
        let mut out = Vec::new();
        type Out = Vec<(usize, Early<Vec<Output>>)>;
        let collect = |algorithm: usize,
                       (id, digest): (u64, Output),
                       jobs: &mut [Gathering],
                       out: &mut Out| {
            let job = &mut jobs[id as usize];
            job.digests[algorithm] = Some(digest);
            job.missing -= 1;
            if job.missing == 0 {
                self.file_done(job.len);
                let digests = job.digests.iter_mut().map(|d| d.take().expect("gathered"));
                out.push((job.index, Early::Done(digests.collect())));
            }
        };
        while let Some((index, path, walked)) = claim_path(window, next, &mut out) {
            let data = match open_regular(path, walked, SMALL_FILE) {
                Ok(Regular::Small(data)) => data,
                Ok(Regular::Large(_) | Regular::Not) => {
                    out.push((index, Early::InOrder));
                    continue;
                }
                Err(error) => {
                    self.file_done(0);
                    out.push((index, Early::Failed(error)));
                    continue;
                }
            };
            // The algorithms without lanes first: an error there fails the file at once.
            let own: io::Result<Vec<Option<Output>>> = engines
                .iter()
                .zip(&lanes)
                .map(|(engine, lanes)| match lanes {
                    Some(_) => Ok(None),
                    None => engine.hash_small(&data).map(Some),
                })
                .collect();
            let digests = match own {
                Ok(digests) => digests,
                Err(error) => {
                    self.file_done(0);
                    out.push((index, Early::Failed(error)));
                    continue;
                }
            };
            let len = data.len() as u64;
            if !laned {
                self.file_done(len);
                let digests = digests.into_iter().map(|d| d.expect("hashed here"));
                out.push((index, Early::Done(digests.collect())));
                continue;
            }
            let missing = digests.iter().filter(|d| d.is_none()).count();
            jobs.push(Gathering {
                index,
                len,
                digests,
                missing,
            });
            for (algorithm, lanes) in lanes.iter_mut().enumerate() {
                if let Some(lanes) = lanes {
                    lanes.submit(data.clone());
                    while let Some(done) = lanes.poll() {
                        collect(algorithm, done, &mut jobs, &mut out);
                    }
                }
            }
        }
        for (algorithm, lanes) in lanes.iter_mut().enumerate() {
            if let Some(lanes) = lanes {
                for done in lanes.flush() {
                    collect(algorithm, done, &mut jobs, &mut out);
                }
            }
        }
        out
    }

    fn file_done(&self, bytes: u64) {
        if let Some(progress) = self.progress {
            progress.file_done(bytes);
        }
    }
}

impl Windows for MultiHasher<'_> {
    type Digest = Vec<Output>;

    fn window_len(&self) -> usize {
        window_len(self.builders.iter().map(HasherBuilder::output_len).sum())
    }

    fn hash_window(&self, window: &[FileInput]) -> Vec<Early<Vec<Output>>> {
        if self.builders.len() == 1 {
            let one = self.one(0).hash_window(window);
            return one
                .into_iter()
                .map(|early| early.map(|d| vec![d]))
                .collect();
        }
        let workers = workers_for(window, self.read_strategy, self.threads());
        on_workers(window.len(), workers, |next| self.worker(window, next))
    }

    fn hash_in_order(&self, input: FileInput) -> io::Result<Vec<Output>> {
        let (result, bytes) = match input {
            FileInput::Failed(error) => return Err(error),
            // Not locked: the workers that read it are other threads.
            FileInput::Stdin => split(self.hash_reader_counted(io::stdin())),
            FileInput::Path(path) | FileInput::Walked(path) => match File::open(path) {
                Ok(file) => split(self.hash_file_counted(&file)),
                Err(error) => (Err(error), 0),
            },
        };
        self.file_done(bytes);
        result
    }
}

/// One digest as the list of one.
fn one_of_one((digest, len): (Output, u64)) -> (Vec<Output>, u64) {
    (vec![digest], len)
}

/// A small file in the lanes, waiting for its digests.
struct Gathering {
    index: usize,
    len: u64,
    digests: Vec<Option<Output>>,
    missing: usize,
}

/// A piece of the file, shared by the hashers.
struct Piece {
    bytes: Buffer,
    len: usize,
}

/// One algorithm's hasher and how far it got.
struct Slot {
    /// `None` while a worker is hashing with it.
    hasher: Option<Hasher>,
    /// The index of the next piece it has to hash.
    next: usize,
}

/// What the workers of [`MultiHasher::fan_out`] share.
struct FanOut<R> {
    state: Mutex<State>,
    /// Told whenever the state changes (a piece read, a hasher back, an error).
    changed: Condvar,
    /// Taken by the one worker that reads (at most one at a time, see [`State::reading`]).
    read: Mutex<R>,
    piece: usize,
}

struct State {
    /// Pieces read that some algorithm has yet to hash, oldest first.
    pieces: VecDeque<Arc<Piece>>,
    /// The index of `pieces[0]`.
    first: usize,
    /// Pieces read so far.
    read: usize,
    at_end: bool,
    reading: bool,
    slots: Vec<Slot>,
    error: Option<io::Error>,
}

/// What a worker does next.
// A `Hash` task carries its hasher by value (a few hundred bytes for the SHA-2 states kept in
// place): one move per piece of about a megabyte of hashing, where a box would allocate.
#[allow(clippy::large_enum_variant)]
enum Task {
    Read,
    Hash {
        slot: usize,
        hasher: Hasher,
        pieces: Vec<Arc<Piece>>,
    },
    Wait,
    Stop,
}

impl State {
    fn next_task(&mut self) -> Task {
        let all_done = self.at_end
            && !self.reading
            && self
                .slots
                .iter()
                .all(|s| s.hasher.is_some() && s.next == self.read);
        if self.error.is_some() || all_done {
            return Task::Stop;
        }
        let can_read = !self.reading && !self.at_end && self.pieces.len() < PIECES_IN_FLIGHT;
        let fastest = self.slots.iter().map(|s| s.next).max().unwrap_or(0);
        // Keep the fastest algorithm two pieces ahead of its work, then hash.
        if can_read && self.read - fastest < 2 {
            self.reading = true;
            return Task::Read;
        }
        let behind = (self.slots.iter().enumerate())
            .filter(|(_, s)| s.hasher.is_some() && s.next < self.read)
            .min_by_key(|(_, s)| s.next)
            .map(|(i, _)| i);
        if let Some(slot) = behind {
            let from = self.slots[slot].next - self.first;
            return Task::Hash {
                slot,
                hasher: self.slots[slot].hasher.take().expect("an idle slot"),
                pieces: self.pieces.range(from..).cloned().collect(),
            };
        }
        if can_read {
            self.reading = true;
            return Task::Read;
        }
        Task::Wait
    }

    /// A hasher back from hashing up to piece `upto`; pieces every algorithm has hashed are
    /// told to `progress` and their buffers kept for reuse.
    fn hashed(
        &mut self,
        slot: usize,
        hasher: Hasher,
        upto: usize,
        progress: Option<&dyn Progress>,
    ) {
        self.slots[slot] = Slot {
            hasher: Some(hasher),
            next: upto,
        };
        let slowest = self.slots.iter().map(|s| s.next).min().unwrap_or(upto);
        while self.first < slowest {
            let piece = self
                .pieces
                .pop_front()
                .expect("a piece not yet hashed by all");
            self.first += 1;
            if let Some(progress) = progress {
                progress.hashed(piece.len as u64);
            }
            // Nobody else holds it: every hasher is past it.
            if let Some(piece) = Arc::into_inner(piece) {
                give_back(piece.bytes);
            }
        }
    }
}

impl<R: FnMut(&mut [u8]) -> io::Result<usize> + Send> FanOut<R> {
    fn new(hashers: Vec<Hasher>, piece: usize, read: R) -> Self {
        let slots = hashers
            .into_iter()
            .map(|hasher| Slot {
                hasher: Some(hasher),
                next: 0,
            })
            .collect();
        FanOut {
            state: Mutex::new(State {
                pieces: VecDeque::new(),
                first: 0,
                read: 0,
                at_end: false,
                reading: false,
                slots,
                error: None,
            }),
            changed: Condvar::new(),
            read: Mutex::new(read),
            piece,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One worker: takes tasks until every hasher has hashed every piece or something failed.
    /// A panic (in a hasher or the read) stops the others before it is passed on.
    fn work(&self, progress: Option<&dyn Progress>) {
        let mut state = self.lock();
        loop {
            let task = state.next_task();
            match task {
                Task::Stop => return,
                Task::Wait => {
                    state = self
                        .changed
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner);
                    continue;
                }
                Task::Read => {
                    drop(state);
                    let mut buf = take_buffer(self.piece);
                    let read = self.catching(|| {
                        let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
                        (*read)(&mut buf)
                    });
                    state = self.lock();
                    state.reading = false;
                    match read {
                        Ok(0) => {
                            state.at_end = true;
                            give_back(buf);
                        }
                        Ok(len) => {
                            state.pieces.push_back(Arc::new(Piece { bytes: buf, len }));
                            state.read += 1;
                        }
                        Err(error) => {
                            state.error.get_or_insert(error);
                        }
                    }
                }
                Task::Hash {
                    slot,
                    mut hasher,
                    pieces,
                } => {
                    drop(state);
                    let upto = self.catching(|| {
                        for piece in &pieces {
                            hasher.update(&piece.bytes[..piece.len]);
                        }
                        Ok(pieces.len())
                    });
                    // Let go of the pieces before they may be given back.
                    drop(pieces);
                    state = self.lock();
                    let next = state.slots[slot].next;
                    state.hashed(slot, hasher, next + upto.unwrap_or(0), progress);
                }
            }
            self.changed.notify_all();
        }
    }

    /// Runs `f`; a panic in it is recorded as the outcome (so the other workers stop
    /// instead of waiting for this one) and passed on.
    fn catching<T>(&self, f: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
        panic::catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
            self.lock()
                .error
                .get_or_insert_with(|| io::Error::other("a hasher panicked"));
            self.changed.notify_all();
            panic::resume_unwind(panic)
        })
    }

    /// Every algorithm's digest, or the first error.
    fn finish(self) -> io::Result<Vec<Output>> {
        let state = self
            .state
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(error) = state.error {
            return Err(error);
        }
        state
            .slots
            .into_iter()
            .map(|slot| finish(slot.hasher.expect("every hasher is back")))
            .collect()
    }
}

impl<D> Early<D> {
    /// The same outcome with its digest turned into another.
    fn map<E>(self, f: impl FnOnce(D) -> E) -> Early<E> {
        match self {
            Early::Done(digest) => Early::Done(f(digest)),
            Early::Failed(error) => Early::Failed(error),
            Early::InOrder => Early::InOrder,
        }
    }
}
