//! The side file `FILE.parhash-meta` that `sum -o FILE` writes next to its list: each hashed
//! file's size, modification and change times, inode and device as they were just before it
//! was read. `sum --update --rehash-changed` reads a file again only where these differ, as
//! rsync and git trust metadata; the list itself stays exactly what coreutils reads.
//!
//! Format: a header line, then one line per entry of the list, in the list's order:
//!
//! ```text
//! # parhash-meta 1: size mtime_ns ctime_ns ino dev name
//! 1048576 1700000000123456789 1700000000123456789 1234567 2049 data/a.bin
//! ```
//!
//! Times are nanoseconds since the Unix epoch (negative before it). The name is the last
//! field, escaped as checksum lines escape names (`\\`, `\n`, `\r`), so names with spaces,
//! newlines or bytes that are not UTF-8 come back exactly.

use std::fs;
use std::io::{self, BufRead};
use std::path::{Path, PathBuf};

use crate::escape;
use crate::resume::Records;

/// The first line of a side file.
pub const HEADER: &[u8] = b"# parhash-meta 1: size mtime_ns ctime_ns ino dev name\n";

/// What the side file records of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta {
    /// Length in bytes.
    pub size: u64,
    /// Last modification, nanoseconds since the epoch.
    pub mtime_ns: i64,
    /// Last status change (any write, chmod, rename, or a restored mtime), nanoseconds.
    pub ctime_ns: i64,
    /// Inode number (a file replaced by another gets a new one).
    pub ino: u64,
    /// Device number.
    pub dev: u64,
}

impl Meta {
    /// The record of `metadata` (of the file a name leads to, links followed).
    #[cfg(unix)]
    pub fn of(metadata: &fs::Metadata) -> Meta {
        use std::os::unix::fs::MetadataExt;
        let ns = |secs: i64, nanos: i64| secs.saturating_mul(1_000_000_000).saturating_add(nanos);
        Meta {
            size: metadata.len(),
            mtime_ns: ns(metadata.mtime(), metadata.mtime_nsec()),
            ctime_ns: ns(metadata.ctime(), metadata.ctime_nsec()),
            ino: metadata.ino(),
            dev: metadata.dev(),
        }
    }

    /// The record of `metadata` where there is no change time, inode or device (they stay 0).
    #[cfg(not(unix))]
    pub fn of(metadata: &fs::Metadata) -> Meta {
        let mtime_ns = metadata
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos() as i64);
        Meta {
            size: metadata.len(),
            mtime_ns,
            ctime_ns: 0,
            ino: 0,
            dev: 0,
        }
    }
}

/// Where the side file of the list at `list` lives: `LIST.parhash-meta`.
pub fn side_path(list: &Path) -> PathBuf {
    let mut name = list.as_os_str().to_os_string();
    name.push(".parhash-meta");
    PathBuf::from(name)
}

/// Appends the side file's line for `name`.
pub fn write_record(out: &mut Vec<u8>, name: &[u8], meta: &Meta) {
    let fields = format!(
        "{} {} {} {} {} ",
        meta.size, meta.mtime_ns, meta.ctime_ns, meta.ino, meta.dev
    );
    out.extend_from_slice(fields.as_bytes());
    escape::escape_into(out, name);
    out.push(b'\n');
}

/// Reads one line of a side file (with its newline): `None` for the header, a torn line or
/// anything else that is not a record.
pub fn parse_record(line: &[u8]) -> Option<(Vec<u8>, Meta)> {
    let line = line.strip_suffix(b"\n")?;
    let mut fields = line.splitn(6, |&b| b == b' ');
    let mut number = || std::str::from_utf8(fields.next()?).ok();
    let size = number()?.parse().ok()?;
    let mtime_ns = number()?.parse().ok()?;
    let ctime_ns = number()?.parse().ok()?;
    let ino = number()?.parse().ok()?;
    let dev = number()?.parse().ok()?;
    let name = escape::unescape(fields.next()?)?;
    Some((
        name,
        Meta {
            size,
            mtime_ns,
            ctime_ns,
            ino,
            dev,
        },
    ))
}

/// A side file read in order, record by record, alongside its list.
pub struct MetaReader<R> {
    records: Records<R>,
    pending: Option<(Vec<u8>, Meta, u64)>,
    /// Offset after the last record taken.
    taken_end: u64,
}

impl<R: BufRead> MetaReader<R> {
    /// The side file in `reader`.
    pub fn new(reader: R) -> MetaReader<R> {
        MetaReader {
            records: Records::new(reader, b'\n'),
            pending: None,
            taken_end: 0,
        }
    }

