//! `-l/--length`: the digest length of the algorithms whose length can be chosen (BLAKE2b,
//! BLAKE2s, BLAKE3, SHAKE128, SHAKE256; [`parhash::Algorithm::digest_sizes`]).
//!
//! One rule for every algorithm: the length is in BITS, a multiple of 8, as GNU's `b2sum -l`
//! and `cksum -l` count it; 0 means the algorithm's default. b3sum's `--length` counts bytes:
//! `b3sum --length 64` is `parhash sum -a blake3 -l 512`. An algorithm of fixed length takes
//! only its own length (`-l 256` with sha256 changes nothing). The extendable-output functions
//! (BLAKE3, SHAKE) go up to [`Output::MAX`] bytes (1 MiB, 8388608 bits), where b3sum has no
//! limit: each digest is one hexadecimal line, and a longer one is refused with this limit
//! rather than filling memory.

use parhash::{Algorithm, Output};

/// `-l` value parser: a number of bits, a multiple of 8.
pub fn parse_bits(s: &str) -> Result<usize, String> {
    let bits: usize = s.parse().map_err(|_| {
        if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
            too_long(s)
        } else {
            "a number of bits is needed, such as 256".to_string()
        }
    })?;
    if bits % 8 != 0 {
        return Err(
            "the number of bits must be a multiple of 8 (-l counts bits, as b2sum and \
             cksum do; b3sum's --length counts bytes: write 8 times its value)"
                .to_string(),
        );
    }
    Ok(bits)
}

/// The message for a length over every algorithm's limit.
fn too_long(bits: &str) -> String {
    format!(
        "{bits} bits is too long: digests are at most {} bits ({} MiB, for blake3, shake128 and \
         shake256)",
        Output::MAX * 8,
        Output::MAX >> 20
    )
}

