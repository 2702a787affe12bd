//! [`ReadStrategy::Parallel`](super::ReadStrategy::Parallel): the hashing threads read their
//! own pieces of one file with positional reads and hash them, for the algorithms whose one
//! message splits over threads. Each copy from the page cache lands in the cache of the core
//! that hashes it, and no thread waits for a reader.
//!
//! - BLAKE3: pieces of [`blake3::PIECE`] (1 MiB, complete subtrees), taken from a shared
//!   counter, each thread hashing the ones it read; their chaining values are joined as the
//!   tree says ([`blake3::output_from_pieces`]).
//! - SANDstorm and PARSHA-256: the [`parts`](crate::parts) plan of the message, each part
//!   hashed on one thread from what that thread reads ([`Plan::hash_part_from`]), and the
//!   states combined: the machinery that splits a message over machines, here over cores.
//!
//! A file in the page cache or on tmpfs is mapped instead where the caller allows it
//! ([`crate::mapped`]): BLAKE3's pieces and SANDstorm's parts are hashed in place by the
//! threads, and PARSHA-256 is streamed from the map through its own hasher, which spreads each
//! round over the threads (cheaper than its parts: see `stream_mapped`).
//!
//! A file that shrinks is caught by the read that finds its end early (from a map: by the
//! fault, or by its length once hashed), one that grows by the byte past the end
//! ([`super::read::check_end`]), as on the sequential path.

use std::fs::File;
use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use super::read::{check_end, give_back, read_piece_at, take_buffer};
#[cfg(target_os = "linux")]
use super::read::{check_mapped_end, mapped_fault};
use crate::algo::blake3;
use crate::parts::{PartError, Plan};
use crate::threads::run_workers;
use crate::{Algorithm, HasherBuilder, Output, Threads};

/// Bytes per part of a tree mode's plan: parts are taken from a shared counter, so a thread
/// that was slowed down takes fewer; enough of them to balance, few enough that the combine
/// step (a chaining value or a tree's top per part) stays negligible.
const PART_BYTES: u64 = 32 << 20;

/// The fewest bytes worth splitting: below, one thread reads and the hasher's own threads
/// share the pieces.
pub(super) const SPLIT_FROM: u64 = 4 * blake3::PIECE as u64;

/// Whether [`hash`] can compute what `builder`'s hasher computes: an algorithm that splits
/// over threads, no forced variant (the kernel asked for runs on the sequential path), and for
/// BLAKE3 any digest size.
pub(super) fn can_split(builder: &HasherBuilder) -> bool {
    let (variant, _, _) = builder.settings();
    let algorithm = builder.algorithm();
    // A keyed BLAKE3 is hashed by its own pieces (`piece_chaining_value` is the plain hash's).
    variant.is_none()
        && !builder.keyed()
        && (algorithm == Algorithm::Blake3 || Plan::splits(algorithm))
}

