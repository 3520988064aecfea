//! Board support of the controller on QEMU (feature `qemu`, bare-metal ARM):
//!
//! * [`uart`] (mps2-an386 only): the CMSDK APB UART0 at `0x4000_4000`, which QEMU connects to
//!   its first `-serial` backend: the host link.
//! * [`semihost_file`]: a host file through semihosting (`SYS_OPEN`/`SYS_SEEK`/`SYS_READ`/
//!   `SYS_WRITE`), the backing store of the journal's NOR flash
//!   ([`crate::sim::FileFlash`]), so the journal survives a QEMU restart.
//! * [`Stdout`]: the text log, on QEMU's stdout through semihosting.

pub mod semihost_file;
// The controller's UART needs the M4F (ARMv7-M atomics); ARMv6-M code built for the an386
// memory map (`COSTBO_FIRMWARE_MACHINE`) only runs the benchmarks.
#[cfg(all(costbo_machine = "an386", not(costbo_armv6m)))]
pub mod uart;

/// The controller's text log: semihosting stdout.
#[derive(Debug, Clone, Copy, Default)]
pub struct Stdout;

impl core::fmt::Write for Stdout {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        crate::semihosting::_print(format_args!("{}", s));
        Ok(())
    }
}
