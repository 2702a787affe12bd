//! The `parallel` MD5 compression: the only work in an MD5 block that does not depend on the
//! chain of steps is the 64 additions `M[g] + K[i]` (the message "schedule" is a permutation),
//! so this form computes them four at a time in vector registers ahead of the steps, which then
//! read one precomputed word each. Measured slower than `sequential` (BENCHMARKS.md): the
//! additions were never on the critical path, and the extra stores and loads are not free.
//!
//! Forms: `parallel-sse41` (message words gathered with `pinsrd`, added to four constants per
//! instruction) and `parallel-portable` (the same precomputation on arrays).

use super::{feed_forward, message_index, steps64, K};
#[cfg(target_arch = "x86_64")]
use crate::platform;

/// Which instructions precompute `M[g] + K[i]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Sse41(platform::Sse41),
}

/// Message word index of each of the 64 steps.
const G: [usize; 64] = {
    let mut g = [0; 64];
    let mut i = 0;
    while i < 64 {
        g[i] = message_index(i);
        i += 1;
    }
    g
};

/// Compresses whole 64-byte blocks into `state` with `M[g] + K[i]` precomputed by `isa`.
#[inline(never)]
pub(crate) fn compress_blocks(isa: Isa, state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    match isa {
        Isa::Portable => compress_blocks_portable(state, blocks),
        #[cfg(target_arch = "x86_64")]
        Isa::Sse41(_token) => {
            // SAFETY: the `Sse41` token proves this CPU has SSE4.1.
            unsafe { x86::compress_blocks_sse41(state, blocks) }
        }
    }
}

/// `parallel-portable`: the precomputation on arrays.
#[inline(never)]
fn compress_blocks_portable(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    for block in blocks {
        let mut m = [0u32; 16];
        for (w, chunk) in m.iter_mut().zip(block.chunks_exact(4)) {
            *w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        let mk: [u32; 64] = core::array::from_fn(|i| m[G[i]].wrapping_add(K[i]));
        let v = steps64!(*state, |i: usize, _g: usize| mk[i]);
        feed_forward(state, v);
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    use super::{feed_forward, steps64, G, K};

    /// `M[g] + K[i]` of one block, aligned for vector stores.
    #[repr(C, align(16))]
    struct Mk([u32; 64]);

    /// # Safety
    /// The CPU must support SSE4.1.
    #[target_feature(enable = "sse2,sse4.1")]
    pub(super) unsafe fn compress_blocks_sse41(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
        // A static, so the vector loads read one fixed copy.
        static KS: [u32; 64] = K;
        let kp = KS.as_ptr().cast::<__m128i>();
        let mut mk = Mk([0; 64]);
        for block in blocks {
            let mut m = [0u32; 16];
            for (w, chunk) in m.iter_mut().zip(block.chunks_exact(4)) {
                *w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            }
            for q in 0..16 {
                let words = _mm_setr_epi32(
                    m[G[4 * q]] as i32,
                    m[G[4 * q + 1]] as i32,
                    m[G[4 * q + 2]] as i32,
                    m[G[4 * q + 3]] as i32,
                );
                // SAFETY: q < 16, so both stay inside the 64-word K and `mk`, and `mk` is
                // 16-byte aligned.
                unsafe {
                    let k = _mm_loadu_si128(kp.add(q));
                    _mm_store_si128(
                        mk.0.as_mut_ptr().cast::<__m128i>().add(q),
                        _mm_add_epi32(words, k),
                    );
                }
            }
            let v = steps64!(*state, |i: usize, _g: usize| mk.0[i]);
            feed_forward(state, v);
        }
    }
}
