//! Seed study 5, redone: Keccak and SIMD over the whole design space — message length,
//! single vs multi-message (SMH/MMH, the latter through the batch engine's SIMD lanes where the
//! algorithm has them), memory vs disk, threads — the table of dominating bottlenecks, and the
//! transfer layout (block-interleaved vs not). The study's accelerator (an FPGA) has no
//! counterpart here unless a GPU back-end registers an engine (`engines::EXTRA_ENGINES`): it then
//! fills the accelerator columns. Without one, "interleaved vs not" is measured where it also
//! matters on a CPU: the SIMD lanes of the batch engine, fed from messages lying apart in memory
//! (gathered) or from a batch laid out block-interleaved beforehand.

use std::time::Duration;

use super::{missing, Preset};
use crate::engine::Provider;
use crate::lab::{run_sweeps, LabOptions};
use crate::layout::layout_table;
use crate::report::{Report, Section, Table};
use crate::source::Source;
use crate::sweep::SweepSpec;
use crate::units::{format_size, sig3};

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "accelerator",
    study: "Keccak and SIMD on an FPGA-accelerated Xeon (Virginia Tech)",
    about: "Keccak-256 and SIMD-256: one/many messages x memory/disk x length x threads; interleaved vs not; bottleneck table",
    run,
};

