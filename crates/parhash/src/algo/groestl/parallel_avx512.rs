//! Grøstl with P and Q computed together in 512-bit registers (AVX-512 + GFNI + VBMI).
//!
//! A register holds 8 columns of the state (one `u64` lane per column, row `r` in byte `r`):
//! Grøstl-224/256 is one register for P and one for Q, Grøstl-384/512 two each. Every step is
//! a handful of whole-register instructions, and the P and Q chains run side by side:
//! - AddRoundConstant: one XOR with a per-round constant vector;
//! - SubBytes: `vgf2p8affineinvqb` (inverse in the AES field, then the AES affine map);
//! - ShiftBytes: a byte permutation, `vpermb` (one register) or `vpermt2b` (two);
//! - MixBytes: rows of a column are bytes of a lane, so "row `i + k`" is the lane rotated right
//!   by `8k` bits (`vprorq`). `B`'s coefficients `{2,2,3,4,5,3,5,7}` split into the bits 1, 2
//!   and 4, so `y = A ⊕ 2·(B ⊕ 2·C)` with `A`, `B`, `C` XORs of rotated copies
//!   (`vpternlogq`) and two `vgf2p8mulb` by 2.
#![deny(unsafe_op_in_unsafe_fn)]

use core::arch::x86_64::*;

use super::{rounds, shifts, State};
use crate::platform::{Avx512, Gfni};

/// `vpternlogq` truth table of a three-way XOR.
const XOR3: i32 = 0x96;

/// The AES affine map as a GFNI matrix: output bit `i` is the parity of `x` masked with byte
/// `7 - i`; row `i` selects input bits `i, i+4, i+5, i+6, i+7 (mod 8)`.
const AES_AFFINE: i64 = {
    let mut m = 0u64;
    let mut i = 0;
    while i < 8 {
        let row = (1u8 << i)
            | (1u8 << ((i + 4) % 8))
            | (1u8 << ((i + 5) % 8))
            | (1u8 << ((i + 6) % 8))
            | (1u8 << ((i + 7) % 8));
        m |= (row as u64) << (8 * (7 - i));
        i += 1;
    }
    m as i64
};

/// `vpermb`/`vpermt2b` index for ShiftBytes: output byte `(col c, row r)` reads column
/// `(c + σ[r]) mod cols` of row `r`. Entry `reg * 64 + i` is the index of output byte `i` of
/// output register `reg`; indices 64..127 address the second source register.
const fn shift_index(cols: usize, q: bool) -> [u8; 128] {
    let sigma = shifts(cols, q);
    let mut idx = [0u8; 128];
    let mut c = 0;
    while c < cols {
        let mut r = 0;
        while r < 8 {
            let src = (c + sigma[r]) % cols;
            idx[8 * c + r] = (8 * src + r) as u8;
            r += 1;
        }
        c += 1;
    }
    idx
}

const SHIFT_P8: [u8; 128] = shift_index(8, false);
const SHIFT_Q8: [u8; 128] = shift_index(8, true);
const SHIFT_P16: [u8; 128] = shift_index(16, false);
const SHIFT_Q16: [u8; 128] = shift_index(16, true);

/// Loads 64 bytes.
#[inline]
#[target_feature(enable = "avx512f")]
fn load(bytes: &[u8; 64]) -> __m512i {
    // SAFETY: reads exactly the 64 bytes of the array (unaligned load).
    unsafe { _mm512_loadu_si512(bytes.as_ptr().cast()) }
}

/// SubBytes: the AES S-box on all 64 bytes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn sub_bytes(x: __m512i) -> __m512i {
    _mm512_gf2p8affineinv_epi64_epi8::<0x63>(x, _mm512_set1_epi64(AES_AFFINE))
}

