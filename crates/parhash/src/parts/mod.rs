//! One message hashed as parts, anywhere, and combined into the one-machine digest.
//!
//! The tree hashes (PARSHA-256, the SANDstorm family and BLAKE3) and the CRCs (CRC-32,
//! CRC-32C, CRC-64/NVME: parts' CRCs combine exactly) can split one message into parts that
//! are hashed independently (other processes, other machines, other threads) and then combined; the digest is exactly [`crate::hash`]'s. This module is the one API over
//! every such [`Algorithm`] ([`Plan::splits`] says which; BLAKE3's `hazmat` module is the
//! model); a caller never needs to know which family it has:
//!
//! 1. A [`Plan`]: the algorithm, its parameters (PARSHA-256's [`TreeParams`]), the message
//!    length and the wanted number of parts ([`Plan::parts`] says how many the algorithm's
//!    tree allows). The same arguments give the same plan on any machine.
//! 2. What part `i` reads: [`Plan::ranges`]`(i)`, byte ranges of the message in increasing
//!    order. Hash it with [`Plan::hash_part`] (the message in memory) or
//!    [`Plan::hash_part_from`] (a positional read callback, a few MiB at a time; [`read_at`]
//!    makes one of any `Read + Seek`). The result is a [`PartState`], which travels as bytes
//!    ([`PartState::to_bytes`], [`PartState::from_bytes`]).
//! 3. Combine every part's state, in any order, with [`Plan::combine`] or
//!    [`Plan::combine_from`] into the registry's [`Output`]. The combine step may read a few
//!    bytes of the message too: [`Plan::combine_ranges`] (empty for SANDstorm).
//!    [`PlanBuilder::digest_size`] asks for another digest length where the algorithm has a
//!    choice (BLAKE3's extendable output).
//!
//! Every failure is a [`PartError`]: a plan that cannot be made, a read that failed (the
//! reader's [`std::io::Error`] kept as the source), or states that are not exactly the plan's
//! parts (missing, duplicated, foreign, damaged), or parts that read different versions of
//! the message ([`PartError::MixedVersions`]: a state records the version it read with
//! [`PartState::with_identity`]; `file::hash_part` records a file's).
//!
//! ```
//! use parhash::parts::{PartState, Plan};
//! use parhash::{hash, Algorithm};
//!
//! let message: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
//! for algorithm in [Algorithm::Parsha256, Algorithm::Sandstorm256, Algorithm::Blake3] {
//!     let plan = Plan::new(algorithm, message.len() as u64, 4)?;
//!     // On each machine: read `plan.ranges(i)` of the message, hash, send the bytes.
//!     let sent = (0..plan.parts())
//!         .map(|i| {
//!             let state = plan.hash_part_from(i, |offset, buf| {
//!                 let at = offset as usize;
//!                 buf.copy_from_slice(&message[at..at + buf.len()]);
//!                 Ok(())
//!             })?;
//!             Ok(state.to_bytes())
//!         })
//!         .collect::<Result<Vec<_>, parhash::parts::PartError>>()?;
//!     // On one machine: the states back, in any order, and `plan.combine_ranges()`.
//!     let states = sent
//!         .iter()
//!         .rev()
//!         .map(|bytes| PartState::from_bytes(bytes))
//!         .collect::<Result<Vec<_>, _>>()?;
//!     assert_eq!(plan.combine(&states, &message)?, hash(algorithm, &message));
//! }
//! # Ok::<(), parhash::parts::PartError>(())
//! ```
//!
//! The families' own plans (`algo::parsha256::parts`, `algo::sandstorm::parts`,
//! `algo::blake3::parts`, `algo::crc::parts`) hold the geometry; this module only dispatches to them.

#![forbid(unsafe_code)]

// The state types the families' plans share sit in modules of their own, below this API,
// so the families import them from there and the imports go one way: this module uses the
// families' plans, they use `key`, `error`, `pieces` and `state`.
pub(crate) mod error;
pub(crate) mod key;
pub(crate) mod pieces;
pub(crate) mod state;

use std::io::{self, Read, Seek, SeekFrom};
use std::ops::Range;

pub use error::PartError;
pub use key::{PlanKey, TreeMode, FORMAT_VERSION};
pub use state::PartState;

