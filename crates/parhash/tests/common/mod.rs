//! Shared test helpers: KAT parsers and differential-test inputs.
//!
//! Every integration test file does `mod common;` and uses what it needs, so unused helpers are
//! allowed here.
#![allow(dead_code)]

use rand::{rngs::StdRng, Rng, SeedableRng};

pub mod files;
mod forms_log;
#[allow(unused_imports)] // each test file uses what it needs
pub use forms_log::{ran, skipped};

/// One `#[test]` a row, each calling the generic `$check` with the row's type and arguments,
/// so that a failure names its row: `tests_of! { check; test: Type, args...; ... }`.
#[allow(unused_macros)] // each test file uses what it needs
macro_rules! tests_of {
    ($check:ident; $($test:ident: $ty:ty $(, $arg:expr)*;)+) => {$(
        #[test]
        fn $test() {
            $check::<$ty>($($arg),*);
        }
    )+};
}
#[allow(unused_imports)]
pub(crate) use tests_of;

/// Records that `alg`'s registry variant `variant` ran (see [`ran`]).
pub fn ran_variant(alg: parhash::Algorithm, variant: &str) {
    ran(alg.name(), variant);
}

/// Records that `alg`'s default variant ran (what `parhash::hash` and `Hasher::new` run).
pub fn ran_default_variant(alg: parhash::Algorithm) {
    let variants = alg.variants();
    let default = variants
        .iter()
        .find(|v| v.default)
        .expect("a default variant");
    ran_variant(alg, default.name);
}

/// Each `(name, algorithm)`: the name (one of the spellings the registry takes) resolves to
/// the algorithm, through `Algorithm::from_name` and `str::parse` alike.
pub fn assert_names_resolve(names: &[(&str, parhash::Algorithm)]) {
    for &(name, alg) in names {
        assert_eq!(parhash::Algorithm::from_name(name), Ok(alg), "{name}");
        assert_eq!(name.parse::<parhash::Algorithm>().ok(), Some(alg), "{name}");
    }
}

/// One `Len`/`Msg`/`MD` record of a CAVP `.rsp` or NIST ShortMsgKAT file.
#[derive(Clone, Debug)]
pub struct Kat {
    /// Message length in bits.
    pub bits: usize,
    /// Message bytes (empty when `bits == 0`, whatever the file writes).
    pub msg: Vec<u8>,
    /// Expected digest.
    pub md: Vec<u8>,
    /// 1-based line number of the `Len` line, for failure messages.
    pub line: usize,
}

pub fn unhex(s: &str) -> Vec<u8> {
    let s = s.trim();
    assert!(s.len().is_multiple_of(2), "odd hex length: {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit"))
        .collect()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Parses every `Len = / Msg = / MD = ` record (also `Output =` for some files). Lines starting
/// with `#` or `[` are headers. Panics on a malformed file, so a broken copy cannot pass silently.
pub fn parse_kats(text: &str) -> Vec<Kat> {
    let mut out = Vec::new();
    let mut bits: Option<(usize, usize)> = None;
    let mut msg: Option<Vec<u8>> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('[') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        match key.trim() {
            "Len" => bits = Some((value.trim().parse().expect("Len"), i + 1)),
            "Msg" => msg = Some(unhex(value)),
            "MD" | "Output" => {
                let (len, line) = bits.take().expect("MD without Len");
                let mut m = msg.take().expect("MD without Msg");
                m.truncate(len.div_ceil(8));
                out.push(Kat {
                    bits: len,
                    msg: m,
                    md: unhex(value),
                    line,
                });
            }
            _ => {}
        }
    }
    assert!(!out.is_empty(), "no vectors parsed");
    out
}

/// Only the byte-aligned records (what a byte-oriented API can be tested on).
pub fn byte_aligned(kats: Vec<Kat>) -> Vec<Kat> {
    kats.into_iter().filter(|k| k.bits % 8 == 0).collect()
}

/// A CAVP Monte Carlo file: the seed and the expected checkpoint digests, in order.
pub struct Monte {
    pub seed: Vec<u8>,
    pub checkpoints: Vec<Vec<u8>>,
}

