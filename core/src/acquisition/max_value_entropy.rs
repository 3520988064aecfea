//! Max-value entropy search (MES; Wang & Jegelka 2017), paper 002's information-based
//! baseline, and its cost-aware form: the information gain divided by the cost, as MFMES
//! (Takeno et al. 2020) uses it with a single fidelity.
//!
//! With samples `y*ₖ` of the maximum (from [`gumbel_max_values`], what BoTorch's
//! `qMaxValueEntropy(use_gumbel=True, num_mv_samples=10)` draws over a candidate set of
//! 1000·d uniform points and the training inputs),
//!
//! `α(x) = c(x)^{−e}·(1/K) Σₖ [γₖφ(γₖ)/(2Φ(γₖ)) − ln Φ(γₖ)]`, `γₖ = (y*ₖ − μ(x))/σ(x)`,
//!
//! with `e = 0` for MES and `e = 1` for MES per unit cost. The cost divides rather than
//! entering as `−e·ln c` (LogEIPC's form) because MES is not taken in logs: it falls to 0 far
//! below the samples, where a log would be `−∞`, and dividing is what BoTorch's
//! `InverseCostWeightedUtility` does.
//!
//! The gradient is analytic: `∇α_MES = (1/K) Σₖ s(γₖ)·∇γₖ` with the term's slope
//! `s = `[`mes_term_slope`] and `∇γ = −(∇μ + γ∇σ)/σ`; with the cost,
//! `∇α = c^{−e}(∇α_MES − e·α_MES·∇ln c)`.
//!
//! The posterior variance is floored at `1e-8` in both precisions, as BoTorch's MES does
//! (`CLAMP_LB`, in `MaxValueBase.forward` and in `_sample_max_value_Gumbel`).
//!
//! [`gumbel_max_values`]: crate::special::gumbel::gumbel_max_values

use super::cost::LogCost;
use super::posterior::{mean_and_std, moments, values_from_posterior};
use super::{finite_or_minus_infinity, Acquisition, Need};
use crate::gp::{Gp, GpError, PREDICT_BLOCK};
use crate::real::Real;
use crate::special::entropy::{max_value_entropy, mes_term_slope};

/// The posterior variance floor of MES, in both precisions (BoTorch's `CLAMP_LB`).
pub const MES_VARIANCE_FLOOR: f64 = 1e-8;

/// The posterior means and standard deviations at `candidates`, the variance floored at
/// [`MES_VARIANCE_FLOOR`]: what [`gumbel_max_values`](crate::special::gumbel::gumbel_max_values)
/// fits its Gumbel to. The caller gives the buffers (one entry per candidate). BoTorch's
/// candidate set is 1000·d uniform points of the unit box followed by the training inputs
/// ([`Gp::inputs`]); which points to pass is the caller's choice.
///
/// Errors: [`GpError::LengthMismatch`] when the three slices differ in length, and the first
/// error of a prediction ([`GpError::NonFinite`] for a non-finite candidate).
pub fn candidate_moments<R, const N: usize, const D: usize, S>(
    gp: &Gp<R, N, D, S>,
    candidates: &[[R; D]],
    means: &mut [R],
    stds: &mut [R],
) -> Result<(), GpError>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
{
    if candidates.len() != means.len() || candidates.len() != stds.len() {
        return Err(GpError::LengthMismatch);
    }
    for ((xg, mg), sg) in candidates
        .chunks(PREDICT_BLOCK)
        .zip(means.chunks_mut(PREDICT_BLOCK))
        .zip(stds.chunks_mut(PREDICT_BLOCK))
    {
        let mut p = [Err(GpError::NonFinite); PREDICT_BLOCK];
        gp.predict_many(xg, &mut p);
        for ((p, m), s) in p.into_iter().zip(mg).zip(sg) {
            (*m, *s) = mean_and_std(p?, R::from_f64(MES_VARIANCE_FLOOR));
        }
    }
    Ok(())
}

