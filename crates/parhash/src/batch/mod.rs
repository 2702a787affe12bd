//! The multi-message engine: many independent messages hashed side by side in SIMD lanes and
//! across threads (seed study 5's multi-message hashing, seed study 4's "Bitcoin" scenario).
//!
//! - [`hash_many`] / [`hash_many_with`]: any mix of lengths in, digests out in the same order.
//! - [`JobManager`]: messages that arrive over time (`submit` / `poll` / `flush`). A lane is
//!   refilled as soon as its message ends, so unequal lengths do not leave lanes idle; padding is
//!   done per lane as its message ends, never as a serial pass over the batch.
//! - [`Interleaved`]: the other data layout of the seed study: equal-length messages stored
//!   word-interleaved for this CPU's widest lanes, so each lane's word is one vector load
//!   instead of a gather.
//!
//! Algorithms with lane kernels (MD5, SHA-1, SHA-2, SHA-3 and Keccak; `select.rs` builds them)
//! use them; every other algorithm goes through the same API with threads only.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::fmt;

use crate::lanes::{Kernel, Lanes, Width, IDLE, MAX_BLOCK, MAX_MULTI};
use crate::registry::{Algorithm, Hasher, Output};
use crate::threads::Threads;

pub(crate) mod select;
use select::{best_kernel, lane_kernel, threads_used};

/// Options for [`hash_many_with`]. The default: all cores, the fastest kernel.
#[derive(Clone, Copy, Debug, Default)]
pub struct BatchOptions {
    /// Worker threads (default: all cores); a batch of less than 256 KiB per thread uses fewer.
    pub threads: Threads,
    /// Lane kernel; `None` = the fastest available. Set by the benchmark lab and the tests
    /// (the type is not public: see the hidden `lab` module).
    #[doc(hidden)]
    pub kernel: Option<Kernel>,
}

/// Hashes every message with the fastest kernels and all cores; digests in input order. A group
/// of fewer messages than the kernel has lanes is hashed one by one (faster than mostly idle
/// lanes).
pub fn hash_many(alg: Algorithm, messages: &[&[u8]]) -> Vec<Output> {
    hash_many_with(alg, messages, BatchOptions::default())
}

/// How [`hash_many`] runs an algorithm on this CPU: how many messages side by side, and with
/// which kernel. `None` from [`lanes_for`] means threads only (no multi-lane kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchLanes {
    /// Messages hashed side by side in one kernel call.
    pub lanes: usize,
    /// The kernel's name, as [`Algorithm::variants`] names variants (`avx512`, `sha-ni`, ...).
    pub kernel: &'static str,
}

/// The lanes [`hash_many`] uses for `alg` on this CPU (what `parhash list` prints as `batch`),
/// or `None` when `alg` has no multi-lane kernel and a batch is spread over threads only.
pub fn lanes_for(alg: Algorithm) -> Option<BatchLanes> {
    let best = best_kernel(alg);
    lane_kernel(alg, best).map(|kernel| BatchLanes {
        lanes: kernel.lanes(),
        kernel: best.name(),
    })
}

/// [`hash_many`] with an explicit thread count and lane kernel. The digests never depend on them.
pub fn hash_many_with(alg: Algorithm, messages: &[&[u8]], opts: BatchOptions) -> Vec<Output> {
    // A pool thread costs tens of microseconds to hand work to: small batches use fewer.
    let total_len: usize = messages.iter().map(|m| m.len()).sum();
    let threads = threads_used(total_len, messages.len(), opts.threads);
    let kernel = opts.kernel;
    // Digests are written in place, by index: with many short messages, collecting and
    // reordering result lists would cost as much memory traffic as the hashing.
    let mut out = vec![Output::from_slice(&[]); messages.len()];
    if threads == Threads::ONE {
        hash_group(alg, kernel, messages, &mut out);
        return out;
    }
    // Contiguous groups of about equal total bytes, four per thread, taken in turn by the
    // threads (see `crate::threads`: one that starts late takes fewer groups); each group
    // fills the kernel's lanes at least (a smaller one would be hashed one by one).
    let lanes =
        lane_kernel(alg, kernel.unwrap_or_else(|| best_kernel(alg))).map_or(1, |k| k.lanes());
    let groups = (threads.count() * 4).min(messages.len() / lanes).max(1);
    let target = (total_len + 64 * messages.len()).div_ceil(groups);
    let mut ends = Vec::with_capacity(groups);
    let mut acc = 0;
    for (i, m) in messages.iter().enumerate() {
        acc += m.len() + 64;
        if acc >= target && ends.len() + 1 < groups {
            ends.push(i + 1);
            acc = 0;
        }
    }
    ends.push(messages.len());
    let (mut rest_in, mut rest_out) = (messages, &mut out[..]);
    let mut jobs = Vec::with_capacity(ends.len());
    let mut start = 0;
    for end in ends {
        let (group, more_in) = rest_in.split_at(end - start);
        let (digests, more_out) = rest_out.split_at_mut(end - start);
        (rest_in, rest_out, start) = (more_in, more_out, end);
        jobs.push((group, digests));
    }
    crate::threads::for_each_mut(&mut jobs, threads, |(group, digests)| {
        hash_group(alg, kernel, group, digests)
    });
    out
}

