//! Timing one configuration: prepare the batch (in memory or in a scratch file), warm up,
//! calibrate repetitions so one sample is long enough to time, then take samples until the
//! configuration's share of the time budget is spent.
//!
//! Memory stays bounded whatever the lengths and multiplicities asked for ([`plan_data`]): a
//! batch over the cap ([`DataLimits`]) is hashed from windows into one shared buffer, a single
//! message over it is streamed from one chunk fed repeatedly, and what cannot be done either
//! way is skipped with a note, never allocated.

use std::fs::File;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::classify::Bottleneck;
use crate::engine::{feed_repeated, Engine, Provider, StreamHasher};
use crate::source::{fill_pattern, read_range, ScratchFile, Source, READ_CHUNK};
use crate::sweep::Config;
use crate::timer::{self, Stats};
use crate::units::format_size;

/// How samples are taken.
#[derive(Clone, Copy, Debug)]
pub struct SamplePlan {
    /// A sample repeats the batch until it lasts at least this long (not for cold reads).
    pub min_sample: Duration,
    /// Samples taken at least (even past the budget) and at most.
    pub min_samples: usize,
    pub max_samples: usize,
}

impl SamplePlan {
    /// 2 ms samples, 5 to 31 of them.
    pub fn normal() -> Self {
        SamplePlan {
            min_sample: Duration::from_millis(2),
            min_samples: 5,
            max_samples: 31,
        }
    }

    /// Seconds-scale CI runs: short samples, three of them.
    pub fn tiny() -> Self {
        SamplePlan {
            min_sample: Duration::from_micros(50),
            min_samples: 3,
            max_samples: 3,
        }
    }
}

/// How much memory the data of one configuration may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataLimits {
    /// A batch of at most this many bytes is held whole (in memory, or in a scratch file).
    pub max_bytes: usize,
    /// Past that, the messages are windows into one buffer of this many bytes (or of one
    /// message, if longer), and a single message is streamed from a chunk of this size.
    pub window_bytes: usize,
}

/// Memory assumed available where the system does not say (`/proc/meminfo`).
const ASSUMED_AVAILABLE: usize = 4 << 30;

/// The largest window buffer by default: far beyond any cache, so windows are still read from
/// memory, and quick to fill.
const MAX_WINDOW: usize = 1 << 30;

impl DataLimits {
    /// A quarter of the memory available now (the machine may be shared; the rest is left to
    /// others and to the roofs), windows of at most 1 GiB.
    pub fn for_this_machine() -> DataLimits {
        let max_bytes = available_memory().unwrap_or(ASSUMED_AVAILABLE) / 4;
        DataLimits {
            max_bytes,
            window_bytes: max_bytes.min(MAX_WINDOW),
        }
    }
}

/// `MemAvailable` of `/proc/meminfo`, in bytes, where there is one.
pub fn available_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// How the data of one configuration is held (see [`plan_data`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DataPlan {
    /// Every message in its own place: the whole batch in memory or in a scratch file.
    Whole,
    /// Message `i` is window `i mod slots` of one buffer of `slots` messages.
    Windows { slots: usize },
    /// The one message is a `chunk`-byte buffer fed repeatedly ([`Engine::hash_repeated`]).
    Stream { chunk: usize },
    /// Not measured, and why (one line for the report's notes).
    Skip(String),
}

/// Decides how to hold the data of `config` within `limits` (a pure function: nothing is
/// allocated). `bounded_memory` is the engine's [`Engine::bounded_memory`].
pub fn plan_data(config: &Config, bounded_memory: bool, limits: &DataLimits) -> DataPlan {
    let total = config.batch_bytes();
    if total <= limits.max_bytes {
        return DataPlan::Whole;
    }
    let len = config.message_len;
    let skip = |why: &str| {
        DataPlan::Skip(format!(
            "skipped {} {} x{} from {}: {} of data is over the lab's memory cap of {}; {why}",
            config.label(),
            format_size(len),
            config.messages,
            config.source.name(),
            format_size(total),
            format_size(limits.max_bytes),
        ))
    };
    if config.source.is_file() {
        return skip("file sources need the whole batch in a scratch file");
    }
    if !bounded_memory {
        return skip("this engine copies or buffers whole messages");
    }
    let window = limits.window_bytes.min(limits.max_bytes).max(1);
    if config.messages <= 1 {
        return DataPlan::Stream { chunk: window };
    }
    if len > limits.max_bytes {
        return skip("messages that long are streamed only one at a time");
    }
    // `len` > 0 here: the batch is over the cap.
    DataPlan::Windows {
        slots: (window.max(len) / len).max(1),
    }
}