use crate::algo::{blake3, crc, parsha256, sandstorm};
use crate::{Algorithm, Output, Threads, TreeParams};

/// How one message of a tree-mode algorithm is split into parts (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct Plan {
    algorithm: Algorithm,
    form: Form,
    digest_size: usize,
}

/// The family's plan: the only place that tells them apart.
#[derive(Clone, Debug)]
enum Form {
    Parsha(parsha256::parts::Plan, TreeParams),
    Sandstorm(sandstorm::parts::Plan),
    Blake3(blake3::parts::Plan),
    Crc(crc::parts::Plan),
}

/// Bytes per part of a plan for threads ([`PlanBuilder::build_for_threads`]) whose parts are
/// contiguous and whose combine step costs a tree's top per part (SANDstorm): enough parts to
/// balance the threads, few enough that the combine step stays negligible.
const THREAD_PART_BYTES: u64 = 32 << 20;

/// Builds a [`Plan`] with the options an algorithm may take: PARSHA-256's tree parameters,
/// the threads that hash a part.
#[derive(Clone, Debug)]
#[must_use]
pub struct PlanBuilder {
    algorithm: Algorithm,
    tree_params: Option<TreeParams>,
    threads: Threads,
    digest_size: Option<usize>,
}

impl PlanBuilder {
    /// PARSHA-256's tree height and IV length (default T = 13, l = 256); refused for any other
    /// algorithm.
    pub fn tree_params(mut self, params: TreeParams) -> Self {
        self.tree_params = Some(params);
        self
    }

    /// The threads that hash one part (default: all cores). A PARSHA-256 part runs on one
    /// thread whatever this says (hash several parts at once to use more); the states and the
    /// digest never depend on it.
    pub fn threads(mut self, threads: impl Into<Threads>) -> Self {
        self.threads = threads.into();
        self
    }

    /// The digest's length in bytes where the algorithm has a choice (BLAKE3's extendable
    /// output; default: the algorithm's digest size). The parts and their states do not
    /// depend on it, only the combine step's output.
    pub fn digest_size(mut self, size: usize) -> Self {
        self.digest_size = Some(size);
        self
    }

    /// The plan that `threads` threads, each taking the next part from a shared counter, hash
    /// a `message_len`-byte message with best: one part per piece where a part's state is a
    /// chaining value per piece (BLAKE3: the merges cost nothing, and a slowed thread takes
    /// fewer pieces); one part per thread where each part reads a share of every round
    /// (PARSHA-256: each extra part cuts every read smaller); otherwise parts of
    /// [`THREAD_PART_BYTES`], at least two per thread.
    pub(crate) fn build_for_threads(
        self,
        message_len: u64,
        threads: Threads,
    ) -> Result<Plan, PartError> {
        let threads = threads.count() as u64;
        let wanted = if self.algorithm == Algorithm::Parsha256 {
            threads
        } else if self.algorithm == Algorithm::Blake3 {
            message_len.div_ceil(blake3::PIECE as u64)
        } else {
            (message_len / THREAD_PART_BYTES).max(2 * threads)
        };
        self.build(message_len, wanted.clamp(1, u64::from(u32::MAX)) as usize)
    }

    /// The plan for a message of `message_len` bytes in at most `parts` parts.
    ///
    /// # Errors
    /// [`PartError::NotSplittable`] for an algorithm without a tree mode,
    /// [`PartError::NoParts`] for `parts == 0`, [`PartError::InvalidPlan`] with
    /// [`crate::Error::NoTreeParams`] for tree parameters on an algorithm other than
    /// PARSHA-256 or [`crate::Error::MessageTooLong`] for a PARSHA-256 message over
    /// 2^64 - 1 bits, or [`crate::Error::UnsupportedDigestSize`] for a digest size the
    /// algorithm cannot produce.
    pub fn build(self, message_len: u64, parts: usize) -> Result<Plan, PartError> {
        let algorithm = self.algorithm;
        if !Plan::splits(algorithm) {
            return Err(PartError::NotSplittable(algorithm));
        }
        let digest_size = self.digest_size.unwrap_or(algorithm.digest_size());
        if !algorithm.digest_sizes().contains(digest_size) {
            let size = digest_size;
            return Err(crate::Error::UnsupportedDigestSize { algorithm, size }.into());
        }
        let form = if algorithm == Algorithm::Parsha256 {
            let params = self.tree_params.unwrap_or_default();
            let plan = parsha256::parts::Plan::new(
                message_len,
                params.tree_height(),
                params.iv_bits(),
                parts,
            )?;
            Form::Parsha(plan, params)
        } else if self.tree_params.is_some() {
            return Err(crate::Error::NoTreeParams(algorithm).into());
        } else if parts == 0 {
            return Err(PartError::NoParts);
        } else if let Ok(variant) = sandstorm::parts::Variant::try_from(algorithm) {
            let plan = sandstorm::parts::Plan::new(variant, message_len, parts);
            Form::Sandstorm(plan.with_threads(self.threads))
        } else if let Ok(kind) = crc::parts::Kind::try_from(algorithm) {
            Form::Crc(crc::parts::Plan::new(kind, message_len, parts))
        } else {
            Form::Blake3(blake3::parts::Plan::new(message_len, parts))
        };
        Ok(Plan {
            algorithm,
            form,
            digest_size,
        })
    }
}

