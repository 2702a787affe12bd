//! Hashing files: one file ([`FileHasher::hash_path`]) or many in input order
//! ([`FileHasher::hash_files`]), regular files, pipes, devices and `/proc` files alike. The CLI
//! (`parhash sum`, `parhash check`) and the Python package hash through here.
//!
//! ```no_run
//! use parhash::file::FileHasher;
//! use parhash::{Algorithm, Hasher, Threads};
//!
//! let files = FileHasher::new(Hasher::builder(Algorithm::Sandstorm256).threads(Threads::new(2)));
//! let digest = files.hash_path("big.iso")?;
//! for (path, result) in files.hash_paths(["a.txt", "b.txt"]) {
//!     match result {
//!         Ok(digest) => println!("{digest}  {path}"),
//!         Err(err) => eprintln!("{path}: {err}"),
//!     }
//! }
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! What it promises:
//!
//! - **A file that changes size while it is read is an error, never a crash.** A regular file
//!   is hashed for exactly the length `stat` gave; fewer bytes (it shrank) or one more byte at
//!   the end (it grew) is [`FileChangedSize`] inside an [`io::Error`] ("file changed size while
//!   being read"). The other files of [`FileHasher::hash_files`] are still hashed. Files are
//!   read with `read`/`pread` into buffers, except two kinds, which are memory-mapped on Linux
//!   ([`FileHasher::memory_maps`] turns maps off): a large file read in parallel from the page
//!   cache or tmpfs by BLAKE3, SANDstorm or PARSHA-256, and a large file those algorithms read
//!   ahead as one stream (not cached, or on storage read sequentially), whose pieces a thread
//!   of its own maps in ahead of the hasher. Each piece's mapping is dropped once hashed, so resident
//!   memory stays the pieces in flight. A mapped file that another process truncates makes
//!   the next access past the new end fault (`SIGBUS`), and parhash's own `SIGBUS` handler
//!   catches the faults in its maps (a page of zeros takes the lost page's place and the map is
//!   marked), so the truncation is the same error as on the read paths (its `found` is then the
//!   file's length after the truncation). Faults elsewhere go to the handler that was there
//!   before.
//! - **The `SIGBUS` handler is process-wide, and a caller can keep it out.** The first memory
//!   map any [`FileHasher`] or [`MultiHasher`] makes installs it (with `sigaction`, Linux only),
//!   and it stays for the life of the process; [`sigbus_handler_installed`] says whether it is
//!   in place. A program that owns `SIGBUS` (its own handler, a runtime that uses the signal)
//!   calls [`disable_memory_maps`] before hashing files: from then on every file is read, as
//!   with `memory_maps(false)` on every hasher, and the handler is never installed. A handler
//!   installed over parhash's later turns maps off by itself (a map is made only while
//!   parhash's handler is the one in place).
//! - **A file rewritten while it is read is an error too**, where its size stays: a regular
//!   file of more than [`SMALL_FILE`] bytes whose modification time (or inode) moved between
//!   the start and the end of hashing is [`FileModified`] ("file changed while being read"),
//!   since the bytes hashed may be a mix of two versions. (A smaller file is read in one
//!   call.) [`FileVersion`] is that rule, also what the parts of one file record.
//! - **Reads that fit the storage** ([`ReadStrategy`], `parhash sum --read`). For an algorithm
//!   that spreads one message over threads (BLAKE3, SANDstorm, PARSHA-256) on more than one
//!   thread, a regular file of at least a few MiB is read in parallel where that pays: the
//!   hashing threads read their own pieces with positional reads (BLAKE3's 1 MiB subtrees,
//!   the parts of a tree mode's [`crate::parts`] plan), so each copy lands in the cache of the
//!   core that hashes it and no thread waits for a reader. [`ReadStrategy::Auto`] (the
//!   default) does so when the file is in the page cache, in memory (tmpfs) or on a device
//!   that says it is not rotational, and reads one sequential stream, as below, on rotational
//!   disks, network file systems and where it cannot tell ([`storage_of`]).
//! - **Reading overlaps hashing.** A regular file of more than two pieces
//!   is read by the hashing thread while the page cache holds it, and from the first piece
//!   that is not cached on, by a thread of its own a few pieces ahead of the hasher
//!   ([`ReadAhead`]), so a file that is not in the page cache costs about max(read time, hash
//!   time), not their sum. For BLAKE3, SANDstorm and PARSHA-256, that thread maps the pieces
//!   in (`MADV_POPULATE_READ`, which waits for the disk) rather than copying them, from the
//!   start of the file whether it is cached or not: the hashers read the very pages the disk
//!   filled, and copy nothing.
//! - **The holes of a sparse file are not read** (Linux): a regular file of more than
//!   [`SMALL_FILE`] bytes with a hole before its end (one `lseek(SEEK_HOLE)` says) is read one
//!   data extent at a time, never mapped, and its holes are hashed as zeros from memory:
//!   reading or mapping a hole would fill the page cache with zeros. An algorithm that splits
//!   over threads hashes it in parts, each thread reading its data and zeroing its holes, so
//!   the zeros are hashed on every core; the others, as one stream. The digest is
//!   that of the file's bytes; a dense file, or a file system that cannot say, is read as
//!   above.
//! - **Several algorithms, one read** ([`MultiHasher`]): each file is read once and its
//!   pieces go to one hasher per algorithm, spread over the threads; small files through each
//!   algorithm's lanes. A file that changes size fails for every algorithm at once.
//! - **The bytes to a consumer of the caller's, in the same read**
//!   ([`MultiHasher::hash_file_feeding`]): an outboard encoder or a hasher of pieces gets the
//!   file's bytes in order from whichever read the engine picks, with the same checks.
//! - **Files of unknown length** (pipes, standard input, procfs and sysfs files, which say
//!   0 bytes whatever they hold) are read to their end; PARSHA-256, which needs the length
//!   first, spools them to memory (at most [`SPOOL_LIMIT`] bytes).
//!
//! IMPLEMENTATION NOTE (reads or a memory map; which thread reads). A read costs one copy
//! from the page cache; a map costs one `MADV_POPULATE_READ` per piece, and is safe against a
//! truncation only through `mapped`'s `SIGBUS` handler (the fault comes during the access,
//! after any size check). With each hashing thread mapping its own pieces, the map wins on a
//! cached file for BLAKE3 and SANDstorm-256 (BENCHMARKS.md, files from a map). PARSHA-256's
//! parts are read, not mapped (its cached file is streamed from a map instead): each part
//! takes a share of every round, so a part's pages could be dropped only once the whole file
//! was mapped, and mapped pages count as the process's resident memory. A file those three
//! read as one stream from the disk is mapped too, but not by the hashing threads, which would
//! wait for the disk page by page: a thread of its own maps each piece in ahead of them
//! (`map_ahead` in `read`), which saves the copy, most of a cold file's CPU time
//! (BENCHMARKS.md, cold files). The one-stream algorithms keep the copy: it runs on the
//! reader's core while the slower hasher works, and leaves the bytes in the caches; mapped,
//! SHA-1, SHA-256 and MD5 took longer, waiting for memory.
//!
//! Who reads, measured on a cached file (BENCHMARKS.md, "Files that change, and reads
//! overlapped"): reads by the hashing thread into 2 MiB pieces (1 MiB per thread) cost the
//! same CPU time as a map; larger pieces cost more (the buffers going round no longer stay in
//! the last-level cache); a reader thread costs more CPU (its copy lands in another core's
//! cache), which -j 2 pays in wall time. Hence [`ReadAhead::WhenNotCached`]: cached pieces
//! are read with `preadv2(RWF_NOWAIT)` by the hashing thread, and only a read that would
//! wait for the disk starts the reader thread. Except for a tree mode on more than one
//! thread: there the hashing thread's copy is work the helpers wait for at every piece, and
//! a reader thread with 2 MiB per thread takes less wall time at the same CPU time
//! (BENCHMARKS.md, "Performance at the roof").

