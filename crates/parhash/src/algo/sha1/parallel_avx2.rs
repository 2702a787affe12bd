//! SHA-1's `parallel` form in 256-bit registers (AVX2): the same schedule-ahead data flow as
//! [`super::parallel_sse41`], but each 256-bit register holds one group of *two* blocks (block
//! `i` in the low 128-bit half, block `i + 1` in the high half). The AVX2 byte shifts and
//! `vpalignr` act on each half separately, exactly what the two independent schedules need, so
//! one instruction stream computes 8 schedule words. Its steps run beside the scalar rounds of
//! the first block; the second block's rounds then find their whole schedule ready. A final odd
//! block goes through the 128-bit kernel (VEX-encoded here).

use core::arch::x86_64::*;

use super::{round, rounds5, rounds80, K};
use crate::platform::{Avx2, Bmi2};

/// Compresses whole 64-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(token: Avx2, bmi2: Bmi2, state: &mut [u32; 5], blocks: &[[u8; 64]]) {
    let _ = (token, bmi2);
    let mut pairs = blocks.chunks_exact(2);
    for pair in &mut pairs {
        // SAFETY: the tokens prove this CPU has AVX2 (and AVX) and BMI1/BMI2; not switched
        // off.
        unsafe { compress_pair(state, &pair[0], &pair[1]) }
    }
    if let [last] = pairs.remainder() {
        // SAFETY: AVX2 CPUs have SSSE3 and SSE4.1 (AVX requires them; Rust's `avx2` target
        // feature implies both), and the token proves AVX2.
        unsafe { super::parallel_sse41::compress_block(state, last) }
    }
}

#[inline(always)]
unsafe fn rotl<const L: i32, const R: i32>(x: __m256i) -> __m256i {
    // SAFETY: AVX2, enabled in the caller.
    unsafe { _mm256_or_si256(_mm256_slli_epi32::<L>(x), _mm256_srli_epi32::<R>(x)) }
}

/// `next_group` of [`super::parallel_sse41`] on both halves.
#[inline(always)]
unsafe fn next_group(w4: __m256i, w3: __m256i, w2: __m256i, w1: __m256i) -> __m256i {
    // SAFETY: AVX2, enabled in the caller.
    unsafe {
        let minus3 = _mm256_srli_si256::<4>(w1);
        let minus14 = _mm256_alignr_epi8::<8>(w3, w4);
        let x = rotl::<1, 31>(_mm256_xor_si256(
            _mm256_xor_si256(minus3, w2),
            _mm256_xor_si256(minus14, w4),
        ));
        _mm256_xor_si256(x, rotl::<1, 31>(_mm256_slli_si256::<12>(x)))
    }
}

/// `next_group_far` of [`super::parallel_sse41`] on both halves.
#[inline(always)]
unsafe fn next_group_far(
    w8: __m256i,
    w7: __m256i,
    w4: __m256i,
    w2: __m256i,
    w1: __m256i,
) -> __m256i {
    // SAFETY: AVX2, enabled in the caller.
    unsafe {
        let minus6 = _mm256_alignr_epi8::<8>(w1, w2);
        rotl::<2, 30>(_mm256_xor_si256(
            _mm256_xor_si256(minus6, w4),
            _mm256_xor_si256(w7, w8),
        ))
    }
}

/// The `W + K` words of a pair of blocks, `wk[8g..8g+8]` for group `g`: each group one 32-byte
/// store, read back by 4-byte loads. Aligned to 32 bytes so that no store crosses a cache
/// line (a load then waits for the store to reach the cache) whatever the caller's frame:
/// see `platform::align_frame`.
#[repr(C, align(32))]
pub(super) struct WPlusK(pub(super) [u32; 160]);

/// Loads group `g < 4` of both blocks, or computes group `g >= 4` from the earlier ones, and
/// stores its `W + K` at `wk[8g..8g+8]` (the first block's four words, then the second's).
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
pub(super) unsafe fn schedule_group(
    w: &mut [__m256i; 20],
    wk: &mut WPlusK,
    g: usize,
    first: &[u8; 64],
    second: &[u8; 64],
) {
    // SAFETY: AVX2/SSSE3 are enabled in the caller; 16-byte loads within the blocks and a
    // 32-byte store at `wk[8g..8g+8]`, in bounds for `g < 20` (checked by the slice index).
    unsafe {
        w[g] = if g < 4 {
            let lo = super::parallel_sse41::load_group(&first[16 * g..]);
            let hi = super::parallel_sse41::load_group(&second[16 * g..]);
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
        } else if g < 8 {
            next_group(w[g - 4], w[g - 3], w[g - 2], w[g - 1])
        } else {
            next_group_far(w[g - 8], w[g - 7], w[g - 4], w[g - 2], w[g - 1])
        };
        let k = _mm256_set1_epi32(K[g / 5] as i32);
        let out = &mut wk.0[8 * g..8 * g + 8];
        _mm256_storeu_si256(out.as_mut_ptr().cast(), _mm256_add_epi32(w[g], k));
    }
}

/// The schedule registers and the `W + K` buffer of a pair with groups 0 to 3 loaded:
/// `wk[8g..8g+4]` holds group `g` of the first block, `wk[8g+4..8g+8]` of the second.
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
pub(super) unsafe fn start_pair(first: &[u8; 64], second: &[u8; 64]) -> ([__m256i; 20], WPlusK) {
    let mut wk = WPlusK([0u32; 160]);
    // SAFETY: AVX2 is enabled in the caller.
    let mut w = unsafe { [_mm256_setzero_si256(); 20] };
    for g in 0..4 {
        // SAFETY: AVX2 is enabled in the caller.
        unsafe { schedule_group(&mut w, &mut wk, g, first, second) };
    }
    (w, wk)
}

/// Two consecutive blocks.
///
/// # Safety
/// The CPU must support AVX2 and BMI2 (`rorx` and `andn` in the rounds).
#[target_feature(enable = "avx2,avx,sse4.1,ssse3,bmi1,bmi2")]
unsafe fn compress_pair(state: &mut [u32; 5], first: &[u8; 64], second: &[u8; 64]) {
    // SAFETY: AVX2 is enabled here.
    let (mut w, mut wk) = unsafe { start_pair(first, second) };
    // The rounds load `W + K` (a memory operand of their `add`), not extract it from `w`
    // (`algo::from_memory`); likewise after each group below.
    crate::algo::from_memory::reload_after_here(&mut wk);
    let mut first_at = |t: usize| {
        let g = t / 4 + 4;
        if t % 4 == 0 && g < 20 {
            // SAFETY: runs inside `compress_pair`, compiled with AVX2.
            unsafe { schedule_group(&mut w, &mut wk, g, first, second) };
            crate::algo::from_memory::reload_after_here(&mut wk);
        }
        wk.0[8 * (t / 4) + t % 4]
    };
    rounds80!(state, first_at);
    let second_at = |t: usize| wk.0[8 * (t / 4) + 4 + t % 4];
    rounds80!(state, second_at);
}
