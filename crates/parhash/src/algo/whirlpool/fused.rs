//! The fused form of Whirlpool's compression function (seed study 2): each row of the state is
//! one `u64` (column 0 in the high byte). γ, π and θ together map input byte `a[(i - k) mod 8][k]`
//! to a whole output row `S[a] · (row k of C)`, so one round is, per output row, eight table
//! lookups XORed together with the round key. The eight tables (16 KiB, resident in L1) are
//! built at compile time from the S-box and the MDS matrix.
#![forbid(unsafe_code)]

use super::{gf_mul, MDS_ROW, ROUNDS, ROUND_CONSTANTS, SBOX};

/// `TABLES[k][x]`: the row whose column `j` is `S[x] · C[k][j] = S[x] · MDS_ROW[(j - k) mod 8]`.
pub(super) static TABLES: [[u64; 256]; 8] = {
    let mut t = [[0u64; 256]; 8];
    let mut k = 0;
    while k < 8 {
        let mut x = 0;
        while x < 256 {
            let s = SBOX[x];
            let mut row = 0u64;
            let mut j = 0;
            while j < 8 {
                row = (row << 8) | gf_mul(s, MDS_ROW[(j + 8 - k) % 8]) as u64;
                j += 1;
            }
            t[k][x] = row;
            x += 1;
        }
        k += 1;
    }
    t
};

/// `ρ[key](a)` on rows: output row i gathers byte k of input row `(i - k) mod 8` (π), each
/// through table k (γ and θ), and the key row (σ).
#[inline(always)]
fn round(a: &[u64; 8], key: &[u64; 8]) -> [u64; 8] {
    let mut out = *key;
    for (i, o) in out.iter_mut().enumerate() {
        for (k, table) in TABLES.iter().enumerate() {
            let byte = (a[(i + 8 - k) % 8] >> (56 - 8 * k)) as u8;
            *o ^= table[byte as usize];
        }
    }
    out
}

/// Compresses whole 64-byte blocks: `H_i = W[H_(i-1)](m_i) ^ H_(i-1) ^ m_i`, with the key
/// schedule run alongside the data rounds.
#[inline(never)]
pub fn compress_blocks(state: &mut [u64; 8], blocks: &[[u8; 64]]) {
    for block in blocks {
        let mut m = [0u64; 8];
        for (row, bytes) in m.iter_mut().zip(block.chunks_exact(8)) {
            *row = u64::from_be_bytes(bytes.try_into().expect("8-byte row"));
        }
        let mut key = *state;
        let mut s = [0u64; 8];
        for i in 0..8 {
            s[i] = m[i] ^ key[i];
        }
        for rc in ROUND_CONSTANTS.iter().take(ROUNDS) {
            let mut round_key = [0u64; 8];
            round_key[0] = *rc;
            key = round(&key, &round_key);
            s = round(&s, &key);
        }
        for i in 0..8 {
            state[i] ^= s[i] ^ m[i];
        }
    }
}
