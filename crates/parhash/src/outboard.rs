//! BLAKE3 outboard trees, as the `bao` crate writes them, and ranges of a file verified
//! against its BLAKE3 digest without reading the rest of it.
//!
//! BLAKE3 hashes a message as a binary tree over 1 KiB chunks. An *outboard* keeps the inner
//! nodes of that tree beside the file: an 8-byte little-endian header (the file's length), then
//! every parent node (its left and right children's 32-byte chaining values) in pre-order: a
//! parent, then its left subtree's parents, then its right subtree's. With the outboard and the
//! digest (the tree's root), any byte range can be checked by reading only the range and the
//! parents on its paths to the root ([`verify_range`]).
//!
//! ```
//! use parhash::outboard::{encode, verify_range};
//! use std::io::Cursor;
//!
//! let data = vec![7u8; 100_000];
//! let (root, outboard) = encode(&data);
//! assert_eq!(root, *blake3::hash(&data).as_bytes());
//! verify_range(&root, Cursor::new(&outboard), Cursor::new(&data), 5_000, 20_000).unwrap();
//!
//! let mut damaged = data.clone();
//! damaged[6_000] ^= 1;
//! let err = verify_range(&root, Cursor::new(&outboard), Cursor::new(&damaged), 5_000, 20_000)
//!     .unwrap_err();
//! assert!(err.is_data_damage());
//! ```
//!
//! # Chunk groups
//!
//! The tree may be cut off above the chunks ([`ChunkGroup`]): leaves of 2^k chunks each (the
//! last one shorter), and only the parents above them in the outboard. The root, and so the
//! digest, is the same for every k; the outboard shrinks by 2^k and a range is read in whole
//! groups. The sizes that exist are k = 0 to 10 (1 KiB to 1 MiB per group):
//!
//! - k = 0 ([`ChunkGroup::BAO`]): the `bao` crate's outboard (`bao::encode::outboard`, the
//!   `bao` tool's `encode --outboard`), byte for byte: 6.25 % of the file.
//! - k = 4 ([`ChunkGroup::IROH`], 16 KiB): iroh's choice in bao-tree, about 0.4 % of the file.
//! - every k: bao-tree's pre-order outboard with `BlockSize::from_chunk_log(k)` is this
//!   outboard without its first 8 bytes (bao-tree keeps the length elsewhere), and its
//!   `into_inner_with_prefix` form is this outboard exactly.
//!
//! The outboard does not record k: the writer and the verifier must agree on it (as with
//! bao-tree). Every k hashes as wide as the CPU's vectors go, on every core: groups of two
//! chunks or more by the `blake3` crate (its many-chunk kernel, faster than ours), single
//! chunks (k = 0) and every parent above the groups a level of the tree at a time, side by
//! side in SIMD lanes (`algo::blake3::lanes`).
//!
//! # Hashing and writing in one pass
//!
//! [`Encoder`] takes the file's bytes in order, as many or few at a time as a reader gives,
//! and computes the digest and the outboard together: the whole 1 MiB subtrees of one
//! `update` are hashed side by side on the library's thread pool, as the streaming BLAKE3
//! hasher does, and their parents are written to the sink as soon as they are known. The
//! file's length must be known up front: it fixes the tree's shape, and so where each parent
//! goes in the pre-order layout. A file in the page cache is better hashed in place:
//! [`encode_mapped`] maps it and has each thread hash its units and write their parents
//! where they go, as the file engine hashes BLAKE3 alone (`sum -a blake3 --outboard`).

