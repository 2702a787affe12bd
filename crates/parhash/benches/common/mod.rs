//! Shared by the benches: a criterion measurement of the benchmarking thread's CPU time, the
//! sizes every bench uses, and the `i mod 251` input.
//!
//! CPU time, not wall time: the machine these run on is shared by up to eight busy builds, and
//! wall-clock figures there swung by a factor of two between runs while CPU time stays within a
//! few percent. Criterion prints the CPU time under "time" and throughput from it.
#![allow(dead_code)] // each bench uses its own subset

use criterion::{
    measurement::{Measurement, ValueFormatter, WallTime},
    BenchmarkGroup, BenchmarkId, Throughput,
};
use digest::Digest;
use parhash::lab::algo::Variants;
use parhash::{Algorithm, Hasher};
use std::{hint::black_box, time::Duration};

/// The sizes of issue 2: 64 B, 1 KiB, 16 KiB and 1 MiB.
pub const SIZES: [usize; 4] = [64, 1024, 16 * 1024, 1024 * 1024];

/// Criterion measurement: CPU time consumed by the current thread.
pub struct ThreadCpuTime(pub WallTime);

/// CPU time of the calling thread so far.
pub fn thread_cpu_now() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant Linux supports.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

impl Measurement for ThreadCpuTime {
    type Intermediate = Duration;
    type Value = Duration;
    fn start(&self) -> Duration {
        thread_cpu_now()
    }
    fn end(&self, start: Duration) -> Duration {
        thread_cpu_now().saturating_sub(start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        self.0.formatter()
    }
}

/// `len` bytes of `i mod 251`.
pub fn input(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

/// `D::digest(data)`, the digest `black_box`ed: a plain `fn(&[u8])`, so that one table can list
/// each algorithm's one-shot peers (all of them then called alike, through a function pointer).
pub fn one_shot<D: Digest>(data: &[u8]) {
    black_box(D::digest(data));
}

/// Measures parhash's default form of `alg` on `data` as `parhash`: the dynamic `Hasher` (what
/// the CLI uses), updated and finalized (with reset) per iteration.
pub fn bench_default<M: Measurement>(
    group: &mut BenchmarkGroup<'_, M>,
    alg: Algorithm,
    data: &[u8],
) {
    let mut h = Hasher::new(alg);
    group.bench_with_input(BenchmarkId::new("parhash", data.len()), data, |b, d| {
        b.iter(|| {
            h.update(black_box(d));
            h.finalize_reset()
        })
    });
}

/// Measures every available variant of `H` on `data`, each under its name (but the dispatching
/// `parallel`, which is one of the forced ones): a fresh typed hasher per iteration, updated
/// once and finalized.
pub fn bench_typed_variants<H: Variants + Digest, M: Measurement>(
    group: &mut BenchmarkGroup<'_, M>,
    data: &[u8],
) {
    for v in H::available_variants() {
        if v.name() == "parallel" {
            continue;
        }
        group.bench_with_input(BenchmarkId::new(v.name(), data.len()), data, |b, d| {
            b.iter(|| {
                let mut h = H::with_variant(v);
                h.update(d);
                black_box(h.finalize())
            })
        });
    }
}

/// Measures parhash's `variant` of `alg` on `data` as `parhash-<variant>`: one hasher, updated
/// and finalized (with reset) per iteration, as a streaming caller would.
pub fn bench_variant<M: Measurement>(
    group: &mut BenchmarkGroup<'_, M>,
    alg: Algorithm,
    variant: &str,
    data: &[u8],
) {
    let mut h = Hasher::with_variant(alg.variant(variant).expect("available variant"));
    group.bench_with_input(
        BenchmarkId::new(format!("parhash-{variant}"), data.len()),
        data,
        |b, d| {
            b.iter(|| {
                h.update(black_box(d));
                h.finalize_reset()
            })
        },
    );
}

/// The forms of `alg` measured one by one (none unless `every_form`): the available ones but
/// the dispatching `parallel`, which is one of the forced ones (the best ISA here) and would be
/// measured twice.
pub fn measured_forms(alg: Algorithm, every_form: bool) -> Vec<&'static str> {
    alg.variants()
        .into_iter()
        .filter(|v| every_form && v.available && v.name != "parallel")
        .map(|v| v.name)
        .collect()
}

/// Measures a one-shot `f` (see [`one_shot`]) on `data` as `name`.
pub fn bench_one_shot<M: Measurement>(
    group: &mut BenchmarkGroup<'_, M>,
    name: &str,
    data: &[u8],
    mut f: impl FnMut(&[u8]),
) {
    group.bench_with_input(BenchmarkId::new(name, data.len()), data, |b, d| {
        b.iter(|| f(black_box(d)))
    });
}

/// For each of `sizes`: the group's throughput set to it, then `f` on its [`input`].
pub fn each_input<M: Measurement>(
    group: &mut BenchmarkGroup<'_, M>,
    sizes: &[usize],
    mut f: impl FnMut(&mut BenchmarkGroup<'_, M>, &[u8]),
) {
    for &len in sizes {
        group.throughput(Throughput::Bytes(len as u64));
        f(group, &input(len));
    }
}

/// A table of peers, one row a line: `Name: columns...;` is `(Algorithm::Name, columns...)`.
#[allow(unused_macros)] // each bench uses its own subset
macro_rules! peers {
    ($($alg:ident: $($column:expr),+;)+) => {
        [$((parhash::Algorithm::$alg, $($column),+)),+]
    };
}
#[allow(unused_imports)] // each bench uses its own subset
pub(crate) use peers;

/// `criterion_group!` for `$targets` measured in [`ThreadCpuTime`].
#[allow(unused_macros)]
macro_rules! cpu_time_group {
    ($name:ident: $($targets:path),+) => {
        criterion::criterion_group! {
            name = $name;
            config = criterion::Criterion::default()
                .with_measurement(common::ThreadCpuTime(criterion::measurement::WallTime));
            targets = $($targets),+
        }
    };
}
#[allow(unused_imports)]
pub(crate) use cpu_time_group;
