//! The `sequential` form of SIMD: a literal, scalar transcription of `shared/specs/simd.md`.
//!
//! Every step of the specification is a separate public function (NTT, lift, inner codes,
//! permutation, message XOR, Feistel step), so that tests can compare each against the
//! designers' "abc" trace. The NTT is the naive O(N²) evaluation of section 4.1; nothing here is
//! tuned for speed. It is the oracle the `parallel` forms are checked against.

// Index loops mirror the specification's subscripts (Z[i][j], ỹ[2n·i + 2j]) on purpose.
#![allow(clippy::needless_range_loop)]

use super::{feistel_schedule, lane_permutation, State, FEED_FORWARD_ROTATIONS, PERMUTATION};

/// Largest NTT size (SIMD-384/512); SIMD-224/256 use the first 128 entries of the arrays below.
pub const MAX_NTT: usize = 256;

/// NTT size N = 32·n for `lanes` = n.
pub const fn ntt_size(lanes: usize) -> usize {
    32 * lanes
}

/// The root of unity α of section 1: 139 (order 128) for n = 4, 41 (order 256) for n = 8.
pub const fn root_of_unity(lanes: usize) -> u32 {
    if lanes == 4 {
        139
    } else {
        41
    }
}

/// Section 4.1: `y_i = P(α^i) mod 257` for i = 0..N−1, in natural order, before the lift, where
/// `P(X) = Σ M[j]·X^j + X^(N−1) + final·X^(N−3)`; evaluated term by term as the spec's
/// `y_i = Σ_j M[j]·α^(i·j) + α^((N−1)·i) + final·α^((N−3)·i)` (N is a power of two and α has order
/// N, so exponents reduce with a mask).
pub fn ntt(lanes: usize, block: &[u8], final_block: bool) -> [u32; MAX_NTT] {
    let n_size = ntt_size(lanes);
    assert_eq!(block.len(), n_size / 2, "SIMD block is N/2 bytes");
    let mask = n_size - 1;
    // powers[k] = α^k mod 257 for k < N.
    let alpha = root_of_unity(lanes);
    let mut powers = [0u32; MAX_NTT];
    powers[0] = 1;
    for k in 1..n_size {
        powers[k] = powers[k - 1] * alpha % 257;
    }
    let mut y = [0u32; MAX_NTT];
    for (i, yi) in y.iter_mut().enumerate().take(n_size) {
        let mut sum = 0u32;
        for (j, &byte) in block.iter().enumerate() {
            sum += u32::from(byte) * powers[(i * j) & mask];
        }
        sum += powers[(i * (n_size - 1)) & mask];
        if final_block {
            sum += powers[(i * (n_size - 3)) & mask];
        }
        *yi = sum % 257;
    }
    y
}

/// Section 4.2: map 0..=256 to −128..=128 (`y > 128` becomes `y − 257`).
pub fn lift(y: &[u32; MAX_NTT]) -> [i32; MAX_NTT] {
    let mut out = [0i32; MAX_NTT];
    for (o, &v) in out.iter_mut().zip(y) {
        *o = if v > 128 { v as i32 - 257 } else { v as i32 };
    }
    out
}

/// Section 4.3: `pack(a, b)`: low 16 bits of a in the low half, low 16 bits of b in the high half.
pub fn pack(low: i32, high: i32) -> u32 {
    (low as u32 & 0xffff) | ((high as u32 & 0xffff) << 16)
}

/// Section 4.3: the inner codes (×185 and ×233) and their packing into 32 vectors Z of n words.
pub fn inner_codes<const L: usize>(lifted: &[i32; MAX_NTT]) -> [[u32; L]; 32] {
    let half = ntt_size(L) / 2;
    let y = |i: usize| lifted[i];
    let mut z = [[0u32; L]; 32];
    for i in 0..16 {
        for j in 0..L {
            let e = 2 * L * i + 2 * j;
            z[i][j] = pack(185 * y(e), 185 * y(e + 1));
        }
    }
    for i in 0..8 {
        for j in 0..L {
            let e = 2 * L * i + 2 * j;
            z[16 + i][j] = pack(233 * y(e), 233 * y(e + half));
            z[24 + i][j] = pack(233 * y(e + 1), 233 * y(e + 1 + half));
        }
    }
    z
}