use std::fmt;
use std::fs::File;
use std::io::{self, Cursor, Read, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::Path;

use ::blake3::hazmat::{
    merge_subtrees_non_root, merge_subtrees_root, ChainingValue, HasherExt, Mode,
};

use crate::algo::blake3::lanes::{chunk_values, parent_values};
use crate::algo::blake3::PIECE;
use crate::file::{FileChangedSize, ReadStrategy};
use crate::lanes::Width;
use crate::threads::{for_each_mut, Threads};

/// Bytes of one BLAKE3 chunk, the tree's smallest leaf.
pub const CHUNK_LEN: u64 = 1024;

/// Bytes of the outboard's header: the file's length, little-endian.
pub const HEADER_LEN: u64 = 8;

/// Bytes of one parent node in the outboard: two chaining values.
pub const PARENT_LEN: u64 = 64;

/// The size of the tree's leaves: 2^k chunks ([`ChunkGroup::new`]). See the module's
/// documentation for the sizes and what each is compatible with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChunkGroup(u8);

impl ChunkGroup {
    /// One chunk per leaf: the `bao` crate's outboard.
    pub const BAO: ChunkGroup = ChunkGroup(0);
    /// 16 chunks (16 KiB) per leaf: iroh's groups.
    pub const IROH: ChunkGroup = ChunkGroup(4);
    /// The largest k: 1024 chunks (1 MiB) per leaf.
    pub const MAX_LOG: u8 = 10;

    /// Leaves of 2^`chunk_log` chunks; `None` above [`ChunkGroup::MAX_LOG`].
    pub const fn new(chunk_log: u8) -> Option<ChunkGroup> {
        if chunk_log <= ChunkGroup::MAX_LOG {
            Some(ChunkGroup(chunk_log))
        } else {
            None
        }
    }

    /// k: the leaves are 2^k chunks.
    pub const fn chunk_log(self) -> u8 {
        self.0
    }

    /// Bytes per leaf.
    pub const fn bytes(self) -> u64 {
        CHUNK_LEN << self.0
    }

    /// The leaves of a file of `len` bytes (an empty file has one, the empty chunk).
    fn groups(self, len: u64) -> u64 {
        len.div_ceil(self.bytes()).max(1)
    }
}

impl Default for ChunkGroup {
    /// [`ChunkGroup::BAO`].
    fn default() -> ChunkGroup {
        ChunkGroup::BAO
    }
}

/// The size of the outboard of a file of `len` bytes: the header and one parent per leaf
/// after the first.
pub fn outboard_size(len: u64, group: ChunkGroup) -> u64 {
    HEADER_LEN + PARENT_LEN * (group.groups(len) - 1)
}

/// The digest (the tree's root, what `b3sum` prints) and the outboard of `data`, in bao's
/// format, on all cores.
pub fn encode(data: &[u8]) -> ([u8; 32], Vec<u8>) {
    encode_grouped(data, ChunkGroup::BAO)
}

/// [`encode`] with leaves of `group`.
pub fn encode_grouped(data: &[u8], group: ChunkGroup) -> ([u8; 32], Vec<u8>) {
    let mut encoder = Encoder::new(data.len() as u64, group);
    encoder
        .update(data)
        .expect("a Vec sink and the length given");
    let (root, sink) = encoder.finalize().expect("a Vec sink and the length given");
    (root, sink.into_inner())
}

/// Hashes the file at `path` and writes its outboard to `outboard` in the same read; returns
/// the digest. The file is read for the length it had when opened: one that changes size
/// meanwhile is an error ([`FileChangedSize`] inside the `io::Error`).
///
/// # Errors
/// Those of opening and reading the file and of writing the outboard.
pub fn encode_file<W: Write + Seek>(
    path: impl AsRef<Path>,
    group: ChunkGroup,
    outboard: W,
) -> io::Result<[u8; 32]> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut encoder = Encoder::with_sink(outboard, len, group);
    // A few units per read, so that one `update` keeps the cores busy.
    let mut buffer = vec![0; 4 * encoder.unit as usize];
    let mut done = 0;
    loop {
        let want = buffer.len().min((len - done) as usize + 1);
        let got = match file.read(&mut buffer[..want]) {
            Ok(got) => got,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if got == 0 {
            break;
        }
        if done + got as u64 > len {
            return Err(io::Error::other(FileChangedSize {
                expected: len,
                found: None,
            }));
        }
        encoder.update(&buffer[..got])?;
        done += got as u64;
    }
    if done != len {
        return Err(io::Error::other(FileChangedSize {
            expected: len,
            found: Some(done),
        }));
    }
    Ok(encoder.finalize()?.0)
}

/// The digest and outboard of a message of known length, fed in order ([`Encoder::update`]);
/// the outboard goes to a sink that can seek (parents are written where the pre-order puts
/// them, as they become known), by default a `Vec` in memory.
///
/// ```
/// use parhash::outboard::{ChunkGroup, Encoder};
/// let data = vec![1u8; 50_000];
/// let mut encoder = Encoder::new(data.len() as u64, ChunkGroup::IROH);
/// for part in data.chunks(7_000) {
///     encoder.update(part)?;
/// }
/// let (root, outboard) = encoder.finalize()?;
/// assert_eq!(root, *blake3::hash(&data).as_bytes());
/// assert_eq!(outboard.into_inner().len(), 8 + 64 * 3); // 4 groups of 16 KiB
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Encoder<W: Write + Seek = Cursor<Vec<u8>>> {
    sink: W,
    group: ChunkGroup,
    threads: Threads,
    /// The message's length, as given.
    len: u64,
    /// Leaves in the whole tree.
    groups: u64,
    /// Bytes per unit of work: a complete subtree of [`PIECE`] or one group, whichever is
    /// larger. A message of one unit or less is held whole and hashed at the end.
    unit: u64,
    /// Bytes taken so far.
    taken: u64,
    /// The open unit's bytes (or the whole message, where it is one unit or less).
    held: Vec<u8>,
    /// Complete subtrees not yet merged: their leaves and chaining values, largest first.
    stack: Vec<(Range<u64>, ChainingValue)>,
}

impl Encoder {
    /// An encoder for a message of `len` bytes whose outboard is kept in memory.
    pub fn new(len: u64, group: ChunkGroup) -> Encoder {
        let size = usize::try_from(outboard_size(len, group)).expect("an outboard that fits");
        Encoder::with_sink(Cursor::new(Vec::with_capacity(size)), len, group)
    }
}

impl<W: Write + Seek> Encoder<W> {
    /// An encoder for a message of `len` bytes writing its outboard to `sink` (at the sink's
    /// offsets 0 to [`outboard_size`]).
    pub fn with_sink(sink: W, len: u64, group: ChunkGroup) -> Encoder<W> {
        Encoder {
            sink,
            group,
            threads: Threads::ALL,
            len,
            groups: group.groups(len),
            unit: (PIECE as u64).max(group.bytes()),
            taken: 0,
            held: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// Uses at most `threads` threads (all cores by default); the result does not depend on it.
    pub fn threads(mut self, threads: impl Into<Threads>) -> Encoder<W> {
        self.threads = threads.into();
        self
    }

    /// Whether the whole message is one unit or less (held, hashed by `finalize`).
    fn one_unit(&self) -> bool {
        self.len <= self.unit
    }

    /// The length of the unit that starts at byte `at`.
    fn unit_len(&self, at: u64) -> u64 {
        self.unit.min(self.len - at)
    }

    /// Takes the message's next bytes.
    ///
    /// # Errors
    /// More bytes than the length given (`InvalidInput`); a failed write to the sink.
    pub fn update(&mut self, mut data: &[u8]) -> io::Result<()> {
        if data.len() as u64 > self.len - self.taken {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("more than the {} bytes the outboard was made for", self.len),
            ));
        }
        if self.one_unit() {
            self.held.extend_from_slice(data);
            self.taken += data.len() as u64;
            return Ok(());
        }
        while !data.is_empty() {
            let start = self.taken - self.held.len() as u64;
            let want = self.unit_len(start) as usize;
            if !self.held.is_empty() || data.len() < want {
                let take = (want - self.held.len()).min(data.len());
                self.held.extend_from_slice(&data[..take]);
                self.taken += take as u64;
                data = &data[take..];
                if self.held.len() == want {
                    let held = std::mem::take(&mut self.held);
                    self.units(start, &held)?;
                    self.held = held;
                    self.held.clear();
                }
            } else {
                // Whole units straight from `data`, a bounded batch at a time (each unit's
                // parents are held until written).
                let mut end = 0;
                while end < data.len() && end < 64 * self.unit as usize {
                    let next = self.unit_len(start + end as u64) as usize;
                    if data.len() - end < next {
                        break;
                    }
                    end += next;
                }
                self.taken += end as u64;
                self.units(start, &data[..end])?;
                data = &data[end..];
            }
        }
        Ok(())
    }

    /// Hashes whole units (`bytes` from byte `start`, a unit boundary) side by side, writes
    /// their parents and pushes their chaining values.
    fn units(&mut self, start: u64, bytes: &[u8]) -> io::Result<()> {
        let group = self.group;
        let mut jobs: Vec<(u64, &[u8], ChainingValue, Vec<u8>)> = bytes
            .chunks(self.unit as usize)
            .enumerate()
            .map(|(i, unit)| (start + i as u64 * self.unit, unit, [0; 32], Vec::new()))
            .collect();
        for_each_mut(&mut jobs, self.threads, |(offset, unit, cv, parents)| {
            *cv = subtree(unit, *offset, group, parents, false);
        });
        for (offset, unit, cv, parents) in jobs {
            let leaves = self.leaves(offset, unit.len() as u64);
            if !parents.is_empty() {
                self.write_parent_block(leaves.clone(), &parents)?;
            }
            self.push(leaves, cv)?;
        }
        Ok(())
    }

    /// The leaves of the `len` bytes from byte `offset` (a group boundary).
    fn leaves(&self, offset: u64, len: u64) -> Range<u64> {
        leaves_of(self.group, offset, len)
    }

    /// Writes the parents of the subtree over `leaves`, in pre-order, where they go.
    fn write_parent_block(&mut self, leaves: Range<u64>, parents: &[u8]) -> io::Result<()> {
        let index = preorder_index(self.groups, leaves);
        self.sink
            .seek(SeekFrom::Start(HEADER_LEN + PARENT_LEN * index))?;
        self.sink.write_all(parents)
    }

    /// Pushes a complete subtree and merges every pair of siblings it completes, except the
    /// root (the whole message), which `finalize` makes.
    fn push(&mut self, leaves: Range<u64>, cv: ChainingValue) -> io::Result<()> {
        self.stack.push((leaves, cv));
        while let [.., (left, _), (right, _)] = self.stack.as_slice() {
            let size = right.end - right.start;
            let siblings = left.end - left.start == size && left.start % (2 * size) == 0;
            if !siblings || right.end == self.groups {
                break;
            }
            let (right, right_cv) = self.stack.pop().expect("two");
            let (left, left_cv) = self.stack.pop().expect("two");
            let leaves = left.start..right.end;
            self.write_parent(leaves.clone(), &left_cv, &right_cv)?;
            let cv = merge_subtrees_non_root(&left_cv, &right_cv, Mode::Hash);
            self.stack.push((leaves, cv));
        }
        Ok(())
    }

    /// Writes the parent over `leaves` with its children's chaining values.
    fn write_parent(
        &mut self,
        leaves: Range<u64>,
        left: &ChainingValue,
        right: &ChainingValue,
    ) -> io::Result<()> {
        let mut node = [0; PARENT_LEN as usize];
        node[..32].copy_from_slice(left);
        node[32..].copy_from_slice(right);
        self.write_parent_block(leaves, &node)
    }

    /// The digest; the outboard is complete in the sink, which is given back.
    ///
    /// # Errors
    /// Fewer bytes than the length given (`InvalidInput`); a failed write to the sink.
    pub fn finalize(mut self) -> io::Result<([u8; 32], W)> {
        if self.taken != self.len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} bytes given for an outboard of {} bytes",
                    self.taken, self.len
                ),
            ));
        }
        let root = if self.one_unit() {
            let mut parents = Vec::new();
            let root = subtree(&self.held, 0, self.group, &mut parents, true);
            self.sink.seek(SeekFrom::Start(HEADER_LEN))?;
            self.sink.write_all(&parents)?;
            root
        } else {
            // The right edge, merged from the right; the last merge is the root.
            let (mut leaves, mut right) = self.stack.pop().expect("more than one unit");
            loop {
                let (left_leaves, left) = self.stack.pop().expect("more than one unit");
                leaves = left_leaves.start..leaves.end;
                self.write_parent(leaves.clone(), &left, &right)?;
                if self.stack.is_empty() {
                    break *merge_subtrees_root(&left, &right, Mode::Hash).as_bytes();
                }
                right = merge_subtrees_non_root(&left, &right, Mode::Hash);
            }
        };
        self.sink.seek(SeekFrom::Start(0))?;
        self.sink.write_all(&self.len.to_le_bytes())?;
        self.sink.flush()?;
        Ok((root, self.sink))
    }
}

