//! What the structural causal models need: a seeded random stream with uniform and normal
//! draws, Monte Carlo means with their standard errors, and Simpson quadrature for the optima
//! that are one- or two-dimensional integrals.

use rand_core::{Rng as _, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A seeded random stream (xoshiro256++).
pub struct Rng {
    inner: Xoshiro256PlusPlus,
    spare: Option<f64>,
}

impl Rng {
    /// The stream of a seed.
    pub fn new(seed: u64) -> Rng {
        Rng {
            inner: Xoshiro256PlusPlus::seed_from_u64(seed),
            spare: None,
        }
    }

    /// Uniform on `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.inner.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform on `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Normal with mean `mean` and standard deviation `sd` (Marsaglia's polar method).
    pub fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        if let Some(z) = self.spare.take() {
            return mean + sd * z;
        }
        loop {
            let u = 2.0 * self.unit() - 1.0;
            let v = 2.0 * self.unit() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                let k = (-2.0 * s.ln() / s).sqrt();
                self.spare = Some(v * k);
                return mean + sd * u * k;
            }
        }
    }
}

/// A Monte Carlo mean with its standard error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The sample mean.
    pub mean: f64,
    /// Its standard error (sample standard deviation / √n).
    pub se: f64,
    /// Number of samples.
    pub samples: u64,
}

/// The mean of `f` over `samples` draws of a stream seeded with `seed`.
pub fn monte_carlo(samples: u64, seed: u64, mut f: impl FnMut(&mut Rng) -> f64) -> Estimate {
    assert!(samples >= 2, "at least two samples for a standard error");
    let mut rng = Rng::new(seed);
    // Welford's running mean and variance: no cancellation for large means (PSA ≈ 5).
    let (mut mean, mut m2) = (0.0f64, 0.0f64);
    for i in 1..=samples {
        let x = f(&mut rng);
        let d = x - mean;
        mean += d / i as f64;
        m2 += d * (x - mean);
    }
    let var = m2 / (samples - 1) as f64;
    Estimate {
        mean,
        se: (var / samples as f64).sqrt(),
        samples,
    }
}

/// Composite Simpson's rule for `∫_a^b f` with `n` (rounded up to even) intervals.
pub fn simpson(a: f64, b: f64, n: usize, f: impl Fn(f64) -> f64) -> f64 {
    let n = n.max(2).next_multiple_of(2);
    let h = (b - a) / n as f64;
    let mut s = f(a) + f(b);
    for i in 1..n {
        let w = if i % 2 == 1 { 4.0 } else { 2.0 };
        s += w * f(a + i as f64 * h);
    }
    s * h / 3.0
}

/// `E[g(Z)]` for `Z ~ N(mean, sd)`, by Simpson's rule over `mean ± 10 sd`.
pub fn normal_expectation(mean: f64, sd: f64, n: usize, g: impl Fn(f64) -> f64) -> f64 {
    let norm = 1.0 / (sd * (2.0 * std::f64::consts::PI).sqrt());
    simpson(mean - 10.0 * sd, mean + 10.0 * sd, n, |z| {
        let t = (z - mean) / sd;
        norm * (-0.5 * t * t).exp() * g(z)
    })
}

/// The logistic sigmoid `ϱ(x) = 1 / (1 + e^{−x})`.
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}
