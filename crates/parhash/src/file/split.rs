//! [`ReadStrategy::Parallel`](super::ReadStrategy::Parallel): the hashing threads read their
//! own pieces of one file with positional reads and hash them, for the algorithms whose one
//! message splits ([`Plan::splits`]). Each copy from the page cache lands in the cache of the
//! core that hashes it, and no thread waits for a reader.
//!
//! The machinery that splits a message over machines, here over cores: the
//! [`parts`](crate::parts) plan the library makes for threads, each part taken from a shared
//! counter and hashed on one thread from what that thread reads ([`Plan::hash_part_from`]),
//! and the states combined.
//!
//! A file in the page cache or on tmpfs is mapped instead where the caller allows it
//! ([`crate::mapped`]): parts that each read one range of the message are hashed in place by
//! the threads; interleaved ones ([`Plan::interleaved`]) are not worth it, and the message is
//! streamed from the map through the algorithm's own hasher, which spreads each round over
//! the threads (see `stream_mapped`).
//!
//! A file that shrinks is caught by the read that finds its end early (from a map: by the
//! fault, or by its length once hashed), one that grows by the byte past the end
//! ([`super::read::check_end`]), as on the sequential path.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use super::read::{check_end, read_piece_at};
#[cfg(target_os = "linux")]
use super::read::{check_mapped_end, mapped_fault};
use super::FileVersion;
use crate::parts::{PartError, PartState, Plan};
use crate::threads::run_workers;
use crate::{HasherBuilder, Output, Threads};

/// The fewest bytes worth splitting: below, one thread reads and the hasher's own threads
/// share the pieces.
pub(super) const SPLIT_FROM: u64 = 4 << 20;

/// Whether [`hash`] can compute what `builder`'s hasher computes: an algorithm that splits,
/// no forced variant (the kernel asked for runs on the sequential path), no key (a plan's
/// parts are the plain hash's), any digest size the algorithm has.
pub(super) fn can_split(builder: &HasherBuilder) -> bool {
    let (variant, _, _) = builder.settings();
    variant.is_none() && !builder.keyed() && Plan::splits(builder.algorithm())
}

/// The digest of the `len` bytes of `file` (at least [`SPLIT_FROM`]) as `builder`'s hasher
/// gives it, hashed by `threads` threads (at least 2) that read their own pieces; `hashed` is
/// told of every piece hashed, from the thread that hashed it.
///
/// # Errors
/// A read error; [`super::FileChangedSize`] for a file that shrank or grew meanwhile.
#[cfg_attr(not(target_os = "linux"), allow(unused_variables))] // `map`: maps are Linux-only
pub(super) fn hash(
    file: &File,
    len: u64,
    builder: &HasherBuilder,
    threads: Threads,
    map: bool,
    hashed: &(dyn Fn(usize) + Sync),
) -> io::Result<Output> {
    #[cfg(target_os = "linux")]
    if let Some(mapping) = map
        .then(|| crate::mapped::Mapping::new(file, len))
        .flatten()
    {
        return hash_mapped(&mapping, file, len, builder, threads, hashed);
    }
    let read = |offset: u64, buf: &mut [u8]| read_piece_at(file, buf, offset, len);
    let plan = plan_for(len, builder, threads)?;
    let digest = hash_parts(read, len, &plan, threads, hashed)?;
    check_end(file, len)?;
    Ok(digest)
}

/// The plan for [`hash_sparse`] of a file of `len` bytes with holes, where one pays: parts that
/// each read one range of the message. Interleaved ones ([`Plan::interleaved`]) are streamed
/// through the algorithm's own hasher instead, as from a map, which also refuses a tree too
/// tall to stream in bounded memory.
///
/// # Errors
/// A plan that cannot be made for this length.
pub(super) fn sparse_plan(
    len: u64,
    builder: &HasherBuilder,
    threads: Threads,
) -> io::Result<Option<Plan>> {
    Ok(Some(plan_for(len, builder, threads)?).filter(|plan| !plan.interleaved()))
}

