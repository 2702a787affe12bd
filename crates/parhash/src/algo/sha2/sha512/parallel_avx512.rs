//! `parallel-avx512`: the SHA-512 `parallel` form with the schedule in 128-bit registers using
//! AVX-512 VL (`vprorq` rotates a lane in one instruction, `vpternlogq` XORs three vectors).

// σ0 = rotr 1 ^ rotr 8 ^ shr 7, σ1 = rotr 19 ^ rotr 61 ^ shr 6 (FIPS 180-4 4.1.3).
super::super::schedule_isa::vector_kernel!(avx512 Avx512 + Bmi2 "avx512f,avx512vl,sse2,ssse3,sse4.1,bmi1,bmi2", u64, 128, sigma0 (1 8 7) sigma1 (19 61 6));
