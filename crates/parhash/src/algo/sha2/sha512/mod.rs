//! The SHA-384/512 (and SHA-512/t) compression function in every form, and its single dispatch
//! point (`Backend`).
//!
//! - `sequential` ([`sequential`]): portable scalar, fully unrolled; 64-bit words suit scalar
//!   x86_64 registers well, and this CPU has no SHA-512 instructions.
//! - `parallel` ([`parallel`]): scalar rounds with the message schedule computed two words per
//!   128-bit register beside them; forced ISA forms `parallel-portable`, `parallel-sse41`,
//!   `parallel-avx512`.
//! - `rorx` ([`rorx`], x86-64): the schedule of two blocks in 256-bit registers interleaved with
//!   scalar rounds in assembly (BMI2 `rorx`); `rorx-avx2`, `rorx-avx512`. The default where
//!   available: at parity with OpenSSL's assembly, ~1.2x `parallel` (BENCHMARKS.md,
//!   "Performance at the roof").

pub mod lanes;
pub mod parallel;
pub mod parallel_portable;
mod schedule;
pub mod sequential;

#[cfg(target_arch = "x86_64")]
pub mod parallel_avx512;
#[cfg(target_arch = "x86_64")]
pub mod parallel_sse41;
#[cfg(target_arch = "x86_64")]
pub mod rorx;

use crate::dispatch::{backends, Dispatch};

backends! {
    /// Which SHA-512 compression code runs: chosen once per hasher, matched once per call.
    pub(crate) enum Backend {
        Sequential => "sequential": "portable scalar, 80 rounds unrolled, rolling 16-word schedule";
        "parallel" = ["parallel-avx512", "parallel-sse41", "parallel-portable"]:
            "scalar rounds, schedule 2 words per vector beside them (best ISA here)";
        ParallelPortable => "parallel-portable": "the parallel grouping on [u64; 2] arrays";
        ParallelSse41(Sse41) => "parallel-sse41": "schedule in SSE registers, rotates as shift+shift+or";
        ParallelAvx512(Avx512, Bmi2) => "parallel-avx512":
            "schedule in 128-bit registers with AVX-512 VL rotates and vpternlog, rounds with BMI2 rorx";
        "rorx" = ["rorx-avx512", "rorx-avx2"]:
            "two blocks' schedule in 256-bit registers beside assembly rounds (best ISA here)";
        RorxAvx2(Avx2, Bmi2) => "rorx-avx2": "schedule with AVX2 shift pairs, rounds with BMI2 rorx";
        RorxAvx512(Avx512, Bmi2) => "rorx-avx512":
            "schedule with AVX-512 VL vprorq/vpternlog, rounds with BMI2 rorx";
    }
    // `rorx` where BMI2 and AVX2 exist (BENCHMARKS.md, "Performance at the roof"),
    // else `parallel` on its best ISA, faster than `sequential` at every size ("Foundation:
    // MD5, SHA-1, SHA-2").
    default = ["rorx", "parallel"];
}

// The padding is built in memory (`compress_padded_tail`).
impl crate::algo::block_api::PaddingInRegisters<128> for Backend {
    type State = [u64; 8];
    type Count = u128;
}

impl Backend {
    /// Compresses whole blocks into `state`.
    #[inline]
    pub(crate) fn compress(self, state: &mut [u64; 8], blocks: &[[u8; 128]]) {
        use parallel::Isa;
        match self {
            Backend::Sequential => sequential::compress_blocks(state, blocks),
            Backend::ParallelPortable => parallel::compress_blocks(Isa::Portable, state, blocks),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelSse41(t) => parallel::compress_blocks(Isa::Sse41(t), state, blocks),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAvx512(t, b) => {
                parallel::compress_blocks(Isa::Avx512(t, b), state, blocks)
            }
            #[cfg(target_arch = "x86_64")]
            Backend::RorxAvx2(v, b) => rorx::compress_blocks_avx2(v, b, state, blocks),
            #[cfg(target_arch = "x86_64")]
            Backend::RorxAvx512(v, b) => rorx::compress_blocks_avx512(v, b, state, blocks),
        }
    }
}

/// Compresses whole 128-byte blocks into a SHA-512 chaining value with the fastest form this
/// CPU has. No padding.
#[inline]
pub fn compress512(state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    Backend::detect().compress(state, blocks);
}

/// [`compress512`] forced onto the `sequential` form.
pub fn compress512_sequential(state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    sequential::compress_blocks(state, blocks);
}

/// [`compress512`] forced onto a named variant; returns `false` and leaves `state` alone when it
/// is unknown or unavailable here.
pub fn compress512_with_variant(name: &str, state: &mut [u64; 8], blocks: &[[u8; 128]]) -> bool {
    Backend::by_name(name)
        .map(|backend| backend.compress(state, blocks))
        .is_some()
}
