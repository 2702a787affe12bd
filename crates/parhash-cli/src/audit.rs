//! `parhash check --audit LIST`: the tree against the list. The list is read whole, the tree
//! walked and hashed as `sum -r` does (`many`), and `parhash_format::audit` (shared with the
//! Python package) says what became of each file; this file prints it.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};

use anyhow::{bail, Context, Result};
use parhash_format::audit::{self, Auditor, Status, Tally, Verdict};
use parhash_format::check::{Checker, Record};
use parhash_format::escape;
use parhash_format::json::AuditReport;

use crate::check::{job_hashing, Options, Spec};
use crate::flags::CheckArgs;
use crate::many;
use crate::messages::{err_message, WRITE_ERROR};
use crate::progress::ManyProgress;

/// Runs the audit of `args`' one list; `Ok(false)` when anything but matched files was found.
pub fn run(args: &CheckArgs) -> Result<bool> {
    let [list] = args.files.as_slice() else {
        bail!("--audit takes exactly one checksum list");
    };
    let options = Options::from(args);
    let Some(read) = read_list(&options, list, &args.audit_paths)? else {
        return Ok(false);
    };
    let roots: Vec<OsString> = if args.audit_paths.is_empty() {
        vec![OsString::from(".")]
    } else {
        args.audit_paths.clone()
    };
    let mut auditor = read.auditor;
    let list_name = escape::os_bytes(list).into_owned();
    // A root that is gone is walked as empty: its listed names are missing.
    let roots: Vec<OsString> = roots
        .into_iter()
        .filter(|root| std::fs::symlink_metadata(root).is_ok())
        .collect();
    let items = many::items_for(&roots, true).filter(|item| {
        let name = match item {
            many::Item::Hash { name, .. } | many::Item::Failed { name, .. } => name,
        };
        list == "-" || audit::normalized(name) != audit::normalized(&list_name)
    });
    let progress = ManyProgress::new(None, options.hashing.no_progress);
    many::run(
        &[read.spec.algorithm],
        items,
        &read.hashing,
        &progress,
        |outcomes| {
            for (name, outcome) in outcomes {
                match outcome {
                    Ok(digests) => auditor.found(&name, Ok(digests[0].as_bytes())),
                    Err(err) => auditor.found(&name, Err(err)),
                }
            }
            Ok(())
        },
    )?;
    let exists = |name: &[u8]| std::fs::symlink_metadata(escape::path_from_bytes(name)).is_ok();
    let mut report = auditor.finish(exists);
    let json = options
        .output
        .json
        .then(|| AuditReport::new(&list_name, read.spec.algorithm));
    let mut out = crate::stdio::stdout();
    let mut lines = Vec::with_capacity(64 * 1024);
    let mut tally = Tally::default();
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
        match &json {
            Some(json) => json.verdict(&mut lines, &verdict),
            None if options.verify.status => {}
            None if options.verify.quiet && verdict.status == Status::Matched => {}
            None => report_line(&mut lines, &verdict, options.output.zero),
        }
        if lines.len() >= 60 * 1024 {
            out.write_all(&lines).context(WRITE_ERROR)?;
            lines.clear();
        }
    }
    if let Some(json) = &json {
        json.summary(&mut lines, &tally);
    }
    out.write_all(&lines).context(WRITE_ERROR)?;
    out.flush().context(WRITE_ERROR)?;
    if !options.verify.status {
        err_message!("{}: audit: {}", read.shown, summary(&tally));
        if read.improper > 0 {
            let lines = if read.improper == 1 {
                "line is"
            } else {
                "lines are"
            };
            err_message!("WARNING: {} {lines} improperly formatted", read.improper);
        }
    }
    Ok(tally.passed() && !(options.verify.strict && read.improper > 0))
}

/// A list read into an [`Auditor`].
struct ReadList {
    auditor: Auditor,
    /// What its files are hashed with: the first line's algorithm and length.
    spec: Spec,
    hashing: crate::flags::HashOptions,
    /// Its name as messages quote it.
    shown: String,
    /// Lines that were not checksum lines of `spec`.
    improper: u64,
}

