//! End to end: a whole file in the page cache through parhash's file engine (what `parhash
//! sum FILE` and Python's `hash_file` run), against the same bytes hashed from memory in one
//! call, the peers' own tools on the same file (`b3sum`, `sha256sum`, and `dd`, the time to
//! read it), and the page-cache roof. BENCHMARKS.md's end-to-end figures, from the lab.
//!
//! The file engine's rows are in-process (no process start); the peers' are commands, process
//! start included (a few milliseconds, said in the report).

#![forbid(unsafe_code)]

use std::process::{Command, Stdio};
use std::time::Instant;

use parhash::file::FileHasher;
use parhash::{Algorithm, Hasher, Threads};

use super::{missing, Preset};
use crate::lab::{machine, LabOptions};
use crate::report::{Report, Section, Table};
use crate::roofs::{self, RoofPlan};
use crate::source::ScratchFile;
use crate::timer::process_cpu_seconds;
use crate::units::{format_rate, format_size, sig3};

/// See the module docs.
pub const PRESET: Preset = Preset {
    name: "end-to-end",
    study: "",
    about: "whole cached files (as written, and read back) through the file engine vs in \
            memory, b3sum/sha256sum/dd, -j1 vs all threads, against the page-cache roof",
    run,
};

/// The algorithms the issue names (the three that split one message over threads) and
/// SHA-256, one stream, as the reference.
const ALGORITHMS: &[&str] = &["blake3", "sandstorm256", "parsha256", "sha256"];

/// A peer's command for an algorithm (it takes the file as its one argument).
fn peer_for(alg: &str) -> Option<&'static str> {
    match alg {
        "blake3" => Some("b3sum"),
        "sha256" | "parsha256" => Some("sha256sum"),
        _ => None,
    }
}

