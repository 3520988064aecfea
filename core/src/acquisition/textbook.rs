//! Paper 002's App. D.1 ablation over a box (Fig. 10): expected improvement's scale and its
//! numerical stability taken apart, and the Gittins index found as the paper's code finds it.
//! Each [`Form`] is one of the figure's curves; LogEI and the stable index are
//! [`super::improvement`]'s.

use super::cost::LogCost;
use super::improvement::variance_floor;
use super::posterior::{moments, values_from_posterior, Moments};
use super::{finite_or_minus_infinity, Acquisition, Need};
use crate::gp::Gp;
use crate::real::Real;
use crate::special::improvement::{log_expected_improvement, log_h_slope};
use crate::special::textbook::{
    bisected_gittins_index, textbook_cdf, textbook_expected_improvement, textbook_pdf,
};

/// What is maximised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `EI = σ·h(u)` from the textbook `h` (the paper's "Unst. EI"): exactly 0, with a zero
    /// gradient, wherever `φ(u)` underflows.
    Ei,
    /// `ln(EI + 10⁻⁶)` of that EI (the paper's "Log(Unst. EI)"): log-scaled, not stable.
    LogOfEi,
    /// `exp(LogEI)` (the paper's "Exp(LogEI)"): EI to full precision, not log-scaled.
    ExpOfLogEi,
    /// The Gittins index at price `λ·c(x)` by the paper code's bisection (its "PBGI"; the
    /// index of [`super::improvement::GittinsIndex`] is its "S-PBGI"), with the gradient of its
    /// Eq. 10, `∇μ + (φ(u*)∇σ − λ∇c)/Φ(u*)`.
    BisectedGittins,
}

/// The shift inside [`Form::LogOfEi`]'s logarithm (the paper's ablation code).
pub const LOG_SHIFT: f64 = 1e-6;

/// One of the ablation's acquisitions ([`Form`]) over `gp`: EI over the incumbent `best`, or
/// the index at price `exp(log_lambda)·c(x)` with `c` from `cost` (the EI forms ignore costs,
/// as the ablation ran under uniform costs).
#[derive(Debug, Clone, Copy)]
pub struct Textbook<'a, R, const N: usize, const D: usize, S, C> {
    gp: &'a Gp<R, N, D, S>,
    form: Form,
    best: R,
    log_lambda: R,
    cost: C,
}

impl<'a, R: Real, const N: usize, const D: usize, S, C> Textbook<'a, R, N, D, S, C> {
    /// The acquisition of `form` (see the type's documentation).
    pub fn new(gp: &'a Gp<R, N, D, S>, form: Form, best: R, log_lambda: R, cost: C) -> Self {
        Textbook {
            gp,
            form,
            best,
            log_lambda,
            cost,
        }
    }
}

impl<R, const N: usize, const D: usize, S, C> Acquisition<R, D> for Textbook<'_, R, N, D, S, C>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    C: LogCost<R, D>,
{
    fn evaluate(&mut self, x: &[R; D], need: Need<R>) -> Option<(R, [R; D])> {
        let gradient = need.wants_gradient();
        let m = moments(self.gp, x, gradient, variance_floor())?;
        self.from_moments(x, m, gradient)
    }

    fn values(&mut self, xs: &[[R; D]], out: &mut [R]) {
        let gp = self.gp;
        values_from_posterior(gp, xs, out, variance_floor(), |xg, moments, og| {
            for ((x, m), o) in xg.iter().zip(moments).zip(og) {
                let v = m.and_then(|(mean, std)| {
                    self.from_moments(x, (mean, std, [R::ZERO; D], [R::ZERO; D]), false)
                });
                *o = finite_or_minus_infinity(v);
            }
        });
    }
}

