//! A delay that never asks the underlying delay for more than one second at a time.
//!
//! Some HAL delays overflow on long waits: `stm32f4xx-hal`'s SysTick delay multiplies the
//! microseconds by the clock in MHz in a `u32`, which wraps (a silently short wait in release
//! builds) beyond about 43 s at 100 MHz; the growth period is an hour. [`Chunked`] splits
//! `delay_ms` and `delay_us` into waits of at most [`MAX_CHUNK_MS`].

use embedded_hal::delay::DelayNs;

/// Longest single wait passed to the underlying delay, in milliseconds.
pub const MAX_CHUNK_MS: u32 = 1_000;

/// Wraps a delay so that long waits are made of chunks of at most [`MAX_CHUNK_MS`].
#[derive(Debug, Clone, Copy)]
pub struct Chunked<D>(pub D);

impl<D: DelayNs> DelayNs for Chunked<D> {
    fn delay_ns(&mut self, ns: u32) {
        // At most 4.3 s: split into whole milliseconds and the rest.
        self.delay_ms(ns / 1_000_000);
        self.0.delay_ns(ns % 1_000_000);
    }

    fn delay_us(&mut self, us: u32) {
        self.delay_ms(us / 1_000);
        self.0.delay_us(us % 1_000);
    }

    fn delay_ms(&mut self, mut ms: u32) {
        while ms > 0 {
            let chunk = ms.min(MAX_CHUNK_MS);
            self.0.delay_ms(chunk);
            ms -= chunk;
        }
    }
}