#![forbid(unsafe_code)]

mod feed;
pub(crate) mod many;
pub(crate) mod multi;
mod pipeline;
pub(crate) mod read;
mod sparse;
mod split;
mod storage;

use std::fmt;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

pub use many::{read_whole_files, FileInput, HashFiles, WholeFile};
pub use multi::MultiHasher;
pub use read::ReadAhead;
pub use split::{combine_parts, hash_part};
// The engine's tuning: crate-private (the integration tests reach them through `crate::lab`).
pub(crate) use many::{lane_file_limit, read_whole_up_to, LANE_MEMORY, SMALL_FILE};
pub(crate) use read::{piece_size, PIECE};
pub use storage::{storage_of, ReadStrategy, Storage};

/// `work(index, part)` for the parts of `unit` bytes (the last one shorter) of the regular
/// file `file` (`len` bytes), each hashed in place from a map on `threads` threads
/// ([`split::in_place`]), where the engine hashes a file in parts from a map: maps allowed,
/// reads not asked to be sequential, no holes, and the file's storage
/// [`Storage::serves_maps`]. `None` otherwise, or where it does not map, for the caller to read
/// it. A page the file lost meanwhile, or a file that grew, is the file's change
/// ([`FileChangedSize`]), as when a digest is hashed from a map.
#[cfg(target_os = "linux")]
pub(crate) fn in_place_parts<T: Send>(
    file: &File,
    len: u64,
    unit: u64,
    read: ReadStrategy,
    maps: bool,
    threads: crate::Threads,
    work: impl Fn(usize, &[u8]) -> io::Result<T> + Sync,
) -> Option<io::Result<Vec<T>>> {
    if !maps
        || read == ReadStrategy::Sequential
        || sparse::Extents::of(file, len).is_some()
        || !storage_of(file, len).serves_maps()
    {
        return None;
    }
    let mapping = crate::mapped::Mapping::new(file, len)?;
    read::advise_sequential(file);
    let bytes = mapping.bytes();
    let range = |index: usize| {
        let start = index as u64 * unit;
        start..(start + unit).min(len)
    };
    let parts = len.div_ceil(unit) as usize;
    let results = split::in_place(
        &mapping,
        file,
        parts,
        |i| vec![range(i)],
        threads,
        &|_| {},
        |i| {
            let range = range(i);
            work(i, &bytes[range.start as usize..range.end as usize])
        },
    );
    Some(results.and_then(|results| {
        if mapping.faulted() {
            return Err(read::mapped_fault(file, len));
        }
        read::check_mapped_end(file, len)?;
        Ok(results)
    }))
}

