//! Where `parhash check` and GNU's checkers (coreutils 9.1: `md5sum -c`, `b2sum -c`) disagreed
//! once, each compared with the GNU tool itself: how names are quoted in messages (over
//! random names of printable, unprintable, quoting and invalid UTF-8 bytes), `--ignore-missing`
//! when no checksum matched, and b2sum's shortest reversed line (`6b ` and an empty name).
//!
//! The GNU tool is the control: a missing one skips with a message, and fails under `CI`.

use std::fs;
use std::path::Path;

mod support;
use support::{require_tool, run_in_locale, Run};

fn parhash() -> &'static str {
    env!("CARGO_BIN_EXE_parhash")
}

fn run(dir: &Path, program: &str, args: &[&str], stdin: &[u8]) -> Run {
    run_in_locale(dir, "C", program, args, stdin)
}

/// Standard error with each line's program name (`md5sum: `, `parhash: `) taken off.
fn messages(run: &Run, program: &str) -> String {
    run.stderr.replace(&format!("{program}: "), "")
}

/// The same outcome: standard output, messages, exit status.
fn assert_same(gnu: &Run, gnu_name: &str, ours: &Run, what: &str) {
    assert_eq!(
        String::from_utf8_lossy(&ours.stdout),
        String::from_utf8_lossy(&gnu.stdout),
        "stdout: {what}"
    );
    assert_eq!(
        messages(ours, "parhash"),
        messages(gnu, gnu_name),
        "stderr: {what}"
    );
    assert_eq!(ours.code, gnu.code, "status: {what}");
}

/// A small deterministic generator (xorshift64*): the same names on every run.
struct Names(u64);

impl Names {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn name(&mut self) -> Vec<u8> {
        const PIECES: &[&[u8]] = &[
            b"a",
            b" ",
            b"\n",
            b"\t",
            b"\r",
            b"\x01",
            b"\x7f",
            b"\xff",
            b"\xfe",
            b"\xc3",
            b"\xf0\x9f",
            "é".as_bytes(),
            "😀".as_bytes(),
            b"'",
            b"\"",
            b"$",
            b"~",
            b"#",
            b":",
            b"\\",
            b"!",
            b"{",
            b"}",
            b"?",
            b"=",
            b"@",
            b"%",
            b"-",
        ];
        let len = 1 + (self.next() % 6) as usize;
        let mut name: Vec<u8> = (0..len)
            .flat_map(|_| PIECES[(self.next() % PIECES.len() as u64) as usize].to_vec())
            .collect();
        if name[0] == b'-' {
            name.insert(0, b'x');
        }
        name
    }
}

/// The locale of the quoting comparison: parhash reads names as UTF-8 where they are valid, as
/// GNU does in a UTF-8 locale (in the C locale GNU escapes every byte above 127).
const UTF8: &str = "C.UTF-8";

#[cfg(unix)]
#[test]
fn names_in_messages_are_quoted_as_md5sum_quotes_them() {
    use std::os::unix::ffi::OsStrExt;
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut names = Names(0x9e37_79b9_7f4a_7c15);
    // The run from the issue first, then random names; none of them exists.
    let mut all = vec![b"\xff\xfe".to_vec(), b"a\n\tb".to_vec(), b"a'\n".to_vec()];
    all.extend((0..300).map(|_| names.name()));
    let mut compared = 0;
    for name in &all {
        let arg = std::ffi::OsStr::from_bytes(name);
        let gnu = std::process::Command::new("md5sum")
            .arg("--")
            .arg(arg)
            .current_dir(dir.path())
            .env("LC_ALL", UTF8)
            .output()
            .unwrap();
        let ours = std::process::Command::new(parhash())
            .args(["sum", "-a", "md5", "--"])
            .arg(arg)
            .current_dir(dir.path())
            .env("LC_ALL", UTF8)
            .output()
            .unwrap();
        let gnu = String::from_utf8_lossy(&gnu.stderr).replace("md5sum: ", "");
        let ours = String::from_utf8_lossy(&ours.stderr).replace("parhash: ", "");
        assert!(gnu.ends_with(": No such file or directory\n"), "{gnu}");
        assert_eq!(ours, gnu, "name {:?}", String::from_utf8_lossy(name));
        compared += 1;
    }
    assert_eq!(compared, all.len());
}

