//! Files: `hash_file(path, name)` and `hash_files(paths, name)`, with the GIL released while
//! files are read and hashed, through the library's file engine (`parhash::file`), the same
//! code as `parhash sum`.

use std::collections::VecDeque;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, TryLockError};

use parhash::file::{FileHasher, FileInput, MultiHasher, ReadStrategy};
use parhash::{Algorithm, Output};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyIterator, PyTuple};

use crate::error::Error;
use crate::forms::{Answer, Plan};
use crate::gpu;
use crate::options::{self, Options};

/// Paths taken from the caller's iterable per turn with the GIL: as many as the engine hashes
/// at once, so its threads stay busy across a window, while memory stays bounded.
const PATHS_PER_TURN: usize = 4096;

/// Hashes the file at `path` through the library's file engine ([`FileHasher`]: reads, never a
/// map, so a file that shrinks while hashed is an error and never `SIGBUS`; reads overlapped
/// with hashing; never the whole file in memory, but PARSHA-256 of a pipe, spooled up to 1 GiB).
pub(crate) fn hash_path(
    alg: Algorithm,
    options: &Options,
    read: ReadStrategy,
    path: &Path,
) -> io::Result<Output> {
    FileHasher::new(options.builder(alg))
        .read_strategy(read)
        .hash_path(path)
}

/// `read=`: "auto" (None), "sequential" or "parallel", as `parhash sum --read`.
fn read_strategy(read: Option<&str>) -> PyResult<ReadStrategy> {
    read.map_or(Ok(ReadStrategy::Auto), |name| {
        Ok(name.parse().map_err(Error::value)?)
    })
}

/// A path argument: str, bytes or os.PathLike (as `open` takes them).
pub(crate) fn path_arg(obj: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    #[cfg(unix)]
    if let Ok(bytes) = obj.cast::<PyBytes>() {
        use std::os::unix::ffi::OsStrExt;
        return Ok(PathBuf::from(std::ffi::OsStr::from_bytes(bytes.as_bytes())));
    }
    let fspath = obj.py().import("os")?.getattr("fsdecode")?.call1((obj,))?;
    fspath.extract()
}