/// The algorithms whose length `-l` sets, as a phrase: `blake2b, blake2s, ... and shake256`.
fn variable_algorithms() -> String {
    let names: Vec<&str> = Algorithm::ALL
        .iter()
        .filter(|a| a.digest_sizes().is_variable())
        .map(|a| a.name())
        .collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The digest size in bytes that `-l BITS` asks of `alg`: `None` for its default (no `-l`,
/// `-l 0`, or its own length), an error message for a length it cannot produce.
pub fn digest_size(alg: Algorithm, bits: Option<usize>) -> Result<Option<usize>, String> {
    let Some(bits) = bits.filter(|&b| b != 0) else {
        return Ok(None);
    };
    let sizes = alg.digest_sizes();
    let size = bits / 8;
    if !sizes.is_variable() {
        if size == sizes.max {
            return Ok(None);
        }
        return Err(format!(
            "invalid length '{bits}': {alg} digests are always {} bits; -l applies to {}",
            sizes.max * 8,
            variable_algorithms()
        ));
    }
    if !sizes.contains(size) {
        let limit = if alg.is_extendable() {
            format!(" ({} MiB)", sizes.max >> 20)
        } else {
            String::new()
        };
        return Err(format!(
            "invalid length '{bits}': {alg} digests are {} to {} bits{limit}",
            sizes.min * 8,
            sizes.max * 8
        ));
    }
    Ok((size != alg.digest_size()).then_some(size))
}

/// The digest size `-l BITS` gives `alg` once the flags are checked, as every hasher of `sum`
/// and `check` asks for it: the size where it is not the default; `None` where `alg` keeps its
/// own (no `-l`, its own length, or with several algorithms one of a single length, which `-l`
/// does not apply to).
pub fn size_for(alg: Algorithm, bits: Option<usize>) -> Option<usize> {
    digest_size(alg, bits).ok().flatten()
}

/// What `-l BITS` is wrong about with `algorithm` (`-a`, if given), if anything: a length the
/// algorithm cannot produce, or `-l` without `-a` when hashing (it sets the length of an
/// algorithm that must be named; the default, sha256, has one length). When checking, each
/// line's digest says its length: `-l` is accepted and ignored, as by `b2sum -c`, but still
/// checked against `-a`.
pub fn length_error(
    algorithm: Option<Algorithm>,
    bits: Option<usize>,
    checking: bool,
) -> Option<String> {
    bits?;
    match algorithm {
        Some(alg) => digest_size(alg, bits).err(),
        None if checking => None,
        None => Some(format!(
            "-l needs -a: it sets the digest length of {}",
            variable_algorithms()
        )),
    }
}

/// [`length_error`] for `-a` naming several algorithms (`sum -a md5,blake2b -l 256`): `-l`
/// sets the length of those that have a choice of lengths, each of which must be able to
/// produce it, and at least one must have a choice (else the error the first would give).
pub fn several_length_error(algorithms: &[Algorithm], bits: Option<usize>) -> Option<String> {
    let [first, ..] = algorithms else {
        return length_error(None, bits, false);
    };
    let variable: Vec<Algorithm> = (algorithms.iter().copied())
        .filter(|alg| alg.digest_sizes().is_variable())
        .collect();
    match variable.as_slice() {
        [] => length_error(Some(*first), bits, false),
        some => (some.iter()).find_map(|&alg| length_error(Some(alg), bits, false)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_for_each_of_several_algorithms() {
        assert_eq!(size_for(Algorithm::Blake2b, Some(256)), Some(32));
        assert_eq!(size_for(Algorithm::Blake3, Some(512)), Some(64));
        // Its own length, no -l, -l 0: the default.
        assert_eq!(size_for(Algorithm::Blake2b, Some(512)), None);
        assert_eq!(size_for(Algorithm::Blake2b, None), None);
        assert_eq!(size_for(Algorithm::Blake2b, Some(0)), None);
        // -l does not apply to an algorithm of one length, nor to one that cannot make it.
        assert_eq!(size_for(Algorithm::Md5, Some(256)), None);
        assert_eq!(size_for(Algorithm::Blake2s, Some(512)), None);
    }

    #[test]
    fn bits_as_gnu_counts_them() {
        assert_eq!(parse_bits("256"), Ok(256));
        assert_eq!(parse_bits("0"), Ok(0));
        assert!(parse_bits("255").unwrap_err().contains("multiple of 8"));
        assert!(parse_bits("x").unwrap_err().contains("a number of bits"));
        assert!(parse_bits("-8").is_err());
        assert_eq!(
            parse_bits("99999999999999999999999").unwrap_err(),
            "99999999999999999999999 bits is too long: digests are at most 8388608 bits \
             (1 MiB, for blake3, shake128 and shake256)"
        );
    }

    #[test]
    fn sizes_for_each_kind_of_algorithm() {
        let blake2b = Algorithm::Blake2b;
        assert_eq!(digest_size(blake2b, None), Ok(None));
        assert_eq!(digest_size(blake2b, Some(0)), Ok(None));
        assert_eq!(digest_size(blake2b, Some(512)), Ok(None));
        assert_eq!(digest_size(blake2b, Some(256)), Ok(Some(32)));
        assert_eq!(digest_size(Algorithm::Blake3, Some(1024)), Ok(Some(128)));
        assert_eq!(digest_size(Algorithm::Blake3, Some(1032)), Ok(Some(129)));
        assert_eq!(
            digest_size(Algorithm::Shake128, Some(8 << 20)),
            Ok(Some(1 << 20))
        );
        assert_eq!(
            digest_size(Algorithm::Shake256, Some((8 << 20) + 8)).unwrap_err(),
            "invalid length '8388616': shake256 digests are 8 to 8388608 bits (1 MiB)"
        );
        assert_eq!(
            digest_size(blake2b, Some(520)).unwrap_err(),
            "invalid length '520': blake2b digests are 8 to 512 bits"
        );
        assert_eq!(digest_size(Algorithm::Sha256, Some(256)), Ok(None));
        assert!(length_error(None, Some(256), false)
            .unwrap()
            .starts_with("-l needs -a"));
        assert_eq!(length_error(None, Some(256), true), None);
        assert_eq!(length_error(Some(blake2b), None, false), None);
        let fixed = digest_size(Algorithm::Sha256, Some(128)).unwrap_err();
        assert_eq!(
            fixed,
            "invalid length '128': sha256 digests are always 256 bits; -l applies to \
             blake2b, blake2s, blake3, shake128 and shake256"
        );
    }

    #[test]
    fn several_algorithms_take_the_length_where_they_can() {
        use Algorithm::*;
        assert_eq!(several_length_error(&[Md5, Blake2b], Some(256)), None);
        assert_eq!(several_length_error(&[Md5, Blake2b], None), None);
        // None of them has a choice: the error the first would give alone.
        assert_eq!(
            several_length_error(&[Md5, Sha1], Some(256)),
            length_error(Some(Md5), Some(256), false)
        );
        assert!(several_length_error(&[Md5, Sha1], Some(256)).is_some());
        // Every one with a choice must be able to make it (blake2s stops at 256 bits).
        assert_eq!(
            several_length_error(&[Blake2s, Blake2b], Some(512)),
            length_error(Some(Blake2s), Some(512), false)
        );
        assert!(several_length_error(&[Blake2s, Blake2b], Some(512)).is_some());
        assert!(several_length_error(&[], Some(256))
            .unwrap()
            .contains("-l needs -a"));
    }
}
