//! The `parallel-avx512` form of SIMD: the plan of [`super::parallel_portable`] with AVX-512
//! (F, BW, VL).
//!
//! - NTT: stage A as in the AVX2 form (sixteen 16-bit lanes per `ymm`). For SIMD-384/512 the
//!   two halves of the transposed data ("sets") share one `zmm`, so the transpose, stage D, the
//!   lift and the inner codes run once on eight 512-bit registers instead of twice on 256-bit
//!   ones; SIMD-224/256 (one set) stays in `ymm`. The lift's "subtract 257 above 128" is a mask
//!   compare and a masked subtract.
//! - Feistel: one `xmm` (n = 4) or `ymm` (n = 8) per state word as in the AVX2 form, but each
//!   rotation is one `vprold` and IF / MAJ one `vpternlogd` (truth tables 0xCA / 0xE8), which
//!   shortens a step's dependency chain from about six instructions to four.

use core::arch::x86_64::*;

use super::parallel_avx2::{
    load16, load32, load_lanes, reduce, stage_a, stage_d_butterflies, transpose,
};
use super::twiddles::{tables, xor_shuffle_imm, NttTables, Twiddle, BIT_REVERSE_8};
use super::{lane_permutation, step_params, State, PERMUTATION};
use crate::platform::Avx512;

/// `vpternlogd` truth table of IF(x, y, z) = x ? y : z (x = 0xF0, y = 0xCC, z = 0xAA).
const IF_TABLE: i32 = 0xca;
/// `vpternlogd` truth table of MAJ(x, y, z).
const MAJ_TABLE: i32 = 0xe8;

/// Compresses whole blocks of 16·n bytes, all with the same `final_block` flag.
#[inline(never)]
pub fn compress_blocks<const L: usize>(
    token: Avx512,
    state: &mut State<L>,
    blocks: &[u8],
    final_block: bool,
) {
    let _ = token;
    debug_assert_eq!(blocks.len() % (16 * L), 0);
    // SAFETY: the `Avx512` token proves this CPU has AVX-512 F/BW/VL/DQ and AVX2 (and that
    // they are not switched off).
    unsafe { compress_avx512::<L>(state, blocks, final_block) }
}

/// `[a | b]`: two 16-lane tables side by side (set 0 low, set 1 high).
#[inline]
#[target_feature(enable = "avx2,avx512f")]
fn load_pair(a: &[i16; 16], b: &[i16; 16]) -> __m512i {
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(load_lanes(a)), load_lanes(b))
}

// ---- 256-bit NTT pieces (stage A; SIMD-224/256's stage D) ----

/// The exact lifted value (−128..=128): two reductions, then a masked subtract of 257.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
fn lift256(x: __m256i) -> __m256i {
    let r = reduce(reduce(x));
    let above = _mm256_cmpgt_epi16_mask(r, _mm256_set1_epi16(128));
    _mm256_mask_sub_epi16(r, above, r, _mm256_set1_epi16(257))
}

