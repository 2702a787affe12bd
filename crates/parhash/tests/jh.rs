//! JH-224/256/384/512 against the round-3 ShortMsgKAT files and the RustCrypto `jh`
//! crate, through every implementation variant.
mod common;

use common::*;
use digest::Digest;
use parhash::{hash, Algorithm, Hasher, Jh224, Jh256, Jh384, Jh512, Variants};

/// Names of the variants available on this CPU (the skipped ones are printed).
fn available_variants<T: Variants>() -> Vec<&'static str> {
    T::variants()
        .into_iter()
        .filter(|v| {
            if !v.available {
                eprintln!("skipped variant {}: not available on this CPU", v.name);
            }
            v.available
        })
        .map(|v| v.name)
        .collect()
}

fn check_kats<T: Variants + Digest>(text: &str, alg: Algorithm) {
    let kats = byte_aligned(parse_kats(text));
    assert_eq!(kats.len(), 256);
    for variant in available_variants::<T>() {
        for k in &kats {
            let mut h = T::with_variant(variant).expect("available variant");
            Digest::update(&mut h, &k.msg);
            assert_eq!(
                h.finalize().as_slice(),
                &k.md[..],
                "{alg} {variant} line {}",
                k.line
            );
        }
    }
    for k in &kats {
        assert_eq!(hash(alg, &k.msg).as_bytes(), &k.md[..], "line {}", k.line);
    }
}

#[test]
fn jh256_short_msg_kat() {
    check_kats::<Jh256>(
        include_str!("vectors/jh256/ShortMsgKAT_256.sphlib.txt"),
        Algorithm::Jh256,
    );
}

#[test]
fn jh512_short_msg_kat() {
    check_kats::<Jh512>(
        include_str!("vectors/jh512/ShortMsgKAT_512.sphlib.txt"),
        Algorithm::Jh512,
    );
}

/// Every variant, streamed in random pieces, and the dynamic hasher, against the crate.
fn differential<T, Oracle>(alg: Algorithm, block: usize, seed: u64)
where
    T: Variants + Digest + Clone,
    Oracle: Digest,
{
    let mut r = rng(seed);
    let mut lengths = boundary_lengths(block);
    for _ in 0..cases(40, 400) {
        lengths.push(rand::Rng::random_range(&mut r, 0..=5000));
    }
    let variants = available_variants::<T>();
    for len in lengths {
        let data = random_bytes(&mut r, len);
        let expected = Oracle::digest(&data);
        let splits = random_splits(&mut r, len);
        for &variant in &variants {
            // The literal element-wise form is slow in debug builds: long inputs only in release.
            if variant == "sequential" && len > cases(2048, 1 << 20) {
                continue;
            }
            let mut h = T::with_variant(variant).expect("available variant");
            for piece in &splits {
                Digest::update(&mut h, &data[piece.clone()]);
            }
            assert_eq!(
                h.finalize().as_slice(),
                expected.as_slice(),
                "{alg} {variant} len {len}"
            );
        }
        let mut dynamic = Hasher::new(alg);
        for piece in &splits {
            dynamic.update(&data[piece.clone()]);
        }
        assert_eq!(
            dynamic.finalize().as_bytes(),
            expected.as_slice(),
            "{alg} len {len}"
        );
        assert_eq!(
            T::digest(&data).as_slice(),
            expected.as_slice(),
            "{alg} one-shot len {len}"
        );
        assert_eq!(hash(alg, &data).as_bytes(), expected.as_slice());
    }
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
    let data = pattern(1000);
    let expected = Jh256::digest(&data);
    for variant in available_variants::<Jh256>() {
        let mut h = Jh256::with_variant(variant).expect("available");
        // Garbage first, then reset: the variant must survive the reset.
        Digest::update(&mut h, b"garbage");
        Digest::reset(&mut h);
        for piece_len in 1..=16 {
            for piece in data.chunks(piece_len) {
                Digest::update(&mut h, piece);
            }
            assert_eq!(
                h.finalize_reset(),
                expected,
                "{variant} pieces of {piece_len}"
            );
        }
    }
}

#[test]
fn names_resolve() {
    for (name, alg) in [
        ("jh224", Algorithm::Jh224),
        ("JH-256", Algorithm::Jh256),
        ("jh_384", Algorithm::Jh384),
        ("JH512", Algorithm::Jh512),
    ] {
        assert_eq!(Algorithm::from_name(name), Ok(alg), "{name}");
    }
}
