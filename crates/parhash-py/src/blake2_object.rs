//! `parhash.blake2b` and `parhash.blake2s`: hashlib's BLAKE2 types, with every parameter of
//! RFC 7693's parameter block (digest size, key, salt, personalization, and the tree
//! parameters fanout, depth, leaf size, node offset, node depth, inner size, last node) and
//! hashlib's constants (`SALT_SIZE`, `PERSON_SIZE`, `MAX_KEY_SIZE`, `MAX_DIGEST_SIZE`).
//!
//! The hashing is the `blake2b_simd`/`blake2s_simd` crates' (their `Params` is the whole
//! parameter block; AVX2 compression where the CPU has it). Checks and errors are hashlib's:
//! a ValueError out of range, an OverflowError for `leaf_size`/`node_offset` past their
//! fields, data positional only.

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyString};

use crate::buffers::{Data, RELEASE_GIL_AT};
use crate::locked::Locked;

/// The constructors' keyword-only parameters that PyO3 does not parse (it parses `digest_size`
/// and `key`), in their signature's order.
const KEYWORDS: [&str; 10] = [
    "salt",
    "person",
    "fanout",
    "depth",
    "leaf_size",
    "node_offset",
    "node_depth",
    "inner_size",
    "last_node",
    "usedforsecurity",
];

/// The constructor's other keyword arguments by [`KEYWORDS`]' index, with PyO3's errors for a
/// name that is not one of them (`data` is positional only).
///
/// The constructors take `data` and the two common keywords, `digest_size` and `key`, through
/// PyO3, and the rest as `**kwargs`, parsed here: PyO3's parsing of all 14 parameters was most of
/// what `blake2b(data)` cost beyond hashlib's (BENCHMARKS.md, Python drop-in), and PyO3 copies
/// `**kwargs` into a new dict, a cost only the rare parameters pay this way.
fn keyword_arguments<'py>(
    class: &str,
    kwargs: &Bound<'py, PyDict>,
) -> PyResult<[Option<Bound<'py, PyAny>>; 10]> {
    static NAMES: PyOnceLock<[Py<PyString>; 10]> = PyOnceLock::new();
    let py = kwargs.py();
    let names = NAMES.get_or_init(py, || {
        KEYWORDS.map(|name| PyString::intern(py, name).unbind())
    });
    let mut found: [Option<Bound<'py, PyAny>>; 10] = Default::default();
    let mut data_by_keyword = false;
    for (name, value) in kwargs {
        // A call site's keyword names are interned, as these are: found by identity, mostly.
        let (index, is_data) = match names.iter().position(|n| n.as_ptr() == name.as_ptr()) {
            Some(index) => (Some(index), false),
            None => {
                let text = name.cast::<PyString>()?.to_cow()?;
                let index = KEYWORDS.iter().position(|&keyword| keyword == text);
                (index, text == "data")
            }
        };
        match index {
            Some(index) => found[index] = Some(value),
            // As PyO3's: reported once every name is known to be a parameter's.
            None if is_data => data_by_keyword = true,
            None => {
                return Err(PyTypeError::new_err(format!(
                    "{class}.__new__() got an unexpected keyword argument '{name}'"
                )))
            }
        }
    }
    if data_by_keyword {
        return Err(PyTypeError::new_err(format!(
            "{class}.__new__() got some positional-only arguments passed as keyword \
             arguments: 'data'"
        )));
    }
    Ok(found)
}

/// A keyword argument of type `Option<...>` in PyO3's sense: None is as if not given.
fn given<'py>(value: Option<Bound<'py, PyAny>>) -> Option<Bound<'py, PyAny>> {
    value.filter(|value| !value.is_none())
}

