//! The lane-parallel form of Keccak-f\[1600\] on AVX2. A row of five lanes does not fit one
//! 256-bit register, so each row `y` is split: `lo[y]` holds lanes `x = 0..3`, element 0 of
//! `hi[y]` holds lane 4 (its other elements are don't-care). The steps act on whole registers:
//!
//! - θ: column parities with XORs over the five rows, the neighbour columns with `vpermq` and a
//!   blend that brings lane 4 in, the rotation by one as shift-shift-or;
//! - ρ: `vpsllvq`/`vpsrlvq` with each register's offsets (AVX2 has no 64-bit rotate);
//! - π: every output row takes one lane from each input row (`B[x, y] = A[x + 3y, x]`): each
//!   lane is moved into place with `vpermq` and merged with `vpblendd`;
//! - χ: the row shifted by one and by two lanes (permute plus blend across lo/hi), then
//!   `vpandn` and `vpxor`.
//!
//! AVX2 lacks AVX-512's two-source permutes, rotates and ternary logic, so π and the rotations
//! cost several instructions each: see BENCHMARKS.md for how this compares with the scalar form.

use core::arch::x86_64::*;

use super::{RHO, ROUND_CONSTANTS};
use crate::platform::Avx2;

/// `vpermq` immediate: element i of the result is element `sel[i]` of the source.
const fn perm(sel: [i32; 4]) -> i32 {
    sel[0] | (sel[1] << 2) | (sel[2] << 4) | (sel[3] << 6)
}

/// `vpblendd` immediate taking 64-bit element `i` from the second operand.
const fn take64(i: i32) -> i32 {
    0b11 << (2 * i)
}

macro_rules! rotl {
    ($v:expr, $n:expr) => {{
        let v = $v;
        _mm256_or_si256(_mm256_sll_epi64(v, $n.0), _mm256_srl_epi64(v, $n.1))
    }};
}

/// XOR of five registers.
macro_rules! xor5 {
    ($v:expr) => {{
        let v = $v;
        _mm256_xor_si256(
            _mm256_xor_si256(_mm256_xor_si256(v[0], v[1]), _mm256_xor_si256(v[2], v[3])),
            v[4],
        )
    }};
}

/// π's source for lane `x` of output row `k`: column `(x + 3k) mod 5` of input row `x`,
/// broadcast to every element (the blend then keeps element `x`).
macro_rules! pi_lane {
    ($m_lo:ident, $m_hi:ident, $x:literal, $k:literal) => {{
        const COL: usize = ($x + 3 * $k) % 5;
        const BROADCAST: i32 = if COL < 4 { COL as i32 * 0x55 } else { 0 };
        let src = if COL < 4 { $m_lo[$x] } else { $m_hi[$x] };
        _mm256_permute4x64_epi64::<BROADCAST>(src)
    }};
}

/// Output row `k` of π as `(lo, hi)`.
macro_rules! pi_row {
    ($m_lo:ident, $m_hi:ident, $k:literal) => {{
        let l01 = _mm256_blend_epi32::<{ take64(1) }>(
            pi_lane!($m_lo, $m_hi, 0, $k),
            pi_lane!($m_lo, $m_hi, 1, $k),
        );
        let l012 = _mm256_blend_epi32::<{ take64(2) }>(l01, pi_lane!($m_lo, $m_hi, 2, $k));
        let l0123 = _mm256_blend_epi32::<{ take64(3) }>(l012, pi_lane!($m_lo, $m_hi, 3, $k));
        (l0123, pi_lane!($m_lo, $m_hi, 4, $k))
    }};
}

macro_rules! rotlv {
    ($v:expr, $n:expr) => {{
        let v = $v;
        _mm256_or_si256(_mm256_sllv_epi64(v, $n.0), _mm256_srlv_epi64(v, $n.1))
    }};
}

super::bmi2::entry_point!(Avx2, compress_blocks_avx2);

