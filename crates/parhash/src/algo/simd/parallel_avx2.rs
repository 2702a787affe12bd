//! The `parallel-avx2` form of SIMD: the plan of [`super::parallel_portable`] in AVX2 registers.
//!
//! - NTT: sixteen 16-bit lanes per `ymm`; stage A is `vpmovzxbw` of 16 message bytes per
//!   register and butterflies between registers (Montgomery products with broadcast twiddles:
//!   `vpmullw`, two `vpmulhw`, `vpsubw`); the 8 × 8 transposes are `vpunpck{l,h}{wd,dq,qdq}`,
//!   which work within each 128-bit half, exactly the halves the plan uses; stage D's first
//!   butterfly swaps halves with `vperm2i128`. The lift is `(x & 255) − (x >> 8)` twice and a
//!   compare; the inner codes are `vpmullw` by 185 or 233 and `vpblendw` of shifted registers.
//! - Feistel: SIMD-224/256's four lanes are one `xmm` per state word, SIMD-384/512's eight one
//!   `ymm`; rotations are shift/shift/or, IF and MAJ three and four logic ops, and the lane
//!   permutation `j ⊕ c` one `vpshufd` (plus a `vpermq` half swap when c ≥ 4).

use core::arch::x86_64::*;

use super::twiddles::{
    stage_a_order, tables, xor_shuffle_imm, NttTables, Twiddle, TwiddleVector, BIT_REVERSE_8,
};
use super::{lane_permutation, step_params, State, PERMUTATION};
use crate::platform::Avx2;

/// Compresses whole blocks of 16·n bytes, all with the same `final_block` flag.
#[inline(never)]
pub fn compress_blocks<const L: usize>(
    token: Avx2,
    state: &mut State<L>,
    blocks: &[u8],
    final_block: bool,
) {
    let _ = token;
    debug_assert_eq!(blocks.len() % (16 * L), 0);
    // SAFETY: the `Avx2` token proves this CPU has AVX2 (and it is not switched off).
    unsafe { compress_avx2::<L>(state, blocks, final_block) }
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn load_lanes(v: &[i16; 16]) -> __m256i {
    // SAFETY: reads exactly the 32 bytes of the array (unaligned load).
    unsafe { _mm256_loadu_si256(v.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn load16(bytes: &[u8]) -> __m128i {
    let bytes: &[u8; 16] = bytes.try_into().expect("16 bytes");
    // SAFETY: reads exactly the 16 bytes of the array (unaligned load).
    unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn load32(bytes: &[u8]) -> __m256i {
    let bytes: &[u8; 32] = bytes.try_into().expect("32 bytes");
    // SAFETY: reads exactly the 32 bytes of the array (unaligned load).
    unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) }
}

/// Montgomery product by a constant, lane-wise; |result| < 129 + |a·b|/2^16.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn mont(a: __m256i, b: __m256i, b_qinv: __m256i) -> __m256i {
    let t = _mm256_mullo_epi16(a, b_qinv);
    _mm256_sub_epi16(
        _mm256_mulhi_epi16(a, b),
        _mm256_mulhi_epi16(t, _mm256_set1_epi16(257)),
    )
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn mul_scalar(a: __m256i, w: Twiddle) -> __m256i {
    mont(
        a,
        _mm256_set1_epi16(w.value),
        _mm256_set1_epi16(w.value_qinv),
    )
}

#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn mul_vector(a: __m256i, w: &TwiddleVector) -> __m256i {
    mont(a, load_lanes(&w.value), load_lanes(&w.value_qinv))
}

/// `(x & 255) − (x >> 8)`: −127..=383 for any lane, −1..=256 for lanes in −127..=383.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn reduce(x: __m256i) -> __m256i {
    _mm256_sub_epi16(
        _mm256_and_si256(x, _mm256_set1_epi16(255)),
        _mm256_srai_epi16::<8>(x),
    )
}

/// The exact lifted value (−128..=128) of every lane.
#[inline]
#[target_feature(enable = "avx2")]
fn lift(x: __m256i) -> __m256i {
    let r = reduce(reduce(x));
    let above = _mm256_cmpgt_epi16(r, _mm256_set1_epi16(128));
    _mm256_sub_epi16(r, _mm256_and_si256(above, _mm256_set1_epi16(257)))
}

/// Radix-2 DIF butterflies between whole registers (see `parallel_portable::butterflies`).
///
/// # Safety
/// The CPU must support AVX2 (always inlined, as [`stage_a`]).
#[inline(always)]
unsafe fn butterflies(regs: &mut [__m256i], top: usize, scale: usize, twiddles: &[Twiddle]) {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        let mut len = top;
        while len >= 1 {
            let step = scale / len;
            let mut start = 0;
            while start < regs.len() {
                super::parallel_portable::butterfly_span!(
                    regs, start, len; _mm256_add_epi16, _mm256_sub_epi16,
                    |d, k| mul_scalar(d, twiddles[k * step])
                );
                start += 2 * len;
            }
            len /= 2;
        }
    }
}

