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

super::super::schedule_isa::dispatch!(u64, 128);
