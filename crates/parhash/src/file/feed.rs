//! A file's digests and its bytes handed to a consumer of the caller's in the same read
//! ([`MultiHasher::hash_file_feeding`]): an outboard encoder, a hasher of fixed-size pieces,
//! anything that wants the bytes in order. The engine picks the read as it does for the
//! digests alone: a sparse file's holes come from memory, a file the tree modes or the
//! consumer alone read is mapped, the others are read into buffers; the checks that a file did
//! not change while it was read are the same.
//!
//! IMPLEMENTATION NOTE. The calling thread reads; each whole-file hasher and the consumer
//! take the pieces in order on a thread of their own, a few pieces behind the read
//! ([`super::pipeline`]). An input of one piece is hashed and fed side by side on threads
//! started for it: that costs less than setting up the pipeline.

use std::fs::File;
use std::io;

use super::pipeline::{self, Feeder, Work};
use super::read::{advise_sequential, check_end, fill, read_piece_at};
use super::{finish, sparse, spool, FileVersion, MultiHasher, Progress};
use crate::{Hasher, Output, Threads};

/// Bytes handed at once to the hashers and the consumer, read into a buffer.
const FEED_PIECE: usize = 4 << 20;

/// The same from a map: each piece is mapped in and dropped in one call each, and a drop
/// flushes the mappings from every core (BLAKE3's parts drop theirs 32 MiB at a time).
const FEED_MAPPED_PIECE: usize = 16 << 20;

