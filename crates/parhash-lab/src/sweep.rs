//! The design space: every axis of a sweep and its expansion into configurations.

use parhash::Algorithm;
use serde::{Deserialize, Serialize};

use crate::engine::{self, EngineRef, Provider};
use crate::engines;
use crate::error::UsageError;
use crate::source::Source;
use crate::tree_params::{base_variant, TreeParams};
use crate::units::SEED_LENGTHS;

/// Which implementations of each algorithm to measure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VariantChoice {
    /// The variant parhash picks by itself, plus the batch engine (SIMD lanes) where the sweep
    /// has multi-message configurations, plus the engines that take `--tree` parameters when
    /// sets are given.
    Default,
    /// Every variant available on this CPU, and every extra engine (tree, batch, GPU).
    All,
    /// These names (`default` allowed; a base name such as `tree` selects every parameter set;
    /// `openssl` and `rustcrypto` select those peers); names an algorithm lacks are reported
    /// and skipped.
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
    /// `--tree` parameter sets (PARSHA-256's `T=10,l=0`), one configuration of the engines
    /// that take them per set; empty for their defaults.
    pub tree: Vec<TreeParams>,
    /// Measure OpenSSL and RustCrypto beside each algorithm (single thread, from memory).
    pub peers: bool,
    /// Measure the `blake3` crate as the anchor (single thread, from memory).
    pub anchor: bool,
}

