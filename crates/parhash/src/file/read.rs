//! Reading a file piece by piece as one stream: exactly its length, into reused buffers, and
//! when it is large and not in the page cache, a few pieces ahead of the hasher on a thread of
//! its own, which maps the pieces in where it may ([`map_ahead`]) and reads them otherwise.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Read};
use std::sync::mpsc;

use super::{FileChangedSize, SMALL_FILE};
use crate::{Algorithm, Hasher, Threads};

/// Bytes per read and per `update` for algorithms that hash one stream on one thread: large
/// enough that system calls and channel hand-overs cost nothing, small enough to stay in the
/// L2 cache between the read's copy and the hash.
pub const PIECE: usize = 1 << 20;

/// Bytes per read and per `update` for the tree modes (SANDstorm, PARSHA-256), per thread they
/// may use: each update is spread over the threads, each of which wants whole superblocks or
/// subtrees, while the buffers going round between reader and hasher should stay in the
/// last-level cache (measured with a reader thread on 2 threads, 1 GiB cached: 4 MiB pieces
/// beat 2 MiB ones and 8 or 16 MiB ones for PARSHA-256; BENCHMARKS.md, "Performance at the
/// roof").
pub(crate) const TREE_PIECE_PER_THREAD: usize = 2 << 20;

/// The fewest bytes per read and per `update` for the tree modes, however few threads.
pub(crate) const TREE_PIECE_MIN: usize = 2 << 20;

/// The most bytes per read and per `update`, however many threads.
pub(crate) const PIECE_MAX: usize = 32 << 20;

/// When a large file is read on a thread of its own, ahead of the hasher
/// ([`super::FileHasher::read_ahead`]). Files of at most two pieces are always read by the
/// hashing thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReadAhead {
    /// From the first piece that is not in the page cache on (the default): cached bytes are
    /// copied by the thread that hashes them, which costs least; disk reads overlap hashing.
    /// Where the system cannot tell (not Linux), as `Always`. A tree mode on more than one
    /// thread reads ahead from the start ([`super::FileHasher::read_ahead`]'s default): its
    /// helpers would wait for every copy.
    #[default]
    WhenNotCached,
    /// From the start.
    Always,
    /// Never: every read on the hashing thread.
    Never,
}

/// Pieces the reader thread may have read ahead of the one being hashed.
pub const READ_AHEAD: usize = 3;

/// A regular file of more pieces than this is read on a thread of its own; a smaller one by
/// the hashing thread (starting a thread and filling its buffers would cost more than the
/// overlap saves).
pub const OVERLAP_FROM_PIECES: u64 = 2;

/// Bytes per read and per `update` when `alg` is hashed with up to `threads` threads.
pub fn piece_size(alg: Algorithm, threads: Threads) -> usize {
    if Hasher::splits_over_threads(alg) {
        (threads.count() * TREE_PIECE_PER_THREAD).clamp(TREE_PIECE_MIN, PIECE_MAX)
    } else {
        PIECE
    }
}

