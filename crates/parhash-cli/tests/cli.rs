//! End-to-end tests: run the built `parhash` binary in a temporary directory.
//!
//! Expected outputs come from the real GNU coreutils tools (`md5sum`, `sha256sum`, ...) run on
//! the same files, never from parhash itself. A comparison whose tool is missing, or whose
//! algorithm is not in this build yet, is skipped with a printed reason; under CI (the `CI`
//! environment variable set, as `.ci/run` does) a missing tool fails the test instead, so a
//! green run there has compared everything.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use parhash::Algorithm;

mod support;
use support::{require_tool, require_tool_under, run_in_locale, spawn_in, tool_exists, Run};

/// Algorithms with a coreutils twin.
const TOOLS: &[(&str, &str)] = &[
    ("md5", "md5sum"),
    ("sha1", "sha1sum"),
    ("sha224", "sha224sum"),
    ("sha256", "sha256sum"),
    ("sha384", "sha384sum"),
    ("sha512", "sha512sum"),
];

fn run_in(dir: &Path, program: &str, args: &[&str], stdin: &[u8]) -> Run {
    run_in_locale(dir, "C.UTF-8", program, args, stdin)
}

fn parhash(dir: &Path, args: &[&str]) -> Run {
    run_in(dir, env!("CARGO_BIN_EXE_parhash"), args, b"")
}

fn parhash_stdin(dir: &Path, args: &[&str], stdin: &[u8]) -> Run {
    run_in(dir, env!("CARGO_BIN_EXE_parhash"), args, stdin)
}

#[test]
fn a_missing_tool_skips_but_fails_under_ci() {
    let missing = "parhash-test-no-such-tool";
    assert!(!require_tool_under(missing, false));
    assert!(std::panic::catch_unwind(|| require_tool_under(missing, true)).is_err());
}

fn have_algorithm(name: &str) -> bool {
    let built = Algorithm::from_name(name).is_ok();
    if !built {
        eprintln!("skipped: {name} is not in this build yet");
    }
    built
}

/// Every algorithm with a coreutils twin is built now, so none of the comparisons below may
/// skip for that reason (only a missing tool may).
#[test]
fn every_coreutils_twin_is_built() {
    for (alg, _) in TOOLS {
        assert!(
            Algorithm::from_name(alg).is_ok(),
            "{alg} is not in the registry"
        );
    }
}

/// The (algorithm, tool) pairs this machine can compare.
fn tool_pairs() -> Vec<(&'static str, &'static str)> {
    TOOLS
        .iter()
        .copied()
        .filter(|(alg, tool)| have_algorithm(alg) && require_tool(tool))
        .collect()
}

/// A temporary directory with files of awkward names and contents.
fn fixture() -> (tempfile::TempDir, Vec<&'static str>) {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("plain", b"hello\n".to_vec()),
        ("empty", Vec::new()),
        ("with space", b"x".to_vec()),
        ("new\nline", b"y".to_vec()),
        ("back\\slash", b"z".to_vec()),
        ("carriage\rreturn", b"r".to_vec()),
        (
            "star*paren(",
            (0..5000u32).map(|i| (i % 251) as u8).collect(),
        ),
    ];
    for (name, data) in &files {
        fs::write(dir.path().join(name), data).unwrap();
    }
    (dir, files.into_iter().map(|(n, _)| n).collect())
}

