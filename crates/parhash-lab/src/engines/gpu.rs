//! The GPU back-end (`parhash-cuda`) in the lab: engines registered in
//! [`super::EXTRA_ENGINES`] and the host-to-device copy probe registered in the roofs'
//! `TRANSFER_PROBES`. On a machine without a usable GPU both offer nothing, so
//! every sweep and report is what it was without them.
//!
//! Engines (variant names): `gpu` for sha256 (one message per GPU thread) and parsha256 (the
//! tree on the GPU: one engine per `--tree` set, `gpu[T=10,l=0]`, as the CPU's `tree`; plain
//! `gpu` with parhash's T = 13 (seed study 4's) and l = 256 when none is given); `gpu-packed`
//! and `gpu-interleaved` for sha3-256 and keccak256 (the two host layouts).
//! The lab times them end to end (copies included); kernel-only times come from the `gpu`
//! preset, which reads the GPU's own event timers.

use std::sync::{Arc, OnceLock};

use parhash::Algorithm;
use parhash_cuda::{Gpu, GpuError, KeccakKind, KeccakLayout};

use crate::engine::{Engine, EngineRef, StreamHasher};
use crate::tree_params::{self, TreeParams};

/// PARSHA-256's tree height when none is given: parhash's default, seed study 4's T = 13.
pub const DEFAULT_TREE_HEIGHT: u32 = parhash::parsha256::DEFAULT_TREE_HEIGHT;

/// PARSHA-256's IV length when none is given: parhash's default.
pub const DEFAULT_IV_BITS: u32 = parhash::parsha256::DEFAULT_IV_BITS;

static GPU: OnceLock<Result<Arc<Gpu>, GpuError>> = OnceLock::new();

/// The process's GPU, opened (and its kernels compiled) once; the error says why there is none.
pub fn shared() -> Result<Arc<Gpu>, GpuError> {
    GPU.get_or_init(|| {
        let gpu = Gpu::open()?;
        gpu.warm_up()?;
        Ok(Arc::new(gpu))
    })
    .clone()
}

/// What a GPU engine runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuOp {
    /// Batched SHA-256.
    Sha256,
    /// Batched Keccak in one layout.
    Keccak(KeccakKind, KeccakLayout),
    /// PARSHA-256, one message at a time.
    Parsha { tree_height: u32, iv_bits: u32 },
}

impl GpuOp {
    /// The variant name (PARSHA-256's engines are named after their parameter set instead).
    fn variant(self) -> &'static str {
        match self {
            GpuOp::Keccak(_, KeccakLayout::Packed) => "gpu-packed",
            GpuOp::Keccak(_, KeccakLayout::Interleaved) => "gpu-interleaved",
            _ => "gpu",
        }
    }

    /// Hashes a batch; digests in order.
    pub fn run(self, gpu: &Gpu, messages: &[&[u8]]) -> Result<Vec<[u8; 32]>, GpuError> {
        match self {
            GpuOp::Sha256 => gpu.sha256_many(messages),
            GpuOp::Keccak(kind, layout) => gpu.keccak_many(messages, kind, layout),
            GpuOp::Parsha {
                tree_height,
                iv_bits,
            } => gpu.hash_many(Algorithm::Parsha256, messages, tree_height, iv_bits),
        }
    }
}

struct GpuEngine {
    algorithm: Algorithm,
    op: GpuOp,
    variant: String,
    gpu: Arc<Gpu>,
}

/// The per-message form the lab falls back to: buffers the message, hashes it on the GPU.
struct Buffered {
    op: GpuOp,
    gpu: Arc<Gpu>,
    data: Vec<u8>,
}

impl StreamHasher for Buffered {
    fn update(&mut self, data: &[u8]) {
        self.data.extend_from_slice(data);
    }
    fn finish_reset(&mut self) -> u8 {
        let digest = self.op.run(&self.gpu, &[&self.data]);
        self.data.clear();
        digest.map(|d| d[0][0]).unwrap_or(0)
    }
}

