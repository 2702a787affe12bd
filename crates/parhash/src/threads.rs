//! The one thread policy: [`Threads`] says how many threads a piece of work may use (the only
//! place where "all cores" becomes a number), and one process-wide pool of one thread per core
//! runs every engine's jobs, while the calling thread waits (`with_helpers` says why).
//!
//! Everything that splits work over threads goes through here: `-j` in the CLI, the
//! `threads` of [`crate::Hasher`]'s builder, the batch engine, PARSHA-256's subtrees and
//! SANDstorm's level-2 superblocks.
//!
//! Why not a thread per call: starting one costs ~55 us on a VM, more than a small batch
//! takes. Why not rayon's global pool as is: its `cores` workers plus the calling thread
//! oversubscribe the cores, and a worker asleep on an idle vCPU can take milliseconds to wake,
//! so equal shares handed out up front wait for the latest one. Here every thread takes the
//! next job not yet taken, so a helper that wakes late only takes what is left. Used by the
//! batch engine (groups of messages), PARSHA-256 (subtrees, a slice of rounds at a time:
//! `for_each_mut_in_steps`) and SANDstorm's tree (level-2 superblocks).

use std::fmt;
use std::num::NonZeroUsize;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// How many threads one piece of work may use: all cores (the default) or at most `n`.
///
/// `0` means all cores wherever a count is given as a number (`-j 0`, `Threads::from(0)`), as
/// in the CLI; [`Threads::count`] is the one place that turns it into a number. Engines may use
/// fewer than the count when the work is small (each says its minimum work per thread); the
/// digest never depends on it.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Threads(Option<NonZeroUsize>);

impl Threads {
    /// All the cores this process may use.
    pub const ALL: Threads = Threads(None);
    /// The calling thread only.
    pub const ONE: Threads = Threads(Some(NonZeroUsize::MIN));

    /// At most `n` threads; `0` = all cores.
    pub const fn new(n: usize) -> Threads {
        Threads(NonZeroUsize::new(n))
    }

    /// The number of threads: `n`, or the cores available to this process for [`Threads::ALL`].
    pub fn count(self) -> usize {
        match self.0 {
            Some(n) => n.get(),
            None => available(),
        }
    }

    /// At most `n` of these threads, and at least one: what work that can keep only `n`
    /// threads busy (`n` jobs, `n` files) may use. Work sizes itself with this, not with a
    /// number taken out of a `Threads` and put back.
    pub fn at_most(self, n: usize) -> Threads {
        Threads::new(self.count().min(n).max(1))
    }

    /// Whether this is [`Threads::ALL`].
    pub fn is_all(self) -> bool {
        self.0.is_none()
    }

    /// Whether work may use more than one thread (not so for [`Threads::ALL`] on one core).
    pub fn more_than_one(self) -> bool {
        self.count() > 1
    }
}

impl From<usize> for Threads {
    /// `0` = all cores.
    fn from(n: usize) -> Threads {
        Threads::new(n)
    }
}

impl fmt::Debug for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => write!(f, "Threads({n})"),
            None => f.write_str("Threads::ALL"),
        }
    }
}

impl fmt::Display for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(n) => write!(f, "{n}"),
            None => write!(f, "all ({})", available()),
        }
    }
}

