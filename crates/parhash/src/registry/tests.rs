//! The registry's tests: every algorithm through names, tags, outputs and hashers.

use super::names::normalize;
use super::*;

/// What building gives, without the hasher: the tests below compare refusals.
fn refusal(builder: HasherBuilder) -> Result<(), Error> {
    builder.build().map(|_| ())
}

#[test]
fn one_shot_hash_equals_the_streaming_hasher_for_every_algorithm() {
    let data: Vec<u8> = (0..3000u32).map(|i| (i * 7 % 256) as u8).collect();
    for &alg in Algorithm::ALL {
        for len in [0, 1, 55, 64, 200, 3000] {
            let mut h = Hasher::new(alg);
            for piece in data[..len].chunks(97) {
                h.update(piece);
            }
            let one_shot = hash(alg, &data[..len]);
            assert_eq!(one_shot, h.finalize(), "{alg}, {len} bytes");
            assert_eq!(one_shot.as_bytes().len(), alg.info().digest_size);
        }
    }
}

#[test]
fn a_cloned_hasher_goes_on_independently() {
    let data: Vec<u8> = (0..5000u32).map(|i| (i * 13 % 256) as u8).collect();
    for &alg in Algorithm::ALL {
        let mut original = Hasher::new(alg);
        original.update(&data[..1234]);
        let mut copy = original.try_clone().expect("a digest-type hasher clones");
        copy.update(&data[1234..]);
        original.update(b"other");
        assert_eq!(copy.finalize(), hash(alg, &data), "{alg}: the copy");
        let mut other = data[..1234].to_vec();
        other.extend_from_slice(b"other");
        assert_eq!(
            original.finalize(),
            hash(alg, &other),
            "{alg}: the original"
        );
    }
    let stream = Hasher::builder(Algorithm::Parsha256)
        .expected_len(10)
        .build()
        .unwrap();
    assert!(stream.try_clone().is_none());
}

#[test]
fn names_are_unique_after_normalisation() {
    let mut seen = std::collections::HashMap::new();
    for &alg in Algorithm::ALL {
        let info = alg.info();
        let mut names = vec![info.name, info.tag];
        names.extend(info.aliases);
        for n in names {
            if let Some(other) = seen.insert(normalize(n), alg) {
                assert_eq!(other, alg, "{n} names both {other} and {alg}");
            }
        }
        assert_eq!(Algorithm::from_name(info.name), Ok(alg));
        assert_eq!(info.name, info.name.to_ascii_lowercase());
        assert!(info.digest_size <= Output::LONGEST_FIXED);
        // Every fixed digest is held inline but Skein-1024's.
        if !info.name.starts_with("skein1024") {
            assert!(info.digest_size <= Output::INLINE, "{}", info.name);
        }
    }
}

#[test]
fn forgiving_lookup_and_suggestion() {
    assert_eq!(Algorithm::from_name("MD-5"), Ok(Algorithm::Md5));
    assert_eq!(Algorithm::from_name("md_5"), Ok(Algorithm::Md5));
    match Algorithm::from_name("mdd5") {
        Err(Error::UnknownAlgorithm { suggestion, .. }) => assert_eq!(suggestion, Some("md5")),
        other => panic!("{other:?}"),
    }
    match Algorithm::from_name("zzzzzzzzzzzz") {
        Err(Error::UnknownAlgorithm { suggestion, .. }) => assert_eq!(suggestion, None),
        other => panic!("{other:?}"),
    }
}

fn suggestion_for(typo: &str) -> Option<&'static str> {
    match Algorithm::from_name(typo) {
        Err(Error::UnknownAlgorithm { suggestion, .. }) => suggestion,
        other => panic!("{typo}: {other:?}"),
    }
}

#[test]
fn swapped_characters_count_as_one_edit() {
    // The first four tie under plain Levenshtein, where registry order picked a wrong name
    // (sha224, sha224, sha3-224, sha1); the rest are ordinary typos.
    for (typo, meant) in [
        ("sha265", "sha256"),
        ("SHA-265", "sha256"),
        ("sha3-265", "sha3-256"),
        ("sha521", "sha512"),
        ("sah384", "sha384"),
        ("kecakc256", "keccak256"),
        ("whirlpol", "whirlpool"),
        ("mdd5", "md5"),
    ] {
        assert_eq!(suggestion_for(typo), Some(meant), "{typo}");
    }
}

