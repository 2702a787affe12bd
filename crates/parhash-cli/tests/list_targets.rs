//! What `sum -o TARGET` writes to: a symbolic link is followed to the list it names, which is
//! written, continued (`--resume`) and replaced (`--update`) beside itself while the link stays
//! a link; a device or a pipe gets the lines once, without a side file, a `.tmp` or a sync,
//! and `--resume`/`--update` of one are refused; a list another run is writing is locked and
//! left as it is.

use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod support;

fn parhash(dir: &Path, args: &[&str]) -> Output {
    support::parhash_in(dir, args, &[])
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Runs `parhash ARGS`; panics unless it exits 0. Its output.
fn ok(dir: &Path, args: &[&str]) -> Output {
    let out = parhash(dir, args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    out
}

/// A tree `d` of a few files.
fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir_all(dir.path().join("d/sub")).unwrap();
    for (name, content) in [("a", "alpha\n"), ("b", "beta\n"), ("sub/c", "gamma\n")] {
        fs::write(dir.path().join("d").join(name), content).unwrap();
    }
    dir
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = (fs::read_dir(dir).unwrap())
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_link_is_followed_and_stays_a_link() {
    let dir = tree();
    let root = dir.path();
    fs::create_dir(root.join("real")).unwrap();
    fs::create_dir(root.join("links")).unwrap();
    // A relative link in another directory, and an absolute one to it: a chain.
    symlink("../real/SUMS", root.join("links/L")).unwrap();
    symlink(root.join("links/L"), root.join("links/chain")).unwrap();
    let list = root.join("real/SUMS");
    let is_link = |name: &str| {
        let path = root.join("links").join(name);
        fs::symlink_metadata(path).unwrap().is_symlink()
    };
    let check = |expected: &[u8]| {
        assert_eq!(fs::read(&list).unwrap(), expected);
        assert_eq!(names(&root.join("real")), ["SUMS", "SUMS.parhash-meta"]);
        assert_eq!(names(&root.join("links")), ["L", "chain"]);
        assert!(is_link("L") && is_link("chain"));
    };

    // Written where the link leads, the side file beside it.
    ok(root, &["sum", "-r", "d", "-o", "links/chain"]);
    check(&ok(root, &["sum", "-r", "d"]).stdout);

    // Updated there: the new list renamed over the file, not over the link.
    fs::write(root.join("d/new"), b"new\n").unwrap();
    fs::remove_file(root.join("d/a")).unwrap();
    let full = ok(root, &["sum", "-r", "d"]).stdout;
    let out = ok(root, &["sum", "-r", "d", "-o", "links/chain", "--update"]);
    check(&full);
    assert_eq!(
        stderr(&out),
        "parhash: links/chain: updated: 2 kept, 1 added, 1 dropped, 0 hashed again\n"
    );
    // The side file of the list is the one read: kept entries found their records.
    let out = ok(
        root,
        &[
            "sum",
            "-r",
            "d",
            "-o",
            "links/L",
            "--update",
            "--rehash-changed",
        ],
    );
    assert!(stderr(&out).contains(" 3 kept, 0 added, 0 dropped, 0 hashed again"));
    check(&full);

    // Resumed there, from its side file: a cut list ends as a whole run's.
    let first = full.iter().position(|&b| b == b'\n').unwrap() + 1;
    fs::write(&list, &full[..first + 5]).unwrap();
    let out = ok(root, &["sum", "-r", "d", "-o", "links/L", "--resume"]);
    assert!(
        stderr(&out).contains("line 2 is incomplete"),
        "{}",
        stderr(&out)
    );
    check(&full);
    let side = fs::read_to_string(root.join("real/SUMS.parhash-meta")).unwrap();
    assert_eq!(side.lines().count(), 4, "{side}");
}

/// `mkfifo PATH`.
fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success());
}

