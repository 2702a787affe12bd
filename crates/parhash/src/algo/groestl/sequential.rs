//! The sequential form of Grøstl: portable and literal to the specification (round-3 tweak).
//! Each permutation round is AddRoundConstant, SubBytes, ShiftBytes and MixBytes on an 8-row
//! byte matrix, exactly as written in the Grøstl document; the compression computes P, then Q.
#![forbid(unsafe_code)]

use super::{gf_mul, rounds, shifts, State, MIX_ROW, SBOX};

/// The state matrix: 8 rows of up to 16 columns (the first `cols` are used).
type Matrix = [[u8; 16]; 8];

/// Byte string (byte `k` is row `k mod 8`, column `k / 8`) to matrix.
fn matrix_from_bytes(bytes: &[u8], cols: usize) -> Matrix {
    let mut m = [[0u8; 16]; 8];
    for (k, &b) in bytes[..8 * cols].iter().enumerate() {
        m[k % 8][k / 8] = b;
    }
    m
}

fn matrix_from_state(state: &State, cols: usize) -> Matrix {
    let mut m = [[0u8; 16]; 8];
    for (c, word) in state[..cols].iter().enumerate() {
        for (r, row) in m.iter_mut().enumerate() {
            row[c] = word.to_le_bytes()[r];
        }
    }
    m
}

fn state_from_matrix(m: &Matrix, state: &mut State, cols: usize) {
    for (c, word) in state[..cols].iter_mut().enumerate() {
        let mut bytes = [0u8; 8];
        for (r, b) in bytes.iter_mut().enumerate() {
            *b = m[r][c];
        }
        *word = u64::from_le_bytes(bytes);
    }
}

fn xor(a: &Matrix, b: &Matrix) -> Matrix {
    let mut out = *a;
    for (row, brow) in out.iter_mut().zip(b) {
        for (x, y) in row.iter_mut().zip(brow) {
            *x ^= y;
        }
    }
    out
}

/// AddRoundConstant of round `r`. P: row 0, column `j` gets `(j << 4) ⊕ r`. Q: every byte gets
/// `0xff`, and row 7, column `j` additionally `(j << 4) ⊕ r`.
fn add_round_constant(m: &mut Matrix, cols: usize, r: usize, q: bool) {
    for j in 0..cols {
        let c = ((j << 4) ^ r) as u8;
        if q {
            for row in m.iter_mut() {
                row[j] ^= 0xff;
            }
            m[7][j] ^= c;
        } else {
            m[0][j] ^= c;
        }
    }
}

fn sub_bytes(m: &mut Matrix, cols: usize) {
    for row in m.iter_mut() {
        for b in row[..cols].iter_mut() {
            *b = SBOX[*b as usize];
        }
    }
}

/// Row `i` rotates left by `σ[i]` positions.
fn shift_bytes(m: &mut Matrix, cols: usize, q: bool) {
    let sigma = shifts(cols, q);
    for (row, &s) in m.iter_mut().zip(&sigma) {
        let old = *row;
        for j in 0..cols {
            row[j] = old[(j + s) % cols];
        }
    }
}

/// Each column is multiplied by the circulant matrix `B` in GF(2^8).
fn mix_bytes(m: &mut Matrix, cols: usize) {
    let old = *m;
    for j in 0..cols {
        for (i, row) in m.iter_mut().enumerate() {
            let mut acc = 0u8;
            for (k, old_row) in old.iter().enumerate() {
                acc ^= gf_mul(MIX_ROW[(k + 8 - i) % 8], old_row[j]);
            }
            row[j] = acc;
        }
    }
}

fn permute(m: &mut Matrix, cols: usize, q: bool) {
    for r in 0..rounds(cols) {
        add_round_constant(m, cols, r, q);
        sub_bytes(m, cols);
        shift_bytes(m, cols, q);
        mix_bytes(m, cols);
    }
}

/// `h = P(h ⊕ m) ⊕ Q(m) ⊕ h` for each block of `8 * cols` bytes.
#[inline(never)]
pub fn compress_blocks(state: &mut State, blocks: &[u8], cols: usize) {
    assert!(blocks.len() % (8 * cols) == 0);
    for block in blocks.chunks_exact(8 * cols) {
        let h = matrix_from_state(state, cols);
        let m = matrix_from_bytes(block, cols);
        let mut p = xor(&h, &m);
        permute(&mut p, cols, false);
        let mut q = m;
        permute(&mut q, cols, true);
        state_from_matrix(&xor(&xor(&p, &q), &h), state, cols);
    }
}

/// `x = P(x) ⊕ x` (the output transformation before truncation).
#[inline(never)]
pub fn output_transform(state: &mut State, cols: usize) {
    let x = matrix_from_state(state, cols);
    let mut p = x;
    permute(&mut p, cols, false);
    state_from_matrix(&xor(&p, &x), state, cols);
}