/// Section 4.4: `W[k] = Z[P[k]]`.
pub fn permute<const L: usize>(z: &[[u32; L]; 32]) -> [[u32; L]; 32] {
    let mut w = [[0u32; L]; 32];
    for (wk, &p) in w.iter_mut().zip(PERMUTATION.iter()) {
        *wk = z[p];
    }
    w
}

/// Section 4: the whole message expansion of one block.
pub fn expand<const L: usize>(block: &[u8], final_block: bool) -> [[u32; L]; 32] {
    permute(&inner_codes::<L>(&lift(&ntt(L, block, final_block))))
}

/// Section 3, item 3: XOR the block, read as 4·n little-endian words, into A, B, C, D.
pub fn xor_message<const L: usize>(state: &mut State<L>, block: &[u8]) {
    for (k, word) in block.chunks_exact(4).enumerate() {
        let m = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        state[k / L][k % L] ^= m;
    }
}

/// `IF(x, y, z)`: y where x is 1, z where x is 0.
pub fn choose(x: u32, y: u32, z: u32) -> u32 {
    (x & y) | (!x & z)
}

/// `MAJ(x, y, z)`: bitwise majority.
pub fn majority(x: u32, y: u32, z: u32) -> u32 {
    (x & y) | (x & z) | (y & z)
}

/// Section 3.2: one step. Every lane reads the rotated A of lane `j ⊕ c` as it was before the step.
pub fn step<const L: usize>(
    state: &mut State<L>,
    w: &[u32; L],
    r: u32,
    s: u32,
    use_majority: bool,
    c: usize,
) {
    let [a, b, c_words, d] = *state;
    let mut rotated = [0u32; L];
    for j in 0..L {
        rotated[j] = a[j].rotate_left(r);
    }
    let mut new_a = [0u32; L];
    for j in 0..L {
        let f = if use_majority {
            majority(a[j], b[j], c_words[j])
        } else {
            choose(a[j], b[j], c_words[j])
        };
        new_a[j] = d[j]
            .wrapping_add(w[j])
            .wrapping_add(f)
            .rotate_left(s)
            .wrapping_add(rotated[j ^ c]);
    }
    *state = [new_a, rotated, b, c_words];
}

/// What [`compress_traced`] reports, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checkpoint {
    /// The state after the message XOR (section 3, item 3).
    MessageXored,
    /// The state after step k (0..=35; 32..=35 are the feed-forward steps).
    Step(usize),
}

/// Section 3: the compression function, reporting the state at every checkpoint.
pub fn compress_traced<const L: usize>(
    state: &mut State<L>,
    block: &[u8],
    final_block: bool,
    mut observe: impl FnMut(Checkpoint, &State<L>),
) {
    let saved = *state;
    let w = expand::<L>(block, final_block);
    xor_message(state, block);
    observe(Checkpoint::MessageXored, state);
    for (k, wk) in w.iter().enumerate() {
        let (r, s, use_majority) = feistel_schedule(k);
        step(state, wk, r, s, use_majority, lane_permutation(L, k));
        observe(Checkpoint::Step(k), state);
    }
    for (i, saved_words) in saved.iter().enumerate() {
        let k = 32 + i;
        let (r, s) = FEED_FORWARD_ROTATIONS[i];
        step(state, saved_words, r, s, false, lane_permutation(L, k));
        observe(Checkpoint::Step(k), state);
    }
}

/// Section 3: the compression function of one block.
pub fn compress<const L: usize>(state: &mut State<L>, block: &[u8], final_block: bool) {
    compress_traced(state, block, final_block, |_, _| {});
}

/// Compresses whole blocks of 16·n bytes (`blocks.len()` a multiple of it), all with the same
/// `final_block` flag.
#[inline(never)]
pub fn compress_blocks<const L: usize>(state: &mut State<L>, blocks: &[u8], final_block: bool) {
    debug_assert_eq!(blocks.len() % (16 * L), 0);
    for block in blocks.chunks_exact(16 * L) {
        compress(state, block, final_block);
    }
}
