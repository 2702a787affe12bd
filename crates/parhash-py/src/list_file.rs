//! The files of `parhash sum -o LIST` for Python (`parhash.lists`, `parhash-dist`), as
//! `parhash_format::list_file` writes them for the CLI: durably (`DurableFile`), cut and
//! continued, renamed over the old ones (`replace`), and left out of the walk
//! (`WithoutOwnFiles`); and where the lists of `--lists DIR` go (`list_paths`).
//!
//! Errors are Python's `OSError` with `errno` and `filename` (`FileNotFoundError`...), as
//! `os.open` raises them.

use std::path::{Path, PathBuf};

use parhash_format::escape;
use parhash_format::list_file::{self, Durable, ListLock, OwnFiles, Target};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyIterator};

use crate::error::Error;
use crate::files::path_arg;
use crate::options;

fn path_bytes<'py>(py: Python<'py>, path: &Path) -> Bound<'py, PyBytes> {
    PyBytes::new(py, &escape::os_bytes(path.as_os_str()))
}

/// A file written as `parhash sum -o` writes its list and side file: every write handed to the
/// kernel at once (a killed run loses nothing written), fsync every 5 seconds or 64 MiB and at
/// `sync()`. `DurableFile(path)` creates it empty; `DurableFile.continue_at(path, length)` cuts
/// an existing one and writes on from there. `close()` does not sync.
#[pyclass(module = "parhash.format")]
pub(crate) struct DurableFile {
    file: Option<Durable>,
    path: PathBuf,
}

impl DurableFile {
    fn open(py: Python<'_>, path: PathBuf, keep: Option<Option<u64>>) -> PyResult<DurableFile> {
        let opened = py.detach(|| match keep {
            None => Durable::create(&path),
            Some(None) => Durable::open(&path),
            Some(Some(len)) => Durable::continue_at(&path, len),
        });
        match opened {
            Ok(file) => Ok(DurableFile {
                file: Some(file),
                path,
            }),
            Err(err) => Err(Error::Io(err, path).into()),
        }
    }

    /// The open file and its path; ValueError once closed, as Python's files.
    fn open_file(&mut self) -> PyResult<(&mut Durable, &Path)> {
        match self.file.as_mut() {
            Some(file) => Ok((file, &self.path)),
            None => Err(PyValueError::new_err("I/O operation on closed file")),
        }
    }
}

#[pymethods]
impl DurableFile {
    #[new]
    fn new(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<DurableFile> {
        DurableFile::open(py, path_arg(path)?, None)
    }

    /// The existing file at `path` cut to its first `length` bytes, written on from there.
    #[staticmethod]
    fn continue_at(py: Python<'_>, path: &Bound<'_, PyAny>, length: u64) -> PyResult<DurableFile> {
        DurableFile::open(py, path_arg(path)?, Some(Some(length)))
    }

    /// The existing file at `path`, locked and left as it is until `cut()`: a resume opens its
    /// list before reading it, so that no other run writes it between.
    #[staticmethod]
    fn existing(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<DurableFile> {
        DurableFile::open(py, path_arg(path)?, Some(None))
    }

    /// Cuts the file to its first `length` bytes and writes on from there.
    fn cut(&mut self, py: Python<'_>, length: u64) -> PyResult<()> {
        let (file, path) = self.open_file()?;
        py.detach(|| file.cut(length))
            .map_err(|err| Error::Io(err, path.to_path_buf()).into())
    }

    /// Writes `data` (and syncs if it is time).
    fn write(&mut self, py: Python<'_>, data: &[u8]) -> PyResult<()> {
        let (file, path) = self.open_file()?;
        py.detach(|| file.write(data))
            .map_err(|err| Error::Io(err, path.to_path_buf()).into())
    }

    /// Forces what was written to the disk.
    fn sync(&mut self, py: Python<'_>) -> PyResult<()> {
        let (file, path) = self.open_file()?;
        py.detach(|| file.sync())
            .map_err(|err| Error::Io(err, path.to_path_buf()).into())
    }

    /// Closes the file (what was written stays; nothing more is synced). Closing twice is
    /// allowed.
    fn close(&mut self) {
        self.file = None;
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.file.is_none()
    }

    /// The file's path (bytes).
    #[getter]
    fn path<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        path_bytes(py, &self.path)
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __exit__(
        &mut self,
        _kind: &Bound<'_, PyAny>,
        _value: &Bound<'_, PyAny>,
        _traceback: &Bound<'_, PyAny>,
    ) {
        self.close();
    }
}

/// An existing list locked while `--update` writes the new one beside it (as
/// `parhash sum --update` locks it): `BlockingIOError` if another run is writing it.
#[pyclass(module = "parhash.format", name = "ListLock")]
pub(crate) struct ListLockFile {
    lock: Option<ListLock>,
}

#[pymethods]
impl ListLockFile {
    #[new]
    fn new(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<ListLockFile> {
        let path = path_arg(path)?;
        let lock = py
            .detach(|| ListLock::new(&path))
            .map_err(Error::io(&path))?;
        Ok(ListLockFile { lock: Some(lock) })
    }

    /// Lets the list go (closing twice is allowed).
    fn close(&mut self) {
        self.lock = None;
    }
}

/// What `sum -o PATH` writes to: `(path, regular)`, the file a link names (links followed)
/// and True, or a device or a pipe as given and False (written once: no side file). With
/// `flag` (`"--resume"`, `"--update"`), ValueError in the CLI's words for a device or a pipe.
#[pyfunction]
#[pyo3(signature = (path, flag=None))]
pub(crate) fn list_target<'py>(
    path: &Bound<'py, PyAny>,
    flag: Option<&str>,
) -> PyResult<(Bound<'py, PyBytes>, bool)> {
    let target = Target::of(&path_arg(path)?);
    if let Some(flag) = flag {
        target.again(flag).map_err(Error::value)?;
    }
    Ok((path_bytes(path.py(), target.path()), target.is_file()))
}

/// Renames `source` over `target` and syncs their directory, so the rename survives a crash
/// (`--update`'s `LIST.tmp` over `LIST`).
#[pyfunction]
pub(crate) fn replace(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    target: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let (source, target) = (path_arg(source)?, path_arg(target)?);
    py.detach(|| list_file::replace(&source, &target))
        .map_err(|err| Error::Io(err, target.to_path_buf()).into())
}

/// `LIST.tmp`, where `--update` writes before renaming over `LIST` (bytes).
#[pyfunction]
pub(crate) fn temporary_path<'py>(path: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    Ok(path_bytes(
        path.py(),
        &list_file::temporary(&path_arg(path)?),
    ))
}

