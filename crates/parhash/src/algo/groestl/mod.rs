//! Grøstl-224/256/384/512, the final (tweaked, round 3) SHA-3 finalist.
//!
//! The compression function is `f(h, m) = P(h ⊕ m) ⊕ Q(m) ⊕ h`, with two fixed AES-like
//! permutations P and Q on an 8-row byte matrix (8 columns and 10 rounds for Grøstl-224/256,
//! 16 columns and 14 rounds for Grøstl-384/512). P and Q share nothing but their inputs, so
//! they can run side by side: that is the internal parallelism this module maps to hardware.
//!
//! Forms (the one dispatch point is `Backend`):
//! - `sequential` ([`sequential`]): portable and literal to the specification: AddRoundConstant,
//!   SubBytes, ShiftBytes and MixBytes on the byte matrix, P first, then Q. The oracle.
//! - `parallel-portable` ([`parallel`]): the table form (SubBytes and MixBytes merged into eight
//!   256-entry column tables), with each round of P and the same round of Q in one loop body so
//!   the two independent dependency chains overlap in the CPU's pipelines.
//! - `parallel-avx512` ([`parallel_avx512`]): P and Q together in 512-bit registers with GFNI
//!   (`vgf2p8affineinvqb` is SubBytes for 64 bytes at once, `vgf2p8mulb` the field products of
//!   MixBytes) and AVX-512 VBMI (`vpermb`/`vpermt2b` for ShiftBytes).
//!
//! State layout shared by every form: `cols` little-endian `u64` words, word `c` holding column
//! `c` of the matrix with row `r` in byte `r`. This is exactly the byte order of the
//! specification's byte string (byte `k` is row `k mod 8` of column `k / 8`), read 8 at a time.

pub mod parallel;
pub mod sequential;

#[cfg(target_arch = "x86_64")]
pub mod parallel_aesni;
#[cfg(target_arch = "x86_64")]
pub mod parallel_avx512;

use core::marker::PhantomData;
use digest::{
    array::ArraySize,
    block_api::{Block, Buffer, FixedOutputCore, UpdateCore},
    block_buffer::BlockSizes,
    typenum::{Unsigned, U128, U28, U32, U48, U64},
    Output,
};

use super::block_api::{block_core, counted_bytes, hashers};
use crate::dispatch::backends;
#[cfg(test)]
use crate::dispatch::Dispatch;

/// Chaining state: up to 16 columns (only the first `cols` are used).
pub type State = [u64; 16];

/// Multiplication by `x` in GF(2^8) modulo `x^8 + x^4 + x^3 + x + 1` (the AES field Grøstl uses).
pub const fn xtime(a: u8) -> u8 {
    (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 }
}

/// Product in GF(2^8) (shift-and-add).
pub const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        a = xtime(a);
        b >>= 1;
    }
    p
}

/// The AES S-box that Grøstl's SubBytes uses: the multiplicative inverse in GF(2^8) (0 maps to
/// 0) followed by the affine map `b ⊕ rotl(b,1) ⊕ rotl(b,2) ⊕ rotl(b,3) ⊕ rotl(b,4) ⊕ 0x63`.
pub const SBOX: [u8; 256] = {
    let mut sbox = [0u8; 256];
    let mut x = 0usize;
    while x < 256 {
        // x^254 = x^-1 for x != 0, and 0 for x = 0.
        let mut inv: u8 = 1;
        let mut i = 0;
        while i < 254 {
            inv = gf_mul(inv, x as u8);
            i += 1;
        }
        if x == 0 {
            inv = 0;
        }
        sbox[x] = inv
            ^ inv.rotate_left(1)
            ^ inv.rotate_left(2)
            ^ inv.rotate_left(3)
            ^ inv.rotate_left(4)
            ^ 0x63;
        x += 1;
    }
    sbox
};

/// First row of MixBytes' circulant matrix `B = circ(02, 02, 03, 04, 05, 03, 05, 07)`; row `i`
/// is this row rotated right by `i`, so `B[i][j] = MIX_ROW[(j - i) mod 8]`.
pub const MIX_ROW: [u8; 8] = [2, 2, 3, 4, 5, 3, 5, 7];