/// Every figure measured for one configuration (one CSV row).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    pub algorithm: String,
    pub provider: Provider,
    pub variant: String,
    pub message_len: usize,
    pub messages: usize,
    pub source: Source,
    pub threads: usize,
    /// Batches hashed per sample.
    pub reps_per_sample: usize,
    pub samples: usize,
    /// Read calls per batch (file sources).
    pub reads_per_batch: usize,
    /// Unit execution time: ns per byte, median of the samples, and the fastest and slowest.
    pub ns_per_byte: f64,
    pub ns_per_byte_min: f64,
    pub ns_per_byte_max: f64,
    /// Time-stamp-counter ticks per byte (median); empty where there is no TSC.
    pub cycles_per_byte: Option<f64>,
    /// ns and TSC ticks per message (median), for short-message tables.
    pub ns_per_message: f64,
    pub cycles_per_message: Option<f64>,
    /// Decimal GB per second (median).
    pub gb_per_s: f64,
    pub messages_per_s: f64,
    /// Against the same configuration on one thread.
    pub speedup_vs_1_thread: Option<f64>,
    /// Against the chosen baseline (`--baseline`) in the same configuration.
    pub speedup_vs_baseline: Option<f64>,
    pub bottleneck: Option<Bottleneck>,
    /// Why more threads did not make it faster, where the lab knows (see
    /// [`crate::classify::explain_scaling`]); empty on one thread and where it scaled.
    #[serde(default)]
    pub scaling_note: Option<String>,
}

/// What makes two measurements the same work: everything but who hashed and how (the
/// algorithm, message length, messages, threads and source).
pub type Work<'a> = (&'a str, usize, usize, usize, Source);

impl Measurement {
    /// The work this measured ([`Work`]).
    pub fn work(&self) -> Work<'_> {
        (
            &self.algorithm,
            self.message_len,
            self.messages,
            self.threads,
            self.source,
        )
    }

    /// The configuration this measures.
    pub fn config(&self) -> Config {
        Config {
            algorithm: self.algorithm.clone(),
            provider: self.provider,
            variant: self.variant.clone(),
            message_len: self.message_len,
            messages: self.messages,
            source: self.source,
            threads: self.threads,
        }
    }

    /// Bytes per second (median).
    pub fn rate(&self) -> f64 {
        if self.ns_per_byte > 0.0 {
            1e9 / self.ns_per_byte
        } else {
            f64::INFINITY
        }
    }

    /// `provider algorithm/variant`.
    pub fn label(&self) -> String {
        crate::engine::label(self.provider, &self.algorithm, &self.variant)
    }

    /// A made-up one-sample measurement of `label` (`provider algorithm/variant`, as
    /// [`Measurement::label`] writes it) hashing `messages` messages of `len` bytes from
    /// `source` on `threads` threads at `ns_per_byte`, every other figure derived from that: for
    /// the tests of what the lab makes of measurements.
    #[doc(hidden)]
    pub fn made_up(
        label: &str,
        len: usize,
        messages: usize,
        source: Source,
        threads: usize,
        ns_per_byte: f64,
    ) -> Measurement {
        let (provider, rest) = label.split_once(' ').expect("provider algorithm/variant");
        let (algorithm, variant) = rest.split_once('/').expect("algorithm/variant");
        let providers = [
            Provider::Parhash,
            Provider::Openssl,
            Provider::Rustcrypto,
            Provider::Blake3,
            Provider::Crate,
        ];
        let provider = providers.into_iter().find(|p| p.name() == provider);
        Measurement {
            algorithm: algorithm.into(),
            provider: provider.unwrap_or_else(|| panic!("no provider {label}")),
            variant: variant.into(),
            message_len: len,
            messages,
            source,
            threads,
            reps_per_sample: 1,
            samples: 1,
            reads_per_batch: if source == Source::Memory {
                0
            } else {
                messages * len.div_ceil(1 << 20)
            },
            ns_per_byte,
            ns_per_byte_min: ns_per_byte,
            ns_per_byte_max: ns_per_byte,
            cycles_per_byte: None,
            ns_per_message: ns_per_byte * len as f64,
            cycles_per_message: None,
            gb_per_s: 1.0 / ns_per_byte,
            messages_per_s: 1e9 / (ns_per_byte * len as f64),
            speedup_vs_1_thread: None,
            speedup_vs_baseline: None,
            bottleneck: None,
            scaling_note: None,
        }
    }
}

