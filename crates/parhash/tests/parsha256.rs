//! PARSHA-256: the paper's vectors, the literal reference's invariants, and the fast engine
//! against the reference.
mod common;

use common::*;
use parhash::lab::algo::parsha256::{reference, ParshaError};

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

// ---- The fast engine against the paper and the reference ----

use parhash::lab::lanes::{Kernel, Width};
use parhash::parsha256::{parsha256, parsha256_with, Parsha256Hasher, ParshaOptions};

/// Every (threads, kernel) the fast engine is run with in the differential tests.
fn configurations() -> Vec<ParshaOptions> {
    let mut v = Vec::new();
    for threads in [1, 2, 3, 8] {
        for kernel in Kernel::all(true) {
            v.push(ParshaOptions {
                threads: threads.into(),
                kernel: Some(kernel),
            });
        }
    }
    v.push(ParshaOptions::default());
    v
}

/// The fast engine in every configuration, and the streaming hasher (one random split), must
/// give the reference's (t, z).
fn check_against_reference(data: &[u8], big_t: u32, l: u32, configs: &[ParshaOptions]) {
    let expected = reference::parsha256(data, big_t, l).unwrap();
    for options in configs {
        let got = parsha256_with(data, big_t, l, options).unwrap();
        assert_eq!(
            got,
            expected,
            "len {} T {big_t} l {l} {options:?}",
            data.len()
        );
    }
    let mut r = rng(data.len() as u64 ^ u64::from(big_t) << 40 ^ u64::from(l) << 48);
    let mut hasher =
        Parsha256Hasher::new(data.len() as u64, big_t, l, &configs[0]).expect("valid params");
    for piece in random_splits(&mut r, data.len()) {
        hasher.update(&data[piece]);
    }
    assert_eq!(
        hasher.finalize().unwrap(),
        expected,
        "streaming len {} T {big_t} l {l}",
        data.len()
    );
}

#[test]
fn fast_matches_the_paper() {
    for (l, expected) in appendix_a() {
        for options in configurations() {
            for big_t in [3, 4, 13] {
                let (t, z) = parsha256_with(&appendix_message(), big_t, l, &options).unwrap();
                assert_eq!((t, hex(&z)), (3, hex(&expected)), "l {l} {options:?}");
            }
        }
        let (t, z) = parsha256(&appendix_message(), 3, l).unwrap();
        assert_eq!((t, z.to_vec()), (3, expected));
    }
}

/// Random lengths up to 200000 bytes for every T in 1..=16 and every l: one short-ish and one
/// long length per (T, l), each against every thread count and kernel.
#[test]
fn fast_matches_reference_on_random_lengths() {
    let configs = configurations();
    let mut r = rng(0x9a25_0002);
    for l in [0u32, 128, 256] {
        for big_t in 1..=16 {
            let mut lengths = vec![rand::Rng::random_range(&mut r, 0..=4000)];
            for _ in 0..cases(3, 8) {
                lengths.push(rand::Rng::random_range(&mut r, 0..=200_000));
            }
            for len in lengths {
                let data = random_bytes(&mut r, len);
                check_against_reference(&data, big_t, l, &configs);
            }
        }
    }
}

/// Messages of several MiB (many rounds, several ~1 MiB slices of rounds for the threads to
/// take, full trees at large T), large enough that every thread count really starts its
/// threads, with every kernel forced. (Many 64 MiB chunks: the engine's own unit test, with
/// small chunks.)
#[test]
fn fast_matches_reference_on_large_messages() {
    let mut r = rng(0x9a25_0003);
    let mut configs = vec![ParshaOptions::default()];
    for kernel in Kernel::all(true) {
        for threads in [1, 2, 3] {
            configs.push(ParshaOptions {
                threads: threads.into(),
                kernel: Some(kernel),
            });
        }
    }
    for case in 0..cases(3, 6) {
        let len = rand::Rng::random_range(&mut r, 2_000_000..=9_000_000);
        let big_t = if case == 0 {
            13
        } else {
            [2u32, 8, 13, 16][rand::Rng::random_range(&mut r, 0..4)]
        };
        let l = [0u32, 128, 256][rand::Rng::random_range(&mut r, 0..3)];
        let data = random_bytes(&mut r, len);
        check_against_reference(&data, big_t, l, &configs);
    }
}

