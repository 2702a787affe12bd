//! Where data comes from and the one function that hashes it.
//!
//! Every digest `sum` and `check` compute goes through [`hash_input`] (one input) or
//! `many::run` (many), both on the library's file engine (`parhash::file`): reads overlapped
//! with hashing, a file that changes size while it is read an error for that file, input of
//! unknown length spooled for PARSHA-256.

use std::fs::File;
use std::io;
use std::path::PathBuf;

use parhash::file::FileHasher;
use parhash::{Algorithm, Hasher, HasherBuilder, Output};

use crate::flags::HashOptions;
use crate::progress::FileBar;
use parhash_format::escape;
use parhash_format::tag as parsha;

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
        .map_cached(!options.no_mmap)
}

/// The hasher every input is hashed with: `-j`'s threads, tree parameters where the algorithm
/// takes them, `-l`'s digest size where given (the file engine adds each file's length).
pub fn builder_for(alg: Algorithm, options: &HashOptions) -> HasherBuilder {
    let mut builder = Hasher::builder(alg).threads(options.threads);
    if parsha::takes_tree_params(alg) {
        builder = builder.tree_params(options.tree_params());
    }
    if let Some(size) = options.digest_size(alg) {
        builder = builder.digest_size(size);
    }
    builder
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
