//! `--json`: JSON Lines on standard output for `sum` and `check`, one object per line.
//! The fields are documented in docs/lists.md ("JSON records") and kept stable: new fields
//! may be added, none is renamed or removed.
//!
//! - A file name is `"path"`, the name as UTF-8; a name that is not valid UTF-8 has its bytes
//!   replaced by U+FFFD there and also comes exactly as `"path_bytes"`, base64 (standard
//!   alphabet, padded), as ripgrep's `--json` does. A list's name is `"list"` (`"list_bytes"`).
//! - Digests are lowercase hex.
//! - A failure is `"error"` (the message coreutils would print after the name) and `"errno"`
//!   (the OS error number, or null when the error did not come from the OS).
//! - Standard error is the same as without `--json`: messages for people, not parsed.

use std::io;

use base64::Engine;
use parhash::multipart::Combine;
use parhash::{Algorithm, Output, TreeParams};
use serde::Serialize;

use crate::error_text;

mod algorithms;
pub use algorithms::algorithms;

/// A name as UTF-8 (lossy), with its exact bytes when that loses anything.
fn text_and_bytes(name: &[u8]) -> (String, Option<String>) {
    match std::str::from_utf8(name) {
        Ok(text) => (text.to_string(), None),
        Err(_) => (
            String::from_utf8_lossy(name).into_owned(),
            Some(base64::engine::general_purpose::STANDARD.encode(name)),
        ),
    }
}

/// A name as a record gives it: `KEY`, the name as UTF-8 (lossy), and `KEY_bytes`, its exact
/// bytes in base64, where the text loses anything (`path`, `list`, an audit's `from`).
/// Written into its record (`#[serde(flatten)]`).
#[derive(Clone, Debug)]
struct Name {
    keys: [&'static str; 2],
    text: String,
    bytes: Option<String>,
}

impl Name {
    fn new(keys: [&'static str; 2], name: &[u8]) -> Name {
        let (text, bytes) = text_and_bytes(name);
        Name { keys, text, bytes }
    }

    fn path(name: &[u8]) -> Name {
        Name::new(["path", "path_bytes"], name)
    }

    fn list(name: &[u8]) -> Name {
        Name::new(["list", "list_bytes"], name)
    }

    /// A moved file's old name.
    fn moved_from(name: &[u8]) -> Name {
        Name::new(["from", "from_bytes"], name)
    }
}

impl Serialize for Name {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry(self.keys[0], &self.text)?;
        if let Some(bytes) = &self.bytes {
            map.serialize_entry(self.keys[1], bytes)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct Failure {
    error: String,
    errno: Option<i32>,
}

impl Failure {
    fn new(err: &io::Error) -> Failure {
        Failure {
            error: error_text(err),
            errno: err.raw_os_error(),
        }
    }

    /// A failure that is no OS error (`no properly formatted checksum lines found`).
    fn message(text: &str) -> Failure {
        Failure {
            error: text.to_string(),
            errno: None,
        }
    }
}

/// PARSHA-256's parameters, which its digest depends on.
#[derive(Serialize)]
struct Tree {
    tree_height: u32,
    iv_bits: u32,
}

impl Tree {
    fn of(algorithm: Algorithm, params: Option<TreeParams>) -> Option<Tree> {
        let params = params.filter(|_| algorithm.takes_tree_params())?;
        Some(Tree {
            tree_height: params.tree_height(),
            iv_bits: params.iv_bits(),
        })
    }
}

/// Appends `value` as one line.
fn push_line(out: &mut Vec<u8>, value: &impl Serialize) {
    serde_json::to_writer(&mut *out, value).expect("these records always serialize");
    out.push(b'\n');
}

/// `sum`: one object per file.
#[derive(Serialize)]
struct SumRecord<'a> {
    #[serde(flatten)]
    path: Name,
    algorithm: &'a str,
    #[serde(flatten)]
    tree: Option<Tree>,
    #[serde(skip_serializing_if = "Option::is_none")]
    digest: Option<String>,
    #[serde(flatten)]
    pieces: Option<PieceDigests>,
    #[serde(flatten)]
    failure: Option<Failure>,
}

/// `sum --json --pieces`: `"piece_size"` and `"pieces"`, each piece's XXH3-128 digest in hex,
/// in order from the file's start (none for an empty file).
#[derive(Serialize)]
struct PieceDigests {
    piece_size: u64,
    pieces: Vec<String>,
}

/// Appends `sum`'s record of a hashed file: `{"path", "algorithm", "digest"}` (and PARSHA-256's
/// `"tree_height"`, `"iv_bits"`).
pub fn sum_line(
    out: &mut Vec<u8>,
    algorithm: Algorithm,
    digest: &Output,
    name: &[u8],
    parsha: Option<TreeParams>,
) {
    one_digest(out, algorithm, digest, name, parsha, None);
}

/// [`sum_line`]'s record, with the file's pieces where it has them ([`sum_pieces`]).
fn one_digest(
    out: &mut Vec<u8>,
    algorithm: Algorithm,
    digest: &Output,
    name: &[u8],
    parsha: Option<TreeParams>,
    pieces: Option<PieceDigests>,
) {
    push_line(
        out,
        &SumRecord {
            path: Name::path(name),
            algorithm: algorithm.name(),
            tree: Tree::of(algorithm, parsha),
            digest: Some(digest.to_hex()),
            pieces,
            failure: None,
        },
    );
}

/// Appends `sum`'s record of a file that could not be hashed: `{"path", "algorithm", "error",
/// "errno"}`.
pub fn sum_failure(
    out: &mut Vec<u8>,
    algorithm: Algorithm,
    name: &[u8],
    err: &io::Error,
    parsha: Option<TreeParams>,
) {
    push_line(
        out,
        &SumRecord {
            path: Name::path(name),
            algorithm: algorithm.name(),
            tree: Tree::of(algorithm, parsha),
            digest: None,
            pieces: None,
            failure: Some(Failure::new(err)),
        },
    );
}

/// `sum` with several algorithms: one object per file, every digest in it.
#[derive(Serialize)]
struct DigestsRecord<'a> {
    #[serde(flatten)]
    path: Name,
    algorithms: Vec<&'static str>,
    #[serde(flatten)]
    tree: Option<Tree>,
    #[serde(skip_serializing_if = "Option::is_none")]
    digests: Option<Digests<'a>>,
    #[serde(flatten)]
    pieces: Option<PieceDigests>,
    #[serde(flatten)]
    failure: Option<Failure>,
}

/// `{"ALG": "HEX", ...}` in the order of the algorithms.
struct Digests<'a>(&'a [Algorithm], &'a [Output]);

impl Serialize for Digests<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (algorithm, digest) in self.0.iter().zip(self.1) {
            map.serialize_entry(algorithm.name(), &digest.to_hex())?;
        }
        map.end()
    }
}

