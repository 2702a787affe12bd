//! The `sequential` MD5 compression: portable scalar code, literal to RFC 1321 section 3.4, with
//! all 64 steps unrolled so that the round function, message index and rotation of every step
//! are compile-time constants. `M[g] + K[i]` is added inside each step.

use super::{feed_forward, steps64, K};

/// Compresses whole 64-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    for block in blocks {
        let mut m = [0u32; 16];
        for (w, chunk) in m.iter_mut().zip(block.chunks_exact(4)) {
            *w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        let v = steps64!(*state, |i: usize, g: usize| m[g].wrapping_add(K[i]));
        feed_forward(state, v);
    }
}
