//! The files `sum -o FILE` writes: the list and its side file ([`meta::side_path`]) written
//! durably ([`Durable`]), cut and continued (`--resume`, [`Durable::continue_at`]), written to
//! `FILE.tmp` ([`temporary`]) and renamed over the old ones (`--update`, [`replace`]); and the
//! files a walk leaves out because they are being written ([`OwnFiles`]); and where the lists
//! of `sum --lists DIR` go ([`list_paths`]). The command line, the
//! Python package (`parhash.lists`) and `parhash-dist` all write their lists through these.
//!
//! Errors name the file as `parhash sum` says them: `cannot write FILE: REASON`
//! ([`cannot_write`]); [`FileError::of`] gives back the file and the system's error.

use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parhash::Algorithm;

use crate::{meta, tag};

/// How often written lines are forced to the disk, at most.
pub const SYNC_EVERY: Duration = Duration::from_secs(5);

/// How many bytes of lines may wait in the page cache before they are forced to the disk.
pub const SYNC_BYTES: u64 = 64 << 20;

/// A file written as a list is: every write handed to the kernel at once (a killed run loses
/// nothing written), fsync every [`SYNC_EVERY`] or [`SYNC_BYTES`] and at the end (a crash or
/// power cut loses at most those). The end is the caller's: [`Durable::sync`] before it is
/// dropped.
#[derive(Debug)]
pub struct Durable {
    file: File,
    path: PathBuf,
    unsynced: u64,
    synced_at: Instant,
}

impl Durable {
    /// `path`, created empty (its directory synced: the name too survives a crash).
    pub fn create(path: &Path) -> io::Result<Durable> {
        let file = File::create(path).map_err(|err| cannot_write(path, err))?;
        sync_parent(path);
        Ok(Durable::new(file, path))
    }

    /// `path` cut to its first `len` bytes and written on from there ([`open_at`]).
    pub fn continue_at(path: &Path, len: u64) -> io::Result<Durable> {
        Ok(Durable::new(open_at(path, len)?, path))
    }

    fn new(file: File, path: &Path) -> Durable {
        Durable {
            file,
            path: path.to_path_buf(),
            unsynced: 0,
            synced_at: Instant::now(),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `bytes` (and syncs if it is time).
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        self.file
            .write_all(bytes)
            .map_err(|err| cannot_write(&self.path, err))?;
        self.unsynced += bytes.len() as u64;
        if self.unsynced >= SYNC_BYTES || self.synced_at.elapsed() >= SYNC_EVERY {
            self.sync()?;
        }
        Ok(())
    }

    /// Forces what was written to the disk.
    pub fn sync(&mut self) -> io::Result<()> {
        self.file
            .sync_data()
            .map_err(|err| cannot_write(&self.path, err))?;
        self.unsynced = 0;
        self.synced_at = Instant::now();
        Ok(())
    }
}

/// The existing file at `path` cut to its first `len` bytes, open for writing at its end.
pub fn open_at(path: &Path, len: u64) -> io::Result<File> {
    let open = || {
        let mut file = OpenOptions::new().write(true).open(path)?;
        file.set_len(len)?;
        file.seek(SeekFrom::Start(len))?;
        Ok(file)
    };
    open().map_err(|err| cannot_write(path, err))
}

/// An I/O error about a file, worded `WHAT FILE: REASON` (`cannot write SHA256SUMS: No space
/// left on device`); it keeps the system's error for those who word it otherwise (Python's
/// `OSError` with `errno` and `filename`).
#[derive(Debug)]
pub struct FileError {
    what: &'static str,
    path: PathBuf,
    error: io::Error,
}

impl FileError {
    /// The [`FileError`] inside `err`, if it is one.
    pub fn of(err: &io::Error) -> Option<&FileError> {
        err.get_ref()?.downcast_ref::<FileError>()
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The system's error.
    pub fn error(&self) -> &io::Error {
        &self.error
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reason = crate::error_text(&self.error);
        write!(f, "{} {}: {reason}", self.what, self.path.display())
    }
}

// No `source`: the message already says the system's reason, and a chain of causes would say
// it twice.
impl std::error::Error for FileError {}

/// `err` writing `path`, as `parhash sum` says it: `cannot write FILE: REASON` (of the same
/// kind as `err`).
pub fn cannot_write(path: &Path, err: io::Error) -> io::Error {
    let kind = err.kind();
    let error = FileError {
        what: "cannot write",
        path: path.to_path_buf(),
        error: err,
    };
    io::Error::new(kind, error)
}

/// `FILE.tmp`, where `--update` writes before renaming over `FILE`.
pub fn temporary(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(".tmp");
    PathBuf::from(name)
}

/// Renames `from` over `to` and syncs their directory, so the rename survives a crash.
pub fn replace(from: &Path, to: &Path) -> io::Result<()> {
    fs::rename(from, to).map_err(|err| cannot_write(to, err))?;
    sync_parent(to);
    Ok(())
}

/// Syncs the directory of `path`, so that a name created or renamed there survives a crash.
/// Some file systems cannot sync a directory: the name is there either way.
pub fn sync_parent(path: &Path) {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
}

/// The files `sum -o LIST` writes, which its walk leaves out should they lie in the tree (a
/// file being written is not listed): `LIST`, `LIST.tmp`, the side file's `.tmp` and the side
/// file; or the lists `sum --lists DIR` writes ([`OwnFiles::lists`]). `check --audit LIST`
/// leaves them out too: they are not part of the data.
#[derive(Clone, Debug)]
pub struct OwnFiles {
    paths: Vec<PathBuf>,
    names: Vec<OsString>,
}

impl OwnFiles {
    /// The files of the list at `list`.
    pub fn new(list: &Path) -> OwnFiles {
        let side = meta::side_path(list);
        OwnFiles::of(vec![
            list.to_path_buf(),
            temporary(list),
            temporary(&side),
            side,
        ])
    }