/// `count` random cases, each a message with its length from `lens`, a tree height from
/// `heights` and an IV length of 0, 128 or 256 bits (drawn in that order): the streaming hasher
/// set up for them and fed by `feed` gives the one-shot digest.
fn check_streaming(
    seed: u64,
    count: usize,
    lens: std::ops::RangeInclusive<usize>,
    heights: std::ops::RangeInclusive<u32>,
    mut feed: impl FnMut(&mut rand::rngs::StdRng, &[u8], &mut Parsha256Hasher),
) {
    let mut r = rng(seed);
    for _ in 0..count {
        let len = rand::Rng::random_range(&mut r, lens.clone());
        let big_t = rand::Rng::random_range(&mut r, heights.clone());
        let l = [0u32, 128, 256][rand::Rng::random_range(&mut r, 0..3)];
        let data = random_bytes(&mut r, len);
        let expected = parsha256(&data, big_t, l).unwrap();
        let mut hasher =
            Parsha256Hasher::new(len as u64, big_t, l, &ParshaOptions::default()).unwrap();
        feed(&mut r, &data, &mut hasher);
        let at = format!("len {len} T {big_t} l {l}");
        assert_eq!(hasher.finalize().unwrap(), expected, "{at}");
    }
}

/// The streaming hasher fed many pieces of a multi-round message: pieces that end inside a
/// round (buffered, completed by the next piece), pieces holding several chunks of rounds
/// (hashed in place), tiny pieces.
#[test]
fn streaming_hasher_in_many_pieces() {
    let lens = 500_000..=3_000_000;
    check_streaming(
        0x9a25_0006,
        cases(3, 12),
        lens,
        3..=13,
        |r, data, hasher| {
            let mut at = 0;
            while at < data.len() {
                let most = [7usize, 4096, 100_000, 1 << 20][rand::Rng::random_range(r, 0..4)];
                let n = rand::Rng::random_range(r, 0..=most).min(data.len() - at);
                hasher.update(&data[at..at + n]);
                at += n;
            }
        },
    );
}