/// MES over `gp`'s posterior given samples of the maximum, divided by `c(x)^exponent`.
#[derive(Debug, Clone, Copy)]
pub struct MaxValueEntropy<'a, R, const N: usize, const D: usize, S, C> {
    gp: &'a Gp<R, N, D, S>,
    max_values: &'a [R],
    exponent: R,
    cost: C,
}

impl<'a, R: Real, const N: usize, const D: usize, S, C> MaxValueEntropy<'a, R, N, D, S, C> {
    /// MES under `gp` with samples `max_values` of the maximum (at least one, all finite, or
    /// every evaluation fails), divided by `c^exponent` with `ln c` from `cost`: `exponent`
    /// 0 for MES (the cost is then not evaluated), 1 for MES per unit cost.
    pub fn new(gp: &'a Gp<R, N, D, S>, max_values: &'a [R], exponent: R, cost: C) -> Self {
        MaxValueEntropy {
            gp,
            max_values,
            exponent,
            cost,
        }
    }
}

impl<R, const N: usize, const D: usize, S, C> Acquisition<R, D>
    for MaxValueEntropy<'_, R, N, D, S, C>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    C: LogCost<R, D>,
{
    fn evaluate(&mut self, x: &[R; D], need: Need<R>) -> Option<(R, [R; D])> {
        let gradient = need.wants_gradient();
        let moments = moments(self.gp, x, gradient, R::from_f64(MES_VARIANCE_FLOOR))?;
        self.from_moments(x, moments, gradient)
    }

    /// The posteriors of a group of points together ([`Gp::predict_many`], the bits of
    /// [`Gp::predict`]), then each value as [`evaluate`](Acquisition::evaluate) gives it.
    fn values(&mut self, xs: &[[R; D]], out: &mut [R]) {
        let (gp, floor) = (self.gp, R::from_f64(MES_VARIANCE_FLOOR));
        values_from_posterior(gp, xs, out, floor, |xg, moments, og| {
            for ((x, m), o) in xg.iter().zip(moments).zip(og) {
                let v = m.and_then(|(mean, std)| {
                    self.from_moments(x, (mean, std, [R::ZERO; D], [R::ZERO; D]), false)
                });
                *o = finite_or_minus_infinity(v);
            }
        });
    }
}

