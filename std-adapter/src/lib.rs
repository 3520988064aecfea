//! # costbo-std
//!
//! The desktop side of costbo: the same core algorithms, with files, processes and a
//! command-line tool around them. No decision or GP algorithm is written here (they come from
//! `costbo-core`); this crate adds what only a desktop needs: the benchmark objectives and
//! simulators the experiments run against ([`objectives`]), data files, and the `costbo`
//! command.
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
pub mod pandora;
pub mod platform;
pub mod plot;
pub mod pool;
pub mod reproduce;
pub mod sealed;
