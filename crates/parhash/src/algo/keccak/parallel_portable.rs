//! The lane-parallel form of Keccak-f\[1600\] in portable Rust: the data flow of the SIMD kernels
//! ([`super::parallel_avx512`], [`super::parallel_avx2`]) on `[u64; 5]` arrays, the fallback
//! where neither is available. The state is five rows (planes) `y`, each holding lanes
//! `x = 0..4`, and every step acts on whole rows:
//!
//! - θ: the column parities are the XOR of the five rows; `D` is that row moved by one lane
//!   each way, one of the two rotated by one bit, and it is XORed into every row;
//! - ρ: each row rotated lane by lane with its five offsets;
//! - π: output row `k` takes lane `x` from row `x`, column `(x + 3k) mod 5`;
//! - χ: each row XOR (NOT the row moved by one lane, AND the row moved by two);
//! - ι: the round constant into lane (0, 0).
//!
//! Where the compiler has no vector form for a step it keeps the lanes in scalar registers;
//! either way the steps are whole-row operations, as in the study's lane parallelism.
#![forbid(unsafe_code)]

use core::array::from_fn;

use super::{RHO, ROUND_CONSTANTS};

/// One plane `y` of the state: lanes `x = 0..4`.
type Row = [u64; 5];

/// ρ's offsets of each row.
const RHO_ROWS: [[u32; 5]; 5] = {
    let mut rows = [[0u32; 5]; 5];
    let mut i = 0;
    while i < 25 {
        rows[i / 5][i % 5] = RHO[i];
        i += 1;
    }
    rows
};

#[inline(always)]
fn xor(a: Row, b: Row) -> Row {
    from_fn(|x| a[x] ^ b[x])
}

/// `!a & b`, lane by lane.
#[inline(always)]
fn andnot(a: Row, b: Row) -> Row {
    from_fn(|x| !a[x] & b[x])
}

/// Lane `x` of the result is lane `x + n (mod 5)` of `row`.
#[inline(always)]
fn lanes_from(row: Row, n: usize) -> Row {
    from_fn(|x| row[(x + n) % 5])
}

/// Each lane rotated left by its own count.
#[inline(always)]
fn rotl(row: Row, counts: &[u32; 5]) -> Row {
    from_fn(|x| row[x].rotate_left(counts[x]))
}

/// One round on whole rows.
#[inline(always)]
fn round(rows: &mut [Row; 5], rc: u64) {
    // θ: C[x] parities; D[x] = C[x - 1] ^ rotl(C[x + 1], 1).
    let c = xor(xor(xor(rows[0], rows[1]), xor(rows[2], rows[3])), rows[4]);
    let d = xor(lanes_from(c, 4), rotl(lanes_from(c, 1), &[1; 5]));
    // θ applied, then ρ.
    let m: [Row; 5] = from_fn(|y| rotl(xor(rows[y], d), &RHO_ROWS[y]));
    // π: B[x, k] = A[(x + 3k) mod 5, x].
    let b: [Row; 5] = from_fn(|k| from_fn(|x| m[x][(x + 3 * k) % 5]));
    // χ along each row.
    for (row, b) in rows.iter_mut().zip(b) {
        *row = xor(b, andnot(lanes_from(b, 1), lanes_from(b, 2)));
    }
    // ι
    rows[0][0] ^= rc;
}

/// Absorbs whole `rate`-byte blocks: XOR each into the state, then permute.
#[inline(never)]
pub fn compress_blocks(state: &mut [u64; 25], blocks: &[u8], rate: usize) {
    debug_assert!(rate.is_multiple_of(8) && rate <= 200 && blocks.len().is_multiple_of(rate));
    let mut rows: [Row; 5] = from_fn(|y| from_fn(|x| state[5 * y + x]));
    for block in blocks.chunks_exact(rate) {
        for (i, bytes) in block.chunks_exact(8).enumerate() {
            rows[i / 5][i % 5] ^= u64::from_le_bytes(bytes.try_into().expect("8-byte chunk"));
        }
        for rc in ROUND_CONSTANTS {
            round(&mut rows, rc);
        }
    }
    for (i, lane) in state.iter_mut().enumerate() {
        *lane = rows[i / 5][i % 5];
    }
}
