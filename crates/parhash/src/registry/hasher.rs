//! Hashers for an algorithm chosen at run time, their builder and the one-shot [`hash`].

use std::fmt;

use super::inline::{self, InlineHash};
use super::variant::Variant;
use super::{boxed, Algorithm, DynHash, DynXof, Error, Family, Output};
use crate::algo::blake3::one_block::Held;
use crate::algo::blake3::{blake3_mode_xof, Blake3Mode};
use crate::algo::parsha256::Backend as ParshaBackend;
use crate::algo::parsha256::{Parsha256Hasher, ParshaOptions, TreeParams};
use crate::dispatch::Dispatch;
use crate::threads::Threads;

/// A streaming hasher for an algorithm chosen at run time.
///
/// ```
/// use parhash::{Algorithm, Hasher};
/// let mut h = Hasher::new(Algorithm::Md5);
/// h.update(b"a");
/// h.update(b"bc");
/// assert_eq!(h.finalize().to_hex(), "900150983cd24fb0d6963f7d28e17f72");
/// ```
pub struct Hasher {
    // No `algorithm` field beside it: `Inner`'s 128 bytes would have grown to 144 (alignment),
    // over what a move does without a `memcpy` call (see `InlineHash`).
    inner: Inner,
}

/// What a [`Hasher`] runs.
enum Inner {
    /// MD5, SHA-1 and SHA-2 in place: no box, no dynamic call (see [`InlineHash`]).
    Inline(InlineHash),
    /// BLAKE3's plain 32-byte digest while the message fits one block: held in place and
    /// hashed by the one-block kernel, no box. A `Hasher` built per 64-byte message paid 2x
    /// the `blake3` crate's time for that crate's ~2 KB hasher (allocated, built, freed). It
    /// becomes `Xof` when more arrives, or when more of the output is asked for.
    Blake3Held { held: Held, threads: Threads },
    /// Any other algorithm through its `digest` type (but the extendable-output functions).
    Digest(Algorithm, Box<dyn DynHash>),
    /// An extendable-output function, read for `len` bytes by [`Hasher::finalize`] and for
    /// any number by [`Hasher::finalize_xof_into_reset`].
    Xof {
        algorithm: Algorithm,
        hash: Box<dyn DynXof>,
        len: usize,
    },
    /// PARSHA-256 told the message length up front: streamed, not buffered.
    Parsha(Box<ParshaStream>),
}

/// PARSHA-256 of a message of known length, hashed as it arrives (the `digest` type must buffer
/// the whole message, since it learns the length only at the end).
struct ParshaStream {
    declared: u64,
    params: TreeParams,
    options: ParshaOptions,
    hasher: Parsha256Hasher,
}

impl ParshaStream {
    fn new(declared: u64, params: TreeParams, options: ParshaOptions) -> Result<Self, Error> {
        let hasher =
            Parsha256Hasher::new(declared, params.tree_height(), params.iv_bits(), &options)
                .map_err(Error::from)?;
        Ok(ParshaStream {
            declared,
            params,
            options,
            hasher,
        })
    }

    /// A fresh stream for the same length, parameters and options.
    fn fresh(&self) -> Self {
        ParshaStream::new(self.declared, self.params, self.options)
            .expect("these parameters built a stream before")
    }

    /// The digest.
    fn finish(self) -> Result<Output, Error> {
        let (_, digest) = self.hasher.finalize()?;
        Ok(Output::from_slice(&digest))
    }
}

/// Builds a [`Hasher`] with everything a caller may choose besides the algorithm: threads,
/// implementation variant, tree parameters, the message length when it is known. Every
/// algorithm goes through it alike; options an algorithm does not use are ignored, except
/// tree parameters, which only PARSHA-256 accepts.
///
/// ```
/// use parhash::{Algorithm, Hasher, TreeParams};
/// let mut h = Hasher::builder(Algorithm::Parsha256)
///     .threads(2)
///     .tree_params(TreeParams::new(10, 0).unwrap())
///     .expected_len(3)
///     .build()
///     .unwrap();
/// h.update(b"abc");
/// assert_eq!(h.try_finalize().unwrap().as_bytes().len(), 32);
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct HasherBuilder {
    algorithm: Algorithm,
    threads: Threads,
    variant: Option<Variant>,
    tree_params: Option<TreeParams>,
    expected_len: Option<u64>,
    digest_size: Option<usize>,
    blake3_mode: Blake3Mode,
}

