//! The design space: every axis of a sweep and its expansion into configurations.

use parhash::Algorithm;
use serde::{Deserialize, Serialize};

use crate::engine::{self, EngineRef, Provider};
use crate::source::Source;
use crate::units::SEED_LENGTHS;

/// Which implementations of each algorithm to measure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantChoice {
    /// The variant parhash picks by itself, plus the batch engine (SIMD lanes) where the sweep
    /// has multi-message configurations.
    Default,
    /// Every variant available on this CPU, and every extra engine (tree, batch, GPU).
    All,
    /// These names (`default` allowed); names an algorithm lacks are reported and skipped.
    Named(Vec<String>),
}

impl VariantChoice {
    /// Parses `default`, `all` or a comma list of names.
    pub fn parse(text: &str) -> VariantChoice {
        match text.trim() {
            "default" => VariantChoice::Default,
            "all" => VariantChoice::All,
            list => VariantChoice::Named(
                list.split(',')
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect(),
            ),
        }
    }
}

/// Every axis of a sweep.
#[derive(Clone, Debug)]
pub struct SweepSpec {
    pub algorithms: Vec<Algorithm>,
    pub variants: VariantChoice,
    pub lengths: Vec<usize>,
    /// Messages per batch: 1 is single-message hashing (SMH), more is multi-message (MMH).
    pub multiplicities: Vec<usize>,
    pub sources: Vec<Source>,
    pub threads: Vec<usize>,
    /// Tree-mode parameter sets (`chunk=4KiB,fanout=4`), handed to the extra engines.
    pub tree: Vec<String>,
    /// Measure OpenSSL and RustCrypto beside each algorithm (single thread, from memory).
    pub peers: bool,
    /// Measure the `blake3` crate as the anchor (single thread, from memory).
    pub anchor: bool,
}

impl SweepSpec {
    /// The seed's lengths, single and 64 messages, memory, 1 thread and all threads, default
    /// variants, peers and anchor on.
    pub fn new(algorithms: Vec<Algorithm>) -> SweepSpec {
        let n = parhash::platform::available_threads();
        let mut threads = vec![1];
        if n > 1 {
            threads.push(n);
        }
        SweepSpec {
            algorithms,
            variants: VariantChoice::Default,
            lengths: SEED_LENGTHS.to_vec(),
            multiplicities: vec![1, 64],
            sources: vec![Source::Memory],
            threads,
            tree: Vec::new(),
            peers: true,
            anchor: true,
        }
    }
}

/// One point of the design space.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Config {
    pub algorithm: String,
    pub provider: Provider,
    pub variant: String,
    pub message_len: usize,
    pub messages: usize,
    pub source: Source,
    pub threads: usize,
}

impl Config {
    /// Bytes hashed per batch.
    pub fn batch_bytes(&self) -> usize {
        self.message_len.saturating_mul(self.messages)
    }
}

/// What the expansion needs to know about an engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineMeta {
    pub algorithm: String,
    pub provider: Provider,
    pub variant: String,
    pub splits_one_message: bool,
}

/// Expands the non-engine axes for the given engines. Rules:
/// - more threads than messages only for engines that split one message (tree modes);
/// - peers and the anchor only single-threaded from memory (they are reference points);
/// - duplicates removed, order kept (engine, source, messages, threads, length).
pub fn expand(spec: &SweepSpec, engines: &[EngineMeta]) -> Vec<(usize, Config)> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (index, e) in engines.iter().enumerate() {
        let reference_point = e.provider != Provider::Parhash;
        for &source in &spec.sources {
            if reference_point && source != Source::Memory {
                continue;
            }
            for &messages in &spec.multiplicities {
                for &threads in &spec.threads {
                    if threads == 0 || messages == 0 {
                        continue;
                    }
                    if reference_point && threads != 1 {
                        continue;
                    }
                    if threads > messages && !e.splits_one_message {
                        continue;
                    }
                    for &message_len in &spec.lengths {
                        let config = Config {
                            algorithm: e.algorithm.clone(),
                            provider: e.provider,
                            variant: e.variant.clone(),
                            message_len,
                            messages,
                            source,
                            threads,
                        };
                        if seen.insert(config.clone()) {
                            out.push((index, config));
                        }
                    }
                }
            }
        }
    }
    out
}

