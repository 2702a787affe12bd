//! `_parhash.walk_keys(root, start_after=None)`: the files below a folder in the order S3
//! lists keys (`parhash_store::keys`, which `parhash store verify` walks too), for
//! `parhash.store`'s merge of a tree with a listing. Python's own walk (a `scandir`, a sort and
//! a `stat` a file) took about 45 us of the interpreter's time a file in a verification, while
//! the extension's threads hashed.

use std::ffi::OsString;

use parhash_store::keys;
use pyo3::prelude::*;

use crate::error::Error;

/// `(name, path)` of every file below `root` (str; names relative, with `/`), in key order, after
/// `start_after` where given. A file is what Python's `DirEntry.is_file()` calls one (a link
/// to a file is). A folder that cannot be read raises OSError (its errno and file name).
#[pyclass(module = "parhash", unsendable)]
pub(crate) struct KeyWalk {
    // The GIL is kept while a folder is read: taking it back after a folder's reads waited for
    // another thread's switch interval (5 ms), far longer than the reads.
    walk: keys::KeyWalk,
}

#[pymethods]
impl KeyWalk {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self) -> PyResult<Option<(OsString, OsString)>> {
        match self.walk.next() {
            None => Ok(None),
            Some(Ok((name, path))) => Ok(Some((name, path.into_os_string()))),
            Some(Err(err)) => Err(Error::io(&err.path)(err.error).into()),
        }
    }
}

/// The files below `root` in S3's key order ([`KeyWalk`]).
#[pyfunction]
#[pyo3(signature = (root, start_after = None))]
pub(crate) fn walk_keys(
    root: std::path::PathBuf,
    start_after: Option<OsString>,
) -> PyResult<KeyWalk> {
    match keys::KeyWalk::new(&root, start_after.as_deref()) {
        Ok(walk) => Ok(KeyWalk { walk }),
        Err(err) => Err(Error::io(&err.path)(err.error).into()),
    }
}
