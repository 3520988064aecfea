//! Unknown, random costs per control set (paper 001, Algorithm 1): explore every set round
//! robin, then keep the sets whose running upper bound can still reach within a tolerance `α`
//! of the best running lower bound, and among them play the one whose cost has the smallest
//! lower confidence bound.
//!
//! Pitfalls of the paper's pseudo-code handled here:
//! - round-robin index `((t − 1) mod m) + 1` (the paper's `t mod m` yields 0);
//! - the cost statistics are updated in exploitation too (the paper's loop forgets them);
//! - the horizon `T` of the cost width `√(2 ln T / Tᵢ)` is unknown under a budget: the current
//!   round `t` is used, as the authors' code does;
//! - `(1 − α)·lcb` presumes `f ≥ 0`; for a negative bound it would tighten instead of relax, so
//!   the threshold is `lcb − α·|lcb|`, which equals `(1 − α)·lcb` when `lcb ≥ 0`;
//! - the filter is strict (`>`) as in the pseudo-code; if it empties, the running bounds are
//!   reset to this round's values (lines 17–21);
//! - running bounds: every round scores every set, so `ucb̄ᵢ` is the minimum over all rounds
//!   (a valid and at least as tight intersection as the minimum over set `i`'s own visits);
//! - α may decay: halved every `halve_every` exploitation rounds (the paper's "halved after d
//!   evaluations", read as a repeated halving; `None` keeps it fixed).
//!
//! The authors' code exploits differently from the paper's Algorithm 1
//! ([`Exploitation::AuthorsCode`]): bounds of this round only, no α, the set with the least
//! unclamped cost bound among those whose UCB reaches the best LCB.

use super::memo::{tags, Memo};
use super::{play_selected, values, Choice, DriverError, Outcome, Policy, Round};
use crate::expectation::Bound;
use crate::problem::Problem;
use crate::real::Real;

/// The lowest value within tolerance `α` of `best`: `best − α·|best|`, which is the paper's
/// `(1 − α)·best` when `best ≥ 0` and still lies below `best` when it is negative.
pub fn within_tolerance<R: Real>(best: R, alpha: R) -> R {
    best - alpha * best.abs()
}

pub use crate::round::{Exploitation, Exploration, UnknownCostConfig};

/// State of the unknown-cost rule for up to `M` sets.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownCost<R, const M: usize> {
    config: UnknownCostConfig<R>,
    sets: usize,
    plays: [u32; M],
    cost_sums: [R; M],
    ucb_bar: [R; M],
    lcb_bar: R,
    rounds: u32,
    exploit_rounds: u32,
}

/// Why a round could not be decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownCostError {
    /// Slices of the wrong length.
    LengthMismatch,
    /// A score was not finite.
    NonFinite,
}

impl core::fmt::Display for UnknownCostError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::LengthMismatch => "slices of the wrong length",
            Self::NonFinite => "a score is not finite",
        })
    }
}

impl core::error::Error for UnknownCostError {}

impl<R: Real, const M: usize> UnknownCost<R, M> {
    /// The rule with `config`; sized to the problem's control sets when a controller starts it
    /// ([`Policy::start`]).
    pub fn new(config: UnknownCostConfig<R>) -> Self {
        Self::with_sets(0, config)
    }

    /// The settings.
    pub fn config(&self) -> UnknownCostConfig<R> {
        self.config
    }

    /// A fresh state for `sets` control sets (at most `M`).
    pub fn with_sets(sets: usize, config: UnknownCostConfig<R>) -> Self {
        UnknownCost {
            config,
            sets: sets.min(M),
            plays: [0; M],
            cost_sums: [R::ZERO; M],
            ucb_bar: [R::INFINITY; M],
            lcb_bar: -R::INFINITY,
            rounds: 0,
            exploit_rounds: 0,
        }
    }

    /// True while the round-robin exploration lasts.
    pub fn exploring(&self, spent: R, budget: R) -> bool {
        match self.config.exploration {
            Exploration::Rounds(tau) => self.plays[..self.sets].iter().any(|&p| p < tau),
            Exploration::BudgetFraction(f) => spent < f * budget,
        }
    }

