//! The internally parallel form of Threefish-512 in portable Rust: the four MIX functions of a
//! round are independent, so the state is kept as two rows, the even words `[v0, v2, v4, v6]`
//! and the odd words `[v1, v3, v5, v7]`, and each MIX step is one row operation: `even += odd`,
//! `odd = (odd <<< R_d) ^ even` with a per-lane rotation. The permutation π maps each row onto
//! itself (even words to even positions, odd to odd), so it is one lane shuffle per row. This
//! is the data flow of the SIMD kernels, written on `[u64; 4]` arrays.

use super::{sequential::threefish512::ROTATIONS, subkey_rows, FIRST};

type Row = [u64; 4];

/// UBI over whole blocks (see `sequential::threefish512::compress_blocks`).
#[inline(never)]
pub fn compress_blocks(h: &mut [u64; 8], blocks: &[[u8; 64]], tweak: &mut [u64; 2], len: u64) {
    for block in blocks {
        let m = super::load_le64(block);
        tweak[0] = tweak[0].wrapping_add(len);
        let keys = subkey_rows(h, tweak);
        let mut even: Row = [m[0], m[2], m[4], m[6]];
        let mut odd: Row = [m[1], m[3], m[5], m[7]];
        for d in 0..72 {
            if d % 4 == 0 {
                let (ke, ko) = &keys[d / 4];
                for l in 0..4 {
                    even[l] = even[l].wrapping_add(ke[l]);
                    odd[l] = odd[l].wrapping_add(ko[l]);
                }
            }
            let r = &ROTATIONS[d % 8];
            for l in 0..4 {
                even[l] = even[l].wrapping_add(odd[l]);
                odd[l] = odd[l].rotate_left(r[l]) ^ even[l];
            }
            // π: new (v0, v2, v4, v6) = old (v2, v4, v6, v0); new (v1, v3, v5, v7) = old
            // (v1, v7, v5, v3).
            even = [even[1], even[2], even[3], even[0]];
            odd = [odd[0], odd[3], odd[2], odd[1]];
        }
        let (ke, ko) = &keys[18];
        for l in 0..4 {
            h[2 * l] = even[l].wrapping_add(ke[l]) ^ m[2 * l];
            h[2 * l + 1] = odd[l].wrapping_add(ko[l]) ^ m[2 * l + 1];
        }
        tweak[1] &= !FIRST;
    }
}
