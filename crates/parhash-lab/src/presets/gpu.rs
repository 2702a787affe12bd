//! The GPU back-end's own figures (seed studies 4 and 5 on a GPU), read from the GPU's event
//! timers so that kernel-only and end-to-end times stand side by side: batched SHA-256 in
//! compressions per second (and the nonce search), PARSHA-256 at 10^4, 10^6 and 10^8 bytes in
//! each kernel form against one SHA-256 core and parhash's CPU tree on 2 and all threads (beside
//! the measured host-to-device rate), and batched Keccak in both host layouts. Every end-to-end
//! figure stands beside the CPU on all threads and the limit that bounds it, with the bottleneck
//! named; a file in the page cache is timed against the host's read rate and the copy rate, and
//! the size from which the GPU wins end to end is named for each algorithm, in memory here and
//! as `parhash sum` commands in [`super::gpu_sum`] (what `--device auto` follows). Without a
//! usable GPU it reports why and measures nothing.

use std::time::Instant;

use super::end_to_end::interleaved;
use super::gpu_sum::Crossover;
use super::Preset;
use crate::engines::gpu;
use crate::lab::{machine, LabOptions};
use crate::report::{Report, Section, Table};
use crate::source::ScratchFile;
use crate::units::{format_rate, format_size, sig3};
use parhash::file::FileHasher;
use parhash::{Algorithm, Hasher, Threads, TreeParams};
use parhash_cuda::{nonce, pack, Gpu, GpuTimes, KeccakKind, KeccakLayout, ParshaForm};

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "gpu",
    study: "fast hashing in CUDA (ETH Zurich) and Keccak on an FPGA-accelerated Xeon, on the GPU back-end",
    about:
        "GPU: SHA-256 compressions/s, nonce search, PARSHA-256 kernel vs end-to-end, Keccak layouts",
    run,
};

/// The SHA-256 variant the CPU runs by default (`sha-ni`, `avx2`, ...).
fn sha256_kernel_name() -> &'static str {
    parhash::Algorithm::Sha256
        .variants()
        .into_iter()
        .find(|v| v.default)
        .map_or("portable", |v| v.name)
}

/// The largest tree height a form runs.
fn form_max_height(form: ParshaForm) -> u32 {
    match form {
        ParshaForm::Warp => parhash_cuda::plan::WARP_MAX_HEIGHT,
        ParshaForm::Block => parhash_cuda::plan::BLOCK_MAX_HEIGHT,
        ParshaForm::Rounds => parhash::parsha256::MAX_TREE_HEIGHT,
    }
}

/// The fastest of `reps` runs of `f`, in seconds.
fn best_seconds(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps.max(1))
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Best of `reps` runs (by end-to-end time).
fn best<T>(
    reps: usize,
    mut f: impl FnMut() -> Result<(T, GpuTimes), parhash_cuda::GpuError>,
) -> Result<GpuTimes, parhash_cuda::GpuError> {
    let mut best: Option<GpuTimes> = None;
    for _ in 0..reps.max(1) {
        let (_, t) = f()?;
        if best.is_none_or(|b| t.total_s < b.total_s) {
            best = Some(t);
        }
    }
    Ok(best.expect("at least one run"))
}

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let started = Instant::now();
    let mut report = Report::new(
        "GPU back-end (the CUDA and FPGA studies redone)",
        &opts.command,
        machine(opts),
    );
    let gpu = match gpu::shared() {
        Ok(g) => g,
        Err(e) => {
            report.notes.push(format!(
                "{e}. Nothing was measured; on a GPU machine run `parhash bench --preset gpu` \
                 (or scripts/gpu-check.sh)."
            ));
            report.sections.push(Section {
                title: "No GPU".into(),
                paragraphs: vec![e.to_string()],
                table: None,
            });
            return Ok(report);
        }
    };
    let measured = measure(&gpu, opts, &mut report);
    if let Err(e) = measured {
        report
            .notes
            .push(format!("the GPU failed during the run: {e}"));
    }
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// How the tables' bottleneck column is decided.
const BOTTLENECK_RULE: &str = "Bottleneck: the largest of the kernel time, the copy of the \
     staged bytes at the pinned copy rate, and the host's time (end to end less the larger of \
     those two: packing or reading, launches, digests back).";