pub fn parse_monte(text: &str) -> Monte {
    let mut seed = None;
    let mut checkpoints = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(v) = line.strip_prefix("Seed =") {
            seed = Some(unhex(v));
        } else if let Some(v) = line.strip_prefix("MD =") {
            checkpoints.push(unhex(v));
        }
    }
    Monte {
        seed: seed.expect("Monte file without Seed"),
        checkpoints,
    }
}

/// Lengths that hit every block-boundary case for a block size: 0..=block+1 around each of the
/// first few multiples, the padding-overflow band, plus odd sizes that exercise every lane
/// remainder (31 = 16+8+4+2+1, in blocks).
pub fn boundary_lengths(block: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..=9).collect();
    for k in 1..=4 {
        for d in [-9isize, -8, -2, -1, 0, 1, 2] {
            let n = (k * block) as isize + d;
            if n >= 0 {
                v.push(n as usize);
            }
        }
    }
    v.extend([
        31 * block,
        31 * block + 1,
        16 * block - 1,
        1000,
        4096,
        65536 + 3,
    ]);
    v.sort_unstable();
    v.dedup();
    v
}

/// Input whose byte i is i mod 251, so that swapped or repeated blocks change the digest.
pub fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

/// A deterministic RNG for reproducible "random" tests; the seed is printed on failure by the
/// caller including it in messages.
pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

pub fn random_bytes(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill(&mut v[..]);
    v
}

/// Random split points for a message of `len` bytes: the pieces a streaming update receives.
pub fn random_splits(rng: &mut StdRng, len: usize) -> Vec<std::ops::Range<usize>> {
    let mut cuts = vec![0, len];
    let pieces = rng.random_range(0..8usize);
    for _ in 0..pieces {
        cuts.push(rng.random_range(0..=len));
    }
    cuts.sort_unstable();
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// The digest of `data` by an independent implementation among the dev-dependencies (the
/// RustCrypto crates, `blake-hash`), or `None` for algorithms that have none here (SIMD,
/// SANDstorm, PARSHA-256).
pub fn oracle(alg: parhash::Algorithm, data: &[u8]) -> Option<Vec<u8>> {
    use digest::Digest;
    use parhash::Algorithm as A;
    use skein::digest::consts::{U28, U48};
    fn rust_crypto<D: Digest>(data: &[u8]) -> Vec<u8> {
        D::digest(data).to_vec()
    }
    // blake-hash implements the older digest 0.9 traits.
    fn blake_hash<D: blake_hash::Digest>(data: &[u8]) -> Vec<u8> {
        D::digest(data).to_vec()
    }
    Some(match alg {
        A::Md5 => rust_crypto::<md5::Md5>(data),
        A::Sha1 => rust_crypto::<sha1::Sha1>(data),
        A::Sha224 => rust_crypto::<sha2::Sha224>(data),
        A::Sha256 => rust_crypto::<sha2::Sha256>(data),
        A::Sha384 => rust_crypto::<sha2::Sha384>(data),
        A::Sha512 => rust_crypto::<sha2::Sha512>(data),
        A::Sha512_224 => rust_crypto::<sha2::Sha512_224>(data),
        A::Sha512_256 => rust_crypto::<sha2::Sha512_256>(data),
        A::Sha3_224 => rust_crypto::<sha3::Sha3_224>(data),
        A::Sha3_256 => rust_crypto::<sha3::Sha3_256>(data),
        A::Sha3_384 => rust_crypto::<sha3::Sha3_384>(data),
        A::Sha3_512 => rust_crypto::<sha3::Sha3_512>(data),
        A::Keccak224 => rust_crypto::<sha3::Keccak224>(data),
        A::Keccak256 => rust_crypto::<sha3::Keccak256>(data),
        A::Keccak384 => rust_crypto::<sha3::Keccak384>(data),
        A::Keccak512 => rust_crypto::<sha3::Keccak512>(data),
        A::Whirlpool => rust_crypto::<whirlpool::Whirlpool>(data),
        A::Groestl224 => rust_crypto::<groestl::Groestl224>(data),
        A::Groestl256 => rust_crypto::<groestl::Groestl256>(data),
        A::Groestl384 => rust_crypto::<groestl::Groestl384>(data),
        A::Groestl512 => rust_crypto::<groestl::Groestl512>(data),
        A::Jh224 => rust_crypto::<jh::Jh224>(data),
        A::Jh256 => rust_crypto::<jh::Jh256>(data),
        A::Jh384 => rust_crypto::<jh::Jh384>(data),
        A::Jh512 => rust_crypto::<jh::Jh512>(data),
        A::Skein512_224 => rust_crypto::<skein::Skein512<U28>>(data),
        A::Skein512_256 => rust_crypto::<skein::Skein512_256>(data),
        A::Skein512_384 => rust_crypto::<skein::Skein512<U48>>(data),
        A::Skein512_512 => rust_crypto::<skein::Skein512_512>(data),
        A::Skein256_256 => rust_crypto::<skein::Skein256_256>(data),
        A::Skein1024_1024 => rust_crypto::<skein::Skein1024_1024>(data),
        A::Blake224 => blake_hash::<blake_hash::Blake224>(data),
        A::Blake256 => blake_hash::<blake_hash::Blake256>(data),
        A::Blake384 => blake_hash::<blake_hash::Blake384>(data),
        A::Blake512 => blake_hash::<blake_hash::Blake512>(data),
        // parhash's BLAKE3 splits messages into subtrees of its own; the crate's plain hasher
        // is independent of that.
        A::Blake3 => blake3::hash(data).as_bytes().to_vec(),
        _ => return None,
    })
}

/// Number of random cases: fewer in debug builds, more in release.
pub const fn cases(debug: usize, release: usize) -> usize {
    if cfg!(debug_assertions) {
        debug
    } else {
        release
    }
}

/// Names of the variants of `T` available on this CPU (see [`variant_values`]).
pub fn available_variants<T: parhash::lab::algo::Variants>() -> Vec<&'static str> {
    variant_values::<T>()
        .into_iter()
        .map(|v| v.name())
        .collect()
}