#[test]
fn ties_go_to_the_longer_shared_prefix_then_registry_order() {
    // One edit from sha1 and from sha512; sha512 shares `sha5` (registry order says sha1).
    assert_eq!(suggestion_for("sha51"), Some("sha512"));
    // One edit from sha224 and from sha256; sha224 shares `sha22`.
    assert_eq!(suggestion_for("sha226"), Some("sha224"));
    // One edit from sha224 and from sha3-224, both sharing `sha`: the first listed wins.
    assert_eq!(suggestion_for("sha1224"), Some("sha224"));
}

#[test]
fn suggestions_search_names_tags_and_aliases() {
    // Other tools' names are aliases; near misses and partial names are suggested.
    assert_eq!(Algorithm::from_name("b2"), Ok(Algorithm::Blake2b));
    assert_eq!(Algorithm::from_name("b3sum"), Ok(Algorithm::Blake3));
    // `sha2` is an alias of sha256, one edit from `sha22` too.
    assert_eq!(Algorithm::suggest("sha22"), ["sha224", "sha256"]);
    // Every completion of `sha3` (sha384 is one too), in registry order.
    assert_eq!(
        Algorithm::suggest("sha3"),
        ["sha384", "sha3-224", "sha3-256"]
    );
    assert_eq!(Algorithm::suggest("blake2x"), ["blake2b", "blake2s"]);
    assert_eq!(Algorithm::suggest("shake"), ["shake128", "shake256"]);
    assert_eq!(suggestion_for("b2sm"), Some("blake2b"));
    // Two letters allow one edit: `b4` is near `b2` and `b3`, `xy` near nothing.
    assert_eq!(Algorithm::suggest("b4"), ["blake2b", "blake3"]);
    assert!(Algorithm::suggest("xy").is_empty());
    assert!(Algorithm::suggest("").is_empty());
    let message = Algorithm::from_name("sha22").unwrap_err().to_string();
    assert!(message.contains("did you mean 'sha224'?"), "{message}");
}

#[test]
fn digest_sizes_through_the_builder() {
    let data = b"abc";
    for &alg in Algorithm::ALL {
        let sizes = alg.digest_sizes();
        assert!(sizes.contains(alg.digest_size()), "{alg}");
        assert!(sizes.max <= Output::MAX, "{alg}");
        for size in [sizes.min, alg.digest_size(), sizes.max] {
            let mut h = Hasher::builder(alg).digest_size(size).build().unwrap();
            h.update(data);
            let digest = h.finalize_reset();
            assert_eq!(digest.as_bytes().len(), size, "{alg} at {size} bytes");
            h.update(data);
            assert_eq!(h.finalize(), digest, "{alg} at {size} bytes after a reset");
        }
        for size in [0, sizes.max + 1] {
            assert_eq!(
                refusal(Hasher::builder(alg).digest_size(size)),
                Err(Error::UnsupportedDigestSize {
                    algorithm: alg,
                    size
                })
            );
        }
    }
    // BLAKE2's length is a parameter: BLAKE2b-256 is not BLAKE2b-512 cut short; an XOF's
    // short output is a prefix of its long one.
    let sized = |alg, size| {
        let mut h = Hasher::builder(alg).digest_size(size).build().unwrap();
        h.update(data);
        h.finalize()
    };
    let b2 = hash(Algorithm::Blake2b, data);
    assert_ne!(
        sized(Algorithm::Blake2b, 32).as_bytes(),
        &b2.as_bytes()[..32]
    );
    for alg in [Algorithm::Shake128, Algorithm::Shake256, Algorithm::Blake3] {
        let long = sized(alg, 5000);
        for short in [20, 128, 129, 4999] {
            let prefix = &long.as_bytes()[..short];
            assert_eq!(sized(alg, short).as_bytes(), prefix, "{alg}, {short}");
        }
    }
    assert_eq!(
        Error::UnsupportedDigestSize {
            algorithm: Algorithm::Blake2s,
            size: 33
        }
        .to_string(),
        "blake2s digests are 1 to 32 bytes, not 33"
    );
}

