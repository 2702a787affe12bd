//! Seed study 3, redone: the parallelism *inside* one compression function. For each algorithm
//! of the two-core microcontroller study (plus SIMD-256 from study 5), the `sequential` form
//! (portable, literal) against the `parallel` form (SIMD inside one compression), in TSC cycles
//! and ns per message at the study's input sizes (0, 55, 56, 64, 119, 1024 bytes: the padding
//! boundaries), the improvement in percent as in the study's Table II, the machine code size of
//! each form, and the study's own improvement figure beside it. RC5 (a cipher, not in the hash
//! registry): key expansion then encryption, against the overlapped form, and a second table
//! of what the overlap gains and loses (one block, many blocks per key, a one-shot call per
//! block, decryption).
//!
//! The forms are discovered from `Algorithm::variants()`: `sequential` (else the single
//! `portable` form) against `parallel`; where the default variant is a third form (`sha-ni`), it
//! is compared too. A form that is not built (yet) is said so in its row.

use std::time::Duration;

use parhash::lab::rc5::{self, overlapped, Rc5_32_12_16};
use parhash::{Algorithm, VariantInfo};

use super::Preset;
use crate::codesize::{self, Symbols};
use crate::engine::EngineRef;
use crate::engines;
use crate::lab::{machine, LabOptions};
use crate::measure::{message_costs, work_cost};
use crate::report::{Report, Section, Table};
use crate::timer::Stats;

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "internal-parallelism",
    study: "the SHA-3 finalists on a two-core microcontroller (S12X + XGATE)",
    about: "sequential vs parallel form of each compression: cycles at 0..1024 B, improvement %, code size",
    run,
};

/// (registry name, display name, the study's improvement of the parallel form).
pub const ALGORITHMS: &[(&str, &str, &str)] = &[
    ("blake256", "BLAKE-256", "~73%"),
    ("groestl256", "Grøstl-256", "33-46%"),
    ("jh256", "JH-256", "~73%"),
    ("keccak256", "Keccak-256", "~58%"),
    ("skein512-256", "Skein-512-256", "~18%"),
    (
        "simd256",
        "SIMD-256",
        "- (FPGA-accelerated Xeon study only)",
    ),
    ("md5", "MD5", "7-14%"),
    ("sha1", "SHA-1", "~35%"),
    ("sha256", "SHA-256", "~39%"),
];

/// The study's figure for RC5 (its summary gives none).
const RC5_STUDY: &str = "- (no figure in the summary)";

/// The study's input sizes.
pub const SIZES: [usize; 6] = [0, 55, 56, 64, 119, 1024];

/// The forms of one algorithm to compare, by variant name: `Ok(name)` or `Err(why not)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormNames {
    /// `sequential`, else the only `portable`/`reference` form.
    pub sequential: Result<&'static str, String>,
    /// `parallel`.
    pub parallel: Result<&'static str, String>,
    /// The default variant when it is neither of the two (a hardware form such as `sha-ni`).
    pub other_default: Option<&'static str>,
}

/// Picks the forms to compare from an algorithm's variants (a pure function of the list).
pub fn pick_forms(variants: &[VariantInfo]) -> FormNames {
    let find = |name: &str| variants.iter().find(|v| v.name == name);
    let usable = |name: &str| -> Result<&'static str, String> {
        match find(name) {
            Some(v) if v.available => Ok(v.name),
            Some(v) => Err(format!("{} form not available on this CPU", v.name)),
            None => Err(format!("{name} form not built yet")),
        }
    };
    let sequential = ["sequential", "portable", "reference"]
        .iter()
        .find(|n| find(n).is_some())
        .map(|n| usable(n))
        .unwrap_or_else(|| Err("sequential form not built yet".into()));
    let parallel = usable("parallel");
    let chosen = [sequential.as_ref().ok(), parallel.as_ref().ok()];
    let other_default = variants
        .iter()
        .find(|v| v.default && v.available)
        .map(|v| v.name)
        .filter(|d| !chosen.iter().any(|c| c == &Some(d)));
    FormNames {
        sequential,
        parallel,
        other_default,
    }
}

/// Cost of one message: ns and TSC ticks (median/min/max).
type Cost = (Stats, Stats);

fn improvement(base: &Cost, new: &Cost, tsc: bool) -> String {
    let (b, n) = if tsc {
        (base.1.median, new.1.median)
    } else {
        (base.0.median, new.0.median)
    };
    if b > 0.0 {
        format!("{:+.1}%", (b - n) / b * 100.0)
    } else {
        "-".into()
    }
}