/// The digest of `file` (`len` bytes, its length when opened) and its outboard, written to
/// `sink` (at its offsets 0 to [`outboard_size`]), where the file engine hashes a file in
/// parts from a map (`maps` allowed, `read` not sequential, the file in the page cache or in
/// memory, no holes) and it maps: its units hashed in place on `threads` threads, as the engine
/// hashes BLAKE3 alone, each unit's parents written where they go by the thread that made
/// them. `None` where not (or for a file of one unit): nothing is read, and the caller feeds
/// the file through an [`Encoder`] instead.
///
/// # Errors
/// Those of the map and of writing the sink; a file that lost pages or grew while read is the
/// file's change ([`FileChangedSize`] inside the `io::Error`).
pub fn encode_mapped(
    file: &File,
    len: u64,
    group: ChunkGroup,
    threads: impl Into<Threads>,
    read: ReadStrategy,
    maps: bool,
    sink: &File,
) -> io::Result<Option<[u8; 32]>> {
    #[cfg(target_os = "linux")]
    return encode_in_place(file, len, group, threads.into(), read, maps, sink);
    #[cfg(not(target_os = "linux"))]
    {
        // Parts in place from a map are the file engine's on Linux alone.
        let _: Threads = threads.into();
        let _ = (file, len, group, read, maps, sink);
        Ok(None)
    }
}

