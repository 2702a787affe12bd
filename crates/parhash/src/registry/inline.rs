//! The algorithms a [`Hasher`](super::Hasher) keeps in place, without a box.
//!
//! At 64 bytes a SHA-256 is two compressions, ~120 ns; a boxed hasher added ~190 instructions
//! to each message (callgrind): three dynamic calls (`update`, `output_size`,
//! `finalize_into_reset`), the `DynDigest` layer's checks and an allocation per hasher. For the
//! short-message algorithms people hash most (the coreutils set: MD5, SHA-1, SHA-2), the
//! hasher's state lives in the [`Hasher`](super::Hasher) itself and each call is a `match` and
//! a direct, inlinable call. Every other algorithm stays behind the box, where its state may be
//! large (a tree mode's threads, Skein-1024's blocks) and its per-message cost is not the issue.

use digest::block_api::{BlockSizeUser, CoreProxy};
use digest::block_buffer::BlockSizes;
use digest::OutputSizeUser;

use super::{Algorithm, Output, Variant};
use crate::algo::block_api::{LazyMd, MdParts};
use crate::algo::md5::Md5Core;
use crate::algo::sha1::Sha1Core;
use crate::algo::sha2::{
    Sha224Params, Sha256Core, Sha256Params256, Sha384Params, Sha512Core, Sha512Params512,
    Sha512_224Params, Sha512_256Params,
};
use crate::algo::{VariantOf, Variants};
use crate::{Md5, Sha1, Sha224, Sha256, Sha384, Sha512, Sha512_224, Sha512_256};

/// One state of an algorithm kept in place: its core behind a lazy buffer ([`LazyMd`]: a
/// message of one block is compressed with its padding in one call).
///
/// The SHA-512 family's states (240 bytes: a 128-byte block, a 128-bit count) are boxed, so
/// that a [`Hasher`](super::Hasher) stays within 128 bytes: a move of up to 128 bytes is eight
/// 16-byte moves, one of more a `memcpy` call, whose wide stores a kernel's loads of the block
/// just moved cannot take their bytes from. `Hasher::new(..).update(m).finalize()` moves the
/// hasher once; at 64 bytes the 272-byte move cost SHA-256 and BLAKE3 ~13-15 ns more. The SHA-512
/// family pays an allocation per hasher instead (not per message of a reused one).
#[derive(Clone)]
pub(super) enum InlineHash {
    Md5(LazyMd<Md5Core>),
    Sha1(LazyMd<Sha1Core>),
    Sha224(LazyMd<Sha256Core<Sha224Params>>),
    Sha256(LazyMd<Sha256Core<Sha256Params256>>),
    Sha384(Box<LazyMd<Sha512Core<Sha384Params>>>),
    Sha512(Box<LazyMd<Sha512Core<Sha512Params512>>>),
    Sha512_224(Box<LazyMd<Sha512Core<Sha512_224Params>>>),
    Sha512_256(Box<LazyMd<Sha512Core<Sha512_256Params>>>),
}

/// Runs `$body` with `$h` bound to the state, whatever its type.
macro_rules! each {
    ($state:expr, $h:ident => $body:expr) => {
        match $state {
            InlineHash::Md5($h) => $body,
            InlineHash::Sha1($h) => $body,
            InlineHash::Sha224($h) => $body,
            InlineHash::Sha256($h) => $body,
            InlineHash::Sha384($h) => $body,
            InlineHash::Sha512($h) => $body,
            InlineHash::Sha512_224($h) => $body,
            InlineHash::Sha512_256($h) => $body,
        }
    };
}

/// The core of `T` on the variant at `index` of its table (its default one for `None`), behind
/// a lazy buffer.
#[inline(always)]
fn state<T>(index: Option<usize>) -> LazyMd<T::Core>
where
    T: Default + Variants + CoreProxy,
    T::Core: MdParts + Default,
    <T::Core as BlockSizeUser>::BlockSize: BlockSizes,
{
    // The default core by itself: not through `T::default()`, which builds (and zeroes) the
    // `digest` wrapper's own buffer too, on every hasher built.
    let core = match index {
        None => T::Core::default(),
        Some(index) => T::with_variant(VariantOf::checked(index)).decompose().0,
    };
    LazyMd::new(core)
}

/// The digest of a state, which starts over, written straight into the `Output`.
#[inline(always)]
fn output_reset<C: MdParts>(state: &mut LazyMd<C>) -> Output
where
    C::BlockSize: BlockSizes,
{
    Output::filled(C::output_size(), |out| {
        state.finalize_into_reset(out);
        Ok(())
    })
}

/// The digest of a state so far, the state left as it is.
#[inline(always)]
fn output_so_far<C: MdParts>(state: &LazyMd<C>) -> Output
where
    C::BlockSize: BlockSizes,
{
    Output::filled(C::output_size(), |out| {
        state.digest_into(out);
        Ok(())
    })
}

impl InlineHash {
    /// The in-place state of `algorithm` on `variant` (one of `algorithm`'s; its default one
    /// for `None`); `None` for an algorithm kept behind a box.
    #[inline(always)]
    pub(super) fn new(algorithm: Algorithm, variant: Option<Variant>) -> Option<Self> {
        debug_assert!(variant.is_none_or(|v| v.algorithm() == algorithm));
        let index = variant.map(Variant::index);
        Some(match algorithm {
            Algorithm::Md5 => InlineHash::Md5(state::<Md5>(index)),
            Algorithm::Sha1 => InlineHash::Sha1(state::<Sha1>(index)),
            Algorithm::Sha224 => InlineHash::Sha224(state::<Sha224>(index)),
            Algorithm::Sha256 => InlineHash::Sha256(state::<Sha256>(index)),
            Algorithm::Sha384 => InlineHash::Sha384(Box::new(state::<Sha384>(index))),
            Algorithm::Sha512 => InlineHash::Sha512(Box::new(state::<Sha512>(index))),
            Algorithm::Sha512_224 => InlineHash::Sha512_224(Box::new(state::<Sha512_224>(index))),
            Algorithm::Sha512_256 => InlineHash::Sha512_256(Box::new(state::<Sha512_256>(index))),
            _ => return None,
        })
    }

