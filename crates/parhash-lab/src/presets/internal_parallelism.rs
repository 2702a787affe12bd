//! Seed study 3, redone: the parallelism *inside* one compression function. For each algorithm
//! of the two-core microcontroller study (plus SIMD-256), the `sequential` form (portable,
//! literal) against the `parallel` form (SIMD inside one compression), in TSC cycles and ns
//! per message at the study's input sizes (0, 55, 56, 64, 119, 1024 bytes: the padding
//! boundaries), the improvement in percent as in the study's Table II, the machine code size of
//! each form, and the study's own improvement figure beside it.

use std::time::Duration;

use super::Preset;
use crate::codesize;
use crate::engine::{self, EngineRef};
use crate::lab::{machine, LabOptions};
use crate::measure::message_cost;
use crate::report::{Report, Section, Table};

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "internal-parallelism",
    study: "seed study 3: SHA-3 finalists on a two-core microcontroller",
    about: "sequential vs parallel form of each compression: cycles at 0..1024 B, improvement %, code size",
    run,
};

/// (registry name, display name, the study's improvement).
const ALGORITHMS: &[(&str, &str, &str)] = &[
    ("blake256", "BLAKE-256", "~73%"),
    ("groestl256", "Grøstl-256", "33-46%"),
    ("jh256", "JH-256", "~73%"),
    ("keccak256", "Keccak-256", "~58%"),
    ("skein512-256", "Skein-512-256", "~18%"),
    ("simd256", "SIMD-256", "(not in study 3)"),
    ("md5", "MD5", "7-14%"),
    ("sha1", "SHA-1", "~35%"),
    ("sha256", "SHA-256", "~39%"),
];

/// The study's input sizes.
pub const SIZES: [usize; 6] = [0, 55, 56, 64, 119, 1024];

/// The two forms compared: `sequential` (else `portable`/`reference`) and `parallel` (else the
/// default variant when it differs).
fn forms(alg: parhash::Algorithm) -> (Option<EngineRef>, Option<EngineRef>) {
    let seq = ["sequential", "portable", "reference"]
        .iter()
        .find_map(|v| engine::parhash_variant(alg, v));
    let par = engine::parhash_variant(alg, "parallel").or_else(|| {
        let d = engine::default_variant(alg);
        let seq_name = seq.as_ref().map(|e| e.variant());
        (seq_name.as_deref() != Some(d))
            .then(|| engine::parhash_variant(alg, d))
            .flatten()
    });
    (seq, par)
}

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let machine = machine(opts);
    let tsc = machine.tsc_hz;
    let mut report = Report::new(
        "internal parallelism (seed study 3 redone)",
        &opts.command,
        machine,
    );
    let (samples, min_sample) = if opts.tiny {
        (5, Duration::from_micros(5))
    } else {
        (101, Duration::from_micros(20))
    };
    let sizes = codesize::form_sizes();
    if let Err(e) = &sizes {
        report.notes.push(format!("code sizes unavailable: {e}"));
    }
    let mut cycles = Table::new(&[
        "algorithm",
        "bytes",
        "sequential cycles",
        "parallel cycles",
        "sequential ns",
        "parallel ns",
        "improvement",
        "study 3",
    ]);
    let mut code = Table::new(&[
        "algorithm",
        "sequential form",
        "code bytes",
        "parallel form",
        "code bytes",
    ]);
    let started = std::time::Instant::now();
    let mut absent = Vec::new();
    for &(name, display, seed) in ALGORITHMS {
        let Ok(alg) = parhash::Algorithm::from_name(name) else {
            absent.push(display);
            continue;
        };
        let (seq, par) = forms(alg);
        let Some(seq) = seq else {
            absent.push(display);
            continue;
        };
        let label = |e: &Option<EngineRef>| e.as_ref().map(|e| e.variant());
        for &len in &SIZES {
            let (s_ns, s_ticks) = message_cost(&*seq, len, samples, min_sample);
            let p = par
                .as_ref()
                .map(|p| message_cost(&**p, len, samples, min_sample));
            let cyc = |t: f64| {
                if tsc.is_some() {
                    format!("{t:.0}")
                } else {
                    "-".into()
                }
            };
            let (p_cyc, p_ns, improvement) = match &p {
                Some((p_ns, p_ticks)) => {
                    let base = if tsc.is_some() {
                        s_ticks.median
                    } else {
                        s_ns.median
                    };
                    let new = if tsc.is_some() {
                        p_ticks.median
                    } else {
                        p_ns.median
                    };
                    (
                        cyc(p_ticks.median),
                        format!("{:.0}", p_ns.median),
                        format!("{:+.1}%", (base - new) / base * 100.0),
                    )
                }
                None => ("-".into(), "-".into(), "no parallel form".into()),
            };
            cycles.push(vec![
                format!(
                    "{display} ({} vs {})",
                    seq.variant(),
                    label(&par).unwrap_or_else(|| "-".into())
                ),
                len.to_string(),
                cyc(s_ticks.median),
                p_cyc,
                format!("{:.0}", s_ns.median),
                p_ns,
                improvement,
                seed.to_string(),
            ]);
        }
        let size =
            |e: &Option<EngineRef>| -> (String, String) {
                let Some(e) = e else {
                    return ("-".into(), "-".into());
                };
                match sizes.as_ref().ok().and_then(|s| {
                    codesize::size_of(s, alg.info().family.name(), name, &e.variant())
                }) {
                    Some((path, bytes)) => (path, bytes.to_string()),
                    None => (
                        format!("{} (no module of that name)", e.variant()),
                        "-".into(),
                    ),
                }
            };
        let (sp, sb) = size(&Some(seq.clone()));
        let (pp, pb) = size(&par);
        code.push(vec![display.to_string(), sp, sb, pp, pb]);
    }
    let hz = tsc
        .map(|h| format!("{:.3} GHz", h / 1e9))
        .unwrap_or_else(|| "absent".into());
    report.sections.push(Section {
        title: "Cycles per message, sequential vs parallel form (study 3, Table II)".into(),
        paragraphs: vec![format!(
            "Cycles are time-stamp-counter ticks (TSC measured at {hz}; the core clock may differ \
             under boost), median of {samples} samples of one message hashed from memory on one \
             thread, reusing one state. Improvement = (sequential - parallel) / sequential, as in \
             the study; the study's figure (a 2-core S12X/XGATE microcontroller) is beside it."
        )],
        table: Some(cycles),
    });
    report.sections.push(Section {
        title: "Machine code size of each form".into(),
        paragraphs: vec![
            "Read from this binary's symbol table (/proc/self/exe parsed with the object crate): \
             the sizes of all function symbols whose demangled path contains \
             parhash::algo::<family>::<form>. A family's form module serves all its digest \
             sizes; code inlined into callers outside it is not counted."
                .into(),
        ],
        table: Some(code),
    });
    if !absent.is_empty() {
        report.notes.push(format!(
            "not built yet in this parhash, so not measured: {}",
            absent.join(", ")
        ));
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}
