//! The flags of outboards and byte ranges: `sum --outboard`, `sum --range`, `check --range`
//! (what they do is the command's `range` module).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Args;
use parhash::outboard::ChunkGroup;

pub use parhash_format::range::{parse_chunk_group, parse_range, ByteRange};

/// `sum`'s flags for outboards and ranges.
#[derive(Args, Debug, Default, Clone)]
pub struct SumRangeFlags {
    /// With -a blake3: also write each file's BLAKE3 outboard, FILE.obao (or under DIR).
    ///
    /// The outboard holds BLAKE3's tree above the file's bytes (bao's format: the length,
    /// then every parent node in pre-order), so that `parhash check --range` can verify any
    /// range of the file against its digest reading only that range and a few nodes. It is
    /// made in the same read as the digests of every -a algorithm (the BLAKE3 digest is the
    /// tree's root), and written atomically (FILE.obao.tmp renamed). With --outboard=DIR, the
    /// outboard of NAME is DIR/NAME.obao (directories made as needed; NAME must not contain
    /// `..`). For regular files only (the tree's shape needs the length first); -a must
    /// include blake3, without --keyed, --derive-key or -l. Size: 6.25 % of the file with the
    /// default chunk group, 0.4 % with --chunk-group 4.
    #[arg(long, value_name = "DIR", num_args = 0..=1, require_equals = true, default_missing_value = "", conflicts_with_all = ["range", "check", "device", "etag", "composite", "expected"])]
    pub outboard: Option<OsString>,

    /// Leaves of 2^K KiB in the outboard: 0 is bao's (default), 4 iroh's 16 KiB.
    ///
    /// K = 0 writes the `bao` tool's and crate's outboard byte for byte (6.25 % of the file;
    /// a range is verified in 1 KiB chunks). K = 4 is iroh's bao-tree with 16 KiB chunk
    /// groups (0.4 % of the file, ranges read in 16 KiB groups); any K up to 10 (1 MiB). The
    /// outboard does not record K, so its name does: FILE.obao for 0, FILE.obaoK otherwise
    /// (FILE.obao4), which `check --range` finds by itself.
    #[arg(long = "chunk-group", value_name = "K", value_parser = parse_chunk_group, requires = "outboard")]
    pub chunk_group: Option<ChunkGroup>,

    /// Hash only the bytes OFFSET to OFFSET+LENGTH of each file (1GiB:4MiB).
    ///
    /// The digest of that range, for every -a algorithm, reading only the range. The line
    /// names the range after the file, `HEX  NAME (bytes A-B)` (A and B inclusive; `no
    /// bytes at A` for an empty range), so that it is never taken for the whole file's
    /// digest. OFFSET and LENGTH are sizes (4096, 4KiB, 1e6). A range past a file's end is
    /// an error for that file.
    #[arg(long, value_name = "OFFSET:LENGTH", value_parser = parse_range, conflicts_with_all = ["check", "lists", "output_file", "resume", "update", "device", "etag", "composite", "expected"])]
    pub range: Option<ByteRange>,
}

impl SumRangeFlags {
    /// Whether `sum` hashes through the range module (`range::hash_items`).
    pub fn any(&self) -> bool {
        self.outboard.is_some() || self.range.is_some()
    }
}

/// `check`'s flags for ranges.
#[derive(Args, Debug, Default, Clone)]
pub struct CheckRangeFlags {
    /// Verify only the bytes OFFSET to OFFSET+LENGTH of each BLAKE3 line's file (1GiB:4MiB).
    ///
    /// For each BLAKE3 line, the range is verified against the listed digest with the file's
    /// outboard (written by `sum -a blake3 --outboard` or `bao encode --outboard`), reading
    /// only the range (in whole chunk groups) and the outboard's nodes on the way to the
    /// root, and reported as `NAME: OK (bytes A-B)` or `NAME: FAILED (bytes A-B)` (which
    /// chunks differ goes to standard error). A damaged outboard, a missing one (how to make
    /// it), a range past the end and lines of other algorithms are `FAILED open or read`,
    /// with the reason. The outboard is NAME.obao, or NAME.obaoK for --chunk-group K; without
    /// --chunk-group, the first of NAME.obao, NAME.obao1 ... NAME.obao10 that exists.
    #[arg(long, value_name = "OFFSET:LENGTH", value_parser = parse_range, conflicts_with_all = ["audit", "locate"])]
    pub range: Option<ByteRange>,

    /// Where --range finds the outboards, as `sum --outboard=DIR` wrote them (DIR/NAME.obao).
    #[arg(long, value_name = "DIR", requires = "range")]
    pub outboard: Option<PathBuf>,

    /// The outboards' chunk group, as `sum --chunk-group` (0: bao's, 4: iroh's).
    #[arg(long = "chunk-group", value_name = "K", value_parser = parse_chunk_group, requires = "range")]
    pub chunk_group: Option<ChunkGroup>,
}