/// ShiftBytes offsets (row `i` moves left by `σ[i]` columns) of P and Q, 8 and 16 columns.
pub const SHIFT_P8: [usize; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
pub const SHIFT_Q8: [usize; 8] = [1, 3, 5, 7, 0, 2, 4, 6];
pub const SHIFT_P16: [usize; 8] = [0, 1, 2, 3, 4, 5, 6, 11];
pub const SHIFT_Q16: [usize; 8] = [1, 3, 5, 11, 0, 2, 4, 6];

/// Rounds of P and Q for a state of `cols` columns.
pub const fn rounds(cols: usize) -> usize {
    if cols == 8 {
        10
    } else {
        14
    }
}

/// ShiftBytes offsets for `cols` columns, P or Q.
pub const fn shifts(cols: usize, q: bool) -> [usize; 8] {
    match (cols == 8, q) {
        (true, false) => SHIFT_P8,
        (true, true) => SHIFT_Q8,
        (false, false) => SHIFT_P16,
        (false, true) => SHIFT_Q16,
    }
}

backends! {
    /// Which compression code a hasher runs: the family's single dispatch point.
    pub(crate) enum Backend {
        Sequential => "sequential": "portable, literal byte-matrix rounds; P, then Q";
        // The fastest form on this CPU (see BENCHMARKS.md for the measurements behind the order).
        "parallel" = ["parallel-avx512", "parallel-aesni", "parallel-portable"]:
            "P and Q computed together (best form available)";
        ParallelPortable => "parallel-portable":
            "table-driven rounds of P and Q interleaved in one loop";
        ParallelAvx512(Avx512, Gfni) => "parallel-avx512":
            "P and Q in 512-bit registers: GFNI SubBytes and MixBytes, VBMI ShiftBytes";
        ParallelAesni(AesNi) => "parallel-aesni":
            "rows of P and Q in 128-bit registers: AES-NI SubBytes, byte-shuffle ShiftBytes";
    }
}

impl Backend {
    /// Compresses whole blocks of `8 * cols` bytes into the first `cols` words of `state`.
    #[inline]
    fn compress(self, state: &mut State, blocks: &[u8], cols: usize) {
        match self {
            Backend::Sequential => sequential::compress_blocks(state, blocks, cols),
            Backend::ParallelPortable => parallel::compress_blocks(state, blocks, cols),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAvx512(avx512, gfni) => {
                parallel_avx512::compress_blocks(avx512, gfni, state, blocks, cols)
            }
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAesni(aes) => {
                parallel_aesni::compress_blocks(aes, state, blocks, cols)
            }
        }
    }

    /// The output transformation's core: `state = P(state) ⊕ state`.
    #[inline]
    fn output_transform(self, state: &mut State, cols: usize) {
        match self {
            Backend::Sequential => sequential::output_transform(state, cols),
            Backend::ParallelPortable => parallel::output_transform(state, cols),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAvx512(avx512, gfni) => {
                parallel_avx512::output_transform(avx512, gfni, state, cols)
            }
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAesni(aes) => parallel_aesni::output_transform(aes, state, cols),
        }
    }
}

/// Parameters of one Grøstl instance.
pub trait GroestlParams: 'static {
    /// Message block (and state) size in bytes: 64 or 128.
    type BlockSize: BlockSizes;
    /// Digest size in bytes.
    type OutputSize: ArraySize;
    /// Display name.
    const NAME: &'static str;
}

/// Block-level Grøstl state; the public types ([`Groestl256`], ...) add buffering.
pub struct GroestlCore<P: GroestlParams> {
    state: State,
    block_count: u64,
    backend: Backend,
    params: PhantomData<P>,
}

impl<P: GroestlParams> GroestlCore<P> {
    const COLS: usize = P::BlockSize::USIZE / 8;

    fn with_backend(backend: Backend) -> Self {
        // The initial value is the digest size in bits as a big-endian number in the last
        // bytes of the state, i.e. rows 6 and 7 of the last column.
        let bits = (P::OutputSize::USIZE * 8) as u16;
        let mut state = [0u64; 16];
        state[Self::COLS - 1] = u64::from(bits.swap_bytes()) << 48;
        Self {
            state,
            block_count: 0,
            backend,
            params: PhantomData,
        }
    }
}