/// The digest of the `len` bytes of `file` (at least [`SPLIT_FROM`]) as `builder`'s hasher
/// gives it, hashed by `threads` threads (at least 2) that read their own pieces; `hashed` is
/// told of every piece hashed, from the thread that hashed it.
///
/// # Errors
/// A read error; [`super::FileChangedSize`] for a file that shrank or grew meanwhile.
pub(super) fn hash(
    file: &File,
    len: u64,
    builder: &HasherBuilder,
    threads: Threads,
    map: bool,
    hashed: &(dyn Fn(usize) + Sync),
) -> io::Result<Output> {
    #[cfg(target_os = "linux")]
    if map {
        if let Some(mapping) = crate::mapped::Mapping::new(file, len) {
            return hash_mapped(&mapping, file, len, builder, threads, hashed);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = map;
    let digest = if builder.algorithm() == Algorithm::Blake3 {
        hash_blake3(file, len, builder, threads, hashed)?
    } else {
        hash_parts(file, len, builder, threads, hashed)?
    };
    check_end(file, len)?;
    Ok(digest)
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
    let bytes = mapping.bytes();
    let digest = if builder.algorithm() == Algorithm::Parsha256 {
        stream_mapped(mapping, file, len, builder, threads, hashed)?
    } else if builder.algorithm() == Algorithm::Blake3 {
        let piece = blake3::PIECE;
        let pieces = bytes.len().div_ceil(piece);
        let cvs = on_threads(pieces, threads, |index| {
            let range = index * piece..((index + 1) * piece).min(bytes.len());
            // The pages fault in as they are read (a page the file lost reads as zeros and
            // marks the map). Mapping each 1 MiB piece in first (`MADV_POPULATE_READ`, as the
            // tree modes' 32 MiB parts are) cost 1.4x the time on a cached 64 MiB file and
            // 1.05x on 1 GiB (two threads: both populate the same page tables).
            let cv = blake3::piece_chaining_value(range.start as u64, &bytes[range.clone()]);
            if let Some(done) = released_after(index, pieces) {
                mapping.release(done.start * piece..done.end * piece);
            }
            hashed(range.len());
            Ok(cv)
        })?;
        release_on_threads(
            mapping,
            unreleased_from(pieces) * piece..bytes.len(),
            threads,
        )?;
        blake3_digest(builder, &cvs)
    } else {
        let plan = plan_for(len, builder, threads)?;
        let report = capped_progress(len, hashed);
        let states = on_threads(plan.parts(), threads, |index| {
            let ranges = plan.ranges(index);
            for range in &ranges {
                if !mapping.populate(range.start as usize..range.end as usize) {
                    return Err(mapped_fault(file, len));
                }
            }
            let state = plan.hash_part(index, bytes).map_err(into_io)?;
            for range in &ranges {
                mapping.release(range.start as usize..range.end as usize);
            }
            report(ranges.iter().map(|r| r.end - r.start).sum());
            Ok(state)
        })?;
        let digest = plan.combine(&states, bytes).map_err(into_io)?;
        report(len);
        digest
    };
    if mapping.faulted() {
        return Err(mapped_fault(file, len));
    }
    check_mapped_end(file, len)?;
    Ok(digest)
}

/// Pieces whose mappings are dropped together (32 MiB of BLAKE3's 1 MiB pieces): each drop
/// (`MADV_DONTNEED`) flushes the mappings from every core the process runs on (an
/// inter-processor interrupt each), too costly once per piece (BENCHMARKS.md, files from a
/// map).
#[cfg(target_os = "linux")]
const RELEASE_PIECES: usize = 32;

/// The pieces whose mappings to drop once piece `index` of `pieces` is hashed: every
/// [`RELEASE_PIECES`] pieces, the batch before the one just finished. The threads take pieces
/// in order, so those are done; if a slowed thread still hashes one of them, its pages map
/// again from the page cache as it reads them (a fault, not a wrong byte). Nothing after the
/// last piece: what is left then ([`unreleased_from`]) is dropped by all the threads at once
/// (one thread dropping the last 32 MiB, then the map's `munmap` the rest, left the other
/// thread idle: BENCHMARKS.md, files from a map). Resident memory stays at most two batches
/// and the pieces in flight.
#[cfg(target_os = "linux")]
fn released_after(index: usize, pieces: usize) -> Option<std::ops::Range<usize>> {
    let done = index + 1;
    (done < pieces && done % RELEASE_PIECES == 0 && done >= 2 * RELEASE_PIECES)
        .then(|| done - 2 * RELEASE_PIECES..done - RELEASE_PIECES)
}

/// The first of `pieces` pieces that [`released_after`] never drops: the last batch it drops
/// ends there.
#[cfg(target_os = "linux")]
fn unreleased_from(pieces: usize) -> usize {
    let last_batch_end = pieces.saturating_sub(1) / RELEASE_PIECES * RELEASE_PIECES;
    if last_batch_end >= 2 * RELEASE_PIECES {
        last_batch_end - RELEASE_PIECES
    } else {
        0
    }
}

/// Drops the mappings of `range` on `threads` threads, [`RELEASE_SHARE`] each at a time: one
/// thread dropping 64 MiB left the others idle for ~1.3-2 ms (PARSHA-256's chunk: 0.93-0.97x
/// the time of a cached 64 MiB file on two threads; BLAKE3's last pieces: 0.935x).
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

/// BLAKE3: 1 MiB pieces from a shared counter, each thread with a buffer of its own.
fn hash_blake3(
    file: &File,
    len: u64,
    builder: &HasherBuilder,
    threads: Threads,
    hashed: &(dyn Fn(usize) + Sync),
) -> io::Result<Output> {
    let piece = blake3::PIECE as u64;
    let cvs = on_threads(len.div_ceil(piece) as usize, threads, |index| {
        let offset = index as u64 * piece;
        let mut buf = take_buffer(blake3::PIECE);
        let bytes = &mut buf[..(len - offset).min(piece) as usize];
        let read = read_piece_at(file, bytes, offset, len);
        let cv = read.map(|()| blake3::piece_chaining_value(offset, bytes));
        let hashed_bytes = bytes.len();
        give_back(buf);
        if cv.is_ok() {
            hashed(hashed_bytes);
        }
        cv
    })?;
    Ok(blake3_digest(builder, &cvs))
}

/// BLAKE3's digest of `builder`'s size from the chaining values of the message's pieces.
fn blake3_digest(builder: &HasherBuilder, cvs: &[::blake3::hazmat::ChainingValue]) -> Output {
    let (_, _, size) = builder.settings();
    let mut digest = vec![0; size.unwrap_or(Algorithm::Blake3.digest_size())];
    blake3::output_from_pieces(cvs).fill(&mut digest);
    Output::from_slice(&digest)
}

/// SANDstorm and PARSHA-256: the parts plan, each part hashed by the thread that reads it.
fn hash_parts(
    file: &File,
    len: u64,
    builder: &HasherBuilder,
    threads: Threads,
    hashed: &(dyn Fn(usize) + Sync),
) -> io::Result<Output> {
    let plan = plan_for(len, builder, threads)?;
    let read = |offset: u64, buf: &mut [u8]| read_piece_at(file, buf, offset, len);
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
/// few bytes (SANDstorm's first block).
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

/// The parts plan of a `len`-byte message for `builder`'s tree mode on `threads` threads.
fn plan_for(len: u64, builder: &HasherBuilder, threads: Threads) -> io::Result<Plan> {
    let (_, tree_params, _) = builder.settings();
    let mut plan = Plan::builder(builder.algorithm()).threads(Threads::ONE);
    if let Some(params) = tree_params {
        plan = plan.tree_params(params);
    }
    // SANDstorm's parts are contiguous ranges: many of them balance the threads. A
    // PARSHA-256 part reads its share of every round (about 768 KiB a round for T = 13), so
    // each extra part cuts every read smaller: one part per thread.
    let wanted = if builder.algorithm() == Algorithm::Parsha256 {
        threads.count() as u64
    } else {
        (len / PART_BYTES).max(2 * threads.count() as u64)
    };
    plan.build(len, wanted.min(u32::MAX as u64) as usize)
        .map_err(into_io)
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
    use crate::Hasher;
    use std::io::Write;
    use std::sync::Once;

    /// Every piece's mapping is dropped exactly once: by a batch only once it is hashed (in
    /// order), or with the tail after the last piece.
    #[cfg(target_os = "linux")]
    #[test]
    fn every_mapped_piece_is_released_once_after_it_is_hashed() {
        let b = RELEASE_PIECES;
        for pieces in [
            1,
            2,
            b - 1,
            b,
            b + 1,
            2 * b - 1,
            2 * b,
            2 * b + 1,
            3 * b,
            5 * b + 7,
        ] {
            let mut released = vec![0; pieces];
            for index in 0..pieces {
                if let Some(range) = released_after(index, pieces) {
                    assert!(range.end <= index + 1, "{pieces}: {range:?} after {index}");
                    range.for_each(|i| released[i] += 1);
                }
            }
            // The pieces no batch covered are dropped after the last one is hashed.
            let tail = unreleased_from(pieces);
            assert!(
                released[..tail].iter().all(|&n| n == 1),
                "{pieces}: {released:?}"
            );
            assert!(
                released[tail..].iter().all(|&n| n == 0),
                "{pieces}: {released:?}"
            );
            // At most the last two batches wait for the end.
            assert!(pieces - tail <= 2 * b, "{pieces}: from {tail}");
        }
    }

    fn file_of(data: &[u8]) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(data).unwrap();
        file.flush().unwrap();
        file
    }

    /// The algorithms hashed from a map (PARSHA-256 streamed through its hasher).
    fn builders() -> Vec<HasherBuilder> {
        [
            Algorithm::Blake3,
            Algorithm::Sandstorm256,
            Algorithm::Parsha256,
        ]
        .into_iter()
        .map(|alg| Hasher::builder(alg).threads(Threads::new(2)))
        .collect()
    }

    /// The map path (asserted available here, so the test cannot pass on the read path
    /// alone) gives the digest of the read path and of the message in memory.
    #[test]
    fn the_map_and_the_reads_give_one_digest() {
        let len = 4 * blake3::PIECE + 12_345;
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

    /// A file truncated while its map is hashed is the reads' error, never a `SIGBUS`.
    #[test]
    fn a_file_truncated_under_the_map_is_an_error() {
        let len = 12 * blake3::PIECE + 7;
        let data = vec![0x5a; len];
        for builder in builders() {
            let file = file_of(&data);
            let handle = file.as_file();
            assert!(crate::mapped::Mapping::new(handle, len as u64).is_some());
            let cut = Once::new();
            let truncate = |_: usize| {
                cut.call_once(|| handle.set_len(blake3::PIECE as u64 / 2).unwrap());
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
            assert_eq!(changed.found, Some(blake3::PIECE as u64 / 2));
        }
    }
}
