//! One read of a file for its digests and the digests of its pieces (`sum --pieces`,
//! `check --locate`): each buffer read goes to the whole-file hashers on this thread and to
//! a second thread that hashes the pieces (in XXH3-128 there, at memory speed), so the
//! pieces add little to the time of the whole digest.

use std::fs::File;
use std::io;
use std::sync::mpsc;
use std::sync::Arc;

use parhash::file::{FileChangedSize, FileVersion};
use parhash::{Hasher, HasherBuilder, Output, Threads};

/// Bytes read at once.
const BUFFER: usize = 4 << 20;

/// Buffers in flight between the reader and the piece thread.
const BUFFERS: usize = 4;

/// Hashes `file` once: each of `whole`'s digests of all of it, and for each piece of
/// `piece_size` bytes (the last may be shorter) its digest with `piece`, handed to `each`
/// in order (on the piece thread) with its index. A file that changes while it is read fails.
pub fn hash_file(
    file: &File,
    whole: &[HasherBuilder],
    piece: &HasherBuilder,
    piece_size: u64,
    each: impl FnMut(u64, Output) + Send,
) -> io::Result<Vec<Output>> {
    let version = FileVersion::of(file);
    let len = file.metadata()?.len();
    let mut hashers = whole
        .iter()
        .map(|b| {
            b.clone()
                .expected_len(len)
                .build()
                .map_err(io::Error::other)
        })
        .collect::<io::Result<Vec<Hasher>>>()?;
    let piece = piece.clone().threads(Threads::ONE);
    // The piece builder must build before the thread starts: an error here is the file's.
    piece
        .clone()
        .expected_len(piece_size.min(len))
        .build()
        .map_err(io::Error::other)?;
    let (to_pieces, from_reader) = mpsc::sync_channel::<Arc<Vec<u8>>>(BUFFERS);
    let (to_reader, returned) = mpsc::channel::<Arc<Vec<u8>>>();
    std::thread::scope(|scope| {
        let pieces =
            scope.spawn(move || hash_pieces(&piece, piece_size, len, from_reader, to_reader, each));
        let mut spare: Vec<Arc<Vec<u8>>> = Vec::new();
        let mut offset = 0u64;
        let read = (|| {
            while offset < len {
                let want = BUFFER.min((len - offset) as usize);
                let mut buffer = next_buffer(&mut spare, &returned);
                let data = Arc::get_mut(&mut buffer).expect("returned buffers are unshared");
                data.resize(want, 0);
                read_exact_at(file, data, offset, len)?;
                offset += want as u64;
                if to_pieces.send(Arc::clone(&buffer)).is_err() {
                    break;
                }
                for hasher in &mut hashers {
                    hasher.update(&buffer);
                }
                spare.push(buffer);
            }
            io::Result::Ok(())
        })();
        drop(to_pieces);
        let pieces = pieces.join().expect("the piece thread does not panic");
        read?;
        pieces
    })?;
    if let Some(version) = version {
        version.check(file)?;
    }
    Ok(hashers.into_iter().map(Hasher::finalize).collect())
}

/// A buffer to read into: one given back by the piece thread, or a new one while fewer than
/// [`BUFFERS`] + 1 are out. `spare` holds those this thread has hashed; each is taken once
/// the piece thread has given its copy back.
fn next_buffer(
    spare: &mut Vec<Arc<Vec<u8>>>,
    returned: &mpsc::Receiver<Arc<Vec<u8>>>,
) -> Arc<Vec<u8>> {
    // Copies the piece thread gave back: drop them, so that ours are unshared again.
    while let Ok(done) = returned.try_recv() {
        drop(done);
    }
    if let Some(at) = spare.iter().position(|b| Arc::strong_count(b) == 1) {
        return spare.swap_remove(at);
    }
    if spare.len() <= BUFFERS {
        return Arc::new(Vec::with_capacity(BUFFER));
    }
    // Wait for the piece thread to finish with one.
    while let Ok(done) = returned.recv() {
        drop(done);
        if let Some(at) = spare.iter().position(|b| Arc::strong_count(b) == 1) {
            return spare.swap_remove(at);
        }
    }
    Arc::new(Vec::with_capacity(BUFFER))
}

/// The piece thread: hashes the buffers as they come, piece by piece.
fn hash_pieces(
    builder: &HasherBuilder,
    piece_size: u64,
    len: u64,
    buffers: mpsc::Receiver<Arc<Vec<u8>>>,
    back: mpsc::Sender<Arc<Vec<u8>>>,
    mut each: impl FnMut(u64, Output),
) -> io::Result<()> {
    let start = |index: u64| {
        let piece_len = piece_size.min(len - index * piece_size);
        builder
            .clone()
            .expected_len(piece_len)
            .build()
            .map_err(io::Error::other)
    };
    let mut index = 0u64;
    let mut left = piece_size.min(len);
    let mut hasher = if len > 0 { Some(start(0)?) } else { None };
    for buffer in buffers {
        let mut data = &buffer[..];
        while !data.is_empty() {
            let take = (left as usize).min(data.len());
            let current = hasher.as_mut().expect("bytes left belong to a piece");
            current.update(&data[..take]);
            data = &data[take..];
            left -= take as u64;
            if left == 0 {
                each(index, hasher.take().expect("open").finalize());
                index += 1;
                if index * piece_size < len {
                    hasher = Some(start(index)?);
                    left = piece_size.min(len - index * piece_size);
                }
            }
        }
        let _ = back.send(buffer);
    }
    Ok(())
}

/// `buf.len()` bytes of `file` from `offset`; a file of `len` bytes that ends first is the
/// library's [`FileChangedSize`] (as every other read of the file engine reports it).
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64, len: u64) -> io::Result<()> {
    #[cfg(unix)]
    let read = {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(buf, offset)
    };
    #[cfg(not(unix))]
    let read = {
        use std::io::{Read, Seek, SeekFrom};
        let mut file = file;
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_exact(buf))
    };
    read.map_err(|err| match err.kind() {
        io::ErrorKind::UnexpectedEof => io::Error::other(FileChangedSize {
            expected: len,
            found: file
                .metadata()
                .ok()
                .map(|m| m.len())
                .filter(|&now| now < len),
        }),
        _ => err,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use parhash::Algorithm;

    #[test]
    fn pieces_and_whole_are_those_of_separate_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        // Pieces smaller, equal to and larger than a buffer; sizes on and off their edges.
        let data: Vec<u8> = (0..(2 * BUFFER + 4097))
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        for (len, piece_size) in [
            (0, 1024),
            (1, 1024),
            (5000, 1024),
            (data.len(), 1 << 20),
            (data.len(), 3 * BUFFER as u64),
            (2 * BUFFER, BUFFER as u64),
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
