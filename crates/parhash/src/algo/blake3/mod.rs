//! BLAKE3, from the official `blake3` crate (its own SIMD dispatch, SSE2 to AVX-512), with one
//! long message spread over parhash's threads: what `b3sum` computes.
//!
//! How the threads share a message: BLAKE3 is a tree over 1 KiB chunks in which every left
//! subtree is a power of two chunks. The input is cut into pieces of [`PIECE`] bytes (a power
//! of two chunks), so each whole piece is a complete subtree; the pieces of one `update` are
//! hashed side by side on the library's pool (`threads::for_each_mut`, the calling thread
//! included) with the crate's `hazmat` API (a subtree at an offset), and their chaining values
//! are merged as the tree says. The last piece is kept open until more input arrives, so only
//! `finalize` decides which node is the root. The digest never depends on the thread count.
//!
//! BLAKE3's three modes ([`Blake3Mode`]) share all of this: the keyed hash (the key's words
//! as the chaining value's start, the KEYED_HASH flag) and key derivation (the context string
//! hashed once with DERIVE_KEY_CONTEXT, its hash then the key of DERIVE_KEY_MATERIAL) differ
//! from the plain hash only in the key words and flags of every node, which the crate's
//! `Hasher` constructors and `hazmat::Mode` carry into pieces and merges alike.
//!
//! A message of at most one block (64 bytes) takes `one_block`, through the one-shot
//! [`crate::hash`] or through [`Blake3`], which holds such a message until more arrives: one
//! compression written for that case, faster than the crate's call where the CPU has AVX-512,
//! and the crate's one-shot elsewhere.
//!
//! Why not the crate's own `update_rayon`: its joins run on rayon's global pool (or, through
//! `install`, on a pool while the calling thread waits), next to the library's pool of cores - 1
//! helpers plus the caller: either more threads than cores or one fewer than the cores.
// Unsafe code only in the one-block and lane kernels.
#![deny(unsafe_code)]

// The lane kernel's dispatch enters its AVX2 and AVX-512 functions.
#[allow(unsafe_code)]
pub(crate) mod lanes;
// Its rounds on AVX-512, in inline assembly.
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod lanes_avx512;
pub(crate) mod one_block;
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod one_block_avx512;
pub(crate) mod parts;
mod spec;
pub(crate) mod subtree;

use ::blake3::hazmat::{
    hash_derive_key_context, merge_subtrees_non_root, merge_subtrees_root_xof, ChainingValue,
    ContextKey, HasherExt, Mode,
};
use digest::consts::U32;
use digest::{
    ExtendableOutput, ExtendableOutputReset, FixedOutput, FixedOutputReset, HashMarker, Output,
    OutputSizeUser, Reset, Update, XofReader,
};

use crate::threads::{for_each_mut, Threads};

/// Bytes per piece, the unit of work of one thread: 1 MiB (1024 chunks, a power of two), about
/// 0.2 ms of hashing, so a few pieces already keep two cores busy and the merges (one per
/// piece) cost nothing measurable.
pub const PIECE: usize = 1 << 20;

/// The size of one BLAKE3 chunk, the leaf of the tree.
const CHUNK: usize = ::blake3::CHUNK_LEN;

/// The length of a BLAKE3 key (`b3sum --keyed` reads exactly this many bytes).
pub const KEY_LEN: usize = ::blake3::KEY_LEN;

/// Which of BLAKE3's three functions a [`Blake3`] computes (the BLAKE3 paper, section 2.3;
/// `b3sum`'s default, `--keyed` and `--derive-key`).
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub enum Blake3Mode {
    /// The plain hash.
    #[default]
    Hash,
    /// The keyed hash (a MAC or PRF): the key's words replace the IV, with the KEYED_HASH flag.
    Keyed([u8; KEY_LEN]),
    /// Key derivation (the key material is the message): the hash of the context string
    /// (DERIVE_KEY_CONTEXT), made by [`Blake3Mode::derive_key`], as the key of
    /// DERIVE_KEY_MATERIAL.
    DeriveKey(ContextKey),
}

