//! Tree parts: one long message split into parts hashed anywhere (other processes, other
//! machines) and combined into the one-machine digest. The distributed mode builds on this:
//! a worker that knows only a path, the algorithm, the part count and its part index rebuilds
//! the same plan (`PartPlan.for_file`), hashes its part from the file (reading only the bytes
//! the part needs) and returns the state as bytes.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::Path;

use parhash::file::FileVersion;
use parhash::parts::{PartState, Plan};
use parhash::Threads;
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::buffers::Data;
use crate::error::Error;
use crate::files::path_arg;
use crate::options;

/// How one message of an algorithm that splits (`parhash.splits(name)`) is split into parts.
///
/// Build it from the algorithm, the message length and the wanted number of parts (the plan
/// may use fewer: `parts` says how many); the same arguments give the same plan on any
/// machine, and a plan pickles (for Ray, multiprocessing...). Then hash each part anywhere
/// (`hash_part` from the message in memory, `hash_part_file` from a file, reading only
/// `ranges(i)`), and `combine` the states (bytes, in any order) into the digest, which equals
/// `parhash.new(name, message).digest()`. A state from a file records which version of the
/// file it read (its identity: size, modification time, inode); parts of two versions do not
/// combine (`parhash.FileChanged`).
#[pyclass(module = "parhash", name = "PartPlan", frozen)]
pub(crate) struct PartPlan {
    plan: Plan,
    threads: Threads,
}

/// `read(offset, buf)` over a file: `buf.len()` bytes at `offset`, one positional read (no
/// seek: PARSHA-256's parts make thousands of requests a second).
#[cfg(unix)]
fn file_reader(file: &mut File) -> impl FnMut(u64, &mut [u8]) -> io::Result<()> + '_ {
    use std::os::unix::fs::FileExt;
    move |offset, buf| file.read_exact_at(buf, offset)
}

/// `read(offset, buf)` over a file: `buf.len()` bytes at `offset`.
#[cfg(not(unix))]
fn file_reader(file: &mut File) -> impl FnMut(u64, &mut [u8]) -> io::Result<()> + '_ {
    parhash::parts::read_at(file)
}

impl PartPlan {
    fn check_index(&self, index: usize) -> PyResult<()> {
        let parts = self.parts();
        if index >= parts {
            return Err(PyIndexError::new_err(format!(
                "part {index} of a plan of {parts} parts"
            )));
        }
        Ok(())
    }

    /// Opens `path` (the library's part functions check its length and version).
    fn open(path: &Path) -> PyResult<File> {
        Ok(File::open(path).map_err(Error::io(path))?)
    }

    fn states(states: &Bound<'_, PyAny>) -> PyResult<Vec<PartState>> {
        let mut out = Vec::new();
        for state in states.try_iter()? {
            let bytes = Data::new(&state?)?.into_bytes()?;
            let state = PartState::from_bytes(bytes.as_bytes());
            out.push(state.map_err(Error::part(None))?);
        }
        Ok(out)
    }
}

/// The reader of a combine step that reads nothing (empty `top_ranges()`): never called.
fn no_message(_offset: u64, _buf: &mut [u8]) -> io::Result<()> {
    Err(io::Error::other("this combine step reads no message"))
}

fn pairs(ranges: impl IntoIterator<Item = Range<u64>>) -> Vec<(u64, u64)> {
    ranges.into_iter().map(|r| (r.start, r.end)).collect()
}

/// A part's state as the bytes `hash_part` and `hash_part_file` return, recording `identity`
/// in place of the one it has where one is given.
fn state_bytes<'py>(
    py: Python<'py>,
    state: PartState,
    identity: Option<Vec<u8>>,
) -> Bound<'py, PyBytes> {
    let state = match identity {
        Some(identity) => state.with_identity(identity),
        None => state,
    };
    PyBytes::new(py, &state.to_bytes())
}

