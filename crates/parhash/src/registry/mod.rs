//! The algorithm registry: canonical names, forgiving aliases, metadata, and hashers chosen at
//! run time by name. This is what the CLI, the benchmark lab and (later) bindings use; code that
//! knows its algorithm at compile time uses the concrete types (`parhash::Sha256`, ...) instead.
//!
//! One file per job: the table of algorithms and their metadata (here), the names users type
//! and the suggestions for typos (`names`), BSD tags and digest sizes (`tags`), the errors
//! (`error`), digest values (`output`) and hashers chosen at run time (`hasher`).

mod error;
mod hasher;
mod inline;
mod names;
mod output;
mod tags;
#[cfg(test)]
mod tests;
mod variant;

pub use error::Error;
pub use hasher::{hash, Hasher, HasherBuilder};
pub use output::Output;
pub use variant::Variant;

use std::fmt;

use digest::{typenum::Unsigned, DynDigest};

use crate::algo::parsha256::TreeParams;
use crate::algo::sized::AnyLength;
use crate::algo::{
    blake, blake2, blake3, cksum, crc, groestl, jh, keccak, md5, parsha256, sandstorm, sha1, sha2,
    shake, simd, skein, whirlpool, xxhash,
};
use crate::algo::{VariantInfo, VariantOf, Variants};
use crate::threads::Threads;

/// A hash family: algorithms that share one design and one module under `algo/`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Family {
    /// MD5 (RFC 1321).
    Md5,
    /// SHA-1 (FIPS 180-4).
    Sha1,
    /// SHA-2: SHA-224 to SHA-512/256 (FIPS 180-4).
    Sha2,
    /// SHA-3 (FIPS 202).
    Sha3,
    /// Keccak as submitted to the SHA-3 competition (its own padding).
    Keccak,
    /// Whirlpool (ISO/IEC 10118-3).
    Whirlpool,
    /// BLAKE, the SHA-3 finalist.
    Blake,
    /// Grøstl, the SHA-3 finalist.
    Groestl,
    /// JH, the SHA-3 finalist.
    Jh,
    /// Skein, the SHA-3 finalist (Threefish).
    Skein,
    /// SIMD, the SHA-3 round-2 candidate.
    Simd,
    /// SANDstorm, the SHA-3 round-1 candidate (a tree mode).
    Sandstorm,
    /// PARSHA-256, a tree of SHA-256 compressions.
    Parsha,
    /// BLAKE2 (RFC 7693).
    Blake2,
    /// BLAKE3.
    Blake3,
    /// SHAKE, the SHA-3 extendable-output functions.
    Shake,
    /// xxHash 0.8 (XXH64, XXH3): fast non-cryptographic hashes.
    XxHash,
    /// Cyclic redundancy checks (CRC-32, CRC-32C, CRC-64/NVME): checksums.
    Crc,
    /// coreutils' legacy checksums (POSIX `cksum`, SysV and BSD `sum`, `cksum -a crc32b`): a
    /// checksum and the input's size, printed in their own line and never checked (see
    /// [`Algorithm::is_checkable`]).
    Legacy,
}

impl Family {
    /// Display name of the family.
    pub fn name(self) -> &'static str {
        match self {
            Family::Md5 => "MD5",
            Family::Sha1 => "SHA-1",
            Family::Sha2 => "SHA-2",
            Family::Sha3 => "SHA-3",
            Family::Keccak => "Keccak",
            Family::Whirlpool => "Whirlpool",
            Family::Blake => "BLAKE",
            Family::Groestl => "Groestl",
            Family::Jh => "JH",
            Family::Skein => "Skein",
            Family::Simd => "SIMD",
            Family::Sandstorm => "SANDstorm",
            Family::Parsha => "PARSHA-256",
            Family::Blake2 => "BLAKE2",
            Family::Blake3 => "BLAKE3",
            Family::Shake => "SHAKE",
            Family::XxHash => "xxHash",
            Family::Crc => "CRC",
            Family::Legacy => "coreutils legacy",
        }
    }
}

