//! BLAKE3 nodes side by side in SIMD lanes: the chaining values of many whole chunks, or of
//! many parents, in one pass each, for the outboard's encoder. The outboard needs every
//! leaf's chaining value and every parent node; the crate computes those only inside its own
//! multi-lane `hash_many`, which it does not make public, and one chunk at a time through its
//! `hazmat` API runs a single lane: four times slower on AVX2 than `b3sum`.
//!
//! The kernel is written once over [`U32x`] and compiled for the portable arrays, AVX2 and
//! AVX-512 (as the other lane kernels, `crate::lanes`); on AVX-512 its rounds are assembly
//! (`lanes_avx512`), which keeps the state and the message in the 32 registers, and its
//! message is transposed as the crate's assembly does it (`vector::Avx512x16`): a chunk costs
//! what it costs the crate (155 ns a block of 16 lanes in cache; 177 with a butterfly of
//! `vpermt2d`s), so the outboard's groups are hashed here too. Only the plain
//! hash's nodes (the IV as key, no root flag): the outboard is that tree's, and the root is
//! merged by the crate.

use ::blake3::hazmat::ChainingValue;

use super::spec::{rounds, BLOCK, IV};
use crate::lanes::Width;
#[cfg(target_arch = "x86_64")]
use crate::platform::{Avx2, Avx512};
#[cfg(target_arch = "x86_64")]
use crate::vector::{Avx2x8, Avx512x16};
use crate::vector::{Portable, U32x};

/// Bytes of one chunk.
pub(crate) const CHUNK: usize = 1024;

const CHUNK_START: u32 = 1;
const CHUNK_END: u32 = 2;
const PARENT: u32 = 4;

/// What each lane compresses: a whole chunk (16 blocks, the counter its index in the
/// message), or a parent (one block, counter 0).
#[derive(Clone, Copy)]
enum Node {
    Chunk { first: u64 },
    Parent,
}

/// The most lanes of any width (AVX-512's sixteen 32-bit words).
const MAX_LANES: usize = 16;

/// Blocks ahead of the one being compressed that each lane's input is prefetched: sixteen
/// input streams at once are more than the hardware prefetcher follows. On AVX-512 (64 MiB,
/// one thread) 1 or 2 blocks ahead were fastest, 3 and 4 slower, none 20 % slower.
const AHEAD: usize = 2;

/// The chaining values of the whole chunks `bytes` (a multiple of [`CHUNK`] bytes), the first
/// being chunk number `first` of its message, into `out` (one per chunk).
pub(crate) fn chunk_values(width: Width, bytes: &[u8], first: u64, out: &mut [ChainingValue]) {
    assert!(bytes.len() % CHUNK == 0 && out.len() == bytes.len() / CHUNK);
    dispatch(width, bytes, Node::Chunk { first }, out);
}

/// The chaining values of the parents `blocks` (each 64 bytes: its left and right children's
/// chaining values), none of them the root, into `out` (one per parent).
pub(crate) fn parent_values(width: Width, blocks: &[u8], out: &mut [ChainingValue]) {
    assert!(blocks.len() % BLOCK == 0 && out.len() == blocks.len() / BLOCK);
    dispatch(width, blocks, Node::Parent, out);
}

