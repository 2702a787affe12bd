//! Grøstl with the state held as rows in 128-bit registers and SubBytes done by AES-NI.
//!
//! For CPUs with AES-NI but without GFNI (every x86-64 since 2011 that `parallel-avx512` cannot
//! use). The table form spends most of its time extracting bytes to index tables; here every
//! step is whole-register work:
//! - Layout: register `i` holds row `i` of the matrix, one byte per column. Grøstl-224/256
//!   (8 columns) packs row `i` of P in the low half and row `i` of Q in the high half, so one
//!   pass of eight registers runs both permutations; Grøstl-384/512 (16 columns) fills a
//!   register with one row and runs P, then Q.
//! - SubBytes: `aesenclast` with a zero key is the AES S-box on every byte followed by AES
//!   ShiftRows, a fixed byte permutation inside the register.
//! - ShiftBytes: rotating a row is a byte permutation inside its register too, so one `pshufb`
//!   per register undoes ShiftRows and applies ShiftBytes at once.
//! - MixBytes: "row `i + j`" is just register `i + j`, so it is XORs of whole registers and
//!   two doublings in GF(2^8) per row (`y = A ⊕ 2·(B ⊕ 2·C)`, as in `parallel_avx512`).
//! - The chaining value stays in row form across blocks; only each message block is transposed
//!   (an 8x8 byte transpose: four `pshufb`, eight unpacks).
#![deny(unsafe_op_in_unsafe_fn)]

use core::arch::x86_64::*;

use super::{rounds, shifts, State};
use crate::platform::AesNi;

/// AES ShiftRows as a gather: output byte `j` of `aesenclast` comes from input byte `SR[j]`
/// (AES state byte `4·column + row`; row `r` moves left by `r` columns).
const AES_SHIFT_ROWS: [usize; 16] = [0, 5, 10, 15, 4, 9, 14, 3, 8, 13, 2, 7, 12, 1, 6, 11];

/// The `pshufb` index that follows `aesenclast`: output byte `j` is the S-box of input byte
/// `gather[j]`, which `aesenclast` left at the position where ShiftRows sends byte `gather[j]`.
const fn after_aes(gather: [usize; 16]) -> [u8; 16] {
    let mut where_sent = [0usize; 16];
    let mut j = 0;
    while j < 16 {
        where_sent[AES_SHIFT_ROWS[j]] = j;
        j += 1;
    }
    let mut idx = [0u8; 16];
    let mut j = 0;
    while j < 16 {
        idx[j] = where_sent[gather[j]] as u8;
        j += 1;
    }
    idx
}

/// Row `row` of 8 columns, P in the low half and Q in the high half: the byte of column `c`
/// comes from column `c + σ[row]` (mod 8) of its own half.
const fn packed8_shuffle(row: usize) -> [u8; 16] {
    let (sp, sq) = (shifts(8, false)[row], shifts(8, true)[row]);
    let mut g = [0usize; 16];
    let mut c = 0;
    while c < 8 {
        g[c] = (c + sp) % 8;
        g[8 + c] = 8 + (c + sq) % 8;
        c += 1;
    }
    after_aes(g)
}

/// Row `row` of 16 columns of P or Q.
const fn row16_shuffle(row: usize, q: bool) -> [u8; 16] {
    let s = shifts(16, q)[row];
    let mut g = [0usize; 16];
    let mut c = 0;
    while c < 16 {
        g[c] = (c + s) % 16;
        c += 1;
    }
    after_aes(g)
}

/// The eight rows' shuffles of one layout: `packed` 8 columns, or 16 columns of P or Q.
const fn shuffles(packed: bool, q: bool) -> [[u8; 16]; 8] {
    let mut t = [[0u8; 16]; 8];
    let mut i = 0;
    while i < 8 {
        t[i] = if packed {
            packed8_shuffle(i)
        } else {
            row16_shuffle(i, q)
        };
        i += 1;
    }
    t
}

static SHUFFLE_PACKED8: [[u8; 16]; 8] = shuffles(true, false);
static SHUFFLE_P16: [[u8; 16]; 8] = shuffles(false, false);
static SHUFFLE_Q16: [[u8; 16]; 8] = shuffles(false, true);

/// AddRoundConstant of 16 columns as byte vectors: P adds `(c << 4) ⊕ r` to row 0 of column
/// `c`; Q complements every byte and adds the same value to row 7. Entry `r` is round `r`'s
/// constant of that row (P's row 0, or Q's row 7); the other rows get `0` (P) and `0xff` (Q).
const fn row16_constants(q: bool) -> [[u8; 16]; rounds(16)] {
    let mut t = [[0u8; 16]; rounds(16)];
    let mut r = 0;
    while r < rounds(16) {
        let mut c = 0;
        while c < 16 {
            let k = ((c << 4) ^ r) as u8;
            t[r][c] = if q { 0xff ^ k } else { k };
            c += 1;
        }
        r += 1;
    }
    t
}

