//! `parhash sum`: print checksum lines, as coreutils' sha256sum does; with several
//! algorithms (`-a md5,sha256`), every file read once for all of them, their lines on
//! standard output, in one list per algorithm (`--lists`) or in one JSON object per file.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use parhash::{Algorithm, Output};

use crate::check;
use crate::flags::{Device, SumArgs, DEFAULT_ALGORITHM};
use crate::input::Source;
use crate::list_file::{self, Planned};
use crate::locate::{FilePieces, KeptPieces, OldPieces, PieceSum};
use crate::many;
use crate::messages::{err_message, report_failure, WRITE_ERROR};
use crate::progress::ManyProgress;
use crate::stdio;
use parhash_format::escape;
use parhash_format::line::{write_failure, write_line, LineStyle};
use parhash_format::list_file::{replace, temporary, Durable, ListLock, OwnFiles, Target};
use parhash_format::meta::{self, Meta};
use parhash_format::order::InputOrder;
use parhash_format::pieces;

/// Runs `parhash sum`; `Ok(false)` when some file could not be hashed.
pub fn run(args: &SumArgs) -> Result<bool> {
    if args.check {
        let options = check::Options {
            algorithm: args.algorithm(),
            verify: args.verify.clone(),
            output: args.output.clone(),
            hashing: args.hashing.clone(),
            locate: false,
        };
        return check::run(&options, &args.files);
    }
    if args.multipart.any() {
        return crate::multipart::run(args);
    }
    let mut algorithms = args.algorithms();
    if algorithms.is_empty() {
        algorithms.push(
            Algorithm::from_name(DEFAULT_ALGORITHM)
                .context("the default algorithm is not in this build; choose one with -a")?,
        );
    }
    let stdin_only = [OsString::from("-")];
    let files = if args.files.is_empty() {
        &stdin_only[..]
    } else {
        &args.files[..]
    };
    crate::range::check_sum_flags(&algorithms, args)?;
    let algorithm = algorithms[0];
    #[cfg(feature = "gpu")]
    if args.device == Device::Auto && algorithms.len() == 1 {
        if let Some(done) = crate::gpu::run_auto(algorithm, files, args, style_for(algorithm, args))
        {
            return done;
        }
    }
    if args.device == Device::Gpu {
        #[cfg(feature = "gpu")]
        return crate::gpu::run(algorithm, files, args, style_for(algorithm, args));
        #[cfg(not(feature = "gpu"))]
        anyhow::bail!(
            "this parhash was built without the GPU back-end (cargo feature `gpu`); \
             install it with default features: cargo install --locked --path crates/parhash-cli"
        );
    }

    if args.recursive
        || files.len() > 1
        || algorithms.len() > 1
        || args.lists.is_some()
        || args.output_file.is_some()
        || args.ranges.any()
        || args.pieces.pieces.is_some()
    {
        return run_many(&algorithms, files, args);
    }
    let style = style_for(algorithm, args);
    let mut stdout = stdio::stdout();
    let mut line = Vec::with_capacity(256);
    let mut all_ok = true;
    for file in files {
        let name = escape::os_bytes(file);
        let source = if name.as_ref() == b"-" {
            Source::Stdin
        } else {
            Source::Path(file.into())
        };
        match crate::input::hash_source(algorithm, &source, &args.hashing) {
            Ok(digest) => {
                line.clear();
                write_line(&mut line, algorithm, &digest, &name, style);
                stdout.write_all(&line).context(WRITE_ERROR)?;
            }
            Err(err) => {
                line.clear();
                write_failure(&mut line, algorithm, &name, &err, style);
                stdout.write_all(&line).context(WRITE_ERROR)?;
                report_failure(&name, &err);
                all_ok = false;
            }
        }
    }
    stdout.flush().context(WRITE_ERROR)?;
    Ok(all_ok)
}

