//! The library's errors as Python's exceptions, in one place: [`Error`] wraps each kind of
//! error the library returns, and `From<Error> for PyErr` says which exception it becomes, so
//! that `?` raises it. Arguments that Python code got wrong are raised where they are checked
//! (`PyTypeError::new_err(...)`), as CPython's own functions do.

use std::fmt::Display;
use std::io;
use std::path::{Path, PathBuf};

use parhash::file::{FileChangedSize, FileModified};
use parhash::parts::PartError;
use parhash_format::list_file::{is_locked, FileError};
use pyo3::exceptions::{PyBlockingIOError, PyIndexError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

/// `parhash.FileChanged`, an `OSError`: made once, when the module is ([`add`]).
static FILE_CHANGED: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Adds `FileChanged` to the module.
pub(crate) fn add(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    let class = FILE_CHANGED.get_or_try_init(py, || {
        let base = py.get_type::<PyOSError>();
        crate::ffi::new_exception_type(py, c"parhash.FileChanged", FILE_CHANGED_DOC, &base)
            .map(Bound::unbind)
    })?;
    module.add("FileChanged", class.bind(py))
}

const FILE_CHANGED_DOC: &std::ffi::CStr = c"A file changed while it was hashed (its size, \
modification time or inode moved), or the parts of one file read different versions of it: \
what was read is a mix of two versions, so no digest is given. `filename` names the file \
where it is known.";

/// A `parhash.FileChanged` with `message`.
fn file_changed(message: String) -> PyErr {
    Python::attach(|py| match FILE_CHANGED.get(py) {
        Some(class) => PyErr::from_type(class.bind(py).clone(), message),
        None => PyOSError::new_err(message),
    })
}

/// A library error on its way to Python.
pub(crate) enum Error {
    /// An I/O error about the file `path`: `OSError` (see [`os_error`]); the file that a
    /// [`FileError`] names wins over `path`.
    Io(io::Error, PathBuf),
    /// An error of the tree modes' parts: the reader's own error as `OSError` naming the file
    /// (when there is one), parts of different versions of the message as `parhash.FileChanged`, a
    /// part index out of range as `IndexError`, anything else (a plan that cannot be made,
    /// states that are not the plan's parts, a file that is not the plan's length) as
    /// `ValueError`.
    Part(PartError, Option<PathBuf>),
    /// Any other library error (a hasher that cannot be built, a name that is no algorithm, a
    /// list that cannot be resumed): `ValueError` with its message.
    Value(String),
}

impl Error {
    /// `.map_err(Error::io(path))`: an I/O error about `path`.
    pub(crate) fn io(path: &Path) -> impl FnOnce(io::Error) -> Error + '_ {
        move |err| Error::Io(err, path.to_path_buf())
    }

    /// `.map_err(Error::part(path))`: a parts error, reading `path` if any.
    pub(crate) fn part(path: Option<&Path>) -> impl FnOnce(PartError) -> Error + '_ {
        move |err| Error::Part(err, path.map(Path::to_path_buf))
    }

    /// `.map_err(Error::value)`: a library error whose message says it all.
    pub(crate) fn value(err: impl Display) -> Error {
        Error::Value(err.to_string())
    }
}

impl From<Error> for PyErr {
    fn from(err: Error) -> PyErr {
        match err {
            Error::Io(err, path) => match FileError::of(&err) {
                Some(file_error) => os_error(file_error.error(), file_error.path()),
                None => os_error(&err, &path),
            },
            Error::Part(PartError::Io(err), Some(path)) => os_error(&err, &path),
            Error::Part(err @ PartError::MixedVersions { .. }, path) => {
                let error = match &path {
                    Some(path) => file_changed(format!("{}: {err}", path.display())),
                    None => file_changed(err.to_string()),
                };
                if let Some(path) = path {
                    with_filename(&error, &path, &err.to_string());
                }
                error
            }
            Error::Part(PartError::LengthMismatch { expected, found }, Some(path)) => {
                PyValueError::new_err(format!(
                    "{} is {found} bytes; this plan is for a message of {expected} bytes",
                    path.display()
                ))
            }
            Error::Part(err @ PartError::NoSuchPart { .. }, _) => {
                PyIndexError::new_err(err.to_string())
            }
            Error::Part(err, _) => PyValueError::new_err(err.to_string()),
            Error::Value(message) => PyValueError::new_err(message),
        }
    }
}

/// `err` about `path` as Python's `OSError`: with `errno`, `strerror` and `filename` when the
/// system said why (Python then picks the subclass: `FileNotFoundError`, `IsADirectoryError`...),
/// `parhash.FileChanged` for a file that changed while it was read, `BlockingIOError` for a list
/// another run is writing (it is locked), otherwise an `OSError` with the message and `filename`.
fn os_error(err: &io::Error, path: &Path) -> PyErr {
    match err.raw_os_error() {
        Some(code) => {
            let text = io::Error::from_raw_os_error(code).to_string();
            let strerror = text
                .rfind(" (os error ")
                .map_or(text.as_str(), |at| &text[..at])
                .to_string();
            PyOSError::new_err((code, strerror, path.as_os_str().to_os_string()))
        }
        None => {
            let message = format!("{}: {err}", path.display());
            let changed = err
                .get_ref()
                .is_some_and(|e| e.is::<FileModified>() || e.is::<FileChangedSize>());
            let error = if changed {
                file_changed(message)
            } else if is_locked(err) {
                PyBlockingIOError::new_err(message)
            } else {
                PyOSError::new_err(message)
            };
            with_filename(&error, path, &err.to_string());
            error
        }
    }
}

/// Sets `filename` and `strerror` on `error`, whose message already names the file (best
/// effort). With `filename` set, Python's `str(error)` is "[Errno None] STRERROR: 'FILE'":
/// `strerror` keeps the reason in it.
fn with_filename(error: &PyErr, path: &Path, strerror: &str) {
    Python::attach(|py| {
        let value = error.value(py);
        let _ = value.setattr("filename", path.as_os_str());
        let _ = value.setattr("strerror", strerror);
    });
}
