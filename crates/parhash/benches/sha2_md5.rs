//! MD5, SHA-1 and SHA-2: parhash's default and each of its forms beside OpenSSL and the
//! RustCrypto crates, in the same run, at 64 B, 1 KiB, 16 KiB and 1 MiB (CPU time of the
//! benchmarking thread; see `common`).
//!
//! `cargo bench -p parhash --bench sha2_md5 -- --warm-up-time 1 --measurement-time 2`
//!
//! `parhash` is the default through the dynamic `Hasher` (what the CLI uses), `parhash-digest`
//! the default through the typed `Digest` one-shot (up to 1 KiB), `parhash-<form>` each form.
//! Every form is measured for MD5, SHA-1, SHA-256 and SHA-512 (SHA-224, SHA-384 and SHA-512/t
//! run the same compression functions); SHA-224, SHA-384, SHA-512/224 and SHA-512/256 get the
//! default and the peers. OpenSSL is called the way a C program would for each: the one-shot
//! `SHA256()`-style functions (`openssl::sha`) where they exist, a reused EVP context
//! (`openssl::hash::Hasher`) otherwise. The one-shots (`parhash-digest`, `rustcrypto`, OpenSSL's)
//! are all called through a function pointer, so they pay the same call.
mod common;

use common::{
    bench_default, bench_one_shot, bench_variant, cpu_time_group, each_input, measured_forms,
    one_shot, peers, ThreadCpuTime, SIZES,
};
use criterion::{criterion_main, Criterion};
use openssl::{hash::MessageDigest, sha};
use parhash::Algorithm;
use std::hint::black_box;

/// How OpenSSL is asked for one digest.
enum OpenSsl {
    /// A one-shot function; it `black_box`es the digest itself (no allocation per call).
    OneShot(fn(&[u8])),
    Evp(MessageDigest),
}

/// One algorithm of the run: parhash's typed one-shot and RustCrypto's (see `common::one_shot`),
/// OpenSSL, and whether every parhash form is measured or only the default.
type Peers = (Algorithm, fn(&[u8]), fn(&[u8]), OpenSsl, bool);

fn bench_algorithm(c: &mut Criterion<ThreadCpuTime>, peers: Peers) {
    let (alg, parhash_digest, rustcrypto, openssl, every_form) = peers;
    let mut group = c.benchmark_group(alg.name());
    let forms = measured_forms(alg, every_form);
    each_input(&mut group, &SIZES, |group, data| {
        // Criterion's 100 samples need 5050 iterations, minutes at 1 MiB on a loaded machine.
        group.sample_size(if data.len() > 64 * 1024 { 10 } else { 50 });
        bench_default(group, alg, data);
        // The typed one-shot path (as `rustcrypto` is measured), without the dynamic `Hasher`'s
        // boxed `DynDigest` and `Output` copy: what that costs shows at small sizes.
        if data.len() <= 1024 {
            bench_one_shot(group, "parhash-digest", data, parhash_digest);
        }
        for &form in &forms {
            bench_variant(group, alg, form, data);
        }
        bench_one_shot(group, "rustcrypto", data, rustcrypto);
        match &openssl {
            OpenSsl::OneShot(f) => bench_one_shot(group, "openssl", data, f),
            OpenSsl::Evp(md) => {
                let mut h = openssl::hash::Hasher::new(*md).expect("openssl digest");
                bench_one_shot(group, "openssl", data, |d| {
                    h.update(d).expect("openssl update");
                    black_box(h.finish().expect("openssl finish"));
                });
            }
        }
    });
    group.finish();
}

fn benches(c: &mut Criterion<ThreadCpuTime>) {
    let evp = |name: &str| {
        OpenSsl::Evp(
            MessageDigest::from_name(name).unwrap_or_else(|| panic!("OpenSSL has no {name}")),
        )
    };
    // A row: parhash's typed one-shot, RustCrypto's, OpenSSL, every form or the default only.
    let all: [Peers; 8] = peers! {
        Md5: one_shot::<parhash::Md5>, one_shot::<md5::Md5>, OpenSsl::Evp(MessageDigest::md5()), true;
        Sha1: one_shot::<parhash::Sha1>, one_shot::<sha1::Sha1>, OpenSsl::OneShot(|d| { black_box(sha::sha1(d)); }), true;
        Sha224: one_shot::<parhash::Sha224>, one_shot::<sha2::Sha224>, OpenSsl::OneShot(|d| { black_box(sha::sha224(d)); }), false;
        Sha256: one_shot::<parhash::Sha256>, one_shot::<sha2::Sha256>, OpenSsl::OneShot(|d| { black_box(sha::sha256(d)); }), true;
        Sha384: one_shot::<parhash::Sha384>, one_shot::<sha2::Sha384>, OpenSsl::OneShot(|d| { black_box(sha::sha384(d)); }), false;
        Sha512: one_shot::<parhash::Sha512>, one_shot::<sha2::Sha512>, OpenSsl::OneShot(|d| { black_box(sha::sha512(d)); }), true;
        Sha512_224: one_shot::<parhash::Sha512_224>, one_shot::<sha2::Sha512_224>, evp("sha512-224"), false;
        Sha512_256: one_shot::<parhash::Sha512_256>, one_shot::<sha2::Sha512_256>, evp("sha512-256"), false;
    };
    for algorithm in all {
        bench_algorithm(c, algorithm);
    }
}

cpu_time_group!(sha2_md5: benches);
criterion_main!(sha2_md5);
