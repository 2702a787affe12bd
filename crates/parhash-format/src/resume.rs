//! Reading back a list that `sum -r ... -o FILE` wrote, to resume it (`--resume`) or bring it
//! up to date (`--update`, which builds on this module).
//!
//! - [`Records`]: the records of a list with their byte offsets; the last one may be torn (no
//!   terminator: the run was killed or the machine lost power mid-write).
//! - [`own_entry`]: a record as `sum` with one algorithm and style writes it, recognised by
//!   writing its name and digest again and getting the same bytes. So a list from another
//!   style, algorithm or tool is never mistaken for this command's.
//! - [`Prefix`]: the complete records of a list compared, in order, with the names of a new
//!   walk: how many bytes of the list to keep (the rest, a torn last line included, is cut and
//!   written again), or why the list is not this command line's.
//!
//! Memory: one record at a time; resuming a list of 10^7 entries holds one line, never the
//! names (the walk and the list are compared in step, both in walk order).

use std::fmt;
use std::io::{self, BufRead};
use std::iter::Peekable;

use base64::Engine as _;
use parhash::{Algorithm, Output};

use crate::line::{write_line, LineStyle};
use crate::parse::{Line, Parser};
use crate::record::{read_record, Read};

/// One record of a list as read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// Its bytes, with the terminator when it has one; none when it is longer than
    /// [`MAX_RECORD_BYTES`](crate::record::MAX_RECORD_BYTES) (read past, not kept: no entry of this command's is that long).
    pub bytes: Vec<u8>,
    /// Offset of its first byte in the list.
    pub start: u64,
    /// Its length in the list (more than `bytes` holds when it was too long to keep).
    pub len: u64,
    /// It ends with the terminator (a record without one is torn).
    pub complete: bool,
}

impl Record {
    /// Offset just after it.
    pub fn end(&self) -> u64 {
        self.start + self.len
    }
}

/// The records of a list ended by `terminator` (`\n`, or NUL for `-z`), read one at a time
/// ([`read_record`]: one longer than [`MAX_RECORD_BYTES`](crate::record::MAX_RECORD_BYTES) comes without its bytes).
pub struct Records<R> {
    reader: R,
    terminator: u8,
    offset: u64,
}

impl<R: BufRead> Records<R> {
    /// The records of `reader`, from its start.
    pub fn new(reader: R, terminator: u8) -> Records<R> {
        Records {
            reader,
            terminator,
            offset: 0,
        }
    }
}

impl<R: BufRead> Iterator for Records<R> {
    type Item = io::Result<Record>;

    fn next(&mut self) -> Option<io::Result<Record>> {
        let mut bytes = Vec::new();
        let (len, complete) = match read_record(&mut self.reader, self.terminator, &mut bytes) {
            Ok(Read::End) => return None,
            Ok(Read::Kept { len, complete } | Read::TooLong { len, complete }) => (len, complete),
            Err(err) => return Some(Err(err)),
        };
        let record = Record {
            bytes,
            start: self.offset,
            len,
            complete,
        };
        self.offset += len;
        Some(Ok(record))
    }
}

/// A record `sum` wrote for a hashed file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnEntry {
    /// The file's name, unescaped.
    pub name: Vec<u8>,
    /// Its digest.
    pub digest: Output,
}

/// `record` (with its terminator) read as `sum -a algorithm` in `style` writes a hashed file:
/// `None` unless writing the same name and digest again gives exactly these bytes (another
/// style or algorithm, a `--json` error record, a torn or foreign line).
pub fn own_entry(record: &[u8], algorithm: Algorithm, style: LineStyle) -> Option<OwnEntry> {
    let (name, digest) = if style.json {
        json_entry(record)?
    } else {
        match Parser::new(Some(algorithm), style.zero).parse(record) {
            Line::Entry(entry) => (entry.name, entry.expected),
            Line::Skip | Line::Improper => return None,
        }
    };
    let digest = Output::from_slice(&digest);
    let mut again = Vec::with_capacity(record.len());
    write_line(&mut again, algorithm, &digest, &name, style);
    (again == record).then_some(OwnEntry { name, digest })
}

/// Name and digest of a `--json` record of a hashed file.
fn json_entry(record: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    let value: serde_json::Value = serde_json::from_slice(record).ok()?;
    let name = match value.get("path_bytes") {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded.as_str()?)
            .ok()?,
        None => value.get("path")?.as_str()?.as_bytes().to_vec(),
    };
    let digest = hex_bytes(value.get("digest")?.as_str()?)?;
    Some((name, digest))
}