/// How `alg`'s lines are written: as the flags say, with PARSHA-256's parameters in its tag.
fn style_for(alg: Algorithm, args: &SumArgs) -> LineStyle {
    LineStyle {
        tag: args.tag,
        binary: args.binary,
        zero: args.output.zero,
        parsha: alg.takes_tree_params().then(|| args.hashing.tree_params()),
        json: args.output.json,
        base64: args.base64,
        raw: args.raw,
        unnamed: args.files.is_empty(),
    }
}

/// Where `sum`'s records go.
enum Records {
    /// Standard output: each algorithm's lines (BSD lines when there are several), or JSON.
    Stdout { out: stdio::Stdout, lines: Vec<u8> },
    /// One list per algorithm (`--lists`), in the order of the algorithms, and with
    /// `--pieces` the piece list beside each (in the same order; none without).
    Lists(Vec<Written>, Vec<Written>),
    /// `-o FILE`: what standard output would get, and the side file of metadata (none for a
    /// device or a pipe).
    File {
        list: Written,
        side: Option<Written>,
        /// `--pieces`' piece list.
        pieces: Option<Written>,
        /// Where the records of the entries kept from the list (`--update`) come from.
        kept: Option<Box<KeptPieces>>,
    },
}

/// A file `sum` writes durably (`-o`'s list and side file, each list of `--lists`), and what
/// was gathered for it since it was last written.
struct Written {
    file: Durable,
    lines: Vec<u8>,
}

impl Written {
    fn new(file: Durable) -> Written {
        Written {
            file,
            lines: Vec::with_capacity(64 * 1024),
        }
    }

    /// Hands what was gathered to the kernel in one write (a killed run loses none of it).
    fn write(&mut self) -> Result<()> {
        self.file.write(&self.lines)?;
        self.lines.clear();
        Ok(())
    }

    /// Forces what was written to the disk.
    fn sync(&mut self) -> Result<()> {
        Ok(self.file.sync()?)
    }
}

impl Records {
    /// Standard output, or the lists of `--lists` (created, empty, before anything is hashed).
    fn open(algorithms: &[Algorithm], args: &SumArgs, with_pieces: bool) -> Result<Records> {
        if args.lists.is_none() {
            return Ok(Records::Stdout {
                out: stdio::stdout(),
                lines: Vec::with_capacity(64 * 1024),
            });
        }
        Records::lists(&list_paths(algorithms, args)?, with_pieces)
    }

    /// The lists of `--lists` at `paths`, written as `-o`'s list is ([`Durable`]): created
    /// empty, and with `with_pieces` a piece list beside each.
    fn lists(paths: &[PathBuf], with_pieces: bool) -> Result<Records> {
        let lists = paths.iter().map(|path| Durable::create(path));
        let lists = lists
            .map(|list| list.map(Written::new))
            .collect::<Result<_, _>>()?;
        let pieces = (paths.iter().filter(|_| with_pieces))
            .map(|path| PieceSum::create(&pieces::side_path(path)).map(Written::new))
            .collect::<Result<_>>()?;
        Ok(Records::Lists(lists, pieces))
    }

