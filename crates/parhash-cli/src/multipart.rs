//! Object stores' multipart checksums on the command line: `sum --etag` and `sum --composite`
//! for given part sizes (all of them from one read of each file), `sum --match VALUE` and
//! `check`'s `ETAG`/`*-COMPOSITE` lines, which find the part size. The checksums are the
//! library's (`parhash::multipart`), their text forms and lines `parhash_format::multipart`'s.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Write};

use anyhow::{Context, Result};
use parhash::multipart::{
    compute_file, compute_reader, store_candidate_part_sizes, usual_part_sizes, Combine, Multipart,
    MultipartError, Request, S3_MIN_PART,
};
use parhash::{Algorithm, Output};
use parhash_format::check::{Job, ListCheck, Sink};
use parhash_format::multipart::{self as forms, Label};
use parhash_format::{escape, line};

use crate::flags::multipart::forms_of;
use crate::flags::{HashOptions, SumArgs};
use crate::input::Source;
use crate::messages::{err_message, WRITE_ERROR};

/// `sum --etag` / `sum --composite`: a line per file, form and part size; or with --match a
/// verdict per file. `Ok(false)` when some file failed.
pub fn run(args: &SumArgs) -> Result<bool> {
    let stdin_only = [OsString::from("-")];
    let files = if args.files.is_empty() {
        &stdin_only[..]
    } else {
        &args.files[..]
    };
    let forms = forms_of(args);
    let label = (args.multipart.expected.as_deref())
        .map(|value| forms::parse_value(forms[0], value).map_err(anyhow::Error::msg))
        .transpose()?;
    let mut stdout = crate::stdio::stdout();
    let mut all_ok = true;
    for file in files {
        let name = escape::os_bytes(file);
        let source = Source::from_name(&name);
        let mut out = Vec::new();
        let ok = match &label {
            Some(label) => match_file(
                &source,
                label,
                &args.hashing,
                &name,
                args.output.zero,
                &mut out,
            ),
            None => sum_file(&source, &forms, args, &name, &mut out),
        };
        stdout.write_all(&out).context(WRITE_ERROR)?;
        stdout.flush().context(WRITE_ERROR)?;
        for message in ok.messages {
            err_message!("{message}");
        }
        all_ok &= ok.passed;
    }
    Ok(all_ok)
}

/// What one file gave: whether it passed, and the messages for standard error (after its
/// lines, as `sum` orders them).
struct FileOutcome {
    passed: bool,
    messages: Vec<String>,
}

/// The lines (with --json, the records) of one file: every form and part size from one read
/// (without part sizes, the one-piece ETag: the MD5).
fn sum_file(
    source: &Source,
    forms: &[Combine],
    args: &SumArgs,
    name: &[u8],
    out: &mut Vec<u8>,
) -> FileOutcome {
    let zero = args.output.zero;
    let json = args.output.json;
    let shown = escape::quote(name);
    let mut outcome = FileOutcome {
        passed: true,
        messages: Vec::new(),
    };
    if args.multipart.part_sizes.is_empty() {
        match crate::input::hash_source(Algorithm::Md5, source, &args.hashing) {
            Ok(md5) if json => {
                parhash_format::json::multipart_line(
                    out,
                    name,
                    Combine::S3Etag,
                    None,
                    None,
                    md5.as_bytes(),
                );
            }
            Ok(md5) => {
                let value = forms::value(Combine::S3Etag, md5.as_bytes(), None);
                line::write_tagged(out, forms::ETAG_TAG, &value, name, zero);
            }
            Err(err) => {
                if json {
                    let etag = Combine::S3Etag;
                    parhash_format::json::multipart_failure(out, name, etag, None, Ok(&err));
                }
                outcome.failed(format!("{shown}: {}", parhash_format::error_text(&err)));
            }
        }
        return outcome;
    }
    let requests: Vec<Request> = forms
        .iter()
        .flat_map(|&form| {
            (args.multipart.part_sizes.iter())
                .map(move |&size| Request::new(form, size).expect("part sizes are checked"))
        })
        .collect();
    let results = match compute_source(source, &requests) {
        Ok(results) => results,
        Err(err) => {
            if json {
                for request in &requests {
                    let size = Some(request.part_size());
                    let combine = request.combine();
                    parhash_format::json::multipart_failure(out, name, combine, size, Ok(&err));
                }
            }
            outcome.failed(format!("{shown}: {}", parhash_format::error_text(&err)));
            return outcome;
        }
    };
    for (request, result) in requests.iter().zip(results) {
        let size = request.part_size();
        match result {
            Ok(multipart) if json => parhash_format::json::multipart_line(
                out,
                name,
                request.combine(),
                Some(size),
                Some(multipart.parts),
                multipart.digest.as_bytes(),
            ),
            Ok(multipart) => {
                let tag = forms::tag(request.combine());
                line::write_tagged(out, &tag, &forms::text(&multipart), name, zero);
            }
            Err(err) => {
                let why = format!("parts of {}: {err}", forms::part_size_text(size));
                if json {
                    let combine = request.combine();
                    let record = Err(why.as_str());
                    parhash_format::json::multipart_failure(out, name, combine, Some(size), record);
                }
                // One message per part size, not per form.
                let message = format!("{shown}: {why}");
                if !outcome.messages.contains(&message) {
                    outcome.failed(message);
                }
            }
        }
    }
    outcome
}

