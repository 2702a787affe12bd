//! Which lane kernel the batch engine runs for an algorithm, and on how many threads: the
//! registry's algorithm mapped to its family's lanes (nothing below the registry knows the
//! enum). Crate-private; the benchmark lab lists and forces kernels through the hidden `lab`
//! module.

use crate::lanes::{Kernel, Lanes, Width};
use crate::registry::Algorithm;
use crate::threads::Threads;

/// Whether `alg` has a lane kernel on the SHA extensions (SHA-224 and SHA-256).
fn has_sha_ni(alg: Algorithm) -> bool {
    matches!(alg, Algorithm::Sha224 | Algorithm::Sha256)
}

/// The fastest lane kernel for `alg` on this CPU (the widest vectors when `alg` has no other).
pub fn best_kernel(alg: Algorithm) -> Kernel {
    Kernel::best(has_sha_ni(alg))
}

/// Every lane kernel `alg` can run on this CPU, vector widths narrowest first (tests,
/// benchmarks).
pub fn kernels(alg: Algorithm) -> Vec<Kernel> {
    Kernel::all(has_sha_ni(alg))
}

/// Builds the lane kernel for `alg` (vector lanes at a width, or the SHA-NI streams), or `None`
/// if `alg` has no such kernel. The registry's algorithm picks the family's lanes and their
/// initial value here, so nothing below the registry needs to know its enum.
pub fn lane_kernel(alg: Algorithm, kernel: impl Into<Kernel>) -> Option<Box<dyn Lanes>> {
    use crate::algo::keccak::lanes::{KeccakLanes, Padding};
    use crate::algo::sha2::consts::{IV384, IV512, IV512_224, IV512_256};
    use crate::algo::sha2::sha256::lanes::Sha256Lanes;
    use crate::algo::sha2::sha512::lanes::Sha512Lanes;
    let width = match kernel.into() {
        Kernel::Vector(width) => width,
        #[cfg(target_arch = "x86_64")]
        Kernel::ShaNi(token) => {
            use crate::algo::sha2::sha256::lanes_sha_ni::ShaNiLanes;
            return match alg {
                Algorithm::Sha224 => Some(Box::new(ShaNiLanes::sha224(token))),
                Algorithm::Sha256 => Some(Box::new(ShaNiLanes::sha256(token))),
                _ => None,
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        Kernel::ShaNi(_) => return None,
    };
    let k: Box<dyn Lanes> = match alg {
        Algorithm::Md5 => Box::new(crate::algo::md5::lanes::Md5Lanes::new(width)),
        Algorithm::Sha1 => Box::new(crate::algo::sha1::lanes::Sha1Lanes::new(width)),
        Algorithm::Sha224 => Box::new(Sha256Lanes::sha224(width)),
        Algorithm::Sha256 => Box::new(Sha256Lanes::sha256(width)),
        Algorithm::Sha384 => Box::new(Sha512Lanes::new(width, &IV384, 48)),
        Algorithm::Sha512 => Box::new(Sha512Lanes::new(width, &IV512, 64)),
        Algorithm::Sha512_224 => Box::new(Sha512Lanes::new(width, &IV512_224, 28)),
        Algorithm::Sha512_256 => Box::new(Sha512Lanes::new(width, &IV512_256, 32)),
        Algorithm::Sha3_224 => Box::new(KeccakLanes::new(width, 28, Padding::Sha3)),
        Algorithm::Sha3_256 => Box::new(KeccakLanes::new(width, 32, Padding::Sha3)),
        Algorithm::Sha3_384 => Box::new(KeccakLanes::new(width, 48, Padding::Sha3)),
        Algorithm::Sha3_512 => Box::new(KeccakLanes::new(width, 64, Padding::Sha3)),
        Algorithm::Keccak224 => Box::new(KeccakLanes::new(width, 28, Padding::Keccak)),
        Algorithm::Keccak256 => Box::new(KeccakLanes::new(width, 32, Padding::Keccak)),
        Algorithm::Keccak384 => Box::new(KeccakLanes::new(width, 48, Padding::Keccak)),
        Algorithm::Keccak512 => Box::new(KeccakLanes::new(width, 64, Padding::Keccak)),
        _ => return None,
    };
    Some(k)
}

/// Whether `alg` has multi-lane kernels (otherwise the batch API uses threads only).
pub fn has_lanes(alg: Algorithm) -> bool {
    lane_kernel(alg, Width::Portable).is_some()
}

/// At least this many bytes of a batch per thread (each message counted 64 bytes more, for its
/// padding and bookkeeping): handing work to a pool thread and waiting for it costs tens of
/// microseconds on a VM, what a core hashes of about this much.
pub const MIN_BYTES_PER_THREAD: usize = 256 << 10;

/// The threads `hash_many_with` uses for `messages` messages of `total_len` bytes in all when
/// given `threads`: at most one per message, and fewer when a thread would get less than
/// [`MIN_BYTES_PER_THREAD`] (each message counted 64 bytes more). The benchmark lab reports it
/// beside configurations that do not scale.
pub fn threads_used(total_len: usize, messages: usize, threads: Threads) -> Threads {
    let work = total_len.saturating_add(messages.saturating_mul(64));
    threads.at_most((work / MIN_BYTES_PER_THREAD).min(messages))
}
