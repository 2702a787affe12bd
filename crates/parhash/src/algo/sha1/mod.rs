//! SHA-1 (FIPS 180-4). BROKEN for collision resistance (SHAttered, 2017; chosen-prefix
//! collisions since 2020): kept for non-security checksums, `sha1sum` compatibility and the
//! seed study's comparison.
//!
//! Forms of the compression function, each in its own module:
//! - `sequential` ([`sequential`]): portable scalar code, all 80 rounds unrolled, the message
//!   schedule a rolling 16-word window computed just before the round that needs it;
//! - `parallel`: the seed study's internal parallelism. The message schedule `W[16..80]` (and
//!   the `+ K`) does not depend on the working variables, so it is computed four words per
//!   vector instruction *ahead of* the scalar rounds, which then only read `W[t] + K` from a
//!   small stack buffer. Kernels: [`parallel_sse41`] (128-bit, one block),
//!   [`parallel_avx2`] (256-bit: the schedules of two blocks at once) and the same data flow on
//!   `[u32; 4]` arrays in portable Rust ([`parallel_portable`]);
//! - `rorx-avx2` ([`rorx`]): `parallel-avx2`'s schedule with the rounds in assembly (BMI2
//!   `rorx`/`andn`, no copies), the default without the SHA extensions;
//! - `sha-ni` ([`sha_ni`]): the SHA extensions (`sha1rnds4`, `sha1nexte`, `sha1msg1/2`).
//!
//! The one dispatch point is `Backend`: chosen once per hasher, matched once per call.

pub mod lanes;
pub mod parallel_portable;
pub mod sequential;

#[cfg(target_arch = "x86_64")]
pub mod parallel_avx2;
#[cfg(target_arch = "x86_64")]
pub mod parallel_sse41;
#[cfg(target_arch = "x86_64")]
pub mod rorx;
#[cfg(target_arch = "x86_64")]
pub mod sha_ni;

use digest::typenum::{U20, U64};

use super::block_api::{block_core, counted_core, hashers, md_core};
use crate::dispatch::{backends, Dispatch};

/// Initial chaining value (FIPS 180-4 section 5.3.1).
pub const IV: [u32; 5] = [
    0x6745_2301,
    0xefcd_ab89,
    0x98ba_dcfe,
    0x1032_5476,
    0xc3d2_e1f0,
];

/// Round constants (FIPS 180-4 section 4.2.1), one per group of 20 rounds.
pub const K: [u32; 4] = [0x5a82_7999, 0x6ed9_eba1, 0x8f1b_bcdc, 0xca62_c1d6];

/// The round function of round `t` (FIPS 180-4 section 4.1.1): Ch, Parity, Maj, Parity.
#[inline(always)]
pub(crate) fn f(t: usize, b: u32, c: u32, d: u32) -> u32 {
    match t / 20 {
        0 => d ^ (b & (c ^ d)),
        2 => (b & c) | (d & (b | c)),
        _ => b ^ c ^ d,
    }
}

/// One round given `W[t] + K[t]`: adds into `e` and rotates `b`; the caller renames the
/// variables (`a, b, c, d, e` becomes `e, a, b, c, d`) instead of moving them.
macro_rules! round {
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $t:expr, $wk:expr) => {
        $e = $e
            .wrapping_add($a.rotate_left(5))
            .wrapping_add($crate::algo::sha1::f($t, $b, $c, $d))
            .wrapping_add($wk);
        $b = $b.rotate_left(30);
    };
}

/// Five rounds from round `t`; after five renamings every variable is back in its own place.
macro_rules! rounds5 {
    ([$a:ident, $b:ident, $c:ident, $d:ident, $e:ident], $t:expr, $wk:expr) => {
        round!($a, $b, $c, $d, $e, $t, $wk($t));
        round!($e, $a, $b, $c, $d, $t + 1, $wk($t + 1));
        round!($d, $e, $a, $b, $c, $t + 2, $wk($t + 2));
        round!($c, $d, $e, $a, $b, $t + 3, $wk($t + 3));
        round!($b, $c, $d, $e, $a, $t + 4, $wk($t + 4));
    };
}

/// All 80 rounds on `state` plus the feed-forward, reading `W[t] + K[t]` from `$wk(t)` (called
/// with constant `t` in increasing order).
macro_rules! rounds80 {
    ($state:expr, $wk:expr) => {{
        let [mut a, mut b, mut c, mut d, mut e] = *$state;
        rounds5!([a, b, c, d, e], 0, $wk);
        rounds5!([a, b, c, d, e], 5, $wk);
        rounds5!([a, b, c, d, e], 10, $wk);
        rounds5!([a, b, c, d, e], 15, $wk);
        rounds5!([a, b, c, d, e], 20, $wk);
        rounds5!([a, b, c, d, e], 25, $wk);
        rounds5!([a, b, c, d, e], 30, $wk);
        rounds5!([a, b, c, d, e], 35, $wk);
        rounds5!([a, b, c, d, e], 40, $wk);
        rounds5!([a, b, c, d, e], 45, $wk);
        rounds5!([a, b, c, d, e], 50, $wk);
        rounds5!([a, b, c, d, e], 55, $wk);
        rounds5!([a, b, c, d, e], 60, $wk);
        rounds5!([a, b, c, d, e], 65, $wk);
        rounds5!([a, b, c, d, e], 70, $wk);
        rounds5!([a, b, c, d, e], 75, $wk);
        let s: &mut [u32; 5] = $state;
        s[0] = s[0].wrapping_add(a);
        s[1] = s[1].wrapping_add(b);
        s[2] = s[2].wrapping_add(c);
        s[3] = s[3].wrapping_add(d);
        s[4] = s[4].wrapping_add(e);
    }};
}
pub(crate) use {round, rounds5, rounds80};

