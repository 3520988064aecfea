//! Panic, HardFault and default exception handlers: they print what happened and make QEMU exit
//! with a non-zero status, so a fault never hangs QEMU (cortex-m-rt's defaults loop forever).
//! Inside a harness run they report the current test as failed (see [`crate::harness`]).
//!
//! Exit statuses: 1 = a test failed, 101 = panic outside a test run, 102 = HardFault or
//! unexpected exception outside a test run, 124 = killed by the runner's `timeout`.

use cortex_m_rt::{exception, ExceptionFrame};

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    crate::harness::on_panic(info)
}

#[exception]
unsafe fn HardFault(ef: &ExceptionFrame) -> ! {
    #[cfg(not(costbo_armv6m))]
    {
        // Configurable fault status registers exist on ARMv7-M only.
        // SAFETY: read-only access to SCB registers.
        let scb = unsafe { &*cortex_m::peripheral::SCB::PTR };
        crate::harness::on_fault(format_args!(
            "HardFault at pc={:#010x} lr={:#010x} cfsr={:#010x} hfsr={:#010x} bfar={:#010x}",
            ef.pc(),
            ef.lr(),
            scb.cfsr.read(),
            scb.hfsr.read(),
            scb.bfar.read()
        ))
    }
    #[cfg(costbo_armv6m)]
    crate::harness::on_fault(format_args!(
        "HardFault at pc={:#010x} lr={:#010x}",
        ef.pc(),
        ef.lr()
    ))
}

#[exception]
unsafe fn DefaultHandler(irqn: i16) {
    crate::harness::on_fault(format_args!(
        "unexpected exception or interrupt, irqn={}",
        irqn
    ))
}
