//! The uniform distribution on an interval.

use super::truncated_normal::ln_normal_mass;
use super::{kernel_args_ok, DistError};
use crate::real::Real;
use crate::special::normal::LN_SQRT_2PI;
use crate::special::{cst, nan};

/// The uniform distribution on `[lo, hi]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Uniform<R> {
    pub(super) lo: R,
    pub(super) hi: R,
}

impl<R: Real> Uniform<R> {
    /// Uniform on `[lo, hi]` with finite `lo < hi` (and a finite width).
    pub fn new(lo: R, hi: R) -> Result<Self, DistError> {
        if !(lo.is_finite() && hi.is_finite()) {
            return Err(DistError::NonFinite);
        }
        let ordered = lo < hi;
        if !ordered {
            return Err(DistError::EmptyInterval);
        }
        if !(hi - lo).is_finite() {
            return Err(DistError::NonFinite);
        }
        Ok(Uniform { lo, hi })
    }

    /// Lower bound.
    pub fn lo(&self) -> R {
        self.lo
    }

    /// Upper bound.
    pub fn hi(&self) -> R {
        self.hi
    }

    /// Mean `(lo + hi)/2`.
    pub fn mean(&self) -> R {
        self.lo + R::HALF * (self.hi - self.lo)
    }

    /// Variance `(hi − lo)²/12`.
    pub fn variance(&self) -> R {
        cst::<R>(1.0 / 12.0) * (self.hi - self.lo).sq()
    }

    /// `lo + u (hi − lo)`, clamped into `[lo, hi]` (NaN for NaN).
    pub fn sample(&self, u: R) -> R {
        (self.lo + u * (self.hi - self.lo)).clamp_to(self.lo, self.hi)
    }

    /// `E[exp(−(X − c)²/(2ℓ²))] = ℓ√(2π)/(hi − lo) · P((lo − c)/ℓ < Z < (hi − c)/ℓ)`.
    pub fn expected_gaussian_factor(&self, c: R, lengthscale: R) -> R {
        if !kernel_args_ok(c, lengthscale) {
            return nan();
        }
        if !lengthscale.is_finite() {
            return R::ONE;
        }
        let a = (self.lo - c) / lengthscale;
        let w = (self.hi - self.lo) / lengthscale;
        let ln = lengthscale.ln() + cst::<R>(LN_SQRT_2PI) - (self.hi - self.lo).ln()
            + ln_normal_mass(a, w);
        ln.exp().clamp_to(R::ZERO, R::ONE)
    }
}
