//! SHA-2 (FIPS 180-4): SHA-224, SHA-256, SHA-384, SHA-512, SHA-512/224 and SHA-512/256.
//!
//! Two compression functions, each with its own module of forms and its own dispatch point:
//! [`sha256`] (32-bit words, 64 rounds, shared by SHA-224/256) and [`sha512`] (64-bit words,
//! 80 rounds, shared by SHA-384/512 and SHA-512/t). The hashers differ only in the initial value
//! and how much of the final state they output, so one generic core per word size serves all.
//!
//! Callers that do their own padding (tree modes, batch engines) use [`compress256`] and
//! [`compress512`] directly: they take many blocks per call and run the fastest form here.

pub mod consts;
mod rounds;
mod schedule_isa;
pub mod sha256;
pub mod sha512;

#[cfg(target_arch = "x86_64")]
pub use sha256::compress256_sha_ni;
pub use sha256::{compress256, compress256_sequential, compress256_with_variant};
pub use sha512::{compress512, compress512_sequential, compress512_with_variant};

use core::marker::PhantomData;
use digest::{
    array::ArraySize,
    typenum::{U128, U28, U32, U48, U64},
};

use super::block_api;

/// What distinguishes SHA-224 from SHA-256: initial value, digest size, name.
pub trait Sha256Params: 'static {
    /// Digest size in bytes (at most 32).
    type OutputSize: ArraySize;
    /// Initial chaining value.
    const IV: [u32; 8];
    /// Display name.
    const NAME: &'static str;
}

/// What distinguishes SHA-384, SHA-512 and SHA-512/t: initial value, digest size, name.
pub trait Sha512Params: 'static {
    /// Digest size in bytes (at most 64).
    type OutputSize: ArraySize;
    /// Initial chaining value.
    const IV: [u64; 8];
    /// Display name.
    const NAME: &'static str;
}

/// Block-level SHA-224/256 state; [`Sha224`] and [`Sha256`] add the buffering.
///
/// `repr(C)`, the state first: where the core starts 16-byte aligned (a `Hasher`'s in-place
/// state, the one-shot's), the kernels' 16-byte loads and stores of the state never cross a
/// cache line (`algo::pieces`).
#[repr(C)]
pub struct Sha256Core<P: Sha256Params> {
    state: [u32; 8],
    block_count: u64,
    backend: sha256::Backend,
    params: PhantomData<P>,
}

/// Block-level SHA-384/512 state; [`Sha384`], [`Sha512`], [`Sha512_224`] and [`Sha512_256`]
/// add the buffering.
///
/// `repr(C)`, the state first: where the core starts 16-byte aligned (a `Hasher`'s in-place
/// state, the one-shot's), the kernels' 16-byte loads and stores of the state never cross a
/// cache line (`algo::pieces`).
#[repr(C)]
pub struct Sha512Core<P: Sha512Params> {
    state: [u64; 8],
    block_count: u128,
    backend: sha512::Backend,
    params: PhantomData<P>,
}

/// Implements the digest block API for one core.
macro_rules! block_core {
    (
        $core:ident, $params:ident, $backend:path, $block:ty, $bytes:literal, $count:ty,
        $state:ty
    ) => {
        impl<P: $params> $core<P> {
            fn with_backend(backend: $backend) -> Self {
                Self {
                    state: P::IV,
                    block_count: 0,
                    backend,
                    params: PhantomData,
                }
            }
        }

        block_api::block_core!($core<P: $params>, block: $block, output: P::OutputSize, buffer: Eager);

        block_api::md_core!(
            $core<P: $params>,
            count: $count,
            words: to_be_bytes,
            block: $bytes,
            backend: $backend,
            iv: P::IV,
            state: $state,
            in_place: $state,
        );
    };
}

block_core!(
    Sha256Core,
    Sha256Params,
    sha256::Backend,
    U64,
    64,
    u64,
    [u32; 8]
);
block_core!(
    Sha512Core,
    Sha512Params,
    sha512::Backend,
    U128,
    128,
    u128,
    [u64; 8]
);

block_api::hashers! {
    impl Sha256Params;
    /// SHA-224 (FIPS 180-4): SHA-256 with another initial value, truncated to 224 bits.
    Sha224(Sha256Core<Sha224Params>, U28, "SHA-224") { const IV: [u32; 8] = consts::IV224; }
    /// SHA-256 (FIPS 180-4).
    Sha256(Sha256Core<Sha256Params256>, U32, "SHA-256") { const IV: [u32; 8] = consts::IV256; }
}

block_api::hashers! {
    impl Sha512Params;
    /// SHA-384 (FIPS 180-4): SHA-512 with another initial value, truncated to 384 bits.
    Sha384(Sha512Core<Sha384Params>, U48, "SHA-384") { const IV: [u64; 8] = consts::IV384; }
    /// SHA-512 (FIPS 180-4).
    Sha512(Sha512Core<Sha512Params512>, U64, "SHA-512") { const IV: [u64; 8] = consts::IV512; }
    /// SHA-512/224 (FIPS 180-4 section 5.3.6): SHA-512 with its own initial value, truncated.
    Sha512_224(Sha512Core<Sha512_224Params>, U28, "SHA-512/224") {
        const IV: [u64; 8] = consts::IV512_224;
    }
    /// SHA-512/256 (FIPS 180-4 section 5.3.6): SHA-512 with its own initial value, truncated.
    Sha512_256(Sha512Core<Sha512_256Params>, U32, "SHA-512/256") {
        const IV: [u64; 8] = consts::IV512_256;
    }
}
