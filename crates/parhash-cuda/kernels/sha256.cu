// Batched SHA-256 (one message per thread, any mix of lengths, padding done here) and the Bitcoin
// nonce search (double SHA-256 of an 80-byte header below a target). Needs sha256_core.cuh,
// which the host prepends.

// Word `i` (big-endian) of block `blk` of the padded message `msg[0..len]`: FIPS 180-4 5.1.1,
// the 0x80 byte after the message, zeros, and the bit length in the last 8 bytes of the last block.
__device__ __forceinline__ u32 padded_word(const u8* msg, u64 len, u64 blk, int i, u64 last_blk) {
    u64 pos = blk * 64 + 4 * (u64)i;
    if (blk == last_blk && i >= 14) {
        u64 bits = len * 8;
        return i == 14 ? (u32)(bits >> 32) : (u32)bits;
    }
    if (pos + 4 <= len) {
        // Messages start 4-byte aligned (the host's packing), so this is one aligned load.
        return bswap32(*(const u32*)(msg + pos));
    }
    u32 word = 0;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        u64 q = pos + k;
        u32 byte = q < len ? msg[q] : (q == len ? 0x80u : 0u);
        word = (word << 8) | byte;
    }
    return word;
}

// SHA-256 of msg[0..len] (4-byte aligned) into out[0..8], as big-endian words.
__device__ __forceinline__ void sha256_message(const u8* msg, u64 len, u32* out) {
    u64 blocks = (len + 9 + 63) / 64;
    u32 state[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) state[k] = SHA256_H0[k];
    for (u64 blk = 0; blk < blocks; ++blk) {
        u32 w[16];
        if ((blk + 1) * 64 <= len) {
            const u32* p = (const u32*)(msg + blk * 64);
#pragma unroll
            for (int k = 0; k < 16; ++k) w[k] = bswap32(p[k]);
        } else {
#pragma unroll
            for (int k = 0; k < 16; ++k) w[k] = padded_word(msg, len, blk, k, blocks - 1);
        }
        sha256_compress(state, w);
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) out[k] = state[k];
}

// digests[8 * i ..] = SHA-256(data[offsets[i] .. offsets[i] + lengths[i]]), as big-endian words.
extern "C" __global__ void sha256_batch(const u8* __restrict__ data, const u64* __restrict__ offsets,
                                        const u64* __restrict__ lengths, u32 count,
                                        u32* __restrict__ digests) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    sha256_message(data + offsets[i], lengths[i], digests + 8 * (u64)i);
}

// A batch of messages of one length, `len`, every `stride` bytes (a multiple of 8): no tables to
// copy, so a short message costs its own bytes on the bus and little more.
extern "C" __global__ void sha256_uniform(const u8* __restrict__ data, u64 stride, u64 len,
                                          u32 count, u32* __restrict__ digests) {
    u32 i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    sha256_message(data + stride * i, len, digests + 8 * (u64)i);
}

// Nonce search. `params` holds, as big-endian words: [0..8) the midstate after the header's first
// 64 bytes, [8..11) header bytes 64..76 (end of the merkle root, time, bits), [11..19) the target
// in display order (the block hash read as one big-endian 256-bit number). Nonces
// `start .. start + count` are tried; the smallest whose block hash is at or below the target
// (Bitcoin's rule) is left in `*found` by atomicMin (which the host set to all ones).
extern "C" __global__ void nonce_search(const u32* __restrict__ params, u32 start, u32 count,
                                        u64* found) {
    u32 stride = gridDim.x * blockDim.x;
    for (u32 k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride) {
        u32 nonce = start + k;
        u32 state[8], w[16];
#pragma unroll
        for (int j = 0; j < 8; ++j) state[j] = params[j];
        w[0] = params[8];
        w[1] = params[9];
        w[2] = params[10];
        w[3] = bswap32(nonce);  // the nonce is little-endian in the header
        w[4] = 0x80000000u;
#pragma unroll
        for (int j = 5; j < 15; ++j) w[j] = 0;
        w[15] = 640;  // 80 bytes
        sha256_compress(state, w);
#pragma unroll
        for (int j = 0; j < 8; ++j) w[j] = state[j];
        w[8] = 0x80000000u;
#pragma unroll
        for (int j = 9; j < 15; ++j) w[j] = 0;
        w[15] = 256;  // 32 bytes
#pragma unroll
        for (int j = 0; j < 8; ++j) state[j] = SHA256_H0[j];
        sha256_compress(state, w);
        // Display order reverses the digest's bytes: display word j is bswap(state[7 - j]).
        int verdict = 0;  // <0 below, 0 equal, >0 above
#pragma unroll
        for (int j = 0; j < 8; ++j) {
            u32 hw = bswap32(state[7 - j]);
            u32 tw = params[11 + j];
            if (verdict == 0 && hw != tw) verdict = hw < tw ? -1 : 1;
        }
        if (verdict <= 0) atomicMin(found, (u64)nonce);
    }
}
