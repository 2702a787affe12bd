//! One checksum list's check run, as `sha256sum -c` (coreutils 9.1) runs it: each record
//! read from the caller's reader and parsed ([`ListCheck::next_record`]: a record over
//! [`MAX_RECORD_BYTES`](crate::record::MAX_RECORD_BYTES) is improper and never held), each listed file's verdict reported
//! ([`ListCheck::checked`]), then the warnings, parhash's notes and the list's result
//! ([`Checker::finish`]).
//!
//! The check run opens nothing: the caller opens the list, hashes the files (on this
//! machine, a pool, a Ray cluster) and hands each outcome back in the list's order; the
//! check run writes what to print into a [`Sink`]: bytes for standard output (the `NAME: OK`
//! report or `--json` records) and messages for standard error (without the program's name,
//! which the caller prefixes). So `parhash check` and `parhash-dist check` print the same
//! bytes because they run the same code.

use std::io;

use parhash::{Algorithm, Output, TreeParams};

use crate::escape;
use crate::json::{AlgorithmFrom, CheckReport, Checked, Counts, Problem};
use crate::parse::{Entry, Line, Parser};
use crate::record::{read_record, Read};

/// What `check` was asked to do (the command line's `-a`, `-z`, `-w`, `--quiet`, `--status`,
/// `--strict`, `--ignore-missing`, `--json` and PARSHA-256's parameters).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// Check every line with this algorithm instead of the line's tag or digest length.
    pub algorithm: Option<Algorithm>,
    /// NUL-terminated records, names verbatim.
    pub zero: bool,
    /// Warn about each improperly formatted line.
    pub warn: bool,
    /// Leave out the `OK` lines.
    pub quiet: bool,
    /// Print nothing; the result alone tells.
    pub status: bool,
    /// Improperly formatted lines fail the list.
    pub strict: bool,
    /// Missing files are neither reported nor failures.
    pub ignore_missing: bool,
    /// JSON Lines records instead of the `NAME: OK` report.
    pub json: bool,
    /// PARSHA-256's parameters for lines whose tag does not record them.
    pub tree_params: TreeParams,
}

/// Where a check run's output goes: bytes for standard output, messages for standard error.
pub trait Sink {
    /// Bytes for standard output (whole records; the caller may flush after each).
    fn output(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// One message for standard error, without the program's name or a newline.
    fn message(&mut self, text: &str);
}

/// One thing a check run has to say, in order (a [`Sink`] that keeps them: `Vec<Event>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Bytes for standard output.
    Output(Vec<u8>),
    /// A message for standard error.
    Message(String),
}

impl Sink for Vec<Event> {
    fn output(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.push(Event::Output(bytes.to_vec()));
        Ok(())
    }

    fn message(&mut self, text: &str) {
        self.push(Event::Message(text.to_string()));
    }
}

/// Checks lists one after the other: what the warnings name carries over from one list to the
/// next, as in coreutils.
#[derive(Clone, Debug)]
pub struct Checker {
    options: CheckOptions,
    /// The algorithm of the last properly formatted line, over all lists so far.
    last_seen: Option<Algorithm>,
    /// Whether multipart checksum lines are entries ([`Checker::with_multipart`]).
    multipart: bool,
}

impl Checker {
    /// A checker for one run of `check`.
    pub fn new(options: CheckOptions) -> Checker {
        Checker {
            options,
            last_seen: None,
            multipart: false,
        }
    }

    /// This checker, taking object stores' multipart checksum lines (`ETAG (NAME) = HEX-N`)
    /// as entries: their jobs have an [`Entry::multipart`], whose file the caller checks by
    /// the part sizes it tries and reports with [`ListCheck::checked_noting`]. Without it they
    /// are improperly formatted.
    pub fn with_multipart(self) -> Checker {
        Checker {
            multipart: true,
            ..self
        }
    }

    /// The options it checks with.
    pub fn options(&self) -> &CheckOptions {
        &self.options
    }

    /// Starts the list named `list` (`-` is standard input).
    pub fn start(&self, list: &[u8]) -> ListCheck {
        let is_stdin = list == b"-";
        let shown = escape::quote(if is_stdin { b"standard input" } else { list });
        ListCheck {
            options: self.options,
            shown,
            json: (self.options.json && !self.options.status).then(|| CheckReport::new(list)),
            parser: Parser::new(self.options.algorithm, self.options.zero)
                .with_multipart(self.multipart),
            tally: Tally::default(),
            line_number: 0,
            last_seen: self.last_seen,
        }
    }

