//! The algorithm registry: canonical names, forgiving aliases, metadata, and hashers chosen at
//! run time by name. This is what the CLI, the benchmark lab and (later) bindings use; code that
//! knows its algorithm at compile time uses the concrete types (`parhash::Sha256`, ...) instead.

use std::fmt;

use digest::{typenum::Unsigned, DynDigest};

use crate::algo::parsha256::Backend as ParshaBackend;
use crate::algo::parsha256::{Parsha256Hasher, ParshaError, ParshaOptions, TreeParams};
use crate::algo::sized::AnyLength;
use crate::algo::{
    blake, blake2, blake3, groestl, jh, keccak, md5, parsha256, sandstorm, sha1, sha2, shake, simd,
    skein, whirlpool,
};
use crate::algo::{VariantInfo, Variants};
use crate::dispatch::Dispatch;
use crate::threads::Threads;
use crate::variant::Variant;

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
    /// One line: the standard it follows and anything a user should know.
    pub note: &'static str,
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
/// enum variant's doc): `Variant(type) "name", "TAG", [aliases], Family, block N[, broken];`.
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

            /// `name` as the algorithm's variant table spells it, if available here.
            pub(crate) fn variant_name(self, name: &str) -> Option<&'static str> {
                match self {
                    $(Algorithm::$variant => <$ty as Variants>::variant_name(name),)*
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

            fn new_dyn_variant(
                self,
                variant: &str,
                threads: Threads,
                params: TreeParams,
            ) -> Option<Box<dyn DynHash>> {
                if self == Algorithm::Parsha256 {
                    let hasher = crate::algo::parsha256::Parsha256::with_variant_on(variant, threads)?;
                    return Some(boxed(hasher.params(params)));
                }
                match self {
                    $(Algorithm::$variant => <$ty as Variants>::with_variant_on(variant, threads).map(boxed),)*
                }
            }

            /// The default variant on `threads` threads (only the tree modes use more than one).
            fn new_dyn_threads(self, threads: Threads) -> Box<dyn DynHash> {
                // Only the tree modes split one message over threads.
                if threads.is_all() || !Hasher::splits_over_threads(self) {
                    return self.new_dyn();
                }
                match self {
                    $(Algorithm::$variant => {
                        let default = <$ty as Variants>::variants()
                            .into_iter()
                            .find(|v| v.default)
                            .map_or("portable", |v| v.name);
                        <$ty as Variants>::with_variant_on(default, threads)
                            .map_or_else(|| boxed(<$ty>::default()), boxed)
                    })*
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
    /// BLAKE3 (the official blake3 crate), as b3sum, on all cores for long messages; an XOF: digests of 1 byte to 1 MiB (-l 8 to 8388608 bits), 256 bits by default
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
}

/// Normalises a user-typed name for matching: lowercase, without `-`, `_`, `/`, `.` or spaces.
fn normalize(name: &str) -> String {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | '/' | ' ' | '.'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// Most names [`Algorithm::suggest`] returns.
const MAX_SUGGESTIONS: usize = 3;

/// How far `wanted` (normalised) is from `candidate` (a name, tag or alias, normalised), and
/// how long a prefix they share.
///
/// Distance is optimal string alignment, so a swap of two adjacent characters counts as one
/// edit: `sha265` is one edit from `sha256` but two from `sha224` (plain Levenshtein ties those).
/// A name typed in part (`sha3`, `blake2`) counts as one edit from each of its completions.
fn nearness(wanted: &str, candidate: &str) -> (usize, std::cmp::Reverse<usize>) {
    let mut distance = strsim::osa_distance(wanted, candidate);
    if wanted.len() >= 2 && candidate.starts_with(wanted) {
        distance = distance.min(1);
    }
    let shared_prefix = wanted
        .chars()
        .zip(candidate.chars())
        .take_while(|(a, b)| a == b)
        .count();
    (distance, std::cmp::Reverse(shared_prefix))
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

    /// Every spelling this algorithm answers to: its name, its tag and its aliases.
    fn spellings(self) -> impl Iterator<Item = &'static str> {
        let info = self.info();
        [info.name, info.tag]
            .into_iter()
            .chain(info.aliases.iter().copied())
    }

    /// Looks an algorithm up by canonical name or alias, ignoring case and separators
    /// (`SHA-256`, `sha_256`, `Sha256` all find `sha256`). The error suggests the closest names
    /// ([`Algorithm::suggest`]).
    pub fn from_name(name: &str) -> Result<Algorithm, Error> {
        let wanted = normalize(name);
        for &alg in Algorithm::ALL {
            if alg.spellings().any(|n| normalize(n) == wanted) {
                return Ok(alg);
            }
        }
        Err(Error::UnknownAlgorithm {
            name: name.to_string(),
            suggestion: Algorithm::suggest(name).first().copied(),
        })
    }

    /// The canonical names closest to a name that is not one (a typo, a partial name, another
    /// tool's spelling): those at the smallest distance found, best first, at most three; empty
    /// when none is close.
    ///
    /// Every name, tag and alias is compared, case and separators ignored: `b2` and `b2sum`
    /// are aliases of `blake2b`, `sha22` suggests `sha224`, `sha3` the SHA-3 algorithms. The
    /// edits allowed grow with the length typed (one per three characters, from one to three),
    /// so a two-letter name is not matched to any other two-letter name. Ties go to the longer
    /// shared prefix (people get the start of a name right more often than its end), then to
    /// registry order.
    ///
    /// ```
    /// use parhash::Algorithm;
    /// assert_eq!(Algorithm::suggest("sha22")[0], "sha224");
    /// assert_eq!(Algorithm::suggest("blake2x")[0], "blake2b");
    /// assert!(Algorithm::suggest("zzzz").is_empty());
    /// ```
    pub fn suggest(name: &str) -> Vec<&'static str> {
        let wanted = normalize(name);
        let max_edits = (wanted.chars().count() / 3).clamp(1, 3);
        let mut near: Vec<_> = Algorithm::ALL
            .iter()
            .enumerate()
            .filter_map(|(order, alg)| {
                let best = alg
                    .spellings()
                    .map(|n| nearness(&wanted, &normalize(n)))
                    .min()?;
                (best.0 <= max_edits).then_some((best, order, alg.name()))
            })
            .collect();
        near.sort();
        // Only the nearest: a name two edits away is noise beside one a single edit away.
        let nearest = near.first().map_or(0, |((distance, _), _, _)| *distance);
        near.into_iter()
            .take_while(|((distance, _), _, _)| *distance == nearest)
            .take(MAX_SUGGESTIONS)
            .map(|(_, _, name)| name)
            .collect()
    }

    /// The digest sizes this algorithm can produce ([`AlgorithmInfo::sizes`]).
    pub fn digest_sizes(self) -> DigestSizes {
        self.info().sizes
    }

    /// The tag of a BSD-style (`--tag`) line for a digest of `size` bytes: the algorithm's tag
    /// at its default size, `TAG-BITS` at another (`BLAKE2b-256`, as `b2sum -l 256 --tag` and
    /// `cksum -a blake2b -l 256` write it; `SHAKE128-512`, `BLAKE3-512`).
    pub fn tag_for_size(self, size: usize) -> std::borrow::Cow<'static, str> {
        let info = self.info();
        if size == info.digest_size || !info.sizes.is_variable() {
            info.tag.into()
        } else {
            format!("{}-{}", info.tag, size * 8).into()
        }
    }

    /// The algorithm a BSD-style tag names and the digest size in bytes it means: `TAG-BITS`
    /// for a variable-length algorithm (`BLAKE2b-256`: 32), the default size for a plain tag
    /// (`BLAKE2b`: 64, as `b2sum -c` reads it); `None` for an unknown tag or a size the
    /// algorithm cannot produce.
    pub fn from_tag(tag: &str) -> Option<(Algorithm, usize)> {
        if let Some(&alg) = Algorithm::ALL.iter().find(|a| a.info().tag == tag) {
            return Some((alg, alg.digest_size()));
        }
        let (base, bits) = tag.rsplit_once('-')?;
        let alg = *Algorithm::ALL
            .iter()
            .find(|a| a.info().tag == base && a.digest_sizes().is_variable())?;
        // Digits only: no sign, no spaces (`str::parse` would take a leading `+`).
        if bits.is_empty() || !bits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let bits: usize = bits.parse().ok()?;
        let size = bits / 8;
        (bits % 8 == 0 && alg.digest_sizes().contains(size)).then_some((alg, size))
    }

    /// Algorithms whose digest has this many bytes (used to infer the algorithm of a check line).
    pub fn with_digest_size(size: usize) -> impl Iterator<Item = Algorithm> {
        Algorithm::ALL
            .iter()
            .copied()
            .filter(move |a| a.digest_size() == size)
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Algorithm {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Algorithm::from_name(s)
    }
}

impl From<sandstorm::parts::Variant> for Algorithm {
    fn from(variant: sandstorm::parts::Variant) -> Algorithm {
        use sandstorm::parts::Variant as V;
        match variant {
            V::Sandstorm224 => Algorithm::Sandstorm224,
            V::Sandstorm256 => Algorithm::Sandstorm256,
            V::Sandstorm384 => Algorithm::Sandstorm384,
            V::Sandstorm512 => Algorithm::Sandstorm512,
            V::Sandstorm224Ref => Algorithm::Sandstorm224Ref,
            V::Sandstorm256Ref => Algorithm::Sandstorm256Ref,
        }
    }
}

impl TryFrom<Algorithm> for sandstorm::parts::Variant {
    type Error = Algorithm;

    /// The SANDstorm variant of `algorithm` (for its split/merge plan); the algorithm back for
    /// any other.
    fn try_from(algorithm: Algorithm) -> Result<Self, Algorithm> {
        sandstorm::parts::Variant::ALL
            .into_iter()
            .find(|&v| Algorithm::from(v) == algorithm)
            .ok_or(algorithm)
    }
}

/// Errors from the registry.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No algorithm has this name; `suggestion` is the closest valid one, if any is close.
    UnknownAlgorithm {
        /// The name given.
        name: String,
        /// The closest valid name, if any is close.
        suggestion: Option<&'static str>,
    },
    /// The algorithm has no variant of this name, or it is not available on this CPU.
    UnavailableVariant {
        /// The algorithm asked for.
        algorithm: Algorithm,
        /// The variant name given.
        variant: String,
        /// The variants this algorithm has on this machine.
        available: Vec<&'static str>,
    },
    /// The message length given to [`HasherBuilder::expected_len`] is over what the algorithm
    /// can hash (PARSHA-256: 2^64 - 1 bits).
    MessageTooLong(u64),
    /// Tree parameters (T, l) were given for an algorithm that has none (only PARSHA-256 has).
    NoTreeParams(Algorithm),
    /// A PARSHA-256 tree height T outside `1..=`[`parsha256::MAX_TREE_HEIGHT`].
    InvalidTreeHeight(u32),
    /// A PARSHA-256 IV length l (bits) other than 0, 128 or 256.
    InvalidIvBits(u32),
    /// A digest size the algorithm cannot produce ([`HasherBuilder::digest_size`]).
    UnsupportedDigestSize {
        /// The algorithm asked for.
        algorithm: Algorithm,
        /// The size asked for, in bytes.
        size: usize,
    },
    /// An output of any length was asked of an algorithm that is not an extendable-output
    /// function ([`Hasher::finalize_xof_into_reset`]).
    NotExtendable(Algorithm),
    /// A hasher told the message length received another number of bytes
    /// ([`HasherBuilder::expected_len`]).
    LengthMismatch {
        /// The length the hasher was built for.
        declared: u64,
        /// The bytes it received (saturating).
        received: u64,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownAlgorithm { name, suggestion } => {
                write!(f, "unknown algorithm '{name}'")?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean '{s}'?")?;
                }
                write!(f, " ('parhash list' shows them all)")
            }
            Error::UnavailableVariant {
                algorithm,
                variant,
                available,
            } => write!(
                f,
                "{algorithm} has no variant '{variant}' on this machine (available: {})",
                available.join(", ")
            ),
            Error::MessageTooLong(len) => {
                write!(f, "a message of {len} bytes is longer than 2^64 - 1 bits")
            }
            Error::NoTreeParams(algorithm) => write!(
                f,
                "{algorithm} has no tree parameters (only parsha256 takes a tree height and IV length)"
            ),
            // The same words as PARSHA-256's own errors.
            Error::InvalidTreeHeight(t) => ParshaError::InvalidTreeHeight(*t).fmt(f),
            Error::InvalidIvBits(l) => ParshaError::InvalidIvBits(*l).fmt(f),
            Error::UnsupportedDigestSize { algorithm, size } => {
                let sizes = algorithm.digest_sizes();
                if sizes.is_variable() {
                    write!(
                        f,
                        "{algorithm} digests are {} to {} bytes, not {size}",
                        sizes.min, sizes.max
                    )
                } else {
                    write!(f, "{algorithm} digests are always {} bytes, not {size}", sizes.max)
                }
            }
            Error::NotExtendable(algorithm) => write!(
                f,
                "{algorithm} is not an extendable-output function (blake3, shake128 and \
                 shake256 are): its digests have a fixed length"
            ),
            Error::LengthMismatch { declared, received } => write!(
                f,
                "the input changed size while being read: expected {declared} bytes, got {received}"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Every PARSHA-256 error has its registry counterpart.
impl From<ParshaError> for Error {
    fn from(e: ParshaError) -> Error {
        match e {
            ParshaError::InvalidTreeHeight(t) => Error::InvalidTreeHeight(t),
            ParshaError::InvalidIvBits(l) => Error::InvalidIvBits(l),
            ParshaError::MessageTooLong(len) => Error::MessageTooLong(len),
            ParshaError::LengthMismatch { declared, received } => {
                Error::LengthMismatch { declared, received }
            }
        }
    }
}

/// A digest value.
///
/// Digests of up to [`Output::INLINE`] bytes (every fixed-length digest, the longest being
/// Skein-1024's 128 bytes) are held inline, without an allocation, so the many small digests
/// of the batch and many-file engines cost a copy each and nothing more. The longer outputs an
/// extendable-output function (BLAKE3, SHAKE) can be asked for, up to [`Output::MAX`] bytes,
/// are held on the heap: a digest that may be a megabyte long cannot be `Copy`, so `Output`
/// is `Clone` (cheap for inline digests).
#[derive(Clone)]
pub struct Output(Stored);

/// Where an [`Output`]'s bytes live.
#[derive(Clone)]
enum Stored {
    Inline {
        bytes: [u8; Output::INLINE],
        len: u8,
    },
    Heap(Box<[u8]>),
}

impl Output {
    /// The longest digest held inline: every fixed-length digest (Skein-1024's 128 bytes).
    pub const INLINE: usize = 128;

    /// The longest digest parhash computes: 1 MiB (8,388,608 bits), for the extendable-output
    /// functions (BLAKE3, SHAKE128, SHAKE256). b3sum and OpenSSL accept any length, but a
    /// digest is printed as one hexadecimal line and the many-file engine holds a window of
    /// them, so the length is bounded where memory stays modest (a 1 MiB digest is a 2 MiB
    /// line). Longer output of an XOF: [`Hasher::finalize_xof_into_reset`], into the caller's
    /// buffer, any length.
    pub const MAX: usize = 1 << 20;

    /// `len` bytes written in place by `finalize` (one copy less than [`Output::from_slice`]).
    fn filled(
        len: usize,
        finalize: impl FnOnce(&mut [u8]) -> Result<(), digest::InvalidBufferSize>,
    ) -> Self {
        if len > Output::INLINE {
            let mut bytes = vec![0; len].into_boxed_slice();
            finalize(&mut bytes).expect("buffer sized from output_size");
            return Output(Stored::Heap(bytes));
        }
        let mut bytes = [0; Output::INLINE];
        finalize(&mut bytes[..len]).expect("buffer sized from output_size");
        Output(Stored::Inline {
            bytes,
            len: len as u8,
        })
    }

    /// Wraps digest bytes (of any length: inline up to [`Output::INLINE`], on the heap above).
    pub fn from_slice(bytes: &[u8]) -> Self {
        Output::filled(bytes.len(), |out| {
            out.copy_from_slice(bytes);
            Ok(())
        })
    }

    /// The digest bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Stored::Inline { bytes, len } => &bytes[..*len as usize],
            Stored::Heap(bytes) => bytes,
        }
    }

    /// The digest's length in bytes.
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether the digest has no bytes (only an empty [`Output::from_slice`]).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lowercase hexadecimal.
    pub fn to_hex(&self) -> String {
        format!("{self:x}")
    }
}