/// Number of threads this process may run at once (its CPU quota), at least 1.
///
/// Asked once per process: `available_parallelism` reads the cgroup quota files on Linux, about
/// 35 us a call, which every "all cores" hash of a short message paid before.
pub fn available() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// The workers, one per core (`None` if the OS refused to start threads: jobs then run on the
/// caller).
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(available())
            .thread_name(|i| format!("parhash-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `main` on one of `threads` threads while the others run `helper`, and returns `main`'s
/// result once all have finished. Helpers may start late, or not at all (no pool), so `main` must be able to do
/// all the work alone (taking jobs from the same counter as they do) and wait only for work a
/// helper has taken. A panic in a helper reaches the caller.
///
/// Called from outside the pool, every run, `main`'s too, goes to the pool's threads and the
/// caller sleeps until they are done (the shape of rayon's `install`). Why not run `main` on
/// the caller: a helper woken while the caller keeps its core busy may be placed on that same
/// core (this VM's scheduler packs a process's threads onto few vCPUs; a new process's load
/// looks small for its first tens of milliseconds), and the two then share it while the other
/// core idles (BENCHMARKS.md, the caller's share handed to the pool). Called from one of the
/// pool's threads (work nested in other work), that thread runs `main` itself.
pub(crate) fn with_helpers<R: Send>(
    threads: Threads,
    helper: impl Fn() + Sync,
    main: impl FnOnce() -> R + Send,
) -> R {
    with_helper_count(threads.count() - 1, helper, main)
}

/// [`with_helpers`] with `helpers` threads besides `main`'s, a count the pool's own arithmetic
/// gives ([`run_workers`]).
fn with_helper_count<R: Send>(
    helpers: usize,
    helper: impl Fn() + Sync,
    main: impl FnOnce() -> R + Send,
) -> R {
    // Work for one thread starts no pool (a process hashing one small file needs none).
    if helpers == 0 {
        return main();
    }
    let Some(pool) = pool() else {
        return main();
    };
    if pool.current_thread_index().is_some() {
        return pool.in_place_scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(|_| helper());
            }
            main()
        });
    }
    let mut result = None;
    pool.in_place_scope(|scope| {
        scope.spawn(|_| result = Some(main()));
        for _ in 0..helpers {
            scope.spawn(|_| helper());
        }
    });
    result.expect("the scope ends after every job it spawned")
}

