//! Which way a large file is read: by the hashing threads, each its own pieces, where the data
//! is in the page cache or on storage that serves parallel reads; as one sequential stream,
//! read ahead, where several streams would make the storage seek (rotational disks) or where
//! the system cannot tell (network file systems, devices without a sysfs entry).
//!
//! How [`ReadStrategy::Auto`] decides: [`storage_of`].
//!
//! [`ReadStrategy::Parallel`] and [`ReadStrategy::Sequential`] override it
//! (`parhash sum --read`).

#![forbid(unsafe_code)]

use std::fmt;
use std::fs::File;
use std::path::Path;
use std::str::FromStr;

use super::read::read_cached_at;

/// How a large regular file is read ([`super::FileHasher::read_strategy`]). Whatever the
/// strategy, the digest is the same; only the time differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ReadStrategy {
    /// Decided per file from where its bytes are ([`storage_of`]): the default.
    #[default]
    Auto,
    /// One stream from the start to the end, read ahead of the hashing threads: what a
    /// rotational disk or a network file system serves best.
    Sequential,
    /// The hashing threads read their own pieces (positional reads), so each copy lands in the
    /// cache of the core that hashes it and no thread waits for a reader: for data in the page
    /// cache and storage that serves parallel reads. Only algorithms that spread one message
    /// over threads (BLAKE3, SANDstorm, PARSHA-256) have pieces to share; the others read one
    /// stream whatever the strategy.
    Parallel,
}

impl ReadStrategy {
    /// Every strategy, in `--read`'s order.
    pub const ALL: [ReadStrategy; 3] = [
        ReadStrategy::Auto,
        ReadStrategy::Sequential,
        ReadStrategy::Parallel,
    ];

    /// The lowercase name `--read` takes.
    pub fn name(self) -> &'static str {
        match self {
            ReadStrategy::Auto => "auto",
            ReadStrategy::Sequential => "sequential",
            ReadStrategy::Parallel => "parallel",
        }
    }
}

impl fmt::Display for ReadStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ReadStrategy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        ReadStrategy::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown read strategy '{s}' (auto, sequential or parallel)"))
    }
}

/// Where a file's bytes are, as far as [`ReadStrategy::Auto`] needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Storage {
    /// Every page probed is in the page cache.
    Cached,
    /// A file system in memory (tmpfs, ramfs).
    Memory,
    /// A network or cluster file system.
    Network,
    /// A block device that says it is rotational.
    Rotational,
    /// A block device that says it is not rotational (SSD, NVMe).
    SolidState,
    /// Nothing to go by.
    Unknown,
}

impl Storage {
    /// Whether several streams at once read this storage at least as fast as one.
    pub fn serves_parallel_reads(self) -> bool {
        matches!(
            self,
            Storage::Cached | Storage::Memory | Storage::SolidState
        )
    }

    /// Whether a file here is hashed from a map (where maps are allowed): its pages are in
    /// memory, so mapping them costs page-table work only, no reads to wait for.
    pub fn serves_maps(self) -> bool {
        matches!(self, Storage::Cached | Storage::Memory)
    }

    /// A few words for messages (`parhash sum --verbose`, the lab).
    pub fn describe(self) -> &'static str {
        match self {
            Storage::Cached => "in the page cache",
            Storage::Memory => "a memory file system",
            Storage::Network => "a network file system",
            Storage::Rotational => "a rotational device",
            Storage::SolidState => "a non-rotational device",
            Storage::Unknown => "storage of unknown kind",
        }
    }
}

/// Pages probed for [`Storage::Cached`], spread evenly over the file.
const CACHE_PROBES: u64 = 8;

/// Where the `len` bytes of `file` are. Costs a few system calls and reads no data from the
/// device.
///
/// How [`ReadStrategy::Auto`] decides, per file, in this order:
/// 1. **The page cache.** A few pages spread over the file are read with
///    `preadv2(RWF_NOWAIT)`, which fails instead of waiting for the device: if every one is
///    cached, the reads are memory copies and parallel reads cost nothing extra.
/// 2. **The file system** (`fstatfs`): tmpfs and ramfs are memory; NFS, SMB/CIFS, FUSE
///    (sshfs and the like), 9p, Ceph, AFS, Lustre and other network or cluster file systems
///    are read as one stream (their latency per request, not seeks, rules, and the server may
///    be a disk).
/// 3. **The block device** (`/sys/dev/block/MAJOR:MINOR/queue/rotational`, the whole disk's
///    for a partition; device-mapper, RAID and loop devices have their own): `0` (SSD, NVMe)
///    reads in parallel, `1` (a spinning disk, or a virtual disk that does not say otherwise)
///    as one stream.
/// 4. Anything else (no device number to look up, as on btrfs subvolumes and overlay file
///    systems): one stream, the choice that is never much slower and never pathological.
pub fn storage_of(file: &File, len: u64) -> Storage {
    if is_cached(file, len) {
        return Storage::Cached;
    }
    if let Some(kind) = file_system_kind(file) {
        return kind;
    }
    match block_device(file) {
        Some((major, minor)) => {
            rotational(Path::new("/sys"), major, minor).map_or(Storage::Unknown, |rotational| {
                if rotational {
                    Storage::Rotational
                } else {
                    Storage::SolidState
                }
            })
        }
        None => Storage::Unknown,
    }
}

/// Whether every probed page of the file is in the page cache (Linux; elsewhere `false`): one
/// byte of each, read without waiting for the device.
fn is_cached(file: &File, len: u64) -> bool {
    if len == 0 {
        return true;
    }
    let mut byte = [0u8; 1];
    (0..CACHE_PROBES).all(|i| read_cached_at(file, &mut byte, (len - 1) * i / (CACHE_PROBES - 1)))
}

