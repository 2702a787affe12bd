//! The records of a checksum list, read as GNU coreutils' sha256sum (9.1) and b2sum read them,
//! so lists written by either tool check with the other:
//!
//! - Records end with `\n` (NUL with `-z`); a trailing `\r` is dropped; lines starting with `#`
//!   and empty lines are skipped.
//! - GNU line: optional blanks, optional `\` (the name is escaped: `\\`, `\n`, `\r`), hex
//!   digest, one blank, then ` ` or `*` (the mode marker) and the name. A list whose first
//!   line has no marker (`HEX NAME`, BSD `md5 -r`'s "reversed" form) must keep that form
//!   throughout, and the other way round.
//! - BSD line: optional blanks, optional `\`, `TAG`, optional space, `(NAME)`, blanks, `=`,
//!   blanks, hex digest. The name ends at the last `)`.
//! - Hex digits may be upper or lower case. A BSD line's digest may be base64 instead (as
//!   `cksum --base64` writes it, coreutils 9.2), told from hex by its length, and only in its
//!   canonical form (padded, no stray bits), as `cksum -c` compares it.
//! - Lines of the legacy checksums (`CRC`, `SYSV`, `BSD` tags) are improper: `cksum -c` does
//!   not check them either.
//! - A file name ends at its first NUL byte, as C strings do in coreutils (an escaped name with
//!   a NUL makes the line improper).
//! - The name may be empty only where b2sum allows it: a digest of an algorithm whose length
//!   varies (`-a blake2b`), one blank and nothing else (`6b `). That line is in the reversed
//!   form. sha256sum and md5sum want at least one byte of name.

use parhash::{Algorithm, Family, TreeParams};

use crate::digest_text;
use crate::escape;
use crate::tag;

/// One parsed checksum line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The algorithm to check it with.
    pub algorithm: Algorithm,
    /// The digest the list expects.
    pub expected: Vec<u8>,
    /// The file name, unescaped.
    pub name: Vec<u8>,
    /// PARSHA-256's parameters, from a `PARSHA256-T<T>-IV<l>` tag.
    pub parsha: Option<TreeParams>,
    /// The algorithm was inferred from the digest's length (a GNU line without -a), so a
    /// mismatch may mean the list was made with another algorithm of that length.
    pub inferred: bool,
    /// An object store's multipart checksum (`ETAG` and `*-COMPOSITE` lines, read by parsers
    /// that ask for them, [`Parser::with_multipart`]): `expected` is its raw digest.
    pub multipart: Option<crate::multipart::Label>,
}

/// What one record of a checksum list is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A comment or an empty line.
    Skip,
    /// Neither a GNU nor a BSD checksum line.
    Improper,
    /// A checksum line.
    Entry(Entry),
}

/// Parses the records of one checksum list. Stateful because a list must not mix `HEX  NAME`
/// with the marker-less `HEX NAME` form (coreutils' guard against names with leading blanks).
#[derive(Clone, Debug)]
pub struct Parser {
    forced: Option<Algorithm>,
    zero: bool,
    /// `Some(true)` once a marker-less line was seen, `Some(false)` once a marked one was.
    without_marker: Option<bool>,
    /// Whether `ETAG` and `*-COMPOSITE` lines are entries (else improper).
    multipart: bool,
}

impl Parser {
    /// A parser for one list; `forced` is `-a`, `zero` is `-z` (NUL records, names verbatim).
    pub fn new(forced: Option<Algorithm>, zero: bool) -> Parser {
        Parser {
            forced,
            zero,
            without_marker: None,
            multipart: false,
        }
    }

    /// This parser, reading object stores' multipart checksum lines as entries where `yes`
    /// (a caller that checks them; for others they stay improperly formatted).
    pub fn with_multipart(self, yes: bool) -> Parser {
        Parser {
            multipart: yes,
            ..self
        }
    }

