//! EI-PSQ (paper 000's expected-improvement baseline for partial queries, as coded by the
//! paper's authors): [`FANTASIES`] fantasy sample paths, each with its incumbent over the
//! queries made so far, and the expected improvement averaged over them
//! ([`crate::acquisition::fantasy_ei::FantasyEi`]); with
//! [`Selection::PerUnitCost`] each set's best EI is divided by its cost (paper 000 shows it
//! fails: EI vanishes as the model learns, and the ratio then favours whatever is cheap).
//!
//! The incumbents need the past queries (control set and point), which no other rule needs:
//! the rule keeps the last `H` itself (a sliding window like the GP's). Memory: the paths take
//! `FANTASIES × (F (D + 2) + N)` scalars of stack during a decision, so this rule is for
//! desktops.

use super::{score_each_set, Choice, DriverError, Outcome, Policy, Round, Selection};
use crate::acquisition::fantasy_ei::{incumbents, FantasyEi, FANTASIES};
use crate::problem::ControlSet;
use crate::real::Real;
use crate::thompson::PosteriorSample;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

/// EI over fantasies with `F` random Fourier features per path and a window of the last `H`
/// queries.
#[derive(Debug, Clone, PartialEq)]
pub struct EiPsq<R, const D: usize, const F: usize, const H: usize> {
    selection: Selection,
    // Past queries (control set, point in unit coordinates), oldest first.
    history: heapless::Vec<(ControlSet, [R; D]), H>,
}

impl<R: Real, const D: usize, const F: usize, const H: usize> EiPsq<R, D, F, H> {
    /// EI-PSQ ([`Selection::Argmax`]) or EI per unit cost ([`Selection::PerUnitCost`]).
    pub fn new(selection: Selection) -> Self {
        EiPsq {
            selection,
            history: heapless::Vec::new(),
        }
    }

    /// How the set is chosen.
    pub fn selection(&self) -> Selection {
        self.selection
    }

    /// The remembered queries, oldest first.
    pub fn history(&self) -> &[(ControlSet, [R; D])] {
        &self.history
    }

    /// Appends a query to the window.
    fn remember(&mut self, set: ControlSet, u: [R; D]) {
        if H == 0 {
            return;
        }
        if self.history.is_full() {
            self.history.remove(0);
        }
        // Cannot fail: there is room now.
        let _ = self.history.push((set, u));
    }
}

/// The saved state of [`EiPsq`]: the remembered queries, oldest first.
#[cfg(feature = "serde")]
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(bound(
    serialize = "R: serde::Serialize",
    deserialize = "R: serde::Deserialize<'de> + Copy + Default"
))]
pub struct EiRecord<R: Copy + Default, const D: usize, const H: usize> {
    /// Past queries, oldest first.
    pub history: heapless::Vec<crate::snapshot::QueryRecord<R, D>, H>,
}

impl<R: Real, const D: usize, const M: usize, const F: usize, const H: usize> Policy<R, D, M>
    for EiPsq<R, D, F, H>
{
    #[cfg(feature = "serde")]
    type Record = EiRecord<R, D, H>;

    // Never inlined: the fantasies' stack is only taken while this rule decides.
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
            let mut paths: [Option<PosteriorSample<'_, R, D, F, N>>; FANTASIES] =
                [const { None }; FANTASIES];
            let mut rng = Xoshiro128PlusPlus::seed_from_u64(round.seed);
            for p in paths.iter_mut() {
                *p = Some(PosteriorSample::draw(round.gp, &mut rng)?);
            }
            let mut tau = [R::ZERO; FANTASIES];
            incumbents(&paths, round.bank, self.history(), &mut tau);
            let (bank, inner, seed) = (round.bank, &round.settings.inner, round.seed);
            score_each_set(
                problem,
                inner,
                seed,
                &mut out[..m],
                |_| true,
                |set| FantasyEi::new(&paths, &tau, bank, set),
            );
        }
        self.selection.play(&out[..m], &round.set_costs()[..m])
    }

    fn record(&mut self, outcome: &Outcome<'_, R, D, M>) {
        self.remember(outcome.control, *outcome.x);
    }

    #[cfg(feature = "serde")]
    fn save(&self) -> Self::Record {
        use crate::snapshot::{FixedArray, QueryRecord};
        let mut history = heapless::Vec::new();
        for (set, x) in self.history() {
            // Cannot fail: both windows hold H queries.
            let _ = history.push(QueryRecord {
                set: set.0,
                x: FixedArray(*x),
            });
        }
        EiRecord { history }
    }

    #[cfg(feature = "serde")]
    fn load(&mut self, record: &Self::Record) -> Result<(), DriverError> {
        let in_cube = |x: &[R; D]| {
            x.iter()
                .all(|v| v.is_finite() && *v >= R::ZERO && *v <= R::ONE)
        };
        if !record.history.as_slice().iter().all(|q| in_cube(&q.x.0)) {
            return Err(DriverError::InvalidSnapshot);
        }
        self.history.clear();
        for q in record.history.as_slice() {
            self.remember(ControlSet(q.set), q.x.0);
        }
        Ok(())
    }
}

use super::names::{Parsed, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "ei-psq",
        summary: "expected improvement over partial queries (paper 000's baseline)",
    },
    RuleName {
        name: "ei-per-cost",
        summary: "expected improvement per unit cost (paper 000's appendix B)",
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
        "ei-psq" => Selection::Argmax,
        "ei-per-cost" => Selection::PerUnitCost,
        _ => return None,
    }))
}
