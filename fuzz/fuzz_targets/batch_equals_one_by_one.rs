//! A batch of messages (lengths from the input, contents from the rest) through every lane
//! kernel and 1..=3 threads: each digest equals the single-message one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parhash::batch::{hash_many_with, BatchOptions};
use parhash::lab::batch::has_lanes;
use parhash::{hash, Algorithm};

fuzz_target!(|input: &[u8]| {
    let [pick, count, rest @ ..] = input else {
        return;
    };
    let lane_algs: Vec<Algorithm> = Algorithm::ALL
        .iter()
        .copied()
        .filter(|a| has_lanes(*a))
        .collect();
    let alg = lane_algs[*pick as usize % lane_algs.len()];
    // Up to 40 messages; each takes a length byte (x 8, so several blocks) and that many bytes.
    let mut messages = Vec::new();
    let mut at = rest;
    for _ in 0..(*count % 41) {
        let Some((&len, tail)) = at.split_first() else {
            break;
        };
        let n = (len as usize * 8).min(tail.len());
        messages.push(&tail[..n]);
        at = &tail[n..];
    }
    let want: Vec<_> = messages.iter().map(|m| hash(alg, m)).collect();
    for kernel in parhash::lab::batch::kernels(alg)
        .into_iter()
        .map(Some)
        .chain([None])
    {
        for threads in 1..=3 {
            let got = hash_many_with(
                alg,
                &messages,
                BatchOptions {
                    threads: threads.into(),
                    kernel,
                },
            );
            assert_eq!(got, want, "{alg} {kernel:?} threads={threads}");
        }
    }
});