/// [`hash`] of a file with holes (`extents` is its data) by `plan` ([`sparse_plan`]): the
/// threads read the data and zero the holes in their own buffers, so the holes' zeros are
/// hashed over all of them too (one stream hashed them on one thread at a time), and no hole is
/// read or mapped (either fills the page cache with zeros: [`super::sparse`]).
///
/// # Errors
/// As [`hash`].
pub(super) fn hash_sparse(
    file: &File,
    len: u64,
    extents: &super::sparse::Extents,
    plan: &Plan,
    threads: Threads,
    hashed: &(dyn Fn(usize) + Sync),
) -> io::Result<Output> {
    let read = |offset: u64, buf: &mut [u8]| extents.read_at(file, buf, offset, len);
    let digest = hash_parts(read, len, plan, threads, hashed)?;
    check_end(file, len)?;
    Ok(digest)
}

/// Part `index` of `plan` hashed from `file` (its [`Plan::ranges`], positional reads), the
/// state recording which version of the file it read ([`FileVersion::to_bytes`] as
/// [`PartState::with_identity`]), so that parts of two versions of one file do not combine
/// into the digest of neither. The version is taken when the part starts and checked when it
/// ends, as a whole file's is ([`FileVersion::check`]).
///
/// # Errors
/// [`PartError::LengthMismatch`] for a regular file that is not the plan's message length;
/// [`PartError::Io`] with a read error, or with [`super::FileChangedSize`] or
/// [`super::FileModified`] for a file that changed while the part was read; those of
/// [`Plan::hash_part_from`].
pub fn hash_part(plan: &Plan, index: usize, file: &File) -> Result<PartState, PartError> {
    let version = version_for(plan, file)?;
    let read = super::sparse::positional_reader(file, plan.message_len());
    let state = plan.hash_part_from(index, read)?;
    match version {
        Some(version) => {
            version.check(file)?;
            Ok(state.with_identity(version.to_bytes()))
        }
        None => Ok(state),
    }
}

/// The digest from the states of all of `plan`'s parts, reading [`Plan::combine_ranges`] from
/// `file`, whose version must be the one the parts read, where they record one
/// ([`Plan::combine_from_version`]; see [`hash_part`]). The version is checked again once
/// read.
///
/// # Errors
/// Those of [`hash_part`] about the file, and of [`Plan::combine_from`] about the states;
/// [`PartError::MixedVersions`] for parts that read another version than each other or than
/// `file` is now.
pub fn combine_parts<'a>(
    plan: &Plan,
    states: impl IntoIterator<Item = &'a PartState>,
    file: &File,
) -> Result<Output, PartError> {
    let read = super::sparse::positional_reader(file, plan.message_len());
    let Some(version) = version_for(plan, file)? else {
        return plan.combine_from(states, read);
    };
    let digest = plan.combine_from_version(states, &version.to_bytes(), read)?;
    version.check(file)?;
    Ok(digest)
}

/// `file`'s version where it is a regular file, which must then be `plan`'s message length.
fn version_for(plan: &Plan, file: &File) -> Result<Option<FileVersion>, PartError> {
    let version = FileVersion::of(file);
    if let Some(version) = version {
        let (expected, found) = (plan.message_len(), version.len());
        if found != expected {
            return Err(PartError::LengthMismatch { expected, found });
        }
    }
    Ok(version)
}

