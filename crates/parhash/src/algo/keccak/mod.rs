//! Keccak-f\[1600\] and the sponge built on it: SHA3-224/256/384/512 (FIPS 202, domain padding
//! `0x06`) and Keccak-224/256/384/512 as submitted to the SHA-3 competition's third round (padding
//! `0x01`, same rates and capacities as SHA-3).
//!
//! The permutation, shared by all eight hashers, comes in these forms (variant names):
//! - `sequential` ([`sequential`]): portable scalar code on 25 lanes, literal to FIPS 202;
//! - `bmi2` ([`bmi2`]): the same source compiled with BMI1/BMI2 (`andn`, `rorx`); the default
//!   where available, because it is the fastest on the machines measured (BENCHMARKS.md);
//! - `parallel`: the seed study's lane parallelism mapped to SIMD. θ, ρ, π and χ act on
//!   independent lanes, so the AVX-512 kernel ([`parallel_avx512`]) keeps the state as five
//!   512-bit rows (planes) and applies each step to a whole row at once: `vprolq`/`vprolvq` for
//!   the rotations, `vpternlogq` for the three-input XORs of θ and for χ, `vpermq`/`vpermt2q`
//!   for the lane moves of θ, π and χ. The AVX2 kernel ([`parallel_avx2`]) does the same with
//!   each row split over two 256-bit registers (lanes 0..3 and lane 4). The same row-wise data
//!   flow on `[u64; 5]` arrays ([`parallel_portable`]) is the fallback where neither exists.
//!   `parallel` picks the best of them (`parallel-avx2`, `parallel-avx512`,
//!   `parallel-portable` force one).
//!
//! The one dispatch point is `Backend`: chosen once per hasher, matched once per call.

pub mod lanes;
pub mod parallel_portable;
pub mod sequential;

#[cfg(target_arch = "x86_64")]
pub mod bmi2;
#[cfg(target_arch = "x86_64")]
pub mod parallel_avx2;
#[cfg(target_arch = "x86_64")]
pub mod parallel_avx512;

use core::marker::PhantomData;
use digest::{
    array::ArraySize,
    block_api::{Block, Buffer, FixedOutputCore, UpdateCore},
    typenum::{Unsigned, U104, U136, U144, U28, U32, U48, U64, U72},
    Output,
};

use digest::block_buffer::BlockSizes;

use super::block_api::{block_core, hashers};
use crate::dispatch::{backends, Dispatch};

/// Rotation offsets of ρ, indexed by lane `x + 5y`, derived as FIPS 202 Algorithm 2 does:
/// walking `(x, y) -> (y, 2x + 3y)` from `(1, 0)`, the t-th lane visited rotates by
/// `(t + 1)(t + 2) / 2 mod 64`.
pub const RHO: [u32; 25] = {
    let mut r = [0u32; 25];
    let (mut x, mut y) = (1usize, 0usize);
    let mut t = 0;
    while t < 24 {
        r[x + 5 * y] = (((t + 1) * (t + 2) / 2) % 64) as u32;
        let next_y = (2 * x + 3 * y) % 5;
        x = y;
        y = next_y;
        t += 1;
    }
    r
};

/// `rc(t)` of FIPS 202 Algorithm 5: the output of the LFSR `x^8 + x^6 + x^5 + x^4 + 1` after
/// `t` steps from state 1.
const fn rc_bit(t: usize) -> u64 {
    let mut r: u32 = 1;
    let mut i = 0;
    while i < t % 255 {
        r <<= 1;
        if r & 0x100 != 0 {
            r ^= 0x171;
        }
        i += 1;
    }
    (r & 1) as u64
}

/// Round constants of ι (FIPS 202 Algorithm 6): bit `2^j - 1` of `RC[ir]` is `rc(j + 7 ir)`.
pub const ROUND_CONSTANTS: [u64; 24] = {
    let mut rcs = [0u64; 24];
    let mut ir = 0;
    while ir < 24 {
        let mut j = 0;
        while j <= 6 {
            rcs[ir] |= rc_bit(j + 7 * ir) << ((1usize << j) - 1);
            j += 1;
        }
        ir += 1;
    }
    rcs
};

