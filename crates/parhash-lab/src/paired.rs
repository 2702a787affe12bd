//! Interleaved (paired) measurement of parhash against its peers.
//!
//! A sweep times each cell on its own, one after the other: parhash's cell and a peer's cell of
//! the same work are measured seconds apart, and on a shared or throttling machine the load and
//! the clock change in between (±30 % between runs on a noisy 2-core VM). A ratio of two such
//! cells cannot answer a 5 % question. So after the sweep, for each piece of work a peer was
//! measured on (the `compare` module), the lab samples parhash's forms whose best sample in
//! the sweep was within [`CONTENDERS_WITHIN`] of the best form's (at most [`MAX_CONTENDERS`]:
//! two forms a few per cent apart swap places from one sweep to the next, and a burst of load
//! can move one cell's median by half) and every peer of that work
//! **alternately in one process**: a warm-up and calibration of each, then `rounds` rounds of
//! one short sample each (parhash, peer 1, peer 2, parhash, ...; about 1 ms per sample,
//! [`crate::measure::work_rounds`]). The comparison then takes the parhash form whose paired
//! ratio against the best peer is highest (`compare`). Each round gives one ratio
//! per peer (peer time / parhash time of adjacent samples, above 1: parhash faster), and the
//! comparison reports the **median of the per-round ratios**, with their interquartile range
//! and extremes ([`RatioSpread`]). A change of load or clock lands on both sides of a round
//! alike and cancels in its ratio; the median discards the rounds an interruption hit.
//!
//! What is paired ([`pairable`]): work from memory on one thread whose batch is at most
//! [`PAIRED_MAX_BATCH`] (1 MiB): every one-message cell of the tour (8 B to 256 KiB) and the
//! peers' short batches. File sources, cold reads, several threads and longer batches keep the
//! ratio of the separately timed cells: their samples are long enough to be stable, or pairing
//! them would cost more than the rest of the run. The pass runs within a share of the budget
//! ([`PairPlan::max_share`], 25 %), shortest work first, with fewer rounds where all of them
//! would not fit ([`rounds_that_fit`], at least [`PairPlan::MIN_ROUNDS`]); what it has no time
//! for keeps the old ratio.
//!
//! The results are kept in the report (`Report::paired`); the peers table, the headline table,
//! the verdict and the ratio chart read them through `PeerComparison::ratio` (in `compare`)
//! wherever one was measured.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::engine::{Engine, Provider};
use crate::measure::{self, Measurement};
use crate::source::{fill_pattern, Source};
use crate::timer::Stats;

/// parhash forms whose best sample in the sweep is within this factor of the best form's are
/// paired too.
pub const CONTENDERS_WITHIN: f64 = 1.25;

/// The most parhash forms paired on one piece of work.
pub const MAX_CONTENDERS: usize = 3;

/// The largest batch (messages × length) paired: hashing it a few times fits in one ~1 ms
/// sample at ordinary speeds, and its data is cheap to hold.
pub const PAIRED_MAX_BATCH: usize = 1 << 20;

/// How the paired pass samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairPlan {
    /// Rounds per piece of work (0: no paired pass).
    pub rounds: usize,
    /// A sample repeats the work until it lasts this long.
    pub min_sample: Duration,
    /// The pass stops (leaving the rest unpaired, with a note) once it has taken this share of
    /// the run's budget.
    pub max_share: f64,
}

impl PairPlan {
    /// The default rounds of a normal run (`--paired-rounds`).
    pub const ROUNDS: usize = 21;
    /// The default rounds of a `--tiny` run.
    pub const TINY_ROUNDS: usize = 5;
    /// The fewest rounds the pass shrinks to when the requested ones do not fit its share of
    /// the budget ([`rounds_that_fit`]).
    pub const MIN_ROUNDS: usize = 7;

    /// The share of the budget the pass may take: 10 s of the tour's 40 s. (15 % paired 117
    /// of the tour's 121 comparisons before each sample waited [`crate::measure::SETTLE`]
    /// after the other side's, 81 after: a sample now takes about 3 ms, not 1.)
    pub const MAX_SHARE: f64 = 0.25;

    /// `rounds` rounds of 1 ms samples, within [`PairPlan::MAX_SHARE`] of the budget.
    pub fn normal(rounds: usize) -> PairPlan {
        PairPlan {
            rounds,
            min_sample: Duration::from_millis(1),
            max_share: Self::MAX_SHARE,
        }
    }

    /// Seconds-scale CI runs: 50 us samples.
    pub fn tiny(rounds: usize) -> PairPlan {
        PairPlan {
            rounds,
            min_sample: Duration::from_micros(50),
            max_share: Self::MAX_SHARE,
        }
    }
}

