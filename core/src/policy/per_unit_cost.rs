//! Expected UCB per unit cost: each control set's best expected UCB divided by its cost, the
//! largest ratio played. A baseline that paper 000 (appendix B) shows failing: as the model
//! learns the scores flatten, and the ratio then favours whatever is cheap. The sample-path
//! rules' per-unit-cost variants are [`Selection::PerUnitCost`](super::Selection) of
//! [`thompson_psq`](super::thompson_psq) and [`ei_psq`](super::ei_psq).

use super::select::per_unit_cost;
use super::{play_selected, values, Choice, DriverError, Policy, Round};
use crate::expectation::Bound;
use crate::problem::Problem;
use crate::real::Real;

/// The expected-UCB-per-unit-cost rule (needs known costs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UcbPerUnitCost;

impl UcbPerUnitCost {
    /// The rule (it has no parameters).
    pub fn new() -> Self {
        UcbPerUnitCost
    }
}

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for UcbPerUnitCost {
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
        let (bound, seed) = (Bound::Upper(round.settings.beta), round.seed);
        let mut ucb = [None; M];
        round.score_bound(bound, seed, &mut ucb[..m], |_| true);
        let scores: [R; M] = values(&ucb[..m]);
        play_selected(&ucb[..m], per_unit_cost(&scores[..m], &costs[..m]))
    }
}

use super::names::{Parsed, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "ucb-per-cost",
        summary: "expected UCB per unit cost (paper 000's appendix B)",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<()> {
    let _ = defaults;
    (name == "ucb-per-cost").then_some(Ok(()))
}
