//! UCB-CVS (paper 000, Algorithm 1): among the control sets whose best expected UCB is within
//! `ε_t` of the best, play the cheapest (ties: the higher score). `ε_t = 0` is UCB-PSQ, which
//! ignores cost.

use super::{play_selected, values, Choice, DriverError, Policy, Round};
use crate::expectation::Bound;
use crate::problem::Problem;
use crate::real::Real;

/// The relaxation `ε_t` as a function of the round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EpsilonSchedule<R> {
    /// The same `ε` every round (`0` gives UCB-PSQ).
    Constant(R),
    /// Linear decay from `start` at round 0 to 0 at round `cutoff`, then 0 (the schedule of
    /// the paper's early code).
    Linear {
        /// `ε_0`.
        start: R,
        /// First round at which `ε` is 0.
        cutoff: usize,
    },
}

impl<R: Real> EpsilonSchedule<R> {
    /// `ε_t` for round `t` (0-based).
    pub fn at(&self, t: usize) -> R {
        match *self {
            EpsilonSchedule::Constant(e) => e,
            EpsilonSchedule::Linear { start, cutoff } => {
                if t >= cutoff {
                    R::ZERO
                } else {
                    start * (R::ONE - R::from_usize(t) / R::from_usize(cutoff))
                }
            }
        }
    }
}

/// Algorithm 1's choice: `g = max aᵢ`, `S₁ = {i : aᵢ + ε ≥ g}`, `S₂` = cheapest of `S₁`, play
/// the highest score in `S₂`. Scores that are not finite are never chosen. `None` when no score
/// is finite or the lengths differ.
pub fn select<R: Real>(scores: &[R], costs: &[R], epsilon: R) -> Option<usize> {
    if scores.len() != costs.len() {
        return None;
    }
    let g = scores
        .iter()
        .filter(|s| s.is_finite())
        .fold(None, |m: Option<R>, &s| Some(m.map_or(s, |m| m.max(s))))?;
    let eligible = |i: usize| scores[i].is_finite() && scores[i] + epsilon >= g;
    let cheapest = (0..scores.len())
        .filter(|&i| eligible(i))
        .map(|i| costs[i])
        .fold(R::INFINITY, R::min);
    (0..scores.len())
        .filter(|&i| eligible(i) && costs[i] == cheapest)
        .fold(None, |best: Option<usize>, i| match best {
            Some(b) if scores[b] >= scores[i] => Some(b),
            _ => Some(i),
        })
}

/// The UCB-CVS rule: the expected UCB of every control set (of the set controlling every
/// variable alone while `ε_t = 0`, [`super::score_full_set_first`]), then [`select`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UcbCvs<R> {
    schedule: EpsilonSchedule<R>,
}

impl<R: Real> UcbCvs<R> {
    /// UCB-CVS with the relaxation `schedule`.
    pub fn new(schedule: EpsilonSchedule<R>) -> Self {
        UcbCvs { schedule }
    }

    /// UCB-PSQ: `ε = 0`, the cost-blind argmax of the expected UCB.
    pub fn psq() -> Self {
        Self::new(EpsilonSchedule::Constant(R::ZERO))
    }

    /// The relaxation schedule.
    pub fn schedule(&self) -> EpsilonSchedule<R> {
        self.schedule
    }
}

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for UcbCvs<R> {
    super::stateless_record!();

    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        super::require_set_costs(problem)
    }

    fn decide<const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        let m = round.problem.num_sets();
        let costs = round.set_costs();
        let epsilon = self.schedule.at(round.number);
        let (bound, seed) = (Bound::Upper(round.settings.beta), round.seed);
        let mut ucb = [None; M];
        // With ε = 0 the rule plays the argmax, which the set controlling every variable
        // attains if there is one.
        let full = round.problem.full_set().filter(|_| epsilon == R::ZERO);
        super::score_full_set_first(&mut ucb[..m], full, |out, wanted| {
            round.score_bound(bound, seed, out, wanted)
        });
        let scores: [R; M] = values(&ucb[..m]);
        play_selected(&ucb[..m], select(&scores[..m], &costs[..m], epsilon))
    }
}

use super::names::{in_precision, Parsed, Parameter, PolicySpecError, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "ucb-psq",
        summary: "expected UCB, best over all sets (paper 000's UCB-PSQ)",
    },
    RuleName {
        name: "ucb-cvs",
        summary: "UCB-CVS with the default epsilon (paper 000)",
    },
    RuleName {
        name: "ucb-cvs:EPS",
        summary: "UCB-CVS with epsilon EPS >= 0 (paper 000)",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<EpsilonSchedule<R>> {
    let schedule = match name {
        "ucb-psq" => EpsilonSchedule::Constant(R::ZERO),
        "ucb-cvs" => EpsilonSchedule::Constant(defaults.epsilon),
        _ => {
            let eps = name.strip_prefix("ucb-cvs:")?.parse::<f64>();
            match eps {
                Ok(eps) if eps.is_finite() && eps >= 0.0 => {
                    EpsilonSchedule::Constant(R::from_f64(eps))
                }
                _ => return Some(Err(PolicySpecError::BadEpsilon)),
            }
        }
    };
    Some(Ok(schedule))
}

impl<R: Real, T: Real> Parameter<T> for EpsilonSchedule<R> {
    type In = EpsilonSchedule<T>;

    fn convert(self) -> EpsilonSchedule<T> {
        let c = in_precision::<R, T>;
        match self {
            EpsilonSchedule::Constant(e) => EpsilonSchedule::Constant(c(e)),
            EpsilonSchedule::Linear { start, cutoff } => EpsilonSchedule::Linear {
                start: c(start),
                cutoff,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relaxation_picks_the_cheaper_set() {
        // Set 2 (full, cost 1) is best; set 0 (cost 0.01) is 0.05 behind, set 1 0.3 behind.
        let scores = [1.95, 1.7, 2.0];
        let costs = [0.01, 0.1, 1.0];
        assert_eq!(select(&scores, &costs, 0.1), Some(0));
        assert_eq!(select(&scores, &costs, 0.04), Some(2));
        assert_eq!(
            select(&scores, &costs, 0.0),
            Some(2),
            "UCB-PSQ is the argmax"
        );
        assert_eq!(select(&scores, &costs, 0.5), Some(0));
        // Within S₂ (equal cheapest costs) the higher score wins.
        assert_eq!(select(&[1.9, 1.95, 2.0], &[0.1, 0.1, 1.0], 0.2), Some(1));
    }

    #[test]
    fn non_finite_scores_are_never_chosen() {
        assert_eq!(select(&[f64::NAN, 1.0], &[0.1, 1.0], 10.0), Some(1));
        assert_eq!(select::<f64>(&[f64::NAN], &[0.1], 1.0), None);
        assert_eq!(select(&[1.0, 2.0], &[0.1], 1.0), None);
    }

    #[test]
    fn linear_schedule_decays_to_zero() {
        let s = EpsilonSchedule::Linear {
            start: 2.0,
            cutoff: 10,
        };
        assert_eq!(s.at(0), 2.0);
        assert_eq!(s.at(5), 1.0);
        assert_eq!(s.at(10), 0.0);
        assert_eq!(s.at(1000), 0.0);
        assert_eq!(EpsilonSchedule::Constant(0.3).at(77), 0.3);
    }
}
