//! One module per hash family. Each module holds the family's plain reference (literal to the
//! specification, never used for speed), its fast portable code, its per-ISA kernels and the
//! single dispatch point that picks among them. The public hasher types implement the RustCrypto
//! `digest` traits, so they work with `hmac::Hmac`, `Digest::digest` and the rest of that world.

// `ins!`: asm text of one instruction, for the SHA kernels' `rorx` rounds.
#[cfg(target_arch = "x86_64")]
pub(crate) mod asm_text;
pub mod blake;
pub mod blake2;
pub mod blake3;
pub(crate) mod block_api;
pub(crate) mod checksum;
pub mod cksum;
pub mod crc;
// One SSE2 move each way: unsafe code outside the kernels' own files (as `pieces` below).
#[allow(unsafe_code)]
pub(crate) mod len_word;
// An empty `asm!` (a compiler barrier for the SHA kernels' schedule words), likewise; only
// the x86-64 kernels use it.
#[allow(unsafe_code)]
#[cfg(target_arch = "x86_64")]
pub(crate) mod from_memory;
pub mod groestl;
pub mod jh;
pub mod keccak;
pub mod md5;
pub mod parsha256;
// One SSE2 store of a 16-byte piece built in registers: unsafe outside the kernels, as above.
#[allow(unsafe_code)]
pub(crate) mod pieces;
pub mod sandstorm;
pub mod sha1;
pub mod sha2;
pub mod shake;
pub mod simd;
pub(crate) mod sized;
pub mod skein;
pub mod whirlpool;
pub mod xxhash;

/// One implementation of an algorithm that can be selected by name, e.g. `reference`,
/// `portable`, `sha-ni`, `avx2`, `avx512`, `sequential`, `parallel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VariantInfo {
    /// Short name, unique within an algorithm.
    pub name: &'static str,
    /// Whether this CPU (and `PARHASH_DISABLE_ISA`) allows it.
    pub available: bool,
    /// Whether it is the one used when nothing is forced.
    pub default: bool,
    /// One line: what this implementation does.
    pub summary: &'static str,
}

/// Implemented by every public hasher type: lists its implementation variants and builds a hasher
/// forced onto one of them. Types with a single implementation keep the defaults.
pub trait Variants: Sized {
    /// All variants of this algorithm compiled into this build, available here or not.
    fn variants() -> Vec<VariantInfo> {
        vec![VariantInfo {
            name: "portable",
            available: true,
            default: true,
            summary: "portable Rust",
        }]
    }

    /// `name` as this type's table spells it (a listed variant or an accepted alias), if it is
    /// available here: what [`crate::Variant`] keeps, checked once.
    fn variant_name(name: &str) -> Option<&'static str> {
        Self::variants()
            .into_iter()
            .find(|v| v.available && v.name == name)
            .map(|v| v.name)
    }

    /// A hasher that uses the named variant for all its work, or `None` when the variant does
    /// not exist or is not available on this CPU.
    fn with_variant(name: &str) -> Option<Self>;

    /// [`Variants::with_variant`] on at most `threads` threads, for the variants that split one
    /// message over threads (the tree modes' `parallel*`); the others ignore `threads`.
    fn with_variant_on(name: &str, threads: crate::threads::Threads) -> Option<Self> {
        let _ = threads;
        Self::with_variant(name)
    }
}
