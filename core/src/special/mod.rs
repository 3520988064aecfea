//! Special functions: the numerics floor under the distributions, the expectations and the
//! acquisitions.
//!
//! [`normal`] holds the standard normal's density, CDF, upper tail and quantile with their
//! tails computed in relative precision (through the Mills ratio); [`improvement`] the
//! expected-improvement function `h`, its log and the inverse of its log (EI, LogEI and the
//! Pandora's Box Gittins index); [`entropy`] max-value entropy search's terms and their
//! slope; [`gumbel`] the Gumbel approximation its samples of the maximum are drawn from;
//! `quadrature` the fixed Gauss–Legendre rule that short intervals are integrated with;
//! [`textbook`] EI and the Gittins index from their textbook formulas, for paper 002's ablation.
//! Everything is generic over [`Real`] and free of allocation.

use crate::real::Real;

pub mod entropy;
pub mod gumbel;
pub mod improvement;
pub mod normal;
pub(crate) mod quadrature;
pub mod textbook;

pub use normal::{normal_cdf, normal_pdf, normal_quantile, normal_sf};

#[inline]
pub(crate) fn cst<R: Real>(v: f64) -> R {
    R::from_f64(v)
}

#[inline]
pub(crate) fn nan<R: Real>() -> R {
    R::from_f64(f64::NAN)
}

/// True for NaN, the only value unordered with itself.
#[inline]
pub(crate) fn is_nan<R: Real>(x: R) -> bool {
    x.partial_cmp(&x).is_none()
}

#[cfg(test)]
pub(crate) mod tests;