    /// Appends what `sum` writes for one file (its error, if any, goes to standard error
    /// once), and passes it on.
    fn record(
        &mut self,
        algorithms: &[Algorithm],
        args: &SumArgs,
        name: &[u8],
        result: &io::Result<Vec<Output>>,
        meta: Option<&Meta>,
        hashed: Option<(&PieceSum, &FilePieces)>,
    ) -> Result<()> {
        match (self, result.as_ref()) {
            (Records::Lists(lists, piece_lists), Ok(digests)) => {
                for ((&alg, digest), list) in algorithms.iter().zip(digests).zip(lists) {
                    write_line(&mut list.lines, alg, digest, name, style_for(alg, args));
                }
                if let Some((sum, hashed)) = hashed {
                    for (at, list) in piece_lists.iter_mut().enumerate() {
                        let record = sum.record(at, name, &digests[at], hashed);
                        list.lines.extend_from_slice(&record);
                    }
                }
            }
            (Records::Lists(..), Err(err)) => report_failure(name, err),
            (Records::Stdout { lines, .. }, Ok(digests)) => match hashed {
                Some((sum, hashed)) => parhash_format::json::sum_pieces(
                    lines,
                    algorithms,
                    digests,
                    name,
                    Some(args.hashing.tree_params()),
                    (sum.piece_size(), &hashed.digests),
                ),
                None => stream_lines(lines, algorithms, args, name, Ok(digests)),
            },
            (
                Records::File {
                    list, side, pieces, ..
                },
                Ok(digests),
            ) => {
                stream_lines(&mut list.lines, algorithms, args, name, Ok(digests));
                if let (Some(side), Some(meta)) = (side, meta) {
                    meta::write_record(&mut side.lines, name, meta);
                }
                if let (Some(pieces), Some((sum, hashed))) = (pieces, hashed) {
                    let record = sum.record(0, name, &digests[0], hashed);
                    pieces.lines.extend_from_slice(&record);
                }
            }
            (records, Err(err)) => {
                if let Records::Stdout { lines, .. }
                | Records::File {
                    list: Written { lines, .. },
                    ..
                } = records
                {
                    stream_lines(lines, algorithms, args, name, Err(err));
                }
                // Lines before the error reach their stream before it reaches standard
                // error, as in the one-by-one loop.
                records.pass_on()?;
                report_failure(name, err);
            }
        }
        Ok(())
    }

    /// A record of the old list kept as it is (`--update`), with its metadata if recorded
    /// and its piece list record where there is a piece list.
    fn keep(&mut self, name: &[u8], record: &[u8], meta: Option<&Meta>) -> Result<()> {
        if let Records::File {
            list,
            side,
            pieces,
            kept,
        } = self
        {
            list.lines.extend_from_slice(record);
            if let (Some(side), Some(meta)) = (side, meta) {
                meta::write_record(&mut side.lines, name, meta);
            }
            if let (Some(pieces), Some(kept)) = (pieces, kept) {
                kept.append(record, &mut pieces.lines)?;
            }
        }
        Ok(())
    }

    /// Writes what was gathered: standard output flushed at once (a reader downstream never
    /// waits), the files of `-o` and `--lists` handed to the kernel in one write each.
    fn pass_on(&mut self) -> Result<()> {
        match self {
            Records::Stdout { out, lines } => hand_on(out, lines),
            Records::Lists(lists, pieces) => {
                pieces.iter_mut().try_for_each(Written::write)?;
                lists.iter_mut().try_for_each(Written::write)
            }
            Records::File {
                list, side, pieces, ..
            } => {
                // The side files first: whatever a crash leaves, they cover the list's entries.
                side.iter_mut().try_for_each(Written::write)?;
                pieces.iter_mut().try_for_each(Written::write)?;
                list.write()
            }
        }
    }

    /// `-o FILE`'s list and side file.
    fn file(list: Durable, side: Durable) -> Records {
        Records::File {
            list: Written::new(list),
            side: Some(Written::new(side)),
            pieces: None,
            kept: None,
        }
    }

    /// Standard output flushed; the files of `-o` and `--lists` forced to the disk (and kept
    /// open, so locked, until dropped).
    fn finish(&mut self) -> Result<()> {
        match self {
            Records::Stdout { out, .. } => out.flush().context(WRITE_ERROR),
            Records::File {
                list, side, pieces, ..
            } => {
                side.iter_mut().try_for_each(Written::sync)?;
                pieces.iter_mut().try_for_each(Written::sync)?;
                list.sync()
            }
            Records::Lists(lists, pieces) => {
                pieces.iter_mut().try_for_each(Written::sync)?;
                lists.iter_mut().try_for_each(Written::sync)
            }
        }
    }
}

