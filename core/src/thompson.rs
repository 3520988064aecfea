//! Posterior sample paths of a [`Gp`] for Thompson sampling, by pathwise conditioning.
//!
//! A [`PosteriorSample`] is one function drawn from the GP posterior that can be evaluated,
//! with its input gradient, at any number of points, consistently: two evaluations at the same
//! point return the same value, so an inner optimiser can maximise the sample (or an
//! expectation of it over uncontrolled inputs) as an ordinary deterministic function.
//!
//! # Method
//!
//! Matheron's rule (Wilson et al. 2020, *Efficiently sampling functions from Gaussian process
//! posteriors*): if `f̃` is a draw from the prior and `ε ~ N(0, Σ)` the observation noise, then
//!
//! ```text
//! f(x) = m + f̃(x) + Σᵢ vᵢ k(x, xᵢ),     v = K_y⁻¹ (y − m − f̃(X) − ε)
//! ```
//!
//! is a draw from the posterior, with `K_y = K + σₙ² I + diag(jitter)` the matrix the GP has
//! already factorised and `ε_i ~ N(0, σₙ² + jitterᵢ)`. Drawing costs one O(n²) solve with the
//! GP's existing Cholesky factor (no new factorisation) plus `n` prior evaluations.
//!
//! The prior draw uses `M` random Fourier features (Rahimi & Recht 2007):
//!
//! ```text
//! f̃(x) = √(2s/M) Σⱼ wⱼ cos(ωⱼᵀx + bⱼ),   wⱼ ~ N(0, 1),  bⱼ ~ U[0, 2π)
//! ```
//!
//! with `ωⱼ` drawn from the kernel's normalised spectral density (`s` is the outputscale):
//!
//! * squared exponential: `ω_ji ~ N(0, 1/ℓᵢ²)`;
//! * Matérn-5/2: a multivariate Student-t with `2ν = 5` degrees of freedom,
//!   `ω_ji = z_ji √(5/u_j) / ℓᵢ` with `z_j ~ N(0, I)` and `u_j ~ χ²(5)` (the sum of five
//!   squared standard normals). Equivalently `z / (ℓ ⊙ √(g/ν))` with `g ~ Gamma(ν, 1) = χ²(2ν)/2`;
//!   note the factor 2 between the two parametrisations. Check: `E[ω_i²] = 5/(3ℓᵢ²) = −∂²k/∂xᵢ²`
//!   at 0.
//!
//! For every `M` the features give an unbiased covariance, `E[f̃(x) f̃(x')] = k(x, x')`
//! (expectation over `ω, b, w`), so averaged over draws the sample path has exactly the GP's
//! posterior mean and covariance. What a finite `M` costs is in the individual path: it is a
//! sum of `M` sinusoids, so only approximately Gaussian, and its covariance given the drawn
//! frequencies has relative error of order `1/√M` (the path is smoother and more periodic
//! than a true draw when `M` is small). The data update is exact, so the error shows away
//! from the observations, where the prior part dominates.
//! `M = 1024` is the value used by the TS-PSQ baseline; `M = 64..256` is a sensible range on
//! a microcontroller.
//!
//! # Memory
//!
//! The sample stores `M × (D + 2) + N` scalars (`ω`, `b`, `w`, `v`) plus a copy of the kernel
//! and the prior mean, and **borrows** the GP's inputs (lifetime `'a`) instead of copying the
//! `N × D` matrix: a sample cannot outlive the GP, and the GP cannot be changed while a sample
//! of it is alive (which is also when the sample would stop being a posterior draw of it).
//! Drop the sample before pushing the next observation.
//!
//! | `R`   | `D` | `M`  | size of `PosteriorSample` (N = 64)                  |
//! |-------|-----|------|------------------------------------------------------|
//! | `f32` | 5   | 128  | ≈ 3.8 KiB                                            |
//! | `f32` | 5   | 256  | ≈ 7.3 KiB                                            |
//! | `f64` | 5   | 1024 | ≈ 56.6 KiB                                           |
//!
//! It lives wherever the caller puts it. On a desktop with `M = 1024` prefer a `Box`, drawn
//! once with [`PosteriorSample::draw`] and refilled with [`PosteriorSample::redraw`] (which
//! writes in place and never builds a second copy on the stack); on a microcontroller keep `M`
//! small enough for the stack or use a `static` cell. Evaluation needs O(D) extra stack.
//!
//! Cost: drawing is O(M D + n M + n²) and consumes a fixed amount of randomness (see
//! [`PosteriorSample::redraw`]); [`value`](PosteriorSample::value) is O(M D + n D) with `M`
//! cosines and `n` kernel evaluations; the gradient adds `M` sines.
//!
//! # Random numbers
//!
//! Standard normals come in Box–Muller pairs from [`NormalPairs`]
//! (not from `crate::dist`'s inverse CDFs), so the stream of a given generator is fixed by the
//! `random` module alone. Every uniform is built from the top 23 bits of one `next_u32` as
//! `(2k + 1)/2²⁴`, which is exact in both `f32` and `f64`: generators seeded identically give
//! `f32` and `f64` samples that agree up to the rounding of `ln`, `sqrt`, `cos` and `sin`.
//!
//! ```
//! use costbo_core::gp::{Gp, WhenFull};
//! use costbo_core::kernel::Kernel;
//! use costbo_core::linalg::tri_len;
//! use costbo_core::thompson::PosteriorSample;
//! use rand_core::SeedableRng;
//! use rand_xoshiro::Xoshiro128PlusPlus;
//!
//! let kernel = Kernel::squared_exponential([0.3, 0.3], 1.0).unwrap();
//! let mut gp: Gp<f32, 16, 2, [f32; tri_len(16)]> =
//!     Gp::new(kernel, 0.0, 1e-4, WhenFull::Reject, [0.0; tri_len(16)]).unwrap();
//! gp.push(&[0.2, 0.4], 1.0).unwrap();
//! gp.push(&[0.7, 0.1], -0.5).unwrap();
//! let mut rng = Xoshiro128PlusPlus::seed_from_u64(1);
//! let path = PosteriorSample::<f32, 2, 128, 16>::draw(&gp, &mut rng).unwrap();
//! let mut grad = [0.0; 2];
//! let f = path.value_and_gradient(&[0.2, 0.4], &mut grad);
//! assert!((f - 1.0).abs() < 0.1); // near the (almost noise-free) observation
//! assert_eq!(f, path.value(&[0.2, 0.4]));
//! ```