/// [`encode_mapped`] on Linux.
#[cfg(target_os = "linux")]
fn encode_in_place(
    file: &File,
    len: u64,
    group: ChunkGroup,
    threads: Threads,
    read: ReadStrategy,
    maps: bool,
    sink: &File,
) -> io::Result<Option<[u8; 32]>> {
    use std::os::unix::fs::FileExt;
    // Units of 2 MiB (complete subtrees): half the parents above them, and half the writes,
    // of 1 MiB ones, still below the size whose pages the engine maps in before hashing.
    let unit = (2 << 20).max(group.bytes());
    if len <= unit {
        return Ok(None);
    }
    let mut merges = Encoder::with_sink(Positioned::new(sink), len, group);
    let groups = merges.groups;
    let values =
        crate::file::in_place_parts(file, len, unit, read, maps, threads, |index, part| {
            let offset = index as u64 * unit;
            let mut parents = Vec::new();
            let cv = subtree(part, offset, group, &mut parents, false);
            let leaves = leaves_of(group, offset, part.len() as u64);
            sink.write_all_at(
                &parents,
                HEADER_LEN + PARENT_LEN * preorder_index(groups, leaves),
            )?;
            if (index + 1) % WRITEBACK_UNITS == 0 {
                start_writeback(sink);
            }
            Ok(cv)
        });
    let Some(values) = values else {
        return Ok(None);
    };
    // The parents above the units, in order, as the encoder merges its units.
    for (index, cv) in values?.into_iter().enumerate() {
        let offset = index as u64 * unit;
        merges.push(merges.leaves(offset, unit.min(len - offset)), cv)?;
    }
    merges.taken = len;
    Ok(Some(merges.finalize()?.0))
}

