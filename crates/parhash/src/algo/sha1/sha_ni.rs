//! SHA-1 with the x86 SHA extensions. `A, B, C, D` live in one register (A in the top lane),
//! `E` in the top lane of another. `sha1rnds4` does four rounds with the round function and
//! constant of its immediate, taking `W[t..t+4]` with `E` already added to the first word;
//! `sha1nexte` computes that next `E` (`rotl30` of the `A` from four rounds back) and adds it.
//! `sha1msg1` and `sha1msg2` compute four schedule words: `msg1` the `W[t-16] ^ W[t-14]` part,
//! an XOR adds `W[t-8]`, and `msg2` adds `W[t-3]` and rotates, handling the dependency of
//! `W[t+3]` on `W[t]` inside the instruction.

use core::arch::x86_64::*;

use crate::platform::ShaNi;
use crate::vector::load_block_shuffled;

/// Compresses whole 64-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(token: ShaNi, state: &mut [u32; 5], blocks: &[[u8; 64]]) {
    let _ = token;
    // SAFETY: the `ShaNi` token proves this CPU has SHA, SSE2, SSSE3 and SSE4.1.
    unsafe { compress_blocks_sha(state, blocks) }
}

/// Compresses whole blocks into `state`, then the message's last `tail` bytes (under one
/// block) with the padding of a `bit_len`-bit message, built in registers (as SHA-256's
/// kernel does, so that no load waits for the bytes just stored: `algo::pieces`).
#[inline(never)]
pub fn compress_blocks_then_tail(
    token: ShaNi,
    state: &mut [u32; 5],
    blocks: &[[u8; 64]],
    tail: &[u8],
    bit_len: u64,
) {
    let _ = token;
    assert!(tail.len() < 64, "a tail is under one block");
    // SAFETY: the `ShaNi` token proves this CPU has SHA, SSE2, SSSE3 and SSE4.1.
    unsafe { compress_sha::<true>(state, blocks, tail, bit_len) }
}

/// # Safety
/// The CPU must support SHA, SSSE3 and SSE4.1.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
unsafe fn compress_blocks_sha(state: &mut [u32; 5], blocks: &[[u8; 64]]) {
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
    state: &mut [u32; 5],
    blocks: &[[u8; 64]],
    tail: &[u8],
    bit_len: u64,
) {
    // Reverses all 16 bytes: big-endian words, and W[t] in the top lane as the instructions
    // want it.
    let reverse = _mm_set_epi64x(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
    // SAFETY: `state[..4]` is 16 bytes (unaligned load).
    let dcba = unsafe { _mm_loadu_si128(state.as_ptr().cast()) };
    let mut abcd = _mm_shuffle_epi32::<0x1B>(dcba);
    let mut e0 = _mm_set_epi32(state[4] as i32, 0, 0, 0);
    for block in blocks {
        block_rounds(&mut abcd, &mut e0, load_block_shuffled(block, reverse));
    }
    if PADDED_TAIL {
        let (padded, count) = crate::algo::pieces::padded_tail(tail, bit_len.to_be_bytes());
        for pieces in &padded[..count] {
            let w = pieces.map(|p| _mm_shuffle_epi8(p, reverse));
            block_rounds(&mut abcd, &mut e0, w);
        }
    }
    // SAFETY: as for the load above.
    unsafe { _mm_storeu_si128(state.as_mut_ptr().cast(), _mm_shuffle_epi32::<0x1B>(abcd)) };
    state[4] = _mm_extract_epi32::<3>(e0) as u32;
}

/// The 80 rounds of one block given its 16 words (W[t] in the top lane), and the feed-forward.
#[target_feature(enable = "sha,sse2,ssse3,sse4.1")]
#[inline]
fn block_rounds(abcd: &mut __m128i, e0: &mut __m128i, mut w: [__m128i; 4]) {
    let (abcd_in, e_in) = (*abcd, *e0);
    // `abcd` as it was before the previous group: its A gives this group's E.
    let mut abcd_prev = *abcd;
    // Twenty groups of four rounds. From group 4 on, the group's schedule words replace
    // those of four groups back (W[t] from W[t-16], W[t-14], W[t-8], W[t-3]).
    macro_rules! groups {
        ($($g:literal)*) => {$(
            if $g >= 4 {
                let partial = _mm_sha1msg1_epu32(w[$g % 4], w[($g + 1) % 4]);
                let partial = _mm_xor_si128(partial, w[($g + 2) % 4]);
                w[$g % 4] = _mm_sha1msg2_epu32(partial, w[($g + 3) % 4]);
            }
            let e_plus_w = if $g == 0 {
                _mm_add_epi32(*e0, w[0])
            } else {
                _mm_sha1nexte_epu32(abcd_prev, w[$g % 4])
            };
            abcd_prev = *abcd;
            *abcd = _mm_sha1rnds4_epu32::<{ $g / 5 }>(*abcd, e_plus_w);
        )*};
    }
    groups!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19);
    *e0 = _mm_sha1nexte_epu32(abcd_prev, e_in);
    *abcd = _mm_add_epi32(*abcd, abcd_in);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_padded_tail_built_in_registers_is_the_padded_block() {
        crate::algo::block_api::check_padding_in_registers(
            "sha1::the_padded_tail_built_in_registers_is_the_padded_block",
            [
                0x6745_2301,
                0xefcd_ab89,
                0x98ba_dcfe,
                0x1032_5476,
                0xc3d2_e1f0,
            ],
            compress_blocks,
            compress_blocks_then_tail,
        );
    }
}
