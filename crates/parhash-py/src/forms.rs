//! The object stores' forms `hash_file`/`hash_files` take by name (`"etag"`,
//! `"sha256-composite"`) with `part_size=`, each answered with the value as the store shows it;
//! computed by `parhash::multipart` from one read of each file, the text by `parhash-format`.

use std::path::Path;

use parhash::multipart::{self, Combine, Request};
use parhash::{Algorithm, Output};
use parhash_format::multipart as forms;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::error::Error;
use crate::options;

/// What a form's name says: `"etag"` (S3's ETag) or `"ALG-composite"` (a composite checksum of
/// one of S3's composite algorithms), either case; `None` for any other name (an algorithm).
pub(crate) fn form_of_name(name: &str) -> PyResult<Option<Combine>> {
    if name.eq_ignore_ascii_case(forms::ETAG_TAG) {
        return Ok(Some(Combine::S3Etag));
    }
    let lower = name.to_ascii_lowercase();
    let Some(algorithm) = lower.strip_suffix("-composite") else {
        return Ok(None);
    };
    let algorithm = options::algorithm(algorithm)?;
    match forms::composite_refusal(algorithm) {
        Some(why) => Err(PyValueError::new_err(why)),
        None => Ok(Some(Combine::Composite(algorithm))),
    }
}

/// One name's answer: an algorithm's raw digest, or a form's value as the store shows it.
pub(crate) enum Answer {
    Digest(Output),
    Value(String),
}

impl Answer {
    pub(crate) fn into_py(self, py: Python<'_>) -> Bound<'_, PyAny> {
        match self {
            Answer::Digest(digest) => PyBytes::new(py, digest.as_bytes()).into_any(),
            Answer::Value(text) => PyString::new(py, &text).into_any(),
        }
    }
}

/// Where one name's answer comes from.
enum Slot {
    /// A form in parts: the index of its request.
    Parts(usize),
    /// An algorithm's digest of the whole file: the index in `whole`.
    Whole(usize),
    /// The ETag of an object uploaded in one piece (no part size): the whole file's MD5, at
    /// this index in `whole`.
    OnePiece(usize),
}

/// `hash_file`/`hash_files` names where one or more is a form: every form and algorithm from
/// one read of each file (`parhash::multipart::compute_file_whole`).
pub(crate) struct Plan {
    requests: Vec<Request>,
    whole: Vec<Algorithm>,
    slots: Vec<Slot>,
}

impl Plan {
    /// The plan of `names`, or `None` where none is a form and no `part_size` was given (the
    /// plain algorithms' path). Forms in parts need `part_size` (bytes, within S3's limits);
    /// `"etag"` without it is the ETag of an object uploaded in one piece, the file's MD5.
    pub(crate) fn new(names: &[String], part_size: Option<i64>) -> PyResult<Option<Plan>> {
        let mut named = Vec::with_capacity(names.len());
        for name in names {
            named.push(form_of_name(name)?);
        }
        if named.iter().all(Option::is_none) {
            return match part_size {
                None => Ok(None),
                Some(_) => Err(PyTypeError::new_err(
                    "part_size goes with the multipart forms: \"etag\" or \"ALG-composite\"",
                )),
            };
        }
        let size = part_size
            .map(|size| {
                let size = u64::try_from(size)
                    .map_err(|_| PyValueError::new_err(format!("part size {size} is negative")))?;
                // As `parhash sum --part-size`: parts S3 takes in an upload of two or more.
                multipart::check_part_size(size).map_err(Error::value)?;
                Ok::<u64, PyErr>(size)
            })
            .transpose()?;
        let mut plan = Plan {
            requests: Vec::new(),
            whole: Vec::new(),
            slots: Vec::new(),
        };
        for (name, form) in names.iter().zip(named) {
            let slot = match (form, size) {
                (Some(combine), Some(size)) => {
                    plan.requests
                        .push(Request::new(combine, size).map_err(Error::value)?);
                    Slot::Parts(plan.requests.len() - 1)
                }
                (Some(Combine::S3Etag), None) => {
                    plan.whole.push(Algorithm::Md5);
                    Slot::OnePiece(plan.whole.len() - 1)
                }
                (Some(Combine::Composite(_)), None) => {
                    return Err(PyValueError::new_err(format!(
                        "{name} needs part_size: a composite checksum depends on the part size"
                    )))
                }
                (None, _) => {
                    plan.whole.push(options::algorithm(name)?);
                    Slot::Whole(plan.whole.len() - 1)
                }
            };
            plan.slots.push(slot);
        }
        Ok(Some(plan))
    }

