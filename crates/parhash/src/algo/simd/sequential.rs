//! The `sequential` form of SIMD: a literal, scalar transcription of `shared/specs/simd.md`.
//!
//! Every step of the specification is a separate public function (NTT, lift, inner codes,
//! permutation, message XOR, Feistel step), so that tests can compare each against the
//! designers' "abc" trace. The NTT is the textbook scalar radix-2 NTT with every operation
//! reduced mod 257 (checked against the O(N²) sum of section 4.1, [`ntt_by_definition`]);
//! nothing else is tuned for speed. It is the oracle the `parallel` forms are checked against.

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

/// `α^k mod 257` for k < N, for both roots (`lanes` = 4: α = 139, N = 128; 8: α = 41, N = 256).
const fn powers_of_alpha(lanes: usize) -> [u32; MAX_NTT] {
    let alpha = root_of_unity(lanes);
    let mut powers = [0u32; MAX_NTT];
    powers[0] = 1;
    let mut k = 1;
    while k < ntt_size(lanes) {
        powers[k] = powers[k - 1] * alpha % 257;
        k += 1;
    }
    powers
}

const POWERS_4: [u32; MAX_NTT] = powers_of_alpha(4);
const POWERS_8: [u32; MAX_NTT] = powers_of_alpha(8);

/// The coefficients of section 4.1's `P(X) = Σ M[j]·X^j + X^(N−1) + final·X^(N−3)`.
fn coefficients(lanes: usize, block: &[u8], final_block: bool) -> [u32; MAX_NTT] {
    let n_size = ntt_size(lanes);
    assert_eq!(block.len(), n_size / 2, "SIMD block is N/2 bytes");
    let mut x = [0u32; MAX_NTT];
    for (xj, &byte) in x.iter_mut().zip(block) {
        *xj = u32::from(byte);
    }
    x[n_size - 1] = 1;
    if final_block {
        x[n_size - 3] = 1;
    }
    x
}

/// Section 4.1: `y_i = P(α^i) mod 257` for i = 0..N−1, in natural order, before the lift.
/// Evaluated with the textbook radix-2 Cooley-Tukey NTT (decimation in time: coefficients in
/// bit-reversed order, log2 N passes of butterflies `(u + v·ω^k, u − v·ω^k)`, every operation
/// reduced mod 257), which yields the outputs in natural order. [`ntt_by_definition`] is the
/// O(N²) sum of the specification; tests check that the two agree.
pub fn ntt(lanes: usize, block: &[u8], final_block: bool) -> [u32; MAX_NTT] {
    let n_size = ntt_size(lanes);
    let powers = if lanes == 4 { &POWERS_4 } else { &POWERS_8 };
    let x = coefficients(lanes, block, final_block);
    let bits = n_size.trailing_zeros();
    let mut a = [0u32; MAX_NTT];
    for (j, &xj) in x.iter().enumerate().take(n_size) {
        a[j.reverse_bits() >> (usize::BITS - bits)] = xj;
    }
    let mut half = 1;
    while half < n_size {
        // Butterflies of size 2·half use the (2·half)-th root of unity α^(N / (2·half)).
        let stride = n_size / (2 * half);
        for start in (0..n_size).step_by(2 * half) {
            for k in 0..half {
                let u = a[start + k];
                let v = a[start + k + half] * powers[k * stride] % 257;
                a[start + k] = (u + v) % 257;
                a[start + k + half] = (u + 257 - v) % 257;
            }
        }
        half *= 2;
    }
    a
}

/// Section 4.1 term by term: `y_i = Σ_j x_j·α^(i·j) mod 257` (O(N²); N is a power of two and α
/// has order N, so exponents reduce with a mask). The cross-check for [`ntt`].
pub fn ntt_by_definition(lanes: usize, block: &[u8], final_block: bool) -> [u32; MAX_NTT] {
    let n_size = ntt_size(lanes);
    let mask = n_size - 1;
    let powers = if lanes == 4 { &POWERS_4 } else { &POWERS_8 };
    let x = coefficients(lanes, block, final_block);
    let mut y = [0u32; MAX_NTT];
    for (i, yi) in y.iter_mut().enumerate().take(n_size) {
        let mut sum = 0u32;
        for (j, &xj) in x.iter().enumerate().take(n_size) {
            sum += xj * powers[(i * j) & mask];
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Calls `check(seed, block, final_block)` on `seeds` varied 128-byte blocks (every fifth
    /// all ones), each as a middle and as a final block.
    pub(in crate::algo::simd) fn for_each_block(
        seeds: u32,
        mut check: impl FnMut(u32, &[u8; 128], bool),
    ) {
        let mut block = [0u8; 128];
        for seed in 0..seeds {
            for (i, b) in block.iter_mut().enumerate() {
                *b = (i as u32 * 131 + seed * 71 + (seed * i as u32) % 13) as u8;
            }
            if seed % 5 == 0 {
                block = [0xff; 128];
            }
            for final_block in [false, true] {
                check(seed, &block, final_block);
            }
        }
    }

    #[test]
    fn radix2_ntt_is_the_sum_of_the_specification() {
        for_each_block(24, |_, block, final_block| {
            assert_eq!(
                ntt(4, &block[..64], final_block),
                ntt_by_definition(4, &block[..64], final_block)
            );
            assert_eq!(
                ntt(8, block, final_block),
                ntt_by_definition(8, block, final_block)
            );
        });
    }
}
