//! Vector types for multi-lane kernels: N independent 32- or 64-bit words, one per message.
//!
//! IMPLEMENTATION NOTE. Each lane kernel (MD5, SHA-1, SHA-512, Keccak) is written once, generic
//! over [`U32x`] or [`U64x`], and compiled three times: with portable arrays, inside an
//! `#[target_feature(enable = "avx2")]` function and inside an AVX-512 one. Because every method
//! here is `#[inline(always)]`, the intrinsics inline into the target-feature function and become
//! single instructions there.
//!
//! Soundness: a SIMD value (`Avx2x8`, `Avx512x16`, ...) holds the [`crate::platform`] token of
//! its ISA (zero-sized), and the only ways to make one are the constructors, which take that
//! token (`splat`, `from_fn`, `load`, `load_le`, `transpose_blocks`), and the operations on
//! values that already hold it. Every intrinsic runs with a token in hand: that token, detected
//! on this CPU, is the proof each `unsafe` block relies on. Portable arrays need no proof
//! (their `Isa` is `()`).

/// N lanes of u32.
pub(crate) trait U32x: Copy {
    const LANES: usize;
    /// The platform token that proves this CPU runs these vectors (`()` for portable arrays).
    type Isa: Copy;
    /// The token this value holds.
    fn isa(self) -> Self::Isa;
    fn splat(isa: Self::Isa, x: u32) -> Self;
    /// Builds a vector lane by lane.
    fn from_fn(isa: Self::Isa, f: impl FnMut(usize) -> u32) -> Self;
    /// Loads `LANES` consecutive little-endian u32 from `bytes` (pre-interleaved data).
    fn load_le(isa: Self::Isa, bytes: &[u8]) -> Self;
    /// Loads `LANES` words.
    fn load(isa: Self::Isa, words: &[u32]) -> Self;
    fn to_array(self, out: &mut [u32]);
    fn add(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn rotl<const N: i32>(self) -> Self;
    fn bswap(self) -> Self;
    #[inline(always)]
    fn not(self) -> Self {
        self.xor(Self::splat(self.isa(), u32::MAX))
    }
    /// Words 0..16 of one 64-byte block per lane, transposed: `out[w]` holds word w of every
    /// lane. The SIMD types override this with an in-register transpose.
    #[inline(always)]
    fn transpose_blocks(
        isa: Self::Isa,
        blocks: &[&[u8]],
        offset: usize,
        big_endian: bool,
        out: &mut [Self; 16],
    ) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = Self::from_fn(isa, |l| {
                let b: [u8; 4] = blocks[l][offset + 4 * i..offset + 4 * i + 4]
                    .try_into()
                    .unwrap();
                if big_endian {
                    u32::from_be_bytes(b)
                } else {
                    u32::from_le_bytes(b)
                }
            });
        }
    }
    /// Word `w` of every lane's eight-word state: `out[w]` holds `states[l][w]` in lane `l`
    /// (SHA-256's chaining values, one per lane). The SIMD types override this with an
    /// in-register transpose; built lane by lane, the compiler made gathers of it.
    #[inline(always)]
    fn load_states(isa: Self::Isa, states: &[[u32; 8]]) -> [Self; 8] {
        let mut out = [Self::splat(isa, 0); 8];
        for (w, o) in out.iter_mut().enumerate() {
            *o = Self::from_fn(isa, |l| states[l][w]);
        }
        out
    }
    /// The inverse of [`U32x::load_states`]: lane `l` of `words[w]` into `states[l][w]`.
    #[inline(always)]
    fn store_states(words: [Self; 8], states: &mut [[u32; 8]]) {
        let mut lanes = [0u32; 16];
        for (w, v) in words.iter().enumerate() {
            v.to_array(&mut lanes);
            for (state, &x) in states.iter_mut().zip(lanes.iter()).take(Self::LANES) {
                state[w] = x;
            }
        }
    }
}

