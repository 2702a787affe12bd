//! Which checksum of an object is checked, what a local file must give for it, and the
//! verdict: the rules `parhash store verify` and the Python package's `parhash-store` share
//! (they differ only in the client that asks the store).

use base64::Engine;
use parhash::multipart::{self, Combine, Request};
use parhash::{Algorithm, Output};

use crate::report::Verdict;

/// S3 accepts parts of 5 MiB and more (all but the last): smaller candidates are not tried.
pub const S3_MIN_PART: u64 = multipart::S3_MIN_PART;

/// The store's additional checksums (HeadObject's fields), strongest first, with parhash's
/// name for each: the first one an object has is the one checked.
pub const ADDITIONAL: [(&str, &str); 10] = [
    ("ChecksumSHA512", "sha512"),
    ("ChecksumSHA256", "sha256"),
    ("ChecksumSHA1", "sha1"),
    ("ChecksumMD5", "md5"),
    ("ChecksumXXHASH128", "xxh128"),
    ("ChecksumCRC64NVME", "crc64nvme"),
    ("ChecksumXXHASH64", "xxh64"),
    ("ChecksumXXHASH3", "xxh3"),
    ("ChecksumCRC32C", "crc32c"),
    ("ChecksumCRC32", "crc32"),
];

/// Checksums S3 keeps of the whole object only, however it was uploaded.
const FULL_OBJECT_ONLY: [&str; 6] = ["crc64nvme", "xxh64", "xxh3", "xxh128", "md5", "sha512"];

/// Checksums S3 keeps as composites of multipart uploads only.
const COMPOSITE_ONLY: [&str; 2] = ["sha1", "sha256"];

/// What the store says of one object that decides its checksum: HeadObject's answer (with
/// checksum mode), or a listing's ETag alone.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Head {
    /// The ETag as given (S3's quotes allowed).
    pub etag: String,
    /// The additional checksums present, by parhash's name ([`ADDITIONAL`]'s second column).
    pub checksums: Vec<(&'static str, String)>,
    /// `COMPOSITE` or `FULL_OBJECT`, where HeadObject (or GetObjectAttributes) says it.
    pub checksum_type: Option<String>,
    /// `AES256`, `aws:kms`, `aws:kms:dsse`...
    pub server_side_encryption: Option<String>,
    /// SSE-C's algorithm, where the object is encrypted with the customer's key.
    pub sse_customer_algorithm: Option<String>,
}

impl Head {
    /// An object known by its listed ETag only.
    pub fn from_etag(etag: &str) -> Head {
        Head {
            etag: etag.to_string(),
            ..Head::default()
        }
    }

    /// The additional checksum named `algorithm`, where present.
    pub fn checksum(&self, algorithm: &str) -> Option<&str> {
        (self.checksums.iter())
            .find(|(name, text)| *name == algorithm && !text.is_empty())
            .map(|(_, text)| text.as_str())
    }

    /// The ETag without quotes, and its part count where it has the multipart form `hex-N`.
    fn etag_parts(&self) -> (&str, Option<u64>) {
        let etag = self.etag.trim_matches('"');
        match etag.split_once('-') {
            Some((value, count)) => (value, decimal(count)),
            None => (etag, None),
        }
    }

    /// The first additional checksum that decodes: its name, raw digest, text, and what
    /// follows its first `-` (a part count where it is digits).
    fn strongest(&self) -> Option<(&'static str, Vec<u8>, &str, Option<&str>)> {
        ADDITIONAL.iter().find_map(|&(_, algorithm)| {
            let text = self.checksum(algorithm)?;
            let (encoded, count) = match text.split_once('-') {
                Some((encoded, count)) => (encoded, Some(count)),
                None => (text, None),
            };
            let digest = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()?;
            Some((algorithm, digest, text, count.filter(|c| !c.is_empty())))
        })
    }

    /// Whether [`expected`] needs the checksum type that HeadObject did not give (a multipart
    /// CRC32 or CRC32C without `-N`: other stores than S3 say it through GetObjectAttributes
    /// only). The caller asks and fills [`Head::checksum_type`]; left empty, it is read as a
    /// composite.
    pub fn needs_checksum_type(&self) -> bool {
        let (_, etag_parts) = self.etag_parts();
        match self.strongest() {
            Some((algorithm, _, _, count)) => {
                etag_parts.is_some()
                    && count.and_then(decimal).is_none()
                    && !FULL_OBJECT_ONLY.contains(&algorithm)
                    && !COMPOSITE_ONLY.contains(&algorithm)
                    && self.checksum_type.is_none()
            }
            None => false,
        }
    }
}

/// `text` as a part count: ASCII digits only.
fn decimal(text: &str) -> Option<u64> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// The checksum of one object that is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// What a verdict names it: `etag`, an algorithm, or `ALG-composite`.
    pub label: String,
    /// How it is computed: S3's ETag (MD5, of parts where `parts` is given) or an
    /// algorithm's digest (a composite of parts where `parts` is given).
    pub combine: Combine,
    /// The raw digest.
    pub digest: Vec<u8>,
    /// None for a digest of the whole object, else the part count of a multipart form.
    pub parts: Option<u64>,
    /// The value as the store shows it (with `-N` for a composite).
    pub text: String,
}

