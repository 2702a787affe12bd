//! Seed study 2, redone: fast Whirlpool. The byte-wise reference compression against the fused
//! form (SubBytes, ShiftColumns and MixRows as one table lookup per byte), in MiB/s, beside the
//! RustCrypto crate and the study's figures.

use super::{missing, Preset};
use crate::lab::{run_sweep, LabOptions};
use crate::report::{Report, Section, Table};
use crate::sweep::{SweepSpec, VariantChoice};
use crate::units::{format_size, sig3};

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "whirlpool",
    study: "fast Whirlpool in x86 assembly (Nayuki)",
    about: "Whirlpool reference vs fused, MiB/s and cycles/byte, beside RustCrypto",
    run,
};

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let (algs, note) = missing(&["whirlpool"]);
    let mut spec = SweepSpec::new(algs);
    spec.variants = VariantChoice::All;
    spec.lengths = if opts.tiny {
        vec![16 << 10]
    } else {
        vec![64 << 10, 1 << 20]
    };
    spec.multiplicities = vec![1];
    spec.threads = vec![1];
    spec.anchor = false;
    let mut report = run_sweep(
        "Fast Whirlpool in x86 assembly, redone",
        &spec,
        &opts.clone(),
    )?;
    report.notes.extend(note);
    let mut t = Table::new(&[
        "implementation",
        "message",
        "MiB/s",
        "cycles/B",
        "x reference",
        "study (Core 2, 1 core)",
    ]);
    let mib = |gb_per_s: f64| gb_per_s * 1e9 / (1 << 20) as f64;
    for m in &report.measurements {
        let reference = report.measurements.iter().find(|r| {
            r.provider == crate::engine::Provider::Parhash
                && r.variant == "reference"
                && r.message_len == m.message_len
        });
        let study = match (m.provider, m.variant.as_str()) {
            (crate::engine::Provider::Parhash, "reference") => "naive C: 0.8-8 MiB/s",
            (crate::engine::Provider::Parhash, "fused") => {
                "x86-64 asm: 63.0 MiB/s, ~36 cycles/B (x86 asm 58.7)"
            }
            _ => "-",
        };
        t.push(vec![
            m.label(),
            format_size(m.message_len),
            sig3(mib(m.gb_per_s)),
            m.cycles_per_byte.map(sig3).unwrap_or_else(|| "-".into()),
            reference
                .map(|r| sig3(r.ns_per_byte / m.ns_per_byte))
                .unwrap_or_else(|| "-".into()),
            study.into(),
        ]);
    }
    report.sections.push(Section {
        title: "Reference against fused, MiB/s".into(),
        paragraphs: vec![
            "The study (Core 2 Q6600 2.4 GHz, one core): naive C 0.8-8 MiB/s depending on -O \
             level; x86 asm 58.7 MiB/s; x86-64 asm 63.0 MiB/s (about 36 cycles/byte). Here: one \
             message from memory on one thread, median of the samples; MiB = 2^20 bytes; cycles \
             are TSC ticks; x reference = speed-up over parhash's byte-wise reference form."
                .into(),
        ],
        table: Some(t),
    });
    Ok(report)
}
