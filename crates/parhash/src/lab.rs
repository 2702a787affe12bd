//! NOT PART OF THE SUPPORTED API. What the benchmark lab (`parhash-lab`), `parhash list`, the
//! benches, the examples, the integration tests, the fuzz targets and the CUDA crate's checks
//! reach below the public surface: single kernels, lane kernels and their widths, CPU tokens,
//! the tree engines' knobs, the file engine's piece sizes, the RC5 study. Hidden from the docs; it changes with the kernels,
//! without notice. Everything else in parhash uses the crate-private modules directly.
//!
//! Why a module and not public kernels: the lab measures single kernels and lane widths, the
//! tests check each kernel against its reference, and the CUDA crate compares its kernels with
//! the CPU's; none of that is API a user should build on. Paths mirror the crate's own
//! (`lab::algo::sha2::compress256` is `crate::algo::sha2::compress256`).

/// The hash families whose kernels, references and tree engines the lab, the tests and the
/// CUDA crate reach one by one.
pub mod algo {
    pub use crate::algo::{blake3, keccak, md5, parsha256, sandstorm, sha1, sha2, simd};
    pub use crate::algo::{VariantInfo, VariantOf, Variants};
}

/// The batch engine's lane kernels, chosen and listed by hand.
pub mod batch {
    pub use crate::batch::select::{
        best_kernel, has_lanes, kernels, lane_kernel, threads_used, MIN_BYTES_PER_THREAD,
    };
}

/// The file engine's piece sizes and limits, for the integration tests that hash files around
/// them.
pub mod file {
    pub use crate::file::many::SMALL_FILE;
    pub use crate::file::multi::PIECES_IN_FLIGHT;
    pub use crate::file::read::{piece_size, OVERLAP_FROM_PIECES, PIECE, READ_AHEAD};
}

/// Many messages side by side: the lane kernel and width a batch or a tree runs.
pub mod lanes {
    pub use crate::lanes::{Kernel, Lanes, Width};
}

/// CPU feature tokens and the line `parhash list` prints about them.
pub mod platform {
    pub use crate::platform::{describe, AesNi, Avx2, Avx512, Bmi2, ShaNi};
}

/// RC5-32/12/16, the block cipher of a seed study, kept for its benchmark.
pub mod rc5 {
    pub use crate::cipher::rc5::{overlapped, Rc5_32_12_16, KEY_BYTES};
}

/// Input for tests: the crate's own and the CUDA crate's.
pub mod testing {
    /// `len` pseudo-random bytes (xorshift from `seed`, first spread by a multiply so that
    /// nearby seeds start far apart): cheap and deterministic, so that a failure reproduces.
    pub fn pseudo_random_bytes(seed: u64, len: usize) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }
}
