//! The checksum-list format (`parhash_format`, the same code as `parhash sum` and `parhash
//! check`) for Python: `parhash.format` re-exports it (`python/parhash/format.py`), and
//! `parhash-dist` runs its checks through [`Checker`] and [`ListCheck`], so the cluster's
//! output is the CLI's because it is made by the CLI's code.
//!
//! Names are bytes (as the CLI sees them on Unix); errors from Python (`OSError` with `errno`
//! and `strerror`, or any exception a Ray task raised) become `io::Error`s once, here
//! ([`io_error`]), and the format words them as the CLI does.

use std::io;
use std::path::PathBuf;

use parhash::{Algorithm, Output, TreeParams};
use parhash_format::check::{self, CheckOptions, Event, Improper, Job};
use parhash_format::{escape, json, length, line, parse, tag, walk};
use pyo3::exceptions::{PyKeyError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::error::Error;
use crate::options;

/// What a check run says, for Python: `(True, bytes)` for standard output, `(False, str)` for a
/// message on standard error (without the program's name).
type Events = Vec<(bool, Py<PyAny>)>;

fn events(py: Python<'_>, list: Vec<Event>) -> Events {
    list.into_iter()
        .map(|event| match event {
            Event::Output(bytes) => (true, PyBytes::new(py, &bytes).into_any().unbind()),
            Event::Message(text) => (false, PyString::new(py, &text).into_any().unbind()),
        })
        .collect()
}

/// `(T, l)` from Python, or the defaults.
fn tree_params(params: Option<(i64, i64)>) -> PyResult<Option<TreeParams>> {
    params
        .map(|(t, l)| options::tree_params(Some(t), Some(l)))
        .transpose()
}

fn params_tuple(params: TreeParams) -> (u32, u32) {
    (params.tree_height(), params.iv_bits())
}

/// A Python exception (an `OSError`, or whatever a remote task raised) as the `io::Error` the
/// format words: the OS's error where it has an `errno` (`No such file or directory`, and
/// `errno` in JSON records), otherwise its message, without a leading `NAME: ` that repeats
/// the file's name.
pub(crate) fn io_error(err: &Bound<'_, PyAny>, name: &[u8]) -> io::Error {
    let is_os_error = err.is_instance_of::<PyOSError>();
    if is_os_error {
        let errno: Option<i32> = err.getattr("errno").ok().and_then(|e| e.extract().ok());
        let strerror: Option<String> = err.getattr("strerror").ok().and_then(|s| s.extract().ok());
        if let Some(code) = errno {
            let from_os = io::Error::from_raw_os_error(code);
            match strerror {
                Some(text) if !text.is_empty() && text != parhash_format::error_text(&from_os) => {
                    return io::Error::new(from_os.kind(), text);
                }
                _ => return from_os,
            }
        }
    }
    let message: String = err
        .getattr("args")
        .ok()
        .and_then(|args| args.get_item(0).ok())
        .and_then(|first| first.str().ok())
        .map(|s| s.to_string())
        .or_else(|| err.str().ok().map(|s| s.to_string()))
        .unwrap_or_default();
    let prefix = format!("{}: ", String::from_utf8_lossy(name));
    let message = match message.strip_prefix(&prefix) {
        Some(rest) if is_os_error => rest.to_string(),
        _ => message,
    };
    // Rust's words for a bare error kind, as a Rust-raised error may carry them.
    match message.as_str() {
        "entity not found" => io::Error::from(io::ErrorKind::NotFound),
        "permission denied" => io::Error::from(io::ErrorKind::PermissionDenied),
        _ => io::Error::other(message),
    }
}

/// A digest (bytes) or the exception that stopped it.
fn outcome(result: &Bound<'_, PyAny>, name: &[u8]) -> io::Result<Output> {
    match result.cast::<PyBytes>() {
        Ok(digest) => Ok(Output::from_slice(digest.as_bytes())),
        Err(_) => Err(io_error(result, name)),
    }
}

/// One checksum line for `name`, byte for byte as `parhash sum` writes it: `HEX  NAME`,
/// `HEX *NAME` with `binary`, `TAG (NAME) = HEX` with `tag`, NUL-terminated and unescaped
/// with `zero`; `tree_params` are PARSHA-256's (T, l) for its tag.
#[pyfunction]
#[pyo3(signature = (algorithm, digest, name, *, tag=false, binary=false, zero=false, tree_params=None))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub(crate) fn checksum_line<'py>(
    py: Python<'py>,
    algorithm: &str,
    digest: &[u8],
    name: &[u8],
    tag: bool,
    binary: bool,
    zero: bool,
    tree_params: Option<(i64, i64)>,
) -> PyResult<Bound<'py, PyBytes>> {
    let algorithm = options::algorithm(algorithm)?;
    let style = line::LineStyle {
        tag,
        binary,
        zero,
        parsha: self::tree_params(tree_params)?,
        json: false,
        ..line::LineStyle::default()
    };
    let mut out = Vec::new();
    line::write_line(
        &mut out,
        algorithm,
        &Output::from_slice(digest),
        name,
        style,
    );
    Ok(PyBytes::new(py, &out))
}

