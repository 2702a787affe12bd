//! Reading files in place: a memory map hands the file's bytes as a slice, with no copy
//! through a read buffer.
//!
//! Nothing in parhash hashes files this way any more: [`crate::file`] reads them, because a
//! map dies of `SIGBUS` when another process truncates the file, and reading costs about as
//! much (BENCHMARKS.md, "Files that change, and reads overlapped"). Use a map only on files
//! nobody else can change.

use std::fs::File;
use std::io;
use std::ops::Deref;

/// A file mapped read-only into memory; derefs to its bytes.
pub struct MappedFile(memmap2::Mmap);

impl Deref for MappedFile {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

/// Maps `file` for reading in place, advising the kernel that it will be read front to back.
///
/// The bytes are the file's at the time they are read: another process that rewrites the file
/// while it is hashed gives a digest of mixed contents (as reading it would), and one that
/// **truncates** it meanwhile makes the read past the new end fault (`SIGBUS`), as it does for
/// every program that maps files. Use reads instead where files may shrink under you.
///
/// # Errors
/// When the file cannot be mapped (not a regular file, an empty file on some systems, no
/// address space).
pub fn map_file(file: &File) -> io::Result<MappedFile> {
    // SAFETY: the map is private to this process and only read, through `&[u8]` that live no
    // longer than it. What the compiler cannot see (another process changing the file) is the
    // caveat documented above: it changes what is read, or faults on truncation; it does not
    // let safe code write through the map.
    let map = unsafe { memmap2::MmapOptions::new().map(file)? };
    // A hint only: read ahead, drop pages behind.
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(MappedFile(map))
}
