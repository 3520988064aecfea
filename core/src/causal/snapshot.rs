//! Saving and restoring a [`CausalController`](super::CausalController) with serde (feature
//! `serde`), in the dosing controller's records ([`crate::snapshot`]): each arm's model as a
//! [`ModelRecord`] (observations in unit coordinates, hyperparameters, fitted ones included),
//! its bandit statistics, the rounds closed, the ledger and the generator.
//!
//! The arm table, the settings, the budget and the GPs' storage and kernel shapes are
//! configuration: restore into a controller built with the same ones
//! ([`CausalController::restore`](super::CausalController::restore)). Snapshots are taken
//! between rounds; a round chosen or asked but not told is simply chosen again after a
//! restore, and gets the same answer, because the generator is saved with the rest. Restoring
//! pushes every observation into the arm's empty GP again, so each is validated, and a damaged
//! snapshot is a typed error that leaves the controller as it was. A restored controller
//! decides bit for bit as the saved one would have (`core/tests/causal_snapshot.rs`: fixed
//! and fitted models, through JSON and postcard), but for the exception the dosing
//! controller's snapshots share ([`crate::snapshot`]): a GP whose factor was downdated (an
//! observation dropped, or a repeated input merged into an older slot) is factorised afresh,
//! which agrees to rounding. JSON must be read with exact floats (serde_json's
//! `float_roundtrip`).

use serde::{Deserialize, Serialize};

use crate::snapshot::ModelRecord;

/// One arm as saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R: Serialize",
    deserialize = "R: Deserialize<'de> + Copy + Default"
))]
pub struct ArmRecord<R: Copy + Default, const N: usize, const D: usize> {
    /// Its GP: observations, oldest first, and hyperparameters.
    pub model: ModelRecord<R, N, D>,
    /// Times it was played.
    pub plays: u32,
    /// Algorithm 2's running average `Ū` of its maximised UCB values.
    pub mean_ucb: R,
    /// Its average outcome `ȳ`.
    pub mean_outcome: R,
    /// Times its model was fitted.
    pub fits: u32,
}

/// Everything a causal controller has learned (see the module documentation).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(
    serialize = "R: Serialize, G: Serialize",
    deserialize = "R: Deserialize<'de> + Copy + Default, G: Deserialize<'de>"
))]
pub struct CausalSnapshot<R: Copy + Default, const A: usize, const N: usize, const D: usize, G> {
    /// The table's arms, in its order.
    pub arms: heapless::Vec<ArmRecord<R, N, D>, A>,
    /// Rounds closed.
    pub rounds: u32,
    /// Costs paid (the ledger's compensated sum: value and error term).
    pub spent: (R, R),
    /// The generator (the random arm rule's and the uniform action's).
    pub rng: G,
}
