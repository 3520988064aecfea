//! Costly feedback (paper 003, CE-GP-UCB): a drifting function, and a decision every round
//! whether to pay for the measurement.
//!
//! The model is the time-varying GP ([`crate::gp::time_varying`] over a box,
//! [`crate::gp::candidates`] over a finite candidate set). This layer holds the two decisions
//! made from its posterior each round:
//! - [`select`]: *where* — TV-GP-UCB's `argmax μ + √β·σ` (and PI or EI for the paper's
//!   baselines) over the candidates, and the local maxima of the UCB that serve as the
//!   confidence test's competitors;
//! - [`query`]: *whether to pay* — Algorithm 1's mixed rule: a Bernoulli(B₁/T) quota coin,
//!   otherwise the cost-efficient confidence test (or its LCB–UCB form) gated by a
//!   Bernoulli((B₂−B₁)/T) coin.
//!
//! Both are pure functions of the posterior and the generator, so a controller that records
//! its generator's seed replays every decision.

pub mod controller;
pub mod query;
pub mod select;
#[cfg(feature = "serde")]
pub mod snapshot;
