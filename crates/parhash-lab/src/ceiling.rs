//! The tree modes against their own ceiling (issue 21, item 3).
//!
//! A tree mode spends its time in compressions, and not every compression brings new message
//! bytes: PARSHA-256's internal processors compress their children's two outputs (64 bytes)
//! with only 32 bytes of message, its leaves 96 - l/8 message bytes (l IV bits fill the rest);
//! SANDstorm's level-2 and level-3 chains compress the outputs of the level below, no message
//! at all. So the most a tree mode can reach on this machine is
//!
//! ```text
//! ceiling = (compressions per second of the fastest multi-stream form, all threads at once)
//!         x (message bytes / compressions for this length and these parameters)
//! ```
//!
//! and `parhash / ceiling` says how much of what is left the engine loses (thread hand-offs,
//! reading the message, the narrow top of the tree, rounds that fill only some lanes). The
//! compression count is exact (the specification's formulas; PARSHA-256's is checked against
//! the reference's own count in the tests); the rate is measured in the same run as parhash,
//! in alternating samples, medians.

use std::sync::Barrier;
use std::time::Instant;

use parhash::lab::algo::sandstorm::lanes::{Wide, LANES};
use parhash::lab::algo::sandstorm::reference::Chain;
use parhash::lab::algo::sandstorm::word::Word;
use parhash::lab::algo::sandstorm::{fast, Params, P256, P512};
use parhash::lab::algo::sha2::sha256::lanes::compress_with;
use parhash::lab::lanes::Kernel;
use parhash::threads::Threads;

use crate::report::{Section, Table};
use crate::timer::Stats;
use crate::units::{format_size, sig3};

/// Blocks in one of SANDstorm's level-1 superblocks: the longest chain the tree has.
const SUPERBLOCK_BLOCKS: usize = 10;

/// PARSHA-256's n and m in bits: SHA-256's compression takes 768 bits, gives 256.
const N: u64 = 768;
const M: u64 = 256;

/// Compressions PARSHA-256 runs on a `len`-byte message with tree height `tree_height` and an
/// IV of `iv_bits` bits, the final one included (Pal & Sarkar's steps 1-5:
/// `(q + 2) 2^t + 2b - 1` in the tree, plus the final h; 2 for a short message).
pub fn parsha_compressions(len: u64, tree_height: u32, iv_bits: u32) -> u64 {
    let l = u64::from(iv_bits);
    let unit = 2 * N - 2 * M - l;
    let delta = |i: u32| (1u64 << i) * unit - (N - 2 * M);
    let mut bits = len * 8;
    if bits <= N - l {
        return 2;
    }
    bits = bits.max(delta(1));
    let t = if bits >= delta(tree_height) {
        tree_height
    } else {
        (1..tree_height)
            .find(|&i| delta(i) <= bits && bits < delta(i + 1))
            .expect("delta is increasing and delta(1) <= L < delta(T)")
    };
    let (q, r) = if bits == delta(t) {
        (0, 0)
    } else {
        let excess = bits - delta(t);
        let lambda = (1u64 << (t - 1)) * unit;
        let q = (excess - 1) / lambda;
        (q, excess - q * lambda)
    };
    let b = r.div_ceil(unit);
    (q + 2) * (1u64 << t) + 2 * b - 1 + 1
}

/// Compressions SANDstorm runs on a `len`-byte message of `block`-byte blocks: level 0 (the
/// first padded block), one per level-1 block, one per level-1 superblock of 10 when there is
/// more than one (level 2), one per level-2 superblock of 100 when there is more than one
/// (level 3), and level 4. Padding always adds a block's worth of bits at most.
pub fn sandstorm_compressions(len: u64, block: u64) -> u64 {
    let level1 = len / block; // padded blocks minus B0
    let supers1 = level1.div_ceil(10);
    let level2 = if supers1 > 1 { supers1 } else { 0 };
    let level3 = if supers1 > 100 {
        supers1.div_ceil(100)
    } else {
        0
    };
    1 + level1 + level2 + level3 + 1
}