// Equality and hashing by the bytes, whatever their storage.
impl PartialEq for Output {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Output {}

impl std::hash::Hash for Output {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl AsRef<[u8]> for Output {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::LowerHex for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A piece at a time: one `write!` per byte is slow for a megabyte-long XOF output.
        let mut text = [0u8; 256];
        for piece in self.as_bytes().chunks(text.len() / 2) {
            let text = &mut text[..2 * piece.len()];
            hex::encode_to_slice(piece, text).expect("twice the bytes");
            f.write_str(std::str::from_utf8(text).expect("hexadecimal digits are ASCII"))?;
        }
        Ok(())
    }
}

impl fmt::Debug for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Output({self:x})")
    }
}

impl fmt::Display for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(self, f)
    }
}

/// A streaming hasher for an algorithm chosen at run time.
///
/// ```
/// use parhash::{Algorithm, Hasher};
/// let mut h = Hasher::new(Algorithm::Md5);
/// h.update(b"a");
/// h.update(b"bc");
/// assert_eq!(h.finalize().to_hex(), "900150983cd24fb0d6963f7d28e17f72");
/// ```
pub struct Hasher {
    algorithm: Algorithm,
    inner: Inner,
}

/// What a [`Hasher`] runs.
enum Inner {
    /// Any algorithm through its `digest` type (but the extendable-output functions).
    Digest(Box<dyn DynHash>),
    /// An extendable-output function, read for `len` bytes by [`Hasher::finalize`] and for
    /// any number by [`Hasher::finalize_xof_into_reset`].
    Xof { hash: Box<dyn DynXof>, len: usize },
    /// PARSHA-256 told the message length up front: streamed, not buffered.
    Parsha(ParshaStream),
}