    /// Ends `list`: its warnings, notes and summary; whether it passed.
    pub fn finish(&mut self, list: ListCheck, out: &mut impl Sink) -> io::Result<bool> {
        self.last_seen = list.last_seen;
        list.finish(out)
    }

    /// Ends a list that could not be opened (`LIST: No such file or directory`).
    pub fn open_failed(
        &mut self,
        list: ListCheck,
        err: &io::Error,
        out: &mut impl Sink,
    ) -> io::Result<bool> {
        let text = crate::error_text(err);
        self.list_failed(list, &text, err, out)
    }

    /// Ends a list that could not be read to its end, or a standard input the parent closed
    /// (`LIST: read error`, as sha256sum words both).
    pub fn read_failed(
        &mut self,
        list: ListCheck,
        err: &io::Error,
        out: &mut impl Sink,
    ) -> io::Result<bool> {
        self.list_failed(list, "read error", err, out)
    }

    /// Ends a list that failed as a whole: `LIST: WHY`, and with `--json` its summary.
    fn list_failed(
        &mut self,
        list: ListCheck,
        why: &str,
        err: &io::Error,
        out: &mut impl Sink,
    ) -> io::Result<bool> {
        self.last_seen = list.last_seen;
        out.message(&format!("{}: {why}", list.shown));
        list.failed(Problem::Io(err), out)
    }
}

/// What one record of a list asks the caller to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// Nothing: a comment or an empty line.
    Skip,
    /// Report it with [`ListCheck::improper`] (in its turn among the checked lines).
    Improper(Improper),
    /// Hash the file and hand the outcome to [`ListCheck::checked`].
    Check(Job),
}

/// An improperly formatted line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Improper {
    /// Its line number, from 1.
    pub line: u64,
    /// The tag the warning names: `-a`'s algorithm, else that of the last proper line, else
    /// sha256's (coreutils names its own algorithm).
    pub tag: &'static str,
}

/// A file to hash for a checksum line, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// Its line number, from 1.
    pub line: u64,
    /// What the line says.
    pub entry: Entry,
    /// PARSHA-256's parameters to hash with: the line's tag's, else the options'.
    pub tree_params: TreeParams,
    algorithm_from: AlgorithmFrom,
}

impl Job {
    /// The digest size to ask for where the algorithm's length varies: the expected digest's
    /// (each line says its length, as with `b2sum -c`); `None` for the others.
    pub fn digest_size(&self) -> Option<usize> {
        let sizes = self.entry.algorithm.digest_sizes();
        sizes.is_variable().then_some(self.entry.expected.len())
    }

    /// Whether the file is standard input (`-`).
    pub fn is_stdin(&self) -> bool {
        self.entry.name == b"-"
    }
}

/// One list being checked (from [`Checker::start`]).
#[derive(Clone, Debug)]
pub struct ListCheck {
    options: CheckOptions,
    /// The list's name as messages quote it.
    shown: String,
    json: Option<CheckReport>,
    parser: Parser,
    tally: Tally,
    line_number: u64,
    last_seen: Option<Algorithm>,
}

impl ListCheck {
    /// The list's name as messages quote it (`'standard input'`, `'a b'`).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The record terminator: `\n`, or NUL with `-z`.
    pub fn terminator(&self) -> u8 {
        if self.options.zero {
            b'\0'
        } else {
            b'\n'
        }
    }

    /// Reads the next record of the list from `reader` into `buffer` ([`read_record`]) and
    /// says what to do with it: one longer than [`MAX_RECORD_BYTES`](crate::record::MAX_RECORD_BYTES) is improperly formatted
    /// and never held. `None` at the end of the list.
    ///
    /// # Errors
    /// The reader's.
    pub fn next_record(
        &mut self,
        reader: &mut (impl io::BufRead + ?Sized),
        buffer: &mut Vec<u8>,
    ) -> io::Result<Option<Record>> {
        Ok(match read_record(reader, self.terminator(), buffer)? {
            Read::End => None,
            Read::Kept { .. } => Some(self.record(buffer)),
            Read::TooLong { .. } => Some(self.too_long()),
        })
    }

