//! Checksums of an object uploaded in parts, as object stores label it: a two-level tree whose
//! leaves (the parts' digests) are independent, so every part of every requested form is one
//! message of one batch ([`crate::batch::hash_many`]: SIMD lanes and all cores).
//!
//! - **S3's ETag** of a multipart upload ([`Combine::S3Etag`]): the MD5 of the parts' raw MD5s
//!   concatenated, which S3 shows as `hex-N`.
//! - **A composite checksum** ([`Combine::Composite`]): the algorithm's digest of the parts'
//!   raw digests concatenated, which S3 shows as `base64-N` (SHA-1, SHA-256, and the CRCs
//!   where the upload asked for a composite one).
//!
//! The part size is not stored by the stores: [`candidate_part_sizes`] lists the sizes tools
//! use that give a known part count, and [`compute`] hashes them all from one read.
//! (The text forms, hex and base64 with `-N`, are `parhash-format`'s.)
//!
//! ```
//! use parhash::multipart::{compute, Combine, Request};
//! let data = vec![7u8; 20 << 20];
//! let etag = Request::new(Combine::S3Etag, 8 << 20).unwrap();
//! let [result] = compute(&data, &[etag]).try_into().unwrap();
//! assert_eq!(result.parts, 3);
//! assert_eq!(result.digest.len(), 16);
//! ```

use std::fmt;
use std::fs::File;
use std::io::{self, Read};

use crate::batch::{hash_many_with, BatchOptions};
use crate::file::read::FromStart;
use crate::file::{FileChangedSize, FileVersion};
use crate::registry::{Algorithm, Hasher, Output};
use crate::threads::Threads;

/// S3's smallest part (all but the last part of an upload are at least this).
pub const S3_MIN_PART: u64 = 5 << 20;
/// S3's largest part.
pub const S3_MAX_PART: u64 = 5 << 30;
/// S3's most parts in one upload.
pub const S3_MAX_PARTS: u64 = 10_000;

const MIB: u64 = 1 << 20;

/// How the parts' digests become the object's checksum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Combine {
    /// S3's ETag of a multipart upload: MD5 of the parts' MD5s.
    S3Etag,
    /// A composite checksum: the algorithm's digest of the parts' digests.
    Composite(Algorithm),
}

impl Combine {
    /// The algorithm each part, and the combination, is hashed with.
    pub fn algorithm(self) -> Algorithm {
        match self {
            Combine::S3Etag => Algorithm::Md5,
            Combine::Composite(algorithm) => algorithm,
        }
    }
}

/// One form to compute: how the parts combine, and their size (the last part may be smaller).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Request {
    combine: Combine,
    part_size: u64,
}

impl Request {
    /// The form with parts of `part_size` bytes.
    ///
    /// # Errors
    /// [`MultipartError::ZeroPartSize`] for `part_size == 0`.
    pub fn new(combine: Combine, part_size: u64) -> Result<Request, MultipartError> {
        if part_size == 0 {
            return Err(MultipartError::ZeroPartSize);
        }
        Ok(Request { combine, part_size })
    }

    /// How the parts combine.
    pub fn combine(self) -> Combine {
        self.combine
    }

    /// The part size in bytes.
    pub fn part_size(self) -> u64 {
        self.part_size
    }

    /// The parts of an object of `len` bytes: at least one (an empty object is uploaded as
    /// one empty part).
    pub fn parts(self, len: u64) -> u64 {
        len.div_ceil(self.part_size).max(1)
    }

    /// Whether S3 would accept an upload of `len` bytes in these parts: parts of
    /// [`S3_MIN_PART`] to [`S3_MAX_PART`] bytes (a one-part upload may be smaller), at most
    /// [`S3_MAX_PARTS`] of them.
    ///
    /// # Errors
    /// The [`MultipartError`] that says which limit it breaks.
    pub fn check_s3_limits(self, len: u64) -> Result<(), MultipartError> {
        self.check_store_limits(len, S3_MIN_PART)
    }

