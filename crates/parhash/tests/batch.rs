//! The multi-message engine: batch equals one-by-one for random sets of messages, every lane
//! kernel width forced, every thread count 1..=4; the job manager under random
//! submit/poll/flush interleavings; the interleaved layout; every algorithm through the API.
mod common;

use common::*;
use parhash::batch::{
    hash_many, hash_many_with, BatchError, BatchOptions, Interleaved, JobManager,
};
use parhash::lab::batch::has_lanes;
use parhash::lab::lanes::{Kernel, Width};
use parhash::{hash, Algorithm, Output};
use rand::Rng;

/// 1..300 messages of 0..=20000 bytes, some empty, some repeated.
fn random_set(r: &mut rand::rngs::StdRng, max_count: usize) -> Vec<Vec<u8>> {
    let count = r.random_range(1..=max_count);
    let mut set: Vec<Vec<u8>> = Vec::with_capacity(count);
    for _ in 0..count {
        let pick = r.random_range(0..10);
        let msg = if pick == 0 {
            Vec::new()
        } else if pick == 1 && !set.is_empty() {
            set[r.random_range(0..set.len())].clone()
        } else if pick < 5 {
            {
                let n = r.random_range(0..=300);
                random_bytes(r, n)
            }
        } else {
            {
                let n = r.random_range(0..=20000);
                random_bytes(r, n)
            }
        };
        set.push(msg);
    }
    set
}

fn one_by_one(alg: Algorithm, set: &[&[u8]]) -> Vec<Output> {
    set.iter().map(|m| hash(alg, m)).collect()
}

/// `hash_many_with` by `kernel` (`None`: the one it picks) on each thread count of `threads`
/// equals `expected`.
fn check_threads(
    alg: Algorithm,
    set: &[&[u8]],
    expected: &[Output],
    kernel: Option<Kernel>,
    threads: std::ops::RangeInclusive<usize>,
) {
    let name = kernel.map_or("picked", |k| k.name());
    for threads in threads {
        let options = BatchOptions {
            threads: threads.into(),
            kernel,
        };
        let got = hash_many_with(alg, set, options);
        assert_eq!(got, expected, "{alg} {name} threads={threads}");
    }
}

fn lane_algorithms() -> Vec<Algorithm> {
    Algorithm::ALL
        .iter()
        .copied()
        .filter(|a| has_lanes(*a))
        .collect()
}

#[test]
fn lane_algorithms_exist() {
    for name in ["md5", "sha1", "sha224", "sha256", "sha3-256", "keccak256"] {
        assert!(has_lanes(Algorithm::from_name(name).unwrap()), "{name}");
    }
}

