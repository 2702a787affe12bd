//! The `rorx` SHA-384/512 compression (x86-64, BMI2 with AVX2 or AVX-512 VL): the form
//! OpenSSL's x86-64 code uses on this class of CPU, written here from the technique.
//!
//! - **Two blocks share one message schedule.** Each 256-bit register holds two schedule words
//!   of the first block and the same two of the second, so computing the schedule of a pair
//!   costs what one block's costs in 128-bit registers. `W + K` of both is stored to a
//!   stack buffer; the first block's rounds run with the schedule instructions interleaved
//!   between them (half a group per round), the second block's rounds run alone on the
//!   stored words.
//! - **The scalar rounds are written in assembly** with BMI2's `rorx` (a non-destructive rotate
//!   that leaves the flags alone), 24 instructions a round: the round of
//!   [`sha256::rorx`](super::super::sha256::rorx) on 64-bit registers. `T1 = h + W + K +
//!   Ch(e, f, g) + Σ1(e)` is summed in `h` and added to `d` (the next `e`), then `Σ0(a)` and
//!   `Maj(a, b, c)` are added to `h` (the next `a`); `Maj` is `((a ^ b) & (b ^ c)) ^ b`, where
//!   `b ^ c` is the previous round's `a ^ b`. The rounds are bound by the issue width, not by
//!   the `e` chain: an order that added `Ch` and `Σ1` to both `d` and `h` (26 instructions,
//!   its `e` chain four cycles where this one's is five) took longer (BENCHMARKS.md, smaller
//!   SHA-2 kernels).
//! - **Loops, not full unrolling:** sixteen rounds a loop iteration with the schedule, eight
//!   without (the first block's last sixteen rounds, the whole second block), so that the code
//!   stays in the micro-op cache; fully unrolled, two blocks of rounds overflow it and decoding
//!   becomes the limit (measured: 0.68x with the AVX2 schedule).
//!
//! Rust (LLVM) does not reach this: it reassociates the round's additions and cannot interleave
//! vector work into scalar rounds at this grain (BENCHMARKS.md, "Performance at the roof").
//! The AVX2 and AVX-512 forms differ only in the schedule's small sigmas (shift pairs against
//! `vprorq` + `vpternlogq`). `sequential` stays the portable twin.

use core::arch::asm;
use core::arch::x86_64::*;

use super::super::consts::K512;
use super::sequential::feed_forward;
use crate::platform::{Avx2, Avx512, Bmi2};

/// Enters the rounds' loop (label `2`) with `x = b ^ c`, the term the first round's Maj
/// takes from the previous round.
macro_rules! loop_entry {
    () => {
        concat!("mov {x}, {b}\n", "xor {x}, {c}\n", "2:")
    };
}

/// One instruction on the asm operands' 64-bit registers (see [`ins!`](crate::algo::asm_text::ins)).
macro_rules! ins {
    ($($t:tt)+) => {
        crate::algo::asm_text::ins!(""; $($t)+)
    };
}

/// One round on `W + K` word `t` at `p`; `x` holds `b ^ c` on entry and `y` leaves `a ^ b` for
/// the next round (the two swap roles each round).
#[rustfmt::skip]
macro_rules! round {
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $x:ident, $y:ident, $t:expr) => {
        concat!(
            "add {", stringify!($h), "}, qword ptr [{p} + 8*(", stringify!($t), ")]\n",
            ins!(mov $y, $f),
            ins!(rorx t0, $e, 14),
            ins!(xor $y, $g),
            ins!(rorx t1, $e, 18),
            ins!(and $y, $e),
            ins!(xor t0, t1),
            ins!(xor $y, $g),
            ins!(rorx t1, $e, 41),
            ins!(add $h, $y),
            ins!(xor t0, t1),
            ins!(add $h, t0),
            ins!(add $d, $h),
            ins!(rorx t0, $a, 28),
            ins!(rorx t1, $a, 34),
            ins!(xor t0, t1),
            ins!(rorx t1, $a, 39),
            ins!(mov $y, $a),
            ins!(xor t0, t1),
            ins!(xor $y, $b),
            ins!(add $h, t0),
            ins!(and $x, $y),
            ins!(xor $x, $b),
            ins!(add $h, $x),
        )
    };
}
/// Eight rounds on `W + K` at `p`, no schedule (the tail of the first block, the second).
macro_rules! rounds8 {
    () => {
        concat!(
            round!(a, b, c, d, e, f, g, h, x, y, 0),
            round!(h, a, b, c, d, e, f, g, y, x, 1),
            round!(g, h, a, b, c, d, e, f, x, y, 2),
            round!(f, g, h, a, b, c, d, e, y, x, 3),
            round!(e, f, g, h, a, b, c, d, x, y, 4),
            round!(d, e, f, g, h, a, b, c, y, x, 5),
            round!(c, d, e, f, g, h, a, b, x, y, 6),
            round!(b, c, d, e, f, g, h, a, y, x, 7),
        )
    };
}

