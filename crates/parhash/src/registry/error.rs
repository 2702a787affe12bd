//! The registry's one error type.

use std::fmt;

use super::Algorithm;
use crate::algo::parsha256::ParshaError;

/// Errors from the registry.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// No algorithm has this name; `suggestion` is the closest valid one, if any is close.
    UnknownAlgorithm {
        /// The name given.
        name: String,
        /// The closest valid name, if any is close.
        suggestion: Option<&'static str>,
    },
    /// The algorithm has no variant of this name, or it is not available on this CPU.
    UnavailableVariant {
        /// The algorithm asked for.
        algorithm: Algorithm,
        /// The variant name given.
        variant: String,
        /// The variants this algorithm has on this machine.
        available: Vec<&'static str>,
    },
    /// The message length given to [`HasherBuilder::expected_len`](crate::HasherBuilder::expected_len) is over what the algorithm
    /// can hash (PARSHA-256: 2^64 - 1 bits).
    MessageTooLong(u64),
    /// Tree parameters (T, l) were given for an algorithm that has none (only PARSHA-256 has).
    NoTreeParams(Algorithm),
    /// A keyed hash or key derivation was asked of an algorithm without those modes (only
    /// BLAKE3 has them: [`HasherBuilder::blake3_mode`](crate::HasherBuilder::blake3_mode)).
    NoKeyedMode(Algorithm),
    /// A PARSHA-256 tree height T outside `1..=`[`parsha256::MAX_TREE_HEIGHT`](crate::parsha256::MAX_TREE_HEIGHT).
    InvalidTreeHeight(u32),
    /// A PARSHA-256 IV length l (bits) other than 0, 128 or 256.
    InvalidIvBits(u32),
    /// A digest size the algorithm cannot produce ([`HasherBuilder::digest_size`](crate::HasherBuilder::digest_size)).
    UnsupportedDigestSize {
        /// The algorithm asked for.
        algorithm: Algorithm,
        /// The size asked for, in bytes.
        size: usize,
    },
    /// An output of any length was asked of an algorithm that is not an extendable-output
    /// function ([`Hasher::finalize_xof_into_reset`](crate::Hasher::finalize_xof_into_reset)).
    NotExtendable(Algorithm),
    /// A hasher told the message length received another number of bytes
    /// ([`HasherBuilder::expected_len`](crate::HasherBuilder::expected_len)).
    LengthMismatch {
        /// The length the hasher was built for.
        declared: u64,
        /// The bytes it received (saturating).
        received: u64,
    },
    /// PARSHA-256 of this length and tree height T would need a tree taller than
    /// [`parsha256::MAX_STREAMED_HEIGHT`](crate::parsha256::MAX_STREAMED_HEIGHT), whose memory
    /// grows with the message.
    TreeTooTall {
        /// The effective height t the message would get.
        height: u32,
        /// About how many bytes of memory that tree needs.
        bytes: u64,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::UnknownAlgorithm { name, suggestion } => {
                write!(f, "unknown algorithm '{name}'")?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean '{s}'?")?;
                }
                write!(f, " ('parhash list' shows them all)")
            }
            Error::UnavailableVariant {
                algorithm,
                variant,
                available,
            } => write!(
                f,
                "{algorithm} has no variant '{variant}' on this machine (available: {})",
                available.join(", ")
            ),
            Error::MessageTooLong(len) => {
                write!(f, "a message of {len} bytes is longer than 2^64 - 1 bits")
            }
            Error::NoTreeParams(algorithm) => write!(
                f,
                "{algorithm} has no tree parameters (only parsha256 takes a tree height and IV length)"
            ),
            Error::NoKeyedMode(algorithm) => write!(
                f,
                "{algorithm} has no keyed hash or key derivation here (only blake3 takes --keyed \
                 or --derive-key)"
            ),
            // The same words as PARSHA-256's own errors.
            Error::InvalidTreeHeight(t) => ParshaError::InvalidTreeHeight(*t).fmt(f),
            Error::InvalidIvBits(l) => ParshaError::InvalidIvBits(*l).fmt(f),
            Error::TreeTooTall { height, bytes } => ParshaError::TreeTooTall {
                height: *height,
                bytes: *bytes,
            }
            .fmt(f),
            Error::UnsupportedDigestSize { algorithm, size } => {
                let sizes = algorithm.digest_sizes();
                if sizes.is_variable() {
                    write!(
                        f,
                        "{algorithm} digests are {} to {} bytes, not {size}",
                        sizes.min, sizes.max
                    )
                } else {
                    write!(f, "{algorithm} digests are always {} bytes, not {size}", sizes.max)
                }
            }
            Error::NotExtendable(algorithm) => write!(
                f,
                "{algorithm} is not an extendable-output function (blake3, shake128 and \
                 shake256 are): its digests have a fixed length"
            ),
            Error::LengthMismatch { declared, received } => write!(
                f,
                "the input changed size while being read: expected {declared} bytes, got {received}"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Every PARSHA-256 error has its registry counterpart.
impl From<ParshaError> for Error {
    fn from(e: ParshaError) -> Error {
        match e {
            ParshaError::InvalidTreeHeight(t) => Error::InvalidTreeHeight(t),
            ParshaError::InvalidIvBits(l) => Error::InvalidIvBits(l),
            ParshaError::MessageTooLong(len) => Error::MessageTooLong(len),
            ParshaError::LengthMismatch { declared, received } => {
                Error::LengthMismatch { declared, received }
            }
            ParshaError::TreeTooTall { height, bytes } => Error::TreeTooTall { height, bytes },
        }
    }
}
