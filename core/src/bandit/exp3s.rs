//! EXP3.S: Auer, Cesa-Bianchi, Freund & Schapire (2002), "The nonstochastic multiarmed bandit
//! problem", SIAM J. Comput. 32(1), §8, the exponential-weights algorithm whose regret is
//! bounded against sequences of arms that switch a bounded number of times (a moving best
//! arm, as in paper 003's time-varying bandits).
//!
//! Parameters `γ ∈ (0, 1]` (exploration) and `α ≥ 0` (sharing; `α = 0` is EXP3); rewards in
//! `[0, 1]`. Weights start at `wᵢ(1) = 1`. Round `t`:
//! 1. `pᵢ(t) = (1 − γ) wᵢ(t) / Σⱼ wⱼ(t) + γ/K`;
//! 2. draw `i_t ~ p(t)`;
//! 3. on feedback `x ∈ [0, 1]` for `i_t`: `x̂_j = x / p_j(t)` for `j = i_t`, else 0, and
//!    `w_j(t+1) = w_j(t) exp(γ x̂_j / K) + (e α / K) Σᵢ wᵢ(t)`.
//!
//! The importance weight uses the probability of the round in which the arm was drawn, so
//! [`Exp3S`] keeps the last [`choose`](Bandit::choose)'s probabilities until the round ends.
//! A round without feedback changes no weight (see the [module docs](super)).
//!
//! Weights are stored divided by their sum: the update is homogeneous of degree one in `w`
//! (both terms scale with it), so the rescaling changes no probability, and it keeps the
//! weights bounded where the raw ones grow like `e^t` and overflow `f32` within a hundred
//! rounds. Since `x̂ ≤ 1/p ≤ K/γ`, one update multiplies a weight by at most `e`.

use rand_core::Rng;

use super::{
    check_arm, check_reward, exp3_probabilities, exp3_update, sample_categorical, Bandit,
    BanditError,
};
use crate::real::Real;

/// EXP3.S over `K` arms (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exp3S<R, const K: usize> {
    gamma: R,
    alpha: R,
    /// The weights divided by their sum.
    weights: [R; K],
    /// The probabilities of the last `choose` (those of the first round before any).
    probabilities: [R; K],
    /// The arm drawn this round, until the round is observed or skipped.
    pending: Option<usize>,
}

impl<R: Real, const K: usize> Exp3S<R, K> {
    /// EXP3.S with exploration `gamma ∈ (0, 1]` and sharing `alpha ≥ 0` (finite). Refuses
    /// `K = 0` ([`BanditError::NoArms`]), a γ outside `(0, 1]` ([`BanditError::Gamma`]) and a
    /// negative or non-finite α ([`BanditError::Alpha`]).
    pub fn new(gamma: R, alpha: R) -> Result<Self, BanditError> {
        if K == 0 {
            return Err(BanditError::NoArms);
        }
        if !(gamma > R::ZERO && gamma <= R::ONE) {
            return Err(BanditError::Gamma);
        }
        if !(alpha.is_finite() && alpha >= R::ZERO) {
            return Err(BanditError::Alpha);
        }
        let uniform = R::ONE / R::from_usize(K);
        Ok(Exp3S {
            gamma,
            alpha,
            weights: [uniform; K],
            // Equal weights give the uniform distribution whatever γ is.
            probabilities: [uniform; K],
            pending: None,
        })
    }

    /// The exploration rate γ.
    pub fn gamma(&self) -> R {
        self.gamma
    }

    /// The sharing rate α.
    pub fn alpha(&self) -> R {
        self.alpha
    }

    /// The weights divided by their sum (the raw weights' ratios are all the algorithm uses).
    pub fn weights(&self) -> &[R; K] {
        &self.weights
    }

    /// The probabilities the last [`choose`](Bandit::choose) drew from (uniform before the
    /// first round).
    pub fn probabilities(&self) -> &[R; K] {
        &self.probabilities
    }

    /// The probabilities the next [`choose`](Bandit::choose) will draw from, from the
    /// current weights: `(1 − γ) wᵢ / Σw + γ/K`.
    pub fn next_probabilities(&self) -> [R; K] {
        exp3_probabilities(&self.weights, self.gamma)
    }

    /// The arm drawn this round and not yet observed or skipped.
    pub fn pending(&self) -> Option<usize> {
        self.pending
    }
}

impl<R: Real, const K: usize> Bandit<R> for Exp3S<R, K> {
    fn arms(&self) -> usize {
        K
    }

    /// Computes `p(t)` from the weights, keeps it for this round's update, and draws an arm
    /// from it (one uniform).
    fn choose<G: Rng + ?Sized>(&mut self, rng: &mut G) -> usize {
        self.probabilities = self.next_probabilities();
        let arm = sample_categorical(rng, &self.probabilities);
        self.pending = Some(arm);
        arm
    }

    /// The EXP3.S update with `x̂ = reward / pₐᵣₘ(t)` from the kept probabilities. The reward
    /// must be in `[0, 1]` and `arm` the arm this round drew.
    fn observe(&mut self, arm: usize, reward: R) -> Result<(), BanditError> {
        check_arm::<K>(arm)?;
        check_reward(reward, true)?;
        if self.pending != Some(arm) {
            return Err(BanditError::NotChosen);
        }
        exp3_update(
            &mut self.weights,
            self.gamma,
            self.alpha,
            arm,
            self.probabilities[arm],
            reward,
        );
        self.pending = None;
        Ok(())
    }

    /// Ends the round: no weight changes, and the kept probabilities no longer belong to a
    /// pending round.
    fn skip(&mut self) {
        self.pending = None;
    }

    fn needs_unit_rewards(&self) -> bool {
        true
    }
}