/// Appends `sum`'s record of a file hashed with several algorithms: `{"path", "algorithms",
/// "digests": {"md5": ..., "sha256": ...}}`, or for a file that could not be hashed, once for
/// all of them, `{"path", "algorithms", "error", "errno"}` (and PARSHA-256's `"tree_height"`,
/// `"iv_bits"`).
pub fn sum_digests(
    out: &mut Vec<u8>,
    algorithms: &[Algorithm],
    outcome: Result<&[Output], &io::Error>,
    name: &[u8],
    parsha: Option<TreeParams>,
) {
    several_digests(out, algorithms, outcome, name, parsha, None);
}

/// [`sum_digests`]' record, with the file's pieces where it has them ([`sum_pieces`]).
fn several_digests(
    out: &mut Vec<u8>,
    algorithms: &[Algorithm],
    outcome: Result<&[Output], &io::Error>,
    name: &[u8],
    parsha: Option<TreeParams>,
    pieces: Option<PieceDigests>,
) {
    let (digests, failure) = match outcome {
        Ok(digests) => (Some(Digests(algorithms, digests)), None),
        Err(err) => (None, Some(Failure::new(err))),
    };
    push_line(
        out,
        &DigestsRecord {
            path: Name::path(name),
            algorithms: algorithms.iter().map(|a| a.name()).collect(),
            tree: algorithms.iter().find_map(|&alg| Tree::of(alg, parsha)),
            digests,
            pieces,
            failure,
        },
    );
}

