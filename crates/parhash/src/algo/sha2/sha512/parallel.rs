//! The `parallel` SHA-384/512 compression: scalar rounds with the message schedule
//! `W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]` computed two 64-bit words per 128-bit
//! register beside them. With two words per register, `W[t-2]` and `W[t-1]` are exactly the
//! previous register, so no group has to be split. While the rounds of groups `g..g+4` (eight
//! rounds) run on the integer units, the vector unit computes groups `g+8..g+12` and stores
//! `W + K` for them.
//!
//! Forms: `parallel-portable` ([`super::parallel_portable`], `[u64; 2]` arrays),
//! `parallel-sse41` ([`super::parallel_sse41`], rotations as two shifts and an OR) and
//! `parallel-avx512` ([`super::parallel_avx512`], AVX-512 VL `vprorq` and `vpternlogq`).

pub(crate) use super::super::schedule_isa::ScheduleIsa as Isa;

/// Compresses whole 128-byte blocks into `state` with the schedule computed by `isa`.
#[inline(never)]
pub(crate) fn compress_blocks(isa: Isa, state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    match isa {
        Isa::Portable => super::parallel_portable::compress_blocks(state, blocks),
        #[cfg(target_arch = "x86_64")]
        Isa::Sse41(token) => super::parallel_sse41::compress_blocks(token, state, blocks),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512(token, bmi2) => {
            super::parallel_avx512::compress_blocks(token, bmi2, state, blocks)
        }
    }
}
