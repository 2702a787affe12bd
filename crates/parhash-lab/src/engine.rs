//! What the lab measures: an [`Engine`] is one implementation of one algorithm — a parhash
//! variant, or a peer (OpenSSL, a RustCrypto crate, the `blake3` crate).
//!
//! Engines that hash a whole batch themselves (tree modes spreading one message over threads,
//! multi-lane batch engines, GPU back-ends) override [`Engine::hash_batch`]; all others are
//! driven message by message through a reusable [`StreamHasher`], and the lab spreads the
//! messages over threads. Helpers that build such engines register them in [`EXTRA_ENGINES`].

use std::sync::Arc;

use digest::{Digest, FixedOutputReset};
use parhash::{Algorithm, Hasher};
use serde::{Deserialize, Serialize};

use crate::tree_params::TreeParams;

/// A hashing state that is reused message after message, so that the lab measures hashing and
/// not allocation.
pub trait StreamHasher: Send {
    /// Feeds more of the current message.
    fn update(&mut self, data: &[u8]);
    /// Finishes the current message, starts the next, and returns one byte of the digest (folded
    /// into a checksum so the work cannot be optimised away).
    fn finish_reset(&mut self) -> u8;
}

/// Who wrote an implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// parhash itself.
    Parhash,
    /// The `openssl` crate (the system's libcrypto).
    Openssl,
    /// A RustCrypto crate (`sha2`, `sha3`, `groestl`, ...).
    Rustcrypto,
    /// The `blake3` crate: the modern anchor of fast hashing.
    Blake3,
}

impl Provider {
    /// Lowercase name used in tables and files.
    pub fn name(self) -> &'static str {
        match self {
            Provider::Parhash => "parhash",
            Provider::Openssl => "openssl",
            Provider::Rustcrypto => "rustcrypto",
            Provider::Blake3 => "blake3",
        }
    }
}

/// One implementation of one algorithm.
pub trait Engine: Send + Sync {
    /// parhash's canonical name of the algorithm computed (`blake3` for the anchor).
    fn algorithm(&self) -> String;
    /// Who wrote it.
    fn provider(&self) -> Provider;
    /// The implementation variant (`sha-ni`, `parallel`, `tree`...), or the crate for peers.
    fn variant(&self) -> String;
    /// Whether it runs on an accelerator (the bottleneck table's "accelerator" column).
    fn on_accelerator(&self) -> bool {
        false
    }
    /// A fresh reusable hashing state.
    fn hasher(&self) -> Box<dyn StreamHasher>;
    /// Engines that hash a whole batch themselves (a tree mode using `threads` threads for one
    /// message, a multi-lane or GPU batch engine) return `Some(checksum)`; the default `None`
    /// lets the lab drive [`Engine::hasher`] message by message.
    fn hash_batch(&self, _messages: &[&[u8]], _threads: usize) -> Option<u8> {
        None
    }
    /// Whether [`Engine::hash_batch`] uses several threads for one message (tree modes): only
    /// such engines are measured single-message with more than one thread.
    fn splits_one_message(&self) -> bool {
        false
    }
    /// Whether the engine runs with a `--tree` parameter set (PARSHA-256's `tree` and `gpu`).
    fn takes_tree_params(&self) -> bool {
        false
    }
    /// Whether hashing needs no memory in proportion to the data beyond the data itself. Only
    /// such engines are handed batches larger than the lab's memory cap (as windows into one
    /// buffer) or single messages streamed from a bounded chunk ([`Engine::hash_repeated`]);
    /// engines that copy or buffer whole messages (GPU back-ends, the registry's PARSHA-256
    /// hasher) return `false` and such configurations are skipped with a note.
    fn bounded_memory(&self) -> bool {
        true
    }
    /// Hashes one message of `len` bytes made of `chunk` repeated (the last copy cut short),
    /// on `threads` threads where the engine splits a message, and returns one digest byte.
    /// Called only when [`Engine::bounded_memory`] holds. The default streams through
    /// [`Engine::hasher`] on one thread.
    fn hash_repeated(&self, chunk: &[u8], len: u64, _threads: usize) -> u8 {
        let mut hasher = self.hasher();
        feed_repeated(chunk, len, |piece| hasher.update(piece));
        hasher.finish_reset()
    }
    /// `provider algorithm/variant`, e.g. `parhash sha256/sha-ni`.
    fn label(&self) -> String {
        label(self.provider(), &self.algorithm(), &self.variant())
    }
}