/// Static facts about one algorithm.
#[derive(Clone, Copy, Debug)]
pub struct AlgorithmInfo {
    /// Canonical lowercase name, e.g. `sha512-256`.
    pub name: &'static str,
    /// The name used in BSD-style (`--tag`) lines, e.g. `SHA512-256`.
    pub tag: &'static str,
    /// Other accepted spellings (matching also ignores case, `-`, `_`, `/` and spaces).
    pub aliases: &'static [&'static str],
    /// The family it belongs to.
    pub family: Family,
    /// Digest size in bytes (the default where the length can be chosen, see `sizes`).
    pub digest_size: usize,
    /// The digest sizes [`HasherBuilder::digest_size`] accepts: only `digest_size` for most
    /// algorithms, a range for BLAKE2 (a parameter of the hash) and the extendable-output
    /// functions (SHAKE, BLAKE3).
    pub sizes: DigestSizes,
    /// Compression-function block size in bytes.
    pub block_size: usize,
    /// Considered broken (collisions are practical): say so wherever the algorithm is offered.
    pub broken: bool,
    /// A cryptographic hash: `false` for the checksums (CRCs, xxHash), which catch accidental
    /// damage but give no protection against a deliberate change. Say so wherever one is
    /// offered ([`AlgorithmInfo::NOT_CRYPTOGRAPHIC`]).
    pub cryptographic: bool,
    /// One line: the standard it follows and anything a user should know.
    pub note: &'static str,
}

impl AlgorithmInfo {
    /// What to say of an algorithm that is not [`cryptographic`](AlgorithmInfo::cryptographic).
    pub const NOT_CRYPTOGRAPHIC: &'static str =
        "not cryptographic (no protection against a deliberate change)";
}

/// The digest sizes an algorithm can produce, in bytes: `min..=max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DigestSizes {
    /// The shortest digest, in bytes.
    pub min: usize,
    /// The longest digest, in bytes.
    pub max: usize,
}

impl DigestSizes {
    /// Whether more than one size is possible.
    pub fn is_variable(self) -> bool {
        self.min != self.max
    }

    /// Whether a digest of `size` bytes is possible.
    pub fn contains(self, size: usize) -> bool {
        (self.min..=self.max).contains(&size)
    }
}

/// Object-safe hasher used behind [`Hasher`].
trait DynHash: DynDigest + Send + Sync {
    /// A copy of the state (`DynDigest::box_clone` drops `Send + Sync`).
    fn clone_hash(&self) -> Box<dyn DynHash>;
}
impl<T: DynDigest + Clone + Send + Sync + 'static> DynHash for T {
    fn clone_hash(&self) -> Box<dyn DynHash> {
        Box::new(self.clone())
    }
}

/// Object-safe extendable-output function behind a [`Hasher`]: writes as many output bytes as
/// asked, so its length is a property of the [`Hasher`], not of the hash.
trait DynXof: Send + Sync {
    fn update(&mut self, data: &[u8]);
    /// Writes `out.len()` bytes of output and starts over.
    fn fill_reset(&mut self, out: &mut [u8]);
    fn reset(&mut self);
    fn clone_xof(&self) -> Box<dyn DynXof>;
}

impl<H: AnyLength> DynXof for H {
    fn update(&mut self, data: &[u8]) {
        AnyLength::update(self, data);
    }
    fn fill_reset(&mut self, out: &mut [u8]) {
        self.finalize_into_reset(out);
    }
    fn reset(&mut self) {
        AnyLength::reset(self);
    }
    fn clone_xof(&self) -> Box<dyn DynXof> {
        Box::new(self.clone())
    }
}

fn boxed<T>(hasher: T) -> Box<dyn DynHash>
where
    T: DynDigest + Clone + Send + Sync + 'static,
{
    Box::new(hasher)
}

/// `data` hashed by a `T` on the stack: [`hash`]'s path, ~35 ns per message cheaper than a
/// boxed [`Hasher`] (allocation, dynamic calls, a second copy of the output), which is most of
/// the time of a 64-byte SHA-256.
fn hash_with<T: DynDigest + Default>(data: &[u8]) -> Output {
    let mut hasher = T::default();
    hasher.update(data);
    Output::filled(hasher.output_size(), |out| hasher.finalize_into(out))
}