/// MixBytes on 8 columns.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,gfni")]
fn mix_bytes(x: __m512i) -> __m512i {
    let two = _mm512_set1_epi8(2);
    let r1 = _mm512_ror_epi64::<8>(x);
    let r2 = _mm512_ror_epi64::<16>(x);
    let r3 = _mm512_ror_epi64::<24>(x);
    let r4 = _mm512_ror_epi64::<32>(x);
    let r5 = _mm512_ror_epi64::<40>(x);
    let r6 = _mm512_ror_epi64::<48>(x);
    let r7 = _mm512_ror_epi64::<56>(x);
    // Coefficient bit 1 (x1): k = 2, 4, 5, 6, 7; bit 2 (x2): k = 0, 1, 2, 5, 7;
    // bit 4 (x4): k = 3, 4, 6, 7.
    let u = _mm512_ternarylogic_epi64::<XOR3>(r4, r6, r7);
    let v = _mm512_xor_si512(r2, r5);
    let a = _mm512_xor_si512(u, v);
    let b = _mm512_ternarylogic_epi64::<XOR3>(x, r1, _mm512_xor_si512(v, r7));
    let c = _mm512_xor_si512(u, r3);
    let b2c = _mm512_xor_si512(b, _mm512_gf2p8mul_epi8(c, two));
    _mm512_xor_si512(a, _mm512_gf2p8mul_epi8(b2c, two))
}

/// Round constant vectors of round `r`: P adds `(c << 4) ⊕ r` to row 0 of column `c`; Q
/// complements everything and adds the same value to row 7.
#[inline]
#[target_feature(enable = "avx512f")]
fn round_constants(first_col: u64, r: u64) -> (__m512i, __m512i) {
    let cols = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    let c = _mm512_add_epi64(cols, _mm512_set1_epi64(first_col as i64));
    let k = _mm512_xor_si512(_mm512_slli_epi64::<4>(c), _mm512_set1_epi64(r as i64));
    let q = _mm512_xor_si512(_mm512_slli_epi64::<56>(k), _mm512_set1_epi64(-1));
    (k, q)
}

/// P and Q on 8 columns (one register each); `q` is `None` for the output transformation.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn permute8(mut p: __m512i, mut q: Option<__m512i>) -> (__m512i, Option<__m512i>) {
    let sp = load(SHIFT_P8[..64].try_into().expect("64 bytes"));
    let sq = load(SHIFT_Q8[..64].try_into().expect("64 bytes"));
    for r in 0..rounds(8) {
        let (kp, kq) = round_constants(0, r as u64);
        p = mix_bytes(_mm512_permutexvar_epi8(
            sp,
            sub_bytes(_mm512_xor_si512(p, kp)),
        ));
        if let Some(qv) = q.as_mut() {
            *qv = mix_bytes(_mm512_permutexvar_epi8(
                sq,
                sub_bytes(_mm512_xor_si512(*qv, kq)),
            ));
        }
    }
    (p, q)
}

/// ShiftBytes, SubBytes and MixBytes of one 16-column permutation held in `(lo, hi)`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn round16(
    lo: __m512i,
    hi: __m512i,
    klo: __m512i,
    khi: __m512i,
    idx: [__m512i; 2],
) -> [__m512i; 2] {
    let slo = sub_bytes(_mm512_xor_si512(lo, klo));
    let shi = sub_bytes(_mm512_xor_si512(hi, khi));
    [
        mix_bytes(_mm512_permutex2var_epi8(slo, idx[0], shi)),
        mix_bytes(_mm512_permutex2var_epi8(slo, idx[1], shi)),
    ]
}

/// P and Q on 16 columns (two registers each).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
fn permute16(
    mut p: [__m512i; 2],
    mut q: Option<[__m512i; 2]>,
) -> ([__m512i; 2], Option<[__m512i; 2]>) {
    let sp = [
        load(SHIFT_P16[..64].try_into().expect("64 bytes")),
        load(SHIFT_P16[64..].try_into().expect("64 bytes")),
    ];
    let sq = [
        load(SHIFT_Q16[..64].try_into().expect("64 bytes")),
        load(SHIFT_Q16[64..].try_into().expect("64 bytes")),
    ];
    for r in 0..rounds(16) {
        let (kp_lo, kq_lo) = round_constants(0, r as u64);
        let (kp_hi, kq_hi) = round_constants(8, r as u64);
        p = round16(p[0], p[1], kp_lo, kp_hi, sp);
        if let Some(qv) = q.as_mut() {
            *qv = round16(qv[0], qv[1], kq_lo, kq_hi, sq);
        }
    }
    (p, q)
}