/// Stage A (see `parallel_portable::stage_a` for the plan and the bounds).
///
/// # Safety
/// The CPU must support AVX2. Always inlined (so not a `#[target_feature]` function):
/// both the AVX2 and the AVX-512 kernel get their own copy, compiled with their features.
#[inline(always)]
pub(super) unsafe fn stage_a<const L: usize>(block: &[u8], t: &NttTables) -> [__m256i; 16] {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        let two_n = 2 * L;
        let mut a = [_mm256_setzero_si256(); 16];
        for j2 in 0..L {
            a[j2] = _mm256_cvtepu8_epi16(load16(&block[16 * j2..16 * j2 + 16]));
        }
        super::parallel_portable::stage_a_butterflies!(a, t, L, two_n);
        // Unrolled with constant indices, so that the bit reversal is register renaming.
        let order = stage_a_order(L);
        let mut u = [_mm256_setzero_si256(); 16];
        u[0] = reduce(a[0]);
        macro_rules! column {
            ($($i:literal)*) => {$(
                if $i < two_n {
                    u[$i] = mul_vector(a[order[$i]], &t.column[$i]);
                }
            )*};
        }
        column!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        u
    }
}

/// In-lane 8 × 8 transpose of 16-bit lanes: output r = `[lane r of each | lane r + 8 of each]`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn transpose(u: &[__m256i]) -> [__m256i; 8] {
    let b0 = _mm256_unpacklo_epi16(u[0], u[1]);
    let b1 = _mm256_unpackhi_epi16(u[0], u[1]);
    let b2 = _mm256_unpacklo_epi16(u[2], u[3]);
    let b3 = _mm256_unpackhi_epi16(u[2], u[3]);
    let b4 = _mm256_unpacklo_epi16(u[4], u[5]);
    let b5 = _mm256_unpackhi_epi16(u[4], u[5]);
    let b6 = _mm256_unpacklo_epi16(u[6], u[7]);
    let b7 = _mm256_unpackhi_epi16(u[6], u[7]);
    let c0 = _mm256_unpacklo_epi32(b0, b2);
    let c1 = _mm256_unpackhi_epi32(b0, b2);
    let c2 = _mm256_unpacklo_epi32(b1, b3);
    let c3 = _mm256_unpackhi_epi32(b1, b3);
    let c4 = _mm256_unpacklo_epi32(b4, b6);
    let c5 = _mm256_unpackhi_epi32(b4, b6);
    let c6 = _mm256_unpacklo_epi32(b5, b7);
    let c7 = _mm256_unpackhi_epi32(b5, b7);
    [
        _mm256_unpacklo_epi64(c0, c4),
        _mm256_unpackhi_epi64(c0, c4),
        _mm256_unpacklo_epi64(c1, c5),
        _mm256_unpackhi_epi64(c1, c5),
        _mm256_unpacklo_epi64(c2, c6),
        _mm256_unpackhi_epi64(c2, c6),
        _mm256_unpacklo_epi64(c3, c7),
        _mm256_unpackhi_epi64(c3, c7),
    ]
}

/// Stage D, constants, lift and inner codes of one set: `zp[q] = [Z(2q) | Z(2q+1)]` (this
/// set's share), as in `parallel_portable::{stage_d, inner_codes}`.
#[inline]
#[target_feature(enable = "avx2")]
fn stage_d(v: [__m256i; 8], t: &NttTables, set: usize, final_block: bool) -> [__m256i; 16] {
    // SAFETY: AVX2 is enabled on this function.
    let v = unsafe { stage_d_butterflies(v, t) };
    let constants = &t.constant_terms[usize::from(final_block)][set];
    let mut out = [_mm256_setzero_si256(); 8];
    for m in 0..8 {
        out[m] = lift(_mm256_add_epi16(
            v[BIT_REVERSE_8[m]],
            load_lanes(&constants[m]),
        ));
    }
    let (k185, k233) = (_mm256_set1_epi16(185), _mm256_set1_epi16(233));
    let mut zp = [_mm256_setzero_si256(); 16];
    for m in 0..8 {
        zp[m] = _mm256_mullo_epi16(out[m], k185);
    }
    for m in 0..4 {
        let a = _mm256_mullo_epi16(out[m], k233);
        let b = _mm256_mullo_epi16(out[m + 4], k233);
        zp[8 + m] = _mm256_blend_epi16::<0xaa>(a, _mm256_slli_epi32::<16>(b));
        zp[12 + m] = _mm256_blend_epi16::<0xaa>(_mm256_srli_epi32::<16>(a), b);
    }
    zp
}

