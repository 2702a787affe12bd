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
use parhash_format::line::LineStyle;
use parhash_format::list_file::Durable;
use parhash_format::pieces::{self, Indexed, Located, Piece, PieceIndex, PieceReader, PieceRecord};

use crate::flags::HashOptions;
use crate::input::builder_for;
use crate::many;
use crate::messages::err_message;

/// What `sum --pieces` records of each file: how its pieces are hashed, and the tag of each
/// algorithm's digest its records carry (one piece list per list: `--lists` writes one beside
/// each, the same pieces under each list's digest).
#[derive(Clone)]
pub struct PieceSum {
    piece_size: u64,
    builder: HasherBuilder,
    tags: Vec<String>,
}

impl PieceSum {
    /// For `--pieces`' size, recording each algorithm's digest as `sum` hashes it; `None`
    /// without it.
    pub fn new(
        size: Option<u64>,
        algorithms: &[Algorithm],
        hashing: &HashOptions,
    ) -> Option<PieceSum> {
        Some(PieceSum {
            piece_size: size?,
            builder: parhash::Hasher::builder(pieces::PIECE_ALGORITHM),
            tags: algorithms.iter().map(|&a| tag_of(a, hashing)).collect(),
        })
    }

    /// The piece size.
    pub fn piece_size(&self) -> u64 {
        self.piece_size
    }

    /// A piece list with only its header, at `path`.
    pub fn create(path: &Path) -> Result<Durable> {
        let mut file = Durable::create(path)?;
        file.write(pieces::HEADER)?;
        Ok(file)
    }

    /// The piece list record of `name` under the digest `whole` of algorithm `at` (in the
    /// order given to [`PieceSum::new`]).
    pub fn record(&self, at: usize, name: &[u8], whole: &Output, hashed: &FilePieces) -> Vec<u8> {
        let record = PieceRecord {
            tag: self.tags[at].clone(),
            piece_size: self.piece_size,
            file_size: hashed.len,
            digest: whole.as_bytes().to_vec(),
            name: name.to_vec(),
        };
        let mut text = Vec::new();
        let digests = hashed.digests.iter().map(Output::as_bytes);
        pieces::write_record(&mut text, &record, digests);
        text
    }

    /// The record of a listed file whose piece list has none that agrees with its line
    /// (`--resume`, `--update`): its pieces hashed again, with its digest in `algorithm`,
    /// and recorded only if that is still the listed one; `None` where the file changed since
    /// it was listed or cannot be read (said on standard error: no pieces are recorded
    /// for it, rather than pieces of other bytes under its line).
    pub fn rebuild(
        &self,
        at: usize,
        algorithm: Algorithm,
        hashing: &HashOptions,
        name: &[u8],
        expected: &[u8],
    ) -> Option<Vec<u8>> {
        let path = escape::path_from_bytes(name);
        let whole = [builder_for(algorithm, hashing)];
        let mut digests = Vec::new();
        let hashed = File::open(&path).and_then(|file| {
            let len = file.metadata()?.len();
            let out = crate::piece_hash::hash_file(
                &file,
                &whole,
                &self.builder,
                self.piece_size,
                |_, d| digests.push(d),
            )?;
            Ok((out, len))
        });
        let why = match hashed {
            Ok((out, len)) if out[0].as_bytes() == expected => {
                let hashed = FilePieces { len, digests };
                return Some(self.record(at, name, &out[0], &hashed));
            }
            Ok(_) => "it changed since it was listed".to_string(),
            Err(err) => parhash_format::error_text(&err),
        };
        err_message!(
            "{}: no pieces recorded: {why} (`sum --update --rehash-changed` lists it again)",
            escape::quote(name)
        );
        None
    }
}

/// The BSD tag of `algorithm`'s digest as `sum` writes it with `hashing`.
fn tag_of(algorithm: Algorithm, hashing: &HashOptions) -> String {
    let digest_size = hashing
        .digest_size(algorithm)
        .unwrap_or(algorithm.digest_size());
    let params = algorithm.takes_tree_params().then(|| hashing.tree_params());
    parhash_format::tag::tag(algorithm, params, digest_size)
}

/// A file's pieces as hashed: its length then, and each piece's digest in order.
pub struct FilePieces {
    pub len: u64,
    pub digests: Vec<Output>,
}

/// An item's outcome and, where pieces were hashed, its pieces.
pub type Hashed = (many::Outcome, Option<FilePieces>);

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
        let (outcome, hashed) = match hashed {
            Ok((whole, len)) => (Ok(whole), Some(FilePieces { len, digests })),
            Err(err) => (Err(err), None),
        };
        emit(vec![((name, outcome), hashed)])?;
    }
    Ok(())
}

/// The piece list of a list being continued or brought up to date (`sum --pieces --resume`,
/// `--update`): the records that agree with the list's kept lines are copied as they are.
pub struct OldPieces {
    file: File,
    index: PieceIndex,
}

impl OldPieces {
    /// The piece list at `path`; `None` where there is none or it cannot be read (said on
    /// standard error: its records are made again).
    pub fn open(path: &Path) -> Option<OldPieces> {
        let opened = File::open(path).and_then(|file| {
            let index = PieceIndex::read(BufReader::new(file.try_clone()?))?;
            Ok(OldPieces { file, index })
        });
        match opened {
            Ok(old) => Some(old),
            Err(err) if err.kind() == io::ErrorKind::NotFound => None,
            Err(err) => {
                err_message!(
                    "{}: {}: its records are made again",
                    path.display(),
                    parhash_format::error_text(&err)
                );
                None
            }
        }
    }

