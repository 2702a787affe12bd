//! The pipeline of a sweep: machine and roofs, in-cache compute rates, every configuration
//! timed within the budget (with a progress bar), then speed-ups, bottlenecks and the summary.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::classify::{self, Bottleneck, Classified, ClassifyInput, ScalingFacts};
use crate::engine::{EngineRef, Provider};
use crate::error::UsageError;
use crate::measure::{self, DataLimits, DataPlan, Measurement, SamplePlan};
use crate::paired::{self, PairPlan, PairedRatio};
use crate::report::{Machine, Report};
use crate::roofs::{self, RoofPlan};
use crate::source::Source;
use crate::sweep::{self, Config, SweepSpec};

/// How a run is carried out (the same for every preset).
#[derive(Clone, Debug)]
pub struct LabOptions {
    /// Where the report files go.
    pub out_dir: PathBuf,
    /// Seconds-scale run for CI: tiny sizes, few samples, roofs not meaningful.
    pub tiny: bool,
    /// Total time the measurements may take (roofs and probes come on top, a few seconds).
    pub budget: Duration,
    /// Whether the user chose the budget (`--budget`); presets that need longer than the
    /// default raise it only when not.
    pub budget_given: bool,
    /// How much memory one configuration's data may take (see [`measure::plan_data`]).
    pub data_limits: DataLimits,
    /// Show a progress bar (on a terminal).
    pub progress: bool,
    /// The variant or provider (`sequential`, `openssl`...) speed-ups are computed against.
    pub baseline: Option<String>,
    /// The command line, recorded in the report.
    pub command: String,
    /// Rounds of the paired pass (`--paired-rounds`; 0: none; `None`: the mode's default,
    /// see [`LabOptions::pair_plan`]).
    pub paired_rounds: Option<usize>,
}

impl LabOptions {
    /// Defaults: `./parhash-report`, 40 s (the quick tour then ends within a minute), progress
    /// bar, no baseline, data up to a quarter of the available memory.
    pub fn new() -> LabOptions {
        LabOptions {
            out_dir: PathBuf::from("parhash-report"),
            tiny: false,
            budget: Duration::from_secs(40),
            budget_given: false,
            data_limits: DataLimits::for_this_machine(),
            progress: true,
            baseline: None,
            command: "parhash bench".into(),
            paired_rounds: None,
        }
    }

    /// The budget a preset runs with: the user's, else `default` (tiny runs keep theirs).
    pub fn budget_or(&self, default: Duration) -> Duration {
        if self.budget_given || self.tiny {
            self.budget
        } else {
            default
        }
    }

    /// The sample plan for this mode.
    pub fn sample_plan(&self) -> SamplePlan {
        if self.tiny {
            SamplePlan::tiny()
        } else {
            SamplePlan::normal()
        }
    }

    /// How parhash and its peers are sampled alternately after the sweep ([`crate::paired`]):
    /// 21 rounds of 1 ms samples, 5 of 50 us in tiny runs, unless `paired_rounds` says.
    pub fn pair_plan(&self) -> PairPlan {
        if self.tiny {
            PairPlan::tiny(self.paired_rounds.unwrap_or(PairPlan::TINY_ROUNDS))
        } else {
            PairPlan::normal(self.paired_rounds.unwrap_or(PairPlan::ROUNDS))
        }
    }

    /// Where scratch files go (inside the output folder, so on a real disk).
    pub fn scratch(&self) -> PathBuf {
        self.out_dir.join(".scratch")
    }

