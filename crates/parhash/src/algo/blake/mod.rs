//! BLAKE-224/256/384/512, the final (round-3) version of the SHA-3 finalist: 14 rounds for
//! BLAKE-224/256, 16 for BLAKE-384/512, salt zero.
//!
//! Two forms of the compression function:
//! - `sequential` ([`sequential`]): portable scalar code, the literal G function applied to the
//!   four columns, then the four diagonals;
//! - `parallel`: the seed study's parallelism inside a round (the four column G functions are
//!   independent, and so are the four diagonal ones) mapped to SIMD: each row of the 4x4 state
//!   is one vector register, one instruction does one step of four G functions, and shuffles
//!   line the diagonals up as columns. Kernels: [`parallel_sse41`] and [`parallel_avx2`] for the
//!   32-bit words of BLAKE-224/256, [`parallel_avx2`] and [`parallel_avx512`] for the 64-bit words
//!   of BLAKE-384/512, and the same data flow in portable Rust ([`parallel_portable`]).
//!
//! The one dispatch point per word size is [`Backend256`] / [`Backend512`]: chosen once per
//! hasher, matched once per call.

pub mod parallel_portable;
pub mod sequential;

#[cfg(target_arch = "x86_64")]
pub mod parallel_avx2;
#[cfg(target_arch = "x86_64")]
pub mod parallel_avx512;
#[cfg(target_arch = "x86_64")]
pub mod parallel_sse41;
#[cfg(target_arch = "x86_64")]
mod rows;

use core::marker::PhantomData;
use digest::{
    array::{Array, ArraySize},
    block_api::{Block, Buffer, FixedOutputCore, UpdateCore},
    typenum::{U128, U28, U32, U48, U64},
    Output,
};

use super::block_api::{block_core, hashers};
use super::sha2;
use crate::dispatch::backends;
#[cfg(test)]
use crate::dispatch::Dispatch;

/// Rounds of BLAKE-224/256 (final version).
pub const ROUNDS256: usize = 14;
/// Rounds of BLAKE-384/512 (final version).
pub const ROUNDS512: usize = 16;

/// The message permutations σ_0..σ_9 (round `r` uses σ_{r mod 10}).
#[rustfmt::skip]
pub const SIGMA: [[usize; 16]; 10] = [
    [ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15],
    [14, 10,  4,  8,  9, 15, 13,  6,  1, 12,  0,  2, 11,  7,  5,  3],
    [11,  8, 12,  0,  5,  2, 15, 13, 10, 14,  3,  6,  7,  1,  9,  4],
    [ 7,  9,  3,  1, 13, 12, 11, 14,  2,  6,  5, 10,  4,  0, 15,  8],
    [ 9,  0,  5,  7,  2,  4, 10, 15, 14,  1, 11, 12,  6,  8,  3, 13],
    [ 2, 12,  6, 10,  0, 11,  8,  3,  4, 13,  7,  5, 15, 14,  1,  9],
    [12,  5,  1, 15, 14, 13,  4, 10,  0,  7,  6,  3,  9,  2,  8, 11],
    [13, 11,  7, 14, 12,  1,  3,  9,  5,  0, 15,  4,  8,  6,  2, 10],
    [ 6, 15, 14,  9, 11,  3,  0,  8, 12,  2, 13,  7,  1,  4, 10,  5],
    [10,  2,  8,  4,  7,  6,  1,  5, 15, 11,  9, 14,  3, 12, 13,  0],
];

/// BLAKE-256 constants c_0..c_15: the first digits of π.
#[rustfmt::skip]
pub const C256: [u32; 16] = [
    0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344, 0xA4093822, 0x299F31D0, 0x082EFA98, 0xEC4E6C89,
    0x452821E6, 0x38D01377, 0xBE5466CF, 0x34E90C6C, 0xC0AC29B7, 0xC97C50DD, 0x3F84D5B5, 0xB5470917,
];

/// BLAKE-512 constants c_0..c_15: the first digits of π.
#[rustfmt::skip]
pub const C512: [u64; 16] = [
    0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0, 0x082EFA98EC4E6C89,
    0x452821E638D01377, 0xBE5466CF34E90C6C, 0xC0AC29B7C97C50DD, 0x3F84D5B5B5470917,
    0x9216D5D98979FB1B, 0xD1310BA698DFB5AC, 0x2FFD72DBD01ADFB7, 0xB8E1AFED6A267E96,
    0xBA7C9045F12C7F99, 0x24A19947B3916CF7, 0x0801F2E2858EFC16, 0x636920D871574E69,
];

