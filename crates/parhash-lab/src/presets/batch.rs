//! Many messages at once (seed study 5's multi-message hashing, MMH): parhash's batch engine
//! ([`parhash::batch::hash_many_with`]) for the algorithms with lane kernels, at 64 B, 1 KiB,
//! 4 KiB and 64 KiB, 1 to 10^5 messages per batch, on one thread (the per-core figure) and on
//! all threads, against OpenSSL hashing the same messages one by one in the same run; every
//! lane kernel of this CPU side by side at one multiplicity; and the two data layouts
//! (gathered against pre-interleaved) at another. Figures in messages per second and GB/s.
//!
//! Memory stays bounded: batches over 64 MiB (10^4 and 10^5 messages of the longer lengths, up
//! to 6.5 GB) are windows into one 64 MiB buffer, which is still far beyond the caches.
//! Time too: the costliest configurations run last, a batch longer than its share of the
//! budget is timed once, and one that would overrun what is left of it is skipped with a note
//! (`--budget` raises it; about 2.5 minutes by default, seconds with `--tiny`).

use std::time::Duration;

use parhash::Algorithm;

use super::{missing, Preset};
use crate::chart::{Chart, Series};
use crate::engine::Provider;
use crate::engines::batch::{kernel_variant, lanes, BATCH};
use crate::lab::{run_sweeps, LabOptions};
use crate::layout::layout_table;
use crate::measure::{DataLimits, Measurement};
use crate::report::{Report, Section, Table};
use crate::source::Source;
use crate::sweep::{SweepSpec, VariantChoice};
use crate::units::{format_size, si, sig3};

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "batch",
    study: "Keccak and SIMD on an FPGA-accelerated Xeon (Virginia Tech): many messages at once",
    about: "many messages at once: batch engine (each kernel, 1 and all threads) vs OpenSSL one \
            by one, 64 B..64 KiB x 1..10^5 messages, msg/s and GB/s; gathered vs interleaved",
    run,
};

/// The lane algorithms measured.
const ALGORITHMS: &[&str] = &["sha256", "sha1", "md5", "sha512", "sha3-256", "keccak256"];

/// Data of one batch above this is windows into one buffer of this size.
const WINDOW_BUFFER: usize = 64 << 20;

/// The single-message reference of each algorithm: OpenSSL's own, or for Keccak-256, which
/// OpenSSL lacks, its SHA3-256 (the same permutation and rate; only the padding differs).
fn openssl_reference(alg: Algorithm) -> Algorithm {
    let has_openssl = crate::engines::peers(alg)
        .iter()
        .any(|p| p.provider() == Provider::Openssl);
    match alg {
        Algorithm::Keccak256 if !has_openssl => Algorithm::Sha3_256,
        _ => alg,
    }
}

/// OpenSSL is timed on batches up to this size: one by one, its rate no longer changes once the
/// batch is out of the caches, and beyond it would cost most of the budget.
const OPENSSL_MAX_BATCH: usize = 64 << 20;

/// The axes of one run (smaller with `--tiny`).
struct Axes {
    lengths: Vec<usize>,
    multiplicities: Vec<usize>,
    /// Where every kernel is compared (all lane groups full, batch still memory-resident).
    kernel_messages: usize,
    /// Where the two layouts are compared.
    layout_messages: usize,
    budget: Duration,
    limits: DataLimits,
    openssl_max_batch: usize,
}

impl Axes {
    fn new(opts: &LabOptions) -> Axes {
        if opts.tiny {
            // Small enough for seconds, and still every path: windows (100 x 4 KiB over a
            // 64 KiB cap) and the OpenSSL cut-off.
            Axes {
                lengths: vec![64, 4 << 10],
                multiplicities: vec![1, 10, 100],
                kernel_messages: 10,
                layout_messages: 10,
                budget: opts.budget,
                limits: DataLimits {
                    max_bytes: 64 << 10,
                    window_bytes: 64 << 10,
                },
                openssl_max_batch: 64 << 10,
            }
        } else {
            Axes {
                lengths: vec![64, 1 << 10, 4 << 10, 64 << 10],
                multiplicities: vec![1, 10, 100, 1000, 10_000, 100_000],
                kernel_messages: 1000,
                layout_messages: 100,
                budget: opts.budget_or(Duration::from_secs(150)),
                limits: DataLimits {
                    max_bytes: opts.data_limits.max_bytes.min(WINDOW_BUFFER),
                    window_bytes: opts.data_limits.window_bytes.min(WINDOW_BUFFER),
                },
                openssl_max_batch: OPENSSL_MAX_BATCH,
            }
        }
    }
}

