//! The internally parallel form of Threefish-512 ([`super::parallel`]) in portable Rust: the
//! pair layout on `[u64; 2]` arrays. Where the compiler has no per-lane rotate it keeps the
//! lanes in scalar registers, and the renaming still spares every word move of π.
#![forbid(unsafe_code)]

use super::parallel::compress_generic;

/// UBI over whole blocks (see `sequential::threefish512::compress_blocks`).
#[inline(never)]
pub fn compress_blocks(h: &mut [u64; 8], blocks: &[[u8; 64]], tweak: &mut [u64; 2], len: u64) {
    compress_generic::<[u64; 2]>((), h, blocks, tweak, len);
}
