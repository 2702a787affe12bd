//! parhash on a file whose reads go wrong: seekfs (crates/seekfs) serves it with faults
//! injected, mounted inside a tree between two good files (`t/a`, `t/m/f`, `t/z`). Whatever
//! the fault, every command (`sum`, `check`, `sum -o LIST --resume`, `sum -o LIST --update`,
//! `check --audit`) reports the file's error, prints no digest for it, hashes the other files
//! and exits 1, as coreutils do; short reads give the right digest; a file that changes under
//! the reader never gets a digest that is neither its old nor its new version.
//!
//! Mounting needs root and `/dev/fuse`: elsewhere the tests say `SKIPPED` (seen with
//! `--nocapture`), and under the environment variable CI they fail instead.
#![cfg(target_os = "linux")]

use std::fs;
use std::path::Path;
use std::process::Output;

use seekfs::{Change, Faults, Model, Mounted, SeekFs};

mod support;

/// The algorithms the file is hashed with: one that reads into buffers (SHA-256, the
/// default) and one whose large files a thread maps in ahead of the hasher (BLAKE3).
const ALGORITHMS: [&str; 2] = ["sha256", "blake3"];

/// Sizes of the faulty file: one read whole (at most `parhash::file::SMALL_FILE`), and one of
/// several pieces, read ahead on a thread of its own (BLAKE3: mapped).
const SIZES: [usize; 2] = [40_000, (9 << 20) + 321];

/// What parhash says of the file: a read error, a change of size or of content, a page of
/// a map that could not be read.
const ERRORS: [&str; 4] = [
    "Input/output error",
    "file changed size while being read",
    "file changed while being read",
    "could not be read",
];

/// A tree `t` in a temporary directory: `t/a` and `t/z` are ordinary files, `t/m/f` the
/// faulty one, served by seekfs from `backing/f`. The mount goes before the directories.
struct Tree {
    mounted: Option<Mounted>,
    dir: tempfile::TempDir,
    data: Vec<u8>,
}

