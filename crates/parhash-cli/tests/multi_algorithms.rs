//! `parhash sum` with several algorithms (`-a md5,sha256,...`): every output form equals the
//! single-algorithm runs byte for byte (BSD lines on standard output, one list per algorithm
//! with `--lists`, JSON records), over many files of mixed sizes with odd names and errors (a
//! missing file is one error, not one per algorithm); the lists verify with coreutils'
//! `md5sum -c`, `sha1sum -c`, `sha256sum -c`, `sha512sum -c`, `b2sum -c`, the BSD lines with
//! `cksum -c`; a file that changes while it is read fails in every list.

mod support;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Output};

use support::{parhash_in, require_tool, run_in_locale, succeeded};

fn parhash(dir: &Path, args: &[&OsStr]) -> Output {
    parhash_in(dir, args, &[])
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// The command line `parhash ARGS... NAMES...`.
fn args<'a>(flags: &[&'a str], names: &'a [Vec<u8>]) -> Vec<&'a OsStr> {
    let flags = flags.iter().map(|f| os(f));
    flags
        .chain(names.iter().map(|n| OsStr::from_bytes(n)))
        .collect()
}

/// Many files of mixed sizes (most of them small, for the lanes; a few across pieces), names
/// with spaces, newlines, backslashes, carriage returns and invalid UTF-8, and among them a
/// missing file and a directory: their names, in command-line order.
fn tree(dir: &Path, count: usize) -> Vec<Vec<u8>> {
    let mut names: Vec<Vec<u8>> = Vec::new();
    for i in 0..count {
        let len = match i % 400 {
            17 => (3 << 20) + i,
            101 => (64 << 10) + 1,
            _ => (i * 7919) % 5000,
        };
        let data: Vec<u8> = (0..len).map(|j| (j * 31 + i) as u8).collect();
        let name: Vec<u8> = match i % 100 {
            3 => format!("new\nline{i}").into_bytes(),
            5 => format!("back\\slash{i}").into_bytes(),
            7 => format!("carriage\rreturn{i}").into_bytes(),
            9 => [b"latin1-\xe9-".as_slice(), i.to_string().as_bytes()].concat(),
            11 => format!("with space {i}").into_bytes(),
            _ => format!("f{i}").into_bytes(),
        };
        fs::write(dir.join(OsStr::from_bytes(&name)), &data).unwrap();
        names.push(name);
        if i % 250 == 40 {
            names.push(b"missing".to_vec());
        }
        if i == 500 {
            fs::create_dir(dir.join("a dir")).unwrap();
            names.push(b"a dir".to_vec());
        }
    }
    names
}

/// The BSD tag `parhash sum --tag -a ALG` writes (`SHA256`, `BLAKE2b`).
fn tag_of(dir: &Path, alg: &str) -> String {
    fs::write(dir.join("tag-probe"), b"").unwrap();
    let out = parhash(
        dir,
        &[os("sum"), os("--tag"), os("-a"), os(alg), os("tag-probe")],
    );
    let line = String::from_utf8(out.stdout).unwrap();
    line.split(" (").next().unwrap().to_string()
}

/// The lines of `output` (`terminator`-ended) that belong to `tag`, in order.
fn lines_of(output: &[u8], tag: &str, terminator: u8) -> Vec<u8> {
    let prefix = format!("{tag} (");
    output
        .split_inclusive(|&b| b == terminator)
        .filter(|line| {
            let line = line.strip_prefix(b"\\").unwrap_or(line);
            line.starts_with(prefix.as_bytes())
        })
        .flatten()
        .copied()
        .collect()
}

const ALL: [&str; 5] = ["md5", "sha1", "sha256", "sha512", "blake2b"];

/// Every pair (both orders), a triple, and all five.
fn combinations() -> Vec<Vec<&'static str>> {
    let mut combos: Vec<Vec<&str>> = Vec::new();
    for a in ALL {
        for b in ALL {
            if a != b {
                combos.push(vec![a, b]);
            }
        }
    }
    combos.push(vec!["sha512", "md5", "sha256"]);
    combos.push(ALL.to_vec());
    combos
}

