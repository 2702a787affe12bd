//! SHA-512 (and SHA-384, SHA-512/224, SHA-512/256) on 4 (AVX2, portable) or 8 (AVX-512)
//! messages at once.

use crate::algo::sha2::consts::K512;
use crate::lanes::{md_algorithm, MdLanes, Width};
use crate::vector::U64x;

// 80 rounds and the feed-forward on every lane. σ0 = rotr 1 ^ rotr 8 ^ shr 7,
// σ1 = rotr 19 ^ rotr 61 ^ shr 6; Σ0 = rotr 28, 34, 39; Σ1 = rotr 14, 18, 41.
super::super::rounds::lane_rounds!(
    U64x, K512,
    |x| x.rotl::<63>().xor(x.rotl::<56>()).xor(x.shr::<7>()),
    |y| y.rotl::<45>().xor(y.rotl::<3>()).xor(y.shr::<6>()),
    big_sigma0_rotl (36 30 25), big_sigma1_rotl (50 46 23)
);

md_algorithm! {
    /// SHA-512 as a Merkle-Damgard lane algorithm (serves SHA-384, SHA-512/224, SHA-512/256 too).
    Sha512 {
        word: u64, vectors: U64x, state_words: 8, block: 128, length_bytes: 16,
        big_endian: true, rounds: rounds, lanes: Sha512Lanes,
    }
}

impl Sha512Lanes {
    /// Lanes starting from `iv`, digests of `digest_len` bytes: SHA-384 (`IV384`, 48),
    /// SHA-512 (`IV512`, 64), SHA-512/224 (`IV512_224`, 28), SHA-512/256 (`IV512_256`, 32).
    pub(crate) fn new(width: Width, iv: &[u64; 8], digest_len: usize) -> Self {
        MdLanes::with_iv(width, iv, digest_len)
    }
}
