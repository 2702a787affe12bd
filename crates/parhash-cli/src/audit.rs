//! `parhash check --audit LIST`: the tree against the list. The list is read whole, the tree
//! walked and hashed as `sum -r` does (`many`), and `parhash_format::audit` (shared with the
//! Python package) says what became of each file; this file prints it.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};

use anyhow::{bail, Context, Result};
use parhash_format::audit::{self, Auditor, Status, Tally};
use parhash_format::check::Checker;
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
            None => audit::report_line(&mut lines, &verdict, options.output.zero),
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
        for text in audit::closing_messages(&read.shown, &tally, read.improper) {
            err_message!("{text}");
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
    let read = audit::read_list(
        &mut session,
        &mut reader,
        &roots,
        options.verify.warn,
        |job| Spec::of(options, job),
        |text| err_message!("{text}"),
    );
    Ok(read.map(|read| ReadList {
        auditor: read.auditor,
        spec: read.spec,
        hashing: job_hashing(options, &read.first),
        shown,
        improper: read.improper,
    }))
}