/// One compared pair over the sizes: rows of the cycles table.
struct Pair<'a> {
    label: String,
    study: &'a str,
    sequential: Vec<Cost>,
    other: Result<Vec<Cost>, String>,
}

fn push_rows(t: &mut Table, pair: &Pair, tsc: bool) {
    let cyc = |c: &Cost| {
        if tsc {
            format!("{:.0}", c.1.median)
        } else {
            "-".into()
        }
    };
    for (i, &len) in SIZES.iter().enumerate() {
        let s = &pair.sequential[i];
        let (p_cyc, p_ns, imp) = match &pair.other {
            Ok(costs) => (
                cyc(&costs[i]),
                format!("{:.0}", costs[i].0.median),
                improvement(s, &costs[i], tsc),
            ),
            Err(why) => ("-".into(), "-".into(), why.clone()),
        };
        t.push(vec![
            pair.label.clone(),
            len.to_string(),
            cyc(s),
            p_cyc,
            imp,
            pair.study.to_string(),
            format!("{:.0}", s.0.median),
            p_ns,
        ]);
    }
}

/// Adds the code-size row of one form.
fn size_row(
    code: &mut Table,
    symbols: &Result<Symbols, String>,
    display: &str,
    alg: Algorithm,
    variant: &str,
) {
    let (path, bytes) = symbols
        .as_ref()
        .ok()
        .and_then(|s| codesize::form_size(s, alg.info().family.name(), alg.name(), variant))
        .map(|(p, b)| (p, b.to_string()))
        .unwrap_or_else(|| ("no module named after this form".into(), "-".into()));
    code.push(vec![display.to_string(), variant.to_string(), bytes, path]);
}

/// Each engine's cost at every size; at each size the engines' samples are taken in turn
/// ([`message_costs`]), so the forms compared meet the same machine conditions.
fn costs(engines: &[&EngineRef], samples: usize, min_sample: Duration) -> Vec<Vec<Cost>> {
    let dyns: Vec<&dyn crate::engine::Engine> = engines.iter().map(|e| &***e).collect();
    let mut out = vec![Vec::with_capacity(SIZES.len()); engines.len()];
    for len in SIZES {
        for (k, cost) in message_costs(&dyns, len, samples, min_sample)
            .into_iter()
            .enumerate()
        {
            out[k].push(cost);
        }
    }
    out
}

/// RC5 on an input of `len` bytes: a fresh key, then `max(1, ceil(len / 8))` blocks encrypted
/// (ECB). Sequential: expand the key, then encrypt; overlapped: the first block encrypted inside
/// the key schedule's last pass, the others with the table it leaves.
fn rc5_costs(samples: usize, min_sample: Duration) -> (Vec<Cost>, Vec<Cost>) {
    let key: [u8; rc5::KEY_BYTES] = core::array::from_fn(|i| (i * 7 + 1) as u8);
    let mut seq = Vec::new();
    let mut ovl = Vec::new();
    for &len in &SIZES {
        let blocks: Vec<[u8; 8]> = (0..len.div_ceil(8).max(1))
            .map(|b| core::array::from_fn(|i| (b * 8 + i) as u8))
            .collect();
        seq.push(work_cost(
            || {
                let k = Rc5_32_12_16::new(std::hint::black_box(&key));
                blocks
                    .iter()
                    .fold(0u8, |a, b| a.wrapping_add(k.encrypt_block(*b)[0]))
            },
            samples,
            min_sample,
        ));
        ovl.push(work_cost(
            || {
                let (first, k) =
                    overlapped::encrypt_first_block(std::hint::black_box(&key), blocks[0]);
                blocks[1..]
                    .iter()
                    .fold(first[0], |a, b| a.wrapping_add(k.encrypt_block(*b)[0]))
            },
            samples,
            min_sample,
        ));
    }
    (seq, ovl)
}

/// Blocks one key encrypts in the "many blocks" cases of the gained-and-lost table (1 KiB).
const RC5_MANY_BLOCKS: usize = 128;

/// What one key costs and what the overlap does to that cost.
pub const RC5_GAINED_AND_LOST: &str = "The overlap hides the encryption behind the key \
    schedule's last pass, so it pays once per key: over many blocks the gain thins out, a \
    one-shot overlapped call per block redoes the 78 mixing steps for every block, and \
    decryption cannot overlap at all (it needs S[25], the schedule's last word, first).";

