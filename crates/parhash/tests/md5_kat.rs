//! MD5 against the RFC 1321 test suite and the RustCrypto `md-5` crate, through every
//! implementation variant.
mod common;

use common::*;
use digest::Digest;
use parhash::lab::algo::Variants;
use parhash::{hash, Algorithm, Hasher, Md5};

#[test]
fn rfc1321_suite() {
    let kats = parse_kats(include_str!("vectors/md5/rfc-1321.txt"));
    assert_eq!(kats.len(), 7);
    for k in &kats {
        assert_eq!(Md5::digest(&k.msg).as_slice(), &k.md[..], "line {}", k.line);
        assert_eq!(hash(Algorithm::Md5, &k.msg).as_bytes(), &k.md[..]);
    }
    let variants = available_variants::<Md5>();
    assert!(variants.contains(&"sequential") && variants.contains(&"parallel-portable"));
    #[cfg(target_arch = "x86_64")]
    assert!(variants.contains(&"scheduled"), "{variants:?}");
    for variant in variants {
        common::ran_variant(Algorithm::Md5, variant);
        let mut dynamic = Hasher::with_variant(Algorithm::Md5.variant(variant).expect("available"));
        for k in &kats {
            let typed = Md5::with_variant(variant).expect("available");
            let at = format!("md5/{variant}: line {}", k.line);
            assert_eq!(
                typed.chain_update(&k.msg).finalize().as_slice(),
                &k.md[..],
                "{at}"
            );
            dynamic.update(&k.msg);
            assert_eq!(dynamic.finalize_reset().as_bytes(), &k.md[..], "{at}");
        }
    }
}

#[test]
fn differential_against_md5_crate() {
    let mut r = rng(0x5eed_0005);
    let mut lengths = boundary_lengths(64);
    for _ in 0..cases(200, 2000) {
        lengths.push(rand::Rng::random_range(&mut r, 0..=20000));
    }
    let variants = available_variants::<Md5>();
    for len in lengths {
        let data = random_bytes(&mut r, len);
        let expected = md5::Md5::digest(&data);
        let mut h = Hasher::new(Algorithm::Md5);
        let mut d = Md5::new();
        for piece in random_splits(&mut r, len) {
            h.update(&data[piece.clone()]);
            Digest::update(&mut d, &data[piece]);
        }
        assert_eq!(h.finalize().as_bytes(), expected.as_slice(), "len {len}");
        assert_eq!(d.finalize().as_slice(), expected.as_slice(), "len {len}");
        for &variant in &variants {
            let mut forced = Md5::with_variant(variant).expect("available");
            for piece in random_splits(&mut r, len) {
                Digest::update(&mut forced, &data[piece]);
            }
            assert_eq!(
                forced.finalize().as_slice(),
                expected.as_slice(),
                "md5/{variant}: len {len}"
            );
        }
    }
}