/// The rounds to give the next piece of work so that the pass fits in `left` seconds: with
/// `per_sample` seconds per sample of one engine (what the pass has taken so far) and
/// `engines_left` engines in the work still to pair (this one included), the plan's rounds, or
/// fewer down to [`PairPlan::MIN_ROUNDS`] (or the plan's rounds, if fewer).
pub fn rounds_that_fit(plan: &PairPlan, left: f64, per_sample: f64, engines_left: usize) -> usize {
    let fit = left / (per_sample.max(1e-9) * engines_left.max(1) as f64);
    let fit = if fit.is_finite() {
        fit as usize
    } else {
        usize::MAX
    };
    fit.clamp(plan.rounds.min(PairPlan::MIN_ROUNDS), plan.rounds)
}

/// The spread of per-round ratios: their median (the figure reported), quartiles and extremes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RatioSpread {
    pub median: f64,
    /// First and third quartile (linear interpolation between order statistics).
    pub q1: f64,
    pub q3: f64,
    pub min: f64,
    pub max: f64,
    /// Rounds the ratios come from.
    pub rounds: usize,
}

/// The `p` quantile (0 to 1) of sorted `s`, interpolating linearly between neighbours.
fn quantile(s: &[f64], p: f64) -> f64 {
    let h = (s.len() - 1) as f64 * p;
    let (lo, hi) = (h.floor() as usize, h.ceil() as usize);
    s[lo] + (s[hi] - s[lo]) * (h - lo as f64)
}

/// The ratios `peer[i] / parhash[i]` of each round `i` (times of adjacent samples), summarised:
/// above 1, parhash was faster. Rounds past the shorter slice are ignored.
pub fn ratio_spread(parhash: &[f64], peer: &[f64]) -> RatioSpread {
    let mut ratios: Vec<f64> = parhash
        .iter()
        .zip(peer)
        .filter(|(a, _)| **a > 0.0)
        .map(|(a, b)| b / a)
        .collect();
    if ratios.is_empty() {
        return RatioSpread::default();
    }
    ratios.sort_by(f64::total_cmp);
    let stats = Stats::of(&ratios);
    RatioSpread {
        median: stats.median,
        q1: quantile(&ratios, 0.25),
        q3: quantile(&ratios, 0.75),
        min: stats.min,
        max: stats.max,
        rounds: ratios.len(),
    }
}

/// One paired comparison: parhash's form and one peer on one piece of work.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairedRatio {
    pub algorithm: String,
    pub message_len: usize,
    pub messages: usize,
    pub threads: usize,
    pub source: Source,
    /// The parhash form paired (one of the sweep's fastest on this work).
    pub parhash_variant: String,
    pub peer: Provider,
    pub peer_variant: String,
    /// Peer time over parhash time, per round.
    pub ratio: RatioSpread,
}

impl PairedRatio {
    /// Whether this pairs exactly `parhash` and `peer` (a peer of the same work, see
    /// `compare`): the work, parhash's form and the peer.
    pub fn pairs(&self, parhash: &Measurement, peer: &Measurement) -> bool {
        let work = (
            self.algorithm.as_str(),
            self.message_len,
            self.messages,
            self.threads,
            self.source,
        );
        work == parhash.work()
            && self.parhash_variant == parhash.variant
            && (self.peer, self.peer_variant.as_str()) == (peer.provider, peer.variant.as_str())
    }
}

/// parhash's forms worth pairing on the work of `form`: those whose best sample in the sweep is
/// within [`CONTENDERS_WITHIN`] of the best form's, best first, at most [`MAX_CONTENDERS`]. By
/// the best sample, not the median: a burst of load that moved one cell's median must not keep
/// its form out.
pub fn contenders<'a>(measurements: &'a [Measurement], form: &Measurement) -> Vec<&'a Measurement> {
    let mut forms: Vec<&Measurement> = measurements
        .iter()
        .filter(|m| m.provider == Provider::Parhash && m.work() == form.work())
        .collect();
    forms.sort_by(|a, b| a.ns_per_byte_min.total_cmp(&b.ns_per_byte_min));
    let Some(best) = forms.first().map(|m| m.ns_per_byte_min) else {
        return forms;
    };
    forms.retain(|m| m.ns_per_byte_min <= best * CONTENDERS_WITHIN);
    forms.truncate(MAX_CONTENDERS);
    forms
}

/// Whether the work of `m` is paired (see the module docs): from memory, one thread, a batch of
/// at most [`PAIRED_MAX_BATCH`].
pub fn pairable(m: &Measurement) -> bool {
    m.source == Source::Memory
        && m.threads == 1
        && m.message_len.saturating_mul(m.messages.max(1)) <= PAIRED_MAX_BATCH
}