    /// [`Request::check_s3_limits`] for a store whose smallest part is `min_part` bytes (the
    /// error for a smaller part names S3's).
    ///
    /// # Errors
    /// The [`MultipartError`] that says which limit it breaks.
    pub fn check_store_limits(self, len: u64, min_part: u64) -> Result<(), MultipartError> {
        let parts = self.parts(len);
        if self.part_size > S3_MAX_PART {
            return Err(MultipartError::PartTooLarge(self.part_size));
        }
        if parts > 1 && self.part_size < min_part {
            return Err(MultipartError::PartTooSmall(self.part_size));
        }
        if parts > S3_MAX_PARTS {
            return Err(MultipartError::TooManyParts { parts });
        }
        Ok(())
    }
}

/// What a [`Request`] gives for one object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Multipart {
    /// The form computed.
    pub request: Request,
    /// The number of parts.
    pub parts: u64,
    /// The raw combined digest (hex for an ETag, base64 for a composite checksum, each
    /// followed by `-parts` where the store shows it).
    pub digest: Output,
}

/// A request that cannot be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MultipartError {
    /// A part size of 0 bytes.
    ZeroPartSize,
    /// A part over [`S3_MAX_PART`].
    PartTooLarge(u64),
    /// Parts under [`S3_MIN_PART`] in an upload of more than one part.
    PartTooSmall(u64),
    /// More than [`S3_MAX_PARTS`] parts.
    TooManyParts {
        /// How many the part size gives.
        parts: u64,
    },
}

impl fmt::Display for MultipartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MultipartError::ZeroPartSize => f.write_str("the part size must be at least 1 byte"),
            MultipartError::PartTooLarge(size) => {
                write!(
                    f,
                    "a part of {size} bytes is over S3's largest part (5 GiB)"
                )
            }
            MultipartError::PartTooSmall(size) => write!(
                f,
                "parts of {size} bytes are under S3's smallest part (5 MiB; only the last part, \
                 or a single one, may be smaller)"
            ),
            MultipartError::TooManyParts { parts } => {
                write!(f, "{parts} parts are over S3's 10,000 parts in one upload")
            }
        }
    }
}

impl std::error::Error for MultipartError {}

/// The part sizes tools use: 5, 8, 15, 16 and 64 MiB and every power of two from 1 MiB to
/// 5 GiB, in increasing order, each once (what [`candidate_part_sizes`] starts from, and what
/// to try where a store shows a checksum without its part count).
pub fn usual_part_sizes() -> Vec<u64> {
    let mut sizes: Vec<u64> = [5, 8, 15, 16, 64].iter().map(|m| m * MIB).collect();
    sizes.extend(
        (0..=12)
            .map(|shift| MIB << shift)
            .filter(|&s| s <= S3_MAX_PART),
    );
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

/// The part sizes that give an object of `len` bytes exactly `parts` parts, from those tools
/// use: 5, 8, 15, 16 and 64 MiB and every power of two from 1 MiB to 5 GiB, and `len / parts`
/// rounded up to a whole MiB (what tools guess) and to a byte; in increasing order, each once.
pub fn candidate_part_sizes(len: u64, parts: u64) -> Vec<u64> {
    if parts == 0 {
        return Vec::new();
    }
    let mut sizes = usual_part_sizes();
    let even = len.div_ceil(parts).max(1);
    sizes.push(even.div_ceil(MIB) * MIB);
    sizes.push(even);
    sizes.sort_unstable();
    sizes.dedup();
    sizes.retain(|&size| len.div_ceil(size).max(1) == parts);
    sizes
}

/// Whether S3 takes parts of `part_size` bytes in an upload of two parts or more (5 MiB to
/// 5 GiB): the rule every part size given for S3's forms is held to.
///
/// # Errors
/// The [`MultipartError`] that says which limit it breaks.
pub fn check_part_size(part_size: u64) -> Result<(), MultipartError> {
    Request::new(Combine::S3Etag, part_size)?.check_s3_limits(part_size.saturating_add(1))
}

/// [`candidate_part_sizes`] that S3 would have taken for an object of `len` bytes
/// ([`Request::check_s3_limits`]): the sizes that may have made a value S3 shows with `parts`
/// parts. Empty where none could (more than [`S3_MAX_PARTS`] parts, or parts under
/// [`S3_MIN_PART`] that a file this small would need).
pub fn s3_candidate_part_sizes(len: u64, parts: u64) -> Vec<u64> {
    store_candidate_part_sizes(len, parts, S3_MIN_PART)
}

/// [`s3_candidate_part_sizes`] for a store whose smallest part (all but the last) is
/// `min_part` bytes instead of S3's 5 MiB (Ceph's `rgw_multipart_min_part_size` can allow
/// smaller ones); S3's largest part and part count still hold. What every verification of a
/// multipart value tries. Below 5 MiB the usual sizes (all whole MiB) are joined by `min_part`
/// and its doubles: an uploader to such a store is most likely given its smallest part, and
/// tools grow a part size by doubling.
pub fn store_candidate_part_sizes(len: u64, parts: u64, min_part: u64) -> Vec<u64> {
    let mut sizes = candidate_part_sizes(len, parts);
    if parts > 0 && min_part < S3_MIN_PART {
        let doubles = std::iter::successors(Some(min_part.max(1)), |&s| s.checked_mul(2));
        sizes.extend(
            doubles
                .take_while(|&s| s < S3_MIN_PART)
                .filter(|&s| len.div_ceil(s).max(1) == parts),
        );
        sizes.sort_unstable();
        sizes.dedup();
    }
    sizes.retain(|&size| {
        Request::new(Combine::S3Etag, size)
            .is_ok_and(|r| r.check_store_limits(len, min_part).is_ok())
    });
    sizes
}

/// Every request's checksum of `data`: all their parts hashed as one batch, then each
/// request's digests combined. One result per request, in order.
pub fn compute(data: &[u8], requests: &[Request]) -> Vec<Multipart> {
    let [(results, _)] = compute_batch(&[(data, requests, &[])], Threads::default())
        .try_into()
        .unwrap_or_else(|_| unreachable!("one result per buffer"));
    results
}

/// What one file or buffer asks for: its part forms ([`Request`]s), and its digests whole.
type Asked<'a> = (&'a [u8], &'a [Request], &'a [Algorithm]);

