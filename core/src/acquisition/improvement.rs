//! Paper 002's acquisitions over a box, functions of the posterior at the point itself and of
//! the cost there ([`LogCost`]):
//! - [`LogImprovement`]: LogEI (Ament et al. 2023) minus `α·ln c`: LogEI (`α = 0`), LogEIPC
//!   (`α = 1`) and LogEICC (cost cooling, `α` falling from 1 to 0 as the budget is spent);
//! - [`GittinsIndex`]: the Pandora's Box Gittins index at price `λ·c(x)` (PBGI, PBGI-D and,
//!   with a learned cost, PBGI-U).
//!
//! Both floor the posterior variance as BoTorch's `_mean_and_sigma` does (`1e-12`; `1e-8` in
//! `f32`, where `1e-12` is below the variance's rounding near data).

use super::cost::LogCost;
use super::posterior::{moments, moments_with_gradient, values_from_posterior, Moments};
use super::{finite_or_minus_infinity, Acquisition, Need};
use crate::gp::{Gp, PREDICT_BLOCK};
use crate::real::Real;
use crate::special::improvement::{
    gittins_index_from_log_price, gittins_index_from_log_price_many, log_expected_improvement,
    log_h_slope,
};

/// The posterior variance floor for `R` (see the module documentation).
pub fn variance_floor<R: Real>() -> R {
    R::from_f64(if R::EPSILON < R::from_f64(1e-10) {
        1e-12
    } else {
        1e-8
    })
}

/// Points evaluated together by [`Acquisition::evaluate_many`] over a GP's posterior: one
/// AVX-512 register of `f64` lanes in the interleaved solves. One on 32-bit Arm, where
/// [`Gp::predict_with_gradient_many`] predicts one point at a time (a group of eight padded
/// around one ascent's point took 2.4–4.2× the instructions of paper 002's optimiser).
const EVALUATE_GROUP: usize = if cfg!(target_arch = "arm") { 1 } else { 8 };

/// [`Acquisition::evaluate_many`] over [`Gp::predict_with_gradient_many`]: the points are
/// predicted [`EVALUATE_GROUP`] at a time (a short group padded with its first point) and
/// each group handed to `group(acquisition, points, needs, moments, out)`, `moments` `None`
/// where the posterior fails.
#[allow(clippy::type_complexity)]
fn evaluate_from_posterior<R, const N: usize, const D: usize, S, A>(
    gp: &Gp<R, N, D, S>,
    xs: &[[R; D]],
    needs: &[Need<R>],
    out: &mut [Option<(R, [R; D])>],
    acquisition: &mut A,
    group: impl Fn(
        &mut A,
        &[[R; D]],
        &[Need<R>],
        [Option<Moments<R, D>>; EVALUATE_GROUP],
        &mut [Option<(R, [R; D])>],
    ),
) where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
{
    let m = xs.len().min(needs.len()).min(out.len());
    for ((xg, ng), og) in xs[..m]
        .chunks(EVALUATE_GROUP)
        .zip(needs[..m].chunks(EVALUATE_GROUP))
        .zip(out[..m].chunks_mut(EVALUATE_GROUP))
    {
        let points: [[R; D]; EVALUATE_GROUP] =
            core::array::from_fn(|t| xg.get(t).copied().unwrap_or(xg[0]));
        let moments = gp.predict_with_gradient_many(&points).map(|p| {
            p.ok()
                .and_then(|p| moments_with_gradient(p, variance_floor()))
        });
        group(acquisition, xg, ng, moments, og);
    }
}

/// `ln EI(x; best) − α·ln c(x)`.
#[derive(Debug, Clone, Copy)]
pub struct LogImprovement<'a, R, const N: usize, const D: usize, S, C> {
    gp: &'a Gp<R, N, D, S>,
    best: R,
    exponent: R,
    cost: C,
}

impl<'a, R: Real, const N: usize, const D: usize, S, C> LogImprovement<'a, R, N, D, S, C> {
    /// LogEI over `best` under `gp`, less `exponent·ln c` with `c` from `cost`.
    pub fn new(gp: &'a Gp<R, N, D, S>, best: R, exponent: R, cost: C) -> Self {
        LogImprovement {
            gp,
            best,
            exponent,
            cost,
        }
    }
}

