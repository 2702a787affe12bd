//! Before/after guard for changes of layout and dispatch (ARCHITECTURE.md): each family's
//! default form at 64 B, 4 KiB and 1 MiB, the batch engine, and both tree modes on 1 and 2
//! threads, through the public API only (`hash`, `Hasher::with_threads`, `batch::hash_many`),
//! so the same file builds against an older checkout for an A/B comparison taken in one
//! sitting (`scripts/bench-rounds.py BEFORE AFTER`).
//!
//! `cargo bench -p parhash --bench layout_ab -- --warm-up-time 1 --measurement-time 2`
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parhash::{Algorithm, Hasher};
use std::hint::black_box;

/// One algorithm per family: its default form.
const DEFAULTS: &[Algorithm] = &[
    Algorithm::Md5,
    Algorithm::Sha1,
    Algorithm::Sha256,
    Algorithm::Sha512,
    Algorithm::Sha3_256,
    Algorithm::Keccak256,
    Algorithm::Whirlpool,
    Algorithm::Blake256,
    Algorithm::Blake512,
    Algorithm::Groestl256,
    Algorithm::Jh256,
    Algorithm::Skein512_256,
    Algorithm::Simd256,
];

fn input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 131 % 251) as u8).collect()
}

fn defaults(c: &mut Criterion) {
    for &alg in DEFAULTS {
        let mut group = c.benchmark_group(format!("default/{alg}"));
        for len in [64, 4 << 10, 1 << 20] {
            let data = input(len);
            group.throughput(Throughput::Bytes(len as u64));
            group.bench_with_input(BenchmarkId::from_parameter(len), &data, |b, data| {
                b.iter(|| parhash::hash(alg, black_box(data)))
            });
        }
        group.finish();
    }
}

fn batch(c: &mut Criterion) {
    let mut group = c.benchmark_group("batch");
    for alg in [Algorithm::Md5, Algorithm::Sha256, Algorithm::Sha3_256] {
        let messages: Vec<Vec<u8>> = (0..256).map(|i| input(4096 + i % 3)).collect();
        let refs: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();
        group.throughput(Throughput::Bytes(refs.iter().map(|m| m.len() as u64).sum()));
        group.bench_function(format!("{alg}/256x4KiB"), |b| {
            b.iter(|| parhash::batch::hash_many(alg, black_box(&refs)))
        });
    }
    group.finish();
}

fn trees(c: &mut Criterion) {
    let mut group = c.benchmark_group("tree");
    group.sample_size(10);
    let data = input(16 << 20);
    group.throughput(Throughput::Bytes(data.len() as u64));
    for alg in [Algorithm::Parsha256, Algorithm::Sandstorm256] {
        for threads in [1usize, 2] {
            group.bench_function(format!("{alg}/16MiB/{threads}t"), |b| {
                b.iter(|| {
                    let mut h = Hasher::with_threads(alg, threads);
                    h.update(black_box(&data));
                    h.finalize()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, defaults, batch, trees);
criterion_main!(benches);
