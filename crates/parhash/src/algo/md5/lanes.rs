//! MD5 on 8 (AVX2, portable) or 16 (AVX-512) messages at once.
//!
//! MD5 has no parallelism inside one message (see `algo::md5`), so this is where its speed-up
//! comes from: the same step on 16 messages in one instruction.

use crate::algo::md5::{IV, K};
use crate::lanes::md_algorithm;
use crate::vector::U32x;

#[inline(always)]
fn rounds<V: U32x>(state: &mut [V; 8], m: &[V; 16]) {
    let [mut a, mut b, mut c, mut d, ..] = *state;
    macro_rules! step {
        ($f:ident, $a:ident, $b:ident, $c:ident, $d:ident, $i:expr, $g:expr, $s:literal) => {
            let f = $f($b, $c, $d);
            $a = $b.add(
                $a.add(f)
                    .add(m[$g])
                    .add(V::splat($b.isa(), K[$i]))
                    .rotl::<$s>(),
            );
        };
    }
    #[inline(always)]
    fn ff<V: U32x>(b: V, c: V, d: V) -> V {
        d.xor(b.and(c.xor(d)))
    }
    #[inline(always)]
    fn gg<V: U32x>(b: V, c: V, d: V) -> V {
        c.xor(d.and(b.xor(c)))
    }
    #[inline(always)]
    fn hh<V: U32x>(b: V, c: V, d: V) -> V {
        b.xor(c).xor(d)
    }
    #[inline(always)]
    fn ii<V: U32x>(b: V, c: V, d: V) -> V {
        c.xor(b.or(d.not()))
    }
    macro_rules! four {
        ($f:ident, $i:expr, $gi:expr, $s0:literal, $s1:literal, $s2:literal, $s3:literal) => {
            step!($f, a, b, c, d, $i, $gi($i), $s0);
            step!($f, d, a, b, c, $i + 1, $gi($i + 1), $s1);
            step!($f, c, d, a, b, $i + 2, $gi($i + 2), $s2);
            step!($f, b, c, d, a, $i + 3, $gi($i + 3), $s3);
        };
    }
    let g1 = |i: usize| i;
    let g2 = |i: usize| (5 * i + 1) % 16;
    let g3 = |i: usize| (3 * i + 5) % 16;
    let g4 = |i: usize| (7 * i) % 16;
    four!(ff, 0, g1, 7, 12, 17, 22);
    four!(ff, 4, g1, 7, 12, 17, 22);
    four!(ff, 8, g1, 7, 12, 17, 22);
    four!(ff, 12, g1, 7, 12, 17, 22);
    four!(gg, 16, g2, 5, 9, 14, 20);
    four!(gg, 20, g2, 5, 9, 14, 20);
    four!(gg, 24, g2, 5, 9, 14, 20);
    four!(gg, 28, g2, 5, 9, 14, 20);
    four!(hh, 32, g3, 4, 11, 16, 23);
    four!(hh, 36, g3, 4, 11, 16, 23);
    four!(hh, 40, g3, 4, 11, 16, 23);
    four!(hh, 44, g3, 4, 11, 16, 23);
    four!(ii, 48, g4, 6, 10, 15, 21);
    four!(ii, 52, g4, 6, 10, 15, 21);
    four!(ii, 56, g4, 6, 10, 15, 21);
    four!(ii, 60, g4, 6, 10, 15, 21);
    state[0] = state[0].add(a);
    state[1] = state[1].add(b);
    state[2] = state[2].add(c);
    state[3] = state[3].add(d);
}

md_algorithm! {
    /// MD5 as a Merkle-Damgard lane algorithm.
    Md5 {
        word: u32, vectors: U32x, state_words: 4, block: 64, length_bytes: 8,
        big_endian: false, rounds: rounds, lanes: Md5Lanes,
    }
    /// Lanes at this width, all reset.
    new: IV, 16;
}
