//! BLAKE3's subtrees for callers: the chaining value of a run of bytes at its offset in the
//! message, and the merges that combine such values into the whole message's digest, so that
//! parts of one file hashed apart (on other machines, at other times) give its BLAKE3 hash.
//! The `blake3` crate's `hazmat` module is the model and does the work; here a subtree that
//! is not one of the tree's is an error, not a panic.
//!
//! A subtree is valid where BLAKE3's tree has one: it starts at a multiple of [`CHUNK_LEN`]
//! and holds at most as many bytes as the largest power-of-two number of chunks that divides
//! its offset ([`max_subtree_len`]; any length at offset 0). Two subtrees merge where they
//! are siblings: the left one holds a power of two of chunks, the right one at most as many
//! and starts where the left one ends. The message's top node is [`root`] (a message of one
//! chunk or less has no subtrees: its digest is the plain hash).
//!
//! ```
//! use parhash::blake3::{merge, root, subtree};
//!
//! let data = vec![7u8; 12 * 1024];
//! // 12 chunks: a left subtree of 8, a right one of 4.
//! let left = subtree(0, &data[..8192])?;
//! let right = subtree(8192, &data[8192..])?;
//! assert_eq!(root(&left, &right), *blake3::hash(&data).as_bytes());
//! // The right one again, from its own two halves.
//! let again = merge(&subtree(8192, &data[8192..10240])?, &subtree(10240, &data[10240..])?);
//! assert_eq!(again, right);
//! # Ok::<(), parhash::blake3::SubtreeError>(())
//! ```

use std::fmt;

use ::blake3::hazmat::{self, HasherExt, Mode};

pub use ::blake3::hazmat::ChainingValue;

/// Bytes of one BLAKE3 chunk: subtrees start at multiples of it.
pub const CHUNK_LEN: u64 = 1024;

/// Why bytes at an offset are not a subtree of BLAKE3's tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubtreeError {
    /// The offset is not a multiple of [`CHUNK_LEN`].
    Unaligned {
        /// The offset given.
        offset: u64,
    },
    /// No bytes: a subtree holds at least one.
    Empty,
    /// More bytes than the largest subtree at this offset holds ([`max_subtree_len`]).
    TooLong {
        /// The offset given.
        offset: u64,
        /// The bytes given.
        len: u64,
        /// The most a subtree at `offset` holds.
        max: u64,
    },
}

impl fmt::Display for SubtreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SubtreeError::Unaligned { offset } => write!(
                f,
                "a BLAKE3 subtree starts at a multiple of {CHUNK_LEN} bytes, not at {offset}"
            ),
            SubtreeError::Empty => f.write_str("a BLAKE3 subtree holds at least one byte"),
            SubtreeError::TooLong { offset, len, max } => write!(
                f,
                "a BLAKE3 subtree at offset {offset} holds at most {max} bytes, not {len}"
            ),
        }
    }
}

impl std::error::Error for SubtreeError {}

/// The most bytes a subtree starting at `offset` holds: the largest power-of-two number of
/// chunks that divides it; `None` at offset 0, where any length is one subtree.
///
/// # Errors
/// [`SubtreeError::Unaligned`] for an offset that is not a multiple of [`CHUNK_LEN`].
pub fn max_subtree_len(offset: u64) -> Result<Option<u64>, SubtreeError> {
    if offset % CHUNK_LEN != 0 {
        return Err(SubtreeError::Unaligned { offset });
    }
    Ok(hazmat::max_subtree_len(offset))
}

