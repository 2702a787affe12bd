//! The peers measured beside parhash: OpenSSL (the system's libcrypto), the RustCrypto crates,
//! the checksum crates (each CRC and xxHash crate parhash could use, its own default among
//! them), and the `blake3` crate as the anchor every algorithm is compared with.

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
    // A row: parhash's name of the algorithm: the crate (as published) => its type.
    macro_rules! rustcrypto {
        ($($ours:literal: $krate:literal => $ty:ty;)+) => {
            vec![$(($ours, (|a| rustcrypto::<$ty>(a, $krate)) as Make)),+]
        };
    }
    let candidates: Vec<(&str, Make)> = rustcrypto! {
        "md5": "md-5" => md5::Md5;
        "sha1": "sha1" => sha1::Sha1;
        "sha224": "sha2" => sha2::Sha224;
        "sha256": "sha2" => sha2::Sha256;
        "sha384": "sha2" => sha2::Sha384;
        "sha512": "sha2" => sha2::Sha512;
        "sha512-224": "sha2" => sha2::Sha512_224;
        "sha512-256": "sha2" => sha2::Sha512_256;
        "sha3-224": "sha3" => sha3::Sha3_224;
        "sha3-256": "sha3" => sha3::Sha3_256;
        "sha3-384": "sha3" => sha3::Sha3_384;
        "sha3-512": "sha3" => sha3::Sha3_512;
        "keccak-224": "sha3" => sha3::Keccak224;
        "keccak-256": "sha3" => sha3::Keccak256;
        "keccak-384": "sha3" => sha3::Keccak384;
        "keccak-512": "sha3" => sha3::Keccak512;
        "whirlpool": "whirlpool" => whirlpool::Whirlpool;
        "groestl-224": "groestl" => groestl::Groestl224;
        "groestl-256": "groestl" => groestl::Groestl256;
        "groestl-384": "groestl" => groestl::Groestl384;
        "groestl-512": "groestl" => groestl::Groestl512;
        "jh-224": "jh" => jh::Jh224;
        "jh-256": "jh" => jh::Jh256;
        "jh-384": "jh" => jh::Jh384;
        "jh-512": "jh" => jh::Jh512;
        "skein-256-256": "skein" => skein::Skein256_256;
        "skein-512-256": "skein" => skein::Skein512_256;
        "skein-512-512": "skein" => skein::Skein512_512;
        "skein-1024-1024": "skein" => skein::Skein1024_1024;
    };
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
    out.extend(checksum_peers(algorithm));
    out
}

/// A checksum crate's streaming state, one message at a time.
struct CrateState<S> {
    state: S,
    /// The digest's bytes (its first, the most significant, is the one returned).
    size: usize,
    new: fn() -> S,
    update: fn(&mut S, &[u8]),
    finish: fn(&S) -> u128,
}

impl<S: Send> StreamHasher for CrateState<S> {
    fn update(&mut self, data: &[u8]) {
        (self.update)(&mut self.state, data);
    }
    fn finish_reset(&mut self) -> u8 {
        let byte = ((self.finish)(&self.state) >> (8 * self.size - 8)) as u8;
        self.state = (self.new)();
        byte
    }
}

struct CrateEngine<S> {
    algorithm: String,
    krate: &'static str,
    new: fn() -> S,
    update: fn(&mut S, &[u8]),
    finish: fn(&S) -> u128,
}

impl<S: Send + 'static> Engine for CrateEngine<S> {
    fn algorithm(&self) -> String {
        self.algorithm.clone()
    }
    fn provider(&self) -> Provider {
        Provider::Crate
    }
    fn variant(&self) -> String {
        self.krate.to_string()
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        let size = Algorithm::from_name(&self.algorithm).map_or(8, |a| a.digest_size());
        Box::new(CrateState {
            state: (self.new)(),
            size,
            new: self.new,
            update: self.update,
            finish: self.finish,
        })
    }
}

/// A crate engine from its state's constructor, update and finish (the digest as an integer).
fn krate<S: Send + 'static>(
    algorithm: Algorithm,
    krate: &'static str,
    new: fn() -> S,
    update: fn(&mut S, &[u8]),
    finish: fn(&S) -> u128,
) -> EngineRef {
    Arc::new(CrateEngine {
        algorithm: algorithm.name().to_string(),
        krate,
        new,
        update,
        finish,
    })
}

/// Every crate that computes `algorithm`'s checksum, parhash's own backend among them (the
/// ratio to it is what parhash's dispatch costs; to the others, what its choice gains).
fn checksum_peers(algorithm: Algorithm) -> Vec<EngineRef> {
    use std::hash::Hasher as _;
    // `crc-fast`'s engine for one CRC (a macro: a closure capturing the CRC is no `fn`).
    macro_rules! crc_fast {
        ($which:ident) => {
            krate(
                algorithm,
                "crc-fast",
                || crc_fast::Digest::new(crc_fast::CrcAlgorithm::$which),
                |s, d| s.update(d),
                |s| u128::from(s.finalize()),
            )
        };
    }
    let xxh3_rust = |wide: bool| {
        if wide {
            krate(
                algorithm,
                "xxhash-rust",
                xxhash_rust::xxh3::Xxh3Default::new,
                |s, d| s.update(d),
                |s| s.digest128(),
            )
        } else {
            krate(
                algorithm,
                "xxhash-rust",
                xxhash_rust::xxh3::Xxh3Default::new,
                |s, d| s.update(d),
                |s| u128::from(s.digest()),
            )
        }
    };
    match algorithm {
        Algorithm::Crc32 => vec![
            krate(
                algorithm,
                "crc32fast",
                crc32fast::Hasher::new,
                |s, d| s.update(d),
                |s| u128::from(s.clone().finalize()),
            ),
            crc_fast!(Crc32IsoHdlc),
        ],
        Algorithm::Crc32c => vec![
            krate(
                algorithm,
                "crc32c",
                || 0u32,
                |s, d| *s = crc32c::crc32c_append(*s, d),
                |s| u128::from(*s),
            ),
            crc_fast!(Crc32Iscsi),
        ],
        Algorithm::Crc64Nvme => vec![
            krate(
                algorithm,
                "crc64fast-nvme",
                crc64fast_nvme::Digest::new,
                |s, d| s.write(d),
                |s| u128::from(s.sum64()),
            ),
            crc_fast!(Crc64Nvme),
        ],
        Algorithm::Xxh64 => vec![
            krate(
                algorithm,
                "xxhash-rust",
                || xxhash_rust::xxh64::Xxh64::new(0),
                |s, d| s.update(d),
                |s| u128::from(s.digest()),
            ),
            krate(
                algorithm,
                "twox-hash",
                || twox_hash::XxHash64::with_seed(0),
                |s, d| s.write(d),
                |s| u128::from(s.finish()),
            ),
        ],
        Algorithm::Xxh3 => vec![
            xxh3_rust(false),
            krate(
                algorithm,
                "twox-hash",
                twox_hash::XxHash3_64::new,
                |s, d| s.write(d),
                |s| u128::from(s.finish()),
            ),
        ],
        Algorithm::Xxh128 => vec![
            xxh3_rust(true),
            krate(
                algorithm,
                "twox-hash",
                twox_hash::XxHash3_128::new,
                |s, d| s.write(d),
                |s| s.finish_128(),
            ),
        ],
        _ => Vec::new(),
    }
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
