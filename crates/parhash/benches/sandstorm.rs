//! SANDstorm: compression function, serial hash and parallel hash (the Sandia study's three
//! figures), and speed-up against the thread count on a long message.
//!
//! `cargo bench -p parhash --bench sandstorm -- --warm-up-time 1 --measurement-time 2`
//!
//! Cycles per byte: the bench prints the CPU clock the kernel reports (`cpu MHz` in
//! /proc/cpuinfo, the TSC frequency on a `tsc_known_freq` VM); cycles/byte = that clock (Hz)
//! divided by criterion's bytes/s.

mod common;

use common::ThreadCpuTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use parhash::lab::algo::sandstorm::lanes::{Wide, LANES};
use parhash::lab::algo::sandstorm::tree::{hash_slice, TreeOptions};
use parhash::lab::algo::sandstorm::{fast, reference::Chain, Params, P256, P512};
use std::hint::black_box;

fn compression<P: Params>(c: &mut Criterion, name: &str) {
    let blocks = vec![[<P::W as Default>::default(); 8]; 1024];
    let bytes =
        (blocks.len() * 8 * <P::W as parhash::lab::algo::sandstorm::word::Word>::BYTES) as u64;
    let mut g = c.benchmark_group(format!("{name}/compression"));
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("sequential", |b| {
        let mut chain: Chain<P::W> = P::K;
        b.iter(|| fast::compress_blocks(black_box(&mut chain), black_box(&blocks)))
    });
    g.finish();
}

/// The eight-lane compression of SANDstorm-224/256 words in each SIMD form this CPU has:
/// 8 x 128 blocks per call.
fn compression_wide(c: &mut Criterion) {
    let forms = [Wide::avx512(), Wide::avx2(), Wide::avx2_gather()];
    let per_lane = 128;
    let data = vec![0x5au8; LANES * per_lane * 64];
    let mut g = c.benchmark_group("sandstorm256/compression");
    g.throughput(Throughput::Bytes(data.len() as u64));
    for wide in forms.into_iter().flatten() {
        g.bench_function(format!("{}-8-lanes", wide.name()), |b| {
            let mut chains = [P256::K; LANES];
            b.iter(|| {
                wide.compress_blocks(
                    black_box(&mut chains),
                    black_box(&data),
                    &core::array::from_fn(|l| l * per_lane * 64),
                    per_lane,
                )
            })
        });
    }
    g.finish();
}

/// Level-1 superblocks of SANDstorm-512 (10 blocks of 128 bytes) in `data`.
const SUPERBLOCK: usize = 10;
const BLOCK_512: usize = 128;

/// The BMI2 build of the portable compression, `L` superblocks interleaved.
#[cfg(target_arch = "x86_64")]
fn bmi2_chains<const L: usize>(
    g: &mut BenchmarkGroup<'_, ThreadCpuTime>,
    bmi2: parhash::lab::platform::Bmi2,
    data: &[u8],
) {
    g.bench_function(format!("bmi2-{L}-chains"), |b| {
        let mut chains = [P512::K; L];
        b.iter(|| {
            for group in black_box(data).chunks_exact(L * SUPERBLOCK * BLOCK_512) {
                for k in 0..SUPERBLOCK {
                    let m: [[u128; 8]; L] = core::array::from_fn(|l| {
                        fast::load_block(&group[(l * SUPERBLOCK + k) * BLOCK_512..])
                    });
                    fast::compress_lanes_bmi2::<u128, L>(bmi2, &m, &mut chains);
                }
            }
            black_box(&chains);
        })
    });
}