/// N lanes of u64.
pub(crate) trait U64x: Copy {
    const LANES: usize;
    /// As [`U32x::Isa`].
    type Isa: Copy;
    /// The token this value holds.
    fn isa(self) -> Self::Isa;
    fn splat(isa: Self::Isa, x: u64) -> Self;
    fn from_fn(isa: Self::Isa, f: impl FnMut(usize) -> u64) -> Self;
    fn load_le(isa: Self::Isa, bytes: &[u8]) -> Self;
    fn load(isa: Self::Isa, words: &[u64]) -> Self;
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
            type Isa = ();
            #[inline(always)]
            fn isa(self) {}
            #[inline(always)]
            fn splat(_: (), x: $t) -> Self {
                Portable([x; L])
            }
            #[inline(always)]
            fn from_fn(_: (), mut f: impl FnMut(usize) -> $t) -> Self {
                let mut r = [0; L];
                for (l, x) in r.iter_mut().enumerate() {
                    *x = f(l);
                }
                Portable(r)
            }
            #[inline(always)]
            fn load_le(_: (), bytes: &[u8]) -> Self {
                let mut r = [0; L];
                for (l, x) in r.iter_mut().enumerate() {
                    *x = <$t>::from_le_bytes(bytes[l * $bytes..(l + 1) * $bytes].try_into().unwrap());
                }
                Portable(r)
            }
            #[inline(always)]
            fn load(_: (), words: &[$t]) -> Self {
                Portable(words[..L].try_into().unwrap())
            }
            #[inline(always)]
            fn to_array(self, out: &mut [$t]) {
                out[..L].copy_from_slice(&self.0);
            }
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                let mut a = self.0;
                for l in 0..L {
                    a[l] = a[l].wrapping_add(o.0[l]);
                }
                Portable(a)
            }
            #[inline(always)]
            fn xor(self, o: Self) -> Self {
                let mut a = self.0;
                for l in 0..L {
                    a[l] ^= o.0[l];
                }
                Portable(a)
            }
            #[inline(always)]
            fn and(self, o: Self) -> Self {
                let mut a = self.0;
                for l in 0..L {
                    a[l] &= o.0[l];
                }
                Portable(a)
            }
            #[inline(always)]
            fn or(self, o: Self) -> Self {
                let mut a = self.0;
                for l in 0..L {
                    a[l] |= o.0[l];
                }
                Portable(a)
            }
            #[inline(always)]
            fn rotl<const N: i32>(self) -> Self {
                let mut a = self.0;
                for l in 0..L {
                    a[l] = a[l].rotate_left(N as u32);
                }
                Portable(a)
            }
            #[inline(always)]
            fn bswap(self) -> Self {
                let mut a = self.0;
                for l in 0..L {
                    a[l] = a[l].swap_bytes();
                }
                Portable(a)
            }
            portable_impl!(@extra $trait, $t);
        }
    };
    (@extra U32x, $t:ty) => {};
    (@extra U64x, $t:ty) => {
        #[inline(always)]
        fn andnot(self, o: Self) -> Self {
                let mut a = self.0;
                for l in 0..L {
                    a[l] = !a[l] & o.0[l];
                }
                Portable(a)
            }
        #[inline(always)]
        fn shr<const N: i32>(self) -> Self {
                let mut a = self.0;
                for l in 0..L {
                    a[l] >>= N;
                }
                Portable(a)
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
    use crate::platform::{Avx2, Avx512};
    use core::arch::x86_64::*;

    /// 8 x u32 in a 256-bit register (AVX2).
    #[derive(Clone, Copy)]
    pub(crate) struct Avx2x8(__m256i, Avx2);
    /// 4 x u64 in a 256-bit register (AVX2).
    #[derive(Clone, Copy)]
    pub(crate) struct Avx2x4(__m256i, Avx2);
    /// 16 x u32 in a 512-bit register (AVX-512).
    #[derive(Clone, Copy)]
    pub(crate) struct Avx512x16(__m512i, Avx512);
    /// 8 x u64 in a 512-bit register (AVX-512).
    #[derive(Clone, Copy)]
    pub(crate) struct Avx512x8(__m512i, Avx512);

    // The vector types hold their ISA's token (a zero-sized proof, see `crate::platform`):
    // a value can only be made from a token (the constructors take it) or from another value
    // of its type. Each intrinsic goes through `avx2!` or `avx512!` with the token in hand.

    // Run AVX2 or AVX-512 intrinsics with the token that proves this CPU has them.
    macro_rules! avx2 {
        ($token:expr => $e:expr) => { crate::platform::with_isa!(Avx2, $token => $e) };
    }
    macro_rules! avx512 {
        ($token:expr => $e:expr) => { crate::platform::with_isa!(Avx512, $token => $e) };
    }

    /// The members that the four x86 vector types write alike but for their ISA's intrinsics:
    /// the token, unaligned loads and stores, and the bitwise operations (blind to lanes).
    /// `$run` is `avx2` or `avx512`, the macro that runs the intrinsics with the token.
    macro_rules! common_members {
        ($ty:ident: $isa:ident by $run:ident, [$word:ty; $lanes:literal] in $bytes:literal bytes,
         $load:ident $store:ident $xor:ident $and:ident $or:ident) => {
            #[inline(always)]
            fn isa(self) -> $isa {
                self.1
            }
            #[inline(always)]
            fn from_fn(isa: Self::Isa, mut f: impl FnMut(usize) -> $word) -> Self {
                let mut a: [$word; $lanes] = [0; $lanes];
                for (l, x) in a.iter_mut().enumerate() {
                    *x = f(l);
                }
                $ty($run!(isa => $load(a.as_ptr().cast())), isa)
            }
            #[inline(always)]
            fn load_le(isa: Self::Isa, bytes: &[u8]) -> Self {
                assert!(bytes.len() >= $bytes);
                $ty($run!(isa => $load(bytes.as_ptr().cast())), isa)
            }
            #[inline(always)]
            fn load(isa: Self::Isa, words: &[$word]) -> Self {
                assert!(words.len() >= $lanes);
                $ty($run!(isa => $load(words.as_ptr().cast())), isa)
            }
            #[inline(always)]
            fn to_array(self, out: &mut [$word]) {
                assert!(out.len() >= $lanes);
                $run!(self.1 => $store(out.as_mut_ptr().cast(), self.0))
            }
            #[inline(always)]
            fn xor(self, o: Self) -> Self {
                $ty($run!(self.1 => $xor(self.0, o.0)), self.1)
            }
            #[inline(always)]
            fn and(self, o: Self) -> Self {
                $ty($run!(self.1 => $and(self.0, o.0)), self.1)
            }
            #[inline(always)]
            fn or(self, o: Self) -> Self {
                $ty($run!(self.1 => $or(self.0, o.0)), self.1)
            }
        };
    }

    /// The 8x8 transpose of 32-bit words in eight 256-bit rows: 32-bit pairs, then 64-bit
    /// pairs are interleaved within 128-bit lanes, then the lanes swapped between rows.
    #[inline(always)]
    fn transpose8x8(isa: Avx2, r: [__m256i; 8]) -> [__m256i; 8] {
        let mut t = r;
        for i in 0..4 {
            t[2 * i] = avx2!(isa => _mm256_unpacklo_epi32(r[2 * i], r[2 * i + 1]));
            t[2 * i + 1] = avx2!(isa => _mm256_unpackhi_epi32(r[2 * i], r[2 * i + 1]));
        }
        // u[c] holds columns c (low lane) and c + 4 (high lane) of rows 0-3, u[c + 4] of 4-7.
        let mut u = t;
        for q in [0, 4] {
            u[q] = avx2!(isa => _mm256_unpacklo_epi64(t[q], t[q + 2]));
            u[q + 1] = avx2!(isa => _mm256_unpackhi_epi64(t[q], t[q + 2]));
            u[q + 2] = avx2!(isa => _mm256_unpacklo_epi64(t[q + 1], t[q + 3]));
            u[q + 3] = avx2!(isa => _mm256_unpackhi_epi64(t[q + 1], t[q + 3]));
        }
        let mut out = u;
        for c in 0..4 {
            out[c] = avx2!(isa => _mm256_permute2x128_si256::<0x20>(u[c], u[c + 4]));
            out[c + 4] = avx2!(isa => _mm256_permute2x128_si256::<0x31>(u[c], u[c + 4]));
        }
        out
    }

    /// [`transpose8x8`] on both 256-bit halves of eight 512-bit rows at once (two independent
    /// 8x8 matrices); the last step moves 128-bit lanes with `vpermt2q` instead.
    #[inline(always)]
    fn transpose8x8_halves(isa: Avx512, r: [__m512i; 8]) -> [__m512i; 8] {
        let mut t = r;
        for i in 0..4 {
            t[2 * i] = avx512!(isa => _mm512_unpacklo_epi32(r[2 * i], r[2 * i + 1]));
            t[2 * i + 1] = avx512!(isa => _mm512_unpackhi_epi32(r[2 * i], r[2 * i + 1]));
        }
        let mut u = t;
        for q in [0, 4] {
            u[q] = avx512!(isa => _mm512_unpacklo_epi64(t[q], t[q + 2]));
            u[q + 1] = avx512!(isa => _mm512_unpackhi_epi64(t[q], t[q + 2]));
            u[q + 2] = avx512!(isa => _mm512_unpacklo_epi64(t[q + 1], t[q + 3]));
            u[q + 3] = avx512!(isa => _mm512_unpackhi_epi64(t[q + 1], t[q + 3]));
        }
        // 128-bit lanes 0 and 2 (columns c) or 1 and 3 (columns c + 4) of u[c], each beside the
        // same lane of u[c + 4].
        let low = avx512!(isa => _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13));
        let high = avx512!(isa => _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15));
        let mut out = u;
        for c in 0..4 {
            out[c] = avx512!(isa => _mm512_permutex2var_epi64(u[c], low, u[c + 4]));
            out[c + 4] = avx512!(isa => _mm512_permutex2var_epi64(u[c], high, u[c + 4]));
        }
        out
    }

    /// A 64-byte block as four 128-bit registers, the bytes of each reordered by `order` (a
    /// `pshufb` mask: big-endian words, or words in the order an instruction wants them).
    #[inline]
    #[target_feature(enable = "sse2,ssse3")]
    pub(crate) fn load_block_shuffled(block: &[u8; 64], order: __m128i) -> [__m128i; 4] {
        let bp = block.as_ptr().cast::<__m128i>();
        // SAFETY: a block is 64 bytes, four unaligned 128-bit loads.
        unsafe {
            [
                _mm_shuffle_epi8(_mm_loadu_si128(bp), order),
                _mm_shuffle_epi8(_mm_loadu_si128(bp.add(1)), order),
                _mm_shuffle_epi8(_mm_loadu_si128(bp.add(2)), order),
                _mm_shuffle_epi8(_mm_loadu_si128(bp.add(3)), order),
            ]
        }
    }

    impl U32x for Avx2x8 {
        const LANES: usize = 8;
        type Isa = Avx2;
        common_members!(Avx2x8: Avx2 by avx2, [u32; 8] in 32 bytes,
            _mm256_loadu_si256 _mm256_storeu_si256 _mm256_xor_si256 _mm256_and_si256 _mm256_or_si256);
        #[inline(always)]
        fn splat(isa: Self::Isa, x: u32) -> Self {
            Avx2x8(avx2!(isa => _mm256_set1_epi32(x as i32)), isa)
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            Avx2x8(avx2!(self.1 => _mm256_add_epi32(self.0, o.0)), self.1)
        }
        /// Whole-byte rotations (16 and 24 bits: BLAKE's G) are one byte shuffle instead of
        /// two shifts and an OR.
        #[inline(always)]
        fn rotl<const N: i32>(self) -> Self {
            if N == 16 || N == 24 {
                let mask = if N == 16 {
                    avx2!(self.1 => _mm256_setr_epi8(
                        2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4,
                        5, 10, 11, 8, 9, 14, 15, 12, 13
                    ))
                } else {
                    avx2!(self.1 => _mm256_setr_epi8(
                        1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2, 3, 0, 5, 6, 7,
                        4, 9, 10, 11, 8, 13, 14, 15, 12
                    ))
                };
                return Avx2x8(avx2!(self.1 => _mm256_shuffle_epi8(self.0, mask)), self.1);
            }
            let left = avx2!(self.1 => _mm256_slli_epi32::<N>(self.0));
            let right = avx2!(self.1 => _mm256_srl_epi32(self.0, _mm_cvtsi32_si128(32 - N)));
            Avx2x8(avx2!(self.1 => _mm256_or_si256(left, right)), self.1)
        }
        /// Two 8x8 transposes (words 0-7, then 8-15): 128-bit halves, then 64-bit pairs,
        /// then 32-bit pairs are swapped between rows (each stage swaps one index bit).
        #[inline(always)]
        fn transpose_blocks(
            isa: Self::Isa,
            blocks: &[&[u8]],
            offset: usize,
            big_endian: bool,
            out: &mut [Self; 16],
        ) {
            assert!(blocks.len() >= 8);
            for half in 0..2 {
                let mut r = [avx2!(isa => _mm256_setzero_si256()); 8];
                for (l, row) in r.iter_mut().enumerate() {
                    let bytes = &blocks[l][offset + 32 * half..offset + 32 * half + 32];
                    *row = avx2!(isa => _mm256_loadu_si256(bytes.as_ptr().cast()));
                }
                for i in [0usize, 1, 2, 3] {
                    let (a, b) = (r[i], r[i + 4]);
                    r[i] = avx2!(isa => _mm256_permute2x128_si256::<0x20>(a, b));
                    r[i + 4] = avx2!(isa => _mm256_permute2x128_si256::<0x31>(a, b));
                }
                for i in [0usize, 1, 4, 5] {
                    let (a, b) = (r[i], r[i + 2]);
                    r[i] = avx2!(isa => _mm256_unpacklo_epi64(a, b));
                    r[i + 2] = avx2!(isa => _mm256_unpackhi_epi64(a, b));
                }
                for i in [0usize, 2, 4, 6] {
                    let (a, b) = (r[i], r[i + 1]);
                    r[i] = avx2!(isa => _mm256_blend_epi32::<0xAA>(a, _mm256_slli_epi64::<32>(b)));
                    r[i + 1] =
                        avx2!(isa => _mm256_blend_epi32::<0xAA>(_mm256_srli_epi64::<32>(a), b));
                }
                for (w, row) in r.iter().enumerate() {
                    let v = Avx2x8(*row, isa);
                    out[8 * half + w] = if big_endian { v.bswap() } else { v };
                }
            }
        }
        /// Eight 32-byte states, one per row, transposed by [`transpose8x8`].
        #[inline(always)]
        fn load_states(isa: Self::Isa, states: &[[u32; 8]]) -> [Self; 8] {
            assert!(states.len() >= 8);
            let mut rows = [avx2!(isa => _mm256_setzero_si256()); 8];
            for (row, state) in rows.iter_mut().zip(states) {
                *row = avx2!(isa => _mm256_loadu_si256(state.as_ptr().cast()));
            }
            transpose8x8(isa, rows).map(|v| Avx2x8(v, isa))
        }
        #[inline(always)]
        fn store_states(words: [Self; 8], states: &mut [[u32; 8]]) {
            assert!(states.len() >= 8);
            let isa = words[0].1;
            let rows = transpose8x8(isa, words.map(|v| v.0));
            for (row, state) in rows.iter().zip(states) {
                avx2!(isa => _mm256_storeu_si256(state.as_mut_ptr().cast(), *row));
            }
        }
        #[inline(always)]
        fn bswap(self) -> Self {
            let mask = avx2!(self.1 => _mm256_setr_epi8(
                3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11,
                10, 9, 8, 15, 14, 13, 12
            ));
            Avx2x8(avx2!(self.1 => _mm256_shuffle_epi8(self.0, mask)), self.1)
        }
    }

    impl U64x for Avx2x4 {
        const LANES: usize = 4;
        type Isa = Avx2;
        common_members!(Avx2x4: Avx2 by avx2, [u64; 4] in 32 bytes,
            _mm256_loadu_si256 _mm256_storeu_si256 _mm256_xor_si256 _mm256_and_si256 _mm256_or_si256);
        #[inline(always)]
        fn splat(isa: Self::Isa, x: u64) -> Self {
            Avx2x4(avx2!(isa => _mm256_set1_epi64x(x as i64)), isa)
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            Avx2x4(avx2!(self.1 => _mm256_add_epi64(self.0, o.0)), self.1)
        }
        #[inline(always)]
        fn andnot(self, o: Self) -> Self {
            Avx2x4(avx2!(self.1 => _mm256_andnot_si256(self.0, o.0)), self.1)
        }
        #[inline(always)]
        fn rotl<const N: i32>(self) -> Self {
            let left = avx2!(self.1 => _mm256_slli_epi64::<N>(self.0));
            let right = avx2!(self.1 => _mm256_srl_epi64(self.0, _mm_cvtsi32_si128(64 - N)));
            Avx2x4(avx2!(self.1 => _mm256_or_si256(left, right)), self.1)
        }
        #[inline(always)]
        fn shr<const N: i32>(self) -> Self {
            Avx2x4(avx2!(self.1 => _mm256_srli_epi64::<N>(self.0)), self.1)
        }
        #[inline(always)]
        fn bswap(self) -> Self {
            let mask = avx2!(self.1 => _mm256_setr_epi8(
                7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15,
                14, 13, 12, 11, 10, 9, 8
            ));
            Avx2x4(avx2!(self.1 => _mm256_shuffle_epi8(self.0, mask)), self.1)
        }
    }

    impl Avx512x16 {
        /// The register, for a kernel that names its registers (inline assembly).
        #[inline(always)]
        pub(crate) fn raw(self) -> __m512i {
            self.0
        }
        /// A register as sixteen lanes, with the token that proves AVX-512.
        #[inline(always)]
        pub(crate) fn from_raw(isa: Avx512, raw: __m512i) -> Avx512x16 {
            Avx512x16(raw, isa)
        }
    }

    impl U32x for Avx512x16 {
        const LANES: usize = 16;
        type Isa = Avx512;
        common_members!(Avx512x16: Avx512 by avx512, [u32; 16] in 64 bytes,
            _mm512_loadu_si512 _mm512_storeu_si512 _mm512_xor_si512 _mm512_and_si512 _mm512_or_si512);
        #[inline(always)]
        fn splat(isa: Self::Isa, x: u32) -> Self {
            Avx512x16(avx512!(isa => _mm512_set1_epi32(x as i32)), isa)
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            Avx512x16(avx512!(self.1 => _mm512_add_epi32(self.0, o.0)), self.1)
        }
        #[inline(always)]
        fn rotl<const N: i32>(self) -> Self {
            Avx512x16(avx512!(self.1 => _mm512_rol_epi32::<N>(self.0)), self.1)
        }
        /// Sixteen 32-byte states as eight 64-byte rows (two states each), regrouped so that
        /// row `k` holds states `k` and `k + 8`, then both halves transposed at once
        /// ([`transpose8x8_halves`]).
        #[inline(always)]
        fn load_states(isa: Self::Isa, states: &[[u32; 8]]) -> [Self; 8] {
            assert!(states.len() >= 16);
            let mut pairs = [avx512!(isa => _mm512_setzero_si512()); 8];
            for (k, pair) in pairs.iter_mut().enumerate() {
                *pair = avx512!(isa => _mm512_loadu_si512(states[2 * k].as_ptr().cast()));
            }
            let mut rows = pairs;
            for m in 0..4 {
                let (a, b) = (pairs[m], pairs[m + 4]);
                rows[2 * m] = avx512!(isa => _mm512_shuffle_i64x2::<0x44>(a, b));
                rows[2 * m + 1] = avx512!(isa => _mm512_shuffle_i64x2::<0xEE>(a, b));
            }
            transpose8x8_halves(isa, rows).map(|v| Avx512x16(v, isa))
        }
        #[inline(always)]
        fn store_states(words: [Self; 8], states: &mut [[u32; 8]]) {
            assert!(states.len() >= 16);
            let isa = words[0].1;
            let rows = transpose8x8_halves(isa, words.map(|v| v.0));
            for m in 0..4 {
                let (a, b) = (rows[2 * m], rows[2 * m + 1]);
                let low = avx512!(isa => _mm512_shuffle_i64x2::<0x44>(a, b));
                let high = avx512!(isa => _mm512_shuffle_i64x2::<0xEE>(a, b));
                avx512!(isa => _mm512_storeu_si512(states[2 * m].as_mut_ptr().cast(), low));
                avx512!(isa => _mm512_storeu_si512(states[2 * m + 8].as_mut_ptr().cast(), high));
            }
        }
        /// A 16x16 transpose as the `blake3` crate's assembly does it, per half of the block
        /// (words 0-7, then 8-15): lanes i and i + 8's halves in one register by insertion from
        /// memory, `vpunpck*qdq` and `vshufps` (one cycle each) within 128-bit lanes, then one
        /// `vpermt2d` per word. A butterfly of three `vpermt2d`/`vpermt2q` stages (three
        /// cycles each) cost BLAKE3's lane kernel 35 ns a block of 16 lanes, this 13.
        #[inline(always)]
        fn transpose_blocks(
            isa: Self::Isa,
            blocks: &[&[u8]],
            offset: usize,
            big_endian: bool,
            out: &mut [Self; 16],
        ) {
            // Words w (LOW) and w + 4 (HIGH) of a half from the two `vshufps` results r and
            // s: lanes 0-3 in r's first 128 bits, 4-7 in s's, 8-11 and 12-15 in their thirds.
            const LOW: [i32; 16] = [0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27];
            const HIGH: [i32; 16] = [4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31];
            assert!(blocks.len() >= 16);
            let low = avx512!(isa => _mm512_loadu_si512(LOW.as_ptr().cast()));
            let high = avx512!(isa => _mm512_loadu_si512(HIGH.as_ptr().cast()));
            for half in 0..2 {
                let at = offset + 32 * half;
                // a[i]: lane i's 32 bytes, then lane i + 8's.
                let mut a = [avx512!(isa => _mm512_setzero_si512()); 8];
                for (i, a) in a.iter_mut().enumerate() {
                    let (x, y) = (&blocks[i][at..at + 32], &blocks[i + 8][at..at + 32]);
                    let (x, y) = (x.as_ptr(), y.as_ptr());
                    // Each pointer is 32 readable bytes (the slices above).
                    *a = avx512!(isa => _mm512_inserti64x4::<1>(
                        _mm512_castsi256_si512(_mm256_loadu_si256(x.cast())),
                        _mm256_loadu_si256(y.cast()),
                    ));
                }
                // t[2p], t[2p + 1]: lanes 2p and 2p + 1's words, two by two (low, high pairs).
                let mut t = [avx512!(isa => _mm512_setzero_ps()); 8];
                for p in 0..4 {
                    let (x, y) = (a[2 * p], a[2 * p + 1]);
                    t[2 * p] = avx512!(isa => _mm512_castsi512_ps(_mm512_unpacklo_epi64(x, y)));
                    t[2 * p + 1] = avx512!(isa => _mm512_castsi512_ps(_mm512_unpackhi_epi64(x, y)));
                }
                // From t[u] (u = 0: words 0-1 and 4-5; u = 1: words 2-3 and 6-7), the even
                // dwords (0x88) or the odd ones (0xDD) of lanes 0-3 and 4-7 (and 8-15).
                for u in 0..2 {
                    let even = (
                        avx512!(isa => _mm512_shuffle_ps::<0x88>(t[u], t[u + 2])),
                        avx512!(isa => _mm512_shuffle_ps::<0x88>(t[u + 4], t[u + 6])),
                    );
                    let odd = (
                        avx512!(isa => _mm512_shuffle_ps::<0xDD>(t[u], t[u + 2])),
                        avx512!(isa => _mm512_shuffle_ps::<0xDD>(t[u + 4], t[u + 6])),
                    );
                    for (w, (r, s)) in [(2 * u, even), (2 * u + 1, odd)] {
                        let (r, s) = (
                            avx512!(isa => _mm512_castps_si512(r)),
                            avx512!(isa => _mm512_castps_si512(s)),
                        );
                        for (w, index) in [(w, low), (w + 4, high)] {
                            let v = avx512!(isa => _mm512_permutex2var_epi32(r, index, s));
                            let v = Avx512x16(v, isa);
                            out[8 * half + w] = if big_endian { v.bswap() } else { v };
                        }
                    }
                }
            }
        }
        #[inline(always)]
        fn bswap(self) -> Self {
            let mask = avx512!(self.1 => _mm512_set4_epi32(
                0x0c0d0e0f, 0x08090a0b, 0x04050607, 0x00010203
            ));
            Avx512x16(avx512!(self.1 => _mm512_shuffle_epi8(self.0, mask)), self.1)
        }
    }

    impl U64x for Avx512x8 {
        const LANES: usize = 8;
        type Isa = Avx512;
        common_members!(Avx512x8: Avx512 by avx512, [u64; 8] in 64 bytes,
            _mm512_loadu_si512 _mm512_storeu_si512 _mm512_xor_si512 _mm512_and_si512 _mm512_or_si512);
        #[inline(always)]
        fn splat(isa: Self::Isa, x: u64) -> Self {
            Avx512x8(avx512!(isa => _mm512_set1_epi64(x as i64)), isa)
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            Avx512x8(avx512!(self.1 => _mm512_add_epi64(self.0, o.0)), self.1)
        }
        #[inline(always)]
        fn andnot(self, o: Self) -> Self {
            Avx512x8(avx512!(self.1 => _mm512_andnot_si512(self.0, o.0)), self.1)
        }
        #[inline(always)]
        fn rotl<const N: i32>(self) -> Self {
            Avx512x8(avx512!(self.1 => _mm512_rol_epi64::<N>(self.0)), self.1)
        }
        #[inline(always)]
        fn shr<const N: i32>(self) -> Self {
            Avx512x8(
                avx512!(self.1 => _mm512_srl_epi64(self.0, _mm_cvtsi32_si128(N))),
                self.1,
            )
        }
        #[inline(always)]
        fn bswap(self) -> Self {
            let mask = avx512!(self.1 => _mm512_set4_epi32(
                0x08090a0b, 0x0c0d0e0f, 0x00010203, 0x04050607
            ));
            Avx512x8(avx512!(self.1 => _mm512_shuffle_epi8(self.0, mask)), self.1)
        }
    }
}

