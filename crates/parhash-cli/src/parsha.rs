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

/// Whether `alg` takes tree parameters (T, l): only PARSHA-256.
pub fn takes_tree_params(alg: Algorithm) -> bool {
    alg == Algorithm::Parsha256
}

/// The BSD tag of a checksum line: the algorithm's, or for PARSHA-256 one that records its
/// parameters (`PARSHA256-T13-IV256`).
pub fn tag(alg: Algorithm, params: Option<TreeParams>) -> String {
    match params {
        Some(params) if takes_tree_params(alg) => params.tag(),
        _ => alg.info().tag.to_string(),
    }
}

/// The algorithm a BSD tag names, with PARSHA-256's parameters when the tag records them;
/// `None` for an unknown tag or invalid parameters.
pub fn from_tag(tag: &str) -> Option<(Algorithm, Option<TreeParams>)> {
    if let Some(params) = TreeParams::from_tag(tag) {
        return Some((Algorithm::Parsha256, Some(params)));
    }
    let alg = *Algorithm::ALL.iter().find(|a| a.info().tag == tag)?;
    Some((alg, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_and_reject_bad_parameters() {
        let p = TreeParams::new(7, 128).unwrap();
        let written = tag(Algorithm::Parsha256, Some(p));
        assert_eq!(written, "PARSHA256-T7-IV128");
        assert_eq!(from_tag(&written), Some((Algorithm::Parsha256, Some(p))));
        for bad in [
            "PARSHA256-T0-IV256",
            "PARSHA256-T41-IV256",
            "PARSHA256-T13-IV64",
            "PARSHA256-T13",
            "PARSHA256-T+3-IV0",
        ] {
            assert_eq!(from_tag(bad), None, "{bad}");
        }
        assert_eq!(from_tag("SHA256"), Some((Algorithm::Sha256, None)));
        assert_eq!(tag(Algorithm::Md5, Some(p)), "MD5");
    }
}
