//! `check --audit` reads a list that may come from anywhere. Any bytes as the list, under any
//! of `check`'s options and an audited subset, through `audit_list::read_list` (the reader the
//! Python package uses; the CLI's own copy of it does the same), then an audit against a
//! tree made from the list's own entries (each matched, changed, missing, unreadable or moved
//! as its digest's first byte says), `Auditor::finish` and every verdict printed both ways
//! (`audit::report_line`, `json::AuditReport`): no panic; each verdict has the digests its
//! status says; every entry of the subset gets exactly one verdict (or is a move's source),
//! every file found not under a listed name exactly one; the tally counts the verdicts; the
//! records are one line of JSON each.
#![no_main]

mod common;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io;

use libfuzzer_sys::fuzz_target;
use parhash_format::audit::{self, Status, Verdict};
use parhash_format::audit_list::read_list;
use parhash_format::check::{Checker, Job, Record};
use parhash_format::json::AuditReport;

/// What `check --audit` hashes a list's files with: lines of another spec are improper.
#[derive(Debug, PartialEq, Eq)]
struct Spec {
    algorithm: parhash::Algorithm,
    tree_params: Option<parhash::TreeParams>,
    digest_size: Option<usize>,
}

fuzz_target!(|input: &[u8]| {
    let [flags, more, list @ ..] = input else {
        return;
    };
    let options = common::check_options(*flags);
    let list_check = &mut Checker::new(options).start(b"LIST");
    // Every checksum line the reader saw, by line number.
    let jobs: RefCell<BTreeMap<u64, Job>> = RefCell::default();
    let spec_of = |job: &Job| {
        jobs.borrow_mut().insert(job.line, job.clone());
        spec_of_job(job)
    };
    let first_name = |list: &[u8]| {
        let name = list
            .split(|&b| b == b' ' || b == b'\n')
            .nth(2)
            .unwrap_or_default();
        name.split(|&b| b == b'/')
            .next()
            .unwrap_or_default()
            .to_vec()
    };
    let paths: Vec<Vec<u8>> = match more & 3 {
        0 => Vec::new(),
        1 => vec![first_name(list)],
        2 => vec![b".".to_vec(), b"a/".to_vec()],
        _ => vec![b"./".to_vec()],
    };
    let mut said = Vec::new();
    let read = read_list(
        list_check,
        &mut &list[..],
        &paths,
        options.warn,
        spec_of,
        |m| said.push(m),
    );
    let jobs = jobs.into_inner();
    let Some(read) = read else {
        assert!(jobs.is_empty(), "a list with checksum lines is read");
        let why = said.last().expect("says why");
        assert!(
            why.ends_with("no properly formatted checksum lines found"),
            "{why}"
        );
        return;
    };
    assert_eq!(jobs.keys().next(), Some(&read.first.line));
    // The entries listed: lines of the first line's spec and digest length.
    let width = read.first.entry.expected.len();
    let listed: Vec<&Job> = jobs
        .values()
        .filter(|job| spec_of_job(job) == read.spec && job.entry.expected.len() == width)
        .collect();
    // The lines not listed are improper: those of another spec, and those `check` finds so.
    let mut again = Checker::new(options).start(b"LIST");
    let terminator = again.terminator();
    let (mut checks, mut improper) = (0, 0);
    for record in list.split_inclusive(|&b| b == terminator) {
        match again.record(record) {
            Record::Skip => {}
            Record::Improper(_) => improper += 1,
            Record::Check(_) => checks += 1,
        }
    }
    assert_eq!(checks, jobs.len());
    assert_eq!(read.improper as usize, improper + checks - listed.len());

    // The tree: each listed name found as its digest's first byte says.
    let mut auditor = read.auditor;
    let mut found: Vec<(Vec<u8>, Option<Vec<u8>>)> = Vec::new();
    for job in &listed {
        let entry = &job.entry;
        let choice = entry.expected.first().copied().unwrap_or_default() ^ more;
        let name = entry.name.clone();
        match choice % 6 {
            0 => found.push((name, Some(entry.expected.clone()))),
            1 => {
                let mut other = entry.expected.clone();
                if let Some(byte) = other.last_mut() {
                    *byte ^= 1;
                }
                found.push((name, Some(other)));
            }
            2 => found.push((name, None)),
            3 => found.push((
                [&name[..], b".moved"].concat(),
                Some(entry.expected.clone()),
            )),
            4 => found.push((name, Some(vec![0; width]))),
            _ => {} // missing
        }
    }
    if more & 4 != 0 {
        found.push((b"only-on-disk".to_vec(), Some(vec![7; width])));
    }
    // A walk of the subset finds each of its files once.
    let in_subset =
        |name: &[u8]| paths.is_empty() || paths.iter().any(|root| audit::is_under(name, root));
    found.retain(|(name, _)| in_subset(name));
    found.sort_by(|a, b| audit::walk_order(&a.0, &b.0));
    found.dedup_by(|a, b| audit::walk_order(&a.0, &b.0).is_eq());
    if more & 8 != 0 {
        found.reverse();
    }
    for (name, digest) in &found {
        let outcome = match digest {
            Some(digest) => Ok(&digest[..]),
            None => Err(io::Error::from_raw_os_error(13)),
        };
        auditor.found(name, outcome).expect("few entries");
    }
    let mut report = auditor.finish(|name| name.len() % 2 == 0);

    let json = AuditReport::new(b"LIST", read.first.entry.algorithm);
    let mut tally = audit::Tally::default();
    let mut verdicts = Vec::new();
    for verdict in report.verdicts() {
        tally.count(&verdict);
        check_shape(&verdict);
        let mut line = Vec::new();
        audit::report_line(&mut line, &verdict, options.zero);
        assert_eq!(line.last(), Some(if options.zero { &0 } else { &b'\n' }));
        let mut record = Vec::new();
        json.verdict(&mut record, &verdict);
        assert_eq!(record.iter().filter(|&&b| b == b'\n').count(), 1);
        serde_json::from_slice::<serde_json::Value>(&record).expect("valid JSON");
        verdicts.push(verdict);
    }
    let counted = tally.matched + tally.changed + tally.missing + tally.new + tally.moved;
    assert_eq!(counted + tally.unreadable, verdicts.len() as u64);
    let mut summary = Vec::new();
    json.summary(&mut summary, &tally);
    serde_json::from_slice::<serde_json::Value>(&summary).expect("valid JSON");
    let _ = audit::closing_messages("LIST", &tally, read.improper);

    // Every listed entry of the subset: one verdict under its name, or a move's source.
    let same = |a: &[u8], b: &[u8]| audit::walk_order(a, b).is_eq();
    for job in &listed {
        let name = &job.entry.name;
        let own = verdicts.iter().filter(|v| {
            same(&v.name, name)
                && matches!(
                    v.status,
                    Status::Matched | Status::Changed | Status::Missing | Status::Unreadable
                )
        });
        let moved = verdicts
            .iter()
            .filter(|v| v.status == Status::Moved && same(v.from.as_deref().unwrap(), name));
        let (own, moved) = (own.count(), moved.count());
        if !listed_twice(&listed, name) {
            match in_subset(name) {
                true => assert_eq!(own + moved, 1, "{name:?}: {own} verdicts, {moved} moves"),
                false => assert!(own == 0 && moved <= 1, "{name:?}: {own}, {moved} moves"),
            }
        }
    }
    // Every file found under a name the list does not have: exactly one verdict.
    for (name, _) in &found {
        if listed.iter().any(|job| same(&job.entry.name, name)) {
            continue;
        }
        let theirs = verdicts.iter().filter(|v| {
            same(&v.name, name)
                && matches!(v.status, Status::New | Status::Moved | Status::Unreadable)
        });
        assert_eq!(theirs.count(), 1, "{name:?}");
    }
});

