//! What a test exercised, for CI's report of the forms each `PARHASH_DISABLE_ISA` pass ran
//! (`.ci/run`, `scripts/forms-coverage.sh`).
//!
//! Where the environment names a file in `PARHASH_FORMS_LOG`, [`ran`] appends one line
//! `family:form` per form a test ran and checked (once per process), and [`skipped`] one line
//! `SKIPPED: test: reason` for a test that found nothing to run. Tests run in parallel threads
//! and processes, so each line is one `write` to a file opened for appending (`O_APPEND`: the
//! kernel places each write at the end, whole). Without the variable nothing is written.
//!
//! Shared by the integration tests (`tests/common/mod.rs`) and the library's unit tests
//! (`src/lib.rs` includes this file under `cfg(test)`).
#![allow(dead_code)]

use std::collections::HashSet;
use std::io::Write;
use std::sync::Mutex;

/// The environment variable that names the log.
pub const FORMS_LOG: &str = "PARHASH_FORMS_LOG";

fn append(line: String) {
    static SEEN: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let Some(path) = std::env::var_os(FORMS_LOG).filter(|p| !p.is_empty()) else {
        return;
    };
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if !seen.get_or_insert_with(HashSet::new).insert(line.clone()) {
        return;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .unwrap_or_else(|e| panic!("{FORMS_LOG}={}: {e}", path.to_string_lossy()));
    file.write_all(format!("{line}\n").as_bytes())
        .unwrap_or_else(|e| panic!("{FORMS_LOG}={}: {e}", path.to_string_lossy()));
}

/// Records that a test ran (and checked) the form `form` of `family`: a registry variant
/// (`sha256`, `sha-ni`) or an engine's kernel (`sandstorm-wide`, `avx2-gather`).
pub fn ran(family: &str, form: &str) {
    append(format!("{family}:{form}"));
}

/// Reports a test that had nothing to run here: `SKIPPED: test: reason` on standard error (seen
/// with `--nocapture`) and in the log (which CI prints for each pass).
pub fn skipped(test: &str, reason: &str) {
    eprintln!("SKIPPED: {test}: {reason}");
    append(format!("SKIPPED: {test}: {reason}"));
}
