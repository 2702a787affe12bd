//! PARSHA-256 split over machines: one message hashed as independent parts, each anywhere,
//! then combined into exactly the digest [`parsha256`](super::parsha256) gives.
//!
//! This is the family's geometry; callers use the one API over every algorithm that splits,
//! [`crate::parts::Plan`], which dispatches here.
//!
//! # The plan
//!
//! PARSHA-256 runs a binary tree of `2^t` processors for R rounds; every processor's input in
//! a round is its two children's outputs of the round before and its own piece of the
//! message. Information only flows up, so a [`Plan`] cuts the tree at depth `k`:
//!
//! - **Part `p`** (`0 <= p < 2^k`) is the processor subtree rooted at node `2^k + p` (its
//!   `t - k` levels). It needs nothing from outside itself: only its processors' message
//!   pieces, which PARSHA-256 strides through the whole message, round after round
//!   ([`Plan::ranges`]: per round, one run of consecutive pieces per level of the subtree,
//!   adjacent runs merged; about `1 / 2^k` of the message).
//! - **Its state** ([`PartState`], from [`Plan::hash_part`] or [`Plan::hash_part_from`]) holds
//!   what the processors above it consume: its root's output in every round `1 .. R` (32
//!   bytes each; none in the few rounds where the root outputs nothing, which the plan knows
//!   from the length alone). With T = 13 that is 85.3 KiB per GiB of message for l = 256
//!   (one round is 384 KiB), 73.1 KiB for l = 128 and 64 KiB for l = 0, whatever the number of
//!   parts; plus the envelope's 42 bytes ([`crate::parts`]).
//! - **The combine step** ([`Plan::combine`], [`Plan::combine_from`]) runs the `2^k - 1`
//!   processors above the cut (nodes `0 .. 2^k`) round by round from the parts' root outputs,
//!   then the final step. Those processors consume message pieces too: 32 bytes each per
//!   round (96 - l/8 in round 1) and the final 32-byte block, all listed by
//!   [`Plan::top_ranges`]: one run at the start of every round, about 32 x 2^k bytes, so as
//!   many bytes as all the parts' states together (85.3 KiB x 2^k per GiB for T = 13,
//!   l = 256).
//!
//! The number of parts is what the tree allows: the largest power of two not above the
//! number asked for, and at most `2^(t-1)` (each part keeps at least one level: its leaves),
//! so 1 for a message too short for a tree (t = 0: up to 96 - l/8 bytes, where the whole
//! message is the combine step's) and for t = 1. [`Plan::parts`] says how many there are.
//!
//! The digest does not depend on the number of parts, on where they ran, or on the order they
//! are combined in. A state names its plan (algorithm, T, l, message length, number of parts)
//! and carries a checksum: [`Plan::combine`] refuses a missing, duplicated, foreign (another
//! plan's) or corrupted part, or a payload of the wrong size, with a [`PartError`].
//!
//! The threaded engine ([`parsha256_with`](super::parsha256_with), the
//! [`Parsha256Hasher`](super::Parsha256Hasher)) is the same machinery: its threads run the
//! parts' subtrees of a cut (a part per job, a slice of rounds at a time) and its top tree is
//! the combine step's.
//!
//! # Example
//!
//! ```
//! use parhash::parsha256::{parsha256, parts::Plan};
//! use parhash::parts::PartState;
//!
//! let message: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
//! let plan = Plan::new(message.len() as u64, 13, 256, 8)?;
//! assert_eq!(plan.parts(), 8);
//!
//! // Each part can be hashed on another machine that reads only `plan.ranges(p)`...
//! let sent: Vec<Vec<u8>> = (0..plan.parts())
//!     .map(|p| {
//!         let state = plan.hash_part_from(p, |offset, buf| {
//!             // Here a file or an object store; `buf.len()` bytes at `offset`.
//!             let at = offset as usize;
//!             buf.copy_from_slice(&message[at..at + buf.len()]);
//!             Ok(())
//!         })?;
//!         Ok(state.to_bytes())
//!     })
//!     .collect::<std::io::Result<_>>()?;
//!
//! // ... and combined where `plan.top_ranges()` can be read.
//! let states = sent
//!     .iter()
//!     .map(|bytes| PartState::from_bytes(bytes))
//!     .collect::<Result<Vec<_>, _>>()?;
//! assert_eq!(plan.combine(&states, &message)?, parsha256(&message, 13, 256)?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

use std::convert::Infallible;
use std::io;
use std::ops::Range;

