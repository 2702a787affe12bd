//! The text forms of multipart object checksums (the library's `parhash::multipart`), as S3
//! shows them, and their checksum lines:
//!
//! - an **ETag**: hex, and for a multipart upload `-N` after it (`"9b2c...-3"`, quotes and
//!   all in S3's headers); an object uploaded in one piece has the plain hex MD5 of its bytes;
//! - a **composite checksum**: base64 of the raw combined digest (big-endian for the CRCs),
//!   then `-N` where HeadObject shows it (GetObjectAttributes leaves it out).
//!
//! Lines are BSD lines with tags of their own, `ETAG (NAME) = HEX-N` and
//! `SHA256-COMPOSITE (NAME) = BASE64-N`, so a list holds them beside other lines and no
//! coreutils tool takes them for its own.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use parhash::multipart::{Combine, Multipart, MultipartError, S3_MAX_PARTS};
use parhash::Algorithm;

/// The tag of S3 ETag lines.
pub const ETAG_TAG: &str = "ETAG";

/// What follows an algorithm's tag in the tag of its composite checksums (`SHA256-COMPOSITE`).
const COMPOSITE_SUFFIX: &str = "-COMPOSITE";

/// The algorithms S3 computes composite checksums with.
pub const COMPOSITE_ALGORITHMS: [Algorithm; 4] = [
    Algorithm::Sha1,
    Algorithm::Sha256,
    Algorithm::Crc32,
    Algorithm::Crc32c,
];

/// Base64 as S3 writes it (standard alphabet, padded), read with or without the padding: where
/// none is written it is restored, then the text is read by the lists' one rule
/// (`digest_text`), so a store's value and a list line's digest are read alike.
fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let missing = match (text.contains('='), text.len() % 4) {
        (true, _) | (false, 0) => 0,
        (false, 2) => 2,
        (false, 3) => 1,
        (false, _) => return None,
    };
    let padded = format!("{text}{}", "=".repeat(missing));
    crate::digest_text::decode_base64(padded.as_bytes())
}

/// Why `algorithm` has no composite form, if it has none.
pub fn composite_refusal(algorithm: Algorithm) -> Option<String> {
    if COMPOSITE_ALGORITHMS.contains(&algorithm) {
        return None;
    }
    if algorithm == Algorithm::Crc64Nvme {
        return Some(
            "S3 keeps crc64nvme as a full-object checksum only: a multipart object's \
             CRC64NVME is the whole file's (`parhash sum -a crc64nvme`), not a composite"
                .into(),
        );
    }
    Some(format!(
        "S3 computes composite checksums with sha1, sha256, crc32 and crc32c, not {algorithm}"
    ))
}

/// The tag of `combine`'s lines: `ETAG`, or the algorithm's tag and `-COMPOSITE`.
pub fn tag(combine: Combine) -> String {
    match combine {
        Combine::S3Etag => ETAG_TAG.to_string(),
        Combine::Composite(algorithm) => format!("{}{COMPOSITE_SUFFIX}", algorithm.info().tag),
    }
}

/// What a tag names: the form whose [`tag`] it is, `None` for any other tag.
pub fn from_tag(tag: &str) -> Option<Combine> {
    if tag == ETAG_TAG {
        return Some(Combine::S3Etag);
    }
    let algorithm_tag = tag.strip_suffix(COMPOSITE_SUFFIX)?;
    COMPOSITE_ALGORITHMS
        .into_iter()
        .find(|a| a.info().tag == algorithm_tag)
        .map(Combine::Composite)
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The value as the store shows it (without S3's quotes): hex for an ETag, base64 for a
/// composite checksum, then `-parts` where there are parts.
pub fn value(combine: Combine, digest: &[u8], parts: Option<u64>) -> String {
    let mut text = match combine {
        // A table, not `format!` a byte: a verification of many objects shows every ETag.
        Combine::S3Etag => (digest.iter())
            .flat_map(|&b| [HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]])
            .map(char::from)
            .collect(),
        Combine::Composite(_) => BASE64.encode(digest),
    };
    if let Some(parts) = parts {
        text.push_str(&format!("-{parts}"));
    }
    text
}

/// [`value`] of a computed multipart checksum.
pub fn text(multipart: &Multipart) -> String {
    let combine = multipart.request.combine();
    value(combine, multipart.digest.as_bytes(), Some(multipart.parts))
}

/// A value a store showed, read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    /// Its form.
    pub combine: Combine,
    /// The raw digest.
    pub digest: Vec<u8>,
    /// The `-N` after it. Without one an ETag is the MD5 of an object uploaded in one piece,
    /// and a composite checksum one whose part count the store left out.
    pub parts: Option<u64>,
}