fn with_prefix<'a>(prefix: &[&'a str], rest: &[&'a str]) -> Vec<&'a str> {
    prefix.iter().chain(rest).copied().collect()
}

// ---- sum: output formats ----

#[test]
fn sum_prints_exactly_what_coreutils_prints() {
    let (dir, names) = fixture();
    for (alg, tool) in tool_pairs() {
        for flags in [&[][..], &["--tag"], &["-z"], &["-b"], &["--tag", "-z"]] {
            let ours = parhash(
                dir.path(),
                &with_prefix(&[&["sum", "-a", alg], flags].concat(), &names),
            );
            let theirs = run_in(dir.path(), tool, &with_prefix(flags, &names), b"");
            assert_eq!(ours.stdout_text(), theirs.stdout_text(), "{alg} {flags:?}");
            assert_eq!(
                (ours.code, ours.stderr.as_str()),
                (Some(0), ""),
                "{alg} {flags:?}"
            );
        }
    }
}

#[test]
fn sum_reads_stdin_for_dash_and_no_file() {
    let dir = tempfile::tempdir().unwrap();
    for (alg, tool) in tool_pairs() {
        let theirs = run_in(dir.path(), tool, &[], b"abc");
        assert_eq!(
            parhash_stdin(dir.path(), &["sum", "-a", alg], b"abc").stdout,
            theirs.stdout
        );
        assert_eq!(
            parhash_stdin(dir.path(), &["sum", "-a", alg, "-"], b"abc").stdout,
            theirs.stdout
        );
        let tagged = run_in(dir.path(), tool, &["--tag", "-"], b"abc");
        let ours = parhash_stdin(dir.path(), &["sum", "--tag", "-a", alg], b"abc");
        assert_eq!(ours.stdout_text(), tagged.stdout_text());
    }
}

#[test]
fn sum_defaults_to_sha256() {
    let dir = tempfile::tempdir().unwrap();
    if !(have_algorithm("sha256") && require_tool("sha256sum")) {
        return;
    }
    fs::write(dir.path().join("f"), b"data").unwrap();
    let theirs = run_in(dir.path(), "sha256sum", &["f"], b"");
    assert_eq!(
        parhash(dir.path(), &["sum", "f"]).stdout_text(),
        theirs.stdout_text()
    );
}

#[test]
fn large_sparse_file_streams_without_a_bar_when_not_on_a_terminal() {
    // Over the progress threshold; stderr is a pipe here, so no bar may appear.
    let (dir, _) = fixture();
    let file = fs::File::create(dir.path().join("sparse")).unwrap();
    file.set_len(65 * 1024 * 1024 + 3).unwrap();
    drop(file);
    for (alg, tool) in tool_pairs().into_iter().take(1) {
        let ours = parhash(dir.path(), &["sum", "-a", alg, "sparse"]);
        assert_eq!(ours.stderr, "");
        assert_eq!(
            ours.stdout,
            run_in(dir.path(), tool, &["sparse"], b"").stdout
        );
    }
}

// ---- sum: errors ----

#[test]
fn missing_file_and_directory_are_reported_and_the_run_continues() {
    let (dir, _) = fixture();
    fs::create_dir(dir.path().join("dir")).unwrap();
    let ours = parhash(
        dir.path(),
        &["sum", "-a", "md5", "missing", "plain", "dir", "it's", "a b"],
    );
    assert_eq!(
        ours.stderr,
        "parhash: missing: No such file or directory\n\
         parhash: dir: Is a directory\n\
         parhash: \"it's\": No such file or directory\n\
         parhash: 'a b': No such file or directory\n"
    );
    assert_eq!(ours.code, Some(1));
    assert!(ours.stdout_text().ends_with("  plain\n"), "{ours:?}");
    assert_eq!(ours.stdout_text().lines().count(), 1);
    if require_tool("md5sum") {
        let theirs = run_in(
            dir.path(),
            "md5sum",
            &["missing", "plain", "dir", "it's", "a b"],
            b"",
        );
        assert_eq!(ours.stderr, theirs.stderr.replace("md5sum: ", "parhash: "));
        assert_eq!(ours.code, theirs.code);
    }
}

/// Runs `parhash ARGS` in `dir` as user nobody (uid and gid 65534, no supplementary groups), so
/// that file permissions apply even when the tests run as root (as CI does). Uses util-linux's
/// setpriv, else runuser; `None`, with the reason printed, when neither is installed. `dir` and
/// what nobody should read in it must be open to others.
fn parhash_as_nobody(dir: &Path, args: &[&str]) -> Option<Run> {
    let mechanisms: [&[&str]; 2] = [
        &[
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--",
        ],
        &["runuser", "-u", "nobody", "--"],
    ];
    let Some(prefix) = mechanisms.into_iter().find(|m| tool_exists(m[0])) else {
        eprintln!(
            "skipped: running with privileges that ignore file permissions, and neither setpriv \
             nor runuser (util-linux) is installed to drop them"
        );
        return None;
    };
    let as_nobody = |binary: &Path, args: &[&str]| {
        let binary = binary.to_str().expect("UTF-8 path of the test binary");
        run_in(
            dir,
            prefix[0],
            &[&prefix[1..], &[binary], args].concat(),
            b"",
        )
    };
    // nobody may not get through the directories above the build's binary: then run a copy.
    let mut binary = PathBuf::from(env!("CARGO_BIN_EXE_parhash"));
    if as_nobody(&binary, &["--version"]).code != Some(0) {
        let copy = dir.join("parhash-for-nobody");
        fs::copy(&binary, &copy).unwrap();
        binary = copy;
        let probe = as_nobody(&binary, &["--version"]);
        assert_eq!(
            probe.code,
            Some(0),
            "{} cannot run parhash in {dir:?} (every folder above it must let others \
             through): {probe:?}",
            prefix[0]
        );
    }
    Some(as_nobody(&binary, args))
}

#[test]
fn unreadable_file_says_permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, _) = fixture();
    let path = dir.path().join("secret");
    fs::write(&path, b"s").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o000)).unwrap();
    let args = ["sum", "-a", "md5", "secret", "plain"];
    let ours = if fs::read(&path).is_err() {
        parhash(dir.path(), &args)
    } else {
        // Root reads anything: run as nobody, who may enter the directory and read `plain`.
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let plain = dir.path().join("plain");
        fs::set_permissions(plain, fs::Permissions::from_mode(0o644)).unwrap();
        let Some(run) = parhash_as_nobody(dir.path(), &args) else {
            return;
        };
        run
    };
    assert_eq!(ours.stderr, "parhash: secret: Permission denied\n");
    assert_eq!(ours.code, Some(1));
    assert_eq!(ours.stdout_text().lines().count(), 1);
    assert!(ours.stdout_text().ends_with("  plain\n"), "{ours:?}");
}

#[test]
fn unknown_algorithm_is_one_line_with_a_suggestion() {
    let dir = tempfile::tempdir().unwrap();
    let ours = parhash(dir.path(), &["sum", "-a", "mdd5", "x"]);
    // coreutils' cksum exits 1 for an unknown -a.
    ours.fails_in_one_line(1, "did you mean 'md5'");
    assert!(
        ours.stderr.starts_with("parhash: unknown algorithm 'mdd5'"),
        "{}",
        ours.stderr
    );
    assert!(ours.stdout.is_empty());
    let check = parhash(dir.path(), &["check", "-a", "nope-nope-nope", "x"]);
    assert_eq!(check.code, Some(1));
    assert_eq!(check.stderr.lines().count(), 1, "{}", check.stderr);
}

/// A build without the lab or the GPU back-end (`--no-default-features`, CI builds one) says in
/// one line which cargo feature it lacks: `bench` as a usage error (2), `--device gpu` as a
/// failure (1); a default build runs both.
#[test]
fn a_lean_build_names_the_feature_it_lacks() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f"), b"abc").unwrap();
    let bench = parhash(dir.path(), &["bench", "--list-presets"]);
    let gpu = parhash(dir.path(), &["sum", "--device", "gpu", "f"]);
    if cfg!(feature = "lab") {
        assert_eq!(bench.code, Some(0), "{}", bench.stderr);
    } else {
        bench.fails_in_one_line(2, "cargo feature `lab`");
    }
    if !cfg!(feature = "gpu") {
        assert_eq!(gpu.code, Some(1));
        assert!(gpu.stderr.contains("cargo feature `gpu`"), "{}", gpu.stderr);
    } else {
        assert!(!gpu.stderr.contains("cargo feature"), "{}", gpu.stderr);
    }
}

#[test]
fn usage_errors_of_other_subcommands_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["bench", "--no-such-flag"][..],
        &["list", "extra"],
        &["frobnicate"],
        &[],
    ] {
        let run = parhash(dir.path(), args);
        assert_eq!(run.code, Some(2), "{args:?}: {run:?}");
        assert!(!run.stderr.is_empty());
    }
    assert_eq!(parhash(dir.path(), &["--help"]).code, Some(0));
    assert_eq!(parhash(dir.path(), &["sum", "--help"]).code, Some(0));
    assert_eq!(parhash(dir.path(), &["--version"]).code, Some(0));
}

