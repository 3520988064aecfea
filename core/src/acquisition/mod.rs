//! Acquisition functions: what a decision rule maximises.
//!
//! An acquisition is a value with a gradient at a point `x` of the unit cube, computed from a
//! posterior (a GP, a sample path, fantasies) and the acquisition's own state (a sample bank, a
//! control set, an incumbent, precomputed factors). It is told what each evaluation is for
//! ([`Need`]), so that it can skip work whose result the optimiser is sure to ignore. The
//! optimiser ([`crate::inner::maximize`]) works on any [`Acquisition`]; decision rules
//! ([`crate::policy`]) build acquisitions and turn their maxima into a decision.
//!
//! The acquisitions of papers 000 and 001 are expectations over the variables a control set
//! leaves to chance (common random numbers from a [`SampleBank`](crate::expectation::SampleBank)):
//! - [`expected_bound`]: `E[μ ± βσ]` and `E[μ]`, with its batched, factorised and screened
//!   evaluators;
//! - [`expected_path`]: `E[f̃]` of a posterior sample path (Thompson sampling);
//! - [`fantasy_ei`]: expected improvement averaged over fantasy sample paths (EI-PSQ);
//! - [`expected_gittins`]: the Pandora's Box Gittins index of a control set, the outcome a
//!   mixture over the bank (issue 20's rule of ours).
//!
//! Over a box (a control set of every variable, papers 002–004), acquisitions are functions of
//! the posterior at the point itself:
//! - [`ucb`]: `μ + √β·σ` (GP-UCB);
//! - [`improvement`]: LogEI, LogEIPC, LogEICC and the Pandora's Box Gittins index (paper 002),
//!   priced by [`cost`]: `ln c(x)` known, learned, or uniform;
//! - [`knowledge_gradient`]: the one-shot knowledge gradient, `x` optimised jointly with one
//!   point per fantasy (paper 002's KG baseline);
//! - [`max_value_entropy`]: max-value entropy search over Gumbel samples of the maximum, and
//!   its information gain per unit cost (paper 002's MES and MFMES baselines);
//! - [`textbook`]: EI and the Gittins index from their textbook formulas, EI's log and exp
//!   (paper 002's App. D.1 ablation of scale against stability).
//!
//! A closure `FnMut(&[R; D], Need<R>) -> Option<(R, [R; D])>` is an acquisition too.

pub mod cost;
pub mod expected_bound;
pub mod expected_gittins;
pub mod expected_path;
pub mod fantasy_ei;
pub mod improvement;
pub mod knowledge_gradient;
pub mod max_value_entropy;
pub mod multi_step;
mod posterior;
#[cfg(test)]
mod test_support;
pub mod textbook;
pub mod ucb;

pub use crate::optimize::Need;

/// A function to maximise over the unit cube: its value and gradient at `x`.
pub trait Acquisition<R, const D: usize> {
    /// Value and gradient at `x` (unit coordinates), or `None` where it cannot be evaluated.
    /// The gradient is zero on coordinates the acquisition does not depend on (those a control
    /// set leaves to chance). `need` says what the caller will use: an answer that the contract
    /// of [`Need`] allows (an upper bound for a value sure to be ignored, any gradient where it
    /// is unused) leaves every optimiser's result unchanged.
    fn evaluate(&mut self, x: &[R; D], need: Need<R>) -> Option<(R, [R; D])>;

    /// Values at several points, `out[k]` for `xs[k]` (as many as the shorter holds), `−∞`
    /// where the acquisition fails or is not finite: exactly what [`evaluate`](Self::evaluate)
    /// asked for values only (`Need::Value` with no floor) gives one point at a time, which is
    /// what this default does. Acquisitions whose model shares work across points (one pass of
    /// a triangular solve for several of them, [`Gp::predict_many`](crate::gp::Gp::predict_many))
    /// override it; the optimiser's raw samples ([`crate::inner::maximize_with_restarts`]) come
    /// through here.
    fn values(&mut self, xs: &[[R; D]], out: &mut [R])
    where
        R: crate::real::Real,
    {
        for (x, o) in xs.iter().zip(out) {
            *o = finite_or_minus_infinity(self.evaluate(
                x,
                Need::Value {
                    floor: -R::INFINITY,
                },
            ));
        }
    }

    /// [`evaluate`](Self::evaluate) at several points, `out[k]` for `xs[k]` with `needs[k]`
    /// (as many as the shortest of the three holds), each an answer `evaluate` could give.
    /// This default evaluates one point at a time; acquisitions whose model shares work
    /// across points ([`Gp::predict_with_gradient_many`](crate::gp::Gp::predict_with_gradient_many))
    /// override it. The ascents of [`crate::inner::maximize_with_restarts`], stepped side by
    /// side, come through here.
    fn evaluate_many(&mut self, xs: &[[R; D]], needs: &[Need<R>], out: &mut [Option<(R, [R; D])>])
    where
        R: crate::real::Real,
    {
        for ((x, need), o) in xs.iter().zip(needs).zip(out) {
            *o = self.evaluate(x, *need);
        }
    }
}

/// The value of an evaluation, or `−∞` where it failed or is not finite.
pub(crate) fn finite_or_minus_infinity<R: crate::real::Real, const D: usize>(
    found: Option<(R, [R; D])>,
) -> R {
    match found {
        Some((y, _)) if y.is_finite() => y,
        _ => -R::INFINITY,
    }
}

impl<R, const D: usize, F> Acquisition<R, D> for F
where
    F: FnMut(&[R; D], Need<R>) -> Option<(R, [R; D])>,
{
    fn evaluate(&mut self, x: &[R; D], need: Need<R>) -> Option<(R, [R; D])> {
        self(x, need)
    }
}
