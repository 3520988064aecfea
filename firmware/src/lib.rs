//! `costbo-firmware`: costbo on Cortex-M: the nutrient-dosing controller and its drivers, and
//! bare-metal support for running costbo under QEMU.
//!
//! Board-independent, compiled on every target (the host tests in `firmware/host-tests` use
//! them):
//!
//! * [`experiment`]: the experiment's constants, generated at build time from
//!   `firmware/experiment.toml`.
//! * [`drivers`]: dosing pumps (`OutputPin` + `DelayNs`) and I2C nutrient sensors.
//! * [`app`]: the controller application, generic over the embedded-hal traits, a byte link
//!   and a round log.
//! * [`sim`]: simulated pumps, clock, sensor bus and file-backed NOR flash (the QEMU board).
//! * [`journal`]: the round log on NOR flash (the core's journal).
//!
//! QEMU only (bare-metal ARM with feature `qemu`, the default):
//!
//! * [`harness`]: a tiny on-target test harness (`check!`, `check_close!`, `tests!`) that runs
//!   every test, prints `test NAME ... ok|FAILED (reason)` lines and a final
//!   `N passed, N failed` line, then exits QEMU with status 0 or 1.
//! * [`icount`]: instruction counting with SysTick when QEMU runs with `-icount shift=N`.
//! * [`semihosting`]: text output (`print!`/`println!`), the QEMU exit code and the command line.
//! * [`testdata`]: reproducible SPD matrices and points for the self-tests and benchmarks (every
//!   algorithm comes from `costbo-core`).
//! * [`suite`]: the on-target tests; `src/bin/selftest.rs` lists the ones that run.
//!
//! * [`board`]: the mps2-an386 board support of the controller: the CMSDK APB UART (host
//!   link) and a NOR flash in a host file through semihosting.
//!
//! Targets: `thumbv7em-none-eabihf` (QEMU `mps2-an386`, Cortex-M4F) and `thumbv6m-none-eabi`
//! (QEMU `microbit`, Cortex-M0, 16 KiB RAM; self-tests and benchmarks only, the controller
//! needs the M4F's RAM). Real boards: `firmware/boards/` (crates that use this one with
//! `default-features = false`).
//!
//! Run: `cargo run --profile firmware -p costbo-firmware --target thumbv7em-none-eabihf --bin selftest`
//! (the runner is `scripts/qemu-run.sh`, configured in the workspace's `.cargo/config.toml`).
#![no_std]
#![deny(missing_docs)]

pub mod app;
#[cfg(feature = "causal")]
pub mod causal;
pub mod drivers;
pub mod experiment;
#[cfg(feature = "feedback")]
pub mod feedback;
pub mod fingerprint;
pub mod journal;
#[cfg(feature = "pandora")]
pub mod pandora;
pub mod sim;

// Everything below exists only on the bare-metal ARM targets (`target_os = "none"`) with the
// QEMU runtime.
#[cfg(all(target_arch = "arm", target_os = "none", feature = "qemu"))]
#[macro_use]
pub mod semihosting;
#[cfg(all(target_arch = "arm", target_os = "none", feature = "qemu"))]
#[macro_use]
pub mod harness;
#[cfg(all(target_arch = "arm", target_os = "none", feature = "qemu"))]
pub mod board;
#[cfg(all(target_arch = "arm", target_os = "none"))]
mod global;
#[cfg(all(target_arch = "arm", target_os = "none", feature = "qemu"))]
pub mod icount;
#[cfg(all(target_arch = "arm", target_os = "none", feature = "qemu"))]
mod rt;
#[cfg(all(target_arch = "arm", target_os = "none"))]
pub mod stack;
#[cfg(all(target_arch = "arm", target_os = "none", feature = "qemu"))]
pub mod suite;
#[cfg(all(target_arch = "arm", target_os = "none", feature = "qemu"))]
pub mod testdata;

/// Name of the QEMU machine this build targets (`"mps2-an386"` or `"microbit"`).
#[cfg(costbo_machine = "microbit")]
pub const MACHINE: &str = "microbit";
/// Name of the QEMU machine this build targets (`"mps2-an386"` or `"microbit"`).
#[cfg(costbo_machine = "an386")]
pub const MACHINE: &str = "mps2-an386";
/// The instruction set the firmware was built for: `"cortex-m0"` (ARMv6-M, soft float) or
/// `"cortex-m4f"` (ARMv7E-M with the single-precision FPU).
#[cfg(costbo_armv6m)]
pub const CORE: &str = "cortex-m0";
/// The instruction set the firmware was built for: `"cortex-m0"` (ARMv6-M, soft float) or
/// `"cortex-m4f"` (ARMv7E-M with the single-precision FPU).
#[cfg(not(costbo_armv6m))]
pub const CORE: &str = "cortex-m4f";