/// The label of an engine, a configuration or a measurement: `provider algorithm/variant`.
pub fn label(provider: Provider, algorithm: &str, variant: &str) -> String {
    format!("{} {algorithm}/{variant}", provider.name())
}

/// A shareable engine.
pub type EngineRef = Arc<dyn Engine>;

/// Calls `feed` with `chunk` repeatedly until `len` bytes have gone, the last piece cut short:
/// one long message in the memory of one chunk.
pub fn feed_repeated(chunk: &[u8], len: u64, mut feed: impl FnMut(&[u8])) {
    if chunk.is_empty() {
        debug_assert_eq!(len, 0, "a message cannot be made of an empty chunk");
        return;
    }
    let mut left = len;
    while left > 0 {
        let take = usize::try_from(left).map_or(chunk.len(), |l| l.min(chunk.len()));
        feed(&chunk[..take]);
        left -= take as u64;
    }
}

/// Builders of extra engines (tree modes, batch engines, GPU back-ends) for an algorithm: each
/// returns the engines it offers for that algorithm (none for most). Engines that take tree
/// parameters (PARSHA-256's) return one engine per `--tree` set in the second argument, named
/// after it (`tree[T=10,l=0]`, see [`crate::tree_params::labelled`]); an empty list means "your
/// defaults, under the plain name". Builders of engines without parameters ignore it (the sweep
/// tells the user, see [`crate::sweep::engines`]). Helpers add theirs here; `--variants` then
/// selects them by their variant name (or its base name, `tree`) like any other.
///
/// How to add one (a GPU back-end, say): implement [`Engine`] with a variant name of its own
/// (`gpu`), [`Engine::hash_batch`] hashing the whole batch on the device (host-to-device copy
/// included) and [`Engine::on_accelerator`] returning `true`; return it from a builder listed
/// here only when the device is present (an empty list otherwise, never a panic); and add a
/// host-to-device copy probe to [`crate::roofs::TRANSFER_PROBES`] so the transfer roof is
/// measured. The engine then appears in `--variants all`, `--variants gpu`, the presets that
/// sweep all variants (`parsha`, `accelerator`), the accelerator columns of the bottleneck
/// table, and the plots.
pub static EXTRA_ENGINES: &[EngineBuilder] = &[
    crate::presets::sandstorm::thread_engines,
    crate::batch_engine::batch_engines,
    crate::gpu::engines,
    crate::presets::parsha::tree_engines,
];

/// Builds the extra engines of one algorithm for the given tree parameter sets.
pub type EngineBuilder = fn(Algorithm, &[TreeParams]) -> Vec<EngineRef>;

/// A parhash variant, driven through the run-time [`Hasher`].
struct ParhashEngine {
    algorithm: Algorithm,
    variant: &'static str,
}

struct ParhashState(Hasher);

impl StreamHasher for ParhashState {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
    fn finish_reset(&mut self) -> u8 {
        self.0.finalize_reset().as_bytes()[0]
    }
}

impl Engine for ParhashEngine {
    fn algorithm(&self) -> String {
        self.algorithm.name().to_string()
    }
    fn provider(&self) -> Provider {
        Provider::Parhash
    }
    fn variant(&self) -> String {
        self.variant.to_string()
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        let hasher = Hasher::with_variant(self.algorithm, self.variant)
            .expect("engine built only for available variants");
        Box::new(ParhashState(hasher))
    }
    fn bounded_memory(&self) -> bool {
        // The registry's PARSHA-256 keeps the whole message until `finalize` (it needs the
        // length first).
        self.algorithm != Algorithm::Parsha256
    }
}

/// The parhash engine for one variant, or `None` if it is unknown or unavailable on this CPU.
pub fn parhash_variant(algorithm: Algorithm, variant: &str) -> Option<EngineRef> {
    let info = algorithm
        .variants()
        .into_iter()
        .find(|v| v.name == variant && v.available)?;
    Hasher::with_variant(algorithm, info.name).ok()?;
    Some(Arc::new(ParhashEngine {
        algorithm,
        variant: info.name,
    }))
}

