//! **A simulation** of a slow-seeking disk, for tests and benchmarks of how parhash reads files
//! (a rotational device gets the sequential strategy by default). Not a real disk:
//! this machine has no device-mapper delay target and no nbd, and a loop device over its virtual
//! disk does not seek, so the delays are made here, in a FUSE file system.
//!
//! [`SeekFs`] serves one backing file, read-only, under its own name in the mount directory,
//! and delays each read as one disk head would ([`Model`]):
//! - requests are served one at a time (one serving thread), so parallel readers queue;
//! - a read that does not start where the previous read ended pays a seek (`seek_ms`);
//! - every read pays its length over the transfer rate (`len / rate`);
//! - the serving thread sleeps for the modelled time (on a virtual clock, so late wake-ups do
//!   not add up), then returns the backing file's bytes (`pread`).
//!
//! [`Counters`] keep the reads, seeks and bytes. Each open starts cold (no
//! `FOPEN_KEEP_CACHE`): see [`SeekFs`]. The kernel reads ahead as for a disk (128 KiB windows by
//! default; requests up to [`MAX_REQUEST`]).
//!
//! [`mount`] mounts with the mount(2) system call (root and `/dev/fuse`; no libfuse, no
//! fusermount) and serves from a background thread until the returned [`Mounted`] is dropped.
//! The `seekfs` binary does the same until SIGINT or SIGTERM.
//!
//! [`Faults`] injected per mount ([`SeekFs::faults`], the binary's `--fail-at`, `--short-reads`
//! and `--change-*` flags) make reads fail with `EIO`, serve fewer bytes than asked, or see
//! the file change under them; [`Model::INSTANT`] takes the delays away for such tests.
//!
//! FUSE file systems count as network storage to parhash (`Storage::Network`), read as one
//! stream by `ReadStrategy::Auto`.

#![forbid(unsafe_code)]

mod faults;
#[cfg(target_os = "linux")]
mod fs;
mod model;

pub use faults::{Change, FaultState, Faults, ReadError, Served, TOUCH};
#[cfg(target_os = "linux")]
pub use fs::{mount, Mounted, SeekFs, MAX_REQUEST};
pub use model::{Counters, Head, Model, Stats};
