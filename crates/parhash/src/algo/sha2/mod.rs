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

use core::{fmt, marker::PhantomData};
use digest::{
    array::{Array, ArraySize},
    block_api::{
        AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, Eager, FixedOutputCore,
        OutputSizeUser, Reset, UpdateCore,
    },
    typenum::{Unsigned, U128, U28, U32, U48, U64},
    HashMarker, Output,
};

use super::{VariantInfo, Variants};

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
pub struct Sha256Core<P: Sha256Params> {
    state: [u32; 8],
    block_count: u64,
    backend: sha256::Backend,
    params: PhantomData<P>,
}

/// Block-level SHA-384/512 state; [`Sha384`], [`Sha512`], [`Sha512_224`] and [`Sha512_256`]
/// add the buffering.
pub struct Sha512Core<P: Sha512Params> {
    state: [u64; 8],
    block_count: u128,
    backend: sha512::Backend,
    params: PhantomData<P>,
}

/// Implements the digest block API for one core.
macro_rules! block_core {
    ($core:ident, $params:ident, $backend:path, $block:ty, $count:ty, $pad:ident) => {
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

        impl<P: $params> Clone for $core<P> {
            fn clone(&self) -> Self {
                Self {
                    state: self.state,
                    block_count: self.block_count,
                    backend: self.backend,
                    params: PhantomData,
                }
            }
        }

        impl<P: $params> HashMarker for $core<P> {}

        impl<P: $params> BlockSizeUser for $core<P> {
            type BlockSize = $block;
        }

        impl<P: $params> BufferKindUser for $core<P> {
            type BufferKind = Eager;
        }

        impl<P: $params> OutputSizeUser for $core<P> {
            type OutputSize = P::OutputSize;
        }

        impl<P: $params> UpdateCore for $core<P> {
            #[inline]
            fn update_blocks(&mut self, blocks: &[Block<Self>]) {
                self.block_count = self.block_count.wrapping_add(blocks.len() as $count);
                self.backend
                    .compress(&mut self.state, Array::cast_slice_to_core(blocks));
            }
        }

        impl<P: $params> FixedOutputCore for $core<P> {
            #[inline]
            fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
                let bit_len = self
                    .block_count
                    .wrapping_mul(<$block>::U64 as $count)
                    .wrapping_add(buffer.get_pos() as $count)
                    .wrapping_mul(8);
                let mut state = self.state;
                let backend = self.backend;
                buffer.$pad(bit_len, |b| backend.compress(&mut state, &[b.0]));
                // Word by word, the last one cut for truncated outputs (a byte-by-byte loop over
                // `flat_map` cost ~15 ns of a 64-byte SHA-256's ~105).
                for (o, w) in out.chunks_mut(size_of_val(&state[0])).zip(&state) {
                    o.copy_from_slice(&w.to_be_bytes()[..o.len()]);
                }
            }
        }

        impl<P: $params> Default for $core<P> {
            #[inline]
            fn default() -> Self {
                Self::with_backend(<$backend>::detect())
            }
        }

        impl<P: $params> Reset for $core<P> {
            #[inline]
            fn reset(&mut self) {
                self.state = P::IV;
                self.block_count = 0;
            }
        }

        impl<P: $params> AlgorithmName for $core<P> {
            fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(P::NAME)
            }
        }

        impl<P: $params> fmt::Debug for $core<P> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}<{}> {{ ... }}", stringify!($core), P::NAME)
            }
        }
    };
}

block_core!(
    Sha256Core,
    Sha256Params,
    sha256::Backend,
    U64,
    u64,
    len64_padding_be
);
block_core!(
    Sha512Core,
    Sha512Params,
    sha512::Backend,
    U128,
    u128,
    len128_padding_be
);

/// Declares the public hasher types of one word size.
macro_rules! hashers {
    ($core:ident, $params_trait:ident, $backend:ident, $word:ty; $(
        $(#[$doc:meta])*
        $name:ident, $params:ident, $out:ty, $iv:expr, $display:literal;
    )*) => {$(
        #[doc = concat!("Parameters of ", $display, ".")]
        #[derive(Clone, Copy, Debug)]
        pub struct $params;

        impl $params_trait for $params {
            type OutputSize = $out;
            const IV: [$word; 8] = $iv;
            const NAME: &'static str = $display;
        }

        digest::buffer_fixed!(
            $(#[$doc])*
            pub struct $name($core<$params>);
            impl: BaseFixedTraits AlgorithmName Default Clone HashMarker Reset FixedOutputReset;
        );

        impl Variants for $name {
            fn variants() -> Vec<VariantInfo> {
                $backend::variant_infos()
            }

            fn with_variant(name: &str) -> Option<Self> {
                let backend = $backend::Backend::by_name(name)?;
                Some(Self {
                    core: $core::with_backend(backend),
                    buffer: Default::default(),
                })
            }
        }
    )*};
}

hashers! {
    Sha256Core, Sha256Params, sha256, u32;
    /// SHA-224 (FIPS 180-4): SHA-256 with another initial value, truncated to 224 bits.
    Sha224, Sha224Params, U28, consts::IV224, "SHA-224";
    /// SHA-256 (FIPS 180-4).
    Sha256, Sha256Params256, U32, consts::IV256, "SHA-256";
}

hashers! {
    Sha512Core, Sha512Params, sha512, u64;
    /// SHA-384 (FIPS 180-4): SHA-512 with another initial value, truncated to 384 bits.
    Sha384, Sha384Params, U48, consts::IV384, "SHA-384";
    /// SHA-512 (FIPS 180-4).
    Sha512, Sha512Params512, U64, consts::IV512, "SHA-512";
    /// SHA-512/224 (FIPS 180-4 section 5.3.6): SHA-512 with its own initial value, truncated.
    Sha512_224, Sha512_224Params, U28, consts::IV512_224, "SHA-512/224";
    /// SHA-512/256 (FIPS 180-4 section 5.3.6): SHA-512 with its own initial value, truncated.
    Sha512_256, Sha512_256Params, U32, consts::IV512_256, "SHA-512/256";
}
