//! `parhash check` (and `parhash sum -c`): verify files against checksum lists.
//!
//! The format and the session (what a record means, what to print, whether a list passed)
//! are `parhash_format::parse` and `parhash_format::check`, shared with the Python package's
//! `parhash-dist`; this file reads the lists and hashes the files.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};

use anyhow::{Context, Result};
use parhash::{Algorithm, Output};
use parhash_format::check::{CheckOptions, Checker, ListCheck, Record, Sink};
use parhash_format::escape;

use crate::flags::{CheckArgs, HashOptions, OutputFlags, VerifyFlags};
use crate::input::{hash_input, Source};
use crate::messages::{err_message, WRITE_ERROR};

/// Everything `check` needs from the command line (from `check` or `sum -c`).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Check every line with this algorithm instead of inferring it.
    pub algorithm: Option<Algorithm>,
    pub verify: VerifyFlags,
    pub output: OutputFlags,
    pub hashing: HashOptions,
}

impl From<&CheckArgs> for Options {
    fn from(args: &CheckArgs) -> Options {
        Options {
            algorithm: args.algorithm,
            verify: args.verify.clone(),
            output: args.output.clone(),
            hashing: args.hashing.clone(),
        }
    }
}

impl Options {
    /// The session's options.
    fn check_options(&self) -> CheckOptions {
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

/// [`hash_input`] (for `check` and `sum` alike), except that standard input the parent closed fails as in sha256sum (`-: Bad
/// file descriptor`) instead of reading as empty.
pub fn hash_source(
    algorithm: Algorithm,
    source: &Source,
    options: &HashOptions,
) -> io::Result<Output> {
    match (source, crate::stdio::stdin_error()) {
        (Source::Stdin, Some(closed)) => Err(closed),
        _ => hash_input(algorithm, source, options),
    }
}

/// Standard output and error for a session: each record flushed at once (the next file may
/// take long to hash, and NUL-terminated `-z` records would wait in the line buffer), messages
/// as `parhash: MESSAGE`.
struct Terminal<W: Write> {
    out: W,
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
pub fn run(options: &Options, lists: &[OsString]) -> Result<bool> {
    let stdin_only = [OsString::from("-")];
    let lists = if lists.is_empty() {
        &stdin_only[..]
    } else {
        lists
    };
    let mut terminal = Terminal {
        out: crate::stdio::stdout(),
    };
    let mut checker = Checker::new(options.check_options());
    let mut all_ok = true;
    for list in lists {
        let name = escape::os_bytes(list);
        let session = checker.start(&name);
        all_ok &=
            check_list(options, &mut checker, session, list, &mut terminal).context(WRITE_ERROR)?;
    }
    terminal.out.flush().context(WRITE_ERROR)?;
    Ok(all_ok)
}

fn check_list(
    options: &Options,
    checker: &mut Checker,
    mut session: ListCheck,
    list: &OsString,
    out: &mut impl Sink,
) -> io::Result<bool> {
    let is_stdin = list == "-";
    if let (true, Some(closed)) = (is_stdin, crate::stdio::stdin_error()) {
        return checker.read_failed(session, &closed, out);
    }
    let mut reader: Box<dyn BufRead> = if is_stdin {
        // Unlocked: a `-` line in the list hashes standard input too.
        Box::new(BufReader::new(io::stdin()))
    } else {
        match File::open(list) {
            Ok(file) => Box::new(BufReader::new(file)),
            Err(err) => return checker.open_failed(session, &err, out),
        }
    };
    let terminator = session.terminator();
    let mut record = Vec::new();
    loop {
        record.clear();
        match reader.read_until(terminator, &mut record) {
            Ok(0) => break,
            Ok(_) => {}
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return checker.read_failed(session, &err, out),
        }
        match session.record(&record) {
            Record::Skip => {}
            Record::Improper(improper) => session.improper(&improper, out)?,
            Record::Check(job) => {
                let entry = &job.entry;
                let mut hashing = options.hashing.with_tree_params(job.tree_params);
                if let Some(size) = job.digest_size() {
                    hashing = hashing.with_digest_size(size);
                }
                let source = Source::from_name(&entry.name);
                let outcome = hash_source(entry.algorithm, &source, &hashing);
                session.checked(&job, &outcome, out)?;
            }
        }
    }
    checker.finish(session, out)
}
