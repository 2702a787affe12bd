//! Multi-message hashing, one thread (per-core figures), OpenSSL hashing the same messages one
//! by one measured in the same run as the peer:
//!
//! - `batch/ALG/LENB`: about 4 MiB of messages of one length through the lane kernels at each
//!   width (and SHA-NI streams for SHA-256), in both layouts of seed study 5: lanes gathering
//!   from separate buffers (`lanes-gather`, what `hash_many` does) and a pre-interleaved buffer
//!   (`lanes-interleaved`, vector widths only). Throughput in bytes.
//! - `batch-many/ALG/LENB`: multiplicity 1, 16, 1000 and 100000 messages of 64 B, 1 KiB, 4 KiB
//!   and 64 KiB (windows into 64 MiB of data) through `hash_many` with the fastest kernel
//!   against OpenSSL one by one. Throughput in messages; bytes per second = messages per
//!   second x LEN.
//!
//! `cargo bench -p parhash --bench batch -- --warm-up-time 1 --measurement-time 2`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use openssl::hash::{hash as ossl_hash, MessageDigest};
use parhash::batch::{hash_many_with, BatchOptions, Interleaved};
use parhash::lab::lanes::Kernel;
use parhash::Algorithm;
use std::hint::black_box;

/// The algorithms with lane kernels and a goal or a peer.
const ALGORITHMS: &[&str] = &["md5", "sha1", "sha256", "sha512", "sha3-256", "keccak256"];
const LENGTHS: &[usize] = &[64, 1024, 4096, 65536];

fn peer(alg: Algorithm) -> Option<MessageDigest> {
    match alg.name() {
        "md5" => Some(MessageDigest::md5()),
        "sha1" => Some(MessageDigest::sha1()),
        "sha256" => Some(MessageDigest::sha256()),
        "sha512" => Some(MessageDigest::sha512()),
        // OpenSSL has no round-3 Keccak: SHA3-256 is the same permutation and rate.
        "sha3-256" | "keccak256" => Some(MessageDigest::sha3_256()),
        _ => None,
    }
}

/// Algorithms of [`ALGORITHMS`] in this build that have lane kernels.
fn lane_algorithms() -> impl Iterator<Item = (&'static str, Algorithm)> {
    ALGORITHMS.iter().filter_map(|name| {
        let alg = Algorithm::from_name(name).ok()?;
        parhash::lab::batch::has_lanes(alg).then_some((*name, alg))
    })
}

fn messages(count: usize, len: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|i| (0..len).map(|j| (i * 7 + j) as u8).collect())
        .collect()
}

fn one_thread(kernel: impl Into<Kernel>) -> BatchOptions {
    BatchOptions {
        threads: 1.into(),
        kernel: Some(kernel.into()),
    }
}

fn layouts(c: &mut Criterion) {
    for (name, alg) in lane_algorithms() {
        for &len in LENGTHS {
            let count = ((4 << 20) / len).max(16);
            let owned = messages(count, len);
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
            for kernel in parhash::lab::batch::kernels(alg) {
                g.bench_function(BenchmarkId::new("lanes-gather", kernel.name()), |b| {
                    b.iter(|| hash_many_with(alg, black_box(&set), one_thread(kernel)))
                });
                // The SHA-NI streams take one message per register: no interleaved layout.
                let Kernel::Vector(width) = kernel else {
                    continue;
                };
                let inter = Interleaved::with_width(alg, &set, width).unwrap();
                g.bench_function(BenchmarkId::new("lanes-interleaved", width.name()), |b| {
                    b.iter(|| black_box(inter.hash()))
                });
            }
            g.finish();
        }
    }
}

/// Bytes of distinct message data behind the multiplicity benchmarks.
const MANY_BYTES: usize = 64 << 20;

/// `count` messages of `len` bytes as windows into one buffer of [`MANY_BYTES`] (+ `SLACK`), so
/// that 10^5 messages of 64 KiB need no 6.4 GB: consecutive while they fit, then again from the
/// start shifted by a byte per pass (different contents, overlapping bytes).
fn windows(buffer: &[u8], count: usize, len: usize) -> Vec<&[u8]> {
    let fit = MANY_BYTES / len;
    (0..count)
        .map(|i| &buffer[(i % fit) * len + (i / fit) % SLACK..][..len])
        .collect()
}

/// Room past [`MANY_BYTES`] for the shifted passes of [`windows`].
const SLACK: usize = 4096;

fn multiplicity(c: &mut Criterion) {
    let buffer: Vec<u8> = (0..MANY_BYTES + SLACK)
        .map(|i| (i * 31 % 251) as u8)
        .collect();
    for (name, alg) in lane_algorithms() {
        let kernel = parhash::lab::batch::best_kernel(alg);
        for len in [64usize, 1024, 4096, 65536] {
            let mut g = c.benchmark_group(format!("batch-many/{name}/{len}B"));
            g.sample_size(10);
            for count in [1usize, 16, 1000, 100_000] {
                let set = windows(&buffer, count, len);
                g.throughput(Throughput::Elements(count as u64));
                if let Some(md) = peer(alg) {
                    g.bench_function(BenchmarkId::new("openssl-one-by-one", count), |b| {
                        b.iter(|| {
                            for m in &set {
                                black_box(ossl_hash(md, m).unwrap());
                            }
                        })
                    });
                }
                let id = format!("lanes-gather-{}", kernel.name());
                g.bench_function(BenchmarkId::new(id, count), |b| {
                    b.iter(|| hash_many_with(alg, black_box(&set), one_thread(kernel)))
                });
            }
            g.finish();
        }
    }
}

criterion_group!(batch, layouts, multiplicity);
criterion_main!(batch);