/// Reads a value of `combine`'s form: hex (ETag) or base64 (composite), with or without
/// `-N`, with or without the double quotes S3 shows ETags in, blanks around it ignored.
///
/// # Errors
/// A message saying what the value should look like.
pub fn parse_value(combine: Combine, text: &str) -> Result<Label, String> {
    let trimmed = text.trim();
    let unquoted = trimmed
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(trimmed);
    let size = combine.algorithm().digest_size();
    let bad = || match combine {
        Combine::S3Etag => {
            format!("'{text}' is not an S3 ETag (32 hex digits, then -N for a multipart upload)")
        }
        Combine::Composite(algorithm) => format!(
            "'{text}' is not a {} composite checksum (base64 of {size} bytes, then -N)",
            algorithm.info().tag
        ),
    };
    let (body, parts) = match unquoted.rsplit_once('-') {
        Some((body, count)) => {
            let parts = count
                .parse::<u64>()
                .ok()
                .filter(|n| {
                    (1..=S3_MAX_PARTS).contains(n) && count.bytes().all(|b| b.is_ascii_digit())
                })
                .ok_or_else(bad)?;
            (body, Some(parts))
        }
        None => (unquoted, None),
    };
    let digest = match combine {
        Combine::S3Etag => crate::digest_text::decode_hex(body.as_bytes()),
        Combine::Composite(_) => decode_base64(body),
    };
    match digest {
        Some(digest) if digest.len() == size => Ok(Label {
            combine,
            digest,
            parts,
        }),
        _ => Err(bad()),
    }
}

/// Reads a part size for an S3 form (`8MiB`, `16M`, `5242880`): binary suffixes only, since
/// the decimal ones are ambiguous here (the AWS CLI reads `8MB` as 8 MiB), and within S3's
/// limits for an upload of more than one part (5 MiB to 5 GiB).
///
/// # Errors
/// A message saying why the size cannot be a part size.
pub fn parse_part_size(text: &str) -> Result<u64, String> {
    let suffix = text
        .trim()
        .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    if crate::size::is_decimal_suffix(suffix) {
        return Err(format!(
            "'{text}' is ambiguous for a part size (the AWS CLI reads MB as MiB): write KiB, \
             MiB or GiB, or the bytes"
        ));
    }
    let size = crate::size::parse_size(text)?;
    parhash::multipart::check_part_size(size).map_err(|err| match err {
        MultipartError::PartTooSmall(_) => format!(
            "parts of {} are under S3's smallest part, 5 MiB (only the last part of an \
                 upload may be smaller)",
            part_size_text(size)
        ),
        other => other.to_string(),
    })?;
    Ok(size)
}

/// A part size for people: `8 MiB`, `5 GiB`, `640 KiB`, else the bytes (`6990507 bytes`).
pub fn part_size_text(size: u64) -> String {
    for (unit, name) in [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] {
        if size >= unit && size % unit == 0 {
            return format!("{} {name}", size / unit);
        }
    }
    format!("{size} bytes")
}

