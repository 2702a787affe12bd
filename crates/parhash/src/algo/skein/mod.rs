//! Skein v1.3 (SHA-3 finalist): Threefish tweakable block ciphers chained by UBI. Implemented:
//! Skein-512-224/256/384/512 (the SHA-3 submission), Skein-256-256 and Skein-1024-1024, all in
//! the simple hashing mode (no key, no tree, one output block).
//!
//! A hash is three UBI calls: the configuration block (computed at compile time, giving each
//! output size its own IV), the message (type 48, the last block flagged final and zero-padded,
//! an empty message is one zero block), and the output stage (an 8-byte counter 0, type 63).
//!
//! Two forms of Threefish-512:
//! - `sequential` ([`sequential`]): scalar, literal to the specification;
//! - `parallel` ([`parallel`]): the four MIX functions of a round side by side, two per
//!   128-bit register, with π done by renaming instead of moving words, so no lane move sits on
//!   a round's dependency chain: [`parallel_avx2`] (rotations from two variable shifts),
//!   [`parallel_avx512`] (`vprolvq`), and the same data flow in portable Rust
//!   ([`parallel_portable`]). It is the default: about 2x the sequential form or more at
//!   64 B to 1 MiB (BENCHMARKS.md).
//!
//! Skein-256 and Skein-1024 have the sequential form only. The one dispatch point is
//! [`Backend`].

pub mod parallel;
pub mod parallel_portable;
pub mod sequential;

#[cfg(target_arch = "x86_64")]
pub mod parallel_avx2;
#[cfg(target_arch = "x86_64")]
pub mod parallel_avx512;
#[cfg(target_arch = "x86_64")]
mod xmm;

use core::marker::PhantomData;
use digest::{
    array::{Array, ArraySize},
    block_api::{Block, Buffer, FixedOutputCore, UpdateCore},
    typenum::{Unsigned, U128, U28, U32, U48, U64},
    Output,
};

use super::block_api::{block_core, hashers};
use crate::dispatch::backends;
#[cfg(test)]
use crate::dispatch::Dispatch;
use sequential::{threefish1024, threefish256, threefish512};

/// The key schedule's parity constant `C240`.
pub const C240: u64 = 0x1BD1_1BDA_A9FC_1A22;
/// Tweak bit 126: first block of a UBI call.
pub const FIRST: u64 = 1 << 62;
/// Tweak bit 127: last block of a UBI call.
pub const FINAL: u64 = 1 << 63;
/// Type field values (tweak bits 120..125), shifted into the tweak's second word.
pub const TYPE_CFG: u64 = 4 << 56;
/// Message type.
pub const TYPE_MSG: u64 = 48 << 56;
/// Output type.
pub const TYPE_OUT: u64 = 63 << 56;