    /// Reads the next record (with or without its terminator).
    pub fn record(&mut self, record: &[u8]) -> Record {
        self.line_number += 1;
        match self.parser.parse(record) {
            Line::Skip => Record::Skip,
            Line::Improper => self.improper_line(),
            Line::Entry(entry) => {
                self.tally.any_proper = true;
                self.last_seen = Some(entry.algorithm);
                let algorithm_from = match (entry.inferred, self.options.algorithm) {
                    (true, _) => AlgorithmFrom::Length,
                    (false, Some(_)) => AlgorithmFrom::Option,
                    (false, None) => AlgorithmFrom::Tag,
                };
                Record::Check(Job {
                    line: self.line_number,
                    tree_params: entry.parsha.unwrap_or(self.options.tree_params),
                    entry,
                    algorithm_from,
                })
            }
        }
    }

    /// The next record, read past because it was longer than [`MAX_RECORD_BYTES`](crate::record::MAX_RECORD_BYTES)
    /// ([`read_record`]): improperly formatted.
    pub fn too_long(&mut self) -> Record {
        self.line_number += 1;
        self.improper_line()
    }

    fn improper_line(&self) -> Record {
        Record::Improper(Improper {
            line: self.line_number,
            tag: self
                .options
                .algorithm
                .or(self.last_seen)
                .unwrap_or(crate::DEFAULT_ALGORITHM)
                .info()
                .tag,
        })
    }

    /// Reports an improperly formatted line: a warning with `-w`, a record with `--json`.
    pub fn improper(&mut self, improper: &Improper, out: &mut impl Sink) -> io::Result<()> {
        self.tally.improper += 1;
        if self.options.warn {
            out.message(&format!(
                "{}: {}: improperly formatted {} checksum line",
                self.shown, improper.line, improper.tag
            ));
        }
        match &self.json {
            Some(report) => out.output(&report.improper(improper.line)),
            None => Ok(()),
        }
    }

    /// Reports the outcome of `job`: the digest, or why the file could not be hashed.
    pub fn checked(
        &mut self,
        job: &Job,
        outcome: &io::Result<Output>,
        out: &mut impl Sink,
    ) -> io::Result<()> {
        self.checked_noting(job, outcome, None, out)
    }

    /// [`ListCheck::checked`] with a note after the verdict (`NAME: OK (part size 8 MiB)`),
    /// where a line's verdict needs one: which multipart part size matched, or which were
    /// tried.
    pub fn checked_noting(
        &mut self,
        job: &Job,
        outcome: &io::Result<Output>,
        note: Option<&str>,
        out: &mut impl Sink,
    ) -> io::Result<()> {
        let note = note.map(|note| format!(" ({note})"));
        self.checked_with(job, outcome, note.as_deref(), None, out)
    }

    /// [`ListCheck::checked`] of a file, saying where it differs after its verdict (`NAME:
    /// FAILED at bytes 0-1023`, from `check --locate`; with `--json` its line's `"located"`).
    pub fn checked_located(
        &mut self,
        job: &Job,
        outcome: &io::Result<Output>,
        located: &crate::pieces::Located,
        out: &mut impl Sink,
    ) -> io::Result<()> {
        let note = format!(" {}", located.text());
        self.checked_with(job, outcome, Some(&note), Some(located), out)
    }

    fn checked_with(
        &mut self,
        job: &Job,
        outcome: &io::Result<Output>,
        note: Option<&str>,
        located: Option<&crate::pieces::Located>,
        out: &mut impl Sink,
    ) -> io::Result<()> {
        let entry = &job.entry;
        let verdict = match outcome {
            Err(err) if self.options.ignore_missing && err.kind() == io::ErrorKind::NotFound => {
                return Ok(())
            }
            Err(err) => {
                out.message(&format!(
                    "{}: {}",
                    escape::quote(&entry.name),
                    crate::error_text(err)
                ));
                self.tally.unreadable += 1;
                self.tally.missing += u64::from(err.kind() == io::ErrorKind::NotFound);
                "FAILED open or read"
            }
            Ok(digest) => {
                self.tally.verified += 1;
                if digest.as_bytes() == entry.expected {
                    if self.options.quiet {
                        return Ok(());
                    }
                    "OK"
                } else {
                    self.tally.mismatch(entry);
                    "FAILED"
                }
            }
        };
        if self.options.status {
            return Ok(());
        }
        let report = match &self.json {
            Some(report) => report.line(
                job.line,
                Checked {
                    name: &entry.name,
                    algorithm: entry.algorithm,
                    algorithm_from: job.algorithm_from,
                    parsha: Some(job.tree_params),
                    expected: &entry.expected,
                    outcome,
                    located,
                },
            ),
            None => match note {
                Some(note) => {
                    report_line(&entry.name, &format!("{verdict}{note}"), self.options.zero)
                }
                None => report_line(&entry.name, verdict, self.options.zero),
            },
        };
        out.output(&report)
    }

