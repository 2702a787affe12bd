// Batched Keccak-256 / SHA3-256 (FIPS 202; Keccak-256 is the original submission's padding,
// domain byte 0x01 instead of SHA-3's 0x06), one message per thread, with the two host layouts of
// seed study 5:
//   keccak_packed       messages one after another (non-interleaved); padding done here
//                       (keccak_uniform: all of one length, at a fixed stride, no tables);
//   keccak_interleaved  block-interleaved: lane w of block k of message i at
//                       lanes[(k * 17 + w) * count + i], padded by the host, so a warp's loads
//                       of one lane are one coalesced transaction.

typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;

#define KECCAK_RATE_BYTES 136  // r = 1088 bits for a 256-bit digest
#define KECCAK_RATE_LANES 17

// Round constants of iota (FIPS 202, 3.2.5).
__constant__ u64 KECCAK_RC[24] = {
    0x0000000000000001ull, 0x0000000000008082ull, 0x800000000000808aull, 0x8000000080008000ull,
    0x000000000000808bull, 0x0000000080000001ull, 0x8000000080008081ull, 0x8000000000008009ull,
    0x000000000000008aull, 0x0000000000000088ull, 0x0000000080008009ull, 0x000000008000000aull,
    0x000000008000808bull, 0x800000000000008bull, 0x8000000000008089ull, 0x8000000000008003ull,
    0x8000000000008002ull, 0x8000000000000080ull, 0x000000000000800aull, 0x800000008000000aull,
    0x8000000080008081ull, 0x8000000000008080ull, 0x0000000080000001ull, 0x8000000080008008ull,
};

__device__ __forceinline__ u64 rotl64(u64 x, int n) {
    return n == 0 ? x : (x << n) | (x >> (64 - n));
}

// Keccak-f[1600] on lanes a[x + 5y] (FIPS 202, 3.2). Every loop is unrolled so the state and the
// rho offsets are compile-time register indices.
__device__ __forceinline__ void keccak_f1600(u64 a[25]) {
    const int rho[25] = {0,  1,  62, 28, 27, 36, 44, 6,  55, 20, 3,  10, 43,
                         25, 39, 41, 45, 15, 21, 8,  18, 2,  61, 56, 14};
#pragma unroll 1
    for (int round = 0; round < 24; ++round) {
        u64 c[5], b[25];
#pragma unroll
        for (int x = 0; x < 5; ++x) c[x] = a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20];
#pragma unroll
        for (int x = 0; x < 5; ++x) {
            u64 d = c[(x + 4) % 5] ^ rotl64(c[(x + 1) % 5], 1);
#pragma unroll
            for (int y = 0; y < 5; ++y) a[x + 5 * y] ^= d;
        }
        // rho and pi: B[y, 2x + 3y] = rot(A[x, y], r[x, y]).
#pragma unroll
        for (int x = 0; x < 5; ++x) {
#pragma unroll
            for (int y = 0; y < 5; ++y) {
                b[y + 5 * ((2 * x + 3 * y) % 5)] = rotl64(a[x + 5 * y], rho[x + 5 * y]);
            }
        }
#pragma unroll
        for (int y = 0; y < 5; ++y) {
#pragma unroll
            for (int x = 0; x < 5; ++x) {
                a[x + 5 * y] = b[x + 5 * y] ^ (~b[(x + 1) % 5 + 5 * y] & b[(x + 2) % 5 + 5 * y]);
            }
        }
        a[0] ^= KECCAK_RC[round];
    }
}

// Lane w (little-endian) of block blk of msg[0..len] padded with pad10*1: the domain byte right
// after the message, 0x80 or'ed into the last byte of the last block.
__device__ __forceinline__ u64 padded_lane(const u8* msg, u64 len, u64 blk, int w, u64 last_blk,
                                           u32 domain) {
    u64 pos = blk * KECCAK_RATE_BYTES + 8 * (u64)w;
    if (pos + 8 <= len) {
        // Messages start 8-byte aligned (the host's packing) and the rate is 17 lanes.
        return *(const u64*)(msg + pos);
    }
    u64 lane = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        u64 q = pos + k;
        u64 byte = q < len ? msg[q] : (q == len ? domain : 0);
        lane |= byte << (8 * k);
    }
    if (blk == last_blk && w == KECCAK_RATE_LANES - 1) lane |= 0x80ull << 56;
    return lane;
}

// The 256-bit digest of msg[0..len] (8-byte aligned) into out[0..4] as little-endian lanes;
// `domain` is 0x01 (Keccak-256) or 0x06 (SHA3-256).
__device__ __forceinline__ void keccak_message(const u8* msg, u64 len, u32 domain, u64* out) {
    u64 blocks = len / KECCAK_RATE_BYTES + 1;
    u64 a[25];
#pragma unroll
    for (int k = 0; k < 25; ++k) a[k] = 0;
    for (u64 blk = 0; blk < blocks; ++blk) {
#pragma unroll
        for (int w = 0; w < KECCAK_RATE_LANES; ++w) {
            a[w] ^= padded_lane(msg, len, blk, w, blocks - 1, domain);
        }
        keccak_f1600(a);
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) out[k] = a[k];
}

// digests[4 * i ..] = the digest of data[offsets[i] .. offsets[i] + lengths[i]].
extern "C" __global__ void keccak_packed(const u8* __restrict__ data,
                                         const u64* __restrict__ offsets,
                                         const u64* __restrict__ lengths, u32 count, u32 domain,
                                         u64* __restrict__ digests) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    keccak_message(data + offsets[i], lengths[i], domain, digests + 4 * (u64)i);
}

// A batch of messages of one length, `len`, every `stride` bytes (a multiple of 8), no tables.
extern "C" __global__ void keccak_uniform(const u8* __restrict__ data, u64 stride, u64 len,
                                          u32 count, u32 domain, u64* __restrict__ digests) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    keccak_message(data + stride * i, len, domain, digests + 4 * (u64)i);
}

// The block-interleaved layout: message i has blocks[i] padded blocks (the host padded them).
extern "C" __global__ void keccak_interleaved(const u64* __restrict__ lanes,
                                              const u32* __restrict__ blocks, u32 count,
                                              u64* __restrict__ digests) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    u32 nb = blocks[i];
    u64 a[25];
#pragma unroll
    for (int k = 0; k < 25; ++k) a[k] = 0;
    for (u32 blk = 0; blk < nb; ++blk) {
        const u64* block = lanes + (u64)blk * KECCAK_RATE_LANES * count + i;
#pragma unroll
        for (int w = 0; w < KECCAK_RATE_LANES; ++w) a[w] ^= block[(u64)w * count];
        keccak_f1600(a);
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) digests[4 * (u64)i + k] = a[k];
}