/// For each buffer, every request's checksum and every whole digest of it: all parts and
/// whole buffers of an algorithm, of all the buffers, are one batch (SIMD lanes across
/// buffers as across parts; on up to `threads`).
fn compute_batch(items: &[Asked<'_>], threads: Threads) -> Vec<(Vec<Multipart>, Vec<Output>)> {
    let mut algorithms: Vec<Algorithm> = items
        .iter()
        .flat_map(|(_, requests, whole)| {
            let parts = requests.iter().map(|r| r.combine.algorithm());
            parts.chain(whole.iter().copied())
        })
        .collect();
    algorithms.sort_unstable();
    algorithms.dedup();
    let mut parts: Vec<Vec<Vec<Output>>> = (items.iter())
        .map(|(_, requests, _)| vec![Vec::new(); requests.len()])
        .collect();
    let mut wholes: Vec<Vec<Output>> = (items.iter())
        .map(|(_, _, whole)| vec![Output::from_slice(&[]); whole.len()])
        .collect();
    let opts = BatchOptions {
        threads,
        ..BatchOptions::default()
    };
    for algorithm in algorithms {
        // The messages in a fixed order (each buffer's requests, then its whole digests),
        // and the digests handed back in that order.
        let mut messages: Vec<&[u8]> = Vec::new();
        for &(data, requests, whole) in items {
            for request in requests
                .iter()
                .filter(|r| r.combine.algorithm() == algorithm)
            {
                messages.extend(parts_of(data, request.part_size));
            }
            messages.extend(whole.iter().filter(|&&a| a == algorithm).map(|_| data));
        }
        let mut digests = hash_many_with(algorithm, &messages, opts).into_iter();
        for (i, &(data, requests, whole)) in items.iter().enumerate() {
            for (r, request) in requests.iter().enumerate() {
                if request.combine.algorithm() == algorithm {
                    let count = request.parts(data.len() as u64) as usize;
                    parts[i][r] = digests.by_ref().take(count).collect();
                }
            }
            for (w, _) in whole.iter().enumerate().filter(|(_, &a)| a == algorithm) {
                wholes[i][w] = digests.next().expect("a digest per message");
            }
        }
    }
    (items.iter().zip(parts).zip(wholes))
        .map(|(((_, requests, _), parts), wholes)| {
            let results = (requests.iter().zip(parts))
                .map(|(&request, parts)| combine(request, &parts))
                .collect();
            (results, wholes)
        })
        .collect()
}

/// What [`compute_files`] gives for one file: its requests' checksums and its whole digests,
/// or why it could not be read.
pub type FileAnswer = io::Result<(Vec<Multipart>, Vec<Output>)>;

/// One file of [`compute_files`]: where it is, what to compute, and the length it must have,
/// if one is known (an object's size as its store lists it).
#[derive(Clone, Copy, Debug)]
pub struct FileJob<'a> {
    /// The file.
    pub path: &'a std::path::Path,
    /// The part forms to compute.
    pub requests: &'a [Request],
    /// The digests of the whole file to compute.
    pub whole: &'a [Algorithm],
    /// The length the file must have: another is [`crate::file::FileChangedSize`], and
    /// nothing is read.
    pub len: Option<u64>,
}

