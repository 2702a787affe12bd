//! The `rorx` SHA-224/256 compression (x86-64, BMI2 with AVX2 or AVX-512 VL), for CPUs without
//! the SHA extensions: the SHA-512 [`rorx`](super::super::sha512::rorx) form on 32-bit words,
//! the technique OpenSSL's x86-64 code uses on this class of CPU (written here from it).
//!
//! - **Two blocks share one message schedule.** Each 256-bit register holds four schedule
//!   words of the first block and the same four of the second, so a pair's schedule costs what
//!   one block's costs in 128-bit registers. `W + K` of both is stored to a stack buffer as
//!   the register holds it (one 32-byte store, the two blocks' words interleaved in groups of
//!   four); the first block's rounds run with the schedule instructions interleaved between
//!   them (a quarter of a group per round), the second block's rounds run alone on the stored
//!   words.
//! - **The scalar rounds are written in assembly** with BMI2's `rorx` (a non-destructive
//!   rotate that leaves the flags alone): `T1 = h + W + K + Ch(e, f, g) + Σ1(e)` summed in `h`
//!   and added to `d` (the next `e`), then `Σ0(a)` and `Maj(a, b, c)` added to `h` (the next
//!   `a`); `Maj` is `((a ^ b) & (b ^ c)) ^ b`, where `b ^ c` is the previous round's `a ^ b`.
//!   24 instructions a round (an order that adds `Ch` and `Σ1` to both `d` and `h` takes 26:
//!   no faster here, 4 % slower in SHA-512's, which now uses this round too).
//! - **σ1 on doubled words** (AVX2): `vpshufd` copies each of two words into both halves of
//!   a 64-bit lane, where a 64-bit shift is a 32-bit rotate, and `vpshufb` gathers the results:
//!   eight instructions for each half group's σ1 where shift pairs take eleven.
//! - **Small loops:** sixteen rounds with the schedule, eight without (the first block's last
//!   sixteen rounds, the whole second block): 4.6 KB of code, not 6.2, and faster on a
//!   Cascade Lake VM (BENCHMARKS.md, smaller SHA-2 kernels), most likely because the smaller
//!   code stays in the micro-op cache (the VM exposes no counters to confirm it).
//!
//! The Rust `parallel` form with the same rounds stays slower than OpenSSL (BENCHMARKS.md, SHA-1
//! and SHA-256 without the SHA extensions): the compiler reassociates the round's additions
//! and cannot interleave the vector work into the rounds at this grain.
//! The AVX2 and AVX-512 forms differ only in the schedule's small sigmas (shift pairs against
//! `vprord` + `vpternlogd`). `sequential` stays the portable twin.
//!
//! Measured and not kept (BENCHMARKS.md, SHA-256's stored schedule): four blocks' schedule
//! in 512-bit registers (a quarter of the schedule's instructions per block, but the AVX-512
//! clock licence slows these rounds and whatever runs after them), `lea` for the round's
//! additions, `Ch` as `(e & f) + (!e & g)` with `andn`, and OpenSSL's whole round (`Σ0(a)`
//! added at the next round's start, its register freed by a copy of `K` beside `W + K`).

use core::arch::asm;
use core::arch::x86_64::*;

use super::super::consts::K256;
use super::sequential::feed_forward;
use crate::platform::{Avx2, Avx512, Bmi2};

