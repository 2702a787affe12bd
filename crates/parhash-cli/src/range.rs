//! Outboards and byte ranges: `sum --outboard` (each file's BLAKE3 outboard written in the
//! read that hashes it), `sum --range` (the digests of a byte range) and `check --range` (a
//! range verified against a list's BLAKE3 digest with the file's outboard, reading only the
//! range). The outboard format and the verification are the library's (`parhash::outboard`);
//! this file finds the files, writes them atomically and reports.

use std::ffi::OsString;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use parhash::file::{FileChangedSize, FileVersion, MultiHasher};
use parhash::outboard::{encode_mapped, ChunkGroup, Encoder};
use parhash::{Algorithm, Blake3Mode, Output};
use parhash_format::check::{Checker, Record, Sink};
use parhash_format::escape;
use parhash_format::list_file::{replace, temporary};
use parhash_format::range::{outboard_path, verify_line, Outboards};

use crate::check::{self, Terminal};
use crate::flags::range::ByteRange;
use crate::flags::{CheckArgs, HashOptions, SumArgs};
use crate::input::{builder_for, Source};
use crate::many::{self, Item, Outcome};
use crate::progress::ManyProgress;

/// Refuses `sum --outboard` without BLAKE3 among the algorithms, or with a BLAKE3 that is not
/// the plain hash of 32 bytes (the outboard is that tree's).
pub fn check_sum_flags(algorithms: &[Algorithm], args: &SumArgs) -> Result<()> {
    if args.ranges.outboard.is_none() {
        return Ok(());
    }
    if !algorithms.contains(&Algorithm::Blake3) {
        bail!("--outboard writes BLAKE3's tree: add -a blake3 (other algorithms may go with it)");
    }
    if args.hashing.blake3_mode != Blake3Mode::Hash {
        bail!("--outboard is for BLAKE3's plain hash, not --keyed or --derive-key");
    }
    if args
        .hashing
        .digest_size(Algorithm::Blake3)
        .is_some_and(|size| size != 32)
    {
        bail!("--outboard is the tree of BLAKE3's 32-byte digest: leave out -l");
    }
    Ok(())
}

/// Hashes `items` for `sum` as [`many::run`] does, except with `--range` (each file's range)
/// or `--outboard` (each file with its outboard written in the same read), one file after the
/// other: every outcome handed to `emit` as soon as it is known.
pub fn hash_items(
    algorithms: &[Algorithm],
    items: impl Iterator<Item = Item>,
    args: &SumArgs,
    progress: &ManyProgress,
    mut emit: impl FnMut(Vec<Outcome>) -> Result<()>,
) -> Result<()> {
    let flags = &args.ranges;
    if let Some(range) = flags.range {
        for item in items {
            emit(vec![hash_range(algorithms, item, range, &args.hashing)])?;
        }
        return Ok(());
    }
    let Some(dir) = &flags.outboard else {
        return many::run(algorithms, items, &args.hashing, progress, emit);
    };
    let group = flags.chunk_group.unwrap_or_default();
    for item in items {
        let outcome = match item {
            Item::Hash {
                name,
                source: Source::Stdin,
                ..
            } => {
                let err = io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "an outboard needs a regular file (the tree's shape needs its length first)",
                );
                (name, Err(err))
            }
            Item::Hash {
                name,
                source: Source::Path(path),
                ..
            } => {
                let result = outboard_path(&path, Path::new(dir), group).and_then(|outboard| {
                    hash_with_outboard(algorithms, &path, &outboard, group, &args.hashing)
                });
                (name, result)
            }
            Item::Failed { name, error } => (name, Err(error)),
        };
        emit(vec![outcome])?;
    }
    Ok(())
}

/// `items` without the outboards `-r` walks into where `sum --outboard` writes them: they
/// are not data (and appear while the walk goes on).
pub fn without_outboards(
    items: impl Iterator<Item = Item>,
    args: &SumArgs,
) -> impl Iterator<Item = Item> {
    let writing = args.ranges.outboard.is_some();
    items.filter(move |item| {
        !matches!(item, Item::Hash { walked: true, name, .. } if writing && is_outboard_name(name))
    })
}

