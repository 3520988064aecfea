//! Closed-form benchmark functions, negated so that they are maximised, on the unit cube.
//!
//! Definitions follow the usual references (Surjanovic & Bingham's *Virtual Library of
//! Simulation Experiments*, and BoTorch's `test_functions`, which the papers' code calls with
//! `negate=True`). A function defined on a box `[lo, hi]^d` is evaluated at
//! `x = u · (hi − lo) + lo`.

use std::f64::consts::{E, PI};

use costbo_core::testfn::{self, Grouping, HARTMANN3_VLSE, HARTMANN6};

use super::Objective;
use crate::platform::Platform;

/// `u · (hi − lo) + lo`, the map from the unit interval to `[lo, hi]`.
#[inline]
fn scale(u: f64, lo: f64, hi: f64) -> f64 {
    u * (hi - lo) + lo
}

/// The inverse of [`scale`].
#[inline]
fn unscale(x: f64, lo: f64, hi: f64) -> f64 {
    (x - lo) / (hi - lo)
}

/// Hartmann-3 or Hartmann-6, negated: the core's [`testfn`] functions
/// ([`HARTMANN3_VLSE`], [`HARTMANN6`]: coefficients, maxima and their provenance), already on
/// `[0, 1]^d`, evaluated in f64 with the platform's `exp` ([`Platform`]) and each term's square
/// first, as this objective always has been (recorded runs depend on the last bit).
#[derive(Debug, Clone, PartialEq)]
pub struct Hartmann {
    name: &'static str,
    function: HartmannFunction,
}

/// Which of the core's Hartmann functions.
#[derive(Debug, Clone, Copy, PartialEq)]
enum HartmannFunction {
    Three(&'static testfn::Hartmann<3>),
    Six(&'static testfn::Hartmann<6>),
}

impl Hartmann {
    /// Hartmann-3 (`hartmann3`), with Surjanovic & Bingham's table ([`HARTMANN3_VLSE`]).
    pub fn three() -> Self {
        Hartmann {
            name: "hartmann3",
            function: HartmannFunction::Three(&HARTMANN3_VLSE),
        }
    }

    /// Hartmann-6 (`hartmann6`).
    pub fn six() -> Self {
        Hartmann {
            name: "hartmann6",
            function: HartmannFunction::Six(&HARTMANN6),
        }
    }
}

/// The first `D` inputs as an array (the runner passes exactly `dim()` of them).
fn first<const D: usize>(u: &[f64]) -> [f64; D] {
    core::array::from_fn(|j| u[j])
}

impl Objective for Hartmann {
    fn name(&self) -> &str {
        self.name
    }
    fn dim(&self) -> usize {
        match self.function {
            HartmannFunction::Three(_) => 3,
            HartmannFunction::Six(_) => 6,
        }
    }
    fn eval(&self, u: &[f64]) -> f64 {
        match self.function {
            HartmannFunction::Three(h) => {
                h.value::<f64, Platform>(&first(u), Grouping::SquareFirst)
            }
            HartmannFunction::Six(h) => h.value::<f64, Platform>(&first(u), Grouping::SquareFirst),
        }
    }
    fn optimum(&self) -> f64 {
        match self.function {
            HartmannFunction::Three(h) => h.optimum,
            HartmannFunction::Six(h) => h.optimum,
        }
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        Some(match self.function {
            HartmannFunction::Three(h) => h.argmax.to_vec(),
            HartmannFunction::Six(h) => h.argmax.to_vec(),
        })
    }
}

/// Ackley, negated: with `x = u · 2h − h` (half-width `h`, 32.768 by default),
/// `f = −[a (1 − exp(−b √(mean xᵢ²))) + (e − exp(mean cos(c xᵢ)))]`, `a = 20`, `b = 0.2`,
/// `c = 2π`. The two brackets are each zero at `x = 0`, so the maximum `0` at `u = ½` is exact.
///
/// Paper 001 uses the BoTorch box `[−32.768, 32.768]^d`; paper 002 (PBGI) uses `[−1, 1]^d`
/// ([`Ackley::with_half_width`]`(d, 1.0)`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ackley {
    dim: usize,
    half_width: f64,
}

impl Ackley {
    /// The standard Ackley on `[−32.768, 32.768]^d`.
    ///
    /// # Panics
    /// If `dim == 0`.
    pub fn new(dim: usize) -> Self {
        Self::with_half_width(dim, 32.768)
    }