backends! {
    /// Which permutation code a hasher runs: the family's single dispatch point.
    pub(crate) enum Backend {
        Sequential => "sequential":
            "portable scalar Keccak-f[1600], round written out, literal to FIPS 202";
        Bmi2(Bmi2) => "bmi2": "the sequential round compiled with BMI1/BMI2 (andn, rorx)";
        // The best kernel of the lane-parallel form: AVX2 before AVX-512, as measured on Zen 4,
        // where 512-bit cross-lane permutes are split into two 256-bit halves and cost more than
        // AVX2's permute-plus-blend; portable rows where neither is available.
        "parallel" = ["parallel-avx2", "parallel-avx512", "parallel-portable"]:
            "lane-parallel θ/ρ/π/χ on whole rows (best ISA available)";
        ParallelPortable => "parallel-portable": "the row-wise data flow on [u64; 5] arrays";
        ParallelAvx2(Avx2) => "parallel-avx2":
            "rows split over two 256-bit registers: vpermq, vpblendd, shift pairs";
        ParallelAvx512(Avx512) => "parallel-avx512": "five 512-bit rows: vprolvq, vpternlogq, vpermt2q";
    }
    // The fastest form on this CPU. Measured on Zen 4 (BENCHMARKS.md): the scalar round with
    // BMI1/BMI2 beats both SIMD forms, because one Keccak state has too little width for 256/512-bit
    // registers to pay for the lane moves π and χ need. On Intel's Cascade Lake the reverse:
    // `parallel-avx512` beats `bmi2` and OpenSSL from 1 KiB (BENCHMARKS.md, SHA-3 on Intel).
    default = ["bmi2", "sequential"];
    where crate::platform::intel() => default = ["parallel-avx512", "bmi2", "sequential"];
}

impl Backend {
    /// Absorbs whole `rate`-byte blocks into `state`.
    #[inline]
    fn compress(self, state: &mut [u64; 25], blocks: &[u8], rate: usize) {
        match self {
            Backend::Sequential => sequential::compress_blocks(state, blocks, rate),
            #[cfg(target_arch = "x86_64")]
            Backend::Bmi2(t) => bmi2::compress_blocks(t, state, blocks, rate),
            Backend::ParallelPortable => parallel_portable::compress_blocks(state, blocks, rate),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAvx2(t) => parallel_avx2::compress_blocks(t, state, blocks, rate),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAvx512(t) => parallel_avx512::compress_blocks(t, state, blocks, rate),
        }
    }
}

/// Parameters of one sponge instance: rate (the block size), digest size and domain padding.
pub trait SpongeParams: 'static {
    /// Rate in bytes (`200 - 2 * digest size`).
    type Rate: BlockSizes;
    /// Digest size in bytes.
    type OutputSize: ArraySize;
    /// First padding byte: FIPS 202 domain bits `01` plus the first `1` of pad10*1 (`0x06`),
    /// or the bare pad10*1 of round-3 Keccak (`0x01`).
    const PAD: u8;
    /// Display name.
    const NAME: &'static str;
}

/// Block-level sponge state; the public types ([`Sha3_256`], [`Keccak256`], ...) add buffering.
pub struct KeccakCore<P: SpongeParams> {
    state: [u64; 25],
    backend: Backend,
    params: PhantomData<P>,
}

impl<P: SpongeParams> KeccakCore<P> {
    fn with_backend(backend: Backend) -> Self {
        Self {
            state: [0; 25],
            backend,
            params: PhantomData,
        }
    }
}

impl<P: SpongeParams> UpdateCore for KeccakCore<P> {
    #[inline]
    fn update_blocks(&mut self, blocks: &[Block<Self>]) {
        let bytes: &[u8] = Block::<Self>::slice_as_flattened(blocks);
        self.backend
            .compress(&mut self.state, bytes, P::Rate::USIZE);
    }
}

impl<P: SpongeParams> FixedOutputCore for KeccakCore<P> {
    #[inline]
    fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
        // pad10*1 with the domain bits in front; when the message fills all but the last byte
        // of the block, the first and last padding bits share that byte (0x86 or 0x81).
        let pos = buffer.get_pos();
        let mut block = buffer.pad_with_zeros();
        block[pos] ^= P::PAD;
        block[P::Rate::USIZE - 1] ^= 0x80;
        let mut state = self.state;
        self.backend.compress(&mut state, &block, P::Rate::USIZE);
        // Every digest here is shorter than the rate: one squeeze, no further permutation.
        for (chunk, lane) in out.chunks_mut(8).zip(state.iter()) {
            chunk.copy_from_slice(&lane.to_le_bytes()[..chunk.len()]);
        }
    }
}

