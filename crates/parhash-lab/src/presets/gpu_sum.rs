//! `parhash sum --device gpu` against `parhash sum` on the CPU, run as the commands a user runs:
//! process start, the GPU's opening (its context, the PTX cache's load) and the files' reads
//! are in both figures, as they are in what `--device auto` chooses between. PARSHA-256 by the
//! bytes of one file, the batched algorithms by the number of small files on one command line;
//! the size from which the GPU wins at every larger size is recorded for `--device auto`
//! ([`parhash_cuda::wins`]).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::end_to_end::{interleaved, run_quietly};
use crate::lab::LabOptions;
use crate::report::{Report, Section, Table};
use crate::source::ScratchFile;
use crate::units::sig3;
use parhash::Algorithm;
use parhash_cuda::wins::{self, Scale, Win, Wins, FILES_OF_BYTES};

/// The batched algorithms `sum --device gpu` takes, each measured, and those recorded with a
/// measured one's crossover: keccak256 is sha3-256 with another domain byte, on the GPU (one
/// kernel) and on the CPU (one permutation, one rate), so a device's minutes go elsewhere.
const BATCHED: [(Algorithm, &[Algorithm]); 2] = [
    (Algorithm::Sha256, &[]),
    (Algorithm::Sha3_256, &[Algorithm::Keccak256]),
];

/// The `parhash` binary the lab runs in (`parhash bench`), or why there is none.
fn parhash_binary() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("no path to this program: {e}"))?;
    match exe.file_stem().and_then(|s| s.to_str()) {
        Some("parhash") => Ok(exe),
        _ => Err(format!(
            "this program ({}) is not the parhash binary, whose `sum` is timed here",
            exe.display()
        )),
    }
}

/// `count` files of [`FILES_OF_BYTES`] bytes each, named `0`, `1`, ... in `dir` (made
/// afresh), each of other bytes; their names.
fn file_list(dir: &Path, count: usize) -> std::io::Result<Vec<String>> {
    if dir.exists() {
        std::fs::remove_dir_all(dir)?;
    }
    std::fs::create_dir_all(dir)?;
    let mut data = vec![0u8; FILES_OF_BYTES as usize];
    (0..count)
        .map(|i| {
            for (j, byte) in data.iter_mut().enumerate() {
                *byte = (i.wrapping_mul(131) ^ j.wrapping_mul(7)) as u8;
            }
            data[..8].copy_from_slice(&(i as u64).to_le_bytes());
            let name = i.to_string();
            std::fs::write(dir.join(&name), &data)?;
            Ok(name)
        })
        .collect()
}

/// The median times of `parhash sum ARGS --device gpu NAMES` and `parhash sum ARGS NAMES`
/// run in `dir` in turn (`runs` rounds after a warm-up), and the median of each round's CPU
/// time over its GPU time (above 1: the GPU won).
fn time_sums(
    exe: &Path,
    dir: &Path,
    args: &[String],
    names: &[String],
    runs: usize,
) -> std::io::Result<(f64, f64, f64)> {
    let sum = |gpu: bool| {
        let mut command = Command::new(exe);
        command.current_dir(dir).arg("sum").args(args);
        if gpu {
            command.args(["--device", "gpu"]);
        }
        command.args(names);
        command
    };
    let (mut on_gpu, mut on_cpu) = (sum(true), sum(false));
    let ran = |command: &mut Command| {
        run_quietly(command)?
            .then_some(())
            .ok_or_else(|| std::io::Error::other("parhash is gone"))
    };
    let measured = interleaved(
        runs,
        &mut [&mut || ran(&mut on_gpu), &mut || ran(&mut on_cpu)],
    )?;
    Ok((measured.times[0], measured.times[1], measured.ratios[1]))
}