impl FileOutcome {
    /// Marks the file failed, with `message` for standard error.
    fn failed(&mut self, message: String) {
        self.passed = false;
        self.messages.push(message);
    }
}

/// Every request's checksum of `source`, from one read, or why S3 could not have made it (the
/// file needs too many parts): a regular file's requests are held to S3's limits before it is
/// read, a stream's after (its length known then).
fn compute_source(
    source: &Source,
    requests: &[Request],
) -> io::Result<Vec<Result<Multipart, MultipartError>>> {
    let file = match source {
        Source::Stdin => match crate::stdio::stdin_error() {
            Some(closed) => return Err(closed),
            None => None,
        },
        Source::Path(path) => Some(File::open(path)?),
    };
    let regular_len = match &file {
        Some(file) => Some(file.metadata()?)
            .filter(|m| m.is_file())
            .map(|m| m.len()),
        None => None,
    };
    let (len, results) = match (&file, regular_len) {
        (Some(file), Some(len)) => {
            let valid: Vec<Request> = (requests.iter().copied())
                .filter(|r| r.check_s3_limits(len).is_ok())
                .collect();
            // A file no request fits is not read at all.
            let results = if valid.is_empty() {
                Vec::new()
            } else {
                compute_file(file, &valid)?
            };
            (len, results)
        }
        (file, _) => {
            let mut count = 0;
            let results = match file {
                Some(inner) => compute_reader(
                    Counting {
                        inner,
                        count: &mut count,
                    },
                    requests,
                )?,
                None => {
                    let inner = io::stdin().lock();
                    compute_reader(
                        Counting {
                            inner,
                            count: &mut count,
                        },
                        requests,
                    )?
                }
            };
            (count, results)
        }
    };
    let mut results = results.into_iter();
    Ok(requests
        .iter()
        .map(|request| {
            request.check_s3_limits(len)?;
            Ok(results
                .next()
                .expect("one result per request within the limits"))
        })
        .collect())
}

/// A stream that counts the bytes it gives.
struct Counting<'a, R> {
    inner: R,
    count: &'a mut u64,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let got = self.inner.read(buf)?;
        *self.count += got as u64;
        Ok(got)
    }
}

/// What trying part sizes against a value found.
struct Found {
    /// The part size and part count that gave the value.
    matched: Option<(u64, u64)>,
    /// The part sizes tried.
    tried: Vec<u64>,
    /// The value found, else the first size's (or nothing, where no size was tried): what
    /// `--json` reports as the actual digest.
    actual: Output,
    /// Whether it matched (a one-piece ETag matches with no part size).
    ok: bool,
}

impl Found {
    /// The note after the verdict (none for a one-piece ETag).
    fn note(&self, label: &Label) -> Option<String> {
        let one_piece = label.combine == Combine::S3Etag && label.parts.is_none();
        (!one_piece).then(|| forms::verdict_note(self.matched, &self.tried, label.parts))
    }
}

