//! Reading Python buffers (bytes, bytearray, memoryview, mmap, array, numpy...).
//!
//! The rule (docs/python.md, "Buffers and the GIL"):
//! - `bytes` is immutable: it is hashed in place, with the GIL released from
//!   [`RELEASE_GIL_AT`] bytes on.
//! - Every other buffer may be changed by another thread while the GIL is released, and a
//!   Rust `&[u8]` that changes under it is undefined behaviour (a torn read at best). So it is
//!   copied, a bounded chunk at a time and under the GIL, into a private `bytes`, and that copy
//!   is hashed with the GIL released. Memory stays bounded (one chunk), a concurrent writer
//!   gives a digest of some mix of old and new contents but never undefined behaviour, and the
//!   copy costs far less than the hashing.
//!
//! This also keeps reading buffers free of `unsafe` (the extension's only `unsafe` is ffi.rs's,
//! marking classes immutable): the abi3 (stable ABI) build for Python 3.9 has no
//! buffer-protocol API before 3.11, and `memoryview(...).tobytes()` copies through the stable
//! API.

use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyMemoryView, PySlice, PyString};

/// Inputs this large are hashed with the GIL released (hashlib's threshold too).
pub(crate) const RELEASE_GIL_AT: usize = 2048;

/// Bytes of a mutable buffer copied per step: large enough that a tree mode splits one step
/// over all cores, small enough to keep memory bounded.
pub(crate) const COPY_CHUNK: usize = 4 << 20;

/// One argument that holds bytes to hash.
pub(crate) enum Data<'py> {
    /// Immutable: hashed in place.
    Bytes(Bound<'py, PyBytes>),
    /// Anything else with the buffer protocol, as a flat memoryview of bytes: copied in chunks.
    View { view: Bound<'py, PyAny>, len: usize },
}

impl<'py> Data<'py> {
    /// The bytes of `obj`, or hashlib's `TypeError` for a `str` or an object without buffer.
    pub fn new(obj: &Bound<'py, PyAny>) -> PyResult<Data<'py>> {
        if let Ok(bytes) = obj.cast::<PyBytes>() {
            return Ok(Data::Bytes(bytes.clone()));
        }
        if obj.is_instance_of::<PyString>() {
            return Err(PyTypeError::new_err(
                "Strings must be encoded before hashing",
            ));
        }
        let view = PyMemoryView::from(obj).map_err(|_| {
            PyTypeError::new_err(format!(
                "object supporting the buffer API required, not '{}'",
                obj.get_type()
                    .name()
                    .map_or_else(|_| "?".to_string(), |n| n.to_string())
            ))
        })?;
        // A flat view of bytes whatever the item type and shape (numpy arrays, array.array);
        // a non-contiguous buffer is refused, with hashlib's BufferError.
        if !view.getattr("c_contiguous")?.is_truthy()? {
            return Err(PyBufferError::new_err(
                "object supporting the buffer API is not C-contiguous",
            ));
        }
        let view = view.call_method1("cast", ("B",))?;
        let len = view.len()?;
        Ok(Data::View { view, len })
    }

    /// Calls `f` with the bytes in order: a `bytes` object whole, any other buffer as copies of
    /// at most `chunk` bytes.
    pub fn for_each_piece(
        &self,
        chunk: usize,
        mut f: impl FnMut(&Bound<'py, PyBytes>) -> PyResult<()>,
    ) -> PyResult<()> {
        match self {
            Data::Bytes(bytes) => f(bytes),
            Data::View { view, len } => {
                let mut at = 0;
                while at < *len {
                    let end = (at + chunk).min(*len);
                    f(&copy_range(view, at, end)?)?;
                    at = end;
                }
                Ok(())
            }
        }
    }

    /// The bytes as one `bytes` object: this one, or a copy of any other buffer.
    pub fn into_bytes(self) -> PyResult<Bound<'py, PyBytes>> {
        match self {
            Data::Bytes(bytes) => Ok(bytes),
            Data::View { view, len } => copy_range(&view, 0, len),
        }
    }
}

/// `view[start:end]` copied into a new `bytes`.
fn copy_range<'py>(
    view: &Bound<'py, PyAny>,
    start: usize,
    end: usize,
) -> PyResult<Bound<'py, PyBytes>> {
    let py = view.py();
    let slice = PySlice::new(py, start as isize, end as isize, 1);
    let part = view.get_item(slice)?;
    Ok(part.call_method0("tobytes")?.cast_into::<PyBytes>()?)
}