/// The digest of the file at `path` (str, bytes or os.PathLike) with the algorithm `name`, or,
/// for a list of names, a dict of every digest by name from one read of the file.
///
/// Read in pieces (never the whole file in memory) with the GIL released; `threads` (None or
/// 0 = all cores) for the tree modes, `tree_height`/`iv_bits` for PARSHA-256, `digest_size`
/// (bytes) for BLAKE2b/s, BLAKE3 and SHAKE as in `new`; `read` ("auto", "sequential" or
/// "parallel") as `parhash sum --read`. A file that cannot be read raises OSError
/// (FileNotFoundError, PermissionError, IsADirectoryError...) with errno and filename.
///
/// Object stores' values by name: `"etag"` (S3's ETag) and `"ALG-composite"` (S3's composite
/// checksums: sha1, sha256, crc32, crc32c) with `part_size` (bytes), each the store's text
/// (`"hex-N"`, `"base64-N"`), from one read with any algorithms named beside them
/// ([`Plan`]); `"etag"` without `part_size` is the ETag of an object uploaded in one piece.
///
/// `device="gpu"` hashes a parsha256 file on the GPU (`tree_height`, `iv_bits`), read once into
/// pinned memory, as `parhash sum --device gpu` does.
#[pyfunction]
#[pyo3(signature = (path, name, threads = None, *, tree_height = None, iv_bits = None, digest_size = None, read = None, part_size = None, device = "cpu"))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub(crate) fn hash_file<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    name: &Bound<'py, PyAny>,
    threads: Option<i64>,
    tree_height: Option<i64>,
    iv_bits: Option<i64>,
    digest_size: Option<i64>,
    read: Option<&str>,
    part_size: Option<i64>,
    device: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let path = path_arg(path)?;
    let single = name.extract::<String>().ok();
    if gpu::device(device)? == gpu::Device::Gpu {
        let Some(name) = single.as_deref() else {
            return Err(PyTypeError::new_err(
                "hash_file(device=\"gpu\") takes one algorithm name",
            ));
        };
        if threads.is_some() || digest_size.is_some() || read.is_some() || part_size.is_some() {
            return Err(PyTypeError::new_err(
                "hash_file(device=\"gpu\") takes tree_height and iv_bits, not threads, \
                 digest_size, read or part_size",
            ));
        }
        let alg = options::algorithm(name)?;
        let tree = options::tree_params(tree_height, iv_bits)?;
        let digest = gpu::hash_file(py, alg, tree, &path)?;
        return Ok(PyBytes::new(py, &digest).into_any());
    }
    let read = read_strategy(read)?;
    if let Some(plan) = forms_plan(name, single.as_ref(), part_size)? {
        no_engine_options([threads, tree_height, iv_bits, digest_size], read)?;
        let answers = py.detach(|| plan.compute(&path))?;
        if single.is_some() {
            return Ok(answers.into_iter().next().expect("one name").into_py(py));
        }
        let names: Vec<String> = name.extract()?;
        let out = PyDict::new(py);
        for (name, answer) in names.iter().zip(answers) {
            out.set_item(name, answer.into_py(py))?;
        }
        return Ok(out.into_any());
    }
    if let Some(name) = single {
        let alg = options::algorithm(&name)?;
        let options = Options::new(alg, threads, tree_height, iv_bits, None, digest_size)?;
        let digest = py
            .detach(|| hash_path(alg, &options, read, &path))
            .map_err(Error::io(&path))?;
        return Ok(PyBytes::new(py, digest.as_bytes()).into_any());
    }
    let names: Vec<String> = name
        .extract()
        .map_err(|_| PyTypeError::new_err("name must be an algorithm name or a list of them"))?;
    let (algorithms, builders) = several(&names, threads, tree_height, iv_bits, digest_size)?;
    let digests = py
        .detach(|| {
            MultiHasher::new(builders)
                .read_strategy(read)
                .hash_path(&path)
        })
        .map_err(Error::io(&path))?;
    let out = PyDict::new(py);
    for ((name, _), digest) in names.iter().zip(&algorithms).zip(digests) {
        out.set_item(name, PyBytes::new(py, digest.as_bytes()))?;
    }
    Ok(out.into_any())
}

/// The plan of `hash_file`'s or `hash_files`' names where they name a multipart form (or a
/// part size is given), else `None`.
fn forms_plan(
    name: &Bound<'_, PyAny>,
    single: Option<&String>,
    part_size: Option<i64>,
) -> PyResult<Option<Plan>> {
    let names: Vec<String> = match single {
        Some(name) => vec![name.clone()],
        None => match name.extract() {
            Ok(names) => names,
            // Not a list of names: the plain path says so.
            Err(_) => return Ok(None),
        },
    };
    if single.is_none() {
        for (at, name) in names.iter().enumerate() {
            if names[..at].contains(name) {
                return Err(PyValueError::new_err(format!("{name} is named twice")));
            }
        }
    }
    Plan::new(&names, part_size)
}

/// The multipart forms are read as `parhash sum --etag` reads them: the engine's options do
/// not apply.
fn no_engine_options(options: [Option<i64>; 4], read: ReadStrategy) -> PyResult<()> {
    if options.iter().any(Option::is_some) || read != ReadStrategy::Auto {
        return Err(PyTypeError::new_err(
            "threads, tree_height, iv_bits, digest_size and read do not go with the multipart \
             forms (\"etag\", \"ALG-composite\")",
        ));
    }
    Ok(())
}

