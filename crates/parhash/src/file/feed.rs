//! A file's digests and its bytes handed to a consumer of the caller's in the same read
//! ([`MultiHasher::hash_file_feeding`]): an outboard encoder, a hasher of fixed-size pieces,
//! anything that wants the bytes in order. The engine picks the read as it does for the
//! digests alone: a sparse file's holes come from memory, a file the tree modes or the
//! consumer alone read is mapped, the others are read into buffers; the checks that a file did
//! not change while it was read are the same.
//!
//! IMPLEMENTATION NOTE. Each piece goes to every whole-file hasher on a thread of its own and
//! to the consumer on the reading thread, side by side; the next piece is read once all are
//! done with this one. Pieces are a few MiB, so starting those threads costs little next to
//! hashing a piece, and a piece stays in the last-level cache while they all read it.

use std::fs::File;
use std::io;

use super::read::{read_exactly, read_to_end};
use super::{finish, sparse, spool, FileVersion, MultiHasher, Progress, ReadAhead};
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
    /// given pieces of any size. It runs on the calling thread while the whole-file hashers
    /// hash the same piece on others; an error it returns stops the hashing and is returned.
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
        if version.is_none() && needs_length {
            let data = spool(&mut &*file)?;
            let mut hashers = self.feeding_hashers(Some(data.len() as u64))?;
            let progress = self.progress.unwrap_or(&NoProgress);
            progress.started(Some(data.len() as u64));
            hash_and_feed(&mut hashers, &mut consume, 0, &data)?;
            progress.hashed(data.len() as u64);
            return hashers.into_iter().map(finish).collect();
        }
        let len = version.map(|v| v.len());
        let mut hashers = self.feeding_hashers(len)?;
        let progress = self.progress.unwrap_or(&NoProgress);
        progress.started(len);
        let mut offset = 0u64;
        let mut failed = None;
        let mut step = |bytes: &[u8]| {
            if failed.is_some() {
                return;
            }
            match hash_and_feed(&mut hashers, &mut consume, offset, bytes) {
                Ok(()) => {
                    offset += bytes.len() as u64;
                    progress.hashed(bytes.len() as u64);
                }
                Err(err) => failed = Some(err),
            }
        };
        let read = match len {
            None => read_to_end(&mut &*file, FEED_PIECE, &mut step).map(drop),
            Some(len) => self.read_feeding(file, len, &mut step),
        };
        read?;
        if let Some(err) = failed {
            return Err(err);
        }
        if let Some(version) = version {
            version.check_large(file)?;
        }
        hashers.into_iter().map(finish).collect()
    }

    /// Reads the `len` bytes of the regular file `file` into `step`, as the engine reads it
    /// for its digests: holes from memory, mapped where maps pay (a tree mode among the
    /// builders, or no builder at all: the consumer is then the only reader), read otherwise.
    fn read_feeding(&self, file: &File, len: u64, step: &mut impl FnMut(&[u8])) -> io::Result<()> {
        if let Some(extents) = sparse::Extents::of(file, len) {
            return sparse::read_exactly(file, len, FEED_PIECE, &extents, step);
        }
        let map = self.maps
            && (self.builders.is_empty()
                || self
                    .builders
                    .iter()
                    .any(|b| Hasher::splits_over_threads(b.algorithm())));
        let piece = if map { FEED_MAPPED_PIECE } else { FEED_PIECE };
        read_exactly(file, len, piece, ReadAhead::WhenNotCached, map, step)
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

/// `bytes` (at `offset`) to every hasher, each on a thread of its own, and to `consume` on
/// this one.
fn hash_and_feed(
    hashers: &mut [Hasher],
    consume: &mut impl FnMut(u64, &[u8]) -> io::Result<()>,
    offset: u64,
    bytes: &[u8],
) -> io::Result<()> {
    if hashers.is_empty() {
        return consume(offset, bytes);
    }
    std::thread::scope(|scope| {
        for hasher in hashers.iter_mut() {
            scope.spawn(move || hasher.update(bytes));
        }
        consume(offset, bytes)
    })
}
