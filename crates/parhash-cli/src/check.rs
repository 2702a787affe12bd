//! `parhash check` (and `parhash sum -c`): verify files against checksum lists.
//!
//! The grammar and the messages follow GNU coreutils' sha256sum (9.1), so lists written by
//! either tool check with the other and scripts see the same output and exit status:
//!
//! - Records end with `\n` (NUL with `-z`); a trailing `\r` is dropped; lines starting with `#`
//!   and empty lines are skipped.
//! - GNU line: optional blanks, optional `\` (the name is escaped: `\\`, `\n`, `\r`), hex
//!   digest, one blank, then ` ` or `*` (the mode marker) and the name. A list whose first
//!   line has no marker (`HEX NAME`) must keep that form throughout, and the other way round.
//! - BSD line: optional blanks, optional `\`, `TAG`, optional space, `(NAME)`, blanks, `=`,
//!   blanks, hex digest. The name ends at the last `)`.
//! - Hex digits may be upper or lower case.
//! - A file name ends at its first NUL byte, as C strings do in coreutils (an escaped name with
//!   a NUL makes the line improper).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};

use anyhow::{Context, Result};
use parhash::{Algorithm, Family, TreeParams};

use crate::escape;
use crate::flags::{CheckArgs, HashOptions, OutputFlags, VerifyFlags};
use crate::input::{self, hash_input, Source};
use crate::json::{AlgorithmFrom, CheckReport, Checked, Counts, Problem};
use crate::messages::{err_message, WRITE_ERROR};
use parhash::Output;

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

/// One parsed checksum line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub algorithm: Algorithm,
    /// The digest the list expects.
    pub expected: Vec<u8>,
    /// The file name, unescaped.
    pub name: Vec<u8>,
    /// PARSHA-256's parameters, from a `PARSHA256-T<T>-IV<l>` tag.
    pub parsha: Option<TreeParams>,
    /// The algorithm was inferred from the digest's length (a GNU line without -a), so a
    /// mismatch may mean the list was made with another algorithm of that length.
    pub inferred: bool,
}

/// What one record of a checksum list is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    /// A comment or an empty line.
    Skip,
    /// Neither a GNU nor a BSD checksum line.
    Improper,
    Entry(Entry),
}

/// Parses the records of one checksum list. Stateful because a list must not mix `HEX  NAME`
/// with the marker-less `HEX NAME` form (coreutils' guard against names with leading blanks).
#[derive(Clone, Debug)]
pub struct Parser {
    forced: Option<Algorithm>,
    zero: bool,
    /// `Some(true)` once a marker-less line was seen, `Some(false)` once a marked one was.
    without_marker: Option<bool>,
}

impl Parser {
    /// A parser for one list; `forced` is `-a`, `zero` is `-z` (NUL records, names verbatim).
    pub fn new(forced: Option<Algorithm>, zero: bool) -> Parser {
        Parser {
            forced,
            zero,
            without_marker: None,
        }
    }

    /// Parses one record, with or without its terminator.
    pub fn parse(&mut self, record: &[u8]) -> Line {
        if record.first() == Some(&b'#') {
            return Line::Skip;
        }
        let terminator = if self.zero { b'\0' } else { b'\n' };
        let mut line = record.strip_suffix(&[terminator]).unwrap_or(record);
        if !self.zero {
            line = line.strip_suffix(b"\r").unwrap_or(line);
        }
        if line.is_empty() {
            return Line::Skip;
        }
        let start = line.iter().take_while(|&&b| is_blank(b)).count();
        let mut rest = &line[start..];
        let escaped = !self.zero && rest.first() == Some(&b'\\');
        if escaped {
            rest = &rest[1..];
        }
        if let Some(line) = self.parse_bsd(rest, escaped) {
            return line;
        }
        self.parse_gnu(rest, escaped)
    }

