//! Seed study 1, redone: SANDstorm, a hash designed for multi-core. Cycles per byte of the
//! compression function, the serial hash and the parallel hash for SANDstorm-256 and -512 beside
//! the study's 13 / 15 / 8 and 24 / 27 / 14 (2-core Core 2), speed-up against threads at 50 MB
//! and 500 MB messages (the study's scaling curves), and speed-up against message size.
//!
//! Long messages are generated, not held: one 8 MiB chunk is fed repeatedly to the streaming
//! tree, so a 500 MB message needs 8 MiB of memory (the chunk stays in cache, which a hash at
//! these rates does not need anyway: it is far below memory bandwidth).
//!
//! The tables time SANDstorm's tree directly, kernel by kernel; sweeps reach the same tree
//! through the `threads` engine ([`crate::engines::tree`], `SandstormN::with_threads`).

use parhash::lab::algo::sandstorm::lanes::{Wide, LANES};
use parhash::lab::algo::sandstorm::tree::{Tree, TreeOptions};
use parhash::lab::algo::sandstorm::word::Word;
use parhash::lab::algo::sandstorm::{fast, Params, P256, P512};

use super::Preset;
use crate::lab::LabOptions;
use crate::report::{Machine, Report, Section, Table};
use crate::timer;
use crate::units::{format_size, sig3};

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "sandstorm",
    study: "SANDstorm, a hash designed for multi-core (Sandia report)",
    about:
        "SANDstorm cycles/byte (compression, serial, parallel) vs the study; speed-up vs threads \
            at 50/500 MB and vs message size",
    run,
};

/// Bytes of the generated chunk fed repeatedly (a whole number of blocks of both sizes).
const CHUNK: usize = 8 << 20;

/// Fastest of `reps` timings of `work`: (seconds, TSC ticks). The best run is the one least
/// disturbed by the other processes of a shared machine.
fn best<F: FnMut()>(reps: usize, mut work: F) -> timer::Sample {
    (0..reps.max(1))
        .map(|_| timer::time(&mut work))
        .min_by(|a, b| a.seconds.total_cmp(&b.seconds))
        .expect("at least one sample")
}

/// A measured rate: (cycles per byte as text, GB/s).
fn rate(sample: timer::Sample, bytes: usize) -> (String, f64) {
    let cpb = if sample.ticks > 0.0 {
        sig3(sample.ticks / bytes as f64)
    } else {
        "-".into()
    };
    (cpb, bytes as f64 / sample.seconds / 1e9)
}

/// Hashes a `len`-byte message made of `chunk` repeated, streamed through the tree.
fn hash_repeated<P: Params>(engine: TreeOptions, len: usize, chunk: &[u8]) -> u8 {
    let bb = Tree::<P::W>::block_bytes();
    let mut tree = Tree::new(P::K, P::BOUNDARIES, engine);
    let mut left = len;
    while left >= chunk.len() {
        tree.update_blocks(chunk);
        left -= chunk.len();
    }
    let whole = left / bb * bb;
    tree.update_blocks(&chunk[..whole]);
    let words = tree.finalize(&chunk[whole..left], len as u128 * 8);
    let mut out = vec![0u8; <P::W as Word>::BYTES];
    words[0].write_be_bytes(&mut out);
    out[0]
}

fn time_hash<P: Params>(
    engine: TreeOptions,
    len: usize,
    chunk: &[u8],
    reps: usize,
) -> timer::Sample {
    best(reps, || {
        std::hint::black_box(hash_repeated::<P>(engine, len, chunk));
    })
}

/// The portable compression function alone, one chain, `blocks` blocks per timing.
fn time_compression<P: Params>(blocks: usize, reps: usize) -> (timer::Sample, usize) {
    let input = vec![[<P::W as Default>::default(); 8]; blocks];
    let mut chain = P::K;
    let sample = best(reps, || {
        fast::compress_blocks(std::hint::black_box(&mut chain), &input);
    });
    (sample, blocks * 8 * <P::W as Word>::BYTES)
}

/// The eight-lane SIMD compression of SANDstorm-256 in form `wide`, `per_lane` blocks in each
/// lane.
fn time_wide_compression(wide: Wide, per_lane: usize, reps: usize) -> (timer::Sample, usize) {
    let data = vec![0x5au8; LANES * per_lane * 64];
    let mut chains = [P256::K; LANES];
    let sample = best(reps, || {
        wide.compress_blocks(
            std::hint::black_box(&mut chains),
            &data,
            &core::array::from_fn(|l| l * per_lane * 64),
            per_lane,
        );
    });
    (sample, data.len())
}

/// The engine a thread count and kernel choice mean.
fn engine(threads: usize, simd: bool) -> TreeOptions {
    if simd {
        TreeOptions::fastest(threads)
    } else {
        TreeOptions::portable(threads)
    }
}

