//! JH-224/256/384/512, the final (round 3, 42 rounds) SHA-3 finalist.
//!
//! The compression function is `F8(H, M)`: the 512-bit block `M` is XORed into the first half
//! of the 1024-bit state `H`, `H` goes through the 42-round permutation E8, and `M` is XORed
//! into the second half. All the work is in E8, whose rounds apply one of two 4-bit S-boxes to
//! each of 256 elements, a linear map `L` to each pair, and a fixed permutation `P8`.
//!
//! Forms (the one dispatch point is `Backend`):
//! - `sequential` ([`sequential`]): portable and literal: grouping of the bits into 4-bit
//!   elements, 42 rounds of S-boxes, `L` and `P8` on those elements, degrouping; the round
//!   constants are generated from `C0` by the round function `R6`, as the specification says.
//! - `parallel-portable` ([`parallel`]): the specification's bit-sliced E8 on eight 128-bit
//!   words (`u64` pairs). Each word holds one bit of 128 elements, so one S-box evaluation is
//!   ~20 logic operations on four words for 128 elements at once, `L` is 8 word XORs, and `P8`
//!   is absorbed into a re-indexing that leaves only a bit-group swap in the odd words.
//! - `parallel-sse` ([`parallel_sse`]): the same on SSE2 registers (one word per register).
//! - `parallel-avx512` ([`parallel_avx512`]): the same code compiled for AVX-512VL, where the
//!   compiler fuses the S-box's AND/XOR/NOT chains into `vpternlogq`.

pub mod parallel;
#[cfg(target_arch = "x86_64")]
pub mod parallel_avx512;
#[cfg(target_arch = "x86_64")]
pub mod parallel_sse;
pub mod sequential;
#[cfg(target_arch = "x86_64")]
mod simd128;

use core::marker::PhantomData;
use digest::{
    array::ArraySize,
    block_api::{Block, Buffer, FixedOutputCore, UpdateCore},
    typenum::{Unsigned, U28, U32, U48, U64},
    Output,
};

use super::block_api::{block_core, counted_bytes, hashers};
use crate::dispatch::backends;
#[cfg(test)]
use crate::dispatch::Dispatch;

/// The 1024-bit state as bytes, in the specification's order (bit `i` is bit `7 - i mod 8` of
/// byte `i / 8`: most significant bit first).
pub type State = [u8; 128];

/// Number of rounds of E8 (final version).
pub const ROUNDS: usize = 42;

/// The S-boxes: S0 when the round-constant bit is 0, S1 when it is 1.
pub const S0: [u8; 16] = [9, 0, 4, 11, 13, 12, 3, 15, 1, 10, 2, 6, 7, 5, 8, 14];
pub const S1: [u8; 16] = [3, 12, 6, 13, 5, 7, 1, 9, 15, 2, 0, 4, 11, 10, 14, 8];

/// `C0`: the first 256 bits of the fractional part of `√2`.
pub const C0: [u8; 32] = [
    0x6a, 0x09, 0xe6, 0x67, 0xf3, 0xbc, 0xc9, 0x08, 0xb2, 0xfb, 0x13, 0x66, 0xea, 0x95, 0x7d, 0x3e,
    0x3a, 0xde, 0xc1, 0x75, 0x12, 0x77, 0x50, 0x99, 0xda, 0x2f, 0x59, 0x0b, 0x06, 0x67, 0x32, 0x2a,
];

/// Bit `i` of a big-endian bit string (bit 0 is the most significant bit of byte 0).
pub const fn bit(bytes: &[u8], i: usize) -> u8 {
    (bytes[i / 8] >> (7 - i % 8)) & 1
}

/// Multiplication by 2 in GF(2^4) modulo `x^4 + x + 1` (element bit `A^0` is the MSB).
const fn mul2(a: u8) -> u8 {
    ((a << 1) & 0xf) ^ if a & 8 != 0 { 0x3 } else { 0 }
}

