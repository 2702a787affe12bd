//! `parallel-avx512`: the `parallel` form with the schedule in 128-bit registers using AVX-512 VL
//! (`vprord` rotates a lane in one instruction, `vpternlogd` XORs three vectors in one).

// σ0 = rotr 7 ^ rotr 18 ^ shr 3, σ1 = rotr 17 ^ rotr 19 ^ shr 10 (FIPS 180-4 4.1.2).
super::super::schedule_isa::vector_kernel!(avx512 Avx512 + Bmi2 "avx512f,avx512vl,sse2,ssse3,sse4.1,bmi1,bmi2", u32, 64, sigma0 (7 18 3) sigma1 (17 19 10));
