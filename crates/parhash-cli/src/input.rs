//! Where data comes from and the one function that hashes it.
//!
//! Every digest `sum` and `check` compute goes through [`hash_input`], so engines that hash
//! differently (threads, tree modes, batches of small files) plug in there.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;

use parhash::{Algorithm, Hasher, Output};

use crate::escape;
use crate::flags::HashOptions;
use crate::parsha;
use crate::progress::Progress;

/// Bytes read per call: large enough to amortise system calls, small enough to keep memory
/// bounded however large the file is.
pub const READ_SIZE: usize = 256 * 1024;

/// One input to hash: standard input or a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Stdin,
    Path(PathBuf),
}

impl Source {
    /// The source a command-line or checksum-list name denotes: `-` is standard input.
    pub fn from_name(name: &[u8]) -> Source {
        if name == b"-" {
            Source::Stdin
        } else {
            Source::Path(escape::path_from_bytes(name))
        }
    }
}

/// Hashes everything `source` holds with `alg`, streaming it through a fixed buffer (or, for a
/// tree mode, straight from a memory map).
///
/// Every algorithm is built alike ([`hasher_for`]); the one difference is PARSHA-256's: it must
/// know the length first, so input of unknown length is spooled to memory before it is hashed.
pub fn hash_input(alg: Algorithm, source: &Source, options: &HashOptions) -> io::Result<Output> {
    match source {
        Source::Stdin => {
            let mut stdin = io::stdin().lock();
            if parsha::needs_length_first(alg) {
                return hash_spooled(alg, &mut stdin, options);
            }
            let mut hasher = hasher_for(alg, options, None)?;
            stream(&mut stdin, &mut hasher, &Progress::none())?;
            finish(hasher)
        }
        Source::Path(path) => {
            let mut file = File::open(path)?;
            let len = regular_file_len(&file);
            // procfs and sysfs files say 0 bytes whatever they hold: no length to promise.
            let promised_len = len.filter(|&l| l > 0);
            if parsha::needs_length_first(alg) && promised_len.is_none() {
                return hash_spooled(alg, &mut file, options);
            }
            let mut hasher = hasher_for(alg, options, promised_len)?;
            let progress = Progress::for_file(path, len, options.no_progress);
            let mapped = Hasher::splits_over_threads(alg)
                .then(|| map_file(&file, len))
                .flatten();
            match mapped {
                Some(map) => {
                    // Hashed in place: whole superblocks or rounds straight from the map.
                    for piece in map.chunks(MAPPED_PIECE) {
                        hasher.update(piece);
                        progress.advance(piece.len());
                    }
                }
                None => stream(&mut file, &mut hasher, &progress)?,
            }
            finish(hasher)
        }
    }
}

/// The hasher for one input: `-j`'s threads; tree parameters where the algorithm takes them;
/// `-l`'s digest size where it is not the default; the length when it is known, so PARSHA-256 streams (and notices a file that changes size).
pub fn hasher_for(alg: Algorithm, options: &HashOptions, len: Option<u64>) -> io::Result<Hasher> {
    let mut builder = Hasher::builder(alg).threads(options.threads);
    if parsha::takes_tree_params(alg) {
        builder = builder.tree_params(options.tree_params());
    }
    if let Some(len) = len {
        builder = builder.expected_len(len);
    }
    if let Some(size) = options.digest_size(alg) {
        builder = builder.digest_size(size);
    }
    builder.build().map_err(io::Error::other)
}

/// Input of unknown length for an algorithm that needs the length first: spooled to memory
/// ([`parsha::spool`]), then hashed.
fn hash_spooled(
    alg: Algorithm,
    reader: &mut impl Read,
    options: &HashOptions,
) -> io::Result<Output> {
    let data = parsha::spool(reader)?;
    let mut hasher = hasher_for(alg, options, Some(data.len() as u64))?;
    hasher.update(&data);
    finish(hasher)
}

/// The digest; a hasher promised a length that received another (the file changed size while
/// it was read) is an error, not a wrong digest.
fn finish(hasher: Hasher) -> io::Result<Output> {
    hasher.try_finalize().map_err(io::Error::other)
}

/// The length of a regular file (`None` for pipes, devices, ...).
pub fn regular_file_len(file: &File) -> Option<u64> {
    file.metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len())
}

/// Files at least this large are memory-mapped when a tree mode hashes them.
const MAP_AT_LEAST: u64 = 1 << 20;

/// Bytes of a mapped file handed to the hasher per update (and per progress step): many
/// superblocks or rounds at once, so a tree mode hashes almost all of it in place.
pub const MAPPED_PIECE: usize = 32 << 20;

