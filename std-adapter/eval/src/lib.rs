//! # costbo-eval
//!
//! How the lab of costbo judges and records runs, below the runner, the studies and the demo
//! that share it: the [`judge`] of a decision (its expected value over the uncontrolled
//! variables, on a bank independent of the controller's), learning [`curves`] over seeds,
//! paired [`stats`] (Wilcoxon signed-rank, Holm, Hodges–Lehmann, Wilson, McNemar), figures
//! ([`plot`]: PNG and SVG), [`files`] written whole or not at all, the one worker [`pool`]
//! every grid runs on, and the terminal's
//! [`output`] policy (a closed pipe ends quietly, a full disk in one line) and the [`cli`]'s
//! one-line refusals.
#![deny(missing_docs)]

pub mod cli;
pub mod curves;
pub mod files;
pub mod judge;
pub mod output;
pub mod plot;
pub mod pool;
pub mod stats;
