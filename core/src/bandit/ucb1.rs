//! UCB1: Auer, Cesa-Bianchi & Fischer (2002), "Finite-time analysis of the multiarmed bandit
//! problem", Machine Learning 47, Fig. 1. Play each arm once; then the arm with the largest
//! index `x̄ᵢ + √(2 ln n / nᵢ)`, `x̄ᵢ` the sample average of arm `i`, `nᵢ` its number of
//! observations and `n` the number of observations of all arms.
//!
//! Under costly feedback only observed rounds count: an arm chosen on a round that was not
//! paid for has not been "played" in the index's sense, so an arm without an observation
//! keeps being chosen (lowest index first) until one arrives.
//!
//! The index's width is Hoeffding's bound for rewards in `[0, 1]`, so rewards outside it are
//! refused ([`BanditError::OutsideUnitInterval`]); callers with noisy rewards clip them.
//! Ties go to the lowest index, as in the deterministic algorithm; no randomness is drawn.

use rand_core::Rng;

use super::{Bandit, BanditError, SampleAverages};
use crate::real::Real;

/// UCB1 over `K` arms (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ucb1<R, const K: usize> {
    averages: SampleAverages<R, K>,
}

impl<R: Real, const K: usize> Ucb1<R, K> {
    /// UCB1 with no observations. Refuses `K = 0` ([`BanditError::NoArms`]).
    pub fn new() -> Result<Self, BanditError> {
        if K == 0 {
            return Err(BanditError::NoArms);
        }
        Ok(Ucb1 {
            averages: SampleAverages::new(),
        })
    }

    /// The observation counts and sample averages.
    pub fn averages(&self) -> &SampleAverages<R, K> {
        &self.averages
    }

    /// Arm `arm`'s index `x̄ᵢ + √(2 ln n / nᵢ)`; `None` for an arm out of range or not yet
    /// observed (whose index is infinite: it is played first).
    pub fn index(&self, arm: usize) -> Option<R> {
        let count = *self.averages.counts().get(arm)?;
        if count == 0 {
            return None;
        }
        let n = R::from_usize(self.averages.total());
        let width = (R::TWO * n.ln() / R::from_usize(count)).sqrt();
        Some(self.averages.means()[arm] + width)
    }
}

impl<R: Real, const K: usize> Bandit<R> for Ucb1<R, K> {
    fn arms(&self) -> usize {
        K
    }

    /// The first arm never observed, else the first arm with the largest index.
    fn choose<G: Rng + ?Sized>(&mut self, _rng: &mut G) -> usize {
        let mut best = 0;
        let mut best_index: Option<R> = None;
        for arm in 0..K {
            match self.index(arm) {
                None => return arm,
                Some(v) => {
                    if best_index.is_none_or(|b| v > b) {
                        best = arm;
                        best_index = Some(v);
                    }
                }
            }
        }
        best
    }

    fn observe(&mut self, arm: usize, reward: R) -> Result<(), BanditError> {
        self.averages.update(arm, reward, true)
    }

    fn needs_unit_rewards(&self) -> bool {
        true
    }
}
