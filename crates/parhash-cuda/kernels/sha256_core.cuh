// SHA-256's compression function (FIPS 180-4, 6.2.2) for CUDA, shared by sha256.cu and
// parsha256.cu. The host prepends this file to each of them before NVRTC compiles it (NVRTC has no
// file system), so it carries no include guard of its own beyond the one below.
#ifndef PARHASH_SHA256_CORE
#define PARHASH_SHA256_CORE

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;

// SHA-256's round constants (FIPS 180-4, 4.2.2).
__constant__ u32 SHA256_K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

// SHA-256's initial hash value (FIPS 180-4, 5.3.3); PARSHA-256's IV is a prefix of it.
__constant__ u32 SHA256_H0[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

// Funnel-shift rotate: one instruction on every architecture NVRTC targets.
__device__ __forceinline__ u32 rotr32(u32 x, u32 n) { return __funnelshift_r(x, x, n); }

// Big-endian load of a little-endian GPU word.
__device__ __forceinline__ u32 bswap32(u32 x) { return __byte_perm(x, 0, 0x0123); }

// state <- state + rounds(state, w): one compression, with the feed-forward. `w` is the 16-word
// block as big-endian words; it is used as the rolling message schedule and destroyed.
__device__ __forceinline__ void sha256_compress(u32 state[8], u32 w[16]) {
    u32 a = state[0], b = state[1], c = state[2], d = state[3];
    u32 e = state[4], f = state[5], g = state[6], h = state[7];
#pragma unroll
    for (int t = 0; t < 64; ++t) {
        u32 wt;
        if (t < 16) {
            wt = w[t];
        } else {
            u32 w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
            u32 s0 = rotr32(w15, 7) ^ rotr32(w15, 18) ^ (w15 >> 3);
            u32 s1 = rotr32(w2, 17) ^ rotr32(w2, 19) ^ (w2 >> 10);
            wt = w[t & 15] + s0 + w[(t - 7) & 15] + s1;
            w[t & 15] = wt;
        }
        u32 t1 = h + (rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25)) + ((e & f) ^ (~e & g)) +
                 SHA256_K[t] + wt;
        u32 t2 = (rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

#endif