/// [`compute_file_whole`] for many files, on up to `threads` workers, each file's answer in
/// its place. Each worker reads the files it takes whole, up to the file engine's limit of a
/// file in lanes, and hashes the parts and whole digests of a few MiB of them as one batch: the
/// SIMD lanes run across files, as across the parts of one (many small objects, each its own
/// MD5, run as fast as the parts of one large one). Larger files, and files with holes, are
/// read as [`compute_file_whole`] reads them. Errors as [`compute_file_whole`]'s (a path that
/// cannot be opened: the open's error).
pub fn compute_files(jobs: &[FileJob<'_>], threads: Threads) -> Vec<FileAnswer> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let workers = threads.at_most(jobs.len().max(1));
    let whole_up_to = crate::file::lane_file_limit(workers.count(), LANES);
    let batch_bytes = crate::file::LANE_MEMORY / workers.count() as u64;
    let next = AtomicUsize::new(0);
    let worker = || {
        let mut out: Vec<(usize, FileAnswer)> = Vec::new();
        let mut held: Vec<(usize, Vec<u8>)> = Vec::new();
        let mut held_bytes = 0;
        let flush = |held: &mut Vec<(usize, Vec<u8>)>, out: &mut Vec<(usize, FileAnswer)>| {
            let items: Vec<Asked<'_>> = (held.iter())
                .map(|(i, data)| (&data[..], jobs[*i].requests, jobs[*i].whole))
                .collect();
            let answers = compute_batch(&items, Threads::ONE);
            out.extend(
                held.drain(..)
                    .map(|(i, _)| i)
                    .zip(answers.into_iter().map(Ok)),
            );
        };
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(job) = jobs.get(i) else {
                break;
            };
            // A file read whole waits for its batch; any other is answered in its turn.
            let whole = File::open(job.path).and_then(|file| {
                let len = file.metadata()?.len();
                if let Some(expected) = job.len.filter(|&expected| expected != len) {
                    let found = (len < expected).then_some(len);
                    return Err(io::Error::other(FileChangedSize { expected, found }));
                }
                match crate::file::read_whole_up_to(&file, len, whole_up_to)? {
                    Some(data) => Ok(Some(data)),
                    None => {
                        let answer = compute_file_whole(&file, job.requests, job.whole)?;
                        out.push((i, Ok(answer)));
                        Ok(None)
                    }
                }
            });
            match whole {
                Ok(Some(data)) => {
                    held_bytes += data.len() as u64;
                    held.push((i, data));
                    if held_bytes >= batch_bytes {
                        flush(&mut held, &mut out);
                        held_bytes = 0;
                    }
                }
                Ok(None) => {}
                Err(error) => out.push((i, Err(error))),
            }
        }
        flush(&mut held, &mut out);
        out
    };
    let mut answers: Vec<Option<FileAnswer>> = jobs.iter().map(|_| None).collect();
    for (i, answer) in crate::threads::run_workers(workers, worker)
        .into_iter()
        .flatten()
    {
        answers[i] = Some(answer);
    }
    (answers.into_iter())
        .map(|a| a.expect("every file is taken by a worker"))
        .collect()
}