/// [`hash`] from a map of the file (in the page cache): each thread hashes its pieces in place,
/// with no copy. A page the file lost meanwhile reads as zeros and marks the map, which is
/// then reported as the file's change ([`mapped_fault`]).
#[cfg(target_os = "linux")]
fn hash_mapped(
    mapping: &crate::mapped::Mapping,
    file: &File,
    len: u64,
    builder: &HasherBuilder,
    threads: Threads,
    hashed: &(dyn Fn(usize) + Sync),
) -> io::Result<Output> {
    let plan = plan_for(len, builder, threads)?;
    let digest = if plan.interleaved() {
        stream_mapped(mapping, file, len, builder, threads, hashed)?
    } else {
        parts_in_place(mapping, file, len, &plan, threads, hashed)?
    };
    if mapping.faulted() {
        return Err(mapped_fault(file, len));
    }
    check_mapped_end(file, len)?;
    Ok(digest)
}

/// The parts of `plan` (each reading one range of the message) hashed in place from the map
/// ([`in_place`]), then combined.
#[cfg(target_os = "linux")]
fn parts_in_place(
    mapping: &crate::mapped::Mapping,
    file: &File,
    len: u64,
    plan: &Plan,
    threads: Threads,
    hashed: &(dyn Fn(usize) + Sync),
) -> io::Result<Output> {
    debug_assert_eq!(mapping.bytes().len() as u64, len);
    let bytes = mapping.bytes();
    let states = in_place(
        mapping,
        file,
        plan.parts(),
        |index| plan.ranges(index),
        threads,
        hashed,
        |index| plan.hash_part(index, bytes).map_err(into_io),
    )?;
    plan.combine(&states, bytes).map_err(into_io)
}

/// `work(index)` for parts `0..parts` of a map, part `index` reading the byte ranges
/// `ranges(index)` of it, on `threads` threads taking them from a shared counter; the results
/// in part order, every part's bytes reported to `hashed` (the whole map at the end). Parts of
/// at least [`POPULATE_FROM`] are mapped in before they are hashed and dropped once they are;
/// smaller ones fault in as they are read and are dropped in batches ([`released_after`]).
#[cfg(target_os = "linux")]
pub(crate) fn in_place<T: Send>(
    mapping: &crate::mapped::Mapping,
    file: &File,
    parts: usize,
    ranges: impl Fn(usize) -> Vec<std::ops::Range<u64>> + Sync,
    threads: Threads,
    hashed: &(dyn Fn(usize) + Sync),
    work: impl Fn(usize) -> io::Result<T> + Sync,
) -> io::Result<Vec<T>> {
    let bytes = mapping.bytes();
    let len = bytes.len() as u64;
    let span = |index: usize| {
        let range = ranges(index).last().cloned().unwrap_or(0..0);
        range.start as usize..range.end as usize
    };
    let part_bytes = span(0).len().max(1);
    let whole = part_bytes >= POPULATE_FROM;
    let batch = (RELEASE_BYTES / part_bytes).max(1);
    let report = capped_progress(len, hashed);
    let results = on_threads(parts, threads, |index| {
        let ranges = ranges(index);
        for range in ranges.iter().filter(|_| whole) {
            if !mapping.populate(range.start as usize..range.end as usize) {
                return Err(mapped_fault(file, len));
            }
        }
        let result = work(index)?;
        if whole {
            for range in &ranges {
                mapping.release(range.start as usize..range.end as usize);
            }
        } else if let Some(done) = released_after(index, parts, batch) {
            mapping.release(span(done.start).start..span(done.end - 1).end);
        }
        report(ranges.iter().map(|r| r.end - r.start).sum());
        Ok(result)
    })?;
    if !whole {
        let tail = unreleased_from(parts, batch);
        release_on_threads(mapping, span(tail).start..bytes.len(), threads)?;
    }
    report(len);
    Ok(results)
}

/// Parts of at least this many bytes are mapped in before they are hashed
/// (`MADV_POPULATE_READ`, one system call instead of a fault every 64 KiB): SANDstorm's
/// 32 MiB parts gained by it, while BLAKE3's 1 MiB parts, populated by two threads side by
/// side in the same page tables, lost (BENCHMARKS.md).
#[cfg(target_os = "linux")]
const POPULATE_FROM: usize = 4 << 20;