/// One round on `W + K` at byte offset `off` from `p`, on 32-bit registers; `x` holds `b ^ c`
/// on entry and `y` leaves `a ^ b` for the next round (the two swap roles each round).
#[rustfmt::skip]
macro_rules! round {
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $x:ident, $y:ident, $off:literal) => {
        concat!(
            "add ", "{", stringify!($h), ":e}", ", ", "dword ptr [{p} + ", $off, "]", "\n",
            "mov ", "{", stringify!($y), ":e}", ", ", "{", stringify!($f), ":e}", "\n",
            "rorx ", "{t0:e}", ", ", "{", stringify!($e), ":e}", ", ", "6", "\n",
            "xor ", "{", stringify!($y), ":e}", ", ", "{", stringify!($g), ":e}", "\n",
            "rorx ", "{t1:e}", ", ", "{", stringify!($e), ":e}", ", ", "11", "\n",
            "and ", "{", stringify!($y), ":e}", ", ", "{", stringify!($e), ":e}", "\n",
            "xor ", "{t0:e}", ", ", "{t1:e}", "\n",
            "xor ", "{", stringify!($y), ":e}", ", ", "{", stringify!($g), ":e}", "\n",
            "rorx ", "{t1:e}", ", ", "{", stringify!($e), ":e}", ", ", "25", "\n",
            "add ", "{", stringify!($h), ":e}", ", ", "{", stringify!($y), ":e}", "\n",
            "xor ", "{t0:e}", ", ", "{t1:e}", "\n",
            "add ", "{", stringify!($h), ":e}", ", ", "{t0:e}", "\n",
            "add ", "{", stringify!($d), ":e}", ", ", "{", stringify!($h), ":e}", "\n",
            "rorx ", "{t0:e}", ", ", "{", stringify!($a), ":e}", ", ", "2", "\n",
            "rorx ", "{t1:e}", ", ", "{", stringify!($a), ":e}", ", ", "13", "\n",
            "xor ", "{t0:e}", ", ", "{t1:e}", "\n",
            "rorx ", "{t1:e}", ", ", "{", stringify!($a), ":e}", ", ", "22", "\n",
            "mov ", "{", stringify!($y), ":e}", ", ", "{", stringify!($a), ":e}", "\n",
            "xor ", "{t0:e}", ", ", "{t1:e}", "\n",
            "xor ", "{", stringify!($y), ":e}", ", ", "{", stringify!($b), ":e}", "\n",
            "add ", "{", stringify!($h), ":e}", ", ", "{t0:e}", "\n",
            "and ", "{", stringify!($x), ":e}", ", ", "{", stringify!($y), ":e}", "\n",
            "xor ", "{", stringify!($x), ":e}", ", ", "{", stringify!($b), ":e}", "\n",
            "add ", "{", stringify!($h), ":e}", ", ", "{", stringify!($x), ":e}", "\n",
        )
    };
}

/// Enters the rounds' loop (label `2`) with `x = b ^ c`, the term the first round's Maj
/// takes from the previous round.
macro_rules! loop_entry {
    () => {
        concat!("mov {x:e}, {b:e}\n", "xor {x:e}, {c:e}\n", "2:")
    };
}

/// Eight rounds on `W + K` from `p`, no schedule (the tail of the first block, the second):
/// a block's four words of each group sit 32 bytes after the previous group's.
macro_rules! rounds8 {
    () => {
        concat!(
            round!(a, b, c, d, e, f, g, h, x, y, "0"),
            round!(h, a, b, c, d, e, f, g, y, x, "4"),
            round!(g, h, a, b, c, d, e, f, x, y, "8"),
            round!(f, g, h, a, b, c, d, e, y, x, "12"),
            round!(e, f, g, h, a, b, c, d, x, y, "32"),
            round!(d, e, f, g, h, a, b, c, y, x, "36"),
            round!(c, d, e, f, g, h, a, b, x, y, "40"),
            round!(b, c, d, e, f, g, h, a, y, x, "44"),
        )
    };
}

/// σ0 of the words in `s0` into `s0` (temporaries `s1`, `s2`): rotr 7 ^ rotr 18 ^ shr 3.
macro_rules! sigma0 {
    (avx512) => {
        concat!(
            "vprord {s1}, {s0}, 7\n",
            "vprord {s2}, {s0}, 18\n",
            "vpsrld {s0}, {s0}, 3\n",
            "vpternlogd {s0}, {s1}, {s2}, 0x96\n",
        )
    };
    (avx2) => {
        concat!(
            "vpsrld {s1}, {s0}, 7\n",
            "vpslld {s2}, {s0}, 25\n",
            "vpxor {s1}, {s1}, {s2}\n",
            "vpsrld {s2}, {s0}, 18\n",
            "vpxor {s1}, {s1}, {s2}\n",
            "vpslld {s2}, {s0}, 14\n",
            "vpxor {s1}, {s1}, {s2}\n",
            "vpsrld {s0}, {s0}, 3\n",
            "vpxor {s0}, {s0}, {s1}\n",
        )
    };
}

