//! On-target tests. Each test is a `pub fn name() -> TestResult`; it runs when it is listed in
//! `src/bin/selftest.rs` (one line per test).
//!
//! Keep the microbit in mind: 16 KiB of RAM for statics and stack together, soft-float f32/f64.
//! The harness fails the run if the stack high-water mark reaches 90%.

pub mod basic;
pub mod decision;
pub mod gp;
pub mod reference_cases;