/// Whether a file `-r` walks into is an outboard (or one being written): it is not data.
fn is_outboard_name(name: &[u8]) -> bool {
    let name = name.strip_suffix(b".tmp").unwrap_or(name);
    let Some(at) = name.windows(5).rposition(|w| w == b".obao") else {
        return false;
    };
    let k = &name[at + 5..];
    k.is_empty() || (k.len() <= 2 && k.iter().all(u8::is_ascii_digit))
}

/// Hashes the file at `path` with every algorithm and writes its outboard to `outboard`
/// (through `OUTBOARD.tmp`, renamed once complete and synced), all from one read: the library's
/// file engine reads it (maps, reads, a sparse file's holes from memory) and feeds the encoder
/// while the other algorithms hash the same bytes. BLAKE3's digest is the outboard's root.
fn hash_with_outboard(
    algorithms: &[Algorithm],
    path: &Path,
    outboard: &Path,
    group: ChunkGroup,
    options: &HashOptions,
) -> io::Result<Vec<Output>> {
    let file = File::open(path)?;
    let version = FileVersion::of(&file).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "an outboard needs a regular file",
        )
    })?;
    let len = version.len();
    if let Some(parent) = outboard.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)?;
    }
    let tmp = temporary(outboard);
    let written = (|| -> io::Result<Vec<Output>> {
        let sink = File::create(&tmp)?;
        // BLAKE3 alone from a map: the outboard's units hashed in place on every thread, as
        // the engine hashes the digest alone; otherwise in order, in the engine's one read.
        let alone = algorithms.iter().all(|&alg| alg == Algorithm::Blake3);
        let (read, maps) = (options.read, !options.no_mmap);
        let mapped = if alone {
            encode_mapped(&file, len, group, options.threads, read, maps, &sink)?
        } else {
            None
        };
        let (root, others) = match mapped {
            Some(root) => (root, Vec::new()),
            None => {
                let mut encoder = Encoder::with_sink(&sink, len, group).threads(options.threads);
                let others = (algorithms.iter().filter(|&&alg| alg != Algorithm::Blake3))
                    .map(|&alg| builder_for(alg, options));
                let engine = MultiHasher::new(others)
                    .read_strategy(options.read)
                    .memory_maps(!options.no_mmap);
                let others = engine.hash_file_feeding(&file, |offset, bytes| {
                    // A file that was empty when opened is read to its end: one that grew
                    // since is the engine's error for a file that changed size, not the
                    // encoder's.
                    if offset + bytes.len() as u64 > len {
                        return Err(io::Error::other(FileChangedSize {
                            expected: len,
                            found: None,
                        }));
                    }
                    encoder.update(bytes)
                })?;
                (encoder.finalize()?.0, others)
            }
        };
        version.check(&file)?;
        sink.sync_all()?;
        let mut others = others.into_iter();
        let digests = algorithms.iter().map(|&alg| match alg {
            Algorithm::Blake3 => Output::from_slice(&root),
            _ => others.next().expect("one digest per other algorithm"),
        });
        Ok(digests.collect())
    })();
    match written {
        Ok(digests) => {
            replace(&tmp, outboard)?;
            Ok(digests)
        }
        Err(err) => {
            let _ = fs::remove_file(&tmp);
            Err(err)
        }
    }
}

/// `sum --range`: the digests of `range` of one input, reading only that range, under the
/// input's name followed by ` (bytes A-B)`.
fn hash_range(
    algorithms: &[Algorithm],
    item: Item,
    range: ByteRange,
    options: &HashOptions,
) -> Outcome {
    let (mut name, result) = match item {
        Item::Failed { name, error } => (name, Err(error)),
        Item::Hash { name, source, .. } => {
            let result = range_reader(&source, range).and_then(|reader| {
                let builders = algorithms.iter().map(|&alg| builder_for(alg, options));
                MultiHasher::new(builders).hash_reader(reader)
            });
            (name, result)
        }
    };
    name.extend_from_slice(format!(" ({})", range.describe()).as_bytes());
    (name, result)
}

