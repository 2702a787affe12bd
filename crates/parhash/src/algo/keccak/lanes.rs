//! Keccak-f\[1600\] on 4 (AVX2, portable) or 8 (AVX-512) sponges at once, serving SHA-3 and
//! round-3 Keccak. Each lane's 25 words sit in 25 vectors, one word per message.

use crate::algo::keccak::{RHO, ROUND_CONSTANTS};
use crate::lanes::{Lanes, Width, MAX_BLOCK};
#[cfg(target_arch = "x86_64")]
use crate::platform::{Avx2, Avx512};
#[cfg(target_arch = "x86_64")]
use crate::vector::{Avx2x4, Avx512x8};
use crate::vector::{Portable, Source, U64x};

/// The domain-separation padding of the sponge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// FIPS 202 SHA-3: 0x06 ... 0x80.
    Sha3,
    /// SHA-3 round-3 Keccak: 0x01 ... 0x80.
    Keccak,
}

#[inline(always)]
fn permute<V: U64x>(a: &mut [V; 25]) {
    for rc in ROUND_CONSTANTS {
        // θ
        let c: [V; 5] = core::array::from_fn(|x| {
            a[x].xor(a[x + 5])
                .xor(a[x + 10])
                .xor(a[x + 15])
                .xor(a[x + 20])
        });
        for x in 0..5 {
            let d = c[(x + 4) % 5].xor(c[(x + 1) % 5].rotl::<1>());
            for y in 0..5 {
                a[x + 5 * y] = a[x + 5 * y].xor(d);
            }
        }
        // ρ and π: B[y, 2x + 3y] = ROT(A[x, y], RHO[x, y]).
        let mut b = *a;
        macro_rules! rho_pi {
            ($($i:literal)*) => {$(
                b[($i / 5) + 5 * ((2 * ($i % 5) + 3 * ($i / 5)) % 5)] =
                    a[$i].rotl::<{ RHO[$i] as i32 }>();
            )*};
        }
        rho_pi!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24);
        // χ
        for y in 0..5 {
            for x in 0..5 {
                a[x + 5 * y] =
                    b[x + 5 * y].xor(b[(x + 1) % 5 + 5 * y].andnot(b[(x + 2) % 5 + 5 * y]));
            }
        }
        // ι
        a[0] = a[0].xor(V::splat(a[0].isa(), rc));
    }
}

type Soa = [[u64; 8]; 25];

// No closures below that do vector work: a closure is a function of its own without the
// enclosing target features, so its intrinsics would not inline (each would become a call).
#[inline(always)]
fn run<V: U64x>(isa: V::Isa, soa: &mut Soa, rate_words: usize, src: Source<'_>, n: usize) {
    let mut s = [V::splat(isa, 0); 25];
    for (w, v) in s.iter_mut().enumerate() {
        *v = V::load(isa, &soa[w]);
    }
    for b in 0..n {
        let src = src.advance(b * rate_words * 8);
        for (w, word) in s.iter_mut().enumerate().take(rate_words) {
            *word = word.xor(src.word64(isa, w, false));
        }
        permute(&mut s);
    }
    for (w, v) in s.iter().enumerate() {
        v.to_array(&mut soa[w]);
    }
}

fn portable(soa: &mut Soa, rate_words: usize, src: Source<'_>, n: usize) {
    run::<Portable<u64, 4>>((), soa, rate_words, src, n);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn avx2(token: Avx2, soa: &mut Soa, rate_words: usize, src: Source<'_>, n: usize) {
    run::<Avx2x4>(token, soa, rate_words, src, n);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn avx512(token: Avx512, soa: &mut Soa, rate_words: usize, src: Source<'_>, n: usize) {
    run::<Avx512x8>(token, soa, rate_words, src, n);
}

/// Keccak sponges in lanes.
pub struct KeccakLanes {
    width: Width,
    rate: usize,
    digest_len: usize,
    padding: Padding,
    soa: Soa,
}

impl KeccakLanes {
    /// Sponges with capacity `2 * digest_len` bytes (as SHA-3 and round-3 Keccak), all reset.
    pub fn new(width: Width, digest_len: usize, padding: Padding) -> Self {
        KeccakLanes {
            width,
            rate: 200 - 2 * digest_len,
            digest_len,
            padding,
            soa: [[0; 8]; 25],
        }
    }

    fn dispatch(&mut self, src: Source<'_>, n: usize) {
        let rate_words = self.rate / 8;
        match self.width {
            Width::Portable => portable(&mut self.soa, rate_words, src, n),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Width::Avx2` holds an `Avx2` token, made only after detecting AVX2.
            Width::Avx2(token) => unsafe { avx2(token, &mut self.soa, rate_words, src, n) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Width::Avx512` holds an `Avx512` token, made only after detecting AVX-512.
            Width::Avx512(token) => unsafe { avx512(token, &mut self.soa, rate_words, src, n) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!("SIMD widths exist only on x86_64"),
        }
    }
}

impl Lanes for KeccakLanes {
    fn block_len(&self) -> usize {
        self.rate
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
        for word in self.soa.iter_mut() {
            word[lane] = 0;
        }
    }
    fn compress(&mut self, blocks: &[&[u8]]) {
        assert_eq!(blocks.len(), self.lanes());
        assert!(blocks.iter().all(|b| b.len() >= self.rate));
        self.dispatch(Source::Gather { blocks, offset: 0 }, 1);
    }
    fn compress_multi(&mut self, blocks: &[&[u8]], n: usize) {
        assert_eq!(blocks.len(), self.lanes());
        assert!(blocks.iter().all(|b| b.len() >= n * self.rate));
        self.dispatch(Source::Gather { blocks, offset: 0 }, n);
    }
    fn compress_interleaved(&mut self, data: &[u8]) {
        assert!(data.len() >= self.lanes() * self.rate);
        self.dispatch(Source::Interleaved(data), 1);
    }
    fn pad(&self, _total_len: u64, tail: &[u8], out: &mut [u8; 2 * MAX_BLOCK]) -> usize {
        let r = self.rate;
        out[..r].fill(0);
        out[..tail.len()].copy_from_slice(tail);
        out[tail.len()] ^= match self.padding {
            Padding::Sha3 => 0x06,
            Padding::Keccak => 0x01,
        };
        out[r - 1] ^= 0x80;
        1
    }
    fn digest(&self, lane: usize, out: &mut [u8]) {
        for (i, byte) in out[..self.digest_len].iter_mut().enumerate() {
            *byte = (self.soa[i / 8][lane] >> (8 * (i % 8))) as u8;
        }
    }
}
