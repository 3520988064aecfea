//! The expectation of a posterior sample path over the variables a control set leaves to
//! chance, `E[f̃([x^set, X])]`: the acquisition of Thompson sampling over partial queries
//! (paper 000's TS-PSQ), and the building block of [`super::fantasy_ei`].
//!
//! [`expected_sample`] is the definition (the path evaluated at every bank point and averaged);
//! [`ExpectedPath`] is the same average factorised for the squared-exponential kernel, at the
//! price of one path evaluation per candidate; [`PathAverage`] is the [`Acquisition`] that uses
//! the factorised form where it applies.

use super::{Acquisition, Need};
use crate::expectation::{bank_average, SampleBank};
use crate::kernel::Shape;
use crate::problem::ControlSet;
use crate::real::{all_finite, Real};
use crate::thompson::PosteriorSample;

/// `E[f([x^set, X])]` over the bank for a sample path `f`, and its gradient in `x`.
pub fn expected_sample<R: Real, const D: usize, const F: usize, const N: usize, B>(
    path: &PosteriorSample<'_, R, D, F, N>,
    bank: &SampleBank<R, D, B>,
    set: ControlSet,
    x: &[R; D],
) -> (R, [R; D])
where
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    let mut g = [R::ZERO; D];
    let averaged: Result<_, core::convert::Infallible> = bank_average(bank, set, x, |p| {
        let v = path.value_and_gradient(p, &mut g);
        Ok((v, g))
    });
    match averaged {
        Ok(r) => r,
        Err(never) => match never {},
    }
}

/// The bank average of a squared-exponential sample path over one partial control set,
/// factorised so that a candidate costs what one evaluation of the path costs, not one per
/// bank point.
///
/// Write `ωⱼᵀp + bⱼ = aⱼ(x) + tⱼ(w)` with `aⱼ` the controlled part (plus the phase) and `tⱼ` the
/// uncontrolled one. Then `cos(aⱼ + tⱼ) = cos aⱼ cos tⱼ − sin aⱼ sin tⱼ`, and the squared
/// exponential factorises as `k(p, xᵢ) = cᵢ(x)·rᵢ(w)`, so
/// `E_w[f] = m + A Σⱼ wⱼ (cos aⱼ·E[cos tⱼ] − sin aⱼ·E[sin tⱼ]) + Σᵢ vᵢ cᵢ(x)·E[rᵢ]`:
/// the bank enters only through `2M + n` averages, computed once per set
/// ([`new`](Self::new): `S·(M + n)` trigonometric and exponential functions, the price of one
/// unfactorised candidate). Agrees with [`expected_sample`] to rounding (angle addition
/// instead of the cosine of a sum).
#[derive(Debug, Clone)]
pub struct ExpectedPath<'p, 'a, R, const D: usize, const F: usize, const N: usize> {
    path: &'p PosteriorSample<'a, R, D, F, N>,
    set: ControlSet,
    // Bank means of cos tⱼ and sin tⱼ.
    cos_mean: [R; F],
    sin_mean: [R; F],
    // vᵢ times the bank mean of rᵢ.
    update_mean: [R; N],
}