/// Units hashed between two starts of the outboard's writeback ([`start_writeback`]): 64 MiB
/// of the file, a few hundred KiB to 4 MiB of outboard (one start per unit, at 8 KiB, cost
/// more than it saved).
#[cfg(target_os = "linux")]
const WRITEBACK_UNITS: usize = 32;

/// Starts writing what `file` holds unwritten to its disk, without waiting: the outboard goes
/// to the disk while the rest of the file is hashed, and the caller's closing sync waits for
/// little (a 64 MiB outboard's `fsync` took 33 ms; 0.25 ms after its writeback had started).
/// A hint: an error here is the closing sync's to report.
#[cfg(target_os = "linux")]
fn start_writeback(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: a system call on a descriptor that `file` keeps open, with integer arguments;
    // it reads and writes no memory of this process.
    let _ = unsafe { libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE) };
}

/// A file written at the offset last sought, with positional writes: a seek costs no system
/// call.
#[cfg(target_os = "linux")]
struct Positioned<'a> {
    file: &'a File,
    at: u64,
}

#[cfg(target_os = "linux")]
impl<'a> Positioned<'a> {
    fn new(file: &'a File) -> Positioned<'a> {
        Positioned { file, at: 0 }
    }
}

#[cfg(target_os = "linux")]
impl Write for Positioned<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        use std::os::unix::fs::FileExt;
        let n = self.file.write_at(bytes, self.at)?;
        self.at += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(target_os = "linux")]
impl Seek for Positioned<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        match to {
            SeekFrom::Start(at) => self.at = at,
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    "seek from the start",
                ))
            }
        }
        Ok(self.at)
    }
}

impl<W: Write + Seek> fmt::Debug for Encoder<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Encoder {{ len: {}, group: {:?}, taken: {}, ... }}",
            self.len, self.group, self.taken
        )
    }
}

/// Hashes the subtree of `bytes` starting at byte `offset` (a group boundary; the whole
/// message where `root`), appends its parents to `parents` in pre-order, and returns its
/// chaining value (the digest where `root`).
///
/// Bottom up, a level at a time, each level's nodes side by side in SIMD lanes: the whole
/// chunks, then the parents of each level (a level's chaining values, read two by two, are
/// its parents' blocks). Pairing a level's nodes from the left and carrying an odd last one
/// up unchanged builds BLAKE3's tree, whose left subtrees are whole powers of two.
fn subtree(
    bytes: &[u8],
    offset: u64,
    group: ChunkGroup,
    parents: &mut Vec<u8>,
    root: bool,
) -> ChainingValue {
    if bytes.len() as u64 <= group.bytes() {
        return leaf_value(bytes, offset, root);
    }
    let width = Width::detect();
    // The whole chunks side by side in the lanes, a last partial chunk by the crate, then
    // the levels up to the groups (not in the outboard: a group's inner parents), each a pass
    // of the lanes across every group. Through the crate a group at a time (its `hazmat`
    // API), each group's inner parents ran at 8, 4, 2 and 1 lanes: 4 % more time at 16 KiB
    // groups.
    let whole = bytes.len() / CHUNK_LEN as usize;
    let mut level = vec![[0; 32]; bytes.len().div_ceil(CHUNK_LEN as usize)];
    let (whole_bytes, tail) = bytes.split_at(whole * CHUNK_LEN as usize);
    chunk_values(width, whole_bytes, offset / CHUNK_LEN, &mut level[..whole]);
    if !tail.is_empty() {
        level[whole] = leaf_value(tail, offset + whole_bytes.len() as u64, false);
    }
    // Pairing from the left, an odd last node carried up: the groups' own subtrees, as the
    // subtree is group-aligned and every group but the last is whole.
    for _ in 0..group.chunk_log() {
        level = merge_level(width, &level);
    }
    // Up to this subtree's top, keeping every level.
    let mut levels = Vec::new();
    while level.len() > 1 {
        let up = if root && level.len() == 2 {
            vec![*merge_subtrees_root(&level[0], &level[1], Mode::Hash).as_bytes()]
        } else {
            merge_level(width, &level)
        };
        levels.push(std::mem::replace(&mut level, up));
    }
    levels.push(level);
    write_preorder(&levels, levels.len() - 1, 0, parents);
    levels.last().expect("the top")[0]
}

/// The level above `level`: its nodes' parents two by two, an odd last node carried up.
fn merge_level(width: Width, level: &[ChainingValue]) -> Vec<ChainingValue> {
    let pairs = level.len() / 2;
    let mut up = vec![[0; 32]; level.len().div_ceil(2)];
    parent_values(width, level[..2 * pairs].as_flattened(), &mut up[..pairs]);
    if level.len() % 2 == 1 {
        up[pairs] = level[level.len() - 1];
    }
    up
}