/// Lengths in bytes where the shape changes, for (T, l): the short path's end (L = n - l), the
/// band up to delta(1), every delta(i) for i <= T + 1, the q boundaries above delta(t) and the
/// b boundaries inside one round.
fn edge_lengths(big_t: u32, l: u32) -> Vec<usize> {
    let unit = (1024 - l as usize) / 8;
    let delta = |i: u32| (1usize << i) * unit - 32;
    let mut v = vec![
        0,
        1,
        95 - l as usize / 8,
        96 - l as usize / 8,
        97 - l as usize / 8,
    ];
    let mut around = |x: usize| v.extend([x.saturating_sub(1), x, x + 1]);
    for i in 1..=big_t + 1 {
        around(delta(i));
    }
    let t = big_t;
    let lambda = (1usize << (t - 1)) * unit;
    for q in 1..=2 {
        around(delta(t) + q * lambda);
    }
    for b in 1..=3 {
        around(delta(t) + b * unit);
        if b * unit < lambda {
            around(delta(t) + lambda - b * unit);
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn fast_matches_reference_at_shape_boundaries() {
    let configs = [
        ParshaOptions {
            threads: 1.into(),
            kernel: Some(Width::Portable.into()),
        },
        ParshaOptions {
            threads: 3.into(),
            kernel: None,
        },
    ];
    // Large T reach delta(T + 1) and beyond: some MiB per length.
    for l in [0u32, 128, 256] {
        for big_t in [1u32, 2, 3, 4, 6, 9, 12, 14] {
            for len in edge_lengths(big_t, l) {
                check_against_reference(&pattern(len), big_t, l, &configs);
            }
        }
    }
}

/// The short-message band (n - l < L < delta(1)) is zero-padded to delta(1) and L := delta(1),
/// so, read literally, messages there that differ only by trailing zero bytes collide. The fast
/// engine must reproduce this (documented in docs/cli.md, "One long file on all cores: tree modes
/// and BLAKE3"), not "fix" it.
#[test]
fn short_band_collides_on_trailing_zeros_as_specified() {
    for l in [0u32, 128, 256] {
        // The band is 97 - l/8 ..= delta(1)/8 - 1 bytes; delta(1) = 1792 - 2l bits.
        let band_start = 96 - l as usize / 8 + 1;
        let delta1 = (1792 - 2 * l as usize) / 8;
        let mut x = pattern(band_start);
        x[band_start - 1] = 1;
        let digest = reference::parsha256(&x, 5, l).unwrap();
        // Every zero extension up to delta(1) bytes, that length included, collides.
        for len in [band_start + 1, band_start + 7, delta1 - 1, delta1] {
            let mut y = x.clone();
            y.resize(len, 0);
            assert_eq!(
                reference::parsha256(&y, 5, l).unwrap(),
                digest,
                "l {l} len {len}"
            );
            assert_eq!(parsha256(&y, 5, l).unwrap(), digest, "l {l} len {len}");
        }
        // Past delta(1) the length is the message's own again, and so is the digest.
        let mut z = x.clone();
        z.resize(delta1 + 1, 0);
        assert_ne!(parsha256(&z, 5, l).unwrap(), digest, "l {l}");
        // Outside the band (the short path) the length is hashed in: a pair differing by a
        // trailing zero differs.
        assert_ne!(parsha256(&x[..1], 5, l), parsha256(&[x[0], 0], 5, l));
    }
}

/// The streaming hasher over random split points, and its length checks.
#[test]
fn streaming_hasher_matches_one_shot_and_checks_length() {
    check_streaming(
        0x9a25_0004,
        cases(20, 100),
        0..=300_000,
        1..=14,
        |r, data, hasher| {
            for piece in random_splits(r, data.len()) {
                hasher.update(&data[piece]);
            }
        },
    );
    let options = ParshaOptions::default();
    let mut short = Parsha256Hasher::new(10_000, 8, 256, &options).unwrap();
    short.update(&[0; 9_999]);
    assert_eq!(
        short.finalize(),
        Err(ParshaError::LengthMismatch {
            declared: 10_000,
            received: 9_999
        })
    );
    let mut long = Parsha256Hasher::new(10, 8, 256, &options).unwrap();
    long.update(&[0; 8]);
    long.update(&[0; 8]);
    assert_eq!(
        long.finalize(),
        Err(ParshaError::LengthMismatch {
            declared: 10,
            received: 16
        })
    );
    assert!(matches!(
        Parsha256Hasher::new(10, 0, 256, &options),
        Err(ParshaError::InvalidTreeHeight(0))
    ));
    assert!(matches!(
        Parsha256Hasher::new(u64::MAX, 8, 256, &options),
        Err(ParshaError::MessageTooLong(_))
    ));
    assert_eq!(parsha256(b"", 3, 100), Err(ParshaError::InvalidIvBits(100)));
}

/// The registry's `parsha256` (T = 13, l = 256, buffered) in every variant, threaded or not,
/// against the reference.
#[test]
fn registry_entry_is_parsha256_t13_l256() {
    use parhash::{Algorithm, Hasher};
    let mut r = rng(0x9a25_0005);
    for len in [0usize, 50, 64, 65, 1000, 400_000] {
        let data = random_bytes(&mut r, len);
        let (_, expected) = reference::parsha256(&data, 13, 256).unwrap();
        assert_eq!(
            parhash::hash(Algorithm::Parsha256, &data).as_bytes(),
            expected
        );
        for v in Algorithm::Parsha256.available_variants() {
            if v.name() == "reference" && len > 100_000 {
                continue;
            }
            common::ran_variant(Algorithm::Parsha256, v.name());
            let mut h = Hasher::with_variant(v);
            for piece in random_splits(&mut r, len) {
                h.update(&data[piece]);
            }
            assert_eq!(h.finalize().as_bytes(), expected, "{v} len {len}");
        }
        let mut h = Hasher::with_threads(Algorithm::Parsha256, 2);
        h.update(&data);
        assert_eq!(h.finalize().as_bytes(), expected);
    }
    assert!(Hasher::splits_over_threads(Algorithm::Parsha256));
    assert_eq!(
        Algorithm::from_name("PARSHA-256").unwrap(),
        Algorithm::Parsha256
    );
}

/// Threads start only from 256 KiB of message per thread: messages large enough for 2, 3 and
/// 8 threads, against the reference (for one) and the checked one-thread engine (for all).
#[test]
fn threaded_engine_matches_on_messages_big_enough_to_split() {
    let mut r = rng(0x9a25_0006);
    let configs: Vec<ParshaOptions> = [1, 2, 3, 8]
        .iter()
        .map(|&threads| ParshaOptions {
            threads: threads.into(),
            kernel: None,
        })
        .collect();
    let data = random_bytes(&mut r, 1_100_003);
    check_against_reference(&data, 9, 128, &configs);
    for (len, big_t, l) in [
        (2_300_000usize, 13u32, 256u32),
        (2_100_000, 4, 0),
        (900_000, 16, 128),
    ] {
        let data = random_bytes(&mut r, len);
        let one = parsha256_with(&data, big_t, l, &configs[0]).unwrap();
        for options in &configs[1..] {
            assert_eq!(
                parsha256_with(&data, big_t, l, options).unwrap(),
                one,
                "{options:?}"
            );
        }
    }
}
