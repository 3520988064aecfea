//! Explore-then-commit over cost groups (paper 000's ETC-50, ETC-100 and ETC-Ada).
//!
//! A *cost group* is the control sets sharing one cost that is not the largest cost. Groups are
//! explored cheapest first: each round plays, from the cheapest group with plays left, its set
//! with the highest expected-UCB score. When every group is spent, play the overall argmax.

use super::{play_selected, values, Choice, DriverError, Outcome, Policy, Round};
use crate::expectation::Bound;
use crate::problem::Problem;
use crate::real::Real;

/// How many plays each cost group gets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PlaysPerGroup {
    /// The same number for every group (ETC-50, ETC-100).
    Fixed(u32),
    /// `floor(4 / c)` for a group of cost `c` (ETC-Ada).
    Adaptive,
}

/// Explore-then-commit: its plays per group, the groups and their remaining plays.
#[derive(Debug, Clone, PartialEq)]
pub struct ExploreThenCommit<R, const M: usize> {
    plays: PlaysPerGroup,
    group_cost: [R; M],
    plays_left: [u32; M],
    groups: usize,
}

impl<R: Real, const M: usize> ExploreThenCommit<R, M> {
    /// The rule with `plays` per group; its groups are formed from the problem's costs when a
    /// controller starts it ([`Policy::start`]).
    pub fn new(plays: PlaysPerGroup) -> Self {
        ExploreThenCommit {
            plays,
            group_cost: [R::ZERO; M],
            plays_left: [0; M],
            groups: 0,
        }
    }

    /// The plays per group.
    pub fn plays(&self) -> PlaysPerGroup {
        self.plays
    }

    /// Groups the sets of `costs` (at most `M`) by equal cost, excluding the largest cost.
    pub fn with_costs(costs: &[R], plays: PlaysPerGroup) -> Self {
        let max = costs.iter().copied().fold(R::ZERO, R::max);
        let mut group_cost = [R::ZERO; M];
        let mut groups = 0;
        for &c in costs.iter().take(M) {
            if c < max && !group_cost[..groups].contains(&c) {
                group_cost[groups] = c;
                groups += 1;
            }
        }
        // Cheapest first (insertion sort: M is small).
        for i in 1..groups {
            let mut j = i;
            while j > 0 && group_cost[j] < group_cost[j - 1] {
                group_cost.swap(j, j - 1);
                j -= 1;
            }
        }
        let mut plays_left = [0u32; M];
        for g in 0..groups {
            plays_left[g] = match plays {
                PlaysPerGroup::Fixed(n) => n,
                PlaysPerGroup::Adaptive => {
                    let p = (R::from_f64(4.0) / group_cost[g]).floor().to_f64();
                    if p >= u32::MAX as f64 {
                        u32::MAX
                    } else {
                        p as u32
                    }
                }
            };
        }
        ExploreThenCommit {
            plays,
            group_cost,
            plays_left,
            groups,
        }
    }

