//! # costbo-std
//!
//! The desktop side of costbo: the same core algorithms, with files, processes and a
//! command-line tool around them. Nothing algorithmic is written here; this crate reads data,
//! dispatches to `costbo-core` and prints results.
#![deny(missing_docs)]

pub mod csv_matrix;
pub mod gp_tool;