/// `sum --json --pieces`'s record of a hashed file: [`sum_line`]'s (one algorithm) or
/// [`sum_digests`]' (several), with `"piece_size"` and `"pieces"`, the hex digests of the
/// file's pieces of that size (XXH3-128, as in a piece list: [`crate::pieces`]).
pub fn sum_pieces(
    out: &mut Vec<u8>,
    algorithms: &[Algorithm],
    digests: &[Output],
    name: &[u8],
    parsha: Option<TreeParams>,
    (piece_size, pieces): (u64, &[Output]),
) {
    let pieces = Some(PieceDigests {
        piece_size,
        pieces: pieces.iter().map(Output::to_hex).collect(),
    });
    match (algorithms, digests) {
        ([algorithm], [digest]) => one_digest(out, *algorithm, digest, name, parsha, pieces),
        _ => several_digests(out, algorithms, Ok(digests), name, parsha, pieces),
    }
}

/// `sum --etag` / `--composite`: one object per file, form and part size.
#[derive(Serialize)]
struct MultipartRecord {
    #[serde(flatten)]
    path: Name,
    form: &'static str,
    algorithm: &'static str,
    part_size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parts: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<String>,
    #[serde(flatten)]
    failure: Option<Failure>,
}

impl MultipartRecord {
    fn new(name: &[u8], combine: Combine, part_size: Option<u64>) -> MultipartRecord {
        MultipartRecord {
            path: Name::path(name),
            form: match combine {
                Combine::S3Etag => "etag",
                Combine::Composite(_) => "composite",
            },
            algorithm: combine.algorithm().name(),
            part_size,
            parts: None,
            value: None,
            failure: None,
        }
    }
}

/// Appends `sum --etag`/`--composite`'s record of a computed value: `{"path", "form" ("etag"
/// or "composite"), "algorithm", "part_size", "parts", "value"}`, the value as the store
/// shows it (`crate::multipart::value`). An ETag of an object uploaded in one piece (no part
/// size: the file's MD5) has `"part_size": null` and no `"parts"`.
pub fn multipart_line(
    out: &mut Vec<u8>,
    name: &[u8],
    combine: Combine,
    part_size: Option<u64>,
    parts: Option<u64>,
    digest: &[u8],
) {
    let mut record = MultipartRecord::new(name, combine, part_size);
    record.parts = parts;
    record.value = Some(crate::multipart::value(combine, digest, parts));
    push_line(out, &record);
}

/// Appends `sum --etag`/`--composite`'s record of a value that could not be computed: the
/// file unreadable, or too many parts of this size for S3 (`"errno": null`).
pub fn multipart_failure(
    out: &mut Vec<u8>,
    name: &[u8],
    combine: Combine,
    part_size: Option<u64>,
    why: Result<&io::Error, &str>,
) {
    let mut record = MultipartRecord::new(name, combine, part_size);
    record.failure = Some(match why {
        Ok(err) => Failure::new(err),
        Err(text) => Failure::message(text),
    });
    push_line(out, &record);
}

/// `check`: one object per checksum line (`"type": "line"`).
#[derive(Serialize)]
struct CheckRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    list: &'a Name,
    line: u64,
    status: &'static str,
    #[serde(flatten)]
    path: Option<Name>,
    #[serde(skip_serializing_if = "Option::is_none")]
    algorithm: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    algorithm_from: Option<&'static str>,
    #[serde(flatten)]
    tree: Option<Tree>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expected: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    actual: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    located: Option<LocatedRecord>,
    #[serde(flatten)]
    failure: Option<Failure>,
}

/// `check --locate --json`: where a file that fails differs (`"located"` of its line).
#[derive(Serialize)]
struct LocatedRecord {
    piece_size: u64,
    size: u64,
    listed_size: u64,
    pieces_changed: u64,
    bytes_changed: u64,
    ranges: Vec<ByteRange>,
}

/// A range of bytes that differ: its first byte and length.
#[derive(Serialize)]
struct ByteRange {
    offset: u64,
    length: u64,
}

impl LocatedRecord {
    fn new(located: &crate::pieces::Located) -> LocatedRecord {
        LocatedRecord {
            piece_size: located.piece_size,
            size: located.size,
            listed_size: located.listed_size,
            pieces_changed: located.count,
            bytes_changed: located.bytes(),
            ranges: (located.byte_ranges())
                .map(|(first, last)| ByteRange {
                    offset: first,
                    length: last + 1 - first,
                })
                .collect(),
        }
    }
}

