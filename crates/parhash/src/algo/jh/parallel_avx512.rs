//! JH's bit-sliced E8 ([`super::parallel`]) on 128-bit registers with AVX-512F/VL enabled: the
//! same operations as [`super::parallel_sse`], but the three-operand encodings save register
//! copies and the compiler turns each S-box step such as `m0 ^= !m2 & c` or `m0 ^= m1 | m3`
//! into one `vpternlogq`.

use core::arch::x86_64::__m128i;

use super::parallel::compress_generic;
use super::State;
use crate::platform::Avx512;

/// # Safety
/// The CPU must support AVX-512F and AVX-512VL.
#[target_feature(enable = "avx512f,avx512vl")]
unsafe fn compress_avx512(state: &mut State, blocks: &[u8]) {
    compress_generic::<__m128i>(state, blocks);
}

/// `F8` on each 64-byte block, bit-sliced E8 with AVX-512VL ternary logic.
#[inline(never)]
pub fn compress_blocks(token: Avx512, state: &mut State, blocks: &[u8]) {
    let _ = token;
    // SAFETY: the `Avx512` token proves AVX-512 F/BW/VL/DQ are present and not switched off.
    unsafe { compress_avx512(state, blocks) }
}
