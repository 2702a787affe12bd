//! SHA-256's compression function on 8 (portable, AVX2) or 16 (AVX-512) lanes, in two forms
//! that share one round function:
//!
//! - [`compress_lanes_with`]: independent (state, block) pairs; lane `i` compresses `blocks[i]`
//!   into `states[i]`. Every lane's state comes from the caller: PARSHA-256's processors start
//!   each compression from a chaining value that is message data or a child's output, never
//!   from a running state. It takes any number of pairs: whole vector groups, then the rest in
//!   one padded group.
//! - `Sha256Lanes`: the [`crate::lanes::Lanes`] kernel of `batch/` (SHA-224 and SHA-256), states
//!   kept inside across blocks.

use crate::algo::sha2::consts::{IV224, IV256, K256};
use crate::lanes::{md_algorithm, Kernel, Width};
#[cfg(target_arch = "x86_64")]
use crate::platform::{Avx2, Avx512};
#[cfg(target_arch = "x86_64")]
use crate::vector::{Avx2x8, Avx512x16};
use crate::vector::{Portable, U32x};

/// SHA-256's initial hash value (FIPS 180-4 5.3.3).
pub const IV: [u32; 8] = IV256;

/// `x >> n` from a rotation and a mask (the lane vectors have rotations, not shifts).
#[inline(always)]
fn shr<V: U32x, const L: i32>(x: V) -> V {
    x.rotl::<L>().and(V::splat(x.isa(), u32::MAX >> (32 - L)))
}

// 64 rounds and the feed-forward on every lane. σ0 = rotr 7 ^ rotr 18 ^ shr 3,
// σ1 = rotr 17 ^ rotr 19 ^ shr 10; Σ0 = rotr 2, 13, 22; Σ1 = rotr 6, 11, 25.
super::super::rounds::lane_rounds!(
    U32x, K256,
    |x| x.rotl::<25>().xor(x.rotl::<14>()).xor(shr::<V, 29>(x)),
    |y| y.rotl::<15>().xor(y.rotl::<13>()).xor(shr::<V, 22>(y)),
    big_sigma0_rotl (30 19 10), big_sigma1_rotl (26 21 7)
);

/// What the lanes compress: each compression's 64 input bytes, and how its lane state and
/// message words come from them (one implementation per tree-node form, monomorphised into
/// the one driver [`lane_groups`]).
trait LaneInputs {
    /// Compression `i`'s 64 bytes, as the lanes transpose them.
    fn row(&self, i: usize) -> &[u8];
    /// A group's lane states and message words from its transposed rows; `held` holds the
    /// group's values of the output slice (chaining values where the form has them).
    fn start<V: U32x>(&self, isa: V::Isa, words: [V; 16], held: &[[u32; 8]]) -> ([V; 8], [V; 16]);
}

/// `blocks[i]` compressed into the chaining value held in `states[i]`.
struct Blocks<'a>(&'a [[u8; 64]]);

impl LaneInputs for Blocks<'_> {
    #[inline(always)]
    fn row(&self, i: usize) -> &[u8] {
        &self.0[i]
    }
    #[inline(always)]
    fn start<V: U32x>(&self, isa: V::Isa, words: [V; 16], held: &[[u32; 8]]) -> ([V; 8], [V; 16]) {
        (V::load_states(isa, held), words)
    }
}

/// Leaf-type compressions of 64-byte pieces (PARSHA-256 with a 256-bit IV): piece i's first 32
/// bytes are the chaining value, its last 32 and the IV's 32 the block. The pieces are
/// transposed as they lie and the IV's words broadcast: no block is built (building them was a
/// fifth of a hash's time).
struct Leaves64<'a> {
    pieces: &'a [u8],
    iv: &'a [u32; 8],
}

impl LaneInputs for Leaves64<'_> {
    #[inline(always)]
    fn row(&self, i: usize) -> &[u8] {
        &self.pieces[64 * i..64 * i + 64]
    }
    #[inline(always)]
    fn start<V: U32x>(&self, isa: V::Isa, words: [V; 16], _: &[[u32; 8]]) -> ([V; 8], [V; 16]) {
        let mut state = [V::splat(isa, 0); 8];
        state.copy_from_slice(&words[..8]);
        let mut block = [V::splat(isa, 0); 16];
        block[..8].copy_from_slice(&words[8..]);
        for (word, &x) in block[8..].iter_mut().zip(self.iv) {
            *word = V::splat(isa, x);
        }
        (state, block)
    }
}

