//! SIMD-256 and SIMD-512: every form at 64 B, 1 KiB and 1 MiB, with OpenSSL's SHA-256 and
//! SHA-512 measured in the same run for scale. No Rust crate implements SIMD (the hash), so
//! there is no same-algorithm peer; the `sequential` form is the literal baseline.
//!
//! `cargo bench -p parhash --bench simd -- --warm-up-time 1 --measurement-time 2`

mod common;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use digest::Digest;
use parhash::lab::algo::Variants;
use parhash::{Simd256, Simd512};

const SIZES: [usize; 3] = [64, 1024, 1 << 20];

/// Every available variant of `H` (the dispatching `parallel` is one of the forced ones, so it
/// is skipped), then the OpenSSL peer.
fn family<H: Variants + Digest>(
    c: &mut Criterion,
    group: &str,
    peer_name: &str,
    peer: openssl::hash::MessageDigest,
) {
    let mut g = c.benchmark_group(group);
    for size in SIZES {
        let data = common::input(size);
        g.throughput(Throughput::Bytes(size as u64));
        if size > 4096 {
            g.sample_size(10);
        }
        common::bench_typed_variants::<H, _>(&mut g, &data);
        g.bench_with_input(BenchmarkId::new(peer_name, size), &data, |b, d| {
            b.iter(|| black_box(openssl::hash::hash(peer, d).expect("openssl")))
        });
    }
    g.finish();
}

fn hashes(c: &mut Criterion) {
    family::<Simd256>(
        c,
        "simd256",
        "openssl-sha256",
        openssl::hash::MessageDigest::sha256(),
    );
    family::<Simd512>(
        c,
        "simd512",
        "openssl-sha512",
        openssl::hash::MessageDigest::sha512(),
    );
}

criterion_group!(benches, hashes);
criterion_main!(benches);
