//! BLAKE3's parts: runs of whole [`PIECE`]s, each piece a complete subtree whose chaining
//! value does not depend on the rest of the message. A part's result is the chaining values
//! of its pieces (32 bytes per MiB); the combine step merges them as the tree says, the
//! digest [`Blake3`](super::Blake3) gives. A message of one piece or less is its own root: it
//! has one part that reads nothing, and the combine step hashes the message whole.
//!
//! The family's geometry and its states; `crate::parts` dispatches to it.

use std::io;
use std::ops::Range;

use ::blake3::hazmat::ChainingValue;

use super::{output_from_pieces, piece_chaining_value, PIECE};
use crate::parts::error::PartError;
use crate::parts::key::{PlanKey, TreeMode};
use crate::parts::pieces::read_in_pieces;
use crate::parts::state::{sized_in_order, PartState};

/// Bytes of one chaining value in a part's result.
pub(crate) const CV_LEN: usize = 32;

/// How a BLAKE3 message of `message_len` bytes is cut into parts of whole pieces.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    message_len: u64,
    parts: usize,
}

impl Plan {
    /// The plan in at most `parts` parts (at least 1): at most one part per piece.
    pub(crate) fn new(message_len: u64, parts: usize) -> Plan {
        let pieces = Plan::pieces_of(message_len);
        Plan {
            message_len,
            parts: parts.clamp(1, pieces.max(1) as usize),
        }
    }

    /// The pieces of a message of more than one piece; 0 for one that is its own root.
    fn pieces_of(message_len: u64) -> u64 {
        if message_len <= PIECE as u64 {
            0
        } else {
            message_len.div_ceil(PIECE as u64)
        }
    }

    /// The message length in bytes.
    pub(crate) fn message_len(&self) -> u64 {
        self.message_len
    }

    /// The number of parts.
    pub(crate) fn parts(&self) -> usize {
        self.parts
    }

    /// What identifies this plan; every state of it carries this key (with the bytes per
    /// piece: a plan of another piece size is another plan).
    pub(crate) fn key(&self) -> PlanKey {
        PlanKey {
            mode: TreeMode::Blake3,
            params: [PIECE as u32, 0],
            message_len: self.message_len,
            parts: self.parts as u32,
        }
    }

    /// The pieces of part `index`: the pieces shared as evenly as whole pieces allow.
    fn pieces(&self, index: usize) -> Range<u64> {
        let pieces = Plan::pieces_of(self.message_len);
        let parts = self.parts as u64;
        let at = |i: u64| (u128::from(i) * u128::from(pieces) / u128::from(parts)) as u64;
        at(index as u64)..at(index as u64 + 1)
    }

    /// The bytes part `index` reads (empty for a message that is its own root).
    pub(crate) fn range(&self, index: usize) -> Range<u64> {
        let pieces = self.pieces(index);
        let piece = PIECE as u64;
        (pieces.start * piece).min(self.message_len)..(pieces.end * piece).min(self.message_len)
    }

    /// The bytes the combine step reads: the whole message when it is its own root.
    pub(crate) fn combine_range(&self) -> Range<u64> {
        if Plan::pieces_of(self.message_len) == 0 {
            0..self.message_len
        } else {
            0..0
        }
    }

    /// The size of part `index`'s result.
    pub(crate) fn payload_len(&self, index: usize) -> usize {
        let pieces = self.pieces(index);
        (pieces.end - pieces.start) as usize * CV_LEN
    }

    /// Part `index`'s state from `bytes`, its [`Plan::range`].
    pub(crate) fn hash_part(&self, index: usize, bytes: &[u8]) -> PartState {
        let range = self.range(index);
        debug_assert_eq!(bytes.len() as u64, range.end - range.start);
        let mut payload = Vec::with_capacity(self.payload_len(index));
        for (i, piece) in bytes.chunks(PIECE).enumerate() {
            let offset = range.start + (i * PIECE) as u64;
            payload.extend_from_slice(piece_chaining_value(offset, piece).as_ref());
        }
        PartState::new(self.key(), index as u32, payload)
    }

    /// Part `index`'s state, reading its range a piece at a time through `read(offset, buf)`.
    pub(crate) fn hash_part_from(
        &self,
        index: usize,
        read: impl FnMut(u64, &mut [u8]) -> io::Result<()>,
    ) -> io::Result<PartState> {
        let mut payload = Vec::with_capacity(self.payload_len(index));
        read_in_pieces(self.range(index), PIECE, read, |offset, piece| {
            payload.extend_from_slice(piece_chaining_value(offset, piece).as_ref());
        })?;
        Ok(PartState::new(self.key(), index as u32, payload))
    }

    /// The digest of `digest_size` bytes from the states of all the parts, in any order,
    /// reading [`Plan::combine_range`] through `read` where it is not empty.
    ///
    /// # Errors
    /// Those of `sized_in_order` about the states (checked before anything is read);
    /// [`PartError::Io`] with the error `read` returns.
    pub(crate) fn combine_from<'a>(
        &self,
        states: impl IntoIterator<Item = &'a PartState>,
        mut read: impl FnMut(u64, &mut [u8]) -> io::Result<()>,
        digest_size: usize,
    ) -> Result<Vec<u8>, PartError> {
        let ordered = sized_in_order(self.key(), states, |index| self.payload_len(index))?;
        let mut out = vec![0; digest_size];
        let whole = self.combine_range();
        if Plan::pieces_of(self.message_len) == 0 {
            let mut message = vec![0; (whole.end - whole.start) as usize];
            if !message.is_empty() {
                read(whole.start, &mut message)?;
            }
            ::blake3::Hasher::new()
                .update(&message)
                .finalize_xof()
                .fill(&mut out);
            return Ok(out);
        }
        let cvs: Vec<ChainingValue> = ordered
            .iter()
            .flat_map(|state| state.payload().chunks_exact(CV_LEN))
            .map(|cv| cv.try_into().expect("32 bytes"))
            .collect();
        output_from_pieces(&cvs).fill(&mut out);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_tile_the_message_in_whole_pieces() {
        let piece = PIECE as u64;
        for len in [0, 1, piece, piece + 1, 5 * piece - 3, 9 * piece] {
            for wanted in [1, 2, 3, 4, 100] {
                let plan = Plan::new(len, wanted);
                assert!(plan.parts() >= 1 && plan.parts() <= wanted);
                let mut at = 0;
                for index in 0..plan.parts() {
                    let range = plan.range(index);
                    assert_eq!(range.start, at, "{len} in {wanted}: part {index}");
                    assert!(range.start % piece == 0);
                    at = range.end;
                }
                assert_eq!(
                    at + plan.combine_range().end,
                    len.max(at),
                    "{len} in {wanted}"
                );
            }
        }
    }
}