/// A reader of `range` of `source`: a file seeked to it (an error past the end), or standard
/// input with the bytes before it skipped.
fn range_reader(source: &Source, range: ByteRange) -> io::Result<Box<dyn Read + Send>> {
    match source {
        Source::Stdin => {
            let mut stdin = io::stdin();
            let skipped = io::copy(&mut (&mut stdin).take(range.offset), &mut io::sink())?;
            if skipped < range.offset {
                return Err(past_end(range, skipped));
            }
            Ok(Box::new(stdin.take(range.len)))
        }
        Source::Path(path) => {
            let mut file = File::open(path)?;
            let len = file.metadata()?.len();
            if range.offset + range.len > len {
                return Err(past_end(range, len));
            }
            file.seek(SeekFrom::Start(range.offset))?;
            Ok(Box::new(ExactRange {
                file,
                left: range.len,
                len: range.len,
            }))
        }
    }
}

fn past_end(range: ByteRange, len: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "the range {}:{} goes past the end of the file ({len} bytes)",
            range.offset, range.len
        ),
    )
}

/// A range of a file that must give all its bytes: a file cut short meanwhile is an error,
/// not the digest of fewer bytes.
struct ExactRange {
    file: File,
    left: u64,
    len: u64,
}

impl Read for ExactRange {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Ok(0);
        }
        let want = buf
            .len()
            .min(usize::try_from(self.left).unwrap_or(usize::MAX));
        let got = self.file.read(&mut buf[..want])?;
        if got == 0 {
            return Err(io::Error::other(FileChangedSize {
                expected: self.len,
                found: Some(self.len - self.left),
            }));
        }
        self.left -= got as u64;
        Ok(got)
    }
}

/// `check --range`: every BLAKE3 line's range verified with its file's outboard; the lists as
/// `check` reads them, the summary as `check` gives it. `Ok(false)` if anything failed.
pub fn check(args: &CheckArgs) -> Result<bool> {
    let range = args.ranges.range.expect("check --range");
    if let Some(refusal) = range.check_refusal() {
        bail!(refusal);
    }
    if args.hashing.blake3_mode != Blake3Mode::Hash {
        bail!(
            "--range verifies BLAKE3's plain hash with its outboard, not --keyed or --derive-key"
        );
    }
    // Untagged lines are BLAKE3's here (their 64 hex digits would otherwise say sha256).
    if args.algorithm.is_some_and(|alg| alg != Algorithm::Blake3) {
        bail!("--range verifies BLAKE3 lines with their outboards: leave out -a or give -a blake3");
    }
    let options = check::Options {
        algorithm: Some(Algorithm::Blake3),
        ..check::Options::from(args)
    };
    let mut checker = Checker::new(options.check_options());
    let mut out = Terminal {
        out: crate::stdio::stdout(),
    };
    let no_dir = PathBuf::new();
    let outboards = Outboards {
        dir: args.ranges.outboard.as_ref().unwrap_or(&no_dir),
        chunk_group: args.ranges.chunk_group,
    };
    let stdin_only = [OsString::from("-")];
    let lists = if args.files.is_empty() {
        &stdin_only[..]
    } else {
        &args.files[..]
    };
    let mut all_ok = true;
    for list in lists {
        let mut list_check = checker.start(&escape::os_bytes(list));
        let mut reader: Box<dyn BufRead> = if list == "-" {
            Box::new(BufReader::new(io::stdin()))
        } else {
            match File::open(list) {
                Ok(file) => Box::new(BufReader::new(file)),
                Err(err) => {
                    all_ok &= checker.open_failed(list_check, &err, &mut out)?;
                    continue;
                }
            }
        };
        let mut buffer = Vec::new();
        let mut read_failed = None;
        loop {
            match list_check.next_record(&mut reader, &mut buffer) {
                Ok(None) => break,
                Ok(Some(Record::Skip)) => {}
                Ok(Some(Record::Improper(improper))) => list_check.improper(&improper, &mut out)?,
                Ok(Some(Record::Check(job))) => {
                    let entry = &job.entry;
                    let checked = verify_line(
                        entry.algorithm,
                        &entry.expected,
                        &entry.name,
                        range,
                        outboards,
                    );
                    if let Some(damage) = &checked.damage {
                        out.message(damage);
                    }
                    let outcome = checked.outcome;
                    let note = range.describe();
                    list_check.checked_noting(&job, &outcome, Some(&note), &mut out)?;
                }
                Err(err) => {
                    read_failed = Some(err);
                    break;
                }
            }
        }
        all_ok &= match read_failed {
            Some(err) => checker.read_failed(list_check, &err, &mut out)?,
            None => checker.finish(list_check, &mut out)?,
        };
    }
    out.out.flush()?;
    Ok(all_ok)
}
