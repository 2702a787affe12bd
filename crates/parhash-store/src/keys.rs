//! The files below a folder in the order S3 lists keys (their UTF-8 bytes), for the merge of a
//! tree with a listing: each folder is read and sorted when the walk reaches it, its files
//! handed out one by one, so a tree of millions costs its deepest path's folders in memory,
//! not its files.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

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

/// The bytes S3 orders a key by: its UTF-8 (on Unix, the name's bytes as the OS gave them).
pub fn key_bytes(name: &OsStr) -> Vec<u8> {
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
fn read_folder(path: &Path) -> io::Result<Vec<Entry>> {
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

/// A folder that could not be read, and why.
#[derive(Debug)]
pub struct WalkError {
    /// The folder.
    pub path: PathBuf,
    /// The OS's error.
    pub error: io::Error,
}

impl std::fmt::Display for WalkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let error = parhash_format::error_text(&self.error);
        write!(f, "{}: {error}", self.path.display())
    }
}

impl std::error::Error for WalkError {}

/// `(name, path)` of every file below a folder (names relative, with `/`), in key order,
/// after `start_after` where given. A file is a regular file or a link to one; links to
/// folders are not followed.
pub struct KeyWalk {
    stack: Vec<Folder>,
    start_after: Option<Vec<u8>>,
}

impl KeyWalk {
    /// The walk of `root`, after the name `start_after` where given.
    ///
    /// # Errors
    /// `root` cannot be read as a folder.
    pub fn new(root: &Path, start_after: Option<&OsStr>) -> Result<KeyWalk, WalkError> {
        let mut walk = KeyWalk {
            stack: Vec::new(),
            start_after: start_after.map(key_bytes),
        };
        walk.open(OsString::new(), root.to_path_buf())?;
        Ok(walk)
    }

    fn open(&mut self, prefix: OsString, path: PathBuf) -> Result<(), WalkError> {
        match read_folder(&path) {
            Ok(entries) => {
                self.stack.push(Folder {
                    prefix,
                    path,
                    entries: entries.into_iter(),
                });
                Ok(())
            }
            Err(error) => Err(WalkError { path, error }),
        }
    }

    fn next_file(&mut self) -> Result<Option<(OsString, PathBuf)>, WalkError> {
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
                return Ok(Some((name, path)));
            }
        }
        Ok(None)
    }
}

impl Iterator for KeyWalk {
    type Item = Result<(OsString, PathBuf), WalkError>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_file() {
            Ok(found) => found.map(Ok),
            Err(err) => {
                // A walk that failed ends there.
                self.stack.clear();
                Some(Err(err))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_come_in_key_order_after_start_after() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a-b", "a/x", "a/y", "a.c", "b"] {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, name).unwrap();
        }
        let names = |after: Option<&str>| -> Vec<String> {
            (KeyWalk::new(dir.path(), after.map(OsStr::new)).unwrap())
                .map(|found| found.unwrap().0.into_string().unwrap())
                .collect()
        };
        // '-' (0x2d) < '.' (0x2e) < '/' (0x2f): S3's order, not a depth-first walk's.
        assert_eq!(names(None), ["a-b", "a.c", "a/x", "a/y", "b"]);
        assert_eq!(names(Some("a/x")), ["a/y", "b"]);
        assert!(KeyWalk::new(&dir.path().join("none"), None).is_err());
    }
}
