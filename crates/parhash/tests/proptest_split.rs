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
    use parhash as p;
    use Algorithm as A;
    Some(match alg {
        A::Md5 => typed::<p::Md5>(split),
        A::Sha1 => typed::<p::Sha1>(split),
        A::Sha224 => typed::<p::Sha224>(split),
        A::Sha256 => typed::<p::Sha256>(split),
        A::Sha384 => typed::<p::Sha384>(split),
        A::Sha512 => typed::<p::Sha512>(split),
        A::Sha512_224 => typed::<p::Sha512_224>(split),
        A::Sha512_256 => typed::<p::Sha512_256>(split),
        A::Sha3_224 => typed::<p::Sha3_224>(split),
        A::Sha3_256 => typed::<p::Sha3_256>(split),
        A::Sha3_384 => typed::<p::Sha3_384>(split),
        A::Sha3_512 => typed::<p::Sha3_512>(split),
        A::Keccak224 => typed::<p::Keccak224>(split),
        A::Keccak256 => typed::<p::Keccak256>(split),
        A::Keccak384 => typed::<p::Keccak384>(split),
        A::Keccak512 => typed::<p::Keccak512>(split),
        A::Whirlpool => typed::<p::Whirlpool>(split),
        A::Groestl224 => typed::<p::Groestl224>(split),
        A::Groestl256 => typed::<p::Groestl256>(split),
        A::Groestl384 => typed::<p::Groestl384>(split),
        A::Groestl512 => typed::<p::Groestl512>(split),
        A::Jh224 => typed::<p::Jh224>(split),
        A::Jh256 => typed::<p::Jh256>(split),
        A::Jh384 => typed::<p::Jh384>(split),
        A::Jh512 => typed::<p::Jh512>(split),
        A::Skein512_224 => typed::<p::Skein512_224>(split),
        A::Skein512_256 => typed::<p::Skein512_256>(split),
        A::Skein512_384 => typed::<p::Skein512_384>(split),
        A::Skein512_512 => typed::<p::Skein512_512>(split),
        A::Skein256_256 => typed::<p::Skein256_256>(split),
        A::Skein1024_1024 => typed::<p::Skein1024_1024>(split),
        A::Blake224 => typed::<p::Blake224>(split),
        A::Blake256 => typed::<p::Blake256>(split),
        A::Blake384 => typed::<p::Blake384>(split),
        A::Blake512 => typed::<p::Blake512>(split),
        A::Blake3 => typed::<p::Blake3>(split),
        _ => return None,
    })
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

/// The families each property covers (one property per group, so they run in parallel and a
/// failure names its group).
const MD5_SHA1: &[Family] = &[Family::Md5, Family::Sha1];
const SHA2: &[Family] = &[Family::Sha2];
const SHA3_KECCAK: &[Family] = &[Family::Sha3, Family::Keccak];
const WHIRLPOOL_GROESTL_JH: &[Family] = &[Family::Whirlpool, Family::Groestl, Family::Jh];
const BLAKE_SKEIN: &[Family] = &[Family::Blake, Family::Skein];
const BLAKE3: &[Family] = &[Family::Blake3];
const GROUPS: [&[Family]; 6] = [
    MD5_SHA1,
    SHA2,
    SHA3_KECCAK,
    WHIRLPOOL_GROESTL_JH,
    BLAKE_SKEIN,
    BLAKE3,
];

proptest! {
    #![proptest_config(config())]

    #[test]
    fn md5_and_sha1_agree_with_rustcrypto(split in message_and_splits()) {
        agree_with_oracles(MD5_SHA1, &split)?;
    }

    #[test]
    fn sha2_agrees_with_rustcrypto(split in message_and_splits()) {
        agree_with_oracles(SHA2, &split)?;
    }

    #[test]
    fn sha3_and_keccak_agree_with_rustcrypto(split in message_and_splits()) {
        agree_with_oracles(SHA3_KECCAK, &split)?;
    }

    #[test]
    fn whirlpool_groestl_and_jh_agree_with_rustcrypto(split in message_and_splits()) {
        agree_with_oracles(WHIRLPOOL_GROESTL_JH, &split)?;
    }

    #[test]
    fn blake_and_skein_agree_with_their_crates(split in message_and_splits()) {
        agree_with_oracles(BLAKE_SKEIN, &split)?;
    }

    #[test]
    fn blake3_agrees_with_the_crates_plain_hasher(split in message_and_splits()) {
        agree_with_oracles(BLAKE3, &split)?;
    }
}

/// The properties above cover every algorithm that has an oracle, each with its typed path, and
/// only SIMD, SANDstorm and PARSHA-256 lack one, besides BLAKE2 and SHAKE: parhash runs their
/// RustCrypto crates as they are (their controls are the authors' and NIST's vectors in
/// `xof_blake2_blake3_kat.rs` and b2sum and hashlib in the CLI's tests).
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
            Family::Simd | Family::Sandstorm | Family::Parsha | Family::Blake2 | Family::Shake
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