/// The data of one configuration.
enum Data {
    /// Messages in memory: message `i` at `(i mod slots) * len`.
    Memory {
        bytes: Vec<u8>,
        slots: usize,
    },
    File(ScratchFile),
    /// The one message: this chunk repeated up to the message's length.
    Repeated(Vec<u8>),
}

impl Data {
    /// Where message `i` of `len` bytes starts.
    fn offset(&self, i: usize, len: usize) -> usize {
        match self {
            Data::Memory { slots, .. } => (i % slots) * len,
            Data::File(_) | Data::Repeated(_) => i * len,
        }
    }
}

/// Hashes messages `range` of the batch with `hasher`, reading them from `data`.
fn hash_range(
    data: &Data,
    file: Option<&File>,
    len: usize,
    range: std::ops::Range<usize>,
    hasher: &mut dyn StreamHasher,
    buf: &mut [u8],
) -> u8 {
    let mut check = 0u8;
    match data {
        Data::Memory { bytes, .. } => {
            for i in range {
                let at = data.offset(i, len);
                check = check.wrapping_add(hasher.hash_message(&bytes[at..at + len]));
            }
        }
        Data::File(_) => {
            let file = file.expect("file opened for file sources");
            for i in range {
                read_range(file, (i * len) as u64, len, buf, |c| hasher.update(c))
                    .expect("reading the scratch file");
                check = check.wrapping_add(hasher.finish_reset());
            }
        }
        Data::Repeated(chunk) => {
            for _ in range {
                feed_repeated(chunk, len as u64, |c| hasher.update(c));
                check = check.wrapping_add(hasher.finish_reset());
            }
        }
    }
    check
}

/// Reads the whole batch into `whole` (for engines that take the batch at once).
fn load_batch(data: &Data, file: Option<&File>, whole: &mut Vec<u8>, buf: &mut [u8]) {
    if let Data::File(f) = data {
        whole.clear();
        read_range(file.expect("file"), 0, f.len(), buf, |c| {
            whole.extend_from_slice(c)
        })
        .expect("reading the scratch file");
    }
}

/// A batch whose first run takes at least this long, and longer than its share of the budget,
/// is timed by that run alone (a run out of budget then costs one batch per configuration,
/// not four; shorter batches keep their samples, which cost little).
const LONG_BATCH: Duration = Duration::from_millis(50);

