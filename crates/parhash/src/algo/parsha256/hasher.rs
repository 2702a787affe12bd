//! PARSHA-256 as a `digest` type (`parsha256` in the registry): the fast tree engine with the
//! default parameters T = 13, l = 256 unless built with others.
//!
//! PARSHA-256 must know the message length before it hashes anything, and the `digest` traits
//! do not say it up front, so [`Parsha256`] **keeps the whole message in memory until
//! `finalize`** and then hashes it on all cores. For large inputs tell the length first:
//! [`crate::Hasher::builder`] with `expected_len` (what the CLI does for files) streams through a
//! [`crate::algo::parsha256::Parsha256Hasher`]; a slice already in memory (a memory-mapped
//! file) goes to [`crate::algo::parsha256::parsha256_with`]. Only the digest is output; the
//! effective height t is fixed by the length.

use digest::{
    typenum::U32, FixedOutput, FixedOutputReset, HashMarker, Output, OutputSizeUser, Reset, Update,
};

#[cfg(doc)]
use super::MAX_TREE_HEIGHT;
use super::{
    check_params, parsha256_with, reference, ParshaError, ParshaOptions, DEFAULT_IV_BITS,
    DEFAULT_TREE_HEIGHT,
};
use crate::dispatch::backends;
use crate::lanes::{Kernel, Width};
use crate::threads::Threads;

/// Which form finalizes the buffered message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// The literal round-by-round reference (slow; for cross-checks).
    Reference,
    /// The fast engine with these options.
    Fast(ParshaOptions),
}

/// PARSHA-256's parameters: the tree height T and the IV length l in bits. The digest depends
/// on them, so they travel with it (the BSD tag `PARSHA256-T13-IV256`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TreeParams {
    tree_height: u32,
    iv_bits: u32,
}

impl Default for TreeParams {
    fn default() -> Self {
        TreeParams::DEFAULT
    }
}

impl TreeParams {
    /// T = 13, l = 256 ([`DEFAULT_TREE_HEIGHT`], [`DEFAULT_IV_BITS`]).
    pub const DEFAULT: TreeParams = TreeParams {
        tree_height: DEFAULT_TREE_HEIGHT,
        iv_bits: DEFAULT_IV_BITS,
    };

    /// Checked parameters.
    ///
    /// # Errors
    /// [`ParshaError::InvalidTreeHeight`] unless T is in `1..=`[`MAX_TREE_HEIGHT`],
    /// [`ParshaError::InvalidIvBits`] unless l is 0, 128 or 256.
    pub fn new(tree_height: u32, iv_bits: u32) -> Result<TreeParams, ParshaError> {
        check_params(tree_height, iv_bits)?;
        Ok(TreeParams {
            tree_height,
            iv_bits,
        })
    }

    /// The tree height T.
    pub fn tree_height(self) -> u32 {
        self.tree_height
    }

    /// The IV length l in bits.
    pub fn iv_bits(self) -> u32 {
        self.iv_bits
    }

    /// The BSD-style tag that records them: `PARSHA256-T13-IV256`.
    pub fn tag(self) -> String {
        format!("PARSHA256-T{}-IV{}", self.tree_height, self.iv_bits)
    }

    /// Reads a tag written by [`TreeParams::tag`]; `None` for any other word or invalid
    /// parameters.
    pub fn from_tag(tag: &str) -> Option<TreeParams> {
        let rest = tag.strip_prefix("PARSHA256-T")?;
        let (t, l) = rest.split_once("-IV")?;
        let number = |s: &str| {
            (!s.is_empty() && s.len() <= 3 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u32>().ok())
                .flatten()
        };
        TreeParams::new(number(t)?, number(l)?).ok()
    }
}

/// PARSHA-256 buffering the message until `finalize` (see the module docs); T = 13, l = 256
/// unless built [`Parsha256::with_params`].
#[derive(Clone, Debug)]
pub struct Parsha256 {
    message: Vec<u8>,
    params: TreeParams,
    form: Form,
}

impl Default for Parsha256 {
    fn default() -> Self {
        Parsha256::with_threads(0)
    }
}