/// Little-endian words of a 64-byte block.
#[inline(always)]
pub(crate) fn load_le64(block: &[u8; 64]) -> [u64; 8] {
    let mut m = [0u64; 8];
    for (w, chunk) in m.iter_mut().zip(block.chunks_exact(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(chunk);
        *w = u64::from_le_bytes(b);
    }
    m
}

/// The configuration UBI for `out_bits` of output: schema "SHA3", version 1, no tree.
macro_rules! config_iv {
    ($name:ident, $words:literal, $module:ident) => {
        const fn $name(out_bits: u64) -> [u64; $words] {
            let mut cfg = [0u64; $words];
            cfg[0] = 0x0000_0001_3341_4853; // "SHA3" then version 1, little-endian
            cfg[1] = out_bits;
            let e = $module::encrypt(&[0; $words], &[32, TYPE_CFG | FIRST | FINAL], &cfg);
            let mut h = [0u64; $words];
            let mut i = 0;
            while i < $words {
                h[i] = e[i] ^ cfg[i];
                i += 1;
            }
            h
        }
    };
}
config_iv!(config_iv256, 4, threefish256);
config_iv!(config_iv512, 8, threefish512);
config_iv!(config_iv1024, 16, threefish1024);

backends! {
    /// Which Threefish code a hasher runs: the family's single dispatch point. Skein-256 and
    /// Skein-1024 only have `Sequential`.
    pub enum Backend {
        /// Scalar, literal to the specification.
        Sequential => "sequential": "portable scalar Threefish-512, MIX functions one after another";
        // AVX-512 (one `vprolvq` per rotation) before AVX2 (three instructions), as measured on
        // Zen 4.
        "parallel" = ["parallel-avx512", "parallel-avx2", "parallel-portable"]:
            "four MIX functions side by side, two per instruction (best ISA available)";
        /// Word pairs in portable Rust.
        ParallelPortable => "parallel-portable": "word pairs on [u64; 2] arrays, π by renaming";
        /// Word pairs in XMM registers, rotations by AVX2 variable shifts.
        ParallelAvx2(Avx2) => "parallel-avx2":
            "word pairs in 128-bit registers, rotations by vpsllvq/vpsrlvq";
        /// Word pairs in XMM registers with AVX-512VL rotates.
        ParallelAvx512(Avx512) => "parallel-avx512":
            "word pairs in 128-bit registers, rotations by vprolvq";
    }
    // Default `parallel`: each of its kernels (portable included) measured about 2x the
    // sequential form or more from 64 B to 1 MiB (BENCHMARKS.md). Renaming π leaves a round one
    // add and one XOR deep; the literal form runs each round as a loop that copies the state for
    // π and computes rotation counts and key indices as it goes.
}

impl Backend {
    #[inline]
    fn compress(self, h: &mut [u64; 8], blocks: &[[u8; 64]], tweak: &mut [u64; 2], len: u64) {
        match self {
            Backend::Sequential => threefish512::compress_blocks(h, blocks, tweak, len),
            Backend::ParallelPortable => parallel_portable::compress_blocks(h, blocks, tweak, len),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAvx2(t) => parallel_avx2::compress_blocks(t, h, blocks, tweak, len),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAvx512(t) => {
                parallel_avx512::compress_blocks(t, h, blocks, tweak, len)
            }
        }
    }
}

backends! {
    /// Skein-256 and Skein-1024 have the literal form only.
    pub(crate) enum SequentialOnly {
        Sequential => "sequential": "portable scalar Threefish (no vector form for this width)";
    }
    default = ["sequential"];
}

/// Parameters of one Skein instance.
pub trait SkeinParams: 'static {
    /// Digest size in bytes.
    type OutputSize: ArraySize;
    /// Display name.
    const NAME: &'static str;
}