impl Blake3Mode {
    /// Key derivation for `context`, a hardcoded, globally unique, application-specific string
    /// (BLAKE3's requirement), hashed here once.
    pub fn derive_key(context: &str) -> Blake3Mode {
        Blake3Mode::DeriveKey(hash_derive_key_context(context))
    }

    /// A fresh crate hasher in this mode (a piece or the whole message).
    fn hasher(&self) -> ::blake3::Hasher {
        match self {
            Blake3Mode::Hash => ::blake3::Hasher::new(),
            Blake3Mode::Keyed(key) => ::blake3::Hasher::new_keyed(key),
            Blake3Mode::DeriveKey(context_key) => {
                ::blake3::Hasher::new_from_context_key(context_key)
            }
        }
    }

    /// The mode the crate's subtree merges take.
    fn merge_mode(&self) -> Mode<'_> {
        match self {
            Blake3Mode::Hash => Mode::Hash,
            Blake3Mode::Keyed(key) => Mode::KeyedHash(key),
            Blake3Mode::DeriveKey(context_key) => Mode::DeriveKeyMaterial(context_key),
        }
    }
}

/// Keys stay out of logs and panic messages.
impl std::fmt::Debug for Blake3Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Blake3Mode::Hash => "Hash",
            Blake3Mode::Keyed(_) => "Keyed(..)",
            Blake3Mode::DeriveKey(_) => "DeriveKey(..)",
        })
    }
}

/// BLAKE3 with 32-byte digests (`b3sum`'s default), on all cores for long messages. Other
/// lengths (BLAKE3 is an XOF): [`crate::Hasher::builder`] with `digest_size`.
#[derive(Clone)]
pub struct Blake3 {
    threads: Threads,
    /// Plain, keyed or key derivation.
    mode: Blake3Mode,
    /// Bytes per piece: [`PIECE`] (a power of two chunks; tests use smaller ones).
    piece: usize,
    /// Chaining values of the whole pieces so far, merged as far as complete subtrees go:
    /// one entry per set bit of `pieces`, the largest subtree first.
    stack: Vec<ChainingValue>,
    /// Whole pieces hashed into `stack`.
    pieces: u64,
    /// The open piece, at offset `pieces * piece`: at most `piece` bytes.
    tail: ::blake3::Hasher,
    /// The message while it is at most one block ([`Blake3::held`]): nothing reaches `tail`
    /// until more arrives, so a plain hash of one block finalizes in one compression
    /// ([`one_block`]) instead of the crate's chunk state and output node (0.77x the crate's
    /// reused hasher at 64 bytes without it).
    short: one_block::Held,
}

impl Default for Blake3 {
    fn default() -> Self {
        Blake3::with_threads(Threads::ALL)
    }
}

impl std::fmt::Debug for Blake3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Blake3 {{ threads: {:?}, mode: {:?}, ... }}",
            self.threads, self.mode
        )
    }
}

impl Blake3 {
    /// A hasher that spreads long messages over at most `threads` threads.
    pub fn with_threads(threads: impl Into<Threads>) -> Self {
        Blake3::with_mode(Blake3Mode::Hash, threads)
    }

    /// BLAKE3 in `mode` (keyed hashing, key derivation), on at most `threads` threads.
    ///
    /// ```
    /// use parhash::digest::Digest;
    /// use parhash::{Blake3, Blake3Mode};
    /// let mut mac = Blake3::with_mode(Blake3Mode::Keyed([7; 32]), 2);
    /// mac.update(b"message");
    /// assert_eq!(mac.finalize().len(), 32);
    /// ```
    pub fn with_mode(mode: Blake3Mode, threads: impl Into<Threads>) -> Self {
        Blake3::with_pieces(threads.into(), PIECE, mode)
    }

    /// The mode this hasher computes.
    pub fn mode(&self) -> Blake3Mode {
        self.mode
    }

    fn with_pieces(threads: Threads, piece: usize, mode: Blake3Mode) -> Self {
        assert!(piece.is_power_of_two() && piece >= CHUNK);
        Blake3 {
            threads,
            mode,
            piece,
            stack: Vec::new(),
            pieces: 0,
            tail: mode.hasher(),
            short: one_block::Held::empty(),
        }
    }