/// `--json`'s record of a file that could not be hashed (`"error"`).
pub(crate) fn is_json_failure(record: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(record)
        .is_ok_and(|value| value.get("error").is_some())
}

/// Lowercase or uppercase hex digits as bytes.
fn hex_bytes(hex: &str) -> Option<Vec<u8>> {
    if hex.len() % 2 != 0 {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Why a list cannot be resumed by this command line.
#[derive(Debug)]
pub enum ResumeError {
    /// Reading the list failed.
    Io(io::Error),
    /// Line `line` (counted from 1) is not a line this command writes (another algorithm,
    /// style or tool).
    Foreign {
        /// Its number.
        line: u64,
    },
    /// Line `line` names `found` where the walk has `expected`.
    Mismatch {
        /// Its number.
        line: u64,
        /// The walk's name.
        expected: Vec<u8>,
        /// The list's name.
        found: Vec<u8>,
    },
    /// The walk ended before the list did: line `line` names a file the walk no longer has.
    Leftover {
        /// Its number.
        line: u64,
        /// The list's name.
        found: Vec<u8>,
    },
}

impl From<io::Error> for ResumeError {
    fn from(err: io::Error) -> ResumeError {
        ResumeError::Io(err)
    }
}

impl fmt::Display for ResumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quote = |name: &[u8]| crate::escape::quote(name);
        match self {
            ResumeError::Io(err) => f.write_str(&crate::error_text(err)),
            ResumeError::Foreign { line } => write!(
                f,
                "line {line} is not a line of this algorithm and output style; \
                 not a list this command line writes"
            ),
            ResumeError::Mismatch {
                line,
                expected,
                found,
            } => write!(
                f,
                "line {line} names {} where this command line's walk has {}; \
                 not a list this command line writes, or the tree changed (use --update)",
                quote(found),
                quote(expected)
            ),
            ResumeError::Leftover { line, found } => write!(
                f,
                "line {line} names {}, which this command line's walk no longer has \
                 (use --update)",
                quote(found)
            ),
        }
    }
}

impl std::error::Error for ResumeError {}

/// What became of one name of the walk while resuming.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The list has its line already: don't hash it again.
    Kept,
    /// The list has no line for it but has lines after it: the earlier run could not read it,
    /// nor can this one (the caller reports it again, as a normal run would).
    Gap,
    /// The kept part of the list ends before it: hash it and every name after it.
    Resume,
}

/// A resumed list compared with the walk, one name at a time, in walk order.
pub struct Prefix<R: BufRead> {
    records: Peekable<Records<R>>,
    algorithm: Algorithm,
    style: LineStyle,
    /// The next complete entry, read but not yet matched.
    pending: Option<(u64, OwnEntry)>,
    kept_end: u64,
    kept: u64,
    line: u64,
    resumed: bool,
    /// Line number of the incomplete or unreadable last line that will be written again.
    torn: Option<u64>,
}

impl<R: BufRead> Prefix<R> {
    /// The list in `reader`, as `sum -a algorithm` writes it in `style`.
    pub fn new(reader: R, algorithm: Algorithm, style: LineStyle) -> Prefix<R> {
        let terminator = if style.zero { b'\0' } else { b'\n' };
        Prefix {
            records: Records::new(reader, terminator).peekable(),
            algorithm,
            style,
            pending: None,
            kept_end: 0,
            kept: 0,
            line: 0,
            resumed: false,
            torn: None,
        }
    }

    /// The list's next entry, or `None` where the kept part ends: at the end, at a torn or
    /// unreadable last line, or (`--json`) at an error record, which is written again like
    /// everything after it, so the file is read once more.
    fn next_entry(&mut self) -> Result<Option<(u64, OwnEntry)>, ResumeError> {
        if let Some(pending) = self.pending.take() {
            return Ok(Some(pending));
        }
        let Some(record) = self.records.next().transpose()? else {
            return Ok(None);
        };
        self.line += 1;
        let last = self.records.peek().is_none();
        if !record.complete {
            self.torn = Some(self.line);
            return Ok(None);
        }
        match own_entry(&record.bytes, self.algorithm, self.style) {
            Some(entry) => Ok(Some((record.end(), entry))),
            None if self.style.json && is_json_failure(&record.bytes) => Ok(None),
            None if last => {
                self.torn = Some(self.line);
                Ok(None)
            }
            None => Err(ResumeError::Foreign { line: self.line }),
        }
    }

