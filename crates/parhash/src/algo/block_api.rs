//! The RustCrypto `digest` boilerplate every family repeated, written once.
//!
//! A family writes what is its own: the core's fields, `fn with_backend(backend) -> Self` (a
//! fresh state that runs on `backend`, one of the family's [`backends!`] enums; [`counted_core!`]
//! writes both for a core of a state, a block count and a backend), `UpdateCore`
//! and `FixedOutputCore` (or [`md_core!`] for both, where the padding is MD4-style). Then:
//! - [`block_core!`] adds the traits that only name sizes: `HashMarker`, `BlockSizeUser`,
//!   `BufferKindUser`, `OutputSizeUser`, `AlgorithmName` and `Debug` (and `Clone` for a core
//!   generic over its parameters `P`, which need not be `Clone` themselves);
//! - [`hashers!`] declares each public hasher: its parameter type, `Default` (the detected
//!   backend) and `Reset` (same backend, fresh state) for its core, the `digest` buffering
//!   wrapper, and [`Variants`](super::Variants) from the backend table.
//!
//! [`backends!`]: crate::dispatch::backends

use digest::array::{Array, ArraySize};
use digest::block_api::UpdateCore;
use digest::block_buffer::BlockSizes;
use digest::OutputSizeUser;

use super::pieces;

/// The size-only `digest` traits of a core type (see the [module docs](self)).
///
/// `Core<P: Params>` is named `P::NAME` and shown as `Core<NAME> { ... }`; a plain core is
/// named `name` and shown as `Core { ... }`.
macro_rules! block_core {
    (
        $core:ident<P: $params:path>,
        block: $block:ty, output: $out:ty, buffer: $kind:ident $(,)?
    ) => {
        $crate::algo::block_api::block_core!(@sizes [P: $params] $core<P>, $block, $out, $kind, P::NAME);

        impl<P: $params> Clone for $core<P> {
            fn clone(&self) -> Self {
                Self {
                    params: core::marker::PhantomData,
                    ..*self
                }
            }
        }

        impl<P: $params> core::fmt::Debug for $core<P> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, concat!(stringify!($core), "<{}> {{ ... }}"), P::NAME)
            }
        }
    };
    (
        $core:ident, name: $name:expr,
        block: $block:ty, output: $out:ty, buffer: $kind:ident $(,)?
    ) => {
        $crate::algo::block_api::block_core!(@sizes [] $core, $block, $out, $kind, $name);

        impl core::fmt::Debug for $core {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(concat!(stringify!($core), " { ... }"))
            }
        }
    };
    (@sizes [$($generics:tt)*] $core:ty, $block:ty, $out:ty, $kind:ident, $name:expr) => {
        impl<$($generics)*> digest::HashMarker for $core {}

        impl<$($generics)*> digest::block_api::BlockSizeUser for $core {
            type BlockSize = $block;
        }

        impl<$($generics)*> digest::block_api::BufferKindUser for $core {
            type BufferKind = digest::block_api::$kind;
        }

        impl<$($generics)*> digest::block_api::OutputSizeUser for $core {
            type OutputSize = $out;
        }

        impl<$($generics)*> digest::block_api::AlgorithmName for $core {
            fn write_alg_name(f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str($name)
            }
        }
    };
}
pub(crate) use block_core;

/// A core's count of the blocks it has taken: `u64` or `u128`, as its length field needs.
pub(crate) trait BlockCount {
    /// Adds `n` blocks, wrapping as the length field does.
    fn add_blocks(&mut self, n: usize);
}

macro_rules! block_count {
    ($($count:ty),+) => {$(
        impl BlockCount for $count {
            #[inline(always)]
            fn add_blocks(&mut self, n: usize) {
                *self = self.wrapping_add(n as $count);
            }
        }
    )+};
}
block_count!(u64, u128);

/// The bytes of `blocks`, counted into `block_count` first: how a core whose kernels take a
/// byte slice starts `update_blocks`.
#[inline(always)]
pub(crate) fn counted_bytes<'a, N: ArraySize>(
    block_count: &mut impl BlockCount,
    blocks: &'a [Array<u8, N>],
) -> &'a [u8] {
    block_count.add_blocks(blocks.len());
    Array::slice_as_flattened(blocks)
}

