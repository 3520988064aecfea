//! The knowledge gradient in its one-shot form (paper 002's KG baseline, as BoTorch's
//! `qKnowledgeGradient` computes it for one point).
//!
//! KG values a point `x` by how much the best posterior mean would rise if `x` were observed:
//! `E[max_{x'} μ_{n+1}(x') | x] − max_{x'} μ_n(x')` (Frazier et al. 2009). BoTorch's one-shot
//! form replaces the expectation by `K` fantasies and the inner maxima by `K` decision
//! variables `x'ₖ` optimised jointly with `x`:
//!
//! `α(x, x'₁…x'_K) = (1/K) Σₖ μₖ(x'ₖ)`,
//!
//! where `μₖ` is the posterior mean after the fantasy observation `yₖ = μ(x) + s(x)·zₖ` at `x`,
//! `s(x)² = σ²(x) + σₙ²` (BoTorch fantasises from the posterior *with* observation noise) and
//! `zₖ` fixed standard normals (BoTorch's base samples). The maximum of `α` over the fantasy
//! points is the one-shot KG of `x` plus the constant `max μ_n`, which BoTorch leaves out
//! (`current_value=None`) and so does this module. Conditioning one Gaussian observation gives
//! the fantasy means in closed form:
//!
//! `μₖ(x') = μ(x') + zₖ·k_n(x', x)/s(x)`, `k_n(x', x) = k(x', x) − k(x', X) K_y⁻¹ k(X, x)`.
//!
//! Gradients, with `w = K_y⁻¹ k(X, x)` and `aₖ = zₖ/(K s)`:
//! - in `x'ₖ`: `(1/K) ∇μ(x'ₖ) + aₖ (∂₁k(x'ₖ, x) − Σⱼ wⱼ ∂₁k(x'ₖ, xⱼ))`;
//! - in `x`: `Σₖ aₖ ∂₁k(x, x'ₖ) − Σⱼ (K_y⁻¹ r)ⱼ ∂₁k(x, xⱼ) − (Σₖ zₖ k_n(x'ₖ, x))/(K s²)·∇s`,
//!   with `r = Σₖ aₖ k(X, x'ₖ)` (one pair of triangular solves for all fantasies) and
//!   `∇s = ∇σ²/(2s)`.
//!
//! An evaluation costs two pairs of triangular solves and `K·n` kernel evaluations with their
//! gradients: `O(n² + K·n·d)`.

use super::Need;
use crate::gp::{Gp, GpError};
use crate::linalg::{solve_lower, solve_upper_transposed};
use crate::optimize::Coordinates;
use crate::real::Real;

/// The decision variables of the one-shot problem: the point `x` to observe and one point
/// `x'ₖ` per fantasy at which its fantasy posterior mean is read. All in unit coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OneShot<R, const D: usize, const K: usize> {
    /// The point to observe.
    pub x: [R; D],
    /// One point per fantasy.
    pub fantasies: [[R; D]; K],
}

impl<R: Real, const D: usize, const K: usize> OneShot<R, D, K> {
    /// Every coordinate `v`.
    pub fn splat(v: R) -> Self {
        OneShot {
            x: [v; D],
            fantasies: [[v; D]; K],
        }
    }

    /// True when every coordinate is finite.
    pub fn is_finite(&self) -> bool {
        self.x
            .iter()
            .chain(self.fantasies.iter().flatten())
            .all(|v| v.is_finite())
    }
}

/// The coordinates in order: `x`, then each fantasy point's.
impl<R: Real, const D: usize, const K: usize> Coordinates<R> for OneShot<R, D, K> {
    fn len(&self) -> usize {
        D * (K + 1)
    }

    fn get(&self, i: usize) -> R {
        if i < D {
            self.x[i]
        } else {
            self.fantasies[(i - D) / D][(i - D) % D]
        }
    }

    fn get_mut(&mut self, i: usize) -> &mut R {
        if i < D {
            &mut self.x[i]
        } else {
            &mut self.fantasies[(i - D) / D][(i - D) % D]
        }
    }
}

/// The one-shot knowledge gradient over `gp`'s posterior with `K` fantasies (see the module
/// documentation).
#[derive(Debug, Clone, Copy)]
pub struct KnowledgeGradient<'a, R, const N: usize, const D: usize, S, const K: usize> {
    gp: &'a Gp<R, N, D, S>,
    base_samples: [R; K],
}

impl<'a, R, const N: usize, const D: usize, S, const K: usize> KnowledgeGradient<'a, R, N, D, S, K>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
{
    /// The one-shot KG under `gp` with the fantasies' standard normal draws `base_samples`.
    ///
    /// Errors: [`GpError::NonFinite`] when a draw is not finite or there is none. A model
    /// without data is allowed: the fantasy means are then the prior's updated by one
    /// observation.
    pub fn new(gp: &'a Gp<R, N, D, S>, base_samples: [R; K]) -> Result<Self, GpError> {
        if K == 0 || !base_samples.iter().all(|z| z.is_finite()) {
            return Err(GpError::NonFinite);
        }
        Ok(KnowledgeGradient { gp, base_samples })
    }

