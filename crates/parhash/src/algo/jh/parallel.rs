//! The bit-sliced form of JH's E8 (the specification's own fast form), portable: eight 128-bit
//! words, each a `u64` pair.
//!
//! Word `k` is bits `128k .. 128k + 127` of the state. By the grouping, bit `i` of words 0, 2,
//! 4, 6 are the four bits of element `2i`, and bit `i` of words 1, 3, 5, 7 those of element
//! `2i + 1`, so:
//! - the S-box layer is one Boolean circuit on words (0, 2, 4, 6) and one on (1, 3, 5, 7), each
//!   choosing S0 or S1 per bit by a constant mask: 128 S-boxes per circuit;
//! - `L` mixes element `2i` with `2i + 1`: eight word XORs;
//! - `P8` sends element position `i` to `rotl7(i, 1)` within each parity, after swapping
//!   neighbours in the odd words. Instead of moving bits, the code renames positions: after `r`
//!   rounds, element position `i` lives at stored position `rotl7(i, r)`. The neighbour swap
//!   then becomes a swap of bit groups of size `2^(r mod 7)` in the odd words (bits, pairs,
//!   nibbles, bytes, 16-bit, 32-bit and 64-bit halves), and the round constants are stored
//!   pre-renamed ([`BITSLICED_CONSTANTS`]). 42 = 6 × 7 rounds bring the naming back home.
//!
//! The round body is generic over the word type ([`Word`]) so the SIMD forms reuse it.
#![forbid(unsafe_code)]

use super::{State, BITSLICED_CONSTANTS};

/// A 128-bit word of the bit-sliced state and the operations E8 needs on it.
pub trait Word: Copy {
    /// Bytes `0..16` of `bytes`, in memory order.
    fn load(bytes: &[u8]) -> Self;
    /// Writes the word to `out[..16]` in memory order.
    fn store(self, out: &mut [u8]);
    /// A round-constant mask (two `u64` of bytes in memory order).
    fn mask(m: [u64; 2]) -> Self;
    fn xor(self, other: Self) -> Self;
    fn and(self, other: Self) -> Self;
    fn or(self, other: Self) -> Self;
    fn not(self) -> Self;
    /// `!self & other`.
    fn andnot(self, other: Self) -> Self;
    /// Swaps the bit groups of size `2^K` at stored positions that differ in bit `K`.
    fn swap<const K: u32>(self) -> Self;
}

impl Word for [u64; 2] {
    #[inline(always)]
    fn load(bytes: &[u8]) -> Self {
        [
            u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes")),
            u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes")),
        ]
    }
    #[inline(always)]
    fn store(self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self[0].to_le_bytes());
        out[8..16].copy_from_slice(&self[1].to_le_bytes());
    }
    #[inline(always)]
    fn mask(m: [u64; 2]) -> Self {
        m
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        [self[0] ^ o[0], self[1] ^ o[1]]
    }
    #[inline(always)]
    fn and(self, o: Self) -> Self {
        [self[0] & o[0], self[1] & o[1]]
    }
    #[inline(always)]
    fn or(self, o: Self) -> Self {
        [self[0] | o[0], self[1] | o[1]]
    }
    #[inline(always)]
    fn not(self) -> Self {
        [!self[0], !self[1]]
    }
    #[inline(always)]
    fn andnot(self, o: Self) -> Self {
        [!self[0] & o[0], !self[1] & o[1]]
    }
    #[inline(always)]
    fn swap<const K: u32>(self) -> Self {
        // Position `s` is bit `7 - s mod 8` of byte `s / 8`; bytes are little-endian in a u64.
        fn groups(x: u64, mask: u64, shift: u32) -> u64 {
            ((x >> shift) & mask) | ((x & mask) << shift)
        }
        match K {
            0 => self.map(|x| groups(x, 0x5555_5555_5555_5555, 1)),
            1 => self.map(|x| groups(x, 0x3333_3333_3333_3333, 2)),
            2 => self.map(|x| groups(x, 0x0f0f_0f0f_0f0f_0f0f, 4)),
            3 => self.map(|x| groups(x, 0x00ff_00ff_00ff_00ff, 8)),
            4 => self.map(|x| groups(x, 0x0000_ffff_0000_ffff, 16)),
            5 => self.map(|x| x.rotate_left(32)),
            _ => [self[1], self[0]],
        }
    }
}

