//! `_parhash.walk_keys(root, start_after=None)`: the files below a folder in the order S3
//! lists keys, for `parhash.store`'s merge of a tree with a listing. Python's own walk (a
//! `scandir`, a sort and a `stat` a file) took about 45 us of the interpreter's time a file in
//! a verification, while the extension's threads hashed: here each folder is read and sorted
//! natively, and its files come back one by one, so a tree of
//! millions costs its deepest path's folders in memory, not its files.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::PathBuf;

use pyo3::prelude::*;

use crate::error::Error;

/// One entry of a folder: its key's bytes after the folder's (a folder's with `/`), its name,
/// and what it is (a link: whatever it points to, asked when it is reached).
struct Entry {
    key: Vec<u8>,
    name: OsString,
    folder: bool,
    link: bool,
}

/// A folder being walked: its key prefix (`""` or ending in `/`), its path, and the entries
/// not yet taken, in key order.
struct Folder {
    prefix: OsString,
    path: PathBuf,
    entries: std::vec::IntoIter<Entry>,
}

/// The bytes S3 orders a key by: its UTF-8 (on Unix, the name's bytes as the OS gave them, as
/// Python's `os.fsencode` gives them).
fn key_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        name.as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        name.to_string_lossy().into_owned().into_bytes()
    }
}

/// The entries of the folder at `path`, sorted by key: a folder as `name/`, so that its files
/// come where their keys do. Links to folders are not folders here (not followed); entries
/// that are neither files, folders nor links (fifos, sockets) are left out.
fn read_folder(path: &std::path::Path) -> io::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for entry in fs::read_dir(path)? {
        let entry = entry?;
        let name = entry.file_name();
        let kind = entry.file_type()?;
        let (folder, link) = (kind.is_dir(), kind.is_symlink());
        let mut key = key_bytes(&name);
        if folder {
            key.push(b'/');
        }
        if folder || link || kind.is_file() {
            entries.push(Entry {
                key,
                name,
                folder,
                link,
            });
        }
    }
    entries.sort_unstable_by(|a, b| a.key.cmp(&b.key));
    Ok(entries)
}

/// `(name, path)` of every file below `root` (str; names relative, with `/`), in key order, after
/// `start_after` where given. A file is what Python's `DirEntry.is_file()` calls one (a link
/// to a file is). A folder that cannot be read raises OSError (its errno and file name).
#[pyclass(module = "parhash", unsendable)]
pub(crate) struct KeyWalk {
    stack: Vec<Folder>,
    start_after: Option<Vec<u8>>,
}

impl KeyWalk {
    fn open(&mut self, prefix: OsString, path: PathBuf) -> PyResult<()> {
        // The GIL is kept: taking it back after a folder's reads waited for another thread's
        // switch interval (5 ms), far longer than the reads.
        let entries = read_folder(&path).map_err(Error::io(&path))?;
        self.stack.push(Folder {
            prefix,
            path,
            entries: entries.into_iter(),
        });
        Ok(())
    }

    fn next_file(&mut self) -> PyResult<Option<(OsString, OsString)>> {
        while let Some(top) = self.stack.last_mut() {
            let Some(entry) = top.entries.next() else {
                self.stack.pop();
                continue;
            };
            let mut name = top.prefix.clone();
            name.push(&entry.name);
            let path = top.path.join(&entry.name);
            let key = key_bytes(&name);
            if entry.folder {
                // Every key below `name/` sorts before `name/` followed by U+10FFFF.
                let mut last = key.clone();
                last.extend_from_slice("/\u{10FFFF}".as_bytes());
                if self.start_after.as_ref().is_none_or(|after| *after < last) {
                    name.push("/");
                    self.open(name, path)?;
                }
            } else if self.start_after.as_ref().is_none_or(|after| key > *after)
                && (!entry.link || fs::metadata(&path).is_ok_and(|meta| meta.is_file()))
            {
                return Ok(Some((name, path.into_os_string())));
            }
        }
        Ok(None)
    }
}

#[pymethods]
impl KeyWalk {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self) -> PyResult<Option<(OsString, OsString)>> {
        self.next_file()
    }
}

/// The files below `root` in S3's key order ([`KeyWalk`]).
#[pyfunction]
#[pyo3(signature = (root, start_after = None))]
pub(crate) fn walk_keys(root: PathBuf, start_after: Option<OsString>) -> PyResult<KeyWalk> {
    let mut walk = KeyWalk {
        stack: Vec::new(),
        start_after: start_after.as_deref().map(key_bytes),
    };
    walk.open(OsString::new(), root)?;
    Ok(walk)
}