impl Parsha256 {
    /// The fast engine on up to `threads` threads (`0` or [`Threads::ALL`]: all cores).
    pub fn with_threads(threads: impl Into<Threads>) -> Self {
        Parsha256::with_params(TreeParams::DEFAULT, threads)
    }

    /// The fast engine with these parameters, on up to `threads` threads.
    pub fn with_params(params: TreeParams, threads: impl Into<Threads>) -> Self {
        Parsha256 {
            message: Vec::new(),
            params,
            form: Form::Fast(ParshaOptions {
                threads: threads.into(),
                kernel: None,
            }),
        }
    }

    /// This hasher with parameters `params` (the engine, threads and kernel unchanged).
    pub fn params(self, params: TreeParams) -> Self {
        Parsha256 { params, ..self }
    }

    fn digest(&self) -> [u8; 32] {
        let TreeParams {
            tree_height,
            iv_bits,
        } = self.params;
        let result = match self.form {
            Form::Reference => reference::parsha256(&self.message, tree_height, iv_bits),
            Form::Fast(options) => parsha256_with(&self.message, tree_height, iv_bits, &options),
        };
        // `TreeParams` are checked and a Vec is far below 2^64 bits.
        result.expect("checked PARSHA-256 parameters").1
    }
}

impl HashMarker for Parsha256 {}

impl OutputSizeUser for Parsha256 {
    type OutputSize = U32;
}

impl Update for Parsha256 {
    fn update(&mut self, data: &[u8]) {
        self.message.extend_from_slice(data);
    }
}

impl FixedOutput for Parsha256 {
    fn finalize_into(self, out: &mut Output<Self>) {
        out.copy_from_slice(&self.digest());
    }
}

impl FixedOutputReset for Parsha256 {
    fn finalize_into_reset(&mut self, out: &mut Output<Self>) {
        out.copy_from_slice(&self.digest());
        Reset::reset(self);
    }
}

impl Reset for Parsha256 {
    fn reset(&mut self) {
        self.message.clear();
    }
}

backends! {
    /// PARSHA-256's forms: the literal reference or the tree engine on a lane kernel. The
    /// thread count is not a form: it is the [`Threads`] the hasher is built with.
    pub(crate) enum Backend {
        Reference => "reference": "literal round-by-round specification (slow oracle)";
        // Not a group: the engine picks the widest kernel itself (`kernel: None`).
        Parallel => "parallel": "tree engine, widest SIMD lanes, all cores";
        ParallelPortable => "parallel-portable":
            "tree engine, portable 8-lane compressions, all cores";
        ParallelAvx2(Avx2) => "parallel-avx2": "tree engine, AVX2 8-lane compressions, all cores";
        ParallelAvx512(Avx512) => "parallel-avx512":
            "tree engine, AVX-512 16-lane compressions, all cores";
        ParallelShaNi(ShaNi) => "parallel-sha-ni":
            "tree engine, 8 SHA-NI compressions interleaved, all cores";
    }
}

impl Backend {
    /// The tree engine's lane kernel: `None` for the reference, `Some(None)` for the engine's
    /// own choice. The tokens the variant holds become the kernel's.
    pub(crate) fn kernel(self) -> Option<Option<Kernel>> {
        match self {
            Backend::Reference => None,
            Backend::Parallel => Some(None),
            Backend::ParallelPortable => Some(Some(Kernel::Vector(Width::Portable))),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAvx2(token) => Some(Some(Kernel::Vector(Width::Avx2(token)))),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelAvx512(token) => Some(Some(Kernel::Vector(Width::Avx512(token)))),
            #[cfg(target_arch = "x86_64")]
            Backend::ParallelShaNi(token) => Some(Some(Kernel::ShaNi(token))),
        }
    }
}

crate::dispatch::table_variants!(
    |backend: Backend| backend,
    |backend: Backend, threads| Parsha256 {
        message: Vec::new(),
        params: TreeParams::DEFAULT,
        form: match backend.kernel() {
            None => Form::Reference,
            Some(kernel) => Form::Fast(ParshaOptions { threads, kernel }),
        },
    };
    Parsha256
);