// The initial values are those of SHA-224/256/384/512.
/// BLAKE-224 initial value.
pub const IV224: [u32; 8] = sha2::consts::IV224;
/// BLAKE-256 initial value.
pub const IV256: [u32; 8] = sha2::consts::IV256;
/// BLAKE-384 initial value.
pub const IV384: [u64; 8] = sha2::consts::IV384;
/// BLAKE-512 initial value.
pub const IV512: [u64; 8] = sha2::consts::IV512;

macro_rules! table_map {
    ($name:ident: $ty:ty = |$i:ident| $f:expr) => {
        pub(crate) const $name: [[[$ty; 8]; 2]; 10] = {
            let mut t = [[[0 as $ty; 8]; 2]; 10];
            let mut r = 0;
            while r < 10 {
                let mut step = 0;
                while step < 2 {
                    let mut lane = 0;
                    while lane < 8 {
                        let $i = (r, step, lane);
                        t[r][step][lane] = $f;
                        lane += 1;
                    }
                    step += 1;
                }
                r += 1;
            }
            t
        };
    };
}

// For the vector forms: per round (mod 10) and step (0 = columns, 1 = diagonals), the message
// index of each of the eight operands `[first of G0..G3, second of G0..G3]`: the first operand
// of G_i is `m[σ(2i)]`, the second `m[σ(2i + 1)]`; and the partner constant's index of each:
// `c[σ(2i + 1)]` for the first, `c[σ(2i)]` for the second.
table_map!(MSG_INDEX: usize = |i| SIGMA[i.0][2 * (4 * i.1 + i.2 % 4) + i.2 / 4]);
table_map!(CONST_INDEX: usize = |i| SIGMA[i.0][2 * (4 * i.1 + i.2 % 4) + 1 - i.2 / 4]);
table_map!(MSG_INDEX32: i32 = |i| MSG_INDEX[i.0][i.1][i.2] as i32);
table_map!(MSG_INDEX64: i64 = |i| MSG_INDEX[i.0][i.1][i.2] as i64);
table_map!(MSG_CONST256: u32 = |i| C256[CONST_INDEX[i.0][i.1][i.2]]);
table_map!(MSG_CONST512: u64 = |i| C512[CONST_INDEX[i.0][i.1][i.2]]);