/// SANDstorm-512's compression as the tree runs it: level-1 superblocks of 10 blocks, 64 of
/// them per call, in the BMI2 build of the portable code (2 chains interleaved, the form the
/// tree ran before the eight-lane kernels, and 4) and in each eight-lane form.
/// Timed in CPU time of the benchmarking thread (see `common`): this machine is shared.
fn compression_wide_512(c: &mut Criterion<ThreadCpuTime>) {
    let superblocks = 64;
    let data: Vec<u8> = (0..superblocks * SUPERBLOCK * BLOCK_512)
        .map(|i| (i % 251) as u8)
        .collect();
    let mut g = c.benchmark_group("sandstorm512/compression-superblocks");
    g.throughput(Throughput::Bytes(data.len() as u64));
    #[cfg(target_arch = "x86_64")]
    if let Some(bmi2) = parhash::lab::platform::Bmi2::detect() {
        bmi2_chains::<2>(&mut g, bmi2, &data);
        bmi2_chains::<4>(&mut g, bmi2, &data);
    }
    let forms = [Wide::avx512(), Wide::avx2(), Wide::avx2_gather()];
    for wide in forms.into_iter().flatten() {
        g.bench_function(format!("{}-8-lanes", wide.name()), |b| {
            let mut chains = [P512::K; LANES];
            let starts = core::array::from_fn(|l| l * SUPERBLOCK * BLOCK_512);
            b.iter(|| {
                for group in black_box(&data).chunks_exact(LANES * SUPERBLOCK * BLOCK_512) {
                    wide.compress_blocks(&mut chains, group, &starts, SUPERBLOCK);
                }
                black_box(&chains);
            })
        });
    }
    g.finish();
}

fn whole_hash<P: Params>(c: &mut Criterion, name: &str, len: usize) {
    let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
    let mut g = c.benchmark_group(format!("{name}/hash-{}MiB", len >> 20));
    g.throughput(Throughput::Bytes(len as u64));
    g.sample_size(10);
    let mut engines = vec![
        ("sequential", TreeOptions::SEQUENTIAL),
        ("interleaved", TreeOptions::INTERLEAVED),
    ];
    for t in [1, 2] {
        engines.push(("parallel-portable", TreeOptions::portable(t)));
    }
    if let (Some(one), Some(two)) = (TreeOptions::avx512(1), TreeOptions::avx512(2)) {
        engines.push(("parallel-avx512", one));
        engines.push(("parallel-avx512", two));
    }
    if let (Some(one), Some(two)) = (TreeOptions::avx2(1), TreeOptions::avx2(2)) {
        engines.push(("parallel-avx2", one));
        engines.push(("parallel-avx2", two));
    }
    // The engine the tree ran for 384/512 before their eight-lane kernel: portable chains
    // compiled with BMI2.
    if let Some(bmi2) = parhash::lab::platform::Bmi2::detect() {
        for t in [1, 2] {
            let engine = TreeOptions {
                bmi2: Some(bmi2),
                ..TreeOptions::portable(t)
            };
            engines.push(("parallel-bmi2", engine));
        }
    }
    for (label, engine) in engines {
        let id = BenchmarkId::new(label, engine.threads);
        g.bench_with_input(id, &data, |b, d| {
            b.iter(|| hash_slice(P::K, P::BOUNDARIES, engine, black_box(d)))
        });
    }
    g.finish();
}

/// The clock /proc/cpuinfo reports, for turning bytes/s into cycles/byte.
fn print_clock() {
    let mhz = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("cpu MHz"))
            .and_then(|l| l.split(':').nth(1))
            .and_then(|v| v.trim().parse::<f64>().ok())
    });
    match mhz {
        Some(mhz) => eprintln!(
            "clock {mhz:.0} MHz: cycles/byte = {:.3} / (GB/s)",
            mhz / 1000.0
        ),
        None => eprintln!("clock unknown: cycles/byte = clock GHz / (GB/s)"),
    }
}

fn benches(c: &mut Criterion) {
    print_clock();
    compression::<P256>(c, "sandstorm256");
    compression::<P512>(c, "sandstorm512");
    compression_wide(c);
    whole_hash::<P256>(c, "sandstorm256", 64 << 20);
    whole_hash::<P512>(c, "sandstorm512", 64 << 20);
}

criterion_group!(sandstorm, benches);
common::cpu_time_group!(sandstorm_cpu_time: compression_wide_512);
criterion_main!(sandstorm, sandstorm_cpu_time);
