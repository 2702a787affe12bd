//! parhash on a simulated slow-seeking disk (seekfs, mounted here when the test may mount FUSE:
//! root and `/dev/fuse`): `ReadStrategy::Auto` sees a FUSE file system as network storage and
//! reads it as one stream; every strategy gives the in-memory digest; and by seekfs's counters,
//! the one stream barely seeks while the hashing threads reading their own pieces seek many
//! times. The seeks cost 1 ms here (and the rate is fast) so the test stays quick.
#![cfg(target_os = "linux")]

use std::fs::File;
use std::path::Path;

use parhash::file::{storage_of, FileHasher, ReadStrategy, Storage};
use parhash::{Algorithm, Hasher, HasherBuilder, Output, Threads};
use rand::{rngs::StdRng, Rng, RngCore, SeedableRng};
use seekfs::{Model, Mounted, SeekFs, Stats};

const MIB: usize = 1 << 20;

/// 1 ms seeks, 2 GB/s: the counts are the model's, the test stays fast.
const FAST_DISK: Model = Model {
    seek: std::time::Duration::from_millis(1),
    rate_bytes_per_s: 2_000_000_000,
};

/// Reports a test that had nothing to run here: `SKIPPED: test: reason` on standard error (seen
/// with `--nocapture`), as parhash's own tests do.
fn skipped(test: &str, reason: &str) {
    eprintln!("SKIPPED: {test}: {reason}");
}

/// `data` on a mounted seekfs; the mount is dropped (unmounted) before the directories.
struct OnSeekFs {
    mounted: Mounted,
    _mount_dir: tempfile::TempDir,
    _backing_dir: tempfile::TempDir,
}

impl OnSeekFs {
    /// `Err` (the reason) where this process cannot mount FUSE (not root, no `/dev/fuse`).
    fn new(data: &[u8]) -> Result<OnSeekFs, String> {
        if !Path::new("/dev/fuse").exists() {
            return Err("no /dev/fuse".into());
        }
        let backing_dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let backing = backing_dir.path().join("f");
        std::fs::write(&backing, data).map_err(|e| e.to_string())?;
        let mount_dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let fs = SeekFs::new(&backing, FAST_DISK).map_err(|e| e.to_string())?;
        let mounted = seekfs::mount(fs, mount_dir.path())
            .map_err(|e| format!("cannot mount FUSE here (needs root and /dev/fuse): {e}"))?;
        Ok(OnSeekFs {
            mounted,
            _mount_dir: mount_dir,
            _backing_dir: backing_dir,
        })
    }

    fn path(&self) -> &Path {
        self.mounted.file()
    }

    /// Hashes the file as `files` says, from a cold start (counters at zero, no cached pages:
    /// each open drops them, and they are dropped here as well); the digest and the counts.
    fn hash(&self, files: &FileHasher) -> (Output, Stats) {
        let file = File::open(self.path()).unwrap();
        rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::DontNeed).unwrap();
        self.mounted.reset();
        let digest = files.hash_file(&file).unwrap();
        (digest, self.mounted.stats())
    }
}

fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut data = vec![0; len];
    StdRng::seed_from_u64(seed).fill_bytes(&mut data);
    data
}

fn in_memory(builder: &HasherBuilder, data: &[u8]) -> Output {
    let mut h = builder.clone().build().unwrap();
    h.update(data);
    h.finalize()
}

/// `len` seeded bytes and a mounted seekfs holding them, or `None` where none can be mounted
/// (`test` reported skipped).
fn on_seekfs(test: &str, len: usize, seed: u64) -> Option<(Vec<u8>, OnSeekFs)> {
    let data = random_bytes(len, seed);
    let on = OnSeekFs::new(&data)
        .map_err(|why| skipped(test, &why))
        .ok()?;
    Some((data, on))
}

const SPLITTING: [Algorithm; 3] = [
    Algorithm::Blake3,
    Algorithm::Sandstorm256,
    Algorithm::Parsha256,
];

#[test]
fn auto_reads_seekfs_as_network_storage_in_one_stream() {
    const TEST: &str = "auto_reads_seekfs_as_network_storage_in_one_stream";
    let Some((data, on)) = on_seekfs(TEST, 9 * MIB + 7, 27) else {
        return;
    };
    let len = data.len() as u64;
    for alg in SPLITTING {
        let file = File::open(on.path()).unwrap();
        assert_eq!(storage_of(&file, len), Storage::Network, "{alg}");
        let files = FileHasher::new(Hasher::builder(alg).threads(Threads::new(2)));
        assert_eq!(
            files.read_strategy_for(&file, len),
            ReadStrategy::Sequential,
            "{alg}"
        );
    }
}

#[test]
fn every_strategy_on_seekfs_gives_the_in_memory_digest() {
    const TEST: &str = "every_strategy_on_seekfs_gives_the_in_memory_digest";
    let mut rng = StdRng::seed_from_u64(2027);
    let lens = [
        MIB - 4096 + rng.random_range(0..8192),
        8 * MIB + 2 * rng.random_range(0..65536) + 1,
    ];
    for (i, len) in lens.into_iter().enumerate() {
        let Some((data, on)) = on_seekfs(TEST, len, i as u64) else {
            return;
        };
        for alg in SPLITTING {
            let builder = Hasher::builder(alg).threads(Threads::new(2));
            let expected = in_memory(&builder, &data);
            for strategy in ReadStrategy::ALL {
                let files = FileHasher::new(builder.clone()).read_strategy(strategy);
                let (digest, stats) = on.hash(&files);
                assert_eq!(digest, expected, "{alg}, {strategy}, {len} bytes");
                assert!(stats.bytes >= len as u64, "{alg}, {strategy}: {stats:?}");
            }
        }
    }
}

#[test]
fn the_one_stream_barely_seeks_and_parallel_reads_seek_often() {
    const TEST: &str = "the_one_stream_barely_seeks_and_parallel_reads_seek_often";
    let Some((data, on)) = on_seekfs(TEST, 12 * MIB + 3, 12) else {
        return;
    };
    let builder = Hasher::builder(Algorithm::Blake3).threads(Threads::new(2));
    let expected = in_memory(&builder, &data);
    let (auto_digest, auto) = on.hash(&FileHasher::new(builder.clone()));
    let (parallel_digest, parallel) =
        on.hash(&FileHasher::new(builder).read_strategy(ReadStrategy::Parallel));
    assert_eq!(auto_digest, expected);
    assert_eq!(parallel_digest, expected);
    eprintln!("auto: {auto:?}; parallel: {parallel:?}");
    // The first read moves the head to the file; the storage probe may cost one more.
    assert!(auto.seeks <= 2, "auto: {auto:?}");
    assert!(
        parallel.seeks >= 4 && parallel.seeks > auto.seeks,
        "auto: {auto:?}, parallel: {parallel:?}"
    );
}
