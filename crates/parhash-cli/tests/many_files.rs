//! `parhash sum` over many files goes through the multi-message engine (small files in SIMD
//! lanes, read in parallel). Its output must be byte for byte what hashing the files one by
//! one prints: here the oracle is the one-file path run once per name (and coreutils where it
//! has the algorithm), both streams merged so their relative order is checked too.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use parhash::Algorithm;

mod support;

/// Runs `program args...` in `dir` with standard error merged into standard output.
fn merged(dir: &Path, program: &str, args: &[&str]) -> (Vec<u8>, Option<i32>) {
    let out = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" \"$@\" 2>&1")
        .arg(program)
        .args(args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.stdout, out.status.code())
}

fn parhash(dir: &Path, args: &[&str]) -> (Vec<u8>, Option<i32>) {
    merged(dir, env!("CARGO_BIN_EXE_parhash"), args)
}

/// What hashing each name on its own prints, concatenated; status 1 if any failed.
fn one_by_one(dir: &Path, prefix: &[&str], names: &[&str]) -> (Vec<u8>, Option<i32>) {
    let mut all = Vec::new();
    let mut code = Some(0);
    for name in names {
        let (out, c) = parhash(dir, &[prefix, &[*name]].concat());
        all.extend(out);
        if c != Some(0) {
            code = c;
        }
    }
    (all, code)
}

/// Content of file `i`: lengths around the lane and small-file boundaries, some empty, some
/// repeated.
fn content(i: usize) -> Vec<u8> {
    const LENGTHS: &[usize] = &[
        0, 1, 55, 56, 64, 111, 112, 128, 1000, 4096, 20000, 65535, 65536, 65537, 70000, 300_000,
    ];
    let len = LENGTHS[i % LENGTHS.len()];
    let seed = if i % 7 == 3 { 0 } else { i };
    (0..len)
        .map(|j| ((j * 31 + seed * 17) % 251) as u8)
        .collect()
}

/// A directory with many files and, in the name list, missing files, a directory, a dangling
/// link and (when permissions apply) an unreadable file, mixed in.
fn mixed_fixture() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut names = Vec::new();
    for i in 0..70 {
        let name = format!("f{i:03}");
        fs::write(root.join(&name), content(i)).unwrap();
        names.push(name);
    }
    fs::create_dir(root.join("dir")).unwrap();
    fs::write(root.join("dir/inner"), b"inner").unwrap();
    std::os::unix::fs::symlink(root.join("nowhere"), root.join("dangling")).unwrap();
    let secret = root.join("secret");
    fs::write(&secret, b"s").unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&secret, fs::Permissions::from_mode(0o000)).unwrap();
    for (at, odd) in [
        (3, "missing"),
        (10, "dir"),
        (11, "f005"),
        (20, "dangling"),
        (33, "secret"),
        (40, "dir/inner"),
        (50, "missing too"),
        (69, "dir"),
    ] {
        names.insert(at, odd.to_string());
    }
    (dir, names)
}

#[test]
fn many_files_print_exactly_what_one_by_one_prints() {
    let (dir, names) = mixed_fixture();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    // Lane algorithms of both word sizes, a sponge, one with threads only (its large files
    // streamed by the workers), and tree modes (large files in order, each on all threads).
    for alg in [
        "sha256",
        "md5",
        "sha512",
        "sha3-256",
        "whirlpool",
        "sha1",
        "sandstorm256",
        "parsha256",
    ] {
        if Algorithm::from_name(alg).is_err() {
            eprintln!("skipped: {alg} is not in this build");
            continue;
        }
        let prefix = ["sum", "-a", alg];
        let expected = one_by_one(dir.path(), &prefix, &names);
        for threads in ["1", "4"] {
            let args = [&prefix[..], &["-j", threads], &names].concat();
            let got = parhash(dir.path(), &args);
            assert_eq!(
                String::from_utf8_lossy(&got.0),
                String::from_utf8_lossy(&expected.0),
                "{alg} -j {threads}"
            );
            assert_eq!(got.1, expected.1, "{alg} -j {threads}");
        }
        let tagged = [&["sum", "--tag", "-a", alg][..], &names].concat();
        assert_eq!(
            parhash(dir.path(), &tagged),
            one_by_one(dir.path(), &["sum", "--tag", "-a", alg], &names),
            "{alg} --tag"
        );
    }
}