/// # Safety
/// The CPU must support AVX2. `rate` must be a multiple of 8, at most 200, and `blocks.len()`
/// a multiple of `rate` (checked by the caller).
#[target_feature(enable = "avx2")]
unsafe fn compress_blocks_avx2(state: &mut [u64; 25], blocks: &[u8], rate: usize) {
    crate::platform::align_frame();
    // Row registers: state lanes are copied in and out through plain arrays.
    let mut lo = [_mm256_setzero_si256(); 5];
    let mut hi = [_mm256_setzero_si256(); 5];
    for y in 0..5 {
        let l = &state[5 * y..5 * y + 5];
        lo[y] = _mm256_setr_epi64x(l[0] as i64, l[1] as i64, l[2] as i64, l[3] as i64);
        hi[y] = _mm256_setr_epi64x(l[4] as i64, 0, 0, 0);
    }
    let shift = |n: u32| {
        (
            _mm_cvtsi32_si128(n as i32),
            _mm_cvtsi32_si128(((64 - n) % 64) as i32),
        )
    };
    let rot1 = shift(1);
    let rho_lo = [0, 1, 2, 3, 4].map(|y| {
        let r = |x: usize| RHO[5 * y + x] as i64;
        let l = |x: usize| ((64 - RHO[5 * y + x]) % 64) as i64;
        (
            _mm256_setr_epi64x(r(0), r(1), r(2), r(3)),
            _mm256_setr_epi64x(l(0), l(1), l(2), l(3)),
        )
    });
    let rho_hi = [0, 1, 2, 3, 4].map(|y| shift(RHO[5 * y + 4]));
    let rate_lanes = rate / 8;

    for block in blocks.chunks_exact(rate) {
        let mut lanes = [0u64; 25];
        for (lane, bytes) in lanes.iter_mut().zip(block.chunks_exact(8)).take(rate_lanes) {
            *lane = u64::from_le_bytes(bytes.try_into().expect("8-byte chunk"));
        }
        for y in 0..5 {
            let l = &lanes[5 * y..5 * y + 5];
            let add = _mm256_setr_epi64x(l[0] as i64, l[1] as i64, l[2] as i64, l[3] as i64);
            lo[y] = _mm256_xor_si256(lo[y], add);
            hi[y] = _mm256_xor_si256(hi[y], _mm256_setr_epi64x(l[4] as i64, 0, 0, 0));
        }

        for rc in ROUND_CONSTANTS {
            // θ: C[x] parities; D[x] = C[x - 1] ^ rotl(C[x + 1], 1).
            let c_lo = xor5!(lo);
            let c_hi = xor5!(hi);
            let c4 = _mm256_permute4x64_epi64::<0>(c_hi); // C4 everywhere
            let prev_lo = _mm256_blend_epi32::<{ take64(0) }>(
                _mm256_permute4x64_epi64::<{ perm([3, 0, 1, 2]) }>(c_lo),
                c4,
            ); // [C4, C0, C1, C2]
            let next_lo = _mm256_blend_epi32::<{ take64(3) }>(
                _mm256_permute4x64_epi64::<{ perm([1, 2, 3, 0]) }>(c_lo),
                c4,
            ); // [C1, C2, C3, C4]
            let d_lo = _mm256_xor_si256(prev_lo, rotl!(next_lo, rot1));
            let d_hi = _mm256_xor_si256(
                _mm256_permute4x64_epi64::<{ perm([3, 3, 3, 3]) }>(c_lo),
                rotl!(c_lo, rot1),
            ); // element 0: C3 ^ rotl(C0, 1)
               // θ applied, then ρ.
            let mut m_lo = [_mm256_setzero_si256(); 5];
            let mut m_hi = [_mm256_setzero_si256(); 5];
            for y in 0..5 {
                m_lo[y] = rotlv!(_mm256_xor_si256(lo[y], d_lo), rho_lo[y]);
                m_hi[y] = rotl!(_mm256_xor_si256(hi[y], d_hi), rho_hi[y]);
            }
            // π: output row k, lane x = source row x, column (x + 3k) mod 5.
            let b = [
                pi_row!(m_lo, m_hi, 0),
                pi_row!(m_lo, m_hi, 1),
                pi_row!(m_lo, m_hi, 2),
                pi_row!(m_lo, m_hi, 3),
                pi_row!(m_lo, m_hi, 4),
            ];
            // χ along each row, ι on lane (0, 0).
            for y in 0..5 {
                let (row_lo, row_hi) = b[y];
                let hi_b = _mm256_permute4x64_epi64::<0>(row_hi); // lane 4 everywhere
                let next1 = _mm256_blend_epi32::<{ take64(3) }>(
                    _mm256_permute4x64_epi64::<{ perm([1, 2, 3, 0]) }>(row_lo),
                    hi_b,
                ); // [1, 2, 3, 4]
                let next2 = _mm256_blend_epi32::<{ take64(2) }>(
                    _mm256_permute4x64_epi64::<{ perm([2, 3, 0, 0]) }>(row_lo),
                    hi_b,
                ); // [2, 3, 4, 0]
                lo[y] = _mm256_xor_si256(row_lo, _mm256_andnot_si256(next1, next2));
                // Lane 4: b4 ^ (!b0 & b1).
                let b1 = _mm256_permute4x64_epi64::<{ perm([1, 1, 1, 1]) }>(row_lo);
                hi[y] = _mm256_xor_si256(row_hi, _mm256_andnot_si256(row_lo, b1));
            }
            lo[0] = _mm256_xor_si256(lo[0], _mm256_setr_epi64x(rc as i64, 0, 0, 0));
        }
    }

    for y in 0..5 {
        let mut out = [0i64; 4];
        // SAFETY: `out` is four i64 (32 bytes); `storeu` has no alignment requirement.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), lo[y]) };
        for (x, v) in out.iter().enumerate() {
            state[5 * y + x] = *v as u64;
        }
        state[5 * y + 4] = _mm256_extract_epi64::<0>(hi[y]) as u64;
    }
}
