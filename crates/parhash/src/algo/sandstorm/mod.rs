//! SANDstorm-224/256/384/512 (Sandia, SHA-3 round 1): a hash built for many cores.
//!
//! Specification: `shared/specs/sandstorm.md` (established from the submitters' reference code).
//! - `reference`: literal, one-shot; buffers the message (an oracle for tests, not for speed).
//! - `fast`: the unrolled compression with the message schedule beside the rounds, over 1 or
//!   more interleaved lanes.
//! - The tree mode and its threads live in [`crate::algo::sandstorm::tree`]; one message split
//!   into parts hashed on many machines: [`crate::algo::sandstorm::parts`].
//!
//! Variants: `reference`, `sequential` (one compression at a time, one thread), `interleaved`
//! (independent superblocks side by side in one thread, portable), `parallel` (interleaved, and
//! whole level-2 superblocks over all cores, with the widest kernel; the default),
//! `parallel-portable`, `interleaved-avx512` and `parallel-avx512` (eight superblocks in AVX-512
//! lanes, S-box by GFNI), `interleaved-avx2` and `parallel-avx2` (eight superblocks in two AVX2
//! registers per 64-bit word, S-box by GFNI or a table gather); 128-bit words (384/512) take
//! twice the registers: [`crate::algo::sandstorm::lanes`]. `sandstorm224-ref`/`sandstorm256-ref`
//! reproduce the reference code's 8-bit superblock counter (section 7 of the spec), which differs
//! from the design from 258 padded blocks (16,448 bytes) on; they have the same variants, threads
//! and lanes included (the tree finds either kind of boundary).

use core::fmt;
use core::marker::PhantomData;

use digest::{
    block_api::{
        AlgorithmName, Block, BlockSizeUser, Buffer, BufferKindUser, Eager, FixedOutputCore,
        OutputSizeUser, Reset, UpdateCore,
    },
    typenum::{Unsigned, U128, U28, U32, U48, U64},
    HashMarker, Output,
};

use crate::algo::sandstorm::tree::{Tree, TreeOptions};
use crate::dispatch::backends;
use crate::threads::Threads;
use reference::{Boundaries, Chain};
use word::Word;

pub mod consts;
pub mod fast;
pub mod lanes;
pub mod parts;
pub mod reference;
pub mod tree;
pub mod word;

/// Static parameters of one SANDstorm algorithm.
pub trait Params: Clone + Send + Sync + 'static {
    /// The word: `u64` (SANDstorm-224/256) or `u128` (SANDstorm-384/512).
    type W: Word;
    /// Digest bytes (the result is truncated to this).
    const OUT: usize;
    /// The chaining constants K (from the SHA-2 IV of the same output size).
    const K: Chain<Self::W>;
    /// How superblock boundaries are found (the design, or the reference code's counter).
    const BOUNDARIES: Boundaries;
    /// The algorithm's name, as the registry spells it.
    const NAME: &'static str;
}

