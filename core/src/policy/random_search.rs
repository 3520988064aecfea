//! Uniform random search: a control set drawn uniformly among those the budget can pay for,
//! and its variables drawn uniformly in their bounds. The baseline every paper's plot carries
//! ("RS" in paper 002), and the worked example of `docs/architecture.md`: a whole rule in one
//! file, with nothing to score.

use super::{Choice, DriverError, Play, Policy, Round};
use crate::expectation::uniform_open;
use crate::real::Real;
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro128PlusPlus;

/// Uniform random search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RandomSearch;

impl RandomSearch {
    /// The rule (it has no parameters).
    pub fn new() -> Self {
        RandomSearch
    }
}

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for RandomSearch {
    super::stateless_record!();

    fn decide<const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        // A generator per round, seeded from the round: decisions are reproducible and a
        // saved state needs no generator state.
        let mut rng = Xoshiro128PlusPlus::seed_from_u64(round.seed);
        let problem = round.problem;
        let left = round.settings.budget - round.spent;
        // Sets with a known cost above what is left cannot be played; with costs learned or
        // priced by value every set is a candidate.
        let affordable = |i: &usize| problem.known_cost(*i).is_none_or(|c| c <= left);
        let count = (0..problem.num_sets()).filter(affordable).count();
        if count == 0 {
            return Err(DriverError::BudgetExhausted);
        }
        let pick = (rng.next_u64() % count as u64) as usize;
        let set = (0..problem.num_sets())
            .filter(affordable)
            .nth(pick)
            .ok_or(DriverError::NoScore)?;
        let control = problem.sets()[set];
        let x = core::array::from_fn(|l| {
            let u: R = uniform_open(&mut rng);
            if control.contains(l) {
                u
            } else {
                R::HALF
            }
        });
        Ok(Choice::Play(Play {
            set,
            x,
            score: R::ZERO,
            measure: true,
        }))
    }
}

use super::names::{Parsed, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "random-search",
        summary: "a uniformly random affordable set at uniformly random values",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<()> {
    let _ = defaults;
    (name == "random-search").then_some(Ok(()))
}