/// Bytes of small parts whose mappings are dropped together (32 of BLAKE3's 1 MiB parts):
/// each drop (`MADV_DONTNEED`) flushes the mappings from every core the process runs on (an
/// inter-processor interrupt each), too costly once per 1 MiB (BENCHMARKS.md, files from a
/// map).
#[cfg(target_os = "linux")]
const RELEASE_BYTES: usize = 32 << 20;

/// The parts whose mappings to drop once part `index` of `parts` is hashed: every `batch`
/// parts, the batch before the one just finished. The threads take parts in order, so those
/// are done; if a slowed thread still hashes one of them, its pages map again from the page
/// cache as it reads them (a fault, not a wrong byte). Nothing after the last part: what is
/// left then ([`unreleased_from`]) is dropped by all the threads at once (one thread dropping
/// the last 32 MiB, then the map's `munmap` the rest, left the other thread idle: BENCHMARKS.md,
/// files from a map). Resident memory stays at most two batches and the parts in flight.
#[cfg(target_os = "linux")]
fn released_after(index: usize, parts: usize, batch: usize) -> Option<std::ops::Range<usize>> {
    let done = index + 1;
    (done < parts && done % batch == 0 && done >= 2 * batch).then(|| done - 2 * batch..done - batch)
}

/// The first of `parts` parts that [`released_after`] never drops: the last batch it drops
/// ends there.
#[cfg(target_os = "linux")]
fn unreleased_from(parts: usize, batch: usize) -> usize {
    let last_batch_end = parts.saturating_sub(1) / batch * batch;
    if last_batch_end >= 2 * batch {
        last_batch_end - batch
    } else {
        0
    }
}

/// Drops the mappings of `range` on `threads` threads, [`RELEASE_SHARE`] each at a time: one
/// thread dropping a whole chunk left the others idle (BENCHMARKS.md, files from a map).
#[cfg(target_os = "linux")]
fn release_on_threads(
    mapping: &crate::mapped::Mapping,
    range: std::ops::Range<usize>,
    threads: Threads,
) -> io::Result<()> {
    on_shares(range, threads, |share| {
        mapping.release(share);
        Ok(())
    })
}

/// Runs `each` on the [`RELEASE_SHARE`]-sized shares of `range`, on `threads` threads.
#[cfg(target_os = "linux")]
fn on_shares(
    range: std::ops::Range<usize>,
    threads: Threads,
    each: impl Fn(std::ops::Range<usize>) -> io::Result<()> + Sync,
) -> io::Result<()> {
    let shares = range.len().div_ceil(RELEASE_SHARE);
    on_threads(shares, threads.at_most(shares), |i| {
        let start = range.start + i * RELEASE_SHARE;
        each(start..(start + RELEASE_SHARE).min(range.end))
    })?;
    Ok(())
}

/// Maps `range` in on `threads` threads, [`RELEASE_SHARE`] each at a time: one thread mapping
/// a whole chunk in kept the others idle (BENCHMARKS.md, PARSHA-256 from a map).
///
/// # Errors
/// [`super::FileChangedSize`] where part of the range is past the file's end.
#[cfg(target_os = "linux")]
fn populate_on_threads(
    mapping: &crate::mapped::Mapping,
    file: &File,
    len: u64,
    range: std::ops::Range<usize>,
    threads: Threads,
) -> io::Result<()> {
    on_shares(range, threads, |share| {
        if mapping.populate(share) {
            Ok(())
        } else {
            Err(mapped_fault(file, len))
        }
    })
}

/// Bytes of a map streamed through PARSHA-256's hasher at a time: mapped before, dropped after.
/// (1 MiB in tests, so that a file of a few MiB spans several.) Each `update` costs more than
/// its hashing (its threads meet at the end, the rounds that cross its end wait for the next
/// one), so chunks are large; larger than 64 MiB gained nothing (BENCHMARKS.md, PARSHA-256
/// from a map).
#[cfg(target_os = "linux")]
const STREAM_CHUNK: usize = if cfg!(test) { 1 << 20 } else { 64 << 20 };