/// PARSHA-256 of a message of known length, hashed as it arrives (the `digest` type must buffer
/// the whole message, since it learns the length only at the end).
struct ParshaStream {
    declared: u64,
    params: TreeParams,
    options: ParshaOptions,
    hasher: Parsha256Hasher,
}

impl ParshaStream {
    fn new(declared: u64, params: TreeParams, options: ParshaOptions) -> Result<Self, Error> {
        let hasher =
            Parsha256Hasher::new(declared, params.tree_height(), params.iv_bits(), &options)
                .map_err(Error::from)?;
        Ok(ParshaStream {
            declared,
            params,
            options,
            hasher,
        })
    }

    /// A fresh stream for the same length, parameters and options.
    fn fresh(&self) -> Self {
        ParshaStream::new(self.declared, self.params, self.options)
            .expect("these parameters built a stream before")
    }

    /// The digest.
    fn finish(self) -> Result<Output, Error> {
        let (_, digest) = self.hasher.finalize()?;
        Ok(Output::from_slice(&digest))
    }
}

/// Builds a [`Hasher`] with everything a caller may choose besides the algorithm: threads,
/// implementation variant, tree parameters, the message length when it is known. Every
/// algorithm goes through it alike; options an algorithm does not use are ignored, except
/// tree parameters, which only PARSHA-256 accepts.
///
/// ```
/// use parhash::{Algorithm, Hasher, TreeParams};
/// let mut h = Hasher::builder(Algorithm::Parsha256)
///     .threads(2)
///     .tree_params(TreeParams::new(10, 0).unwrap())
///     .expected_len(3)
///     .build()
///     .unwrap();
/// h.update(b"abc");
/// assert_eq!(h.try_finalize().unwrap().as_bytes().len(), 32);
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct HasherBuilder {
    algorithm: Algorithm,
    threads: Threads,
    variant: Option<Variant>,
    tree_params: Option<TreeParams>,
    expected_len: Option<u64>,
    digest_size: Option<usize>,
}

