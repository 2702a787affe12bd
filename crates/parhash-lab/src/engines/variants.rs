//! parhash's implementation variants (`sha-ni`, `avx2`, `sequential`...) as engines, each
//! driven through the run-time [`Hasher`] forced onto that variant.

use std::sync::Arc;

use parhash::{Algorithm, Hasher};

use crate::engine::{Engine, EngineRef, Provider, StreamHasher};

/// A parhash variant, driven through the run-time [`Hasher`].
struct ParhashEngine {
    algorithm: Algorithm,
    variant: &'static str,
}

struct ParhashState(Hasher);

impl StreamHasher for ParhashState {
    fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }
    fn finish_reset(&mut self) -> u8 {
        self.0.finalize_reset().as_bytes()[0]
    }
}

impl Engine for ParhashEngine {
    fn algorithm(&self) -> String {
        self.algorithm.name().to_string()
    }
    fn provider(&self) -> Provider {
        Provider::Parhash
    }
    fn variant(&self) -> String {
        self.variant.to_string()
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        let hasher = Hasher::with_variant(self.algorithm, self.variant)
            .expect("engine built only for available variants");
        Box::new(ParhashState(hasher))
    }
    fn bounded_memory(&self) -> bool {
        // The registry's PARSHA-256 keeps the whole message until `finalize` (it needs the
        // length first).
        self.algorithm != Algorithm::Parsha256
    }
}

/// The parhash engine for one variant, or `None` if it is unknown or unavailable on this CPU.
pub fn parhash_variant(algorithm: Algorithm, variant: &str) -> Option<EngineRef> {
    let info = algorithm
        .variants()
        .into_iter()
        .find(|v| v.name == variant && v.available)?;
    Hasher::with_variant(algorithm, info.name).ok()?;
    Some(Arc::new(ParhashEngine {
        algorithm,
        variant: info.name,
    }))
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
