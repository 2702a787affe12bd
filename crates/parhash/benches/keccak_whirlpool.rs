//! SHA-3, round-3 Keccak and Whirlpool: every parhash variant beside OpenSSL and the RustCrypto
//! crates, in the same run, at 64 B, 1 KiB, 16 KiB and 1 MiB.
//!
//! `cargo bench -p parhash --bench keccak_whirlpool -- --warm-up-time 1 --measurement-time 1`
//!
//! Measured in CPU time of the benchmarking thread (`CLOCK_THREAD_CPUTIME_ID`), not wall time:
//! see `common`.
mod common;

use common::{bench_variant, input, ThreadCpuTime, SIZES};
use criterion::{
    criterion_group, criterion_main, measurement::WallTime, BenchmarkId, Criterion, Throughput,
};
use digest::Digest;
use openssl::hash::MessageDigest;
use parhash::Algorithm;
use std::hint::black_box;

fn bench_algorithm<RC: Digest>(
    c: &mut Criterion<ThreadCpuTime>,
    alg: Algorithm,
    openssl: Option<MessageDigest>,
) {
    let mut group = c.benchmark_group(alg.name());
    for len in SIZES {
        let data = input(len);
        group.throughput(Throughput::Bytes(len as u64));
        // `parallel` is one of the forced forms (the best SIMD one): not measured twice.
        for v in alg
            .variants()
            .into_iter()
            .filter(|v| v.available && v.name != "parallel")
        {
            // The byte-wise Whirlpool reference runs at a few MiB/s: 1 MiB would take minutes.
            if v.name == "reference" && len > 16 * 1024 {
                continue;
            }
            bench_variant(&mut group, alg, v.name, &data);
        }
        group.bench_with_input(BenchmarkId::new("rustcrypto", len), &data, |b, d| {
            b.iter(|| RC::digest(black_box(d)))
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
    bench_algorithm::<sha3::Sha3_256>(c, Algorithm::Sha3_256, Some(MessageDigest::sha3_256()));
    bench_algorithm::<sha3::Sha3_512>(c, Algorithm::Sha3_512, Some(MessageDigest::sha3_512()));
    // OpenSSL offers round-3 Keccak only through its internal KECCAK-KMAC digests: no peer.
    bench_algorithm::<sha3::Keccak256>(c, Algorithm::Keccak256, None);
    bench_algorithm::<whirlpool::Whirlpool>(c, Algorithm::Whirlpool, whirlpool_md);
}

criterion_group! {
    name = keccak_whirlpool;
    config = Criterion::default().with_measurement(ThreadCpuTime(WallTime));
    targets = benches
}
criterion_main!(keccak_whirlpool);