/// Times `sum` on both sides over every size, records the crossovers for `--device auto` and
/// adds the section. A failure (no parhash binary, a command that fails) is said in the
/// section, and nothing is recorded.
pub(super) fn crossover(gpu_name: &str, opts: &LabOptions, report: &mut Report) {
    let (tree_height, iv_bits) = (
        crate::engines::gpu::DEFAULT_TREE_HEIGHT,
        crate::engines::gpu::DEFAULT_IV_BITS,
    );
    let mut t = Table::new(&[
        "algorithm",
        "size",
        "GPU sum s",
        "CPU sum s",
        "CPU/GPU",
        "faster",
    ]);
    let mut paragraphs = vec![format!(
        "`parhash sum --device gpu` against `parhash sum` (all threads), each a process run in \
         turn with the other, medians: process start, the GPU's opening and the reads are in \
         both. PARSHA-256 (T = {tree_height}, l = {iv_bits}) hashes one file of each size; the \
         batched algorithms hash lists of files of {FILES_OF_BYTES} bytes."
    )];
    let measured = parhash_binary()
        .and_then(|exe| measure(&exe, gpu_name, opts, tree_height, iv_bits, &mut t));
    match measured {
        Ok((said, record)) => {
            paragraphs.extend(said);
            paragraphs.push(record);
        }
        Err(e) => paragraphs.push(format!(
            "Not measured to the end, nothing recorded for `--device auto`: {e}."
        )),
    }
    report.sections.push(Section {
        title: "Where `sum --device gpu` wins: the commands, end to end".into(),
        paragraphs,
        table: Some(t),
    });
}

/// The measurements behind [`crossover`], with the `parhash` binary `exe`: one sentence per
/// algorithm, and where the record went.
fn measure(
    exe: &Path,
    gpu_name: &str,
    opts: &LabOptions,
    tree_height: u32,
    iv_bits: u32,
    t: &mut Table,
) -> Result<(Vec<String>, String), String> {
    fn io(what: &'static str) -> impl Fn(std::io::Error) -> String {
        move |e| format!("{what}: {e}")
    }
    let runs = if opts.tiny { 1 } else { 3 };
    let scratch = opts.scratch();
    let mut said = Vec::new();
    let mut record = wins::load()
        .filter(|w| w.device == gpu_name)
        .unwrap_or_else(|| Wins {
            device: gpu_name.to_string(),
            ..Wins::default()
        });
    let mut row = |what: String, size: String, (gpu_s, cpu_s, ratio): (f64, f64, f64)| {
        t.push(vec![
            what,
            size,
            sig3(gpu_s),
            sig3(cpu_s),
            sig3(ratio),
            if ratio > 1.0 { "GPU" } else { "CPU" }.into(),
        ]);
        ratio > 1.0
    };

    let parsha = format!("parsha256 T={tree_height} l={iv_bits}");
    let args: Vec<String> = [
        "-a",
        "parsha256",
        "--tree-height",
        &tree_height.to_string(),
        "--iv-bits",
        &iv_bits.to_string(),
    ]
    .map(String::from)
    .to_vec();
    let mut wins = Crossover::default();
    for e in if opts.tiny { 5..=6 } else { 5..=9 } {
        let file = ScratchFile::create(&scratch, "gpu-sum-file", 10usize.pow(e))
            .map_err(io("the scratch file"))?;
        let name = file.path().display().to_string();
        let times = time_sums(exe, &scratch, &args, &[name], runs).map_err(io("parhash sum"))?;
        wins.measured(e, row(parsha.clone(), format!("1e{e} bytes"), times));
    }
    said.push(wins.say(&format!("`sum` of PARSHA-256 ({parsha})"), "bytes"));
    record.record(Win {
        algorithm: "parsha256".into(),
        scale: Scale::Tree {
            tree_height,
            iv_bits,
        },
        from: wins.from.map(|e| 10u64.pow(e)),
    });

    let exponents = if opts.tiny { 2..=3 } else { 2..=5 };
    let dir = scratch.join("gpu-sum-files");
    let mut lists = || -> Result<(), String> {
        let names = file_list(&dir, 10usize.pow(*exponents.end())).map_err(io("the file list"))?;
        for (measured, alike) in BATCHED {
            let algorithm = measured.name();
            let mut wins = Crossover::default();
            let args = ["-a".to_string(), algorithm.to_string()];
            for e in exponents.clone() {
                let names = &names[..10usize.pow(e)];
                let times = time_sums(exe, &dir, &args, names, runs).map_err(io("parhash sum"))?;
                wins.measured(e, row(algorithm.into(), format!("1e{e} files"), times));
            }
            let mut what = format!("`sum` of {algorithm}");
            for other in alike {
                what.push_str(&format!(" (and {}, recorded alike)", other.name()));
            }
            said.push(wins.say(&what, "files"));
            for algorithm in std::iter::once(measured).chain(alike.iter().copied()) {
                record.record(Win {
                    algorithm: algorithm.name().into(),
                    scale: Scale::Files,
                    from: wins.from.map(|e| 10u64.pow(e)),
                });
            }
        }
        Ok(())
    };
    let listed = lists();
    // The list is scratch (100,000 files): gone whatever happened, so that the report's
    // folder stays small enough to bring back from a device machine.
    let _ = std::fs::remove_dir_all(&dir);
    listed?;

    // A tiny run's sizes stop short of deciding.
    if opts.tiny {
        return Ok((
            said,
            "A tiny run records nothing for `--device auto`.".into(),
        ));
    }
    record.note = "where the GPU wins end to end, measured by parhash bench --preset gpu".into();
    let stored = match wins::store(&record) {
        Ok(path) => format!(
            "Recorded in {} for `parhash sum --device auto`, which takes the GPU from these \
             sizes on this GPU: PARSHA-256 files of that size and more (same T and l), and \
             command lines of that many files or more for the batched algorithms.",
            path.display()
        ),
        Err(e) => format!("Not recorded for `parhash sum --device auto`: {e}."),
    };
    Ok((said, stored))
}

