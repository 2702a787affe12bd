//! Lists that resume, update and audit, for Python (`parhash.lists`, `parhash.distributed`,
//! `parhash-dist`): the reading of old lists and side files, the merge of a list with a walk
//! and the audit's verdicts and report are `parhash_format::{resume, update, meta, audit}`,
//! the code `parhash sum -o` and `parhash check --audit` run. Python hashes with the engine
//! it is given and writes the files through `list_file` (`parhash_format::list_file`, as the
//! CLI writes them); every byte of a list, a side file or a report is made here.
//!
//! Names are bytes; a walk is an iterable of `(name, OSError or None)` as `parhash.format.walk`
//! yields them, in `parhash sum -r`'s order.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use parhash::{Algorithm, TreeParams};
use parhash_format::audit::{self, Auditor, Report, Status, Tally};
use parhash_format::check::{self, CheckOptions};
use parhash_format::json::AuditReport;
use parhash_format::line::LineStyle;
use parhash_format::meta::{self, Meta, MetaReader};
use parhash_format::resume::{Prefix, Step};
use parhash_format::resumed::{NotResumed, Resume};
use parhash_format::update::{ListEntries, ListEntry, Merge, Merged, UpdateError, WalkOrder};
use parhash_format::{audit_list, escape};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyIterator, PyString};

use crate::error::Error;
use crate::files::path_arg;
use crate::format::{check_options, io_error};
use crate::options;

/// The style `sum -a algorithm` writes its lines in (PARSHA-256's parameters always set for
/// it, as the CLI sets them, defaults where none are given).
fn line_style(
    algorithm: Algorithm,
    tag: bool,
    binary: bool,
    zero: bool,
    json: bool,
    tree_params: Option<(i64, i64)>,
) -> PyResult<LineStyle> {
    let parsha = match algorithm.takes_tree_params() {
        true => Some(options::tree_params(
            tree_params.map(|p| p.0),
            tree_params.map(|p| p.1),
        )?),
        false => None,
    };
    Ok(LineStyle {
        tag,
        binary,
        zero,
        parsha,
        json,
        ..LineStyle::default()
    })
}

fn open(path: &Path) -> PyResult<BufReader<File>> {
    File::open(path)
        .map(BufReader::new)
        .map_err(|err| Error::Io(err, path.to_path_buf()).into())
}

/// The side file's line for `name`, from the file's metadata now (None if it cannot be had):
/// what `sum -o` records just before it reads a file.
#[pyfunction]
pub(crate) fn meta_record<'py>(py: Python<'py>, name: &[u8]) -> Option<Bound<'py, PyBytes>> {
    let metadata = std::fs::metadata(escape::path_from_bytes(name)).ok()?;
    let mut out = Vec::new();
    meta::write_record(&mut out, name, &Meta::of(&metadata));
    Some(PyBytes::new(py, &out))
}

/// A side-file record for Python: `(size, mtime_ns, ctime_ns, ino, dev)`.
type MetaTuple = (u64, i64, i64, u64, u64);

/// `(name, (size, mtime_ns, ctime_ns, ino, dev))` of one side-file line, or None for the header
/// and anything that is not a record.
#[pyfunction]
pub(crate) fn parse_meta_record<'py>(
    py: Python<'py>,
    line: &[u8],
) -> Option<(Bound<'py, PyBytes>, MetaTuple)> {
    let (name, m) = meta::parse_record(line)?;
    Some((
        PyBytes::new(py, &name),
        (m.size, m.mtime_ns, m.ctime_ns, m.ino, m.dev),
    ))
}

/// The path of the side file of the list at `list`: `LIST.parhash-meta` (bytes).
#[pyfunction]
pub(crate) fn meta_path<'py>(list: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let side = meta::side_path(&path_arg(list)?);
    Ok(PyBytes::new(list.py(), &escape::os_bytes(side.as_os_str())))
}

/// A side file read in the order of its list (`sum -r`'s walk order over `roots`), record by
/// record: what `--update` and `--resume` look up in it.
#[pyclass(module = "parhash.format", unsendable)]
pub(crate) struct SideFile {
    reader: MetaReader<BufReader<File>>,
    order: WalkOrder,
}

