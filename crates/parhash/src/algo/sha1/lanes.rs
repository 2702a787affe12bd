//! SHA-1 on 8 (AVX2, portable) or 16 (AVX-512) messages at once.

use crate::lanes::md_algorithm;
use crate::vector::U32x;

/// FIPS 180-4 5.3.1.
const IV: [u32; 5] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
/// FIPS 180-4 4.2.1, one constant per 20 rounds.
const K: [u32; 4] = [0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6];

#[inline(always)]
fn rounds<V: U32x>(state: &mut [V; 8], block: &[V; 16]) {
    let mut w = *block;
    let [mut a, mut b, mut c, mut d, mut e, ..] = *state;
    macro_rules! round {
        ($t:expr, $f:expr, $k:expr) => {
            let wt = if $t < 16 {
                w[$t]
            } else {
                let x = w[($t + 13) % 16]
                    .xor(w[($t + 8) % 16])
                    .xor(w[($t + 2) % 16])
                    .xor(w[$t % 16])
                    .rotl::<1>();
                w[$t % 16] = x;
                x
            };
            let temp = a
                .rotl::<5>()
                .add($f)
                .add(e)
                .add(V::splat(a.isa(), $k))
                .add(wt);
            e = d;
            d = c;
            c = b.rotl::<30>();
            b = a;
            a = temp;
        };
    }
    macro_rules! block_of_20 {
        ($start:expr, $which:literal) => {
            for t in $start..$start + 20 {
                let f = match $which {
                    0 => d.xor(b.and(c.xor(d))),
                    2 => b.and(c).or(d.and(b.or(c))),
                    _ => b.xor(c).xor(d),
                };
                round!(t, f, K[$which]);
            }
        };
    }
    block_of_20!(0, 0);
    block_of_20!(20, 1);
    block_of_20!(40, 2);
    block_of_20!(60, 3);
    for (s, v) in state.iter_mut().zip([a, b, c, d, e]) {
        *s = s.add(v);
    }
}

md_algorithm! {
    /// SHA-1 as a Merkle-Damgard lane algorithm.
    Sha1 {
        word: u32, vectors: U32x, state_words: 5, block: 64, length_bytes: 8,
        big_endian: true, rounds: rounds, lanes: Sha1Lanes,
    }
    /// Lanes at this width, all reset.
    new: IV, 20;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lanes::Width;
    use sha1::Digest;

    // SHA-1 has no batch mapping yet, so its lanes are checked here against the `sha1` crate.
    #[test]
    fn every_width_matches_the_sha1_crate() {
        for width in Width::all_available() {
            for len in [0usize, 1, 55, 56, 63, 64, 65, 119, 120, 1000] {
                let mut kernel = Sha1Lanes::new(width);
                let messages: Vec<Vec<u8>> = (0..crate::lanes::Lanes::lanes(&kernel))
                    .map(|l| (0..len).map(|i| ((i * 7 + l * 13) % 251) as u8).collect())
                    .collect();
                let got = crate::lanes::hash_equal_lengths(&mut kernel, &messages);
                for (m, d) in messages.iter().zip(got) {
                    assert_eq!(
                        d,
                        sha1::Sha1::digest(m).to_vec(),
                        "{} len {len}",
                        width.name()
                    );
                }
            }
        }
    }
}