/// Work units per second when every thread of `threads` runs its own `work` (one unit per call)
/// over and over for at least `min_seconds`, all started together: total calls over the wall
/// time until the last thread stops. Long samples keep a moment off the CPU (a shared machine)
/// from counting as a slow compression. `make` builds a thread's work (its own data).
///
/// The threads are parhash's own (the calling thread and the pool's helpers, as the engines
/// use them): threads spawned here for each sample and ended before parhash's run left the
/// scheduler placing parhash's woken helper on the calling thread's core for the next runs,
/// where it waited for most of a hash (BENCHMARKS.md, "Performance at the roof").
fn on_threads(
    threads: usize,
    min_seconds: f64,
    make: &(dyn Fn() -> Box<dyn FnMut()> + Sync),
) -> f64 {
    let barrier = Barrier::new(threads);
    let start = std::sync::OnceLock::new();
    let calls: u64 = parhash::threads::run_workers(Threads::new(threads), || {
        let mut work = make();
        barrier.wait();
        let t0 = *start.get_or_init(Instant::now);
        let mut calls = 0u64;
        while calls == 0 || t0.elapsed().as_secs_f64() < min_seconds {
            work();
            calls += 1;
        }
        calls
    })
    .into_iter()
    .sum();
    let wall = start
        .get()
        .expect("threads started")
        .elapsed()
        .as_secs_f64();
    calls as f64 / wall
}

/// A compression form: its name and a maker of a thread's work (a fixed number of compressions
/// per call).
struct Form {
    name: String,
    make: Box<dyn Fn() -> Box<dyn FnMut()> + Sync>,
}

/// SHA-256's multi-stream forms (vector lanes, interleaved SHA-NI streams): `count`
/// independent one-block compressions per call, `calls` calls.
fn sha256_forms(count: usize, calls: usize) -> Vec<Form> {
    Kernel::all(true)
        .into_iter()
        .map(|kernel| Form {
            name: format!("SHA-256 {}", kernel.name()),
            make: Box::new(move || {
                let mut states = vec![[0x6a09_e667u32; 8]; count];
                let blocks = vec![[0x5au8; 64]; count];
                Box::new(move || {
                    for _ in 0..calls {
                        compress_with(kernel, &mut states, &blocks);
                    }
                    std::hint::black_box(&states);
                })
            }),
        })
        .collect()
}

/// SANDstorm's compression forms for `P`: eight SIMD lanes and the portable four interleaved
/// chains the tree uses where there is no SIMD form, in the baseline build and the BMI2 one
/// (`mulx`; the tree's form for 384/512 without AVX2).
fn sandstorm_forms<P: Params>(blocks: usize) -> Vec<Form> {
    /// Four interleaved chains of `P`, `blocks` compressions per call by `compress`.
    fn chains<P: Params>(
        name: String,
        blocks: usize,
        compress: impl Fn(&[[P::W; 8]; 4], &mut [Chain<P::W>; 4]) + Copy + Send + Sync + 'static,
    ) -> Form {
        Form {
            name,
            make: Box::new(move || {
                let mut chains = [P::K; 4];
                let input = [[<P::W as Default>::default(); 8]; 4];
                Box::new(move || {
                    for _ in 0..blocks / 4 {
                        compress(&input, &mut chains);
                    }
                    std::hint::black_box(&chains);
                })
            }),
        }
    }
    let mut forms = vec![chains::<P>(
        format!("{} portable, 4 chains", P::NAME),
        blocks,
        fast::compress_lanes::<P::W, 4>,
    )];
    #[cfg(target_arch = "x86_64")]
    if let Some(bmi2) = parhash::lab::platform::Bmi2::detect() {
        forms.push(chains::<P>(
            format!("{} BMI2, 4 chains", P::NAME),
            blocks,
            move |m, c| fast::compress_lanes_bmi2::<P::W, 4>(bmi2, m, c),
        ));
    }
    for wide in [Wide::avx512(), Wide::avx2()].into_iter().flatten() {
        forms.push(Form {
            name: format!("{} {}, 8 lanes", P::NAME, wide.name()),
            // Each lane runs one level-1 superblock (10 blocks) per call, as the tree
            // must: a superblock's chain starts from its own numbered constant, so no
            // lane can run longer. Longer chains per lane would measure a rate the tree
            // cannot reach (BENCHMARKS.md, "Performance at the roof").
            make: Box::new(move || {
                let superblock = SUPERBLOCK_BLOCKS * 8 * <P::W as Word>::BYTES;
                let groups = blocks / (LANES * SUPERBLOCK_BLOCKS);
                let data = vec![0x5au8; groups * LANES * superblock];
                let mut chains = [P::K; LANES];
                Box::new(move || {
                    for group in data.chunks_exact(LANES * superblock) {
                        let starts = core::array::from_fn(|l| l * superblock);
                        wide.compress_blocks(&mut chains, group, &starts, SUPERBLOCK_BLOCKS);
                    }
                    std::hint::black_box(&chains);
                })
            }),
        });
    }
    forms
}