/// Hashes `messages` on this thread, writing digest `i` to `out[i]`.
fn hash_group(alg: Algorithm, kernel: Option<Kernel>, messages: &[&[u8]], out: &mut [Output]) {
    let mut jm = match kernel {
        Some(k) => JobManager::with_kernel(alg, k),
        None => JobManager::new(alg),
    };
    // Fewer messages than lanes would leave most lanes idle, and one lane of a multi-lane
    // kernel is slower than the single-message code (SHA-NI for SHA-256). Unless a kernel was
    // forced (tests, benchmarks), hash them one by one.
    if kernel.is_none() && messages.len() < jm.lanes() {
        jm = JobManager::without_lanes(alg);
    }
    for m in messages {
        jm.submit(*m);
        while let Some((id, digest)) = jm.poll() {
            out[id as usize] = digest;
        }
    }
    for (id, digest) in jm.flush() {
        out[id as usize] = digest;
    }
}

/// Identifies a submitted message; ids count up from 0 in submission order.
pub type JobId = u64;

struct Slot<'a> {
    id: JobId,
    data: Cow<'a, [u8]>,
    /// Bytes of `data` already compressed.
    pos: usize,
    /// Final padded blocks, once the body is done.
    pad: [u8; 2 * MAX_BLOCK],
    pad_blocks: usize,
    pad_done: usize,
}

/// A lane scheduler for messages that arrive over time.
///
/// ```
/// use parhash::{batch::JobManager, hash, Algorithm};
/// let mut jm = JobManager::new(Algorithm::Md5);
/// let a = jm.submit(&b"abc"[..]);
/// let b = jm.submit(vec![7u8; 1000]);
/// let mut done = jm.flush();
/// done.sort_by_key(|(id, _)| *id);
/// assert_eq!(done[0], (a, hash(Algorithm::Md5, b"abc")));
/// assert_eq!(done[1], (b, hash(Algorithm::Md5, &[7u8; 1000])));
/// ```
pub struct JobManager<'a> {
    alg: Algorithm,
    kernel: Option<Box<dyn Lanes>>,
    slots: Vec<Option<Slot<'a>>>,
    queue: VecDeque<(JobId, Cow<'a, [u8]>)>,
    done: VecDeque<(JobId, Output)>,
    next_id: JobId,
}

impl fmt::Debug for JobManager<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "JobManager({}, {} lanes, {} queued, {} done)",
            self.alg,
            self.slots.len(),
            self.queue.len(),
            self.done.len()
        )
    }
}

impl<'a> JobManager<'a> {
    /// A job manager using the fastest lane kernel available. Without
    /// AVX2 or SHA-NI it hashes each message with the single-message code: portable lanes are
    /// correct but slower than it (they are kept as the tested fallback and can be forced with
    /// [`JobManager::with_kernel`]).
    pub fn new(alg: Algorithm) -> Self {
        match best_kernel(alg) {
            Kernel::Vector(Width::Portable) => Self::without_lanes(alg),
            kernel => Self::with_kernel(alg, kernel),
        }
    }

    /// A job manager that hashes each message on submission with the single-message code.
    pub fn without_lanes(alg: Algorithm) -> Self {
        JobManager {
            alg,
            kernel: None,
            slots: Vec::new(),
            queue: VecDeque::new(),
            done: VecDeque::new(),
            next_id: 0,
        }
    }

    /// A job manager using lane kernels of this width (if `alg` has any).
    #[doc(hidden)] // the lab's: `Width` is not public
    pub fn with_width(alg: Algorithm, width: Width) -> Self {
        Self::with_kernel(alg, width)
    }

    /// A job manager using this lane kernel (if `alg` has it; otherwise one by one).
    #[doc(hidden)] // the lab's: `Kernel` is not public
    pub fn with_kernel(alg: Algorithm, kernel: impl Into<Kernel>) -> Self {
        let kernel = lane_kernel(alg, kernel);
        let lanes = kernel.as_ref().map_or(0, |k| k.lanes());
        JobManager {
            alg,
            kernel,
            slots: (0..lanes).map(|_| None).collect(),
            queue: VecDeque::new(),
            done: VecDeque::new(),
            next_id: 0,
        }
    }

    /// Lanes this manager runs side by side (0 when the algorithm has no lane kernel).
    pub fn lanes(&self) -> usize {
        self.slots.len()
    }