impl HasherBuilder {
    /// A digest of `size` bytes, for the algorithms whose length can be chosen
    /// ([`Algorithm::digest_sizes`]: BLAKE2b and BLAKE2s up to 64 and 32 bytes, BLAKE3,
    /// SHAKE128 and SHAKE256 up to [`Output::MAX`], 1 MiB). BLAKE2's length is a parameter of
    /// the hash (BLAKE2b-256 is not BLAKE2b-512 cut short); an extendable-output function's
    /// shorter digests are prefixes of its longer ones (and any length can be read with
    /// [`Hasher::finalize_xof_into_reset`]). Any other algorithm accepts only its own size.
    ///
    /// ```
    /// use parhash::{Algorithm, Hasher};
    /// let mut h = Hasher::builder(Algorithm::Blake2b).digest_size(32).build().unwrap();
    /// h.update(b"abc");
    /// assert_eq!(
    ///     h.finalize().to_hex(),
    ///     "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319"
    /// );
    /// ```
    pub fn digest_size(mut self, size: usize) -> Self {
        self.digest_size = Some(size);
        self
    }

    /// Up to `threads` threads for one long message (default: all cores; `0` = all cores).
    /// Only the tree modes (SANDstorm, PARSHA-256, BLAKE3) use more than one; the digest never depends
    /// on it.
    pub fn threads(mut self, threads: impl Into<Threads>) -> Self {
        self.threads = threads.into();
        self
    }

    /// One implementation variant ([`Algorithm::variant`]) instead of the fastest. A variant of
    /// another algorithm makes [`HasherBuilder::build`] fail.
    pub fn variant(mut self, variant: Variant) -> Self {
        self.variant = Some(variant);
        self
    }

    /// PARSHA-256's tree height and IV length (default T = 13, l = 256).
    pub fn tree_params(mut self, params: TreeParams) -> Self {
        self.tree_params = Some(params);
        self
    }

    /// The total length of the message, when known (a file's size). PARSHA-256 then hashes as
    /// the data arrives instead of keeping it all in memory, and [`Hasher::try_finalize`]
    /// fails if another number of bytes arrived (a file that changed while being read). Other
    /// algorithms do not need it and ignore it.
    pub fn expected_len(mut self, len: u64) -> Self {
        self.expected_len = Some(len);
        self
    }

    /// The algorithm the hasher will compute.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The threads the hasher may use (set by [`HasherBuilder::threads`]).
    pub fn threads_allowed(&self) -> Threads {
        self.threads
    }

    /// BLAKE3's keyed hash or key derivation ([`Blake3Mode`]; `b3sum --keyed` and
    /// `--derive-key`) instead of the plain hash. Any other algorithm refuses a mode other than
    /// [`Blake3Mode::Hash`] ([`Error::NoKeyedMode`]).
    ///
    /// ```
    /// use parhash::{Algorithm, Blake3Mode, Hasher};
    /// let mut h = Hasher::builder(Algorithm::Blake3)
    ///     .blake3_mode(Blake3Mode::derive_key("example.com 2026 file keys"))
    ///     .build()
    ///     .unwrap();
    /// h.update(b"input key material");
    /// assert_eq!(h.finalize().as_bytes().len(), 32);
    /// ```
    pub fn blake3_mode(mut self, mode: Blake3Mode) -> Self {
        self.blake3_mode = mode;
        self
    }