/// A keyword argument converted as PyO3 converts a parameter of type `T` (`default` if not
/// given), with PyO3's message: a TypeError names the argument.
fn argument<T>(value: Option<&Bound<'_, PyAny>>, name: &str, default: T) -> PyResult<T>
where
    T: for<'a, 'py> FromPyObject<'a, 'py>,
    for<'a, 'py> <T as FromPyObject<'a, 'py>>::Error: Into<PyErr>,
{
    let Some(value) = value else {
        return Ok(default);
    };
    value.extract::<T>().map_err(|err| {
        let err: PyErr = err.into();
        let py = value.py();
        if err.get_type(py).is(py.get_type::<PyTypeError>()) {
            let named = PyTypeError::new_err(format!("argument '{name}': {}", err.value(py)));
            named.set_cause(py, err.cause(py));
            named
        } else {
            err
        }
    })
}

/// The bytes of a buffer argument (`key`, `salt`, `person`), at most `max` of them (empty if not
/// given).
fn short_bytes<'py>(
    arg: Option<&Bound<'py, PyAny>>,
    what: &str,
    max: usize,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let Some(arg) = arg else {
        return Ok(None);
    };
    let bytes = Data::new(arg)?.into_bytes()?;
    if bytes.as_bytes().len() > max {
        return Err(PyValueError::new_err(format!(
            "maximum {what} length is {max} bytes"
        )));
    }
    Ok(Some(bytes))
}

/// The bytes of [`short_bytes`]' answer.
fn bytes_of<'a>(bytes: &'a Option<Bound<'_, PyBytes>>) -> &'a [u8] {
    bytes.as_ref().map_or(&[], |bytes| bytes.as_bytes())
}

/// The bytes of a kept `bytes` (none if there is none).
fn bytes_of_py<'a>(py: Python<'a>, bytes: &'a Option<Py<PyBytes>>) -> &'a [u8] {
    bytes
        .as_ref()
        .map_or(&[], |bytes| bytes.bind(py).as_bytes())
}

/// An integer parameter in `min..=max`, else hashlib's ValueError.
fn in_range(value: i64, what: &str, min: i64, max: i64) -> PyResult<i64> {
    if (min..=max).contains(&value) {
        Ok(value)
    } else {
        Err(PyValueError::new_err(format!(
            "{what} must be between {min} and {max}"
        )))
    }
}

/// `leaf_size` and `node_offset`: negative is a ValueError, past the field an OverflowError.
fn field(value: &Bound<'_, PyAny>, what: &str, max: u64) -> PyResult<u64> {
    let value: i128 = value.extract()?;
    if value < 0 {
        return Err(PyValueError::new_err(format!("{what} must be positive")));
    }
    u64::try_from(value)
        .ok()
        .filter(|&v| v <= max)
        .ok_or_else(|| PyOverflowError::new_err(format!("{what} is too large")))
}

