//! Piece lists (`LIST.parhash-pieces`, `parhash_format::pieces`): written by `sum --pieces
//! -o LIST` in the same read as the digests, read by `check --locate` to say which bytes of a
//! file that fails differ, and by `check --audit` to say how much of a changed file changed.
//!
//! A piece list is trusted only where it agrees with its list line: its record intact (its
//! CHECK), of the line's algorithm and length, recording the line's digest. Anything else is
//! damage of the piece list (or a piece list of another version of the list), said as such,
//! and the file is checked against its line as without `--locate`. The verdict is always the
//! whole digest's: pieces only say where.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufReader, Seek};
use std::path::{Path, PathBuf};

use anyhow::Result;
use parhash::{Algorithm, HasherBuilder, Output};
use parhash_format::check::{Job, ListCheck, Sink};
use parhash_format::escape;
use parhash_format::pieces::{self, Indexed, Piece, PieceIndex, PieceReader, PieceRecord};

use crate::flags::HashOptions;
use crate::input::builder_for;
use crate::many;

/// Ranges listed in a verdict before the rest are only counted.
const MAX_RANGES_SHOWN: usize = 32;

/// What `sum --pieces` records of each file: how its pieces are hashed.
pub struct PieceSum {
    piece_size: u64,
    algorithm: Algorithm,
    builder: HasherBuilder,
    tag: String,
}

impl PieceSum {
    /// For `--pieces`' size, recording the first algorithm's digest as `sum` hashes it; `None`
    /// without it.
    pub fn new(size: Option<u64>, algorithm: Algorithm, hashing: &HashOptions) -> Option<PieceSum> {
        let builder = parhash::Hasher::builder(pieces::PIECE_ALGORITHM);
        let digest_size = hashing
            .digest_size(algorithm)
            .unwrap_or(algorithm.digest_size());
        let params = algorithm.takes_tree_params().then(|| hashing.tree_params());
        Some(PieceSum {
            piece_size: size?,
            algorithm,
            builder,
            tag: parhash_format::tag::tag(algorithm, params, digest_size),
        })
    }

    /// A piece list with only its header, at `LIST.parhash-pieces`.
    pub fn create(list: &Path) -> Result<parhash_format::list_file::Durable> {
        let mut file = parhash_format::list_file::Durable::create(&pieces::side_path(list))?;
        file.write(pieces::HEADER)?;
        Ok(file)
    }
}

/// An item's outcome and, where pieces were hashed, its piece list record.
pub type Hashed = (many::Outcome, Option<Vec<u8>>);

/// `many::run`, with each file's pieces hashed in the same read where `pieces` says so (one
/// file at a time; standard input and items that failed go through the engine as before).
pub fn run(
    algorithms: &[Algorithm],
    items: impl Iterator<Item = many::Item>,
    options: &HashOptions,
    progress: &crate::progress::ManyProgress,
    pieces: Option<&PieceSum>,
    mut emit: impl FnMut(Vec<Hashed>) -> Result<()>,
) -> Result<()> {
    let Some(pieces) = pieces else {
        return many::run(algorithms, items, options, progress, |outcomes| {
            emit(outcomes.into_iter().map(|o| (o, None)).collect())
        });
    };
    debug_assert_eq!(pieces.algorithm, algorithms[0]);
    let builders: Vec<HasherBuilder> = algorithms
        .iter()
        .map(|&a| builder_for(a, options))
        .collect();
    for item in items {
        let path = match &item {
            many::Item::Hash {
                source: crate::input::Source::Path(path),
                ..
            } => path.clone(),
            _ => {
                many::run(
                    algorithms,
                    std::iter::once(item),
                    options,
                    progress,
                    |outcomes| emit(outcomes.into_iter().map(|o| (o, None)).collect()),
                )?;
                continue;
            }
        };
        let many::Item::Hash { name, .. } = item else {
            unreachable!("matched above")
        };
        let mut digests = Vec::new();
        let hashed = File::open(&path).and_then(|file| {
            crate::piece_hash::hash_file(
                &file,
                &builders,
                &pieces.builder,
                pieces.piece_size,
                |_, d| digests.push(d),
            )
            .map(|whole| (whole, file.metadata().map_or(0, |m| m.len())))
        });
        let (outcome, record) = match hashed {
            Ok((whole, len)) => {
                let record = PieceRecord {
                    tag: pieces.tag.clone(),
                    piece_size: pieces.piece_size,
                    file_size: len,
                    digest: whole[0].as_bytes().to_vec(),
                    name: name.clone(),
                };
                let mut text = Vec::new();
                pieces::write_record(&mut text, &record, digests.iter().map(Output::as_bytes));
                (Ok(whole), Some(text))
            }
            Err(err) => (Err(err), None),
        };
        emit(vec![((name, outcome), record)])?;
    }
    Ok(())
}

