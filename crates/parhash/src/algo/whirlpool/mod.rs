//! Whirlpool, final 2003 version (ISO/IEC 10118-3:2004; Barreto and Rijmen, "The WHIRLPOOL
//! Hashing Function", revised 2003).
//!
//! Two forms of the compression function, as in seed study 2 (Nayuki's fast Whirlpool):
//! - `reference` ([`reference`](mod@reference)): byte-wise and literal to the specification — SubBytes (γ),
//!   ShiftColumns (π), MixRows (θ) and AddRoundKey (σ) on an 8x8 byte matrix;
//! - `fused` ([`fused`]), the default: a whole row at a time, γ, π and θ fused into one 64-bit
//!   table lookup per byte (8 tables of 256 entries, built at compile time from the S-box and
//!   the MDS matrix), XORed together with the round key; the default off x86-64;
//! - `fused-asm` ([`fused_asm`], x86-64): the fused form in assembly, bytes taken two per shift
//!   through `al`/`ah`, output rows kept in registers; the default on x86-64 (~1.25x `fused`
//!   and OpenSSL; BENCHMARKS.md, "Performance at the roof").
//!
//! Both share what the specification fixes: the S-box (built here from its E and R mini-boxes),
//! the round constants (taken from the S-box) and the Miyaguchi-Preneel chaining and padding.

pub mod fused;
#[cfg(target_arch = "x86_64")]
pub mod fused_asm;
pub mod reference;

use digest::{
    array::Array,
    block_api::{Block, Buffer, FixedOutputCore, UpdateCore},
    typenum::{Unsigned, U64},
    Output,
};

use super::block_api::{block_core, counted_core, hashers};
use crate::dispatch::backends;

/// Number of rounds.
pub const ROUNDS: usize = 10;

/// The mini-box E of the S-box construction (specification section 3.1 / appendix).
const E_BOX: [u8; 16] = [
    0x1, 0xB, 0x9, 0xC, 0xD, 0x6, 0xF, 0x3, 0xE, 0x8, 0x7, 0x4, 0xA, 0x2, 0x5, 0x0,
];
/// The mini-box R (a randomly chosen permutation in the specification).
const R_BOX: [u8; 16] = [
    0x7, 0xC, 0xB, 0xD, 0xE, 0x4, 0x9, 0xF, 0x6, 0x3, 0x8, 0xA, 0x2, 0x5, 0x1, 0x0,
];

const fn invert(boxed: [u8; 16]) -> [u8; 16] {
    let mut inv = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        inv[boxed[i] as usize] = i as u8;
        i += 1;
    }
    inv
}

/// The S-box: the three-layer E, R, E^-1 network of the specification's figure 2 applied to each
/// byte `u = (hi, lo)`: `a = E[hi]`, `b = E^-1[lo]`, `r = R[a ^ b]`,
/// `S[u] = (E[a ^ r], E^-1[b ^ r])`.
pub const SBOX: [u8; 256] = {
    let e_inv = invert(E_BOX);
    let mut s = [0u8; 256];
    let mut u = 0;
    while u < 256 {
        let a = E_BOX[u >> 4];
        let b = e_inv[u & 0xf];
        let r = R_BOX[(a ^ b) as usize];
        s[u] = (E_BOX[(a ^ r) as usize] << 4) | e_inv[(b ^ r) as usize];
        u += 1;
    }
    s
};

/// First row of the circulant MDS matrix `C = cir(01, 01, 04, 01, 08, 05, 02, 09)`:
/// `C[k][j] = MDS_ROW[(j - k) mod 8]`.
pub const MDS_ROW: [u8; 8] = [0x01, 0x01, 0x04, 0x01, 0x08, 0x05, 0x02, 0x09];

/// Multiplication in GF(2^8) modulo the specification's `x^8 + x^4 + x^3 + x^2 + 1` (0x11D).
pub const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut product = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            product ^= a;
        }
        let carry = a & 0x80 != 0;
        a <<= 1;
        if carry {
            a ^= 0x1d;
        }
        b >>= 1;
    }
    product
}

/// Round constants `c^r`: row 0 is `S[8(r - 1) + j]` for `j = 0..7`, rows 1..7 are zero. Stored
/// as row 0 read big-endian (column 0 in the high byte), index `r - 1`.
pub const ROUND_CONSTANTS: [u64; ROUNDS] = {
    let mut rc = [0u64; ROUNDS];
    let mut r = 0;
    while r < ROUNDS {
        let mut j = 0;
        while j < 8 {
            rc[r] = (rc[r] << 8) | SBOX[8 * r + j] as u64;
            j += 1;
        }
        r += 1;
    }
    rc
};