/// One call of `engine` on the batch `messages`, as the sweep drives it from memory on one
/// thread: engines that take a batch get it whole, the others hash message after message with
/// one reused state through its one-shot ([`crate::engine::StreamHasher::hash_message`]).
fn batch_work<'a>(engine: &'a dyn Engine, messages: &'a [&'a [u8]]) -> Box<dyn FnMut() -> u8 + 'a> {
    if engine.hash_batch(&[&[]], 1).is_some() {
        Box::new(move || engine.hash_batch(messages, 1).unwrap_or(0))
    } else {
        let mut hasher = engine.hasher();
        Box::new(move || {
            messages
                .iter()
                .fold(0u8, |c, m| c.wrapping_add(hasher.hash_message(m)))
        })
    }
}

/// Samples the `parhash` forms and each of `peers` alternately on `messages` messages of `len`
/// bytes from memory, one thread ([`measure::work_rounds`]), and returns, for each parhash
/// form in the order of `parhash`, each peer's per-round ratio against it in the order of
/// `peers`.
pub fn measure_pair(
    parhash: &[&dyn Engine],
    peers: &[&dyn Engine],
    len: usize,
    messages: usize,
    plan: &PairPlan,
) -> Vec<Vec<RatioSpread>> {
    let messages = messages.max(1);
    let mut data = vec![0u8; len * messages];
    fill_pattern(&mut data);
    let batch: Vec<&[u8]> = if len == 0 {
        vec![&[]; messages]
    } else {
        data.chunks(len).collect()
    };
    let mut works: Vec<Box<dyn FnMut() -> u8 + '_>> = parhash
        .iter()
        .chain(peers)
        .copied()
        .map(|e| batch_work(e, &batch))
        .collect();
    let mut refs: Vec<&mut dyn FnMut() -> u8> = works.iter_mut().map(|w| &mut **w as _).collect();
    let rounds = measure::work_rounds(&mut refs, plan.rounds.max(1), plan.min_sample);
    let (ours, theirs) = rounds.split_at(parhash.len());
    ours.iter()
        .map(|form| {
            theirs
                .iter()
                .map(|peer| ratio_spread(&form.ns, &peer.ns))
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::StreamHasher;
    use std::sync::{Arc, Mutex};

    #[test]
    fn median_of_ratios_and_quartiles() {
        // Per round: 2/1, 3/1, 1/1, 8/2, 5/1 -> ratios 2, 3, 1, 4, 5.
        let s = ratio_spread(&[1.0, 1.0, 1.0, 2.0, 1.0], &[2.0, 3.0, 1.0, 8.0, 5.0]);
        assert_eq!(s.rounds, 5);
        assert_eq!(s.median, 3.0);
        assert_eq!((s.q1, s.q3), (2.0, 4.0));
        assert_eq!((s.min, s.max), (1.0, 5.0));
        // Not the ratio of the medians (2/1 here): one slow parhash round moves nothing.
        let s = ratio_spread(&[1.0, 1.0, 10.0, 1.0], &[1.1, 1.2, 1.3, 1.0]);
        assert!((s.median - 1.05).abs() < 1e-12, "{s:?}");
        assert!((s.q1 - 0.7825).abs() < 1e-12 && (s.q3 - 1.125).abs() < 1e-12);
        assert!((s.min - 0.13).abs() < 1e-12 && s.max == 1.2);
        // Nothing to divide by: no ratio.
        assert_eq!(ratio_spread(&[], &[1.0]).rounds, 0);
        assert_eq!(ratio_spread(&[0.0], &[1.0]).rounds, 0);
    }

    /// An engine that logs its name at every message it hashes.
    struct Recorder {
        name: char,
        log: Arc<Mutex<Vec<char>>>,
    }

    struct RecorderHasher(char, Arc<Mutex<Vec<char>>>);

    impl StreamHasher for RecorderHasher {
        fn update(&mut self, _data: &[u8]) {}
        fn finish_reset(&mut self) -> u8 {
            self.1.lock().unwrap().push(self.0);
            0
        }
    }

    impl Engine for Recorder {
        fn algorithm(&self) -> String {
            "md5".into()
        }
        fn variant(&self) -> String {
            self.name.to_string()
        }
        fn hasher(&self) -> Box<dyn StreamHasher> {
            Box::new(RecorderHasher(self.name, self.log.clone()))
        }
    }

    #[test]
    fn pairing_alternates_parhash_and_each_peer_round_by_round() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let engine = |name| Recorder {
            name,
            log: log.clone(),
        };
        let (a, b, c) = (engine('a'), engine('b'), engine('c'));
        let plan = PairPlan::tiny(6);
        let spreads = measure_pair(&[&a], &[&b, &c], 64, 1, &plan);
        assert_eq!((spreads.len(), spreads[0].len()), (1, 2));
        assert!(spreads[0].iter().all(|s| s.rounds == 6));
        // Runs of one engine's calls: a warm-up each, then six rounds of a, b, c in turn.
        let mut runs: Vec<char> = log.lock().unwrap().clone();
        runs.dedup();
        assert_eq!(runs.iter().collect::<String>(), "abc".repeat(1 + 6));
        // Two parhash forms: both in every round, each with a ratio against each peer.
        log.lock().unwrap().clear();
        let d = engine('d');
        let spreads = measure_pair(&[&a, &d], &[&b, &c], 64, 1, &plan);
        assert_eq!((spreads.len(), spreads[1].len()), (2, 2));
        assert!(spreads.iter().flatten().all(|s| s.rounds == 6));
        let mut runs: Vec<char> = log.lock().unwrap().clone();
        runs.dedup();
        assert_eq!(runs.iter().collect::<String>(), "adbc".repeat(1 + 6));
    }

    #[test]
    fn identical_engines_pair_near_one() {
        // Not a timing test: the bound is loose, only a broken pairing misses it.
        let md5 = crate::engines::parhash_variant(parhash::Algorithm::Md5, "sequential").unwrap();
        let twin = crate::engines::parhash_variant(parhash::Algorithm::Md5, "sequential").unwrap();
        let plan = PairPlan {
            rounds: 9,
            min_sample: Duration::from_micros(200),
            max_share: 1.0,
        };
        let s = measure_pair(&[&*md5], &[&*twin], 64, 1, &plan)[0][0];
        assert_eq!(s.rounds, 9);
        assert!(s.median > 0.5 && s.median < 2.0, "{s:?}");
        assert!(s.min <= s.q1 && s.q1 <= s.median && s.median <= s.q3 && s.q3 <= s.max);
        // A batch engine is fed the batch whole.
        let batch = crate::engines::batch::batch_engines(parhash::Algorithm::Md5, &[])[0].clone();
        let s = measure_pair(&[&*batch], &[&*md5], 64, 4, &plan)[0][0];
        assert!(s.median > 0.0, "{s:?}");
    }

    /// A one-thread measurement from memory of `messages` messages of `len` bytes.
    fn measured(len: usize, messages: usize) -> Measurement {
        crate::compare::tests::measured("parhash md5/sequential", len, messages, 1.0)
    }

    #[test]
    fn contenders_are_the_forms_whose_best_sample_is_near_the_best() {
        let form = |variant: &str, median: f64, best: f64| Measurement {
            variant: variant.into(),
            ns_per_byte: median,
            ns_per_byte_min: best,
            ..measured(4096, 1)
        };
        let mut peer = form("md5", 0.8, 0.7);
        peer.provider = Provider::Rustcrypto;
        let ms = vec![
            // A burst moved sha-ni's median to 1.55 ns/B; its best sample was 0.94.
            form("batch", 1.01, 0.91),
            form("sha-ni", 1.55, 0.94),
            form("sequential", 3.0, 2.9),
            peer,
            Measurement {
                message_len: 64,
                ..form("sha-ni", 0.9, 0.9)
            },
        ];
        let names = |forms: Vec<&Measurement>| -> Vec<String> {
            forms.iter().map(|m| m.variant.clone()).collect()
        };
        assert_eq!(names(contenders(&ms, &ms[0])), ["batch", "sha-ni"]);
        assert_eq!(names(contenders(&ms, &ms[4])), ["sha-ni"]);
        // At most MAX_CONTENDERS, the best first.
        let many: Vec<Measurement> = (0..5)
            .map(|i| form(&format!("f{i}"), 1.0, 1.0 + i as f64 / 100.0))
            .collect();
        assert_eq!(names(contenders(&many, &many[4])), ["f0", "f1", "f2"]);
    }

    #[test]
    fn rounds_shrink_to_fit_the_share_left() {
        let plan = PairPlan::normal(21);
        // 10 engines left at 1 ms a sample: 21 rounds need 0.21 s.
        assert_eq!(rounds_that_fit(&plan, 1.0, 1e-3, 10), 21);
        assert_eq!(rounds_that_fit(&plan, 0.1, 1e-3, 10), 10);
        assert_eq!(rounds_that_fit(&plan, 0.01, 1e-3, 10), PairPlan::MIN_ROUNDS);
        assert_eq!(rounds_that_fit(&PairPlan::tiny(3), 0.0, 1e-3, 10), 3);
        assert_eq!(rounds_that_fit(&plan, 1.0, 0.0, 0), 21);
    }

    #[test]
    fn only_short_memory_one_thread_work_is_paired() {
        let m = measured(64, 1);
        assert!(pairable(&m));
        assert!(pairable(&measured(4096, 64)));
        assert!(!pairable(&measured(4 << 20, 1)));
        let mut disk = m.clone();
        disk.source = Source::Disk;
        assert!(!pairable(&disk));
        let mut two = m;
        two.threads = 2;
        assert!(!pairable(&two));
    }
}