    /// Compares the walk's next name with the list. `fails_now` says whether the file cannot
    /// be read now (asked only when the list has another name there: a file the earlier run
    /// could not read has no line, and is skipped if it still cannot be read).
    pub fn step(
        &mut self,
        walk_name: &[u8],
        fails_now: impl FnOnce() -> bool,
    ) -> Result<Step, ResumeError> {
        if self.resumed {
            return Ok(Step::Resume);
        }
        let Some((end, entry)) = self.next_entry()? else {
            self.resumed = true;
            return Ok(Step::Resume);
        };
        if entry.name == walk_name {
            self.kept_end = end;
            self.kept += 1;
            return Ok(Step::Kept);
        }
        // --json writes a record for a file it cannot read: there are no gaps in its lists.
        if !self.style.json && fails_now() {
            self.pending = Some((end, entry));
            return Ok(Step::Gap);
        }
        Err(ResumeError::Mismatch {
            line: self.line,
            expected: walk_name.to_vec(),
            found: entry.name,
        })
    }

    /// After the walk's last name: the offset where the list is cut and continued. An error
    /// if the list names files after those of the walk.
    pub fn finish(mut self) -> Result<u64, ResumeError> {
        if !self.resumed {
            if let Some((_, entry)) = self.next_entry()? {
                return Err(ResumeError::Leftover {
                    line: self.line,
                    found: entry.name,
                });
            }
        }
        Ok(self.kept_end)
    }

    /// Where the kept part of the list ends so far.
    pub fn kept_end(&self) -> u64 {
        self.kept_end
    }

    /// How many lines are kept so far.
    pub fn kept(&self) -> u64 {
        self.kept
    }

