//! `parallel-portable`: the grouping of the `parallel` form (schedule group `g + 4` computed
//! during the rounds of group `g`, each group in two halves) on plain `[u32; 4]` arrays, for
//! CPUs without the vector kernels. The compiler may map the lane loops to whatever vectors the
//! target has.

use super::super::consts::K256;
use super::schedule::rounds64_with_schedule;
use super::sequential::{
    big_sigma0, big_sigma1, ch, feed_forward, maj, small_sigma0, small_sigma1,
};

type Lanes = [u32; 4];

#[inline(always)]
fn add(x: Lanes, y: Lanes) -> Lanes {
    [0, 1, 2, 3].map(|i| x[i].wrapping_add(y[i]))
}

/// Lanes `i..i + 4` of the 8-word concatenation `lo || hi` (what `alignr` does).
#[inline(always)]
fn window(lo: Lanes, hi: Lanes, i: usize) -> Lanes {
    let both = [lo[0], lo[1], lo[2], lo[3], hi[0], hi[1], hi[2], hi[3]];
    [both[i], both[i + 1], both[i + 2], both[i + 3]]
}

/// Compresses whole 64-byte blocks into `state`.
// The last group's schedule words are written and never read again.
#[allow(unused_assignments)]
#[inline(never)]
pub fn compress_blocks(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let mut wk = [0u32; 64];
    for block in blocks {
        let mut x = [[0u32; 4]; 4];
        for (i, bytes) in block.chunks_exact(4).enumerate() {
            x[i / 4][i % 4] = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        for t in 0..16 {
            wk[t] = x[t / 4][t % 4].wrapping_add(K256[t]);
        }
        macro_rules! schedule {
            ($grp:expr) => {
                let w16 = x[$grp % 4];
                let w15 = window(w16, x[($grp + 1) % 4], 1);
                let w7 = window(x[($grp + 2) % 4], x[($grp + 3) % 4], 1);
                let w2 = x[($grp + 3) % 4];
                let mut n = add(add(w16, w15.map(small_sigma0)), w7);
                // First half: W[t-2], W[t-1] are known; second half needs the first.
                n[0] = n[0].wrapping_add(small_sigma1(w2[2]));
                n[1] = n[1].wrapping_add(small_sigma1(w2[3]));
                n[2] = n[2].wrapping_add(small_sigma1(n[0]));
                n[3] = n[3].wrapping_add(small_sigma1(n[1]));
                x[$grp % 4] = n;
                for j in 0..4 {
                    wk[4 * $grp + j] = n[j].wrapping_add(K256[4 * $grp + j]);
                }
            };
        }
        macro_rules! wk_at {
            ($i:expr) => {
                wk[$i]
            };
        }
        let v = rounds64_with_schedule!(*state, wk_at, schedule);
        feed_forward(state, v);
    }
}