/// Appends the parents of node `index` of `levels[height]` and of those below it, in
/// pre-order: a node with two children is a parent (its children's chaining values, side by
/// side in the level below); one with a single child is that child, carried up.
fn write_preorder(
    levels: &[Vec<ChainingValue>],
    height: usize,
    index: usize,
    parents: &mut Vec<u8>,
) {
    if height == 0 {
        return;
    }
    let below = &levels[height - 1];
    let left = 2 * index;
    if left + 1 < below.len() {
        parents.extend_from_slice(below[left..left + 2].as_flattened());
        write_preorder(levels, height - 1, left, parents);
        write_preorder(levels, height - 1, left + 1, parents);
    } else {
        write_preorder(levels, height - 1, left, parents);
    }
}

/// The leaves of `group` under the `len` bytes from byte `offset` (a group boundary).
fn leaves_of(group: ChunkGroup, offset: u64, len: u64) -> Range<u64> {
    offset / group.bytes()..(offset + len).div_ceil(group.bytes())
}

/// The chaining value of one leaf at byte `offset` (the digest where it is the whole message).
fn leaf_value(bytes: &[u8], offset: u64, root: bool) -> ChainingValue {
    let mut hasher = ::blake3::Hasher::new();
    if root {
        return *hasher.update(bytes).finalize().as_bytes();
    }
    hasher.set_input_offset(offset);
    hasher.update(bytes);
    hasher.finalize_non_root()
}

/// The leaves of the left subtree of a node over `leaves` (at least 2): the largest power of
/// two below it, BLAKE3's rule.
fn left_leaves(leaves: u64) -> u64 {
    debug_assert!(leaves >= 2);
    1 << (63 - (leaves - 1).leading_zeros())
}

/// The pre-order index of the parent at the top of the subtree over `target` in a tree of
/// `groups` leaves, found from the root down: the left child follows its parent, the right
/// child follows the left subtree's parents (one fewer than its leaves).
fn preorder_index(groups: u64, target: Range<u64>) -> u64 {
    let (mut node, mut index) = (0..groups, 0);
    while node != target {
        let mid = node.start + left_leaves(node.end - node.start);
        if target.start < mid {
            node.end = mid;
            index += 1;
        } else {
            index += mid - node.start;
            node.start = mid;
        }
        debug_assert!(node.start <= target.start && target.end <= node.end);
    }
    index
}

/// Why a range was not verified ([`verify_range`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum RangeError {
    /// The range has no bytes: there is nothing to verify.
    EmptyRange {
        /// Where it starts.
        offset: u64,
    },
    /// The range goes past the end of the file.
    PastEnd {
        /// Where it starts.
        offset: u64,
        /// Its length.
        len: u64,
        /// The file's length (the data's, which the outboard confirms).
        file_len: u64,
    },
    /// Bytes of the data in the range differ from those the digest was made from: these byte
    /// ranges of the file, each a run of whole leaves (chunk groups), ascending.
    DataDamaged {
        /// The damaged leaves' bytes.
        ranges: Vec<Range<u64>>,
    },
    /// The data is not as long as the file the digest and the outboard describe.
    DataLength {
        /// The length in the outboard's header.
        expected: u64,
        /// The data's length.
        found: u64,
    },
    /// The outboard has the wrong size for the length in its header and for the data's (short,
    /// long, or of another chunk group).
    OutboardSize {
        /// The size for the data's length.
        expected: u64,
        /// The outboard's size.
        found: u64,
    },
    /// The outboard's header is damaged: it says `length`, while the data's length, `data_len`,
    /// agrees with the tree and the digest.
    OutboardHeader {
        /// What the header says.
        length: u64,
        /// The data's length.
        data_len: u64,
    },
    /// The parent node at this byte offset of the outboard does not match the digest (through
    /// the nodes above it): the outboard is damaged, or the digest is not this file's.
    OutboardNode {
        /// The node's offset in the outboard.
        offset: u64,
    },
    /// Reading the data or the outboard failed.
    Io(io::Error),
}

impl RangeError {
    /// Whether the data is damaged (not as it was when the digest was made).
    pub fn is_data_damage(&self) -> bool {
        matches!(
            self,
            RangeError::DataDamaged { .. } | RangeError::DataLength { .. }
        )
    }

    /// Whether the outboard is damaged (or does not belong to this file and digest).
    pub fn is_outboard_damage(&self) -> bool {
        matches!(
            self,
            RangeError::OutboardSize { .. }
                | RangeError::OutboardHeader { .. }
                | RangeError::OutboardNode { .. }
        )
    }
}

