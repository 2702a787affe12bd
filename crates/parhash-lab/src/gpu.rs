//! The GPU back-end (`parhash-cuda`) in the lab: engines registered in
//! [`crate::engine::EXTRA_ENGINES`] and the host-to-device copy probe registered in
//! [`crate::roofs::TRANSFER_PROBES`]. On a machine without a usable GPU both offer nothing, so
//! every sweep and report is what it was without them.
//!
//! Engines (variant names): `gpu` for sha256 (one message per GPU thread) and parsha256 (the
//! tree on the GPU; `--tree t=13,l=256` sets T and the IV bits, default parhash's T = 13 (seed
//! study 4's) and l = 256); `gpu-packed` and `gpu-interleaved` for sha3-256 and keccak256 (the two host layouts).
//! The lab times them end to end (copies included); kernel-only times come from the `gpu`
//! preset, which reads the GPU's own event timers.

use std::sync::{Arc, OnceLock};

use parhash::Algorithm;
use parhash_cuda::{Gpu, GpuError, KeccakKind, KeccakLayout};

use crate::engine::{Engine, EngineRef, Provider, StreamHasher};

/// PARSHA-256's tree height when none is given: parhash's default, seed study 4's T = 13.
pub const DEFAULT_TREE_HEIGHT: u32 = parhash::tree::parsha256::DEFAULT_TREE_HEIGHT;

/// PARSHA-256's IV length when none is given: parhash's default.
pub const DEFAULT_IV_BITS: u32 = parhash::tree::parsha256::DEFAULT_IV_BITS;

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
            } => messages
                .iter()
                .map(|m| gpu.parsha256(m, tree_height, iv_bits).map(|(_, z)| z))
                .collect(),
        }
    }
}

struct GpuEngine {
    algorithm: Algorithm,
    op: GpuOp,
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
    fn provider(&self) -> Provider {
        Provider::Parhash
    }
    fn variant(&self) -> String {
        self.op.variant().to_string()
    }
    fn on_accelerator(&self) -> bool {
        true
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

/// PARSHA-256's `(T, l)` from `--tree` sets such as `t=13,l=128` (defaults: parhash's).
pub fn parsha_params(tree: &[String]) -> Vec<(u32, u32)> {
    let parse = |set: &str| {
        let mut p = (DEFAULT_TREE_HEIGHT, DEFAULT_IV_BITS);
        for kv in set.split(',') {
            match kv.trim().split_once('=') {
                Some(("t" | "T", v)) => p.0 = v.trim().parse().unwrap_or(p.0),
                Some(("l" | "iv", v)) => p.1 = v.trim().parse().unwrap_or(p.1),
                _ => {}
            }
        }
        p
    };
    if tree.is_empty() {
        vec![(DEFAULT_TREE_HEIGHT, DEFAULT_IV_BITS)]
    } else {
        tree.iter().map(|s| parse(s)).collect()
    }
}

/// The GPU engines of `algorithm` (none without a GPU) for [`crate::engine::EXTRA_ENGINES`].
pub fn engines(algorithm: Algorithm, tree: &[String]) -> Vec<EngineRef> {
    let ops: Vec<GpuOp> = match algorithm.name() {
        "sha256" => vec![GpuOp::Sha256],
        "sha3-256" | "keccak256" => {
            let kind = if algorithm.name() == "sha3-256" {
                KeccakKind::Sha3_256
            } else {
                KeccakKind::Keccak256
            };
            vec![
                GpuOp::Keccak(kind, KeccakLayout::Packed),
                GpuOp::Keccak(kind, KeccakLayout::Interleaved),
            ]
        }
        "parsha256" => parsha_params(tree)
            .into_iter()
            .map(|(tree_height, iv_bits)| GpuOp::Parsha {
                tree_height,
                iv_bits,
            })
            .collect(),
        _ => return Vec::new(),
    };
    let Ok(gpu) = shared() else {
        return Vec::new();
    };
    ops.into_iter()
        .map(|op| {
            Arc::new(GpuEngine {
                algorithm,
                op,
                gpu: gpu.clone(),
            }) as EngineRef
        })
        .collect()
}

/// The host-to-device copy rate from pinned memory (64 MiB copies), for
/// [`crate::roofs::TRANSFER_PROBES`].
pub fn transfer_probe() -> Option<(String, f64)> {
    let gpu = shared().ok()?;
    let rate = gpu.h2d_rate(64 << 20).ok()?;
    Some((gpu.name().to_string(), rate))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parsha_tree_parameters() {
        assert_eq!(parsha_params(&[]), vec![(13, 256)]);
        assert_eq!(
            parsha_params(&["t=5,l=128".into(), "T=16".into()]),
            vec![(5, 128), (16, 256)]
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