/// `parhash sum --json`'s record of `name`: its digest, or (`result` an exception) the error.
/// With a list of algorithms (`sum -a md5,sha256 --json`), `result` is a dict of digests by
/// those names (or the exception) and the record holds them all.
#[pyfunction]
#[pyo3(signature = (algorithm, result, name, tree_params=None))]
pub(crate) fn sum_record<'py>(
    py: Python<'py>,
    algorithm: &Bound<'py, PyAny>,
    result: &Bound<'py, PyAny>,
    name: &[u8],
    tree_params: Option<(i64, i64)>,
) -> PyResult<Bound<'py, PyBytes>> {
    let params = self::tree_params(tree_params)?;
    let mut out = Vec::new();
    if let Ok(algorithm) = algorithm.extract::<String>() {
        let algorithm = options::algorithm(&algorithm)?;
        match outcome(result, name) {
            Ok(digest) => json::sum_line(&mut out, algorithm, &digest, name, params),
            Err(err) => json::sum_failure(&mut out, algorithm, name, &err, params),
        }
        return Ok(PyBytes::new(py, &out));
    }
    let names: Vec<String> = algorithm.extract()?;
    let algorithms =
        (names.iter().map(|name| options::algorithm(name))).collect::<PyResult<Vec<_>>>()?;
    match result.cast::<PyDict>() {
        Ok(digests) => {
            let mut outputs = Vec::with_capacity(names.len());
            for name in &names {
                let digest = digests.get_item(name)?.ok_or_else(|| {
                    PyKeyError::new_err(format!("no digest for {name} in the result"))
                })?;
                outputs.push(Output::from_slice(digest.extract::<&[u8]>()?));
            }
            json::sum_digests(&mut out, &algorithms, Ok(&outputs), name, params);
        }
        Err(_) => {
            let err = io_error(result, name);
            json::sum_digests(&mut out, &algorithms, Err(&err), name, params);
        }
    }
    Ok(PyBytes::new(py, &out))
}

/// The form a multipart name names (`"etag"`, `"ALG-composite"`), as `hash_file` reads it.
fn multipart_form(form: &str) -> PyResult<parhash::multipart::Combine> {
    crate::forms::form_of_name(form)?.ok_or_else(|| {
        PyValueError::new_err(format!(
            "{form} is no multipart form (\"etag\", \"ALG-composite\")"
        ))
    })
}

/// `parhash sum --etag`/`--composite`'s line of `name` for `form` (`"etag"`, `"ALG-composite"`)
/// and its `value` as the store shows it (what `hash_files` gives): `ETAG (NAME) = HEX-N`.
#[pyfunction]
#[pyo3(signature = (form, value, name, *, zero=false))]
pub(crate) fn multipart_line<'py>(
    py: Python<'py>,
    form: &str,
    value: &str,
    name: &[u8],
    zero: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let tag = parhash_format::multipart::tag(multipart_form(form)?);
    let mut out = Vec::new();
    line::write_tagged(&mut out, &tag, value, name, zero);
    Ok(PyBytes::new(py, &out))
}