#[test]
fn a_device_or_a_pipe_gets_the_lines_once() {
    let dir = tree();
    let root = dir.path();
    let full = ok(root, &["sum", "-r", "d"]).stdout;

    // Standard output (here a pipe) by its name: what it gets without -o, and no error.
    let out = ok(root, &["sum", "-r", "d", "-o", "/dev/stdout"]);
    assert_eq!(out.stdout, full);
    assert_eq!(stderr(&out), "");

    let out = ok(root, &["sum", "-r", "d", "-o", "/dev/null"]);
    assert_eq!((out.stdout.len(), stderr(&out)), (0, String::new()));

    // A FIFO, read as it is written; nothing beside it.
    let fifo = root.join("fifo");
    mkfifo(&fifo);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    let out = ok(root, &["sum", "-r", "d", "-o", "fifo"]);
    assert_eq!(stderr(&out), "");
    assert_eq!(reader.join().unwrap(), full);
    assert_eq!(names(root), ["d", "fifo"]);
}

#[test]
fn resume_and_update_of_a_device_or_a_pipe_are_refused() {
    let dir = tree();
    let root = dir.path();
    mkfifo(&root.join("fifo"));
    for target in ["/dev/stdout", "/dev/null", "fifo"] {
        for flag in ["--resume", "--update"] {
            // Refused before anything is opened: a FIFO without a reader would wait.
            let out = parhash(root, &["sum", "-r", "d", "-o", target, flag]);
            assert_eq!(
                (out.status.code(), stderr(&out).as_str()),
                (
                    Some(1),
                    format!(
                        "parhash: cannot {flag} {target}: not a regular file \
                         (lists to a device or pipe are written once)\n"
                    )
                    .as_str()
                ),
            );
            assert!(out.stdout.is_empty());
        }
    }
    assert_eq!(names(root), ["d", "fifo"]);
    assert!(!Path::new("/dev/null.tmp").exists());
}

/// Every way of writing the list `L`, each of which must leave a locked `L` alone.
const WRITERS: [&[&str]; 4] = [
    &["sum", "-r", "d", "-o", "L"],
    &["sum", "-r", "d", "-o", "L", "--update"],
    &["sum", "-r", "d", "-o", "L", "--resume"],
    &["sum", "-r", "d", "-o", "link", "--update"],
];

/// Runs each writer of `L` while it is locked: each stops, names it and touches nothing.
fn writers_refused(root: &Path) {
    let before = (fs::read(root.join("L")).unwrap(), names(root));
    for args in WRITERS {
        let out = parhash(root, args);
        assert_eq!(
            (out.status.code(), stderr(&out).as_str()),
            (
                Some(1),
                "parhash: cannot write L: another run is writing it\n"
            ),
            "{args:?}"
        );
        assert_eq!((fs::read(root.join("L")).unwrap(), names(root)), before);
    }
}

#[test]
fn a_list_another_run_is_writing_is_left_alone() {
    let dir = tree();
    let root = dir.path();
    symlink("L", root.join("link")).unwrap();
    fs::write(root.join("L"), b"another run's list\n").unwrap();
    // Locked as another process's writer holds it.
    let held = File::open(root.join("L")).unwrap();
    held.try_lock().unwrap();
    writers_refused(root);
    drop(held);
    for args in WRITERS {
        ok(root, args);
    }
}

#[test]
fn a_second_run_waits_for_none_and_stops() {
    let dir = tree();
    let root = dir.path();
    symlink("L", root.join("link")).unwrap();
    // The first run hashes its standard input, which stays open until the test is done.
    let mut first = Command::new(env!("CARGO_BIN_EXE_parhash"))
        .args(["sum", "-o", "L", "-"])
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Its list is created and locked, its side file created.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let locked = File::open(root.join("L")).is_ok_and(|file| file.try_lock().is_err());
        if locked && root.join("L.parhash-meta").exists() {
            break;
        }
        assert!(Instant::now() < deadline, "the first run never locked L");
        std::thread::sleep(Duration::from_millis(10));
    }
    writers_refused(root);
    let mut stdin = first.stdin.take().unwrap();
    stdin.write_all(b"abc").unwrap();
    drop(stdin);
    let done = first.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    let expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  -\n";
    assert_eq!(fs::read_to_string(root.join("L")).unwrap(), expected);
}
