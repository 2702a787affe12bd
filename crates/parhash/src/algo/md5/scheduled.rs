//! The `scheduled` MD5 compression (x86-64): the 64 steps in inline assembly, in the order that
//! keeps each step's dependency chain at its minimum. In Rust, LLVM reassociates
//! `a + M[g] + K[i] + f(b, c, d)` to add the constant last, which puts one more addition between
//! the previous step's `b` and this step's rotation (six cycles a step in rounds 1 and 4 instead
//! of five). Here the chain is written out:
//!
//! - `a + M[g] + K[i]` is one `lea` off the chain (`a` was computed four steps earlier), the
//!   constant folded into its displacement, and the next step's message word is loaded during
//!   this one;
//! - round 1: `F = ((c ^ d) & b) ^ d` (two operations after `b`, `c ^ d` before it);
//! - round 2: `G = (b & d) + (c & !d)` (disjoint bits), `c & !d` added before `b` is ready;
//! - round 3: `H = (c ^ d) ^ b`; round 4: `I = c ^ (b | !d)` with `!d` made early.
//!
//! So the chain is `f`, add, rotate, add: five cycles a step in rounds 1 and 4, four in rounds 2
//! and 3. The instructions are plain x86-64 (no ISA extension), so no token is needed.
//! The `sequential` form stays the portable twin and the oracle of the tests.

use core::arch::asm;

/// `a += M[g] + K[i]` in one `lea` (`m` holds `M[g]`, `K[i]` is the displacement).
#[rustfmt::skip]
macro_rules! lea_mk {
    ($a:ident, $k:literal) => {
        concat!("lea {", stringify!($a), ":e}, [{", stringify!($a), ":r} + {m:r} + ", stringify!($k), "]\n")
    };
}
/// Loads the next step's message word into `m`.
#[rustfmt::skip]
macro_rules! load_next {
    ($next:literal) => { concat!("mov {m:e}, dword ptr [{p} + ", stringify!($next), "*4]\n") };
}
/// `a = rotl(a, s) + b`: the end of every step.
#[rustfmt::skip]
macro_rules! tail {
    ($a:ident, $b:ident, $s:literal) => {
        concat!("rol {", stringify!($a), ":e}, ", stringify!($s), "\n",
                "add {", stringify!($a), ":e}, {", stringify!($b), ":e}\n")
    };
}
/// The 32-bit name of operand `$r`.
#[rustfmt::skip]
macro_rules! e { ($r:ident) => { concat!("{", stringify!($r), ":e}") }; }
/// One step: `a += M[g] + K[i]`, the round function into `t` (`$f`, with the next message
/// word loaded before `$f_late`), `a += t`, `$next_d` readies `t` (and `u`) for the next step,
/// then `a = rotl(a, s) + b`.
#[rustfmt::skip]
macro_rules! step {
    ($a:ident, $b:ident, $next:literal, $k:literal, $s:literal,
        [$($f:expr),*], [$($f_late:expr),*], [$($next_d:expr),*]) => { concat!(
        lea_mk!($a, $k), $($f, "\n",)* load_next!($next), $($f_late, "\n",)*
        "add ", e!($a), ", {t:e}\n", $($next_d, "\n",)* tail!($a, $b, $s),
    )};
}
/// Round 1 step, `F = ((c ^ d) & b) ^ d`: `t` holds `d` on entry, the next step's `d` (this
/// `c`) on exit.
#[rustfmt::skip]
macro_rules! f1 {
    ($a:ident, $b:ident, $c:ident, $d:ident, $next:literal, $k:literal, $s:literal) => {
        step!($a, $b, $next, $k, $s,
            [concat!("xor {t:e}, ", e!($c)), concat!("and {t:e}, ", e!($b)), concat!("xor {t:e}, ", e!($d))],
            [], [concat!("mov {t:e}, ", e!($c))])
    };
}
/// Round 2 step, `G = (b & d) + (c & !d)` (disjoint bits, so two additions, the `c & !d` one
/// before `b` is known): `t` and `u` hold `d` on entry and the next `d` on exit.
#[rustfmt::skip]
macro_rules! f2 {
    ($a:ident, $b:ident, $c:ident, $d:ident, $next:literal, $k:literal, $s:literal) => {
        step!($a, $b, $next, $k, $s,
            ["not {t:e}", concat!("and {u:e}, ", e!($b)), concat!("and {t:e}, ", e!($c))],
            [],
            [concat!("mov {t:e}, ", e!($c)), concat!("add ", e!($a), ", {u:e}"), concat!("mov {u:e}, ", e!($c))])
    };
}
/// Round 3 step, `H = (c ^ d) ^ b`: `t` holds `d` on entry and the next `d` on exit.
#[rustfmt::skip]
macro_rules! f3 {
    ($a:ident, $b:ident, $c:ident, $d:ident, $next:literal, $k:literal, $s:literal) => {
        step!($a, $b, $next, $k, $s,
            [concat!("xor {t:e}, ", e!($c))], [concat!("xor {t:e}, ", e!($b))],
            [concat!("mov {t:e}, ", e!($c))])
    };
}
/// Round 4 step, `I = c ^ (b | !d)`: `t` holds `!d` on entry and the next `!d` on exit.
#[rustfmt::skip]
macro_rules! f4 {
    ($a:ident, $b:ident, $c:ident, $d:ident, $next:literal, $k:literal, $s:literal) => {
        step!($a, $b, $next, $k, $s,
            [concat!("or {t:e}, ", e!($b)), concat!("xor {t:e}, ", e!($c))], [],
            ["mov {t:e}, -1", concat!("xor {t:e}, ", e!($c))])
    };
}

