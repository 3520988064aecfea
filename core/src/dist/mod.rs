//! Distributions of the uncontrolled variables.
//!
//! In cost-varying Bayesian optimisation the variables outside the chosen control set are drawn
//! from known distributions. The paper's experiments use a normal with mean 0.5 truncated to
//! `[0, 1]` whose scale is chosen (by bisection) so that the *truncated* variance hits a target;
//! [`TruncatedNormal::with_truncated_variance`] does exactly that. Every distribution samples by
//! inverse CDF from one uniform number `u`, so banks of samples can be built from i.i.d. or
//! quasi-random uniforms ([`crate::qmc`]) alike.
//!
//! The truncated normal is computed in standardised units `z = (x − loc)/scale` on
//! `[α, β]`. Intervals that straddle `loc` are well conditioned in terms of `Φ`. Intervals on one
//! side of `loc` are handled through the *excess* `y ≥ 0` over the bound nearest to `loc`, whose
//! density is proportional to `exp(−a·y − y²/2)` with `a ≥ 0` the standardised distance of that
//! bound; the Mills ratio then keeps every quantity representable and free of cancellation
//! however deep in the tail the interval lies (where `Φ` itself underflows). Short intervals,
//! on which closed forms cancel catastrophically (the density is nearly flat), use a 16-node
//! Gauss–Legendre rule, which is exact to rounding there.
//!
//! One file per distribution: [`truncated_normal`], [`uniform`], [`discrete`]; the normal's
//! special functions live a layer below, in [`crate::special`].

use crate::real::Real;
use crate::special::normal::exp_neg_half_sq;
use crate::special::{is_nan, nan};

pub mod discrete;
pub mod truncated_normal;
pub mod uniform;

pub use discrete::Discrete;
pub use truncated_normal::TruncatedNormal;
pub use uniform::Uniform;

/// The largest number of support points of a [`Discrete`] distribution.
pub const MAX_DISCRETE_VALUES: usize = 16;

/// Why a distribution could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistError {
    /// A parameter, or a quantity derived from the parameters (such as the interval width), was
    /// NaN or infinite.
    NonFinite,
    /// A scale parameter was zero or negative.
    NonPositiveScale,
    /// The lower bound was not strictly below the upper bound.
    EmptyInterval,
    /// The requested truncated variance was not in `(0, (hi − lo)²/12)`: a normal truncated to
    /// `[lo, hi]` approaches the uniform variance `(hi − lo)²/12` as its scale grows but never
    /// reaches it.
    VarianceUnachievable,
    /// The truncation interval is so narrow, or lies so far into a tail, relative to the scale
    /// that the distribution's moments are not representable in the floating-point type.
    Degenerate,
    /// A discrete distribution was given no values.
    NoValues,
    /// A discrete distribution was given more than [`MAX_DISCRETE_VALUES`] values.
    TooManyValues,
    /// The values and weights of a discrete distribution differ in length.
    LengthMismatch,
    /// A weight of a discrete distribution was negative.
    NegativeWeight,
    /// The weights of a discrete distribution sum to zero.
    ZeroTotalWeight,
    /// The scale of an affine map was zero.
    ZeroScale,
}

impl core::fmt::Display for DistError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NonFinite => f.write_str(
                "a parameter, or a quantity derived from the parameters, is NaN or infinite",
            ),
            Self::NonPositiveScale => f.write_str("a scale parameter is zero or negative"),
            Self::EmptyInterval => {
                f.write_str("the lower bound is not strictly below the upper bound")
            }
            Self::VarianceUnachievable => {
                f.write_str("the requested truncated variance is not in (0, (hi - lo)^2/12)")
            }
            Self::Degenerate => f.write_str(
                "the truncation interval is too narrow or too far into a tail for the \
                 distribution's moments to be representable",
            ),
            Self::NoValues => f.write_str("a discrete distribution was given no values"),
            Self::TooManyValues => write!(
                f,
                "a discrete distribution was given more than {MAX_DISCRETE_VALUES} values"
            ),
            Self::LengthMismatch => {
                f.write_str("the values and weights of a discrete distribution differ in length")
            }
            Self::NegativeWeight => f.write_str("a weight of a discrete distribution is negative"),
            Self::ZeroTotalWeight => {
                f.write_str("the weights of a discrete distribution sum to zero")
            }
            Self::ZeroScale => f.write_str("the scale of an affine map is zero"),
        }
    }
}

impl core::error::Error for DistError {}

/// Whether `c` and `ℓ` are usable for a squared-exponential factor (`ℓ > 0`, neither NaN).
#[inline]
fn kernel_args_ok<R: Real>(c: R, lengthscale: R) -> bool {
    lengthscale > R::ZERO && !is_nan(c)
}

/// The distribution of one uncontrolled variable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Distribution<R> {
    /// A truncated normal.
    TruncatedNormal(TruncatedNormal<R>),
    /// A uniform on an interval.
    Uniform(Uniform<R>),
    /// Finitely many values with probabilities.
    Discrete(Discrete<R>),
    /// A point mass at the value. (Built directly it is not validated: a NaN value only yields
    /// NaN samples; [`Distribution::constant`] checks it.)
    Constant(R),
}

