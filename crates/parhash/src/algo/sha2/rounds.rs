//! What SHA-256 and SHA-512 share in every form: FIPS 180-4 sections 6.2.2 and 6.4.2 differ
//! only in word size, constants and round count. Macros, so that each form expands them on its
//! own word type and keeps its own straight-line code.

/// One round given `W[t] + K[t]`: updates `d` and `h`; the caller renames the others. Uses the
/// `ch`, `maj`, `big_sigma0` and `big_sigma1` in scope where it is expanded.
macro_rules! round {
    ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $wk:expr) => {
        let t1 = $h
            .wrapping_add(big_sigma1($e))
            .wrapping_add(ch($e, $f, $g))
            .wrapping_add($wk);
        let t2 = big_sigma0($a).wrapping_add(maj($a, $b, $c));
        $d = $d.wrapping_add(t1);
        $h = t1.wrapping_add(t2);
    };
}
pub(crate) use round;

/// Eight rounds from round `t` on the locals `a..h`, reading `W[t] + K[t]` with `$wk!(t)`.
/// After eight renamings every variable is back in its own place. The four optional slots
/// call `$schedule!(g)` before rounds `t`, `t + 2`, `t + 4` and `t + 6`: the vector work that
/// runs beside these rounds in the `parallel` forms.
macro_rules! rounds8 {
    ([$a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident], $t:expr,
        $wk:ident, $schedule:ident [$($g0:expr)?] [$($g2:expr)?] [$($g4:expr)?] [$($g6:expr)?]) => {
        $($schedule!($g0);)?
        $crate::algo::sha2::rounds::round!($a, $b, $c, $d, $e, $f, $g, $h, $wk!($t));
        $crate::algo::sha2::rounds::round!($h, $a, $b, $c, $d, $e, $f, $g, $wk!($t + 1));
        $($schedule!($g2);)?
        $crate::algo::sha2::rounds::round!($g, $h, $a, $b, $c, $d, $e, $f, $wk!($t + 2));
        $crate::algo::sha2::rounds::round!($f, $g, $h, $a, $b, $c, $d, $e, $wk!($t + 3));
        $($schedule!($g4);)?
        $crate::algo::sha2::rounds::round!($e, $f, $g, $h, $a, $b, $c, $d, $wk!($t + 4));
        $crate::algo::sha2::rounds::round!($d, $e, $f, $g, $h, $a, $b, $c, $wk!($t + 5));
        $($schedule!($g6);)?
        $crate::algo::sha2::rounds::round!($c, $d, $e, $f, $g, $h, $a, $b, $wk!($t + 6));
        $crate::algo::sha2::rounds::round!($b, $c, $d, $e, $f, $g, $h, $a, $wk!($t + 7));
    };
}
pub(crate) use rounds8;

/// Every round of one block on `$state` (without the feed-forward), as eight-round pieces
/// `{t [slots]}` of [`rounds8`]; returns the working variables.
macro_rules! rounds {
    ($state:expr, $wk:ident, $schedule:ident; $({$t:literal $($slots:tt)*})*) => {{
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = $state;
        $(
            $crate::algo::sha2::rounds::rounds8!(
                [a, b, c, d, e, f, g, h], $t, $wk, $schedule $($slots)*
            );
        )*
        [a, b, c, d, e, f, g, h]
    }};
}
pub(crate) use rounds;

/// Stamps the scalar pieces of one word size into the invoking `sequential` module: the round
/// functions (FIPS 180-4 4.1.2 / 4.1.3, rotation counts as arguments), `feed_forward` and the
/// `sequential` form's `compress_blocks` on `$block`-byte blocks.
macro_rules! scalar_form {
    ($word:ty, $block:literal, $k:ident, big_sigma0 ($a0:literal $b0:literal $c0:literal),
        big_sigma1 ($a1:literal $b1:literal $c1:literal),
        small_sigma0 ($a2:literal $b2:literal >> $s2:literal),
        small_sigma1 ($a3:literal $b3:literal >> $s3:literal); $($t:literal)*) => {
        use super::super::consts::$k;

        #[inline(always)]
        pub(crate) fn ch(x: $word, y: $word, z: $word) -> $word {
            z ^ (x & (y ^ z))
        }

        // `y ^ z` is the previous round's `x ^ y` (the variables rename by one each round),
        // which the compiler reuses: three operations a round, not four.
        #[inline(always)]
        pub(crate) fn maj(x: $word, y: $word, z: $word) -> $word {
            ((x ^ y) & (y ^ z)) ^ y
        }

        #[inline(always)]
        pub(crate) fn big_sigma0(x: $word) -> $word {
            x.rotate_right($a0) ^ x.rotate_right($b0) ^ x.rotate_right($c0)
        }

        #[inline(always)]
        pub(crate) fn big_sigma1(x: $word) -> $word {
            x.rotate_right($a1) ^ x.rotate_right($b1) ^ x.rotate_right($c1)
        }

        #[inline(always)]
        pub(crate) fn small_sigma0(x: $word) -> $word {
            x.rotate_right($a2) ^ x.rotate_right($b2) ^ (x >> $s2)
        }

        #[inline(always)]
        pub(crate) fn small_sigma1(x: $word) -> $word {
            x.rotate_right($a3) ^ x.rotate_right($b3) ^ (x >> $s3)
        }

        /// Adds the working variables back into the chaining value (step 4 of the
        /// computation).
        #[inline(always)]
        pub(crate) fn feed_forward(state: &mut [$word; 8], v: [$word; 8]) {
            for (s, x) in state.iter_mut().zip(v) {
                *s = s.wrapping_add(x);
            }
        }

        #[doc = concat!("Compresses whole ", $block, "-byte blocks into `state`.")]
        #[inline(never)]
        pub fn compress_blocks(state: &mut [$word; 8], blocks: &[[u8; $block]]) {
            const WORD_BYTES: usize = $block / 16;
            for block in blocks {
                let mut w: [$word; 16] = [0; 16];
                for (word, bytes) in w.iter_mut().zip(block.chunks_exact(WORD_BYTES)) {
                    *word = <$word>::from_be_bytes(bytes.try_into().expect("one word"));
                }
                // W[t] for t >= 16 replaces W[t - 16] in the 16-word window.
                let mut next_wk = |t: usize| {
                    if t >= 16 {
                        w[t % 16] = small_sigma1(w[(t - 2) % 16])
                            .wrapping_add(w[(t - 7) % 16])
                            .wrapping_add(small_sigma0(w[(t - 15) % 16]))
                            .wrapping_add(w[t % 16]);
                    }
                    w[t % 16].wrapping_add($k[t])
                };
                macro_rules! wk {
                    ($i:expr) => {
                        next_wk($i)
                    };
                }
                let v = $crate::algo::sha2::rounds::rounds!(
                    *state, wk, no_schedule; $({$t [] [] [] []})*
                );
                feed_forward(state, v);
            }
        }
    };
}
pub(crate) use scalar_form;