/// The sweeps, cheapest first so that what the budget cuts is the costliest (10^5 messages).
fn specs(algorithms: &[Algorithm], axes: &Axes) -> Vec<SweepSpec> {
    let n = parhash::threads::available();
    let threads = if n > 1 { vec![1, n] } else { vec![1] };
    let base = |algs: Vec<Algorithm>, variants: Vec<String>| {
        let mut s = SweepSpec::new(algs);
        s.variants = VariantChoice::Named(variants);
        s.lengths = axes.lengths.clone();
        s.sources = vec![Source::Memory];
        s.threads = threads.clone();
        s.peers = false;
        s.anchor = false;
        s
    };
    let mut references: Vec<Algorithm> = algorithms.iter().map(|&a| openssl_reference(a)).collect();
    references.dedup();
    let mut out = Vec::new();
    for &m in &axes.multiplicities {
        let mut openssl = base(references.clone(), vec!["openssl".into()]);
        openssl.multiplicities = vec![m];
        openssl.threads = vec![1];
        openssl
            .lengths
            .retain(|&len| len.saturating_mul(m) <= axes.openssl_max_batch);
        if !openssl.lengths.is_empty() {
            out.push(openssl);
        }
        let mut batch = base(algorithms.to_vec(), vec![BATCH.into()]);
        batch.multiplicities = vec![m];
        out.push(batch);
        if m == axes.kernel_messages {
            for &alg in algorithms {
                let kernels = parhash::lab::batch::kernels(alg)
                    .into_iter()
                    .map(kernel_variant);
                let mut each = base(vec![alg], kernels.collect());
                each.multiplicities = vec![m];
                out.push(each);
            }
        }
    }
    out
}

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let (found, not_built) = missing(ALGORITHMS);
    let algorithms: Vec<Algorithm> = found
        .into_iter()
        .filter(|&a| parhash::lab::batch::has_lanes(a))
        .collect();
    let axes = Axes::new(opts);
    let mut opts = opts.clone();
    opts.budget = axes.budget;
    opts.data_limits = axes.limits;
    let mut report = run_sweeps(
        "Many messages at once (batch engine; the FPGA-accelerated Xeon study's framing)",
        &specs(&algorithms, &axes),
        &opts,
    )?;
    report.notes.extend(not_built);
    let threads = parhash::threads::available();
    let results = Results {
        all: &report.measurements,
        threads,
    };

    report
        .sections
        .push(framing(&results, &algorithms, &axes, threads));
    report.sections.push(Section {
        title: "Throughput against multiplicity".into(),
        paragraphs: vec![format!(
            "Memory source: a batch of up to {} is held whole (every message in its own \
             place), larger ones are windows into one {} buffer. `batch` is hash_many as users \
             call it (best kernel; fewer messages than lanes are hashed one by one). OpenSSL \
             hashes the same messages one by one on one thread; it is timed up to {} per batch \
             (its rate is flat beyond: it reads one message at a time), and the `OpenSSL msgs` \
             column says which batch a row compares with; keccak256 is compared with OpenSSL's \
             SHA3-256 (OpenSSL has no Keccak-256; same permutation and rate). x OpenSSL: batch \
             throughput over OpenSSL's.",
            format_size(axes.limits.max_bytes),
            format_size(axes.limits.window_bytes),
            format_size(axes.openssl_max_batch),
        )],
        table: Some(results.multiplicity_table(&algorithms, &axes.lengths)),
    });
    report.sections.push(Section {
        title: format!(
            "Every lane kernel at {} messages per batch",
            axes.kernel_messages
        ),
        paragraphs: vec![
            "`batch-<kernel>` forces one kernel (even for fewer messages than lanes); `batch` \
             is the library's choice (batch::best_kernel, marked *). vs batch: against `batch` \
             on the same thread count."
                .into(),
        ],
        table: Some(results.kernel_table(&algorithms, &axes)),
    });
    let (samples, min_sample) = if opts.tiny {
        (3, Duration::from_micros(2))
    } else {
        (11, Duration::from_millis(1))
    };
    let (layouts, _) = layout_table(
        &algorithms,
        &axes.lengths,
        |_| axes.layout_messages,
        samples,
        min_sample,
    );
    report.sections.push(Section {
        title: format!(
            "Gathered against pre-interleaved layout, {} messages, one thread",
            axes.layout_messages
        ),
        paragraphs: vec![
            "The study's transfer layouts, in the CPU's SIMD lanes: gathered = hash_many \
             reading each lane's block from its own message (the widest vector kernel forced); \
             interleaved = the same lanes fed from a batch laid out block-interleaved \
             beforehand (parhash::batch::Interleaved), as a producer writing straight into \
             lanes would hand it over; layout = what building that layout costs on the host. \
             SHA-256's SHA-NI kernel has no interleaved layout: its rows are the vector lanes."
                .into(),
        ],
        table: Some(layouts),
    });
    report.charts = results.charts(&algorithms, &axes.lengths);
    Ok(report)
}