    /// The algorithm this state computes.
    pub(super) fn algorithm(&self) -> Algorithm {
        match self {
            InlineHash::Md5(_) => Algorithm::Md5,
            InlineHash::Sha1(_) => Algorithm::Sha1,
            InlineHash::Sha224(_) => Algorithm::Sha224,
            InlineHash::Sha256(_) => Algorithm::Sha256,
            InlineHash::Sha384(_) => Algorithm::Sha384,
            InlineHash::Sha512(_) => Algorithm::Sha512,
            InlineHash::Sha512_224(_) => Algorithm::Sha512_224,
            InlineHash::Sha512_256(_) => Algorithm::Sha512_256,
        }
    }

    #[inline]
    pub(super) fn update(&mut self, data: &[u8]) {
        each!(self, h => h.update(data))
    }

    /// The digest of everything fed so far; the state starts over.
    #[inline]
    pub(super) fn finalize_reset(&mut self) -> Output {
        each!(self, h => output_reset(h))
    }

    /// The digest of everything fed so far; the state goes on as it is.
    #[inline]
    pub(super) fn output_so_far(&self) -> Output {
        each!(self, h => output_so_far(h))
    }

    #[inline]
    pub(super) fn reset(&mut self) {
        each!(self, h => h.reset())
    }

    /// A new state's counts and initial state written again, last, where they lie in the
    /// `Hasher` ([`LazyMd::reset`]; see `Hasher::settled`). Not the boxed states: their box
    /// was written by one copy, whose pieces the loads find whole.
    #[inline(always)]
    pub(super) fn settle(&mut self) {
        match self {
            InlineHash::Md5(h) => h.reset(),
            InlineHash::Sha1(h) => h.reset(),
            InlineHash::Sha224(h) => h.reset(),
            InlineHash::Sha256(h) => h.reset(),
            InlineHash::Sha384(_)
            | InlineHash::Sha512(_)
            | InlineHash::Sha512_224(_)
            | InlineHash::Sha512_256(_) => {}
        }
    }

    /// Where the counts, the block and the state's words are (for the layout test).
    #[cfg(test)]
    pub(super) fn addresses(&self) -> [usize; 3] {
        each!(self, h => h.addresses())
    }
}

/// `data` hashed as one message ([`hash`](super::hash)): a BLAKE3 message of one piece by
/// `algo::blake3::one_block` (parhash's one-block kernel, else the crate's one-shot); MD5,
/// SHA-1 and SHA-2 by their cores' one-shot, which pads and compresses a short message in one
/// call (`digest_once` in `algo::block_api`); the others by their
/// `digest` type on the stack. One `match` whose arms write the digest where the caller wants
/// it: an `Option<Output>` from a first `match` cost a 135-byte copy per message.
#[inline]
pub(super) fn hash(algorithm: Algorithm, data: &[u8]) -> Output {
    // One piece is one thread's work: a one-shot, which skips the crate's ~2 KB incremental
    // hasher (half the time of a 64-byte message). Before the `match`, whose arms inline the
    // MD cores' one-shots: their stack frame and saved registers cost a 64-byte BLAKE3 ~3 %.
    if algorithm == Algorithm::Blake3 && data.len() <= crate::algo::blake3::PIECE {
        return blake3_piece(data);
    }
    message_by_type(algorithm, data)
}

/// The plain BLAKE3 digest of a message of at most one piece, written straight into the
/// `Output` (`algo::blake3::one_block`).
#[inline(always)]
pub(super) fn blake3_piece(data: &[u8]) -> Output {
    Output::filled(32, |out| {
        let out = out.try_into().expect("32 bytes");
        crate::algo::blake3::one_block::hash(data, out);
        Ok(())
    })
}

/// [`hash`] of every algorithm but a BLAKE3 message of one piece.
#[inline(never)]
fn message_by_type(algorithm: Algorithm, data: &[u8]) -> Output {
    macro_rules! once {
        ($core:ty) => {{
            let size = <$core as OutputSizeUser>::output_size();
            Output::filled(size, |out| {
                // The state at a 16-byte boundary (the cores are `repr(C)`, state first).
                crate::algo::pieces::Aligned16(<$core>::default())
                    .0
                    .digest_once(data, out);
                Ok(())
            })
        }};
    }
    match algorithm {
        Algorithm::Md5 => once!(Md5Core),
        Algorithm::Sha1 => once!(Sha1Core),
        Algorithm::Sha224 => once!(Sha256Core<Sha224Params>),
        Algorithm::Sha256 => once!(Sha256Core<Sha256Params256>),
        Algorithm::Sha384 => once!(Sha512Core<Sha384Params>),
        Algorithm::Sha512 => once!(Sha512Core<Sha512Params512>),
        Algorithm::Sha512_224 => once!(Sha512Core<Sha512_224Params>),
        Algorithm::Sha512_256 => once!(Sha512Core<Sha512_256Params>),
        _ => algorithm.hash_one_shot(data),
    }
}