/// Measures one configuration of `engine` within `budget`, holding its data as `data` says
/// (from [`plan_data`]; a [`DataPlan::Skip`] is an `InvalidInput` error).
pub fn measure(
    engine: &dyn Engine,
    config: &Config,
    data: &DataPlan,
    plan: &SamplePlan,
    budget: Duration,
    scratch: &Path,
    tsc_hz: Option<f64>,
) -> std::io::Result<Measurement> {
    let len = config.message_len;
    let messages = config.messages.max(1);
    let total = config.batch_bytes();
    let filled = |bytes: usize| {
        let mut v = vec![0u8; bytes];
        fill_pattern(&mut v);
        v
    };
    let data = match data {
        DataPlan::Skip(why) => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                why.clone(),
            ))
        }
        DataPlan::Whole if config.source.is_file() => Data::File(ScratchFile::create(
            scratch,
            &format!("batch-{}.bin", std::process::id()),
            total,
        )?),
        DataPlan::Whole => Data::Memory {
            bytes: filled(total),
            slots: messages,
        },
        DataPlan::Windows { slots } => Data::Memory {
            bytes: filled(slots * len),
            slots: *slots,
        },
        DataPlan::Stream { chunk } => Data::Repeated(filled(*chunk)),
    };
    let cold = config.source == Source::Disk;
    let threads = config.threads.max(1);
    let reads_per_batch = if config.source.is_file() {
        messages * len.div_ceil(READ_CHUNK).max(1)
    } else {
        0
    };

    // Engines that take the whole batch themselves.
    let slices: Vec<std::ops::Range<usize>> = (0..messages)
        .map(|i| data.offset(i, len))
        .map(|at| at..at + len)
        .collect();
    let batch_engine = {
        let probe: Vec<&[u8]> = vec![&[]; 1];
        engine.hash_batch(&probe, 1).is_some()
    };
    // A streamed message is hashed by the engine as a whole too (on its threads, if it splits
    // messages); no worker threads of the lab's own.
    let streamed = matches!(data, Data::Repeated(_));
    let whole_batch = batch_engine || streamed;

    let file_handles: Vec<Option<File>> = (0..threads)
        .map(|_| match &data {
            Data::File(f) => f.open().map(Some),
            Data::Memory { .. } | Data::Repeated(_) => Ok(None),
        })
        .collect::<std::io::Result<_>>()?;
    let drop_cache = || -> std::io::Result<()> {
        if let Data::File(f) = &data {
            if cold {
                f.drop_cache()?;
            }
        }
        Ok(())
    };

    let reps = AtomicUsize::new(1);
    let stop = AtomicBool::new(false);
    let start = Barrier::new(threads);
    let done = Barrier::new(threads);
    let share = |t: usize| (t * messages / threads)..((t + 1) * messages / threads);

    let mut seconds = Vec::new();
    let mut ticks = Vec::new();
    let mut reps_used = 1usize;
    std::thread::scope(|s| -> std::io::Result<()> {
        if !whole_batch {
            for (t, fh) in file_handles.iter().enumerate().skip(1) {
                let (data, reps, stop, start, done) = (&data, &reps, &stop, &start, &done);
                let range = share(t);
                s.spawn(move || {
                    let mut hasher = engine.hasher();
                    let mut buf = vec![0u8; READ_CHUNK.min(len.max(1))];
                    let mut check = 0u8;
                    loop {
                        start.wait();
                        if stop.load(Ordering::Acquire) {
                            break;
                        }
                        for _ in 0..reps.load(Ordering::Acquire) {
                            check = check.wrapping_add(hash_range(
                                data,
                                fh.as_ref(),
                                len,
                                range.clone(),
                                &mut *hasher,
                                &mut buf,
                            ));
                        }
                        done.wait();
                    }
                    std::hint::black_box(check);
                });
            }
        }
        let mut hasher = engine.hasher();
        let mut buf = vec![0u8; READ_CHUNK.min(len.max(1))];
        let mut whole = Vec::new();
        let mut check = 0u8;
        let mut one_sample = |n: usize| -> timer::Sample {
            reps.store(n, Ordering::Release);
            timer::time(|| {
                if let Data::Repeated(chunk) = &data {
                    for _ in 0..n {
                        let c = engine.hash_repeated(chunk, len as u64, threads);
                        check = check.wrapping_add(c);
                    }
                } else if batch_engine {
                    for _ in 0..n {
                        load_batch(&data, file_handles[0].as_ref(), &mut whole, &mut buf);
                        let bytes: &[u8] = match &data {
                            Data::Memory { bytes, .. } => bytes,
                            Data::File(_) | Data::Repeated(_) => &whole,
                        };
                        let msgs: Vec<&[u8]> = slices.iter().map(|r| &bytes[r.clone()]).collect();
                        let c = engine.hash_batch(&msgs, threads).unwrap_or(0);
                        check = check.wrapping_add(c);
                    }
                } else {
                    if threads > 1 {
                        start.wait();
                    }
                    for _ in 0..n {
                        check = check.wrapping_add(hash_range(
                            &data,
                            file_handles[0].as_ref(),
                            len,
                            share(0),
                            &mut *hasher,
                            &mut buf,
                        ));
                    }
                    if threads > 1 {
                        done.wait();
                    }
                }
            })
        };
        let result = (|| -> std::io::Result<()> {
            // Warm-up (also fills the page cache for warm file reads), then calibration.
            drop_cache()?;
            let first = one_sample(1);
            if first.seconds >= LONG_BATCH.as_secs_f64() && first.seconds > budget.as_secs_f64() {
                // One batch outlasts this configuration's share of the budget: its first run
                // is its only sample (the data was written just before, so no page faults).
                seconds.push(first.seconds);
                ticks.push(first.ticks);
                return Ok(());
            }
            // A second warm-up only where it is cheap (the first may pay page faults).
            let mut per_batch = first.seconds.max(1e-9);
            if first.seconds < 5e-3 {
                drop_cache()?;
                per_batch = per_batch.min(one_sample(1).seconds.max(1e-9));
            }
            // Slow batches that would overrun the budget get three samples, not more.
            let min_samples = if per_batch * plan.min_samples as f64 > budget.as_secs_f64() {
                plan.min_samples.min(3)
            } else {
                plan.min_samples
            };
            reps_used = if cold {
                1
            } else {
                ((plan.min_sample.as_secs_f64() / per_batch).ceil() as usize).clamp(1, 1 << 24)
            };
            let t0 = Instant::now();
            while seconds.len() < plan.max_samples
                && (seconds.len() < min_samples || t0.elapsed() < budget)
            {
                drop_cache()?;
                let sample = one_sample(reps_used);
                seconds.push(sample.seconds / reps_used as f64);
                ticks.push(sample.ticks / reps_used as f64);
            }
            Ok(())
        })();
        if !whole_batch && threads > 1 {
            stop.store(true, Ordering::Release);
            start.wait();
        }
        std::hint::black_box(check);
        result
    })?;

    let per_batch = Stats::of(&seconds);
    let bytes = total.max(1) as f64;
    let ns = per_batch.scale(1e9 / bytes);
    let median_ticks = Stats::of(&ticks).median;
    let has_tsc = tsc_hz.is_some() && median_ticks > 0.0;
    Ok(Measurement {
        algorithm: config.algorithm.clone(),
        provider: config.provider,
        variant: config.variant.clone(),
        message_len: len,
        messages,
        source: config.source,
        threads,
        reps_per_sample: reps_used,
        samples: seconds.len(),
        reads_per_batch,
        ns_per_byte: ns.median,
        ns_per_byte_min: ns.min,
        ns_per_byte_max: ns.max,
        cycles_per_byte: has_tsc.then(|| median_ticks / bytes),
        ns_per_message: per_batch.median * 1e9 / messages as f64,
        cycles_per_message: has_tsc.then(|| median_ticks / messages as f64),
        gb_per_s: if per_batch.median > 0.0 {
            total as f64 / per_batch.median / 1e9
        } else {
            0.0
        },
        messages_per_s: if per_batch.median > 0.0 {
            messages as f64 / per_batch.median
        } else {
            0.0
        },
        speedup_vs_1_thread: None,
        speedup_vs_baseline: None,
        bottleneck: None,
        scaling_note: None,
    })
}