#[test]
fn an_output_stays_about_the_size_of_its_inline_bytes() {
    // The batch and many-file engines move one per message: the heap case must not make
    // the common one bigger than the bytes, their length and the variant's tag.
    assert!(std::mem::size_of::<Output>() <= Output::INLINE + 8);
}

#[test]
fn long_outputs_compare_and_print_by_their_bytes() {
    for len in [0, 1, Output::INLINE, Output::INLINE + 1, 1000] {
        let bytes: Vec<u8> = (0..len).map(|i| (i * 37 % 256) as u8).collect();
        let digest = Output::from_slice(&bytes);
        assert_eq!(digest.as_bytes(), bytes, "{len} bytes");
        assert_eq!(digest.len(), len);
        assert_eq!(digest.to_hex(), hex::encode(&bytes), "{len} bytes");
        assert_eq!(digest.clone(), digest);
        let mut other = bytes.clone();
        if let Some(last) = other.last_mut() {
            *last ^= 1;
            assert_ne!(Output::from_slice(&other), digest, "{len} bytes");
        }
    }
    // Equal bytes are equal digests and hash alike, however they were made.
    let mut h = Hasher::builder(Algorithm::Blake3)
        .digest_size(200)
        .build()
        .unwrap();
    h.update(b"abc");
    let made = h.finalize();
    let wrapped = Output::from_slice(made.as_bytes());
    assert_eq!(made, wrapped);
    let set: std::collections::HashSet<Output> = [made, wrapped].into_iter().collect();
    assert_eq!(set.len(), 1);
}

#[test]
fn extendable_output_of_any_length_into_the_callers_buffer() {
    let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
    let extendable: Vec<Algorithm> = Algorithm::ALL
        .iter()
        .copied()
        .filter(|a| a.is_extendable())
        .collect();
    assert_eq!(
        extendable,
        [Algorithm::Blake3, Algorithm::Shake128, Algorithm::Shake256]
    );
    for &alg in &extendable {
        assert_eq!(alg.digest_sizes().max, Output::MAX, "{alg}");
        // Past Output::MAX: only through a buffer of the caller's.
        let mut long = vec![0; Output::MAX + 4096];
        let mut h = Hasher::with_threads(alg, 2);
        h.update(&data);
        h.finalize_xof_into_reset(&mut long).unwrap();
        for size in [alg.digest_size(), 129, 1000, Output::MAX] {
            let mut sized = Hasher::builder(alg).digest_size(size).build().unwrap();
            sized.update(&data);
            // A copy reads the same bytes, at another length than the hasher's own.
            let mut copy = sized.try_clone().unwrap();
            let mut short = vec![0; 77];
            copy.finalize_xof_into_reset(&mut short).unwrap();
            assert_eq!(short, long[..77], "{alg}: a copy of the {size}-byte hasher");
            assert_eq!(sized.finalize().as_bytes(), &long[..size], "{alg}, {size}");
        }
        // The hasher started over.
        h.update(&data);
        assert_eq!(hash(alg, &data).as_bytes(), &long[..alg.digest_size()]);
    }
    // BLAKE3 against the official crate, far past one output block.
    let mut expected = vec![0; 300_000];
    ::blake3::Hasher::new()
        .update(&data)
        .finalize_xof()
        .fill(&mut expected);
    let mut got = vec![0; expected.len()];
    let mut h = Hasher::new(Algorithm::Blake3);
    h.update(&data);
    h.finalize_xof_into_reset(&mut got).unwrap();
    assert!(got == expected, "BLAKE3's 300000-byte output");
    // A fixed-length algorithm refuses and keeps what it was fed.
    let mut h = Hasher::new(Algorithm::Sha256);
    h.update(&data);
    assert_eq!(
        h.finalize_xof_into_reset(&mut [0; 40]),
        Err(Error::NotExtendable(Algorithm::Sha256))
    );
    assert_eq!(h.finalize(), hash(Algorithm::Sha256, &data));
    let blake2 = Hasher::builder(Algorithm::Blake2b).digest_size(20).build();
    assert!(matches!(
        blake2.unwrap().finalize_xof_into_reset(&mut [0; 20]),
        Err(Error::NotExtendable(Algorithm::Blake2b))
    ));
}

