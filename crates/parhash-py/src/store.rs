//! The rules of `parhash.store` (`parhash_store::rules`, which `parhash store verify` uses too):
//! which checksum of an object is checked, what a file is hashed for, and the verdict. Python
//! keeps the requests (botocore) and the order of work; the decisions are made here, once.
//!
//! An object's facts come as `(etag, {algorithm: text}, checksum_type, server_side_encryption,
//! sse_customer_algorithm)`; a checksum as `(label, form, digest, parts, text)`, the fields of
//! `parhash.store.Expected` (form "etag" or an algorithm's name).

use std::collections::HashMap;

use parhash::multipart::Combine;
use parhash_store::catalog;
use parhash_store::difference::{self, Failed};
use parhash_store::rules::{self, Expected, Head, Wanted};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// A verdict's `(status, actual, part_size, reason)`.
type VerdictTuple = (&'static str, Option<String>, Option<u64>, Option<String>);

/// `parhash.store.Expected`'s fields.
type ExpectedTuple = (String, String, Vec<u8>, Option<u64>, String);

fn head(
    etag: &str,
    checksums: &HashMap<String, String>,
    checksum_type: Option<String>,
    server_side_encryption: Option<String>,
    sse_customer_algorithm: Option<String>,
) -> Head {
    Head {
        etag: etag.to_string(),
        checksums: (rules::ADDITIONAL.iter())
            .filter_map(|&(_, name)| Some((name, checksums.get(name)?.clone())))
            .collect(),
        checksum_type,
        server_side_encryption,
        sse_customer_algorithm,
    }
}

fn form(combine: Combine) -> String {
    match combine {
        Combine::S3Etag => "etag".into(),
        Combine::Composite(algorithm) => algorithm.name().to_string(),
    }
}

fn to_tuple(exp: Expected) -> ExpectedTuple {
    (
        exp.label,
        form(exp.combine),
        exp.digest,
        exp.parts,
        exp.text,
    )
}

fn from_tuple((label, form, digest, parts, text): ExpectedTuple) -> PyResult<Expected> {
    let combine = if form == "etag" {
        Combine::S3Etag
    } else {
        let algorithm = parhash::Algorithm::from_name(&form)
            .map_err(|err| PyValueError::new_err(err.to_string()))?;
        Combine::Composite(algorithm)
    };
    Ok(Expected {
        label,
        combine,
        digest,
        parts,
        text,
    })
}

/// The strongest checksum parhash can reproduce of an object, as a tuple of
/// `Expected`'s fields, or why there is none (a str).
#[pyfunction]
#[pyo3(signature = (etag, checksums, checksum_type=None, server_side_encryption=None, sse_customer_algorithm=None))]
pub(crate) fn store_expected<'py>(
    py: Python<'py>,
    etag: &str,
    checksums: HashMap<String, String>,
    checksum_type: Option<String>,
    server_side_encryption: Option<String>,
    sse_customer_algorithm: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let head = head(
        etag,
        &checksums,
        checksum_type,
        server_side_encryption,
        sse_customer_algorithm,
    );
    match rules::expected(&head) {
        Ok(exp) => {
            let (label, form, digest, parts, text) = to_tuple(exp);
            let digest = PyBytes::new(py, &digest);
            Ok((label, form, digest, parts, text)
                .into_pyobject(py)?
                .into_any())
        }
        Err(why) => Ok(why.into_pyobject(py)?.into_any()),
    }
}

/// Whether `store_expected` needs the checksum type HeadObject did not say (a multipart CRC32
/// or CRC32C without `-N`; GetObjectAttributes says it).
#[pyfunction]
#[pyo3(signature = (etag, checksums, checksum_type=None))]
pub(crate) fn store_needs_checksum_type(
    etag: &str,
    checksums: HashMap<String, String>,
    checksum_type: Option<String>,
) -> bool {
    head(etag, &checksums, checksum_type, None, None).needs_checksum_type()
}

fn wanted_list(wanted: &Wanted, form: &str) -> Vec<(String, Option<u64>)> {
    match wanted {
        Wanted::Whole(_) => vec![(form.to_string(), None)],
        Wanted::Parts(requests) => (requests.iter())
            .map(|r| (form.to_string(), Some(r.part_size())))
            .collect(),
    }
}

/// What `multipart_file` must compute of a file of `size` bytes for the checksum `exp`:
/// `[(form, None)]` for the whole digest, or `(form, part_size)` for every part size of
/// `min_part` or more that gives the object its part count; empty where none does.
#[pyfunction]
pub(crate) fn store_requests(
    exp: ExpectedTuple,
    size: u64,
    min_part: u64,
) -> PyResult<Vec<(String, Option<u64>)>> {
    let form = exp.1.clone();
    let exp = from_tuple(exp)?;
    Ok(rules::requests_for(&exp, size, min_part).map_or_else(Vec::new, |w| wanted_list(&w, &form)))
}

/// The verdict on `exp` from what a file gave (`results`: `multipart_file`'s `(digest, parts)`
/// for each of `store_requests`' requests): `(status, actual, part_size, reason)`; where `results`
/// is empty (no part size gives the part count), the verdict that says so.
#[pyfunction]
pub(crate) fn store_verdict(
    exp: ExpectedTuple,
    size: u64,
    min_part: u64,
    results: Vec<(Vec<u8>, u64)>,
) -> PyResult<VerdictTuple> {
    let exp = from_tuple(exp)?;
    let verdict = match rules::requests_for(&exp, size, min_part) {
        None => rules::no_part_size(&exp, "", "", size),
        Some(wanted) => {
            if results.len() != wanted.requests().len().max(wanted.whole().len()) {
                return Err(PyValueError::new_err("one result for each request"));
            }
            let found: Vec<(&[u8], u64)> = results.iter().map(|(d, p)| (&d[..], *p)).collect();
            rules::verdict(&exp, "", "", &wanted, &found)
        }
    };
    Ok((
        verdict.status,
        verdict.actual,
        verdict.part_size,
        verdict.reason,
    ))
}