/// The algorithms of a list of names (each once) and their builders: tree parameters for
/// PARSHA-256 only, `digest_size` for those whose length it can be (as `parhash sum -l`); an
/// option that fits none of them is the error it would be for one.
fn several(
    names: &[String],
    threads: Option<i64>,
    tree_height: Option<i64>,
    iv_bits: Option<i64>,
    digest_size: Option<i64>,
) -> PyResult<(Vec<Algorithm>, Vec<parhash::HasherBuilder>)> {
    if names.is_empty() {
        return Err(PyValueError::new_err("no algorithm named"));
    }
    let mut algorithms = Vec::new();
    for name in names {
        let alg = options::algorithm(name)?;
        if algorithms.contains(&alg) {
            return Err(PyValueError::new_err(format!("{name} is named twice")));
        }
        algorithms.push(alg);
    }
    let takes_size = |alg: Algorithm| {
        digest_size.is_some_and(|size| {
            usize::try_from(size).is_ok_and(|size| alg.digest_sizes().contains(size))
        })
    };
    let mut builders = Vec::new();
    for &alg in &algorithms {
        let tree = alg.takes_tree_params();
        let size = takes_size(alg).then_some(digest_size).flatten();
        let (t, l) = if tree {
            (tree_height, iv_bits)
        } else {
            (None, None)
        };
        builders.push(Options::new(alg, threads, t, l, None, size)?.builder(alg));
    }
    if (tree_height.is_some() || iv_bits.is_some())
        && !algorithms.iter().any(|alg| alg.takes_tree_params())
    {
        return Err(PyTypeError::new_err(
            "tree_height and iv_bits are parsha256's: none of these algorithms takes them",
        ));
    }
    if digest_size.is_some() && !algorithms.iter().any(|&alg| takes_size(alg)) {
        return Err(PyValueError::new_err(format!(
            "digest_size={} fits none of these algorithms",
            digest_size.unwrap_or_default()
        )));
    }
    Ok((algorithms, builders))
}

/// The iterator `hash_files` returns: `(path, digest)` or `(path, OSError)` per path, in input
/// order; `(path, {name: digest})` when several algorithms were named.
#[pyclass(module = "parhash", name = "FileDigests", frozen)]
pub(crate) struct FileDigests {
    engine: Engine,
    paths: Py<PyIterator>,
    /// Results ready to be yielded, in input order.
    ready: Mutex<VecDeque<Hashed>>,
}