/// The measurements of the run, looked up by role.
struct Results<'a> {
    all: &'a [Measurement],
    /// "All threads".
    threads: usize,
}

impl Results<'_> {
    fn find(
        &self,
        alg: Algorithm,
        variant: &str,
        len: usize,
        messages: usize,
        threads: usize,
    ) -> Option<&Measurement> {
        self.all.iter().find(|m| {
            m.provider == Provider::Parhash
                && m.algorithm == alg.name()
                && m.variant == variant
                && m.message_len == len
                && m.messages == messages
                && m.threads == threads
        })
    }

    /// OpenSSL (its reference for `alg`) at `messages`, else at the largest batch it was timed
    /// on at that length.
    fn openssl(&self, alg: Algorithm, len: usize, messages: usize) -> Option<&Measurement> {
        let reference = openssl_reference(alg).name();
        self.all
            .iter()
            .filter(|m| {
                m.provider == Provider::Openssl
                    && m.algorithm == reference
                    && m.message_len == len
                    && m.messages <= messages
            })
            .max_by_key(|m| m.messages)
    }

    fn multiplicity_table(&self, algorithms: &[Algorithm], lengths: &[usize]) -> Table {
        let n = self.threads;
        let mut t = Table::new(&[
            "algorithm".to_string(),
            "message".into(),
            "msgs".into(),
            "1T msg/s".into(),
            "1T GB/s".into(),
            format!("{n}T msg/s"),
            format!("{n}T GB/s"),
            "OpenSSL msg/s".into(),
            "OpenSSL GB/s".into(),
            "OpenSSL msgs".into(),
            "1T x OpenSSL".into(),
            format!("{n}T x OpenSSL"),
        ]);
        let rate = |m: Option<&Measurement>| match m {
            Some(m) => (si(m.messages_per_s), sig3(m.gb_per_s)),
            None => ("-".into(), "-".into()),
        };
        for &alg in algorithms {
            for &len in lengths {
                for m in self.multiplicities(alg, len) {
                    let one = self.find(alg, BATCH, len, m, 1);
                    let all = self.find(alg, BATCH, len, m, n).filter(|_| n > 1);
                    let peer = self.openssl(alg, len, m);
                    let ratio = |ours: Option<&Measurement>| match (ours, peer) {
                        (Some(o), Some(p)) => format!("{}x", sig3(o.gb_per_s / p.gb_per_s)),
                        _ => "-".into(),
                    };
                    let mut row = vec![alg.name().to_string(), format_size(len), m.to_string()];
                    for cell in [rate(one), rate(all), rate(peer)] {
                        row.extend([cell.0, cell.1]);
                    }
                    row.push(peer.map_or("-".into(), |p| p.messages.to_string()));
                    row.push(ratio(one));
                    row.push(ratio(all));
                    t.push(row);
                }
            }
        }
        t
    }

    /// The multiplicities the batch engine was measured at for `alg` and `len`, ascending.
    fn multiplicities(&self, alg: Algorithm, len: usize) -> Vec<usize> {
        let mut out: Vec<usize> = self
            .all
            .iter()
            .filter(|m| m.algorithm == alg.name() && m.variant == BATCH && m.message_len == len)
            .map(|m| m.messages)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn kernel_table(&self, algorithms: &[Algorithm], axes: &Axes) -> Table {
        let n = self.threads;
        let m = axes.kernel_messages;
        let mut t = Table::new(&[
            "algorithm".to_string(),
            "message".into(),
            "kernel".into(),
            "lanes".into(),
            "1T msg/s".into(),
            "1T GB/s".into(),
            "1T vs batch".into(),
            format!("{n}T GB/s"),
            format!("{n}T vs batch"),
        ]);
        for &alg in algorithms {
            let best = parhash::lab::batch::best_kernel(alg);
            for &len in &axes.lengths {
                for kernel in parhash::lab::batch::kernels(alg) {
                    let variant = kernel_variant(kernel);
                    let versus = |threads: usize| {
                        let ours = self.find(alg, &variant, len, m, threads)?;
                        let batch = self.find(alg, BATCH, len, m, threads)?;
                        Some(format!("{}x", sig3(ours.gb_per_s / batch.gb_per_s)))
                    };
                    let one = self.find(alg, &variant, len, m, 1);
                    let all = self.find(alg, &variant, len, m, n).filter(|_| n > 1);
                    let marker = if kernel == best { "*" } else { "" };
                    t.push(vec![
                        alg.name().to_string(),
                        format_size(len),
                        format!("{}{marker}", kernel.name()),
                        parhash::lab::batch::lane_kernel(alg, kernel)
                            .map_or("-".into(), |k| k.lanes().to_string()),
                        one.map_or("-".into(), |m| si(m.messages_per_s)),
                        one.map_or("-".into(), |m| sig3(m.gb_per_s)),
                        versus(1).unwrap_or_else(|| "-".into()),
                        all.map_or("-".into(), |m| sig3(m.gb_per_s)),
                        versus(n).filter(|_| n > 1).unwrap_or_else(|| "-".into()),
                    ]);
                }
            }
        }
        t
    }

    /// The smallest multiplicity at which `pick` holds for the batch engine on `threads`.
    fn first_where(
        &self,
        alg: Algorithm,
        len: usize,
        threads: usize,
        pick: impl Fn(&Measurement) -> bool,
    ) -> Option<usize> {
        self.multiplicities(alg, len)
            .into_iter()
            .find(|&m| self.find(alg, BATCH, len, m, threads).is_some_and(&pick))
    }

    /// One chart per algorithm: GB/s against messages per batch, for each length on one and
    /// all threads, and OpenSSL.
    fn charts(&self, algorithms: &[Algorithm], lengths: &[usize]) -> Vec<Chart> {
        let n = self.threads;
        let mut out = Vec::new();
        for &alg in algorithms {
            let mut series = Vec::new();
            for &len in lengths {
                let mut line = |name: String, pick: &dyn Fn(&Measurement) -> bool| {
                    let mut points: Vec<(f64, f64)> = self
                        .all
                        .iter()
                        .filter(|m| m.message_len == len && pick(m))
                        .map(|m| (m.messages as f64, m.gb_per_s))
                        .collect();
                    points.sort_by(|a, b| a.0.total_cmp(&b.0));
                    if points.len() >= 2 {
                        let peer = name.contains("OpenSSL");
                        series.push(Series { name, points, peer });
                    }
                };
                let size = format_size(len);
                let batch_on = |threads: usize| {
                    move |m: &Measurement| {
                        m.algorithm == alg.name() && m.variant == BATCH && m.threads == threads
                    }
                };
                line(format!("{size} batch 1T"), &batch_on(1));
                if n > 1 {
                    line(format!("{size} batch {n}T"), &batch_on(n));
                }
                let reference = openssl_reference(alg).name();
                let peer = if reference == alg.name() {
                    "OpenSSL".to_string()
                } else {
                    format!("OpenSSL {reference}")
                };
                line(format!("{size} {peer} one by one"), &|m| {
                    m.provider == Provider::Openssl && m.algorithm == reference
                });
            }
            if !series.is_empty() {
                out.push(Chart {
                    name: format!("batch-{}", alg.name()),
                    title: format!("{}: throughput against messages per batch", alg.name()),
                    x_label: "messages per batch".into(),
                    y_label: "GB/s".into(),
                    log_x: true,
                    log_y: true,
                    series,
                    ..Chart::default()
                });
            }
        }
        out
    }
}

