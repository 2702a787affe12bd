//! A CRC's parts: contiguous ranges of the message, each part's state the CRC of its range;
//! the combine step joins them in order, exactly (`crc_fast::checksum_combine`: the CRC of
//! `A || B` from the CRCs of `A` and `B` and the length of `B`), into the message's CRC. No
//! part reads another's bytes and the combine step reads none, so any number of threads or
//! machines may hash the parts.
//!
//! The family's geometry and its states; `crate::parts` dispatches to it.

use std::io;
use std::ops::Range;

use crc_fast::{checksum_combine, CrcAlgorithm};

use super::{Crc32, Crc32c, Crc64Nvme};
use crate::parts::error::PartError;
use crate::parts::key::{PlanKey, TreeMode};
use crate::parts::pieces::read_in_pieces;
use crate::parts::state::{sized_in_order, PartState};
use crate::Algorithm;

/// Bytes of a part's state: its CRC as a big-endian `u64`, whatever the CRC's width.
const STATE_LEN: usize = 8;

/// Bytes read at a time by [`Plan::hash_part_from`].
const READ_BYTES: usize = 4 << 20;

/// Which CRC a plan computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Crc32,
    Crc32c,
    Crc64Nvme,
}

impl TryFrom<Algorithm> for Kind {
    type Error = ();

    fn try_from(algorithm: Algorithm) -> Result<Kind, ()> {
        match algorithm {
            Algorithm::Crc32 => Ok(Kind::Crc32),
            Algorithm::Crc32c => Ok(Kind::Crc32c),
            Algorithm::Crc64Nvme => Ok(Kind::Crc64Nvme),
            _ => Err(()),
        }
    }
}

impl Kind {
    /// The plan key's first parameter.
    fn code(self) -> u32 {
        match self {
            Kind::Crc32 => 1,
            Kind::Crc32c => 2,
            Kind::Crc64Nvme => 3,
        }
    }

    fn catalogue(self) -> CrcAlgorithm {
        match self {
            Kind::Crc32 => CrcAlgorithm::Crc32IsoHdlc,
            Kind::Crc32c => CrcAlgorithm::Crc32Iscsi,
            Kind::Crc64Nvme => CrcAlgorithm::Crc64Nvme,
        }
    }

    /// The CRC's width in bytes.
    fn width(self) -> usize {
        match self {
            Kind::Crc32 | Kind::Crc32c => 4,
            Kind::Crc64Nvme => 8,
        }
    }
}

/// The library's own streaming CRC (its fastest backend here) over pieces of one range.
enum Running {
    Crc32(Crc32),
    Crc32c(Crc32c),
    Crc64Nvme(Crc64Nvme),
}

impl Running {
    fn new(kind: Kind) -> Running {
        match kind {
            Kind::Crc32 => Running::Crc32(Crc32::default()),
            Kind::Crc32c => Running::Crc32c(Crc32c::default()),
            Kind::Crc64Nvme => Running::Crc64Nvme(Crc64Nvme::default()),
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        match self {
            Running::Crc32(h) => h.0.update(bytes),
            Running::Crc32c(h) => h.0.update(bytes),
            Running::Crc64Nvme(h) => h.0.update(bytes),
        }
    }

    /// The CRC so far as an integer.
    fn value(&self) -> u64 {
        let value = match self {
            Running::Crc32(h) => h.0.value(),
            Running::Crc32c(h) => h.0.value(),
            Running::Crc64Nvme(h) => h.0.value(),
        };
        // At most 64 bits wide: the cast drops only zeros.
        value as u64
    }
}

/// How a CRC message of `message_len` bytes is cut into parts.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    kind: Kind,
    /// The message length in bytes.
    pub(crate) message_len: u64,
    /// The number of parts.
    pub(crate) parts: usize,
}

impl Plan {
    /// The plan in at most `parts` parts (at least 1): at most one part per byte.
    pub(crate) fn new(kind: Kind, message_len: u64, parts: usize) -> Plan {
        let most = message_len.clamp(1, u64::from(u32::MAX)) as usize;
        Plan {
            kind,
            message_len,
            parts: parts.clamp(1, most),
        }
    }

    /// What identifies this plan; every state of it carries this key (with the CRC: parts of
    /// another CRC are another plan's).
    pub(crate) fn key(&self) -> PlanKey {
        PlanKey {
            mode: TreeMode::Crc,
            params: [self.kind.code(), 0],
            message_len: self.message_len,
            parts: self.parts as u32,
        }
    }

    /// The bytes part `index` reads: the message shared as evenly as whole bytes allow.
    pub(crate) fn range(&self, index: usize) -> Range<u64> {
        let (len, parts) = (u128::from(self.message_len), self.parts as u128);
        let at = |i: usize| (i as u128 * len / parts) as u64;
        at(index)..at(index + 1)
    }

    fn state(&self, index: usize, crc: u64) -> PartState {
        PartState::new(self.key(), index as u32, crc.to_be_bytes().to_vec())
    }

    /// Part `index`'s state from `bytes`, its [`Plan::range`].
    pub(crate) fn hash_part(&self, index: usize, bytes: &[u8]) -> PartState {
        let range = self.range(index);
        debug_assert_eq!(bytes.len() as u64, range.end - range.start);
        let mut crc = Running::new(self.kind);
        crc.update(bytes);
        self.state(index, crc.value())
    }

    /// Part `index`'s state, reading its range a few MiB at a time through `read(offset,
    /// buf)`.
    pub(crate) fn hash_part_from(
        &self,
        index: usize,
        read: impl FnMut(u64, &mut [u8]) -> io::Result<()>,
    ) -> io::Result<PartState> {
        let mut crc = Running::new(self.kind);
        read_in_pieces(self.range(index), READ_BYTES, read, |_, piece| {
            crc.update(piece)
        })?;
        Ok(self.state(index, crc.value()))
    }

    /// The message's CRC, big-endian, from the states of all the parts, in any order.
    ///
    /// # Errors
    /// Those of `sized_in_order` about the states.
    pub(crate) fn combine<'a>(
        &self,
        states: impl IntoIterator<Item = &'a PartState>,
    ) -> Result<Vec<u8>, PartError> {
        let ordered = sized_in_order(self.key(), states, |_| STATE_LEN)?;
        let mut crc = 0;
        for (index, state) in ordered.iter().enumerate() {
            let part = u64::from_be_bytes(state.payload().try_into().expect("8 bytes"));
            if self.kind.width() < STATE_LEN && part >> (8 * self.kind.width()) != 0 {
                let why = format!("{part:#x} is wider than the CRC");
                return Err(PartError::BadPayload {
                    index: index as u32,
                    why,
                });
            }
            let range = self.range(index);
            crc = if index == 0 {
                part
            } else {
                checksum_combine(self.kind.catalogue(), crc, part, range.end - range.start)
            };
        }
        Ok(crc.to_be_bytes()[STATE_LEN - self.kind.width()..].to_vec())
    }
}