/// σ0 of the pair in `s0` into `s0` (temporaries `s1`, `s2`): rotr 1 ^ rotr 8 ^ shr 7.
macro_rules! sigma0 {
    (avx512) => {
        concat!(
            "vprorq {s1}, {s0}, 1\n",
            "vprorq {s2}, {s0}, 8\n",
            "vpsrlq {s0}, {s0}, 7\n",
            "vpternlogq {s0}, {s1}, {s2}, 0x96\n",
        )
    };
    (avx2) => {
        concat!(
            "vpsrlq {s1}, {s0}, 1\n",
            "vpsllq {s2}, {s0}, 63\n",
            "vpxor {s1}, {s1}, {s2}\n",
            "vpsrlq {s2}, {s0}, 8\n",
            "vpxor {s1}, {s1}, {s2}\n",
            "vpsllq {s2}, {s0}, 56\n",
            "vpxor {s1}, {s1}, {s2}\n",
            "vpsrlq {s0}, {s0}, 7\n",
            "vpxor {s0}, {s0}, {s1}\n",
        )
    };
}
/// σ1 of the pair in `$x` into `s0` (temporaries `s1`, `s2`): rotr 19 ^ rotr 61 ^ shr 6.
macro_rules! sigma1 {
    (avx512, $x:ident) => {
        concat!(
            "vprorq {s0}, {",
            stringify!($x),
            "}, 19\n",
            "vprorq {s1}, {",
            stringify!($x),
            "}, 61\n",
            "vpsrlq {s2}, {",
            stringify!($x),
            "}, 6\n",
            "vpternlogq {s0}, {s1}, {s2}, 0x96\n",
        )
    };
    (avx2, $x:ident) => {
        concat!(
            "vpsrlq {s0}, {",
            stringify!($x),
            "}, 6\n",
            "vpsrlq {s1}, {",
            stringify!($x),
            "}, 19\n",
            "vpxor {s0}, {s0}, {s1}\n",
            "vpsllq {s1}, {",
            stringify!($x),
            "}, 45\n",
            "vpxor {s0}, {s0}, {s1}\n",
            "vpsrlq {s1}, {",
            stringify!($x),
            "}, 61\n",
            "vpxor {s0}, {s0}, {s1}\n",
            "vpsllq {s1}, {",
            stringify!($x),
            "}, 3\n",
            "vpxor {s0}, {s0}, {s1}\n",
        )
    };
}
/// First half of schedule group `j` (words `2j`, `2j + 1` of the next sixteen, both blocks),
/// replacing the group sixteen words back in `xg`: `xg += σ0(W[t-15]) + W[t-7]`.
macro_rules! sched_a {
    ($isa:ident, [$j:literal $xg:ident $xg1:ident $xg4:ident $xg5:ident $xg7:ident]) => {
        concat!(
            "vpalignr {s0}, {",
            stringify!($xg1),
            "}, {",
            stringify!($xg),
            "}, 8\n",
            sigma0!($isa),
            "vpaddq {",
            stringify!($xg),
            "}, {",
            stringify!($xg),
            "}, {s0}\n",
            "vpalignr {s0}, {",
            stringify!($xg5),
            "}, {",
            stringify!($xg4),
            "}, 8\n",
            "vpaddq {",
            stringify!($xg),
            "}, {",
            stringify!($xg),
            "}, {s0}\n",
        )
    };
}
/// Second half: `xg += σ1(W[t-2])`, then `W + K` stored for the first block at `p + 128` and
/// for the second at `p + 768` (its 80 words start 640 bytes after the first's).
macro_rules! sched_b {
    ($isa:ident, [$j:literal $xg:ident $xg1:ident $xg4:ident $xg5:ident $xg7:ident]) => {
        concat!(
            sigma1!($isa, $xg7),
            "vpaddq {",
            stringify!($xg),
            "}, {",
            stringify!($xg),
            "}, {s0}\n",
            "vpaddq {s0}, {",
            stringify!($xg),
            "}, ymmword ptr [{kp} + 32*",
            stringify!($j),
            "]\n",
            "vmovdqa xmmword ptr [{p} + 128 + 16*",
            stringify!($j),
            "], {s0:x}\n",
            "vextracti128 xmmword ptr [{p} + 768 + 16*",
            stringify!($j),
            "], {s0}, 1\n",
        )
    };
}
/// Sixteen rounds with the eight schedule groups 16 words ahead, half a group per round.
macro_rules! rounds16_sched {
    ($isa:ident) => { concat!(
        round!(a, b, c, d, e, f, g, h, x, y, 0), sched_a!($isa, [0 x0 x1 x4 x5 x7]),
        round!(h, a, b, c, d, e, f, g, y, x, 1), sched_b!($isa, [0 x0 x1 x4 x5 x7]),
        round!(g, h, a, b, c, d, e, f, x, y, 2), sched_a!($isa, [1 x1 x2 x5 x6 x0]),
        round!(f, g, h, a, b, c, d, e, y, x, 3), sched_b!($isa, [1 x1 x2 x5 x6 x0]),
        round!(e, f, g, h, a, b, c, d, x, y, 4), sched_a!($isa, [2 x2 x3 x6 x7 x1]),
        round!(d, e, f, g, h, a, b, c, y, x, 5), sched_b!($isa, [2 x2 x3 x6 x7 x1]),
        round!(c, d, e, f, g, h, a, b, x, y, 6), sched_a!($isa, [3 x3 x4 x7 x0 x2]),
        round!(b, c, d, e, f, g, h, a, y, x, 7), sched_b!($isa, [3 x3 x4 x7 x0 x2]),
        round!(a, b, c, d, e, f, g, h, x, y, 8), sched_a!($isa, [4 x4 x5 x0 x1 x3]),
        round!(h, a, b, c, d, e, f, g, y, x, 9), sched_b!($isa, [4 x4 x5 x0 x1 x3]),
        round!(g, h, a, b, c, d, e, f, x, y, 10), sched_a!($isa, [5 x5 x6 x1 x2 x4]),
        round!(f, g, h, a, b, c, d, e, y, x, 11), sched_b!($isa, [5 x5 x6 x1 x2 x4]),
        round!(e, f, g, h, a, b, c, d, x, y, 12), sched_a!($isa, [6 x6 x7 x2 x3 x5]),
        round!(d, e, f, g, h, a, b, c, y, x, 13), sched_b!($isa, [6 x6 x7 x2 x3 x5]),
        round!(c, d, e, f, g, h, a, b, x, y, 14), sched_a!($isa, [7 x7 x0 x3 x4 x6]),
        round!(b, c, d, e, f, g, h, a, y, x, 15), sched_b!($isa, [7 x7 x0 x3 x4 x6]),
    )};
}

