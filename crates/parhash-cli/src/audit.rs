//! `parhash check --audit LIST`: the tree against the list. The list is read whole, the tree
//! walked and hashed as `sum -r` does (`many`), and `parhash_format::audit` (shared with the
//! Python package) says what became of each file; this file prints it.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};
use parhash_format::audit::{self, Auditor, Status, Tally};
use parhash_format::check::{Checker, ListCheck, Record};
use parhash_format::escape;
use parhash_format::json::AuditReport;

use crate::check::{job_hashing, Options, Spec};
use crate::flags::CheckArgs;
use crate::list_file;
use crate::many;
use crate::messages::{err_message, WRITE_ERROR};
use crate::progress::ManyProgress;

/// Runs the audit of `args`' one list; `Ok(false)` when anything but matched files was found.
pub fn run(args: &CheckArgs) -> Result<bool> {
    let [list] = args.files.as_slice() else {
        bail!("--audit takes exactly one checksum list");
    };
    let options = Options::from(args);
    // The first checksum line says how to hash; the rest of the list is read while the tree
    // is walked and hashed (the files found meanwhile wait for it).
    let Some(mut reader) = ListReader::open(&options, list, &args.audit_paths) else {
        return Ok(false);
    };
    let mut first = None;
    if !reader.read(&mut first, true)? {
        return Ok(false);
    }
    let Some(first) = first else {
        err_message!(
            "{}: no properly formatted checksum lines found",
            reader.shown
        );
        return Ok(false);
    };
    let (spec, hashing, shown) = (first.spec, first.hashing.clone(), reader.shown.clone());
    let mut rest = Some(std::thread::spawn(move || {
        let mut read = Some(first);
        reader.read(&mut read, false).map(|ok| read.filter(|_| ok))
    }));
    let mut auditor: Option<ReadList> = None;
    let mut waiting: Vec<many::Outcome> = Vec::new();
    // Takes the list once it is read (`wait`: however long that takes), then feeds it every file
    // found so far; `Err(ListFailed)` when it could not be read to its end (already said).
    let mut feed = |outcomes: Vec<many::Outcome>, wait: bool| -> Result<()> {
        waiting.extend(outcomes);
        if let Some(handle) = rest.take_if(|h| wait || h.is_finished()) {
            let read = handle.join().expect("the list reader does not panic")?;
            auditor = Some(read.ok_or(ListFailed)?);
        }
        let Some(read) = &mut auditor else {
            return Ok(());
        };
        for (name, outcome) in waiting.drain(..) {
            let found = match outcome {
                Ok(digests) => read.auditor.found(&name, Ok(digests[0].as_bytes())),
                Err(err) => read.auditor.found(&name, Err(err)),
            };
            found.context("cannot audit this tree")?;
        }
        Ok(())
    };
    let roots = walk_roots(&args.audit_paths);
    let list_name = escape::os_bytes(list).into_owned();
    // The list and the files `sum -o` writes beside it (its side file, their `.tmp`) are
    // not part of the dataset, should they lie in the tree.
    let walked_items = many::items_for(&roots, true);
    let items: Box<dyn Iterator<Item = many::Item>> = if list == "-" {
        Box::new(walked_items)
    } else {
        Box::new(list_file::without_own_files(walked_items, Path::new(list)))
    };
    let progress = ManyProgress::new(None, options.hashing.no_progress);
    let walked = many::run(&[spec.algorithm], items, &hashing, &progress, |outcomes| {
        feed(outcomes, false)
    })
    .and_then(|()| feed(Vec::new(), true));
    match walked {
        Err(err) if err.is::<ListFailed>() => return Ok(false),
        walked => walked?,
    }
    let read = auditor.expect("fed with wait");
    let exists = |name: &[u8]| std::fs::symlink_metadata(escape::path_from_bytes(name)).is_ok();
    let mut report = read.auditor.finish(exists);
    let json = options
        .output
        .json
        .then(|| AuditReport::new(&list_name, spec.algorithm));
    let mut out = crate::stdio::stdout();
    let mut lines = Vec::with_capacity(64 * 1024);
    let mut tally = Tally::default();
    let locator = crate::locate::Locator::open(list);
    for verdict in report.verdicts() {
        tally.count(&verdict);
        if let Some(error) = &verdict.error {
            // What `check` says of a file it cannot read, before its line.
            out.write_all(&lines).context(WRITE_ERROR)?;
            lines.clear();
            out.flush().context(WRITE_ERROR)?;
            err_message!(
                "{}: {}",
                escape::quote(&verdict.name),
                parhash_format::error_text(error)
            );
        }
        let line = lines.len();
        match &json {
            Some(json) => json.verdict(&mut lines, &verdict),
            None if options.verify.status => {}
            None if options.verify.quiet && verdict.status == Status::Matched => {}
            None => audit::report_line(&mut lines, &verdict, options.output.zero),
        }
        if let (Status::Changed, Some(expected)) = (verdict.status, &verdict.expected) {
            let change = locator.changed(&verdict.name, spec.algorithm, &hashing, expected);
            change.inspect(|c| c.annotate(&mut lines, line, json.is_some()));
        }
        if lines.len() >= 60 * 1024 {
            out.write_all(&lines).context(WRITE_ERROR)?;
            lines.clear();
        }
    }
    if let Some(json) = &json {
        for group in report.groups() {
            json.group(&mut lines, &group);
            if lines.len() >= 60 * 1024 {
                out.write_all(&lines).context(WRITE_ERROR)?;
                lines.clear();
            }
        }
        json.summary(&mut lines, &tally);
    }
    out.write_all(&lines).context(WRITE_ERROR)?;
    out.flush().context(WRITE_ERROR)?;
    if !options.verify.status {
        for text in audit::closing_messages(&shown, &tally, read.improper) {
            err_message!("{text}");
        }
    }
    Ok(tally.passed() && !(options.verify.strict && read.improper > 0))
}

