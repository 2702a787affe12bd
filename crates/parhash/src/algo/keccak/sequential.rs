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
    // One row of B, each lane `(a[i] ^ d) rotated left by r`, then χ into out[o..o + 5].
    macro_rules! chi_row {
        ($o:literal: $(a[$i:literal] ^ $d:ident <<< $r:literal),+) => {
            let [b0, b1, b2, b3, b4] = [$((a[$i] ^ $d).rotate_left($r)),+];
            out[$o] = b0 ^ (!b1 & b2);
            out[$o + 1] = b1 ^ (!b2 & b3);
            out[$o + 2] = b2 ^ (!b3 & b4);
            out[$o + 3] = b3 ^ (!b4 & b0);
            out[$o + 4] = b4 ^ (!b0 & b1);
        };
    }
    chi_row!(0: a[0] ^ d0 <<< 0, a[6] ^ d1 <<< 44, a[12] ^ d2 <<< 43, a[18] ^ d3 <<< 21, a[24] ^ d4 <<< 14);
    chi_row!(5: a[3] ^ d3 <<< 28, a[9] ^ d4 <<< 20, a[10] ^ d0 <<< 3, a[16] ^ d1 <<< 45, a[22] ^ d2 <<< 61);
    chi_row!(10: a[1] ^ d1 <<< 1, a[7] ^ d2 <<< 6, a[13] ^ d3 <<< 25, a[19] ^ d4 <<< 8, a[20] ^ d0 <<< 18);
    chi_row!(15: a[4] ^ d4 <<< 27, a[5] ^ d0 <<< 36, a[11] ^ d1 <<< 10, a[17] ^ d2 <<< 15, a[23] ^ d3 <<< 56);
    chi_row!(20: a[2] ^ d2 <<< 62, a[8] ^ d3 <<< 55, a[14] ^ d4 <<< 39, a[15] ^ d0 <<< 41, a[21] ^ d1 <<< 2);
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
            let needle = format!("a[{lane}] ^ d{} <<< {r}", lane % 5);
            let found = [",", ")"]
                .iter()
                .any(|end| src.contains(&format!("{needle}{end}")));
            assert!(found, "missing {needle}");
        }
    }
}
