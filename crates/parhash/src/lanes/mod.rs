//! Multi-lane compression kernels: many independent messages side by side in SIMD lanes.
//!
//! Each kernel is written once over the lane vector types of [`vector`] and compiled for the
//! portable fallback, AVX2 and AVX-512. The one dispatch point is [`Width::detect`]; a [`Width`]
//! holds the platform token, so a kernel can only be entered on a CPU that has its ISA.
//! `batch/` drives these kernels through the [`Lanes`] trait; `tree/` (PARSHA-256) uses the
//! SHA-256 lanes directly.

pub(crate) mod vector;

pub mod keccak;
pub mod md5;
pub mod sha1;
pub mod sha256;
pub mod sha512;

use crate::platform::{Avx2, Avx512};

/// Which lane kernel to run. Constructed only by detection or by forcing an available ISA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// Portable arrays (as many lanes as AVX2 would have).
    Portable,
    Avx2(Avx2),
    Avx512(Avx512),
}

impl Width {
    /// The widest kernel this CPU allows.
    pub fn detect() -> Width {
        if let Some(t) = Avx512::detect() {
            Width::Avx512(t)
        } else if let Some(t) = Avx2::detect() {
            Width::Avx2(t)
        } else {
            Width::Portable
        }
    }

    /// Every width available here, narrowest first (for tests and benchmarks).
    pub fn all_available() -> Vec<Width> {
        let mut v = vec![Width::Portable];
        if let Some(t) = Avx2::detect() {
            v.push(Width::Avx2(t));
        }
        if let Some(t) = Avx512::detect() {
            v.push(Width::Avx512(t));
        }
        v
    }

    /// Short name: `portable`, `avx2`, `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            Width::Portable => "portable",
            Width::Avx2(_) => "avx2",
            Width::Avx512(_) => "avx512",
        }
    }

    /// Looks an available width up by name.
    pub fn from_name(name: &str) -> Option<Width> {
        Width::all_available()
            .into_iter()
            .find(|w| w.name() == name)
    }

    /// Lanes of 32-bit words at this width.
    pub fn lanes32(self) -> usize {
        match self {
            Width::Portable | Width::Avx2(_) => 8,
            Width::Avx512(_) => 16,
        }
    }

    /// Lanes of 64-bit words at this width.
    pub fn lanes64(self) -> usize {
        self.lanes32() / 2
    }
}

/// The most blocks [`Lanes::compress_multi`] is handed at once by `batch/` (bounds the idle-lane
/// buffer).
pub const MAX_MULTI: usize = 32;

/// Input for idle lanes: zeros, enough for [`MAX_MULTI`] of the largest block.
pub(crate) static IDLE: [u8; MAX_MULTI * MAX_BLOCK] = [0; MAX_MULTI * MAX_BLOCK];

/// The largest block any lane kernel takes (SHA3-224's rate is 144; SHA-512's block 128).
pub const MAX_BLOCK: usize = 168;

/// N messages' chaining states, compressed one block per lane per call. `batch/` implements
/// padding, scheduling and refilling on top of this.
pub trait Lanes: Send {
    /// Block size in bytes.
    fn block_len(&self) -> usize;
    /// Number of lanes.
    fn lanes(&self) -> usize;
    /// Digest size in bytes.
    fn digest_len(&self) -> usize;
    /// Bytes per state word (4 or 8): the unit of the interleaved layout.
    fn word_len(&self) -> usize;
    /// Resets one lane to the initial state.
    fn reset(&mut self, lane: usize);
    /// Compresses one block into each lane (`blocks.len() == lanes()`, each `block_len()` bytes).
    fn compress(&mut self, blocks: &[&[u8]]);
    /// Compresses `n` consecutive blocks into each lane (`blocks[l]` holds at least
    /// `n * block_len()` bytes); the state stays in registers between blocks.
    fn compress_multi(&mut self, blocks: &[&[u8]], n: usize);
    /// Compresses one block into each lane from pre-interleaved data: `lanes() * block_len()`
    /// bytes, word w of lane l at word index `w * lanes() + l` (words in the algorithm's width).
    fn compress_interleaved(&mut self, data: &[u8]);
    /// Writes the final padding for a message of `total_len` bytes whose last partial block is
    /// `tail` into `out`; returns the number of blocks written (1 or 2).
    fn pad(&self, total_len: u64, tail: &[u8], out: &mut [u8; 2 * MAX_BLOCK]) -> usize;
    /// Writes lane `lane`'s digest into `out` (`digest_len()` bytes).
    fn digest(&self, lane: usize, out: &mut [u8]);
}

/// Merkle-Damgard padding: 0x80, zeros, then the bit length in `len_bytes` bytes (big- or
/// little-endian). Shared by MD5, SHA-1 and SHA-512.
pub(crate) fn md_pad(
    block: usize,
    len_bytes: usize,
    big_endian: bool,
    total_len: u64,
    tail: &[u8],
    out: &mut [u8; 2 * MAX_BLOCK],
) -> usize {
    let n = if tail.len() < block - len_bytes { 1 } else { 2 };
    let end = n * block;
    out[..end].fill(0);
    out[..tail.len()].copy_from_slice(tail);
    out[tail.len()] = 0x80;
    let bits = u128::from(total_len) * 8;
    let len_field = &mut out[end - len_bytes..end];
    if big_endian {
        let b = bits.to_be_bytes();
        len_field.copy_from_slice(&b[16 - len_bytes..]);
    } else {
        let b = bits.to_le_bytes();
        len_field.copy_from_slice(&b[..len_bytes]);
    }
    n
}