/// PARSHA-256 from a map: the message streamed in order, [`STREAM_CHUNK`] at a time, through
/// its own hasher on `threads` threads, which spreads each round's compressions over them as
/// it does for a message in memory. The parts plan (the read path) does more: two parts of
/// 64 MiB cost ~20 % more compressions than one and are unequal, and each part reads a share
/// of every round. Each chunk's pages are mapped in one call before and dropped after (on the
/// threads), so resident memory stays a chunk.
#[cfg(target_os = "linux")]
fn stream_mapped(
    mapping: &crate::mapped::Mapping,
    file: &File,
    len: u64,
    builder: &HasherBuilder,
    threads: Threads,
    hashed: &(dyn Fn(usize) + Sync),
) -> io::Result<Output> {
    let mut hasher =
        (builder.clone().threads(threads).expected_len(len).build()).map_err(io::Error::other)?;
    let bytes = mapping.bytes();
    for start in (0..bytes.len()).step_by(STREAM_CHUNK) {
        let range = start..(start + STREAM_CHUNK).min(bytes.len());
        populate_on_threads(mapping, file, len, range.clone(), threads)?;
        hasher.update(&bytes[range.clone()]);
        release_on_threads(mapping, range.clone(), threads)?;
        hashed(range.len());
    }
    Ok(hasher.finalize())
}

/// Bytes of a map that one thread drops at a time ([`release_on_threads`]): a multiple of 2 MiB, so
/// that on a map starting at a 2 MiB boundary (as large ones do here) no two threads drop
/// entries of one page table.
#[cfg(target_os = "linux")]
const RELEASE_SHARE: usize = 4 << 20;

/// The parts plan of a `len`-byte message, each part hashed by the thread that reads it
/// through `read(offset, buf)`.
fn hash_parts(
    read: impl Fn(u64, &mut [u8]) -> io::Result<()> + Sync,
    len: u64,
    plan: &Plan,
    threads: Threads,
    hashed: &(dyn Fn(usize) + Sync),
) -> io::Result<Output> {
    let read = &read;
    let report = capped_progress(len, hashed);
    let states = on_threads(plan.parts(), threads, |index| {
        let state = plan.hash_part_from(index, read).map_err(into_io)?;
        report(plan.ranges(index).iter().map(|r| r.end - r.start).sum());
        Ok(state)
    })?;
    let digest = plan.combine_from(&states, read).map_err(into_io)?;
    report(len);
    Ok(digest)
}

/// `hashed` told of the bytes of parts as they finish, at most `len` in all: parts may share a
/// few bytes (a first block every part reads).
fn capped_progress(len: u64, hashed: &(dyn Fn(usize) + Sync)) -> impl Fn(u64) + Sync + '_ {
    let reported = AtomicU64::new(0);
    move |bytes: u64| {
        let before = reported
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| {
                Some((r + bytes).min(len))
            })
            .expect("the update always gives a value");
        let step = (before + bytes).min(len) - before;
        if step > 0 {
            hashed(step as usize);
        }
    }
}

/// The parts plan of a `len`-byte message for `builder`'s hasher on `threads` threads, each
/// part hashed on one thread.
fn plan_for(len: u64, builder: &HasherBuilder, threads: Threads) -> io::Result<Plan> {
    let (_, tree_params, digest_size) = builder.settings();
    let mut plan = Plan::builder(builder.algorithm()).threads(Threads::ONE);
    if let Some(params) = tree_params {
        plan = plan.tree_params(params);
    }
    if let Some(size) = digest_size {
        plan = plan.digest_size(size);
    }
    plan.build_for_threads(len, threads).map_err(into_io)
}

