//! SANDstorm: eight independent compressions side by side in SIMD lanes, the SIMD form the tree
//! makes possible (independent superblocks side by side, as the issue and the Sandia study
//! suggest), for 64-bit words (SANDstorm-224/256) and 128-bit words (SANDstorm-384/512).
//!
//! IMPLEMENTATION NOTE. The compression is written once (`kernel::compress`), generic over
//! `kernel::Lanes8` (eight lanes of one word size), and compiled inside one `#[target_feature]`
//! entry function per form and word size; every method is `#[inline(always)]`, so the
//! intrinsics become single instructions there (the pattern of `lanes::vector`). The forms:
//! - AVX-512 + GFNI: one 512-bit register per word. F and G square/multiply 32-bit halves with
//!   `vpmuludq` (the low 32 bits of each lane into a full 64-bit product; the (hi + A, lo + B)
//!   pair is one 32-bit `vpaddd`); SB is GFNI's `gf2p8affineinv` (the AES S-box is the GF(2^8)
//!   inverse followed by an affine map) and a byte-masked blend keeping the other seven bytes;
//!   rotates are `vprolq`, Ch and the masked swaps of BitMix single `vpternlogq`.
//! - AVX2: two 256-bit registers per word (two independent groups of four lanes, which also
//!   hides the latency of each chain). Rotates are two shifts and an OR, Ch three logic ops
//!   (`c ^ (a & (b ^ c))`). SB is the VEX form of `gf2p8affineinv` where the CPU has GFNI
//!   (Intel Alder Lake on) and otherwise a `vpgatherqq` from a 256-entry table (Haswell to
//!   Cascade Lake, AMD Zen 1-3).
//!
//! - 128-bit words, every form (`kernel::Wide128`, generic over the 64-bit lane type of the
//!   form, `kernel::Halves8`): a word is two of the form's 64-bit lane vectors, its low and its
//!   high halves. Additions carry with an unsigned compare (AVX-512: into a mask and a masked
//!   increment; AVX2: a signed compare of the sign-flipped halves, whose -1 is subtracted); the
//!   64x64->128 products of F and G (no vector instruction makes them) come from four
//!   `vpmuludq` 32x32->64 partial products (three for a square), summed so that no partial sum
//!   overflows; rotates by 32..64 rotate each half and take the bits that crossed over from the
//!   other (a bit select); SB is the 64-bit form's, on the low half only.
//!
//! Soundness: the lane types (`kernel::Zmm`, `kernel::YmmPair`, `kernel::Wide128`) and the S-box
//! helpers of the AVX2 form hold the `crate::platform` tokens of their instructions (zero-sized),
//! and the only ways to make one are the constructors, which take the tokens (`splat`, `load`,
//! `inputs`), and the operations on values that already hold them. The entry functions receive
//! the tokens of their form from [`Wide`], and every intrinsic runs with the token it needs in
//! hand (as in `crate::vector`).
//!
//! The portable twin is [`crate::algo::sandstorm::fast::compress_lanes`]; tests compare every
//! form with it.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use core::any::Any;

use crate::algo::sandstorm::reference::Chain;
use crate::algo::sandstorm::word::Word;
use crate::platform::{Avx2, Avx512, Gfni, GfniAvx2};

/// Lanes per kernel call.
pub const LANES: usize = 8;

/// Proof that the CPU has what one of the eight-lane forms needs, and which form to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wide {
    form: Form,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Avx512(Avx512, Gfni),
    Avx2Gfni(Avx2, GfniAvx2),
    Avx2Gather(Avx2),
}

impl Wide {
    /// The fastest form this CPU has (none switched off), if any.
    pub fn detect() -> Option<Wide> {
        Wide::avx512().or_else(Wide::avx2)
    }

    /// The AVX-512 form, if this CPU has AVX-512 and GFNI.
    pub fn avx512() -> Option<Wide> {
        Some(Wide::avx512_on(Avx512::detect()?, Gfni::detect()?))
    }

    /// The AVX-512 form, on the ISAs these tokens prove.
    pub(crate) fn avx512_on(avx512: Avx512, gfni: Gfni) -> Wide {
        Wide {
            form: Form::Avx512(avx512, gfni),
        }
    }

    /// The AVX2 form, with GFNI's S-box where the CPU has it, else the table gather.
    pub fn avx2() -> Option<Wide> {
        Some(Wide::avx2_on(Avx2::detect()?))
    }

    /// The AVX2 form on the AVX2 this token proves, with GFNI's S-box where the CPU has it.
    pub(crate) fn avx2_on(avx2: Avx2) -> Wide {
        let form = match GfniAvx2::detect() {
            Some(gfni) => Form::Avx2Gfni(avx2, gfni),
            None => Form::Avx2Gather(avx2),
        };
        Wide { form }
    }

    /// The AVX2 form with the table-gather S-box even where GFNI exists (to test and time the
    /// fallback on any AVX2 CPU).
    pub fn avx2_gather() -> Option<Wide> {
        Some(Wide {
            form: Form::Avx2Gather(Avx2::detect()?),
        })
    }

