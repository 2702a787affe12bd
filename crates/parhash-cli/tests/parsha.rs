//! `parhash sum -a parsha256` end to end: parameters, `--tag` lines that record them, `check`
//! reading them back, standard input, and usage errors. The oracle is the library's literal
//! reference implementation.

use std::io::Write;
use std::process::{Command, Stdio};

use parhash::lab::algo::parsha256::reference;

fn parhash() -> Command {
    Command::new(env!("CARGO_BIN_EXE_parhash"))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn data(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 % 251) as u8).collect()
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let mut child = parhash()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    // A usage error exits before reading: a broken pipe here is expected then.
    let _ = input.write_all(stdin.unwrap_or(b""));
    drop(input);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn sum_tag_check_round_trip_with_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small");
    let big = dir.path().join("big");
    std::fs::write(&small, data(5000)).unwrap();
    // Over 1 MiB: the CLI maps it and hashes it in place.
    std::fs::write(&big, data(1_500_000)).unwrap();
    let (s, b) = (small.to_str().unwrap(), big.to_str().unwrap());
    for (t, l) in [(13u32, 256u32), (4, 0), (9, 128)] {
        let (ts, ls) = (t.to_string(), l.to_string());
        let args = [
            "sum",
            "-a",
            "parsha256",
            "--tag",
            "--tree-height",
            &ts,
            "--iv-bits",
            &ls,
            "-j",
            "2",
            s,
            b,
        ];
        let (code, out, err) = run(&args, None);
        assert_eq!(code, 0, "{err}");
        let expected: String = [(s, 5000), (b, 1_500_000)]
            .iter()
            .map(|(name, len)| {
                let (_, z) = reference::parsha256(&data(*len), t, l).unwrap();
                format!("PARSHA256-T{t}-IV{l} ({name}) = {}\n", hex(&z))
            })
            .collect();
        assert_eq!(out, expected);
        let list = dir.path().join(format!("list-{t}-{l}"));
        std::fs::write(&list, &out).unwrap();
        // check takes T and l from the tags, whatever the flags say.
        let (code, out, err) = run(
            &["check", "--tree-height", "2", list.to_str().unwrap()],
            None,
        );
        assert_eq!((code, err.as_str()), (0, ""));
        assert_eq!(out, format!("{s}: OK\n{b}: OK\n"));
        // The same digests under another tree height fail (T = 2 gives t = 2 here; a larger
        // T than the length supports would give the same t, hence the same digest).
        let tampered = std::fs::read_to_string(&list)
            .unwrap()
            .replace(&format!("-T{t}-"), "-T2-");
        std::fs::write(&list, tampered).unwrap();
        let (code, out, _) = run(&["check", list.to_str().unwrap()], None);
        assert_eq!(code, 1);
        assert!(
            out.contains("small: FAILED") && out.contains("big: FAILED"),
            "{out}"
        );
    }
}

#[test]
fn defaults_are_t13_iv256_and_stdin_is_spooled() {
    let message = data(300_000);
    let (_, z) = reference::parsha256(&message, 13, 256).unwrap();
    let (code, out, err) = run(&["sum", "-a", "parsha256"], Some(&message));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, format!("{}  -\n", hex(&z)));
    let (code, out, _) = run(&["sum", "-a", "parsha", "--tag", "-"], Some(b""));
    assert_eq!(code, 0);
    let (_, z) = reference::parsha256(b"", 13, 256).unwrap();
    assert_eq!(out, format!("PARSHA256-T13-IV256 (-) = {}\n", hex(&z)));
}

#[test]
fn bad_parameters_are_usage_errors() {
    for args in [
        &["sum", "-a", "parsha256", "--iv-bits", "64"][..],
        &["sum", "-a", "parsha256", "--tree-height", "0"],
        &["sum", "-a", "parsha256", "--tree-height", "41"],
        &["sum", "-a", "parsha256", "--tree-height", "x"],
        &["sum", "-a", "sha256", "--tree-height", "5"],
    ] {
        let (code, out, err) = run(args, Some(b"abc"));
        // Usage errors of `sum` exit 1, as in coreutils.
        assert_eq!(code, 1, "{args:?}");
        assert_eq!(out, "");
        let first = err.lines().next().unwrap();
        assert!(
            (first.starts_with("error:") || first.starts_with("parhash:"))
                && (first.contains("tree height")
                    || first.contains("IV length")
                    || first.contains("apply only to -a parsha256")),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn check_rejects_tags_with_invalid_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, b"abc").unwrap();
    let list = dir.path().join("list");
    let line = format!(
        "PARSHA256-T13-IV64 ({}) = {}\n",
        file.display(),
        "00".repeat(32)
    );
    std::fs::write(&list, line).unwrap();
    let (code, _, err) = run(&["check", list.to_str().unwrap()], None);
    assert_eq!(code, 1);
    assert!(err.contains("no properly formatted"), "{err}");
}
