//! `sum -r`: the files below a directory, depth-first in sorted order, one directory read at a
//! time (so a tree of any size costs memory for one path list per open level, never for the
//! whole tree).
//!
//! Policy (also in `sum --help`): entries are sorted by the bytes of their names; symbolic
//! links below the directory are hashed when they lead to a file (the target's content under
//! the link's name) and not followed when they lead to a directory (no cycles, nothing counted
//! twice); a dangling link is reported like a missing file; FIFOs, sockets and devices are
//! skipped (reading them could block or never end). A directory that cannot be read is
//! reported in its place and the walk goes on.

use std::fs;
use std::io;
use std::path::PathBuf;

/// One step of a walk: a file to hash, or a directory that could not be read.
#[derive(Debug)]
pub enum Entry {
    /// A file to hash (or a dangling link, which hashing reports).
    File(PathBuf),
    /// A directory that could not be read, and why.
    Unreadable(PathBuf, io::Error),
}

/// What to do with a directory entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Directory,
    File,
    Skip,
}

/// A depth-first walk below one directory.
pub struct Walk {
    /// For each open directory, innermost last: its entries not yet visited, in reverse order
    /// (so `pop` gives the next).
    stack: Vec<Vec<(PathBuf, Kind)>>,
}

impl Walk {
    /// A walk below `root` (which the caller found to be a directory).
    pub fn new(root: PathBuf) -> Walk {
        Walk {
            stack: vec![vec![(root, Kind::Directory)]],
        }
    }
}

impl Iterator for Walk {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        loop {
            let top = self.stack.last_mut()?;
            let Some((path, kind)) = top.pop() else {
                self.stack.pop();
                continue;
            };
            match kind {
                Kind::File => return Some(Entry::File(path)),
                Kind::Skip => {}
                Kind::Directory => match read_sorted(&path) {
                    Ok(entries) => self.stack.push(entries),
                    Err(err) => return Some(Entry::Unreadable(path, err)),
                },
            }
        }
    }
}

/// The files `sum [-r] NAMES...` hashes, in its order: each name itself, or with `recursive`
/// the files below a name that is a directory (followed if it is a link to one). `-` (standard
/// input) is never walked.
pub fn expand<I>(names: I, recursive: bool) -> impl Iterator<Item = Entry>
where
    I: IntoIterator<Item = PathBuf>,
{
    names.into_iter().flat_map(move |name| {
        let walked = recursive && name.as_os_str() != "-" && name.is_dir();
        let (single, walk) = if walked {
            (None, Some(Walk::new(name)))
        } else {
            (Some(Entry::File(name)), None)
        };
        single.into_iter().chain(walk.into_iter().flatten())
    })
}

/// A directory's entries, classified, sorted by name bytes and reversed.
fn read_sorted(dir: &PathBuf) -> io::Result<Vec<(PathBuf, Kind)>> {
    let mut entries = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let file_type = entry.file_type()?;
        let kind = if file_type.is_dir() {
            Kind::Directory
        } else if file_type.is_file() {
            Kind::File
        } else if file_type.is_symlink() {
            match fs::metadata(&path) {
                Ok(target) if target.is_file() => Kind::File,
                Ok(_) => Kind::Skip,
                // Dangling or unreadable: hashing it reports why, in its place.
                Err(_) => Kind::File,
            }
        } else {
            Kind::Skip
        };
        entries.push((entry.file_name(), path, kind));
    }
    // By the names read from the directory: a path's last component costs a parse (and the
    // sort compares each entry about log2(n) times).
    entries.sort_unstable_by(|a, b| b.0.as_encoded_bytes().cmp(a.0.as_encoded_bytes()));
    Ok(entries
        .into_iter()
        .map(|(_, path, kind)| (path, kind))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(root: &std::path::Path) -> Vec<String> {
        Walk::new(root.to_path_buf())
            .map(|e| match e {
                Entry::File(p) => p.strip_prefix(root).unwrap().display().to_string(),
                Entry::Unreadable(p, _) => format!("! {}", p.display()),
            })
            .collect()
    }

    /// A fresh directory holding the directories `dirs` (parents first) and the `files`, each
    /// file's content its name.
    fn tree(dirs: &[&str], files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for d in dirs {
            fs::create_dir(dir.path().join(d)).unwrap();
        }
        for f in files {
            fs::write(dir.path().join(f), f).unwrap();
        }
        dir
    }

    #[test]
    fn depth_first_in_byte_order() {
        let dir = tree(
            &["b", "b/c", "a", "B"],
            &["z", "b/y", "b/c/x", "b/a", "a/q", "B/p", "_"],
        );
        let root = dir.path();
        assert_eq!(names(root), ["B/p", "_", "a/q", "b/a", "b/c/x", "b/y", "z"]);
    }

    #[cfg(unix)]
    #[test]
    fn links_to_files_are_hashed_links_to_directories_are_not_followed() {
        use std::os::unix::fs::symlink;
        let dir = tree(&["d"], &["d/f"]);
        let root = dir.path();
        symlink(root.join("d/f"), root.join("file-link")).unwrap();
        symlink(root.join("d"), root.join("dir-link")).unwrap();
        symlink(root, root.join("d/loop")).unwrap();
        symlink(root.join("nowhere"), root.join("dangling")).unwrap();
        assert_eq!(names(root), ["d/f", "dangling", "file-link"]);
    }

    #[test]
    fn expand_walks_directories_only_when_recursive() {
        let dir = tree(&["d"], &["d/f", "g"]);
        let root = dir.path();
        let files = |recursive| -> Vec<PathBuf> {
            let names = [root.join("g"), root.join("d"), PathBuf::from("-")];
            expand(names, recursive)
                .map(|e| match e {
                    Entry::File(p) => p,
                    Entry::Unreadable(p, err) => panic!("{}: {err}", p.display()),
                })
                .collect()
        };
        assert_eq!(files(true), [root.join("g"), root.join("d/f"), "-".into()]);
        assert_eq!(files(false), [root.join("g"), root.join("d"), "-".into()]);
    }
}