    /// The form's name, for variant lists and reports.
    pub fn name(self) -> &'static str {
        match self.form {
            Form::Avx512(..) => "avx512",
            Form::Avx2Gfni(..) => "avx2-gfni",
            Form::Avx2Gather(_) => "avx2-gather",
        }
    }

    /// Lane `l` (0..8) compresses the `blocks` blocks (8 words each) starting at
    /// `data[starts[l]..]` into `chains[l]`, one after the other. The lanes' inputs may lie
    /// anywhere in `data` (superblocks need not be evenly spaced: the reference code's 8-bit
    /// counter makes some shorter).
    ///
    /// # Panics
    /// If a lane's blocks run past the end of `data` (an internal bug, not input).
    pub fn compress_blocks<W: Word>(
        self,
        chains: &mut [Chain<W>; LANES],
        data: &[u8],
        starts: &[usize; LANES],
        blocks: usize,
    ) {
        let block_bytes = 8 * W::BYTES;
        assert!(
            blocks == 0
                || starts
                    .iter()
                    .all(|&s| s + block_bytes * blocks <= data.len())
        );
        self.run(chains, Input::Blocks(data), starts, blocks);
    }

    /// Lane `l` compresses the `count` 8-word inputs `inputs[starts[l]..][..count]` into
    /// `chains[l]` (level-2 chains, whose inputs are level-1 outputs).
    ///
    /// # Panics
    /// If a lane's inputs run past the end of `inputs`.
    pub fn compress_words<W: Word>(
        self,
        chains: &mut [Chain<W>; LANES],
        inputs: &[[W; 8]],
        starts: &[usize; LANES],
        count: usize,
    ) {
        assert!(count == 0 || starts.iter().all(|&s| s + count <= inputs.len()));
        self.run(chains, Input::Words(inputs), starts, count);
    }

    /// The one dispatch point: lane l compresses `count` inputs from `starts[l]`, which the
    /// callers checked are in bounds.
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn run<W: Word>(
        self,
        chains: &mut [Chain<W>; LANES],
        input: Input<'_, W>,
        starts: &[usize; LANES],
        count: usize,
    ) {
        #[cfg(target_arch = "x86_64")]
        if let Some((chains, input)) = as_words::<W, u128>(chains, input) {
            match self.form {
                // SAFETY: the entry needs AVX-512 F/BW/VL/DQ and GFNI; the `Avx512` and `Gfni`
                // tokens it is handed are made only by their `detect`, after the CPU reported them.
                Form::Avx512(avx512, gfni) => unsafe {
                    kernel::avx512_words128((avx512, gfni), chains, input, starts, count)
                },
                // SAFETY: the entry needs AVX2, AVX and GFNI; the `Avx2` and `GfniAvx2` tokens
                // it is handed are made only by their `detect`, after the CPU reported them.
                Form::Avx2Gfni(avx2, gfni) => unsafe {
                    kernel::avx2_gfni_words128((avx2, gfni), chains, input, starts, count)
                },
                // SAFETY: the entry needs AVX2 and AVX; the `Avx2` token it is handed is made
                // only by `Avx2::detect`, after the CPU reported them.
                Form::Avx2Gather(avx2) => unsafe {
                    kernel::avx2_gather_words128(avx2, chains, input, starts, count)
                },
            }
            return;
        }
        let Some((chains, input)) = as_words::<W, u64>(chains, input) else {
            unreachable!("a Word is u64 or u128");
        };
        match self.form {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the entry needs AVX-512 F/BW/VL/DQ and GFNI; the `Avx512` and `Gfni`
            // tokens it is handed are made only by their `detect`, after the CPU reported them.
            Form::Avx512(avx512, gfni) => unsafe {
                kernel::avx512((avx512, gfni), chains, input, starts, count)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the entry needs AVX2, AVX and GFNI; the `Avx2` and `GfniAvx2` tokens it is
            // handed are made only by their `detect`, after the CPU reported them.
            Form::Avx2Gfni(avx2, gfni) => unsafe {
                kernel::avx2_gfni((avx2, gfni), chains, input, starts, count)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the entry needs AVX2 and AVX; the `Avx2` token it is handed is made only
            // by `Avx2::detect`, after the CPU reported them.
            Form::Avx2Gather(avx2) => unsafe {
                kernel::avx2_gather(avx2, chains, input, starts, count)
            },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!("no SIMD token exists on this architecture"),
        }
    }
}

/// What a lane compresses: message blocks (big-endian words) or level-1 outputs.
#[derive(Clone, Copy)]
enum Input<'a, W> {
    Blocks(&'a [u8]),
    Words(&'a [[W; 8]]),
}

/// The chains and input of word type `W` seen as word type `X`, when they are the same type.
fn as_words<'c, 'a, W: Word, X: Word>(
    chains: &'c mut [Chain<W>; LANES],
    input: Input<'a, W>,
) -> Option<(&'c mut [Chain<X>; LANES], Input<'a, X>)> {
    let chains = (chains as &mut dyn Any).downcast_mut::<[Chain<X>; LANES]>()?;
    let input = match input {
        Input::Blocks(data) => Input::Blocks(data),
        Input::Words(words) => {
            // SAFETY: the downcast above succeeded, so `W` and `X` are the same type (both
            // `'static`) and the slice keeps its element type, length and lifetime.
            let same = unsafe { &*(words as *const [[W; 8]] as *const [[X; 8]]) };
            Input::Words(same)
        }
    };
    Some((chains, input))
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use super::*;
    use crate::algo::sandstorm::consts::AES_SBOX;

    // The lane types hold the tokens of their instructions (zero-sized proofs, see
    // `crate::platform`): a value can only be made from the tokens (the constructors take them)
    // or from another value of its type. Each intrinsic goes through the macro of the token it
    // needs, with that token in hand; loads and stores go through the helpers below, whose
    // arguments are exactly the bytes they touch.

    // Run register-only intrinsics of one ISA with the token that proves this CPU has it
    // (`gfni`: 512-bit registers, `gfni_avx2`: the VEX form on 256-bit registers).
    macro_rules! avx512 {
        ($token:expr => $e:expr) => { crate::platform::with_isa!(Avx512, $token => $e) };
    }
    macro_rules! gfni {
        ($token:expr => $e:expr) => { crate::platform::with_isa!(Gfni, $token => $e) };
    }
    macro_rules! avx2 {
        ($token:expr => $e:expr) => { crate::platform::with_isa!(Avx2, $token => $e) };
    }
    macro_rules! gfni_avx2 {
        ($token:expr => $e:expr) => { crate::platform::with_isa!(GfniAvx2, $token => $e) };
    }

    /// Unaligned loads and stores of one register width, each given its ISA's token and exactly
    /// the bytes it touches: `$load` of words, `$load_bytes` of bytes, `$store` of words.
    macro_rules! loads_and_stores {
        ($isa:ident, $reg:ty, [u64; $words:literal], [u8; $bytes:literal]:
         $load:ident, $load_bytes:ident, $store:ident = $loadu:ident, $storeu:ident) => {
            #[inline(always)]
            fn $load(_proof: $isa, words: &[u64; $words]) -> $reg {
                // SAFETY: the token `_proof` proves the ISA of the load; `words` is the bytes the
                // unaligned load reads.
                unsafe { $loadu(words.as_ptr().cast()) }
            }

            #[inline(always)]
            fn $load_bytes(_proof: $isa, bytes: &[u8; $bytes]) -> $reg {
                // SAFETY: as in `$load`; `bytes` is the bytes the unaligned load reads.
                unsafe { $loadu(bytes.as_ptr().cast()) }
            }

            #[inline(always)]
            fn $store(_proof: $isa, v: $reg, words: &mut [u64; $words]) {
                // SAFETY: as in `$load`; `words` is the bytes the unaligned store writes,
                // borrowed mutably.
                unsafe { $storeu(words.as_mut_ptr().cast(), v) }
            }
        };
    }
    loads_and_stores!(Avx512, __m512i, [u64; 8], [u8; 64]:
        load_zmm, load_zmm_bytes, store_zmm = _mm512_loadu_si512, _mm512_storeu_si512);
    loads_and_stores!(Avx2, __m256i, [u64; 4], [u8; 32]:
        load_ymm, load_ymm_bytes, store_ymm = _mm256_loadu_si256, _mm256_storeu_si256);

    /// Eight lanes of one SANDstorm word type and the SANDstorm operations on them.
    pub(super) trait Lanes8: Copy {
        /// The word of one lane (u64 or u128).
        type Word: Word;
        /// The platform tokens that prove this CPU runs these lanes.
        type Isa: Copy;
        /// The tokens this value holds.
        fn isa(self) -> Self::Isa;
        fn splat(isa: Self::Isa, x: Self::Word) -> Self;
        /// Lane l = `words[l]`.
        fn load(isa: Self::Isa, words: &[Self::Word; LANES]) -> Self;
        fn store(self, words: &mut [Self::Word; LANES]);
        /// Input `k` of every lane, transposed: word j of lane l's input is lane l of `out[j]`.
        fn inputs(
            isa: Self::Isa,
            input: Input<'_, Self::Word>,
            starts: &[usize; LANES],
            k: usize,
        ) -> [Self; 8];
        fn add(self, o: Self) -> Self;
        fn xor(self, o: Self) -> Self;
        /// Ch(self, b, c): bits of `b` where `self` is set, of `c` elsewhere.
        fn select(self, b: Self, c: Self) -> Self;
        /// The rotations r_ms, r_in and r_rnd of the word size.
        fn rotl_ms(self) -> Self;
        fn rotl_in(self) -> Self;
        fn rotl_rnd(self) -> Self;
        /// F: hi^2 + lo^2 of the half words.
        fn f(self) -> Self;
        /// G: F + ROTL_h((hi + A) * (lo + B)).
        fn g(self) -> Self;
        /// SB: the low byte through the AES S-box.
        fn sb(self) -> Self;
    }

    /// The rotations of 64-bit words, through the lane type's `rotl::<N>`.
    macro_rules! rotations64 {
        () => {
            #[inline(always)]
            fn rotl_ms(self) -> Self {
                self.rotl::<27>()
            }
            #[inline(always)]
            fn rotl_in(self) -> Self {
                self.rotl::<19>()
            }
            #[inline(always)]
            fn rotl_rnd(self) -> Self {
                self.rotl::<25>()
            }
        };
    }

    /// The AES affine map (after the GF(2^8) inverse) as GFNI's matrix operand; constant 0x63.
    const AES_AFFINE: u64 = 0xF1E3_C78F_1F3E_7CF8;
    /// G's constants A (high half) and B (low half), added to the halves in one go.
    const G_AB: u64 = 0xA611_186B_BEE8_390D;

    /// Eight lanes in one AVX-512 register, with the tokens of AVX-512 and GFNI (for SB).
    #[derive(Clone, Copy)]
    pub(super) struct Zmm {
        v: __m512i,
        avx512: Avx512,
        gfni: Gfni,
    }

    impl Zmm {
        /// `v` with the tokens of `self`.
        #[inline(always)]
        fn with(self, v: __m512i) -> Self {
            Zmm { v, ..self }
        }
        #[inline(always)]
        fn rotl<const N: i32>(self) -> Self {
            self.with(avx512!(self.avx512 => _mm512_rol_epi64::<N>(self.v)))
        }
    }

    impl Lanes8 for Zmm {
        type Word = u64;
        type Isa = (Avx512, Gfni);
        rotations64!();
        #[inline(always)]
        fn isa(self) -> (Avx512, Gfni) {
            (self.avx512, self.gfni)
        }
        #[inline(always)]
        fn splat((avx512, gfni): (Avx512, Gfni), x: u64) -> Self {
            let v = avx512!(avx512 => _mm512_set1_epi64(x as i64));
            Zmm { v, avx512, gfni }
        }
        #[inline(always)]
        fn load((avx512, gfni): (Avx512, Gfni), words: &[u64; LANES]) -> Self {
            let v = load_zmm(avx512, words);
            Zmm { v, avx512, gfni }
        }
        #[inline(always)]
        fn store(self, words: &mut [u64; LANES]) {
            store_zmm(self.avx512, self.v, words)
        }
        #[inline(always)]
        fn inputs(
            (avx512, gfni): (Avx512, Gfni),
            input: Input<'_, u64>,
            starts: &[usize; LANES],
            k: usize,
        ) -> [Self; 8] {
            let mut rows = [avx512!(avx512 => _mm512_setzero_si512()); 8];
            for (row, &start) in rows.iter_mut().zip(starts) {
                *row = match input {
                    Input::Blocks(data) => {
                        let block = data[start + 64 * k..].first_chunk::<64>().unwrap();
                        bswap64(avx512, load_zmm_bytes(avx512, block))
                    }
                    Input::Words(words) => load_zmm(avx512, &words[start + k]),
                };
            }
            transpose8(avx512, rows).map(|v| Zmm { v, avx512, gfni })
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            self.with(avx512!(self.avx512 => _mm512_add_epi64(self.v, o.v)))
        }
        #[inline(always)]
        fn xor(self, o: Self) -> Self {
            self.with(avx512!(self.avx512 => _mm512_xor_si512(self.v, o.v)))
        }
        #[inline(always)]
        fn select(self, b: Self, c: Self) -> Self {
            self.with(avx512!(self.avx512 => _mm512_ternarylogic_epi64::<0xCA>(self.v, b.v, c.v)))
        }
        #[inline(always)]
        fn f(self) -> Self {
            let hi = avx512!(self.avx512 => _mm512_srli_epi64::<32>(self.v));
            let squares = avx512!(self.avx512 => (
                _mm512_mul_epu32(hi, hi),
                _mm512_mul_epu32(self.v, self.v)
            ));
            self.with(avx512!(self.avx512 => _mm512_add_epi64(squares.0, squares.1)))
        }
        #[inline(always)]
        fn g(self) -> Self {
            // hi + A and lo + B modulo 2^32 in one 32-bit add.
            let y =
                avx512!(self.avx512 => _mm512_add_epi32(self.v, _mm512_set1_epi64(G_AB as i64)));
            let product = avx512!(self.avx512 => _mm512_mul_epu32(_mm512_srli_epi64::<32>(y), y));
            self.f().add(self.with(product).rotl::<32>())
        }
        #[inline(always)]
        fn sb(self) -> Self {
            let matrix = avx512!(self.avx512 => _mm512_set1_epi64(AES_AFFINE as i64));
            let s = gfni!(self.gfni => _mm512_gf2p8affineinv_epi64_epi8::<0x63>(self.v, matrix));
            self.with(avx512!(self.avx512 => _mm512_mask_blend_epi8(
                0x0101_0101_0101_0101,
                self.v,
                s
            )))
        }
    }

    /// Byte-swaps every 64-bit lane (blocks are big-endian words).
    #[inline(always)]
    fn bswap64(avx512: Avx512, x: __m512i) -> __m512i {
        let order = avx512!(avx512 => _mm512_set_epi8(
            56, 57, 58, 59, 60, 61, 62, 63, 48, 49, 50, 51, 52, 53, 54, 55, 40, 41, 42, 43, 44, 45,
            46, 47, 32, 33, 34, 35, 36, 37, 38, 39, 24, 25, 26, 27, 28, 29, 30, 31, 16, 17, 18, 19,
            20, 21, 22, 23, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7,
        ));
        avx512!(avx512 => _mm512_shuffle_epi8(x, order))
    }

    /// 8x8 transpose of 64-bit words: `rows[l]` word j becomes `out[j]` lane l.
    #[inline(always)]
    fn transpose8(avx512: Avx512, rows: [__m512i; 8]) -> [__m512i; 8] {
        // Stage 1: pairs of rows interleaved by word.
        let mut t = [avx512!(avx512 => _mm512_setzero_si512()); 8];
        for i in 0..4 {
            let (a, b) = (rows[2 * i], rows[2 * i + 1]);
            // a0 b0 a2 b2 a4 b4 a6 b6, then a1 b1 a3 b3 a5 b5 a7 b7.
            t[2 * i] = avx512!(avx512 => _mm512_unpacklo_epi64(a, b));
            t[2 * i + 1] = avx512!(avx512 => _mm512_unpackhi_epi64(a, b));
        }
        // Stage 2: quadruples of rows; u[q*4 + k]: rows 4q..4q+4, words {k', k'+4}.
        let lo = avx512!(avx512 => _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0));
        let hi = avx512!(avx512 => _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2));
        let mut u = [avx512!(avx512 => _mm512_setzero_si512()); 8];
        for q in 0..2 {
            let (e0, o0, e1, o1) = (t[4 * q], t[4 * q + 1], t[4 * q + 2], t[4 * q + 3]);
            // e0 = r0w0 r1w0 r0w2 r1w2 r0w4 r1w4 r0w6 r1w6 ; e1 the same for rows 2, 3.
            // Words 0 and 4, then 2 and 6, 1 and 5, 3 and 7.
            u[4 * q] = avx512!(avx512 => _mm512_permutex2var_epi64(e0, lo, e1));
            u[4 * q + 1] = avx512!(avx512 => _mm512_permutex2var_epi64(e0, hi, e1));
            u[4 * q + 2] = avx512!(avx512 => _mm512_permutex2var_epi64(o0, lo, o1));
            u[4 * q + 3] = avx512!(avx512 => _mm512_permutex2var_epi64(o0, hi, o1));
        }
        // u[k] = [r0 r1 r2 r3 of word w | r0..r3 of word w + 4] for rows 0-3 (k < 4) or 4-7.
        let word_of = [0usize, 2, 1, 3];
        let mut out = [avx512!(avx512 => _mm512_setzero_si512()); 8];
        for k in 0..4 {
            let w = word_of[k];
            out[w] = avx512!(avx512 => _mm512_shuffle_i64x2::<0b01_00_01_00>(u[k], u[4 + k]));
            out[w + 4] = avx512!(avx512 => _mm512_shuffle_i64x2::<0b11_10_11_10>(u[k], u[4 + k]));
        }
        out
    }

    /// What eight lanes of 128-bit words need of eight lanes of 64-bit halves, beyond their
    /// SANDstorm operations (whose `sb` already replaces just the low byte).
    pub(super) trait Halves8: Lanes8<Word = u64> {
        /// `self + 1` in the lanes where `sum < addend` (unsigned): where `sum = x + addend`
        /// carried out of 64 bits.
        fn add_carry(self, sum: Self, addend: Self) -> Self;
        fn rol<const N: i32>(self) -> Self;
        /// The 64-bit products of the low 32 bits of each lane.
        fn mul32(self, o: Self) -> Self;
        fn shr32(self) -> Self;
        fn low32(self) -> Self;
        /// The low 32 bits of `self` below the low 32 bits of `high`.
        fn join32(self, high: Self) -> Self;
    }

    impl Halves8 for Zmm {
        #[inline(always)]
        fn add_carry(self, sum: Self, addend: Self) -> Self {
            let carry = avx512!(self.avx512 => _mm512_cmplt_epu64_mask(sum.v, addend.v));
            self.with(avx512!(self.avx512 => _mm512_mask_sub_epi64(
                self.v,
                carry,
                self.v,
                _mm512_set1_epi64(-1)
            )))
        }
        #[inline(always)]
        fn rol<const N: i32>(self) -> Self {
            self.rotl::<N>()
        }
        #[inline(always)]
        fn mul32(self, o: Self) -> Self {
            self.with(avx512!(self.avx512 => _mm512_mul_epu32(self.v, o.v)))
        }
        #[inline(always)]
        fn shr32(self) -> Self {
            self.with(avx512!(self.avx512 => _mm512_srli_epi64::<32>(self.v)))
        }
        #[inline(always)]
        fn low32(self) -> Self {
            self.with(avx512!(self.avx512 => _mm512_and_si512(
                self.v,
                _mm512_set1_epi64(0xFFFF_FFFF)
            )))
        }
        #[inline(always)]
        fn join32(self, high: Self) -> Self {
            // Odd 32-bit elements (the high half of each lane) from `high << 32`.
            self.with(avx512!(self.avx512 => _mm512_mask_blend_epi32(
                0xAAAA,
                self.v,
                _mm512_slli_epi64::<32>(high.v)
            )))
        }
    }

    /// Eight lanes of 128-bit words: the low and the high 64-bit halves, each eight lanes of
    /// `H` (one AVX-512 register, or two AVX2 ones), which hold the tokens.
    #[derive(Clone, Copy)]
    pub(super) struct Wide128<H> {
        lo: H,
        hi: H,
    }

    /// G's constants for 128-bit words: A is added to the high half, B to the low half.
    const G128_A: u64 = 0xa611_186b_ae67_496b;
    const G128_B: u64 = 0xbee8_390d_4395_5aed;

    /// The full 128-bit products `x * y` of eight pairs of 64-bit lanes, as (low, high) halves.
    /// With x = x1:x0 and y = y1:y0 in 32-bit halves: t = x1*y0 + (x0*y0 >> 32) and
    /// u = x0*y1 + (t mod 2^32) cannot overflow 64 bits, and the product is
    /// (x1*y1 + (t >> 32) + (u >> 32)) : (u mod 2^32) : (x0*y0 mod 2^32).
    #[inline(always)]
    fn mul_wide<H: Halves8>(x: H, y: H) -> (H, H) {
        let (x1, y1) = (x.shr32(), y.shr32());
        let p00 = x.mul32(y);
        let t = x1.mul32(y).add(p00.shr32());
        product_halves(p00, x.mul32(y1), t, x1.mul32(y1))
    }

    /// The full 128-bit squares of eight 64-bit lanes (`mul_wide(x, x)` with one partial
    /// product fewer: x0*x1 = x1*x0).
    #[inline(always)]
    fn square_wide<H: Halves8>(x: H) -> (H, H) {
        let x1 = x.shr32();
        let (p00, p01) = (x.mul32(x), x.mul32(x1));
        product_halves(p00, p01, p01.add(p00.shr32()), x1.mul32(x1))
    }

    /// The last steps of [`mul_wide`] from p00, p01, t and p11.
    #[inline(always)]
    fn product_halves<H: Halves8>(p00: H, p01: H, t: H, p11: H) -> (H, H) {
        let u = p01.add(t.low32());
        (p00.join32(u), p11.add(t.shr32()).add(u.shr32()))
    }

    impl<H: Halves8> Wide128<H> {
        /// Rotation left by `N` in 32..64: each half rotated by `N`, then the low `N` bits of
        /// each taken from the other half's rotation (the bits that crossed over).
        #[inline(always)]
        fn rotl<const N: i32>(self) -> Self {
            let (lo, hi) = (self.lo.rol::<N>(), self.hi.rol::<N>());
            let crossed = H::splat(self.lo.isa(), (1u64 << N) - 1);
            Wide128 {
                lo: crossed.select(hi, lo),
                hi: crossed.select(lo, hi),
            }
        }
    }

    impl<H: Halves8> Lanes8 for Wide128<H> {
        type Word = u128;
        type Isa = H::Isa;
        #[inline(always)]
        fn isa(self) -> H::Isa {
            self.lo.isa()
        }
        #[inline(always)]
        fn rotl_ms(self) -> Self {
            self.rotl::<{ <u128 as Word>::R_MS as i32 }>()
        }
        #[inline(always)]
        fn rotl_in(self) -> Self {
            self.rotl::<{ <u128 as Word>::R_IN as i32 }>()
        }
        #[inline(always)]
        fn rotl_rnd(self) -> Self {
            self.rotl::<{ <u128 as Word>::R_RND as i32 }>()
        }
        #[inline(always)]
        fn splat(isa: H::Isa, x: u128) -> Self {
            Wide128 {
                lo: H::splat(isa, x as u64),
                hi: H::splat(isa, (x >> 64) as u64),
            }
        }
        #[inline(always)]
        fn load(isa: H::Isa, words: &[u128; LANES]) -> Self {
            Wide128 {
                lo: H::load(isa, &words.map(|w| w as u64)),
                hi: H::load(isa, &words.map(|w| (w >> 64) as u64)),
            }
        }
        #[inline(always)]
        fn store(self, words: &mut [u128; LANES]) {
            let (mut lo, mut hi) = ([0u64; LANES], [0u64; LANES]);
            self.lo.store(&mut lo);
            self.hi.store(&mut hi);
            for (l, word) in words.iter_mut().enumerate() {
                *word = u128::from(hi[l]) << 64 | u128::from(lo[l]);
            }
        }
        #[inline(always)]
        fn inputs(
            isa: H::Isa,
            input: Input<'_, u128>,
            starts: &[usize; LANES],
            k: usize,
        ) -> [Self; 8] {
            // A lane's input is 16 64-bit halves, read as two inputs of eight 64-bit words
            // (`part` 0 and 1): halves[part][h] holds half 8 * part + h of every lane, and word
            // j is halves 2j and 2j + 1.
            let halves: [[H; 8]; 2] = core::array::from_fn(|part| match input {
                Input::Blocks(data) => {
                    let at = starts.map(|s| s + 128 * k + 64 * part);
                    H::inputs(isa, Input::Blocks(data), &at, 0)
                }
                Input::Words(words) => {
                    // SAFETY: `[u128; 8]` is 16 `u64`s in the same bytes (x86-64 is
                    // little-endian: the low half first), and u64's alignment divides u128's.
                    let halves: &[[u64; 8]] = unsafe {
                        core::slice::from_raw_parts(words.as_ptr().cast(), 2 * words.len())
                    };
                    let at = starts.map(|s| 2 * (s + k) + part);
                    H::inputs(isa, Input::Words(halves), &at, 0)
                }
            });
            core::array::from_fn(|j| {
                let (first, second) = (halves[j / 4][2 * (j % 4)], halves[j / 4][2 * (j % 4) + 1]);
                match input {
                    // Big-endian words: the high half comes first.
                    Input::Blocks(_) => Wide128 {
                        hi: first,
                        lo: second,
                    },
                    // Words in memory (little-endian u128): the low half comes first.
                    Input::Words(_) => Wide128 {
                        lo: first,
                        hi: second,
                    },
                }
            })
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            let lo = self.lo.add(o.lo);
            Wide128 {
                lo,
                hi: self.hi.add(o.hi).add_carry(lo, o.lo),
            }
        }
        #[inline(always)]
        fn xor(self, o: Self) -> Self {
            Wide128 {
                lo: self.lo.xor(o.lo),
                hi: self.hi.xor(o.hi),
            }
        }
        #[inline(always)]
        fn select(self, b: Self, c: Self) -> Self {
            Wide128 {
                lo: self.lo.select(b.lo, c.lo),
                hi: self.hi.select(b.hi, c.hi),
            }
        }
        #[inline(always)]
        fn f(self) -> Self {
            let (hi_sq, lo_sq) = (square_wide(self.hi), square_wide(self.lo));
            let hi_sq = Wide128 {
                lo: hi_sq.0,
                hi: hi_sq.1,
            };
            hi_sq.add(Wide128 {
                lo: lo_sq.0,
                hi: lo_sq.1,
            })
        }
        #[inline(always)]
        fn g(self) -> Self {
            let a = self.hi.add(H::splat(self.hi.isa(), G128_A));
            let b = self.lo.add(H::splat(self.lo.isa(), G128_B));
            let (lo, hi) = mul_wide(a, b);
            // Rotating the product by 64 swaps its halves.
            self.f().add(Wide128 { lo: hi, hi: lo })
        }
        #[inline(always)]
        fn sb(self) -> Self {
            Wide128 {
                lo: self.lo.sb(),
                hi: self.hi,
            }
        }
    }

    /// How the AVX2 form computes SB on four lanes; a value holds the token SB needs.
    pub(super) trait Sbox4: Copy {
        fn sb(self, x: __m256i) -> __m256i;
    }

    /// SB by GFNI's affine inverse (VEX form), then a byte blend.
    #[derive(Clone, Copy)]
    pub(super) struct GfniSbox(GfniAvx2);

    impl Sbox4 for GfniSbox {
        #[inline(always)]
        fn sb(self, x: __m256i) -> __m256i {
            let matrix = gfni_avx2!(self.0 => _mm256_set1_epi64x(AES_AFFINE as i64));
            let s = gfni_avx2!(self.0 => _mm256_gf2p8affineinv_epi64_epi8::<0x63>(x, matrix));
            // `vpblendvb` takes the bytes whose mask byte has its top bit set: byte 0 of a lane.
            gfni_avx2!(self.0 => _mm256_blendv_epi8(x, s, _mm256_set1_epi64x(0x80)))
        }
    }

    /// The AES S-box widened to 64-bit entries, for `vpgatherqq`.
    static SBOX64: [u64; 256] = {
        let mut t = [0u64; 256];
        let mut i = 0;
        while i < 256 {
            t[i] = AES_SBOX[i] as u64;
            i += 1;
        }
        t
    };

    /// SB by gathering the S-box entries of the four low bytes.
    #[derive(Clone, Copy)]
    pub(super) struct GatherSbox(Avx2);

    impl Sbox4 for GatherSbox {
        #[inline(always)]
        fn sb(self, x: __m256i) -> __m256i {
            let avx2: Avx2 = self.0;
            let low = avx2!(avx2 => _mm256_set1_epi64x(0xFF));
            let index = avx2!(avx2 => _mm256_and_si256(x, low));
            // SAFETY: every index is a byte (0..=255) and the table has 256 entries, so the
            // gather reads inside `SBOX64`; the `Avx2` token in hand (made only by
            // `Avx2::detect`, after the CPU reported AVX2) proves `vpgatherqq` runs here.
            let s = unsafe { _mm256_i64gather_epi64::<8>(SBOX64.as_ptr().cast(), index) };
            avx2!(avx2 => _mm256_or_si256(_mm256_andnot_si256(low, x), s))
        }
    }

    /// Eight lanes in two AVX2 registers (lanes 0-3, 4-7), with the `Avx2` token, SB by `S`
    /// (which holds the token SB needs).
    #[derive(Clone, Copy)]
    pub(super) struct YmmPair<S> {
        lo: __m256i,
        hi: __m256i,
        avx2: Avx2,
        sbox: S,
    }

    impl<S: Copy> YmmPair<S> {
        /// `lo` and `hi` with the tokens of `self`.
        #[inline(always)]
        fn with(self, lo: __m256i, hi: __m256i) -> Self {
            YmmPair { lo, hi, ..self }
        }
    }

    /// One AVX2 operation on both halves (the result holds the tokens of `$a`).
    macro_rules! both {
        ($a:ident $(, $b:ident)* => |$x:ident $(, $y:ident)*| $e:expr) => {{
            let lo = { let $x = $a.lo; $(let $y = $b.lo;)* $e };
            let hi = { let $x = $a.hi; $(let $y = $b.hi;)* $e };
            $a.with(lo, hi)
        }};
    }

    /// F on four lanes.
    #[inline(always)]
    fn f4(avx2: Avx2, x: __m256i) -> __m256i {
        let hi = avx2!(avx2 => _mm256_srli_epi64::<32>(x));
        avx2!(avx2 => _mm256_add_epi64(
            _mm256_mul_epu32(hi, hi),
            _mm256_mul_epu32(x, x)
        ))
    }

    /// 4x4 transpose of 64-bit words: `rows[l]` word j becomes `out[j]` lane l.
    #[inline(always)]
    fn transpose4(avx2: Avx2, rows: [__m256i; 4]) -> [__m256i; 4] {
        let t0 = avx2!(avx2 => _mm256_unpacklo_epi64(rows[0], rows[1])); // r0w0 r1w0 r0w2 r1w2
        let t1 = avx2!(avx2 => _mm256_unpackhi_epi64(rows[0], rows[1])); // r0w1 r1w1 r0w3 r1w3
        let t2 = avx2!(avx2 => _mm256_unpacklo_epi64(rows[2], rows[3]));
        let t3 = avx2!(avx2 => _mm256_unpackhi_epi64(rows[2], rows[3]));
        avx2!(avx2 => [
            _mm256_permute2x128_si256::<0x20>(t0, t2),
            _mm256_permute2x128_si256::<0x20>(t1, t3),
            _mm256_permute2x128_si256::<0x31>(t0, t2),
            _mm256_permute2x128_si256::<0x31>(t1, t3),
        ])
    }

    impl<S: Copy> YmmPair<S> {
        #[inline(always)]
        fn rotl<const N: i32>(self) -> Self {
            both!(self => |a| avx2!(self.avx2 => _mm256_or_si256(
                _mm256_slli_epi64::<N>(a),
                _mm256_srl_epi64(a, _mm_cvtsi32_si128(64 - N))
            )))
        }
    }

    impl<S: Sbox4> Lanes8 for YmmPair<S> {
        type Word = u64;
        type Isa = (Avx2, S);
        rotations64!();
        #[inline(always)]
        fn isa(self) -> (Avx2, S) {
            (self.avx2, self.sbox)
        }
        #[inline(always)]
        fn splat((avx2, sbox): (Avx2, S), x: u64) -> Self {
            let v = avx2!(avx2 => _mm256_set1_epi64x(x as i64));
            YmmPair {
                lo: v,
                hi: v,
                avx2,
                sbox,
            }
        }
        #[inline(always)]
        fn load((avx2, sbox): (Avx2, S), words: &[u64; LANES]) -> Self {
            YmmPair {
                lo: load_ymm(avx2, words.first_chunk().unwrap()),
                hi: load_ymm(avx2, words.last_chunk().unwrap()),
                avx2,
                sbox,
            }
        }
        #[inline(always)]
        fn store(self, words: &mut [u64; LANES]) {
            store_ymm(self.avx2, self.lo, words.first_chunk_mut().unwrap());
            store_ymm(self.avx2, self.hi, words.last_chunk_mut().unwrap());
        }
        #[inline(always)]
        fn inputs(
            (avx2, sbox): (Avx2, S),
            input: Input<'_, u64>,
            starts: &[usize; LANES],
            k: usize,
        ) -> [Self; 8] {
            let order = avx2!(avx2 => _mm256_setr_epi8(
                7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15,
                14, 13, 12, 11, 10, 9, 8
            ));
            // words[half][j]: word j of lanes 4*half..4*half+4.
            let mut words = [[avx2!(avx2 => _mm256_setzero_si256()); 8]; 2];
            for (half, out) in words.iter_mut().enumerate() {
                for part in 0..2 {
                    let mut rows = [avx2!(avx2 => _mm256_setzero_si256()); 4];
                    for (row, &start) in rows.iter_mut().zip(&starts[4 * half..]) {
                        *row = match input {
                            Input::Blocks(data) => {
                                let bytes =
                                    data[start + 64 * k + 32 * part..].first_chunk().unwrap();
                                let v = load_ymm_bytes(avx2, bytes);
                                avx2!(avx2 => _mm256_shuffle_epi8(v, order))
                            }
                            Input::Words(words) => {
                                let quarter = words[start + k][4 * part..].first_chunk().unwrap();
                                load_ymm(avx2, quarter)
                            }
                        };
                    }
                    out[4 * part..4 * part + 4].copy_from_slice(&transpose4(avx2, rows));
                }
            }
            core::array::from_fn(|j| YmmPair {
                lo: words[0][j],
                hi: words[1][j],
                avx2,
                sbox,
            })
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            both!(self, o => |a, b| avx2!(self.avx2 => _mm256_add_epi64(a, b)))
        }
        #[inline(always)]
        fn xor(self, o: Self) -> Self {
            both!(self, o => |a, b| avx2!(self.avx2 => _mm256_xor_si256(a, b)))
        }
        #[inline(always)]
        fn select(self, b: Self, c: Self) -> Self {
            both!(self, b, c => |a, b, c| avx2!(self.avx2 =>
                _mm256_xor_si256(c, _mm256_and_si256(a, _mm256_xor_si256(b, c)))
            ))
        }
        #[inline(always)]
        fn f(self) -> Self {
            both!(self => |a| f4(self.avx2, a))
        }
        #[inline(always)]
        fn g(self) -> Self {
            let avx2 = self.avx2;
            both!(self => |a| {
                let y = avx2!(avx2 => _mm256_add_epi32(a, _mm256_set1_epi64x(G_AB as i64)));
                let product = avx2!(avx2 => _mm256_mul_epu32(_mm256_srli_epi64::<32>(y), y));
                // Rotating a lane by 32 swaps its 32-bit halves.
                let rotated = avx2!(avx2 => _mm256_shuffle_epi32::<0b10_11_00_01>(product));
                avx2!(avx2 => _mm256_add_epi64(f4(avx2, a), rotated))
            })
        }
        #[inline(always)]
        fn sb(self) -> Self {
            both!(self => |a| self.sbox.sb(a))
        }
    }

    impl<S: Sbox4> Halves8 for YmmPair<S> {
        #[inline(always)]
        fn add_carry(self, sum: Self, addend: Self) -> Self {
            // AVX2 compares signed: flipping the top bits makes it an unsigned compare; a true
            // lane is -1, so subtracting it adds the carry.
            let avx2 = self.avx2;
            both!(self, sum, addend => |x, s, a| {
                let top = avx2!(avx2 => _mm256_set1_epi64x(i64::MIN));
                let below = avx2!(avx2 => _mm256_cmpgt_epi64(
                    _mm256_xor_si256(a, top),
                    _mm256_xor_si256(s, top)
                ));
                avx2!(avx2 => _mm256_sub_epi64(x, below))
            })
        }
        #[inline(always)]
        fn rol<const N: i32>(self) -> Self {
            self.rotl::<N>()
        }
        #[inline(always)]
        fn mul32(self, o: Self) -> Self {
            both!(self, o => |a, b| avx2!(self.avx2 => _mm256_mul_epu32(a, b)))
        }
        #[inline(always)]
        fn shr32(self) -> Self {
            both!(self => |a| avx2!(self.avx2 => _mm256_srli_epi64::<32>(a)))
        }
        #[inline(always)]
        fn low32(self) -> Self {
            both!(self => |a| avx2!(self.avx2 => _mm256_and_si256(
                a,
                _mm256_set1_epi64x(0xFFFF_FFFF)
            )))
        }
        #[inline(always)]
        fn join32(self, high: Self) -> Self {
            both!(self, high => |a, h| avx2!(self.avx2 => _mm256_blend_epi32::<0b1010_1010>(
                a,
                _mm256_slli_epi64::<32>(h)
            )))
        }
    }

    /// BitMix: each masked swap is two bit selects on the old values. (Macros, not closures:
    /// a closure would not inherit the entry function's target features.)
    #[inline(always)]
    fn bitmix<V: Lanes8>(isa: V::Isa, w: &mut [V; 4]) {
        let j3 = V::splat(isa, <V::Word as Word>::J3);
        let j5 = V::splat(isa, <V::Word as Word>::J5);
        let j6 = V::splat(isa, <V::Word as Word>::J6);
        macro_rules! swap {
            ($a:literal, $b:literal, $mask:expr) => {
                let (x, y) = (w[$a], w[$b]);
                w[$a] = $mask.select(y, x);
                w[$b] = $mask.select(x, y);
            };
        }
        swap!(0, 2, j6);
        swap!(1, 3, j3);
        swap!(0, 1, j5);
        swap!(2, 3, j5);
    }

    /// One compression of eight lanes: message words `m` (transposed), chains `c` in place.
    #[inline(always)]
    pub(super) fn compress<V: Lanes8>(isa: V::Isa, m: [V; 8], c: &mut [[V; 4]; 5]) {
        let rc = |i: usize| V::splat(isa, <V::Word as Word>::RC[i]);
        let mut ms = [V::splat(isa, Default::default()); 33];
        ms[..8].copy_from_slice(&m);
        macro_rules! schedule {
            ($($i:literal)*) => {$(
                let sum = ms[$i - 8]
                    .add(rc($i - 8))
                    .add(ms[$i - 1].g().add(ms[$i - 1].select(ms[$i - 2], ms[$i - 3])))
                    .add(ms[$i - 4]);
                ms[$i] = sum.sb().rotl_ms();
            )*};
        }
        let mut w = c[0];
        macro_rules! round {
            ($r:literal, $p:expr) => {
                let p: [V; 4] = $p;
                for j in 0..4 {
                    w[j] = w[j].xor(p[j]);
                }
                round!(@step $r, 0);
                round!(@step $r, 1);
                round!(@step $r, 2);
                round!(@step $r, 3);
                bitmix(isa, &mut w);
                if $r < 4 {
                    const NEXT: usize = if $r < 4 { $r + 1 } else { 4 };
                    for j in 0..4 {
                        w[j] = w[j].xor(c[NEXT][j]);
                    }
                }
                if $r >= 1 {
                    c[$r] = w;
                }
            };
            (@step $r:literal, $i:literal) => {
                let a = w[($i + 3) % 4];
                let sum = w[$i]
                    .add(a.f())
                    .add(a.select(w[($i + 2) % 4], w[($i + 1) % 4]).add(rc(24 - 4 * $r - $i)));
                w[$i] = sum.sb().rotl_rnd();
            };
        }
        let at = |s: &[V; 33], k: usize| [s[k], s[k + 1], s[k + 2], s[k + 3]];
        schedule!(8 9 10 11 12);
        let mut p0 = [V::splat(isa, Default::default()); 4];
        for j in 0..4 {
            p0[j] = ms[j].rotl_in().xor(ms[j + 4]);
        }
        bitmix(isa, &mut p0);
        round!(0, p0);
        schedule!(13 14 15 16 17);
        round!(1, at(&ms, 14));
        schedule!(18 19 20 21 22);
        round!(2, at(&ms, 19));
        schedule!(23 24 25 26 27);
        round!(3, at(&ms, 24));
        schedule!(28 29 30 31 32);
        round!(4, at(&ms, 29));
    }

    /// Lane l compresses `count` inputs from `starts[l]` into `chains[l]`.
    #[inline(always)]
    fn run<V: Lanes8>(
        isa: V::Isa,
        chains: &mut [Chain<V::Word>; LANES],
        input: Input<'_, V::Word>,
        starts: &[usize; LANES],
        count: usize,
    ) {
        // Transposed: c[r][j] holds word j of row r of every lane.
        let mut rows = [[[V::Word::default(); LANES]; 4]; 5];
        for (l, chain) in chains.iter().enumerate() {
            for r in 0..5 {
                for j in 0..4 {
                    rows[r][j][l] = chain[r][j];
                }
            }
        }
        let mut c = [[V::splat(isa, Default::default()); 4]; 5];
        for (row, words) in c.iter_mut().zip(&rows) {
            for (v, words) in row.iter_mut().zip(words) {
                *v = V::load(isa, words);
            }
        }
        for k in 0..count {
            compress(isa, V::inputs(isa, input, starts, k), &mut c);
        }
        for (r, row) in c.iter().enumerate() {
            for (j, v) in row.iter().enumerate() {
                v.store(&mut rows[r][j]);
            }
        }
        for (l, chain) in chains.iter_mut().enumerate() {
            for r in 0..5 {
                for j in 0..4 {
                    chain[r][j] = rows[r][j][l];
                }
            }
        }
    }

    /// The entry function of one form: where the generic code above becomes instructions. It
    /// takes the form's tokens (`$tokens: $form`) and hands the lanes their tokens (`$isa`).
    macro_rules! entry {
        (
            $name:ident,
            $features:tt,
            $lanes:ty,
            $word:ty,
            |$tokens:tt: $form:ty| $isa:expr
        ) => {
            #[target_feature(enable = $features)]
            #[inline(never)]
            pub(super) fn $name(
                $tokens: $form,
                chains: &mut [Chain<$word>; LANES],
                input: Input<'_, $word>,
                starts: &[usize; LANES],
                count: usize,
            ) {
                crate::platform::align_frame();
                run::<$lanes>($isa, chains, input, starts, count)
            }
        };
    }

    entry!(
        avx512,
        "avx512f,avx512bw,avx512vl,avx512dq,gfni",
        Zmm,
        u64,
        |tokens: (Avx512, Gfni)| tokens
    );
    entry!(
        avx2_gfni,
        "avx2,avx,gfni",
        YmmPair<GfniSbox>,
        u64,
        |(avx2, gfni): (Avx2, GfniAvx2)| (avx2, GfniSbox(gfni))
    );
    entry!(
        avx2_gather,
        "avx2,avx",
        YmmPair<GatherSbox>,
        u64,
        |avx2: Avx2| (avx2, GatherSbox(avx2))
    );
    entry!(
        avx512_words128,
        "avx512f,avx512bw,avx512vl,avx512dq,gfni",
        Wide128<Zmm>,
        u128,
        |tokens: (Avx512, Gfni)| tokens
    );
    entry!(
        avx2_gfni_words128,
        "avx2,avx,gfni",
        Wide128<YmmPair<GfniSbox>>,
        u128,
        |(avx2, gfni): (Avx2, GfniAvx2)| (avx2, GfniSbox(gfni))
    );
    entry!(
        avx2_gather_words128,
        "avx2,avx",
        Wide128<YmmPair<GatherSbox>>,
        u128,
        |avx2: Avx2| (avx2, GatherSbox(avx2))
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::sandstorm::fast::{compress_lanes, load_block};
    use crate::lab::testing::pseudo_random_bytes as pseudo_random;

    /// Eight pseudo-random chains of `W` words.
    fn chains<W: Word>(seed: u64) -> [Chain<W>; LANES] {
        let bytes = pseudo_random(seed, LANES * 5 * 4 * W::BYTES);
        core::array::from_fn(|l| {
            core::array::from_fn(|r| {
                core::array::from_fn(|j| {
                    W::from_be_bytes(&bytes[((l * 5 + r) * 4 + j) * W::BYTES..])
                })
            })
        })
    }

    /// Lane starts in a shuffled order and off 64-byte alignment, as the tree hands them over
    /// when superblocks differ in length.
    fn shuffled_starts(stride: usize) -> [usize; LANES] {
        core::array::from_fn(|l| (l * 5) % LANES * stride + l)
    }

    /// Every form this CPU has (the skipped ones printed), each recorded as run. None at all is
    /// reported as `test` skipped (CI prints it), and fails where AVX2 is here (it alone gives
    /// the gather form).
    fn forms(test: &str) -> Vec<Wide> {
        let mut forms = Vec::new();
        for (name, form) in [
            ("avx512", Wide::avx512()),
            ("avx2", Wide::avx2()),
            ("avx2-gather", Wide::avx2_gather()),
        ] {
            match form {
                Some(wide) => {
                    crate::forms_log::ran("sandstorm-lanes", wide.name());
                    forms.push(wide);
                }
                None => eprintln!("skipped the {name} form: not available here"),
            }
        }
        if forms.is_empty() {
            assert!(
                Avx2::detect().is_none(),
                "AVX2 is here but SANDstorm has no eight-lane form"
            );
            crate::forms_log::skipped(
                test,
                "no eight-lane form: no AVX2 here (or PARHASH_DISABLE_ISA)",
            );
        }
        forms
    }

    /// Every form against the portable compression on message blocks: (seed, blocks per lane,
    /// bytes between lane starts) cases.
    fn blocks_equal_portable<W: Word>(cases: [(u64, usize, usize); 3]) {
        let block_bytes = 8 * W::BYTES;
        let test = format!(
            "sandstorm lanes: blocks_equal_portable::<u{}>",
            W::BYTES * 8
        );
        for wide in forms(&test) {
            for (seed, blocks, stride) in cases {
                let data = pseudo_random(seed, LANES * stride + block_bytes * blocks);
                let starts = shuffled_starts(stride);
                let start = chains::<W>(seed);
                let mut got = start;
                wide.compress_blocks(&mut got, &data, &starts, blocks);
                for l in 0..LANES {
                    let mut c = [start[l]];
                    for b in 0..blocks {
                        let block = load_block(&data[starts[l] + block_bytes * b..]);
                        compress_lanes::<W, 1>(&[block], &mut c);
                    }
                    assert_eq!(got[l], c[0], "{} seed {seed} lane {l}", wide.name());
                }
            }
        }
    }

    /// Every form against the portable compression on 8-word inputs (level-2 chains).
    fn words_equal_portable<W: Word>(seed: u64) {
        let bytes = pseudo_random(seed, W::BYTES * 8 * 8 * 13);
        let inputs: Vec<[W; 8]> = bytes.chunks(8 * W::BYTES).map(load_block).collect();
        let (stride, count) = (12, 12);
        let starts = shuffled_starts(stride);
        let test = format!("sandstorm lanes: words_equal_portable::<u{}>", W::BYTES * 8);
        for wide in forms(&test) {
            let start = chains::<W>(seed);
            let mut got = start;
            wide.compress_words(&mut got, &inputs, &starts, count);
            for l in 0..LANES {
                let mut c = [start[l]];
                for k in 0..count {
                    compress_lanes::<W, 1>(&[inputs[starts[l] + k]], &mut c);
                }
                assert_eq!(got[l], c[0], "{} lane {l}", wide.name());
            }
        }
    }

    #[test]
    fn wide_blocks_equal_portable() {
        blocks_equal_portable::<u64>([(1, 1, 64), (2, 10, 640), (3, 3, 1000)]);
        blocks_equal_portable::<u128>([(4, 1, 128), (5, 10, 1280), (6, 3, 1000)]);
    }

    #[test]
    fn wide_words_equal_portable() {
        words_equal_portable::<u64>(9);
        words_equal_portable::<u128>(10);
    }

    /// Carries and products at their extremes: all-ones and near-all-ones halves make every
    /// partial sum of the 128-bit arithmetic as large as it gets.
    #[test]
    fn wide_extreme_words_equal_portable_128() {
        let patterns = [
            u128::MAX,
            u128::MAX - 1,
            1u128 << 127,
            u128::from(u64::MAX),
            u128::MAX << 64,
            0,
        ];
        let inputs: Vec<[u128; 8]> = (0..LANES)
            .map(|l| core::array::from_fn(|j| patterns[(l + j) % patterns.len()]))
            .collect();
        let starts: [usize; LANES] = core::array::from_fn(|l| l);
        for wide in forms("sandstorm lanes: wide_extreme_words_equal_portable_128") {
            let start: [Chain<u128>; LANES] =
                core::array::from_fn(|l| [[patterns[l % patterns.len()]; 4]; 5]);
            let mut got = start;
            wide.compress_words(&mut got, &inputs, &starts, 1);
            for l in 0..LANES {
                let mut c = [start[l]];
                compress_lanes::<u128, 1>(&[inputs[l]], &mut c);
                assert_eq!(got[l], c[0], "{} lane {l}", wide.name());
            }
        }
    }

    /// The tokens a lane type holds are proofs, not data: each is exactly its registers.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_token_costs_no_space() {
        use kernel::{GatherSbox, GfniSbox, Wide128, YmmPair, Zmm};
        assert_eq!(size_of::<GfniSbox>(), 0);
        assert_eq!(size_of::<GatherSbox>(), 0);
        assert_eq!(size_of::<Zmm>(), 64);
        assert_eq!(size_of::<YmmPair<GfniSbox>>(), 64);
        assert_eq!(size_of::<YmmPair<GatherSbox>>(), 64);
        assert_eq!(size_of::<Wide128<Zmm>>(), 128);
        assert_eq!(size_of::<Wide128<YmmPair<GfniSbox>>>(), 128);
        assert_eq!(size_of::<Wide128<YmmPair<GatherSbox>>>(), 128);
    }

    #[test]
    fn detect_prefers_avx512_then_avx2() {
        let expected = Wide::avx512().or_else(Wide::avx2).map(Wide::name);
        assert_eq!(Wide::detect().map(Wide::name), expected);
        if let Some(gather) = Wide::avx2_gather() {
            assert_eq!(gather.name(), "avx2-gather");
        }
    }
}
