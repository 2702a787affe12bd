//! Whirlpool against the ISO/IEC 10118-3 vectors (including one million 'a') in every form.
//! The differential test against the RustCrypto `whirlpool` crate is in `differential.rs`.
mod common;

use common::*;
use digest::Digest;
use parhash::lab::algo::Variants;
use parhash::{Algorithm, Whirlpool};

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
    let ran = check_records_dynamic(Algorithm::Whirlpool, &kats, "ISO");
    assert_eq!(ran, names.len(), "every variant is always available");
}

#[test]
fn million_a_every_variant() {
    let (_, (count, msg, md)) = iso_vectors();
    let chunk: Vec<u8> = msg.iter().copied().cycle().take(1000 * msg.len()).collect();
    assert_eq!(count % 1000, 0);
    let variants = Whirlpool::available_variants();
    assert_eq!(
        variants.len(),
        Algorithm::Whirlpool.variants().len(),
        "always available"
    );
    for v in variants {
        let mut h = Whirlpool::with_variant(v);
        for _ in 0..count / 1000 {
            Digest::update(&mut h, &chunk);
        }
        assert_eq!(h.finalize().as_slice(), &md[..], "{v}");
    }
}
