//! Multi-message hashing: N messages of one length through the lane kernels (each width, both
//! layouts, one thread) against OpenSSL hashing the same messages one by one in the same run.
//!
//! `cargo bench -p parhash --bench batch -- --warm-up-time 1 --measurement-time 2`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use openssl::hash::{hash as ossl_hash, MessageDigest};
use parhash::batch::{hash_many_with, BatchOptions, Interleaved};
use parhash::lanes::Width;
use parhash::Algorithm;
use std::hint::black_box;

fn peer(alg: Algorithm) -> Option<MessageDigest> {
    match alg.name() {
        "md5" => Some(MessageDigest::md5()),
        "sha1" => Some(MessageDigest::sha1()),
        "sha256" => Some(MessageDigest::sha256()),
        "sha512" => Some(MessageDigest::sha512()),
        "sha3-256" => Some(MessageDigest::sha3_256()),
        "keccak256" => Some(MessageDigest::sha3_256()),
        _ => None,
    }
}

fn benches(c: &mut Criterion) {
    let algs = ["md5", "sha1", "sha256", "sha512", "sha3-256", "keccak256"];
    for name in algs {
        let Ok(alg) = Algorithm::from_name(name) else {
            continue;
        };
        if !parhash::batch::has_lanes(alg) {
            continue;
        }
        for len in [64usize, 1024, 4096, 65536] {
            let count = (4 << 20) / len.max(1);
            let owned: Vec<Vec<u8>> = (0..count)
                .map(|i| (0..len).map(|j| (i * 7 + j) as u8).collect())
                .collect();
            let set: Vec<&[u8]> = owned.iter().map(|m| &m[..]).collect();
            let mut g = c.benchmark_group(format!("batch/{name}/{len}B"));
            g.throughput(Throughput::Bytes((count * len) as u64));
            g.sample_size(10);
            if let Some(md) = peer(alg) {
                g.bench_function("openssl-one-by-one", |b| {
                    b.iter(|| {
                        for m in &set {
                            black_box(ossl_hash(md, m).unwrap());
                        }
                    })
                });
            }
            for width in Width::all_available() {
                let opts = BatchOptions {
                    threads: 1,
                    width: Some(width),
                };
                g.bench_function(BenchmarkId::new("lanes-gather", width.name()), |b| {
                    b.iter(|| hash_many_with(alg, black_box(&set), opts))
                });
                let inter = Interleaved::new(alg, &set, width).unwrap();
                g.bench_function(BenchmarkId::new("lanes-interleaved", width.name()), |b| {
                    b.iter(|| black_box(inter.hash()))
                });
            }
            g.finish();
        }
    }
}

criterion_group!(batch, benches);
criterion_main!(batch);
