//! CRC-32 (ISO-HDLC: zlib, gzip, PNG, `cksum -a crc32b`), CRC-32C (Castagnoli: iSCSI, ext4,
//! GCS, S3) and CRC-64/NVME (S3's default checksum), each from the crate that is fastest for
//! it on one thread (BENCHMARKS.md, "Checksums"). Checksums, not cryptographic hashes (see
//! `checksum`).
//!
//! Digests are the CRC as a big-endian integer, as `crc32`, `gsutil` and S3 (in base64) show
//! it. The backends:
//! - CRC-32: `crc32fast` (flate2's CRC: PCLMULQDQ folding chosen at run time), about twice
//!   `crc-fast`'s speed on CPUs without AVX-512.
//! - CRC-32C: the `crc32c` crate (the SSE 4.2 `crc32` instruction, chosen at run time), faster
//!   than `crc-fast` on the same CPUs.
//! - With AVX-512 both take `crc-fast`, the only one of these crates with a 512-bit VPCLMULQDQ
//!   kernel (chosen from the crates' code: no AVX-512 machine has measured it yet); `crc-fast`
//!   stays a variant everywhere.
//! - CRC-64/NVME: `crc-fast` (what the AWS SDK for Rust uses), at least `crc64fast-nvme`'s
//!   speed.
//!
//! Any of them combines with the others: the CRC of a message split into pieces is the
//! pieces' CRCs combined (`crc_fast::checksum_combine`), which is how one CRC is spread over
//! cores (`parts`) and how an upload's parts give the whole object's.
#![forbid(unsafe_code)]

use crc_fast::{CrcAlgorithm, Digest};
use digest::consts::{U4, U8};

use super::checksum::{checksum_type, Stream};
use crate::dispatch::backends;

pub(crate) mod parts;

/// `crc-fast`'s state for one CRC.
#[derive(Clone)]
struct CrcFast(Digest);

impl Stream for CrcFast {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
    fn value(&self) -> u128 {
        u128::from(self.0.finalize())
    }
    fn reset(&mut self) {
        self.0.reset();
    }
}

impl Stream for crc32fast::Hasher {
    fn update(&mut self, data: &[u8]) {
        crc32fast::Hasher::update(self, data);
    }
    fn value(&self) -> u128 {
        u128::from(self.clone().finalize())
    }
    fn reset(&mut self) {
        crc32fast::Hasher::reset(self);
    }
}

/// The `crc32c` crate's CRC so far (it keeps no state of its own: each call continues one).
#[derive(Clone, Default)]
struct Crc32cCrate(u32);

impl Stream for Crc32cCrate {
    fn update(&mut self, data: &[u8]) {
        self.0 = crc32c::crc32c_append(self.0, data);
    }
    fn value(&self) -> u128 {
        u128::from(self.0)
    }
    fn reset(&mut self) {
        self.0 = 0;
    }
}

backends! {
    /// Which crate computes CRC-32.
    pub(crate) enum Crc32Backend {
        Crc32fast => "crc32fast": "crc32fast crate: PCLMULQDQ folding, chosen at run time";
        CrcFast => "crc-fast": "crc-fast crate: carry-less multiplication, VPCLMULQDQ with AVX-512";
    }
    default = ["crc32fast"];
    where crate::platform::Avx512::detect().is_some() => default = ["crc-fast"];
}

backends! {
    /// Which crate computes CRC-32C.
    pub(crate) enum Crc32cBackend {
        Crc32c => "crc32c": "crc32c crate: the SSE 4.2 crc32 instruction, chosen at run time";
        CrcFast => "crc-fast": "crc-fast crate: carry-less multiplication, VPCLMULQDQ with AVX-512";
    }
    default = ["crc32c"];
    where crate::platform::Avx512::detect().is_some() => default = ["crc-fast"];
}

backends! {
    /// Which crate computes CRC-64/NVME.
    pub(crate) enum Crc64Backend {
        CrcFast => "crc-fast": "crc-fast crate: carry-less multiplication, chosen at run time";
    }
    default = ["crc-fast"];
}

checksum_type! {
    /// CRC-32/ISO-HDLC (zlib's `crc32`, gzip, PNG, `cksum -a crc32b`); 4-byte big-endian digest.
    /// Computed by `crc32fast`, twice `crc-fast`'s speed without AVX-512 (`crc-fast` with it).
    Crc32: U4, Crc32Backend, Crc32State {
        Crc32fast: crc32fast::Hasher = crc32fast::Hasher::new();
        CrcFast: CrcFast = CrcFast(Digest::new(CrcAlgorithm::Crc32IsoHdlc));
    }
}

checksum_type! {
    /// CRC-32C, CRC-32/ISCSI (Castagnoli: iSCSI, ext4, btrfs, GCS, S3); 4-byte big-endian digest.
    /// Computed by the `crc32c` crate (the SSE 4.2 instruction), faster than `crc-fast` without
    /// AVX-512 (`crc-fast` with it).
    Crc32c: U4, Crc32cBackend, Crc32cState {
        Crc32c: Crc32cCrate = Crc32cCrate::default();
        CrcFast: CrcFast = CrcFast(Digest::new(CrcAlgorithm::Crc32Iscsi));
    }
}

checksum_type! {
    /// CRC-64/NVME (S3's default checksum); 8-byte big-endian digest. Computed by `crc-fast`
    /// (the AWS SDK's CRC crate), at least `crc64fast-nvme`'s speed.
    Crc64Nvme: U8, Crc64Backend, Crc64NvmeState {
        CrcFast: CrcFast = CrcFast(Digest::new(CrcAlgorithm::Crc64Nvme));
    }
}
