//! Threefish-512's internally parallel form on AVX2: the even words `[v0, v2, v4, v6]` in one
//! 256-bit register, the odd words in another, so the four MIX functions of a round are one
//! `vpaddq`, one rotation and one `vpxor`. AVX2 has no 64-bit rotate: a per-lane rotation is
//! `vpsllvq` + `vpsrlvq` + `vpor`. The permutation π is one `vpermq` per register.

use core::arch::x86_64::*;

use super::{subkey_rows, FIRST, ROTATIONS_LEFT_I64, ROTATIONS_RIGHT_I64};
use crate::platform::Avx2;

/// UBI over whole blocks (see `sequential::threefish512::compress_blocks`).
#[inline(never)]
pub fn compress_blocks(
    token: Avx2,
    h: &mut [u64; 8],
    blocks: &[[u8; 64]],
    tweak: &mut [u64; 2],
    len: u64,
) {
    let _ = token;
    // SAFETY: the `Avx2` token proves this CPU has AVX2 (and it is not switched off); all
    // loads are from arrays of the loaded size.
    unsafe { compress_avx2(h, blocks, tweak, len) }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn compress_avx2(h: &mut [u64; 8], blocks: &[[u8; 64]], tweak: &mut [u64; 2], len: u64) {
    let load = |row: &[u64; 4]| {
        // SAFETY: a row is four u64 = one unaligned 256-bit load; AVX enabled here.
        unsafe { _mm256_loadu_si256(row.as_ptr().cast()) }
    };
    let load_i = |row: &[i64; 4]| {
        // SAFETY: as above.
        unsafe { _mm256_loadu_si256(row.as_ptr().cast()) }
    };
    let shl: [__m256i; 8] = core::array::from_fn(|d| load_i(&ROTATIONS_LEFT_I64[d]));
    let shr: [__m256i; 8] = core::array::from_fn(|d| load_i(&ROTATIONS_RIGHT_I64[d]));
    for block in blocks {
        let m = super::load_le64(block);
        tweak[0] = tweak[0].wrapping_add(len);
        let keys = subkey_rows(h, tweak);
        let m_even = _mm256_setr_epi64x(m[0] as i64, m[2] as i64, m[4] as i64, m[6] as i64);
        let m_odd = _mm256_setr_epi64x(m[1] as i64, m[3] as i64, m[5] as i64, m[7] as i64);
        let (mut even, mut odd) = (m_even, m_odd);
        for (s, (key_even, key_odd)) in keys[..18].iter().enumerate() {
            even = _mm256_add_epi64(even, load(key_even));
            odd = _mm256_add_epi64(odd, load(key_odd));
            for i in 0..4 {
                let d = (4 * s + i) % 8;
                even = _mm256_add_epi64(even, odd);
                let rotated = _mm256_or_si256(
                    _mm256_sllv_epi64(odd, shl[d]),
                    _mm256_srlv_epi64(odd, shr[d]),
                );
                odd = _mm256_xor_si256(rotated, even);
                even = _mm256_permute4x64_epi64::<0x39>(even);
                odd = _mm256_permute4x64_epi64::<0x6C>(odd);
            }
        }
        even = _mm256_xor_si256(_mm256_add_epi64(even, load(&keys[18].0)), m_even);
        odd = _mm256_xor_si256(_mm256_add_epi64(odd, load(&keys[18].1)), m_odd);
        let (mut e, mut o) = ([0u64; 4], [0u64; 4]);
        // SAFETY: four u64 each, unaligned stores.
        unsafe {
            _mm256_storeu_si256(e.as_mut_ptr().cast(), even);
            _mm256_storeu_si256(o.as_mut_ptr().cast(), odd);
        }
        for l in 0..4 {
            h[2 * l] = e[l];
            h[2 * l + 1] = o[l];
        }
        tweak[1] &= !FIRST;
    }
}