#[test]
fn tree_parameters_are_refused_at_any_digest_size() {
    for (alg, size) in [(Algorithm::Blake2b, 32), (Algorithm::Shake128, 500)] {
        assert_eq!(
            refusal(
                Hasher::builder(alg)
                    .digest_size(size)
                    .tree_params(TreeParams::DEFAULT)
            ),
            Err(Error::NoTreeParams(alg))
        );
    }
}

#[test]
fn tags_name_the_size_where_it_is_not_the_default() {
    assert_eq!(Algorithm::Blake2b.tag_for_size(64), "BLAKE2b");
    assert_eq!(Algorithm::Blake2b.tag_for_size(32), "BLAKE2b-256");
    assert_eq!(Algorithm::Shake128.tag_for_size(64), "SHAKE128-512");
    assert_eq!(Algorithm::Sha512_256.tag_for_size(32), "SHA512-256");
    for &alg in Algorithm::ALL {
        let sizes = alg.digest_sizes();
        for size in [sizes.min, alg.digest_size(), sizes.max] {
            let tag = alg.tag_for_size(size);
            assert_eq!(Algorithm::from_tag(&tag), Some((alg, size)), "{tag}");
        }
    }
    for bad in [
        "BLAKE2b-0",
        "BLAKE2b-520",
        "BLAKE2b-255",
        "BLAKE2b-+256",
        "BLAKE2b-",
        "SHA256-128",
        "blake2b-256",
    ] {
        assert_eq!(Algorithm::from_tag(bad), None, "{bad}");
    }
}

#[test]
fn threaded_hashers_agree_with_default() {
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    for &alg in Algorithm::ALL {
        let expected = hash(alg, &data);
        for threads in [1, 2, 3] {
            let mut h = Hasher::with_threads(alg, threads);
            for piece in data.chunks(70_001) {
                h.update(piece);
            }
            assert_eq!(h.finalize(), expected, "{alg} with {threads} threads");
        }
    }
}

#[test]
fn the_builder_gives_every_algorithm_the_default_digest() {
    let data: Vec<u8> = (0..200_000u32).map(|i| (i % 253) as u8).collect();
    for &alg in Algorithm::ALL {
        let expected = hash(alg, &data);
        for threads in [Threads::ONE, Threads::new(2), Threads::ALL] {
            for len in [None, Some(data.len() as u64)] {
                let mut builder = Hasher::builder(alg).threads(threads);
                if let Some(len) = len {
                    builder = builder.expected_len(len);
                }
                let mut h = builder.build().unwrap();
                for piece in data.chunks(65_537) {
                    h.update(piece);
                }
                let got = h.try_finalize_reset().unwrap();
                assert_eq!(got, expected, "{alg}, {threads:?}, length {len:?}");
                // The hasher starts over: the same message gives the same digest.
                h.update(&data);
                assert_eq!(h.try_finalize().unwrap(), expected, "{alg} after reset");
            }
        }
    }
}

#[test]
fn parsha_through_the_builder_takes_its_parameters_and_checks_the_length() {
    use crate::algo::parsha256::parsha256;
    let data: Vec<u8> = (0..50_000u32).map(|i| (i * 7 % 251) as u8).collect();
    for (t, l) in [(1, 0), (5, 128), (13, 256), (20, 0)] {
        let params = TreeParams::new(t, l).unwrap();
        let expected = parsha256(&data, t, l).unwrap().1;
        for len in [None, Some(data.len() as u64)] {
            for variant in [None, Some("reference"), Some("parallel-portable")] {
                let mut builder = Hasher::builder(Algorithm::Parsha256)
                    .tree_params(params)
                    .threads(2);
                if let Some(len) = len {
                    builder = builder.expected_len(len);
                }
                if let Some(v) = variant {
                    builder = builder.variant(Algorithm::Parsha256.variant(v).unwrap());
                }
                let mut h = builder.build().unwrap();
                h.update(&data);
                assert_eq!(
                    h.try_finalize().unwrap().as_bytes(),
                    expected,
                    "T {t}, l {l}, {len:?}, {variant:?}"
                );
            }
        }
    }
    // A message that is not the length announced is an error, not a wrong digest.
    for got in [0, 49_999, 50_001] {
        let mut h = Hasher::builder(Algorithm::Parsha256)
            .expected_len(50_000)
            .build()
            .unwrap();
        h.update(&data[..got.min(data.len())]);
        if got > data.len() {
            h.update(b"x");
        }
        assert_eq!(
            h.try_finalize(),
            Err(Error::LengthMismatch {
                declared: 50_000,
                received: got as u64
            })
        );
    }
    assert_eq!(
        refusal(Hasher::builder(Algorithm::Parsha256).expected_len(u64::MAX)),
        Err(Error::MessageTooLong(u64::MAX))
    );
    assert_eq!(
        refusal(Hasher::builder(Algorithm::Sha256).tree_params(TreeParams::DEFAULT)),
        Err(Error::NoTreeParams(Algorithm::Sha256))
    );
    assert!(matches!(
        Algorithm::Parsha256.variant("no-such"),
        Err(Error::UnavailableVariant { .. })
    ));
    // A variant of another algorithm is refused by the builder.
    assert!(matches!(
        Hasher::builder(Algorithm::Parsha256)
            .variant(Algorithm::Sha256.variant("sequential").unwrap())
            .expected_len(3)
            .build(),
        Err(Error::UnavailableVariant { .. })
    ));
}