/// The engine's single-thread rate on a cache-resident 16 KiB message, or a batch of them for
/// batch engines (bytes per second): the "compute" reference of the classification.
pub fn compute_rate(engine: &dyn Engine, plan: &SamplePlan) -> f64 {
    const LEN: usize = 16 << 10;
    // Batch engines (lanes, tree modes) are timed on a batch of this many 16 KiB messages (256
    // KiB: still in L2), one thread, so that their lanes count in their compute rate.
    const BATCH: usize = 16;
    let batch_engine = engine.hash_batch(&[&[]], 1).is_some();
    let count = if batch_engine { BATCH } else { 1 };
    let mut data = vec![0u8; LEN * count];
    fill_pattern(&mut data);
    let messages: Vec<&[u8]> = data.chunks(LEN).collect();
    let mut hasher = engine.hasher();
    let mut check = 0u8;
    let mut run = |n: usize| {
        timer::time(|| {
            for _ in 0..n {
                if batch_engine {
                    check = check.wrapping_add(engine.hash_batch(&messages, 1).unwrap_or(0));
                } else {
                    hasher.update(&data);
                    check = check.wrapping_add(hasher.finish_reset());
                }
            }
        })
    };
    let warm = run(1).seconds.max(1e-9);
    let reps = ((plan.min_sample.as_secs_f64() / warm).ceil() as usize).clamp(1, 1 << 20);
    let best = (0..plan.min_samples.max(3))
        .map(|_| run(reps).seconds / reps as f64)
        .fold(f64::INFINITY, f64::min);
    std::hint::black_box(check);
    (LEN * count) as f64 / best
}