/// The one dispatch point of this kernel: `out[i]` from the `i`th node of `bytes` (whole
/// chunks, or parent blocks), a batch of nodes side by side in the lanes at a time.
fn dispatch(width: Width, bytes: &[u8], node: Node, out: &mut [ChainingValue]) {
    match width {
        Width::Portable => run_portable(bytes, node, out),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Width::Avx2` holds an `Avx2` token, made only after detecting AVX2.
        Width::Avx2(token) => unsafe { run_avx2(token, bytes, node, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Width::Avx512` holds an `Avx512` token, made only after detecting AVX-512
        // F/BW/VL/DQ and AVX2.
        Width::Avx512(token) => unsafe { run_avx512(token, bytes, node, out) },
        #[cfg(not(target_arch = "x86_64"))]
        _ => unreachable!("SIMD widths exist only on x86_64"),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
fn run_avx2(token: Avx2, bytes: &[u8], node: Node, out: &mut [ChainingValue]) {
    crate::platform::align_frame();
    run::<Avx2x8>(token, bytes, node, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
#[inline(never)]
fn run_avx512(token: Avx512, bytes: &[u8], node: Node, out: &mut [ChainingValue]) {
    crate::platform::align_frame();
    run::<Avx512x16>(token, bytes, node, out);
}

#[inline(never)]
fn run_portable(bytes: &[u8], node: Node, out: &mut [ChainingValue]) {
    run::<Portable<u32, 8>>((), bytes, node, out);
}

/// The G function on four columns or diagonals at once (`abcd[i]` the state words of the
/// `i`th, `x[i]` and `y[i]` its message words), every lane: each step of G done for the four
/// before the next, as BLAKE3's own SIMD kernels order it, so that four independent chains
/// are in flight.
#[inline(always)]
fn g<V: U32x>(v: &mut [V; 16], abcd: [[usize; 4]; 4], x: [V; 4], y: [V; 4]) {
    mix::<V, 16, 20>(v, abcd, x);
    mix::<V, 24, 25>(v, abcd, y);
}

/// Half of [`g`]: the four steps that take message word `x`, with `d` and `b` rotated left by
/// `D` and `B` bits.
#[inline(always)]
fn mix<V: U32x, const D: i32, const B: i32>(v: &mut [V; 16], abcd: [[usize; 4]; 4], x: [V; 4]) {
    for ([a, b, _, _], x) in abcd.into_iter().zip(x) {
        v[a] = v[a].add(v[b]).add(x);
    }
    for [a, _, _, d] in abcd {
        v[d] = v[d].xor(v[a]).rotl::<D>();
    }
    for [_, _, c, d] in abcd {
        v[c] = v[c].add(v[d]);
    }
    for [_, b, c, _] in abcd {
        v[b] = v[b].xor(v[c]).rotl::<B>();
    }
}

/// The seven rounds on every lane: [`rounds!`] over [`g`], or a width's own.
trait Rounds: U32x {
    #[inline(always)]
    fn rounds(v: &mut [Self; 16], m: &[Self; 16]) {
        rounds!(g, *v, m);
    }
}

impl Rounds for Portable<u32, 8> {}
#[cfg(target_arch = "x86_64")]
impl Rounds for Avx2x8 {}
#[cfg(target_arch = "x86_64")]
impl Rounds for Avx512x16 {
    #[inline(always)]
    fn rounds(v: &mut [Self; 16], m: &[Self; 16]) {
        // SAFETY: a value of this type is made only from the token that proves AVX-512
        // (`crate::platform`); `v[0]` holds it.
        unsafe { super::lanes_avx512::rounds(v, m) }
    }
}

// No closures below that do vector work: a closure is a function of its own without the
// enclosing target features, so its intrinsics would not inline.
#[inline(always)]
fn run<V: Rounds>(isa: V::Isa, bytes: &[u8], node: Node, out: &mut [ChainingValue]) {
    let size = match node {
        Node::Chunk { .. } => CHUNK,
        Node::Parent => BLOCK,
    };
    let lanes = V::LANES;
    let mut states = [[0u32; 8]; MAX_LANES];
    for (batch, outs) in out.chunks_mut(lanes).enumerate() {
        let done = batch * lanes;
        // Lanes past the last node repeat it; their values are dropped.
        let mut inputs: [&[u8]; MAX_LANES] = [&[]; MAX_LANES];
        for (l, input) in inputs.iter_mut().enumerate().take(lanes) {
            let i = done + l.min(outs.len() - 1);
            *input = &bytes[i * size..(i + 1) * size];
        }
        let first = match node {
            Node::Chunk { first } => Node::Chunk {
                first: first + done as u64,
            },
            Node::Parent => Node::Parent,
        };
        block_run::<V>(isa, &inputs[..lanes], first, &mut states);
        for (cv, state) in outs.iter_mut().zip(&states) {
            for (bytes, word) in cv.chunks_exact_mut(4).zip(state) {
                bytes.copy_from_slice(&word.to_le_bytes());
            }
        }
    }
}

/// One batch: every lane's node (lane `l`'s the `l`th after `node`: a chunk's counter one
/// more a lane), the chaining values into `out`.
#[inline(always)]
fn block_run<V: Rounds>(isa: V::Isa, inputs: &[&[u8]], node: Node, out: &mut [[u32; 8]]) {
    let (blocks, counter, step) = match node {
        Node::Chunk { first } => (CHUNK / BLOCK, first, 1),
        Node::Parent => (1, 0, 0),
    };
    let low = V::from_fn(isa, |l| (counter + step * l as u64) as u32);
    let high = V::from_fn(isa, |l| ((counter + step * l as u64) >> 32) as u32);
    let mut h = [V::splat(isa, 0); 8];
    for (h, iv) in h.iter_mut().zip(IV) {
        *h = V::splat(isa, iv);
    }
    let mut m = [h[0]; 16];
    let inputs: &[&[u8]] = &inputs[..V::LANES];
    for input in inputs {
        assert_eq!(input.len(), blocks * BLOCK);
    }
    for b in 0..blocks {
        #[cfg(target_arch = "x86_64")]
        if b + AHEAD < blocks {
            for input in inputs {
                let ahead = input[(b + AHEAD) * BLOCK..].as_ptr();
                // SAFETY: a prefetch is a hint; SSE is in every x86_64 CPU.
                unsafe {
                    ::core::arch::x86_64::_mm_prefetch::<{ ::core::arch::x86_64::_MM_HINT_T0 }>(
                        ahead.cast(),
                    )
                };
            }
        }
        V::transpose_blocks(isa, inputs, b * BLOCK, false, &mut m);
        let flags = match node {
            Node::Parent => PARENT,
            Node::Chunk { .. } => {
                (if b == 0 { CHUNK_START } else { 0 })
                    | (if b == blocks - 1 { CHUNK_END } else { 0 })
            }
        };
        #[rustfmt::skip]
        let mut v = [
            h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7],
            V::splat(isa, IV[0]), V::splat(isa, IV[1]), V::splat(isa, IV[2]), V::splat(isa, IV[3]),
            low, high, V::splat(isa, BLOCK as u32), V::splat(isa, flags),
        ];
        V::rounds(&mut v, &m);
        for i in 0..8 {
            h[i] = v[i].xor(v[i + 8]);
        }
    }
    V::store_states(h, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::blake3::hazmat::{merge_subtrees_non_root, HasherExt, Mode};

    fn chunk_value(chunk: &[u8], index: u64) -> ChainingValue {
        let mut hasher = ::blake3::Hasher::new();
        hasher.set_input_offset(index * CHUNK as u64);
        hasher.update(chunk);
        hasher.finalize_non_root()
    }

    #[test]
    fn chunks_and_parents_match_the_crate_at_every_width() {
        let data: Vec<u8> = (0..37 * CHUNK).map(|i| (i * 7 + i / 1000) as u8).collect();
        // A counter whose high word is not zero, and one batch that crosses 2^32.
        for first in [0, 5, (1 << 32) - 3] {
            let want: Vec<ChainingValue> = data
                .chunks(CHUNK)
                .enumerate()
                .map(|(i, c)| chunk_value(c, first + i as u64))
                .collect();
            let parents: Vec<u8> = want.concat();
            let want_parents: Vec<ChainingValue> = want
                .chunks_exact(2)
                .map(|p| merge_subtrees_non_root(&p[0], &p[1], Mode::Hash))
                .collect();
            for width in Width::all_available() {
                for n in [1, 7, 8, 9, 16, 17, 37] {
                    let mut got = vec![[0; 32]; n];
                    chunk_values(width, &data[..n * CHUNK], first, &mut got);
                    assert_eq!(got, want[..n], "{} chunks at {first}, {}", n, width.name());
                    let p = n / 2;
                    let mut got = vec![[0; 32]; p];
                    parent_values(width, &parents[..p * BLOCK], &mut got);
                    assert_eq!(got, want_parents[..p], "{p} parents, {}", width.name());
                }
            }
        }
    }
}
