//! SHA-256 on the SHA extensions, several independent streams interleaved.
//!
//! One stream of `sha256rnds2` is bound by the instruction's latency: each pair of rounds needs
//! the previous pair's result, so a single message (OpenSSL's SHA-256, parhash's `sha-ni`
//! variant) leaves the SHA unit idle half the time. Independent compressions have no such
//! chain: issuing the same round group of [`STREAMS`] of them back to back keeps it busy.
//! Measured on the development machine (Zen 4, one core, 64-byte blocks): one stream 1.8 GB/s,
//! two or more 3.4-3.5 GB/s, where the unit's throughput (one `sha256rnds2` per two cycles)
//! caps it. Four streams leave room for CPUs whose SHA unit has a longer latency relative to
//! its throughput, without spilling more of the 16 xmm registers the SHA instructions can use.
//!
//! This is the multi-buffer idea of Intel's ISA-L applied to the SHA extensions; it serves the
//! batch engine (`ShaNiLanes`: [`STREAMS`] messages, several blocks each) and PARSHA-256's rounds
//! ([`compress_many`]: any number of independent (state, block) pairs).

use core::arch::x86_64::*;

use super::sha_ni::{
    load_native, load_words, load_words_half, pack, pack_registers, rounds4, schedule, unpack,
    Packed,
};
use crate::algo::sha2::consts::{IV224, IV256, K256};
use crate::lanes::{md_pad, Lanes, MAX_BLOCK};
use crate::platform::ShaNi;

/// Streams interleaved per call.
pub const STREAMS: usize = 4;

/// One block into each of `N` packed states; `blocks[s]` is stream s's block.
///
/// The loops over streams sit inside each round group, so the compiler emits each group's
/// `sha256rnds2` for all streams back to back (the point of the kernel).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
#[inline]
fn block_rounds<const N: usize>(state: &mut [Packed; N], blocks: [&[u8; 64]; N]) {
    let mut w = [[_mm_setzero_si128(); 4]; N];
    for s in 0..N {
        w[s] = load_words(blocks[s]);
    }
    word_rounds(state, w);
}

/// [`block_rounds`] on blocks already loaded as words (four registers per stream).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
#[inline]
fn word_rounds<const N: usize>(state: &mut [Packed; N], mut w: [[__m128i; 4]; N]) {
    let start = *state;
    macro_rules! groups {
        ($($g:literal)*) => {$(
            // SAFETY: K256 has 64 words; 4 * $g + 3 < 64.
            let k = unsafe { _mm_loadu_si128(K256.as_ptr().add(4 * $g).cast()) };
            for s in 0..N {
                let wk = _mm_add_epi32(schedule(&mut w[s], $g), k);
                rounds4(&mut state[s], wk);
            }
        )*};
    }
    groups!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    for s in 0..N {
        state[s][0] = _mm_add_epi32(state[s][0], start[s][0]);
        state[s][1] = _mm_add_epi32(state[s][1], start[s][1]);
    }
}

/// `N` independent (state, block) pairs (exactly `N` of each).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn pairs<const N: usize>(states: &mut [[u32; 8]], blocks: &[[u8; 64]]) {
    assert!(states.len() == N && blocks.len() == N);
    let mut packed = [[_mm_setzero_si128(); 2]; N];
    for (p, st) in packed.iter_mut().zip(states.iter()) {
        *p = pack(st);
    }
    let mut refs = [&blocks[0]; N];
    for (r, b) in refs.iter_mut().zip(blocks) {
        *r = b;
    }
    block_rounds(&mut packed, refs);
    for (p, st) in packed.iter().zip(states.iter_mut()) {
        unpack(*p, st);
    }
}

/// Compresses `blocks[i]` into `states[i]` for every `i`, [`STREAMS`] at a time (the rest in
/// one narrower call). No padding is added.
///
/// # Panics
/// If `states` and `blocks` have different lengths.
pub fn compress_many(token: ShaNi, states: &mut [[u32; 8]], blocks: &[[u8; 64]]) {
    let _ = token;
    assert_eq!(states.len(), blocks.len(), "one block per state");
    let mut s = states.chunks_exact_mut(STREAMS);
    let mut b = blocks.chunks_exact(STREAMS);
    for (s, b) in (&mut s).zip(&mut b) {
        // SAFETY: the `ShaNi` token proves SHA, SSSE3 and SSE4.1.
        unsafe { pairs::<STREAMS>(s, b) };
    }
    let (s, b) = (s.into_remainder(), b.remainder());
    // SAFETY: as above, for every arm.
    unsafe {
        match s.len() {
            0 => {}
            1 => pairs::<1>(s, b),
            2 => pairs::<2>(s, b),
            3 => pairs::<3>(s, b),
            4 => pairs::<4>(s, b),
            5 => pairs::<5>(s, b),
            6 => pairs::<6>(s, b),
            _ => pairs::<7>(s, b),
        }
    }
}

