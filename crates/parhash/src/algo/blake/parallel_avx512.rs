//! BLAKE-384/512's internally parallel form with AVX-512 (F/BW/VL): rows of four 64-bit words in
//! 256-bit registers as in the AVX2 form, but every rotation is one `vprorq`, and the message
//! operands of a whole step come from one `vpermt2q` that picks eight of the 16 message words
//! held in two 512-bit registers, followed by one XOR with the step's constants.

/// BLAKE-384/512 on 256-bit rows with AVX-512VL rotates and register-resident message gathers.
pub mod blake512 {
    use core::arch::x86_64::*;

    use super::super::{C512, MSG_CONST512, MSG_INDEX64, ROUNDS512};
    use crate::platform::Avx512;

    super::super::rows::entry_point!(Avx512, u64, 128, u128, compress_avx512);

    /// The eight message operands of one step: `vpermt2q` over the 16 words, XOR constants.
    #[inline(always)]
    unsafe fn operands(mlo: __m512i, mhi: __m512i, idx: &[i64; 8], cst: &[u64; 8]) -> __m512i {
        // SAFETY: AVX-512F enabled in the caller; both tables have eight 64-bit entries.
        unsafe {
            let idx = _mm512_loadu_si512(idx.as_ptr().cast());
            _mm512_xor_si512(
                _mm512_permutex2var_epi64(mlo, idx, mhi),
                _mm512_loadu_si512(cst.as_ptr().cast()),
            )
        }
    }

    /// Four G functions side by side.
    #[inline(always)]
    unsafe fn g4(a: &mut __m256i, b: &mut __m256i, c: &mut __m256i, d: &mut __m256i, mc: __m512i) {
        // SAFETY: AVX-512F/VL enabled in the caller.
        unsafe {
            *a = _mm256_add_epi64(_mm256_add_epi64(*a, *b), _mm512_castsi512_si256(mc));
            *d = _mm256_ror_epi64::<32>(_mm256_xor_si256(*d, *a));
            *c = _mm256_add_epi64(*c, *d);
            *b = _mm256_ror_epi64::<25>(_mm256_xor_si256(*b, *c));
            *a = _mm256_add_epi64(_mm256_add_epi64(*a, *b), _mm512_extracti64x4_epi64::<1>(mc));
            *d = _mm256_ror_epi64::<16>(_mm256_xor_si256(*d, *a));
            *c = _mm256_add_epi64(*c, *d);
            *b = _mm256_ror_epi64::<11>(_mm256_xor_si256(*b, *c));
        }
    }

    /// # Safety
    /// The CPU must support AVX-512 F, BW and VL.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl")]
    unsafe fn compress_avx512(h: &mut [u64; 8], blocks: &[[u8; 128]], bits_before: u128) {
        // Byte order within each 64-bit word: the message is big-endian.
        let bswap = _mm512_set4_epi32(0x08090a0b, 0x0c0d0e0f, 0x00010203, 0x04050607);
        super::super::rows::compress_rows!(h, blocks, bits_before; blake512 rows;
            MSG_INDEX64 in two __m512i: _mm512_loadu_si512, _mm512_shuffle_epi8, bswap)
    }
}