impl<R, const N: usize, const D: usize, S, C> Acquisition<R, D>
    for LogImprovement<'_, R, N, D, S, C>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    C: LogCost<R, D>,
{
    fn evaluate(&mut self, x: &[R; D], need: Need<R>) -> Option<(R, [R; D])> {
        let gradient = need.wants_gradient();
        let moments = moments(self.gp, x, gradient, variance_floor())?;
        self.from_moments(x, moments, gradient)
    }

    fn evaluate_many(&mut self, xs: &[[R; D]], needs: &[Need<R>], out: &mut [Option<(R, [R; D])>]) {
        let gp = self.gp;
        evaluate_from_posterior(gp, xs, needs, out, self, |a, xg, ng, moments, og| {
            for (((x, need), m), o) in xg.iter().zip(ng).zip(moments).zip(og) {
                *o = if need.wants_gradient() {
                    m.and_then(|m| a.from_moments(x, m, true))
                } else {
                    a.evaluate(x, *need)
                };
            }
        });
    }

    fn values(&mut self, xs: &[[R; D]], out: &mut [R]) {
        let (gp, best, exponent) = (self.gp, self.best, self.exponent);
        values_from_posterior(gp, xs, out, variance_floor(), |xg, moments, og| {
            for ((x, m), o) in xg.iter().zip(moments).zip(og) {
                let v = m.and_then(|(mean, std)| {
                    let log_ei = log_expected_improvement(mean, std, best).ok()?;
                    let (log_c, _) = self.log_cost(x, false)?;
                    Some((log_ei - exponent * log_c, [R::ZERO; D]))
                });
                *o = finite_or_minus_infinity(v);
            }
        });
    }
}

impl<R, const N: usize, const D: usize, S, C> LogImprovement<'_, R, N, D, S, C>
where
    R: Real,
    C: LogCost<R, D>,
{
    /// The value (and, if `gradient`, the gradient) at `x` from the posterior's moments there.
    #[allow(clippy::wrong_self_convention)]
    fn from_moments(
        &mut self,
        x: &[R; D],
        (mean, std, d_mean, d_std): (R, R, [R; D], [R; D]),
        gradient: bool,
    ) -> Option<(R, [R; D])> {
        let log_ei = log_expected_improvement(mean, std, self.best).ok()?;
        let (log_c, d_log_c) = self.log_cost(x, gradient)?;
        let value = log_ei - self.exponent * log_c;
        if !value.is_finite() {
            return None;
        }
        if !gradient {
            return Some((value, [R::ZERO; D]));
        }
        // u = (μ − best)/σ: ∇ ln EI = (ln h)'(u)·(∇μ − u∇σ)/σ + ∇σ/σ.
        let u = (mean - self.best) / std;
        let slope = log_h_slope(u);
        let g = core::array::from_fn(|l| {
            slope * (d_mean[l] - u * d_std[l]) / std + d_std[l] / std - self.exponent * d_log_c[l]
        });
        Some((value, g))
    }

    /// `ln c(x)` and its gradient, or zeros when the cost is not charged (`α = 0`: LogEI).
    fn log_cost(&mut self, x: &[R; D], gradient: bool) -> Option<(R, [R; D])> {
        if self.exponent != R::ZERO {
            self.cost.log_cost(x, gradient)
        } else {
            Some((R::ZERO, [R::ZERO; D]))
        }
    }
}

/// The Pandora's Box Gittins index at price `λ·c(x)`, `λ` given by its logarithm.
#[derive(Debug, Clone, Copy)]
pub struct GittinsIndex<'a, R, const N: usize, const D: usize, S, C> {
    gp: &'a Gp<R, N, D, S>,
    log_lambda: R,
    cost: C,
}

impl<'a, R: Real, const N: usize, const D: usize, S, C> GittinsIndex<'a, R, N, D, S, C> {
    /// The index under `gp` with `ln λ = log_lambda` and costs from `cost`.
    pub fn new(gp: &'a Gp<R, N, D, S>, log_lambda: R, cost: C) -> Self {
        GittinsIndex {
            gp,
            log_lambda,
            cost,
        }
    }
}

impl<R, const N: usize, const D: usize, S, C> Acquisition<R, D> for GittinsIndex<'_, R, N, D, S, C>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    C: LogCost<R, D>,
{
    fn evaluate(&mut self, x: &[R; D], need: Need<R>) -> Option<(R, [R; D])> {
        let gradient = need.wants_gradient();
        let moments = moments(self.gp, x, gradient, variance_floor())?;
        self.from_moments(x, moments, gradient)
    }