    /// Adds a message. When every lane is busy and messages are waiting, runs lanes until one
    /// finishes, so the lanes stay full. Returns the message's id.
    pub fn submit(&mut self, message: impl Into<Cow<'a, [u8]>>) -> JobId {
        let id = self.next_id;
        self.next_id += 1;
        let data = message.into();
        if self.kernel.is_none() {
            let mut h = Hasher::new(self.alg);
            h.update(&data);
            self.done.push_back((id, h.finalize()));
            return id;
        }
        self.queue.push_back((id, data));
        self.fill_free_lanes();
        while !self.queue.is_empty() && self.slots.iter().all(Option::is_some) {
            self.step_until_one_finishes();
            self.fill_free_lanes();
        }
        id
    }

    /// Returns one finished message, if any, without doing any hashing.
    pub fn poll(&mut self) -> Option<(JobId, Output)> {
        self.done.pop_front()
    }

    /// Finishes every submitted message and returns all results not yet polled (in completion
    /// order; ids tell which is which).
    pub fn flush(&mut self) -> Vec<(JobId, Output)> {
        self.fill_free_lanes();
        while self.slots.iter().any(Option::is_some) {
            self.step_until_one_finishes();
            self.fill_free_lanes();
        }
        self.done.drain(..).collect()
    }

    fn fill_free_lanes(&mut self) {
        let Some(kernel) = self.kernel.as_mut() else {
            return;
        };
        for (lane, slot) in self.slots.iter_mut().enumerate() {
            if slot.is_none() {
                let Some((id, data)) = self.queue.pop_front() else {
                    return;
                };
                kernel.reset(lane);
                *slot = Some(Slot {
                    id,
                    data,
                    pos: 0,
                    pad: [0; 2 * MAX_BLOCK],
                    pad_blocks: 0,
                    pad_done: 0,
                });
            }
        }
    }

    /// Compresses one block in every lane until at least one message completes.
    fn step_until_one_finishes(&mut self) {
        let kernel = self.kernel.as_mut().expect("lane kernel");
        let block = kernel.block_len();
        let idle = [0u8; MAX_BLOCK];
        loop {
            // Work out padding for lanes whose body is done (per lane, as it ends).
            for slot in self.slots.iter_mut().flatten() {
                if slot.pad_blocks == 0 && slot.pos + block > slot.data.len() {
                    let tail = &slot.data[slot.pos..];
                    slot.pad_blocks = kernel.pad(slot.data.len() as u64, tail, &mut slot.pad);
                }
            }
            // While every busy lane is inside its message body, hand the kernel a run of whole
            // blocks: the state stays in registers and the scheduling cost is paid once.
            let mut run = MAX_MULTI;
            for slot in self.slots.iter().flatten() {
                run = match slot.pad_blocks {
                    0 => run.min((slot.data.len() - slot.pos) / block),
                    _ => 0,
                };
            }
            if run >= 2 {
                let mut inputs: [&[u8]; 16] = [&IDLE[..run * block]; 16];
                for (lane, slot) in self.slots.iter().enumerate() {
                    if let Some(s) = slot {
                        inputs[lane] = &s.data[s.pos..s.pos + run * block];
                    }
                }
                kernel.compress_multi(&inputs[..self.slots.len()], run);
                for s in self.slots.iter_mut().flatten() {
                    s.pos += run * block;
                }
                continue;
            }
            let mut inputs: [&[u8]; 16] = [&idle[..]; 16];
            for (lane, slot) in self.slots.iter().enumerate() {
                if let Some(s) = slot {
                    inputs[lane] = if s.pad_blocks == 0 {
                        &s.data[s.pos..s.pos + block]
                    } else {
                        &s.pad[s.pad_done * block..(s.pad_done + 1) * block]
                    };
                }
            }
            kernel.compress(&inputs[..self.slots.len()]);
            let mut finished = false;
            for (lane, slot) in self.slots.iter_mut().enumerate() {
                let Some(s) = slot else { continue };
                if s.pad_blocks == 0 {
                    s.pos += block;
                    continue;
                }
                s.pad_done += 1;
                if s.pad_done == s.pad_blocks {
                    let mut out = [0u8; Output::LONGEST_FIXED];
                    let n = kernel.digest_len();
                    kernel.digest(lane, &mut out[..n]);
                    self.done.push_back((s.id, Output::from_slice(&out[..n])));
                    *slot = None;
                    finished = true;
                }
            }
            if finished {
                return;
            }
        }
    }
}

