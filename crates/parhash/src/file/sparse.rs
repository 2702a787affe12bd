//! Sparse files: a file's holes are not read. Reading a hole (`read` or a map) makes the
//! kernel fill page-cache pages with zeros, as many as the hole is long, which costs system
//! time and evicts other files; here the holes' zeros come from one shared buffer instead
//! ([`zeros`]), and only the data extents are read from the file.
//!
//! One `lseek(SEEK_HOLE)` when a large file is opened tells whether it has a hole before its
//! end ([`Extents::of`]); a file that has none (most) is read as before. A file system that
//! cannot say (`EINVAL`), and systems other than Linux, read every file as before too.
//!
//! The extents are those of the file when hashing starts. Data written into a hole later moves
//! the file's modification time, which [`super::FileVersion::check`] reports at the end, as
//! for any file rewritten while it is read.

#![forbid(unsafe_code)]

use std::fs::File;
use std::io;
use std::ops::Range;
use std::sync::OnceLock;

use super::read::{check_end, give_back, read_piece_at, take_buffer, PIECE_MAX};
use super::SMALL_FILE;

/// The data extents of a file with holes: byte ranges in increasing order, none touching
/// another; every byte outside them reads as zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Extents {
    data: Vec<Range<u64>>,
}

impl Extents {
    /// The data extents of `file`, `len` bytes long, where it has a hole before its end;
    /// `None` for a dense file, a small one (one read), or where the file system cannot say.
    /// The file's position is left where it was.
    pub(crate) fn of(file: &File, len: u64) -> Option<Extents> {
        if len <= SMALL_FILE {
            return None;
        }
        scan(file, len)
    }

    /// Whether `range` holds no data.
    pub(crate) fn is_hole(&self, range: Range<u64>) -> bool {
        let first = self.data.partition_point(|d| d.end <= range.start);
        self.data.get(first).is_none_or(|d| d.start >= range.end)
    }

    /// Fills `buf` with the file's bytes at `offset`: the data read, the holes zeroed.
    ///
    /// # Errors
    /// As [`read_piece_at`] (a file now shorter than `len` is [`super::FileChangedSize`]).
    pub(crate) fn read_at(
        &self,
        file: &File,
        buf: &mut [u8],
        offset: u64,
        len: u64,
    ) -> io::Result<()> {
        let end = offset + buf.len() as u64;
        let mut at = offset;
        let first = self.data.partition_point(|d| d.end <= offset);
        for data in self.data[first..].iter().take_while(|d| d.start < end) {
            let (start, stop) = (data.start.max(at), data.end.min(end));
            buf[(at - offset) as usize..(start - offset) as usize].fill(0);
            read_piece_at(
                file,
                &mut buf[(start - offset) as usize..(stop - offset) as usize],
                start,
                len,
            )?;
            at = stop;
        }
        buf[(at - offset) as usize..].fill(0);
        Ok(())
    }
}

/// A positional read of the `len` bytes of `file` for the parts machinery
/// ([`crate::parts::Plan::hash_part_from`]): holes zeroed in the buffer rather than read,
/// where the file has any.
pub(super) fn positional_reader(
    file: &File,
    len: u64,
) -> impl Fn(u64, &mut [u8]) -> io::Result<()> + Sync + '_ {
    let extents = Extents::of(file, len);
    move |offset, buf| match &extents {
        Some(extents) => extents.read_at(file, buf, offset, len),
        None => read_piece_at(file, buf, offset, len),
    }
}

/// Reads the `len` bytes of `file`, whose data is `extents`, handing them to `consume` in
/// pieces of `piece` bytes (the last one shorter), and checks that the file ends there (as
/// [`super::read::read_exactly`]). A piece wholly in a hole is a slice of [`zeros`] and costs
/// neither a read nor a copy; a piece with data is read into a buffer, its holes zeroed.
///
/// # Errors
/// A read error; [`super::FileChangedSize`] when the file ends early or goes on past `len`.
pub(super) fn read_exactly(
    file: &File,
    len: u64,
    piece: usize,
    extents: &Extents,
    mut consume: impl FnMut(&[u8]),
) -> io::Result<()> {
    let zeros = zeros(piece);
    let mut buf = take_buffer(piece);
    let mut result = Ok(());
    for start in (0..len).step_by(piece) {
        let range = start..(start + piece as u64).min(len);
        let want = (range.end - range.start) as usize;
        if extents.is_hole(range) {
            consume(&zeros[..want]);
            continue;
        }
        result = extents.read_at(file, &mut buf[..want], start, len);
        if result.is_err() {
            break;
        }
        consume(&buf[..want]);
    }
    give_back(buf);
    result.and_then(|()| check_end(file, len))
}

/// `len` zero bytes (at most [`PIECE_MAX`]), from one buffer the whole process shares. It is
/// never written, so its pages stay the kernel's one zero page: hashing from it reads the
/// same few KiB over and over, from the core's own cache.
pub(crate) fn zeros(len: usize) -> &'static [u8] {
    static ZEROS: OnceLock<Vec<u8>> = OnceLock::new();
    &ZEROS.get_or_init(|| vec![0; PIECE_MAX])[..len]
}

/// [`Extents::of`] past the size check: one `SEEK_HOLE` from the start, and where that finds
/// a hole before `len`, the extents from alternate `SEEK_DATA` and `SEEK_HOLE`.
#[cfg(target_os = "linux")]
fn scan(file: &File, len: u64) -> Option<Extents> {
    use rustix::fs::{seek, SeekFrom};
    let position = seek(file, SeekFrom::Current(0)).ok()?;
    let extents = (|| {
        // EINVAL where the file system cannot say; ENXIO where the file is now empty.
        if seek(file, SeekFrom::Hole(0)).ok()? >= len {
            return None;
        }
        let mut data = Vec::new();
        let mut at = 0;
        while at < len {
            let start = match seek(file, SeekFrom::Data(at)) {
                Ok(start) => start,
                // No data after `at`: the rest is a hole.
                Err(rustix::io::Errno::NXIO) => break,
                Err(_) => return None,
            };
            if start >= len {
                break;
            }
            let end = seek(file, SeekFrom::Hole(start)).ok()?.min(len);
            data.push(start..end);
            at = end;
        }
        Some(Extents { data })
    })();
    // Where the position cannot be put back, the file is read as a dense one would be
    // (with `pread`s, which take no position), so nothing is lost.
    let _ = seek(file, SeekFrom::Start(position));
    extents
}

#[cfg(not(target_os = "linux"))]
fn scan(_file: &File, _len: u64) -> Option<Extents> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extents(data: &[Range<u64>]) -> Extents {
        Extents {
            data: data.to_vec(),
        }
    }

    #[test]
    fn holes_are_the_ranges_between_the_extents() {
        let e = extents(&[10..20, 30..40]);
        assert!(e.is_hole(0..10));
        assert!(!e.is_hole(0..11));
        assert!(!e.is_hole(19..30));
        assert!(e.is_hole(20..30));
        assert!(e.is_hole(40..100));
        assert!(!e.is_hole(5..100));
        assert!(extents(&[]).is_hole(0..100));
    }

    #[test]
    fn zeros_are_zero() {
        assert!(zeros(PIECE_MAX).iter().all(|&b| b == 0));
    }
}
