//! The `parallel-portable` form of SIMD: the data flow of the vector kernels written on plain
//! arrays, so that every machine runs (and every test checks) the same plan.
//!
//! - Message expansion: the NTT of [`super::twiddles`] on "registers" of sixteen signed 16-bit
//!   lanes (`[i16; 16]`, the shape of one AVX2 register): stage A as butterflies between whole
//!   registers, a lane-wise multiply, an in-lane 8 × 8 transpose, stage D as butterflies between
//!   registers, then the constant terms, the lift to −128..=128 and the inner codes (×185, ×233)
//!   packed into words with lane blends.
//! - Compression: the n Feistel ladders as one n-lane row per state word; the lane permutation
//!   `j ⊕ c` of a step is a shuffle of the rotated row.

use super::twiddles::{stage_a_order, tables, NttTables, Twiddle, TwiddleVector, BIT_REVERSE_8};
use super::{feistel_schedule, lane_permutation, State, FEED_FORWARD_ROTATIONS, PERMUTATION};

/// Sixteen signed 16-bit lanes; lanes 0..8 and 8..16 are the two 128-bit halves.
type Reg = [i16; 16];

fn add(a: Reg, b: Reg) -> Reg {
    core::array::from_fn(|i| a[i].wrapping_add(b[i]))
}

fn sub(a: Reg, b: Reg) -> Reg {
    core::array::from_fn(|i| a[i].wrapping_sub(b[i]))
}

/// High half of the signed 32-bit product (`vpmulhw`).
fn mulhi(a: i16, b: i16) -> i16 {
    ((i32::from(a) * i32::from(b)) >> 16) as i16
}

/// Montgomery product `a·b (mod 257)` for any 16-bit a; |result| < 129 + |a·b|/2^16.
fn mont(a: i16, b: i16, b_qinv: i16) -> i16 {
    mulhi(a, b).wrapping_sub(mulhi(a.wrapping_mul(b_qinv), 257))
}

fn mul_scalar(a: Reg, w: Twiddle) -> Reg {
    a.map(|x| mont(x, w.value, w.value_qinv))
}

fn mul_vector(a: Reg, w: &TwiddleVector) -> Reg {
    core::array::from_fn(|i| mont(a[i], w.value[i], w.value_qinv[i]))
}

/// `x mod 257` up to a small multiple: 256 ≡ −1, so `(x & 255) − (x >> 8)`; any i16 gives
/// −127..=383, and −127..=383 gives −1..=256.
fn reduce(x: i16) -> i16 {
    (x & 255) - (x >> 8)
}

/// The exact lifted value of section 4.2 (−128..=128) of any 16-bit x.
fn lift(x: i16) -> i16 {
    let r = reduce(reduce(x));
    if r > 128 {
        r - 257
    } else {
        r
    }
}

/// One span of radix-2 DIF butterflies in any kernel's registers: pairs `(u, v)` at
/// `regs[start + k]` and `regs[start + k + len]` become `u + v` and `u - v` (`d`) times
/// `$mul`, the twiddle of pair `k` (pair 0's is 1, not multiplied).
macro_rules! butterfly_span {
    ($regs:ident, $start:expr, $len:expr; $add:path, $sub:path, |$d:ident, $k:ident| $mul:expr) => {
        for $k in 0..$len {
            let (u, v) = ($regs[$start + $k], $regs[$start + $k + $len]);
            $regs[$start + $k] = $add(u, v);
            let $d = $sub(u, v);
            $regs[$start + $k + $len] = if $k == 0 { $d } else { $mul };
        }
    };
}
pub(super) use butterfly_span;

/// Radix-2 DIF butterflies between whole registers: spans `top`, `top / 2`, ..., 1; pair `k`
/// of span `len` is multiplied by `twiddles[k * scale / len]` after the subtraction.
#[inline(always)]
fn butterflies(regs: &mut [Reg], top: usize, scale: usize, twiddles: &[Twiddle]) {
    let mut len = top;
    while len >= 1 {
        let step = scale / len;
        for start in (0..regs.len()).step_by(2 * len) {
            butterfly_span!(regs, start, len; add, sub, |d, k| mul_scalar(d, twiddles[k * step]));
        }
        len /= 2;
    }
}