impl HasherBuilder {
    /// A digest of `size` bytes, for the algorithms whose length can be chosen
    /// ([`Algorithm::digest_sizes`]: BLAKE2b and BLAKE2s up to 64 and 32 bytes, BLAKE3,
    /// SHAKE128 and SHAKE256 up to [`Output::MAX`], 1 MiB). BLAKE2's length is a parameter of
    /// the hash (BLAKE2b-256 is not BLAKE2b-512 cut short); an extendable-output function's
    /// shorter digests are prefixes of its longer ones (and any length can be read with
    /// [`Hasher::finalize_xof_into_reset`]). Any other algorithm accepts only its own size.
    ///
    /// ```
    /// use parhash::{Algorithm, Hasher};
    /// let mut h = Hasher::builder(Algorithm::Blake2b).digest_size(32).build().unwrap();
    /// h.update(b"abc");
    /// assert_eq!(
    ///     h.finalize().to_hex(),
    ///     "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319"
    /// );
    /// ```
    pub fn digest_size(mut self, size: usize) -> Self {
        self.digest_size = Some(size);
        self
    }

    /// Up to `threads` threads for one long message (default: all cores; `0` = all cores).
    /// Only the tree modes (SANDstorm, PARSHA-256, BLAKE3) use more than one; the digest never depends
    /// on it.
    pub fn threads(mut self, threads: impl Into<Threads>) -> Self {
        self.threads = threads.into();
        self
    }

    /// One implementation variant ([`Algorithm::variant`]) instead of the fastest. A variant of
    /// another algorithm makes [`HasherBuilder::build`] fail.
    pub fn variant(mut self, variant: Variant) -> Self {
        self.variant = Some(variant);
        self
    }

    /// PARSHA-256's tree height and IV length (default T = 13, l = 256).
    pub fn tree_params(mut self, params: TreeParams) -> Self {
        self.tree_params = Some(params);
        self
    }

    /// The total length of the message, when known (a file's size). PARSHA-256 then hashes as
    /// the data arrives instead of keeping it all in memory, and [`Hasher::try_finalize`]
    /// fails if another number of bytes arrived (a file that changed while being read). Other
    /// algorithms do not need it and ignore it.
    pub fn expected_len(mut self, len: u64) -> Self {
        self.expected_len = Some(len);
        self
    }

    /// The algorithm the hasher will compute.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The threads the hasher may use (set by [`HasherBuilder::threads`]).
    pub fn threads_allowed(&self) -> Threads {
        self.threads
    }

    /// Whether the batch engine's lanes compute what this builder's hasher would, so that a
    /// caller may hash small messages there instead: no forced variant, no tree parameters, the
    /// default digest size.
    pub(crate) fn lanes_agree(&self) -> bool {
        self.variant.is_none()
            && self.tree_params.is_none()
            && self
                .digest_size
                .is_none_or(|size| size == self.algorithm.digest_size())
    }

    /// The hasher.
    ///
    /// # Errors
    /// [`Error::UnavailableVariant`] for a variant this algorithm or CPU does not have;
    /// [`Error::NoTreeParams`] for tree parameters on an algorithm other than PARSHA-256;
    /// [`Error::MessageTooLong`] for a PARSHA-256 length over 2^64 - 1 bits;
    /// [`Error::UnsupportedDigestSize`] for a digest size the algorithm cannot produce.
    pub fn build(self) -> Result<Hasher, Error> {
        let algorithm = self.algorithm;
        let is_parsha = algorithm == Algorithm::Parsha256;
        if self.tree_params.is_some() && !is_parsha {
            return Err(Error::NoTreeParams(algorithm));
        }
        if let Some(size) = self.digest_size {
            if !algorithm.digest_sizes().contains(size) {
                return Err(Error::UnsupportedDigestSize { algorithm, size });
            }
        }
        if algorithm.is_extendable() {
            return self.build_xof();
        }
        if let Some(size) = self.digest_size.filter(|&s| s != algorithm.digest_size()) {
            return self.build_sized(size);
        }
        self.check_variant()?;
        let params = self.tree_params.unwrap_or_default();
        let variant = self.variant.map(Variant::name);
        let unavailable = || Error::UnavailableVariant {
            algorithm,
            variant: variant.unwrap_or_default().to_string(),
            available: algorithm
                .variants()
                .into_iter()
                .filter(|v| v.available)
                .map(|v| v.name)
                .collect(),
        };
        // PARSHA-256's form from its backend table: `None` = the literal reference, else the
        // streaming engine's kernel (`None` = its own choice).
        let parsha_kernel = match variant {
            Some(name) if is_parsha => ParshaBackend::by_name(name)
                .ok_or_else(unavailable)?
                .kernel(),
            _ => Some(None),
        };
        let inner = match (variant, self.expected_len) {
            // The streaming engine has every variant but the literal reference.
            (_, Some(len)) if is_parsha && parsha_kernel.is_some() => {
                let kernel = parsha_kernel.flatten();
                let options = ParshaOptions {
                    threads: self.threads,
                    kernel,
                };
                Inner::Parsha(ParshaStream::new(len, params, options)?)
            }
            (None, _) if is_parsha => Inner::Digest(boxed(
                crate::algo::parsha256::Parsha256::with_params(params, self.threads),
            )),
            (None, _) => Inner::Digest(algorithm.new_dyn_threads(self.threads)),
            (Some(name), _) => Inner::Digest(
                algorithm
                    .new_dyn_variant(name, self.threads, params)
                    .ok_or_else(unavailable)?,
            ),
        };
        Ok(Hasher { algorithm, inner })
    }
}

impl HasherBuilder {
    /// The digest length in bytes the hasher will produce.
    pub(crate) fn output_len(&self) -> usize {
        self.digest_size
            .unwrap_or_else(|| self.algorithm.digest_size())
    }

    /// A variant is checked when it is made ([`Algorithm::variant`]); one of another
    /// algorithm is refused as a name this algorithm does not have.
    fn check_variant(&self) -> Result<(), Error> {
        let algorithm = self.algorithm;
        match self.variant {
            Some(variant) if variant.algorithm() != algorithm => Err(Error::UnavailableVariant {
                algorithm,
                variant: variant.name().to_string(),
                available: algorithm.available_variants().map(Variant::name).collect(),
            }),
            _ => Ok(()),
        }
    }

    /// A hasher for a digest size other than the algorithm's default (already checked).
    fn build_sized(self, size: usize) -> Result<Hasher, Error> {
        self.check_variant()?;
        let inner = self
            .algorithm
            .new_dyn_sized(size)
            .expect("every algorithm with several sizes has a sized constructor");
        Ok(Hasher {
            algorithm: self.algorithm,
            inner: Inner::Digest(inner),
        })
    }

