//! The expected confidence bound over the variables a control set leaves to chance,
//! `E[μ ± βσ]` or `E[μ]` ([`Bound`]), as an [`Acquisition`] of the set's controlled values:
//! the acquisition of UCB-CVS, explore-then-commit, the unknown-cost rule (papers 000, 001) and
//! the controller's recommendation.
//!
//! One type, three evaluators of the same quantity (`crate::expectation`'s, exact to
//! rounding), chosen when it is built:
//! - a set that controls every variable has nothing to average: one prediction per candidate
//!   ([`expected_bound`]);
//! - with a workspace and a squared-exponential kernel, each set's random kernel factors are
//!   precomputed ([`FactorisedSe`]), and with a [`Precision`] too, candidates that the optimiser
//!   is sure to ignore are answered by a cheap upper bound ([`UcbScreen`]) without any solve;
//! - otherwise the bank is processed a chunk of `C` points at a time
//!   ([`expected_bound_batched`]).

use super::{Acquisition, Need};
use crate::expectation::{
    expected_bound, expected_bound_batched, Bound, Chunk, FactorisedSe, Precision, SampleBank,
    UcbScreen,
};
use crate::gp::Gp;
use crate::problem::ControlSet;
use crate::real::Real;

/// `E[bound([x^set, X])]` over a bank, for one control set (see the module documentation).
#[derive(Debug)]
pub struct ExpectedBound<'a, R, const N: usize, const D: usize, const C: usize, S, B> {
    gp: &'a Gp<R, N, D, S>,
    bank: &'a SampleBank<R, D, B>,
    set: ControlSet,
    bound: Bound<R>,
    chunk: &'a mut Chunk<R, N, C>,
    evaluator: Evaluator<'a, R, C>,
}

#[derive(Debug)]
enum Evaluator<'a, R, const C: usize> {
    // The set controls every variable.
    Single,
    Batched,
    Factorised {
        fast: FactorisedSe<'a, R, C>,
        screen: Option<UcbScreen<'a, R>>,
    },
}

impl<'a, R, const N: usize, const D: usize, const C: usize, S, B>
    ExpectedBound<'a, R, N, D, C, S, B>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    /// The expected `bound` of `set` under `gp`, averaged over `bank`, evaluated in `chunk`
    /// (the batched evaluator).
    pub fn new(
        gp: &'a Gp<R, N, D, S>,
        bank: &'a SampleBank<R, D, B>,
        set: ControlSet,
        bound: Bound<R>,
        chunk: &'a mut Chunk<R, N, C>,
    ) -> Self {
        Self::with_workspace(gp, bank, set, bound, chunk, &mut [], None)
    }

    /// [`new`](Self::new) with the fast evaluators where they apply: the factorised one when
    /// `factors` holds at least [`FactorisedSe::workspace_len`] scalars and the kernel is the
    /// squared exponential, and screening when `screening` gives the GP's [`Precision`] and
    /// [`UcbScreen::workspace_len`] scalars for the set's screen (confidence bounds only).
    pub fn with_workspace(
        gp: &'a Gp<R, N, D, S>,
        bank: &'a SampleBank<R, D, B>,
        set: ControlSet,
        bound: Bound<R>,
        chunk: &'a mut Chunk<R, N, C>,
        factors: &'a mut [R],
        screening: Option<(&Precision<'_, R>, &'a mut [R])>,
    ) -> Self {
        let evaluator = if (0..D).all(|l| set.contains(l)) {
            // Nothing to average: one prediction per candidate (what the batched evaluator
            // computes too, bit for bit, but in `C` lanes of which `C − 1` would be padding).
            Evaluator::Single
        } else {
            match FactorisedSe::<R, C>::new(gp, bank, set, factors) {
                Some(fast) => {
                    let screen = screening.and_then(|(precision, ws)| {
                        UcbScreen::new(precision, &fast, ws, &mut *chunk)
                    });
                    Evaluator::Factorised { fast, screen }
                }
                None => Evaluator::Batched,
            }
        };
        ExpectedBound {
            gp,
            bank,
            set,
            bound,
            chunk,
            evaluator,
        }
    }

    /// The control set.
    pub fn set(&self) -> ControlSet {
        self.set
    }
}

impl<R, const N: usize, const D: usize, const C: usize, S, B> Acquisition<R, D>
    for ExpectedBound<'_, R, N, D, C, S, B>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    fn evaluate(&mut self, x: &[R; D], need: Need<R>) -> Option<(R, [R; D])> {
        let (gp, bank, set, bound) = (self.gp, self.bank, self.set, self.bound);
        let chunk = &mut *self.chunk;
        match &mut self.evaluator {
            Evaluator::Single => expected_bound(gp, bank, set, x, bound).ok(),
            Evaluator::Batched => {
                expected_bound_batched(gp, bank, set, x, bound, need.wants_gradient(), chunk).ok()
            }
            Evaluator::Factorised { fast, screen } => {
                if let (Some(screen), Some((at, inclusive))) = (screen, need.ignored_below()) {
                    // A value that the optimiser is sure to ignore may be replaced by an upper
                    // bound that it ignores as well: nothing changes, and no solve is needed.
                    let ub = match bound {
                        _ if at == -R::INFINITY => None,
                        Bound::Upper(beta) => Some(screen.upper_bound(fast, gp, x, beta, chunk)),
                        Bound::Lower(beta) => {
                            Some(screen.lcb_upper_bound(fast, gp, x, beta, chunk))
                        }
                        Bound::Mean => None,
                    };
                    if let Some(ub) = ub.filter(|&ub| ub < at || (inclusive && ub <= at)) {
                        return Some((ub, [R::ZERO; D]));
                    }
                }
                let (v, g) = fast
                    .evaluate(gp, x, bound, need.gradient_from(), chunk)
                    .ok()?;
                Some((v, g.unwrap_or([R::ZERO; D])))
            }
        }
    }
}
