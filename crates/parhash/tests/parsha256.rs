//! PARSHA-256: the paper's vectors, the literal reference's invariants, and the fast engine
//! against the reference.
mod common;

use common::*;
use parhash::tree::parsha256::{reference, ParshaError};

/// The paper's Appendix A: (l, digest).
fn appendix_a() -> Vec<(u32, Vec<u8>)> {
    include_str!("vectors/parsha256/appendix-a.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let (l, words) = line.split_once(' ').expect("iv-bits then digest");
            (l.parse().expect("iv bits"), unhex(&words.replace(' ', "")))
        })
        .collect()
}

fn appendix_message() -> Vec<u8> {
    b"abcdefgh".repeat(128)
}

#[test]
fn reference_matches_the_paper() {
    let vectors = appendix_a();
    assert_eq!(vectors.len(), 3);
    for (l, expected) in vectors {
        for big_t in [3, 4, 5, 8, 16] {
            let (t, z) = reference::parsha256(&appendix_message(), big_t, l).unwrap();
            assert_eq!(t, 3, "l {l} T {big_t}");
            assert_eq!(hex(&z), hex(&expected), "l {l} T {big_t}");
        }
    }
}

#[test]
fn invalid_parameters_are_errors() {
    assert_eq!(
        reference::parsha256(b"", 0, 256),
        Err(ParshaError::InvalidTreeHeight(0))
    );
    assert_eq!(
        reference::parsha256(b"", 41, 256),
        Err(ParshaError::InvalidTreeHeight(41))
    );
    assert_eq!(
        reference::parsha256(b"", 3, 64),
        Err(ParshaError::InvalidIvBits(64))
    );
}

/// The reference checks the paper's invariants itself (0/m/n-bit inputs, exact cover of the
/// padded message, bit conservation); run it over every t, q = 0 and q > 0, every l.
#[test]
fn reference_invariants_hold_across_shapes() {
    let mut r = rng(0x9a25_0001);
    for l in [0u32, 128, 256] {
        for big_t in 1..=6 {
            for _ in 0..cases(6, 40) {
                let len = rand::Rng::random_range(&mut r, 0..=6000);
                let data = random_bytes(&mut r, len);
                reference::parsha256_counted(&data, big_t, l).unwrap();
            }
        }
    }
}

/// The reference's own h is SHA-256's compression: one padded block of "abc" from the standard
/// initial value must give SHA-256("abc") (checked against the `sha2` crate).
#[test]
fn reference_compression_is_sha256() {
    use sha2::Digest;
    let iv: Vec<u8> = [
        0x6a09e667u32,
        0xbb67ae85,
        0x3c6ef372,
        0xa54ff53a,
        0x510e527f,
        0x9b05688c,
        0x1f83d9ab,
        0x5be0cd19,
    ]
    .iter()
    .flat_map(|w| w.to_be_bytes())
    .collect();
    let mut block = vec![0u8; 64];
    block[..3].copy_from_slice(b"abc");
    block[3] = 0x80;
    block[63] = 24;
    let y = [iv, block].concat();
    assert_eq!(reference::h(&y), sha2::Sha256::digest(b"abc").to_vec());
}
