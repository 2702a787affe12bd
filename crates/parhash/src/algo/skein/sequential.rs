//! The sequential form of Skein's compression: portable scalar Threefish-256/512/1024, literal
//! to the Skein 1.3 specification (section 3.3): key schedule with the parity word `k_Nw`,
//! a subkey added every four rounds, the MIX functions of a round one after the other, then the
//! word permutation π. UBI chaining (`G = E(G, T, M) ^ M`) is done block by block. Written as
//! `const fn` so that the configuration UBI (the IV of each output size) is computed at compile
//! time from the same code.

/// Defines `encrypt` (one Threefish encryption) and `compress_blocks` (UBI over whole blocks)
/// for one state size.
macro_rules! threefish {
    ($words:literal, $rounds:literal, $rot:expr, $pi:expr) => {
        use super::super::{C240, FIRST};

        /// Rotation constants `R_{d mod 8, j}`.
        pub const ROTATIONS: [[u32; $words / 2]; 8] = $rot;
        /// Word permutation π: after a round, word `i` takes the value of word `PI[i]`.
        pub const PI: [usize; $words] = $pi;
        /// Rounds of Threefish.
        pub const ROUNDS: usize = $rounds;

        /// Threefish encryption of `plain` under `key` and `tweak`.
        pub const fn encrypt(
            key: &[u64; $words],
            tweak: &[u64; 2],
            plain: &[u64; $words],
        ) -> [u64; $words] {
            let mut k = [0u64; $words + 1];
            k[$words] = C240;
            let mut i = 0;
            while i < $words {
                k[i] = key[i];
                k[$words] ^= key[i];
                i += 1;
            }
            let t = [tweak[0], tweak[1], tweak[0] ^ tweak[1]];
            let mut v = *plain;
            let mut d = 0;
            while d < ROUNDS {
                if d % 4 == 0 {
                    v = add_subkey(v, &k, &t, d / 4);
                }
                // The MIX functions of this round: (x0, x1) -> (x0 + x1, (x1 <<< R) ^ (x0 + x1)).
                let mut j = 0;
                while j < $words / 2 {
                    v[2 * j] = v[2 * j].wrapping_add(v[2 * j + 1]);
                    v[2 * j + 1] = v[2 * j + 1].rotate_left(ROTATIONS[d % 8][j]) ^ v[2 * j];
                    j += 1;
                }
                let f = v;
                let mut i = 0;
                while i < $words {
                    v[i] = f[PI[i]];
                    i += 1;
                }
                d += 1;
            }
            add_subkey(v, &k, &t, ROUNDS / 4)
        }

        /// Adds subkey `s`: key words rotated by `s`, tweak words into the last three but one,
        /// and `s` itself into the last word.
        const fn add_subkey(
            mut v: [u64; $words],
            k: &[u64; $words + 1],
            t: &[u64; 3],
            s: usize,
        ) -> [u64; $words] {
            let mut i = 0;
            while i < $words {
                v[i] = v[i].wrapping_add(k[(s + i) % ($words + 1)]);
                i += 1;
            }
            v[$words - 3] = v[$words - 3].wrapping_add(t[s % 3]);
            v[$words - 2] = v[$words - 2].wrapping_add(t[(s + 1) % 3]);
            v[$words - 1] = v[$words - 1].wrapping_add(s as u64);
            v
        }

        /// UBI over whole blocks: for each block, the tweak's position grows by `len` bytes,
        /// `h = E(h, tweak, m) ^ m`, and the first-block flag is cleared.
        #[inline(never)]
        pub fn compress_blocks(
            h: &mut [u64; $words],
            blocks: &[[u8; $words * 8]],
            tweak: &mut [u64; 2],
            len: u64,
        ) {
            for block in blocks {
                let mut m = [0u64; $words];
                for (w, chunk) in m.iter_mut().zip(block.chunks_exact(8)) {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(chunk);
                    *w = u64::from_le_bytes(b);
                }
                tweak[0] = tweak[0].wrapping_add(len);
                let e = encrypt(h, tweak, &m);
                for i in 0..$words {
                    h[i] = e[i] ^ m[i];
                }
                tweak[1] &= !FIRST;
            }
        }
    };
}

/// Threefish-256 and UBI on 32-byte blocks.
pub mod threefish256 {
    threefish!(
        4,
        72,
        [
            [14, 16],
            [52, 57],
            [23, 40],
            [5, 37],
            [25, 33],
            [46, 12],
            [58, 22],
            [32, 32]
        ],
        [0, 3, 2, 1]
    );
}

/// Threefish-512 and UBI on 64-byte blocks.
pub mod threefish512 {
    threefish!(
        8,
        72,
        [
            [46, 36, 19, 37],
            [33, 27, 14, 42],
            [17, 49, 36, 39],
            [44, 9, 54, 56],
            [39, 30, 34, 24],
            [13, 50, 10, 17],
            [25, 29, 39, 43],
            [8, 35, 56, 22],
        ],
        [2, 1, 4, 7, 6, 5, 0, 3]
    );
}

/// Threefish-1024 and UBI on 128-byte blocks.
pub mod threefish1024 {
    threefish!(
        16,
        80,
        [
            [24, 13, 8, 47, 8, 17, 22, 37],
            [38, 19, 10, 55, 49, 18, 23, 52],
            [33, 4, 51, 13, 34, 41, 59, 17],
            [5, 20, 48, 41, 47, 28, 16, 25],
            [41, 9, 37, 31, 12, 47, 44, 30],
            [16, 34, 56, 51, 4, 53, 42, 41],
            [31, 44, 47, 46, 19, 42, 44, 25],
            [9, 48, 35, 52, 23, 31, 37, 20],
        ],
        [0, 9, 2, 13, 6, 11, 4, 15, 10, 7, 12, 3, 14, 5, 8, 1]
    );
}
