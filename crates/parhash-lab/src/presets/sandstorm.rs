//! Seed study 1, redone: SANDstorm, a hash designed for multi-core. Speed-up against threads at
//! 50 MB and 500 MB messages (the study's scaling curves), and cycles per byte of the serial
//! forms against the parallel one (the study's 15 -> 8 cycles/byte on a 2-core Core 2).
//!
//! The thread count of one message is set through the `threads` engine registered here in
//! [`crate::engine::EXTRA_ENGINES`] (`SandstormN::with_threads`).

use std::sync::Arc;

use digest::Digest;
use parhash::Algorithm;

use super::{missing, Preset};
use crate::engine::{Engine, EngineRef, Provider, StreamHasher};
use crate::lab::{run_sweep, LabOptions};
use crate::report::{Report, Section, Table};
use crate::source::Source;
use crate::sweep::{SweepSpec, VariantChoice};
use crate::units::{format_size, sig3};

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "sandstorm",
    study: "seed study 1: SANDstorm, a hash designed for multi-core",
    about: "SANDstorm speed-up vs threads at 50 MB and 500 MB; cycles/byte serial vs parallel",
    run,
};

/// A SANDstorm hasher running one message on a given number of threads.
struct Threads<D> {
    algorithm: Algorithm,
    make: fn(usize) -> D,
}

struct State<D>(D);

impl<D: Digest + digest::FixedOutputReset + Send> StreamHasher for State<D> {
    fn update(&mut self, data: &[u8]) {
        Digest::update(&mut self.0, data);
    }
    fn finish_reset(&mut self) -> u8 {
        Digest::finalize_reset(&mut self.0)[0]
    }
}

impl<D: Digest + digest::FixedOutputReset + Send + 'static> Engine for Threads<D> {
    fn algorithm(&self) -> String {
        self.algorithm.name().to_string()
    }
    fn provider(&self) -> Provider {
        Provider::Parhash
    }
    fn variant(&self) -> String {
        "threads".into()
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        Box::new(State((self.make)(1)))
    }
    fn hash_batch(&self, messages: &[&[u8]], threads: usize) -> Option<u8> {
        let mut check = 0u8;
        for m in messages {
            let mut h = (self.make)(threads.max(1));
            Digest::update(&mut h, m);
            check = check.wrapping_add(h.finalize()[0]);
        }
        Some(check)
    }
    fn splits_one_message(&self) -> bool {
        true
    }
}

/// The `threads` engines of SANDstorm-256 and -512 (for [`crate::engine::EXTRA_ENGINES`]).
pub fn thread_engines(algorithm: Algorithm, _tree: &[String]) -> Vec<EngineRef> {
    match algorithm.name() {
        "sandstorm256" => vec![Arc::new(Threads {
            algorithm,
            make: parhash::Sandstorm256::with_threads,
        })],
        "sandstorm512" => vec![Arc::new(Threads {
            algorithm,
            make: parhash::Sandstorm512::with_threads,
        })],
        _ => Vec::new(),
    }
}

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let (algs, note) = missing(&["sandstorm256", "sandstorm512"]);
    let n = parhash::platform::available_threads();
    let mut spec = SweepSpec::new(algs);
    spec.variants = VariantChoice::Named(
        ["sequential", "interleaved", "parallel", "threads"]
            .map(String::from)
            .to_vec(),
    );
    spec.lengths = if opts.tiny {
        vec![1 << 20]
    } else {
        vec![50_000_000, 500_000_000]
    };
    spec.multiplicities = vec![1];
    spec.sources = vec![Source::Memory];
    spec.threads = (1..=n.max(2)).collect();
    spec.peers = false;
    spec.anchor = false;
    let mut opts = opts.clone();
    if !opts.tiny {
        opts.budget = opts.budget.max(std::time::Duration::from_secs(60));
    }
    let mut report = run_sweep("SANDstorm (seed study 1 redone)", &spec, &opts)?;
    report.notes.extend(note);

    let mut scaling = Table::new(&[
        "algorithm",
        "message",
        "threads",
        "cycles/B",
        "GB/s",
        "speed-up",
    ]);
    let mut serial = Table::new(&["algorithm", "message", "form", "cycles/B", "GB/s"]);
    for m in &report.measurements {
        let cpb = m.cycles_per_byte.map(sig3).unwrap_or_else(|| "-".into());
        if m.variant == "threads" {
            scaling.push(vec![
                m.algorithm.clone(),
                format_size(m.message_len),
                m.threads.to_string(),
                cpb,
                sig3(m.gb_per_s),
                sig3(m.speedup_vs_1_thread.unwrap_or(1.0)),
            ]);
        } else if m.threads == 1 {
            serial.push(vec![
                m.algorithm.clone(),
                format_size(m.message_len),
                m.variant.clone(),
                cpb,
                sig3(m.gb_per_s),
            ]);
        }
    }
    report.sections.push(Section {
        title: "Speed-up against threads (study 1's scaling curves)".into(),
        paragraphs: vec![
            "The study: an 8x speed-up on 8 cores needs about 64 MB; dual quad-core serial 18.5 \
             cycles/byte, OpenMP 2.4, OpenMP+asm 2.1. This machine's thread counts are below."
                .into(),
        ],
        table: Some(scaling),
    });
    report.sections.push(Section {
        title: "Serial against parallel, cycles per byte".into(),
        paragraphs: vec![
            "The study (2-core Core 2 at 2.6 GHz): SANDstorm-256 compression 13, serial hash 15, \
             parallel hash 8 cycles/byte; SANDstorm-512 serial 27, parallel 14. Cycles here are \
             TSC ticks."
                .into(),
        ],
        table: Some(serial),
    });
    Ok(report)
}