    fn evaluate_many(&mut self, xs: &[[R; D]], needs: &[Need<R>], out: &mut [Option<(R, [R; D])>]) {
        let gp = self.gp;
        evaluate_from_posterior(gp, xs, needs, out, self, |a, xg, ng, moments, og| {
            // The group's index roots are found together, as in `values`.
            let mut mean = [R::ZERO; EVALUATE_GROUP];
            let mut std = [R::ONE; EVALUATE_GROUP];
            // An infinite price is refused by the index: lanes without a posterior or a cost.
            let mut log_price = [R::INFINITY; EVALUATE_GROUP];
            let mut gradients = [([R::ZERO; D], [R::ZERO; D], [R::ZERO; D]); EVALUATE_GROUP];
            for (t, ((x, need), m)) in xg.iter().zip(ng).zip(moments).enumerate() {
                let Some((mt, st, d_mean, d_std)) = m.filter(|_| need.wants_gradient()) else {
                    continue;
                };
                if let Some((log_c, d_log_c)) = a.cost.log_cost(x, true) {
                    (mean[t], std[t]) = (mt, st);
                    log_price[t] = a.log_lambda + log_c;
                    gradients[t] = (d_mean, d_std, d_log_c);
                }
            }
            let roots = gittins_index_from_log_price_many(mean, std, log_price);
            for (t, ((x, need), o)) in xg.iter().zip(ng).zip(og).enumerate() {
                if !need.wants_gradient() {
                    *o = a.evaluate(x, *need);
                    continue;
                }
                let (d_mean, d_std, d_log_c) = &gradients[t];
                *o = match roots[t] {
                    Ok((index, u)) if log_price[t] != R::INFINITY && index.is_finite() => Some((
                        index,
                        gittins_index_gradient(d_mean, std[t], d_std, u, d_log_c),
                    )),
                    _ => None,
                };
            }
        });
    }

    /// The posteriors of a group of points together ([`Gp::predict_many`]), then their
    /// indices together ([`gittins_index_from_log_price_many`]): the index's root is the
    /// costlier half of a value, and its iterations are chains of dependent divisions.
    fn values(&mut self, xs: &[[R; D]], out: &mut [R]) {
        let (gp, log_lambda) = (self.gp, self.log_lambda);
        values_from_posterior(gp, xs, out, variance_floor(), |xg, moments, og| {
            let mut mean = [R::ZERO; PREDICT_BLOCK];
            let mut std = [R::ONE; PREDICT_BLOCK];
            // An infinite price is refused by the index: lanes without a posterior or a cost.
            let mut log_price = [R::INFINITY; PREDICT_BLOCK];
            for (k, (x, m)) in xg.iter().zip(moments).enumerate() {
                let Some((mk, sk)) = m else { continue };
                if let Some((log_c, _)) = self.cost.log_cost(x, false) {
                    (mean[k], std[k]) = (mk, sk);
                    log_price[k] = log_lambda + log_c;
                }
            }
            let indices = gittins_index_from_log_price_many(mean, std, log_price);
            for (o, index) in og.iter_mut().zip(indices) {
                *o = finite_or_minus_infinity(index.ok().map(|(v, _)| (v, [R::ZERO; D])));
            }
        });
    }
}

impl<R, const N: usize, const D: usize, S, C> GittinsIndex<'_, R, N, D, S, C>
where
    R: Real,
    C: LogCost<R, D>,
{
    /// The index (and, if `gradient`, its gradient) at `x` from the posterior's moments there.
    #[allow(clippy::wrong_self_convention)]
    fn from_moments(
        &mut self,
        x: &[R; D],
        (mean, std, d_mean, d_std): (R, R, [R; D], [R; D]),
        gradient: bool,
    ) -> Option<(R, [R; D])> {
        let (log_c, d_log_c) = self.cost.log_cost(x, gradient)?;
        let (index, u) = gittins_index_from_log_price(mean, std, self.log_lambda + log_c).ok()?;
        if !index.is_finite() {
            return None;
        }
        if !gradient {
            return Some((index, [R::ZERO; D]));
        }
        Some((
            index,
            gittins_index_gradient(&d_mean, std, &d_std, u, &d_log_c),
        ))
    }
}

/// The gradient of the Gittins index (paper 002's Prop. 3) in its stable form (`docs/notes/seed-002.md` §2.6):
/// `∇α = ∇μ − u*∇σ + (∇σ − σ∇ln c)/(ln h)'(u*)`, from the posterior's `∇μ`, `σ`, `∇σ`, the
/// index's root `u*` and `∇ln c`. For `u* ≥ 10`, where the index is `μ − λc` to rounding, its
/// limit `∇μ − σu*∇ln c = ∇μ − λ∇c`, free of the cancellation of `u*∇σ` against `∇σ/(ln h)'`.
pub fn gittins_index_gradient<R: Real, const D: usize>(
    d_mean: &[R; D],
    std: R,
    d_std: &[R; D],
    u: R,
    d_log_c: &[R; D],
) -> [R; D] {
    if u >= R::from_f64(10.0) {
        return core::array::from_fn(|l| d_mean[l] - std * u * d_log_c[l]);
    }
    let slope = log_h_slope(u);
    core::array::from_fn(|l| d_mean[l] - u * d_std[l] + (d_std[l] - std * d_log_c[l]) / slope)
}