/// The seed study's framing, and where this machine's parallel hardware is fed.
fn framing(results: &Results, algorithms: &[Algorithm], axes: &Axes, threads: usize) -> Section {
    let mut t = Table::new(&[
        "algorithm".to_string(),
        "message".into(),
        "lanes (kernel)".into(),
        "1T beats OpenSSL from (msgs)".into(),
        format!("{threads}T at 90% of its peak from (msgs)"),
        format!("{threads}T peak GB/s"),
    ]);
    let at = |m: Option<usize>| m.map_or("-".into(), |m| m.to_string());
    for &alg in algorithms {
        let lane_text = lanes(alg).map_or("-".into(), |(n, k)| format!("{n} ({k})"));
        for &len in &axes.lengths {
            let openssl = |m: &Measurement| {
                results
                    .openssl(alg, len, m.messages)
                    .is_some_and(|p| m.gb_per_s > p.gb_per_s)
            };
            let peak = results
                .multiplicities(alg, len)
                .into_iter()
                .filter_map(|m| results.find(alg, BATCH, len, m, threads))
                .map(|m| m.gb_per_s)
                .fold(0.0, f64::max);
            let near_peak = results.first_where(alg, len, threads, |m| m.gb_per_s >= 0.9 * peak);
            t.push(vec![
                alg.name().to_string(),
                format_size(len),
                lane_text.clone(),
                at(results.first_where(alg, len, 1, openssl)),
                at(near_peak.filter(|_| peak > 0.0)),
                if peak > 0.0 { sig3(peak) } else { "-".into() },
            ]);
        }
    }
    Section {
        title: "Multiplicity decides whether the parallel hardware is fed".into(),
        paragraphs: vec![
            "The study of Keccak on an FPGA-accelerated Xeon measured one message at a time against \
             many messages at once: in software many messages were compute-bound and scaled linearly with cores, while its FPGA won \
             only on long messages and only once enough of them kept it busy. The same holds \
             for a CPU's parallel hardware: one message runs on one lane of one core, so \
             hash_many hashes it one by one; the SIMD lanes are full from as many messages as \
             the kernel has lanes, every core from lanes x threads, and past that throughput is \
             flat until the batch leaves the caches."
                .into(),
            format!(
                "Below: the kernel's lanes, the first multiplicity at which the batch engine on \
                 one thread beats OpenSSL hashing the same messages one by one, and the first at \
                 which {threads} threads reach 90% of their best throughput (multiplicities \
                 measured: {}).",
                axes.multiplicities
                    .iter()
                    .map(|m| m.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ],
        table: Some(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweeps_cover_the_issue_and_put_the_costliest_last() {
        let opts = LabOptions::new();
        let axes = Axes::new(&opts);
        let algorithms: Vec<Algorithm> = missing(ALGORITHMS).0;
        assert_eq!(algorithms.len(), ALGORITHMS.len());
        assert!(algorithms
            .iter()
            .all(|&a| parhash::lab::batch::has_lanes(a)));
        assert_eq!(axes.lengths, [64, 1024, 4096, 65536]);
        assert_eq!(axes.multiplicities, [1, 10, 100, 1000, 10_000, 100_000]);
        // The largest batch (10^5 x 64 KiB, 6.5 GB) is windows into at most 64 MiB.
        assert!(
            axes.limits.max_bytes <= WINDOW_BUFFER && axes.limits.window_bytes <= WINDOW_BUFFER
        );
        let specs = specs(&algorithms, &axes);
        let biggest = |s: &SweepSpec| s.multiplicities[0] * s.lengths.iter().max().unwrap();
        let last = specs.last().unwrap();
        assert_eq!(biggest(last), 100_000 * 65536);
        assert!(specs
            .windows(2)
            .all(|w| w[0].multiplicities[0] <= w[1].multiplicities[0]));
        // OpenSSL one by one, on one thread, never past its cap.
        let named =
            |s: &SweepSpec, name: &str| s.variants == VariantChoice::Named(vec![name.into()]);
        for s in specs.iter().filter(|s| named(s, "openssl")) {
            assert_eq!(s.threads, [1]);
            assert!(biggest(s) <= OPENSSL_MAX_BATCH);
        }
        // Every kernel of every algorithm, at one multiplicity.
        let kernels: Vec<&SweepSpec> = specs
            .iter()
            .filter(
                |s| matches!(&s.variants, VariantChoice::Named(v) if v[0].starts_with("batch-")),
            )
            .collect();
        assert_eq!(kernels.len(), algorithms.len());
        assert!(kernels
            .iter()
            .all(|s| s.multiplicities == [axes.kernel_messages]));
        let sha256 = kernels
            .iter()
            .find(|s| s.algorithms == [Algorithm::Sha256])
            .unwrap();
        let VariantChoice::Named(sha256_kernels) = &sha256.variants else {
            panic!("kernels are named")
        };
        assert!(sha256_kernels.contains(&"batch-portable".to_string()));
        let sha_ni_here = parhash::lab::lanes::Kernel::all(true)
            .iter()
            .any(|k| k.name() == "sha-ni");
        assert_eq!(
            sha256_kernels.contains(&"batch-sha-ni".to_string()),
            sha_ni_here
        );
    }
}
