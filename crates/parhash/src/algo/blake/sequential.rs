//! The sequential form of BLAKE's compression function: portable scalar code, literal to the
//! specification (section 2.1.2): the 4x4 state `v0..v15`, the G function on the four columns,
//! then on the four diagonals, 14 rounds (BLAKE-224/256) or 16 rounds (BLAKE-384/512).

/// Stamps one word size's form: the two differ only in word type, constants, round count and
/// the four rotation counts of G.
macro_rules! sequential_form {
    ($word:ty, $counter:ty, $block:literal, $bits:literal, $load:ident, $consts:ident, $rounds:ident,
        rotations $r1:literal $r2:literal $r3:literal $r4:literal) => {
        use super::super::{$load, $consts, $rounds, SIGMA};

        #[doc = concat!("The G function `G_i(a, b, c, d)` of round `r`: two message words, each ",
            "XORed with a constant, enter through additions; rotations ", $r1, ", ", $r2, ", ",
            $r3, ", ", $r4, ".")]
        #[inline(always)]
        fn g(v: &mut [$word; 16], m: &[$word; 16], r: usize, i: usize, [a, b, c, d]: [usize; 4]) {
            let s = &SIGMA[r % 10];
            v[a] = v[a]
                .wrapping_add(v[b])
                .wrapping_add(m[s[2 * i]] ^ $consts[s[2 * i + 1]]);
            v[d] = (v[d] ^ v[a]).rotate_right($r1);
            v[c] = v[c].wrapping_add(v[d]);
            v[b] = (v[b] ^ v[c]).rotate_right($r2);
            v[a] = v[a]
                .wrapping_add(v[b])
                .wrapping_add(m[s[2 * i + 1]] ^ $consts[s[2 * i]]);
            v[d] = (v[d] ^ v[a]).rotate_right($r3);
            v[c] = v[c].wrapping_add(v[d]);
            v[b] = (v[b] ^ v[c]).rotate_right($r4);
        }

        #[doc = concat!("Compresses whole blocks into `h` (salt zero). The counter of block `k` ",
            "is `bits_before + ", $bits, " * (k + 1)`: the number of message bits hashed up ",
            "to the end of that block. Finalisation passes a value that wraps to the counter it ",
            "needs (0 for a block of padding only).")]
        #[inline(never)]
        pub fn compress_blocks(h: &mut [$word; 8], blocks: &[[u8; $block]], bits_before: $counter) {
            let mut counter = bits_before;
            for block in blocks {
                counter = counter.wrapping_add($bits);
                let m = $load(block);
                let (t0, t1) = (counter as $word, (counter >> <$word>::BITS) as $word);
                let mut v: [$word; 16] = [0; 16];
                v[..8].copy_from_slice(h);
                v[8..12].copy_from_slice(&$consts[..4]);
                v[12] = t0 ^ $consts[4];
                v[13] = t0 ^ $consts[5];
                v[14] = t1 ^ $consts[6];
                v[15] = t1 ^ $consts[7];
                for r in 0..$rounds {
                    g(&mut v, &m, r, 0, [0, 4, 8, 12]);
                    g(&mut v, &m, r, 1, [1, 5, 9, 13]);
                    g(&mut v, &m, r, 2, [2, 6, 10, 14]);
                    g(&mut v, &m, r, 3, [3, 7, 11, 15]);
                    g(&mut v, &m, r, 4, [0, 5, 10, 15]);
                    g(&mut v, &m, r, 5, [1, 6, 11, 12]);
                    g(&mut v, &m, r, 6, [2, 7, 8, 13]);
                    g(&mut v, &m, r, 7, [3, 4, 9, 14]);
                }
                // h'_i = h_i ^ s_{i mod 4} ^ v_i ^ v_{i+8}, with salt s = 0.
                for i in 0..8 {
                    h[i] ^= v[i] ^ v[i + 8];
                }
            }
        }
    };
}

/// BLAKE-224/256: 32-bit words, 64-byte blocks, 64-bit counter.
pub mod blake256 {
    sequential_form!(u32, u64, 64, 512, load_be32, C256, ROUNDS256, rotations 16 12 8 7);
}

/// BLAKE-384/512: 64-bit words, 128-byte blocks, 128-bit counter.
pub mod blake512 {
    sequential_form!(u64, u128, 128, 1024, load_be64, C512, ROUNDS512, rotations 32 25 16 11);
}
