//! BLAKE3's compression of one block on AVX-512 (F, BW, VL), for [`super::one_block`]: the
//! 4x4 state as four 128-bit rows `a, b, c, d`, one instruction per step of the four G
//! functions of a half-round, rotations by `vprord`. The diagonal half-round lines up the
//! diagonals by rotating rows `a`, `c` and `d` (not `b`, which the last step writes, so no
//! shuffle lies on the chain from one half-round to the next). The message, loaded once into two
//! 256-bit registers with byte masks (which read exactly the message and zero-pad it), gives
//! each round its four operand rows with two `vpermt2d` by precomputed index vectors. No
//! 512-bit instruction: one in flight takes a vector port away from the 128-bit rows on Intel
//! cores, which cost a 512-bit `vpermd` form 8 % per block.

use core::arch::x86_64::*;

use super::spec::{IV, ONE_BLOCK_ROOT, SCHEDULE};
use crate::platform::Avx512;

/// Each round's message words in the order the four G rows read them: the columns' first
/// and second operands, then the diagonals' (whose lanes start at the diagonal through `b`'s
/// first word, `(3, 4, 9, 14)`, because rows `a`, `c` and `d` are the ones rotated).
static OPERANDS: [[u32; 16]; 7] = {
    const ORDER: [usize; 16] = [0, 2, 4, 6, 1, 3, 5, 7, 14, 8, 10, 12, 15, 9, 11, 13];
    let mut operands = [[0; 16]; 7];
    let mut r = 0;
    while r < 7 {
        let mut i = 0;
        while i < 16 {
            operands[r][i] = SCHEDULE[r][ORDER[i]] as u32;
            i += 1;
        }
        r += 1;
    }
    operands
};

/// The digest of `data` (at most 64 bytes).
pub(super) fn compress(token: Avx512, data: &[u8], out: &mut [u8; 32]) {
    let _ = token;
    assert!(data.len() <= 64, "one BLAKE3 block is at most 64 bytes");
    // SAFETY: the token proves AVX-512 F/BW/VL; the kernel reads `data.len()` bytes from its
    // start (a masked load) and writes the 32 bytes of `out`.
    unsafe { compress_avx512(data, out) }
}

/// # Safety
/// The CPU must support AVX-512 F, BW and VL; `data` is at most 64 bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn compress_avx512(data: &[u8], out: &mut [u8; 32]) {
    // The low `data.len()` bits (none for the empty message).
    let mask = u64::MAX.checked_shr(64 - data.len() as u32).unwrap_or(0);
    // SAFETY: 64 bytes are four whole 16-byte loads; a masked load touches only the bytes its
    // mask selects (faults are suppressed for the others): the message's own bytes, words 0-7
    // and 8-15. IV is eight words, two rows.
    // A whole block by plain 16-byte loads: a masked load cannot take its bytes from stores
    // still in flight (a block just copied into a hasher's buffer) and waits for them to
    // retire, and a 16-byte load from a 16-byte aligned block (the hasher's) never straddles
    // two cache lines.
    let (low, high, mut a, mut b) = unsafe {
        let (low, high) = if data.len() == 64 {
            let row = |i: usize| load_16(data.as_ptr().add(16 * i));
            (
                _mm256_set_m128i(row(1), row(0)),
                _mm256_set_m128i(row(3), row(2)),
            )
        } else {
            (
                _mm256_maskz_loadu_epi8(mask as u32, data.as_ptr().cast()),
                _mm256_maskz_loadu_epi8((mask >> 32) as u32, data.as_ptr().wrapping_add(32).cast()),
            )
        };
        (
            low,
            high,
            _mm_loadu_si128(IV.as_ptr().cast()),
            _mm_loadu_si128(IV.as_ptr().add(4).cast()),
        )
    };
    let mut c = a;
    let mut d = _mm_setr_epi32(0, 0, data.len() as i32, ONE_BLOCK_ROOT as i32);
    // Four G functions; their message words are the low half of `$m`, then its high half.
    macro_rules! g4 {
        ($m:expr) => {
            a = _mm_add_epi32(_mm_add_epi32(a, _mm256_castsi256_si128($m)), b);
            d = _mm_ror_epi32::<16>(_mm_xor_si128(d, a));
            c = _mm_add_epi32(c, d);
            b = _mm_ror_epi32::<12>(_mm_xor_si128(b, c));
            a = _mm_add_epi32(_mm_add_epi32(a, _mm256_extracti128_si256::<1>($m)), b);
            d = _mm_ror_epi32::<8>(_mm_xor_si128(d, a));
            c = _mm_add_epi32(c, d);
            b = _mm_ror_epi32::<7>(_mm_xor_si128(b, c));
        };
    }
    for order in &OPERANDS {
        // SAFETY: `order` is sixteen words, two halves of eight.
        let (columns, diagonals) = unsafe {
            (
                _mm256_loadu_si256(order.as_ptr().cast()),
                _mm256_loadu_si256(order.as_ptr().add(8).cast()),
            )
        };
        let columns = _mm256_permutex2var_epi32(low, columns, high);
        let diagonals = _mm256_permutex2var_epi32(low, diagonals, high);
        g4!(columns);
        a = _mm_shuffle_epi32::<0x93>(a);
        c = _mm_shuffle_epi32::<0x39>(c);
        d = _mm_shuffle_epi32::<0x4E>(d);
        g4!(diagonals);
        a = _mm_shuffle_epi32::<0x39>(a);
        c = _mm_shuffle_epi32::<0x93>(c);
        d = _mm_shuffle_epi32::<0x4E>(d);
    }
    // SAFETY: `out` is 32 bytes, two rows.
    unsafe {
        _mm_storeu_si128(out.as_mut_ptr().cast(), _mm_xor_si128(a, c));
        _mm_storeu_si128(out.as_mut_ptr().add(16).cast(), _mm_xor_si128(b, d));
    }
}

/// One 16-byte load that the compiler cannot merge with its neighbours. Merged into 32-byte
/// loads, each load spanned two of the 16-byte stores with which a hasher copies a block in
/// (baseline x86-64 code), and a load fed by two stores cannot take its bytes from them: it
/// waits for them to reach the cache, and a reused hasher's 64-byte message took 1.2x the
/// `blake3` crate's reused hasher's time (1.35x this kernel's one-shot). (A volatile read would keep the width only as sixteen byte loads.)
///
/// # Safety
/// `ptr` must be valid for reading 16 bytes (any alignment); the CPU must have AVX.
#[inline(always)]
unsafe fn load_16(ptr: *const u8) -> __m128i {
    let row: __m128i;
    // SAFETY: the caller guarantees 16 readable bytes at `ptr`; the instruction reads exactly
    // those, unaligned, and touches no other memory, flags or stack.
    unsafe {
        core::arch::asm!(
            "vmovdqu {row}, xmmword ptr [{ptr}]",
            row = out(xmm_reg) row,
            ptr = in(reg) ptr,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    row
}