/// The engines a sweep measures, and a note for each name that matched nothing.
pub fn engines(spec: &SweepSpec) -> (Vec<EngineRef>, Vec<String>) {
    let mut out: Vec<EngineRef> = Vec::new();
    let mut notes = Vec::new();
    for &alg in &spec.algorithms {
        let all = engine::parhash_engines_with_tree(alg, &spec.tree);
        match &spec.variants {
            VariantChoice::Default => {
                if let Some(e) = engine::find_parhash_engine(alg, "default") {
                    out.push(e);
                }
                // Multi-message configurations also run through the batch engine (SIMD lanes),
                // so that throughput against multiplicity shows the lanes.
                if spec.multiplicities.iter().any(|&m| m > 1) {
                    out.extend(
                        all.iter()
                            .filter(|e| e.variant() == crate::batch_engine::BATCH)
                            .cloned(),
                    );
                }
            }
            VariantChoice::All => out.extend(all),
            VariantChoice::Named(names) => {
                for name in names {
                    let wanted = if name == "default" {
                        engine::default_variant(alg).to_string()
                    } else {
                        name.clone()
                    };
                    match all.iter().find(|e| e.variant() == wanted) {
                        Some(e) => out.push(e.clone()),
                        None => notes.push(format!(
                            "{alg} has no variant '{name}' on this machine (it has: {})",
                            all.iter()
                                .map(|e| e.variant())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                    }
                }
            }
        }
        if spec.peers {
            out.extend(engine::peers(alg));
        }
    }
    if spec.anchor {
        out.push(engine::blake3_anchor());
    }
    (out, notes)
}

/// The expansion's view of an engine.
pub fn meta(e: &EngineRef) -> EngineMeta {
    EngineMeta {
        algorithm: e.algorithm(),
        provider: e.provider(),
        variant: e.variant(),
        splits_one_message: e.splits_one_message(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(alg: &str, provider: Provider, variant: &str, splits: bool) -> EngineMeta {
        EngineMeta {
            algorithm: alg.into(),
            provider,
            variant: variant.into(),
            splits_one_message: splits,
        }
    }

    fn spec() -> SweepSpec {
        SweepSpec {
            algorithms: vec![],
            variants: VariantChoice::Default,
            lengths: vec![8, 4096],
            multiplicities: vec![1, 64],
            sources: vec![Source::Memory, Source::Disk],
            threads: vec![1, 4],
            tree: vec![],
            peers: true,
            anchor: false,
        }
    }

    #[test]
    fn expansion_counts_and_rules() {
        let engines = [
            meta("sha256", Provider::Parhash, "sha-ni", false),
            meta("sha256", Provider::Parhash, "tree", true),
            meta("sha256", Provider::Openssl, "OpenSSL 3", false),
        ];
        let configs = expand(&spec(), &engines);
        let count = |i: usize| configs.iter().filter(|(e, _)| *e == i).count();
        // Plain engine: 2 sources x (1 msg x 1 thread + 64 msgs x 2 threads) x 2 lengths.
        assert_eq!(count(0), 2 * 3 * 2);
        // Tree engine also runs one message on 4 threads.
        assert_eq!(count(1), 2 * 4 * 2);
        // Peer: memory, 1 thread, both multiplicities, both lengths.
        assert_eq!(count(2), 2 * 2);
        assert!(configs
            .iter()
            .all(|(_, c)| c.threads <= c.messages || engines[1].variant == c.variant));
    }

    #[test]
    fn expansion_removes_duplicates_and_zeroes() {
        let mut s = spec();
        s.lengths = vec![8, 8];
        s.threads = vec![0, 1, 1];
        s.sources = vec![Source::Memory];
        s.multiplicities = vec![1];
        let configs = expand(&s, &[meta("md5", Provider::Parhash, "portable", false)]);
        assert_eq!(configs.len(), 1);
        assert_eq!(configs[0].1.batch_bytes(), 8);
    }

    #[test]
    fn variant_choice_parses() {
        assert_eq!(VariantChoice::parse("all"), VariantChoice::All);
        assert_eq!(VariantChoice::parse("default"), VariantChoice::Default);
        assert_eq!(
            VariantChoice::parse("sequential, parallel"),
            VariantChoice::Named(vec!["sequential".into(), "parallel".into()])
        );
    }

    #[test]
    fn multi_message_sweeps_include_the_batch_engine() {
        let mut s = SweepSpec::new(vec![Algorithm::Md5, Algorithm::Whirlpool]);
        s.peers = false;
        s.anchor = false;
        let variants =
            |s: &SweepSpec| -> Vec<String> { engines(s).0.iter().map(|e| e.label()).collect() };
        let with_mmh = variants(&s);
        let md5_batch = parhash::batch::has_lanes(Algorithm::Md5);
        assert_eq!(
            with_mmh.contains(&"parhash md5/batch".to_string()),
            md5_batch
        );
        // Without lanes there is no batch engine: the default variant over threads is it.
        assert_eq!(
            with_mmh.iter().any(|l| l == "parhash whirlpool/batch"),
            parhash::batch::has_lanes(Algorithm::Whirlpool)
        );
        s.multiplicities = vec![1];
        assert!(variants(&s).iter().all(|l| !l.ends_with("/batch")));
        // The batch engine is measured at every multiplicity (its curve starts at 1 message)
        // but never with more threads than messages.
        s.multiplicities = vec![1, 4, 16];
        s.threads = vec![1, 8];
        let (found, _) = engines(&s);
        let metas: Vec<_> = found.iter().map(super::meta).collect();
        let batch: Vec<Config> = expand(&s, &metas)
            .into_iter()
            .map(|(_, c)| c)
            .filter(|c| c.variant == "batch")
            .collect();
        if md5_batch {
            assert_eq!(batch.len(), (1 + 1 + 2) * s.lengths.len());
            assert!(batch.iter().all(|c| c.threads <= c.messages));
        }
    }

    #[test]
    fn unknown_variant_is_a_note_not_a_failure() {
        let mut s = SweepSpec::new(vec![Algorithm::Md5]);
        s.variants = VariantChoice::Named(vec!["default".into(), "warp-drive".into()]);
        s.peers = false;
        s.anchor = false;
        let (engines, notes) = engines(&s);
        assert_eq!(engines.len(), 1);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("warp-drive"));
    }
}
