//! Seed study 4, redone: PARSHA-256 against SHA-256 on one message from 10 bytes to 10^8 bytes
//! (and 64 MiB): naive one-thread SHA-256 (parhash `sequential`), parhash's fastest SHA-256,
//! OpenSSL's SHA-256 in the same run, and PARSHA-256 (T = 13, l = 256) on 1 .. all threads;
//! time per message, speed-ups, and speed-up against threads at 64 MiB.
//!
//! The speed-up is set beside what this machine allows: `t` independent one-thread PARSHA-256
//! runs at once, each on its own copy of the message, share nothing but the machine, so their
//! combined rate over one run's is the most any `t`-thread form could gain here (a vCPU whose
//! sibling is busy, a shared power budget or memory bus all show in it). All forms take their
//! samples in turn, so a change of load on a shared host lands on all of them alike.
//!
//! PARSHA-256 runs as the `tree` engine ([`crate::engines::tree`]); this preset only chooses the
//! configurations and builds the tables.

use super::{missing, Preset};
use crate::engine::Provider;
use crate::engines::tree::parsha_digest;
use crate::lab::{run_sweeps, LabOptions};
use crate::measure::{available_memory, work_costs, Measurement};
use crate::report::{Report, Section, Table};
use crate::source::fill_pattern;
use crate::sweep::{SweepSpec, VariantChoice};
use crate::tree_params::TreeParams;
use crate::units::{format_size, sig3};

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "parsha",
    study: "fast hashing in CUDA, SHA-256 and PARSHA-256 (ETH Zurich)",
    about: "PARSHA-256 vs SHA-256 at 10^1..10^8 bytes on 1..N threads; speed-up vs threads beside the machine's ceiling",
    run,
};

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let n = parhash::threads::available().max(2);
    let top = if opts.tiny { 4 } else { 8 };
    let mut lengths: Vec<usize> = (1..=top).map(|e| 10usize.pow(e)).collect();
    let big = if opts.tiny { 1 << 20 } else { 64 << 20 };
    lengths.push(big);

    let (sha, sha_note) = missing(&["sha256"]);
    let mut sha_spec = SweepSpec::new(sha);
    sha_spec.variants = VariantChoice::Named(vec!["sequential".into(), "default".into()]);
    sha_spec.lengths = lengths.clone();
    sha_spec.multiplicities = vec![1];
    sha_spec.threads = vec![1];
    sha_spec.anchor = false;

    let (parsha, parsha_note) = missing(&["parsha256"]);
    let mut parsha_spec = SweepSpec::new(parsha);
    parsha_spec.variants = VariantChoice::Named(vec!["tree".into()]);
    parsha_spec.lengths = lengths;
    parsha_spec.multiplicities = vec![1];
    parsha_spec.threads = (1..=n).collect();
    parsha_spec.peers = false;
    parsha_spec.anchor = false;

    let mut opts = opts.clone();
    if !opts.tiny {
        opts.budget = opts.budget.max(std::time::Duration::from_secs(60));
    }
    let mut report = run_sweeps(
        "PARSHA-256: fast hashing in CUDA, redone",
        &[sha_spec, parsha_spec],
        &opts,
    )?;
    report.notes.extend(sha_note);
    report.notes.extend(parsha_note);

    let ms = report.measurements.clone();
    let find = |len: usize, pick: &dyn Fn(&Measurement) -> bool| {
        ms.iter().find(|m| m.message_len == len && pick(m)).cloned()
    };
    let naive = |m: &Measurement| m.algorithm == "sha256" && m.variant == "sequential";
    let openssl = |m: &Measurement| m.algorithm == "sha256" && m.provider == Provider::Openssl;
    let fastest = |m: &Measurement| {
        m.algorithm == "sha256" && m.provider == Provider::Parhash && m.variant != "sequential"
    };
    let mut headers = vec![
        "message".to_string(),
        "naive SHA-256 us".into(),
        "parhash SHA-256 us".into(),
        "OpenSSL SHA-256 us".into(),
    ];
    headers.extend((1..=n).map(|t| format!("PARSHA {t}T us")));
    headers.extend([
        format!("PARSHA {n}T vs naive"),
        format!("PARSHA {n}T vs OpenSSL"),
    ]);
    let mut table = Table::new(&headers);
    let us = |m: &Option<Measurement>| {
        m.as_ref()
            .map_or("-".into(), |m| sig3(m.ns_per_message / 1000.0))
    };
    let mut sizes: Vec<usize> = ms.iter().map(|m| m.message_len).collect();
    sizes.sort_unstable();
    sizes.dedup();
    for &len in &sizes {
        let parsha_t = |t: usize| {
            find(len, &|m: &Measurement| {
                m.algorithm == "parsha256" && m.threads == t
            })
        };
        let (nv, os) = (find(len, &naive), find(len, &openssl));
        let mut row = vec![format_size(len), us(&nv), us(&find(len, &fastest)), us(&os)];
        row.extend((1..=n).map(|t| us(&parsha_t(t))));
        let ratio = |base: &Option<Measurement>| match (base, parsha_t(n)) {
            (Some(b), Some(p)) => format!("{}x", sig3(b.ns_per_message / p.ns_per_message)),
            _ => "-".into(),
        };
        row.push(ratio(&nv));
        row.push(ratio(&os));
        table.push(row);
    }
    let samples = if opts.tiny { 3 } else { 11 };
    let scaling = scaling_table(big, n, samples);
    report.sections.push(Section {
        title: "Time per message, 10^1 to 10^8 bytes".into(),
        paragraphs: vec![
            "The study (V100, T = 13): at 10^8 bytes GPU PARSHA-256 was about 230x a naive \
             one-thread CPU SHA-256. Here: PARSHA-256 (T = 13, l = 256) on the CPU's SIMD \
             lanes and threads against SHA-256 on one thread (naive scalar, parhash's fastest, \
             OpenSSL)."
                .into(),
        ],
        table: Some(table),
    });
    report.sections.push(Section {
        title: format!("PARSHA-256 speed-up vs threads at {}", format_size(big)),
        paragraphs: vec![format!(
            "PARSHA-256 (T = 13, l = 256) on 1..{n} threads, and t independent one-thread \
             PARSHA-256 runs at once (each on its own copy of the message): their combined \
             rate over one run's is this machine's ceiling for a t-thread speed-up. All \
             forms take their {samples} samples in turn; medians."
        )],
        table: Some(scaling),
    });
    // The honest ceiling: SHA-256's fastest multi-stream compression on all threads, scaled by
    // the message bytes each compression carries (`crate::ceiling`).
    let params = TreeParams::default();
    let mut message = Vec::new();
    report.sections.push(crate::ceiling::parsha_section(
        opts.tiny,
        params.tree_height(),
        params.iv_bits(),
        &mut |len| {
            if message.len() != len {
                message = vec![0u8; len];
                fill_pattern(&mut message);
            }
            std::hint::black_box(parsha_digest(params, &message, n));
        },
    ));
    Ok(report)
}

