//! `parhash check LIST LIST...` in one pass (each listed file read once for every list):
//! standard output, standard error and the exit status equal checking the lists one by one,
//! for every status a line can get (ok, failed, missing, unreadable, improper) and every
//! report flag (`--quiet`, `--status`, `--strict`, `--ignore-missing`, `--warn`, `--json`,
//! `-z`); a FIFO named in two lists is read once; a file that changes while it is read fails
//! in every list.

mod support;

use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::{Command, Output};

use support::succeeded;

fn parhash(dir: &Path, args: &[&str], env: &[(&str, String)]) -> Output {
    support::parhash_in(dir, args, env)
}

/// Files of mixed sizes and odd names, lists of them by several algorithms, and lines that
/// fail in every way: its directory and the lists' names.
fn release(zero: bool) -> (tempfile::TempDir, Vec<&'static str>) {
    let dir = tempfile::tempdir().unwrap();
    let mut names: Vec<Vec<u8>> = Vec::new();
    for i in 0..400usize {
        let len = match i % 150 {
            9 => (2 << 20) + i,
            _ => (i * 6007) % 4000,
        };
        let data: Vec<u8> = (0..len).map(|j| (j * 13 + i) as u8).collect();
        let name = match i % 60 {
            1 => format!("new\nline{i}").into_bytes(),
            2 => format!("back\\slash{i}").into_bytes(),
            3 => [b"latin1-\xe9-".as_slice(), i.to_string().as_bytes()].concat(),
            _ => format!("f{i}").into_bytes(),
        };
        fs::write(dir.path().join(OsStr::from_bytes(&name)), data).unwrap();
        names.push(name);
    }
    fs::create_dir(dir.path().join("a dir")).unwrap();
    let z: &[&str] = if zero { &["-z"] } else { &[] };
    let mut args: Vec<&OsStr> = ["sum", "-a", "md5,sha256,sha512,blake2b", "--lists", "."]
        .iter()
        .chain(z)
        .map(OsStr::new)
        .collect();
    args.extend(names.iter().map(|n| OsStr::from_bytes(n)));
    succeeded(support::parhash_in(dir.path(), &args, &[]));
    // The same file under another list form: BSD lines of two algorithms in one list.
    let tagged = parhash(
        dir.path(),
        &[&["sum", "-a", "sha1,sha256", "f10", "f11"], z].concat(),
        &[],
    );
    let tagged = if zero {
        tagged.stdout
    } else {
        [tagged.stdout, b"# done\n".to_vec()].concat()
    };
    fs::write(dir.path().join("TAGGED"), tagged).unwrap();
    let end = if zero { b'\0' } else { b'\n' };
    // Lines that fail: a wrong digest, a missing file, a directory, an improper line (after
    // proper ones, so that its warning names the same algorithm whichever way it is run).
    for list in ["MD5SUMS", "SHA256SUMS", "SHA512SUMS", "B2SUMS"] {
        let path = dir.path().join(list);
        let mut records: Vec<Vec<u8>> = fs::read(&path)
            .unwrap()
            .split_inclusive(|&b| b == end)
            .map(<[u8]>::to_vec)
            .collect();
        let flip = if list == "MD5SUMS" { 5 } else { 7 };
        records[flip][0] = if records[flip][0] == b'0' { b'1' } else { b'0' };
        let digest_len = records[0].iter().position(|&b| b == b' ').unwrap();
        let line = |name: &str| {
            [
                vec![b'0'; digest_len],
                format!("  {name}").into_bytes(),
                vec![end],
            ]
            .concat()
        };
        records.insert(20, line("missing"));
        records.insert(30, line("a dir"));
        records.insert(40, [b"not a checksum line".as_slice(), &[end]].concat());
        if list == "SHA512SUMS" {
            records.insert(50, line("missing"));
        }
        fs::write(&path, records.concat()).unwrap();
    }
    // A list of nothing but missing files, for --ignore-missing's "no file was verified".
    fs::write(
        dir.path().join("GONE"),
        [b"d41d8cd98f00b204e9800998ecf8427e  gone".as_slice(), &[end]].concat(),
    )
    .unwrap();
    (
        dir,
        vec![
            "MD5SUMS",
            "SHA256SUMS",
            "TAGGED",
            "SHA512SUMS",
            "B2SUMS",
            "GONE",
            "NO-SUCH-LIST",
        ],
    )
}