fn kernel_name(simd: bool) -> &'static str {
    if let (true, Some(wide)) = (simd, Wide::detect()) {
        wide.name()
    } else {
        "portable"
    }
}

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let started = std::time::Instant::now();
    let tiny = opts.tiny;
    let machine = Machine::detect(std::time::Duration::from_millis(if tiny {
        20
    } else {
        200
    }));
    let mut report = Report::new(
        "SANDstorm: the Sandia report redone",
        &opts.command,
        machine,
    );
    let cores = parhash::threads::available();
    let reps = if tiny { 1 } else { 3 };
    let chunk: Vec<u8> = (0..CHUNK).map(|i| (i % 251) as u8).collect();
    let wide = Wide::detect();

    // 1. The study's three figures, for 256 and 512.
    let figure_len = if tiny { 1 << 20 } else { 50_000_000 };
    let comp_blocks = if tiny { 256 } else { 4096 };
    let mut figures = Table::new(&[
        "algorithm",
        "figure",
        "form",
        "cycles/B",
        "GB/s",
        "study cycles/B",
    ]);
    let mut push = |alg: &str,
                    figure: &str,
                    form: String,
                    sample: timer::Sample,
                    bytes: usize,
                    study: &str| {
        let (cpb, gbs) = rate(sample, bytes);
        figures.push(vec![
            alg.into(),
            figure.into(),
            form,
            cpb,
            sig3(gbs),
            study.into(),
        ]);
    };
    let (s, b) = time_compression::<P256>(comp_blocks, reps);
    push(
        "sandstorm256",
        "compression",
        "portable, 1 chain".into(),
        s,
        b,
        "13",
    );
    // Every SIMD form this CPU has (the AVX2 ones too where AVX-512 wins), to compare them.
    let forms: Vec<Wide> = [Wide::avx512(), Wide::avx2(), Wide::avx2_gather()]
        .into_iter()
        .flatten()
        .collect();
    for &w in &forms {
        let (s, b) = time_wide_compression(w, comp_blocks / LANES, reps);
        push(
            "sandstorm256",
            "compression",
            format!("{}, 8 lanes", w.name()),
            s,
            b,
            "13",
        );
    }
    let len = figure_len;
    let s = time_hash::<P256>(TreeOptions::SEQUENTIAL, len, &chunk, reps);
    push(
        "sandstorm256",
        "serial hash",
        "sequential".into(),
        s,
        len,
        "15",
    );
    let s = time_hash::<P256>(TreeOptions::INTERLEAVED, len, &chunk, reps);
    push(
        "sandstorm256",
        "serial hash",
        "interleaved, portable".into(),
        s,
        len,
        "-",
    );
    for &w in &forms {
        let e = TreeOptions {
            wide: Some(w),
            ..TreeOptions::INTERLEAVED
        };
        let s = time_hash::<P256>(e, len, &chunk, reps);
        push(
            "sandstorm256",
            "serial hash",
            format!("interleaved, {}", w.name()),
            s,
            len,
            "-",
        );
    }
    for simd in [false, true] {
        if simd && wide.is_none() {
            continue;
        }
        let s = time_hash::<P256>(engine(cores, simd), len, &chunk, reps);
        let form = format!("{cores} threads, {}", kernel_name(simd));
        push("sandstorm256", "parallel hash", form, s, len, "8");
    }
    let (s, b) = time_compression::<P512>(comp_blocks, reps);
    push(
        "sandstorm512",
        "compression",
        "portable, 1 chain".into(),
        s,
        b,
        "24",
    );
    let s = time_hash::<P512>(TreeOptions::SEQUENTIAL, len, &chunk, reps);
    push(
        "sandstorm512",
        "serial hash",
        "sequential".into(),
        s,
        len,
        "27",
    );
    let s = time_hash::<P512>(TreeOptions::INTERLEAVED, len, &chunk, reps);
    push(
        "sandstorm512",
        "serial hash",
        "interleaved, portable".into(),
        s,
        len,
        "-",
    );
    let s = time_hash::<P512>(TreeOptions::portable(cores), len, &chunk, reps);
    push(
        "sandstorm512",
        "parallel hash",
        format!("{cores} threads, portable"),
        s,
        len,
        "14",
    );
    report.sections.push(Section {
        title: "Cycles per byte against the study".into(),
        paragraphs: vec![format!(
            "The study (2-core Core 2 at 2.6 GHz): SANDstorm-256 compression 13, serial hash 15, \
             parallel hash 8 cycles/byte; SANDstorm-512 compression 24 (with intrinsics), serial \
             27, parallel 14. Here: cycles are TSC ticks, hashes over a {} message, best of {reps} \
             runs. SANDstorm-512 has no SIMD form (its 64x64->128 products have no vector \
             instruction); the SIMD forms (AVX-512, AVX2) are 224/256 only.",
            format_size(figure_len)
        )],
        table: Some(figures),
    });

    // 2. Speed-up against threads at 50 MB and 500 MB.
    let lens: Vec<usize> = if tiny {
        vec![1 << 20, 4 << 20]
    } else {
        vec![50_000_000, 500_000_000]
    };
    let max_threads = cores.max(2);
    let mut scaling = Table::new(&[
        "algorithm",
        "kernel",
        "message",
        "threads",
        "cycles/B",
        "GB/s",
        "speed-up",
    ]);
    let mut scale =
        |alg: &str, simd: bool, len: usize, time: &dyn Fn(TreeOptions) -> timer::Sample| {
            let mut one = None;
            for t in 1..=max_threads {
                let s = time(engine(t, simd));
                let (cpb, gbs) = rate(s, len);
                let base = *one.get_or_insert(s.seconds);
                scaling.push(vec![
                    alg.into(),
                    kernel_name(simd).into(),
                    format_size(len),
                    t.to_string(),
                    cpb,
                    sig3(gbs),
                    sig3(base / s.seconds),
                ]);
            }
        };
    for &len in &lens {
        let c = &chunk;
        if wide.is_some() {
            scale("sandstorm256", true, len, &|e| {
                time_hash::<P256>(e, len, c, reps)
            });
        }
        scale("sandstorm256", false, len, &|e| {
            time_hash::<P256>(e, len, c, reps)
        });
        scale("sandstorm512", false, len, &|e| {
            time_hash::<P512>(e, len, c, reps)
        });
    }
    report.sections.push(Section {
        title: "Speed-up against threads (the Sandia report's scaling curves)".into(),
        paragraphs: vec![
            "The study: an 8x speed-up on 8 cores needs about 64 MB; dual quad-core serial 18.5 \
             cycles/byte, OpenMP 2.4, OpenMP+asm 2.1. Speed-up is against 1 thread of the same \
             kernel. On a shared machine the second core may be busy: read the best-of-runs \
             figures as what the code can do, not as a guarantee."
                .into(),
        ],
        table: Some(scaling),
    });

    // 3. Speed-up against message size (all cores against one).
    let sizes: Vec<usize> = if tiny {
        vec![64 << 10, 1 << 20]
    } else {
        vec![64 << 10, 1 << 20, 8 << 20, 64 << 20]
    };
    let mut by_size = Table::new(&[
        "algorithm",
        "kernel",
        "message",
        "1 thread GB/s",
        "threads",
        "GB/s",
        "speed-up",
    ]);
    for &len in &sizes {
        // Small messages are timed over many repetitions.
        let repeat = (CHUNK / len).clamp(1, if tiny { 4 } else { 64 });
        let mut row = |alg: &str, simd: bool, time: &dyn Fn(TreeOptions) -> timer::Sample| {
            let one = time(engine(1, simd));
            let all = time(engine(cores, simd));
            let bytes = len * repeat;
            by_size.push(vec![
                alg.into(),
                kernel_name(simd).into(),
                format_size(len),
                sig3(rate(one, bytes).1),
                cores.to_string(),
                sig3(rate(all, bytes).1),
                sig3(one.seconds / all.seconds),
            ]);
        };
        let c = &chunk;
        let many256 = |e: TreeOptions| {
            best(reps, || {
                for _ in 0..repeat {
                    std::hint::black_box(hash_repeated::<P256>(e, len, c));
                }
            })
        };
        let many512 = |e: TreeOptions| {
            best(reps, || {
                for _ in 0..repeat {
                    std::hint::black_box(hash_repeated::<P512>(e, len, c));
                }
            })
        };
        if wide.is_some() {
            row("sandstorm256", true, &many256);
        }
        row("sandstorm256", false, &many256);
        row("sandstorm512", false, &many512);
    }
    report.sections.push(Section {
        title: "Speed-up against message size".into(),
        paragraphs: vec![format!(
            "Threads split whole level-2 superblocks (1000 blocks: 64,000 bytes for 256, \
             128,000 for 512), so short messages stay on one thread. {cores} threads against 1."
        )],
        table: Some(by_size),
    });
    // The honest ceiling: the fastest compression form on all threads, scaled by the message
    // bytes each compression carries (`crate::ceiling`).
    report
        .sections
        .push(crate::ceiling::sandstorm_section(tiny, &mut |len, bits| {
            let e = TreeOptions::fastest(cores);
            std::hint::black_box(if bits == 256 {
                hash_repeated::<P256>(e, len, &chunk)
            } else {
                hash_repeated::<P512>(e, len, &chunk)
            });
        }));
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}