    /// Whether the hasher is keyed (BLAKE3's keyed hash or key derivation): the file reader's
    /// own piece hashing and the batch lanes compute the plain hash only.
    pub(crate) fn keyed(&self) -> bool {
        self.blake3_mode != Blake3Mode::Hash
    }

    /// The forced variant, PARSHA-256's tree parameters and the digest size asked for (the
    /// file reader's threads, which hash pieces themselves, need to know what to compute).
    pub(crate) fn settings(&self) -> (Option<Variant>, Option<TreeParams>, Option<usize>) {
        (self.variant, self.tree_params, self.digest_size)
    }

    /// Whether the batch engine's lanes compute what this builder's hasher would, so that a
    /// caller may hash small messages there instead: a plain request ([`Self::is_plain`]).
    pub(crate) fn lanes_agree(&self) -> bool {
        self.is_plain()
    }

    /// Nothing asked beyond the algorithm and the threads: no variant, tree parameters, key or
    /// mode, and the default digest size.
    fn is_plain(&self) -> bool {
        self.variant.is_none()
            && self.tree_params.is_none()
            && !self.keyed()
            && self
                .digest_size
                .is_none_or(|size| size == self.algorithm.digest_size())
    }

    /// The hasher.
    ///
    /// # Errors
    /// [`Error::UnavailableVariant`] for a variant this algorithm or CPU does not have;
    /// [`Error::NoTreeParams`] for tree parameters on an algorithm other than PARSHA-256;
    /// [`Error::MessageTooLong`] for a PARSHA-256 length over 2^64 - 1 bits;
    /// [`Error::UnsupportedDigestSize`] for a digest size the algorithm cannot produce.
    pub fn build(self) -> Result<Hasher, Error> {
        let algorithm = self.algorithm;
        let is_parsha = algorithm.takes_tree_params();
        if self.is_plain() && !is_parsha {
            // The common request (Python's `sha256(data)` comes here): what `with_threads`
            // builds, without the checks below (a twentieth of a 64-byte message's time).
            // PARSHA-256 goes the long way: its builder picks the form by the tree parameters.
            return Ok(Hasher::with_threads(algorithm, self.threads));
        }
        if self.tree_params.is_some() && !is_parsha {
            return Err(Error::NoTreeParams(algorithm));
        }
        if self.keyed() && algorithm != Algorithm::Blake3 {
            return Err(Error::NoKeyedMode(algorithm));
        }
        if let Some(size) = self.digest_size {
            if !algorithm.digest_sizes().contains(size) {
                return Err(Error::UnsupportedDigestSize { algorithm, size });
            }
        }
        if algorithm.is_extendable() {
            return self.build_xof();
        }
        if let Some(size) = self.digest_size.filter(|&s| s != algorithm.digest_size()) {
            return self.build_sized(size);
        }
        self.check_variant()?;
        let params = self.tree_params.unwrap_or_default();
        // PARSHA-256's form from its backend table: `None` = the literal reference, else the
        // streaming engine's kernel (`None` = its own choice).
        let parsha_kernel = match self.variant {
            Some(variant) if is_parsha => ParshaBackend::at(variant.index()).kernel(),
            _ => Some(None),
        };
        let inner = match (self.variant, self.expected_len) {
            // The streaming engine has every variant but the literal reference.
            (_, Some(len)) if is_parsha && parsha_kernel.is_some() => {
                let kernel = parsha_kernel.flatten();
                let options = ParshaOptions {
                    threads: self.threads,
                    kernel,
                };
                Inner::Parsha(Box::new(ParshaStream::new(len, params, options)?))
            }
            (None, _) if is_parsha => Inner::Digest(
                algorithm,
                boxed(crate::algo::parsha256::Parsha256::with_params(
                    params,
                    self.threads,
                )),
            ),
            (None, _) => Inner::fixed(algorithm, self.threads),
            (Some(variant), _) => match InlineHash::new(algorithm, Some(variant)) {
                Some(state) => Inner::Inline(state),
                None => Inner::Digest(
                    algorithm,
                    algorithm.new_dyn_variant(variant.index(), self.threads, params),
                ),
            },
        };
        Ok(Hasher { inner }.settled())
    }
}

