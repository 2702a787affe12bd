//! A word pair of the pair layout ([`super::parallel::WordPair`]) in an XMM register. Adds,
//! XORs and lane moves are SSE2, which every x86-64 CPU has; only the per-lane rotation needs
//! more, and the ISA token stored beside the register supplies it ([`Rotate`]), so a pair is
//! proof that its own instructions exist. Everything here is `#[inline(always)]`, so its code
//! is counted in the forms that use it: [`super::parallel_avx2`], [`super::parallel_avx512`].

use core::arch::x86_64::*;

use super::parallel::WordPair;

/// A per-lane 64-bit left rotation, implemented by an ISA token.
pub trait Rotate: Copy {
    /// Rotates lane `i` of `v` left by `counts[i]`.
    fn rotl(self, v: __m128i, counts: [u32; 2]) -> __m128i;
}

/// Two 64-bit lanes in one register, and the token that rotates them.
#[derive(Clone, Copy)]
pub struct Pair<T> {
    v: __m128i,
    token: T,
}

impl<T: Copy> Pair<T> {
    #[inline(always)]
    fn with(self, v: __m128i) -> Self {
        Self {
            v,
            token: self.token,
        }
    }
}

impl<T: Rotate> WordPair for Pair<T> {
    type Token = T;
    #[inline(always)]
    fn new(token: T, lo: u64, hi: u64) -> Self {
        // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
        let v = unsafe { _mm_set_epi64x(hi as i64, lo as i64) };
        Self { v, token }
    }
    #[inline(always)]
    fn words(self) -> [u64; 2] {
        // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
        unsafe {
            let hi = _mm_unpackhi_epi64(self.v, self.v);
            [
                _mm_cvtsi128_si64(self.v) as u64,
                _mm_cvtsi128_si64(hi) as u64,
            ]
        }
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
        self.with(unsafe { _mm_add_epi64(self.v, o.v) })
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
        self.with(unsafe { _mm_xor_si128(self.v, o.v) })
    }
    #[inline(always)]
    fn rotl(self, counts: [u32; 2]) -> Self {
        self.with(self.token.rotl(self.v, counts))
    }
    #[inline(always)]
    fn swap(self) -> Self {
        // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
        self.with(unsafe { _mm_shuffle_epi32::<0x4E>(self.v) })
    }
    #[inline(always)]
    fn high_low(self, o: Self) -> Self {
        // SAFETY: SSE2 is part of the x86-64 baseline, present on every CPU this code runs on.
        self.with(unsafe { _mm_unpacklo_epi64(_mm_unpackhi_epi64(self.v, self.v), o.v) })
    }
}

/// Stamps a form's entry point: the safe `compress_blocks(token, h, blocks, tweak, len)` (UBI
/// over whole blocks, see `sequential::threefish512::compress_blocks`) running
/// [`super::parallel::compress_generic`] on `Pair<token type>` inside a `#[target_feature]`
/// function, so that the pair operations compile to that ISA's instructions.
macro_rules! pair_kernel {
    ($token:ident, $features:literal) => {
        /// UBI over whole blocks (see `sequential::threefish512::compress_blocks`).
        #[inline(never)]
        pub fn compress_blocks(
            token: $token,
            h: &mut [u64; 8],
            blocks: &[[u8; 64]],
            tweak: &mut [u64; 2],
            len: u64,
        ) {
            /// # Safety
            /// The CPU must support every feature in `$features`.
            #[target_feature(enable = $features)]
            unsafe fn kernel(
                token: $token,
                state: (&mut [u64; 8], &mut [u64; 2]),
                blocks: &[[u8; 64]],
                len: u64,
            ) {
                let (h, tweak) = state;
                super::parallel::compress_generic::<super::xmm::Pair<$token>>(
                    token, h, blocks, tweak, len,
                );
            }
            // SAFETY: the token proves this CPU has the features `kernel` enables (and that
            // they are not switched off).
            unsafe { kernel(token, (h, tweak), blocks, len) }
        }
    };
}
pub(super) use pair_kernel;