/// A plain core's struct, its fields in this order: `state`, `block_count` (blocks taken so far)
/// and `backend`; and `with_backend`, which starts at state `$iv` with no blocks taken.
macro_rules! counted_core {
    (
        $(#[$attr:meta])*
        pub struct $core:ident { state: $state:ty = $iv:expr, block_count: $count:ty, backend: $backend:ty $(,)? }
    ) => {
        $(#[$attr])*
        pub struct $core {
            state: $state,
            block_count: $count,
            backend: $backend,
        }

        impl $core {
            fn with_backend(backend: $backend) -> Self {
                Self { state: $iv, block_count: 0, backend }
            }
        }
    };
}
pub(crate) use counted_core;

/// `UpdateCore` and `FixedOutputCore` of a Merkle–Damgård core with MD4-style padding (MD5,
/// SHA-1, SHA-2): fields `state` (words), `block_count` (`$count`) and `backend` (`$backend`),
/// whose `compress(&mut state, blocks)` takes whole blocks of `block` bytes; the message's bit
/// length is written as a `$count` by `words` (`to_le_bytes`: MD5's 64-bit little-endian
/// length), and the digest is the state's words as `words` gives them, the last one cut for
/// truncated outputs. Also a one-shot, `digest_once`, and [`MdParts`] for the in-place states,
/// which keep the state (`$state`) in `$in_place` (whole 16-byte pieces, zeros after it).
macro_rules! md_core {
    ($core:ident<P: $params:path>, $($rest:tt)*) => {
        $crate::algo::block_api::md_core!(@impl [P: $params] $core<P>, $($rest)*);
    };
    ($core:ident, $($rest:tt)*) => {
        $crate::algo::block_api::md_core!(@impl [] $core, $($rest)*);
    };
    (
        @impl [$($generics:tt)*] $core:ty, count: $count:ty, words: $to_bytes:ident,
        block: $block:literal, backend: $backend:ty, iv: $iv:expr, state: $state:ty,
        in_place: $in_place:ty $(,)?
    ) => {
        impl<$($generics)*> digest::block_api::UpdateCore for $core {
            #[inline]
            fn update_blocks(&mut self, blocks: &[digest::block_api::Block<Self>]) {
                self.block_count = self.block_count.wrapping_add(blocks.len() as $count);
                self.backend
                    .compress(&mut self.state, digest::array::Array::cast_slice_to_core(blocks));
            }
        }

        impl<$($generics)*> digest::block_api::FixedOutputCore for $core {
            #[inline]
            fn finalize_fixed_core(
                &mut self,
                buffer: &mut digest::block_api::Buffer<Self>,
                out: &mut digest::Output<Self>,
            ) {
                $crate::algo::block_api::MdFinish::finish(self, buffer.get_data(), out);
            }
        }

        impl<$($generics)*> $crate::algo::block_api::MdFinish for $core {
            #[inline(always)]
            fn finish(&mut self, tail: &[u8], out: &mut [u8]) {
                Self::finish_state(self.backend, &mut self.state, self.block_count, tail, out);
            }
        }

        impl<$($generics)*> $crate::algo::block_api::MdParts for $core {
            type Backend = $backend;
            type Words = $in_place;

            #[inline(always)]
            fn backend(&self) -> $backend {
                self.backend
            }

            const FRESH_WORDS: $in_place = {
                let state: $state = $iv;
                let mut words = <$in_place as $crate::algo::pieces::Words>::ZERO;
                let mut i = 0;
                while i < state.len() {
                    words[i] = state[i];
                    i += 1;
                }
                words
            };

            #[inline(always)]
            fn compress_words(
                backend: $backend,
                words: &mut $in_place,
                blocks: &[digest::block_api::Block<Self>],
            ) {
                backend.compress(
                    Self::state_of(words),
                    digest::array::Array::cast_slice_to_core(blocks),
                );
            }

            #[inline(always)]
            fn finish_words(
                backend: $backend,
                words: &mut $in_place,
                blocks: u64,
                tail: &[u8],
                out: &mut [u8],
            ) {
                let blocks = <$count>::from(blocks);
                Self::finish_state(backend, Self::state_of(words), blocks, tail, out);
            }
        }

        impl<$($generics)*> $core {
            /// The state within an in-place state's words (its first words).
            #[inline(always)]
            fn state_of(words: &mut $in_place) -> &mut $state {
                words.first_chunk_mut().expect("the state is the words' first")
            }

            /// Hashes `data` as one whole message from this fresh state, without the `digest`
            /// buffer: whole blocks straight from `data`, the tail and the padding in at most
            /// three blocks on the stack. A message of under two blocks goes to the compression
            /// function in one call, data and padding together, so the state stays in registers
            /// between them (a 64-byte SHA-256 is one call of two blocks, not two calls).
            #[inline]
            pub(crate) fn digest_once(&mut self, data: &[u8], out: &mut [u8]) {
                const BLOCK: usize = $block;
                // All of it in one call where the backend builds the padded tail itself.
                let (whole, rest) = data.as_chunks::<BLOCK>();
                if $crate::algo::block_api::PaddingInRegisters::<BLOCK>::compress_then_padded_tail(
                    self.backend,
                    &mut self.state,
                    whole,
                    rest,
                    (data.len() as $count).wrapping_mul(8),
                ) {
                    $crate::algo::block_api::write_digest(&self.state, |w| w.$to_bytes(), out);
                    return;
                }
                let (head, tail) = if data.len() < 2 * BLOCK {
                    (&data[..0], data)
                } else {
                    data.split_at(data.len() / BLOCK * BLOCK)
                };
                let (head, _) = head.as_chunks::<BLOCK>();
                if !head.is_empty() {
                    self.backend.compress(&mut self.state, head);
                }
                let blocks = head.len() as $count;
                Self::finish_state(self.backend, &mut self.state, blocks, tail, out);
            }

            /// Compresses a message's last `tail` bytes (under two blocks) after `blocks` whole
            /// blocks, with the padding, and writes the digest to `out` (exactly the digest's
            /// size): the end of every form (the streaming types, the in-place states, the
            /// one-shot).
            #[inline(always)]
            fn finish_state(
                backend: $backend,
                state: &mut $state,
                blocks: $count,
                tail: &[u8],
                out: &mut [u8],
            ) {
                let len = blocks.wrapping_mul($block).wrapping_add(tail.len() as $count);
                Self::compress_padded_tail(backend, state, tail, len);
                $crate::algo::block_api::write_digest(state, |w| w.$to_bytes(), out);
            }

            /// Compresses a message's last `tail` bytes (under two blocks) into `state` with the
            /// MD padding of a `len`-byte message (`0x80`, zeros, the bit length as `$to_bytes`
            /// writes it, in the last block's end): at most three blocks, in one call. The one
            /// padding of the family, for the streaming finalizes (a tail of at most one block),
            /// the in-place states and the one-shot.
            #[inline(always)]
            fn compress_padded_tail(backend: $backend, state: &mut $state, tail: &[u8], len: $count) {
                const BLOCK: usize = $block;
                let (whole, rest) = tail.as_chunks::<BLOCK>();
                if $crate::algo::block_api::PaddingInRegisters::<BLOCK>::compress_then_padded_tail(
                    backend,
                    state,
                    whole,
                    rest,
                    len.wrapping_mul(8),
                ) {
                    return;
                }
                // Built in 16-byte pieces, as the kernels load them (`algo::pieces`).
                let mut padded = $crate::algo::pieces::Aligned16([[0u8; BLOCK]; 3]);
                let blocks =
                    $crate::algo::pieces::pad(tail, len.wrapping_mul(8).$to_bytes(), &mut padded);
                backend.compress(state, &padded.0[..blocks]);
            }
        }
    };
}
pub(crate) use md_core;

/// A backend that may compress a message's last bytes with their padding without writing the
/// padded block to memory (SHA-1 and SHA-256 on the SHA extensions: written and read back at
/// once, the block's loads wait on its stores); the others say `false` and
/// `compress_padded_tail` builds the block in memory.
pub(crate) trait PaddingInRegisters<const BLOCK: usize = 64>: Copy {
    type State;
    type Count;

    /// Compresses `blocks`, then `tail` (under one block) with the padding of a message of
    /// `bit_len` bits, and returns `true`; or does nothing and returns `false`.
    #[inline(always)]
    fn compress_then_padded_tail(
        self,
        state: &mut Self::State,
        blocks: &[[u8; BLOCK]],
        tail: &[u8],
        bit_len: Self::Count,
    ) -> bool {
        let _ = (state, blocks, tail, bit_len);
        false
    }
}

/// [`PaddingInRegisters`] for a backend whose `ShaNi` form pads in registers (its `sha_ni`
/// module's `compress_blocks_then_tail`), every other form declining.
macro_rules! padding_in_registers_on_sha_ni {
    ($backend:ty, $state:ty) => {
        impl $crate::algo::block_api::PaddingInRegisters for $backend {
            type State = $state;
            type Count = u64;

            #[inline]
            fn compress_then_padded_tail(
                self,
                state: &mut $state,
                blocks: &[[u8; 64]],
                tail: &[u8],
                bit_len: u64,
            ) -> bool {
                match self {
                    #[cfg(target_arch = "x86_64")]
                    Self::ShaNi(token) => {
                        sha_ni::compress_blocks_then_tail(token, state, blocks, tail, bit_len);
                        true
                    }
                    _ => false,
                }
            }
        }
    };
}
pub(crate) use padding_in_registers_on_sha_ni;

/// A SHA-NI kernel's `compress_blocks_then_tail` (state, blocks, tail, bit length).
#[cfg(all(test, target_arch = "x86_64"))]
pub(crate) type CompressThenTail<S> = fn(crate::platform::ShaNi, &mut S, &[[u8; 64]], &[u8], u64);

/// Checks a SHA-NI kernel's padded tail built in registers against the padding written byte by
/// byte as the specification says, compressed by the same kernel: for 0-3 blocks before it,
/// every tail under one block (the length in the tail's block or in one of its own) and bit
/// lengths no test message reaches (above 2^32 bits, the top bit set).
/// Logged as skipped where the CPU has no SHA extensions.
#[cfg(all(test, target_arch = "x86_64"))]
pub(crate) fn check_padding_in_registers<S: Copy + PartialEq + core::fmt::Debug>(
    test: &str,
    iv: S,
    compress: fn(crate::platform::ShaNi, &mut S, &[[u8; 64]]),
    compress_then_tail: CompressThenTail<S>,
) {
    let Some(token) = crate::platform::ShaNi::detect() else {
        crate::forms_log::skipped(
            test,
            "no SHA extensions here (or PARHASH_DISABLE_ISA switched them off)",
        );
        return;
    };
    let blocks: Vec<[u8; 64]> = (0..3u8)
        .map(|b| core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ b))
        .collect();
    let bytes: Vec<u8> = (0..63u8).map(|i| i.wrapping_mul(91) ^ 0xa5).collect();
    let mut checked = 0;
    for n in 0..=blocks.len() {
        for tail_len in 0..64 {
            // The tail alone in its own allocation: its last piece is read within it.
            let tail = bytes[..tail_len].to_vec();
            for bit_len in [
                0,
                512,
                1536,
                (1 << 32) + 8,
                u64::MAX - 7,
                0x0123_4567_89ab_cdef,
            ] {
                // The padded end as the specification writes it, byte by byte.
                let mut padded = tail.clone();
                padded.push(0x80);
                while padded.len() % 64 != 56 {
                    padded.push(0);
                }
                padded.extend_from_slice(&bit_len.to_be_bytes());
                let (padded, _) = padded.as_chunks::<64>();
                let mut expected = iv;
                compress(token, &mut expected, &blocks[..n]);
                compress(token, &mut expected, padded);
                let mut state = iv;
                compress_then_tail(token, &mut state, &blocks[..n], &tail, bit_len);
                assert_eq!(
                    state, expected,
                    "{n} blocks, {tail_len}-byte tail, {bit_len} bits"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 4 * 64 * 6);
}

/// The end of an MD-style message ([`md_core`]): its last `tail` bytes (the buffered ones, at
/// most one block) compressed with the padding, and the digest written to `out` (exactly the
/// digest's size).
pub(crate) trait MdFinish: UpdateCore + OutputSizeUser {
    fn finish(&mut self, tail: &[u8], out: &mut [u8]);
}

/// An MD-style core taken apart ([`md_core`]), for [`LazyMd`], which lays out the parts
/// itself: the backend, the state's words in whole 16-byte pieces, and what compresses and
/// finishes them.
pub(crate) trait MdParts: MdFinish {
    type Backend: Copy;
    /// The state's words, whole 16-byte pieces of them (SHA-1's five words in eight).
    type Words: pieces::Words;

    /// The backend this core runs on.
    fn backend(&self) -> Self::Backend;

    /// The initial state (zeros after it): a constant, which the compiler writes with 16-byte
    /// stores.
    const FRESH_WORDS: Self::Words;

    /// Compresses whole blocks into the state.
    fn compress_words(
        backend: Self::Backend,
        words: &mut Self::Words,
        blocks: &[digest::block_api::Block<Self>],
    );

    /// Compresses a message's `tail` (at most one block) after `blocks` whole blocks, with its
    /// padding, and writes the digest to `out` (exactly the digest's size).
    fn finish_words(
        backend: Self::Backend,
        words: &mut Self::Words,
        blocks: u64,
        tail: &[u8],
        out: &mut [u8],
    );
}

/// An MD-style state behind a *lazy* buffer: a whole block waits in the buffer until more data
/// comes or the message ends, so a message of up to one block is compressed with its padding
/// in one call at the end (a reused hasher at 64 bytes: ~12 % less time than with the eager
/// buffer, which compresses the block on `update` and the padding in a second call). For
/// [`Hasher`](crate::Hasher)'s in-place states; the public types (`Sha256`, ...) keep
/// `digest`'s eager buffer, which `hmac::Hmac` requires of a hash.
///
/// Laid out so that each 16-byte piece the kernel reads is written by one 16-byte store (the
/// counts by [`pieces::write_words`], the block by [`pieces::copy_in`], the words whole): a
/// load takes its bytes from a store still on its way to the cache only when that one store
/// holds them all, and `finalize(self)` moves the hasher with 16-byte loads (`algo::pieces`).
/// In a [`Hasher`](crate::Hasher) (16-byte aligned, this state after an 8-byte tag) the
/// backend shares the tag's piece (read by branches, which the CPU predicts rather than waits
/// for), the counts sit 16 bytes in, the block 32, the words 96, and the whole stays within
/// the 128 bytes a move copies without a `memcpy` call. `registry::tests` checks the layout;
/// `Hasher::settled` writes the fresh state last.
#[derive(Clone)]
#[repr(C)]
pub(crate) struct LazyMd<C: MdParts>
where
    C::BlockSize: BlockSizes,
{
    backend: C::Backend,
    /// The whole blocks compressed, and the bytes held in `block`: 0 only before the first
    /// byte, else 1 to a whole block. Written together by one store.
    counts: [u64; 2],
    block: Array<u8, C::BlockSize>,
    words: C::Words,
}

impl<C: MdParts> LazyMd<C>
where
    C::BlockSize: BlockSizes,
{
    /// A fresh message on `core`'s backend.
    #[inline]
    pub(crate) fn new(core: C) -> Self {
        let backend = core.backend();
        LazyMd {
            backend,
            counts: [0; 2],
            block: Array::default(),
            words: C::FRESH_WORDS,
        }
    }

    #[inline(always)]
    fn set_counts(&mut self, blocks: u64, held: usize) {
        pieces::write_words(&mut self.counts, [blocks, held as u64]);
    }

    #[inline]
    pub(crate) fn update(&mut self, mut data: &[u8]) {
        let block_len = self.block.len();
        let [mut blocks, held] = self.counts;
        let held = held as usize;
        if data.len() <= block_len - held {
            if held == 0 {
                pieces::copy_in(&mut self.block, data);
            } else {
                self.block[held..held + data.len()].copy_from_slice(data);
            }
            self.set_counts(blocks, held + data.len());
            return;
        }
        if held > 0 {
            let (fill, rest) = data.split_at(block_len - held);
            self.block[held..].copy_from_slice(fill);
            C::compress_words(
                self.backend,
                &mut self.words,
                core::slice::from_ref(&self.block),
            );
            blocks = blocks.wrapping_add(1);
            data = rest;
        }
        // `data` is not empty: its whole blocks but the last go to the core, the last (which
        // may end the message) waits.
        let keep = (data.len() - 1) % block_len + 1;
        let (whole, last) = data.split_at(data.len() - keep);
        let (whole, _) = Array::slice_as_chunks(whole);
        if !whole.is_empty() {
            C::compress_words(self.backend, &mut self.words, whole);
            blocks = blocks.wrapping_add(whole.len() as u64);
        }
        pieces::copy_in(&mut self.block, last);
        self.set_counts(blocks, keep);
    }

    /// Writes the digest to `out` (exactly the digest's size) and starts over.
    #[inline]
    pub(crate) fn finalize_into_reset(&mut self, out: &mut [u8]) {
        let [blocks, held] = self.counts;
        C::finish_words(
            self.backend,
            &mut self.words,
            blocks,
            &self.block[..held as usize],
            out,
        );
        self.reset();
    }

    /// Starts over: the counts and the initial state written in whole 16-byte pieces. Also
    /// what a new `Hasher` ends with, over the state it was built with (the compiler wrote
    /// that with narrow stores; these, later, are the ones a load finds).
    #[inline]
    pub(crate) fn reset(&mut self) {
        self.set_counts(0, 0);
        pieces::write_words(&mut self.words, C::FRESH_WORDS);
    }

    /// Writes the digest of everything fed so far to `out` and leaves this state as it is:
    /// the words copied to a 16-byte-aligned local, the held bytes read where they are.
    #[inline]
    pub(crate) fn digest_into(&self, out: &mut [u8]) {
        let [blocks, held] = self.counts;
        let mut words = pieces::Aligned16(self.words);
        C::finish_words(
            self.backend,
            &mut words.0,
            blocks,
            &self.block[..held as usize],
            out,
        );
    }

    /// Where the counts, the block and the words are (for the layout test).
    #[cfg(test)]
    pub(crate) fn addresses(&self) -> [usize; 3] {
        [
            self.counts.as_ptr() as usize,
            self.block.as_ptr() as usize,
            &self.words as *const C::Words as usize,
        ]
    }
}

/// Writes an MD-style state as its digest `out` (the words as `to_bytes` gives them, the last
/// one cut for truncated outputs). The whole state goes to a fixed-size array first (byte swaps
/// the compiler turns into wide stores) and then the digest's share to `out`: written word by
/// word, `out` made every later copy of the digest (an `Output` moved) wait for the narrow
/// stores to land, ~8 ns of a 64-byte SHA-256's ~125.
#[inline(always)]
pub(crate) fn write_digest<W: Copy, const WORDS: usize, const SIZE: usize>(
    state: &[W; WORDS],
    to_bytes: impl Fn(W) -> [u8; SIZE],
    out: &mut [u8],
) {
    let mut bytes = [0u8; 64];
    for (b, &w) in bytes.chunks_exact_mut(SIZE).zip(state) {
        b.copy_from_slice(&to_bytes(w));
    }
    out.copy_from_slice(&bytes[..out.len()]);
}

/// Public hasher types around cores (see the [module docs](self)). Plain cores:
/// `Hasher(Core);`. Cores generic over a parameter trait (named once, `impl Trait;`) declare each
/// parameter type with its digest size, name and the trait's other items:
/// `Hasher(Core<Params>, OutputSize, "Name") { items }`.
macro_rules! hashers {
    (impl $params_trait:path; $(
        $(#[$doc:meta])*
        $name:ident($core:ident<$params:ident>, $out:ty, $display:literal) { $($items:tt)* }
    )*) => {$(
        #[doc = concat!("Parameters of ", $display, ".")]
        #[derive(Clone, Copy, Debug)]
        pub struct $params;

        impl $params_trait for $params {
            type OutputSize = $out;
            const NAME: &'static str = $display;
            $($items)*
        }

        $crate::algo::block_api::hashers! { $(#[$doc])* $name($core<$params>); }
    )*};
    ($(
        $(#[$doc:meta])*
        $name:ident($core:ty);
    )*) => {$(
        impl Default for $core {
            #[inline]
            fn default() -> Self {
                Self::with_backend($crate::dispatch::Dispatch::detect())
            }
        }

        // Keeps the backend: a hasher forced onto a variant stays on it.
        impl digest::Reset for $core {
            #[inline]
            fn reset(&mut self) {
                *self = Self::with_backend(self.backend);
            }
        }

        digest::buffer_fixed!(
            $(#[$doc])*
            pub struct $name($core);
            impl: BaseFixedTraits AlgorithmName Default Clone HashMarker Reset FixedOutputReset;
        );

        $crate::dispatch::table_variants!(
            <$core>::with_backend,
            |backend, _| Self {
                core: <$core>::with_backend(backend),
                buffer: Default::default(),
            };
            $name
        );
    )*};
}
pub(crate) use hashers;