    /// The whole message, where it is still held in `short` (at most one block; nothing has
    /// reached the crate's hasher).
    fn held(&self) -> Option<&[u8]> {
        (self.pieces == 0 && self.tail.count() == 0).then(|| self.short.bytes())
    }

    /// Feeds more data: held while the message fits one block, else to the pieces.
    fn absorb(&mut self, data: &[u8]) {
        if self.held().is_some() {
            if self.short.append(data) {
                return;
            }
            // More than one block: what was held goes first.
            let short = self.short;
            self.short.clear();
            self.absorb_pieces(short.bytes());
        }
        self.absorb_pieces(data);
    }

    /// Feeds more data to the open piece, closing pieces as they fill.
    fn absorb_pieces(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            let open = self.tail.count() as usize;
            if open == self.piece {
                // More input follows, so the full piece is not the root: close it.
                let cv = self.tail.finalize_non_root();
                self.push_piece(cv);
                self.open_piece();
            } else if open > 0 || data.len() <= self.piece {
                let take = (self.piece - open).min(data.len());
                self.tail.update(&data[..take]);
                data = &data[take..];
            } else {
                // At a piece boundary with more than a piece to go: every whole piece before
                // the last byte's, side by side.
                let whole = (data.len() - 1) / self.piece;
                let (bulk, rest) = data.split_at(whole * self.piece);
                self.hash_pieces(bulk);
                data = rest;
            }
        }
    }

    /// Hashes whole pieces (at a piece boundary) on the threads and pushes their chaining
    /// values in order.
    fn hash_pieces(&mut self, bulk: &[u8]) {
        let first_offset = self.pieces * self.piece as u64;
        let mut jobs: Vec<(u64, &[u8], ChainingValue)> = bulk
            .chunks(self.piece)
            .enumerate()
            .map(|(i, bytes)| (first_offset + (i * self.piece) as u64, bytes, [0; 32]))
            .collect();
        let mode = self.mode;
        for_each_mut(&mut jobs, self.threads, |(offset, bytes, cv)| {
            let mut subtree = mode.hasher();
            subtree.set_input_offset(*offset);
            subtree.update(bytes);
            *cv = subtree.finalize_non_root();
        });
        for (_, _, cv) in jobs {
            self.push_piece(cv);
        }
        self.open_piece();
    }

    /// Adds a closed piece's chaining value and merges every subtree it completes: after
    /// `2^k * m` pieces, the last `2^k` form one (BLAKE3's left subtrees are powers of two).
    /// None of these merges is the root: a piece is closed only when more input follows.
    fn push_piece(&mut self, cv: ChainingValue) {
        self.stack.push(cv);
        self.pieces += 1;
        for _ in 0..self.pieces.trailing_zeros() {
            let right = self.stack.pop().expect("a subtree per set bit");
            let left = self.stack.pop().expect("a subtree per set bit");
            self.stack.push(merge_subtrees_non_root(
                &left,
                &right,
                self.mode.merge_mode(),
            ));
        }
    }

    /// A fresh open piece at the next piece offset.
    fn open_piece(&mut self) {
        self.tail = self.mode.hasher();
        self.tail.set_input_offset(self.pieces * self.piece as u64);
    }

    /// The extendable output, from its first byte.
    fn output_reader(&self) -> ::blake3::OutputReader {
        if let Some(held) = self.held() {
            let mut whole = self.mode.hasher();
            whole.update(held);
            return whole.finalize_xof();
        }
        if self.stack.is_empty() {
            // One piece or less: the open piece is the whole message.
            return self.tail.finalize_xof();
        }
        // The open piece is never empty once a piece was closed.
        root_reader(
            &self.stack,
            self.tail.finalize_non_root(),
            self.mode.merge_mode(),
        )
    }
}

