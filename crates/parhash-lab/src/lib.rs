//! # parhash-lab
//!
//! The benchmark lab behind `parhash bench`: it sweeps the design space (algorithm,
//! implementation variant, message length, multiplicity, source, threads, tree parameters),
//! measures the machine's roofs in the same run, names each configuration's bottleneck, measures
//! peers (OpenSSL, RustCrypto, `blake3`) beside parhash, and writes a terminal table, CSV, JSON,
//! plots and one self-contained HTML report. Presets regenerate the seed studies' figures.
//!
//! - [`engine`]: what an engine is (the interface); [`engines`]: every engine (parhash's
//!   variants, the peers, and the [`engines::EXTRA_ENGINES`]: tree, batch and GPU engines);
//!   [`tree_params`]: the `--tree` parameter sets; [`sweep`]: the axes and their expansion.
//! - [`measure`]: timing one configuration in bounded memory; [`roofs`]: memory, page cache,
//!   disk, transfer.
//! - [`classify`]: the bottleneck of a configuration (a pure function) and the summary table.
//! - [`compare`]: each peer against parhash's fastest form on the same work; [`paired`]: the
//!   two sampled alternately in one process, for ratios that the machine's noise does not move.
//! - [`report`], [`summary`] (the short terminal view, the verdict, the terms), [`chart`],
//!   [`output`]: tables, CSV/JSON, plots, HTML. [`presets`]: one per study the lab redoes;
//!   they choose configurations and build tables, the engines live in [`engines`].
//!
//! Layers, each using only those before it: units, timer, source, classify, tree_params,
//! error, chart; engine; engines; sweep; measure; paired; roofs; compare; report; summary;
//! plots, html, output; layout, lab; presets.

pub mod ceiling;
pub mod chart;
pub mod classify;
pub mod codesize;
pub mod compare;
pub mod engine;
pub mod engines;
pub mod error;
pub mod html;
pub mod lab;
pub mod layout;
pub mod measure;
pub mod output;
pub mod paired;
pub mod plots;
pub mod presets;
pub mod report;
pub mod roofs;
pub mod source;
pub mod summary;
pub mod sweep;
pub mod timer;
pub mod tree_params;
pub mod units;

pub use lab::{run_sweep, LabOptions};
pub use report::Report;