/// The bottleneck of one end-to-end run ([`BOTTLENECK_RULE`]); `copy_s` is its bytes at the
/// pinned copy rate.
fn bottleneck(times: &GpuTimes, copy_s: f64) -> &'static str {
    let device = times.kernel_s.max(copy_s);
    if times.total_s - device >= device {
        "host"
    } else if times.kernel_s >= copy_s {
        "kernel"
    } else {
        "copy"
    }
}

fn gbps(bytes: f64, s: f64) -> String {
    if s > 0.0 {
        sig3(bytes / s / 1e9)
    } else {
        "-".into()
    }
}

fn measure(
    gpu: &Gpu,
    opts: &LabOptions,
    report: &mut Report,
) -> Result<(), parhash_cuda::GpuError> {
    let reps = if opts.tiny { 1 } else { 3 };
    let h2d = gpu.h2d_rate(if opts.tiny { 1 << 20 } else { 256 << 20 })?;
    let (sms, clock_khz) = gpu.multiprocessors_and_clock_khz()?;
    report.sections.push(Section {
        title: format!("Device: {} ({})", gpu.name(), gpu.arch()),
        paragraphs: vec![format!(
            "{sms} multiprocessors at up to {} MHz; host-to-device copy rate from pinned memory: {}.",
            clock_khz / 1000,
            format_rate(h2d)
        )],
        table: None,
    });

    // Batched SHA-256: 55-byte messages are one compression each (hashcat's case). A batch of
    // one length travels without tables; one of mixed lengths (40..=55 bytes, still one
    // compression each) with them.
    let mut t = Table::new(&[
        "workload",
        "messages",
        "compressions/s, kernel",
        "compressions/s, end to end",
        "end to end / kernel",
        "copy limit (staged bytes at the copy rate)",
        "compressions/s, CPU all threads",
        "bottleneck",
    ]);
    let sizes: &[(usize, usize, bool)] = if opts.tiny {
        &[(55, 1 << 10, false), (55, 1 << 10, true)]
    } else {
        &[
            (55, 1 << 22, false),
            (55, 1 << 22, true),
            (1000, 1 << 18, false),
        ]
    };
    for &(len, count, mixed) in sizes {
        let data = vec![0x5au8; len * count];
        let msgs: Vec<&[u8]> = data
            .chunks_exact(len)
            .enumerate()
            .map(|(i, m)| if mixed { &m[..40 + i % 16] } else { m })
            .collect();
        let times = best(reps, || gpu.sha256_many_timed(&msgs))?;
        let cpu = best_seconds(reps, || {
            std::hint::black_box(parhash::batch::hash_many(parhash::Algorithm::Sha256, &msgs));
        });
        let compressions: f64 = msgs
            .iter()
            .map(|m| pack::sha256_block_count(m.len() as u64) as f64)
            .sum();
        let staged = pack::staged_len(&msgs) as f64;
        t.push(vec![
            if mixed {
                format!("sha256 of 40-{len}-byte messages (with tables)")
            } else {
                format!("sha256 of {len}-byte messages")
            },
            count.to_string(),
            sig3(compressions / times.kernel_s),
            sig3(compressions / times.total_s),
            format!("{:.1}%", 100.0 * times.kernel_s / times.total_s.max(1e-12)),
            sig3(compressions * h2d / staged),
            sig3(compressions / cpu),
            bottleneck(&times, staged / h2d).into(),
        ]);
    }
    let header = nonce::genesis_header();
    let impossible = [0u8; 32]; // no hash is below zero: every nonce is tried
    let nonces: u32 = if opts.tiny { 1 << 16 } else { 1 << 30 };
    let t0 = Instant::now();
    gpu.search_nonce(&header, impossible, 0..=nonces - 1)?;
    let s = t0.elapsed().as_secs_f64();
    t.push(vec![
        "nonce search (2 compressions per nonce, midstate on the host)".into(),
        nonces.to_string(),
        "-".into(),
        sig3(2.0 * f64::from(nonces) / s),
    ]);
    report.sections.push(Section {
        title: "Batched SHA-256".into(),
        paragraphs: vec![
            "Anchor: hashcat's SHA-256 reaches about 15 G compressions/s on an H100.".into(),
            "A batch of one length is copied without tables, each message at an 8-byte stride \
             (56 bytes for 55); one of mixed lengths with a 16-byte offset and length per \
             message and each message at a 16-byte boundary (80 bytes for 55). The copy limit \
             is what end to end could reach if only those bytes' copy took time."
                .into(),
            BOTTLENECK_RULE.into(),
        ],
        table: Some(t),
    });

    // PARSHA-256, l = 256, each kernel form on its largest tree up to the study's T = 13 (warp
    // T = 5, block T = 10, rounds T = 13), against the CPU on the same tree and one SHA-256 core.
    let mut t = Table::new(&[
        "bytes",
        "form",
        "T",
        "t",
        "kernel GB/s",
        "end-to-end GB/s",
        "CPU sha256 GB/s (1 thread)",
        "CPU parsha256 GB/s (2 threads)",
        "CPU parsha256 GB/s (all cores)",
        "bottleneck",
    ]);
    let exponents: &[u32] = if opts.tiny { &[4, 5] } else { &[4, 6, 8] };
    let forms = [ParshaForm::Warp, ParshaForm::Block, ParshaForm::Rounds];
    for &e in exponents {
        let len = 10usize.pow(e);
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let cpu_sha256 = best_seconds(reps, || {
            std::hint::black_box(parhash::hash(parhash::Algorithm::Sha256, &data));
        });
        for form in forms {
            let height = gpu::DEFAULT_TREE_HEIGHT.min(form_max_height(form));
            let mut run: Option<parhash_cuda::ParshaRun> = None;
            for _ in 0..reps {
                let r = gpu.parsha256_with(&data, height, gpu::DEFAULT_IV_BITS, Some(form))?;
                if run.is_none_or(|b| r.times.total_s < b.times.total_s) {
                    run = Some(r);
                }
            }
            let r = run.expect("one run");
            // End to end as files and `parhash::parsha256` run it: rounds overlapping copies.
            let e2e = best(reps, || {
                gpu.parsha256_from(
                    &data[..],
                    len as u64,
                    height,
                    gpu::DEFAULT_IV_BITS,
                    Some(form),
                )
                .map(|r| ((), r.times))
                .map_err(parhash_cuda::SourceError::in_memory)
            })?;
            let cpu_tree = |threads: parhash::Threads| {
                let options = parhash::parsha256::ParshaOptions {
                    threads,
                    ..Default::default()
                };
                let (_, digest) = parhash::parsha256::parsha256_with(
                    &data,
                    height,
                    gpu::DEFAULT_IV_BITS,
                    &options,
                )
                .expect("valid tree parameters");
                digest
            };
            // The GPU's digest is checked here too: a figure for a wrong digest is no figure.
            if cpu_tree(parhash::Threads::ALL) != r.digest {
                return Err(parhash_cuda::GpuError::InvalidInput(format!(
                    "PARSHA-256 of 1e{e} bytes, {} form: the GPU's digest differs from the CPU's",
                    form.name()
                )));
            }
            let two = best_seconds(reps, || {
                cpu_tree(parhash::Threads::new(2));
            });
            let all = best_seconds(reps, || {
                cpu_tree(parhash::Threads::ALL);
            });
            t.push(vec![
                format!("1e{e}"),
                r.form.map(|f| f.name()).unwrap_or("host (short)").into(),
                height.to_string(),
                r.t.to_string(),
                gbps(len as f64, r.times.kernel_s),
                gbps(len as f64, e2e.total_s),
                gbps(len as f64, cpu_sha256),
                gbps(len as f64, two),
                gbps(len as f64, all),
                bottleneck(
                    &GpuTimes {
                        kernel_s: r.times.kernel_s,
                        ..e2e
                    },
                    len as f64 / h2d,
                )
                .into(),
            ]);
        }
    }
    report.sections.push(Section {
        title: "PARSHA-256 (l = 256), each kernel form".into(),
        paragraphs: vec![format!(
            "Anchor: 61 GB/s kernel-only on a V100 at 10^8 bytes (the CUDA study, T = 13). \
                 End to end includes the copy of the message, so it cannot beat the \
                 host-to-device rate ({} GB/s here). Each form runs its largest tree up to \
                 T = 13 (warp 5, block 10); the CPU columns hash the same tree (every GPU digest \
                 was checked against the CPU's) and plain SHA-256 on one core ({}). {}",
            sig3(h2d / 1e9),
            sha256_kernel_name(),
            BOTTLENECK_RULE
        )],
        table: Some(t),
    });

    // Keccak: the two host layouts of seed study 5.
    let mut t = Table::new(&[
        "message",
        "messages",
        "layout",
        "kernel ns/B",
        "end-to-end ns/B",
        "copy share",
        "CPU ns/B (all threads)",
        "bottleneck",
    ]);
    let lens: &[usize] = if opts.tiny {
        &[64, 4096]
    } else {
        &[8, 64, 576, 1536, 4 << 10, 16 << 10, 64 << 10, 256 << 10]
    };
    let batch_bytes = if opts.tiny { 1 << 20 } else { 64 << 20 };
    for &len in lens {
        let count = (batch_bytes / len).clamp(64, 1 << 20);
        let data = vec![0xa5u8; len * count];
        let msgs: Vec<&[u8]> = data.chunks_exact(len).collect();
        let bytes = (len * count) as f64;
        let cpu = best_seconds(reps, || {
            std::hint::black_box(parhash::batch::hash_many(
                parhash::Algorithm::Sha3_256,
                &msgs,
            ));
        });
        for layout in [KeccakLayout::Packed, KeccakLayout::Interleaved] {
            let times = best(reps, || {
                gpu.keccak_many_timed(&msgs, KeccakKind::Sha3_256, layout)
            })?;
            t.push(vec![
                format_size(len),
                count.to_string(),
                format!("{layout:?}").to_lowercase(),
                sig3(times.kernel_s * 1e9 / bytes),
                sig3(times.total_s * 1e9 / bytes),
                format!("{:.0}%", 100.0 * times.h2d_s / times.total_s.max(1e-12)),
                sig3(cpu * 1e9 / bytes),
                bottleneck(
                    &times,
                    parhash_cuda::keccak_staged_len(&msgs, layout) as f64 / h2d,
                )
                .into(),
            ]);
        }
    }
    report.sections.push(Section {
        title: "SHA3-256 batches: packed vs block-interleaved".into(),
        paragraphs: vec![
            "The FPGA-accelerated Xeon study: the accelerator lost for short messages (713 ns/B, half padding, \
             half communication) and won for long ones (2.3 ns/B); interleaving fixed the \
             storage bottleneck until the bus saturated. Every batch here is of one length, so \
             the packed layout travels without tables (at an 8-byte stride). Kernel and copy \
             times are summed over the overlapping streams."
                .into(),
            BOTTLENECK_RULE.into(),
        ],
        table: Some(t),
    });

    crossover(gpu, opts, reps, h2d, report)?;
    super::gpu_sum::crossover(gpu.name(), opts, report);
    file_end_to_end(gpu, opts, h2d, report)
}