/// `parhash sum --etag`/`--composite --json`'s record of `name` for `form` and `part_size`
/// (None: the one-piece ETag): `result` the value as the store shows it, or the exception.
#[pyfunction]
pub(crate) fn multipart_record<'py>(
    py: Python<'py>,
    form: &str,
    part_size: Option<u64>,
    result: &Bound<'py, PyAny>,
    name: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let combine = multipart_form(form)?;
    let mut out = Vec::new();
    match result.extract::<String>() {
        Ok(value) => {
            let label = parhash_format::multipart::parse_value(combine, &value)
                .map_err(PyValueError::new_err)?;
            json::multipart_line(
                &mut out,
                name,
                combine,
                part_size,
                label.parts,
                &label.digest,
            );
        }
        Err(_) if result.is_instance_of::<PyValueError>() => {
            // S3's limits (too many parts): no OS error.
            let text = parhash_format::error_text(&io_error(result, name));
            json::multipart_failure(&mut out, name, combine, part_size, Err(&text));
        }
        Err(_) => {
            let err = io_error(result, name);
            json::multipart_failure(&mut out, name, combine, part_size, Ok(&err));
        }
    }
    Ok(PyBytes::new(py, &out))
}

/// A part size as `parhash sum --part-size` reads it (`8MiB`, `5242880`; within S3's limits).
#[pyfunction]
pub(crate) fn parse_part_size(text: &str) -> PyResult<u64> {
    parhash_format::multipart::parse_part_size(text).map_err(PyValueError::new_err)
}

/// The name distributions give `algorithm`'s list (`SHA256SUMS`, `B2SUMS`), as `parhash sum
/// --lists` names it.
#[pyfunction]
pub(crate) fn list_name(algorithm: &str) -> PyResult<String> {
    Ok(tag::list_name(options::algorithm(algorithm)?))
}

/// What `-l BITS` is wrong about with `-a` naming several algorithms (it sets the length of
/// those with a choice of lengths, and at least one must have one), as the CLI says it.
#[pyfunction]
pub(crate) fn several_length_error(
    algorithms: Vec<String>,
    bits: Option<usize>,
) -> PyResult<Option<String>> {
    let algorithms =
        (algorithms.iter().map(|name| options::algorithm(name))).collect::<PyResult<Vec<_>>>()?;
    Ok(length::several_length_error(&algorithms, bits))
}

/// `NAME: ERROR` as `parhash sum` reports a file it could not hash (without the program's
/// name): the name quoted as coreutils quotes it, the error in the C library's words.
#[pyfunction]
pub(crate) fn failure_message(error: &Bound<'_, PyAny>, name: &[u8]) -> String {
    let err = io_error(error, name);
    format!(
        "{}: {}",
        escape::quote(name),
        parhash_format::error_text(&err)
    )
}

/// A name quoted for a message as coreutils' `quotef` quotes it (`'a b'`, `"it's"`,
/// `'a'$'\n''b'`).
#[pyfunction]
pub(crate) fn quote(name: &[u8]) -> String {
    escape::quote(name)
}

/// The BSD tag of `algorithm` for a digest of `size` bytes (None: its default), as `parhash
/// sum --tag` writes it: `SHA256`, `BLAKE2b-256`, `PARSHA256-T13-IV256`.
#[pyfunction]
#[pyo3(signature = (algorithm, tree_params=None, size=None))]
pub(crate) fn bsd_tag(
    algorithm: &str,
    tree_params: Option<(i64, i64)>,
    size: Option<usize>,
) -> PyResult<String> {
    let algorithm = options::algorithm(algorithm)?;
    let params = match (tree_params, algorithm.takes_tree_params()) {
        (None, true) => Some(options::tree_params(None, None)?),
        (params, _) => self::tree_params(params)?,
    };
    Ok(tag::tag(
        algorithm,
        params,
        size.unwrap_or(algorithm.digest_size()),
    ))
}