    /// Parses one record, with or without its terminator.
    pub fn parse(&mut self, record: &[u8]) -> Line {
        if record.first() == Some(&b'#') {
            return Line::Skip;
        }
        let terminator = if self.zero { b'\0' } else { b'\n' };
        let mut line = record.strip_suffix(&[terminator]).unwrap_or(record);
        if !self.zero {
            line = line.strip_suffix(b"\r").unwrap_or(line);
        }
        if line.is_empty() {
            return Line::Skip;
        }
        let start = line.iter().take_while(|&&b| is_blank(b)).count();
        let mut rest = &line[start..];
        let escaped = !self.zero && rest.first() == Some(&b'\\');
        if escaped {
            rest = &rest[1..];
        }
        if let Some(line) = self.parse_bsd(rest, escaped) {
            return line;
        }
        self.parse_gnu(rest, escaped)
    }

    /// `TAG (NAME) = HEX`, or `None` when the line does not start with a known tag and `(`.
    fn parse_bsd(&self, line: &[u8], escaped: bool) -> Option<Line> {
        let word_len = line.iter().position(|&b| b == b' ' || b == b'(')?;
        let tag = std::str::from_utf8(&line[..word_len]).ok()?;
        let multipart = self
            .multipart
            .then(|| crate::multipart::from_tag(tag))
            .flatten();
        let tag::Tagged {
            algorithm,
            params: parsha,
            digest_size,
        } = match multipart {
            Some(combine) => tag::Tagged {
                algorithm: combine.algorithm(),
                params: None,
                digest_size: combine.algorithm().digest_size(),
            },
            None => tag::from_tag(tag)?,
        };
        if !algorithm.is_checkable() {
            return Some(Line::Improper);
        }
        let mut after = &line[word_len..];
        after = after.strip_prefix(b" ").unwrap_or(after);
        let inside = after.strip_prefix(b"(")?;
        if self.forced.is_some_and(|forced| forced != algorithm) {
            return Some(Line::Improper);
        }
        let Some(close) = inside.iter().rposition(|&b| b == b')') else {
            return Some(Line::Improper);
        };
        let raw_name = &inside[..close];
        let tail = skip_blanks(&inside[close + 1..]);
        let Some(tail) = tail.strip_prefix(b"=") else {
            return Some(Line::Improper);
        };
        let hex = skip_blanks(tail);
        if let Some(combine) = multipart {
            return Some(self.multipart_entry(combine, hex, raw_name, escaped));
        }
        Some(
            match self.entry(algorithm, digest_size, hex, raw_name, escaped) {
                Line::Entry(entry) => Line::Entry(Entry { parsha, ..entry }),
                other => other,
            },
        )
    }

    /// `HEX  NAME`, `HEX *NAME` or (in a list that uses it throughout) `HEX NAME`.
    fn parse_gnu(&mut self, line: &[u8], escaped: bool) -> Line {
        let hex_len = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
        let algorithm = match self.forced {
            // Any length the algorithm can produce (BLAKE2, BLAKE3 and SHAKE have many), as
            // `b2sum -c` reads the length from the digest.
            Some(forced) if hex_len % 2 == 0 && forced.digest_sizes().contains(hex_len / 2) => {
                forced
            }
            Some(_) => return Line::Improper,
            None if hex_len % 2 == 0 => match infer_from_digest_size(hex_len / 2) {
                Some(alg) => alg,
                None => return Line::Improper,
            },
            None => return Line::Improper,
        };
        // A blank after the digest, then the name: at least one byte, except after the digest
        // of an algorithm whose length varies, where b2sum takes an empty name (`6b `).
        let shortest_name = usize::from(!algorithm.digest_sizes().is_variable());
        if line.len() < hex_len + 1 + shortest_name || !is_blank(line[hex_len]) {
            return Line::Improper;
        }
        let mut name_start = hex_len + 1;
        let marker = line.get(name_start).copied();
        if line.len() - name_start <= 1 || !matches!(marker, Some(b' ' | b'*')) {
            if self.without_marker == Some(false) {
                return Line::Improper;
            }
            self.without_marker = Some(true);
        } else if self.without_marker != Some(true) {
            self.without_marker = Some(false);
            name_start += 1;
        }
        let size = hex_len / 2;
        match self.entry(
            algorithm,
            size,
            &line[..hex_len],
            &line[name_start..],
            escaped,
        ) {
            Line::Entry(entry) => Line::Entry(Entry {
                inferred: self.forced.is_none(),
                ..entry
            }),
            other => other,
        }
    }

