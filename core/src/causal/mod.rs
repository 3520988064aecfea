//! Contextual causal Bayesian optimisation (paper 004, CoCa-BO): arms are the possibly-optimal
//! mixed policy scopes of a causal graph, each acting on its own action variables after
//! measuring its own context variables; one exact GP per arm; Algorithm 2's bandit over arms.
//!
//! The graph work (POMPS enumeration) is host-side; the core takes its result as an
//! [`ArmTable`]:
//! - [`arms`]: the table — per arm, action variables with their boxes and context variables
//!   with their bounds, as indices into the problem's variables;
//! - [`schedule`]: the β (UCB width) and ρ (arm bonus) schedules, as functions of an arm's
//!   play count;
//! - [`controller`]: GP-UCB over an arm's action box with its contexts pinned at their measured
//!   values ([`maximize_ucb`]), the arm rules (Algorithm 2, the public
//!   code's UCB1 on rewards, CaBO's best acquisition value, a fixed arm for CoBO and the oracle,
//!   uniform random) and the ask/tell [`CausalController`] with a
//!   checked round protocol;
//! - [`snapshot`] (feature `serde`): the controller's state saved in the dosing controller's
//!   records, and restored bit for bit.
//!
//! Every arm's GP predicts the target in its own units, so the UCB values Algorithm 2 averages
//! and CaBO compares are comparable across arms (`docs/notes/seed-004.md`'s pitfall 2). Its
//! hyperparameters are either fixed for the life of the controller, so the running averages
//! never mix models (pitfall 3), or fitted to the arm's own data on a schedule by MAP with
//! priors on the arm's standardised outcomes and box-normalised inputs, written in the
//! target's units ([`ArmModel`], [`ArmFit`]: why this and not an inverse map, and what it does
//! to the running averages).

pub mod arms;
pub mod controller;
pub mod schedule;
#[cfg(feature = "serde")]
pub mod snapshot;

pub use arms::{Arm, ArmTable, ArmTableError};
#[cfg(feature = "refit")]
pub use controller::ArmFit;
pub use controller::{
    maximize_ucb, ActionRule, ArmChoice, ArmModel, ArmReason, ArmRule, CausalAsk, CausalController,
    CausalError, CausalReplayError, CausalSettings, UcbMaximum,
};
pub use schedule::Schedule;
