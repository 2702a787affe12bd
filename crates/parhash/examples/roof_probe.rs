use parhash::lab::algo::sha2::sha256::lanes::compress_with;
use parhash::lab::lanes::Kernel;
use parhash::parsha256::{parsha256_with, ParshaOptions};
use std::time::Instant;

fn standalone(kernel: Kernel, n: usize, distinct: bool) -> f64 {
    let mut states: Vec<[u32; 8]> = (0..n)
        .map(|i| [0x6a09_e667u32 ^ if distinct { i as u32 } else { 0 }; 8])
        .collect();
    let blocks: Vec<[u8; 64]> = (0..n)
        .map(|i| [if distinct { i as u8 } else { 0x5a }; 64])
        .collect();
    let t0 = Instant::now();
    let mut calls = 0u64;
    while t0.elapsed().as_secs_f64() < 0.3 {
        for _ in 0..16 {
            compress_with(kernel, &mut states, &blocks);
        }
        calls += 16;
    }
    std::hint::black_box(&states);
    (calls * n as u64) as f64 / t0.elapsed().as_secs_f64() / 1e6
}

fn on_threads(kernel: Kernel, threads: usize) -> f64 {
    let rates: Vec<f64> = std::thread::scope(|sc| {
        let h: Vec<_> = (0..threads)
            .map(|_| sc.spawn(move || standalone(kernel, 256, true)))
            .collect();
        h.into_iter().map(|h| h.join().unwrap()).collect()
    });
    rates.iter().sum()
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("sand") {
        use parhash::lab::algo::sandstorm::lanes::{Wide, LANES};
        use parhash::lab::algo::sandstorm::{Params, P256};
        let wide = Wide::avx512().unwrap();
        let total = 64usize << 20;
        let data = vec![0x5au8; total];
        for round in 0..5 {
            let mut row = format!("r{round}");
            for per_lane in [512usize, 10] {
                // Lanes `per_lane` blocks apart, walking through the whole buffer (as the tree does).
                let group = LANES * per_lane * 64;
                let mut chains = [P256::K; LANES];
                let t0 = Instant::now();
                let mut blocks = 0u64;
                while t0.elapsed().as_secs_f64() < 0.3 {
                    for g in 0..total / group {
                        let starts = core::array::from_fn(|l| g * group + l * per_lane * 64);
                        wide.compress_blocks(&mut chains, &data, &starts, per_lane);
                    }
                    blocks += (total / group * group / 64) as u64;
                }
                std::hint::black_box(&chains);
                row += &format!(
                    " | {per_lane} blocks per lane: {:.1} M/s",
                    blocks as f64 / t0.elapsed().as_secs_f64() / 1e6
                );
            }
            // Same, cache-resident (the ceiling's form): 512 blocks per lane over 256 KiB.
            let data2 = vec![0x5au8; LANES * 512 * 64];
            let mut chains = [P256::K; LANES];
            let starts = core::array::from_fn(|l| l * 512 * 64);
            let t0 = Instant::now();
            let mut blocks = 0u64;
            while t0.elapsed().as_secs_f64() < 0.3 {
                wide.compress_blocks(&mut chains, &data2, &starts, 512);
                blocks += (LANES * 512) as u64;
            }
            std::hint::black_box(&chains);
            row += &format!(
                " | ceiling form (cached): {:.1} M/s",
                blocks as f64 / t0.elapsed().as_secs_f64() / 1e6
            );
            let data3 = vec![0x5au8; 50 * LANES * 640];
            let t0 = Instant::now();
            let mut blocks = 0u64;
            while t0.elapsed().as_secs_f64() < 0.3 {
                for group in data3.chunks_exact(LANES * 640) {
                    let starts = core::array::from_fn(|l| l * 640);
                    wide.compress_blocks(&mut chains, group, &starts, 10);
                }
                blocks += 4000;
            }
            std::hint::black_box(&chains);
            row += &format!(
                " | 10-block groups (cached): {:.1} M/s",
                blocks as f64 / t0.elapsed().as_secs_f64() / 1e6
            );
            // The tree itself on one thread, the whole buffer (from memory, as it reads it).
            use parhash::lab::algo::sandstorm::reference::Boundaries;
            use parhash::lab::algo::sandstorm::tree::{hash_slice, TreeOptions};
            let engine = TreeOptions::avx512(1).unwrap();
            let t0 = Instant::now();
            std::hint::black_box(hash_slice::<u64>(
                P256::K,
                Boundaries::Design,
                engine,
                &data,
            ));
            let comps = (total / 64) as f64 * 1.101;
            row += &format!(
                " | tree, 1 thread: {:.1} M/s",
                comps / t0.elapsed().as_secs_f64() / 1e6
            );
            println!("{row}");
        }
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("sandone") {
        // SANDstorm-256 as the sandstorm preset's ceiling row runs it: an 8 MiB chunk streamed
        // 64 times (512 MiB) through the tree, on the given number of threads.
        use parhash::lab::algo::sandstorm::reference::Boundaries;
        use parhash::lab::algo::sandstorm::tree::{Tree, TreeOptions};
        use parhash::lab::algo::sandstorm::{Params, P256};
        let threads: usize = std::env::args().nth(2).map_or(1, |t| t.parse().unwrap());
        let chunk: Vec<u8> = (0..8usize << 20).map(|i| (i % 251) as u8).collect();
        let mut tree = Tree::new(P256::K, Boundaries::Design, TreeOptions::fastest(threads));
        for _ in 0..64 {
            tree.update_blocks(&chunk);
        }
        std::hint::black_box(tree.finalize(&[], 512u128 << 23));
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("one") {
        let len = 64usize << 20;
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let threads: usize = std::env::args().nth(2).map_or(1, |t| t.parse().unwrap());
        let options = ParshaOptions {
            threads: threads.into(),
            kernel: None,
        };
        for _ in 0..40 {
            std::hint::black_box(parsha256_with(&data, 13, 256, &options).unwrap());
        }
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("engine") {
        let len = 64usize << 20;
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let comps = 1_398_102f64;
        let kernel = Kernel::best(true);
        for round in 0..5 {
            let mut row = format!("r{round}");
            for threads in [1usize, 2] {
                let s = on_threads(kernel, threads);
                let options = ParshaOptions {
                    threads: threads.into(),
                    kernel: Some(kernel),
                };
                let t0 = Instant::now();
                std::hint::black_box(parsha256_with(&data, 13, 256, &options).unwrap());
                let e = comps / t0.elapsed().as_secs_f64() / 1e6;
                row += &format!(
                    " | {threads} thr: standalone {s:.1} engine {e:.1} M/s ratio {:.2}",
                    e / s
                );
            }
            println!("{row}");
        }
        return;
    }
    if std::env::args().nth(1).as_deref() == Some("scale") {
        for round in 0..5 {
            for kernel in Kernel::all(true).into_iter().skip(1) {
                let one = on_threads(kernel, 1);
                let two = on_threads(kernel, 2);
                println!(
                    "r{round} {:>8}: 1 thread {one:.1} M/s, 2 threads {two:.1} M/s, x{:.2}",
                    kernel.name(),
                    two / one
                );
            }
        }
        return;
    }
    let len = 64usize << 20;
    let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
    let comps = 1_398_102f64;
    for round in 0..3 {
        for kernel in Kernel::all(true) {
            let s256 = standalone(kernel, 256, false);
            let s128 = standalone(kernel, 128, true);
            let s16 = standalone(kernel, 16, true);
            let s4 = standalone(kernel, 4, true);
            let s1 = standalone(kernel, 1, true);
            let options = ParshaOptions {
                threads: 1.into(),
                kernel: Some(kernel),
            };
            let mut best = f64::MAX;
            for _ in 0..3 {
                let t0 = Instant::now();
                std::hint::black_box(parsha256_with(&data, 13, 256, &options).unwrap());
                best = best.min(t0.elapsed().as_secs_f64());
            }
            println!(
                "r{round} {:>10}: standalone M/s n256 {s256:.1} n128 {s128:.1} n16 {s16:.1} n4 {s4:.1} n1 {s1:.1} | engine 1 thread {:.1} M/s ({:.2} GB/s)",
                kernel.name(), comps / best / 1e6, len as f64 / best / 1e9
            );
        }
    }
}
