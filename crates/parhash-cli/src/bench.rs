//! `parhash bench`: the benchmark lab. Parses the sweep flags, runs a preset or a custom sweep
//! through `parhash-lab`, prints the report and writes its files.

use std::io::IsTerminal;

pub use crate::bench_args::BenchArgs;
use crate::messages::UsageError;
use anyhow::Context;
use parhash::Algorithm;
use parhash_lab::{
    lab::{self, LabOptions},
    output, presets,
    source::Source,
    summary,
    sweep::{SweepSpec, VariantChoice},
    tree_params, units,
};

impl BenchArgs {
    fn sweeping(&self) -> bool {
        self.algorithms.is_some()
            || self.variants.is_some()
            || self.lengths.is_some()
            || self.messages.is_some()
            || self.sources.is_some()
            || self.threads.is_some()
            || !self.tree.is_empty()
    }
}

/// A bad value of `flag`, as a usage error (exit status 2).
fn bad(flag: &str, err: impl std::fmt::Display) -> UsageError {
    UsageError(format!("{flag}: {err}"))
}

fn algorithms(text: &str) -> Result<Vec<Algorithm>, UsageError> {
    if text.trim() == "all" {
        return Ok(Algorithm::ALL.to_vec());
    }
    let algs: Vec<Algorithm> = text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| Algorithm::from_name(s).map_err(|e| bad("--algorithms", e)))
        .collect::<Result<_, _>>()?;
    if algs.is_empty() {
        return Err(bad(
            "--algorithms",
            format!("'{text}' names no algorithm (names from 'parhash list', or all)"),
        ));
    }
    Ok(algs)
}

/// Counts of `flag` (threads, messages per batch), each at least 1.
fn counts(flag: &str, text: &str, what: &str) -> Result<Vec<usize>, UsageError> {
    let counts = units::parse_counts(text).map_err(|e| bad(flag, e))?;
    if counts.contains(&0) {
        return Err(bad(flag, format!("{what} must be 1 or more, not 0")));
    }
    Ok(counts)
}

/// The `--variants` choice, each name one that some algorithm of the sweep has (a variant, an
/// engine's base name such as `tree`, a peer such as `openssl`).
fn variants(
    text: &str,
    algs: &[Algorithm],
    tree: &[tree_params::TreeParams],
) -> Result<VariantChoice, UsageError> {
    let choice = VariantChoice::parse(text);
    let VariantChoice::Named(names) = &choice else {
        return Ok(choice);
    };
    let mut valid = vec!["default".to_string(), "all".to_string()];
    for &alg in algs {
        let ours = parhash_lab::engines::parhash_engines_with_tree(alg, tree);
        let peers = parhash_lab::engines::peers(alg);
        let names = ours
            .iter()
            .flat_map(|e| {
                let variant = e.variant();
                [tree_params::base_variant(&variant).to_string(), variant]
            })
            .chain(peers.iter().map(|p| p.provider().name().to_string()));
        for name in names {
            if !valid.contains(&name) {
                valid.push(name);
            }
        }
    }
    let unknown: Vec<&String> = names.iter().filter(|n| !valid.contains(n)).collect();
    if names.is_empty() || !unknown.is_empty() {
        let what = if names.is_empty() {
            format!("'{text}' names no variant")
        } else {
            let quoted: Vec<String> = unknown.iter().map(|n| format!("'{n}'")).collect();
            format!("no algorithm of this sweep has {}", quoted.join(", "))
        };
        return Err(bad(
            "--variants",
            format!("{what} (valid: {})", valid.join(", ")),
        ));
    }
    Ok(choice)
}

/// Builds the custom sweep the flags describe; every error is a usage error.
fn custom_spec(args: &BenchArgs) -> Result<SweepSpec, UsageError> {
    let algs = match &args.algorithms {
        Some(list) => algorithms(list)?,
        None => presets::one_per_family(),
    };
    let mut spec = SweepSpec::new(algs);
    // The error names the flag, the set and the valid keys itself.
    spec.tree = tree_params::parse_sets(&args.tree).map_err(|e| UsageError(e.to_string()))?;
    if let Some(v) = &args.variants {
        spec.variants = variants(v, &spec.algorithms, &spec.tree)?;
    }
    if let Some(l) = &args.lengths {
        spec.lengths = units::parse_sizes(l).map_err(|e| bad("--lengths", e))?;
        if spec.lengths.contains(&0) {
            return Err(bad(
                "--lengths",
                "0-byte messages have no time per byte: lengths start at 1 B",
            ));
        }
    } else if args.tiny {
        spec.lengths = vec![64, 4096];
    }
    if let Some(m) = &args.messages {
        spec.multiplicities = counts("--messages", m, "messages per batch")?;
    }
    if let Some(s) = &args.sources {
        spec.sources = s
            .split(',')
            .map(Source::parse)
            .collect::<Result<_, _>>()
            .map_err(|e| bad("--sources", e))?;
    }
    if let Some(t) = &args.threads {
        spec.threads = counts("--threads", t, "thread counts")?;
    }
    spec.peers = !args.no_peers;
    spec.anchor = !args.no_peers;
    Ok(spec)
}