/// One tree mode's case: its name, the message lengths and, per length, the compression count
/// and a run of parhash's engine on all threads.
pub struct Case<'a> {
    pub algorithm: &'a str,
    pub params: String,
    pub lengths: Vec<usize>,
    pub compressions: &'a dyn Fn(usize) -> u64,
    pub run: &'a mut dyn FnMut(usize),
}

/// Measures `forms` (each call `per_call` compressions, on every thread) and the case's runs,
/// alternating, `samples` times; one table row per length.
fn ceiling_rows(
    table: &mut Table,
    case: Case,
    forms: &[Form],
    per_call: usize,
    threads: usize,
    samples: usize,
) {
    // Every form is measured in every sample, beside parhash, and the ceiling is the form with
    // the highest median: picking the form first on a few short rounds let a burst of load
    // elsewhere pick a slow form, and the row then showed parhash above "its ceiling"
    // (BENCHMARKS.md, "Performance at the roof").
    let min_seconds = if samples > 1 { 0.1 } else { 0.002 };
    let rate = |form: &Form| per_call as f64 * on_threads(threads, min_seconds, &*form.make);
    for &len in &case.lengths {
        let mut rates = vec![Vec::new(); forms.len()];
        let mut runs = Vec::new();
        for _ in 0..samples {
            for (form_rates, form) in rates.iter_mut().zip(forms) {
                form_rates.push(rate(form));
            }
            let t0 = Instant::now();
            (case.run)(len);
            runs.push(t0.elapsed().as_secs_f64());
        }
        let (best, rate) = forms
            .iter()
            .zip(&rates)
            .map(|(form, rates)| (form, Stats::of(rates).median))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .expect("every mode has a portable form");
        let compressions = (case.compressions)(len);
        let per_compression = len as f64 / compressions as f64;
        let ceiling = rate * per_compression;
        let parhash = len as f64 / Stats::of(&runs).median;
        table.push(vec![
            case.algorithm.into(),
            case.params.clone(),
            format_size(len),
            compressions.to_string(),
            sig3(per_compression),
            format!("{} ({threads} threads)", best.name),
            sig3(rate / 1e6),
            sig3(ceiling / 1e9),
            sig3(parhash / 1e9),
            format!("{:.2}", parhash / ceiling),
        ]);
    }
}

fn table() -> Table {
    Table::new(&[
        "algorithm",
        "parameters",
        "message",
        "compressions",
        "message bytes per compression",
        "fastest compression form",
        "compressions M/s",
        "ceiling GB/s",
        "parhash GB/s",
        "parhash / ceiling",
    ])
}

/// The lengths the issue asks about: 64 MiB and 1 GiB (1 MiB and 4 MiB for `--tiny`).
pub fn lengths(tiny: bool) -> Vec<usize> {
    if tiny {
        vec![1 << 20, 4 << 20]
    } else {
        vec![64 << 20, 1 << 30]
    }
}

fn samples(tiny: bool) -> usize {
    if tiny {
        1
    } else {
        5
    }
}

