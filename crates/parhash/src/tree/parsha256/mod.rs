//! PARSHA-256 (Pal & Sarkar, FSE 2003): SHA-256's compression function arranged as a binary tree
//! of processors, so that one long message is hashed by many processors at once.
//!
//! The digest depends on the message, the tree height `T` and the IV length `l` (0, 128 or 256
//! bits), and the function returns the effective height `t <= T` with it: `(t, z)`. It never
//! depends on the thread count or the SIMD width.
//!
//! - [`reference`]: literal to the specification, round by round (the oracle).

pub mod reference;

use std::fmt;

/// The largest tree height accepted. `t = T` only for messages of at least `delta(T)` bits
/// (about 2^T * 96 bytes), so this bound never limits a real message; it keeps every length
/// computation far from overflow.
pub const MAX_TREE_HEIGHT: u32 = 40;

/// Errors of the PARSHA-256 API.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParshaError {
    /// The tree height must be in `1..=MAX_TREE_HEIGHT`.
    InvalidTreeHeight(u32),
    /// The IV length must be 0, 128 or 256 bits.
    InvalidIvBits(u32),
}

impl fmt::Display for ParshaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParshaError::InvalidTreeHeight(t) => write!(
                f,
                "PARSHA-256 tree height {t} is out of range (1..={MAX_TREE_HEIGHT})"
            ),
            ParshaError::InvalidIvBits(l) => {
                write!(
                    f,
                    "PARSHA-256 IV length {l} bits is invalid (0, 128 or 256)"
                )
            }
        }
    }
}

impl std::error::Error for ParshaError {}

/// Checks `(T, l)`.
pub(crate) fn check_params(tree_height: u32, iv_bits: u32) -> Result<(), ParshaError> {
    if !(1..=MAX_TREE_HEIGHT).contains(&tree_height) {
        return Err(ParshaError::InvalidTreeHeight(tree_height));
    }
    if !matches!(iv_bits, 0 | 128 | 256) {
        return Err(ParshaError::InvalidIvBits(iv_bits));
    }
    Ok(())
}