/// Every compression of `inputs`, `V::LANES` at a time, into `states`; the last group padded
/// with zero rows and scratch lanes.
#[inline(always)]
fn lane_groups<V: U32x, I: LaneInputs>(isa: V::Isa, inputs: &I, states: &mut [[u32; 8]]) {
    let lanes = V::LANES;
    let padding = [0u8; 64];
    let mut scratch = [[0u32; 8]; 16];
    for (g, group) in states.chunks_mut(lanes).enumerate() {
        let n = group.len();
        // States and message words by in-register transposes: built lane by lane, they became
        // AVX-512 gathers, about a fifth of a PARSHA-256 hash on Cascade Lake.
        let mut rows: [&[u8]; 16] = [&padding; 16];
        for (l, row) in rows.iter_mut().take(n).enumerate() {
            *row = inputs.row(g * lanes + l);
        }
        let mut words = [V::splat(isa, 0); 16];
        V::transpose_blocks(isa, &rows[..lanes], 0, true, &mut words);
        let held: &mut [[u32; 8]] = if n == lanes {
            &mut *group
        } else {
            scratch[..n].copy_from_slice(group);
            &mut scratch[..lanes]
        };
        let (mut state, block) = inputs.start::<V>(isa, words, held);
        rounds(&mut state, &block);
        V::store_states(state, held);
        if n < lanes {
            group.copy_from_slice(&scratch[..n]);
        }
    }
}

#[inline(never)]
fn portable<I: LaneInputs>(inputs: &I, states: &mut [[u32; 8]]) {
    lane_groups::<Portable<u32, 8>, I>((), inputs, states);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
fn avx2<I: LaneInputs>(token: Avx2, inputs: &I, states: &mut [[u32; 8]]) {
    crate::platform::align_frame();
    lane_groups::<Avx2x8, I>(token, inputs, states);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
#[inline(never)]
fn avx512<I: LaneInputs>(token: Avx512, inputs: &I, states: &mut [[u32; 8]]) {
    lane_groups::<Avx512x16, I>(token, inputs, states);
}

/// [`lane_groups`] at `width`: the one dispatch point of the SHA-256 lanes.
fn lanes_with<I: LaneInputs>(width: Width, inputs: &I, states: &mut [[u32; 8]]) {
    match width {
        Width::Portable => portable(inputs, states),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Width::Avx2` holds an `Avx2` token, made only after detecting AVX2.
        Width::Avx2(token) => unsafe { avx2(token, inputs, states) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Width::Avx512` holds an `Avx512` token, made only after detecting AVX-512
        // F/BW/VL/DQ and AVX2.
        Width::Avx512(token) => unsafe { avx512(token, inputs, states) },
        #[cfg(not(target_arch = "x86_64"))]
        _ => unreachable!("SIMD widths exist only on x86_64"),
    }
}

/// Compresses `blocks[i]` into `states[i]` for every `i`, `width.lanes32()` at a time. States
/// are SHA-256 chaining values (H0..H7), blocks are 64 message bytes (big-endian words, as
/// SHA-256 reads them); no padding is added.
///
/// # Panics
/// If `states` and `blocks` have different lengths (a caller bug, not a data error).
pub fn compress_lanes_with(width: Width, states: &mut [[u32; 8]], blocks: &[[u8; 64]]) {
    assert_eq!(states.len(), blocks.len(), "one block per state");
    lanes_with(width, &Blocks(blocks), states);
}

/// Compresses `blocks[i]` into `states[i]` for every `i` with `kernel`: vector lanes, or the
/// SHA extensions on interleaved streams.
///
/// # Panics
/// If `states` and `blocks` have different lengths.
pub fn compress_with(kernel: Kernel, states: &mut [[u32; 8]], blocks: &[[u8; 64]]) {
    match kernel {
        Kernel::Vector(width) => compress_lanes_with(width, states, blocks),
        #[cfg(target_arch = "x86_64")]
        Kernel::ShaNi(token) => super::lanes_sha_ni::compress_many(token, states, blocks),
        #[cfg(not(target_arch = "x86_64"))]
        Kernel::ShaNi(_) => unreachable!("no SHA extensions off x86_64"),
    }
}

/// Compresses every parent of one tree level with `kernel`: `out[i]` = the compression of
/// `children[2i]` (the chaining value) with the block `children[2i + 1]` (as big-endian words)
/// followed by `message[32i .. 32i + 32]`. The SHA-NI streams load the children's words as
/// they are; the vector lanes build the blocks first.
///
/// # Panics
/// Unless `children` has two and `message` 32 bytes per output.
pub fn compress_parents(
    kernel: Kernel,
    children: &[[u32; 8]],
    message: &[u8],
    out: &mut [[u32; 8]],
) {
    assert!(children.len() == 2 * out.len() && message.len() == 32 * out.len());
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::ShaNi(token) => {
            super::lanes_sha_ni::compress_parents(token, children, message, out)
        }
        _ => in_blocks(kernel, out, |i, state, block| {
            *state = children[2 * i];
            for (o, w) in block[..32].chunks_exact_mut(4).zip(children[2 * i + 1]) {
                o.copy_from_slice(&w.to_be_bytes());
            }
            block[32..].copy_from_slice(&message[32 * i..32 * i + 32]);
        }),
    }
}

/// Compresses consecutive leaf-type inputs of `piece_len` bytes each (64, 80 or 96) with
/// `kernel`: `out[i]` = the compression of piece i's first 32 bytes (big-endian words) with
/// the block of its other bytes followed by the first `96 - piece_len` bytes of `iv` as
/// big-endian bytes.
///
/// # Panics
/// Unless `pieces` holds `out.len()` pieces and `piece_len` is 64, 80 or 96.
pub fn compress_leaves(
    kernel: Kernel,
    pieces: &[u8],
    piece_len: usize,
    iv: &[u32; 8],
    out: &mut [[u32; 8]],
) {
    assert!(matches!(piece_len, 64 | 80 | 96) && pieces.len() == piece_len * out.len());
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::ShaNi(token) => {
            super::lanes_sha_ni::compress_leaves(token, pieces, piece_len, iv, out)
        }
        Kernel::Vector(width) if piece_len == 64 => {
            lanes_with(width, &Leaves64 { pieces, iv }, out)
        }
        _ => in_blocks(kernel, out, |i, state, block| {
            let piece = &pieces[piece_len * i..piece_len * (i + 1)];
            for (w, b) in state.iter_mut().zip(piece.chunks_exact(4)) {
                *w = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
            }
            let (message, iv_bytes) = block.split_at_mut(piece_len - 32);
            message.copy_from_slice(&piece[32..]);
            for (o, w) in iv_bytes.chunks_exact_mut(4).zip(iv) {
                o.copy_from_slice(&w.to_be_bytes());
            }
        }),
    }
}