/// Runs `unit(0..count)` on `threads` threads, each unit taken by the next free thread from a
/// shared counter (a thread slowed down takes fewer); the results in unit order. After an
/// error no thread takes another unit, and the first error is returned.
fn on_threads<T: Send>(
    count: usize,
    threads: Threads,
    unit: impl Fn(usize) -> io::Result<T> + Sync,
) -> io::Result<Vec<T>> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let runs = run_workers(threads, || -> io::Result<Vec<(usize, T)>> {
        let mut mine = Vec::new();
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= count || failed.load(Ordering::Relaxed) {
                return Ok(mine);
            }
            match unit(index) {
                Ok(result) => mine.push((index, result)),
                Err(err) => {
                    failed.store(true, Ordering::Relaxed);
                    return Err(err);
                }
            }
        }
    });
    let mut results = Vec::with_capacity(count);
    for run in runs {
        results.extend(run?);
    }
    results.sort_unstable_by_key(|&(index, _)| index);
    Ok(results.into_iter().map(|(_, result)| result).collect())
}

/// A read error back as itself (a [`super::FileChangedSize`] stays findable); anything else
/// (which the plan built here cannot give) as an error of its own.
fn into_io(err: PartError) -> io::Error {
    match err {
        PartError::Io(err) => err,
        other => io::Error::other(other),
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use crate::{Algorithm, Hasher};
    use std::io::Write;
    use std::sync::Once;

    /// Every part's mapping is dropped exactly once: by a batch only once it is hashed (in
    /// order), or with the tail after the last part.
    #[test]
    fn every_mapped_part_is_released_once_after_it_is_hashed() {
        for b in [1, 2, 32] {
            for parts in [
                1,
                2,
                b + 1,
                2 * b - 1,
                2 * b,
                2 * b + 1,
                3 * b,
                5 * b + 7,
                32 * b,
            ] {
                let mut released = vec![0; parts];
                for index in 0..parts {
                    if let Some(range) = released_after(index, parts, b) {
                        assert!(range.end <= index + 1, "{parts}: {range:?} after {index}");
                        range.for_each(|i| released[i] += 1);
                    }
                }
                // The parts no batch covered are dropped after the last one is hashed.
                let tail = unreleased_from(parts, b);
                let what = format!("{parts} by {b}: {released:?}");
                assert!(released[..tail].iter().all(|&n| n == 1), "{what}");
                assert!(released[tail..].iter().all(|&n| n == 0), "{what}");
                // At most the last two batches wait for the end.
                assert!(parts - tail <= 2 * b, "{what}: from {tail}");
            }
        }
    }

    fn file_of(data: &[u8]) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(data).unwrap();
        file.flush().unwrap();
        file
    }

    const MIB: usize = 1 << 20;

    /// Every algorithm that splits, each as the library plans it (small parts hashed in
    /// place, large ones populated first, interleaved ones streamed through the hasher).
    fn builders() -> Vec<HasherBuilder> {
        let splitting: Vec<Algorithm> = Algorithm::ALL
            .iter()
            .copied()
            .filter(|&alg| Plan::splits(alg))
            .collect();
        assert!(splitting.len() > 2, "{splitting:?}");
        splitting
            .into_iter()
            .map(|alg| Hasher::builder(alg).threads(Threads::new(2)))
            .collect()
    }

    /// The map path (asserted available here, so the test cannot pass on the read path
    /// alone) gives the digest of the read path and of the message in memory.
    #[test]
    fn the_map_and_the_reads_give_one_digest() {
        let len = 4 * MIB + 12_345;
        let data: Vec<u8> = (0..len).map(|i| (i * 131 + i / 977) as u8).collect();
        let file = file_of(&data);
        let file = file.as_file();
        assert!(crate::mapped::Mapping::new(file, len as u64).is_some());
        for builder in builders() {
            let mut expected = builder.clone().build().unwrap();
            expected.update(&data);
            let expected = expected.finalize();
            for map in [true, false] {
                let counted = AtomicUsize::new(0);
                let count = |n: usize| {
                    counted.fetch_add(n, Ordering::Relaxed);
                };
                let got = hash(file, len as u64, &builder, Threads::new(2), map, &count).unwrap();
                let what = format!("{}, map {map}", builder.algorithm());
                assert_eq!(got, expected, "{what}");
                assert_eq!(counted.into_inner(), len, "{what}: progress");
            }
        }
    }

    /// Parts of one file hashed one by one (as on several machines): unchanged, they combine
    /// to the file's digest; rewritten in place between two parts with its size kept and its
    /// time moved, they do not combine, and the combine step's read of the new version is
    /// refused too.
    #[test]
    fn parts_of_a_file_rewritten_between_them_do_not_combine() {
        let len = 3 * MIB + 1;
        let old: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
        for algorithm in [
            Algorithm::Parsha256,
            Algorithm::Sandstorm256,
            Algorithm::Blake3,
        ] {
            let file = file_of(&old);
            let handle = file.as_file();
            let plan = Plan::new(algorithm, len as u64, 2).unwrap();
            assert_eq!(plan.parts(), 2, "{algorithm}");
            let first = hash_part(&plan, 0, handle).unwrap();
            let second = hash_part(&plan, 1, handle).unwrap();
            assert!(first.identity().is_some());
            let whole = combine_parts(&plan, [&second, &first], handle).unwrap();
            assert_eq!(whole, crate::hash(algorithm, &old), "{algorithm}");

            let new: Vec<u8> = old.iter().map(|b| b ^ 1).collect();
            std::fs::write(file.path(), &new).unwrap();
            let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
            handle.set_modified(later).unwrap();
            let rewritten = hash_part(&plan, 1, handle).unwrap();
            let err = combine_parts(&plan, [&first, &rewritten], handle).unwrap_err();
            assert_eq!(
                err,
                PartError::MixedVersions {
                    part: 1,
                    other: Some(0)
                },
                "{algorithm}"
            );
            if !plan.combine_ranges().is_empty() {
                let err = combine_parts(&plan, [&first, &second], handle).unwrap_err();
                assert_eq!(
                    err,
                    PartError::MixedVersions {
                        part: 0,
                        other: None
                    },
                    "{algorithm}"
                );
            }
            let again = hash_part(&plan, 0, handle).unwrap();
            let digest = combine_parts(&plan, [&again, &rewritten], handle).unwrap();
            assert_eq!(digest, crate::hash(algorithm, &new), "{algorithm}");
            handle.set_len(len as u64 - 1).unwrap();
            assert!(matches!(
                hash_part(&plan, 0, handle),
                Err(PartError::LengthMismatch { .. })
            ));
        }
    }

    /// A file truncated while its map is hashed is the reads' error, never a `SIGBUS`.
    #[test]
    fn a_file_truncated_under_the_map_is_an_error() {
        let len = 12 * MIB + 7;
        let data = vec![0x5a; len];
        for builder in builders() {
            let file = file_of(&data);
            let handle = file.as_file();
            assert!(crate::mapped::Mapping::new(handle, len as u64).is_some());
            let cut = Once::new();
            let truncate = |_: usize| {
                cut.call_once(|| handle.set_len(MIB as u64 / 2).unwrap());
            };
            let err = hash(
                handle,
                len as u64,
                &builder,
                Threads::new(2),
                true,
                &truncate,
            )
            .expect_err("the file shrank");
            let changed = err
                .get_ref()
                .and_then(|e| e.downcast_ref::<super::super::FileChangedSize>())
                .unwrap_or_else(|| panic!("{}: {err}", builder.algorithm()));
            assert_eq!(changed.expected, len as u64);
            assert_eq!(changed.found, Some(MIB as u64 / 2));
        }
    }
}