    /// Group costs, cheapest first, with their remaining plays.
    pub fn groups(&self) -> impl Iterator<Item = (R, u32)> + '_ {
        (0..self.groups).map(|g| (self.group_cost[g], self.plays_left[g]))
    }

    /// True once every group's plays are spent (the rule then plays the overall argmax).
    pub fn committed(&self) -> bool {
        self.plays_left[..self.groups].iter().all(|&p| p == 0)
    }

    /// The set to play given this round's scores (expected-UCB maxima) and costs.
    pub fn select(&self, scores: &[R], costs: &[R]) -> Option<usize> {
        if scores.len() != costs.len() {
            return None;
        }
        let argmax = |keep: &dyn Fn(usize) -> bool| {
            (0..scores.len())
                .filter(|&i| keep(i) && scores[i].is_finite())
                .fold(None, |b: Option<usize>, i| match b {
                    Some(b) if scores[b] >= scores[i] => Some(b),
                    _ => Some(i),
                })
        };
        for g in 0..self.groups {
            if self.plays_left[g] > 0 {
                if let Some(i) = argmax(&|i| costs[i] == self.group_cost[g]) {
                    return Some(i);
                }
            }
        }
        argmax(&|_| true)
    }

    /// Group costs and remaining plays, for saving the state.
    pub fn parts(&self) -> (&[R], &[u32]) {
        (
            &self.group_cost[..self.groups],
            &self.plays_left[..self.groups],
        )
    }

    /// Restores a state saved with [`parts`](Self::parts); `false` (and no change) if the
    /// lengths differ, exceed `M`, or a cost is not positive and finite.
    pub fn restore_parts(&mut self, group_cost: &[R], plays_left: &[u32]) -> bool {
        if group_cost.len() != plays_left.len() || group_cost.len() > M {
            return false;
        }
        if !group_cost.iter().all(|c| c.is_finite() && *c > R::ZERO) {
            return false;
        }
        self.groups = group_cost.len();
        self.group_cost = [R::ZERO; M];
        self.plays_left = [0; M];
        self.group_cost[..self.groups].copy_from_slice(group_cost);
        self.plays_left[..self.groups].copy_from_slice(plays_left);
        true
    }

    /// Records that a set of cost `cost` was played: its group loses one play.
    pub fn record_play(&mut self, cost: R) {
        if let Some(g) = (0..self.groups).find(|&g| self.group_cost[g] == cost) {
            self.plays_left[g] = self.plays_left[g].saturating_sub(1);
        }
    }
}

/// The saved state of [`ExploreThenCommit`]: group costs (cheapest first) and remaining plays.
#[cfg(feature = "serde")]
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(bound(
    serialize = "R: serde::Serialize",
    deserialize = "R: serde::Deserialize<'de> + Copy + Default"
))]
pub struct EtcRecord<R: Copy + Default, const M: usize> {
    /// Group costs.
    pub group_cost: heapless::Vec<R, M>,
    /// Remaining plays per group.
    pub plays_left: heapless::Vec<u32, M>,
}

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for ExploreThenCommit<R, M> {
    #[cfg(feature = "serde")]
    type Record = EtcRecord<R, M>;

    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        let m = problem.num_sets();
        let costs: [R; M] = core::array::from_fn(|i| problem.known_cost(i).unwrap_or(R::ZERO));
        if problem.known_cost(0).is_none() {
            return Err(DriverError::RuleNeedsKnownCosts);
        }
        *self = ExploreThenCommit::with_costs(&costs[..m], self.plays);
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
        let m = round.problem.num_sets();
        let costs = round.set_costs();
        let (bound, seed) = (Bound::Upper(round.settings.beta), round.seed);
        // While a cost group is explored only its sets can be played; a set's score does not
        // depend on which others are scored, so scoring the group alone gives the same
        // decision. Once committed the rule plays the argmax, which the set controlling every
        // variable attains if there is one.
        let exploring: Option<R> = self.groups().find(|&(_, left)| left > 0).map(|(c, _)| c);
        let mut ucb = [None; M];
        match round.problem.full_set().filter(|_| exploring.is_none()) {
            full @ Some(_) => super::score_full_set_first(&mut ucb[..m], full, |out, wanted| {
                round.score_bound(bound, seed, out, wanted)
            }),
            None => round.score_bound(bound, seed, &mut ucb[..m], |i| {
                exploring.is_none_or(|c| costs[i] == c)
            }),
        }
        if let Some(c) = exploring {
            if ucb[..m]
                .iter()
                .zip(&costs)
                .all(|(r, ci)| *ci != c || r.is_none())
            {
                // Every set of the group failed: ETC moves on, so score the others too.
                round.score_bound(bound, seed, &mut ucb[..m], |i| costs[i] != c);
            }
        }
        let scores: [R; M] = values(&ucb[..m]);
        play_selected(&ucb[..m], self.select(&scores[..m], &costs[..m]))
    }

    fn record(&mut self, outcome: &Outcome<'_, R, D, M>) {
        if let Some(c) = outcome.set.and_then(|i| outcome.problem.known_cost(i)) {
            self.record_play(c);
        }
    }

    #[cfg(feature = "serde")]
    fn save(&self) -> Self::Record {
        use crate::snapshot::bounded;
        let (c, p) = self.parts();
        EtcRecord {
            group_cost: bounded(c),
            plays_left: bounded(p),
        }
    }

    #[cfg(feature = "serde")]
    fn load(&mut self, record: &Self::Record) -> Result<(), DriverError> {
        if self.restore_parts(record.group_cost.as_slice(), record.plays_left.as_slice()) {
            Ok(())
        } else {
            Err(DriverError::InvalidSnapshot)
        }
    }
}