/// The lists of `--lists`, in the order of the algorithms.
fn list_paths(algorithms: &[Algorithm], args: &SumArgs) -> Result<Vec<PathBuf>> {
    let dir = args.lists.as_deref().unwrap_or(std::path::Path::new("."));
    parhash_format::list_file::list_paths(dir, args.list_name.as_deref(), algorithms)
        .map_err(anyhow::Error::msg)
}

/// Appends what standard output gets for one file: its lines, or its JSON record (with
/// several algorithms, BSD lines or one JSON object), or for a failure nothing but JSON's.
fn stream_lines(
    lines: &mut Vec<u8>,
    algorithms: &[Algorithm],
    args: &SumArgs,
    name: &[u8],
    result: Result<&Vec<Output>, &io::Error>,
) {
    let several = algorithms.len() > 1;
    let parsha = Some(args.hashing.tree_params());
    match result {
        Ok(digests) if several && args.output.json => {
            parhash_format::json::sum_digests(lines, algorithms, Ok(digests), name, parsha);
        }
        Ok(digests) => {
            for (&alg, digest) in algorithms.iter().zip(digests) {
                // Several algorithms' lines on one stream say which is which: BSD lines.
                let style = LineStyle {
                    tag: args.tag || (several && !args.untagged),
                    ..style_for(alg, args)
                };
                write_line(lines, alg, digest, name, style);
            }
        }
        Err(err) if several && args.output.json => {
            parhash_format::json::sum_digests(lines, algorithms, Err(err), name, parsha);
        }
        Err(err) if !several => {
            write_failure(
                lines,
                algorithms[0],
                name,
                err,
                style_for(algorithms[0], args),
            );
        }
        Err(_) => {}
    }
}

/// `sum` over many files (or `-r`, or several algorithms): through the multi-message engine
/// (`many`), output byte for byte what the one-by-one loop above prints, in the same order on
/// both streams. Lines are written (and flushed) as soon as the engine hands them on, and the
/// inputs go to the engine in chunks sized so that it hands them on within about [`PROMPT`]
/// ([`next_chunk_len`]): a reader downstream never waits for a large window of finished
/// lines.
fn run_many(algorithms: &[Algorithm], files: &[OsString], args: &SumArgs) -> Result<bool> {
    let items = many::items_for(files, args.recursive).map(closed_stdin_fails);
    let items = crate::range::without_outboards(items, args);
    if args.lists.is_some() {
        // The lists being written are not data, should they lie in the tree.
        let paths = list_paths(algorithms, args)?;
        let own = OwnFiles::lists(&paths);
        let items = list_file::without(items, own);
        let sum = piece_sum(algorithms, args, &paths[0]);
        if args.resume {
            return resume_lists(algorithms, files, args, items, sum.as_ref());
        }
        let mut records = Records::open(algorithms, args, sum.is_some())?;
        let plan = items.map(|item| Ok(Planned::Hash(item, None)));
        return hash_planned(algorithms, files, args, &mut records, plan, sum.as_ref());
    }
    let Some(given) = &args.output_file else {
        anyhow::ensure!(
            args.pieces.pieces.is_none() || args.output.json,
            "--pieces: give -o LIST or --lists DIR (a piece list beside each list), \
             or --json (each file's pieces in its record)"
        );
        let sum = PieceSum::new(args.pieces.pieces, algorithms, &args.hashing);
        let mut records = Records::open(algorithms, args, false)?;
        let plan = items.map(|item| Ok(Planned::Hash(item, None)));
        return hash_planned(algorithms, files, args, &mut records, plan, sum.as_ref());
    };
    let target = Target::of(given);
    if args.resume || args.update {
        let flag = if args.update { "--update" } else { "--resume" };
        target.again(flag).map_err(anyhow::Error::msg)?;
    }
    let mut items = list_file::without_own_files(items, given);
    let path = target.path();
    if !target.is_file() {
        // A device or a pipe: the lines, written once.
        let list = Written::new(Durable::create(path)?);
        anyhow::ensure!(
            args.pieces.pieces.is_none(),
            "--pieces: -o names no regular file"
        );
        let mut records = Records::File {
            list,
            side: None,
            pieces: None,
            kept: None,
        };
        let plan = items.map(|item| Ok(Planned::Hash(item, None)));
        return hash_planned(algorithms, files, args, &mut records, plan, None);
    }
    let sum = piece_sum(algorithms, args, path);
    // --update where there is no list yet writes one.
    if args.update && path.exists() {
        return update(
            algorithms[0],
            files,
            args,
            (given, path),
            items,
            sum.as_ref(),
        );
    }
    let side_path = meta::side_path(path);
    // --resume where there is no list yet starts one: the same command line every time.
    if !(args.resume && path.exists()) {
        let mut records = Records::file(Durable::create(path)?, new_side_file(&side_path)?);
        if let (Records::File { pieces, .. }, Some(_)) = (&mut records, &sum) {
            *pieces = Some(Written::new(PieceSum::create(&pieces::side_path(path))?));
        }
        let plan = with_meta(items);
        return hash_planned(algorithms, files, args, &mut records, plan, sum.as_ref());
    }
    // Locked before it is read: no other run writes it between.
    let mut list = Durable::open(path)?;
    let style = style_for(algorithms[0], args);
    let lists = [(path.to_path_buf(), algorithms[0], style)];
    let resumed = list_file::resume(&lists, Some(&side_path), &mut items)?;
    let all_ok = report_resumed(&resumed);
    let side = if resumed.meta_len == 0 {
        new_side_file(&side_path)?
    } else {
        Durable::continue_at(&side_path, resumed.meta_len)?
    };
    list.cut(resumed.list_lens[0])?;
    let rest = resumed.first.into_iter().chain(items);
    let mut records = Records::file(list, side);
    if let (Records::File { pieces, .. }, Some(sum)) = (&mut records, &sum) {
        let kept = (0, algorithms[0], style);
        *pieces = Some(carry_pieces(path, resumed.list_lens[0], sum, args, kept)?);
    }
    let plan = with_meta(rest);
    Ok(hash_planned(algorithms, files, args, &mut records, plan, sum.as_ref())? && all_ok)
}

