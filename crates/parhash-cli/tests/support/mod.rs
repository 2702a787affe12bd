//! Helpers shared by the CLI's end-to-end tests: run a program in a directory, tell whether a
//! tool to compare with is installed.
// Each test file uses its own subset.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Write;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

/// What a program printed and how it ended.
#[derive(Debug)]
pub struct Run {
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub code: Option<i32>,
}

impl Run {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Checks that the program failed with exit status `code` and one line on standard error
    /// holding `needle`.
    #[track_caller]
    pub fn fails_in_one_line(&self, code: i32, needle: &str) {
        assert_eq!(self.code, Some(code), "{}", self.stderr);
        assert!(self.stderr.contains(needle), "{}", self.stderr);
        assert_eq!(self.stderr.lines().count(), 1, "{}", self.stderr);
    }
}

/// Starts `program ARGS` in `dir` under the locale `locale` (`LC_ALL`), all three standard
/// streams piped.
pub fn spawn_in(dir: &Path, locale: &str, program: &str, args: &[&str]) -> Child {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", locale)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
}

/// Runs `program ARGS` in `dir` under `locale` with `stdin` as its standard input.
pub fn run_in_locale(dir: &Path, locale: &str, program: &str, args: &[&str], stdin: &[u8]) -> Run {
    let mut child = spawn_in(dir, locale, program, args);
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Run {
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
    }
}

/// Whether `tool` is installed: it starts (asked for `--version`, whose answer does not
/// matter: `openssl` refuses the flag and is installed all the same).
pub fn tool_exists(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// Whether the control tool `tool` (the program parhash is compared with) is installed. A
/// missing one skips the comparison with a message, but fails the test when the environment
/// variable `CI` is set: CI installs every control (.ci/run), and a test that skipped there
/// would pass having compared nothing.
pub fn require_tool(tool: &str) -> bool {
    require_tool_under(tool, std::env::var_os("CI").is_some())
}

/// [`require_tool`] with whether this is CI given, so that both answers can be tested.
pub fn require_tool_under(tool: &str, under_ci: bool) -> bool {
    let found = tool_exists(tool);
    if !found {
        assert!(
            !under_ci,
            "{tool} is not installed, and CI must compare parhash with it (.ci/run installs it)"
        );
        eprintln!("skipped: {tool} is not installed (a control of this test)");
    }
    found
}

/// Runs `parhash ARGS` in `dir` under the C.UTF-8 locale, with no standard input and the
/// environment variables `env` set (`PARHASH_DEBUG_RESIZE`, ...).
pub fn parhash_in(dir: &Path, args: &[impl AsRef<OsStr>], env: &[(&str, String)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_parhash"));
    cmd.args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null());
    for (key, value) in env {
        cmd.env(key, value);
    }
    cmd.output().unwrap()
}

/// `out`, once it is checked that its program exited with status 0 (else the test fails with
/// the status and both of the program's output streams).
#[track_caller]
pub fn succeeded(out: Output) -> Output {
    assert!(
        out.status.success(),
        "{}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    out
}

/// Checks that the program behind `out` exited with status `code` and said `needle` on
/// standard error.
#[track_caller]
pub fn fails_with(out: &Output, code: i32, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    assert!(stderr.contains(needle), "{stderr}");
}

/// A small pseudo-random generator (xorshift; no dependency; a test prints its seed on
/// failure). The seed must not be 0.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Checks `list` (written to `dir/list`) with `program CHECK_ARGS... list` under C.UTF-8:
/// exit status 0 and `files` lines reported OK.
pub fn checks_ok(dir: &Path, program: &str, check_args: &[&str], list: &str, files: usize) {
    std::fs::write(dir.join("list"), list).unwrap();
    let mut args = check_args.to_vec();
    args.push("list");
    let out = run_in_locale(dir, "C.UTF-8", program, &args, b"");
    assert_eq!(
        out.code,
        Some(0),
        "{program} {check_args:?}:\n{list}\n{}",
        out.stderr
    );
    assert_eq!(
        out.stdout_text().matches(": OK").count(),
        files,
        "{}",
        out.stdout_text()
    );
}

/// What [`parhash_watched`] saw: the run's output, and the largest resident set (`VmHWM`, in
/// KiB) read from `/proc` while it ran.
pub struct Watched {
    pub output: Output,
    pub peak_kib: u64,
    /// It was still running after the time allowed, and was killed.
    pub killed: bool,
}

/// Runs `parhash ARGS` in `dir` as [`parhash_in`] does, reading its peak resident set every
/// few milliseconds until it ends or `allowed` has passed (then it is killed). The peak is
/// the kernel's own high-water mark, so it misses only growth in the last few milliseconds
/// of a run.
#[cfg(target_os = "linux")]
pub fn parhash_watched(dir: &Path, args: &[&str], allowed: std::time::Duration) -> Watched {
    use std::io::Read;
    let mut child = spawn_in(dir, "C.UTF-8", env!("CARGO_BIN_EXE_parhash"), args);
    // No standard input: closed at once.
    drop(child.stdin.take());
    let drain = |mut from: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            from.read_to_end(&mut bytes).unwrap();
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let status_file = format!("/proc/{}/status", child.id());
    let started = std::time::Instant::now();
    let mut peak_kib = 0;
    let mut killed = false;
    let status = loop {
        // Read before `try_wait`: a reaped child's file is gone (a zombie's has no VmHWM).
        let hwm = std::fs::read_to_string(&status_file).ok().and_then(|text| {
            let line = text.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
            line.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        });
        peak_kib = peak_kib.max(hwm.unwrap_or(0));
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > allowed && !killed {
            child.kill().unwrap();
            killed = true;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    Watched {
        output: Output {
            status,
            stdout: stdout.join().unwrap(),
            stderr: stderr.join().unwrap(),
        },
        peak_kib,
        killed,
    }
}
