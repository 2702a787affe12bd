//! The sequential form of Keccak-f\[1600\]: portable, scalar, literal to FIPS 202 section 3.2
//! (θ, ρ, π, χ, ι on 25 64-bit lanes). The round is written out lane by lane: every index and
//! rotation is a literal, so the 25 lanes stay in registers and nothing is looked up at run time.
#![forbid(unsafe_code)]

use super::ROUND_CONSTANTS;

/// One round `Rnd(A, ir)` (FIPS 202 section 3.3), written out lane by lane: lane `(x, y)` is
/// `a[x + 5y]`; π is the gather `B[x, y] = A[(x + 3y) mod 5, x]`, rotated by ρ's offset of its
/// source lane (the offsets are `RHO`, spelled out here as literals; a test checks them).
#[inline(always)]
#[rustfmt::skip]
fn round(a: &mut [u64; 25], rc: u64) {
    // θ: column parities C[x], then D[x] = C[x - 1] ^ rotl(C[x + 1], 1).
    let c0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20];
    let c1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21];
    let c2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22];
    let c3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23];
    let c4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24];
    let d0 = c4 ^ c1.rotate_left(1);
    let d1 = c0 ^ c2.rotate_left(1);
    let d2 = c1 ^ c3.rotate_left(1);
    let d3 = c2 ^ c4.rotate_left(1);
    let d4 = c3 ^ c0.rotate_left(1);
    // ρ and π into B (θ's D applied on the way), then χ row by row into the new state.
    let mut out = [0u64; 25];
    // row 0
    let b0 = (a[0] ^ d0).rotate_left(0);
    let b1 = (a[6] ^ d1).rotate_left(44);
    let b2 = (a[12] ^ d2).rotate_left(43);
    let b3 = (a[18] ^ d3).rotate_left(21);
    let b4 = (a[24] ^ d4).rotate_left(14);
    out[0] = b0 ^ (!b1 & b2);
    out[1] = b1 ^ (!b2 & b3);
    out[2] = b2 ^ (!b3 & b4);
    out[3] = b3 ^ (!b4 & b0);
    out[4] = b4 ^ (!b0 & b1);
    // row 1
    let b0 = (a[3] ^ d3).rotate_left(28);
    let b1 = (a[9] ^ d4).rotate_left(20);
    let b2 = (a[10] ^ d0).rotate_left(3);
    let b3 = (a[16] ^ d1).rotate_left(45);
    let b4 = (a[22] ^ d2).rotate_left(61);
    out[5] = b0 ^ (!b1 & b2);
    out[6] = b1 ^ (!b2 & b3);
    out[7] = b2 ^ (!b3 & b4);
    out[8] = b3 ^ (!b4 & b0);
    out[9] = b4 ^ (!b0 & b1);
    // row 2
    let b0 = (a[1] ^ d1).rotate_left(1);
    let b1 = (a[7] ^ d2).rotate_left(6);
    let b2 = (a[13] ^ d3).rotate_left(25);
    let b3 = (a[19] ^ d4).rotate_left(8);
    let b4 = (a[20] ^ d0).rotate_left(18);
    out[10] = b0 ^ (!b1 & b2);
    out[11] = b1 ^ (!b2 & b3);
    out[12] = b2 ^ (!b3 & b4);
    out[13] = b3 ^ (!b4 & b0);
    out[14] = b4 ^ (!b0 & b1);
    // row 3
    let b0 = (a[4] ^ d4).rotate_left(27);
    let b1 = (a[5] ^ d0).rotate_left(36);
    let b2 = (a[11] ^ d1).rotate_left(10);
    let b3 = (a[17] ^ d2).rotate_left(15);
    let b4 = (a[23] ^ d3).rotate_left(56);
    out[15] = b0 ^ (!b1 & b2);
    out[16] = b1 ^ (!b2 & b3);
    out[17] = b2 ^ (!b3 & b4);
    out[18] = b3 ^ (!b4 & b0);
    out[19] = b4 ^ (!b0 & b1);
    // row 4
    let b0 = (a[2] ^ d2).rotate_left(62);
    let b1 = (a[8] ^ d3).rotate_left(55);
    let b2 = (a[14] ^ d4).rotate_left(39);
    let b3 = (a[15] ^ d0).rotate_left(41);
    let b4 = (a[21] ^ d1).rotate_left(2);
    out[20] = b0 ^ (!b1 & b2);
    out[21] = b1 ^ (!b2 & b3);
    out[22] = b2 ^ (!b3 & b4);
    out[23] = b3 ^ (!b4 & b0);
    out[24] = b4 ^ (!b0 & b1);
    // ι
    out[0] ^= rc;
    *a = out;
}

/// Keccak-f\[1600\]: 24 rounds.
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

#[cfg(test)]
mod tests {
    use super::super::RHO;

    /// The literal rotation offsets in `round` are those derived in `RHO`: rotating a single set
    /// bit through θ-free lanes would be indirect, so check the source text instead.
    #[test]
    fn literal_offsets_match_derived_rho() {
        let src = include_str!("sequential.rs");
        for (lane, r) in RHO.iter().enumerate() {
            let needle = format!("(a[{lane}] ^ d{}).rotate_left({r});", lane % 5);
            assert!(src.contains(&needle), "missing {needle}");
        }
    }
}
