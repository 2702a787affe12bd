//! SANDstorm's word arithmetic: 64-bit words for 224/256, 128-bit words for 384/512.
//!
//! Everything that differs between the two word sizes (rotation amounts, the G constants, the
//! level constants, the primitive functions F, G and SB) is behind the [`Word`] trait, so the
//! reference, the fast compression and the tree are each written once. `u128` arithmetic
//! compiles to 64x64->128 `mul`/`mulx` for the squares and products of F and G.

use core::ops::{BitAnd, BitXor, BitXorAssign, Not};

use super::consts::{AES_SBOX, RC128, RC64};

/// A SANDstorm word.
pub trait Word:
    Copy
    + Eq
    + Default
    + core::fmt::Debug
    + BitXor<Output = Self>
    + BitXorAssign
    + BitAnd<Output = Self>
    + Not<Output = Self>
    + Send
    + Sync
    + 'static
{
    /// Bytes per word (8 or 16); a block is 8 words.
    const BYTES: usize;
    /// Message-schedule rotation r_ms.
    const R_MS: u32;
    /// Input-mix rotation r_in.
    const R_IN: u32;
    /// Round rotation r_rnd.
    const R_RND: u32;
    /// Level-2 constant C.
    const LEVEL2: Self;
    /// Level-3/4 constant D.
    const LEVEL3: Self;
    /// Round constants RC[0..24] (paired SHA-2 round constants).
    const RC: [Self; 25];
    /// Mask J3 of BitMix.
    const J3: Self;
    /// Mask J5 of BitMix.
    const J5: Self;
    /// Mask J6 of BitMix.
    const J6: Self;

    /// Addition modulo the word size.
    fn add(self, other: Self) -> Self;
    /// Rotation left by `n` bits.
    fn rotl(self, n: u32) -> Self;
    /// F(x) = hi(x)^2 + lo(x)^2 (full products of the half words).
    fn f(self) -> Self;
    /// G(x) = F(x) + ROTL_h((hi + A) * (lo + B)).
    fn g(self) -> Self;
    /// SB(x): the low byte replaced by its AES S-box image.
    fn sb(self) -> Self;
    /// The word from its big-endian bytes (`bytes` is one word long).
    fn from_be_bytes(bytes: &[u8]) -> Self;
    /// The word's big-endian bytes into `out` (one word long).
    fn write_be_bytes(self, out: &mut [u8]);
    /// The message length in bits (64-bit for 224/256, 128-bit for 384/512).
    fn from_bit_len(bits: u128) -> Self;
    /// A superblock counter.
    fn from_counter(n: u64) -> Self;
}

impl Word for u64 {
    const BYTES: usize = 8;
    const R_MS: u32 = 27;
    const R_IN: u32 = 19;
    const R_RND: u32 = 25;
    const LEVEL2: u64 = 0x6135_F68D_4C0C_BB6F;
    const LEVEL3: u64 = 0x79CC_4519_5CF5_B7A4;
    const RC: [u64; 25] = RC64;
    const J3: u64 = 0x3333_3333_3333_3333;
    const J5: u64 = 0x5555_5555_5555_5555;
    const J6: u64 = 0x6666_6666_6666_6666;

    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
    #[inline(always)]
    fn rotl(self, n: u32) -> Self {
        self.rotate_left(n)
    }
    #[inline(always)]
    fn f(self) -> Self {
        let hi = self >> 32;
        let lo = self & 0xFFFF_FFFF;
        (hi * hi).wrapping_add(lo * lo)
    }
    #[inline(always)]
    fn g(self) -> Self {
        const A: u32 = 0xA611_186B;
        const B: u32 = 0xBEE8_390D;
        let hi = (self >> 32) as u32;
        let lo = self as u32;
        let product = u64::from(hi.wrapping_add(A)) * u64::from(lo.wrapping_add(B));
        self.f().wrapping_add(product.rotate_left(32))
    }
    #[inline(always)]
    fn sb(self) -> Self {
        (self & !0xFF) | u64::from(AES_SBOX[(self & 0xFF) as usize])
    }
    #[inline(always)]
    fn from_be_bytes(bytes: &[u8]) -> Self {
        u64::from_be_bytes(bytes[..8].try_into().expect("8 bytes"))
    }
    #[inline(always)]
    fn write_be_bytes(self, out: &mut [u8]) {
        out[..8].copy_from_slice(&self.to_be_bytes());
    }
    fn from_bit_len(bits: u128) -> Self {
        bits as u64
    }
    fn from_counter(n: u64) -> Self {
        n
    }
}

impl Word for u128 {
    const BYTES: usize = 16;
    const R_MS: u32 = 59;
    const R_IN: u32 = 37;
    const R_RND: u32 = 57;
    const LEVEL2: u128 = 0x6135f68d4c0cbb6f_b43b47a245778989;
    const LEVEL3: u128 = 0x79cc45195cf5b7a4_aec4e7496801dbb9;
    const RC: [u128; 25] = RC128;
    const J3: u128 = 0x3333_3333_3333_3333_3333_3333_3333_3333;
    const J5: u128 = 0x5555_5555_5555_5555_5555_5555_5555_5555;
    const J6: u128 = 0x6666_6666_6666_6666_6666_6666_6666_6666;

    #[inline(always)]
    fn add(self, other: Self) -> Self {
        self.wrapping_add(other)
    }
    #[inline(always)]
    fn rotl(self, n: u32) -> Self {
        self.rotate_left(n)
    }
    #[inline(always)]
    fn f(self) -> Self {
        let hi = (self >> 64) as u64;
        let lo = self as u64;
        (u128::from(hi) * u128::from(hi)).wrapping_add(u128::from(lo) * u128::from(lo))
    }
    #[inline(always)]
    fn g(self) -> Self {
        const A: u64 = 0xa611186bae67496b;
        const B: u64 = 0xbee8390d43955aed;
        let hi = (self >> 64) as u64;
        let lo = self as u64;
        let product = u128::from(hi.wrapping_add(A)) * u128::from(lo.wrapping_add(B));
        self.f().wrapping_add(product.rotate_left(64))
    }
    #[inline(always)]
    fn sb(self) -> Self {
        (self & !0xFF) | u128::from(AES_SBOX[(self & 0xFF) as usize])
    }
    #[inline(always)]
    fn from_be_bytes(bytes: &[u8]) -> Self {
        u128::from_be_bytes(bytes[..16].try_into().expect("16 bytes"))
    }
    #[inline(always)]
    fn write_be_bytes(self, out: &mut [u8]) {
        out[..16].copy_from_slice(&self.to_be_bytes());
    }
    fn from_bit_len(bits: u128) -> Self {
        bits
    }
    fn from_counter(n: u64) -> Self {
        u128::from(n)
    }
}

/// BitMix: four masked swaps, in the specification's order.
#[inline(always)]
pub fn bitmix<W: Word>(w: &mut [W; 4]) {
    let t = (w[0] ^ w[2]) & W::J6;
    w[0] ^= t;
    w[2] ^= t;
    let t = (w[1] ^ w[3]) & W::J3;
    w[1] ^= t;
    w[3] ^= t;
    let t = (w[0] ^ w[1]) & W::J5;
    w[0] ^= t;
    w[1] ^= t;
    let t = (w[2] ^ w[3]) & W::J5;
    w[2] ^= t;
    w[3] ^= t;
}

/// Ch(a, b, c) = (a AND b) XOR (NOT a AND c).
#[inline(always)]
pub fn ch<W: Word>(a: W, b: W, c: W) -> W {
    (a & b) ^ (!a & c)
}