#[test]
fn bsd_lines_equal_the_single_algorithm_runs() {
    let dir = tempfile::tempdir().unwrap();
    let names = tree(dir.path(), 1200);
    let singles: BTreeMap<&str, Output> = ALL
        .iter()
        .map(|&alg| {
            let out = parhash(dir.path(), &args(&["sum", "--tag", "-a", alg], &names));
            (alg, out)
        })
        .collect();
    let tags: BTreeMap<&str, String> = ALL.iter().map(|&a| (a, tag_of(dir.path(), a))).collect();
    for combo in combinations() {
        let list = combo.join(",");
        for threads in ["1", "2", "3"] {
            let out = parhash(
                dir.path(),
                &args(&["sum", "-j", threads, "-a", &list], &names),
            );
            let what = format!("-a {list} -j {threads}");
            let mut lines = 0;
            for alg in &combo {
                let single = &singles[alg];
                let mine = lines_of(&out.stdout, &tags[alg], b'\n');
                assert_eq!(mine, single.stdout, "{what}: {alg}");
                lines += single.stdout.split(|&b| b == b'\n').count() - 1;
                // Every error once, as one algorithm alone reports it.
                assert_eq!(out.stderr, single.stderr, "{what}");
                assert_eq!(out.status.code(), single.status.code(), "{what}");
            }
            assert_eq!(
                out.stdout.iter().filter(|&&b| b == b'\n').count(),
                lines,
                "{what}"
            );
        }
    }
    // Repeated -a is the same as a comma.
    let repeated = parhash(
        dir.path(),
        &args(&["sum", "-a", "md5", "-a", "sha256"], &names),
    );
    let comma = parhash(dir.path(), &args(&["sum", "-a", "md5,sha256"], &names));
    assert_eq!(repeated.stdout, comma.stdout);
}

#[test]
fn bsd_lines_verify_with_parhash_check_and_cksum() {
    let dir = tempfile::tempdir().unwrap();
    let mut names = tree(dir.path(), 300);
    // cksum -c reads no escaped name; parhash check reads both.
    let plain: Vec<Vec<u8>> = names
        .iter()
        .filter(|n| !n.iter().any(|b| b"\n\r\\".contains(b)))
        .filter(|n| n.as_slice() != b"missing" && n.as_slice() != b"a dir")
        .cloned()
        .collect();
    let out = parhash(
        dir.path(),
        &args(&["sum", "-a", "md5,sha1,sha256,sha512,blake2b"], &plain),
    );
    assert!(out.status.success());
    fs::write(dir.path().join("ALL.sums"), &out.stdout).unwrap();
    let check = parhash(dir.path(), &[os("check"), os("--quiet"), os("ALL.sums")]);
    assert_eq!((check.status.code(), check.stdout.len()), (Some(0), 0));
    if require_tool("cksum") {
        succeeded(
            Command::new("cksum")
                .args(["-c", "--quiet", "ALL.sums"])
                .current_dir(dir.path())
                .output()
                .unwrap(),
        );
    }
    names.retain(|n| n.as_slice() != b"missing" && n.as_slice() != b"a dir");
    let out = parhash(dir.path(), &args(&["sum", "-a", "sha256,md5"], &names));
    fs::write(dir.path().join("ODD.sums"), &out.stdout).unwrap();
    let check = parhash(dir.path(), &[os("check"), os("--quiet"), os("ODD.sums")]);
    assert_eq!((check.status.code(), check.stdout.len()), (Some(0), 0));
}

/// The list `--lists` writes for `alg` (the usual name).
fn list_name(alg: &str) -> &'static str {
    match alg {
        "md5" => "MD5SUMS",
        "sha1" => "SHA1SUMS",
        "sha256" => "SHA256SUMS",
        "sha512" => "SHA512SUMS",
        "blake2b" => "B2SUMS",
        other => panic!("{other}"),
    }
}