/// `K` as pairs, each pair twice (once per block of a 256-bit register), 32-byte aligned.
#[repr(C, align(32))]
struct KPairs([u64; 160]);

static K_PAIRS: KPairs = {
    let mut k = [0u64; 160];
    let mut g = 0;
    while g < 40 {
        k[4 * g] = K512[2 * g];
        k[4 * g + 1] = K512[2 * g + 1];
        k[4 * g + 2] = K512[2 * g];
        k[4 * g + 3] = K512[2 * g + 1];
        g += 1;
    }
    KPairs(k)
};

/// `W + K` of a pair of blocks: the first block's 80 words, then the second's.
#[repr(C, align(32))]
struct Wk([u64; 160]);

/// The 80 rounds of one block on stored `W + K`, feed-forward included.
///
/// # Safety
/// `wk` must point to 80 readable words; the CPU must support BMI1 and BMI2.
#[inline(always)]
unsafe fn rounds80(state: &mut [u64; 8], wk: *const u64) {
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    // SAFETY: the loop reads `wk[0..80]` (ten iterations of eight words, `p` advancing 64
    // bytes each), which the caller guarantees; only register operands are written; the
    // instructions need BMI1/BMI2, which the caller guarantees.
    unsafe {
        asm!(
            loop_entry!(),
            rounds8!(),
            "add {p}, 64",
            "dec {n:e}",
            "jnz 2b",
            p = inout(reg) wk => _,
            n = inout(reg) 10u32 => _,
            a = inout(reg) a, b = inout(reg) b, c = inout(reg) c, d = inout(reg) d,
            e = inout(reg) e, f = inout(reg) f, g = inout(reg) g, h = inout(reg) h,
            x = out(reg) _, y = out(reg) _, t0 = out(reg) _, t1 = out(reg) _,
            options(readonly, nostack),
        );
    }
    feed_forward(state, [a, b, c, d, e, f, g, h]);
}

