//! `parhash.blake3`: blake3-py's `blake3` type on parhash's BLAKE3 (1 MiB pieces on all
//! cores, the library's `Blake3`): `blake3(data=b'', /, *, key=None, derive_key_context=None,
//! max_threads=AUTO, usedforsecurity=True)`, `update` returning the hasher, `update_mmap`,
//! `digest(length=32, *, seek=0)`, `hexdigest` likewise, `reset`, `copy`, and the class
//! constants `name`, `digest_size`, `block_size`, `key_size`, `AUTO`.

use std::fs::File;
use std::io::Read;
use std::path::PathBuf;

use parhash::digest::{Reset, Update};
use parhash::{Blake3, Blake3Mode, Threads, BLAKE3_KEY_LEN};
use pyo3::exceptions::{PyBufferError, PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyMemoryView};

use crate::buffers::{Data, COPY_CHUNK, RELEASE_GIL_AT};
use crate::locked::Locked;

/// blake3-py's `max_threads` value for "as many as the machine has".
const AUTO: i64 = -1;

/// blake3-py's `blake3`: BLAKE3's hash, keyed hash (`key=`, 32 bytes) or key derivation
/// (`derive_key_context=`, a str), on up to `max_threads` threads (default AUTO: all cores;
/// the digest never depends on it).
#[pyclass(module = "parhash", name = "blake3", frozen)]
pub(crate) struct Blake3Hash {
    state: Locked<Blake3>,
}

/// blake3-py refuses buffers whose items are not bytes (`array('i')`): a BufferError.
fn byte_items<'py>(data: &Bound<'py, PyAny>) -> PyResult<Data<'py>> {
    if data.cast::<PyBytes>().is_err() {
        if let Ok(view) = PyMemoryView::from(data) {
            if view.getattr("itemsize")?.extract::<usize>()? != 1 {
                return Err(PyBufferError::new_err(
                    "blake3 hashes buffers of bytes: the items of this one are larger",
                ));
            }
        }
    }
    Data::new(data)
}

fn threads(max_threads: i64) -> PyResult<Threads> {
    match max_threads {
        AUTO => Ok(Threads::ALL),
        n if n > 0 => Ok(Threads::new(usize::try_from(n).unwrap_or(usize::MAX))),
        n => Err(PyValueError::new_err(format!(
            "max_threads must be a positive count or blake3.AUTO (-1), not {n}"
        ))),
    }
}

#[pymethods]
impl Blake3Hash {
    /// The algorithm's name.
    #[classattr]
    fn name() -> &'static str {
        "blake3"
    }

    /// The default digest size in bytes (any length: `digest(length)`).
    #[classattr]
    fn digest_size() -> usize {
        32
    }

    /// BLAKE3's block size in bytes.
    #[classattr]
    fn block_size() -> usize {
        64
    }

    /// The length of a key (`key=`).
    #[classattr]
    fn key_size() -> usize {
        BLAKE3_KEY_LEN
    }

    /// `max_threads=AUTO`: all cores.
    #[classattr]
    #[pyo3(name = "AUTO")]
    fn auto() -> i64 {
        AUTO
    }

    #[new]
    #[pyo3(signature = (
        data = None, /, *, key = None, derive_key_context = None, max_threads = AUTO,
        usedforsecurity = true
    ))]
    fn py_new(
        py: Python<'_>,
        data: Option<&Bound<'_, PyAny>>,
        key: Option<&Bound<'_, PyAny>>,
        derive_key_context: Option<String>,
        max_threads: i64,
        usedforsecurity: bool,
    ) -> PyResult<Self> {
        // hashlib's flag: every algorithm is offered either way.
        let _ = usedforsecurity;
        let mode = match (key, derive_key_context) {
            (Some(_), Some(_)) => {
                return Err(PyValueError::new_err(
                    "key and derive_key_context cannot be used together",
                ))
            }
            (Some(key), None) => {
                let bytes = Data::new(key)?.into_bytes()?;
                let key: [u8; BLAKE3_KEY_LEN] = bytes.as_bytes().try_into().map_err(|_| {
                    PyValueError::new_err(format!(
                        "key must be {BLAKE3_KEY_LEN} bytes, not {}",
                        bytes.as_bytes().len()
                    ))
                })?;
                Blake3Mode::Keyed(key)
            }
            (None, Some(context)) => Blake3Mode::derive_key(&context),
            (None, None) => Blake3Mode::Hash,
        };
        let hash = Blake3Hash {
            state: Locked::new(Blake3::with_mode(mode, threads(max_threads)?)),
        };
        if let Some(data) = data {
            hash.feed(py, data)?;
        }
        Ok(hash)
    }

    /// Feeds more bytes (any buffer of bytes; `str` is a TypeError); returns the hasher.
    #[pyo3(signature = (data, /))]
    fn update<'py>(slf: Bound<'py, Self>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        slf.get().feed(slf.py(), data)?;
        Ok(slf)
    }

    /// Feeds the contents of the file at `path` (str or os.PathLike); returns the hasher.
    ///
    /// Unlike blake3-py, the file is read, not memory-mapped: a file truncated meanwhile is
    /// an error or a shorter input, never a SIGBUS. The GIL is released while it is read and
    /// hashed (on `max_threads` threads).
    #[pyo3(signature = (path))]
    fn update_mmap<'py>(slf: Bound<'py, Self>, path: PathBuf) -> PyResult<Bound<'py, Self>> {
        let py = slf.py();
        slf.get().state.with(py, usize::MAX, |state| {
            let mut file = File::open(&path)?;
            let mut buffer = vec![0; COPY_CHUNK];
            loop {
                let read = file.read(&mut buffer)?;
                if read == 0 {
                    return Ok::<(), std::io::Error>(());
                }
                state.update(&buffer[..read]);
            }
        })?;
        Ok(slf)
    }

    /// `length` bytes of output (default 32), from byte `seek` on; the hasher goes on.
    #[pyo3(signature = (length = 32, *, seek = 0))]
    fn digest<'py>(
        &self,
        py: Python<'py>,
        length: usize,
        seek: u64,
    ) -> PyResult<Bound<'py, PyBytes>> {
        if isize::try_from(length).is_err() {
            return Err(PyOverflowError::new_err(format!(
                "length {length} is more than a bytes object can hold"
            )));
        }
        let copy = self.state.with(py, 0, |state| state.clone());
        PyBytes::new_with(py, length, |out| {
            if length < RELEASE_GIL_AT {
                copy.output_at(seek, out);
            } else {
                py.detach(|| copy.output_at(seek, out));
            }
            Ok(())
        })
    }

    /// The output as lowercase hexadecimal (`length` and `seek` as for `digest`).
    #[pyo3(signature = (length = 32, *, seek = 0))]
    fn hexdigest(&self, py: Python<'_>, length: usize, seek: u64) -> PyResult<String> {
        self.digest(py, length, seek)?
            .call_method0("hex")?
            .extract()
    }

    /// An independent copy of this hasher, in the same state.
    fn copy(&self, py: Python<'_>) -> Self {
        Blake3Hash {
            state: Locked::new(self.state.with(py, 0, |state| state.clone())),
        }
    }

    /// Forgets everything fed so far (the key, context and threads stay).
    fn reset(&self, py: Python<'_>) {
        self.state.with(py, 0, Reset::reset);
    }
}

impl Blake3Hash {
    fn feed(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let data = byte_items(data)?;
        self.state
            .feed(py, &data, |state, bytes| state.update(bytes))
    }
}
