//! How a large file is read (`parhash::file::ReadStrategy`): the hashing threads reading their
//! own pieces give the digest of one sequential stream and of the in-memory hash, for every
//! algorithm that splits one message over threads, at lengths around pieces and parts, on two
//! and three threads; a file that shrinks or grows meanwhile is the same clear error on both
//! paths; `Auto` reads a cached file in parallel and, on a loop device that says it is
//! rotational (a simulation of a spinning disk, made here when the test runs as root), one
//! sequential stream.

mod common;

use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, Once};
use std::thread::ThreadId;

use parhash::file::{storage_of, FileHasher, Progress, ReadStrategy, Storage};
use parhash::{Algorithm, Hasher, HasherBuilder, Threads, TreeParams};
use rand::{rngs::StdRng, Rng, SeedableRng};

use common::files::{
    changed_size, seeded_bytes as random_bytes, write_file, ResizeAfterFirstPiece,
};

const MIB: usize = 1 << 20;

/// What the builder's hasher gives for `data` in memory.
fn in_memory(builder: &HasherBuilder, data: &[u8]) -> parhash::Output {
    let mut h = builder.clone().build().unwrap();
    h.update(data);
    h.finalize()
}

/// Sums what the engine reports as hashed.
#[derive(Default)]
struct Counted(AtomicU64);

impl Progress for Counted {
    fn hashed(&self, bytes: u64) {
        self.0.fetch_add(bytes, Ordering::Relaxed);
    }
}

/// Every builder whose one message the threads can split, with tree parameters and digest
/// sizes other than the defaults.
fn splitting_builders() -> Vec<(String, HasherBuilder)> {
    let mut builders: Vec<(String, HasherBuilder)> = [
        Algorithm::Blake3,
        Algorithm::Sandstorm224,
        Algorithm::Sandstorm256,
        Algorithm::Sandstorm384,
        Algorithm::Sandstorm512,
        Algorithm::Parsha256,
    ]
    .into_iter()
    .map(|alg| (alg.to_string(), Hasher::builder(alg)))
    .collect();
    builders.push((
        "blake3, 100-byte digest".into(),
        Hasher::builder(Algorithm::Blake3).digest_size(100),
    ));
    for (t, l) in [(4, 0), (16, 128)] {
        builders.push((
            format!("parsha256 T={t} l={l}"),
            Hasher::builder(Algorithm::Parsha256).tree_params(TreeParams::new(t, l).unwrap()),
        ));
    }
    builders
}

#[test]
fn threads_reading_their_own_pieces_give_the_one_stream_digest() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = StdRng::seed_from_u64(27);
    // Just under and at the smallest file split (4 MiB), one byte past a piece, and random
    // lengths up to 11 MiB (several 1 MiB BLAKE3 pieces, odd SANDstorm superblocks, PARSHA-256
    // rounds cut anywhere).
    let mut lens = vec![4 * MIB - 1, 4 * MIB, 5 * MIB + 1];
    lens.extend((0..2).map(|_| rng.random_range(4 * MIB..11 * MIB)));
    for (i, &len) in lens.iter().enumerate() {
        let data = random_bytes(len, i as u64);
        let path = write_file(dir.path(), "f", &data);
        let file = File::open(&path).unwrap();
        for (name, builder) in splitting_builders() {
            let expected = in_memory(&builder, &data);
            for threads in [2, 3] {
                let builder = builder.clone().threads(Threads::new(threads));
                // With and without a map of the cached file (the map only where it splits).
                for (strategy, map) in [
                    (ReadStrategy::Parallel, true),
                    (ReadStrategy::Parallel, false),
                    (ReadStrategy::Sequential, true),
                ] {
                    let files = FileHasher::new(builder.clone())
                        .read_strategy(strategy)
                        .memory_maps(map);
                    let chosen = files.read_strategy_for(&file, len as u64);
                    let splits = strategy == ReadStrategy::Parallel && len >= 4 * MIB;
                    let what =
                        format!("{name}, {len} bytes, {threads} threads, {strategy}, map {map}");
                    assert_eq!(
                        chosen == ReadStrategy::Parallel,
                        splits,
                        "{what}: read as {chosen}"
                    );
                    let counted = Counted::default();
                    let got = files.with_progress(&counted).hash_file(&file).unwrap();
                    assert_eq!(got, expected, "{what}");
                    assert_eq!(counted.0.into_inner(), len as u64, "{what}: progress");
                }
            }
        }
    }
}

/// A file of `len` seeded bytes in a new temporary folder (removed when dropped): the folder,
/// the bytes, the file opened.
fn temp_file(len: usize, seed: u64) -> (tempfile::TempDir, Vec<u8>, File) {
    let dir = tempfile::tempdir().unwrap();
    let data = random_bytes(len, seed);
    let file = File::open(write_file(dir.path(), "f", &data)).unwrap();
    (dir, data, file)
}