    /// A progress bar for `n` steps (hidden when disabled).
    pub fn progress_bar(&self, n: usize) -> ProgressBar {
        if !self.progress {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new(n as u64);
        bar.set_style(
            ProgressStyle::with_template(
                "{bar:40.cyan/blue} {pos}/{len} {elapsed}/{duration} {msg}",
            )
            .expect("template")
            .progress_chars("=> "),
        );
        bar
    }
}

impl Default for LabOptions {
    fn default() -> Self {
        Self::new()
    }
}

/// The names `--baseline` may take for a run measuring `engines`: parhash's variants and the
/// peers' providers, sorted.
pub fn baseline_names(engines: &[EngineRef]) -> Vec<String> {
    let mut names: Vec<String> = engines
        .iter()
        .map(|e| match e.provider() {
            Provider::Parhash => e.variant(),
            peer => peer.name().to_string(),
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Checks `--baseline` against what a run measures: an unknown name is a usage error listing
/// the valid ones (the engines are known before anything is measured).
pub fn check_baseline(baseline: Option<&str>, engines: &[EngineRef]) -> Result<(), UsageError> {
    let Some(base) = baseline else {
        return Ok(());
    };
    let names = baseline_names(engines);
    if names.iter().any(|n| n == base) {
        Ok(())
    } else {
        Err(UsageError(format!(
            "unknown --baseline '{base}' (valid in this run: {})",
            names.join(", ")
        )))
    }
}

/// A lower bound of the seconds one batch of `config` takes, from the engine's in-cache
/// single-thread `rate` (bytes per second) spread over the threads that can work on it.
pub fn predicted_batch_seconds(config: &Config, rate: f64, splits: bool, cores: usize) -> f64 {
    let parallel = if splits {
        config.threads
    } else {
        config.threads.min(config.messages)
    };
    let effective = parallel.clamp(1, cores.max(1)) as f64;
    config.batch_bytes() as f64 / (rate * effective).max(1.0)
}

/// A configuration whose one batch is predicted to take longer than this, and than all of the
/// budget left, is skipped (with a note): one such batch would overrun the whole run.
const LONGEST_UNBUDGETED_BATCH: Duration = Duration::from_secs(1);

/// The machine description, with the TSC measured briefly.
pub fn machine(opts: &LabOptions) -> Machine {
    Machine::detect(if opts.tiny {
        Duration::from_millis(5)
    } else {
        Duration::from_millis(100)
    })
}

/// Runs a sweep and returns its report (files are written by `output`).
pub fn run_sweep(title: &str, spec: &SweepSpec, opts: &LabOptions) -> std::io::Result<Report> {
    run_sweeps(title, std::slice::from_ref(spec), opts)
}

/// Runs the union of several sweeps (a preset's pieces) as one run with one budget and one set
/// of roofs. Errors of kind `InvalidInput` holding a [`UsageError`] come before anything is
/// measured.
pub fn run_sweeps(title: &str, specs: &[SweepSpec], opts: &LabOptions) -> std::io::Result<Report> {
    let started = Instant::now();
    let mut notes: Vec<String> = Vec::new();
    let mut engines: Vec<EngineRef> = Vec::new();
    let mut configs: Vec<(usize, Config)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for spec in specs {
        let (found, found_notes) = sweep::engines(spec)?;
        for n in found_notes {
            if !notes.contains(&n) {
                notes.push(n);
            }
        }
        let metas: Vec<_> = found.iter().map(sweep::meta).collect();
        for (i, config) in sweep::expand(spec, &metas) {
            if seen.insert(config.clone()) {
                let label = found[i].label();
                let index = match engines.iter().position(|e| e.label() == label) {
                    Some(p) => p,
                    None => {
                        engines.push(found[i].clone());
                        engines.len() - 1
                    }
                };
                configs.push((index, config));
            }
        }
    }
    check_baseline(opts.baseline.as_deref(), &engines)?;
    let mut report = Report::new(title, &opts.command, machine(opts));
    report.notes = notes;
    if specs
        .iter()
        .any(|s| s.multiplicities.contains(&1) && s.threads.iter().any(|&t| t > 1))
    {
        report.notes.push(
            "one message on several threads is measured only for engines that split a message \
             (tree modes such as sandstorm's `threads`); the others run multi-threaded on \
             multi-message batches only"
                .into(),
        );
    }
    if configs.is_empty() {
        report
            .notes
            .push("the sweep expanded to no configuration".into());
        return Ok(report);
    }
    let max_threads = specs
        .iter()
        .flat_map(|s| s.threads.iter().copied())
        .max()
        .unwrap_or(1)
        .max(report.machine.threads);
    let roof_plan = if opts.tiny {
        RoofPlan::tiny(max_threads)
    } else {
        RoofPlan::normal(max_threads)
    };
    let scratch = opts.scratch();
    report.roofs = Some(roofs::measure(&roof_plan, &scratch)?);
    let plan = opts.sample_plan();
    let mut rates = HashMap::new();
    for e in &engines {
        let rate = measure::compute_rate(&**e, &plan);
        report.compute_rates.push((e.label(), rate));
        rates.insert(e.label(), rate);
    }

    let bar = opts.progress_bar(configs.len());
    for (i, (engine_index, config)) in configs.iter().enumerate() {
        let engine: &EngineRef = &engines[*engine_index];
        bar.set_message(format!(
            "{} {} x{} {} {}t",
            engine.label(),
            crate::units::format_size(config.message_len),
            config.messages,
            config.source.name(),
            config.threads
        ));
        bar.inc(1);
        let data = measure::plan_data(
            config,
            engine.bounded_memory_for(config.message_len as u64),
            &opts.data_limits,
        );
        if let DataPlan::Skip(why) = data {
            report.notes.push(why);
            continue;
        }
        let left = opts.budget.saturating_sub(started.elapsed());
        let rate = rates.get(&engine.label()).copied().unwrap_or(f64::INFINITY);
        let predicted = predicted_batch_seconds(
            config,
            rate,
            engine.splits_one_message(),
            report.machine.threads,
        );
        if predicted > LONGEST_UNBUDGETED_BATCH.as_secs_f64() && predicted > left.as_secs_f64() {
            report.notes.push(format!(
                "skipped {} {} x{} on {} thread(s): one batch would take at least {:.0} s, \
                 more than the {:.0} s left of the budget (raise --budget)",
                config.label(),
                crate::units::format_size(config.message_len),
                config.messages,
                config.threads,
                predicted,
                left.as_secs_f64()
            ));
            continue;
        }
        let slice = left / (configs.len() - i) as u32;
        let m = measure::measure(
            &**engine,
            config,
            &data,
            &plan,
            slice,
            &scratch,
            report.machine.tsc_hz,
        )?;
        report.measurements.push(m);
    }
    bar.finish_and_clear();
    let _ = std::fs::remove_dir_all(&scratch);
    pair_peers(&mut report, &engines, &opts.pair_plan(), opts.budget);

    derive(&mut report, &engines, opts.baseline.as_deref());
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// The paired pass ([`crate::paired`]): for each comparison the sweep measured whose work is
/// [`paired::pairable`], shortest first, samples parhash's contending forms (those whose best
/// sample was within [`paired::CONTENDERS_WITHIN`] of the best form's) and each peer of that work
/// alternately and records their ratios in `report.paired`; within `plan.max_share` of
/// `budget`: the rounds shrink (down to [`PairPlan::MIN_ROUNDS`]) where all of them would not
/// fit, and what is left when the share is spent keeps the ratios of its cells (with a note).
pub fn pair_peers(report: &mut Report, engines: &[EngineRef], plan: &PairPlan, budget: Duration) {
    if plan.rounds == 0 {
        return;
    }
    let by_label: HashMap<String, &EngineRef> = engines.iter().map(|e| (e.label(), e)).collect();
    let engine = |m: &Measurement| by_label.get(&m.label()).map(|e| &***e);
    // parhash's contending engines and measurements, fastest first, and its peers', for each
    // pairable comparison.
    type Side<'e> = (&'e dyn crate::engine::Engine, Measurement);
    let mut jobs: Vec<(Vec<Side>, Vec<Side>)> = report
        .peer_comparisons()
        .into_iter()
        .filter(|c| paired::pairable(c.parhash))
        .filter_map(|c| {
            let ours: Vec<Side> = paired::contenders(&report.measurements, c.parhash)
                .into_iter()
                .filter_map(|m| Some((engine(m)?, m.clone())))
                .collect();
            let theirs: Vec<Side> = c
                .peers
                .iter()
                .filter_map(|p| Some((engine(p)?, (*p).clone())))
                .collect();
            (!ours.is_empty() && !theirs.is_empty()).then_some((ours, theirs))
        })
        .collect();
    jobs.sort_by_key(|(ours, _)| ours[0].1.message_len * ours[0].1.messages);
    let started = Instant::now();
    let limit = budget.mul_f64(plan.max_share).as_secs_f64();
    // Seconds per sample of one engine, warm-up, calibration and the settle before it
    // included: a guess at first, then what the pass has taken so far.
    let mut per_sample = plan.min_sample.as_secs_f64() * 1.5 + crate::measure::SETTLE.as_secs_f64();
    let (mut samples, mut done) = (0usize, 0usize);
    let (mut fewest, mut most) = (usize::MAX, 0usize);
    for (k, (ours, theirs)) in jobs.iter().enumerate() {
        let left = limit - started.elapsed().as_secs_f64();
        if left <= 0.0 {
            break;
        }
        let engines_left: usize = jobs[k..].iter().map(|(o, t)| o.len() + t.len()).sum();
        let rounds = paired::rounds_that_fit(plan, left, per_sample, engines_left);
        let our_engines: Vec<_> = ours.iter().map(|(e, _)| *e).collect();
        let peer_engines: Vec<_> = theirs.iter().map(|(e, _)| *e).collect();
        let work = &ours[0].1;
        let spreads = paired::measure_pair(
            &our_engines,
            &peer_engines,
            work.message_len,
            work.messages,
            &PairPlan { rounds, ..*plan },
        );
        for ((_, form), per_peer) in ours.iter().zip(spreads) {
            for ((_, peer), ratio) in theirs.iter().zip(per_peer) {
                report.paired.push(PairedRatio {
                    algorithm: form.algorithm.clone(),
                    message_len: form.message_len,
                    messages: form.messages,
                    threads: form.threads,
                    source: form.source,
                    parhash_variant: form.variant.clone(),
                    peer: peer.provider,
                    peer_variant: peer.variant.clone(),
                    ratio,
                });
            }
        }
        done += 1;
        samples += rounds * (ours.len() + theirs.len());
        per_sample = started.elapsed().as_secs_f64() / samples as f64;
        (fewest, most) = (fewest.min(rounds), most.max(rounds));
    }
    if done > 0 {
        let rounds = if fewest == most {
            most.to_string()
        } else {
            format!("{fewest}-{most}")
        };
        report.notes.push(format!(
            "paired pass: parhash against its peers sampled alternately on {done} pieces of \
             work, {rounds} rounds each, in {:.1} s",
            started.elapsed().as_secs_f64()
        ));
    }
    if done < jobs.len() {
        report.notes.push(format!(
            "paired pass: {done} of {} comparisons paired within its share of the budget \
             ({limit:.0} s); the longest work keeps the ratio of its separately timed cells \
             (raise --budget, or fewer --paired-rounds)",
            jobs.len(),
        ));
    }
}

/// Fills speed-ups, bottlenecks and the summary from the raw measurements.
pub fn derive(report: &mut Report, engines: &[EngineRef], baseline: Option<&str>) {
    let by_config: HashMap<Config, f64> = report
        .measurements
        .iter()
        .map(|m| (m.config(), m.ns_per_byte))
        .collect();
    let accel: HashMap<String, bool> = engines
        .iter()
        .map(|e| (e.label(), e.on_accelerator()))
        .collect();
    let rates: HashMap<String, f64> = report.compute_rates.iter().cloned().collect();
    let splits: HashMap<String, bool> = engines
        .iter()
        .map(|e| (e.label(), e.splits_one_message()))
        .collect();
    let by_label: HashMap<String, &EngineRef> = engines.iter().map(|e| (e.label(), e)).collect();
    let mut classified = Vec::new();
    for m in &mut report.measurements {
        let mut one = m.config();
        one.threads = 1;
        if m.threads > 1 {
            m.speedup_vs_1_thread = by_config.get(&one).map(|t1| t1 / m.ns_per_byte);
        }
        if let Some(base) = baseline {
            let candidates = report_baseline_configs(&m.config(), base);
            m.speedup_vs_baseline = candidates
                .iter()
                .find_map(|c| by_config.get(c))
                .map(|b| b / m.ns_per_byte);
        }
        if let Some(roofs) = &report.roofs {
            let label = m.label();
            let compute_rate = rates.get(&label).copied().unwrap_or(f64::INFINITY);
            let effective = if m.messages == 1 && !splits.get(&label).copied().unwrap_or(false) {
                1.0
            } else {
                (m.threads.min(report.machine.threads.max(1)) as f64).min(m.messages as f64)
            };
            let (source_roof, source_kind) = match m.source {
                Source::Memory => (roofs.memory_for(m.threads), Bottleneck::Memory),
                Source::PageCache => (roofs.page_cache, Bottleneck::Memory),
                Source::Disk => (roofs.disk, Bottleneck::Disk),
            };
            let on_accel = accel.get(&label).copied().unwrap_or(false);
            let input = ClassifyInput {
                seconds: m.ns_per_message * m.messages as f64 * 1e-9,
                bytes: (m.message_len * m.messages) as f64,
                reads: m.reads_per_batch as f64,
                message_len: m.message_len,
                source_roof,
                source_kind,
                compute_rate,
                effective_threads: effective,
                transfer_roof: if on_accel {
                    roofs.transfer_roof()
                } else {
                    None
                },
            };
            let b = classify::classify(&input);
            m.bottleneck = Some(b);
            if m.provider == Provider::Parhash {
                classified.push(Classified {
                    messages: m.messages,
                    message_len: m.message_len,
                    source: m.source,
                    accelerator: on_accel,
                    bottleneck: b,
                });
            }
        }
        if let Some(speedup) = m.speedup_vs_1_thread {
            let engine_limit = by_label.get(&m.label()).and_then(|e| {
                let (used, why) = e.threads_used(m.message_len, m.messages, m.threads);
                why.map(|w| (used, w))
            });
            m.scaling_note = classify::explain_scaling(&ScalingFacts {
                threads: m.threads,
                engine_limit,
                hardware_threads: report.machine.threads,
                one_thread_seconds: m.ns_per_message * m.messages as f64 * speedup * 1e-9,
                speedup,
                bottleneck: m.bottleneck,
            });
        }
    }
    if report.roofs.is_some() {
        let have_accel = engines.iter().any(|e| e.on_accelerator());
        report.summary = Some(classify::summarize(&classified, have_accel));
    }
}

/// The configurations a baseline name can mean for `c`: the same point with the variant (any
/// provider) or the provider (any variant) named `base`.
fn report_baseline_configs(c: &Config, base: &str) -> Vec<Config> {
    let mut out = Vec::new();
    let mut v = c.clone();
    v.provider = Provider::Parhash;
    v.variant = base.to_string();
    out.push(v);
    for p in [
        Provider::Openssl,
        Provider::Rustcrypto,
        Provider::Blake3,
        Provider::Crate,
    ] {
        if p.name() == base {
            // Peers are measured single-threaded: compare against that.
            for (algorithm, variant) in crate::engines::peer_ids(&c.algorithm, p) {
                let mut v = c.clone();
                v.provider = p;
                v.algorithm = algorithm;
                v.variant = variant;
                v.threads = 1;
                out.push(v);
            }
        }
    }
    out
}

/// Measures `engine` on one configuration outside a sweep, within the options' memory limits
/// (a configuration over them is an `InvalidInput` error saying why).
pub fn measure_one(
    engine: &EngineRef,
    config: &Config,
    opts: &LabOptions,
    budget: Duration,
    tsc_hz: Option<f64>,
) -> std::io::Result<Measurement> {
    let data = measure::plan_data(
        config,
        engine.bounded_memory_for(config.message_len as u64),
        &opts.data_limits,
    );
    measure::measure(
        &**engine,
        config,
        &data,
        &opts.sample_plan(),
        budget,
        &opts.scratch(),
        tsc_hz,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use parhash::Algorithm;

    #[test]
    fn baseline_names_come_from_the_run() {
        let mut engines = crate::engines::parhash_engines(Algorithm::Md5);
        engines.extend(crate::engines::peers(Algorithm::Md5));
        let names = baseline_names(&engines);
        for name in ["sequential", "batch", "openssl", "rustcrypto"] {
            assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
            assert_eq!(check_baseline(Some(name), &engines), Ok(()));
        }
        assert_eq!(check_baseline(None, &engines), Ok(()));
        let err = check_baseline(Some("blake3"), &engines).unwrap_err().0;
        assert!(
            err.starts_with("unknown --baseline 'blake3' (valid in this run: "),
            "{err}"
        );
        assert!(err.contains("openssl"), "{err}");
        // Carried through io::Error for the CLI to find.
        let io: std::io::Error = UsageError(err.clone()).into();
        assert_eq!(
            UsageError::find(&io).map(|u| u.0.as_str()),
            Some(err.as_str())
        );
        assert!(UsageError::find(&std::io::Error::other("x")).is_none());
    }

    #[test]
    fn unknown_baseline_stops_a_run_before_measuring() {
        let mut spec = SweepSpec::new(vec![Algorithm::Md5]);
        spec.peers = false;
        spec.anchor = false;
        let mut opts = LabOptions::new();
        opts.baseline = Some("openssl".into());
        opts.progress = false;
        let err = run_sweep("t", &spec, &opts).unwrap_err();
        let usage = UsageError::find(&err).expect("a usage error");
        assert!(usage.0.contains("'openssl'"), "{usage}");
    }

    #[test]
    fn predicted_batch_time_spreads_over_usable_threads() {
        let config = |messages: usize, threads: usize| Config {
            algorithm: "md5".into(),
            provider: Provider::Parhash,
            variant: "batch".into(),
            message_len: 1_000_000,
            messages,
            source: Source::Memory,
            threads,
        };
        // 64 MB at 1 GB/s on one thread.
        assert_eq!(
            predicted_batch_seconds(&config(64, 1), 1e9, false, 8),
            0.064
        );
        // 4 threads; capped by the cores, and by the messages unless the engine splits one.
        assert_eq!(
            predicted_batch_seconds(&config(64, 4), 1e9, false, 8),
            0.016
        );
        assert_eq!(
            predicted_batch_seconds(&config(64, 16), 1e9, false, 8),
            0.008
        );
        assert_eq!(predicted_batch_seconds(&config(1, 4), 1e9, false, 8), 0.001);
        assert_eq!(
            predicted_batch_seconds(&config(1, 4), 1e9, true, 8),
            0.00025
        );
    }
}