impl<R: Real> From<TruncatedNormal<R>> for Distribution<R> {
    fn from(d: TruncatedNormal<R>) -> Self {
        Distribution::TruncatedNormal(d)
    }
}

impl<R: Real> From<Uniform<R>> for Distribution<R> {
    fn from(d: Uniform<R>) -> Self {
        Distribution::Uniform(d)
    }
}

impl<R: Real> From<Discrete<R>> for Distribution<R> {
    fn from(d: Discrete<R>) -> Self {
        Distribution::Discrete(d)
    }
}

impl<R: Real> Distribution<R> {
    /// Shorthand for [`TruncatedNormal::new`].
    pub fn truncated_normal(loc: R, scale: R, lo: R, hi: R) -> Result<Self, DistError> {
        TruncatedNormal::new(loc, scale, lo, hi).map(Self::from)
    }

    /// Shorthand for [`Uniform::new`].
    pub fn uniform(lo: R, hi: R) -> Result<Self, DistError> {
        Uniform::new(lo, hi).map(Self::from)
    }

    /// Shorthand for [`Discrete::new`].
    pub fn discrete(values: &[R], weights: &[R]) -> Result<Self, DistError> {
        Discrete::new(values, weights).map(Self::from)
    }

    /// The point mass at a finite `value`.
    pub fn constant(value: R) -> Result<Self, DistError> {
        if !value.is_finite() {
            return Err(DistError::NonFinite);
        }
        Ok(Distribution::Constant(value))
    }

    /// A sample from one uniform number `u ∈ (0, 1)` by inverse CDF (a constant ignores `u`).
    pub fn sample(&self, u: R) -> R {
        match self {
            Distribution::TruncatedNormal(d) => d.sample(u),
            Distribution::Uniform(d) => d.sample(u),
            Distribution::Discrete(d) => d.sample(u),
            Distribution::Constant(v) => *v,
        }
    }

    /// Mean.
    pub fn mean(&self) -> R {
        match self {
            Distribution::TruncatedNormal(d) => d.mean(),
            Distribution::Uniform(d) => d.mean(),
            Distribution::Discrete(d) => d.mean(),
            Distribution::Constant(v) => *v,
        }
    }

    /// Variance.
    pub fn variance(&self) -> R {
        match self {
            Distribution::TruncatedNormal(d) => d.variance(),
            Distribution::Uniform(d) => d.variance(),
            Distribution::Discrete(d) => d.variance(),
            Distribution::Constant(_) => R::ZERO,
        }
    }

    /// Smallest and largest value a sample can take.
    pub fn support(&self) -> (R, R) {
        match self {
            Distribution::TruncatedNormal(d) => (d.lo, d.hi),
            Distribution::Uniform(d) => (d.lo, d.hi),
            Distribution::Discrete(d) => d.support(),
            Distribution::Constant(v) => (*v, *v),
        }
    }

    /// The distribution of `(X − offset)/scale`, of the same kind (a truncated normal stays a
    /// truncated normal, and so on); a negative `scale` mirrors it. Used to map physical units
    /// onto the unit cube. Fails if `offset` or `scale` is not finite, `scale` is zero, or the
    /// mapped parameters are not valid (overflow, or an interval that rounds to a point).
    pub fn affine(&self, offset: R, scale: R) -> Result<Self, DistError> {
        if !(offset.is_finite() && scale.is_finite()) {
            return Err(DistError::NonFinite);
        }
        if scale == R::ZERO {
            return Err(DistError::ZeroScale);
        }
        let map = |x: R| (x - offset) / scale;
        let ordered = |a: R, b: R| if scale > R::ZERO { (a, b) } else { (b, a) };
        match self {
            Distribution::TruncatedNormal(d) => {
                let (lo, hi) = ordered(map(d.lo), map(d.hi));
                Self::truncated_normal(map(d.loc), d.scale / scale.abs(), lo, hi)
            }
            Distribution::Uniform(d) => {
                let (lo, hi) = ordered(map(d.lo), map(d.hi));
                Self::uniform(lo, hi)
            }
            Distribution::Discrete(d) => {
                let mut values = [R::ZERO; MAX_DISCRETE_VALUES];
                for (m, &v) in values.iter_mut().zip(d.values()) {
                    *m = map(v);
                }
                Self::discrete(&values[..d.len], d.probabilities())
            }
            Distribution::Constant(v) => Self::constant(map(*v)),
        }
    }

    /// `E[exp(−(X − c)²/(2ℓ²))]` for `X` with this distribution, in closed form: the expectation
    /// of one squared-exponential kernel factor over this variable. NaN unless `ℓ > 0` and `c`
    /// is a number.
    pub fn expected_gaussian_factor(&self, c: R, lengthscale: R) -> R {
        match self {
            Distribution::TruncatedNormal(d) => d.expected_gaussian_factor(c, lengthscale),
            Distribution::Uniform(d) => d.expected_gaussian_factor(c, lengthscale),
            Distribution::Discrete(d) => d.expected_gaussian_factor(c, lengthscale),
            Distribution::Constant(v) => {
                if !kernel_args_ok(c, lengthscale) {
                    nan()
                } else {
                    exp_neg_half_sq((*v - c) / lengthscale)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
