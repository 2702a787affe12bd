//! The FUSE file system: a root directory that holds the backing file, read-only, each read
//! delayed as the head model says and given the faults injected ([`Faults`]).

use std::ffi::{OsStr, OsString};
use std::fs::{File, Metadata};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use fuser::{
    Config, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo,
    KernelConfig, LockOwner, MountOption, OpenAccMode, OpenFlags, ReplyAttr, ReplyData,
    ReplyDirectory, ReplyEntry, ReplyOpen, ReplyStatfs, Request, SessionACL,
};

use crate::faults::{FaultState, Faults, ReadError};
use crate::model::{Counters, Head, Model, Stats};

/// The file's inode (the root directory is [`INodeNo::ROOT`]).
const FILE: INodeNo = INodeNo(2);

/// How long the kernel may keep names and attributes: the file does not change while it is
/// served (data is another matter: each open starts with none cached, see [`SeekFs`]), unless
/// a [`crate::Change`] is injected: then not at all, so that `fstat` sees it.
const TTL: Duration = Duration::from_secs(3600);

/// Largest read request and readahead window asked of the kernel, in bytes: 1 MiB, the most a
/// FUSE request carries by default (`fuse.max_pages_limit`, 256 pages) and about what a real
/// disk's queue takes in one request (`max_sectors_kb` is 1280 on most SATA disks). The kernel
/// keeps the smaller of this and its own readahead default (128 KiB, as for a disk), so
/// `cat` and page faults read ahead 128 KiB at a time while one large `read(2)` of an
/// application goes out as requests of up to 1 MiB.
pub const MAX_REQUEST: u32 = 1 << 20;

/// A file system that serves one file, read-only, under its own name, with each read delayed
/// as one disk head would ([`Model`]).
///
/// Opens do not set `FOPEN_KEEP_CACHE`, so the kernel drops the file's cached pages at every
/// open: each `open` starts cold, as a file read for the first time from a disk, and a second
/// `cat` of the file is as slow as the first. Pages stay cached while the file is open (a reader
/// that maps the file, or reads a part twice, reads the disk once).
#[derive(Debug)]
pub struct SeekFs {
    backing: File,
    name: OsString,
    attr: FileAttr,
    root: FileAttr,
    disk: Mutex<Disk>,
    counters: Arc<Counters>,
    trace: bool,
    started: Instant,
}

