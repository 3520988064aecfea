//! `costbo-firmware`: bare-metal support for running costbo on Cortex-M under QEMU.
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
//! Targets: `thumbv7em-none-eabihf` (QEMU `mps2-an386`, Cortex-M4F) and `thumbv6m-none-eabi`
//! (QEMU `microbit`, Cortex-M0, 16 KiB RAM). On any other target (the host) the crate is empty,
//! so `cargo build/test/clippy --workspace` on the host still works.
//!
//! Run: `cargo run --profile firmware -p costbo-firmware --target thumbv7em-none-eabihf --bin selftest`
//! (the runner is `scripts/qemu-run.sh`, configured in the workspace's `.cargo/config.toml`).
#![no_std]

// Everything below exists only on the bare-metal ARM targets (`target_os = "none"`).
#[cfg(all(target_arch = "arm", target_os = "none"))]
#[macro_use]
pub mod semihosting;
#[cfg(all(target_arch = "arm", target_os = "none"))]
#[macro_use]
pub mod harness;
#[cfg(all(target_arch = "arm", target_os = "none"))]
pub mod icount;
#[cfg(all(target_arch = "arm", target_os = "none"))]
mod rt;
#[cfg(all(target_arch = "arm", target_os = "none"))]
pub mod stack;
#[cfg(all(target_arch = "arm", target_os = "none"))]
pub mod suite;
#[cfg(all(target_arch = "arm", target_os = "none"))]
pub mod testdata;

/// Name of the QEMU machine this build targets (`"mps2-an386"` or `"microbit"`).
#[cfg(costbo_machine = "microbit")]
pub const MACHINE: &str = "microbit";
/// Name of the QEMU machine this build targets (`"mps2-an386"` or `"microbit"`).
#[cfg(costbo_machine = "an386")]
pub const MACHINE: &str = "mps2-an386";