use crate::{Algorithm, Hasher, HasherBuilder, Output};

/// Most bytes of input of unknown length (a pipe, standard input, a `/proc` file) spooled to
/// memory for an algorithm that needs the length first (PARSHA-256); more is an error.
pub const SPOOL_LIMIT: u64 = 1 << 30;

/// The error inside an [`io::Error`] for a file that changed size while it was read: it gave
/// fewer bytes than its size said (it was truncated), or more (it grew). Its text is
/// `file changed size while being read`; find it with
/// `err.get_ref().and_then(|e| e.downcast_ref::<FileChangedSize>())`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileChangedSize {
    /// The size the file had when hashing started.
    pub expected: u64,
    /// What reading found: the offset at which the file ended, before `expected` (it was
    /// truncated meanwhile, to that length or less), or `None` when it went on past `expected`.
    pub found: Option<u64>,
}

impl fmt::Display for FileChangedSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("file changed size while being read")
    }
}

impl std::error::Error for FileChangedSize {}

impl FileChangedSize {
    fn into_io(self) -> io::Error {
        io::Error::other(self)
    }
}

/// The error inside an [`io::Error`] for a regular file whose modification time (or inode)
/// moved while it was read (its size did not): what was hashed may be part old, part new. Its text is
/// `file changed while being read`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileModified;

impl fmt::Display for FileModified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("file changed while being read")
    }
}

impl std::error::Error for FileModified {}

/// Which version of a regular file was opened: its size, modification time and inode, taken
/// when reading starts and compared with at its end ([`FileVersion::check`]), or between the
/// reads of several parts of one file ([`FileVersion::to_bytes`], the identity a part of
/// [`crate::parts`] records).
///
/// The device number is left out: a shared file system mounted on several machines has a
/// device number of each machine's choosing, while the inode, size and time come from the
/// server, so parts read on different machines compare equal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileVersion {
    len: u64,
    modified: Option<std::time::SystemTime>,
    inode: u64,
}

