//! The sequential form of JH: portable and literal to the specification (round 3). E8 groups
//! the 1024 state bits into 256 4-bit elements, runs 42 rounds `R8` (S-boxes chosen by the
//! round constant's bits, `L` on pairs, permutation `P8`) and degroups them again.
#![forbid(unsafe_code)]

use super::{bit, round_elements, State, ROUNDS, ROUND_CONSTANTS};

/// Grouping: element `2i` is bits `(i, i+256, i+512, i+768)` of `H` and element `2i+1` bits
/// `(i+128, i+384, i+640, i+896)`, the first bit being the element's most significant.
const fn group(h: &State) -> [u8; 256] {
    let mut q = [0u8; 256];
    let mut i = 0;
    while i < 128 {
        let mut half = 0;
        while half < 2 {
            let mut e = 0;
            let mut k = 0;
            while k < 4 {
                e = (e << 1) | bit(h, i + 128 * half + 256 * k);
                k += 1;
            }
            q[2 * i + half] = e;
            half += 1;
        }
        i += 1;
    }
    q
}

/// The inverse of [`group`].
const fn degroup(q: &[u8; 256]) -> State {
    let mut h = [0u8; 128];
    let mut i = 0;
    while i < 128 {
        let mut half = 0;
        while half < 2 {
            let e = q[2 * i + half];
            let mut k = 0;
            while k < 4 {
                let pos = i + 128 * half + 256 * k;
                h[pos / 8] |= ((e >> (3 - k)) & 1) << (7 - pos % 8);
                k += 1;
            }
            half += 1;
        }
        i += 1;
    }
    h
}

/// The permutation E8 (also evaluated at compile time for the initial values).
pub const fn e8(h: &mut State) {
    let mut q = group(h);
    let mut r = 0;
    while r < ROUNDS {
        round_elements(&mut q, 256, &ROUND_CONSTANTS[r]);
        r += 1;
    }
    *h = degroup(&q);
}

/// `F8`: the block goes into the first half of the state, E8, then into the second half.
#[inline(never)]
pub fn compress_blocks(state: &mut State, blocks: &[u8]) {
    assert!(blocks.len() % 64 == 0);
    for block in blocks.chunks_exact(64) {
        for (s, m) in state[..64].iter_mut().zip(block) {
            *s ^= m;
        }
        e8(state);
        for (s, m) in state[64..].iter_mut().zip(block) {
            *s ^= m;
        }
    }
}