/// The lane kernels' `rounds`: every round and the feed-forward on vectors of `$vectors` lanes,
/// the schedule as a rolling 16-word window, `σ0(x)` and `σ1(y)` given as expressions of the
/// caller's `x` and `y`. The lane vectors rotate left only, so Σ0 and Σ1 are given as left
/// rotation counts.
macro_rules! lane_rounds {
    ($vectors:ident, $k:ident, |$x:ident| $small_sigma0:expr, |$y:ident| $small_sigma1:expr,
        big_sigma0_rotl ($a0:literal $b0:literal $c0:literal),
        big_sigma1_rotl ($a1:literal $b1:literal $c1:literal)) => {
        /// One round: the new `e` into `d`, the new `a` into `h` (the caller renames).
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        fn round<V: $vectors>(
            a: V,
            b: V,
            c: V,
            d: &mut V,
            e: V,
            f: V,
            g: V,
            h: &mut V,
            k: V,
            wt: V,
        ) {
            let big_s1 = e.rotl::<$a1>().xor(e.rotl::<$b1>()).xor(e.rotl::<$c1>());
            let ch = g.xor(e.and(f.xor(g)));
            let t1 = h.add(big_s1).add(ch).add(k).add(wt);
            let big_s0 = a.rotl::<$a0>().xor(a.rotl::<$b0>()).xor(a.rotl::<$c0>());
            let maj = a.and(b).or(c.and(a.or(b)));
            *d = d.add(t1);
            *h = t1.add(big_s0.add(maj));
        }

        /// Word `16j + i` of the schedule (j > 0) into `w[i]`.
        #[inline(always)]
        fn next_word<V: $vectors>(w: &mut [V; 16], i: usize) -> V {
            let $x = w[(i + 1) % 16];
            let $y = w[(i + 14) % 16];
            let (s0, s1) = ($small_sigma0, $small_sigma1);
            let next = w[i].add(s0).add(w[(i + 9) % 16]).add(s1);
            w[i] = next;
            next
        }

        /// Sixteen rounds written out, the variables renamed instead of moved and the window's
        /// indices constant, so that state and window stay in registers: as one loop over 64
        /// rounds the compiler moved all eight state vectors every round and kept the window
        /// in memory.
        #[inline(always)]
        fn rounds<V: $vectors>(state: &mut [V; 8], block: &[V; 16]) {
            let mut w = *block;
            let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
            let isa = a.isa();
            // 64 rounds (SHA-256) or 80 (SHA-512).
            for j in 0..$k.len() / 16 {
                let k = |i: usize| V::splat(isa, $k[16 * j + i]);
                let mut wt = |i: usize| if j == 0 { w[i] } else { next_word(&mut w, i) };
                round(a, b, c, &mut d, e, f, g, &mut h, k(0), wt(0));
                round(h, a, b, &mut c, d, e, f, &mut g, k(1), wt(1));
                round(g, h, a, &mut b, c, d, e, &mut f, k(2), wt(2));
                round(f, g, h, &mut a, b, c, d, &mut e, k(3), wt(3));
                round(e, f, g, &mut h, a, b, c, &mut d, k(4), wt(4));
                round(d, e, f, &mut g, h, a, b, &mut c, k(5), wt(5));
                round(c, d, e, &mut f, g, h, a, &mut b, k(6), wt(6));
                round(b, c, d, &mut e, f, g, h, &mut a, k(7), wt(7));
                round(a, b, c, &mut d, e, f, g, &mut h, k(8), wt(8));
                round(h, a, b, &mut c, d, e, f, &mut g, k(9), wt(9));
                round(g, h, a, &mut b, c, d, e, &mut f, k(10), wt(10));
                round(f, g, h, &mut a, b, c, d, &mut e, k(11), wt(11));
                round(e, f, g, &mut h, a, b, c, &mut d, k(12), wt(12));
                round(d, e, f, &mut g, h, a, b, &mut c, k(13), wt(13));
                round(c, d, e, &mut f, g, h, a, &mut b, k(14), wt(14));
                round(b, c, d, &mut e, f, g, h, &mut a, k(15), wt(15));
            }
            for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
                *s = s.add(v);
            }
        }
    };
}
pub(crate) use lane_rounds;