#[cfg(test)]
mod tests {
    use super::super::cost::{KnownCost, LearnedCost, Uniform};
    use super::super::test_support::{data, dose_cost, model, problem};
    use super::*;
    use crate::special::improvement::{expected_improvement, gittins_index_with_root};

    fn check_gradient(acq: &mut impl Acquisition<f64, 2>, x: [f64; 2]) {
        let (v, g) = acq.evaluate(&x, Need::Gradient).unwrap();
        let (v0, _) = acq
            .evaluate(
                &x,
                Need::Value {
                    floor: f64::NEG_INFINITY,
                },
            )
            .unwrap();
        assert_eq!(v, v0, "value with and without gradient");
        for l in 0..2 {
            let (mut a, mut b) = (x, x);
            a[l] += 1e-6;
            b[l] -= 1e-6;
            let fd =
                (acq.evaluate(
                    &a,
                    Need::Value {
                        floor: f64::NEG_INFINITY,
                    },
                )
                .unwrap()
                .0 - acq
                    .evaluate(
                        &b,
                        Need::Value {
                            floor: f64::NEG_INFINITY,
                        },
                    )
                    .unwrap()
                    .0)
                    / 2e-6;
            assert!(
                (fd - g[l]).abs() < 2e-6 * (1.0 + fd.abs()),
                "∂{l}: fd {fd} vs {}",
                g[l]
            );
        }
    }

    #[test]
    fn gittins_gradient_matches_the_notes_worked_check() {
        // Notes §2.6: μ = sin 3x, σ = 0.3 + x², c = 1 + 20x², λ = 1e-4 at x = 0.37 gives
        // u* = −2.76498 and a derivative of 3.08253500353914 (finite differences, Eq. 10 and
        // the stable form agree; the official code's backward gives 1.8727).
        let x: f64 = 0.37;
        let (mean, std, cost) = ((3.0 * x).sin(), 0.3 + x * x, 1.0 + 20.0 * x * x);
        let (_, u) = gittins_index_with_root(mean, std, 1e-4 * cost).unwrap();
        assert!((u + 2.76498).abs() < 5e-6, "u* = {u}");
        let g = gittins_index_gradient(
            &[3.0 * (3.0 * x).cos()],
            std,
            &[2.0 * x],
            u,
            &[40.0 * x / cost],
        );
        assert!((g[0] - 3.08253500353914).abs() < 1e-12, "∇α = {}", g[0]);
    }

    #[test]
    fn gradients_match_finite_differences_with_every_cost_source() {
        let gp = data();
        let p = problem();
        let cost_model = model(&[([0.2, 0.3], 0.5), ([0.7, 0.8], 1.5), ([0.4, 0.1], 0.9)]);
        for x in [[0.37, 0.61], [0.82, 0.15], [0.5, 0.5]] {
            check_gradient(&mut GittinsIndex::new(&gp, (1e-4f64).ln(), Uniform), x);
            check_gradient(
                &mut GittinsIndex::new(&gp, (0.1f64).ln(), KnownCost::new(&p, 0)),
                x,
            );
            check_gradient(
                &mut GittinsIndex::new(&gp, (1e-3f64).ln(), LearnedCost::new(&cost_model, 1.0)),
                x,
            );
            check_gradient(&mut LogImprovement::new(&gp, 0.9, 0.0, Uniform), x);
            check_gradient(
                &mut LogImprovement::new(&gp, 0.9, 1.0, KnownCost::new(&p, 0)),
                x,
            );
            check_gradient(
                &mut LogImprovement::new(&gp, 0.9, 0.4, LearnedCost::new(&cost_model, -0.4)),
                x,
            );
        }
    }