/// Packed 8 columns, rows 0 and 7 of round `r`: row 0 carries P's constant (low half) and Q's
/// complement (high half), row 7 nothing for P and Q's constant.
const fn packed8_rows(row: usize) -> [[u8; 16]; rounds(8)] {
    let mut t = [[0u8; 16]; rounds(8)];
    let mut r = 0;
    while r < rounds(8) {
        let mut c = 0;
        while c < 8 {
            let k = ((c << 4) ^ r) as u8;
            (t[r][c], t[r][8 + c]) = if row == 0 { (k, 0xff) } else { (0, 0xff ^ k) };
            c += 1;
        }
        r += 1;
    }
    t
}

static PACKED8_ROW0: [[u8; 16]; rounds(8)] = packed8_rows(0);
static PACKED8_ROW7: [[u8; 16]; rounds(8)] = packed8_rows(7);
static P16_ROW0: [[u8; 16]; rounds(16)] = row16_constants(false);
static Q16_ROW7: [[u8; 16]; rounds(16)] = row16_constants(true);

/// Rows of a state or block.
type Rows = [__m128i; 8];

/// Loads 16 bytes.
#[inline]
fn load16(bytes: &[u8; 16]) -> __m128i {
    // SAFETY: reads exactly the 16 bytes of the array (unaligned load; SSE2 is baseline).
    unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
}

/// Loads 64 bytes of columns (8 columns, row `r` in byte `r` of each 8-byte column).
#[inline]
#[target_feature(enable = "sse2")]
fn load_columns(bytes: &[u8]) -> [__m128i; 4] {
    let mut v = [_mm_setzero_si128(); 4];
    for (x, chunk) in v.iter_mut().zip(bytes.chunks_exact(16)) {
        *x = load16(chunk.try_into().expect("16 bytes"));
    }
    v
}

fn words_to_bytes(words: &[u64]) -> [u8; 64] {
    let mut bytes = [0u8; 64];
    for (chunk, w) in bytes.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    bytes
}

fn state_bytes16(state: &State) -> [u8; 128] {
    let mut bytes = [0u8; 128];
    bytes[..64].copy_from_slice(&words_to_bytes(&state[..8]));
    bytes[64..].copy_from_slice(&words_to_bytes(&state[8..16]));
    bytes
}

#[target_feature(enable = "sse2")]
fn store_columns(v: [__m128i; 4], words: &mut [u64]) {
    let mut bytes = [0u8; 64];
    for (x, chunk) in v.iter().zip(bytes.chunks_exact_mut(16)) {
        // SAFETY: writes exactly the 16 bytes of the chunk (unaligned store; SSE2 is baseline).
        unsafe { _mm_storeu_si128(chunk.as_mut_ptr().cast(), *x) };
    }
    for (chunk, w) in bytes.chunks_exact(8).zip(words.iter_mut()) {
        *w = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
    }
}

/// Transposes an 8x8 byte matrix held as four registers of two 8-byte units each
/// (`[unit 2k | unit 2k+1]`): columns to rows and, the same steps, rows to columns.
#[inline]
#[target_feature(enable = "avx,ssse3")]
fn transpose(x: [__m128i; 4]) -> [__m128i; 4] {
    // Interleave each register's two units byte by byte: 16-bit pairs (unit 2k, unit 2k+1).
    let pairs = _mm_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    let y0 = _mm_shuffle_epi8(x[0], pairs);
    let y1 = _mm_shuffle_epi8(x[1], pairs);
    let y2 = _mm_shuffle_epi8(x[2], pairs);
    let y3 = _mm_shuffle_epi8(x[3], pairs);
    // 32-bit groups of units 0-3 (z0: bytes 0-3, z1: bytes 4-7) and units 4-7 (z2, z3).
    let z0 = _mm_unpacklo_epi16(y0, y1);
    let z1 = _mm_unpackhi_epi16(y0, y1);
    let z2 = _mm_unpacklo_epi16(y2, y3);
    let z3 = _mm_unpackhi_epi16(y2, y3);
    [
        _mm_unpacklo_epi32(z0, z2),
        _mm_unpackhi_epi32(z0, z2),
        _mm_unpacklo_epi32(z1, z3),
        _mm_unpackhi_epi32(z1, z3),
    ]
}

/// Multiplication by 2 in GF(2^8) on every byte.
#[inline]
#[target_feature(enable = "avx")]
fn double(x: __m128i) -> __m128i {
    let high = _mm_cmpgt_epi8(_mm_setzero_si128(), x);
    _mm_xor_si128(_mm_add_epi8(x, x), _mm_and_si128(high, _mm_set1_epi8(0x1b)))
}

