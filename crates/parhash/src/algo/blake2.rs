//! BLAKE2b and BLAKE2s (RFC 7693), from RustCrypto's `blake2` crate: what `b2sum` and
//! `cksum -a blake2b` compute.
//!
//! The output length is one of BLAKE2's parameters (it enters the first state word), so
//! BLAKE2b-256 differs from the first half of BLAKE2b-512: `blake2b_sized` and
//! `blake2s_sized` build the hash for a length chosen at run time.
#![forbid(unsafe_code)]

use ::blake2::{Blake2bVarCore, Blake2sVarCore};

use super::sized::{AnyLength, Variable, VariableCore, WithLength};

/// BLAKE2b with 64-byte digests (`b2sum`'s default). Other lengths: [`crate::Hasher::builder`]
/// with `digest_size`.
pub type Blake2b512 = ::blake2::Blake2b512;

/// BLAKE2s with 32-byte digests. Other lengths: [`crate::Hasher::builder`] with `digest_size`.
pub type Blake2s256 = ::blake2::Blake2s256;

super::sized::rustcrypto_variants!("RustCrypto's blake2 crate (portable Rust)": Blake2b512, Blake2s256);

/// BLAKE2b with `len` output bytes (1 to 64; the registry checks the range first).
pub(crate) fn blake2b_sized(len: usize) -> WithLength<impl AnyLength> {
    let core = VariableCore::<Blake2bVarCore>::new(len).expect("1 to 64 bytes");
    WithLength::new(Variable(core), len)
}

/// BLAKE2s with `len` output bytes (1 to 32; the registry checks the range first).
pub(crate) fn blake2s_sized(len: usize) -> WithLength<impl AnyLength> {
    let core = VariableCore::<Blake2sVarCore>::new(len).expect("1 to 32 bytes");
    WithLength::new(Variable(core), len)
}
