//! `parhash check` (and `parhash sum -c`): verify files against checksum lists.
//!
//! The format and the check run (what a record means, what to print, whether a list passed)
//! are `parhash_format::parse` and `parhash_format::check`, shared with the Python package's
//! `parhash-dist`; this file reads the lists and hashes the files. Several lists
//! (`parhash check MD5SUMS SHA256SUMS`) are checked in one pass: each file read once for all
//! of them ([`run_in_one_pass`]).

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};

use std::collections::HashMap;

use anyhow::{Context, Result};
use parhash::file::{FileInput, MultiHasher};
use parhash::{Algorithm, Output};
use parhash_format::check::{CheckOptions, Checker, Job, ListCheck, Record, Sink};
use parhash_format::{escape, record};

use crate::flags::{CheckArgs, HashOptions, OutputFlags, VerifyFlags};
use crate::input::{builder_for, hash_source, Source};
use crate::messages::{err_message, WRITE_ERROR};
use crate::progress::ManyProgress;

/// Everything `check` needs from the command line (from `check` or `sum -c`).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Check every line with this algorithm instead of inferring it.
    pub algorithm: Option<Algorithm>,
    pub verify: VerifyFlags,
    pub output: OutputFlags,
    pub hashing: HashOptions,
    /// `--locate`: say where a file that fails differs (see `locate`).
    pub locate: bool,
}

impl From<&CheckArgs> for Options {
    fn from(args: &CheckArgs) -> Options {
        Options {
            algorithm: args.algorithm,
            verify: args.verify.clone(),
            output: args.output.clone(),
            hashing: args.hashing.clone(),
            locate: args.locate.locate,
        }
    }
}

impl Options {
    /// The check run's options.
    pub(crate) fn check_options(&self) -> CheckOptions {
        CheckOptions {
            algorithm: self.algorithm,
            zero: self.output.zero,
            warn: self.verify.warn,
            quiet: self.verify.quiet,
            status: self.verify.status,
            strict: self.verify.strict,
            ignore_missing: self.verify.ignore_missing,
            json: self.output.json,
            tree_params: self.hashing.tree_params(),
        }
    }
}

/// Standard output and error for a check run: each record flushed at once (the next file may
/// take long to hash, and NUL-terminated `-z` records would wait in the line buffer), messages
/// as `parhash: MESSAGE`.
pub(crate) struct Terminal<W: Write> {
    pub(crate) out: W,
}

impl<W: Write> Sink for Terminal<W> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes).and_then(|()| self.out.flush())
    }

    fn message(&mut self, text: &str) {
        // What standard output holds goes first when both reach one place.
        let _ = self.out.flush();
        err_message!("{text}");
    }
}

/// Runs `check` over each list (`-` or none: standard input); `Ok(false)` if anything failed.
/// Several lists, none of them standard input, are checked in one pass ([`run_in_one_pass`]).
pub fn run(options: &Options, lists: &[OsString]) -> Result<bool> {
    let stdin_only = [OsString::from("-")];
    let lists = if lists.is_empty() {
        &stdin_only[..]
    } else {
        lists
    };
    if lists.len() > 1 && lists.iter().all(|list| list != "-") && !options.locate {
        return run_in_one_pass(options, lists);
    }
    let mut terminal = Terminal {
        out: crate::stdio::stdout(),
    };
    let mut checker = Checker::new(options.check_options()).with_multipart();
    let mut all_ok = true;
    for list in lists {
        let name = escape::os_bytes(list);
        let list_check = checker.start(&name);
        all_ok &= check_list(options, &mut checker, list_check, list, &mut terminal)
            .context(WRITE_ERROR)?;
    }
    terminal.out.flush().context(WRITE_ERROR)?;
    Ok(all_ok)
}

fn check_list(
    options: &Options,
    checker: &mut Checker,
    mut list_check: ListCheck,
    list: &OsString,
    out: &mut impl Sink,
) -> io::Result<bool> {
    let is_stdin = list == "-";
    if let (true, Some(closed)) = (is_stdin, crate::stdio::stdin_error()) {
        return checker.read_failed(list_check, &closed, out);
    }
    let mut reader: Box<dyn BufRead> = if is_stdin {
        // Unlocked: a `-` line in the list hashes standard input too.
        Box::new(BufReader::new(io::stdin()))
    } else {
        match File::open(list) {
            Ok(file) => Box::new(BufReader::new(file)),
            Err(err) => return checker.open_failed(list_check, &err, out),
        }
    };
    let mut buffer = Vec::new();
    let mut locator = options.locate.then(|| crate::locate::Locator::open(list));
    loop {
        let record = match list_check.next_record(&mut reader, &mut buffer) {
            Ok(None) => break,
            Ok(Some(record)) => record,
            Err(err) => return checker.read_failed(list_check, &err, out),
        };
        check_record(
            options,
            &mut list_check,
            record,
            out,
            locator.as_mut(),
            |job| {
                let source = Source::from_name(&job.entry.name);
                hash_source(job.entry.algorithm, &source, &job_hashing(options, job))
            },
        )?;
    }
    checker.finish(list_check, out)
}