impl Engine for GpuEngine {
    fn algorithm(&self) -> String {
        self.algorithm.name().to_string()
    }
    fn variant(&self) -> String {
        self.variant.clone()
    }
    fn on_accelerator(&self) -> bool {
        true
    }
    fn takes_tree_params(&self) -> bool {
        matches!(self.op, GpuOp::Parsha { .. })
    }
    fn bounded_memory(&self) -> bool {
        // The whole batch (or message) is copied to the device.
        false
    }
    fn hasher(&self) -> Box<dyn StreamHasher> {
        Box::new(Buffered {
            op: self.op,
            gpu: self.gpu.clone(),
            data: Vec::new(),
        })
    }
    fn hash_batch(&self, messages: &[&[u8]], _threads: usize) -> Option<u8> {
        let digests = self.op.run(&self.gpu, messages).ok()?;
        Some(digests.iter().fold(0u8, |a, d| a.wrapping_add(d[0])))
    }
}

/// The GPU engines of `algorithm` (none without a GPU) for [`super::EXTRA_ENGINES`].
pub fn engines(algorithm: Algorithm, tree: &[TreeParams]) -> Vec<EngineRef> {
    let named = |ops: Vec<GpuOp>| -> Vec<(GpuOp, String)> {
        ops.into_iter()
            .map(|op| (op, op.variant().to_string()))
            .collect()
    };
    let ops = match algorithm.name() {
        "sha256" => named(vec![GpuOp::Sha256]),
        "sha3-256" | "keccak256" => {
            let kind = if algorithm.name() == "sha3-256" {
                KeccakKind::Sha3_256
            } else {
                KeccakKind::Keccak256
            };
            named(vec![
                GpuOp::Keccak(kind, KeccakLayout::Packed),
                GpuOp::Keccak(kind, KeccakLayout::Interleaved),
            ])
        }
        "parsha256" => parsha_ops(tree),
        _ => return Vec::new(),
    };
    with_gpu(algorithm, ops)
}

/// PARSHA-256's operations, one per parameter set, with their variant names.
fn parsha_ops(tree: &[TreeParams]) -> Vec<(GpuOp, String)> {
    tree_params::labelled(tree, "gpu")
        .into_iter()
        .map(|(p, variant)| {
            let op = GpuOp::Parsha {
                tree_height: p.tree_height(),
                iv_bits: p.iv_bits(),
            };
            (op, variant)
        })
        .collect()
}

/// The engines for `ops` on the process's GPU, none without one.
fn with_gpu(algorithm: Algorithm, ops: Vec<(GpuOp, String)>) -> Vec<EngineRef> {
    let Ok(gpu) = shared() else {
        return Vec::new();
    };
    ops.into_iter()
        .map(|(op, variant)| {
            Arc::new(GpuEngine {
                algorithm,
                op,
                variant,
                gpu: gpu.clone(),
            }) as EngineRef
        })
        .collect()
}

/// The host-to-device copy rate from pinned memory (64 MiB copies), for
/// the roofs' `TRANSFER_PROBES`.
pub fn transfer_probe() -> Option<(String, f64)> {
    let gpu = shared().ok()?;
    let rate = gpu.h2d_rate(64 << 20).ok()?;
    Some((gpu.name().to_string(), rate))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsha_tree_parameters_name_the_engines() {
        let ops = |sets: &[TreeParams]| -> Vec<String> {
            parsha_ops(sets).into_iter().map(|(_, v)| v).collect()
        };
        assert_eq!(ops(&[]), ["gpu"]);
        let sets = tree_params::parse_sets(&["t=5,l=128".into(), "T=16".into()]).unwrap();
        assert_eq!(ops(&sets), ["gpu[T=5,l=128]", "gpu[T=16,l=256]"]);
        assert_eq!(
            parsha_ops(&sets)[0].0,
            GpuOp::Parsha {
                tree_height: 5,
                iv_bits: 128
            }
        );
    }

    #[test]
    fn without_a_gpu_there_are_no_engines_and_no_transfer_roof() {
        if shared().is_err() {
            assert!(engines(Algorithm::Sha256, &[]).is_empty());
            assert!(transfer_probe().is_none());
        }
        assert!(engines(Algorithm::Md5, &[]).is_empty());
    }
}
