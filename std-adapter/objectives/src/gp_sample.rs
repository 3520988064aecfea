//! `gp-sample`: a seeded function drawn from a zero-mean GP prior on `[0, 1]^d` (squared
//! exponential kernel, lengthscale 0.1, outputscale 1: the "samples from GP prior" objective of
//! paper 000).
//!
//! # Construction
//!
//! The same as the paper's code (`sample_gp_prior` in `sebtsh/bocvs`, 1000 points, jitter
//! 1e-6), with a fixed random stream so that a seed names one function on every machine:
//!
//! 1. `P`: the first `n` (default 1000) points of the core's i.i.d. uniform generator
//!    [`IidUniform::<D>::new(seed)`](costbo_core::qmc::IidUniform) (xoshiro128++).
//! 2. `z`: `n` standard normals `Φ⁻¹(v)`, where `v` are the next `⌈n/D⌉` points of the same
//!    generator read coordinate by coordinate ([`normal_quantile`]).
//! 3. `L`: the Cholesky factor of `K + jitter · I`, `K = k(P, P)` (core [`cholesky_in_place`]);
//!    the function values at the support points, `y = L z`, are then an exact draw from
//!    `N(0, K + jitter · I)`.
//! 4. The objective is the noise-free interpolant of `(P, y)`, the GP posterior mean
//!    `f(u) = k(u, P) α` with `α = (K + jitter I)⁻¹ y = L⁻ᵀ z`.
//!
//! So `f` is a GP prior sample conditioned to be smooth between 1000 support points: exact at
//! the support points (up to the jitter) and slightly less variable than a true draw far from
//! them. With lengthscale 0.1 that is a faithful sample in `d ≤ 3`; in higher dimensions 1000
//! points no longer cover the cube and `f` decays towards 0 away from them (raise
//! [`Config::points`] if that matters).
//!
//! # Optimum
//!
//! Not known in closed form: [`search::maximise`] over `2^14` scrambled Sobol points plus the
//! support points, then gradient ascent from the 16 best. It runs on the first call of
//! [`Objective::optimum`] or [`Objective::argmax`] and is cached. The result is the best value
//! found (a lower bound on the true maximum, tight for `d ≤ 3`).

use std::sync::OnceLock;

use costbo_core::kernel::Kernel;
use costbo_core::linalg::{cholesky_in_place, idx, row, solve_upper_transposed, tri_len};
use costbo_core::qmc::IidUniform;
use costbo_core::special::normal_quantile;

use super::search::{self, SearchConfig};
use super::{Objective, ObjectiveError};

/// Largest dimension supported.
pub const MAX_DIM: usize = 12;

/// Number of dense-search candidates of the optimum search.
pub const SEARCH_CANDIDATES: usize = 1 << 14;

/// What to draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Input dimension, `1..=MAX_DIM`.
    pub dim: usize,
    /// Seed of the draw.
    pub seed: u64,
    /// Number of support points `n`.
    pub points: usize,
    /// SE lengthscale (all inputs).
    pub lengthscale: f64,
    /// Outputscale (prior variance).
    pub outputscale: f64,
    /// Diagonal jitter added to the kernel matrix.
    pub jitter: f64,
}

impl Config {
    /// Paper 000's settings in `dim` dimensions: 1000 points, lengthscale 0.1, outputscale 1,
    /// jitter 1e-6, seed 0.
    pub fn paper(dim: usize) -> Self {
        Config {
            dim,
            seed: 0,
            points: 1000,
            lengthscale: 0.1,
            outputscale: 1.0,
            jitter: 1e-6,
        }
    }
}

/// A GP prior sample over `D` inputs; see the [module documentation](self).
#[derive(Debug)]
pub struct GpSample<const D: usize> {
    kernel: Kernel<f64, D>,
    support: Vec<[f64; D]>,
    values: Vec<f64>,
    alpha: Vec<f64>,
    seed: u64,
    optimum: OnceLock<([f64; D], f64)>,
}