impl HasherBuilder {
    /// The digest length in bytes the hasher will produce.
    pub(crate) fn output_len(&self) -> usize {
        self.digest_size
            .unwrap_or_else(|| self.algorithm.digest_size())
    }

    /// A variant is checked when it is made ([`Algorithm::variant`]); one of another
    /// algorithm is refused as a name this algorithm does not have.
    fn check_variant(&self) -> Result<(), Error> {
        let algorithm = self.algorithm;
        match self.variant {
            Some(variant) if variant.algorithm() != algorithm => Err(Error::UnavailableVariant {
                algorithm,
                variant: variant.name().to_string(),
                available: algorithm.available_variants().map(Variant::name).collect(),
            }),
            _ => Ok(()),
        }
    }

    /// A hasher for a digest size other than the algorithm's default (already checked).
    fn build_sized(self, size: usize) -> Result<Hasher, Error> {
        self.check_variant()?;
        let inner = self
            .algorithm
            .new_dyn_sized(size)
            .expect("every algorithm with several sizes has a sized constructor");
        Ok(Hasher {
            inner: Inner::Digest(self.algorithm, inner),
        })
    }

    /// An extendable-output function's hasher, at any length (already checked).
    fn build_xof(self) -> Result<Hasher, Error> {
        self.check_variant()?;
        if self.keyed() {
            let hash: Box<dyn DynXof> = Box::new(blake3_mode_xof(self.blake3_mode, self.threads));
            return Ok(Hasher {
                inner: Inner::Xof {
                    algorithm: self.algorithm,
                    hash,
                    len: self.output_len(),
                },
            });
        }
        Ok(Hasher::xof(self.algorithm, self.threads, self.output_len())
            .expect("called for extendable-output functions"))
    }
}

impl Inner {
    /// The default variant of a fixed-length algorithm on `threads` threads (only the tree
    /// modes use more than one): in place where it can be. Inlined into `Hasher::new`, so that
    /// with [`Hasher::settled`] the compiler writes the new hasher straight where the caller
    /// wants it, each 16-byte piece from a register (out of line, the state went through a
    /// local, and a `Hasher` per 64-byte SHA-1 message took 70 ns instead of 53).
    #[inline(always)]
    fn fixed(algorithm: Algorithm, threads: Threads) -> Inner {
        InlineHash::new(algorithm, None).map_or_else(
            || Inner::Digest(algorithm, algorithm.new_dyn_threads(threads)),
            Inner::Inline,
        )
    }
}

impl Hasher {
    /// A hasher using the fastest implementation available on this CPU, on all cores where
    /// the algorithm splits one message over threads.
    pub fn new(algorithm: Algorithm) -> Self {
        Hasher::with_threads(algorithm, Threads::ALL)
    }

    /// A plain BLAKE3 hasher, holding its message in place while it fits one block.
    #[inline(always)]
    fn blake3_held(threads: Threads) -> Hasher {
        Hasher {
            inner: Inner::Blake3Held {
                held: Held::empty(),
                threads,
            },
        }
    }

    /// An extendable-output function's hasher read for `len` bytes (`None` for the other
    /// algorithms).
    fn xof(algorithm: Algorithm, threads: Threads, len: usize) -> Option<Hasher> {
        if algorithm == Algorithm::Blake3 && len == Algorithm::Blake3.digest_size() {
            return Some(Hasher::blake3_held(threads));
        }
        let hash = algorithm.new_dyn_xof(threads)?;
        Some(Hasher {
            inner: Inner::Xof {
                algorithm,
                hash,
                len,
            },
        })
    }

    /// A builder for a hasher with threads, a variant, tree parameters or a known length.
    pub fn builder(algorithm: Algorithm) -> HasherBuilder {
        HasherBuilder {
            algorithm,
            threads: Threads::ALL,
            variant: None,
            tree_params: None,
            expected_len: None,
            digest_size: None,
            blake3_mode: Blake3Mode::Hash,
        }
    }

