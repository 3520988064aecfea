//! `bump-eipc-hard` and `bump-ei-hard`: the 1-D constructions of paper 002's Fig. 2 (where EI
//! per unit cost fails) and Fig. 9 (where EI fails), after Astudillo et al. 2021 §A, as the
//! paper's code builds them (`scripts/variable_amplitude.py`; notes `seed-002.md` §4.4).
//!
//! On `[0, 1]`, with `ε = 0.1`, `δ = 9`, width `w = 0.002` and
//! `s = w / (2√(−2 ln ε²)) ≈ 3.295·10⁻⁴`, let `b(u) = exp(−(u − ½)²/(2s²))` be a narrow bump
//! at ½. Then
//!
//! - the objective is `f(u) = a(u)·f_M(u)`, with `f_M` a draw from a Matérn-5/2 GP prior
//!   (lengthscale `10⁻⁴`, outputscale 1) by random Fourier features, and the amplitude
//!   - `bump-eipc-hard`: `a(u) = ε² + (1 − ε²)·b(u)` (from 0.01 far away to 1 at ½), so the
//!     prior puts all the variance, and the payoff, under the bump;
//!   - `bump-ei-hard`: `a(u) = (1 − ε)² + (1 − (1 − ε)²)·b(u)` (from 0.81 to 1);
//! - the cost is `c(u) = ε + (1 + δ − ε)·b(u)`, from 0.1 far away to 10 at ½ ([`cost`]), so
//!   the promising region is the expensive one. The budget is 40 and the single initial point
//!   is `u = 0`.
//!
//! The code models the objective with the kernel `√(a(u)a(u'))·k_M(u, u')`, whose variance
//! `a(u)` is not that of `a·f_M` (`a²`): the model is slightly misspecified, as in the paper.
//! A runner that wants the paper's model multiplies a Matérn-5/2 kernel by
//! `√(a(u)a(u'))` with [`VariableAmplitude::amplitude`].
//!
//! # Differences from the code
//!
//! The code's `f_M` has 1280 cosine features `√(2/m) Σ wᵢ cos(ωᵢu/ℓ + bᵢ)` with i.i.d. normal
//! `ωᵢ` (BoTorch's older `RandomFourierFeatures`); here it is the catalogue's 1024-feature
//! sine–cosine sampler ([`RffSample`]), whose draws have the same covariance. The seed names a
//! draw of this sampler, not of PyTorch's.
//!
//! # Optimum
//!
//! The code takes the maximum over the grid `linspace(0.45, 0.55, 10001)`
//! ([`VariableAmplitude::paper_optimum`]). That is not the maximum over `[0, 1]` for
//! `bump-ei-hard`, whose amplitude is 0.81 away from the bump, so a draw usually peaks outside
//! `[0.45, 0.55]`. [`Objective::optimum`] is the maximum over `[0, 1]`: the best of a grid of
//! step `ℓ/4` over `[0, 1]` and the code's grid, each of the 32 best points refined by golden
//! section within one grid step.

use std::sync::OnceLock;

use super::pandora::{RffSample, SpectralKernel};
use super::Objective;

/// `ε`: the amplitude floor's scale and the cheapest cost.
pub const EPSILON: f64 = 0.1;
/// `δ`: the cost at the bump is `1 + δ`.
pub const DELTA: f64 = 9.0;
/// Width of the amplitude and cost bumps (before the conversion to a standard deviation).
pub const WIDTH: f64 = 0.002;
/// Lengthscale of the Matérn-5/2 prior of `f_M`.
pub const LENGTHSCALE: f64 = 1e-4;
/// Budget of the paper's runs.
pub const BUDGET: f64 = 40.0;

/// Grid points of the search over `[0, 1]` (step `ℓ/4`).
const GRID: usize = 40_001;
/// Grid points of the code's optimum, `linspace(0.45, 0.55, 1 + 1/ℓ)`.
const PAPER_GRID: usize = 10_001;
/// Grid points refined by golden section.
const REFINED: usize = 32;

/// `s = w / (2√(−2 ln ε²))`, the standard deviation of the bumps.
pub fn sigma() -> f64 {
    WIDTH / (2.0 * (-2.0 * (EPSILON * EPSILON).ln()).sqrt())
}

/// The bump `exp(−(u − ½)²/(2s²))` and its derivative.
fn bump(u: f64) -> (f64, f64) {
    let s = sigma();
    let d = u - 0.5;
    let b = (-(d * d) / (2.0 * s * s)).exp();
    (b, -d / (s * s) * b)
}

/// The cost `ε + (1 + δ − ε)·b(u)` and its derivative.
pub fn cost(u: f64) -> (f64, f64) {
    let (b, db) = bump(u);
    let peak = 1.0 + DELTA - EPSILON;
    (b * peak + EPSILON, db * peak)
}

