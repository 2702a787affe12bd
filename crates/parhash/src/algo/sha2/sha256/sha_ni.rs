//! SHA-256 with the x86 SHA extensions. The state lives in two registers in the order the
//! instructions want (`ABEF` and `CDGH`); `sha256rnds2` does two rounds with `W + K` taken from
//! the low half of its third operand, so each group of four rounds is two of them with the
//! halves swapped in between. `sha256msg1` adds `σ0` terms and `sha256msg2` the `σ1` terms of
//! four schedule words at once.

use core::arch::x86_64::*;

use super::super::consts::K256;
use crate::platform::ShaNi;
use crate::vector::load_block_shuffled;

/// Compresses whole 64-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(token: ShaNi, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let _ = token;
    // SAFETY: the `ShaNi` token proves this CPU has SHA, SSE2, SSSE3 and SSE4.1.
    unsafe { compress_blocks_sha(state, blocks) }
}

/// One stream's state in the order `sha256rnds2` wants it (`ABEF`, `CDGH`).
pub(super) type Packed = [__m128i; 2];

/// Converts H0..H7 to the packed order.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
#[inline]
pub(super) fn pack(state: &[u32; 8]) -> Packed {
    pack_registers(load_native(state))
}

/// H0..H7 in two registers (H0..H3, H4..H7), as they lie in memory.
#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn load_native(words: &[u32; 8]) -> [__m128i; 2] {
    let wp = words.as_ptr().cast::<__m128i>();
    // SAFETY: 8 words, two unaligned 128-bit loads.
    unsafe { [_mm_loadu_si128(wp), _mm_loadu_si128(wp.add(1))] }
}

/// [`pack`] of H0..H7 already in two registers (H0..H3, H4..H7).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
#[inline]
pub(super) fn pack_registers([dcba, hgfe]: [__m128i; 2]) -> Packed {
    let cdab = _mm_shuffle_epi32(dcba, 0xB1);
    let efgh = _mm_shuffle_epi32(hgfe, 0x1B);
    [
        _mm_alignr_epi8(cdab, efgh, 8),
        _mm_blend_epi16(efgh, cdab, 0xF0),
    ]
}

/// Converts the packed order back to H0..H7.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
#[inline]
pub(super) fn unpack(p: Packed, state: &mut [u32; 8]) {
    let feba = _mm_shuffle_epi32(p[0], 0x1B);
    let dchg = _mm_shuffle_epi32(p[1], 0xB1);
    let dcba = _mm_blend_epi16(feba, dchg, 0xF0);
    let hgfe = _mm_alignr_epi8(dchg, feba, 8);
    let sp = state.as_mut_ptr().cast::<__m128i>();
    // SAFETY: `state` is 8 words, two unaligned 128-bit stores.
    unsafe {
        _mm_storeu_si128(sp, dcba);
        _mm_storeu_si128(sp.add(1), hgfe);
    }
}

/// The 16 words of a block, big-endian, four per register.
#[target_feature(enable = "sse2,ssse3")]
#[inline]
pub(super) fn load_words(block: &[u8; 64]) -> [__m128i; 4] {
    // Byte order within each 32-bit word: the message is big-endian.
    let be_words = _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203);
    load_block_shuffled(block, be_words)
}

/// The big-endian words of 32 bytes (half a block) in two registers.
#[target_feature(enable = "sse2,ssse3")]
#[inline]
pub(super) fn load_words_half(bytes: &[u8; 32]) -> [__m128i; 2] {
    let be_words = _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203);
    let bp = bytes.as_ptr().cast::<__m128i>();
    // SAFETY: 32 bytes, two unaligned 128-bit loads.
    unsafe {
        [
            _mm_shuffle_epi8(_mm_loadu_si128(bp), be_words),
            _mm_shuffle_epi8(_mm_loadu_si128(bp.add(1)), be_words),
        ]
    }
}

