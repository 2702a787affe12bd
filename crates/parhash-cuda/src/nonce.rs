//! The host side of the nonce search: Bitcoin block headers (80 bytes, nonce little-endian in the
//! last 4), the midstate after the first 64 bytes, compact targets, comparisons in display order
//! (the block hash is the double SHA-256 with its bytes reversed), and splitting a nonce range
//! into launches.

use std::ops::RangeInclusive;

/// Byte offset of the nonce in a header.
pub const NONCE_OFFSET: usize = 76;

/// Nonces one launch tries at most (a launch stays well under a second on any recent GPU, and a
/// launch's count fits in 32 bits).
pub const NONCES_PER_LAUNCH: u64 = 1 << 28;

/// The Bitcoin genesis block's header (block 0, mined 2009-01-03): version 1, a zero previous
/// hash, its merkle root, time 1231006505, bits 0x1d00ffff, nonce 2083236893.
pub const GENESIS_HEADER_HEX: &str = concat!(
    "01000000",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "3ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a",
    "29ab5f49",
    "ffff001d",
    "1dac2b7c",
);

/// The genesis block's published nonce.
pub const GENESIS_NONCE: u32 = 2_083_236_893;

/// The genesis block's published hash, in display order.
pub const GENESIS_HASH_HEX: &str =
    "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f";

/// The genesis header as bytes.
pub fn genesis_header() -> [u8; 80] {
    let mut h = [0u8; 80];
    for (i, b) in h.iter_mut().enumerate() {
        *b = u8::from_str_radix(&GENESIS_HEADER_HEX[2 * i..2 * i + 2], 16).expect("hex");
    }
    h
}

/// The header's compact difficulty ("bits") field, bytes 72..76 little-endian.
pub fn header_bits(header: &[u8; 80]) -> u32 {
    u32::from_le_bytes(header[72..76].try_into().expect("4 bytes"))
}

/// The 256-bit target a compact "bits" value encodes, big-endian (display order): mantissa
/// `bits & 0x7fffff` times 256^(exponent - 3), exponent `bits >> 24`. A negative or overflowing
/// encoding gives `None`.
pub fn target_from_bits(bits: u32) -> Option<[u8; 32]> {
    let exponent = (bits >> 24) as usize;
    let mantissa = bits & 0x007f_ffff;
    if bits & 0x0080_0000 != 0 && mantissa != 0 {
        return None;
    }
    let mut target = [0u8; 32];
    let m = mantissa.to_be_bytes(); // m[1..4] are the three mantissa bytes
    for (k, &byte) in m[1..].iter().enumerate() {
        // Byte k of the mantissa has weight 256^(exponent - 1 - k).
        let weight = exponent as i64 - 1 - k as i64;
        if weight < 0 {
            continue;
        }
        if weight >= 32 {
            if byte != 0 {
                return None;
            }
            continue;
        }
        target[31 - weight as usize] = byte;
    }
    Some(target)
}

/// Whether `hash` (display order) meets `target`: at or below it, Bitcoin's rule.
pub fn meets_target(hash: &[u8; 32], target: &[u8; 32]) -> bool {
    hash <= target
}

/// The header with `nonce` in place.
pub fn with_nonce(header: &[u8; 80], nonce: u32) -> [u8; 80] {
    let mut h = *header;
    h[NONCE_OFFSET..].copy_from_slice(&nonce.to_le_bytes());
    h
}

/// The block hash (display order) of `header` with `nonce`: double SHA-256, bytes reversed.
pub fn block_hash(header: &[u8; 80], nonce: u32) -> [u8; 32] {
    let first = parhash::hash(parhash::Algorithm::Sha256, &with_nonce(header, nonce));
    let second = parhash::hash(parhash::Algorithm::Sha256, first.as_bytes());
    let mut hash: [u8; 32] = second.as_bytes().try_into().expect("32 bytes");
    hash.reverse();
    hash
}

/// The kernel's parameters: the midstate after bytes 0..64, header bytes 64..76 as big-endian
/// words, and the target as big-endian words.
pub fn kernel_params(header: &[u8; 80], target: &[u8; 32]) -> [u32; 19] {
    let mut state = parhash::lab::algo::sha2::consts::IV256;
    let first: [u8; 64] = header[..64].try_into().expect("64 bytes");
    parhash::lab::algo::sha2::compress256(&mut state, &[first]);
    let mut params = [0u32; 19];
    params[..8].copy_from_slice(&state);
    for k in 0..3 {
        params[8 + k] = u32::from_be_bytes(header[64 + 4 * k..68 + 4 * k].try_into().expect("4"));
    }
    for k in 0..8 {
        params[11 + k] = u32::from_be_bytes(target[4 * k..4 * k + 4].try_into().expect("4"));
    }
    params
}

/// `range` cut into `(start, count)` launches of at most `per_launch` nonces, in order.
pub fn split_range(range: RangeInclusive<u32>, per_launch: u64) -> Vec<(u32, u32)> {
    let per_launch = per_launch.clamp(1, u64::from(u32::MAX));
    let (start, end) = (u64::from(*range.start()), u64::from(*range.end()));
    let mut out = Vec::new();
    let mut next = start;
    while next <= end && start <= end {
        let count = (end - next + 1).min(per_launch);
        out.push((next as u32, count as u32));
        next += count;
    }
    out
}