impl MultiHasher<'_> {
    /// Every builder's digest of `file` (none where there are no builders), and every byte of
    /// it handed to `consume` in order, all from one read: `consume(offset, bytes)` is called
    /// with consecutive pieces from offset 0, a hole of a sparse file as zeros, and may be
    /// given pieces of any size. It runs on a thread of its own while the whole-file hashers
    /// hash the same piece on others and the calling thread reads the next ones; an error it
    /// returns stops the hashing and is returned.
    ///
    /// A regular file is read for exactly its size, as [`MultiHasher::hash_file`] reads it;
    /// anything else (a pipe, a device) to its end.
    ///
    /// ```no_run
    /// use parhash::file::MultiHasher;
    /// use parhash::{Algorithm, Hasher};
    ///
    /// let files = MultiHasher::new([Hasher::builder(Algorithm::Sha256)]);
    /// let mut bytes = 0;
    /// let digests = files.hash_file_feeding(&std::fs::File::open("big.iso")?, |_, piece| {
    ///     bytes += piece.len();
    ///     Ok(())
    /// })?;
    /// println!("sha256 {} of {bytes} bytes", digests[0]);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`MultiHasher::hash_file`] ([`super::FileChangedSize`], [`super::FileModified`] for a
    /// regular file that changed while it was read, for all digests at once); `consume`'s.
    pub fn hash_file_feeding(
        &self,
        file: &File,
        mut consume: impl FnMut(u64, &[u8]) -> io::Result<()> + Send,
    ) -> io::Result<Vec<Output>> {
        let version = FileVersion::of(file).filter(|v| !v.is_empty());
        let needs_length = self
            .builders
            .iter()
            .any(|b| b.algorithm().needs_message_length());
        let progress = self.progress.unwrap_or(&NoProgress);
        if version.is_none() && needs_length {
            let data = spool(&mut &*file)?;
            let mut hashers = self.feeding_hashers(Some(data.len() as u64))?;
            progress.started(Some(data.len() as u64));
            if data.len() <= FEED_PIECE {
                hash_and_feed(&mut hashers, &mut consume, &data)?;
                progress.hashed(data.len() as u64);
            } else {
                feed(&mut hashers, consume, FEED_PIECE, progress, |feeder| {
                    data.chunks(FEED_PIECE)
                        .try_for_each(|piece| feeder.send_borrowed(piece, None))
                })?;
            }
            return hashers.into_iter().map(finish).collect();
        }
        let len = version.map(|v| v.len());
        let mut hashers = self.feeding_hashers(len)?;
        progress.started(len);
        match len {
            None => feed(&mut hashers, consume, FEED_PIECE, progress, |feeder| {
                feed_to_end(file, feeder)
            })?,
            Some(len) => self.feed_regular(file, len, &mut hashers, consume, progress)?,
        }
        if let Some(version) = version {
            version.check_large(file)?;
        }
        hashers.into_iter().map(finish).collect()
    }

    /// Feeds the `len` bytes of the regular file `file`, read as the engine reads it for its
    /// digests: holes from memory, mapped where maps pay (a tree mode among the builders, or
    /// no builder at all: the consumer is then the only reader), read otherwise.
    fn feed_regular(
        &self,
        file: &File,
        len: u64,
        hashers: &mut [Hasher],
        mut consume: impl FnMut(u64, &[u8]) -> io::Result<()> + Send,
        progress: &dyn Progress,
    ) -> io::Result<()> {
        let extents = sparse::Extents::of(file, len);
        if len <= FEED_PIECE as u64 {
            let mut data = vec![0; len as usize];
            match &extents {
                Some(extents) => extents.read_at(file, &mut data, 0, len)?,
                None => read_piece_at(file, &mut data, 0, len)?,
            }
            check_end(file, len)?;
            hash_and_feed(hashers, &mut consume, &data)?;
            progress.hashed(len);
            return Ok(());
        }
        let map = extents.is_none()
            && self.maps
            && (self.builders.is_empty()
                || self
                    .builders
                    .iter()
                    .any(|b| Hasher::splits_over_threads(b.algorithm())));
        // A map pays from a few pieces on; a smaller file is read.
        #[cfg(target_os = "linux")]
        if map && len > 2 * FEED_MAPPED_PIECE as u64 {
            if let Some(mapping) = crate::mapped::Mapping::new(file, len) {
                return feed_mapped(&mapping, file, len, hashers, consume, progress);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = map;
        advise_sequential(file);
        feed(hashers, consume, FEED_PIECE, progress, |feeder| {
            for start in (0..len).step_by(FEED_PIECE) {
                let range = start..(start + FEED_PIECE as u64).min(len);
                let want = (range.end - range.start) as usize;
                if extents.as_ref().is_some_and(|e| e.is_hole(range)) {
                    feeder.send_borrowed(sparse::zeros(want), None)?;
                    continue;
                }
                let mut buf = feeder.buffer()?;
                match &extents {
                    Some(extents) => extents.read_at(file, &mut buf[..want], start, len)?,
                    None => read_piece_at(file, &mut buf[..want], start, len)?,
                }
                feeder.send_buffer(buf, want)?;
            }
            check_end(file, len)
        })
    }

    /// A fresh hasher per builder: one alone keeps its threads, several get one each (they
    /// share the cores with each other and with the consumer).
    fn feeding_hashers(&self, len: Option<u64>) -> io::Result<Vec<Hasher>> {
        let alone = self.builders.len() == 1;
        self.builders
            .iter()
            .map(|b| {
                let builder = if alone {
                    b.clone()
                } else {
                    b.clone().threads(Threads::ONE)
                };
                let builder = match len {
                    Some(len) => builder.expected_len(len),
                    None => builder,
                };
                builder.build().map_err(io::Error::other)
            })
            .collect()
    }
}

/// Told nothing (where the caller asked for no progress).
struct NoProgress;

impl Progress for NoProgress {}

/// `bytes`, the whole input, to every hasher, each on a thread of its own, and to `consume`
/// on this one.
fn hash_and_feed(
    hashers: &mut [Hasher],
    consume: &mut impl FnMut(u64, &[u8]) -> io::Result<()>,
    bytes: &[u8],
) -> io::Result<()> {
    if hashers.is_empty() {
        return consume(0, bytes);
    }
    std::thread::scope(|scope| {
        for hasher in hashers.iter_mut() {
            scope.spawn(move || hasher.update(bytes));
        }
        consume(0, bytes)
    })
}

/// The pieces `read` sends to every hasher and to `consume`, each on a thread of its own
/// ([`pipeline::run`]); buffers of `buffer_size` bytes.
fn feed<'a>(
    hashers: &mut [Hasher],
    consume: impl FnMut(u64, &[u8]) -> io::Result<()> + Send,
    buffer_size: usize,
    progress: &'a dyn Progress,
    read: impl FnOnce(&mut Feeder<'a>) -> io::Result<()>,
) -> io::Result<()> {
    let mut works: Vec<Work> = hashers
        .iter_mut()
        .map(|hasher| {
            Box::new(move |_, bytes: &[u8]| {
                hasher.update(bytes);
                Ok(())
            }) as Work
        })
        .collect();
    works.push(Box::new(consume));
    pipeline::run(works, buffer_size, progress, read)
}

/// Input of unknown length (a pipe, a device) to its end, [`FEED_PIECE`] at a time (each as
/// full as the input allows).
fn feed_to_end(file: &File, feeder: &mut Feeder) -> io::Result<()> {
    loop {
        let mut buf = feeder.buffer()?;
        let n = fill(&mut &*file, &mut buf)?;
        if n == 0 {
            feeder.keep(buf);
            return Ok(());
        }
        feeder.send_buffer(buf, n)?;
        if n < FEED_PIECE {
            return Ok(());
        }
    }
}

/// The `len` bytes of `file` from its map: each piece mapped in on this thread
/// ([`crate::mapped::Mapping::populate`], which waits for the disk) while the workers hash
/// the ones before in place, and dropped once they all are. A page the file lost is a
/// [`super::FileChangedSize`] or an error, as when the digests alone are hashed from a map.
#[cfg(target_os = "linux")]
fn feed_mapped(
    mapping: &crate::mapped::Mapping,
    file: &File,
    len: u64,
    hashers: &mut [Hasher],
    consume: impl FnMut(u64, &[u8]) -> io::Result<()> + Send,
    progress: &dyn Progress,
) -> io::Result<()> {
    use super::read::{check_mapped_end, mapped_fault};
    advise_sequential(file);
    let bytes = mapping.bytes();
    feed(hashers, consume, 0, progress, |feeder| {
        for start in (0..bytes.len()).step_by(FEED_MAPPED_PIECE) {
            let range = start..(start + FEED_MAPPED_PIECE).min(bytes.len());
            if !mapping.populate(range.clone()) {
                return Err(mapped_fault(file, len));
            }
            let piece = &bytes[range.clone()];
            feeder.send_borrowed(piece, Some(Box::new(move || mapping.release(range))))?;
        }
        Ok(())
    })?;
    if mapping.faulted() {
        return Err(mapped_fault(file, len));
    }
    check_mapped_end(file, len)
}
