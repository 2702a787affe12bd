//! Multi-lane compression kernels: many independent messages side by side in SIMD lanes.
//!
//! Each kernel is written once over the lane vector types of `vector` and compiled for the
//! portable fallback, AVX2 and AVX-512. The one dispatch point is [`Width::detect`]; a [`Width`]
//! holds the platform token, so a kernel can only be entered on a CPU that has its ISA.
//! `batch/` drives these kernels through the [`Lanes`] trait; `tree/` (PARSHA-256) uses the
//! SHA-256 lanes directly.

use crate::platform::{Avx2, Avx512, ShaNi};
#[cfg(target_arch = "x86_64")]
use crate::vector::{Avx2x4, Avx2x8, Avx512x16, Avx512x8};
use crate::vector::{Portable, Source, Vector};

/// Which lane kernel to run. Constructed only by detection or by forcing an available ISA.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// Portable arrays (as many lanes as AVX2 would have).
    Portable,
    /// 256-bit registers (eight 32-bit or four 64-bit lanes).
    Avx2(Avx2),
    /// 512-bit registers (sixteen 32-bit or eight 64-bit lanes).
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

/// A multi-message kernel: vector lanes at a [`Width`], or, for SHA-224 and SHA-256, the SHA
/// extensions running several independent messages interleaved (on a CPU with them that is the
/// faster of the two: a single SHA-NI stream is latency-bound, so interleaved streams fill the
/// unit; see `algo/sha2/sha256/lanes_sha_ni.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Vector lanes of this width.
    Vector(Width),
    /// The SHA extensions, several streams interleaved (SHA-224 and SHA-256 only).
    ShaNi(ShaNi),
}

impl From<Width> for Kernel {
    fn from(width: Width) -> Kernel {
        Kernel::Vector(width)
    }
}

impl Kernel {
    /// The fastest kernel on this CPU for an algorithm that has SHA-NI streams (`sha_ni`:
    /// SHA-224 and SHA-256) or not (the widest vectors).
    pub fn best(sha_ni: bool) -> Kernel {
        match ShaNi::detect() {
            Some(token) if sha_ni && cfg!(target_arch = "x86_64") => Kernel::ShaNi(token),
            _ => Kernel::Vector(Width::detect()),
        }
    }

    /// Every kernel this CPU can run, vector widths narrowest first, then the SHA-NI streams
    /// where the algorithm has them (`sha_ni`) (tests, benchmarks).
    pub fn all(sha_ni: bool) -> Vec<Kernel> {
        let mut all: Vec<Kernel> = Width::all_available()
            .into_iter()
            .map(Kernel::from)
            .collect();
        if let Some(token) = ShaNi::detect().filter(|_| sha_ni && cfg!(target_arch = "x86_64")) {
            all.push(Kernel::ShaNi(token));
        }
        all
    }

    /// Short name: `portable`, `avx2`, `avx512` or `sha-ni`.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Vector(width) => width.name(),
            Kernel::ShaNi(_) => ShaNi::NAME,
        }
    }

    /// Looks a kernel available here up by name (`sha_ni` as for [`Kernel::all`]).
    pub fn from_name(sha_ni: bool, name: &str) -> Option<Kernel> {
        Kernel::all(sha_ni).into_iter().find(|k| k.name() == name)
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

/// A chaining-value word of the Merkle-Damgard lane kernels, with the vector types that hold
/// one such word of every lane at each width.
pub(crate) trait StateWord: Copy + Default + Send + 'static {
    /// Portable arrays, as many lanes as AVX2.
    type Portable: Vector<Word = Self, Isa = ()>;
    /// A 256-bit register.
    #[cfg(target_arch = "x86_64")]
    type Avx2: Vector<Word = Self, Isa = Avx2>;
    /// A 512-bit register.
    #[cfg(target_arch = "x86_64")]
    type Avx512: Vector<Word = Self, Isa = Avx512>;
    /// Writes the word's bytes, big- or little-endian, to the start of `out`.
    fn put(self, big_endian: bool, out: &mut [u8]);
}