/// The size (a power of ten) from which the GPU won at every larger size measured.
#[derive(Default)]
pub(super) struct Crossover {
    pub(super) from: Option<u32>,
}

impl Crossover {
    /// Notes whether the GPU won at 10^`e` (sizes in increasing order); returns `won`.
    pub(super) fn measured(&mut self, e: u32, won: bool) -> bool {
        self.from = match (won, self.from) {
            (true, None) => Some(e),
            (true, from) => from,
            (false, _) => None,
        };
        won
    }

    /// One sentence: where `what` wins on the GPU, sizes counted in `unit`.
    pub(super) fn say(&self, what: &str, unit: &str) -> String {
        match self.from {
            Some(e) => format!("{what}: the GPU wins end to end from 1e{e} {unit} up."),
            None => {
                format!("{what}: the GPU does not win end to end at the largest size measured.")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_list_is_made_afresh_with_files_of_other_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("list");
        std::fs::create_dir_all(&list).unwrap();
        std::fs::write(list.join("stale"), b"from before").unwrap();
        let names = file_list(&list, 300).unwrap();
        assert_eq!(names.len(), 300);
        assert_eq!(
            std::fs::read_dir(&list).unwrap().count(),
            300,
            "made afresh"
        );
        let contents: std::collections::HashSet<Vec<u8>> = names
            .iter()
            .map(|n| std::fs::read(list.join(n)).unwrap())
            .collect();
        assert_eq!(contents.len(), 300, "each file of other bytes");
        assert!(contents.iter().all(|c| c.len() as u64 == FILES_OF_BYTES));
    }

    /// Both commands run in the folder, in turn, and a failing one is an error (`true` and
    /// `false` stand in for parhash: they take any arguments).
    #[cfg(unix)]
    #[test]
    fn both_sums_are_timed_and_a_failure_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let names = ["a".to_string(), "b".to_string()];
        let args = ["-a".to_string(), "sha256".to_string()];
        let (gpu_s, cpu_s, ratio) =
            time_sums(Path::new("true"), dir.path(), &args, &names, 3).unwrap();
        assert!(gpu_s > 0.0 && cpu_s > 0.0 && ratio > 0.0);
        let err = time_sums(Path::new("false"), dir.path(), &args, &names, 1).unwrap_err();
        assert!(err.to_string().contains("false failed"), "{err}");
        let gone = time_sums(Path::new("no-such-parhash"), dir.path(), &args, &names, 1);
        assert!(gone.is_err());
    }

    /// The whole section's course with `true` standing in for parhash (it takes any
    /// arguments and succeeds): a row per size, a sentence per algorithm, nothing recorded by
    /// a tiny run, and the scratch files gone; with `false`, the error and no scratch left.
    #[cfg(unix)]
    #[test]
    fn the_section_times_every_size_and_leaves_no_scratch() {
        let dir = tempfile::tempdir().unwrap();
        let opts = LabOptions {
            out_dir: dir.path().to_path_buf(),
            tiny: true,
            ..LabOptions::new()
        };
        let mut t = Table::new(&["a", "b", "c", "d", "e", "f"]);
        let (said, record) = measure(Path::new("true"), "a GPU", &opts, 13, 256, &mut t).unwrap();
        let sizes: Vec<(&str, &str)> = t
            .rows
            .iter()
            .map(|r| (r[0].as_str(), r[1].as_str()))
            .collect();
        assert_eq!(
            sizes,
            [
                ("parsha256 T=13 l=256", "1e5 bytes"),
                ("parsha256 T=13 l=256", "1e6 bytes"),
                ("sha256", "1e2 files"),
                ("sha256", "1e3 files"),
                ("sha3-256", "1e2 files"),
                ("sha3-256", "1e3 files"),
            ]
        );
        assert_eq!(said.len(), 3);
        assert!(said[2].contains("keccak256, recorded alike"), "{said:?}");
        assert!(record.contains("records nothing"), "{record}");
        let left = |scratch: &Path| std::fs::read_dir(scratch).map_or(0, |entries| entries.count());
        assert_eq!(left(&opts.scratch()), 0, "scratch left behind");

        let mut t = Table::new(&["a", "b", "c", "d", "e", "f"]);
        let err = measure(Path::new("false"), "a GPU", &opts, 13, 256, &mut t).unwrap_err();
        assert!(err.starts_with("parhash sum: false failed"), "{err}");
        assert_eq!(left(&opts.scratch()), 0, "scratch left behind");
    }

    #[test]
    fn only_the_parhash_binary_is_timed() {
        // The test harness is not `parhash`: the lab says so rather than timing itself.
        let err = parhash_binary().unwrap_err();
        assert!(err.contains("not the parhash binary"), "{err}");
    }

    #[test]
    fn the_crossover_is_where_the_gpu_won_at_every_larger_size() {
        let from = |outcomes: &[bool]| {
            let mut c = Crossover::default();
            for (e, &won) in (3u32..).zip(outcomes) {
                assert_eq!(c.measured(e, won), won);
            }
            c.from
        };
        assert_eq!(from(&[false, false, true, true]), Some(5));
        assert_eq!(from(&[true, true, true]), Some(3));
        // A win followed by a loss is no crossover; a later win starts it again.
        assert_eq!(from(&[true, false, true]), Some(5));
        assert_eq!(from(&[true, true, false]), None);
        assert_eq!(from(&[]), None);
        let mut c = Crossover::default();
        c.measured(6, true);
        assert_eq!(
            c.say("sha256 batches", "messages of 64 bytes"),
            "sha256 batches: the GPU wins end to end from 1e6 messages of 64 bytes up."
        );
        c.measured(7, false);
        assert!(c.say("x", "bytes").contains("does not win"));
    }
}
