//! # parhash-format
//!
//! The checksum-list format of `parhash`, written once and shared by the `parhash` command,
//! the Python package and its Ray mode (`parhash-dist`): what makes them drop-ins for
//! coreutils' `sha256sum`, `b2sum` and `cksum`.
//!
//! - [`mod@line`]: checksum lines as `sum` writes them (GNU `HEX  NAME`, BSD `TAG (NAME) = HEX`,
//!   `-z`), and [`tag`] the BSD tags (`SHA256`, `BLAKE2b-256`, `PARSHA256-T13-IV256`).
//! - [`legacy`]: the lines of coreutils' legacy checksums (`cksum -a crc|sysv|bsd`, `sum`).
//! - [`parse`]: the records of a list, as `sha256sum -c` reads them ([`parse::Parser`]),
//!   with the algorithm of a tagless line inferred from its digest's length; [`record`] reads
//!   one record of a list, at most [`record::MAX_RECORD_BYTES`] kept, for every list reader.
//! - [`check`]: one list's check run: per-line verdicts, tallies, coreutils' warnings and
//!   parhash's notes, the exit status; the caller hashes, the check run says what to print.
//! - [`audit`]: `check --audit`, a list against the tree it describes: each file matched,
//!   changed, missing, new, moved or unreadable, with its duplicates; the caller walks and
//!   hashes; [`audit_list`] reads its list through a check run.
//! - [`multipart`]: object stores' multipart checksums as they show them (S3's ETag `HEX-N`,
//!   composite `BASE64-N`), their lines (`ETAG (NAME) = ...`) and part sizes; [`size`] sizes
//!   as people write them (`8MiB`).
//! - [`json`]: the `--json` records (JSON Lines) of `sum` and `check`.
//! - [`length`]: `-l BITS` and the digest lengths each algorithm can produce.
//! - [`escape`]: names as bytes, the checksum-line escape and the shell quoting of names in
//!   messages; [`error_text`] an I/O error in the C library's words.
//! - [`walk`]: the files below a directory in `sum -r`'s order.
//! - [`resume`]: a list `sum -o FILE` wrote, read back to continue it (`--resume`): the
//!   complete lines kept, a torn last line cut.
//! - [`order`]: a plan's records in input order, the hashed ones between those passed through.
//! - [`resumed`]: `--resume` itself, the lists and their side file against a new walk (the CLI
//!   and Python both resume through it).
//! - [`update`]: a list merged with a new walk (`--update`), in walk order, streaming.
//! - [`meta`]: the side file `FILE.parhash-meta` (size, times, inode of each entry) that lets
//!   `--update --rehash-changed` read again only the files that changed.
//! - [`pieces`]: the piece list `FILE.parhash-pieces` (each file's pieces' digests) that lets
//!   `check --locate` say which bytes of a damaged file differ.
//! - [`list_file`]: the list and side file `sum -o FILE` writes: durably (written at once,
//!   synced every few seconds), cut and continued, replaced by a rename; and the list's own
//!   files, which its walk leaves out.
//!
//! Nothing here reads a file to hash it or writes to a stream: callers own their I/O (a
//! terminal, a Python stream, a Ray pipeline) and get bytes and messages back. The one file
//! written here is a list to a path ([`list_file`]), so that every caller writes it alike.
//!
//! ```
//! use parhash::{hash, Algorithm};
//! use parhash_format::line::{write_line, LineStyle};
//! use parhash_format::parse::{Line, Parser};
//!
//! let digest = hash(Algorithm::Md5, b"abc");
//! let mut list = Vec::new();
//! write_line(&mut list, Algorithm::Md5, &digest, b"a\nb", LineStyle::default());
//! assert_eq!(list, b"\\900150983cd24fb0d6963f7d28e17f72  a\\nb\n");
//! let Line::Entry(entry) = Parser::new(None, false).parse(&list) else { panic!() };
//! assert_eq!((entry.algorithm, &entry.name[..]), (Algorithm::Md5, &b"a\nb"[..]));
//! assert!(entry.inferred); // a GNU line: md5 from the digest's length
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod audit;
pub mod audit_list;
pub mod check;
mod digest_text;
pub mod escape;
pub mod json;
pub mod legacy;
pub mod length;
pub mod line;
pub mod list_file;
pub mod meta;
pub mod multipart;
pub mod order;
pub mod parse;
pub mod pieces;
pub mod range;
pub mod record;
pub mod resume;
pub mod resumed;
pub mod size;
pub mod tag;
pub mod update;
pub mod walk;

use std::io;

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

/// The algorithm `sum` uses when none is named, and the one `check`'s warnings name before
/// any line said otherwise (what sha256sum says).
pub const DEFAULT_ALGORITHM: parhash::Algorithm = parhash::Algorithm::Sha256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_text_drops_os_error_suffix() {
        let err = io::Error::from_raw_os_error(2);
        assert_eq!(error_text(&err), "No such file or directory");
        let custom = io::Error::other("odd");
        assert_eq!(error_text(&custom), "odd");
        let bare = io::Error::from(io::ErrorKind::PermissionDenied);
        assert_eq!(error_text(&bare), "Permission denied");
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
