//! A hash state that Python threads share: calls take turns on a mutex, as hashlib's objects
//! do, and the GIL is released while a large input is hashed (never while waiting for the
//! state with the GIL held, which the thread holding the state may need back).

use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

use pyo3::prelude::*;

use crate::buffers::{Data, COPY_CHUNK, RELEASE_GIL_AT};

/// One hash state behind a mutex.
pub(crate) struct Locked<S>(Mutex<S>);

impl<S: Send> Locked<S> {
    pub(crate) fn new(state: S) -> Self {
        Locked(Mutex::new(state))
    }

    /// Runs `f` on the state: at once for less than [`RELEASE_GIL_AT`] bytes of work if no
    /// other thread holds the state, otherwise with the GIL released.
    pub(crate) fn with<R: Send>(
        &self,
        py: Python<'_>,
        work_bytes: usize,
        f: impl FnOnce(&mut S) -> R + Send,
    ) -> R {
        if work_bytes < RELEASE_GIL_AT {
            match self.0.try_lock() {
                Ok(mut state) => return f(&mut state),
                Err(TryLockError::Poisoned(poisoned)) => return f(&mut poisoned.into_inner()),
                Err(TryLockError::WouldBlock) => {}
            }
        }
        py.detach(|| f(&mut lock(&self.0)))
    }

    /// Feeds `data`'s bytes to the state with `update` (buffers.rs's rule: `bytes` in place,
    /// any other buffer copied a chunk at a time).
    pub(crate) fn feed(
        &self,
        py: Python<'_>,
        data: &Data<'_>,
        update: impl Fn(&mut S, &[u8]) + Sync,
    ) -> PyResult<()> {
        data.for_each_piece(COPY_CHUNK, |piece| {
            let bytes = piece.as_bytes();
            self.with(py, bytes.len(), |state| update(state, bytes));
            Ok(())
        })
    }
}

fn lock<S>(state: &Mutex<S>) -> MutexGuard<'_, S> {
    // A panic while hashing leaves no half-updated state worth refusing: go on.
    state.lock().unwrap_or_else(PoisonError::into_inner)
}
