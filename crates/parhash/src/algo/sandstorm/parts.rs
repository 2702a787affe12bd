//! One SANDstorm message hashed as parts, on many machines, with the digest of one machine.
//!
//! This is the family's geometry; callers use the one API over every algorithm that splits,
//! [`crate::parts::Plan`], which dispatches here.
//!
//! A [`Plan`] (algorithm, message length, wanted part count) cuts the message into contiguous
//! byte ranges that each hold whole level-2 superblocks of the tree (the last part takes the
//! rest of the message, with its final, maybe partial, superblock). Every machine that knows
//! the same three numbers builds the same plan, hashes the parts it is given with
//! [`Plan::hash_part`] (bytes in memory) or [`Plan::hash_part_from`] (a read callback, a few MiB
//! at a time) and sends the [`PartState`] on ([`PartState::to_bytes`]). One machine then
//! [`Plan::combine`]s all the states into the digest, which is exactly
//! `parhash::hash(Algorithm::Sandstorm256, message)` (and so on for each size).
//!
//! What a part reads: its [`Plan::range`] and the message's first block ([`Plan::head`]:
//! 64 bytes for SANDstorm-224/256, 128 for 384/512), because every superblock of the tree
//! starts from a base that level 0 derives from that block. Part 0's range starts with it.
//!
//! What a part's state holds (its payload; the envelope of [`crate::parts`] adds 42 bytes):
//! - a middle or the last part: the outputs of its level-2 superblocks, one block each
//!   (64 or 128 bytes per 1000 blocks in the design, so 1.02 MiB per GiB of message; with the
//!   reference code's 8-bit counter, superblocks average 840 blocks: 1.22 MiB per GiB);
//! - part 0: its level-2 outputs already run through the level-3 chain (the first output and
//!   the chain: 28 words, 224 or 448 bytes), which only part 0 can start;
//! - a plan of one part: the message that feeds level 4 (one block).
//!
//! Combining runs the level-3 chain over the other parts' outputs (one compression per
//! level-2 superblock, 1/1000 of the work) and level 4. The parts are computed by the same tree
//! engine as a whole-message hash ([`crate::algo::sandstorm::tree`]: level 0, whole level-1
//! and level-2 superblocks on all the machine's cores, SIMD lanes, the final padding); a part
//! just starts at a level-2 boundary and collects its level-2 outputs instead of chaining them.
//!
//! [`Plan::parts`] may be fewer than asked: a part holds at least one level-2 superblock
//! (64,000 bytes for 224/256 and 128,000 for 384/512 in the design; 100 level-1 outputs or 56
//! with the 8-bit counter), so a message of up to one superblock (and any message shorter than
//! two) is one part. The plan's key ([`Plan::key`]) holds that real count; a state carries it.
//!
//! ```
//! use parhash::sandstorm::parts::{Plan, Variant};
//! use parhash::parts::PartState;
//! use parhash::{hash, Algorithm};
//!
//! let message: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
//! let plan = Plan::new(Variant::Sandstorm256, message.len() as u64, 4);
//! assert_eq!(plan.parts(), 4);
//!
//! // On each machine: hash a part, send its bytes.
//! let head = &message[plan.head().start as usize..plan.head().end as usize];
//! let sent: Vec<Vec<u8>> = (0..plan.parts())
//!     .map(|i| {
//!         let range = plan.range(i);
//!         let bytes = &message[range.start as usize..range.end as usize];
//!         plan.hash_part(i, head, bytes).to_bytes()
//!     })
//!     .collect();
//!
//! // On one machine: read the states back (in any order) and combine them.
//! let states: Vec<PartState> = sent
//!     .iter()
//!     .rev()
//!     .map(|b| PartState::from_bytes(b))
//!     .collect::<Result<_, _>>()?;
//! let digest = plan.combine(&states)?;
//! assert_eq!(digest, hash(Algorithm::Sandstorm256, &message).as_bytes());
//! # Ok::<(), parhash::parts::PartError>(())
//! ```

#![forbid(unsafe_code)]

use core::fmt;
use core::ops::Range;