/// Stage D, constants, lift and inner codes of SIMD-224/256's single set:
/// `zp[q] = [Z(2q) | Z(2q+1)]`.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
fn stage_d256(v: [__m256i; 8], t: &NttTables, final_block: bool) -> [__m256i; 16] {
    // SAFETY: AVX2 is enabled on this function.
    let v = unsafe { stage_d_butterflies(v, t) };
    let constants = &t.constant_terms[usize::from(final_block)][0];
    let mut out = [_mm256_setzero_si256(); 8];
    for m in 0..8 {
        out[m] = lift256(_mm256_add_epi16(
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
        zp[8 + m] = _mm256_mask_blend_epi16(0xaaaa, a, _mm256_slli_epi32::<16>(b));
        zp[12 + m] = _mm256_mask_blend_epi16(0xaaaa, _mm256_srli_epi32::<16>(a), b);
    }
    zp
}

// ---- 512-bit NTT pieces (SIMD-384/512: set 0 in the low 256 bits, set 1 in the high) ----

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn mont512(a: __m512i, b: __m512i, b_qinv: __m512i) -> __m512i {
    let t = _mm512_mullo_epi16(a, b_qinv);
    _mm512_sub_epi16(
        _mm512_mulhi_epi16(a, b),
        _mm512_mulhi_epi16(t, _mm512_set1_epi16(257)),
    )
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn mul_scalar512(a: __m512i, w: Twiddle) -> __m512i {
    mont512(
        a,
        _mm512_set1_epi16(w.value),
        _mm512_set1_epi16(w.value_qinv),
    )
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn reduce512(x: __m512i) -> __m512i {
    _mm512_sub_epi16(
        _mm512_and_si512(x, _mm512_set1_epi16(255)),
        _mm512_srai_epi16::<8>(x),
    )
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn lift512(x: __m512i) -> __m512i {
    let r = reduce512(reduce512(x));
    let above = _mm512_cmpgt_epi16_mask(r, _mm512_set1_epi16(128));
    _mm512_mask_sub_epi16(r, above, r, _mm512_set1_epi16(257))
}

/// The same in-lane transpose on four 128-bit lanes at once.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn transpose512(u: &[__m512i; 8]) -> [__m512i; 8] {
    let b0 = _mm512_unpacklo_epi16(u[0], u[1]);
    let b1 = _mm512_unpackhi_epi16(u[0], u[1]);
    let b2 = _mm512_unpacklo_epi16(u[2], u[3]);
    let b3 = _mm512_unpackhi_epi16(u[2], u[3]);
    let b4 = _mm512_unpacklo_epi16(u[4], u[5]);
    let b5 = _mm512_unpackhi_epi16(u[4], u[5]);
    let b6 = _mm512_unpacklo_epi16(u[6], u[7]);
    let b7 = _mm512_unpackhi_epi16(u[6], u[7]);
    let c0 = _mm512_unpacklo_epi32(b0, b2);
    let c1 = _mm512_unpackhi_epi32(b0, b2);
    let c2 = _mm512_unpacklo_epi32(b1, b3);
    let c3 = _mm512_unpackhi_epi32(b1, b3);
    let c4 = _mm512_unpacklo_epi32(b4, b6);
    let c5 = _mm512_unpackhi_epi32(b4, b6);
    let c6 = _mm512_unpacklo_epi32(b5, b7);
    let c7 = _mm512_unpackhi_epi32(b5, b7);
    [
        _mm512_unpacklo_epi64(c0, c4),
        _mm512_unpackhi_epi64(c0, c4),
        _mm512_unpacklo_epi64(c1, c5),
        _mm512_unpackhi_epi64(c1, c5),
        _mm512_unpacklo_epi64(c2, c6),
        _mm512_unpackhi_epi64(c2, c6),
        _mm512_unpacklo_epi64(c3, c7),
        _mm512_unpackhi_epi64(c3, c7),
    ]
}

/// Stage D for both sets of SIMD-384/512 at once: `zp[q]` holds, in its four 128-bit lanes,
/// set 0's Z(2q), Z(2q+1), then set 1's Z(2q), Z(2q+1).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw")]
fn stage_d512(mut v: [__m512i; 8], t: &NttTables, final_block: bool) -> [__m512i; 16] {
    for (r, reg) in v.iter_mut().enumerate() {
        // Swap the 128-bit halves of each 256-bit half: lanes (1, 0, 3, 2).
        let swapped = _mm512_shuffle_i64x2::<0xb1>(*reg, *reg);
        let sum = _mm512_add_epi16(*reg, swapped);
        let mut diff = _mm512_sub_epi16(swapped, *reg);
        if r > 0 {
            diff = mul_scalar512(diff, t.beta[r]);
        }
        *reg = _mm512_mask_blend_epi32(0xf0f0, sum, diff);
    }
    let mut len = 4;
    while len >= 1 {
        let step = 4 / len;
        let mut start = 0;
        while start < 8 {
            super::parallel_portable::butterfly_span!(
                v, start, len; _mm512_add_epi16, _mm512_sub_epi16,
                |d, k| mul_scalar512(d, t.gamma[k * step])
            );
            start += 2 * len;
        }
        len /= 2;
    }
    let constants = &t.constant_terms[usize::from(final_block)];
    let mut out = [_mm512_setzero_si512(); 8];
    for m in 0..8 {
        let c = load_pair(&constants[0][m], &constants[1][m]);
        out[m] = lift512(_mm512_add_epi16(v[BIT_REVERSE_8[m]], c));
    }
    let (k185, k233) = (_mm512_set1_epi16(185), _mm512_set1_epi16(233));
    let mut zp = [_mm512_setzero_si512(); 16];
    for m in 0..8 {
        zp[m] = _mm512_mullo_epi16(out[m], k185);
    }
    for m in 0..4 {
        let a = _mm512_mullo_epi16(out[m], k233);
        let b = _mm512_mullo_epi16(out[m + 4], k233);
        zp[8 + m] = _mm512_mask_blend_epi16(0xaaaa_aaaa, a, _mm512_slli_epi32::<16>(b));
        zp[12 + m] = _mm512_mask_blend_epi16(0xaaaa_aaaa, _mm512_srli_epi32::<16>(a), b);
    }
    zp
}

// ---- Feistel ----

/// One step with four lanes in `xmm` registers; `SHUF` is the `vpshufd` immediate of `j ⊕ c`,
/// `F` the `vpternlogd` table of IF or MAJ.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
fn step4<const R: i32, const S: i32, const SHUF: i32, const F: i32>(
    st: &mut [__m128i; 4],
    w: __m128i,
) {
    let [a, b, c, d] = *st;
    let rotated = _mm_rol_epi32::<R>(a);
    let f = _mm_ternarylogic_epi32::<F>(a, b, c);
    let sum = _mm_add_epi32(_mm_add_epi32(d, w), f);
    let new_a = _mm_add_epi32(_mm_rol_epi32::<S>(sum), _mm_shuffle_epi32::<SHUF>(rotated));
    *st = [new_a, rotated, b, c];
}

/// One step with eight lanes in `ymm` registers: `j ⊕ c` swaps the 128-bit halves when c ≥ 4
/// (`SWAP`) and then shuffles within them by c mod 4 (`SHUF`, skipped when 0).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
fn step8<const R: i32, const S: i32, const SWAP: bool, const SHUF: i32, const F: i32>(
    st: &mut [__m256i; 4],
    w: __m256i,
) {
    let [a, b, c, d] = *st;
    let rotated = _mm256_rol_epi32::<R>(a);
    let f = _mm256_ternarylogic_epi32::<F>(a, b, c);
    let sum = _mm256_add_epi32(_mm256_add_epi32(d, w), f);
    let mut partner = rotated;
    if SWAP {
        partner = _mm256_permute4x64_epi64::<0x4e>(partner);
    }
    if SHUF != xor_shuffle_imm(0) {
        partner = _mm256_shuffle_epi32::<SHUF>(partner);
    }
    let new_a = _mm256_add_epi32(_mm256_rol_epi32::<S>(sum), partner);
    *st = [new_a, rotated, b, c];
}

/// `vpternlogd` table of step k's Boolean function.
const fn boolean_table(k: usize) -> i32 {
    if step_params(k).2 {
        MAJ_TABLE
    } else {
        IF_TABLE
    }
}

/// The 36 steps with every rotation, shuffle and truth table an immediate.
macro_rules! steps {
    (4, $st:ident, $w:ident; $($k:literal)*) => {$(
        step4::<
            { step_params($k).0 as i32 },
            { step_params($k).1 as i32 },
            { xor_shuffle_imm(lane_permutation(4, $k)) },
            { boolean_table($k) },
        >(&mut $st, $w[$k]);
    )*};
    (8, $st:ident, $w:ident; $($k:literal)*) => {$(
        step8::<
            { step_params($k).0 as i32 },
            { step_params($k).1 as i32 },
            { lane_permutation(8, $k) >= 4 },
            { xor_shuffle_imm(lane_permutation(8, $k) % 4) },
            { boolean_table($k) },
        >(&mut $st, $w[$k]);
    )*};
}

#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
fn compress_avx512<const L: usize>(state: &mut State<L>, blocks: &[u8], final_block: bool) {
    crate::platform::align_frame();
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
            let zp = stage_d256(transpose(&u[..8]), t, final_block);
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
            let mut both = [_mm512_setzero_si512(); 8];
            for (i, reg) in both.iter_mut().enumerate() {
                *reg = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(u[i]), u[8 + i]);
            }
            let zp = stage_d512(transpose512(&both), t, final_block);
            let mut w = [_mm256_setzero_si256(); 36];
            for k in 0..32 {
                let i = PERMUTATION[k];
                // Z(i) is 128-bit lanes (0, 2) of zp[i / 2] for even i, (1, 3) for odd i.
                w[k] = _mm512_castsi512_si256(if i % 2 == 0 {
                    _mm512_shuffle_i64x2::<0x08>(zp[i / 2], zp[i / 2])
                } else {
                    _mm512_shuffle_i64x2::<0x0d>(zp[i / 2], zp[i / 2])
                });
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
