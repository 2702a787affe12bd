//! # parhash
//!
//! Hash data as fast as the hardware allows, using every kind of parallelism a machine has:
//! SIMD lanes inside one compression function, many messages across SIMD lanes and cores
//! ([`batch`]), tree modes that split one long message over all cores (PARSHA-256 and
//! SANDstorm, [`algo::parsha256`], [`algo::sandstorm`]) or over many machines ([`parts`]), and
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
//! Layout (ARCHITECTURE.md tells the whole story): `algo/<family>/` is one room per hash
//! family — its reference code, kernels, dispatch point, lanes (many messages side by side)
//! and tree mode; `platform` is the one place that detects CPU features; `threads` the one
//! thread policy and pool; `vector` the lane vector types and `lanes` the shared machinery of
//! many-message kernels; `registry` names algorithms and builds hashers; `batch` hashes many
//! messages; `parts` carries the tree modes' partial states between machines; `file` hashes
//! files (one, or many in input order), reads overlapped, safe against files that change;
//! `io` maps files.

pub mod algo;
pub mod batch;
pub mod cipher;
mod dispatch;
pub mod file;
/// What the unit tests ran, for CI's report of the forms each ISA pass exercised (one file,
/// shared with the integration tests).
#[cfg(test)]
#[path = "../tests/common/forms_log.rs"]
mod forms_log;
pub mod io;
pub mod lanes;
pub mod parts;
pub mod platform;
pub mod registry;
pub mod threads;
pub(crate) mod vector;

pub use algo::blake::{Blake224, Blake256, Blake384, Blake512};
pub use algo::blake2::{Blake2b512, Blake2s256};
pub use algo::blake3::Blake3;
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
pub use algo::{VariantInfo, Variants};
pub use digest;
pub use registry::{
    hash, Algorithm, AlgorithmInfo, DigestSizes, Error, Family, Hasher, HasherBuilder, Output,
};
pub use threads::Threads;
