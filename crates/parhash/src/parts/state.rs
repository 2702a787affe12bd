//! Partial states of the tree modes, as bytes that can travel between machines.
//!
//! What one part of a [`Plan`](super::Plan) yields is a [`PartState`]: the family's
//! payload wrapped in an envelope that says which algorithm and parameters, which message
//! length, how many parts and which one it is, so that a combine step can refuse anything that
//! does not belong (a part of another plan, a missing or duplicated part), and a checksum, so
//! that a state damaged on its way is refused rather than turned into a wrong digest.
//!
//! Wire format, version 1 (all integers little-endian):
//!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `PHPS` |
//! | 1 | format version (1) |
//! | 1 | tree mode ([`TreeMode`]) |
//! | 8 | the mode's parameters (two `u32`: PARSHA-256 T and l; SANDstorm digest bits and boundary rule; BLAKE3 piece bytes and 0) |
//! | 8 | message length in bytes |
//! | 4 | number of parts in the plan |
//! | 4 | this part's index |
//! | 4 | payload length n |
//! | n | payload (the mode's partial result) |
//! | 8 | checksum: the first 8 bytes of SHA-256 over everything before it |

#![forbid(unsafe_code)]

use std::fmt;

use digest::Digest;

use super::error::PartError;
use super::key::{PlanKey, TreeMode, FORMAT_VERSION};

const MAGIC: &[u8; 4] = b"PHPS";
const HEADER_LEN: usize = 4 + 1 + 1 + 8 + 8 + 4 + 4 + 4;
const CHECKSUM_LEN: usize = 8;

/// One part's partial result, ready to be sent elsewhere ([`PartState::to_bytes`]) and combined.
#[derive(Clone, PartialEq, Eq)]
pub struct PartState {
    key: PlanKey,
    index: u32,
    payload: Vec<u8>,
}

impl fmt::Debug for PartState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PartState({}, part {}, {} payload bytes)",
            self.key,
            self.index,
            self.payload.len()
        )
    }
}

impl PartState {
    /// A state of part `index` of the plan `key` (for the tree modes' `parts` modules).
    pub(crate) fn new(key: PlanKey, index: u32, payload: Vec<u8>) -> PartState {
        debug_assert!(index < key.parts);
        PartState {
            key,
            index,
            payload,
        }
    }

    /// The plan this part belongs to.
    pub fn key(&self) -> PlanKey {
        self.key
    }

    /// This part's place in its plan, `0..parts`.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The mode's partial result.
    pub(crate) fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// The state in the wire format (see the module docs).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.payload.len() + CHECKSUM_LEN);
        out.extend_from_slice(MAGIC);
        out.push(FORMAT_VERSION);
        out.push(self.key.mode.code());
        out.extend_from_slice(&self.key.params[0].to_le_bytes());
        out.extend_from_slice(&self.key.params[1].to_le_bytes());
        out.extend_from_slice(&self.key.message_len.to_le_bytes());
        out.extend_from_slice(&self.key.parts.to_le_bytes());
        out.extend_from_slice(&self.index.to_le_bytes());
        let payload_len =
            u32::try_from(self.payload.len()).expect("a part's payload is under 4 GiB");
        out.extend_from_slice(&payload_len.to_le_bytes());
        out.extend_from_slice(&self.payload);
        let sum = checksum(&out);
        out.extend_from_slice(&sum);
        out
    }

    /// Reads a state written by [`PartState::to_bytes`].
    ///
    /// # Errors
    /// [`PartError::Corrupt`] for anything that is not a whole, intact state of this format
    /// (wrong magic, truncated, trailing bytes, checksum mismatch, unknown mode, index out of
    /// range); [`PartError::UnsupportedVersion`] for another format version.
    pub fn from_bytes(bytes: &[u8]) -> Result<PartState, PartError> {
        let corrupt = |why: &str| Err(PartError::Corrupt(why.to_string()));
        if bytes.len() < HEADER_LEN + CHECKSUM_LEN {
            return corrupt("too short to be a partial state");
        }
        if &bytes[..4] != MAGIC {
            return corrupt("not a parhash partial state (bad magic)");
        }
        if bytes[4] != FORMAT_VERSION {
            return Err(PartError::UnsupportedVersion(bytes[4]));
        }
        let (body, sum) = bytes.split_at(bytes.len() - CHECKSUM_LEN);
        if checksum(body) != sum {
            return corrupt("checksum mismatch (damaged in transit?)");
        }
        let u32_at = |at: usize| u32::from_le_bytes(body[at..at + 4].try_into().expect("4 bytes"));
        let Some(mode) = TreeMode::from_code(body[5]) else {
            return corrupt("unknown tree mode");
        };
        let key = PlanKey {
            mode,
            params: [u32_at(6), u32_at(10)],
            message_len: u64::from_le_bytes(body[14..22].try_into().expect("8 bytes")),
            parts: u32_at(22),
        };
        let index = u32_at(26);
        let payload_len = u32_at(30) as usize;
        if body.len() != HEADER_LEN + payload_len {
            return corrupt("payload length does not match the state's size");
        }
        if index >= key.parts {
            return corrupt("part index out of range");
        }
        Ok(PartState {
            key,
            index,
            payload: body[HEADER_LEN..].to_vec(),
        })
    }
}

