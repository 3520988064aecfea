//! Paper 002's objectives (Xie et al., "Cost-aware Bayesian optimization via the Pandora's Box
//! Gittins index"), as its code builds them (`docs/notes/seed-002.md` §4):
//!
//! - `ackley-pbgi`, `levy-pbgi`, `rosenbrock-pbgi`: the synthetic benchmarks with the code's
//!   domains and scalings — Ackley on `[−1, 1]^d` negated, Levy on `[−10, 10]^d` negated and
//!   divided by 100, Rosenbrock on `[−5, 10]^d` negated and divided by 10⁵ (maximum 0 each);
//! - `gp-matern52`, `gp-matern32`, `gp-se`: draws from a GP prior (outputscale 1, isotropic
//!   lengthscale 0.1) by 1024 random Fourier features as BoTorch 0.9's pathwise sampler draws
//!   them, `f(x) = √(2/m) Σ_{i ≤ m/2} [w_i sin(ω_iᵀx) + w'_i cos(ω_iᵀx)]` with `m = 1024`,
//!   `w, w' ~ N(0, 1)`, `ω_i = z_i/ℓ · √(ν/G_i)`, `G_i ~ Gamma(ν, 1)` (a multivariate t with
//!   `2ν` degrees of freedom: the Matérn-ν spectral density), `ω_i = z_i/ℓ` for the squared
//!   exponential, and `z_i` scrambled-Sobol normals (`Φ⁻¹` of Sobol' points) rather than
//!   i.i.d. ones. The seed names the draw; the maximum is estimated as the paper's code does
//!   (dense Sobol' search, `1024·d` points, then gradient ascent from the best `20·d`), so
//!   regret against it can be slightly negative.
//!
//! The cost of the cost-aware setting, `1 + 20·mean(u)`, is
//! the lab's `pandora::BoxCost::MeanLinear`.

use std::sync::OnceLock;

use costbo_core::qmc::Sobol;
use costbo_core::random::standard_normal;
use costbo_core::special::normal_quantile;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::search::{self, SearchConfig};
use super::synthetic::{Ackley, Levy, Rosenbrock};
use super::Objective;
use crate::platform::Platform;

/// Random Fourier features of the GP prior samples (512 frequencies, a sine and a cosine each).
pub const FEATURES: usize = 1024;

/// Lengthscale of the GP prior samples (paper 002's main text).
pub const LENGTHSCALE: f64 = 0.1;

/// An objective scaled by a constant factor and renamed.
#[derive(Debug, Clone)]
pub struct Scaled<F> {
    name: &'static str,
    inner: F,
    factor: f64,
}

impl<F: Objective> Scaled<F> {
    /// `factor · inner`, called `name`.
    pub fn new(name: &'static str, inner: F, factor: f64) -> Self {
        Scaled {
            name,
            inner,
            factor,
        }
    }
}

impl<F: Objective> Objective for Scaled<F> {
    fn name(&self) -> &str {
        self.name
    }
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn eval(&self, u: &[f64]) -> f64 {
        self.factor * self.inner.eval(u)
    }
    fn optimum(&self) -> f64 {
        self.factor * self.inner.optimum()
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        self.inner.argmax()
    }
}

/// `ackley-pbgi`: negated Ackley on `[−1, 1]^d`.
pub fn ackley(d: usize) -> Scaled<Ackley> {
    Scaled::new("ackley-pbgi", Ackley::with_half_width(d, 1.0), 1.0)
}

/// `levy-pbgi`: negated Levy on `[−10, 10]^d`, divided by 100.
pub fn levy(d: usize) -> Scaled<Levy> {
    Scaled::new("levy-pbgi", Levy::new(d), 1e-2)
}

/// `rosenbrock-pbgi`: negated Rosenbrock on `[−5, 10]^d`, divided by 10⁵.
pub fn rosenbrock(d: usize) -> Scaled<Rosenbrock> {
    Scaled::new("rosenbrock-pbgi", Rosenbrock::new(d), 1e-5)
}