/// The variants of `T` available on this CPU, as values; prints the skipped ones and checks
/// that exactly one variant is the default.
pub fn variant_values<T: parhash::lab::algo::Variants>() -> Vec<parhash::lab::algo::VariantOf<T>> {
    let variants = T::variants();
    assert_eq!(
        variants.iter().filter(|v| v.default).count(),
        1,
        "exactly one default variant: {variants:?}"
    );
    for v in variants.iter().filter(|v| !v.available) {
        eprintln!("skipped variant {}: not available on this CPU", v.name);
    }
    let out = T::available_variants();
    let listed: Vec<_> = variants
        .iter()
        .filter(|v| v.available)
        .map(|v| v.name)
        .collect();
    let names: Vec<_> = out.iter().map(|v| v.name()).collect();
    assert_eq!(
        names, listed,
        "the values are the listed available variants"
    );
    assert!(!out.is_empty());
    out
}

/// `Hasher::new(alg)` as "default", then the dynamic `Hasher` of every variant available here
/// (recorded as run); fails if none is.
pub fn variant_hashers(alg: parhash::Algorithm) -> Vec<(&'static str, parhash::Hasher)> {
    let mut hashers = vec![("default", parhash::Hasher::new(alg))];
    for variant in alg.available_variants() {
        ran_variant(alg, variant.name());
        hashers.push((variant.name(), parhash::Hasher::with_variant(variant)));
    }
    assert!(hashers.len() > 1, "{alg}: no variant available");
    hashers
}