#[test]
fn a_parsha_tree_too_tall_to_stream_is_refused_whatever_t_allows() {
    use crate::parsha256::MAX_STREAMED_HEIGHT;
    let build = |t: u32, len: u64| {
        refusal(
            Hasher::builder(Algorithm::Parsha256)
                .tree_params(TreeParams::new(t, 256).unwrap())
                .expected_len(len),
        )
    };
    // l = 256: t reaches i from delta(i) = 2^i x 768 - 256 bits, 2^i x 96 - 32 bytes; each of
    // the 2^t processors holds two chaining values (66 bytes) and up to 2 x 64 of message.
    let reaches = |i: u32| (1u64 << i) * 96 - 32;
    let too_tall = |height: u32| Error::TreeTooTall {
        height,
        bytes: (1u64 << height) * 194,
    };
    let limit = MAX_STREAMED_HEIGHT;
    assert_eq!(build(40, reaches(limit + 1) - 1), Ok(()));
    assert_eq!(build(40, reaches(limit + 1)), Err(too_tall(limit + 1)));
    // A 1 GiB file with T = 40 would have held about its own size.
    assert_eq!(build(40, 1 << 30), Err(too_tall(23)));
    assert_eq!(build(40, u64::MAX / 8), Err(too_tall(40)));
    // T up to the limit hashes any length; a small file with any T is hashed.
    assert_eq!(build(limit, u64::MAX / 8), Ok(()));
    assert_eq!(build(40, 1 << 20), Ok(()));
    let said = too_tall(23).to_string();
    assert!(
        said.contains("height 23") && said.contains("1552 MiB") && said.contains("over height 20"),
        "{said}"
    );
}

#[test]
fn tree_params_tags_round_trip() {
    assert_eq!(TreeParams::DEFAULT.tag(), "PARSHA256-T13-IV256");
    for (t, l) in [(1, 0), (13, 128), (40, 256)] {
        let p = TreeParams::new(t, l).unwrap();
        assert_eq!(TreeParams::from_tag(&p.tag()), Some(p));
    }
    for bad in [
        "PARSHA256-T0-IV256",
        "PARSHA256-T13-IV64",
        "PARSHA256-T41-IV0",
        "SHA256",
        "PARSHA256-T+1-IV0",
    ] {
        assert_eq!(TreeParams::from_tag(bad), None, "{bad}");
    }
}

#[test]
fn sandstorm_part_variants_name_their_algorithms() {
    use crate::algo::sandstorm::parts::Variant;
    for v in Variant::ALL {
        let alg = Algorithm::from(v);
        assert_eq!(alg.name(), v.name());
        assert_eq!(Variant::try_from(alg), Ok(v));
    }
    let by_alias: Result<Variant, _> = Algorithm::from_name("SANDstorm-256").unwrap().try_into();
    assert_eq!(by_alias, Ok(Variant::Sandstorm256));
    assert_eq!(Variant::try_from(Algorithm::Sha256), Err(Algorithm::Sha256));
}