/// One round `R_d` on the first `n = 2^d` 4-bit elements of `q` (`d` = 8 for E8, 6 for the
/// round-constant generator): S-box layer selected by the bits of `constant`, `L` on each pair
/// `(A, B) -> (A ⊕ 2D, D = B ⊕ 2A)`, then `P_d = φ_d ∘ P'_d ∘ π_d`.
pub const fn round_elements(q: &mut [u8; 256], n: usize, constant: &[u8; 32]) {
    let mut i = 0;
    while i < n {
        q[i] = if bit(constant, i) == 0 {
            S0[q[i] as usize]
        } else {
            S1[q[i] as usize]
        };
        i += 1;
    }
    i = 0;
    while i < n {
        let d = q[i + 1] ^ mul2(q[i]);
        let c = q[i] ^ mul2(d);
        q[i] = c;
        q[i + 1] = d;
        i += 2;
    }
    // π_d: swap the last two elements of each group of four.
    i = 0;
    while i < n {
        let t = q[i + 2];
        q[i + 2] = q[i + 3];
        q[i + 3] = t;
        i += 4;
    }
    // P'_d: even-indexed elements to the first half, odd-indexed ones to the second.
    let old = *q;
    i = 0;
    while i < n / 2 {
        q[i] = old[2 * i];
        q[i + n / 2] = old[2 * i + 1];
        i += 1;
    }
    // φ_d: swap neighbours in the second half.
    i = n / 2;
    while i < n {
        let t = q[i];
        q[i] = q[i + 1];
        q[i + 1] = t;
        i += 2;
    }
}

/// The 42 round constants: `C_{r+1} = R6(C_r, 0)` on the 64 consecutive 4-bit elements of
/// `C_r` (S0 everywhere, since the constant of this round is zero).
pub const ROUND_CONSTANTS: [[u8; 32]; ROUNDS] = {
    let mut out = [[0u8; 32]; ROUNDS];
    out[0] = C0;
    let mut r = 1;
    while r < ROUNDS {
        let mut q = [0u8; 256];
        let mut j = 0;
        while j < 64 {
            let byte = out[r - 1][j / 2];
            q[j] = if j % 2 == 0 { byte >> 4 } else { byte & 0xf };
            j += 1;
        }
        round_elements(&mut q, 64, &[0u8; 32]);
        j = 0;
        while j < 32 {
            out[r][j] = (q[2 * j] << 4) | q[2 * j + 1];
            j += 1;
        }
        r += 1;
    }
    out
};

/// Round constants in the bit-sliced layout: `[round][parity]` is a 128-bit mask (two `u64`,
/// bytes in memory order) whose bit at stored position `s` selects S1 for the element of that
/// parity. The bit-sliced form never moves bits for `P8`'s de-interleave step: after `r` rounds
/// the element at position `i` sits at stored position `rotl7(i, r)`, so the constant bit for
/// element `2 i + parity` is placed at `s = rotl7(i, r)` (and 42 rounds bring it back home).
pub const BITSLICED_CONSTANTS: [[[u64; 2]; 2]; ROUNDS] = {
    let mut out = [[[0u64; 2]; 2]; ROUNDS];
    let mut r = 0;
    while r < ROUNDS {
        let mut parity = 0;
        while parity < 2 {
            let mut bytes = [0u8; 16];
            let mut s = 0;
            while s < 128 {
                // i = rotr7(s, r mod 7)
                let k = r % 7;
                let i = ((s >> k) | (s << (7 - k))) & 0x7f;
                if bit(&ROUND_CONSTANTS[r], 2 * i + parity) != 0 {
                    bytes[s / 8] |= 0x80 >> (s % 8);
                }
                s += 1;
            }
            let mut lo = 0u64;
            let mut hi = 0u64;
            let mut b = 0;
            while b < 8 {
                lo |= (bytes[b] as u64) << (8 * b);
                hi |= (bytes[b + 8] as u64) << (8 * b);
                b += 1;
            }
            out[r][parity] = [lo, hi];
            parity += 1;
        }
        r += 1;
    }
    out
};

backends! {
    /// Which E8 code a hasher runs: the family's single dispatch point.
    pub(crate) enum Backend {
        Sequential => "sequential":
            "portable, literal E8 on 256 4-bit elements (grouping, S-boxes, L, P8)";
        // The fastest form on this CPU (see BENCHMARKS.md for the measurements behind the order);
        // x86_64 always has SSE2, so `parallel-portable` is picked only elsewhere.
        "parallel" = ["parallel-avx512", "parallel-sse", "parallel-portable"]:
            "bit-sliced E8 on 128-bit words (best form available)";
        ParallelPortable => "parallel-portable": "bit-sliced E8 on eight 128-bit words as u64 pairs";
        #[cfg(target_arch = "x86_64")]
        ParallelSse => "parallel-sse": "bit-sliced E8, one 128-bit word per SSE2 register";
        ParallelAvx512(Avx512) => "parallel-avx512":
            "bit-sliced E8 on 128-bit registers with AVX-512VL ternary logic";
    }
}

impl Backend {
    /// `F8` on each 64-byte block.
    #[inline]
    fn compress(self, state: &mut State, blocks: &[u8]) {
        match self {
            Backend::Sequential => sequential::compress_blocks(state, blocks),
            Backend::ParallelPortable => parallel::compress_blocks(state, blocks),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelSse => parallel_sse::compress_blocks(state, blocks),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAvx512(token) => {
                parallel_avx512::compress_blocks(token, state, blocks)
            }
        }
    }
}

