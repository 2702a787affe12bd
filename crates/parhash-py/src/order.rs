//! `parhash.format.in_order(steps, hasher)`: a plan's steps in input order, the hashed ones
//! with the hasher's results between those passed through, as `parhash sum -o` writes its
//! lists (`parhash_format::order`, the CLI's own queue and bound).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use parhash_format::order::InputOrder;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyIterator;

/// The steps waiting for the hasher: each step's payload.
type Waiting = Rc<RefCell<InputOrder<Py<PyAny>, Py<PyAny>>>>;

/// A step's payload and its result (None for a step passed through).
type Out = (Py<PyAny>, Option<Py<PyAny>>);

/// `(payload, result)` for each step `(name to hash or None, payload)` of `steps`, in order:
/// the hasher's result for a name, None for the others. `hasher` takes an iterable of names
/// and yields `(name, result)` for each, in order. At most `InputOrder::MAX_WAITING` steps
/// wait for a hashed file before them (then the hasher is drained and called again), so a
/// long run of steps passed through costs no more memory than that.
#[pyclass(module = "parhash.format", unsendable)]
pub(crate) struct InOrder {
    steps: Py<PyIterator>,
    hasher: Py<PyAny>,
    waiting: Waiting,
    /// Set once `steps` ran out.
    exhausted: Rc<Cell<bool>>,
    /// The hasher's results of the round under way.
    results: Option<Py<PyIterator>>,
    /// What comes out next, in order.
    ready: VecDeque<Out>,
}

/// The names of one round of the hasher: the steps taken until [`InputOrder::MAX_WAITING`]
/// wait, those passed through queued in their places.
#[pyclass(module = "parhash.format", unsendable)]
struct Names {
    steps: Py<PyIterator>,
    waiting: Waiting,
    exhausted: Rc<Cell<bool>>,
    stopped: bool,
}

#[pymethods]
impl Names {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        loop {
            if self.stopped || self.waiting.borrow().is_full() {
                self.stopped = true;
                return Ok(None);
            }
            let Some(step) = self.steps.bind(py).clone().next() else {
                self.exhausted.set(true);
                self.stopped = true;
                return Ok(None);
            };
            let (name, payload): (Option<Py<PyAny>>, Py<PyAny>) = step?.extract()?;
            let mut waiting = self.waiting.borrow_mut();
            match name {
                Some(name) => {
                    waiting.hashed(payload);
                    return Ok(Some(name));
                }
                None => waiting.kept(payload),
            }
        }
    }
}

impl InOrder {
    /// The steps passed through at the head of the queue, ready to come out.
    fn kept_first(&mut self) {
        let mut waiting = self.waiting.borrow_mut();
        self.ready
            .extend(waiting.kept_first().map(|payload| (payload, None)));
    }
}

#[pymethods]
impl InOrder {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Out>> {
        loop {
            if let Some(out) = self.ready.pop_front() {
                return Ok(Some(out));
            }
            if let Some(results) = &self.results {
                match results.bind(py).clone().next() {
                    Some(item) => {
                        let (_name, result): (Py<PyAny>, Py<PyAny>) = item?.extract()?;
                        self.kept_first();
                        if self.waiting.borrow().is_empty() {
                            return Err(PyRuntimeError::new_err(
                                "the hasher gave more results than it was given names",
                            ));
                        }
                        let payload = self.waiting.borrow_mut().next_hashed();
                        self.ready.push_back((payload, Some(result)));
                    }
                    None => {
                        self.results = None;
                        self.kept_first();
                        if !self.waiting.borrow().is_empty() {
                            return Err(PyRuntimeError::new_err(
                                "the hasher gave fewer results than it was given names",
                            ));
                        }
                    }
                }
                continue;
            }
            if self.exhausted.get() {
                return Ok(None);
            }
            let names = Names {
                steps: self.steps.clone_ref(py),
                waiting: Rc::clone(&self.waiting),
                exhausted: Rc::clone(&self.exhausted),
                stopped: false,
            };
            let results = self.hasher.bind(py).call1((names,))?;
            self.results = Some(results.try_iter()?.unbind());
        }
    }
}

/// `(payload, result)` for each step `(name to hash or None, payload)` of `steps`, in order,
/// the names hashed by `hasher` (see `InOrder`); at most `max_waiting` steps wait
/// (`MAX_WAITING` by default).
#[pyfunction]
#[pyo3(signature = (steps, hasher, *, max_waiting=InputOrder::<(), ()>::MAX_WAITING))]
pub(crate) fn in_order(
    steps: &Bound<'_, PyAny>,
    hasher: Py<PyAny>,
    max_waiting: usize,
) -> PyResult<InOrder> {
    Ok(InOrder {
        steps: steps.try_iter()?.unbind(),
        hasher,
        waiting: Rc::new(RefCell::new(InputOrder::with_limit(max_waiting))),
        exhausted: Rc::default(),
        results: None,
        ready: VecDeque::new(),
    })
}

pub(crate) fn add(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<InOrder>()?;
    module.add_function(wrap_pyfunction!(in_order, module)?)?;
    module.add("MAX_WAITING", InputOrder::<(), ()>::MAX_WAITING)?;
    Ok(())
}
