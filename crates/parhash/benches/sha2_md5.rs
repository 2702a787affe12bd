//! MD5 and SHA-2: parhash's default and each of its forms beside OpenSSL and the RustCrypto
//! crates, in the same run, at 64 B, 1 KiB, 16 KiB and 1 MiB (CPU time of the benchmarking
//! thread; see `common`).
//!
//! `cargo bench -p parhash --bench sha2_md5 -- --warm-up-time 1 --measurement-time 2`
//!
//! `parhash` is the default through the dynamic `Hasher` (what the CLI uses), `parhash-digest`
//! the default through the typed `Digest` one-shot (up to 1 KiB), `parhash-<form>` each form.
//! Every form is measured for MD5, SHA-256 and SHA-512 (SHA-224 and SHA-384 run the same
//! compression functions); SHA-224, SHA-384 and SHA-512/256 get the default and the peers.
//! OpenSSL is called the way a C program would for each: the one-shot `SHA256()`-style functions
//! (`openssl::sha`) where they exist, a reused EVP context (`openssl::hash::Hasher`) otherwise.
mod common;

use common::{bench_variant, input, ThreadCpuTime, SIZES};
use criterion::{
    criterion_group, criterion_main, measurement::WallTime, BenchmarkId, Criterion, Throughput,
};
use digest::Digest;
use openssl::hash::MessageDigest;
use parhash::{Algorithm, Hasher};
use std::hint::black_box;

/// How OpenSSL is asked for one digest.
enum OpenSsl {
    /// A one-shot function; it `black_box`es the digest itself (no allocation per call).
    OneShot(fn(&[u8])),
    Evp(MessageDigest),
}

fn bench_algorithm<P: Digest, RC: Digest>(
    c: &mut Criterion<ThreadCpuTime>,
    alg: Algorithm,
    openssl: OpenSsl,
    every_form: bool,
) {
    let mut group = c.benchmark_group(alg.name());
    for len in SIZES {
        let data = input(len);
        group.throughput(Throughput::Bytes(len as u64));
        // Criterion's 100 samples need 5050 iterations, minutes at 1 MiB on a loaded machine.
        group.sample_size(if len > 64 * 1024 { 10 } else { 50 });
        let mut h = Hasher::new(alg);
        group.bench_with_input(BenchmarkId::new("parhash", len), &data, |b, d| {
            b.iter(|| {
                h.update(black_box(d));
                h.finalize_reset()
            })
        });
        // The typed one-shot path (as `rustcrypto` is measured), without the dynamic `Hasher`'s
        // boxed `DynDigest` and `Output` copy: what that costs shows at small sizes.
        if len <= 1024 {
            group.bench_with_input(BenchmarkId::new("parhash-digest", len), &data, |b, d| {
                b.iter(|| P::digest(black_box(d)))
            });
        }
        // `parallel` is one of the forced forms (the best ISA here): not measured twice.
        let forms = alg
            .variants()
            .into_iter()
            .filter(|v| every_form && v.available && v.name != "parallel");
        for v in forms {
            bench_variant(&mut group, alg, v.name, &data);
        }
        group.bench_with_input(BenchmarkId::new("rustcrypto", len), &data, |b, d| {
            b.iter(|| RC::digest(black_box(d)))
        });
        match openssl {
            OpenSsl::OneShot(f) => {
                group.bench_with_input(BenchmarkId::new("openssl", len), &data, |b, d| {
                    b.iter(|| f(black_box(d)))
                });
            }
            OpenSsl::Evp(md) => {
                let mut h = openssl::hash::Hasher::new(md).expect("openssl digest");
                group.bench_with_input(BenchmarkId::new("openssl", len), &data, |b, d| {
                    b.iter(|| {
                        h.update(black_box(d)).expect("openssl update");
                        h.finish().expect("openssl finish")
                    })
                });
            }
        }
    }
    group.finish();
}

fn benches(c: &mut Criterion<ThreadCpuTime>) {
    bench_algorithm::<parhash::Md5, md5::Md5>(
        c,
        Algorithm::Md5,
        OpenSsl::Evp(MessageDigest::md5()),
        true,
    );
    bench_algorithm::<parhash::Sha224, sha2::Sha224>(
        c,
        Algorithm::Sha224,
        OpenSsl::OneShot(|d| {
            black_box(openssl::sha::sha224(d));
        }),
        false,
    );
    bench_algorithm::<parhash::Sha256, sha2::Sha256>(
        c,
        Algorithm::Sha256,
        OpenSsl::OneShot(|d| {
            black_box(openssl::sha::sha256(d));
        }),
        true,
    );
    bench_algorithm::<parhash::Sha384, sha2::Sha384>(
        c,
        Algorithm::Sha384,
        OpenSsl::OneShot(|d| {
            black_box(openssl::sha::sha384(d));
        }),
        false,
    );
    bench_algorithm::<parhash::Sha512, sha2::Sha512>(
        c,
        Algorithm::Sha512,
        OpenSsl::OneShot(|d| {
            black_box(openssl::sha::sha512(d));
        }),
        true,
    );
    let sha512_256 = MessageDigest::from_name("sha512-256").expect("OpenSSL has SHA-512/256");
    bench_algorithm::<parhash::Sha512_256, sha2::Sha512_256>(
        c,
        Algorithm::Sha512_256,
        OpenSsl::Evp(sha512_256),
        false,
    );
}

criterion_group! {
    name = sha2_md5;
    config = Criterion::default().with_measurement(ThreadCpuTime(WallTime));
    targets = benches
}
criterion_main!(sha2_md5);