impl FileVersion {
    /// `file`'s, where it is a regular file.
    pub fn of(file: &File) -> Option<FileVersion> {
        Self::of_metadata(&file.metadata().ok()?)
    }

    fn of_metadata(meta: &std::fs::Metadata) -> Option<FileVersion> {
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(meta);
        #[cfg(not(unix))]
        let inode = 0;
        meta.is_file().then(|| FileVersion {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode,
        })
    }

    /// The size.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the file was empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// [`FileChangedSize`] if `file` (the same open file, or the same path opened again) is
    /// no longer as long, [`FileModified`] if its modification time or inode moved: what
    /// was read since may be part old, part new.
    ///
    /// # Errors
    /// Those, inside an [`io::Error`]; the `fstat`'s own error.
    pub fn check(&self, file: &File) -> io::Result<()> {
        let now = Self::of_metadata(&file.metadata()?).unwrap_or(FileVersion {
            modified: None,
            ..*self
        });
        if now.len != self.len {
            return Err(FileChangedSize {
                expected: self.len,
                found: (now.len < self.len).then_some(now.len),
            }
            .into_io());
        }
        if now != *self {
            return Err(io::Error::other(FileModified));
        }
        Ok(())
    }

    /// [`FileVersion::check`] for a file of more than [`SMALL_FILE`] bytes: a smaller one is
    /// one read, and one `fstat` more per small file costs ~5 % of hashing many of them.
    pub(super) fn check_large(&self, file: &File) -> io::Result<()> {
        if self.len <= SMALL_FILE {
            return Ok(());
        }
        self.check(file)
    }

    /// The version as bytes, equal for equal versions (on any machine that sees the file):
    /// `file`, then the size, the modification time (seconds and nanoseconds since the Unix
    /// epoch, or none) and the inode, little-endian.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = b"file".to_vec();
        out.extend_from_slice(&self.len.to_le_bytes());
        let since_epoch =
            self.modified
                .map(|time| match time.duration_since(std::time::UNIX_EPOCH) {
                    Ok(after) => (after.as_secs() as i64, after.subsec_nanos()),
                    Err(before) => {
                        let before = before.duration();
                        (-(before.as_secs() as i64), before.subsec_nanos())
                    }
                });
        let (secs, nanos) = since_epoch.unwrap_or((i64::MIN, u32::MAX));
        out.extend_from_slice(&secs.to_le_bytes());
        out.extend_from_slice(&nanos.to_le_bytes());
        out.extend_from_slice(&self.inode.to_le_bytes());
        out
    }
}

/// Told how hashing advances (to draw a progress bar). Every method has an empty default;
/// all are called from the thread that hashes, which in [`FileHasher::hash_files`] may be
/// several worker threads at once.
pub trait Progress: Sync {
    /// A file or stream starts being hashed piece by piece; `len` is its size when known. Not
    /// called for the small files [`FileHasher::hash_files`] reads whole.
    fn started(&self, len: Option<u64>) {
        let _ = len;
    }

    /// `bytes` more bytes of it were hashed.
    fn hashed(&self, bytes: u64) {
        let _ = bytes;
    }

    /// [`FileHasher::hash_files`] only: one input is done (hashed or failed), `bytes` long.
    fn file_done(&self, bytes: u64) {
        let _ = bytes;
    }
}

/// Hashes files with the hasher a [`HasherBuilder`] describes (algorithm, threads, variant,
/// PARSHA-256's tree parameters); each file gets a fresh hasher, told its length when it is
/// known. Cheap to clone.
#[derive(Clone)]
pub struct FileHasher<'p> {
    builder: HasherBuilder,
    progress: Option<&'p dyn Progress>,
    read_ahead: ReadAhead,
    read_strategy: ReadStrategy,
    maps: bool,
}

impl fmt::Debug for FileHasher<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileHasher")
            .field("builder", &self.builder)
            .field("progress", &self.progress.is_some())
            .field("read_ahead", &self.read_ahead)
            .field("read_strategy", &self.read_strategy)
            .field("maps", &self.maps)
            .finish()
    }
}

