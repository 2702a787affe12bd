//! parhash's implementation variants (`sha-ni`, `avx2`, `sequential`...) as engines, each
//! driven through the run-time [`Hasher`] forced onto that variant.

use std::sync::Arc;

use parhash::{Algorithm, Hasher, Variant};

use crate::engine::{Engine, EngineRef, Provider, StreamHasher};

/// A parhash variant, driven through the run-time [`Hasher`].
struct ParhashEngine {
    variant: Variant,
}

struct ParhashState {
    hasher: Hasher,
    /// The variant is what `parhash::hash` runs (the default one, on the same threads), so a
    /// whole message goes through that one-shot.
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
        if self.one_shot {
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
    fn provider(&self) -> Provider {
        Provider::Parhash
    }
    fn variant(&self) -> String {
        self.variant.to_string()
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        let algorithm = self.variant.algorithm();
        // `hash` runs the default variant; of the tree modes only BLAKE3's one-shot is known to
        // thread as a `Hasher` does (on all cores), so the others keep the streaming path.
        let one_shot = self.variant.name() == default_variant(algorithm)
            && (!Hasher::splits_over_threads(algorithm) || algorithm == Algorithm::Blake3);
        Box::new(ParhashState {
            hasher: Hasher::with_variant(self.variant),
            one_shot,
        })
    }
    fn bounded_memory(&self) -> bool {
        // The registry's PARSHA-256 keeps the whole message until `finalize` (it needs the
        // length first).
        self.variant.algorithm() != Algorithm::Parsha256
    }
}

/// The parhash engine for one variant, or `None` if it is unknown or unavailable on this CPU.
pub fn parhash_variant(algorithm: Algorithm, variant: &str) -> Option<EngineRef> {
    let variant = algorithm.variant(variant).ok()?;
    Some(Arc::new(ParhashEngine { variant }))
}

/// The name of the variant parhash uses by default for `algorithm`.
pub fn default_variant(algorithm: Algorithm) -> &'static str {
    algorithm
        .variants()
        .into_iter()
        .find(|v| v.default)
        .map(|v| v.name)
        .unwrap_or("portable")
}
