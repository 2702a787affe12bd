//! # parhash
//!
//! Hash data as fast as the hardware allows, using every kind of parallelism a machine has:
//! SIMD lanes inside one compression function, many messages across SIMD lanes and cores
//! ([`batch`]), tree modes that split one long message over all cores (PARSHA-256 and
//! SANDstorm, [`parsha256`], [`sandstorm`]) or over many machines ([`parts`]), and
//! a GPU (the `parhash-cuda` crate).
//!
//! - [`Algorithm`] is the registry: names, aliases, metadata, variants.
//! - [`Hasher`] and [`hash`] hash with an algorithm chosen at run time; [`Hasher::builder`]
//!   adds threads ([`Threads`]), a forced variant, PARSHA-256's [`TreeParams`] and a known
//!   message length.
//! - Each algorithm is also a concrete type implementing the RustCrypto `digest` traits
//!   (for example [`Md5`]), so `hmac::Hmac<parhash::Sha256>` works.
//!
//! ```
//! use parhash::{hash, Algorithm};
//! let alg: Algorithm = "MD-5".parse().unwrap();
//! assert_eq!(hash(alg, b"abc").to_hex(), "900150983cd24fb0d6963f7d28e17f72");
//! ```
//!
//! The public surface is this page: the registry ([`Algorithm`], [`Hasher`], [`Variant`]), the
//! concrete digest types, [`batch`] (many messages), [`file`](mod@file) (files, one or many in
//! input order, safe against files that change), [`threads`] (the one thread policy), the tree
//! modes ([`parsha256`], [`sandstorm`]), [`parts`] (their partial states between machines) and
//! [`outboard`] (BLAKE3 outboard trees, as bao writes them, and verified ranges of a file).
//! Kernels, lanes, vector types, CPU detection and the RC5 study are private; the benchmark
//! lab, benches, tests and the CUDA crate reach the few they measure through a hidden `lab`
//! module that is not part of the supported API (ARCHITECTURE.md tells the whole story).

#![warn(missing_docs)]

mod algo;
pub mod batch;
mod cipher;
mod dispatch;
pub mod file;
/// What the unit tests ran, for CI's report of the forms each ISA pass exercised (one file,
/// shared with the integration tests).
#[cfg(test)]
#[path = "../tests/common/forms_log.rs"]
mod forms_log;
#[doc(hidden)]
pub mod lab;
mod lanes;
#[cfg(target_os = "linux")]
mod mapped;
pub mod multipart;
pub mod outboard;
pub mod parts;
mod platform;
mod registry;
pub mod threads;
mod vector;

/// PARSHA-256's tree mode used directly: one-shot hashing with tree parameters and a lane
/// kernel, the streaming engine for a message of known length, the parameter check, and the
/// split/merge [`parts`](parsha256::parts) of one message over machines. [`Hasher`] with
/// [`HasherBuilder::tree_params`] covers the common cases.
pub mod parsha256 {
    pub use crate::algo::parsha256::{
        check_params, parsha256, parsha256_with, parts, Parsha256Hasher, ParshaError,
        ParshaOptions, DEFAULT_IV_BITS, DEFAULT_TREE_HEIGHT, MAX_STREAMED_HEIGHT, MAX_TREE_HEIGHT,
    };
}

/// BLAKE3's subtrees: the chaining values of runs of a message at their offsets, and the
/// merges that combine them into its digest (the `blake3` crate's `hazmat` interface, with
/// errors for subtrees that are not the tree's).
pub mod blake3 {
    pub use crate::algo::blake3::subtree::{
        left_subtree_len, max_subtree_len, merge, root, subtree, ChainingValue, SubtreeError,
        CHUNK_LEN,
    };
}

/// SANDstorm's tree mode used directly: the split/merge [`parts`](sandstorm::parts) of one
/// message over machines.
pub mod sandstorm {
    pub use crate::algo::sandstorm::parts;
}

pub use algo::blake::{Blake224, Blake256, Blake384, Blake512};
pub use algo::blake2::{Blake2b512, Blake2s256};
pub use algo::blake3::{Blake3, Blake3Mode, KEY_LEN as BLAKE3_KEY_LEN};
pub use algo::cksum::{BsdSum, Cksum, Crc32b, SysvSum, LENGTH_BYTES as LEGACY_LENGTH_BYTES};
pub use algo::crc::{Crc32, Crc32c, Crc64Nvme};
pub use algo::groestl::{Groestl224, Groestl256, Groestl384, Groestl512};
pub use algo::jh::{Jh224, Jh256, Jh384, Jh512};
pub use algo::keccak::{
    Keccak224, Keccak256, Keccak384, Keccak512, Sha3_224, Sha3_256, Sha3_384, Sha3_512,
};
pub use algo::md5::Md5;
pub use algo::parsha256::Parsha256;
pub use algo::parsha256::TreeParams;
pub use algo::sandstorm::{
    Sandstorm224, Sandstorm224Ref, Sandstorm256, Sandstorm256Ref, Sandstorm384, Sandstorm512,
};
pub use algo::sha1::Sha1;
pub use algo::sha2::{Sha224, Sha256, Sha384, Sha512, Sha512_224, Sha512_256};
pub use algo::shake::{Shake128, Shake256};
pub use algo::simd::{Simd224, Simd256, Simd384, Simd512};
pub use algo::skein::{
    Skein1024_1024, Skein256_256, Skein512_224, Skein512_256, Skein512_384, Skein512_512,
};
pub use algo::whirlpool::Whirlpool;
pub use algo::xxhash::{Xxh128, Xxh3, Xxh64};
pub use algo::VariantInfo;
pub use digest;
pub use platform::describe as cpu_features;
pub use registry::{
    hash, Algorithm, AlgorithmInfo, DigestSizes, Error, Family, Hasher, HasherBuilder, Output,
    Variant,
};
pub use threads::Threads;