#[test]
fn every_variant_agrees_with_default() {
    let data: Vec<u8> = (0..3000u32).map(|i| (i % 251) as u8).collect();
    for &alg in Algorithm::ALL {
        let expected = hash(alg, &data);
        let variants = alg.variants();
        assert_eq!(variants.iter().filter(|v| v.default).count(), 1, "{alg}");
        for v in variants {
            match alg.variant(v.name) {
                Ok(variant) => {
                    assert!(v.available, "{alg}/{} built but marked unavailable", v.name);
                    let mut h = Hasher::with_variant(variant);
                    h.update(&data);
                    assert_eq!(h.finalize(), expected, "{alg} variant {}", v.name);
                }
                Err(_) => {
                    assert!(!v.available, "{alg}/{} available but not built", v.name);
                    eprintln!("skipped {alg}/{}: not available on this CPU", v.name);
                }
            }
        }
    }
}

/// Every available variant of every algorithm, built from its value (no name read after
/// `available_variants`), alone and on two threads, gives the default's digest on inputs
/// around a block; its name parses back to the same value, and the value lists match the
/// table's available names.
#[test]
fn every_variant_value_builds_the_default_digest() {
    let data: Vec<u8> = (0..4100u32).map(|i| (i * 31 % 253) as u8).collect();
    for &alg in Algorithm::ALL {
        let listed: Vec<_> = alg
            .variants()
            .into_iter()
            .filter(|v| v.available)
            .map(|v| v.name)
            .collect();
        let values: Vec<Variant> = alg.available_variants().collect();
        let names: Vec<_> = values.iter().map(|v| v.name()).collect();
        assert_eq!(names, listed, "{alg}");
        let default = alg.default_variant();
        assert!(values.contains(&default), "{alg}: default {default}");
        let flagged = alg
            .variants()
            .into_iter()
            .find(|v| v.default)
            .map(|v| v.name);
        assert_eq!(Some(default.name()), flagged, "{alg}");
        for variant in values {
            assert_eq!(variant.algorithm(), alg);
            assert_eq!(alg.variant(variant.name()), Ok(variant), "{alg}/{variant}");
            for len in [0, 1, 65, 129, 4100] {
                let expected = hash(alg, &data[..len]);
                let mut h = Hasher::with_variant(variant);
                h.update(&data[..len]);
                assert_eq!(h.finalize(), expected, "{alg}/{variant}, {len} bytes");
                let mut threaded = Hasher::builder(alg)
                    .variant(variant)
                    .threads(2)
                    .build()
                    .unwrap();
                threaded.update(&data[..len]);
                assert_eq!(
                    threaded.finalize(),
                    expected,
                    "{alg}/{variant} x2, {len} bytes"
                );
            }
        }
    }
}

/// An alias accepted but not listed (`portable` for MD5's `sequential`) is its own value
/// under its own name, and builds the same digest.
#[test]
fn an_unlisted_alias_is_a_value_too() {
    let alg = Algorithm::Md5;
    let alias = alg.variant("portable").unwrap();
    assert_eq!(alias.name(), "portable");
    assert_eq!(alias.to_string(), "portable");
    assert!(!alg.available_variants().any(|v| v == alias));
    let mut h = Hasher::with_variant(alias);
    h.update(b"abc");
    assert_eq!(h.finalize(), hash(alg, b"abc"));
}

/// An unknown name is refused at the edge, with the variants available here.
#[test]
fn an_unknown_variant_name_lists_the_available_ones() {
    for &alg in Algorithm::ALL {
        match alg.variant("no-such") {
            Err(Error::UnavailableVariant {
                algorithm,
                variant,
                available,
            }) => {
                assert_eq!(algorithm, alg);
                assert_eq!(variant, "no-such");
                let expected: Vec<_> = alg.available_variants().map(|v| v.name()).collect();
                assert_eq!(available, expected, "{alg}");
                assert!(!available.is_empty(), "{alg}");
            }
            other => panic!("{alg}: {other:?}"),
        }
    }
}

