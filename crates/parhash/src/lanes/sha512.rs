//! SHA-512 (and SHA-384, SHA-512/224, SHA-512/256) on 4 (AVX2, portable) or 8 (AVX-512)
//! messages at once.

#[cfg(target_arch = "x86_64")]
use super::vector::{Avx2x4, Avx512x8};
use super::vector::{Portable, Source, U64x};
use super::{md_pad, Lanes, Width, MAX_BLOCK};
use crate::algo::sha2::consts::{IV384, IV512, IV512_224, IV512_256, K512};
use crate::registry::Algorithm;

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

type Soa = [[u64; 8]; 8];

// No closures below that do vector work: a closure is a function of its own without the
// enclosing target features, so its intrinsics would not inline (each would become a call).
#[inline(always)]
fn run<V: U64x>(soa: &mut Soa, src: Source<'_>, n: usize) {
    let mut s = [V::splat(0); 8];
    for (w, v) in s.iter_mut().enumerate() {
        *v = V::load(&soa[w]);
    }
    for b in 0..n {
        let src = src.advance(b * 128);
        let mut m = [V::splat(0); 16];
        for (i, word) in m.iter_mut().enumerate() {
            *word = src.word64(i, true);
        }
        rounds(&mut s, &m);
    }
    for (w, v) in s.iter().enumerate() {
        v.to_array(&mut soa[w]);
    }
}

fn portable(soa: &mut Soa, src: Source<'_>, n: usize) {
    run::<Portable<u64, 4>>(soa, src, n);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn avx2(soa: &mut Soa, src: Source<'_>, n: usize) {
    run::<Avx2x4>(soa, src, n);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn avx512(soa: &mut Soa, src: Source<'_>, n: usize) {
    run::<Avx512x8>(soa, src, n);
}

/// SHA-512-family lanes.
pub struct Sha512Lanes {
    width: Width,
    iv: [u64; 8],
    digest_len: usize,
    soa: Soa,
}

impl Sha512Lanes {
    /// Lanes for `alg` (SHA-384, SHA-512, SHA-512/224 or SHA-512/256) at this width; `None` for
    /// any other algorithm.
    pub fn new(width: Width, alg: Algorithm) -> Option<Self> {
        let (iv, digest_len) = match alg {
            Algorithm::Sha384 => (IV384, 48),
            Algorithm::Sha512 => (IV512, 64),
            Algorithm::Sha512_224 => (IV512_224, 28),
            Algorithm::Sha512_256 => (IV512_256, 32),
            _ => return None,
        };
        let mut s = Sha512Lanes {
            width,
            iv,
            digest_len,
            soa: [[0; 8]; 8],
        };
        for l in 0..8 {
            s.reset(l);
        }
        Some(s)
    }

    fn dispatch(&mut self, src: Source<'_>, n: usize) {
        match self.width {
            Width::Portable => portable(&mut self.soa, src, n),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Width::Avx2` holds an `Avx2` token, made only after detecting AVX2.
            Width::Avx2(_) => unsafe { avx2(&mut self.soa, src, n) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Width::Avx512` holds an `Avx512` token, made only after detecting AVX-512.
            Width::Avx512(_) => unsafe { avx512(&mut self.soa, src, n) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!("SIMD widths exist only on x86_64"),
        }
    }
}

impl Lanes for Sha512Lanes {
    fn block_len(&self) -> usize {
        128
    }
    fn lanes(&self) -> usize {
        self.width.lanes64()
    }
    fn digest_len(&self) -> usize {
        self.digest_len
    }
    fn word_len(&self) -> usize {
        8
    }
    fn reset(&mut self, lane: usize) {
        for (w, iv) in self.iv.iter().enumerate() {
            self.soa[w][lane] = *iv;
        }
    }
    fn compress(&mut self, blocks: &[&[u8]]) {
        assert_eq!(blocks.len(), self.lanes());
        assert!(blocks.iter().all(|b| b.len() >= 128));
        self.dispatch(Source::Gather { blocks, offset: 0 }, 1);
    }
    fn compress_multi(&mut self, blocks: &[&[u8]], n: usize) {
        assert_eq!(blocks.len(), self.lanes());
        assert!(blocks.iter().all(|b| b.len() >= n * 128));
        self.dispatch(Source::Gather { blocks, offset: 0 }, n);
    }
    fn compress_interleaved(&mut self, data: &[u8]) {
        assert!(data.len() >= self.lanes() * 128);
        self.dispatch(Source::Interleaved(data), 1);
    }
    fn pad(&self, total_len: u64, tail: &[u8], out: &mut [u8; 2 * MAX_BLOCK]) -> usize {
        md_pad(128, 16, true, total_len, tail, out)
    }
    fn digest(&self, lane: usize, out: &mut [u8]) {
        let mut full = [0u8; 64];
        for w in 0..8 {
            full[8 * w..8 * w + 8].copy_from_slice(&self.soa[w][lane].to_be_bytes());
        }
        out[..self.digest_len].copy_from_slice(&full[..self.digest_len]);
    }
}