use crate::algo::sandstorm::reference::{Boundaries, Chain};
use crate::algo::sandstorm::tree::{level4, Level3, Position, Tree, TreeOptions};
use crate::algo::sandstorm::word::Word;
use crate::algo::sandstorm::{P224Ref, P256Ref, Params, P224, P256, P384, P512};
use crate::parts::error::PartError;
use crate::parts::key::{PlanKey, TreeMode};
use crate::parts::state::{sized_in_order, PartState};
use crate::threads::Threads;
use crate::Algorithm;

/// Bytes [`Plan::hash_part_from`] reads at a time (a multiple of both block sizes).
pub const READ_CHUNK: usize = 8 << 20;

/// The SANDstorm algorithms a [`Plan`] can split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// SANDstorm-224 (the tree as designed).
    Sandstorm224,
    /// SANDstorm-256 (the tree as designed).
    Sandstorm256,
    /// SANDstorm-384.
    Sandstorm384,
    /// SANDstorm-512.
    Sandstorm512,
    /// SANDstorm-224 with the reference code's 8-bit superblock counter.
    Sandstorm224Ref,
    /// SANDstorm-256 with the reference code's 8-bit superblock counter.
    Sandstorm256Ref,
}

impl Variant {
    /// Every variant.
    pub const ALL: [Variant; 6] = [
        Variant::Sandstorm224,
        Variant::Sandstorm256,
        Variant::Sandstorm384,
        Variant::Sandstorm512,
        Variant::Sandstorm224Ref,
        Variant::Sandstorm256Ref,
    ];