/// σ1 of the words in `s3` into `s0` (temporaries `s1`, `s2`): rotr 17 ^ rotr 19 ^ shr 10.
macro_rules! sigma1 {
    (avx512) => {
        concat!(
            "vprord {s0}, {s3}, 17\n",
            "vprord {s1}, {s3}, 19\n",
            "vpsrld {s2}, {s3}, 10\n",
            "vpternlogd {s0}, {s1}, {s2}, 0x96\n",
        )
    };
    (avx2) => {
        concat!(
            "vpsrld {s0}, {s3}, 10\n",
            "vpsrld {s1}, {s3}, 17\n",
            "vpxor {s0}, {s0}, {s1}\n",
            "vpslld {s1}, {s3}, 15\n",
            "vpxor {s0}, {s0}, {s1}\n",
            "vpsrld {s1}, {s3}, 19\n",
            "vpxor {s0}, {s0}, {s1}\n",
            "vpslld {s1}, {s3}, 13\n",
            "vpxor {s0}, {s0}, {s1}\n",
        )
    };
}

/// σ1 of the low half of each 64-bit lane of `s3`, whose two halves hold the same word, into
/// the low halves of `s0` (`s3` is clobbered): `(x >> 10) ^ rotr(x, 17) ^ rotr(x, 19)`, the
/// rotates as 64-bit shifts by 17 and then 2 more.
macro_rules! sigma1_doubled {
    () => {
        concat!(
            "vpsrld {s0}, {s3}, 10\n",
            "vpsrlq {s3}, {s3}, 17\n",
            "vpxor {s0}, {s0}, {s3}\n",
            "vpsrlq {s3}, {s3}, 2\n",
            "vpxor {s0}, {s0}, {s3}\n",
        )
    };
}

/// `xg += s0` (32-bit lanes).
macro_rules! add_s0 {
    ($xg:ident) => {
        concat!(
            "vpaddd {",
            stringify!($xg),
            "}, {",
            stringify!($xg),
            "}, {s0}\n"
        )
    };
}