impl<P: GroestlParams> UpdateCore for GroestlCore<P> {
    #[inline]
    fn update_blocks(&mut self, blocks: &[Block<Self>]) {
        let bytes = counted_bytes(&mut self.block_count, blocks);
        self.backend.compress(&mut self.state, bytes, Self::COLS);
    }
}

impl<P: GroestlParams> FixedOutputCore for GroestlCore<P> {
    #[inline]
    fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
        // Padding: a 1 bit, zeros, then the total number of blocks (padding included) as a
        // 64-bit big-endian number; a second block is needed when fewer than 9 bytes are free.
        let block = P::BlockSize::USIZE;
        let pos = buffer.get_pos();
        let mut tail = [0u8; 256];
        tail[..pos].copy_from_slice(&buffer.get_data()[..pos]);
        tail[pos] = 0x80;
        let tail_blocks = if pos + 9 <= block { 1 } else { 2 };
        let total = self.block_count.wrapping_add(tail_blocks as u64);
        let end = tail_blocks * block;
        tail[end - 8..end].copy_from_slice(&total.to_be_bytes());

        let mut state = self.state;
        self.backend.compress(&mut state, &tail[..end], Self::COLS);
        self.backend.output_transform(&mut state, Self::COLS);
        // The digest is the last bytes of P(x) ⊕ x.
        let mut bytes = [0u8; 128];
        for (chunk, word) in bytes.chunks_exact_mut(8).zip(&state[..Self::COLS]) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        out.copy_from_slice(&bytes[block - P::OutputSize::USIZE..block]);
    }
}

block_core!(GroestlCore<P: GroestlParams>, block: P::BlockSize, output: P::OutputSize, buffer: Eager);

hashers! {
    impl GroestlParams;
    /// Grøstl-224 (final, tweaked round-3 version).
    Groestl224(GroestlCore<Groestl224Params>, U28, "Groestl-224") { type BlockSize = U64; }
    /// Grøstl-256 (final, tweaked round-3 version).
    Groestl256(GroestlCore<Groestl256Params>, U32, "Groestl-256") { type BlockSize = U64; }
    /// Grøstl-384 (final, tweaked round-3 version).
    Groestl384(GroestlCore<Groestl384Params>, U48, "Groestl-384") { type BlockSize = U128; }
    /// Grøstl-512 (final, tweaked round-3 version).
    Groestl512(GroestlCore<Groestl512Params>, U64, "Groestl-512") { type BlockSize = U128; }
}

/// Runs the permutation pair of one compression (`state = f(state, block)`) with the named
/// variant, for tests. `cols` is 8 or 16; `block` must hold `8 * cols` bytes.
/// Returns `false` when the variant is unknown or unavailable here.
#[cfg(test)]
pub fn compress_with_variant(name: &str, state: &mut State, block: &[u8], cols: usize) -> bool {
    Backend::by_name(name)
        .map(|backend| {
            assert!((cols == 8 || cols == 16) && block.len() == 8 * cols);
            backend.compress(state, block, cols);
        })
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbox_matches_fips197() {
        // Spot values printed in FIPS 197 figure 7 (facts, not our output).
        for (x, want) in [(0x00, 0x63), (0x01, 0x7c), (0x53, 0xed), (0xff, 0x16)] {
            assert_eq!(SBOX[x], want, "S({x:#04x})");
        }
        assert_eq!(gf_mul(0x57, 0x83), 0xc1, "FIPS 197 section 4.2");
    }

    #[test]
    fn every_variant_compresses_alike() {
        for cols in [8, 16] {
            let mut start = [0u64; 16];
            for (i, w) in start.iter_mut().enumerate() {
                *w = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            }
            let block: Vec<u8> = (0..8 * cols).map(|i| (i * 37 + 11) as u8).collect();
            let mut expected = start;
            assert!(compress_with_variant(
                "sequential",
                &mut expected,
                &block,
                cols
            ));
            for v in Backend::infos() {
                let mut s = start;
                assert_eq!(
                    compress_with_variant(v.name, &mut s, &block, cols),
                    v.available,
                    "{}",
                    v.name
                );
                if v.available {
                    assert_eq!(s[..cols], expected[..cols], "{} cols {cols}", v.name);
                }
            }
        }
    }
}
