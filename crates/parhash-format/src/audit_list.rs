//! `check --audit`'s list read through a `check` run (the same options and line parsing
//! as `check`), into an [`Auditor`]: the CLI and the Python package read lists with it. Apart
//! from [`crate::audit`] so that the classifier does not depend on the check run (which
//! depends on the JSON records, which know the audit's verdicts).

use std::io;

use crate::audit::{is_under, Auditor};
use crate::check::{Job, ListCheck, Record};

/// A list read for an audit: its entries in an [`Auditor`], how its files are hashed.
pub struct ListRead<S> {
    /// The listed entries.
    pub auditor: Auditor,
    /// How the files are hashed: `spec_of` the first checksum line (lines of another spec are
    /// improperly formatted: one audit hashes the tree one way).
    pub spec: S,
    /// The first checksum line.
    pub first: Job,
    /// How many lines were not checksum lines of `spec`.
    pub improper: u64,
}

/// Reads the list in `reader` for `check --audit`, through `list_check` (`-a`, `-z` and
/// the other options as `check` reads lines): listed names under `paths` (all, if empty) are
/// the audited subset. `say` gets each message in the CLI's words (`-w`'s warnings; why there
/// is nothing to audit). `None` when the list cannot be read or has no checksum line.
pub fn read_list<S: PartialEq>(
    list_check: &mut ListCheck,
    reader: &mut dyn io::BufRead,
    paths: &[Vec<u8>],
    warn: bool,
    spec_of: impl Fn(&Job) -> S,
    mut say: impl FnMut(String),
) -> Option<ListRead<S>> {
    let shown = list_check.shown().to_string();
    let mut read: Option<ListRead<S>> = None;
    let mut improper = 0;
    let mut record = Vec::new();
    loop {
        let next = match list_check.next_record(reader, &mut record) {
            Ok(None) => break,
            Ok(Some(next)) => next,
            Err(err) => {
                say(format!("{shown}: read error: {}", crate::error_text(&err)));
                return None;
            }
        };
        let (line, tag) = match next {
            Record::Skip => continue,
            Record::Improper(bad) => (bad.line, bad.tag),
            Record::Check(job) => {
                let spec = spec_of(&job);
                let read = read.get_or_insert_with(|| ListRead {
                    auditor: Auditor::new(job.entry.expected.len()),
                    spec: spec_of(&job),
                    first: job.clone(),
                    improper: 0,
                });
                let entry = &job.entry;
                let in_subset =
                    paths.is_empty() || paths.iter().any(|root| is_under(&entry.name, root));
                let listed = match spec == read.spec {
                    true => (read.auditor).listed(&entry.name, &entry.expected, in_subset),
                    false => Err(io::ErrorKind::InvalidInput.into()),
                };
                match listed {
                    Ok(()) => continue,
                    Err(err) if err.kind() == io::ErrorKind::OutOfMemory => {
                        say(format!("{shown}: cannot audit: {err}"));
                        return None;
                    }
                    // Another algorithm or length: not a line of this list's audit.
                    Err(_) => {}
                }
                (job.line, read.first.entry.algorithm.info().tag)
            }
        };
        improper += 1;
        if warn {
            say(format!(
                "{shown}: {line}: improperly formatted {tag} checksum line"
            ));
        }
    }
    match read {
        Some(mut read) => {
            read.improper = improper;
            Some(read)
        }
        None => {
            say(format!(
                "{shown}: no properly formatted checksum lines found"
            ));
            None
        }
    }
}