/// A quarter of schedule group `j` (words `4j..4j + 4` of the next sixteen, both blocks),
/// which replaces the group sixteen words back in `xg`; `xg1`, `xg2`, `xg3` are the three
/// groups after it (the newer ones already replaced).
macro_rules! sched {
    // xg += σ0(W[t-15..t-12]) + W[t-7..t-4].
    (0 $isa:ident, [$j:literal $xg:ident $xg1:ident $xg2:ident $xg3:ident]) => {
        concat!(
            "vpalignr {s0}, {",
            stringify!($xg1),
            "}, {",
            stringify!($xg),
            "}, 4\n",
            sigma0!($isa),
            add_s0!($xg),
            "vpalignr {s0}, {",
            stringify!($xg3),
            "}, {",
            stringify!($xg2),
            "}, 4\n",
            add_s0!($xg),
        )
    };
    // AVX2, words 0 and 1: + σ1(W[t-2], W[t-1]) with each word doubled into a 64-bit lane,
    // where one 64-bit shift is a 32-bit rotate of its low half; `vpshufb` then gathers the
    // low halves into words 0 and 1 and zeroes 2 and 3.
    (1 avx2, [$j:literal $xg:ident $xg1:ident $xg2:ident $xg3:ident]) => {
        concat!(
            "vpshufd {s3}, {",
            stringify!($xg3),
            "}, 0xfa\n",
            sigma1_doubled!(),
            "vpshufb {s0}, {s0}, {low01}\n",
            add_s0!($xg),
        )
    };
    // AVX2, words 2 and 3: + σ1 of the words 0 and 1 just made, the same way.
    (2 avx2, [$j:literal $xg:ident $xg1:ident $xg2:ident $xg3:ident]) => {
        concat!(
            "vpshufd {s3}, {",
            stringify!($xg),
            "}, 0x50\n",
            sigma1_doubled!(),
            "vpshufb {s0}, {s0}, {low23}\n",
            add_s0!($xg),
        )
    };
    // Words 0 and 1: + σ1(W[t-2], W[t-1]) (σ1(0) = 0 leaves words 2 and 3 alone).
    (1 $isa:ident, [$j:literal $xg:ident $xg1:ident $xg2:ident $xg3:ident]) => {
        concat!(
            "vpsrldq {s3}, {",
            stringify!($xg3),
            "}, 8\n",
            sigma1!($isa),
            add_s0!($xg),
        )
    };
    // Words 2 and 3: + σ1 of the words 0 and 1 just made.
    (2 $isa:ident, [$j:literal $xg:ident $xg1:ident $xg2:ident $xg3:ident]) => {
        concat!(
            "vpslldq {s3}, {",
            stringify!($xg),
            "}, 8\n",
            sigma1!($isa),
            add_s0!($xg),
        )
    };
    // `W + K` of both blocks, as the register holds them, at `p + 128 + 32j`: group `j` of the
    // next sixteen words.
    (3 $isa:ident, [$j:literal $xg:ident $xg1:ident $xg2:ident $xg3:ident]) => {
        concat!(
            "vpaddd {s0}, {",
            stringify!($xg),
            "}, ymmword ptr [{kp} + 32*",
            stringify!($j),
            "]\n",
            "vmovdqa ymmword ptr [{p} + 128 + 32*",
            stringify!($j),
            "], {s0}\n",
        )
    };
}

/// Sixteen rounds with the four schedule groups sixteen words ahead, a quarter group a round.
macro_rules! rounds16_sched {
    ($isa:ident) => { concat!(
        round!(a, b, c, d, e, f, g, h, x, y, "0"), sched!(0 $isa, [0 x0 x1 x2 x3]),
        round!(h, a, b, c, d, e, f, g, y, x, "4"), sched!(1 $isa, [0 x0 x1 x2 x3]),
        round!(g, h, a, b, c, d, e, f, x, y, "8"), sched!(2 $isa, [0 x0 x1 x2 x3]),
        round!(f, g, h, a, b, c, d, e, y, x, "12"), sched!(3 $isa, [0 x0 x1 x2 x3]),
        round!(e, f, g, h, a, b, c, d, x, y, "32"), sched!(0 $isa, [1 x1 x2 x3 x0]),
        round!(d, e, f, g, h, a, b, c, y, x, "36"), sched!(1 $isa, [1 x1 x2 x3 x0]),
        round!(c, d, e, f, g, h, a, b, x, y, "40"), sched!(2 $isa, [1 x1 x2 x3 x0]),
        round!(b, c, d, e, f, g, h, a, y, x, "44"), sched!(3 $isa, [1 x1 x2 x3 x0]),
        round!(a, b, c, d, e, f, g, h, x, y, "64"), sched!(0 $isa, [2 x2 x3 x0 x1]),
        round!(h, a, b, c, d, e, f, g, y, x, "68"), sched!(1 $isa, [2 x2 x3 x0 x1]),
        round!(g, h, a, b, c, d, e, f, x, y, "72"), sched!(2 $isa, [2 x2 x3 x0 x1]),
        round!(f, g, h, a, b, c, d, e, y, x, "76"), sched!(3 $isa, [2 x2 x3 x0 x1]),
        round!(e, f, g, h, a, b, c, d, x, y, "96"), sched!(0 $isa, [3 x3 x0 x1 x2]),
        round!(d, e, f, g, h, a, b, c, y, x, "100"), sched!(1 $isa, [3 x3 x0 x1 x2]),
        round!(c, d, e, f, g, h, a, b, x, y, "104"), sched!(2 $isa, [3 x3 x0 x1 x2]),
        round!(b, c, d, e, f, g, h, a, y, x, "108"), sched!(3 $isa, [3 x3 x0 x1 x2]),
    )};
}