/// Eight state words (columns) into one register.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_words(words: &[u64]) -> __m512i {
    let mut bytes = [0u8; 64];
    for (chunk, w) in bytes.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    load(&bytes)
}

#[inline]
#[target_feature(enable = "avx512f")]
fn store_words(v: __m512i, words: &mut [u64]) {
    let mut bytes = [0u8; 64];
    // SAFETY: writes exactly the 64 bytes of the local array (unaligned store).
    unsafe { _mm512_storeu_si512(bytes.as_mut_ptr().cast(), v) };
    for (chunk, w) in bytes.chunks_exact(8).zip(words.iter_mut()) {
        *w = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
    }
}

/// # Safety
/// The CPU must support AVX-512 F/BW/VBMI and GFNI; `blocks.len()` a multiple of `8 * cols`.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
unsafe fn compress_avx512(state: &mut State, blocks: &[u8], cols: usize) {
    if cols == 8 {
        let mut h = load_words(&state[..8]);
        for block in blocks.chunks_exact(64) {
            let m = load(block.try_into().expect("64-byte block"));
            let (p, q) = permute8(_mm512_xor_si512(h, m), Some(m));
            h = _mm512_ternarylogic_epi64::<XOR3>(h, p, q.expect("Q computed"));
        }
        store_words(h, &mut state[..8]);
    } else {
        let mut h = [load_words(&state[..8]), load_words(&state[8..16])];
        for block in blocks.chunks_exact(128) {
            let m = [
                load(block[..64].try_into().expect("64 bytes")),
                load(block[64..].try_into().expect("64 bytes")),
            ];
            let pin = [_mm512_xor_si512(h[0], m[0]), _mm512_xor_si512(h[1], m[1])];
            let (p, q) = permute16(pin, Some(m));
            let q = q.expect("Q computed");
            h = [
                _mm512_ternarylogic_epi64::<XOR3>(h[0], p[0], q[0]),
                _mm512_ternarylogic_epi64::<XOR3>(h[1], p[1], q[1]),
            ];
        }
        store_words(h[0], &mut state[..8]);
        store_words(h[1], &mut state[8..16]);
    }
}

/// # Safety
/// The CPU must support AVX-512 F/BW/VBMI and GFNI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
unsafe fn output_avx512(state: &mut State, cols: usize) {
    if cols == 8 {
        let x = load_words(&state[..8]);
        let (p, _) = permute8(x, None);
        store_words(_mm512_xor_si512(p, x), &mut state[..8]);
    } else {
        let x = [load_words(&state[..8]), load_words(&state[8..16])];
        let (p, _) = permute16(x, None);
        store_words(_mm512_xor_si512(p[0], x[0]), &mut state[..8]);
        store_words(_mm512_xor_si512(p[1], x[1]), &mut state[8..16]);
    }
}

/// `h = P(h ⊕ m) ⊕ Q(m) ⊕ h` for each block of `8 * cols` bytes, P and Q side by side.
#[inline(never)]
pub fn compress_blocks(avx512: Avx512, gfni: Gfni, state: &mut State, blocks: &[u8], cols: usize) {
    let _ = (avx512, gfni);
    assert!((cols == 8 || cols == 16) && blocks.len() % (8 * cols) == 0);
    // SAFETY: the `Avx512` and `Gfni` tokens prove AVX-512 F/BW, VBMI and GFNI are present and
    // not switched off; the length precondition is asserted above.
    unsafe { compress_avx512(state, blocks, cols) }
}

/// `x = P(x) ⊕ x` (the output transformation before truncation).
#[inline(never)]
pub fn output_transform(avx512: Avx512, gfni: Gfni, state: &mut State, cols: usize) {
    let _ = (avx512, gfni);
    assert!(cols == 8 || cols == 16);
    // SAFETY: the tokens prove AVX-512 F/BW, VBMI and GFNI are present and not switched off.
    unsafe { output_avx512(state, cols) }
}