/// Stamps one ISA's kernel: blocks in pairs (a lone last block is paired with itself and its
/// twin's rounds skipped).
macro_rules! kernel {
    ($name:ident, $isa:ident, $features:literal) => {
        /// # Safety
        #[doc = concat!("The CPU must support ", $features, ".")]
        #[target_feature(enable = $features)]
        unsafe fn $name(state: &mut [u64; 8], blocks: &[[u8; 128]]) {
            let mut wk = Wk([0; 160]);
            // Byte order within each 64-bit word: the message is big-endian.
            let be = _mm256_set_epi64x(
                0x0809_0a0b_0c0d_0e0f,
                0x0001_0203_0405_0607,
                0x0809_0a0b_0c0d_0e0f,
                0x0001_0203_0405_0607,
            );
            for pair in blocks.chunks(2) {
                let (b0, b1) = (&pair[0], pair.last().expect("chunks are not empty"));
                let kp = K_PAIRS.0.as_ptr().cast::<__m256i>();
                let wp = wk.0.as_mut_ptr().cast::<__m128i>();
                let mut x = [_mm256_setzero_si256(); 8];
                for (j, xj) in x.iter_mut().enumerate() {
                    // SAFETY: j < 8: 16-byte loads inside each 128-byte block, a 32-byte
                    // aligned load inside K_PAIRS' first 16 words, aligned 16-byte stores to
                    // words 2j, 2j+1 and 80+2j, 81+2j of `wk`.
                    unsafe {
                        let lo = _mm_loadu_si128(b0.as_ptr().cast::<__m128i>().add(j));
                        let hi = _mm_loadu_si128(b1.as_ptr().cast::<__m128i>().add(j));
                        *xj = _mm256_shuffle_epi8(_mm256_set_m128i(hi, lo), be);
                        let s = _mm256_add_epi64(*xj, _mm256_load_si256(kp.add(j)));
                        _mm_store_si128(wp.add(j), _mm256_castsi256_si128(s));
                        _mm_store_si128(wp.add(40 + j), _mm256_extracti128_si256::<1>(s));
                    }
                }
                let [x0, x1, x2, x3, x4, x5, x6, x7] = x;
                let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
                // SAFETY: four iterations each run sixteen rounds on `wk[16i..16i + 16]` and
                // store the schedule groups of the next sixteen words of both blocks
                // (`wk[16i + 16..16i + 32]` and `wk[96 + 16i..112 + 16i]`, all inside the
                // 160 words, 16-byte aligned), reading K_PAIRS[32 + 32i..64 + 32i]; then
                // two iterations of eight rounds on `wk[64..80]`. Only `wk` is written; the
                // CPU has the features the function enables.
                unsafe {
                    asm!(
                        loop_entry!(),
                        rounds16_sched!($isa),
                        "add {p}, 128",
                        "add {kp}, 256",
                        "lea {t0}, [rip + {k_pairs} + 1280]",
                        "cmp {kp}, {t0}",
                        "jne 2b",
                        "mov {kp:e}, 2",
                        "3:",
                        rounds8!(),
                        "add {p}, 64",
                        "dec {kp:e}",
                        "jnz 3b",
                        p = inout(reg) wk.0.as_mut_ptr() => _,
                        k_pairs = sym K_PAIRS,
                        kp = inout(reg) K_PAIRS.0.as_ptr().add(32) => _,
                        a = inout(reg) a, b = inout(reg) b, c = inout(reg) c, d = inout(reg) d,
                        e = inout(reg) e, f = inout(reg) f, g = inout(reg) g, h = inout(reg) h,
                        x = out(reg) _, y = out(reg) _, t0 = out(reg) _, t1 = out(reg) _,
                        x0 = inout(ymm_reg) x0 => _, x1 = inout(ymm_reg) x1 => _,
                        x2 = inout(ymm_reg) x2 => _, x3 = inout(ymm_reg) x3 => _,
                        x4 = inout(ymm_reg) x4 => _, x5 = inout(ymm_reg) x5 => _,
                        x6 = inout(ymm_reg) x6 => _, x7 = inout(ymm_reg) x7 => _,
                        s0 = out(ymm_reg) _, s1 = out(ymm_reg) _, s2 = out(ymm_reg) _,
                        options(nostack),
                    );
                }
                feed_forward(state, [a, b, c, d, e, f, g, h]);
                if pair.len() == 2 {
                    // SAFETY: words 80..160 of `wk` hold the second block's `W + K`; BMI1/2
                    // are among this function's features.
                    unsafe { rounds80(state, wk.0.as_ptr().add(80)) };
                }
            }
        }
    };
}

kernel!(kernel_avx2, avx2, "avx2,avx,bmi1,bmi2");
kernel!(kernel_avx512, avx512, "avx512f,avx512vl,avx2,avx,bmi1,bmi2");

/// `rorx-avx2`: compresses whole 128-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks_avx2(avx2: Avx2, bmi2: Bmi2, state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    let _ = (avx2, bmi2);
    // SAFETY: the tokens prove AVX2 (with AVX) and BMI1/BMI2 on this CPU.
    unsafe { kernel_avx2(state, blocks) }
}

/// `rorx-avx512`: compresses whole 128-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks_avx512(
    avx512: Avx512,
    bmi2: Bmi2,
    state: &mut [u64; 8],
    blocks: &[[u8; 128]],
) {
    let _ = (avx512, bmi2);
    // SAFETY: the tokens prove AVX-512 F/VL (with AVX2) and BMI1/BMI2 on this CPU.
    unsafe { kernel_avx512(state, blocks) }
}
