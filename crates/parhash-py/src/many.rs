//! `hash_many`: many messages through the batch engine (SIMD lanes and all cores).

use parhash::batch::{hash_many_with, BatchOptions};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

use crate::buffers::Data;
use crate::{gpu, options};

/// Messages per round: the GIL is released for each round, and copies of mutable buffers live
/// only for their round.
const ROUND_MESSAGES: usize = 1 << 16;
/// Bytes per round (at least one message, whatever its size).
const ROUND_BYTES: usize = 256 << 20;

/// The digests of every buffer of `buffers` (any iterable of bytes-like objects), in order,
/// hashed side by side in SIMD lanes and on `threads` threads (None or 0 = all cores), or with
/// `device="gpu"` on the GPU (sha256, sha3_256, keccak256: one GPU thread per message;
/// parsha256: each message as a tree). `bytes` are hashed in place; other buffers are copied
/// first (docs/python.md, "Buffers and the GIL").
#[pyfunction]
#[pyo3(signature = (buffers, name, threads = None, *, device = "cpu"))]
pub(crate) fn hash_many<'py>(
    py: Python<'py>,
    buffers: &Bound<'py, PyAny>,
    name: &str,
    threads: Option<i64>,
    device: &str,
) -> PyResult<Bound<'py, PyList>> {
    let alg = options::algorithm(name)?;
    let opts = BatchOptions {
        threads: options::threads(threads)?,
        kernel: None,
    };
    let device = gpu::device(device)?;
    if device == gpu::Device::Gpu {
        // Refused before any buffer is read: an algorithm the GPU does not run, or no GPU.
        gpu::hash_many(py, alg, &[])?;
    }
    let out = PyList::empty(py);
    let mut round: Vec<Bound<'py, PyBytes>> = Vec::new();
    let mut round_bytes = 0;
    let flush = |round: &mut Vec<Bound<'py, PyBytes>>| -> PyResult<()> {
        let messages: Vec<&[u8]> = round.iter().map(|b| b.as_bytes()).collect();
        if device == gpu::Device::Gpu {
            for digest in gpu::hash_many(py, alg, &messages)? {
                out.append(PyBytes::new(py, &digest))?;
            }
        } else {
            for digest in py.detach(|| hash_many_with(alg, &messages, opts)) {
                out.append(PyBytes::new(py, digest.as_bytes()))?;
            }
        }
        round.clear();
        Ok(())
    };
    for item in buffers.try_iter()? {
        let bytes = Data::new(&item?)?.into_bytes()?;
        round_bytes += bytes.as_bytes().len();
        round.push(bytes);
        if round.len() >= ROUND_MESSAGES || round_bytes >= ROUND_BYTES {
            flush(&mut round)?;
            round_bytes = 0;
        }
    }
    if !round.is_empty() {
        flush(&mut round)?;
    }
    Ok(out)
}
