//! The peers measured beside parhash: OpenSSL (the system's libcrypto), the RustCrypto crates,
//! and the `blake3` crate as the anchor every algorithm is compared with.

use std::sync::Arc;

use digest::{Digest, FixedOutputReset};
use parhash::Algorithm;

use super::libcrypto;
use crate::engine::{Engine, EngineRef, Provider, StreamHasher};

struct OpensslEngine {
    algorithm: String,
    digest: libcrypto::MessageDigest,
}

struct OpensslState {
    context: libcrypto::Context,
}

impl StreamHasher for OpensslState {
    fn update(&mut self, data: &[u8]) {
        self.context.update(data);
    }
    fn finish_reset(&mut self) -> u8 {
        // `finish` also restarts the context for the next message.
        self.context.finish()[0]
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
        libcrypto::version()
            .unwrap_or_default()
            .split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ")
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        Box::new(OpensslState {
            context: libcrypto::Context::new(self.digest).expect("this digest started before"),
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
    fn hash_message(&mut self, message: &[u8]) -> u8 {
        D::digest(message)[0]
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
    fn hash_message(&mut self, message: &[u8]) -> u8 {
        blake3::hash(message).as_bytes()[0]
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
    ("blake2b", "BLAKE2B512"),
    ("blake2s", "BLAKE2S256"),
];

/// The peers measured beside parhash's `algorithm`: OpenSSL and the RustCrypto crate where they
/// implement it (matched through the registry's forgiving names).
pub fn peers(algorithm: Algorithm) -> Vec<EngineRef> {
    let same = |name: &str| Algorithm::from_name(name).ok() == Some(algorithm);
    let mut out = Vec::new();
    for (ours, theirs) in OPENSSL_NAMES {
        if same(ours) {
            // `None` also for legacy algorithms (whirlpool) listed but refusing to start.
            if let Some(digest) = libcrypto::MessageDigest::from_name(theirs) {
                out.push(Arc::new(OpensslEngine {
                    algorithm: algorithm.name().to_string(),
                    digest,
                }) as EngineRef);
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
    // parhash's BLAKE3 is the `blake3` crate on parhash's threads: the crate itself, on one
    // thread, is its peer (and stays every algorithm's anchor).
    if algorithm == Algorithm::Blake3 {
        out.push(blake3_anchor());
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
