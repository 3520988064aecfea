//! # costbo-std
//!
//! The desktop side of costbo: the same core algorithms, with files, processes and a
//! command-line tool around them. No decision or GP algorithm is written here (they come from
//! `costbo-core`); this crate adds what only a desktop needs: the benchmark objectives and
//! simulators the experiments run against ([`objectives`]), data files, and the `costbo`
//! command.
//!
//! ## The ask/tell optimizer
//!
//! [`Optimizer`] is the core's controller for a program of your own: opened from an experiment
//! file (the format of `firmware/experiment.toml`, the file the firmware is built from) or its
//! text, with the dimension, the number of control sets and the capacity read from the file.
//! Each round it says which control set to pay for and the values of its variables; you apply
//! them, measure every variable (the ones left to chance too) and the outcome, and tell it.
//!
//! ```
//! use costbo_std::Optimizer;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut opt = Optimizer::from_file("../firmware/experiment.toml")?;
//! while let Some(ask) = opt.ask()? {
//!     // Dose the nutrients of `ask.values` that are `Some`; the others come from the source
//!     // water and are measured (here: the middle of each range).
//!     let x: Vec<f64> = ask.values.iter().zip(opt.variables())
//!         .map(|(v, var)| v.unwrap_or(0.5 * (var.lower + var.upper)))
//!         .collect();
//!     let growth = -x.iter().map(|v| (v - 3.0).powi(2)).sum::<f64>();
//!     opt.tell(&x, growth, ask.cost)?;
//! }
//! let best = opt.recommend()?;
//! println!("dose set {} at {:?}", best.set, best.values);
//! # Ok(())
//! # }
//! ```
//!
//! Errors are [`Error`]s with a message that names the offending setting or value; a call that
//! fails changes nothing. [`Optimizer::to_json`] and [`Optimizer::from_json`] save and resume
//! it bit for bit. See the [`optimizer`] module for costly measurements (pay or skip) and
//! `std-adapter/examples/` for a lab script.
#![deny(missing_docs)]

pub mod acq_tool;
pub mod causal;
pub mod csv_matrix;
pub mod demo;
pub mod device;
pub mod experiment;
pub mod feedback;
pub mod gp_tool;
pub mod objectives;
pub mod optimizer;
pub mod pandora;
pub mod platform;
pub mod plot;
pub mod pool;
pub mod reproduce;
pub mod sealed;

pub use optimizer::{Ask, Error, ErrorKind, Optimizer, Precision, QueryAnswer, Recommendation};