/// The name of the variant parhash uses by default for `algorithm`.
pub fn default_variant(algorithm: Algorithm) -> &'static str {
    algorithm
        .variants()
        .into_iter()
        .find(|v| v.default)
        .map(|v| v.name)
        .unwrap_or("portable")
}

/// All engines parhash offers for `algorithm`: every available variant, then extra engines
/// with their default parameters.
pub fn parhash_engines(algorithm: Algorithm) -> Vec<EngineRef> {
    parhash_engines_with_tree(algorithm, &[])
}

/// Like [`parhash_engines`], handing `tree` parameter sets to the extra engines.
pub fn parhash_engines_with_tree(algorithm: Algorithm, tree: &[TreeParams]) -> Vec<EngineRef> {
    let mut out: Vec<EngineRef> = algorithm
        .variants()
        .into_iter()
        .filter_map(|v| parhash_variant(algorithm, v.name))
        .collect();
    for extra in EXTRA_ENGINES {
        out.extend(extra(algorithm, tree));
    }
    out
}

/// Finds the engine of `algorithm` called `variant` (a variant or an extra engine's name); the
/// word `default` names the default variant.
pub fn find_parhash_engine(algorithm: Algorithm, variant: &str) -> Option<EngineRef> {
    let wanted = if variant == "default" {
        default_variant(algorithm)
    } else {
        variant
    };
    parhash_engines(algorithm)
        .into_iter()
        .find(|e| e.variant() == wanted)
}

// ---------------------------------------------------------------------------------------------
// Peers

struct OpensslEngine {
    algorithm: String,
    digest: openssl::hash::MessageDigest,
}

struct OpensslState {
    hasher: openssl::hash::Hasher,
}

impl StreamHasher for OpensslState {
    fn update(&mut self, data: &[u8]) {
        self.hasher.update(data).expect("openssl update");
    }
    fn finish_reset(&mut self) -> u8 {
        // `finish` also resets the context for the next message.
        self.hasher.finish().expect("openssl finish")[0]
    }
}

impl Engine for OpensslEngine {
    fn algorithm(&self) -> String {
        self.algorithm.clone()
    }
    fn provider(&self) -> Provider {
        Provider::Openssl
    }
    fn variant(&self) -> String {
        openssl::version::version()
            .split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ")
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        Box::new(OpensslState {
            hasher: openssl::hash::Hasher::new(self.digest).expect("openssl digest"),
        })
    }
}

struct RustCryptoEngine<D> {
    algorithm: String,
    krate: &'static str,
    _digest: std::marker::PhantomData<fn() -> D>,
}

struct RustCryptoState<D>(D);

impl<D: Digest + FixedOutputReset + Send> StreamHasher for RustCryptoState<D> {
    fn update(&mut self, data: &[u8]) {
        Digest::update(&mut self.0, data);
    }
    fn finish_reset(&mut self) -> u8 {
        Digest::finalize_reset(&mut self.0)[0]
    }
}

impl<D: Digest + FixedOutputReset + Send + Default + 'static> Engine for RustCryptoEngine<D> {
    fn algorithm(&self) -> String {
        self.algorithm.clone()
    }
    fn provider(&self) -> Provider {
        Provider::Rustcrypto
    }
    fn variant(&self) -> String {
        self.krate.to_string()
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        Box::new(RustCryptoState(D::default()))
    }
}

fn rustcrypto<D: Digest + FixedOutputReset + Send + Default + 'static>(
    algorithm: &str,
    krate: &'static str,
) -> EngineRef {
    Arc::new(RustCryptoEngine::<D> {
        algorithm: algorithm.to_string(),
        krate,
        _digest: std::marker::PhantomData,
    })
}

struct Blake3Engine;
struct Blake3State(blake3::Hasher);

impl StreamHasher for Blake3State {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
    fn finish_reset(&mut self) -> u8 {
        let byte = self.0.finalize().as_bytes()[0];
        self.0.reset();
        byte
    }
}