/// Tries on the file the part sizes that could give `label` (those of [`sizes_to_try`]) from
/// one read; an ETag without `-N` is the file's MD5.
fn find(source: &Source, label: &Label, hashing: &HashOptions) -> io::Result<Found> {
    if label.combine == Combine::S3Etag && label.parts.is_none() {
        let md5 = crate::input::hash_source(Algorithm::Md5, source, hashing)?;
        return Ok(Found {
            ok: md5.as_bytes() == label.digest,
            matched: None,
            tried: Vec::new(),
            actual: md5,
        });
    }
    let Source::Path(path) = source else {
        return Err(io::Error::other(
            "the part sizes to try come from a file's length: name a file, not standard input",
        ));
    };
    let file = File::open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        let why = if metadata.is_dir() {
            "Is a directory"
        } else {
            "the part sizes to try come from a file's length: not a regular file"
        };
        return Err(io::Error::other(why));
    }
    let min_part = hashing.min_part_size.unwrap_or(S3_MIN_PART);
    let tried = sizes_to_try(metadata.len(), label.parts, min_part);
    let requests: Vec<Request> = (tried.iter())
        .map(|&size| Request::new(label.combine, size).expect("candidates are not 0"))
        .collect();
    let results = compute_file(&file, &requests)?;
    let matched = results.iter().find(|m| m.digest.as_bytes() == label.digest);
    Ok(Found {
        ok: matched.is_some(),
        matched: matched.map(|m| (m.request.part_size(), m.parts)),
        actual: (matched.or(results.first()))
            .map_or_else(|| Output::from_slice(&[]), |m| m.digest.clone()),
        tried,
    })
}