/// Reads the `len` bytes of `file` from its start, handing them to `consume` in pieces of
/// `piece` bytes (the last one shorter), and checks that the file ends there.
///
/// A file of more than [`OVERLAP_FROM_PIECES`] pieces is read by the hashing thread only while
/// the page cache holds it (`preadv2(RWF_NOWAIT)`, Linux): copying cached bytes on the thread
/// that hashes them costs least. The first read that would wait for the disk hands the rest
/// of the file to a reader thread ([`read_ahead`]), so disk reads overlap hashing. With `map`
/// (Linux), the reader thread takes the whole file from the start and maps the pieces in
/// rather than copying them ([`map_ahead`]): cached or not, the hasher then copies nothing (a
/// cached 64 MiB BLAKE3 on one thread: 0.65x the time of copying on the hashing thread).
///
/// # Errors
/// A read error; [`FileChangedSize`] when the file ends early or goes on past `len`.
pub(super) fn read_exactly(
    file: &File,
    len: u64,
    piece: usize,
    read_ahead_when: ReadAhead,
    map: bool,
    mut consume: impl FnMut(&[u8]),
) -> io::Result<()> {
    let overlap =
        read_ahead_when != ReadAhead::Never && len.div_ceil(piece as u64) > OVERLAP_FROM_PIECES;
    if overlap && map {
        // To the reader thread at once: mapping a cached piece in costs no copy, so the
        // hashing thread has nothing to save by reading it (and needs no buffer).
        return read_ahead(file, 0, len, piece, map, consume);
    }
    if len <= SMALL_FILE {
        // A buffer of its own: no spare buffer to find, and no piece-sized allocation (a map
        // and unmap each) for a file that needs a few KiB.
        let data = read_whole(file, len)?;
        consume(&data);
        return Ok(());
    }
    let mut buf = take_buffer(piece);
    let mut offset = 0;
    let result = loop {
        if offset == len {
            break check_end(file, len);
        }
        let want = piece.min((len - offset) as usize);
        if overlap {
            let cached = read_ahead_when == ReadAhead::WhenNotCached
                && read_cached_at(file, &mut buf[..want], offset);
            if !cached {
                give_back(buf);
                return read_ahead(file, offset, len, piece, map, consume);
            }
        } else if let Err(err) = read_piece_at(file, &mut buf[..want], offset, len) {
            break Err(err);
        }
        consume(&buf[..want]);
        offset += want as u64;
    };
    give_back(buf);
    result
}

/// Fills `buf` from `file` at `offset` if the page cache holds all of it; `false` when a read
/// would wait for the disk, meets the end of the file, fails, or cannot be asked not to wait
/// (the caller then reads with the blocking calls, which report what went wrong).
#[cfg(target_os = "linux")]
pub(super) fn read_cached_at(file: &File, buf: &mut [u8], offset: u64) -> bool {
    use rustix::io::{preadv2, Errno, ReadWriteFlags};
    let mut filled = 0;
    while filled < buf.len() {
        let mut slices = [io::IoSliceMut::new(&mut buf[filled..])];
        match preadv2(
            file,
            &mut slices,
            offset + filled as u64,
            ReadWriteFlags::NOWAIT,
        ) {
            Ok(0) => return false,
            Ok(n) => filled += n,
            Err(Errno::INTR) => {}
            Err(_) => return false,
        }
    }
    true
}

#[cfg(not(target_os = "linux"))]
pub(super) fn read_cached_at(_file: &File, _buf: &mut [u8], _offset: u64) -> bool {
    false
}

/// The `len` bytes of a small file, read whole into a buffer of their own; the file must end
/// there.
///
/// # Errors
/// As [`read_exactly`].
pub(super) fn read_whole(file: &File, len: u64) -> io::Result<Vec<u8>> {
    let mut data = vec![0; len as usize];
    read_piece_at(file, &mut data, 0, len)?;
    check_end(file, len)?;
    Ok(data)
}

/// [`read_whole`] of a file the caller has just opened (its offset is 0): `read(2)` straight
/// into the vector's spare capacity, which the standard library's `File` fills without zeroing
/// it first (zeroing each buffer cost a tenth of the CPU time of hashing a tree of small files).
///
/// # Errors
/// As [`read_whole`].
pub(super) fn read_whole_opened(file: &File, len: u64) -> io::Result<Vec<u8>> {
    let mut data = Vec::with_capacity(len as usize);
    file.take(len).read_to_end(&mut data)?;
    if (data.len() as u64) < len {
        let found = Some(data.len() as u64);
        return Err(FileChangedSize {
            expected: len,
            found,
        }
        .into_io());
    }
    check_end(file, len)?;
    Ok(data)
}