/// Stage A's butterflies on the registers `a` (of any kernel's type, with that kernel's
/// `mul_scalar` and `butterflies`): registers `L..2L` start as `0..L` times ω^k, then the
/// radix-2 DIF runs over the first `2L` (the plan below).
macro_rules! stage_a_butterflies {
    ($a:ident, $t:expr, $l:expr, $two_n:expr) => {
        for k in 0..$l {
            $a[k + $l] = if k == 0 {
                $a[k]
            } else {
                mul_scalar($a[k], $t.omega[k])
            };
        }
        butterflies(&mut $a[..$two_n], $l / 2, $l, &$t.omega);
    };
}
pub(super) use stage_a_butterflies;

/// Stage A: `u[i2][j1] = α^(j1·i2) · Σ_j2 M[j1 + 16·j2]·ω^(j2·i2)` for i2 < 2n (the first 2n
/// registers), as a radix-2 DIF over registers. Bounds: bytes ≤ 255; the first stage only
/// multiplies (its upper inputs are zero); three more stages at most multiply the magnitude
/// by 8 (≤ 2040); the column factor brings it back below 133, and for i2 = 0 (factor 1) a
/// reduction below 384.
fn stage_a<const L: usize>(block: &[u8], t: &NttTables) -> [Reg; 16] {
    let two_n = 2 * L;
    let mut a = [[0i16; 16]; 16];
    for (j2, reg) in a.iter_mut().enumerate().take(L) {
        for (j1, lane) in reg.iter_mut().enumerate() {
            *lane = i16::from(block[16 * j2 + j1]);
        }
    }
    stage_a_butterflies!(a, t, L, two_n);
    let order = stage_a_order(L);
    core::array::from_fn(|i2| match i2 {
        0 => a[0].map(reduce),
        _ if i2 < two_n => mul_vector(a[order[i2]], &t.column[i2]),
        _ => [0; 16],
    })
}

/// The in-lane 8 × 8 transpose (what `vpunpck{l,h}{wd,dq,qdq}` do in three rounds): output
/// register r holds lane r of each input in its low half and lane r + 8 in its high half.
fn transpose(u: &[Reg]) -> [Reg; 8] {
    core::array::from_fn(|r| core::array::from_fn(|lane| u[lane % 8][(lane / 8) * 8 + r]))
}

/// Stage D on one set of eight registers `[V[r] | V[r+8]]` (lanes t = i2 − 8·set): the 16-point
/// DFT over j1, the constant terms and the lift. Returns `out[m] = [ỹ(2m) | ỹ(2m+1)]` where
/// `ỹ(i1)` is the eight values `ỹ[2n·i1 + 8·set + t]`. Bounds: inputs < 384; the in-register
/// butterfly gives sums and (for r = 0, unmultiplied) differences < 768, products < 133; three
/// more stages < 6144, plus constants ≤ 512.
fn stage_d(mut v: [Reg; 8], t: &NttTables, set: usize, final_block: bool) -> [Reg; 8] {
    for (r, reg) in v.iter_mut().enumerate() {
        let swapped: Reg = core::array::from_fn(|i| reg[(i + 8) % 16]);
        let sum = add(*reg, swapped);
        let mut diff = sub(swapped, *reg);
        if r > 0 {
            diff = mul_scalar(diff, t.beta[r]);
        }
        *reg = core::array::from_fn(|i| if i < 8 { sum[i] } else { diff[i] });
    }
    butterflies(&mut v, 4, 4, &t.gamma);
    let constants = &t.constant_terms[usize::from(final_block)][set];
    core::array::from_fn(|m| add(v[BIT_REVERSE_8[m]], constants[m]).map(lift))
}

/// The inner codes of one set, as 16 registers `zp[q] = [Z(2q) | Z(2q+1)]` (this set's share of
/// Z): ×185 on consecutive pairs, ×233 pairing ỹ(i) with ỹ(i + 8) (index + N/2).
fn inner_codes(out: &[Reg; 8]) -> [Reg; 16] {
    let times = |r: &Reg, k: i16| r.map(|x| x.wrapping_mul(k));
    core::array::from_fn(|q| match q {
        0..=7 => times(&out[q], 185),
        8..=11 => {
            let (a, b) = (times(&out[q - 8], 233), times(&out[q - 4], 233));
            core::array::from_fn(|i| if i % 2 == 0 { a[i] } else { b[i - 1] })
        }
        _ => {
            let (a, b) = (times(&out[q - 12], 233), times(&out[q - 8], 233));
            core::array::from_fn(|i| if i % 2 == 0 { a[i + 1] } else { b[i] })
        }
    })
}

