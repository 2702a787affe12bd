//! The sequential form of BLAKE's compression function: portable scalar code, literal to the
//! specification (section 2.1.2): the 4x4 state `v0..v15`, the G function on the four columns,
//! then on the four diagonals, 14 rounds (BLAKE-224/256) or 16 rounds (BLAKE-384/512).

/// BLAKE-224/256: 32-bit words, 64-byte blocks, 64-bit counter.
pub mod blake256 {
    use super::super::{load_be32, C256, ROUNDS256, SIGMA};

    /// The G function `G_i(a, b, c, d)` of round `r`: two message words, each XORed with a
    /// constant, enter through additions; rotations 16, 12, 8, 7.
    #[inline(always)]
    fn g(v: &mut [u32; 16], m: &[u32; 16], r: usize, i: usize, [a, b, c, d]: [usize; 4]) {
        let s = &SIGMA[r % 10];
        v[a] = v[a]
            .wrapping_add(v[b])
            .wrapping_add(m[s[2 * i]] ^ C256[s[2 * i + 1]]);
        v[d] = (v[d] ^ v[a]).rotate_right(16);
        v[c] = v[c].wrapping_add(v[d]);
        v[b] = (v[b] ^ v[c]).rotate_right(12);
        v[a] = v[a]
            .wrapping_add(v[b])
            .wrapping_add(m[s[2 * i + 1]] ^ C256[s[2 * i]]);
        v[d] = (v[d] ^ v[a]).rotate_right(8);
        v[c] = v[c].wrapping_add(v[d]);
        v[b] = (v[b] ^ v[c]).rotate_right(7);
    }

    /// Compresses whole blocks into `h` (salt zero). The counter of block `k` is
    /// `bits_before + 512 * (k + 1)`: the number of message bits hashed up to the end of that
    /// block. Finalisation passes a value that wraps to the counter it needs (0 for a block of
    /// padding only).
    #[inline(never)]
    pub fn compress_blocks(h: &mut [u32; 8], blocks: &[[u8; 64]], bits_before: u64) {
        let mut counter = bits_before;
        for block in blocks {
            counter = counter.wrapping_add(512);
            let m = load_be32(block);
            let (t0, t1) = (counter as u32, (counter >> 32) as u32);
            let mut v = [0u32; 16];
            v[..8].copy_from_slice(h);
            v[8..12].copy_from_slice(&C256[..4]);
            v[12] = t0 ^ C256[4];
            v[13] = t0 ^ C256[5];
            v[14] = t1 ^ C256[6];
            v[15] = t1 ^ C256[7];
            for r in 0..ROUNDS256 {
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
}

/// BLAKE-384/512: 64-bit words, 128-byte blocks, 128-bit counter.
pub mod blake512 {
    use super::super::{load_be64, C512, ROUNDS512, SIGMA};

    /// The G function of BLAKE-512: as BLAKE-256's with rotations 32, 25, 16, 11.
    #[inline(always)]
    fn g(v: &mut [u64; 16], m: &[u64; 16], r: usize, i: usize, [a, b, c, d]: [usize; 4]) {
        let s = &SIGMA[r % 10];
        v[a] = v[a]
            .wrapping_add(v[b])
            .wrapping_add(m[s[2 * i]] ^ C512[s[2 * i + 1]]);
        v[d] = (v[d] ^ v[a]).rotate_right(32);
        v[c] = v[c].wrapping_add(v[d]);
        v[b] = (v[b] ^ v[c]).rotate_right(25);
        v[a] = v[a]
            .wrapping_add(v[b])
            .wrapping_add(m[s[2 * i + 1]] ^ C512[s[2 * i]]);
        v[d] = (v[d] ^ v[a]).rotate_right(16);
        v[c] = v[c].wrapping_add(v[d]);
        v[b] = (v[b] ^ v[c]).rotate_right(11);
    }

    /// Compresses whole blocks into `h` (salt zero); the counter of block `k` is
    /// `bits_before + 1024 * (k + 1)` (see the BLAKE-256 form).
    #[inline(never)]
    pub fn compress_blocks(h: &mut [u64; 8], blocks: &[[u8; 128]], bits_before: u128) {
        let mut counter = bits_before;
        for block in blocks {
            counter = counter.wrapping_add(1024);
            let m = load_be64(block);
            let (t0, t1) = (counter as u64, (counter >> 64) as u64);
            let mut v = [0u64; 16];
            v[..8].copy_from_slice(h);
            v[8..12].copy_from_slice(&C512[..4]);
            v[12] = t0 ^ C512[4];
            v[13] = t0 ^ C512[5];
            v[14] = t1 ^ C512[6];
            v[15] = t1 ^ C512[7];
            for r in 0..ROUNDS512 {
                g(&mut v, &m, r, 0, [0, 4, 8, 12]);
                g(&mut v, &m, r, 1, [1, 5, 9, 13]);
                g(&mut v, &m, r, 2, [2, 6, 10, 14]);
                g(&mut v, &m, r, 3, [3, 7, 11, 15]);
                g(&mut v, &m, r, 4, [0, 5, 10, 15]);
                g(&mut v, &m, r, 5, [1, 6, 11, 12]);
                g(&mut v, &m, r, 6, [2, 7, 8, 13]);
                g(&mut v, &m, r, 7, [3, 4, 9, 14]);
            }
            for i in 0..8 {
                h[i] ^= v[i] ^ v[i + 8];
            }
        }
    }
}
