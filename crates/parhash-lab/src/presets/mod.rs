//! Presets: named runs of the lab, one per seed study (plus the quick tour), each regenerating
//! that study's figures with parhash's implementations and printing the seed's own numbers
//! beside them.
//!
//! # Adding a preset
//! 1. Create `presets/<name>.rs` with a `pub const PRESET: Preset = Preset { .. }` whose `run`
//!    builds a report: usually one or more [`SweepSpec`]s handed to
//!    [`crate::lab::run_sweeps`], then extra [`Section`](crate::report::Section)s with tables.
//! 2. Add `mod <name>;` below and `&<name>::PRESET` to [`ALL`].
//! 3. Honour `opts.tiny` (seconds-scale sizes) — the test `every_preset_runs_tiny` runs every
//!    preset that way in CI — and say plainly what is not built yet instead of failing
//!    ([`missing`] helps).
//!
//! Engines that are not plain variants (tree modes, batch engines, GPU back-ends) are made
//! visible to every preset through [`crate::engines::EXTRA_ENGINES`].

use parhash::Algorithm;

use crate::lab::LabOptions;
use crate::report::Report;
use crate::sweep::SweepSpec;

mod accelerator;
mod batch;
mod end_to_end;
mod gpu;
mod gpu_sum;
mod internal_parallelism;
pub mod parsha;
pub mod sandstorm;
mod tour;
mod whirlpool;

/// A named run of the lab.
pub struct Preset {
    /// What `--preset` takes.
    pub name: &'static str,
    /// The published study it redoes, named by its subject (`--list-presets` shows it), or ""
    /// for general presets.
    pub study: &'static str,
    /// One line: what it measures.
    pub about: &'static str,
    /// Runs it.
    pub run: fn(&LabOptions) -> std::io::Result<Report>,
}

/// Every preset, the default (`tour`) first.
pub static ALL: &[&Preset] = &[
    &tour::PRESET,
    &sandstorm::PRESET,
    &whirlpool::PRESET,
    &internal_parallelism::PRESET,
    &parsha::PRESET,
    &accelerator::PRESET,
    &batch::PRESET,
    &gpu::PRESET,
    &end_to_end::PRESET,
];

/// The preset called `name` (exact, or ignoring case and `-`/`_`).
pub fn find(name: &str) -> Option<&'static Preset> {
    let norm = |s: &str| s.to_ascii_lowercase().replace(['-', '_'], "");
    ALL.iter().copied().find(|p| norm(p.name) == norm(name))
}

/// Looks up algorithms by name; returns those built and a sentence naming those not built yet.
pub fn missing(names: &[&str]) -> (Vec<Algorithm>, Option<String>) {
    let mut found = Vec::new();
    let mut absent = Vec::new();
    for n in names {
        match Algorithm::from_name(n) {
            Ok(a) => found.push(a),
            Err(_) => absent.push(*n),
        }
    }
    let note = (!absent.is_empty()).then(|| {
        format!(
            "not built yet in this parhash, so not measured: {}",
            absent.join(", ")
        )
    });
    (found, note)
}

/// One algorithm per family (the 256-bit member where there is one): the quick tour's set, and
/// the default of a custom sweep.
pub fn one_per_family() -> Vec<Algorithm> {
    let mut out: Vec<Algorithm> = Vec::new();
    for &a in Algorithm::ALL {
        let family = a.info().family;
        match out.iter().position(|b| b.info().family == family) {
            None => out.push(a),
            Some(i) => {
                if !out[i].name().contains("256") && a.name().contains("256") {
                    out[i] = a;
                }
            }
        }
    }
    out
}

/// A sweep over `algorithms` with the lengths cut down in tiny mode.
pub fn spec(algorithms: Vec<Algorithm>, opts: &LabOptions) -> SweepSpec {
    let mut s = SweepSpec::new(algorithms);
    if opts.tiny {
        s.lengths = vec![64, 4096];
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for p in ALL {
            assert_eq!(find(p.name).map(|q| q.name), Some(p.name));
            assert!(!p.about.is_empty());
        }
        assert_eq!(
            find("Internal_Parallelism").map(|p| p.name),
            Some("internal-parallelism")
        );
        assert!(find("nope").is_none());
    }

    #[test]
    fn missing_names_are_reported() {
        let (found, note) = missing(&["md5", "no-such-hash"]);
        assert_eq!(found, vec![Algorithm::Md5]);
        assert!(note.unwrap().contains("no-such-hash"));
        assert!(one_per_family().contains(&Algorithm::Md5));
    }
}