/// Usage errors of `sum` and `check` exit 1 with coreutils' message, its first line word for
/// word (the program name aside), checked against the GNU tool itself.
#[test]
fn usage_errors_of_sum_and_check_are_coreutils_words_and_status() {
    let (dir, _) = fixture();
    // `parhash sum ARGS` is `sha256sum ARGS`; `parhash check ARGS` is `sha256sum -c ARGS`.
    let cases: &[&[&str]] = &[
        &["sum", "--ignore-missing", "plain"],
        &["sum", "--strict", "plain"],
        &["sum", "-w", "--quiet", "plain"],
        &["sum", "--tag", "--check", "plain"],
        &["sum", "-c", "--tag", "plain"],
        &["check", "--tag", "plain"],
        &["sum", "--tag", "--text", "plain"],
        &["sum", "--tag", "-t", "-c", "plain"],
        &["sum", "-c", "-b", "plain"],
        &["check", "-t", "plain"],
    ];
    let tool = "sha256sum";
    for ours_args in cases {
        if !require_tool(tool) {
            continue;
        }
        let their_args: Vec<&str> = match ours_args[0] {
            "check" => with_prefix(&["-c"], &ours_args[1..]),
            _ => ours_args[1..].to_vec(),
        };
        let ours = parhash(dir.path(), ours_args);
        let theirs = run_in(dir.path(), tool, &their_args, b"");
        assert_eq!(theirs.code, Some(1), "{tool} {their_args:?}: {theirs:?}");
        let first = |stderr: &str, prog: &str| {
            let line = stderr.lines().next().unwrap_or_default();
            line.strip_prefix(&format!("{prog}: "))
                .unwrap_or(line)
                .to_string()
        };
        assert_eq!(
            (ours.code, first(&ours.stderr, "parhash")),
            (theirs.code, first(&theirs.stderr, tool)),
            "{ours_args:?}"
        );
        assert!(ours.stdout.is_empty(), "{ours_args:?}");
        let subcommand = ours_args[0];
        assert!(
            ours.stderr.ends_with(&format!(
                "Try 'parhash {subcommand} --help' for more information.\n"
            )),
            "{ours:?}"
        );
    }
    // Unknown flags and algorithms, abbreviated ones included: status 1, as cksum exits.
    for args in [
        &["sum", "--no-such-flag"][..],
        &["sum", "-a", "sha22", "plain"],
        &["check", "-a", "sha22", "plain"],
        &["check", "--no-such-flag"],
    ] {
        let run = parhash(dir.path(), args);
        assert_eq!(run.code, Some(1), "{args:?}: {run:?}");
        assert!(!run.stderr.is_empty());
    }
    if require_tool("cksum") {
        let theirs = run_in(dir.path(), "cksum", &["-a", "sha22", "plain"], b"");
        assert_eq!(theirs.code, Some(1), "{theirs:?}");
    }
    // -b and -t: the last one given wins, as in coreutils (no error).
    let ours = parhash(dir.path(), &["sum", "-b", "-t", "plain"]);
    assert_eq!(ours.code, Some(0), "{ours:?}");
    assert!(ours.stdout_text().ends_with("  plain\n"), "{ours:?}");
}

/// Runs `program ARGS` through `sh -c '<setup> exec "$@" <redirections>'` (to close a
/// standard stream or ignore a signal, as a shell user would), its output read to the first
/// byte and the pipe then closed when `read_one_byte`.
fn through_shell(
    dir: &Path,
    setup: &str,
    redirections: &str,
    program: &str,
    args: &[&str],
    read_one_byte: bool,
) -> (Run, std::process::ExitStatus) {
    let script = format!("{setup} exec \"$@\" {redirections}");
    let mut child = Command::new("sh")
        .args(["-c", &script, "sh", program])
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = Vec::new();
    if read_one_byte {
        let mut byte = [0u8; 1];
        stdout.read_exact(&mut byte).unwrap();
        first.push(byte[0]);
    } else {
        stdout.read_to_end(&mut first).unwrap();
    }
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let run = Run {
        stdout: first,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
    };
    (run, out.status)
}

