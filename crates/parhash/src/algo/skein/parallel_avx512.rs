//! Threefish-512's internally parallel form ([`super::parallel`]) on 128-bit registers with
//! AVX-512 F/VL: as [`super::parallel_avx2`], but the per-lane rotation is one `vprolvq`.

use core::arch::x86_64::*;

use super::xmm::Rotate;
use crate::platform::Avx512;

impl Rotate for Avx512 {
    #[inline(always)]
    fn rotl(self, v: __m128i, counts: [u32; 2]) -> __m128i {
        // SAFETY: an `Avx512` token exists only where this CPU has AVX-512 F/VL (not switched
        // off).
        unsafe { _mm_rolv_epi64(v, _mm_set_epi64x(counts[1] as i64, counts[0] as i64)) }
    }
}

super::xmm::pair_kernel!(Avx512, "avx512f,avx512vl");
