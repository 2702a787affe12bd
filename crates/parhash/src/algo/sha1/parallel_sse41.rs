//! SHA-1's `parallel` form in 128-bit registers (SSSE3/SSE4.1): the message schedule is
//! computed four words per vector instruction, four groups (16 rounds) ahead of the scalar
//! rounds, and handed over as `W[t] + K[t]` through an 80-word stack buffer. The vector steps of
//! group `g + 4` are placed among the scalar rounds of group `g`, so the out-of-order core runs
//! the two independent chains on its vector and integer ports side by side: the seed study's
//! "message expansion beside the rounds", with the SIMD unit as the second core.
//!
//! Per group: `W[t+3]` needs `W[t]` of the same group, so groups 4..8 take 0 in its place and
//! patch lane 3 with `rotl1(W[t])` afterwards; from group 8 on, the recurrence
//! `W[t] = rotl2(W[t-6] ^ W[t-16] ^ W[t-28] ^ W[t-32])` has no such dependency (see
//! [`super::parallel_portable`], the portable twin of this data flow).

use core::arch::x86_64::*;

use super::{round, rounds5, rounds80, K};
use crate::platform::Sse41;

/// Compresses whole 64-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(token: Sse41, state: &mut [u32; 5], blocks: &[[u8; 64]]) {
    let _ = token;
    for block in blocks {
        // SAFETY: the `Sse41` token proves this CPU has SSSE3 and SSE4.1 (and they are not
        // switched off).
        unsafe { compress_block(state, block) }
    }
}

/// Loads four big-endian message words (`W[4g..4g+4]`, lane `i` = `W[4g+i]`).
#[inline(always)]
pub(crate) unsafe fn load_group(bytes: &[u8]) -> __m128i {
    debug_assert!(bytes.len() >= 16);
    // SAFETY: `bytes` holds at least 16 bytes (unaligned load); the caller has SSSE3.
    unsafe {
        _mm_shuffle_epi8(
            _mm_loadu_si128(bytes.as_ptr().cast()),
            _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203),
        )
    }
}

#[inline(always)]
unsafe fn rotl<const L: i32, const R: i32>(x: __m128i) -> __m128i {
    // SAFETY: SSE2 is part of x86_64.
    unsafe { _mm_or_si128(_mm_slli_epi32::<L>(x), _mm_srli_epi32::<R>(x)) }
}

/// `W[4g..4g+4]` for `4 <= g < 8` from the four previous groups.
#[inline(always)]
pub(crate) unsafe fn next_group(w4: __m128i, w3: __m128i, w2: __m128i, w1: __m128i) -> __m128i {
    // SAFETY: SSE2/SSSE3 instructions, enabled in the caller.
    unsafe {
        let minus3 = _mm_srli_si128::<4>(w1); // W[t-3..t], W[t] taken as 0
        let minus14 = _mm_alignr_epi8::<8>(w3, w4);
        let x = rotl::<1, 31>(_mm_xor_si128(
            _mm_xor_si128(minus3, w2),
            _mm_xor_si128(minus14, w4),
        ));
        // Lane 3 lacks rotl1(W[t]) = rotl1(lane 0).
        _mm_xor_si128(x, rotl::<1, 31>(_mm_slli_si128::<12>(x)))
    }
}

/// `W[4g..4g+4]` for `g >= 8` from groups `g-1`, `g-2`, `g-4`, `g-7`, `g-8`.
#[inline(always)]
pub(crate) unsafe fn next_group_far(
    w8: __m128i,
    w7: __m128i,
    w4: __m128i,
    w2: __m128i,
    w1: __m128i,
) -> __m128i {
    // SAFETY: SSE2/SSSE3 instructions, enabled in the caller.
    unsafe {
        let minus6 = _mm_alignr_epi8::<8>(w1, w2);
        rotl::<2, 30>(_mm_xor_si128(
            _mm_xor_si128(minus6, w4),
            _mm_xor_si128(w7, w8),
        ))
    }
}

/// Round constants of group `g` in all four lanes.
#[inline(always)]
unsafe fn k_of(g: usize) -> __m128i {
    // SAFETY: SSE2 is part of x86_64.
    unsafe { _mm_set1_epi32(K[g / 5] as i32) }
}

/// One block. Also used by [`super::parallel_avx2`] for a final odd block.
///
/// # Safety
/// The CPU must support SSSE3 and SSE4.1.
#[target_feature(enable = "sse2,ssse3,sse4.1")]
pub(crate) unsafe fn compress_block(state: &mut [u32; 5], block: &[u8; 64]) {
    let mut wk = [0u32; 80];
    let mut w = [_mm_setzero_si128(); 20];
    for g in 0..4 {
        // SAFETY: SSSE3 is enabled here; `wk[4g..4g+4]` is in bounds (unaligned store).
        unsafe {
            w[g] = load_group(&block[16 * g..]);
            _mm_storeu_si128(
                wk[4 * g..].as_mut_ptr().cast(),
                _mm_add_epi32(w[g], k_of(g)),
            );
        }
    }
    // Called with constant `t` in order: at the first round of group `g`, first schedule group
    // `g + 4`, then hand out `W[t] + K[t]`.
    let mut wk_at = |t: usize| {
        let g = t / 4 + 4;
        if t % 4 == 0 && g < 20 {
            // SAFETY: this closure runs inside `compress_block`, compiled with SSSE3/SSE4.1;
            // `wk[4g..4g+4]` is in bounds.
            unsafe {
                w[g] = if g < 8 {
                    next_group(w[g - 4], w[g - 3], w[g - 2], w[g - 1])
                } else {
                    next_group_far(w[g - 8], w[g - 7], w[g - 4], w[g - 2], w[g - 1])
                };
                _mm_storeu_si128(
                    wk[4 * g..].as_mut_ptr().cast(),
                    _mm_add_epi32(w[g], k_of(g)),
                );
            }
        }
        wk[t]
    };
    rounds80!(state, wk_at);
}