#[pymethods]
impl PartPlan {
    /// A plan for a message of `message_len` bytes of the algorithm `name` in at most `parts`
    /// parts. `tree_height`/`iv_bits` for PARSHA-256 (default 13, 256); `threads` (None or 0 =
    /// all cores) for hashing a part where the algorithm spreads one over threads (SANDstorm;
    /// otherwise a part runs on one thread: hash several parts at once to use more);
    /// `digest_size` (bytes) where the algorithm has a choice of lengths (BLAKE3).
    #[new]
    #[pyo3(signature = (name, message_len, parts, *, tree_height = None, iv_bits = None, threads = None, digest_size = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        name: &str,
        message_len: u64,
        parts: usize,
        tree_height: Option<i64>,
        iv_bits: Option<i64>,
        threads: Option<i64>,
        digest_size: Option<usize>,
    ) -> PyResult<PartPlan> {
        let algorithm = options::algorithm(name)?;
        let threads = options::threads(threads)?;
        let mut builder = Plan::builder(algorithm).threads(threads);
        if tree_height.is_some() || iv_bits.is_some() {
            builder = builder.tree_params(options::tree_params(tree_height, iv_bits)?);
        }
        if let Some(size) = digest_size {
            builder = builder.digest_size(size);
        }
        let plan = builder
            .build(message_len, parts)
            .map_err(Error::part(None))?;
        Ok(PartPlan { plan, threads })
    }

    /// The plan for the file at `path` (its current size) in at most `parts` parts.
    #[staticmethod]
    #[pyo3(signature = (path, name, parts, *, tree_height = None, iv_bits = None, threads = None, digest_size = None))]
    #[allow(clippy::too_many_arguments)]
    fn for_file(
        path: &Bound<'_, PyAny>,
        name: &str,
        parts: usize,
        tree_height: Option<i64>,
        iv_bits: Option<i64>,
        threads: Option<i64>,
        digest_size: Option<usize>,
    ) -> PyResult<PartPlan> {
        let path = path_arg(path)?;
        let len = std::fs::metadata(&path).map_err(Error::io(&path))?.len();
        PartPlan::new(name, len, parts, tree_height, iv_bits, threads, digest_size)
    }

    /// The algorithm's canonical name.
    #[getter]
    fn name(&self) -> &'static str {
        self.plan.algorithm().name()
    }

    /// The number of parts (at most what was asked for).
    #[getter]
    fn parts(&self) -> usize {
        self.plan.parts()
    }

    /// The message length in bytes.
    #[getter]
    fn message_len(&self) -> u64 {
        self.plan.message_len()
    }

    /// The digest's length in bytes.
    #[getter]
    fn digest_size(&self) -> usize {
        self.plan.digest_size()
    }

    /// PARSHA-256's tree height T (None for an algorithm without tree parameters).
    #[getter]
    fn tree_height(&self) -> Option<u32> {
        self.plan.tree_params().map(|p| p.tree_height())
    }

    /// PARSHA-256's IV length l in bits (None for an algorithm without tree parameters).
    #[getter]
    fn iv_bits(&self) -> Option<u32> {
        self.plan.tree_params().map(|p| p.iv_bits())
    }

    /// The byte ranges `(start, end)` of the message that part `index` reads, in order.
    fn ranges(&self, index: usize) -> PyResult<Vec<(u64, u64)>> {
        self.check_index(index)?;
        Ok(pairs(self.plan.ranges(index)))
    }

    /// The byte ranges the combine step reads (often none).
    fn top_ranges(&self) -> Vec<(u64, u64)> {
        pairs(self.plan.combine_ranges())
    }

    /// The state of part `index` (bytes) from `message`, the whole message (any buffer;
    /// `bytes` is read in place, others are copied once). The GIL is released. `identity`
    /// (bytes): the version of the message it is, recorded in the state (see
    /// `hash_part_file`); None records none.
    #[pyo3(signature = (index, message, *, identity = None))]
    fn hash_part<'py>(
        &self,
        py: Python<'py>,
        index: usize,
        message: &Bound<'py, PyAny>,
        identity: Option<Vec<u8>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.check_index(index)?;
        let message = Data::new(message)?.into_bytes()?;
        let message = message.as_bytes();
        let state = py
            .detach(|| self.plan.hash_part(index, message))
            .map_err(Error::part(None))?;
        Ok(state_bytes(py, state, identity))
    }

    /// The state of part `index` (bytes), reading only `ranges(index)` of the file at `path`,
    /// a few MiB at a time, with the GIL released. The state records the file's identity
    /// (`file_identity(path)`), taken when the part starts and checked when it ends
    /// (`parhash.FileChanged` if it moved meanwhile); parts of different identities do not
    /// combine. `identity` (bytes) records that one instead: the version of an object of
    /// which `path` is a local copy (an object store's ETag or generation).
    #[pyo3(signature = (index, path, *, identity = None))]
    fn hash_part_file<'py>(
        &self,
        py: Python<'py>,
        index: usize,
        path: &Bound<'py, PyAny>,
        identity: Option<Vec<u8>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.check_index(index)?;
        let path = path_arg(path)?;
        let file = PartPlan::open(&path)?;
        let state = py
            .detach(|| parhash::file::hash_part(&self.plan, index, &file))
            .map_err(Error::part(Some(&path)))?;
        Ok(state_bytes(py, state, identity))
    }

    /// The identity `hash_part_file` records for the file at `path` as it is now (bytes: its
    /// size, modification time and inode; equal on every machine that sees the file), or None
    /// where it is not a regular file.
    #[staticmethod]
    fn file_identity<'py>(
        py: Python<'py>,
        path: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let path = path_arg(path)?;
        let file = PartPlan::open(&path)?;
        Ok(FileVersion::of(&file).map(|version| PyBytes::new(py, &version.to_bytes())))
    }

    /// The digest from the states of all parts (bytes, in any order). The combine step may
    /// also read `top_ranges()` of the message: pass it as `message` (or use `combine_file`);
    /// where `top_ranges()` is empty no message is needed. A
    /// missing, repeated, damaged or foreign state raises ValueError; states that read
    /// different versions of the file (their identities differ) raise `parhash.FileChanged`.
    #[pyo3(signature = (states, message = None))]
    fn combine<'py>(
        &self,
        py: Python<'py>,
        states: &Bound<'py, PyAny>,
        message: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let states = PartPlan::states(states)?;
        let digest = match message {
            Some(message) => {
                let message = Data::new(message)?.into_bytes()?;
                let message = message.as_bytes();
                py.detach(|| self.plan.combine(&states, message))
            }
            None if self.plan.combine_ranges().is_empty() => {
                py.detach(|| self.plan.combine_from(&states, no_message))
            }
            None => {
                return Err(PyValueError::new_err(format!(
                    "{}'s combine step reads top_ranges() of the message: pass message=, or \
                     use combine_file(states, path)",
                    self.plan.algorithm()
                )))
            }
        };
        let digest = digest.map_err(Error::part(None))?;
        Ok(PyBytes::new(py, digest.as_bytes()))
    }

    /// `combine`, reading what the combine step needs (`top_ranges()`) from the file at `path`,
    /// whose identity must then be the parts' (`parhash.FileChanged` otherwise; `identity`:
    /// the one `path` stands for, as in `hash_part_file`). Errors name `path`.
    #[pyo3(signature = (states, path, *, identity = None))]
    fn combine_file<'py>(
        &self,
        py: Python<'py>,
        states: &Bound<'py, PyAny>,
        path: &Bound<'py, PyAny>,
        identity: Option<Vec<u8>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let path = path_arg(path)?;
        let states = PartPlan::states(states)?;
        let digest = if self.plan.combine_ranges().is_empty() {
            py.detach(|| self.plan.combine_from(&states, no_message))
        } else {
            let mut file = PartPlan::open(&path)?;
            match identity {
                Some(identity) => py.detach(|| {
                    let read = file_reader(&mut file);
                    self.plan.combine_from_version(&states, &identity, read)
                }),
                None => py.detach(|| parhash::file::combine_parts(&self.plan, &states, &file)),
            }
        };
        let digest = digest.map_err(Error::part(Some(&path)))?;
        Ok(PyBytes::new(py, digest.as_bytes()))
    }

    /// Rebuilds the same plan when unpickled.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let class = py.get_type::<PartPlan>();
        let args = (self.name(), self.message_len(), self.parts());
        let kwargs = pyo3::types::PyDict::new(py);
        kwargs.set_item("tree_height", self.tree_height())?;
        kwargs.set_item("iv_bits", self.iv_bits())?;
        kwargs.set_item("threads", self.threads_number())?;
        kwargs.set_item("digest_size", self.digest_size())?;
        // PartPlan(*args, **kwargs) through functools.partial, which pickles by reference.
        let partial = py.import("functools")?.getattr("partial")?;
        let make = partial.call((class,), Some(&kwargs))?;
        PyTuple::new(py, [make, args.into_pyobject(py)?.into_any()])
    }

    fn __repr__(&self) -> String {
        format!(
            "<parhash.PartPlan {} of {} bytes in {} parts>",
            self.plan.algorithm(),
            self.message_len(),
            self.parts()
        )
    }
}

impl PartPlan {
    fn threads_number(&self) -> Option<usize> {
        (!self.threads.is_all()).then(|| self.threads.count())
    }
}

/// Whether the algorithm `name` splits one message into parts (`PartPlan`, and
/// `parhash.distributed` splitting a large file over tasks).
#[pyfunction]
pub(crate) fn splits(name: &str) -> PyResult<bool> {
    Ok(Plan::splits(options::algorithm(name)?))
}

/// Whether the algorithm `name` takes tree parameters (`tree_height=`, `iv_bits=`), which
/// its digests then depend on.
#[pyfunction]
pub(crate) fn takes_tree_params(name: &str) -> PyResult<bool> {
    Ok(options::algorithm(name)?.takes_tree_params())
}
