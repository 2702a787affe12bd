//! BLAKE-256's internally parallel form on SSE4.1/SSSE3: each row of the 4x4 state is one 128-bit
//! register, so one vector instruction does one step of the four column G functions at once.
//! Rotations by 16 and 8 are byte shuffles (`pshufb`), by 12 and 7 shift/shift/or. The
//! diagonal step lines up the diagonals by rotating rows b, c, d with `pshufd`. SSE has no
//! variable permute across the 16 message words, so each round's message operands are gathered
//! with scalar loads (`pinsrd`) and XORed with a precomputed constant vector.

/// BLAKE-224/256 on 128-bit rows.
pub mod blake256 {
    use core::arch::x86_64::*;

    use super::super::{load_be32, C256, MSG_CONST256, MSG_INDEX, ROUNDS256};
    use crate::platform::Sse41;

    super::super::rows::entry_point!(Sse41, u32, 64, u64, compress_sse41);

    #[inline(always)]
    unsafe fn ror16(x: __m128i) -> __m128i {
        // SAFETY: the caller is compiled with SSSE3.
        unsafe {
            _mm_shuffle_epi8(
                x,
                _mm_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13),
            )
        }
    }

    #[inline(always)]
    unsafe fn ror8(x: __m128i) -> __m128i {
        // SAFETY: the caller is compiled with SSSE3.
        unsafe {
            _mm_shuffle_epi8(
                x,
                _mm_setr_epi8(1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12),
            )
        }
    }

    super::super::rows::shift_ror!(__m128i, _mm_or_si128, _mm_srli_epi32, _mm_slli_epi32);
    super::super::rows::gathered_operands!(
        __m128i,
        u32 as i32,
        _mm_xor_si128,
        _mm_setr_epi32,
        _mm_loadu_si128
    );

    /// Four G functions side by side.
    #[inline(always)]
    unsafe fn g4(
        a: &mut __m128i,
        b: &mut __m128i,
        c: &mut __m128i,
        d: &mut __m128i,
        mc0: __m128i,
        mc1: __m128i,
    ) {
        // SAFETY: SSE2/SSSE3 instructions, enabled in the caller.
        unsafe {
            *a = _mm_add_epi32(_mm_add_epi32(*a, *b), mc0);
            *d = ror16(_mm_xor_si128(*d, *a));
            *c = _mm_add_epi32(*c, *d);
            *b = ror::<12, 20>(_mm_xor_si128(*b, *c));
            *a = _mm_add_epi32(_mm_add_epi32(*a, *b), mc1);
            *d = ror8(_mm_xor_si128(*d, *a));
            *c = _mm_add_epi32(*c, *d);
            *b = ror::<7, 25>(_mm_xor_si128(*b, *c));
        }
    }

    /// # Safety
    /// The CPU must support SSE4.1 and SSSE3.
    #[target_feature(enable = "sse4.1,ssse3")]
    unsafe fn compress_sse41(h: &mut [u32; 8], blocks: &[[u8; 64]], bits_before: u64) {
        super::super::rows::compress_rows!(h, blocks, bits_before; blake256 rows; scalar loads)
    }
}
