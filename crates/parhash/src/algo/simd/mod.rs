//! The SIMD hash function (Leurent, Bouillaguet, Fouque; SHA-3 round 2), version 1.1 (the
//! round-2 tweak): SIMD-224, SIMD-256 (4 Feistel lanes, 64-byte blocks) and SIMD-384, SIMD-512
//! (8 lanes, 128-byte blocks). "SIMD" here is the name of the hash; the vector instructions are
//! called by their ISA names (AVX2, AVX-512).
//!
//! Specification: `shared/specs/simd.md`. A compression expands the block with an NTT over
//! F_257 and two inner codes, then runs n Feistel ladders side by side for 32 steps plus four
//! feed-forward steps. The message length goes into a separate final block.
//!
//! Forms (the one dispatch point is `Backend`):
//! - `sequential` ([`sequential`]): scalar, literal to the specification, textbook radix-2 NTT.
//! - `parallel`: what the algorithm was designed for: the NTT as a 16-bit-lane FFT and the n
//!   Feistel lanes as one vector. Forced ISAs: `parallel-portable` (plain Rust in the same
//!   shape), `parallel-avx2`, `parallel-avx512`.

#[cfg(target_arch = "x86_64")]
pub mod parallel_avx2;
#[cfg(target_arch = "x86_64")]
pub mod parallel_avx512;
pub mod parallel_portable;
pub mod sequential;
pub mod twiddles;

use digest::{
    block_api::{Block, Buffer, FixedOutputCore, UpdateCore},
    typenum::{Unsigned, U128, U28, U32, U48, U64},
    Output,
};

use super::block_api::{block_core, counted_bytes, counted_core, hashers};
use crate::dispatch::backends;

/// The chaining value: the arrays A, B, C, D of n words each (n = `L` = 4 or 8).
pub type State<const L: usize> = [[u32; L]; 4];

/// Section 4.4: `W[k] = Z[PERMUTATION[k]]`.
pub const PERMUTATION: [usize; 32] = [
    4, 6, 0, 2, 7, 5, 3, 1, 15, 11, 12, 8, 9, 13, 10, 14, 17, 18, 23, 20, 22, 21, 16, 19, 30, 24,
    25, 31, 27, 29, 28, 26,
];

/// Section 3.3: the rotation 4-tuples (r, s, t, u) of rounds 0..3.
pub const ROUND_ROTATIONS: [[u32; 4]; 4] = [
    [3, 23, 17, 27],
    [28, 19, 22, 7],
    [29, 9, 15, 5],
    [4, 13, 10, 25],
];

/// Section 3.3: the (rotation-1, rotation-2) pairs of the feed-forward steps 32..35.
pub const FEED_FORWARD_ROTATIONS: [(u32, u32); 4] = [(4, 13), (13, 10), (10, 25), (25, 4)];

/// Section 3.3: (r, s, uses MAJ) of step k < 32. Within round q the pairs cycle
/// (r,s), (s,t), (t,u), (u,r) twice; the first four steps use IF, the last four MAJ.
pub const fn feistel_schedule(k: usize) -> (u32, u32, bool) {
    let rot = ROUND_ROTATIONS[k / 8];
    let i = k % 4;
    (rot[i], rot[(i + 1) % 4], k % 8 >= 4)
}

/// Section 3.3: (r, s, uses MAJ) of any step k < 36, the feed-forward steps 32..35 included
/// (IF, rotation pairs of [`FEED_FORWARD_ROTATIONS`]).
pub const fn step_params(k: usize) -> (u32, u32, bool) {
    if k < 32 {
        feistel_schedule(k)
    } else {
        let (r, s) = FEED_FORWARD_ROTATIONS[k - 32];
        (r, s, false)
    }
}

/// Section 3.3: the lane permutation of global step k is `p(j) = j ⊕ c`; this returns c.
pub const fn lane_permutation(lanes: usize, k: usize) -> usize {
    if lanes == 4 {
        [1, 2, 3][k % 3]
    } else {
        [1, 6, 2, 3, 5, 7, 4][k % 7]
    }
}

/// Splits a table listed as A, B, C, D (n words each) into the state.
const fn state_from_words<const L: usize, const N: usize>(words: [u32; N]) -> State<L> {
    assert!(N == 4 * L, "four arrays of L words");
    let mut s = [[0u32; L]; 4];
    let mut i = 0;
    while i < 4 * L {
        s[i / L][i % L] = words[i];
        i += 1;
    }
    s
}