/// Cost of one call of `work` (which returns a byte of its result, so it cannot be optimised
/// away): nanoseconds and TSC ticks per call, median/min/max over `samples` samples, each
/// repeating `work` until it lasts `min_sample`, after a short warm-up.
pub fn work_cost(
    mut work: impl FnMut() -> u8,
    samples: usize,
    min_sample: Duration,
) -> (Stats, Stats) {
    let mut works: [&mut dyn FnMut() -> u8; 1] = [&mut work];
    work_costs(&mut works, samples, min_sample)
        .pop()
        .expect("one cost per work")
}

/// [`work_cost`] of several works whose samples are taken in turn (sample 1 of each, then
/// sample 2 of each, ...), so that a change of clock or of load on the machine lands on all of
/// them alike: what forms of one algorithm are compared with.
pub fn work_costs(
    works: &mut [&mut dyn FnMut() -> u8],
    samples: usize,
    min_sample: Duration,
) -> Vec<(Stats, Stats)> {
    work_rounds(works, samples, min_sample)
        .iter()
        .map(|r| (Stats::of(&r.ns), Stats::of(&r.ticks)))
        .collect()
}

/// The samples of one work in [`work_rounds`], one per round: nanoseconds and TSC ticks per
/// call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rounds {
    pub ns: Vec<f64>,
    pub ticks: Vec<f64>,
}

/// How long a turn of [`work_rounds`] sleeps before the next work's sample: a core that ran
/// 512-bit instructions keeps a lower clock for up to about 2 ms after them (the AVX-512
/// frequency licence of Intel's server cores), which would slow whatever is timed next and
/// make a 512-bit form look faster than its peer (BENCHMARKS.md, the lab's pairs).
pub const SETTLE: Duration = Duration::from_millis(2);

/// Waits `time` asleep. Not a spin: on a loaded machine a spinning thread uses up its share
/// of the core, and the scheduler's turns then fell on the same side of every round (paired
/// ratios of 0.2 and 5 with tight quartiles); a thread that slept runs its sample first.
fn settle(time: Duration) {
    std::thread::sleep(time);
}

/// The raw samples behind [`work_costs`]: each work is warmed up (2 calls) and calibrated (8
/// calls) so that one sample of it repeats it for at least `min_sample`, then `rounds` rounds
/// each time every work once, in order (work 0, work 1, ..., work 0, work 1, ...), each sample
/// after [`SETTLE`] when there are several works. Sample `i` of every work comes from round
/// `i`: adjacent in time, so they can be compared round by round (see `paired`).
pub fn work_rounds(
    works: &mut [&mut dyn FnMut() -> u8],
    rounds: usize,
    min_sample: Duration,
) -> Vec<Rounds> {
    let mut check = 0u8;
    let mut run = |work: &mut dyn FnMut() -> u8, n: usize| {
        timer::time(|| {
            for _ in 0..n {
                check = check.wrapping_add(work());
            }
        })
    };
    let reps: Vec<usize> = works
        .iter_mut()
        .map(|work| {
            run(&mut **work, 2);
            let one = (run(&mut **work, 8).seconds / 8.0).max(1e-9);
            ((min_sample.as_secs_f64() / one).ceil() as usize).clamp(1, 1 << 24)
        })
        .collect();
    let mut out = vec![
        Rounds {
            ns: Vec::with_capacity(rounds),
            ticks: Vec::with_capacity(rounds),
        };
        works.len()
    ];
    let several = works.len() > 1;
    for _ in 0..rounds.max(1) {
        for (k, work) in works.iter_mut().enumerate() {
            if several {
                settle(SETTLE);
            }
            let s = run(&mut **work, reps[k]);
            out[k].ns.push(s.seconds * 1e9 / reps[k] as f64);
            out[k].ticks.push(s.ticks / reps[k] as f64);
        }
    }
    std::hint::black_box(check);
    out
}

