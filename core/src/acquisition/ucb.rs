//! The upper confidence bound `μ(x) + w·σ(x)` of the posterior at a point, `w = √β`, with its
//! gradient ([`ucb_with_gradient`]), the one formula of the rules over a box of papers
//! 002–004: GP-UCB's acquisition ([`UpperBound`], paper 002's UCB baseline, maximised by the
//! inner optimiser) and the ascent from a start that papers 003's and 004's rules run from
//! their own starts ([`ascend_ucb`]: `feedback::select::box_ucb_optima`,
//! `causal::maximize_ucb`). Nothing is averaged: the acquisition of a control set that
//! controls every variable.

use super::{Acquisition, Need};
use crate::gp::{Gp, Posterior, Prediction, PredictionGradient};
use crate::optimize::{maximize_quasi_newton, QuasiNewtonConfig};
use crate::real::Real;

/// `μ + width·σ` and its gradient from a prediction with gradient; `None` when not finite.
pub fn ucb_with_gradient<R: Real, const D: usize>(
    p: &PredictionGradient<R, D>,
    width: R,
) -> Option<(R, [R; D])> {
    let v = p.mean + width * p.std;
    let g = core::array::from_fn(|l| p.d_mean[l] + width * p.d_std[l]);
    v.is_finite().then_some((v, g))
}

/// A maximum of `μ + width·σ` found over a box.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UcbMaximum<R, const D: usize> {
    /// Where.
    pub input: [R; D],
    /// The UCB there.
    pub value: R,
    /// The posterior there.
    pub prediction: Prediction<R>,
}

/// The ascent of `μ + width·σ` of `posterior` from `start` over the box `[lower, upper]`
/// (projected L-BFGS, [`maximize_quasi_newton`]), with the posterior where it ends; `None`
/// when the ascent finds no finite value or the posterior cannot be evaluated there.
/// Coordinates with `lower = upper` stay pinned.
pub fn ascend_ucb<R, const D: usize, P>(
    posterior: &P,
    width: R,
    start: [R; D],
    lower: &[R; D],
    upper: &[R; D],
    config: &QuasiNewtonConfig,
) -> Option<UcbMaximum<R, D>>
where
    R: Real,
    P: Posterior<R, D>,
{
    let ucb = |x: &[R; D], _need: Need<R>| {
        ucb_with_gradient(&posterior.predict_with_gradient(x).ok()?, width)
    };
    let ascent = maximize_quasi_newton(ucb, start, lower, upper, config)?;
    let prediction = posterior.predict(&ascent.point).ok()?;
    Some(UcbMaximum {
        input: ascent.point,
        value: ascent.value,
        prediction,
    })
}

/// `μ(x) + width·σ(x)` under `gp`.
#[derive(Debug, Clone, Copy)]
pub struct UpperBound<'a, R, const N: usize, const D: usize, S> {
    gp: &'a Gp<R, N, D, S>,
    width: R,
}

impl<'a, R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>>
    UpperBound<'a, R, N, D, S>
{
    /// The bound of width `width` (`√β`, any real: a negative width gives a lower bound).
    pub fn new(gp: &'a Gp<R, N, D, S>, width: R) -> Self {
        UpperBound { gp, width }
    }
}

impl<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>> Acquisition<R, D>
    for UpperBound<'_, R, N, D, S>
{
    fn evaluate(&mut self, x: &[R; D], need: Need<R>) -> Option<(R, [R; D])> {
        if !need.wants_gradient() {
            // A compared value needs no backward solve.
            let p = self.gp.predict(x).ok()?;
            let v = p.mean + self.width * p.variance.sqrt();
            return v.is_finite().then_some((v, [R::ZERO; D]));
        }
        ucb_with_gradient(&self.gp.predict_with_gradient(x).ok()?, self.width)
    }
}
