//! One read of a file for its digests and the digests of its pieces (`sum --pieces`,
//! `check --locate`): the library's file engine reads the file (maps, reads, a sparse file's
//! holes from memory) and hands each piece of bytes to the piece hasher on one thread while
//! the whole-file hashers hash it on others, so the pieces (XXH3-128, at memory speed) add
//! little to the time of the whole digest.

use std::fs::File;
use std::io;

use parhash::file::{FileVersion, MultiHasher};
use parhash::{Hasher, HasherBuilder, Output, Threads};

/// Hashes `file` once: each of `whole`'s digests of all of it, and for each piece of
/// `piece_size` bytes (the last may be shorter) its digest with `piece`, handed to `each`
/// in order with its index. A file that changes while it is read fails.
pub fn hash_file(
    file: &File,
    whole: &[HasherBuilder],
    piece: &HasherBuilder,
    piece_size: u64,
    each: impl FnMut(u64, Output) + Send,
) -> io::Result<Vec<Output>> {
    let len = FileVersion::of(file).map(|version| version.len());
    let mut pieces = Pieces {
        builder: piece.clone().threads(Threads::ONE),
        piece_size,
        len,
        index: 0,
        left: 0,
        hasher: None,
        each,
    };
    // The piece builder must build before reading starts: an error here is the file's.
    if len != Some(0) {
        pieces.start()?;
    }
    let engine = MultiHasher::new(whole.iter().cloned());
    let digests = engine.hash_file_feeding(file, |_, bytes| pieces.update(bytes))?;
    pieces.finish();
    Ok(digests)
}

/// The piece hasher: the bytes as they come, cut into pieces, each piece's digest to `each`.
struct Pieces<F> {
    builder: HasherBuilder,
    piece_size: u64,
    /// The file's length, where it is a regular file (each piece's hasher is told its length).
    len: Option<u64>,
    /// The open piece's index and the bytes it still takes.
    index: u64,
    left: u64,
    hasher: Option<Hasher>,
    each: F,
}

impl<F: FnMut(u64, Output)> Pieces<F> {
    /// Opens piece `index`.
    fn start(&mut self) -> io::Result<()> {
        let start = self.index * self.piece_size;
        let builder = match self.len {
            Some(len) => (self.builder.clone()).expected_len(self.piece_size.min(len - start)),
            None => self.builder.clone(),
        };
        self.hasher = Some(builder.build().map_err(io::Error::other)?);
        self.left = self.piece_size;
        Ok(())
    }

    fn update(&mut self, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            if self.hasher.is_none() {
                self.start()?;
            }
            let take = usize::try_from(self.left).map_or(data.len(), |left| left.min(data.len()));
            let hasher = self.hasher.as_mut().expect("opened above");
            hasher.update(&data[..take]);
            data = &data[take..];
            self.left -= take as u64;
            if self.left == 0 {
                self.close();
            }
        }
        Ok(())
    }

    /// The open piece's digest to `each`.
    fn close(&mut self) {
        if let Some(hasher) = self.hasher.take() {
            (self.each)(self.index, hasher.finalize());
            self.index += 1;
        }
    }

    /// The last piece, where it is shorter than the others (or the file's only one).
    fn finish(mut self) {
        if self.left < self.piece_size {
            self.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parhash::Algorithm;

    /// Pieces around the engine's own reads, whose size is its business.
    const FOUR_MIB: usize = 4 << 20;

    #[test]
    fn pieces_and_whole_are_those_of_separate_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        // Pieces smaller, equal to and larger than a buffer; sizes on and off their edges.
        let data: Vec<u8> = (0..(2 * FOUR_MIB + 4097))
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        for (len, piece_size) in [
            (0, 1024),
            (1, 1024),
            (5000, 1024),
            (data.len(), 1 << 20),
            (data.len(), 3 * FOUR_MIB as u64),
            (2 * FOUR_MIB, FOUR_MIB as u64),
        ] {
            std::fs::write(&path, &data[..len]).unwrap();
            let file = File::open(&path).unwrap();
            let builders = [
                Hasher::builder(Algorithm::Sha256),
                Hasher::builder(Algorithm::Md5),
            ];
            let mut pieces = Vec::new();
            let whole = hash_file(&file, &builders, &builders[0], piece_size, |i, d| {
                pieces.push((i, d))
            })
            .unwrap();
            assert_eq!(whole[0], parhash::hash(Algorithm::Sha256, &data[..len]));
            assert_eq!(whole[1], parhash::hash(Algorithm::Md5, &data[..len]));
            let expected: Vec<_> = data[..len]
                .chunks(piece_size as usize)
                .enumerate()
                .map(|(i, c)| (i as u64, parhash::hash(Algorithm::Sha256, c)))
                .collect();
            assert_eq!(pieces, expected, "{len} {piece_size}");
        }
    }
}
