//! TS-PSQ (Hayashi et al., paper 000's baseline): draw one posterior sample path, maximise its
//! expectation over the uncontrolled variables for every control set
//! ([`crate::acquisition::expected_path::PathAverage`]), and play the best
//! (set, values) overall, or, with [`Selection::PerUnitCost`], the best expectation per unit
//! cost (paper 000's appendix B baseline).
//!
//! `F` is the number of random Fourier features of the path: while a decision is made the path
//! takes `F × (D + 2) + N` scalars of stack.

use super::{score_each_set, Choice, DriverError, Policy, Round, Selection};
use crate::acquisition::expected_path::PathAverage;
use crate::problem::Problem;
use crate::real::Real;
use crate::thompson::PosteriorSample;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

/// Thompson sampling over partial queries with `F` random Fourier features per path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ThompsonPsq<const F: usize> {
    selection: Selection,
}

impl<const F: usize> ThompsonPsq<F> {
    /// TS-PSQ ([`Selection::Argmax`]) or TS per unit cost ([`Selection::PerUnitCost`]).
    pub fn new(selection: Selection) -> Self {
        ThompsonPsq { selection }
    }

    /// How the set is chosen.
    pub fn selection(&self) -> Selection {
        self.selection
    }
}

impl<R: Real, const D: usize, const M: usize, const F: usize> Policy<R, D, M> for ThompsonPsq<F> {
    super::stateless_record!();

    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        match self.selection {
            Selection::PerUnitCost => super::require_set_costs(problem),
            Selection::Argmax => Ok(()),
        }
    }

    // Never inlined: the path's stack is only taken while this rule decides.
    #[inline(never)]
    fn decide<const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        let problem = round.problem;
        let m = problem.num_sets();
        let mut out = [None; M];
        {
            let mut rng = Xoshiro128PlusPlus::seed_from_u64(round.seed);
            let path = PosteriorSample::<R, D, F, N>::draw(round.gp, &mut rng)?;
            // The argmax is attained by the set controlling every variable alone when there is
            // one (a sample path's maximum is never below its expectation over the rest).
            let full = problem.full_set().filter(|_| self.selection.plays_argmax());
            let (bank, inner, seed) = (round.bank, &round.settings.inner, round.seed);
            super::score_full_set_first(&mut out[..m], full, |out, wanted| {
                score_each_set(problem, inner, seed, out, wanted, |set| {
                    PathAverage::new(&path, bank, set)
                })
            });
        }
        self.selection.play(&out[..m], &round.set_costs()[..m])
    }
}

use super::names::{Parsed, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "ts-psq",
        summary: "Thompson sampling over partial queries (paper 000's baseline)",
    },
    RuleName {
        name: "ts-per-cost",
        summary: "Thompson sampling per unit cost (paper 000's appendix B)",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<Selection> {
    let _ = defaults;
    Some(Ok(match name {
        "ts-psq" => Selection::Argmax,
        "ts-per-cost" => Selection::PerUnitCost,
        _ => return None,
    }))
}
