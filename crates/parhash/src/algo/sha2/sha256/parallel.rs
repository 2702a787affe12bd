//! The `parallel` SHA-256 compression: the parallelism seed study 3 found inside SHA-256, mapped
//! to SIMD. The 64 rounds are a serial chain, but the message schedule
//! `W[t] = σ1(W[t-2]) + W[t-7] + σ0(W[t-15]) + W[t-16]` does not depend on them, so it runs four
//! words at a time in vector registers beside the scalar rounds: while the rounds of group `g`
//! (rounds `4g..4g+3`) run on the integer units, the vector unit computes group `g + 4` and
//! stores `W + K` for it. Within a group, `W[t+2]` and `W[t+3]` need `W[t]` and `W[t+1]` (through
//! `σ1`), so each group is finished in two halves of two words.
//!
//! Forms: `parallel-portable` ([`super::parallel_portable`], the same grouping on `[u32; 4]`
//! arrays), `parallel-sse41` ([`super::parallel_sse41`], shifts and ORs for the rotations) and
//! `parallel-avx512` ([`super::parallel_avx512`], AVX-512 VL rotates and three-way XOR on
//! 128-bit registers). `parallel` is the best of them this CPU allows.

super::super::schedule_isa::dispatch!(u32, 64);
