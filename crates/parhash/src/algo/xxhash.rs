//! xxHash 0.8 with seed 0: XXH64, XXH3-64 and XXH3-128 (`xxhsum -H1`, `-H3`, `-H2`), from the
//! `xxhash-rust` crate. Fast non-cryptographic hashes (see `checksum`).
//!
//! Digests are xxHash's canonical representation, the big-endian integer (XXH128: the high
//! 64 bits first), as `xxhsum` prints them.
#![forbid(unsafe_code)]

use digest::consts::{U16, U8};
use xxhash_rust::xxh3::Xxh3Default;

use super::checksum::checksum_type;

/// XXH64 with seed 0 (`xxhsum -H1`); 8-byte digest.
#[derive(Clone)]
pub struct Xxh64(xxhash_rust::xxh64::Xxh64);

checksum_type!(Xxh64: U8,
    new xxhash_rust::xxh64::Xxh64::new(0),
    digest |state| state.digest().to_be_bytes(),
    reset |state| state.reset(0),
    variant "xxhash-rust": "xxhash-rust crate");

/// XXH3-64 with seed 0 (`xxhsum -H3`); 8-byte digest.
#[derive(Clone)]
pub struct Xxh3(Xxh3Default);

/// XXH3-128 with seed 0 (`xxhsum -H2`); 16-byte digest, the high 64 bits first.
#[derive(Clone)]
pub struct Xxh128(Xxh3Default);

// XXH3-64 and XXH3-128 share one state (the default secret, seed 0) and differ in how it ends.
checksum_type!(Xxh3: U8,
    new Xxh3Default::new(),
    digest |state| state.digest().to_be_bytes(),
    reset |state| state.reset(),
    variant "xxhash-rust": "xxhash-rust crate (SSE2, or AVX2 when built for it)");

checksum_type!(Xxh128: U16,
    new Xxh3Default::new(),
    digest |state| state.digest128().to_be_bytes(),
    reset |state| state.reset(),
    variant "xxhash-rust": "xxhash-rust crate (SSE2, or AVX2 when built for it)");
