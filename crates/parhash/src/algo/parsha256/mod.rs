//! PARSHA-256 (Pal & Sarkar, FSE 2003): SHA-256's compression function arranged as a binary tree
//! of processors, so that one long message is hashed by many processors at once.
//!
//! The digest depends on the message, the tree height `T` and the IV length `l` (0, 128 or 256
//! bits), and the function returns the effective height `t <= T` with it: `(t, z)`. It never
//! depends on the thread count or the kernel (SIMD width or SHA-NI streams).
//!
//! - [`reference`](mod@reference): literal to the specification, round by round (the oracle).
//! - [`parsha256`] / [`parsha256_with`]: the fast engine (`fast.rs`): every independent
//!   compression of a round in SIMD lanes (8 with AVX2, 16 with AVX-512, portable fallback),
//!   the processor tree split over threads by whole subtrees, the message read in place.
//! - [`parts`]: the same engine split over machines: independent parts (processor subtrees)
//!   hashed anywhere, then combined into the one-machine digest.
//! - [`Parsha256Hasher`]: the same engine fed in pieces. PARSHA-256 needs the message length
//!   before it starts (it fixes t, q, b and where every processor's piece lies), so the hasher
//!   takes the total length up front and `finalize` fails if a different number of bytes
//!   arrived. Input of unknown length (a pipe) must be measured first: the CLI spools standard
//!   input to memory, up to a stated limit, and refuses larger input rather than guess.

mod engine;
// The cache hint the tree modes share (SANDstorm's tree uses it too).
pub(crate) use engine::prefetch;
mod hasher;
pub mod parts;
pub mod reference;

pub(crate) use hasher::Backend;
pub use hasher::{Parsha256, TreeParams};

use crate::lanes::Kernel;
use crate::threads::Threads;

use std::fmt;

/// The largest tree height accepted. `t = T` only for messages of at least `delta(T)` bits
/// (about 2^T * 96 bytes), so this bound never limits a real message; it keeps every length
/// computation far from overflow.
pub const MAX_TREE_HEIGHT: u32 = 40;

/// The tallest tree [`Parsha256Hasher`] runs: t = 20, 2^20 processors (more than any CPU keeps
/// busy). The hasher holds every processor's chaining value and up to one round of message,
/// about [`ParshaError::TreeTooTall`]'s `bytes` (at most 2^t x 258 bytes: 258 MiB at t = 20);
/// t grows with the message up to T, so a large T would tie the memory to the file's size.
/// A message whose tree would be taller is refused: a smaller T hashes it.
pub const MAX_STREAMED_HEIGHT: u32 = 20;

/// Errors of the PARSHA-256 API.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParshaError {
    /// The tree height must be in `1..=MAX_TREE_HEIGHT`.
    InvalidTreeHeight(u32),
    /// The IV length must be 0, 128 or 256 bits.
    InvalidIvBits(u32),
    /// The message is longer than 2^64 - 1 bits (its length in bytes).
    MessageTooLong(u64),
    /// A [`Parsha256Hasher`] received a different number of bytes than declared.
    LengthMismatch {
        /// The total length given to [`Parsha256Hasher::new`].
        declared: u64,
        /// The bytes passed to `update` (saturating).
        received: u64,
    },
    /// [`Parsha256Hasher`] would need a tree taller than [`MAX_STREAMED_HEIGHT`] for this
    /// length and T.
    TreeTooTall {
        /// The effective height t the message would get.
        height: u32,
        /// About how many bytes of memory that tree needs.
        bytes: u64,
    },
}

impl fmt::Display for ParshaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParshaError::InvalidTreeHeight(t) => write!(
                f,
                "PARSHA-256 tree height {t} is out of range (1..={MAX_TREE_HEIGHT})"
            ),
            ParshaError::InvalidIvBits(l) => {
                write!(f, "PARSHA-256 IV length {l} bits is not 0, 128 or 256")
            }
            ParshaError::MessageTooLong(len) => {
                write!(f, "PARSHA-256 message of {len} bytes is over 2^64 - 1 bits")
            }
            ParshaError::LengthMismatch { declared, received } => write!(
                f,
                "PARSHA-256 hasher was told {declared} bytes but received {received}"
            ),
            ParshaError::TreeTooTall { height, bytes } => write!(
                f,
                "PARSHA-256 tree of height {height} needs about {} MiB of memory; trees over \
                 height {MAX_STREAMED_HEIGHT} are not hashed (a tree height T up to \
                 {MAX_STREAMED_HEIGHT} is hashed at any length)",
                bytes.div_ceil(1 << 20)
            ),
        }
    }
}

