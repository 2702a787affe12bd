//! PARSHA-256 (T = 13, l = 256 and l = 0) against SHA-256 on one message: OpenSSL's SHA-256
//! (SHA-NI here) and parhash's fastest SHA-256 in the same run, at 10^1 .. 10^7 bytes and 64 MiB,
//! and PARSHA-256 on 1 .. all threads (speed-up vs threads at 64 MiB).
//!
//! `cargo bench -p parhash --bench parsha256 -- --warm-up-time 1 --measurement-time 2`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use openssl::hash::{hash as ossl_hash, MessageDigest};
use parhash::lab::lanes::Kernel;
use parhash::parsha256::{parsha256_with, ParshaOptions};
use parhash::{Algorithm, Hasher};
use std::hint::black_box;

fn benches(c: &mut Criterion) {
    let cores = parhash::threads::available();
    for len in [10usize, 1000, 100_000, 10_000_000, 64 << 20] {
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let mut g = c.benchmark_group(format!("parsha256/{len}B"));
        g.throughput(Throughput::Bytes(len as u64));
        g.sample_size(10);
        g.bench_function("openssl-sha256", |b| {
            b.iter(|| ossl_hash(MessageDigest::sha256(), black_box(&data)).unwrap())
        });
        g.bench_function("parhash-sha256", |b| {
            b.iter(|| {
                let mut h = Hasher::new(Algorithm::Sha256);
                h.update(black_box(&data));
                h.finalize()
            })
        });
        let mut threads: Vec<usize> = (1..=cores).collect();
        if len < 10_000_000 {
            threads.truncate(1);
        }
        for iv in [256u32, 0] {
            for &n in &threads {
                let options = ParshaOptions {
                    threads: n.into(),
                    kernel: None,
                };
                g.bench_function(BenchmarkId::new(format!("parsha-T13-l{iv}"), n), |b| {
                    b.iter(|| parsha256_with(black_box(&data), 13, iv, &options).unwrap())
                });
            }
        }
        if len == 64 << 20 {
            for kernel in Kernel::all(true) {
                let options = ParshaOptions {
                    threads: 1.into(),
                    kernel: Some(kernel),
                };
                let id = BenchmarkId::new("parsha-T13-l256-1thread", kernel.name());
                g.bench_function(id, |b| {
                    b.iter(|| parsha256_with(black_box(&data), 13, 256, &options).unwrap())
                });
            }
        }
        g.finish();
    }
}

criterion_group!(parsha, benches);
criterion_main!(parsha);