    /// The tolerance in force.
    pub fn alpha(&self) -> R {
        let mut a = self.config.alpha;
        if let Some(halvings) = self
            .config
            .halve_every
            .and_then(|k| self.exploit_rounds.checked_div(k))
        {
            for _ in 0..halvings.min(64) {
                a *= R::HALF;
            }
        }
        a
    }

    /// Empirical mean cost of set `i` (`None` before its first play).
    pub fn mean_cost(&self, i: usize) -> Option<R> {
        (i < self.sets && self.plays[i] > 0)
            .then(|| self.cost_sums[i] / R::from_usize(self.plays[i] as usize))
    }

    /// Lower confidence bound `max(ĉᵢ − √(2 ln t / Tᵢ), 0)`; −∞ before the first play.
    pub fn cost_lcb(&self, i: usize) -> R {
        match self.mean_cost(i) {
            None => -R::INFINITY,
            Some(c) => {
                let t = R::from_usize((self.rounds as usize).max(1));
                let width = (R::TWO * t.ln() / R::from_usize(self.plays[i] as usize)).sqrt();
                (c - width).max(R::ZERO)
            }
        }
    }

    /// The authors' code's cost bound of set `i`: `ĉᵢ − √(2 ln t / Tᵢ)` with `t` this round's
    /// number counted from 1, not clamped; −∞ before the set's first play.
    pub fn coded_cost_lcb(&self, i: usize) -> R {
        match self.mean_cost(i) {
            None => -R::INFINITY,
            Some(c) => {
                let t = R::from_usize(self.rounds as usize + 1);
                c - (R::TWO * t.ln() / R::from_usize(self.plays[i] as usize)).sqrt()
            }
        }
    }

    /// Decides an exploitation round as the authors' code does ([`Exploitation::AuthorsCode`]):
    /// `ucb[i]` is set `i`'s best expected UCB, `lcb_max` the lower bound to reach (the best
    /// LCB, already raised to the best observation).
    pub fn select_as_coded(&self, ucb: &[R], lcb_max: R) -> Result<usize, UnknownCostError> {
        if ucb.len() != self.sets {
            return Err(UnknownCostError::LengthMismatch);
        }
        if !ucb.iter().all(|u| u.is_finite()) || !lcb_max.is_finite() {
            return Err(UnknownCostError::NonFinite);
        }
        let chosen = (0..self.sets).filter(|&i| ucb[i] >= lcb_max).fold(
            None,
            |b: Option<usize>, i| match b {
                Some(b) if self.coded_cost_lcb(i) > self.coded_cost_lcb(b) => Some(b),
                _ => Some(i),
            },
        );
        // torch.argmax: the first of equal maxima.
        Ok(chosen
            .unwrap_or_else(|| (0..self.sets).fold(0, |b, i| if ucb[i] > ucb[b] { i } else { b })))
    }

