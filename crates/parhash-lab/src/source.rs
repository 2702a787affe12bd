//! Where the messages come from: memory, a file in the warm page cache, or a file whose cached
//! pages are dropped before every sample (`posix_fadvise(POSIX_FADV_DONTNEED)`), so it is read
//! from the disk.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The source axis of a sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// Messages already in memory.
    Memory,
    /// Read from a file whose pages are in the page cache.
    PageCache,
    /// Read from a file after its cached pages were dropped: the disk.
    Disk,
}

impl Source {
    /// Every source, in the order tables show them.
    pub const ALL: [Source; 3] = [Source::Memory, Source::PageCache, Source::Disk];

    /// Name used on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Source::Memory => "memory",
            Source::PageCache => "page-cache",
            Source::Disk => "disk",
        }
    }

    /// Parses `memory`/`mem`, `page-cache`/`warm`/`file`, `disk`/`cold`.
    pub fn parse(text: &str) -> Result<Source, crate::units::ParseError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "memory" | "mem" => Ok(Source::Memory),
            "page-cache" | "pagecache" | "warm" | "file" => Ok(Source::PageCache),
            "disk" | "cold" => Ok(Source::Disk),
            "all" => Err(crate::units::ParseError(
                "use memory,page-cache,disk".into(),
            )),
            other => Err(crate::units::ParseError(format!(
                "unknown source '{other}' (memory, page-cache, disk)"
            ))),
        }
    }

    /// Whether the data are read from a file.
    pub fn is_file(self) -> bool {
        self != Source::Memory
    }
}

/// Bytes in one `read` call when hashing from a file.
pub const READ_CHUNK: usize = 1 << 20;

/// Fills `buf` with the tests' pattern, byte i = i mod 251 (no page is all zeros).
pub fn fill_pattern(buf: &mut [u8]) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = (i % 251) as u8;
    }
}

/// A scratch file holding `len` pattern bytes; removed when dropped.
pub struct ScratchFile {
    path: PathBuf,
    len: usize,
}

impl ScratchFile {
    /// Writes the file under `dir` and syncs it to the disk (dirty pages cannot be dropped).
    pub fn create(dir: &Path, name: &str, len: usize) -> std::io::Result<ScratchFile> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(name);
        let mut file = File::create(&path)?;
        let mut chunk = vec![0u8; READ_CHUNK.min(len.max(1))];
        fill_pattern(&mut chunk);
        let mut left = len;
        while left > 0 {
            let n = left.min(chunk.len());
            file.write_all(&chunk[..n])?;
            left -= n;
        }
        file.sync_all()?;
        Ok(ScratchFile { path, len })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Opens it for reading.
    pub fn open(&self) -> std::io::Result<File> {
        File::open(&self.path)
    }

    /// Asks the kernel to drop the file's cached pages, so the next read comes from the disk.
    pub fn drop_cache(&self) -> std::io::Result<()> {
        drop_cache(&self.open()?)
    }
}

impl Drop for ScratchFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Drops the page-cache pages of `file` (`posix_fadvise(DONTNEED)` on the whole file). Only
/// clean pages are dropped: files written by the lab are synced first.
pub fn drop_cache(file: &File) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: the descriptor is open for the whole call (borrowed from `file`), and
        // posix_fadvise only reads its plain integer arguments.
        let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        if rc != 0 {
            return Err(std::io::Error::from_raw_os_error(rc));
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        Err(std::io::Error::other("dropping cached pages needs Linux"))
    }
}

/// Reads `len` bytes at `offset` of `file` in chunks of at most `buf.len()`, handing each chunk
/// to `sink`. Returns the number of `read` calls.
pub fn read_range(
    file: &File,
    offset: u64,
    len: usize,
    buf: &mut [u8],
    mut sink: impl FnMut(&[u8]),
) -> std::io::Result<usize> {
    use std::os::unix::fs::FileExt;
    let mut done = 0usize;
    let mut calls = 0usize;
    while done < len {
        let want = (len - done).min(buf.len());
        file.read_exact_at(&mut buf[..want], offset + done as u64)?;
        calls += 1;
        sink(&buf[..want]);
        done += want;
    }
    Ok(calls)
}

/// Bytes one thread maps in and drops at a time in [`map_in_and_drop`]: the file engine's share
/// (its `RELEASE_SHARE`, 4 MiB).
const MAP_SHARE: usize = 4 << 20;

