//! SANDstorm-224/256 (64-bit words): eight independent compressions in the eight 64-bit lanes of
//! AVX-512 registers, the SIMD form the tree makes possible (independent superblocks side by
//! side, as the issue and the Sandia study suggest).
//!
//! Each SANDstorm operation maps to one or two instructions per eight lanes:
//! - F and G square/multiply 32-bit halves: `vpmuludq` multiplies the low 32 bits of each lane
//!   into a full 64-bit product, and the (hi + A, lo + B) pair is one 32-bit `vpaddd`;
//! - SB replaces the low byte by its AES S-box image: the AES S-box is the GF(2^8) inverse (AES
//!   polynomial) followed by an affine map, exactly what GFNI's `gf2p8affineinv` computes, then a
//!   byte blend keeps the other seven bytes;
//! - rotates are `vprolq`, Ch and the masked swaps of BitMix are single `vpternlogq`.
//!
//! The portable twin is [`crate::algo::sandstorm::fast::compress_lanes`]; tests compare the two.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use crate::algo::sandstorm::reference::Chain;
use crate::platform::{Avx512, Gfni};

/// Lanes per kernel call.
pub const LANES: usize = 8;

/// Proof that the CPU has AVX-512 (F/BW) and GFNI, which the eight-lane kernel needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wide {
    _avx512: Avx512,
    _gfni: Gfni,
}

impl Wide {
    /// The token, if this CPU has both ISAs and neither is switched off.
    pub fn detect() -> Option<Wide> {
        Some(Wide {
            _avx512: Avx512::detect()?,
            _gfni: Gfni::detect()?,
        })
    }

    /// Lane `l` (0..8) compresses the `blocks` 64-byte blocks starting at `data[starts[l]..]`
    /// into `chains[l]`, one after the other. The lanes' inputs may lie anywhere in `data`
    /// (superblocks need not be evenly spaced: the reference code's 8-bit counter makes some
    /// shorter).
    ///
    /// # Panics
    /// If a lane's blocks run past the end of `data` (an internal bug, not input).
    pub fn compress_blocks(
        self,
        chains: &mut [Chain<u64>; LANES],
        data: &[u8],
        starts: &[usize; LANES],
        blocks: usize,
    ) {
        assert!(blocks == 0 || starts.iter().all(|&s| s + 64 * blocks <= data.len()));
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a `Wide` holds `Avx512` and `Gfni` tokens, made only after detecting
        // AVX-512 F/BW/VL/DQ and GFNI (+ AVX-512 F/BW) on this CPU.
        unsafe {
            compress_blocks_avx512(chains, data, starts, blocks)
        }
    }