    /// The lists of `sum --lists DIR` at `paths` ([`list_paths`]): were they walked, each would
    /// be listed as it was when the walk reached it (empty, or cut short).
    pub fn lists(paths: &[PathBuf]) -> OwnFiles {
        OwnFiles::of(paths.to_vec())
    }

    fn of(paths: Vec<PathBuf>) -> OwnFiles {
        let names = (paths.iter())
            .filter_map(|path| path.file_name().map(|name| name.to_os_string()))
            .collect();
        OwnFiles { paths, names }
    }

    /// Their paths: the list, its `.tmp`, the side file's `.tmp`, the side file (or the lists).
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// Whether the walk's `path` is one of them: the same file, not only the same name (a
    /// namesake elsewhere in the tree is data). Names are compared first, so only a file of
    /// the same name costs a look at its inode.
    pub fn contains(&self, path: &Path) -> bool {
        if !path
            .file_name()
            .is_some_and(|name| self.names.iter().any(|own| own == name))
        {
            return false;
        }
        let Some(found) = identity(path) else {
            return false;
        };
        self.paths.iter().any(|own| identity(own) == Some(found))
    }
}

/// The template `--list-name` defaults to: the name distributions give each list.
pub const DEFAULT_LIST_NAME: &str = "{name}";

/// The paths of the lists `sum --lists DIR [--list-name TEMPLATE]` writes, one per algorithm in
/// the order given: `DIR/` and `TEMPLATE` (default [`DEFAULT_LIST_NAME`]) with `{name}` replaced
/// by the name distributions give the list ([`tag::list_name`]: `SHA256SUMS`) and `{alg}` by the
/// algorithm's (`sha256`). An error, in `parhash sum`'s words, where two would be the same.
pub fn list_paths(
    dir: &Path,
    template: Option<&str>,
    algorithms: &[Algorithm],
) -> Result<Vec<PathBuf>, String> {
    let template = template.unwrap_or(DEFAULT_LIST_NAME);
    let mut paths: Vec<PathBuf> = Vec::with_capacity(algorithms.len());
    for &alg in algorithms {
        let name = template
            .replace("{name}", &tag::list_name(alg))
            .replace("{alg}", alg.name());
        let path = dir.join(name);
        if paths.contains(&path) {
            return Err(format!(
                "two lists would be named {}: see --list-name",
                path.display()
            ));
        }
        paths.push(path);
    }
    Ok(paths)
}

/// What makes a file itself, whatever its name: its device and inode.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// What makes a file itself, whatever its name: its canonical path.
#[cfg(not(unix))]
fn identity(path: &Path) -> Option<PathBuf> {
    fs::canonicalize(path).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durable_writes_at_once_and_continues_at_a_cut() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("SUMS");
        let mut list = Durable::create(&path).unwrap();
        list.write(b"one\n").unwrap();
        list.write(b"").unwrap();
        list.write(b"two\ntorn").unwrap();
        // Handed to the kernel at once: readable before any sync or drop.
        assert_eq!(fs::read(&path).unwrap(), b"one\ntwo\ntorn");
        list.sync().unwrap();
        drop(list);
        let mut list = Durable::continue_at(&path, 8).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one\ntwo\n");
        list.write(b"three\n").unwrap();
        list.sync().unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"one\ntwo\nthree\n");
        assert_eq!(list.path(), path);
        // Created again: empty.
        drop(Durable::create(&path).unwrap());
        assert_eq!(fs::read(&path).unwrap(), b"");
    }

