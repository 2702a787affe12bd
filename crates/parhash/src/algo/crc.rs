//! CRC-32 (ISO-HDLC: zlib, gzip, PNG, `cksum -a crc32b`), CRC-32C (Castagnoli: iSCSI, ext4,
//! GCS, S3) and CRC-64/NVME (S3's default checksum), from the `crc-fast` crate. Checksums,
//! not cryptographic hashes (see `checksum`).
//!
//! Digests are the CRC as a big-endian integer, as `crc32`, `gsutil` and S3 (in base64) show
//! it. `crc-fast` is what the AWS SDK for Rust uses: one crate for all three, folding with
//! carry-less multiplication chosen at run time (VPCLMULQDQ with AVX-512, PCLMULQDQ, ARM
//! PMULL). It also combines the CRCs of pieces (`crc_fast::checksum_combine`): the way to
//! spread one CRC over cores or to form it from an upload's parts.
#![forbid(unsafe_code)]

use crc_fast::{CrcAlgorithm, Digest};
use digest::consts::{U4, U8};

use super::checksum::checksum_type;

/// `crc-fast`'s `Digest` for one CRC, as a `$int` wide CRC.
macro_rules! crc {
    ($(#[doc = $doc:literal] $name:ident($algorithm:ident, $int:ty, $size:ty);)+) => {$(
        #[doc = $doc]
        #[derive(Clone, Debug)]
        pub struct $name(Digest);

        checksum_type!($name: $size,
            new Digest::new(CrcAlgorithm::$algorithm),
            // The CRC is as wide as the type: the cast drops only zero bits.
            digest |state| (state.finalize() as $int).to_be_bytes(),
            reset |state| state.reset(),
            variant "crc-fast": "crc-fast crate: carry-less multiplication, chosen at run time");
    )+};
}

crc! {
    /// CRC-32/ISO-HDLC (zlib's `crc32`, gzip, PNG, `cksum -a crc32b`); 4-byte big-endian digest.
    Crc32(Crc32IsoHdlc, u32, U4);
    /// CRC-32C, CRC-32/ISCSI (Castagnoli: iSCSI, ext4, btrfs, GCS, S3); 4-byte big-endian digest.
    Crc32c(Crc32Iscsi, u32, U4);
    /// CRC-64/NVME (S3's default checksum); 8-byte big-endian digest.
    Crc64Nvme(Crc64Nvme, u64, U8);
}