/// The strongest checksum of an object parhash can reproduce, from what the store says of it
/// ([`Head`]), or why there is none.
pub fn expected(head: &Head) -> Result<Expected, String> {
    let (value, etag_parts) = head.etag_parts();
    if let Some((algorithm, digest, text, count)) = head.strongest() {
        let combine = Combine::Composite(Algorithm::from_name(algorithm).expect("a known name"));
        let whole = || Expected {
            label: algorithm.to_string(),
            combine,
            digest: digest.clone(),
            parts: None,
            text: text.to_string(),
        };
        let Some(etag_parts) = etag_parts.filter(|_| !FULL_OBJECT_ONLY.contains(&algorithm)) else {
            return Ok(whole());
        };
        // A multipart CRC32/CRC32C is composite or full-object: real S3's HeadObject says which
        // (and adds `-N` to a composite), other stores only GetObjectAttributes.
        let composite = count.and_then(decimal).is_some()
            || COMPOSITE_ONLY.contains(&algorithm)
            || head.checksum_type.as_deref() != Some("FULL_OBJECT");
        if !composite {
            return Ok(whole());
        }
        let shown = match count {
            Some(_) => text.to_string(),
            None => format!("{text}-{etag_parts}"),
        };
        return Ok(Expected {
            label: format!("{algorithm}-composite"),
            combine,
            digest,
            parts: Some(etag_parts),
            text: shown,
        });
    }
    if head
        .sse_customer_algorithm
        .as_deref()
        .is_some_and(|a| !a.is_empty())
    {
        return Err("SSE-C: the ETag is not an MD5 of the content, and no other checksum".into());
    }
    if (head.server_side_encryption.as_deref()).is_some_and(|s| s.starts_with("aws:kms")) {
        return Err("SSE-KMS: the ETag is not an MD5 of the content, and no other checksum".into());
    }
    match hex(value) {
        Some(digest) if digest.len() == 16 => Ok(Expected {
            label: "etag".into(),
            combine: Combine::S3Etag,
            digest,
            parts: etag_parts,
            text: head.etag.trim_matches('"').to_string(),
        }),
        _ => Err(format!(
            "ETag '{}' is no MD5 form, and no other checksum",
            head.etag.trim_matches('"')
        )),
    }
}

fn hex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

/// What a file must be hashed for to be checked against an [`Expected`]: its digest whole, or
/// the multipart form for every part size that may have made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wanted {
    /// The digest of the whole file.
    Whole(Algorithm),
    /// The form in parts of each size, in increasing order.
    Parts(Vec<Request>),
}

impl Wanted {
    /// The part forms asked for (none for [`Wanted::Whole`]).
    pub fn requests(&self) -> &[Request] {
        match self {
            Wanted::Whole(_) => &[],
            Wanted::Parts(requests) => requests,
        }
    }

    /// The whole digests asked for (none for [`Wanted::Parts`]).
    pub fn whole(&self) -> &[Algorithm] {
        match self {
            Wanted::Whole(algorithm) => std::slice::from_ref(algorithm),
            Wanted::Parts(_) => &[],
        }
    }
}

/// What to compute of a file of `size` bytes for `exp`: the whole digest, or the form for
/// every part size of `min_part` or more that gives the object its part count (a one-part
/// upload: any size covers it). None where no part size does.
pub fn requests_for(exp: &Expected, size: u64, min_part: u64) -> Option<Wanted> {
    let Some(parts) = exp.parts else {
        return Some(Wanted::Whole(exp.combine.algorithm()));
    };
    let request = |part_size| Request::new(exp.combine, part_size).expect("a part size above 0");
    if parts == 1 {
        return Some(Wanted::Parts(vec![request(size.max(1))]));
    }
    let requests: Vec<Request> = (multipart::store_candidate_part_sizes(size, parts, min_part))
        .into_iter()
        .map(request)
        .collect();
    (!requests.is_empty()).then_some(Wanted::Parts(requests))
}

/// A verdict on `exp`.
pub fn checked(
    status: &'static str,
    name: &str,
    key: &str,
    exp: &Expected,
    actual: Option<String>,
    part_size: Option<u64>,
) -> Verdict {
    Verdict {
        algorithm: Some(exp.label.clone()),
        expected: Some(exp.text.clone()),
        actual,
        part_size,
        ..Verdict::bare(status, name, Some(key))
    }
}

/// The verdict where no part size gives the object's part count.
pub fn no_part_size(exp: &Expected, name: &str, key: &str, size: u64) -> Verdict {
    Verdict {
        reason: Some(format!(
            "no S3 part size gives {} parts of {size} bytes",
            exp.parts.unwrap_or(1)
        )),
        ..checked("changed", name, key, exp, None, None)
    }
}

