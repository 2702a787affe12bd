//! BLAKE's internally parallel form on AVX2.
//!
//! - BLAKE-224/256 ([`blake256`]): rows are 128-bit registers as in the SSE4.1 form, but the
//!   message operands of a whole step (eight words: both halves of four G functions) are
//!   gathered in registers: the 16 message words sit in two 256-bit registers, `vpermd` picks
//!   from each and a blend keeps the right one, then one XOR adds the constants.
//! - BLAKE-384/512 ([`blake512`]): each row of four 64-bit words is one 256-bit register;
//!   rotations by 32 and 16 are shuffles, by 25 and 11 shift/shift/or; diagonals are lined up with
//!   `vpermq`. Message operands are gathered with scalar loads.

/// BLAKE-224/256 with register-resident message gathering.
pub mod blake256 {
    use core::arch::x86_64::*;

    use super::super::{C256, MSG_CONST256, MSG_INDEX32, ROUNDS256};
    use crate::platform::Avx2;

    super::super::rows::entry_point!(Avx2, u32, 64, u64, compress_avx2);

    super::super::rows::shift_ror!(__m128i, _mm_or_si128, _mm_srli_epi32, _mm_slli_epi32);

    /// The eight message operands of one step: `vpermd` from both halves, blend on index >= 8.
    #[inline(always)]
    unsafe fn operands(mlo: __m256i, mhi: __m256i, idx: &[i32; 8], cst: &[u32; 8]) -> __m256i {
        // SAFETY: AVX2 is enabled in the caller; both tables have eight 32-bit entries.
        unsafe {
            let idx = _mm256_loadu_si256(idx.as_ptr().cast());
            let lo = _mm256_permutevar8x32_epi32(mlo, idx);
            let hi = _mm256_permutevar8x32_epi32(mhi, idx);
            // Bit 3 of the index moved to the sign bit selects the upper half.
            let sel = _mm256_castsi256_ps(_mm256_slli_epi32::<28>(idx));
            let m = _mm256_castps_si256(_mm256_blendv_ps(
                _mm256_castsi256_ps(lo),
                _mm256_castsi256_ps(hi),
                sel,
            ));
            _mm256_xor_si256(m, _mm256_loadu_si256(cst.as_ptr().cast()))
        }
    }

    /// Four G functions side by side.
    #[inline(always)]
    unsafe fn g4(a: &mut __m128i, b: &mut __m128i, c: &mut __m128i, d: &mut __m128i, mc: __m256i) {
        // SAFETY: AVX2 enabled in the caller.
        unsafe {
            let rot16 = _mm_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
            let rot8 = _mm_setr_epi8(1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12);
            *a = _mm_add_epi32(_mm_add_epi32(*a, *b), _mm256_castsi256_si128(mc));
            *d = _mm_shuffle_epi8(_mm_xor_si128(*d, *a), rot16);
            *c = _mm_add_epi32(*c, *d);
            *b = ror::<12, 20>(_mm_xor_si128(*b, *c));
            *a = _mm_add_epi32(_mm_add_epi32(*a, *b), _mm256_extracti128_si256::<1>(mc));
            *d = _mm_shuffle_epi8(_mm_xor_si128(*d, *a), rot8);
            *c = _mm_add_epi32(*c, *d);
            *b = ror::<7, 25>(_mm_xor_si128(*b, *c));
        }
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn compress_avx2(h: &mut [u32; 8], blocks: &[[u8; 64]], bits_before: u64) {
        // Byte order within each 32-bit word: the message is big-endian.
        let bswap = _mm256_setr_epi8(
            3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10,
            9, 8, 15, 14, 13, 12,
        );
        super::super::rows::compress_rows!(h, blocks, bits_before; blake256 rows;
            MSG_INDEX32 in two __m256i: _mm256_loadu_si256, _mm256_shuffle_epi8, bswap)
    }
}

/// BLAKE-384/512 with one 256-bit register per row.
pub mod blake512 {
    use core::arch::x86_64::*;

    use super::super::{load_be64, C512, MSG_CONST512, MSG_INDEX, ROUNDS512};
    use crate::platform::Avx2;

    super::super::rows::entry_point!(Avx2, u64, 128, u128, compress_avx2);

    super::super::rows::shift_ror!(
        __m256i,
        _mm256_or_si256,
        _mm256_srli_epi64,
        _mm256_slli_epi64
    );
    super::super::rows::gathered_operands!(
        __m256i,
        u64 as i64,
        _mm256_xor_si256,
        _mm256_setr_epi64x,
        _mm256_loadu_si256
    );

    /// Four G functions side by side.
    #[inline(always)]
    unsafe fn g4(
        a: &mut __m256i,
        b: &mut __m256i,
        c: &mut __m256i,
        d: &mut __m256i,
        mc0: __m256i,
        mc1: __m256i,
    ) {
        // SAFETY: AVX2 enabled in the caller.
        unsafe {
            let rot16 = _mm256_setr_epi8(
                2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9, 2, 3, 4, 5, 6, 7, 0, 1, 10,
                11, 12, 13, 14, 15, 8, 9,
            );
            *a = _mm256_add_epi64(_mm256_add_epi64(*a, *b), mc0);
            *d = _mm256_shuffle_epi32::<0xB1>(_mm256_xor_si256(*d, *a));
            *c = _mm256_add_epi64(*c, *d);
            *b = ror::<25, 39>(_mm256_xor_si256(*b, *c));
            *a = _mm256_add_epi64(_mm256_add_epi64(*a, *b), mc1);
            *d = _mm256_shuffle_epi8(_mm256_xor_si256(*d, *a), rot16);
            *c = _mm256_add_epi64(*c, *d);
            *b = ror::<11, 53>(_mm256_xor_si256(*b, *c));
        }
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn compress_avx2(h: &mut [u64; 8], blocks: &[[u8; 128]], bits_before: u128) {
        crate::platform::align_frame();
        super::super::rows::compress_rows!(h, blocks, bits_before; blake512 rows; scalar loads)
    }
}