impl SweepSpec {
    /// The seed's lengths, single and 64 messages, memory, 1 thread and all threads, default
    /// variants, peers and anchor on.
    pub fn new(algorithms: Vec<Algorithm>) -> SweepSpec {
        let n = parhash::threads::available();
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

    /// `provider algorithm/variant`, as [`EngineRef`] labels name it.
    pub fn label(&self) -> String {
        engine::label(self.provider, &self.algorithm, &self.variant)
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

/// The engines a sweep measures, and notes: a name that matched nothing, `--tree` sets that
/// some engines ignore.
///
/// `--tree` sets go to the engines that take them (PARSHA-256's `tree` and `gpu`, added to the
/// default choice when sets are given). Engines without parameters (SANDstorm's `threads`,
/// `batch`) cannot refuse them without breaking sweeps that mix algorithms, so they run as
/// usual and a note names them; but sets that no engine of the sweep takes are an error, as
/// they would change nothing.
pub fn engines(spec: &SweepSpec) -> Result<(Vec<EngineRef>, Vec<String>), UsageError> {
    let mut out: Vec<EngineRef> = Vec::new();
    let mut notes = Vec::new();
    let mut ignoring_tree = Vec::new();
    for &alg in &spec.algorithms {
        let all = engines::parhash_engines_with_tree(alg, &spec.tree);
        let registry: Vec<&str> = alg.variants().iter().map(|v| v.name).collect();
        let before = out.len();
        match &spec.variants {
            VariantChoice::Default => {
                if let Some(e) = engines::find_parhash_engine(alg, "default") {
                    out.push(e);
                }
                // Multi-message configurations also run through the batch engine (SIMD lanes),
                // so that throughput against multiplicity shows the lanes.
                if spec.multiplicities.iter().any(|&m| m > 1) {
                    out.extend(
                        all.iter()
                            .filter(|e| e.variant() == engines::batch::BATCH)
                            .cloned(),
                    );
                }
                if !spec.tree.is_empty() {
                    out.extend(all.iter().filter(|e| e.takes_tree_params()).cloned());
                }
            }
            VariantChoice::All => out.extend(all.iter().cloned()),
            VariantChoice::Named(names) => {
                let peers = engines::peers(alg);
                for name in names {
                    let wanted = if name == "default" {
                        engines::default_variant(alg).to_string()
                    } else {
                        name.clone()
                    };
                    let ours: Vec<&EngineRef> = all
                        .iter()
                        .filter(|e| e.variant() == wanted || base_variant(&e.variant()) == wanted)
                        .collect();
                    let theirs: Vec<&EngineRef> = peers
                        .iter()
                        .filter(|p| p.provider().name() == wanted)
                        .collect();
                    if ours.is_empty() && theirs.is_empty() {
                        notes.push(format!(
                            "{alg} has no variant '{name}' on this machine (it has: {})",
                            all.iter()
                                .map(|e| e.variant())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ));
                    }
                    out.extend(ours.into_iter().chain(theirs).cloned());
                }
            }
        }
        ignoring_tree.extend(
            out[before..]
                .iter()
                .filter(|e| e.provider() == Provider::Parhash)
                .filter(|e| !e.takes_tree_params() && !registry.contains(&e.variant().as_str()))
                .map(|e| format!("{}/{}", e.algorithm(), e.variant())),
        );
        if spec.peers {
            out.extend(engines::peers(alg));
        }
    }
    if spec.anchor {
        out.push(engines::blake3_anchor());
    }
    let mut labels = std::collections::HashSet::new();
    out.retain(|e| labels.insert(e.label()));
    if !spec.tree.is_empty() {
        let sets = spec
            .tree
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("; ");
        if !out.iter().any(|e| e.takes_tree_params()) {
            return Err(UsageError(format!(
                "--tree {sets}: no engine of this sweep takes tree parameters (only parsha256's \
                 `tree` and `gpu` engines do: add -a parsha256, and `tree` to --variants if you \
                 name variants)"
            )));
        }
        if !ignoring_tree.is_empty() {
            notes.push(format!(
                "--tree {sets} applies to parsha256's tree engines only; these take no tree \
                 parameters and ran as usual: {}",
                ignoring_tree.join(", ")
            ));
        }
    }
    Ok((out, notes))
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
        let variants = |s: &SweepSpec| -> Vec<String> { labels(&engines(s).unwrap().0) };
        let with_mmh = variants(&s);
        let md5_batch = parhash::lab::batch::has_lanes(Algorithm::Md5);
        assert_eq!(
            with_mmh.contains(&"parhash md5/batch".to_string()),
            md5_batch
        );
        // Without lanes there is no batch engine: the default variant over threads is it.
        assert_eq!(
            with_mmh.iter().any(|l| l == "parhash whirlpool/batch"),
            parhash::lab::batch::has_lanes(Algorithm::Whirlpool)
        );
        s.multiplicities = vec![1];
        assert!(variants(&s).iter().all(|l| !l.ends_with("/batch")));
        // The batch engine is measured at every multiplicity (its curve starts at 1 message)
        // but never with more threads than messages.
        s.multiplicities = vec![1, 4, 16];
        s.threads = vec![1, 8];
        let (found, _) = engines(&s).unwrap();
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

    fn labels(engines: &[EngineRef]) -> Vec<String> {
        engines.iter().map(|e| e.label()).collect()
    }

    fn tree_spec(algorithms: Vec<Algorithm>, sets: &[&str]) -> SweepSpec {
        let mut s = SweepSpec::new(algorithms);
        s.peers = false;
        s.anchor = false;
        s.multiplicities = vec![1];
        s.tree =
            crate::tree_params::parse_sets(&sets.iter().map(|t| t.to_string()).collect::<Vec<_>>())
                .unwrap();
        s
    }

    #[test]
    fn each_tree_set_is_its_own_parsha_configuration() {
        let s = tree_spec(vec![Algorithm::Parsha256], &["T=5", "T=10,l=0"]);
        let (found, notes) = engines(&s).unwrap();
        let trees: Vec<&EngineRef> = found.iter().filter(|e| e.takes_tree_params()).collect();
        let cpu: Vec<String> = labels(&found)
            .into_iter()
            .filter(|l| l.contains("/tree"))
            .collect();
        assert_eq!(
            cpu,
            [
                "parhash parsha256/tree[T=5,l=256]",
                "parhash parsha256/tree[T=10,l=0]"
            ]
        );
        assert!(notes.is_empty(), "{notes:?}");
        // Each engine hashes with its own parameters (one message, and streamed).
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        for (engine, (t, l)) in trees.iter().zip([(5, 256), (10, 0)]) {
            let want = parhash::parsha256::parsha256(&data, t, l).unwrap().1[0];
            assert_eq!(engine.hash_batch(&[&data], 2), Some(want));
            let mut h = engine.hasher();
            h.update(&data[..100]);
            h.update(&data[100..]);
            assert_eq!(h.finish_reset(), want);
        }
        // The configurations differ by variant, so both are measured, and distinctly labelled.
        let metas: Vec<_> = found.iter().map(super::meta).collect();
        let configs = expand(&s, &metas);
        let variants: std::collections::BTreeSet<&str> =
            configs.iter().map(|(_, c)| c.variant.as_str()).collect();
        assert!(variants.contains("tree[T=5,l=256]") && variants.contains("tree[T=10,l=0]"));
        // `--variants tree` selects every set.
        let mut named = s.clone();
        named.variants = VariantChoice::Named(vec!["tree".into()]);
        assert_eq!(engines(&named).unwrap().0.len(), 2);
    }

    #[test]
    fn tree_sets_nothing_takes_are_an_error_and_mixed_sweeps_a_note() {
        // Only SANDstorm's `threads` and plain variants: the sets would change nothing.
        let mut s = tree_spec(vec![Algorithm::Sandstorm256], &["T=5"]);
        s.variants = VariantChoice::All;
        let Err(err) = engines(&s) else {
            panic!("tree sets that nothing takes were accepted")
        };
        let err = err.to_string();
        assert!(err.starts_with("--tree T=5,l=256: no engine"), "{err}");
        assert!(err.contains("-a parsha256"), "{err}");
        // PARSHA-256 with variants that take none: still an error.
        let mut s = tree_spec(vec![Algorithm::Parsha256], &["T=5"]);
        s.variants = VariantChoice::Named(vec!["default".into()]);
        assert!(engines(&s).is_err());
        // Mixed with engines that take none: they run, and a note names them.
        let mut s = tree_spec(
            vec![Algorithm::Parsha256, Algorithm::Sandstorm256],
            &["T=5"],
        );
        s.variants = VariantChoice::All;
        let (found, notes) = engines(&s).unwrap();
        assert!(labels(&found).contains(&"parhash sandstorm256/threads".to_string()));
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("sandstorm256/threads"), "{}", notes[0]);
        assert!(!notes[0].contains("sequential"), "{}", notes[0]);
    }

    #[test]
    fn peers_can_be_named_as_variants() {
        let mut s = SweepSpec::new(vec![Algorithm::Sha256]);
        s.peers = false;
        s.anchor = false;
        s.variants = VariantChoice::Named(vec!["batch".into(), "openssl".into()]);
        let (found, notes) = engines(&s).unwrap();
        assert!(notes.is_empty(), "{notes:?}");
        let providers: Vec<Provider> = found.iter().map(|e| e.provider()).collect();
        assert_eq!(providers, [Provider::Parhash, Provider::Openssl]);
    }

    #[test]
    fn unknown_variant_is_a_note_not_a_failure() {
        let mut s = SweepSpec::new(vec![Algorithm::Md5]);
        s.variants = VariantChoice::Named(vec!["default".into(), "warp-drive".into()]);
        s.peers = false;
        s.anchor = false;
        let (engines, notes) = engines(&s).unwrap();
        assert_eq!(engines.len(), 1);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("warp-drive"));
    }
}
