//! Vector types for multi-lane kernels: N independent 32- or 64-bit words, one per message.
//!
//! IMPLEMENTATION NOTE. Each lane kernel (MD5, SHA-1, SHA-512, Keccak) is written once, generic
//! over [`U32x`] or [`U64x`], and compiled three times: with portable arrays, inside an
//! `#[target_feature(enable = "avx2")]` function and inside an AVX-512 one. Because every method
//! here is `#[inline(always)]`, the intrinsics inline into the target-feature function and become
//! single instructions there.
//!
//! Soundness: the SIMD types (`Avx2x8`, `Avx512x16`, ...) are private to `lanes`; a value of
//! one exists only inside a kernel entered through a safe function that took the matching
//! [`crate::platform`] token. That token is the proof the `unsafe` blocks below rely on.

/// N lanes of u32.
pub(crate) trait U32x: Copy {
    const LANES: usize;
    fn splat(x: u32) -> Self;
    /// Builds a vector lane by lane.
    fn from_fn(f: impl FnMut(usize) -> u32) -> Self;
    /// Loads `LANES` consecutive little-endian u32 from `bytes` (pre-interleaved data).
    fn load_le(bytes: &[u8]) -> Self;
    fn to_array(self, out: &mut [u32]);
    fn add(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn rotl<const N: i32>(self) -> Self;
    fn bswap(self) -> Self;
    #[inline(always)]
    fn not(self) -> Self {
        self.xor(Self::splat(u32::MAX))
    }
}

/// N lanes of u64.
// Some methods are used only by the SHA-512 lanes, wired up together with `algo::sha2`.
#[allow(dead_code)]
pub(crate) trait U64x: Copy {
    const LANES: usize;
    fn splat(x: u64) -> Self;
    fn from_fn(f: impl FnMut(usize) -> u64) -> Self;
    fn load_le(bytes: &[u8]) -> Self;
    fn to_array(self, out: &mut [u64]);
    fn add(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    /// `!self & o`
    fn andnot(self, o: Self) -> Self;
    fn rotl<const N: i32>(self) -> Self;
    fn shr<const N: i32>(self) -> Self;
    fn bswap(self) -> Self;
}

/// Portable lanes: plain arrays, which the compiler may auto-vectorise.
#[derive(Clone, Copy)]
pub(crate) struct Portable<T, const L: usize>(pub(crate) [T; L]);

macro_rules! portable_impl {
    ($trait:ident, $t:ty, $bytes:literal) => {
        impl<const L: usize> $trait for Portable<$t, L> {
            const LANES: usize = L;
            #[inline(always)]
            fn splat(x: $t) -> Self {
                Portable([x; L])
            }
            #[inline(always)]
            fn from_fn(f: impl FnMut(usize) -> $t) -> Self {
                Portable(core::array::from_fn(f))
            }
            #[inline(always)]
            fn load_le(bytes: &[u8]) -> Self {
                Portable(core::array::from_fn(|l| {
                    <$t>::from_le_bytes(bytes[l * $bytes..(l + 1) * $bytes].try_into().unwrap())
                }))
            }
            #[inline(always)]
            fn to_array(self, out: &mut [$t]) {
                out[..L].copy_from_slice(&self.0);
            }
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                Portable(core::array::from_fn(|l| self.0[l].wrapping_add(o.0[l])))
            }
            #[inline(always)]
            fn xor(self, o: Self) -> Self {
                Portable(core::array::from_fn(|l| self.0[l] ^ o.0[l]))
            }
            #[inline(always)]
            fn and(self, o: Self) -> Self {
                Portable(core::array::from_fn(|l| self.0[l] & o.0[l]))
            }
            #[inline(always)]
            fn or(self, o: Self) -> Self {
                Portable(core::array::from_fn(|l| self.0[l] | o.0[l]))
            }
            #[inline(always)]
            fn rotl<const N: i32>(self) -> Self {
                Portable(core::array::from_fn(|l| self.0[l].rotate_left(N as u32)))
            }
            #[inline(always)]
            fn bswap(self) -> Self {
                Portable(core::array::from_fn(|l| self.0[l].swap_bytes()))
            }
            portable_impl!(@extra $trait, $t);
        }
    };
    (@extra U32x, $t:ty) => {};
    (@extra U64x, $t:ty) => {
        #[inline(always)]
        fn andnot(self, o: Self) -> Self {
            Portable(core::array::from_fn(|l| !self.0[l] & o.0[l]))
        }
        #[inline(always)]
        fn shr<const N: i32>(self) -> Self {
            Portable(core::array::from_fn(|l| self.0[l] >> N))
        }
    };
}

portable_impl!(U32x, u32, 4);
portable_impl!(U64x, u64, 8);

#[cfg(target_arch = "x86_64")]
pub(crate) use x86::*;

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::{U32x, U64x};
    use core::arch::x86_64::*;