#[pymethods]
impl SideFile {
    /// The side file at `path` (its list's names walked from `roots`).
    #[new]
    fn new(path: &Bound<'_, PyAny>, roots: Vec<Bound<'_, PyAny>>) -> PyResult<SideFile> {
        let path = path_arg(path)?;
        let roots = (roots.iter())
            .map(|root| Ok(escape::os_bytes(path_arg(root)?.as_os_str()).into_owned()))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(SideFile {
            reader: MetaReader::new(open(&path)?),
            order: WalkOrder::new(roots),
        })
    }

    /// The record of `name`, the list's next entry: `(size, mtime_ns, ctime_ns, ino, dev)`, or
    /// None if it has none (records of names before it are passed over).
    fn find(&mut self, name: &[u8]) -> PyResult<Option<MetaTuple>> {
        let order = &self.order;
        let found = self.reader.find(name, |a, b| order.cmp(a, b))?;
        Ok(found.map(|m| (m.size, m.mtime_ns, m.ctime_ns, m.ino, m.dev)))
    }

    /// The record of `name` if it is the next one (a resumed list and its side file go in
    /// step), else None.
    fn take_if_next(&mut self, name: &[u8]) -> PyResult<Option<MetaTuple>> {
        let found = self.reader.take_if_next(name)?;
        Ok(found.map(|m| (m.size, m.mtime_ns, m.ctime_ns, m.ino, m.dev)))
    }

    /// The offset after the last record taken (or the header): where a resumed side file is
    /// cut.
    #[getter]
    fn taken_end(&self) -> u64 {
        self.reader.taken_end()
    }
}

/// `LIST: line N is incomplete or unreadable: written again`.
fn torn_message(path: &Path, line: u64) -> String {
    format!(
        "{}: line {line} is incomplete or unreadable: written again",
        path.display()
    )
}

/// A list `sum -o` began, compared with a new walk one name at a time (`--resume`): which
/// files it has already, where it and its side file are cut and continued. The CLI's driver
/// ([`Resume`]) over one list.
#[pyclass(module = "parhash.format", unsendable)]
pub(crate) struct ResumedList {
    /// `None` once finished.
    resume: Option<Resume<BufReader<File>>>,
}

/// A refusal as Python's: the side file's read error as OSError, anything else (in the CLI's
/// words) as ValueError.
fn not_resumed(err: NotResumed) -> PyErr {
    match err {
        NotResumed::Side(err) => err.into(),
        other => Error::Value(other.to_string()).into(),
    }
}

#[pymethods]
impl ResumedList {
    /// The list at `path` as `sum -a algorithm` wrote it in this style; its side file, if
    /// any, beside it.
    #[new]
    #[pyo3(signature = (path, algorithm, *, tag=false, binary=false, zero=false, json=false, tree_params=None))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn new(
        path: &Bound<'_, PyAny>,
        algorithm: &str,
        tag: bool,
        binary: bool,
        zero: bool,
        json: bool,
        tree_params: Option<(i64, i64)>,
    ) -> PyResult<ResumedList> {
        let path = path_arg(path)?;
        let algorithm = options::algorithm(algorithm)?;
        let style = line_style(algorithm, tag, binary, zero, json, tree_params)?;
        let prefix = Prefix::new(open(&path)?, algorithm, style);
        let side = File::open(meta::side_path(&path))
            .ok()
            .map(|file| MetaReader::new(BufReader::new(file)));
        Ok(ResumedList {
            resume: Some(Resume::new(vec![(path, prefix)], side)),
        })
    }

    /// The walk's next file: `("kept", None)` (the list has it: not hashed again), `("gap",
    /// error)` (the earlier run could not read it, nor can this one: report `error`), or
    /// `("resume", None)`: hash it and every file after it. `error` is the walk's for it.
    #[pyo3(signature = (name, error=None))]
    fn step(
        &mut self,
        py: Python<'_>,
        name: &[u8],
        error: Option<Bound<'_, PyAny>>,
    ) -> PyResult<(&'static str, Option<Py<PyAny>>)> {
        let Some(resume) = self.resume.as_mut() else {
            return Err(PyValueError::new_err("the resumed list is finished"));
        };
        let mut failure: Option<Py<PyAny>> = error.as_ref().map(|e| e.clone().unbind());
        let fails_now = || {
            if failure.is_some() {
                return true;
            }
            let path = escape::path_from_bytes(name);
            match File::open(&path) {
                Ok(_) => false,
                Err(err) => {
                    failure = Some(
                        PyErr::from(Error::Io(err, path.to_path_buf()))
                            .into_value(py)
                            .into_any(),
                    );
                    true
                }
            }
        };
        Ok(match resume.step(name, fails_now).map_err(not_resumed)? {
            Step::Kept => ("kept", None),
            Step::Gap => ("gap", failure),
            Step::Resume => ("resume", None),
        })
    }

    /// After the walk (or its first file to hash): `(list_len, meta_len, messages)`: where
    /// the list and the side file are cut (0: the side file is written anew, header first),
    /// and what `sum` says of a torn last line. ValueError (in the CLI's words) when the list
    /// names files the walk does not have.
    fn finish(&mut self) -> PyResult<(u64, u64, Vec<String>)> {
        let Some(resume) = self.resume.take() else {
            return Err(PyValueError::new_err("the resumed list is finished"));
        };
        let cuts = resume.finish().map_err(not_resumed)?;
        let messages = (cuts.torn.iter())
            .map(|(path, line)| torn_message(path, *line))
            .collect();
        Ok((cuts.list_lens[0], cuts.meta_len, messages))
    }
}

