//! The SHA-224/256 compression function in every form, and its single dispatch point
//! (`Backend`).
//!
//! - `sequential` ([`sequential`]): portable scalar, fully unrolled.
//! - `parallel` ([`parallel`]): scalar rounds with the message schedule computed four words at a
//!   time in vector registers beside them; forced ISA forms `parallel-portable`,
//!   `parallel-sse41`, `parallel-avx512`.
//! - `rorx` ([`rorx`], x86-64): the schedule of two blocks in 256-bit registers interleaved with
//!   scalar rounds in assembly (BMI2 `rorx`); `rorx-avx2`, `rorx-avx512`. The default where
//!   the CPU has no SHA extensions but AVX2 and BMI2.
//! - `sha-ni` ([`sha_ni`]): the SHA extensions (`sha256rnds2`, `sha256msg1/2`), two rounds per
//!   instruction; the fastest where the CPU has them, and the default there.

pub mod lanes;
#[cfg(target_arch = "x86_64")]
pub mod lanes_sha_ni;
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

#[cfg(target_arch = "x86_64")]
pub mod sha_ni;

use crate::dispatch::{backends, Dispatch};
#[cfg(target_arch = "x86_64")]
use crate::platform;

backends! {
    /// Which SHA-256 compression code runs: chosen once per hasher, matched once per call.
    pub(crate) enum Backend {
        Sequential => "sequential": "portable scalar, 64 rounds unrolled, rolling 16-word schedule";
        "parallel" = ["parallel-avx512", "parallel-sse41", "parallel-portable"]:
            "scalar rounds, schedule 4 words per vector beside them (best ISA here)";
        ParallelPortable => "parallel-portable": "the parallel grouping on [u32; 4] arrays";
        ParallelSse41(Sse41) => "parallel-sse41": "schedule in SSE registers, rotates as shift+shift+or";
        ParallelAvx512(Avx512, Bmi2) => "parallel-avx512":
            "schedule in 128-bit registers with AVX-512 VL rotates and vpternlog, rounds with BMI2 rorx";
        // AVX2 first: on a Cascade Lake VM `rorx-avx512` was the slower (BENCHMARKS.md, SHA-1
        // and SHA-256 without the SHA extensions).
        "rorx" = ["rorx-avx2", "rorx-avx512"]:
            "two blocks' schedule in 256-bit registers beside assembly rounds (best ISA here)";
        RorxAvx2(Avx2, Bmi2) => "rorx-avx2": "schedule with AVX2 shift pairs, rounds with BMI2 rorx";
        RorxAvx512(Avx512, Bmi2) => "rorx-avx512":
            "schedule with AVX-512 VL vprord/vpternlog, rounds with BMI2 rorx";
        ShaNi(ShaNi) => "sha-ni": "SHA extensions: sha256rnds2 (two rounds), sha256msg1/msg2 schedule";
    }
    // The SHA extensions where the CPU has them; else `rorx` where BMI2 and AVX2 exist
    // (BENCHMARKS.md, SHA-1 and SHA-256 without the SHA extensions); else `parallel` on its
    // best ISA.
    default = ["sha-ni", "rorx", "parallel"];
}

impl Backend {
    /// Compresses whole blocks into `state`.
    #[inline]
    pub(crate) fn compress(self, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
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
            #[cfg(target_arch = "x86_64")]
            Backend::ShaNi(token) => sha_ni::compress_blocks(token, state, blocks),
        }
    }
}

crate::algo::block_api::padding_in_registers_on_sha_ni!(Backend, [u32; 8]);

/// Compresses whole 64-byte blocks into a SHA-256 chaining value with the fastest form this
/// CPU has. No padding: callers (tree modes, batch engines) handle that.
#[inline]
pub fn compress256(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    Backend::detect().compress(state, blocks);
}

/// [`compress256`] forced onto the `sequential` form.
pub fn compress256_sequential(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    sequential::compress_blocks(state, blocks);
}

/// [`compress256`] forced onto the SHA extensions; the token proves the CPU has them.
#[cfg(target_arch = "x86_64")]
pub fn compress256_sha_ni(token: platform::ShaNi, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    sha_ni::compress_blocks(token, state, blocks);
}

/// [`compress256`] forced onto a named variant (as listed by `Sha256::variants()`); returns
/// `false` and leaves `state` alone when it is unknown or unavailable here.
pub fn compress256_with_variant(name: &str, state: &mut [u32; 8], blocks: &[[u8; 64]]) -> bool {
    Backend::by_name(name)
        .map(|backend| backend.compress(state, blocks))
        .is_some()
}
