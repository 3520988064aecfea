//! Semihosting I/O for QEMU (`-semihosting-config enable=on,target=native`).
//!
//! Output goes to QEMU's stdout. Unlike `cortex_m_semihosting::hprintln!`, printing here holds no
//! lock and no `RefCell`, so the panic and HardFault handlers can print even if the fault happened
//! in the middle of a print.

use core::fmt::{self, Write};
use cortex_m_semihosting::{hio, nr, syscall, syscall1};

pub(crate) use crate::global::Global;

static STDOUT: Global<Option<hio::HostStream>> = Global::new(None);

fn stdout() -> Option<hio::HostStream> {
    if STDOUT.get().is_none() {
        STDOUT.set(hio::hstdout().ok());
    }
    STDOUT.get()
}

/// Formats into a stack buffer and writes it in chunks, so that one `print!` costs one or a few
/// semihosting calls instead of one per formatting fragment.
struct Chunked(heapless::Vec<u8, 128>);

impl Chunked {
    fn flush(&mut self) {
        if !self.0.is_empty() {
            if let Some(mut out) = stdout() {
                let _ = out.write_all(&self.0);
            }
            self.0.clear();
        }
    }
}

impl Write for Chunked {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &b in s.as_bytes() {
            if self.0.is_full() {
                self.flush();
            }
            // Cannot fail: a full buffer was just flushed.
            let _ = self.0.push(b);
        }
        Ok(())
    }
}

#[doc(hidden)]
pub fn _print(args: fmt::Arguments) {
    let mut w = Chunked(heapless::Vec::new());
    let _ = w.write_fmt(args);
    w.flush();
}

/// Prints to QEMU's stdout through semihosting.
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => { $crate::semihosting::_print(format_args!($($arg)*)) };
}

/// Prints a line to QEMU's stdout through semihosting.
#[macro_export]
macro_rules! println {
    () => { $crate::semihosting::_print(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::semihosting::_print(format_args!("{}\n", format_args!($($arg)*))) };
}

/// `SYS_EXIT_EXTENDED`: like `SYS_EXIT` but carries an exit code (QEMU exits with it).
const SYS_EXIT_EXTENDED: usize = 0x20;
/// `ADP_Stopped_ApplicationExit`.
const ADP_STOPPED_APPLICATION_EXIT: usize = 0x20026;

/// Ends the program: QEMU exits with status `code` (0 = success).
pub fn exit(code: u32) -> ! {
    let block = [ADP_STOPPED_APPLICATION_EXIT, code as usize];
    // SAFETY: valid semihosting call with a two-word parameter block.
    unsafe { syscall(SYS_EXIT_EXTENDED, &block) };
    // Only reached if the host lacks SYS_EXIT_EXTENDED: plain SYS_EXIT gives 0 or 1.
    cortex_m_semihosting::debug::exit(if code == 0 {
        cortex_m_semihosting::debug::EXIT_SUCCESS
    } else {
        cortex_m_semihosting::debug::EXIT_FAILURE
    });
    loop {
        core::hint::spin_loop();
    }
}

/// Reads the semihosting command line into `buf` (QEMU builds it from the
/// `-semihosting-config ...,arg=A,arg=B` arguments, or from the kernel path and `-append`).
pub fn cmdline(buf: &mut [u8]) -> Option<&str> {
    let mut block = [buf.as_mut_ptr() as usize, buf.len()];
    let block_ptr = block.as_mut_ptr();
    // SAFETY: valid SYS_GET_CMDLINE call; the host writes at most `buf.len()` bytes to `buf` and
    // the string length to `block[1]`.
    let rc = unsafe { syscall1(nr::GET_CMDLINE, block_ptr as usize) };
    if rc != 0 {
        return None;
    }
    // SAFETY: `block_ptr` points to `block`, which the host may have written behind our back.
    let len = unsafe { core::ptr::read_volatile(block_ptr.add(1)) }.min(buf.len());
    let bytes = &buf[..len];
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(len);
    core::str::from_utf8(&bytes[..end]).ok()
}