/// `hash`'s BLAKE3 shortcut (the crate's one-shot up to one piece) and the incremental path
/// above it give the crate's digest on both sides of the piece size.
#[test]
fn one_shot_blake3_on_both_sides_of_a_piece() {
    let piece = crate::algo::blake3::PIECE;
    for len in [
        0,
        1,
        64,
        1024,
        1025,
        piece - 1,
        piece,
        piece + 1,
        2 * piece + 7,
    ] {
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let expected = ::blake3::hash(&data);
        assert_eq!(
            hash(Algorithm::Blake3, &data).as_bytes(),
            expected.as_bytes(),
            "{len}"
        );
        let mut h = Hasher::new(Algorithm::Blake3);
        h.update(&data);
        assert_eq!(h.finalize_reset().as_bytes(), expected.as_bytes(), "{len}");
    }
}

/// A fresh `Hasher` holds a plain BLAKE3 message of up to one block in place and hands it to
/// the crate's hasher when more arrives: every length around the block, split at every point,
/// through each way out (the digest, a longer output, a copy, a reset), and a reused hasher
/// that goes back and forth between short and long messages.
#[test]
fn a_blake3_message_held_in_the_hasher_gives_the_crates_digest_every_way() {
    let data: Vec<u8> = (0..300u32).map(|i| (i * 29 % 251) as u8).collect();
    let crate_output = |m: &[u8], len: usize| {
        let mut out = vec![0; len];
        ::blake3::Hasher::new()
            .update(m)
            .finalize_xof()
            .fill(&mut out);
        out
    };
    let mut reused = Hasher::new(Algorithm::Blake3);
    for len in (0..=130).chain([200, 300]) {
        let message = &data[..len];
        let expected = crate_output(message, 32);
        for split in 0..=len {
            let mut h = Hasher::new(Algorithm::Blake3);
            h.update(&message[..split]);
            h.update(&message[split..]);
            assert_eq!(h.algorithm(), Algorithm::Blake3);
            let copy = h.try_clone().expect("a held message clones");
            assert_eq!(
                h.finalize().as_bytes(),
                expected,
                "{len} bytes, split at {split}"
            );
            assert_eq!(
                copy.finalize().as_bytes(),
                expected,
                "a copy, {len}/{split}"
            );
        }
        // Longer output from the held state, and the hasher starts over.
        let mut h = Hasher::with_threads(Algorithm::Blake3, 2);
        h.update(message);
        let mut long = vec![0; 100];
        h.finalize_xof_into_reset(&mut long).unwrap();
        assert_eq!(long, crate_output(message, 100), "{len} bytes, 100 out");
        h.update(b"after");
        assert_eq!(h.finalize_reset(), hash(Algorithm::Blake3, b"after"));
        // A reset forgets a held message.
        h.update(message);
        h.reset();
        h.update(b"x");
        assert_eq!(h.finalize(), hash(Algorithm::Blake3, b"x"));
        // One hasher for short and long messages in turn.
        reused.update(message);
        assert_eq!(
            reused.finalize_reset().as_bytes(),
            expected,
            "reused, {len}"
        );
        reused.update(&data[..len % 7]);
        assert_eq!(
            reused.finalize_reset().as_bytes(),
            crate_output(&data[..len % 7], 32),
            "reused, {} after {len}",
            len % 7
        );
    }
}

#[test]
fn every_hasher_knows_its_algorithm() {
    for &alg in Algorithm::ALL {
        assert_eq!(Hasher::new(alg).algorithm(), alg);
        assert_eq!(Hasher::with_threads(alg, 2).algorithm(), alg);
        let built = Hasher::builder(alg).build().unwrap();
        assert_eq!(built.algorithm(), alg);
        assert_eq!(built.try_clone().map(|h| h.algorithm()), Some(alg));
        for variant in alg.available_variants() {
            assert_eq!(
                Hasher::with_variant(variant).algorithm(),
                alg,
                "{variant:?}"
            );
        }
        let sizes = alg.digest_sizes();
        for size in [sizes.min, sizes.max.min(sizes.min.max(100))] {
            let sized = Hasher::builder(alg).digest_size(size).build().unwrap();
            assert_eq!(sized.algorithm(), alg, "{size} bytes");
            assert_eq!(format!("{sized:?}"), format!("Hasher({alg})"));
        }
    }
    let stream = Hasher::builder(Algorithm::Parsha256).expected_len(3);
    assert_eq!(stream.build().unwrap().algorithm(), Algorithm::Parsha256);
}

