//! The standard streams as the parent process handed them over.
//!
//! Before `main`, Rust's runtime ignores `SIGPIPE` and opens `/dev/null` on any of the standard
//! descriptors 0, 1 and 2 that is closed. coreutils' tools see both: a write to a pipe whose
//! reader has gone kills them with `SIGPIPE` (exit status 141 in a shell), unless their parent
//! ignored the signal (then the write fails, `write error`, status 1); and a closed standard
//! input or output fails with `Bad file descriptor`. A constructor that runs before the runtime
//! records what the parent gave ([`record_inherited_state`]); `main` puts `SIGPIPE` back
//! ([`restore_sigpipe`]), and `sum`, `check` and `list` read and write through [`stdin_error`]
//! and [`stdout`], which fail where the parent's descriptor was closed.
//!
//! This is the CLI's one foreign-function module: a few C library calls, each behind a safe
//! function.
#![allow(unsafe_code)]

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

static SIGPIPE_IGNORED: AtomicBool = AtomicBool::new(false);
static STDIN_CLOSED: AtomicBool = AtomicBool::new(false);
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Runs before `main` (and before Rust's runtime changes anything): records whether the parent
/// ignored `SIGPIPE` and which of standard input and output it closed.
#[ctor::ctor(unsafe)]
fn record_inherited_state() {
    // SAFETY: `sigaction` with a null new action only reads the current one into `old`, a
    // zeroed (valid) `sigaction` value that lives across the call.
    let ignored = unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(libc::SIGPIPE, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    };
    SIGPIPE_IGNORED.store(ignored, Ordering::Relaxed);
    STDIN_CLOSED.store(is_closed(libc::STDIN_FILENO), Ordering::Relaxed);
    STDOUT_CLOSED.store(is_closed(libc::STDOUT_FILENO), Ordering::Relaxed);
}

/// Whether descriptor `fd` is not open.
fn is_closed(fd: libc::c_int) -> bool {
    // SAFETY: F_GETFD reads the descriptor's flags and changes nothing; an fd that is not
    // open gives -1 (EBADF).
    unsafe { libc::fcntl(fd, libc::F_GETFD) == -1 }
}

/// Gives `SIGPIPE` its default action again (unless the parent ignored it), so that a reader
/// that goes away ends parhash as it ends sha256sum, instead of a string of failed writes.
pub fn restore_sigpipe() {
    if !SIGPIPE_IGNORED.load(Ordering::Relaxed) {
        // SAFETY: SIG_DFL is a valid disposition for SIGPIPE; no handler of ours is replaced.
        unsafe {
            libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        }
    }
}

/// `Bad file descriptor`, the error a closed standard stream gives.
fn bad_descriptor() -> io::Error {
    io::Error::from_raw_os_error(libc::EBADF)
}

/// The error reading standard input gives: `Some` when the parent closed it (the runtime's
/// stand-in `/dev/null` would read as empty input).
pub fn stdin_error() -> Option<io::Error> {
    STDIN_CLOSED.load(Ordering::Relaxed).then(bad_descriptor)
}

/// Standard output, locked; writes fail with `Bad file descriptor` when the parent closed it.
pub fn stdout() -> Stdout {
    Stdout {
        inner: io::stdout().lock(),
        closed: STDOUT_CLOSED.load(Ordering::Relaxed),
    }
}

/// See [`stdout`]. Line-buffered (Rust's standard output): callers flush when they have
/// nothing more ready.
pub struct Stdout {
    inner: io::StdoutLock<'static>,
    closed: bool,
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed && !buf.is_empty() {
            return Err(bad_descriptor());
        }
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
