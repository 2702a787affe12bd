//! The piece list `LIST.parhash-pieces` that `sum --pieces -o LIST` writes beside its list:
//! for each listed file, the digest of each fixed-size piece, so that `check --locate` can say
//! which bytes of a damaged file differ.
//!
//! A file of its own, not more fields of the side file `LIST.parhash-meta`: a metadata line
//! is a few dozen bytes that `--update` reads for every entry, while a file's pieces run to
//! megabytes (a 1 TiB file in 1 MiB pieces of SHA-256: 64 MiB of hex), over the bound on a
//! line ([`crate::record::MAX_RECORD_BYTES`]) and in the way of every `--update`.
//!
//! Format: a header line, then per file a `file` line, its digest lines and an `end` line:
//!
//! ```text
//! # parhash-pieces 1: file TAG PIECE_SIZE FILE_SIZE DIGEST NAME, digest lines, end CHECK
//! file SHA256 1048576 2621440 9f86d0...0a08 data/a.bin
//! 3a7bd3...e8e9 8b1a99...c6e4
//! 1f3870...2d4e
//! end 5c2a7e...01ff
//! ```
//!
//! TAG is the checksum line's BSD tag (`SHA256`, `BLAKE2b-256`, `PARSHA256-T13-IV256`), the
//! algorithm and length of DIGEST, the whole file's (what its list line says). The pieces'
//! digests follow in hex, at most [`PER_LINE`] a line, one per [`PIECE_SIZE`]-byte piece from
//! the start (the last may be shorter), all in [`PIECE_ALGORITHM`] (XXH3-128) whatever TAG:
//! pieces only say where a file that fails its line differs (the verdict is always the whole
//! digest's), and a hash at memory speed lets `check --locate` cost about what `check` costs. The name is the last
//! field of the `file` line, escaped as checksum lines escape names. CHECK is the SHA-256 of
//! the record's lines from `file` through its last digest line, newlines included: a record
//! that was changed, cut or torn is known as damage of the piece list, never taken for damage
//! of the file. Lines are read with the bound of [`crate::record`], and a reader holds one
//! line and one record's fields, however many pieces the record claims.
//!
//! [`PIECE_SIZE`]: PieceRecord::piece_size

use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use parhash::{Algorithm, Hasher};

use crate::digest_text::decode_hex;
use crate::escape;
use crate::record::{read_record, Read};

/// The first line of a piece list.
pub const HEADER: &[u8] =
    b"# parhash-pieces 1: file TAG PIECE_SIZE FILE_SIZE DIGEST NAME, digest lines, end CHECK\n";

/// Digests on one line.
pub const PER_LINE: usize = 64;

/// The piece size `sum --pieces` uses when none is given: 1 MiB.
pub const DEFAULT_PIECE_SIZE: u64 = 1 << 20;

/// The algorithm of a record's CHECK.
const CHECK_ALGORITHM: Algorithm = Algorithm::Sha256;

/// The algorithm of every piece's digest.
pub const PIECE_ALGORITHM: Algorithm = Algorithm::Xxh128;

/// Bytes in a piece's digest.
pub const PIECE_DIGEST_LEN: usize = 16;

/// Where the piece list of the list at `list` lives: `LIST.parhash-pieces`.
pub fn side_path(list: &Path) -> PathBuf {
    let mut name = list.as_os_str().to_os_string();
    name.push(".parhash-pieces");
    PathBuf::from(name)
}

/// What a record says of its file, its pieces aside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceRecord {
    /// The BSD tag of its digests' algorithm and length.
    pub tag: String,
    /// Bytes in a piece (the last may be shorter); never 0.
    pub piece_size: u64,
    /// The file's length when its pieces were hashed.
    pub file_size: u64,
    /// The whole file's digest.
    pub digest: Vec<u8>,
    /// The listed name.
    pub name: Vec<u8>,
}

impl PieceRecord {
    /// How many pieces a file of `file_size` bytes has (none when it is empty).
    pub fn pieces(&self) -> u64 {
        self.file_size.div_ceil(self.piece_size)
    }

    /// The bytes of piece `index`, first and last (inclusive), in a file of `len` bytes.
    pub fn bytes_of(&self, index: u64, len: u64) -> (u64, u64) {
        let start = index.saturating_mul(self.piece_size);
        let end = start.saturating_add(self.piece_size).min(len);
        (start, end.saturating_sub(1))
    }
}

