//! Softmax (Boltzmann) exploration over sample averages (Sutton & Barto, *Reinforcement
//! Learning*, §2.8 of the first edition): arm `i` with probability
//! `pᵢ = exp(Qᵢ/τ) / Σⱼ exp(Qⱼ/τ)`, `Qᵢ` the sample average of arm `i`'s rewards (zero before
//! its first), `τ > 0` the temperature (small τ: nearly greedy; large τ: nearly uniform).
//!
//! The exponentials are taken of `(Qᵢ − maxⱼ Qⱼ)/τ ≤ 0`, which leaves the ratios unchanged
//! and cannot overflow; the largest term is 1, so the sum is at least 1.
//!
//! One uniform per round. Rewards may be any finite real.

use rand_core::Rng;

use super::{sample_categorical, Bandit, BanditError, SampleAverages};
use crate::real::Real;

/// Boltzmann exploration over `K` arms (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Softmax<R, const K: usize> {
    temperature: R,
    averages: SampleAverages<R, K>,
}

impl<R: Real, const K: usize> Softmax<R, K> {
    /// Softmax with temperature `temperature > 0` (finite). Refuses `K = 0`
    /// ([`BanditError::NoArms`]) and a τ that is not positive and finite
    /// ([`BanditError::Temperature`]).
    pub fn new(temperature: R) -> Result<Self, BanditError> {
        if K == 0 {
            return Err(BanditError::NoArms);
        }
        if !(temperature.is_finite() && temperature > R::ZERO) {
            return Err(BanditError::Temperature);
        }
        Ok(Softmax {
            temperature,
            averages: SampleAverages::new(),
        })
    }

    /// The temperature τ.
    pub fn temperature(&self) -> R {
        self.temperature
    }

    /// The observation counts and sample averages.
    pub fn averages(&self) -> &SampleAverages<R, K> {
        &self.averages
    }

    /// The Boltzmann probabilities of the next choice.
    pub fn probabilities(&self) -> [R; K] {
        let means = self.averages.means();
        let top = means.iter().fold(means[0], |m, &q| m.max(q));
        let mut p = [R::ZERO; K];
        let mut sum = R::ZERO;
        for (pi, &q) in p.iter_mut().zip(means) {
            *pi = ((q - top) / self.temperature).exp();
            sum += *pi;
        }
        for pi in p.iter_mut() {
            *pi /= sum;
        }
        p
    }
}

impl<R: Real, const K: usize> Bandit<R> for Softmax<R, K> {
    fn arms(&self) -> usize {
        K
    }

    fn choose<G: Rng + ?Sized>(&mut self, rng: &mut G) -> usize {
        let p = self.probabilities();
        sample_categorical(rng, &p)
    }

    fn observe(&mut self, arm: usize, reward: R) -> Result<(), BanditError> {
        self.averages.update(arm, reward, false)
    }
}
