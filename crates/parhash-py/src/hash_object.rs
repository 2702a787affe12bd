//! hashlib-style hash objects: `parhash.new(name, data, **options)`, one constructor per
//! algorithm, `update`, `digest`, `hexdigest` (with hashlib's `length` for the
//! extendable-output functions), `copy`, `name`, `digest_size`, `block_size`.

use std::sync::Arc;

use parhash::{Algorithm, Hasher, Output};
use pyo3::exceptions::{PyAttributeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::buffers::{Data, COPY_CHUNK, RELEASE_GIL_AT};
use crate::error::Error;
use crate::locked::Locked;
use crate::options::{self, py_name, Options};

/// hashlib's bound on a SHAKE output read at once (`length is too large` from 2^29 bytes on):
/// a length past it is a ValueError, never a MemoryError.
const SHAKE_MAX_LENGTH: usize = 1 << 29;

/// A running hash, as hashlib's objects: feed it with `update`, read it with `digest` or
/// `hexdigest` (which do not end it), fork it with `copy`.
///
/// One object may be used from several threads: calls on it take turns (as in hashlib), and
/// the GIL is released while large inputs are hashed.
#[pyclass(module = "parhash", name = "Hash", frozen)]
pub(crate) struct Hash {
    algorithm: Algorithm,
    options: Options,
    /// The state is [`State::Parsha`], for the object's life (known without the lock).
    keeps_message: bool,
    state: Locked<State>,
}

/// What a [`Hash`] has taken in.
enum State {
    /// The library's hasher.
    Hasher(Hasher),
    /// PARSHA-256 (default variant): it needs the whole message before it starts, so the
    /// message is kept here and hashed at each `digest()`.
    Parsha(Kept),
    /// PARSHA-256 told the message length up front (`message_length=`): hashed as the bytes
    /// arrive, in bounded memory; the digest, once all of them came, is kept.
    ParshaStream {
        hasher: Option<Hasher>,
        declared: u64,
        fed: u64,
        digest: Option<Output>,
    },
}

/// A PARSHA-256 message kept until `digest()`: the `bytes` objects `update` was given (or, for
/// a mutable buffer, the private copies `update` makes of it anyway), by reference. Nothing is
/// copied again: not when kept, not at `digest()` (the library's streaming engine is then
/// told the length and fed the pieces in order), not by `copy()` (which shares them).
#[derive(Clone, Default)]
struct Kept {
    pieces: Vec<Arc<Py<PyBytes>>>,
    len: usize,
}

impl State {
    fn update(&mut self, data: &[u8]) -> PyResult<()> {
        match self {
            State::Hasher(hasher) => hasher.update(data),
            State::Parsha(_) => unreachable!("kept by Hash::feed"),
            State::ParshaStream {
                hasher,
                declared,
                fed,
                ..
            } => {
                let after = *fed + data.len() as u64;
                if after > *declared {
                    return Err(PyValueError::new_err(format!(
                        "parsha256: {after} bytes would be more than message_length={declared}"
                    )));
                }
                hasher.as_mut().expect("fed bytes remain").update(data);
                *fed = after;
            }
        }
        Ok(())
    }

    /// The digest: of the message so far, or for a stream once all its bytes came.
    fn digest(&mut self, algorithm: Algorithm) -> PyResult<Output> {
        match self {
            State::Hasher(hasher) => hasher
                .digest_so_far()
                .ok_or_else(|| PyValueError::new_err(format!("{algorithm}: no digest"))),
            State::Parsha(_) => unreachable!("hashed by Hash::output"),
            State::ParshaStream {
                hasher,
                declared,
                fed,
                digest,
            } => {
                if *fed != *declared {
                    return Err(PyValueError::new_err(format!(
                        "parsha256: message_length={declared} but {fed} bytes were given: the \
                         digest needs all of them"
                    )));
                }
                if digest.is_none() {
                    let done = hasher.take().expect("a stream finishes once");
                    *digest = Some(done.try_finalize().map_err(Error::value)?);
                }
                Ok(digest.clone().expect("set above"))
            }
        }
    }

    fn try_clone(&self) -> PyResult<State> {
        match self {
            State::Hasher(hasher) => hasher
                .try_clone()
                .map(State::Hasher)
                .ok_or_else(|| PyValueError::new_err("this hasher cannot be copied")),
            State::Parsha(kept) => Ok(State::Parsha(kept.clone())),
            State::ParshaStream {
                digest: Some(digest),
                declared,
                fed,
                ..
            } => Ok(State::ParshaStream {
                hasher: None,
                declared: *declared,
                fed: *fed,
                digest: Some(digest.clone()),
            }),
            State::ParshaStream { .. } => Err(PyValueError::new_err(
                "a parsha256 hash with message_length can be copied only once all its bytes \
                 came (it streams: the bytes so far are not kept)",
            )),
        }
    }
}

impl Hash {
    pub(crate) fn create(
        algorithm: Algorithm,
        options: Options,
        message_length: Option<u64>,
    ) -> PyResult<Hash> {
        let state = if let Some(declared) = message_length {
            let hasher = options
                .builder(algorithm)
                .expected_len(declared)
                .build()
                .map_err(Error::value)?;
            State::ParshaStream {
                hasher: Some(hasher),
                declared,
                fed: 0,
                digest: None,
            }
        } else if algorithm.needs_message_length() && options.variant.is_none() {
            State::Parsha(Kept::default())
        } else {
            // The common call, `sha256(data)`, is the builder's quick way (`HasherBuilder::build`).
            State::Hasher(options.builder(algorithm).build().map_err(Error::value)?)
        };
        Ok(Hash {
            algorithm,
            options,
            keeps_message: matches!(state, State::Parsha(_)),
            state: Locked::new(state),
        })
    }

    /// Runs `f` on the state: at once for a small input if no other thread holds the state,
    /// otherwise with the GIL released (never waiting for the state while holding the GIL,
    /// which the thread holding the state may need back).
    fn with_state<R: Send>(
        &self,
        py: Python<'_>,
        work_bytes: usize,
        f: impl FnOnce(&mut State) -> R + Send,
    ) -> R {
        self.state.with(py, work_bytes, f)
    }

    fn feed(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let data = Data::new(data)?;
        data.for_each_piece(COPY_CHUNK, |piece| {
            if self.keeps_message {
                let len = piece.as_bytes().len();
                let piece = Arc::new(piece.clone().unbind());
                self.with_state(py, 0, move |state| {
                    if let State::Parsha(kept) = state {
                        kept.pieces.push(piece);
                        kept.len += len;
                    }
                });
                return Ok(());
            }
            let bytes = piece.as_bytes();
            self.with_state(py, bytes.len(), |state| state.update(bytes))
        })
    }

    fn output(&self, py: Python<'_>) -> PyResult<Output> {
        if self.keeps_message {
            return self.kept_output(py);
        }
        let algorithm = self.algorithm;
        self.with_state(py, 0, |state| state.digest(algorithm))
    }

    /// PARSHA-256 of the kept message: the pieces (shared, not copied) fed in order to the
    /// library's streaming engine, told the length first; the GIL is released for a long
    /// message (the pieces are immutable `bytes`, kept alive here).
    fn kept_output(&self, py: Python<'_>) -> PyResult<Output> {
        let kept = self.with_state(py, 0, |state| match state {
            State::Parsha(kept) => kept.clone(),
            _ => unreachable!("keeps_message is set for State::Parsha only"),
        });
        let slices: Vec<&[u8]> = kept.pieces.iter().map(|p| p.as_bytes(py)).collect();
        let builder = self
            .options
            .builder(self.algorithm)
            .expected_len(kept.len as u64);
        let hash = || -> PyResult<Output> {
            let mut hasher = builder.build().map_err(Error::value)?;
            for slice in &slices {
                hasher.update(slice);
            }
            Ok(hasher.try_finalize().map_err(Error::value)?)
        };
        if kept.len < RELEASE_GIL_AT {
            hash()
        } else {
            py.detach(hash)
        }
    }

    /// `length` bytes of an extendable-output function's output (SHAKE's and BLAKE3's
    /// `digest(length)`), written straight into the bytes object: any length Python can
    /// allocate (a length it cannot is its MemoryError), not bounded as `digest_size` is.
    fn xof_output<'py>(&self, py: Python<'py>, length: i64) -> PyResult<Bound<'py, PyBytes>> {
        let algorithm = self.algorithm;
        if !algorithm.is_extendable() {
            return Err(PyTypeError::new_err(format!(
                "{algorithm} digests have a fixed length: digest() and hexdigest() take no \
                 length (shake_128, shake_256 and blake3 do)"
            )));
        }
        let length = usize::try_from(length)
            .map_err(|_| PyValueError::new_err(format!("length must not be negative: {length}")))?;
        if self.is_shake() && length >= SHAKE_MAX_LENGTH {
            return Err(PyValueError::new_err(format!(
                "length is too large: {length} (SHAKE output is read below 2**29 bytes at once, \
                 as hashlib's)"
            )));
        }
        let copy = self.with_state(py, 0, |state| match state {
            State::Hasher(hasher) => hasher.try_clone(),
            State::Parsha(_) | State::ParshaStream { .. } => None,
        });
        let mut copy =
            copy.ok_or_else(|| PyValueError::new_err(format!("{algorithm}: no digest")))?;
        PyBytes::new_with(py, length, |out| {
            let mut fill = || Ok(copy.finalize_xof_into_reset(out).map_err(Error::value)?);
            if length < RELEASE_GIL_AT {
                fill()
            } else {
                py.detach(fill)
            }
        })
    }
}