    /// Ackley on `[−h, h]^d`.
    ///
    /// # Panics
    /// If `dim == 0`.
    pub fn with_half_width(dim: usize, half_width: f64) -> Self {
        assert!(dim >= 1, "Ackley needs d >= 1");
        Ackley { dim, half_width }
    }
}

impl Objective for Ackley {
    fn name(&self) -> &str {
        "ackley"
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn eval(&self, u: &[f64]) -> f64 {
        let (a, b, c) = (20.0, 0.2, 2.0 * PI);
        let h = self.half_width;
        let n = self.dim as f64;
        let (mut sq, mut cs) = (0.0, 0.0);
        for &ui in &u[..self.dim] {
            let x = scale(ui, -h, h);
            sq += x * x;
            cs += (c * x).cos();
        }
        -(a * (1.0 - (-b * (sq / n).sqrt()).exp()) + (E - (cs / n).exp()))
    }
    fn optimum(&self) -> f64 {
        0.0
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        Some(vec![0.5; self.dim])
    }
}

/// Levy on `[−10, 10]^d`, negated: with `wᵢ = 1 + (xᵢ − 1)/4`,
/// `f = −[sin²(πw₁) + Σ_{i<d} (wᵢ − 1)² (1 + 10 sin²(πwᵢ + 1)) + (w_d − 1)² (1 + sin²(2πw_d))]`
/// (for `d = 1` the middle sum is empty). Maximum `0` at `x = 1`, `u = 0.55`.
///
/// Unscaled (paper 002's code divides by 100 before negating; do that at the call site).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Levy {
    dim: usize,
}

impl Levy {
    /// Levy in `d ≥ 1` dimensions.
    ///
    /// # Panics
    /// If `dim == 0`.
    pub fn new(dim: usize) -> Self {
        assert!(dim >= 1, "Levy needs d >= 1");
        Levy { dim }
    }
}

impl Objective for Levy {
    fn name(&self) -> &str {
        "levy"
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn eval(&self, u: &[f64]) -> f64 {
        let w = |i: usize| 1.0 + (scale(u[i], -10.0, 10.0) - 1.0) / 4.0;
        let d = self.dim;
        let mut s = (PI * w(0)).sin().powi(2);
        for i in 0..d - 1 {
            let wi = w(i);
            s += (wi - 1.0).powi(2) * (1.0 + 10.0 * (PI * wi + 1.0).sin().powi(2));
        }
        let wd = w(d - 1);
        s += (wd - 1.0).powi(2) * (1.0 + (2.0 * PI * wd).sin().powi(2));
        -s
    }
    fn optimum(&self) -> f64 {
        0.0
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        Some(vec![unscale(1.0, -10.0, 10.0); self.dim])
    }
}

/// Rosenbrock on `[−5, 10]^d`, negated: `f = −Σ_{i<d} [100 (x_{i+1} − xᵢ²)² + (xᵢ − 1)²]`.
/// Maximum `0` at `x = 1`, `u = 0.4`. Unscaled (paper 002's code divides by 1e5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rosenbrock {
    dim: usize,
}

impl Rosenbrock {
    /// Rosenbrock in `d ≥ 2` dimensions.
    ///
    /// # Panics
    /// If `dim < 2`.
    pub fn new(dim: usize) -> Self {
        assert!(dim >= 2, "Rosenbrock needs d >= 2");
        Rosenbrock { dim }
    }
}

impl Objective for Rosenbrock {
    fn name(&self) -> &str {
        "rosenbrock"
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn eval(&self, u: &[f64]) -> f64 {
        let x = |i: usize| scale(u[i], -5.0, 10.0);
        -(0..self.dim - 1)
            .map(|i| {
                let (a, b) = (x(i), x(i + 1));
                100.0 * (b - a * a).powi(2) + (a - 1.0).powi(2)
            })
            .sum::<f64>()
    }
    fn optimum(&self) -> f64 {
        0.0
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        Some(vec![unscale(1.0, -5.0, 10.0); self.dim])
    }
}

/// Branin in `d ≥ 2` dimensions, negated.
///
/// The 2-D Branin on `(x₁, x₂) ∈ [−5, 10] × [0, 15]` is
/// `b(x₁, x₂) = (x₂ − 5.1/(4π²) x₁² + 5/π x₁ − 6)² + 10 (1 − 1/(8π)) cos x₁ + 10`, with minimum
/// `5/(4π) ≈ 0.397887` at `(−π, 12.275)`, `(π, 2.275)` and `(3π, 2.475)`.
///
/// **Extension to `d` inputs (a convention of this crate):** the inputs are split into the
/// disjoint pairs `(u₁, u₂), (u₃, u₄), …` and `f(u) = −mean over pairs of b(pair)`; when `d`
/// is odd the last input is ignored. The maximum is therefore `−5/(4π)` in every dimension
/// (reached at `3^⌊d/2⌋` points); [`argmax`](Objective::argmax) reports every pair at
/// `(π, 2.275)`, i.e. `u = ((π + 5)/15, 2.275/15)`. For `d = 2` this is the usual Branin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Branin {
    dim: usize,
}

impl Branin {
    /// Branin in `d ≥ 2` dimensions.
    ///
    /// # Panics
    /// If `dim < 2`.
    pub fn new(dim: usize) -> Self {
        assert!(dim >= 2, "Branin needs d >= 2");
        Branin { dim }
    }