impl<R, const N: usize, const D: usize, S, C> Textbook<'_, R, N, D, S, C>
where
    R: Real,
    C: LogCost<R, D>,
{
    /// The value (and, if `gradient`, the gradient) at `x` from the posterior's moments there.
    #[allow(clippy::wrong_self_convention)]
    fn from_moments(
        &mut self,
        x: &[R; D],
        (mean, std, d_mean, d_std): Moments<R, D>,
        gradient: bool,
    ) -> Option<(R, [R; D])> {
        let u = (mean - self.best) / std;
        // ∇EI = Φ(u)∇μ + φ(u)∇σ, with the textbook Φ and φ.
        let d_ei = || -> [R; D] {
            let (cdf, pdf) = (textbook_cdf(u), textbook_pdf(u));
            core::array::from_fn(|l| cdf * d_mean[l] + pdf * d_std[l])
        };
        let (value, g) = match self.form {
            Form::Ei => {
                let ei = textbook_expected_improvement(mean, std, self.best).ok()?;
                (ei, if gradient { d_ei() } else { [R::ZERO; D] })
            }
            Form::LogOfEi => {
                let ei = textbook_expected_improvement(mean, std, self.best).ok()?;
                let shifted = ei + R::from_f64(LOG_SHIFT);
                let g = if gradient {
                    d_ei().map(|v| v / shifted)
                } else {
                    [R::ZERO; D]
                };
                (shifted.ln(), g)
            }
            Form::ExpOfLogEi => {
                let log_ei = log_expected_improvement(mean, std, self.best).ok()?;
                let ei = log_ei.exp();
                let g = if gradient {
                    // ∇ ln EI = (ln h)'(u)·(∇μ − u∇σ)/σ + ∇σ/σ, as LogEI's.
                    let slope = log_h_slope(u);
                    core::array::from_fn(|l| {
                        ei * (slope * (d_mean[l] - u * d_std[l]) / std + d_std[l] / std)
                    })
                } else {
                    [R::ZERO; D]
                };
                (ei, g)
            }
            Form::BisectedGittins => {
                let (log_c, d_log_c) = self.cost.log_cost(x, gradient)?;
                let price = (self.log_lambda + log_c).exp();
                let (index, u_star) = bisected_gittins_index(mean, std, price).ok()?;
                let g = if gradient {
                    let (cdf, pdf) = (textbook_cdf(u_star), textbook_pdf(u_star));
                    // λ∇c = λc·∇ln c.
                    core::array::from_fn(|l| {
                        d_mean[l] + (pdf * d_std[l] - price * d_log_c[l]) / cdf
                    })
                } else {
                    [R::ZERO; D]
                };
                (index, g)
            }
        };
        if !value.is_finite() || g.iter().any(|v| !v.is_finite()) {
            return None;
        }
        Some((value, g))
    }
}

#[cfg(test)]
mod tests {
    use super::super::cost::{KnownCost, Uniform};
    use super::super::improvement::{GittinsIndex, LogImprovement};
    use super::super::test_support::{data, problem};
    use super::*;

    fn value(acq: &mut impl Acquisition<f64, 2>, x: [f64; 2]) -> f64 {
        acq.evaluate(
            &x,
            Need::Value {
                floor: f64::NEG_INFINITY,
            },
        )
        .unwrap()
        .0
    }

    fn check_gradient(acq: &mut impl Acquisition<f64, 2>, x: [f64; 2]) {
        let (v, g) = acq.evaluate(&x, Need::Gradient).unwrap();
        assert_eq!(v, value(acq, x), "value with and without gradient");
        for l in 0..2 {
            let (mut a, mut b) = (x, x);
            a[l] += 1e-6;
            b[l] -= 1e-6;
            let fd = (value(acq, a) - value(acq, b)) / 2e-6;
            assert!(
                (fd - g[l]).abs() < 2e-6 * (1.0 + fd.abs()),
                "∂{l}: fd {fd} vs {}",
                g[l]
            );
        }
    }

