// PARSHA-256 (Pal & Sarkar; shared/specs/parsha256.md) as a tree of 2^t processors, one thread
// each. A round's processors read their pieces u(i, j) of the padded message (laid out round after
// round, processors in order, internal ones first) and their children's outputs z(2j), z(2j+1)
// from the round before. Three forms of the same round:
//   parsha_round  one launch per round, outputs in two global buffers swapped between rounds;
//   parsha_warp   the whole tree (t <= 5) in one warp: outputs stay in registers, shuffles;
//   parsha_block  the whole tree (t <= 10) in one block: outputs in shared memory.
// The host does step 1 (short messages), the padding, and the final step (two compressions).
// Needs sha256_core.cuh, which the host prepends.
//
// The message is read as 32-bit words (every piece is a multiple of 16 bytes): `msg` is the padded
// message, offsets are in words. A processor's output is 8 words plus a presence flag (a piece of
// 0 or m bits).

// The shape of round i (1-based): what internal (j < 2^(t-1)) and leaf processors take.
struct RoundShape {
    u32 int_words;   // words of u(i, j) for an internal processor that takes one
    u32 int_count;   // internal processors 0 .. int_count take a piece
    u32 leaflike;    // round 1: internal processors take n - l bits plus the IV like leaves
    u32 leaf_words;  // words of u(i, j) for a leaf that takes one
    u32 leaf_count;  // leaves first_leaf .. first_leaf + leaf_count take a piece
};

// Mirrors `plan::round_shape` on the host (tested there against the reference implementation).
__device__ __forceinline__ RoundShape round_shape(u64 i, u32 t, u64 q, u32 b, u32 leaf_words) {
    u32 first_leaf = 1u << (t - 1);
    RoundShape s;
    s.leaf_words = leaf_words;
    if (i == 1) {
        s.int_words = leaf_words;
        s.int_count = first_leaf;
        s.leaflike = 1;
        s.leaf_count = first_leaf;
        return s;
    }
    s.int_words = 8;  // n - 2m bits
    s.leaflike = 0;
    if (i <= q + 1) {
        s.int_count = first_leaf;
        s.leaf_count = first_leaf;
    } else if (i == q + 2) {
        s.int_count = first_leaf;
        s.leaf_count = b;
    } else {
        u32 rem = (u32)(q + t + 2 - i);  // R - i, in 1 .. t - 1
        s.int_count = (1u << (rem - 1)) + (((1u << (t - rem - 1)) + b - 1) >> (t - rem));
        s.leaf_count = 0;
    }
    return s;
}

__device__ __forceinline__ u64 round_words(const RoundShape& s) {
    return (u64)s.int_count * s.int_words + (u64)s.leaf_count * s.leaf_words;
}

// Processor j of a round whose pieces start at word `base`. `left`/`right` are z(2j), z(2j+1)
// from the round before (used by internal processors only). Writes z(j) and its presence.
__device__ __forceinline__ void processor(const u32* __restrict__ msg, u64 base, u32 j,
                                          u32 first_leaf, const RoundShape& s, u32 iv_words,
                                          const u32 left[8], u32 left_present,
                                          const u32 right[8], u32 right_present, u32 out[8],
                                          u32* out_present) {
    if (s.leaflike || j >= first_leaf) {
        u64 off;
        u32 words;
        bool present;
        if (j < first_leaf) {
            off = base + (u64)j * s.int_words;
            words = s.int_words;
            present = j < s.int_count;
        } else {
            u32 idx = j - first_leaf;
            off = base + (u64)s.int_count * s.int_words + (u64)idx * s.leaf_words;
            words = s.leaf_words;
            present = idx < s.leaf_count;
        }
        if (!present) {
            *out_present = 0;
            return;
        }
        // v = u(i, j) || IV: 24 words, the first 8 the chaining value.
        u32 v[24];
        for (u32 k = 0; k < words; ++k) v[k] = bswap32(msg[off + k]);
        for (u32 k = 0; k < iv_words; ++k) v[words + k] = SHA256_H0[k];
        u32 w[16];
#pragma unroll
        for (int k = 0; k < 8; ++k) out[k] = v[k];
#pragma unroll
        for (int k = 0; k < 16; ++k) w[k] = v[8 + k];
        sha256_compress(out, w);
        *out_present = 1;
        return;
    }
    if (j < s.int_count) {
        // v = z(2j) || z(2j+1) || u(i, j): both children are present by the 0/m/n invariant.
        u32 w[16];
        const u32* u = msg + base + (u64)j * 8;
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            out[k] = left[k];
            w[k] = right[k];
            w[8 + k] = bswap32(u[k]);
        }
        sha256_compress(out, w);
        *out_present = 1;
        return;
    }
    // No piece: m bits (one child) pass through, or nothing.
#pragma unroll
    for (int k = 0; k < 8; ++k) out[k] = left_present ? left[k] : right[k];
    *out_present = left_present | right_present;
}