/// Lanes assumed when sizing what a worker of [`compute_files`] holds: the most any kernel has.
const LANES: usize = 16;

/// [`compute`] over a file, read once from start to end through `reader` (a file, a pipe):
/// each request's current part is hashed as the bytes come, so memory stays one buffer
/// whatever the size. [`compute`] over the bytes in memory (or a map of a cached file) is
/// faster: its parts run in SIMD lanes and on all cores.
///
/// # Errors
/// The first error reading returns.
pub fn compute_reader(reader: impl Read, requests: &[Request]) -> io::Result<Vec<Multipart>> {
    Ok(read_once(reader, requests, &[], READ_BUFFER)?.0)
}

/// The buffer [`read_once`] reads a file of unknown or large size through.
const READ_BUFFER: usize = 4 << 20;

/// [`compute_reader`], and each of `whole`'s digests of all the bytes, from the same read.
fn read_once(
    mut reader: impl Read,
    requests: &[Request],
    whole: &[Algorithm],
    buffer_len: usize,
) -> io::Result<(Vec<Multipart>, Vec<Output>)> {
    struct Running {
        hasher: Hasher,
        left: u64,
        parts: Vec<Output>,
    }
    let mut running: Vec<Running> = requests
        .iter()
        .map(|r| Running {
            hasher: Hasher::new(r.combine.algorithm()),
            left: r.part_size,
            parts: Vec::new(),
        })
        .collect();
    let mut wholes: Vec<Hasher> = whole.iter().map(|&alg| Hasher::new(alg)).collect();
    let mut buffer = vec![0u8; buffer_len];
    loop {
        let got = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(got) => got,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        for hasher in &mut wholes {
            hasher.update(&buffer[..got]);
        }
        for (run, request) in running.iter_mut().zip(requests) {
            let mut bytes = &buffer[..got];
            while !bytes.is_empty() {
                if run.left == 0 {
                    run.parts.push(run.hasher.finalize_reset());
                    run.left = request.part_size;
                }
                let take = bytes
                    .len()
                    .min(usize::try_from(run.left).unwrap_or(usize::MAX));
                run.hasher.update(&bytes[..take]);
                run.left -= take as u64;
                bytes = &bytes[take..];
            }
        }
    }
    let results = running
        .into_iter()
        .zip(requests)
        .map(|(mut run, &request)| {
            // The last part (or the one empty part of an empty object).
            run.parts.push(run.hasher.finalize_reset());
            combine(request, &run.parts)
        })
        .collect();
    Ok((results, wholes.into_iter().map(Hasher::finalize).collect()))
}

/// [`compute`] over a regular file from its start (whatever its position): mapped and batched
/// where it can be, else read once ([`compute_reader`]). A file that changes while it is read is an error, not a checksum, by
/// the file engine's rule ([`FileVersion::check`], and a map's fault as the engine reports it).
///
/// # Errors
/// The first error reading or mapping the file returns; [`crate::file::FileChangedSize`] or
/// [`crate::file::FileModified`] for a file that changed.
pub fn compute_file(file: &File, requests: &[Request]) -> io::Result<Vec<Multipart>> {
    Ok(compute_file_whole(file, requests, &[])?.0)
}

/// [`compute_file`], and each of `whole`'s digests of the whole file (S3's full-object CRCs,
/// an ETag of a one-part upload), from the same read: a store's object whose part size is
/// unknown is checked against all its candidate forms by reading its local copy once.
///
/// # Errors
/// As [`compute_file`].
pub fn compute_file_whole(
    file: &File,
    requests: &[Request],
    whole: &[Algorithm],
) -> io::Result<(Vec<Multipart>, Vec<Output>)> {
    let version = FileVersion::of(file);
    let result = compute_file_once(file, requests, whole)?;
    if let Some(version) = version {
        version.check(file)?;
    }
    Ok(result)
}