/// RC5 per case: what the overlapped form gains and loses against key expansion then
/// encryption (the implementation's own three ways to use it, and decryption, which has none).
fn rc5_gained_and_lost(samples: usize, min_sample: Duration, tsc: bool) -> Table {
    let key: [u8; rc5::KEY_BYTES] = core::array::from_fn(|i| (i * 7 + 1) as u8);
    let blocks: Vec<[u8; 8]> = (0..RC5_MANY_BLOCKS)
        .map(|b| core::array::from_fn(|i| (b * 8 + i) as u8))
        .collect();
    let cost = |work: &mut dyn FnMut() -> u8| work_cost(work, samples, min_sample);
    let expanded = || Rc5_32_12_16::new(std::hint::black_box(&key));
    let one_seq = cost(&mut || expanded().encrypt_block(blocks[0])[0]);
    let one_ovl = cost(&mut || overlapped::encrypt_block(std::hint::black_box(&key), blocks[0])[0]);
    let many_seq = cost(&mut || {
        let k = expanded();
        blocks.iter().fold(0u8, |a, b| a ^ k.encrypt_block(*b)[0])
    });
    let many_ovl_first = cost(&mut || {
        let (first, k) = overlapped::encrypt_first_block(std::hint::black_box(&key), blocks[0]);
        blocks[1..]
            .iter()
            .fold(first[0], |a, b| a ^ k.encrypt_block(*b)[0])
    });
    let many_ovl_each = cost(&mut || {
        blocks.iter().fold(0u8, |a, b| {
            a ^ overlapped::encrypt_block(std::hint::black_box(&key), *b)[0]
        })
    });
    let decrypt = cost(&mut || expanded().decrypt_block(blocks[0])[0]);

    let mut t = Table::new(&[
        "RC5-32/12/16, fresh key per call",
        "sequential cycles",
        "overlapped cycles",
        "change",
        "sequential ns",
        "overlapped ns",
        "why",
    ]);
    let cycles = |c: &Cost| {
        if tsc {
            format!("{:.0}", c.1.median)
        } else {
            "-".into()
        }
    };
    let many = format!("{RC5_MANY_BLOCKS} blocks (1 KiB)");
    let rows: [(String, &Cost, Option<&Cost>, &str); 4] = [
        (
            "encrypt 1 block".into(),
            &one_seq,
            Some(&one_ovl),
            "gained: the rounds run beside the last mixing pass",
        ),
        (
            format!("encrypt {many}, first block overlapped"),
            &many_seq,
            Some(&many_ovl_first),
            "the same gain, spread over all blocks",
        ),
        (
            format!("encrypt {many}, one-shot call per block"),
            &many_seq,
            Some(&many_ovl_each),
            "lost: the key schedule is redone for every block",
        ),
        (
            "decrypt 1 block".into(),
            &decrypt,
            None,
            "no overlapped form: decryption uses S[25] first",
        ),
    ];
    for (case, seq, ovl, why) in rows {
        t.push(vec![
            case,
            cycles(seq),
            ovl.map(cycles).unwrap_or_else(|| "-".into()),
            ovl.map(|o| improvement(seq, o, tsc))
                .unwrap_or_else(|| "-".into()),
            format!("{:.0}", seq.0.median),
            ovl.map(|o| format!("{:.0}", o.0.median))
                .unwrap_or_else(|| "-".into()),
            why.into(),
        ]);
    }
    t
}

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let machine = machine(opts);
    let tsc = machine.tsc_hz.is_some();
    let mut report = Report::new(
        "Internal parallelism: the SHA-3 finalists on a two-core microcontroller, redone",
        &opts.command,
        machine,
    );
    let (samples, min_sample) = if opts.tiny {
        (3, Duration::from_micros(2))
    } else {
        (101, Duration::from_micros(100))
    };
    let symbols = Symbols::of_this_binary();
    if let Err(e) = &symbols {
        report.notes.push(format!("code sizes unavailable: {e}"));
    }
    let mut cycles = Table::new(&[
        "algorithm (sequential vs other form)",
        "bytes",
        "sequential cycles",
        "other form cycles",
        "improvement",
        "microcontroller study",
        "sequential ns",
        "other form ns",
    ]);
    let mut code = Table::new(&["algorithm", "form", "code bytes", "module(s) counted"]);
    let started = std::time::Instant::now();
    let mut absent = Vec::new();
    for &(name, display, study) in ALGORITHMS {
        let Ok(alg) = Algorithm::from_name(name) else {
            absent.push(display);
            for (i, &len) in SIZES.iter().enumerate() {
                let why = if i == 0 { "not built yet" } else { "" };
                cycles.push(vec![
                    display.to_string(),
                    len.to_string(),
                    "-".into(),
                    "-".into(),
                    why.into(),
                    study.into(),
                    "-".into(),
                    "-".into(),
                ]);
            }
            continue;
        };
        let forms = pick_forms(&alg.variants());
        let seq = match &forms.sequential {
            Ok(v) => engines::parhash_variant(alg, v),
            Err(_) => None,
        };
        let Some(seq) = seq else {
            absent.push(display);
            continue;
        };
        let parallel = forms
            .parallel
            .clone()
            .and_then(|v| engines::parhash_variant(alg, v).ok_or_else(|| format!("{v} unusable")));
        let other = forms
            .other_default
            .and_then(|v| engines::parhash_variant(alg, v));
        // Every form of the algorithm measured together, sample by sample.
        let mut measured: Vec<&EngineRef> = vec![&seq];
        measured.extend(parallel.as_ref().ok());
        measured.extend(other.as_ref());
        let mut all_costs = costs(&measured, samples, min_sample).into_iter();
        let seq_costs = all_costs.next().expect("the sequential form's costs");
        let par_costs = parallel
            .as_ref()
            .map(|_| all_costs.next().expect("the parallel form's costs"));
        size_row(&mut code, &symbols, display, alg, &seq.variant());
        push_rows(
            &mut cycles,
            &Pair {
                label: format!("{display} ({} vs parallel)", seq.variant()),
                study,
                sequential: seq_costs.clone(),
                other: par_costs.map_err(|e| e.clone()),
            },
            tsc,
        );
        if let Ok(p) = &parallel {
            size_row(&mut code, &symbols, display, alg, &p.variant());
        } else if let Err(why) = &forms.parallel {
            code.push(vec![
                display.to_string(),
                "parallel".into(),
                "-".into(),
                why.clone(),
            ]);
        }
        if let Some(other) = other {
            push_rows(
                &mut cycles,
                &Pair {
                    label: format!(
                        "{display} ({} vs {}, the default)",
                        seq.variant(),
                        other.variant()
                    ),
                    study: "-",
                    sequential: seq_costs,
                    other: Ok(all_costs.next().expect("the default form's costs")),
                },
                tsc,
            );
            size_row(&mut code, &symbols, display, alg, &other.variant());
        }
    }
    let (rc5_seq, rc5_ovl) = rc5_costs(samples, min_sample);
    push_rows(
        &mut cycles,
        &Pair {
            label: "RC5-32/12/16 (key expansion then encryption vs overlapped)".into(),
            study: RC5_STUDY,
            sequential: rc5_seq,
            other: Ok(rc5_ovl),
        },
        tsc,
    );
    for (form, module) in [
        ("sequential", "parhash::lab::rc5::Rc5_32_12_16"),
        ("overlapped", "parhash::lab::rc5::overlapped"),
    ] {
        let bytes = symbols
            .as_ref()
            .ok()
            .map(|s| s.under(module).0)
            .filter(|&b| b > 0)
            .map(|b| b.to_string())
            .unwrap_or_else(|| "-".into());
        code.push(vec![
            "RC5-32/12/16".into(),
            form.into(),
            bytes,
            module.into(),
        ]);
    }
    let hz = report
        .machine
        .tsc_hz
        .map(|h| format!("{:.3} GHz", h / 1e9))
        .unwrap_or_else(|| "absent".into());
    report.sections.push(Section {
        title:
            "Cycles per message, sequential vs parallel form (the microcontroller study, Table II)"
                .into(),
        paragraphs: vec![
            format!(
                "Cycles are time-stamp-counter ticks (TSC frequency measured in this run: {hz}; \
                 the core clock may differ under boost), median of {samples} samples of one \
                 message hashed from memory on one thread, reusing one state (each sample repeats \
                 the message for at least {} us; the forms of one algorithm take their samples \
                 in turn, so a change of clock or load lands on all of them alike). \
                 Improvement = (sequential - other) / \
                 sequential in cycles, as in the study; the study's figure (a 2-core \
                 S12X/XGATE microcontroller) is beside it.",
                min_sample.as_micros()
            ),
            "Forms are found from each algorithm's variants: `sequential` (or its only \
             `portable` form) against `parallel`; where the default is a third form (a hardware \
             instruction such as SHA-NI), it is compared too. RC5 is a block cipher: per input, \
             a fresh 16-byte key and max(1, ceil(bytes/8)) blocks encrypted; its other form \
             encrypts the first block inside the key schedule's last pass."
                .into(),
        ],
        table: Some(cycles),
    });
    report.sections.push(Section {
        title: "RC5: what the overlapped key schedule gains and loses".into(),
        paragraphs: vec![
            RC5_GAINED_AND_LOST.into(),
            "Each call expands a fresh 16-byte key (or runs the overlapped form on it) and \
             encrypts or decrypts the blocks; change = (sequential - overlapped) / sequential, \
             negative where the overlapped form loses."
                .into(),
        ],
        table: Some(rc5_gained_and_lost(samples, min_sample, tsc)),
    });
    report.sections.push(Section {
        title: "Machine code size of each form".into(),
        paragraphs: vec![
            "Read from this binary's symbol table: /proc/self/exe parsed with the object crate, \
             every function symbol demangled (rustc-demangle), and the ELF sizes of the \
             functions defined in the form's module added up (trait impls of its types \
             included). A dispatching form counts all its ISA modules; code inlined into callers \
             outside the module is not counted, and one module serves all digest sizes of a \
             family."
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

#[cfg(test)]
mod tests {
    use super::*;

    fn v(name: &'static str, available: bool, default: bool) -> VariantInfo {
        VariantInfo {
            name,
            available,
            default,
            summary: "",
        }
    }

    #[test]
    fn forms_from_variants() {
        // Both forms, parallel the default.
        let f = pick_forms(&[
            v("sequential", true, false),
            v("parallel", true, true),
            v("parallel-avx2", true, false),
        ]);
        assert_eq!(f.sequential, Ok("sequential"));
        assert_eq!(f.parallel, Ok("parallel"));
        assert_eq!(f.other_default, None);
        // SHA-256 before its parallel form lands: sha-ni is the default.
        let f = pick_forms(&[v("sequential", true, false), v("sha-ni", true, true)]);
        assert_eq!(f.parallel, Err("parallel form not built yet".into()));
        assert_eq!(f.other_default, Some("sha-ni"));
        // A single-form family.
        let f = pick_forms(&[v("portable", true, true)]);
        assert_eq!(f.sequential, Ok("portable"));
        assert!(f.parallel.is_err());
        assert_eq!(f.other_default, None);
        // Built but not usable here.
        let f = pick_forms(&[v("sequential", true, true), v("parallel", false, false)]);
        assert_eq!(
            f.parallel,
            Err("parallel form not available on this CPU".into())
        );
    }

    #[test]
    fn rc5_table_shows_the_gain_and_the_loss() {
        let t = rc5_gained_and_lost(3, Duration::from_micros(2), false);
        assert_eq!(t.rows.len(), 4);
        let change = |row: usize| t.rows[row][3].trim_end_matches('%').parse::<f64>().unwrap();
        // Redoing the key schedule for each of 128 blocks costs many times one expansion.
        assert!(t.rows[2][0].contains("per block"), "{:?}", t.rows[2]);
        assert!(change(2) < -100.0, "{:?}", t.rows[2]);
        // Decryption has no overlapped form: nothing is measured for it.
        assert_eq!((t.rows[3][2].as_str(), t.rows[3][3].as_str()), ("-", "-"));
    }

    #[test]
    fn every_study_algorithm_has_both_forms_built() {
        // MD5 and SHA-256 once said "parallel form not built yet"; every form exists now, and
        // each has a portable kernel, so it is usable on any CPU.
        for &(name, display, _) in ALGORITHMS {
            let alg = Algorithm::from_name(name).expect(display);
            let forms = pick_forms(&alg.variants());
            assert!(
                forms.sequential.is_ok(),
                "{display}: {:?}",
                forms.sequential
            );
            assert_eq!(forms.parallel, Ok("parallel"), "{display}");
        }
    }

    #[test]
    fn every_study_algorithm_is_listed() {
        for alg in [
            "MD5", "SHA-1", "SHA-256", "BLAKE", "Grøstl", "JH", "Keccak", "Skein",
        ] {
            assert!(
                ALGORITHMS.iter().any(|(_, d, _)| d.starts_with(alg)),
                "{alg}"
            );
        }
    }
}