    fn entry(
        &self,
        algorithm: Algorithm,
        size: usize,
        hex: &[u8],
        raw_name: &[u8],
        escaped: bool,
    ) -> Line {
        let Some(expected) = digest_text::decode_digest(hex, size) else {
            return Line::Improper;
        };
        let Some(name) = name(raw_name, escaped) else {
            return Line::Improper;
        };
        Line::Entry(Entry {
            algorithm,
            expected,
            name,
            parsha: None,
            inferred: false,
            multipart: None,
        })
    }

    /// The entry of a multipart checksum line (`ETAG (NAME) = HEX-N`).
    fn multipart_entry(
        &self,
        combine: parhash::multipart::Combine,
        value: &[u8],
        raw_name: &[u8],
        escaped: bool,
    ) -> Line {
        let label = std::str::from_utf8(value)
            .ok()
            .and_then(|value| crate::multipart::parse_value(combine, value).ok());
        match (label, name(raw_name, escaped)) {
            (Some(label), Some(name)) => Line::Entry(Entry {
                algorithm: combine.algorithm(),
                expected: label.digest.clone(),
                name,
                parsha: None,
                inferred: false,
                multipart: Some(label),
            }),
            _ => Line::Improper,
        }
    }
}

/// A line's file name: unescaped (`None` if it cannot be, or holds a NUL), or up to its first
/// NUL.
fn name(raw_name: &[u8], escaped: bool) -> Option<Vec<u8>> {
    if escaped {
        escape::unescape(raw_name).filter(|name| !name.contains(&0))
    } else {
        let up_to_nul = raw_name.split(|&b| b == 0).next().unwrap_or_default();
        Some(up_to_nul.to_vec())
    }
}