/// Where a kernel reads its message words: one block per lane from separate buffers (gathered
/// word by word), or a pre-interleaved buffer (one vector load per word).
#[derive(Clone, Copy)]
pub(crate) enum Source<'a> {
    /// One buffer per lane; reads start `offset` bytes in.
    Gather {
        blocks: &'a [&'a [u8]],
        offset: usize,
    },
    Interleaved(&'a [u8]),
}

impl<'a> Source<'a> {
    /// The same source `offset` bytes further into each gathered lane. (Interleaved sources
    /// are handed one block at a time.)
    #[inline(always)]
    pub(crate) fn advance(self, by: usize) -> Source<'a> {
        match self {
            Source::Gather { blocks, offset } => Source::Gather {
                blocks,
                offset: offset + by,
            },
            other => other,
        }
    }

    /// Message word `i` of every lane as a vector of u32 (`big_endian` words for the SHA family).
    #[inline(always)]
    pub(crate) fn word32<V: U32x>(self, isa: V::Isa, i: usize, big_endian: bool) -> V {
        match self {
            Source::Gather { blocks, offset } => V::from_fn(isa, |l| {
                let b: [u8; 4] = blocks[l][offset + 4 * i..offset + 4 * i + 4]
                    .try_into()
                    .unwrap();
                if big_endian {
                    u32::from_be_bytes(b)
                } else {
                    u32::from_le_bytes(b)
                }
            }),
            Source::Interleaved(data) => {
                let v = V::load_le(isa, &data[i * V::LANES * 4..]);
                if big_endian {
                    v.bswap()
                } else {
                    v
                }
            }
        }
    }

    /// The 16 message words of one 64-byte block per lane.
    #[inline(always)]
    pub(crate) fn block32<V: U32x>(self, isa: V::Isa, big_endian: bool, out: &mut [V; 16]) {
        match self {
            Source::Gather { blocks, offset } => {
                V::transpose_blocks(isa, blocks, offset, big_endian, out)
            }
            Source::Interleaved(_) => {
                for (i, word) in out.iter_mut().enumerate() {
                    *word = self.word32(isa, i, big_endian);
                }
            }
        }
    }

    /// The 16 message words of one block of 64-bit words per lane.
    #[inline(always)]
    pub(crate) fn block64<V: U64x>(self, isa: V::Isa, big_endian: bool, out: &mut [V; 16]) {
        for (i, word) in out.iter_mut().enumerate() {
            *word = self.word64(isa, i, big_endian);
        }
    }

    /// Message word `i` of every lane as a vector of u64.
    #[inline(always)]
    pub(crate) fn word64<V: U64x>(self, isa: V::Isa, i: usize, big_endian: bool) -> V {
        match self {
            Source::Gather { blocks, offset } => V::from_fn(isa, |l| {
                let b: [u8; 8] = blocks[l][offset + 8 * i..offset + 8 * i + 8]
                    .try_into()
                    .unwrap();
                if big_endian {
                    u64::from_be_bytes(b)
                } else {
                    u64::from_le_bytes(b)
                }
            }),
            Source::Interleaved(data) => {
                let v = V::load_le(isa, &data[i * V::LANES * 8..]);
                if big_endian {
                    v.bswap()
                } else {
                    v
                }
            }
        }
    }
}