/// The smallest nonce in `range` whose block hash meets `target`, on the CPU (parhash's SHA-256):
/// the oracle for the GPU search, on small ranges.
pub fn search_cpu(
    header: &[u8; 80],
    target: &[u8; 32],
    range: RangeInclusive<u32>,
) -> Option<(u32, [u8; 32])> {
    range
        .map(|n| (n, block_hash(header, n)))
        .find(|(_, h)| meets_target(h, target))
}

/// Hex of bytes (lower case).
pub fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn genesis_header_hashes_to_the_published_block_hash() {
        let h = genesis_header();
        assert_eq!(
            u32::from_le_bytes(h[76..].try_into().unwrap()),
            GENESIS_NONCE
        );
        assert_eq!(to_hex(&block_hash(&h, GENESIS_NONCE)), GENESIS_HASH_HEX);
    }

    #[test]
    fn genesis_target_is_difficulty_one() {
        let target = target_from_bits(header_bits(&genesis_header())).unwrap();
        assert_eq!(
            to_hex(&target),
            "00000000ffff0000000000000000000000000000000000000000000000000000"
        );
    }

    #[test]
    fn cpu_search_finds_the_genesis_nonce_and_nothing_before_it() {
        let h = genesis_header();
        let target = target_from_bits(header_bits(&h)).unwrap();
        let found = search_cpu(&h, &target, GENESIS_NONCE - 300..=GENESIS_NONCE + 300);
        let (nonce, hash) = found.unwrap();
        assert_eq!(nonce, GENESIS_NONCE);
        assert_eq!(to_hex(&hash), GENESIS_HASH_HEX);
        assert_eq!(search_cpu(&h, &target, 0..=500), None);
    }

    #[test]
    fn target_comparison_is_at_or_below() {
        let t = [0x10u8; 32];
        let mut below = t;
        below[31] = 0x0f;
        let mut above = t;
        above[0] = 0x11;
        assert!(meets_target(&t, &t));
        assert!(meets_target(&below, &t));
        assert!(!meets_target(&above, &t));
    }

    #[test]
    fn compact_targets() {
        // Published examples: 0x1b0404cb and the regtest limit 0x207fffff.
        assert_eq!(
            to_hex(&target_from_bits(0x1b0404cb).unwrap()),
            "00000000000404cb000000000000000000000000000000000000000000000000"
        );
        assert_eq!(
            to_hex(&target_from_bits(0x207fffff).unwrap()),
            "7fffff0000000000000000000000000000000000000000000000000000000000"
        );
        assert_eq!(target_from_bits(0x04923456), None); // negative
        assert_eq!(target_from_bits(0xff123456), None); // overflow
        let mut small = [0u8; 32];
        small[31] = 0x12;
        assert_eq!(target_from_bits(0x01120000), Some(small));
    }

    #[test]
    fn ranges_split_into_ordered_launches_covering_everything() {
        assert_eq!(split_range(0..=9, 4), vec![(0, 4), (4, 4), (8, 2)]);
        assert_eq!(split_range(5..=5, 4), vec![(5, 1)]);
        let (hi, lo) = (7, 3);
        assert_eq!(split_range(hi..=lo, 4), vec![]);
        let full = split_range(0..=u32::MAX, NONCES_PER_LAUNCH);
        assert_eq!(full.len(), 16);
        let total: u64 = full.iter().map(|&(_, c)| u64::from(c)).sum();
        assert_eq!(total, 1 << 32);
        assert_eq!(full.last().unwrap().0, (15u64 << 28) as u32);
        let top = split_range(u32::MAX - 2..=u32::MAX, 2);
        assert_eq!(top, vec![(u32::MAX - 2, 2), (u32::MAX, 1)]);
    }

    #[test]
    fn kernel_params_hold_the_midstate_tail_and_target() {
        let h = genesis_header();
        let target = target_from_bits(header_bits(&h)).unwrap();
        let p = kernel_params(&h, &target);
        // Finishing the first hash from the midstate and the tail gives the full SHA-256.
        let mut state: [u32; 8] = p[..8].try_into().unwrap();
        let mut block = [0u8; 64];
        for k in 0..3 {
            block[4 * k..4 * k + 4].copy_from_slice(&p[8 + k].to_be_bytes());
        }
        block[12..16].copy_from_slice(&GENESIS_NONCE.to_le_bytes());
        block[16] = 0x80;
        block[62..].copy_from_slice(&640u16.to_be_bytes());
        parhash::lab::algo::sha2::compress256(&mut state, &[block]);
        let direct = parhash::hash(parhash::Algorithm::Sha256, &h);
        let got: Vec<u8> = state.iter().flat_map(|w| w.to_be_bytes()).collect();
        assert_eq!(got, direct.as_bytes());
        assert_eq!(p[11], 0);
        assert_eq!(p[12], 0xffff_0000);
    }
}