    /// The registry's canonical name (`sandstorm256`, `sandstorm256-ref`, ...). `From`/`TryFrom`
    /// convert between `Variant` and `Algorithm`; a name or alias reaches a
    /// variant through `Algorithm::from_name(name)?.try_into()`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Sandstorm224 => "sandstorm224",
            Variant::Sandstorm256 => "sandstorm256",
            Variant::Sandstorm384 => "sandstorm384",
            Variant::Sandstorm512 => "sandstorm512",
            Variant::Sandstorm224Ref => "sandstorm224-ref",
            Variant::Sandstorm256Ref => "sandstorm256-ref",
        }
    }

    /// Digest bits.
    pub fn digest_bits(self) -> u32 {
        match self {
            Variant::Sandstorm224 | Variant::Sandstorm224Ref => 224,
            Variant::Sandstorm256 | Variant::Sandstorm256Ref => 256,
            Variant::Sandstorm384 => 384,
            Variant::Sandstorm512 => 512,
        }
    }

    fn boundaries(self) -> Boundaries {
        match self {
            Variant::Sandstorm224Ref | Variant::Sandstorm256Ref => Boundaries::ReferenceCode8Bit,
            _ => Boundaries::Design,
        }
    }

    /// Bytes per block: 64 for 224/256, 128 for 384/512.
    pub fn block_bytes(self) -> usize {
        match self {
            Variant::Sandstorm384 | Variant::Sandstorm512 => 128,
            _ => 64,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl From<Variant> for Algorithm {
    fn from(variant: Variant) -> Algorithm {
        match variant {
            Variant::Sandstorm224 => Algorithm::Sandstorm224,
            Variant::Sandstorm256 => Algorithm::Sandstorm256,
            Variant::Sandstorm384 => Algorithm::Sandstorm384,
            Variant::Sandstorm512 => Algorithm::Sandstorm512,
            Variant::Sandstorm224Ref => Algorithm::Sandstorm224Ref,
            Variant::Sandstorm256Ref => Algorithm::Sandstorm256Ref,
        }
    }
}

impl TryFrom<Algorithm> for Variant {
    type Error = Algorithm;

    /// The SANDstorm variant of `algorithm` (for its split/merge plan); the algorithm back for
    /// any other.
    fn try_from(algorithm: Algorithm) -> Result<Self, Algorithm> {
        Variant::ALL
            .into_iter()
            .find(|&v| Algorithm::from(v) == algorithm)
            .ok_or(algorithm)
    }
}

/// Runs `$body` with `$p` the [`Params`] type of `$variant`.
macro_rules! with_params {
    ($variant:expr, $p:ident => $body:expr) => {
        match $variant {
            Variant::Sandstorm224 => {
                type $p = P224;
                $body
            }
            Variant::Sandstorm256 => {
                type $p = P256;
                $body
            }
            Variant::Sandstorm384 => {
                type $p = P384;
                $body
            }
            Variant::Sandstorm512 => {
                type $p = P512;
                $body
            }
            Variant::Sandstorm224Ref => {
                type $p = P224Ref;
                $body
            }
            Variant::Sandstorm256Ref => {
                type $p = P256Ref;
                $body
            }
        }
    };
}

/// How one message is cut into parts (see the module docs). Two plans built from the same
/// variant, message length and part count are the same plan, on any machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    variant: Variant,
    message_len: u64,
    /// Level-2 superblocks of the message (at least 1: a message too short for level 2 is one
    /// unit).
    superblocks: u64,
    parts: u32,
    engine: TreeOptions,
}

impl Plan {
    /// The plan for a message of `message_len` bytes in (at most) `parts` parts (0 is taken as
    /// 1). [`Plan::parts`] says how many there are. Parts are hashed on all the cores of the
    /// machine that hashes them ([`Plan::with_threads`] to change that).
    pub fn new(variant: Variant, message_len: u64, parts: usize) -> Plan {
        let blocks = message_len / variant.block_bytes() as u64;
        let superblocks = Position::level2_superblocks(variant.boundaries(), blocks).max(1);
        let parts = (parts.max(1) as u64).min(superblocks).min(u32::MAX.into()) as u32;
        Plan {
            variant,
            message_len,
            superblocks,
            parts,
            engine: TreeOptions::fastest(Threads::ALL),
        }
    }

    /// The plan a key describes (for example a received state's [`PartState::key`]), or `None`
    /// for a key that no SANDstorm plan has.
    pub fn for_key(key: &PlanKey) -> Option<Plan> {
        let variant = Variant::ALL.into_iter().find(|v| {
            key.mode == TreeMode::Sandstorm && Plan::new(*v, 0, 1).key().params == key.params
        })?;
        let plan = Plan::new(variant, key.message_len, key.parts as usize);
        (plan.key() == *key).then_some(plan)
    }

    /// This plan hashing its parts on `threads` threads (0 = all cores). The states and the
    /// digest do not depend on it.
    pub fn with_threads(self, threads: impl Into<Threads>) -> Plan {
        self.with_engine(TreeOptions::fastest(threads))
    }

    /// This plan hashing its parts with exactly this engine ([`TreeOptions`]: threads, SIMD lanes).
    /// The states and the digest do not depend on it.
    pub fn with_engine(self, engine: TreeOptions) -> Plan {
        Plan { engine, ..self }
    }

    /// The algorithm.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// The message length in bytes.
    pub fn message_len(&self) -> u64 {
        self.message_len
    }

    /// The number of parts: the count asked for, or fewer where the message has fewer level-2
    /// superblocks (see the module docs); at least 1.
    pub fn parts(&self) -> usize {
        self.parts as usize
    }

    /// What identifies this plan; every state of it carries this key.
    pub fn key(&self) -> PlanKey {
        PlanKey {
            mode: TreeMode::Sandstorm,
            params: [
                self.variant.digest_bits(),
                match self.variant.boundaries() {
                    Boundaries::Design => 0,
                    Boundaries::ReferenceCode8Bit => 1,
                },
            ],
            message_len: self.message_len,
            parts: self.parts,
        }
    }

    /// The message's first block, which every part reads besides its range (level 0 derives
    /// every superblock's base from it): `0..64` (`0..128` for 384/512), or the whole message
    /// where it is shorter.
    pub fn head(&self) -> Range<u64> {
        0..self.message_len.min(self.variant.block_bytes() as u64)
    }

    /// The bytes part `index` hashes: the parts' ranges are contiguous and cover the message
    /// (part 0 from 0, the last to the end).
    ///
    /// # Panics
    /// If `index` is not below [`Plan::parts`].
    pub fn range(&self, index: usize) -> Range<u64> {
        self.check_index(index);
        let end = if index + 1 == self.parts() {
            self.message_len
        } else {
            self.start(index + 1)
        };
        self.start(index)..end
    }

    /// Hashes part `index` from its bytes, `bytes` exactly [`Plan::range`] and `head` exactly
    /// [`Plan::head`] of the message (for part 0, the start of `bytes`).
    ///
    /// # Panics
    /// If `index` is not below [`Plan::parts`] or either slice has another length.
    pub fn hash_part(&self, index: usize, head: &[u8], bytes: &[u8]) -> PartState {
        let range = self.range(index);
        assert_eq!(
            bytes.len() as u64,
            range.end - range.start,
            "part {index} is bytes {range:?} of the message"
        );
        self.check_head(head);
        if index == 0 {
            assert_eq!(
                head,
                &bytes[..head.len()],
                "the head is where part 0 starts"
            );
        }
        let bb = self.variant.block_bytes();
        let whole = bytes.len() / bb * bb;
        with_params!(self.variant, P => {
            let mut tree = self.part_tree::<P>(index, head);
            tree.update_blocks(&bytes[..whole]);
            self.state::<P>(index, tree, &bytes[whole..])
        })
    }

    /// Hashes part `index`, reading the message through `read(offset, buffer)`, which must fill
    /// `buffer` with the message's bytes from `offset` on. It asks for [`Plan::head`] (parts
    /// other than 0) and then for [`Plan::range`] in order, [`READ_CHUNK`] bytes at a time at
    /// most, and for nothing else. Memory: one such buffer, and the state being built (its
    /// level-2 outputs, about 1 MiB per GiB of the part).
    ///
    /// # Errors
    /// The first error `read` returns.
    ///
    /// # Panics
    /// If `index` is not below [`Plan::parts`].
    pub fn hash_part_from(
        &self,
        index: usize,
        mut read: impl FnMut(u64, &mut [u8]) -> std::io::Result<()>,
    ) -> std::io::Result<PartState> {
        let range = self.range(index);
        let mut head = vec![0u8; (self.head().end - self.head().start) as usize];
        if index > 0 {
            read(self.head().start, &mut head)?;
        }
        let bb = self.variant.block_bytes();
        let mut buffer = vec![0u8; READ_CHUNK.min((range.end - range.start) as usize)];
        with_params!(self.variant, P => {
            let mut tree = self.part_tree::<P>(index, &head);
            let mut at = range.start;
            loop {
                let len = READ_CHUNK.min((range.end - at) as usize);
                let chunk = &mut buffer[..len];
                if len > 0 {
                    read(at, chunk)?;
                }
                at += len as u64;
                if at == range.end {
                    let whole = len / bb * bb;
                    tree.update_blocks(&chunk[..whole]);
                    break Ok(self.state::<P>(index, tree, &chunk[whole..]));
                }
                tree.update_blocks(chunk);
            }
        })
    }

    /// The digest of the message from the states of all its parts, in any order.
    ///
    /// # Errors
    /// [`PartError::Foreign`] for a state of another plan (algorithm, message length or part
    /// count), [`PartError::Duplicate`] and [`PartError::Missing`] unless each part is given
    /// exactly once, [`PartError::BadPayload`] for a payload of the wrong size for its part.
    /// (A state damaged on its way is refused by [`PartState::from_bytes`]'s checksum.)
    pub fn combine<'a>(
        &self,
        states: impl IntoIterator<Item = &'a PartState>,
    ) -> Result<Vec<u8>, PartError> {
        let ordered = sized_in_order(self.key(), states, |index| self.payload_len(index))?;
        let words = with_params!(self.variant, P => {
            self.combine_words::<P>(&ordered)
        });
        let mut digest = words;
        digest.truncate(self.variant.digest_bits() as usize / 8);
        Ok(digest)
    }

    fn check_index(&self, index: usize) {
        assert!(
            index < self.parts(),
            "part {index} of a plan of {} parts",
            self.parts
        );
    }

    fn check_head(&self, head: &[u8]) {
        let expected = self.head();
        assert_eq!(
            head.len() as u64,
            expected.end - expected.start,
            "the head is bytes {expected:?} of the message"
        );
    }

    /// The first level-2 superblock of part `index` (0..superblocks).
    fn first_superblock(&self, index: usize) -> u64 {
        (u128::from(self.superblocks) * index as u128 / u128::from(self.parts)) as u64
    }

    /// The level-2 superblocks of part `index`.
    fn superblocks(&self, index: usize) -> u64 {
        self.first_superblock(index + 1) - self.first_superblock(index)
    }

    /// Where part `index` starts, in the tree.
    fn position(&self, index: usize) -> Position {
        Position::after_level2(self.variant.boundaries(), self.first_superblock(index))
    }

    /// Where part `index` starts in the message: after the first block and the level-1 blocks
    /// before it (part 0 at 0, with the first block).
    fn start(&self, index: usize) -> u64 {
        if index == 0 {
            0
        } else {
            (self.position(index).blocks + 1) * self.variant.block_bytes() as u64
        }
    }

    /// The payload of part `index` in bytes (see the module docs).
    fn payload_len(&self, index: usize) -> usize {
        let word = self.variant.block_bytes() / 8;
        if self.parts == 1 {
            8 * word
        } else if index == 0 {
            (8 + 20) * word
        } else {
            self.superblocks(index) as usize * 8 * word
        }
    }

    /// The tree that hashes part `index`: a whole-message tree for part 0 (which finds the
    /// first block in its range, not in `head`), one that starts at the part's first level-2
    /// superblock for the others.
    fn part_tree<P: Params>(&self, index: usize, head: &[u8]) -> Tree<P::W> {
        let mut tree = Tree::new(P::K, P::BOUNDARIES, self.engine);
        if index > 0 {
            tree.start_part(head, self.position(index));
        }
        tree
    }

    /// The state of part `index` once `tree` has had its range but `tail` (the part of a block
    /// the message ends with, for the last part).
    fn state<P: Params>(&self, index: usize, mut tree: Tree<P::W>, tail: &[u8]) -> PartState {
        let mut payload = Vec::with_capacity(self.payload_len(index));
        if self.parts == 1 {
            tree.close(tail);
            put_words(&mut payload, &tree.top());
        } else if index == 0 {
            debug_assert!(tail.is_empty());
            let (level3, at) = tree.level3();
            debug_assert_eq!(at, self.position(1));
            debug_assert_eq!(level3.inputs, self.superblocks(0));
            put_words(&mut payload, &level3.first);
            for row in &level3.chain {
                put_words(&mut payload, row);
            }
        } else {
            if index + 1 == self.parts() {
                tree.close(tail);
            } else {
                debug_assert!(tail.is_empty());
            }
            let outputs = tree.take_outputs();
            debug_assert_eq!(outputs.len() as u64, self.superblocks(index));
            for out in &outputs {
                put_words(&mut payload, out);
            }
        }
        debug_assert_eq!(payload.len(), self.payload_len(index));
        PartState::new(self.key(), index as u32, payload)
    }

    /// The untruncated result from states of the right sizes, in order.
    fn combine_words<P: Params>(&self, states: &[&PartState]) -> Vec<u8> {
        let top = if self.parts == 1 {
            words::<P::W, 8>(states[0].payload())
        } else {
            let state0 = states[0].payload();
            let per_block = 8 * <P::W as Word>::BYTES;
            let mut chain: Chain<P::W> = [[P::W::default(); 4]; 5];
            for (r, row) in chain.iter_mut().enumerate() {
                let at = per_block + r * per_block / 2;
                *row = words::<P::W, 4>(&state0[at..at + per_block / 2]);
            }
            let mut level3 = Level3 {
                inputs: self.superblocks(0),
                first: words::<P::W, 8>(&state0[..per_block]),
                chain,
            };
            for state in &states[1..] {
                for out in state.payload().chunks_exact(per_block) {
                    level3.push(words::<P::W, 8>(out));
                }
            }
            level3.top()
        };
        let result = level4(&P::K, &top, u128::from(self.message_len) * 8);
        let mut bytes = Vec::new();
        put_words(&mut bytes, &result);
        bytes
    }
}