/// Stage D's 16-point DFT over j1 on one set: the in-register butterfly (halves swapped with
/// `vperm2i128`), then three stages between registers.
///
/// # Safety
/// The CPU must support AVX2. Always inlined (so not a `#[target_feature]` function):
/// both the AVX2 and the AVX-512 kernel get their own copy, compiled with their features.
#[inline(always)]
pub(super) unsafe fn stage_d_butterflies(mut v: [__m256i; 8], t: &NttTables) -> [__m256i; 8] {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        for (r, reg) in v.iter_mut().enumerate() {
            let swapped = _mm256_permute2x128_si256::<0x01>(*reg, *reg);
            let sum = _mm256_add_epi16(*reg, swapped);
            let mut diff = _mm256_sub_epi16(swapped, *reg);
            if r > 0 {
                diff = mul_scalar(diff, t.beta[r]);
            }
            *reg = _mm256_blend_epi32::<0xf0>(sum, diff);
        }
        butterflies(&mut v, 4, 4, &t.gamma);
        v
    }
}

/// `x <<< R` on 32-bit lanes (`RC` = 32 − R).
#[inline]
#[target_feature(enable = "avx2")]
fn rotl128<const R: i32, const RC: i32>(x: __m128i) -> __m128i {
    _mm_or_si128(_mm_slli_epi32::<R>(x), _mm_srli_epi32::<RC>(x))
}

#[inline]
#[target_feature(enable = "avx2")]
fn rotl256<const R: i32, const RC: i32>(x: __m256i) -> __m256i {
    _mm256_or_si256(_mm256_slli_epi32::<R>(x), _mm256_srli_epi32::<RC>(x))
}

/// One step with four lanes in `xmm` registers; `SHUF` is the `vpshufd` immediate of `j ⊕ c`.
#[inline]
#[target_feature(enable = "avx2")]
fn step4<
    const R: i32,
    const RC: i32,
    const S: i32,
    const SC: i32,
    const SHUF: i32,
    const MAJ: bool,
>(
    st: &mut [__m128i; 4],
    w: __m128i,
) {
    let [a, b, c, d] = *st;
    let rotated = rotl128::<R, RC>(a);
    let f = if MAJ {
        // b and c are older than a: (b | c) and (b & c) are off the critical path.
        _mm_or_si128(_mm_and_si128(a, _mm_or_si128(b, c)), _mm_and_si128(b, c))
    } else {
        _mm_xor_si128(_mm_and_si128(_mm_xor_si128(b, c), a), c)
    };
    let sum = _mm_add_epi32(_mm_add_epi32(d, w), f);
    let new_a = _mm_add_epi32(rotl128::<S, SC>(sum), _mm_shuffle_epi32::<SHUF>(rotated));
    *st = [new_a, rotated, b, c];
}

/// One step with eight lanes in `ymm` registers: `j ⊕ c` swaps the 128-bit halves when c ≥ 4
/// (`SWAP`) and then shuffles within them by c mod 4 (`SHUF`, skipped when 0).
#[inline]
#[target_feature(enable = "avx2")]
fn step8<
    const R: i32,
    const RC: i32,
    const S: i32,
    const SC: i32,
    const SWAP: bool,
    const SHUF: i32,
    const MAJ: bool,
>(
    st: &mut [__m256i; 4],
    w: __m256i,
) {
    let [a, b, c, d] = *st;
    let rotated = rotl256::<R, RC>(a);
    let f = if MAJ {
        // b and c are older than a: (b | c) and (b & c) are off the critical path.
        _mm256_or_si256(
            _mm256_and_si256(a, _mm256_or_si256(b, c)),
            _mm256_and_si256(b, c),
        )
    } else {
        _mm256_xor_si256(_mm256_and_si256(_mm256_xor_si256(b, c), a), c)
    };
    let sum = _mm256_add_epi32(_mm256_add_epi32(d, w), f);
    let mut partner = rotated;
    if SWAP {
        partner = _mm256_permute4x64_epi64::<0x4e>(partner);
    }
    if SHUF != xor_shuffle_imm(0) {
        partner = _mm256_shuffle_epi32::<SHUF>(partner);
    }
    let new_a = _mm256_add_epi32(rotl256::<S, SC>(sum), partner);
    *st = [new_a, rotated, b, c];
}