/// Runs `worker` on up to `threads.count()` threads — the pool's (one per core) and, beyond
/// them, scoped threads of their own — and returns every
/// run's result, in no particular order. For workers that keep state across the items they
/// take (a lane kernel's job manager, a list of results) and share the items through a counter
/// of their own: helpers may start late or not at all, so the caller's run must be able to
/// take every item alone. More threads than cores only help workers that wait for I/O (reading
/// many files); a panic in any run reaches the caller.
pub fn run_workers<R: Send>(threads: Threads, worker: impl Fn() -> R + Sync) -> Vec<R> {
    let others = threads.count().max(1) - 1;
    if others == 0 {
        return vec![worker()];
    }
    let pool_size = pool().map_or(0, |p| p.current_num_threads());
    // The pool runs the caller's share too (`with_helpers`), so it lends one helper fewer.
    let helpers = others.min(pool_size.saturating_sub(1));
    let extra = others - helpers;
    let results = Mutex::new(Vec::with_capacity(others + 1));
    let run = || {
        let result = worker();
        results
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(result);
    };
    std::thread::scope(|scope| {
        for _ in 0..extra {
            scope.spawn(run);
        }
        with_helper_count(helpers, run, run);
    });
    results.into_inner().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `job(i)` for every `i` in `0..jobs` on at most `threads` threads (the calling one
/// included), each taking the next job not yet taken; returns when all are done. A panic in a
/// job is passed on to the caller.
fn for_each_job(jobs: usize, threads: Threads, job: impl Fn(usize) + Sync) {
    let next = AtomicUsize::new(0);
    let take_jobs = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= jobs {
            break;
        }
        job(i);
    };
    // `take_jobs` only borrows, so it is `Copy`: the helpers and the caller run the same loop.
    with_helpers(threads.at_most(jobs), take_jobs, take_jobs);
}

/// `f` on every item, on at most `threads` threads (the calling one included), the items
/// taken in turn ([`for_each_job`]).
pub(crate) fn for_each_mut<T: Send>(items: &mut [T], threads: Threads, f: impl Fn(&mut T) + Sync) {
    // Each item is taken exactly once, so its lock is never contended: it only hands out the
    // `&mut` safely.
    let items: Vec<Mutex<&mut T>> = items.iter_mut().map(Mutex::new).collect();
    for_each_job(items.len(), threads, |i| {
        f(&mut items[i].lock().unwrap_or_else(PoisonError::into_inner))
    });
}

/// `f(item, step)` for every item and every step `0..steps`, on at most `threads` threads (the
/// calling one included), each item's steps in order. A thread takes, of the items no other
/// thread is running, one with the fewest steps done, runs its next step and chooses again;
/// it stops when every item is done or being run. No thread ever waits for another: the
/// items stay within a step or two of each other, so the one a thread leaves to the others
/// at the end has about a step left.
///
/// Why: with one job per item, the threads wait for the slowest job at the end of every call
/// (half a job on average); 16 jobs for 2 threads lost ~6 % there (PARSHA-256 measured 94 %
/// busy). Cutting every item's work in steps makes that wait small. A first form handed the
/// steps out in a fixed order (every item's step 0, then every item's step 1, ...) and made a
/// thread spin and yield until the step before its own had finished: on a shared machine,
/// where a thread is sometimes descheduled in the middle of a step, the other spent ~10 % of
/// its time in `sched_yield` (BENCHMARKS.md, "Performance at the roof").
pub(crate) fn for_each_mut_in_steps<T: Send>(
    items: &mut [T],
    steps: usize,
    threads: Threads,
    f: impl Fn(&mut T, usize) + Sync,
) {
    // Per item: how many of its steps are done (read without the lock to choose), and the
    // item, locked while one of its steps runs (a step that panics poisons it: nobody takes
    // the item again and the panic reaches the caller).
    let slots: Vec<(AtomicUsize, Mutex<&mut T>)> = items
        .iter_mut()
        .map(|item| (AtomicUsize::new(0), Mutex::new(item)))
        .collect();
    let run_step = |(done, item): &(AtomicUsize, Mutex<&mut T>)| -> bool {
        let Ok(mut item) = item.try_lock() else {
            return false;
        };
        let step = done.load(Ordering::Acquire);
        if step >= steps {
            return false;
        }
        f(&mut item, step);
        done.store(step + 1, Ordering::Release);
        true
    };
    let take_steps = || loop {
        let fewest = slots
            .iter()
            .map(|(done, _)| done.load(Ordering::Acquire))
            .filter(|&d| d < steps)
            .min();
        let Some(fewest) = fewest else { break };
        // An item with the fewest steps done, else any other one free (all at `fewest` may
        // be running elsewhere).
        let ran = slots
            .iter()
            .filter(|(done, _)| done.load(Ordering::Acquire) == fewest)
            .any(run_step)
            || slots.iter().any(run_step);
        if !ran {
            break;
        }
    };
    with_helpers(threads.at_most(slots.len()), take_steps, take_steps);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_job_runs_once_whatever_the_thread_count() {
        for threads in [0, 1, 2, 3, 8] {
            for jobs in [0, 1, 2, 7, 100] {
                let runs: Vec<Mutex<u32>> = (0..jobs).map(|_| Mutex::new(0)).collect();
                for_each_job(jobs, Threads::new(threads), |i| {
                    *runs[i].lock().unwrap() += 1
                });
                assert!(
                    runs.iter().all(|r| *r.lock().unwrap() == 1),
                    "{threads} {jobs}"
                );
            }
        }
    }

    #[test]
    fn every_step_runs_once_and_in_order_whatever_the_thread_count() {
        for threads in [1, 2, 3, 8] {
            for (items, steps) in [(0, 3), (1, 1), (1, 40), (5, 7), (16, 30)] {
                let mut logs: Vec<Vec<usize>> = vec![Vec::new(); items];
                for_each_mut_in_steps(&mut logs, steps, Threads::new(threads), |log, step| {
                    // Some steps take longer, so threads overtake each other.
                    if step % 3 == 0 {
                        std::thread::sleep(std::time::Duration::from_micros(50));
                    }
                    log.push(step);
                });
                let expected: Vec<usize> = (0..steps).collect();
                assert!(
                    logs.iter().all(|log| *log == expected),
                    "{threads} threads, {items} items, {steps} steps: {logs:?}"
                );
            }
        }
    }

    #[test]
    fn a_panicking_step_reaches_the_caller_without_a_hang() {
        for threads in [1, 2, 3] {
            let mut items = vec![0u32; 4];
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                for_each_mut_in_steps(&mut items, 5, Threads::new(threads), |_, step| {
                    assert_ne!(step, 2, "step 2 fails")
                });
            }));
            assert!(caught.is_err(), "{threads} threads");
        }
        // One item: while its slow step 0 runs and panics, another thread has taken step 1
        // and waits for it. Without the poisoning check that thread waits forever (a hang).
        let mut item = [0u32];
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for_each_mut_in_steps(&mut item, 4, Threads::new(2), |_, step| {
                if step == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(30));
                    panic!("step 0 fails");
                }
            });
        }));
        assert!(caught.is_err());
    }

    #[test]
    fn workers_share_the_items_and_every_result_comes_back() {
        for threads in [1, 2, 3, 16] {
            let next = AtomicUsize::new(0);
            let results = run_workers(Threads::new(threads), || {
                let mut taken = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= 1000 {
                        break taken;
                    }
                    taken.push(i);
                }
            });
            assert!(results.len() <= threads.max(1) && !results.is_empty());
            let mut all: Vec<usize> = results.into_iter().flatten().collect();
            all.sort_unstable();
            assert_eq!(all, (0..1000).collect::<Vec<_>>(), "{threads} threads");
        }
        let caught = std::panic::catch_unwind(|| {
            run_workers(Threads::new(3), || panic!("a worker fails"));
        });
        assert!(caught.is_err());
    }

    #[test]
    fn work_from_outside_goes_to_the_pool_and_nested_work_stays_on_its_thread() {
        let on_pool = |name: Option<&str>| name.is_some_and(|n| n.starts_with("parhash-"));
        // From outside the pool, `main` runs on a pool thread (the caller only waits).
        let (outer, nested, nested_main) = with_helpers(
            Threads::new(2),
            || (),
            || {
                let outer = std::thread::current().id();
                let name = std::thread::current().name().map(str::to_owned);
                // From a pool thread, that thread runs `main` itself.
                let nested_main =
                    with_helpers(Threads::new(2), || (), || std::thread::current().id());
                (outer, name, nested_main)
            },
        );
        assert_ne!(outer, std::thread::current().id());
        assert!(on_pool(nested.as_deref()), "main ran on {nested:?}");
        assert_eq!(outer, nested_main);
    }

    #[test]
    fn more_workers_than_cores_all_run_on_threads_of_their_own() {
        let threads = available() + 3;
        let ids = run_workers(Threads::new(threads), || {
            // Long enough that no thread could finish one run and take another.
            std::thread::sleep(std::time::Duration::from_millis(50));
            std::thread::current().id()
        });
        assert_eq!(ids.len(), threads);
        let distinct: std::collections::HashSet<_> = ids.into_iter().collect();
        assert_eq!(distinct.len(), threads);
    }

    #[test]
    fn zero_and_all_mean_the_available_cores() {
        assert!(available() >= 1);
        assert_eq!(Threads::from(0), Threads::ALL);
        assert_eq!(Threads::ALL.count(), available());
        assert_eq!(Threads::default(), Threads::ALL);
        assert_eq!(Threads::new(3).count(), 3);
        assert_eq!(Threads::ONE.count(), 1);
        assert_eq!(Threads::new(8).at_most(3), Threads::new(3));
        assert_eq!(Threads::new(2).at_most(3), Threads::new(2));
        assert_eq!(Threads::ALL.at_most(0), Threads::ONE);
        assert_eq!(Threads::ALL.at_most(usize::MAX).count(), available());
        assert!(!Threads::ONE.is_all());
        assert!(Threads::new(2).more_than_one() && !Threads::ONE.more_than_one());
        assert_eq!(Threads::ALL.more_than_one(), available() > 1);
    }

    #[test]
    fn a_panicking_job_reaches_the_caller() {
        let caught = std::panic::catch_unwind(|| {
            for_each_job(4, Threads::new(2), |i| assert_ne!(i, 3, "job 3 fails"));
        });
        assert!(caught.is_err());
    }
}