/// One file of a walk from Python.
struct Walked {
    name: Vec<u8>,
    error: Option<Py<PyAny>>,
}

/// A Python iterable of `(name, error or None)` as a Rust iterator; the first exception it
/// raises is kept and ends it.
struct PyWalk {
    iter: Py<PyIterator>,
    raised: Rc<RefCell<Option<PyErr>>>,
}

impl Iterator for PyWalk {
    type Item = Walked;

    fn next(&mut self) -> Option<Walked> {
        if self.raised.borrow().is_some() {
            return None;
        }
        Python::attach(|py| {
            let next = self.iter.bind(py).clone().next()?;
            let walked = next.and_then(|item| {
                let (name, error): (Bound<'_, PyAny>, Option<Bound<'_, PyAny>>) = item.extract()?;
                let name = escape::os_bytes(path_arg(&name)?.as_os_str()).into_owned();
                Ok(Walked {
                    name,
                    error: error.filter(|e| !e.is_none()).map(Bound::unbind),
                })
            });
            walked
                .map_err(|err| *self.raised.borrow_mut() = Some(err))
                .ok()
        })
    }
}

fn walked_name(walked: &Walked) -> &[u8] {
    &walked.name
}

type ListMerge = Merge<ListEntries<BufReader<File>>, PyWalk, fn(&Walked) -> &[u8]>;

/// `sum -o LIST --update`: the list merged with a new walk, one step at a time, as `parhash
/// sum` merges them.
#[pyclass(module = "parhash.format", unsendable)]
pub(crate) struct ListUpdate {
    path: PathBuf,
    merge: ListMerge,
    /// What the walk raised, if anything: raised again where it was met.
    walk_raised: Rc<RefCell<Option<PyErr>>>,
    order: WalkOrder,
    side: Option<MetaReader<BufReader<File>>>,
    rehash_changed: bool,
    kept: u64,
    added: u64,
    dropped: u64,
    rehashed: u64,
    messages: Vec<String>,
}

