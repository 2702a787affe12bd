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

use core::fmt;
use core::marker::PhantomData;

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

/// One entry of `T`'s variant table (a listed variant, a group such as `parallel`, or an
/// accepted alias) that this CPU can run, checked once when it is made ([`Variants::variant`],
/// [`Variants::available_variants`]): building a hasher from it parses no name and cannot fail.
/// The registry's [`crate::Variant`] holds the same position for its algorithm's type.
pub struct VariantOf<T> {
    /// Position in `T`'s table (below 256: tables hold a dozen entries).
    index: u8,
    marker: PhantomData<fn() -> T>,
}

impl<T> VariantOf<T> {
    /// The entry at `index` of `T`'s table, which the caller found available here.
    pub(crate) const fn checked(index: usize) -> Self {
        assert!(
            index <= u8::MAX as usize,
            "a variant table of over 256 entries"
        );
        VariantOf {
            index: index as u8,
            marker: PhantomData,
        }
    }

    /// Its position in `T`'s table.
    pub(crate) fn index(self) -> usize {
        usize::from(self.index)
    }
}

impl<T: Variants> VariantOf<T> {
    /// Its name, as `T`'s table spells it.
    pub fn name(self) -> &'static str {
        T::variant_name(self)
    }
}

// By hand: derived, these would ask `T` for the traits too.
impl<T> Clone for VariantOf<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for VariantOf<T> {}
impl<T> PartialEq for VariantOf<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<T> Eq for VariantOf<T> {}
impl<T: Variants> fmt::Display for VariantOf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
impl<T: Variants> fmt::Debug for VariantOf<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("VariantOf").field(&self.name()).finish()
    }
}

/// Implemented by every public hasher type: lists its implementation variants and builds a hasher
/// forced onto one of them, given as a checked [`VariantOf`] value.
pub trait Variants: Sized {
    /// All variants of this algorithm compiled into this build, available here or not.
    fn variants() -> Vec<VariantInfo>;

    /// The entry called `name` (a listed variant or an accepted alias), if it is available
    /// here: the one place a name is read.
    fn variant(name: &str) -> Option<VariantOf<Self>>;

    /// Every listed variant this CPU can run, in the order [`Variants::variants`] lists them.
    fn available_variants() -> Vec<VariantOf<Self>>;

    /// The variant used when nothing is forced (the one [`Variants::variants`] flags).
    fn default_variant() -> VariantOf<Self>;

    /// `variant`'s name, as this type's table spells it.
    fn variant_name(variant: VariantOf<Self>) -> &'static str;

    /// A hasher that uses `variant` for all its work.
    fn with_variant(variant: VariantOf<Self>) -> Self {
        Self::with_variant_on(variant, crate::threads::Threads::ALL)
    }

    /// [`Variants::with_variant`] on at most `threads` threads, for the variants that split one
    /// message over threads (the tree modes' `parallel*`); the others ignore `threads`.
    fn with_variant_on(variant: VariantOf<Self>, threads: crate::threads::Threads) -> Self;
}

/// [`Variants`] for a type with one implementation, `$name`, described by `$summary` and
/// built by `$build` (given the [`Threads`](crate::threads::Threads)).
macro_rules! single_variant {
    ($name:literal: $summary:expr, $build:expr; $($ty:ty),+) => {$(
        impl $crate::algo::Variants for $ty {
            fn variants() -> Vec<$crate::algo::VariantInfo> {
                vec![$crate::algo::VariantInfo {
                    name: $name,
                    available: true,
                    default: true,
                    summary: $summary,
                }]
            }
            fn variant(name: &str) -> Option<$crate::algo::VariantOf<Self>> {
                (name == $name).then(Self::default_variant)
            }
            fn available_variants() -> Vec<$crate::algo::VariantOf<Self>> {
                vec![Self::default_variant()]
            }
            fn default_variant() -> $crate::algo::VariantOf<Self> {
                $crate::algo::VariantOf::checked(0)
            }
            fn variant_name(_: $crate::algo::VariantOf<Self>) -> &'static str {
                $name
            }
            fn with_variant_on(
                _: $crate::algo::VariantOf<Self>,
                threads: $crate::threads::Threads,
            ) -> Self {
                let build: fn($crate::threads::Threads) -> Self = $build;
                build(threads)
            }
        }
    )+};
}
pub(crate) use single_variant;