    /// An extendable-output function's hasher, at any length (already checked).
    fn build_xof(self) -> Result<Hasher, Error> {
        self.check_variant()?;
        Ok(Hasher::xof(self.algorithm, self.threads, self.output_len())
            .expect("called for extendable-output functions"))
    }
}

impl Hasher {
    /// A hasher using the fastest implementation available on this CPU, on all cores where
    /// the algorithm splits one message over threads.
    pub fn new(algorithm: Algorithm) -> Self {
        Hasher::xof(algorithm, Threads::ALL, algorithm.digest_size()).unwrap_or(Hasher {
            algorithm,
            inner: Inner::Digest(algorithm.new_dyn()),
        })
    }

    /// An extendable-output function's hasher read for `len` bytes (`None` for the other
    /// algorithms).
    fn xof(algorithm: Algorithm, threads: Threads, len: usize) -> Option<Hasher> {
        let hash = algorithm.new_dyn_xof(threads)?;
        Some(Hasher {
            algorithm,
            inner: Inner::Xof { hash, len },
        })
    }

    /// A builder for a hasher with threads, a variant, tree parameters or a known length.
    pub fn builder(algorithm: Algorithm) -> HasherBuilder {
        HasherBuilder {
            algorithm,
            threads: Threads::ALL,
            variant: None,
            tree_params: None,
            expected_len: None,
            digest_size: None,
        }
    }

    /// A hasher that may use up to `threads` threads for one long message (0 = all cores).
    ///
    /// Only algorithms with a parallel tree mode (SANDstorm, PARSHA-256, BLAKE3) use more than one thread; every
    /// other algorithm gets the same hasher as [`Hasher::new`]. The digest never depends on
    /// `threads`. Feed such a hasher large pieces (a few MiB per `update`) so each thread gets
    /// whole superblocks.
    pub fn with_threads(algorithm: Algorithm, threads: impl Into<Threads>) -> Self {
        let threads = threads.into();
        Hasher::xof(algorithm, threads, algorithm.digest_size()).unwrap_or_else(|| Hasher {
            algorithm,
            inner: Inner::Digest(algorithm.new_dyn_threads(threads)),
        })
    }

    /// Whether [`Hasher::with_threads`] can spread one message over several threads.
    pub fn splits_over_threads(algorithm: Algorithm) -> bool {
        matches!(
            algorithm.info().family,
            Family::Sandstorm | Family::Parsha | Family::Blake3
        )
    }

    /// A hasher forced onto one implementation variant ([`Algorithm::variant`]).
    pub fn with_variant(variant: Variant) -> Self {
        Hasher::builder(variant.algorithm())
            .variant(variant)
            .build()
            .expect("a Variant is available by construction")
    }

    /// A copy of this hasher's state, to be fed and finalized independently (the Python
    /// binding's `copy()` and non-consuming `digest()`). `None` for PARSHA-256 built for a
    /// message length ([`HasherBuilder::expected_len`]): its streaming engine runs part of the
    /// tree as data arrives and cannot be duplicated.
    pub fn try_clone(&self) -> Option<Hasher> {
        match &self.inner {
            Inner::Digest(inner) => Some(Hasher {
                algorithm: self.algorithm,
                inner: Inner::Digest(inner.clone_hash()),
            }),
            Inner::Xof { hash, len } => Some(Hasher {
                algorithm: self.algorithm,
                inner: Inner::Xof {
                    hash: hash.clone_xof(),
                    len: *len,
                },
            }),
            Inner::Parsha(_) => None,
        }
    }

    /// The algorithm this hasher computes.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// Feeds more data; may be called any number of times.
    pub fn update(&mut self, data: &[u8]) {
        match &mut self.inner {
            Inner::Digest(inner) => inner.update(data),
            Inner::Xof { hash, .. } => hash.update(data),
            Inner::Parsha(stream) => stream.hasher.update(data),
        }
    }

    /// Returns the digest of everything fed so far and consumes the hasher.
    ///
    /// # Panics
    /// If the hasher was built for a message length ([`HasherBuilder::expected_len`]) and
    /// received another number of bytes: use [`Hasher::try_finalize`] there.
    pub fn finalize(self) -> Output {
        self.try_finalize()
            .unwrap_or_else(|e| panic!("Hasher::finalize: {e}"))
    }

    /// Returns the digest of everything fed so far and consumes the hasher.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if the hasher was built for a message length and received
    /// another number of bytes.
    pub fn try_finalize(self) -> Result<Output, Error> {
        match self.inner {
            // No fresh stream to build for a hasher that is done.
            Inner::Parsha(stream) => stream.finish(),
            Inner::Digest(mut inner) => Ok(Output::filled(inner.output_size(), |out| {
                inner.finalize_into_reset(out)
            })),
            Inner::Xof { mut hash, len } => Ok(Output::filled(len, |out| {
                hash.fill_reset(out);
                Ok(())
            })),
        }
    }

    /// Returns the digest of everything fed so far and starts over.
    ///
    /// # Panics
    /// As [`Hasher::finalize`].
    pub fn finalize_reset(&mut self) -> Output {
        self.try_finalize_reset()
            .unwrap_or_else(|e| panic!("Hasher::finalize: {e}"))
    }

    /// Returns the digest of everything fed so far and starts over.
    ///
    /// # Errors
    /// As [`Hasher::try_finalize`].
    pub fn try_finalize_reset(&mut self) -> Result<Output, Error> {
        match &mut self.inner {
            Inner::Digest(inner) => Ok(Output::filled(inner.output_size(), |out| {
                inner.finalize_into_reset(out)
            })),
            Inner::Xof { hash, len } => Ok(Output::filled(*len, |out| {
                hash.fill_reset(out);
                Ok(())
            })),
            Inner::Parsha(stream) => {
                let fresh = stream.fresh();
                std::mem::replace(stream, fresh).finish()
            }
        }
    }

    /// Writes the first `out.len()` bytes of an extendable-output function's output for
    /// everything fed so far, and starts over: any length, not bounded by [`Output::MAX`],
    /// into memory the caller owns (hashlib's `shake_128().digest(length)`). The length the
    /// hasher was built for ([`HasherBuilder::digest_size`]) does not matter here: every
    /// length is a prefix of the same output.
    ///
    /// ```
    /// use parhash::{Algorithm, Hasher};
    /// let mut h = Hasher::new(Algorithm::Shake128);
    /// h.update(b"abc");
    /// let mut long = vec![0; 2_000_000];
    /// h.finalize_xof_into_reset(&mut long).unwrap();
    /// h.update(b"abc");
    /// assert_eq!(h.finalize().as_bytes(), &long[..32]);
    /// ```
    ///
    /// # Errors
    /// [`Error::NotExtendable`] for an algorithm that is not an extendable-output function
    /// ([`Algorithm::is_extendable`]); nothing is written and the hasher keeps its state.
    pub fn finalize_xof_into_reset(&mut self, out: &mut [u8]) -> Result<(), Error> {
        match &mut self.inner {
            Inner::Xof { hash, .. } => {
                hash.fill_reset(out);
                Ok(())
            }
            Inner::Digest(_) | Inner::Parsha(_) => Err(Error::NotExtendable(self.algorithm)),
        }
    }