/// Every record through each of [`variant_hashers`] (one hasher each, reused through
/// `finalize_reset`) and through `parhash::hash`. Returns how many variants ran.
pub fn check_records_dynamic(alg: parhash::Algorithm, kats: &[Kat], what: &str) -> usize {
    assert!(!kats.is_empty(), "{alg} {what}: no records");
    let hashers = variant_hashers(alg);
    let ran = hashers.len() - 1;
    for (name, mut h) in hashers {
        for k in kats {
            h.update(&k.msg);
            let at = format!("{alg} {name}: {what} line {} (Len {})", k.line, k.bits);
            assert_eq!(h.finalize_reset().as_bytes(), &k.md[..], "{at}");
        }
    }
    for k in kats {
        let at = format!("{alg} hash(): {what} line {}", k.line);
        assert_eq!(parhash::hash(alg, &k.msg).as_bytes(), &k.md[..], "{at}");
    }
    ran
}

/// Every record through every available variant of `T` by the typed API (`with_variant` and
/// the default `Digest::digest`) and through [`check_records_dynamic`]. Returns how many
/// variants ran.
pub fn check_records_every_variant<T>(alg: parhash::Algorithm, kats: &[Kat], what: &str) -> usize
where
    T: parhash::lab::algo::Variants + digest::Digest,
{
    let variants = variant_values::<T>();
    for k in kats {
        let at = |variant| format!("{alg} {variant}: {what} line {}", k.line);
        for &variant in &variants {
            let typed = T::with_variant(variant);
            let got = typed.chain_update(&k.msg).finalize();
            assert_eq!(got.as_slice(), &k.md[..], "{}", at(variant.name()));
        }
        assert_eq!(T::digest(&k.msg).as_slice(), &k.md[..], "{}", at("default"));
    }
    check_records_dynamic(alg, kats, what);
    variants.len()
}

/// A CAVP byte-oriented ShortMsg or LongMsg file (64 records at least) through every variant,
/// by the `Digest` type and by the dynamic `Hasher` (see [`check_records_every_variant`]).
pub fn check_cavp_records<D>(alg: parhash::Algorithm, text: &str, what: &str)
where
    D: digest::Digest + parhash::lab::algo::Variants,
{
    let kats = byte_aligned(parse_kats(text));
    assert!(
        kats.len() >= 64,
        "{alg} {what}: only {} records",
        kats.len()
    );
    check_records_every_variant::<D>(alg, &kats, what);
}

/// The SHAVS Monte Carlo test for SHA-1 and SHA-2: for each of 100 checkpoints,
/// `MD0 = MD1 = MD2 = Seed`, then for i in 3..1003 `MDi = SHA(MD(i-3) || MD(i-2) || MD(i-1))`;
/// the checkpoint and the next seed are `MD1002`.
pub fn check_monte<D>(alg: parhash::Algorithm, text: &str)
where
    D: digest::Digest + digest::FixedOutputReset + parhash::lab::algo::Variants,
{
    let monte = parse_monte(text);
    assert_eq!(monte.checkpoints.len(), 100);
    for variant in variant_values::<D>() {
        ran_variant(alg, variant.name());
        let mut h = D::with_variant(variant);
        let mut seed = monte.seed.clone();
        for (j, expected) in monte.checkpoints.iter().enumerate() {
            let mut md = [seed.clone(), seed.clone(), seed.clone()];
            for _ in 3..1003 {
                for m in &md {
                    digest::Digest::update(&mut h, m);
                }
                let next = h.finalize_reset().to_vec();
                md = [md[1].clone(), md[2].clone(), next];
            }
            seed = md[2].clone();
            assert_eq!(&seed, expected, "{alg}/{variant}: Monte checkpoint {j}");
        }
    }
}

/// A round-3 ShortMsgKAT file (256 byte-aligned records) through every variant; returns how
/// many variants ran.
pub fn check_short_msg_kat<T>(alg: parhash::Algorithm, text: &str) -> usize
where
    T: parhash::lab::algo::Variants + digest::Digest,
{
    let kats = byte_aligned(parse_kats(text));
    assert_eq!(kats.len(), 256, "{alg}");
    check_records_every_variant::<T>(alg, &kats, "ShortMsgKAT")
}

