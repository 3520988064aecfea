//! # costbo-core
//!
//! Cost-aware Bayesian optimisation that fits in a microcontroller: `#![no_std]`, no heap, no
//! `unsafe`, every capacity fixed at compile time, every algorithm generic over `f32` and
//! `f64`.
//!
//! The crate is layered; each module uses only those listed before it:
//!
//! 1. Numerics: [`real`], the [`Real`] scalar trait over `f32`/`f64` (elementary
//!    functions from `libm`); [`special`], the normal's density, CDF, tails and quantile in
//!    relative precision, the expected-improvement function and fixed quadrature;
//!    [`optimize`], box-constrained gradient ascent and the one notion of how precise an
//!    evaluation must be ([`Need`](optimize::Need)); [`qmc`], scrambled quasi-random
//!    sequences; [`random`], uniform and standard normal variates from a generator.
//! 2. Linear algebra: [`linalg`], packed lower-triangular Cholesky factors with O(n²) append and
//!    downdate.
//! 3. Kernels: [`kernel`], stationary ARD kernels (squared exponential, Matérn-5/2).
//! 4. Distributions: [`dist`], of the variables left to chance (truncated normal, uniform,
//!    discrete, constant; one file each), with inverse-CDF sampling.
//! 5. Models: [`gp`], exact GP regression with fixed capacity, gradients, likelihood and
//!    fitting; [`thompson`], posterior sample paths (random Fourier features, pathwise
//!    conditioning).
//! 6. Expectations: [`problem`], variables, bounds, control sets, contexts and costs;
//!    [`expectation`], sample banks and expected bounds over the variables left to chance.
//! 7. Acquisition functions: [`acquisition`], the [`Acquisition`](acquisition::Acquisition)
//!    trait and the papers' acquisitions.
//! 8. Optimiser: [`inner`], the maximisation of any acquisition over one control set.
//! 9. Policies: [`policy`], the [`Policy`](policy::Policy) trait and one file per rule;
//!    [`feedback`], paper 003's choice of point and of whether to pay for its measurement on a
//!    drifting function (the models: [`gp::time_varying`], [`gp::candidates`]).
//! 10. Driver: [`driver`], the ask/tell [`Controller`](driver::Controller), generic over its
//!     policy, with its budget ledger; `snapshot` (feature `serde`) saves and restores it.
//! 11. Beside the driver: `link` (feature `link`), the host–device protocol; `journal`
//!     (feature `journal`), the append-only observation log on NOR flash that a device
//!     resumes from.
//! 12. Beside the driver: `causal` (feature `causal`, on by default), paper 004's contextual
//!     causal BO: an arm table of policy scopes, one GP per arm, GP-UCB with the measured
//!     contexts pinned, Algorithm 2's bandit over arms and its baselines, and an ask/tell
//!     controller.
//! 13. Beside everything: `bandit` (feature `bandit-baselines`), the classical bandit
//!     baselines of paper 003's bandit study (EXP3.S, EXP3.R, ε-greedy, softmax, UCB1); `testfn`
//!     (feature `test-functions`), benchmark functions for tests, the firmware suite and the
//!     desktop objectives.
//!
//! `docs/architecture.md` describes the traits and how to add a rule.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod acquisition;
#[cfg(feature = "bandit-baselines")]
pub mod bandit;
#[cfg(feature = "causal")]
pub mod causal;
pub mod dist;
pub mod driver;
pub mod expectation;
pub mod feedback;
pub mod gp;
pub mod inner;
#[cfg(feature = "journal")]
pub mod journal;
pub mod kernel;
pub mod ledger;
pub mod linalg;
#[cfg(feature = "link")]
pub mod link;
pub mod optimize;
pub mod policy;
pub mod problem;
pub mod qmc;
pub mod random;
pub mod real;
pub mod round;
#[cfg(feature = "serde")]
pub mod snapshot;
pub mod special;
#[cfg(feature = "test-functions")]
pub mod testfn;
pub mod thompson;

pub use gp::{Gp, GpError, Hyperparameters, Prediction, PredictionGradient, WhenFull};
/// The bounded collections of the records and messages ([`heapless::Vec`]), re-exported so
/// that users name the same version.
pub use heapless;
pub use kernel::{Kernel, Shape};
pub use real::Real;
