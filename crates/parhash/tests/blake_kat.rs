//! BLAKE-224/256/384/512 (final version) against the NIST ShortMsgKAT files and the BLAKE
//! specification's examples, through every variant; BLAKE-224/384 (no KAT files here) and all
//! four against the `blake-hash` crate; streaming, `Digest` and the dynamic `Hasher` agree.
mod common;

use common::*;
use digest::Digest;
use parhash::{Algorithm, Blake224, Blake256, Blake384, Blake512, Hasher, Variants};

/// Hashes `msg` with every available variant of `H`, checks each against `expected`.
fn check_all_variants<H: Variants + Digest>(msg: &[u8], expected: &[u8], what: &str) {
    let mut ran = 0;
    for v in H::variants() {
        let Some(mut h) = H::with_variant(v.name) else {
            assert!(
                !v.available,
                "{} says available but cannot be built",
                v.name
            );
            println!("skipped (unavailable here): {}", v.name);
            continue;
        };
        Digest::update(&mut h, msg);
        assert_eq!(
            h.finalize().as_slice(),
            expected,
            "{what} variant {}",
            v.name
        );
        ran += 1;
    }
    assert!(
        ran >= 3,
        "sequential, parallel and parallel-portable always run"
    );
}

#[test]
fn blake256_short_msg_kat_every_variant() {
    let kats = byte_aligned(parse_kats(include_str!(
        "vectors/blake256/ShortMsgKAT_256.sphlib.txt"
    )));
    assert_eq!(kats.len(), 256);
    for k in kats {
        check_all_variants::<Blake256>(&k.msg, &k.md, &format!("line {}", k.line));
    }
}

#[test]
fn blake512_short_msg_kat_every_variant() {
    let kats = byte_aligned(parse_kats(include_str!(
        "vectors/blake512/ShortMsgKAT_512.sphlib.txt"
    )));
    assert_eq!(kats.len(), 256);
    for k in kats {
        check_all_variants::<Blake512>(&k.msg, &k.md, &format!("line {}", k.line));
    }
}

#[test]
fn specification_examples() {
    let k256 = parse_kats(include_str!("vectors/blake256/spec_examples.txt"));
    let k512 = parse_kats(include_str!("vectors/blake512/spec_examples.txt"));
    assert_eq!((k256.len(), k512.len()), (2, 2));
    for k in k256 {
        check_all_variants::<Blake256>(&k.msg, &k.md, &format!("spec line {}", k.line));
    }
    for k in k512 {
        check_all_variants::<Blake512>(&k.msg, &k.md, &format!("spec line {}", k.line));
    }
}

/// One-shot through the oracle crate (digest 0.9 API, hence the full paths).
fn oracle(alg: Algorithm, data: &[u8]) -> Vec<u8> {
    use blake_hash::Digest as _;
    match alg {
        Algorithm::Blake224 => blake_hash::Blake224::digest(data).to_vec(),
        Algorithm::Blake256 => blake_hash::Blake256::digest(data).to_vec(),
        Algorithm::Blake384 => blake_hash::Blake384::digest(data).to_vec(),
        Algorithm::Blake512 => blake_hash::Blake512::digest(data).to_vec(),
        _ => unreachable!(),
    }
}

/// Every variant, streamed at random splits, through the typed and the dynamic API.
fn differential<H: Variants + Digest + Clone + digest::Reset>(
    alg: Algorithm,
    block: usize,
    seed: u64,
) {
    let mut r = rng(seed);
    let mut lengths = boundary_lengths(block);
    for _ in 0..cases(40, 400) {
        lengths.push(rand::Rng::random_range(&mut r, 0..=5000));
    }
    for len in lengths {
        let data = random_bytes(&mut r, len);
        let expected = oracle(alg, &data);
        assert_eq!(
            H::digest(&data).as_slice(),
            &expected[..],
            "{alg} len {len}"
        );
        assert_eq!(parhash::hash(alg, &data).as_bytes(), &expected[..]);
        for v in H::variants().into_iter().filter(|v| v.available) {
            let mut typed = H::with_variant(v.name).expect("available");
            let mut dynamic = Hasher::with_variant(alg, v.name).expect("available");
            for piece in random_splits(&mut r, len) {
                Digest::update(&mut typed, &data[piece.clone()]);
                dynamic.update(&data[piece]);
            }
            let mut reused = typed.clone();
            assert_eq!(
                typed.finalize().as_slice(),
                &expected[..],
                "{} len {len}",
                v.name
            );
            assert_eq!(
                dynamic.finalize().as_bytes(),
                &expected[..],
                "{} len {len}",
                v.name
            );
            // After reset the hasher starts from the IV again.
            Digest::reset(&mut reused);
            Digest::update(&mut reused, &data);
            assert_eq!(
                reused.finalize().as_slice(),
                &expected[..],
                "reset {}",
                v.name
            );
        }
    }
}

#[test]
fn blake224_against_blake_hash_crate() {
    differential::<Blake224>(Algorithm::Blake224, 64, 0xb1a4_e224);
}

#[test]
fn blake256_against_blake_hash_crate() {
    differential::<Blake256>(Algorithm::Blake256, 64, 0xb1a4_e256);
}

#[test]
fn blake384_against_blake_hash_crate() {
    differential::<Blake384>(Algorithm::Blake384, 128, 0xb1a4_e384);
}

#[test]
fn blake512_against_blake_hash_crate() {
    differential::<Blake512>(Algorithm::Blake512, 128, 0xb1a4_e512);
}

#[test]
fn registry_names() {
    for (name, alg) in [
        ("blake-256", Algorithm::Blake256),
        ("blake32", Algorithm::Blake256),
        ("blake64", Algorithm::Blake512),
        ("BLAKE-224", Algorithm::Blake224),
        ("blake384", Algorithm::Blake384),
    ] {
        assert_eq!(name.parse::<Algorithm>().unwrap(), alg, "{name}");
    }
}