/// Where the GPU starts to win end to end against the CPU on all threads: PARSHA-256 (parhash's
/// T and l, the form chosen by height) at every power of ten of bytes, and the batched kernels
/// at every power of ten of 64-byte messages (in memory, `hash_many` on both sides, the GPU
/// open): the library's crossover. `sum --device auto` follows [`super::gpu_sum`]'s.
fn crossover(
    gpu: &Gpu,
    opts: &LabOptions,
    reps: usize,
    h2d: f64,
    report: &mut Report,
) -> Result<(), parhash_cuda::GpuError> {
    let (tree_height, iv_bits) = (gpu::DEFAULT_TREE_HEIGHT, gpu::DEFAULT_IV_BITS);
    let mut t = Table::new(&[
        "algorithm",
        "size",
        "GPU end to end GB/s",
        "CPU all threads GB/s",
        "faster",
        "bottleneck",
    ]);
    let mut paragraphs = Vec::new();
    let exponents = if opts.tiny { 3..=5 } else { 3..=8 };
    let mut wins = Crossover::default();
    for e in exponents {
        let len = 10usize.pow(e);
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let mut run: Option<parhash_cuda::ParshaRun> = None;
        for _ in 0..reps {
            let r = gpu
                .parsha256_from(&data[..], len as u64, tree_height, iv_bits, None)
                .map_err(parhash_cuda::SourceError::in_memory)?;
            if run.is_none_or(|b| r.times.total_s < b.times.total_s) {
                run = Some(r);
            }
        }
        let r = run.expect("one run");
        let cpu = best_seconds(reps, || {
            std::hint::black_box(parhash::parsha256::parsha256(&data, tree_height, iv_bits))
                .expect("valid tree parameters");
        });
        let gpu_won = wins.measured(e, r.times.total_s < cpu);
        t.push(vec![
            format!("parsha256 T={tree_height} l={iv_bits}"),
            format!("1e{e} bytes"),
            gbps(len as f64, r.times.total_s),
            gbps(len as f64, cpu),
            if gpu_won { "GPU" } else { "CPU" }.into(),
            bottleneck(&r.times, len as f64 / h2d).into(),
        ]);
    }
    paragraphs.push(wins.say(
        &format!("PARSHA-256 (T = {tree_height}, l = {iv_bits})"),
        "bytes",
    ));

    // The batched kernels: one GPU thread per 64-byte message (sha3-256 stands for keccak256,
    // the same kernel with another domain byte).
    const MESSAGE: usize = 64;
    let exponents = if opts.tiny { 2..=3 } else { 2..=6 };
    for algorithm in [Algorithm::Sha256, Algorithm::Sha3_256] {
        let mut wins = Crossover::default();
        for e in exponents.clone() {
            let count = 10usize.pow(e);
            let data = vec![0x3cu8; MESSAGE * count];
            let msgs: Vec<&[u8]> = data.chunks_exact(MESSAGE).collect();
            let times = best(reps, || match algorithm {
                Algorithm::Sha256 => gpu.sha256_many_timed(&msgs),
                _ => gpu.keccak_many_timed(&msgs, KeccakKind::Sha3_256, KeccakLayout::Packed),
            })?;
            let cpu = best_seconds(reps, || {
                std::hint::black_box(parhash::batch::hash_many(algorithm, &msgs));
            });
            let gpu_won = wins.measured(e, times.total_s < cpu);
            let staged = pack::staged_len(&msgs) as f64;
            t.push(vec![
                algorithm.name().to_string(),
                format!("1e{e} x {MESSAGE} bytes"),
                gbps(data.len() as f64, times.total_s),
                gbps(data.len() as f64, cpu),
                if gpu_won { "GPU" } else { "CPU" }.into(),
                bottleneck(&times, staged / h2d).into(),
            ]);
        }
        paragraphs.push(wins.say(
            &format!("{} batches", algorithm.name()),
            &format!("messages of {MESSAGE} bytes"),
        ));
    }
    paragraphs.push(
        "Both sides from memory, best of each, the GPU already open: what the library's \
         `hash_many` and `parsha256_from` give a program that keeps its GPU. `sum --device \
         auto` follows the next table instead, the commands timed whole."
            .into(),
    );
    report.sections.push(Section {
        title: "Where the GPU wins: end to end against all CPU threads".into(),
        paragraphs,
        table: Some(t),
    });
    Ok(())
}

