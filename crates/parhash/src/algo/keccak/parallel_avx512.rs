//! The lane-parallel form of Keccak-f\[1600\] on AVX-512: the state is five 512-bit registers,
//! one per row (plane) `y`, holding lanes `x = 0..4` in its first five 64-bit elements (the other
//! three are don't-care and never flow into the first five). Each step acts on whole rows:
//!
//! - θ: column parities with two `vpternlogq` (three-way XOR), the two neighbour columns with
//!   `vpermq` and `vprolq`, and one more `vpternlogq` per row to apply them;
//! - ρ: one `vprolvq` per row with that row's five offsets;
//! - π: `B[x, y] = A[x + 3y, x]` moves lanes between rows. It is a transpose of the 5x5 matrix
//!   after a column shuffle in each row; both are folded into 14 two-source `vpermt2q`/`vpermq`;
//! - χ: `a ^ (!b & c)` is one `vpternlogq` per row, with `b` and `c` the row shifted by one and
//!   two lanes (`vpermq`);
//! - ι: XOR of a masked load of the round constant into row 0.

use core::arch::x86_64::*;

use super::{RHO, ROUND_CONSTANTS};
use crate::platform::Avx512;

/// `vpternlogq` truth tables (inputs a, b, c as bits 2, 1, 0 of the table index).
const XOR3: i32 = 0x96;
const CHI: i32 = 0xD2; // a ^ (!b & c)

/// Index vector for `vpermq`/`vpermt2q`, element 0 first.
macro_rules! idx {
    ($($i:expr),* $(,)?) => {{
        let [e0, e1, e2, e3, e4, e5, e6, e7]: [usize; 8] = [$($i),*];
        _mm512_setr_epi64(
            e0 as i64, e1 as i64, e2 as i64, e3 as i64, e4 as i64, e5 as i64, e6 as i64, e7 as i64,
        )
    }};
}

/// Column `(x + 3k) mod 5` of source row `x` lands in row `k` of π's output (at lane `x`).
const fn pi_col(x: usize, k: usize) -> usize {
    (x + 3 * k) % 5
}

super::bmi2::entry_point!(Avx512, compress_blocks_avx512);