/// Runs `parhash bench`; `Ok(true)` when everything ran.
pub fn run(args: &BenchArgs) -> anyhow::Result<bool> {
    if args.list_presets {
        for p in presets::ALL {
            let study = if p.study.is_empty() {
                String::new()
            } else {
                format!(" [{}]", p.study)
            };
            println!("{:<22} {}{study}", p.name, p.about);
        }
        return Ok(true);
    }
    if args.preset.is_some() && args.sweeping() {
        return Err(UsageError(
            "--preset takes no sweep flags (--algorithms, --lengths, ...): use one or the other"
                .into(),
        )
        .into());
    }
    let mut opts = LabOptions::new();
    opts.out_dir = args.out.clone();
    opts.tiny = args.tiny;
    opts.progress = !args.no_progress && std::io::stderr().is_terminal();
    opts.baseline = args.baseline.clone();
    opts.paired_rounds = args.paired_rounds;
    opts.command = std::iter::once("parhash".to_string())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    if args.tiny {
        opts.budget = std::time::Duration::from_secs(5);
    }
    if let Some(b) = &args.budget {
        opts.budget = units::parse_duration(b).map_err(|e| bad("--budget", e))?;
        opts.budget_given = true;
    }
    let spec = args.sweeping().then(|| custom_spec(args)).transpose()?;
    // Before measuring for minutes: a report folder that cannot be made is an error now.
    std::fs::create_dir_all(&opts.out_dir)
        .with_context(|| format!("cannot create the report folder {}", opts.out_dir.display()))?;
    let report = if let Some(spec) = spec {
        lab::run_sweep("parhash bench: custom sweep", &spec, &opts).map_err(usage_or_io)?
    } else {
        let name = args.preset.as_deref().unwrap_or("tour");
        let Some(preset) = presets::find(name) else {
            let names: Vec<&str> = presets::ALL.iter().map(|p| p.name).collect();
            return Err(UsageError(format!(
                "unknown preset '{name}' (presets: {})",
                names.join(", ")
            ))
            .into());
        };
        let mut report = (preset.run)(&opts)
            .map_err(usage_or_io)
            .with_context(|| format!("preset {}", preset.name))?;
        if let (Some(base), true) = (&args.baseline, report.measurements.is_empty()) {
            // Presets that time their own figures (no sweep) compute their own ratios.
            report.notes.push(format!(
                "--baseline {base} not used: preset {} has no sweep measurements to compare",
                preset.name
            ));
        }
        report
    };
    if args.verbose {
        print!("{}", summary::full_text(&report));
    } else if !args.quiet {
        print!("{}", summary::summary_text(&report));
    }
    let files = output::write_all(&report, &opts.out_dir)
        .with_context(|| format!("writing {}", opts.out_dir.display()))?;
    println!(
        "wrote {} files to {} (open {}), {:.1} s",
        files.len(),
        opts.out_dir.display(),
        opts.out_dir.join("report.html").display(),
        report.seconds
    );
    Ok(true)
}

/// A lab error: its usage error (an unknown `--baseline`, `--tree` sets nothing takes) as such,
/// so that it exits with status 2; anything else as it is.
fn usage_or_io(err: std::io::Error) -> anyhow::Error {
    match parhash_lab::error::UsageError::find(&err) {
        Some(usage) => UsageError(usage.0.clone()).into(),
        None => err.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_sweep_flags_parse() {
        let args = BenchArgs {
            algorithms: Some("md5".into()),
            lengths: Some("8,4k..16k".into()),
            messages: Some("1,8".into()),
            sources: Some("memory,disk".into()),
            threads: Some("1..2".into()),
            variants: Some("all".into()),
            no_peers: true,
            ..BenchArgs::default()
        };
        let spec = custom_spec(&args).unwrap();
        assert_eq!(spec.algorithms, vec![Algorithm::Md5]);
        assert_eq!(spec.lengths, vec![8, 4096, 8192, 16384]);
        assert_eq!(spec.multiplicities, vec![1, 8]);
        assert_eq!(spec.sources, vec![Source::Memory, Source::Disk]);
        assert_eq!(spec.threads, vec![1, 2]);
        assert_eq!(spec.variants, VariantChoice::All);
        assert!(!spec.peers);
    }

    #[test]
    fn bad_flags_are_errors() {
        let bad = |f: fn(&mut BenchArgs)| {
            let mut a = BenchArgs::default();
            f(&mut a);
            custom_spec(&a).is_err()
        };
        assert!(bad(|a| a.lengths = Some("4q".into())));
        assert!(bad(|a| a.algorithms = Some("nope".into())));
        assert!(bad(|a| a.sources = Some("tape".into())));
        assert!(bad(|a| a.threads = Some("3..1".into())));
        assert!(bad(|a| a.tree = vec!["T=5".into(), "chunk=4KiB".into()]));
        assert!(bad(|a| a.algorithms = Some(" , ".into())));
        assert!(bad(|a| a.variants = Some("nosuch".into())));
        assert!(bad(|a| a.variants = Some(",".into())));
        assert!(bad(|a| a.threads = Some("0".into())));
        assert!(bad(|a| a.threads = Some("0..2".into())));
        assert!(bad(|a| a.messages = Some("0".into())));
        assert!(bad(|a| a.lengths = Some("0,64".into())));
        let good = |f: fn(&mut BenchArgs)| {
            let mut a = BenchArgs::default();
            f(&mut a);
            custom_spec(&a).is_ok()
        };
        assert!(good(|a| a.variants = Some("sequential,openssl".into())));
        assert!(good(|a| {
            a.algorithms = Some("parsha256".into());
            a.variants = Some("tree".into());
        }));
    }

    #[test]
    fn tree_sets_reach_the_sweep_parsed() {
        let args = BenchArgs {
            algorithms: Some("parsha256".into()),
            tree: vec!["T=5".into(), "l=0,T=10".into(), "t=5".into()],
            ..BenchArgs::default()
        };
        let spec = custom_spec(&args).unwrap();
        let sets: Vec<String> = spec.tree.iter().map(|p| p.to_string()).collect();
        assert_eq!(sets, ["T=5,l=256", "T=10,l=0"]);
    }
}