/// The part sizes to try on a file of `len` bytes for a value of `parts` parts (for each part
/// count a usual size gives, where the value does not say), one for a one-part upload (every
/// size of one part gives the same value); only sizes the store would have taken for this
/// file (S3's limits, its smallest part `min_part`), so that no refused size is reported as the
/// one that made the value.
fn sizes_to_try(len: u64, parts: Option<u64>, min_part: u64) -> Vec<u64> {
    let counts: Vec<u64> = match parts {
        Some(parts) => vec![parts],
        None => (usual_part_sizes().into_iter())
            .filter_map(|size| {
                let request = Request::new(Combine::S3Etag, size).ok()?;
                request.check_store_limits(len, min_part).ok()?;
                Some(request.parts(len))
            })
            .collect(),
    };
    let mut sizes: Vec<u64> = Vec::new();
    let mut one_part = false;
    for count in counts {
        for size in store_candidate_part_sizes(len, count, min_part) {
            if count == 1 && std::mem::replace(&mut one_part, true) {
                continue;
            }
            sizes.push(size);
        }
    }
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// `sum --match`: `NAME: OK (part size 8 MiB)`, `NAME: FAILED (tried ...)` or `NAME: FAILED
/// open or read`, as `check` reports a line.
fn match_file(
    source: &Source,
    label: &Label,
    hashing: &HashOptions,
    name: &[u8],
    zero: bool,
    out: &mut Vec<u8>,
) -> FileOutcome {
    match find(source, label, hashing) {
        Ok(found) => {
            let verdict = if found.ok { "OK" } else { "FAILED" };
            let verdict = match found.note(label) {
                Some(note) => format!("{verdict} ({note})"),
                None => verdict.to_string(),
            };
            out.extend(parhash_format::check::report_line(name, &verdict, zero));
            FileOutcome {
                passed: found.ok,
                messages: Vec::new(),
            }
        }
        Err(err) => {
            let report = parhash_format::check::report_line(name, "FAILED open or read", zero);
            out.extend(report);
            FileOutcome {
                passed: false,
                messages: vec![format!(
                    "{}: {}",
                    escape::quote(name),
                    parhash_format::error_text(&err)
                )],
            }
        }
    }
}

/// `check`'s multipart line: the part sizes tried from one read, the verdict with its note.
pub fn check_job(
    list_check: &mut ListCheck,
    job: &Job,
    label: &Label,
    hashing: &HashOptions,
    out: &mut impl Sink,
) -> io::Result<()> {
    let source = Source::from_name(&job.entry.name);
    match find(&source, label, hashing) {
        Ok(found) => {
            let note = found.note(label);
            let outcome = Ok(if found.ok {
                Output::from_slice(&label.digest)
            } else {
                found.actual
            });
            list_check.checked_noting(job, &outcome, note.as_deref(), out)
        }
        Err(err) => list_check.checked(job, &Err(err), out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flags::tests::{parse, sum};

    fn refusal(args: &[&str]) -> String {
        parse(&[&["sum"], args].concat()).unwrap_err().to_string()
    }

    #[test]
    fn multipart_flags() {
        let s = sum(&[
            "--etag",
            "--part-size",
            "8MiB,16M",
            "--part-size",
            "5242880",
            "f",
        ]);
        assert!(s.multipart.etag && !s.multipart.composite);
        assert_eq!(s.multipart.part_sizes, [8 << 20, 16 << 20, 5 << 20]);
        assert_eq!(forms_of(&s), [Combine::S3Etag]);
        let s = sum(&["--composite", "-a", "sha1,crc32c", "--part-size", "8MiB"]);
        let composite = |alg| Combine::Composite(alg);
        let expected = [composite(Algorithm::Sha1), composite(Algorithm::Crc32c)];
        assert_eq!(forms_of(&s), expected);
        let s = sum(&["--composite", "--etag", "--part-size", "8MiB"]);
        assert_eq!(
            forms_of(&s),
            [Combine::S3Etag, composite(Algorithm::Sha256)]
        );
        assert!(sum(&["--etag", "f"]).multipart.part_sizes.is_empty());
        let value = format!("\"{}-2\"", "0".repeat(32));
        assert_eq!(
            sum(&["--etag", "--match", &value]).multipart.expected,
            Some(value)
        );
    }

    #[test]
    fn refused_multipart_flags() {
        for (args, why) in [
            (
                &["--part-size", "8MiB"][..],
                "go with --etag or --composite",
            ),
            (&["--etag", "--part-size", "0"], "at least 1 byte"),
            (&["--etag", "--part-size", "x"], "not a size"),
            (
                &["--etag", "--part-size", "1MiB"],
                "under S3's smallest part",
            ),
            (&["--etag", "--part-size", "6GiB"], "over S3's largest part"),
            (&["--etag", "-a", "sha256"], "-a names the algorithms"),
            (
                &["--composite", "-a", "crc64nvme", "--part-size", "8MiB"],
                "whole file's",
            ),
            (
                &["--composite", "-a", "md5", "--part-size", "8MiB"],
                "not md5",
            ),
            (&["--composite"], "needs --part-size"),
            (&["--etag", "--match", "xyz"], "not an S3 ETag"),
            (&["--etag", "--composite", "--match", "x"], "one form"),
            (
                &["--etag", "--match", "x", "--part-size", "8MiB"],
                "cannot be used",
            ),
            (&["--etag", "-c", "l"], "cannot be used"),
            (&["--etag", "-r", "d"], "cannot be used"),
            (&["--etag", "--json", "--match", "x"], "--json goes with"),
            (&["--etag", "--json", "--tag"], "cannot be used"),
        ] {
            let err = refusal(args);
            assert!(err.contains(why), "{args:?}: {err}");
        }
    }

    #[test]
    fn sizes_tried() {
        let len = (20 << 20) + 3;
        let sizes = sizes_to_try(len, Some(3), S3_MIN_PART);
        assert!(sizes.contains(&(8 << 20)) && sizes.contains(&(7 << 20)));
        // One part: one size (all give the same value).
        assert_eq!(sizes_to_try(3, Some(1), S3_MIN_PART).len(), 1);
        // No count: the counts the usual sizes give, each with its candidates.
        let any = sizes_to_try(len, None, S3_MIN_PART);
        for size in [5 << 20, 8 << 20, 16 << 20] {
            assert!(any.contains(&size), "{size}");
        }
        assert_eq!(any.iter().filter(|&&s| s >= len).count(), 1);
        assert!(sizes_to_try(3, Some(5), S3_MIN_PART).is_empty());
        // Only sizes S3 takes for the file: none under 5 MiB in several parts, none that
        // gives more than 10,000 parts.
        assert!(sizes_to_try(10 << 20, Some(3), S3_MIN_PART).is_empty());
        assert_eq!(
            sizes_to_try(10 << 20, Some(2), S3_MIN_PART),
            [5 << 20, 8 << 20]
        );
        assert!(sizes_to_try(10_001 * (5 << 20), Some(10_001), S3_MIN_PART).is_empty());
        // A store with smaller parts (--min-part-size): its part size tried, never under it.
        assert!(sizes_to_try(3 << 16, Some(3), S3_MIN_PART).is_empty());
        assert_eq!(sizes_to_try(3 << 16, Some(3), 1 << 16), [1 << 16]);
        // The smallest part is tried itself: 65,537-byte parts make three of 3 x 65,536 bytes.
        assert_eq!(
            sizes_to_try(3 << 16, Some(3), (1 << 16) + 1),
            [(1 << 16) + 1]
        );
    }
}
