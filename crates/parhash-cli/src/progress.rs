//! Progress bars on standard error when it is a terminal: one for a large file, one (files
//! and bytes done) for `sum` over many files. Both are told by the library's file engine
//! (`parhash::file::Progress`).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Files at least this large get a progress bar: smaller ones finish before it is useful.
pub const THRESHOLD: u64 = 64 * 1024 * 1024;

/// The bar for one file, drawn once the file engine says how large the file is (see
/// [`wanted`]). Cleared from the terminal when dropped.
pub struct FileBar {
    path: PathBuf,
    switched_off: bool,
    bar: OnceLock<Option<ProgressBar>>,
}

impl FileBar {
    /// A bar for the file at `path` (`switched_off`: `--no-progress`).
    pub fn new(path: &Path, switched_off: bool) -> FileBar {
        FileBar {
            path: path.to_path_buf(),
            switched_off,
            bar: OnceLock::new(),
        }
    }

    fn draw(&self, len: u64) -> Option<ProgressBar> {
        if !wanted(len, std::io::stderr().is_terminal(), self.switched_off) {
            return None;
        }
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{msg} [{bar:30}] {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} ETA {eta}",
        )
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.set_message(self.path.display().to_string());
        Some(bar)
    }
}

impl parhash::file::Progress for FileBar {
    fn started(&self, len: Option<u64>) {
        self.bar.get_or_init(|| len.and_then(|len| self.draw(len)));
    }

    fn hashed(&self, bytes: u64) {
        if let Some(Some(bar)) = self.bar.get() {
            bar.inc(bytes);
        }
        debug_resize_hook(bytes);
    }
}

impl Drop for FileBar {
    fn drop(&mut self) {
        if let Some(Some(bar)) = self.bar.get() {
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

    /// Runs `f` (which writes to the terminal) with the bar hidden.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }
}

/// The file engine reports each file done (hashed or failed) with its bytes; the pieces of
/// one file are not drawn (several files are read at once).
impl parhash::file::Progress for ManyProgress {
    fn file_done(&self, bytes: u64) {
        self.files.fetch_add(1, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            bar.inc(bytes);
        }
    }

    fn hashed(&self, bytes: u64) {
        debug_resize_hook(bytes);
    }
}

/// A spinner counting `what` on standard error when it is a terminal and not `switched_off`
/// (`--no-progress`); None otherwise. Its owner clears it. (`parhash store`'s: a lean build
/// has none.)
#[cfg(feature = "store")]
pub fn count_bar(what: &str, switched_off: bool) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() || switched_off {
        return None;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template(&format!("{{spinner}} {{pos}} {what} {{elapsed}}"))
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    bar.set_style(style);
    bar.enable_steady_tick(Duration::from_millis(200));
    Some(bar)
}

/// Tests only, in debug builds: `PARHASH_DEBUG_RESIZE=SIZE:PATH` sets the length of the file
/// at `PATH` to `SIZE` bytes (truncating it, or growing it with zeros) once the first piece of
/// at least 1 MiB has been hashed (so not on a small file hashed before it), so that tests can
/// change a file under the engine at a known point (`tests/changing_files.rs`). Release builds
/// ignore it.
fn debug_resize_hook(piece: u64) {
    if cfg!(debug_assertions) && piece >= 1 << 20 {
        static DONE: std::sync::Once = std::sync::Once::new();
        DONE.call_once(|| {
            let Some(spec) = std::env::var_os("PARHASH_DEBUG_RESIZE") else {
                return;
            };
            let spec = spec.to_string_lossy();
            let Some((size, path)) = spec.split_once(':') else {
                return;
            };
            if let Ok(size) = size.parse::<u64>() {
                let _ = std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .and_then(|f| f.set_len(size));
            }
        });
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