/// Builds the sample for `config.dim` (dispatching to the compile-time dimension).
pub fn build(config: &Config) -> Result<Box<dyn Objective>, ObjectiveError> {
    macro_rules! dispatch {
        ($($d:literal),*) => {
            match config.dim {
                $($d => Ok(Box::new(GpSample::<$d>::new(config)?) as Box<dyn Objective>),)*
                d => Err(ObjectiveError::Dimension {
                    name: "gp-sample".into(),
                    requested: d,
                    allowed: super::Dims::Range(1, MAX_DIM),
                }),
            }
        };
    }
    dispatch!(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
}

impl<const D: usize> GpSample<D> {
    /// Draws the sample described by `config` (`config.dim` must equal `D`).
    pub fn new(config: &Config) -> Result<Self, ObjectiveError> {
        let bad = |s: &str| Err(ObjectiveError::Data(format!("gp-sample: {s}")));
        if config.dim != D {
            return bad("configured dimension differs from the type's");
        }
        if config.points == 0 || !(config.jitter >= 0.0 && config.jitter.is_finite()) {
            return bad("needs at least one point and a finite non-negative jitter");
        }
        let kernel = Kernel::squared_exponential([config.lengthscale; D], config.outputscale)
            .map_err(|e| ObjectiveError::Data(format!("gp-sample kernel: {e}")))?;
        let n = config.points;
        let mut rng = IidUniform::<D>::new(config.seed);
        let support: Vec<[f64; D]> = (0..n).map(|_| rng.next_point()).collect();
        let mut z: Vec<f64> = (0..n.div_ceil(D))
            .flat_map(|_| rng.next_point::<f64>())
            .take(n)
            .map(normal_quantile)
            .collect();
        let mut l = vec![0.0; tri_len(n)];
        for i in 0..n {
            for j in 0..i {
                l[idx(i, j)] = kernel.eval(&support[i], &support[j]);
            }
            l[idx(i, i)] = kernel.outputscale() + config.jitter;
        }
        cholesky_in_place(&mut l, n).map_err(|e| {
            ObjectiveError::Data(format!(
                "gp-sample: kernel matrix not positive definite at row {} (raise the jitter)",
                e.row
            ))
        })?;
        let values = (0..n)
            .map(|i| {
                let r = row(&l, i);
                r.iter().zip(&z).map(|(a, b)| a * b).sum()
            })
            .collect();
        solve_upper_transposed(&l, n, &mut z);
        Ok(GpSample {
            kernel,
            support,
            values,
            alpha: z,
            seed: config.seed,
            optimum: OnceLock::new(),
        })
    }

    /// The support points `P`.
    pub fn support(&self) -> &[[f64; D]] {
        &self.support
    }

    /// The drawn values `y = L z` at the support points.
    pub fn support_values(&self) -> &[f64] {
        &self.values
    }

    /// The weights `α = (K + jitter I)⁻¹ y`.
    pub fn weights(&self) -> &[f64] {
        &self.alpha
    }

    /// `f(u)`.
    pub fn value(&self, u: &[f64; D]) -> f64 {
        self.support
            .iter()
            .zip(&self.alpha)
            .map(|(p, a)| a * self.kernel.eval(u, p))
            .sum()
    }

    /// `f(u)` and its gradient.
    pub fn value_and_gradient(&self, u: &[f64; D]) -> (f64, [f64; D]) {
        let (mut v, mut g, mut gk) = (0.0, [0.0; D], [0.0; D]);
        for (p, a) in self.support.iter().zip(&self.alpha) {
            v += a * self.kernel.eval_with_grad(u, p, &mut gk);
            for (gi, gki) in g.iter_mut().zip(&gk) {
                *gi += a * gki;
            }
        }
        (v, g)
    }

    /// The maximiser and maximum found by the search (computed once).
    pub fn maximum(&self) -> ([f64; D], f64) {
        *self.optimum.get_or_init(|| {
            let candidates = search::space_filling::<D>(self.seed, SEARCH_CANDIDATES)
                .into_iter()
                .chain(self.support.iter().copied());
            search::maximise(
                |u| self.value_and_gradient(u),
                candidates,
                SearchConfig::default(),
            )
            // Only reached if every candidate evaluated to a non-finite value.
            .unwrap_or_else(|| ([0.5; D], self.value(&[0.5; D])))
        })
    }
}

impl<const D: usize> Objective for GpSample<D> {
    fn name(&self) -> &str {
        "gp-sample"
    }
    fn dim(&self) -> usize {
        D
    }
    fn eval(&self, u: &[f64]) -> f64 {
        self.value(&core::array::from_fn(|i| u[i]))
    }
    fn optimum(&self) -> f64 {
        self.maximum().1
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        Some(self.maximum().0.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_its_support_values() {
        let s = GpSample::<2>::new(&Config {
            points: 200,
            ..Config::paper(2)
        })
        .unwrap();
        // f(P) = K α = y − jitter · α.
        for ((p, y), a) in s.support().iter().zip(s.support_values()).zip(s.weights()) {
            let f = s.value(p);
            assert!((f - (y - 1e-6 * a)).abs() < 1e-8, "{f} vs {y}");
        }
    }

    #[test]
    fn has_the_prior_covariance_across_seeds() {
        // In 1-D, 60 support points resolve lengthscale 0.1, so across seeds the values at two
        // points have variance ≈ 1 and covariance ≈ exp(−½ (0.1/0.1)²) = 0.6065.
        let seeds = 400;
        let (mut v0, mut v1, mut c) = (0.0, 0.0, 0.0);
        for seed in 0..seeds {
            let s = GpSample::<1>::new(&Config {
                seed,
                points: 60,
                ..Config::paper(1)
            })
            .unwrap();
            let (a, b) = (s.value(&[0.45]), s.value(&[0.55]));
            v0 += a * a;
            v1 += b * b;
            c += a * b;
        }
        let m = seeds as f64;
        // Standard errors are about √(2/400) = 0.07 for the variances.
        assert!((v0 / m - 1.0).abs() < 0.25, "{}", v0 / m);
        assert!((v1 / m - 1.0).abs() < 0.25, "{}", v1 / m);
        assert!((c / m - 0.6065).abs() < 0.2, "{}", c / m);
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let s = GpSample::<3>::new(&Config {
            points: 100,
            seed: 3,
            ..Config::paper(3)
        })
        .unwrap();
        let u = [0.3, 0.6, 0.2];
        let (_, g) = s.value_and_gradient(&u);
        for i in 0..3 {
            let (mut a, mut b) = (u, u);
            a[i] += 1e-6;
            b[i] -= 1e-6;
            let fd = (s.value(&a) - s.value(&b)) / 2e-6;
            assert!(
                (fd - g[i]).abs() < 1e-6 * (1.0 + g[i].abs()),
                "{fd} vs {}",
                g[i]
            );
        }
    }
}
