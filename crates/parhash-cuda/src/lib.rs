//! # parhash-cuda
//!
//! parhash's GPU backend (CUDA): batched SHA-256 (one message per thread, any mix of lengths),
//! the Bitcoin nonce search, PARSHA-256 as a tree of GPU threads, and batched Keccak-256 /
//! SHA3-256 with two host layouts. The CUDA driver and NVRTC are loaded at run time (cudarc's
//! dynamic loading), so this crate builds and its host logic is tested on machines without CUDA;
//! there [`Gpu::open`] fails with one clear error, `no usable CUDA GPU: <reason>`.
//!
//! - [`kernels`]: the CUDA C sources (`kernels/*.cu`, embedded) and NVRTC compilation to PTX;
//!   [`cache`]: compiled PTX cached per architecture.
//! - [`pack`], [`layout`], [`plan`], [`nonce`]: host logic (packing and padding rules, the
//!   block-interleaved layout, PARSHA-256 scheduling, headers and targets), tested on the CPU.
//! - the host pipeline (pinned staging buffers and device buffers kept across calls, several
//!   streams, packing and reading on every core): see [`ReadAt`] and [`Gpu`].
//! - [`wins`]: where the lab measured the GPU winning end to end on this machine (what
//!   `parhash sum --device auto` follows).
//! - [`Gpu`]: the device and every GPU operation.

pub mod cache;
mod error;
mod gpu;
pub mod kernels;
pub mod layout;
pub mod nonce;
pub mod pack;
mod pipeline;
pub mod plan;
pub mod wins;

pub use error::{GpuError, SourceError};
pub use gpu::{keccak_staged_len, Gpu, GpuTimes, KeccakKind, KeccakLayout, ParshaRun};
pub use pipeline::{read_piece, ReadAt, PIECE_BYTES};
pub use plan::ParshaForm;