    /// `values` at nine points (two groups of four and one more; one point outside the data's
    /// reach where LogEI is deep in its tail) against `evaluate` one point at a time.
    fn check_values(acq: &mut impl Acquisition<f64, 2>) {
        let xs: [[f64; 2]; 9] =
            core::array::from_fn(|k| [(k as f64 * 0.37).fract(), (k as f64 * 0.61 + 0.1).fract()]);
        let mut got = [0.0; 9];
        acq.values(&xs, &mut got);
        for (x, g) in xs.iter().zip(got) {
            let want = match acq.evaluate(
                x,
                Need::Value {
                    floor: f64::NEG_INFINITY,
                },
            ) {
                Some((v, _)) if v.is_finite() => v,
                _ => f64::NEG_INFINITY,
            };
            assert_eq!(g.to_bits(), want.to_bits(), "at {x:?}");
        }
        // Values with gradients, side by side (`evaluate_many`: 11 points, a group of eight and
        // a padded one of three, every kind of need) against one at a time, bit for bit.
        let xs: [[f64; 2]; 11] =
            core::array::from_fn(|k| [(k as f64 * 0.29).fract(), (k as f64 * 0.53 + 0.2).fract()]);
        let needs: [Need<f64>; 11] = core::array::from_fn(|k| match k % 3 {
            0 => Need::Gradient,
            1 => Need::Trial { accept_from: -0.5 },
            _ => Need::Value {
                floor: f64::NEG_INFINITY,
            },
        });
        let mut got = [None; 11];
        acq.evaluate_many(&xs, &needs, &mut got);
        for ((x, need), g) in xs.iter().zip(needs).zip(got) {
            let want = acq.evaluate(x, need);
            let bits =
                |a: Option<(f64, [f64; 2])>| a.map(|(v, g)| (v.to_bits(), g.map(f64::to_bits)));
            assert_eq!(bits(g), bits(want), "at {x:?}, {need:?}");
        }
    }

    #[test]
    fn values_and_gradients_of_several_points_have_the_bits_of_one_at_a_time() {
        let gp = data();
        let p = problem();
        let cost_model = model(&[([0.2, 0.3], 0.5), ([0.7, 0.8], 1.5), ([0.4, 0.1], 0.9)]);
        check_values(&mut GittinsIndex::new(&gp, (1e-4f64).ln(), Uniform));
        check_values(&mut GittinsIndex::new(
            &gp,
            (0.1f64).ln(),
            KnownCost::new(&p, 0),
        ));
        check_values(&mut GittinsIndex::new(
            &gp,
            (1e-3f64).ln(),
            LearnedCost::new(&cost_model, 1.0),
        ));
        check_values(&mut LogImprovement::new(&gp, 0.9, 0.0, Uniform));
        check_values(&mut LogImprovement::new(&gp, 5.0, 0.0, Uniform));
        check_values(&mut LogImprovement::new(
            &gp,
            0.9,
            1.0,
            KnownCost::new(&p, 0),
        ));
        check_values(&mut LogImprovement::new(
            &gp,
            0.9,
            0.4,
            LearnedCost::new(&cost_model, -0.4),
        ));
    }

    #[test]
    fn values_are_the_closed_forms_at_the_posterior() {
        let gp = data();
        let p = problem();
        let x = [0.37, 0.61];
        let pr = gp.predict(&x).unwrap();
        let (m, s) = (pr.mean, pr.variance.sqrt());
        let c = dose_cost(0, &p.to_physical(&x)).0;
        // LogEIPC = ln(EI/c), EI from the closed form σh(u).
        let want = (expected_improvement(m, s, 0.9).unwrap() / c).ln();
        let got = LogImprovement::new(&gp, 0.9, 1.0, KnownCost::new(&p, 0))
            .evaluate(
                &x,
                Need::Value {
                    floor: f64::NEG_INFINITY,
                },
            )
            .unwrap()
            .0;
        assert!((got - want).abs() < 1e-13 * want.abs());
        // The index at price λc solves EI(index) = λc.
        let index = GittinsIndex::new(&gp, (0.01f64).ln(), KnownCost::new(&p, 0))
            .evaluate(
                &x,
                Need::Value {
                    floor: f64::NEG_INFINITY,
                },
            )
            .unwrap()
            .0;
        let ei = expected_improvement(m, s, index).unwrap();
        assert!(
            (ei - 0.01 * c).abs() < 1e-12 * 0.01 * c,
            "EI(index) = {ei}, λc = {}",
            0.01 * c
        );
        // PBGI-U prices at E[c] = exp(μ + σ²/2) of the log-cost model.
        let cm = model(&[([0.2, 0.3], 0.5), ([0.7, 0.8], 1.5)]);
        let q = cm.predict(&x).unwrap();
        let expected_cost = (q.mean + q.variance / 2.0).exp();
        let index = GittinsIndex::new(&gp, (0.01f64).ln(), LearnedCost::new(&cm, 1.0))
            .evaluate(
                &x,
                Need::Value {
                    floor: f64::NEG_INFINITY,
                },
            )
            .unwrap()
            .0;
        let ei = expected_improvement(m, s, index).unwrap();
        assert!((ei - 0.01 * expected_cost).abs() < 1e-12 * 0.01 * expected_cost);
    }
}