    /// A hasher that may use up to `threads` threads for one long message (0 = all cores).
    ///
    /// Only algorithms with a parallel tree mode (SANDstorm, PARSHA-256, BLAKE3) use more than one thread; every
    /// other algorithm gets the same hasher as [`Hasher::new`]. The digest never depends on
    /// `threads`. Feed such a hasher large pieces (a few MiB per `update`) so each thread gets
    /// whole superblocks.
    pub fn with_threads(algorithm: Algorithm, threads: impl Into<Threads>) -> Self {
        let threads = threads.into();
        Hasher::xof(algorithm, threads, algorithm.digest_size()).unwrap_or_else(|| {
            Hasher {
                inner: Inner::fixed(algorithm, threads),
            }
            .settled()
        })
    }

    /// This hasher with an in-place state's counts and initial state written again, last, in
    /// whole 16-byte pieces (`LazyMd::reset`). The compiler builds all of `Inner`'s variants
    /// in one shared run of stores, cut to suit the largest variant rather than this state's
    /// pieces (16-byte stores one byte off them were seen), and the loads of the state, and
    /// the copy `finalize(self)` makes, would wait for those; these stores, last, are the
    /// ones the loads find (and the compiler then drops the others).
    #[inline(always)]
    fn settled(mut self) -> Hasher {
        if let Inner::Inline(state) = &mut self.inner {
            state.settle();
        }
        self
    }

    /// Where an in-place state's counts, block and state's words are (for the layout test).
    #[cfg(test)]
    pub(super) fn inline_addresses(&self) -> Option<[usize; 3]> {
        match &self.inner {
            Inner::Inline(state) => Some(state.addresses()),
            _ => None,
        }
    }

    /// Whether [`Hasher::with_threads`] can spread one message over several threads.
    pub fn splits_over_threads(algorithm: Algorithm) -> bool {
        matches!(
            algorithm.info().family,
            Family::Sandstorm | Family::Parsha | Family::Blake3
        )
    }

    /// A hasher forced onto one implementation variant ([`Algorithm::variant`]).
    pub fn with_variant(variant: Variant) -> Self {
        Hasher::builder(variant.algorithm())
            .variant(variant)
            .build()
            .expect("a Variant is available by construction")
    }

    /// A copy of this hasher's state, to be fed and finalized independently (the Python
    /// binding's `copy()` and non-consuming `digest()`). `None` for PARSHA-256 built for a
    /// message length ([`HasherBuilder::expected_len`]): its streaming engine runs part of the
    /// tree as data arrives and cannot be duplicated.
    pub fn try_clone(&self) -> Option<Hasher> {
        match &self.inner {
            Inner::Inline(state) => Some(Hasher {
                inner: Inner::Inline(state.clone()),
            }),
            Inner::Digest(algorithm, inner) => Some(Hasher {
                inner: Inner::Digest(*algorithm, inner.clone_hash()),
            }),
            Inner::Xof {
                algorithm,
                hash,
                len,
            } => Some(Hasher {
                inner: Inner::Xof {
                    algorithm: *algorithm,
                    hash: hash.clone_xof(),
                    len: *len,
                },
            }),
            Inner::Blake3Held { held, threads } => Some(Hasher {
                inner: Inner::Blake3Held {
                    held: *held,
                    threads: *threads,
                },
            }),
            Inner::Parsha(_) => None,
        }
    }

    /// The digest of everything fed so far, the hasher left as it is to be fed further
    /// (hashlib's `digest()`): what `try_clone()` then `finalize()` give, and `None` where
    /// [`Hasher::try_clone`] gives `None`. Faster than that pair for MD5, SHA-1 and SHA-2,
    /// whose in-place states are finished from a copy of their words alone.
    pub fn digest_so_far(&self) -> Option<Output> {
        match &self.inner {
            Inner::Inline(state) => Some(state.output_so_far()),
            _ => self.try_clone().map(Hasher::finalize),
        }
    }