#[pymethods]
impl ListUpdate {
    /// The list at `path` (written by `sum -a algorithm` in this style over `roots`) merged
    /// with `walk`. With `rehash_changed`, a kept file whose metadata differs from its side
    /// file's record (or has none) is hashed again.
    #[new]
    #[pyo3(signature = (path, algorithm, roots, walk, *, rehash_changed=false, tag=false, binary=false, zero=false, json=false, tree_params=None))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn new(
        path: &Bound<'_, PyAny>,
        algorithm: &str,
        roots: Vec<Bound<'_, PyAny>>,
        walk: &Bound<'_, PyAny>,
        rehash_changed: bool,
        tag: bool,
        binary: bool,
        zero: bool,
        json: bool,
        tree_params: Option<(i64, i64)>,
    ) -> PyResult<ListUpdate> {
        let path = path_arg(path)?;
        let algorithm = options::algorithm(algorithm)?;
        let style = line_style(algorithm, tag, binary, zero, json, tree_params)?;
        let roots = (roots.iter())
            .map(|root| Ok(escape::os_bytes(path_arg(root)?.as_os_str()).into_owned()))
            .collect::<PyResult<Vec<_>>>()?;
        let order = WalkOrder::new(roots);
        let entries = ListEntries::new(open(&path)?, algorithm, style, order.clone());
        let meta_path = meta::side_path(&path);
        let mut messages = Vec::new();
        let side = match File::open(&meta_path) {
            Ok(file) => Some(MetaReader::new(BufReader::new(file))),
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                messages.push(format!(
                    "{}: not found: changes made before this update cannot be detected; \
                     the metadata of the kept entries is recorded now",
                    meta_path.display()
                ));
                None
            }
            Err(err) => return Err(Error::Io(err, meta_path.to_path_buf()).into()),
        };
        let walk_raised = Rc::new(RefCell::new(None));
        let walk = PyWalk {
            iter: walk.try_iter()?.unbind(),
            raised: walk_raised.clone(),
        };
        let merge: ListMerge = Merge::new(entries, walk, order.clone(), walked_name);
        Ok(ListUpdate {
            path,
            merge,
            walk_raised,
            order,
            side,
            rehash_changed,
            kept: 0,
            added: 0,
            dropped: 0,
            rehashed: 0,
            messages,
        })
    }

    /// What `sum` says before it starts (a side file that is not there).
    #[getter]
    fn messages(&self) -> Vec<String> {
        self.messages.clone()
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next file of the new list: `("keep", name, record, meta_line or None)` (write the
    /// old record as it is) or `("hash", name, error or None, meta_line or None)` (hash the
    /// file, or report the walk's error). Entries of files gone are dropped silently.
    #[allow(clippy::type_complexity)]
    fn __next__<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<Option<(&'static str, Py<PyBytes>, Py<PyAny>, Option<Py<PyBytes>>)>> {
        loop {
            let step = self.merge.next();
            if let Some(err) = self.walk_raised.borrow_mut().take() {
                return Err(err);
            }
            let step = match step {
                None => return Ok(None),
                Some(Ok(step)) => step,
                Some(Err(err)) => return Err(self.refused(err)),
            };
            let bytes = |data: &[u8]| PyBytes::new(py, data).unbind();
            let meta_line = |name: &[u8], meta: Option<Meta>| {
                meta.map(|meta| {
                    let mut out = Vec::new();
                    meta::write_record(&mut out, name, &meta);
                    bytes(&out)
                })
            };
            let now = |name: &[u8]| {
                std::fs::metadata(escape::path_from_bytes(name))
                    .ok()
                    .map(|m| Meta::of(&m))
            };
            match step {
                Merged::Gone(_) => self.dropped += 1,
                Merged::New(walked) => {
                    self.added += 1;
                    let meta = walked.error.is_none().then(|| now(&walked.name)).flatten();
                    let error = walked.error.unwrap_or_else(|| py.None());
                    return Ok(Some((
                        "hash",
                        bytes(&walked.name),
                        error,
                        meta_line(&walked.name, meta),
                    )));
                }
                Merged::Both(entry, walked) => return self.both(py, entry, walked).map(Some),
            }
        }
    }

    /// `LIST: updated: K kept, A added, D dropped, H hashed again`, as `sum` ends: `LIST` is
    /// `list` where given (what `-o` names, a link to the list), else the list's path.
    #[pyo3(signature = (list=None))]
    fn summary(&self, list: Option<&Bound<'_, PyAny>>) -> PyResult<String> {
        let named = list.map(path_arg).transpose()?;
        Ok(format!(
            "{}: updated: {} kept, {} added, {} dropped, {} hashed again",
            named.as_deref().unwrap_or(&self.path).display(),
            self.kept,
            self.added,
            self.dropped,
            self.rehashed
        ))
    }
}

impl ListUpdate {
    fn refused(&self, err: UpdateError) -> PyErr {
        Error::Value(format!("{}: {err}; not updated", self.path.display())).into()
    }

    /// A file in both the list and the walk: kept (its metadata on record, not looked at
    /// without `rehash_changed`) or hashed again.
    #[allow(clippy::type_complexity)]
    fn both(
        &mut self,
        py: Python<'_>,
        entry: ListEntry,
        walked: Walked,
    ) -> PyResult<(&'static str, Py<PyBytes>, Py<PyAny>, Option<Py<PyBytes>>)> {
        let now = (self.rehash_changed || self.side.is_none())
            .then(|| std::fs::metadata(escape::path_from_bytes(&walked.name)).ok())
            .flatten()
            .map(|m| Meta::of(&m));
        let order = &self.order;
        let recorded = match self.side.as_mut() {
            Some(side) => side.find(&entry.name, |a, b| order.cmp(a, b))?,
            None => now,
        };
        let meta_line = |meta: Option<Meta>| {
            meta.map(|meta| {
                let mut out = Vec::new();
                meta::write_record(&mut out, &entry.name, &meta);
                PyBytes::new(py, &out).unbind()
            })
        };
        let name = PyBytes::new(py, &entry.name).unbind();
        if self.rehash_changed && (recorded.is_none() || recorded != now) {
            self.rehashed += 1;
            let error = walked.error.unwrap_or_else(|| py.None());
            return Ok(("hash", name, error, meta_line(now)));
        }
        self.kept += 1;
        let record = PyBytes::new(py, &entry.record).into_any().unbind();
        Ok(("keep", name, record, meta_line(recorded)))
    }
}

/// What `check --audit` hashes the tree with: the list's first checksum line's algorithm,
/// PARSHA-256's parameters and digest length.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Spec {
    algorithm: Algorithm,
    tree_params: Option<TreeParams>,
    digest_size: Option<usize>,
}

