//! `parhash bench`'s flags: parsed in every build; the lab that runs them is the `lab` feature
//! (`bench.rs`), so a build without it still explains `bench` in `--help`.

use std::path::PathBuf;

use clap::Args;

/// Benchmark algorithms, variants, sizes and threads beside OpenSSL and RustCrypto.
#[derive(Args, Debug, Clone, Default)]
#[command(
    long_about = "Benchmark parhash: sweep algorithms, variants, message lengths, multiplicity, \
                  source and threads; measure the machine's roofs (memory, page cache, disk, GPU \
                  transfer) in the same run; name each configuration's bottleneck; compare with \
                  OpenSSL, RustCrypto and blake3. Prints a table and writes CSV, JSON, SVG/PNG \
                  plots and an HTML report. With no flags: a quick tour under one minute."
)]
pub struct BenchArgs {
    /// Run a named preset (see --list-presets); default: the quick tour.
    #[arg(long, value_name = "NAME")]
    pub preset: Option<String>,

    /// List the presets and exit.
    #[arg(long)]
    pub list_presets: bool,

    /// Algorithms to sweep (comma list of names; `all` for every one).
    #[arg(short, long, value_name = "LIST")]
    pub algorithms: Option<String>,

    /// Implementation variants: `default`, `all`, or names such as `sequential,parallel`.
    ///
    /// A base name such as `tree` selects every --tree set of that engine; `openssl` and
    /// `rustcrypto` select those peers.
    #[arg(long, value_name = "LIST")]
    pub variants: Option<String>,

    /// Message lengths: sizes with suffixes (`8,64,4KiB`), doubling ranges (`4k..1G`), or
    /// `seed` for the steps of the Keccak/SIMD accelerator study (8 B..256 KiB).
    #[arg(short, long, value_name = "LIST")]
    pub lengths: Option<String>,

    /// Messages hashed together per batch: 1 is one message at a time, more are many messages
    /// side by side (SIMD lanes, threads). `1,64`.
    #[arg(short, long, value_name = "LIST")]
    pub messages: Option<String>,

    /// Sources: memory, page-cache (warm file), disk (cold file, cache dropped each sample).
    #[arg(short, long, value_name = "LIST")]
    pub sources: Option<String>,

    /// Thread counts (`1..4`, `1,2`).
    #[arg(short, long, value_name = "LIST")]
    pub threads: Option<String>,

    /// PARSHA-256 tree parameters, one configuration per use: `--tree T=10,l=0 --tree T=13`.
    ///
    /// Keys: T (tree height, 1 to 40, default 13) and l (IV bits: 0, 128 or 256, default 256).
    /// Each set is measured as its own engine of parsha256 (`tree[T=10,l=0]` on the CPU,
    /// `gpu[T=10,l=0]` on a GPU), added to the default variants. Other engines take no tree
    /// parameters: in a sweep that mixes them a note says so; sets that no engine of the sweep
    /// takes are an error.
    #[arg(long, value_name = "PARAMS")]
    pub tree: Vec<String>,

    /// Do not measure OpenSSL, RustCrypto and blake3 beside parhash.
    #[arg(long)]
    pub no_peers: bool,

    /// Rounds of the paired pass against the peers (default 21, 5 with --tiny; 0: none).
    ///
    /// After the sweep, parhash's fastest form and each peer are timed alternately in one
    /// process on every piece of work from memory on one thread (batches up to 1 MiB), one
    /// short sample each per round (about 1 ms), and the peers table reports the median of
    /// the per-round ratios with their interquartile range: stable where cells timed apart
    /// swing with the machine's load. The pass takes at most 25 % of the budget, with fewer
    /// rounds (down to 7) where all do not fit; 0 keeps the ratios of the cells timed apart.
    #[arg(long, value_name = "N")]
    pub paired_rounds: Option<usize>,

    /// Report speed-ups against this variant or provider (`sequential`, `openssl`...).
    ///
    /// A name the run does not measure is an error listing the valid ones.
    #[arg(long, value_name = "NAME")]
    pub baseline: Option<String>,

    /// Time budget for the measurements (`40s`, `2m`; default 40s).
    #[arg(long, value_name = "DURATION")]
    pub budget: Option<String>,

    /// Seconds-scale run with tiny sizes (for CI; the figures mean little).
    #[arg(long)]
    pub tiny: bool,

    /// Output folder for CSV, JSON, plots and the HTML report.
    #[arg(short, long, value_name = "DIR", default_value = "parhash-report")]
    pub out: PathBuf,

    /// No progress bar.
    #[arg(long)]
    pub no_progress: bool,

    /// Print only where the files went, not the tables.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,

    /// Print every measurement, the peers and the terms (what report.txt holds), not only
    /// the summary.
    #[arg(short, long)]
    pub verbose: bool,
}
