//! Grøstl and JH: every parhash form beside the RustCrypto `groestl` and `jh` crates, in the
//! same run, at 64 B, 1 KiB and 1 MiB. The 224- and 384-bit versions run the same compression
//! functions as the 256- and 512-bit ones, so only those two are measured.
//!
//! `cargo bench -p parhash --bench groestl_jh -- --warm-up-time 1 --measurement-time 2`
mod common;

use common::{bench_one_shot, bench_variant, each_input, one_shot};
use criterion::{criterion_group, criterion_main, Criterion};
use digest::Digest;
use parhash::Algorithm;

const SIZES: [usize; 3] = [64, 1024, 1024 * 1024];

fn bench_algorithm<RC: Digest>(c: &mut Criterion, alg: Algorithm) {
    let mut group = c.benchmark_group(alg.name());
    each_input(&mut group, &SIZES, |group, data| {
        // The literal forms take a good fraction of a second per MiB: fewer samples there.
        group.sample_size(if data.len() > 4096 { 10 } else { 50 });
        for v in alg.variants().into_iter().filter(|v| v.available) {
            bench_variant(group, alg, v.name, data);
        }
        bench_one_shot(group, "rustcrypto", data, one_shot::<RC>);
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    bench_algorithm::<groestl::Groestl256>(c, Algorithm::Groestl256);
    bench_algorithm::<groestl::Groestl512>(c, Algorithm::Groestl512);
    bench_algorithm::<jh::Jh256>(c, Algorithm::Jh256);
    bench_algorithm::<jh::Jh512>(c, Algorithm::Jh512);
}

criterion_group!(groestl_jh, benches);
criterion_main!(groestl_jh);