/// What `check` says after the verdict of a value with parts: the part size that matched and
/// the parts it gave (`matched`; the count only where the value did not say it), or the part
/// sizes tried.
pub fn verdict_note(matched: Option<(u64, u64)>, tried: &[u64], parts: Option<u64>) -> String {
    match matched {
        Some((_, 1)) => "one part".to_string(),
        Some((size, _)) if parts.is_some() => format!("part size {}", part_size_text(size)),
        Some((size, count)) => format!("part size {}, {count} parts", part_size_text(size)),
        None => {
            let count = parts.map_or_else(String::new, |n| format!(" for {n} parts"));
            if tried.is_empty() {
                return format!("no usual part size fits this file{count}");
            }
            let sizes: Vec<String> = tried.iter().map(|&s| part_size_text(s)).collect();
            format!("tried part sizes {}{count}", sizes.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA256: Combine = Combine::Composite(Algorithm::Sha256);

    #[test]
    fn tags_round_trip() {
        for combine in [
            Combine::S3Etag,
            SHA256,
            Combine::Composite(Algorithm::Sha1),
            Combine::Composite(Algorithm::Crc32),
            Combine::Composite(Algorithm::Crc32c),
        ] {
            assert_eq!(from_tag(&tag(combine)), Some(combine), "{combine:?}");
        }
        assert_eq!(tag(SHA256), "SHA256-COMPOSITE");
        assert_eq!(
            tag(Combine::Composite(Algorithm::Crc32c)),
            "CRC32C-COMPOSITE"
        );
        for other in [
            "MD5-COMPOSITE",
            "CRC64NVME-COMPOSITE",
            "Etag",
            "SHA256",
            "-COMPOSITE",
        ] {
            assert_eq!(from_tag(other), None, "{other}");
        }
    }

    #[test]
    fn composite_algorithms() {
        assert_eq!(composite_refusal(Algorithm::Sha256), None);
        let crc64 = composite_refusal(Algorithm::Crc64Nvme).unwrap();
        assert!(crc64.contains("whole file's"), "{crc64}");
        assert!(composite_refusal(Algorithm::Md5).unwrap().contains("md5"));
    }

    #[test]
    fn values_round_trip() {
        let md5 = [0xabu8; 16];
        let etag = value(Combine::S3Etag, &md5, Some(3));
        assert_eq!(etag, format!("{}-3", "ab".repeat(16)));
        let label = Label {
            combine: Combine::S3Etag,
            digest: md5.to_vec(),
            parts: Some(3),
        };
        assert_eq!(parse_value(Combine::S3Etag, &etag), Ok(label.clone()));
        assert_eq!(
            parse_value(Combine::S3Etag, &format!(" \"{}\" ", etag.to_uppercase())),
            Ok(label.clone())
        );
        let plain = parse_value(Combine::S3Etag, &"ab".repeat(16)).unwrap();
        assert_eq!(plain.parts, None);

        let sha = [7u8; 32];
        let composite = value(SHA256, &sha, Some(2));
        assert_eq!(composite, "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=-2");
        assert_eq!(parse_value(SHA256, &composite).unwrap().digest, sha);
        // Without the count (GetObjectAttributes) and without the padding.
        let bare = parse_value(SHA256, "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc").unwrap();
        assert_eq!((bare.digest, bare.parts), (sha.to_vec(), None));
        // CRCs: base64 of the big-endian bytes.
        let crc = Combine::Composite(Algorithm::Crc32c);
        assert_eq!(value(crc, &[0xe3, 0x06, 0x92, 0x83], None), "4waSgw==");
    }

    #[test]
    fn bad_values() {
        let hex = "ab".repeat(16);
        for bad in [
            format!("{hex}-0"),
            format!("{hex}-10001"),
            format!("{hex}-+3"),
            format!("{hex}-"),
            format!("{hex}0-2"),
            "ab".repeat(20),
            String::new(),
            "\"".into(),
        ] {
            assert!(parse_value(Combine::S3Etag, &bad).is_err(), "{bad}");
        }
        // Padding partly written, or bits past the digest set: not what encoding gives.
        let crc = Combine::Composite(Algorithm::Crc32c);
        assert!(parse_value(crc, "4waSgw==").is_ok() && parse_value(crc, "4waSgw").is_ok());
        for bad in [
            "4waSgw=",
            "4waSgx==",
            "4waSgx",
            "4waSg",
            "4waSgw===",
            "=4waSgw=",
        ] {
            assert!(parse_value(crc, bad).is_err(), "{bad}");
        }
        let err = parse_value(SHA256, "!!!-2").unwrap_err();
        assert!(err.contains("base64 of 32 bytes"), "{err}");
        assert!(parse_value(SHA256, &format!("{hex}-2")).is_err());
    }

    #[test]
    fn part_sizes() {
        assert_eq!(parse_part_size("8MiB"), Ok(8 << 20));
        assert_eq!(parse_part_size("5M"), Ok(5 << 20));
        assert_eq!(parse_part_size("5GiB"), Ok(5 << 30));
        for (bad, why) in [
            ("0", "at least 1 byte"),
            ("eight", "not a size"),
            ("4MiB", "under S3's smallest part"),
            ("6GiB", "over S3's largest part"),
            ("8MB", "ambiguous"),
        ] {
            let err = parse_part_size(bad).unwrap_err();
            assert!(err.contains(why), "{bad}: {err}");
        }
        assert_eq!(part_size_text(8 << 20), "8 MiB");
        assert_eq!(part_size_text(5 << 30), "5 GiB");
        assert_eq!(part_size_text(6_990_507), "6990507 bytes");
        assert_eq!(
            verdict_note(Some((16 << 20, 2)), &[], Some(2)),
            "part size 16 MiB"
        );
        assert_eq!(
            verdict_note(Some((16 << 20, 2)), &[], None),
            "part size 16 MiB, 2 parts"
        );
        assert_eq!(verdict_note(Some((5 << 20, 1)), &[], Some(1)), "one part");
        assert_eq!(
            verdict_note(None, &[5 << 20, 6_990_507], Some(3)),
            "tried part sizes 5 MiB, 6990507 bytes for 3 parts"
        );
    }
}
