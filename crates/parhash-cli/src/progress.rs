//! Progress bars on standard error when it is a terminal: one for a large file, one (files
//! and bytes done) for `sum` over many files.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

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

    /// A bar for a file of `len` bytes when [`wanted`] says so (`switched_off`: `--no-progress`).
    pub fn for_file(path: &Path, len: Option<u64>, switched_off: bool) -> Progress {
        let Some(len) = len else {
            return Progress::none();
        };
        if !wanted(len, std::io::stderr().is_terminal(), switched_off) {
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

/// Files and bytes done over many files, or nothing. Shared by the worker threads (counting is
/// two atomic additions); cleared from the terminal when dropped.
pub struct ManyProgress {
    bar: Option<ProgressBar>,
    files: Arc<AtomicU64>,
}

impl ManyProgress {
    /// A bar when standard error is a terminal and not `switched_off` (`--no-progress`); `total`
    /// files when known (not for `-r`, whose walk is not counted ahead).
    pub fn new(total: Option<u64>, switched_off: bool) -> ManyProgress {
        let files = Arc::new(AtomicU64::new(0));
        if !std::io::stderr().is_terminal() || switched_off {
            return ManyProgress { bar: None, files };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let counter = Arc::clone(&files);
        let of_total = total.map(|t| format!("/{t}")).unwrap_or_default();
        let style = ProgressStyle::with_template(
            "{spinner} {files} files, {binary_bytes} ({binary_bytes_per_sec}) {elapsed}",
        )
        .map(|s| {
            s.with_key(
                "files",
                move |_: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{}{of_total}", counter.load(Ordering::Relaxed));
                },
            )
        })
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(200));
        ManyProgress {
            bar: Some(bar),
            files,
        }
    }

    /// Records one more file of `bytes` bytes done.
    pub fn file_done(&self, bytes: u64) {
        self.files.fetch_add(1, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.inc(bytes);
        }
    }

    /// Runs `f` (which writes to the terminal) with the bar hidden.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }
}

impl Drop for ManyProgress {
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
