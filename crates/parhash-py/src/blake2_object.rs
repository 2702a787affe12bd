//! `parhash.blake2b` and `parhash.blake2s`: hashlib's BLAKE2 types, with every parameter of
//! RFC 7693's parameter block (digest size, key, salt, personalization, and the tree
//! parameters fanout, depth, leaf size, node offset, node depth, inner size, last node) and
//! hashlib's constants (`SALT_SIZE`, `PERSON_SIZE`, `MAX_KEY_SIZE`, `MAX_DIGEST_SIZE`).
//!
//! The hashing is the `blake2b_simd`/`blake2s_simd` crates' (their `Params` is the whole
//! parameter block; AVX2 compression where the CPU has it). Checks and errors are hashlib's:
//! a ValueError out of range, an OverflowError for `leaf_size`/`node_offset` past their
//! fields, data positional only.

use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buffers::{Data, RELEASE_GIL_AT};
use crate::locked::Locked;

/// The bytes of a buffer argument (`key`, `salt`, `person`), at most `max` of them.
fn short_bytes(arg: Option<&Bound<'_, PyAny>>, what: &str, max: usize) -> PyResult<Vec<u8>> {
    let Some(arg) = arg else {
        return Ok(Vec::new());
    };
    let bytes = Data::new(arg)?.into_bytes()?.as_bytes().to_vec();
    if bytes.len() > max {
        return Err(PyValueError::new_err(format!(
            "maximum {what} length is {max} bytes"
        )));
    }
    Ok(bytes)
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
     key $key:tt, salt $salt:tt, person $person:tt, offset_bits $offset_bits:tt) => {
        #[doc = concat!(
            "hashlib's `", $name, "`: `", $name, "(data=b'', /, *, digest_size=", $digest,
            ", key=b'', salt=b'', person=b'', fanout=1, depth=1, leaf_size=0, node_offset=0, ",
            "node_depth=0, inner_size=0, last_node=False, usedforsecurity=True)`."
        )]
        #[pyclass(module = "parhash", name = $name, frozen)]
        pub(crate) struct $class {
            digest_size: usize,
            state: Locked<$simd::State>,
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
            #[pyo3(signature = (
                data = None, /, *, digest_size = $digest, key = None, salt = None, person = None,
                fanout = 1, depth = 1, leaf_size = None, node_offset = None, node_depth = 0,
                inner_size = 0, last_node = false, usedforsecurity = true
            ))]
            #[allow(clippy::too_many_arguments)]
            fn py_new(
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
                usedforsecurity: bool,
            ) -> PyResult<Self> {
                // hashlib's flag: every algorithm is offered either way.
                let _ = usedforsecurity;
                let digest_size = in_range(digest_size, "digest_size", 1, $digest)? as usize;
                // The common call, `blake2b(data)`: no parameter block to build (per call at
                // 64 B the constructor's checks cost as much as the compression).
                let plain = key.is_none() && salt.is_none() && person.is_none()
                    && (fanout, depth, node_depth, inner_size) == (1, 1, 0, 0)
                    && leaf_size.is_none() && node_offset.is_none() && !last_node;
                if plain {
                    let state = if digest_size == $digest {
                        $simd::State::new()
                    } else {
                        $simd::Params::new().hash_length(digest_size).to_state()
                    };
                    return Self::with_data(py, digest_size, state, data);
                }
                let key = short_bytes(key, "key", $key)?;
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
                let state = $simd::Params::new()
                    .hash_length(digest_size)
                    .key(&key)
                    .salt(&salt)
                    .personal(&person)
                    .fanout(fanout)
                    .max_depth(depth)
                    .max_leaf_length(leaf_size)
                    .node_offset(node_offset)
                    .node_depth(node_depth)
                    .inner_hash_length(inner_size)
                    .last_node(last_node)
                    .to_state();
                Self::with_data(py, digest_size, state, data)
            }

            /// Feeds more bytes (any buffer; `str` is a TypeError, as in hashlib).
            #[pyo3(signature = (data, /))]
            fn update(&self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
                let data = Data::new(data)?;
                self.state.feed(py, &data, |state, bytes| {
                    state.update(bytes);
                })
            }

            /// The digest of everything fed so far; the object goes on accepting data.
            fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                let hash = self.state.with(py, 0, |state| state.finalize());
                PyBytes::new(py, hash.as_bytes())
            }

            /// The digest as lowercase hexadecimal.
            fn hexdigest(&self, py: Python<'_>) -> String {
                let hash = self.state.with(py, 0, |state| state.finalize());
                hash.to_hex().to_string()
            }

            /// An independent copy of this object, in the same state.
            fn copy(&self, py: Python<'_>) -> Self {
                $class {
                    digest_size: self.digest_size,
                    state: Locked::new(self.state.with(py, 0, |state| state.clone())),
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
            /// The object for a fresh `state` and the constructor's data: a short `bytes` fed
            /// directly (no other thread can see the state yet), anything else as `update`
            /// feeds it (the GIL released for long data, other buffers copied in chunks).
            fn with_data(
                py: Python<'_>,
                digest_size: usize,
                mut state: $simd::State,
                data: Option<&Bound<'_, PyAny>>,
            ) -> PyResult<Self> {
                let short = data.and_then(|data| data.cast::<PyBytes>().ok())
                    .filter(|bytes| bytes.as_bytes().len() < RELEASE_GIL_AT);
                if let Some(bytes) = short {
                    state.update(bytes.as_bytes());
                }
                let hash = $class { digest_size, state: Locked::new(state) };
                if let (Some(data), None) = (data, short) {
                    hash.update(py, data)?;
                }
                Ok(hash)
            }
        }
    };
}

blake2_class!(Blake2b, "blake2b", blake2b_simd, block 128, digest 64, key 64, salt 16,
    person 16, offset_bits 64);
blake2_class!(Blake2s, "blake2s", blake2s_simd, block 64, digest 32, key 32, salt 8,
    person 8, offset_bits 48);
