//! Seed study 4, redone: PARSHA-256 against SHA-256 from 10 bytes to 10^8 bytes, on the CPU
//! (and the GPU when a GPU back-end exists: its engines then appear beside the CPU's).

use super::{missing, Preset};
use crate::lab::{run_sweep, LabOptions};
use crate::report::{Report, Section, Table};
use crate::sweep::{SweepSpec, VariantChoice};
use crate::units::sig3;

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "parsha",
    study: "seed study 4: fast hashing in CUDA, SHA-256 and PARSHA-256",
    about: "PARSHA-256 vs SHA-256 at 10^1..10^8 bytes, CPU (and GPU when present)",
    run,
};

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let (algs, note) = missing(&["parsha256", "sha256"]);
    let mut spec = SweepSpec::new(algs);
    spec.variants = VariantChoice::All;
    let top = if opts.tiny { 4 } else { 8 };
    spec.lengths = (1..=top).map(|e| 10usize.pow(e)).collect();
    spec.multiplicities = vec![1];
    spec.threads = vec![1];
    spec.anchor = false;
    let mut opts = opts.clone();
    if !opts.tiny {
        opts.budget = opts.budget.max(std::time::Duration::from_secs(60));
    }
    let mut report = run_sweep("PARSHA-256 (seed study 4 redone)", &spec, &opts)?;
    report.notes.extend(note);
    let gpu = report
        .roofs
        .as_ref()
        .and_then(|r| r.transfer.as_ref().map(|(n, _)| n.clone()));
    let mut t = Table::new(&["implementation", "bytes", "ns/B", "GB/s", "GPU"]);
    for m in &report.measurements {
        t.push(vec![
            m.label(),
            format!("1e{}", (m.message_len as f64).log10().round()),
            sig3(m.ns_per_byte),
            sig3(m.gb_per_s),
            gpu.clone().unwrap_or_else(|| "no GPU".into()),
        ]);
    }
    report.sections.push(Section {
        title: "10^1 to 10^8 bytes".into(),
        paragraphs: vec![
            "The study (V100, T = 13): the CPU is faster below about 10^4 bytes (kernel launch \
             overhead); at 10^8 bytes GPU PARSHA-256 is about 230x a naive single-thread CPU \
             SHA-256 (no SIMD, no SHA extensions). Here the CPU forms run on one thread."
                .into(),
        ],
        table: Some(t),
    });
    Ok(report)
}
