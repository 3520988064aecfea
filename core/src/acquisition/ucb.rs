//! The upper confidence bound `μ(x) + w·σ(x)` of the posterior at a point, `w = √β`: GP-UCB
//! over a box (paper 002's UCB baseline; papers 003's and 004's rules compute their own, in
//! `feedback::select` and `causal`).
//! Nothing is averaged: the acquisition of a control set that controls every variable.

use super::{Acquisition, Need};
use crate::gp::Gp;
use crate::real::Real;

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
        let p = self.gp.predict_with_gradient(x).ok()?;
        let v = p.mean + self.width * p.std;
        let g = core::array::from_fn(|l| p.d_mean[l] + self.width * p.d_std[l]);
        v.is_finite().then_some((v, g))
    }
}