block_core!(KeccakCore<P: SpongeParams>, block: P::Rate, output: P::OutputSize, buffer: Eager);

/// FIPS 202 domain separation for SHA-3.
const SHA3_PAD: u8 = 0x06;
/// Round-3 Keccak: plain pad10*1.
const KECCAK_PAD: u8 = 0x01;

hashers! {
    impl SpongeParams;
    /// SHA3-224 (FIPS 202).
    Sha3_224(KeccakCore<Sha3_224Params>, U28, "SHA3-224") { type Rate = U144; const PAD: u8 = SHA3_PAD; }
    /// SHA3-256 (FIPS 202).
    Sha3_256(KeccakCore<Sha3_256Params>, U32, "SHA3-256") { type Rate = U136; const PAD: u8 = SHA3_PAD; }
    /// SHA3-384 (FIPS 202).
    Sha3_384(KeccakCore<Sha3_384Params>, U48, "SHA3-384") { type Rate = U104; const PAD: u8 = SHA3_PAD; }
    /// SHA3-512 (FIPS 202).
    Sha3_512(KeccakCore<Sha3_512Params>, U64, "SHA3-512") { type Rate = U72; const PAD: u8 = SHA3_PAD; }
    /// Keccak-224 as submitted to the SHA-3 competition, round 3 (padding 0x01).
    Keccak224(KeccakCore<Keccak224Params>, U28, "Keccak-224") { type Rate = U144; const PAD: u8 = KECCAK_PAD; }
    /// Keccak-256 as submitted to the SHA-3 competition, round 3 (padding 0x01); the hash
    /// Ethereum calls "keccak256".
    Keccak256(KeccakCore<Keccak256Params>, U32, "Keccak-256") { type Rate = U136; const PAD: u8 = KECCAK_PAD; }
    /// Keccak-384 as submitted to the SHA-3 competition, round 3 (padding 0x01).
    Keccak384(KeccakCore<Keccak384Params>, U48, "Keccak-384") { type Rate = U104; const PAD: u8 = KECCAK_PAD; }
    /// Keccak-512 as submitted to the SHA-3 competition, round 3 (padding 0x01).
    Keccak512(KeccakCore<Keccak512Params>, U64, "Keccak-512") { type Rate = U72; const PAD: u8 = KECCAK_PAD; }
}

/// Runs Keccak-f\[1600\] once on `state` with the named variant (for tests and the lab).
/// Returns `false` when the variant is unknown or unavailable here.
pub fn permute_with_variant(name: &str, state: &mut [u64; 25]) -> bool {
    Backend::by_name(name)
        .map(|backend| {
            // A permutation is an absorb of one all-zero block of the largest rate.
            backend.compress(state, &[0u8; 168], 168);
        })
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_constants_match_fips202() {
        // Spot values printed in FIPS 202 / the Keccak reference (facts, not our output).
        let round_constants = [
            (0, 0x0000_0000_0000_0001),
            (1, 0x0000_0000_0000_8082),
            (23, 0x8000_0000_8000_8008),
        ];
        for (i, want) in round_constants {
            assert_eq!(ROUND_CONSTANTS[i], want, "RC[{i}]");
        }
        for (i, want) in [(0, 0), (1, 1), (2, 62), (5, 36), (24, 14)] {
            assert_eq!(RHO[i], want, "rho offset of lane {i}");
        }
    }

    #[test]
    fn every_variant_permutes_alike() {
        let mut expected = [0u64; 25];
        for (i, l) in expected.iter_mut().enumerate() {
            *l = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
        let start = expected;
        assert!(permute_with_variant("sequential", &mut expected));
        for v in Backend::infos() {
            let mut s = start;
            assert_eq!(
                permute_with_variant(v.name, &mut s),
                v.available,
                "{}",
                v.name
            );
            if v.available {
                assert_eq!(s, expected, "{}", v.name);
            }
        }
    }
}
