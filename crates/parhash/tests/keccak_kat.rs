//! SHA-3 and round-3 Keccak against the published vectors (NIST CAVP SHA3VS ShortMsg, LongMsg
//! and Monte; the Keccak team's and the NIST SHA-3 competition's ShortMsgKAT) through every
//! implementation variant, and against the RustCrypto `sha3` crate.
mod common;

use common::*;
use digest::Digest;
use parhash::lab::algo::Variants;
use parhash::{Algorithm, Hasher};

/// Every available variant of `alg` (the dynamic registry path), plus the default.
fn variant_hashers(alg: Algorithm) -> Vec<(String, Hasher)> {
    let mut out = vec![("default".to_string(), Hasher::new(alg))];
    for v in alg.variants() {
        match alg.variant(v.name) {
            Ok(variant) => {
                common::ran_variant(alg, v.name);
                out.push((v.name.to_string(), Hasher::with_variant(variant)));
            }
            Err(_) => eprintln!("skipped {alg}/{}: not available on this CPU", v.name),
        }
    }
    out
}

/// Checks every record through every variant.
fn check_kats(alg: Algorithm, kats: &[Kat], what: &str) {
    assert!(!kats.is_empty());
    for (name, mut h) in variant_hashers(alg) {
        for k in kats {
            h.update(&k.msg);
            assert_eq!(
                h.finalize_reset().as_bytes(),
                &k.md[..],
                "{alg}/{name}: {what} line {} (Len {})",
                k.line,
                k.bits
            );
        }
    }
}

/// The SHA3VS Monte Carlo test: unlike SHA-2's, each digest is the next message on its own,
/// `MD_i = SHA3(MD_(i-1))`, 1000 iterations per checkpoint, 100 checkpoints.
fn check_monte(alg: Algorithm, text: &str) {
    let monte = parse_monte(text);
    assert_eq!(monte.checkpoints.len(), 100);
    for (name, mut h) in variant_hashers(alg) {
        let mut md = monte.seed.clone();
        for (j, expected) in monte.checkpoints.iter().enumerate() {
            for _ in 0..1000 {
                h.update(&md);
                md = h.finalize_reset().as_bytes().to_vec();
            }
            assert_eq!(&md, expected, "{alg}/{name}: Monte checkpoint {j}");
        }
    }
}

#[test]
fn sha3_256_cavp() {
    let short = parse_kats(include_str!("vectors/sha3-256/SHA3_256ShortMsg.rsp"));
    let long = parse_kats(include_str!("vectors/sha3-256/SHA3_256LongMsg.rsp"));
    check_kats(Algorithm::Sha3_256, &short, "ShortMsg");
    check_kats(Algorithm::Sha3_256, &long, "LongMsg");
}

#[test]
fn sha3_512_cavp() {
    let short = parse_kats(include_str!("vectors/sha3-512/SHA3_512ShortMsg.rsp"));
    let long = parse_kats(include_str!("vectors/sha3-512/SHA3_512LongMsg.rsp"));
    check_kats(Algorithm::Sha3_512, &short, "ShortMsg");
    check_kats(Algorithm::Sha3_512, &long, "LongMsg");
}

#[test]
fn sha3_256_monte() {
    check_monte(
        Algorithm::Sha3_256,
        include_str!("vectors/sha3-256/SHA3_256Monte.rsp"),
    );
}

#[test]
fn sha3_512_monte() {
    check_monte(
        Algorithm::Sha3_512,
        include_str!("vectors/sha3-512/SHA3_512Monte.rsp"),
    );
}

#[test]
fn sha3_short_msg_kat() {
    let k256 = byte_aligned(parse_kats(include_str!(
        "vectors/sha3-256/ShortMsgKAT_SHA3-256.txt"
    )));
    let k512 = byte_aligned(parse_kats(include_str!(
        "vectors/sha3-512/ShortMsgKAT_SHA3-512.txt"
    )));
    assert_eq!((k256.len(), k512.len()), (256, 256));
    check_kats(Algorithm::Sha3_256, &k256, "ShortMsgKAT");
    check_kats(Algorithm::Sha3_512, &k512, "ShortMsgKAT");
}

#[test]
fn keccak_round3_short_msg_kat() {
    let k256 = byte_aligned(parse_kats(include_str!(
        "vectors/keccak256/ShortMsgKAT_256.sphlib.txt"
    )));
    let k512 = byte_aligned(parse_kats(include_str!(
        "vectors/keccak512/ShortMsgKAT_512.sphlib.txt"
    )));
    assert_eq!((k256.len(), k512.len()), (256, 256));
    check_kats(Algorithm::Keccak256, &k256, "ShortMsgKAT");
    check_kats(Algorithm::Keccak512, &k512, "ShortMsgKAT");
}

/// One algorithm against its RustCrypto twin: one-shot, streaming at random split points,
/// the `Digest` trait on the concrete type and the dynamic `Hasher`, in every variant.
fn differential<Ours, Theirs>(alg: Algorithm, rate: usize, seed: u64)
where
    Ours: Digest + Variants + Clone + digest::Reset,
    Theirs: Digest,
{
    let plan = Differential {
        cases: (40, 400),
        max_len: 20000,
        slow: None,
    };
    differential_every_variant::<Ours>(alg, rate, seed, plan, |d| Theirs::digest(d).to_vec());
}

#[test]
fn differential_sha3() {
    differential::<parhash::Sha3_224, sha3::Sha3_224>(Algorithm::Sha3_224, 144, 0x5a3_224);
    differential::<parhash::Sha3_256, sha3::Sha3_256>(Algorithm::Sha3_256, 136, 0x5a3_256);
    differential::<parhash::Sha3_384, sha3::Sha3_384>(Algorithm::Sha3_384, 104, 0x5a3_384);
    differential::<parhash::Sha3_512, sha3::Sha3_512>(Algorithm::Sha3_512, 72, 0x5a3_512);
}

#[test]
fn differential_keccak() {
    differential::<parhash::Keccak224, sha3::Keccak224>(Algorithm::Keccak224, 144, 0xcc_224);
    differential::<parhash::Keccak256, sha3::Keccak256>(Algorithm::Keccak256, 136, 0xcc_256);
    differential::<parhash::Keccak384, sha3::Keccak384>(Algorithm::Keccak384, 104, 0xcc_384);
    differential::<parhash::Keccak512, sha3::Keccak512>(Algorithm::Keccak512, 72, 0xcc_512);
}

#[test]
fn names_tags_and_reset() {
    assert_names_resolve(&[
        ("SHA3-256", Algorithm::Sha3_256),
        ("sha3_512", Algorithm::Sha3_512),
        ("keccak-256", Algorithm::Keccak256),
        ("KECCAK384", Algorithm::Keccak384),
    ]);
    // reset() forgets what was fed: the digest of "abc" after a reset equals a fresh one.
    let mut h = parhash::Sha3_256::new();
    Digest::update(&mut h, b"garbage");
    Digest::reset(&mut h);
    Digest::update(&mut h, b"abc");
    assert_eq!(
        h.finalize().as_slice(),
        sha3::Sha3_256::digest(b"abc").as_slice()
    );
}
