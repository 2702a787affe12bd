//! `parallel-sse41`: the SHA-512 `parallel` form with the schedule in SSE registers, two words
//! each. SSE has no vector rotate, so each rotation is two shifts and an OR.

use core::arch::x86_64::*;

use super::parallel::{rounds8, vector_kernel_body};
use super::sequential::{big_sigma0, big_sigma1, ch, maj, round};
use crate::platform::Sse41;

/// Compresses whole 128-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(token: Sse41, state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    let _ = token;
    // SAFETY: the `Sse41` token proves this CPU has SSE4.1 and SSSE3 (SSE2 is x86_64 baseline).
    unsafe { compress_blocks_sse41(state, blocks) }
}

#[inline]
#[target_feature(enable = "sse2")]
fn rotr<const R: i32, const L: i32>(x: __m128i) -> __m128i {
    _mm_or_si128(_mm_srli_epi64::<R>(x), _mm_slli_epi64::<L>(x))
}

/// σ0 on two lanes: `rotr 1 ^ rotr 8 ^ shr 7`.
#[inline]
#[target_feature(enable = "sse2")]
fn sigma0(x: __m128i) -> __m128i {
    _mm_xor_si128(
        _mm_xor_si128(rotr::<1, 63>(x), rotr::<8, 56>(x)),
        _mm_srli_epi64::<7>(x),
    )
}

/// σ1 on two lanes: `rotr 19 ^ rotr 61 ^ shr 6`.
#[inline]
#[target_feature(enable = "sse2")]
fn sigma1(x: __m128i) -> __m128i {
    _mm_xor_si128(
        _mm_xor_si128(rotr::<19, 45>(x), rotr::<61, 3>(x)),
        _mm_srli_epi64::<6>(x),
    )
}

// The last group's schedule registers are written and never read again.
/// # Safety
/// The CPU must support SSSE3 and SSE4.1.
#[allow(unused_assignments)]
#[target_feature(enable = "sse2,ssse3,sse4.1")]
unsafe fn compress_blocks_sse41(state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    vector_kernel_body!(state, blocks, sigma0, sigma1)
}
