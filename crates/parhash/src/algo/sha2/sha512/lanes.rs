//! SHA-512 (and SHA-384, SHA-512/224, SHA-512/256) on 4 (AVX2, portable) or 8 (AVX-512)
//! messages at once.

use crate::algo::sha2::consts::K512;
use crate::lanes::{md_algorithm, MdLanes, Width};
use crate::vector::U64x;

#[inline(always)]
fn rounds<V: U64x>(state: &mut [V; 8], block: &[V; 16]) {
    let mut w = *block;
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    for (t, k) in K512.iter().enumerate() {
        let wt = if t < 16 {
            w[t]
        } else {
            let w15 = w[(t + 1) % 16];
            let w2 = w[(t + 14) % 16];
            let s0 = w15.rotl::<63>().xor(w15.rotl::<56>()).xor(w15.shr::<7>());
            let s1 = w2.rotl::<45>().xor(w2.rotl::<3>()).xor(w2.shr::<6>());
            let x = w[t % 16].add(s0).add(w[(t + 9) % 16]).add(s1);
            w[t % 16] = x;
            x
        };
        let big_s1 = e.rotl::<50>().xor(e.rotl::<46>()).xor(e.rotl::<23>());
        let ch = g.xor(e.and(f.xor(g)));
        let t1 = h.add(big_s1).add(ch).add(V::splat(*k)).add(wt);
        let big_s0 = a.rotl::<36>().xor(a.rotl::<30>()).xor(a.rotl::<25>());
        let maj = a.and(b).or(c.and(a.or(b)));
        let t2 = big_s0.add(maj);
        h = g;
        g = f;
        f = e;
        e = d.add(t1);
        d = c;
        c = b;
        b = a;
        a = t1.add(t2);
    }
    for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *s = s.add(v);
    }
}

md_algorithm! {
    /// SHA-512 as a Merkle-Damgard lane algorithm (serves SHA-384, SHA-512/224, SHA-512/256 too).
    Sha512 {
        word: u64, vectors: U64x, state_words: 8, block: 128, length_bytes: 16,
        big_endian: true, rounds: rounds,
    }
}

/// SHA-512-family lanes.
pub(crate) type Sha512Lanes = MdLanes<Sha512>;

impl Sha512Lanes {
    /// Lanes starting from `iv`, digests of `digest_len` bytes: SHA-384 (`IV384`, 48),
    /// SHA-512 (`IV512`, 64), SHA-512/224 (`IV512_224`, 28), SHA-512/256 (`IV512_256`, 32).
    pub(crate) fn new(width: Width, iv: &[u64; 8], digest_len: usize) -> Self {
        MdLanes::with_iv(width, iv, digest_len)
    }
}