/// `check FLAGS LISTS` in one run against one run per list, concatenated.
fn assert_one_pass_equals_one_by_one(dir: &Path, flags: &[&str], lists: &[&str]) {
    let all = parhash(dir, &[&["check"], flags, lists].concat(), &[]);
    let (mut stdout, mut stderr, mut failed) = (Vec::new(), Vec::new(), false);
    for list in lists {
        let one = parhash(dir, &[&["check"], flags, &[list]].concat(), &[]);
        stdout.extend(one.stdout);
        stderr.extend(one.stderr);
        failed |= !one.status.success();
    }
    let what = format!("{flags:?} {lists:?}");
    assert_eq!(
        String::from_utf8_lossy(&all.stdout),
        String::from_utf8_lossy(&stdout),
        "{what}"
    );
    assert_eq!(
        String::from_utf8_lossy(&all.stderr),
        String::from_utf8_lossy(&stderr),
        "{what}"
    );
    assert_eq!(all.status.code(), Some(i32::from(failed)), "{what}");
}

#[test]
fn several_lists_in_one_pass_equal_one_by_one() {
    let (dir, lists) = release(false);
    let flag_sets: [&[&str]; 10] = [
        &[],
        &["--quiet"],
        &["--status"],
        &["--strict"],
        &["--ignore-missing"],
        &["--warn"],
        &["--warn", "--strict", "--ignore-missing"],
        &["--json"],
        &["--json", "--quiet", "--ignore-missing"],
        &["-j", "1"],
    ];
    // The lists hold every verdict (so the comparisons below compare something).
    let report = parhash(dir.path(), &[&["check"], &lists[..]].concat(), &[]);
    let report = String::from_utf8_lossy(&report.stdout);
    for verdict in [": OK\n", ": FAILED\n", ": FAILED open or read\n"] {
        assert!(report.contains(verdict), "{verdict}");
    }
    for flags in flag_sets {
        assert_one_pass_equals_one_by_one(dir.path(), flags, &lists);
        assert_one_pass_equals_one_by_one(dir.path(), flags, &lists[..2]);
    }
    // Lists that all pass: status 0.
    let ok = parhash(dir.path(), &["check", "TAGGED", "TAGGED"], &[]);
    assert_eq!(ok.status.code(), Some(0));
}

#[test]
fn nul_terminated_lists_in_one_pass_equal_one_by_one() {
    let (dir, lists) = release(true);
    for flags in [&["-z"][..], &["-z", "--quiet", "--warn"]] {
        assert_one_pass_equals_one_by_one(dir.path(), flags, &lists);
    }
}

/// A FIFO can be read only once: listed in two lists, both must find its data.
#[test]
fn a_fifo_named_in_two_lists_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let data = b"read me once\n".repeat(1000);
    fs::write(dir.path().join("plain"), &data).unwrap();
    for alg in ["md5", "sha256"] {
        let out = parhash(dir.path(), &["sum", "-a", alg, "plain"], &[]);
        let list = String::from_utf8(out.stdout)
            .unwrap()
            .replace("plain", "fifo");
        fs::write(dir.path().join(alg), list).unwrap();
    }
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let writer = std::thread::spawn(move || {
        fs::OpenOptions::new()
            .write(true)
            .open(fifo)
            .unwrap()
            .write_all(&data)
            .unwrap();
    });
    let out = parhash(dir.path(), &["check", "md5", "sha256"], &[]);
    writer.join().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "fifo: OK\nfifo: OK\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_file_that_changes_while_read_fails_in_every_list() {
    if !cfg!(debug_assertions) {
        return; // the resize hook exists only in debug builds
    }
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    let len = 40usize << 20;
    let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
    fs::write(&big, &data).unwrap();
    fs::write(dir.path().join("small"), b"small\n").unwrap();
    let lists = parhash(
        dir.path(),
        &[
            "sum",
            "-a",
            "md5,sha1,sha512",
            "--lists",
            ".",
            "small",
            "big",
        ],
        &[],
    );
    assert!(lists.status.success());
    for new_len in [0, 1000, len as u64 + 1] {
        fs::write(&big, &data).unwrap();
        let resize = [(
            "PARHASH_DEBUG_RESIZE",
            format!("{new_len}:{}", big.display()),
        )];
        let out = parhash(
            dir.path(),
            &["check", "MD5SUMS", "SHA1SUMS", "SHA512SUMS"],
            &resize,
        );
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "small: OK\nbig: FAILED open or read\n".repeat(3),
            "{new_len}"
        );
        let per_list = "parhash: big: file changed size while being read\n\
                        parhash: WARNING: 1 listed file could not be read\n";
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            per_list.repeat(3),
            "{new_len}"
        );
        assert_eq!(out.status.code(), Some(1));
    }
}

