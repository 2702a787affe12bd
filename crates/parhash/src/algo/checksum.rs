//! What the checksum families (`crc`, `xxhash`) share: the RustCrypto `digest` traits over a
//! crate's streaming state, and that state's one implementation variant.
//!
//! Checksums are not cryptographic: they catch accidental damage, and anyone can change data
//! and keep its checksum. The registry says so (`AlgorithmInfo::cryptographic`); they
//! implement no `digest::HashMarker`, the traits' mark of a cryptographic hash.
#![forbid(unsafe_code)]

/// Implements `Default`, the `digest` traits and [`Variants`](super::Variants) for
/// `$name(state)`, a tuple struct over a crate's streaming state with
/// `update(&mut self, &[u8])`: `new` builds the state, `digest |s| EXPR` is the digest's bytes
/// (an array of `$size` bytes) of state `s` without changing it, `reset |s| EXPR` starts `s`
/// over, and `variant NAME: SUMMARY` describes the crate doing the work.
macro_rules! checksum_type {
    ($name:ident: $size:ty, new $new:expr, digest |$s:ident| $digest:expr,
        reset |$r:ident| $reset:expr, variant $variant:literal: $summary:literal) => {
        impl Default for $name {
            fn default() -> Self {
                $name($new)
            }
        }

        impl digest::OutputSizeUser for $name {
            type OutputSize = $size;
        }

        impl digest::Update for $name {
            fn update(&mut self, data: &[u8]) {
                self.0.update(data);
            }
        }

        impl digest::FixedOutput for $name {
            fn finalize_into(self, out: &mut digest::Output<Self>) {
                let $s = &self.0;
                out.copy_from_slice(&$digest);
            }
        }

        impl digest::Reset for $name {
            fn reset(&mut self) {
                let $r = &mut self.0;
                $reset;
            }
        }

        impl digest::FixedOutputReset for $name {
            fn finalize_into_reset(&mut self, out: &mut digest::Output<Self>) {
                let $s = &self.0;
                out.copy_from_slice(&$digest);
                digest::Reset::reset(self);
            }
        }

        impl $crate::algo::Variants for $name {
            fn variants() -> Vec<$crate::algo::VariantInfo> {
                vec![$crate::algo::VariantInfo {
                    name: $variant,
                    available: true,
                    default: true,
                    summary: $summary,
                }]
            }

            fn with_variant(name: &str) -> Option<Self> {
                (name == $variant).then(Self::default)
            }
        }
    };
}
pub(crate) use checksum_type;