impl Hash {
    fn is_shake(&self) -> bool {
        matches!(self.algorithm, Algorithm::Shake128 | Algorithm::Shake256)
    }

    /// hashlib's SHAKE objects have no digest of their own: `digest_size` is 0 and `digest()`
    /// needs a length. A SHAKE object given `digest_size=` (parhash's option) has one.
    fn needs_length(&self) -> bool {
        self.is_shake() && self.options.digest_size.is_none()
    }

    fn missing_length(&self, method: &str) -> PyErr {
        PyTypeError::new_err(format!(
            "{method}() missing required argument 'length' (pos 1): {} has no digest size of \
             its own",
            py_name(self.algorithm)
        ))
    }

    /// SHA-3's and SHAKE's sponge: (capacity bits, rate bits, domain suffix), as hashlib's
    /// `_capacity_bits`, `_rate_bits`, `_suffix`.
    fn sponge(&self) -> PyResult<(usize, usize, u8)> {
        let suffix = match self.algorithm {
            Algorithm::Sha3_224
            | Algorithm::Sha3_256
            | Algorithm::Sha3_384
            | Algorithm::Sha3_512 => 0x06,
            Algorithm::Shake128 | Algorithm::Shake256 => 0x1f,
            other => {
                return Err(PyAttributeError::new_err(format!(
                    "{} is no sponge: it has no capacity, rate or suffix",
                    py_name(other)
                )))
            }
        };
        let rate = self.algorithm.info().block_size * 8;
        Ok((1600 - rate, rate, suffix))
    }
}

