//! SHA-3 against the NIST CAVP SHA3VS vectors (ShortMsg, LongMsg and Monte) through every
//! implementation variant. The ShortMsgKAT files of SHA-3 and round-3 Keccak are in
//! `short_msg_kat.rs`, the differential tests against the RustCrypto `sha3` crate in
//! `differential.rs`.
mod common;

use common::*;
use digest::Digest;
use parhash::Algorithm;

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

/// Each size's ShortMsg, LongMsg and Monte files.
#[test]
fn sha3vs_every_variant() {
    for (alg, [short, long, monte]) in [
        (
            Algorithm::Sha3_256,
            [
                include_str!("vectors/sha3-256/SHA3_256ShortMsg.rsp"),
                include_str!("vectors/sha3-256/SHA3_256LongMsg.rsp"),
                include_str!("vectors/sha3-256/SHA3_256Monte.rsp"),
            ],
        ),
        (
            Algorithm::Sha3_512,
            [
                include_str!("vectors/sha3-512/SHA3_512ShortMsg.rsp"),
                include_str!("vectors/sha3-512/SHA3_512LongMsg.rsp"),
                include_str!("vectors/sha3-512/SHA3_512Monte.rsp"),
            ],
        ),
    ] {
        check_records_dynamic(alg, &parse_kats(short), "ShortMsg");
        check_records_dynamic(alg, &parse_kats(long), "LongMsg");
        check_monte(alg, monte);
    }
}

/// reset() forgets what was fed: the digest of "abc" after a reset equals a fresh one.
#[test]
fn reset_forgets_what_was_fed() {
    let mut h = parhash::Sha3_256::new();
    Digest::update(&mut h, b"garbage");
    Digest::reset(&mut h);
    Digest::update(&mut h, b"abc");
    assert_eq!(
        h.finalize().as_slice(),
        sha3::Sha3_256::digest(b"abc").as_slice()
    );
}