/// Runs `$call` with `$n` = [`STREAMS`] for each whole group `$k` of `$count` compressions,
/// then once with `$n` = the rest (the tree-node entry points below).
macro_rules! in_groups {
    ($count:expr, |$n:ident, $k:ident| $call:expr) => {{
        let count = $count;
        let whole = count / STREAMS;
        for $k in 0..whole {
            const $n: usize = STREAMS;
            $call;
        }
        let $k = whole;
        match count % STREAMS {
            0 => {}
            1 => {
                const $n: usize = 1;
                $call
            }
            2 => {
                const $n: usize = 2;
                $call
            }
            _ => {
                const $n: usize = 3;
                $call
            }
        }
    }};
}

/// Compresses every parent of one tree level: `out[i]` = the compression of `children[2i]`
/// (the chaining value) with the block `children[2i + 1] || message[32i .. 32i + 32]`
/// (PARSHA-256's internal processors). The children are chaining values as words, so they go
/// into the registers as they lie, with no byte swapping; only the message is read big-endian.
///
/// # Panics
/// Unless `children` has two and `message` 32 bytes per output.
pub fn compress_parents(token: ShaNi, children: &[[u32; 8]], message: &[u8], out: &mut [[u32; 8]]) {
    let _ = token;
    assert!(children.len() == 2 * out.len() && message.len() == 32 * out.len());
    in_groups!(out.len(), |N, k| {
        let first = k * STREAMS;
        // SAFETY: the `ShaNi` token proves SHA, SSSE3 and SSE4.1.
        unsafe {
            parents::<N>(
                &children[2 * first..2 * (first + N)],
                &message[32 * first..32 * (first + N)],
                &mut out[first..first + N],
            )
        }
    });
}

/// [`compress_parents`] on exactly `N` parents.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn parents<const N: usize>(children: &[[u32; 8]], message: &[u8], out: &mut [[u32; 8]]) {
    assert!(children.len() == 2 * N && message.len() == 32 * N && out.len() == N);
    let mut packed = [[_mm_setzero_si128(); 2]; N];
    let mut w = [[_mm_setzero_si128(); 4]; N];
    for s in 0..N {
        packed[s] = pack(&children[2 * s]);
        let [w0, w1] = load_native(&children[2 * s + 1]);
        let [w2, w3] = load_words_half(message[32 * s..32 * s + 32].try_into().expect("32"));
        w[s] = [w0, w1, w2, w3];
    }
    word_rounds(&mut packed, w);
    for s in 0..N {
        unpack(packed[s], &mut out[s]);
    }
}

/// Compresses consecutive leaf-type inputs of `piece_len` bytes each (64, 80 or 96):
/// `out[i]` = the compression of piece i's first 32 bytes (big-endian words: the chaining
/// value) with the block of its other bytes followed by the first `96 - piece_len` bytes of
/// `iv` (as big-endian bytes, i.e. its first words). PARSHA-256's leaves, with l = 256, 128
/// or 0. The pieces are read in place; nothing is copied into a block first.
///
/// # Panics
/// Unless `pieces` holds `out.len()` pieces and `piece_len` is 64, 80 or 96.
pub fn compress_leaves(
    token: ShaNi,
    pieces: &[u8],
    piece_len: usize,
    iv: &[u32; 8],
    out: &mut [[u32; 8]],
) {
    let _ = token;
    assert!(matches!(piece_len, 64 | 80 | 96) && pieces.len() == piece_len * out.len());
    in_groups!(out.len(), |N, k| {
        let first = k * STREAMS;
        // SAFETY: the `ShaNi` token proves SHA, SSSE3 and SSE4.1.
        unsafe {
            leaves::<N>(
                &pieces[piece_len * first..piece_len * (first + N)],
                piece_len,
                iv,
                &mut out[first..first + N],
            )
        }
    });
}

