// Runs one kernel of ../../kernels on the CPU (see cuda_emu.h). Reads from standard input:
// u32 grid, u32 block, u32 buffer count, each buffer as u64 length + bytes, u32 scalar count,
// each scalar as u64. Runs the kernel named by argv[1] with buffers and scalars in the order of
// its signature, then writes every buffer back (u64 length + bytes) to standard output.
#include "cuda_emu.h"
#include <cstdio>
#include <string>

#include "../../kernels/sha256_core.cuh"
#include "../../kernels/sha256.cu"
#include "../../kernels/parsha256.cu"
#include "../../kernels/keccak.cu"

static void read_exact(void* p, size_t n) {
    if (n && fread(p, 1, n, stdin) != n) {
        fprintf(stderr, "harness: short input\n");
        exit(2);
    }
}

template <typename T> static T read_value() {
    T v;
    read_exact(&v, sizeof v);
    return v;
}

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    std::string op = argv[1];
    unsigned grid = read_value<uint32_t>(), block = read_value<uint32_t>();
    std::vector<std::vector<uint64_t>> storage(read_value<uint32_t>());  // 8-byte aligned
    std::vector<uint64_t> lengths;
    for (auto& buf : storage) {
        uint64_t len = read_value<uint64_t>();
        lengths.push_back(len);
        buf.assign((len + 7) / 8 + 1, 0);
        read_exact(buf.data(), len);
    }
    std::vector<uint64_t> s(read_value<uint32_t>());
    for (auto& v : s) v = read_value<uint64_t>();
    auto b = [&](size_t i) { return (void*)storage.at(i).data(); };
    std::function<void()> kernel;
    if (op == "sha256_batch") {
        kernel = [&] { sha256_batch((const u8*)b(0), (const u64*)b(1), (const u64*)b(2), (u32)s.at(0), (u32*)b(3)); };
    } else if (op == "sha256_uniform") {
        kernel = [&] { sha256_uniform((const u8*)b(0), s.at(0), s.at(1), (u32)s.at(2), (u32*)b(1)); };
    } else if (op == "nonce_search") {
        kernel = [&] { nonce_search((const u32*)b(0), (u32)s.at(0), (u32)s.at(1), (u64*)b(1)); };
    } else if (op == "parsha_round") {
        kernel = [&] {
            parsha_round((const u32*)b(0), s.at(0), (u32)s.at(1), (u32)s.at(2), (u32)s.at(3), (u32)s.at(4),
                         (u32)s.at(5), (u32)s.at(6), (u32)s.at(7), (const u32*)b(1), (const u32*)b(2),
                         (u32*)b(3), (u32*)b(4));
        };
    } else if (op == "parsha_warp") {
        kernel = [&] { parsha_warp((const u32*)b(0), (u32)s.at(0), s.at(1), (u32)s.at(2), (u32)s.at(3), (u32*)b(1), (u32*)b(2)); };
    } else if (op == "parsha_block") {
        kernel = [&] { parsha_block((const u32*)b(0), (u32)s.at(0), s.at(1), (u32)s.at(2), (u32)s.at(3), (u32*)b(1), (u32*)b(2)); };
    } else if (op == "keccak_packed") {
        kernel = [&] { keccak_packed((const u8*)b(0), (const u64*)b(1), (const u64*)b(2), (u32)s.at(0), (u32)s.at(1), (u64*)b(3)); };
    } else if (op == "keccak_uniform") {
        kernel = [&] { keccak_uniform((const u8*)b(0), s.at(0), s.at(1), (u32)s.at(2), (u32)s.at(3), (u64*)b(1)); };
    } else if (op == "keccak_interleaved") {
        kernel = [&] { keccak_interleaved((const u64*)b(0), (const u32*)b(1), (u32)s.at(0), (u64*)b(2)); };
    } else {
        fprintf(stderr, "harness: unknown kernel %s\n", op.c_str());
        return 2;
    }
    launch(grid, block, kernel);
    for (size_t i = 0; i < storage.size(); ++i) {
        fwrite(&lengths[i], 8, 1, stdout);
        fwrite(storage[i].data(), 1, lengths[i], stdout);
    }
    return 0;
}