/// The kind of storage the file system alone gives away (`None`: look at its device).
#[cfg(target_os = "linux")]
fn file_system_kind(file: &File) -> Option<Storage> {
    let magic = rustix::fs::fstatfs(file).ok()?.f_type as i64 as u32;
    file_system_magic_kind(magic)
}

#[cfg(not(target_os = "linux"))]
fn file_system_kind(_file: &File) -> Option<Storage> {
    Some(Storage::Unknown)
}

/// The storage a Linux file system magic number (`statfs.f_type`) stands for, if it says.
fn file_system_magic_kind(magic: u32) -> Option<Storage> {
    const TMPFS: u32 = 0x0102_1994;
    const RAMFS: u32 = 0x8584_58f6;
    const NETWORK: [u32; 12] = [
        0x6969,      // NFS
        0x517b,      // SMB
        0xff53_4d42, // CIFS
        0xfe53_4d42, // SMB2
        0x6573_5546, // FUSE (sshfs, rclone, s3fs, ...)
        0x0102_1997, // 9p (virtual machines' shared folders)
        0x00c3_6400, // Ceph
        0x5346_414f, // AFS
        0x0bd0_0bd0, // Lustre
        0x7375_7245, // Coda
        0x0116_1970, // GFS2
        0x7461_636f, // OCFS2
    ];
    if magic == TMPFS || magic == RAMFS {
        Some(Storage::Memory)
    } else if NETWORK.contains(&magic) {
        Some(Storage::Network)
    } else {
        None
    }
}

/// The major and minor number of the block device holding the file (`None` for the anonymous
/// devices of btrfs subvolumes, overlay and other virtual file systems: major 0).
#[cfg(unix)]
fn block_device(file: &File) -> Option<(u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    let dev = file.metadata().ok()?.dev();
    let (major, minor) = (rustix::fs::major(dev), rustix::fs::minor(dev));
    (major != 0).then_some((major, minor))
}

#[cfg(not(unix))]
fn block_device(_file: &File) -> Option<(u32, u32)> {
    None
}

/// Whether the block device `major:minor` is rotational, as sysfs (mounted at `sysfs`) says:
/// its own `queue/rotational`, or for a partition its disk's.
fn rotational(sysfs: &Path, major: u32, minor: u32) -> Option<bool> {
    let device = sysfs.join(format!("dev/block/{major}:{minor}"));
    [
        device.join("queue/rotational"),
        device.join("../queue/rotational"),
    ]
    .iter()
    .find_map(|path| std::fs::read_to_string(path).ok())
    .and_then(|flag| match flag.trim() {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_are_refused() {
        for strategy in ReadStrategy::ALL {
            assert_eq!(strategy.name().parse::<ReadStrategy>(), Ok(strategy));
        }
        assert_eq!(
            "Parallel".parse::<ReadStrategy>(),
            Ok(ReadStrategy::Parallel)
        );
        let err = "fast".parse::<ReadStrategy>().unwrap_err();
        assert!(err.contains("auto, sequential or parallel"), "{err}");
    }

    #[test]
    fn network_and_memory_file_systems_are_known_by_their_magic() {
        assert_eq!(file_system_magic_kind(0x6969), Some(Storage::Network));
        assert_eq!(file_system_magic_kind(0x6573_5546), Some(Storage::Network));
        assert_eq!(file_system_magic_kind(0x0102_1994), Some(Storage::Memory));
        // ext4, xfs, btrfs: the device decides.
        for local in [0xef53, 0x5846_5342, 0x9123_683e] {
            assert_eq!(file_system_magic_kind(local), None);
        }
    }

    /// A sysfs tree as the kernel lays it out: `dev/block/M:m` links into `devices/...`, a
    /// partition's directory inside its disk's, `queue/` only on the disk.
    #[cfg(unix)]
    #[test]
    fn sysfs_says_rotational_for_a_disk_and_its_partitions() {
        let sysfs = tempfile::tempdir().unwrap();
        let root = sysfs.path();
        let disk = |name: &str, flag: &str| {
            let dir = root.join("devices/virtual").join(name);
            std::fs::create_dir_all(dir.join("queue")).unwrap();
            std::fs::write(dir.join("queue/rotational"), flag).unwrap();
            std::fs::create_dir_all(dir.join(format!("{name}1"))).unwrap();
        };
        disk("sda", "1\n");
        disk("nvme0n1", "0\n");
        std::fs::create_dir_all(root.join("dev/block")).unwrap();
        let link = |dev: &str, target: &str| {
            std::os::unix::fs::symlink(
                Path::new("../../devices/virtual").join(target),
                root.join("dev/block").join(dev),
            )
            .unwrap();
        };
        link("8:0", "sda");
        link("8:1", "sda/sda1");
        link("259:0", "nvme0n1");
        link("259:1", "nvme0n1/nvme0n11");
        assert_eq!(rotational(root, 8, 0), Some(true));
        assert_eq!(rotational(root, 8, 1), Some(true));
        assert_eq!(rotational(root, 259, 0), Some(false));
        assert_eq!(rotational(root, 259, 1), Some(false));
        assert_eq!(rotational(root, 7, 9), None);
    }

    #[test]
    fn a_file_just_written_is_in_the_page_cache() {
        let mut file = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut file, &vec![7u8; 1 << 20]).unwrap();
        let storage = storage_of(&file, 1 << 20);
        if cfg!(target_os = "linux") {
            assert_eq!(storage, Storage::Cached);
        }
        assert!(storage.serves_parallel_reads() || !cfg!(target_os = "linux"));
    }
}