macro_rules! params {
    ($(#[$doc:meta])* $name:ident, $w:ty, $block:ty, $out:ty, $k:expr, $b:expr, $label:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $name;
        impl Params for $name {
            type W = $w;
            const OUT: usize = <$out as Unsigned>::USIZE;
            const K: Chain<$w> = $k;
            const BOUNDARIES: Boundaries = $b;
            const NAME: &'static str = $label;
        }
    };
}

params!(/// SANDstorm-224.
    P224, u64, U64, U28, consts::k64(&consts::SHA224_IV), Boundaries::Design, "SANDstorm-224");
params!(/// SANDstorm-256.
    P256, u64, U64, U32, consts::k64(&consts::SHA256_IV), Boundaries::Design, "SANDstorm-256");
params!(/// SANDstorm-384.
    P384, u128, U128, U48, consts::k128(&consts::SHA384_IV), Boundaries::Design, "SANDstorm-384");
params!(/// SANDstorm-512.
    P512, u128, U128, U64, consts::k128(&consts::SHA512_IV), Boundaries::Design, "SANDstorm-512");
params!(/// SANDstorm-224 with the reference code's 8-bit superblock counter.
    P224Ref, u64, U64, U28, consts::k64(&consts::SHA224_IV), Boundaries::ReferenceCode8Bit,
    "SANDstorm-224-ref");
params!(/// SANDstorm-256 with the reference code's 8-bit superblock counter.
    P256Ref, u64, U64, U32, consts::k64(&consts::SHA256_IV), Boundaries::ReferenceCode8Bit,
    "SANDstorm-256-ref");

#[derive(Clone, Debug)]
enum State<W: Word> {
    /// The literal reference: buffers the whole message.
    Reference(Vec<u8>),
    Tree(Tree<W>),
}

/// Block-level SANDstorm state; the public types add buffering.
#[derive(Clone)]
pub struct SandstormCore<P: Params> {
    state: State<P::W>,
    engine: Option<TreeOptions>,
    bytes: u128,
    _params: PhantomData<P>,
}

impl<P: Params> SandstormCore<P> {
    fn with_engine(engine: Option<TreeOptions>) -> Self {
        SandstormCore {
            state: match engine {
                None => State::Reference(Vec::new()),
                Some(e) => State::Tree(Tree::new(P::K, P::BOUNDARIES, e)),
            },
            engine,
            bytes: 0,
            _params: PhantomData,
        }
    }
}

impl<P: Params> SandstormCore<P> {
    fn absorb(&mut self, bytes: &[u8]) {
        self.bytes += bytes.len() as u128;
        match &mut self.state {
            State::Reference(buf) => buf.extend_from_slice(bytes),
            State::Tree(tree) => tree.update_blocks(bytes),
        }
    }

    /// Finishes with the buffered partial block `tail`, leaves a fresh state, returns the digest.
    fn finish(&mut self, tail: &[u8]) -> Vec<u8> {
        let bit_len = (self.bytes + tail.len() as u128) * 8;
        let fresh = Self::with_engine(self.engine);
        let mut bytes = match core::mem::replace(&mut self.state, fresh.state) {
            State::Reference(mut buf) => {
                buf.extend_from_slice(tail);
                reference::hash(&P::K, &buf, P::BOUNDARIES)
            }
            State::Tree(tree) => words_to_bytes(&tree.finalize(tail, bit_len)),
        };
        self.bytes = 0;
        bytes.truncate(P::OUT);
        bytes
    }
}

fn words_to_bytes<W: Word>(words: &[W; 4]) -> Vec<u8> {
    let mut bytes = vec![0u8; 4 * W::BYTES];
    for (j, word) in words.iter().enumerate() {
        word.write_be_bytes(&mut bytes[j * W::BYTES..]);
    }
    bytes
}

impl<P: Params> Default for SandstormCore<P> {
    fn default() -> Self {
        Self::with_engine(Some(TreeOptions::fastest(0)))
    }
}

impl<P: Params> Reset for SandstormCore<P> {
    fn reset(&mut self) {
        *self = Self::with_engine(self.engine);
    }
}

impl<P: Params> AlgorithmName for SandstormCore<P> {
    fn write_alg_name(f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(P::NAME)
    }
}

impl<P: Params> fmt::Debug for SandstormCore<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}Core {{ ... }}", P::NAME)
    }
}

backends! {
    /// SANDstorm's forms: how the tree is run (the literal reference, one compression at a
    /// time, superblocks interleaved in one thread, or over threads) and in which lanes. The
    /// thread count is not a form: it is the [`Threads`] the hasher is built with.
    pub(crate) enum Form {
        Reference => "reference":
            "literal to the spec, one-shot (buffers the message; for testing)";
        Sequential => "sequential":
            "unrolled compression, schedule beside rounds, one block at a time";
        Interleaved => "interleaved": "independent superblocks side by side in one thread";
        InterleavedAvx512(Avx512, Gfni) => "interleaved-avx512":
            "eight superblocks in AVX-512 lanes (GFNI S-box), one thread";
        InterleavedAvx2(Avx2) => "interleaved-avx2":
            "eight superblocks in AVX2 lanes (GFNI or table S-box), one thread";
        // Not a group: the widest lanes *and* BMI2's scalar rounds, which no other form has.
        Parallel => "parallel":
            "interleaved, and level-2 superblocks over all cores (widest kernel)";
        ParallelPortable => "parallel-portable": "portable interleaved superblocks over all cores";
        ParallelAvx512(Avx512, Gfni) => "parallel-avx512":
            "eight superblocks in AVX-512 lanes, over all cores";
        ParallelAvx2(Avx2) => "parallel-avx2": "eight superblocks in AVX2 lanes, over all cores";
    }
}

impl Form {
    /// The tree engine of this form on `threads` (`None` = the literal reference); the
    /// single-thread forms ignore `threads`. The lane forms run on the tokens they hold.
    fn engine(self, threads: Threads) -> Option<TreeOptions> {
        #[cfg(target_arch = "x86_64")]
        use lanes::Wide;
        match self {
            Form::Reference => None,
            Form::Sequential => Some(TreeOptions::SEQUENTIAL),
            Form::Interleaved => Some(TreeOptions::INTERLEAVED),
            Form::Parallel => Some(TreeOptions::fastest(threads)),
            Form::ParallelPortable => Some(TreeOptions::portable(threads)),
            #[cfg(target_arch = "x86_64")]
            Form::InterleavedAvx512(avx512, gfni) => {
                Some(TreeOptions::portable(1).in_lanes(Wide::avx512_on(avx512, gfni)))
            }
            #[cfg(target_arch = "x86_64")]
            Form::InterleavedAvx2(avx2) => {
                Some(TreeOptions::portable(1).in_lanes(Wide::avx2_on(avx2)))
            }
            #[cfg(target_arch = "x86_64")]
            Form::ParallelAvx512(avx512, gfni) => {
                Some(TreeOptions::portable(threads).in_lanes(Wide::avx512_on(avx512, gfni)))
            }
            #[cfg(target_arch = "x86_64")]
            Form::ParallelAvx2(avx2) => {
                Some(TreeOptions::portable(threads).in_lanes(Wide::avx2_on(avx2)))
            }
        }
    }
}