backends! {
    /// Which compression function a hasher runs: the family's single dispatch point.
    pub(crate) enum Backend {
        Reference => "reference":
            "byte-wise SubBytes/ShiftColumns/MixRows/AddRoundKey on an 8x8 matrix";
        Fused => "fused": "one 64-bit table lookup per byte, a whole row at a time";
        #[cfg(target_arch = "x86_64")]
        FusedAsm => "fused-asm": "the fused lookups in x86-64 assembly, output rows in registers";
    }
    default = ["fused-asm", "fused"];
}

impl Backend {
    fn compress(self, state: &mut [u64; 8], blocks: &[[u8; 64]]) {
        match self {
            Backend::Reference => reference::compress_blocks(state, blocks),
            Backend::Fused => fused::compress_blocks(state, blocks),
            #[cfg(target_arch = "x86_64")]
            Backend::FusedAsm => fused_asm::compress_blocks(state, blocks),
        }
    }
}

counted_core! {
    /// Block-level Whirlpool state; [`Whirlpool`] adds the buffering. The state is the chaining
    /// value's rows of the 8x8 matrix read big-endian (column 0 in the high byte).
    #[derive(Clone)]
    pub struct WhirlpoolCore { state: [u64; 8] = [0; 8], block_count: u128, backend: Backend }
}

impl UpdateCore for WhirlpoolCore {
    #[inline]
    fn update_blocks(&mut self, blocks: &[Block<Self>]) {
        self.block_count += blocks.len() as u128;
        self.backend
            .compress(&mut self.state, Array::cast_slice_to_core(blocks));
    }
}

impl FixedOutputCore for WhirlpoolCore {
    #[inline]
    fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
        // 0x80, zeros, then the message length in bits as a 256-bit big-endian number. The
        // length wraps modulo 2^128 bits only past 2^125 bytes, which no input reaches.
        let bit_len = (self.block_count * Self::BlockSize::U64 as u128 + buffer.get_pos() as u128)
            .wrapping_mul(8);
        let mut suffix = [0u8; 32];
        suffix[16..].copy_from_slice(&bit_len.to_be_bytes());
        let mut state = self.state;
        let backend = self.backend;
        buffer.digest_pad(0x80, &suffix, |b| backend.compress(&mut state, &[b.0]));
        for (chunk, row) in out.chunks_exact_mut(8).zip(state.iter()) {
            chunk.copy_from_slice(&row.to_be_bytes());
        }
    }
}

block_core!(WhirlpoolCore, name: "Whirlpool", block: U64, output: U64, buffer: Eager);

hashers! {
    /// Whirlpool hasher (final 2003 version, ISO/IEC 10118-3), 512-bit digest.
    Whirlpool(WhirlpoolCore);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbox_matches_the_specification_table() {
        // First and last entries of the S-box table printed in the specification.
        assert_eq!(SBOX[..8], [0x18, 0x23, 0xc6, 0xe8, 0x87, 0xb8, 0x01, 0x4f]);
        assert_eq!(
            SBOX[240..248],
            [0x16, 0x3a, 0x69, 0x09, 0x70, 0xb6, 0xd0, 0xed]
        );
        assert_eq!(
            SBOX[248..],
            [0xcc, 0x42, 0x98, 0xa4, 0x28, 0x5c, 0xf8, 0x86]
        );
        assert_eq!(ROUND_CONSTANTS[0], 0x1823_c6e8_87b8_014f);
        assert_eq!(ROUND_CONSTANTS[9], 0xca2d_bf07_ad5a_8333);
        let mut seen = [false; 256];
        for &s in &SBOX {
            assert!(!seen[s as usize], "S-box is not a permutation");
            seen[s as usize] = true;
        }
    }

    #[test]
    fn gf_mul_reduces_by_0x11d() {
        assert_eq!(gf_mul(0x80, 0x02), 0x1d);
        assert_eq!(gf_mul(0x02, 0x80), 0x1d);
        assert_eq!(gf_mul(0x53, 0x01), 0x53);
        assert_eq!(gf_mul(0x00, 0x09), 0x00);
    }

    #[test]
    fn both_forms_compress_alike() {
        let mut blocks = [[0u8; 64]; 3];
        for (i, b) in blocks.iter_mut().flatten().enumerate() {
            *b = (i % 251) as u8;
        }
        let mut a = [0x0123_4567_89ab_cdef_u64; 8];
        let mut b = a;
        reference::compress_blocks(&mut a, &blocks);
        fused::compress_blocks(&mut b, &blocks);
        assert_eq!(a, b);
    }
}