#[test]
fn lists_equal_the_single_algorithm_runs_and_verify_with_coreutils() {
    let dir = tempfile::tempdir().unwrap();
    let names = tree(dir.path(), 1200);
    let out_dir = tempfile::tempdir().unwrap();
    let out_path = out_dir.path().to_str().unwrap();
    for style in [&[][..], &["--tag"], &["-b"], &["-z"]] {
        let singles: BTreeMap<&str, Output> = ALL
            .iter()
            .map(|&alg| {
                let flags = [&["sum", "-a", alg], style].concat();
                (alg, parhash(dir.path(), &args(&flags, &names)))
            })
            .collect();
        for combo in [ALL.to_vec(), vec!["sha256", "md5"]] {
            let list = combo.join(",");
            let flags = [&["sum", "-a", &list, "--lists", out_path], style].concat();
            let out = parhash(dir.path(), &args(&flags, &names));
            let what = format!("-a {list} {style:?}");
            assert_eq!(out.stdout, b"", "{what}");
            assert_eq!(out.stderr, singles["md5"].stderr, "{what}: each error once");
            assert_eq!(out.status.code(), Some(1), "{what}");
            for alg in &combo {
                let written = fs::read(out_dir.path().join(list_name(alg))).unwrap();
                assert_eq!(written, singles[alg].stdout, "{what}: {alg}");
            }
        }
    }
    // The GNU lists (the last written with no style flag are gone: write them again) verify
    // with the coreutils tool of each algorithm, run where the files are.
    let flags = [
        "sum",
        "-a",
        "md5,sha1,sha256,sha512,blake2b",
        "--lists",
        out_path,
    ];
    parhash(dir.path(), &args(&flags, &names));
    for (tool, alg) in [
        ("md5sum", "md5"),
        ("sha1sum", "sha1"),
        ("sha256sum", "sha256"),
        ("sha512sum", "sha512"),
        ("b2sum", "blake2b"),
    ] {
        if !require_tool(tool) {
            continue;
        }
        let list = out_dir.path().join(list_name(alg));
        let verified = Command::new(tool)
            .arg("-c")
            .arg("--quiet")
            .arg(&list)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&verified.stderr);
        assert!(verified.status.success(), "{tool}: {stderr}");
        let lines = fs::read(&list)
            .unwrap()
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        let files = (names.iter())
            .filter(|n| dir.path().join(OsStr::from_bytes(n)).is_file())
            .count();
        assert_eq!(
            lines, files,
            "{tool}: every file, not the missing ones nor the dir"
        );
    }
}

#[test]
fn list_names_follow_the_template_and_may_not_clash() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), b"data\n").unwrap();
    fs::create_dir(dir.path().join("out")).unwrap();
    let flags = [
        "sum",
        "-a",
        "md5,sha3-256",
        "--lists",
        "out",
        "--list-name",
        "r1.{alg}.{name}",
        "f",
    ];
    let out = parhash(dir.path(), &flags.map(os));
    assert!(out.status.success());
    let md5 = parhash(dir.path(), &["sum", "-a", "md5", "f"].map(os));
    assert_eq!(
        fs::read(dir.path().join("out/r1.md5.MD5SUMS")).unwrap(),
        md5.stdout
    );
    assert!(dir.path().join("out/r1.sha3-256.SHA3-256SUMS").exists());
    let clash = [
        "sum",
        "-a",
        "md5,sha1",
        "--lists",
        "out",
        "--list-name",
        "SUMS",
        "f",
    ];
    let out = parhash(dir.path(), &clash.map(os));
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("two lists would be named"), "{stderr}");
}