    /// Forgets everything fed so far.
    pub fn reset(&mut self) {
        match &mut self.inner {
            Inner::Digest(inner) => inner.reset(),
            Inner::Xof { hash, .. } => hash.reset(),
            Inner::Parsha(stream) => *stream = stream.fresh(),
        }
    }
}

impl fmt::Debug for Hasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hasher({})", self.algorithm)
    }
}

impl std::io::Write for Hasher {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Hashes `data` in one call with the fastest implementation available.
pub fn hash(algorithm: Algorithm, data: &[u8]) -> Output {
    algorithm.hash_one_shot(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_shot_hash_equals_the_streaming_hasher_for_every_algorithm() {
        let data: Vec<u8> = (0..3000u32).map(|i| (i * 7 % 256) as u8).collect();
        for &alg in Algorithm::ALL {
            for len in [0, 1, 55, 64, 200, 3000] {
                let mut h = Hasher::new(alg);
                for piece in data[..len].chunks(97) {
                    h.update(piece);
                }
                let one_shot = hash(alg, &data[..len]);
                assert_eq!(one_shot, h.finalize(), "{alg}, {len} bytes");
                assert_eq!(one_shot.as_bytes().len(), alg.info().digest_size);
            }
        }
    }

    #[test]
    fn a_cloned_hasher_goes_on_independently() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 13 % 256) as u8).collect();
        for &alg in Algorithm::ALL {
            let mut original = Hasher::new(alg);
            original.update(&data[..1234]);
            let mut copy = original.try_clone().expect("a digest-type hasher clones");
            copy.update(&data[1234..]);
            original.update(b"other");
            assert_eq!(copy.finalize(), hash(alg, &data), "{alg}: the copy");
            let mut other = data[..1234].to_vec();
            other.extend_from_slice(b"other");
            assert_eq!(
                original.finalize(),
                hash(alg, &other),
                "{alg}: the original"
            );
        }
        let stream = Hasher::builder(Algorithm::Parsha256)
            .expected_len(10)
            .build()
            .unwrap();
        assert!(stream.try_clone().is_none());
    }

    #[test]
    fn names_are_unique_after_normalisation() {
        let mut seen = std::collections::HashMap::new();
        for &alg in Algorithm::ALL {
            let info = alg.info();
            let mut names = vec![info.name, info.tag];
            names.extend(info.aliases);
            for n in names {
                if let Some(other) = seen.insert(normalize(n), alg) {
                    assert_eq!(other, alg, "{n} names both {other} and {alg}");
                }
            }
            assert_eq!(Algorithm::from_name(info.name), Ok(alg));
            assert_eq!(info.name, info.name.to_ascii_lowercase());
            assert!(info.digest_size <= Output::INLINE);
        }
    }

    #[test]
    fn forgiving_lookup_and_suggestion() {
        assert_eq!(Algorithm::from_name("MD-5"), Ok(Algorithm::Md5));
        assert_eq!(Algorithm::from_name("md_5"), Ok(Algorithm::Md5));
        match Algorithm::from_name("mdd5") {
            Err(Error::UnknownAlgorithm { suggestion, .. }) => assert_eq!(suggestion, Some("md5")),
            other => panic!("{other:?}"),
        }
        match Algorithm::from_name("zzzzzzzzzzzz") {
            Err(Error::UnknownAlgorithm { suggestion, .. }) => assert_eq!(suggestion, None),
            other => panic!("{other:?}"),
        }
    }

    fn suggestion_for(typo: &str) -> Option<&'static str> {
        match Algorithm::from_name(typo) {
            Err(Error::UnknownAlgorithm { suggestion, .. }) => suggestion,
            other => panic!("{typo}: {other:?}"),
        }
    }

    #[test]
    fn swapped_characters_count_as_one_edit() {
        // The first four tie under plain Levenshtein, where registry order picked a wrong name
        // (sha224, sha224, sha3-224, sha1); the rest are ordinary typos.
        for (typo, meant) in [
            ("sha265", "sha256"),
            ("SHA-265", "sha256"),
            ("sha3-265", "sha3-256"),
            ("sha521", "sha512"),
            ("sah384", "sha384"),
            ("kecakc256", "keccak256"),
            ("whirlpol", "whirlpool"),
            ("mdd5", "md5"),
        ] {
            assert_eq!(suggestion_for(typo), Some(meant), "{typo}");
        }
    }

    #[test]
    fn ties_go_to_the_longer_shared_prefix_then_registry_order() {
        // One edit from sha1 and from sha512; sha512 shares `sha5` (registry order says sha1).
        assert_eq!(suggestion_for("sha51"), Some("sha512"));
        // One edit from sha224 and from sha256; sha224 shares `sha22`.
        assert_eq!(suggestion_for("sha226"), Some("sha224"));
        // One edit from sha224 and from sha3-224, both sharing `sha`: the first listed wins.
        assert_eq!(suggestion_for("sha1224"), Some("sha224"));
    }

    #[test]
    fn suggestions_search_names_tags_and_aliases() {
        // Other tools' names are aliases; near misses and partial names are suggested.
        assert_eq!(Algorithm::from_name("b2"), Ok(Algorithm::Blake2b));
        assert_eq!(Algorithm::from_name("b3sum"), Ok(Algorithm::Blake3));
        // `sha2` is an alias of sha256, one edit from `sha22` too.
        assert_eq!(Algorithm::suggest("sha22"), ["sha224", "sha256"]);
        // Every completion of `sha3` (sha384 is one too), in registry order.
        assert_eq!(
            Algorithm::suggest("sha3"),
            ["sha384", "sha3-224", "sha3-256"]
        );
        assert_eq!(Algorithm::suggest("blake2x"), ["blake2b", "blake2s"]);
        assert_eq!(Algorithm::suggest("shake"), ["shake128", "shake256"]);
        assert_eq!(suggestion_for("b2sm"), Some("blake2b"));
        // Two letters allow one edit: `b4` is near `b2` and `b3`, `xy` near nothing.
        assert_eq!(Algorithm::suggest("b4"), ["blake2b", "blake3"]);
        assert!(Algorithm::suggest("xy").is_empty());
        assert!(Algorithm::suggest("").is_empty());
        let message = Algorithm::from_name("sha22").unwrap_err().to_string();
        assert!(message.contains("did you mean 'sha224'?"), "{message}");
    }

    #[test]
    fn digest_sizes_through_the_builder() {
        let data = b"abc";
        for &alg in Algorithm::ALL {
            let sizes = alg.digest_sizes();
            assert!(sizes.contains(alg.digest_size()), "{alg}");
            assert!(sizes.max <= Output::MAX, "{alg}");
            for size in [sizes.min, alg.digest_size(), sizes.max] {
                let mut h = Hasher::builder(alg).digest_size(size).build().unwrap();
                h.update(data);
                let digest = h.finalize_reset();
                assert_eq!(digest.as_bytes().len(), size, "{alg} at {size} bytes");
                h.update(data);
                assert_eq!(h.finalize(), digest, "{alg} at {size} bytes after a reset");
            }
            for size in [0, sizes.max + 1] {
                assert_eq!(
                    Hasher::builder(alg).digest_size(size).build().map(|_| ()),
                    Err(Error::UnsupportedDigestSize {
                        algorithm: alg,
                        size
                    })
                );
            }
        }
        // BLAKE2's length is a parameter: BLAKE2b-256 is not BLAKE2b-512 cut short; an XOF's
        // short output is a prefix of its long one.
        let sized = |alg, size| {
            let mut h = Hasher::builder(alg).digest_size(size).build().unwrap();
            h.update(data);
            h.finalize()
        };
        let b2 = hash(Algorithm::Blake2b, data);
        assert_ne!(
            sized(Algorithm::Blake2b, 32).as_bytes(),
            &b2.as_bytes()[..32]
        );
        for alg in [Algorithm::Shake128, Algorithm::Shake256, Algorithm::Blake3] {
            let long = sized(alg, 5000);
            for short in [20, 128, 129, 4999] {
                let prefix = &long.as_bytes()[..short];
                assert_eq!(sized(alg, short).as_bytes(), prefix, "{alg}, {short}");
            }
        }
        assert_eq!(
            Error::UnsupportedDigestSize {
                algorithm: Algorithm::Blake2s,
                size: 33
            }
            .to_string(),
            "blake2s digests are 1 to 32 bytes, not 33"
        );
    }

    #[test]
    fn an_output_stays_about_the_size_of_its_inline_bytes() {
        // The batch and many-file engines move one per message: the heap case must not make
        // the common one bigger than the bytes, their length and the variant's tag.
        assert!(std::mem::size_of::<Output>() <= Output::INLINE + 8);
    }

    #[test]
    fn long_outputs_compare_and_print_by_their_bytes() {
        for len in [0, 1, Output::INLINE, Output::INLINE + 1, 1000] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 % 256) as u8).collect();
            let digest = Output::from_slice(&bytes);
            assert_eq!(digest.as_bytes(), bytes, "{len} bytes");
            assert_eq!(digest.len(), len);
            assert_eq!(digest.to_hex(), hex::encode(&bytes), "{len} bytes");
            assert_eq!(digest.clone(), digest);
            let mut other = bytes.clone();
            if let Some(last) = other.last_mut() {
                *last ^= 1;
                assert_ne!(Output::from_slice(&other), digest, "{len} bytes");
            }
        }
        // Equal bytes are equal digests and hash alike, however they were made.
        let mut h = Hasher::builder(Algorithm::Blake3)
            .digest_size(200)
            .build()
            .unwrap();
        h.update(b"abc");
        let made = h.finalize();
        let wrapped = Output::from_slice(made.as_bytes());
        assert_eq!(made, wrapped);
        let set: std::collections::HashSet<Output> = [made, wrapped].into_iter().collect();
        assert_eq!(set.len(), 1);
    }

    #[test]
    fn extendable_output_of_any_length_into_the_callers_buffer() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let extendable: Vec<Algorithm> = Algorithm::ALL
            .iter()
            .copied()
            .filter(|a| a.is_extendable())
            .collect();
        assert_eq!(
            extendable,
            [Algorithm::Blake3, Algorithm::Shake128, Algorithm::Shake256]
        );
        for &alg in &extendable {
            assert_eq!(alg.digest_sizes().max, Output::MAX, "{alg}");
            // Past Output::MAX: only through a buffer of the caller's.
            let mut long = vec![0; Output::MAX + 4096];
            let mut h = Hasher::with_threads(alg, 2);
            h.update(&data);
            h.finalize_xof_into_reset(&mut long).unwrap();
            for size in [alg.digest_size(), 129, 1000, Output::MAX] {
                let mut sized = Hasher::builder(alg).digest_size(size).build().unwrap();
                sized.update(&data);
                // A copy reads the same bytes, at another length than the hasher's own.
                let mut copy = sized.try_clone().unwrap();
                let mut short = vec![0; 77];
                copy.finalize_xof_into_reset(&mut short).unwrap();
                assert_eq!(short, long[..77], "{alg}: a copy of the {size}-byte hasher");
                assert_eq!(sized.finalize().as_bytes(), &long[..size], "{alg}, {size}");
            }
            // The hasher started over.
            h.update(&data);
            assert_eq!(hash(alg, &data).as_bytes(), &long[..alg.digest_size()]);
        }
        // BLAKE3 against the official crate, far past one output block.
        let mut expected = vec![0; 300_000];
        ::blake3::Hasher::new()
            .update(&data)
            .finalize_xof()
            .fill(&mut expected);
        let mut got = vec![0; expected.len()];
        let mut h = Hasher::new(Algorithm::Blake3);
        h.update(&data);
        h.finalize_xof_into_reset(&mut got).unwrap();
        assert!(got == expected, "BLAKE3's 300000-byte output");
        // A fixed-length algorithm refuses and keeps what it was fed.
        let mut h = Hasher::new(Algorithm::Sha256);
        h.update(&data);
        assert_eq!(
            h.finalize_xof_into_reset(&mut [0; 40]),
            Err(Error::NotExtendable(Algorithm::Sha256))
        );
        assert_eq!(h.finalize(), hash(Algorithm::Sha256, &data));
        let blake2 = Hasher::builder(Algorithm::Blake2b).digest_size(20).build();
        assert!(matches!(
            blake2.unwrap().finalize_xof_into_reset(&mut [0; 20]),
            Err(Error::NotExtendable(Algorithm::Blake2b))
        ));
    }

    #[test]
    fn tree_parameters_are_refused_at_any_digest_size() {
        for (alg, size) in [(Algorithm::Blake2b, 32), (Algorithm::Shake128, 500)] {
            assert_eq!(
                Hasher::builder(alg)
                    .digest_size(size)
                    .tree_params(TreeParams::DEFAULT)
                    .build()
                    .map(|_| ()),
                Err(Error::NoTreeParams(alg))
            );
        }
    }

    #[test]
    fn tags_name_the_size_where_it_is_not_the_default() {
        assert_eq!(Algorithm::Blake2b.tag_for_size(64), "BLAKE2b");
        assert_eq!(Algorithm::Blake2b.tag_for_size(32), "BLAKE2b-256");
        assert_eq!(Algorithm::Shake128.tag_for_size(64), "SHAKE128-512");
        assert_eq!(Algorithm::Sha512_256.tag_for_size(32), "SHA512-256");
        for &alg in Algorithm::ALL {
            let sizes = alg.digest_sizes();
            for size in [sizes.min, alg.digest_size(), sizes.max] {
                let tag = alg.tag_for_size(size);
                assert_eq!(Algorithm::from_tag(&tag), Some((alg, size)), "{tag}");
            }
        }
        for bad in [
            "BLAKE2b-0",
            "BLAKE2b-520",
            "BLAKE2b-255",
            "BLAKE2b-+256",
            "BLAKE2b-",
            "SHA256-128",
            "blake2b-256",
        ] {
            assert_eq!(Algorithm::from_tag(bad), None, "{bad}");
        }
    }

    #[test]
    fn threaded_hashers_agree_with_default() {
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        for &alg in Algorithm::ALL {
            let expected = hash(alg, &data);
            for threads in [1, 2, 3] {
                let mut h = Hasher::with_threads(alg, threads);
                for piece in data.chunks(70_001) {
                    h.update(piece);
                }
                assert_eq!(h.finalize(), expected, "{alg} with {threads} threads");
            }
        }
    }

    #[test]
    fn the_builder_gives_every_algorithm_the_default_digest() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 253) as u8).collect();
        for &alg in Algorithm::ALL {
            let expected = hash(alg, &data);
            for threads in [Threads::ONE, Threads::new(2), Threads::ALL] {
                for len in [None, Some(data.len() as u64)] {
                    let mut builder = Hasher::builder(alg).threads(threads);
                    if let Some(len) = len {
                        builder = builder.expected_len(len);
                    }
                    let mut h = builder.build().unwrap();
                    for piece in data.chunks(65_537) {
                        h.update(piece);
                    }
                    let got = h.try_finalize_reset().unwrap();
                    assert_eq!(got, expected, "{alg}, {threads:?}, length {len:?}");
                    // The hasher starts over: the same message gives the same digest.
                    h.update(&data);
                    assert_eq!(h.try_finalize().unwrap(), expected, "{alg} after reset");
                }
            }
        }
    }

    #[test]
    fn parsha_through_the_builder_takes_its_parameters_and_checks_the_length() {
        use crate::algo::parsha256::parsha256;
        let data: Vec<u8> = (0..50_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for (t, l) in [(1, 0), (5, 128), (13, 256), (20, 0)] {
            let params = TreeParams::new(t, l).unwrap();
            let expected = parsha256(&data, t, l).unwrap().1;
            for len in [None, Some(data.len() as u64)] {
                for variant in [None, Some("reference"), Some("parallel-portable")] {
                    let mut builder = Hasher::builder(Algorithm::Parsha256)
                        .tree_params(params)
                        .threads(2);
                    if let Some(len) = len {
                        builder = builder.expected_len(len);
                    }
                    if let Some(v) = variant {
                        builder = builder.variant(Algorithm::Parsha256.variant(v).unwrap());
                    }
                    let mut h = builder.build().unwrap();
                    h.update(&data);
                    assert_eq!(
                        h.try_finalize().unwrap().as_bytes(),
                        expected,
                        "T {t}, l {l}, {len:?}, {variant:?}"
                    );
                }
            }
        }
        // A message that is not the length announced is an error, not a wrong digest.
        for got in [0, 49_999, 50_001] {
            let mut h = Hasher::builder(Algorithm::Parsha256)
                .expected_len(50_000)
                .build()
                .unwrap();
            h.update(&data[..got.min(data.len())]);
            if got > data.len() {
                h.update(b"x");
            }
            assert_eq!(
                h.try_finalize(),
                Err(Error::LengthMismatch {
                    declared: 50_000,
                    received: got as u64
                })
            );
        }
        assert_eq!(
            Hasher::builder(Algorithm::Parsha256)
                .expected_len(u64::MAX)
                .build()
                .map(|_| ()),
            Err(Error::MessageTooLong(u64::MAX))
        );
        assert_eq!(
            Hasher::builder(Algorithm::Sha256)
                .tree_params(TreeParams::DEFAULT)
                .build()
                .map(|_| ()),
            Err(Error::NoTreeParams(Algorithm::Sha256))
        );
        assert!(matches!(
            Algorithm::Parsha256.variant("no-such"),
            Err(Error::UnavailableVariant { .. })
        ));
        // A variant of another algorithm is refused by the builder.
        assert!(matches!(
            Hasher::builder(Algorithm::Parsha256)
                .variant(Algorithm::Sha256.variant("sequential").unwrap())
                .expected_len(3)
                .build(),
            Err(Error::UnavailableVariant { .. })
        ));
    }

    #[test]
    fn tree_params_tags_round_trip() {
        assert_eq!(TreeParams::DEFAULT.tag(), "PARSHA256-T13-IV256");
        for (t, l) in [(1, 0), (13, 128), (40, 256)] {
            let p = TreeParams::new(t, l).unwrap();
            assert_eq!(TreeParams::from_tag(&p.tag()), Some(p));
        }
        for bad in [
            "PARSHA256-T0-IV256",
            "PARSHA256-T13-IV64",
            "PARSHA256-T41-IV0",
            "SHA256",
            "PARSHA256-T+1-IV0",
        ] {
            assert_eq!(TreeParams::from_tag(bad), None, "{bad}");
        }
    }

    #[test]
    fn sandstorm_part_variants_name_their_algorithms() {
        use crate::algo::sandstorm::parts::Variant;
        for v in Variant::ALL {
            let alg = Algorithm::from(v);
            assert_eq!(alg.name(), v.name());
            assert_eq!(Variant::try_from(alg), Ok(v));
        }
        let by_alias: Result<Variant, _> =
            Algorithm::from_name("SANDstorm-256").unwrap().try_into();
        assert_eq!(by_alias, Ok(Variant::Sandstorm256));
        assert_eq!(Variant::try_from(Algorithm::Sha256), Err(Algorithm::Sha256));
    }

    #[test]
    fn every_variant_agrees_with_default() {
        let data: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8).collect();
        for &alg in Algorithm::ALL {
            let expected = hash(alg, &data);
            let variants = alg.variants();
            assert_eq!(variants.iter().filter(|v| v.default).count(), 1, "{alg}");
            for v in variants {
                match alg.variant(v.name) {
                    Ok(variant) => {
                        assert!(v.available, "{alg}/{} built but marked unavailable", v.name);
                        let mut h = Hasher::with_variant(variant);
                        h.update(&data);
                        assert_eq!(h.finalize(), expected, "{alg} variant {}", v.name);
                    }
                    Err(_) => {
                        assert!(!v.available, "{alg}/{} available but not built", v.name);
                        eprintln!("skipped {alg}/{}: not available on this CPU", v.name);
                    }
                }
            }
        }
    }
}
