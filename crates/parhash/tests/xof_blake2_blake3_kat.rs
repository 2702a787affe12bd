//! BLAKE2b, BLAKE2s, BLAKE3, SHAKE128 and SHAKE256 (the algorithms parhash takes from their
//! maintained crates) against their published vectors, through the registry (`Hasher`, one
//! shot `hash`, `digest_size` for other lengths):
//!
//! - BLAKE2: RFC 7693 Appendix A and the BLAKE2 authors' `blake2-kat.json` (unkeyed entries);
//! - BLAKE3: the BLAKE3 authors' `test_vectors.json` (hash mode, its whole 131-byte extended
//!   output and lengths around the 64-byte output block and the old 128-byte limit, on one
//!   thread and on several);
//! - SHAKE: NIST CAVP SHA3VS ShortMsg (fixed output length) and VariableOut (lengths chosen
//!   per record, up to 140 and 250 bytes);
//! - long outputs (129 bytes to `Output::MAX`, and past it through a caller's buffer): BLAKE3
//!   against the official crate's own XOF reader on one thread, SHAKE against OpenSSL.
//!
//! Sources are named in each vector file (`vectors/README.md`, `vectors/blake3/SOURCE`).
mod common;

use common::*;
use parhash::{hash, Algorithm, Hasher, Output, Threads};

/// `data` hashed by `alg` to `size` bytes through the builder, on `threads`, fed in two parts.
fn sized(alg: Algorithm, size: usize, threads: Threads, data: &[u8]) -> Vec<u8> {
    let mut h = Hasher::builder(alg)
        .digest_size(size)
        .threads(threads)
        .build()
        .unwrap_or_else(|e| panic!("{alg} at {size} bytes: {e}"));
    let (a, b) = data.split_at(data.len() / 3);
    h.update(a);
    h.update(b);
    h.finalize().as_bytes().to_vec()
}

#[test]
fn blake2_rfc7693_appendix_a() {
    // RFC 7693, Appendix A (BLAKE2b-512) and Appendix B (BLAKE2s-256) of "abc".
    assert_eq!(
        hash(Algorithm::Blake2b, b"abc").to_hex(),
        "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1\
         7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"
    );
    assert_eq!(
        hash(Algorithm::Blake2s, b"abc").to_hex(),
        "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982"
    );
}

/// The `In = ` / `Out = ` records of a BLAKE2 KAT file.
fn parse_in_out(text: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut records = Vec::new();
    let mut input = None;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        if let Some(v) = line.strip_prefix("In = ") {
            input = Some(unhex(v));
        } else if let Some(v) = line.strip_prefix("Out = ") {
            records.push((input.take().expect("Out without In"), unhex(v)));
        }
    }
    records
}

fn check_blake2_kat(alg: Algorithm, text: &str) {
    let records = parse_in_out(text);
    assert_eq!(
        records.len(),
        256,
        "{alg}: one record per input length 0..=255"
    );
    ran_default_variant(alg);
    let mut h = Hasher::new(alg);
    for (input, expected) in &records {
        assert_eq!(
            hash(alg, input).as_bytes(),
            &expected[..],
            "{alg}, {} bytes",
            input.len()
        );
        h.update(input);
        assert_eq!(
            h.finalize_reset().as_bytes(),
            &expected[..],
            "{alg} streaming"
        );
        // The default size asked for explicitly is the same hash.
        let full = sized(alg, expected.len(), Threads::ONE, input);
        assert_eq!(full, *expected, "{alg} through digest_size");
    }
}

#[test]
fn blake2b_authors_kat() {
    check_blake2_kat(
        Algorithm::Blake2b,
        include_str!("vectors/blake2b/blake2-kat-unkeyed.txt"),
    );
}

#[test]
fn blake2s_authors_kat() {
    check_blake2_kat(
        Algorithm::Blake2s,
        include_str!("vectors/blake2s/blake2-kat-unkeyed.txt"),
    );
}

/// `(input_len, field)` of every case of the BLAKE3 test vectors for one of `hash`,
/// `keyed_hash`, `derive_key` (the JSON has one field per line, so no JSON parser is needed).
fn blake3_cases(field: &str) -> Vec<(usize, Vec<u8>)> {
    let text = include_str!("vectors/blake3/test_vectors.json");
    let prefix = format!("\"{field}\":");
    let mut cases = Vec::new();
    let mut input_len = None;
    for line in text.lines().map(str::trim) {
        if let Some(v) = line.strip_prefix("\"input_len\":") {
            input_len = Some(v.trim().trim_end_matches(',').parse().expect("input_len"));
        } else if let Some(v) = line.strip_prefix(prefix.as_str()) {
            let hex = v.trim().trim_end_matches(',').trim_matches('"');
            cases.push((input_len.expect("field without input_len"), unhex(hex)));
        }
    }
    assert!(cases.len() >= 30, "parsed {} cases", cases.len());
    cases
}