/// `(algorithm, tree_params or None, digest size in bytes)`.
type Tagged = (&'static str, Option<(u32, u32)>, usize);

/// What a BSD tag names: `(algorithm, tree_params or None, digest size in bytes)`, or None.
#[pyfunction]
pub(crate) fn from_tag(text: &str) -> Option<Tagged> {
    let tagged = tag::from_tag(text)?;
    Some((
        tagged.algorithm.name(),
        tagged.params.map(params_tuple),
        tagged.digest_size,
    ))
}

/// `-l BITS` read as the CLI reads it: a number of bits, a multiple of 8 (ValueError with the
/// CLI's words otherwise).
#[pyfunction]
pub(crate) fn parse_bits(text: &str) -> PyResult<usize> {
    Ok(length::parse_bits(text).map_err(Error::value)?)
}

/// The digest size in bytes `-l BITS` asks of `algorithm`: None for its default (no `-l`,
/// `-l 0` or its own length); ValueError (the CLI's words) for a length it cannot make.
#[pyfunction]
#[pyo3(signature = (algorithm, bits))]
pub(crate) fn length_digest_size(algorithm: &str, bits: Option<usize>) -> PyResult<Option<usize>> {
    let algorithm = options::algorithm(algorithm)?;
    Ok(length::digest_size(algorithm, bits).map_err(Error::value)?)
}

/// What `-l BITS` is wrong about with `-a ALGORITHM` (None: nothing), as the CLI says it.
#[pyfunction]
#[pyo3(signature = (algorithm, bits, checking))]
pub(crate) fn length_error(
    algorithm: Option<&str>,
    bits: Option<usize>,
    checking: bool,
) -> PyResult<Option<String>> {
    let algorithm = algorithm.map(options::algorithm).transpose()?;
    Ok(length::length_error(algorithm, bits, checking))
}

/// The algorithm a tagless (GNU) line with a `size`-byte digest is checked with (the SHA-2
/// one where several share the size), or None.
#[pyfunction]
pub(crate) fn infer_algorithm(size: usize) -> Option<&'static str> {
    parse::infer_from_digest_size(size).map(Algorithm::name)
}

/// One checksum line of a list.
#[pyclass(module = "parhash.format", frozen, get_all)]
pub(crate) struct Entry {
    /// The line's number in its list, from 1.
    line: u64,
    /// The algorithm's canonical name.
    algorithm: &'static str,
    /// The digest the line expects.
    expected: Py<PyBytes>,
    /// The file's name, unescaped.
    name: Py<PyBytes>,
    /// PARSHA-256's `(T, l)` to hash with (the line's tag's, else the defaults given).
    tree_params: Option<(u32, u32)>,
    /// The digest size to ask for where the algorithm's length varies, else None.
    digest_size: Option<usize>,
    /// The algorithm was inferred from the digest's length (a GNU line without `-a`).
    inferred: bool,
}

impl Entry {
    fn new(py: Python<'_>, job: &Job) -> Entry {
        let entry = &job.entry;
        Entry {
            line: job.line,
            algorithm: entry.algorithm.name(),
            expected: PyBytes::new(py, &entry.expected).unbind(),
            name: PyBytes::new(py, &entry.name).unbind(),
            tree_params: entry
                .algorithm
                .takes_tree_params()
                .then(|| params_tuple(job.tree_params)),
            digest_size: job.digest_size(),
            inferred: entry.inferred,
        }
    }
}

#[pymethods]
impl Entry {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Entry(line={}, algorithm={:?}, name={}, expected={})",
            self.line,
            self.algorithm,
            self.name
                .bind(py)
                .repr()
                .map_or_else(|_| "?".into(), |r| r.to_string()),
            hex(self.expected.bind(py).as_bytes()),
        )
    }
}

fn hex(bytes: &[u8]) -> String {
    Output::from_slice(bytes).to_hex()
}