impl<'p> FileHasher<'p> {
    /// Hashes files as `builder`'s hasher would (its `expected_len` is replaced by each file's
    /// size).
    pub fn new(builder: HasherBuilder) -> FileHasher<'static> {
        FileHasher {
            builder,
            progress: None,
            read_ahead: ReadAhead::default(),
            read_strategy: ReadStrategy::default(),
            maps: true,
        }
    }

    /// The same, with (`true`, the default) or without memory maps: of a large file read in
    /// parallel from the page cache or from memory (tmpfs), and of one read ahead as one
    /// stream, which a thread of its own then maps in ahead of the hasher instead of copying
    /// it into buffers (see the module's notes on maps). Without, every byte is copied out with
    /// reads. Where a map cannot be made safely (not Linux, another `SIGBUS` handler in place,
    /// a file system that refuses maps) or maps are off for the process
    /// ([`disable_memory_maps`]), the file is read whatever this says. The first map installs
    /// parhash's process-wide `SIGBUS` handler (see the module's notes).
    #[must_use]
    pub fn memory_maps(mut self, maps: bool) -> Self {
        self.maps = maps;
        self
    }

    /// The same, reading each large regular file as `strategy` says (default:
    /// [`ReadStrategy::Auto`], decided per file from where its bytes are).
    #[must_use]
    pub fn read_strategy(mut self, strategy: ReadStrategy) -> Self {
        self.read_strategy = strategy;
        self
    }

    /// How `file` (`len` bytes long) will be read: [`ReadStrategy::Parallel`] when the hashing
    /// threads read their own pieces, else [`ReadStrategy::Sequential`] (one stream): what
    /// [`ReadStrategy::Auto`] decides for it, or what was asked where it applies (only a
    /// regular file of a few MiB or more, hashed on more than one thread by an algorithm that
    /// splits one message over threads, can be read in parallel).
    pub fn read_strategy_for(&self, file: &File, len: u64) -> ReadStrategy {
        if self.parallel_reads(file, len).is_some() {
            ReadStrategy::Parallel
        } else {
            ReadStrategy::Sequential
        }
    }

    /// The same, reading large files on a thread of their own as `when` says (default:
    /// [`ReadAhead::WhenNotCached`], which for a tree mode on more than one thread means
    /// [`ReadAhead::Always`]).
    #[must_use]
    pub fn read_ahead(mut self, when: ReadAhead) -> Self {
        self.read_ahead = when;
        self
    }

    /// The same, reporting to `progress`.
    pub fn with_progress<'q>(&self, progress: &'q dyn Progress) -> FileHasher<'q> {
        FileHasher {
            builder: self.builder.clone(),
            progress: Some(progress),
            read_ahead: self.read_ahead,
            read_strategy: self.read_strategy,
            maps: self.maps,
        }
    }

    /// The algorithm the files are hashed with.
    pub fn algorithm(&self) -> Algorithm {
        self.builder.algorithm()
    }

    /// Opens `path` and hashes what it holds ([`FileHasher::hash_file`]).
    ///
    /// # Errors
    /// As [`File::open`] and [`FileHasher::hash_file`].
    pub fn hash_path(&self, path: impl AsRef<Path>) -> io::Result<Output> {
        self.hash_file(&File::open(path)?)
    }

    /// Hashes `file` from its start: a regular file for exactly the size `stat` gives, with
    /// reads overlapped; anything else (a pipe, a device, a file that says 0 bytes) to its end,
    /// as [`FileHasher::hash_reader`].
    ///
    /// # Errors
    /// A read error; [`FileChangedSize`] for a regular file that shrank or grew meanwhile;
    /// the builder's error ([`crate::Error`], as [`io::ErrorKind::Other`]); for PARSHA-256,
    /// input of unknown length over [`SPOOL_LIMIT`].
    pub fn hash_file(&self, file: &File) -> io::Result<Output> {
        self.hash_file_counted(file).map(|(digest, _)| digest)
    }

    /// Hashes everything `reader` gives until its end (input of unknown length).
    ///
    /// # Errors
    /// A read error; the builder's error; for PARSHA-256, input over [`SPOOL_LIMIT`].
    pub fn hash_reader(&self, reader: impl Read) -> io::Result<Output> {
        self.hash_reader_counted(reader).map(|(digest, _)| digest)
    }

    /// [`FileHasher::hash_file`], and the number of bytes hashed.
    fn hash_file_counted(&self, file: &File) -> io::Result<(Output, u64)> {
        match FileVersion::of(file) {
            // procfs and sysfs files say 0 bytes whatever they hold: no length to promise.
            Some(before) if !before.is_empty() => {
                let digest = self.hash_regular(file, before.len())?;
                before.check_large(file)?;
                Ok((digest, before.len()))
            }
            _ => self.hash_reader_counted(file),
        }
    }

    /// Hashes the `len` bytes of the regular file `file`.
    fn hash_regular(&self, file: &File, len: u64) -> io::Result<Output> {
        if let Some(extents) = sparse::Extents::of(file, len) {
            if let Some(threads) = self.parallel_threads(len) {
                if let Some(plan) = split::sparse_plan(len, &self.builder, threads)? {
                    self.started(Some(len));
                    let hashed = |n| self.hashed(n);
                    return split::hash_sparse(file, len, &extents, &plan, threads, &hashed);
                }
            }
            return self.hash_sparse(file, len, &extents);
        }
        if let Some((threads, storage)) = self.parallel_reads(file, len) {
            self.started(Some(len));
            let map = self.maps && storage.serves_maps();
            return split::hash(file, len, &self.builder, threads, map, &|n| self.hashed(n));
        }
        let mut hasher = self.hasher(Some(len))?;
        self.started(Some(len));
        // A file of one piece at most is one read and one update, whatever the thread
        // count: not asking for it spares a small file the cgroup quota reads that
        // counting the cores costs (about a tenth of `parhash sum` on one small file).
        let (piece_size, read_ahead) = if len <= PIECE as u64 {
            (PIECE, ReadAhead::Never)
        } else {
            (self.piece_size(), self.read_ahead_for_files())
        };
        read::read_exactly(
            file,
            len,
            piece_size,
            read_ahead,
            self.maps && Hasher::splits_over_threads(self.algorithm()),
            |piece| {
                hasher.update(piece);
                self.hashed(piece.len());
            },
        )?;
        finish(hasher)
    }

    /// Hashes the `len` bytes of `file`, which has holes (`extents` is its data), where it is
    /// not hashed in parts ([`split::sparse_plan`]): one stream through the hasher (its own
    /// threads, where it has them), the holes from a buffer of zeros ([`sparse`]), never a map
    /// (a map of a hole fills the page cache with zeros).
    fn hash_sparse(&self, file: &File, len: u64, extents: &sparse::Extents) -> io::Result<Output> {
        let mut hasher = self.hasher(Some(len))?;
        self.started(Some(len));
        sparse::read_exactly(file, len, self.piece_size(), extents, |piece| {
            hasher.update(piece);
            self.hashed(piece.len());
        })?;
        finish(hasher)
    }

    fn hash_reader_counted(&self, mut reader: impl Read) -> io::Result<(Output, u64)> {
        if self.algorithm().needs_message_length() {
            let data = spool(&mut reader)?;
            let len = data.len() as u64;
            let mut hasher = self.hasher(Some(len))?;
            self.started(Some(len));
            hasher.update(&data);
            self.hashed(data.len());
            return Ok((finish(hasher)?, len));
        }
        let mut hasher = self.hasher(None)?;
        self.started(None);
        let len = read::read_to_end(&mut reader, self.piece_size(), |piece| {
            hasher.update(piece);
            self.hashed(piece.len());
        })?;
        Ok((finish(hasher)?, len))
    }

    /// A fresh hasher, told the message length when it is known (so PARSHA-256 streams).
    fn hasher(&self, len: Option<u64>) -> io::Result<Hasher> {
        let builder = self.builder.clone();
        let builder = match len {
            Some(len) => builder.expected_len(len),
            None => builder,
        };
        builder.build().map_err(io::Error::other)
    }

    /// The threads that read and hash their own pieces of `file`, and where its bytes are,
    /// when it is read in parallel.
    fn parallel_reads(&self, file: &File, len: u64) -> Option<(crate::Threads, Storage)> {
        let threads = self.parallel_threads(len)?;
        let storage = storage_of(file, len);
        let parallel =
            self.read_strategy == ReadStrategy::Parallel || storage.serves_parallel_reads();
        parallel.then_some((threads, storage))
    }

    /// The threads that would hash a `len`-byte file in parts, each reading its own: `None`
    /// where it is one stream (too short, one thread, an algorithm that does not split, or
    /// sequential reads asked for).
    fn parallel_threads(&self, len: u64) -> Option<crate::Threads> {
        if self.read_strategy == ReadStrategy::Sequential || len < split::SPLIT_FROM {
            return None;
        }
        // The length first: counting the cores reads the cgroup quota files.
        let threads = self.builder.threads_allowed();
        (threads.more_than_one() && split::can_split(&self.builder)).then_some(threads)
    }

    /// When a large file is read ahead: as asked, except that the default reads ahead from the
    /// start for a tree mode on more than one thread (see the module's notes).
    fn read_ahead_for_files(&self) -> ReadAhead {
        if self.read_ahead == ReadAhead::WhenNotCached
            && Hasher::splits_over_threads(self.algorithm())
            && self.builder.threads_allowed().more_than_one()
        {
            ReadAhead::Always
        } else {
            self.read_ahead
        }
    }

    /// Bytes per read and per update for these files ([`piece_size`]).
    fn piece_size(&self) -> usize {
        piece_size(self.algorithm(), self.builder.threads_allowed())
    }

    fn started(&self, len: Option<u64>) {
        if let Some(progress) = self.progress {
            progress.started(len);
        }
    }

    fn hashed(&self, bytes: usize) {
        if let Some(progress) = self.progress {
            progress.hashed(bytes as u64);
        }
    }

    fn file_done(&self, bytes: u64) {
        if let Some(progress) = self.progress {
            progress.file_done(bytes);
        }
    }
}