/// Appends the record of a file and its pieces' digests (each [`PIECE_DIGEST_LEN`] bytes).
pub fn write_record<'a>(
    out: &mut Vec<u8>,
    record: &PieceRecord,
    digests: impl IntoIterator<Item = &'a [u8]>,
) {
    let start = out.len();
    let fields = format!(
        "file {} {} {} {} ",
        record.tag,
        record.piece_size,
        record.file_size,
        hex(&record.digest)
    );
    out.extend_from_slice(fields.as_bytes());
    escape::escape_into(out, &record.name);
    out.push(b'\n');
    let mut on_line = 0;
    for digest in digests {
        if on_line > 0 {
            out.push(b' ');
        }
        out.extend_from_slice(hex(digest).as_bytes());
        on_line += 1;
        if on_line == PER_LINE {
            out.push(b'\n');
            on_line = 0;
        }
    }
    if on_line > 0 {
        out.push(b'\n');
    }
    let check = parhash::hash(CHECK_ALGORITHM, &out[start..]);
    out.extend_from_slice(format!("end {}\n", check.to_hex()).as_bytes());
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Reads a `file` line (with its newline); `None` for anything else.
pub fn parse_file_line(line: &[u8]) -> Option<PieceRecord> {
    let line = line.strip_suffix(b"\n")?.strip_prefix(b"file ")?;
    let mut fields = line.splitn(5, |&b| b == b' ');
    let mut text = || std::str::from_utf8(fields.next()?).ok();
    let tag = text()?.to_string();
    let piece_size: u64 = text()?.parse().ok()?;
    let file_size = text()?.parse().ok()?;
    let digest = decode_hex(text()?.as_bytes())?;
    let name = escape::unescape(fields.next()?)?;
    let valid = !tag.is_empty() && piece_size > 0;
    valid.then_some(PieceRecord {
        tag,
        piece_size,
        file_size,
        digest,
        name,
    })
}

/// What [`PieceReader::next_piece`] reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// The next piece's digest.
    Digest(Vec<u8>),
    /// The record has ended: `intact` when its CHECK matches and it holds exactly one digest
    /// of the record's length per piece; a record torn, cut or changed is not.
    End {
        /// The record is as `sum --pieces` wrote it.
        intact: bool,
    },
}

/// A piece list read record by record, each record's digests one at a time.
pub struct PieceReader<R> {
    reader: R,
    line: Vec<u8>,
    /// Offset of the next line.
    offset: u64,
    /// A line read but not yet taken (a `file` line that ended a record without `end`).
    pending: Option<(Vec<u8>, u64)>,
    /// Where the last record that ended with its `end` line ends.
    ended_at: u64,
    record: Option<Open>,
    /// Lines outside every record that are no comment, and records that were not intact.
    damaged: u64,
}

/// The record being read.
struct Open {
    check: Hasher,
    digest_len: usize,
    expected: u64,
    seen: u64,
    broken: bool,
    /// Digests of the current line not yet taken, as text, last first.
    queued: Vec<Vec<u8>>,
}

impl<R: BufRead> PieceReader<R> {
    /// The piece list in `reader`, from where it stands (a record's offset or the start).
    pub fn new(reader: R) -> PieceReader<R> {
        PieceReader::at(reader, 0)
    }

    /// The same, `reader` standing at `offset` of the piece list (for the offsets it gives).
    pub fn at(reader: R, offset: u64) -> PieceReader<R> {
        PieceReader {
            reader,
            line: Vec::new(),
            offset,
            pending: None,
            ended_at: offset,
            record: None,
            damaged: 0,
        }
    }

    /// Lines that were neither comments nor part of a record, and records found not
    /// intact, so far.
    pub fn damaged(&self) -> u64 {
        self.damaged
    }

    /// The next line and its offset; `None` at the end. A line over the bound comes back
    /// empty (no record's line is empty).
    fn next_line(&mut self) -> io::Result<Option<(Vec<u8>, u64)>> {
        if let Some(pending) = self.pending.take() {
            return Ok(Some(pending));
        }
        let at = self.offset;
        let read = read_record(&mut self.reader, b'\n', &mut self.line)?;
        let (len, kept) = match read {
            Read::End => return Ok(None),
            Read::Kept { len, complete } => (len, complete),
            Read::TooLong { len, .. } => (len, false),
        };
        self.offset += len;
        // A torn last line is no line of any record.
        let line = if kept {
            std::mem::take(&mut self.line)
        } else {
            Vec::new()
        };
        Ok(Some((line, at)))
    }