/// The entries of a checksum list (`data`: its bytes), as `parhash check` reads them: GNU
/// (`HEX  NAME`) and BSD (`TAG (NAME) = HEX`) lines, escaped names, the algorithm from `-a`
/// (`algorithm`), the tag or the digest's length. Comments and empty lines are skipped;
/// improperly formatted lines are skipped too, or with `strict` a ValueError naming the line.
#[pyfunction]
#[pyo3(signature = (data, *, algorithm=None, zero=false, strict=false, tree_params=None))]
pub(crate) fn parse_list(
    py: Python<'_>,
    data: &[u8],
    algorithm: Option<&str>,
    zero: bool,
    strict: bool,
    tree_params: Option<(i64, i64)>,
) -> PyResult<Vec<Entry>> {
    let options = CheckOptions {
        algorithm: algorithm.map(options::algorithm).transpose()?,
        zero,
        tree_params: match self::tree_params(tree_params)? {
            Some(params) => params,
            None => options::tree_params(None, None)?,
        },
        ..CheckOptions::default()
    };
    let mut list_check = check::Checker::new(options).start(b"-");
    let terminator = list_check.terminator();
    let mut entries = Vec::new();
    for record in data.split_inclusive(|&b| b == terminator) {
        match list_check.record(record) {
            check::Record::Skip => {}
            check::Record::Improper(improper) if strict => {
                return Err(PyValueError::new_err(format!(
                    "line {}: improperly formatted {} checksum line",
                    improper.line, improper.tag
                )))
            }
            check::Record::Improper(_) => {}
            check::Record::Check(job) => entries.push(Entry::new(py, &job)),
        }
    }
    Ok(entries)
}

/// What a list's next record asks for: check a file, or report an improper line.
#[pyclass(module = "parhash.format", frozen)]
pub(crate) struct Step {
    job: Option<Job>,
    improper: Option<Improper>,
    entry: Option<Py<Entry>>,
}

#[pymethods]
impl Step {
    /// The line to check (None for an improperly formatted line).
    #[getter]
    fn entry(&self, py: Python<'_>) -> Option<Py<Entry>> {
        self.entry.as_ref().map(|e| e.clone_ref(py))
    }

    /// The line's number.
    #[getter]
    fn line(&self) -> u64 {
        match (&self.job, &self.improper) {
            (Some(job), _) => job.line,
            (_, Some(improper)) => improper.line,
            _ => 0,
        }
    }
}

/// `parhash check` over lists, one after the other (what a warning names carries over from one
/// list to the next, as in coreutils). Start each list with [`Checker::start`], feed its
/// records to the [`ListCheck`], hand each file's digest or error back in the list's order,
/// then [`Checker::finish`]. Each call returns what to print: a list of `(True, bytes)` for
/// standard output and `(False, str)` for standard error.
/// `check`'s options from Python's keyword arguments: `-a`, the flags `[zero, warn, quiet,
/// status, strict, ignore_missing, json]` and PARSHA-256's parameters.
pub(crate) fn check_options(
    algorithm: Option<&str>,
    [zero, warn, quiet, status, strict, ignore_missing, json]: [bool; 7],
    tree_height: Option<i64>,
    iv_bits: Option<i64>,
) -> PyResult<CheckOptions> {
    Ok(CheckOptions {
        algorithm: algorithm.map(options::algorithm).transpose()?,
        zero,
        warn,
        quiet,
        status,
        strict,
        ignore_missing,
        json,
        tree_params: options::tree_params(tree_height, iv_bits)?,
    })
}

#[pyclass(module = "parhash.format")]
pub(crate) struct Checker {
    inner: check::Checker,
}

