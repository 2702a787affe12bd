//! `parallel-sse41`: the SHA-512 `parallel` form with the schedule in SSE registers, two words
//! each. SSE has no vector rotate, so each rotation is two shifts and an OR.

// σ0 = rotr 1 ^ rotr 8 ^ shr 7, σ1 = rotr 19 ^ rotr 61 ^ shr 6 (FIPS 180-4 4.1.3).
super::super::schedule_isa::vector_kernel!(sse41 Sse41 "sse2,ssse3,sse4.1", u64, 128, sigma0 (1 8 7) sigma1 (19 61 6));
