//! JH-224/256/384/512 against the round-3 ShortMsgKAT files and the RustCrypto `jh`
//! crate, through every implementation variant.
mod common;

use common::*;
use digest::Digest;
use parhash::lab::algo::Variants;
use parhash::{Algorithm, Jh224, Jh256, Jh384, Jh512};

#[test]
fn jh256_short_msg_kat() {
    check_short_msg_kat::<Jh256>(
        Algorithm::Jh256,
        include_str!("vectors/jh256/ShortMsgKAT_256.sphlib.txt"),
    );
}

#[test]
fn jh512_short_msg_kat() {
    check_short_msg_kat::<Jh512>(
        Algorithm::Jh512,
        include_str!("vectors/jh512/ShortMsgKAT_512.sphlib.txt"),
    );
}

/// Every variant, streamed in random pieces, and the dynamic hasher, against the crate.
fn differential<T, Oracle>(alg: Algorithm, block: usize, seed: u64)
where
    T: Variants + Digest + Clone + digest::Reset,
    Oracle: Digest,
{
    let plan = Differential {
        cases: (40, 400),
        max_len: 5000,
        // The literal element-wise form is slow in debug builds: long inputs only in release.
        slow: Some(("sequential", cases(2048, 1 << 20))),
    };
    differential_every_variant::<T>(alg, block, seed, plan, |d| Oracle::digest(d).to_vec());
}

#[test]
fn differential_jh224() {
    differential::<Jh224, jh::Jh224>(Algorithm::Jh224, 64, 0x7_0224);
}

#[test]
fn differential_jh256() {
    differential::<Jh256, jh::Jh256>(Algorithm::Jh256, 64, 0x7_0256);
}

#[test]
fn differential_jh384() {
    differential::<Jh384, jh::Jh384>(Algorithm::Jh384, 64, 0x7_0384);
}

#[test]
fn differential_jh512() {
    differential::<Jh512, jh::Jh512>(Algorithm::Jh512, 64, 0x7_0512);
}

#[test]
fn streaming_reset_and_byte_pieces() {
    check_pieces_after_reset::<Jh256>(1000);
}

#[test]
fn names_resolve() {
    assert_names_resolve(&[
        ("jh224", Algorithm::Jh224),
        ("JH-256", Algorithm::Jh256),
        ("jh_384", Algorithm::Jh384),
        ("JH512", Algorithm::Jh512),
    ]);
}
