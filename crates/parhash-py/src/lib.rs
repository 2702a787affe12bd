//! The Python module `parhash._parhash`, re-exported by the `parhash` package
//! (`python/parhash/__init__.py`): hashlib-compatible objects for every parhash algorithm,
//! many messages at once, files, and the tree modes' parts. docs/python.md tells the whole
//! story; `tests/` is the pytest suite.

// Safe Rust throughout, but for one function: ffi.rs marks the types immutable.
#![deny(unsafe_code)]

mod blake2_object;
mod blake3_object;
mod buffers;
mod error;
#[allow(unsafe_code)]
mod ffi;
mod files;
mod format;
mod forms;
mod gpu;
mod hash_object;
mod keys;
mod list_file;
mod listing;
mod lists;
mod locked;
mod many;
mod multipart;
mod options;
mod order;
mod outboard;
mod parts;
mod ranges;
mod store;
mod subtree;

use parhash::Algorithm;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFrozenSet, PyType};

#[pymodule]
fn _parhash(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add_class::<hash_object::Hash>()?;
    module.add_class::<hash_object::Constructor>()?;
    // hashlib's and blake3-py's types, under their names: constructors and types at once.
    module.add_class::<blake2_object::Blake2b>()?;
    module.add_class::<blake2_object::Blake2s>()?;
    module.add_class::<blake3_object::Blake3Hash>()?;
    module.add_class::<files::FileDigests>()?;
    module.add_class::<parts::PartPlan>()?;
    module.add_class::<keys::KeyWalk>()?;
    error::add(module)?;
    module.add_function(wrap_pyfunction!(hash_object::new, module)?)?;
    module.add_function(wrap_pyfunction!(files::hash_file, module)?)?;
    module.add_function(wrap_pyfunction!(files::hash_files, module)?)?;
    module.add_function(wrap_pyfunction!(many::hash_many, module)?)?;
    module.add_function(wrap_pyfunction!(gpu::gpu_device, module)?)?;
    module.add_function(wrap_pyfunction!(multipart::multipart_file, module)?)?;
    module.add_function(wrap_pyfunction!(multipart::multipart_files, module)?)?;
    module.add_function(wrap_pyfunction!(multipart::candidate_part_sizes, module)?)?;
    module.add_function(wrap_pyfunction!(multipart::multipart_value, module)?)?;
    module.add_function(wrap_pyfunction!(forms::multipart_combine, module)?)?;
    module.add_function(wrap_pyfunction!(outboard::outboard_file, module)?)?;
    module.add_function(wrap_pyfunction!(outboard::verify_range, module)?)?;
    module.add_function(wrap_pyfunction!(parts::splits, module)?)?;
    module.add_function(wrap_pyfunction!(keys::walk_keys, module)?)?;
    module.add_function(wrap_pyfunction!(listing::listing_page, module)?)?;
    module.add_function(wrap_pyfunction!(parts::takes_tree_params, module)?)?;
    hash_object::add_constructors(module)?;
    subtree::add(module)?;
    ranges::add(module)?;
    format::add(module)?;
    lists::add(module)?;
    order::add(module)?;
    list_file::add(module)?;
    store::add(module)?;
    // hashlib's spellings for hashlib's algorithms (`sha3_256`, not `sha3-256`), as hashlib's
    // own set has them; `new` takes every other spelling too.
    let names: Vec<&str> = Algorithm::ALL
        .iter()
        .map(|&a| options::py_name(a))
        .collect();
    module.add("algorithms_available", PyFrozenSet::new(py, &names)?)?;
    // Each algorithm's digest sizes in bytes, (min, max), in the library's order (`parhash
    // list`'s): parhash.distributed checks `-l` and lists algorithms as the CLI does.
    let sizes = PyDict::new(py);
    for algorithm in Algorithm::ALL {
        let range = algorithm.digest_sizes();
        sizes.set_item(algorithm.name(), (range.min, range.max))?;
    }
    module.add("_digest_sizes", sizes)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // Every class is immutable, as hashlib's types are (from CPython 3.10; ffi.rs). Last, once
    // PyO3 has filled in the classes' attributes.
    for (_, value) in module.dict().iter() {
        if let Ok(class) = value.cast::<PyType>() {
            ffi::make_immutable(class);
        }
    }
    Ok(())
}