use super::engine::{bytes, short, words, Ctx, Node, Split, Subtree, View};
use crate::lanes::Kernel;
use crate::parts::error::PartError;
use crate::parts::key::{PlanKey, TreeMode};
use crate::parts::pieces::read_in;
use crate::parts::state::{sized_in_order, PartState};

/// Message bytes (of the whole message, not only the part's) per read-and-hash step of
/// [`Plan::hash_part_from`] and top bytes per read of [`Plan::combine_from`]: the memory they
/// use besides the states.
const STREAM_BYTES: u64 = 4 << 20;

/// Gaps between a part's pieces up to this size are read through in [`Plan::hash_part_from`]:
/// a request from the page cache costs about as much as copying a few KiB more, and the pieces
/// of a part's upper levels lie a few hundred bytes to a few KiB apart (T = 13, 8 parts: 10
/// requests a round become 6; ~5 % less CPU time per part, measured with `perf stat`).
const READ_THROUGH_GAP: u64 = 4 << 10;

/// The largest cut: part counts are `u32` in the wire format.
const MAX_CUT: u32 = 31;

/// How one message is split into independent parts (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct Plan {
    split: Split,
    key: PlanKey,
    kernel: Kernel,
}

impl Plan {
    /// A plan for a message of `message_len` bytes, tree height `T` and an IV of `l` bits, in
    /// at most `parts` parts: the largest power of two `<= parts` that the tree allows (at most
    /// `2^(t-1)`; 1 for messages too short for a tree). [`Plan::parts`] is the real count.
    ///
    /// # Errors
    /// [`PartError::InvalidPlan`] with the registry's error for an invalid T or l or a message
    /// over 2^64 - 1 bits; [`PartError::NoParts`] for `parts == 0`.
    pub fn new(
        message_len: u64,
        tree_height: u32,
        iv_bits: u32,
        parts: usize,
    ) -> Result<Plan, PartError> {
        let shape = super::engine::Shape::new(message_len, tree_height, iv_bits)
            .map_err(|e| PartError::InvalidPlan(e.into()))?;
        if parts == 0 {
            return Err(PartError::NoParts);
        }
        let cut = if shape.is_short() {
            0
        } else {
            parts.ilog2().min(shape.t - 1).min(MAX_CUT)
        };
        Ok(Plan {
            split: Split::new(shape, cut),
            key: PlanKey {
                mode: TreeMode::Parsha256,
                params: [tree_height, iv_bits],
                message_len,
                parts: 1 << cut,
            },
            kernel: Kernel::best(true),
        })
    }

    /// What identifies this plan; every state of it carries the same key.
    pub fn key(&self) -> PlanKey {
        self.key
    }

    /// The number of parts (a power of two, at most what [`Plan::new`] was asked for).
    pub fn parts(&self) -> usize {
        self.split.parts()
    }

    /// The message length in bytes.
    pub fn message_len(&self) -> u64 {
        self.key.message_len
    }

    /// The effective tree height t (0 for a message too short for a tree), part of the digest.
    pub fn effective_height(&self) -> u32 {
        self.split.shape.t
    }

    /// The size of part `index`'s payload: 32 bytes per round its root outputs in.
    ///
    /// # Panics
    /// If `index >= self.parts()`.
    pub fn payload_len(&self, index: usize) -> usize {
        self.check_index(index);
        if self.split.shape.is_short() {
            return 0;
        }
        let rounds = self.split.shape.outputs_count(self.split.root(index));
        usize::try_from(rounds * 32).expect("a payload fits in memory")
    }

    /// The message bytes part `index` reads, in increasing order, adjacent ones merged (none
    /// past the message end: the padding is zeros).
    ///
    /// # Panics
    /// If `index >= self.parts()`.
    pub fn ranges(&self, index: usize) -> Vec<Range<u64>> {
        self.check_index(index);
        let mut ranges = Merged::new(self.message_len());
        if !self.split.shape.is_short() {
            let rounds = (1, self.split.shape.rounds());
            self.split
                .part_pieces(index, rounds, |piece| ranges.push(piece));
        }
        ranges.into_vec()
    }

    /// The message bytes the combine step reads (the processors above the cut and the final
    /// step), in increasing order, adjacent ones merged; the whole message when it is too short
    /// for a tree.
    pub fn top_ranges(&self) -> Vec<Range<u64>> {
        let mut ranges = Merged::new(self.message_len());
        if self.split.shape.is_short() {
            ranges.push(0..self.message_len());
        } else {
            for i in 1..=self.split.shape.rounds() {
                if let Some(piece) = self.split.top_pieces(i) {
                    ranges.push(piece);
                }
            }
        }
        ranges.into_vec()
    }

