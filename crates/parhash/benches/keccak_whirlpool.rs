//! SHA-3, round-3 Keccak and Whirlpool beside OpenSSL and the RustCrypto crates, in the same
//! run, at 64 B, 1 KiB, 16 KiB and 1 MiB: every parhash variant for SHA3-256, SHA3-512,
//! Keccak-256 and Whirlpool, the default (`parhash`) for the other sizes, which run the same
//! permutation or compression function.
//!
//! `cargo bench -p parhash --bench keccak_whirlpool -- --warm-up-time 1 --measurement-time 1`
//!
//! Measured in CPU time of the benchmarking thread (`CLOCK_THREAD_CPUTIME_ID`), not wall time:
//! see `common`.
mod common;

use common::{bench_default, bench_variant, input, one_shot, ThreadCpuTime, SIZES};
use criterion::{
    criterion_group, criterion_main, measurement::WallTime, BenchmarkId, Criterion, Throughput,
};
use openssl::hash::MessageDigest;
use parhash::Algorithm;
use std::hint::black_box;

/// One algorithm of the run: RustCrypto's one-shot (see `common::one_shot`), OpenSSL's digest
/// where it has one, and whether every parhash variant is measured or only the default.
type Peers = (Algorithm, fn(&[u8]), Option<MessageDigest>, bool);

fn bench_algorithm(c: &mut Criterion<ThreadCpuTime>, peers: Peers) {
    let (alg, rustcrypto, openssl, every_variant) = peers;
    let mut group = c.benchmark_group(alg.name());
    for len in SIZES {
        let data = input(len);
        group.throughput(Throughput::Bytes(len as u64));
        if !every_variant {
            bench_default(&mut group, alg, &data);
        }
        // `parallel` is one of the forced forms (the best SIMD one): not measured twice.
        for v in alg
            .variants()
            .into_iter()
            .filter(|v| every_variant && v.available && v.name != "parallel")
        {
            // The byte-wise Whirlpool reference runs at a few MiB/s: 1 MiB would take minutes.
            if v.name == "reference" && len > 16 * 1024 {
                continue;
            }
            bench_variant(&mut group, alg, v.name, &data);
        }
        group.bench_with_input(BenchmarkId::new("rustcrypto", len), &data, |b, d| {
            b.iter(|| rustcrypto(black_box(d)))
        });
        if let Some(md) = openssl {
            group.bench_with_input(BenchmarkId::new("openssl", len), &data, |b, d| {
                b.iter(|| openssl::hash::hash(md, black_box(d)).expect("openssl digest"))
            });
        }
    }
    group.finish();
}

fn benches(c: &mut Criterion<ThreadCpuTime>) {
    // Whirlpool lives in OpenSSL 3's legacy provider; keep it loaded for the whole run.
    let _legacy = openssl::provider::Provider::try_load(None, "legacy", true).ok();
    let whirlpool_md = MessageDigest::from_name("whirlpool");
    if whirlpool_md.is_none() {
        eprintln!("OpenSSL has no Whirlpool here (legacy provider missing): measured without it");
    }
    // OpenSSL offers round-3 Keccak only through its internal KECCAK-KMAC digests: no peer.
    let all: [Peers; 9] = [
        (
            Algorithm::Sha3_224,
            one_shot::<sha3::Sha3_224>,
            Some(MessageDigest::sha3_224()),
            false,
        ),
        (
            Algorithm::Sha3_256,
            one_shot::<sha3::Sha3_256>,
            Some(MessageDigest::sha3_256()),
            true,
        ),
        (
            Algorithm::Sha3_384,
            one_shot::<sha3::Sha3_384>,
            Some(MessageDigest::sha3_384()),
            false,
        ),
        (
            Algorithm::Sha3_512,
            one_shot::<sha3::Sha3_512>,
            Some(MessageDigest::sha3_512()),
            true,
        ),
        (
            Algorithm::Keccak224,
            one_shot::<sha3::Keccak224>,
            None,
            false,
        ),
        (
            Algorithm::Keccak256,
            one_shot::<sha3::Keccak256>,
            None,
            true,
        ),
        (
            Algorithm::Keccak384,
            one_shot::<sha3::Keccak384>,
            None,
            false,
        ),
        (
            Algorithm::Keccak512,
            one_shot::<sha3::Keccak512>,
            None,
            false,
        ),
        (
            Algorithm::Whirlpool,
            one_shot::<whirlpool::Whirlpool>,
            whirlpool_md,
            true,
        ),
    ];
    for algorithm in all {
        bench_algorithm(c, algorithm);
    }
}

criterion_group! {
    name = keccak_whirlpool;
    config = Criterion::default().with_measurement(ThreadCpuTime(WallTime));
    targets = benches
}
criterion_main!(keccak_whirlpool);