/// MixBytes on row registers: row `i` becomes `Σ_j MIX_ROW[j]·a[i + j]`. The coefficients
/// `{2,2,3,4,5,3,5,7}` split into the bits 1 (`A`: j = 2,4,5,6,7), 2 (`B`: j = 0,1,2,5,7) and 4
/// (`C`: j = 3,4,6,7), computed from the neighbour sums `s[i] = a[i] ⊕ a[i+1]`.
#[inline]
#[target_feature(enable = "avx")]
fn mix_bytes(a: Rows) -> Rows {
    let mut s = a;
    for i in 0..8 {
        s[i] = _mm_xor_si128(a[i], a[(i + 1) % 8]);
    }
    let mut out = a;
    for i in 0..8 {
        // f = a[i+2] ⊕ a[i+6] ⊕ a[i+7], shared by A and B.
        let f = _mm_xor_si128(a[(i + 2) % 8], s[(i + 6) % 8]);
        let big_a = _mm_xor_si128(f, s[(i + 4) % 8]);
        let big_b = _mm_xor_si128(_mm_xor_si128(f, s[i]), s[(i + 5) % 8]);
        let big_c = _mm_xor_si128(s[(i + 3) % 8], s[(i + 6) % 8]);
        out[i] = _mm_xor_si128(big_a, double(_mm_xor_si128(big_b, double(big_c))));
    }
    out
}

/// SubBytes and ShiftBytes of one row: the S-box by `aesenclast`, then one shuffle that undoes
/// ShiftRows and rotates the row.
#[inline]
#[target_feature(enable = "aes,avx,ssse3")]
fn sub_shift(x: __m128i, shuffle: __m128i) -> __m128i {
    _mm_shuffle_epi8(_mm_aesenclast_si128(x, _mm_setzero_si128()), shuffle)
}

/// The rounds of one permutation on row registers. `row0[r]` and `row7[r]` are round `r`'s
/// constants of rows 0 and 7, `middle` the constant of rows 1 to 6 (`None`: zero).
#[inline]
#[target_feature(enable = "aes,avx,ssse3")]
fn permute(
    mut a: Rows,
    row0: &[[u8; 16]],
    row7: &[[u8; 16]],
    middle: Option<__m128i>,
    shuffles: &[[u8; 16]; 8],
) -> Rows {
    let mut shuffle = [_mm_setzero_si128(); 8];
    for (v, s) in shuffle.iter_mut().zip(shuffles) {
        *v = load16(s);
    }
    for (k0, k7) in row0.iter().zip(row7) {
        a[0] = _mm_xor_si128(a[0], load16(k0));
        a[7] = _mm_xor_si128(a[7], load16(k7));
        if let Some(m) = middle {
            for x in &mut a[1..7] {
                *x = _mm_xor_si128(*x, m);
            }
        }
        for (x, s) in a.iter_mut().zip(shuffle) {
            *x = sub_shift(*x, s);
        }
        a = mix_bytes(a);
    }
    a
}

/// 8 columns: the rows of P (low halves) and Q (high halves) as one permutation pass.
#[inline]
#[target_feature(enable = "aes,avx,ssse3")]
fn permute_packed8(a: Rows) -> Rows {
    let q_only = _mm_set_epi64x(-1, 0);
    permute(
        a,
        &PACKED8_ROW0,
        &PACKED8_ROW7,
        Some(q_only),
        &SHUFFLE_PACKED8,
    )
}

/// Registers `[row 2k | row 2k+1]` of two 8-row halves to one register per packed row
/// (`lo` rows in the low half, `hi` rows in the high half).
#[inline]
#[target_feature(enable = "avx")]
fn pack(lo: [__m128i; 4], hi: [__m128i; 4]) -> Rows {
    let mut rows = [_mm_setzero_si128(); 8];
    for k in 0..4 {
        rows[2 * k] = _mm_unpacklo_epi64(lo[k], hi[k]);
        rows[2 * k + 1] = _mm_unpackhi_epi64(lo[k], hi[k]);
    }
    rows
}

/// The inverse of [`pack`].
#[inline]
#[target_feature(enable = "avx")]
fn unpack(rows: Rows) -> ([__m128i; 4], [__m128i; 4]) {
    let mut lo = [_mm_setzero_si128(); 4];
    let mut hi = [_mm_setzero_si128(); 4];
    for k in 0..4 {
        lo[k] = _mm_unpacklo_epi64(rows[2 * k], rows[2 * k + 1]);
        hi[k] = _mm_unpackhi_epi64(rows[2 * k], rows[2 * k + 1]);
    }
    (lo, hi)
}