    /// 8 x u32 in a 256-bit register (AVX2).
    #[derive(Clone, Copy)]
    pub(crate) struct Avx2x8(__m256i);
    /// 4 x u64 in a 256-bit register (AVX2).
    #[derive(Clone, Copy)]
    pub(crate) struct Avx2x4(__m256i);
    /// 16 x u32 in a 512-bit register (AVX-512).
    #[derive(Clone, Copy)]
    pub(crate) struct Avx512x16(__m512i);
    /// 8 x u64 in a 512-bit register (AVX-512).
    #[derive(Clone, Copy)]
    pub(crate) struct Avx512x8(__m512i);

    // Every `unsafe` block below: SAFETY: these types only exist inside kernels entered through
    // a safe function holding the platform token for the ISA used (see the module docs).
    macro_rules! simd {
        ($e:expr) => {
            // SAFETY: see the comment above `simd!`: the ISA's token was checked on entry.
            unsafe { $e }
        };
    }

    impl U32x for Avx2x8 {
        const LANES: usize = 8;
        #[inline(always)]
        fn splat(x: u32) -> Self {
            Avx2x8(simd!(_mm256_set1_epi32(x as i32)))
        }
        #[inline(always)]
        fn from_fn(mut f: impl FnMut(usize) -> u32) -> Self {
            let a: [u32; 8] = core::array::from_fn(&mut f);
            Avx2x8(simd!(_mm256_loadu_si256(a.as_ptr().cast())))
        }
        #[inline(always)]
        fn load_le(bytes: &[u8]) -> Self {
            assert!(bytes.len() >= 32);
            Avx2x8(simd!(_mm256_loadu_si256(bytes.as_ptr().cast())))
        }
        #[inline(always)]
        fn to_array(self, out: &mut [u32]) {
            assert!(out.len() >= 8);
            simd!(_mm256_storeu_si256(out.as_mut_ptr().cast(), self.0))
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            Avx2x8(simd!(_mm256_add_epi32(self.0, o.0)))
        }
        #[inline(always)]
        fn xor(self, o: Self) -> Self {
            Avx2x8(simd!(_mm256_xor_si256(self.0, o.0)))
        }
        #[inline(always)]
        fn and(self, o: Self) -> Self {
            Avx2x8(simd!(_mm256_and_si256(self.0, o.0)))
        }
        #[inline(always)]
        fn or(self, o: Self) -> Self {
            Avx2x8(simd!(_mm256_or_si256(self.0, o.0)))
        }
        #[inline(always)]
        fn rotl<const N: i32>(self) -> Self {
            let left = simd!(_mm256_slli_epi32::<N>(self.0));
            let right = simd!(_mm256_srl_epi32(self.0, _mm_cvtsi32_si128(32 - N)));
            Avx2x8(simd!(_mm256_or_si256(left, right)))
        }
        #[inline(always)]
        fn bswap(self) -> Self {
            let mask = simd!(_mm256_setr_epi8(
                3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11,
                10, 9, 8, 15, 14, 13, 12
            ));
            Avx2x8(simd!(_mm256_shuffle_epi8(self.0, mask)))
        }
    }

    impl U64x for Avx2x4 {
        const LANES: usize = 4;
        #[inline(always)]
        fn splat(x: u64) -> Self {
            Avx2x4(simd!(_mm256_set1_epi64x(x as i64)))
        }
        #[inline(always)]
        fn from_fn(mut f: impl FnMut(usize) -> u64) -> Self {
            let a: [u64; 4] = core::array::from_fn(&mut f);
            Avx2x4(simd!(_mm256_loadu_si256(a.as_ptr().cast())))
        }
        #[inline(always)]
        fn load_le(bytes: &[u8]) -> Self {
            assert!(bytes.len() >= 32);
            Avx2x4(simd!(_mm256_loadu_si256(bytes.as_ptr().cast())))
        }
        #[inline(always)]
        fn to_array(self, out: &mut [u64]) {
            assert!(out.len() >= 4);
            simd!(_mm256_storeu_si256(out.as_mut_ptr().cast(), self.0))
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            Avx2x4(simd!(_mm256_add_epi64(self.0, o.0)))
        }
        #[inline(always)]
        fn xor(self, o: Self) -> Self {
            Avx2x4(simd!(_mm256_xor_si256(self.0, o.0)))
        }
        #[inline(always)]
        fn and(self, o: Self) -> Self {
            Avx2x4(simd!(_mm256_and_si256(self.0, o.0)))
        }
        #[inline(always)]
        fn or(self, o: Self) -> Self {
            Avx2x4(simd!(_mm256_or_si256(self.0, o.0)))
        }
        #[inline(always)]
        fn andnot(self, o: Self) -> Self {
            Avx2x4(simd!(_mm256_andnot_si256(self.0, o.0)))
        }
        #[inline(always)]
        fn rotl<const N: i32>(self) -> Self {
            let left = simd!(_mm256_slli_epi64::<N>(self.0));
            let right = simd!(_mm256_srl_epi64(self.0, _mm_cvtsi32_si128(64 - N)));
            Avx2x4(simd!(_mm256_or_si256(left, right)))
        }
        #[inline(always)]
        fn shr<const N: i32>(self) -> Self {
            Avx2x4(simd!(_mm256_srli_epi64::<N>(self.0)))
        }
        #[inline(always)]
        fn bswap(self) -> Self {
            let mask = simd!(_mm256_setr_epi8(
                7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15,
                14, 13, 12, 11, 10, 9, 8
            ));
            Avx2x4(simd!(_mm256_shuffle_epi8(self.0, mask)))
        }
    }

