//! # costbo-core
//!
//! Cost-aware Bayesian optimisation that fits in a microcontroller: `#![no_std]`, no heap, no
//! `unsafe`, every capacity fixed at compile time, every algorithm generic over `f32` and
//! `f64`.
//!
//! The crate is layered; each module uses only those listed before it:
//!
//! 1. [`real`]: the [`Real`](real::Real) scalar trait over `f32`/`f64` (special functions
//!    from `libm`).
//! 2. [`linalg`]: packed lower-triangular Cholesky factors with O(n²) append and downdate.
//! 3. [`kernel`]: stationary ARD kernels (squared exponential, Matérn-5/2).
//! 4. [`gp`]: exact GP regression with fixed capacity, gradients, likelihood and fitting.
//! 5. [`dist`]: distributions of uncontrolled variables (truncated normal, uniform, discrete,
//!    constant) with inverse-CDF sampling; [`qmc`]: scrambled quasi-random sequences.
//! 6. [`problem`]: variables, bounds, control sets and costs; [`expectation`]: sample banks and
//!    expected bounds over the uncontrolled variables.
//! 7. [`thompson`]: posterior sample paths (random Fourier features, pathwise conditioning).
//! 8. [`optimize`] (projected gradient ascent) and [`inner`]: maximisation over one control set.
//! 9. [`policy`]: the decision rules, one file per paper's rule.
//! 10. [`driver`]: the ask/tell [`Controller`](driver::Controller) with its budget ledger.
//! 11. [`link`] (feature `link`): the host–device protocol; [`journal`] (feature `journal`):
//!     the append-only observation log on NOR flash that a device resumes from.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod dist;
pub mod driver;
pub mod expectation;
pub mod gp;
pub mod inner;
#[cfg(feature = "journal")]
pub mod journal;
pub mod kernel;
pub mod linalg;
#[cfg(feature = "link")]
pub mod link;
pub mod optimize;
pub mod policy;
pub mod problem;
pub mod qmc;
pub mod real;
#[cfg(feature = "serde")]
pub mod snapshot;
pub mod thompson;

pub use gp::{Gp, GpError, Hyperparameters, Prediction, PredictionGradient, WhenFull};
pub use kernel::{Kernel, Shape};
pub use real::Real;
