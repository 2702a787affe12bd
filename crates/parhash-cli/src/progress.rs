//! A progress bar for large files, on standard error when it is a terminal.

use std::io::IsTerminal;
use std::path::Path;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::flags::HashOptions;

/// Files at least this large get a progress bar: smaller ones finish before it is useful.
pub const THRESHOLD: u64 = 64 * 1024 * 1024;

/// A progress bar, or nothing. Cleared from the terminal when dropped.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// No progress display.
    pub fn none() -> Progress {
        Progress { bar: None }
    }

    /// A bar for a file of `len` bytes when [`wanted`] says so.
    pub fn for_file(path: &Path, len: Option<u64>, options: &HashOptions) -> Progress {
        let Some(len) = len else {
            return Progress::none();
        };
        if !wanted(len, std::io::stderr().is_terminal(), options.no_progress) {
            return Progress::none();
        }
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{msg} [{bar:30}] {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} ETA {eta}",
        )
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_message(path.display().to_string());
        Progress { bar: Some(bar) }
    }

    /// Records `n` more bytes hashed.
    pub fn advance(&self, n: usize) {
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Whether a file of `len` bytes gets a bar: only on a terminal, only when not switched off,
/// only when large.
pub fn wanted(len: u64, stderr_is_terminal: bool, switched_off: bool) -> bool {
    stderr_is_terminal && !switched_off && len >= THRESHOLD
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bar_only_for_large_files_on_a_terminal() {
        assert!(wanted(THRESHOLD, true, false));
        assert!(!wanted(THRESHOLD - 1, true, false));
        assert!(!wanted(THRESHOLD, false, false));
        assert!(!wanted(THRESHOLD, true, true));
    }
}
