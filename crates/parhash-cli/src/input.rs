//! Where data comes from and the one function that hashes it.
//!
//! Every digest `sum` and `check` compute goes through [`hash_input`] (one input) or
//! `many::run` (many), both on the library's file engine (`parhash::file`): reads overlapped
//! with hashing, a file that changes size while it is read an error for that file, input of
//! unknown length spooled for PARSHA-256.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;

use parhash::file::FileHasher;
use parhash::{Algorithm, Blake3Mode, Hasher, HasherBuilder, Output, BLAKE3_KEY_LEN};

use crate::flags::{Command, HashOptions};
use crate::progress::FileBar;
use parhash_format::escape;

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

/// Hashes everything `source` holds with `alg` (see `parhash::file::FileHasher`), with a
/// progress bar for a large file on a terminal.
pub fn hash_input(alg: Algorithm, source: &Source, options: &HashOptions) -> io::Result<Output> {
    let files = file_hasher(alg, options);
    match source {
        Source::Stdin => files.hash_reader(io::stdin().lock()),
        Source::Path(path) => {
            let file = File::open(path)?;
            let bar = FileBar::new(path, options.no_progress);
            files.with_progress(&bar).hash_file(&file)
        }
    }
}

/// The file engine every input is hashed with: [`builder_for`]'s hasher, `--read`'s strategy,
/// maps unless `--no-mmap`.
pub fn file_hasher(alg: Algorithm, options: &HashOptions) -> FileHasher<'static> {
    FileHasher::new(builder_for(alg, options))
        .read_strategy(options.read)
        .memory_maps(!options.no_mmap)
}

/// The hasher every input is hashed with: `-j`'s threads, tree parameters where the algorithm
/// takes them, `-l`'s digest size where given (the file engine adds each file's length).
pub fn builder_for(alg: Algorithm, options: &HashOptions) -> HasherBuilder {
    let mut builder = Hasher::builder(alg).threads(options.threads);
    if alg.takes_tree_params() {
        builder = builder.tree_params(options.tree_params());
    }
    if let Some(size) = options.digest_size(alg) {
        builder = builder.digest_size(size);
    }
    if options.blake3_mode != Blake3Mode::Hash {
        builder = builder.blake3_mode(options.blake3_mode);
    }
    builder
}

/// `--keyed` and `--derive-key` (b3sum's flags): sets the BLAKE3 mode of `sum` and `check`,
/// reading `--keyed`'s key from standard input (exactly 32 bytes, as b3sum) before any file
/// is hashed. A usage error (one line) for another algorithm than blake3, for standard input
/// named as a file besides the key, or a key of another length.
pub fn resolve_blake3_mode(command: &mut Command) -> Result<(), String> {
    let (algorithm, options, files) = match command {
        Command::Sum(args) => (args.algorithm(), &mut args.hashing, &args.files),
        Command::Check(args) => (args.algorithm, &mut args.hashing, &args.files),
        _ => return Ok(()),
    };
    let flag = match (options.keyed, &options.derive_key) {
        (true, _) => "--keyed",
        (false, Some(_)) => "--derive-key",
        (false, None) => return Ok(()),
    };
    if algorithm != Some(Algorithm::Blake3) {
        return Err(format!(
            "{flag} is blake3's (b3sum's) mode: add -a blake3 (BLAKE2 keys: the Python package)"
        ));
    }
    options.blake3_mode = match &options.derive_key {
        Some(context) => Blake3Mode::derive_key(context),
        None => Blake3Mode::Keyed(read_key(files)?),
    };
    Ok(())
}

/// `--keyed`'s key: exactly [`BLAKE3_KEY_LEN`] bytes on standard input.
fn read_key(files: &[OsString]) -> Result<[u8; BLAKE3_KEY_LEN], String> {
    if files.is_empty() || files.iter().any(|f| f == "-") {
        return Err(
            "--keyed reads the key from standard input: name the files to hash (not -)".into(),
        );
    }
    let mut key = Vec::with_capacity(BLAKE3_KEY_LEN + 1);
    io::stdin()
        .lock()
        .take(BLAKE3_KEY_LEN as u64 + 1)
        .read_to_end(&mut key)
        .map_err(|e| format!("--keyed: cannot read the key from standard input: {e}"))?;
    let len = key.len();
    key.try_into().map_err(|_| {
        let what = if len > BLAKE3_KEY_LEN {
            "more".to_string()
        } else {
            len.to_string()
        };
        format!(
            "--keyed: the key must be exactly {BLAKE3_KEY_LEN} bytes on standard input, not {what}"
        )
    })
}

/// [`hash_input`] (for `check` and `sum` alike), except that standard input the parent closed fails as in sha256sum (`-: Bad
/// file descriptor`) instead of reading as empty.
pub fn hash_source(
    algorithm: Algorithm,
    source: &Source,
    options: &HashOptions,
) -> io::Result<Output> {
    match (source, crate::stdio::stdin_error()) {
        (Source::Stdin, Some(closed)) => Err(closed),
        _ => hash_input(algorithm, source, options),
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
}
