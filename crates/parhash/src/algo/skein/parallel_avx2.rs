//! Threefish-512's internally parallel form ([`super::parallel`]) on 128-bit registers with
//! AVX2: one word pair per register (the crate-private `xmm` module), so one instruction does
//! two MIX steps. AVX2 has no 64-bit rotate; a per-lane rotation is `vpsllvq` + `vpsrlvq` +
//! `vpor`.

use core::arch::x86_64::*;

use super::xmm::Rotate;
use crate::platform::Avx2;

impl Rotate for Avx2 {
    #[inline(always)]
    fn rotl(self, v: __m128i, counts: [u32; 2]) -> __m128i {
        // SAFETY: an `Avx2` token exists only where this CPU has AVX2 (not switched off).
        unsafe {
            let left = _mm_set_epi64x(counts[1] as i64, counts[0] as i64);
            let right = _mm_sub_epi64(_mm_set1_epi64x(64), left);
            _mm_or_si128(_mm_sllv_epi64(v, left), _mm_srlv_epi64(v, right))
        }
    }
}

super::xmm::pair_kernel!(Avx2, "avx2");