/// Section 2: the IVs.
pub const IV_224: State<4> = state_from_words([
    0x33586e9f, 0x12fff033, 0xb2d9f64d, 0x6f8fea53, 0xde943106, 0x2742e439, 0x4fbab5ac, 0x62b9ff96,
    0x22e7b0af, 0xc862b3a8, 0x33e00cdc, 0x236b86a6, 0xf64ae77c, 0xfa373b76, 0x7dc1ee5b, 0x7fb29ce8,
]);
/// Section 2: the SIMD-256 IV.
pub const IV_256: State<4> = state_from_words([
    0x4d567983, 0x07190ba9, 0x8474577b, 0x39d726e9, 0xaaf3d925, 0x3ee20b03, 0xafd5e751, 0xc96006d3,
    0xc2c2ba14, 0x49b3bcb4, 0xf67caf46, 0x668626c9, 0xe2eaa8d2, 0x1ff47833, 0xd0c661a5, 0x55693de1,
]);
/// Section 2: the SIMD-384 IV.
#[rustfmt::skip]
pub const IV_384: State<8> = state_from_words([
    0x8a36eebc, 0x94a3bd90, 0xd1537b83, 0xb25b070b, 0xf463f1b5, 0xb6f81e20, 0x0055c339, 0xb4d144d1,
    0x7360ca61, 0x18361a03, 0x17dcb4b9, 0x3414c45a, 0xa699a9d2, 0xe39e9664, 0x468bfe77, 0x51d062f8,
    0xb9e3bfe8, 0x63bece2a, 0x8fe506b9, 0xf8cc4ac2, 0x7ae11542, 0xb1aadda1, 0x64b06794, 0x28d2f462,
    0xe64071ec, 0x1deb91a8, 0x8ac8db23, 0x3f782ab5, 0x039b5cb8, 0x71ddd962, 0xfade2cea, 0x1416df71,
]);
/// Section 2: the SIMD-512 IV.
#[rustfmt::skip]
pub const IV_512: State<8> = state_from_words([
    0x0ba16b95, 0x72f999ad, 0x9fecc2ae, 0xba3264fc, 0x5e894929, 0x8e9f30e5, 0x2f1daa37, 0xf0f2c558,
    0xac506643, 0xa90635a5, 0xe25b878b, 0xaab7878f, 0x88817f7a, 0x0a02892b, 0x559a7550, 0x598f657e,
    0x7eef60a1, 0x6b70e3e8, 0x9c1714d1, 0xb958e2a8, 0xab02675e, 0xed1c014f, 0xcd8d65bb, 0xfdb7a257,
    0x09254899, 0xd699c7bc, 0x9019b6dc, 0x2b9022e4, 0x8fa14956, 0x21bf9bd3, 0xb94d0943, 0x6ffddc22,
]);

/// Section 2's rule: the IV for output size `bits` is the compression (final = 0) of the block
/// `"SIMD-<bits> v1.1"` padded with zeros, starting from the all-zero state. Uses the literal form.
pub fn derive_iv<const L: usize>(bits: usize) -> State<L> {
    let mut block = vec![0u8; 16 * L];
    let label = format!("SIMD-{bits} v1.1");
    block[..label.len()].copy_from_slice(label.as_bytes());
    let mut state = [[0u32; L]; 4];
    sequential::compress(&mut state, &block, false);
    state
}

backends! {
    /// The implementation a hasher uses: chosen once (detection or a forced variant), matched on
    /// every call. The only place that picks a kernel.
    pub(crate) enum Backend {
        Sequential => "sequential": "scalar, literal to the specification (textbook radix-2 NTT)";
        // The fastest form here (see BENCHMARKS.md, "SHA-3 finalists, SIMD and RC5").
        "parallel" = ["parallel-avx512", "parallel-avx2", "parallel-portable"]:
            "NTT on 16-bit vector lanes, Feistel lanes as one vector (best ISA here)";
        ParallelPortable => "parallel-portable":
            "the vector kernels' NTT plan and lane rows on plain arrays";
        ParallelAvx2(Avx2) => "parallel-avx2":
            "NTT in 16 x i16 ymm lanes, Feistel lanes in one xmm/ymm per word";
        ParallelAvx512(Avx512) => "parallel-avx512":
            "as AVX2, SIMD-512's NTT in zmm, vprold rotations, vpternlogd IF/MAJ";
    }
}