use rand_core::Rng;

use crate::gp::{Gp, GpError};
use crate::kernel::{Kernel, Shape};
use crate::linalg::solve_cholesky;
use crate::random::NormalPairs;
use crate::real::{all_finite, dot, Real};

/// Degrees of freedom of the Matérn-5/2 spectral density, `2ν`.
const MATERN52_DOF: usize = 5;
/// Degrees of freedom of the Matérn-3/2 spectral density's Student t.
const MATERN32_DOF: usize = 3;

/// One function drawn from the posterior of a [`Gp`] with capacity `N` over `D` inputs,
/// represented with `M` random Fourier features; see the [module documentation](self).
///
/// Borrows the GP's inputs for `'a`. `size_of` is about `M (D + 2) + N + 2 D + 4` scalars
/// plus one slice reference.
#[derive(Debug, Clone)]
pub struct PosteriorSample<'a, R, const D: usize, const M: usize, const N: usize> {
    kernel: Kernel<R, D>,
    mean: R,
    // √(2 s / M), the common amplitude of the features.
    amplitude: R,
    omega: [[R; D]; M],
    phase: [R; M],
    weight: [R; M],
    // K_y⁻¹ (y − m − f̃(X) − ε); entries at and beyond `inputs.len()` are zero.
    update: [R; N],
    inputs: &'a [[R; D]],
}