impl SeekFs {
    /// Serves `backing` (a regular file) under its own file name, following `model`.
    pub fn new(backing: &Path, model: Model) -> io::Result<SeekFs> {
        let file = File::open(backing)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{}: not a regular file", backing.display()),
            ));
        }
        let name = backing
            .file_name()
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{}: no file name", backing.display()),
                )
            })?
            .to_owned();
        Ok(SeekFs {
            backing: file,
            name,
            attr: attr(FILE, FileType::RegularFile, 0o444, &meta),
            root: attr(INodeNo::ROOT, FileType::Directory, 0o555, &meta),
            disk: Mutex::new(Disk {
                head: Head::new(model),
                faults: FaultState::default(),
            }),
            counters: Arc::new(Counters::default()),
            trace: false,
            started: Instant::now(),
        })
    }

    /// Prints each read request on standard error (`seekfs read OFFSET+LEN seek|- at MS`, milliseconds since
    /// the file system was made).
    pub fn trace(mut self, on: bool) -> SeekFs {
        self.trace = on;
        self
    }

    /// The same, injecting `faults` into its reads (none by default).
    pub fn faults(self, faults: Faults) -> SeekFs {
        self.lock().faults = FaultState::new(faults);
        self
    }

    /// The counters of its reads (shared: they keep counting once the file system is mounted).
    pub fn counters(&self) -> Arc<Counters> {
        Arc::clone(&self.counters)
    }

    /// The file's name in the mounted directory.
    pub fn file_name(&self) -> &OsStr {
        &self.name
    }

    /// The model of its head.
    pub fn model(&self) -> Model {
        self.lock().head.model()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Disk> {
        self.disk.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The file's attributes now (a change injected may have moved its size and times), and
    /// how long the kernel may keep them.
    fn file_attr(&self) -> (FileAttr, Duration) {
        let disk = self.lock();
        let mut attr = self.attr;
        let ttl = if disk.faults.faults().change.is_some() {
            attr.size = disk.faults.size(self.attr.size);
            attr.blocks = attr.size.div_ceil(512);
            let moved = disk.faults.times_moved();
            attr.mtime += moved;
            attr.ctime += moved;
            Duration::ZERO
        } else {
            TTL
        };
        (attr, ttl)
    }
}

/// What one request at a time may change: the head, and what the faults have done.
#[derive(Debug)]
struct Disk {
    head: Head,
    faults: FaultState,
}

/// The attributes of the file or the root, from the backing file's.
fn attr(ino: INodeNo, kind: FileType, perm: u16, meta: &Metadata) -> FileAttr {
    let time = |secs: i64, nsecs: i64| {
        SystemTime::UNIX_EPOCH
            + Duration::from_secs(secs.max(0) as u64)
            + Duration::from_nanos(nsecs.max(0) as u64)
    };
    let mtime = time(meta.mtime(), meta.mtime_nsec());
    let is_file = kind == FileType::RegularFile;
    let size = if is_file { meta.len() } else { 0 };
    FileAttr {
        ino,
        size,
        blocks: size.div_ceil(512),
        atime: time(meta.atime(), meta.atime_nsec()),
        mtime,
        ctime: time(meta.ctime(), meta.ctime_nsec()),
        crtime: mtime,
        kind,
        perm,
        nlink: if is_file { 1 } else { 2 },
        uid: meta.uid(),
        gid: meta.gid(),
        rdev: 0,
        flags: 0,
        blksize: 4096,
    }
}

impl Filesystem for SeekFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> io::Result<()> {
        // Readahead: the kernel's default unless it is larger than MAX_REQUEST (it keeps the
        // smaller anyway). Requests: up to MAX_REQUEST (fuser asks for 16 MiB, the kernel cuts
        // that to its limit; a disk takes about 1 MiB).
        if let Err(max) = config.set_max_readahead(MAX_REQUEST) {
            let _ = config.set_max_readahead(max);
        }
        let _ = config.set_max_write(MAX_REQUEST);
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        if parent == INodeNo::ROOT && name == self.name {
            let (attr, ttl) = self.file_attr();
            reply.entry(&ttl, &attr, Generation(0));
        } else {
            reply.error(Errno::ENOENT);
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match ino {
            INodeNo::ROOT => reply.attr(&TTL, &self.root),
            FILE => {
                let (attr, ttl) = self.file_attr();
                reply.attr(&ttl, &attr);
            }
            _ => reply.error(Errno::ENOENT),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        if ino != FILE {
            reply.error(Errno::ENOENT);
        } else if flags.acc_mode() != OpenAccMode::O_RDONLY {
            reply.error(Errno::EROFS);
        } else {
            // No FOPEN_KEEP_CACHE: the kernel drops the cached pages, the open starts cold.
            // Short reads need direct I/O to reach the reader (see `Faults::short_reads`).
            let flags = if self.lock().faults.faults().short_reads.is_some() {
                FopenFlags::FOPEN_DIRECT_IO
            } else {
                FopenFlags::empty()
            };
            reply.opened(FileHandle(0), flags);
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        if ino != FILE {
            reply.error(Errno::ENOENT);
            return;
        }
        let (served, done) = {
            let mut disk = self.lock();
            let served = disk.faults.read(offset, size, self.attr.size);
            // A failed read costs the head what it asked for.
            let len = match served {
                Ok(served) => served.len,
                Err(ReadError) => u64::from(size).min(self.attr.size.saturating_sub(offset)),
            };
            let seeks = self.counters.stats().seeks;
            let done = disk.head.serve(&self.counters, Instant::now(), offset, len);
            if self.trace {
                let seeked = self.counters.stats().seeks != seeks;
                eprintln!(
                    "seekfs read {offset}+{len} {}{} at {:.3} ms",
                    if seeked { "seek" } else { "-" },
                    if served.is_err() { " EIO" } else { "" },
                    self.started.elapsed().as_secs_f64() * 1e3
                );
            }
            (served, done)
        };
        let read = served.map_err(|ReadError| Errno::EIO).and_then(|served| {
            // Past the backing file's end (a change that grew the file): zeros.
            let mut buf = vec![0; served.len as usize];
            read_full_at(&self.backing, &mut buf, offset).map_err(Errno::from)?;
            served.apply(offset, &mut buf);
            Ok(buf)
        });
        // fuser's one thread serves one request at a time: readers queue behind the head.
        std::thread::sleep(done.saturating_duration_since(Instant::now()));
        match read {
            Ok(buf) => reply.data(&buf),
            Err(errno) => reply.error(errno),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        if ino != INodeNo::ROOT {
            reply.error(Errno::ENOTDIR);
            return;
        }
        let entries = [
            (INodeNo::ROOT, FileType::Directory, OsStr::new(".")),
            (INodeNo::ROOT, FileType::Directory, OsStr::new("..")),
            (FILE, FileType::RegularFile, self.name.as_os_str()),
        ];
        for (i, (ino, kind, name)) in entries.into_iter().enumerate().skip(offset as usize) {
            if reply.add(ino, i as u64 + 1, kind, name) {
                break;
            }
        }
        reply.ok();
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        reply.statfs(self.attr.blocks, 0, 0, 2, 0, 512, 255, 512);
    }
}

/// Reads up to `buf.len()` bytes at `offset`, fewer only at the end of the file.
fn read_full_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// A mounted [`SeekFs`], served by a background thread; unmounted on drop.
#[derive(Debug)]
pub struct Mounted {
    server: Option<fuser::BackgroundSession>,
    file: PathBuf,
    counters: Arc<Counters>,
}

impl Mounted {
    /// The served file's path (in the mount directory).
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// The counts of reads since the mount or the last [`Mounted::reset`].
    pub fn stats(&self) -> Stats {
        self.counters.stats()
    }

    /// Sets the counts to zero.
    pub fn reset(&self) {
        self.counters.reset();
    }

    /// The shared counters.
    pub fn counters(&self) -> Arc<Counters> {
        Arc::clone(&self.counters)
    }

    /// Unmounts and waits for the serving thread; the counts at the end.
    pub fn unmount(mut self) -> io::Result<Stats> {
        self.end()?;
        Ok(self.counters.stats())
    }

    fn end(&mut self) -> io::Result<()> {
        match self.server.take() {
            Some(server) => server.umount_and_join(),
            None => Ok(()),
        }
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = self.end();
    }
}

/// Mounts `fs` on the directory `mount` (needs root, or whatever lets this process call
/// mount(2) with `/dev/fuse`; no libfuse, no fusermount) and serves it from a background
/// thread, one request at a time.
pub fn mount(fs: SeekFs, mount: &Path) -> io::Result<Mounted> {
    let file = mount.join(fs.file_name());
    let counters = fs.counters();
    let mut config = Config::default();
    config.mount_options = vec![
        MountOption::RO,
        MountOption::NoAtime,
        MountOption::FSName("seekfs".into()),
        MountOption::Subtype("seekfs".into()),
    ];
    // Other users (the benchmark's, a test's) may read it too: the file is read-only.
    config.acl = SessionACL::All;
    // One thread: requests are served one at a time, as one head serves them.
    config.n_threads = Some(1);
    let server = fuser::spawn_mount(fs, mount, &config)?;
    Ok(Mounted {
        server: Some(server),
        file,
        counters,
    })
}