/// `StateWord` for a word type of `$bytes` bytes and its three register types.
macro_rules! state_word {
    ($word:ty, $bytes:literal, $portable:ty, $avx2:ty, $avx512:ty) => {
        impl StateWord for $word {
            type Portable = $portable;
            #[cfg(target_arch = "x86_64")]
            type Avx2 = $avx2;
            #[cfg(target_arch = "x86_64")]
            type Avx512 = $avx512;
            fn put(self, big_endian: bool, out: &mut [u8]) {
                let bytes = if big_endian {
                    self.to_be_bytes()
                } else {
                    self.to_le_bytes()
                };
                out[..$bytes].copy_from_slice(&bytes);
            }
        }
    };
}

state_word!(u32, 4, Portable<u32, 8>, Avx2x8, Avx512x16);
state_word!(u64, 8, Portable<u64, 4>, Avx2x4, Avx512x8);

/// What one Merkle-Damgard lane algorithm (MD5, SHA-1, SHA-256, SHA-512) brings: its word,
/// block and padding geometry. Its rounds come through [`MdRounds`]; [`MdLanes`] is the rest.
pub(crate) trait MdAlgorithm: Send + 'static {
    /// Chaining-value word.
    type Word: StateWord;
    /// Chaining-value words (at most 8).
    const STATE_WORDS: usize;
    /// Block size in bytes.
    const BLOCK: usize;
    /// Bytes of the bit-length field in the padding.
    const LEN_BYTES: usize;
    /// Whether message words, the length field and the digest are big-endian.
    const BIG_ENDIAN: bool;
}

/// One block's rounds and feed-forward on every lane, for vectors of type `V`. Implemented once
/// per algorithm, generic over `V` (the rounds inline into each width's entry point).
pub(crate) trait MdRounds<V> {
    /// `state` holds the chaining words (the first [`MdAlgorithm::STATE_WORDS`] of 8 used).
    fn rounds(state: &mut [V; 8], block: &[V; 16]);
}

