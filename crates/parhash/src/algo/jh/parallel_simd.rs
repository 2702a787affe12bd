//! The bit-sliced E8 ([`super::parallel`]) on x86 vector registers: one 128-bit word per
//! register, eight registers for the state.
//!
//! - `parallel-sse`: SSE2 only (part of every x86-64 CPU, so it needs no token). The bit-group
//!   swaps are shifts and masks for bits and nibbles, 16- and 32-bit lane shifts for bytes and
//!   16-bit groups, `pshufd` for 32- and 64-bit halves.
//! - `parallel-avx512`: the same code compiled with AVX-512F/VL enabled. The three-operand
//!   encodings save register copies, and the compiler turns each S-box step such as
//!   `m0 ^= !m2 & c` or `m0 ^= m1 | m3` into one `vpternlogq`.

use core::arch::x86_64::*;

use super::parallel::{compress_generic, Word};
use super::State;
use crate::platform::Avx512;

impl Word for __m128i {
    #[inline(always)]
    fn load(bytes: &[u8]) -> Self {
        let b: &[u8; 16] = bytes[..16].try_into().expect("16 bytes");
        // SAFETY: reads exactly the 16 bytes of `b` (unaligned load; SSE2 is part of x86-64).
        unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
    }
    #[inline(always)]
    fn store(self, out: &mut [u8]) {
        let o: &mut [u8; 16] = (&mut out[..16]).try_into().expect("16 bytes");
        // SAFETY: writes exactly the 16 bytes of `o` (unaligned store; SSE2 is part of x86-64).
        unsafe { _mm_storeu_si128(o.as_mut_ptr().cast(), self) }
    }
    #[inline(always)]
    fn mask(m: [u64; 2]) -> Self {
        // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
        unsafe { _mm_set_epi64x(m[1] as i64, m[0] as i64) }
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
        unsafe { _mm_xor_si128(self, o) }
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
        unsafe { _mm_and_si128(self, o) }
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
        unsafe { _mm_or_si128(self, o) }
    }
    #[inline(always)]
    fn not(self) -> Self {
        // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
        unsafe { _mm_xor_si128(self, _mm_set1_epi32(-1)) }
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
        unsafe { _mm_andnot_si128(self, o) }
    }
    #[inline(always)]
    fn swap<const K: u32>(self) -> Self {
        #[inline(always)]
        fn groups(x: __m128i, mask: i64, shift: i32) -> __m128i {
            // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
            unsafe {
                let m = _mm_set1_epi64x(mask);
                let count = _mm_cvtsi32_si128(shift);
                _mm_or_si128(
                    _mm_and_si128(_mm_srl_epi64(x, count), m),
                    _mm_sll_epi64(_mm_and_si128(x, m), count),
                )
            }
        }
        let x = self;
        // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
        unsafe {
            match K {
                0 => groups(x, 0x5555_5555_5555_5555, 1),
                1 => groups(x, 0x3333_3333_3333_3333, 2),
                2 => groups(x, 0x0f0f_0f0f_0f0f_0f0f, 4),
                3 => _mm_or_si128(_mm_slli_epi16::<8>(x), _mm_srli_epi16::<8>(x)),
                4 => _mm_or_si128(_mm_slli_epi32::<16>(x), _mm_srli_epi32::<16>(x)),
                5 => _mm_shuffle_epi32::<0b10_11_00_01>(x),
                _ => _mm_shuffle_epi32::<0b01_00_11_10>(x),
            }
        }
    }
}

/// `F8` on each 64-byte block, bit-sliced E8 on SSE2 registers.
#[inline(never)]
pub fn compress_blocks_sse(state: &mut State, blocks: &[u8]) {
    compress_generic::<__m128i>(state, blocks);
}

/// # Safety
/// The CPU must support AVX-512F and AVX-512VL.
#[target_feature(enable = "avx512f,avx512vl")]
unsafe fn compress_avx512(state: &mut State, blocks: &[u8]) {
    compress_generic::<__m128i>(state, blocks);
}

/// `F8` on each 64-byte block, bit-sliced E8 with AVX-512VL ternary logic.
#[inline(never)]
pub fn compress_blocks_avx512(token: Avx512, state: &mut State, blocks: &[u8]) {
    let _ = token;
    // SAFETY: the `Avx512` token proves AVX-512 F/BW/VL/DQ are present and not switched off.
    unsafe { compress_avx512(state, blocks) }
}