use super::names::{Parsed, PolicySpecError, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "etc-50",
        summary: "explore-then-commit, 50 plays per cost group (paper 000)",
    },
    RuleName {
        name: "etc-100",
        summary: "explore-then-commit, 100 plays per cost group (paper 000)",
    },
    RuleName {
        name: "etc-N",
        summary: "explore-then-commit, N > 0 plays per cost group",
    },
    RuleName {
        name: "etc-ada",
        summary: "explore-then-commit, floor(4/c) plays per group of cost c (paper 000)",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<PlaysPerGroup> {
    let _ = defaults;
    let plays = match name {
        "etc-50" => PlaysPerGroup::Fixed(50),
        "etc-100" => PlaysPerGroup::Fixed(100),
        "etc-ada" => PlaysPerGroup::Adaptive,
        _ => match name.strip_prefix("etc-")?.parse::<u32>().ok()? {
            0 => return Some(Err(PolicySpecError::BadPlays)),
            n => PlaysPerGroup::Fixed(n),
        },
    };
    Some(Ok(plays))
}

super::names::plain_parameter!(PlaysPerGroup);

#[cfg(test)]
mod tests {
    use super::*;

    const CHEAP: [f64; 7] = [0.01, 0.01, 0.01, 0.1, 0.1, 0.1, 1.0];

    #[test]
    fn groups_are_ordered_and_sized() {
        let etc = ExploreThenCommit::<f64, 7>::with_costs(&CHEAP, PlaysPerGroup::Adaptive);
        let g: std::vec::Vec<_> = etc.groups().collect();
        assert_eq!(g, [(0.01, 400), (0.1, 40)]);
        let etc = ExploreThenCommit::<f64, 7>::with_costs(
            &[0.6, 0.6, 0.6, 0.8, 0.8, 0.8, 1.0],
            PlaysPerGroup::Adaptive,
        );
        let g: std::vec::Vec<_> = etc.groups().collect();
        assert_eq!(g, [(0.6, 6), (0.8, 5)]);
        let etc = ExploreThenCommit::<f64, 7>::with_costs(&CHEAP, PlaysPerGroup::Fixed(50));
        assert!(etc.groups().all(|(_, p)| p == 50));
    }

    #[test]
    fn plays_cheapest_group_then_next_then_argmax() {
        let costs = [0.1, 0.1, 0.2, 0.2, 1.0];
        let scores = [0.5, 0.7, 2.0, 0.1, 3.0];
        let mut etc = ExploreThenCommit::<f64, 5>::with_costs(&costs, PlaysPerGroup::Fixed(2));
        let mut played = std::vec::Vec::new();
        for _ in 0..6 {
            let i = etc.select(&scores, &costs).unwrap();
            played.push(i);
            etc.record_play(costs[i]);
        }
        // Two plays of the best 0.1-set (1), two of the best 0.2-set (2), then the argmax (4).
        assert_eq!(played, [1, 1, 2, 2, 4, 4]);
        assert!(etc.committed());
    }

    extern crate std;
}