/// Which construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Construction {
    /// Fig. 2: amplitude `ε² + (1 − ε²)·b`.
    EipcHard,
    /// Fig. 9: amplitude `(1 − ε)² + (1 − (1 − ε)²)·b`.
    EiHard,
}

impl Construction {
    /// The catalogue name.
    pub fn name(self) -> &'static str {
        match self {
            Construction::EipcHard => "bump-eipc-hard",
            Construction::EiHard => "bump-ei-hard",
        }
    }

    /// The amplitude's value far from the bump.
    fn floor(self) -> f64 {
        match self {
            Construction::EipcHard => EPSILON * EPSILON,
            Construction::EiHard => (1.0 - EPSILON) * (1.0 - EPSILON),
        }
    }
}

/// One of the two constructions with a seeded `f_M` (see the module documentation).
#[derive(Debug)]
pub struct VariableAmplitude {
    which: Construction,
    sample: RffSample,
    optimum: OnceLock<(f64, f64)>,
}

impl VariableAmplitude {
    /// The construction `which` with the draw of `f_M` named by `seed`.
    pub fn new(which: Construction, seed: u64) -> Self {
        VariableAmplitude {
            which,
            sample: RffSample::new(
                which.name(),
                SpectralKernel::Matern(2.5),
                1,
                LENGTHSCALE,
                seed,
            ),
            optimum: OnceLock::new(),
        }
    }

    /// The amplitude `a(u)` and its derivative.
    pub fn amplitude(&self, u: f64) -> (f64, f64) {
        let (b, db) = bump(u);
        let floor = self.which.floor();
        (b * (1.0 - floor) + floor, db * (1.0 - floor))
    }

    /// The GP prior sample `f_M(u)` and its derivative.
    pub fn prior_sample(&self, u: f64) -> (f64, f64) {
        let (v, g) = self.sample.value_and_gradient(&[u]);
        (v, g[0])
    }

    /// `f(u) = a(u)·f_M(u)` and its derivative.
    pub fn value_and_derivative(&self, u: f64) -> (f64, f64) {
        let (m, dm) = self.prior_sample(u);
        let (a, da) = self.amplitude(u);
        (m * a, dm * a + m * da)
    }

    /// The code's "global optimum": the maximum over `linspace(0.45, 0.55, 10001)`.
    pub fn paper_optimum(&self) -> f64 {
        paper_grid()
            .map(|u| self.value(u))
            .fold(f64::NEG_INFINITY, f64::max)
    }

    fn value(&self, u: f64) -> f64 {
        self.sample.value_and_gradient(&[u]).0 * self.amplitude(u).0
    }

    /// The maximiser and maximum over `[0, 1]` (computed once; see the module documentation).
    pub fn maximum(&self) -> (f64, f64) {
        *self.optimum.get_or_init(|| {
            let step = 1.0 / (GRID - 1) as f64;
            let mut best: Vec<(f64, f64)> = (0..GRID)
                .map(|i| i as f64 * step)
                .chain(paper_grid())
                .map(|u| (u, self.value(u)))
                .collect();
            best.sort_by(|a, b| b.1.total_cmp(&a.1));
            best.truncate(REFINED);
            let mut top = best[0];
            for &(u, v) in &best {
                let r = self.golden_section((u - step).max(0.0), (u + step).min(1.0));
                let fr = self.value(r);
                for cand in [(u, v), (r, fr)] {
                    if cand.1 > top.1 {
                        top = cand;
                    }
                }
            }
            top
        })
    }

    /// A local maximiser of `f` on `[lo, hi]` by golden-section search.
    fn golden_section(&self, mut lo: f64, mut hi: f64) -> f64 {
        let ratio = (5f64.sqrt() - 1.0) / 2.0;
        let mut a = hi - ratio * (hi - lo);
        let mut b = lo + ratio * (hi - lo);
        let (mut fa, mut fb) = (self.value(a), self.value(b));
        while hi - lo > 1e-13 {
            if fa < fb {
                lo = a;
                a = b;
                fa = fb;
                b = lo + ratio * (hi - lo);
                fb = self.value(b);
            } else {
                hi = b;
                b = a;
                fb = fa;
                a = hi - ratio * (hi - lo);
                fa = self.value(a);
            }
        }
        0.5 * (lo + hi)
    }
}

/// The code's grid `linspace(0.45, 0.55, 10001)`.
fn paper_grid() -> impl Iterator<Item = f64> {
    let step = 0.1 / (PAPER_GRID - 1) as f64;
    (0..PAPER_GRID).map(move |i| 0.45 + i as f64 * step)
}

impl Objective for VariableAmplitude {
    fn name(&self) -> &str {
        self.which.name()
    }
    fn dim(&self) -> usize {
        1
    }
    fn eval(&self, u: &[f64]) -> f64 {
        self.value(u[0])
    }
    fn optimum(&self) -> f64 {
        self.maximum().1
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        Some(vec![self.maximum().0])
    }
}