    /// Decides this round. `ucb[i]` is set `i`'s best expected UCB, `lcb_max` the best expected
    /// LCB over all sets and values; `spent`/`budget` decide the phase.
    pub fn select(
        &mut self,
        ucb: &[R],
        lcb_max: R,
        spent: R,
        budget: R,
    ) -> Result<usize, UnknownCostError> {
        if ucb.len() != self.sets {
            return Err(UnknownCostError::LengthMismatch);
        }
        if !ucb.iter().all(|u| u.is_finite()) || !lcb_max.is_finite() {
            return Err(UnknownCostError::NonFinite);
        }
        // Running intersections: lcb̄ only rises, ucb̄ᵢ only falls.
        self.lcb_bar = self.lcb_bar.max(lcb_max);
        for (bar, &u) in self.ucb_bar.iter_mut().zip(ucb) {
            *bar = bar.min(u);
        }
        if self.exploring(spent, budget) {
            return Ok(self.rounds as usize % self.sets);
        }
        let alpha = self.alpha();
        let survives = |bar: &[R; M], lcb: R, i: usize| bar[i] > within_tolerance(lcb, alpha);
        if !(0..self.sets).any(|i| survives(&self.ucb_bar, self.lcb_bar, i)) {
            self.lcb_bar = lcb_max;
            self.ucb_bar[..self.sets].copy_from_slice(ucb);
        }
        let s1 = |i: usize| survives(&self.ucb_bar, self.lcb_bar, i);
        let min_lcb = (0..self.sets)
            .filter(|&i| s1(i))
            .map(|i| self.cost_lcb(i))
            .fold(R::INFINITY, R::min);
        // Ties on the cost bound go to the higher expected UCB.
        let chosen = (0..self.sets)
            .filter(|&i| s1(i) && self.cost_lcb(i) == min_lcb)
            .fold(None, |b: Option<usize>, i| match b {
                Some(b) if ucb[b] >= ucb[i] => Some(b),
                _ => Some(i),
            });
        // The threshold lies below lcb̄ ≤ max ucb after a reset, so S₁ is never empty here;
        // fall back to the UCB argmax rather than fail if rounding says otherwise.
        Ok(chosen
            .unwrap_or_else(|| (0..self.sets).fold(0, |b, i| if ucb[i] > ucb[b] { i } else { b })))
    }

    /// The learned state: plays, cost sums and running upper bounds per set, the running lower
    /// bound, rounds and exploitation rounds.
    pub fn parts(&self) -> (&[u32], &[R], &[R], R, u32, u32) {
        let m = self.sets;
        (
            &self.plays[..m],
            &self.cost_sums[..m],
            &self.ucb_bar[..m],
            self.lcb_bar,
            self.rounds,
            self.exploit_rounds,
        )
    }

    /// Restores a state saved with [`parts`](Self::parts) into a fresh rule for the same
    /// number of sets; `false` (and no change) if the lengths differ or a value is NaN.
    pub fn restore_parts(
        &mut self,
        plays: &[u32],
        cost_sums: &[R],
        ucb_bar: &[R],
        lcb_bar: R,
        rounds: u32,
        exploit_rounds: u32,
    ) -> bool {
        let m = self.sets;
        let not_nan = |v: &R| !v.is_nan();
        if plays.len() != m || cost_sums.len() != m || ucb_bar.len() != m {
            return false;
        }
        if !cost_sums.iter().all(|c| c.is_finite())
            || !ucb_bar.iter().all(not_nan)
            || !not_nan(&lcb_bar)
        {
            return false;
        }
        self.plays[..m].copy_from_slice(plays);
        self.cost_sums[..m].copy_from_slice(cost_sums);
        self.ucb_bar[..m].copy_from_slice(ucb_bar);
        self.lcb_bar = lcb_bar;
        self.rounds = rounds;
        self.exploit_rounds = exploit_rounds;
        true
    }

    /// Sets the running bounds (as they were after a past decision, for a replay): the first
    /// `min(ucb.len(), sets)` upper bounds and the lower bound.
    pub fn set_running_bounds(&mut self, ucb: &[R], lcb: R) {
        let m = self.sets.min(ucb.len());
        self.ucb_bar[..m].copy_from_slice(&ucb[..m]);
        self.lcb_bar = lcb;
    }

    /// Records the play of set `i` and the cost paid; counts the round.
    pub fn record(&mut self, i: usize, cost: R, spent_before: R, budget: R) {
        let exploring = self.exploring(spent_before, budget);
        if i < self.sets {
            self.plays[i] += 1;
            self.cost_sums[i] += cost;
        }
        self.rounds += 1;
        if !exploring {
            self.exploit_rounds += 1;
        }
    }
}

