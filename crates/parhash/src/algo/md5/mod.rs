//! MD5 (RFC 1321). Broken for collision resistance: kept for checksums and comparison only.
//!
//! MD5 has no internal parallelism worth a second execution unit: each of its 64 steps needs the
//! previous step's result (`a = b + rotl(a + f(b,c,d) + m + k, s)`), and its message schedule is
//! a fixed permutation of the 16 input words, so the only work off that chain is the 64 additions
//! `M[g] + K[i]`. Two forms show it:
//!
//! - `sequential` ([`sequential`]): portable scalar, fully unrolled, literal to RFC 1321; the
//!   default off x86-64 and the portable twin.
//! - `parallel` ([`parallel`]): all 64 `M[g] + K[i]` computed four at a time in vector registers
//!   ahead of the steps (`parallel-sse41`; `parallel-portable` on arrays). It is not faster: the
//!   additions it moves were already off the critical path, which is the chain of dependent
//!   add-rotate steps, ~4-5 cycles each (BENCHMARKS.md, "Foundation: MD5, SHA-1, SHA-2").
//!
//! - `scheduled` ([`scheduled`], x86-64): the sequential steps in inline assembly, ordered so
//!   that each step's chain is exactly f, add, rotate, add (LLVM's reassociation of the
//!   constant adds one more addition to it); the default on x86-64, ~1.3x `sequential` and
//!   faster than OpenSSL's assembly (BENCHMARKS.md, "Performance at the roof").
//!
//! Beyond that, MD5's speed-ups come from running many messages side by side (see `batch/`), not
//! from inside one message.

pub mod lanes;
pub mod parallel;
#[cfg(target_arch = "x86_64")]
pub mod scheduled;
pub mod sequential;

use digest::typenum::{U16, U64};

use super::block_api::{block_core, counted_core, hashers, md_core};
use crate::dispatch::backends;

/// Initial chaining value (RFC 1321 section 3.3).
pub const IV: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

/// Sine-derived additive constants `floor(2^32 * |sin(i + 1)|)`.
#[rustfmt::skip]
pub(crate) const K: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

/// The 64 steps of one block on `$state` (without feed-forward); step `i` of round `r` adds
/// `$mk(i, g)`, which must be `M[g] + K[i]` for the message word `g` that RFC 1321 names.
/// Both forms expand this; they differ only in where `M[g] + K[i]` comes from.
macro_rules! steps64 {
    ($state:expr, $mk:expr) => {{
        let [mut a, mut b, mut c, mut d] = $state;
        macro_rules! step {
            ($f:expr, $a:ident, $b:ident, $c:ident, $d:ident, $i:expr, $g:expr, $s:expr) => {
                // `a + M[g] + K[i]` does not wait for the previous step's `b`: adding it
                // first leaves only f, one add, the rotation and one add on the chain.
                $a = $b.wrapping_add(
                    $a.wrapping_add($mk($i, $g))
                        .wrapping_add($f($b, $c, $d))
                        .rotate_left($s),
                );
            };
        }
        let f = |x: u32, y: u32, z: u32| (x & y) | (!x & z);
        let h = |x: u32, y: u32, z: u32| x ^ y ^ z;
        let i = |x: u32, y: u32, z: u32| y ^ (x | !z);
        use $crate::algo::md5::{g1, g2, g3, g4, S1, S2, S3, S4};

        // Round 2: G(b, c, d) = (b & d) | (c & !d) joins two disjoint bit sets, so the OR is an
        // addition, and the `c & !d` half can be added before the previous step's `b` is known.
        macro_rules! step_g {
            ($a:ident, $b:ident, $c:ident, $d:ident, $i:expr, $g:expr, $s:expr) => {
                $a = $b.wrapping_add(
                    $a.wrapping_add($mk($i, $g))
                        .wrapping_add($c & !$d)
                        .wrapping_add($b & $d)
                        .rotate_left($s),
                );
            };
        }
        macro_rules! round {
            (g, $base:expr, $gi:expr, $s:expr) => {
                step_g!(a, b, c, d, $base, $gi($base), $s[0]);
                step_g!(d, a, b, c, $base + 1, $gi($base + 1), $s[1]);
                step_g!(c, d, a, b, $base + 2, $gi($base + 2), $s[2]);
                step_g!(b, c, d, a, $base + 3, $gi($base + 3), $s[3]);
            };
            ($fun:expr, $base:expr, $gi:expr, $s:expr) => {
                step!($fun, a, b, c, d, $base, $gi($base), $s[0]);
                step!($fun, d, a, b, c, $base + 1, $gi($base + 1), $s[1]);
                step!($fun, c, d, a, b, $base + 2, $gi($base + 2), $s[2]);
                step!($fun, b, c, d, a, $base + 3, $gi($base + 3), $s[3]);
            };
        }
        round!(f, 0, g1, S1);
        round!(f, 4, g1, S1);
        round!(f, 8, g1, S1);
        round!(f, 12, g1, S1);
        round!(g, 16, g2, S2);
        round!(g, 20, g2, S2);
        round!(g, 24, g2, S2);
        round!(g, 28, g2, S2);
        round!(h, 32, g3, S3);
        round!(h, 36, g3, S3);
        round!(h, 40, g3, S3);
        round!(h, 44, g3, S3);
        round!(i, 48, g4, S4);
        round!(i, 52, g4, S4);
        round!(i, 56, g4, S4);
        round!(i, 60, g4, S4);
        [a, b, c, d]
    }};
}
pub(crate) use steps64;