/// What plumbing written once for both word sizes (`lanes::MdLanes`) needs of a lane vector:
/// moving chaining values in and out, and reading one message block.
pub(crate) trait Vector: Copy {
    /// u32 or u64.
    type Word: Copy;
    /// The token that proves this CPU runs these vectors (as [`U32x::Isa`]).
    type Isa: Copy;
    /// Loads one word of every lane.
    fn load_words(isa: Self::Isa, words: &[Self::Word]) -> Self;
    /// Stores one word of every lane.
    fn store_words(self, out: &mut [Self::Word]);
    /// The 16 message words of one block per lane (`big_endian` words for the SHA family).
    fn load_block(isa: Self::Isa, src: Source<'_>, big_endian: bool, out: &mut [Self; 16]);
}

macro_rules! vector_impl {
    ([$($generics:tt)*] $v:ty, $word:ty, $ops:ident, $block:ident) => {
        impl<$($generics)*> Vector for $v {
            type Word = $word;
            type Isa = <Self as $ops>::Isa;
            #[inline(always)]
            fn load_words(isa: Self::Isa, words: &[$word]) -> Self {
                <Self as $ops>::load(isa, words)
            }
            #[inline(always)]
            fn store_words(self, out: &mut [$word]) {
                <Self as $ops>::to_array(self, out)
            }
            #[inline(always)]
            fn load_block(isa: Self::Isa, src: Source<'_>, big_endian: bool, out: &mut [Self; 16]) {
                src.$block(isa, big_endian, out)
            }
        }
    };
}

vector_impl!([const L: usize] Portable<u32, L>, u32, U32x, block32);
vector_impl!([const L: usize] Portable<u64, L>, u64, U64x, block64);
#[cfg(target_arch = "x86_64")]
vector_impl!([] Avx2x8, u32, U32x, block32);
#[cfg(target_arch = "x86_64")]
vector_impl!([] Avx512x16, u32, U32x, block32);
#[cfg(target_arch = "x86_64")]
vector_impl!([] Avx2x4, u64, U64x, block64);
#[cfg(target_arch = "x86_64")]
vector_impl!([] Avx512x8, u64, U64x, block64);

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// The token a vector holds is a proof, not data: each SIMD type is exactly its register.
    #[test]
    fn a_token_costs_no_space() {
        assert_eq!(size_of::<Avx2x8>(), 32);
        assert_eq!(size_of::<Avx2x4>(), 32);
        assert_eq!(size_of::<Avx512x16>(), 64);
        assert_eq!(size_of::<Avx512x8>(), 64);
    }

