//! The non-cryptographic checksums (CRC-32, CRC-32C, CRC-64/NVME, XXH64, XXH3-64, XXH3-128)
//! through the registry: their catalogue check values (`123456789`) and known digests,
//! registry facts, and each CRC against a plain bitwise reference at random lengths and
//! splits. (The differential tests against zlib, `crc32c`, `awscrt`, `xxhash` and `xxhsum`
//! are the Python package's and the CLI's.)
mod common;

use common::*;
use parhash::{hash, Algorithm, Family, Hasher};
use rand::Rng;

const CHECKSUMS: [Algorithm; 6] = [
    Algorithm::Crc32,
    Algorithm::Crc32c,
    Algorithm::Crc64Nvme,
    Algorithm::Xxh64,
    Algorithm::Xxh3,
    Algorithm::Xxh128,
];

/// coreutils' legacy checksums: POSIX `cksum`, `cksum -a crc32b`, `sum -s`, `sum -r`.
const LEGACY: [Algorithm; 4] = [
    Algorithm::Cksum,
    Algorithm::Crc32b,
    Algorithm::SysvSum,
    Algorithm::BsdSum,
];

/// Each algorithm's digest of `123456789` and of the empty message. CRCs: the check values of
/// the CRC catalogue (Rocksoft model) and the CRC of nothing, init XOR xorout (zero here).
/// xxHash: xxhsum 0.8.1's output, also the `xxhash` Python package's.
const KNOWN: [(Algorithm, &str, &str); 6] = [
    (Algorithm::Crc32, "cbf43926", "00000000"),
    (Algorithm::Crc32c, "e3069283", "00000000"),
    (Algorithm::Crc64Nvme, "ae8b14860a799888", "0000000000000000"),
    (Algorithm::Xxh64, "8cb841db40e6ae83", "ef46db3751d8e999"),
    (Algorithm::Xxh3, "72dcb18b67a17dff", "2d06800538d394c2"),
    (
        Algorithm::Xxh128,
        "33119477ede5dcd5e9716427681d5860",
        "99aa06d3014798d86001c324468d497f",
    ),
];

#[test]
fn check_values_and_empty_messages() {
    for (alg, check, empty) in KNOWN {
        assert_eq!(hash(alg, b"123456789").to_hex(), check, "{alg}");
        assert_eq!(hash(alg, b"").to_hex(), empty, "{alg}");
        // Streamed a byte at a time, and again after a reset, the same.
        let mut hasher = Hasher::new(alg);
        hasher.update(b"garbage");
        hasher.reset();
        for byte in b"123456789" {
            hasher.update(&[*byte]);
        }
        assert_eq!(hasher.finalize_reset().to_hex(), check, "{alg}");
        assert_eq!(hasher.finalize().to_hex(), empty, "{alg}");
        ran_default_variant(alg);
    }
}

#[test]
fn xxhash_digests_of_longer_messages_are_xxhsums() {
    // xxhsum 0.8.1 -H1, -H3 and -H2 on bytes i mod 251: 200 bytes (XXH3's 129-to-240-byte
    // path) and 2048 (two of its 1024-byte blocks).
    let known = [
        (200, Algorithm::Xxh64, "50dc1079b99e879c"),
        (200, Algorithm::Xxh3, "f42a8864feaf0703"),
        (200, Algorithm::Xxh128, "cb0395310643ba0edd97e9af3609d9f5"),
        (2048, Algorithm::Xxh64, "a69e05a7eff57800"),
        (2048, Algorithm::Xxh3, "25339063db861586"),
        (2048, Algorithm::Xxh128, "a5141efedfefc1af25339063db861586"),
    ];
    use parhash::digest::{FixedOutput, Update};
    for (len, alg, want) in known {
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        assert_eq!(hash(alg, &data).to_hex(), want, "{alg}, {len} bytes");
        // The concrete types' `digest` traits give the same bytes.
        let concrete = match alg {
            Algorithm::Xxh64 => parhash::Xxh64::default()
                .chain(&data)
                .finalize_fixed()
                .to_vec(),
            Algorithm::Xxh3 => parhash::Xxh3::default()
                .chain(&data)
                .finalize_fixed()
                .to_vec(),
            _ => parhash::Xxh128::default()
                .chain(&data)
                .finalize_fixed()
                .to_vec(),
        };
        assert_eq!(hex(&concrete), want, "{alg}, {len} bytes");
    }
}