    /// Ends the list: no proper line at all fails it; otherwise the warnings (improper lines,
    /// unreadable files, mismatches with parhash's note on inferred algorithms, nothing
    /// verified with `--ignore-missing`) and with `--json` the summary. Whether it passed.
    fn finish(self, out: &mut impl Sink) -> io::Result<bool> {
        const NONE_FOUND: &str = "no properly formatted checksum lines found";
        let tally = &self.tally;
        if !tally.any_proper {
            out.message(&format!("{}: {NONE_FOUND}", self.shown));
            return self.failed(Problem::Message(NONE_FOUND), out);
        }
        // coreutils asks whether any checksum matched, not whether any file was read.
        let none_verified = self.options.ignore_missing && tally.matched() == 0;
        if !self.options.status {
            let plural = |n: u64, one: &str, many: &str| {
                format!("WARNING: {n} {}", if n == 1 { one } else { many })
            };
            if tally.improper > 0 {
                out.message(&plural(
                    tally.improper,
                    "line is improperly formatted",
                    "lines are improperly formatted",
                ));
            }
            if tally.unreadable > 0 {
                out.message(&plural(
                    tally.unreadable,
                    "listed file could not be read",
                    "listed files could not be read",
                ));
            }
            if tally.mismatched > 0 {
                out.message(&plural(
                    tally.mismatched,
                    "computed checksum did NOT match",
                    "computed checksums did NOT match",
                ));
                for &(algorithm, n) in &tally.inferred_mismatches {
                    if let Some(note) = inferred_algorithm_note(algorithm, n) {
                        out.message(&note);
                    }
                }
            }
            if none_verified {
                out.message(&format!("{}: no file was verified", self.shown));
            }
        }
        let passed = tally.mismatched == 0
            && tally.unreadable == 0
            && (!self.options.strict || tally.improper == 0)
            && !none_verified;
        if let Some(report) = &self.json {
            let problem = none_verified.then_some(Problem::Message("no file was verified"));
            out.output(&report.summary(tally.counts(), passed, problem))?;
        }
        Ok(passed)
    }

    /// The list failed as a whole: with `--json`, its summary says why.
    fn failed(self, problem: Problem<'_>, out: &mut impl Sink) -> io::Result<bool> {
        if let Some(report) = &self.json {
            out.output(&report.summary(self.tally.counts(), false, Some(problem)))?;
        }
        Ok(false)
    }
}

/// Counts for one checksum list, as coreutils keeps them.
#[derive(Clone, Debug, Default)]
struct Tally {
    improper: u64,
    mismatched: u64,
    unreadable: u64,
    /// Of the unreadable, those that do not exist.
    missing: u64,
    /// Files read and hashed (matched or not).
    verified: u64,
    any_proper: bool,
    /// Mismatches of lines whose algorithm was inferred from the digest length, by algorithm.
    inferred_mismatches: Vec<(Algorithm, u64)>,
}

impl Tally {
    /// Files whose digest matched.
    fn matched(&self) -> u64 {
        self.verified - self.mismatched
    }

    /// The counts `--json` reports.
    fn counts(&self) -> Counts {
        Counts {
            ok: self.matched(),
            failed: self.mismatched,
            missing: self.missing,
            unreadable: self.unreadable - self.missing,
            improper: self.improper,
        }
    }

    fn mismatch(&mut self, entry: &Entry) {
        self.mismatched += 1;
        if !entry.inferred {
            return;
        }
        match self
            .inferred_mismatches
            .iter_mut()
            .find(|(alg, _)| *alg == entry.algorithm)
        {
            Some((_, n)) => *n += 1,
            None => self.inferred_mismatches.push((entry.algorithm, 1)),
        }
    }
}

