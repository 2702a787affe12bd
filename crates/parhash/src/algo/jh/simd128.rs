//! The 128-bit word of the bit-sliced E8 ([`super::parallel::Word`]) as an x86 vector register.
//! Only SSE2, which every x86-64 CPU has; the forms that use it are [`super::parallel_sse`] and
//! [`super::parallel_avx512`] (the same operations compiled with AVX-512VL enabled). Everything
//! here is `#[inline(always)]`, so its code is counted in those forms.

use core::arch::x86_64::*;

use super::parallel::Word;

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