    /// The piece size its intact records share, if they share one.
    pub fn piece_size(&self) -> Option<u64> {
        self.index.piece_size()
    }

    /// Where `name`'s record lies, if it is intact and records the digest `expected` of a
    /// line of `tag` in pieces of `piece_size`.
    pub fn find(
        &self,
        name: &[u8],
        tag: &str,
        expected: &[u8],
        piece_size: u64,
    ) -> Option<(u64, u64)> {
        let indexed = self.index.get(name)?;
        let record = &indexed.record;
        let agrees = indexed.intact
            && record.tag == tag
            && record.digest == expected
            && record.piece_size == piece_size;
        agrees.then_some((indexed.offset, indexed.len))
    }

    /// The bytes of the record [`OldPieces::find`] found.
    pub fn copy(&self, (offset, len): (u64, u64), out: &mut Vec<u8>) -> io::Result<()> {
        let start = out.len();
        out.resize(start + len as usize, 0);
        read_at(&self.file, &mut out[start..], offset)
    }
}

/// `buf.len()` bytes of `file` from `offset`.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = file;
        file.seek(SeekFrom::Start(offset))?;
        file.read_exact(buf)
    }
}

/// The record of each kept entry of a list being continued or brought up to date: copied
/// from the old piece list where it agrees with the entry's line, else made again
/// ([`PieceSum::rebuild`]).
pub struct KeptPieces {
    sum: PieceSum,
    hashing: HashOptions,
    old: Option<OldPieces>,
    /// The list's algorithm's place in `sum`'s, the algorithm and how its lines are written.
    at: usize,
    algorithm: Algorithm,
    style: LineStyle,
    /// Entries whose record was made again, for the closing note.
    rebuilt: u64,
}

impl KeptPieces {
    /// For the list whose old piece list is at `path` (none there: every record is made
    /// again), its lines written with `algorithms[at]` in `style`.
    pub fn new(
        sum: &PieceSum,
        hashing: &HashOptions,
        path: &Path,
        (at, algorithm, style): (usize, Algorithm, LineStyle),
    ) -> KeptPieces {
        KeptPieces {
            sum: sum.clone(),
            hashing: hashing.clone(),
            old: OldPieces::open(path),
            at,
            algorithm,
            style,
            rebuilt: 0,
        }
    }

    /// Appends the record of the list's kept line `line` (nothing for a line that records no
    /// hashed file).
    pub fn append(&mut self, line: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
        let Some(entry) = parhash_format::resume::own_entry(line, self.algorithm, self.style)
        else {
            return Ok(());
        };
        let (name, expected) = (&entry.name, entry.digest.as_bytes());
        let tag = &self.sum.tags[self.at];
        let found = (self.old.as_ref())
            .and_then(|old| Some((old, old.find(name, tag, expected, self.sum.piece_size)?)));
        if let Some((old, span)) = found {
            return old.copy(span, out);
        }
        self.rebuilt += 1;
        let rebuilt = (self.sum).rebuild(self.at, self.algorithm, &self.hashing, name, expected);
        out.extend_from_slice(&rebuilt.unwrap_or_default());
        Ok(())
    }

    /// Says how many kept entries had no record that agreed with their line, if any.
    pub fn report(&self, path: &Path) {
        if self.rebuilt > 0 {
            err_message!(
                "{}: {} listed files had no record that agrees with the list (missing, \
                 damaged, of another list or piece size): their pieces were hashed again",
                path.display(),
                self.rebuilt
            );
        }
    }
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
                if !located.intact {
                    out.message(&format!(
                        "{}: the piece list of {name} is damaged: cannot locate",
                        self.shown()
                    ));
                } else if matched != located.damaged.runs.is_empty()
                    || located.damaged.size != indexed.record.file_size && matched
                {
                    // A file that matches its line with pieces that differ, or one that
                    // fails with every piece as listed: the piece list is not that of the
                    // file the line describes.
                    out.message(&format!(
                        "{}: the piece list of {name} does not agree with the list's line (damaged): cannot locate",
                        self.shown()
                    ));
                } else if !matched {
                    return list_check.checked_located(job, &outcome, &located.damaged, out);
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
    ) -> io::Result<Reading> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        let mut list = File::open(&self.path)?;
        list.seek(io::SeekFrom::Start(indexed.offset))?;
        let mut reader = PieceReader::at(BufReader::new(list), indexed.offset);
        let intact = matches!(reader.next_record()?, Some((r, _)) if r == indexed.record);
        let record = &indexed.record;
        let mut damaged = Located {
            piece_size: record.piece_size,
            size: len,
            listed_size: record.file_size,
            ..Located::default()
        };
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
        Ok(Reading {
            whole: digests.into_iter().next(),
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
                .damaged
                .size
                .max(indexed.record.file_size)
                .div_ceil(indexed.record.piece_size),
            changed: located.damaged.count,
            bytes: located.damaged.bytes(),
        })
    }
}

/// What one read of a file against its piece list found.
struct Reading {
    whole: Option<Output>,
    /// The pieces that differ, and the file's length now.
    damaged: Located,
    /// The piece list's record read back intact.
    intact: bool,
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
    fn sizes_read() {
        assert_eq!(size_text(3 << 20), "3 MiB");
        assert_eq!(size_text(1536 << 20), "1.5 GiB");
        assert_eq!(size_text(5), "5 bytes");
    }
}
