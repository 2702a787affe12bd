//! SHAKE128 and SHAKE256 (FIPS 202 extendable-output functions), from RustCrypto's `shake`
//! crate (the `sha3` crate's SHAKE moved there).
//!
//! An XOF has no length of its own: parhash's default is twice the security level, 32 bytes
//! for SHAKE128 and 64 for SHAKE256 (their full collision resistance, 128 and 256 bits);
//! `shake128_xof` and `shake256_xof` give the registry's [`Hasher`](crate::Hasher) the
//! function itself, read for any other length (up to [`Output::MAX`](crate::Output::MAX) bytes
//! as a digest, any length through
//! [`Hasher::finalize_xof_into_reset`](crate::Hasher::finalize_xof_into_reset)). A shorter
//! output is a prefix of a longer one.
#![forbid(unsafe_code)]

use digest::consts::{U32, U64};
use digest::XofFixedWrapper;

/// SHAKE128 with 32 bytes of output.
pub type Shake128 = XofFixedWrapper<::shake::Shake128, U32>;

/// SHAKE256 with 64 bytes of output.
pub type Shake256 = XofFixedWrapper<::shake::Shake256, U64>;

super::sized::rustcrypto_variants!("RustCrypto's shake crate (portable Rust)": Shake128, Shake256);

/// SHAKE128 as an extendable-output function, read for any length by the registry.
pub(crate) fn shake128_xof() -> ::shake::Shake128 {
    ::shake::Shake128::default()
}

/// SHAKE256 as an extendable-output function, read for any length by the registry.
pub(crate) fn shake256_xof() -> ::shake::Shake256 {
    ::shake::Shake256::default()
}
