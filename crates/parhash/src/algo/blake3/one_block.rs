//! BLAKE3 of a message of at most one block (64 bytes), the plain hash: one compression of the
//! zero-padded block with the chaining value IV, counter 0, the block's length and the flags
//! CHUNK_START | CHUNK_END | ROOT (the BLAKE3 paper, sections 2.2-2.5).
//!
//! Why parhash computes this itself and not through `blake3::hash`: the crate's one-shot
//! builds a chunk state and an output node around its single compression, and its partial
//! block is copied twice; with AVX-512 (rotates in one instruction, each round's message rows
//! gathered by two permutes) the one compression alone is 1.14x the crate's call at 64 bytes
//! and 1.33x at 8 (Xeon, `BENCHMARKS.md`). Without AVX-512 the crate's SSE4.1 assembly is
//! faster than a kernel without rotates, so [`hash`] hands the message to the crate there,
//! and longer messages too: over a whole chunk the crate's block loop is as fast as this
//! kernel's. [`compress_portable`] is the literal specification, the reference the kernel and
//! the crate are tested against.
#![forbid(unsafe_code)]

pub(crate) use super::spec::BLOCK;
use super::spec::{rounds, IV, ONE_BLOCK_ROOT};
use crate::algo::len_word::LenWord;

/// The G function on state words `a, b, c, d` with message words `x, y`.
#[cfg_attr(not(test), allow(dead_code))] // the reference: tests compare against it
#[inline(always)]
fn g(v: &mut [u32; 16], [a, b, c, d]: [usize; 4], x: u32, y: u32) {
    v[a] = v[a].wrapping_add(v[b]).wrapping_add(x);
    v[d] = (v[d] ^ v[a]).rotate_right(16);
    v[c] = v[c].wrapping_add(v[d]);
    v[b] = (v[b] ^ v[c]).rotate_right(12);
    v[a] = v[a].wrapping_add(v[b]).wrapping_add(y);
    v[d] = (v[d] ^ v[a]).rotate_right(8);
    v[c] = v[c].wrapping_add(v[d]);
    v[b] = (v[b] ^ v[c]).rotate_right(7);
}

/// [`g`] on the four columns, or the four diagonals, of a half round, one after the other.
#[cfg_attr(not(test), allow(dead_code))] // the reference: tests compare against it
#[inline(always)]
fn g4(v: &mut [u32; 16], abcd: [[usize; 4]; 4], x: [u32; 4], y: [u32; 4]) {
    for ((abcd, x), y) in abcd.into_iter().zip(x).zip(y) {
        g(v, abcd, x, y);
    }
}

/// The digest of `data` (at most [`BLOCK`] bytes) in portable Rust, literal to the paper:
/// columns, then diagonals, seven rounds, then the first eight output words `v[i] ^ v[i + 8]`.
#[cfg_attr(not(test), allow(dead_code))] // the reference: tests compare against it
pub(crate) fn compress_portable(data: &[u8], out: &mut [u8; 32]) {
    assert!(data.len() <= BLOCK, "one BLAKE3 block is at most 64 bytes");
    let mut block = [0; BLOCK];
    block[..data.len()].copy_from_slice(data);
    let mut m = [0u32; 16];
    for (word, bytes) in m.iter_mut().zip(block.chunks_exact(4)) {
        *word = u32::from_le_bytes(bytes.try_into().expect("four bytes"));
    }
    #[rustfmt::skip]
    let mut v = [
        IV[0], IV[1], IV[2], IV[3], IV[4], IV[5], IV[6], IV[7],
        IV[0], IV[1], IV[2], IV[3], 0, 0, data.len() as u32, ONE_BLOCK_ROOT,
    ];
    rounds!(g4, v, m);
    for (i, bytes) in out.chunks_exact_mut(4).enumerate() {
        bytes.copy_from_slice(&(v[i] ^ v[i + 8]).to_le_bytes());
    }
}

/// The kernel [`hash`] runs, detected once per process: `None` where the crate is faster.
#[cfg(target_arch = "x86_64")]
fn kernel() -> Option<crate::platform::Avx512> {
    static KERNEL: std::sync::OnceLock<Option<crate::platform::Avx512>> =
        std::sync::OnceLock::new();
    *KERNEL.get_or_init(crate::platform::Avx512::detect)
}