/// `out.len()` compressions with `kernel`, their inputs built by `build(i, state, block)` a
/// few vector groups at a time (the vector lanes' form of the tree-node entry points).
fn in_blocks(
    kernel: Kernel,
    out: &mut [[u32; 8]],
    build: impl Fn(usize, &mut [u32; 8], &mut [u8; 64]),
) {
    // One AVX-512 lane group (two AVX2 ones): the full rounds pass 16 nodes a call, and the
    // blocks are zeroed once per call.
    const GROUP: usize = 16;
    let mut blocks = [[0u8; 64]; GROUP];
    for (g, states) in out.chunks_mut(GROUP).enumerate() {
        for (k, (state, block)) in states.iter_mut().zip(&mut blocks).enumerate() {
            build(g * GROUP + k, state, block);
        }
        let n = states.len();
        compress_with(kernel, states, &blocks[..n]);
    }
}

/// [`compress_with`] with the fastest kernel this CPU has.
pub fn compress_lanes(states: &mut [[u32; 8]], blocks: &[[u8; 64]]) {
    compress_with(Kernel::best(true), states, blocks);
}

/// One plain compression (scalar), for the few single compressions of a tree's top.
pub fn compress_one(state: &mut [u32; 8], block: &[u8; 64]) {
    let mut s: [Portable<u32, 1>; 8] = core::array::from_fn(|w| Portable([state[w]]));
    let m: [Portable<u32, 1>; 16] = core::array::from_fn(|i| {
        Portable([u32::from_be_bytes([
            block[4 * i],
            block[4 * i + 1],
            block[4 * i + 2],
            block[4 * i + 3],
        ])])
    });
    rounds(&mut s, &m);
    for (w, v) in s.iter().enumerate() {
        state[w] = v.0[0];
    }
}

md_algorithm! {
    /// SHA-256 as a Merkle-Damgard lane algorithm (serves SHA-224 too: another IV, a shorter digest).
    Sha256 {
        word: u32, vectors: U32x, state_words: 8, block: 64, length_bytes: 8,
        big_endian: true, rounds: rounds, lanes: Sha256Lanes,
    }
    /// SHA-224 lanes at this width.
    sha224: IV224, 28;
    /// SHA-256 lanes at this width.
    sha256: IV256, 32;
}