macro_rules! skein_core {
    ($(#[$doc:meta])* $core:ident, $words:literal, $block:ty, $block_len:literal, $backend:ident, $iv:ident, $compress:expr) => {
        $(#[$doc])*
        pub struct $core<P: SkeinParams> {
            h: [u64; $words],
            tweak: [u64; 2],
            backend: $backend,
            params: PhantomData<P>,
        }

        impl<P: SkeinParams> $core<P> {
            /// The configuration UBI's output for this digest size, computed at compile time.
            const IV: [u64; $words] = $iv(P::OutputSize::U64 * 8);

            fn with_backend(backend: $backend) -> Self {
                Self { h: Self::IV, tweak: [0, TYPE_MSG | FIRST], backend, params: PhantomData }
            }
        }

        // Lazy: the last block must be processed with the final flag, so a full block waits in
        // the buffer until more data arrives.
        block_core!($core<P: SkeinParams>, block: $block, output: P::OutputSize, buffer: Lazy);

        impl<P: SkeinParams> UpdateCore for $core<P> {
            #[inline]
            fn update_blocks(&mut self, blocks: &[Block<Self>]) {
                let blocks = Array::cast_slice_to_core(blocks);
                ($compress)(self.backend, &mut self.h, blocks, &mut self.tweak, $block_len);
            }
        }

        impl<P: SkeinParams> FixedOutputCore for $core<P> {
            fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
                let pos = buffer.get_pos() as u64;
                let block: [u8; $block_len] = buffer.pad_with_zeros().into();
                let mut h = self.h;
                let mut tweak = [self.tweak[0], self.tweak[1] | FINAL];
                ($compress)(self.backend, &mut h, &[block], &mut tweak, pos);
                // Output stage: one block holding the 8-byte counter 0.
                let mut tweak = [0, TYPE_OUT | FIRST | FINAL];
                ($compress)(self.backend, &mut h, &[[0u8; $block_len]], &mut tweak, 8);
                for (chunk, word) in out.chunks_mut(8).zip(h.iter()) {
                    chunk.copy_from_slice(&word.to_le_bytes()[..chunk.len()]);
                }
            }
        }
    };
}

skein_core!(
    /// Block-level Skein-256 state (UBI chaining value and tweak).
    Skein256Core, 4, U32, 32, SequentialOnly, config_iv256,
    |_, h, b, t, len| threefish256::compress_blocks(h, b, t, len)
);
skein_core!(
    /// Block-level Skein-512 state (UBI chaining value and tweak).
    Skein512Core, 8, U64, 64, Backend, config_iv512,
    |backend: Backend, h, b, t, len| backend.compress(h, b, t, len)
);
skein_core!(
    /// Block-level Skein-1024 state (UBI chaining value and tweak).
    Skein1024Core, 16, U128, 128, SequentialOnly, config_iv1024,
    |_, h, b, t, len| threefish1024::compress_blocks(h, b, t, len)
);

hashers! {
    impl SkeinParams;
    /// Skein-512-224 (Skein v1.3, SHA-3 finalist).
    Skein512_224(Skein512Core<Skein512_224Params>, U28, "Skein-512-224") {}
    /// Skein-512-256 (Skein v1.3, SHA-3 finalist).
    Skein512_256(Skein512Core<Skein512_256Params>, U32, "Skein-512-256") {}
    /// Skein-512-384 (Skein v1.3, SHA-3 finalist).
    Skein512_384(Skein512Core<Skein512_384Params>, U48, "Skein-512-384") {}
    /// Skein-512-512 (Skein v1.3, SHA-3 finalist).
    Skein512_512(Skein512Core<Skein512_512Params>, U64, "Skein-512-512") {}
    /// Skein-256-256 (Skein v1.3).
    Skein256_256(Skein256Core<Skein256_256Params>, U32, "Skein-256-256") {}
    /// Skein-1024-1024 (Skein v1.3).
    Skein1024_1024(Skein1024Core<Skein1024_1024Params>, U128, "Skein-1024-1024") {}
}

/// Runs Threefish-512 UBI over whole blocks with the named variant (for tests);
/// `false` when the variant is unknown or unavailable here.
#[cfg(test)]
pub fn compress512_with_variant(
    name: &str,
    h: &mut [u64; 8],
    blocks: &[[u8; 64]],
    tweak: &mut [u64; 2],
    len: u64,
) -> bool {
    Backend::by_name(name)
        .map(|backend| backend.compress(h, blocks, tweak, len))
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_compresses_alike() {
        let blocks: Vec<[u8; 64]> = (0..3u8)
            .map(|k| core::array::from_fn(|i| (i as u8).wrapping_mul(29).wrapping_add(k)))
            .collect();
        for start in [0u64, u32::MAX as u64, u64::MAX - 64] {
            let mut expected = config_iv512(512);
            let mut t = [start, TYPE_MSG | FIRST];
            threefish512::compress_blocks(&mut expected, &blocks, &mut t, 64);
            for v in Backend::infos() {
                let mut h = config_iv512(512);
                let mut tv = [start, TYPE_MSG | FIRST];
                assert_eq!(
                    compress512_with_variant(v.name, &mut h, &blocks, &mut tv, 64),
                    v.available
                );
                if v.available {
                    assert_eq!((h, tv), (expected, t), "{}", v.name);
                }
            }
        }
    }
}
