//! `parallel-sse41`: the `parallel` form with the schedule in SSE registers. SSE has no vector
//! rotate, so each rotation is two shifts and an OR.

// σ0 = rotr 7 ^ rotr 18 ^ shr 3, σ1 = rotr 17 ^ rotr 19 ^ shr 10 (FIPS 180-4 4.1.2).
super::super::schedule_isa::vector_kernel!(sse41 Sse41 "sse2,ssse3,sse4.1", u32, 64, sigma0 (7 18 3) sigma1 (17 19 10));
