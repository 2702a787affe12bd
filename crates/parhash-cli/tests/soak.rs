//! A soak test of `parhash sum -r -o LIST DIR`, `--resume` and `--update` while the tree
//! changes: a thread adds, removes and rewrites files; parhash runs over and over, each run
//! killed (SIGKILL) at a random moment or let finish; then the changes stop, one last
//! `--update --rehash-changed` runs, and LIST must be byte for byte what a fresh `sum -r`
//! of the final tree prints (an update writes in the walk's order, as a fresh run does).
//!
//! Ignored by default. CI runs it small (`cargo test -p parhash-cli --test soak -- --ignored
//! soak`, about 20 s). By hand, larger and longer:
//!
//! ```text
//! PARHASH_SOAK_SECS=600 PARHASH_SOAK_FILES=5000 PARHASH_SOAK_SEED=7 \
//!   cargo test --release -p parhash-cli --test soak -- --ignored soak --nocapture
//! ```
//!
//! `PARHASH_SOAK_SECS` (default 15) is how long the changes go on, `PARHASH_SOAK_FILES`
//! (default 150) how many files the tree starts with, `PARHASH_SOAK_SEED` the random seed
//! (default: from the clock; printed, and in every failure message).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant, SystemTime};

mod support;

use support::Rng;

fn env_or(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .unwrap_or_else(|e| panic!("{name}={value}: {e}")),
        Err(_) => default,
    }
}

/// Content for a file: mostly small, now and then a few hundred KiB (several pieces
/// for the library's small-file window), different every time.
fn content(rng: &mut Rng) -> Vec<u8> {
    let len = if rng.below(20) == 0 {
        100_000 + rng.below(400_000)
    } else {
        rng.below(3000)
    } as usize;
    let salt = rng.next();
    (0..len)
        .map(|i| (salt.wrapping_mul(i as u64 + 1) >> 24) as u8)
        .collect()
}

/// The path of file `n` in the tree `d` (a few directories deep, some shared).
fn file_path(root: &Path, n: u64) -> PathBuf {
    root.join(format!("s{}", n % 5))
        .join(format!("t{}", n % 3))
        .join(format!("f{n:06}"))
}

/// Writes `data` to `path` in place (as an editor that does not rename would), or
/// replaces it through a rename, as the coin says.
fn rewrite(path: &Path, data: &[u8], in_place: bool) {
    if in_place {
        let _ = fs::write(path, data);
    } else {
        let tmp = path.with_extension("new");
        if fs::write(&tmp, data).is_ok() {
            let _ = fs::rename(&tmp, path);
        }
    }
}

/// Adds, removes and rewrites files of `root` until `stop`; files `0..start` exist.
fn mutate(root: PathBuf, seed: u64, start: u64, stop: Arc<AtomicBool>) -> u64 {
    let mut rng = Rng(1 | seed ^ 0x9e37_79b9_7f4a_7c15);
    let mut live: Vec<u64> = (0..start).collect();
    let mut next = start;
    let mut changes = 0;
    while !stop.load(Ordering::Relaxed) {
        match rng.below(3) {
            0 => {
                let path = file_path(&root, next);
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(&path, content(&mut rng)).unwrap();
                live.push(next);
                next += 1;
            }
            1 if live.len() > 1 => {
                let n = live.swap_remove(rng.below(live.len() as u64) as usize);
                fs::remove_file(file_path(&root, n)).unwrap();
            }
            _ if !live.is_empty() => {
                let n = live[rng.below(live.len() as u64) as usize];
                let data = content(&mut rng);
                rewrite(&file_path(&root, n), &data, rng.below(2) == 0);
            }
            _ => continue,
        }
        changes += 1;
        thread::sleep(Duration::from_micros(200 + rng.below(3000)));
    }
    changes
}