/// Maps a regular file of `len` bytes for reading in place, so that a tree mode (SANDstorm,
/// PARSHA-256) hashes it without copying it through a buffer ([`parhash::io::map_file`], whose
/// caveat about files truncated while hashed the README repeats). `None` when the file is small,
/// not regular, or cannot be mapped: the caller then reads it.
pub fn map_file(file: &File, len: Option<u64>) -> Option<parhash::io::MappedFile> {
    if len? < MAP_AT_LEAST {
        return None;
    }
    parhash::io::map_file(file).ok()
}

fn stream(reader: &mut impl Read, hasher: &mut Hasher, progress: &Progress) -> io::Result<()> {
    thread_local! {
        // One buffer per thread, reused across files: many small files cost no allocations.
        static BUFFER: RefCell<Vec<u8>> = RefCell::new(vec![0; READ_SIZE]);
    }
    if Hasher::splits_over_threads(hasher.algorithm()) {
        // A tree mode spreads each update over threads: give it pieces of many superblocks.
        let mut buf = vec![0; TREE_READ_SIZE];
        return fill_loop(reader, hasher, progress, &mut buf);
    }
    BUFFER.with_borrow_mut(|buf| fill_loop(reader, hasher, progress, buf))
}

/// Bytes per update for algorithms that split one message over threads.
const TREE_READ_SIZE: usize = 8 * 1024 * 1024;

/// Reads until end of input, filling `buf` as far as the reader allows before each update (a
/// pipe returns short reads; a tree mode wants whole superblocks).
fn fill_loop(
    reader: &mut impl Read,
    hasher: &mut Hasher,
    progress: &Progress,
    buf: &mut [u8],
) -> io::Result<()> {
    loop {
        let mut filled = 0;
        while filled < buf.len() {
            match reader.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if filled == 0 {
            return Ok(());
        }
        hasher.update(&buf[..filled]);
        progress.advance(filled);
        if filled < buf.len() {
            return Ok(());
        }
    }
}

/// An I/O error worded as coreutils words it: `No such file or directory`, without Rust's
/// ` (os error 2)` suffix. An error made from a bare kind (no OS code, no message) would show
/// Rust's lowercase kind name (`permission denied`): the kinds a file can fail with get the C
/// library's words instead.
pub fn error_text(err: &io::Error) -> String {
    if err.raw_os_error().is_none() && err.get_ref().is_none() {
        match err.kind() {
            io::ErrorKind::NotFound => return "No such file or directory".to_string(),
            io::ErrorKind::PermissionDenied => return "Permission denied".to_string(),
            _ => {}
        }
    }
    let text = err.to_string();
    match (err.raw_os_error(), text.rfind(" (os error ")) {
        (Some(_), Some(at)) => text[..at].to_string(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dash_is_stdin() {
        assert_eq!(Source::from_name(b"-"), Source::Stdin);
        assert_eq!(Source::from_name(b"./-"), Source::Path("./-".into()));
    }

    #[test]
    fn error_text_drops_os_error_suffix() {
        let err = io::Error::from_raw_os_error(2);
        assert_eq!(error_text(&err), "No such file or directory");
        let custom = io::Error::other("odd");
        assert_eq!(error_text(&custom), "odd");
    }

    #[test]
    fn permission_denied_is_worded_as_coreutils() {
        // EACCES, as open(2) returns it for a file without read permission.
        let eacces = io::Error::from_raw_os_error(13);
        assert_eq!(eacces.kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(error_text(&eacces), "Permission denied");
        // The same kind without an OS code (Rust alone would say `permission denied`).
        let bare = io::Error::from(io::ErrorKind::PermissionDenied);
        assert_eq!(error_text(&bare), "Permission denied");
        assert_eq!(
            error_text(&io::Error::from(io::ErrorKind::NotFound)),
            "No such file or directory"
        );
        // A message of its own is kept, whatever the kind.
        let explained = io::Error::new(io::ErrorKind::PermissionDenied, "locked by policy");
        assert_eq!(error_text(&explained), "locked by policy");
    }

    #[test]
    fn streams_across_buffer_boundaries() {
        let data: Vec<u8> = (0..READ_SIZE * 2 + 17).map(|i| (i % 251) as u8).collect();
        let mut hasher = Hasher::new(Algorithm::Md5);
        stream(&mut &data[..], &mut hasher, &Progress::none()).unwrap();
        assert_eq!(hasher.finalize(), parhash::hash(Algorithm::Md5, &data));
    }
}
