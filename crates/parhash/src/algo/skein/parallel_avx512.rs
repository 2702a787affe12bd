//! Threefish-512's internally parallel form ([`super::parallel`]) on 128-bit registers with
//! AVX-512 F/VL: as [`super::parallel_avx2`], but the per-lane rotation is one `vprolvq`.

use core::arch::x86_64::*;

use super::parallel::compress_generic;
use super::xmm::{Pair, Rotate};
use crate::platform::Avx512;

impl Rotate for Avx512 {
    #[inline(always)]
    fn rotl(self, v: __m128i, counts: [u32; 2]) -> __m128i {
        // SAFETY: an `Avx512` token exists only where this CPU has AVX-512 F/VL (not switched
        // off).
        unsafe { _mm_rolv_epi64(v, _mm_set_epi64x(counts[1] as i64, counts[0] as i64)) }
    }
}

/// # Safety
/// The CPU must support AVX-512 F and VL.
#[target_feature(enable = "avx512f,avx512vl")]
unsafe fn compress_avx512(
    token: Avx512,
    h: &mut [u64; 8],
    blocks: &[[u8; 64]],
    tweak: &mut [u64; 2],
    len: u64,
) {
    compress_generic::<Pair<Avx512>>(token, h, blocks, tweak, len);
}

/// UBI over whole blocks (see `sequential::threefish512::compress_blocks`).
#[inline(never)]
pub fn compress_blocks(
    token: Avx512,
    h: &mut [u64; 8],
    blocks: &[[u8; 64]],
    tweak: &mut [u64; 2],
    len: u64,
) {
    // SAFETY: the `Avx512` token proves this CPU has AVX-512 F/BW/VL/DQ (and it is not
    // switched off).
    unsafe { compress_avx512(token, h, blocks, tweak, len) }
}