/// What a file gave for each of `wanted`'s requests, in order: `(digest, parts)` of each part
/// form, or the whole digest with 1 part.
pub fn found<'a>(
    wanted: &Wanted,
    results: &'a (Vec<multipart::Multipart>, Vec<Output>),
) -> Vec<(&'a [u8], u64)> {
    match wanted {
        Wanted::Whole(_) => (results.1.iter()).map(|d| (d.as_bytes(), 1)).collect(),
        Wanted::Parts(_) => (results.0.iter())
            .map(|m| (m.digest.as_bytes(), m.parts))
            .collect(),
    }
}

/// Matched where any of what the file gave for `wanted` ([`found`]) is the store's checksum,
/// else changed.
pub fn verdict(
    exp: &Expected,
    name: &str,
    key: &str,
    wanted: &Wanted,
    found: &[(&[u8], u64)],
) -> Verdict {
    let shown = |digest: &[u8], parts: u64| {
        parhash_format::multipart::value(exp.combine, digest, exp.parts.map(|_| parts))
    };
    let part_sizes = wanted.requests().iter().map(|r| Some(r.part_size()));
    let mut tried = found.iter().zip(part_sizes.chain(std::iter::repeat(None)));
    if let Some((&(digest, parts), part_size)) = tried.find(|((d, _), _)| *d == exp.digest) {
        let part_size = exp.parts.and(part_size);
        return checked(
            "matched",
            name,
            key,
            exp,
            Some(shown(digest, parts)),
            part_size,
        );
    }
    let actual = found.first().map(|&(digest, parts)| shown(digest, parts));
    let mut verdict = checked("changed", name, key, exp, actual, None);
    if exp.parts.is_some_and(|p| p > 1) {
        let tried: Vec<String> = (wanted.requests().iter())
            .map(|r| r.part_size().to_string())
            .collect();
        verdict.reason = Some(format!(
            "no part size of {} bytes gives the store's checksum",
            tried.join(", ")
        ));
    }
    verdict
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A HeadObject answer of `etag` and `checksums` (the other modules' tests too).
    pub(crate) fn head(etag: &str, checksums: &[(&'static str, &str)]) -> Head {
        Head {
            etag: etag.into(),
            checksums: checksums.iter().map(|&(a, t)| (a, t.to_string())).collect(),
            ..Head::default()
        }
    }

    #[test]
    fn the_strongest_checksum_wins_and_a_bad_one_is_passed_over() {
        let h = head(
            "\"0123456789abcdef0123456789abcdef\"",
            &[("crc32", "AAAAAA=="), ("sha256", "not base64!")],
        );
        let exp = expected(&h).unwrap();
        assert_eq!(exp.label, "crc32");
        assert_eq!(exp.parts, None);
        let h = head("0123456789abcdef0123456789abcdef", &[]);
        assert_eq!(expected(&h).unwrap().label, "etag");
    }

    #[test]
    fn multipart_crcs_are_composite_unless_the_store_says_full_object() {
        let mut h = head(
            "0123456789abcdef0123456789abcdef-3",
            &[("crc32c", "AAAAAA==")],
        );
        assert!(h.needs_checksum_type());
        let exp = expected(&h).unwrap();
        assert_eq!(
            (exp.label.as_str(), exp.parts),
            ("crc32c-composite", Some(3))
        );
        assert_eq!(exp.text, "AAAAAA==-3");
        h.checksum_type = Some("FULL_OBJECT".into());
        assert!(!h.needs_checksum_type());
        assert_eq!(expected(&h).unwrap().parts, None);
        let h = head(
            "0123456789abcdef0123456789abcdef-3",
            &[("crc64nvme", "AAAAAAAAAAA=")],
        );
        assert!(!h.needs_checksum_type());
        assert_eq!(expected(&h).unwrap().parts, None);
    }

    #[test]
    fn encrypted_and_odd_etags_are_unverifiable() {
        let mut h = head("abc", &[]);
        assert!(expected(&h).unwrap_err().contains("no MD5 form"));
        h.server_side_encryption = Some("aws:kms".into());
        assert!(expected(&h).unwrap_err().starts_with("SSE-KMS"));
        h.sse_customer_algorithm = Some("AES256".into());
        assert!(expected(&h).unwrap_err().starts_with("SSE-C"));
    }

    #[test]
    fn part_sizes_below_the_minimum_are_not_tried() {
        let exp = expected(&head("0123456789abcdef0123456789abcdef-2", &[])).unwrap();
        assert_eq!(requests_for(&exp, 1 << 20, S3_MIN_PART), None);
        let wanted = requests_for(&exp, 1 << 20, 1).unwrap();
        assert!(wanted.requests().iter().all(|r| r.parts(1 << 20) == 2));
        let one = expected(&head("0123456789abcdef0123456789abcdef-1", &[])).unwrap();
        let wanted = requests_for(&one, 0, S3_MIN_PART).unwrap();
        assert_eq!(wanted.requests()[0].part_size(), 1);
    }
}