    /// The algorithm this hasher computes.
    pub fn algorithm(&self) -> Algorithm {
        match &self.inner {
            Inner::Inline(state) => state.algorithm(),
            Inner::Blake3Held { .. } => Algorithm::Blake3,
            Inner::Digest(algorithm, _) | Inner::Xof { algorithm, .. } => *algorithm,
            Inner::Parsha(_) => Algorithm::Parsha256,
        }
    }

    /// Feeds more data; may be called any number of times.
    #[inline]
    pub fn update(&mut self, data: &[u8]) {
        match &mut self.inner {
            Inner::Inline(state) => state.update(data),
            Inner::Digest(_, inner) => inner.update(data),
            Inner::Xof { hash, .. } => hash.update(data),
            Inner::Parsha(stream) => stream.hasher.update(data),
            Inner::Blake3Held { held, threads } => {
                if !held.append(data) {
                    self.inner = held_blake3(held, *threads);
                    self.update(data);
                }
            }
        }
    }

    /// Returns the digest of everything fed so far and consumes the hasher.
    ///
    /// # Panics
    /// If the hasher was built for a message length ([`HasherBuilder::expected_len`]) and
    /// received another number of bytes: use [`Hasher::try_finalize`] there.
    #[inline]
    pub fn finalize(mut self) -> Output {
        // The short-message states here, the others out of line.
        match &mut self.inner {
            Inner::Inline(state) => state.finalize_reset(),
            Inner::Blake3Held { held, .. } => inline::blake3_piece(held.bytes()),
            _ => self.finalize_boxed(),
        }
    }

    /// [`Hasher::finalize`] of the states behind a box.
    #[inline(never)]
    fn finalize_boxed(self) -> Output {
        self.try_finalize()
            .unwrap_or_else(|e| panic!("Hasher::finalize: {e}"))
    }

    /// Returns the digest of everything fed so far and consumes the hasher.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if the hasher was built for a message length and received
    /// another number of bytes.
    #[inline]
    pub fn try_finalize(self) -> Result<Output, Error> {
        match self.inner {
            // No fresh stream to build for a hasher that is done.
            Inner::Parsha(stream) => stream.finish(),
            Inner::Inline(mut state) => Ok(state.finalize_reset()),
            Inner::Blake3Held { held, .. } => Ok(inline::blake3_piece(held.bytes())),
            Inner::Digest(_, mut inner) => Ok(Output::filled(inner.output_size(), |out| {
                inner.finalize_into_reset(out)
            })),
            Inner::Xof { mut hash, len, .. } => Ok(Output::filled(len, |out| {
                hash.fill_reset(out);
                Ok(())
            })),
        }
    }

    /// Returns the digest of everything fed so far and starts over.
    ///
    /// # Panics
    /// As [`Hasher::finalize`].
    #[inline]
    pub fn finalize_reset(&mut self) -> Output {
        // The short-message paths return their digest directly, not through a `Result` (with
        // PARSHA-256's stream beside them in one frame, a 64-byte BLAKE3 paid a `memcpy`).
        match &mut self.inner {
            Inner::Inline(state) => return state.finalize_reset(),
            Inner::Blake3Held { held, .. } => return held_output_reset(held),
            Inner::Xof { hash, len, .. } => return xof_output_reset(&mut **hash, *len),
            Inner::Digest(..) | Inner::Parsha(_) => {}
        }
        self.try_finalize_reset()
            .unwrap_or_else(|e| panic!("Hasher::finalize: {e}"))
    }

