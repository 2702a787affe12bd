//! The `sequential` SHA-384/512 compression: portable scalar code, literal to FIPS 180-4
//! section 6.4.2, with all 80 rounds unrolled. Working variables are renamed from round to round
//! instead of shifted; the message schedule is a rolling 16-word window.

use super::super::consts::K512;

#[inline(always)]
pub(crate) fn ch(x: u64, y: u64, z: u64) -> u64 {
    z ^ (x & (y ^ z))
}

#[inline(always)]
pub(crate) fn maj(x: u64, y: u64, z: u64) -> u64 {
    (x & y) | (z & (x | y))
}

#[inline(always)]
pub(crate) fn big_sigma0(x: u64) -> u64 {
    x.rotate_right(28) ^ x.rotate_right(34) ^ x.rotate_right(39)
}

#[inline(always)]
pub(crate) fn big_sigma1(x: u64) -> u64 {
    x.rotate_right(14) ^ x.rotate_right(18) ^ x.rotate_right(41)
}

#[inline(always)]
pub(crate) fn small_sigma0(x: u64) -> u64 {
    x.rotate_right(1) ^ x.rotate_right(8) ^ (x >> 7)
}

#[inline(always)]
pub(crate) fn small_sigma1(x: u64) -> u64 {
    x.rotate_right(19) ^ x.rotate_right(61) ^ (x >> 6)
}

/// One round given `W[t] + K[t]`: updates `d` and `h`; the caller renames the others.
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
pub(super) use round;

/// Eight rounds starting at round `t` on the locals `a..h`, `W[t] + K[t]` from `$wk(t)`.
macro_rules! rounds8 {
    ([$a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident], $t:expr, $wk:expr) => {
        round!($a, $b, $c, $d, $e, $f, $g, $h, $wk($t));
        round!($h, $a, $b, $c, $d, $e, $f, $g, $wk($t + 1));
        round!($g, $h, $a, $b, $c, $d, $e, $f, $wk($t + 2));
        round!($f, $g, $h, $a, $b, $c, $d, $e, $wk($t + 3));
        round!($e, $f, $g, $h, $a, $b, $c, $d, $wk($t + 4));
        round!($d, $e, $f, $g, $h, $a, $b, $c, $wk($t + 5));
        round!($c, $d, $e, $f, $g, $h, $a, $b, $wk($t + 6));
        round!($b, $c, $d, $e, $f, $g, $h, $a, $wk($t + 7));
    };
}

/// 80 rounds on `state` (without the final feed-forward), `W[t] + K[t]` from `$wk(t)`.
macro_rules! rounds80 {
    ($state:expr, $wk:expr) => {{
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = $state;
        rounds8!([a, b, c, d, e, f, g, h], 0, $wk);
        rounds8!([a, b, c, d, e, f, g, h], 8, $wk);
        rounds8!([a, b, c, d, e, f, g, h], 16, $wk);
        rounds8!([a, b, c, d, e, f, g, h], 24, $wk);
        rounds8!([a, b, c, d, e, f, g, h], 32, $wk);
        rounds8!([a, b, c, d, e, f, g, h], 40, $wk);
        rounds8!([a, b, c, d, e, f, g, h], 48, $wk);
        rounds8!([a, b, c, d, e, f, g, h], 56, $wk);
        rounds8!([a, b, c, d, e, f, g, h], 64, $wk);
        rounds8!([a, b, c, d, e, f, g, h], 72, $wk);
        [a, b, c, d, e, f, g, h]
    }};
}

/// Adds the working variables back into the chaining value (FIPS 180-4 6.4.2 step 4).
#[inline(always)]
pub(crate) fn feed_forward(state: &mut [u64; 8], v: [u64; 8]) {
    for (s, x) in state.iter_mut().zip(v) {
        *s = s.wrapping_add(x);
    }
}

/// Compresses whole 128-byte blocks into `state`.
#[inline(never)]
pub fn compress_blocks(state: &mut [u64; 8], blocks: &[[u8; 128]]) {
    for block in blocks {
        let mut w = [0u64; 16];
        for (word, bytes) in w.iter_mut().zip(block.chunks_exact(8)) {
            *word = u64::from_be_bytes(bytes.try_into().expect("8-byte chunk"));
        }
        // W[t] for t >= 16 replaces W[t - 16] in the 16-word window.
        let mut wk = |t: usize| {
            if t >= 16 {
                w[t % 16] = small_sigma1(w[(t - 2) % 16])
                    .wrapping_add(w[(t - 7) % 16])
                    .wrapping_add(small_sigma0(w[(t - 15) % 16]))
                    .wrapping_add(w[t % 16]);
            }
            w[t % 16].wrapping_add(K512[t])
        };
        let v = rounds80!(*state, wk);
        feed_forward(state, v);
    }
}
