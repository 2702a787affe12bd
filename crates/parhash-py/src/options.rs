//! What a caller may choose besides the algorithm, read from Python arguments and checked once:
//! the algorithm's name, threads, PARSHA-256's tree parameters, an implementation variant.

use std::collections::HashMap;
use std::sync::Mutex;

use parhash::parsha256::{DEFAULT_IV_BITS, DEFAULT_TREE_HEIGHT, MAX_TREE_HEIGHT};
use parhash::{Algorithm, Error, Hasher, HasherBuilder, Threads, TreeParams, Variant};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::error;

/// Looks `name` up as the CLI does (canonical names and aliases, ignoring case and `-`, `_`,
/// `/`, `.`, spaces). Names found before are remembered: the registry's lookup normalises every
/// alias on each call, which would cost more than hashing a short message.
pub(crate) fn algorithm(name: &str) -> PyResult<Algorithm> {
    static FOUND: Mutex<Option<HashMap<String, Algorithm>>> = Mutex::new(None);
    /// Enough for every spelling a program uses; a program inventing names cannot grow it.
    const REMEMBERED: usize = 1024;
    let mut found = FOUND.lock().unwrap_or_else(|e| e.into_inner());
    let found = found.get_or_insert_with(HashMap::new);
    if let Some(&alg) = found.get(name) {
        return Ok(alg);
    }
    match Algorithm::from_name(name) {
        Ok(alg) => {
            if found.len() < REMEMBERED {
                found.insert(name.to_string(), alg);
            }
            Ok(alg)
        }
        Err(Error::UnknownAlgorithm { suggestion, .. }) => {
            let hint = suggestion.map_or(String::new(), |s| format!("; did you mean '{s}'?"));
            Err(PyValueError::new_err(format!(
                "unknown algorithm '{name}'{hint} (parhash.algorithms_available lists them all)"
            )))
        }
        Err(other) => Err(error::Error::value(other).into()),
    }
}

/// The Python name of an algorithm's constructor: its canonical name with `_` for `-`
/// (`sha3-256` -> `sha3_256`, as hashlib spells it).
pub(crate) fn constructor_name(alg: Algorithm) -> String {
    alg.name().replace('-', "_")
}

/// The name Python shows for an algorithm (`name`, `algorithms_available`): hashlib's spelling
/// for the algorithms hashlib has (`sha3_256`, `sha512_224`, `shake_128`), the library's
/// canonical name for the others (`sandstorm256`, `skein512-256`).
pub(crate) fn py_name(alg: Algorithm) -> &'static str {
    match alg {
        Algorithm::Sha512_224 => "sha512_224",
        Algorithm::Sha512_256 => "sha512_256",
        Algorithm::Sha3_224 => "sha3_224",
        Algorithm::Sha3_256 => "sha3_256",
        Algorithm::Sha3_384 => "sha3_384",
        Algorithm::Sha3_512 => "sha3_512",
        Algorithm::Shake128 => "shake_128",
        Algorithm::Shake256 => "shake_256",
        other => other.name(),
    }
}

/// `threads=`: `None` or 0 for all cores, otherwise at most that many.
pub(crate) fn threads(threads: Option<i64>) -> PyResult<Threads> {
    match threads {
        None | Some(0) => Ok(Threads::ALL),
        Some(n) if n > 0 => Ok(Threads::new(usize::try_from(n).unwrap_or(usize::MAX))),
        Some(n) => Err(PyValueError::new_err(format!(
            "threads must be None, 0 (all cores) or a positive count, not {n}"
        ))),
    }
}

/// Everything a hasher is built from besides the algorithm.
#[derive(Clone, Debug, Default)]
pub(crate) struct Options {
    pub threads: Threads,
    /// PARSHA-256's (T, l); `None` = the defaults (and the only choice for other algorithms).
    pub tree: Option<TreeParams>,
    /// Parsed once, here, from the keyword argument.
    pub variant: Option<Variant>,
    /// The digest size in bytes for the algorithms with a choice (BLAKE2, BLAKE3, SHAKE);
    /// `None` = the algorithm's default.
    pub digest_size: Option<usize>,
}

impl Options {
    /// Checks the keyword arguments for `alg`: tree parameters only for PARSHA-256 (in range),
    /// a variant this CPU has.
    pub fn new(
        alg: Algorithm,
        threads: Option<i64>,
        tree_height: Option<i64>,
        iv_bits: Option<i64>,
        variant: Option<String>,
        digest_size: Option<i64>,
    ) -> PyResult<Options> {
        let tree = if tree_height.is_none() && iv_bits.is_none() {
            None
        } else if !alg.takes_tree_params() {
            return Err(PyTypeError::new_err(format!(
                "{alg} takes no tree_height or iv_bits (only parsha256 has tree parameters)"
            )));
        } else {
            Some(tree_params(tree_height, iv_bits)?)
        };
        let digest_size = match digest_size {
            None => None,
            Some(size) => Some(usize::try_from(size).map_err(|_| {
                PyValueError::new_err(format!("digest_size must be positive, not {size}"))
            })?),
        };
        let variant = variant
            .map(|name| alg.variant(&name))
            .transpose()
            .map_err(error::Error::value)?;
        let options = Options {
            threads: self::threads(threads)?,
            tree,
            variant,
            digest_size,
        };
        if options.variant.is_some() || options.digest_size.is_some() {
            // Fails now, with the list of variants or sizes, rather than at the first update.
            options.builder(alg).build().map_err(error::Error::value)?;
        }
        Ok(options)
    }

    /// The parameters PARSHA-256 runs with.
    pub fn tree_params(&self) -> TreeParams {
        self.tree.unwrap_or_default()
    }

    /// The library's builder with these options.
    pub fn builder(&self, alg: Algorithm) -> HasherBuilder {
        let mut builder = Hasher::builder(alg).threads(self.threads);
        if let Some(params) = self.tree {
            builder = builder.tree_params(params);
        }
        if let Some(variant) = self.variant {
            builder = builder.variant(variant);
        }
        if let Some(size) = self.digest_size {
            builder = builder.digest_size(size);
        }
        builder
    }
}

/// Checked (T, l), each defaulting to the CLI's default, with the valid range in the error.
pub(crate) fn tree_params(tree_height: Option<i64>, iv_bits: Option<i64>) -> PyResult<TreeParams> {
    let t = tree_height.unwrap_or(DEFAULT_TREE_HEIGHT.into());
    let l = iv_bits.unwrap_or(DEFAULT_IV_BITS.into());
    if !(1..=i64::from(MAX_TREE_HEIGHT)).contains(&t) {
        return Err(PyValueError::new_err(format!(
            "tree_height must be in 1..={MAX_TREE_HEIGHT}, not {t}"
        )));
    }
    if !matches!(l, 0 | 128 | 256) {
        return Err(PyValueError::new_err(format!(
            "iv_bits must be 0, 128 or 256, not {l}"
        )));
    }
    Ok(TreeParams::new(t as u32, l as u32).map_err(error::Error::value)?)
}