/// `check` of several lists builds each file's hasher as `check` of one list does: the BLAKE3
/// mode (`--keyed`, `--derive-key`), the line's digest length (`-l` lists) and PARSHA-256's
/// tree parameters (tag lines) all reach the one-pass engine. Each call's output equals the
/// lists checked one by one, and every line is `OK` (a dropped mode printed `FAILED`).
#[test]
fn keyed_derive_key_length_and_tree_lists_checked_together_are_checked_alone() {
    const PARHASH: &str = env!("CARGO_BIN_EXE_parhash");
    let dir = tempfile::tempdir().unwrap();
    let names = ["a", "b", "big"];
    for (i, name) in names.iter().enumerate() {
        let len = if *name == "big" {
            3 << 20
        } else {
            1000 * i + 7
        };
        let data: Vec<u8> = (0..len).map(|j| (j * 7 + i) as u8).collect();
        fs::write(dir.path().join(name), data).unwrap();
    }
    let key = b"whats the Elvish word for friend";
    let run = |args: &[&str]| support::run_in_locale(dir.path(), "C.UTF-8", PARHASH, args, key);
    let list = |list: &str, args: &[&str]| {
        let out = run(&[args, &names[..]].concat());
        assert_eq!(out.code, Some(0), "{args:?}: {}", out.stderr);
        fs::write(dir.path().join(list), &out.stdout).unwrap();
    };
    let derive = ["-a", "blake3", "--derive-key", "parhash check lists"];
    list("d1", &[&["sum"][..], &derive].concat());
    list("d2", &[&["sum", "-l", "512"][..], &derive].concat());
    list("d3", &[&["sum", "--tag"][..], &derive].concat());
    list("k1", &["sum", "-a", "blake3", "--keyed"]);
    list("k2", &["sum", "-a", "blake3", "--keyed", "-l", "384"]);
    list(
        "t1",
        &["sum", "--tag", "-a", "parsha256", "--tree-height", "13"],
    );
    let t2 = [
        "sum",
        "--tag",
        "-a",
        "parsha256",
        "--tree-height",
        "7",
        "--iv-bits",
        "128",
    ];
    list("t2", &t2);
    list("b1", &["sum", "--tag", "-a", "blake2b", "-l", "256"]);
    list("b2", &["sum", "-a", "blake2b,sha256"]);
    let cases: [(&[&str], &[&str]); 4] = [
        (&derive, &["d1", "d2", "d3"]),
        (&["-a", "blake3", "--keyed"], &["k1", "k2", "k1"]),
        (&[], &["t1", "t2"]),
        (&[], &["b1", "b2", "t1"]),
    ];
    for (flags, lists) in cases {
        let mut alone = Vec::new();
        for list in lists {
            let out = run(&[&["check"][..], flags, &[list]].concat());
            assert_eq!(out.code, Some(0), "{flags:?} {list}: {}", out.stderr);
            alone.extend_from_slice(&out.stdout);
        }
        let together = run(&[&["check"][..], flags, lists].concat());
        assert_eq!(
            together.code,
            Some(0),
            "{flags:?} {lists:?}: {}",
            together.stderr
        );
        let text = String::from_utf8(together.stdout).unwrap();
        assert_eq!(
            text,
            String::from_utf8(alone).unwrap(),
            "{flags:?} {lists:?}"
        );
        assert!(!text.contains("FAILED"), "{text}");
        let lines = lists.len() * names.len() + if lists == ["b1", "b2", "t1"] { 3 } else { 0 };
        assert_eq!(text.matches(": OK\n").count(), lines, "{text}");
    }
}

/// Peak resident set a `check` or `sum` of this kind stays under (KiB): what the process needs
/// besides the list's records and the hashers' trees, with room to spare.
#[cfg(target_os = "linux")]
const BOUNDED_KIB: u64 = 32 << 10;

#[cfg(target_os = "linux")]
fn watched(dir: &Path, args: &[&str]) -> support::Watched {
    support::parhash_watched(dir, args, std::time::Duration::from_secs(60))
}

