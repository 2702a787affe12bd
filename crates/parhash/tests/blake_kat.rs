//! BLAKE-224/256/384/512 (final version) against the NIST ShortMsgKAT files and the BLAKE
//! specification's examples, through every variant; BLAKE-224/384 (no KAT files here) and all
//! four against the `blake-hash` crate; streaming, `Digest` and the dynamic `Hasher` agree.
mod common;

use common::*;
use digest::Digest;
use parhash::lab::algo::Variants;
use parhash::{Algorithm, Blake224, Blake256, Blake384, Blake512};

#[test]
fn blake256_short_msg_kat_every_variant() {
    let ran = check_short_msg_kat::<Blake256>(
        Algorithm::Blake256,
        include_str!("vectors/blake256/ShortMsgKAT_256.sphlib.txt"),
    );
    assert!(
        ran >= 3,
        "sequential, parallel and parallel-portable always run"
    );
}

#[test]
fn blake512_short_msg_kat_every_variant() {
    let ran = check_short_msg_kat::<Blake512>(
        Algorithm::Blake512,
        include_str!("vectors/blake512/ShortMsgKAT_512.sphlib.txt"),
    );
    assert!(
        ran >= 3,
        "sequential, parallel and parallel-portable always run"
    );
}

#[test]
fn specification_examples() {
    let k256 = parse_kats(include_str!("vectors/blake256/spec_examples.txt"));
    let k512 = parse_kats(include_str!("vectors/blake512/spec_examples.txt"));
    assert_eq!((k256.len(), k512.len()), (2, 2));
    check_records_every_variant::<Blake256>(Algorithm::Blake256, &k256, "spec");
    check_records_every_variant::<Blake512>(Algorithm::Blake512, &k512, "spec");
}

/// Every variant, streamed at random splits, through the typed and the dynamic API.
fn differential<H: Variants + Digest + Clone + digest::Reset>(
    alg: Algorithm,
    block: usize,
    seed: u64,
) {
    let plan = Differential {
        cases: (40, 400),
        max_len: 5000,
        slow: None,
    };
    differential_every_variant::<H>(alg, block, seed, plan, |d| {
        oracle(alg, d).expect("blake-hash has every BLAKE size")
    });
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
    assert_names_resolve(&[
        ("blake-256", Algorithm::Blake256),
        ("blake32", Algorithm::Blake256),
        ("blake64", Algorithm::Blake512),
        ("BLAKE-224", Algorithm::Blake224),
        ("blake384", Algorithm::Blake384),
    ]);
}
