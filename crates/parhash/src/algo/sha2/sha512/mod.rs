//! The SHA-384/512 (and SHA-512/t) compression function in every form, and its single dispatch
//! point (`Backend`).
//!
//! - `sequential` ([`sequential`]): portable scalar, fully unrolled; 64-bit words suit scalar
//!   x86_64 registers well, and this CPU has no SHA-512 instructions.
//! - `parallel` ([`parallel`]): scalar rounds with the message schedule computed two words per
//!   128-bit register beside them; forced ISA forms `parallel-portable`, `parallel-sse41`,
//!   `parallel-avx512`. The default.

pub mod lanes;
pub mod parallel;
pub mod parallel_portable;
pub mod sequential;

#[cfg(target_arch = "x86_64")]
pub mod parallel_avx512;
#[cfg(target_arch = "x86_64")]
pub mod parallel_sse41;

use crate::algo::VariantInfo;

/// Which SHA-512 compression code runs: chosen once per hasher, matched once per call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Backend {
    Sequential,
    Parallel(parallel::Isa),
}

impl Backend {
    /// The fastest form this CPU allows: `parallel` on its best ISA (measured faster than
    /// `sequential` at every size, see BENCHMARKS.md, "Foundation: MD5, SHA-1, SHA-2").
    pub(crate) fn detect() -> Self {
        Backend::Parallel(parallel::Isa::detect())
    }

    /// The named variant, if it exists and this CPU allows it.
    pub(crate) fn by_name(name: &str) -> Option<Self> {
        match name {
            "sequential" => Some(Backend::Sequential),
            _ => parallel::Isa::by_variant(name).map(Backend::Parallel),
        }
    }

    /// Compresses whole blocks into `state`.
    #[inline]
    pub(crate) fn compress(self, state: &mut [u64; 8], blocks: &[[u8; 128]]) {
        match self {
            Backend::Sequential => sequential::compress_blocks(state, blocks),
            Backend::Parallel(isa) => parallel::compress_blocks(isa, state, blocks),
        }
    }
}

/// The variants of SHA-384, SHA-512 and SHA-512/t, with availability here.
pub(crate) fn variant_infos() -> Vec<VariantInfo> {
    let default = Backend::detect();
    let mut v = vec![VariantInfo {
        name: "sequential",
        available: true,
        default: default == Backend::Sequential,
        summary: "portable scalar, 80 rounds unrolled, rolling 16-word schedule",
    }];
    v.extend(parallel::Isa::variant_infos(
        matches!(default, Backend::Parallel(_)),
        super::schedule_isa::Words {
            best: "scalar rounds, schedule 2 words per vector beside them (best ISA here)",
            portable: "the parallel grouping on [u64; 2] arrays",
            sse41: "schedule in SSE registers, rotates as shift+shift+or",
            avx512: "schedule in 128-bit registers with AVX-512 VL rotates and vpternlog",
        },
    ));
    v
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
    match Backend::by_name(name) {
        Some(backend) => {
            backend.compress(state, blocks);
            true
        }
        None => false,
    }
}
