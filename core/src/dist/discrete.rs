//! A distribution on finitely many values.

use super::{kernel_args_ok, DistError, MAX_DISCRETE_VALUES};
use crate::real::Real;
use crate::special::normal::exp_neg_half_sq;
use crate::special::{is_nan, nan};

/// A distribution on at most [`MAX_DISCRETE_VALUES`] values, stored sorted by value with
/// normalised probabilities in fixed arrays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Discrete<R> {
    values: [R; MAX_DISCRETE_VALUES],
    probs: [R; MAX_DISCRETE_VALUES],
    pub(super) len: usize,
}

impl<R: Real> Discrete<R> {
    /// Values with non-negative weights (normalised here; at least one must be positive).
    /// Zero-weight values are kept but never sampled.
    pub fn new(values: &[R], weights: &[R]) -> Result<Self, DistError> {
        if values.len() != weights.len() {
            return Err(DistError::LengthMismatch);
        }
        if values.is_empty() {
            return Err(DistError::NoValues);
        }
        if values.len() > MAX_DISCRETE_VALUES {
            return Err(DistError::TooManyValues);
        }
        if !values.iter().chain(weights).all(|v| v.is_finite()) {
            return Err(DistError::NonFinite);
        }
        if weights.iter().any(|w| *w < R::ZERO) {
            return Err(DistError::NegativeWeight);
        }
        let mut total = R::ZERO;
        for w in weights {
            total += *w;
        }
        if !total.is_finite() {
            return Err(DistError::NonFinite);
        }
        let positive = total > R::ZERO;
        if !positive {
            return Err(DistError::ZeroTotalWeight);
        }
        let mut d = Discrete {
            values: [R::ZERO; MAX_DISCRETE_VALUES],
            probs: [R::ZERO; MAX_DISCRETE_VALUES],
            len: values.len(),
        };
        // Insertion sort by value, so that sampling is a monotone inverse CDF (which keeps the
        // stratification of quasi-random inputs).
        for (i, (&v, &w)) in values.iter().zip(weights).enumerate() {
            let mut j = i;
            while j > 0 && d.values[j - 1] > v {
                d.values[j] = d.values[j - 1];
                d.probs[j] = d.probs[j - 1];
                j -= 1;
            }
            d.values[j] = v;
            d.probs[j] = w / total;
        }
        Ok(d)
    }

    /// The support points, sorted.
    pub fn values(&self) -> &[R] {
        &self.values[..self.len]
    }

    /// The normalised probabilities, in the order of [`values`](Self::values).
    pub fn probabilities(&self) -> &[R] {
        &self.probs[..self.len]
    }

    /// Inverse CDF: the first value whose cumulative probability exceeds `u` (`u` in `[0, 1)`;
    /// smaller `u` give the smallest, larger the largest value with positive probability; NaN
    /// gives NaN).
    pub fn sample(&self, u: R) -> R {
        if is_nan(u) {
            return u;
        }
        let mut cum = R::ZERO;
        let mut last = self.values[0];
        for (&v, &p) in self.values().iter().zip(self.probabilities()) {
            if p > R::ZERO {
                cum += p;
                last = v;
                if u < cum {
                    return v;
                }
            }
        }
        // u ≥ 1, or u within rounding of 1 when the probabilities sum to 1 − ε.
        last
    }

    /// Mean `Σ pᵢ vᵢ`.
    pub fn mean(&self) -> R {
        let mut m = R::ZERO;
        for (&v, &p) in self.values().iter().zip(self.probabilities()) {
            m += p * v;
        }
        m
    }

    /// Variance `Σ pᵢ (vᵢ − mean)²`.
    pub fn variance(&self) -> R {
        let m = self.mean();
        let mut s = R::ZERO;
        for (&v, &p) in self.values().iter().zip(self.probabilities()) {
            s += p * (v - m).sq();
        }
        s
    }

    /// Smallest and largest values with positive probability.
    pub fn support(&self) -> (R, R) {
        let mut lo = None;
        let mut hi = self.values[0];
        for (&v, &p) in self.values().iter().zip(self.probabilities()) {
            if p > R::ZERO {
                lo.get_or_insert(v);
                hi = v;
            }
        }
        (lo.unwrap_or(hi), hi)
    }

    /// `Σ pᵢ exp(−(vᵢ − c)²/(2ℓ²))`.
    pub fn expected_gaussian_factor(&self, c: R, lengthscale: R) -> R {
        if !kernel_args_ok(c, lengthscale) {
            return nan();
        }
        let mut s = R::ZERO;
        for (&v, &p) in self.values().iter().zip(self.probabilities()) {
            s += p * exp_neg_half_sq((v - c) / lengthscale);
        }
        s
    }
}
