//! SANDstorm's constants, all derived from SHA-2 and AES as the specification says.

/// The AES S-box, computed at compile time: multiplicative inverse in GF(2^8) modulo
/// x^8 + x^4 + x^3 + x + 1, then the affine map with constant 0x63.
pub const AES_SBOX: [u8; 256] = aes_sbox();

const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    while b != 0 {
        if b & 1 != 0 {
            p ^= a;
        }
        let carry = a & 0x80;
        a <<= 1;
        if carry != 0 {
            a ^= 0x1b;
        }
        b >>= 1;
    }
    p
}

const fn gf_inv(x: u8) -> u8 {
    // x^254 = x^-1 for x != 0 (the group has order 255); 0 maps to 0.
    let mut result = 1u8;
    let mut base = x;
    let mut e = 254u32;
    while e > 0 {
        if e & 1 != 0 {
            result = gf_mul(result, base);
        }
        base = gf_mul(base, base);
        e >>= 1;
    }
    if x == 0 {
        0
    } else {
        result
    }
}

const fn aes_sbox() -> [u8; 256] {
    let mut s = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = gf_inv(i as u8);
        s[i] = b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63;
        i += 1;
    }
    s
}

// The SHA-2 initial values and round constants SANDstorm derives its constants from.
pub use crate::algo::sha2::consts::{
    IV224 as SHA224_IV, IV256 as SHA256_IV, IV384 as SHA384_IV, IV512 as SHA512_IV,
};
use crate::algo::sha2::consts::{K256, K512};

/// SANDstorm's constants for one word size, each word two SHA-2 words of half its width joined
/// as `hi || lo`: the round constants `$rc` from the round constants `$sha_k`, and `$k`, the
/// chaining constants K from an initial value `h` (row r, word j = `h[(r+2j) mod 8] ||
/// h[(r+2j+1) mod 8]`).
macro_rules! word_constants {
    ($(#[$rc_doc:meta])* $rc:ident, $(#[$k_doc:meta])* $k:ident: $half:ty => $word:ty, $sha_k:ident) => {
        $(#[$rc_doc])*
        pub const $rc: [$word; 25] = {
            let mut rc = [0; 25];
            let mut i = 0;
            while i < 25 {
                rc[i] = (($sha_k[2 * i] as $word) << <$half>::BITS) | $sha_k[2 * i + 1] as $word;
                i += 1;
            }
            rc
        };

        $(#[$k_doc])*
        pub const fn $k(h: &[$half; 8]) -> [[$word; 4]; 5] {
            let mut k = [[0; 4]; 5];
            let mut r = 0;
            while r < 5 {
                let mut j = 0;
                while j < 4 {
                    k[r][j] = ((h[(r + 2 * j) % 8] as $word) << <$half>::BITS)
                        | h[(r + 2 * j + 1) % 8] as $word;
                    j += 1;
                }
                r += 1;
            }
            k
        }
    };
}

word_constants!(
    /// RC for 64-bit words: `RC[i] = K256[2i] || K256[2i+1]` (the first 50 SHA-256 constants).
    RC64,
    /// The chaining constants K for 64-bit words, from a SHA-224/256 initial value.
    k64: u32 => u64, K256
);
word_constants!(
    /// RC for 128-bit words: `RC[i] = K512[2i] || K512[2i+1]`.
    RC128,
    /// The chaining constants K for 128-bit words, from a SHA-384/512 initial value.
    k128: u64 => u128, K512
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_constants_match_the_spec_examples() {
        assert_eq!(AES_SBOX[0], 0x63);
        assert_eq!(AES_SBOX[0x53], 0xed);
        assert_eq!(RC64[0], 0x428a2f9871374491);
        assert_eq!(RC128[0], 0x428a2f98d728ae22_7137449123ef65cd);
        let k = k64(&SHA256_IV);
        assert_eq!(
            k[0],
            [
                0x6a09e667bb67ae85,
                0x3c6ef372a54ff53a,
                0x510e527f9b05688c,
                0x1f83d9ab5be0cd19
            ]
        );
        assert_eq!(
            k[1],
            [
                0xbb67ae853c6ef372,
                0xa54ff53a510e527f,
                0x9b05688c1f83d9ab,
                0x5be0cd196a09e667
            ]
        );
    }
}