#[test]
fn batch_equals_one_by_one_every_width_and_thread_count() {
    let mut r = rng(0xba7c_0001);
    for alg in lane_algorithms() {
        for round in 0..cases(2, 6) {
            let owned = random_set(&mut r, if round == 0 { 300 } else { 60 });
            let set: Vec<&[u8]> = owned.iter().map(|m| &m[..]).collect();
            let expected = one_by_one(alg, &set);
            for kernel in parhash::lab::batch::kernels(alg) {
                ran("batch", &format!("{alg}:{}", kernel.name()));
                check_threads(alg, &set, &expected, Some(kernel), 1..=4);
            }
        }
        eprintln!(
            "{alg}: kernels tested: {:?}",
            parhash::lab::batch::kernels(alg)
                .iter()
                .map(|k| k.name())
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn large_batches_split_over_pool_threads_equal_one_by_one() {
    // Enough bytes (256 KiB per thread at least) that 2..=4 threads really split the batch over
    // rayon's pool: uneven sizes, so the groups' boundaries fall mid-set.
    let mut r = rng(0xba7c_0003);
    let owned: Vec<Vec<u8>> = (0..24)
        .map(|i| {
            let n = if i % 5 == 0 {
                r.random_range(0..100)
            } else {
                r.random_range(40_000..160_000)
            };
            random_bytes(&mut r, n)
        })
        .collect();
    let set: Vec<&[u8]> = owned.iter().map(|m| &m[..]).collect();
    assert!(owned.iter().map(Vec::len).sum::<usize>() > 4 * (256 << 10));
    for alg in lane_algorithms() {
        let expected = one_by_one(alg, &set);
        for kernel in parhash::lab::batch::kernels(alg)
            .into_iter()
            .map(Some)
            .chain([None])
        {
            check_threads(alg, &set, &expected, kernel, 2..=4);
        }
    }
}

#[test]
fn every_boundary_length_in_every_lane() {
    // All lanes busy with messages whose lengths cross each padding boundary.
    for alg in lane_algorithms() {
        let block = alg.info().block_size;
        let owned: Vec<Vec<u8>> = boundary_lengths(block).into_iter().map(pattern).collect();
        let set: Vec<&[u8]> = owned.iter().map(|m| &m[..]).collect();
        let expected = one_by_one(alg, &set);
        for kernel in parhash::lab::batch::kernels(alg) {
            check_threads(alg, &set, &expected, Some(kernel), 1..=1);
        }
    }
}

#[test]
fn every_algorithm_works_through_the_batch_api() {
    let owned: Vec<Vec<u8>> = (0..20).map(|i| pattern(i * 37)).collect();
    let set: Vec<&[u8]> = owned.iter().map(|m| &m[..]).collect();
    for &alg in Algorithm::ALL {
        assert_eq!(hash_many(alg, &set), one_by_one(alg, &set), "{alg}");
    }
}

#[test]
fn job_manager_random_interleavings() {
    let mut r = rng(0xba7c_0002);
    for alg in lane_algorithms() {
        for kernel in parhash::lab::batch::kernels(alg) {
            for _ in 0..cases(2, 10) {
                let owned = random_set(&mut r, 80);
                let mut jm = JobManager::with_kernel(alg, kernel);
                let mut results: Vec<Option<Output>> = vec![None; owned.len()];
                let record = |(id, d): (u64, Output), results: &mut Vec<Option<Output>>| {
                    assert!(
                        results[id as usize].replace(d).is_none(),
                        "job {id} reported twice"
                    );
                };
                for (i, m) in owned.iter().enumerate() {
                    let id = if r.random_bool(0.5) {
                        jm.submit(&m[..])
                    } else {
                        jm.submit(m.clone())
                    };
                    assert_eq!(id, i as u64);
                    match r.random_range(0..6) {
                        0 => jm.flush().into_iter().for_each(|x| record(x, &mut results)),
                        1 | 2 => {
                            while let Some(x) = jm.poll() {
                                record(x, &mut results);
                            }
                        }
                        _ => {}
                    }
                }
                jm.flush().into_iter().for_each(|x| record(x, &mut results));
                assert!(jm.poll().is_none());
                for (i, m) in owned.iter().enumerate() {
                    assert_eq!(
                        results[i],
                        Some(hash(alg, m)),
                        "{alg} {} job {i}",
                        kernel.name()
                    );
                }
            }
        }
    }
}

#[test]
fn interleaved_layout_equals_one_by_one() {
    let mut r = rng(0xba7c_0003);
    for alg in lane_algorithms() {
        for width in Width::all_available() {
            for len in [0usize, 1, 55, 56, 64, 119, 136, 1024, 4096 + 7] {
                let count = r.random_range(1..=40);
                let owned: Vec<Vec<u8>> = (0..count).map(|_| random_bytes(&mut r, len)).collect();
                let set: Vec<&[u8]> = owned.iter().map(|m| &m[..]).collect();
                let batch = Interleaved::with_width(alg, &set, width).unwrap();
                assert_eq!(batch.len(), count);
                assert_eq!(
                    batch.hash(),
                    one_by_one(alg, &set),
                    "{alg} {} len {len}",
                    width.name()
                );
            }
        }
    }
    let a = [0u8; 3];
    let b = [0u8; 4];
    assert!(Interleaved::with_width(Algorithm::Md5, &[&a[..], &b[..]], Width::Portable).is_err());
    assert!(Interleaved::with_width(Algorithm::Whirlpool, &[&a[..]], Width::Portable).is_err());
    // The public constructor: this CPU's widest lanes.
    for alg in lane_algorithms() {
        let set: Vec<&[u8]> = vec![&b"abc"[..], &b"xyz"[..], &b"123"[..]];
        let batch = Interleaved::new(alg, &set).unwrap();
        assert_eq!(batch.hash(), one_by_one(alg, &set), "{alg}");
    }
    assert_eq!(
        Interleaved::new(Algorithm::Whirlpool, &[&a[..]]).err(),
        Some(BatchError::NoLaneKernel(Algorithm::Whirlpool))
    );
    assert_eq!(
        Interleaved::new(Algorithm::Md5, &[&a[..], &b[..]]).err(),
        Some(BatchError::UnequalLengths)
    );
}