/// The 16 big-endian message words of a BLAKE-256 block.
#[inline(always)]
pub(crate) fn load_be32(block: &[u8; 64]) -> [u32; 16] {
    let mut m = [0u32; 16];
    for (w, chunk) in m.iter_mut().zip(block.chunks_exact(4)) {
        *w = u32::from_be_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    m
}

/// The 16 big-endian message words of a BLAKE-512 block.
#[inline(always)]
pub(crate) fn load_be64(block: &[u8; 128]) -> [u64; 16] {
    let mut m = [0u64; 16];
    for (w, chunk) in m.iter_mut().zip(block.chunks_exact(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        *w = u64::from_be_bytes(b);
    }
    m
}

backends! {
    /// Which compression code a BLAKE-224/256 hasher runs: the single dispatch point for 32-bit
    /// words.
    pub enum Backend256 {
        /// Scalar, literal G function.
        Sequential => "sequential": "portable scalar G function, columns then diagonals";
        // The best SIMD kernel available (see BENCHMARKS.md for the order).
        "parallel" = ["parallel-avx2", "parallel-sse41", "parallel-portable"]:
            "four G functions per vector instruction (best ISA available)";
        /// Row-parallel data flow in portable Rust.
        ParallelPortable => "parallel-portable": "row-parallel data flow on [u32; 4] arrays";
        /// Rows in SSE registers, message gathered with scalar loads.
        ParallelSse41(Sse41) => "parallel-sse41":
            "rows in 128-bit registers, pshufb rotations, scalar message gather";
        /// Rows in SSE registers, message gathered with AVX2 `vpermd`.
        ParallelAvx2(Avx2) => "parallel-avx2":
            "rows in 128-bit registers, message gathered with vpermd";
    }
}

impl Backend256 {
    #[inline]
    fn compress(self, h: &mut [u32; 8], blocks: &[[u8; 64]], bits_before: u64) {
        match self {
            Backend256::Sequential => sequential::blake256::compress_blocks(h, blocks, bits_before),
            Backend256::ParallelPortable => {
                parallel_portable::blake256::compress_blocks(h, blocks, bits_before)
            }
            #[cfg(target_arch = "x86_64")]
            Backend256::ParallelSse41(t) => {
                parallel_sse41::blake256::compress_blocks(t, h, blocks, bits_before)
            }
            #[cfg(target_arch = "x86_64")]
            Backend256::ParallelAvx2(t) => {
                parallel_avx2::blake256::compress_blocks(t, h, blocks, bits_before)
            }
        }
    }
}

backends! {
    /// Which compression code a BLAKE-384/512 hasher runs: the single dispatch point for 64-bit
    /// words.
    pub enum Backend512 {
        /// Scalar, literal G function.
        Sequential => "sequential": "portable scalar G function, columns then diagonals";
        // AVX2 before AVX-512, because on Zen 4 the AVX2 kernel measured 5-8 % faster from 64 B
        // to 1 MiB (BENCHMARKS.md), likely because Zen 4 splits the AVX-512 kernel's 512-bit
        // message permutes into two halves, which costs more than `vprorq` saves on the rotations.
        "parallel" = ["parallel-avx2", "parallel-avx512", "parallel-portable"]:
            "four G functions per vector instruction (best ISA available)";
        /// Row-parallel data flow in portable Rust.
        ParallelPortable => "parallel-portable": "row-parallel data flow on [u64; 4] arrays";
        /// Rows in AVX2 registers.
        ParallelAvx2(Avx2) => "parallel-avx2":
            "rows in 256-bit registers, shuffle and shift rotations";
        /// Rows in AVX2 registers with AVX-512VL rotates and `vpermt2q` message gathers.
        ParallelAvx512(Avx512) => "parallel-avx512":
            "rows in 256-bit registers, vprorq rotations, vpermt2q message gather";
    }
}

impl Backend512 {
    #[inline]
    fn compress(self, h: &mut [u64; 8], blocks: &[[u8; 128]], bits_before: u128) {
        match self {
            Backend512::Sequential => sequential::blake512::compress_blocks(h, blocks, bits_before),
            Backend512::ParallelPortable => {
                parallel_portable::blake512::compress_blocks(h, blocks, bits_before)
            }
            #[cfg(target_arch = "x86_64")]
            Backend512::ParallelAvx2(t) => {
                parallel_avx2::blake512::compress_blocks(t, h, blocks, bits_before)
            }
            #[cfg(target_arch = "x86_64")]
            Backend512::ParallelAvx512(t) => {
                parallel_avx512::blake512::compress_blocks(t, h, blocks, bits_before)
            }
        }
    }
}

/// Parameters of one BLAKE instance.
pub trait BlakeParams: 'static {
    /// Digest size in bytes.
    type OutputSize: ArraySize;
    /// Display name.
    const NAME: &'static str;
    /// The padding bit before the length field: 1 for BLAKE-256/512, 0 for BLAKE-224/384.
    const FINAL_BIT: u8;
    /// The word: `u32` for BLAKE-224/256, `u64` for BLAKE-384/512.
    type Word;
    /// Initial chaining value.
    const IV: [Self::Word; 8];
}

/// Block-level state of BLAKE-224/256; [`Blake224`] and [`Blake256`] add buffering.
pub struct Blake256Core<P: BlakeParams<Word = u32>> {
    h: [u32; 8],
    block_count: u64,
    backend: Backend256,
    params: PhantomData<P>,
}

/// Block-level state of BLAKE-384/512; [`Blake384`] and [`Blake512`] add buffering.
pub struct Blake512Core<P: BlakeParams<Word = u64>> {
    h: [u64; 8],
    block_count: u128,
    backend: Backend512,
    params: PhantomData<P>,
}

macro_rules! blake_core {
    ($core:ident, $word:ty, $count:ty, $block:ty, $block_len:literal, $backend:ident) => {
        impl<P: BlakeParams<Word = $word>> $core<P> {
            fn with_backend(backend: $backend) -> Self {
                Self {
                    h: P::IV,
                    block_count: 0,
                    backend,
                    params: PhantomData,
                }
            }
        }

        block_core!($core<P: BlakeParams<Word = $word>>, block: $block, output: P::OutputSize, buffer: Eager);

        impl<P: BlakeParams<Word = $word>> UpdateCore for $core<P> {
            #[inline]
            fn update_blocks(&mut self, blocks: &[Block<Self>]) {
                let bits_before = self.block_count.wrapping_mul($block_len * 8);
                self.block_count = self.block_count.wrapping_add(blocks.len() as $count);
                self.backend
                    .compress(&mut self.h, Array::cast_slice_to_core(blocks), bits_before);
            }
        }

        impl<P: BlakeParams<Word = $word>> FixedOutputCore for $core<P> {
            fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
                const LEN_AT: usize = $block_len - 2 * size_of::<$word>();
                let pos = buffer.get_pos();
                let total_bits = self
                    .block_count
                    .wrapping_mul($block_len)
                    .wrapping_add(pos as $count)
                    .wrapping_mul(8);
                // The kernels add one block's bits to `bits_before` before using it.
                let counter_for = |bits: $count| bits.wrapping_sub($block_len * 8);
                let mut block: [u8; $block_len] = buffer.pad_with_zeros().into();
                block[pos] = 0x80;
                let mut h = self.h;
                // A block's counter is the number of message bits up to its end; a block that
                // holds no message bits at all (padding only) has counter 0.
                let first_counter = if pos == 0 { 0 } else { total_bits };
                if pos < LEN_AT {
                    block[LEN_AT - 1] |= P::FINAL_BIT;
                    block[LEN_AT..].copy_from_slice(&total_bits.to_be_bytes());
                    self.backend
                        .compress(&mut h, &[block], counter_for(first_counter));
                } else {
                    self.backend
                        .compress(&mut h, &[block], counter_for(first_counter));
                    let mut last = [0u8; $block_len];
                    last[LEN_AT - 1] = P::FINAL_BIT;
                    last[LEN_AT..].copy_from_slice(&total_bits.to_be_bytes());
                    self.backend.compress(&mut h, &[last], counter_for(0));
                }
                let words = out.len() / size_of::<$word>();
                for (chunk, word) in out.chunks_exact_mut(size_of::<$word>()).zip(&h[..words]) {
                    chunk.copy_from_slice(&word.to_be_bytes());
                }
            }
        }

    };
}