/// PARSHA-256's section: `run(len)` hashes a `len`-byte message with parameters
/// `(tree_height, iv_bits)` on all threads.
pub fn parsha_section(
    tiny: bool,
    tree_height: u32,
    iv_bits: u32,
    run: &mut dyn FnMut(usize),
) -> Section {
    let threads = parhash::threads::available();
    let mut t = table();
    let (count, calls) = (256, 16);
    let compressions = move |len: usize| parsha_compressions(len as u64, tree_height, iv_bits);
    let case = Case {
        algorithm: "parsha256",
        params: format!("T = {tree_height}, l = {iv_bits}"),
        lengths: lengths(tiny),
        compressions: &compressions,
        run,
    };
    let forms = sha256_forms(count, calls);
    ceiling_rows(&mut t, case, &forms, count * calls, threads, samples(tiny));
    Section {
        title: "PARSHA-256 against its ceiling".into(),
        paragraphs: vec![format!(
            "Ceiling = SHA-256 compressions per second in the fastest multi-stream form on all \
             {threads} threads x message bytes per compression (leaves carry {} bytes, internal \
             processors 32 besides their children's 64; the count is the specification's). \
             parhash / ceiling is what the engine keeps; the goal is 0.85. {} alternating \
             samples of the compression rate and of parhash, medians.",
            (N - u64::from(iv_bits)) / 8,
            samples(tiny)
        )],
        table: Some(t),
    }
}

/// SANDstorm's section for -256 and -512: `run(len, bits)` hashes a `len`-byte message with
/// SANDstorm-`bits` on all threads.
pub fn sandstorm_section(tiny: bool, run: &mut dyn FnMut(usize, u32)) -> Section {
    let threads = parhash::threads::available();
    let mut t = table();
    // A whole number of eight-lane superblock groups (80 blocks) and of 4-chain steps.
    let blocks = 4000;
    for bits in [256u32, 512] {
        let (forms, block) = if bits == 256 {
            (sandstorm_forms::<P256>(blocks), 64)
        } else {
            (sandstorm_forms::<P512>(blocks), 128)
        };
        let compressions = move |len: usize| sandstorm_compressions(len as u64, block);
        let mut run_one = |len: usize| run(len, bits);
        let case = Case {
            algorithm: if bits == 256 {
                "sandstorm256"
            } else {
                "sandstorm512"
            },
            params: "-".into(),
            lengths: lengths(tiny),
            compressions: &compressions,
            run: &mut run_one,
        };
        ceiling_rows(&mut t, case, &forms, blocks, threads, samples(tiny));
    }
    Section {
        title: "SANDstorm against its ceiling".into(),
        paragraphs: vec![format!(
            "Ceiling = compressions per second of SANDstorm's fastest compression form on all \
             {threads} threads x message bytes per compression (level-1 compressions carry a \
             block of message; level 0, 2, 3 and 4 none). {} alternating samples, medians.",
            samples(tiny)
        )],
        table: Some(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parhash::lab::algo::parsha256::reference::parsha256_counted;

    /// The closed form agrees with the reference's own count (which it checks against the
    /// bits that flow through the tree) over lengths that cross the short band, every effective
    /// height up to T = 4 and the end padding `b`, for each IV length.
    #[test]
    fn parsha_compressions_match_the_reference() {
        for l in [0u32, 128, 256] {
            for len in (0..3000).step_by(7).chain([95, 96, 97, 4096, 5000]) {
                let run = parsha256_counted(&vec![0u8; len], 4, l).expect("valid parameters");
                assert_eq!(
                    parsha_compressions(len as u64, 4, l),
                    run.compressions,
                    "len {len}, l {l}"
                );
            }
        }
    }

    /// SANDstorm's levels at their boundaries (spec section 6): 10 level-1 blocks are one
    /// superblock that feeds level 4 directly; 11 need level 2; 1001 need level 3.
    #[test]
    fn sandstorm_compressions_follow_the_levels() {
        let block = 64;
        assert_eq!(sandstorm_compressions(0, block), 2);
        assert_eq!(sandstorm_compressions(640, block), 1 + 10 + 1);
        assert_eq!(sandstorm_compressions(704, block), 1 + 11 + 2 + 1);
        assert_eq!(sandstorm_compressions(1000 * 64, block), 1 + 1000 + 100 + 1);
        assert_eq!(
            sandstorm_compressions(1001 * 64, block),
            1 + 1001 + 101 + 2 + 1
        );
    }

    /// Every form measures a positive rate on one thread (tiny work).
    #[test]
    fn forms_run() {
        for form in sha256_forms(16, 1)
            .iter()
            .chain(&sandstorm_forms::<P256>(80))
            .chain(&sandstorm_forms::<P512>(80))
        {
            assert!(on_threads(1, 0.0, &*form.make) > 0.0, "{}", form.name);
        }
    }
}