#[pymethods]
impl Hash {
    /// Not a constructor: hash objects come from `parhash.new` and the algorithms'
    /// constructors, as hashlib's do.
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn no_new(_args: &Bound<'_, PyAny>, _kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        Err(PyTypeError::new_err(
            "cannot create 'parhash.Hash' instances",
        ))
    }

    /// Feeds more bytes: any object with the buffer protocol (bytes, bytearray, memoryview,
    /// mmap, numpy arrays...). `str` is a TypeError, as in hashlib.
    #[pyo3(signature = (data, /))]
    fn update(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        self.feed(py, data)
    }

    /// The digest of everything fed so far, as bytes; the object goes on accepting data.
    /// `length`, for the extendable-output functions (SHAKE, BLAKE3) only, as hashlib's
    /// `shake_128().digest(length)`: that many bytes (default: `digest_size`).
    #[pyo3(signature = (length = None))]
    fn digest<'py>(&self, py: Python<'py>, length: Option<i64>) -> PyResult<Bound<'py, PyBytes>> {
        match length {
            Some(length) => self.xof_output(py, length),
            None if self.needs_length() => Err(self.missing_length("digest")),
            None => Ok(PyBytes::new(py, self.output(py)?.as_bytes())),
        }
    }

    /// The digest as lowercase hexadecimal (`length` as for `digest`).
    #[pyo3(signature = (length = None))]
    fn hexdigest(&self, py: Python<'_>, length: Option<i64>) -> PyResult<String> {
        match length {
            // Python's own `bytes.hex`: a length it cannot hold is a MemoryError.
            Some(length) => self.xof_output(py, length)?.call_method0("hex")?.extract(),
            None if self.needs_length() => Err(self.missing_length("hexdigest")),
            None => Ok(self.output(py)?.to_hex()),
        }
    }

    /// An independent copy of this object, in the same state.
    fn copy(&self, py: Python<'_>) -> PyResult<Hash> {
        // A kept PARSHA-256 message is shared, not copied: no copy is large.
        let state = self.with_state(py, 0, |state| state.try_clone())?;
        Ok(Hash {
            algorithm: self.algorithm,
            options: self.options.clone(),
            keeps_message: self.keeps_message,
            state: Locked::new(state),
        })
    }

    /// The algorithm's name: hashlib's spelling for the algorithms hashlib has (`sha3_256`,
    /// `shake_128`), else the library's canonical name (`sandstorm256`).
    #[getter]
    fn name(&self) -> &'static str {
        py_name(self.algorithm)
    }

    /// Digest size in bytes (0 for SHAKE without `digest_size=`, as hashlib's).
    #[getter]
    fn digest_size(&self) -> usize {
        if self.needs_length() {
            return 0;
        }
        self.options
            .digest_size
            .unwrap_or(self.algorithm.info().digest_size)
    }

    /// SHA-3's and SHAKE's capacity in bits (hashlib's `_capacity_bits`).
    #[getter]
    fn _capacity_bits(&self) -> PyResult<usize> {
        Ok(self.sponge()?.0)
    }

    /// SHA-3's and SHAKE's rate in bits (hashlib's `_rate_bits`).
    #[getter]
    fn _rate_bits(&self) -> PyResult<usize> {
        Ok(self.sponge()?.1)
    }

    /// SHA-3's and SHAKE's domain-separation suffix (hashlib's `_suffix`).
    #[getter]
    fn _suffix<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &[self.sponge()?.2]))
    }

    /// The compression function's block size in bytes (what HMAC pads the key to).
    #[getter]
    fn block_size(&self) -> usize {
        self.algorithm.info().block_size
    }

    /// PARSHA-256's tree height T (None for other algorithms).
    #[getter]
    fn tree_height(&self) -> Option<u32> {
        self.algorithm
            .takes_tree_params()
            .then(|| self.options.tree_params().tree_height())
    }

    /// PARSHA-256's IV length l in bits (None for other algorithms).
    #[getter]
    fn iv_bits(&self) -> Option<u32> {
        self.algorithm
            .takes_tree_params()
            .then(|| self.options.tree_params().iv_bits())
    }

    fn __repr__(&self) -> String {
        format!("<{} parhash.Hash object>", py_name(self.algorithm))
    }
}

