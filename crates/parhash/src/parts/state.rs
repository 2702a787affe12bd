//! Partial states of the tree modes, as bytes that can travel between machines.
//!
//! What one part of a [`Plan`](super::Plan) yields is a [`PartState`]: the family's
//! payload wrapped in an envelope that says which algorithm and parameters, which message
//! length, how many parts and which one it is, so that a combine step can refuse anything that
//! does not belong (a part of another plan, a missing or duplicated part), and a checksum, so
//! that a state damaged on its way is refused rather than turned into a wrong digest.
//!
//! A state may also carry the identity of the version of the message its part read
//! ([`PartState::with_identity`]: for a file, its `file::FileVersion`),
//! and the combine step refuses parts that read different versions
//! ([`PartError::MixedVersions`]) rather than combine a mix of two messages.
//!
//! Wire format, version 2 (all integers little-endian); a state without an identity is
//! written as version 1, which ends with the payload, so it reads in builds before identities:
//! //!
//! | bytes | field |
//! |---|---|
//! | 4 | magic `PHPS` |
//! | 1 | format version (1, or 2 with an identity) |
//! | 1 | tree mode ([`TreeMode`]) |
//! | 8 | the mode's parameters (two `u32`: PARSHA-256 T and l; SANDstorm digest bits and boundary rule; BLAKE3 piece bytes and 0) |
//! | 8 | message length in bytes |
//! | 4 | number of parts in the plan |
//! | 4 | this part's index |
//! | 4 | payload length n |
//! | n | payload (the mode's partial result) |
//! | 4 | version 2 only: identity length m |
//! | m | version 2 only: the identity of the message's version |
//! | 8 | checksum: the first 8 bytes of SHA-256 over everything before it |

#![forbid(unsafe_code)]

use std::fmt;

use digest::Digest;

use super::error::PartError;
use super::key::{PlanKey, TreeMode, FORMAT_VERSION};

/// The format version of a state without an identity.
const FORMAT_WITHOUT_IDENTITY: u8 = 1;

const MAGIC: &[u8; 4] = b"PHPS";
const HEADER_LEN: usize = 4 + 1 + 1 + 8 + 8 + 4 + 4 + 4;
const CHECKSUM_LEN: usize = 8;

/// One part's partial result, ready to be sent elsewhere ([`PartState::to_bytes`]) and combined.
#[derive(Clone, PartialEq, Eq)]
pub struct PartState {
    key: PlanKey,
    index: u32,
    payload: Vec<u8>,
    identity: Option<Vec<u8>>,
}

impl fmt::Debug for PartState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "PartState({}, part {}, {} payload bytes{})",
            self.key,
            self.index,
            self.payload.len(),
            if self.identity.is_some() {
                ", with identity"
            } else {
                ""
            }
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
            identity: None,
        }
    }

    /// This state, recording that its part read the version of the message `identity` names
    /// (any bytes equal for equal versions: a file's `file::FileVersion::to_bytes`, an object
    /// store's ETag or generation). Parts whose identities differ do not combine.
    #[must_use]
    pub fn with_identity(mut self, identity: Vec<u8>) -> PartState {
        self.identity = Some(identity);
        self
    }

    /// The identity of the version of the message this part read, if it records one.
    pub fn identity(&self) -> Option<&[u8]> {
        self.identity.as_deref()
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
        let identity_len = self.identity.as_ref().map_or(0, |id| 4 + id.len());
        let mut out =
            Vec::with_capacity(HEADER_LEN + self.payload.len() + identity_len + CHECKSUM_LEN);
        out.extend_from_slice(MAGIC);
        out.push(if self.identity.is_some() {
            FORMAT_VERSION
        } else {
            FORMAT_WITHOUT_IDENTITY
        });
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
        if let Some(identity) = &self.identity {
            let len = u32::try_from(identity.len()).expect("an identity is under 4 GiB");
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(identity);
        }
        let sum = checksum(&out);
        out.extend_from_slice(&sum);
        out
    }

    /// Reads a state written by [`PartState::to_bytes`].
    ///
    /// # Errors
    /// [`PartError::Corrupt`] for anything that is not a whole, intact state of this format
    /// (wrong magic, truncated, trailing bytes, checksum mismatch, unknown mode, index out of
    /// range); [`PartError::UnsupportedVersion`] for a format version other than 1 and 2.
    pub fn from_bytes(bytes: &[u8]) -> Result<PartState, PartError> {
        let corrupt = |why: &str| Err(PartError::Corrupt(why.to_string()));
        if bytes.len() < HEADER_LEN + CHECKSUM_LEN {
            return corrupt("too short to be a partial state");
        }
        if &bytes[..4] != MAGIC {
            return corrupt("not a parhash partial state (bad magic)");
        }
        let version = bytes[4];
        if version != FORMAT_VERSION && version != FORMAT_WITHOUT_IDENTITY {
            return Err(PartError::UnsupportedVersion(version));
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
        let payload_end = HEADER_LEN.saturating_add(payload_len);
        let identity = if version == FORMAT_WITHOUT_IDENTITY {
            None
        } else if body.len() < payload_end.saturating_add(4) {
            return corrupt("payload length does not match the state's size");
        } else {
            let identity_len = u32_at(payload_end) as usize;
            Some(body[payload_end + 4..].to_vec()).filter(|id| id.len() == identity_len)
        };
        let end = identity
            .as_ref()
            .map_or(payload_end, |id| payload_end + 4 + id.len());
        if body.len() != end || (version == FORMAT_VERSION && identity.is_none()) {
            return corrupt("payload length does not match the state's size");
        }
        if index >= key.parts {
            return corrupt("part index out of range");
        }
        Ok(PartState {
            key,
            index,
            payload: body[HEADER_LEN..payload_end].to_vec(),
            identity,
        })
    }
}

