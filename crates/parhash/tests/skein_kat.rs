//! Skein v1.3 against the NIST ShortMsgKAT files (Skein-512-256, Skein-512-512) through every
//! variant; all six implemented sizes against the RustCrypto `skein` crate; streaming, `Digest`,
//! reset and the dynamic `Hasher` agree.
mod common;

use common::*;
use digest::Digest;
use parhash::{
    Algorithm, Hasher, Skein1024_1024, Skein256_256, Skein512_224, Skein512_256, Skein512_384,
    Skein512_512, Variants,
};

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
    assert!(ran >= 1);
}

#[test]
fn skein512_256_short_msg_kat_every_variant() {
    let kats = byte_aligned(parse_kats(include_str!(
        "vectors/skein512-256/ShortMsgKAT_256.sphlib.txt"
    )));
    assert_eq!(kats.len(), 256);
    for k in kats {
        check_all_variants::<Skein512_256>(&k.msg, &k.md, &format!("line {}", k.line));
    }
}

#[test]
fn skein512_512_short_msg_kat_every_variant() {
    let kats = byte_aligned(parse_kats(include_str!(
        "vectors/skein512-512/ShortMsgKAT_512.sphlib.txt"
    )));
    assert_eq!(kats.len(), 256);
    for k in kats {
        check_all_variants::<Skein512_512>(&k.msg, &k.md, &format!("line {}", k.line));
    }
}

fn oracle(alg: Algorithm, data: &[u8]) -> Vec<u8> {
    use skein::digest::consts::{U28, U48};
    match alg {
        Algorithm::Skein512_224 => skein::Skein512::<U28>::digest(data).to_vec(),
        Algorithm::Skein512_256 => skein::Skein512_256::digest(data).to_vec(),
        Algorithm::Skein512_384 => skein::Skein512::<U48>::digest(data).to_vec(),
        Algorithm::Skein512_512 => skein::Skein512_512::digest(data).to_vec(),
        Algorithm::Skein256_256 => skein::Skein256_256::digest(data).to_vec(),
        Algorithm::Skein1024_1024 => skein::Skein1024_1024::digest(data).to_vec(),
        _ => unreachable!(),
    }
}

fn differential<H: Variants + Digest + Clone + digest::Reset>(
    alg: Algorithm,
    block: usize,
    seed: u64,
) {
    let mut r = rng(seed);
    let mut lengths = boundary_lengths(block);
    for _ in 0..cases(30, 300) {
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
fn skein512_224_against_skein_crate() {
    differential::<Skein512_224>(Algorithm::Skein512_224, 64, 0x5ce1_0224);
}

#[test]
fn skein512_256_against_skein_crate() {
    differential::<Skein512_256>(Algorithm::Skein512_256, 64, 0x5ce1_0256);
}

#[test]
fn skein512_384_against_skein_crate() {
    differential::<Skein512_384>(Algorithm::Skein512_384, 64, 0x5ce1_0384);
}

#[test]
fn skein512_512_against_skein_crate() {
    differential::<Skein512_512>(Algorithm::Skein512_512, 64, 0x5ce1_0512);
}

#[test]
fn skein256_256_against_skein_crate() {
    differential::<Skein256_256>(Algorithm::Skein256_256, 32, 0x5ce1_2256);
}

#[test]
fn skein1024_1024_against_skein_crate() {
    differential::<Skein1024_1024>(Algorithm::Skein1024_1024, 128, 0x5ce1_1024);
}

#[test]
fn registry_names() {
    for (name, alg) in [
        ("skein512-256", Algorithm::Skein512_256),
        ("SKEIN512-512", Algorithm::Skein512_512),
        ("skein-512-224", Algorithm::Skein512_224),
        ("skein1024-1024", Algorithm::Skein1024_1024),
        ("skein256-256", Algorithm::Skein256_256),
    ] {
        assert_eq!(name.parse::<Algorithm>().unwrap(), alg, "{name}");
    }
}
