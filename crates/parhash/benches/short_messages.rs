//! One short message at a time (64 B and 1 KiB), layer by layer, against the peers: the
//! RustCrypto crate or the `blake3` crate (one-shot, and reused: `-reset`), parhash's concrete
//! type (`parhash::Sha256` through `digest`), the one-shot `parhash::hash`, and the run-time
//! `Hasher` reused (`finalize_reset`, what the lab and Python's `copy`-free path do) or built
//! per message.
//! Where a layer costs, its row is slower than the one above it.
//!
//! `cargo bench -p parhash --bench short_messages -- --warm-up-time 1 --measurement-time 2`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use digest::{Digest, FixedOutputReset};
use parhash::{hash, Algorithm, Hasher};
use std::hint::black_box;

const LENGTHS: [usize; 2] = [64, 1024];

/// The peer and parhash's concrete type, both through `digest`'s one-shot `Digest::digest`,
/// and the peer's hasher reused (`finalize_reset`), beside parhash's reused `Hasher` below.
fn typed<Peer: Digest + FixedOutputReset, Ours: Digest>(
    c: &mut Criterion,
    alg: Algorithm,
    peer_name: &str,
) {
    let mut group = c.benchmark_group(alg.name());
    for len in LENGTHS {
        let data: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_with_input(BenchmarkId::new(peer_name, len), &data, |b, d| {
            b.iter(|| black_box(Peer::digest(black_box(d))))
        });
        let mut peer_reused = Peer::new();
        group.bench_with_input(
            BenchmarkId::new(format!("{peer_name}-reset"), len),
            &data,
            |b, d| {
                b.iter(|| {
                    Digest::update(&mut peer_reused, black_box(d));
                    black_box(Digest::finalize_reset(&mut peer_reused))
                })
            },
        );
        group.bench_with_input(BenchmarkId::new("parhash-type", len), &data, |b, d| {
            b.iter(|| black_box(Ours::digest(black_box(d))))
        });
        layers(&mut group, alg, &data);
    }
    group.finish();
}

/// parhash's run-time layers: `hash`, a reused `Hasher`, a `Hasher` per message.
fn layers(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    alg: Algorithm,
    data: &[u8],
) {
    let len = data.len();
    group.bench_with_input(BenchmarkId::new("parhash-hash", len), data, |b, d| {
        b.iter(|| black_box(hash(alg, black_box(d))))
    });
    let mut reused = Hasher::new(alg);
    group.bench_with_input(
        BenchmarkId::new("parhash-Hasher-reset", len),
        data,
        |b, d| {
            b.iter(|| {
                reused.update(black_box(d));
                black_box(reused.finalize_reset())
            })
        },
    );
    group.bench_with_input(BenchmarkId::new("parhash-Hasher-new", len), data, |b, d| {
        b.iter(|| {
            let mut h = Hasher::new(alg);
            h.update(black_box(d));
            black_box(h.finalize())
        })
    });
}

fn blake3(c: &mut Criterion) {
    let alg = Algorithm::Blake3;
    let mut group = c.benchmark_group(alg.name());
    for len in LENGTHS {
        let data: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
        group.throughput(Throughput::Bytes(len as u64));
        group.bench_with_input(BenchmarkId::new("blake3-crate", len), &data, |b, d| {
            b.iter(|| black_box(blake3::hash(black_box(d))))
        });
        let mut crate_reused = blake3::Hasher::new();
        group.bench_with_input(
            BenchmarkId::new("blake3-crate-reset", len),
            &data,
            |b, d| {
                b.iter(|| {
                    crate_reused.update(black_box(d));
                    let out = crate_reused.finalize();
                    crate_reused.reset();
                    black_box(out)
                })
            },
        );
        group.bench_with_input(BenchmarkId::new("parhash-type", len), &data, |b, d| {
            b.iter(|| black_box(parhash::Blake3::digest(black_box(d))))
        });
        layers(&mut group, alg, &data);
    }
    group.finish();
}

fn short_messages(c: &mut Criterion) {
    typed::<sha2::Sha256, parhash::Sha256>(c, Algorithm::Sha256, "rustcrypto");
    typed::<sha2::Sha224, parhash::Sha224>(c, Algorithm::Sha224, "rustcrypto");
    typed::<sha1::Sha1, parhash::Sha1>(c, Algorithm::Sha1, "rustcrypto");
    typed::<sha2::Sha512_256, parhash::Sha512_256>(c, Algorithm::Sha512_256, "rustcrypto");
    typed::<sha3::Keccak512, parhash::Keccak512>(c, Algorithm::Keccak512, "rustcrypto");
    typed::<md5::Md5, parhash::Md5>(c, Algorithm::Md5, "rustcrypto");
    blake3(c);
}

criterion_group!(benches, short_messages);
criterion_main!(benches);