/// A record of `sum --json -a ALG` made from one of `sum --json -a A,B,...`.
fn single_records(multi: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    let object = multi.as_object().unwrap();
    let algorithms = object["algorithms"].as_array().unwrap();
    algorithms
        .iter()
        .map(|alg| {
            let alg = alg.as_str().unwrap().to_string();
            let mut single = serde_json::Map::new();
            for key in ["path", "path_bytes"] {
                if let Some(value) = object.get(key) {
                    single.insert(key.into(), value.clone());
                }
            }
            single.insert("algorithm".into(), alg.clone().into());
            match object.get("digests") {
                Some(digests) => {
                    single.insert("digest".into(), digests[&alg].clone());
                }
                None => {
                    single.insert("error".into(), object["error"].clone());
                    single.insert("errno".into(), object["errno"].clone());
                }
            }
            (alg, serde_json::Value::Object(single))
        })
        .collect()
}

fn json_lines(bytes: &[u8]) -> Vec<serde_json::Value> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

#[test]
fn json_records_hold_what_the_single_runs_say() {
    let dir = tempfile::tempdir().unwrap();
    let names = tree(dir.path(), 800);
    let singles: BTreeMap<String, (Vec<serde_json::Value>, Output)> = ALL
        .iter()
        .map(|&alg| {
            let out = parhash(dir.path(), &args(&["sum", "--json", "-a", alg], &names));
            (alg.to_string(), (json_lines(&out.stdout), out))
        })
        .collect();
    for combo in [ALL.to_vec(), vec!["blake2b", "md5"]] {
        let list = combo.join(",");
        let out = parhash(dir.path(), &args(&["sum", "--json", "-a", &list], &names));
        let records = json_lines(&out.stdout);
        assert_eq!(records.len(), names.len(), "-a {list}: one object per file");
        let mut split: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
        for record in &records {
            for (alg, single) in single_records(record) {
                split.entry(alg).or_default().push(single);
            }
        }
        for alg in &combo {
            let (expected, single) = &singles[*alg];
            assert_eq!(&split[*alg], expected, "-a {list}: {alg}");
            assert_eq!(out.stderr, single.stderr, "-a {list}");
            assert_eq!(out.status.code(), single.status.code(), "-a {list}");
        }
    }
}

#[test]
fn standard_input_is_read_once_for_every_algorithm() {
    let dir = tempfile::tempdir().unwrap();
    let data: Vec<u8> = (0..3_000_000u32).map(|i| (i % 253) as u8).collect();
    let bin = env!("CARGO_BIN_EXE_parhash");
    let run = |args: &[&str]| run_in_locale(dir.path(), "C.UTF-8", bin, args, &data).stdout;
    let multi = run(&["sum", "-a", "md5,sha256,parsha256"]);
    let mut expected = Vec::new();
    for alg in ["md5", "sha256", "parsha256"] {
        expected.extend(run(&["sum", "--tag", "-a", alg]));
    }
    assert_eq!(multi, expected);
}

/// A file that changes size while it is read: one error, and no line for it in any list.
#[test]
fn a_file_that_changes_while_read_fails_in_every_list() {
    if !cfg!(debug_assertions) {
        return; // the resize hook exists only in debug builds
    }
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("small"), b"nobody changes me\n").unwrap();
    let big = dir.path().join("big");
    let big_len = 40usize << 20;
    fs::create_dir(dir.path().join("out")).unwrap();
    let algs = ["md5", "sha1", "sha256", "sha512"];
    for new_len in [0, 1000, big_len as u64 + 1] {
        for threads in ["1", "2"] {
            let data: Vec<u8> = (0..big_len).map(|i| (i % 251) as u8).collect();
            fs::write(&big, &data).unwrap();
            let resize = vec![(
                "PARHASH_DEBUG_RESIZE",
                format!("{new_len}:{}", big.display()),
            )];
            let flags = [
                "sum",
                "-j",
                threads,
                "-a",
                "md5,sha1,sha256,sha512",
                "--lists",
                "out",
                "small",
                "big",
            ];
            let out = parhash_in(dir.path(), &flags.map(os), &resize);
            let what = format!("{new_len} bytes, -j {threads}");
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                "parhash: big: file changed size while being read\n",
                "{what}"
            );
            assert_eq!(out.status.code(), Some(1), "{what}");
            for alg in algs {
                let single = parhash(dir.path(), &["sum", "-a", alg, "small"].map(os));
                let list = fs::read(dir.path().join("out").join(list_name(alg))).unwrap();
                assert_eq!(list, single.stdout, "{what}: {alg}");
            }
            // On standard output too: no line for it under any algorithm.
            fs::write(&big, &data).unwrap();
            let flags = ["sum", "-j", threads, "-a", "md5,sha1,sha256,sha512", "big"];
            let out = parhash_in(dir.path(), &flags.map(os), &resize);
            assert_eq!(out.stdout, b"", "{what}");
            assert_eq!(out.status.code(), Some(1), "{what}");
        }
    }
}