    /// Hashes part `index` of `message` (the whole message, in memory or memory-mapped: only
    /// [`Plan::ranges`]`(index)` is read, in place). One thread; hash several parts at once to
    /// use more cores.
    ///
    /// # Panics
    /// If `index >= self.parts()` or `message` is not `self.message_len()` bytes.
    pub fn hash_part(&self, index: usize, message: &[u8]) -> PartState {
        assert_eq!(
            message.len() as u64,
            self.message_len(),
            "the message is not the plan's length"
        );
        let view = View {
            data: message,
            base: 0,
            end: self.message_len(),
        };
        let kernel = self.kernel;
        let state = self.run_part(index, |part, ctx, rounds| {
            part.run(ctx, &view, kernel, rounds);
            Ok::<(), Infallible>(())
        });
        match state {
            Ok(state) => state,
            Err(never) => match never {},
        }
    }

    /// Hashes part `index`, reading its [`Plan::ranges`] through `read(offset, buf)` (fill
    /// `buf` with the message bytes at `offset`), in increasing order, a step of about 4 MiB of
    /// message at a time (the part's share of it: a range may come in several reads). Gaps of
    /// up to 4 KiB between two ranges are read through in one request; their bytes are
    /// never looked at (a reader may fill them with anything, e.g. a sparse local copy).
    /// Memory: one buffer spanning a step (4 MiB and at most one round more; a round is at most
    /// 2^t x (96 - l/8) bytes: 768 KiB with T = 13), whatever the message length. One thread.
    ///
    /// A part's pieces are strided: per round, one range per level of its subtree (with T = 13
    /// and 64 parts, 7 ranges per 384 KiB round, ~860 bytes on average). A reader with costly
    /// requests (an object store) should fetch larger blocks and serve `read` from them.
    ///
    /// # Errors
    /// The first error `read` returns.
    ///
    /// # Panics
    /// If `index >= self.parts()`.
    pub fn hash_part_from(
        &self,
        index: usize,
        mut read: impl FnMut(u64, &mut [u8]) -> io::Result<()>,
    ) -> io::Result<PartState> {
        let len = self.message_len();
        let (split, kernel) = (&self.split, self.kernel);
        let mut window = Vec::new();
        self.run_part(index, |part, ctx, rounds| {
            // The step's span of the message; only the part's pieces of it are read (the rest
            // of the buffer is never looked at).
            let base = split.shape.round_start(rounds.0).min(len);
            let end = split.shape.round_start(rounds.1).min(len);
            window.resize((end - base) as usize, 0);
            let mut ranges = Merged::new(len);
            split.part_pieces(index, rounds, |piece| ranges.push(piece));
            for r in ranges.read_through(READ_THROUGH_GAP) {
                read(
                    r.start,
                    &mut window[(r.start - base) as usize..(r.end - base) as usize],
                )?;
            }
            let view = View {
                data: &window,
                base,
                end: len,
            };
            part.run(ctx, &view, kernel, rounds);
            Ok(())
        })
    }

    /// Runs part `index`'s subtree over all rounds, `run` doing a step of rounds at a time, and
    /// packs its root's outputs.
    fn run_part<E>(
        &self,
        index: usize,
        mut run: impl FnMut(&mut Subtree, &Ctx, (u64, u64)) -> Result<(), E>,
    ) -> Result<PartState, E> {
        let mut payload = Vec::with_capacity(self.payload_len(index));
        let shape = &self.split.shape;
        if !shape.is_short() {
            let ctx = Ctx::new(shape);
            let mut part = self.split.part(index);
            for rounds in shape.slices((1, shape.rounds()), STREAM_BYTES) {
                run(&mut part, &ctx, rounds)?;
                for z in part.drain_roots().flatten() {
                    payload.extend_from_slice(&bytes(&z));
                }
            }
        }
        debug_assert_eq!(payload.len(), self.payload_len(index));
        Ok(PartState::new(self.key, index as u32, payload))
    }

