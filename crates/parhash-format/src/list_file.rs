//! The files `sum -o FILE` writes: the list and its side file ([`meta::side_path`]) written
//! durably ([`Durable`]), cut and continued (`--resume`, [`Durable::continue_at`]), written to
//! `FILE.tmp` ([`temporary`]) and renamed over the old ones (`--update`, [`replace`]); and the
//! files a walk leaves out because they are being written ([`OwnFiles`]); and where the lists
//! of `sum --lists DIR` go ([`list_paths`]). The command line, the
//! Python package (`parhash.lists`) and `parhash-dist` all write their lists through these.
//!
//! `FILE` is first taken for what it is ([`Target`]): a symbolic link is followed to the file
//! it names, which is written, continued and replaced beside itself (the link stays); a device
//! or a pipe is written once, plainly. A list being written is locked ([`Durable`],
//! [`ListLock`]): a second run writing it at the same time stops before touching it.
//!
//! Errors name the file as `parhash sum` says them: `cannot write FILE: REASON`
//! ([`cannot_write`]); [`FileError::of`] gives back the file and the system's error.

use std::ffi::OsString;
use std::fmt;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parhash::Algorithm;

use crate::{meta, tag};

/// What `sum -o PATH` writes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A regular file, or none yet: the file that `PATH` names once symbolic links are
    /// followed ([`resolve`]), written durably with its side file beside it; `--resume` and
    /// `--update` continue and replace it there, and a link stays a link.
    File(PathBuf),
    /// A device, a pipe or a socket (`/dev/stdout`, a FIFO, `/dev/null`), as given: written
    /// once, without a side file, a `.tmp` or a sync (a pipe cannot be synced, cut or renamed
    /// over, and a device is no place for a side file).
    Stream(PathBuf),
}

impl Target {
    /// What `path` is now (nothing there yet is a file to create).
    pub fn of(path: &Path) -> Target {
        match fs::metadata(path) {
            Ok(metadata) if !metadata.is_file() && !metadata.is_dir() => {
                Target::Stream(path.to_path_buf())
            }
            // A directory is left to fail as it would: `cannot write DIR: Is a directory`.
            _ => Target::File(resolve(path)),
        }
    }

    /// The path to write: the file a link names, or the stream as given.
    pub fn path(&self) -> &Path {
        match self {
            Target::File(path) | Target::Stream(path) => path,
        }
    }

    /// Whether it is a (regular) file: written durably, with a side file.
    pub fn is_file(&self) -> bool {
        matches!(self, Target::File(_))
    }

    /// The file, where `flag` (`--resume`, `--update`) may continue or replace it; for a
    /// stream, `sum`'s refusal: `cannot --update /dev/stdout: not a regular file (...)`.
    pub fn again(&self, flag: &str) -> Result<&Path, String> {
        match self {
            Target::File(path) => Ok(path),
            Target::Stream(path) => Err(format!(
                "cannot {flag} {}: not a regular file (lists to a device or pipe are written once)",
                path.display()
            )),
        }
    }
}

/// The most symbolic links [`resolve`] follows, as the kernel's own limit: past them the path
/// is left for the system to refuse (`Too many levels of symbolic links`).
const MAX_LINKS: usize = 40;

/// `path` with its symbolic links followed, chains and relative links included (a relative
/// link is read from its own directory), to the file they name, whether it exists yet or not:
/// the list is written, cut and renamed over there, its `.tmp` and side file beside it. The
/// directories on the way are left as they are: the system follows them alike.
pub fn resolve(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let Ok(target) = fs::read_link(&path) else {
            break;
        };
        path = match path.parent() {
            // `join` keeps an absolute target as it is.
            Some(dir) => dir.join(target),
            None => target,
        };
    }
    path
}

/// How often written lines are forced to the disk, at most.
pub const SYNC_EVERY: Duration = Duration::from_secs(5);

/// How many bytes of lines may wait in the page cache before they are forced to the disk.
pub const SYNC_BYTES: u64 = 64 << 20;

