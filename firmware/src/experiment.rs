//! The experiment the controller runs: constants generated at build time from
//! `firmware/experiment.toml` (see `build.rs` and the `costbo-experiment` crate), and the
//! controller type they define.
//!
//! `SPEC` is the whole description; `D`, `M`, `N` and `BANK` are its sizes as constants for
//! the const generics; `CONFIG_ID` identifies the file (sent in `Hello`). The desktop builds the
//! identical controller from the same file with `costbo_experiment::toml::load_device` and
//! [`costbo_experiment::Spec::controller`].

use costbo_core::causal::CausalController;
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

/// Arms the firmware's causal controller holds: the experiment's ([`CAUSAL_ARMS`], 0 without a
/// `[causal]` table), or at least [`HOST_TEST_ARMS`] with feature `causal-dosing` (the host
/// tests run other experiment files at run time).
pub const ARMS: usize = if cfg!(feature = "causal-dosing") && CAUSAL_ARMS < HOST_TEST_ARMS {
    HOST_TEST_ARMS
} else {
    CAUSAL_ARMS
};

/// Arms the causal controller holds at least with feature `causal-dosing`.
pub const HOST_TEST_ARMS: usize = 4;

/// The causal controller's generator (Algorithm 2 with GP-UCB never draws from it).
pub type CausalRng = rand_xoshiro::Xoshiro128PlusPlus;

/// The generator of a causal controller of this experiment: seeded with the experiment's seed,
/// as the desktop seeds its own.
pub fn causal_rng(seed: u64) -> CausalRng {
    rand_core::SeedableRng::seed_from_u64(seed)
}

/// The contextual causal controller (f32) of an experiment with a `[causal]` table, over one
/// caller buffer of [`FACTOR_LEN`] scalars per arm ([`costbo_experiment::Spec::causal_controller`]).
pub type CausalCtl<'a> = CausalController<f32, ARMS, N, D, &'a mut [f32], CausalRng>;