/// [`read_exactly`] from `start` on, with the reads on a scoped thread of their own:
/// [`READ_AHEAD`] + 1 buffers go round between it and the hasher (through two channels), so
/// the reader is at most that far ahead and memory stays bounded. With `map`, the file is
/// mapped and that thread maps the pieces in instead ([`map_ahead`]), where a map can be made.
#[cfg_attr(not(target_os = "linux"), allow(unused_variables))] // `map`: maps are Linux-only
fn read_ahead(
    file: &File,
    start: u64,
    len: u64,
    piece: usize,
    map: bool,
    consume: impl FnMut(&[u8]),
) -> io::Result<()> {
    advise_sequential(file);
    #[cfg(target_os = "linux")]
    if let Some(mapping) = map
        .then(|| crate::mapped::Mapping::new(file, len))
        .flatten()
    {
        return map_ahead(&mapping, file, start, len, piece, consume);
    }
    let (full_tx, full_rx) = mpsc::sync_channel::<io::Result<(Buffer, usize)>>(READ_AHEAD);
    let (empty_tx, empty_rx) = mpsc::channel::<Buffer>();
    for _ in 0..=READ_AHEAD {
        // Cannot fail: the receiver is alive.
        let _ = empty_tx.send(take_buffer(piece));
    }
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let mut offset = start;
            while offset < len {
                // The hasher hung up (it stopped on an error): nothing more to read.
                let Ok(mut buf) = empty_rx.recv() else {
                    return Vec::new();
                };
                let want = piece.min((len - offset) as usize);
                let read = read_piece_at(file, &mut buf[..want], offset, len).map(|()| (buf, want));
                let failed = read.is_err();
                if full_tx.send(read).is_err() || failed {
                    return Vec::new();
                }
                offset += want as u64;
            }
            if let Err(err) = check_end(file, len) {
                let _ = full_tx.send(Err(err));
            }
            // Buffers the hasher gave back that were not needed any more, for reuse.
            empty_rx.try_iter().collect()
        });
        // The channels' ends are moved in, so they are dropped (and the reader, if still
        // reading, stops) before the scope waits for it.
        let hashed = hash_pieces(full_rx, empty_tx, consume);
        let spare = reader
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        spare.into_iter().for_each(give_back);
        hashed
    })
}

/// [`read_ahead`] from a map of the file, with no copy: a scoped thread maps the pieces from
/// `start` on into memory ([`crate::mapped::Mapping::populate`], which waits for the disk) at
/// most [`READ_AHEAD`] pieces ahead of the hasher, which hashes each in place and then drops
/// its mapping (the process's resident memory stays the pieces in flight).
///
/// Why: a read copies every byte from the page cache into a buffer, and on a file read from
/// the disk that copy was most of the process's CPU time (BLAKE3, `perf`), more than the
/// hashing, on cores that also serve the disk's I/O. Mapped, the pages the disk filled are
/// hashed where they are (BENCHMARKS.md, cold files).
/// Only for the algorithms that spread one message over threads ([`read_exactly`]'s caller
/// decides): a one-stream algorithm (SHA-1, SHA-256, MD5) hashes slower than the copy, which
/// the reader thread then does on a core that would otherwise wait, and which leaves the bytes
/// in the caches; mapped, the hasher itself waits for memory (1.2-1.3x the reads' time).
///
/// A page the file lost (it was truncated) or that the storage could not read is a
/// [`FileChangedSize`] or an error ([`mapped_fault`]), as on the read path, never a crash.
#[cfg(target_os = "linux")]
fn map_ahead(
    mapping: &crate::mapped::Mapping,
    file: &File,
    start: u64,
    len: u64,
    piece: usize,
    mut consume: impl FnMut(&[u8]),
) -> io::Result<()> {
    use std::ops::Range;
    let bytes = mapping.bytes();
    // Each piece's range once it is mapped in, `None` when it could not be (the file is
    // shorter now): the mapper stops there.
    let (ready_tx, ready_rx) = mpsc::sync_channel::<Option<Range<usize>>>(READ_AHEAD);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut offset = start as usize;
            while offset < bytes.len() {
                let range = offset..(offset + piece).min(bytes.len());
                let mapped = mapping.populate(range.clone());
                offset = range.end;
                // The hasher hung up (it stopped on an error): nothing more to map.
                if ready_tx.send(mapped.then_some(range)).is_err() || !mapped {
                    return;
                }
            }
        });
        // The receiver is moved in, so it is dropped (and the mapper, if still mapping,
        // stops) before the scope waits for it.
        for ready in ready_rx {
            let range = ready.ok_or_else(|| mapped_fault(file, len))?;
            consume(&bytes[range.clone()]);
            mapping.release(range);
        }
        Ok::<(), io::Error>(())
    })?;
    if mapping.faulted() {
        return Err(mapped_fault(file, len));
    }
    check_mapped_end(file, len)
}

