//! The `parallel` SHA-1 data flow in portable Rust: the whole message schedule `W[t] + K[t]` is
//! computed ahead of the rounds, four words per step on `[u32; 4]` arrays exactly as the
//! vector kernels ([`super::parallel_sse41`], [`super::parallel_avx2`]) do it in registers,
//! then the 80 scalar rounds only read it back. It is the twin the vector kernels are tested
//! against, and what the `parallel` form costs without vector registers.
//!
//! Four words `W[t..t+4]` at once: `W[t+3]` needs `W[t]` from the same step, so the step first
//! takes 0 in its place, then patches lane 3 with `rotl1(W[t])` once lane 0 is known (the
//! rotate distributes over XOR). From `W[32]` on, the equivalent recurrence
//! `W[t] = rotl2(W[t-6] ^ W[t-16] ^ W[t-28] ^ W[t-32])` (obtained by applying the definition
//! to each of its four terms; Locktyukhin, Intel 2010) has no dependency inside a group of four,
//! so those steps need no patch.

use super::{round, rounds5, rounds80, K};

type V = [u32; 4];

#[inline(always)]
fn xor(a: V, b: V) -> V {
    [a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2], a[3] ^ b[3]]
}

#[inline(always)]
fn rotl1(a: V) -> V {
    a.map(|x| x.rotate_left(1))
}

#[inline(always)]
fn rotl2(a: V) -> V {
    a.map(|x| x.rotate_left(2))
}

/// `W[4g..4g+4]` from the four previous groups (`g >= 4`).
#[inline(always)]
pub(crate) fn next_group(w4: V, w3: V, w2: V, w1: V) -> V {
    // W[t-3..t+1] with the not-yet-known W[t] taken as 0.
    let minus3 = [w1[1], w1[2], w1[3], 0];
    let minus14 = [w4[2], w4[3], w3[0], w3[1]];
    let mut x = rotl1(xor(xor(minus3, w2), xor(minus14, w4)));
    x[3] ^= x[0].rotate_left(1);
    x
}

/// `W[4g..4g+4]` for `g >= 8` from groups `g-1`, `g-2`, `g-4`, `g-7` and `g-8`.
#[inline(always)]
pub(crate) fn next_group_far(w8: V, w7: V, w4: V, w2: V, w1: V) -> V {
    let minus6 = [w2[2], w2[3], w1[0], w1[1]];
    rotl2(xor(xor(minus6, w4), xor(w7, w8)))
}

/// The 80 words `W[t] + K[t]` of one block.
#[inline(always)]
pub(crate) fn schedule(block: &[u8; 64]) -> [u32; 80] {
    let mut groups = [[0u32; 4]; 20];
    for (g, bytes) in groups.iter_mut().zip(block.chunks_exact(16)) {
        for (word, b) in g.iter_mut().zip(bytes.chunks_exact(4)) {
            *word = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
        }
    }
    for g in 4..8 {
        groups[g] = next_group(groups[g - 4], groups[g - 3], groups[g - 2], groups[g - 1]);
    }
    for g in 8..20 {
        groups[g] = next_group_far(
            groups[g - 8],
            groups[g - 7],
            groups[g - 4],
            groups[g - 2],
            groups[g - 1],
        );
    }
    let mut wk = [0u32; 80];
    for (t, (out, w)) in wk.iter_mut().zip(groups.as_flattened()).enumerate() {
        *out = w.wrapping_add(K[t / 20]);
    }
    wk
}

/// Compresses whole 64-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(state: &mut [u32; 5], blocks: &[[u8; 64]]) {
    for block in blocks {
        let wk = schedule(block);
        let read = |t: usize| wk[t];
        rounds80!(state, read);
    }
}
