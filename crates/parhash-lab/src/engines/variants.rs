//! parhash's implementation variants (`sha-ni`, `avx2`, `sequential`...) as engines, each
//! driven through the run-time [`Hasher`] forced onto that variant.

use std::sync::Arc;

use parhash::{Algorithm, Hasher, HasherBuilder, Threads, Variant};

use crate::engine::{Engine, EngineRef, StreamHasher};

/// A parhash variant, driven through the run-time [`Hasher`].
struct ParhashEngine {
    variant: Variant,
}

struct ParhashState {
    hasher: Hasher,
    /// The variant is what `parhash::hash` runs (the default one), so a whole message that
    /// the one-shot hashes on one thread goes through it.
    one_shot: bool,
}

impl StreamHasher for ParhashState {
    fn update(&mut self, data: &[u8]) {
        self.hasher.update(data);
    }
    fn finish_reset(&mut self) -> u8 {
        self.hasher.finalize_reset().as_bytes()[0]
    }
    fn hash_message(&mut self, message: &[u8]) -> u8 {
        // BLAKE3's one-shot spreads a message of more than one piece over every core.
        let one_thread = self.hasher.algorithm() != Algorithm::Blake3
            || message.len() <= parhash::lab::algo::blake3::PIECE;
        if self.one_shot && one_thread {
            return parhash::hash(self.hasher.algorithm(), message).as_bytes()[0];
        }
        self.update(message);
        self.finish_reset()
    }
}

impl Engine for ParhashEngine {
    fn algorithm(&self) -> String {
        self.variant.algorithm().name().to_string()
    }
    fn variant(&self) -> String {
        self.variant.to_string()
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        let algorithm = self.variant.algorithm();
        // `hash` runs the default variant; the tree modes' one-shots thread (BLAKE3's past one
        // piece, see `hash_message`), so SANDstorm and PARSHA-256 keep the streaming path.
        let one_shot = self.variant == algorithm.default_variant()
            && (!Hasher::splits_over_threads(algorithm) || algorithm == Algorithm::Blake3);
        // One thread, as the lab counts this engine's threads (one per message): a tree mode's
        // `Hasher` would otherwise spread a long message over every core, and its "1 thread"
        // figure be that of all of them (PARSHA-256 `parallel` at 64 MiB read 1.0 ns/B where
        // one thread takes 1.4).
        let hasher = one_thread(self.variant)
            .build()
            .expect("a Variant is available by construction");
        Box::new(ParhashState { hasher, one_shot })
    }
    fn bounded_memory(&self) -> bool {
        // The registry's PARSHA-256 keeps the whole message until `finalize` (it needs the
        // length first).
        self.variant.algorithm() != Algorithm::Parsha256
    }
}

/// A builder of `variant`'s hasher on one thread.
fn one_thread(variant: Variant) -> HasherBuilder {
    Hasher::builder(variant.algorithm())
        .variant(variant)
        .threads(Threads::new(1))
}

/// The parhash engine for one variant, or `None` if it is unknown or unavailable on this CPU.
pub fn parhash_variant(algorithm: Algorithm, variant: &str) -> Option<EngineRef> {
    Some(parhash_engine(algorithm.variant(variant).ok()?))
}

/// The parhash engine for `variant`.
pub fn parhash_engine(variant: Variant) -> EngineRef {
    Arc::new(ParhashEngine { variant })
}

/// The name of the variant parhash uses by default for `algorithm`.
pub fn default_variant(algorithm: Algorithm) -> &'static str {
    algorithm.default_variant().name()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_mode_variants_run_on_the_one_thread_the_lab_counts() {
        for alg in [
            Algorithm::Parsha256,
            Algorithm::Sandstorm256,
            Algorithm::Blake3,
        ] {
            for variant in alg.available_variants() {
                assert_eq!(
                    one_thread(variant).threads_allowed(),
                    Threads::ONE,
                    "{variant}"
                );
            }
        }
    }
}
