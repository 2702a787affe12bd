//! The `sequential` SHA-1 compression: portable scalar code, literal to FIPS 180-4 section
//! 6.1.2, with all 80 rounds unrolled. The five working variables are renamed from round to
//! round instead of being shifted, and the message schedule is a rolling 16-word window whose
//! next word is computed just before the round that needs it, in the same instruction stream.

use super::{load_be, round, rounds5, rounds80, K};

/// Compresses whole 64-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(state: &mut [u32; 5], blocks: &[[u8; 64]]) {
    for block in blocks {
        let mut w = load_be(block);
        // W[t] for t >= 16 replaces W[t - 16] in the 16-word window.
        let mut wk = |t: usize| {
            if t >= 16 {
                w[t % 16] = (w[(t - 3) % 16] ^ w[(t - 8) % 16] ^ w[(t - 14) % 16] ^ w[t % 16])
                    .rotate_left(1);
            }
            w[t % 16].wrapping_add(K[t / 20])
        };
        rounds80!(state, wk);
    }
}
