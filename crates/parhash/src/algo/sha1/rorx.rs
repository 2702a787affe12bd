//! SHA-1's rounds in assembly (x86-64, BMI2) beside the `parallel-avx2` schedule, for CPUs
//! without the SHA extensions: the technique OpenSSL's x86-64 code uses on this class of CPU.
//!
//! - **The schedule is [`super::parallel_avx2`]'s**: four words of each of two blocks per
//!   256-bit register, stored as `W + K`; group `g + 4` is computed just before the first
//!   block's rounds of group `g`, so the out-of-order core runs the two side by side.
//! - **The rounds are written in assembly**, four to an `asm!` block between the schedule
//!   steps, with BMI2's `rorx` (a rotate into another register) and `andn`: a round rotates
//!   `b` into a spare register and then consumes `b` for `F(b, c, d)`, so nothing is copied,
//!   and the six registers change roles each round (`a, b, c, d, e, spare` become
//!   `e, a, spare, c, d, b`). `Ch` is `(b & c) + (!b & d)`, `Maj` `(b & c) + (d & (b ^ c))`
//!   (the two terms never share a bit): 8, 7 and 10 instructions for the Ch, Parity and Maj
//!   rounds, about 9 in the compiler's form. The terms that depend on the previous round's `a`
//!   are added first and `rotl5(a)` last, so a round's critical path is two instructions.
//! - A lone last block is scheduled beside itself and only its own rounds run.
//!
//! `sequential` stays the portable twin.

use core::arch::asm;

use super::parallel_avx2::{schedule_group, start_pair};
use crate::platform::{Avx2, Bmi2};

/// One instruction on the asm operands' 32-bit registers (see [`ins!`](crate::algo::asm_text::ins)).
macro_rules! ins {
    ($($t:tt)+) => {
        crate::algo::asm_text::ins!(":e"; $($t)+)
    };
}

/// A round on 32-bit registers: `e += W + K` (at `p + off`) `+ F(b, c, d) + rotl5(a)`, and
/// `s = rotl30(b)`, which leaves `b`'s register free for the next round's spare.
/// `$kind` is `ch`, `parity` or `maj`; each computes `F(b, c, d)` (into `b`) in its own order.
#[rustfmt::skip]
macro_rules! round {
    ($kind:ident, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $s:ident, $off:expr) => {
        concat!(
            "add {", stringify!($e), ":e}, dword ptr [{p} + ", stringify!($off), "]\n",
            round!(@$kind $a, $b, $c, $d, $e, $s),
        )
    };
    (@ch $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $s:ident) => {
        concat!(
            ins!(andn t0, $b, $d),
            ins!(rorx $s, $b, 2),
            ins!(add $e, t0),
            ins!(and $b, $c),
            ins!(rorx t1, $a, 27),
            ins!(add $e, $b),
            ins!(add $e, t1),
        )
    };
    (@parity $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $s:ident) => {
        concat!(
            ins!(rorx $s, $b, 2),
            ins!(xor $b, $c),
            ins!(rorx t1, $a, 27),
            ins!(xor $b, $d),
            ins!(add $e, $b),
            ins!(add $e, t1),
        )
    };
    (@maj $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $s:ident) => {
        concat!(
            ins!(mov t0, $b),
            ins!(rorx $s, $b, 2),
            ins!(xor t0, $c),
            ins!(and $b, $c),
            ins!(and t0, $d),
            ins!(add $e, $b),
            ins!(rorx t1, $a, 27),
            ins!(add $e, t0),
            ins!(add $e, t1),
        )
    };
}

/// Four rounds from the one whose `W + K` is at `p + off`. The six registers' roles rotate each
/// round; the caller renames the operands afterwards with [`rename_after_four`].
#[rustfmt::skip]
macro_rules! four_rounds {
    ($f:ident, $off:expr) => {
        concat!(
            round!($f, a, b, c, d, e, s, $off),
            round!($f, e, a, s, c, d, b, $off + 4),
            round!($f, d, e, b, s, c, a, $off + 8),
            round!($f, c, d, a, b, s, e, $off + 12),
        )
    };
}

/// Applies `$m` to SHA-1's round kinds (FIPS 180-4 section 4.1.1), each with its groups of four
/// rounds and the scratch registers its rounds use.
macro_rules! by_kind {
    ($m:ident) => {
        $m!(ch [t0 t1], 0 1 2 3 4);
        $m!(parity [t1], 5 6 7 8 9);
        $m!(maj [t0 t1], 10 11 12 13 14);
        $m!(parity [t1], 15 16 17 18 19);
    };
}