    #[test]
    fn errors_name_the_file_as_sum_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gone").join("SUMS");
        for err in [
            Durable::create(&path).unwrap_err(),
            Durable::continue_at(&path, 0).unwrap_err(),
            replace(&dir.path().join("none"), &path).unwrap_err(),
        ] {
            assert_eq!(err.kind(), io::ErrorKind::NotFound);
            let expected = format!("cannot write {}: No such file or directory", path.display());
            assert_eq!(err.to_string(), expected);
            assert_eq!(crate::error_text(&err), expected);
            let file_error = FileError::of(&err).unwrap();
            assert_eq!(file_error.path(), path);
            assert_eq!(file_error.error().raw_os_error(), Some(2));
        }
        assert!(FileError::of(&io::Error::from_raw_os_error(2)).is_none());
    }

    #[test]
    fn replace_renames_over_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("SUMS");
        let tmp = temporary(&path);
        assert_eq!(tmp, dir.path().join("SUMS.tmp"));
        fs::write(&path, b"old\n").unwrap();
        fs::write(&tmp, b"new\n").unwrap();
        replace(&tmp, &path).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new\n");
        assert!(!tmp.exists());
    }

    #[test]
    fn own_files_by_identity_not_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("SUMS");
        let own = OwnFiles::new(&list);
        let names: Vec<_> = own.paths().iter().map(|p| p.file_name().unwrap()).collect();
        assert_eq!(
            names,
            [
                "SUMS",
                "SUMS.tmp",
                "SUMS.parhash-meta.tmp",
                "SUMS.parhash-meta"
            ]
        );
        // Not there yet: nothing is left out.
        assert!(!own.contains(&list));
        for path in own.paths() {
            fs::write(path, b"x").unwrap();
        }
        for path in own.paths() {
            assert!(own.contains(path), "{}", path.display());
        }
        // The same files by another way to them.
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).unwrap();
        assert!(own.contains(&sub.join("..").join("SUMS")));
        // A file of the same name elsewhere is data.
        let namesake = sub.join("SUMS");
        fs::write(&namesake, b"x").unwrap();
        assert!(!own.contains(&namesake));
        assert!(!own.contains(&sub.join("SUMS.parhash-meta")));
        // Another name, even in the same directory, is never looked at.
        fs::write(dir.path().join("data"), b"x").unwrap();
        assert!(!own.contains(&dir.path().join("data")));
        #[cfg(unix)]
        {
            // A hard link to the list under its own name elsewhere is the list.
            let linked = sub.join("SUMS.tmp");
            fs::hard_link(&list, &linked).unwrap();
            assert!(own.contains(&linked));
        }
    }

    #[test]
    fn list_paths_from_the_template() {
        let algs = [Algorithm::Sha256, Algorithm::Blake2b];
        let dir = Path::new("out");
        let paths = list_paths(dir, None, &algs).unwrap();
        assert_eq!(paths, [dir.join("SHA256SUMS"), dir.join("B2SUMS")]);
        let paths = list_paths(dir, Some("r-1.{alg}.{name}"), &algs).unwrap();
        assert_eq!(
            paths,
            [
                dir.join("r-1.sha256.SHA256SUMS"),
                dir.join("r-1.blake2b.B2SUMS")
            ]
        );
        assert_eq!(
            list_paths(dir, Some("SUMS"), &algs).unwrap_err(),
            "two lists would be named out/SUMS: see --list-name"
        );
    }

    #[test]
    fn own_files_of_a_relative_list() {
        let own = OwnFiles::new(Path::new("SUMS"));
        assert_eq!(own.paths()[0], Path::new("SUMS"));
        assert_eq!(own.paths()[3], Path::new("SUMS.parhash-meta"));
    }
}