/// Declares a Merkle-Damgard lane algorithm: a marker type with its [`MdAlgorithm`] geometry,
/// and the algorithm's generic `rounds` function as its [`MdRounds`] for every vector of its word.
macro_rules! md_algorithm {
    ($(#[$doc:meta])* $name:ident {
        word: $word:ty, vectors: $ops:ident, state_words: $state:literal, block: $block:literal,
        length_bytes: $len:literal, big_endian: $be:literal, rounds: $rounds:path,
        lanes: $lanes:ident $(,)?
    }
    $($(#[$ctor_doc:meta])* $ctor:ident: $iv:expr, $digest_len:literal;)*) => {
        $(#[$doc])*
        pub(crate) struct $name;

        impl $crate::lanes::MdAlgorithm for $name {
            type Word = $word;
            const STATE_WORDS: usize = $state;
            const BLOCK: usize = $block;
            const LEN_BYTES: usize = $len;
            const BIG_ENDIAN: bool = $be;
        }

        impl<V: $ops> $crate::lanes::MdRounds<V> for $name {
            #[inline(always)]
            fn rounds(state: &mut [V; 8], block: &[V; 16]) {
                $rounds(state, block);
            }
        }

        #[doc = concat!("`", stringify!($name), "` on lanes: the [`crate::lanes::MdLanes`] kernel of `batch/`.")]
        pub(crate) type $lanes = $crate::lanes::MdLanes<$name>;

        impl $lanes {
            $(
                $(#[$ctor_doc])*
                pub(crate) fn $ctor(width: $crate::lanes::Width) -> Self {
                    $crate::lanes::MdLanes::with_iv(width, &$iv, $digest_len)
                }
            )*
        }
    };
}
pub(crate) use md_algorithm;

/// Every width's vectors have rounds: the bound [`MdLanes`] needs.
pub(crate) trait MdKernel:
    MdAlgorithm
    + MdRounds<<Self::Word as StateWord>::Portable>
    + MdRounds<AvxOf<Self>>
    + MdRounds<Avx512Of<Self>>
{
}

impl<A> MdKernel for A where
    A: MdAlgorithm
        + MdRounds<<A::Word as StateWord>::Portable>
        + MdRounds<AvxOf<A>>
        + MdRounds<Avx512Of<A>>
{
}

#[cfg(target_arch = "x86_64")]
type AvxOf<A> = <<A as MdAlgorithm>::Word as StateWord>::Avx2;
#[cfg(target_arch = "x86_64")]
type Avx512Of<A> = <<A as MdAlgorithm>::Word as StateWord>::Avx512;
// Elsewhere only the portable kernel exists; these aliases make the bound above say nothing more.
#[cfg(not(target_arch = "x86_64"))]
type AvxOf<A> = <<A as MdAlgorithm>::Word as StateWord>::Portable;
#[cfg(not(target_arch = "x86_64"))]
type Avx512Of<A> = <<A as MdAlgorithm>::Word as StateWord>::Portable;

/// Chaining values of every lane, word-major: `soa[word][lane]`. Eight words by sixteen lanes
/// hold the largest state (SHA-256, SHA-512) at the widest width; smaller ones use part of it.
type Soa<W> = [[W; 16]; 8];

// No closures below that do vector work: a closure is a function of its own without the
// enclosing target features, so its intrinsics would not inline (each would become a call).
#[inline(always)]
fn md_run<A: MdAlgorithm + MdRounds<V>, V: Vector<Word = A::Word>>(
    isa: V::Isa,
    soa: &mut Soa<A::Word>,
    src: Source<'_>,
    n: usize,
) {
    let mut state = [V::load_words(isa, &soa[0]); 8];
    for (v, words) in state.iter_mut().zip(soa.iter()) {
        *v = V::load_words(isa, words);
    }
    let mut block = [state[0]; 16];
    for b in 0..n {
        V::load_block(isa, src.advance(b * A::BLOCK), A::BIG_ENDIAN, &mut block);
        A::rounds(&mut state, &block);
    }
    for (v, words) in state.iter().zip(soa.iter_mut()) {
        v.store_words(words);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
fn md_avx2<A: MdKernel>(token: Avx2, soa: &mut Soa<A::Word>, src: Source<'_>, n: usize) {
    crate::platform::align_frame();
    md_run::<A, AvxOf<A>>(token, soa, src, n);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
#[inline(never)]
fn md_avx512<A: MdKernel>(token: Avx512, soa: &mut Soa<A::Word>, src: Source<'_>, n: usize) {
    md_run::<A, Avx512Of<A>>(token, soa, src, n);
}

#[inline(never)]
fn md_portable<A: MdKernel>(soa: &mut Soa<A::Word>, src: Source<'_>, n: usize) {
    md_run::<A, <A::Word as StateWord>::Portable>((), soa, src, n);
}

/// Lanes of a Merkle-Damgard algorithm: chaining values, the dispatch between widths, padding
/// and digest bytes, written once for MD5, SHA-1, SHA-256 and SHA-512.
pub(crate) struct MdLanes<A: MdAlgorithm> {
    width: Width,
    iv: [A::Word; 8],
    digest_len: usize,
    soa: Soa<A::Word>,
}

impl<A: MdKernel> MdLanes<A> {
    /// Lanes at this width starting from `iv`, digests truncated to `digest_len` bytes.
    pub(crate) fn with_iv(width: Width, iv: &[A::Word], digest_len: usize) -> Self {
        debug_assert!(iv.len() == A::STATE_WORDS && A::STATE_WORDS <= 8);
        debug_assert!(digest_len <= A::STATE_WORDS * size_of::<A::Word>());
        let mut words = [A::Word::default(); 8];
        words[..iv.len()].copy_from_slice(iv);
        let mut lanes = MdLanes {
            width,
            iv: words,
            digest_len,
            soa: [[A::Word::default(); 16]; 8],
        };
        for lane in 0..16 {
            lanes.reset(lane);
        }
        lanes
    }

    /// The one dispatch point of every Merkle-Damgard lane kernel.
    fn dispatch(&mut self, src: Source<'_>, n: usize) {
        match self.width {
            Width::Portable => md_portable::<A>(&mut self.soa, src, n),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Width::Avx2` holds an `Avx2` token, made only after detecting AVX2.
            Width::Avx2(token) => unsafe { md_avx2::<A>(token, &mut self.soa, src, n) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Width::Avx512` holds an `Avx512` token, made only after detecting AVX-512
            // F/BW/VL/DQ and AVX2.
            Width::Avx512(token) => unsafe { md_avx512::<A>(token, &mut self.soa, src, n) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unreachable!("SIMD widths exist only on x86_64"),
        }
    }
}

impl<A: MdKernel> Lanes for MdLanes<A> {
    fn block_len(&self) -> usize {
        A::BLOCK
    }
    fn lanes(&self) -> usize {
        self.width.lanes32() * 4 / size_of::<A::Word>()
    }
    fn digest_len(&self) -> usize {
        self.digest_len
    }
    fn word_len(&self) -> usize {
        size_of::<A::Word>()
    }
    fn reset(&mut self, lane: usize) {
        for (words, iv) in self.soa.iter_mut().zip(self.iv) {
            words[lane] = iv;
        }
    }
    fn compress(&mut self, blocks: &[&[u8]]) {
        self.compress_multi(blocks, 1);
    }
    fn compress_multi(&mut self, blocks: &[&[u8]], n: usize) {
        assert_eq!(blocks.len(), self.lanes());
        assert!(blocks.iter().all(|b| b.len() >= n * A::BLOCK));
        self.dispatch(Source::Gather { blocks, offset: 0 }, n);
    }
    fn compress_interleaved(&mut self, data: &[u8]) {
        assert!(data.len() >= self.lanes() * A::BLOCK);
        self.dispatch(Source::Interleaved(data), 1);
    }
    fn pad(&self, total_len: u64, tail: &[u8], out: &mut [u8; 2 * MAX_BLOCK]) -> usize {
        md_pad(A::BLOCK, A::LEN_BYTES, A::BIG_ENDIAN, total_len, tail, out)
    }
    fn digest(&self, lane: usize, out: &mut [u8]) {
        let word = size_of::<A::Word>();
        let mut full = [0u8; 64];
        for (w, words) in self.soa.iter().take(A::STATE_WORDS).enumerate() {
            words[lane].put(A::BIG_ENDIAN, &mut full[w * word..]);
        }
        out[..self.digest_len].copy_from_slice(&full[..self.digest_len]);
    }
}

/// Hashes one message per lane, all of one length, straight through a kernel (for kernels not
/// yet reachable through `batch/`).
#[cfg(test)]
pub(crate) fn hash_equal_lengths(kernel: &mut dyn Lanes, messages: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let (lanes, block) = (kernel.lanes(), kernel.block_len());
    assert_eq!(messages.len(), lanes);
    let len = messages[0].len();
    let whole = len / block;
    // Compresses the first `count` blocks of every lane's bytes, one block of each at a time.
    let compress_blocks = |kernel: &mut dyn Lanes, bytes: &[&[u8]], count: usize| {
        for b in 0..count {
            let blocks: Vec<&[u8]> = bytes
                .iter()
                .map(|m| &m[b * block..(b + 1) * block])
                .collect();
            kernel.compress(&blocks);
        }
    };
    let message_bytes: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();
    compress_blocks(kernel, &message_bytes, whole);
    let mut pads = vec![[0u8; 2 * MAX_BLOCK]; lanes];
    let mut pad_blocks = 0;
    for (m, pad) in messages.iter().zip(pads.iter_mut()) {
        pad_blocks = kernel.pad(len as u64, &m[whole * block..], pad);
    }
    let pad_bytes: Vec<&[u8]> = pads.iter().map(|pad| pad.as_slice()).collect();
    compress_blocks(kernel, &pad_bytes, pad_blocks);
    (0..lanes)
        .map(|lane| {
            let mut out = vec![0; kernel.digest_len()];
            kernel.digest(lane, &mut out);
            out
        })
        .collect()
}
