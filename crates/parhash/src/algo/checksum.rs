//! What the checksum families (`crc`, `xxhash`) share: the RustCrypto `digest` traits over
//! the streaming state of whichever crate is fastest for the algorithm on this CPU, picked
//! through the algorithm's backend table like every other family's kernels.
//!
//! Checksums are not cryptographic: they catch accidental damage, and anyone can change data
//! and keep its checksum. The registry says so (`AlgorithmInfo::cryptographic`); they
//! implement no `digest::HashMarker`, the traits' mark of a cryptographic hash.
#![forbid(unsafe_code)]

/// A crate's streaming checksum state, as the checksum types drive it.
pub(crate) trait Stream: Clone {
    /// Feeds `data`.
    fn update(&mut self, data: &[u8]);
    /// The checksum of everything fed so far as an integer (the digest is its big-endian
    /// bytes, as the tools print it), without changing the state.
    fn value(&self) -> u128;
    /// Starts over.
    fn reset(&mut self);
}

/// Declares `$name`, a checksum of `$size` bytes over one [`Stream`] per backend of the
/// backend table `$backend` (declared with `backends!`, the variants named alike) in the enum
/// `$state`, and
/// implements `Default` (the table's default), `Debug`, the `digest` traits and
/// [`Variants`](super::Variants) for it. `$variant: $stream = $new` builds a backend's state
/// (`$variant(_)` for a backend that holds a platform token).
macro_rules! checksum_type {
    ($(#[doc = $doc:literal])* $name:ident: $size:ty, $backend:ident, $state:ident {
        $($(#[cfg($cfg:meta)])? $variant:ident$(($held:tt))?: $stream:ty = $new:expr;)+
    }) => {
        $(#[doc = $doc])*
        #[derive(Clone)]
        pub struct $name($state);

        /// The state of the backend a hasher was built with (inline, whatever its size: one
        /// per hasher, and a box would cost an allocation per message).
        #[derive(Clone)]
        #[allow(clippy::large_enum_variant)]
        enum $state {
            $($(#[cfg($cfg)])? $variant($stream),)+
        }

        impl $state {
            fn new(backend: $backend) -> $state {
                match backend {
                    $($(#[cfg($cfg)])? $backend::$variant$(($held))? => $state::$variant($new),)+
                }
            }

            #[inline]
            fn update(&mut self, data: &[u8]) {
                match self {
                    $($(#[cfg($cfg)])? $state::$variant(s) => $crate::algo::checksum::Stream::update(s, data),)+
                }
            }

            fn reset(&mut self) {
                match self {
                    $($(#[cfg($cfg)])? $state::$variant(s) => $crate::algo::checksum::Stream::reset(s),)+
                }
            }

            fn value(&self) -> u128 {
                match self {
                    $($(#[cfg($cfg)])? $state::$variant(s) => $crate::algo::checksum::Stream::value(s),)+
                }
            }

            fn backend_name(&self) -> &'static str {
                match self {
                    $($(#[cfg($cfg)])? $state::$variant(_) => stringify!($variant),)+
                }
            }
        }

        impl $name {
            fn digest_bytes(&self) -> digest::Output<Self> {
                let bytes = self.0.value().to_be_bytes();
                let size = <$size as digest::typenum::Unsigned>::USIZE;
                digest::Output::<Self>::try_from(&bytes[16 - size..]).expect("the digest's size")
            }
        }

        impl Default for $name {
            fn default() -> Self {
                $name($state::new(<$backend as $crate::dispatch::Dispatch>::detect()))
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.0.backend_name()).finish()
            }
        }

        impl digest::OutputSizeUser for $name {
            type OutputSize = $size;
        }

        impl digest::Update for $name {
            #[inline]
            fn update(&mut self, data: &[u8]) {
                self.0.update(data);
            }
        }

        impl digest::FixedOutput for $name {
            fn finalize_into(self, out: &mut digest::Output<Self>) {
                *out = self.digest_bytes();
            }
        }

        // Keeps the backend: a hasher forced onto a variant stays on it.
        impl digest::Reset for $name {
            fn reset(&mut self) {
                self.0.reset();
            }
        }

        impl digest::FixedOutputReset for $name {
            fn finalize_into_reset(&mut self, out: &mut digest::Output<Self>) {
                *out = self.digest_bytes();
                digest::Reset::reset(self);
            }
        }

        $crate::dispatch::table_variants!(
            $state::new,
            |backend, _| $name($state::new(backend));
            $name
        );
    };
}
pub(crate) use checksum_type;