/// Declares every algorithm once, one line each after its note (the doc comment, also the
/// enum variant's doc): `Variant(type) "name", "TAG", [aliases], Family, block N[, broken];`,
/// or `, checksum` instead of `, broken` for a non-cryptographic one (CRCs, xxHash).
/// The (default) digest size comes from the type; an algorithm whose length is a parameter
/// (BLAKE2) adds `sizes MIN..=MAX via CONSTRUCTOR` after its block size, the constructor
/// building its hasher for a length; an extendable-output function adds `xof via CONSTRUCTOR`,
/// the constructor building a hasher that writes any number of bytes (its digests are 1 to
/// [`Output::MAX`] bytes), or `xof(threads) via CONSTRUCTOR` when it spreads one message over
/// threads (BLAKE3) and so takes the builder's [`Threads`]: no constructor takes a thread count
/// it ignores.
macro_rules! algorithms {
    (@broken) => { false };
    (@broken broken) => { true };
    (@broken checksum) => { false };
    (@cryptographic $($flag:ident)?) => { algorithms!(@not_checksum $($flag)?) };
    (@not_checksum checksum) => { false };
    (@not_checksum $($flag:ident)?) => { true };
    (@sizes $default:expr;) => { DigestSizes { min: $default, max: $default } };
    (@sizes $default:expr; $min:literal, $max:literal) => { DigestSizes { min: $min, max: $max } };
    (@sizes $default:expr; xof $xof:ident) => { DigestSizes { min: 1, max: Output::MAX } };
    (@true $xof:ident) => { true };
    (@xof $m:ident::$f:ident, $threads:ident) => { $m::$f() };
    (@xof $m:ident::$f:ident, $threads:ident, threads) => { $m::$f($threads) };
    ($(
        #[doc = $note:literal]
        $variant:ident($ty:ty) $name:literal, $tag:literal, [$($alias:literal),* $(,)?],
            $family:ident, block $block:literal
            $(sizes $min:literal ..= $max:literal via $sized_mod:ident::$sized:ident)?
            $(xof $(($on:ident))? via $xof_mod:ident::$xof:ident)? $(, $broken:ident)?;
    )*) => {
        /// Every algorithm parhash implements.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        // Each variant's doc is its note, plain text also shown by `parhash list`, where
        // brackets (`Keccak-f[1600]`) are not links.
        #[allow(rustdoc::broken_intra_doc_links)]
        pub enum Algorithm {
            $(
                #[doc = $note]
                $variant,
            )*
        }

        impl Algorithm {
            /// All algorithms, in the order `parhash list` shows them.
            pub const ALL: &'static [Algorithm] = &[$(Algorithm::$variant),*];

            /// Static facts about this algorithm.
            pub fn info(self) -> &'static AlgorithmInfo {
                match self {
                    $(Algorithm::$variant => {
                        const INFO: AlgorithmInfo = AlgorithmInfo {
                            name: $name,
                            tag: $tag,
                            aliases: &[$($alias),*],
                            family: Family::$family,
                            digest_size: <$ty as digest::OutputSizeUser>::OutputSize::USIZE,
                            sizes: algorithms!(
                                @sizes <$ty as digest::OutputSizeUser>::OutputSize::USIZE;
                                $($min, $max)? $(xof $xof)?
                            ),
                            block_size: $block,
                            broken: algorithms!(@broken $($broken)?),
                            cryptographic: algorithms!(@cryptographic $($broken)?),
                            note: $note.trim_ascii_start(),
                        };
                        &INFO
                    })*
                }
            }

            /// The implementation variants compiled in, with availability on this CPU.
            pub fn variants(self) -> Vec<VariantInfo> {
                match self {
                    $(Algorithm::$variant => <$ty as Variants>::variants(),)*
                }
            }

            /// The position of `name` in this algorithm's variant table, if available here.
            fn find_variant(self, name: &str) -> Option<usize> {
                match self {
                    $(Algorithm::$variant => <$ty as Variants>::variant(name).map(VariantOf::index),)*
                }
            }

            /// The positions of the listed variants available here, in listing order.
            fn available_variant_indices(self) -> Vec<usize> {
                match self {
                    $(Algorithm::$variant => <$ty as Variants>::available_variants()
                        .into_iter()
                        .map(VariantOf::index)
                        .collect(),)*
                }
            }

            /// The position of the default variant in this algorithm's variant table.
            fn default_variant_index(self) -> usize {
                match self {
                    $(Algorithm::$variant => <$ty as Variants>::default_variant().index(),)*
                }
            }

            /// The name of the variant at `index` (one [`Algorithm::find_variant`] gave).
            fn variant_name_at(self, index: usize) -> &'static str {
                match self {
                    $(Algorithm::$variant => VariantOf::<$ty>::checked(index).name(),)*
                }
            }

            /// One message hashed by the concrete type, without a boxed hasher.
            fn hash_one_shot(self, data: &[u8]) -> Output {
                match self {
                    $(Algorithm::$variant => hash_with::<$ty>(data),)*
                }
            }

            /// The hasher for a digest of `size` bytes, for the algorithms whose length is a
            /// parameter (`None` for the others; `size` is in range).
            fn new_dyn_sized(self, size: usize) -> Option<Box<dyn DynHash>> {
                match self {
                    $($(Algorithm::$variant => Some(boxed($sized_mod::$sized(size))),)?)*
                    _ => None,
                }
            }

            /// The extendable-output hasher (`None` for the other algorithms).
            fn new_dyn_xof(self, threads: Threads) -> Option<Box<dyn DynXof>> {
                match self {
                    $($(Algorithm::$variant => Some(Box::new(
                        algorithms!(@xof $xof_mod::$xof, threads $(, $on)?)
                    )),)?)*
                    _ => None,
                }
            }

            /// Whether this is an extendable-output function (BLAKE3, SHAKE128, SHAKE256):
            /// its digests are prefixes of one output stream, of any length up to
            /// [`Output::MAX`] as an [`Output`] and of any length at all through
            /// [`Hasher::finalize_xof_into_reset`].
            pub fn is_extendable(self) -> bool {
                match self {
                    $($(Algorithm::$variant => algorithms!(@true $xof),)?)*
                    _ => false,
                }
            }

            fn new_dyn(self) -> Box<dyn DynHash> {
                match self {
                    $(Algorithm::$variant => boxed(<$ty>::default()),)*
                }
            }

            /// The hasher on the variant at `index` (checked for this algorithm when it was
            /// found) on `threads` threads.
            fn new_dyn_variant(
                self,
                index: usize,
                threads: Threads,
                params: TreeParams,
            ) -> Box<dyn DynHash> {
                if self == Algorithm::Parsha256 {
                    let variant = VariantOf::<crate::algo::parsha256::Parsha256>::checked(index);
                    let hasher = <crate::algo::parsha256::Parsha256 as Variants>::with_variant_on(variant, threads);
                    return boxed(hasher.params(params));
                }
                match self {
                    $(Algorithm::$variant => boxed(<$ty as Variants>::with_variant_on(
                        VariantOf::checked(index),
                        threads,
                    )),)*
                }
            }

            /// The default variant on `threads` threads (only the tree modes use more than one).
            fn new_dyn_threads(self, threads: Threads) -> Box<dyn DynHash> {
                // Only the tree modes split one message over threads.
                if threads.is_all() || !Hasher::splits_over_threads(self) {
                    return self.new_dyn();
                }
                match self {
                    $(Algorithm::$variant => boxed(<$ty as Variants>::with_variant_on(
                        <$ty as Variants>::default_variant(),
                        threads,
                    )),)*
                }
            }
        }
    };
}