#[test]
fn blake3_authors_keyed_hash_and_derive_key_vectors() {
    // The file's key (32 ASCII bytes) and context string, as its `_comment` gives them.
    const KEY: &[u8; 32] = b"whats the Elvish word for friend";
    const CONTEXT: &str = "BLAKE3 2019-12-27 16:29:52 test vectors context";
    let modes = [
        ("keyed_hash", parhash::Blake3Mode::Keyed(*KEY)),
        ("derive_key", parhash::Blake3Mode::derive_key(CONTEXT)),
    ];
    for (field, mode) in modes {
        for (len, extended) in blake3_cases(field) {
            let input: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            assert_eq!(extended.len(), 131, "{field}, {len} bytes");
            for size in [32, 1, 64, 65, 131] {
                for threads in [Threads::ONE, Threads::new(3)] {
                    let mut h = Hasher::builder(Algorithm::Blake3)
                        .blake3_mode(mode)
                        .digest_size(size)
                        .threads(threads)
                        .build()
                        .expect("blake3 takes every mode");
                    let (a, b) = input.split_at(len / 3);
                    h.update(a);
                    h.update(b);
                    assert_eq!(
                        h.finalize().as_bytes(),
                        &extended[..size],
                        "{field}, {len} bytes, {size}-byte digest, {threads:?}"
                    );
                }
            }
        }
    }
    // Only BLAKE3 has the modes.
    let refused = Hasher::builder(Algorithm::Sha256)
        .blake3_mode(parhash::Blake3Mode::Keyed(*KEY))
        .build();
    assert!(matches!(
        refused,
        Err(parhash::Error::NoKeyedMode(Algorithm::Sha256))
    ));
}

#[test]
fn blake3_authors_test_vectors() {
    ran_default_variant(Algorithm::Blake3);
    for (len, extended) in blake3_cases("hash") {
        // The input is the repeating sequence 0, 1, ..., 250.
        let input: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        assert_eq!(
            hash(Algorithm::Blake3, &input).as_bytes(),
            &extended[..32],
            "{len} bytes"
        );
        // The extended output (131 bytes in the file) is the XOF: every length parhash
        // writes is its prefix, on one thread and on three, the whole of it included.
        assert_eq!(extended.len(), 131, "{len} bytes");
        // The concrete type through the `digest` crate's XOF traits, read in two pieces.
        let mut xof = parhash::Blake3::with_threads(3);
        digest::Update::update(&mut xof, &input);
        let mut reader = digest::ExtendableOutput::finalize_xof(xof);
        let mut read = [0; 131];
        let (first, rest) = read.split_at_mut(65);
        digest::XofReader::read(&mut reader, first);
        digest::XofReader::read(&mut reader, rest);
        assert_eq!(
            read[..],
            extended[..],
            "{len} bytes through ExtendableOutput"
        );
        for size in [1, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 130, 131] {
            for threads in [Threads::ONE, Threads::new(3)] {
                let got = sized(Algorithm::Blake3, size, threads, &input);
                assert_eq!(
                    got,
                    extended[..size],
                    "{len} bytes, {size}-byte digest, {threads:?}"
                );
            }
        }
    }
}

#[test]
fn shake_nist_short_messages() {
    for (alg, text) in [
        (
            Algorithm::Shake128,
            include_str!("vectors/shake128/SHAKE128ShortMsg.rsp"),
        ),
        (
            Algorithm::Shake256,
            include_str!("vectors/shake256/SHAKE256ShortMsg.rsp"),
        ),
    ] {
        let kats = byte_aligned(parse_kats(text));
        assert!(kats.len() > 100, "{alg}");
        ran_default_variant(alg);
        for k in &kats {
            // The files' outputs are 128 (SHAKE128) and 256 bits (SHAKE256), not parhash's
            // default lengths: ask for them.
            let got = sized(alg, k.md.len(), Threads::ONE, &k.msg);
            assert_eq!(got, k.md, "{alg}: line {}", k.line);
            // parhash's default length continues the same output.
            let default = hash(alg, &k.msg);
            assert_eq!(
                &default.as_bytes()[..k.md.len()],
                &k.md[..],
                "{alg} default"
            );
        }
    }
}

/// `(output bits, message, output)` of a CAVP VariableOut file.
fn parse_variable_out(text: &str) -> Vec<(usize, Vec<u8>, Vec<u8>, usize)> {
    let mut records = Vec::new();
    let (mut bits, mut msg) = (None, None);
    for (i, line) in text.lines().enumerate() {
        if let Some(v) = line.strip_prefix("Outputlen = ") {
            bits = Some(v.trim().parse::<usize>().expect("Outputlen"));
        } else if let Some(v) = line.strip_prefix("Msg = ") {
            msg = Some(unhex(v));
        } else if let Some(v) = line.strip_prefix("Output = ") {
            let bits = bits.take().expect("Output without Outputlen");
            records.push((
                bits,
                msg.take().expect("Output without Msg"),
                unhex(v),
                i + 1,
            ));
        }
    }
    records
}