/// What a fault in a map (or a refused populate) means: the file is shorter than `len` now
/// (truncated: [`FileChangedSize`] with its length now), or, at its full length, the storage
/// failed to read a page.
#[cfg(target_os = "linux")]
pub(crate) fn mapped_fault(file: &File, len: u64) -> io::Error {
    match file.metadata() {
        Ok(meta) if meta.len() < len => FileChangedSize {
            expected: len,
            found: Some(meta.len()),
        }
        .into_io(),
        Ok(_) => io::Error::new(
            io::ErrorKind::InvalidData,
            "a page of the file could not be read from its storage",
        ),
        Err(err) => err,
    }
}

/// Tells the kernel the file is read as one stream (`posix_fadvise(SEQUENTIAL)`, as `cat`
/// does): Linux doubles its readahead window for it, so a FUSE or network file system gets
/// half as many requests, each twice as large (BENCHMARKS.md, seekfs). Advice only:
/// an error changes nothing.
#[cfg(target_os = "linux")]
pub(super) fn advise_sequential(file: &File) {
    let _ = rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::Sequential);
}

#[cfg(not(target_os = "linux"))]
pub(super) fn advise_sequential(_file: &File) {}

/// The hasher's side of [`read_ahead`]: each full buffer to `consume`, then back to the
/// reader (or to this thread's spares once the reader is done).
fn hash_pieces(
    full: mpsc::Receiver<io::Result<(Buffer, usize)>>,
    empty: mpsc::Sender<Buffer>,
    mut consume: impl FnMut(&[u8]),
) -> io::Result<()> {
    for read in full {
        let (buf, n) = read?;
        consume(&buf[..n]);
        if let Err(mpsc::SendError(buf)) = empty.send(buf) {
            give_back(buf);
        }
    }
    Ok(())
}

/// Reads input of unknown length to its end, handing it to `consume` in pieces of up to
/// `piece` bytes (each as full as the reader allows: a pipe gives short reads, a tree mode
/// wants whole superblocks). Returns the number of bytes read.
pub(super) fn read_to_end(
    reader: &mut impl Read,
    piece: usize,
    mut consume: impl FnMut(&[u8]),
) -> io::Result<u64> {
    let mut buf = take_buffer(piece);
    let mut total = 0u64;
    let result = loop {
        match fill(reader, &mut buf) {
            Ok(0) => break Ok(total),
            Ok(n) => {
                consume(&buf[..n]);
                total += n as u64;
                if n < buf.len() {
                    break Ok(total);
                }
            }
            Err(err) => break Err(err),
        }
    };
    give_back(buf);
    result
}