    /// The state transposes agree with the portable lane-by-lane form, both ways.
    #[test]
    fn state_transposes_agree_with_portable_lanes() {
        let states: Vec<[u32; 8]> = (0..16u32)
            .map(|l| core::array::from_fn(|w| (l * 0x0101_0101) ^ ((w as u32) << 28) ^ 0x5a5a))
            .collect();
        fn check<V: U32x>(isa: V::Isa, states: &[[u32; 8]]) {
            let words = V::load_states(isa, states);
            let portable = <Portable<u32, 16> as U32x>::load_states((), states);
            for (v, p) in words.iter().zip(&portable) {
                let (mut got, mut want) = ([0u32; 16], [0u32; 16]);
                v.to_array(&mut got);
                p.to_array(&mut want);
                assert_eq!(got[..V::LANES], want[..V::LANES]);
            }
            let mut back = vec![[0u32; 8]; V::LANES];
            V::store_states(words, &mut back);
            assert_eq!(back, states[..V::LANES]);
        }
        if let Some(token) = crate::platform::Avx2::detect() {
            check::<Avx2x8>(token, &states);
        }
        if let Some(token) = crate::platform::Avx512::detect() {
            check::<Avx512x16>(token, &states);
        }
        check::<Portable<u32, 8>>((), &states);
    }