#[target_feature(enable = "aes,avx,ssse3")]
fn compress8(state: &mut State, blocks: &[u8]) {
    // h in row pairs: h[k] = [row 2k | row 2k+1].
    let mut h = transpose(load_columns(&words_to_bytes(&state[..8])));
    for block in blocks.chunks_exact(64) {
        let m = transpose(load_columns(block));
        let mut p_in = h;
        for (x, y) in p_in.iter_mut().zip(m) {
            *x = _mm_xor_si128(*x, y);
        }
        let (p, q) = unpack(permute_packed8(pack(p_in, m)));
        for k in 0..4 {
            h[k] = _mm_xor_si128(h[k], _mm_xor_si128(p[k], q[k]));
        }
    }
    store_columns(transpose(h), &mut state[..8]);
}

#[target_feature(enable = "aes,avx,ssse3")]
fn output8(state: &mut State) {
    let x = transpose(load_columns(&words_to_bytes(&state[..8])));
    // Q's half carries a copy and is dropped: P alone costs the same instructions.
    let (p, _) = unpack(permute_packed8(pack(x, x)));
    let mut out = x;
    for k in 0..4 {
        out[k] = _mm_xor_si128(x[k], p[k]);
    }
    store_columns(transpose(out), &mut state[..8]);
}

/// 128 bytes of columns to 8 rows of 16 bytes.
#[inline]
#[target_feature(enable = "avx,ssse3")]
fn rows16(bytes: &[u8]) -> Rows {
    let left = transpose(load_columns(&bytes[..64]));
    let right = transpose(load_columns(&bytes[64..128]));
    pack(left, right)
}

#[inline]
#[target_feature(enable = "avx,ssse3")]
fn store_rows16(rows: Rows, words: &mut [u64]) {
    let (left, right) = unpack(rows);
    store_columns(transpose(left), &mut words[..8]);
    store_columns(transpose(right), &mut words[8..16]);
}

#[inline]
#[target_feature(enable = "aes,avx,ssse3")]
fn permute_p16(a: Rows) -> Rows {
    let zero = [[0u8; 16]; rounds(16)];
    permute(a, &P16_ROW0, &zero, None, &SHUFFLE_P16)
}

#[inline]
#[target_feature(enable = "aes,avx,ssse3")]
fn permute_q16(a: Rows) -> Rows {
    let ones = [[0xffu8; 16]; rounds(16)];
    permute(a, &ones, &Q16_ROW7, Some(_mm_set1_epi8(-1)), &SHUFFLE_Q16)
}

#[target_feature(enable = "aes,avx,ssse3")]
fn compress16(state: &mut State, blocks: &[u8]) {
    crate::platform::align_frame();
    let mut h = rows16(&state_bytes16(state));
    for block in blocks.chunks_exact(128) {
        let m = rows16(block);
        let mut p = h;
        for (x, y) in p.iter_mut().zip(m) {
            *x = _mm_xor_si128(*x, y);
        }
        let p = permute_p16(p);
        let q = permute_q16(m);
        for i in 0..8 {
            h[i] = _mm_xor_si128(h[i], _mm_xor_si128(p[i], q[i]));
        }
    }
    store_rows16(h, &mut state[..16]);
}

#[target_feature(enable = "aes,avx,ssse3")]
fn output16(state: &mut State) {
    crate::platform::align_frame();
    let x = rows16(&state_bytes16(state));
    let p = permute_p16(x);
    let mut out = x;
    for i in 0..8 {
        out[i] = _mm_xor_si128(x[i], p[i]);
    }
    store_rows16(out, &mut state[..16]);
}

/// `h = P(h ⊕ m) ⊕ Q(m) ⊕ h` for each block of `8 * cols` bytes.
#[inline(never)]
pub fn compress_blocks(aes: AesNi, state: &mut State, blocks: &[u8], cols: usize) {
    let _ = aes;
    assert!((cols == 8 || cols == 16) && blocks.len() % (8 * cols) == 0);
    // SAFETY: the `AesNi` token proves AES-NI, AVX and SSSE3 are present and not switched off.
    unsafe {
        if cols == 8 {
            compress8(state, blocks)
        } else {
            compress16(state, blocks)
        }
    }
}

/// `x = P(x) ⊕ x` (the output transformation before truncation).
#[inline(never)]
pub fn output_transform(aes: AesNi, state: &mut State, cols: usize) {
    let _ = aes;
    assert!(cols == 8 || cols == 16);
    // SAFETY: the `AesNi` token proves AES-NI, AVX and SSSE3 are present and not switched off.
    unsafe {
        if cols == 8 {
            output8(state)
        } else {
            output16(state)
        }
    }
}