/// The digest; a hasher told a length that received another is an error (it cannot happen
/// here, where reads stop at the length, but the check is the hasher's own).
fn finish(hasher: Hasher) -> io::Result<Output> {
    hasher.try_finalize().map_err(io::Error::other)
}

/// Whether parhash's `SIGBUS` handler is installed in this process and still the one in place
/// (always `false` off Linux). The first memory map a [`FileHasher`] or [`MultiHasher`] makes
/// installs it; see the module's notes.
pub fn sigbus_handler_installed() -> bool {
    #[cfg(target_os = "linux")]
    return crate::mapped::handler_installed();
    #[cfg(not(target_os = "linux"))]
    false
}

/// Makes no more memory maps of files in this process: every [`FileHasher`] and
/// [`MultiHasher`] then reads, as with `memory_maps(false)`, and parhash's `SIGBUS` handler is
/// never installed if it is not yet ([`sigbus_handler_installed`]). For a program that owns
/// `SIGBUS`: call it before hashing files. A handler installed earlier stays (another thread
/// may be reading a map); it passes every fault outside parhash's maps on to the action that
/// was in place before it.
pub fn disable_memory_maps() {
    #[cfg(target_os = "linux")]
    crate::mapped::disable();
}

/// The size of a regular file (`None` for pipes, devices, directories, ...).
pub fn regular_file_len(file: &File) -> Option<u64> {
    file.metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
}