// One round, one thread per processor. Outputs are stored word-major (z[k * procs + j]) so that
// a warp's loads and stores are coalesced.
extern "C" __global__ void parsha_round(const u32* __restrict__ msg, u64 base, u32 t,
                                        u32 int_words, u32 int_count, u32 leaflike,
                                        u32 leaf_words, u32 leaf_count, u32 iv_words,
                                        const u32* __restrict__ z_in,
                                        const u32* __restrict__ present_in,
                                        u32* __restrict__ z_out, u32* __restrict__ present_out) {
    u32 procs = 1u << t;
    u32 first_leaf = procs >> 1;
    u32 j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= procs) return;
    RoundShape s;
    s.int_words = int_words;
    s.int_count = int_count;
    s.leaflike = leaflike;
    s.leaf_words = leaf_words;
    s.leaf_count = leaf_count;
    u32 left[8], right[8], out[8];
    u32 lp = 0, rp = 0, op;
    if (j < first_leaf && !leaflike) {
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            left[k] = z_in[k * procs + 2 * j];
            right[k] = z_in[k * procs + 2 * j + 1];
        }
        lp = present_in[2 * j];
        rp = present_in[2 * j + 1];
    }
    processor(msg, base, j, first_leaf, s, iv_words, left, lp, right, rp, out, &op);
#pragma unroll
    for (int k = 0; k < 8; ++k) z_out[k * procs + j] = out[k];
    present_out[j] = op;
}

// Every round of a tree of t <= 5 in one warp: processor j is lane j, z(j) stays in its
// registers, children's outputs come by shuffles. Writes z(0), z(1) and their presence to
// `z01[0..16]`, `present01[0..2]` for the host's final step.
extern "C" __global__ void parsha_warp(const u32* __restrict__ msg, u32 t, u64 q, u32 b,
                                       u32 iv_words, u32* __restrict__ z01,
                                       u32* __restrict__ present01) {
    const u32 full = 0xffffffffu;
    u32 procs = 1u << t;
    u32 first_leaf = procs >> 1;
    u32 j = threadIdx.x;
    u32 z[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    u32 zp = 0;
    u64 base = 0;
    u64 rounds = q + t + 1;
    u32 lsrc = (2 * j) & 31, rsrc = (2 * j + 1) & 31;
    for (u64 i = 1; i <= rounds; ++i) {
        RoundShape s = round_shape(i, t, q, b, 24 - iv_words);
        // Every lane shuffles (uniform control flow); only internal lanes use the result.
        u32 left[8], right[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            left[k] = __shfl_sync(full, z[k], lsrc);
            right[k] = __shfl_sync(full, z[k], rsrc);
        }
        u32 lp = __shfl_sync(full, zp, lsrc);
        u32 rp = __shfl_sync(full, zp, rsrc);
        if (j < procs) {
            u32 out[8], op;
            processor(msg, base, j, first_leaf, s, iv_words, left, lp, right, rp, out, &op);
#pragma unroll
            for (int k = 0; k < 8; ++k) z[k] = out[k];
            zp = op;
        }
        base += round_words(s);
    }
    if (j < 2) {
#pragma unroll
        for (int k = 0; k < 8; ++k) z01[8 * j + k] = z[k];
        present01[j] = zp;
    }
}

// Every round of a tree of t <= 10 in one block of 2^t threads: outputs in shared memory, two
// barriers a round (read the children, then overwrite).
extern "C" __global__ void __launch_bounds__(1024)
    parsha_block(const u32* __restrict__ msg, u32 t, u64 q, u32 b, u32 iv_words,
                 u32* __restrict__ z01, u32* __restrict__ present01) {
    __shared__ u32 sz[8 * 1024];
    __shared__ u32 sp[1024];
    u32 procs = 1u << t;
    u32 first_leaf = procs >> 1;
    u32 j = threadIdx.x;
    u64 base = 0;
    u64 rounds = q + t + 1;
    sp[j] = 0;
    __syncthreads();
    for (u64 i = 1; i <= rounds; ++i) {
        RoundShape s = round_shape(i, t, q, b, 24 - iv_words);
        u32 left[8], right[8], out[8];
        u32 lp = 0, rp = 0, op;
        if (j < first_leaf && !s.leaflike) {
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                left[k] = sz[k * 1024 + 2 * j];
                right[k] = sz[k * 1024 + 2 * j + 1];
            }
            lp = sp[2 * j];
            rp = sp[2 * j + 1];
        }
        __syncthreads();
        processor(msg, base, j, first_leaf, s, iv_words, left, lp, right, rp, out, &op);
#pragma unroll
        for (int k = 0; k < 8; ++k) sz[k * 1024 + j] = out[k];
        sp[j] = op;
        __syncthreads();
        base += round_words(s);
    }
    if (j < 2) {
#pragma unroll
        for (int k = 0; k < 8; ++k) z01[8 * j + k] = sz[k * 1024 + j];
        present01[j] = sp[j];
    }
}