/// Where a checked line's algorithm came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlgorithmFrom {
    /// `-a`.
    Option,
    /// The BSD line's tag.
    Tag,
    /// The length of a GNU line's digest.
    Length,
}

impl AlgorithmFrom {
    fn name(self) -> &'static str {
        match self {
            AlgorithmFrom::Option => "option",
            AlgorithmFrom::Tag => "tag",
            AlgorithmFrom::Length => "length",
        }
    }
}

/// One checked line, for [`CheckReport::line`].
pub struct Checked<'a> {
    /// The file's name, as the list gives it.
    pub name: &'a [u8],
    /// The algorithm it was checked with.
    pub algorithm: Algorithm,
    /// Where that algorithm came from.
    pub algorithm_from: AlgorithmFrom,
    /// PARSHA-256's parameters it was hashed with (recorded for parsha256 only).
    pub parsha: Option<TreeParams>,
    /// The digest the list expects.
    pub expected: &'a [u8],
    /// The digest computed, or why the file could not be hashed.
    pub outcome: &'a io::Result<Output>,
    /// Where the file differs (`check --locate`), if that is known.
    pub located: Option<&'a crate::pieces::Located>,
}

/// Counts of one list for its summary.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// Lines whose digest matched.
    pub ok: u64,
    /// Lines whose digest did not match.
    pub failed: u64,
    /// Listed files that do not exist.
    pub missing: u64,
    /// Listed files that exist but could not be read.
    pub unreadable: u64,
    /// Improperly formatted lines.
    pub improper: u64,
}

/// `check`'s summary of one list (`"type": "summary"`).
#[derive(Serialize)]
struct SummaryRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    list: &'a Name,
    ok: u64,
    failed: u64,
    missing: u64,
    unreadable: u64,
    improper: u64,
    passed: bool,
    #[serde(flatten)]
    failure: Option<Failure>,
}

/// The JSON records of one checksum list.
#[derive(Clone, Debug)]
pub struct CheckReport {
    list: Name,
}

impl CheckReport {
    /// For the list named `list` (`-` for standard input).
    pub fn new(list: &[u8]) -> CheckReport {
        CheckReport {
            list: Name::list(list),
        }
    }

    /// A line that is neither a GNU nor a BSD checksum line: `"status": "improper"`.
    pub fn improper(&self, line: u64) -> Vec<u8> {
        let mut out = Vec::new();
        push_line(
            &mut out,
            &CheckRecord {
                kind: "line",
                list: &self.list,
                line,
                status: "improper",
                path: None,
                algorithm: None,
                algorithm_from: None,
                tree: None,
                expected: None,
                actual: None,
                located: None,
                failure: None,
            },
        );
        out
    }

    /// A checked line: `"status"` is `ok`, `failed` (the digests differ), `missing` (no such
    /// file) or `unreadable` (it could not be read otherwise).
    pub fn line(&self, line: u64, checked: Checked<'_>) -> Vec<u8> {
        let (status, actual, failure) = match checked.outcome {
            Ok(digest) if digest.as_bytes() == checked.expected => {
                ("ok", Some(digest.to_hex()), None)
            }
            Ok(digest) => ("failed", Some(digest.to_hex()), None),
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                ("missing", None, Some(Failure::new(err)))
            }
            Err(err) => ("unreadable", None, Some(Failure::new(err))),
        };
        let mut out = Vec::new();
        push_line(
            &mut out,
            &CheckRecord {
                kind: "line",
                list: &self.list,
                line,
                status,
                path: Some(Name::path(checked.name)),
                algorithm: Some(checked.algorithm.name()),
                algorithm_from: Some(checked.algorithm_from.name()),
                tree: Tree::of(checked.algorithm, checked.parsha),
                expected: Some(Output::from_slice(checked.expected).to_hex()),
                actual,
                located: checked.located.map(LocatedRecord::new),
                failure,
            },
        );
        out
    }

    /// The list's summary: the counts, whether it passed, and (`"error"`, `"errno"`) why the
    /// list itself failed, if it did (it could not be read, it had no checksum line, ...).
    pub fn summary(&self, counts: Counts, passed: bool, problem: Option<Problem<'_>>) -> Vec<u8> {
        let mut out = Vec::new();
        push_line(
            &mut out,
            &SummaryRecord {
                kind: "summary",
                list: &self.list,
                ok: counts.ok,
                failed: counts.failed,
                missing: counts.missing,
                unreadable: counts.unreadable,
                improper: counts.improper,
                passed,
                failure: problem.map(|problem| match problem {
                    Problem::Io(err) => Failure::new(err),
                    Problem::Message(text) => Failure::message(text),
                }),
            },
        );
        out
    }
}