    /// `TAG (NAME) = HEX`, or `None` when the line does not start with a known tag and `(`.
    fn parse_bsd(&self, line: &[u8], escaped: bool) -> Option<Line> {
        let word_len = line.iter().position(|&b| b == b' ' || b == b'(')?;
        let tag = std::str::from_utf8(&line[..word_len]).ok()?;
        let crate::parsha::Tagged {
            algorithm,
            params: parsha,
            digest_size,
        } = crate::parsha::from_tag(tag)?;
        let mut after = &line[word_len..];
        after = after.strip_prefix(b" ").unwrap_or(after);
        let inside = after.strip_prefix(b"(")?;
        if self.forced.is_some_and(|forced| forced != algorithm) {
            return Some(Line::Improper);
        }
        let Some(close) = inside.iter().rposition(|&b| b == b')') else {
            return Some(Line::Improper);
        };
        let raw_name = &inside[..close];
        let tail = skip_blanks(&inside[close + 1..]);
        let Some(tail) = tail.strip_prefix(b"=") else {
            return Some(Line::Improper);
        };
        let hex = skip_blanks(tail);
        Some(
            match self.entry(algorithm, digest_size, hex, raw_name, escaped) {
                Line::Entry(entry) => Line::Entry(Entry { parsha, ..entry }),
                other => other,
            },
        )
    }

    /// `HEX  NAME`, `HEX *NAME` or (in a list that uses it throughout) `HEX NAME`.
    fn parse_gnu(&mut self, line: &[u8], escaped: bool) -> Line {
        let hex_len = line.iter().take_while(|b| b.is_ascii_hexdigit()).count();
        let algorithm = match self.forced {
            // Any length the algorithm can produce (BLAKE2, BLAKE3 and SHAKE have many), as
            // `b2sum -c` reads the length from the digest.
            Some(forced) if hex_len % 2 == 0 && forced.digest_sizes().contains(hex_len / 2) => {
                forced
            }
            Some(_) => return Line::Improper,
            None if hex_len % 2 == 0 => match infer_from_digest_size(hex_len / 2) {
                Some(alg) => alg,
                None => return Line::Improper,
            },
            None => return Line::Improper,
        };
        // A blank after the digest, then at least one more byte.
        if line.len() < hex_len + 2 || !is_blank(line[hex_len]) {
            return Line::Improper;
        }
        let mut name_start = hex_len + 1;
        let marker = line[name_start];
        if line.len() - name_start == 1 || (marker != b' ' && marker != b'*') {
            if self.without_marker == Some(false) {
                return Line::Improper;
            }
            self.without_marker = Some(true);
        } else if self.without_marker != Some(true) {
            self.without_marker = Some(false);
            name_start += 1;
        }
        let size = hex_len / 2;
        match self.entry(
            algorithm,
            size,
            &line[..hex_len],
            &line[name_start..],
            escaped,
        ) {
            Line::Entry(entry) => Line::Entry(Entry {
                inferred: self.forced.is_none(),
                ..entry
            }),
            other => other,
        }
    }

