//! The cost an acquisition charges at a point, as a logarithm with its gradient in unit
//! coordinates: the price side of per-unit-cost rules over a box (paper 002's LogEIPC, LogEICC
//! and Gittins index).
//!
//! Costs enter those rules only through `ln c` (LogEI − α ln c; the index solves
//! `ln EI = ln λ + ln c`), so that is what [`LogCost`] gives. Three sources:
//! - [`Uniform`]: every point costs 1 (`ln c = 0`): the uniform-cost setting;
//! - [`KnownCost`]: the problem's cost of a control set at the point ([`Problem::cost_at`],
//!   in physical units), its gradient carried to unit coordinates;
//! - [`LearnedCost`]: a GP model of `ln c` (the controller's cost model), reduced to the
//!   power mean the rule needs: `(1/q)·ln E[c^q] = μ + q·σ²/2` under the log-normal posterior —
//!   `q = 1` for the Gittins index's `E[c]` (paper 002, Eq. 26), `q = −α` for LogEIPC's and
//!   LogEICC's `E[c^{−α}]` (BudgetedBO's form that the paper's code uses).
//!
//! [`PointCost`] is the one a rule over a box charges: learned where the problem's costs are
//! unknown, known otherwise.

use crate::gp::Gp;
use crate::problem::Problem;
use crate::real::Real;

/// `ln c(x)` and its gradient in unit coordinates.
pub trait LogCost<R, const D: usize> {
    /// `ln c` at `x` (unit coordinates) and, if `gradient`, its gradient (zeros otherwise);
    /// `None` where the cost cannot be evaluated (a known cost that is not positive and
    /// finite, a model that cannot predict).
    fn log_cost(&self, x: &[R; D], gradient: bool) -> Option<(R, [R; D])>;
}

/// Every point costs 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Uniform;

impl<R: Real, const D: usize> LogCost<R, D> for Uniform {
    fn log_cost(&self, _: &[R; D], _: bool) -> Option<(R, [R; D])> {
        Some((R::ZERO, [R::ZERO; D]))
    }
}

/// The problem's known cost of control set `set` at the point.
#[derive(Debug, Clone, Copy)]
pub struct KnownCost<'a, R, const D: usize, const M: usize> {
    problem: &'a Problem<R, D, M>,
    set: usize,
}

impl<'a, R: Real, const D: usize, const M: usize> KnownCost<'a, R, D, M> {
    /// The cost of set `set` of `problem`.
    pub fn new(problem: &'a Problem<R, D, M>, set: usize) -> Self {
        KnownCost { problem, set }
    }
}

impl<R: Real, const D: usize, const M: usize> LogCost<R, D> for KnownCost<'_, R, D, M> {
    fn log_cost(&self, x: &[R; D], gradient: bool) -> Option<(R, [R; D])> {
        let physical = self.problem.to_physical(x);
        let (c, g) = self.problem.cost_at(self.set, &physical).ok()??;
        if !gradient {
            return Some((c.ln(), [R::ZERO; D]));
        }
        // d ln c/du_l = (∂c/∂x_l)·(upper_l − lower_l)/c.
        let (lo, hi) = (self.problem.lower(), self.problem.upper());
        Some((c.ln(), core::array::from_fn(|l| g[l] * (hi[l] - lo[l]) / c)))
    }
}

/// A GP model of `ln c`, reduced to the power mean of order `q`: `μ + q·σ²/2` (see the module
/// documentation). The variance is floored at `1e-6` as the paper's code does.
#[derive(Debug, Clone, Copy)]
pub struct LearnedCost<'a, R, const N: usize, const D: usize, S> {
    model: &'a Gp<R, N, D, S>,
    order: R,
}

impl<'a, R: Real, const N: usize, const D: usize, S> LearnedCost<'a, R, N, D, S> {
    /// The power mean of order `order` under `model`.
    pub fn new(model: &'a Gp<R, N, D, S>, order: R) -> Self {
        LearnedCost { model, order }
    }
}

/// The floor of the log-cost model's variance (the paper's code clamps it at 1e-6).
pub const LOG_COST_VARIANCE_FLOOR: f64 = 1e-6;

impl<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>> LogCost<R, D>
    for LearnedCost<'_, R, N, D, S>
{
    fn log_cost(&self, x: &[R; D], gradient: bool) -> Option<(R, [R; D])> {
        let floor = R::from_f64(LOG_COST_VARIANCE_FLOOR);
        let half_q = R::HALF * self.order;
        if !gradient {
            let p = self.model.predict(x).ok()?;
            let v = p.mean + half_q * p.variance.max(floor);
            return v.is_finite().then_some((v, [R::ZERO; D]));
        }
        let p = self.model.predict_with_gradient(x).ok()?;
        let v = p.mean + half_q * p.variance.max(floor);
        // d(σ²)/dx = 2σ·dσ/dx, zero where the floor holds.
        let active = p.variance > floor;
        let g = core::array::from_fn(|l| {
            if active {
                p.d_mean[l] + self.order * p.std * p.d_std[l]
            } else {
                p.d_mean[l]
            }
        });
        v.is_finite().then_some((v, g))
    }
}

/// The cost a rule over a box charges at its point: learned where the problem's costs are
/// unknown, the problem's own otherwise (what the policies' `Round::box_cost` picks).
#[derive(Debug, Clone, Copy)]
pub enum PointCost<'a, R, const N: usize, const D: usize, const M: usize, S> {
    /// The problem's known cost of a control set.
    Known(KnownCost<'a, R, D, M>),
    /// A power mean of the learned model of `ln c`.
    Learned(LearnedCost<'a, R, N, D, S>),
}

impl<R, const N: usize, const D: usize, const M: usize, S> LogCost<R, D>
    for PointCost<'_, R, N, D, M, S>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
{
    fn log_cost(&self, x: &[R; D], gradient: bool) -> Option<(R, [R; D])> {
        match self {
            PointCost::Known(c) => c.log_cost(x, gradient),
            PointCost::Learned(c) => c.log_cost(x, gradient),
        }
    }
}
