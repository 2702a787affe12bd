//! BLAKE, Skein and RC5: every form of each at 64 B, 1 KiB and 1 MiB, beside the RustCrypto
//! crate (`blake-hash` 0.4, `skein` 0.2, `rc5` 0.1) measured in the same run.
//!
//! `cargo bench -p parhash --bench blake_skein -- --warm-up-time 1 --measurement-time 2`

mod common;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use digest::Digest;
use parhash::lab::algo::Variants;
use parhash::lab::rc5::{overlapped, Rc5_32_12_16};
use parhash::{Blake256, Blake512, Skein512_512};

const SIZES: [usize; 3] = [64, 1024, 1 << 20];

/// Every available variant of `H` (except the dispatching `parallel`, which is one of the
/// forced ones), then the oracle crate.
fn family<H: Variants + Digest>(
    c: &mut Criterion,
    group: &str,
    crate_name: &str,
    oracle: impl Fn(&[u8]) -> Vec<u8>,
) {
    let mut g = c.benchmark_group(group);
    for size in SIZES {
        let data = vec![0xa5u8; size];
        g.throughput(Throughput::Bytes(size as u64));
        if size > 4096 {
            g.sample_size(20);
        }
        common::bench_typed_variants::<H, _>(&mut g, &data);
        g.bench_with_input(BenchmarkId::new(crate_name, size), &data, |b, d| {
            b.iter(|| black_box(oracle(d)))
        });
    }
    g.finish();
}

fn hashes(c: &mut Criterion) {
    family::<Blake256>(c, "blake256", "blake-hash", |d| {
        use blake_hash::Digest as _;
        blake_hash::Blake256::digest(d).to_vec()
    });
    family::<Blake512>(c, "blake512", "blake-hash", |d| {
        use blake_hash::Digest as _;
        blake_hash::Blake512::digest(d).to_vec()
    });
    family::<Skein512_512>(c, "skein512-512", "skein-crate", |d| {
        skein::Skein512_512::digest(d).to_vec()
    });
}

fn rc5(c: &mut Criterion) {
    use cipher::{Array, BlockCipherEncrypt, KeyInit};
    type Oracle = rc5::RC5<u32, cipher::consts::U12, cipher::consts::U16>;
    let key = [0x42u8; 16];
    let block = [0x17u8; 8];

    // One block per key: the case the overlapped form is built for.
    let mut g = c.benchmark_group("rc5-one-block-per-key");
    g.bench_function("sequential", |b| {
        b.iter(|| black_box(Rc5_32_12_16::new(black_box(&key)).encrypt_block(block)))
    });
    g.bench_function("overlapped", |b| {
        b.iter(|| black_box(overlapped::encrypt_block(black_box(&key), block)))
    });
    g.bench_function("rc5-crate", |b| {
        b.iter(|| {
            let mut x = Array::from(block);
            Oracle::new(&Array::from(*black_box(&key))).encrypt_block(&mut x);
            black_box(x)
        })
    });
    g.finish();

    // 1 KiB (128 blocks) per key: sequential expands once; overlapped only helps the first
    // block (encrypt_first_block keeps the schedule), and a one-shot overlapped call per block
    // redoes the key schedule every time.
    let mut g = c.benchmark_group("rc5-128-blocks-per-key");
    g.throughput(Throughput::Bytes(1024));
    let blocks = [block; 128];
    g.bench_function("sequential", |b| {
        b.iter(|| {
            let mut x = blocks;
            Rc5_32_12_16::new(black_box(&key)).encrypt_blocks(&mut x);
            black_box(x)
        })
    });
    g.bench_function("overlapped-first-then-sequential", |b| {
        b.iter(|| {
            let mut x = blocks;
            let (first, cipher) = overlapped::encrypt_first_block(black_box(&key), x[0]);
            x[0] = first;
            cipher.encrypt_blocks(&mut x[1..]);
            black_box(x)
        })
    });
    g.bench_function("overlapped-per-block", |b| {
        b.iter(|| {
            let mut x = blocks;
            for blk in x.iter_mut() {
                *blk = overlapped::encrypt_block(black_box(&key), *blk);
            }
            black_box(x)
        })
    });
    g.bench_function("rc5-crate", |b| {
        b.iter(|| {
            let mut x = blocks.map(Array::from);
            Oracle::new(&Array::from(*black_box(&key))).encrypt_blocks(&mut x);
            black_box(x)
        })
    });
    g.finish();
}

criterion_group!(benches, hashes, rc5);
criterion_main!(benches);