    /// The next record's `file` line and its offset, the rest of the record being read
    /// passed over (its damage counted); `None` at the end.
    pub fn next_record(&mut self) -> io::Result<Option<(PieceRecord, u64)>> {
        while self.record.is_some() {
            if let Piece::End { .. } = self.next_piece()? {
                break;
            }
        }
        loop {
            let Some((line, at)) = self.next_line()? else {
                return Ok(None);
            };
            if let Some(record) = parse_file_line(&line) {
                let mut check = Hasher::new(CHECK_ALGORITHM);
                check.update(&line);
                self.record = Some(Open {
                    check,
                    digest_len: PIECE_DIGEST_LEN,
                    expected: record.pieces(),
                    seen: 0,
                    broken: false,
                    queued: Vec::new(),
                });
                return Ok(Some((record, at)));
            }
            if !(line.starts_with(b"#") || line == b"\n") {
                self.damaged += 1;
            }
        }
    }

    /// The next digest of the record [`PieceReader::next_record`] gave, or its end (again
    /// and again once it has ended, and where no record was begun).
    pub fn next_piece(&mut self) -> io::Result<Piece> {
        loop {
            let Some(open) = self.record.as_mut() else {
                return Ok(Piece::End { intact: false });
            };
            if let Some(text) = open.queued.pop() {
                match decode_hex(&text).filter(|d| d.len() == open.digest_len) {
                    Some(digest) if open.seen < open.expected => {
                        open.seen += 1;
                        return Ok(Piece::Digest(digest));
                    }
                    _ => {
                        open.broken = true;
                        open.queued.clear();
                        continue;
                    }
                }
            }
            let line = self.next_line()?;
            let open = self.record.as_mut().expect("a record is open");
            let line = match line {
                Some((line, _)) if !line.starts_with(b"file ") => line,
                // The end of the input, or the next record: this one was cut.
                other => {
                    self.pending = other;
                    return Ok(self.end(false));
                }
            };
            if let Some(check) = line.strip_prefix(b"end ") {
                let check = check.strip_suffix(b"\n").and_then(decode_hex);
                let computed = std::mem::replace(&mut open.check, Hasher::new(CHECK_ALGORITHM));
                let matches = check.as_deref() == Some(computed.finalize().as_bytes());
                let intact = matches && !open.broken && open.seen == open.expected;
                self.ended_at = self.offset;
                return Ok(self.end(intact));
            }
            open.check.update(&line);
            match line.strip_suffix(b"\n") {
                Some(digests) if !digests.is_empty() => {
                    open.queued = digests.split(|&b| b == b' ').map(<[u8]>::to_vec).collect();
                    open.queued.reverse();
                }
                _ => open.broken = true,
            }
        }
    }

    fn end(&mut self, intact: bool) -> Piece {
        self.record = None;
        self.damaged += u64::from(!intact);
        Piece::End { intact }
    }
}

/// Where a file that fails differs from its record (`check --locate`): the pieces that
/// differ, as runs of adjacent ones. Its text form and its JSON record (which the JSON
/// module builds from this value) both read these fields, so both say the same bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Located {
    /// The record's piece size.
    pub piece_size: u64,
    /// The file's length now.
    pub size: u64,
    /// Its length when its pieces were recorded.
    pub listed_size: u64,
    /// First and last index of each run of pieces that differ, in order.
    pub runs: Vec<(u64, u64)>,
    /// Pieces that differ.
    pub count: u64,
}

/// Ranges listed in a verdict's text before the rest are only counted (JSON lists them all).
pub const MAX_RANGES_SHOWN: usize = 32;

impl Located {
    /// Adds piece `index`, after every piece added before it.
    pub fn add(&mut self, index: u64) {
        self.count += 1;
        match self.runs.last_mut() {
            Some((_, last)) if *last + 1 == index => *last = index,
            _ => self.runs.push((index, index)),
        }
    }

    /// Each run's bytes, first and last (inclusive), in a file of the larger of its two sizes
    /// (a piece past the shorter end differs as a whole).
    pub fn byte_ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let end = self.size.max(self.listed_size);
        let piece = self.piece_size;
        self.runs.iter().map(move |&(first, last)| {
            let start = first.saturating_mul(piece);
            let stop = last.saturating_add(1).saturating_mul(piece).min(end);
            (start, stop.saturating_sub(1))
        })
    }

    /// Bytes in the pieces that differ.
    pub fn bytes(&self) -> u64 {
        self.byte_ranges()
            .map(|(first, last)| last + 1 - first)
            .sum()
    }

    /// `at bytes A-B, C-D` (and the size, where it changed), after a verdict.
    pub fn text(&self) -> String {
        let mut shown: Vec<String> = (self.byte_ranges().take(MAX_RANGES_SHOWN))
            .map(|(start, stop)| format!("{start}-{stop}"))
            .collect();
        if self.runs.len() > MAX_RANGES_SHOWN {
            shown.push(format!("... ({} ranges)", self.runs.len()));
        }
        let mut text = format!("at bytes {}", shown.join(", "));
        if self.size != self.listed_size {
            text += &format!(" (now {} bytes, listed {})", self.size, self.listed_size);
        }
        text
    }
}