/// The root's output from the stack of complete subtrees (at least one) and the chaining
/// value of the last piece: the root's right subtree is everything after the largest complete
/// subtree, merged from the right.
fn root_reader(
    stack: &[ChainingValue],
    last: ChainingValue,
    mode: Mode<'_>,
) -> ::blake3::OutputReader {
    let (bottom, above) = stack.split_first().expect("at least one complete subtree");
    let mut right = last;
    for left in above.iter().rev() {
        right = merge_subtrees_non_root(left, &right, mode);
    }
    merge_subtrees_root_xof(bottom, &right, mode)
}

/// The chaining value of the piece at `offset` (a multiple of [`PIECE`]) of a message of more
/// than one piece: `bytes` is the whole piece, or the message's last bytes. For callers whose
/// threads hash pieces they read themselves (the file reader); [`output_from_pieces`] joins them.
pub(crate) fn piece_chaining_value(offset: u64, bytes: &[u8]) -> ChainingValue {
    debug_assert!(offset % PIECE as u64 == 0 && bytes.len() <= PIECE);
    let mut subtree = ::blake3::Hasher::new();
    subtree.set_input_offset(offset);
    subtree.update(bytes);
    subtree.finalize_non_root()
}

/// The extendable output of a message of two or more pieces from their chaining values
/// ([`piece_chaining_value`]), in message order: the digest [`Blake3`] gives.
///
/// # Panics
/// If `pieces` has fewer than two values (one piece is the root itself: hash it whole).
pub(crate) fn output_from_pieces(pieces: &[ChainingValue]) -> ::blake3::OutputReader {
    assert!(pieces.len() >= 2, "a message of one piece is its own root");
    let (last, whole) = pieces.split_last().expect("two or more");
    let mut tree = Blake3::with_threads(Threads::ONE);
    for cv in whole {
        tree.push_piece(*cv);
    }
    root_reader(&tree.stack, *last, Mode::Hash)
}

impl Blake3 {
    /// The first `out.len()` bytes of the extendable output.
    #[inline]
    fn finalize_to(&self, out: &mut [u8]) {
        let root_only = out.len() <= ::blake3::OUT_LEN;
        match self.held() {
            // A plain hash of at most one block: one compression.
            Some(held) if root_only && matches!(self.mode, Blake3Mode::Hash) => {
                // Into `out` itself where it is the whole digest (a copy of a run-time length
                // is a `memcpy` call, ~8 % of a 64-byte message).
                match <&mut [u8; ::blake3::OUT_LEN]>::try_from(&mut *out) {
                    Ok(whole) => one_block::hash(held, whole),
                    Err(_) => {
                        let mut digest = [0; ::blake3::OUT_LEN];
                        one_block::hash(held, &mut digest);
                        out.copy_from_slice(&digest[..out.len()]);
                    }
                }
            }
            // One piece or less, and at most the root's chaining value: the crate's
            // `finalize` computes only those 32 bytes (its XOF reader computes 64), the
            // difference at 64 B being ~10 % of the message's time.
            None if root_only && self.stack.is_empty() => {
                out.copy_from_slice(&self.tail.finalize().as_bytes()[..out.len()]);
            }
            _ => self.output_reader().fill(out),
        }
    }

    /// `out.len()` bytes of the extendable output of the message so far, from byte `position`
    /// on (blake3-py's `digest(length, seek=position)`); the hasher goes on taking input.
    ///
    /// ```
    /// use parhash::digest::{ExtendableOutput, Update};
    /// let mut h = parhash::Blake3::default();
    /// h.update(b"abc");
    /// let (mut whole, mut tail) = ([0; 100], [0; 30]);
    /// h.output_at(70, &mut tail);
    /// h.finalize_xof_into(&mut whole);
    /// assert_eq!(whole[70..], tail);
    /// ```
    pub fn output_at(&self, position: u64, out: &mut [u8]) {
        let mut reader = self.output_reader();
        reader.set_position(position);
        reader.fill(out);
    }