/// Arguments for far more output than a pipe buffer holds, so a write after the reader quits
/// fails.
fn many_plain(prefix: &[&'static str]) -> Vec<&'static str> {
    let mut args = prefix.to_vec();
    args.extend(std::iter::repeat_n("plain", 20_000));
    args
}

/// A reader that goes away kills parhash with SIGPIPE, as it kills md5sum (status 141 in a
/// shell): no success claimed for output nobody read.
#[test]
fn closed_pipe_kills_with_sigpipe_as_coreutils() {
    use std::os::unix::process::ExitStatusExt;
    let (dir, _) = fixture();
    let parhash_bin = env!("CARGO_BIN_EXE_parhash");
    let (ours, status) = through_shell(
        dir.path(),
        "",
        "",
        parhash_bin,
        &many_plain(&["sum", "-a", "md5"]),
        true,
    );
    assert_eq!(status.signal(), Some(libc::SIGPIPE), "{ours:?}");
    assert_eq!(ours.stderr, "");
    if require_tool("md5sum") {
        let (theirs, status) = through_shell(dir.path(), "", "", "md5sum", &many_plain(&[]), true);
        assert_eq!(status.signal(), Some(libc::SIGPIPE), "{theirs:?}");
    }
}

/// With SIGPIPE ignored by the parent (`trap '' PIPE`), the failed write is reported and the
/// exit status is 1, as with md5sum.
#[test]
fn closed_pipe_with_sigpipe_ignored_is_a_write_error() {
    let (dir, _) = fixture();
    let parhash_bin = env!("CARGO_BIN_EXE_parhash");
    let ignore = "trap '' PIPE;";
    for prefix in [&["sum", "-a", "md5"][..], &["sum", "-a", "md5", "-j", "1"]] {
        let (ours, _) = through_shell(
            dir.path(),
            ignore,
            "",
            parhash_bin,
            &many_plain(prefix),
            true,
        );
        assert_eq!(ours.code, Some(1), "{ours:?}");
        assert_eq!(ours.stderr, "parhash: write error: Broken pipe\n");
    }
    if require_tool("md5sum") {
        let (theirs, _) = through_shell(dir.path(), ignore, "", "md5sum", &many_plain(&[]), true);
        assert_eq!(theirs.code, Some(1), "{theirs:?}");
        assert!(
            theirs.stderr.starts_with("md5sum: write error"),
            "{theirs:?}"
        );
    }
}

/// A standard input or output the parent closed (`<&-`, `>&-`) fails as in sha256sum (Rust's
/// runtime would otherwise put /dev/null there: empty input, output lost, status 0).
#[test]
fn closed_standard_streams_fail_as_in_coreutils() {
    let (dir, _) = fixture();
    let parhash_bin = env!("CARGO_BIN_EXE_parhash");
    fs::write(
        dir.path().join("stdin.sha256"),
        format!("{}  -\n", parhash::hash(Algorithm::Sha256, b"").to_hex()),
    )
    .unwrap();
    // (parhash args, sha256sum args, redirections, first line of standard error)
    let cases: &[(&[&str], &[&str], &str, &str)] = &[
        (&["sum"], &[], "<&-", "-: Bad file descriptor"),
        (
            &["sum", "plain", "-"],
            &["plain", "-"],
            "<&-",
            "-: Bad file descriptor",
        ),
        (
            &["sum", "-a", "parsha256", "-"],
            &["-"],
            "<&-",
            "-: Bad file descriptor",
        ),
        (&["check"], &["-c"], "<&-", "'standard input': read error"),
        (
            &["check", "stdin.sha256"],
            &["-c", "stdin.sha256"],
            "<&-",
            "-: Bad file descriptor",
        ),
        (
            &["sum", "plain"],
            &["plain"],
            ">&-",
            "write error: Bad file descriptor",
        ),
        (
            &["sum", "plain", "empty"],
            &["plain", "empty"],
            ">&-",
            "write error: Bad file descriptor",
        ),
        (
            &["check", "stdin.sha256"],
            &["-c", "stdin.sha256"],
            ">&- <empty",
            "write error: Bad file descriptor",
        ),
    ];
    for (ours_args, their_args, redirections, message) in cases {
        let (ours, _) = through_shell(dir.path(), "", redirections, parhash_bin, ours_args, false);
        assert_eq!(ours.code, Some(1), "{ours_args:?} {redirections}: {ours:?}");
        let first = ours.stderr.lines().next().unwrap_or_default();
        assert_eq!(
            first,
            format!("parhash: {message}"),
            "{ours_args:?} {redirections}"
        );
        if require_tool("sha256sum") {
            let (theirs, _) =
                through_shell(dir.path(), "", redirections, "sha256sum", their_args, false);
            assert_eq!(
                theirs.code,
                Some(1),
                "{their_args:?} {redirections}: {theirs:?}"
            );
            let first = theirs.stderr.lines().next().unwrap_or_default();
            assert_eq!(
                first,
                format!("sha256sum: {message}"),
                "{their_args:?} {redirections}"
            );
        }
    }
    // Nothing written, nothing lost: --status on a closed standard output succeeds.
    let (ours, _) = through_shell(
        dir.path(),
        "",
        ">&- <empty",
        parhash_bin,
        &["check", "--status", "stdin.sha256"],
        false,
    );
    assert_eq!((ours.code, ours.stderr.as_str()), (Some(0), ""));
}

/// Runs `program ARGS` with standard input a pipe that stays open until the first `records`
/// output records (ending with `delimiter`) have been read: they must come out while the program
/// still waits for the rest of its input. Then `stdin` is written and closed; returns the first
/// records and the whole output. A program that holds finished lines back would wait forever:
/// a watchdog kills it after two minutes so that the test fails instead of hanging.
fn first_records_before_stdin_ends(
    dir: &Path,
    program: &str,
    args: &[&str],
    records: usize,
    delimiter: u8,
    stdin: &[u8],
) -> (Vec<u8>, Run) {
    use std::io::BufRead;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let mut child = spawn_in(dir, "C.UTF-8", program, args);
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (done, pid) = (done.clone(), child.id().to_string());
        std::thread::spawn(move || {
            for _ in 0..1200 {
                if done.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            // The shell's own `kill` (no procps needed).
            let _ = Command::new("sh")
                .args(["-c", &format!("kill -9 {pid}")])
                .status();
        })
    };
    let mut input = child.stdin.take().unwrap();
    let mut output = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = Vec::new();
    for _ in 0..records {
        output.read_until(delimiter, &mut first).unwrap();
    }
    input.write_all(stdin).unwrap();
    drop(input);
    let mut rest = first.clone();
    output.read_to_end(&mut rest).unwrap();
    let out = child.wait_with_output().unwrap();
    done.store(true, Ordering::Relaxed);
    watchdog.join().unwrap();
    let run = Run {
        stdout: rest,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
    };
    (first, run)
}

/// Finished lines are handed on at once, in order, while parhash still works on a later input
/// (standard input that has not ended yet): a reader downstream sees them without waiting for
/// parhash to finish. The output as a whole is sha256sum's.
#[test]
fn finished_lines_are_handed_on_while_later_input_is_pending() {
    let (dir, _) = fixture();
    let parhash_bin = env!("CARGO_BIN_EXE_parhash");
    let mut many: Vec<&str> = vec!["plain"; 5000];
    many.push("-");
    fs::write(
        dir.path().join("LIST"),
        format!(
            "{0}  plain\n{0}  -\n",
            parhash::hash(Algorithm::Sha256, b"hello\n").to_hex()
        ),
    )
    .unwrap();
    // (parhash args, sha256sum args, records to read first, record delimiter)
    let cases: Vec<(Vec<&str>, Vec<&str>, usize, u8)> = vec![
        (vec!["sum", "plain", "-"], vec!["plain", "-"], 1, b'\n'),
        (
            vec!["sum", "-z", "plain", "-"],
            vec!["-z", "plain", "-"],
            1,
            0,
        ),
        (
            vec!["sum", "-a", "parsha256", "plain", "-"],
            vec![],
            1,
            b'\n',
        ),
        (with_prefix(&["sum"], &many), many.clone(), 5000, b'\n'),
        (vec!["check", "LIST"], vec!["-c", "LIST"], 1, b'\n'),
    ];
    for (ours_args, their_args, records, delimiter) in cases {
        let stdin = b"hello\n";
        let (first, ours) = first_records_before_stdin_ends(
            dir.path(),
            parhash_bin,
            &ours_args,
            records,
            delimiter,
            stdin,
        );
        assert_eq!(ours.code, Some(0), "{ours_args:?}: {}", ours.stderr);
        assert!(ours.stdout.starts_with(&first));
        assert_eq!(first.iter().filter(|&&b| b == delimiter).count(), records);
        if their_args.is_empty() || !require_tool("sha256sum") {
            continue;
        }
        // The control's output (sha256sum, which holds -z lines back, run to its end).
        let theirs = run_in(dir.path(), "sha256sum", &their_args, stdin);
        assert_eq!(ours.stdout, theirs.stdout, "{ours_args:?}");
    }
    // `check -z` (which sha256sum does not have) flushes each NUL-terminated report too.
    fs::write(
        dir.path().join("LIST0"),
        fs::read(dir.path().join("LIST"))
            .unwrap()
            .iter()
            .map(|&b| if b == b'\n' { 0 } else { b })
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let (first, ours) = first_records_before_stdin_ends(
        dir.path(),
        parhash_bin,
        &["check", "-z", "LIST0"],
        1,
        0,
        b"hello\n",
    );
    assert_eq!(
        (first.as_slice(), ours.code),
        (&b"plain: OK\0"[..], Some(0))
    );
    assert_eq!(ours.stdout, b"plain: OK\0-: OK\0");
}

/// Files of /proc and /sys say 0 bytes whatever they hold: every algorithm (PARSHA-256, which
/// needs the length first, included) hashes what reading them gives, as when piped in.
#[test]
fn proc_files_hash_as_their_piped_content() {
    let dir = tempfile::tempdir().unwrap();
    let proc_file = "/proc/version";
    let Ok(content) = fs::read(proc_file) else {
        eprintln!("skipped: no {proc_file}");
        return;
    };
    assert_eq!(
        fs::metadata(proc_file).unwrap().len(),
        0,
        "not a 0-byte /proc file"
    );
    for alg in ["parsha256", "sandstorm256", "sha256"] {
        let piped = parhash_stdin(dir.path(), &["sum", "-a", alg], &content);
        assert_eq!(piped.code, Some(0), "{alg}: {piped:?}");
        let digest = piped
            .stdout_text()
            .strip_suffix("  -\n")
            .unwrap()
            .to_string();
        let named = parhash(dir.path(), &["sum", "-a", alg, proc_file]);
        assert_eq!((named.code, named.stderr.as_str()), (Some(0), ""), "{alg}");
        assert_eq!(
            named.stdout_text(),
            format!("{digest}  {proc_file}\n"),
            "{alg}"
        );
        // Through the many-files engine too.
        let twice = parhash(dir.path(), &["sum", "-a", alg, proc_file, proc_file]);
        assert_eq!(
            twice.stdout_text(),
            format!("{digest}  {proc_file}\n").repeat(2),
            "{alg}"
        );
    }
}

#[test]
fn full_disk_on_stdout_is_a_write_error() {
    let (dir, _) = fixture();
    let Ok(full) = fs::OpenOptions::new().write(true).open("/dev/full") else {
        eprintln!("skipped: no /dev/full");
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_parhash"))
        .args(["sum", "-a", "md5", "plain"])
        .current_dir(dir.path())
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "parhash: write error: No space left on device\n"
    );
}

// ---- round trips with coreutils ----

#[test]
fn parhash_sum_output_checks_with_coreutils() {
    let (dir, names) = fixture();
    for (alg, tool) in tool_pairs() {
        for flags in [&[][..], &["--tag"], &["-b"]] {
            let list = parhash(
                dir.path(),
                &with_prefix(&[&["sum", "-a", alg], flags].concat(), &names),
            );
            fs::write(dir.path().join("LIST"), &list.stdout).unwrap();
            let theirs = run_in(dir.path(), tool, &["-c", "LIST"], b"");
            assert_eq!(theirs.code, Some(0), "{alg} {flags:?}: {theirs:?}");
            assert_eq!(theirs.stdout_text().matches(": OK").count(), names.len());
            let ours = parhash(dir.path(), &["check", "LIST"]);
            assert_eq!(ours.stdout_text(), theirs.stdout_text(), "{alg} {flags:?}");
            assert_eq!(ours.code, Some(0));
        }
    }
}

#[test]
fn coreutils_output_checks_with_parhash() {
    let (dir, names) = fixture();
    for (alg, tool) in tool_pairs() {
        for flags in [&[][..], &["--tag"], &["-b"]] {
            let list = run_in(dir.path(), tool, &with_prefix(flags, &names), b"");
            fs::write(dir.path().join("LIST"), &list.stdout).unwrap();
            let theirs = run_in(dir.path(), tool, &["-c", "LIST"], b"");
            for check in [
                &["check", "-a", alg][..],
                &["check"],
                &["sum", "-c"],
                &["sum", "-c", "-a", alg],
            ] {
                let ours = parhash(dir.path(), &[check, &["LIST"]].concat());
                assert_eq!(
                    ours.stdout_text(),
                    theirs.stdout_text(),
                    "{alg} {flags:?} {check:?}"
                );
                assert_eq!((ours.code, ours.stderr.as_str()), (Some(0), ""));
            }
            // The list on standard input.
            let ours = parhash_stdin(dir.path(), &["check", "-a", alg], &list.stdout);
            assert_eq!(
                ours.stdout_text(),
                theirs.stdout_text(),
                "{alg} {flags:?} stdin"
            );
        }
    }
}

// ---- check: flags and messages against coreutils ----

/// A list with one good line, one bad digest, one missing file, one malformed line, a
/// comment and an empty line, in the tool's own format.
fn mixed_list(dir: &Path, tool: &str, tag: bool) -> PathBuf {
    let flags: &[&str] = if tag { &["--tag"] } else { &[] };
    let good = run_in(
        dir,
        tool,
        &with_prefix(flags, &["plain", "with space"]),
        b"",
    )
    .stdout_text();
    let missing = run_in(dir, tool, &with_prefix(flags, &["empty"]), b"")
        .stdout_text()
        .replace("empty", "gone");
    let mut lines: Vec<String> = good.lines().map(str::to_string).collect();
    // Corrupt the digest of the second line.
    let corrupt = if tag { lines[1].len() - 1 } else { 0 };
    let flipped = if lines[1].as_bytes()[corrupt] == b'0' {
        "1"
    } else {
        "0"
    };
    lines[1].replace_range(corrupt..corrupt + 1, flipped);
    let text = format!(
        "# a comment\n{}\n\n{}\nnot a checksum line\n{}\n",
        lines[0],
        lines[1],
        missing.trim_end()
    );
    let path = dir.join(if tag { "MIXED.tag" } else { "MIXED" });
    fs::write(&path, text).unwrap();
    path
}

#[test]
fn check_flags_behave_as_coreutils() {
    let (dir, _) = fixture();
    for (alg, tool) in tool_pairs() {
        for tag in [false, true] {
            let list = mixed_list(dir.path(), tool, tag);
            let list = list.file_name().unwrap().to_str().unwrap();
            for flags in [
                &[][..],
                &["--quiet"],
                &["--status"],
                &["--strict"],
                &["-w"],
                &["--warn", "--quiet"],
                &["--quiet", "-w"],
                &["-w", "--status"],
                &["--status", "-w"],
                &["--ignore-missing"],
                &["--ignore-missing", "--strict"],
                &["--status", "--strict"],
            ] {
                let theirs = run_in(dir.path(), tool, &[&["-c"], flags, &[list]].concat(), b"");
                let ours = parhash(
                    dir.path(),
                    &[&["check", "-a", alg], flags, &[list]].concat(),
                );
                let what = format!("{alg} tag={tag} {flags:?}");
                assert_eq!(ours.stdout_text(), theirs.stdout_text(), "{what}");
                assert_eq!(ours.code, theirs.code, "{what}");
                let expected = theirs.stderr.replace(&format!("{tool}: "), "parhash: ");
                assert_eq!(ours.stderr, expected, "{what}");
            }
        }
    }
}

/// `-w` names the algorithm as coreutils' tools do (`improperly formatted SHA256 checksum line`):
/// the one -a fixes, or without -a that of the line before (the list's own here). The report, the
/// summary and the exit status are coreutils' either way.
#[test]
fn improper_line_warnings_name_the_algorithm_fixed_by_a() {
    let (dir, _) = fixture();
    for (alg, tool) in tool_pairs() {
        let good = run_in(dir.path(), tool, &["plain"], b"").stdout_text();
        fs::write(dir.path().join("BAD"), format!("{good}garbage\n{good}")).unwrap();
        // md5sum says MD5, sha1sum SHA1, sha512sum SHA512, ...
        let tag = tool.trim_end_matches("sum").to_uppercase();
        let tagged = format!("improperly formatted {tag} checksum line");
        for flags in [&["-w"][..], &["--strict", "-w"], &["--strict"]] {
            let theirs = run_in(dir.path(), tool, &[&["-c"], flags, &["BAD"]].concat(), b"");
            let expected = theirs.stderr.replace(&format!("{tool}: "), "parhash: ");
            let warns = flags.contains(&"-w");
            assert_eq!(
                expected.contains(&format!("parhash: BAD: 2: {tagged}\n")),
                warns,
                "{tool} {flags:?}: {expected}"
            );
            for check in [
                &["check", "-a", alg][..],
                &["sum", "-c", "-a", alg],
                &["check"],
                &["sum", "-c"],
            ] {
                let ours = parhash(dir.path(), &[check, flags, &["BAD"]].concat());
                let what = format!("{check:?} {flags:?}");
                assert_eq!(ours.stdout_text(), theirs.stdout_text(), "{what}");
                assert_eq!(ours.code, theirs.code, "{what}");
                assert_eq!(ours.stderr, expected, "{what}");
            }
        }
    }
}

/// Without -a, `-w` names SHA256 before any checksum line, as sha256sum does, and after one the
/// algorithm of the line before, as `cksum -c` does in a list of several algorithms.
#[test]
fn improper_line_warnings_without_a_name_the_algorithm_as_coreutils() {
    let (dir, _) = fixture();
    let tool_line = |tool: &str, flags: &[&str]| {
        run_in(dir.path(), tool, &with_prefix(flags, &["plain"]), b"").stdout_text()
    };
    let cases = [
        (
            "sha256sum",
            format!("garbage\n{}garbage\n", tool_line("sha256sum", &[])),
            vec![&["check", "-w"][..], &["sum", "-c", "-w"]],
        ),
        (
            "cksum",
            format!(
                "{}garbage\n{}garbage\n",
                tool_line("md5sum", &["--tag"]),
                tool_line("sha512sum", &["--tag"])
            ),
            vec![&["check", "-w"][..]],
        ),
    ];
    for (tool, list, ours_args) in cases {
        if !require_tool(tool) || !require_tool("md5sum") || !require_tool("sha512sum") {
            continue;
        }
        fs::write(dir.path().join("LIST"), &list).unwrap();
        let theirs = run_in(dir.path(), tool, &["-c", "-w", "LIST"], b"");
        assert!(theirs.stderr.contains("improperly formatted"), "{theirs:?}");
        for args in ours_args {
            let ours = parhash(dir.path(), &with_prefix(args, &["LIST"]));
            assert_eq!(ours.stdout_text(), theirs.stdout_text(), "{args:?}");
            assert_eq!(ours.code, theirs.code, "{args:?}");
            let expected = theirs.stderr.replace(&format!("{tool}: "), "parhash: ");
            assert_eq!(ours.stderr, expected, "{args:?}");
        }
    }
}

/// A NUL byte in a listed name ends the name, as C strings end in coreutils (`NAME\0junk` checks
/// NAME); in an escaped (`\`) line it makes the line improperly formatted.
#[test]
fn nul_in_a_listed_name_cuts_the_name_as_coreutils() {
    let (dir, _) = fixture();
    if !require_tool("sha256sum") {
        return;
    }
    let digest = parhash::hash(Algorithm::Sha256, b"hello\n").to_hex();
    let lists: Vec<(&str, Vec<u8>)> = vec![
        ("gnu", format!("{digest}  plain\0junk\n").into_bytes()),
        (
            "bsd",
            format!("SHA256 (plain\0junk) = {digest}\n").into_bytes(),
        ),
        (
            "escaped",
            format!("\\{digest}  pl\\\\ain\0junk\n").into_bytes(),
        ),
        ("wrong", format!("{digest}  empty\0plain\n").into_bytes()),
    ];
    for (what, list) in lists {
        fs::write(dir.path().join("LIST"), &list).unwrap();
        let theirs = run_in(dir.path(), "sha256sum", &["-c", "LIST"], b"");
        let ours = parhash(dir.path(), &["check", "LIST"]);
        assert_eq!(ours.stdout, theirs.stdout, "{what}: {ours:?} {theirs:?}");
        assert_eq!(ours.code, theirs.code, "{what}");
        let expected = theirs.stderr.replace("sha256sum: ", "parhash: ");
        // Where the algorithm was assumed from the length, a note after coreutils' words says so.
        let (notes, rest): (Vec<&str>, Vec<&str>) = ours
            .stderr
            .split_inclusive('\n')
            .partition(|line| line.starts_with("parhash: note: "));
        assert_eq!(rest.concat(), expected, "{what}");
        assert_eq!(
            notes.len(),
            usize::from(what == "wrong"),
            "{what}: {notes:?}"
        );
    }
}

#[test]
fn check_edge_cases_behave_as_coreutils() {
    let (dir, _) = fixture();
    fs::create_dir(dir.path().join("dir")).unwrap();
    fs::write(dir.path().join("EMPTY"), b"").unwrap();
    fs::write(dir.path().join("GARBAGE"), b"garbage\nmore garbage\n").unwrap();
    for (alg, tool) in tool_pairs() {
        let good = run_in(dir.path(), tool, &["plain"], b"").stdout_text();
        let hex = good.split(' ').next().unwrap().to_string();
        let lists = [
            ("ALLGONE", format!("{hex}  gone\n{hex}  gone2\n")),
            ("DIRLINE", format!("{hex}  dir\n")),
            ("CRLF", good.replace('\n', "\r\n")),
            ("UPPER", good.to_uppercase().replace("PLAIN", "plain")),
            ("NOMARK", good.replacen("  ", " ", 1)),
            ("MIXMARK", format!("{}{good}", good.replacen("  ", " ", 1))),
            ("TWOBAD", format!("{good}x\ny\n")),
        ];
        for (name, text) in &lists {
            fs::write(dir.path().join(name), text).unwrap();
        }
        let cases: &[&[&str]] = &[
            &["ALLGONE"],
            &["--ignore-missing", "ALLGONE"],
            &["--ignore-missing", "--status", "ALLGONE"],
            &["DIRLINE"],
            &["CRLF"],
            &["UPPER"],
            &["NOMARK"],
            &["MIXMARK"],
            &["TWOBAD"],
            &["-w", "TWOBAD"],
            &["EMPTY"],
            &["GARBAGE"],
            &["--status", "GARBAGE"],
            &["no-such-list", "CRLF"],
            &["dir"],
        ];
        for args in cases {
            let theirs = run_in(dir.path(), tool, &with_prefix(&["-c"], args), b"");
            let ours = parhash(dir.path(), &with_prefix(&["check", "-a", alg], args));
            let what = format!("{alg} {args:?}");
            assert_eq!(ours.stdout_text(), theirs.stdout_text(), "{what}");
            assert_eq!(ours.code, theirs.code, "{what}");
            let expected = theirs.stderr.replace(&format!("{tool}: "), "parhash: ");
            assert_eq!(ours.stderr, expected, "{what}");
        }
        // A list on standard input is called 'standard input' in messages.
        let theirs = run_in(dir.path(), tool, &["-c"], b"garbage\n");
        let ours = parhash_stdin(dir.path(), &["check", "-a", alg], b"garbage\n");
        assert_eq!(
            ours.stderr,
            theirs.stderr.replace(&format!("{tool}: "), "parhash: ")
        );
        assert_eq!(ours.code, theirs.code);
    }
}

// ---- check: formats on their own ----

#[test]
fn check_reports_ok_failed_and_unreadable() {
    let (dir, _) = fixture();
    let digest = parhash::hash(Algorithm::Md5, b"hello\n").to_hex();
    let list = format!(
        "{digest}  plain\n{}  empty\nMD5 (gone) = {digest}\n",
        "0".repeat(32)
    );
    fs::write(dir.path().join("L"), list).unwrap();
    let ours = parhash(dir.path(), &["check", "L"]);
    assert_eq!(
        ours.stdout_text(),
        "plain: OK\nempty: FAILED\ngone: FAILED open or read\n"
    );
    assert_eq!(
        ours.stderr,
        "parhash: gone: No such file or directory\n\
         parhash: WARNING: 1 listed file could not be read\n\
         parhash: WARNING: 1 computed checksum did NOT match\n\
         parhash: note: 1 failed line has no algorithm tag, and md5 was assumed from its digest \
         length (32 hex digits); if the list was made with another algorithm, name it with -a \
         ALG; of that length: blake2b, blake2s, blake3, shake128, shake256, xxh128\n"
    );
    assert_eq!(ours.code, Some(1));
}

#[test]
fn weird_names_round_trip_through_sum_and_check() {
    let (dir, names) = fixture();
    let list = parhash(dir.path(), &with_prefix(&["sum", "-a", "md5"], &names));
    assert_eq!(list.code, Some(0));
    let text = list.stdout_text();
    assert!(
        text.contains("\\") && text.lines().count() == names.len(),
        "{text}"
    );
    fs::write(dir.path().join("LIST"), &list.stdout).unwrap();
    let check = parhash(dir.path(), &["check", "LIST"]);
    assert_eq!(check.code, Some(0), "{check:?}");
    assert_eq!(check.stdout_text().matches(": OK\n").count(), names.len());
    assert!(check.stdout_text().contains("\\new\\nline: OK\n"));
    assert!(check.stdout_text().contains("back\\slash: OK\n"));

    // NUL-terminated records carry names verbatim.
    let zero = parhash(
        dir.path(),
        &with_prefix(&["sum", "-z", "--tag", "-a", "md5"], &names),
    );
    assert!(!zero.stdout.contains(&b'\n') || names.iter().any(|n| n.contains('\n')));
    let check = parhash_stdin(dir.path(), &["check", "-z"], &zero.stdout);
    assert_eq!(check.code, Some(0), "{check:?}");
    let records: Vec<&[u8]> = check
        .stdout
        .split(|&b| b == 0)
        .filter(|r| !r.is_empty())
        .collect();
    assert_eq!(records.len(), names.len());
    assert!(records.iter().any(|r| *r == b"new\nline: OK"));
}

#[test]
fn check_infers_the_algorithm_from_tags_and_lengths() {
    let (dir, _) = fixture();
    let mut list = String::new();
    for (alg, _) in TOOLS.iter().filter(|(alg, _)| have_algorithm(alg)) {
        let out = parhash(dir.path(), &["sum", "-a", alg, "plain"]);
        list.push_str(&out.stdout_text());
        let out = parhash(dir.path(), &["sum", "--tag", "-a", alg, "with space"]);
        list.push_str(&out.stdout_text());
    }
    fs::write(dir.path().join("L"), &list).unwrap();
    let ours = parhash(dir.path(), &["check", "L"]);
    assert_eq!(ours.code, Some(0), "{ours:?}");
    assert_eq!(
        ours.stdout_text().matches(": OK\n").count(),
        list.lines().count()
    );
    // With -a, lines of other algorithms are improperly formatted.
    let forced = parhash(dir.path(), &["check", "-a", "md5", "--strict", "L"]);
    assert_eq!(forced.stdout_text().matches(": OK\n").count(), 2);
    let others = list.lines().count() - 2;
    if others > 0 {
        assert_eq!(forced.code, Some(1));
        assert!(
            forced.stderr.contains("improperly formatted"),
            "{}",
            forced.stderr
        );
    }
}

#[test]
fn every_algorithm_round_trips_through_sum_and_check() {
    let (dir, names) = fixture();
    // coreutils' legacy checksums print their own lines, which nothing checks (flags/cksum.rs).
    for &alg in Algorithm::ALL.iter().filter(|alg| alg.is_checkable()) {
        let name = alg.name();
        // Tags name the algorithm, so no -a is needed.
        let tagged = parhash(
            dir.path(),
            &with_prefix(&["sum", "--tag", "-a", name], &names),
        );
        assert_eq!(tagged.code, Some(0), "{name}: {tagged:?}");
        let check = parhash_stdin(dir.path(), &["check", "--quiet"], &tagged.stdout);
        assert_eq!(
            (check.code, check.stdout_text()),
            (Some(0), String::new()),
            "{name}"
        );
        // GNU lines carry only a length: -a says which algorithm.
        let plain = parhash(dir.path(), &with_prefix(&["sum", "-a", name], &names));
        let check = parhash_stdin(dir.path(), &["check", "-a", name], &plain.stdout);
        assert_eq!(check.code, Some(0), "{name}: {check:?}");
        assert_eq!(
            check.stdout_text().matches(": OK").count(),
            names.len(),
            "{name}"
        );
        // Every digest is the library's (itself tested against published vectors).
        let data = fs::read(dir.path().join("plain")).unwrap();
        let single = parhash(dir.path(), &["sum", "-a", name, "plain"]);
        let expected = format!("{}  plain\n", parhash::hash(alg, &data).to_hex());
        assert_eq!(single.stdout_text(), expected, "{name}");
    }
}

// ---- list and help ----

#[test]
fn list_shows_every_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let out = parhash(dir.path(), &["list"]);
    assert_eq!(out.code, Some(0));
    let text = out.stdout_text();
    assert!(text.contains(&parhash::lab::platform::describe()));
    for &alg in Algorithm::ALL {
        let info = alg.info();
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{} ", info.name)))
            .unwrap_or_else(|| panic!("{} not listed:\n{text}", info.name));
        assert_eq!(line.contains("BROKEN"), info.broken, "{line}");
        assert!(
            line.contains(&format!("{}-bit", info.digest_size * 8)),
            "{line}"
        );
    }
}

#[test]
fn help_names_the_default_and_the_broken_algorithms() {
    let dir = tempfile::tempdir().unwrap();
    let help = parhash(dir.path(), &["sum", "--help"]).stdout_text();
    assert!(help.contains("sha256"), "{help}");
    assert!(help.contains("MD5 and SHA-1 are BROKEN"), "{help}");
    let short = parhash(dir.path(), &["sum", "-h"]).stdout_text();
    assert!(short.contains("default: sha256"), "{short}");
    let check = parhash(dir.path(), &["check", "--help"]).stdout_text();
    assert!(check.contains("-a"), "{check}");
    assert!(check.contains("MD5 and SHA-1 are BROKEN"), "{check}");
    let top = parhash(dir.path(), &["--help"]).stdout_text();
    assert!(top.contains("MD5 and SHA-1 are BROKEN"), "{top}");
}

#[test]
fn top_level_help_says_what_each_subcommand_does() {
    let dir = tempfile::tempdir().unwrap();
    let help = parhash(dir.path(), &["--help"]).stdout_text();
    let summary = |subcommand: &str| {
        help.lines()
            .find_map(|l| l.trim_start().strip_prefix(&format!("{subcommand} ")))
            .unwrap_or_else(|| panic!("no {subcommand} line:\n{help}"))
            .trim()
            .to_string()
    };
    for subcommand in ["sum", "check", "list", "bench"] {
        assert!(!summary(subcommand).is_empty(), "{subcommand}:\n{help}");
    }
    // The summary once read "Flags of `parhash bench`" (the doc of its flag struct).
    assert!(summary("bench").starts_with("Benchmark"), "{help}");
}