/// One record of a list: skipped, reported as improper, or its file's outcome (from
/// `outcome`) reported.
fn check_record(
    options: &Options,
    list_check: &mut ListCheck,
    record: Record,
    out: &mut impl Sink,
    locator: Option<&mut crate::locate::Locator>,
    outcome: impl FnOnce(&Job) -> io::Result<Output>,
) -> io::Result<()> {
    match record {
        Record::Skip => Ok(()),
        Record::Improper(improper) => list_check.improper(&improper, out),
        Record::Check(job) => match &job.entry.multipart {
            // An object store's multipart checksum: its own read, the part sizes it tries.
            Some(label) => {
                let hashing = job_hashing(options, &job);
                crate::multipart::check_job(list_check, &job, label, &hashing, out)
            }
            None => match locator {
                Some(locator) => locator.check(&job_hashing(options, &job), list_check, &job, out),
                None => list_check.checked(&job, &outcome(&job), out),
            },
        },
    }
}

/// How a line's file is hashed: the line's PARSHA-256 parameters and digest length.
pub(crate) fn job_hashing(options: &Options, job: &Job) -> HashOptions {
    let hashing = options.hashing.with_tree_params(job.tree_params);
    match job.digest_size() {
        Some(size) => hashing.with_digest_size(size),
        None => hashing,
    }
}

/// A list read whole before any file is hashed.
struct ReadList {
    name: Vec<u8>,
    /// Its records; `None` for one too long to keep ([`record::read_record`]).
    records: Vec<Option<Vec<u8>>>,
    /// Why it could not be opened, or read to its end after `records`.
    failure: Option<(ListFailure, io::Error)>,
}

enum ListFailure {
    Open,
    Read,
}

impl ReadList {
    fn read(list: &OsString, terminator: u8) -> ReadList {
        let mut read = ReadList {
            name: escape::os_bytes(list).into_owned(),
            records: Vec::new(),
            failure: None,
        };
        let mut reader = match File::open(list) {
            Ok(file) => BufReader::new(file),
            Err(err) => {
                read.failure = Some((ListFailure::Open, err));
                return read;
            }
        };
        loop {
            let mut record = Vec::new();
            match record::read_record(&mut reader, terminator, &mut record) {
                Ok(record::Read::End) => return read,
                Ok(record::Read::Kept { .. }) => read.records.push(Some(record)),
                Ok(record::Read::TooLong { .. }) => read.records.push(None),
                Err(err) => {
                    read.failure = Some((ListFailure::Read, err));
                    return read;
                }
            }
        }
    }
}

/// What a file is hashed with for one line: the builder's settings that a digest depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Spec {
    pub(crate) algorithm: Algorithm,
    tree_params: Option<parhash::TreeParams>,
    digest_size: Option<usize>,
}

impl Spec {
    pub(crate) fn of(options: &Options, job: &Job) -> Spec {
        let algorithm = job.entry.algorithm;
        let hashing = job_hashing(options, job);
        Spec {
            algorithm,
            tree_params: algorithm.takes_tree_params().then(|| hashing.tree_params()),
            digest_size: hashing.digest_size(algorithm),
        }
    }

    /// The options a file is hashed with for this spec: the run's (threads, BLAKE3 mode...)
    /// with the line's tree parameters and digest size, as [`job_hashing`] gives them.
    fn hashing(&self, options: &Options) -> HashOptions {
        let mut hashing = options.hashing.clone();
        if let Some(params) = self.tree_params {
            hashing = hashing.with_tree_params(params);
        }
        match self.digest_size {
            Some(size) => hashing.with_digest_size(size),
            None => hashing,
        }
    }
}

