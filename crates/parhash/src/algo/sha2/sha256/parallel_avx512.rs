//! `parallel-avx512`: the `parallel` form with the schedule in 128-bit registers using AVX-512 VL
//! (`vprord` rotates a lane in one instruction, `vpternlogd` XORs three vectors in one).

use core::arch::x86_64::*;

use super::parallel::{rounds8, vector_kernel_body};
use super::sequential::{big_sigma0, big_sigma1, ch, maj, round};
use crate::platform::Avx512;

/// Compresses whole 64-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(token: Avx512, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let _ = token;
    // SAFETY: the `Avx512` token proves AVX-512 F/VL and AVX2, which implies SSSE3 and SSE4.1.
    unsafe { compress_blocks_avx512(state, blocks) }
}

/// σ0 on four lanes: `rotr 7 ^ rotr 18 ^ shr 3`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn sigma0(x: __m128i) -> __m128i {
    _mm_ternarylogic_epi32::<0x96>(
        _mm_ror_epi32::<7>(x),
        _mm_ror_epi32::<18>(x),
        _mm_srli_epi32::<3>(x),
    )
}

/// σ1 on four lanes: `rotr 17 ^ rotr 19 ^ shr 10`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn sigma1(x: __m128i) -> __m128i {
    _mm_ternarylogic_epi32::<0x96>(
        _mm_ror_epi32::<17>(x),
        _mm_ror_epi32::<19>(x),
        _mm_srli_epi32::<10>(x),
    )
}

// The last group's schedule registers are written and never read again.
/// # Safety
/// The CPU must support AVX-512 F and VL, SSSE3 and SSE4.1.
#[allow(unused_assignments)]
#[target_feature(enable = "avx512f,avx512vl,sse2,ssse3,sse4.1")]
unsafe fn compress_blocks_avx512(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    vector_kernel_body!(state, blocks, sigma0, sigma1)
}