/// Where each name's record starts in a piece list, and whether it is intact: one pass over
/// the list, holding the names and their `file` lines' fields, never their digests.
#[derive(Debug, Default)]
pub struct PieceIndex {
    records: std::collections::HashMap<Vec<u8>, Indexed>,
    /// Damaged lines and records ([`PieceReader::damaged`]).
    pub damaged: u64,
}

/// One name's record in a [`PieceIndex`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Indexed {
    /// Its `file` line's fields.
    pub record: PieceRecord,
    /// Offset of its `file` line.
    pub offset: u64,
    /// Its bytes, `file` line through `end` line, where it is intact (0 otherwise): what
    /// `--resume` and `--update` copy into the new piece list as they are.
    pub len: u64,
    /// Its CHECK and digests are as written ([`Piece::End`]).
    pub intact: bool,
}

impl PieceIndex {
    /// Reads the whole piece list in `reader`. A name recorded twice keeps its last record
    /// (what a list written again says last).
    ///
    /// # Errors
    /// The reader's.
    pub fn read(reader: impl BufRead) -> io::Result<PieceIndex> {
        let mut pieces = PieceReader::new(reader);
        let mut records = std::collections::HashMap::new();
        while let Some((record, offset)) = pieces.next_record()? {
            let intact = loop {
                if let Piece::End { intact } = pieces.next_piece()? {
                    break intact;
                }
            };
            let name = record.name.clone();
            let len = if intact { pieces.ended_at - offset } else { 0 };
            records.insert(
                name,
                Indexed {
                    record,
                    offset,
                    len,
                    intact,
                },
            );
        }
        Ok(PieceIndex {
            records,
            damaged: pieces.damaged(),
        })
    }

    /// The piece size of the intact records, where they agree on one (`--resume` and
    /// `--update` go on with it when `--pieces` is not given again).
    pub fn piece_size(&self) -> Option<u64> {
        let mut sizes = (self.records.values())
            .filter(|r| r.intact)
            .map(|r| r.record.piece_size);
        let first = sizes.next()?;
        sizes.all(|size| size == first).then_some(first)
    }

    /// The record of `name`, if the list has one.
    pub fn get(&self, name: &[u8]) -> Option<&Indexed> {
        self.records.get(name)
    }