impl Tree {
    /// The tree, with the file of `len` bytes served with `faults`; `None` (and a line saying
    /// why) where this process cannot mount FUSE, a failure under CI.
    fn new(test: &str, len: usize, faults: Faults) -> Option<Tree> {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("t");
        fs::create_dir_all(t.join("m")).unwrap();
        fs::create_dir(dir.path().join("backing")).unwrap();
        fs::write(t.join("a"), b"the first good file\n").unwrap();
        fs::write(t.join("z"), b"the last good file\n").unwrap();
        let data: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4099) as u8).collect();
        let backing = dir.path().join("backing/f");
        fs::write(&backing, &data).unwrap();
        let mut tree = Tree {
            mounted: None,
            dir,
            data,
        };
        match tree.mount(faults) {
            Ok(()) => Some(tree),
            Err(why) if std::env::var_os("CI").is_some() => {
                panic!("{test}: cannot mount seekfs under CI: {why}")
            }
            Err(why) => {
                eprintln!("SKIPPED: {test}: {why}");
                None
            }
        }
    }

    /// Mounts (again, after [`Tree::unmount`]) the backing file on `t/m`: a fresh mount, the
    /// faults as new.
    fn mount(&mut self, faults: Faults) -> Result<(), String> {
        if !Path::new("/dev/fuse").exists() {
            return Err("no /dev/fuse".into());
        }
        let fs = SeekFs::new(&self.dir.path().join("backing/f"), Model::INSTANT)
            .map_err(|e| e.to_string())?
            .faults(faults);
        let mounted = seekfs::mount(fs, &self.dir.path().join("t/m"))
            .map_err(|e| format!("cannot mount FUSE here (needs root and /dev/fuse): {e}"))?;
        self.mounted = Some(mounted);
        Ok(())
    }

    fn remount(&mut self, faults: Faults) {
        self.unmount();
        self.mount(faults).unwrap();
    }

    /// `t/m` is then an empty directory.
    fn unmount(&mut self) {
        if let Some(mounted) = self.mounted.take() {
            mounted.unmount().unwrap();
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn parhash(&self, cwd: &str, args: &[&str]) -> Output {
        support::parhash_in(&self.path().join(cwd), args, &[])
    }

    /// The lines `sum` prints for `names` (relative to `t`), for the file's good data: hashed
    /// from a copy outside seekfs.
    fn good_list(&self, alg: &str, names: &[&str]) -> String {
        let good = self.path().join("good");
        fs::create_dir_all(good.join("m")).unwrap();
        fs::write(good.join("m/f"), &self.data).unwrap();
        for name in ["a", "z"] {
            fs::copy(self.path().join("t").join(name), good.join(name)).unwrap();
        }
        let mut args = vec!["sum", "-a", alg];
        args.extend(names);
        let out = support::parhash_in(&good, &args, &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    }
}

impl Drop for Tree {
    fn drop(&mut self) {
        self.unmount();
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

/// `out` exited 1 and said on standard error that `name` failed with one of [`ERRORS`].
fn assert_failed(out: &Output, name: &str, what: &str) {
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
    assert!(
        stderr
            .lines()
            .any(|line| line.contains(name) && ERRORS.iter().any(|e| line.contains(e))),
        "{what}: no error for {name}: {stderr}"
    );
}

fn eio_at(offset: u64) -> Faults {
    Faults {
        fail_at: Some(offset),
        ..Faults::default()
    }
}

/// A read error in the middle of the file: every command names it, prints no digest for it,
/// and still hashes the two good files.
#[test]
fn a_read_error_is_reported_and_the_other_files_hashed() {
    const TEST: &str = "a_read_error_is_reported_and_the_other_files_hashed";
    for len in SIZES {
        let faults = eio_at(len as u64 / 2 + 17);
        let Some(mut tree) = Tree::new(TEST, len, faults) else {
            return;
        };
        for alg in ALGORITHMS {
            let what = format!("{alg}, {len} bytes");
            let good = tree.good_list(alg, &["a", "m/f", "z"]);
            let good = lines(&good);
            let good_but_f = [good[0], good[2]].join("\n") + "\n";

            // sum of the three names.
            let out = tree.parhash("t", &["sum", "-a", alg, "a", "m/f", "z"]);
            assert_failed(&out, "m/f", &format!("sum, {what}"));
            assert_eq!(text(&out.stdout), good_but_f, "sum, {what}");

            // check of a list of the right digests.
            fs::write(tree.path().join("LIST"), good.join("\n") + "\n").unwrap();
            let out = tree.parhash("t", &["check", "-a", alg, "../LIST"]);
            assert_failed(&out, "m/f", &format!("check, {what}"));
            assert_eq!(
                text(&out.stdout),
                "a: OK\nm/f: FAILED open or read\nz: OK\n",
                "check, {what}"
            );

            // sum -r -o LIST: the list without the file; exit 1.
            let list = "LIST";
            let good_walk = tree
                .good_list(alg, &["a", "m/f", "z"])
                .replace("  ", "  t/");
            let good_walk = lines(&good_walk);
            fs::remove_file(tree.path().join(list)).unwrap();
            let out = tree.parhash(".", &["sum", "-a", alg, "-r", "-o", list, "t"]);
            assert_failed(&out, "t/m/f", &format!("sum -o, {what}"));
            let without_f = format!("{}\n{}\n", good_walk[0], good_walk[2]);
            assert_eq!(
                fs::read_to_string(tree.path().join(list)).unwrap(),
                without_f,
                "sum -o, {what}"
            );

            // --resume of a list cut after its first line: the file fails again, z is added.
            fs::write(tree.path().join(list), format!("{}\n", good_walk[0])).unwrap();
            let out = tree.parhash(".", &["sum", "-a", alg, "-r", "-o", list, "--resume", "t"]);
            assert_failed(&out, "t/m/f", &format!("--resume, {what}"));
            assert_eq!(
                fs::read_to_string(tree.path().join(list)).unwrap(),
                without_f,
                "--resume, {what}"
            );

            // --update of a list written while nothing was mounted: the file is new and fails;
            // the list keeps the good files.
            tree.unmount();
            fs::remove_file(tree.path().join(list)).unwrap();
            let out = tree.parhash(".", &["sum", "-a", alg, "-r", "-o", list, "t"]);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            tree.remount(faults);
            for update in [&["--update"][..], &["--update", "--rehash-changed"]] {
                let mut args = vec!["sum", "-a", alg, "-r", "-o", list];
                args.extend(update);
                args.push("t");
                let out = tree.parhash(".", &args);
                assert_failed(&out, "t/m/f", &format!("{update:?}, {what}"));
                assert_eq!(
                    fs::read_to_string(tree.path().join(list)).unwrap(),
                    without_f,
                    "{update:?}, {what}"
                );
            }

            // check --audit against the full good list: the file failed, the others OK.
            fs::write(tree.path().join(list), good.join("\n") + "\n").unwrap();
            let out = tree.parhash("t", &["check", "-a", alg, "--audit", "../LIST"]);
            assert_failed(&out, "m/f", &format!("--audit, {what}"));
            let stdout = text(&out.stdout);
            assert!(
                stdout.contains("m/f: FAILED open or read\n") && stdout.contains("a: OK\n"),
                "--audit, {what}: {stdout}"
            );
            assert!(
                !stdout.contains("m/f: OK") && !stdout.contains("m/f: CHANGED"),
                "--audit, {what}: {stdout}"
            );
        }
    }
}

/// Reads that serve a few bytes at a time (odd counts, not a divisor of any piece): the
/// digest is the file's, for every command.
#[test]
fn short_reads_give_the_right_digest() {
    const TEST: &str = "short_reads_give_the_right_digest";
    for len in SIZES {
        let faults = Faults {
            short_reads: Some(4097 * 3),
            ..Faults::default()
        };
        let Some(tree) = Tree::new(TEST, len, faults) else {
            return;
        };
        for alg in ALGORITHMS {
            let what = format!("{alg}, {len} bytes");
            let good = tree.good_list(alg, &["a", "m/f", "z"]);
            let out = tree.parhash("t", &["sum", "-a", alg, "a", "m/f", "z"]);
            assert_eq!(out.status.code(), Some(0), "{what}: {}", text(&out.stderr));
            assert_eq!(text(&out.stdout), good, "sum, {what}");
            fs::write(tree.path().join("LIST"), &good).unwrap();
            let out = tree.parhash("t", &["check", "-a", alg, "../LIST"]);
            assert_eq!(text(&out.stdout), "a: OK\nm/f: OK\nz: OK\n", "{what}");
            assert_eq!(out.status.code(), Some(0), "check, {what}");
            let out = tree.parhash("t", &["check", "-a", alg, "--audit", "../LIST"]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "--audit, {what}: {}",
                text(&out.stdout)
            );
            let out = tree.parhash(".", &["sum", "-a", alg, "-r", "-o", "LIST2", "t"]);
            assert_eq!(out.status.code(), Some(0), "sum -o, {what}");
            assert_eq!(
                fs::read_to_string(tree.path().join("LIST2")).unwrap(),
                good.replace("  ", "  t/"),
                "sum -o, {what}"
            );
            fs::remove_file(tree.path().join("LIST2")).unwrap();
        }
    }
}

/// What hashing a file that changed under the reader may print: nothing (an error), or the
/// digest of its old or of its new version, never another.
fn assert_old_new_or_none(out: &Output, old: &str, new: &str, what: &str) {
    let stdout = text(&out.stdout);
    let line = stdout.lines().find(|l| l.ends_with("m/f"));
    match line {
        None => assert_failed(out, "m/f", what),
        Some(line) => assert!(
            line == old || line == new,
            "{what}: a digest of neither version: {line} (old {old}, new {new})"
        ),
    }
}

/// A file that changes while it is read (after a quarter of it was served): cut short,
/// extended, or rewritten in place (every byte inverted) with its times moved, as a write
/// moves them. (A rewrite that keeps size and times is one no reader can see: not tested.)
#[test]
fn a_file_changing_under_the_reader_gets_no_wrong_digest() {
    const TEST: &str = "a_file_changing_under_the_reader_gets_no_wrong_digest";
    let len = SIZES[1];
    let after = len as u64 / 4;
    let changes = [
        Change {
            after,
            size: Some(len as u64 / 2),
            ..Change::default()
        },
        Change {
            after,
            size: Some(len as u64 + 1000),
            touch: true,
            ..Change::default()
        },
        Change {
            after,
            flip_from: Some(0),
            touch: true,
            ..Change::default()
        },
    ];
    for change in changes {
        let faults = Faults {
            change: Some(change),
            ..Faults::default()
        };
        let Some(mut tree) = Tree::new(TEST, len, faults) else {
            return;
        };
        // The new version: what the file serves once changed.
        let mut new = tree.data.clone();
        new.resize(change.size.map_or(len, |size| size as usize), 0);
        if let Some(from) = change.flip_from {
            new[from as usize..].iter_mut().for_each(|b| *b = !*b);
        }
        for alg in ALGORITHMS {
            let what = format!("{alg}, {change:?}");
            let old = tree.good_list(alg, &["m/f"]);
            let old_data = std::mem::replace(&mut tree.data, new.clone());
            let new_line = tree.good_list(alg, &["m/f"]);
            tree.data = old_data;
            let (old, new_line) = (old.trim_end(), new_line.trim_end());

            tree.remount(faults);
            let out = tree.parhash("t", &["sum", "-a", alg, "a", "m/f", "z"]);
            assert_old_new_or_none(&out, old, new_line, &format!("sum, {what}"));
            assert_eq!(
                text(&out.stdout)
                    .lines()
                    .filter(|l| !l.ends_with("m/f"))
                    .count(),
                2,
                "sum, {what}: {}",
                text(&out.stdout)
            );

            // check of the old digest: never OK.
            fs::write(tree.path().join("LIST"), format!("{old}\n")).unwrap();
            tree.remount(faults);
            let out = tree.parhash("t", &["check", "-a", alg, "../LIST"]);
            let stdout = text(&out.stdout);
            assert!(!stdout.contains("m/f: OK"), "check, {what}: {stdout}");
            assert_eq!(out.status.code(), Some(1), "check, {what}");

            // sum -o LIST: the file's line, if any, is one version's.
            tree.remount(faults);
            let out = tree.parhash(".", &["sum", "-a", alg, "-r", "-o", "LIST", "t"]);
            let list = fs::read_to_string(tree.path().join("LIST")).unwrap();
            let listed = Output {
                stdout: list.into_bytes(),
                ..out
            };
            let (old_t, new_t) = (old.replace("  ", "  t/"), new_line.replace("  ", "  t/"));
            assert_old_new_or_none(&listed, &old_t, &new_t, &format!("sum -o, {what}"));
        }
    }
}
