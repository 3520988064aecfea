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
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod gp;
pub mod kernel;
pub mod linalg;
pub mod real;

pub use gp::{Gp, GpError, Hyperparameters, Prediction, PredictionGradient, WhenFull};
pub use kernel::{Kernel, Shape};
pub use real::Real;