/// S0 or S1 on 128 elements at once (bit-slices `m0` most significant .. `m3` least), chosen
/// per position by the constant mask `c`: the specification's bit-sliced S-box circuit.
#[inline(always)]
fn sbox<W: Word>(m: [W; 4], c: W) -> [W; 4] {
    let [mut m0, mut m1, mut m2, mut m3] = m;
    m3 = m3.not();
    m0 = m0.xor(m2.andnot(c));
    let t = c.xor(m0.and(m1));
    m0 = m0.xor(m2.and(m3));
    m3 = m3.xor(m1.andnot(m2));
    m1 = m1.xor(m0.and(m2));
    m2 = m2.xor(m3.andnot(m0));
    m0 = m0.xor(m1.or(m3));
    m3 = m3.xor(m1.and(m2));
    m1 = m1.xor(t.and(m0));
    m2 = m2.xor(t);
    [m0, m1, m2, m3]
}

/// Round `r` (with `K = r mod 7`): S-boxes, `L`, and the renamed `P8` swap in the odd words.
#[inline(always)]
fn round<W: Word, const K: u32>(w: &mut [W; 8], r: usize) {
    let [ce, co] = BITSLICED_CONSTANTS[r];
    let [a0, a1, a2, a3] = sbox([w[0], w[2], w[4], w[6]], W::mask(ce));
    let [b0, b1, b2, b3] = sbox([w[1], w[3], w[5], w[7]], W::mask(co));
    // L: D = B ⊕ 2A, C = A ⊕ 2D over GF(2^4), bit-sliced.
    let d0 = b0.xor(a1);
    let d1 = b1.xor(a2);
    let d2 = b2.xor(a3).xor(a0);
    let d3 = b3.xor(a0);
    let c0 = a0.xor(d1);
    let c1 = a1.xor(d2);
    let c2 = a2.xor(d3).xor(d0);
    let c3 = a3.xor(d0);
    *w = [
        c0,
        d0.swap::<K>(),
        c1,
        d1.swap::<K>(),
        c2,
        d2.swap::<K>(),
        c3,
        d3.swap::<K>(),
    ];
}

/// E8 on the bit-sliced words.
#[inline(always)]
pub fn e8<W: Word>(w: &mut [W; 8]) {
    for r in (0..42).step_by(7) {
        round::<W, 0>(w, r);
        round::<W, 1>(w, r + 1);
        round::<W, 2>(w, r + 2);
        round::<W, 3>(w, r + 3);
        round::<W, 4>(w, r + 4);
        round::<W, 5>(w, r + 5);
        round::<W, 6>(w, r + 6);
    }
}

/// `F8` on each 64-byte block, with the state held as eight words across blocks.
#[inline(always)]
pub fn compress_generic<W: Word>(state: &mut State, blocks: &[u8]) {
    assert!(blocks.len() % 64 == 0);
    let mut w: [W; 8] = core::array::from_fn(|k| W::load(&state[16 * k..]));
    for block in blocks.chunks_exact(64) {
        let m: [W; 4] = core::array::from_fn(|k| W::load(&block[16 * k..]));
        for k in 0..4 {
            w[k] = w[k].xor(m[k]);
        }
        e8(&mut w);
        for k in 0..4 {
            w[k + 4] = w[k + 4].xor(m[k]);
        }
    }
    for (k, word) in w.iter().enumerate() {
        word.store(&mut state[16 * k..]);
    }
}

/// `F8` on each 64-byte block, portable bit-sliced E8.
#[inline(never)]
pub fn compress_blocks(state: &mut State, blocks: &[u8]) {
    compress_generic::<[u64; 2]>(state, blocks);
}