#[test]
fn many_files_match_coreutils() {
    let (dir, names) = mixed_fixture();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    for (alg, tool) in [("sha256", "sha256sum"), ("md5", "md5sum")] {
        if !support::require_tool(tool) {
            continue;
        }
        let ours = parhash(dir.path(), &[&["sum", "-a", alg][..], &names].concat());
        let theirs = merged(dir.path(), tool, &names);
        let theirs_text =
            String::from_utf8_lossy(&theirs.0).replace(&format!("{tool}: "), "parhash: ");
        assert_eq!(String::from_utf8_lossy(&ours.0), theirs_text, "{alg}");
        assert_eq!(ours.1, theirs.1, "{alg}");
    }
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("t");
    for d in ["t", "t/b", "t/b/c", "t/a", "t/B", "t/a-b", "t/empty-dir"] {
        fs::create_dir(dir.path().join(d)).unwrap();
    }
    for (i, f) in [
        "z", "b/y", "b/c/x", "b/a", "a/q", "B/p", "_", "a-b/r", "a.b", "a b",
    ]
    .iter()
    .enumerate()
    {
        fs::write(root.join(f), content(i)).unwrap();
    }
    std::os::unix::fs::symlink(root.join("b/a"), root.join("link-to-file")).unwrap();
    std::os::unix::fs::symlink(root.join("b"), root.join("link-to-dir")).unwrap();
    std::os::unix::fs::symlink(root.join("gone"), root.join("dangling")).unwrap();
    dir
}

#[test]
fn recursive_walks_in_sorted_order_with_the_documented_link_policy() {
    let dir = tree();
    let (out, code) = parhash(dir.path(), &["sum", "-a", "md5", "-r", "t"]);
    let text = String::from_utf8_lossy(&out);
    let names: Vec<&str> = text
        .lines()
        .map(|l| l.split_once("  ").map_or(l, |(_, n)| n))
        .collect();
    assert_eq!(
        names,
        [
            "t/B/p",
            "t/_",
            // Each directory's entries in byte order of their names: `a` before `a b`.
            "t/a/q",
            "t/a b",
            "t/a-b/r",
            "t/a.b",
            "t/b/a",
            "t/b/c/x",
            "t/b/y",
            "parhash: t/dangling: No such file or directory",
            "t/link-to-file",
            "t/z",
        ]
    );
    assert_eq!(code, Some(1));
    // Every digest is the file's own, through the symlink too.
    for line in text.lines().filter(|l| !l.starts_with("parhash:")) {
        let (hex, name) = line.split_once("  ").unwrap();
        let data = fs::read(dir.path().join(name)).unwrap();
        assert_eq!(hex, parhash::hash(Algorithm::Md5, &data).to_hex(), "{name}");
    }
    // Without -r a directory is an error, as in coreutils.
    let (out, code) = parhash(dir.path(), &["sum", "-a", "md5", "t", "t/z"]);
    assert!(String::from_utf8_lossy(&out).starts_with("parhash: t: Is a directory\n"));
    assert_eq!(code, Some(1));
}

#[test]
fn unreadable_directory_is_reported_in_its_place() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tree();
    let locked = dir.path().join("t/b/c");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read_dir(&locked).is_ok() {
        eprintln!("skipped: running with privileges that ignore permissions");
        return;
    }
    let (out, code) = parhash(dir.path(), &["sum", "-r", "t/b"]);
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    let text = String::from_utf8_lossy(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].ends_with("  t/b/a"));
    assert_eq!(lines[1], "parhash: t/b/c: Permission denied");
    assert!(lines[2].ends_with("  t/b/y"));
    assert_eq!(code, Some(1));
}

#[test]
fn thread_count_and_window_boundaries_do_not_change_the_output() {
    // More files than one window (4096) so results cross window boundaries.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("many");
    fs::create_dir(&root).unwrap();
    let count = 4200;
    for i in 0..count {
        let sub = root.join(format!("d{}", i % 3));
        if i < 3 {
            fs::create_dir(&sub).unwrap();
        }
        let len = if i % 500 == 0 { 100_000 } else { i % 300 };
        let data: Vec<u8> = (0..len).map(|j| ((i + j) % 251) as u8).collect();
        fs::write(sub.join(format!("{i:05}")), data).unwrap();
    }
    let runs: Vec<_> = ["1", "2", "4"]
        .iter()
        .map(|j| parhash(dir.path(), &["sum", "-a", "sha256", "-j", j, "-r", "many"]))
        .collect();
    assert_eq!(runs[0].1, Some(0));
    let text = String::from_utf8_lossy(&runs[0].0).into_owned();
    assert_eq!(text.lines().count(), count);
    for run in &runs[1..] {
        assert_eq!(run, &runs[0]);
    }
    for line in text.lines().step_by(97) {
        let (hex, name) = line.split_once("  ").unwrap();
        let data = fs::read(dir.path().join(name)).unwrap();
        assert_eq!(
            hex,
            parhash::hash(Algorithm::Sha256, &data).to_hex(),
            "{name}"
        );
    }
    let mut sorted: Vec<&str> = text.lines().map(|l| &l[66..]).collect();
    sorted.sort_unstable();
    assert_eq!(sorted, text.lines().map(|l| &l[66..]).collect::<Vec<_>>());
}