#[test]
fn ignore_missing_with_nothing_matched_says_no_file_was_verified() {
    if !require_tool("md5sum") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a"), "abc").unwrap();
    fs::create_dir(dir.path().join("d")).unwrap();
    let abc = "900150983cd24fb0d6963f7d28e17f72";
    let zeros = "00000000000000000000000000000000";
    let lists = [
        // A mismatch only: a file was read, but no checksum matched.
        format!("{zeros}  a\n"),
        // A mismatch and a missing file.
        format!("{zeros}  a\n{abc}  gone\n"),
        // An unreadable one (a directory).
        format!("{abc}  d\n"),
        // Missing only.
        format!("{abc}  gone\n"),
        // One match: verified.
        format!("{abc}  a\n{abc}  gone\n"),
    ];
    for list in &lists {
        fs::write(dir.path().join("SUMS"), list).unwrap();
        for extra in [&[][..], &["--quiet"], &["--status"]] {
            let args: Vec<&str> = ["-c", "--ignore-missing"]
                .into_iter()
                .chain(extra.iter().copied())
                .chain(["SUMS"])
                .collect();
            let gnu = run(dir.path(), "md5sum", &args, b"");
            let mut ours_args = vec!["check", "-a", "md5"];
            ours_args.extend(&args[1..]);
            let ours = run(dir.path(), parhash(), &ours_args, b"");
            assert_same(&gnu, "md5sum", &ours, &format!("{list:?} {extra:?}"));
        }
    }
}

#[test]
fn b2sum_takes_a_reversed_line_with_an_empty_name() {
    if !require_tool("b2sum") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a"), "abc").unwrap();
    let a8 = "6b"; // b2sum -l 8 of "abc"
    let stdin = b"some input";
    let stdin8 = {
        let out = run(dir.path(), "b2sum", &["-l", "8"], stdin);
        String::from_utf8(out.stdout).unwrap()[..2].to_string()
    };
    let lists = [
        // The shortest line b2sum takes: two hex digits, a blank, nothing more.
        "43 \n".to_string(),
        "\\43 \n".to_string(),
        // It switches the list to the reversed form: `HEX  -` then names ` -`.
        format!("43 \n{stdin8}  -\n"),
        format!("43 \n{a8} a\n"),
        // The other way round: a marked line first, then the short one is improper.
        format!("{a8}  a\n43 \n"),
        format!("{a8}  \n"),
        format!("{a8} *\n"),
        "4 \n".to_string(),
    ];
    for list in &lists {
        fs::write(dir.path().join("SUMS"), list).unwrap();
        for extra in [&[][..], &["-w"], &["--strict"]] {
            let args: Vec<&str> = ["-c"]
                .into_iter()
                .chain(extra.iter().copied())
                .chain(["SUMS"])
                .collect();
            let gnu = run(dir.path(), "b2sum", &args, stdin);
            let mut ours_args = vec!["check", "-a", "blake2b"];
            ours_args.extend(&args[1..]);
            let ours = run(dir.path(), parhash(), &ours_args, stdin);
            assert_same(&gnu, "b2sum", &ours, &format!("{list:?} {extra:?}"));
        }
    }
    // md5sum (a fixed length) still wants a name of at least one byte.
    if require_tool("md5sum") {
        let abc = "900150983cd24fb0d6963f7d28e17f72";
        fs::write(dir.path().join("SUMS"), format!("{abc} \n")).unwrap();
        let gnu = run(dir.path(), "md5sum", &["-c", "-w", "SUMS"], b"");
        let ours = run(
            dir.path(),
            parhash(),
            &["check", "-a", "md5", "-w", "SUMS"],
            b"",
        );
        assert_same(&gnu, "md5sum", &ours, "md5 HEX and a blank");
    }
}
