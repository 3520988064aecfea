//! Quasi-random search: the set that controls every variable, played at the points of a
//! scrambled Sobol sequence in order. The space-filling baseline that BoTorch's tutorials set
//! beside their methods: it covers the box more evenly than uniform random search (the first
//! `2^k` points put one value in each of `2^k` equal intervals of every variable) and, like
//! it, learns nothing. It reaches the controller through one line of the registry table, its
//! cargo feature and this file (`docs/architecture.md`).

use super::names::{Parsed, RuleDefaults, RuleName};
use super::{Choice, DriverError, Play, Policy, Round};
use crate::problem::Problem;
use crate::qmc::Sobol;
use crate::real::Real;

/// Quasi-random search over the box.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SobolSearch;

impl SobolSearch {
    /// The rule (it has no parameters).
    pub fn new() -> Self {
        SobolSearch
    }
}

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for SobolSearch {
    super::stateless_record!();

    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        problem.full_set().ok_or(DriverError::RuleNeedsFullSet)?;
        // The sequence's table has a bounded number of dimensions.
        Sobol::<D>::unscrambled().map_err(|_| DriverError::InvalidParameter)?;
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
        let problem = round.problem;
        let set = problem.full_set().ok_or(DriverError::RuleNeedsFullSet)?;
        let left = round.settings.budget - round.spent;
        if problem.known_cost(set).is_some_and(|c| c > left) {
            return Err(DriverError::BudgetExhausted);
        }
        // The point numbered by the round, from the sequence of the experiment's seed: the
        // same decisions after a replay, and no state to save.
        let mut sequence =
            Sobol::<D>::new(round.settings.seed).map_err(|_| DriverError::InvalidParameter)?;
        for _ in 0..round.number {
            sequence.next_point_bits();
        }
        Ok(Choice::Play(Play {
            set,
            x: sequence.next_point(),
            score: R::ZERO,
            measure: true,
        }))
    }
}

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[RuleName {
    name: "sobol-search",
    summary: "the set of every variable at the points of a scrambled Sobol sequence",
}];

/// The parameters of the rule called `name` if it is one of [`NAMES`]; `None` for another
/// rule's name.
pub fn parse<R: Real>(name: &str, defaults: &RuleDefaults<R>) -> Parsed<()> {
    let _ = defaults;
    (name == "sobol-search").then_some(Ok(()))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::{vec, vec::Vec};

    use crate::dist::{Distribution, Uniform};
    use crate::driver::{BuildError, ControllerSpec, DriverError, Settings};
    use crate::gp::WhenFull;
    use crate::kernel::Kernel;
    use crate::linalg::tri_len;
    use crate::policy::{PolicySpec, RuleDefaults};
    use crate::problem::{ControlSet, Problem, Variable};

    const D: usize = 3;

    fn controller_spec(
        sets: &[ControlSet],
        costs: &[f64],
        budget: f64,
    ) -> ControllerSpec<f64, D, 2> {
        let v = Variable {
            lower: -2.0,
            upper: 6.0,
            uncontrolled: Distribution::Uniform(Uniform::new(-2.0, 6.0).unwrap()),
        };
        ControllerSpec {
            problem: Problem::new(&[v; D], sets, Some(costs)).unwrap(),
            kernel: Kernel::squared_exponential([0.3; D], 1.0).unwrap(),
            mean: 0.0,
            noise: 1e-4,
            when_full: WhenFull::DropOldest,
            bank_seed: 2,
            settings: Settings::new(budget, 7),
            policy: PolicySpec::parse("sobol-search", &RuleDefaults::new(0.1)).unwrap(),
        }
    }

    /// Runs the rule to its budget; the physical points it played.
    fn run(costs: &[f64], budget: f64) -> Vec<[f64; D]> {
        let sets = [ControlSet::of(&[0]), ControlSet::full(D)];
        let mut ctl = controller_spec(&sets, costs, budget)
            .build::<32, 1, 1, _, _>(vec![0.0; tri_len(32)], vec![[0.0; D]; 4])
            .unwrap();
        let mut played = vec![];
        while let Ok(d) = ctl.suggest() {
            assert_eq!(d.set, 1, "the set of every variable");
            let x: [f64; D] = core::array::from_fn(|l| d.values[l].unwrap());
            ctl.observe(&x, x[0] - x[1], costs[1]).unwrap();
            played.push(x);
        }
        played
    }

    /// The first 16 points of a Sobol sequence, scrambled or not, put one value in each
    /// sixteenth of every variable's range: a property of the sequence, not of this code.
    #[test]
    fn sixteen_plays_fill_each_sixteenth_of_every_variable_once() {
        let played = run(&[0.5, 2.0], 32.0);
        assert_eq!(played.len(), 16);
        for l in 0..D {
            let mut cells = [0; 16];
            for x in &played {
                let u = (x[l] + 2.0) / 8.0;
                cells[(u * 16.0) as usize] += 1;
            }
            assert_eq!(cells, [1; 16], "variable {l}");
        }
        assert_eq!(played, run(&[0.5, 2.0], 32.0), "the same seed, the same plays");
    }

    #[test]
    fn a_problem_without_the_set_of_every_variable_is_refused() {
        let sets = [ControlSet::of(&[0]), ControlSet::of(&[1, 2])];
        let built = controller_spec(&sets, &[0.5, 2.0], 10.0)
            .build::<32, 1, 1, _, _>(vec![0.0; tri_len(32)], vec![[0.0; D]; 4]);
        assert_eq!(
            built.err(),
            Some(BuildError::Driver(DriverError::RuleNeedsFullSet))
        );
    }
}