/// The piece lists `sum` writes: with `--pieces`, or with `--resume` and `--update` of a list
/// that has one (at the size its records share; 1 MiB where they share none), so that a
/// list brought on keeps its piece list consistent. `None` otherwise.
fn piece_sum(algorithms: &[Algorithm], args: &SumArgs, list: &std::path::Path) -> Option<PieceSum> {
    let size = args.pieces.pieces.or_else(|| {
        let side = pieces::side_path(list);
        let again = (args.resume || args.update) && list.exists() && side.exists();
        again.then(|| {
            let old = OldPieces::open(&side);
            old.and_then(|old| old.piece_size())
                .unwrap_or(pieces::DEFAULT_PIECE_SIZE)
        })
    });
    PieceSum::new(size, algorithms, &args.hashing)
}

/// `--resume`: the piece list of the list at `list`, whose first `len` bytes are kept, made
/// again with a record for each kept line (copied from the old piece list where one agrees
/// with the line, hashed again where none does), in a temporary file renamed over it; the
/// run writes the new files' records on after them.
fn carry_pieces(
    list: &std::path::Path,
    len: u64,
    sum: &PieceSum,
    args: &SumArgs,
    line: (usize, Algorithm, parhash_format::line::LineStyle),
) -> Result<Written> {
    let path = pieces::side_path(list);
    let tmp = temporary(&path);
    let mut kept = KeptPieces::new(sum, &args.hashing, &path, line);
    let mut out = Written::new(PieceSum::create(&tmp)?);
    let terminator = if line.2.zero { 0 } else { b'\n' };
    let reader = std::io::BufReader::new(std::fs::File::open(list)?).take(len);
    let written = (|| -> Result<()> {
        for record in parhash_format::resume::Records::new(reader, terminator) {
            kept.append(&record?.bytes, &mut out.lines)?;
            if out.lines.len() >= 1 << 20 {
                out.write()?;
            }
        }
        out.write()?;
        out.sync()?;
        replace(&tmp, &path)?;
        Ok(())
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written?;
    kept.report(&path);
    Ok(out)
}

/// `--lists DIR --resume`: every list continued from the files they all have.
fn resume_lists(
    algorithms: &[Algorithm],
    files: &[OsString],
    args: &SumArgs,
    mut items: impl Iterator<Item = many::Item>,
    sum: Option<&PieceSum>,
) -> Result<bool> {
    let paths = list_paths(algorithms, args)?;
    if !paths.iter().all(|path| path.exists()) {
        let mut records = Records::lists(&paths, sum.is_some())?;
        let plan = items.map(|item| Ok(Planned::Hash(item, None)));
        return hash_planned(algorithms, files, args, &mut records, plan, sum);
    }
    // Locked before they are read: no other run writes them between.
    let mut opened =
        (paths.iter().map(|path| Durable::open(path))).collect::<Result<Vec<_>, _>>()?;
    let lists: Vec<_> = (paths.iter().zip(algorithms))
        .map(|(path, &alg)| (path.clone(), alg, style_for(alg, args)))
        .collect();
    let resumed = list_file::resume(&lists, None, &mut items)?;
    let all_ok = report_resumed(&resumed);
    for (list, &len) in opened.iter_mut().zip(&resumed.list_lens) {
        list.cut(len)?;
    }
    let mut piece_lists = Vec::new();
    if let Some(sum) = sum {
        let kept = lists.iter().zip(&resumed.list_lens).enumerate();
        for (at, ((path, alg, style), &len)) in kept {
            piece_lists.push(carry_pieces(path, len, sum, args, (at, *alg, *style))?);
        }
    }
    let opened = opened.into_iter().map(Written::new).collect();
    let mut records = Records::Lists(opened, piece_lists);
    let rest = resumed.first.into_iter().chain(items);
    let plan = rest.map(|item| Ok(Planned::Hash(item, None)));
    Ok(hash_planned(algorithms, files, args, &mut records, plan, sum)? && all_ok)
}

/// Reports what resuming found: lines written again, files that still cannot be read.
/// `false` if there are any of those.
fn report_resumed(resumed: &list_file::Resumed) -> bool {
    for (path, line) in &resumed.torn {
        err_message!(
            "{}: line {line} is incomplete or unreadable: written again",
            path.display()
        );
    }
    for (name, err) in &resumed.still_failing {
        report_failure(name, err);
    }
    resumed.still_failing.is_empty()
}

/// Every item hashed, with its metadata for the side file.
fn with_meta(items: impl Iterator<Item = many::Item>) -> impl Iterator<Item = Result<Planned>> {
    items.map(|item| {
        let meta = list_file::meta_of(&item);
        Ok(Planned::Hash(item, meta))
    })
}

/// A side file with only its header.
fn new_side_file(path: &std::path::Path) -> Result<Durable> {
    let mut side = Durable::create(path)?;
    side.write(meta::HEADER)?;
    Ok(side)
}

/// `--update`: the new list and side file written beside the old ones, then renamed over
/// them (the list first: a crash between leaves the old metadata, which only makes files
/// look changed). `path` is the list itself, `given` what `-o` names (a link to it).
fn update(
    algorithm: Algorithm,
    files: &[OsString],
    args: &SumArgs,
    (given, path): (&std::path::Path, &std::path::Path),
    items: impl Iterator<Item = many::Item>,
    sum: Option<&PieceSum>,
) -> Result<bool> {
    // Locked before it is read, until the new list (locked too) is renamed over it.
    let _old = ListLock::new(path)?;
    let side_path = meta::side_path(path);
    let (list_tmp, side_tmp) = (temporary(path), temporary(&side_path));
    let roots = files
        .iter()
        .map(|f| escape::os_bytes(f).into_owned())
        .collect();
    let counts = std::cell::RefCell::default();
    let style = style_for(algorithm, args);
    let plan = list_file::update_plan(
        path,
        algorithm,
        style,
        roots,
        items,
        args.rehash_changed,
        &counts,
    )?;
    let mut records = Records::file(Durable::create(&list_tmp)?, new_side_file(&side_tmp)?);
    let pieces_path = pieces::side_path(path);
    let pieces_tmp = temporary(&pieces_path);
    if let (Records::File { pieces, kept, .. }, Some(sum)) = (&mut records, sum) {
        *pieces = Some(Written::new(PieceSum::create(&pieces_tmp)?));
        let line = (0, algorithm, style);
        *kept = Some(Box::new(KeptPieces::new(
            sum,
            &args.hashing,
            &pieces_path,
            line,
        )));
    }
    let hashed = hash_planned(&[algorithm], files, args, &mut records, plan, sum);
    let all_ok = match hashed {
        Ok(all_ok) => all_ok,
        Err(err) => {
            // The old list stays as it was.
            let _ = std::fs::remove_file(&list_tmp);
            let _ = std::fs::remove_file(&side_tmp);
            let _ = std::fs::remove_file(&pieces_tmp);
            return Err(err);
        }
    };
    replace(&list_tmp, path)?;
    replace(&side_tmp, &side_path)?;
    if let Records::File {
        kept: Some(kept), ..
    } = &records
    {
        // A crash before this leaves the old piece list: its records of files hashed again
        // record other digests than their new lines, and `check --locate` says so.
        replace(&pieces_tmp, &pieces_path)?;
        kept.report(&pieces_path);
    }
    // The new list's lock, kept until its side file too is in place.
    drop(records);
    let counts = counts.borrow();
    err_message!(
        "{}: updated: {} kept, {} added, {} dropped, {} hashed again",
        given.display(),
        counts.kept,
        counts.added,
        counts.dropped,
        counts.rehashed
    );
    Ok(all_ok)
}

/// Hashes the files of `plan` through the engine and writes every record in plan order, kept
/// ones between them. The inputs go to the engine in chunks sized so that it hands them on
/// within about [`PROMPT`] ([`next_chunk_len`]): a reader downstream never waits for a large
/// window of finished lines; at most [`InputOrder::MAX_WAITING`] records wait for a chunk, so
/// a plan of kept records costs no more memory than a chunk.
fn hash_planned(
    algorithms: &[Algorithm],
    files: &[OsString],
    args: &SumArgs,
    records: &mut Records,
    plan: impl Iterator<Item = Result<Planned>>,
    pieces: Option<&PieceSum>,
) -> Result<bool> {
    let total = (!args.recursive).then_some(files.len() as u64);
    let progress = ManyProgress::new(total, args.hashing.no_progress);
    let mut plan = plan.peekable();
    let mut all_ok = true;
    let mut chunk_len = MIN_CHUNK;
    // The chunk's records in order: kept ones, and the hashed files' metadata.
    let mut waiting: InputOrder<Option<Meta>, Kept> = InputOrder::new();
    while plan.peek().is_some() {
        let mut chunk: Vec<many::Item> = Vec::new();
        while chunk.len() < chunk_len && !waiting.is_full() {
            match plan.next().transpose()? {
                None => break,
                Some(Planned::Hash(item, meta)) => {
                    chunk.push(item);
                    waiting.hashed(meta);
                }
                Some(Planned::Keep { name, record, meta }) => {
                    waiting.kept(Kept { name, record, meta });
                }
            }
        }
        let hashing = !chunk.is_empty();
        let started = Instant::now();
        let mut held = None;
        if args.ranges.range.is_some() || args.ranges.outboard.is_some() {
            crate::range::hash_items(algorithms, chunk.into_iter(), args, &progress, |outcomes| {
                held.get_or_insert_with(|| started.elapsed());
                for (name, result) in outcomes {
                    write_kept(records, &mut waiting)?;
                    let meta = waiting.next_hashed();
                    all_ok &= result.is_ok();
                    records.record(algorithms, args, &name, &result, meta.as_ref(), None)?;
                }
                records.pass_on()
            })?;
        } else {
            crate::locate::run(
                algorithms,
                chunk.into_iter(),
                &args.hashing,
                &progress,
                pieces,
                |outcomes| {
                    held.get_or_insert_with(|| started.elapsed());
                    for ((name, result), hashed) in outcomes {
                        write_kept(records, &mut waiting)?;
                        let meta = waiting.next_hashed();
                        all_ok &= result.is_ok();
                        let hashed = pieces.zip(hashed.as_ref());
                        records.record(algorithms, args, &name, &result, meta.as_ref(), hashed)?;
                    }
                    records.pass_on()
                },
            )?;
        }
        // Kept records after the chunk's last file.
        write_kept(records, &mut waiting)?;
        records.pass_on()?;
        if hashing {
            chunk_len = next_chunk_len(chunk_len, held.unwrap_or_else(|| started.elapsed()));
        }
    }
    records.finish()?;
    Ok(all_ok)
}

/// A kept record of the plan waiting for the engine's chunk.
struct Kept {
    name: Vec<u8>,
    record: Vec<u8>,
    meta: Option<Meta>,
}

/// Writes the kept records at the head of `waiting`.
fn write_kept(records: &mut Records, waiting: &mut InputOrder<Option<Meta>, Kept>) -> Result<()> {
    for Kept { name, record, meta } in waiting.kept_first() {
        records.keep(&name, &record, meta.as_ref())?;
    }
    Ok(())
}

/// About how long finished lines may wait before they are written.
const PROMPT: Duration = Duration::from_millis(100);

/// The fewest inputs handed to the engine at once: enough to fill every lane of two threads
/// twice over.
const MIN_CHUNK: usize = 64;

/// The most: the engine's own window, beyond which a chunk saves nothing more.
const MAX_CHUNK: usize = 4096;

/// The next chunk's length, from the last one's and how long its first lines waited: doubled
/// while they came out well within [`PROMPT`], halved when they took longer.
fn next_chunk_len(len: usize, held: Duration) -> usize {
    if held > PROMPT {
        (len / 2).max(MIN_CHUNK)
    } else if held < PROMPT / 4 {
        (len * 2).min(MAX_CHUNK)
    } else {
        len
    }
}

/// Writes the lines gathered so far and flushes them (NUL-terminated `-z` lines too).
fn hand_on(stdout: &mut impl Write, lines: &mut Vec<u8>) -> Result<()> {
    stdout.write_all(lines).context(WRITE_ERROR)?;
    stdout.flush().context(WRITE_ERROR)?;
    lines.clear();
    Ok(())
}

/// An item of standard input the parent closed, as a failed item (see [`crate::input::hash_source`]).
fn closed_stdin_fails(item: many::Item) -> many::Item {
    match (item, stdio::stdin_error()) {
        (
            many::Item::Hash {
                name,
                source: Source::Stdin,
                ..
            },
            Some(error),
        ) => many::Item::Failed { name, error },
        (item, _) => item,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_grow_when_quick_and_shrink_when_slow() {
        let quick = Duration::from_millis(1);
        let slow = PROMPT * 3;
        assert_eq!(next_chunk_len(MIN_CHUNK, quick), 2 * MIN_CHUNK);
        assert_eq!(next_chunk_len(MAX_CHUNK, quick), MAX_CHUNK);
        assert_eq!(next_chunk_len(4 * MIN_CHUNK, slow), 2 * MIN_CHUNK);
        assert_eq!(next_chunk_len(MIN_CHUNK, slow), MIN_CHUNK);
        assert_eq!(next_chunk_len(256, PROMPT / 2), 256);
    }
}