/// Parameters of one JH instance.
pub trait JhParams: 'static {
    /// Digest size in bytes.
    type OutputSize: ArraySize;
    /// Display name.
    const NAME: &'static str;
}

/// Block-level JH state; the public types ([`Jh256`], ...) add buffering.
pub struct JhCore<P: JhParams> {
    state: State,
    block_count: u128,
    backend: Backend,
    params: PhantomData<P>,
}

impl<P: JhParams> JhCore<P> {
    /// `H(0) = F8(H(-1), 0)`, where `H(-1)` is the digest size in bits as a 16-bit big-endian
    /// number followed by zeros. F8 with a zero block is just E8; it is computed at compile
    /// time with the literal E8, so creating or resetting a hasher costs nothing.
    const IV: State = {
        let bits = (P::OutputSize::USIZE * 8) as u16;
        let mut state = [0u8; 128];
        state[0] = (bits >> 8) as u8;
        state[1] = bits as u8;
        sequential::e8(&mut state);
        state
    };

    fn with_backend(backend: Backend) -> Self {
        Self {
            state: Self::IV,
            block_count: 0,
            backend,
            params: PhantomData,
        }
    }
}

impl<P: JhParams> UpdateCore for JhCore<P> {
    #[inline]
    fn update_blocks(&mut self, blocks: &[Block<Self>]) {
        self.backend.compress(
            &mut self.state,
            counted_bytes(&mut self.block_count, blocks),
        );
    }
}

impl<P: JhParams> FixedOutputCore for JhCore<P> {
    #[inline]
    fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
        // Padding: a 1 bit, then zeros up to 384 mod 512 bits but at least 383 of them, then
        // the message length in bits as a 128-bit big-endian number. So a message that fills
        // whole blocks gets one padding block, any other two.
        let pos = buffer.get_pos();
        let bit_len = self
            .block_count
            .wrapping_mul(512)
            .wrapping_add(pos as u128 * 8);
        let mut tail = [0u8; 128];
        tail[..pos].copy_from_slice(&buffer.get_data()[..pos]);
        tail[pos] = 0x80;
        let end = if pos == 0 { 64 } else { 128 };
        tail[end - 16..end].copy_from_slice(&bit_len.to_be_bytes());
        let mut state = self.state;
        self.backend.compress(&mut state, &tail[..end]);
        out.copy_from_slice(&state[128 - P::OutputSize::USIZE..]);
    }
}

block_core!(JhCore<P: JhParams>, block: U64, output: P::OutputSize, buffer: Eager);

hashers! {
    impl JhParams;
    /// JH-224 (final round-3 version, 42 rounds).
    Jh224(JhCore<Jh224Params>, U28, "JH-224") {}
    /// JH-256 (final round-3 version, 42 rounds).
    Jh256(JhCore<Jh256Params>, U32, "JH-256") {}
    /// JH-384 (final round-3 version, 42 rounds).
    Jh384(JhCore<Jh384Params>, U48, "JH-384") {}
    /// JH-512 (final round-3 version, 42 rounds).
    Jh512(JhCore<Jh512Params>, U64, "JH-512") {}
}

/// Runs `F8` on `state` with one 64-byte block and the named variant (for tests).
/// Returns `false` when the variant is unknown or unavailable here.
#[cfg(test)]
pub fn compress_with_variant(name: &str, state: &mut State, block: &[u8; 64]) -> bool {
    Backend::by_name(name)
        .map(|backend| backend.compress(state, block))
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c0_is_the_sqrt2_fraction() {
        // SHA-512's first IV word is the same fraction of √2 (FIPS 180-4 section 5.3.5).
        assert_eq!(
            u64::from_be_bytes(C0[..8].try_into().unwrap()),
            0x6a09_e667_f3bc_c908
        );
    }

    #[test]
    fn every_variant_compresses_alike() {
        let mut start = [0u8; 128];
        for (i, b) in start.iter_mut().enumerate() {
            *b = (i as u8).wrapping_mul(73).wrapping_add(5);
        }
        let block: [u8; 64] = core::array::from_fn(|i| (i * 29 + 3) as u8);
        let mut expected = start;
        assert!(compress_with_variant("sequential", &mut expected, &block));
        for v in Backend::infos() {
            let mut s = start;
            assert_eq!(
                compress_with_variant(v.name, &mut s, &block),
                v.available,
                "{}",
                v.name
            );
            if v.available {
                assert_eq!(s, expected, "{}", v.name);
            }
        }
    }
}