    /// Every name's answer for the file at `path`, in order, from one read (without the GIL:
    /// no Python here). A file too large for S3's 10,000 parts of the part size is a
    /// `ValueError` in `parhash sum --etag`'s words (`parts of 5 MiB: 10001 parts are ...`).
    pub(crate) fn compute(&self, path: &Path) -> Result<Vec<Answer>, Error> {
        let file = std::fs::File::open(path).map_err(Error::io(path))?;
        let len = file.metadata().map_err(Error::io(path))?.len();
        for request in &self.requests {
            within_s3_limits(*request, len)?;
        }
        let (combined, digests) = multipart::compute_file_whole(&file, &self.requests, &self.whole)
            .map_err(Error::io(path))?;
        Ok((self.slots.iter())
            .map(|slot| match *slot {
                Slot::Parts(index) => Answer::Value(forms::text(&combined[index])),
                Slot::Whole(index) => Answer::Digest(digests[index].clone()),
                Slot::OnePiece(index) => Answer::Value(forms::value(
                    Combine::S3Etag,
                    digests[index].as_bytes(),
                    None,
                )),
            })
            .collect())
    }
}

/// Whether S3 takes an object of `len` bytes in `request`'s parts, refused in `parhash sum
/// --etag`'s words (`parts of 5 MiB: 10001 parts are ...`).
fn within_s3_limits(request: Request, len: u64) -> Result<(), Error> {
    request.check_s3_limits(len).map_err(|err| {
        let size = forms::part_size_text(request.part_size());
        Error::Value(format!("parts of {size}: {err}"))
    })
}

/// The value as the store shows it of the form `name` (`"etag"`, `"ALG-composite"`) for an
/// object of `length` bytes in parts of `part_size`, from its parts' raw digests (each the
/// form's algorithm's digest of one part, in order: `parhash::multipart::combine`'s rule):
/// for a file whose parts were hashed elsewhere. A count of digests that is not the object's
/// part count is a ValueError, as are S3's limits (in `hash_file`'s words).
#[pyfunction]
pub(crate) fn multipart_combine(
    name: &str,
    part_size: u64,
    length: u64,
    digests: Vec<Vec<u8>>,
) -> PyResult<String> {
    let Some(combine) = form_of_name(name)? else {
        return Err(PyValueError::new_err(format!(
            "{name} is no multipart form: \"etag\" or \"ALG-composite\""
        )));
    };
    let request = Request::new(combine, part_size).map_err(Error::value)?;
    within_s3_limits(request, length)?;
    if digests.len() as u64 != request.parts(length) {
        return Err(PyValueError::new_err(format!(
            "{} part digests for {} parts",
            digests.len(),
            request.parts(length)
        )));
    }
    let size = combine.algorithm().digest_size();
    let parts: Vec<Output> = (digests.iter())
        .map(|digest| {
            if digest.len() == size {
                Ok(Output::from_slice(digest))
            } else {
                Err(PyValueError::new_err(format!(
                    "a part digest of {} bytes, not {size}",
                    digest.len()
                )))
            }
        })
        .collect::<PyResult<_>>()?;
    Ok(forms::text(&multipart::combine(request, &parts)))
}