/// The schedule words of group `g` (rounds `4g..4g+4`): from group 4 on they replace those of
/// four groups back in `w` (W[t] from W[t-16], W[t-15], W[t-7], W[t-2]).
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
#[inline]
pub(super) fn schedule(w: &mut [__m128i; 4], g: usize) -> __m128i {
    if g >= 4 {
        let sigma0_terms = _mm_sha256msg1_epu32(w[g % 4], w[(g + 1) % 4]);
        let w_minus7 = _mm_alignr_epi8(w[(g + 3) % 4], w[(g + 2) % 4], 4);
        w[g % 4] = _mm_sha256msg2_epu32(_mm_add_epi32(sigma0_terms, w_minus7), w[(g + 3) % 4]);
    }
    w[g % 4]
}

/// Four rounds given their `W + K`: two `sha256rnds2`, the second on the high half.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
#[inline]
pub(super) fn rounds4(state: &mut Packed, wk: __m128i) {
    state[1] = _mm_sha256rnds2_epu32(state[1], state[0], wk);
    state[0] = _mm_sha256rnds2_epu32(state[0], state[1], _mm_shuffle_epi32(wk, 0x0E));
}

/// Compresses whole blocks into `state`, then the message's last `tail` bytes (under one
/// block) with the padding of a `bit_len`-bit message (0x80, zeros, the length), built in
/// registers (`pieces::tail_block_pieces`). The padded block written to memory and read back
/// at once cost a short message's loads a wait on the bytes just stored (BENCHMARKS.md, short
/// messages).
#[inline(never)]
pub fn compress_blocks_then_tail(
    token: ShaNi,
    state: &mut [u32; 8],
    blocks: &[[u8; 64]],
    tail: &[u8],
    bit_len: u64,
) {
    let _ = token;
    assert!(tail.len() < 64, "a tail is under one block");
    // SAFETY: the `ShaNi` token proves this CPU has SHA, SSE2, SSSE3 and SSE4.1.
    unsafe { compress_sha::<true>(state, blocks, tail, bit_len) }
}

/// The 64 rounds of one block given its 16 words, and the feed-forward.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
#[inline]
fn block_rounds(packed: &mut Packed, mut w: [__m128i; 4]) {
    let start = *packed;
    // Sixteen groups of four rounds.
    macro_rules! groups {
        ($($g:literal)*) => {$(
            let k = |j: usize| K256[4 * $g + j] as i32;
            let wk = _mm_add_epi32(schedule(&mut w, $g), _mm_setr_epi32(k(0), k(1), k(2), k(3)));
            rounds4(packed, wk);
        )*};
    }
    groups!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
    *packed = [
        _mm_add_epi32(packed[0], start[0]),
        _mm_add_epi32(packed[1], start[1]),
    ];
}

/// # Safety
/// The CPU must support SHA, SSSE3 and SSE4.1.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
unsafe fn compress_blocks_sha(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    // SAFETY: as the caller guarantees.
    unsafe { compress_sha::<false>(state, blocks, &[], 0) }
}

/// `blocks`, then, if `PADDED_TAIL`, the message's last `tail` bytes (under one block) padded
/// for a `bit_len`-bit message. (A constant, not an `Option`: the arguments stay in
/// registers.)
///
/// # Safety
/// The CPU must support SHA, SSSE3 and SSE4.1.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
#[inline]
unsafe fn compress_sha<const PADDED_TAIL: bool>(
    state: &mut [u32; 8],
    blocks: &[[u8; 64]],
    tail: &[u8],
    bit_len: u64,
) {
    let mut packed = pack(state);
    for block in blocks {
        block_rounds(&mut packed, load_words(block));
    }
    if PADDED_TAIL {
        let be_words = _mm_set_epi64x(0x0c0d_0e0f_0809_0a0b, 0x0405_0607_0001_0203);
        let (padded, count) = crate::algo::pieces::padded_tail(tail, bit_len.to_be_bytes());
        for pieces in &padded[..count] {
            block_rounds(&mut packed, pieces.map(|p| _mm_shuffle_epi8(p, be_words)));
        }
    }
    unpack(packed, state);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_padded_tail_built_in_registers_is_the_padded_block() {
        crate::algo::block_api::check_padding_in_registers(
            "sha256::the_padded_tail_built_in_registers_is_the_padded_block",
            crate::algo::sha2::consts::IV256,
            compress_blocks,
            compress_blocks_then_tail,
        );
    }
}