algorithms! {
    /// RFC 1321; BROKEN: practical collisions, use only for non-security checksums
    Md5(md5::Md5) "md5", "MD5", ["md-5"], Md5, block 64, broken;
    /// FIPS 180-4 SHA-1; BROKEN: practical collisions (SHAttered), use only for non-security checksums
    Sha1(sha1::Sha1) "sha1", "SHA1", ["sha-1"], Sha1, block 64, broken;
    /// FIPS 180-4 SHA-224 (SHA-256 with its own IV, truncated)
    Sha224(sha2::Sha224) "sha224", "SHA224", ["sha-224", "sha2-224", "sha-2-224"], Sha2, block 64;
    /// FIPS 180-4 SHA-256
    Sha256(sha2::Sha256) "sha256", "SHA256", ["sha-256", "sha2-256", "sha-2-256", "sha2"], Sha2, block 64;
    /// FIPS 180-4 SHA-384 (SHA-512 with its own IV, truncated)
    Sha384(sha2::Sha384) "sha384", "SHA384", ["sha-384", "sha2-384", "sha-2-384"], Sha2, block 128;
    /// FIPS 180-4 SHA-512
    Sha512(sha2::Sha512) "sha512", "SHA512", ["sha-512", "sha2-512", "sha-2-512"], Sha2, block 128;
    /// FIPS 180-4 SHA-512/224 (SHA-512 with its own IV, truncated)
    Sha512_224(sha2::Sha512_224) "sha512-224", "SHA512-224", ["sha512/224", "sha-512/224", "sha2-512/224"], Sha2, block 128;
    /// FIPS 180-4 SHA-512/256 (SHA-512 with its own IV, truncated)
    Sha512_256(sha2::Sha512_256) "sha512-256", "SHA512-256", ["sha512/256", "sha-512/256", "sha2-512/256"], Sha2, block 128;
    /// RFC 7693 BLAKE2b (RustCrypto's blake2), as b2sum and cksum -a blake2b; digests of 8 to 512 bits (-l), 512 by default
    Blake2b(blake2::Blake2b512) "blake2b", "BLAKE2b", ["blake2b-512", "blake2", "b2", "b2sum"], Blake2, block 128 sizes 1..=64 via blake2::blake2b_sized;
    /// RFC 7693 BLAKE2s (RustCrypto's blake2); digests of 8 to 256 bits (-l), 256 by default
    Blake2s(blake2::Blake2s256) "blake2s", "BLAKE2s", ["blake2s-256"], Blake2, block 64 sizes 1..=32 via blake2::blake2s_sized;
    /// BLAKE3 (the official blake3 crate; one-block messages by parhash's own AVX-512 kernel), as b3sum, on all cores for long messages; an XOF: digests of 1 byte to 1 MiB (-l 8 to 8388608 bits), 256 bits by default
    Blake3(blake3::Blake3) "blake3", "BLAKE3", ["b3", "b3sum", "blake3-256"], Blake3, block 64 xof(threads) via blake3::blake3_xof;
    /// SANDstorm-224 (Sandia, SHA-3 round 1), tree mode on all cores
    Sandstorm224(sandstorm::Sandstorm224) "sandstorm224", "SANDSTORM224", ["sandstorm-224"], Sandstorm, block 64;
    /// SANDstorm-256 (Sandia, SHA-3 round 1), tree mode on all cores
    Sandstorm256(sandstorm::Sandstorm256) "sandstorm256", "SANDSTORM256", ["sandstorm-256", "sandstorm"], Sandstorm, block 64;
    /// SANDstorm-384 (Sandia, SHA-3 round 1), 128-bit words, tree mode on all cores
    Sandstorm384(sandstorm::Sandstorm384) "sandstorm384", "SANDSTORM384", ["sandstorm-384"], Sandstorm, block 128;
    /// SANDstorm-512 (Sandia, SHA-3 round 1), 128-bit words, tree mode on all cores
    Sandstorm512(sandstorm::Sandstorm512) "sandstorm512", "SANDSTORM512", ["sandstorm-512"], Sandstorm, block 128;
    /// SANDstorm-224 as the submitters' code computes it (8-bit superblock counter; differs from 16448 bytes on)
    Sandstorm224Ref(sandstorm::Sandstorm224Ref) "sandstorm224-ref", "SANDSTORM224-REF", [], Sandstorm, block 64;
    /// SANDstorm-256 as the submitters' code computes it (8-bit superblock counter; differs from 16448 bytes on)
    Sandstorm256Ref(sandstorm::Sandstorm256Ref) "sandstorm256-ref", "SANDSTORM256-REF", [], Sandstorm, block 64;
    /// PARSHA-256 (Pal & Sarkar 2003), tree of SHA-256 compressions on all cores; T=13, l=256 unless --tree-height/--iv-bits
    Parsha256(parsha256::Parsha256) "parsha256", "PARSHA256-T13-IV256", ["parsha-256", "parsha"], Parsha, block 64;
    /// SIMD-224 hash v1.1 (Leurent-Bouillaguet-Fouque, SHA-3 round 2; truncated n = 4 state, NTT message expansion)
    Simd224(simd::Simd224) "simd224", "SIMD-224", ["simd-224-v1.1"], Simd, block 64;
    /// SIMD-256 hash v1.1 (Leurent-Bouillaguet-Fouque, SHA-3 round 2; 4 Feistel lanes, NTT message expansion)
    Simd256(simd::Simd256) "simd256", "SIMD-256", ["simd-256-v1.1"], Simd, block 64;
    /// SIMD-384 hash v1.1 (Leurent-Bouillaguet-Fouque, SHA-3 round 2; truncated n = 8 state, NTT message expansion)
    Simd384(simd::Simd384) "simd384", "SIMD-384", ["simd-384-v1.1"], Simd, block 128;
    /// SIMD-512 hash v1.1 (Leurent-Bouillaguet-Fouque, SHA-3 round 2; 8 Feistel lanes, NTT message expansion)
    Simd512(simd::Simd512) "simd512", "SIMD-512", ["simd-512-v1.1"], Simd, block 128;
    /// BLAKE-224, SHA-3 finalist (final version, 14 rounds, salt zero)
    Blake224(blake::Blake224) "blake224", "BLAKE-224", ["blake-224"], Blake, block 64;
    /// BLAKE-256, SHA-3 finalist (final version, 14 rounds, salt zero)
    Blake256(blake::Blake256) "blake256", "BLAKE-256", ["blake-256", "blake32"], Blake, block 64;
    /// BLAKE-384, SHA-3 finalist (final version, 16 rounds, salt zero)
    Blake384(blake::Blake384) "blake384", "BLAKE-384", ["blake-384"], Blake, block 128;
    /// BLAKE-512, SHA-3 finalist (final version, 16 rounds, salt zero)
    Blake512(blake::Blake512) "blake512", "BLAKE-512", ["blake-512", "blake64"], Blake, block 128;
    /// Skein-512-224 v1.3, SHA-3 finalist (Threefish-512, UBI)
    Skein512_224(skein::Skein512_224) "skein512-224", "SKEIN512-224", ["skein-512-224"], Skein, block 64;
    /// Skein-512-256 v1.3, SHA-3 finalist (Threefish-512, UBI)
    Skein512_256(skein::Skein512_256) "skein512-256", "SKEIN512-256", ["skein-512-256", "skein"], Skein, block 64;
    /// Skein-512-384 v1.3, SHA-3 finalist (Threefish-512, UBI)
    Skein512_384(skein::Skein512_384) "skein512-384", "SKEIN512-384", ["skein-512-384"], Skein, block 64;
    /// Skein-512-512 v1.3, SHA-3 finalist (Threefish-512, UBI)
    Skein512_512(skein::Skein512_512) "skein512-512", "SKEIN512-512", ["skein-512-512"], Skein, block 64;
    /// Skein-256-256 v1.3 (Threefish-256, UBI); sequential form only
    Skein256_256(skein::Skein256_256) "skein256-256", "SKEIN256-256", ["skein-256-256"], Skein, block 32;
    /// Skein-1024-1024 v1.3 (Threefish-1024, UBI); sequential form only
    Skein1024_1024(skein::Skein1024_1024) "skein1024-1024", "SKEIN1024-1024", ["skein-1024-1024"], Skein, block 128;
    /// FIPS 202 SHA3-224 (Keccak-f[1600], rate 144 bytes, padding 0x06)
    Sha3_224(keccak::Sha3_224) "sha3-224", "SHA3-224", ["sha3_224", "sha-3-224"], Sha3, block 144;
    /// FIPS 202 SHA3-256 (Keccak-f[1600], rate 136 bytes, padding 0x06)
    Sha3_256(keccak::Sha3_256) "sha3-256", "SHA3-256", ["sha3_256", "sha-3-256"], Sha3, block 136;
    /// FIPS 202 SHA3-384 (Keccak-f[1600], rate 104 bytes, padding 0x06)
    Sha3_384(keccak::Sha3_384) "sha3-384", "SHA3-384", ["sha3_384", "sha-3-384"], Sha3, block 104;
    /// FIPS 202 SHA3-512 (Keccak-f[1600], rate 72 bytes, padding 0x06)
    Sha3_512(keccak::Sha3_512) "sha3-512", "SHA3-512", ["sha3_512", "sha-3-512"], Sha3, block 72;
    /// FIPS 202 SHAKE128 (RustCrypto's shake), an XOF: digests of 1 byte to 1 MiB (-l 8 to 8388608 bits), 256 bits by default (128-bit collision resistance)
    Shake128(shake::Shake128) "shake128", "SHAKE128", ["shake-128"], Shake, block 168 xof via shake::shake128_xof;
    /// FIPS 202 SHAKE256 (RustCrypto's shake), an XOF: digests of 1 byte to 1 MiB (-l 8 to 8388608 bits), 512 bits by default (256-bit collision resistance)
    Shake256(shake::Shake256) "shake256", "SHAKE256", ["shake-256"], Shake, block 136 xof via shake::shake256_xof;
    /// JH-224, final SHA-3 round-3 version (E8 with 42 rounds)
    Jh224(jh::Jh224) "jh224", "JH-224", ["jh_224"], Jh, block 64;
    /// JH-256, final SHA-3 round-3 version (E8 with 42 rounds)
    Jh256(jh::Jh256) "jh256", "JH-256", ["jh_256"], Jh, block 64;
    /// JH-384, final SHA-3 round-3 version (E8 with 42 rounds)
    Jh384(jh::Jh384) "jh384", "JH-384", ["jh_384"], Jh, block 64;
    /// JH-512, final SHA-3 round-3 version (E8 with 42 rounds)
    Jh512(jh::Jh512) "jh512", "JH-512", ["jh_512"], Jh, block 64;
    /// SHA-3 round-3 Keccak-224, padding 0x01, not FIPS 202
    Keccak224(keccak::Keccak224) "keccak224", "KECCAK224", ["keccak-224", "keccak_224"], Keccak, block 144;
    /// SHA-3 round-3 Keccak-256, padding 0x01, not FIPS 202 (Ethereum's keccak256)
    Keccak256(keccak::Keccak256) "keccak256", "KECCAK256", ["keccak-256", "keccak_256"], Keccak, block 136;
    /// SHA-3 round-3 Keccak-384, padding 0x01, not FIPS 202
    Keccak384(keccak::Keccak384) "keccak384", "KECCAK384", ["keccak-384", "keccak_384"], Keccak, block 104;
    /// SHA-3 round-3 Keccak-512, padding 0x01, not FIPS 202
    Keccak512(keccak::Keccak512) "keccak512", "KECCAK512", ["keccak-512", "keccak_512"], Keccak, block 72;
    /// Grøstl-224, final tweaked SHA-3 round-3 version (8x8 state, 10 rounds)
    Groestl224(groestl::Groestl224) "groestl224", "GROESTL-224", ["grostl224", "grøstl-224"], Groestl, block 64;
    /// Grøstl-256, final tweaked SHA-3 round-3 version (8x8 state, 10 rounds)
    Groestl256(groestl::Groestl256) "groestl256", "GROESTL-256", ["grostl256", "grøstl-256"], Groestl, block 64;
    /// Grøstl-384, final tweaked SHA-3 round-3 version (8x16 state, 14 rounds)
    Groestl384(groestl::Groestl384) "groestl384", "GROESTL-384", ["grostl384", "grøstl-384"], Groestl, block 128;
    /// Grøstl-512, final tweaked SHA-3 round-3 version (8x16 state, 14 rounds)
    Groestl512(groestl::Groestl512) "groestl512", "GROESTL-512", ["grostl512", "grøstl-512"], Groestl, block 128;
    /// Whirlpool, final 2003 version (ISO/IEC 10118-3)
    Whirlpool(whirlpool::Whirlpool) "whirlpool", "WHIRLPOOL", ["whirlpool-512"], Whirlpool, block 64;
    /// XXH64 (xxHash 0.8, seed 0), as xxhsum -H1: a fast checksum, big-endian as xxhsum prints it
    Xxh64(xxhash::Xxh64) "xxh64", "XXH64", ["xxhash64"], XxHash, block 32, checksum;
    /// XXH3-64 (xxHash 0.8, seed 0), as xxhsum -H3: a fast checksum, big-endian as xxhsum prints it
    Xxh3(xxhash::Xxh3) "xxh3", "XXH3", ["xxh3-64", "xxhash3"], XxHash, block 64, checksum;
    /// XXH3-128 (xxHash 0.8, seed 0), as xxhsum -H2: a fast checksum, big-endian as xxhsum prints it
    Xxh128(xxhash::Xxh128) "xxh128", "XXH128", ["xxh3-128", "xxhash128"], XxHash, block 64, checksum;
    /// CRC-32/ISO-HDLC, as zlib, gzip and PNG: a checksum, big-endian (crc32b: as cksum -a crc32b prints it)
    Crc32(crc::Crc32) "crc32", "CRC32", ["crc-32/iso-hdlc"], Crc, block 1, checksum;
    /// CRC-32C, CRC-32/ISCSI (Castagnoli), as iSCSI, ext4, GCS and S3: a checksum, big-endian
    Crc32c(crc::Crc32c) "crc32c", "CRC32C", ["crc-32/iscsi", "castagnoli"], Crc, block 1, checksum;
    /// CRC-64/NVME, S3's default checksum: a checksum, big-endian
    Crc64Nvme(crc::Crc64Nvme) "crc64nvme", "CRC64NVME", ["crc-64/nvme"], Crc, block 1, checksum;
    /// POSIX cksum, as coreutils cksum (-a crc): CRC-32/CKSUM of the data then its length (the crc-fast crate); prints `CRC BYTES NAME` in decimal; digest: the CRC, then the byte count (64-bit), big-endian; no check
    Cksum(cksum::Cksum) "crc", "CRC", ["cksum", "posix-cksum"], Legacy, block 1, checksum;
    /// CRC-32/ISO-HDLC (crc32's) as coreutils 9.6 cksum -a crc32b prints it: `CRC BYTES NAME` in decimal, the length not in the CRC; digest: the CRC, then the byte count (64-bit), big-endian; no check
    Crc32b(cksum::Crc32b) "crc32b", "CRC32B", [], Legacy, block 1, checksum;
    /// System V sum, as sum -s and cksum -a sysv: prints `SUM BLOCKS NAME` (512-byte blocks); digest: the 16-bit sum, then the byte count (64-bit), big-endian; no check
    SysvSum(cksum::SysvSum) "sysv", "SYSV", ["sum-s", "sysv-sum"], Legacy, block 1, checksum;
    /// BSD sum, as sum -r and cksum -a bsd: prints `SUM BLOCKS NAME` (1024-byte blocks, padded as sum pads them); digest: the 16-bit sum, then the byte count (64-bit), big-endian; no check
    BsdSum(cksum::BsdSum) "bsd", "BSD", ["sum-r", "bsd-sum"], Legacy, block 1, checksum;
}