/// A file written as a list is: every write handed to the kernel at once (a killed run loses
/// nothing written), fsync every [`SYNC_EVERY`] or [`SYNC_BYTES`] and at the end (a crash or
/// power cut loses at most those). The end is the caller's: [`Durable::sync`] before it is
/// dropped.
///
/// A regular file is locked while it is open ([`File::try_lock`], advisory): a second writer
/// of the same list, here or in another process, stops with `cannot write FILE: another run
/// is writing it` before it cuts or writes anything ([`is_locked`]). A device or a pipe is
/// written plainly: not locked, cut or synced.
#[derive(Debug)]
pub struct Durable {
    file: File,
    path: PathBuf,
    /// A regular file: synced. Not a device or a pipe, which cannot be.
    regular: bool,
    unsynced: u64,
    synced_at: Instant,
}

impl Durable {
    /// `path`, created empty (its directory synced: the name too survives a crash); a device
    /// or a pipe is opened to be written, as it is.
    pub fn create(path: &Path) -> io::Result<Durable> {
        let mut options = OpenOptions::new();
        options.write(true).create(true);
        let mut list = Durable::open_with(path, &options)?;
        // Cut only once locked: a second writer must not empty the first one's list.
        list.cut(0)?;
        if list.regular {
            sync_parent(path);
        }
        Ok(list)
    }

    /// The existing file at `path`, locked, as it is: [`Durable::cut`] it where it is to be
    /// continued. `--resume` opens it before reading it, so that no other run writes it
    /// between.
    pub fn open(path: &Path) -> io::Result<Durable> {
        Durable::open_with(path, OpenOptions::new().write(true))
    }

    /// `path` cut to its first `len` bytes and written on from there ([`Durable::open`],
    /// [`Durable::cut`]).
    pub fn continue_at(path: &Path, len: u64) -> io::Result<Durable> {
        let mut list = Durable::open(path)?;
        list.cut(len)?;
        Ok(list)
    }

    fn open_with(path: &Path, options: &OpenOptions) -> io::Result<Durable> {
        let (file, regular) = open_locked(path, options).map_err(|err| cannot_write(path, err))?;
        Ok(Durable {
            file,
            path: path.to_path_buf(),
            regular,
            unsynced: 0,
            synced_at: Instant::now(),
        })
    }

    /// Cuts the file to its first `len` bytes and writes on from there (a device or a pipe,
    /// which has no length, is left as it is).
    pub fn cut(&mut self, len: u64) -> io::Result<()> {
        if !self.regular {
            return Ok(());
        }
        let mut cut = || {
            self.file.set_len(len)?;
            self.file.seek(SeekFrom::Start(len)).map(drop)
        };
        cut().map_err(|err| cannot_write(&self.path, err))
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

    /// Forces what was written to the disk (nothing for a device or a pipe: there is no disk
    /// behind it, and fsync would refuse with `Invalid argument`).
    pub fn sync(&mut self) -> io::Result<()> {
        if self.regular {
            self.file
                .sync_data()
                .map_err(|err| cannot_write(&self.path, err))?;
        }
        self.unsynced = 0;
        self.synced_at = Instant::now();
        Ok(())
    }
}

/// The existing file at `path` cut to its first `len` bytes, open for writing at its end
/// (locked, as [`Durable`] locks it).
pub fn open_at(path: &Path, len: u64) -> io::Result<File> {
    Ok(Durable::continue_at(path, len)?.file)
}

/// A list locked, and left as it is, while `--update` writes the new one beside it: a plain
/// run or another update of the same list stops until it is dropped, once the new list is
/// renamed over it (the new list's own lock then holds: keep its [`Durable`] until both
/// renames are done).
#[derive(Debug)]
pub struct ListLock {
    _file: File,
}

impl ListLock {
    /// Locks the existing list at `path` (opened only to read: a list may be read-only where
    /// its directory is not); `cannot write FILE: another run is writing it` if it is locked.
    pub fn new(path: &Path) -> io::Result<ListLock> {
        let (file, _) = open_locked(path, OpenOptions::new().read(true))
            .map_err(|err| cannot_write(path, err))?;
        Ok(ListLock { _file: file })
    }
}

/// Whether `err` says that another run is writing the list ([`Durable`], [`ListLock`]).
pub fn is_locked(err: &io::Error) -> bool {
    let error = FileError::of(err).map_or(err, FileError::error);
    error.kind() == io::ErrorKind::WouldBlock && error.get_ref().is_some_and(|e| e.is::<Locked>())
}

/// The reason a locked list is not written.
#[derive(Debug)]
struct Locked;

impl fmt::Display for Locked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("another run is writing it")
    }
}

