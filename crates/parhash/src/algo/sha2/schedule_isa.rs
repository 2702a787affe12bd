//! The instruction sets the `parallel` SHA-256 and SHA-512 forms compute their message schedule
//! with. Shared by both word sizes, whose backend tables pick one and whose `parallel` modules
//! dispatch on it.

#[cfg(target_arch = "x86_64")]
use crate::platform;

/// Which instructions compute the schedule of a `parallel` form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScheduleIsa {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Sse41(platform::Sse41),
    #[cfg(target_arch = "x86_64")]
    /// AVX-512 VL for the schedule, BMI2 (`rorx`, `andn`) for the scalar rounds.
    Avx512(platform::Avx512, platform::Bmi2),
}

/// Stamps the invoking `sha256::parallel` or `sha512::parallel` module's dispatch: `Isa` and
/// `compress_blocks(isa, state, blocks)`, the one match from a [`ScheduleIsa`] to that word
/// size's kernel (`$word` words, `$block`-byte blocks).
macro_rules! dispatch {
    ($word:ty, $block:literal) => {
        pub(crate) use $crate::algo::sha2::schedule_isa::ScheduleIsa as Isa;

        #[doc = concat!("Compresses whole ", stringify!($block), "-byte blocks into `state` with the schedule computed by `isa`.")]
        #[inline(never)]
        pub(crate) fn compress_blocks(isa: Isa, state: &mut [$word; 8], blocks: &[[u8; $block]]) {
            match isa {
                Isa::Portable => super::parallel_portable::compress_blocks(state, blocks),
                #[cfg(target_arch = "x86_64")]
                Isa::Sse41(token) => super::parallel_sse41::compress_blocks(token, state, blocks),
                #[cfg(target_arch = "x86_64")]
                Isa::Avx512(token, bmi2) => {
                    super::parallel_avx512::compress_blocks(token, bmi2, state, blocks)
                }
            }
        }
    };
}
pub(crate) use dispatch;

/// Stamps one 128-bit `parallel` kernel into the invoking `sha256::parallel_*` or
/// `sha512::parallel_*` module: the safe `compress_blocks(token, state, blocks)` running that
/// word size's `vector_kernel_body!` with small sigmas `rotr a ^ rotr b ^ shr s` made of the
/// ISA's instructions. The four kernels (two word sizes, two ISAs) differ only in those.
#[cfg(target_arch = "x86_64")]
macro_rules! vector_kernel {
    (@sigma sse41 u32 $x:ident $r:tt) => {
        $crate::algo::sha2::schedule_isa::vector_kernel!(@shifts 32 _mm_srli_epi32 _mm_slli_epi32 $x $r)
    };
    (@sigma sse41 u64 $x:ident $r:tt) => {
        $crate::algo::sha2::schedule_isa::vector_kernel!(@shifts 64 _mm_srli_epi64 _mm_slli_epi64 $x $r)
    };
    (@sigma avx512 u32 $x:ident $r:tt) => {
        $crate::algo::sha2::schedule_isa::vector_kernel!(@rotates _mm_ror_epi32 _mm_ternarylogic_epi32 _mm_srli_epi32 $x $r)
    };
    (@sigma avx512 u64 $x:ident $r:tt) => {
        $crate::algo::sha2::schedule_isa::vector_kernel!(@rotates _mm_ror_epi64 _mm_ternarylogic_epi64 _mm_srli_epi64 $x $r)
    };
    // SSE has no vector rotate: each rotation is two shifts and an OR.
    (@shifts $bits:literal $shr:ident $shl:ident $x:ident ($a:literal $b:literal $s:literal)) => {
        _mm_xor_si128(
            _mm_xor_si128(
                _mm_or_si128($shr::<$a>($x), $shl::<{ $bits - $a }>($x)),
                _mm_or_si128($shr::<$b>($x), $shl::<{ $bits - $b }>($x)),
            ),
            $shr::<$s>($x),
        )
    };
    // AVX-512 VL: one `vpror` per rotation and one `vpternlog` (0x96 = a ^ b ^ c).
    (@rotates $ror:ident $xor3:ident $shr:ident $x:ident ($a:literal $b:literal $s:literal)) => {
        $xor3::<0x96>($ror::<$a>($x), $ror::<$b>($x), $shr::<$s>($x))
    };
    ($isa:ident $token:ident $(+ $token2:ident)? $features:literal, $word:tt, $block:literal, sigma0 $s0:tt sigma1 $s1:tt) => {
        use core::arch::x86_64::*;

        use super::sequential::{big_sigma0, big_sigma1, ch, maj};

        #[inline]
        #[target_feature(enable = $features)]
        fn sigma0(x: __m128i) -> __m128i {
            $crate::algo::sha2::schedule_isa::vector_kernel!(@sigma $isa $word x $s0)
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn sigma1(x: __m128i) -> __m128i {
            $crate::algo::sha2::schedule_isa::vector_kernel!(@sigma $isa $word x $s1)
        }

        #[doc = concat!("Compresses whole ", $block, "-byte blocks into `state`.")]
        #[inline(never)]
        pub fn compress_blocks(
            token: $crate::platform::$token,
            $(_: $crate::platform::$token2,)?
            state: &mut [$word; 8],
            blocks: &[[u8; $block]],
        ) {
            let _ = token;
            // SAFETY: the tokens prove this CPU has the features `kernel` enables (SSE2 is
            // x86_64 baseline; the `Avx512` token implies AVX2, so SSSE3 and SSE4.1; the
            // `Bmi2` token, where there is one, BMI1 and BMI2).
            unsafe { kernel(state, blocks) }
        }

        /// # Safety
        /// The CPU must support every feature in `$features`.
        // The last group's schedule registers are written and never read again.
        #[allow(unused_assignments)]
        #[target_feature(enable = $features)]
        unsafe fn kernel(state: &mut [$word; 8], blocks: &[[u8; $block]]) {
            $crate::platform::align_frame();
            super::schedule::vector_kernel_body!(state, blocks, sigma0, sigma1)
        }
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use vector_kernel;