impl Algorithm {
    /// Canonical lowercase name.
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// Digest size in bytes.
    pub fn digest_size(self) -> usize {
        self.info().digest_size
    }

    /// The digest sizes this algorithm can produce ([`AlgorithmInfo::sizes`]).
    pub fn digest_sizes(self) -> DigestSizes {
        self.info().sizes
    }

    /// Whether checksum lists of this algorithm can be checked: not for coreutils' legacy
    /// checksums (`crc`, `crc32b`, `sysv`, `bsd`), whose lines (`CRC BYTES NAME`) are refused by
    /// `cksum -c` too, and which no check line infers from a digest's length.
    pub fn is_checkable(self) -> bool {
        self.info().family != Family::Legacy
    }

    /// Whether this algorithm takes tree parameters ([`TreeParams`]: PARSHA-256's tree height
    /// and IV length): the one rule the builders, the list tags and the bindings ask.
    pub fn takes_tree_params(self) -> bool {
        self.info().family == Family::Parsha
    }

    /// Whether its hasher keeps the whole message until the digest is asked for, because the
    /// tree's shape depends on the message length (PARSHA-256), unless that length is given
    /// up front ([`HasherBuilder::expected_len`](crate::HasherBuilder::expected_len)). A caller
    /// that holds the message anyway (a binding's buffers) may keep it instead; the file engine
    /// spools input of unknown length first (`file::spool`).
    pub fn needs_message_length(self) -> bool {
        self.info().family == Family::Parsha
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