/// A plain builder (nothing asked beyond the algorithm and threads) takes `build`'s quick way,
/// `Hasher::with_threads`; every variant asked for by name takes the way with the checks. Both
/// give the same digests, for every algorithm and thread count.
#[test]
fn the_plain_builders_quick_way_gives_what_every_variant_gives() {
    let data: Vec<u8> = (0..3000u32).map(|i| (i * 7 + i / 255) as u8).collect();
    let mut compared = 0;
    for &alg in Algorithm::ALL {
        for threads in [Threads::ONE, Threads::new(2)] {
            let plain = |len: usize| {
                let mut h = Hasher::builder(alg).threads(threads).build().unwrap();
                h.update(&data[..len]);
                h.finalize()
            };
            for variant in alg.available_variants() {
                for len in [0, 8, 55, 64, 100, 1000, 3000] {
                    let mut h = Hasher::builder(alg)
                        .threads(threads)
                        .variant(variant)
                        .build()
                        .unwrap();
                    h.update(&data[..len]);
                    assert_eq!(h.finalize(), plain(len), "{variant:?}, {len} bytes");
                    compared += 1;
                }
            }
        }
    }
    assert!(compared >= 2 * 7 * Algorithm::ALL.len(), "{compared}");
}

/// A `Hasher` is moved once per message by `Hasher::new(..).update(m).finalize()`: within 128
/// bytes a move is eight 16-byte moves; beyond, a `memcpy` call whose wide stores the next
/// loads of the block cannot take their bytes from (see `InlineHash`).
#[test]
fn a_hasher_fits_in_128_bytes() {
    assert!(
        std::mem::size_of::<Hasher>() <= 128,
        "{}",
        std::mem::size_of::<Hasher>()
    );
}

/// Every in-place state's counts, block and state's words lie at the 16-byte offsets `LazyMd`
/// lays them at in a `Hasher` (itself 16-byte aligned): the counts 16 bytes in, the block 32,
/// the words 96. So each 16-byte piece a load or the 16-byte moves of `finalize(self)` read is
/// one that one store wrote, and none crosses a cache line (`LazyMd`, `algo::pieces`).
#[test]
fn the_in_place_counts_block_and_state_lie_on_16_byte_pieces_of_a_hasher() {
    assert_eq!(std::mem::align_of::<Hasher>() % 16, 0);
    let mut checked = 0;
    for &alg in Algorithm::ALL {
        let hasher = Hasher::new(alg);
        let start = &hasher as *const Hasher as usize;
        if let Some(addresses) = hasher.inline_addresses() {
            let offsets = addresses.map(|a| a.wrapping_sub(start));
            if offsets[0] < std::mem::size_of::<Hasher>() {
                assert_eq!(offsets, [16, 32, 96], "{alg}");
                checked += 1;
            } else {
                // The SHA-512 family's states are boxed, on the heap: aligned there.
                assert_eq!(addresses.map(|a| a % 8), [0; 3], "{alg}");
            }
        }
    }
    assert_eq!(checked, 4, "MD5, SHA-1, SHA-224 and SHA-256 in place");
}

/// `digest_so_far` gives what a clone's `finalize` gives, for every algorithm at lengths around
/// the block sizes, and leaves the hasher to go on: the whole message's digest at the end.
#[test]
fn digest_so_far_equals_a_finalized_clone_and_the_hasher_goes_on() {
    let data: Vec<u8> = (0..700u32).map(|i| (i * 11 % 251) as u8).collect();
    for &alg in Algorithm::ALL {
        for split in [0, 1, 55, 64, 65, 128, 129, 300] {
            let mut hasher = Hasher::new(alg);
            hasher.update(&data[..split]);
            let so_far = hasher.digest_so_far().expect("a plain hasher clones");
            let clone = hasher.try_clone().expect("a plain hasher clones");
            assert_eq!(so_far, clone.finalize(), "{alg} at {split}");
            assert_eq!(so_far, hash(alg, &data[..split]), "{alg} at {split}");
            hasher.update(&data[split..]);
            assert_eq!(hasher.finalize(), hash(alg, &data), "{alg} after {split}");
        }
    }
    let stream = Hasher::builder(Algorithm::Parsha256)
        .expected_len(3)
        .build();
    assert!(stream.unwrap().digest_so_far().is_none());
}
