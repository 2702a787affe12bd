//! The lab's usage error, shared by the sweep (which finds it in the spec), the lab (in the
//! options) and the CLI (which reports it with exit status 2).

/// A mistake in the options of a run (an unknown `--baseline`, `--tree` sets nothing takes):
/// the CLI reports it as a usage error. Inside an [`std::io::Error`] of kind `InvalidInput`
/// where the lab returns I/O results (see [`UsageError::find`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

impl From<UsageError> for std::io::Error {
    fn from(e: UsageError) -> Self {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, e)
    }
}

impl UsageError {
    /// The usage error inside `err`, if that is what it is.
    pub fn find(err: &std::io::Error) -> Option<&UsageError> {
        err.get_ref()?.downcast_ref::<UsageError>()
    }
}