/// `K` in groups of four, each group twice (once per block of a 256-bit register), 32-byte
/// aligned.
#[repr(C, align(32))]
struct KGroups([u32; 128]);

static K_GROUPS: KGroups = {
    let mut k = [0u32; 128];
    let mut g = 0;
    while g < 16 {
        let mut i = 0;
        while i < 4 {
            k[8 * g + i] = K256[4 * g + i];
            k[8 * g + 4 + i] = K256[4 * g + i];
            i += 1;
        }
        g += 1;
    }
    KGroups(k)
};

/// `W + K` of a pair of blocks, interleaved as a 256-bit register holds them: word `4g + i` of
/// block `b` at `8g + 4b + i`.
#[repr(C, align(32))]
struct Wk([u32; 128]);

/// The 64 rounds of one block on stored `W + K`, feed-forward included.
///
/// # Safety
/// `wk` must point to a block's first word in a [`Wk`] (words `8g..8g + 4` readable for
/// g < 16); the CPU must support BMI1 and BMI2.
#[inline(always)]
unsafe fn rounds64(state: &mut [u32; 8], wk: *const u32) {
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    // SAFETY: the loop reads words `8g..8g + 4` from `wk` (eight iterations of two groups, `p`
    // advancing 64 bytes each), which the caller guarantees; only register operands are
    // written; the instructions need BMI1/BMI2, which the caller guarantees.
    unsafe {
        asm!(
            loop_entry!(),
            rounds8!(),
            "add {p}, 64",
            "dec {n:e}",
            "jnz 2b",
            p = inout(reg) wk => _,
            n = inout(reg) 8u32 => _,
            a = inout(reg) a, b = inout(reg) b, c = inout(reg) c, d = inout(reg) d,
            e = inout(reg) e, f = inout(reg) f, g = inout(reg) g, h = inout(reg) h,
            x = out(reg) _, y = out(reg) _, t0 = out(reg) _, t1 = out(reg) _,
            options(readonly, nostack),
        );
    }
    feed_forward(state, [a, b, c, d, e, f, g, h]);
}