fn checksum(bytes: &[u8]) -> [u8; CHECKSUM_LEN] {
    let full = crate::algo::sha2::Sha256::digest(bytes);
    full[..CHECKSUM_LEN].try_into().expect("8 bytes")
}

/// The parts of plan `key` in index order, or why they are not exactly its parts: each part
/// must belong to `key` and appear once, none may be missing, and those that record the
/// identity of the message's version must record the same one.
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
    let parts: Vec<&PartState> = slots.into_iter().map(|s| s.expect("checked")).collect();
    let mut identified = parts.iter().filter(|part| part.identity.is_some());
    if let Some(first) = identified.next() {
        if let Some(other) = identified.find(|part| part.identity != first.identity) {
            return Err(PartError::MixedVersions {
                part: other.index,
                other: Some(first.index),
            });
        }
    }
    Ok(parts)
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

    /// Every single flipped bit is caught (the magic, version, header, payload, identity,
    /// checksum), and every cut, and a byte more.
    fn refused_when_damaged(bytes: &[u8]) {
        for i in 0..bytes.len() {
            let mut bad = bytes.to_vec();
            bad[i] ^= 0x10;
            assert!(PartState::from_bytes(&bad).is_err(), "flip at byte {i}");
        }
        for cut in 0..bytes.len() {
            assert!(
                PartState::from_bytes(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        let mut longer = bytes.to_vec();
        longer.push(0);
        assert!(PartState::from_bytes(&longer).is_err());
    }

    #[test]
    fn round_trip_and_every_kind_of_damage_is_refused() {
        let state = PartState::new(key(4), 2, (0..100u8).collect());
        let bytes = state.to_bytes();
        assert_eq!(PartState::from_bytes(&bytes), Ok(state.clone()));
        refused_when_damaged(&bytes);
        let mut v3 = bytes.clone();
        v3[4] = 3;
        assert_eq!(
            PartState::from_bytes(&v3),
            Err(PartError::UnsupportedVersion(3))
        );
    }

    /// A state with an identity round-trips as version 2 and is refused when damaged, cut or
    /// lengthened; one without is still written as version 1, byte for byte as before.
    #[test]
    fn identities_round_trip_and_damage_is_refused() {
        let plain = PartState::new(key(4), 2, (0..100u8).collect());
        let plain_bytes = plain.to_bytes();
        assert_eq!(plain_bytes[4], 1);
        assert_eq!(plain_bytes.len(), HEADER_LEN + 100 + CHECKSUM_LEN);
        for identity in [vec![], b"etag \"abc\"".to_vec()] {
            let state = plain.clone().with_identity(identity.clone());
            assert_eq!(state.identity(), Some(&identity[..]));
            let bytes = state.to_bytes();
            assert_eq!(bytes[4], FORMAT_VERSION);
            assert_eq!(PartState::from_bytes(&bytes), Ok(state.clone()));
            refused_when_damaged(&bytes);
            // The identity's length field disagreeing with what follows, checksum made right.
            let at = HEADER_LEN + 100;
            for wrong in [
                identity.len() as u32 + 1,
                identity.len().saturating_sub(1) as u32,
            ] {
                let mut bad = bytes[..bytes.len() - CHECKSUM_LEN].to_vec();
                if wrong as usize == identity.len() {
                    continue;
                }
                bad[at..at + 4].copy_from_slice(&wrong.to_le_bytes());
                let sum = checksum(&bad);
                bad.extend_from_slice(&sum);
                assert!(
                    PartState::from_bytes(&bad).is_err(),
                    "identity length {wrong}"
                );
            }
        }
    }

    #[test]
    fn parts_of_different_versions_do_not_combine() {
        let parts = |ids: [Option<&[u8]>; 3]| -> Vec<PartState> {
            ids.iter()
                .enumerate()
                .map(|(i, id)| {
                    let state = PartState::new(key(3), i as u32, vec![]);
                    match id {
                        Some(id) => state.with_identity(id.to_vec()),
                        None => state,
                    }
                })
                .collect()
        };
        let (a, b): (&[u8], &[u8]) = (b"version a", b"version b");
        for same in [
            [None, None, None],
            [Some(a), Some(a), Some(a)],
            [None, Some(a), Some(a)],
        ] {
            assert!(in_order(key(3), &parts(same)).is_ok(), "{same:?}");
        }
        let mixed = parts([Some(a), None, Some(b)]);
        assert_eq!(
            in_order(key(3), mixed.iter().rev()),
            Err(PartError::MixedVersions {
                part: 2,
                other: Some(0)
            })
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
