//! Files that change size while `parhash sum` / `parhash check` read them: a clear error for
//! that file, exit status 1, every other file still hashed and printed; never a crash (the
//! tree modes used to hash a memory map, which dies of SIGBUS when the file is truncated).
//!
//! The file is changed at a known point through a test hook of debug builds:
//! `PARHASH_DEBUG_RESIZE=SIZE:PATH` sets PATH's length once the first piece of a file has been
//! hashed (see `progress.rs`). One more test truncates for real, from another process, with no
//! hook: its outcome depends on timing, so it accepts either a digest or the error, but never
//! a crash.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Bytes of the large file: more than the tree modes' reader thread reads ahead of the hasher
/// (4 pieces of 8 MiB), so the change lands while it is still reading.
const BIG: usize = 40 << 20;

const MESSAGE: &str = "file changed size while being read";

fn write_big(path: &Path, len: usize) {
    let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
    fs::File::create(path).unwrap().write_all(&data).unwrap();
}

fn parhash(dir: &Path, args: &[&str], resize: Option<(u64, &Path)>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_parhash"));
    cmd.args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null());
    if let Some((size, path)) = resize {
        cmd.env("PARHASH_DEBUG_RESIZE", format!("{size}:{}", path.display()));
    }
    cmd.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

struct Files {
    dir: tempfile::TempDir,
    big: PathBuf,
}

/// A small file and a fresh large one (`big`).
fn files() -> Files {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("small"),
        b"a small file that nobody changes\n",
    )
    .unwrap();
    let big = dir.path().join("big");
    write_big(&big, BIG);
    Files { dir, big }
}

/// The hook exists only in debug builds (what `cargo test` runs).
fn hook_available() -> bool {
    cfg!(debug_assertions)
}

/// `sum` printed `stdout` (the other files' lines), reported `big` as changed, exit 1.
fn assert_big_changed(out: &Output, stdout: &str, alg: &str) {
    assert_eq!(text(&out.stdout), stdout, "{alg}");
    assert_eq!(
        text(&out.stderr),
        format!("parhash: big: {MESSAGE}\n"),
        "{alg}"
    );
    assert_eq!(out.status.code(), Some(1), "{alg}");
}

const TREE_MODES: [&str; 3] = ["sandstorm512", "sandstorm256", "parsha256"];

#[test]
fn sum_reports_a_truncated_file_and_goes_on() {
    if !hook_available() {
        return;
    }
    for alg in TREE_MODES.into_iter().chain(["md5"]) {
        for new_len in [0, 1000] {
            let f = files();
            let small_line = parhash(f.dir.path(), &["sum", "-a", alg, "small"], None);
            assert!(small_line.status.success());
            let out = parhash(
                f.dir.path(),
                &["sum", "-a", alg, "-j", "1", "small", "big"],
                Some((new_len, &f.big)),
            );
            assert_big_changed(&out, &text(&small_line.stdout), alg);
        }
    }
}

#[test]
fn sum_of_one_file_reports_it_truncated_or_grown() {
    if !hook_available() {
        return;
    }
    for alg in TREE_MODES {
        for new_len in [0, BIG as u64 + 1] {
            let f = files();
            for threads in ["1", "2"] {
                write_big(&f.big, BIG);
                let out = parhash(
                    f.dir.path(),
                    &["sum", "-a", alg, "-j", threads, "big"],
                    Some((new_len, &f.big)),
                );
                assert_big_changed(&out, "", alg);
            }
        }
    }
}

#[test]
fn sum_reports_a_grown_file_among_others() {
    if !hook_available() {
        return;
    }
    let f = files();
    let out = parhash(
        f.dir.path(),
        &["sum", "-a", "sha256", "big", "small"],
        Some((BIG as u64 * 2, &f.big)),
    );
    let small_line = parhash(f.dir.path(), &["sum", "-a", "sha256", "small"], None);
    assert_big_changed(&out, &text(&small_line.stdout), "sha256");
}

#[test]
fn check_reports_a_truncated_file_and_goes_on() {
    if !hook_available() {
        return;
    }
    for alg in TREE_MODES {
        let f = files();
        let list = parhash(
            f.dir.path(),
            &["sum", "--tag", "-a", alg, "small", "big"],
            None,
        );
        assert!(list.status.success());
        fs::write(f.dir.path().join("list"), &list.stdout).unwrap();
        let out = parhash(
            f.dir.path(),
            &["check", "-j", "1", "list"],
            Some((0, &f.big)),
        );
        assert_eq!(
            text(&out.stdout),
            "small: OK\nbig: FAILED open or read\n",
            "{alg}"
        );
        let stderr = text(&out.stderr);
        assert!(
            stderr.starts_with(&format!("parhash: big: {MESSAGE}\n")),
            "{alg}: {stderr}"
        );
        assert_eq!(out.status.code(), Some(1), "{alg}");
    }
}

/// Truncated for real by another process while parhash reads it: whether the truncation lands
/// before or during the read depends on timing, so either outcome is accepted, but never a
/// signal, and the small file's line always comes out. (On the memory-mapped code this died of
/// SIGBUS, exit 135, with the small file's line lost.)
#[test]
fn a_file_truncated_by_another_process_never_crashes_parhash() {
    let f = files();
    for alg in ["sandstorm512", "parsha256"] {
        write_big(&f.big, 6 * BIG);
        let small_line = parhash(f.dir.path(), &["sum", "-a", alg, "small"], None);
        let child = Command::new(env!("CARGO_BIN_EXE_parhash"))
            .args(["sum", "-a", alg, "-j", "1", "small", "big"])
            .current_dir(f.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(150));
        fs::OpenOptions::new()
            .write(true)
            .open(&f.big)
            .unwrap()
            .set_len(0)
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(
            out.status.code().is_some(),
            "{alg}: killed by a signal: {:?}",
            out.status
        );
        assert!(
            stdout.starts_with(&text(&small_line.stdout)),
            "{alg}: {stdout}"
        );
        match out.status.code() {
            Some(1) => assert_eq!(stderr, format!("parhash: big: {MESSAGE}\n"), "{alg}"),
            // Finished before the truncation, or truncated before it was opened.
            Some(0) => assert_eq!(stdout.lines().count(), 2, "{alg}"),
            other => panic!("{alg}: exit {other:?}: {stderr}"),
        }
    }
}