impl fmt::Display for RangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RangeError::EmptyRange { offset } => write!(f, "empty range at byte {offset}"),
            RangeError::PastEnd {
                offset,
                len,
                file_len,
            } => write!(
                f,
                "range {offset}:{len} goes past the end of the file ({file_len} bytes)"
            ),
            RangeError::DataDamaged { ranges } => {
                f.write_str("data damaged at bytes ")?;
                for (i, range) in ranges.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{}-{}", range.start, range.end - 1)?;
                }
                Ok(())
            }
            RangeError::DataLength { expected, found } => write!(
                f,
                "data is {found} bytes long, the outboard's file {expected} bytes"
            ),
            RangeError::OutboardSize { expected, found } => write!(
                f,
                "outboard damaged: {found} bytes, expected {expected} (or another chunk group)"
            ),
            RangeError::OutboardHeader { length, data_len } => write!(
                f,
                "outboard damaged: its header says {length} bytes, the file has {data_len}"
            ),
            RangeError::OutboardNode { offset } => write!(
                f,
                "outboard damaged at byte {offset} (or the digest is not this file's)"
            ),
            RangeError::Io(err) => write!(f, "read failed: {err}"),
        }
    }
}

impl std::error::Error for RangeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RangeError::Io(err) => Some(err),
            _ => None,
        }
    }
}

impl From<io::Error> for RangeError {
    fn from(err: io::Error) -> RangeError {
        RangeError::Io(err)
    }
}

/// Verifies `len` bytes of `data` from byte `offset` against `root` (the file's BLAKE3
/// digest) with the file's outboard in bao's format, reading only the range's chunks and the
/// outboard's header and parents on the paths from the range to the root (and seeking to both
/// ends, to learn the sizes). Ok means the range's bytes are those the digest was made from.
///
/// # Errors
/// [`RangeError`]: an empty range, one past the end, damaged data (which bytes), a damaged
/// outboard (distinguished from damaged data: the outboard's nodes are checked against the
/// digest before the data is checked against them), a failed read.
pub fn verify_range(
    root: &[u8; 32],
    outboard: impl Read + Seek,
    data: impl Read + Seek,
    offset: u64,
    len: u64,
) -> Result<(), RangeError> {
    verify_range_grouped(root, ChunkGroup::BAO, outboard, data, offset, len)
}

/// [`verify_range`] with an outboard of leaves of `group` (the one it was written with).
///
/// # Errors
/// As [`verify_range`].
pub fn verify_range_grouped(
    root: &[u8; 32],
    group: ChunkGroup,
    mut outboard: impl Read + Seek,
    mut data: impl Read + Seek,
    offset: u64,
    len: u64,
) -> Result<(), RangeError> {
    if len == 0 {
        return Err(RangeError::EmptyRange { offset });
    }
    let data_len = data.seek(SeekFrom::End(0))?;
    let outboard_len = outboard.seek(SeekFrom::End(0))?;
    let mut walk = Walk::new(root, group, &mut outboard, &mut data, data_len);
    if outboard_len < HEADER_LEN {
        return Err(RangeError::OutboardSize {
            expected: outboard_size(data_len, group),
            found: outboard_len,
        });
    }
    let mut header = [0; HEADER_LEN as usize];
    walk.outboard.seek(SeekFrom::Start(0))?;
    walk.outboard.read_exact(&mut header)?;
    let length = u64::from_le_bytes(header);
    let fits = |len: u64| outboard_size(len, group) == outboard_len;
    if length != data_len {
        // The header and the data disagree: the data's length is right if the tree and the
        // digest say so about its last leaf.
        if fits(data_len)
            && walk
                .check(data_len.saturating_sub(1)..data_len.max(1))
                .is_ok()
        {
            return Err(RangeError::OutboardHeader { length, data_len });
        }
        if fits(length) {
            return Err(RangeError::DataLength {
                expected: length,
                found: data_len,
            });
        }
    }
    if !fits(length) || length != data_len {
        return Err(RangeError::OutboardSize {
            expected: outboard_size(data_len, group),
            found: outboard_len,
        });
    }
    match offset.checked_add(len) {
        Some(end) if end <= data_len => walk.check(offset..end),
        _ => Err(RangeError::PastEnd {
            offset,
            len,
            file_len: data_len,
        }),
    }
}

/// Bytes read at once from the data (the range's leaves) and the most read at once from the
/// outboard (a subtree's parents): few calls, bounded buffers.
const READ_AHEAD: u64 = 1 << 20;

/// One verification's readers, sizes and read-ahead buffers.
struct Walk<'a, O, D> {
    root: &'a [u8; 32],
    group: ChunkGroup,
    outboard: &'a mut O,
    data: &'a mut D,
    /// The file's length and its leaves.
    len: u64,
    groups: u64,
    /// Parents read ahead: the pre-order index of the first, and their bytes.
    parents_at: u64,
    parents: Vec<u8>,
    /// Data read ahead: its offset and bytes.
    data_at: u64,
    data_buf: Vec<u8>,
}

