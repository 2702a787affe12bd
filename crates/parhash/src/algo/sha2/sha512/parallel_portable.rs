//! `parallel-portable`: the grouping of the SHA-512 `parallel` form (schedule group `g + 8`
//! computed during the rounds of group `g`) on plain `[u64; 2]` arrays, for CPUs without the
//! vector kernels.

use super::super::consts::K512;
use super::schedule::rounds80_with_schedule;
use super::sequential::{
    big_sigma0, big_sigma1, ch, feed_forward, maj, small_sigma0, small_sigma1,
};

/// Compresses whole 128-byte blocks into `state`.
// The last group's schedule words are written and never read again.
#[allow(unused_assignments)]
#[inline(never)]
pub fn compress_blocks(state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    let mut wk = [0u64; 80];
    for block in blocks {
        let mut x = [[0u64; 2]; 8];
        for (i, bytes) in block.chunks_exact(8).enumerate() {
            x[i / 2][i % 2] = u64::from_be_bytes(bytes.try_into().expect("8-byte chunk"));
            wk[i] = x[i / 2][i % 2].wrapping_add(K512[i]);
        }
        macro_rules! schedule {
            ($grp:expr) => {
                let (w16, w15_hi) = (x[$grp % 8], x[($grp + 1) % 8]);
                let (w7_lo, w7_hi) = (x[($grp + 4) % 8], x[($grp + 5) % 8]);
                let w2 = x[($grp + 7) % 8];
                let (w15, w7) = ([w16[1], w15_hi[0]], [w7_lo[1], w7_hi[0]]);
                let n = [0, 1].map(|j| {
                    w16[j]
                        .wrapping_add(small_sigma0(w15[j]))
                        .wrapping_add(w7[j])
                        .wrapping_add(small_sigma1(w2[j]))
                });
                x[$grp % 8] = n;
                wk[2 * $grp] = n[0].wrapping_add(K512[2 * $grp]);
                wk[2 * $grp + 1] = n[1].wrapping_add(K512[2 * $grp + 1]);
            };
        }
        macro_rules! wk_at {
            ($i:expr) => {
                wk[$i]
            };
        }
        let v = rounds80_with_schedule!(*state, wk_at, schedule);
        feed_forward(state, v);
    }
}
