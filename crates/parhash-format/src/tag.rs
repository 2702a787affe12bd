//! What is PARSHA-256's own in the CLI; everything else goes through `Hasher::builder` like any
//! other algorithm (see `input`).
//!
//! - Its digest depends on the tree height T and the IV length l as well as the data, so they
//!   travel with it: `--tree-height`, `--iv-bits` and the `PARSHA256-T<T>-IV<l>` tag
//!   ([`parhash::TreeParams`] checks them and writes and reads the tag).
//! - It must know the message length before it starts. The library's file engine
//!   (`parhash::file`) tells it a regular file's size (a file that changes size while it is
//!   read is an error, not a wrong digest); standard input, and files that report no size
//!   (`/proc`, `/sys`), are measured first: spooled to memory, at most
//!   `parhash::file::SPOOL_LIMIT` bytes; larger input is refused with a message.

use parhash::{Algorithm, TreeParams};

/// The BSD tag of a checksum line for a digest of `digest_size` bytes: the algorithm's (with
/// the length where it is not the default, `BLAKE2b-256`), or for PARSHA-256 one that records its
/// parameters (`PARSHA256-T13-IV256`).
pub fn tag(alg: Algorithm, params: Option<TreeParams>, digest_size: usize) -> String {
    match params {
        Some(params) if alg.takes_tree_params() => params.tag(),
        _ => alg.tag_for_size(digest_size).into_owned(),
    }
}

/// The file name distributions give a list of `alg`'s checksums: MD5SUMS, SHA1SUMS,
/// SHA256SUMS, SHA512SUMS, B2SUMS (BLAKE2b, as b2sum's lists are named), B3SUMS (BLAKE3), and
/// for the others the BSD tag followed by SUMS (SHA3-256SUMS).
pub fn list_name(alg: Algorithm) -> String {
    match alg {
        Algorithm::Blake2b => "B2SUMS".into(),
        Algorithm::Blake3 => "B3SUMS".into(),
        _ => format!(
            "{}SUMS",
            alg.tag_for_size(alg.digest_size()).to_ascii_uppercase()
        ),
    }
}

/// What a BSD tag names: the algorithm, PARSHA-256's parameters when the tag records them, and
/// the digest size in bytes (`BLAKE2b-256`: 32; a plain tag: the default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tagged {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// PARSHA-256's parameters, where the tag records them.
    pub params: Option<TreeParams>,
    /// The digest size in bytes.
    pub digest_size: usize,
}

/// What a BSD tag names; `None` for an unknown tag, invalid parameters or an impossible length.
pub fn from_tag(tag: &str) -> Option<Tagged> {
    if let Some(params) = TreeParams::from_tag(tag) {
        let algorithm = Algorithm::Parsha256;
        return Some(Tagged {
            algorithm,
            params: Some(params),
            digest_size: algorithm.digest_size(),
        });
    }
    let (algorithm, digest_size) = Algorithm::from_tag(tag)?;
    Some(Tagged {
        algorithm,
        params: None,
        digest_size,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_named_as_distributions_name_them() {
        let names = [
            (Algorithm::Md5, "MD5SUMS"),
            (Algorithm::Sha1, "SHA1SUMS"),
            (Algorithm::Sha256, "SHA256SUMS"),
            (Algorithm::Sha512, "SHA512SUMS"),
            (Algorithm::Blake2b, "B2SUMS"),
            (Algorithm::Blake3, "B3SUMS"),
            (Algorithm::Sha3_256, "SHA3-256SUMS"),
        ];
        for (alg, name) in names {
            assert_eq!(list_name(alg), name);
        }
    }

    #[test]
    fn tags_round_trip_and_reject_bad_parameters() {
        let p = TreeParams::new(7, 128).unwrap();
        let written = tag(Algorithm::Parsha256, Some(p), 32);
        assert_eq!(written, "PARSHA256-T7-IV128");
        let parsha = |params| Tagged {
            algorithm: Algorithm::Parsha256,
            params,
            digest_size: 32,
        };
        assert_eq!(from_tag(&written), Some(parsha(Some(p))));
        for bad in [
            "PARSHA256-T0-IV256",
            "PARSHA256-T41-IV256",
            "PARSHA256-T13-IV64",
            "PARSHA256-T13",
            "PARSHA256-T+3-IV0",
            "BLAKE2b-520",
            "SHA256-128",
        ] {
            assert_eq!(from_tag(bad), None, "{bad}");
        }
        let plain = |algorithm, digest_size| Tagged {
            algorithm,
            params: None,
            digest_size,
        };
        assert_eq!(from_tag("SHA256"), Some(plain(Algorithm::Sha256, 32)));
        assert_eq!(tag(Algorithm::Md5, Some(p), 16), "MD5");
        // Variable-length algorithms name their length where it is not the default.
        assert_eq!(tag(Algorithm::Blake2b, None, 32), "BLAKE2b-256");
        assert_eq!(from_tag("BLAKE2b-256"), Some(plain(Algorithm::Blake2b, 32)));
        assert_eq!(from_tag("BLAKE2b"), Some(plain(Algorithm::Blake2b, 64)));
    }
}
