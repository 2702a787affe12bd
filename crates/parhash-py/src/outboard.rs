//! BLAKE3 outboards from Python: `outboard_file(path, chunk_group)` (the digest and bao's
//! outboard of a file, in memory or written atomically) and `verify_range(path, outboard,
//! root, offset, length)` (a byte range checked reading only it), with the GIL released
//! (`parhash::outboard`, the same code as `parhash sum --outboard` and `check --range`).

use std::fs::File;
use std::io::{self, Cursor};
use std::path::PathBuf;

use parhash::outboard::{encode_file, verify_range_grouped, ChunkGroup, RangeError};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::buffers::Data;
use crate::error::Error;
use crate::files::path_arg;

fn chunk_group(k: i64) -> PyResult<ChunkGroup> {
    u8::try_from(k)
        .ok()
        .and_then(ChunkGroup::new)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "chunk_group {k} is none: 0 (bao's 1 KiB chunks) to {} (1 MiB); 4 is iroh's 16 KiB",
                ChunkGroup::MAX_LOG
            ))
        })
}

/// The BLAKE3 digest of the file at `path` and its outboard (bao's format; leaves of
/// 2^`chunk_group` KiB), from one read with the GIL released: `(digest, outboard)` in memory,
/// or, with `out` (a path), `(digest, None)` with the outboard written to `out` through
/// `OUT.tmp`, renamed once complete.
#[pyfunction]
#[pyo3(signature = (path, chunk_group = 0, *, out = None))]
pub(crate) fn outboard_file<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    chunk_group: i64,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyBytes>, Option<Bound<'py, PyBytes>>)> {
    let path = path_arg(path)?;
    let group = self::chunk_group(chunk_group)?;
    let Some(out) = out else {
        let (root, outboard) = py
            .detach(|| {
                let mut sink = Cursor::new(Vec::new());
                let root = encode_file(&path, group, &mut sink)?;
                Ok::<_, io::Error>((root, sink.into_inner()))
            })
            .map_err(Error::io(&path))?;
        return Ok((PyBytes::new(py, &root), Some(PyBytes::new(py, &outboard))));
    };
    let out = path_arg(out)?;
    let tmp = parhash_format::list_file::temporary(&out);
    let root = py
        .detach(|| {
            let written = File::create(&tmp).and_then(|mut sink| {
                let root = encode_file(&path, group, &mut sink)?;
                sink.sync_all()?;
                Ok(root)
            });
            match written {
                Ok(root) => parhash_format::list_file::replace(&tmp, &out).map(|()| root),
                Err(err) => {
                    let _ = std::fs::remove_file(&tmp);
                    Err(err)
                }
            }
        })
        .map_err(Error::io(&path))?;
    Ok((PyBytes::new(py, &root), None))
}

/// The digest a range is verified against: 32 bytes, or their 64 hexadecimal digits.
fn root_arg(root: &Bound<'_, PyAny>) -> PyResult<[u8; 32]> {
    let bytes = if let Ok(text) = root.cast::<PyString>() {
        // bytes.fromhex: Python's own reading of hex (whitespace allowed, a clear error).
        let fromhex = root
            .py()
            .get_type::<PyBytes>()
            .call_method1("fromhex", (text,))?;
        fromhex.cast_into::<PyBytes>()?
    } else {
        Data::new(root)?.into_bytes()?
    };
    let bytes = bytes.as_bytes().to_vec();
    bytes.try_into().map_err(|bytes: Vec<u8>| {
        PyValueError::new_err(format!(
            "root must be BLAKE3's 32-byte digest, not {} bytes",
            bytes.len()
        ))
    })
}

/// Where the outboard is: its bytes (bytes, bytearray, memoryview) or its path (str or
/// os.PathLike).
enum OutboardArg {
    Bytes(Vec<u8>),
    Path(PathBuf),
}

fn outboard_arg(obj: &Bound<'_, PyAny>) -> PyResult<OutboardArg> {
    if obj.cast::<PyString>().is_ok() || obj.hasattr("__fspath__")? {
        return Ok(OutboardArg::Path(path_arg(obj)?));
    }
    let bytes = Data::new(obj).map_err(|_| {
        PyTypeError::new_err("outboard must be its bytes, or its path as str or os.PathLike")
    })?;
    Ok(OutboardArg::Bytes(bytes.into_bytes()?.as_bytes().to_vec()))
}

/// Whether `length` bytes of the file at `path` from byte `offset` are those BLAKE3's
/// digest `root` was made from, checked with the file's outboard (its bytes or its path;
/// leaves of 2^`chunk_group` KiB, as written), reading only the range and the outboard's
/// nodes above it, with the GIL released. True: they are; False: they differ (or the file's
/// length does). ValueError for an empty range, one past the end and a damaged outboard (no
/// verdict on the data); OSError where the file or the outboard cannot be read.
#[pyfunction]
#[pyo3(signature = (path, outboard, root, offset, length, *, chunk_group = 0))]
pub(crate) fn verify_range(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    outboard: &Bound<'_, PyAny>,
    root: &Bound<'_, PyAny>,
    offset: u64,
    length: u64,
    chunk_group: i64,
) -> PyResult<bool> {
    let path = path_arg(path)?;
    let outboard = outboard_arg(outboard)?;
    let root = root_arg(root)?;
    let group = self::chunk_group(chunk_group)?;
    let result = py.detach(|| {
        let data = File::open(&path).map_err(|err| (err, path.clone()))?;
        let verified = match &outboard {
            OutboardArg::Bytes(bytes) => {
                verify_range_grouped(&root, group, Cursor::new(bytes), data, offset, length)
            }
            OutboardArg::Path(at) => {
                let file = File::open(at).map_err(|err| (err, at.clone()))?;
                verify_range_grouped(&root, group, file, data, offset, length)
            }
        };
        Ok::<_, (io::Error, PathBuf)>(verified)
    });
    match result {
        Err((err, at)) => Err(Error::io(&at)(err).into()),
        Ok(Ok(())) => Ok(true),
        Ok(Err(err)) if err.is_data_damage() => Ok(false),
        Ok(Err(RangeError::Io(err))) => Err(Error::io(&path)(err).into()),
        Ok(Err(err)) if err.is_outboard_damage() => Err(PyValueError::new_err(format!(
            "{err}: the file's range was not checked"
        ))),
        Ok(Err(err)) => Err(PyValueError::new_err(err.to_string())),
    }
}
