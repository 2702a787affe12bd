//! What `sum` takes from coreutils' `cksum` beyond sha256sum's flags: the legacy checksums
//! (`-a crc|crc32b|sysv|bsd`, which cannot be checked), `--base64`, `--raw` and `--untagged`. The
//! lines themselves are `parhash_format::line`'s; here are the combinations refused, in
//! coreutils' words.

use parhash::Algorithm;

use super::SumArgs;

/// Why `-a ALG` cannot check, if it cannot (`cksum -c -a crc`): coreutils 9.1's words, those
/// of the `cksum` the tests compare with; 9.6's, which name `crc32b` too, for `crc32b`.
pub fn refused_check(algorithm: Option<Algorithm>) -> Option<String> {
    algorithm
        .filter(|alg| !alg.is_checkable())
        .map(|alg| match alg {
            Algorithm::Crc32b => "--check is not supported with --algorithm={bsd,sysv,crc,crc32b}",
            _ => "--check is not supported with --algorithm={bsd,sysv,crc}",
        })
        .map(String::from)
}

/// Why `sum`'s cksum flags cannot go together, if they cannot.
pub fn refused(sum: &SumArgs) -> Option<String> {
    if sum.check {
        if let Some(message) = refused_check(sum.algorithm()) {
            return Some(message);
        }
    }
    if sum.base64 && sum.raw {
        return Some("--base64 and --raw are mutually exclusive".into());
    }
    if sum.raw && sum.files.len() > 1 {
        return Some("the --raw option is not supported with multiple files".into());
    }
    (sum.raw && sum.algorithms().len() > 1).then(|| "--raw takes one algorithm".into())
}
