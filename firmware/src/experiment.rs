//! The experiment the controller runs: constants generated at build time from
//! `firmware/experiment.toml` (see `build.rs` and the `costbo-experiment` crate), and the
//! controller type they define.
//!
//! `SPEC` is the whole description; `D`, `M`, `N` and `BANK` are its sizes as constants for
//! the const generics; `CONFIG_ID` identifies the file (sent in `Hello`). The desktop builds the
//! identical controller from the same file with `costbo_experiment::toml::load` and
//! [`costbo_experiment::Spec::controller`].

use costbo_core::driver::Controller;
use costbo_core::linalg::tri_len;
use costbo_core::policy::AnyPolicy;

include!(concat!(env!("OUT_DIR"), "/experiment.rs"));

/// Scalars of the GP's packed factor at capacity [`N`].
pub const FACTOR_LEN: usize = tri_len(N);

/// The controller of this experiment (f32) over caller buffers: the packed factor
/// ([`FACTOR_LEN`] scalars) and the sample bank ([`BANK`] points).
/// Its rule is the one the file names, among those this firmware is built with (the core's
/// policy features in `Cargo.toml`).
pub type Ctl<'a> =
    Controller<f32, N, D, M, &'a mut [f32], &'a mut [[f32; D]], AnyPolicy<f32, D, M, 1, 1>>;

// Every message carries one value per variable.
const _: () = assert!(D <= costbo_core::link::MAX_VARS);