/// The saved state of [`UnknownCost`]: per-set plays, cost sums and running upper bounds; the
/// running lower bound and the round counters.
#[cfg(feature = "serde")]
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(bound(
    serialize = "R: serde::Serialize",
    deserialize = "R: serde::Deserialize<'de> + Copy + Default"
))]
pub struct UnknownCostRecord<R: Copy + Default, const M: usize> {
    /// Plays per set.
    pub plays: heapless::Vec<u32, M>,
    /// Sums of the costs paid per set.
    pub cost_sums: heapless::Vec<R, M>,
    /// Running minimum of each set's expected UCB.
    pub ucb_bar: heapless::Vec<R, M>,
    /// Running maximum of the expected LCB.
    pub lcb_bar: R,
    /// Rounds recorded.
    pub rounds: u32,
    /// Exploitation rounds recorded.
    pub exploit_rounds: u32,
}

impl<R: Real, const M: usize> UnknownCost<R, M> {
    /// A round as the authors' code plays it: in exploration the round-robin set's UCB
    /// maximiser with the controller's β (no other set is scored: the code keeps no running
    /// bounds); in exploitation [`select_as_coded`](Self::select_as_coded) on this round's
    /// bounds.
    fn decide_as_coded<const D: usize, const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
        ucb_beta: R,
        lcb_beta: R,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        let m = round.problem.num_sets();
        let seed = round.seed;
        let mut ucb = [None; M];
        if self.exploring(round.spent, round.settings.budget) {
            let turn = self.rounds as usize % m;
            let beta = round.settings.beta;
            round.score_bound(Bound::Upper(beta), seed, &mut ucb[..m], |i| i == turn);
            return play_selected(&ucb[..m], Some(turn));
        }
        round.score_bound(Bound::Upper(ucb_beta), seed, &mut ucb[..m], |_| true);
        let mut lcb = [None; M];
        let full = round.problem.full_set();
        super::score_full_set_first(&mut lcb[..m], full, |out, wanted| {
            round.score_bound(Bound::Lower(lcb_beta), seed ^ 1, out, wanted)
        });
        let best_observed = round
            .gp
            .outputs()
            .iter()
            .copied()
            .fold(-R::INFINITY, R::max);
        let lcb_max = lcb[..m]
            .iter()
            .flatten()
            .map(|r| r.value)
            .fold(-R::INFINITY, R::max)
            .max(best_observed);
        let scores: [R; M] = values(&ucb[..m]);
        let scores = &scores[..m];
        if !scores.iter().all(|s| s.is_finite()) || !lcb_max.is_finite() {
            return Err(DriverError::NoScore);
        }
        play_selected(&ucb[..m], self.select_as_coded(scores, lcb_max).ok())
    }
}

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for UnknownCost<R, M> {
    fn learns_costs(&self) -> bool {
        true
    }

    #[cfg(feature = "serde")]
    type Record = UnknownCostRecord<R, M>;

    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        *self = UnknownCost::with_sets(problem.num_sets(), self.config);
        Ok(())
    }

    fn decide<const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        if let Exploitation::AuthorsCode { ucb_beta, lcb_beta } = self.config.exploitation {
            return self.decide_as_coded(round, ucb_beta, lcb_beta);
        }
        let m = round.problem.num_sets();
        let (beta, seed) = (round.settings.beta, round.seed);
        let mut ucb = [None; M];
        round.score_bound(Bound::Upper(beta), seed, &mut ucb[..m], |_| true);
        // Only the best lower bound over all sets is needed, and the set controlling every
        // variable attains it (`Problem::full_set`; the same argument holds for µ − βσ): score
        // it alone, and every set only if it has none or it failed.
        let mut lcb = [None; M];
        let full = round.problem.full_set();
        super::score_full_set_first(&mut lcb[..m], full, |out, wanted| {
            round.score_bound(Bound::Lower(beta), seed ^ 1, out, wanted)
        });
        let lcb_max = lcb[..m]
            .iter()
            .flatten()
            .map(|r| r.value)
            .fold(-R::INFINITY, R::max);
        let scores: [R; M] = values(&ucb[..m]);
        let scores = &scores[..m];
        if !scores.iter().all(|s| s.is_finite()) || !lcb_max.is_finite() {
            return Err(DriverError::NoScore);
        }
        let chosen = self
            .select(scores, lcb_max, round.spent, round.settings.budget)
            .ok();
        play_selected(&ucb[..m], chosen)
    }

    fn record(&mut self, outcome: &Outcome<'_, R, D, M>) {
        if let Some(i) = outcome.set {
            UnknownCost::record(self, i, outcome.cost, outcome.spent_before, outcome.budget);
        }
    }

    /// The running bounds (a rule with more sets than a memo holds, 32, has no memo and its
    /// rounds cannot be replayed).
    fn memo(&self) -> Memo<R> {
        let m = self.sets;
        let mut scalars = [R::ZERO; super::memo::MEMO_CAPACITY];
        if m >= scalars.len() {
            return Memo::EMPTY;
        }
        scalars[..m].copy_from_slice(&self.ucb_bar[..m]);
        scalars[m] = self.lcb_bar;
        Memo::new(tags::RUNNING_BOUNDS, &scalars[..=m]).unwrap_or(Memo::EMPTY)
    }

    fn check_memo(&self, memo: &Memo<R>) -> Result<(), DriverError> {
        let v = memo.values();
        if memo.tag() == tags::RUNNING_BOUNDS
            && v.len() == self.sets + 1
            && !v.iter().any(|x| x.is_nan())
        {
            Ok(())
        } else {
            Err(DriverError::InvalidMemo)
        }
    }

    fn apply_memo(&mut self, memo: &Memo<R>) {
        if let Some((lcb, ucb)) = memo.values().split_last() {
            self.set_running_bounds(ucb, *lcb);
        }
    }

    #[cfg(feature = "serde")]
    fn save(&self) -> Self::Record {
        use crate::snapshot::bounded;
        let (plays, sums, ucb, lcb, rounds, exploit) = self.parts();
        UnknownCostRecord {
            plays: bounded(plays),
            cost_sums: bounded(sums),
            ucb_bar: bounded(ucb),
            lcb_bar: lcb,
            rounds,
            exploit_rounds: exploit,
        }
    }

    #[cfg(feature = "serde")]
    fn load(&mut self, r: &Self::Record) -> Result<(), DriverError> {
        if self.restore_parts(
            r.plays.as_slice(),
            r.cost_sums.as_slice(),
            r.ucb_bar.as_slice(),
            r.lcb_bar,
            r.rounds,
            r.exploit_rounds,
        ) {
            Ok(())
        } else {
            Err(DriverError::InvalidSnapshot)
        }
    }
}