    /// The 2-D Branin `b(x₁, x₂)` in its native coordinates (minimised).
    pub fn native(x1: f64, x2: f64) -> f64 {
        let b = 5.1 / (4.0 * PI * PI);
        let c = 5.0 / PI;
        let t = 1.0 / (8.0 * PI);
        (x2 - b * x1 * x1 + c * x1 - 6.0).powi(2) + 10.0 * (1.0 - t) * x1.cos() + 10.0
    }
}

impl Objective for Branin {
    fn name(&self) -> &str {
        "branin"
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn eval(&self, u: &[f64]) -> f64 {
        let pairs = self.dim / 2;
        let s: f64 = (0..pairs)
            .map(|k| Branin::native(scale(u[2 * k], -5.0, 10.0), scale(u[2 * k + 1], 0.0, 15.0)))
            .sum();
        -s / pairs as f64
    }
    fn optimum(&self) -> f64 {
        -5.0 / (4.0 * PI)
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        let pair = [unscale(PI, -5.0, 10.0), unscale(2.275, 0.0, 15.0)];
        Some((0..self.dim).map(|i| pair[i % 2]).collect())
    }
}

/// An objective on the first `inner.dim()` inputs of a larger cube whose remaining inputs are
/// ignored ("dummy" dimensions, as in paper 001's 12-D Hartmann-6 and Ackley-6). Same optimum;
/// the reported maximiser sets the dummies to ½.
#[derive(Debug, Clone, PartialEq)]
pub struct Padded<F> {
    name: &'static str,
    inner: F,
    dim: usize,
}

impl<F: Objective> Padded<F> {
    /// `inner` padded to `dim ≥ inner.dim()` inputs, registered as `name`.
    ///
    /// # Panics
    /// If `dim < inner.dim()`.
    pub fn new(name: &'static str, inner: F, dim: usize) -> Self {
        assert!(dim >= inner.dim(), "padding cannot remove inputs");
        Padded { name, inner, dim }
    }
}

impl<F: Objective> Objective for Padded<F> {
    fn name(&self) -> &str {
        self.name
    }
    fn dim(&self) -> usize {
        self.dim
    }
    fn eval(&self, u: &[f64]) -> f64 {
        self.inner.eval(&u[..self.inner.dim()])
    }
    fn optimum(&self) -> f64 {
        self.inner.optimum()
    }
    fn argmax(&self) -> Option<Vec<f64>> {
        let mut x = self.inner.argmax()?;
        x.resize(self.dim, 0.5);
        Some(x)
    }
}