#[pymethods]
impl Checker {
    #[new]
    #[pyo3(signature = (*, algorithm=None, zero=false, warn=false, quiet=false, status=false,
                        strict=false, ignore_missing=false, json=false, tree_height=None,
                        iv_bits=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        algorithm: Option<&str>,
        zero: bool,
        warn: bool,
        quiet: bool,
        status: bool,
        strict: bool,
        ignore_missing: bool,
        json: bool,
        tree_height: Option<i64>,
        iv_bits: Option<i64>,
    ) -> PyResult<Checker> {
        let options = check_options(
            algorithm,
            [zero, warn, quiet, status, strict, ignore_missing, json],
            tree_height,
            iv_bits,
        )?;
        Ok(Checker {
            inner: check::Checker::new(options),
        })
    }

    /// Starts the list named `name` (bytes; `-` is standard input).
    fn start(&self, name: &[u8]) -> ListCheck {
        ListCheck {
            inner: Some(self.inner.start(name)),
        }
    }

    /// Ends `list`: its warnings and summary. `(passed, events)`.
    fn finish(&mut self, py: Python<'_>, list: &mut ListCheck) -> PyResult<(bool, Events)> {
        let mut out = Vec::new();
        let passed = self.inner.finish(list.take()?, &mut out)?;
        Ok((passed, events(py, out)))
    }

    /// Ends a list that could not be opened (`error`: the OSError). `(False, events)`.
    fn open_failed(
        &mut self,
        py: Python<'_>,
        list: &mut ListCheck,
        error: &Bound<'_, PyAny>,
    ) -> PyResult<(bool, Events)> {
        self.end(py, list, error, check::Checker::open_failed)
    }

    /// Ends a list that could not be read (`LIST: read error`). `(False, events)`.
    fn read_failed(
        &mut self,
        py: Python<'_>,
        list: &mut ListCheck,
        error: &Bound<'_, PyAny>,
    ) -> PyResult<(bool, Events)> {
        self.end(py, list, error, check::Checker::read_failed)
    }
}

/// How a list that failed as a whole ends: [`check::Checker::open_failed`] or `read_failed`.
type Failed =
    fn(&mut check::Checker, check::ListCheck, &io::Error, &mut Vec<Event>) -> io::Result<bool>;

impl Checker {
    /// Ends `list` with `how`, `error` (the OSError) as the reason: `(False, events)`.
    fn end(
        &mut self,
        py: Python<'_>,
        list: &mut ListCheck,
        error: &Bound<'_, PyAny>,
        how: Failed,
    ) -> PyResult<(bool, Events)> {
        let list_check = list.take()?;
        let err = io_error(error, b"");
        let mut out = Vec::new();
        let passed = how(&mut self.inner, list_check, &err, &mut out)?;
        Ok((passed, events(py, out)))
    }
}

/// One list being checked (from [`Checker::start`]).
#[pyclass(module = "parhash.format")]
pub(crate) struct ListCheck {
    inner: Option<check::ListCheck>,
}

impl ListCheck {
    fn unfinished(&mut self) -> PyResult<&mut check::ListCheck> {
        self.inner
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("this list was finished"))
    }

    fn take(&mut self) -> PyResult<check::ListCheck> {
        self.inner
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("this list was finished"))
    }
}

