//! Messages on standard error, all prefixed `parhash: ` as coreutils prefixes its own name.
//! A closed or failing standard error must not stop the run, so write errors are ignored.

use std::fmt;
use std::io::{self, Write};

/// Prints `parhash: MESSAGE` on standard error.
pub fn error(message: fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr().lock(), "parhash: {message}");
}

/// Prints `parhash: MESSAGE` on standard error (format arguments as `format!`).
macro_rules! err_message {
    ($($arg:tt)*) => {
        $crate::messages::error(format_args!($($arg)*))
    };
}
pub(crate) use err_message;

/// `parhash: NAME: REASON` on standard error for an input that has no digest, once per file
/// however many algorithms (`sum`, on every device).
pub fn report_failure(name: &[u8], err: &io::Error) {
    err_message!(
        "{}: {}",
        parhash_format::escape::quote(name),
        parhash_format::error_text(err)
    );
}

/// A mistake in the options that clap cannot see (`bench --tree` sets nothing takes, a feature
/// this build lacks): `main` reports it in one line with exit status 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Context of a failed write to standard output (coreutils' wording).
pub const WRITE_ERROR: &str = "write error";

/// The message for an error chain: causes joined by `: `, I/O errors worded as coreutils words
/// them (`write error: No space left on device`).
pub fn describe(err: &anyhow::Error) -> String {
    err.chain()
        .map(|cause| match cause.downcast_ref::<io::Error>() {
            Some(io_err) => parhash_format::error_text(io_err),
            None => cause.to_string(),
        })
        .collect::<Vec<_>>()
        .join(": ")
}
