//! `multipart_file(path, requests)`: the checksums object stores give objects uploaded in
//! parts (S3's ETag, composite checksums) and whole-object digests, every request from one
//! read of the file with the GIL released (`parhash::multipart`); `candidate_part_sizes`;
//! `multipart_value`, their text as S3 shows it. (`hash_file`/`hash_files` name the same
//! forms as strings: the `forms` module.)

use parhash::multipart::{self, Combine, Request};
use parhash::Algorithm;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::path::Path;

use crate::error::Error;
use crate::files::path_arg;
use crate::options;

/// One request as Python names it: `("etag", size)` for S3's ETag in parts of `size` bytes,
/// `(alg, size)` for a composite checksum, `(form, None)` for the digest of the whole file
/// (MD5 for "etag": a one-part upload's ETag).
enum Wanted {
    Parts(Request),
    Whole(Algorithm),
}

/// The form Python names: "etag" is S3's ETag, any other name an algorithm's checksum.
fn combine(form: &str) -> PyResult<Combine> {
    Ok(if form.eq_ignore_ascii_case("etag") {
        Combine::S3Etag
    } else {
        Combine::Composite(options::algorithm(form)?)
    })
}

fn wanted(form: &str, part_size: Option<i64>) -> PyResult<Wanted> {
    let combine = combine(form)?;
    let Some(size) = part_size else {
        return Ok(Wanted::Whole(combine.algorithm()));
    };
    let size = u64::try_from(size)
        .map_err(|_| PyValueError::new_err(format!("part size {size} is negative")))?;
    Ok(Wanted::Parts(
        Request::new(combine, size).map_err(Error::value)?,
    ))
}

/// Requests as Python gives them: `(form, part_size or None)` each.
type Requests = Vec<(String, Option<i64>)>;

/// A file's requests split by kind: the part forms, the whole-file digests, and where each
/// request's answer is (true: index in the part forms, false: in the digests).
struct Plan {
    parts: Vec<Request>,
    whole: Vec<Algorithm>,
    order: Vec<(bool, usize)>,
}

impl Plan {
    fn new(requests: &[(String, Option<i64>)]) -> PyResult<Plan> {
        let mut plan = Plan {
            parts: Vec::new(),
            whole: Vec::new(),
            order: Vec::with_capacity(requests.len()),
        };
        for (form, size) in requests {
            match wanted(form, *size)? {
                Wanted::Parts(request) => {
                    plan.order.push((true, plan.parts.len()));
                    plan.parts.push(request);
                }
                Wanted::Whole(alg) => {
                    plan.order.push((false, plan.whole.len()));
                    plan.whole.push(alg);
                }
            }
        }
        Ok(plan)
    }

    /// Every request's answer from one read of the file at `path`.
    fn compute(&self, path: &Path) -> Result<Answers, Error> {
        let file = std::fs::File::open(path).map_err(Error::io(path))?;
        multipart::compute_file_whole(&file, &self.parts, &self.whole).map_err(Error::io(path))
    }

    /// `(digest, parts)` for each request, in order.
    fn tuples<'py>(
        &self,
        py: Python<'py>,
        answers: &Answers,
    ) -> PyResult<Vec<Bound<'py, PyTuple>>> {
        let (combined, digests) = answers;
        (self.order.iter())
            .map(|&(in_parts, index)| {
                let (digest, count) = if in_parts {
                    (combined[index].digest.as_bytes(), combined[index].parts)
                } else {
                    (digests[index].as_bytes(), 1)
                };
                PyTuple::new(
                    py,
                    [
                        PyBytes::new(py, digest).into_any(),
                        count.into_pyobject(py)?.into_any(),
                    ],
                )
            })
            .collect()
    }
}

/// What `compute_file_whole` gives: the part forms' results and the whole-file digests.
type Answers = (Vec<multipart::Multipart>, Vec<parhash::Output>);

/// For each `(form, part_size)` of `requests`, `(digest, parts)`: the raw combined digest and
/// the number of parts (1 for a whole-file digest), in order, from one read of the file at
/// `path` (str, bytes or os.PathLike) with the GIL released. A file that cannot be read raises
/// OSError, one that changes while read `parhash.FileChanged`.
#[pyfunction]
pub(crate) fn multipart_file<'py>(
    py: Python<'py>,
    path: &Bound<'py, PyAny>,
    requests: Requests,
) -> PyResult<Vec<Bound<'py, PyTuple>>> {
    let path = path_arg(path)?;
    let plan = Plan::new(&requests)?;
    let answers = py.detach(|| plan.compute(&path))?;
    plan.tuples(py, &answers)
}

/// [`multipart_file`] for many files at once: `items` is a list of `(path, requests)` or
/// `(path, requests, size)`; the files are read on every core with the GIL released, and the
/// parts and whole digests of small and middle-sized files are hashed side by side in SIMD
/// lanes across files (`parhash::multipart::compute_files`). Each item's answer comes back in
/// order: its list of `(digest, parts)`, or the exception that reading it raised (OSError,
/// `parhash.FileChanged`, also for a file not of the `size` given, which is not read), not
/// raised. Small files one per call cost a thread switch and a GIL hand-back each, more than
/// their hashing, and a `stat` of each in Python as much again on a busy interpreter
/// (`parhash.store`'s verification of many objects).
#[pyfunction]
pub(crate) fn multipart_files<'py>(
    py: Python<'py>,
    items: Vec<Bound<'py, PyAny>>,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let mut plans = Vec::with_capacity(items.len());
    for item in &items {
        let (path, requests, size) = match item.extract::<(Bound<'py, PyAny>, Requests)>() {
            Ok((path, requests)) => (path, requests, None),
            Err(_) => item.extract::<(Bound<'py, PyAny>, Requests, Option<u64>)>()?,
        };
        plans.push((path_arg(&path)?, Plan::new(&requests)?, size));
    }
    let answers = py.detach(|| {
        let jobs: Vec<_> = (plans.iter())
            .map(|(path, plan, len)| multipart::FileJob {
                path,
                requests: &plan.parts,
                whole: &plan.whole,
                len: *len,
            })
            .collect();
        multipart::compute_files(&jobs, parhash::Threads::default())
    });
    (plans.iter().zip(answers))
        .map(|((path, plan, _), answer)| match answer {
            Ok(answers) => Ok(PyList::new(py, plan.tuples(py, &answers)?)?.into_any()),
            Err(err) => {
                let err = Error::io(path)(err);
                Ok(PyErr::from(err).into_value(py).into_bound(py).into_any())
            }
        })
        .collect()
}

/// `digest` as S3 shows it (`parhash_format::multipart::value`): hex for form "etag", base64
/// for an algorithm's checksum (additional checksums are big-endian, as `multipart_file` gives
/// them), then `-parts` where `parts` is given (a multipart ETag, a composite checksum).
#[pyfunction]
#[pyo3(signature = (form, digest, parts=None))]
pub(crate) fn multipart_value(form: &str, digest: &[u8], parts: Option<u64>) -> PyResult<String> {
    Ok(parhash_format::multipart::value(
        combine(form)?,
        digest,
        parts,
    ))
}

/// The part sizes that give an object of `size` bytes exactly `parts` parts, from those tools
/// use (5, 8, 15, 16, 64 MiB, powers of two, size/parts rounded up to a MiB and to a byte), in
/// increasing order.
#[pyfunction]
pub(crate) fn candidate_part_sizes(size: u64, parts: u64) -> Vec<u64> {
    multipart::candidate_part_sizes(size, parts)
}