    /// The fantasies' standard normal draws.
    pub fn base_samples(&self) -> &[R; K] {
        &self.base_samples
    }

    /// The value at `p`, and its gradient (in every coordinate of `p`) when `gradient`.
    ///
    /// Errors: [`GpError::NonFinite`] for a non-finite coordinate or value.
    pub fn value(
        &self,
        p: &OneShot<R, D, K>,
        gradient: bool,
    ) -> Result<(R, OneShot<R, D, K>), GpError> {
        if !p.is_finite() {
            return Err(GpError::NonFinite);
        }
        let gp = self.gp;
        let n = gp.len();
        let kernel = gp.kernel();
        let inputs = gp.inputs();
        let alpha = gp.alpha();
        let l = gp.factor();
        let x = &p.x;
        // w = K_y⁻¹ k(X, x) and σ²(x), through v = L⁻¹ k(X, x).
        let mut w = [R::ZERO; N];
        for (wj, xj) in w[..n].iter_mut().zip(inputs) {
            *wj = kernel.eval(x, xj);
        }
        solve_lower(l, n, &mut w);
        let explained = w[..n].iter().fold(R::ZERO, |s, v| s + *v * *v);
        let mut d_var = [R::ZERO; D];
        let prior = kernel.diagonal_with_grad(x, &mut d_var);
        let variance = (prior - explained).max(R::ZERO);
        solve_upper_transposed(l, n, &mut w);
        let s2 = variance + gp.noise();
        let s = s2.sqrt();
        if s.is_nan() || s <= R::ZERO {
            return Err(GpError::NonFinite);
        }
        let k = R::from_usize(K);
        let mut grad = OneShot::splat(R::ZERO);
        let mut r = [R::ZERO; N];
        let mut total = R::ZERO;
        let mut weighted = R::ZERO;
        let mut g = [R::ZERO; D];
        for ((xk, zk), gk) in p
            .fantasies
            .iter()
            .zip(&self.base_samples)
            .zip(grad.fantasies.iter_mut())
        {
            let ak = *zk / (k * s);
            let mut mean = gp.prior_mean();
            let mut d_mean = [R::ZERO; D];
            let mut explained = R::ZERO;
            let mut d_explained = [R::ZERO; D];
            for (j, xj) in inputs.iter().enumerate() {
                if gradient {
                    let kv = kernel.eval_with_grad(xk, xj, &mut g);
                    mean += alpha[j] * kv;
                    explained += w[j] * kv;
                    for i in 0..D {
                        d_mean[i] += alpha[j] * g[i];
                        d_explained[i] += w[j] * g[i];
                    }
                    r[j] += ak * kv;
                } else {
                    let kv = kernel.eval(xk, xj);
                    mean += alpha[j] * kv;
                    explained += w[j] * kv;
                }
            }
            let cross = if gradient {
                let mut d_cross = [R::ZERO; D];
                let c = kernel.eval_with_grad(xk, x, &mut d_cross);
                for i in 0..D {
                    gk[i] = d_mean[i] / k + ak * (d_cross[i] - d_explained[i]);
                }
                // ∂k(x, x'ₖ)/∂x, the other end of the same covariance.
                kernel.eval_with_grad(x, xk, &mut g);
                for (gx, gi) in grad.x.iter_mut().zip(&g) {
                    *gx += ak * *gi;
                }
                c
            } else {
                kernel.eval(xk, x)
            };
            let posterior_cross = cross - explained;
            total += mean + *zk * posterior_cross / s;
            weighted += *zk * posterior_cross;
        }
        let value = total / k;
        if !value.is_finite() {
            return Err(GpError::NonFinite);
        }
        if gradient {
            solve_lower(l, n, &mut r);
            solve_upper_transposed(l, n, &mut r);
            for (j, xj) in inputs.iter().enumerate() {
                kernel.eval_with_grad(x, xj, &mut g);
                for i in 0..D {
                    grad.x[i] -= r[j] * g[i];
                    d_var[i] -= R::TWO * w[j] * g[i];
                }
            }
            // −(Σ zₖ k_n)/(K s²) · ∇σ²/(2s).
            let c = weighted / (k * s2 * R::TWO * s);
            for (gx, dv) in grad.x.iter_mut().zip(&d_var) {
                *gx -= c * *dv;
            }
            if !grad.is_finite() {
                return Err(GpError::NonFinite);
            }
        }
        Ok((value, grad))
    }

