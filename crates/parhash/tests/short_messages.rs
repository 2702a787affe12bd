//! The short-message paths of MD5, SHA-1 and SHA-2 against the RustCrypto crates: the one-shot
//! `hash` (which pads and compresses a short message in one call, without the `digest` buffer)
//! and the `Hasher` that keeps these states in place, on every variant this CPU has, at every
//! length around the one- and two-block boundaries of both block sizes and at random lengths
//! and split points. And BLAKE3's one-shot, whose one-block messages take parhash's own kernel.

use parhash::{hash, Algorithm, Hasher};
use rand::{rngs::StdRng, Rng};

mod common;

/// The algorithms a `Hasher` keeps in place.
const IN_PLACE: [Algorithm; 8] = [
    Algorithm::Md5,
    Algorithm::Sha1,
    Algorithm::Sha224,
    Algorithm::Sha256,
    Algorithm::Sha384,
    Algorithm::Sha512,
    Algorithm::Sha512_224,
    Algorithm::Sha512_256,
];

/// The digest by the algorithm's RustCrypto twin (`common::oracle`).
fn peer(algorithm: Algorithm, message: &[u8]) -> Vec<u8> {
    common::oracle(algorithm, message).expect("a RustCrypto twin")
}

/// Every length up to just past three 128-byte blocks (each padding case of both block
/// sizes: the tail alone, the tail with the length field spilling into a second or third
/// block, whole blocks read from the message), then random longer ones.
fn lengths(rng: &mut StdRng) -> Vec<usize> {
    let mut lengths: Vec<usize> = (0..=400).collect();
    lengths.extend((0..40).map(|_| rng.random_range(400..5_400)));
    lengths
}

#[test]
fn one_shot_hash_equals_rustcrypto_at_every_short_length() {
    let mut rng = common::rng(0x5107);
    let data = common::random_bytes(&mut rng, 6_000);
    for algorithm in IN_PLACE {
        common::ran_default_variant(algorithm);
        for len in lengths(&mut rng) {
            let message = &data[..len];
            assert_eq!(
                hash(algorithm, message).as_bytes(),
                peer(algorithm, message),
                "{algorithm} at {len} bytes"
            );
        }
    }
}

/// BLAKE3's one-shot takes messages of one block by parhash's own kernel where the CPU has
/// AVX-512 (`algo::blake3::one_block`), longer ones by the crate: every length on both sides,
/// at every alignment of the message's start, against the `blake3` crate.
#[test]
fn one_shot_blake3_equals_the_blake3_crate_at_every_short_length_and_alignment() {
    let mut rng = common::rng(0xb1a3);
    let data = common::random_bytes(&mut rng, 6_000);
    for len in lengths(&mut rng) {
        for start in 0..4 {
            let message = &data[start..start + len];
            assert_eq!(
                hash(Algorithm::Blake3, message).as_bytes(),
                blake3::hash(message).as_bytes(),
                "{len} bytes from offset {start}"
            );
        }
    }
}

#[test]
fn hasher_in_place_equals_rustcrypto_on_every_variant() {
    let mut rng = common::rng(0x1a7e);
    let data = common::random_bytes(&mut rng, 6_000);
    for algorithm in IN_PLACE {
        let variants: Vec<_> = algorithm.available_variants().collect();
        assert!(!variants.is_empty(), "{algorithm} has no variant here");
        for variant in variants {
            common::ran_variant(algorithm, variant.name());
            let mut hasher = Hasher::with_variant(variant);
            for len in lengths(&mut rng) {
                let message = &data[..len];
                // Fed in up to three pieces at random split points, then reused.
                let a = rng.random_range(0..=len);
                let b = rng.random_range(a..=len);
                hasher.update(&message[..a]);
                hasher.update(&message[a..b]);
                let copy = hasher.try_clone().expect("fixed-length hashers clone");
                hasher.update(&message[b..]);
                let want = peer(algorithm, message);
                assert_eq!(
                    hasher.finalize_reset().as_bytes(),
                    want,
                    "{variant} at {len}"
                );
                // The copy taken mid-message goes on on its own.
                let mut copy = copy;
                copy.update(&message[b..]);
                assert_eq!(copy.finalize().as_bytes(), want, "{variant} copy at {len}");
            }
            // Whole blocks fed a block at a time: the lazy buffer holds the last one back
            // until the end (a 64-byte SHA-256 is compressed with its padding in one call).
            for blocks in 0..=4 {
                for piece in [64, 128] {
                    let message = &data[..blocks * 128];
                    for chunk in message.chunks(piece) {
                        hasher.update(chunk);
                        hasher.update(&[]);
                    }
                    let want = peer(algorithm, message);
                    assert_eq!(
                        hasher.finalize_reset().as_bytes(),
                        want,
                        "{variant} {piece}s"
                    );
                }
            }
            // Small pieces: the lazy buffer filled by appends that start mid-block, mid-piece
            // or at a piece's edge, across block ends.
            for len in [
                1, 15, 16, 17, 55, 56, 63, 64, 65, 111, 112, 127, 128, 129, 255, 300,
            ] {
                for piece in [1, 7, 16, 33] {
                    let message = &data[..len];
                    for chunk in message.chunks(piece) {
                        hasher.update(chunk);
                    }
                    assert_eq!(
                        hasher.finalize_reset().as_bytes(),
                        peer(algorithm, message),
                        "{variant} at {len} in {piece}-byte pieces"
                    );
                }
            }
            // reset() forgets what was fed; a digest of an in-place state is not extendable.
            hasher.update(b"forgotten");
            hasher.reset();
            assert_eq!(
                hasher.finalize_reset().as_bytes(),
                peer(algorithm, b""),
                "{variant}"
            );
            let mut out = [0u8; 8];
            assert!(hasher.finalize_xof_into_reset(&mut out).is_err());
        }
    }
}

#[test]
fn builder_and_constructors_agree_on_the_in_place_hashers() {
    let message = b"The quick brown fox jumps over the lazy dog";
    for algorithm in IN_PLACE {
        let want = peer(algorithm, message);
        let built = [
            Hasher::new(algorithm),
            Hasher::with_threads(algorithm, 1),
            Hasher::builder(algorithm).build().unwrap(),
            Hasher::builder(algorithm).threads(2).build().unwrap(),
        ];
        for mut hasher in built {
            hasher.update(message);
            assert_eq!(hasher.finalize().as_bytes(), want, "{algorithm}");
        }
    }
}