    /// Values made from a token compute what portable arrays compute.
    #[test]
    fn token_built_vectors_agree_with_portable_arrays() {
        let words: [u32; 16] = core::array::from_fn(|i| 0x9e37_79b9u32.wrapping_mul(i as u32 + 1));
        let mut want = [0u32; 16];
        let p = <Portable<u32, 16> as U32x>::load((), &words);
        p.add(p.rotl::<7>()).bswap().to_array(&mut want);
        let mut want_bytes = [0u32; 16];
        p.rotl::<16>().xor(p.rotl::<24>()).to_array(&mut want_bytes);
        if let Some(token) = crate::platform::Avx2::detect() {
            let mut got = [0u32; 16];
            let mut got_bytes = [0u32; 16];
            for half in 0..2 {
                let v = Avx2x8::load(token, &words[8 * half..]);
                v.add(v.rotl::<7>()).bswap().to_array(&mut got[8 * half..]);
                (v.rotl::<16>().xor(v.rotl::<24>())).to_array(&mut got_bytes[8 * half..]);
            }
            assert_eq!(got, want);
            assert_eq!(got_bytes, want_bytes, "the byte-shuffle rotations");
        }
        if let Some(token) = crate::platform::Avx512::detect() {
            let mut got = [0u32; 16];
            let v = Avx512x16::load(token, &words);
            v.add(v.rotl::<7>()).bswap().to_array(&mut got);
            assert_eq!(got, want);
        }
    }
}
