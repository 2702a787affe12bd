//! The sequential form of Keccak-f[1600]: portable, scalar, literal to FIPS 202 section 3.2
//! (θ, ρ, π, χ, ι on 25 64-bit lanes). Every index and rotation is a compile-time constant, and
//! the 25 lanes live in local variables, so the compiler keeps them in registers and unrolls
//! each step completely.
#![forbid(unsafe_code)]

use super::{RHO, ROUND_CONSTANTS};

/// Lane index of `A[x, y]` (FIPS 202: lane `(x, y)` is word `x + 5y` of the state).
const fn lane(x: usize, y: usize) -> usize {
    x + 5 * y
}

/// π as a gather: `B[x, y] = A[(x + 3y) mod 5, x]` (FIPS 202 Algorithm 3, solved for the source).
const fn pi_source(dst: usize) -> usize {
    let (x, y) = (dst % 5, dst / 5);
    lane((x + 3 * y) % 5, x)
}

/// One round `Rnd(A, ir)` (FIPS 202 section 3.3).
#[inline(always)]
fn round(a: &mut [u64; 25], rc: u64) {
    // θ: each lane absorbs the parities of two neighbouring columns.
    let mut c = [0u64; 5];
    for (x, cx) in c.iter_mut().enumerate() {
        *cx = a[lane(x, 0)] ^ a[lane(x, 1)] ^ a[lane(x, 2)] ^ a[lane(x, 3)] ^ a[lane(x, 4)];
    }
    for x in 0..5 {
        let d = c[(x + 4) % 5] ^ c[(x + 1) % 5].rotate_left(1);
        for y in 0..5 {
            a[lane(x, y)] ^= d;
        }
    }
    // ρ and π: rotate each lane by its offset and move it to its new position.
    let mut b = [0u64; 25];
    for (dst, bl) in b.iter_mut().enumerate() {
        let src = pi_source(dst);
        *bl = a[src].rotate_left(RHO[src]);
    }
    // χ: the only non-linear step, along each row.
    for y in 0..5 {
        for x in 0..5 {
            a[lane(x, y)] = b[lane(x, y)] ^ (!b[lane((x + 1) % 5, y)] & b[lane((x + 2) % 5, y)]);
        }
    }
    // ι
    a[0] ^= rc;
}

/// Keccak-f[1600]: 24 rounds.
#[inline(always)]
pub fn permute(state: &mut [u64; 25]) {
    let mut a = *state;
    for rc in ROUND_CONSTANTS {
        round(&mut a, rc);
    }
    *state = a;
}

/// Absorbs whole blocks of `rate` bytes (`blocks.len()` a multiple of `rate`, `rate` a multiple
/// of 8 and at most 200): XOR each block into the first `rate / 8` lanes, then permute.
#[inline(never)]
pub fn compress_blocks(state: &mut [u64; 25], blocks: &[u8], rate: usize) {
    debug_assert!(rate.is_multiple_of(8) && rate <= 200 && blocks.len().is_multiple_of(rate));
    for block in blocks.chunks_exact(rate) {
        for (lane, bytes) in state.iter_mut().zip(block.chunks_exact(8)) {
            *lane ^= u64::from_le_bytes(bytes.try_into().expect("8-byte chunk"));
        }
        permute(state);
    }
}
