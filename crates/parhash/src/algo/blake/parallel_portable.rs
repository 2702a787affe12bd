//! The internally parallel form of BLAKE in portable Rust: the 4x4 state is held as four rows
//! `a = v0..v3`, `b = v4..v7`, `c = v8..v11`, `d = v12..v15`, and each step of G is applied to a
//! whole row at once, so the four column G functions run side by side. Rotating rows `b`, `c`,
//! `d` by one, two and three places lines the diagonals up as columns for the second half of the
//! round, and rotating them back restores the columns. This is exactly the data flow of the SIMD
//! kernels, written with `[word; 4]` arrays: the fallback where no SIMD kernel is available (the
//! compiler may or may not turn it into vector code).

macro_rules! row_form {
    ($word:ty, $block:literal, $counter:ty, $load:ident, $consts:ident, $rounds:ident,
     [$r1:literal, $r2:literal, $r3:literal, $r4:literal]) => {
        use super::super::{$consts, $load, $rounds, SIGMA};

        type Row = [$word; 4];

        #[inline(always)]
        fn add(x: Row, y: Row) -> Row {
            [
                x[0].wrapping_add(y[0]),
                x[1].wrapping_add(y[1]),
                x[2].wrapping_add(y[2]),
                x[3].wrapping_add(y[3]),
            ]
        }

        #[inline(always)]
        fn xor_ror(x: Row, y: Row, n: u32) -> Row {
            [
                (x[0] ^ y[0]).rotate_right(n),
                (x[1] ^ y[1]).rotate_right(n),
                (x[2] ^ y[2]).rotate_right(n),
                (x[3] ^ y[3]).rotate_right(n),
            ]
        }

        /// The row with its lanes rotated left by `n` places. Written out rather than
        /// `<[_]>::rotate_left`, which is a call into a generic slice routine: this keeps the
        /// words in registers and makes the diagonal step a renaming.
        #[inline(always)]
        fn lanes_left(x: Row, n: usize) -> Row {
            [x[n % 4], x[(n + 1) % 4], x[(n + 2) % 4], x[(n + 3) % 4]]
        }

        /// Message words XORed with constants for four G functions: `m[s[2i + first]] ^
        /// c[s[2i + 1 - first]]` for `i` in `base..base + 4`.
        #[inline(always)]
        fn gather(m: &[$word; 16], s: &[usize; 16], base: usize, first: usize) -> Row {
            let w =
                |i: usize| m[s[2 * (base + i) + first]] ^ $consts[s[2 * (base + i) + 1 - first]];
            [w(0), w(1), w(2), w(3)]
        }

        /// Four G functions side by side on the rows.
        #[inline(always)]
        fn g4(a: &mut Row, b: &mut Row, c: &mut Row, d: &mut Row, mc0: Row, mc1: Row) {
            *a = add(add(*a, *b), mc0);
            *d = xor_ror(*d, *a, $r1);
            *c = add(*c, *d);
            *b = xor_ror(*b, *c, $r2);
            *a = add(add(*a, *b), mc1);
            *d = xor_ror(*d, *a, $r3);
            *c = add(*c, *d);
            *b = xor_ror(*b, *c, $r4);
        }

        /// Compresses whole blocks (see `sequential` for the counter convention).
        #[inline(never)]
        pub fn compress_blocks(h: &mut [$word; 8], blocks: &[[u8; $block]], bits_before: $counter) {
            let mut counter = bits_before;
            for block in blocks {
                counter = counter.wrapping_add($block * 8);
                let m = $load(block);
                let (t0, t1) = (counter as $word, (counter >> <$word>::BITS) as $word);
                let mut a: Row = [h[0], h[1], h[2], h[3]];
                let mut b: Row = [h[4], h[5], h[6], h[7]];
                let mut c: Row = [$consts[0], $consts[1], $consts[2], $consts[3]];
                let mut d: Row = [
                    t0 ^ $consts[4],
                    t0 ^ $consts[5],
                    t1 ^ $consts[6],
                    t1 ^ $consts[7],
                ];
                for r in 0..$rounds {
                    let s = &SIGMA[r % 10];
                    // G_base..G_base+3 side by side (base 0: the columns, 4: the diagonals).
                    macro_rules! step {
                        ($base:literal) => {
                            g4(
                                &mut a,
                                &mut b,
                                &mut c,
                                &mut d,
                                gather(&m, s, $base, 0),
                                gather(&m, s, $base, 1),
                            )
                        };
                    }
                    step!(0);
                    // Diagonalise: rows b, c, d rotate left by 1, 2, 3 lanes.
                    b = lanes_left(b, 1);
                    c = lanes_left(c, 2);
                    d = lanes_left(d, 3);
                    step!(4);
                    b = lanes_left(b, 3);
                    c = lanes_left(c, 2);
                    d = lanes_left(d, 1);
                }
                for i in 0..4 {
                    h[i] ^= a[i] ^ c[i];
                    h[i + 4] ^= b[i] ^ d[i];
                }
            }
        }
    };
}

/// BLAKE-224/256 rows of four 32-bit words.
pub mod blake256 {
    row_form!(u32, 64, u64, load_be32, C256, ROUNDS256, [16, 12, 8, 7]);
}

/// BLAKE-384/512 rows of four 64-bit words.
pub mod blake512 {
    row_form!(u64, 128, u128, load_be64, C512, ROUNDS512, [32, 25, 16, 11]);
}
