//! `check --range`'s rules for `parhash.format` (`parhash_format::range`, the CLI's code):
//! `parse_range`, `parse_chunk_group` and `range_refusal`, and `verify_line_range`, one list line's range verified
//! with its file's outboard, the GIL released, answered in values that travel to and from
//! cluster workers (parhash.distributed's `check --range`).

use parhash_format::range::{self, ByteRange, Outboards};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::files::path_arg;
use crate::options;

/// `OFFSET:LENGTH` as `parhash check --range` reads it (sizes as `4MiB`, `1e6`):
/// `(offset, length)`. ValueError in the CLI's words.
#[pyfunction]
pub(crate) fn parse_range(text: &str) -> PyResult<(u64, u64)> {
    let range = range::parse_range(text).map_err(PyValueError::new_err)?;
    Ok((range.offset, range.len))
}

/// A chunk group's K as `parhash check --chunk-group` reads it (0 to 10). ValueError in the
/// CLI's words.
#[pyfunction]
pub(crate) fn parse_chunk_group(text: &str) -> PyResult<u8> {
    let group = range::parse_chunk_group(text).map_err(PyValueError::new_err)?;
    Ok(group.chunk_log())
}

/// Why `parhash check --range OFFSET:LENGTH` refuses the range (an empty one), else None.
#[pyfunction]
pub(crate) fn range_refusal(offset: u64, length: u64) -> Option<String> {
    ByteRange {
        offset,
        len: length,
    }
    .check_refusal()
}

/// The note `check --range` puts after a line's verdict: `bytes A-B`.
#[pyfunction]
pub(crate) fn range_note(offset: u64, length: u64) -> String {
    ByteRange {
        offset,
        len: length,
    }
    .describe()
}

/// One list line's range (file `name`, as bytes; `algorithm`; the `expected` digest) verified
/// against its BLAKE3 digest with the file's outboard (beside it, or under `outboard_dir`;
/// `chunk_group` K, else the first that exists), as `parhash check --range` does it, the GIL
/// released: `(digest, error, damage)`. `digest` is what `ListCheck.report` takes (the listed
/// one where the range verified); `error`, where there is no verdict on the data, is
/// `(errno or None, reason)`; `damage` is the message that says which chunks differ.
#[pyfunction]
#[pyo3(signature = (algorithm, expected, name, offset, length, outboard_dir = None, chunk_group = None))]
#[allow(clippy::too_many_arguments)] // Python's arguments
#[allow(clippy::type_complexity)] // a tuple Python unpacks
pub(crate) fn verify_line_range<'py>(
    py: Python<'py>,
    algorithm: &str,
    expected: &[u8],
    name: &[u8],
    offset: u64,
    length: u64,
    outboard_dir: Option<&Bound<'py, PyAny>>,
    chunk_group: Option<&str>,
) -> PyResult<(
    Option<Bound<'py, PyBytes>>,
    Option<(Option<i32>, String)>,
    Option<String>,
)> {
    let algorithm = options::algorithm(algorithm)?;
    let dir = outboard_dir.map(path_arg).transpose()?.unwrap_or_default();
    let chunk_group = chunk_group
        .map(range::parse_chunk_group)
        .transpose()
        .map_err(PyValueError::new_err)?;
    let range = ByteRange {
        offset,
        len: length,
    };
    let checked = py.detach(|| {
        let outboards = Outboards {
            dir: &dir,
            chunk_group,
        };
        range::verify_line(algorithm, expected, name, range, outboards)
    });
    let (digest, error) = match checked.outcome {
        Ok(digest) => (Some(PyBytes::new(py, digest.as_bytes())), None),
        Err(err) => {
            let text = parhash_format::error_text(&err);
            (None, Some((err.raw_os_error(), text)))
        }
    };
    Ok((digest, error, checked.damage))
}

/// Adds the functions to the extension module.
pub(crate) fn add(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(parse_range, module)?)?;
    module.add_function(wrap_pyfunction!(range_refusal, module)?)?;
    module.add_function(wrap_pyfunction!(parse_chunk_group, module)?)?;
    module.add_function(wrap_pyfunction!(range_note, module)?)?;
    module.add_function(wrap_pyfunction!(verify_line_range, module)?)?;
    Ok(())
}
