//! Paper 002's multi-step lookahead EI over a box (**MSEI**, Jiang et al. 2020), and its
//! budgeted form under a known cost (**BMSEI**, Astudillo et al. 2021), as the paper's code
//! runs them: a four-stage tree with one fantasy per stage, the fantasy the posterior mean
//! ([`MultiStepEi`]), optimised in one shot over all its `4·d` coordinates; the play is the
//! tree's first point. BMSEI weighs each stage's EI by the smoothed indicator that the stages
//! so far fit the lookahead budget `min(B − spent, the last four observations' costs)` (the
//! code's `budget_plus_cumulative_cost` less what was spent); its form for learned costs (a
//! log-normal probability of fitting, from a model of `ln c`) is not built, and the rule refuses
//! learned costs.
//!
//! Each round, as BoTorch's `optimize_acqf` does for the tree: the maximiser's `raw_samples`
//! raw trees (the first point a scrambled-Sobol point, the three lookahead points uniform),
//! its `restarts` starts among them (BoTorch's Boltzmann heuristic), each climbed by
//! quasi-Newton ascent; the best tree's first point is played.
//!
//! Where ours departs from the paper's code: the code warm-starts every round after the first
//! from the previous round's trees (BoTorch's `warmstart_multistep`, which the paper says
//! favours MSEI); ours starts afresh every round, because a rule's state must replay from its
//! memo (33 scalars) and a tree is `4·d`. The code's L-BFGS-B climbs with BoTorch's autograd
//! gradient, which is not the derivative of the tree's value (see
//! [`crate::acquisition::multi_step`]); ours climbs with the derivative.

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

use super::{Choice, DriverError, Maximiser, Play, Policy, Round};
use crate::acquisition::cost::{KnownCost, LogCost};
use crate::acquisition::multi_step::{MultiStepEi, Tree, STAGES};
use crate::expectation::uniform_open;
use crate::inner::{maximize_one_shot, RestartConfig};
use crate::problem::{Costs, Problem};
use crate::real::Real;

/// Mixed into the round's seed for the raw trees' lookahead points.
const STREAM: u64 = 0x4d53_4549_7472_6565;

/// The multi-step lookahead EI rule (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MultiStepLookahead {
    maximiser: Maximiser,
    budgeted: bool,
}

impl MultiStepLookahead {
    /// MSEI (`budgeted` false) or BMSEI with the raw samples, restarts and ascent of
    /// `maximiser` ([`Maximiser::Restarts`]); [`Maximiser::Pool`] stands for paper 002's
    /// ([`RestartConfig::paper_002`]).
    pub fn new(budgeted: bool, maximiser: Maximiser) -> Self {
        MultiStepLookahead {
            maximiser,
            budgeted,
        }
    }

    /// True for BMSEI.
    pub fn is_budgeted(&self) -> bool {
        self.budgeted
    }
}

/// The raw tree of rank `r` with first point `x`.
fn raw_tree<R: Real, const D: usize>(x: [R; D], r: usize, seed: u64) -> Tree<R, D> {
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(
        seed ^ STREAM ^ (r as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
    );
    let mut points = [x; STAGES];
    for p in points[1..].iter_mut() {
        *p = core::array::from_fn(|_| uniform_open(&mut rng));
    }
    Tree { points }
}

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for MultiStepLookahead {
    fn needs_workspace(&self) -> bool {
        true
    }

    super::stateless_record!();

    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        super::require_full_set(problem)?;
        if self.budgeted && matches!(problem.costs(), Costs::Unknown) {
            return Err(DriverError::RuleNeedsKnownCosts);
        }
        Ok(())
    }

    fn workspace_len(&self, _: &Problem<R, D, M>, _: usize, _: usize) -> usize {
        self.maximiser.one_shot(D).scratch_len()
    }

    fn decide<const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        let set = super::require_full_set(round.problem)?;
        if round.gp.is_empty() {
            // EI needs an incumbent: the initial design comes first.
            return Err(DriverError::NoScore);
        }
        if self.budgeted {
            if matches!(round.problem.costs(), Costs::Unknown) {
                return Err(DriverError::RuleNeedsKnownCosts);
            }
            let cost = KnownCost::new(round.problem, set);
            // The code's lookahead budget: what is left, at most the last four costs.
            let recent = round
                .gp
                .inputs()
                .iter()
                .rev()
                .take(LOOKAHEAD_COSTS)
                .try_fold(R::ZERO, |s, x| {
                    cost.log_cost(x, false).map(|(l, _)| s + l.exp())
                })
                .ok_or(DriverError::NoScore)?;
            let budget = (round.settings.budget - round.spent).min(recent);
            let acquisition = MultiStepEi::budgeted(round.gp, cost, budget);
            let dim = round.gp.kernel().inputs_seen();
            return climb(
                acquisition.map_err(DriverError::Gp)?,
                self.maximiser.one_shot(dim),
                set,
                round,
            );
        }
        let acquisition = MultiStepEi::new(round.gp).map_err(DriverError::Gp)?;
        let dim = round.gp.kernel().inputs_seen();
        climb(acquisition, self.maximiser.one_shot(dim), set, round)
    }
}

/// Observed costs summed into BMSEI's lookahead budget (the code: the last four).
pub const LOOKAHEAD_COSTS: usize = 4;

/// The play at the first point of the best tree climbed from `config`'s restarts.
fn climb<R, const N: usize, const D: usize, const M: usize, S, B, C>(
    msei: MultiStepEi<'_, R, N, D, S, C>,
    config: RestartConfig,
    set: usize,
    round: &mut Round<'_, R, N, D, M, S, B>,
) -> Result<Choice<R, D>, DriverError>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    C: LogCost<R, D>,
{
    if round.workspace.len() < config.raw_samples.max(1) {
        return Err(DriverError::WorkspaceTooSmall);
    }
    let seed = round.seed;
    let found = maximize_one_shot(
        &config,
        seed,
        round.workspace,
        |x, r| raw_tree(x, r, seed),
        |t| msei.value(t, false).ok().map(|(v, _)| v),
        |t, need| msei.evaluate(t, need),
        &Tree {
            points: [[R::ZERO; D]; STAGES],
        },
        &Tree {
            points: [[R::ONE; D]; STAGES],
        },
    );
    let (score, x) = found
        .map(|(v, t)| (v, t.points[0]))
        .ok_or(DriverError::NoScore)?;
    Ok(Choice::Play(Play {
        set,
        x,
        score,
        measure: true,
    }))
}

use super::names::{Parsed, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "msei",
        summary: "four-stage lookahead EI over the box, one-shot tree (paper 002's MSEI)",
    },
    RuleName {
        name: "bmsei",
        summary: "MSEI within a lookahead budget, known costs (paper 002's BMSEI)",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<(bool, Maximiser)> {
    Some(Ok(match name {
        "msei" => (false, defaults.maximiser),
        "bmsei" => (true, defaults.maximiser),
        _ => return None,
    }))
}