/// A FIFO among other files can be opened only once: the many-file engine must leave it,
/// unopened, to its turn (an earlier version opened it to look at its storage and again to
/// read it, and hung waiting for a writer that had gone), with one algorithm or several, first
/// or between regular files.
#[test]
fn a_fifo_among_other_files_is_opened_once() {
    use std::io::Write;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("plain"), b"plain file\n").unwrap();
    let data = b"through the fifo\n".repeat(500);
    let cases: [&[&str]; 4] = [
        &["fifo", "plain"],
        &["plain", "fifo", "plain"],
        &["-a", "md5,sha1", "fifo", "plain"],
        &["-a", "md5,sha1", "plain", "fifo", "plain"],
    ];
    for (round, case) in cases.iter().enumerate() {
        let fifo = dir.path().join("fifo");
        let _ = fs::remove_file(&fifo);
        assert!(Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success());
        let mut child = Command::new(env!("CARGO_BIN_EXE_parhash"))
            .arg("sum")
            .args(*case)
            .current_dir(dir.path())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let payload = data.clone();
        let writer = std::thread::spawn(move || {
            let mut end = fs::OpenOptions::new().write(true).open(fifo).unwrap();
            end.write_all(&payload).is_ok()
        });
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > Duration::from_secs(60) {
                child.kill().unwrap();
                panic!("case {round}: `parhash sum {case:?}` still waits on the FIFO after 60 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        assert!(
            writer.join().unwrap(),
            "case {round}: the writer lost its reader"
        );
        // The control: the same names with the FIFO's data in a regular file.
        fs::remove_file(dir.path().join("fifo")).unwrap();
        fs::write(dir.path().join("fifo"), &data).unwrap();
        let want = parhash_in(dir.path(), &[&["sum"], *case].concat(), &[]);
        fs::remove_file(dir.path().join("fifo")).unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "case {round}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.stdout, want.stdout, "case {round}");
    }
}

#[test]
fn lists_inside_the_walked_tree_do_not_list_themselves() {
    // `sum -r . --lists out` with out in the tree: the lists are not data (as -o's list is
    // not), so each checks clean, however often the command runs (--resume too).
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("f"), b"data\n").unwrap();
    fs::create_dir(dir.path().join("out")).unwrap();
    fs::write(dir.path().join("out/kept"), b"kept\n").unwrap();
    for resume in [false, true, false] {
        let mut flags = vec!["sum", "-r", "-a", "md5,sha256", "--lists", "out"];
        flags.extend(resume.then_some("--resume"));
        flags.push(".");
        let flags: Vec<&OsStr> = flags.into_iter().map(os).collect();
        succeeded(parhash(dir.path(), &flags));
        for list in ["MD5SUMS", "SHA256SUMS"] {
            let text = fs::read_to_string(dir.path().join("out").join(list)).unwrap();
            let names: Vec<&str> = (text.lines())
                .map(|line| line.split_once("  ").unwrap().1)
                .collect();
            assert_eq!(names, ["./f", "./out/kept"], "{list}");
        }
    }
}