#[pymethods]
impl ListCheck {
    /// The record terminator: `b"\n"`, or `b"\0"` with `zero`.
    #[getter]
    fn terminator<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &[self.unfinished()?.terminator()]))
    }

    /// The list's name as messages quote it.
    #[getter]
    fn shown(&mut self) -> PyResult<String> {
        Ok(self.unfinished()?.shown().to_string())
    }

    /// Reads the next record: None (a comment or an empty line) or a [`Step`] to report in
    /// its turn with [`ListCheck::report`].
    fn record(&mut self, py: Python<'_>, record: &[u8]) -> PyResult<Option<Step>> {
        Ok(match self.unfinished()?.record(record) {
            check::Record::Skip => None,
            check::Record::Improper(improper) => Some(Step {
                job: None,
                improper: Some(improper),
                entry: None,
            }),
            check::Record::Check(job) => Some(Step {
                entry: Some(Py::new(py, Entry::new(py, &job))?),
                job: Some(job),
                improper: None,
            }),
        })
    }

    /// Reports `step`: an improper line's warning, or a checked line's verdict from `result`
    /// (the digest as bytes, or the exception that stopped it), with `note` after it in
    /// parentheses (`check --range`'s `bytes A-B`). The events to print.
    #[pyo3(signature = (step, result=None, *, note=None))]
    fn report(
        &mut self,
        py: Python<'_>,
        step: &Step,
        result: Option<&Bound<'_, PyAny>>,
        note: Option<&str>,
    ) -> PyResult<Events> {
        let list_check = self.unfinished()?;
        let mut out = Vec::new();
        match (&step.job, &step.improper, result) {
            (Some(job), _, Some(result)) => {
                let outcome = outcome(result, &job.entry.name);
                list_check.checked_noting(job, &outcome, note, &mut out)?
            }
            (Some(_), _, None) => {
                return Err(PyValueError::new_err(
                    "a checked line needs its result: the digest or the exception",
                ))
            }
            (None, Some(improper), _) => list_check.improper(improper, &mut out)?,
            (None, None, _) => {}
        }
        Ok(events(py, out))
    }
}

/// The files `parhash sum [-r] NAMES...` hashes, in its order: `(path, None)` for each file,
/// `(directory, OSError)` for a directory that could not be read. Paths are bytes.
#[pyclass(module = "parhash.format")]
pub(crate) struct Walk {
    inner: Box<dyn Iterator<Item = walk::Entry> + Send + Sync>,
}

#[pymethods]
impl Walk {
    #[new]
    #[pyo3(signature = (names, recursive=true))]
    fn new(names: Vec<Bound<'_, PyAny>>, recursive: bool) -> PyResult<Walk> {
        let paths = names
            .iter()
            .map(crate::files::path_arg)
            .collect::<PyResult<Vec<PathBuf>>>()?;
        Ok(Walk {
            inner: Box::new(walk::expand(paths, recursive)),
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> Option<(Py<PyBytes>, Option<PyErr>)> {
        let entry = py.detach(|| self.inner.next())?;
        Some(match entry {
            walk::Entry::File(path) => (path_bytes(py, &path), None),
            walk::Entry::Unreadable(path, err) => {
                let error = PyErr::from(Error::Io(err, path.clone()));
                (path_bytes(py, &path), Some(error))
            }
        })
    }
}

fn path_bytes(py: Python<'_>, path: &std::path::Path) -> Py<PyBytes> {
    PyBytes::new(py, &escape::os_bytes(path.as_os_str())).unbind()
}

/// Adds the format's functions and classes to the extension module.
pub(crate) fn add(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<Entry>()?;
    module.add_class::<Step>()?;
    module.add_class::<Checker>()?;
    module.add_class::<ListCheck>()?;
    module.add_class::<Walk>()?;
    module.add_function(wrap_pyfunction!(checksum_line, module)?)?;
    module.add_function(wrap_pyfunction!(sum_record, module)?)?;
    module.add_function(wrap_pyfunction!(multipart_line, module)?)?;
    module.add_function(wrap_pyfunction!(multipart_record, module)?)?;
    module.add_function(wrap_pyfunction!(parse_part_size, module)?)?;
    module.add_function(wrap_pyfunction!(list_name, module)?)?;
    module.add_function(wrap_pyfunction!(several_length_error, module)?)?;
    module.add_function(wrap_pyfunction!(failure_message, module)?)?;
    module.add_function(wrap_pyfunction!(quote, module)?)?;
    module.add_function(wrap_pyfunction!(bsd_tag, module)?)?;
    module.add_function(wrap_pyfunction!(from_tag, module)?)?;
    module.add_function(wrap_pyfunction!(parse_bits, module)?)?;
    module.add_function(wrap_pyfunction!(length_digest_size, module)?)?;
    module.add_function(wrap_pyfunction!(length_error, module)?)?;
    module.add_function(wrap_pyfunction!(infer_algorithm, module)?)?;
    module.add_function(wrap_pyfunction!(parse_list, module)?)?;
    Ok(())
}