/// PARSHA-256 of a file in the page cache: the GPU path (read once on every core into pinned
/// pieces while the piece before is copied) against its two limits, the host's page-cache read
/// rate (the same reads into ordinary memory) and the pinned copy rate, and against the CPU's
/// file engine on all threads; alternated runs, medians.
fn file_end_to_end(
    gpu: &Gpu,
    opts: &LabOptions,
    h2d: f64,
    report: &mut Report,
) -> Result<(), parhash_cuda::GpuError> {
    let io = |e: std::io::Error| parhash_cuda::GpuError::Driver(format!("the scratch file: {e}"));
    let (tree_height, iv_bits) = (gpu::DEFAULT_TREE_HEIGHT, gpu::DEFAULT_IV_BITS);
    let len = if opts.tiny { 32 << 20 } else { 1 << 30 };
    let runs = if opts.tiny { 1 } else { 5 };
    let file = ScratchFile::create(&opts.scratch(), "gpu-file", len).map_err(io)?;
    let opened = file.open().map_err(io)?;
    let mut last = None;
    let mut gpu_file = || -> std::io::Result<()> {
        let r = gpu
            .parsha256_from(&opened, len as u64, tree_height, iv_bits, None)
            .map_err(std::io::Error::other)?;
        last = Some(r);
        Ok(())
    };
    let engine = FileHasher::new(
        Hasher::builder(Algorithm::Parsha256)
            .tree_params(
                TreeParams::new(tree_height, iv_bits)
                    .map_err(std::io::Error::other)
                    .map_err(io)?,
            )
            .threads(Threads::ALL),
    );
    let mut cpu_digest = None;
    let mut cpu_file = || -> std::io::Result<()> {
        cpu_digest = Some(engine.hash_file(&opened)?);
        Ok(())
    };
    let mut piece = vec![0u8; parhash_cuda::PIECE_BYTES];
    let mut read = || -> std::io::Result<()> {
        for at in (0..len).step_by(piece.len()) {
            let n = (len - at).min(piece.len());
            parhash_cuda::read_piece(&opened, &mut piece[..n], at as u64, len as u64)?;
        }
        Ok(())
    };
    let m = interleaved(runs, &mut [&mut gpu_file, &mut cpu_file, &mut read]).map_err(io)?;
    let run = last.expect("the GPU ran");
    if cpu_digest.map(|d| d.as_bytes().to_vec()) != Some(run.digest.to_vec()) {
        return Err(parhash_cuda::GpuError::InvalidInput(
            "PARSHA-256 of the scratch file: the GPU's digest differs from the CPU's".into(),
        ));
    }
    let (gpu_s, cpu_s, read_s) = (m.times[0], m.times[1], m.times[2]);
    let copy_s = len as f64 / h2d;
    let limit_s = read_s.max(copy_s);
    let mut t = Table::new(&["what", "ms (median)", "GB/s", "GPU end to end / this"]);
    let b = len as f64;
    let mut row = |what: &str, s: f64| {
        t.push(vec![
            what.into(),
            sig3(s * 1e3),
            gbps(b, s),
            format!("{:.2}", s / gpu_s),
        ]);
    };
    row("GPU end to end (parhash's file path)", gpu_s);
    row("  of which copies (GPU events, last run)", run.times.h2d_s);
    row(
        "  of which the kernel (GPU events, last run)",
        run.times.kernel_s,
    );
    row(
        "page-cache read on every core (the same reads, no copy)",
        read_s,
    );
    row("pinned copy at the measured rate", copy_s);
    row("CPU file engine, all threads", cpu_s);
    report.sections.push(Section {
        title: format!(
            "A file in the page cache: PARSHA-256 of {}",
            format_size(len)
        ),
        paragraphs: vec![format!(
            "T = {tree_height}, l = {iv_bits}; {runs} alternated rounds after a warm-up, \
             medians. End to end is {:.2} of the lower of the page-cache read rate and the \
             pinned copy rate (the limit: {}), and {:.2}x the CPU's file engine on all threads. \
             Bottleneck: {} (the largest of the read, the copy at the measured rate, the \
             kernel, and the rest of end to end).",
            limit_s / gpu_s,
            if read_s >= copy_s {
                "reading"
            } else {
                "the copy"
            },
            cpu_s / gpu_s,
            [
                (read_s, "reading the page cache"),
                (copy_s, "the copy"),
                (run.times.kernel_s, "the kernel"),
                (
                    gpu_s - limit_s.max(run.times.kernel_s),
                    "the host between them"
                ),
            ]
            .into_iter()
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map_or("-", |(_, what)| what)
        )],
        table: Some(t),
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bottleneck_is_the_largest_share_of_end_to_end() {
        let t = |kernel_s, total_s| GpuTimes {
            h2d_s: 0.0,
            kernel_s,
            total_s,
        };
        assert_eq!(bottleneck(&t(1.0, 1.5), 0.5), "kernel");
        assert_eq!(bottleneck(&t(0.5, 1.5), 1.0), "copy");
        assert_eq!(bottleneck(&t(0.5, 3.0), 1.0), "host");
    }
}
