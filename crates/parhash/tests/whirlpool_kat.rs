//! Whirlpool against the ISO/IEC 10118-3 vectors (including one million 'a') in both forms,
//! and against the RustCrypto `whirlpool` crate.
mod common;

use common::*;
use digest::Digest;
use parhash::lab::algo::Variants;
use parhash::{Algorithm, Hasher, Whirlpool};

const ISO: &str = include_str!("vectors/whirlpool/iso-test-vectors.txt");

/// The `Len`/`Msg`/`MD` records, and the one `Repeat`/`Msg`/`MD` record (message repeated).
fn iso_vectors() -> (Vec<Kat>, (usize, Vec<u8>, Vec<u8>)) {
    let split = ISO.find("Repeat =").expect("Repeat record");
    let kats = parse_kats(&ISO[..split]);
    let mut fields = ISO[split..].lines().filter_map(|l| l.split_once('='));
    let mut next = |key: &str| {
        let (k, v) = fields.next().expect("Repeat record field");
        assert_eq!(k.trim(), key);
        v.trim().to_string()
    };
    let count = next("Repeat").parse().expect("repeat count");
    let msg = unhex(&next("Msg"));
    let md = unhex(&next("MD"));
    (kats, (count, msg, md))
}

#[test]
fn iso_vectors_every_variant() {
    let (kats, _) = iso_vectors();
    assert_eq!(kats.len(), 8);
    let names: Vec<_> = Algorithm::Whirlpool
        .variants()
        .iter()
        .map(|v| v.name)
        .collect();
    #[cfg(target_arch = "x86_64")]
    assert!(names.contains(&"fused-asm"), "{names:?}");
    assert!(
        names.contains(&"fused") && names.contains(&"reference"),
        "{names:?}"
    );
    for v in Algorithm::Whirlpool.variants() {
        common::ran_variant(Algorithm::Whirlpool, v.name);
        let mut h = Hasher::with_variant(
            Algorithm::Whirlpool
                .variant(v.name)
                .expect("always available"),
        );
        for k in &kats {
            h.update(&k.msg);
            assert_eq!(
                h.finalize_reset().as_bytes(),
                &k.md[..],
                "{} line {}",
                v.name,
                k.line
            );
        }
    }
}

#[test]
fn million_a_every_variant() {
    let (_, (count, msg, md)) = iso_vectors();
    let chunk: Vec<u8> = msg.iter().copied().cycle().take(1000 * msg.len()).collect();
    assert_eq!(count % 1000, 0);
    for v in Algorithm::Whirlpool.variants() {
        let mut h = Whirlpool::with_variant(v.name).expect("always available");
        for _ in 0..count / 1000 {
            Digest::update(&mut h, &chunk);
        }
        assert_eq!(h.finalize().as_slice(), &md[..], "{}", v.name);
    }
}

#[test]
fn differential_against_whirlpool_crate() {
    let plan = Differential {
        cases: (40, 400),
        max_len: 20000,
        slow: None,
    };
    differential_every_variant::<Whirlpool>(Algorithm::Whirlpool, 64, 0x5eed_0f1a, plan, |d| {
        whirlpool::Whirlpool::digest(d).to_vec()
    });
}