fn spec_of_job(job: &Job) -> Spec {
    Spec {
        algorithm: job.entry.algorithm,
        tree_params: job
            .entry
            .algorithm
            .takes_tree_params()
            .then_some(job.tree_params),
        digest_size: job.digest_size(),
    }
}

/// Whether the list names `name` more than once (each entry then has its own verdict).
fn listed_twice(listed: &[&Job], name: &[u8]) -> bool {
    let same = listed
        .iter()
        .filter(|job| audit::walk_order(&job.entry.name, name).is_eq());
    same.count() > 1
}

/// The digests a verdict carries are those its status says.
fn check_shape(verdict: &Verdict) {
    let (expected, actual) = (&verdict.expected, &verdict.actual);
    match verdict.status {
        Status::Matched => assert!(expected.is_some() && expected == actual),
        Status::Changed => assert!(expected.is_some() && actual.is_some() && expected != actual),
        Status::Missing => assert!(expected.is_some() && actual.is_none()),
        Status::New => assert!(expected.is_none() && actual.is_some()),
        Status::Moved => {
            assert!(verdict.from.is_some() && expected.is_some() && expected == actual)
        }
        Status::Unreadable => assert!(actual.is_none() && verdict.error.is_some()),
    }
    assert_eq!(verdict.from.is_some(), verdict.status == Status::Moved);
}
