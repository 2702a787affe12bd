//! Checksum lines as `sum` writes them (on the CPU and the GPU alike), byte for byte as
//! coreutils' sha256sum does: `HEX  NAME`, `HEX *NAME`, or `TAG (NAME) = HEX` with `--tag`;
//! the digest in base64 or raw as `cksum --base64` and `--raw` (coreutils 9.2) write it; the
//! legacy checksums' own lines (`legacy`).

use base64::Engine;
use parhash::{Algorithm, Output, TreeParams};

use crate::escape;
use crate::tag;

/// How a checksum line is written.
#[derive(Clone, Copy, Debug, Default)]
pub struct LineStyle {
    /// BSD `TAG (NAME) = HEX` instead of GNU `HEX  NAME`.
    pub tag: bool,
    /// `HEX *NAME` (coreutils' binary-mode marker).
    pub binary: bool,
    /// NUL-terminated and unescaped.
    pub zero: bool,
    /// PARSHA-256's parameters, recorded in its tag.
    pub parsha: Option<TreeParams>,
    /// A JSON object per file instead (`--json`, see `json`).
    pub json: bool,
    /// The digest in base64 (standard alphabet, padded) instead of hex, as `cksum --base64`.
    pub base64: bool,
    /// The digest's bytes alone, no line at all, as `cksum --raw` (the legacy checksums: the
    /// checksum big-endian, without the byte count).
    pub raw: bool,
    /// No name in a legacy checksum's line (`cksum` reading standard input for want of a file
    /// operand); the other lines always name their input.
    pub unnamed: bool,
}

/// Appends one checksum line for `name`, byte for byte as coreutils writes it.
pub fn write_line(
    out: &mut Vec<u8>,
    alg: Algorithm,
    digest: &Output,
    name: &[u8],
    style: LineStyle,
) {
    if style.json {
        return crate::json::sum_line(out, alg, digest, name, style.parsha);
    }
    if style.raw {
        let bytes = if alg.is_checkable() {
            digest.as_bytes()
        } else {
            crate::legacy::checksum(digest)
        };
        return out.extend_from_slice(bytes);
    }
    if !alg.is_checkable() {
        let name = (!style.unnamed).then_some(name);
        return crate::legacy::write_line(out, alg, digest, name, style.zero);
    }
    let digest_text = if style.base64 {
        base64::engine::general_purpose::STANDARD.encode(digest.as_bytes())
    } else {
        digest.to_hex()
    };
    if style.tag {
        let tag = tag::tag(alg, style.parsha, digest.as_bytes().len());
        return write_tagged(out, &tag, &digest_text, name, style.zero);
    }
    let escaped = start_line(out, name, style.zero);
    out.extend_from_slice(digest_text.as_bytes());
    out.extend_from_slice(if style.binary { b" *" } else { b"  " });
    push_name(out, name, escaped);
    out.push(if style.zero { b'\0' } else { b'\n' });
}

/// Appends a BSD line `TAG (NAME) = VALUE`, the name escaped as [`write_line`] escapes it
/// (not with `zero`, which ends the line with NUL instead of a newline).
pub fn write_tagged(out: &mut Vec<u8>, tag: &str, value: &str, name: &[u8], zero: bool) {
    let escaped = start_line(out, name, zero);
    out.extend_from_slice(tag.as_bytes());
    out.extend_from_slice(b" (");
    push_name(out, name, escaped);
    out.extend_from_slice(b") = ");
    out.extend_from_slice(value.as_bytes());
    out.push(if zero { b'\0' } else { b'\n' });
}

/// Starts a line for `name`: the leading backslash where its name is escaped (coreutils'
/// rule); whether it is.
fn start_line(out: &mut Vec<u8>, name: &[u8], zero: bool) -> bool {
    let escaped = !zero && escape::sum_needs_escape(name);
    if escaped {
        out.push(b'\\');
    }
    escaped
}

fn push_name(out: &mut Vec<u8>, name: &[u8], escaped: bool) {
    if escaped {
        escape::escape_into(out, name);
    } else {
        out.extend_from_slice(name);
    }
}

/// Appends the output's record of a file that could not be hashed: a JSON object with
/// `--json`, nothing otherwise (the error goes to standard error either way).
pub fn write_failure(
    out: &mut Vec<u8>,
    alg: Algorithm,
    name: &[u8],
    err: &std::io::Error,
    style: LineStyle,
) {
    if style.json {
        crate::json::sum_failure(out, alg, name, err, style.parsha);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(name: &[u8], style: LineStyle) -> Vec<u8> {
        let digest = Output::from_slice(&[0xab, 0x01]);
        let mut out = Vec::new();
        write_line(&mut out, Algorithm::Md5, &digest, name, style);
        out
    }

    #[test]
    fn gnu_lines() {
        let plain = LineStyle::default();
        assert_eq!(line(b"a b", plain), b"ab01  a b\n");
        assert_eq!(line(b"n\nl", plain), b"\\ab01  n\\nl\n");
        assert_eq!(line(b"b\\s", plain), b"\\ab01  b\\\\s\n");
        assert_eq!(line(b"c\rr", plain), b"\\ab01  c\\rr\n");
        let binary = LineStyle {
            binary: true,
            ..plain
        };
        assert_eq!(line(b"a", binary), b"ab01 *a\n");
    }

    #[test]
    fn tag_lines() {
        let tag = LineStyle {
            tag: true,
            ..LineStyle::default()
        };
        assert_eq!(line(b"a", tag), b"MD5 (a) = ab01\n");
        assert_eq!(line(b"n\nl", tag), b"\\MD5 (n\\nl) = ab01\n");
    }

    #[test]
    fn base64_and_raw_digests() {
        let base64 = LineStyle {
            base64: true,
            ..LineStyle::default()
        };
        assert_eq!(line(b"a", base64), b"qwE=  a\n");
        let tag = LineStyle {
            tag: true,
            ..base64
        };
        assert_eq!(line(b"a", tag), b"MD5 (a) = qwE=\n");
        let raw = LineStyle {
            raw: true,
            ..LineStyle::default()
        };
        assert_eq!(line(b"a", raw), [0xab, 0x01]);
    }

    #[test]
    fn zero_lines_are_not_escaped() {
        let zero = LineStyle {
            zero: true,
            ..LineStyle::default()
        };
        assert_eq!(line(b"n\nl", zero), b"ab01  n\nl\0");
        let tag = LineStyle { tag: true, ..zero };
        assert_eq!(line(b"b\\s", tag), b"MD5 (b\\s) = ab01\0");
    }
}
