//! Property test: every algorithm with an independent oracle among the dev-dependencies
//! (`common::oracle`: the RustCrypto crates, `blake-hash`) against parhash on proptest-generated
//! messages of 0..=20000 bytes, fed at proptest-generated split points. Three parhash paths must
//! each equal the oracle: the dynamic streaming `Hasher` fed piece by piece, the one-shot
//! `parhash::hash`, and the typed `Digest` type (`parhash::Sha256`, ...) fed piece by piece.
//!
//! The per-variant differential tests (`sha_kat.rs`, `keccak_kat.rs`, ...) draw lengths and splits
//! from a seeded RNG; here proptest draws them and, on a failure, shrinks the message and the splits
//! to a minimal case and saves it under `proptest-regressions/`.
mod common;

use std::ops::Range;

use common::{cases, oracle};
use digest::Digest;
use parhash::{Algorithm, Family, Hasher};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestCaseError;

/// A message and the pieces a streaming caller feeds it in.
#[derive(Clone, Debug)]
struct Split {
    data: Vec<u8>,
    pieces: Vec<Range<usize>>,
}

impl Split {
    fn pieces(&self) -> impl Iterator<Item = &[u8]> {
        self.pieces.iter().map(|piece| &self.data[piece.clone()])
    }
}

/// Up to 20000 bytes (past every block size many times, and past the 16 KiB where some
/// implementations switch strategy), half the time at most 300 (where the padding cases of every
/// block size lie). Up to 6 cut pairs: a cut anywhere and a second one up to 129 bytes after it,
/// so pieces both long and short (empty, one byte, one block, a block and a bit) occur.
fn message_and_splits() -> impl Strategy<Value = Split> {
    let data = prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..=300),
        proptest::collection::vec(any::<u8>(), 0..=20000),
    ];
    let cut_pairs = proptest::collection::vec((any::<Index>(), 0..=129usize), 0..=6);
    (data, cut_pairs).prop_map(|(data, cut_pairs)| {
        let len = data.len();
        let mut cuts = vec![0, len];
        for (at, short_piece) in cut_pairs {
            let cut = at.index(len + 1);
            cuts.extend([cut, (cut + short_piece).min(len)]);
        }
        cuts.sort_unstable();
        let pieces = cuts.windows(2).map(|w| w[0]..w[1]).collect();
        Split { data, pieces }
    })
}

/// Few cases in debug builds (the default `cargo test`), many in release.
fn config() -> ProptestConfig {
    ProptestConfig::with_cases(cases(32, 256) as u32)
}

/// `T` (parhash's typed hasher) fed the pieces.
fn typed<T: Digest>(split: &Split) -> Vec<u8> {
    let mut hasher = T::new();
    for piece in split.pieces() {
        hasher.update(piece);
    }
    hasher.finalize().to_vec()
}

/// The typed `Digest` path for `alg`, or `None` if this file does not map it yet (a test below
/// fails then, for every algorithm that has an oracle).
fn typed_digest(alg: Algorithm, split: &Split) -> Option<Vec<u8>> {
    // Each name is both the `Algorithm` and the parhash type.
    macro_rules! typed_digest {
        ($($name:ident)+) => {
            match alg {
                $(Algorithm::$name => Some(typed::<parhash::$name>(split)),)+
                _ => None,
            }
        };
    }
    typed_digest!(
        Md5 Sha1 Sha224 Sha256 Sha384 Sha512 Sha512_224 Sha512_256
        Sha3_224 Sha3_256 Sha3_384 Sha3_512 Keccak224 Keccak256 Keccak384 Keccak512
        Whirlpool Groestl224 Groestl256 Groestl384 Groestl512 Jh224 Jh256 Jh384 Jh512
        Skein512_224 Skein512_256 Skein512_384 Skein512_512 Skein256_256 Skein1024_1024
        Blake224 Blake256 Blake384 Blake512 Blake3
    )
}

/// The algorithms of `families` that have an oracle.
fn with_oracle(families: &[Family]) -> Vec<Algorithm> {
    Algorithm::ALL
        .iter()
        .copied()
        .filter(|alg| families.contains(&alg.info().family) && oracle(*alg, b"").is_some())
        .collect()
}

