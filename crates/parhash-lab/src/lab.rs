//! The pipeline of a sweep: machine and roofs, in-cache compute rates, every configuration
//! timed within the budget (with a progress bar), then speed-ups, bottlenecks and the summary.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::classify::{self, Bottleneck, Classified, ClassifyInput};
use crate::engine::{EngineRef, Provider};
use crate::measure::{self, Measurement, SamplePlan};
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
    /// Show a progress bar (on a terminal).
    pub progress: bool,
    /// The variant or provider (`sequential`, `openssl`...) speed-ups are computed against.
    pub baseline: Option<String>,
    /// The command line, recorded in the report.
    pub command: String,
}

impl LabOptions {
    /// Defaults: `./parhash-report`, 40 s (the quick tour then ends within a minute), progress
    /// bar, no baseline.
    pub fn new() -> LabOptions {
        LabOptions {
            out_dir: PathBuf::from("parhash-report"),
            tiny: false,
            budget: Duration::from_secs(40),
            progress: true,
            baseline: None,
            command: "parhash bench".into(),
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
/// of roofs.
pub fn run_sweeps(title: &str, specs: &[SweepSpec], opts: &LabOptions) -> std::io::Result<Report> {
    let started = Instant::now();
    let mut report = Report::new(title, &opts.command, machine(opts));
    let mut engines: Vec<EngineRef> = Vec::new();
    let mut configs: Vec<(usize, Config)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for spec in specs {
        let (found, notes) = sweep::engines(spec);
        for n in notes {
            if !report.notes.contains(&n) {
                report.notes.push(n);
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
        let left = opts.budget.saturating_sub(started.elapsed());
        let slice = left / (configs.len() - i) as u32;
        let m = measure::measure(
            &**engine,
            config,
            &plan,
            slice,
            &scratch,
            report.machine.tsc_hz,
        )?;
        report.measurements.push(m);
        bar.inc(1);
    }
    bar.finish_and_clear();
    let _ = std::fs::remove_dir_all(&scratch);

    derive(&mut report, &engines, opts.baseline.as_deref());
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
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
    for p in [Provider::Openssl, Provider::Rustcrypto, Provider::Blake3] {
        if p.name() == base {
            // Peers are measured single-threaded: compare against that.
            for (algorithm, variant) in crate::engine::peer_ids(&c.algorithm, p) {
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

/// Measures `engine` on one configuration outside a sweep (presets use it).
pub fn measure_one(
    engine: &EngineRef,
    config: &Config,
    opts: &LabOptions,
    budget: Duration,
    tsc_hz: Option<f64>,
) -> std::io::Result<Measurement> {
    measure::measure(
        &**engine,
        config,
        &opts.sample_plan(),
        budget,
        &opts.scratch(),
        tsc_hz,
    )
}