/// Why a file's pieces cannot be used.
enum Unusable {
    /// The list has no piece list, or none for this name.
    None,
    /// Its record is damaged, or for another digest or algorithm than the list's line.
    Damaged(&'static str),
}

/// The piece list of one list being checked (`check --locate`), or of an audit.
pub struct Locator {
    path: PathBuf,
    index: Option<PieceIndex>,
}

impl Locator {
    /// The piece list beside `list` (none beside standard input, or where it cannot be read).
    pub fn open(list: &OsString) -> Locator {
        let path = pieces::side_path(Path::new(list));
        let index = (list != "-")
            .then(|| File::open(&path).ok())
            .flatten()
            .and_then(|file| PieceIndex::read(BufReader::new(file)).ok());
        Locator { path, index }
    }

    /// `name`'s record if it agrees with a list line of `tag` and `expected` digest.
    fn usable(&self, name: &[u8], tag: &str, expected: &[u8]) -> Result<&Indexed, Unusable> {
        let indexed = self.index.as_ref().and_then(|i| i.get(name));
        let indexed = indexed.ok_or(Unusable::None)?;
        if !indexed.intact {
            return Err(Unusable::Damaged("is damaged"));
        }
        if indexed.record.tag != tag || indexed.record.digest != expected {
            return Err(Unusable::Damaged(
                "is of another digest than the list's line (damaged, or of another version of the list)",
            ));
        }
        Ok(indexed)
    }

    fn shown(&self) -> String {
        escape::quote(&escape::os_bytes(self.path.as_os_str()))
    }

    /// Checks `job`'s file as `check` does (hashed with `hashing`, the line's options), and
    /// where it fails says which bytes differ.
    pub fn check(
        &mut self,
        hashing: &HashOptions,
        list_check: &mut ListCheck,
        job: &Job,
        out: &mut impl Sink,
    ) -> io::Result<()> {
        let entry = &job.entry;
        let builder = builder_for(entry.algorithm, hashing);
        let params = entry
            .algorithm
            .takes_tree_params()
            .then_some(job.tree_params);
        let tag = parhash_format::tag::tag(entry.algorithm, params, entry.expected.len());
        let plain = |list_check: &mut ListCheck, out: &mut _| -> io::Result<bool> {
            let source = crate::input::Source::from_name(&entry.name);
            let outcome = crate::input::hash_source(entry.algorithm, &source, hashing);
            let failed = matches!(&outcome, Ok(d) if d.as_bytes() != entry.expected);
            list_check.checked(job, &outcome, out)?;
            Ok(failed)
        };
        let name = escape::quote(&entry.name);
        let indexed = match self.usable(&entry.name, &tag, &entry.expected) {
            Ok(indexed) => indexed.clone(),
            Err(Unusable::None) => {
                if plain(list_check, out)? {
                    out.message(&format!(
                        "cannot locate: no piece list for {name}; make one with parhash sum --pieces -o LIST"
                    ));
                }
                return Ok(());
            }
            Err(Unusable::Damaged(why)) => {
                out.message(&format!(
                    "{}: the piece list of {name} {why}: cannot locate",
                    self.shown()
                ));
                plain(list_check, out)?;
                return Ok(());
            }
        };
        if job.is_stdin() {
            plain(list_check, out)?;
            return Ok(());
        }
        let path = escape::path_from_bytes(&entry.name);
        let located = self.locate(&indexed, &path, Some(&builder));
        match located {
            Err(err) => list_check.checked(job, &Err(err), out),
            Ok(located) => {
                let outcome = Ok(located.whole.clone().expect("hashed whole"));
                let matched =
                    located.whole.as_ref().map(Output::as_bytes) == Some(&entry.expected[..]);
                let ranges = located.ranges(&indexed.record);
                if !located.intact {
                    out.message(&format!(
                        "{}: the piece list of {name} is damaged: cannot locate",
                        self.shown()
                    ));
                } else if matched != located.damaged.runs.is_empty()
                    || located.len != indexed.record.file_size && matched
                {
                    // A file that matches its line with pieces that differ, or one that
                    // fails with every piece as listed: the piece list is not that of the
                    // file the line describes.
                    out.message(&format!(
                        "{}: the piece list of {name} does not agree with the list's line (damaged): cannot locate",
                        self.shown()
                    ));
                } else if !matched {
                    return list_check.checked_located(job, &outcome, &ranges, out);
                }
                list_check.checked(job, &outcome, out)
            }
        }
    }