#[test]
fn one_thread_or_a_forced_variant_reads_one_stream() {
    let (_dir, data, file) = temp_file(6 * MIB, 5);
    let len = data.len() as u64;
    let one = FileHasher::new(Hasher::builder(Algorithm::Blake3).threads(Threads::ONE))
        .read_strategy(ReadStrategy::Parallel);
    assert_eq!(one.read_strategy_for(&file, len), ReadStrategy::Sequential);
    let sha = FileHasher::new(Hasher::builder(Algorithm::Sha256).threads(Threads::new(2)))
        .read_strategy(ReadStrategy::Parallel);
    assert_eq!(sha.read_strategy_for(&file, len), ReadStrategy::Sequential);
    let variant = Algorithm::Sandstorm256
        .variants()
        .into_iter()
        .find(|v| v.available)
        .expect("the portable variant is always available");
    let forced = Hasher::builder(Algorithm::Sandstorm256)
        .threads(Threads::new(2))
        .variant(Algorithm::Sandstorm256.variant(variant.name).unwrap());
    let files = FileHasher::new(forced.clone()).read_strategy(ReadStrategy::Parallel);
    assert_eq!(
        files.read_strategy_for(&file, len),
        ReadStrategy::Sequential
    );
    assert_eq!(files.hash_file(&file).unwrap(), in_memory(&forced, &data));
}

/// The threads that finished files.
#[derive(Default)]
struct FileThreads(Mutex<HashSet<ThreadId>>);

impl Progress for FileThreads {
    fn file_done(&self, _bytes: u64) {
        self.0.lock().unwrap().insert(std::thread::current().id());
    }
}

/// Hashes `paths` with `files`; asserts the digests; returns the threads that finished files.
fn hash_many(files: &FileHasher<'_>, paths: &[PathBuf], data: &[Vec<u8>]) -> usize {
    let threads = FileThreads::default();
    let got: Vec<_> = files
        .with_progress(&threads)
        .hash_paths(paths)
        .map(|(_, r)| r.unwrap())
        .collect();
    let expected: Vec<_> = data
        .iter()
        .map(|d| parhash::hash(files.algorithm(), d))
        .collect();
    assert_eq!(got, expected);
    threads.0.into_inner().unwrap().len()
}

/// Small files (lanes) and larger ones (read piece by piece), `count` of them in `dir`.
fn many_files(dir: &Path, count: usize) -> (Vec<PathBuf>, Vec<Vec<u8>>) {
    let data: Vec<Vec<u8>> = (0..count)
        .map(|i| random_bytes(if i % 7 == 0 { 300_000 } else { 100 + i * 37 }, i as u64))
        .collect();
    let paths = data
        .iter()
        .enumerate()
        .map(|(i, d)| write_file(dir, &format!("f{i}"), d))
        .collect();
    (paths, data)
}

#[test]
fn sequential_reads_many_files_one_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let (paths, data) = many_files(dir.path(), 60);
    for alg in [Algorithm::Sha256, Algorithm::Blake3, Algorithm::Md5] {
        let builder = Hasher::builder(alg).threads(Threads::new(2));
        let one = FileHasher::new(builder.clone()).read_strategy(ReadStrategy::Sequential);
        assert_eq!(hash_many(&one, &paths, &data), 1, "{alg}: one reader");
        for strategy in [ReadStrategy::Auto, ReadStrategy::Parallel] {
            hash_many(
                &FileHasher::new(builder.clone()).read_strategy(strategy),
                &paths,
                &data,
            );
        }
    }
}

#[test]
fn a_file_that_shrinks_or_grows_is_the_same_error_on_every_path() {
    // Longer than one stream reads ahead of the hasher (four buffers of 4 MiB on two threads)
    // and many pieces and parts, so reads are still to come when the first piece is hashed.
    let len = 24 * MIB + 5;
    for alg in [
        Algorithm::Blake3,
        Algorithm::Sandstorm256,
        Algorithm::Parsha256,
    ] {
        for (strategy, map) in [
            (ReadStrategy::Parallel, true),
            (ReadStrategy::Parallel, false),
            (ReadStrategy::Sequential, true),
        ] {
            for new_len in [MIB as u64 / 2, (len + 100) as u64] {
                let dir = tempfile::tempdir().unwrap();
                let path = write_file(dir.path(), "changing", &random_bytes(len, 3));
                let resize = ResizeAfterFirstPiece {
                    path: path.clone(),
                    new_len,
                    done: Once::new(),
                };
                let files = FileHasher::new(Hasher::builder(alg).threads(Threads::new(2)))
                    .read_strategy(strategy)
                    .memory_maps(map)
                    .with_progress(&resize);
                let what = format!("{alg}, {strategy}, map {map}, resized to {new_len}");
                let err = files.hash_path(&path).expect_err(&what);
                assert_eq!(
                    err.to_string(),
                    "file changed size while being read",
                    "{what}"
                );
                let changed = changed_size(&err);
                assert_eq!(changed.expected, len as u64, "{what}");
                if new_len < len as u64 {
                    let found = changed.found.expect("ended early");
                    assert!((new_len..len as u64).contains(&found), "{what}: {found}");
                } else {
                    assert_eq!(changed.found, None, "{what}");
                }
            }
        }
    }
}