#[test]
fn registry_facts_and_names() {
    for alg in CHECKSUMS {
        let info = alg.info();
        assert!(!info.cryptographic, "{alg}");
        assert!(!info.broken, "{alg}: not cryptographic, which says more");
        assert!(matches!(info.family, Family::Crc | Family::XxHash), "{alg}");
        assert_eq!(Algorithm::from_tag(info.tag), Some((alg, info.digest_size)));
    }
    let sizes: Vec<usize> = CHECKSUMS.iter().map(|a| a.digest_size()).collect();
    assert_eq!(sizes, [4, 4, 8, 8, 8, 16]);
    for &alg in Algorithm::ALL {
        let checksum = CHECKSUMS.contains(&alg) || LEGACY.contains(&alg);
        assert_eq!(alg.info().cryptographic, !checksum, "{alg}");
    }
    assert_names_resolve(&[
        ("CRC32", Algorithm::Crc32),
        ("CRC-32/ISO-HDLC", Algorithm::Crc32),
        ("CRC-32C", Algorithm::Crc32c),
        ("CRC-32/ISCSI", Algorithm::Crc32c),
        ("CRC-64/NVME", Algorithm::Crc64Nvme),
        ("XXH3", Algorithm::Xxh3),
        ("xxh3-64", Algorithm::Xxh3),
        ("XXH128", Algorithm::Xxh128),
        ("xxh3_128", Algorithm::Xxh128),
        ("XXH64", Algorithm::Xxh64),
    ]);
}

/// A reflected CRC (all three here are: input and output reflected, init and xorout all
/// ones), bit by bit from its catalogue parameters: literal, never fast.
fn reference_crc(reversed_poly: u64, width: u32, data: &[u8]) -> u64 {
    let mask = u64::MAX >> (64 - width);
    let mut crc = mask;
    for &byte in data {
        crc ^= u64::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ reversed_poly
            } else {
                crc >> 1
            };
        }
    }
    (crc ^ mask) & mask
}

/// The catalogue polynomial, bit-reversed over `width` bits, as a reflected CRC shifts it.
fn reversed(poly: u64, width: u32) -> u64 {
    poly.reverse_bits() >> (64 - width)
}

#[test]
fn crcs_equal_the_bitwise_reference_at_random_lengths_and_splits() {
    let crcs = [
        (Algorithm::Crc32, 0x04C1_1DB7, 32),
        (Algorithm::Crc32c, 0x1EDC_6F41, 32),
        (Algorithm::Crc64Nvme, 0xAD93_D235_94C9_3659, 64),
    ];
    let mut r = rng(0xC4C);
    // Every length to 300 (the kernels' fold widths and tails), then random ones to 64 KiB.
    let lengths: Vec<usize> = (0..300)
        .chain((0..40).map(|_| r.random_range(300..65536)))
        .collect();
    for (alg, poly, width) in crcs {
        assert_eq!(
            reference_crc(reversed(poly, width), width, b"123456789"),
            u64::from_str_radix(&hash(alg, b"123456789").to_hex(), 16).unwrap(),
            "{alg}: the reference itself"
        );
        for &len in &lengths {
            let data = random_bytes(&mut r, len);
            let want = reference_crc(reversed(poly, width), width, &data);
            let want = &want.to_be_bytes()[8 - width as usize / 8..];
            assert_eq!(hash(alg, &data).as_bytes(), want, "{alg}, {len} bytes");
            let mut hasher = Hasher::new(alg);
            for piece in random_splits(&mut r, len) {
                hasher.update(&data[piece]);
            }
            assert_eq!(
                hasher.finalize().as_bytes(),
                want,
                "{alg}, {len} bytes in pieces"
            );
        }
    }
}