impl Plan {
    /// The plan for a message of `message_len` bytes of `algorithm` in at most `parts` parts,
    /// with the default parameters ([`Plan::builder`] for others).
    ///
    /// # Errors
    /// Those of [`PlanBuilder::build`].
    pub fn new(algorithm: Algorithm, message_len: u64, parts: usize) -> Result<Plan, PartError> {
        Plan::builder(algorithm).build(message_len, parts)
    }

    /// A builder for a plan of `algorithm` with other parameters.
    pub fn builder(algorithm: Algorithm) -> PlanBuilder {
        PlanBuilder {
            algorithm,
            tree_params: None,
            threads: Threads::ALL,
            digest_size: None,
        }
    }

    /// Whether `algorithm` can be split into parts (its message is hashed as a tree, or its
    /// parts' CRCs combine).
    pub fn splits(algorithm: Algorithm) -> bool {
        algorithm == Algorithm::Parsha256
            || algorithm == Algorithm::Blake3
            || sandstorm::parts::Variant::try_from(algorithm).is_ok()
            || crc::parts::Kind::try_from(algorithm).is_ok()
    }

    /// Whether each part reads a share of every round of the message rather than one range
    /// of it (PARSHA-256's processors): such parts are not worth hashing in place from memory
    /// where the algorithm's own hasher spreads the message over threads.
    pub fn interleaved(&self) -> bool {
        matches!(self.form, Form::Parsha(..))
    }

    /// The digest's length in bytes ([`PlanBuilder::digest_size`]).
    pub fn digest_size(&self) -> usize {
        self.digest_size
    }

    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// PARSHA-256's tree parameters; `None` for an algorithm that has none.
    pub fn tree_params(&self) -> Option<TreeParams> {
        match &self.form {
            Form::Parsha(_, params) => Some(*params),
            Form::Sandstorm(_) | Form::Blake3(_) | Form::Crc(_) => None,
        }
    }

    /// The message length in bytes.
    pub fn message_len(&self) -> u64 {
        match &self.form {
            Form::Parsha(plan, _) => plan.message_len(),
            Form::Sandstorm(plan) => plan.message_len(),
            Form::Blake3(plan) => plan.message_len(),
            Form::Crc(plan) => plan.message_len,
        }
    }

    /// The number of parts: at most what was asked for, at least 1 (PARSHA-256: a power of two
    /// its tree allows; SANDstorm: at most one per level-2 superblock; BLAKE3: at most one
    /// per 1 MiB piece, and one for a message of one piece or less; a CRC: at most one per
    /// byte).
    pub fn parts(&self) -> usize {
        match &self.form {
            Form::Parsha(plan, _) => plan.parts(),
            Form::Sandstorm(plan) => plan.parts(),
            Form::Blake3(plan) => plan.parts(),
            Form::Crc(plan) => plan.parts,
        }
    }

    /// What identifies this plan; every state of it carries the same key.
    pub fn key(&self) -> PlanKey {
        match &self.form {
            Form::Parsha(plan, _) => plan.key(),
            Form::Sandstorm(plan) => plan.key(),
            Form::Blake3(plan) => plan.key(),
            Form::Crc(plan) => plan.key(),
        }
    }