impl Engine for Blake3Engine {
    fn algorithm(&self) -> String {
        "blake3".into()
    }
    fn provider(&self) -> Provider {
        Provider::Blake3
    }
    fn variant(&self) -> String {
        "blake3 (1 thread)".into()
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        Box::new(Blake3State(blake3::Hasher::new()))
    }
}

/// The `blake3` crate, single-threaded: the anchor every parhash algorithm is compared with.
pub fn blake3_anchor() -> EngineRef {
    Arc::new(Blake3Engine)
}

/// OpenSSL's names for the algorithms parhash has, by parhash's canonical name.
const OPENSSL_NAMES: &[(&str, &str)] = &[
    ("md5", "MD5"),
    ("sha1", "SHA1"),
    ("sha224", "SHA224"),
    ("sha256", "SHA256"),
    ("sha384", "SHA384"),
    ("sha512", "SHA512"),
    ("sha512-224", "SHA512-224"),
    ("sha512-256", "SHA512-256"),
    ("sha3-224", "SHA3-224"),
    ("sha3-256", "SHA3-256"),
    ("sha3-384", "SHA3-384"),
    ("sha3-512", "SHA3-512"),
    ("whirlpool", "whirlpool"),
];

/// The peers measured beside parhash's `algorithm`: OpenSSL and the RustCrypto crate where they
/// implement it (matched through the registry's forgiving names).
pub fn peers(algorithm: Algorithm) -> Vec<EngineRef> {
    let same = |name: &str| Algorithm::from_name(name).ok() == Some(algorithm);
    let mut out = Vec::new();
    for (ours, theirs) in OPENSSL_NAMES {
        if same(ours) {
            if let Some(digest) = openssl::hash::MessageDigest::from_name(theirs) {
                // Legacy algorithms (whirlpool) may be listed but refuse to initialise.
                if openssl::hash::Hasher::new(digest).is_ok() {
                    out.push(Arc::new(OpensslEngine {
                        algorithm: algorithm.name().to_string(),
                        digest,
                    }) as EngineRef);
                }
            }
        }
    }
    let name = algorithm.name();
    type Make = fn(&str) -> EngineRef;
    let candidates: Vec<(&str, Make)> = vec![
        ("md5", |a| rustcrypto::<md5::Md5>(a, "md-5")),
        ("sha1", |a| rustcrypto::<sha1::Sha1>(a, "sha1")),
        ("sha224", |a| rustcrypto::<sha2::Sha224>(a, "sha2")),
        ("sha256", |a| rustcrypto::<sha2::Sha256>(a, "sha2")),
        ("sha384", |a| rustcrypto::<sha2::Sha384>(a, "sha2")),
        ("sha512", |a| rustcrypto::<sha2::Sha512>(a, "sha2")),
        ("sha512-224", |a| rustcrypto::<sha2::Sha512_224>(a, "sha2")),
        ("sha512-256", |a| rustcrypto::<sha2::Sha512_256>(a, "sha2")),
        ("sha3-224", |a| rustcrypto::<sha3::Sha3_224>(a, "sha3")),
        ("sha3-256", |a| rustcrypto::<sha3::Sha3_256>(a, "sha3")),
        ("sha3-384", |a| rustcrypto::<sha3::Sha3_384>(a, "sha3")),
        ("sha3-512", |a| rustcrypto::<sha3::Sha3_512>(a, "sha3")),
        ("keccak-224", |a| rustcrypto::<sha3::Keccak224>(a, "sha3")),
        ("keccak-256", |a| rustcrypto::<sha3::Keccak256>(a, "sha3")),
        ("keccak-384", |a| rustcrypto::<sha3::Keccak384>(a, "sha3")),
        ("keccak-512", |a| rustcrypto::<sha3::Keccak512>(a, "sha3")),
        ("whirlpool", |a| {
            rustcrypto::<whirlpool::Whirlpool>(a, "whirlpool")
        }),
        ("groestl-224", |a| {
            rustcrypto::<groestl::Groestl224>(a, "groestl")
        }),
        ("groestl-256", |a| {
            rustcrypto::<groestl::Groestl256>(a, "groestl")
        }),
        ("groestl-384", |a| {
            rustcrypto::<groestl::Groestl384>(a, "groestl")
        }),
        ("groestl-512", |a| {
            rustcrypto::<groestl::Groestl512>(a, "groestl")
        }),
        ("jh-224", |a| rustcrypto::<jh::Jh224>(a, "jh")),
        ("jh-256", |a| rustcrypto::<jh::Jh256>(a, "jh")),
        ("jh-384", |a| rustcrypto::<jh::Jh384>(a, "jh")),
        ("jh-512", |a| rustcrypto::<jh::Jh512>(a, "jh")),
        ("skein-256-256", |a| {
            rustcrypto::<skein::Skein256_256>(a, "skein")
        }),
        ("skein-512-256", |a| {
            rustcrypto::<skein::Skein512_256>(a, "skein")
        }),
        ("skein-512-512", |a| {
            rustcrypto::<skein::Skein512_512>(a, "skein")
        }),
        ("skein-1024-1024", |a| {
            rustcrypto::<skein::Skein1024_1024>(a, "skein")
        }),
    ];
    for (ours, make) in candidates {
        if same(ours) {
            out.push(make(name));
        }
    }
    out
}