/// The 36 steps with every rotation and shuffle an immediate (from the const tables).
macro_rules! steps {
    (4, $st:ident, $w:ident; $($k:literal)*) => {$(
        step4::<
            { step_params($k).0 as i32 },
            { 32 - step_params($k).0 as i32 },
            { step_params($k).1 as i32 },
            { 32 - step_params($k).1 as i32 },
            { xor_shuffle_imm(lane_permutation(4, $k)) },
            { step_params($k).2 },
        >(&mut $st, $w[$k]);
    )*};
    (8, $st:ident, $w:ident; $($k:literal)*) => {$(
        step8::<
            { step_params($k).0 as i32 },
            { 32 - step_params($k).0 as i32 },
            { step_params($k).1 as i32 },
            { 32 - step_params($k).1 as i32 },
            { lane_permutation(8, $k) >= 4 },
            { xor_shuffle_imm(lane_permutation(8, $k) % 4) },
            { step_params($k).2 },
        >(&mut $st, $w[$k]);
    )*};
}

#[target_feature(enable = "avx2")]
fn compress_avx2<const L: usize>(state: &mut State<L>, blocks: &[u8], final_block: bool) {
    let t = tables(L);
    if L == 4 {
        let mut st = [_mm_setzero_si128(); 4];
        for (reg, row) in st.iter_mut().zip(state.iter()) {
            // SAFETY: L == 4 here, so a row is 16 bytes (unaligned load).
            *reg = unsafe { _mm_loadu_si128(row.as_ptr().cast()) };
        }
        for block in blocks.chunks_exact(64) {
            // SAFETY: AVX2 is enabled on this function.
            let u = unsafe { stage_a::<4>(block, t) };
            let zp = stage_d(transpose(&u[..8]), t, 0, final_block);
            let mut w = [_mm_setzero_si128(); 36];
            // W[k] = Z[P[k]]: the half of zp[P[k] / 2] named by P[k] mod 2 (constant indices).
            macro_rules! gather {
                ($($k:literal)*) => {$(
                    w[$k] = if PERMUTATION[$k] % 2 == 0 {
                        _mm256_castsi256_si128(zp[PERMUTATION[$k] / 2])
                    } else {
                        _mm256_extracti128_si256::<1>(zp[PERMUTATION[$k] / 2])
                    };
                )*};
            }
            gather!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27
                28 29 30 31);
            w[32..].copy_from_slice(&st);
            for (i, reg) in st.iter_mut().enumerate() {
                *reg = _mm_xor_si128(*reg, load16(&block[16 * i..16 * i + 16]));
            }
            steps!(4, st, w; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23
                24 25 26 27 28 29 30 31 32 33 34 35);
        }
        for (reg, row) in st.iter().zip(state.iter_mut()) {
            // SAFETY: L == 4 here, so a row is 16 bytes (unaligned store).
            unsafe { _mm_storeu_si128(row.as_mut_ptr().cast(), *reg) };
        }
    } else {
        let mut st = [_mm256_setzero_si256(); 4];
        for (reg, row) in st.iter_mut().zip(state.iter()) {
            // SAFETY: L == 8 here, so a row is 32 bytes (unaligned load).
            *reg = unsafe { _mm256_loadu_si256(row.as_ptr().cast()) };
        }
        for block in blocks.chunks_exact(128) {
            // SAFETY: AVX2 is enabled on this function.
            let u = unsafe { stage_a::<8>(block, t) };
            let z0 = stage_d(transpose(&u[..8]), t, 0, final_block);
            let z1 = stage_d(transpose(&u[8..]), t, 1, final_block);
            let mut w = [_mm256_setzero_si256(); 36];
            for k in 0..32 {
                let i = PERMUTATION[k];
                w[k] = if i % 2 == 0 {
                    _mm256_permute2x128_si256::<0x20>(z0[i / 2], z1[i / 2])
                } else {
                    _mm256_permute2x128_si256::<0x31>(z0[i / 2], z1[i / 2])
                };
            }
            w[32..].copy_from_slice(&st);
            for (i, reg) in st.iter_mut().enumerate() {
                *reg = _mm256_xor_si256(*reg, load32(&block[32 * i..32 * i + 32]));
            }
            steps!(8, st, w; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23
                24 25 26 27 28 29 30 31 32 33 34 35);
        }
        for (reg, row) in st.iter().zip(state.iter_mut()) {
            // SAFETY: L == 8 here, so a row is 32 bytes (unaligned store).
            unsafe { _mm256_storeu_si256(row.as_mut_ptr().cast(), *reg) };
        }
    }
}