/// Compresses whole 64-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(state: &mut [u32; 4], blocks: &[[u8; 64]]) {
    let [mut a, mut b, mut c, mut d] = *state;
    for block in blocks {
        let (a0, b0, c0, d0) = (a, b, c, d);
        // SAFETY: the assembly reads only the 64 bytes of `block` (offsets 0..64 from its
        // start), writes only its register operands, uses no stack and baseline x86-64
        // instructions only.
        unsafe {
            asm!(
                "mov {m:e}, dword ptr [{p}]",
                "mov {t:e}, {d:e}",
                f1!(a, b, c, d, 1, -0x28955b88, 7),
                f1!(d, a, b, c, 2, -0x173848aa, 12),
                f1!(c, d, a, b, 3, 0x242070db, 17),
                f1!(b, c, d, a, 4, -0x3e423112, 22),
                f1!(a, b, c, d, 5, -0x0a83f051, 7),
                f1!(d, a, b, c, 6, 0x4787c62a, 12),
                f1!(c, d, a, b, 7, -0x57cfb9ed, 17),
                f1!(b, c, d, a, 8, -0x02b96aff, 22),
                f1!(a, b, c, d, 9, 0x698098d8, 7),
                f1!(d, a, b, c, 10, -0x74bb0851, 12),
                f1!(c, d, a, b, 11, -0x0000a44f, 17),
                f1!(b, c, d, a, 12, -0x76a32842, 22),
                f1!(a, b, c, d, 13, 0x6b901122, 7),
                f1!(d, a, b, c, 14, -0x02678e6d, 12),
                f1!(c, d, a, b, 15, -0x5986bc72, 17),
                f1!(b, c, d, a, 1, 0x49b40821, 22),
                "mov {u:e}, {d:e}",
                f2!(a, b, c, d, 6, -0x09e1da9e, 5),
                f2!(d, a, b, c, 11, -0x3fbf4cc0, 9),
                f2!(c, d, a, b, 0, 0x265e5a51, 14),
                f2!(b, c, d, a, 5, -0x16493856, 20),
                f2!(a, b, c, d, 10, -0x29d0efa3, 5),
                f2!(d, a, b, c, 15, 0x02441453, 9),
                f2!(c, d, a, b, 4, -0x275e197f, 14),
                f2!(b, c, d, a, 9, -0x182c0438, 20),
                f2!(a, b, c, d, 14, 0x21e1cde6, 5),
                f2!(d, a, b, c, 3, -0x3cc8f82a, 9),
                f2!(c, d, a, b, 8, -0x0b2af279, 14),
                f2!(b, c, d, a, 13, 0x455a14ed, 20),
                f2!(a, b, c, d, 2, -0x561c16fb, 5),
                f2!(d, a, b, c, 7, -0x03105c08, 9),
                f2!(c, d, a, b, 12, 0x676f02d9, 14),
                f2!(b, c, d, a, 5, -0x72d5b376, 20),
                f3!(a, b, c, d, 8, -0x0005c6be, 4),
                f3!(d, a, b, c, 11, -0x788e097f, 11),
                f3!(c, d, a, b, 14, 0x6d9d6122, 16),
                f3!(b, c, d, a, 1, -0x021ac7f4, 23),
                f3!(a, b, c, d, 4, -0x5b4115bc, 4),
                f3!(d, a, b, c, 7, 0x4bdecfa9, 11),
                f3!(c, d, a, b, 10, -0x0944b4a0, 16),
                f3!(b, c, d, a, 13, -0x41404390, 23),
                f3!(a, b, c, d, 0, 0x289b7ec6, 4),
                f3!(d, a, b, c, 3, -0x155ed806, 11),
                f3!(c, d, a, b, 6, -0x2b10cf7b, 16),
                f3!(b, c, d, a, 9, 0x04881d05, 23),
                f3!(a, b, c, d, 12, -0x262b2fc7, 4),
                f3!(d, a, b, c, 15, -0x1924661b, 11),
                f3!(c, d, a, b, 2, 0x1fa27cf8, 16),
                f3!(b, c, d, a, 0, -0x3b53a99b, 23),
                "mov {t:e}, -1",
                "xor {t:e}, {d:e}",
                f4!(a, b, c, d, 7, -0x0bd6ddbc, 6),
                f4!(d, a, b, c, 14, 0x432aff97, 10),
                f4!(c, d, a, b, 5, -0x546bdc59, 15),
                f4!(b, c, d, a, 12, -0x036c5fc7, 21),
                f4!(a, b, c, d, 3, 0x655b59c3, 6),
                f4!(d, a, b, c, 10, -0x70f3336e, 10),
                f4!(c, d, a, b, 1, -0x00100b83, 15),
                f4!(b, c, d, a, 8, -0x7a7ba22f, 21),
                f4!(a, b, c, d, 15, 0x6fa87e4f, 6),
                f4!(d, a, b, c, 6, -0x01d31920, 10),
                f4!(c, d, a, b, 13, -0x5cfebcec, 15),
                f4!(b, c, d, a, 4, 0x4e0811a1, 21),
                f4!(a, b, c, d, 11, -0x08ac817e, 6),
                f4!(d, a, b, c, 2, -0x42c50dcb, 10),
                f4!(c, d, a, b, 9, 0x2ad7d2bb, 15),
                f4!(b, c, d, a, 0, -0x14792c6f, 21),
                p = in(reg) block.as_ptr(),
                a = inout(reg) a, b = inout(reg) b, c = inout(reg) c, d = inout(reg) d,
                m = out(reg) _, t = out(reg) _, u = out(reg) _,
                options(pure, readonly, nostack),
            );
        }
        a = a.wrapping_add(a0);
        b = b.wrapping_add(b0);
        c = c.wrapping_add(c0);
        d = d.wrapping_add(d0);
    }
    *state = [a, b, c, d];
}