    /// The byte ranges of the message part `index` reads, in increasing order, adjacent ones
    /// merged, none past the message end. (SANDstorm: the message's first block and the
    /// part's contiguous range; PARSHA-256: the part's processors' strided pieces of every
    /// round; BLAKE3: the part's whole pieces, nothing for a message of one piece or less; a
    /// CRC: the part's contiguous range.)
    ///
    /// # Panics
    /// If `index >= self.parts()`.
    pub fn ranges(&self, index: usize) -> Vec<Range<u64>> {
        match &self.form {
            Form::Parsha(plan, _) => plan.ranges(index),
            Form::Sandstorm(plan) => {
                let (head, range) = (plan.head(), plan.range(index));
                // Part 0's range starts with the head; the others' lie past it.
                let mut ranges = Vec::with_capacity(2);
                let start = if head.end < range.start {
                    if head.start < head.end {
                        ranges.push(head);
                    }
                    range.start
                } else {
                    head.start.min(range.start)
                };
                if start < range.end {
                    ranges.push(start..range.end);
                }
                ranges
            }
            Form::Blake3(plan) => non_empty(plan.range(index)),
            Form::Crc(plan) => non_empty(plan.range(index)),
        }
    }

    /// The byte ranges of the message the combine step reads, in increasing order (none for
    /// SANDstorm and the CRCs; for PARSHA-256 the processors above the parts, about 32 bytes a round per
    /// part; for PARSHA-256 and BLAKE3 the whole message when it is too short for a tree).
    pub fn combine_ranges(&self) -> Vec<Range<u64>> {
        match &self.form {
            Form::Parsha(plan, _) => plan.top_ranges(),
            Form::Sandstorm(_) | Form::Crc(_) => Vec::new(),
            Form::Blake3(plan) => non_empty(plan.combine_range()),
        }
    }

    /// Hashes part `index` of `message`, the whole message (only [`Plan::ranges`]`(index)` is
    /// read, in place).
    ///
    /// # Errors
    /// [`PartError::NoSuchPart`] for `index >= self.parts()`, [`PartError::LengthMismatch`]
    /// unless `message` is [`Plan::message_len`] bytes.
    pub fn hash_part(&self, index: usize, message: &[u8]) -> Result<PartState, PartError> {
        self.check_index(index)?;
        self.check_len(message)?;
        Ok(match &self.form {
            Form::Parsha(plan, _) => plan.hash_part(index, message),
            Form::Sandstorm(plan) => {
                let (head, range) = (plan.head(), plan.range(index));
                plan.hash_part(
                    index,
                    &message[head.start as usize..head.end as usize],
                    &message[range.start as usize..range.end as usize],
                )
            }
            Form::Blake3(plan) => {
                let range = plan.range(index);
                plan.hash_part(index, &message[range.start as usize..range.end as usize])
            }
            Form::Crc(plan) => {
                let range = plan.range(index);
                plan.hash_part(index, &message[range.start as usize..range.end as usize])
            }
        })
    }

    /// Hashes part `index`, reading the message through `read(offset, buf)`, which fills `buf`
    /// with the message's bytes at `offset`. It asks for [`Plan::ranges`]`(index)`, in
    /// increasing order, a few MiB at a time (a range may come in several reads); PARSHA-256
    /// also reads through gaps of up to 4 KiB between two ranges in one request, whose bytes
    /// are never looked at (a sparse copy holding only the ranges will do). Memory: a buffer
    /// of a few MiB and the state, whatever the message length.
    ///
    /// # Errors
    /// [`PartError::NoSuchPart`] for `index >= self.parts()`; [`PartError::Io`] with the first
    /// error `read` returns.
    pub fn hash_part_from(
        &self,
        index: usize,
        read: impl FnMut(u64, &mut [u8]) -> io::Result<()>,
    ) -> Result<PartState, PartError> {
        self.check_index(index)?;
        let state = match &self.form {
            Form::Parsha(plan, _) => plan.hash_part_from(index, read),
            Form::Sandstorm(plan) => plan.hash_part_from(index, read),
            Form::Blake3(plan) => plan.hash_part_from(index, read),
            Form::Crc(plan) => plan.hash_part_from(index, read),
        };
        Ok(state?)
    }

