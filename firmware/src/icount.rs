//! Instruction counting with SysTick under QEMU's `-icount shift=N`.
//!
//! DWT's cycle counter is not modelled by QEMU (it reads 0), but SysTick is. With
//! `-icount shift=N` every guest instruction advances virtual time by exactly 2^N ns, so a SysTick
//! running on the core clock becomes an exact, deterministic instruction counter:
//!
//! ```text
//! insns = ticks * (1e9 / f_systick) / 2^N      f_systick = 25 MHz (mps2-an386), 16 MHz (microbit)
//!       = ticks * 40 / 2^N (an386)              = ticks * 62.5 / 2^N (microbit)
//! ```
//!
//! `scripts/qemu-run.sh` adds `-icount shift=$QEMU_ICOUNT` and tells the firmware the shift via
//! the semihosting command line (`icount=N`), which [`Icount::init`] reads. Without icount, SysTick
//! follows host wall-clock time and the numbers are noise: [`Icount::insns`] then returns `None`.
//!
//! Wraparound: SysTick is a 24-bit down-counter (reload 0xFF_FFFF). The `SysTick` exception
//! counts the wraps, so the range is practically unlimited *as long as interrupts are enabled*
//! (each wrap adds the ~9 instructions of that handler to the count: 20 M instructions measure as
//! 20 000 019-028 at shift=6).
//! With interrupts masked for the whole measurement, at most 2^24 ticks can be measured: about
//! 10.5 M instructions on the an386 (16.8 M on the microbit) at shift=6, 84 M (134 M) at shift=3.
//! shift=6 resolves about 1.6 ticks per instruction on the an386 and 1.02 on the microbit.
//! QEMU counts instructions, not cycles: use the numbers for regression tracking and relative
//! comparisons, not as real-hardware cycle counts.

use core::sync::atomic::{AtomicU32, Ordering};

use cortex_m::peripheral::{syst::SystClkSource, SCB, SYST};
use cortex_m_rt::exception;

const RELOAD: u32 = 0x00FF_FFFF;
const PERIOD: u64 = 1 << 24;

/// SysTick frequency on the core clock of the QEMU machine, in MHz.
#[cfg(costbo_machine = "an386")]
pub const SYSTICK_MHZ: u64 = 25;
/// SysTick frequency on the core clock of the QEMU machine, in MHz.
#[cfg(costbo_machine = "microbit")]
pub const SYSTICK_MHZ: u64 = 16;

static WRAPS: AtomicU32 = AtomicU32::new(0);

#[exception]
fn SysTick() {
    // Only this handler writes WRAPS (load + store: ARMv6-M has no atomic read-modify-write).
    WRAPS.store(
        WRAPS.load(Ordering::Relaxed).wrapping_add(1),
        Ordering::Relaxed,
    );
}

/// Executes exactly `2 * iterations` instructions in its loop (`subs` + `bne`), plus a few for
/// the call. Used to check the tick-to-instruction conversion.
#[inline(never)]
pub fn spin(iterations: u32) {
    if iterations == 0 {
        return;
    }
    // SAFETY: a register-only countdown loop.
    unsafe {
        core::arch::asm!(
            "2:",
            "subs {n}, #1",
            "bne 2b",
            n = inout(reg) iterations => _,
            options(nomem, nostack)
        )
    }
}

/// Reads the icount shift from the semihosting command line (`icount=N`), if present.
pub fn shift_from_cmdline() -> Option<u32> {
    let mut buf = [0u8; 160];
    let cmdline = crate::semihosting::cmdline(&mut buf)?;
    cmdline
        .split_ascii_whitespace()
        .find_map(|arg| arg.strip_prefix("icount="))
        .and_then(|n| n.parse().ok())
}

/// A running SysTick-based counter.
pub struct Icount {
    shift: Option<u32>,
    overhead: u64,
    _syst: SYST,
}

impl Icount {
    /// Starts SysTick on the core clock with reload 0xFF_FFFF and its wrap-counting interrupt,
    /// reads the icount shift from the command line and measures the overhead of
    /// [`Icount::measure`] itself.
    pub fn init(mut syst: SYST) -> Self {
        syst.disable_counter();
        syst.set_clock_source(SystClkSource::Core);
        syst.set_reload(RELOAD);
        syst.clear_current();
        WRAPS.store(0, Ordering::Relaxed);
        syst.enable_interrupt();
        syst.enable_counter();
        let mut me = Icount {
            shift: shift_from_cmdline(),
            overhead: 0,
            _syst: syst,
        };
        // Warm up, then take the smallest of a few empty measurements.
        let mut overhead = u64::MAX;
        for _ in 0..4 {
            overhead = overhead.min(me.measure(|| ()).1);
        }
        me.overhead = overhead;
        me
    }

    /// The `-icount shift`, if QEMU was started with it (see the module docs).
    pub fn shift(&self) -> Option<u32> {
        self.shift
    }

    /// SysTick ticks since [`Icount::init`].
    pub fn now(&self) -> u64 {
        loop {
            let w1 = WRAPS.load(Ordering::Relaxed);
            let cur = SYST::get_current() & RELOAD;
            let pending = SCB::is_pendst_pending();
            let w2 = WRAPS.load(Ordering::Relaxed);
            if w1 != w2 {
                continue; // the wrap interrupt ran in between: read again
            }
            let mut wraps = u64::from(w1);
            // Wrapped just now and the interrupt has not been taken yet (QEMU takes interrupts
            // at translation-block boundaries).
            if pending && cur > RELOAD / 2 {
                wraps += 1;
            }
            return wraps * PERIOD + u64::from(RELOAD - cur);
        }
    }

    /// Runs `f` and returns its result and the SysTick ticks it took (raw, overhead included).
    #[inline(never)]
    pub fn measure<R>(&self, f: impl FnOnce() -> R) -> (R, u64) {
        let t0 = self.now();
        let r = f();
        let t1 = self.now();
        (r, t1 - t0)
    }

    /// Converts ticks to instructions (rounded), if icount is on.
    pub fn ticks_to_insns(&self, ticks: u64) -> Option<u64> {
        let shift = self.shift?;
        let denom = SYSTICK_MHZ << shift;
        Some((ticks * 1000 + denom / 2) / denom)
    }

    /// Instructions executed by `f` (minus the measurement overhead), if icount is on.
    pub fn insns<R>(&self, f: impl FnOnce() -> R) -> (R, Option<u64>) {
        let (r, ticks) = self.measure(f);
        (r, self.ticks_to_insns(ticks.saturating_sub(self.overhead)))
    }

    /// Raw ticks of `f` minus the measurement overhead (meaningful without icount only as a
    /// noisy wall-clock figure).
    pub fn ticks<R>(&self, f: impl FnOnce() -> R) -> (R, u64) {
        let (r, ticks) = self.measure(f);
        (r, ticks.saturating_sub(self.overhead))
    }
}