    /// Hashes the file at `path` once: its pieces against `indexed`'s, and with `whole` its
    /// digest too.
    fn locate(
        &self,
        indexed: &Indexed,
        path: &Path,
        whole: Option<&HasherBuilder>,
    ) -> io::Result<Located> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        let mut list = File::open(&self.path)?;
        list.seek(io::SeekFrom::Start(indexed.offset))?;
        let mut reader = PieceReader::at(BufReader::new(list), indexed.offset);
        let intact = matches!(reader.next_record()?, Some((r, _)) if r == indexed.record);
        let record = &indexed.record;
        let mut damaged = Damaged::default();
        let mut listed_left = true;
        // The record's end, where the file has more pieces than it lists.
        let mut ended = None;
        let whole_builders: Vec<HasherBuilder> = whole.cloned().into_iter().collect();
        let piece_builder = parhash::Hasher::builder(pieces::PIECE_ALGORITHM);
        let mut read_error = None;
        let digests = crate::piece_hash::hash_file(
            &file,
            &whole_builders,
            &piece_builder,
            record.piece_size,
            |index, digest| {
                let listed = match listed_left.then(|| reader.next_piece()) {
                    Some(Ok(Piece::Digest(listed))) => Some(listed),
                    Some(Ok(Piece::End { intact })) => {
                        ended = Some(intact);
                        listed_left = false;
                        None
                    }
                    None => None,
                    Some(Err(err)) => {
                        read_error.get_or_insert(err);
                        listed_left = false;
                        None
                    }
                };
                if listed.as_deref() != Some(digest.as_bytes()) {
                    damaged.add(index);
                }
            },
        )?;
        if let Some(err) = read_error {
            return Err(err);
        }
        // The listed pieces past the file's end, and whether the record read intact.
        let mut index = len.div_ceil(record.piece_size);
        let intact = intact
            && loop {
                match listed_left.then(|| reader.next_piece()).transpose()? {
                    Some(Piece::Digest(_)) => {
                        damaged.add(index);
                        index += 1;
                    }
                    Some(Piece::End { intact }) => break intact,
                    None => break ended.unwrap_or(false),
                }
            };
        Ok(Located {
            whole: digests.into_iter().next(),
            len,
            damaged,
            intact,
        })
    }

    /// For `check --audit`: how much of the changed file `name` changed, where its piece list
    /// agrees with the list's `expected` digest (`None` otherwise, or where it cannot be read).
    pub fn changed(
        &self,
        name: &[u8],
        algorithm: Algorithm,
        hashing: &HashOptions,
        expected: &[u8],
    ) -> Option<Change> {
        let params = algorithm.takes_tree_params().then(|| hashing.tree_params());
        let tag = parhash_format::tag::tag(algorithm, params, expected.len());
        let indexed = self.usable(name, &tag, expected).ok()?;
        let located = self
            .locate(indexed, &escape::path_from_bytes(name), None)
            .ok()?;
        located.intact.then(|| Change {
            pieces: located
                .len
                .max(indexed.record.file_size)
                .div_ceil(indexed.record.piece_size),
            changed: located.damaged.count,
            bytes: located.damaged.bytes(&indexed.record, located.len),
        })
    }
}

