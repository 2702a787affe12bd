//! Every engine the lab measures, and where the rest of the lab finds them: parhash's own
//! variants ([`variants`]), the peers ([`mod@peers`], OpenSSL through `libcrypto.rs`, opened at
//! run time), and the extra engines listed in
//! [`EXTRA_ENGINES`]: the tree modes ([`tree`]: SANDstorm's `threads`, PARSHA-256's `tree`),
//! the multi-message engine ([`batch`]) and the GPU back-end ([`gpu`]).
//!
//! The engines build on the interface in [`crate::engine`] and on nothing above it (sweeps,
//! measurements, reports, presets); presets only choose which of them to run.

pub mod batch;
pub mod gpu;
mod libcrypto;
pub mod peers;
pub mod tree;
pub mod variants;

use parhash::Algorithm;

use crate::engine::EngineRef;
use crate::tree_params::TreeParams;

pub use peers::{blake3_anchor, peer_ids, peers};
pub use variants::{default_variant, parhash_engine, parhash_variant};

/// Builders of extra engines (tree modes, batch engines, GPU back-ends) for an algorithm: each
/// returns the engines it offers for that algorithm (none for most). Engines that take tree
/// parameters (PARSHA-256's) return one engine per `--tree` set in the second argument, named
/// after it (`tree[T=10,l=0]`, see [`crate::tree_params::labelled`]); an empty list means "your
/// defaults, under the plain name". Builders of engines without parameters ignore it (the sweep
/// tells the user: `sweep::engines`). Helpers add theirs here; `--variants` then
/// selects them by their variant name (or its base name, `tree`) like any other.
///
/// How to add one (a GPU back-end, say): implement [`Engine`](crate::engine::Engine) with a variant name of its own
/// (`gpu`), `Engine::hash_batch` hashing the whole batch on the device (host-to-device copy
/// included) and `Engine::on_accelerator` returning `true`; return it from a builder listed
/// here only when the device is present (an empty list otherwise, never a panic); and add a
/// host-to-device copy probe to `roofs::TRANSFER_PROBES` (which measures the roofs, above
/// the engines) so the transfer roof is
/// measured. The engine then appears in `--variants all`, `--variants gpu`, the presets that
/// sweep all variants (`parsha`, `accelerator`), the accelerator columns of the bottleneck
/// table, and the plots.
pub static EXTRA_ENGINES: &[EngineBuilder] = &[
    tree::sandstorm_thread_engines,
    batch::batch_engines,
    gpu::engines,
    tree::parsha_tree_engines,
];

/// Builds the extra engines of one algorithm for the given tree parameter sets.
pub type EngineBuilder = fn(Algorithm, &[TreeParams]) -> Vec<EngineRef>;

/// All engines parhash offers for `algorithm`: every available variant, then extra engines
/// with their default parameters.
pub fn parhash_engines(algorithm: Algorithm) -> Vec<EngineRef> {
    parhash_engines_with_tree(algorithm, &[])
}

/// Like [`parhash_engines`], handing `tree` parameter sets to the extra engines.
pub fn parhash_engines_with_tree(algorithm: Algorithm, tree: &[TreeParams]) -> Vec<EngineRef> {
    let mut out: Vec<EngineRef> = algorithm.available_variants().map(parhash_engine).collect();
    for extra in EXTRA_ENGINES {
        out.extend(extra(algorithm, tree));
    }
    out
}

/// Finds the engine of `algorithm` called `variant` (a variant or an extra engine's name); the
/// word `default` names the default variant.
pub fn find_parhash_engine(algorithm: Algorithm, variant: &str) -> Option<EngineRef> {
    let wanted = if variant == "default" {
        default_variant(algorithm)
    } else {
        variant
    };
    parhash_engines(algorithm)
        .into_iter()
        .find(|e| e.variant() == wanted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Engine;

    fn digest_byte(engine: &dyn Engine, data: &[u8]) -> u8 {
        let mut h = engine.hasher();
        h.update(data);
        h.finish_reset()
    }

    #[test]
    fn peers_agree_with_parhash() {
        let data: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        for &alg in Algorithm::ALL {
            let ours = parhash::hash(alg, &data).as_bytes()[0];
            for engine in peers(alg).into_iter().chain(parhash_engines(alg)) {
                assert_eq!(digest_byte(&*engine, &data), ours, "{}", engine.label());
                // The one-shot form of a whole message (`hash_message`), twice on one hasher.
                let mut h = engine.hasher();
                for round in 0..2 {
                    let got = h.hash_message(&data);
                    assert_eq!(got, ours, "{} one-shot, round {round}", engine.label());
                }
            }
        }
        // At a one-block length each one-shot pads on its own path (parhash's core one-shot).
        for alg in [
            Algorithm::Sha256,
            Algorithm::Sha1,
            Algorithm::Md5,
            Algorithm::Blake3,
        ] {
            let ours = parhash::hash(alg, &data[..64]).as_bytes()[0];
            for engine in peers(alg).into_iter().chain(parhash_engines(alg)) {
                let got = engine.hasher().hash_message(&data[..64]);
                assert_eq!(got, ours, "{} one-shot at 64 B", engine.label());
            }
        }
    }

    #[test]
    fn repeated_chunks_hash_as_the_whole_message() {
        let chunk: Vec<u8> = (0..1000u32).map(|i| (i % 251) as u8).collect();
        let whole: Vec<u8> = chunk.iter().cycle().take(2500).copied().collect();
        let algorithms = [
            Algorithm::Md5,
            Algorithm::Sha256,
            Algorithm::Sandstorm256,
            Algorithm::Parsha256,
        ];
        for alg in algorithms {
            let want = parhash::hash(alg, &whole).as_bytes()[0];
            for engine in parhash_engines(alg) {
                if engine.bounded_memory() {
                    for threads in [1, 2] {
                        let got = engine.hash_repeated(&chunk, 2500, threads);
                        assert_eq!(got, want, "{} on {threads}", engine.label());
                    }
                }
            }
        }
        // The registry's PARSHA-256 buffers the message: never streamed past the memory cap.
        let parsha = parhash_engines(Algorithm::Parsha256);
        assert!(parsha.iter().any(|e| !e.bounded_memory()));
    }

    #[test]
    fn hashers_reset_between_messages() {
        let anchor = blake3_anchor();
        let mut h = anchor.hasher();
        h.update(b"abc");
        let first = h.finish_reset();
        h.update(b"abc");
        assert_eq!(h.finish_reset(), first);
        assert_eq!(first, blake3::hash(b"abc").as_bytes()[0]);
    }

    #[test]
    fn blake2_blake3_and_shake_are_parhash_algorithms_and_blake3_keeps_its_peer() {
        for alg in [
            Algorithm::Blake2b,
            Algorithm::Blake2s,
            Algorithm::Blake3,
            Algorithm::Shake128,
            Algorithm::Shake256,
        ] {
            assert!(!parhash_engines(alg).is_empty(), "{alg}");
        }
        let peers = peers(Algorithm::Blake3);
        assert!(
            peers
                .iter()
                .any(|p| p.provider() == crate::engine::Provider::Blake3),
            "{:?}",
            peers.iter().map(|p| p.label()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn md5_has_both_peers() {
        let labels: Vec<String> = peers(Algorithm::Md5).iter().map(|p| p.label()).collect();
        assert!(
            labels.iter().any(|l| l.starts_with("openssl")),
            "{labels:?}"
        );
        assert!(
            labels.iter().any(|l| l.starts_with("rustcrypto")),
            "{labels:?}"
        );
    }
}
