//! SHA-256 with the x86 SHA extensions. The state lives in two registers in the order the
//! instructions want (`ABEF` and `CDGH`); `sha256rnds2` does two rounds with `W + K` taken from
//! the low half of its third operand, so each group of four rounds is two of them with the
//! halves swapped in between. `sha256msg1` adds `σ0` terms and `sha256msg2` the `σ1` terms of
//! four schedule words at once.

use core::arch::x86_64::*;

use super::super::consts::K256;
use crate::platform::ShaNi;

/// Compresses whole 64-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(token: ShaNi, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let _ = token;
    // SAFETY: the `ShaNi` token proves this CPU has SHA, SSE2, SSSE3 and SSE4.1.
    unsafe { compress_blocks_sha(state, blocks) }
}

/// # Safety
/// The CPU must support SHA, SSSE3 and SSE4.1.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
unsafe fn compress_blocks_sha(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    // Byte order within each 32-bit word: the message is big-endian.
    let be_words = _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203);
    let sp = state.as_mut_ptr().cast::<__m128i>();
    // SAFETY: `state` is 8 words = two unaligned 128-bit loads.
    let (dcba, hgfe) = unsafe { (_mm_loadu_si128(sp), _mm_loadu_si128(sp.add(1))) };
    let cdab = _mm_shuffle_epi32(dcba, 0xB1);
    let efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    let mut abef = _mm_alignr_epi8(cdab, efgh, 8);
    let mut cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);

    for block in blocks {
        let (abef_in, cdgh_in) = (abef, cdgh);
        let bp = block.as_ptr().cast::<__m128i>();
        // SAFETY: a block is 64 bytes = four unaligned 128-bit loads.
        let mut w = unsafe {
            [
                _mm_shuffle_epi8(_mm_loadu_si128(bp), be_words),
                _mm_shuffle_epi8(_mm_loadu_si128(bp.add(1)), be_words),
                _mm_shuffle_epi8(_mm_loadu_si128(bp.add(2)), be_words),
                _mm_shuffle_epi8(_mm_loadu_si128(bp.add(3)), be_words),
            ]
        };
        // Sixteen groups of four rounds; from group 4 on, the group's four schedule words
        // replace the ones from four groups back (W[t] from W[t-16], W[t-15], W[t-7], W[t-2]).
        macro_rules! group {
            ($i:expr) => {
                if $i >= 4 {
                    let sigma0_terms = _mm_sha256msg1_epu32(w[$i % 4], w[($i + 1) % 4]);
                    let w_minus7 = _mm_alignr_epi8(w[($i + 3) % 4], w[($i + 2) % 4], 4);
                    w[$i % 4] = _mm_sha256msg2_epu32(
                        _mm_add_epi32(sigma0_terms, w_minus7),
                        w[($i + 3) % 4],
                    );
                }
                let k = |j: usize| K256[4 * $i + j] as i32;
                let wk = _mm_add_epi32(w[$i % 4], _mm_setr_epi32(k(0), k(1), k(2), k(3)));
                cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
                abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
            };
        }
        group!(0);
        group!(1);
        group!(2);
        group!(3);
        group!(4);
        group!(5);
        group!(6);
        group!(7);
        group!(8);
        group!(9);
        group!(10);
        group!(11);
        group!(12);
        group!(13);
        group!(14);
        group!(15);
        abef = _mm_add_epi32(abef, abef_in);
        cdgh = _mm_add_epi32(cdgh, cdgh_in);
    }

    let feba = _mm_shuffle_epi32(abef, 0x1B);
    let dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    let dcba = _mm_blend_epi16(feba, dchg, 0xF0);
    let hgfe = _mm_alignr_epi8(dchg, feba, 8);
    // SAFETY: as for the loads above.
    unsafe {
        _mm_storeu_si128(sp, dcba);
        _mm_storeu_si128(sp.add(1), hgfe);
    }
}