impl std::error::Error for ParshaError {}

/// Checks `(T, l)`: T in 1..=[`MAX_TREE_HEIGHT`], l in {0, 128, 256}.
///
/// # Errors
/// [`ParshaError::InvalidTreeHeight`], [`ParshaError::InvalidIvBits`].
pub fn check_params(tree_height: u32, iv_bits: u32) -> Result<(), ParshaError> {
    if !(1..=MAX_TREE_HEIGHT).contains(&tree_height) {
        return Err(ParshaError::InvalidTreeHeight(tree_height));
    }
    if !matches!(iv_bits, 0 | 128 | 256) {
        return Err(ParshaError::InvalidIvBits(iv_bits));
    }
    Ok(())
}

/// The CLI's default tree height: `t = 13` (4096 processors, 2048 leaves) is reached from
/// about 384 KiB (l = 256), so every larger message gets 4096 independent compressions per
/// round: 256 AVX-512 lane groups, enough to keep any core count here busy, while the tail of
/// `t + 2` rounds that shrink towards the root stays short. The CUDA study used the same value.
pub const DEFAULT_TREE_HEIGHT: u32 = 13;

/// The CLI's default IV length: l = 256 (every leaf-type input ends with SHA-256's whole
/// initial value, the paper's most conservative choice). l = 0 packs 96 message bytes per leaf
/// and runs about a quarter fewer compressions; choose it with `--iv-bits 0`.
pub const DEFAULT_IV_BITS: u32 = 256;

/// How the fast engine runs. The digest never depends on these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParshaOptions {
    /// Threads: 0 = all cores; otherwise at most this many. Small messages use fewer (one per
    /// 256 KiB of message at most).
    pub threads: Threads,
    /// The kernel for a round's many compressions; `None` = the fastest this CPU has
    /// ([`Kernel::best`]`(true)`: SHA-NI streams, else the widest vectors).
    pub kernel: Option<Kernel>,
}

/// PARSHA-256 of `data` with tree height `T` and an IV of `l` bits: `(t, z)`, on all cores and
/// the widest SIMD lanes.
///
/// # Errors
/// [`ParshaError::InvalidTreeHeight`], [`ParshaError::InvalidIvBits`].
pub fn parsha256(
    data: &[u8],
    tree_height: u32,
    iv_bits: u32,
) -> Result<(u32, [u8; 32]), ParshaError> {
    parsha256_with(data, tree_height, iv_bits, &ParshaOptions::default())
}

/// [`parsha256`] with explicit threads and kernel (the digest is the same for all).
///
/// # Errors
/// [`ParshaError::InvalidTreeHeight`], [`ParshaError::InvalidIvBits`].
pub fn parsha256_with(
    data: &[u8],
    tree_height: u32,
    iv_bits: u32,
    options: &ParshaOptions,
) -> Result<(u32, [u8; 32]), ParshaError> {
    let kernel = options.kernel.unwrap_or_else(|| Kernel::best(true));
    engine::hash(data, tree_height, iv_bits, kernel, options.threads)
}

/// PARSHA-256 fed in pieces, for a message whose total length is known up front (a file).
///
/// Rounds are hashed as soon as their bytes are all there, straight from the slice `update`
/// was given; only the start of a round that an `update` ends in the middle of is copied (at
/// most one round, at most 2^t x 96 bytes: 768 KiB with T = 13).
pub struct Parsha256Hasher {
    declared: u64,
    received: u64,
    state: HasherState,
}

enum HasherState {
    /// Messages of at most n - l bits: buffered whole (at most 96 bytes).
    Short(engine::Shape, Vec<u8>),
    /// The engine, the bytes not yet consumed and the message offset of `buffer[0]`.
    Long {
        engine: Box<engine::TreeRun>,
        buffer: Vec<u8>,
        base: u64,
    },
}