impl std::error::Error for Locked {}

/// `path` opened with `options`, and locked if it is a regular file: the file and whether it
/// is one. Opening never creates a second lock on a file this process has open: one open
/// file, one lock.
fn open_locked(path: &Path, options: &OpenOptions) -> io::Result<(File, bool)> {
    // Another run's `--update` may rename its new list over the name between the open and
    // the lock: the lock must be on the file the name leads to, so it is taken again there.
    for _ in 0..MAX_LINKS {
        let file = options.open(path)?;
        if !file.metadata()?.is_file() {
            return Ok((file, false));
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(io::Error::new(io::ErrorKind::WouldBlock, Locked))
            }
            // A file system without locks (some network ones): written as before locks were.
            Err(TryLockError::Error(_)) => return Ok((file, true)),
        }
        if is_named(&file, path) {
            return Ok((file, true));
        }
    }
    Err(io::Error::new(io::ErrorKind::WouldBlock, Locked))
}

/// Whether `path` still leads to `file`.
#[cfg(unix)]
fn is_named(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let of = |m: fs::Metadata| (m.dev(), m.ino());
    match (file.metadata(), fs::metadata(path)) {
        (Ok(open), Ok(named)) => of(open) == of(named),
        _ => false,
    }
}

/// Whether `path` still leads to `file` (a file open here cannot be renamed over).
#[cfg(not(unix))]
fn is_named(_file: &File, _path: &Path) -> bool {
    true
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
/// file (beside the file a link `LIST` names, and the link), and the piece list; or the lists
/// `sum --lists DIR` writes ([`OwnFiles::lists`]). `check --audit LIST` leaves them out too: they are not part of
/// the data.
#[derive(Clone, Debug)]
pub struct OwnFiles {
    paths: Vec<PathBuf>,
    names: Vec<OsString>,
}

impl OwnFiles {
    /// The files of the list at `list`.
    pub fn new(list: &Path) -> OwnFiles {
        let file = resolve(list);
        let side = meta::side_path(&file);
        let mut paths = vec![file.clone(), temporary(&file), temporary(&side), side];
        if file != list {
            paths.push(list.to_path_buf());
        }
        let pieces = crate::pieces::side_path(&file);
        paths.extend([temporary(&pieces), pieces]);
        OwnFiles::of(paths)
    }

    /// The lists of `sum --lists DIR` at `paths` ([`list_paths`]): were they walked, each would
    /// be listed as it was when the walk reached it (empty, or cut short). Their piece lists
    /// (and those's `.tmp`) too.
    pub fn lists(paths: &[PathBuf]) -> OwnFiles {
        let mut own = paths.to_vec();
        for path in paths {
            let pieces = crate::pieces::side_path(path);
            own.extend([temporary(&pieces), pieces]);
        }
        OwnFiles::of(own)
    }

    fn of(paths: Vec<PathBuf>) -> OwnFiles {
        let names = (paths.iter())
            .filter_map(|path| path.file_name().map(|name| name.to_os_string()))
            .collect();
        OwnFiles { paths, names }
    }

    /// Their paths: the list, its `.tmp`, the side file's `.tmp`, the side file, the link
    /// to the list if it is one, then the piece list's `.tmp` and the piece list (or the
    /// lists, then their piece lists').
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
        // Created again once closed: empty.
        drop(list);
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
                "SUMS.parhash-meta",
                "SUMS.parhash-pieces.tmp",
                "SUMS.parhash-pieces"
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

    #[cfg(unix)]
    #[test]
    fn a_link_is_followed_to_the_file_it_names() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let (real, links) = (dir.path().join("real"), dir.path().join("links"));
        fs::create_dir(&real).unwrap();
        fs::create_dir(&links).unwrap();
        let list = real.join("SUMS");
        // A relative link in another directory, and a chain to it.
        symlink("../real/SUMS", links.join("relative")).unwrap();
        symlink(links.join("relative"), links.join("chain")).unwrap();
        let same = |path: &Path| fs::canonicalize(path.parent().unwrap()).unwrap();
        for link in ["relative", "chain"] {
            let link = links.join(link);
            // Not there yet: the file the link names is the one to create.
            let Target::File(file) = Target::of(&link) else {
                panic!("{} is no file", link.display());
            };
            assert_eq!(file.file_name().unwrap(), "SUMS");
            assert_eq!(same(&file), fs::canonicalize(&real).unwrap());
            let own = OwnFiles::new(&link);
            assert_eq!(own.paths()[3].file_name().unwrap(), "SUMS.parhash-meta");
            assert_eq!(same(&own.paths()[3]), fs::canonicalize(&real).unwrap());
            assert_eq!(own.paths()[4], link);
        }
        let mut written = Durable::create(&resolve(&links.join("chain"))).unwrap();
        written.write(b"one\n").unwrap();
        written.sync().unwrap();
        drop(written);
        assert_eq!(fs::read(&list).unwrap(), b"one\n");
        assert!(fs::symlink_metadata(links.join("chain"))
            .unwrap()
            .is_symlink());
        let own = OwnFiles::new(&links.join("chain"));
        assert!(own.contains(&links.join("chain")) && own.contains(&list));
        // A bare name, and a name that is no link, are themselves.
        assert_eq!(resolve(Path::new("SUMS")), Path::new("SUMS"));
        assert_eq!(resolve(&list), list);
        // A loop is left for the system to refuse.
        symlink("loop", links.join("loop")).unwrap();
        let err = Durable::create(&resolve(&links.join("loop"))).unwrap_err();
        assert!(err.to_string().contains("symbolic links"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_device_or_a_pipe_is_written_once_plainly() {
        let null = Path::new("/dev/null");
        assert_eq!(Target::of(null), Target::Stream(null.to_path_buf()));
        assert_eq!(
            Target::of(null).again("--update").unwrap_err(),
            "cannot --update /dev/null: not a regular file \
             (lists to a device or pipe are written once)"
        );
        let mut written = Durable::create(null).unwrap();
        written.write(b"one\n").unwrap();
        written.sync().unwrap();
        drop(written);
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success());
        assert!(!Target::of(&fifo).is_file());
        let refused = Target::of(&fifo).again("--resume").unwrap_err();
        assert!(refused.starts_with("cannot --resume "), "{refused}");
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        let mut written = Durable::create(&fifo).unwrap();
        written.write(b"one\n").unwrap();
        written.write(&[b'x'; 100_000]).unwrap();
        written.sync().unwrap();
        drop(written);
        let read = reader.join().unwrap();
        assert_eq!(&read[..4], b"one\n");
        assert_eq!(read.len(), 100_004);
        // A regular file, or none yet, is a file.
        assert!(Target::of(&dir.path().join("none")).is_file());
    }

    #[test]
    fn a_locked_list_is_left_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("SUMS");
        fs::write(&path, b"old\n").unwrap();
        // Another run's lock, as a second process would hold it.
        let other = File::open(&path).unwrap();
        other.try_lock().unwrap();
        let expected = format!("cannot write {}: another run is writing it", path.display());
        for err in [
            Durable::create(&path).unwrap_err(),
            Durable::continue_at(&path, 0).unwrap_err(),
            ListLock::new(&path).unwrap_err(),
        ] {
            assert_eq!(err.to_string(), expected);
            assert_eq!(err.kind(), io::ErrorKind::WouldBlock);
            assert!(is_locked(&err));
            assert_eq!(FileError::of(&err).unwrap().path(), path);
        }
        assert_eq!(fs::read(&path).unwrap(), b"old\n");
        drop(other);
        // A list being written, or updated, is locked in turn.
        let mut first = Durable::create(&path).unwrap();
        first.write(b"new\n").unwrap();
        assert!(is_locked(&Durable::create(&path).unwrap_err()));
        assert_eq!(fs::read(&path).unwrap(), b"new\n");
        drop(first);
        let update = ListLock::new(&path).unwrap();
        assert!(is_locked(&Durable::open(&path).unwrap_err()));
        drop(update);
        assert!(!is_locked(
            &Durable::open(&dir.path().join("none")).unwrap_err()
        ));
        assert!(!is_locked(&io::Error::from(io::ErrorKind::WouldBlock)));
    }

    #[test]
    fn own_files_of_a_relative_list() {
        let own = OwnFiles::new(Path::new("SUMS"));
        assert_eq!(own.paths()[0], Path::new("SUMS"));
        assert_eq!(own.paths()[3], Path::new("SUMS.parhash-meta"));
    }
}