/// Fills `buf` from `reader` as far as it goes before its end.
pub(super) fn fill(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Fills `buf` from `file` at `offset`; the file ending first means it shrank below `len`.
pub(super) fn read_piece_at(file: &File, buf: &mut [u8], offset: u64, len: u64) -> io::Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        match read_at(file, &mut buf[filled..], offset + filled as u64) {
            Ok(0) => {
                return Err(FileChangedSize {
                    expected: len,
                    found: Some(offset + filled as u64),
                }
                .into_io())
            }
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Checks that `file` has no byte at `len`: one there means it grew while it was read.
pub(super) fn check_end(file: &File, len: u64) -> io::Result<()> {
    let mut byte = [0u8; 1];
    loop {
        match read_at(file, &mut byte, len) {
            Ok(0) => return Ok(()),
            Ok(_) => {
                return Err(FileChangedSize {
                    expected: len,
                    found: None,
                }
                .into_io())
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// [`check_end`] after hashing from a map, which also checks that the file is not shorter now.
/// Reads see a cut as a short read; a map may have read every byte before the file was cut
/// (a whole file hashed in one call leaves no later piece to fault), and the bytes hashed are
/// then no longer the file's. (Not on the read paths: one `fstat` per small file is ~5 % of
/// hashing many of them.)
#[cfg(target_os = "linux")]
pub(super) fn check_mapped_end(file: &File, len: u64) -> io::Result<()> {
    check_end(file, len)?;
    if file.metadata().is_ok_and(|meta| meta.len() < len) {
        return Err(mapped_fault(file, len));
    }
    Ok(())
}

/// A file read from its start by positional reads, whatever its own position (a caller may
/// have written it, or read part of it).
pub(crate) struct FromStart<'a> {
    file: &'a File,
    at: u64,
}

impl<'a> FromStart<'a> {
    pub(crate) fn new(file: &'a File) -> FromStart<'a> {
        FromStart { file, at: 0 }
    }
}

impl Read for FromStart<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let got = read_at(self.file, buf, self.at)?;
        self.at += got as u64;
        Ok(got)
    }
}

/// One positional read (`pread`): it needs no seek, so the file's own position does not matter
/// and the reader thread shares the file by reference.
#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

thread_local! {
    // Buffers kept for the next file this thread hashes: many files in a row cost no
    // allocations (nor the page faults of fresh memory).
    static SPARE_BUFFERS: RefCell<Vec<Buffer>> = const { RefCell::new(Vec::new()) };
}

/// Most spare buffers a thread keeps.
const SPARES: usize = READ_AHEAD + 1;

/// Where a read buffer starts: a page boundary. A read copies from the page cache with `rep
/// movsb`, which on AMD Zen 3 runs several times slower into a destination at another offset
/// in its page than the source's (a large `Vec` starts 16 bytes into its pages; BENCHMARKS.md,
/// "Checksums").
const BUFFER_ALIGN: usize = 4096;

/// A read buffer of a fixed size whose bytes start at a [`BUFFER_ALIGN`] boundary.
pub(super) struct Buffer {
    bytes: Vec<u8>,
    start: usize,
    len: usize,
}

impl Buffer {
    fn new(len: usize) -> Buffer {
        let bytes = vec![0; len + BUFFER_ALIGN];
        let start = bytes.as_ptr().align_offset(BUFFER_ALIGN).min(BUFFER_ALIGN);
        Buffer { bytes, start, len }
    }
}

impl std::ops::Deref for Buffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes[self.start..self.start + self.len]
    }
}

impl std::ops::DerefMut for Buffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.bytes[self.start..self.start + self.len]
    }
}

/// A buffer of `size` bytes: a spare one of that size, or a new one.
pub(super) fn take_buffer(size: usize) -> Buffer {
    SPARE_BUFFERS
        .with_borrow_mut(|spares| {
            let at = spares.iter().position(|b| b.len() == size)?;
            Some(spares.swap_remove(at))
        })
        .unwrap_or_else(|| Buffer::new(size))
}

/// Keeps `buf` for reuse (the oldest spare makes room when there are enough).
pub(super) fn give_back(buf: Buffer) {
    SPARE_BUFFERS.with_borrow_mut(|spares| {
        if spares.len() == SPARES {
            spares.remove(0);
        }
        spares.push(buf);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// New and reused buffers alike start at a page boundary and hold exactly their size.
    #[test]
    fn buffers_start_at_a_page_boundary() {
        for size in [1, 4096, 100_000, 1 << 20] {
            for _ in 0..2 {
                let mut buf = take_buffer(size);
                assert_eq!(buf.as_ptr() as usize % BUFFER_ALIGN, 0, "{size}");
                assert_eq!(buf.len(), size);
                buf[size - 1] = 1;
                give_back(buf);
            }
        }
    }
}