impl<R, const N: usize, const D: usize, S, C> MaxValueEntropy<'_, R, N, D, S, C>
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
        let mes = max_value_entropy(mean, std, self.max_values).ok()?;
        let (log_c, d_log_c) = if self.exponent != R::ZERO {
            self.cost.log_cost(x, gradient)?
        } else {
            (R::ZERO, [R::ZERO; D])
        };
        let weight = (-self.exponent * log_c).exp();
        let value = mes * weight;
        if !value.is_finite() {
            return None;
        }
        if !gradient {
            return Some((value, [R::ZERO; D]));
        }
        // ∇γₖ = −(∇μ + γₖ∇σ)/σ, so Σₖ s(γₖ)∇γₖ = −(S₁∇μ + S₂∇σ)/σ with S₁ = Σ s, S₂ = Σ sγ.
        let mut s1 = R::ZERO;
        let mut s2 = R::ZERO;
        for &y in self.max_values {
            let gamma = (y - mean) / std;
            if gamma == -R::INFINITY {
                // Beyond the range the term is ln(μ − y*) − ln σ (see `max_value_entropy`):
                // s → 0 and sγ → 1.
                s2 += R::ONE;
            } else if gamma.is_finite() {
                let s = mes_term_slope(gamma);
                s1 += s;
                s2 += s * gamma;
            }
            // γ = +∞: the term and sγ vanish like φ(γ).
        }
        let k_std = R::from_usize(self.max_values.len()) * std;
        let e_mes = self.exponent * mes;
        let g = core::array::from_fn(|l| {
            let d_mes = -(s1 * d_mean[l] + s2 * d_std[l]) / k_std;
            weight * (d_mes - e_mes * d_log_c[l])
        });
        Some((value, g))
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::cost::{KnownCost, LearnedCost, Uniform};
    use super::super::test_support::{data, dose_cost, model, problem, G};
    use super::*;
    use crate::special::gumbel::gumbel_max_values;

    const VALUE: Need<f64> = Need::Value {
        floor: f64::NEG_INFINITY,
    };

    /// The gradient against central differences of the value (step 1e-6).
    fn check_gradient(acq: &mut impl Acquisition<f64, 2>, x: [f64; 2]) {
        let (v, g) = acq.evaluate(&x, Need::Gradient).unwrap();
        let (v0, _) = acq.evaluate(&x, VALUE).unwrap();
        assert!((v - v0).abs() <= 1e-14 * v0.abs(), "value {v} vs {v0}");
        for l in 0..2 {
            let (mut a, mut b) = (x, x);
            a[l] += 1e-6;
            b[l] -= 1e-6;
            let fd =
                (acq.evaluate(&a, VALUE).unwrap().0 - acq.evaluate(&b, VALUE).unwrap().0) / 2e-6;
            assert!(
                (fd - g[l]).abs() < 1e-6 * (1.0 + fd.abs()),
                "∂{l} at {x:?}: fd {fd} vs {}",
                g[l]
            );
        }
    }

    /// Samples of the maximum as the rule draws them: Gumbel over a grid of candidates and
    /// the training inputs.
    fn samples(gp: &G) -> [f64; 10] {
        let mut xs = [[0.0; 2]; 104];
        for (k, x) in xs.iter_mut().take(100).enumerate() {
            *x = [(k % 10) as f64 / 9.0, (k / 10) as f64 / 9.0];
        }
        xs[100..].copy_from_slice(gp.inputs());
        let (mut m, mut s) = ([0.0; 104], [0.0; 104]);
        candidate_moments(gp, &xs, &mut m, &mut s).unwrap();
        let u: [f64; 10] = core::array::from_fn(|k| (k as f64 + 0.5) / 10.0);
        let mut out = [0.0; 10];
        gumbel_max_values(&m, &s, &u, &mut out).unwrap();
        out
    }

    #[test]
    fn mes_gradients_match_finite_differences_with_every_cost_source() {
        let gp = data();
        let ys = samples(&gp);
        let p = problem();
        let cost_model = model(&[([0.2, 0.3], 0.5), ([0.7, 0.8], 1.5), ([0.4, 0.1], 0.9)]);
        // Near data (small σ, γ large), between, and far from it (γ small).
        for x in [
            [0.37, 0.61],
            [0.82, 0.15],
            [0.5, 0.5],
            [0.11, 0.21],
            [0.95, 0.95],
        ] {
            check_gradient(&mut MaxValueEntropy::new(&gp, &ys, 0.0, Uniform), x);
            check_gradient(
                &mut MaxValueEntropy::new(&gp, &ys, 1.0, KnownCost::new(&p, 0)),
                x,
            );
            check_gradient(
                &mut MaxValueEntropy::new(&gp, &ys, 1.0, LearnedCost::new(&cost_model, 1.0)),
                x,
            );
        }
        // Samples far above and far below the posterior (tails of the term's slope).
        let far = [40.0, -30.0, 0.95];
        for x in [[0.37, 0.61], [0.5, 0.5]] {
            check_gradient(&mut MaxValueEntropy::new(&gp, &far, 0.0, Uniform), x);
        }
    }

    #[test]
    fn mes_value_is_the_mean_of_the_terms_over_the_cost() {
        let gp = data();
        let p = problem();
        let ys = [0.95, 1.2, 1.6];
        let x = [0.37, 0.61];
        let pr = gp.predict(&x).unwrap();
        let (m, s) = (pr.mean, pr.variance.max(1e-8).sqrt());
        let c = dose_cost(0, &p.to_physical(&x)).0;
        // The terms written out: γφ/(2Φ) − ln Φ with Φ from erfc (all γ moderate here).
        let want: f64 = ys
            .iter()
            .map(|y| {
                let g = (y - m) / s;
                let phi = (-g * g / 2.0).exp() / (2.0 * core::f64::consts::PI).sqrt();
                let cdf = 0.5 * libm_erfc(-g / core::f64::consts::SQRT_2);
                g * phi / (2.0 * cdf) - cdf.ln()
            })
            .sum::<f64>()
            / 3.0;
        let got = MaxValueEntropy::new(&gp, &ys, 1.0, KnownCost::new(&p, 0))
            .evaluate(&x, VALUE)
            .unwrap()
            .0;
        assert!(
            (got - want / c).abs() < 1e-13 * want / c,
            "{got} vs {}",
            want / c
        );
    }

    /// `erfc` of the platform's math library (not the crate's normal CDF).
    fn libm_erfc(x: f64) -> f64 {
        <f64 as Real>::erfc(x)
    }

    #[test]
    fn mes_values_of_several_points_have_the_bits_of_one_at_a_time() {
        let gp = data();
        let ys = samples(&gp);
        let p = problem();
        let mut acq = MaxValueEntropy::new(&gp, &ys, 1.0, KnownCost::new(&p, 0));
        let xs: [[f64; 2]; 11] =
            core::array::from_fn(|k| [(k as f64 * 0.37).fract(), (k as f64 * 0.61 + 0.1).fract()]);
        let mut got = [0.0; 11];
        acq.values(&xs, &mut got);
        for (x, g) in xs.iter().zip(got) {
            let want = finite_or_minus_infinity(acq.evaluate(x, VALUE));
            assert_eq!(g.to_bits(), want.to_bits(), "at {x:?}");
        }
    }

    #[test]
    fn candidate_moments_refuse_mismatched_buffers() {
        let gp = data();
        let (mut m, mut s) = ([0.0; 2], [0.0; 3]);
        assert_eq!(
            candidate_moments(&gp, &[[0.1, 0.2], [0.3, 0.4]], &mut m, &mut s),
            Err(GpError::LengthMismatch)
        );
        let mut s = [0.0; 2];
        assert_eq!(
            candidate_moments(&gp, &[[0.1, 0.2], [f64::NAN, 0.4]], &mut m, &mut s),
            Err(GpError::NonFinite)
        );
    }

    /// Value, mean, standard deviation and gradient against BoTorch's posterior of the same
    /// model with the closed form written in torch and differentiated by autograd
    /// (`tests/fixtures/botorch_mes.json`, from `tools/reference/botorch_mes.py`), for MES and
    /// MES per unit cost.
    #[test]
    fn mes_and_its_gradient_match_botorchs_posterior_and_autograd() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/fixtures/botorch_mes.json")).unwrap();
        let floats = super::super::test_support::fixture_floats;
        let ys = floats(&fixture["max_values"]);
        let gp = data();
        let p = problem();
        let points = fixture["points"].as_array().unwrap();
        assert_eq!(points.len(), 12);
        // Measured within 1e-13 relative (2026-11-29: BoTorch 0.18.1, GPyTorch's Cholesky).
        let close = |a: f64, b: f64, what: &str| {
            assert!(
                (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                "{what}: ours {a:e}, BoTorch {b:e}"
            );
        };
        for point in points {
            let x: [f64; 2] = floats(&point["x"]).try_into().unwrap();
            let prediction = gp.predict(&x).unwrap();
            close(prediction.mean, point["mean"].as_f64().unwrap(), "mean");
            close(
                prediction.variance.sqrt(),
                point["std"].as_f64().unwrap(),
                "std",
            );
            let (value, gradient) = if point["per_unit_cost"].as_bool().unwrap() {
                MaxValueEntropy::new(&gp, &ys, 1.0, KnownCost::new(&p, 0))
                    .evaluate(&x, Need::Gradient)
                    .unwrap()
            } else {
                MaxValueEntropy::new(&gp, &ys, 0.0, Uniform)
                    .evaluate(&x, Need::Gradient)
                    .unwrap()
            };
            close(value, point["value"].as_f64().unwrap(), "value");
            for (g, t) in gradient.iter().zip(floats(&point["gradient"])) {
                close(*g, t, "gradient");
            }
        }
    }
}
