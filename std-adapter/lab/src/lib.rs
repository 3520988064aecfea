//! # costbo-lab
//!
//! The lab of costbo: the same core algorithms run against benchmark objectives and simulators
//! ([`objectives`]), the grid runner ([`experiment`]), and the five papers' studies with their
//! reports and figures ([`studies`]), judged and recorded by `costbo-eval`. No decision or GP
//! algorithm is written here (they come from `costbo-core`); the `costbo` command
//! (`std-adapter/command`) runs all of it, and a program that only needs the ask/tell optimizer
//! uses `costbo-std`.
#![deny(missing_docs)]

// `outln!`, `out!` and `errln!` in every module, as `println!` would be.
#[macro_use]
extern crate costbo_eval;
pub use costbo_eval::{errln, out, outln, output};

pub mod causal;
pub use costbo_demo as demo;
pub use costbo_objectives::csv_matrix;
pub mod experiment;
pub mod feedback;
pub use costbo_objectives as objectives;
pub mod pandora;
pub use costbo_eval::plot;
pub use costbo_eval::pool;
pub use costbo_objectives::platform;
pub mod reproduce;
pub mod sealed;
pub mod studies;
pub mod study;
pub mod toml_text;
pub mod variants;
