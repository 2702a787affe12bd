//! Digests whose length is chosen at run time: BLAKE2's output length (a parameter of the
//! hash, so BLAKE2b-256 is not BLAKE2b-512 cut short) and the number of bytes read from an
//! extendable-output function (SHAKE, BLAKE3).
//!
//! Both are [`AnyLength`] hashes. The registry's [`Hasher`](crate::Hasher) holds BLAKE2 as a
//! `digest::DynDigest`, whose `output_size` is a run-time value: [`WithLength`] gives it that
//! shape. It holds an XOF as the `AnyLength` itself, with the length beside it, so that the
//! same state can also be read for any other length
//! ([`Hasher::finalize_xof_into_reset`](crate::Hasher::finalize_xof_into_reset)).
#![forbid(unsafe_code)]

use digest::block_api::{Buffer, TruncSide, VariableOutputCore};
use digest::{DynDigest, ExtendableOutputReset, InvalidBufferSize, Output, Update};

/// A hash that writes as many output bytes as asked ([`WithLength`] asks for its length).
pub(crate) trait AnyLength: Clone + Send + Sync + 'static {
    fn update(&mut self, data: &[u8]);
    /// Writes `out.len()` bytes of digest and starts over.
    fn finalize_into_reset(&mut self, out: &mut [u8]);
    fn reset(&mut self);
}

/// A hash of `len` output bytes, as a `DynDigest`.
#[derive(Clone)]
pub(crate) struct WithLength<H> {
    hash: H,
    len: usize,
}

impl<H: AnyLength> WithLength<H> {
    pub(crate) fn new(hash: H, len: usize) -> Self {
        WithLength { hash, len }
    }
}

impl<H: AnyLength> DynDigest for WithLength<H> {
    fn update(&mut self, data: &[u8]) {
        self.hash.update(data);
    }

    fn finalize_into(mut self, out: &mut [u8]) -> Result<(), InvalidBufferSize> {
        self.finalize_into_reset(out)
    }

    fn finalize_into_reset(&mut self, out: &mut [u8]) -> Result<(), InvalidBufferSize> {
        if out.len() != self.len {
            return Err(InvalidBufferSize);
        }
        self.hash.finalize_into_reset(out);
        Ok(())
    }

    fn reset(&mut self) {
        self.hash.reset();
    }

    fn output_size(&self) -> usize {
        self.len
    }

    fn box_clone(&self) -> Box<dyn DynDigest> {
        Box::new(self.clone())
    }
}

/// Any extendable-output function of the `digest` traits (RustCrypto's SHAKE, parhash's
/// BLAKE3): its first `out.len()` bytes.
impl<X> AnyLength for X
where
    X: Update + ExtendableOutputReset + Clone + Send + Sync + 'static,
{
    fn update(&mut self, data: &[u8]) {
        Update::update(self, data);
    }
    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        self.finalize_xof_reset_into(out);
    }
    fn reset(&mut self) {
        // `Reset`, not `Default`: a hasher keeps its settings (BLAKE3 its thread count).
        digest::Reset::reset(self);
    }
}

/// A RustCrypto core with a run-time output length (BLAKE2's `Blake2bVarCore`) and its block
/// buffer: what `digest` 0.10's `RtVariableCoreWrapper` was, which `digest` 0.11 dropped.
#[derive(Clone)]
pub(crate) struct VariableCore<C: VariableOutputCore> {
    core: C,
    buffer: Buffer<C>,
    len: usize,
}

impl<C: VariableOutputCore> VariableCore<C> {
    /// `None` when the core refuses the length.
    pub(crate) fn new(len: usize) -> Option<Self> {
        Some(VariableCore {
            core: C::new(len).ok()?,
            buffer: Buffer::<C>::default(),
            len,
        })
    }
}

/// A marker newtype so the blanket XOF impl above and this one cannot overlap.
#[derive(Clone)]
pub(crate) struct Variable<C: VariableOutputCore>(pub(crate) VariableCore<C>);

impl<C> AnyLength for Variable<C>
where
    C: VariableOutputCore + Clone + Send + Sync + 'static,
    Buffer<C>: Send + Sync,
{
    fn update(&mut self, data: &[u8]) {
        let VariableCore { core, buffer, .. } = &mut self.0;
        buffer.digest_blocks(data, |blocks| core.update_blocks(blocks));
    }

    fn finalize_into_reset(&mut self, out: &mut [u8]) {
        let state = &mut self.0;
        let mut full = Output::<C>::default();
        state
            .core
            .finalize_variable_core(&mut state.buffer, &mut full);
        let len = state.len;
        out.copy_from_slice(match C::TRUNC_SIDE {
            TruncSide::Left => &full[..len],
            TruncSide::Right => &full[full.len() - len..],
        });
        self.reset();
    }

    fn reset(&mut self) {
        let len = self.0.len;
        self.0 = VariableCore::new(len).expect("this length was accepted before");
    }
}

/// [`Variants`](super::Variants) for hashers taken whole from a RustCrypto crate: one variant,
/// `rustcrypto`, described by `summary`.
macro_rules! rustcrypto_variants {
    ($summary:literal: $($ty:ty),+) => {
        $crate::algo::single_variant!("rustcrypto": $summary, |_| Self::default(); $($ty),+);
    };
}
pub(crate) use rustcrypto_variants;