/// The median of `runs` timings of `f` (after one run to warm the page cache and the code).
fn median_time(runs: usize, mut f: impl FnMut() -> std::io::Result<()>) -> std::io::Result<f64> {
    f()?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        f()?;
        times.push(started.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

/// What [`interleaved`] measured of each form, in the order of the forms.
pub(crate) struct Interleaved {
    /// Median wall time (s).
    pub(crate) times: Vec<f64>,
    /// Median over rounds of the form's time over the first form's in the same round.
    pub(crate) ratios: Vec<f64>,
    /// Median over rounds of the process's CPU time over the wall time while the form ran:
    /// the cores it kept busy (helper threads included). `None` where CPU time is not readable.
    pub(crate) cpus: Vec<Option<f64>>,
}

/// The forms of one piece of work timed in turn, round by round: `runs` rounds after one
/// warm-up round, each form once per round. Ratios between forms are the medians of each
/// round's ratio: on a shared host the forms' separate medians drift with the load between
/// their batches (the file/memory ratio of one file moved 0.86-1.06 between sittings), while
/// neighbours in time share it.
pub(crate) fn interleaved(
    runs: usize,
    forms: &mut [&mut dyn FnMut() -> std::io::Result<()>],
) -> std::io::Result<Interleaved> {
    for form in forms.iter_mut() {
        form()?;
    }
    let mut times = vec![Vec::with_capacity(runs); forms.len()];
    let mut cpus = vec![Vec::with_capacity(runs); forms.len()];
    for _ in 0..runs.max(1) {
        for ((form, times), cpus) in forms.iter_mut().zip(&mut times).zip(&mut cpus) {
            let cpu_before = process_cpu_seconds();
            let started = Instant::now();
            form()?;
            let wall = started.elapsed().as_secs_f64();
            times.push(wall);
            if let (Some(before), Some(after)) = (cpu_before, process_cpu_seconds()) {
                cpus.push((after - before) / wall);
            }
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let ratios = times
        .iter()
        .map(|t| {
            median(
                t.iter()
                    .zip(&times[0])
                    .map(|(t, first)| t / first)
                    .collect(),
            )
        })
        .collect();
    Ok(Interleaved {
        times: times.into_iter().map(median).collect(),
        ratios,
        cpus: cpus
            .into_iter()
            .map(|c| (!c.is_empty()).then(|| median(c)))
            .collect(),
    })
}

/// What `threads` cores gain over a run that kept `cpus` cores busy on one hashing thread if
/// they share its CPU time evenly: `threads / cpus` (capped at `threads`). Below `threads`
/// where the one-thread run already keeps more than one core busy: the file engine's
/// read-ahead thread maps pieces in on another core (on a file its writer left in small folios,
/// a sixth of the work). A form on more threads that does less work can pass it.
fn speed_up_limit(threads: usize, cpus: f64) -> f64 {
    let threads = threads as f64;
    if cpus > 0.0 {
        (threads / cpus).min(threads)
    } else {
        threads
    }
}

/// Runs `program args..` with its output discarded: `false` if it is not installed.
fn run_command(program: &str, args: &[String]) -> std::io::Result<bool> {
    run_quietly(Command::new(program).args(args))
}

/// Runs `command` with its output discarded: `false` if its program is not installed, an
/// error naming it, with the last line it wrote on standard error, if it fails.
pub(crate) fn run_quietly(command: &mut Command) -> std::io::Result<bool> {
    match command
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
    {
        Ok(out) if out.status.success() => Ok(true),
        Ok(out) => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let said = stderr.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("");
            Err(std::io::Error::other(format!(
                "{} failed: {}{}{said}",
                command.get_program().to_string_lossy(),
                out.status,
                if said.is_empty() { "" } else { ": " }
            )))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// The median time of a command, or `None` when it is not installed.
fn command_time(runs: usize, program: &str, args: &[String]) -> std::io::Result<Option<f64>> {
    if !run_command(program, args)? {
        return Ok(None);
    }
    median_time(runs, || run_command(program, args).map(|_| ())).map(Some)
}

/// How a file came to be in the page cache: that decides the size of its cached folios, and a
/// map's cost. Its writer leaves it in small folios (4 KiB pages here: mapping in and dropping
/// 64 MiB costs ~11 ms of CPU); read back after eviction, the kernel's read-ahead caches it in
/// folios of up to 2 MiB where the file system has them (ext4 on Linux 6.x), which a map takes
/// one entry each (~0.2 ms per 64 MiB). Both are what users meet: a file just written or
/// downloaded, and one read before.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CachedBy {
    Writer,
    Read,
}

impl CachedBy {
    fn name(self) -> &'static str {
        match self {
            CachedBy::Writer => "its writer",
            CachedBy::Read => "a read",
        }
    }
}

/// One file's rows, cached as `cached` says: `dd`'s read time, then every algorithm's file
/// engine on all threads and one, in memory, and its peer.
#[allow(clippy::too_many_arguments)] // the report's two tables and one file's settings
fn rows(
    table: &mut Table,
    limits: &mut Table,
    file: &ScratchFile,
    cached: CachedBy,
    algorithms: &[Algorithm],
    runs: usize,
    threads: usize,
    roof_time: f64,
    data: Option<&[u8]>,
) -> std::io::Result<()> {
    let (path, len) = (file.path(), file.len());
    let dd_args = [
        format!("if={}", path.display()),
        "of=/dev/null".into(),
        "bs=4M".into(),
        "status=none".into(),
    ];
    let dd_time = command_time(runs, "dd", &dd_args)?;
    let map_time = map_time(file, runs, threads);
    limits.push(vec![
        format_size(len),
        cached.name().into(),
        dd_time.map(ms).unwrap_or_else(|| "dd not found".into()),
        ms(roof_time),
        map_time.map(ms).unwrap_or_else(|| "-".into()),
    ]);
    for &alg in algorithms {
        // All threads, one thread and memory timed in turn, round by round, so that
        // their ratios compare neighbours in time.
        let all_threads = FileHasher::new(Hasher::builder(alg).threads(Threads::ALL));
        let one_thread = FileHasher::new(Hasher::builder(alg).threads(Threads::ONE));
        let mut file_all = || all_threads.hash_path(path).map(|_| ());
        let mut file_one = || one_thread.hash_path(path).map(|_| ());
        let in_memory = |data: &[u8]| {
            let mut hasher = Hasher::builder(alg)
                .threads(Threads::ALL)
                .expected_len(data.len() as u64)
                .build()
                .map_err(std::io::Error::other)?;
            hasher.update(data);
            hasher.finalize();
            Ok(())
        };
        let measured = match data {
            Some(data) => interleaved(
                runs,
                &mut [&mut file_all, &mut file_one, &mut || in_memory(data)],
            )?,
            None => interleaved(runs, &mut [&mut file_all, &mut file_one])?,
        };
        let (all, one) = (measured.times[0], measured.times[1]);
        let speed_up = measured.ratios[1];
        let one_thread_cpus = measured.cpus[1];
        let memory = measured.times.get(2).map(|&m| (m, measured.ratios[2]));
        if let Some(data) = data {
            // What was timed must be the same digest both ways.
            let from_file = FileHasher::new(Hasher::builder(alg)).hash_path(path)?;
            if from_file != parhash::hash(alg, data) {
                return Err(std::io::Error::other(format!(
                    "{alg}: the file engine's digest of {} differs from the digest of the \
                     same bytes in memory",
                    path.display()
                )));
            }
        }
        let peer = match peer_for(alg.name()) {
            Some(program) => command_time(runs, program, &[path.display().to_string()])?
                .map(|t| (program, t))
                .ok_or(program),
            None => Err("-"),
        };
        table.push(vec![
            alg.name().to_string(),
            format_size(len),
            cached.name().into(),
            ms(all),
            ms(one),
            sig3(speed_up),
            one_thread_cpus.map(sig3).unwrap_or_else(|| "-".into()),
            one_thread_cpus
                .map(|cpus| sig3(speed_up_limit(threads, cpus)))
                .unwrap_or_else(|| "-".into()),
            memory
                .map(|(m, _)| ms(m))
                .unwrap_or_else(|| "too large here".into()),
            memory
                .map(|(_, ratio)| sig3(ratio))
                .unwrap_or_else(|| "-".into()),
            match (memory, map_time) {
                (Some((m, _)), Some(map)) if Hasher::splits_over_threads(alg) => {
                    sig3(m / (m + map))
                }
                _ => "-".into(),
            },
            format_rate(len as f64 / all),
            ms(roof_time),
            match peer {
                Ok((program, t)) => format!("{program} {}", ms(t)),
                Err("-") => "-".into(),
                Err(program) => format!("{program} not installed"),
            },
            match peer {
                Ok((_, t)) => sig3(t / all),
                Err(_) => "-".into(),
            },
        ]);
    }
    Ok(())
}

/// The median wall time of the kernel's part of a mapped read of `file` on `threads` threads
/// ([`crate::source::map_in_and_drop`]), after one warm-up; `None` where maps cannot be timed
/// (not Linux, a map refused).
fn map_time(file: &ScratchFile, runs: usize, threads: usize) -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        let opened = file.open().ok()?;
        let mut times = (0..=runs.max(1))
            .map(|_| crate::source::map_in_and_drop(&opened, file.len(), threads))
            .skip(1)
            .collect::<std::io::Result<Vec<f64>>>()
            .ok()?;
        times.sort_by(f64::total_cmp);
        Some(times[times.len() / 2])
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, runs, threads);
        None
    }
}

fn ms(seconds: f64) -> String {
    sig3(seconds * 1e3)
}

fn run(opts: &LabOptions) -> std::io::Result<Report> {
    let mut report = Report::new(
        "End to end: whole files through the file engine, against memory, peers and the roofs",
        &opts.command,
        machine(opts),
    );
    let (algorithms, note) = missing(ALGORITHMS);
    report.notes.extend(note);
    let threads = report.machine.threads.max(1);
    let scratch = opts.scratch();
    let (sizes, runs, plan): (Vec<usize>, usize, RoofPlan) = if opts.tiny {
        (vec![2 << 20], 1, RoofPlan::tiny(threads))
    } else {
        (vec![64 << 20, 1 << 30], 5, RoofPlan::normal(threads))
    };
    let roofs = roofs::measure(&plan, &scratch)?;
    let page_cache = roofs.page_cache.bandwidth;

    let mut table = Table::new(&[
        "algorithm",
        "file",
        "cached by",
        "file engine, all threads (ms)",
        "file engine, 1 thread (ms)",
        "threads speed-up",
        "1 thread: cores busy",
        "speed-up limit",
        "in memory, one call (ms)",
        "memory / file",
        "memory / file limit",
        "rate",
        "page-cache roof (ms)",
        "peer (ms)",
        "peer / parhash",
    ]);
    let mut limits = Table::new(&[
        "file",
        "cached by",
        "dd bs=4M (ms)",
        "page-cache roof (ms)",
        "map in + drop, all threads (ms)",
    ]);
    for &len in &sizes {
        let file = ScratchFile::create(&scratch, &format!("end-to-end-{len}.bin"), len)?;
        let path = file.path();
        let roof_time = len as f64 / page_cache.max(1.0);
        // The bytes for the one-call column, read once for both cache states; held in memory,
        // so only where a quarter of memory allows.
        let data = (len <= opts.data_limits.max_bytes)
            .then(|| std::fs::read(path))
            .transpose()?;
        for cached in [CachedBy::Writer, CachedBy::Read] {
            if cached == CachedBy::Read {
                // Cached as a user's earlier read leaves it: dropped, then read in order
                // (the kernel's read-ahead then caches it in large folios where it can).
                if let Err(e) = file.drop_cache() {
                    // Where pages cannot be dropped (not Linux), the file as written is all
                    // there is to measure.
                    report.notes.push(format!(
                        "The {} file was measured only as its writer left it in the page \
                         cache: its pages could not be dropped to read it back ({e}).",
                        format_size(len)
                    ));
                    continue;
                }
                std::io::copy(&mut file.open()?, &mut std::io::sink())?;
            }
            rows(
                &mut table,
                &mut limits,
                &file,
                cached,
                &algorithms,
                runs,
                threads,
                roof_time,
                data.as_deref(),
            )?;
        }
        let _ = std::fs::remove_file(path);
    }
    report.roofs = Some(roofs);
    report.sections.push(Section {
        title: "Whole files in the page cache".into(),
        paragraphs: vec![format!(
            "Each file is measured twice (`cached by`): as its writer left it in the page \
                 cache, then dropped from the cache and read back once, as a user's earlier \
                 read leaves it. The two differ in the size of the cached folios: a writer \
                 leaves small ones (4 KiB pages: a map of 64 MiB costs ~11 ms of CPU to fill \
                 and drop), a read back large ones where the kernel and file system have them \
                 (up to 2 MiB on ext4 with Linux 6.x: ~0.2 ms), so the one-thread rows and the \
                 mapped forms gain most from the second. Every figure is \
                 the median of {runs} runs after one warm-up. The file engine on all threads, \
                 on one, and the one call in memory are timed in turn, round by round, and \
                 their ratios are the medians of each round's ratio (neighbours in time share \
                 the host's load). The file engine \
                 (`FileHasher::hash_path`, what `parhash sum FILE` and Python's `hash_file` run, \
                 reads chosen by `--read auto`) runs in this process; the peers are commands, so \
                 their times include a process start (a few ms). `memory / file`: the library's \
                 one-call time on the same bytes already in memory over the file engine's \
                 (1.0: the file costs nothing beyond the hashing; the goal is at least 0.9 for \
                 sandstorm256 and parsha256), and `memory / file limit` what it can be for the \
                 forms that hash a map on all threads: the one call over the one call plus the \
                 kernel's part of the map (`map in + drop` below). `threads speed-up`: 1 thread over all {threads} \
                 (the goal is 1.7x on two cores for the three tree modes); `1 thread: cores \
                 busy` is the process's CPU time over the wall time of the one-thread run \
                 (above 1: the read-ahead thread maps pieces in on another core while the \
                 hashing thread hashes), and `speed-up limit` the speed-up of {threads} \
                 cores sharing that CPU time evenly ({threads} / cores busy, at most \
                 {threads}): a speed-up near it has no more to gain from the threads, unless \
                 the threads' form does less work (blake3's threads fault their pages in \
                 themselves, which can cost less than the read-ahead thread's mapping). \
                 `peer / parhash` \
                 above 1: parhash is faster (the goal is 1.5x of b3sum for blake3). The \
                 page-cache roof is the time to copy the file out of the page cache at the \
                 measured rate: a floor for any reader that copies."
        )],
        table: Some(table),
    });
    report.sections.push(Section {
        title: "What reading alone costs".into(),
        paragraphs: vec![
            "`dd bs=4M of=/dev/null` of the same cached file (a command: process start \
             included), beside the page-cache roof. `map in + drop`: the kernel's part of \
             hashing the file from a map, no byte read: the file mapped, each 4 MiB share \
             mapped in (`MADV_POPULATE_READ`) and dropped (`MADV_DONTNEED`) by all the \
             threads taking shares in turn, as the file engine's threads do around their \
             hashing, and unmapped (median of the runs). It is what a file's folios cost: \
             small ones (a writer's) one page-table entry and one reference each 4 KiB."
                .into(),
        ],
        table: Some(limits),
    });
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interleaved_forms_run_in_turn_and_ratios_are_per_round() {
        use std::cell::RefCell;
        let order = RefCell::new(Vec::new());
        let mut a = || {
            order.borrow_mut().push('a');
            std::thread::sleep(std::time::Duration::from_millis(5));
            Ok(())
        };
        let mut b = || {
            order.borrow_mut().push('b');
            std::thread::sleep(std::time::Duration::from_millis(30));
            Ok(())
        };
        let measured = interleaved(3, &mut [&mut a, &mut b]).unwrap();
        let (times, ratios) = (&measured.times, &measured.ratios);
        // One warm-up round, then three rounds, each form once per round, in turn.
        assert_eq!(order.borrow().iter().collect::<String>(), "abababab");
        assert_eq!(ratios[0], 1.0);
        // Sleeps are at least as long as asked: b's ratio to a is about 6 (loose: no timing
        // claim, only that the ratio is b over a within a round and not a over b; a loaded
        // machine wakes both sleepers late by a few ms).
        assert!(ratios[1] > 1.2, "{ratios:?}");
        assert!(times[1] > times[0], "{times:?}");
        let failing = &mut || Err(std::io::Error::other("no"));
        assert!(interleaved(1, &mut [&mut a, failing]).is_err());
    }

    #[test]
    fn cores_busy_tell_a_sleeping_form_from_a_working_one_and_bound_the_speed_up() {
        let mut sleeping = || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            Ok(())
        };
        // Work on this thread and on a helper at once: the process keeps two cores busy where
        // it has them (one on a one-core machine). A fixed amount of work (some 20 ms), not a
        // time: a spinner that stops at a time does no work while a loaded machine preempts it.
        let spin = || {
            let mut x = 0u64;
            for _ in 0..16_000_000u32 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        };
        let mut working = || {
            std::thread::scope(|scope| {
                scope.spawn(spin);
                spin();
            });
            Ok(())
        };
        let measured = interleaved(3, &mut [&mut sleeping, &mut working]).unwrap();
        if process_cpu_seconds().is_none() {
            assert_eq!(measured.cpus, vec![None, None]);
            return;
        }
        let (asleep, busy) = (measured.cpus[0].unwrap(), measured.cpus[1].unwrap());
        // Asleep near 0 and working near 2 on an idle machine; the process's CPU time also
        // counts the tests running beside this one (both forms alike), so only the difference
        // is asserted, loosely (a shared host preempts the spinners).
        assert!(asleep >= 0.0 && busy > asleep + 0.4, "{asleep} {busy}");
        let limits = [(2, 1.0), (2, 0.5), (2, 1.25), (4, 0.0)].map(|(n, x)| speed_up_limit(n, x));
        assert_eq!(limits, [2.0, 2.0, 1.6, 4.0]);
    }

    #[test]
    fn a_missing_command_is_none_and_a_failing_one_an_error() {
        assert_eq!(
            command_time(1, "parhash-no-such-program", &[]).unwrap(),
            None
        );
        assert!(command_time(1, "false", &[]).is_err());
        assert!(command_time(1, "true", &[]).unwrap().is_some());
        // A failure says why, in the command's own last words.
        let args = ["-c", "echo first >&2; echo 'the last words' >&2; exit 3"].map(String::from);
        let err = command_time(1, "sh", &args).unwrap_err().to_string();
        assert!(err.starts_with("sh failed: exit status: 3"), "{err}");
        assert!(err.ends_with(": the last words"), "{err}");
    }
}
