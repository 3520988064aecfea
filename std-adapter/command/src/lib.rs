//! # costbo (the command)
//!
//! The `costbo` command's own tools, beside the lab it runs (`costbo-lab`): the device tool
//! ([`device`]: `costbo device` plays the plant simulator against a device over its link and
//! checks every decision against the same controller on the desktop), and the GP and
//! acquisition tools on CSV files ([`gp_tool`], [`acq_tool`]). The subcommands themselves are
//! one file each under `src/commands/`.
#![deny(missing_docs)]

// `outln!`, `out!` and `errln!` in every module, as `println!` would be.
#[macro_use]
extern crate costbo_eval;

pub mod acq_tool;
pub mod device;
pub mod gp_tool;
