//! coreutils' legacy checksums: POSIX `cksum` (CRC-32/CKSUM over the message, then its
//! length), `sum -s` (System V) and `sum -r` (BSD), and `cksum -a crc32b` (coreutils 9.6:
//! zlib's CRC-32 printed as `cksum` prints its CRC). Checksums, not cryptographic hashes (see
//! `checksum`), kept for comparing with what those tools print.
//!
//! What they print is the checksum *and* the input's size (`930766865 9 FILE`; `sum` counts
//! 512- or 1024-byte blocks), so the digest holds both: the checksum as a big-endian integer
//! (4 bytes for `crc` and `crc32b`, 2 for the sums: what `cksum --raw` writes) followed by the
//! byte count as a 64-bit big-endian integer. One digest then says everything a front end prints
//! (`parhash_format`'s lines), through every engine, with no second channel for the length.
//!
//! The CRC is `crc-fast`'s CRC-32/CKSUM (the crate the other CRCs use: carry-less
//! multiplication chosen at run time, well past a table's speed); the length is fed to it
//! last, as POSIX specifies. The two sums are plain loops: the SysV sum is an addition the
//! compiler vectorises, the BSD sum a rotate-and-add chain that no SIMD or split can speed
//! up, and neither is worth more for tools nobody uses on large data any more.
#![forbid(unsafe_code)]

use crc_fast::{CrcAlgorithm, Digest};
use digest::consts::{U10, U12};

use super::checksum::{checksum_type, Stream};
use crate::dispatch::backends;

/// Bytes of a legacy digest after the checksum: the input's length, 64-bit big-endian.
pub const LENGTH_BYTES: usize = 8;

/// The checksum followed by the length, as the one integer a checksum type's digest is the
/// big-endian bytes of.
fn with_length(checksum: u32, len: u64) -> u128 {
    (u128::from(checksum) << 64) | u128::from(len)
}

/// POSIX `cksum`'s state: the CRC so far and the bytes counted.
#[derive(Clone, Debug)]
struct CksumState {
    crc: Digest,
    len: u64,
}

impl Default for CksumState {
    fn default() -> Self {
        CksumState {
            crc: Digest::new(CrcAlgorithm::Crc32Cksum),
            len: 0,
        }
    }
}

impl Stream for CksumState {
    fn update(&mut self, data: &[u8]) {
        self.crc.update(data);
        self.len += data.len() as u64;
    }

    fn reset(&mut self) {
        *self = CksumState::default();
    }

    /// The CRC of the message followed by its length in the fewest bytes that hold it, least
    /// significant first (none for an empty message), as POSIX defines `cksum`.
    fn value(&self) -> u128 {
        let mut crc = self.crc;
        let len_bytes = self.len.to_le_bytes();
        let used = LENGTH_BYTES - (self.len.leading_zeros() / 8) as usize;
        crc.update(&len_bytes[..used]);
        // A CRC-32: the cast drops only zero bits.
        with_length(crc.finalize() as u32, self.len)
    }
}

/// `cksum -a crc32b`'s state: CRC-32/ISO-HDLC of the message alone (the length is printed,
/// not checksummed) and the bytes counted.
#[derive(Clone, Default)]
struct Crc32bState {
    crc: crc32fast::Hasher,
    len: u64,
}

impl Stream for Crc32bState {
    fn update(&mut self, data: &[u8]) {
        self.crc.update(data);
        self.len += data.len() as u64;
    }

    fn reset(&mut self) {
        *self = Crc32bState::default();
    }

    fn value(&self) -> u128 {
        with_length(self.crc.clone().finalize(), self.len)
    }
}

/// The System V sum's state (`sum -s`): every byte added, modulo 2^32.
#[derive(Clone, Debug, Default)]
struct SysvState {
    sum: u32,
    len: u64,
}

impl Stream for SysvState {
    fn update(&mut self, data: &[u8]) {
        self.sum = data
            .iter()
            .fold(self.sum, |sum, &b| sum.wrapping_add(u32::from(b)));
        self.len += data.len() as u64;
    }

    fn reset(&mut self) {
        *self = SysvState::default();
    }

    /// The 32-bit sum folded to 16 bits twice, as SysV `sum` folds it.
    fn value(&self) -> u128 {
        let r = (self.sum & 0xffff) + (self.sum >> 16);
        let folded = (r & 0xffff) + (r >> 16);
        with_length(folded, self.len)
    }
}

/// The BSD sum's state (`sum -r`): a 16-bit sum rotated right by one bit before each byte.
#[derive(Clone, Debug, Default)]
struct BsdState {
    sum: u16,
    len: u64,
}

impl Stream for BsdState {
    fn update(&mut self, data: &[u8]) {
        self.sum = data.iter().fold(self.sum, |sum, &b| {
            sum.rotate_right(1).wrapping_add(u16::from(b))
        });
        self.len += data.len() as u64;
    }

    fn reset(&mut self) {
        *self = BsdState::default();
    }

    fn value(&self) -> u128 {
        with_length(u32::from(self.sum), self.len)
    }
}

backends! {
    /// Which code computes POSIX `cksum`'s CRC.
    pub(crate) enum CksumBackend {
        CrcFast => "crc-fast": "crc-fast crate's CRC-32/CKSUM: carry-less multiplication, chosen at run time";
    }
    default = ["crc-fast"];
}

backends! {
    /// Which crate computes `cksum -a crc32b`'s CRC.
    pub(crate) enum Crc32bBackend {
        Crc32fast => "crc32fast": "crc32fast crate: PCLMULQDQ folding, chosen at run time";
    }
    default = ["crc32fast"];
}

backends! {
    /// Which code computes the System V and BSD sums (one portable form for each).
    pub(crate) enum SumBackend {
        Portable => "portable": "portable Rust";
    }
    default = ["portable"];
}

checksum_type! {
    /// POSIX `cksum` (coreutils `cksum -a crc`): CRC-32/CKSUM of the message and its length; a
    /// 12-byte digest, the CRC then the byte count.
    Cksum: U12, CksumBackend, CksumBackendState {
        CrcFast: CksumState = CksumState::default();
    }
}

checksum_type! {
    /// coreutils 9.6 `cksum -a crc32b`: CRC-32/ISO-HDLC (zlib's `crc32`) of the message, its
    /// length beside it (not in the CRC, unlike `crc`); a 12-byte digest, the CRC then the
    /// byte count.
    Crc32b: U12, Crc32bBackend, Crc32bBackendState {
        Crc32fast: Crc32bState = Crc32bState::default();
    }
}

checksum_type! {
    /// System V `sum -s` (coreutils `cksum -a sysv`); a 10-byte digest, the 16-bit sum then
    /// the byte count.
    SysvSum: U10, SumBackend, SysvSumState {
        Portable: SysvState = SysvState::default();
    }
}

checksum_type! {
    /// BSD `sum -r` (coreutils `cksum -a bsd`, `sum`'s default); a 10-byte digest, the 16-bit
    /// sum then the byte count.
    BsdSum: U10, SumBackend, BsdSumState {
        Portable: BsdState = BsdState::default();
    }
}