    /// Returns the digest of everything fed so far and starts over.
    ///
    /// # Errors
    /// As [`Hasher::try_finalize`].
    #[inline]
    pub fn try_finalize_reset(&mut self) -> Result<Output, Error> {
        match &mut self.inner {
            Inner::Inline(state) => Ok(state.finalize_reset()),
            Inner::Blake3Held { held, .. } => Ok(held_output_reset(held)),
            Inner::Digest(_, inner) => Ok(Output::filled(inner.output_size(), |out| {
                inner.finalize_into_reset(out)
            })),
            Inner::Xof { hash, len, .. } => Ok(xof_output_reset(&mut **hash, *len)),
            Inner::Parsha(stream) => {
                let fresh = stream.fresh();
                std::mem::replace(&mut **stream, fresh).finish()
            }
        }
    }

    /// Writes the first `out.len()` bytes of an extendable-output function's output for
    /// everything fed so far, and starts over: any length, not bounded by [`Output::MAX`],
    /// into memory the caller owns (hashlib's `shake_128().digest(length)`). The length the
    /// hasher was built for ([`HasherBuilder::digest_size`]) does not matter here: every
    /// length is a prefix of the same output.
    ///
    /// ```
    /// use parhash::{Algorithm, Hasher};
    /// let mut h = Hasher::new(Algorithm::Shake128);
    /// h.update(b"abc");
    /// let mut long = vec![0; 2_000_000];
    /// h.finalize_xof_into_reset(&mut long).unwrap();
    /// h.update(b"abc");
    /// assert_eq!(h.finalize().as_bytes(), &long[..32]);
    /// ```
    ///
    /// # Errors
    /// [`Error::NotExtendable`] for an algorithm that is not an extendable-output function
    /// ([`Algorithm::is_extendable`]); nothing is written and the hasher keeps its state.
    pub fn finalize_xof_into_reset(&mut self, out: &mut [u8]) -> Result<(), Error> {
        match &mut self.inner {
            Inner::Xof { hash, .. } => {
                hash.fill_reset(out);
                Ok(())
            }
            // Output beyond the digest: the crate's reader, through the general state.
            Inner::Blake3Held { held, threads } => {
                self.inner = held_blake3(held, *threads);
                self.finalize_xof_into_reset(out)
            }
            Inner::Inline(_) | Inner::Digest(..) | Inner::Parsha(_) => {
                Err(Error::NotExtendable(self.algorithm()))
            }
        }
    }

    /// Forgets everything fed so far.
    pub fn reset(&mut self) {
        match &mut self.inner {
            Inner::Inline(state) => state.reset(),
            Inner::Blake3Held { held, .. } => held.clear(),
            Inner::Digest(_, inner) => inner.reset(),
            Inner::Xof { hash, .. } => hash.reset(),
            Inner::Parsha(stream) => **stream = stream.fresh(),
        }
    }
}

/// The digest of a BLAKE3 message held in place; the hasher starts over.
#[inline]
fn held_output_reset(held: &mut Held) -> Output {
    let digest = inline::blake3_piece(held.bytes());
    held.clear();
    digest
}

/// The general BLAKE3 state (the crate's hasher, parhash's pieces) of a message held so far
/// ([`Inner::Blake3Held`]), for more input or more output than the held state takes.
fn held_blake3(held: &Held, threads: Threads) -> Inner {
    let mut hash = Algorithm::Blake3
        .new_dyn_xof(threads)
        .expect("BLAKE3 is an extendable-output function");
    hash.update(held.bytes());
    Inner::Xof {
        algorithm: Algorithm::Blake3,
        hash,
        len: Algorithm::Blake3.digest_size(),
    }
}

/// `len` bytes of an extendable-output function's output, written straight into the
/// `Output`; the function starts over.
#[inline]
fn xof_output_reset(hash: &mut dyn DynXof, len: usize) -> Output {
    Output::filled(len, |out| {
        hash.fill_reset(out);
        Ok(())
    })
}

impl fmt::Debug for Hasher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hasher({})", self.algorithm())
    }
}

impl std::io::Write for Hasher {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Hashes `data` in one call with the fastest implementation available.
#[inline]
pub fn hash(algorithm: Algorithm, data: &[u8]) -> Output {
    inline::hash(algorithm, data)
}
