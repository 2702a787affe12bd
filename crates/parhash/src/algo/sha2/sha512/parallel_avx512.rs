//! `parallel-avx512`: the SHA-512 `parallel` form with the schedule in 128-bit registers using
//! AVX-512 VL (`vprorq` rotates a lane in one instruction, `vpternlogq` XORs three vectors).

use core::arch::x86_64::*;

use super::parallel::{rounds8, vector_kernel_body};
use super::sequential::{big_sigma0, big_sigma1, ch, maj, round};
use crate::platform::Avx512;

/// Compresses whole 128-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(token: Avx512, state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    let _ = token;
    // SAFETY: the `Avx512` token proves AVX-512 F/VL and AVX2, which implies SSSE3 and SSE4.1.
    unsafe { compress_blocks_avx512(state, blocks) }
}

/// σ0 on two lanes: `rotr 1 ^ rotr 8 ^ shr 7`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn sigma0(x: __m128i) -> __m128i {
    _mm_ternarylogic_epi64::<0x96>(
        _mm_ror_epi64::<1>(x),
        _mm_ror_epi64::<8>(x),
        _mm_srli_epi64::<7>(x),
    )
}

/// σ1 on two lanes: `rotr 19 ^ rotr 61 ^ shr 6`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn sigma1(x: __m128i) -> __m128i {
    _mm_ternarylogic_epi64::<0x96>(
        _mm_ror_epi64::<19>(x),
        _mm_ror_epi64::<61>(x),
        _mm_srli_epi64::<6>(x),
    )
}

// The last group's schedule registers are written and never read again.
/// # Safety
/// The CPU must support AVX-512 F and VL, SSSE3 and SSE4.1.
#[allow(unused_assignments)]
#[target_feature(enable = "avx512f,avx512vl,sse2,ssse3,sse4.1")]
unsafe fn compress_blocks_avx512(state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    vector_kernel_body!(state, blocks, sigma0, sigma1)
}