/// Keyword arguments of `new` and the constructors.
#[derive(Default)]
struct Keywords<'py> {
    data: Option<Bound<'py, PyAny>>,
    threads: Option<i64>,
    tree_height: Option<i64>,
    iv_bits: Option<i64>,
    variant: Option<String>,
    digest_size: Option<i64>,
    message_length: Option<i64>,
}

impl<'py> Keywords<'py> {
    fn read(&mut self, what: &str, key: &str, value: Bound<'py, PyAny>) -> PyResult<()> {
        let none = value.is_none();
        match key {
            "data" | "string" => self.data = Some(value),
            "threads" => self.threads = if none { None } else { Some(value.extract()?) },
            "tree_height" => self.tree_height = if none { None } else { Some(value.extract()?) },
            "iv_bits" => self.iv_bits = if none { None } else { Some(value.extract()?) },
            "variant" => self.variant = if none { None } else { Some(value.extract()?) },
            "digest_size" => self.digest_size = if none { None } else { Some(value.extract()?) },
            "message_length" => {
                self.message_length = if none { None } else { Some(value.extract()?) }
            }
            // hashlib's flag: every algorithm is offered either way.
            "usedforsecurity" => {}
            other => {
                return Err(PyTypeError::new_err(format!(
                    "{what}() got an unexpected keyword argument '{other}'"
                )))
            }
        }
        Ok(())
    }

    fn build(self, py: Python<'py>, alg: Algorithm) -> PyResult<Hash> {
        let options = Options::new(
            alg,
            self.threads,
            self.tree_height,
            self.iv_bits,
            self.variant,
            self.digest_size,
        )?;
        let message_length = match self.message_length {
            None => None,
            Some(_) if !alg.needs_message_length() => {
                return Err(PyTypeError::new_err(format!(
                    "{alg} takes no message_length (only parsha256 needs the length first)"
                )))
            }
            Some(n) => Some(u64::try_from(n).map_err(|_| {
                PyValueError::new_err(format!("message_length must not be negative: {n}"))
            })?),
        };
        if message_length.is_some() && options.variant.is_some() {
            return Err(PyTypeError::new_err(
                "parsha256 takes message_length or variant, not both (a forced variant buffers \
                 the message)",
            ));
        }
        let hash = Hash::create(alg, options, message_length)?;
        if let Some(data) = &self.data {
            hash.feed(py, data)?;
        }
        Ok(hash)
    }
}