/// The study's unit execution times (ns/B) beside ours: (algorithm, software 1 core, FPGA long,
/// FPGA short).
const STUDY_UET: &[(&str, &str)] = &[
    (
        "keccak256",
        "22.4 ns/B software (1 core, 1.6 GHz); FPGA 2.3 ns/B long, 713 ns/B short; 0.32 ns/B at the 3.2 GB/s bus",
    ),
    ("simd256", "19.1 ns/B software (1 core, 1.6 GHz)"),
];

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let names = ["keccak256", "simd256"];
    let (algs, note) = missing(&names);
    let mut spec = SweepSpec::new(algs.clone());
    let n = parhash::threads::available();
    spec.lengths = if opts.tiny {
        vec![64, 4096]
    } else {
        crate::units::SEED_LENGTHS.to_vec()
    };
    spec.multiplicities = if opts.tiny { vec![1, 4] } else { vec![1, 16] };
    spec.sources = vec![Source::Memory, Source::Disk];
    // The study's 1-4 software threads (this machine may have fewer).
    spec.threads = (1..=n.clamp(1, 4)).collect();
    spec.anchor = false;
    let mut opts = opts.clone();
    if !opts.tiny {
        opts.budget = opts.budget.max(Duration::from_secs(60));
    }
    // Accelerator engines (a GPU back-end's `gpu-packed` / `gpu-interleaved`...), when present:
    // the same axes, so they fill the accelerator columns.
    let mut specs = vec![spec.clone()];
    for &alg in &algs {
        let accel: Vec<String> = crate::engines::parhash_engines(alg)
            .into_iter()
            .filter(|e| e.on_accelerator())
            .map(|e| e.variant())
            .collect();
        if !accel.is_empty() {
            let mut on_device = spec.clone();
            on_device.algorithms = vec![alg];
            on_device.variants = crate::sweep::VariantChoice::Named(accel);
            on_device.peers = false;
            specs.push(on_device);
        }
    }
    let mut report = run_sweeps(
        "Keccak and SIMD on an FPGA-accelerated Xeon, redone",
        &specs,
        &opts,
    )?;
    report.notes.extend(note);
    let mmh = spec.multiplicities.last().copied().unwrap_or(1);

    // Unit execution time against the study.
    let mut t = Table::new(&[
        "algorithm",
        "one message ns/B, 64 B",
        "one message ns/B, longest",
        "many messages ns/B, longest, best engine",
        "study",
    ]);
    let longest = spec.lengths.iter().copied().max().unwrap_or(0);
    for (alg, study) in STUDY_UET {
        let best = |len: usize, messages: usize| {
            report
                .measurements
                .iter()
                .filter(|m| {
                    m.algorithm == *alg
                        && m.provider == Provider::Parhash
                        && m.message_len == len
                        && m.messages == messages
                        && m.source == Source::Memory
                        && (messages > 1 || m.threads == 1)
                })
                .min_by(|a, b| a.ns_per_byte.total_cmp(&b.ns_per_byte))
                .map(|m| format!("{} ({}, {} thr)", sig3(m.ns_per_byte), m.variant, m.threads))
                .unwrap_or_else(|| "-".into())
        };
        t.push(vec![
            alg.to_string(),
            best(64, 1),
            best(longest, 1),
            best(longest, mmh),
            study.to_string(),
        ]);
    }
    report.sections.push(Section {
        title: "Unit execution time against the study".into(),
        paragraphs: vec![format!(
            "Memory source; one message on one thread; many messages: batches of {mmh}, the fastest engine \
             and thread count measured (the batch engine runs Keccak in SIMD lanes; SIMD-256 has \
             no lane kernel, so many messages use threads only). Longest = {}. The study: software \
             compute-bound and scaling linearly with cores for many messages; the FPGA won only for long \
             messages and lost for short ones (half software padding, half communication); from \
             disk everything was disk-bound (~100 MB/s).",
            format_size(longest)
        )],
        table: Some(t),
    });

    // Interleaved vs not, in the lanes.
    let (samples, min_sample, lengths): (usize, Duration, Vec<usize>) = if opts.tiny {
        (3, Duration::from_micros(2), vec![64, 1536])
    } else {
        (
            21,
            Duration::from_millis(1),
            vec![64, 576, 1536, 4 << 10, 16 << 10, 64 << 10],
        )
    };
    // Four lane groups per batch (one in tiny mode).
    let groups = if opts.tiny { 1 } else { 4 };
    let (il, without) = layout_table(&algs, &lengths, |lanes| groups * lanes, samples, min_sample);
    let mut paragraphs = vec![
        "The study's transfer layouts: non-interleaved (each message contiguous; longer than the \
         FPGA's 8 KiB core buffer, multi-core collapsed to one core) against block-interleaved \
         (fixed it until the 3.2 GB/s bus saturated). Here, one thread, memory: gathered = the \
         batch engine reading each lane's block from its own message; interleaved = the same \
         lanes fed from a batch laid out block-interleaved beforehand (parhash::batch::\
         Interleaved), as a producer writing straight into lanes would hand it over; layout = \
         what building that layout from contiguous messages costs on the host."
            .to_string(),
    ];
    match report.roofs.as_ref().and_then(|r| r.transfer.as_ref()) {
        Some((device, bw)) => paragraphs.push(format!(
            "Accelerator present ({device}, host-to-device {}): its engines are in the sweep \
             above and in the accelerator columns of the bottleneck table.",
            crate::units::format_rate(*bw)
        )),
        None => paragraphs.push(
            "No accelerator back-end on this machine: the accelerator columns of the bottleneck \
             table say so, and the layouts are compared in the CPU's SIMD lanes only."
                .into(),
        ),
    }
    if !without.is_empty() {
        paragraphs.push(format!(
            "No multi-lane kernel (so no interleaved layout) for: {}.",
            without.join(", ")
        ));
    }
    report.sections.push(Section {
        title: "Interleaved against non-interleaved layout".into(),
        paragraphs,
        table: Some(il),
    });

    // The bottleneck table beside the study's (as its findings state it).
    if let Some(summary) = report.summary.clone() {
        let mut headers = vec!["this machine / study".to_string()];
        headers.extend(summary.columns.iter().cloned());
        let mut t = Table::new(&headers);
        for (row, cells) in &summary.rows {
            let disk = row.ends_with("disk");
            let mut out = vec![row.clone()];
            for (col, cell) in summary.columns.iter().zip(cells) {
                let short = col.starts_with("short");
                let accel = col.ends_with("accelerator");
                let study = match (disk, accel, short) {
                    (true, _, _) => "disk",
                    (false, false, _) => "compute",
                    (false, true, true) => "padding + communication",
                    (false, true, false) => "storage (non-interleaved) / bus (interleaved)",
                };
                out.push(format!("{cell} / {study}"));
            }
            t.push(out);
        }
        report.sections.push(Section {
            title: "Dominating bottleneck: this machine against the study".into(),
            paragraphs: vec![
                "Rows one/many messages x memory/disk, columns short (< 4 KiB)/long x software/accelerator. \
                 This machine: the most frequent classification among the configurations above \
                 (count/total), from the roofs and in-cache compute rates measured in this run. \
                 The study: as its findings state (software compute-bound from memory, \
                 disk-bound from disk; the FPGA padding- and communication-bound for short \
                 messages, storage-bound without interleaving and bus-bound with it for long ones)."
                    .into(),
            ],
            table: Some(t),
        });
    }
    Ok(report)
}
