//! The lines of coreutils' legacy checksums (`parhash::Algorithm::is_checkable` is false for
//! them), byte for byte as `cksum -a crc|crc32b|sysv|bsd`, `cksum` and `sum -s`/`sum -r` print
//! them:
//!
//! - `crc`: `CRC BYTES NAME`, both in decimal (`930766865 9 f`); `crc32b` (coreutils 9.6) the
//!   same with zlib's CRC-32 (`3421780262 9 f`);
//! - `sysv`: `SUM BLOCKS NAME`, 512-byte blocks rounded up (`477 1 f`);
//! - `bsd`: `SUM BLOCKS NAME`, the sum zero-padded to 5 digits and 1024-byte blocks right-aligned
//!   in 5 columns (`53615     1 f`).
//!
//! The name comes after one space, unescaped, and only when files were named (standard input
//! read for want of operands prints none, `-` named prints `-`); `-z` ends the line with NUL.
//! `--tag`, `--untagged`, `-b` and `--base64` change nothing, as in coreutils; `--raw` writes
//! the checksum alone, big-endian ([`checksum`]).

use parhash::{Algorithm, Output, LEGACY_LENGTH_BYTES as LENGTH_BYTES};

/// The checksum part of a legacy digest (what `cksum --raw` writes): the digest without the
/// byte count that follows it.
pub fn checksum(digest: &Output) -> &[u8] {
    let bytes = digest.as_bytes();
    &bytes[..bytes.len().saturating_sub(LENGTH_BYTES)]
}

/// The byte count at the end of a legacy digest.
fn byte_count(digest: &Output) -> u64 {
    let bytes = digest.as_bytes();
    let tail = &bytes[bytes.len().saturating_sub(LENGTH_BYTES)..];
    tail.iter().fold(0, |n, &b| n << 8 | u64::from(b))
}

/// Appends `alg`'s line for `digest`: with ` NAME` when `name` is given, ending in NUL when
/// `zero`.
pub fn write_line(
    out: &mut Vec<u8>,
    alg: Algorithm,
    digest: &Output,
    name: Option<&[u8]>,
    zero: bool,
) {
    let sum = checksum(digest)
        .iter()
        .fold(0u64, |n, &b| n << 8 | u64::from(b));
    let len = byte_count(digest);
    let text = match alg {
        Algorithm::SysvSum => format!("{sum} {}", len.div_ceil(512)),
        Algorithm::BsdSum => format!("{sum:05} {:>5}", len.div_ceil(1024)),
        _ => format!("{sum} {len}"),
    };
    out.extend_from_slice(text.as_bytes());
    if let Some(name) = name {
        out.push(b' ');
        out.extend_from_slice(name);
    }
    out.push(if zero { b'\0' } else { b'\n' });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(alg: Algorithm, data: &[u8], name: Option<&[u8]>) -> String {
        let mut out = Vec::new();
        write_line(&mut out, alg, &parhash::hash(alg, data), name, false);
        String::from_utf8(out).unwrap()
    }

    /// coreutils 9.1's output for `123456789` and for nothing.
    #[test]
    fn lines_as_coreutils_prints_them() {
        let check = b"123456789";
        assert_eq!(line(Algorithm::Cksum, check, None), "930766865 9\n");
        assert_eq!(line(Algorithm::Cksum, b"", Some(b"f")), "4294967295 0 f\n");
        // crc32b, coreutils 9.6's form: CRC-32/ISO-HDLC's check value 0xCBF43926.
        assert_eq!(
            line(Algorithm::Crc32b, check, Some(b"f")),
            "3421780262 9 f\n"
        );
        assert_eq!(line(Algorithm::Crc32b, b"", None), "0 0\n");
        assert_eq!(line(Algorithm::SysvSum, check, Some(b"f")), "477 1 f\n");
        assert_eq!(line(Algorithm::SysvSum, b"", None), "0 0\n");
        assert_eq!(line(Algorithm::BsdSum, check, None), "53615     1\n");
        assert_eq!(line(Algorithm::BsdSum, b"", Some(b"f")), "00000     0 f\n");
        let digest = parhash::hash(Algorithm::Cksum, check);
        assert_eq!(checksum(&digest), 930766865u32.to_be_bytes());
        let mut zero = Vec::new();
        write_line(&mut zero, Algorithm::Cksum, &digest, Some(b"a\nb"), true);
        assert_eq!(zero, b"930766865 9 a\nb\0");
    }
}