/// The 16 big-endian message words of a block.
#[inline(always)]
pub(crate) fn load_be(block: &[u8; 64]) -> [u32; 16] {
    let mut w = [0u32; 16];
    for (word, bytes) in w.iter_mut().zip(block.chunks_exact(4)) {
        *word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    w
}

backends! {
    /// Which SHA-1 compression code runs: chosen once per hasher, matched once per call.
    pub(crate) enum Backend {
        /// Scalar, rolling 16-word schedule.
        Sequential => "sequential": "portable scalar, 80 rounds unrolled, rolling 16-word schedule";
        "parallel" = ["parallel-avx2", "parallel-sse41", "parallel-portable"]:
            "message schedule computed ahead in vector registers (best ISA available)";
        /// Schedule ahead in groups of four on `[u32; 4]` arrays.
        ParallelPortable => "parallel-portable":
            "schedule ahead, four words per step on [u32; 4] arrays";
        /// Schedule ahead in 128-bit registers.
        ParallelSse41(Sse41) => "parallel-sse41":
            "schedule ahead in 128-bit registers, four words per instruction";
        /// Schedule ahead in 256-bit registers, two blocks at a time.
        ParallelAvx2(Avx2, Bmi2) => "parallel-avx2":
            "schedules of two blocks at once in 256-bit registers, rounds with BMI2 rorx";
        /// The `parallel-avx2` schedule, rounds in assembly.
        RorxAvx2(Avx2, Bmi2) => "rorx-avx2":
            "schedules of two blocks in 256-bit registers, rounds in assembly with rorx/andn";
        /// SHA extensions.
        ShaNi(ShaNi) => "sha-ni":
            "SHA extensions: sha1rnds4 (four rounds), sha1nexte, sha1msg1/msg2";
    }
    // See BENCHMARKS.md ("Foundation: MD5, SHA-1, SHA-2") for the measurements behind this
    // order. Without vector registers the schedule-ahead form only adds stores and loads, so
    // `parallel-portable` is never the default.
    default = ["sha-ni", "rorx-avx2", "parallel-avx2", "parallel-sse41", "sequential"];
}

crate::algo::block_api::padding_in_registers_on_sha_ni!(Backend, [u32; 5]);

impl Backend {
    /// Compresses whole blocks into `state`.
    #[inline]
    fn compress(self, state: &mut [u32; 5], blocks: &[[u8; 64]]) {
        match self {
            Backend::Sequential => sequential::compress_blocks(state, blocks),
            Backend::ParallelPortable => parallel_portable::compress_blocks(state, blocks),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelSse41(t) => parallel_sse41::compress_blocks(t, state, blocks),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAvx2(t, b) => parallel_avx2::compress_blocks(t, b, state, blocks),
            #[cfg(target_arch = "x86_64")]
            Backend::RorxAvx2(t, b) => rorx::compress_blocks(t, b, state, blocks),
            #[cfg(target_arch = "x86_64")]
            Backend::ShaNi(t) => sha_ni::compress_blocks(t, state, blocks),
        }
    }
}

/// Compresses whole 64-byte blocks into a SHA-1 chaining value with the fastest form this CPU
/// has. No padding: callers that do their own (batch engines, tests) use this.
#[inline]
pub fn compress(state: &mut [u32; 5], blocks: &[[u8; 64]]) {
    Backend::detect().compress(state, blocks);
}

/// [`compress`] forced onto a named variant (as listed by `Sha1::variants()`); returns `false`
/// and leaves `state` alone when it is unknown or unavailable here.
pub fn compress_with_variant(name: &str, state: &mut [u32; 5], blocks: &[[u8; 64]]) -> bool {
    Backend::by_name(name)
        .map(|backend| backend.compress(state, blocks))
        .is_some()
}

counted_core! {
    /// Block-level SHA-1 state; [`Sha1`] adds the buffering.
    ///
    /// `repr(C)`, the state first: where the core starts 16-byte aligned (a `Hasher`'s in-place
    /// state, the one-shot's), the kernels' 16-byte loads and stores of the state never cross a
    /// cache line (`algo::pieces`).
    #[derive(Clone)]
    #[repr(C)]
    pub struct Sha1Core { state: [u32; 5] = IV, block_count: u64, backend: Backend }
}

md_core!(
    Sha1Core,
    count: u64,
    words: to_be_bytes,
    block: 64,
    backend: Backend,
    iv: IV,
    state: [u32; 5],
    in_place: [u32; 8],
);

block_core!(Sha1Core, name: "SHA-1", block: U64, output: U20, buffer: Eager);

hashers! {
    /// SHA-1 hasher (FIPS 180-4). Cryptographically broken (practical collisions): use it for
    /// compatibility and non-security checksums only.
    Sha1(Sha1Core);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::Variants;
    use digest::Digest;

    /// FIPS 180-4 examples (NIST "SHA1.pdf"): "abc" and the two-block message, every variant.
    #[test]
    fn fips_examples_every_variant() {
        let two_block = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        for v in Sha1::available_variants() {
            let h = |m: &[u8]| -> String {
                let digest = Sha1::with_variant(v).chain_update(m).finalize();
                digest.iter().map(|b| format!("{b:02x}")).collect()
            };
            assert_eq!(
                h(b"abc"),
                "a9993e364706816aba3e25717850c26c9cd0d89d",
                "{}",
                v.name()
            );
            assert_eq!(
                h(two_block),
                "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
                "{}",
                v.name()
            );
            assert_eq!(
                h(b""),
                "da39a3ee5e6b4b0d3255bfef95601890afd80709",
                "{}",
                v.name()
            );
        }
        assert_eq!(Sha1::variants().iter().filter(|v| v.default).count(), 1);
    }
}