    fn entry(
        &self,
        algorithm: Algorithm,
        size: usize,
        hex: &[u8],
        raw_name: &[u8],
        escaped: bool,
    ) -> Line {
        let Some(expected) = decode_hex(hex).filter(|d| d.len() == size) else {
            return Line::Improper;
        };
        let name = if escaped {
            match escape::unescape(raw_name).filter(|name| !name.contains(&0)) {
                Some(name) => name,
                None => return Line::Improper,
            }
        } else {
            let up_to_nul = raw_name.split(|&b| b == 0).next().unwrap_or_default();
            up_to_nul.to_vec()
        };
        Line::Entry(Entry {
            algorithm,
            expected,
            name,
            parsha: None,
            inferred: false,
        })
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

/// The algorithm of a GNU line with a digest of `size` bytes: the SHA-2 one where several
/// share the size (`sha256` for 32 bytes, before `sha3-256` or `keccak256`).
pub fn infer_from_digest_size(size: usize) -> Option<Algorithm> {
    let plain_sha2 = format!("sha{}", size * 8);
    let candidates: Vec<Algorithm> = Algorithm::with_digest_size(size).collect();
    candidates
        .iter()
        .find(|a| a.name() == plain_sha2)
        .or_else(|| candidates.iter().find(|a| a.info().family == Family::Sha2))
        .or_else(|| candidates.first())
        .copied()
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn skip_blanks(bytes: &[u8]) -> &[u8] {
    let n = bytes.iter().take_while(|&&b| is_blank(b)).count();
    &bytes[n..]
}

fn decode_hex(hex: &[u8]) -> Option<Vec<u8>> {
    if hex.is_empty() || hex.len() % 2 != 0 {
        return None;
    }
    hex.chunks_exact(2)
        .map(|pair| {
            let high = (pair[0] as char).to_digit(16)?;
            let low = (pair[1] as char).to_digit(16)?;
            Some((high * 16 + low) as u8)
        })
        .collect()
}

/// Counts for one checksum list, as coreutils keeps them.
#[derive(Debug, Default)]
struct Tally {
    improper: u64,
    mismatched: u64,
    unreadable: u64,
    /// Of the unreadable, those that do not exist.
    missing: u64,
    verified: u64,
    any_proper: bool,
    /// Mismatches of lines whose algorithm was inferred from the digest length, by algorithm.
    inferred_mismatches: Vec<(Algorithm, u64)>,
}

impl Tally {
    /// The counts `--json` reports.
    fn counts(&self) -> Counts {
        Counts {
            ok: self.verified - self.mismatched,
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

/// Runs `check` over each list (`-` or none: standard input); `Ok(false)` if anything failed.
pub fn run(options: &Options, lists: &[OsString]) -> Result<bool> {
    let stdin_only = [OsString::from("-")];
    let lists = if lists.is_empty() {
        &stdin_only[..]
    } else {
        lists
    };
    let mut stdout = crate::stdio::stdout();
    let mut all_ok = true;
    let mut named = NamedAlgorithm::new(options.algorithm);
    for list in lists {
        all_ok &= check_list(options, list, &mut named, &mut stdout)?;
    }
    stdout.flush().context(WRITE_ERROR)?;
    Ok(all_ok)
}

/// The algorithm an `improperly formatted ALG checksum line` warning names, as coreutils names
/// it: the one `-a` fixes; else (as `cksum -c` does) that of the last properly formatted line,
/// and before any, `sum`'s default, sha256 (what sha256sum says).
struct NamedAlgorithm {
    forced: Option<Algorithm>,
    last_seen: Option<Algorithm>,
}

impl NamedAlgorithm {
    fn new(forced: Option<Algorithm>) -> NamedAlgorithm {
        NamedAlgorithm {
            forced,
            last_seen: None,
        }
    }

    fn saw(&mut self, algorithm: Algorithm) {
        self.last_seen = Some(algorithm);
    }

    /// The tag to name (`SHA256`, `MD5`).
    fn tag(&self) -> &'static str {
        match self.forced.or(self.last_seen) {
            Some(algorithm) => algorithm.info().tag,
            None => Algorithm::from_name(crate::flags::DEFAULT_ALGORITHM)
                .map_or("SHA256", |a| a.info().tag),
        }
    }
}

fn check_list(
    options: &Options,
    list: &OsStr,
    named: &mut NamedAlgorithm,
    out: &mut impl Write,
) -> Result<bool> {
    let list_name = escape::os_bytes(list);
    let is_stdin = list_name.as_ref() == b"-";
    let shown = escape::quote(if is_stdin {
        b"standard input"
    } else {
        &list_name
    });
    // With --json (and not --status), the records of this list.
    let json =
        (options.output.json && !options.verify.status).then(|| CheckReport::new(&list_name));
    if let (true, Some(closed)) = (is_stdin, crate::stdio::stdin_error()) {
        // sha256sum's words for a list on a closed standard input.
        err_message!("{shown}: read error");
        return list_failed(&json, out, &Tally::default(), Problem::Io(&closed));
    }
    let mut reader: Box<dyn BufRead> = if is_stdin {
        // Unlocked: a `-` line in the list hashes standard input too.
        Box::new(BufReader::new(io::stdin()))
    } else {
        match File::open(list) {
            Ok(file) => Box::new(BufReader::new(file)),
            Err(err) => {
                err_message!("{shown}: {}", input::error_text(&err));
                return list_failed(&json, out, &Tally::default(), Problem::Io(&err));
            }
        }
    };
    let verify = &options.verify;
    let zero = options.output.zero;
    let terminator = if zero { b'\0' } else { b'\n' };
    // Each line's digest says its length (`-l` is accepted and ignored, as by `b2sum -c`).
    let mut parser = Parser::new(options.algorithm, zero);
    let mut tally = Tally::default();
    let mut record = Vec::new();
    let mut line_number = 0u64;
    loop {
        record.clear();
        match reader.read_until(terminator, &mut record) {
            Ok(0) => break,
            Ok(_) => {}
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => {
                err_message!("{shown}: read error");
                return list_failed(&json, out, &tally, Problem::Io(&err));
            }
        }
        line_number += 1;
        let entry = match parser.parse(&record) {
            Line::Skip => continue,
            Line::Improper => {
                tally.improper += 1;
                if verify.warn {
                    let tag = named.tag();
                    err_message!(
                        "{shown}: {line_number}: improperly formatted {tag} checksum line"
                    );
                }
                if let Some(report) = &json {
                    out.write_all(&report.improper(line_number))
                        .context(WRITE_ERROR)?;
                }
                continue;
            }
            Line::Entry(entry) => entry,
        };
        tally.any_proper = true;
        named.saw(entry.algorithm);
        let source = Source::from_name(&entry.name);
        let mut hashing = match entry.parsha {
            Some(params) => options.hashing.with_tree_params(params),
            None => options.hashing.clone(),
        };
        if entry.algorithm.digest_sizes().is_variable() {
            hashing = hashing.with_digest_size(entry.expected.len());
        }
        let outcome = hash_source(entry.algorithm, &source, &hashing);
        let verdict = match &outcome {
            Err(err) if verify.ignore_missing && err.kind() == io::ErrorKind::NotFound => continue,
            Err(err) => {
                err_message!("{}: {}", escape::quote(&entry.name), input::error_text(err));
                tally.unreadable += 1;
                tally.missing += u64::from(err.kind() == io::ErrorKind::NotFound);
                "FAILED open or read"
            }
            Ok(digest) => {
                tally.verified += 1;
                if digest.as_bytes() == entry.expected {
                    if verify.quiet {
                        continue;
                    }
                    "OK"
                } else {
                    tally.mismatch(&entry);
                    "FAILED"
                }
            }
        };
        if !verify.status {
            // Flushed at once: the next file may take long to hash (NUL-terminated `-z` lines
            // would wait in the line buffer).
            let report = match &json {
                Some(report) => report.line(
                    line_number,
                    Checked {
                        name: &entry.name,
                        algorithm: entry.algorithm,
                        algorithm_from: match (entry.inferred, options.algorithm) {
                            (true, _) => AlgorithmFrom::Length,
                            (false, Some(_)) => AlgorithmFrom::Option,
                            (false, None) => AlgorithmFrom::Tag,
                        },
                        parsha: Some(hashing.tree_params()),
                        expected: &entry.expected,
                        outcome: &outcome,
                    },
                ),
                None => report_line(&entry.name, verdict, zero),
            };
            out.write_all(&report)
                .and_then(|()| out.flush())
                .context(WRITE_ERROR)?;
        }
    }

    if !tally.any_proper {
        const NONE_FOUND: &str = "no properly formatted checksum lines found";
        err_message!("{shown}: {NONE_FOUND}");
        return list_failed(&json, out, &tally, Problem::Message(NONE_FOUND));
    }
    if !verify.status {
        // Flush first so the summary follows the report when both go to one place.
        out.flush().context(WRITE_ERROR)?;
        let plural =
            |n: u64, one: &'static str, many: &'static str| if n == 1 { one } else { many };
        if tally.improper > 0 {
            let n = tally.improper;
            err_message!(
                "WARNING: {n} {}",
                plural(
                    n,
                    "line is improperly formatted",
                    "lines are improperly formatted"
                )
            );
        }
        if tally.unreadable > 0 {
            let n = tally.unreadable;
            err_message!(
                "WARNING: {n} {}",
                plural(
                    n,
                    "listed file could not be read",
                    "listed files could not be read"
                )
            );
        }
        if tally.mismatched > 0 {
            let n = tally.mismatched;
            err_message!(
                "WARNING: {n} {}",
                plural(
                    n,
                    "computed checksum did NOT match",
                    "computed checksums did NOT match"
                )
            );
            for &(algorithm, n) in &tally.inferred_mismatches {
                if let Some(note) = inferred_algorithm_note(algorithm, n) {
                    err_message!("{note}");
                }
            }
        }
        if verify.ignore_missing && tally.verified == 0 {
            err_message!("{shown}: no file was verified");
        }
    }
    let none_verified = verify.ignore_missing && tally.verified == 0;
    let passed = tally.mismatched == 0
        && tally.unreadable == 0
        && (!verify.strict || tally.improper == 0)
        && !none_verified;
    if let Some(report) = &json {
        let problem = none_verified.then_some(Problem::Message("no file was verified"));
        out.write_all(&report.summary(tally.counts(), passed, problem))
            .and_then(|()| out.flush())
            .context(WRITE_ERROR)?;
    }
    Ok(passed)
}

/// With --json, the summary of a list that failed as a whole; `Ok(false)`.
fn list_failed(
    json: &Option<CheckReport>,
    out: &mut impl Write,
    tally: &Tally,
    problem: Problem<'_>,
) -> Result<bool> {
    if let Some(report) = json {
        out.write_all(&report.summary(tally.counts(), false, Some(problem)))
            .and_then(|()| out.flush())
            .context(WRITE_ERROR)?;
    }
    Ok(false)
}

/// What to tell about `mismatched` failed lines checked with `algorithm` only because their
/// digest has its length: which algorithm was assumed and how to choose another of that length
/// (coreutils' tools know their algorithm, so they have nothing to say here). `None` when no
/// other algorithm has that length.
fn inferred_algorithm_note(algorithm: Algorithm, mismatched: u64) -> Option<String> {
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
fn report_line(name: &[u8], verdict: &str, zero: bool) -> Vec<u8> {
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

    const MD5_ABC: &str = "900150983cd24fb0d6963f7d28e17f72";

    fn entry(name: &[u8]) -> Line {
        Line::Entry(Entry {
            algorithm: Algorithm::Md5,
            expected: decode_hex(MD5_ABC.as_bytes()).unwrap(),
            name: name.to_vec(),
            parsha: None,
            inferred: true,
        })
    }

    /// A BSD line's entry, or one of a list checked with -a: the algorithm was not inferred.
    fn tagged(name: &[u8]) -> Line {
        match entry(name) {
            Line::Entry(e) => Line::Entry(Entry {
                inferred: false,
                ..e
            }),
            other => other,
        }
    }

    fn parse(line: &str) -> Line {
        Parser::new(None, false).parse(line.as_bytes())
    }

    #[test]
    fn gnu_lines() {
        assert_eq!(parse(&format!("{MD5_ABC}  a b\n")), entry(b"a b"));
        assert_eq!(parse(&format!("{MD5_ABC} *a")), entry(b"a"));
        assert_eq!(parse(&format!("{MD5_ABC}\t a")), entry(b"a"));
        assert_eq!(parse(&format!("  {MD5_ABC}  a\r\n")), entry(b"a"));
        assert_eq!(
            parse(&format!("{}  a", MD5_ABC.to_uppercase())),
            entry(b"a")
        );
        assert_eq!(parse(&format!("{MD5_ABC}  a ")), entry(b"a "));
        assert_eq!(parse(&format!("{MD5_ABC}   a")), entry(b" a"));
    }

    #[test]
    fn escaped_names() {
        assert_eq!(
            parse(&format!("\\{MD5_ABC}  n\\nl\\\\b\\rc")),
            entry(b"n\nl\\b\rc")
        );
        assert_eq!(parse(&format!("\\{MD5_ABC}  bad\\x")), Line::Improper);
        assert_eq!(
            parse(&format!("{MD5_ABC}  not\\nescaped")),
            entry(b"not\\nescaped")
        );
        assert_eq!(
            parse(&format!("\\MD5 (n\\nl) = {MD5_ABC}")),
            tagged(b"n\nl")
        );
    }

    #[test]
    fn bsd_lines() {
        assert_eq!(parse(&format!("MD5 (a b) = {MD5_ABC}")), tagged(b"a b"));
        assert_eq!(parse(&format!("MD5(a)={MD5_ABC}")), tagged(b"a"));
        assert_eq!(parse(&format!("MD5 (a)  =  {MD5_ABC}")), tagged(b"a"));
        assert_eq!(
            parse(&format!("MD5 (x) (y)) = {MD5_ABC}")),
            tagged(b"x) (y)")
        );
        assert_eq!(parse(&format!("md5 (a) = {MD5_ABC}")), Line::Improper);
        assert_eq!(parse(&format!("MD5 (a) = {MD5_ABC}0")), Line::Improper);
        assert_eq!(parse(&format!("MD5 (a) {MD5_ABC}")), Line::Improper);
        assert_eq!(parse("NOSUCH (a) = 00"), Line::Improper);
    }

    #[test]
    fn skipped_and_improper_lines() {
        assert_eq!(parse("# comment\n"), Line::Skip);
        assert_eq!(parse("\n"), Line::Skip);
        assert_eq!(parse("\r\n"), Line::Skip);
        assert_eq!(parse("garbage\n"), Line::Improper);
        assert_eq!(parse(MD5_ABC), Line::Improper);
        assert_eq!(parse(&format!("{MD5_ABC} ")), Line::Improper);
        assert_eq!(parse(&format!("{MD5_ABC}0  a")), Line::Improper);
        assert_eq!(parse(&format!("{MD5_ABC}x  a")), Line::Improper);
        assert_eq!(parse("abc  a"), Line::Improper);
    }

    #[test]
    fn marker_less_lines_must_not_mix() {
        let mut parser = Parser::new(None, false);
        assert_eq!(parser.parse(format!("{MD5_ABC} a").as_bytes()), entry(b"a"));
        assert_eq!(
            parser.parse(format!("{MD5_ABC}  b").as_bytes()),
            entry(b" b")
        );
        let mut parser = Parser::new(None, false);
        assert_eq!(
            parser.parse(format!("{MD5_ABC}  b").as_bytes()),
            entry(b"b")
        );
        assert_eq!(
            parser.parse(format!("{MD5_ABC} a").as_bytes()),
            Line::Improper
        );
    }

    #[test]
    fn forced_algorithm() {
        let mut parser = Parser::new(Some(Algorithm::Md5), false);
        assert_eq!(
            parser.parse(format!("{MD5_ABC}  a").as_bytes()),
            tagged(b"a")
        );
        assert_eq!(
            parser.parse(format!("MD5 (a) = {MD5_ABC}").as_bytes()),
            tagged(b"a")
        );
        assert_eq!(
            parser.parse(format!("{MD5_ABC}00  a").as_bytes()),
            Line::Improper
        );
    }

    #[test]
    fn zero_records_are_verbatim() {
        let mut parser = Parser::new(None, true);
        assert_eq!(
            parser.parse(format!("{MD5_ABC}  n\nl\\\0").as_bytes()),
            entry(b"n\nl\\")
        );
        assert_eq!(
            parser.parse(format!("{MD5_ABC}  c\r\0").as_bytes()),
            entry(b"c\r")
        );
    }

    #[test]
    fn inference_prefers_sha2() {
        assert_eq!(infer_from_digest_size(16), Some(Algorithm::Md5));
        assert_eq!(infer_from_digest_size(3), None);
        for (size, name) in [
            (20, "sha1"),
            (28, "sha224"),
            (32, "sha256"),
            (48, "sha384"),
            (64, "sha512"),
        ] {
            if let Ok(alg) = Algorithm::from_name(name) {
                assert_eq!(infer_from_digest_size(size), Some(alg));
            }
        }
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