#[test]
fn auto_reads_a_cached_file_in_parallel() {
    let (_dir, data, file) = temp_file(6 * MIB, 8);
    if !cfg!(target_os = "linux") {
        common::skipped(
            "auto_reads_a_cached_file_in_parallel",
            "the page-cache probe (RWF_NOWAIT) is Linux's",
        );
        return;
    }
    assert_eq!(storage_of(&file, data.len() as u64), Storage::Cached);
    let files = FileHasher::new(Hasher::builder(Algorithm::Blake3).threads(Threads::new(2)));
    assert_eq!(
        files.read_strategy_for(&file, data.len() as u64),
        ReadStrategy::Parallel
    );
}

/// A loop device over a file in /tmp, mounted; detached and unmounted on drop.
struct LoopMount {
    device: String,
    mount: tempfile::TempDir,
    _image: tempfile::NamedTempFile,
}

impl LoopMount {
    /// `None` (with the reason) where this process cannot make one (not root, no loop
    /// devices, no mkfs.ext4).
    fn new() -> Result<LoopMount, String> {
        let run = |cmd: &str, args: &[&str]| -> Result<String, String> {
            let out = Command::new(cmd)
                .args(args)
                .output()
                .map_err(|e| format!("{cmd}: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "{cmd} {}: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
        };
        let image = tempfile::NamedTempFile::new().map_err(|e| e.to_string())?;
        image
            .as_file()
            .set_len(64 * MIB as u64)
            .map_err(|e| e.to_string())?;
        let image_path = image.path().to_str().unwrap().to_string();
        let device = run("losetup", &["--find", "--show", &image_path])?;
        let mount = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mounted = LoopMount {
            device,
            mount,
            _image: image,
        };
        run("mkfs.ext4", &["-q", &mounted.device])?;
        run(
            "mount",
            &[&mounted.device, mounted.mount.path().to_str().unwrap()],
        )?;
        Ok(mounted)
    }

    /// Says to the kernel that the device is (or is not) rotational, as a disk driver does.
    fn set_rotational(&self, rotational: bool) {
        let name = Path::new(&self.device).file_name().unwrap();
        let flag = Path::new("/sys/block").join(name).join("queue/rotational");
        std::fs::write(&flag, if rotational { "1" } else { "0" }).unwrap();
    }
}

impl Drop for LoopMount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.mount.path()).status();
        let _ = Command::new("losetup").args(["-d", &self.device]).status();
    }
}

/// Drops the file's pages from the page cache (written and synced, they are clean), and only
/// its own: other tests running meanwhile keep their cached files.
fn evict(file: &File) {
    file.sync_all().unwrap();
    rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::DontNeed).unwrap();
}

#[test]
fn auto_reads_a_simulated_spinning_disk_as_one_stream() {
    const TEST: &str = "auto_reads_a_simulated_spinning_disk_as_one_stream";
    if !cfg!(target_os = "linux") {
        common::skipped(TEST, "loop devices and sysfs are Linux's");
        return;
    }
    let mounted = match LoopMount::new() {
        Ok(m) => m,
        Err(why) => {
            common::skipped(TEST, &format!("no loop device here ({why})"));
            return;
        }
    };
    let data = random_bytes(8 * MIB, 9);
    let path = write_file(mounted.mount.path(), "f", &data);
    let builder = Hasher::builder(Algorithm::Sandstorm256).threads(Threads::new(2));
    let files = FileHasher::new(builder.clone());
    let len = data.len() as u64;
    for (rotational, storage, strategy) in [
        (true, Storage::Rotational, ReadStrategy::Sequential),
        (false, Storage::SolidState, ReadStrategy::Parallel),
    ] {
        mounted.set_rotational(rotational);
        let file = File::open(&path).unwrap();
        evict(&file);
        assert_eq!(storage_of(&file, len), storage, "rotational = {rotational}");
        assert_eq!(files.read_strategy_for(&file, len), strategy);
        assert_eq!(files.hash_file(&file).unwrap(), in_memory(&builder, &data));
    }
    // Many files on the spinning disk: one reader at a time (by default).
    let many = mounted.mount.path().join("many");
    std::fs::create_dir(&many).unwrap();
    let (paths, data) = many_files(&many, 30);
    mounted.set_rotational(true);
    evict(&File::open(&paths[0]).unwrap());
    let md5 = FileHasher::new(Hasher::builder(Algorithm::Md5).threads(Threads::new(2)));
    assert_eq!(hash_many(&md5, &paths, &data), 1);
}