blake_core!(Blake256Core, u32, u64, U64, 64, Backend256);
blake_core!(Blake512Core, u64, u128, U128, 128, Backend512);

hashers! {
    impl BlakeParams;
    /// BLAKE-224 (SHA-3 finalist, final version: 14 rounds, salt zero).
    Blake224(Blake256Core<Blake224Params>, U28, "BLAKE-224") { const FINAL_BIT: u8 = 0; type Word = u32; const IV: [u32; 8] = IV224; }
    /// BLAKE-256 (SHA-3 finalist, final version: 14 rounds, salt zero).
    Blake256(Blake256Core<Blake256Params>, U32, "BLAKE-256") { const FINAL_BIT: u8 = 1; type Word = u32; const IV: [u32; 8] = IV256; }
    /// BLAKE-384 (SHA-3 finalist, final version: 16 rounds, salt zero).
    Blake384(Blake512Core<Blake384Params>, U48, "BLAKE-384") { const FINAL_BIT: u8 = 0; type Word = u64; const IV: [u64; 8] = IV384; }
    /// BLAKE-512 (SHA-3 finalist, final version: 16 rounds, salt zero).
    Blake512(Blake512Core<Blake512Params>, U64, "BLAKE-512") { const FINAL_BIT: u8 = 1; type Word = u64; const IV: [u64; 8] = IV512; }
}

/// Compresses whole BLAKE-256 blocks with the named variant (for tests); `false`
/// when the variant is unknown or unavailable here.
#[cfg(test)]
pub fn compress256_with_variant(
    name: &str,
    h: &mut [u32; 8],
    blocks: &[[u8; 64]],
    bits_before: u64,
) -> bool {
    Backend256::by_name(name)
        .map(|backend| backend.compress(h, blocks, bits_before))
        .is_some()
}

/// Compresses whole BLAKE-512 blocks with the named variant (for tests); `false`
/// when the variant is unknown or unavailable here.
#[cfg(test)]
pub fn compress512_with_variant(
    name: &str,
    h: &mut [u64; 8],
    blocks: &[[u8; 128]],
    bits_before: u128,
) -> bool {
    Backend512::by_name(name)
        .map(|backend| backend.compress(h, blocks, bits_before))
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_compresses_alike_at_carry_prone_counters() {
        let blocks256: Vec<[u8; 64]> = (0..3u8)
            .map(|k| core::array::from_fn(|i| (i as u8).wrapping_mul(7).wrapping_add(k)))
            .collect();
        let blocks512: Vec<[u8; 128]> = (0..3u8)
            .map(|k| core::array::from_fn(|i| (i as u8).wrapping_mul(13).wrapping_add(k)))
            .collect();
        for start in [0u64, u32::MAX as u64 - 512, u64::MAX - 512, i32::MAX as u64] {
            let mut expected = IV256;
            sequential::blake256::compress_blocks(&mut expected, &blocks256, start);
            for v in Backend256::infos() {
                let mut h = IV256;
                assert_eq!(
                    compress256_with_variant(v.name, &mut h, &blocks256, start),
                    v.available
                );
                if v.available {
                    assert_eq!(h, expected, "{} at {start}", v.name);
                }
            }
            let start = (start as u128) << 64 | start as u128;
            let mut expected = IV512;
            sequential::blake512::compress_blocks(&mut expected, &blocks512, start);
            for v in Backend512::infos() {
                let mut h = IV512;
                assert_eq!(
                    compress512_with_variant(v.name, &mut h, &blocks512, start),
                    v.available
                );
                if v.available {
                    assert_eq!(h, expected, "{} at {start}", v.name);
                }
            }
        }
    }
}