    /// The next record (name, metadata, offset after it); the header and lines that are not
    /// records (a torn last line) are passed over.
    fn peek(&mut self) -> io::Result<Option<&(Vec<u8>, Meta, u64)>> {
        while self.pending.is_none() {
            let Some(record) = self.records.next().transpose()? else {
                return Ok(None);
            };
            if record.bytes == HEADER {
                self.taken_end = self.taken_end.max(record.end());
            }
            if let Some((name, meta)) = parse_record(&record.bytes) {
                self.pending = Some((name, meta, record.end()));
            }
        }
        Ok(self.pending.as_ref())
    }

    /// The metadata recorded for `name`, the list's next entry: records before it in
    /// `order` (entries that have since left the list) are passed over; `None` if it has
    /// none. `order` compares names as the list is sorted ([`crate::update::WalkOrder`]).
    pub fn find(
        &mut self,
        name: &[u8],
        order: impl Fn(&[u8], &[u8]) -> std::cmp::Ordering,
    ) -> io::Result<Option<Meta>> {
        while let Some((recorded, meta, end)) = self.peek()? {
            match order(recorded, name) {
                std::cmp::Ordering::Less => {
                    self.pending = None;
                }
                std::cmp::Ordering::Equal => {
                    let meta = *meta;
                    self.taken_end = *end;
                    self.pending = None;
                    return Ok(Some(meta));
                }
                std::cmp::Ordering::Greater => return Ok(None),
            }
        }
        Ok(None)
    }

    /// The record for `name` if it is the next one (a resumed list and its side file go in
    /// step).
    pub fn take_if_next(&mut self, name: &[u8]) -> io::Result<Option<Meta>> {
        match self.peek()? {
            Some((recorded, meta, end)) if recorded == name => {
                let meta = *meta;
                self.taken_end = *end;
                self.pending = None;
                Ok(Some(meta))
            }
            _ => Ok(None),
        }
    }

    /// Offset after the last record taken (or the header): where a resumed side file is cut.
    pub fn taken_end(&self) -> u64 {
        self.taken_end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(n: u64) -> Meta {
        Meta {
            size: n,
            mtime_ns: -5 + n as i64,
            ctime_ns: 1_700_000_000_123_456_789,
            ino: 77 + n,
            dev: 2049,
        }
    }

    #[test]
    fn records_round_trip_any_name() {
        let names: [&[u8]; 4] = [b"plain", b"with space", b"new\nline\\back\rcr", b"\xff\xfe"];
        for (i, name) in names.iter().enumerate() {
            let mut line = Vec::new();
            write_record(&mut line, name, &meta(i as u64));
            assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
            assert_eq!(parse_record(&line), Some((name.to_vec(), meta(i as u64))));
            // Torn: no newline.
            assert_eq!(parse_record(&line[..line.len() - 1]), None);
        }
        assert_eq!(parse_record(HEADER), None);
    }

    #[test]
    fn side_path_appends_suffix() {
        assert_eq!(
            side_path(Path::new("dir/SHA256SUMS")),
            PathBuf::from("dir/SHA256SUMS.parhash-meta")
        );
    }

    #[test]
    fn reader_finds_in_order_and_skips_departed_entries() {
        let mut text = HEADER.to_vec();
        for (i, name) in ["a", "b", "c", "e"].iter().enumerate() {
            write_record(&mut text, name.as_bytes(), &meta(i as u64));
        }
        text.extend_from_slice(b"12 3 4"); // torn
        let mut reader = MetaReader::new(&text[..]);
        let order = |a: &[u8], b: &[u8]| a.cmp(b);
        assert_eq!(reader.find(b"a", order).unwrap(), Some(meta(0)));
        assert_eq!(reader.find(b"c", order).unwrap(), Some(meta(2)));
        assert_eq!(reader.find(b"d", order).unwrap(), None);
        assert_eq!(reader.find(b"e", order).unwrap(), Some(meta(3)));
        assert_eq!(reader.taken_end(), text.len() as u64 - 6);
        assert_eq!(reader.find(b"f", order).unwrap(), None);
    }

    #[test]
    fn take_if_next_follows_a_resumed_list() {
        let mut text = HEADER.to_vec();
        write_record(&mut text, b"a", &meta(0));
        let after_a = text.len() as u64;
        write_record(&mut text, b"b", &meta(1));
        let mut reader = MetaReader::new(&text[..]);
        assert_eq!(reader.taken_end(), 0);
        assert_eq!(reader.take_if_next(b"a").unwrap(), Some(meta(0)));
        assert_eq!(reader.take_if_next(b"x").unwrap(), None);
        assert_eq!(reader.taken_end(), after_a);
    }

    #[cfg(unix)]
    #[test]
    fn of_reads_size_times_and_inode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        fs::write(&path, b"12345").unwrap();
        let recorded = Meta::of(&fs::metadata(&path).unwrap());
        assert_eq!(recorded.size, 5);
        assert!(recorded.mtime_ns > 0 && recorded.ctime_ns > 0 && recorded.ino > 0);
        assert_eq!(recorded, Meta::of(&fs::metadata(&path).unwrap()));
    }
}
