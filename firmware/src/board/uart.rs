//! The CMSDK APB UART of the mps2-an386 (ARM AN386, Cortex-M4 on the MPS2 board), polled.
//!
//! Registers (ARM Cortex-M System Design Kit TRM, "APB UART"), offsets from the base:
//!
//! | offset | name       | use here |
//! |-------:|------------|----------|
//! | `0x00` | `DATA`     | write: transmit a byte; read: the received byte |
//! | `0x04` | `STATE`    | bit 0 TX buffer full, bit 1 RX buffer full, bits 2/3 TX/RX overrun (write 1 to clear) |
//! | `0x08` | `CTRL`     | bit 0 TX enable, bit 1 RX enable |
//! | `0x10` | `BAUDDIV`  | baud divider, at least 16 |
//!
//! QEMU connects UART0 (`0x4000_4000`) to the first `-serial` backend (for example
//! `-serial tcp:127.0.0.1:PORT,server=on,wait=on`). The baud rate means nothing to QEMU.

use core::convert::Infallible;
use core::sync::atomic::{AtomicBool, Ordering};

/// Base address of UART0.
pub const UART0_BASE: usize = 0x4000_4000;
const DATA: usize = 0x00;
const STATE: usize = 0x04;
const CTRL: usize = 0x08;
const BAUDDIV: usize = 0x10;
const STATE_TX_FULL: u32 = 1 << 0;
const STATE_RX_FULL: u32 = 1 << 1;
const STATE_OVERRUNS: u32 = (1 << 2) | (1 << 3);
const CTRL_TX_RX: u32 = 0b11;

static TAKEN: AtomicBool = AtomicBool::new(false);

/// UART0, owned: at most one exists ([`Uart0::take`]).
#[derive(Debug)]
pub struct Uart0 {
    _private: (),
}

fn read(offset: usize) -> u32 {
    // SAFETY: UART0's registers are device memory at UART0_BASE on the mps2-an386 (the only
    // machine this module is built for); word reads have no side effect except DATA's (pops
    // the received byte), which only `Uart0`'s owner does.
    unsafe { core::ptr::read_volatile((UART0_BASE + offset) as *const u32) }
}

fn write(offset: usize, value: u32) {
    // SAFETY: as in `read`; writes go only through the single `Uart0` owner.
    unsafe { core::ptr::write_volatile((UART0_BASE + offset) as *mut u32, value) }
}

impl Uart0 {
    /// Takes UART0 and enables its transmitter and receiver; `None` if already taken.
    pub fn take() -> Option<Self> {
        if TAKEN.swap(true, Ordering::AcqRel) {
            return None;
        }
        write(BAUDDIV, 16);
        write(STATE, STATE_OVERRUNS);
        write(CTRL, CTRL_TX_RX);
        Some(Uart0 { _private: () })
    }

    /// Sends one byte (waits while the transmit buffer is full).
    pub fn write_byte(&mut self, b: u8) {
        while read(STATE) & STATE_TX_FULL != 0 {
            core::hint::spin_loop();
        }
        write(DATA, u32::from(b));
    }

    /// A received byte, if one is waiting.
    pub fn try_read_byte(&mut self) -> Option<u8> {
        let state = read(STATE);
        if state & STATE_OVERRUNS != 0 {
            write(STATE, STATE_OVERRUNS);
        }
        (state & STATE_RX_FULL != 0).then(|| read(DATA) as u8)
    }
}

impl embedded_io::ErrorType for Uart0 {
    type Error = Infallible;
}

impl embedded_io::Read for Uart0 {
    /// Waits for at least one byte, then returns what has arrived (up to `buf.len()`).
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Infallible> {
        if buf.is_empty() {
            return Ok(0);
        }
        let mut n = 0;
        while n == 0 {
            if let Some(b) = self.try_read_byte() {
                buf[0] = b;
                n = 1;
            } else {
                core::hint::spin_loop();
            }
        }
        while n < buf.len() {
            match self.try_read_byte() {
                Some(b) => {
                    buf[n] = b;
                    n += 1;
                }
                None => break,
            }
        }
        Ok(n)
    }
}

impl embedded_io::Write for Uart0 {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        for &b in buf {
            self.write_byte(b);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> Result<(), Infallible> {
        Ok(())
    }
}