/// A new hash object for the algorithm `name` (any name or alias `parhash list` shows; case
/// and `-`, `_`, `/`, `.` and spaces are ignored), fed with `data`.
///
/// Options: `threads` (None or 0 = all cores; only the tree modes SANDstorm and PARSHA-256
/// split one message over threads, and the digest never depends on it), `tree_height` and
/// `iv_bits` (PARSHA-256's T in 1..=40 and l in {0, 128, 256}; default 13 and 256), `variant`
/// (one implementation, as `parhash list` names them), `digest_size` (bytes, SHAKE up to
/// 1 MiB; longer output with `digest(length)`), `message_length` (PARSHA-256 only: the message's length
/// in bytes, given up front, so the bytes are hashed as they arrive instead of kept until
/// `digest()`), `usedforsecurity` (accepted, as hashlib). `blake2b`, `blake2s` and `blake3` are
/// their own types (hashlib's and blake3-py's parameters): `new` calls them with `data`
/// positionally and the options as keywords, as hashlib's `new` does.
#[pyfunction]
#[pyo3(signature = (name, data = None, **options))]
pub(crate) fn new<'py>(
    py: Python<'py>,
    name: &str,
    data: Option<Bound<'py, PyAny>>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyAny>> {
    let alg = options::algorithm(name)?;
    if own_type(alg) {
        // hashlib's `new('blake2b', data, **kwargs)`: the type, data given positionally.
        let class = py.import("parhash._parhash")?.getattr(py_name(alg))?;
        return match data {
            Some(data) => class.call((data,), options),
            None => class.call((), options),
        };
    }
    let mut keywords = Keywords {
        data,
        ..Keywords::default()
    };
    if let Some(options) = options {
        for (key, value) in options.iter() {
            keywords.read("new", &key.extract::<String>()?, value)?;
        }
    }
    Ok(Bound::new(py, keywords.build(py, alg)?)?.into_any())
}

/// BLAKE2b, BLAKE2s and BLAKE3 have types of their own (`blake2_object`, `blake3_object`:
/// hashlib's and blake3-py's parameters), which are also their constructors.
fn own_type(alg: Algorithm) -> bool {
    matches!(
        alg,
        Algorithm::Blake2b | Algorithm::Blake2s | Algorithm::Blake3
    )
}

/// One algorithm's constructor (`parhash.sha256`, ...): call it as
/// `sha256(data=b"", **options)` for a new hash object fed with `data` (options as for
/// `parhash.new`). Constructors pickle by name, as hashlib's do, so one can be sent to another
/// process (`digestmod=parhash.sha256`).
#[pyclass(module = "parhash", name = "Constructor", frozen)]
pub(crate) struct Constructor {
    algorithm: Algorithm,
    name: String,
}

#[pymethods]
impl Constructor {
    #[pyo3(signature = (data = None, /, **options))]
    fn __call__(
        &self,
        py: Python<'_>,
        data: Option<Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Hash> {
        let Some(options) = options else {
            // No keywords (`sha256(data)`, the call made most): nothing to check.
            let hash = Hash::create(self.algorithm, Options::default(), None)?;
            if let Some(data) = &data {
                hash.feed(py, data)?;
            }
            return Ok(hash);
        };
        let mut keywords = Keywords {
            data,
            ..Keywords::default()
        };
        for (key, value) in options.iter() {
            keywords.read(&self.name, &key.extract::<String>()?, value)?;
        }
        keywords.build(py, self.algorithm)
    }

    /// The constructor's name in the module (`sha3_256`).
    #[getter]
    fn __name__(&self) -> &str {
        &self.name
    }

    #[getter]
    fn __qualname__(&self) -> &str {
        &self.name
    }

    /// The algorithm's canonical name (`sha3-256`).
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.algorithm.name()
    }

    /// Pickled as the module attribute of this name.
    fn __reduce__(&self) -> &str {
        &self.name
    }

    fn __repr__(&self) -> String {
        format!(
            "<parhash constructor {}: {}>",
            self.name,
            self.algorithm.info().note
        )
    }
}

/// Adds one constructor per algorithm (`sha256`, `sha3_256`, ...) to `module`.
pub(crate) fn add_constructors(module: &Bound<'_, PyModule>) -> PyResult<()> {
    for &algorithm in Algorithm::ALL {
        if own_type(algorithm) {
            continue;
        }
        let name = options::constructor_name(algorithm);
        // hashlib's spelling too where it differs (`shake_128` beside `shake128`).
        let hashlib_name = py_name(algorithm).replace('-', "_");
        if hashlib_name != name {
            module.add(
                hashlib_name.clone(),
                Constructor {
                    algorithm,
                    name: hashlib_name,
                },
            )?;
        }
        module.add(name.clone(), Constructor { algorithm, name })?;
    }
    Ok(())
}