macro_rules! sandstorm_type {
    ($(#[$doc:meta])* $name:ident, $params:ty, $block:ty, $out:ty) => {
        impl HashMarker for SandstormCore<$params> {}

        impl BlockSizeUser for SandstormCore<$params> {
            type BlockSize = $block;
        }

        impl BufferKindUser for SandstormCore<$params> {
            type BufferKind = Eager;
        }

        impl OutputSizeUser for SandstormCore<$params> {
            type OutputSize = $out;
        }

        impl UpdateCore for SandstormCore<$params> {
            fn update_blocks(&mut self, blocks: &[Block<Self>]) {
                self.absorb(digest::array::Array::slice_as_flattened(blocks));
            }
        }

        impl FixedOutputCore for SandstormCore<$params> {
            fn finalize_fixed_core(&mut self, buffer: &mut Buffer<Self>, out: &mut Output<Self>) {
                out.copy_from_slice(&self.finish(buffer.get_data()));
            }
        }

        digest::buffer_fixed!(
            $(#[$doc])*
            pub struct $name(SandstormCore<$params>);
            impl: BaseFixedTraits AlgorithmName Default Clone HashMarker Reset FixedOutputReset;
        );

        impl $name {
            /// A hasher using `threads` threads for long messages (0 = all cores); the digest
            /// does not depend on it.
            pub fn with_threads(threads: impl Into<Threads>) -> Self {
                Self::with_engine(TreeOptions::fastest(threads))
            }

            /// A hasher using exactly this engine (see [`TreeOptions`]).
            pub fn with_engine(engine: TreeOptions) -> Self {
                Self {
                    core: SandstormCore::with_engine(Some(engine)),
                    buffer: Default::default(),
                }
            }
        }

        $crate::dispatch::table_variants!(
            |form: Form| form,
            |form: Form, threads| Self {
                core: SandstormCore::with_engine(form.engine(threads)),
                buffer: Default::default(),
            };
            $name
        );
    };
}

sandstorm_type!(/// SANDstorm-224 (the tree as designed).
    Sandstorm224, P224, U64, U28);
sandstorm_type!(/// SANDstorm-256 (the tree as designed).
    Sandstorm256, P256, U64, U32);
sandstorm_type!(/// SANDstorm-384.
    Sandstorm384, P384, U128, U48);
sandstorm_type!(/// SANDstorm-512.
    Sandstorm512, P512, U128, U64);
sandstorm_type!(/// SANDstorm-224 as the submitters' reference code computes it (8-bit counter quirk).
    Sandstorm224Ref, P224Ref, U64, U28);
sandstorm_type!(/// SANDstorm-256 as the submitters' reference code computes it (8-bit counter quirk).
    Sandstorm256Ref, P256Ref, U64, U32);

/// Hashes a slice in place (e.g. a memory-mapped file) with `threads` threads (0 = all cores).
/// Same digest as the streaming types; returns the digest bytes.
pub fn hash_slice<P: Params>(data: &[u8], threads: impl Into<Threads>) -> Vec<u8> {
    let words = crate::algo::sandstorm::tree::hash_slice(
        P::K,
        P::BOUNDARIES,
        TreeOptions::fastest(threads),
        data,
    );
    let mut bytes = words_to_bytes(&words);
    bytes.truncate(P::OUT);
    bytes
}

#[cfg(test)]
mod tests {
    use super::consts::*;
    use super::reference::{hash, Boundaries};

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    #[test]
    fn reference_outside_vector() {
        let fox = b"The quick brown fox jumps over the lazy dog";
        assert_eq!(
            hex(&hash(&k64(&SHA256_IV), fox, Boundaries::Design)),
            "607ac39b7cd6c1912e7934cdbbfceeea1fe5e8155a9726b36c96895c93e6056d"
        );
        assert_eq!(
            hex(&hash(&k64(&SHA224_IV), fox, Boundaries::Design)[..28]),
            "e2ae7dbf4649c65e0ae19de85b3b4d2565862645146282ec57a64ef4"
        );
        assert_eq!(
            hex(&hash(&k128(&SHA512_IV), fox, Boundaries::Design)),
            "c50794660a3672279018ec7ab26559bdea6565e191ba892ef4cc579c96fb33804255ad18a4b2f6604b34d5e2a4ca5d4dd1fc6fee882727ac54f6273706ea9ff6"
        );
        let tree: Vec<u8> = (0..704).map(|i| i as u8).collect();
        assert_eq!(
            hex(&hash(&k64(&SHA256_IV), &tree, Boundaries::Design)),
            "4239f7dae54bc37852fb054c0bde6d43a74d913ab05a6cb439d31bb11af6565e"
        );
    }
}