impl<'a, O: Read + Seek, D: Read + Seek> Walk<'a, O, D> {
    fn new(
        root: &'a [u8; 32],
        group: ChunkGroup,
        outboard: &'a mut O,
        data: &'a mut D,
        len: u64,
    ) -> Self {
        Walk {
            root,
            group,
            outboard,
            data,
            len,
            groups: group.groups(len),
            parents_at: 0,
            parents: Vec::new(),
            data_at: 0,
            data_buf: Vec::new(),
        }
    }

    /// Verifies the bytes `range` (not empty, inside the file).
    fn check(&mut self, range: Range<u64>) -> Result<(), RangeError> {
        let bytes = self.group.bytes();
        let wanted = range.start / bytes..range.end.div_ceil(bytes).max(1);
        let mut damaged = Vec::new();
        self.node(0..self.groups, 0, *self.root, &wanted, &mut damaged)?;
        if damaged.is_empty() {
            Ok(())
        } else {
            Err(RangeError::DataDamaged { ranges: damaged })
        }
    }

    /// Verifies the subtree over `leaves` (parent `index` in pre-order) whose chaining value
    /// (the digest, at the root) is `expected`, down to the `wanted` leaves it holds; damaged
    /// leaves are added to `damaged`.
    fn node(
        &mut self,
        leaves: Range<u64>,
        index: u64,
        expected: ChainingValue,
        wanted: &Range<u64>,
        damaged: &mut Vec<Range<u64>>,
    ) -> Result<(), RangeError> {
        let root = leaves.start == 0 && leaves.end == self.groups;
        if leaves.end - leaves.start == 1 {
            let bytes = self.group.bytes();
            let span = leaves.start * bytes..(leaves.end * bytes).min(self.len);
            let read_to = (wanted.end * bytes).min(self.len);
            let leaf = self.data_bytes(span.clone(), read_to)?;
            if leaf_value(leaf, span.start, root) != expected {
                match damaged.last_mut() {
                    Some(last) if last.end == span.start => last.end = span.end,
                    _ => damaged.push(span),
                }
            }
            return Ok(());
        }
        let covered = wanted.start <= leaves.start && leaves.end <= wanted.end;
        let node = self.parent(index, covered.then_some(leaves.end - leaves.start - 1))?;
        let (left, right): (ChainingValue, ChainingValue) = (
            node[..32].try_into().expect("32 bytes"),
            node[32..].try_into().expect("32 bytes"),
        );
        let value = if root {
            *merge_subtrees_root(&left, &right, Mode::Hash).as_bytes()
        } else {
            merge_subtrees_non_root(&left, &right, Mode::Hash)
        };
        if value != expected {
            return Err(RangeError::OutboardNode {
                offset: HEADER_LEN + PARENT_LEN * index,
            });
        }
        let mid = leaves.start + left_leaves(leaves.end - leaves.start);
        if wanted.start < mid {
            self.node(leaves.start..mid, index + 1, left, wanted, damaged)?;
        }
        if wanted.end > mid {
            let right_index = index + (mid - leaves.start);
            self.node(mid..leaves.end, right_index, right, wanted, damaged)?;
        }
        Ok(())
    }

    /// Parent `index`, read with the `subtree` parents that follow it in pre-order (all of
    /// them wanted) where given and not too many.
    fn parent(&mut self, index: u64, subtree: Option<u64>) -> Result<[u8; 64], RangeError> {
        let cached = self.parents_at..self.parents_at + self.parents.len() as u64 / PARENT_LEN;
        if !cached.contains(&index) {
            let count = subtree
                .filter(|&n| n * PARENT_LEN <= READ_AHEAD)
                .unwrap_or(1);
            self.parents.resize((count * PARENT_LEN) as usize, 0);
            self.outboard
                .seek(SeekFrom::Start(HEADER_LEN + PARENT_LEN * index))?;
            self.outboard.read_exact(&mut self.parents)?;
            self.parents_at = index;
        }
        let at = ((index - self.parents_at) * PARENT_LEN) as usize;
        Ok(self.parents[at..at + PARENT_LEN as usize]
            .try_into()
            .expect("64 bytes"))
    }

    /// The data's bytes `span` (one leaf), read ahead up to `read_to` (the end of the last
    /// leaf wanted).
    fn data_bytes(&mut self, span: Range<u64>, read_to: u64) -> io::Result<&[u8]> {
        let held = self.data_at..self.data_at + self.data_buf.len() as u64;
        if span.start < held.start || span.end > held.end {
            let len = (read_to - span.start).min(READ_AHEAD.max(self.group.bytes()));
            let len = len.max(span.end - span.start);
            self.data_buf.resize(len as usize, 0);
            self.data.seek(SeekFrom::Start(span.start))?;
            self.data.read_exact(&mut self.data_buf)?;
            self.data_at = span.start;
        }
        let at = (span.start - self.data_at) as usize;
        Ok(&self.data_buf[at..at + (span.end - span.start) as usize])
    }
}