fn compute_file_once(
    file: &File,
    requests: &[Request],
    whole: &[Algorithm],
) -> io::Result<(Vec<Multipart>, Vec<Output>)> {
    let len = file.metadata()?.len();
    if len < crate::file::SMALL_FILE {
        // Read into a buffer of its size (one more byte sees the end): a map of a small file,
        // its page faults and its unmap cost more than the read, and a zeroed 4 MiB buffer far
        // more, as for the file engine's small files.
        return read_once(FromStart::new(file), requests, whole, len as usize + 1);
    }
    #[cfg(target_os = "linux")]
    {
        if let Some(mapping) = crate::mapped::Mapping::new(file, len) {
            let [answer] = compute_batch(&[(mapping.bytes(), requests, whole)], Threads::default())
                .try_into()
                .unwrap_or_else(|_| unreachable!("one result per buffer"));
            if mapping.faulted() {
                return Err(crate::file::read::mapped_fault(file, len));
            }
            return Ok(answer);
        }
    }
    read_once(FromStart::new(file), requests, whole, READ_BUFFER)
}

/// `data` in parts of `part_size` bytes (one empty part for empty data).
fn parts_of(data: &[u8], part_size: u64) -> impl Iterator<Item = &[u8]> {
    let size = usize::try_from(part_size).unwrap_or(usize::MAX);
    let empty = data.is_empty().then_some(&data[..0]);
    data.chunks(size).chain(empty)
}

/// The request's checksum from its parts' digests (each the request's algorithm's digest of
/// one part), in order: the rule [`compute`] applies, for callers that hash the parts
/// elsewhere (parhash-dist's workers).
pub fn combine(request: Request, parts: &[Output]) -> Multipart {
    let mut hasher = Hasher::new(request.combine.algorithm());
    for part in parts {
        hasher.update(part.as_bytes());
    }
    Multipart {
        request,
        parts: parts.len() as u64,
        digest: hasher.finalize(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_give_the_part_count() {
        let len = (20 << 20) + 3;
        let sizes = candidate_part_sizes(len, 3);
        assert!(sizes.contains(&(8 << 20)));
        for size in &sizes {
            assert_eq!(len.div_ceil(*size), 3, "{size}");
        }
        assert!(candidate_part_sizes(len, 0).is_empty());
        assert_eq!(candidate_part_sizes(0, 1).first(), Some(&1));
    }

    #[test]
    fn a_store_with_small_parts_is_tried_at_its_smallest_part_and_doubles() {
        // 64 KiB parts, the last one short: neither a usual size nor size / parts.
        let len = 10 * 65_536 + 123;
        assert!(!s3_candidate_part_sizes(len, 11).contains(&65_536));
        assert!(store_candidate_part_sizes(len, 11, 65_536).contains(&65_536));
        // Its double, for an uploader that doubled it; each candidate gives the part count.
        let len = 5 * 131_072 + 7;
        assert!(store_candidate_part_sizes(len, 6, 65_536).contains(&131_072));
        for size in store_candidate_part_sizes(len, 6, 65_536) {
            assert_eq!(len.div_ceil(size), 6, "{size}");
        }
        // S3's own minimum adds nothing, and no part count asks for nothing.
        assert_eq!(
            store_candidate_part_sizes(len, 6, S3_MIN_PART),
            s3_candidate_part_sizes(len, 6)
        );
        assert!(store_candidate_part_sizes(len, 0, 65_536).is_empty());
    }

    #[test]
    fn s3_limits() {
        let request = |size| Request::new(Combine::S3Etag, size).unwrap();
        assert_eq!(
            Request::new(Combine::S3Etag, 0),
            Err(MultipartError::ZeroPartSize)
        );
        assert!(request(1 << 20).check_s3_limits(1 << 20).is_ok());
        assert_eq!(
            request(1 << 20).check_s3_limits((1 << 20) + 1),
            Err(MultipartError::PartTooSmall(1 << 20))
        );
        assert_eq!(
            request(S3_MIN_PART).check_s3_limits(S3_MIN_PART * 10_001),
            Err(MultipartError::TooManyParts { parts: 10_001 })
        );
        assert!(request(S3_MAX_PART + 1).check_s3_limits(1).is_err());
    }
}