/// The BLAKE3 digest of a message of one piece (the one-shot `hash`, and the finalize of a
/// [`Blake3`](super::Blake3) that held its whole message): a message of at most one block by
/// the AVX-512 kernel where this CPU has it, everything else by `blake3::hash`.
#[inline]
pub(crate) fn hash(data: &[u8], out: &mut [u8; 32]) {
    #[cfg(target_arch = "x86_64")]
    if data.len() <= BLOCK {
        if let Some(token) = kernel() {
            super::one_block_avx512::compress(token, data, out);
            return;
        }
    }
    *out = *::blake3::hash(data).as_bytes();
}

/// A message of at most one block, kept until it ends (then [`hash`] takes it whole) or
/// outgrows the block (then it goes to the crate's hasher first). Aligned to 16 bytes: the
/// kernel reads a whole block by 16-byte loads, which then never straddle two cache lines.
/// Unaligned, those loads straddled lines wherever the hasher happened to lie, and a reused
/// hasher's time at 64 bytes varied by 25 % from one process to the next. Not more than 16:
/// Python objects (pyo3) are only that aligned.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub(crate) struct Held {
    block: [u8; BLOCK],
    /// Written whole: `finalize(self)` moves the hasher right after `update`
    /// ([`LenWord`] says why).
    len: LenWord,
}

impl Held {
    /// No message yet.
    #[inline(always)]
    pub(crate) fn empty() -> Held {
        Held {
            block: [0; BLOCK],
            len: LenWord::new(0),
        }
    }

    /// The message held so far.
    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.block[..self.len.get()]
    }

    /// Appends `data` if the message still fits one block and says whether it did; if not,
    /// nothing changes.
    #[inline]
    pub(crate) fn append(&mut self, data: &[u8]) -> bool {
        let len = self.len.get();
        let total = len + data.len();
        if let (0, Ok(block)) = (len, <&[u8; BLOCK]>::try_from(data)) {
            // A whole block at once: a copy of known length, not a `memcpy` call.
            self.block = *block;
        } else if total <= BLOCK {
            self.block[len..total].copy_from_slice(data);
        } else {
            return false;
        }
        self.len = LenWord::new(total);
        true
    }

    /// Forgets the message.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.len = LenWord::new(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages of every length up to a block, with contents that differ per length.
    fn messages() -> impl Iterator<Item = Vec<u8>> {
        (0..=BLOCK).flat_map(|len| {
            let counting = (0..len).map(|i| (i % 251) as u8).collect::<Vec<u8>>();
            let mixed = (0..len)
                .map(|i| {
                    (i as u32)
                        .wrapping_mul(2_654_435_761)
                        .rotate_left(len as u32) as u8
                })
                .collect();
            [counting, mixed, vec![0xff; len]]
        })
    }

    #[test]
    fn the_portable_compression_gives_the_crates_digest_at_every_length() {
        for data in messages() {
            let mut out = [0; 32];
            compress_portable(&data, &mut out);
            assert_eq!(&out, ::blake3::hash(&data).as_bytes(), "len {}", data.len());
        }
        crate::forms_log::ran("blake3-one-block", "portable");
    }

    #[test]
    fn the_one_shot_gives_the_crates_digest_on_both_sides_of_one_block() {
        for len in [0, 1, 63, 64, 65, 127, 128, 1023, 1024, 1025, 4096] {
            let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let mut out = [0; 32];
            hash(&data, &mut out);
            assert_eq!(&out, ::blake3::hash(&data).as_bytes(), "len {len}");
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx512_kernel_gives_the_portable_digest_at_every_length_and_offset() {
        let Some(token) = crate::platform::Avx512::detect() else {
            crate::forms_log::skipped(
                "the_avx512_kernel_gives_the_portable_digest_at_every_length_and_offset",
                "no AVX-512 here (or PARHASH_DISABLE_ISA switched it off)",
            );
            return;
        };
        // Each message also at every offset in a buffer that ends where it ends: the kernel's
        // masked load must read exactly the message.
        let mut checked = 0;
        for data in messages() {
            let mut expected = [0; 32];
            compress_portable(&data, &mut expected);
            for offset in 0..8 {
                let mut buffer = vec![0xa5; offset];
                buffer.extend_from_slice(&data);
                let mut out = [0; 32];
                super::super::one_block_avx512::compress(token, &buffer[offset..], &mut out);
                assert_eq!(out, expected, "len {}, offset {offset}", data.len());
                checked += 1;
            }
        }
        assert_eq!(checked, 3 * (BLOCK + 1) * 8);
        crate::forms_log::ran("blake3-one-block", "avx512");
    }
}
