//! Max-value entropy search (MES; Wang & Jegelka 2017, "Max-value Entropy Search for Efficient
//! Bayesian Optimization"): how much a noiseless observation at a point with posterior
//! `N(μ, σ²)` is expected to tell about the maximum `y*`, estimated from samples `y*ₖ` of it,
//!
//! `α = (1/K) Σₖ [γₖ φ(γₖ) / (2 Φ(γₖ)) − ln Φ(γₖ)]`, `γₖ = (y*ₖ − μ)/σ`
//!
//! (BoTorch's `qMaxValueEntropy` without observation noise). Each term is the entropy of the
//! normal minus that of the normal truncated above at `y*ₖ`.
//!
//! Where `Φ(γ)` underflows (`γ` below −37.5 in `f64`) the two parts of a term are each about
//! `γ²/2` and cancel to about `ln|γ|`; written with the Mills ratio `M(x) = Φ(−x)/φ(x)` at
//! `x = −γ` and its mean excess `K₁ = 1/M − x` (computed without the cancellation),
//!
//! `term = ln √(2π) − ln M(x) − x·K₁/2`,
//!
//! which keeps its relative precision for any finite `γ` (the term grows only like `ln|γ|`).
//! For `γ ≥ 0` both parts are positive and `ln Φ(γ) = ln(1 − Q(γ))` is taken through `ln_1p`
//! of the upper tail `Q`, so a term keeps its relative precision as it vanishes.

use super::improvement::ImprovementError;
use super::normal::{mills, LN_SQRT_2PI};
use super::{cst, is_nan, normal_pdf, normal_sf};
use crate::real::Real;

/// One sample's term of MES, `γφ(γ)/(2Φ(γ)) − ln Φ(γ)`, at standardised gap `γ = (y* − μ)/σ`:
/// 0 at `γ = +∞`, `+∞` at `γ = −∞`, NaN at NaN.
pub fn mes_term<R: Real>(gamma: R) -> R {
    if is_nan(gamma) {
        return gamma;
    }
    if gamma >= R::ZERO {
        if gamma == R::INFINITY {
            return R::ZERO;
        }
        let q = normal_sf(gamma);
        return gamma * normal_pdf(gamma) / (R::TWO * (R::ONE - q)) - (-q).ln_1p();
    }
    if gamma == -R::INFINITY {
        return R::INFINITY;
    }
    let x = -gamma;
    let m = mills(x);
    cst::<R>(LN_SQRT_2PI) - m.m.ln() - R::HALF * x * m.k1
}

/// MES at a point with posterior mean `mean` and standard deviation `std > 0`, given samples
/// `max_values` of the maximum (at least one): the mean of their [`mes_term`]s.
///
/// Errors: a NaN or infinite argument ([`ImprovementError::NonFinite`]), `std ≤ 0`
/// ([`ImprovementError::NonPositiveStd`]: a point known exactly tells nothing, and one whose
/// mean is above a sample of the maximum contradicts it), no samples
/// ([`ImprovementError::BadMixture`]).
pub fn max_value_entropy<R: Real>(
    mean: R,
    std: R,
    max_values: &[R],
) -> Result<R, ImprovementError> {
    if !mean.is_finite() || !std.is_finite() || max_values.iter().any(|y| !y.is_finite()) {
        return Err(ImprovementError::NonFinite);
    }
    if std <= R::ZERO {
        return Err(ImprovementError::NonPositiveStd);
    }
    if max_values.is_empty() {
        return Err(ImprovementError::BadMixture);
    }
    let mut sum = R::ZERO;
    for &y in max_values {
        let gamma = (y - mean) / std;
        let term = if gamma == -R::INFINITY {
            // γ beyond the range (a sample far below the mean, or σ tiny): the term is
            // ln √(2π) + ln|γ| − 1/2 to within 1/γ² (far below an ulp here), with ln|γ| taken
            // from the halves, which do not overflow.
            let half_gap = mean * R::HALF - y * R::HALF;
            cst::<R>(LN_SQRT_2PI) + half_gap.ln() + cst::<R>(core::f64::consts::LN_2)
                - std.ln()
                - R::HALF
        } else {
            mes_term(gamma)
        };
        sum += term;
    }
    Ok(sum / R::from_usize(max_values.len()))
}

/// The derivative of [`mes_term`] with respect to `γ`, what a gradient of MES is built from:
///
/// `d/dγ [γφ/(2Φ) − ln Φ] = −(r/2)(1 + γ² + γr)`, `r = φ(γ)/Φ(γ)`.
///
/// For `γ ≥ 0` every part is positive and is computed as written (0 once `φ(γ)` underflows).
/// For `γ < 0`, `1 + γ² + γr` cancels (to about `2/γ²` against `γ²`); with `x = −γ` and the
/// Mills ratio's `1/M = x + K₁`, `K₁ = 1/(x + K₂)`, it is `1 − x·K₁ = K₁K₂`, so
///
/// `slope = −(x + K₁)·K₁·K₂/2`,
///
/// which keeps its relative precision for every finite `γ` (it tends to `1/γ` like the term
/// to `ln|γ|`). 0 at `γ = ±∞`, NaN at NaN.
pub fn mes_term_slope<R: Real>(gamma: R) -> R {
    if is_nan(gamma) {
        return gamma;
    }
    if gamma >= R::ZERO {
        let pdf = normal_pdf(gamma);
        if pdf == R::ZERO {
            // Also γ = +∞, where γ² would make 0·∞.
            return R::ZERO;
        }
        let r = pdf / (R::ONE - normal_sf(gamma));
        return -R::HALF * r * (R::ONE + gamma * gamma + gamma * r);
    }
    if gamma == -R::INFINITY {
        return R::ZERO;
    }
    let x = -gamma;
    let m = mills(x);
    // (x + K₁)·K₁ first: it is near 1, so the product does not underflow before K₂ joins.
    -R::HALF * ((x + m.k1) * m.k1) * m.k2
}
