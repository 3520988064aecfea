//! Stack high-water mark: [`paint`] fills the unused stack with a pattern, [`usage`] later finds
//! the deepest word that was overwritten.
//!
//! cortex-m-rt places the stack at the top of RAM, growing down towards `.bss`/`.data`
//! (`_stack_start` .. `_stack_end`). Nothing stops an overflow from silently corrupting statics,
//! which is a real risk on the 16 KiB microbit; the harness therefore checks the mark.

use core::fmt;

use crate::global::Global;

const PATTERN: u32 = 0xC057_B0AA;
/// Bytes below the current stack pointer that `paint` leaves alone (its own frame).
const MARGIN: usize = 256;

static PAINTED: Global<bool> = Global::new(false);

extern "C" {
    static _stack_start: u32;
    static _stack_end: u32;
}

fn bounds() -> (usize, usize) {
    // Only the addresses of the linker symbols are taken (no read: no `unsafe` needed).
    (
        core::ptr::addr_of!(_stack_end) as usize,
        core::ptr::addr_of!(_stack_start) as usize & !7,
    )
}

/// Fills the stack below the current frame with a pattern. Call it early, from thread mode.
#[inline(never)]
pub fn paint() {
    let (bottom, _) = bounds();
    let sp = cortex_m::register::msp::read() as usize;
    let limit = sp.saturating_sub(MARGIN) & !3;
    let mut p = bottom;
    while p < limit {
        // SAFETY: the region between the end of the statics and the current stack frame is
        // unused RAM.
        unsafe { core::ptr::write_volatile(p as *mut u32, PATTERN) };
        p += 4;
    }
    PAINTED.set(true);
}

/// Stack use since [`paint`].
#[derive(Clone, Copy, Debug)]
pub struct StackUsage {
    /// Deepest use, in bytes (0 if [`paint`] was never called).
    pub used: usize,
    /// Size of the stack region, in bytes (RAM minus `.data` and `.bss`).
    pub size: usize,
}

impl StackUsage {
    /// True if the high-water mark stayed below 90% of the stack.
    pub fn ok(&self) -> bool {
        self.used * 10 < self.size * 9
    }
}

impl fmt::Display for StackUsage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "stack high-water mark {} of {} bytes, {}%",
            self.used,
            self.size,
            self.used * 100 / self.size.max(1)
        )
    }
}

/// The stack high-water mark since [`paint`].
pub fn usage() -> StackUsage {
    let (bottom, top) = bounds();
    let size = top - bottom;
    if !PAINTED.get() {
        return StackUsage { used: 0, size };
    }
    let mut p = bottom;
    // SAFETY: reads of RAM inside the stack region, below the live frames.
    while p < top && unsafe { core::ptr::read_volatile(p as *const u32) } == PATTERN {
        p += 4;
    }
    StackUsage {
        used: top - p,
        size,
    }
}
