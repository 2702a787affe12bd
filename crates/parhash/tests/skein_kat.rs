//! Skein v1.3 against the NIST ShortMsgKAT files (Skein-512-256, Skein-512-512) through every
//! variant; all six implemented sizes against the RustCrypto `skein` crate; streaming, `Digest`,
//! reset and the dynamic `Hasher` agree.
mod common;

use common::*;
use digest::Digest;
use parhash::lab::algo::Variants;
use parhash::{
    Algorithm, Skein1024_1024, Skein256_256, Skein512_224, Skein512_256, Skein512_384, Skein512_512,
};

#[test]
fn skein512_256_short_msg_kat_every_variant() {
    check_short_msg_kat::<Skein512_256>(
        Algorithm::Skein512_256,
        include_str!("vectors/skein512-256/ShortMsgKAT_256.sphlib.txt"),
    );
}

#[test]
fn skein512_512_short_msg_kat_every_variant() {
    check_short_msg_kat::<Skein512_512>(
        Algorithm::Skein512_512,
        include_str!("vectors/skein512-512/ShortMsgKAT_512.sphlib.txt"),
    );
}

fn differential<H: Variants + Digest + Clone + digest::Reset>(
    alg: Algorithm,
    block: usize,
    seed: u64,
) {
    let plan = Differential {
        cases: (30, 300),
        max_len: 5000,
        slow: None,
    };
    differential_every_variant::<H>(alg, block, seed, plan, |d| {
        oracle(alg, d).expect("the skein crate has every implemented size")
    });
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
    assert_names_resolve(&[
        ("skein512-256", Algorithm::Skein512_256),
        ("SKEIN512-512", Algorithm::Skein512_512),
        ("skein-512-224", Algorithm::Skein512_224),
        ("skein1024-1024", Algorithm::Skein1024_1024),
        ("skein256-256", Algorithm::Skein256_256),
    ]);
}