fn checksum(bytes: &[u8]) -> [u8; CHECKSUM_LEN] {
    let full = crate::algo::sha2::Sha256::digest(bytes);
    full[..CHECKSUM_LEN].try_into().expect("8 bytes")
}

/// The parts of plan `key` in index order, or why they are not exactly its parts: each part
/// must belong to `key` and appear once, and none may be missing.
pub(crate) fn in_order<'a>(
    key: PlanKey,
    states: impl IntoIterator<Item = &'a PartState>,
) -> Result<Vec<&'a PartState>, PartError> {
    let mut slots: Vec<Option<&PartState>> = vec![None; key.parts as usize];
    for state in states {
        if state.key != key {
            return Err(PartError::Foreign {
                expected: key,
                found: state.key,
            });
        }
        let slot = &mut slots[state.index as usize];
        if slot.is_some() {
            return Err(PartError::Duplicate(state.index));
        }
        *slot = Some(state);
    }
    let missing: Vec<u32> = (0..key.parts)
        .filter(|&i| slots[i as usize].is_none())
        .take(10)
        .collect();
    if !missing.is_empty() {
        return Err(PartError::Missing(missing));
    }
    Ok(slots.into_iter().map(|s| s.expect("checked")).collect())
}

/// [`in_order`], and each part's payload of the size `payload_len(index)` says, or
/// [`PartError::BadPayload`]: what every family's combine step needs before it reads them.
pub(crate) fn sized_in_order<'a>(
    key: PlanKey,
    states: impl IntoIterator<Item = &'a PartState>,
    payload_len: impl Fn(usize) -> usize,
) -> Result<Vec<&'a PartState>, PartError> {
    let parts = in_order(key, states)?;
    for (index, part) in parts.iter().enumerate() {
        let (got, expected) = (part.payload().len(), payload_len(index));
        if got != expected {
            return Err(PartError::BadPayload {
                index: index as u32,
                why: format!("{got} bytes; this plan's part {index} has {expected}"),
            });
        }
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(parts: u32) -> PlanKey {
        PlanKey {
            mode: TreeMode::Parsha256,
            params: [13, 256],
            message_len: 1 << 20,
            parts,
        }
    }

    #[test]
    fn round_trip_and_every_kind_of_damage_is_refused() {
        let state = PartState::new(key(4), 2, (0..100u8).collect());
        let bytes = state.to_bytes();
        assert_eq!(PartState::from_bytes(&bytes), Ok(state.clone()));
        // Every single flipped bit is caught (the magic, version, header, payload, checksum).
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x10;
            assert!(PartState::from_bytes(&bad).is_err(), "flip at byte {i}");
        }
        for cut in 0..bytes.len() {
            assert!(
                PartState::from_bytes(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(PartState::from_bytes(&longer).is_err());
        let mut v2 = bytes.clone();
        v2[4] = 2;
        assert_eq!(
            PartState::from_bytes(&v2),
            Err(PartError::UnsupportedVersion(2))
        );
    }

    #[test]
    fn in_order_refuses_foreign_duplicate_and_missing_parts() {
        let parts: Vec<PartState> = (0..4).map(|i| PartState::new(key(4), i, vec![])).collect();
        let shuffled = [&parts[2], &parts[0], &parts[3], &parts[1]];
        let ordered = in_order(key(4), shuffled).unwrap();
        assert!(ordered
            .iter()
            .enumerate()
            .all(|(i, p)| p.index() == i as u32));
        assert_eq!(
            in_order(key(4), [&parts[0], &parts[1], &parts[1], &parts[3]]),
            Err(PartError::Duplicate(1))
        );
        assert_eq!(
            in_order(key(4), [&parts[0], &parts[3]]),
            Err(PartError::Missing(vec![1, 2]))
        );
        let other = PartState::new(key(5), 1, vec![]);
        assert!(matches!(
            in_order(key(4), [&parts[0], &other]),
            Err(PartError::Foreign { .. })
        ));
    }
}