/// One algorithm, or several from one read of each file (with the names the caller gave, in
/// order, for the dicts), or names with multipart forms among them (one file after another,
/// each file's parts on all cores).
enum Engine {
    One(FileHasher<'static>),
    Several(MultiHasher<'static>, Vec<String>),
    Forms(Plan, Option<Vec<String>>),
}

/// One path's result: the path object as given, its answers or error.
type Hashed = (Py<PyAny>, Result<Vec<Answer>, Error>);

#[pymethods]
impl FileDigests {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyTuple>>> {
        // As a generator: one caller at a time (a path iterable that calls back into this
        // iterator, or another thread meanwhile, is told so rather than left waiting).
        let mut ready = match self.ready.try_lock() {
            Ok(ready) => ready,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => {
                return Err(PyValueError::new_err(
                    "hash_files iterator already executing",
                ))
            }
        };
        if ready.is_empty() {
            self.fill(py, &mut ready)?;
        }
        let Some((given, result)) = ready.pop_front() else {
            return Ok(None);
        };
        let names = match &self.engine {
            Engine::Several(_, names) | Engine::Forms(_, Some(names)) => Some(names),
            Engine::One(_) | Engine::Forms(_, None) => None,
        };
        let value: Bound<'py, PyAny> = match (result, names) {
            (Ok(answers), Some(names)) => {
                let out = PyDict::new(py);
                for (name, answer) in names.iter().zip(answers) {
                    out.set_item(name, answer.into_py(py))?;
                }
                out.into_any()
            }
            (Ok(answers), None) => (answers.into_iter().next().expect("one name")).into_py(py),
            (Err(err), _) => PyErr::from(err).into_value(py).into_bound(py).into_any(),
        };
        Ok(Some(PyTuple::new(py, [given.into_bound(py), value])?))
    }
}

impl FileDigests {
    /// Takes the next window of paths from the caller's iterable (with the GIL) and hashes them
    /// with the library's many-file engine (without it): small files side by side in SIMD
    /// lanes, larger ones on all allowed threads, results in input order.
    fn fill(&self, py: Python<'_>, ready: &mut VecDeque<Hashed>) -> PyResult<()> {
        let mut given = Vec::with_capacity(PATHS_PER_TURN);
        let mut paths = Vec::with_capacity(PATHS_PER_TURN);
        let mut iter = self.paths.bind(py).clone();
        while given.len() < PATHS_PER_TURN {
            let Some(item) = iter.next() else { break };
            let item = item?;
            paths.push(path_arg(&item)?);
            given.push(item.unbind());
        }
        if paths.is_empty() {
            return Ok(());
        }
        let engine = &self.engine;
        let digests = |result: io::Result<Vec<Output>>, path: &PathBuf| {
            result
                .map(|digests| digests.into_iter().map(Answer::Digest).collect())
                .map_err(|err| Error::Io(err, path.clone()))
        };
        let results: Vec<Result<Vec<Answer>, Error>> = py.detach(|| match engine {
            Engine::One(files) => (files.hash_paths(paths.iter()).zip(&paths))
                .map(|((_, result), path)| digests(result.map(|digest| vec![digest]), path))
                .collect(),
            Engine::Several(files, _) => files
                .hash_files(
                    paths
                        .iter()
                        .map(|path| ((), FileInput::from(path.as_path()))),
                )
                .zip(&paths)
                .map(|((_, result), path)| digests(result, path))
                .collect(),
            Engine::Forms(plan, _) => paths.iter().map(|path| plan.compute(path)).collect(),
        });
        ready.extend(given.into_iter().zip(results));
        Ok(())
    }
}

/// Hashes every file of `paths` (any iterable of str, bytes or os.PathLike) with the algorithm
/// `name`, several at a time on `threads` threads (None or 0 = all cores), and yields
/// `(path, digest)` in input order, or `(path, error)` with the OSError for a file that
/// could not be read (the run goes on). With a list of names, each file is read once for all
/// of them and yields `(path, {name: digest})` (one error per file, not one per algorithm).
/// Paths are taken a window at a time: memory stays bounded for millions of paths.
/// `tree_height`, `iv_bits`, `digest_size` and `read` as in `hash_file`; the multipart forms
/// and `part_size` too (a file over S3's 10,000 parts yields a ValueError).
#[pyfunction]
#[pyo3(signature = (paths, name, threads = None, *, tree_height = None, iv_bits = None, digest_size = None, read = None, part_size = None))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments
pub(crate) fn hash_files(
    paths: &Bound<'_, PyAny>,
    name: &Bound<'_, PyAny>,
    threads: Option<i64>,
    tree_height: Option<i64>,
    iv_bits: Option<i64>,
    digest_size: Option<i64>,
    read: Option<&str>,
    part_size: Option<i64>,
) -> PyResult<FileDigests> {
    let read = read_strategy(read)?;
    let single = name.extract::<String>().ok();
    let engine = if let Some(plan) = forms_plan(name, single.as_ref(), part_size)? {
        no_engine_options([threads, tree_height, iv_bits, digest_size], read)?;
        let names = match single {
            Some(_) => None,
            None => Some(name.extract()?),
        };
        Engine::Forms(plan, names)
    } else if let Ok(name) = name.extract::<String>() {
        let algorithm = options::algorithm(&name)?;
        let options = Options::new(algorithm, threads, tree_height, iv_bits, None, digest_size)?;
        Engine::One(FileHasher::new(options.builder(algorithm)).read_strategy(read))
    } else {
        let names: Vec<String> = name.extract().map_err(|_| {
            PyTypeError::new_err("name must be an algorithm name or a list of them")
        })?;
        let (_, builders) = several(&names, threads, tree_height, iv_bits, digest_size)?;
        Engine::Several(MultiHasher::new(builders).read_strategy(read), names)
    };
    Ok(FileDigests {
        engine,
        paths: paths.try_iter()?.unbind(),
        ready: Mutex::new(VecDeque::new()),
    })
}