/// The cost of hashing one `len`-byte message from memory on one thread, reusing one state
/// (see [`work_cost`]), for several engines whose samples are taken in turn ([`work_costs`]).
pub fn message_costs(
    engines: &[&dyn Engine],
    len: usize,
    samples: usize,
    min_sample: Duration,
) -> Vec<(Stats, Stats)> {
    let mut data = vec![0u8; len];
    fill_pattern(&mut data);
    let data = &data;
    let mut hashers: Vec<_> = engines.iter().map(|e| e.hasher()).collect();
    let mut works: Vec<Box<dyn FnMut() -> u8 + '_>> = hashers
        .iter_mut()
        .map(|h| {
            Box::new(move || {
                h.update(data);
                h.finish_reset()
            }) as Box<dyn FnMut() -> u8>
        })
        .collect();
    let mut refs: Vec<&mut dyn FnMut() -> u8> = works.iter_mut().map(|w| &mut **w as _).collect();
    work_costs(&mut refs, samples, min_sample)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::parhash_variant;
    use parhash::Algorithm;

    fn config(source: Source, messages: usize, threads: usize) -> Config {
        Config {
            algorithm: "md5".into(),
            provider: Provider::Parhash,
            variant: "sequential".into(),
            message_len: 1000,
            messages,
            source,
            threads,
        }
    }

    #[test]
    fn work_costs_samples_every_work_in_turn() {
        let (mut a_calls, mut b_calls) = (0usize, 0usize);
        let (mut a, mut b) = (
            || {
                a_calls += 1;
                1u8
            },
            || {
                b_calls += 1;
                2u8
            },
        );
        let mut works: [&mut dyn FnMut() -> u8; 2] = [&mut a, &mut b];
        let costs = work_costs(&mut works, 5, Duration::from_micros(1));
        assert_eq!(costs.len(), 2);
        // Warm-up (2 + 8 calls) plus at least one call per sample, for each work.
        assert!(a_calls >= 15 && b_calls >= 15, "{a_calls} {b_calls}");
    }

    #[test]
    fn a_sample_after_another_work_s_waits_for_the_clock_to_settle() {
        use std::cell::RefCell;
        let calls: RefCell<Vec<(usize, Instant, Instant)>> = RefCell::new(Vec::new());
        let call = |work: usize| {
            let start = Instant::now();
            std::hint::black_box((0..100u64).sum::<u64>());
            calls.borrow_mut().push((work, start, Instant::now()));
            0u8
        };
        let (mut a, mut b) = (|| call(0), || call(1));
        let mut works: [&mut dyn FnMut() -> u8; 2] = [&mut a, &mut b];
        work_rounds(&mut works, 4, Duration::from_micros(1));
        let calls = calls.into_inner();
        // Warm-up and calibration come first, work by work (2 + 8 calls each).
        let rounds = &calls[20..];
        let switches: Vec<Duration> = rounds
            .windows(2)
            .filter(|w| w[0].0 != w[1].0)
            .map(|w| w[1].1 - w[0].2)
            .collect();
        // Four rounds of two works: a, b, a, b, ... switch seven times.
        assert_eq!(switches.len(), 7, "{switches:?}");
        assert!(switches.iter().all(|gap| *gap >= SETTLE), "{switches:?}");
    }

    #[test]
    fn measures_every_source_and_threads() {
        let engine = parhash_variant(Algorithm::Md5, "sequential").unwrap();
        let dir = std::env::temp_dir().join(format!("parhash-lab-measure-{}", std::process::id()));
        for source in Source::ALL {
            for (messages, threads) in [(1, 1), (8, 2)] {
                let m = measure(
                    &*engine,
                    &config(source, messages, threads),
                    &DataPlan::Whole,
                    &SamplePlan::tiny(),
                    Duration::ZERO,
                    &dir,
                    timer::tsc_frequency(Duration::from_millis(1)),
                )
                .unwrap();
                assert_eq!(m.samples, 3);
                assert!(m.ns_per_byte_min <= m.ns_per_byte && m.ns_per_byte <= m.ns_per_byte_max);
                assert!(m.gb_per_s > 0.0 && m.messages_per_s > 0.0);
                assert_eq!(m.config(), config(source, messages, threads));
                if source.is_file() {
                    assert_eq!(m.reads_per_batch, messages);
                }
            }
        }
        assert!(compute_rate(&*engine, &SamplePlan::tiny()) > 0.0);
        let _ = std::fs::remove_dir_all(dir);
    }

    fn sized(len: usize, messages: usize, source: Source) -> Config {
        Config {
            message_len: len,
            messages,
            source,
            ..config(source, messages, 1)
        }
    }

    #[test]
    fn data_over_the_cap_is_windowed_streamed_or_skipped() {
        const GIB: usize = 1 << 30;
        let limits = DataLimits {
            max_bytes: 4 * GIB,
            window_bytes: 64 << 20,
        };
        let plan = |len, messages, source, bounded| {
            plan_data(&sized(len, messages, source), bounded, &limits)
        };
        // Within the cap: held whole, whatever the engine.
        assert_eq!(plan(GIB, 4, Source::Disk, false), DataPlan::Whole);
        assert_eq!(plan(0, usize::MAX, Source::Memory, true), DataPlan::Whole);
        // The tour's own suggestion, 1 GiB x 64: windows of one message each (64 GiB never
        // allocated); 100,000 x 64 KiB: 1024 windows of 64 KiB in 64 MiB.
        assert_eq!(
            plan(GIB, 64, Source::Memory, true),
            DataPlan::Windows { slots: 1 }
        );
        assert_eq!(
            plan(64 << 10, 100_000, Source::Memory, true),
            DataPlan::Windows { slots: 1024 }
        );
        // One long message: streamed from one window-sized chunk.
        assert_eq!(
            plan(64 * GIB, 1, Source::Memory, true),
            DataPlan::Stream { chunk: 64 << 20 }
        );
        // Skipped, with the reason: files, engines that buffer, several over-long messages,
        // sizes past the address space.
        for (len, messages, source, bounded, why) in [
            (GIB, 64, Source::PageCache, true, "file sources"),
            (64 * GIB, 1, Source::Memory, false, "buffers whole messages"),
            (GIB, 64, Source::Memory, false, "buffers whole messages"),
            (8 * GIB, 2, Source::Memory, true, "one at a time"),
            (usize::MAX, 2, Source::Memory, true, "one at a time"),
        ] {
            match plan(len, messages, source, bounded) {
                DataPlan::Skip(note) => {
                    assert!(note.contains(why), "{note}");
                    assert!(note.contains("memory cap of 4 GiB"), "{note}");
                    assert!(note.contains("parhash md5/sequential"), "{note}");
                }
                other => panic!("{len} x {messages}: {other:?}"),
            }
        }
        assert!(DataLimits::for_this_machine().max_bytes > 0);
    }

    #[test]
    fn windows_and_streams_hash_every_byte() {
        // A cap of 4 KiB forces both paths on small data: 8 messages of 1000 bytes in 4
        // windows, and one 10,000-byte message streamed from a 4 KiB chunk.
        let limits = DataLimits {
            max_bytes: 4096,
            window_bytes: 4096,
        };
        let dir = std::env::temp_dir().join(format!("parhash-lab-windows-{}", std::process::id()));
        let engines = [
            parhash_variant(Algorithm::Md5, "sequential").unwrap(),
            crate::engines::batch::batch_engines(Algorithm::Md5, &[])[0].clone(),
        ];
        for engine in &engines {
            for (config, want) in [
                (
                    sized(1000, 8, Source::Memory),
                    DataPlan::Windows { slots: 4 },
                ),
                (
                    sized(10_000, 1, Source::Memory),
                    DataPlan::Stream { chunk: 4096 },
                ),
            ] {
                let data = plan_data(&config, engine.bounded_memory(), &limits);
                assert_eq!(data, want);
                let m = measure(
                    &**engine,
                    &config,
                    &data,
                    &SamplePlan::tiny(),
                    Duration::ZERO,
                    &dir,
                    None,
                )
                .unwrap();
                assert_eq!(
                    (m.messages, m.message_len),
                    (config.messages, config.message_len)
                );
                assert!(m.gb_per_s > 0.0);
            }
        }
        let skip = DataPlan::Skip("why".into());
        let err = measure(
            &*engines[0],
            &sized(1, 1, Source::Memory),
            &skip,
            &SamplePlan::tiny(),
            Duration::ZERO,
            &dir,
            None,
        )
        .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
    }
}