/// Reads input of unknown length into memory, at most [`SPOOL_LIMIT`] bytes; more is an error.
///
/// # Errors
/// A read error, or input over the limit.
pub fn spool(reader: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut data = Vec::new();
    reader.take(SPOOL_LIMIT + 1).read_to_end(&mut data)?;
    if data.len() as u64 > SPOOL_LIMIT {
        return Err(io::Error::other(format!(
            "input of unknown length over {} MiB: PARSHA-256 needs the length first; hash a regular file instead",
            SPOOL_LIMIT >> 20
        )));
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spool_refuses_nothing_under_the_limit() {
        assert_eq!(spool(&mut &b"abc"[..]).unwrap(), b"abc");
    }

    #[test]
    fn changed_size_reads_as_the_cli_prints_it() {
        let err = FileChangedSize {
            expected: 10,
            found: Some(3),
        }
        .into_io();
        assert_eq!(err.to_string(), "file changed size while being read");
        assert!(err
            .get_ref()
            .and_then(|e| e.downcast_ref::<FileChangedSize>())
            .is_some());
    }

    /// A large file whose mtime or size moved between the start and the end is an error; a
    /// small one (one read) and an unmoved one are not.
    #[test]
    fn a_moved_mtime_or_size_is_a_change() {
        let dir = tempfile::tempdir().unwrap();
        let (large, small) = (dir.path().join("large"), dir.path().join("small"));
        std::fs::write(&large, vec![1u8; SMALL_FILE as usize + 1]).unwrap();
        std::fs::write(&small, b"small").unwrap();
        let file = File::options().write(true).open(&large).unwrap();
        let before = FileVersion::of(&file).unwrap();
        before.check_large(&file).unwrap();
        let later =
            file.metadata().unwrap().modified().unwrap() + std::time::Duration::from_secs(1);
        file.set_modified(later).unwrap();
        let err = before.check_large(&file).unwrap_err();
        assert_eq!(err.to_string(), "file changed while being read");
        assert!(err.get_ref().is_some_and(|e| e.is::<FileModified>()));
        FileVersion::of(&file).unwrap().check_large(&file).unwrap();
        let before = FileVersion::of(&file).unwrap();
        file.set_len(10).unwrap();
        let err = before.check_large(&file).unwrap_err();
        let changed = err
            .get_ref()
            .and_then(|e| e.downcast_ref::<FileChangedSize>());
        assert_eq!(changed.and_then(|c| c.found), Some(10));
        let file = File::options().write(true).open(&small).unwrap();
        let before = FileVersion::of(&file).unwrap();
        file.set_modified(later).unwrap();
        before.check_large(&file).unwrap();
        // Checked whatever its size (as the parts of one file are), the small one moved too.
        assert!(before
            .check(&file)
            .unwrap_err()
            .get_ref()
            .is_some_and(|e| e.is::<FileModified>()));
    }

    /// A path replaced by another file of the same size and time (another inode) is another
    /// version, and its bytes say so; the same file opened again is the same version.
    #[test]
    fn a_file_replaced_under_its_name_is_another_version() {
        let dir = tempfile::tempdir().unwrap();
        let (path, other) = (dir.path().join("file"), dir.path().join("other"));
        std::fs::write(&path, b"version one").unwrap();
        std::fs::write(&other, b"version two").unwrap();
        let first = File::open(&path).unwrap();
        let before = FileVersion::of(&first).unwrap();
        assert_eq!(FileVersion::of(&File::open(&path).unwrap()), Some(before));
        assert_eq!(
            before.to_bytes(),
            FileVersion::of(&File::open(&path).unwrap())
                .unwrap()
                .to_bytes()
        );
        let time = first.metadata().unwrap().modified().unwrap();
        File::options()
            .write(true)
            .open(&other)
            .unwrap()
            .set_modified(time)
            .unwrap();
        std::fs::rename(&other, &path).unwrap();
        let again = File::open(&path).unwrap();
        let err = before.check(&again).unwrap_err();
        assert!(
            err.get_ref().is_some_and(|e| e.is::<FileModified>()),
            "{err}"
        );
        assert_ne!(
            FileVersion::of(&again).unwrap().to_bytes(),
            before.to_bytes()
        );
    }

    /// The default reads ahead from the start only for a tree mode on more than one thread;
    /// a choice made by the caller stands.
    #[test]
    fn tree_modes_on_threads_read_ahead_by_default() {
        let files = |alg, threads| {
            FileHasher::new(Hasher::builder(alg).threads(crate::Threads::new(threads)))
        };
        let cases = [
            (Algorithm::Sandstorm256, 2, ReadAhead::Always),
            (Algorithm::Parsha256, 0, ReadAhead::Always),
            (Algorithm::Sandstorm256, 1, ReadAhead::WhenNotCached),
            (Algorithm::Sha256, 2, ReadAhead::WhenNotCached),
        ];
        for (alg, threads, expected) in cases {
            let got = files(alg, threads).read_ahead_for_files();
            // 0 = all cores: one core here means one thread.
            let expected = if threads == 0 && crate::threads::available() == 1 {
                ReadAhead::WhenNotCached
            } else {
                expected
            };
            assert_eq!(got, expected, "{alg:?} on {threads} threads");
        }
        for mode in [ReadAhead::Never, ReadAhead::Always] {
            let got = files(Algorithm::Sandstorm256, 2)
                .read_ahead(mode)
                .read_ahead_for_files();
            assert_eq!(got, mode);
        }
    }
}