use super::names::{in_precision, Parsed, Parameter, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "unknown-cost",
        summary: "unknown random costs, no-regret costs (paper 001)",
    },
    RuleName {
        name: "unknown-cost-code",
        summary: "paper 001's rule as its authors' code exploits (no alpha, UCB 1.96, LCB 0.3)",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<UnknownCostConfig<R>> {
    let config = match name {
        "unknown-cost" => defaults.unknown_cost,
        "unknown-cost-code" => UnknownCostConfig {
            exploitation: Exploitation::AuthorsCode {
                ucb_beta: R::from_f64(1.96),
                lcb_beta: R::from_f64(0.3),
            },
            ..defaults.unknown_cost
        },
        _ => return None,
    };
    Some(Ok(config))
}

impl<R: Real, T: Real> Parameter<T> for UnknownCostConfig<R> {
    type In = UnknownCostConfig<T>;

    fn convert(self) -> UnknownCostConfig<T> {
        let c = in_precision::<R, T>;
        UnknownCostConfig {
            exploration: match self.exploration {
                Exploration::Rounds(t) => Exploration::Rounds(t),
                Exploration::BudgetFraction(f) => Exploration::BudgetFraction(c(f)),
            },
            alpha: c(self.alpha),
            halve_every: self.halve_every,
            exploitation: match self.exploitation {
                Exploitation::Paper => Exploitation::Paper,
                Exploitation::AuthorsCode { ucb_beta, lcb_beta } => Exploitation::AuthorsCode {
                    ucb_beta: c(ucb_beta),
                    lcb_beta: c(lcb_beta),
                },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(tau: u32) -> UnknownCostConfig<f64> {
        UnknownCostConfig {
            exploration: Exploration::Rounds(tau),
            alpha: 0.1,
            halve_every: None,
            exploitation: Exploitation::Paper,
        }
    }

    #[test]
    fn explores_round_robin_from_the_first_set() {
        let mut u = UnknownCost::<f64, 3>::with_sets(3, config(2));
        let mut order = std::vec::Vec::new();
        for _ in 0..6 {
            let i = u.select(&[1.0, 1.0, 1.0], 0.5, 0.0, 100.0).unwrap();
            order.push(i);
            u.record(i, 0.3, 0.0, 100.0);
        }
        assert_eq!(order, [0, 1, 2, 0, 1, 2]);
        assert!(!u.exploring(1.8, 100.0));
    }

    #[test]
    fn exploits_the_cheapest_acceptable_set() {
        let mut u = UnknownCost::<f64, 3>::with_sets(3, config(50));
        // Observed mean costs: set 0 cheap but poor, set 1 moderate and good, set 2 expensive
        // and best.
        let costs = [0.05, 0.3, 1.0];
        for _ in 0..50 {
            for (i, c) in costs.iter().enumerate() {
                u.record(i, *c, 0.0, 100.0);
            }
        }
        // UCB of set 0 (1.0) is below (1 − α)·lcb̄ = 0.9·1.5; sets 1 and 2 survive.
        let pick = u.select(&[1.0, 2.0, 2.2], 1.5, 10.0, 100.0).unwrap();
        assert_eq!(pick, 1, "cheapest surviving set by cost LCB");
        // Cost bounds after 150 rounds: width √(2 ln 150 / 50) = 0.448, so set 1's bound is
        // clamped to 0 while set 2's is 0.552.
        assert_eq!(u.cost_lcb(1), 0.0);
        assert!((u.cost_lcb(2) - (1.0 - (2.0 * 150f64.ln() / 50.0).sqrt())).abs() < 1e-12);
        assert!((u.mean_cost(0).unwrap() - 0.05).abs() < 1e-15);
    }

    #[test]
    fn cost_lcb_tightens_and_ties_go_to_higher_ucb() {
        let mut u = UnknownCost::<f64, 2>::with_sets(2, config(1));
        for _ in 0..200 {
            u.record(0, 0.5, 0.0, 1e9);
            u.record(1, 0.9, 0.0, 1e9);
        }
        let w = (2.0 * (400f64).ln() / 200.0).sqrt();
        assert!((u.cost_lcb(0) - (0.5 - w)).abs() < 1e-12);
        assert_eq!(u.select(&[2.0, 2.1], 1.0, 5.0, 10.0).unwrap(), 0);
        let mut v = UnknownCost::<f64, 2>::with_sets(2, config(1));
        v.record(0, 0.5, 0.0, 10.0);
        v.record(1, 0.5, 0.0, 10.0);
        assert_eq!(v.select(&[2.0, 2.1], 1.0, 5.0, 10.0).unwrap(), 1);
    }

    #[test]
    fn negative_objectives_relax_rather_than_tighten() {
        // lcb̄ = −1: threshold −1.1, so set 0 (UCB −1.05) survives and set 1 (−1.2) does not.
        // With (1 − α)·lcb̄ = −0.9 neither would, and the filter would reset.
        let mut u = UnknownCost::<f64, 2>::with_sets(2, config(1));
        u.record(0, 1.0, 0.0, 10.0);
        u.record(1, 0.1, 0.0, 10.0);
        assert_eq!(u.select(&[-1.05, -1.2], -1.0, 5.0, 10.0).unwrap(), 0);
    }

    #[test]
    fn empty_filter_resets_the_running_bounds() {
        let mut u = UnknownCost::<f64, 2>::with_sets(2, config(1));
        u.record(0, 0.1, 0.0, 10.0);
        u.record(1, 1.0, 0.0, 10.0);
        // Round 1: lcb̄ = 5 (an outlier); round 2 sees UCBs far below it: the bounds reset to
        // this round's, both sets survive, cost bounds tie at 0, the higher UCB wins.
        let _ = u.select(&[6.0, 6.0], 5.0, 5.0, 10.0).unwrap();
        assert_eq!(u.select(&[1.0, 2.0], 0.5, 5.0, 10.0).unwrap(), 1);
        // The running bounds keep falling: ucb̄₁ is now 0.9, below ucb̄₀ = 1.
        assert_eq!(u.select(&[1.0, 0.9], 0.5, 5.0, 10.0).unwrap(), 0);
    }

    #[test]
    fn alpha_halves_on_schedule() {
        let mut u = UnknownCost::<f64, 1>::with_sets(
            1,
            UnknownCostConfig {
                exploration: Exploration::Rounds(0),
                alpha: 0.1,
                halve_every: Some(5),
                exploitation: Exploitation::Paper,
            },
        );
        for _ in 0..10 {
            u.record(0, 0.1, 0.0, 10.0);
        }
        assert_eq!(u.alpha(), 0.025);
        assert!(matches!(
            u.select(&[f64::NAN], 0.0, 0.0, 1.0),
            Err(UnknownCostError::NonFinite)
        ));
    }

    fn coded(sets: usize) -> UnknownCost<f64, 4> {
        UnknownCost::with_sets(
            sets,
            UnknownCostConfig {
                exploitation: Exploitation::AuthorsCode {
                    ucb_beta: 1.96,
                    lcb_beta: 0.3,
                },
                ..config(1)
            },
        )
    }

    #[test]
    fn coded_exploitation_takes_the_cheapest_set_reaching_the_lower_bound() {
        let mut u = coded(3);
        // Costs 0.1, 0.5, 1.0 over 4 plays each: 12 rounds recorded, so t = 13 and the width
        // is √(2 ln 13 / 4) = 1.1325, which leaves set 0's bound negative: not clamped.
        for _ in 0..4 {
            for (i, c) in [0.1, 0.5, 1.0].iter().enumerate() {
                u.record(i, *c, 0.0, 100.0);
            }
        }
        let w = (2.0 * 13f64.ln() / 4.0).sqrt();
        assert!((u.coded_cost_lcb(0) - (0.1 - w)).abs() < 1e-15);
        assert!(u.coded_cost_lcb(0) < 0.0);
        // UCB ≥ LCB is not strict, and there is no tolerance below the lower bound.
        assert_eq!(u.select_as_coded(&[1.5, 2.0, 2.5], 1.5).unwrap(), 0);
        assert_eq!(u.select_as_coded(&[1.4999, 2.0, 2.5], 1.5).unwrap(), 1);
        // With α = 0.1 the paper's filter would keep set 0 (1.4 > 0.9 · 1.5): the code's does not.
        assert_eq!(u.select_as_coded(&[1.4, 2.0, 2.5], 1.5).unwrap(), 1);
        // No set reaches the bound: the highest UCB, the first of equals.
        assert_eq!(u.select_as_coded(&[1.0, 1.2, 1.2], 1.5).unwrap(), 1);
    }

    #[test]
    fn coded_exploitation_prefers_unplayed_and_later_sets() {
        let mut u = coded(3);
        u.record(0, 0.2, 0.0, 10.0);
        u.record(1, 0.2, 0.0, 10.0);
        // Set 2 never played: its bound is −∞.
        assert_eq!(u.select_as_coded(&[3.0, 3.0, 3.0], 1.0).unwrap(), 2);
        // Equal bounds: the later set (`costs[i] <= costs[chosen]` in the code).
        assert_eq!(u.select_as_coded(&[3.0, 3.0, 0.0], 1.0).unwrap(), 1);
        assert!(matches!(
            u.select_as_coded(&[3.0, 3.0], 1.0),
            Err(UnknownCostError::LengthMismatch)
        ));
        assert!(matches!(
            u.select_as_coded(&[3.0, f64::INFINITY, 0.0], 1.0),
            Err(UnknownCostError::NonFinite)
        ));
    }

    extern crate std;
}