/// Speed-up against threads at `len` bytes, beside the machine's ceiling (see the module docs).
fn scaling_table(len: usize, n: usize, samples: usize) -> Table {
    let params = TreeParams::default();
    // One message per thread for the independent runs, as far as a quarter of the free memory
    // allows (the ceiling column is left out past that).
    let copies = available_memory()
        .map_or(2, |free| free / 4 / len.max(1))
        .clamp(1, n);
    let messages: Vec<Vec<u8>> = (0..copies)
        .map(|_| {
            let mut m = vec![0u8; len];
            fill_pattern(&mut m);
            m
        })
        .collect();
    let parallel = |threads: usize| parsha_digest(params, &messages[0], threads)[0];
    let independent = |threads: usize| {
        std::thread::scope(|scope| {
            let others: Vec<_> = messages[1..threads]
                .iter()
                .map(|m| scope.spawn(move || parsha_digest(params, m, 1)[0]))
                .collect();
            others.into_iter().fold(parallel(1), |check, other| {
                check.wrapping_add(other.join().expect("a PARSHA-256 run panicked"))
            })
        })
    };
    let mut works: Vec<Box<dyn FnMut() -> u8 + '_>> = Vec::new();
    for t in 1..=n {
        works.push(Box::new(move || parallel(t)));
    }
    for t in 2..=copies {
        works.push(Box::new(move || independent(t)));
    }
    let mut refs: Vec<&mut dyn FnMut() -> u8> = works.iter_mut().map(|w| &mut **w as _).collect();
    let ns: Vec<f64> = work_costs(&mut refs, samples, std::time::Duration::from_millis(2))
        .into_iter()
        .map(|(ns, _)| ns.median)
        .collect();
    let one = ns[0];
    let mut table = Table::new(&[
        "threads",
        "GB/s",
        "speed-up vs 1 thread",
        "t one-thread runs at once, GB/s",
        "ceiling (their speed-up)",
        "share of the ceiling",
    ]);
    for t in 1..=n {
        let speedup = one / ns[t - 1];
        let mut row = vec![
            t.to_string(),
            sig3(len as f64 / ns[t - 1]),
            format!("{}x", sig3(speedup)),
        ];
        if t == 1 {
            row.extend(["-".into(), "1x".into(), "-".into()]);
        } else if t <= copies {
            let ceiling = t as f64 * one / ns[n + t - 2];
            row.extend([
                sig3((t * len) as f64 / ns[n + t - 2]),
                format!("{}x", sig3(ceiling)),
                format!("{:.0} %", 100.0 * speedup / ceiling),
            ]);
        } else {
            row.extend(["-".into(), "-".into(), "-".into()]);
        }
        table.push(row);
    }
    table
}