/// Why an [`Interleaved`] batch could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BatchError {
    /// The algorithm has no lane kernel, so there is no interleaved layout for it.
    NoLaneKernel(Algorithm),
    /// The interleaved layout needs messages of one length.
    UnequalLengths,
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BatchError::NoLaneKernel(a) => write!(f, "{a} has no multi-lane kernel"),
            BatchError::UnequalLengths => {
                f.write_str("the interleaved layout needs messages of equal length")
            }
        }
    }
}

impl std::error::Error for BatchError {}

/// Equal-length messages laid out block-interleaved (word w of lane l of block b at word
/// `(b * words_per_block + w) * lanes + l` of its group), padding included: what a producer
/// that writes data straight into lanes would hand over. Building it is the host-side cost of
/// this layout; [`Interleaved::hash`] is then pure vector loads.
///
/// ```
/// use parhash::batch::Interleaved;
/// use parhash::{hash, Algorithm};
///
/// let messages: Vec<&[u8]> = vec![b"abc", b"xyz", b"123"];
/// let batch = Interleaved::new(Algorithm::Sha256, &messages)?;
/// let expected: Vec<_> = messages.iter().map(|m| hash(Algorithm::Sha256, m)).collect();
/// assert_eq!(batch.hash(), expected);
/// # Ok::<(), parhash::batch::BatchError>(())
/// ```
pub struct Interleaved {
    alg: Algorithm,
    width: Width,
    count: usize,
    blocks_per_message: usize,
    groups: Vec<Vec<u8>>,
}

impl Interleaved {
    /// Lays `messages` out for `alg`'s lane kernel of the widest lanes this CPU has.
    ///
    /// # Errors
    /// [`BatchError::NoLaneKernel`] for an algorithm without lane kernels (see
    /// [`crate::batch`]), [`BatchError::UnequalLengths`] unless all messages have one length.
    pub fn new(alg: Algorithm, messages: &[&[u8]]) -> Result<Self, BatchError> {
        Self::with_width(alg, messages, Width::detect())
    }

    /// [`Interleaved::new`] for the lane kernel of `width` (the lab compares widths).
    #[doc(hidden)] // the lab's: `Width` is not public
    pub fn with_width(
        alg: Algorithm,
        messages: &[&[u8]],
        width: Width,
    ) -> Result<Self, BatchError> {
        let kernel = lane_kernel(alg, width).ok_or(BatchError::NoLaneKernel(alg))?;
        let len = messages.first().map_or(0, |m| m.len());
        if messages.iter().any(|m| m.len() != len) {
            return Err(BatchError::UnequalLengths);
        }
        let (lanes, block, word) = (kernel.lanes(), kernel.block_len(), kernel.word_len());
        let words_per_block = block / word;
        let mut pad = [0u8; 2 * MAX_BLOCK];
        let whole = len / block;
        let pad_blocks = kernel.pad(
            len as u64,
            messages.first().map_or(&[][..], |m| &m[whole * block..]),
            &mut pad,
        );
        let blocks_per_message = whole + pad_blocks;
        let mut groups = Vec::new();
        for group in messages.chunks(lanes) {
            let mut buf = vec![0u8; blocks_per_message * block * lanes];
            for (l, m) in group.iter().enumerate() {
                let mut padded = [0u8; 2 * MAX_BLOCK];
                let n = kernel.pad(len as u64, &m[whole * block..], &mut padded);
                debug_assert_eq!(n, pad_blocks);
                for b in 0..blocks_per_message {
                    let src = if b < whole {
                        &m[b * block..(b + 1) * block]
                    } else {
                        &padded[(b - whole) * block..(b - whole + 1) * block]
                    };
                    for w in 0..words_per_block {
                        let dst = ((b * words_per_block + w) * lanes + l) * word;
                        buf[dst..dst + word].copy_from_slice(&src[w * word..(w + 1) * word]);
                    }
                }
            }
            groups.push(buf);
        }
        Ok(Interleaved {
            alg,
            width,
            count: messages.len(),
            blocks_per_message,
            groups,
        })
    }

    /// Number of messages.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether there are no messages.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Hashes every message; digests in input order.
    pub fn hash(&self) -> Vec<Output> {
        let mut kernel = lane_kernel(self.alg, self.width).expect("checked in new");
        let (lanes, block) = (kernel.lanes(), kernel.block_len());
        let mut out = Vec::with_capacity(self.count);
        for (g, buf) in self.groups.iter().enumerate() {
            for l in 0..lanes {
                kernel.reset(l);
            }
            for b in 0..self.blocks_per_message {
                kernel.compress_interleaved(&buf[b * block * lanes..(b + 1) * block * lanes]);
            }
            let in_group = (self.count - g * lanes).min(lanes);
            for l in 0..in_group {
                let mut d = [0u8; Output::LONGEST_FIXED];
                let n = kernel.digest_len();
                kernel.digest(l, &mut d[..n]);
                out.push(Output::from_slice(&d[..n]));
            }
        }
        out
    }
}