/// The checksum line of an object named `name` (`parhash_store::catalog::line`):
/// `CRC64NVME (NAME) = BASE64`, `SHA256-COMPOSITE (NAME) = BASE64-N`, `ETAG (NAME) = HEX[-N]`.
#[pyfunction]
pub(crate) fn store_line<'py>(
    py: Python<'py>,
    exp: ExpectedTuple,
    name: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    Ok(PyBytes::new(py, &catalog::line(&from_tuple(exp)?, name)))
}

/// The JSON record of an object of a store's list (`parhash_store::catalog::Object::record`),
/// from what HeadObject said of it (the checksum type GetObjectAttributes gave where asked).
#[pyfunction]
#[pyo3(signature = (key, name, size, etag, checksums, checksum_type=None, server_side_encryption=None, sse_customer_algorithm=None))]
#[allow(clippy::too_many_arguments)] // HeadObject's fields, as `store_expected` takes them
pub(crate) fn store_object_record(
    key: &str,
    name: &str,
    size: u64,
    etag: &str,
    checksums: HashMap<String, String>,
    checksum_type: Option<String>,
    server_side_encryption: Option<String>,
    sse_customer_algorithm: Option<String>,
) -> String {
    let head = head(
        etag,
        &checksums,
        checksum_type,
        server_side_encryption,
        sse_customer_algorithm,
    );
    catalog::Object {
        key: key.to_string(),
        name: name.to_string(),
        size,
        expected: rules::expected(&head),
        head,
    }
    .record()
}

/// `parhash.store.Difference`'s fields.
type DifferenceTuple = (
    Option<u64>,
    Vec<(u64, u64)>,
    Option<u64>,
    Option<u64>,
    Vec<u64>,
);

/// A Python file-like object's `read(n)` as a reader; the exception it raised, where one did,
/// is kept to be raised again.
struct PyRead<'py> {
    object: Bound<'py, PyAny>,
    raised: Option<PyErr>,
}

impl std::io::Read for PyRead<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let got = (self.object.call_method1("read", (buf.len(),)))
            .and_then(|piece| Ok(piece.cast_into::<PyBytes>()?));
        match got {
            Ok(piece) => {
                let piece = piece.as_bytes();
                let n = piece.len().min(buf.len());
                buf[..n].copy_from_slice(&piece[..n]);
                Ok(n)
            }
            Err(err) => {
                self.raised = Some(err);
                Err(std::io::Error::other("the object's read raised"))
            }
        }
    }
}

/// Where `body` (the object's bytes: a file-like object, such as botocore's streaming body)
/// and the file at `path` differ (`parhash_store::difference::compare`), `parts` the part size
/// and count of a multipart object: `Difference`'s fields. OSError (its strerror in parhash's
/// words) where the file cannot be read; what `body.read` raised, raised again.
#[pyfunction]
#[pyo3(signature = (body, path, parts=None))]
pub(crate) fn store_difference(
    body: Bound<'_, PyAny>,
    path: std::path::PathBuf,
    parts: Option<(u64, u64)>,
) -> PyResult<DifferenceTuple> {
    let local_error = |err: std::io::Error| {
        let text = parhash_format::error_text(&err);
        pyo3::exceptions::PyOSError::new_err((err.raw_os_error().unwrap_or(0), text))
    };
    let mut object = PyRead {
        object: body,
        raised: None,
    };
    let mut local = std::fs::File::open(&path).map_err(local_error)?;
    match difference::compare(&mut object, &mut local, parts) {
        Ok(found) => Ok((
            found.first,
            found.ranges,
            found.part_size,
            found.part_count,
            found.parts,
        )),
        Err(Failed::Local(err)) => Err(local_error(err)),
        Err(Failed::Object(err)) => Err((object.raised.take())
            .unwrap_or_else(|| pyo3::exceptions::PyOSError::new_err(err.to_string()))),
    }
}

/// `Difference.text()`: what a download found, in words (`parhash_store::difference`).
#[pyfunction]
pub(crate) fn store_difference_text(fields: DifferenceTuple) -> String {
    let (first, ranges, part_size, part_count, parts) = fields;
    difference::Difference {
        first,
        ranges,
        part_size,
        part_count,
        parts,
    }
    .text()
}

/// HeadObject's checksum fields, strongest first, with parhash's name for each.
pub(crate) fn add(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("store_checksum_fields", rules::ADDITIONAL.to_vec())?;
    module.add_function(wrap_pyfunction!(store_expected, module)?)?;
    module.add_function(wrap_pyfunction!(store_needs_checksum_type, module)?)?;
    module.add_function(wrap_pyfunction!(store_requests, module)?)?;
    module.add_function(wrap_pyfunction!(store_verdict, module)?)?;
    module.add_function(wrap_pyfunction!(store_line, module)?)?;
    module.add_function(wrap_pyfunction!(store_object_record, module)?)?;
    module.add_function(wrap_pyfunction!(store_difference, module)?)?;
    module.add_function(wrap_pyfunction!(store_difference_text, module)?)?;
    module.add("store_chunk", difference::CHUNK)?;
    module.add("store_exact_ranges", difference::EXACT_RANGES)?;
    module.add("store_coarse", difference::COARSE)?;
    module.add("store_shown_ranges", difference::SHOWN_RANGES)?;
    Ok(())
}