    /// Forgets the message, keeping threads, piece size and mode. In place: a fresh `Blake3` is
    /// a ~2 KB value whose moves cost a 64-byte message as much as its hashing.
    #[inline]
    fn start_over(&mut self) {
        if self.pieces == 0 {
            // The crate's `reset` keeps the key and the mode's flags (and is not needed where
            // the message was only held here).
            if self.tail.count() != 0 {
                self.tail.reset();
            }
        } else {
            // The crate's `reset` keeps a `set_input_offset`: an open piece past the first
            // needs a new hasher (a long message pays one move, nothing measurable).
            self.tail = self.mode.hasher();
        }
        self.stack.clear();
        self.pieces = 0;
        self.short.clear();
    }
}

impl HashMarker for Blake3 {}

impl OutputSizeUser for Blake3 {
    type OutputSize = U32;
}

impl Update for Blake3 {
    fn update(&mut self, data: &[u8]) {
        self.absorb(data);
    }
}

impl FixedOutput for Blake3 {
    fn finalize_into(self, out: &mut Output<Self>) {
        self.finalize_to(out);
    }
}

impl FixedOutputReset for Blake3 {
    fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
        self.finalize_to(out);
        self.start_over();
    }
}

impl Reset for Blake3 {
    fn reset(&mut self) {
        self.start_over();
    }
}

/// BLAKE3's extendable output ([`Blake3`]'s [`ExtendableOutput`]): as many bytes as asked,
/// read in as many pieces as wanted (`b3sum --length N` is its first N bytes).
#[derive(Clone)]
pub struct Blake3Reader(::blake3::OutputReader);

impl XofReader for Blake3Reader {
    fn read(&mut self, buffer: &mut [u8]) {
        self.0.fill(buffer);
    }
}

impl std::fmt::Debug for Blake3Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Blake3Reader {{ position: {} }}", self.0.position())
    }
}

/// BLAKE3 is an extendable-output function: besides its 32-byte digest ([`FixedOutput`]),
/// any length, as `digest`'s XOFs give it (also the registry's path to lengths other than 32).
impl ExtendableOutput for Blake3 {
    type Reader = Blake3Reader;

    fn finalize_xof(self) -> Blake3Reader {
        Blake3Reader(self.output_reader())
    }
}

impl ExtendableOutputReset for Blake3 {
    fn finalize_xof_reset(&mut self) -> Blake3Reader {
        let reader = Blake3Reader(self.output_reader());
        self.start_over();
        reader
    }

    /// The registry's path to every BLAKE3 digest: no reader for a digest of at most 32
    /// bytes of a one-piece message.
    fn finalize_xof_reset_into(&mut self, out: &mut [u8]) {
        self.finalize_to(out);
        self.start_over();
    }
}

// The one variant: the `blake3` crate's code; threads are a `Threads` value, not a variant.
super::single_variant!(
    "blake3-crate":
        "the official blake3 crate (its own SIMD dispatch), 1 MiB pieces on threads; one-shots of at most 64 bytes by an AVX-512 kernel where the CPU has one",
    Blake3::with_threads;
    Blake3
);

/// BLAKE3 as an extendable-output function on at most `threads` threads, read for any length
/// by the registry.
pub(crate) fn blake3_xof(threads: Threads) -> Blake3 {
    Blake3::with_threads(threads)
}

