//! xxHash 0.8 with seed 0: XXH64, XXH3-64 and XXH3-128 (`xxhsum -H1`, `-H3`, `-H2`). Fast
//! non-cryptographic hashes (see `checksum`).
//!
//! Digests are xxHash's canonical representation, the big-endian integer (XXH128: the high
//! 64 bits first), as `xxhsum` prints them. The backends:
//! - XXH3-64 and XXH3-128: `twox-hash` where AVX2 is detected: it picks its AVX2 kernel at
//!   run time. `xxhash-rust` picks its SIMD when it is compiled (SSE2 on the x86-64
//!   baseline), and its AVX2 code cannot be entered from a `#[target_feature]` function (it
//!   is chosen by `cfg`), so it is the form without AVX2 (or with `PARHASH_DISABLE_ISA=avx2`).
//! - XXH64 (scalar in both crates): `xxhash-rust`, the faster of the two here.
#![forbid(unsafe_code)]

use std::hash::Hasher as _;

use digest::consts::{U16, U8};
use xxhash_rust::xxh3::Xxh3Default;

use super::checksum::{checksum_type, Stream};
use crate::dispatch::backends;

impl Stream for xxhash_rust::xxh64::Xxh64 {
    fn update(&mut self, data: &[u8]) {
        xxhash_rust::xxh64::Xxh64::update(self, data);
    }
    fn value(&self) -> u128 {
        u128::from(self.digest())
    }
    fn reset(&mut self) {
        xxhash_rust::xxh64::Xxh64::reset(self, 0);
    }
}

/// `xxhash-rust`'s XXH3 state, ending as XXH3-64 (`false`) or XXH3-128 (`true`).
#[derive(Clone)]
struct XxhashRust3<const WIDE: bool>(Xxh3Default);

impl<const WIDE: bool> Default for XxhashRust3<WIDE> {
    fn default() -> Self {
        XxhashRust3(Xxh3Default::new())
    }
}

impl<const WIDE: bool> Stream for XxhashRust3<WIDE> {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
    fn value(&self) -> u128 {
        if WIDE {
            self.0.digest128()
        } else {
            u128::from(self.0.digest())
        }
    }
    fn reset(&mut self) {
        self.0.reset();
    }
}

impl Stream for twox_hash::XxHash3_64 {
    fn update(&mut self, data: &[u8]) {
        self.write(data);
    }
    fn value(&self) -> u128 {
        u128::from(self.finish())
    }
    fn reset(&mut self) {
        *self = twox_hash::XxHash3_64::new();
    }
}

impl Stream for twox_hash::XxHash3_128 {
    fn update(&mut self, data: &[u8]) {
        self.write(data);
    }
    fn value(&self) -> u128 {
        self.finish_128()
    }
    fn reset(&mut self) {
        *self = twox_hash::XxHash3_128::new();
    }
}

backends! {
    /// Which crate computes XXH64.
    pub(crate) enum Xxh64Backend {
        XxhashRust => "xxhash-rust": "xxhash-rust crate (scalar)";
    }
    default = ["xxhash-rust"];
}

backends! {
    /// Which crate computes XXH3-64 and XXH3-128.
    pub(crate) enum Xxh3Backend {
        TwoxHash(Avx2) => "twox-hash": "twox-hash crate: AVX2, chosen at run time";
        XxhashRust => "xxhash-rust": "xxhash-rust crate: SSE2 (its SIMD is chosen when compiled)";
    }
    default = ["twox-hash", "xxhash-rust"];
}

checksum_type! {
    /// XXH64 with seed 0 (`xxhsum -H1`); 8-byte digest. Computed by `xxhash-rust` (scalar, the
    /// faster of the two crates).
    Xxh64: U8, Xxh64Backend, Xxh64State {
        XxhashRust: xxhash_rust::xxh64::Xxh64 = xxhash_rust::xxh64::Xxh64::new(0);
    }
}

checksum_type! {
    /// XXH3-64 with seed 0 (`xxhsum -H3`); 8-byte digest. Computed by `twox-hash` where AVX2 is
    /// detected (its AVX2 kernel, chosen at run time), else by `xxhash-rust` (SSE2).
    Xxh3: U8, Xxh3Backend, Xxh3State {
        TwoxHash(_): twox_hash::XxHash3_64 = twox_hash::XxHash3_64::new();
        XxhashRust: XxhashRust3<false> = XxhashRust3::default();
    }
}

checksum_type! {
    /// XXH3-128 with seed 0 (`xxhsum -H2`); 16-byte digest, the high 64 bits first. Computed
    /// as XXH3-64 is.
    Xxh128: U16, Xxh3Backend, Xxh128State {
        TwoxHash(_): twox_hash::XxHash3_128 = twox_hash::XxHash3_128::new();
        XxhashRust: XxhashRust3<true> = XxhashRust3::default();
    }
}
