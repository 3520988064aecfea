//! A `Sync` cell for single-core firmware state.

use core::cell::Cell;

/// A `Sync` cell for single-core firmware state that is never touched concurrently.
pub(crate) struct Global<T>(Cell<T>);
// SAFETY: single core; the values are only accessed from thread mode, or from a fault handler
// that never returns to the interrupted code.
unsafe impl<T> Sync for Global<T> {}
impl<T: Copy> Global<T> {
    pub(crate) const fn new(v: T) -> Self {
        Global(Cell::new(v))
    }
    pub(crate) fn get(&self) -> T {
        self.0.get()
    }
    pub(crate) fn set(&self, v: T) {
        self.0.set(v)
    }
}
