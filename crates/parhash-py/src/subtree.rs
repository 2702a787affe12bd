//! BLAKE3's subtrees from Python (`parhash::blake3`, after the `blake3` crate's `hazmat`):
//! `blake3_subtree(data, offset)` (a run of bytes' chaining value at its offset in the
//! message, the GIL released while it is hashed), `blake3_merge` and `blake3_root` (two
//! siblings' parent and the message's digest), `blake3_left_subtree_len` and
//! `blake3_max_subtree_len` (where BLAKE3's tree splits). A subtree that is not one of the
//! tree's is a ValueError, in the library's words.

use parhash::blake3::{self, ChainingValue};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffers::{Data, RELEASE_GIL_AT};
use crate::error::Error;

/// A chaining value as Python gives it: 32 bytes.
fn chaining_value(name: &str, value: &[u8]) -> PyResult<ChainingValue> {
    <ChainingValue>::try_from(value).map_err(|_| {
        PyValueError::new_err(format!(
            "{name} is a BLAKE3 chaining value of 32 bytes, not {}",
            value.len()
        ))
    })
}

/// The chaining value (32 bytes, not a digest: see `blake3_root`) of the subtree of `data`
/// (any buffer) starting at byte `offset` of the message. ValueError where it is not one of
/// BLAKE3's subtrees: an offset that is not a multiple of 1024, no bytes, or more than
/// `blake3_max_subtree_len(offset)`.
#[pyfunction]
pub(crate) fn blake3_subtree<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    offset: u64,
) -> PyResult<Bound<'py, PyBytes>> {
    let bytes = Data::new(data)?.into_bytes()?;
    let bytes = bytes.as_bytes();
    let value = if bytes.len() < RELEASE_GIL_AT {
        blake3::subtree(offset, bytes)
    } else {
        py.detach(|| blake3::subtree(offset, bytes))
    }
    .map_err(Error::value)?;
    Ok(PyBytes::new(py, &value))
}

/// The chaining value of the parent of two sibling subtrees' chaining values (not the root:
/// see `blake3_root`).
#[pyfunction]
pub(crate) fn blake3_merge<'py>(
    py: Python<'py>,
    left: &[u8],
    right: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let merged = blake3::merge(
        &chaining_value("left", left)?,
        &chaining_value("right", right)?,
    );
    Ok(PyBytes::new(py, &merged))
}

/// The message's BLAKE3 digest (32 bytes) from the chaining values of its top node's two
/// children: the left subtree of `blake3_left_subtree_len(len)` bytes and the right one.
#[pyfunction]
pub(crate) fn blake3_root<'py>(
    py: Python<'py>,
    left: &[u8],
    right: &[u8],
) -> PyResult<Bound<'py, PyBytes>> {
    let digest = blake3::root(
        &chaining_value("left", left)?,
        &chaining_value("right", right)?,
    );
    Ok(PyBytes::new(py, &digest))
}

/// Bytes of the left child of a node over `length` bytes: the largest power-of-two number of
/// 1 KiB chunks below `length`. None for 1024 bytes or less (a leaf, hashed whole).
#[pyfunction]
pub(crate) fn blake3_left_subtree_len(length: u64) -> Option<u64> {
    blake3::left_subtree_len(length)
}

/// The most bytes a subtree starting at `offset` holds (the largest power-of-two number of
/// chunks that divides it); None at offset 0, where any length is one subtree. ValueError for
/// an offset that is not a multiple of 1024.
#[pyfunction]
pub(crate) fn blake3_max_subtree_len(offset: u64) -> PyResult<Option<u64>> {
    Ok(blake3::max_subtree_len(offset).map_err(Error::value)?)
}

/// Adds the functions to the extension module.
pub(crate) fn add(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(blake3_subtree, module)?)?;
    module.add_function(wrap_pyfunction!(blake3_merge, module)?)?;
    module.add_function(wrap_pyfunction!(blake3_root, module)?)?;
    module.add_function(wrap_pyfunction!(blake3_left_subtree_len, module)?)?;
    module.add_function(wrap_pyfunction!(blake3_max_subtree_len, module)?)?;
    Ok(())
}
