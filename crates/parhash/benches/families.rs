//! Every algorithm's default form through the registry's `Hasher` (what the CLI and Python use),
//! at 64 B and 1 MiB, one thread: the regression check across the library's restructurings
//! (issue 26). The same file, dropped into an older checkout's `benches/`, measures the "before"
//! column in the same sitting.
//!
//! `cargo bench -p parhash --bench families -- --warm-up-time 1 --measurement-time 2`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parhash::{Algorithm, Hasher, Threads};
use std::hint::black_box;

fn families(c: &mut Criterion) {
    for &alg in Algorithm::ALL {
        let mut group = c.benchmark_group(alg.name());
        for len in [64usize, 1 << 20] {
            let data: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
            group.throughput(Throughput::Bytes(len as u64));
            group.bench_with_input(BenchmarkId::new("default", len), &data, |b, d| {
                b.iter(|| {
                    let mut h = Hasher::builder(alg)
                        .threads(Threads::new(1))
                        .build()
                        .expect("every algorithm builds with defaults");
                    h.update(d);
                    black_box(h.finalize())
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, families);
criterion_main!(benches);
