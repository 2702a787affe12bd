//! The byte-wise reference form of Whirlpool's compression function, literal to the
//! specification: the state and the key are 8x8 byte matrices, each round applies SubBytes (γ),
//! ShiftColumns (π), MixRows (θ) and AddRoundKey (σ) as separate steps. Never used for speed:
//! it is the oracle the fused form is tested against.
#![forbid(unsafe_code)]

use super::{gf_mul, MDS_ROW, ROUNDS, SBOX};

/// An 8x8 matrix of bytes, `m[row][column]`.
type Matrix = [[u8; 8]; 8];

/// γ: the S-box applied to every byte.
fn sub_bytes(a: &Matrix) -> Matrix {
    a.map(|row| row.map(|x| SBOX[x as usize]))
}

/// π: column `j` rotated down by `j` positions, `b[i][j] = a[(i - j) mod 8][j]`.
fn shift_columns(a: &Matrix) -> Matrix {
    let mut b = [[0u8; 8]; 8];
    for (i, row) in b.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            *cell = a[(i + 8 - j) % 8][j];
        }
    }
    b
}

/// θ: every row multiplied by the circulant MDS matrix, `b = a · C` over GF(2^8).
fn mix_rows(a: &Matrix) -> Matrix {
    let mut b = [[0u8; 8]; 8];
    for (i, row) in b.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            for k in 0..8 {
                *cell ^= gf_mul(a[i][k], MDS_ROW[(j + 8 - k) % 8]);
            }
        }
    }
    b
}

/// σ\[k\]: XOR with the round key.
fn add_round_key(a: &Matrix, k: &Matrix) -> Matrix {
    let mut b = *a;
    for (row, key_row) in b.iter_mut().zip(k.iter()) {
        for (cell, key) in row.iter_mut().zip(key_row.iter()) {
            *cell ^= key;
        }
    }
    b
}

/// The round function `ρ[k] = σ[k] ∘ θ ∘ π ∘ γ`.
fn round(a: &Matrix, k: &Matrix) -> Matrix {
    add_round_key(&mix_rows(&shift_columns(&sub_bytes(a))), k)
}

/// Round constant `c^r` (r = 1..10): row 0 is `S[8(r - 1) + j]`, the other rows zero.
fn round_constant(r: usize) -> Matrix {
    let mut c = [[0u8; 8]; 8];
    for (j, cell) in c[0].iter_mut().enumerate() {
        *cell = SBOX[8 * (r - 1) + j];
    }
    c
}

/// The block cipher W: `W[K](η) = ρ[K^10] ∘ ... ∘ ρ[K^1] ∘ σ[K^0](η)`, with the key schedule
/// `K^0 = K`, `K^r = ρ[c^r](K^(r-1))`.
fn w(key: &Matrix, plaintext: &Matrix) -> Matrix {
    let mut k = *key;
    let mut state = add_round_key(plaintext, &k);
    for r in 1..=ROUNDS {
        k = round(&k, &round_constant(r));
        state = round(&state, &k);
    }
    state
}

fn to_matrix(bytes: impl Iterator<Item = u8>) -> Matrix {
    let mut m = [[0u8; 8]; 8];
    for (cell, byte) in m.iter_mut().flatten().zip(bytes) {
        *cell = byte;
    }
    m
}

/// Compresses whole 64-byte blocks with the Miyaguchi-Preneel construction
/// `H_i = W[H_(i-1)](m_i) ^ H_(i-1) ^ m_i`. Message byte `8i + j` is matrix entry `[i][j]`;
/// `state` holds the rows read big-endian.
#[inline(never)]
pub fn compress_blocks(state: &mut [u64; 8], blocks: &[[u8; 64]]) {
    let mut h = to_matrix(state.iter().flat_map(|row| row.to_be_bytes()));
    for block in blocks {
        let m = to_matrix(block.iter().copied());
        h = add_round_key(&add_round_key(&w(&h, &m), &h), &m);
    }
    for (row, bytes) in state.iter_mut().zip(h.iter()) {
        *row = u64::from_be_bytes(*bytes);
    }
}