/// Why a whole list failed.
pub enum Problem<'a> {
    /// It could not be opened or read.
    Io(&'a io::Error),
    /// Something else, in words (`no properly formatted checksum lines found`).
    Message(&'a str),
}

/// `check --audit`: one object per file.
#[derive(Serialize)]
struct AuditRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    list: &'a Name,
    status: &'static str,
    #[serde(flatten)]
    path: Name,
    #[serde(flatten)]
    from: Option<Name>,
    algorithm: &'static str,
    expected: Option<String>,
    actual: Option<String>,
    #[serde(flatten)]
    failure: Option<Failure>,
    group: Option<u64>,
    copies: u64,
}

/// The names sharing one digest, listed once for every record that names the group.
#[derive(Serialize)]
struct AuditGroup<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    list: &'a Name,
    group: u64,
    algorithm: &'static str,
    digest: String,
    names: Vec<AuditName>,
}

/// A name in an audit group.
#[derive(Serialize)]
struct AuditName {
    #[serde(flatten)]
    path: Name,
    listed: bool,
    on_disk: Option<bool>,
}

/// `check --audit`'s summary.
#[derive(Serialize)]
struct AuditSummary<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    list: &'a Name,
    matched: u64,
    changed: u64,
    missing: u64,
    missing_with_copy: u64,
    new: u64,
    moved: u64,
    unreadable: u64,
    duplicates: u64,
    passed: bool,
}

/// The JSON records of one list's audit (`check --audit --json`).
#[derive(Clone, Debug)]
pub struct AuditReport {
    list: Name,
    algorithm: Algorithm,
}

impl AuditReport {
    /// For the list named `list`, whose digests are `algorithm`'s.
    pub fn new(list: &[u8], algorithm: Algorithm) -> AuditReport {
        AuditReport {
            list: Name::list(list),
            algorithm,
        }
    }

    /// One file's verdict: `{"type": "audit", "list", "status", "path", "from" (moved),
    /// "algorithm", "expected", "actual", "error" and "errno" (unreadable), "group", "copies"}`:
    /// `copies` is how many other names hold its digest (not counting a moved file's `from`),
    /// `group` the number of the [`AuditReport::group`] record that lists them (null when
    /// none). A list of each record's copies would make the report grow with the square of
    /// the names sharing a digest.
    pub fn verdict(&self, out: &mut Vec<u8>, verdict: &crate::audit::Verdict) {
        let hex =
            |digest: &Option<Vec<u8>>| digest.as_deref().map(|d| Output::from_slice(d).to_hex());
        push_line(
            out,
            &AuditRecord {
                kind: "audit",
                list: &self.list,
                status: verdict.status.name(),
                path: Name::path(&verdict.name),
                from: verdict.from.as_deref().map(Name::moved_from),
                algorithm: self.algorithm.name(),
                expected: hex(&verdict.expected),
                actual: hex(&verdict.actual),
                failure: verdict.error.as_ref().map(Failure::new),
                group: verdict.copies.as_ref().map(|c| c.group),
                copies: verdict.copies.as_ref().map_or(0, |c| c.count),
            },
        );
    }

    /// The names holding one digest, after the verdicts that name it: `{"type":
    /// "audit_group", "list", "group", "algorithm", "digest", "names": [{"path", "listed",
    /// "on_disk"}]}`, every name once in byte order. A verdict's copies are its group's names
    /// less its own `path` and its `from` (names compared without a leading `./`); `listed`:
    /// the list names it, `on_disk`: it is on disk with this digest (null: outside an audited
    /// subset, not looked at).
    pub fn group(&self, out: &mut Vec<u8>, group: &crate::audit::Group) {
        push_line(
            out,
            &AuditGroup {
                kind: "audit_group",
                list: &self.list,
                group: group.id,
                algorithm: self.algorithm.name(),
                digest: Output::from_slice(&group.digest).to_hex(),
                names: (group.names.iter())
                    .map(|name| AuditName {
                        path: Name::path(&name.name),
                        listed: name.listed,
                        on_disk: name.on_disk,
                    })
                    .collect(),
            },
        );
    }