/// A line with PARSHA-256's T = 40 for a 1 GiB file made the streaming hasher build a tree
/// of height 23 (about 1.5 GiB); it is refused as that line's failure, in little memory, and
/// `sum` refuses the same tree alike.
#[cfg(target_os = "linux")]
#[test]
fn a_tree_too_tall_to_stream_fails_its_line_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("small"), vec![7u8; 5000]).unwrap();
    // Sparse: 1 GiB of zeros on no disk.
    let big = fs::File::create(dir.path().join("big")).unwrap();
    big.set_len(1 << 30).unwrap();
    let small_line = parhash(
        dir.path(),
        &[
            "sum",
            "-a",
            "parsha256",
            "--tree-height",
            "40",
            "--tag",
            "small",
        ],
        &[],
    );
    assert!(small_line.status.success());
    let mut list = small_line.stdout.clone();
    list.extend_from_slice(format!("PARSHA256-T40-IV256 (big) = {}\n", "0".repeat(64)).as_bytes());
    fs::write(dir.path().join("list"), &list).unwrap();
    let run = watched(dir.path(), &["check", "list"]);
    let stderr = String::from_utf8_lossy(&run.output.stderr);
    assert_eq!(run.output.status.code(), Some(1), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&run.output.stdout),
        "small: OK\nbig: FAILED open or read\n"
    );
    assert!(
        stderr.contains("big: PARSHA-256 tree of height 23 needs about 1552 MiB"),
        "{stderr}"
    );
    assert!(run.peak_kib < BOUNDED_KIB, "peak {} KiB", run.peak_kib);

    let run = watched(
        dir.path(),
        &["sum", "-a", "parsha256", "--tree-height", "40", "big"],
    );
    let stderr = String::from_utf8_lossy(&run.output.stderr);
    assert_eq!(run.output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("tree of height 23"), "{stderr}");
    assert!(run.peak_kib < BOUNDED_KIB, "peak {} KiB", run.peak_kib);
}

/// A list's line longer than `record::MAX_RECORD_BYTES` is improperly formatted and never
/// held: the lines around it are checked, and the memory stays small, for one list and for
/// several in one pass.
#[cfg(target_os = "linux")]
#[test]
fn an_over_long_line_is_improper_and_never_held() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a"), b"a\n").unwrap();
    fs::write(dir.path().join("b"), b"b\n").unwrap();
    let lines = parhash(dir.path(), &["sum", "a", "b"], &[]);
    let text = String::from_utf8(lines.stdout).unwrap();
    let (first, second) = text.split_once('\n').unwrap();
    let mut list = format!("{first}\n").into_bytes();
    // 50 MiB: a digest and a name made long.
    list.extend_from_slice(&vec![b'f'; 50 << 20]);
    list.extend_from_slice(b"  b\n");
    list.extend_from_slice(second.as_bytes());
    fs::write(dir.path().join("list"), &list).unwrap();
    fs::write(dir.path().join("list2"), first.to_string() + "\n").unwrap();
    let expected = "a: OK\nb: OK\n";
    let run = watched(dir.path(), &["check", "-w", "list"]);
    let stderr = String::from_utf8_lossy(&run.output.stderr);
    assert_eq!(String::from_utf8_lossy(&run.output.stdout), expected);
    assert!(
        stderr.contains("list: 2: improperly formatted SHA256 checksum line")
            && stderr.contains("WARNING: 1 line is improperly formatted"),
        "{stderr}"
    );
    assert_eq!(run.output.status.code(), Some(0), "{stderr}");
    assert!(run.peak_kib < BOUNDED_KIB, "peak {} KiB", run.peak_kib);
    let run = watched(dir.path(), &["check", "list", "list2"]);
    assert_eq!(
        String::from_utf8_lossy(&run.output.stdout),
        "a: OK\nb: OK\na: OK\n"
    );
    assert!(run.peak_kib < BOUNDED_KIB, "peak {} KiB", run.peak_kib);

    // 200 MiB without a newline (sparse zeros): one improper line, read to its end.
    let endless = fs::File::create(dir.path().join("zeros")).unwrap();
    endless.set_len(200 << 20).unwrap();
    let run = watched(dir.path(), &["check", "zeros"]);
    let stderr = String::from_utf8_lossy(&run.output.stderr);
    assert_eq!(run.output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("zeros: no properly formatted checksum lines found"),
        "{stderr}"
    );
    assert!(run.peak_kib < BOUNDED_KIB, "peak {} KiB", run.peak_kib);
}

/// `/dev/zero` is one endless line: read on (as coreutils reads it) without holding it.
#[cfg(target_os = "linux")]
#[test]
fn an_endless_list_is_read_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let run = support::parhash_watched(
        dir.path(),
        &["check", "/dev/zero"],
        std::time::Duration::from_secs(3),
    );
    assert!(run.killed, "{:?}", run.output);
    assert!(run.peak_kib < BOUNDED_KIB, "peak {} KiB", run.peak_kib);
}