fn put_words<W: Word>(out: &mut Vec<u8>, words: &[W]) {
    for &word in words {
        let at = out.len();
        out.resize(at + W::BYTES, 0);
        word.write_be_bytes(&mut out[at..]);
    }
}

/// `N` big-endian words from `bytes` (exactly `N` words long).
fn words<W: Word, const N: usize>(bytes: &[u8]) -> [W; N] {
    debug_assert_eq!(bytes.len(), N * W::BYTES);
    core::array::from_fn(|j| W::from_be_bytes(&bytes[j * W::BYTES..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every part holds whole level-2 superblocks, the ranges tile the message, and the parts
    /// come out as even as the superblocks allow.
    #[test]
    fn ranges_tile_the_message_on_level2_boundaries() {
        for variant in Variant::ALL {
            let bb = variant.block_bytes() as u64;
            for len in [
                0,
                1,
                bb - 1,
                bb,
                1001 * bb - 1,
                1001 * bb,
                1002 * bb,
                3 << 20,
            ] {
                for parts in [1, 2, 3, 7, 64] {
                    let plan = Plan::new(variant, len, parts);
                    assert!(plan.parts() >= 1 && plan.parts() <= parts);
                    let mut at = 0;
                    for i in 0..plan.parts() {
                        let r = plan.range(i);
                        assert_eq!(r.start, at, "{variant} {len} {parts} part {i}");
                        assert!(r.end >= r.start);
                        if i > 0 {
                            let p = plan.position(i);
                            assert_eq!(r.start, (p.blocks + 1) * bb);
                            assert!(plan.superblocks(i) >= 1);
                        }
                        at = r.end;
                    }
                    assert_eq!(at, len);
                }
            }
        }
        // The longest messages: no overflow, the last part ends at the end.
        for variant in Variant::ALL {
            let plan = Plan::new(variant, u64::MAX, 64);
            assert_eq!(plan.parts(), 64);
            assert_eq!(plan.range(63).end, u64::MAX);
            // Bytes per level-2 superblock: 1000 blocks, or with the 8-bit counter 3 per 256
            // level-1 superblocks, which are 26 per 256 blocks.
            let bytes = match variant.boundaries() {
                Boundaries::Design => 1000.0 * variant.block_bytes() as f64,
                Boundaries::ReferenceCode8Bit => 256.0 / 3.0 * 256.0 / 26.0 * 64.0,
            };
            let expected = u64::MAX as f64 / bytes;
            let error = (plan.superblocks as f64 - expected).abs() / expected;
            assert!(error < 1e-9, "{variant}: {} {expected}", plan.superblocks);
        }
        // The design: 1000 blocks per level-2 superblock; more than one only from 1001 blocks.
        assert_eq!(
            Plan::new(Variant::Sandstorm256, 1001 * 64 - 1, 8).parts(),
            1
        );
        assert_eq!(Plan::new(Variant::Sandstorm256, 1001 * 64, 8).parts(), 2);
        assert_eq!(Plan::new(Variant::Sandstorm512, 1001 * 128, 8).parts(), 2);
        let plan = Plan::new(Variant::Sandstorm256, 10_000 * 64, 3);
        assert_eq!(plan.range(1), (3000 * 64 + 64)..(6000 * 64 + 64));
    }

    #[test]
    fn plans_from_their_keys() {
        for variant in Variant::ALL {
            for (len, parts) in [(0, 1), (5 << 20, 7), (5 << 20, 1)] {
                let plan = Plan::new(variant, len, parts);
                assert_eq!(Plan::for_key(&plan.key()), Some(plan.clone()));
            }
        }
        // More parts than the message has superblocks: no plan has that key.
        let mut key = Plan::new(Variant::Sandstorm256, 1 << 20, 4).key();
        key.parts = 40;
        assert_eq!(Plan::for_key(&key), None);
        key.params = [256, 2];
        assert_eq!(Plan::for_key(&key), None);
        key.mode = TreeMode::Parsha256;
        assert_eq!(Plan::for_key(&key), None);
    }
}