/// The algorithm of a GNU line with a digest of `size` bytes: the SHA-2 one where several
/// share the size (`sha256` for 32 bytes, before `sha3-256` or `keccak256`), else the first in
/// the registry's order (`md5` before `xxh128`, `xxh64` before `xxh3` and `crc64nvme`: `xxhsum
/// -c`'s default, `crc32` before `crc32c`).
pub fn infer_from_digest_size(size: usize) -> Option<Algorithm> {
    let plain_sha2 = format!("sha{}", size * 8);
    let candidates: Vec<Algorithm> = Algorithm::with_digest_size(size).collect();
    candidates
        .iter()
        .find(|a| a.name() == plain_sha2)
        .or_else(|| candidates.iter().find(|a| a.info().family == Family::Sha2))
        .or_else(|| candidates.first())
        .copied()
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn skip_blanks(bytes: &[u8]) -> &[u8] {
    let n = bytes.iter().take_while(|&&b| is_blank(b)).count();
    &bytes[n..]
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD5_ABC: &str = "900150983cd24fb0d6963f7d28e17f72";

    fn entry(name: &[u8]) -> Line {
        Line::Entry(Entry {
            algorithm: Algorithm::Md5,
            expected: crate::digest_text::decode_hex(MD5_ABC.as_bytes()).unwrap(),
            name: name.to_vec(),
            parsha: None,
            inferred: true,
            multipart: None,
        })
    }

    /// A BSD line's entry, or one of a list checked with -a: the algorithm was not inferred.
    fn tagged(name: &[u8]) -> Line {
        match entry(name) {
            Line::Entry(e) => Line::Entry(Entry {
                inferred: false,
                ..e
            }),
            other => other,
        }
    }

    fn parse(line: &str) -> Line {
        Parser::new(None, false).parse(line.as_bytes())
    }

    /// Checks that `parser`, in the state its earlier lines left it, reads `line` as `want`.
    #[track_caller]
    fn parses(parser: &mut Parser, line: String, want: Line) {
        assert_eq!(parser.parse(line.as_bytes()), want, "{line:?}");
    }

    #[test]
    fn gnu_lines() {
        assert_eq!(parse(&format!("{MD5_ABC}  a b\n")), entry(b"a b"));
        assert_eq!(parse(&format!("{MD5_ABC} *a")), entry(b"a"));
        assert_eq!(parse(&format!("{MD5_ABC}\t a")), entry(b"a"));
        assert_eq!(parse(&format!("  {MD5_ABC}  a\r\n")), entry(b"a"));
        assert_eq!(
            parse(&format!("{}  a", MD5_ABC.to_uppercase())),
            entry(b"a")
        );
        assert_eq!(parse(&format!("{MD5_ABC}  a ")), entry(b"a "));
        assert_eq!(parse(&format!("{MD5_ABC}   a")), entry(b" a"));
    }

    #[test]
    fn escaped_names() {
        assert_eq!(
            parse(&format!("\\{MD5_ABC}  n\\nl\\\\b\\rc")),
            entry(b"n\nl\\b\rc")
        );
        assert_eq!(parse(&format!("\\{MD5_ABC}  bad\\x")), Line::Improper);
        assert_eq!(
            parse(&format!("{MD5_ABC}  not\\nescaped")),
            entry(b"not\\nescaped")
        );
        assert_eq!(
            parse(&format!("\\MD5 (n\\nl) = {MD5_ABC}")),
            tagged(b"n\nl")
        );
    }

    #[test]
    fn bsd_lines() {
        assert_eq!(parse(&format!("MD5 (a b) = {MD5_ABC}")), tagged(b"a b"));
        assert_eq!(parse(&format!("MD5(a)={MD5_ABC}")), tagged(b"a"));
        assert_eq!(parse(&format!("MD5 (a)  =  {MD5_ABC}")), tagged(b"a"));
        assert_eq!(
            parse(&format!("MD5 (x) (y)) = {MD5_ABC}")),
            tagged(b"x) (y)")
        );
        assert_eq!(parse(&format!("md5 (a) = {MD5_ABC}")), Line::Improper);
        assert_eq!(parse(&format!("MD5 (a) = {MD5_ABC}0")), Line::Improper);
        assert_eq!(parse(&format!("MD5 (a) {MD5_ABC}")), Line::Improper);
        assert_eq!(parse("NOSUCH (a) = 00"), Line::Improper);
    }

    #[test]
    fn multipart_lines_for_parsers_that_ask() {
        use parhash::multipart::Combine;
        let etag = format!("ETAG (a b) = \"{MD5_ABC}-3\"");
        assert_eq!(parse(&etag), Line::Improper);
        let mut parser = Parser::new(None, false).with_multipart(true);
        let Line::Entry(entry) = parser.parse(etag.as_bytes()) else {
            panic!("{etag}")
        };
        let label = entry.multipart.unwrap();
        assert_eq!(
            (entry.algorithm, &entry.name[..]),
            (Algorithm::Md5, &b"a b"[..])
        );
        assert_eq!((label.combine, label.parts), (Combine::S3Etag, Some(3)));
        assert_eq!(entry.expected, label.digest);
        let composite =
            "\\SHA256-COMPOSITE (n\\nl) = BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=-2";
        let Line::Entry(entry) = parser.parse(composite.as_bytes()) else {
            panic!("{composite}")
        };
        assert_eq!(entry.name, b"n\nl");
        assert_eq!(entry.expected, [7; 32]);
        // Ordinary lines are read as ever; a bad value or a forced other algorithm is improper.
        parses(&mut parser, format!("MD5 (a) = {MD5_ABC}"), tagged(b"a"));
        assert_eq!(parser.parse(b"ETAG (a) = zz-3"), Line::Improper);
        let mut sha1 = Parser::new(Some(Algorithm::Sha1), false).with_multipart(true);
        assert_eq!(sha1.parse(etag.as_bytes()), Line::Improper);
    }

    #[test]
    fn base64_digests_in_bsd_lines() {
        // base64 of MD5("abc"), as `cksum --base64 -a md5` writes it.
        let b64 = "kAFQmDzST7DWlj99KOF/cg==";
        assert_eq!(parse(&format!("MD5 (a) = {b64}")), tagged(b"a"));
        // Only the canonical form, of exactly the digest's length.
        assert_eq!(parse("MD5 (a) = kAFQmDzST7DWlj99KOF/cg="), Line::Improper);
        assert_eq!(parse("MD5 (a) = kAFQmDzST7DWlj99KOF/ch=="), Line::Improper);
        assert_eq!(
            parse("MD5 (a) = kAFQmDzST7DWlj99KOF/cg==AA"),
            Line::Improper
        );
        // The legacy checksums' tags are not checked.
        assert_eq!(parse("CRC (a) = 00000000"), Line::Improper);
        assert_eq!(parse("BSD (a) = 0000"), Line::Improper);
    }

    #[test]
    fn skipped_and_improper_lines() {
        assert_eq!(parse("# comment\n"), Line::Skip);
        assert_eq!(parse("\n"), Line::Skip);
        assert_eq!(parse("\r\n"), Line::Skip);
        assert_eq!(parse("garbage\n"), Line::Improper);
        assert_eq!(parse(MD5_ABC), Line::Improper);
        assert_eq!(parse(&format!("{MD5_ABC} ")), Line::Improper);
        assert_eq!(parse(&format!("{MD5_ABC}0  a")), Line::Improper);
        assert_eq!(parse(&format!("{MD5_ABC}x  a")), Line::Improper);
        assert_eq!(parse("abc  a"), Line::Improper);
    }

    #[test]
    fn marker_less_lines_must_not_mix() {
        let mut parser = Parser::new(None, false);
        parses(&mut parser, format!("{MD5_ABC} a"), entry(b"a"));
        parses(&mut parser, format!("{MD5_ABC}  b"), entry(b" b"));
        let mut parser = Parser::new(None, false);
        parses(&mut parser, format!("{MD5_ABC}  b"), entry(b"b"));
        parses(&mut parser, format!("{MD5_ABC} a"), Line::Improper);
    }

    #[test]
    fn forced_algorithm() {
        let mut parser = Parser::new(Some(Algorithm::Md5), false);
        parses(&mut parser, format!("{MD5_ABC}  a"), tagged(b"a"));
        parses(&mut parser, format!("MD5 (a) = {MD5_ABC}"), tagged(b"a"));
        parses(&mut parser, format!("{MD5_ABC}00  a"), Line::Improper);
    }

    #[test]
    fn zero_records_are_verbatim() {
        let mut parser = Parser::new(None, true);
        parses(
            &mut parser,
            format!("{MD5_ABC}  n\nl\\\0"),
            entry(b"n\nl\\"),
        );
        parses(&mut parser, format!("{MD5_ABC}  c\r\0"), entry(b"c\r"));
    }

    #[test]
    fn inference_prefers_sha2() {
        assert_eq!(infer_from_digest_size(16), Some(Algorithm::Md5));
        assert_eq!(infer_from_digest_size(3), None);
        for (size, name) in [
            (20, "sha1"),
            (28, "sha224"),
            (32, "sha256"),
            (48, "sha384"),
            (64, "sha512"),
        ] {
            if let Ok(alg) = Algorithm::from_name(name) {
                assert_eq!(infer_from_digest_size(size), Some(alg));
            }
        }
    }

    /// Untagged lines of the checksums' lengths: 8 hex digits are crc32's, 16 xxh64's, as
    /// `xxhsum -c` (whose default is XXH64) reads them; 32 stay md5's, not xxh128's.
    #[test]
    fn inference_of_checksum_lengths() {
        assert_eq!(infer_from_digest_size(4), Some(Algorithm::Crc32));
        assert_eq!(infer_from_digest_size(8), Some(Algorithm::Xxh64));
        assert_eq!(infer_from_digest_size(16), Some(Algorithm::Md5));
    }
}