/// The chaining value of the subtree of `bytes` starting at byte `offset` of the message (not
/// the whole message's digest: see [`root`]). Hashed with the `blake3` crate's SIMD kernels
/// and, for large subtrees, its threads where it has them.
///
/// # Errors
/// [`SubtreeError`] where `bytes` at `offset` is not a subtree of BLAKE3's tree.
pub fn subtree(offset: u64, bytes: &[u8]) -> Result<ChainingValue, SubtreeError> {
    if bytes.is_empty() {
        return Err(SubtreeError::Empty);
    }
    let len = bytes.len() as u64;
    if let Some(max) = max_subtree_len(offset)?.filter(|&max| len > max) {
        return Err(SubtreeError::TooLong { offset, len, max });
    }
    let mut hasher = ::blake3::Hasher::new();
    hasher.set_input_offset(offset);
    hasher.update(bytes);
    Ok(hasher.finalize_non_root())
}

/// The chaining value of the parent of two sibling subtrees (not the root: see [`root`]).
pub fn merge(left: &ChainingValue, right: &ChainingValue) -> ChainingValue {
    hazmat::merge_subtrees_non_root(left, right, Mode::Hash)
}

/// The message's BLAKE3 digest from the chaining values of its top node's two children: the
/// left subtree of [`left_subtree_len`] bytes and the right one of the rest.
pub fn root(left: &ChainingValue, right: &ChainingValue) -> [u8; 32] {
    *hazmat::merge_subtrees_root(left, right, Mode::Hash).as_bytes()
}

/// Bytes of the left child of a node over `len` bytes (more than one chunk): the largest
/// power-of-two number of chunks below `len`, BLAKE3's rule. `None` for `len` of one chunk
/// or less (a leaf: no children).
pub fn left_subtree_len(len: u64) -> Option<u64> {
    (len > CHUNK_LEN).then(|| hazmat::left_subtree_len(len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 % 251) as u8).collect()
    }

    /// The chaining value of the node over `bytes` at `offset`, split further down at random
    /// (a leaf is hashed whole with [`subtree`]).
    fn node(offset: u64, bytes: &[u8], rng: &mut u64) -> ChainingValue {
        *rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let Some(left) = left_subtree_len(bytes.len() as u64).filter(|_| *rng >> 62 != 0) else {
            return subtree(offset, bytes).unwrap();
        };
        let (l, r) = bytes.split_at(left as usize);
        merge(&node(offset, l, rng), &node(offset + left, r, rng))
    }

    /// Random splits at the tree's boundaries combine into the digest, for lengths around
    /// chunk and power-of-two edges.
    #[test]
    fn random_splits_give_the_whole_digest() {
        let all = data(1 << 20 | 3000);
        let mut rng = 1;
        for len in [
            1025,
            2048,
            2049,
            3072,
            5000,
            65536,
            65537,
            300_000,
            all.len(),
        ] {
            let bytes = &all[..len];
            for _ in 0..8 {
                let left = left_subtree_len(len as u64).unwrap() as usize;
                let (l, r) = bytes.split_at(left);
                let digest = root(&node(0, l, &mut rng), &node(left as u64, r, &mut rng));
                assert_eq!(digest, *::blake3::hash(bytes).as_bytes(), "{len}");
            }
        }
    }

    #[test]
    fn subtrees_not_in_the_tree_are_errors() {
        let bytes = data(8192);
        assert_eq!(subtree(0, &[]), Err(SubtreeError::Empty));
        assert_eq!(
            subtree(100, &bytes[..10]),
            Err(SubtreeError::Unaligned { offset: 100 })
        );
        // Offset 2 KiB: at most 2 chunks.
        assert_eq!(
            subtree(2048, &bytes[..2049]),
            Err(SubtreeError::TooLong {
                offset: 2048,
                len: 2049,
                max: 2048
            })
        );
        assert!(subtree(2048, &bytes[..2048]).is_ok());
        assert!(subtree(0, &bytes).is_ok());
        let text = subtree(2048, &bytes).unwrap_err().to_string();
        assert!(text.contains("at most 2048 bytes"), "{text}");
        assert_eq!(left_subtree_len(1024), None);
        assert_eq!(left_subtree_len(1025), Some(1024));
        assert_eq!(max_subtree_len(0), Ok(None));
        assert_eq!(max_subtree_len(3072), Ok(Some(1024)));
    }
}