    /// Lane `l` compresses the `count` 8-word inputs `inputs[starts[l]..][..count]` into
    /// `chains[l]` (level-2 chains, whose inputs are level-1 outputs).
    ///
    /// # Panics
    /// If a lane's inputs run past the end of `inputs`.
    pub fn compress_words(
        self,
        chains: &mut [Chain<u64>; LANES],
        inputs: &[[u64; 8]],
        starts: &[usize; LANES],
        count: usize,
    ) {
        assert!(count == 0 || starts.iter().all(|&s| s + count <= inputs.len()));
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `compress_blocks`: the `Wide` token proves AVX-512 and GFNI.
        unsafe {
            compress_words_avx512(chains, inputs, starts, count)
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod kernel {
    use super::*;
    use crate::algo::sandstorm::consts::RC64;

    /// Eight chains, transposed: `c[r][j]` holds word j of row r of every lane.
    pub(super) type Lanes = [[__m512i; 4]; 5];

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,gfni")]
    #[inline]
    pub(super) fn load_chains(chains: &[Chain<u64>; LANES]) -> Lanes {
        let mut t = [[[0u64; LANES]; 4]; 5];
        for (l, chain) in chains.iter().enumerate() {
            for r in 0..5 {
                for j in 0..4 {
                    t[r][j][l] = chain[r][j];
                }
            }
        }
        let mut c = [[_mm512_setzero_si512(); 4]; 5];
        for r in 0..5 {
            for j in 0..4 {
                // SAFETY: `t[r][j]` is 64 bytes; the load is unaligned.
                c[r][j] = unsafe { _mm512_loadu_si512(t[r][j].as_ptr().cast()) };
            }
        }
        c
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,gfni")]
    #[inline]
    pub(super) fn store_chains(c: &Lanes, chains: &mut [Chain<u64>; LANES]) {
        let mut t = [[[0u64; LANES]; 4]; 5];
        for r in 0..5 {
            for j in 0..4 {
                // SAFETY: `t[r][j]` is 64 bytes; the store is unaligned.
                unsafe { _mm512_storeu_si512(t[r][j].as_mut_ptr().cast(), c[r][j]) };
            }
        }
        for (l, chain) in chains.iter_mut().enumerate() {
            for r in 0..5 {
                for j in 0..4 {
                    chain[r][j] = t[r][j][l];
                }
            }
        }
    }

    /// 8x8 transpose of 64-bit words: `rows[l]` word j becomes `out[j]` lane l.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,gfni")]
    #[inline]
    pub(super) fn transpose(rows: [__m512i; 8]) -> [__m512i; 8] {
        // Stage 1: pairs of rows interleaved by word.
        let mut t = [_mm512_setzero_si512(); 8];
        for i in 0..4 {
            let (a, b) = (rows[2 * i], rows[2 * i + 1]);
            t[2 * i] = _mm512_unpacklo_epi64(a, b); // a0 b0 a2 b2 a4 b4 a6 b6
            t[2 * i + 1] = _mm512_unpackhi_epi64(a, b); // a1 b1 a3 b3 a5 b5 a7 b7
        }
        // Stage 2: quadruples of rows; u[q*4 + k]: rows 4q..4q+4, words {k', k'+4}.
        let lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
        let hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
        let mut u = [_mm512_setzero_si512(); 8];
        for q in 0..2 {
            let (e0, o0, e1, o1) = (t[4 * q], t[4 * q + 1], t[4 * q + 2], t[4 * q + 3]);
            // e0 = r0w0 r1w0 r0w2 r1w2 r0w4 r1w4 r0w6 r1w6 ; e1 the same for rows 2, 3.
            u[4 * q] = _mm512_permutex2var_epi64(e0, lo, e1); // words 0, 4
            u[4 * q + 1] = _mm512_permutex2var_epi64(e0, hi, e1); // words 2, 6
            u[4 * q + 2] = _mm512_permutex2var_epi64(o0, lo, o1); // words 1, 5
            u[4 * q + 3] = _mm512_permutex2var_epi64(o0, hi, o1); // words 3, 7
        }
        // u[k] = [r0 r1 r2 r3 of word w | r0..r3 of word w + 4] for rows 0-3 (k < 4) or 4-7.
        let word_of = [0usize, 2, 1, 3];
        let mut out = [_mm512_setzero_si512(); 8];
        for k in 0..4 {
            let w = word_of[k];
            out[w] = _mm512_shuffle_i64x2::<0b01_00_01_00>(u[k], u[4 + k]);
            out[w + 4] = _mm512_shuffle_i64x2::<0b11_10_11_10>(u[k], u[4 + k]);
        }
        out
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,gfni")]
    #[inline]
    fn f(x: __m512i) -> __m512i {
        let hi = _mm512_srli_epi64::<32>(x);
        _mm512_add_epi64(_mm512_mul_epu32(hi, hi), _mm512_mul_epu32(x, x))
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,gfni")]
    #[inline]
    fn g(x: __m512i) -> __m512i {
        // hi + A and lo + B modulo 2^32 in one 32-bit add.
        let ab = _mm512_set1_epi64(0xA611_186B_BEE8_390Du64 as i64);
        let y = _mm512_add_epi32(x, ab);
        let product = _mm512_mul_epu32(_mm512_srli_epi64::<32>(y), y);
        _mm512_add_epi64(f(x), _mm512_rol_epi64::<32>(product))
    }

    /// Ch(a, b, c) = a ? b : c, bit by bit.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,gfni")]
    #[inline]
    fn select(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        _mm512_ternarylogic_epi64::<0xCA>(a, b, c)
    }

    /// SB: the low byte of every lane through the AES S-box.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,gfni")]
    #[inline]
    fn sb(x: __m512i) -> __m512i {
        // The AES S-box = affine map (matrix below, constant 0x63) of the GF(2^8) inverse.
        let aes_affine = _mm512_set1_epi64(0xF1E3_C78F_1F3E_7CF8u64 as i64);
        let s = _mm512_gf2p8affineinv_epi64_epi8::<0x63>(x, aes_affine);
        _mm512_mask_blend_epi8(0x0101_0101_0101_0101, x, s)
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,gfni")]
    #[inline]
    fn rc(i: usize) -> __m512i {
        _mm512_set1_epi64(RC64[i] as i64)
    }

    /// BitMix: each masked swap is two bit selects on the old values.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,gfni")]
    #[inline]
    fn bitmix(w: &mut [__m512i; 4]) {
        let j3 = _mm512_set1_epi64(0x3333_3333_3333_3333);
        let j5 = _mm512_set1_epi64(0x5555_5555_5555_5555);
        let j6 = _mm512_set1_epi64(0x6666_6666_6666_6666);
        macro_rules! swap {
            ($a:literal, $b:literal, $m:expr) => {
                let (x, y) = (w[$a], w[$b]);
                w[$a] = select($m, y, x);
                w[$b] = select($m, x, y);
            };
        }
        swap!(0, 2, j6);
        swap!(1, 3, j3);
        swap!(0, 1, j5);
        swap!(2, 3, j5);
    }

    /// One compression of eight lanes: message words `m` (transposed), chains `c` in place.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,gfni")]
    #[inline]
    pub(super) fn compress(m: [__m512i; 8], c: &mut Lanes) {
        let mut ms = [_mm512_setzero_si512(); 33];
        ms[..8].copy_from_slice(&m);
        macro_rules! schedule {
            ($($i:literal)*) => {$(
                let sum = _mm512_add_epi64(
                    _mm512_add_epi64(ms[$i - 8], rc($i - 8)),
                    _mm512_add_epi64(
                        _mm512_add_epi64(g(ms[$i - 1]), select(ms[$i - 1], ms[$i - 2], ms[$i - 3])),
                        ms[$i - 4],
                    ),
                );
                ms[$i] = _mm512_rol_epi64::<27>(sb(sum));
            )*};
        }
        let mut w = c[0];
        macro_rules! round {
            ($r:literal, $p:expr) => {
                let p: [__m512i; 4] = $p;
                for j in 0..4 {
                    w[j] = _mm512_xor_si512(w[j], p[j]);
                }
                round!(@step $r, 0);
                round!(@step $r, 1);
                round!(@step $r, 2);
                round!(@step $r, 3);
                bitmix(&mut w);
                if $r < 4 {
                    const NEXT: usize = if $r < 4 { $r + 1 } else { 4 };
                    for j in 0..4 {
                        w[j] = _mm512_xor_si512(w[j], c[NEXT][j]);
                    }
                }
                if $r >= 1 {
                    c[$r] = w;
                }
            };
            (@step $r:literal, $i:literal) => {
                let a = w[($i + 3) % 4];
                let sum = _mm512_add_epi64(
                    _mm512_add_epi64(w[$i], f(a)),
                    _mm512_add_epi64(select(a, w[($i + 2) % 4], w[($i + 1) % 4]), rc(24 - 4 * $r - $i)),
                );
                w[$i] = _mm512_rol_epi64::<25>(sb(sum));
            };
        }
        let at = |s: &[__m512i; 33], k: usize| [s[k], s[k + 1], s[k + 2], s[k + 3]];
        schedule!(8 9 10 11 12);
        let mut p0 = [_mm512_setzero_si512(); 4];
        for j in 0..4 {
            p0[j] = _mm512_xor_si512(_mm512_rol_epi64::<19>(ms[j]), ms[j + 4]);
        }
        bitmix(&mut p0);
        round!(0, p0);
        schedule!(13 14 15 16 17);
        round!(1, at(&ms, 14));
        schedule!(18 19 20 21 22);
        round!(2, at(&ms, 19));
        schedule!(23 24 25 26 27);
        round!(3, at(&ms, 24));
        schedule!(28 29 30 31 32);
        round!(4, at(&ms, 29));
    }
}

/// Byte-swaps every 64-bit lane (blocks are big-endian words).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,gfni")]
#[inline]
fn bswap64(x: __m512i) -> __m512i {
    let order = _mm512_set_epi8(
        56, 57, 58, 59, 60, 61, 62, 63, 48, 49, 50, 51, 52, 53, 54, 55, 40, 41, 42, 43, 44, 45, 46,
        47, 32, 33, 34, 35, 36, 37, 38, 39, 24, 25, 26, 27, 28, 29, 30, 31, 16, 17, 18, 19, 20, 21,
        22, 23, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7,
    );
    _mm512_shuffle_epi8(x, order)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,gfni")]
#[inline(never)]
fn compress_blocks_avx512(
    chains: &mut [Chain<u64>; LANES],
    data: &[u8],
    starts: &[usize; LANES],
    blocks: usize,
) {
    let mut c = kernel::load_chains(chains);
    for b in 0..blocks {
        let mut rows = [_mm512_setzero_si512(); 8];
        for (row, &start) in rows.iter_mut().zip(starts) {
            let block = &data[start + 64 * b..][..64];
            // SAFETY: `block` is 64 in-bounds bytes; the load is unaligned.
            *row = bswap64(unsafe { _mm512_loadu_si512(block.as_ptr().cast()) });
        }
        kernel::compress(kernel::transpose(rows), &mut c);
    }
    kernel::store_chains(&c, chains);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,gfni")]
#[inline(never)]
fn compress_words_avx512(
    chains: &mut [Chain<u64>; LANES],
    inputs: &[[u64; 8]],
    starts: &[usize; LANES],
    count: usize,
) {
    let mut c = kernel::load_chains(chains);
    for k in 0..count {
        let mut rows = [_mm512_setzero_si512(); 8];
        for (row, &start) in rows.iter_mut().zip(starts) {
            let words: &[u64; 8] = &inputs[start + k];
            // SAFETY: `words` is 64 in-bounds bytes; the load is unaligned.
            *row = unsafe { _mm512_loadu_si512(words.as_ptr().cast()) };
        }
        kernel::compress(kernel::transpose(rows), &mut c);
    }
    kernel::store_chains(&c, chains);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::sandstorm::fast::{compress_lanes, load_block};

    fn pseudo_random(seed: u64, n: usize) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    fn chains(seed: u64) -> [Chain<u64>; LANES] {
        let bytes = pseudo_random(seed, LANES * 5 * 4 * 8);
        core::array::from_fn(|l| {
            core::array::from_fn(|r| {
                core::array::from_fn(|j| {
                    let at = ((l * 5 + r) * 4 + j) * 8;
                    u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
                })
            })
        })
    }

    /// Lane starts in a shuffled order and off 64-byte alignment, as the tree hands them over
    /// when superblocks differ in length.
    fn shuffled_starts(stride: usize) -> [usize; LANES] {
        core::array::from_fn(|l| (l * 5) % LANES * stride + l)
    }

    #[test]
    fn wide_blocks_equal_portable() {
        let Some(wide) = Wide::detect() else {
            eprintln!("skipped: no AVX-512 + GFNI here");
            return;
        };
        for (seed, blocks, stride) in [(1u64, 1usize, 64usize), (2, 10, 640), (3, 3, 1000)] {
            let data = pseudo_random(seed, LANES * stride + 64 * blocks);
            let starts = shuffled_starts(stride);
            let start = chains(seed);
            let mut got = start;
            wide.compress_blocks(&mut got, &data, &starts, blocks);
            for l in 0..LANES {
                let mut c = [start[l]];
                for b in 0..blocks {
                    compress_lanes::<u64, 1>(&[load_block(&data[starts[l] + 64 * b..])], &mut c);
                }
                assert_eq!(got[l], c[0], "seed {seed} lane {l}");
            }
        }
    }

    #[test]
    fn wide_words_equal_portable() {
        let Some(wide) = Wide::detect() else {
            eprintln!("skipped: no AVX-512 + GFNI here");
            return;
        };
        let bytes = pseudo_random(9, 8 * 8 * 8 * 13);
        let inputs: Vec<[u64; 8]> = bytes
            .chunks(64)
            .map(|b| {
                core::array::from_fn(|j| u64::from_le_bytes(b[8 * j..][..8].try_into().unwrap()))
            })
            .collect();
        let (stride, count) = (12, 12);
        let starts = shuffled_starts(stride);
        let start = chains(9);
        let mut got = start;
        wide.compress_words(&mut got, &inputs, &starts, count);
        for l in 0..LANES {
            let mut c = [start[l]];
            for k in 0..count {
                compress_lanes::<u64, 1>(&[inputs[starts[l] + k]], &mut c);
            }
            assert_eq!(got[l], c[0], "lane {l}");
        }
    }
}