impl Backend {
    /// Compresses whole blocks of `16 * L` bytes (`L` = 4 or 8 Feistel lanes).
    fn compress<const L: usize>(self, state: &mut State<L>, blocks: &[u8], final_block: bool) {
        match self {
            Backend::Sequential => sequential::compress_blocks(state, blocks, final_block),
            Backend::ParallelPortable => {
                parallel_portable::compress_blocks(state, blocks, final_block)
            }
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAvx2(t) => {
                parallel_avx2::compress_blocks(t, state, blocks, final_block)
            }
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAvx512(t) => {
                parallel_avx512::compress_blocks(t, state, blocks, final_block)
            }
        }
    }
}

macro_rules! simd_core {
    ($core:ident, $hasher:ident, lanes: $lanes:literal, block: $block:ty, out: $out:ty,
        iv: $iv:expr, name: $name:literal
    ) => {
        counted_core! {
            #[doc = concat!("Block-level ", $name, " state; [`", stringify!($hasher), "`] adds the buffering.")]
            #[derive(Clone)]
            pub struct $core { state: State<$lanes> = $iv, block_count: u64, backend: Backend }
        }

        block_core!($core, name: $name, block: $block, output: $out, buffer: Eager);

        impl UpdateCore for $core {
            #[inline]
            fn update_blocks(&mut self, blocks: &[Block<Self>]) {
                let bytes = counted_bytes(&mut self.block_count, blocks);
                self.backend.compress(&mut self.state, bytes, false);
            }
        }

        impl FixedOutputCore for $core {
            fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
                const BLOCK: usize = <$block as Unsigned>::USIZE;
                // Section 5: the length counts bits, wrapping mod 2^64 as the reference does.
                let bit_len = self
                    .block_count
                    .wrapping_mul(BLOCK as u64)
                    .wrapping_add(buffer.get_pos() as u64)
                    .wrapping_mul(8);
                let mut state = self.state;
                if buffer.get_pos() > 0 {
                    // Zero padding only, compressed with final = 0.
                    let last = buffer.pad_with_zeros();
                    self.backend.compress(&mut state, &last, false);
                }
                let mut length_block = [0u8; BLOCK];
                length_block[..8].copy_from_slice(&bit_len.to_le_bytes());
                self.backend.compress(&mut state, &length_block, true);
                // A then B, little-endian, truncated to the digest size.
                let words = state[0].iter().chain(state[1].iter());
                for (chunk, word) in out.chunks_mut(4).zip(words) {
                    chunk.copy_from_slice(&word.to_le_bytes()[..chunk.len()]);
                }
            }
        }
    };
}

simd_core!(Simd224Core, Simd224, lanes: 4, block: U64, out: U28, iv: IV_224, name: "SIMD-224");
simd_core!(Simd256Core, Simd256, lanes: 4, block: U64, out: U32, iv: IV_256, name: "SIMD-256");
simd_core!(Simd384Core, Simd384, lanes: 8, block: U128, out: U48, iv: IV_384, name: "SIMD-384");
simd_core!(Simd512Core, Simd512, lanes: 8, block: U128, out: U64, iv: IV_512, name: "SIMD-512");

hashers! {
    /// SIMD-224 (v1.1): the n = 4 design with its own IV, digest truncated to 28 bytes.
    Simd224(Simd224Core);
    /// SIMD-256 (v1.1): 4 Feistel lanes, 64-byte blocks, 32-byte digest.
    Simd256(Simd256Core);
    /// SIMD-384 (v1.1): the n = 8 design with its own IV, digest truncated to 48 bytes.
    Simd384(Simd384Core);
    /// SIMD-512 (v1.1): 8 Feistel lanes, 128-byte blocks, 64-byte digest.
    Simd512(Simd512Core);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ivs_follow_the_derivation_rule() {
        assert_eq!(derive_iv::<4>(224), IV_224);
        assert_eq!(derive_iv::<4>(256), IV_256);
        assert_eq!(derive_iv::<8>(384), IV_384);
        assert_eq!(derive_iv::<8>(512), IV_512);
    }

    #[test]
    fn schedule_matches_the_full_table() {
        // Spot checks against the table of section 3.3.
        assert_eq!(feistel_schedule(3), (27, 3, false));
        assert_eq!(feistel_schedule(12), (28, 19, true));
        assert_eq!(feistel_schedule(31), (25, 4, true));
        let ff: Vec<usize> = (32..36).map(|k| lane_permutation(4, k)).collect();
        assert_eq!(ff, [3, 1, 2, 3]);
        let ff: Vec<usize> = (32..36).map(|k| lane_permutation(8, k)).collect();
        assert_eq!(ff, [5, 7, 4, 1]);
    }
}
