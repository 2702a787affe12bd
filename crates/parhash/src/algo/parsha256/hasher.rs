//! PARSHA-256 as a `digest` type (`parsha256` in the registry): the fast tree engine with the default parameters T = 13, l = 256.
//!
//! PARSHA-256 must know the message length before it hashes anything, and the `digest` traits
//! do not say it up front, so [`Parsha256`] **keeps the whole message in memory until
//! `finalize`** and then hashes it on all cores. Use it for the registry's uniform interface
//! (`parhash list`, the lab, `Hasher`); for large inputs or other parameters call
//! [`crate::algo::parsha256::parsha256_with`] on a slice (a memory-mapped file) or feed a
//! [`crate::algo::parsha256::Parsha256Hasher`] that is told the length first, as the CLI does.
//! Only the digest is output; the effective height t is fixed by the length.

use digest::{
    typenum::U32, FixedOutput, FixedOutputReset, HashMarker, Output, OutputSizeUser, Reset, Update,
};

use super::{parsha256_with, reference, ParshaOptions, DEFAULT_IV_BITS, DEFAULT_TREE_HEIGHT};
use crate::algo::{VariantInfo, Variants};
use crate::lanes::Kernel;
use crate::threads::Threads;

/// Which engine finalizes the buffered message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    /// The literal round-by-round reference (slow; for cross-checks).
    Reference,
    /// The fast engine with these options.
    Fast(ParshaOptions),
}

/// PARSHA-256 with T = 13, l = 256, buffering the message until `finalize` (see the module docs).
#[derive(Clone, Debug)]
pub struct Parsha256 {
    message: Vec<u8>,
    engine: Engine,
}

impl Default for Parsha256 {
    fn default() -> Self {
        Parsha256::with_threads(0)
    }
}

impl Parsha256 {
    /// The fast engine on up to `threads` threads (`0` or [`Threads::ALL`]: all cores).
    pub fn with_threads(threads: impl Into<Threads>) -> Self {
        Parsha256 {
            message: Vec::new(),
            engine: Engine::Fast(ParshaOptions {
                threads: threads.into(),
                kernel: None,
            }),
        }
    }

    fn digest(&self) -> [u8; 32] {
        let result = match self.engine {
            Engine::Reference => {
                reference::parsha256(&self.message, DEFAULT_TREE_HEIGHT, DEFAULT_IV_BITS)
            }
            Engine::Fast(options) => parsha256_with(
                &self.message,
                DEFAULT_TREE_HEIGHT,
                DEFAULT_IV_BITS,
                &options,
            ),
        };
        // The parameters are constants in range and a Vec is far below 2^64 bits.
        result.expect("default PARSHA-256 parameters are valid").1
    }
}

impl HashMarker for Parsha256 {}

impl OutputSizeUser for Parsha256 {
    type OutputSize = U32;
}

impl Update for Parsha256 {
    fn update(&mut self, data: &[u8]) {
        self.message.extend_from_slice(data);
    }
}

impl FixedOutput for Parsha256 {
    fn finalize_into(self, out: &mut Output<Self>) {
        out.copy_from_slice(&self.digest());
    }
}

impl FixedOutputReset for Parsha256 {
    fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
        out.copy_from_slice(&self.digest());
        Reset::reset(self);
    }
}

impl Reset for Parsha256 {
    fn reset(&mut self) {
        self.message.clear();
    }
}

const KERNELS: [(&str, &str); 4] = [
    (
        "parallel-portable",
        "tree engine, portable 8-lane compressions, all cores",
    ),
    (
        "parallel-avx2",
        "tree engine, AVX2 8-lane compressions, all cores",
    ),
    (
        "parallel-avx512",
        "tree engine, AVX-512 16-lane compressions, all cores",
    ),
    (
        "parallel-sha-ni",
        "tree engine, 8 SHA-NI compressions interleaved, all cores",
    ),
];

impl Variants for Parsha256 {
    fn variants() -> Vec<VariantInfo> {
        let mut v = vec![
            VariantInfo {
                name: "reference",
                available: true,
                default: false,
                summary: "literal round-by-round specification (slow oracle)",
            },
            VariantInfo {
                name: "parallel",
                available: true,
                default: true,
                summary: "tree engine, widest SIMD lanes, all cores",
            },
        ];
        for (name, summary) in KERNELS {
            v.push(VariantInfo {
                name,
                available: Kernel::from_name(true, &name["parallel-".len()..]).is_some(),
                default: false,
                summary,
            });
        }
        v
    }

    fn with_variant(name: &str) -> Option<Self> {
        let engine = match name {
            "reference" => Engine::Reference,
            "parallel" => Engine::Fast(ParshaOptions::default()),
            _ => Engine::Fast(ParshaOptions {
                threads: Threads::ALL,
                kernel: Some(Kernel::from_name(true, name.strip_prefix("parallel-")?)?),
            }),
        };
        Some(Parsha256 {
            message: Vec::new(),
            engine,
        })
    }
}
