//! Keccak-f[1600] on 4 (AVX2, portable) or 8 (AVX-512) sponges at once, serving SHA-3 and
//! round-3 Keccak. Each lane's 25 words sit in 25 vectors, one word per message.

#[cfg(target_arch = "x86_64")]
use super::vector::{Avx2x4, Avx512x8};
use super::vector::{Portable, U64x};
use super::{Lanes, Width, MAX_BLOCK};
use crate::algo::keccak::{RHO, ROUND_CONSTANTS};

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
        a[0] = a[0].xor(V::splat(rc));
    }
}

type Soa = [[u64; 8]; 25];

#[inline(always)]
fn run<V: U64x>(soa: &mut Soa, rate_words: usize, load: impl Fn(usize) -> V) {
    let mut s: [V; 25] = core::array::from_fn(|w| V::from_fn(|l| soa[w][l]));
    for (w, word) in s.iter_mut().enumerate().take(rate_words) {
        *word = word.xor(load(w));
    }
    permute(&mut s);
    for (w, v) in s.iter().enumerate() {
        v.to_array(&mut soa[w]);
    }
}

#[inline(always)]
fn gather<V: U64x>(blocks: &[&[u8]], i: usize) -> V {
    V::from_fn(|l| u64::from_le_bytes(blocks[l][8 * i..8 * i + 8].try_into().unwrap()))
}

#[inline(always)]
fn interleaved<V: U64x>(data: &[u8], i: usize) -> V {
    V::load_le(&data[i * V::LANES * 8..])
}

fn portable(soa: &mut Soa, rate_words: usize, blocks: &[&[u8]], data: Option<&[u8]>) {
    match data {
        Some(d) => run::<Portable<u64, 4>>(soa, rate_words, |i| interleaved(d, i)),
        None => run::<Portable<u64, 4>>(soa, rate_words, |i| gather(blocks, i)),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn avx2(soa: &mut Soa, rate_words: usize, blocks: &[&[u8]], data: Option<&[u8]>) {
    match data {
        Some(d) => run::<Avx2x4>(soa, rate_words, |i| interleaved(d, i)),
        None => run::<Avx2x4>(soa, rate_words, |i| gather(blocks, i)),
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
fn avx512(soa: &mut Soa, rate_words: usize, blocks: &[&[u8]], data: Option<&[u8]>) {
    match data {
        Some(d) => run::<Avx512x8>(soa, rate_words, |i| interleaved(d, i)),
        None => run::<Avx512x8>(soa, rate_words, |i| gather(blocks, i)),
    }
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

    fn dispatch(&mut self, blocks: &[&[u8]], data: Option<&[u8]>) {
        let rate_words = self.rate / 8;
        match self.width {
            Width::Portable => portable(&mut self.soa, rate_words, blocks, data),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Width::Avx2` holds an `Avx2` token, made only after detecting AVX2.
            Width::Avx2(_) => unsafe { avx2(&mut self.soa, rate_words, blocks, data) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Width::Avx512` holds an `Avx512` token, made only after detecting AVX-512.
            Width::Avx512(_) => unsafe { avx512(&mut self.soa, rate_words, blocks, data) },
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
        self.dispatch(blocks, None);
    }
    fn compress_interleaved(&mut self, data: &[u8]) {
        assert!(data.len() >= self.lanes() * self.rate);
        self.dispatch(&[], Some(data));
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
