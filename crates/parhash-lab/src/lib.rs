//! # parhash-lab
//!
//! The benchmark lab behind `parhash bench`: it sweeps the design space (algorithm,
//! implementation variant, message length, multiplicity, source, threads, tree parameters),
//! measures the machine's roofs in the same run, names each configuration's bottleneck, measures
//! peers (OpenSSL, RustCrypto, `blake3`) beside parhash, and writes a terminal table, CSV, JSON,
//! plots and one self-contained HTML report. Presets regenerate the seed studies' figures.
//!
//! - [`sweep`]: the axes and their expansion; [`engine`]: what is measured (parhash variants,
//!   peers, and the [`engine::EXTRA_ENGINES`] hook for tree, batch and GPU engines);
//!   [`tree_params`]: the `--tree` parameter sets.
//! - [`measure`]: timing one configuration in bounded memory; [`roofs`]: memory, page cache,
//!   disk, transfer.
//! - [`classify`]: the bottleneck of a configuration (a pure function) and the summary table.
//! - [`report`], [`output`]: tables, CSV/JSON, plots, HTML. [`presets`]: one per seed study.

pub mod batch_engine;
pub mod classify;
pub mod codesize;
pub mod engine;
pub mod gpu;
pub mod html;
pub mod lab;
pub mod measure;
pub mod output;
pub mod plots;
pub mod presets;
pub mod report;
pub mod roofs;
pub mod source;
pub mod sweep;
pub mod timer;
pub mod tree_params;
pub mod units;

pub use lab::{run_sweep, LabOptions};
pub use report::Report;