/// `check LIST...` of several lists in one pass: every list read first, then each file they
/// name read once for all the algorithms its lines ask for (many files at once, as `sum`
/// hashes them), then each list's report and summary exactly as checking the lists one by one
/// prints them (the same check-run code, fed the outcomes in each list's order). `-` lines
/// (standard input) are hashed in their turn, as one by one.
fn run_in_one_pass(options: &Options, lists: &[OsString]) -> Result<bool> {
    let mut checker = Checker::new(options.check_options()).with_multipart();
    let terminator = checker.start(b"").terminator();
    let read: Vec<ReadList> = lists
        .iter()
        .map(|l| ReadList::read(l, terminator))
        .collect();
    // Which files, and for each the specs its lines ask for, in the order first named.
    let mut files: Vec<(Vec<u8>, Vec<Spec>)> = Vec::new();
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    for list in &read {
        let mut list_check = checker.start(&list.name);
        for record in &list.records {
            let Record::Check(job) = parsed(&mut list_check, record) else {
                continue;
            };
            if job.is_stdin() || job.entry.multipart.is_some() {
                continue;
            }
            let spec = Spec::of(options, &job);
            let at = *index.entry(job.entry.name.clone()).or_insert_with(|| {
                files.push((job.entry.name.clone(), Vec::new()));
                files.len() - 1
            });
            if !files[at].1.contains(&spec) {
                files[at].1.push(spec);
            }
        }
    }
    let outcomes = hash_once(options, files);
    let mut terminal = Terminal {
        out: crate::stdio::stdout(),
    };
    let mut all_ok = true;
    for list in read {
        let mut list_check = checker.start(&list.name);
        let mut replay = || -> io::Result<bool> {
            if let Some((ListFailure::Open, err)) = &list.failure {
                return checker.open_failed(list_check.clone(), err, &mut terminal);
            }
            for record in &list.records {
                let record = parsed(&mut list_check, record);
                check_record(
                    options,
                    &mut list_check,
                    record,
                    &mut terminal,
                    None,
                    |job| {
                        if job.is_stdin() {
                            let hashing = job_hashing(options, job);
                            return hash_source(job.entry.algorithm, &Source::Stdin, &hashing);
                        }
                        let (specs, outcome) = &outcomes[&job.entry.name];
                        let spec = Spec::of(options, job);
                        let at = specs.iter().position(|s| *s == spec).expect("planned");
                        match outcome {
                            Ok(digests) => Ok(digests[at].clone()),
                            Err(err) => Err(same_error(err)),
                        }
                    },
                )?;
            }
            match &list.failure {
                Some((_, err)) => checker.read_failed(list_check.clone(), err, &mut terminal),
                None => checker.finish(list_check.clone(), &mut terminal),
            }
        };
        all_ok &= replay().context(WRITE_ERROR)?;
    }
    terminal.out.flush().context(WRITE_ERROR)?;
    Ok(all_ok)
}

/// A record of a [`ReadList`] parsed in its turn.
fn parsed(list_check: &mut ListCheck, record: &Option<Vec<u8>>) -> Record {
    match record {
        Some(record) => list_check.record(record),
        None => list_check.too_long(),
    }
}

/// Each file's outcome, by name: the specs it was hashed with and a digest for each.
type Outcomes = HashMap<Vec<u8>, (Vec<Spec>, io::Result<Vec<Output>>)>;

/// Every file's digests, one read each: files asking for the same specs are hashed together
/// through the many-file engine.
fn hash_once(options: &Options, files: Vec<(Vec<u8>, Vec<Spec>)>) -> Outcomes {
    let progress = ManyProgress::new(Some(files.len() as u64), options.hashing.no_progress);
    let mut groups: HashMap<Vec<Spec>, Vec<Vec<u8>>> = HashMap::new();
    for (name, specs) in files {
        groups.entry(specs).or_default().push(name);
    }
    let mut outcomes = HashMap::new();
    for (specs, names) in groups {
        let builders = specs
            .iter()
            .map(|spec| builder_for(spec.algorithm, &spec.hashing(options)));
        let engine = MultiHasher::new(builders)
            .read_strategy(options.hashing.read)
            .memory_maps(!options.hashing.no_mmap);
        let engine = engine.with_progress(&progress);
        // Regular files (and names that fail) through the many-file engine; anything else
        // (a FIFO, a device) opened only once, here: the engine opens each input to see
        // what it is, and a FIFO opened and closed before it is read loses its data.
        let (regular, others): (Vec<Vec<u8>>, Vec<Vec<u8>>) = names.into_iter().partition(|name| {
            std::fs::metadata(escape::path_from_bytes(name)).map_or(true, |m| m.is_file())
        });
        let inputs = regular.into_iter().map(|name| {
            let path = escape::path_from_bytes(&name);
            (name, FileInput::Path(path))
        });
        for (name, outcome) in engine.hash_files(inputs) {
            outcomes.insert(name, (specs.clone(), outcome));
        }
        for name in others {
            let outcome = engine.hash_path(escape::path_from_bytes(&name));
            outcomes.insert(name, (specs.clone(), outcome));
        }
    }
    outcomes
}

/// The same error again, for every list that names the file: its OS code, or its kind and
/// words.
fn same_error(err: &io::Error) -> io::Error {
    match err.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::new(err.kind(), parhash_format::error_text(err)),
    }
}
