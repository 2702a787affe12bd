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

use common::{
    bench_default, bench_one_shot, bench_variant, cpu_time_group, each_input, measured_forms,
    one_shot, peers, ThreadCpuTime, SIZES,
};
use criterion::{criterion_main, Criterion};
use openssl::hash::MessageDigest;
use parhash::Algorithm;
use std::hint::black_box;

/// One algorithm of the run: RustCrypto's one-shot (see `common::one_shot`), OpenSSL's digest
/// where it has one, and whether every parhash variant is measured or only the default.
type Peers = (Algorithm, fn(&[u8]), Option<MessageDigest>, bool);

fn bench_algorithm(c: &mut Criterion<ThreadCpuTime>, peers: Peers) {
    let (alg, rustcrypto, openssl, every_variant) = peers;
    let mut group = c.benchmark_group(alg.name());
    let forms = measured_forms(alg, every_variant);
    each_input(&mut group, &SIZES, |group, data| {
        if !every_variant {
            bench_default(group, alg, data);
        }
        for &form in &forms {
            // The byte-wise Whirlpool reference runs at a few MiB/s: 1 MiB would take minutes.
            if form == "reference" && data.len() > 16 * 1024 {
                continue;
            }
            bench_variant(group, alg, form, data);
        }
        bench_one_shot(group, "rustcrypto", data, rustcrypto);
        if let Some(md) = openssl {
            bench_one_shot(group, "openssl", data, |d| {
                black_box(openssl::hash::hash(md, d).expect("openssl digest"));
            });
        }
    });
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
    // A row: RustCrypto's one-shot, OpenSSL's digest, every variant or the default only.
    let all: [Peers; 9] = peers! {
        Sha3_224: one_shot::<sha3::Sha3_224>, Some(MessageDigest::sha3_224()), false;
        Sha3_256: one_shot::<sha3::Sha3_256>, Some(MessageDigest::sha3_256()), true;
        Sha3_384: one_shot::<sha3::Sha3_384>, Some(MessageDigest::sha3_384()), false;
        Sha3_512: one_shot::<sha3::Sha3_512>, Some(MessageDigest::sha3_512()), true;
        Keccak224: one_shot::<sha3::Keccak224>, None, false;
        Keccak256: one_shot::<sha3::Keccak256>, None, true;
        Keccak384: one_shot::<sha3::Keccak384>, None, false;
        Keccak512: one_shot::<sha3::Keccak512>, None, false;
        Whirlpool: one_shot::<whirlpool::Whirlpool>, whirlpool_md, true;
    };
    for algorithm in all {
        bench_algorithm(c, algorithm);
    }
}

cpu_time_group!(keccak_whirlpool: benches);
criterion_main!(keccak_whirlpool);