    #[test]
    fn each_form_is_its_formula_of_the_stable_quantities_where_those_agree() {
        let gp = data();
        let p = problem();
        for x in [[0.37, 0.61], [0.82, 0.15], [0.5, 0.5]] {
            let log_ei = value(&mut LogImprovement::new(&gp, 0.9, 0.0, Uniform), x);
            let ei = value(&mut Textbook::new(&gp, Form::Ei, 0.9, 0.0, Uniform), x);
            assert!(
                (ei - log_ei.exp()).abs() < 1e-12 * ei,
                "{ei} vs {}",
                log_ei.exp()
            );
            let exp = value(
                &mut Textbook::new(&gp, Form::ExpOfLogEi, 0.9, 0.0, Uniform),
                x,
            );
            assert_eq!(exp, log_ei.exp());
            let log = value(&mut Textbook::new(&gp, Form::LogOfEi, 0.9, 0.0, Uniform), x);
            assert!((log - (log_ei.exp() + 1e-6).ln()).abs() < 1e-12);
            let ln_lambda = (0.01f64).ln();
            let stable = value(
                &mut GittinsIndex::new(&gp, ln_lambda, KnownCost::new(&p, 0)),
                x,
            );
            let bisected = value(
                &mut Textbook::new(
                    &gp,
                    Form::BisectedGittins,
                    f64::NAN,
                    ln_lambda,
                    KnownCost::new(&p, 0),
                ),
                x,
            );
            assert!((bisected - stable).abs() < 1e-12, "{bisected} vs {stable}");
        }
    }

    #[test]
    fn gradients_match_finite_differences() {
        let gp = data();
        let p = problem();
        for x in [[0.37, 0.61], [0.82, 0.15], [0.5, 0.5]] {
            for form in [Form::Ei, Form::LogOfEi, Form::ExpOfLogEi] {
                check_gradient(&mut Textbook::new(&gp, form, 0.9, 0.0, Uniform), x);
            }
            check_gradient(
                &mut Textbook::new(&gp, Form::BisectedGittins, 0.0, (1e-4f64).ln(), Uniform),
                x,
            );
            check_gradient(
                &mut Textbook::new(
                    &gp,
                    Form::BisectedGittins,
                    0.0,
                    (0.1f64).ln(),
                    KnownCost::new(&p, 0),
                ),
                x,
            );
        }
    }

    #[test]
    fn far_below_the_incumbent_the_textbook_ei_is_flat_and_the_log_of_the_stable_one_is_not() {
        let gp = data();
        let x = [0.37, 0.61];
        // An incumbent so far above the posterior that φ(u) underflows.
        let best = 1e3;
        let (ei, g) = Textbook::new(&gp, Form::Ei, best, 0.0, Uniform)
            .evaluate(&x, Need::Gradient)
            .unwrap();
        assert_eq!((ei, g), (0.0, [0.0; 2]));
        let (log, g) = Textbook::new(&gp, Form::LogOfEi, best, 0.0, Uniform)
            .evaluate(&x, Need::Gradient)
            .unwrap();
        assert_eq!((log, g), ((1e-6f64).ln(), [0.0; 2]));
        let (log_ei, g) = LogImprovement::new(&gp, best, 0.0, Uniform)
            .evaluate(&x, Need::Gradient)
            .unwrap();
        assert!(log_ei.is_finite() && g.iter().any(|v| *v != 0.0));
    }

    #[test]
    fn values_of_several_points_have_the_bits_of_one_at_a_time() {
        let gp = data();
        let xs: [[f64; 2]; 9] =
            core::array::from_fn(|k| [(k as f64 * 0.37).fract(), (k as f64 * 0.61 + 0.1).fract()]);
        for form in [
            Form::Ei,
            Form::LogOfEi,
            Form::ExpOfLogEi,
            Form::BisectedGittins,
        ] {
            let mut acq = Textbook::new(&gp, form, 0.9, (1e-4f64).ln(), Uniform);
            let mut got = [0.0; 9];
            acq.values(&xs, &mut got);
            for (x, g) in xs.iter().zip(got) {
                assert_eq!(
                    g.to_bits(),
                    value(&mut acq, *x).to_bits(),
                    "{form:?} at {x:?}"
                );
            }
        }
    }
}