impl Spec {
    fn of(job: &check::Job) -> Spec {
        let algorithm = job.entry.algorithm;
        Spec {
            algorithm,
            tree_params: algorithm.takes_tree_params().then_some(job.tree_params),
            digest_size: job.digest_size(),
        }
    }
}

/// An audit's end for Python: `(passed, events, JSON records, counts)`.
type Finished<'py> = (bool, Events, Vec<Py<PyBytes>>, Bound<'py, PyDict>);

/// What to print, in order: `(True, bytes)` for standard output, `(False, str)` for standard
/// error.
type Events = Vec<(bool, Py<PyAny>)>;

/// `parhash check --audit LIST`: the list read (here, as the CLI reads it), the tree's files
/// fed in as they are hashed ([`Audit::found`]), then the verdicts and the report, byte for
/// byte what the CLI prints.
#[pyclass(module = "parhash.format", unsendable)]
pub(crate) struct Audit {
    auditor: Option<Auditor>,
    spec: Spec,
    list_name: Vec<u8>,
    shown: String,
    improper: u64,
    options: CheckOptions,
}

#[pymethods]
impl Audit {
    /// Reads the list named `list` (bytes; `-` is standard input): `(audit, events)`, the
    /// audit None when the list cannot be read or has no checksum line (events say why).
    /// `paths`: the audited subset (names as the walk gives them), empty for the whole tree.
    #[staticmethod]
    #[pyo3(signature = (list, *, paths=Vec::new(), algorithm=None, zero=false, warn=false, quiet=false, status=false, strict=false, json=false, tree_height=None, iv_bits=None))]
    #[allow(clippy::too_many_arguments)] // Python's keyword arguments
    fn read(
        py: Python<'_>,
        list: Vec<u8>,
        paths: Vec<Vec<u8>>,
        algorithm: Option<&str>,
        zero: bool,
        warn: bool,
        quiet: bool,
        status: bool,
        strict: bool,
        json: bool,
        tree_height: Option<i64>,
        iv_bits: Option<i64>,
    ) -> PyResult<(Option<Audit>, Events)> {
        let flags = [zero, warn, quiet, status, strict, false, json];
        let options = check_options(algorithm, flags, tree_height, iv_bits)?;
        let mut events = Vec::new();
        let audit = read_list(&options, &list, &paths, &mut events);
        Ok((audit, to_python(py, events)))
    }