    /// The counts: `{"type": "audit_summary", "list", "matched", ..., "passed"}`.
    pub fn summary(&self, out: &mut Vec<u8>, tally: &crate::audit::Tally) {
        push_line(
            out,
            &AuditSummary {
                kind: "audit_summary",
                list: &self.list,
                matched: tally.matched,
                changed: tally.changed,
                missing: tally.missing,
                missing_with_copy: tally.missing_with_copy,
                new: tally.new,
                moved: tally.moved,
                unreadable: tally.unreadable,
                duplicates: tally.duplicates,
                passed: tally.passed(),
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// One record: a JSON value on exactly one line.
    pub(super) fn parse(line: &[u8]) -> Value {
        assert_eq!(line.last(), Some(&b'\n'));
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        serde_json::from_slice(line).unwrap()
    }

    #[test]
    fn names_that_are_not_utf8_come_as_base64_too() {
        assert_eq!(text_and_bytes(b"a b"), ("a b".to_string(), None));
        let (text, bytes) = text_and_bytes(b"a\xffb");
        assert_eq!(text, "a\u{fffd}b");
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(bytes.unwrap())
            .unwrap();
        assert_eq!(decoded, b"a\xffb");
    }

    #[test]
    fn sum_records() {
        let md5 = Algorithm::Md5;
        let digest = Output::from_slice(&[0xab, 0x01]);
        let mut out = Vec::new();
        sum_line(&mut out, md5, &digest, b"n\nl", None);
        assert_eq!(
            parse(&out),
            json!({"path": "n\nl", "algorithm": "md5", "digest": "ab01"})
        );
        out.clear();
        let err = io::Error::from_raw_os_error(libc::ENOENT);
        sum_failure(&mut out, md5, b"\xff", &err, None);
        assert_eq!(
            parse(&out),
            json!({"path": "\u{fffd}", "path_bytes": "/w==", "algorithm": "md5",
                   "error": "No such file or directory", "errno": libc::ENOENT})
        );
        out.clear();
        let params = TreeParams::new(16, 0).unwrap();
        sum_line(&mut out, Algorithm::Parsha256, &digest, b"f", Some(params));
        assert_eq!(
            parse(&out),
            json!({"path": "f", "algorithm": "parsha256", "tree_height": 16, "iv_bits": 0,
                   "digest": "ab01"})
        );
    }

    #[test]
    fn multipart_records() {
        let mut out = Vec::new();
        let crc = Combine::Composite(Algorithm::Crc32c);
        multipart_line(
            &mut out,
            b"f",
            crc,
            Some(8 << 20),
            Some(2),
            &[0xe3, 6, 0x92, 0x83],
        );
        assert_eq!(
            parse(&out),
            json!({"path": "f", "form": "composite", "algorithm": "crc32c",
                   "part_size": 8 << 20, "parts": 2, "value": "4waSgw==-2"})
        );
        out.clear();
        multipart_line(&mut out, b"f", Combine::S3Etag, None, None, &[0xab; 16]);
        assert_eq!(
            parse(&out),
            json!({"path": "f", "form": "etag", "algorithm": "md5", "part_size": null,
                   "value": "ab".repeat(16)})
        );
        out.clear();
        multipart_failure(
            &mut out,
            b"f",
            Combine::S3Etag,
            Some(5 << 20),
            Err("too many"),
        );
        assert_eq!(
            parse(&out),
            json!({"path": "f", "form": "etag", "algorithm": "md5", "part_size": 5 << 20,
                   "error": "too many", "errno": null})
        );
    }

    #[test]
    fn check_records() {
        let report = CheckReport::new(b"SUMS");
        assert_eq!(
            parse(&report.improper(3)),
            json!({"type": "line", "list": "SUMS", "line": 3, "status": "improper"})
        );
        let digest = Output::from_slice(&[0xab, 0x01]);
        let checked = |outcome| Checked {
            name: b"f",
            algorithm: Algorithm::Md5,
            algorithm_from: AlgorithmFrom::Length,
            parsha: None,
            expected: &[0xab, 0x01],
            outcome,
            located: None,
        };
        let ok = Ok(digest);
        assert_eq!(
            parse(&report.line(1, checked(&ok))),
            json!({"type": "line", "list": "SUMS", "line": 1, "status": "ok", "path": "f",
                   "algorithm": "md5", "algorithm_from": "length", "expected": "ab01",
                   "actual": "ab01"})
        );
        let bad = Ok(Output::from_slice(&[0, 0]));
        assert_eq!(parse(&report.line(2, checked(&bad)))["status"], "failed");
        let missing = Err(io::Error::from_raw_os_error(libc::ENOENT));
        let record = parse(&report.line(2, checked(&missing)));
        assert_eq!(
            (&record["status"], &record["errno"]),
            (&json!("missing"), &json!(libc::ENOENT))
        );
        let denied = Err(io::Error::from_raw_os_error(libc::EACCES));
        let record = parse(&report.line(2, checked(&denied)));
        assert_eq!(
            (&record["status"], &record["error"]),
            (&json!("unreadable"), &json!("Permission denied"))
        );
        let counts = Counts {
            ok: 1,
            failed: 2,
            missing: 3,
            unreadable: 4,
            improper: 5,
        };
        assert_eq!(
            parse(&report.summary(counts, false, None)),
            json!({"type": "summary", "list": "SUMS", "ok": 1, "failed": 2, "missing": 3,
                   "unreadable": 4, "improper": 5, "passed": false})
        );
        let none = parse(&report.summary(
            Counts::default(),
            false,
            Some(Problem::Message(
                "no properly formatted checksum lines found",
            )),
        ));
        assert_eq!(none["error"], "no properly formatted checksum lines found");
        assert_eq!(none["errno"], Value::Null);
    }

    #[test]
    fn audit_records() {
        use crate::audit::Auditor;
        let mut auditor = Auditor::new(2);
        auditor.listed(b"gone\xff", &[1, 2], true).unwrap();
        auditor.listed(b"kept", &[3, 4], true).unwrap();
        auditor.listed(b"kept2", &[3, 4], true).unwrap();
        auditor.found(b"kept", Ok(&[3, 4])).unwrap();
        auditor.found(b"kept2", Ok(&[3, 4])).unwrap();
        auditor.found(b"here", Ok(&[1, 2])).unwrap();
        let (verdicts, tally, groups) = auditor.finish(|_| false).collect();
        let names: Vec<&[u8]> = verdicts.iter().map(|v| &v.name[..]).collect();
        assert_eq!(names, [&b"kept"[..], b"kept2", b"here"]);
        let report = AuditReport::new(b"LIST", Algorithm::Md5);
        let mut out = Vec::new();
        report.verdict(&mut out, &verdicts[2]);
        let record = parse(&out);
        assert_eq!(record["type"], "audit");
        assert_eq!(record["status"], "moved");
        assert_eq!(record["path"], "here");
        assert_eq!(record["from"], "gone\u{fffd}");
        assert_eq!(record["from_bytes"], "Z29uZf8=");
        assert_eq!(
            (&record["expected"], &record["actual"]),
            (&json!("0102"), &json!("0102"))
        );
        assert_eq!(
            (&record["group"], &record["copies"]),
            (&json!(null), &json!(0))
        );
        out.clear();
        report.verdict(&mut out, &verdicts[0]);
        let record = parse(&out);
        assert_eq!(
            (&record["group"], &record["copies"]),
            (&json!(0), &json!(1))
        );
        out.clear();
        report.group(&mut out, &groups[0]);
        let group = parse(&out);
        assert_eq!(
            (&group["type"], &group["digest"]),
            (&json!("audit_group"), &json!("0304"))
        );
        let names: Vec<&Value> = group["names"].as_array().unwrap().iter().collect();
        assert_eq!(names.len(), 2);
        assert_eq!(
            (&names[1]["path"], &names[1]["listed"], &names[1]["on_disk"]),
            (&json!("kept2"), &json!(true), &json!(true))
        );
        out.clear();
        report.summary(&mut out, &tally);
        let summary = parse(&out);
        assert_eq!(
            (&summary["matched"], &summary["moved"]),
            (&json!(2), &json!(1))
        );
        assert_eq!(summary["passed"], false);
    }
}
