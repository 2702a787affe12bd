//! SHA-1 against the published vectors (NIST CAVP SHAVS byte-oriented ShortMsg, LongMsg and
//! Monte; RFC 2202 HMAC-SHA-1) through every implementation variant, and each compression form
//! called directly on many blocks at once. The differential test against the RustCrypto `sha1`
//! crate is in `differential.rs`.
mod common;

use common::*;
use digest::Digest;
use parhash::lab::algo::sha1::{compress, compress_with_variant, IV};
use parhash::lab::algo::Variants;
use parhash::{Algorithm, Sha1};

/// Names of the SHA-1 variants available here; prints the ones skipped.
fn available() -> Vec<&'static str> {
    let mut out = Vec::new();
    for v in Sha1::variants() {
        if v.available {
            out.push(v.name);
        } else {
            eprintln!("skipped sha1/{}: not available on this CPU", v.name);
        }
    }
    assert!(out.contains(&"sequential") && out.contains(&"parallel-portable"));
    out
}

#[test]
fn cavp_short_and_long_messages() {
    let (short, long) = (
        include_str!("vectors/sha1/SHA1ShortMsg.rsp"),
        include_str!("vectors/sha1/SHA1LongMsg.rsp"),
    );
    check_cavp_records::<Sha1>(Algorithm::Sha1, short, "ShortMsg");
    check_cavp_records::<Sha1>(Algorithm::Sha1, long, "LongMsg");
}

/// The SHAVS Monte Carlo test: for each of 100 checkpoints, `MD0 = MD1 = MD2 = Seed`, then for
/// i in 3..1003 `MDi = SHA1(MD(i-3) || MD(i-2) || MD(i-1))`; the checkpoint and the next seed
/// are `MD1002`.
#[test]
fn cavp_monte_every_variant() {
    check_monte::<Sha1>(Algorithm::Sha1, include_str!("vectors/sha1/SHA1Monte.rsp"));
}

/// Each form's compression function called directly on 0..37 blocks at once (the AVX2 form
/// takes blocks in pairs and the last odd one alone), against the `sequential` form, and the
/// chaining value of one padded block against the RustCrypto digest.
#[test]
fn compress_forms_agree_on_many_blocks() {
    let blocks: Vec<[u8; 64]> = pattern(64 * 37)
        .chunks_exact(64)
        .map(|c| c.try_into().unwrap())
        .collect();
    for n in [0, 1, 2, 3, 4, 5, 6, 7, 8, 17, 36, 37] {
        let mut expected = IV;
        assert!(compress_with_variant(
            "sequential",
            &mut expected,
            &blocks[..n]
        ));
        for v in available() {
            let mut state = IV;
            assert!(compress_with_variant(v, &mut state, &blocks[..n]));
            assert_eq!(state, expected, "sha1/{v}, {n} blocks");
        }
        let mut default = IV;
        compress(&mut default, &blocks[..n]);
        assert_eq!(default, expected, "compress, {n} blocks");
    }
    // "abc" padded by hand: one block whose chaining value is the digest.
    let mut block = [0u8; 64];
    block[..3].copy_from_slice(b"abc");
    block[3] = 0x80;
    block[63] = 24;
    let mut state = IV;
    compress(&mut state, &[block]);
    let bytes: Vec<u8> = state.iter().flat_map(|w| w.to_be_bytes()).collect();
    assert_eq!(&bytes[..], sha1::Sha1::digest(b"abc").as_slice());

    let mut untouched = IV;
    assert!(!compress_with_variant(
        "no-such-variant",
        &mut untouched,
        &blocks
    ));
    assert_eq!(untouched, IV);
}

/// RFC 2202 section 3: the seven HMAC-SHA-1 test cases through `hmac::Hmac<parhash::Sha1>`.
#[test]
fn rfc2202_hmac_sha1() {
    use hmac::{digest::KeyInit, Mac};
    let big_key = vec![0xaa; 80];
    let cases: [(Vec<u8>, Vec<u8>, &str); 7] = [
        (
            vec![0x0b; 20],
            b"Hi There".to_vec(),
            "b617318655057264e28bc0b6fb378c8ef146be00",
        ),
        (
            b"Jefe".to_vec(),
            b"what do ya want for nothing?".to_vec(),
            "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79",
        ),
        (
            vec![0xaa; 20],
            vec![0xdd; 50],
            "125d7342b9ac11cd91a39af48aa17b4f63f175d3",
        ),
        (
            (1..=25).collect(),
            vec![0xcd; 50],
            "4c9007f4026250c6bc8414f9bf50c86c2d7235da",
        ),
        (
            vec![0x0c; 20],
            b"Test With Truncation".to_vec(),
            "4c1a03424b55e07fe7f27be1d58bb9324a9a5a04",
        ),
        (
            big_key.clone(),
            b"Test Using Larger Than Block-Size Key - Hash Key First".to_vec(),
            "aa4ae5e15272d00e95705637ce8a3b55ed402112",
        ),
        (
            big_key,
            b"Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data".to_vec(),
            "e8e99d0f45237d786d6bbaa7965c7808bbff1a91",
        ),
    ];
    for (i, (key, data, expected)) in cases.iter().enumerate() {
        let mut mac = <hmac::Hmac<Sha1> as KeyInit>::new_from_slice(key).expect("any key length");
        mac.update(data);
        assert_eq!(
            hex(&mac.finalize().into_bytes()),
            *expected,
            "RFC 2202 case {}",
            i + 1
        );
    }
}

#[test]
fn registry_entry() {
    let alg = Algorithm::Sha1;
    assert_eq!(alg.name(), "sha1");
    let info = alg.info();
    assert_eq!(info.tag, "SHA1");
    assert_eq!((info.digest_size, info.block_size), (20, 64));
    assert!(info.broken);
    assert!(info.note.contains("BROKEN") && info.note.contains("FIPS 180-4"));
    for alias in ["SHA-1", "sha_1", "SHA1", "sha-1"] {
        assert_eq!(Algorithm::from_name(alias), Ok(alg), "{alias}");
    }
    // Listed right after MD5.
    let at = Algorithm::ALL.iter().position(|a| *a == alg).unwrap();
    assert_eq!(Algorithm::ALL[at - 1], Algorithm::Md5);
    // Exactly one default variant, and it is available.
    let variants = Sha1::variants();
    let defaults: Vec<_> = variants.iter().filter(|v| v.default).collect();
    assert_eq!(defaults.len(), 1, "{variants:?}");
    assert!(defaults[0].available);
}
