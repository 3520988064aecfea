//! Paper 002's expected-improvement baselines over a box, in Ament et al.'s log form: play the
//! maximiser of `ln EI(x; f*) − α·ln c(x)`, `f*` the best value observed (initial design
//! included).
//!
//! - **LogEI** ([`CostUse::Ignore`], `α = 0`);
//! - **LogEIPC** ([`CostUse::PerUnit`], `α = 1`: EI per unit cost);
//! - **LogEICC** ([`CostUse::Cooling`], `α = max(0, (B − C)/B)` with `C` the budget spent
//!   after the initial design: cost cooling, as the paper's code does).
//!
//! With costs learned (`Costs::Unknown` and the controller's model of `ln c`) the cost term is
//! `ln E[c^{−α}]` under the log-normal posterior, `−α·μ + α²σ²/2` (BudgetedBO's form, which
//! the paper's code uses; not `1/E[c]`).

use super::{Choice, DriverError, Maximiser, Policy, Round};
use crate::acquisition::cost::Uniform;
use crate::acquisition::improvement::LogImprovement;
use crate::problem::Problem;
use crate::real::Real;

/// How the cost enters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CostUse {
    /// Not at all (LogEI).
    Ignore,
    /// Divide EI by the cost (LogEIPC).
    PerUnit,
    /// Divide EI by the cost to the power `(B − C)/B` (LogEICC).
    Cooling,
}

/// A LogEI rule (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogEi {
    cost: CostUse,
    maximiser: Maximiser,
}

impl LogEi {
    /// The rule with `cost`, maximised by `maximiser`.
    pub fn new(cost: CostUse, maximiser: Maximiser) -> Self {
        LogEi { cost, maximiser }
    }

    /// How the cost enters.
    pub fn cost_use(&self) -> CostUse {
        self.cost
    }

    /// The exponent `α` of the cost after spending `spent` of `budget`.
    pub fn exponent<R: Real>(&self, spent: R, budget: R) -> R {
        match self.cost {
            CostUse::Ignore => R::ZERO,
            CostUse::PerUnit => R::ONE,
            CostUse::Cooling => ((budget - spent) / budget).max(R::ZERO).min(R::ONE),
        }
    }
}

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for LogEi {
    fn prices_points(&self) -> bool {
        self.cost != CostUse::Ignore
    }

    super::stateless_record!();

    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        super::require_full_set(problem).map(|_| ())
    }

    fn workspace_len(&self, _: &Problem<R, D, M>, _: usize, _: usize) -> usize {
        self.maximiser.workspace_len()
    }

    fn decide<const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        let incumbent = round.best_observed();
        if !incumbent.is_finite() {
            // EI needs an incumbent: the initial design comes first.
            return Err(DriverError::NoScore);
        }
        let alpha = self.exponent(round.spent, round.settings.budget);
        let (gp, m) = (round.gp, &self.maximiser);
        let play = if alpha == R::ZERO {
            round.play_box(m, &mut LogImprovement::new(gp, incumbent, alpha, Uniform))
        } else {
            // LogEIPC's and LogEICC's E[c^{−α}] (see `LearnedCost`).
            let cost = round.box_cost(-alpha)?;
            round.play_box(m, &mut LogImprovement::new(gp, incumbent, alpha, cost))
        };
        play.map(Choice::Play)
    }
}

use super::names::{Parsed, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "log-ei",
        summary: "LogEI over the box (paper 002's EI baseline)",
    },
    RuleName {
        name: "log-eipc",
        summary: "LogEI per unit cost (paper 002's EIPC baseline)",
    },
    RuleName {
        name: "log-eicc",
        summary: "LogEI with cost cooling (paper 002's EICC baseline)",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<(CostUse, Maximiser)> {
    Some(Ok(match name {
        "log-ei" => (CostUse::Ignore, defaults.maximiser),
        "log-eipc" => (CostUse::PerUnit, defaults.maximiser),
        "log-eicc" => (CostUse::Cooling, defaults.maximiser),
        _ => return None,
    }))
}

super::names::plain_parameter!(CostUse);
