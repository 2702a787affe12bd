// Just enough of CUDA C++ for the kernels in ../../kernels to compile as ordinary C++ and run on
// the CPU, one OS thread per GPU thread, so that their logic is tested on machines without a GPU
// (tests/emulated.rs). It checks what the kernels compute, not how fast, nor anything the
// hardware alone decides (register limits, launch failures, memory faults on the device).
#pragma once
#include <atomic>
#include <barrier>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __constant__ static
// One block runs at a time, so a function-local static is the block's shared memory.
#define __shared__ static
#define __launch_bounds__(n)

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
static thread_local dim3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;
static std::unique_ptr<std::barrier<>> block_barrier;
static std::vector<unsigned long long> shuffle_slots;

inline void __syncthreads() { block_barrier->arrive_and_wait(); }

// __funnelshift_r(lo, hi, s): the low 32 bits of (hi:lo) >> (s & 31).
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)(v >> (s & 31));
}

// __byte_perm(x, y, s): byte i of the result is byte (s >> 4i) & 7 of the 8 bytes y:x.
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    unsigned long long v = ((unsigned long long)y << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) {
        unsigned sel = (s >> (4 * i)) & 7;
        r |= (unsigned)((v >> (8 * sel)) & 0xff) << (8 * i);
    }
    return r;
}

inline unsigned long long atomicMin(unsigned long long* p, unsigned long long v) {
    std::atomic_ref<unsigned long long> a(*p);
    unsigned long long old = a.load();
    while (v < old && !a.compare_exchange_weak(old, v)) {
    }
    return old;
}

// Every thread of the block takes part (as in the kernels, which shuffle in uniform control
// flow); lane `src` of the caller's warp is read.
inline unsigned __shfl_sync(unsigned, unsigned v, int src) {
    unsigned t = threadIdx.x;
    shuffle_slots[t] = v;
    __syncthreads();
    unsigned r = (unsigned)shuffle_slots[(t & ~31u) + (unsigned)(src & 31)];
    __syncthreads();
    return r;
}

// Runs `kernel` over a grid: blocks one after another, each block's threads at once.
inline void launch(unsigned grid, unsigned block, const std::function<void()>& kernel) {
    gridDim.x = grid;
    blockDim.x = block;
    shuffle_slots.assign(block, 0);
    for (unsigned b = 0; b < grid; ++b) {
        block_barrier = std::make_unique<std::barrier<>>(block);
        std::vector<std::thread> threads;
        threads.reserve(block);
        for (unsigned t = 0; t < block; ++t) {
            threads.emplace_back([&, b, t] {
                blockIdx.x = b;
                threadIdx.x = t;
                kernel();
            });
        }
        for (auto& th : threads) th.join();
    }
}