impl<'a, R: Real, const D: usize, const M: usize, const N: usize> PosteriorSample<'a, R, D, M, N> {
    /// Draws a posterior sample path of `gp`.
    ///
    /// Errors: [`GpError::StorageTooSmall`] when `M == 0` (no features);
    /// [`GpError::NonFinite`] when the update overflowed (outputs near the largest
    /// representable value, say). `rng` is advanced exactly as described in
    /// [`redraw`](Self::redraw) whenever `M > 0`.
    pub fn draw<S, G>(gp: &'a Gp<R, N, D, S>, rng: &mut G) -> Result<Self, GpError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        G: Rng + ?Sized,
    {
        check_features::<M>()?;
        let mut sample = PosteriorSample {
            kernel: *gp.kernel(),
            mean: gp.prior_mean(),
            amplitude: R::ZERO,
            omega: [[R::ZERO; D]; M],
            phase: [R::ZERO; M],
            weight: [R::ZERO; M],
            update: [R::ZERO; N],
            inputs: gp.inputs(),
        };
        sample.redraw(gp, rng)?;
        Ok(sample)
    }

    /// Replaces this sample, in place, by a fresh posterior sample path of `gp` (which may be a
    /// different GP from the one first drawn from). Draws from the same generator state as
    /// [`draw`](Self::draw) give bit-identical paths.
    ///
    /// Randomness consumed, in this order (normals come in Box–Muller pairs, two `next_u32`
    /// calls per pair, the second of a pair kept for the next request; uniforms take one
    /// `next_u32` each):
    /// for each feature `j = 0..M`: `D` normals `z_j`, then (Matérn-5/2 only) five normals for
    /// `χ²(5)`, then one uniform for `b_j`, then one normal for `w_j`; then one normal per
    /// observation for `ε`.
    ///
    /// On error the contents of `self` are unspecified (evaluating it does not panic); draw
    /// again.
    pub fn redraw<S, G>(&mut self, gp: &'a Gp<R, N, D, S>, rng: &mut G) -> Result<(), GpError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        G: Rng + ?Sized,
    {
        check_features::<M>()?;
        let kernel = *gp.kernel();
        self.kernel = kernel;
        self.mean = gp.prior_mean();
        self.inputs = gp.inputs();
        self.amplitude = (R::TWO * kernel.outputscale() / R::from_usize(M)).sqrt();

        let mut normals = NormalPairs::new(rng);
        let lengthscales = kernel.lengthscales();
        let two_pi = R::TWO * R::PI;
        for j in 0..M {
            for z in self.omega[j].iter_mut() {
                *z = normals.next_normal();
            }
            let t_scale = match kernel.shape() {
                Shape::SquaredExponential => R::ONE,
                Shape::Matern52 => {
                    let mut chi2 = R::ZERO;
                    for _ in 0..MATERN52_DOF {
                        chi2 += normals.next_normal().sq();
                    }
                    // chi2 > 0 unless five normals all round to zero; guard anyway.
                    (R::from_usize(MATERN52_DOF) / chi2.max(R::MIN_POSITIVE)).sqrt()
                }
                Shape::Matern32 => {
                    // Matérn-ν's spectral density is a Student t with 2ν degrees of freedom.
                    let mut chi2 = R::ZERO;
                    for _ in 0..MATERN32_DOF {
                        chi2 += normals.next_normal().sq();
                    }
                    (R::from_usize(MATERN32_DOF) / chi2.max(R::MIN_POSITIVE)).sqrt()
                }
            };
            for (z, l) in self.omega[j].iter_mut().zip(lengthscales) {
                *z = *z * t_scale / *l;
            }
            self.phase[j] = two_pi * normals.uniform();
            self.weight[j] = normals.next_normal();
        }

        let n = self.inputs.len();
        for (i, ((x, y), jitter)) in self
            .inputs
            .iter()
            .zip(gp.outputs())
            .zip(gp.jitters())
            .enumerate()
        {
            // A slot of merged repeats carries the noise of their mean, σₙ² / count.
            let noise = gp.slot_noise(i).unwrap_or(R::ZERO);
            let eps = normals.next_normal() * (noise + *jitter).max(R::ZERO).sqrt();
            let r = *y - self.mean - self.prior_value(x) - eps;
            self.update[i] = r;
        }
        for u in self.update[n..].iter_mut() {
            *u = R::ZERO;
        }
        solve_cholesky(gp.factor(), n, &mut self.update[..n]);
        let features_finite = self.amplitude.is_finite()
            && self.omega.iter().all(|o| all_finite(o))
            && all_finite(&self.phase)
            && all_finite(&self.weight);
        if !features_finite || !all_finite(&self.update[..n]) {
            return Err(GpError::NonFinite);
        }
        Ok(())
    }

    /// The sample path at `x`: `m + f̃(x) + Σᵢ vᵢ k(x, xᵢ)`. Non-finite `x` gives a non-finite
    /// value (no panic).
    pub fn value(&self, x: &[R; D]) -> R {
        let mut f = self.mean + self.prior_value(x);
        for (xi, vi) in self.inputs.iter().zip(&self.update) {
            f += *vi * self.kernel.eval(x, xi);
        }
        f
    }

    /// The sample path at `x` and its gradient `∂f/∂x`, written to `grad`:
    /// `−√(2s/M) Σⱼ wⱼ sin(ωⱼᵀx + bⱼ) ωⱼ + Σᵢ vᵢ ∇ₓk(x, xᵢ)`. The value is bit-identical to
    /// [`value`](Self::value).
    pub fn value_and_gradient(&self, x: &[R; D], grad: &mut [R; D]) -> R {
        let mut s = R::ZERO;
        let mut g = [R::ZERO; D];
        for ((omega, b), w) in self.omega.iter().zip(&self.phase).zip(&self.weight) {
            let t = dot(omega, x) + *b;
            s += *w * t.cos();
            let ws = *w * t.sin();
            for (gi, oi) in g.iter_mut().zip(omega) {
                *gi -= ws * *oi;
            }
        }
        let mut f = self.mean + self.amplitude * s;
        for (gd, gi) in grad.iter_mut().zip(&g) {
            *gd = self.amplitude * *gi;
        }
        let mut gk = [R::ZERO; D];
        for (xi, vi) in self.inputs.iter().zip(&self.update) {
            f += *vi * self.kernel.eval_with_grad(x, xi, &mut gk);
            for (gd, gki) in grad.iter_mut().zip(&gk) {
                *gd += *vi * *gki;
            }
        }
        f
    }

    /// The zero-mean prior draw `f̃(x) = √(2s/M) Σⱼ wⱼ cos(ωⱼᵀx + bⱼ)` alone (no prior mean,
    /// no data update).
    pub fn prior_value(&self, x: &[R; D]) -> R {
        let mut s = R::ZERO;
        for ((omega, b), w) in self.omega.iter().zip(&self.phase).zip(&self.weight) {
            s += *w * (dot(omega, x) + *b).cos();
        }
        self.amplitude * s
    }

    /// Feature frequencies `ωⱼ`.
    pub fn frequencies(&self) -> &[[R; D]; M] {
        &self.omega
    }

    /// Feature phases `bⱼ ∈ (0, 2π)`.
    pub fn phases(&self) -> &[R; M] {
        &self.phase
    }

    /// Feature weights `wⱼ` (standard normal, before the amplitude).
    pub fn weights(&self) -> &[R; M] {
        &self.weight
    }

    /// Common feature amplitude `√(2s/M)`.
    pub fn amplitude(&self) -> R {
        self.amplitude
    }

    /// Update weights `v = K_y⁻¹ (y − m − f̃(X) − ε)`, one per observation.
    pub fn update_weights(&self) -> &[R] {
        &self.update[..self.inputs.len()]
    }

    /// The borrowed GP inputs the update is attached to.
    pub fn inputs(&self) -> &'a [[R; D]] {
        self.inputs
    }

    /// The kernel (copied from the GP at draw time).
    pub fn kernel(&self) -> &Kernel<R, D> {
        &self.kernel
    }

    /// The constant prior mean (copied from the GP at draw time).
    pub fn prior_mean(&self) -> R {
        self.mean
    }
}

fn check_features<const M: usize>() -> Result<(), GpError> {
    if M == 0 {
        Err(GpError::StorageTooSmall { needed: 1, got: 0 })
    } else {
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    extern crate std;

    use std::boxed::Box;
    use std::vec::Vec;

    use rand_core::SeedableRng;
    use rand_xoshiro::Xoshiro128PlusPlus;

    use super::*;
    use crate::gp::WhenFull;
    use crate::linalg::tri_len;

    const CAP: usize = 8;
    type Gp64 = Gp<f64, CAP, 2, [f64; tri_len(CAP)]>;
    type Gp32 = Gp<f32, CAP, 2, [f32; tri_len(CAP)]>;

    const SHAPES: [Shape; 2] = [Shape::SquaredExponential, Shape::Matern52];

    /// Six observations of a smooth function on [0, 1]².
    const DATA: [([f64; 2], f64); 6] = [
        ([0.10, 0.20], 0.9),
        ([0.35, 0.80], -0.4),
        ([0.55, 0.45], 1.3),
        ([0.80, 0.15], 0.2),
        ([0.90, 0.85], -1.1),
        ([0.30, 0.50], 0.6),
    ];

    fn gp64(shape: Shape, noise: f64, n: usize) -> Gp64 {
        let k = Kernel::new(shape, [0.3, 0.5], 1.4).unwrap();
        let mut gp = Gp::new(k, 0.25, noise, WhenFull::Reject, [0.0; tri_len(CAP)]).unwrap();
        for (x, y) in DATA.iter().take(n) {
            gp.push(x, *y).unwrap();
        }
        gp
    }

    fn gp32(shape: Shape, noise: f32, n: usize) -> Gp32 {
        let k = Kernel::new(shape, [0.3, 0.5], 1.4).unwrap();
        let mut gp = Gp::new(k, 0.25, noise, WhenFull::Reject, [0.0; tri_len(CAP)]).unwrap();
        for (x, y) in DATA.iter().take(n) {
            gp.push(&[x[0] as f32, x[1] as f32], *y as f32).unwrap();
        }
        gp
    }

    /// Sample mean and the standard error of the mean.
    fn mean_se(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
        (m, (var / n).sqrt())
    }

    /// Draws `count` independent paths and returns their values at `points`
    /// (`values[p][draw]`).
    fn path_values<const M: usize>(
        gp: &Gp64,
        points: &[[f64; 2]],
        count: usize,
        seed: u64,
    ) -> Vec<Vec<f64>> {
        let mut rng = Xoshiro128PlusPlus::seed_from_u64(seed);
        let mut values = std::vec![Vec::with_capacity(count); points.len()];
        let mut path = Box::new(PosteriorSample::<f64, 2, M, CAP>::draw(gp, &mut rng).unwrap());
        for d in 0..count {
            if d > 0 {
                path.redraw(gp, &mut rng).unwrap();
            }
            for (p, x) in points.iter().enumerate() {
                values[p].push(path.value(x));
            }
        }
        values
    }

    /// Prior (no data): the empirical mean and covariance of `m + f̃` over independent draws
    /// match `m` and `k(x, x')`. The RFF covariance is unbiased for every `M`, so the only
    /// error is Monte Carlo: each entry is compared with 4 empirical standard errors of the
    /// mean of the products (the means are known, so no bias correction is needed).
    #[test]
    fn prior_moments_match_kernel() {
        const DRAWS: usize = 20_000;
        let points = [[0.0, 0.0], [0.15, -0.1], [0.4, 0.3], [1.0, 0.9]];
        for shape in SHAPES {
            let gp = gp64(shape, 1e-3, 0);
            let values = path_values::<32>(&gp, &points, DRAWS, 11);
            let mut worst: f64 = 0.0;
            for p in 0..points.len() {
                let centred: Vec<f64> = values[p].iter().map(|v| v - 0.25).collect();
                let (m, se) = mean_se(&centred);
                assert!(m.abs() < 4.0 * se, "{shape:?} mean at {p}: {m} ± {se}");
                worst = worst.max(m.abs() / se);
                for q in 0..=p {
                    let products: Vec<f64> = values[p]
                        .iter()
                        .zip(&values[q])
                        .map(|(a, b)| (a - 0.25) * (b - 0.25))
                        .collect();
                    let (c, se) = mean_se(&products);
                    let want = gp.kernel().eval(&points[p], &points[q]);
                    assert!(
                        (c - want).abs() < 4.0 * se,
                        "{shape:?} cov({p},{q}) = {c} ± {se}, kernel {want}"
                    );
                    worst = worst.max((c - want).abs() / se);
                }
            }
            std::println!("prior {shape:?}: worst deviation {worst:.2} standard errors");
        }
    }

    /// Posterior (6 observations, d = 2): the empirical mean, variance and one covariance of
    /// the path at test points match `predict`/`covariance`. Pathwise conditioning of an
    /// unbiased RFF prior reproduces the posterior mean and covariance exactly in expectation
    /// over the features, so the tolerance is 4 Monte Carlo standard errors (empirical, which
    /// accounts for the extra kurtosis of a finite-feature path) with no RFF bias term.
    /// The noise is large enough (0.05) that leaving out `ε` would shift the variance near the
    /// data by tens of standard errors.
    #[test]
    fn posterior_moments_match_gp() {
        const DRAWS: usize = 4000;
        let points = [
            [0.12, 0.22],
            [0.5, 0.5],
            [0.7, 0.3],
            [0.05, 0.95],
            [1.3, -0.2],
        ];
        for shape in SHAPES {
            let gp = gp64(shape, 0.05, DATA.len());
            let values = path_values::<256>(&gp, &points, DRAWS, 23);
            let mut worst: f64 = 0.0;
            for (p, x) in points.iter().enumerate() {
                let want = gp.predict(x).unwrap();
                let (m, se) = mean_se(&values[p]);
                assert!(
                    (m - want.mean).abs() < 4.0 * se,
                    "{shape:?} mean at {p}: {m} ± {se}, GP {}",
                    want.mean
                );
                worst = worst.max((m - want.mean).abs() / se);
                // Centre on the exact mean so the variance estimate is unbiased.
                let sq: Vec<f64> = values[p].iter().map(|v| (v - want.mean).powi(2)).collect();
                let (v, se) = mean_se(&sq);
                assert!(
                    (v - want.variance).abs() < 4.0 * se,
                    "{shape:?} variance at {p}: {v} ± {se}, GP {}",
                    want.variance
                );
                worst = worst.max((v - want.variance).abs() / se);
            }
            let (a, b) = (1, 2);
            let ma = gp.predict(&points[a]).unwrap().mean;
            let mb = gp.predict(&points[b]).unwrap().mean;
            let prod: Vec<f64> = values[a]
                .iter()
                .zip(&values[b])
                .map(|(u, v)| (u - ma) * (v - mb))
                .collect();
            let (c, se) = mean_se(&prod);
            let want = gp.covariance(&points[a], &points[b]).unwrap();
            assert!(
                (c - want).abs() < 4.0 * se,
                "{shape:?} cov: {c} ± {se}, GP {want}"
            );
            worst = worst.max((c - want).abs() / se);
            std::println!("posterior {shape:?}: worst deviation {worst:.2} standard errors");
        }
    }

    #[test]
    fn gradient_matches_central_differences() {
        for shape in SHAPES {
            let gp = gp64(shape, 1e-3, DATA.len());
            let mut rng = Xoshiro128PlusPlus::seed_from_u64(5);
            let path = PosteriorSample::<f64, 2, 64, CAP>::draw(&gp, &mut rng).unwrap();
            let h = 1e-6;
            let mut worst: f64 = 0.0;
            for x in [[0.2, 0.7], [0.55, 0.44], [0.93, 0.1], [-0.4, 1.5]] {
                let mut g = [0.0; 2];
                let f = path.value_and_gradient(&x, &mut g);
                assert_eq!(f.to_bits(), path.value(&x).to_bits());
                for i in 0..2 {
                    let (mut xp, mut xm) = (x, x);
                    xp[i] += h;
                    xm[i] -= h;
                    let fd = (path.value(&xp) - path.value(&xm)) / (2.0 * h);
                    let err = (fd - g[i]).abs() / (1.0 + g[i].abs());
                    assert!(err < 1e-7, "{shape:?} at {x:?}, x{i}: fd {fd} vs {}", g[i]);
                    worst = worst.max(err);
                }
            }
            std::println!("gradient {shape:?}: worst relative error {worst:.1e}");
        }
    }

    #[test]
    fn same_seed_same_path_different_seed_different_path() {
        for shape in SHAPES {
            let gp = gp64(shape, 1e-2, DATA.len());
            let draw = |seed: u64| {
                let mut rng = Xoshiro128PlusPlus::seed_from_u64(seed);
                PosteriorSample::<f64, 2, 64, CAP>::draw(&gp, &mut rng).unwrap()
            };
            let (a, b, c) = (draw(3), draw(3), draw(4));
            for x in [[0.0, 0.0], [0.31, 0.62], [0.9, 0.9]] {
                assert_eq!(a.value(&x).to_bits(), b.value(&x).to_bits());
                assert_ne!(a.value(&x).to_bits(), c.value(&x).to_bits());
            }
            let bits = |s: &PosteriorSample<f64, 2, 64, CAP>| -> Vec<u64> {
                s.frequencies()
                    .iter()
                    .flatten()
                    .chain(s.phases())
                    .chain(s.weights())
                    .chain(s.update_weights())
                    .map(|v| v.to_bits())
                    .collect()
            };
            assert_eq!(bits(&a), bits(&b));
            // Redrawing in place from the same state is the same as drawing afresh.
            let mut rng = Xoshiro128PlusPlus::seed_from_u64(3);
            let mut d = draw(99);
            d.redraw(&gp, &mut rng).unwrap();
            assert_eq!(bits(&a), bits(&d));
        }
    }

    /// `f32` and `f64` samples from identically seeded generators: the uniforms are exact in
    /// both precisions, so the features agree to a few `f32` ulps and the paths to the
    /// accumulated `f32` rounding (dominated by the O(n²) solve with the factor of `K_y`).
    #[test]
    #[cfg_attr(
        feature = "fast-math",
        ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
    )]
    fn f32_agrees_with_f64() {
        for shape in SHAPES {
            let g64 = gp64(shape, 1e-2, DATA.len());
            let g32 = gp32(shape, 1e-2, DATA.len());
            let p64 = PosteriorSample::<f64, 2, 128, CAP>::draw(
                &g64,
                &mut Xoshiro128PlusPlus::seed_from_u64(8),
            )
            .unwrap();
            let p32 = PosteriorSample::<f32, 2, 128, CAP>::draw(
                &g32,
                &mut Xoshiro128PlusPlus::seed_from_u64(8),
            )
            .unwrap();
            let mut feat: f64 = 0.0;
            for j in 0..128 {
                for i in 0..2 {
                    let (a, b) = (p32.frequencies()[j][i] as f64, p64.frequencies()[j][i]);
                    feat = feat.max((a - b).abs() / (1.0 + b.abs()));
                }
                feat = feat.max((p32.phases()[j] as f64 - p64.phases()[j]).abs());
                feat = feat.max((p32.weights()[j] as f64 - p64.weights()[j]).abs());
            }
            assert!(feat < 1e-5, "{shape:?}: features differ by {feat}");
            let mut worst: f64 = 0.0;
            let mut gworst: f64 = 0.0;
            for x in [[0.1, 0.2], [0.42, 0.61], [0.77, 0.05], [1.2, 1.1]] {
                let v64 = p64.value(&x);
                let mut g = [0.0f32; 2];
                let v32 = p32.value_and_gradient(&[x[0] as f32, x[1] as f32], &mut g);
                let err = (v32 as f64 - v64).abs();
                assert!(
                    err < 3e-5 * (1.0 + v64.abs()),
                    "{shape:?} at {x:?}: {v32} vs {v64}"
                );
                worst = worst.max(err);
                let mut g64 = [0.0; 2];
                p64.value_and_gradient(&x, &mut g64);
                for i in 0..2 {
                    let gerr = (g[i] as f64 - g64[i]).abs() / (1.0 + g64[i].abs());
                    assert!(
                        gerr < 1e-4,
                        "{shape:?} at {x:?}: grad {i} {} vs {}",
                        g[i],
                        g64[i]
                    );
                    gworst = gworst.max(gerr);
                }
            }
            std::println!(
                "f32 vs f64 {shape:?}: features {feat:.1e}, values {worst:.1e}, grads {gworst:.1e}"
            );
        }
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        let gp = gp64(Shape::Matern52, 0.0, DATA.len());
        let mut rng = Xoshiro128PlusPlus::seed_from_u64(1);
        assert_eq!(
            PosteriorSample::<f64, 2, 0, CAP>::draw(&gp, &mut rng).err(),
            Some(GpError::StorageTooSmall { needed: 1, got: 0 })
        );
        let path = PosteriorSample::<f64, 2, 16, CAP>::draw(&gp, &mut rng).unwrap();
        assert!(!path.value(&[f64::NAN, 0.0]).is_finite());
        let mut g = [0.0; 2];
        assert!(!path
            .value_and_gradient(&[f64::INFINITY, 0.0], &mut g)
            .is_finite());
        // Noise-free GP: the path interpolates the data (up to the jitter, if any).
        for (x, y) in DATA {
            assert!(
                (path.value(&x) - y).abs() < 1e-5,
                "{} vs {y}",
                path.value(&x)
            );
        }
        // Outputs near the f32 limit overflow the update and are reported, not propagated.
        let k = Kernel::squared_exponential([0.3, 0.5], 1.0).unwrap();
        let mut big: Gp32 = Gp::new(k, 0.0, 1e-2, WhenFull::Reject, [0.0; tri_len(CAP)]).unwrap();
        big.push(&[0.1, 0.1], 3e38).unwrap();
        big.push(&[0.1001, 0.1], -3e38).unwrap();
        let r = PosteriorSample::<f32, 2, 16, CAP>::draw(&big, &mut rng);
        assert_eq!(r.err(), Some(GpError::NonFinite));
    }
}