/// The kernel a GP prior sample is drawn from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpectralKernel {
    /// Matérn with smoothness `ν` (1.5 or 2.5 in the paper).
    Matern(f64),
    /// Squared exponential.
    SquaredExponential,
}

/// A GP prior sample by random Fourier features (see the module documentation).
#[derive(Debug)]
pub struct RffSample {
    name: &'static str,
    dim: usize,
    /// Random features `m` (`m/2` frequencies).
    features: usize,
    /// Frequencies, `m/2` rows of `dim`.
    omega: Vec<f64>,
    /// Sine and cosine weights, `m/2` pairs.
    weights: Vec<(f64, f64)>,
    optimum: OnceLock<(Vec<f64>, f64)>,
}

/// A `Gamma(shape, 1)` variate (Marsaglia & Tsang 2000; shape ≥ 1).
fn gamma(rng: &mut Xoshiro256PlusPlus, shape: f64) -> f64 {
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x: f64 = standard_normal::<f64, Platform>(rng);
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u: f64 = costbo_core::random::uniform_open(rng);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

impl RffSample {
    /// The draw of `kernel` with lengthscale `lengthscale` in `dim` dimensions named by `seed`,
    /// by [`FEATURES`] features.
    pub fn new(
        name: &'static str,
        kernel: SpectralKernel,
        dim: usize,
        lengthscale: f64,
        seed: u64,
    ) -> Self {
        Self::with_features(name, kernel, dim, lengthscale, FEATURES, seed)
    }

    /// The same draw by `features` random features (an even number; the 1-D constructions of
    /// paper 002's Figs. 2 and 9 use 1280).
    pub fn with_features(
        name: &'static str,
        kernel: SpectralKernel,
        dim: usize,
        lengthscale: f64,
        features: usize,
        seed: u64,
    ) -> Self {
        let half = features / 2;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        // Scrambled-Sobol normals z_i, in blocks of 16 coordinates (the core's Sobol' table
        // has 21 dimensions; each block has its own scramble, which keeps every coordinate
        // stratified though blocks are not jointly low-discrepancy).
        const BLOCK: usize = 16;
        let mut z = vec![0.0; half * dim];
        for block in 0..dim.div_ceil(BLOCK) {
            let width = (dim - BLOCK * block).min(BLOCK);
            let Ok(mut sobol) =
                Sobol::<BLOCK>::new(seed.wrapping_mul(31).wrapping_add(block as u64))
            else {
                unreachable!("16 dimensions are within the Sobol table");
            };
            for i in 0..half {
                let p: [f64; BLOCK] = sobol.next_point();
                for j in 0..width {
                    z[i * dim + BLOCK * block + j] = normal_quantile(p[j]);
                }
            }
        }
        let mut omega = vec![0.0; half * dim];
        for i in 0..half {
            let scale = match kernel {
                SpectralKernel::Matern(nu) => (nu / gamma(&mut rng, nu)).sqrt(),
                SpectralKernel::SquaredExponential => 1.0,
            } / lengthscale;
            for j in 0..dim {
                omega[i * dim + j] = z[i * dim + j] * scale;
            }
        }
        let weights = (0..half)
            .map(|_| {
                (
                    standard_normal::<f64, Platform>(&mut rng),
                    standard_normal::<f64, Platform>(&mut rng),
                )
            })
            .collect();
        RffSample {
            name,
            dim,
            features: 2 * half,
            omega,
            weights,
            optimum: OnceLock::new(),
        }
    }

    /// The frequencies `ωᵢ`, `FEATURES/2` rows of `dim` (row-major), for tests of the
    /// spectral distribution.
    pub fn frequencies(&self) -> &[f64] {
        &self.omega
    }

    /// The value and gradient at `u`.
    pub fn value_and_gradient(&self, u: &[f64]) -> (f64, Vec<f64>) {
        let norm = (2.0 / self.features as f64).sqrt();
        let mut v = 0.0;
        let mut g = vec![0.0; self.dim];
        for (i, &(ws, wc)) in self.weights.iter().enumerate() {
            let w = &self.omega[i * self.dim..(i + 1) * self.dim];
            let t: f64 = w.iter().zip(u).map(|(a, b)| a * b).sum();
            let (s, c) = t.sin_cos();
            v += ws * s + wc * c;
            let dt = ws * c - wc * s;
            for (gj, wj) in g.iter_mut().zip(w) {
                *gj += dt * wj;
            }
        }
        (norm * v, g.into_iter().map(|x| norm * x).collect())
    }

    fn search(&self) -> (Vec<f64>, f64) {
        macro_rules! on {
            ($($d:literal),*) => {
                match self.dim {
                    $($d => {
                        let f = |x: &[f64; $d]| {
                            let (v, g) = self.value_and_gradient(x);
                            (v, core::array::from_fn(|j| g[j]))
                        };
                        let config = SearchConfig { starts: 20 * $d, budget: 200 };
                        search::maximise(f, search::space_filling::<$d>(1, 1024 * $d), config)
                            .map(|(x, v)| (x.to_vec(), v))
                    })*
                    _ => None,
                }
            };
        }
        on!(1, 2, 4, 8, 16, 32).unwrap_or((vec![0.5; self.dim], f64::NAN))
    }
}

impl Objective for RffSample {
    fn name(&self) -> &str {
        self.name
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn eval(&self, u: &[f64]) -> f64 {
        self.value_and_gradient(&u[..self.dim]).0
    }
    fn optimum(&self) -> f64 {
        self.optimum.get_or_init(|| self.search()).1
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        Some(self.optimum.get_or_init(|| self.search()).0.clone())
    }
}

/// The GP prior sample called `name` (`gp-matern52`, `gp-matern32`, `gp-se`), or `None`.
pub fn gp_sample(name: &str, dim: usize, seed: u64) -> Option<RffSample> {
    gp_sample_scaled(name, dim, LENGTHSCALE, seed)
}

/// The GP prior sample called `name` with lengthscale `lengthscale` instead of
/// [`LENGTHSCALE`] (paper 002's App. D.6 also draws 0.5 and 1), or `None`.
pub fn gp_sample_scaled(name: &str, dim: usize, lengthscale: f64, seed: u64) -> Option<RffSample> {
    let (name, kernel) = match name {
        "gp-matern52" => ("gp-matern52", SpectralKernel::Matern(2.5)),
        "gp-matern32" => ("gp-matern32", SpectralKernel::Matern(1.5)),
        "gp-se" => ("gp-se", SpectralKernel::SquaredExponential),
        _ => return None,
    };
    Some(RffSample::new(name, kernel, dim, lengthscale, seed))
}

/// The dimensions whose optimum [`RffSample`] can search (compiled in).
pub const GP_DIMS: [usize; 6] = [1, 2, 4, 8, 16, 32];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_scalings_are_the_papers_code() {
        // Ackley on [−1, 1]: at x = 1 (u = 1) in d = 1, f_A = 20 − 20e^{−0.2} − e^{cos 2π} + e
        // = 20 − 20e^{−0.2} (cos 2π = 1).
        let a = ackley(1);
        let want = -(20.0 - 20.0 * (-0.2f64).exp());
        assert!((a.eval(&[1.0]) - want).abs() < 1e-12);
        assert_eq!(a.eval(&[0.5]), 0.0);
        // Levy/100 at u = 0.55 (x = 1) is 0; at u = 0 (x = −10, w = −1.75) in d = 1:
        // sin²(−1.75π) + (−2.75)²(1 + sin²(−3.5π)) = 0.5 + 7.5625·2 = 15.625.
        let l = levy(1);
        assert!(
            (l.eval(&[0.0]) + 0.15625).abs() < 1e-12,
            "{}",
            l.eval(&[0.0])
        );
        assert!(l.eval(&[0.55]).abs() < 1e-15);
        // Rosenbrock/1e5 at u = 0 (x = −5) in d = 2: 100·(−5 − 25)² + 36 = 90036.
        let r = rosenbrock(2);
        assert!((r.eval(&[0.0, 0.0]) + 0.90036).abs() < 1e-12);
        assert_eq!(r.eval(&[0.4, 0.4]), 0.0);
        assert_eq!(r.name(), "rosenbrock-pbgi");
    }

    #[test]
    fn gamma_variates_have_the_right_mean_and_variance() {
        // Gamma(ν, 1): mean ν, variance ν.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        for nu in [1.5, 2.5] {
            let n = 200_000;
            let v: Vec<f64> = (0..n).map(|_| gamma(&mut rng, nu)).collect();
            let mean = v.iter().sum::<f64>() / n as f64;
            let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            // Standard errors: √(ν/n) ≈ 0.0035 for the mean, √(2ν²+6ν... )/√n ≈ 0.02 for the
            // variance; the tolerances are about four of them.
            assert!((mean - nu).abs() < 0.015, "ν = {nu}: mean {mean}");
            assert!((var - nu).abs() < 0.08, "ν = {nu}: variance {var}");
        }
    }

    /// The Matérn-ν correlation at distance r with lengthscale ℓ.
    fn matern(nu: f64, r: f64, l: f64) -> f64 {
        let s = (2.0 * nu).sqrt() * r / l;
        if nu == 2.5 {
            (1.0 + s + s * s / 3.0) * (-s).exp()
        } else {
            (1.0 + s) * (-s).exp()
        }
    }

    #[test]
    fn feature_covariance_matches_the_kernel_across_draws() {
        // E[f(x) f(x')] over draws is k(x, x') for RFF with N(0, 1) weights; Monte Carlo over
        // 400 seeds at distances 0, 0.05, 0.1, 0.2 (d = 2). Each product has variance about
        // 1 + k², so the standard error of the mean is about √2/20 ≈ 0.07; the tolerance is
        // 0.25 (3.5 standard errors).
        let x = [0.3, 0.6];
        for (kernel, nu) in [
            (SpectralKernel::Matern(2.5), 2.5),
            (SpectralKernel::Matern(1.5), 1.5),
        ] {
            for r in [0.0, 0.05, 0.1, 0.2] {
                let y = [0.3 + r, 0.6];
                let seeds = 400;
                let mean = (0..seeds)
                    .map(|s| {
                        let f = RffSample::new("t", kernel, 2, LENGTHSCALE, s);
                        f.eval(&x) * f.eval(&y)
                    })
                    .sum::<f64>()
                    / seeds as f64;
                let want = matern(nu, r, LENGTHSCALE);
                assert!(
                    (mean - want).abs() < 0.25,
                    "ν = {nu}, r = {r}: {mean} vs {want}"
                );
            }
        }
    }

    #[test]
    fn gradient_matches_finite_differences_and_the_optimum_is_a_maximum() {
        let f = gp_sample("gp-matern52", 2, 5).unwrap();
        let x = [0.41, 0.77];
        let (_, g) = f.value_and_gradient(&x);
        for j in 0..2 {
            let (mut a, mut b) = (x, x);
            a[j] += 1e-6;
            b[j] -= 1e-6;
            let fd = (f.eval(&a) - f.eval(&b)) / 2e-6;
            assert!(
                (fd - g[j]).abs() < 1e-5 * (1.0 + fd.abs()),
                "{fd} vs {}",
                g[j]
            );
        }
        let best = f.optimum();
        // No point of an independent dense grid beats the estimated maximum.
        for i in 0..=100 {
            for k in 0..=100 {
                let v = f.eval(&[i as f64 / 100.0, k as f64 / 100.0]);
                assert!(v <= best + 1e-9, "{v} > {best}");
            }
        }
        assert!(gp_sample("gp-unknown", 2, 0).is_none());
    }
}
