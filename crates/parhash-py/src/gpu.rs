//! The GPU from Python (`device="gpu"` of `hash_many` and `hash_file`, and `gpu_device`): the
//! CUDA back-end's host pipeline (`parhash-cuda`), opened once per process on first use. The
//! driver and NVRTC are loaded at run time, so the wheel is the same with or without CUDA;
//! without a usable GPU each call raises `RuntimeError("no usable CUDA GPU: <reason>")`.

use std::path::Path;
use std::sync::OnceLock;

use parhash::{Algorithm, TreeParams};
use parhash_cuda::{Gpu, GpuError, SourceError};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::error::Error;

/// Where `device=` sends the work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Device {
    Cpu,
    Gpu,
}

/// `device=` read: "cpu" or "gpu".
pub(crate) fn device(name: &str) -> PyResult<Device> {
    match name {
        "cpu" => Ok(Device::Cpu),
        "gpu" => Ok(Device::Gpu),
        other => Err(PyValueError::new_err(format!(
            "device must be 'cpu' or 'gpu', not {other:?}"
        ))),
    }
}

/// The process's GPU, opened once (the error stays: a machine without one does not grow one).
fn shared() -> Result<&'static Gpu, GpuError> {
    static GPU: OnceLock<Result<Gpu, GpuError>> = OnceLock::new();
    GPU.get_or_init(Gpu::open).as_ref().map_err(Clone::clone)
}

/// A GPU error as Python's exception: no GPU or a driver failure is `RuntimeError`, a request the
/// GPU refuses (an algorithm it does not run, parameters out of range) `ValueError`.
fn gpu_error(err: GpuError) -> PyErr {
    match err {
        GpuError::InvalidInput(_) | GpuError::Parsha(_) => PyValueError::new_err(err.to_string()),
        other => PyRuntimeError::new_err(other.to_string()),
    }
}

/// The name of the GPU `device="gpu"` runs on, as its driver reports it; `RuntimeError` with the
/// reason where there is none.
#[pyfunction]
pub(crate) fn gpu_device() -> PyResult<String> {
    shared().map(|g| g.name().to_string()).map_err(gpu_error)
}

/// `hash_many(..., device="gpu")`: one round of messages on the GPU, with the GIL released.
pub(crate) fn hash_many(
    py: Python<'_>,
    algorithm: Algorithm,
    messages: &[&[u8]],
) -> PyResult<Vec<[u8; 32]>> {
    Gpu::check_algorithm(algorithm).map_err(gpu_error)?;
    let gpu = shared().map_err(gpu_error)?;
    let tree = TreeParams::default();
    py.detach(|| gpu.hash_many(algorithm, messages, tree.tree_height(), tree.iv_bits()))
        .map_err(gpu_error)
}

/// `hash_file(path, "parsha256", device="gpu")`: the file read once into pinned memory, under the
/// CPU's rules for a file that changes (`parhash.FileChanged`).
pub(crate) fn hash_file(
    py: Python<'_>,
    algorithm: Algorithm,
    tree: TreeParams,
    path: &Path,
) -> PyResult<[u8; 32]> {
    if algorithm != Algorithm::Parsha256 {
        return Err(PyValueError::new_err(format!(
            "hash_file(device=\"gpu\") hashes parsha256, not {} (one GPU thread per file is \
             slower than a CPU core: hash_many(..., device=\"gpu\") batches many messages)",
            algorithm.name()
        )));
    }
    let gpu = shared().map_err(gpu_error)?;
    match py.detach(|| gpu.parsha256_file(path, tree.tree_height(), tree.iv_bits())) {
        Ok(run) => Ok(run.digest),
        Err(SourceError::Read(err)) => Err(Error::io(path)(err).into()),
        Err(SourceError::Gpu(err)) => Err(gpu_error(err)),
    }
}