    /// What an optimiser of the one-shot problem asks ([`crate::optimize::maximize_quasi_newton`]
    /// over [`OneShot`]): the value, with the gradient unless `need` says it is unused; `None`
    /// where the value cannot be computed.
    pub fn evaluate(&self, p: &OneShot<R, D, K>, need: Need<R>) -> Option<(R, OneShot<R, D, K>)> {
        self.value(p, need.wants_gradient()).ok()
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::test_support::data;
    use super::*;

    const K: usize = 3;

    fn point() -> OneShot<f64, 2, K> {
        OneShot {
            x: [0.4, 0.45],
            fantasies: [[0.2, 0.7], [0.55, 0.35], [0.9, 0.1]],
        }
    }

    /// The value by conditioning a copy of the model on each fantasy observation: the closed
    /// form must equal what pushing the observation into the GP gives.
    #[test]
    fn value_equals_conditioning_the_model_on_each_fantasy() {
        let gp = data();
        let z = [0.7, -1.3, 2.1];
        let kg = KnowledgeGradient::new(&gp, z).unwrap();
        let p = point();
        let (value, _) = kg.value(&p, false).unwrap();
        let pred = gp.predict(&p.x).unwrap();
        let s = (pred.variance + gp.noise()).sqrt();
        let mut expected = 0.0;
        for (xk, zk) in p.fantasies.iter().zip(z) {
            let mut g = gp.clone();
            g.push(&p.x, pred.mean + s * zk).unwrap();
            expected += g.predict_mean(xk).unwrap() / K as f64;
        }
        assert!((value - expected).abs() < 1e-12, "{value} vs {expected}");
    }

    /// Every coordinate of the gradient against central differences.
    #[test]
    fn gradient_matches_central_differences() {
        let gp = data();
        let kg = KnowledgeGradient::new(&gp, [0.7, -1.3, 2.1]).unwrap();
        let p = point();
        let (v, g) = kg.value(&p, true).unwrap();
        let (v0, _) = kg.value(&p, false).unwrap();
        assert_eq!(v.to_bits(), v0.to_bits());
        for i in 0..p.len() {
            let (mut a, mut b) = (p, p);
            *a.get_mut(i) += 1e-6;
            *b.get_mut(i) -= 1e-6;
            let fd = (kg.value(&a, false).unwrap().0 - kg.value(&b, false).unwrap().0) / 2e-6;
            assert!(
                (fd - g.get(i)).abs() < 1e-6 * (1.0 + fd.abs()),
                "coordinate {i}: fd {fd} vs {}",
                g.get(i)
            );
        }
    }

    #[test]
    fn refuses_non_finite_draws_and_points() {
        let gp = data();
        assert_eq!(
            KnowledgeGradient::new(&gp, [0.0, f64::NAN, 1.0]).err(),
            Some(GpError::NonFinite)
        );
        let kg = KnowledgeGradient::new(&gp, [0.7, -1.3, 2.1]).unwrap();
        let mut p = point();
        p.fantasies[1][0] = f64::INFINITY;
        assert_eq!(kg.value(&p, true).err(), Some(GpError::NonFinite));
    }

    /// Values and gradients equal BoTorch's `qKnowledgeGradient` forward pass and autograd on
    /// the same model, base samples and one-shot points (`tests/fixtures/botorch_kg.json`,
    /// from `tools/reference/botorch_kg.py`).
    #[test]
    fn value_and_gradient_match_botorchs_one_shot_kg() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../tests/fixtures/botorch_kg.json")).unwrap();
        let floats = super::super::test_support::fixture_floats;
        let pair = |v: &serde_json::Value| -> [f64; 2] { floats(v).try_into().unwrap() };
        let pairs = |v: &serde_json::Value| -> [[f64; 2]; 8] {
            let all: std::vec::Vec<[f64; 2]> = v.as_array().unwrap().iter().map(pair).collect();
            all.try_into().unwrap()
        };
        let z: [f64; 8] = floats(&fixture["base_samples"]).try_into().unwrap();
        let gp = data();
        let kg = KnowledgeGradient::new(&gp, z).unwrap();
        let points = fixture["points"].as_array().unwrap();
        assert_eq!(points.len(), 6);
        let close = |a: f64, b: f64, what: &str| {
            assert!(
                (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                "{what}: ours {a:e}, BoTorch {b:e}"
            );
        };
        for point in points {
            let p = OneShot {
                x: pair(&point["x"]),
                fantasies: pairs(&point["fantasy_points"]),
            };
            let (value, gradient) = kg.value(&p, true).unwrap();
            close(value, point["value"].as_f64().unwrap(), "value");
            for (g, t) in gradient.x.iter().zip(pair(&point["gradient_x"])) {
                close(*g, t, "gradient in x");
            }
            for (gk, tk) in gradient
                .fantasies
                .iter()
                .zip(pairs(&point["gradient_fantasy_points"]))
            {
                for (g, t) in gk.iter().zip(tk) {
                    close(*g, t, "gradient in a fantasy point");
                }
            }
        }
    }
}