    /// How many names have a record.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether no name has a record.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &[u8], file_size: u64) -> PieceRecord {
        PieceRecord {
            tag: "SHA256".into(),
            piece_size: 4,
            file_size,
            digest: vec![0xab; 32],
            name: name.to_vec(),
        }
    }

    fn digests(n: u8) -> Vec<Vec<u8>> {
        (0..n).map(|i| vec![i; PIECE_DIGEST_LEN]).collect()
    }

    fn written(records: &[(PieceRecord, Vec<Vec<u8>>)]) -> Vec<u8> {
        let mut out = HEADER.to_vec();
        for (record, digests) in records {
            write_record(&mut out, record, digests.iter().map(Vec::as_slice));
        }
        out
    }

    fn read_back(text: &[u8]) -> Vec<(PieceRecord, Vec<Vec<u8>>, bool)> {
        let mut reader = PieceReader::new(text);
        let mut out = Vec::new();
        while let Some((record, _)) = reader.next_record().unwrap() {
            let mut got = Vec::new();
            loop {
                match reader.next_piece().unwrap() {
                    Piece::Digest(digest) => got.push(digest),
                    Piece::End { intact } => {
                        out.push((record, got, intact));
                        break;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn records_round_trip_any_name_and_any_count() {
        let names: [&[u8]; 4] = [b"plain", b"with space", b"new\nline\\back\rcr", b"\xff\xfe"];
        // 0 pieces, 1, one line's worth exactly, and more than a line.
        let counts = [0u8, 1, PER_LINE as u8, PER_LINE as u8 + 3];
        let records: Vec<_> = names
            .iter()
            .zip(counts)
            .map(|(name, n)| {
                (
                    record(name, 4 * u64::from(n) - u64::from(n > 0)),
                    digests(n),
                )
            })
            .collect();
        let text = written(&records);
        let back = read_back(&text);
        assert_eq!(back.len(), 4);
        for ((record, digests), (r, d, intact)) in records.iter().zip(back) {
            assert_eq!((record, digests, true), (&r, &d, intact));
        }
        let index = PieceIndex::read(&text[..]).unwrap();
        assert_eq!((index.len(), index.damaged), (4, 0));
        let second = index.get(b"with space").unwrap();
        assert!(second.intact);
        let mut at = PieceReader::at(&text[second.offset as usize..], second.offset);
        assert_eq!(at.next_record().unwrap().unwrap().0, records[1].0);
    }

    #[test]
    fn every_changed_byte_of_a_record_is_damage_of_the_list() {
        let records = [(record(b"a", 10), digests(3))];
        let text = written(&records);
        let start = HEADER.len();
        for at in start..text.len() {
            for change in [b'0', b'f', b' ', b'\n', b'x'] {
                if text[at] == change {
                    continue;
                }
                let mut damaged = text.clone();
                damaged[at] = change;
                let back = read_back(&damaged);
                // The record is gone (its `file` line no longer reads), or it is not intact.
                assert!(
                    back.iter().all(|(_, _, intact)| !intact),
                    "byte {at} -> {change}: {back:?}"
                );
            }
        }
    }

    #[test]
    fn cut_records_and_wrong_counts_are_not_intact() {
        let text = written(&[
            (record(b"a", 10), digests(3)),
            (record(b"b", 4), digests(1)),
        ]);
        // Cut anywhere: no record read is intact unless it is whole.
        for len in HEADER.len()..text.len() {
            let back = read_back(&text[..len]);
            let whole_a = text[..len].windows(4).filter(|w| w == b"end ").count() >= 1;
            for (r, _, intact) in back {
                if intact {
                    assert!(r.name == b"a" && whole_a, "cut at {len}");
                }
            }
        }
        // A count that does not fit the size, even with a correct CHECK.
        let wrong = written(&[(record(b"a", 10), digests(2))]);
        assert!(!read_back(&wrong)[0].2);
        let wrong = written(&[(record(b"a", 10), digests(4))]);
        assert!(!read_back(&wrong)[0].2);
    }

    #[test]
    fn hostile_lines_are_bounded_and_counted() {
        let mut text = HEADER.to_vec();
        text.extend_from_slice(b"garbage\n");
        write_record(&mut text, &record(b"a", 4), [&[7u8; PIECE_DIGEST_LEN][..]]);
        // A digest line over the bound inside a record, then a record claiming 2^60 pieces.
        text.extend_from_slice(b"file SHA256 4 8 ");
        text.extend_from_slice(hex(&[1; 32]).as_bytes());
        text.extend_from_slice(b" b\n");
        text.extend(std::iter::repeat_n(
            b'a',
            crate::record::MAX_RECORD_BYTES + 10,
        ));
        text.extend_from_slice(b"\nend 00\n");
        text.extend_from_slice(b"file SHA256 1 1152921504606846976 ab c\nend 00\n");
        text.extend_from_slice(b"file SHA256 0 4 ab zero\n");
        let index = PieceIndex::read(&text[..]).unwrap();
        assert!(index.get(b"a").unwrap().intact);
        assert!(!index.get(b"b").unwrap().intact);
        assert!(!index.get(b"c").unwrap().intact);
        assert!(index.get(b"zero").is_none());
        assert_eq!(index.damaged, 4);
    }

    #[test]
    fn located_runs_merge_and_their_bytes_read() {
        let mut located = Located {
            piece_size: 4,
            size: 34,
            listed_size: 30,
            ..Located::default()
        };
        for i in [0, 1, 2, 5, 7, 8] {
            located.add(i);
        }
        assert_eq!(located.runs, [(0, 2), (5, 5), (7, 8)]);
        assert_eq!(located.bytes(), 12 + 4 + 6);
        assert_eq!(
            located.text(),
            "at bytes 0-11, 20-23, 28-33 (now 34 bytes, listed 30)"
        );
    }

    #[test]
    fn piece_bytes_and_side_path() {
        let r = record(b"a", 10);
        assert_eq!(r.pieces(), 3);
        assert_eq!(r.bytes_of(0, 10), (0, 3));
        assert_eq!(r.bytes_of(2, 10), (8, 9));
        assert_eq!(
            side_path(Path::new("d/SUMS")),
            PathBuf::from("d/SUMS.parhash-pieces")
        );
    }
}