/// One run of `parhash sum -r -o LIST ARGS d` in `dir`, killed after `kill_after` if it is
/// still running then; whether it was killed. Any other end than exit status 0 or 1 fails.
fn run(dir: &Path, args: &[&str], kill_after: Duration, what: &str) -> bool {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_parhash"));
    cmd.args(["sum", "-r", "-o", "LIST"])
        .args(args)
        .arg("d")
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let started = Instant::now();
    let mut killed = false;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            if let Some(mut err) = child.stderr.take() {
                let _ = std::io::Read::read_to_string(&mut err, &mut stderr);
            }
            assert!(
                matches!(status.code(), Some(0 | 1)) || killed,
                "{what}: {args:?} ended with {status}: {stderr}"
            );
            return killed;
        }
        if !killed && started.elapsed() >= kill_after {
            // SIGKILL: no handler runs, the list is left as the kill found it.
            child.kill().unwrap();
            killed = true;
        }
        thread::sleep(Duration::from_micros(500));
    }
}

#[test]
#[ignore = "a soak test: run with --ignored soak (CI runs it small; see the file's doc)"]
fn soak_resume_and_update_while_the_tree_changes() {
    let secs = env_or("PARHASH_SOAK_SECS", 15);
    let files = env_or("PARHASH_SOAK_FILES", 150);
    let clock = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64;
    let seed = env_or("PARHASH_SOAK_SEED", clock);
    let what =
        format!("PARHASH_SOAK_SEED={seed} PARHASH_SOAK_FILES={files} PARHASH_SOAK_SECS={secs}");
    eprintln!("soak: {what}");

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("d");
    let mut rng = Rng(1 | seed);
    for n in 0..files {
        let path = file_path(&root, n);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, content(&mut rng)).unwrap();
    }
    // How long one whole run takes here: kills land anywhere in a run, some after its end.
    let timed = Instant::now();
    run(dir.path(), &[], Duration::MAX, &what);
    let whole = timed.elapsed();

    let stop = Arc::new(AtomicBool::new(false));
    let mutator = {
        let (root, stop) = (root.clone(), Arc::clone(&stop));
        thread::spawn(move || mutate(root, seed, files, stop))
    };
    let deadline = Instant::now() + Duration::from_secs(secs);
    let (mut runs, mut kills) = (0, 0);
    while Instant::now() < deadline {
        let args: &[&str] = match rng.below(20) {
            0 => &[],
            1..=9 => &["--resume"],
            10..=14 => &["--update"],
            _ => &["--update", "--rehash-changed"],
        };
        let kill_after = whole.mul_f64(rng.below(1300) as f64 / 1000.0);
        kills += u32::from(run(dir.path(), args, kill_after, &what));
        runs += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let changes = mutator.join().unwrap();
    eprintln!("soak: {runs} runs, {kills} killed, {changes} changes to the tree");

    // The changes have stopped: one update brings LIST up to date.
    assert!(!run(
        dir.path(),
        &["--update", "--rehash-changed"],
        Duration::MAX,
        &what
    ));
    let fresh = support::parhash_in(dir.path(), &["sum", "-r", "d"], &[]);
    assert_eq!(fresh.status.code(), Some(0), "{what}");
    let list = fs::read(dir.path().join("LIST")).unwrap();
    if list != fresh.stdout {
        let (list, fresh) = (
            String::from_utf8_lossy(&list),
            String::from_utf8_lossy(&fresh.stdout),
        );
        let listed: Vec<&str> = list.lines().collect();
        let only_list: Vec<&&str> = listed.iter().filter(|l| !fresh.contains(**l)).collect();
        let only_fresh: Vec<&str> = fresh.lines().filter(|l| !listed.contains(l)).collect();
        panic!(
            "{what}: LIST differs from a fresh run ({} lines and {}); only in LIST: {only_list:?}; \
             only in the fresh run: {only_fresh:?}",
            listed.len(),
            fresh.lines().count()
        );
    }
    assert!(runs > 3, "{what}: only {runs} runs");
}