impl Parsha256Hasher {
    /// A hasher for a message of exactly `total_len` bytes.
    ///
    /// # Errors
    /// [`ParshaError::InvalidTreeHeight`], [`ParshaError::InvalidIvBits`],
    /// [`ParshaError::MessageTooLong`]; [`ParshaError::TreeTooTall`] when the message's tree
    /// would be taller than [`MAX_STREAMED_HEIGHT`] (its memory grows with the tree).
    pub fn new(
        total_len: u64,
        tree_height: u32,
        iv_bits: u32,
        options: &ParshaOptions,
    ) -> Result<Parsha256Hasher, ParshaError> {
        let shape = engine::Shape::new(total_len, tree_height, iv_bits)?;
        if shape.t > MAX_STREAMED_HEIGHT {
            return Err(ParshaError::TreeTooTall {
                height: shape.t,
                bytes: shape.streamed_bytes(),
            });
        }
        let state = if shape.is_short() {
            HasherState::Short(shape, Vec::new())
        } else {
            let kernel = options.kernel.unwrap_or_else(|| Kernel::best(true));
            HasherState::Long {
                engine: Box::new(engine::TreeRun::new(shape, kernel, options.threads)),
                buffer: Vec::new(),
                base: 0,
            }
        };
        Ok(Parsha256Hasher {
            declared: total_len,
            received: 0,
            state,
        })
    }

    /// Feeds the next bytes. Bytes past the declared length are counted and make
    /// [`finalize`](Self::finalize) fail; they are not hashed.
    ///
    /// Whole rounds are hashed straight from `data` (a memory-mapped file is read in place);
    /// only a round cut by the end of `data` is copied, to be completed by the next call.
    pub fn update(&mut self, data: &[u8]) {
        let room = self.declared - self.received.min(self.declared);
        let mut accepted = &data[..data.len().min(usize::try_from(room).unwrap_or(usize::MAX))];
        self.received = self.received.saturating_add(data.len() as u64);
        let declared = self.declared;
        match &mut self.state {
            HasherState::Short(_, buffer) => buffer.extend_from_slice(accepted),
            HasherState::Long {
                engine,
                buffer,
                base,
            } => {
                let rounds = engine.shape().rounds();
                if !buffer.is_empty() && engine.next_round() < rounds {
                    // Complete the round the buffer holds the start of, then go on in place.
                    let round_end = engine.shape().round_start(engine.next_round() + 1);
                    let have = *base + buffer.len() as u64;
                    let missing = round_end.min(declared).saturating_sub(have);
                    let take = accepted
                        .len()
                        .min(usize::try_from(missing).unwrap_or(usize::MAX));
                    buffer.extend_from_slice(&accepted[..take]);
                    accepted = &accepted[take..];
                    run_available(engine, buffer, base, declared);
                }
                if buffer.is_empty() {
                    let consumed = run_chunks(engine, accepted, *base, declared);
                    *base += consumed;
                    accepted = &accepted[consumed as usize..];
                }
                buffer.extend_from_slice(accepted);
            }
        }
    }

    /// `(t, z)`.
    ///
    /// # Errors
    /// [`ParshaError::LengthMismatch`] when the bytes passed to `update` do not add up to the
    /// declared length.
    pub fn finalize(self) -> Result<(u32, [u8; 32]), ParshaError> {
        if self.received != self.declared {
            return Err(ParshaError::LengthMismatch {
                declared: self.declared,
                received: self.received,
            });
        }
        match self.state {
            HasherState::Short(shape, buffer) => Ok((0, engine::short(&shape, &buffer))),
            HasherState::Long {
                mut engine,
                mut buffer,
                mut base,
            } => {
                run_available(&mut engine, &mut buffer, &mut base, self.declared);
                let view = engine::View {
                    data: &buffer,
                    base,
                    end: self.declared,
                };
                Ok((engine.shape().t, engine.finish(&view)))
            }
        }
    }
}

/// Runs every chunk of rounds whose bytes all lie in `data` (message bytes `base ..`; every
/// remaining round once `data` reaches the declared end) and returns how many leading bytes of
/// `data` no later round needs.
fn run_chunks(engine: &mut engine::TreeRun, data: &[u8], base: u64, declared: u64) -> u64 {
    let have = base + data.len() as u64;
    let limit = if have >= declared { u64::MAX } else { have };
    let view = engine::View {
        data,
        base,
        end: declared,
    };
    let mut consumed = 0;
    while let Some(end) = engine.chunk_end(limit) {
        engine.run(&view, end);
        consumed = engine.shape().round_start(end).min(have) - base;
    }
    consumed
}

/// [`run_chunks`] on the buffered bytes, then drops the bytes no later round needs.
fn run_available(
    engine: &mut engine::TreeRun,
    buffer: &mut Vec<u8>,
    base: &mut u64,
    declared: u64,
) {
    let consumed = run_chunks(engine, buffer, *base, declared);
    buffer.drain(..consumed as usize);
    *base += consumed;
}