impl<'p, 'a, R: Real, const D: usize, const F: usize, const N: usize>
    ExpectedPath<'p, 'a, R, D, F, N>
{
    /// The averages for `set`. `None` (use [`expected_sample`]) when the kernel is not the
    /// squared exponential, `set` controls every variable (nothing to average), the bank is
    /// empty, or an average is not finite.
    pub fn new<B>(
        path: &'p PosteriorSample<'a, R, D, F, N>,
        bank: &SampleBank<R, D, B>,
        set: ControlSet,
    ) -> Option<Self>
    where
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        let kernel = path.kernel();
        let points = bank.points();
        if kernel.shape() != Shape::SquaredExponential
            || !kernel.is_stationary()
            || (0..D).all(|l| set.contains(l))
            || points.is_empty()
        {
            return None;
        }
        let inv = R::ONE / R::from_usize(points.len());
        let mut e = ExpectedPath {
            path,
            set,
            cos_mean: [R::ZERO; F],
            sin_mean: [R::ZERO; F],
            update_mean: [R::ZERO; N],
        };
        for ((omega, c), s) in path
            .frequencies()
            .iter()
            .zip(e.cos_mean.iter_mut())
            .zip(e.sin_mean.iter_mut())
        {
            let (mut cs, mut ss) = (R::ZERO, R::ZERO);
            for w in points {
                let t = dot_over(omega, w, |l| !set.contains(l));
                cs += t.cos();
                ss += t.sin();
            }
            *c = cs * inv;
            *s = ss * inv;
        }
        for ((xi, vi), u) in path
            .inputs()
            .iter()
            .zip(path.update_weights())
            .zip(e.update_mean.iter_mut())
        {
            let mut r = R::ZERO;
            for w in points {
                r += (-R::HALF * kernel.scaled_sq_dist_over(w, xi, |l| !set.contains(l))).exp();
            }
            *u = *vi * r * inv;
        }
        (all_finite(&e.cos_mean) && all_finite(&e.sin_mean) && all_finite(&e.update_mean))
            .then_some(e)
    }

    /// `E_w[f([x^set, w])]` and its gradient in `x` (zero on the uncontrolled coordinates), as
    /// [`expected_sample`] computes them.
    pub fn value_and_gradient(&self, x: &[R; D]) -> (R, [R; D]) {
        let path = self.path;
        let set = self.set;
        let mut s = R::ZERO;
        let mut g = [R::ZERO; D];
        for ((((omega, b), w), c), sn) in path
            .frequencies()
            .iter()
            .zip(path.phases())
            .zip(path.weights())
            .zip(&self.cos_mean)
            .zip(&self.sin_mean)
        {
            let a = dot_over(omega, x, |l| set.contains(l)) + *b;
            let (sa, ca) = (a.sin(), a.cos());
            s += *w * (ca * *c - sa * *sn);
            let slope = *w * (sa * *c + ca * *sn);
            for l in (0..D).filter(|&l| set.contains(l)) {
                g[l] -= slope * omega[l];
            }
        }
        let amplitude = path.amplitude();
        let mut f = path.prior_mean() + amplitude * s;
        let mut grad = g.map(|gl| amplitude * gl);
        let kernel = path.kernel();
        let os = kernel.outputscale();
        let inv_sq = kernel.inverse_squared_lengthscales();
        for (xi, u) in path.inputs().iter().zip(&self.update_mean) {
            let r2 = kernel.scaled_sq_dist_over(x, xi, |l| set.contains(l));
            let t = *u * os * (-R::HALF * r2).exp();
            f += t;
            for l in (0..D).filter(|&l| set.contains(l)) {
                grad[l] -= t * (x[l] - xi[l]) * inv_sq[l];
            }
        }
        (f, grad)
    }
}

/// `Σ_{l: include(l)} ωₗ·xₗ`: the part of a feature's phase from some of the variables.
fn dot_over<R: Real, const D: usize>(
    omega: &[R; D],
    x: &[R; D],
    include: impl Fn(usize) -> bool,
) -> R {
    let mut t = R::ZERO;
    for l in (0..D).filter(|&l| include(l)) {
        t += omega[l] * x[l];
    }
    t
}

/// `E[f̃([x^set, X])]` for one control set as an [`Acquisition`]: [`ExpectedPath`] where it
/// applies, [`expected_sample`] otherwise; non-finite values count as failures.
#[derive(Debug, Clone)]
pub struct PathAverage<'p, 'a, 'b, R, const D: usize, const F: usize, const N: usize, B> {
    path: &'p PosteriorSample<'a, R, D, F, N>,
    bank: &'b SampleBank<R, D, B>,
    set: ControlSet,
    fast: Option<ExpectedPath<'p, 'a, R, D, F, N>>,
}

impl<'p, 'a, 'b, R: Real, const D: usize, const F: usize, const N: usize, B>
    PathAverage<'p, 'a, 'b, R, D, F, N, B>
where
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    /// The path's average over `bank` for `set` (the factorised averages are computed here).
    pub fn new(
        path: &'p PosteriorSample<'a, R, D, F, N>,
        bank: &'b SampleBank<R, D, B>,
        set: ControlSet,
    ) -> Self {
        PathAverage {
            path,
            bank,
            set,
            fast: ExpectedPath::new(path, bank, set),
        }
    }
}

impl<R: Real, const D: usize, const F: usize, const N: usize, B> Acquisition<R, D>
    for PathAverage<'_, '_, '_, R, D, F, N, B>
where
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    fn evaluate(&mut self, x: &[R; D], _: Need<R>) -> Option<(R, [R; D])> {
        let (v, g) = match &self.fast {
            Some(e) => e.value_and_gradient(x),
            None => expected_sample(self.path, self.bank, self.set, x),
        };
        v.is_finite().then_some((v, g))
    }
}