/// Reads the list; `None` (after saying why) when it cannot be read or has no checksum line.
fn read_list(options: &Options, list: &OsString, paths: &[OsString]) -> Result<Option<ReadList>> {
    let checker = Checker::new(options.check_options());
    let mut session = checker.start(&escape::os_bytes(list));
    let shown = session.shown().to_string();
    let mut reader: Box<dyn BufRead> = if list == "-" {
        Box::new(BufReader::new(io::stdin()))
    } else {
        match File::open(list) {
            Ok(file) => Box::new(BufReader::new(file)),
            Err(err) => {
                err_message!("{shown}: {}", parhash_format::error_text(&err));
                return Ok(None);
            }
        }
    };
    let roots: Vec<Vec<u8>> = paths
        .iter()
        .map(|p| escape::os_bytes(p).into_owned())
        .collect();
    let mut read: Option<ReadList> = None;
    let mut improper = 0;
    let mut record = Vec::new();
    loop {
        record.clear();
        match reader.read_until(session.terminator(), &mut record) {
            Ok(0) => break,
            Ok(_) => {}
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => {
                err_message!("{shown}: read error: {}", parhash_format::error_text(&err));
                return Ok(None);
            }
        }
        let (line, tag) = match session.record(&record) {
            Record::Skip => continue,
            Record::Improper(bad) => (bad.line, bad.tag),
            Record::Check(job) => {
                let spec = Spec::of(options, &job);
                let read = read.get_or_insert_with(|| ReadList {
                    auditor: Auditor::new(job.entry.expected.len()),
                    spec,
                    hashing: job_hashing(options, &job),
                    shown: shown.clone(),
                    improper: 0,
                });
                let entry = &job.entry;
                let in_subset =
                    roots.is_empty() || roots.iter().any(|root| audit::is_under(&entry.name, root));
                if spec == read.spec
                    && read
                        .auditor
                        .listed(&entry.name, &entry.expected, in_subset)
                        .is_ok()
                {
                    continue;
                }
                (job.line, read.spec.algorithm.info().tag)
            }
        };
        improper += 1;
        if options.verify.warn {
            err_message!("{shown}: {line}: improperly formatted {tag} checksum line");
        }
    }
    match read {
        Some(mut read) => {
            read.improper = improper;
            Ok(Some(read))
        }
        None => {
            err_message!("{shown}: no properly formatted checksum lines found");
            Ok(None)
        }
    }
}

/// `NAME: VERDICT` for people, as `check` writes `NAME: OK`; a line naming another file (moved
/// from, a copy) escapes both names when either needs it, and starts with a backslash then.
fn report_line(out: &mut Vec<u8>, verdict: &Verdict, zero: bool) {
    let on_disk_copy = || {
        let copies = verdict.copies.iter();
        copies
            .clone()
            .find(|c| c.on_disk == Some(true))
            .or(copies.clone().next())
    };
    let (word, other): (&str, Option<&[u8]>) = match verdict.status {
        Status::Matched => ("OK", None),
        Status::Changed => ("CHANGED", None),
        Status::Missing if verdict.content_elsewhere() => {
            ("MISSING, content at ", on_disk_copy().map(|c| &c.name[..]))
        }
        Status::Missing => ("MISSING", None),
        Status::New => match on_disk_copy() {
            Some(copy) => ("NEW, copy of ", Some(&copy.name[..])),
            None => ("NEW", None),
        },
        Status::Moved => ("MOVED from ", verdict.from.as_deref()),
        Status::Unreadable => ("FAILED open or read", None),
    };
    let escaped = !zero
        && (escape::report_needs_escape(&verdict.name)
            || other.is_some_and(escape::report_needs_escape));
    let name = |out: &mut Vec<u8>, name: &[u8]| match escaped {
        true => escape::escape_into(out, name),
        false => out.extend_from_slice(name),
    };
    if escaped {
        out.push(b'\\');
    }
    name(out, &verdict.name);
    out.extend_from_slice(b": ");
    out.extend_from_slice(word.as_bytes());
    if let Some(other) = other {
        name(out, other);
    }
    out.push(if zero { b'\0' } else { b'\n' });
}

/// The counts, for standard error.
fn summary(tally: &Tally) -> String {
    let mut text = format!(
        "{} matched, {} changed, {} missing",
        tally.matched, tally.changed, tally.missing
    );
    if tally.missing_with_copy > 0 {
        text += &format!(" ({} with a copy on disk)", tally.missing_with_copy);
    }
    text += &format!(
        ", {} new, {} moved, {} unreadable; {} sharing their content with other names",
        tally.new, tally.moved, tally.unreadable, tally.duplicates
    );
    text
}