    impl U32x for Avx512x16 {
        const LANES: usize = 16;
        #[inline(always)]
        fn splat(x: u32) -> Self {
            Avx512x16(simd!(_mm512_set1_epi32(x as i32)))
        }
        #[inline(always)]
        fn from_fn(mut f: impl FnMut(usize) -> u32) -> Self {
            let a: [u32; 16] = core::array::from_fn(&mut f);
            Avx512x16(simd!(_mm512_loadu_si512(a.as_ptr().cast())))
        }
        #[inline(always)]
        fn load_le(bytes: &[u8]) -> Self {
            assert!(bytes.len() >= 64);
            Avx512x16(simd!(_mm512_loadu_si512(bytes.as_ptr().cast())))
        }
        #[inline(always)]
        fn to_array(self, out: &mut [u32]) {
            assert!(out.len() >= 16);
            simd!(_mm512_storeu_si512(out.as_mut_ptr().cast(), self.0))
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            Avx512x16(simd!(_mm512_add_epi32(self.0, o.0)))
        }
        #[inline(always)]
        fn xor(self, o: Self) -> Self {
            Avx512x16(simd!(_mm512_xor_si512(self.0, o.0)))
        }
        #[inline(always)]
        fn and(self, o: Self) -> Self {
            Avx512x16(simd!(_mm512_and_si512(self.0, o.0)))
        }
        #[inline(always)]
        fn or(self, o: Self) -> Self {
            Avx512x16(simd!(_mm512_or_si512(self.0, o.0)))
        }
        #[inline(always)]
        fn rotl<const N: i32>(self) -> Self {
            Avx512x16(simd!(_mm512_rol_epi32::<N>(self.0)))
        }
        #[inline(always)]
        fn bswap(self) -> Self {
            let mask = simd!(_mm512_set4_epi32(
                0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203
            ));
            Avx512x16(simd!(_mm512_shuffle_epi8(self.0, mask)))
        }
    }

    impl U64x for Avx512x8 {
        const LANES: usize = 8;
        #[inline(always)]
        fn splat(x: u64) -> Self {
            Avx512x8(simd!(_mm512_set1_epi64(x as i64)))
        }
        #[inline(always)]
        fn from_fn(mut f: impl FnMut(usize) -> u64) -> Self {
            let a: [u64; 8] = core::array::from_fn(&mut f);
            Avx512x8(simd!(_mm512_loadu_si512(a.as_ptr().cast())))
        }
        #[inline(always)]
        fn load_le(bytes: &[u8]) -> Self {
            assert!(bytes.len() >= 64);
            Avx512x8(simd!(_mm512_loadu_si512(bytes.as_ptr().cast())))
        }
        #[inline(always)]
        fn to_array(self, out: &mut [u64]) {
            assert!(out.len() >= 8);
            simd!(_mm512_storeu_si512(out.as_mut_ptr().cast(), self.0))
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            Avx512x8(simd!(_mm512_add_epi64(self.0, o.0)))
        }
        #[inline(always)]
        fn xor(self, o: Self) -> Self {
            Avx512x8(simd!(_mm512_xor_si512(self.0, o.0)))
        }
        #[inline(always)]
        fn and(self, o: Self) -> Self {
            Avx512x8(simd!(_mm512_and_si512(self.0, o.0)))
        }
        #[inline(always)]
        fn or(self, o: Self) -> Self {
            Avx512x8(simd!(_mm512_or_si512(self.0, o.0)))
        }
        #[inline(always)]
        fn andnot(self, o: Self) -> Self {
            Avx512x8(simd!(_mm512_andnot_si512(self.0, o.0)))
        }
        #[inline(always)]
        fn rotl<const N: i32>(self) -> Self {
            Avx512x8(simd!(_mm512_rol_epi64::<N>(self.0)))
        }
        #[inline(always)]
        fn shr<const N: i32>(self) -> Self {
            Avx512x8(simd!(_mm512_srl_epi64(self.0, _mm_cvtsi32_si128(N))))
        }
        #[inline(always)]
        fn bswap(self) -> Self {
            let mask = simd!(_mm512_set4_epi32(
                0x08090a0b, 0x0c0d0e0f, 0x00010203, 0x04050607
            ));
            Avx512x8(simd!(_mm512_shuffle_epi8(self.0, mask)))
        }
    }
}