/// Stamps one ISA's kernel: blocks in pairs (a lone last block is paired with itself and its
/// twin's rounds skipped). `$operand = $value` pairs are extra `ymm` inputs its schedule uses.
macro_rules! kernel {
    ($name:ident, $isa:ident, $features:literal $(, $operand:ident = $value:expr)*) => {
        /// # Safety
        #[doc = concat!("The CPU must support ", $features, ".")]
        #[target_feature(enable = $features)]
        unsafe fn $name(state: &mut [u32; 8], blocks: &[[u8; 64]]) {
            let mut wk = Wk([0; 128]);
            // Byte order within each 32-bit word: the message is big-endian.
            let be = _mm256_set_epi64x(
                0x0c0d_0e0f_0809_0a0b,
                0x0405_0607_0001_0203,
                0x0c0d_0e0f_0809_0a0b,
                0x0405_0607_0001_0203,
            );
            for pair in blocks.chunks(2) {
                let (b0, b1) = (&pair[0], pair.last().expect("chunks are not empty"));
                let kp = K_GROUPS.0.as_ptr().cast::<__m256i>();
                let wp = wk.0.as_mut_ptr().cast::<__m256i>();
                let mut x = [_mm256_setzero_si256(); 4];
                for (j, xj) in x.iter_mut().enumerate() {
                    // SAFETY: j < 4: 16-byte loads inside each 64-byte block, a 32-byte
                    // aligned load inside K_GROUPS' first 32 words, an aligned 32-byte store
                    // to words 8j..8j + 8 of `wk`.
                    unsafe {
                        let lo = _mm_loadu_si128(b0.as_ptr().cast::<__m128i>().add(j));
                        let hi = _mm_loadu_si128(b1.as_ptr().cast::<__m128i>().add(j));
                        *xj = _mm256_shuffle_epi8(_mm256_set_m128i(hi, lo), be);
                        let s = _mm256_add_epi32(*xj, _mm256_load_si256(kp.add(j)));
                        _mm256_store_si256(wp.add(j), s);
                    }
                }
                let [x0, x1, x2, x3] = x;
                let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
                // SAFETY: three iterations each run sixteen rounds on `wk[32i..32i + 32]`
                // (the first block's words) and store the schedule groups of the next sixteen
                // words of both blocks (`wk[32i + 32..32i + 64]`, inside the 128 words,
                // 32-byte aligned), reading K_GROUPS[32 + 32i..64 + 32i]; then two iterations
                // of eight rounds on `wk[96..128]`. Only `wk` is written; the CPU has the
                // features the function enables.
                unsafe {
                    asm!(
                        loop_entry!(),
                        rounds16_sched!($isa),
                        "add {p}, 128",
                        "add {kp}, 128",
                        "lea {t0}, [rip + {k_groups} + 512]",
                        "cmp {kp}, {t0}",
                        "jne 2b",
                        "mov {kp:e}, 2",
                        "3:",
                        rounds8!(),
                        "add {p}, 64",
                        "dec {kp:e}",
                        "jnz 3b",
                        p = inout(reg) wk.0.as_mut_ptr() => _,
                        k_groups = sym K_GROUPS,
                        kp = inout(reg) K_GROUPS.0.as_ptr().add(32) => _,
                        a = inout(reg) a, b = inout(reg) b, c = inout(reg) c, d = inout(reg) d,
                        e = inout(reg) e, f = inout(reg) f, g = inout(reg) g, h = inout(reg) h,
                        x = out(reg) _, y = out(reg) _, t0 = out(reg) _, t1 = out(reg) _,
                        x0 = inout(ymm_reg) x0 => _, x1 = inout(ymm_reg) x1 => _,
                        x2 = inout(ymm_reg) x2 => _, x3 = inout(ymm_reg) x3 => _,
                        s0 = out(ymm_reg) _, s1 = out(ymm_reg) _, s2 = out(ymm_reg) _,
                        s3 = out(ymm_reg) _,
                        $($operand = in(ymm_reg) $value,)*
                        options(nostack),
                    );
                }
                feed_forward(state, [a, b, c, d, e, f, g, h]);
                if pair.len() == 2 {
                    // SAFETY: words `8g + 4..8g + 8` of `wk` hold the second block's `W + K`;
                    // BMI1/2 are among this function's features.
                    unsafe { rounds64(state, wk.0.as_ptr().add(4)) };
                }
            }
        }
    };
}

kernel!(
    kernel_avx2,
    avx2,
    "avx2,avx,bmi1,bmi2",
    low01 = _mm256_set_epi64x(-1, 0x0b0a_0908_0302_0100, -1, 0x0b0a_0908_0302_0100),
    low23 = _mm256_set_epi64x(0x0b0a_0908_0302_0100, -1, 0x0b0a_0908_0302_0100, -1)
);
kernel!(kernel_avx512, avx512, "avx512f,avx512vl,avx2,avx,bmi1,bmi2");

/// `rorx-avx2`: compresses whole 64-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks_avx2(avx2: Avx2, bmi2: Bmi2, state: &mut [u32; 8], blocks: &[[u8; 64]]) {
    let _ = (avx2, bmi2);
    // SAFETY: the tokens prove AVX2 (with AVX) and BMI1/BMI2 on this CPU.
    unsafe { kernel_avx2(state, blocks) }
}

/// `rorx-avx512`: compresses whole 64-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks_avx512(
    avx512: Avx512,
    bmi2: Bmi2,
    state: &mut [u32; 8],
    blocks: &[[u8; 64]],
) {
    let _ = (avx512, bmi2);
    // SAFETY: the tokens prove AVX-512 F/VL (with AVX2) and BMI1/BMI2 on this CPU.
    unsafe { kernel_avx512(state, blocks) }
}