macro_rules! blake2_class {
    ($class:ident, $name:tt, $simd:ident, block $block:tt, digest $digest:tt,
     key $key:tt, salt $salt:tt, person $person:tt, offset_bits $offset_bits:tt,
     signature $signature:tt) => {
        #[doc = concat!(
            "hashlib's `", $name, "`: `", $name, "(data=b'', /, *, digest_size=", $digest,
            ", key=b'', salt=b'', person=b'', fanout=1, depth=1, leaf_size=0, node_offset=0, ",
            "node_depth=0, inner_size=0, last_node=False, usedforsecurity=True)`."
        )]
        #[pyclass(module = "parhash", name = $name, frozen)]
        pub(crate) struct $class {
            digest_size: usize,
            /// The key, and the constructor's data as `pending`, while the parameters are at
            /// most a digest size and a key and the data a short `bytes` (the common calls,
            /// `blake2b(data)` and `blake2b(data, key=key)`): kept (a `bytes` cannot change)
            /// and hashed when the state is first needed, so the constructor builds no state
            /// and `digest()` builds it on the stack. Unused once `state` is `Some`.
            key: Option<Py<PyBytes>>,
            pending: Option<Py<PyBytes>>,
            /// `None` until the first `update` (then the first state fed `pending`); boxed, so
            /// the constructor moves a pointer through PyO3's layers, not ~220 bytes.
            state: Locked<Option<Box<$simd::State>>>,
            /// Whether `state` is `Some` (set under its lock when it becomes so, never unset):
            /// while it is not, `digest()` needs only `key` and `pending` and takes no lock.
            fed: AtomicBool,
        }

        #[pymethods]
        impl $class {
            #[classattr]
            const SALT_SIZE: usize = $salt;
            #[classattr]
            const PERSON_SIZE: usize = $person;
            #[classattr]
            const MAX_KEY_SIZE: usize = $key;
            #[classattr]
            const MAX_DIGEST_SIZE: usize = $digest;

            #[new]
            #[pyo3(
                signature = (data = None, /, *, digest_size = $digest, key = None, **kwargs),
                text_signature = $signature
            )]
            fn py_new(
                py: Python<'_>,
                data: Option<Bound<'_, PyAny>>,
                digest_size: i64,
                key: Option<&Bound<'_, PyAny>>,
                kwargs: Option<&Bound<'_, PyDict>>,
            ) -> PyResult<Self> {
                let Some(kwargs) = kwargs.filter(|kwargs| !kwargs.is_empty()) else {
                    // The common call, `blake2b(data)`: no parameter block to build.
                    if key.is_none() && digest_size == $digest {
                        return Self::lazy(py, $digest, None, data.as_ref());
                    }
                    return Self::with_parameters(
                        py, data.as_ref(), digest_size, key, None, None, 1, 1, None, None, 0, 0,
                        false,
                    );
                };
                let [salt, person, fanout, depth, leaf_size, node_offset, node_depth, inner_size,
                    last_node, usedforsecurity] = keyword_arguments($name, kwargs)?;
                // PyO3's conversions, in the signature's order (as its own parsing did them).
                let fanout = argument(fanout.as_ref(), "fanout", 1)?;
                let depth = argument(depth.as_ref(), "depth", 1)?;
                let node_depth = argument(node_depth.as_ref(), "node_depth", 0)?;
                let inner_size = argument(inner_size.as_ref(), "inner_size", 0)?;
                let last_node = argument(last_node.as_ref(), "last_node", false)?;
                // hashlib's flag: every algorithm is offered either way (but it must be a bool).
                argument(usedforsecurity.as_ref(), "usedforsecurity", true)?;
                Self::with_parameters(
                    py,
                    data.as_ref(),
                    digest_size,
                    key,
                    given(salt).as_ref(),
                    given(person).as_ref(),
                    fanout,
                    depth,
                    given(leaf_size).as_ref(),
                    given(node_offset).as_ref(),
                    node_depth,
                    inner_size,
                    last_node,
                )
            }

            /// Feeds more bytes (any buffer; `str` is a TypeError, as in hashlib).
            #[pyo3(signature = (data, /))]
            fn update(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
                let data = Data::new(data)?;
                let (digest_size, key) = (self.digest_size, bytes_of_py(py, &self.key));
                let pending = bytes_of_py(py, &self.pending);
                self.state.feed(py, &data, |state, bytes| {
                    state
                        .get_or_insert_with(|| {
                            let mut state = Box::new(Self::first_state(digest_size, key));
                            state.update(pending);
                            state
                        })
                        .update(bytes);
                    self.fed.store(true, Ordering::Release);
                })
            }

            /// The digest of everything fed so far; the object goes on accepting data.
            fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                PyBytes::new(py, self.finalize(py).as_bytes())
            }

            /// The digest as lowercase hexadecimal.
            fn hexdigest(&self, py: Python<'_>) -> String {
                self.finalize(py).to_hex().to_string()
            }

            /// An independent copy of this object, in the same state.
            fn copy(&self, py: Python<'_>) -> Self {
                let state = self.state.with(py, 0, |state| state.clone());
                $class {
                    digest_size: self.digest_size,
                    key: self.key.as_ref().map(|key| key.clone_ref(py)),
                    pending: self.pending.as_ref().map(|pending| pending.clone_ref(py)),
                    fed: AtomicBool::new(state.is_some()),
                    state: Locked::new(state),
                }
            }

            /// `blake2b` or `blake2s`.
            #[getter]
            fn name(&self) -> &'static str {
                $name
            }

            /// The digest size in bytes (`digest_size=`).
            #[getter]
            fn digest_size(&self) -> usize {
                self.digest_size
            }

            /// The block size in bytes (what HMAC pads the key to).
            #[getter]
            fn block_size(&self) -> usize {
                $block
            }
        }

        impl $class {
            /// The state before any data for a digest size and a key (none if empty): the
            /// default one is made once (a copy is cheaper than building it).
            fn first_state(digest_size: usize, key: &[u8]) -> $simd::State {
                static DEFAULT: std::sync::OnceLock<$simd::State> = std::sync::OnceLock::new();
                if digest_size == $digest && key.is_empty() {
                    return DEFAULT.get_or_init($simd::State::new).clone();
                }
                $simd::Params::new().hash_length(digest_size).key(key).to_state()
            }

            /// The digest of everything fed so far: with no `update` yet, of `pending` alone,
            /// on the stack and with no lock (an `update` under way meanwhile has not happened
            /// yet, as when it waits for the lock); unkeyed, in one pass over `pending` (no
            /// state: `Params::hash`).
            fn finalize(&self, py: Python<'_>) -> $simd::Hash {
                static DEFAULT: std::sync::OnceLock<$simd::Params> = std::sync::OnceLock::new();
                let (digest_size, key) = (self.digest_size, bytes_of_py(py, &self.key));
                let pending = bytes_of_py(py, &self.pending);
                let from_pending = || {
                    if !key.is_empty() {
                        let mut state = Self::first_state(digest_size, key);
                        state.update(pending);
                        state.finalize()
                    } else if digest_size == $digest {
                        DEFAULT.get_or_init($simd::Params::new).hash(pending)
                    } else {
                        $simd::Params::new().hash_length(digest_size).hash(pending)
                    }
                };
                if !self.fed.load(Ordering::Acquire) {
                    return from_pending();
                }
                self.state.with(py, 0, |state| match state {
                    Some(state) => state.finalize(),
                    None => from_pending(),
                })
            }

            /// The object for a digest size and a key (checked) alone: a short `bytes` of data
            /// kept as `pending`, any other data fed at once (as `with_data` does).
            fn lazy(
                py: Python<'_>,
                digest_size: usize,
                key: Option<Bound<'_, PyBytes>>,
                data: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Self> {
                let short = match data {
                    None => Some(None),
                    // Exactly `bytes` (a pointer comparison; a subclass goes the other way).
                    Some(data) => data
                        .cast_exact::<PyBytes>()
                        .ok()
                        .filter(|bytes| bytes.as_bytes().len() < RELEASE_GIL_AT)
                        .map(|bytes| Some(bytes.clone().unbind())),
                };
                match short {
                    Some(pending) => Ok($class {
                        digest_size,
                        key: key.map(Bound::unbind),
                        pending,
                        state: Locked::new(None),
                        fed: AtomicBool::new(false),
                    }),
                    None => {
                        let state = Box::new(Self::first_state(digest_size, bytes_of(&key)));
                        Self::with_data(py, digest_size, state, data)
                    }
                }
            }

            /// The object for the constructor's parameters, checked as hashlib checks them.
            #[allow(clippy::too_many_arguments)]
            fn with_parameters(
                py: Python<'_>,
                data: Option<&Bound<'_, PyAny>>,
                digest_size: i64,
                key: Option<&Bound<'_, PyAny>>,
                salt: Option<&Bound<'_, PyAny>>,
                person: Option<&Bound<'_, PyAny>>,
                fanout: i64,
                depth: i64,
                leaf_size: Option<&Bound<'_, PyAny>>,
                node_offset: Option<&Bound<'_, PyAny>>,
                node_depth: i64,
                inner_size: i64,
                last_node: bool,
            ) -> PyResult<Self> {
                let digest_size = in_range(digest_size, "digest_size", 1, $digest)? as usize;
                let key = short_bytes(key, "key", $key)?;
                // Only a digest size and a key: the state is built when first needed.
                let lazy = salt.is_none() && person.is_none()
                    && (fanout, depth, node_depth, inner_size) == (1, 1, 0, 0)
                    && leaf_size.is_none() && node_offset.is_none() && !last_node;
                if lazy {
                    return Self::lazy(py, digest_size, key, data);
                }
                let salt = short_bytes(salt, "salt", $salt)?;
                let person = short_bytes(person, "person", $person)?;
                let fanout = in_range(fanout, "fanout", 0, 255)? as u8;
                let depth = in_range(depth, "depth", 1, 255)? as u8;
                let leaf_size = match leaf_size {
                    Some(v) => field(v, "leaf_size", u32::MAX.into())? as u32,
                    None => 0,
                };
                let node_offset = match node_offset {
                    Some(v) => field(v, "node_offset", u64::MAX >> (64 - $offset_bits))?,
                    None => 0,
                };
                let node_depth = in_range(node_depth, "node_depth", 0, 255)? as u8;
                let inner_size = in_range(inner_size, "inner_size", 0, $digest)? as usize;
                let state = Box::new($simd::Params::new()
                    .hash_length(digest_size)
                    .key(bytes_of(&key))
                    .salt(bytes_of(&salt))
                    .personal(bytes_of(&person))
                    .fanout(fanout)
                    .max_depth(depth)
                    .max_leaf_length(leaf_size)
                    .node_offset(node_offset)
                    .node_depth(node_depth)
                    .inner_hash_length(inner_size)
                    .last_node(last_node)
                    .to_state());
                Self::with_data(py, digest_size, state, data)
            }

            /// The object for a fresh `state` and the constructor's data: a short `bytes` fed
            /// directly (no other thread can see the state yet), anything else as `update`
            /// feeds it (the GIL released for long data, other buffers copied in chunks).
            fn with_data(
                py: Python<'_>,
                digest_size: usize,
                mut state: Box<$simd::State>,
                data: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Self> {
                let short = data.and_then(|data| data.cast::<PyBytes>().ok())
                    .filter(|bytes| bytes.as_bytes().len() < RELEASE_GIL_AT);
                if let Some(bytes) = short {
                    state.update(bytes.as_bytes());
                }
                let hash = $class {
                    digest_size,
                    key: None,
                    pending: None,
                    state: Locked::new(Some(state)),
                    fed: AtomicBool::new(true),
                };
                if let (Some(data), None) = (data, short) {
                    hash.update(py, data)?;
                }
                Ok(hash)
            }
        }
    };
}

blake2_class!(Blake2b, "blake2b", blake2b_simd, block 128, digest 64, key 64, salt 16,
    person 16, offset_bits 64, signature "(data=None, /, *, digest_size=64, key=None, salt=None, \
    person=None, fanout=1, depth=1, leaf_size=None, node_offset=None, node_depth=0, \
    inner_size=0, last_node=False, usedforsecurity=True)");
blake2_class!(Blake2s, "blake2s", blake2s_simd, block 64, digest 32, key 32, salt 8,
    person 8, offset_bits 48, signature "(data=None, /, *, digest_size=32, key=None, salt=None, \
    person=None, fanout=1, depth=1, leaf_size=None, node_offset=None, node_depth=0, \
    inner_size=0, last_node=False, usedforsecurity=True)");