/// The kernel's part of hashing `file` (`len` bytes, in the page cache) from a map, with no byte
/// read: the file mapped, each `MAP_SHARE` (4 MiB) of it mapped in (`MADV_POPULATE_READ`) and dropped
/// (`MADV_DONTNEED`) by `threads` threads taking the shares in turn, as the file engine's
/// threads do around their hashing, then unmapped. Returns the wall time in seconds. What a
/// mapped file costs beyond its hashing, and so the limit of its memory/file ratio: on a file
/// its writer left in 4 KiB folios this is tens of times what it is on one read back in 2 MiB
/// folios.
///
/// # Errors
/// A map refused, or a range that could not be mapped in (a file that shrank meanwhile).
#[cfg(target_os = "linux")]
pub fn map_in_and_drop(file: &File, len: usize, threads: usize) -> std::io::Result<f64> {
    use std::os::fd::AsRawFd;
    use std::sync::atomic::{AtomicUsize, Ordering};
    if len == 0 {
        return Ok(0.0);
    }
    let started = std::time::Instant::now();
    // SAFETY: a fresh read-only shared map of an open descriptor (the kernel keeps the file
    // alive for the map); no byte of it is ever read here, so a file truncated meanwhile
    // cannot raise `SIGBUS` in this process (`MADV_POPULATE_READ` reports it as `EFAULT`).
    let start = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    if start == libc::MAP_FAILED {
        return Err(std::io::Error::last_os_error());
    }
    let address = start as usize;
    let next = AtomicUsize::new(0);
    let shares = len.div_ceil(MAP_SHARE);
    let result = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.clamp(1, shares))
            .map(|_| {
                scope.spawn(|| -> std::io::Result<()> {
                    loop {
                        let share = next.fetch_add(1, Ordering::Relaxed);
                        if share >= shares {
                            return Ok(());
                        }
                        let offset = share * MAP_SHARE;
                        let bytes = MAP_SHARE.min(len - offset);
                        let at = (address + offset) as *mut libc::c_void;
                        // SAFETY: `at..at + bytes` lies within the map made above, which
                        // outlives these threads; both calls only change which pages are
                        // mapped, never what the process reads.
                        let populated =
                            unsafe { libc::madvise(at, bytes, libc::MADV_POPULATE_READ) };
                        if populated != 0 {
                            return Err(std::io::Error::last_os_error());
                        }
                        // SAFETY: as above.
                        unsafe { libc::madvise(at, bytes, libc::MADV_DONTNEED) };
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().expect("a map worker panicked"))
    });
    // SAFETY: the map made above, no longer used by any thread.
    unsafe { libc::munmap(start, len) };
    result.map(|()| started.elapsed().as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_file_round_trip() {
        let dir = std::env::temp_dir().join(format!("parhash-lab-src-{}", std::process::id()));
        let f = ScratchFile::create(&dir, "a.bin", 3000).unwrap();
        let file = f.open().unwrap();
        let mut buf = vec![0u8; 1024];
        let mut got = Vec::new();
        let calls = read_range(&file, 100, 2500, &mut buf, |c| got.extend_from_slice(c)).unwrap();
        assert_eq!(calls, 3);
        let mut want = vec![0u8; 3000];
        fill_pattern(&mut want);
        assert_eq!(got, want[100..2600]);
        // Dropping the cache is advice: it must not fail on a regular file.
        f.drop_cache().unwrap();
        let path = f.path().to_path_buf();
        drop(f);
        assert!(!path.exists());
        let _ = std::fs::remove_dir(dir);
    }

    #[test]
    fn source_names() {
        for s in Source::ALL {
            assert_eq!(Source::parse(s.name()), Ok(s));
        }
        assert_eq!(Source::parse("cold"), Ok(Source::Disk));
        assert!(Source::parse("tape").is_err());
    }

    /// The map's cost is timed over real map-ins: a range past the file's end fails them.
    #[cfg(target_os = "linux")]
    #[test]
    fn map_in_and_drop_maps_every_share_in() {
        let dir = std::env::temp_dir().join(format!("parhash-lab-map-{}", std::process::id()));
        let len = 2 * MAP_SHARE + 4097;
        let file = ScratchFile::create(&dir, "map.bin", len).unwrap();
        let opened = file.open().unwrap();
        for threads in [1, 2, 3] {
            let seconds = map_in_and_drop(&opened, len, threads).unwrap();
            assert!(seconds > 0.0, "{threads} threads");
        }
        // Past the end by more than the last page: the last share's map-in must fail.
        let err = map_in_and_drop(&opened, len + 3 * 4096 * 4, 2);
        assert!(err.is_err(), "{err:?}");
        drop(file);
        let _ = std::fs::remove_dir(dir);
    }
}