/// What to tell about `mismatched` failed lines checked with `algorithm` only because their
/// digest has its length: which algorithm was assumed and how to choose another of that length
/// (coreutils' tools know their algorithm, so they have nothing to say here). `None` when no
/// other algorithm has that length.
pub fn inferred_algorithm_note(algorithm: Algorithm, mismatched: u64) -> Option<String> {
    let others: Vec<&str> = same_length(algorithm.digest_size())
        .filter(|&other| other != algorithm)
        .map(|other| other.name())
        .collect();
    if others.is_empty() {
        return None;
    }
    let (lines, have, its) = match mismatched {
        1 => ("1 failed line".to_string(), "has", "its"),
        n => (format!("{n} failed lines"), "have", "their"),
    };
    Some(format!(
        "note: {lines} {have} no algorithm tag, and {algorithm} was assumed from {its} digest \
         length ({} hex digits); if the list was made with another algorithm, name it with -a \
         ALG; of that length: {}",
        2 * algorithm.digest_size(),
        others.join(", ")
    ))
}

/// Every algorithm that can make a digest of `size` bytes (at its default length or with -l).
fn same_length(size: usize) -> impl Iterator<Item = Algorithm> {
    Algorithm::ALL
        .iter()
        .copied()
        .filter(move |alg| alg.digest_sizes().contains(size))
}

/// `NAME: VERDICT`, escaped as coreutils escapes it (only names with a newline).
pub fn report_line(name: &[u8], verdict: &str, zero: bool) -> Vec<u8> {
    let mut line = Vec::with_capacity(name.len() + verdict.len() + 4);
    if !zero && escape::report_needs_escape(name) {
        line.push(b'\\');
        escape::escape_into(&mut line, name);
    } else {
        line.extend_from_slice(name);
    }
    line.extend_from_slice(b": ");
    line.extend_from_slice(verdict.as_bytes());
    line.push(if zero { b'\0' } else { b'\n' });
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_over_the_bound_is_an_improper_line_in_its_turn() {
        let digest = parhash::hash(Algorithm::Md5, b"");
        let mut list = Vec::new();
        crate::line::write_line(&mut list, Algorithm::Md5, &digest, b"a", Default::default());
        let good = list.clone();
        list.extend(std::iter::repeat_n(
            b'f',
            crate::record::MAX_RECORD_BYTES + 1,
        ));
        list.extend_from_slice(b"  b\n");
        list.extend_from_slice(&good);
        let mut list_check = Checker::new(CheckOptions::default()).start(b"l");
        let (mut reader, mut buffer) = (&list[..], Vec::new());
        let mut next = || list_check.next_record(&mut reader, &mut buffer).unwrap();
        assert!(matches!(next(), Some(Record::Check(Job { line: 1, .. }))));
        let improper = Improper {
            line: 2,
            tag: Algorithm::Md5.info().tag,
        };
        assert_eq!(next(), Some(Record::Improper(improper)));
        assert!(matches!(next(), Some(Record::Check(Job { line: 3, .. }))));
        assert_eq!(next(), None);
    }

    #[test]
    fn a_failed_inferred_line_names_the_assumed_algorithm_and_the_others() {
        let sha256 = Algorithm::from_name("sha256").unwrap();
        let note = inferred_algorithm_note(sha256, 1).unwrap();
        assert!(
            note.contains("1 failed line has no algorithm tag"),
            "{note}"
        );
        assert!(note.contains("sha256 was assumed"), "{note}");
        assert!(note.contains("(64 hex digits)"), "{note}");
        for other in Algorithm::with_digest_size(32).filter(|&a| a != sha256) {
            assert!(note.contains(other.name()), "{other} in {note}");
        }
        // Algorithms whose length is chosen with -l too (b3sum's and b2sum's lists).
        for variable in ["blake3", "blake2b", "blake2s", "shake128", "shake256"] {
            assert!(note.contains(variable), "{variable} in {note}");
        }
        assert!(inferred_algorithm_note(sha256, 2)
            .unwrap()
            .contains("2 failed lines have"));
        // A length only one algorithm has leaves nothing to choose.
        for &alg in Algorithm::ALL {
            let alone = same_length(alg.digest_size()).count() == 1;
            assert_eq!(inferred_algorithm_note(alg, 1).is_none(), alone, "{alg}");
        }
    }

    #[test]
    fn report_lines() {
        assert_eq!(report_line(b"a", "OK", false), b"a: OK\n");
        assert_eq!(report_line(b"b\\s", "OK", false), b"b\\s: OK\n");
        assert_eq!(report_line(b"c\rr", "OK", false), b"c\rr: OK\n");
        assert_eq!(
            report_line(b"x\r\n\\", "FAILED", false),
            b"\\x\\r\\n\\\\: FAILED\n"
        );
        assert_eq!(report_line(b"n\nl", "OK", true), b"n\nl: OK\0");
    }
}
