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

/// SHA-224 initial value (FIPS 180-4 5.3.2).
pub const SHA224_IV: [u32; 8] = [
    0xc1059ed8, 0x367cd507, 0x3070dd17, 0xf70e5939, 0xffc00b31, 0x68581511, 0x64f98fa7, 0xbefa4fa4,
];
/// SHA-256 initial value (FIPS 180-4 5.3.3).
pub const SHA256_IV: [u32; 8] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];
/// SHA-384 initial value (FIPS 180-4 5.3.4).
pub const SHA384_IV: [u64; 8] = [
    0xcbbb9d5dc1059ed8,
    0x629a292a367cd507,
    0x9159015a3070dd17,
    0x152fecd8f70e5939,
    0x67332667ffc00b31,
    0x8eb44a8768581511,
    0xdb0c2e0d64f98fa7,
    0x47b5481dbefa4fa4,
];
/// SHA-512 initial value (FIPS 180-4 5.3.5).
pub const SHA512_IV: [u64; 8] = [
    0x6a09e667f3bcc908,
    0xbb67ae8584caa73b,
    0x3c6ef372fe94f82b,
    0xa54ff53a5f1d36f1,
    0x510e527fade682d1,
    0x9b05688c2b3e6c1f,
    0x1f83d9abfb41bd6b,
    0x5be0cd19137e2179,
];

/// The first 50 SHA-256 round constants (FIPS 180-4 4.2.2), paired into SANDstorm-256's RC.
#[rustfmt::skip]
const SHA256_K50: [u32; 50] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08,
];

/// The first 50 SHA-512 round constants (FIPS 180-4 4.2.3), paired into SANDstorm-512's RC.
#[rustfmt::skip]
const SHA512_K50: [u64; 50] = [
    0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc,
    0x3956c25bf348b538, 0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118,
    0xd807aa98a3030242, 0x12835b0145706fbe, 0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2,
    0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235, 0xc19bf174cf692694,
    0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
    0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5,
    0x983e5152ee66dfab, 0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4,
    0xc6e00bf33da88fc2, 0xd5a79147930aa725, 0x06ca6351e003826f, 0x142929670a0e6e70,
    0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed, 0x53380d139d95b3df,
    0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
    0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30,
    0xd192e819d6ef5218, 0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8,
    0x19a4c116b8d2d0c8, 0x1e376c085141ab53,
];

/// RC for 64-bit words: RC[i] = K256[2i] || K256[2i+1].
pub const RC64: [u64; 25] = {
    let mut rc = [0u64; 25];
    let mut i = 0;
    while i < 25 {
        rc[i] = ((SHA256_K50[2 * i] as u64) << 32) | SHA256_K50[2 * i + 1] as u64;
        i += 1;
    }
    rc
};

/// RC for 128-bit words: RC[i] = K512[2i] || K512[2i+1].
pub const RC128: [u128; 25] = {
    let mut rc = [0u128; 25];
    let mut i = 0;
    while i < 25 {
        rc[i] = ((SHA512_K50[2 * i] as u128) << 64) | SHA512_K50[2 * i + 1] as u128;
        i += 1;
    }
    rc
};

/// The chaining constants K for 64-bit words: row r, word j = H[(r+2j) mod 8] || H[(r+2j+1) mod 8].
pub const fn k64(h: &[u32; 8]) -> [[u64; 4]; 5] {
    let mut k = [[0u64; 4]; 5];
    let mut r = 0;
    while r < 5 {
        let mut j = 0;
        while j < 4 {
            k[r][j] = ((h[(r + 2 * j) % 8] as u64) << 32) | h[(r + 2 * j + 1) % 8] as u64;
            j += 1;
        }
        r += 1;
    }
    k
}

/// The chaining constants K for 128-bit words, as [`k64`] with SHA-384/512's 64-bit words.
pub const fn k128(h: &[u64; 8]) -> [[u128; 4]; 5] {
    let mut k = [[0u128; 4]; 5];
    let mut r = 0;
    while r < 5 {
        let mut j = 0;
        while j < 4 {
            k[r][j] = ((h[(r + 2 * j) % 8] as u128) << 64) | h[(r + 2 * j + 1) % 8] as u128;
            j += 1;
        }
        r += 1;
    }
    k
}

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