/// [`compress_leaves`] on exactly `N` pieces.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn leaves<const N: usize>(pieces: &[u8], piece_len: usize, iv: &[u32; 8], out: &mut [[u32; 8]]) {
    assert!(pieces.len() == piece_len * N && out.len() == N);
    // The block's four quarters: the piece's, then the IV's words.
    let message_quarters = (piece_len - 32) / 16;
    let iv = load_native(iv);
    let mut packed = [[_mm_setzero_si128(); 2]; N];
    let mut w = [[_mm_setzero_si128(); 4]; N];
    for s in 0..N {
        let piece = &pieces[piece_len * s..piece_len * (s + 1)];
        packed[s] = pack_registers(load_words_half(piece[..32].try_into().expect("32")));
        let [w0, w1] = load_words_half(piece[32..64].try_into().expect("32"));
        let [w2, w3] = match message_quarters {
            2 => iv,
            3 => [
                load_words_half(piece[48..80].try_into().expect("32"))[1],
                iv[0],
            ],
            _ => load_words_half(piece[64..96].try_into().expect("32")),
        };
        w[s] = [w0, w1, w2, w3];
    }
    word_rounds(&mut packed, w);
    for s in 0..N {
        unpack(packed[s], &mut out[s]);
    }
}

/// `n` consecutive blocks of each of [`STREAMS`] messages (`blocks[s]` holds at least
/// `n * 64` bytes), the states kept packed in between.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
fn streams(states: &mut [[u32; 8]; STREAMS], blocks: &[&[u8]], n: usize) {
    let mut packed = [[_mm_setzero_si128(); 2]; STREAMS];
    for (p, st) in packed.iter_mut().zip(states.iter()) {
        *p = pack(st);
    }
    for i in 0..n {
        let mut refs = [&[0u8; 64]; STREAMS];
        for (r, b) in refs.iter_mut().zip(blocks) {
            *r = b[64 * i..64 * i + 64].try_into().expect("64 bytes");
        }
        block_rounds(&mut packed, refs);
    }
    for (p, st) in packed.iter().zip(states.iter_mut()) {
        unpack(*p, st);
    }
}

/// SHA-224/SHA-256 lanes for `batch/` on the SHA extensions: [`STREAMS`] messages.
pub(crate) struct ShaNiLanes {
    token: ShaNi,
    iv: [u32; 8],
    digest_len: usize,
    states: [[u32; 8]; STREAMS],
}

impl ShaNiLanes {
    /// SHA-224 streams.
    pub(crate) fn sha224(token: ShaNi) -> Self {
        Self::with_iv(token, IV224, 28)
    }

    /// SHA-256 streams.
    pub(crate) fn sha256(token: ShaNi) -> Self {
        Self::with_iv(token, IV256, 32)
    }

    fn with_iv(token: ShaNi, iv: [u32; 8], digest_len: usize) -> Self {
        ShaNiLanes {
            token,
            iv,
            digest_len,
            states: [iv; STREAMS],
        }
    }
}

impl Lanes for ShaNiLanes {
    fn block_len(&self) -> usize {
        64
    }
    fn lanes(&self) -> usize {
        STREAMS
    }
    fn digest_len(&self) -> usize {
        self.digest_len
    }
    fn word_len(&self) -> usize {
        4
    }
    fn reset(&mut self, lane: usize) {
        self.states[lane] = self.iv;
    }
    fn compress(&mut self, blocks: &[&[u8]]) {
        self.compress_multi(blocks, 1);
    }
    fn compress_multi(&mut self, blocks: &[&[u8]], n: usize) {
        assert_eq!(blocks.len(), STREAMS);
        assert!(blocks.iter().all(|b| b.len() >= n * 64));
        let _ = self.token;
        // SAFETY: the token proves SHA, SSSE3 and SSE4.1.
        unsafe { streams(&mut self.states, blocks, n) };
    }
    fn compress_interleaved(&mut self, data: &[u8]) {
        // The SHA instructions take one message's words per register: undo the interleaving
        // (this kernel has no use for that layout; it is accepted for completeness).
        assert!(data.len() >= STREAMS * 64);
        let mut blocks = [[0u8; 64]; STREAMS];
        for (lane, block) in blocks.iter_mut().enumerate() {
            for (w, word) in block.chunks_exact_mut(4).enumerate() {
                let at = 4 * (w * STREAMS + lane);
                word.copy_from_slice(&data[at..at + 4]);
            }
        }
        let refs: [&[u8]; STREAMS] = core::array::from_fn(|l| &blocks[l][..]);
        self.compress_multi(&refs, 1);
    }
    fn pad(&self, total_len: u64, tail: &[u8], out: &mut [u8; 2 * MAX_BLOCK]) -> usize {
        md_pad(64, 8, true, total_len, tail, out)
    }
    fn digest(&self, lane: usize, out: &mut [u8]) {
        let mut full = [0u8; 32];
        for (o, w) in full.chunks_exact_mut(4).zip(self.states[lane]) {
            o.copy_from_slice(&w.to_be_bytes());
        }
        out[..self.digest_len].copy_from_slice(&full[..self.digest_len]);
    }
}