/// The four 32-bit words of one half of a register (even lane low, odd lane high).
fn half_words(r: &Reg, half: usize) -> [u32; 4] {
    core::array::from_fn(|j| {
        let lo = r[half * 8 + 2 * j] as u16;
        let hi = r[half * 8 + 2 * j + 1] as u16;
        u32::from(lo) | (u32::from(hi) << 16)
    })
}

/// Section 4 for one block: the 32 message vectors W in step order.
fn expand<const L: usize>(block: &[u8], final_block: bool) -> [[u32; L]; 32] {
    let t = tables(L);
    let u = stage_a::<L>(block, t);
    let mut z = [[[0i16; 16]; 16]; 2];
    for (set, zs) in z.iter_mut().enumerate().take(L / 4) {
        let v = transpose(&u[8 * set..8 * set + 8]);
        *zs = inner_codes(&stage_d(v, t, set, final_block));
    }
    core::array::from_fn(|k| {
        let i = PERMUTATION[k];
        core::array::from_fn(|j| half_words(&z[j / 4][i / 2], i % 2)[j % 4])
    })
}

/// One step on n-lane rows: `R = A <<< r`; `A' = (D + w + F(A, B, C)) <<< s + R[j ⊕ c]`.
fn step<const L: usize>(
    [a, b, c, d]: [[u32; L]; 4],
    w: &[u32; L],
    (r, s, use_majority, perm): (u32, u32, bool, usize),
) -> [[u32; L]; 4] {
    let rotated = a.map(|x| x.rotate_left(r));
    let shuffled: [u32; L] = core::array::from_fn(|j| rotated[j ^ perm]);
    let f: [u32; L] = core::array::from_fn(|j| {
        if use_majority {
            (a[j] & b[j]) | (c[j] & (a[j] | b[j]))
        } else {
            ((b[j] ^ c[j]) & a[j]) ^ c[j]
        }
    });
    let new_a = core::array::from_fn(|j| {
        d[j].wrapping_add(w[j])
            .wrapping_add(f[j])
            .rotate_left(s)
            .wrapping_add(shuffled[j])
    });
    [new_a, rotated, b, c]
}

/// Compresses whole blocks of 16·n bytes, all with the same `final_block` flag.
#[inline(never)]
pub fn compress_blocks<const L: usize>(state: &mut State<L>, blocks: &[u8], final_block: bool) {
    debug_assert!(L == 4 || L == 8);
    debug_assert_eq!(blocks.len() % (16 * L), 0);
    for block in blocks.chunks_exact(16 * L) {
        let w = expand::<L>(block, final_block);
        let saved = *state;
        let mut st = *state;
        for (row, words) in st.iter_mut().zip(block.chunks_exact(4 * L)) {
            for (x, m) in row.iter_mut().zip(words.chunks_exact(4)) {
                *x ^= u32::from_le_bytes([m[0], m[1], m[2], m[3]]);
            }
        }
        for (k, wk) in w.iter().enumerate() {
            let (r, s, maj) = feistel_schedule(k);
            st = step(st, wk, (r, s, maj, lane_permutation(L, k)));
        }
        for (i, saved_row) in saved.iter().enumerate() {
            let (r, s) = FEED_FORWARD_ROTATIONS[i];
            st = step(st, saved_row, (r, s, false, lane_permutation(L, 32 + i)));
        }
        *state = st;
    }
}

#[cfg(test)]
mod tests {
    use super::super::sequential;
    use super::*;

    #[test]
    fn expansion_matches_the_literal_form() {
        sequential::tests::for_each_block(40, |seed, block, final_block| {
            assert_eq!(
                expand::<4>(&block[..64], final_block),
                sequential::expand::<4>(&block[..64], final_block),
                "n = 4 seed {seed}"
            );
            assert_eq!(
                expand::<8>(block, final_block),
                sequential::expand::<8>(block, final_block),
                "n = 8 seed {seed}"
            );
        });
    }
}