/// Message word of step `i` in round 1..4 (RFC 1321 section 3.4).
pub(crate) const fn g1(i: usize) -> usize {
    i
}
/// Round 2: `(5i + 1) mod 16`.
pub(crate) const fn g2(i: usize) -> usize {
    (5 * i + 1) % 16
}
/// Round 3: `(3i + 5) mod 16`.
pub(crate) const fn g3(i: usize) -> usize {
    (3 * i + 5) % 16
}
/// Round 4: `7i mod 16`.
pub(crate) const fn g4(i: usize) -> usize {
    (7 * i) % 16
}
/// Message word of step `i` (0..64).
pub(crate) const fn message_index(i: usize) -> usize {
    match i / 16 {
        0 => g1(i),
        1 => g2(i),
        2 => g3(i),
        _ => g4(i),
    }
}
/// Rotation amounts of the four steps of a group, per round.
pub(crate) const S1: [u32; 4] = [7, 12, 17, 22];
pub(crate) const S2: [u32; 4] = [5, 9, 14, 20];
pub(crate) const S3: [u32; 4] = [4, 11, 16, 23];
pub(crate) const S4: [u32; 4] = [6, 10, 15, 21];

/// Adds the working variables back into the chaining value.
#[inline(always)]
pub(crate) fn feed_forward(state: &mut [u32; 4], v: [u32; 4]) {
    for (s, x) in state.iter_mut().zip(v) {
        *s = s.wrapping_add(x);
    }
}

backends! {
    /// Which MD5 compression code runs: chosen once per hasher, matched once per call.
    pub(crate) enum Backend {
        Sequential => "sequential": "portable scalar, 64 steps unrolled (RFC 1321)";
        #[cfg(target_arch = "x86_64")]
        Scheduled => "scheduled": "x86-64 assembly, each step's dependency chain at its minimum";
        "parallel" = ["parallel-sse41", "parallel-portable"]:
            "M[g] + K[i] for all 64 steps in vectors ahead of the steps (best ISA here)";
        ParallelPortable => "parallel-portable": "the parallel form's precomputation on plain arrays";
        ParallelSse41(Sse41) => "parallel-sse41": "M[g] + K[i] four at a time in SSE registers";
        // The name MD5's only form had before the split, kept for callers that still use it.
        "portable" = ["sequential"];
    }
    // `scheduled` is the fastest form where it exists, then `sequential` (measured; see
    // BENCHMARKS.md, "Foundation: MD5, SHA-1, SHA-2" and "Performance at the roof").
    default = ["scheduled", "sequential"];
}

// The padding is built in memory (`compress_padded_tail`).
impl crate::algo::block_api::PaddingInRegisters for Backend {
    type State = [u32; 4];
    type Count = u64;
}

impl Backend {
    /// Compresses whole blocks into `state`.
    #[inline]
    fn compress(self, state: &mut [u32; 4], blocks: &[[u8; 64]]) {
        match self {
            Backend::Sequential => sequential::compress_blocks(state, blocks),
            #[cfg(target_arch = "x86_64")]
            Backend::Scheduled => scheduled::compress_blocks(state, blocks),
            Backend::ParallelPortable => {
                parallel::compress_blocks(parallel::Isa::Portable, state, blocks)
            }
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelSse41(t) => {
                parallel::compress_blocks(parallel::Isa::Sse41(t), state, blocks)
            }
        }
    }
}

counted_core! {
    /// Block-level MD5 state; [`Md5`] adds the buffering.
    ///
    /// `repr(C)`, the state first: where the core starts 16-byte aligned (a `Hasher`'s in-place
    /// state, the one-shot's), the kernels' 16-byte loads and stores of the state never cross a
    /// cache line (`algo::pieces`).
    #[derive(Clone)]
    #[repr(C)]
    pub struct Md5Core { state: [u32; 4] = IV, block_count: u64, backend: Backend }
}

md_core!(
    Md5Core,
    count: u64,
    words: to_le_bytes,
    block: 64,
    backend: Backend,
    iv: IV,
    state: [u32; 4],
    in_place: [u32; 4],
);

block_core!(Md5Core, name: "MD5", block: U64, output: U16, buffer: Eager);

hashers! {
    /// MD5 hasher (RFC 1321). Cryptographically broken; use it for compatibility only.
    Md5(Md5Core);
}

#[cfg(test)]
mod tests {
    use super::*;
    use digest::Digest;

    #[test]
    fn empty_and_abc() {
        assert_eq!(
            hex(&Md5::digest(b"")),
            "d41d8cd98f00b204e9800998ecf8427e",
            "RFC 1321 A.5"
        );
        assert_eq!(
            hex(&Md5::digest(b"abc")),
            "900150983cd24fb0d6963f7d28e17f72"
        );
    }

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}
