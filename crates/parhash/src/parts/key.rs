//! What identifies a plan, and the format version of its states: what a state's envelope
//! ([`super::state`]) and the errors about it ([`super::error`]) both name, so it sits below
//! them.

use std::fmt;

/// The format version written by this build for a state that records the identity of the
/// message's version (one without is written as version 1, as builds before identities wrote
/// it); [`PartState::from_bytes`](super::PartState::from_bytes) accepts both.
pub const FORMAT_VERSION: u8 = 2;

/// Which tree mode (or, for a CRC, which split) a partial state belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TreeMode {
    /// PARSHA-256 (parameters: tree height T, IV bits l).
    Parsha256,
    /// SANDstorm (parameters: digest bits, boundary rule 0 = design, 1 = reference code).
    Sandstorm,
    /// BLAKE3 (parameters: bytes per piece, 0).
    Blake3,
    /// A CRC over contiguous parts (parameters: 1 CRC-32, 2 CRC-32C or 3 CRC-64/NVME, and 0).
    Crc,
}

impl TreeMode {
    pub(super) fn code(self) -> u8 {
        match self {
            TreeMode::Parsha256 => 1,
            TreeMode::Sandstorm => 2,
            TreeMode::Blake3 => 3,
            TreeMode::Crc => 4,
        }
    }

    pub(super) fn from_code(code: u8) -> Option<TreeMode> {
        match code {
            1 => Some(TreeMode::Parsha256),
            2 => Some(TreeMode::Sandstorm),
            3 => Some(TreeMode::Blake3),
            4 => Some(TreeMode::Crc),
            _ => None,
        }
    }
}

impl fmt::Display for TreeMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TreeMode::Parsha256 => "PARSHA-256",
            TreeMode::Sandstorm => "SANDstorm",
            TreeMode::Blake3 => "BLAKE3",
            TreeMode::Crc => "CRC",
        })
    }
}

/// What identifies a plan: a part belongs to a plan only if all of these match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PlanKey {
    /// The tree mode.
    pub mode: TreeMode,
    /// The mode's two parameters (see [`TreeMode`]).
    pub params: [u32; 2],
    /// The message length in bytes.
    pub message_len: u64,
    /// The number of parts in the plan.
    pub parts: u32,
}

impl fmt::Display for PlanKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}, {}), {} bytes, {} parts",
            self.mode, self.params[0], self.params[1], self.message_len, self.parts
        )
    }
}