/// What one read of a file against its piece list found.
struct Located {
    whole: Option<Output>,
    /// The file's length now.
    len: u64,
    damaged: Damaged,
    /// The piece list's record read back intact.
    intact: bool,
}

impl Located {
    /// `at bytes A-B, C-D` (and the size, where it changed).
    fn ranges(&self, record: &PieceRecord) -> String {
        let end = self.len.max(record.file_size);
        let mut shown: Vec<String> = (self.damaged.runs.iter().take(MAX_RANGES_SHOWN))
            .map(|&(first, last)| {
                let (start, _) = record.bytes_of(first, end);
                let (_, stop) = record.bytes_of(last, end);
                format!("{start}-{stop}")
            })
            .collect();
        if self.damaged.runs.len() > MAX_RANGES_SHOWN {
            shown.push(format!("... ({} ranges)", self.damaged.runs.len()));
        }
        let mut text = format!("at bytes {}", shown.join(", "));
        if self.len != record.file_size {
            text += &format!(" (now {} bytes, listed {})", self.len, record.file_size);
        }
        text
    }
}

/// The pieces that differ, as runs of adjacent ones.
#[derive(Default)]
struct Damaged {
    runs: Vec<(u64, u64)>,
    count: u64,
}

impl Damaged {
    fn add(&mut self, index: u64) {
        self.count += 1;
        match self.runs.last_mut() {
            Some((_, last)) if *last + 1 == index => *last = index,
            _ => self.runs.push((index, index)),
        }
    }

    /// Bytes in the damaged pieces of a file that is `len` bytes now or was as listed.
    fn bytes(&self, record: &PieceRecord, len: u64) -> u64 {
        let end = len.max(record.file_size);
        (self.runs.iter())
            .map(|&(first, last)| record.bytes_of(last, end).1 + 1 - record.bytes_of(first, end).0)
            .sum()
    }
}

/// How much of a changed file changed.
pub struct Change {
    /// Pieces in all.
    pub pieces: u64,
    /// Pieces that differ.
    pub changed: u64,
    /// Bytes in those.
    pub bytes: u64,
}

impl Change {
    /// Appends ` (3 of 1024 pieces, 3 MiB)` to the report line at `line` of `out` (before its
    /// terminator), or with `json` the counts as fields of its record.
    pub fn annotate(&self, out: &mut Vec<u8>, line: usize, json: bool) {
        let Some(&terminator) = out.last() else {
            return;
        };
        if out.len() <= line {
            return;
        }
        out.pop();
        if json {
            if out.last() == Some(&b'}') {
                out.pop();
                out.extend_from_slice(
                    format!(
                        ",\"pieces\":{},\"pieces_changed\":{},\"bytes_changed\":{}}}",
                        self.pieces, self.changed, self.bytes
                    )
                    .as_bytes(),
                );
            }
        } else {
            out.extend_from_slice(
                format!(
                    " ({} of {} pieces, {})",
                    self.changed,
                    self.pieces,
                    size_text(self.bytes)
                )
                .as_bytes(),
            );
        }
        out.push(terminator);
    }
}

/// A size in the largest binary unit that keeps it at least 1 (`3 MiB`, `1.5 GiB`).
fn size_text(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} bytes"),
        _ if value.fract() == 0.0 => format!("{value} {}", UNITS[unit]),
        _ => format!("{value:.1} {}", UNITS[unit]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_merge_and_sizes_read() {
        let mut damaged = Damaged::default();
        for i in [0, 1, 2, 5, 7, 8] {
            damaged.add(i);
        }
        assert_eq!(damaged.runs, [(0, 2), (5, 5), (7, 8)]);
        let record = PieceRecord {
            tag: "SHA256".into(),
            piece_size: 4,
            file_size: 34,
            digest: vec![0; 32],
            name: b"f".to_vec(),
        };
        assert_eq!(damaged.bytes(&record, 34), 12 + 4 + 6);
        assert_eq!(size_text(3 << 20), "3 MiB");
        assert_eq!(size_text(1536 << 20), "1.5 GiB");
        assert_eq!(size_text(5), "5 bytes");
    }
}