/// # Safety
/// The CPU must support AVX-512F. `rate` must be a multiple of 8, at most 200, and
/// `blocks.len()` a multiple of `rate` (checked by the caller).
#[target_feature(enable = "avx512f")]
unsafe fn compress_blocks_avx512(state: &mut [u64; 25], blocks: &[u8], rate: usize) {
    const ROW: __mmask8 = 0x1f;
    let sp = state.as_mut_ptr().cast::<i64>();
    // SAFETY: rows y * 5 .. y * 5 + 5 lie inside the 25-lane state; masked-off elements are
    // neither read nor faulted on.
    let mut r = unsafe {
        [
            _mm512_maskz_loadu_epi64(ROW, sp),
            _mm512_maskz_loadu_epi64(ROW, sp.add(5)),
            _mm512_maskz_loadu_epi64(ROW, sp.add(10)),
            _mm512_maskz_loadu_epi64(ROW, sp.add(15)),
            _mm512_maskz_loadu_epi64(ROW, sp.add(20)),
        ]
    };

    // Lanes of each row that a block covers.
    let rate_lanes = rate / 8;
    let mut row_masks = [0 as __mmask8; 5];
    for (y, m) in row_masks.iter_mut().enumerate() {
        let n = rate_lanes.saturating_sub(5 * y).min(5);
        *m = ((1u32 << n) - 1) as __mmask8;
    }

    let rho = [0, 1, 2, 3, 4].map(|y| {
        idx!(
            RHO[5 * y] as usize,
            RHO[5 * y + 1] as usize,
            RHO[5 * y + 2] as usize,
            RHO[5 * y + 3] as usize,
            RHO[5 * y + 4] as usize,
            0,
            0,
            0
        )
    });
    let prev_col = idx!(4, 0, 1, 2, 3, 5, 6, 7);
    let next_col = idx!(1, 2, 3, 4, 0, 5, 6, 7);
    let next2_col = idx!(2, 3, 4, 0, 1, 5, 6, 7);
    // π stage 1: pairs (row 0, row 1) and (row 2, row 3) of output rows 0..3, and of row 4.
    let pair_a = |x: usize| {
        idx!(
            pi_col(x, 0),
            8 + pi_col(x + 1, 0),
            pi_col(x, 1),
            8 + pi_col(x + 1, 1),
            pi_col(x, 2),
            8 + pi_col(x + 1, 2),
            pi_col(x, 3),
            8 + pi_col(x + 1, 3)
        )
    };
    let pair_b = |x: usize| idx!(pi_col(x, 4), 8 + pi_col(x + 1, 4), 0, 0, 0, 0, 0, 0);
    let (pair01a, pair01b, pair23a, pair23b) = (pair_a(0), pair_b(0), pair_a(2), pair_b(2));
    // π stage 2: output row k = the two pairs of k, then lane 4 from source row 4.
    let join = [0usize, 1, 2, 3].map(|k| idx!(2 * k, 2 * k + 1, 8 + 2 * k, 9 + 2 * k, 0, 0, 0, 0));
    let join4 = idx!(0, 1, 8, 9, 0, 0, 0, 0);
    let from_row4 = [0usize, 1, 2, 3, 4].map(|k| idx!(0, 0, 0, 0, pi_col(4, k), 0, 0, 0));

    let rc_ptr = ROUND_CONSTANTS.as_ptr().cast::<i64>();
    for block in blocks.chunks_exact(rate) {
        let bp = block.as_ptr().cast::<i64>();
        for (y, (row, &mask)) in r.iter_mut().zip(row_masks.iter()).enumerate() {
            if mask != 0 {
                // SAFETY: row y starts at lane 5y < rate / 8, inside the block; lanes at or past
                // rate / 8 are masked off. `loadu` has no alignment requirement.
                let lanes = unsafe { _mm512_maskz_loadu_epi64(mask, bp.add(5 * y)) };
                *row = _mm512_xor_si512(*row, lanes);
            }
        }

        for round in 0..24 {
            // θ
            let c = _mm512_ternarylogic_epi64(r[0], r[1], r[2], XOR3);
            let c = _mm512_ternarylogic_epi64(c, r[3], r[4], XOR3);
            let c_prev = _mm512_permutexvar_epi64(prev_col, c);
            let c_next = _mm512_rol_epi64::<1>(_mm512_permutexvar_epi64(next_col, c));
            // ρ
            let m = [0, 1, 2, 3, 4].map(|y| {
                _mm512_rolv_epi64(
                    _mm512_ternarylogic_epi64(r[y], c_prev, c_next, XOR3),
                    rho[y],
                )
            });
            // π
            let p01a = _mm512_permutex2var_epi64(m[0], pair01a, m[1]);
            let p01b = _mm512_permutex2var_epi64(m[0], pair01b, m[1]);
            let p23a = _mm512_permutex2var_epi64(m[2], pair23a, m[3]);
            let p23b = _mm512_permutex2var_epi64(m[2], pair23b, m[3]);
            let mut b = [0, 1, 2, 3, 4].map(|k| {
                let four = if k < 4 {
                    _mm512_permutex2var_epi64(p01a, join[k], p23a)
                } else {
                    _mm512_permutex2var_epi64(p01b, join4, p23b)
                };
                _mm512_mask_permutexvar_epi64(four, 0x10, from_row4[k], m[4])
            });
            // χ
            for row in b.iter_mut() {
                let next = _mm512_permutexvar_epi64(next_col, *row);
                let next2 = _mm512_permutexvar_epi64(next2_col, *row);
                *row = _mm512_ternarylogic_epi64(*row, next, next2, CHI);
            }
            // ι
            // SAFETY: round < 24 indexes ROUND_CONSTANTS; only element 0 is read (mask 1).
            let rc = unsafe { _mm512_maskz_loadu_epi64(1, rc_ptr.add(round)) };
            b[0] = _mm512_xor_si512(b[0], rc);
            r = b;
        }
    }

    for (y, row) in r.iter().enumerate() {
        // SAFETY: as for the loads above: lanes 5y .. 5y + 5 of the state, the rest masked off.
        unsafe { _mm512_mask_storeu_epi64(sp.add(5 * y), ROW, *row) };
    }
}
