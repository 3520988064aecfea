//! # costbo-std
//!
//! The desktop adapter of costbo: the core's decision rules for a program of your own, with
//! the sizes the core takes as const generics (dimension, number of control sets, capacity)
//! read at run time from the experiment file.
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
//! it bit for bit. See the [`optimizer`] module for costly measurements (pay or skip), and
//! `std-adapter/examples/` for a lab script and for costs that are measured rather than known
//! (`learned_cost.rs`: a model of ln(cost) learns them, see
//! [`Optimizer::learns_cost_function`]).
#![deny(missing_docs)]

pub mod gp;
pub mod optimizer;

pub use optimizer::{
    Ask, CausalOptimizer, Error, ErrorKind, Optimizer, Precision, QueryAnswer, Recommendation,
    MESSAGE_BYTES,
};
