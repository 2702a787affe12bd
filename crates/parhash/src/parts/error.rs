//! The one error type of the parts API.

use std::{fmt, io};

use super::key::{PlanKey, FORMAT_VERSION};
use crate::Algorithm;

/// Why a plan cannot be made, a part cannot be hashed, or states cannot be read or combined.
#[derive(Debug)]
#[non_exhaustive]
pub enum PartError {
    /// The algorithm is not hashed as a tree that splits ([`super::Plan::splits`]).
    NotSplittable(Algorithm),
    /// A plan of zero parts was asked for.
    NoParts,
    /// The plan's parameters are not valid for its algorithm (tree parameters for an algorithm
    /// that has none, invalid PARSHA-256 parameters, a message over 2^64 - 1 bits): the
    /// registry's error, also given as [`std::error::Error::source`].
    InvalidPlan(crate::Error),
    /// A part index at or past the plan's number of parts.
    NoSuchPart {
        /// The index asked for.
        index: usize,
        /// The plan's number of parts.
        parts: usize,
    },
    /// A message given in memory is not as long as the plan's.
    LengthMismatch {
        /// The plan's message length.
        expected: u64,
        /// The length of the bytes given.
        found: u64,
    },
    /// The bytes are not an intact partial state.
    Corrupt(String),
    /// The state was written in another format version.
    UnsupportedVersion(u8),
    /// A part of another plan (algorithm, parameters, message length or part count).
    Foreign {
        /// The plan being combined.
        expected: PlanKey,
        /// The plan the part says it belongs to.
        found: PlanKey,
    },
    /// A part given twice.
    Duplicate(u32),
    /// Parts not given (their indices, at most the first 10).
    Missing(Vec<u32>),
    /// The part's payload does not have the shape the plan expects.
    BadPayload {
        /// The part's index.
        index: u32,
        /// What is wrong.
        why: String,
    },
    /// A part read another version of the message than another part, or than the combine
    /// step reads ([`super::Plan::combine_from_version`]): their
    /// [`super::PartState::identity`] differs (the file changed between them), so the
    /// combination would be the digest of neither version.
    MixedVersions {
        /// The part that disagrees.
        part: u32,
        /// The part it disagrees with, or `None`: with the version the combine step reads.
        other: Option<u32>,
    },
    /// Reading the message failed: the reader's own error, also given as
    /// [`std::error::Error::source`].
    Io(io::Error),
}

impl From<io::Error> for PartError {
    fn from(e: io::Error) -> PartError {
        PartError::Io(e)
    }
}

impl From<crate::Error> for PartError {
    fn from(e: crate::Error) -> PartError {
        PartError::InvalidPlan(e)
    }
}

/// Equal variants with equal fields; two [`PartError::Io`] are equal when their kinds and
/// messages are (`io::Error` itself has no equality), which is what tests compare.
impl PartialEq for PartError {
    fn eq(&self, other: &PartError) -> bool {
        use PartError as E;
        match (self, other) {
            (E::NotSplittable(a), E::NotSplittable(b)) => a == b,
            (E::NoParts, E::NoParts) => true,
            (E::InvalidPlan(a), E::InvalidPlan(b)) => a == b,
            (E::NoSuchPart { index, parts }, E::NoSuchPart { index: i, parts: p }) => {
                (index, parts) == (i, p)
            }
            (
                E::LengthMismatch { expected, found },
                E::LengthMismatch {
                    expected: e,
                    found: f,
                },
            ) => (expected, found) == (e, f),
            (E::Corrupt(a), E::Corrupt(b)) => a == b,
            (E::UnsupportedVersion(a), E::UnsupportedVersion(b)) => a == b,
            (
                E::Foreign { expected, found },
                E::Foreign {
                    expected: e,
                    found: f,
                },
            ) => (expected, found) == (e, f),
            (E::Duplicate(a), E::Duplicate(b)) => a == b,
            (E::Missing(a), E::Missing(b)) => a == b,
            (E::BadPayload { index, why }, E::BadPayload { index: i, why: w }) => {
                (index, why) == (i, w)
            }
            (E::MixedVersions { part, other }, E::MixedVersions { part: p, other: o }) => {
                (part, other) == (p, o)
            }
            (E::Io(a), E::Io(b)) => a.kind() == b.kind() && a.to_string() == b.to_string(),
            _ => false,
        }
    }
}

impl Eq for PartError {}

impl fmt::Display for PartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PartError::NotSplittable(algorithm) => {
                write!(f, "{algorithm} has no tree mode to split into parts")
            }
            PartError::NoParts => f.write_str("a plan needs at least one part"),
            PartError::InvalidPlan(e) => write!(f, "invalid plan: {e}"),
            PartError::NoSuchPart { index, parts } => {
                write!(f, "part {index} of a plan of {parts} parts")
            }
            PartError::LengthMismatch { expected, found } => write!(
                f,
                "the message is {found} bytes; this plan is for {expected}"
            ),
            PartError::Corrupt(why) => write!(f, "corrupt partial state: {why}"),
            PartError::UnsupportedVersion(v) => write!(
                f,
                "partial state of format version {v}; this build reads versions 1 to {FORMAT_VERSION}"
            ),
            PartError::Foreign { expected, found } => {
                write!(f, "part of another plan: expected {expected}, got {found}")
            }
            PartError::Duplicate(i) => write!(f, "part {i} given twice"),
            PartError::Missing(parts) => {
                let list: Vec<String> = parts.iter().map(u32::to_string).collect();
                write!(f, "missing parts: {}", list.join(", "))
            }
            PartError::BadPayload { index, why } => {
                write!(f, "part {index} has a malformed payload: {why}")
            }
            PartError::MixedVersions {
                part,
                other: Some(other),
            } => write!(
                f,
                "parts {other} and {part} read different versions of the message (it changed \
                 between them)"
            ),
            PartError::MixedVersions { part, other: None } => write!(
                f,
                "part {part} read another version of the message than the one the combine step \
                 reads (it changed since)"
            ),
            PartError::Io(e) => write!(f, "reading the message: {e}"),
        }
    }
}

impl std::error::Error for PartError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PartError::InvalidPlan(e) => Some(e),
            PartError::Io(e) => Some(e),
            _ => None,
        }
    }
}