/// The paths to walk: `.`, or the subset's paths, less those that are gone (walked as empty:
/// their listed names are missing) and those below another (each file found once).
fn walk_roots(paths: &[OsString]) -> Vec<OsString> {
    if paths.is_empty() {
        return vec![OsString::from(".")];
    }
    let all: Vec<Vec<u8>> = paths
        .iter()
        .map(|p| escape::os_bytes(p).into_owned())
        .collect();
    let outermost = audit::outermost(&all);
    (paths.iter().zip(outermost))
        .filter(|&(path, keep)| keep && std::fs::symlink_metadata(path).is_ok())
        .map(|(path, _)| path.clone())
        .collect()
}

/// The list could not be read to its end (and the reader said why).
#[derive(Debug)]
struct ListFailed;

impl std::fmt::Display for ListFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the list could not be read")
    }
}

impl std::error::Error for ListFailed {}

/// A list read into an [`Auditor`].
struct ReadList {
    auditor: Auditor,
    /// What its files are hashed with: the first line's algorithm and length.
    spec: Spec,
    hashing: crate::flags::HashOptions,
    /// Lines that were not checksum lines of `spec`.
    improper: u64,
}

/// A list being read.
struct ListReader {
    reader: Box<dyn BufRead + Send>,
    list_check: ListCheck,
    options: Options,
    /// The subset's roots (`--audit-path`), as bytes.
    roots: Vec<Vec<u8>>,
    /// Its name as messages quote it.
    shown: String,
    /// Improper lines not yet counted in a [`ReadList`].
    improper_before: u64,
}

impl ListReader {
    /// The list, opened; `None` (after saying why) when it cannot be.
    fn open(options: &Options, list: &OsString, paths: &[OsString]) -> Option<ListReader> {
        let list_check = Checker::new(options.check_options()).start(&escape::os_bytes(list));
        let shown = list_check.shown().to_string();
        let reader: Box<dyn BufRead + Send> = if list == "-" {
            Box::new(BufReader::new(io::stdin()))
        } else {
            match File::open(list) {
                Ok(file) => Box::new(BufReader::new(file)),
                Err(err) => {
                    err_message!("{shown}: {}", parhash_format::error_text(&err));
                    return None;
                }
            }
        };
        let roots = paths.iter().map(|p| escape::os_bytes(p).into_owned());
        Some(ListReader {
            reader,
            list_check,
            options: options.clone(),
            roots: roots.collect(),
            shown,
            improper_before: 0,
        })
    }

    /// Reads on into `read` (started at the first checksum line) until the end, or with
    /// `until_first` until `read` is started; `Ok(false)` (after saying why) when the list
    /// could not be read.
    fn read(&mut self, read: &mut Option<ReadList>, until_first: bool) -> Result<bool> {
        let shown = &self.shown;
        let mut buffer = Vec::new();
        while !(until_first && read.is_some()) {
            let record = match self.list_check.next_record(&mut self.reader, &mut buffer) {
                Ok(None) => break,
                Ok(Some(record)) => record,
                Err(err) => {
                    err_message!("{shown}: read error: {}", parhash_format::error_text(&err));
                    return Ok(false);
                }
            };
            let (line, tag) = match record {
                Record::Skip => continue,
                Record::Improper(bad) => (bad.line, bad.tag),
                Record::Check(job) => {
                    let spec = Spec::of(&self.options, &job);
                    let read = read.get_or_insert_with(|| ReadList {
                        auditor: Auditor::new(job.entry.expected.len()),
                        spec,
                        hashing: job_hashing(&self.options, &job),
                        improper: 0,
                    });
                    let entry = &job.entry;
                    let in_subset = self.roots.is_empty()
                        || (self.roots.iter()).any(|root| audit::is_under(&entry.name, root));
                    let listed = match spec == read.spec {
                        true => read.auditor.listed(&entry.name, &entry.expected, in_subset),
                        false => Err(io::ErrorKind::InvalidInput.into()),
                    };
                    match listed {
                        Ok(()) => continue,
                        Err(err) if err.kind() == io::ErrorKind::OutOfMemory => {
                            return Err(err).with_context(|| format!("{shown}: cannot audit"));
                        }
                        // Another algorithm or length: not a line of this list's audit.
                        Err(_) => {}
                    }
                    (job.line, read.spec.algorithm.info().tag)
                }
            };
            // Improper lines before the first checksum line are counted once it is read.
            self.improper_before += 1;
            if let Some(read) = read.as_mut() {
                read.improper += std::mem::take(&mut self.improper_before);
            }
            if self.options.verify.warn {
                err_message!("{shown}: {line}: improperly formatted {tag} checksum line");
            }
        }
        if let Some(read) = read.as_mut() {
            read.improper += std::mem::take(&mut self.improper_before);
        }
        Ok(true)
    }
}