#[test]
fn shake_nist_variable_output_lengths() {
    for (alg, text) in [
        (
            Algorithm::Shake128,
            include_str!("vectors/shake128/SHAKE128VariableOut.rsp"),
        ),
        (
            Algorithm::Shake256,
            include_str!("vectors/shake256/SHAKE256VariableOut.rsp"),
        ),
    ] {
        let records = parse_variable_out(text);
        let (mut tested, mut longest) = (0, 0);
        for (bits, msg, expected, line) in records {
            // Whole bytes only (parhash's lengths are bytes).
            if bits % 8 != 0 {
                continue;
            }
            assert_eq!(expected.len(), bits / 8, "{alg}: line {line}");
            let got = sized(alg, bits / 8, Threads::ONE, &msg);
            assert_eq!(got, expected, "{alg}: line {line}, {bits} bits");
            tested += 1;
            longest = longest.max(bits);
        }
        assert!(tested > 100, "{alg}: only {tested} records tested");
        // The files go past 128 bytes (1120 and 2000 bits): those records are tested too.
        assert!(longest > 1024, "{alg}: longest tested {longest} bits");
    }
}

/// Output lengths of the long-output tests: past the old 128-byte limit, past one BLAKE3
/// output block (64 bytes) and one SHAKE256 rate (136 bytes) many times, and the largest digest.
const LONG_LENGTHS: [usize; 6] = [129, 200, 1000, 4097, 65_536, Output::MAX];

/// Message lengths: empty, one block, and several BLAKE3 pieces (1 MiB each, so the threaded
/// tree merges run).
const MESSAGE_LENGTHS: [usize; 3] = [0, 1000, 2 * parhash::lab::algo::blake3::PIECE + 4321];

#[test]
fn blake3_long_outputs_match_the_official_crate() {
    for len in MESSAGE_LENGTHS {
        let input: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        // The official crate on one thread, read through its XOF reader in odd pieces.
        let mut expected = vec![0; Output::MAX + 1000];
        let mut reader = blake3::Hasher::new().update(&input).finalize_xof();
        for piece in expected.chunks_mut(777) {
            reader.fill(piece);
        }
        for size in LONG_LENGTHS {
            for threads in [Threads::ONE, Threads::new(3)] {
                let got = sized(Algorithm::Blake3, size, threads, &input);
                assert!(
                    got == expected[..size],
                    "{len}-byte message, {size}-byte digest, {threads:?}"
                );
            }
        }
        // Past Output::MAX only into a buffer of the caller's.
        let mut h = Hasher::with_threads(Algorithm::Blake3, 3);
        h.update(&input);
        let mut got = vec![0; expected.len()];
        h.finalize_xof_into_reset(&mut got).unwrap();
        assert!(got == expected, "{len}-byte message, {} bytes", got.len());
    }
}

/// `len` bytes of OpenSSL's SHAKE128 or SHAKE256 of `data`.
fn openssl_shake(alg: Algorithm, data: &[u8], len: usize) -> Vec<u8> {
    use openssl::hash::{Hasher as OpensslHasher, MessageDigest};
    let md = match alg {
        Algorithm::Shake128 => MessageDigest::shake_128(),
        Algorithm::Shake256 => MessageDigest::shake_256(),
        other => panic!("{other} is not SHAKE"),
    };
    let mut h = OpensslHasher::new(md).unwrap();
    h.update(data).unwrap();
    let mut out = vec![0; len];
    h.finish_xof(&mut out).unwrap();
    out
}

#[test]
fn shake_long_outputs_match_openssl() {
    for alg in [Algorithm::Shake128, Algorithm::Shake256] {
        for len in MESSAGE_LENGTHS {
            let input: Vec<u8> = (0..len).map(|i| (i * 7 % 256) as u8).collect();
            let expected = openssl_shake(alg, &input, Output::MAX + 1000);
            for size in LONG_LENGTHS {
                let got = sized(alg, size, Threads::ONE, &input);
                assert!(
                    got == expected[..size],
                    "{alg}: {len}-byte message, {size}-byte digest"
                );
            }
            let mut h = Hasher::new(alg);
            h.update(&input);
            let mut got = vec![0; expected.len()];
            h.finalize_xof_into_reset(&mut got).unwrap();
            assert!(
                got == expected,
                "{alg}: {len}-byte message, {} bytes",
                got.len()
            );
        }
    }
}

#[test]
fn xof_lengths_over_the_maximum_are_refused_with_the_limit() {
    for alg in [Algorithm::Blake3, Algorithm::Shake128, Algorithm::Shake256] {
        let error = Hasher::builder(alg)
            .digest_size(Output::MAX + 1)
            .build()
            .map(|_| ())
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("{alg} digests are 1 to 1048576 bytes, not 1048577")
        );
    }
}
