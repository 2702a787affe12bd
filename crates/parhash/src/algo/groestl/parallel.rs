//! The portable internally parallel form of Grøstl: P and Q computed together.
//!
//! SubBytes and MixBytes are merged into eight 256-entry tables of columns (`TABLES[i][x]` is
//! what an input byte `x` in row `i` contributes to its whole output column), and ShiftBytes is
//! folded into which column each row's byte is read from. Each round of P and the same round of
//! Q sit in one loop body: the two permutations share no data, so a superscalar CPU runs their
//! table lookups and XORs side by side instead of one chain after the other.
#![forbid(unsafe_code)]

use super::{gf_mul, rounds, shifts, State, MIX_ROW, SBOX};

/// `TABLES[i][x]`: column contribution of byte `x` in input row `i`: output row `k` gets
/// `B[k][i] · S(x)` with `B[k][i] = MIX_ROW[(i - k) mod 8]`.
static TABLES: [[u64; 256]; 8] = {
    let mut t = [[0u64; 256]; 8];
    let mut i = 0;
    while i < 8 {
        let mut x = 0;
        while x < 256 {
            let s = SBOX[x];
            let mut col = 0u64;
            let mut k = 0;
            while k < 8 {
                col |= (gf_mul(MIX_ROW[(i + 8 - k) % 8], s) as u64) << (8 * k);
                k += 1;
            }
            t[i][x] = col;
            x += 1;
        }
        i += 1;
    }
    t
};

/// One round of P (`Q = false`) or Q (`Q = true`) on `COLS` columns.
#[inline(always)]
fn round<const COLS: usize, const Q: bool>(a: &mut [u64; COLS], r: usize) {
    let sigma = shifts(COLS, Q);
    let mut t = *a;
    for (c, word) in t.iter_mut().enumerate() {
        let k = ((c << 4) ^ r) as u64;
        // Q also complements every byte: `0xff` everywhere, `k ⊕ 0xff` in row 7.
        *word ^= if Q { !(k << 56) } else { k };
    }
    for (c, out) in a.iter_mut().enumerate() {
        let mut acc = 0;
        for (i, table) in TABLES.iter().enumerate() {
            acc ^= table[(t[(c + sigma[i]) % COLS] >> (8 * i)) as u8 as usize];
        }
        *out = acc;
    }
}

#[inline(always)]
fn compress<const COLS: usize>(state: &mut State, blocks: &[u8]) {
    let mut h = [0u64; COLS];
    h.copy_from_slice(&state[..COLS]);
    for block in blocks.chunks_exact(8 * COLS) {
        let mut m = [0u64; COLS];
        for (w, chunk) in m.iter_mut().zip(block.chunks_exact(8)) {
            *w = u64::from_le_bytes(chunk.try_into().expect("8-byte chunk"));
        }
        let mut p = [0u64; COLS];
        for c in 0..COLS {
            p[c] = h[c] ^ m[c];
        }
        let mut q = m;
        for r in 0..rounds(COLS) {
            round::<COLS, false>(&mut p, r);
            round::<COLS, true>(&mut q, r);
        }
        for c in 0..COLS {
            h[c] ^= p[c] ^ q[c];
        }
    }
    state[..COLS].copy_from_slice(&h);
}

#[inline(always)]
fn output<const COLS: usize>(state: &mut State) {
    let mut p = [0u64; COLS];
    p.copy_from_slice(&state[..COLS]);
    for r in 0..rounds(COLS) {
        round::<COLS, false>(&mut p, r);
    }
    for c in 0..COLS {
        state[c] ^= p[c];
    }
}

/// `h = P(h ⊕ m) ⊕ Q(m) ⊕ h` for each block of `8 * cols` bytes, P and Q interleaved.
#[inline(never)]
pub fn compress_blocks(state: &mut State, blocks: &[u8], cols: usize) {
    assert!(blocks.len() % (8 * cols) == 0);
    if cols == 8 {
        compress::<8>(state, blocks);
    } else {
        compress::<16>(state, blocks);
    }
}

/// `x = P(x) ⊕ x` (the output transformation before truncation).
#[inline(never)]
pub fn output_transform(state: &mut State, cols: usize) {
    if cols == 8 {
        output::<8>(state);
    } else {
        output::<16>(state);
    }
}