    /// The algorithm to hash the tree with.
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.spec.algorithm.name()
    }

    /// PARSHA-256's `(T, l)`, None for the other algorithms.
    #[getter]
    fn tree_params(&self) -> Option<(u32, u32)> {
        let params = self.spec.tree_params?;
        Some((params.tree_height(), params.iv_bits()))
    }

    /// The digest size to ask for (bytes), None for the algorithm's own.
    #[getter]
    fn digest_size(&self) -> Option<usize> {
        self.spec.digest_size
    }

    /// The roots to walk for the subset `paths` (`.` for none): those that exist, each once
    /// (not one below another), as `check --audit` walks them.
    #[staticmethod]
    fn roots(py: Python<'_>, paths: Vec<Vec<u8>>) -> Vec<Py<PyBytes>> {
        if paths.is_empty() {
            return vec![PyBytes::new(py, b".").unbind()];
        }
        let outermost = audit::outermost(&paths);
        (paths.iter().zip(outermost))
            .filter(|&(path, keep)| {
                keep && std::fs::symlink_metadata(escape::path_from_bytes(path)).is_ok()
            })
            .map(|(path, _)| PyBytes::new(py, path).unbind())
            .collect()
    }

    /// Whether a walked file is audited: the list itself is not.
    fn wants(&self, name: &[u8]) -> bool {
        self.list_name == b"-" || audit::normalized(name) != audit::normalized(&self.list_name)
    }

    /// A file of the tree: its digest (bytes) or the exception that stopped it.
    fn found(&mut self, name: &[u8], result: &Bound<'_, PyAny>) -> PyResult<()> {
        let auditor = self.auditor()?;
        let found = match result.cast::<PyBytes>() {
            Ok(digest) => auditor.found(name, Ok(digest.as_bytes())),
            Err(_) => auditor.found(name, Err(io_error(result, name))),
        };
        found.map_err(|err| Error::Value(format!("cannot audit this tree: {err}")).into())
    }

    /// After the tree: `(passed, events, records, counts)`: whether only matched files were
    /// found (and, with `strict`, no improper line), what the CLI prints (stdout bytes and
    /// stderr messages, in order), every verdict's `--json` record then every group's
    /// (`"type": "audit_group"`: the names sharing a digest; bytes) and the counts
    /// (`matched`, `changed`, `missing`, `missing_with_copy`, `new`, `moved`, `unreadable`,
    /// `duplicates`). `exists(name)` says whether a listed name outside the audited subset is
    /// still there (default: a look at the local file system).
    #[pyo3(signature = (exists=None))]
    fn finish<'py>(
        &mut self,
        py: Python<'py>,
        exists: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Finished<'py>> {
        let auditor = self.auditor.take().ok_or_else(finished)?;
        let mut raised = None;
        let exists_now = |name: &[u8]| match &exists {
            None => std::fs::symlink_metadata(escape::path_from_bytes(name)).is_ok(),
            Some(exists) => match exists.call1((PyBytes::new(py, name),)) {
                Ok(answer) => answer.is_truthy().unwrap_or(false),
                Err(err) => {
                    raised.get_or_insert(err);
                    false
                }
            },
        };
        let mut report = auditor.finish(exists_now);
        if let Some(err) = raised {
            return Err(err);
        }
        let (tally, events, records) = self.report(&mut report);
        let counts = PyDict::new(py);
        for (key, value) in [
            ("matched", tally.matched),
            ("changed", tally.changed),
            ("missing", tally.missing),
            ("missing_with_copy", tally.missing_with_copy),
            ("new", tally.new),
            ("moved", tally.moved),
            ("unreadable", tally.unreadable),
            ("duplicates", tally.duplicates),
        ] {
            counts.set_item(key, value)?;
        }
        let passed = tally.passed() && !(self.options.strict && self.improper > 0);
        let records = (records.iter())
            .map(|record| PyBytes::new(py, record).unbind())
            .collect();
        Ok((passed, to_python(py, events), records, counts))
    }
}

fn finished() -> PyErr {
    PyValueError::new_err("the audit is finished")
}

