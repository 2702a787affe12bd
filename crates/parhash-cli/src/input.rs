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

use crate::escape;
use crate::flags::HashOptions;
use crate::parsha;
use crate::progress::FileBar;

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
    let files = FileHasher::new(builder_for(alg, options));
    match source {
        Source::Stdin => files.hash_reader(io::stdin().lock()),
        Source::Path(path) => {
            let file = File::open(path)?;
            let bar = FileBar::new(path, options.no_progress);
            files.with_progress(&bar).hash_file(&file)
        }
    }
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
}
