//! BLAKE3's seven rounds on sixteen lanes in AVX-512 registers, for the lane kernel
//! ([`super::lanes`]): the state in `zmm0`-`zmm15` and the message in `zmm16`-`zmm31` for all
//! seven rounds, which is every vector register. Written in the intrinsics, the compiler kept
//! a few loop constants in registers and moved message words to and from the stack in every
//! block: 1.06x the `blake3` crate's assembly per chunk, which does the same as this.
//!
//! Each half-round runs the four G functions step by step (four independent chains in
//! flight); round `r` reads message word `SCHEDULE[r][i]` from `zmm(16 + that)` (see
//! [`super::spec::SCHEDULE`]; the lane kernel's tests compare every width with the crate).

use crate::vector::{Avx512x16, U32x};
use core::arch::asm;

/// The text of one half-round: four G functions on state registers `a b c d`, with message
/// registers `x y`, each step of G done for all four before the next.
macro_rules! half {
    ($($a:literal $b:literal $c:literal $d:literal $x:literal $y:literal),*) => {
        concat!(mix!(16, 12; $($a $b $c $d $x),*), mix!(8, 7; $($a $b $c $d $y),*))
    };
}

/// Half of four G functions: the four steps that take message register `x`, `d` and `b`
/// rotated right by `$rd` and `$rb` bits.
macro_rules! mix {
    ($rd:literal, $rb:literal; $($a:literal $b:literal $c:literal $d:literal $x:literal),*) => {
        concat!(
            $("vpaddd zmm", $a, ", zmm", $a, ", zmm", $x, "\n",)*
            $("vpaddd zmm", $a, ", zmm", $a, ", zmm", $b, "\n",)*
            $("vpxord zmm", $d, ", zmm", $d, ", zmm", $a, "\n",)*
            $("vprord zmm", $d, ", zmm", $d, ", ", $rd, "\n",)*
            $("vpaddd zmm", $c, ", zmm", $c, ", zmm", $d, "\n",)*
            $("vpxord zmm", $b, ", zmm", $b, ", zmm", $c, "\n",)*
            $("vprord zmm", $b, ", zmm", $b, ", ", $rb, "\n",)*
        )
    };
}

/// The seven rounds on `v` (every lane's sixteen state words) with the message `m`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn rounds(v: &mut [Avx512x16; 16], m: &[Avx512x16; 16]) {
    let isa = v[0].isa();
    // Indexed one by one: `array::map` was a call of its own, without AVX-512.
    let mut s = [v[0].raw(); 16];
    let mut w = [m[0].raw(); 16];
    for i in 1..16 {
        s[i] = v[i].raw();
    }
    for i in 1..16 {
        w[i] = m[i].raw();
    }
    // SAFETY: this function's target feature (AVX-512 F) is the caller's, proved by the
    // token in `v`; the text reads and writes only the registers named below, no memory,
    // stack or flags.
    unsafe {
        asm!(
            // Columns (a b c d, then the message registers of its two words), then diagonals.
            half!(0 4 8 12 16 17, 1 5 9 13 18 19, 2 6 10 14 20 21, 3 7 11 15 22 23),
            half!(0 5 10 15 24 25, 1 6 11 12 26 27, 2 7 8 13 28 29, 3 4 9 14 30 31),
            half!(0 4 8 12 18 22, 1 5 9 13 19 26, 2 6 10 14 23 16, 3 7 11 15 20 29),
            half!(0 5 10 15 17 27, 1 6 11 12 28 21, 2 7 8 13 25 30, 3 4 9 14 31 24),
            half!(0 4 8 12 19 20, 1 5 9 13 26 28, 2 6 10 14 29 18, 3 7 11 15 23 30),
            half!(0 5 10 15 22 21, 1 6 11 12 25 16, 2 7 8 13 27 31, 3 4 9 14 24 17),
            half!(0 4 8 12 26 23, 1 5 9 13 28 25, 2 6 10 14 30 19, 3 7 11 15 29 31),
            half!(0 5 10 15 20 16, 1 6 11 12 27 18, 2 7 8 13 21 24, 3 4 9 14 17 22),
            half!(0 4 8 12 28 29, 1 5 9 13 25 27, 2 6 10 14 31 26, 3 7 11 15 30 24),
            half!(0 5 10 15 23 18, 1 6 11 12 21 19, 2 7 8 13 16 17, 3 4 9 14 22 20),
            half!(0 4 8 12 25 30, 1 5 9 13 27 21, 2 6 10 14 24 28, 3 7 11 15 31 17),
            half!(0 5 10 15 29 19, 1 6 11 12 16 26, 2 7 8 13 18 22, 3 4 9 14 20 23),
            half!(0 4 8 12 27 31, 1 5 9 13 21 16, 2 6 10 14 17 25, 3 7 11 15 24 22),
            half!(0 5 10 15 30 26, 1 6 11 12 18 28, 2 7 8 13 19 20, 3 4 9 14 23 29),
            inout("zmm0") s[0], inout("zmm1") s[1], inout("zmm2") s[2], inout("zmm3") s[3],
            inout("zmm4") s[4], inout("zmm5") s[5], inout("zmm6") s[6], inout("zmm7") s[7],
            inout("zmm8") s[8], inout("zmm9") s[9], inout("zmm10") s[10], inout("zmm11") s[11],
            inout("zmm12") s[12], inout("zmm13") s[13], inout("zmm14") s[14], inout("zmm15") s[15],
            in("zmm16") w[0], in("zmm17") w[1], in("zmm18") w[2], in("zmm19") w[3],
            in("zmm20") w[4], in("zmm21") w[5], in("zmm22") w[6], in("zmm23") w[7],
            in("zmm24") w[8], in("zmm25") w[9], in("zmm26") w[10], in("zmm27") w[11],
            in("zmm28") w[12], in("zmm29") w[13], in("zmm30") w[14], in("zmm31") w[15],
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    for i in 0..16 {
        v[i] = Avx512x16::from_raw(isa, s[i]);
    }
}