/// The legacy checksums from their definitions, literal and slow: POSIX `cksum`'s CRC bit by
/// bit (polynomial 0x04C11DB7, not reflected, init 0, the length appended least significant
/// byte first, the result complemented), `crc32b`'s CRC-32/ISO-HDLC of the data alone, the SysV sum of all bytes folded to 16 bits, the BSD
/// sum rotated right before each byte. Each followed by the byte count, as the digest holds it.
fn reference_legacy(alg: Algorithm, data: &[u8]) -> Vec<u8> {
    let len = data.len() as u64;
    let mut out = match alg {
        Algorithm::Cksum => {
            let mut message = data.to_vec();
            let mut n = len;
            while n > 0 {
                message.push(n as u8);
                n >>= 8;
            }
            let mut crc = 0u32;
            for &byte in &message {
                crc ^= u32::from(byte) << 24;
                for _ in 0..8 {
                    crc = if crc & 0x8000_0000 != 0 {
                        (crc << 1) ^ 0x04C1_1DB7
                    } else {
                        crc << 1
                    };
                }
            }
            (!crc).to_be_bytes().to_vec()
        }
        Algorithm::Crc32b => (reference_crc(reversed(0x04C1_1DB7, 32), 32, data) as u32)
            .to_be_bytes()
            .to_vec(),
        Algorithm::SysvSum => {
            let s: u64 = data.iter().map(|&b| u64::from(b)).sum::<u64>() % (1 << 32);
            let r = (s & 0xffff) + (s >> 16);
            (((r & 0xffff) + (r >> 16)) as u16).to_be_bytes().to_vec()
        }
        _ => {
            let mut sum = 0u32;
            for &b in data {
                sum = (sum >> 1) + ((sum & 1) << 15);
                sum = (sum + u32::from(b)) & 0xffff;
            }
            (sum as u16).to_be_bytes().to_vec()
        }
    };
    out.extend_from_slice(&len.to_be_bytes());
    out
}

#[test]
fn legacy_checksums_follow_their_definitions() {
    // coreutils 9.1: `printf 123456789 | cksum` is `930766865 9`, `sum -s` `477 1`, `sum -r`
    // `53615     1`; the empty input `4294967295 0`, `0 0`, `00000     0`. `cksum -a crc32b`
    // (9.6) prints CRC-32/ISO-HDLC's check value 0xCBF43926 in decimal, 0 for nothing.
    let known = [
        (Algorithm::Cksum, 930_766_865u64, 4_294_967_295u64),
        (Algorithm::Crc32b, 3_421_780_262, 0),
        (Algorithm::SysvSum, 477, 0),
        (Algorithm::BsdSum, 53615, 0),
    ];
    for (alg, check, empty) in known {
        let width = alg.digest_size() - 8;
        let value = |digest: &[u8]| {
            digest[..width]
                .iter()
                .fold(0u64, |n, &b| n << 8 | u64::from(b))
        };
        let digest = hash(alg, b"123456789");
        assert_eq!(value(digest.as_bytes()), check, "{alg}");
        assert_eq!(digest.as_bytes()[width..], 9u64.to_be_bytes(), "{alg}");
        assert_eq!(value(hash(alg, b"").as_bytes()), empty, "{alg}");
        assert!(!alg.is_checkable() && !alg.info().cryptographic, "{alg}");
        ran_default_variant(alg);
    }
    assert_names_resolve(&[
        ("cksum", Algorithm::Cksum),
        ("CRC", Algorithm::Cksum),
        ("crc32b", Algorithm::Crc32b),
        ("CRC32B", Algorithm::Crc32b),
        ("sum-s", Algorithm::SysvSum),
        ("SYSV", Algorithm::SysvSum),
        ("sum -r", Algorithm::BsdSum),
        ("bsd", Algorithm::BsdSum),
    ]);
    let mut rng = rand::rng();
    for _ in 0..200 {
        // Lengths past 255 and 65535 give the length two and three bytes.
        let len = rng.random_range(0..70_000);
        let data: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        for alg in LEGACY {
            let expected = reference_legacy(alg, &data);
            assert_eq!(hash(alg, &data).as_bytes(), expected, "{alg} {len}");
            // Streamed in two pieces, split anywhere.
            let split = rng.random_range(0..=len);
            let mut hasher = Hasher::new(alg);
            hasher.update(&data[..split]);
            hasher.update(&data[split..]);
            assert_eq!(
                hasher.finalize().as_bytes(),
                expected,
                "{alg} {len}/{split}"
            );
        }
    }
}
