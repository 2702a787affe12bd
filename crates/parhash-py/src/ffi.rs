//! The one place where this extension goes below PyO3's safe API: marking its types immutable,
//! as hashlib's are (`type(h).x = 1` is hashlib's `TypeError: cannot set 'x' attribute of
//! immutable type '...'`), and making its exception class ([`new_exception_type`]).
//!
//! CPython's flag for this, `Py_TPFLAGS_IMMUTABLETYPE`, exists from 3.10 on. PyO3 0.27 sets it
//! (`#[pyclass(immutable_type)]`) only for a version-specific build from 3.10 or an abi3 build
//! for 3.14 and newer (`PyType_Freeze`): the limited API keeps `PyTypeObject` opaque before
//! 3.14, and this package ships one abi3 wheel for 3.9 and newer. So [`make_immutable`] does
//! what PyO3 does for the version-specific build (`tp_flags |= Py_TPFLAGS_IMMUTABLETYPE`, then
//! `PyType_Modified`), finding `tp_flags` by its offset and checking it against the limited
//! API's `PyType_GetFlags` before writing anything. On 3.9 there is no such flag (hashlib's
//! types there are static types, immutable by construction): nothing is done.

use std::ffi::{c_void, CStr};
use std::mem::size_of;
use std::os::raw::{c_uint, c_ulong};

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyType;

/// `Py_TPFLAGS_IMMUTABLETYPE` (CPython 3.10+; pyo3-ffi leaves it out of the abi3-py39 build).
const IMMUTABLETYPE: c_ulong = 1 << 8;

/// `Py_TPFLAGS_HEAPTYPE`: a type made at run time (every `#[pyclass]`).
const HEAPTYPE: c_ulong = 1 << 9;

/// Where `tp_flags` lies in a type object on CPython 3.9 to 3.14 with the GIL (the builds that
/// load abi3 modules): after `PyObject_VAR_HEAD` (`ob_refcnt`, `ob_type`, `ob_size`) and the 18
/// pointer-sized fields `tp_name` ... `tp_as_buffer`.
const FLAGS_OFFSET: usize = (3 + 18) * size_of::<usize>();

/// Marks `ty`, a type this module made, immutable (its attributes can no longer be set or
/// deleted); returns whether it is immutable afterwards. Does nothing and returns `false`
/// before CPython 3.10, on a free-threaded build, for a static type, or when the word at
/// `tp_flags`'s offset is not the type's flags (a layout this code does not know).
pub(crate) fn make_immutable(ty: &Bound<'_, PyType>) -> bool {
    let py = ty.py();
    if py.version_info() < (3, 10) || free_threaded(py) {
        return false;
    }
    let type_ptr = ty.as_type_ptr();
    // SAFETY: `type_ptr` is a live type object (`ty` holds a reference) and the GIL is held
    // (`py`); PyType_GetFlags is in the limited API and only reads.
    let flags = unsafe { ffi::PyType_GetFlags(type_ptr) };
    if flags & IMMUTABLETYPE != 0 {
        return true;
    }
    if flags & HEAPTYPE == 0 {
        return false;
    }
    let field = type_ptr
        .cast::<u8>()
        .wrapping_add(FLAGS_OFFSET)
        .cast::<c_ulong>();
    // SAFETY: a heap type is a `PyHeapTypeObject`, which begins with a whole `PyTypeObject`
    // (over 40 words on every CPython), so the word at FLAGS_OFFSET (21 words in) lies inside
    // the object; it is aligned (a multiple of the word size, and c_ulong is at most a word),
    // and it is plain data whatever field holds it. The GIL is held: nothing writes it meanwhile.
    let word = unsafe { field.read() };
    if word != flags {
        return false;
    }
    // SAFETY: the word just read is `tp_flags` (it equals PyType_GetFlags' answer, on an
    // interpreter whose layout puts `tp_flags` there); writing it with the GIL held is what
    // CPython and PyO3's version-specific builds do, and PyType_Modified then drops what
    // CPython cached about the type.
    unsafe {
        field.write(flags | IMMUTABLETYPE);
        ffi::PyType_Modified(type_ptr);
    }
    true
}

/// Whether this interpreter is a free-threaded build (its `sys.abiflags` has a `t`): its object
/// header differs and it does not load abi3 modules anyway.
fn free_threaded(py: Python<'_>) -> bool {
    py.import("sys")
        .and_then(|sys| sys.getattr("abiflags"))
        .and_then(|flags| flags.extract::<String>())
        .is_ok_and(|flags| flags.contains('t'))
}

/// A new exception class, subclass of `base`, named `name` in full (`parhash.FileChanged`:
/// its `__module__` is what precedes the last dot) with the docstring `doc`. Made from a type
/// spec, as PyO3 makes classes, its C name is the full name as theirs are (messages about
/// the type name it as they name the other classes); `PyErr_NewException`, which PyO3's
/// `create_exception!` calls, gives it the bare name.
pub(crate) fn new_exception_type<'py>(
    py: Python<'py>,
    name: &'static CStr,
    doc: &'static CStr,
    base: &Bound<'py, PyType>,
) -> PyResult<Bound<'py, PyType>> {
    let mut slots = [
        ffi::PyType_Slot {
            slot: ffi::Py_tp_doc,
            pfunc: doc.as_ptr().cast_mut().cast::<c_void>(),
        },
        ffi::PyType_Slot {
            slot: 0,
            pfunc: std::ptr::null_mut(),
        },
    ];
    let mut spec = ffi::PyType_Spec {
        name: name.as_ptr(),
        // 0: the base's size (an exception adds no fields).
        basicsize: 0,
        itemsize: 0,
        flags: (ffi::Py_TPFLAGS_DEFAULT | ffi::Py_TPFLAGS_BASETYPE) as c_uint,
        slots: slots.as_mut_ptr(),
    };
    let bases = pyo3::types::PyTuple::new(py, [base])?;
    // SAFETY: the GIL is held (`py`); `spec` and `slots` live through the call, which copies
    // what it keeps of them (the doc string), while `name` and `doc` are 'static as the type's
    // name must be (its C name points into it); the slot list ends with a zeroed slot;
    // `bases` is a live tuple of one type. The result is a new reference or NULL with an
    // exception set, which `from_owned_ptr_or_err` takes over.
    let made = unsafe {
        let ptr = ffi::PyType_FromSpecWithBases(&mut spec, bases.as_ptr());
        Bound::from_owned_ptr_or_err(py, ptr)?
    };
    Ok(made.cast_into::<PyType>()?)
}
