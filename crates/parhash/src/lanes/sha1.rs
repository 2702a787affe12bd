//! SHA-1 on 8 (AVX2, portable) or 16 (AVX-512) messages at once.

#[cfg(target_arch = "x86_64")]
use super::vector::{Avx2x8, Avx512x16};
use super::vector::{Portable, Source, U32x};
use super::{md_pad, Lanes, Width, MAX_BLOCK};

/// FIPS 180-4 5.3.1.
const IV: [u32; 5] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
/// FIPS 180-4 4.2.1, one constant per 20 rounds.
const K: [u32; 4] = [0x5a827999, 0x6ed9eba1, 0x8f1bbcdc, 0xca62c1d6];

#[inline(always)]
fn rounds<V: U32x>(state: &mut [V; 5], block: &[V; 16]) {
    let mut w = *block;
    let [mut a, mut b, mut c, mut d, mut e] = *state;
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
            let temp = a.rotl::<5>().add($f).add(e).add(V::splat($k)).add(wt);
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

type Soa = [[u32; 16]; 5];

// No closures below that do vector work: a closure is a function of its own without the
// enclosing target features, so its intrinsics would not inline (each would become a call).
#[inline(always)]
fn run<V: U32x>(soa: &mut Soa, src: Source<'_>, n: usize) {
    let mut s = [V::splat(0); 5];
    for (w, v) in s.iter_mut().enumerate() {
        *v = V::load(&soa[w]);
    }
    for b in 0..n {
        let mut m = [V::splat(0); 16];
        src.advance(b * 64).block32(true, &mut m);
        rounds(&mut s, &m);
    }
    for (w, v) in s.iter().enumerate() {
        v.to_array(&mut soa[w]);
    }
}

fn portable(soa: &mut Soa, src: Source<'_>, n: usize) {
    run::<Portable<u32, 8>>(soa, src, n);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn avx2(soa: &mut Soa, src: Source<'_>, n: usize) {
    run::<Avx2x8>(soa, src, n);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn avx512(soa: &mut Soa, src: Source<'_>, n: usize) {
    run::<Avx512x16>(soa, src, n);
}

/// SHA-1 lanes.
pub struct Sha1Lanes {
    width: Width,
    soa: Soa,
}

impl Sha1Lanes {
    /// Lanes at this width, all reset.
    pub fn new(width: Width) -> Self {
        let mut s = Sha1Lanes {
            width,
            soa: [[0; 16]; 5],
        };
        for l in 0..16 {
            s.reset(l);
        }
        s
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

impl Lanes for Sha1Lanes {
    fn block_len(&self) -> usize {
        64
    }
    fn lanes(&self) -> usize {
        self.width.lanes32()
    }
    fn digest_len(&self) -> usize {
        20
    }
    fn word_len(&self) -> usize {
        4
    }
    fn reset(&mut self, lane: usize) {
        for (w, iv) in IV.iter().enumerate() {
            self.soa[w][lane] = *iv;
        }
    }
    fn compress(&mut self, blocks: &[&[u8]]) {
        assert_eq!(blocks.len(), self.lanes());
        assert!(blocks.iter().all(|b| b.len() >= 64));
        self.dispatch(Source::Gather { blocks, offset: 0 }, 1);
    }
    fn compress_multi(&mut self, blocks: &[&[u8]], n: usize) {
        assert_eq!(blocks.len(), self.lanes());
        assert!(blocks.iter().all(|b| b.len() >= n * 64));
        self.dispatch(Source::Gather { blocks, offset: 0 }, n);
    }
    fn compress_interleaved(&mut self, data: &[u8]) {
        assert!(data.len() >= self.lanes() * 64);
        self.dispatch(Source::Interleaved(data), 1);
    }
    fn pad(&self, total_len: u64, tail: &[u8], out: &mut [u8; 2 * MAX_BLOCK]) -> usize {
        md_pad(64, 8, true, total_len, tail, out)
    }
    fn digest(&self, lane: usize, out: &mut [u8]) {
        for w in 0..5 {
            out[4 * w..4 * w + 4].copy_from_slice(&self.soa[w][lane].to_be_bytes());
        }
    }
}