    /// The digest `(t, z)` from every part's state (in any order) and `message`, the whole
    /// message (only [`Plan::top_ranges`] is read).
    ///
    /// # Errors
    /// [`PartError::Foreign`] for a state of another plan, [`PartError::Duplicate`],
    /// [`PartError::Missing`], [`PartError::BadPayload`] for a payload of the wrong size.
    ///
    /// # Panics
    /// If `message` is not `self.message_len()` bytes.
    pub fn combine<'a>(
        &self,
        states: impl IntoIterator<Item = &'a PartState>,
        message: &[u8],
    ) -> Result<(u32, [u8; 32]), PartError> {
        assert_eq!(
            message.len() as u64,
            self.message_len(),
            "the message is not the plan's length"
        );
        self.combine_from(states, read_in(message))
    }

    /// [`Plan::combine`], reading exactly [`Plan::top_ranges`] through `read(offset, buf)`, in
    /// increasing order, about 4 MiB at a time (a range may come in several reads). The states
    /// are checked before anything is read.
    ///
    /// # Errors
    /// Those of [`Plan::combine`]; [`PartError::Io`] with the first error `read` returns.
    pub fn combine_from<'a>(
        &self,
        states: impl IntoIterator<Item = &'a PartState>,
        mut read: impl FnMut(u64, &mut [u8]) -> io::Result<()>,
    ) -> Result<(u32, [u8; 32]), PartError> {
        let parts = sized_in_order(self.key, states, |index| self.payload_len(index))?;
        let shape = &self.split.shape;
        let len = self.message_len();
        if shape.is_short() {
            let mut message = vec![0; len as usize];
            if len > 0 {
                read(0, &mut message)?;
            }
            return Ok((0, short(shape, &message)));
        }
        let ctx = Ctx::new(shape);
        let mut top = self.split.top(self.kernel);
        // Each part's root output in the round before the next one (its input), and where
        // the part's next output lies in its payload.
        let mut outputs: Vec<Node> = vec![None; parts.len()];
        let mut cursors = vec![0usize; parts.len()];
        let rounds = shape.rounds();
        let mut buffer = Vec::new();
        let mut next = 1;
        while next <= rounds {
            // A step of rounds whose top pieces (one run at the start of each round) make
            // about STREAM_BYTES: read them into `buffer`, one after the other.
            let mut pieces = Vec::new();
            let mut total = 0;
            while next <= rounds && (pieces.is_empty() || total < STREAM_BYTES) {
                let piece = self.split.top_pieces(next).map_or(0..0, |r| {
                    let end = r.end.min(len);
                    r.start.min(end)..end
                });
                total += piece.end - piece.start;
                pieces.push((next, piece));
                next += 1;
            }
            buffer.resize(total as usize, 0);
            let mut ranges = Merged::new(len);
            for (_, piece) in &pieces {
                ranges.push(piece.clone());
            }
            let mut at = 0;
            for r in ranges.into_vec() {
                let n = (r.end - r.start) as usize;
                read(r.start, &mut buffer[at..at + n])?;
                at += n;
            }
            let mut at = 0;
            for (i, piece) in pieces {
                let n = (piece.end - piece.start) as usize;
                let view = View {
                    data: &buffer[at..at + n],
                    base: piece.start,
                    end: len,
                };
                at += n;
                if i == rounds {
                    return Ok((shape.t, top.finish(shape, &view, outputs[0])));
                }
                top.run(&ctx, &view, (i, i + 1), |p, _| outputs[p]);
                for (p, part) in parts.iter().enumerate() {
                    outputs[p] = shape.outputs(i, self.split.root(p)).then(|| {
                        let z = &part.payload()[cursors[p]..cursors[p] + 32];
                        cursors[p] += 32;
                        words(z)
                    });
                }
            }
        }
        unreachable!("the last round (R) returns")
    }

    fn check_index(&self, index: usize) {
        assert!(
            index < self.parts(),
            "part {index} of a plan of {} parts",
            self.parts()
        );
    }
}

/// Byte ranges pushed in increasing order, cut at the message end, adjacent ones merged.
struct Merged {
    end: u64,
    ranges: Vec<Range<u64>>,
}

impl Merged {
    fn new(end: u64) -> Merged {
        Merged {
            end,
            ranges: Vec::new(),
        }
    }

    fn push(&mut self, r: Range<u64>) {
        let r = r.start..r.end.min(self.end);
        if r.start >= r.end {
            return;
        }
        match self.ranges.last_mut() {
            Some(last) if last.end == r.start => last.end = r.end,
            last => {
                debug_assert!(last.is_none_or(|l| l.end < r.start), "ranges out of order");
                self.ranges.push(r);
            }
        }
    }

    fn into_vec(self) -> Vec<Range<u64>> {
        self.ranges
    }

    /// The ranges with every gap of at most `gap` bytes filled: fewer, longer reads that cover
    /// the same bytes and a few more (still inside the message).
    fn read_through(self, gap: u64) -> Vec<Range<u64>> {
        let mut joined: Vec<Range<u64>> = Vec::with_capacity(self.ranges.len());
        for r in self.ranges {
            match joined.last_mut() {
                Some(last) if r.start - last.end <= gap => last.end = r.end,
                _ => joined.push(r),
            }
        }
        joined
    }
}
