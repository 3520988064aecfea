//! ε-greedy over sample averages (Sutton & Barto, *Reinforcement Learning*, §2.2): with
//! probability ε a uniformly random arm (any of the `K`, the greedy one included), otherwise
//! an arm with the largest sample average, ties broken uniformly at random.
//!
//! Random ties matter at the start: every average is zero before any reward, and breaking
//! ties by index would exploit arm 0 until exploration happened to find the others.
//!
//! Draws per round: one uniform for the ε coin; one more for the random arm when exploring,
//! or for the tie-break when more than one arm shares the largest average.
//!
//! Rewards may be any finite real: a sample average needs no range.

use rand_core::Rng;

use super::{uniform_index, Bandit, BanditError, SampleAverages};
use crate::random::uniform_open_23_bits;
use crate::real::Real;

/// ε-greedy over `K` arms (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpsilonGreedy<R, const K: usize> {
    epsilon: R,
    averages: SampleAverages<R, K>,
}

impl<R: Real, const K: usize> EpsilonGreedy<R, K> {
    /// ε-greedy with exploration probability `epsilon ∈ [0, 1]`. Refuses `K = 0`
    /// ([`BanditError::NoArms`]) and an ε outside `[0, 1]` or NaN ([`BanditError::Epsilon`]).
    pub fn new(epsilon: R) -> Result<Self, BanditError> {
        if K == 0 {
            return Err(BanditError::NoArms);
        }
        if !(epsilon >= R::ZERO && epsilon <= R::ONE) {
            return Err(BanditError::Epsilon);
        }
        Ok(EpsilonGreedy {
            epsilon,
            averages: SampleAverages::new(),
        })
    }

    /// The exploration probability ε.
    pub fn epsilon(&self) -> R {
        self.epsilon
    }

    /// The observation counts and sample averages.
    pub fn averages(&self) -> &SampleAverages<R, K> {
        &self.averages
    }
}

/// An arm with the largest value, ties broken uniformly at random (a draw only when there is
/// a tie).
pub(crate) fn argmax_random_ties<R: Real, G: Rng + ?Sized, const K: usize>(
    rng: &mut G,
    values: &[R; K],
) -> usize {
    let mut best = values[0];
    let mut ties = 0;
    for &v in values.iter() {
        if v > best {
            best = v;
            ties = 1;
        } else if v == best {
            ties += 1;
        }
    }
    let pick = if ties > 1 {
        uniform_index::<R, G>(rng, ties)
    } else {
        0
    };
    values
        .iter()
        .enumerate()
        .filter(|(_, &v)| v == best)
        .nth(pick)
        .map_or(0, |(i, _)| i)
}

impl<R: Real, const K: usize> Bandit<R> for EpsilonGreedy<R, K> {
    fn arms(&self) -> usize {
        K
    }

    fn choose<G: Rng + ?Sized>(&mut self, rng: &mut G) -> usize {
        let coin: R = uniform_open_23_bits(rng);
        if coin < self.epsilon {
            uniform_index::<R, G>(rng, K)
        } else {
            argmax_random_ties(rng, self.averages.means())
        }
    }

    fn observe(&mut self, arm: usize, reward: R) -> Result<(), BanditError> {
        self.averages.update(arm, reward, false)
    }
}