/// Every algorithm of `families` with an oracle: streaming `Hasher`, one-shot `hash` and the
/// typed hasher against the oracle on one message and split.
fn agree_with_oracles(families: &[Family], split: &Split) -> Result<(), TestCaseError> {
    let algorithms = with_oracle(families);
    prop_assert!(!algorithms.is_empty(), "no oracle for {families:?}");
    let len = split.data.len();
    for alg in algorithms {
        let expected = oracle(alg, &split.data).expect("filtered on having one");
        let mut streaming = Hasher::new(alg);
        for piece in split.pieces() {
            streaming.update(piece);
        }
        let streamed = streaming.finalize();
        let one_shot = parhash::hash(alg, &split.data);
        let typed = typed_digest(alg, split);
        let at = format!("{alg}, {len} bytes in {} pieces", split.pieces.len());
        prop_assert_eq!(
            streamed.as_bytes(),
            &expected[..],
            "{} (streaming Hasher)",
            at
        );
        prop_assert_eq!(one_shot.as_bytes(), &expected[..], "{} (parhash::hash)", at);
        prop_assert_eq!(typed.as_deref(), Some(&expected[..]), "{} (typed)", at);
    }
    Ok(())
}

/// One property a group of families, so that they run in parallel and a failure names its
/// group: `test: families;`. `GROUPS` lists every group.
macro_rules! properties {
    ($($test:ident: $group:ident = $families:expr;)+) => {
        $(const $group: &[Family] = $families;)+
        const GROUPS: &[&[Family]] = &[$($group),+];
        proptest! {
            #![proptest_config(config())]
            $(
                #[test]
                fn $test(split in message_and_splits()) {
                    agree_with_oracles($group, &split)?;
                }
            )+
        }
    };
}

properties! {
    md5_and_sha1_agree_with_rustcrypto: MD5_SHA1 = &[Family::Md5, Family::Sha1];
    sha2_agrees_with_rustcrypto: SHA2 = &[Family::Sha2];
    sha3_and_keccak_agree_with_rustcrypto: SHA3_KECCAK = &[Family::Sha3, Family::Keccak];
    whirlpool_groestl_and_jh_agree_with_rustcrypto: WHIRLPOOL_GROESTL_JH =
        &[Family::Whirlpool, Family::Groestl, Family::Jh];
    blake_and_skein_agree_with_their_crates: BLAKE_SKEIN = &[Family::Blake, Family::Skein];
    blake3_agrees_with_the_crates_plain_hasher: BLAKE3 = &[Family::Blake3];
}

/// The properties above cover every algorithm that has an oracle, each with its typed path, and
/// only SIMD, SANDstorm and PARSHA-256 lack one, besides BLAKE2 and SHAKE: parhash runs their
/// RustCrypto crates as they are (their controls are the authors' and NIST's vectors in
/// `xof_blake2_blake3_kat.rs` and b2sum and hashlib in the CLI's tests), and the CRCs and
/// xxHash, whose crates parhash also runs as they are (controls: `checksums.rs`'s bitwise CRC
/// and xxhsum's digests, and zlib, crc32c, awscrt and xxhash in the Python tests), and
/// coreutils' legacy checksums (`checksums.rs`'s definitions, `cksum` and `sum` in the CLI's).
#[test]
fn every_algorithm_with_an_oracle_is_covered() {
    let empty = Split {
        data: Vec::new(),
        pieces: Vec::new(),
    };
    for &alg in Algorithm::ALL {
        let family = alg.info().family;
        let has_oracle = oracle(alg, b"").is_some();
        let expected_without = matches!(
            family,
            Family::Simd
                | Family::Sandstorm
                | Family::Parsha
                | Family::Blake2
                | Family::Shake
                | Family::Crc
                | Family::XxHash
                | Family::Legacy
        );
        assert_eq!(has_oracle, !expected_without, "{alg}: oracle {has_oracle}");
        if has_oracle {
            assert!(typed_digest(alg, &empty).is_some(), "{alg}: no typed path");
            assert!(
                GROUPS.iter().any(|group| group.contains(&family)),
                "{alg}: its family is in no property"
            );
        }
    }
}