/// How many random lengths a differential test draws, up to which length, and which variant
/// (a slow literal one) skips inputs longer than a bound.
pub struct Differential {
    /// Random lengths in debug and in release builds, besides [`boundary_lengths`].
    pub cases: (usize, usize),
    /// Largest random length.
    pub max_len: usize,
    /// A variant name and the longest input it is given.
    pub slow: Option<(&'static str, usize)>,
}

/// Differential test against an independent one-shot `oracle`: block-boundary lengths and
/// random ones, each through the default hashers and every available variant fed in random
/// pieces (typed and dynamic `Hasher`), a clone reset and fed again, plus one-shot
/// `Digest::digest` and `parhash::hash`.
pub fn differential_every_variant<T>(
    alg: parhash::Algorithm,
    block: usize,
    seed: u64,
    plan: Differential,
    oracle: impl Fn(&[u8]) -> Vec<u8>,
) where
    T: parhash::lab::algo::Variants + digest::Digest + Clone + digest::Reset,
{
    use digest::Digest;
    let mut r = rng(seed);
    let mut lengths = boundary_lengths(block);
    for _ in 0..cases(plan.cases.0, plan.cases.1) {
        lengths.push(r.random_range(0..=plan.max_len));
    }
    let variants = variant_values::<T>();
    for len in lengths {
        let data = random_bytes(&mut r, len);
        let expected = oracle(&data);
        let at = format!("{alg} len {len} (seed {seed:#x})");
        assert_eq!(T::digest(&data).as_slice(), &expected[..], "{at} one-shot");
        assert_eq!(parhash::hash(alg, &data).as_bytes(), &expected[..], "{at}");
        // `None`: the default hashers (`T::new`, `Hasher::new`), also fed in pieces.
        for variant in std::iter::once(None).chain(variants.iter().copied().map(Some)) {
            if let (Some(variant), Some((slow, limit))) = (variant, plan.slow) {
                if slow == variant.name() && len > limit {
                    continue;
                }
            }
            let (mut typed, mut dynamic) = match variant {
                Some(variant) => {
                    ran_variant(alg, variant.name());
                    let named = alg.variant(variant.name()).expect("available");
                    let typed = T::with_variant(variant);
                    (typed, parhash::Hasher::with_variant(named))
                }
                None => (T::new(), parhash::Hasher::new(alg)),
            };
            let variant = variant.map_or("default", parhash::lab::algo::VariantOf::name);
            for piece in random_splits(&mut r, len) {
                Digest::update(&mut typed, &data[piece.clone()]);
                dynamic.update(&data[piece]);
            }
            // A clone taken mid-stream must carry on identically.
            let mut reused = typed.clone();
            assert_eq!(typed.finalize().as_slice(), &expected[..], "{at} {variant}");
            assert_eq!(
                reused.clone().finalize().as_slice(),
                &expected[..],
                "{at} {variant} (clone)"
            );
            assert_eq!(
                dynamic.finalize().as_bytes(),
                &expected[..],
                "{at} {variant} (dyn)"
            );
            // After reset the hasher starts from the IV again, still on its variant.
            Digest::reset(&mut reused);
            Digest::update(&mut reused, &data);
            assert_eq!(
                reused.finalize().as_slice(),
                &expected[..],
                "{at} {variant} (reset)"
            );
        }
    }
}

/// Every variant of `T`, reset after garbage, then fed `pattern(len)` in pieces of 1..=16 bytes,
/// against the one-shot digest.
pub fn check_pieces_after_reset<T>(len: usize)
where
    T: parhash::lab::algo::Variants + digest::Digest + digest::FixedOutputReset,
{
    let data = pattern(len);
    let expected = T::digest(&data);
    for variant in variant_values::<T>() {
        let mut h = T::with_variant(variant);
        // Garbage first, then reset: the variant must survive the reset.
        digest::Digest::update(&mut h, b"garbage");
        digest::Digest::reset(&mut h);
        for piece_len in 1..=16 {
            for piece in data.chunks(piece_len) {
                digest::Digest::update(&mut h, piece);
            }
            assert_eq!(
                h.finalize_reset(),
                expected,
                "{variant} pieces of {piece_len}"
            );
        }
    }
}