    /// The number of a torn or unreadable last line, which is cut and written again.
    pub fn torn_line(&self) -> Option<u64> {
        self.torn
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD5: Algorithm = Algorithm::Md5;

    fn list(names: &[&[u8]], style: LineStyle) -> Vec<u8> {
        let mut out = Vec::new();
        for name in names {
            let digest = parhash::hash(MD5, name);
            write_line(&mut out, MD5, &digest, name, style);
        }
        out
    }

    fn styles() -> Vec<LineStyle> {
        let plain = LineStyle::default();
        vec![
            plain,
            LineStyle { tag: true, ..plain },
            LineStyle {
                zero: true,
                ..plain
            },
            LineStyle {
                binary: true,
                ..plain
            },
            LineStyle {
                json: true,
                ..plain
            },
        ]
    }

    #[test]
    fn own_entries_of_every_style_round_trip() {
        let names: [&[u8]; 3] = [b"a", b"new\nline", b"\xff\xfe bad utf-8"];
        for style in styles() {
            let text = list(&names, style);
            let terminator = if style.zero { 0 } else { b'\n' };
            let records: Vec<Record> = Records::new(&text[..], terminator)
                .map(Result::unwrap)
                .collect();
            assert_eq!(records.len(), 3, "{style:?}");
            for (record, name) in records.iter().zip(names) {
                let entry = own_entry(&record.bytes, MD5, style).expect("own line");
                assert_eq!(entry.name, name);
                assert_eq!(entry.digest, parhash::hash(MD5, name));
            }
            // Another style or algorithm is not this command's line.
            let other = LineStyle {
                tag: !style.tag,
                ..style
            };
            if !style.json {
                assert_eq!(own_entry(&records[0].bytes, MD5, other), None);
            }
            assert_eq!(own_entry(&records[0].bytes, Algorithm::Sha1, style), None);
        }
    }

    #[test]
    fn a_record_too_long_to_keep_keeps_its_place_and_is_no_entry() {
        let style = LineStyle::default();
        let long = vec![b'0'; crate::record::MAX_RECORD_BYTES + 1];
        let mut text = list(&[b"a"], style);
        let after_a = text.len() as u64;
        text.extend_from_slice(&long);
        text.push(b'\n');
        text.extend_from_slice(&list(&[b"b"], style));
        let records: Vec<Record> = Records::new(&text[..], b'\n').map(Result::unwrap).collect();
        assert_eq!(records.len(), 3);
        let too_long = &records[1];
        assert!(too_long.bytes.is_empty() && too_long.complete);
        assert_eq!(
            (too_long.start, too_long.end()),
            (after_a, after_a + long.len() as u64 + 1)
        );
        assert_eq!(records[2].start, too_long.end());
        assert_eq!(own_entry(&too_long.bytes, MD5, style), None);
        assert_eq!(own_entry(&records[2].bytes, MD5, style).unwrap().name, b"b");
        // Where it is not the last line, the list is not this command's.
        let mut prefix = Prefix::new(&text[..], MD5, style);
        assert!(matches!(prefix.step(b"a", || false), Ok(Step::Kept)));
        assert!(matches!(
            prefix.step(b"b", || false),
            Err(ResumeError::Foreign { line: 2 })
        ));
    }

    #[test]
    fn json_failures_are_not_entries() {
        let mut out = Vec::new();
        let err = io::Error::from_raw_os_error(13);
        let style = LineStyle {
            json: true,
            ..LineStyle::default()
        };
        crate::line::write_failure(&mut out, MD5, b"x", &err, style);
        assert_eq!(own_entry(&out, MD5, style), None);
        assert!(is_json_failure(&out));
    }

    fn resume(text: &[u8], style: LineStyle, walk: &[&[u8]]) -> Result<(u64, Vec<Step>), String> {
        let mut prefix = Prefix::new(text, MD5, style);
        let mut steps = Vec::new();
        for name in walk {
            steps.push(
                prefix
                    .step(name, || name.starts_with(b"unreadable"))
                    .map_err(|e| e.to_string())?,
            );
        }
        prefix
            .finish()
            .map(|end| (end, steps))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn complete_lines_are_kept_and_a_torn_line_is_cut() {
        for style in styles() {
            let full = list(&[b"a", b"b", b"c"], style);
            let two = list(&[b"a", b"b"], style).len() as u64;
            // Cut anywhere inside the third line.
            for cut in two as usize..full.len() {
                let (end, steps) = resume(&full[..cut], style, &[b"a", b"b", b"c", b"d"]).unwrap();
                assert_eq!(end, two, "{style:?} cut at {cut}");
                assert_eq!(steps, [Step::Kept, Step::Kept, Step::Resume, Step::Resume]);
            }
            let (end, steps) = resume(&full, style, &[b"a", b"b", b"c"]).unwrap();
            assert_eq!((end, steps.len()), (full.len() as u64, 3));
        }
    }

    #[test]
    fn unreadable_last_line_is_cut_but_not_an_earlier_one() {
        let style = LineStyle::default();
        let mut text = list(&[b"a"], style);
        text.extend_from_slice(b"garbage\n");
        let mut prefix = Prefix::new(&text[..], MD5, style);
        assert_eq!(prefix.step(b"a", || false).unwrap(), Step::Kept);
        assert_eq!(prefix.step(b"b", || false).unwrap(), Step::Resume);
        assert_eq!(prefix.torn_line(), Some(2));
        text.extend(list(&[b"b"], style));
        let err = resume(&text, style, &[b"a", b"b"]).unwrap_err();
        assert!(err.contains("line 2 is not a line"), "{err}");
    }

    #[test]
    fn unreadable_files_are_gaps_and_mismatches_are_refused() {
        let style = LineStyle::default();
        let text = list(&[b"a", b"c"], style);
        let (end, steps) = resume(&text, style, &[b"a", b"unreadable", b"c", b"d"]).unwrap();
        assert_eq!(end, text.len() as u64);
        assert_eq!(steps, [Step::Kept, Step::Gap, Step::Kept, Step::Resume]);
        // A file that can be read now but has no line: another list, or the tree changed.
        let err = resume(&text, style, &[b"a", b"b", b"c"]).unwrap_err();
        assert!(err.contains("line 2 names c where"), "{err}");
        // A list of more files than the walk has.
        let err = resume(&text, style, &[b"a"]).unwrap_err();
        assert!(err.contains("line 2 names c, which"), "{err}");
        // Another algorithm's list.
        let sha1 = {
            let mut out = Vec::new();
            write_line(
                &mut out,
                Algorithm::Sha1,
                &parhash::hash(Algorithm::Sha1, b"a"),
                b"a",
                style,
            );
            out.extend_from_slice(&text);
            out
        };
        assert!(resume(&sha1, style, &[b"a"])
            .unwrap_err()
            .contains("line 1"));
    }

    #[test]
    fn json_error_records_end_the_kept_part() {
        let style = LineStyle {
            json: true,
            ..LineStyle::default()
        };
        let mut text = list(&[b"a"], style);
        let kept = text.len() as u64;
        let err = io::Error::from_raw_os_error(13);
        crate::line::write_failure(&mut text, MD5, b"b", &err, style);
        text.extend(list(&[b"c"], style));
        let (end, steps) = resume(&text, style, &[b"a", b"b", b"c"]).unwrap();
        assert_eq!(end, kept);
        assert_eq!(steps, [Step::Kept, Step::Resume, Step::Resume]);
    }
}
