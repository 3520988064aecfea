//! # costbo-lab
//!
//! The lab of costbo: the same core algorithms run against benchmark objectives and simulators
//! ([`objectives`]), the grid runner ([`experiment`]), the five papers' studies with their
//! reports and figures, the device tool, and the `costbo` command around them. No decision or
//! GP algorithm is written here (they come from `costbo-core`); a program that only needs the
//! ask/tell optimizer uses `costbo-std`, which this crate builds on.
#![deny(missing_docs)]

// `outln!`, `out!` and `errln!` in every module, as `println!` would be.
#[macro_use]
extern crate costbo_eval;
pub use costbo_eval::{errln, out, outln, output};

pub mod acq_tool;
pub mod causal;
pub use costbo_demo as demo;
pub use costbo_objectives::csv_matrix;
pub mod device;
pub mod experiment;
pub mod feedback;
pub mod gp_tool;
pub use costbo_objectives as objectives;
pub mod pandora;
pub use costbo_eval::plot;
pub use costbo_objectives::platform;
pub mod pool;
pub mod reproduce;
pub mod sealed;
pub mod studies;
pub mod study;
pub mod toml_text;
pub mod variants;
