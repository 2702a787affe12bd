//! MD5 on 8 (AVX2, portable) or 16 (AVX-512) messages at once.
//!
//! MD5 has no parallelism inside one message (see `algo::md5`), so this is where its speed-up
//! comes from: the same step on 16 messages in one instruction.

#[cfg(target_arch = "x86_64")]
use super::vector::{Avx2x8, Avx512x16};
use super::vector::{Portable, Source, U32x};
use super::{md_pad, Lanes, Width, MAX_BLOCK};
use crate::algo::md5::{IV, K};

#[inline(always)]
fn rounds<V: U32x>(state: &mut [V; 4], m: &[V; 16]) {
    let [mut a, mut b, mut c, mut d] = *state;
    macro_rules! step {
        ($f:ident, $a:ident, $b:ident, $c:ident, $d:ident, $i:expr, $g:expr, $s:literal) => {
            let f = $f($b, $c, $d);
            $a = $b.add($a.add(f).add(m[$g]).add(V::splat(K[$i])).rotl::<$s>());
        };
    }
    #[inline(always)]
    fn ff<V: U32x>(b: V, c: V, d: V) -> V {
        d.xor(b.and(c.xor(d)))
    }
    #[inline(always)]
    fn gg<V: U32x>(b: V, c: V, d: V) -> V {
        c.xor(d.and(b.xor(c)))
    }
    #[inline(always)]
    fn hh<V: U32x>(b: V, c: V, d: V) -> V {
        b.xor(c).xor(d)
    }
    #[inline(always)]
    fn ii<V: U32x>(b: V, c: V, d: V) -> V {
        c.xor(b.or(d.not()))
    }
    macro_rules! four {
        ($f:ident, $i:expr, $gi:expr, $s0:literal, $s1:literal, $s2:literal, $s3:literal) => {
            step!($f, a, b, c, d, $i, $gi($i), $s0);
            step!($f, d, a, b, c, $i + 1, $gi($i + 1), $s1);
            step!($f, c, d, a, b, $i + 2, $gi($i + 2), $s2);
            step!($f, b, c, d, a, $i + 3, $gi($i + 3), $s3);
        };
    }
    let g1 = |i: usize| i;
    let g2 = |i: usize| (5 * i + 1) % 16;
    let g3 = |i: usize| (3 * i + 5) % 16;
    let g4 = |i: usize| (7 * i) % 16;
    four!(ff, 0, g1, 7, 12, 17, 22);
    four!(ff, 4, g1, 7, 12, 17, 22);
    four!(ff, 8, g1, 7, 12, 17, 22);
    four!(ff, 12, g1, 7, 12, 17, 22);
    four!(gg, 16, g2, 5, 9, 14, 20);
    four!(gg, 20, g2, 5, 9, 14, 20);
    four!(gg, 24, g2, 5, 9, 14, 20);
    four!(gg, 28, g2, 5, 9, 14, 20);
    four!(hh, 32, g3, 4, 11, 16, 23);
    four!(hh, 36, g3, 4, 11, 16, 23);
    four!(hh, 40, g3, 4, 11, 16, 23);
    four!(hh, 44, g3, 4, 11, 16, 23);
    four!(ii, 48, g4, 6, 10, 15, 21);
    four!(ii, 52, g4, 6, 10, 15, 21);
    four!(ii, 56, g4, 6, 10, 15, 21);
    four!(ii, 60, g4, 6, 10, 15, 21);
    state[0] = state[0].add(a);
    state[1] = state[1].add(b);
    state[2] = state[2].add(c);
    state[3] = state[3].add(d);
}

/// Chaining values, word-major: `soa[word][lane]`.
type Soa = [[u32; 16]; 4];

// No closures below that do vector work: a closure is a function of its own without the
// enclosing target features, so its intrinsics would not inline (each would become a call).
#[inline(always)]
fn run<V: U32x>(soa: &mut Soa, src: Source<'_>, n: usize) {
    let mut s = [V::splat(0); 4];
    for (w, v) in s.iter_mut().enumerate() {
        *v = V::load(&soa[w]);
    }
    for b in 0..n {
        let mut m = [V::splat(0); 16];
        src.advance(b * 64).block32(false, &mut m);
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

/// MD5 lanes.
pub struct Md5Lanes {
    width: Width,
    soa: Soa,
}

impl Md5Lanes {
    /// Lanes at this width, all reset.
    pub fn new(width: Width) -> Self {
        let mut s = Md5Lanes {
            width,
            soa: [[0; 16]; 4],
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

impl Lanes for Md5Lanes {
    fn block_len(&self) -> usize {
        64
    }
    fn lanes(&self) -> usize {
        self.width.lanes32()
    }
    fn digest_len(&self) -> usize {
        16
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
        md_pad(64, 8, false, total_len, tail, out)
    }
    fn digest(&self, lane: usize, out: &mut [u8]) {
        for w in 0..4 {
            out[4 * w..4 * w + 4].copy_from_slice(&self.soa[w][lane].to_le_bytes());
        }
    }
}