/// Registers of the six operands after [`four_rounds!`]: the new `a` is in the operand named
/// `s`, the new `b` in `c`, and so on.
#[inline(always)]
fn rename_after_four(r: [u32; 6]) -> [u32; 6] {
    let [a, b, c, d, e, s] = r;
    [s, c, e, a, b, d]
}

/// Runs four rounds of kind `$f` (which uses the scratch registers `$t`) on `$r`
/// (`[a, b, c, d, e, spare]`), reading `W + K` at `$wk + $off` bytes.
macro_rules! asm_four {
    ($f:ident [$($t:ident)+], $r:ident, $wk:expr, $off:expr) => {{
        let [mut a, mut b, mut c, mut d, mut e, mut s] = $r;
        // SAFETY: the four loads are within the 160-word `W + K` buffer (`$off` at most 624,
        // plus 12); only register operands are written; the caller's target features include
        // BMI1 and BMI2.
        unsafe {
            asm!(
                four_rounds!($f, $off),
                p = in(reg) $wk,
                a = inout(reg) a, b = inout(reg) b, c = inout(reg) c,
                d = inout(reg) d, e = inout(reg) e, s = inout(reg) s,
                $($t = out(reg) _,)+
                options(readonly, nostack, pure),
            );
        }
        $r = rename_after_four([a, b, c, d, e, s]);
    }};
}

/// Two consecutive blocks, or a lone one: the schedule of group `g + 4` of both is computed before the first
/// block's rounds of group `g` (the out-of-order core runs them side by side), the second
/// block's rounds then read their stored `W + K`.
///
/// # Safety
/// The CPU must support AVX2, BMI1 and BMI2.
#[target_feature(enable = "avx2,avx,sse4.1,ssse3,bmi1,bmi2")]
unsafe fn compress_pair(state: &mut [u32; 5], first: &[u8; 64], second: Option<&[u8; 64]>) {
    // A lone block is scheduled beside itself; its twin's rounds are skipped.
    let (both, second) = (second.is_some(), second.unwrap_or(first));
    // SAFETY: AVX2 is enabled here.
    let (mut w, mut wk) = unsafe { start_pair(first, second) };
    let [a, b, c, d, e] = *state;
    let mut r = [a, b, c, d, e, 0];
    // Group `g` of the first block (rounds 4g..4g+4), after scheduling group `g + 4`.
    macro_rules! first {
        ($f:ident $t:tt, $($g:literal)+) => {$(
            if $g + 4 < 20 {
                // SAFETY: AVX2 is enabled here.
                unsafe { schedule_group(&mut w, &mut wk, $g + 4, first, second) };
            }
            asm_four!($f $t, r, wk.0.as_ptr(), 32 * $g);
        )+};
    }
    by_kind!(first);
    feed_forward(state, r);
    if !both {
        return;
    }
    let [a, b, c, d, e] = *state;
    let mut r = [a, b, c, d, e, 0];
    macro_rules! second {
        ($f:ident $t:tt, $($g:literal)+) => {$(
            asm_four!($f $t, r, wk.0.as_ptr(), 32 * $g + 16);
        )+};
    }
    by_kind!(second);
    feed_forward(state, r);
}

/// Adds the working variables `r[..5]` into the chaining value.
#[inline(always)]
fn feed_forward(state: &mut [u32; 5], r: [u32; 6]) {
    for (h, v) in state.iter_mut().zip(r) {
        *h = h.wrapping_add(v);
    }
}

/// # Safety
/// The CPU must support AVX2, BMI1 and BMI2.
#[target_feature(enable = "avx2,avx,sse4.1,ssse3,bmi1,bmi2")]
unsafe fn compress_avx2(state: &mut [u32; 5], blocks: &[[u8; 64]]) {
    for pair in blocks.chunks(2) {
        // SAFETY: the same target features.
        unsafe { compress_pair(state, &pair[0], pair.get(1)) };
    }
}

/// Compresses whole 64-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(avx2: Avx2, bmi2: Bmi2, state: &mut [u32; 5], blocks: &[[u8; 64]]) {
    let _ = (avx2, bmi2);
    // SAFETY: the tokens prove this CPU has AVX2 (and AVX, SSSE3, SSE4.1) and BMI1/BMI2, not
    // switched off.
    unsafe { compress_avx2(state, blocks) }
}
