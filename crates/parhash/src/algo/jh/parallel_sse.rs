//! JH's bit-sliced E8 ([`super::parallel`]) on SSE2 registers: one 128-bit word per register,
//! eight registers for the state. SSE2 is part of every x86-64 CPU, so this form needs no
//! token. The bit-group swaps are shifts and masks for bits, pairs and nibbles, 16- and 32-bit
//! lane shifts for bytes and 16-bit groups, and `pshufd` for 32- and 64-bit halves.

use core::arch::x86_64::__m128i;

use super::parallel::compress_generic;
use super::State;

/// `F8` on each 64-byte block, bit-sliced E8 on SSE2 registers.
#[inline(never)]
pub fn compress_blocks(state: &mut State, blocks: &[u8]) {
    compress_generic::<__m128i>(state, blocks);
}
