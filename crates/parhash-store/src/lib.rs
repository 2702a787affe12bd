//! parhash and object stores: a local tree verified against a bucket and prefix from the
//! checksums the store already holds (S3's ETags, additional and composite checksums), without
//! downloading an object.
//!
//! - [`rules`]: which checksum of an object is checked, what a file must be hashed for, and the
//!   verdict (shared with the Python package's `parhash-store`).
//! - [`keys`]: the files of a tree in the order S3 lists keys.
//! - [`report`]: verdicts as lines and JSON records, and a run's counts.
//! - [`difference`]: where a changed object's bytes and its file differ, for
//!   `--download-mismatches`.
//! - [`catalog`]: the store's checksums as a checksum list (lines `parhash check` reads, or
//!   records), and (feature `s3`) every object's, asked of the store.
//! - `s3` and `verify` (feature `s3`): the store's side through the AWS SDK for Rust, and the
//!   verification that merges the listing with the walk (`parhash store verify`).
//!
//! The guide is docs/object-stores.md.

pub mod catalog;
pub mod difference;
pub mod keys;
pub mod report;
pub mod rules;
#[cfg(feature = "s3")]
pub mod s3;
#[cfg(feature = "s3")]
pub mod verify;

/// `(bucket, prefix)` of `s3://bucket/prefix`; the prefix, when given, names a folder (it ends
/// in `/`).
///
/// # Errors
/// The message, where `url` is no such URL.
pub fn parse_url(url: &str) -> Result<(String, String), String> {
    let Some(rest) = url.strip_prefix("s3://") else {
        return Err(format!("{url}: not an s3://bucket/prefix URL"));
    };
    let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
    if bucket.is_empty() {
        return Err(format!("{url}: no bucket named"));
    }
    let mut prefix = prefix.to_string();
    if !prefix.is_empty() && !prefix.ends_with('/') {
        prefix.push('/');
    }
    Ok((bucket.to_string(), prefix))
}

#[cfg(test)]
mod tests {
    #[test]
    fn urls_name_a_bucket_and_a_folder() {
        assert_eq!(
            super::parse_url("s3://b/p").unwrap(),
            ("b".into(), "p/".into())
        );
        assert_eq!(
            super::parse_url("s3://b").unwrap(),
            ("b".into(), String::new())
        );
        assert!(super::parse_url("s3:///p").is_err());
        assert!(super::parse_url("http://b/p").is_err());
    }
}