    /// The digest from the states of all the parts, in any order, and `message`, the whole
    /// message (only [`Plan::combine_ranges`] is read).
    ///
    /// # Errors
    /// [`PartError::LengthMismatch`] unless `message` is [`Plan::message_len`] bytes; those of
    /// [`Plan::combine_from`] about the states.
    pub fn combine<'a>(
        &self,
        states: impl IntoIterator<Item = &'a PartState>,
        message: &[u8],
    ) -> Result<Output, PartError> {
        self.check_len(message)?;
        self.combine_from(states, pieces::read_in(message))
    }

    /// The digest from the states of all the parts, in any order, reading exactly
    /// [`Plan::combine_ranges`] through `read(offset, buf)` (as in [`Plan::hash_part_from`];
    /// never called when they are empty). The states are checked before anything is read.
    ///
    /// # Errors
    /// [`PartError::Foreign`] for a state of another plan, [`PartError::Duplicate`] and
    /// [`PartError::Missing`] unless each part is given exactly once,
    /// [`PartError::BadPayload`] for a payload of the wrong size for its part (a state damaged
    /// on its way is refused by [`PartState::from_bytes`]'s checksum),
    /// [`PartError::MixedVersions`] for parts whose [`PartState::identity`] differs;
    /// [`PartError::Io`] with the first error `read` returns.
    pub fn combine_from<'a>(
        &self,
        states: impl IntoIterator<Item = &'a PartState>,
        read: impl FnMut(u64, &mut [u8]) -> io::Result<()>,
    ) -> Result<Output, PartError> {
        match &self.form {
            Form::Parsha(plan, _) => {
                let (_, digest) = plan.combine_from(states, read)?;
                Ok(Output::from_slice(&digest))
            }
            Form::Sandstorm(plan) => Ok(Output::from_slice(&plan.combine(states)?)),
            Form::Crc(plan) => Ok(Output::from_slice(&plan.combine(states)?)),
            Form::Blake3(plan) => Ok(Output::from_slice(&plan.combine_from(
                states,
                read,
                self.digest_size,
            )?)),
        }
    }

    /// [`Plan::combine_from`], `read` giving the version of the message that `identity` names
    /// (see [`PartState::with_identity`]): a part that records another identity is
    /// [`PartError::MixedVersions`], found before anything is read.
    ///
    /// # Errors
    /// Those of [`Plan::combine_from`].
    pub fn combine_from_version<'a>(
        &self,
        states: impl IntoIterator<Item = &'a PartState>,
        identity: &[u8],
        read: impl FnMut(u64, &mut [u8]) -> io::Result<()>,
    ) -> Result<Output, PartError> {
        let states: Vec<&PartState> = states.into_iter().collect();
        let stale = states
            .iter()
            .filter(|state| state.identity().is_some_and(|id| id != identity))
            .map(|state| state.index())
            .min();
        if let Some(part) = stale {
            // Parts that disagree among themselves are said so first.
            state::in_order(self.key(), states.iter().copied())?;
            return Err(PartError::MixedVersions { part, other: None });
        }
        self.combine_from(states, read)
    }

    fn check_index(&self, index: usize) -> Result<(), PartError> {
        let parts = self.parts();
        if index >= parts {
            return Err(PartError::NoSuchPart { index, parts });
        }
        Ok(())
    }

    fn check_len(&self, message: &[u8]) -> Result<(), PartError> {
        let (expected, found) = (self.message_len(), message.len() as u64);
        if expected != found {
            return Err(PartError::LengthMismatch { expected, found });
        }
        Ok(())
    }
}

/// `range` alone, or nothing where it is empty.
fn non_empty(range: Range<u64>) -> Vec<Range<u64>> {
    if range.is_empty() {
        Vec::new()
    } else {
        vec![range]
    }
}

/// A positional read over any `Read + Seek` (a file, a cursor) for [`Plan::hash_part_from`]
/// and [`Plan::combine_from`]: seek to `offset`, fill `buf`. (A file on Unix is read faster
/// with `std::os::unix::fs::FileExt::read_exact_at`, which needs no seek.)
pub fn read_at<R: Read + Seek>(
    reader: &mut R,
) -> impl FnMut(u64, &mut [u8]) -> io::Result<()> + '_ {
    move |offset, buf| {
        reader.seek(SeekFrom::Start(offset))?;
        reader.read_exact(buf)
    }
}