/// BLAKE3 in `mode` on at most `threads` threads, read for any length by the registry.
pub(crate) fn blake3_mode_xof(mode: Blake3Mode, threads: Threads) -> Blake3 {
    Blake3::with_mode(mode, threads)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(len: usize) -> Vec<u8> {
        // The official test vectors' input: bytes 0, 1, ..., 250, 0, 1, ...
        (0..len).map(|i| (i % 251) as u8).collect()
    }

    fn reference(data: &[u8], out_len: usize) -> Vec<u8> {
        let mut out = vec![0; out_len];
        ::blake3::Hasher::new()
            .update(data)
            .finalize_xof()
            .fill(&mut out);
        out
    }

    #[test]
    fn pieces_and_merges_give_the_crates_digest() {
        // Small pieces so that a few KiB make deep trees; every length around piece and
        // subtree boundaries, fed whole and in awkward steps, on one and on three threads.
        for piece in [CHUNK, 2 * CHUNK, 4 * CHUNK] {
            for len in [
                0, 1, 1023, 1024, 1025, 2048, 2049, 3072, 5000, 8192, 8193, 17_000, 40_000,
            ] {
                let data = input(len);
                let expected = reference(&data, 64);
                for step in [usize::MAX, 1000, 1024, 3333] {
                    for threads in [Threads::ONE, Threads::new(3)] {
                        let mut h = Blake3::with_pieces(threads, piece, Blake3Mode::Hash);
                        for part in data.chunks(step.min(len.max(1))) {
                            h.absorb(part);
                        }
                        let mut out = [0; 64];
                        h.finalize_to(&mut out);
                        assert_eq!(
                            out.to_vec(),
                            expected,
                            "piece {piece}, len {len}, step {step}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn keyed_and_derive_key_modes_give_the_crates_digests_over_pieces_and_merges() {
        let key = [0x5a; KEY_LEN];
        let context = "parhash 2026-11-27 pieces test";
        for len in [0, 1, 1024, 1025, 4096, 5000, 17_000] {
            let data = input(len);
            let mut keyed = [0; 80];
            ::blake3::Hasher::new_keyed(&key)
                .update(&data)
                .finalize_xof()
                .fill(&mut keyed);
            let mut derived = [0; 80];
            ::blake3::Hasher::new_derive_key(context)
                .update(&data)
                .finalize_xof()
                .fill(&mut derived);
            let cases = [
                (Blake3Mode::Keyed(key), keyed),
                (Blake3Mode::derive_key(context), derived),
            ];
            for (mode, expected) in cases {
                for piece in [CHUNK, 2 * CHUNK] {
                    for threads in [Threads::ONE, Threads::new(3)] {
                        let mut h = Blake3::with_pieces(threads, piece, mode);
                        for part in data.chunks(1500) {
                            h.absorb(part);
                        }
                        let mut out = [0; 80];
                        h.finalize_to(&mut out);
                        assert_eq!(out, expected, "{mode:?}, len {len}, piece {piece}");
                        // A reset keeps the mode.
                        h.start_over();
                        h.absorb(&data);
                        h.finalize_to(&mut out);
                        assert_eq!(out, expected, "{mode:?} after reset, len {len}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_message_held_in_one_block_gives_the_crates_digest_in_every_mode_and_length() {
        // Around the one-block buffer: every length to past two blocks, fed whole, a byte at a
        // time and in uneven steps, read for 16, 32 and 100 bytes and from an offset, in every
        // mode, on a hasher reused after each message.
        let key = [0xa7; KEY_LEN];
        let context = "parhash 2026-11-28 held block test";
        let modes = [
            Blake3Mode::Hash,
            Blake3Mode::Keyed(key),
            Blake3Mode::derive_key(context),
        ];
        for mode in modes {
            let mut h = Blake3::with_mode(mode, Threads::ONE);
            for len in 0..=130 {
                let data = input(len);
                let mut crate_hasher = mode.hasher();
                crate_hasher.update(&data);
                let mut expected = [0; 100];
                crate_hasher.finalize_xof().fill(&mut expected);
                for step in [usize::MAX, 1, 7, 64] {
                    for out_len in [16, 32, 100] {
                        for part in data.chunks(step.min(len.max(1))) {
                            h.absorb(part);
                        }
                        let mut at = [0; 30];
                        h.output_at(70, &mut at);
                        assert_eq!(at, expected[70..], "{mode:?}, len {len}, from 70");
                        let mut out = vec![0; out_len];
                        h.finalize_to(&mut out);
                        h.start_over();
                        assert_eq!(
                            out,
                            expected[..out_len],
                            "{mode:?}, len {len}, step {step}, {out_len} bytes"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn pieces_hashed_apart_join_into_the_crates_digest() {
        for len in [
            PIECE + 1,
            2 * PIECE,
            3 * PIECE - 7,
            4 * PIECE,
            5 * PIECE + 12_345,
        ] {
            let data = input(len);
            let cvs: Vec<_> = data
                .chunks(PIECE)
                .enumerate()
                .map(|(i, piece)| piece_chaining_value((i * PIECE) as u64, piece))
                .collect();
            let mut out = [0; 100];
            output_from_pieces(&cvs).fill(&mut out);
            assert_eq!(out.to_vec(), reference(&data, 100), "len {len}");
        }
    }

    /// A `len`-byte message, the crate's first `out_len` bytes of output for it, and a hasher on
    /// two threads that has taken it.
    fn fed_on_two_threads(len: usize, out_len: usize) -> (Vec<u8>, Vec<u8>, Blake3) {
        let data = input(len);
        let expected = reference(&data, out_len);
        let mut h = Blake3::with_threads(Threads::new(2));
        Update::update(&mut h, &data);
        (data, expected, h)
    }

    #[test]
    fn long_messages_on_threads_and_reset() {
        let (data, expected, mut h) = fed_on_two_threads(5 * PIECE + 12_345, 32);
        assert_eq!(h.finalize_fixed_reset().to_vec(), expected);
        // After a reset the same message gives the same digest, fed in pieces.
        for part in data.chunks(PIECE / 3 + 1) {
            Update::update(&mut h, part);
        }
        assert_eq!(h.finalize_fixed().to_vec(), expected);
    }

    /// The in-place reset and the root-only finalize (one piece, 32 bytes or fewer) against
    /// the crate in each mode, after messages of every shape: empty, inside one piece, several
    /// pieces (the open piece then has an input offset the crate's own `reset` would keep).
    #[test]
    fn reset_in_place_after_any_message_and_every_output_length() {
        let piece = 2 * CHUNK;
        let modes = [
            Blake3Mode::Hash,
            Blake3Mode::Keyed([7; KEY_LEN]),
            Blake3Mode::derive_key("parhash 2026-11-27 reset test"),
        ];
        for mode in modes {
            let crate_digest = |data: &[u8], out_len: usize| {
                let mut out = vec![0; out_len];
                mode.hasher().update(data).finalize_xof().fill(&mut out);
                out
            };
            let mut h = Blake3::with_pieces(Threads::ONE, piece, mode);
            for len in [0, 1, 64, CHUNK, piece, piece + 1, 3 * piece + 5, 1, 0] {
                let data = input(len);
                for out_len in [1, 31, 32, 33, 64, 200] {
                    Update::update(&mut h, &data);
                    let mut out = vec![0; out_len];
                    h.finalize_xof_reset_into(&mut out);
                    assert_eq!(
                        out,
                        crate_digest(&data, out_len),
                        "{mode:?} {len} {out_len}"
                    );
                }
                Update::update(&mut h, &data);
                assert_eq!(h.finalize_fixed_reset().to_vec(), crate_digest(&data, 32));
            }
        }
    }

    #[test]
    fn the_digest_crates_xof_reader_reads_the_output_in_pieces() {
        let (data, expected, mut h) = fed_on_two_threads(2 * PIECE + 999, 3000);
        let mut reader = h.finalize_xof_reset();
        let mut got = vec![0; expected.len()];
        for piece in got.chunks_mut(71) {
            reader.read(piece);
        }
        assert_eq!(got, expected);
        // Reset: the same message again, read whole through the consuming form.
        Update::update(&mut h, &data);
        let mut whole = vec![0; expected.len()];
        h.finalize_xof_into(&mut whole);
        assert_eq!(whole, expected);
    }

    #[test]
    fn any_length_is_a_prefix_of_the_extendable_output() {
        // Past one 64-byte output block and past the old 128-byte cap, on several threads.
        let data = input(3 * PIECE + 1);
        let long = reference(&data, 5000);
        for len in [1, 16, 32, 33, 64, 65, 100, 128, 129, 1000, 5000] {
            let mut h = blake3_xof(Threads::new(2));
            Update::update(&mut h, &data);
            let mut out = vec![0; len];
            h.finalize_xof_reset_into(&mut out);
            assert_eq!(out, long[..len], "{len} bytes");
        }
    }
}