/// The files `parhash sum -o LIST` writes (bytes): the list, its `.tmp`, the side file's `.tmp`
/// and the side file.
#[pyfunction]
pub(crate) fn own_files<'py>(list: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let own = OwnFiles::new(&path_arg(list)?);
    Ok((own.paths().iter())
        .map(|path| path_bytes(list.py(), path))
        .collect())
}

/// A walk (`(name, error or None)` pairs, as `walk` yields them) without the files of the list
/// at `list` ([`own_files`]), as `parhash sum -o` and `check --audit` leave them out: the same
/// files, not namesakes elsewhere (names are compared first; only a namesake costs a stat).
#[pyclass(module = "parhash.format")]
pub(crate) struct WithoutOwnFiles {
    walk: Py<PyIterator>,
    own: OwnFiles,
}

#[pymethods]
impl WithoutOwnFiles {
    #[new]
    fn new(walk: &Bound<'_, PyAny>, list: &Bound<'_, PyAny>) -> PyResult<WithoutOwnFiles> {
        Ok(WithoutOwnFiles {
            walk: walk.try_iter()?.unbind(),
            own: OwnFiles::new(&path_arg(list)?),
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let mut walk = self.walk.bind(py).clone();
        for item in &mut walk {
            let item = item?;
            let (name, error): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item.extract()?;
            if error.is_none() && self.own.contains(&path_arg(&name)?) {
                continue;
            }
            return Ok(Some(item));
        }
        Ok(None)
    }
}

/// The paths (bytes) of the lists `parhash sum --lists DIR [--list-name TEMPLATE]` writes, one
/// per algorithm in the order given; ValueError (the CLI's words) where two would be the same.
#[pyfunction]
#[pyo3(signature = (directory, template, algorithms))]
pub(crate) fn list_paths<'py>(
    py: Python<'py>,
    directory: &Bound<'py, PyAny>,
    template: Option<&str>,
    algorithms: Vec<String>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let algorithms = (algorithms.iter())
        .map(|name| options::algorithm(name))
        .collect::<PyResult<Vec<_>>>()?;
    let paths = list_file::list_paths(&path_arg(directory)?, template, &algorithms)
        .map_err(Error::value)?;
    Ok(paths.iter().map(|path| path_bytes(py, path)).collect())
}

/// The digest size in bytes `-l BITS` gives `algorithm` once the flags are checked (None: its
/// default, or one of several algorithms whose length `-l` does not set), as `parhash sum`
/// hashes each of `-a md5,blake2b -l 256`.
#[pyfunction]
#[pyo3(signature = (algorithm, bits))]
pub(crate) fn digest_size_for(algorithm: &str, bits: Option<usize>) -> PyResult<Option<usize>> {
    let algorithm = options::algorithm(algorithm)?;
    Ok(parhash_format::length::size_for(algorithm, bits))
}

/// Adds the list files' functions and classes to the extension module.
pub(crate) fn add(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<DurableFile>()?;
    module.add_class::<WithoutOwnFiles>()?;
    module.add_class::<ListLockFile>()?;
    module.add_function(wrap_pyfunction!(list_target, module)?)?;
    module.add_function(wrap_pyfunction!(replace, module)?)?;
    module.add_function(wrap_pyfunction!(temporary_path, module)?)?;
    module.add_function(wrap_pyfunction!(own_files, module)?)?;
    module.add_function(wrap_pyfunction!(list_paths, module)?)?;
    module.add_function(wrap_pyfunction!(digest_size_for, module)?)?;
    Ok(())
}