/// The (algorithm, variant) names under which `provider` is measured beside parhash's
/// `algorithm` (for `--baseline openssl` and the like).
pub fn peer_ids(algorithm: &str, provider: Provider) -> Vec<(String, String)> {
    let engines = match provider {
        Provider::Blake3 => vec![blake3_anchor()],
        Provider::Parhash => Vec::new(),
        _ => Algorithm::from_name(algorithm)
            .map(peers)
            .unwrap_or_default(),
    };
    engines
        .into_iter()
        .filter(|e| e.provider() == provider)
        .map(|e| (e.algorithm(), e.variant()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest_byte(engine: &dyn Engine, data: &[u8]) -> u8 {
        let mut h = engine.hasher();
        h.update(data);
        h.finish_reset()
    }

    #[test]
    fn peers_agree_with_parhash() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        for &alg in Algorithm::ALL {
            let ours = parhash::hash(alg, &data).as_bytes()[0];
            for peer in peers(alg) {
                assert_eq!(digest_byte(&*peer, &data), ours, "{}", peer.label());
            }
            for engine in parhash_engines(alg) {
                assert_eq!(digest_byte(&*engine, &data), ours, "{}", engine.label());
            }
        }
    }

    #[test]
    fn repeated_chunks_hash_as_the_whole_message() {
        let chunk: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        let mut pieces = Vec::new();
        feed_repeated(&chunk, 2500, |p| pieces.push(p.len()));
        assert_eq!(pieces, [1000, 1000, 500]);
        feed_repeated(&[], 0, |_| panic!("nothing to feed"));
        let whole: Vec<u8> = chunk.iter().cycle().take(2500).copied().collect();
        let algorithms = [
            Algorithm::Md5,
            Algorithm::Sha256,
            Algorithm::Sandstorm256,
            Algorithm::Parsha256,
        ];
        for alg in algorithms {
            let want = parhash::hash(alg, &whole).as_bytes()[0];
            for engine in parhash_engines(alg) {
                if engine.bounded_memory() {
                    for threads in [1, 2] {
                        let got = engine.hash_repeated(&chunk, 2500, threads);
                        assert_eq!(got, want, "{} on {threads}", engine.label());
                    }
                }
            }
        }
        // The registry's PARSHA-256 buffers the message: never streamed past the memory cap.
        let parsha = parhash_engines(Algorithm::Parsha256);
        assert!(parsha.iter().any(|e| !e.bounded_memory()));
    }

    #[test]
    fn hashers_reset_between_messages() {
        let anchor = blake3_anchor();
        let mut h = anchor.hasher();
        h.update(b"abc");
        let first = h.finish_reset();
        h.update(b"abc");
        assert_eq!(h.finish_reset(), first);
        assert_eq!(first, blake3::hash(b"abc").as_bytes()[0]);
    }

    #[test]
    fn md5_has_both_peers() {
        let labels: Vec<String> = peers(Algorithm::Md5).iter().map(|p| p.label()).collect();
        assert!(
            labels.iter().any(|l| l.starts_with("openssl")),
            "{labels:?}"
        );
        assert!(
            labels.iter().any(|l| l.starts_with("rustcrypto")),
            "{labels:?}"
        );
    }
}