impl Audit {
    fn auditor(&mut self) -> PyResult<&mut Auditor> {
        self.auditor.as_mut().ok_or_else(finished)
    }

    /// The CLI's report of every verdict (see `parhash check --audit`), with each verdict's
    /// JSON record besides.
    fn report(&self, report: &mut Report) -> (Tally, Vec<check::Event>, Vec<Vec<u8>>) {
        let options = &self.options;
        let json = AuditReport::new(&self.list_name, self.spec.algorithm);
        let mut events = Vec::new();
        let mut records = Vec::new();
        let mut lines = Vec::new();
        let mut tally = Tally::default();
        for verdict in report.verdicts() {
            tally.count(&verdict);
            if let Some(error) = &verdict.error {
                flush(&mut events, &mut lines);
                events.push(check::Event::Message(format!(
                    "{}: {}",
                    escape::quote(&verdict.name),
                    parhash_format::error_text(error)
                )));
            }
            let mut record = Vec::new();
            json.verdict(&mut record, &verdict);
            match () {
                _ if options.json => lines.extend_from_slice(&record),
                _ if options.status => {}
                _ if options.quiet && verdict.status == Status::Matched => {}
                _ => audit::report_line(&mut lines, &verdict, options.zero),
            }
            records.push(record);
        }
        for group in report.groups() {
            let mut record = Vec::new();
            json.group(&mut record, &group);
            if options.json {
                lines.extend_from_slice(&record);
            }
            records.push(record);
        }
        if options.json {
            json.summary(&mut lines, &tally);
        }
        flush(&mut events, &mut lines);
        if !options.status {
            let messages = audit::closing_messages(&self.shown, &tally, self.improper);
            events.extend(messages.into_iter().map(check::Event::Message));
        }
        (tally, events, records)
    }
}

fn flush(events: &mut Vec<check::Event>, lines: &mut Vec<u8>) {
    if !lines.is_empty() {
        events.push(check::Event::Output(std::mem::take(lines)));
    }
}

fn to_python(py: Python<'_>, events: Vec<check::Event>) -> Events {
    (events.into_iter())
        .map(|event| match event {
            check::Event::Output(bytes) => (true, PyBytes::new(py, &bytes).into_any().unbind()),
            check::Event::Message(text) => (false, PyString::new(py, &text).into_any().unbind()),
        })
        .collect()
}

/// Reads the list as `check --audit` does; None (after saying why) when it cannot be read or
/// has no checksum line.
fn read_list(
    options: &CheckOptions,
    list: &[u8],
    paths: &[Vec<u8>],
    events: &mut Vec<check::Event>,
) -> Option<Audit> {
    let checker = check::Checker::new(*options);
    let mut list_check = checker.start(list);
    let shown = list_check.shown().to_string();
    let mut reader: Box<dyn BufRead> = if list == b"-" {
        Box::new(BufReader::new(io::stdin()))
    } else {
        match File::open(escape::path_from_bytes(list)) {
            Ok(file) => Box::new(BufReader::new(file)),
            Err(err) => {
                let text = format!("{shown}: {}", parhash_format::error_text(&err));
                events.push(check::Event::Message(text));
                return None;
            }
        }
    };
    let say = |text: String| events.push(check::Event::Message(text));
    let read = audit_list::read_list(
        &mut list_check,
        &mut reader,
        paths,
        options.warn,
        Spec::of,
        say,
    )?;
    Some(Audit {
        auditor: Some(read.auditor),
        spec: read.spec,
        list_name: list.to_vec(),
        shown,
        improper: read.improper,
        options: *options,
    })
}

/// Adds the lists' classes and functions to the extension module.
pub(crate) fn add(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<ResumedList>()?;
    module.add_class::<ListUpdate>()?;
    module.add_class::<Audit>()?;
    module.add_class::<SideFile>()?;
    module.add_function(wrap_pyfunction!(meta_record, module)?)?;
    module.add_function(wrap_pyfunction!(parse_meta_record, module)?)?;
    module.add_function(wrap_pyfunction!(meta_path, module)?)?;
    module.add("META_HEADER", PyBytes::new(module.py(), meta::HEADER))?;
    Ok(())
}
