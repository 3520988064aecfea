//! The expected-improvement function `h(u) = φ(u) + u·Φ(u)`, its logarithm and the inverse of
//! its logarithm: what expected improvement (`EI = σ·h((μ − y)/σ)`), LogEI and the Pandora's
//! Box Gittins index (paper 002) are made of.
//!
//! `h` is increasing, convex and log-concave, with `h'(u) = Φ(u)` and `h(u) ~ φ(u)/u²` as
//! `u → −∞`. For `u < 0` it is a difference of two nearly equal numbers, and `φ(u)` underflows
//! at `u ≈ −38.5` in `f64` (`−14` in `f32`), so neither `h` nor `ln h` can be computed from
//! `φ + uΦ` in the tail. Like Ament et al. (2023, "Unexpected improvements to expected
//! improvement"), [`log_h`] adds `ln φ(u) = −u²/2 − ln√(2π)`, exact to rounding, to the log of
//! a factor of order one; the factor is taken from the Mills ratio's continued fraction
//! (`h(u) = φ(x)·K₁(x)·M(x)` with `x = −u`, `M = Q/φ = 1/(x + K₁)`), which is free of
//! cancellation, instead of Ament et al.'s `log1mexp` of `ln(x·erfcx(x/√2)) + ln√(π/2)`, which
//! loses relative precision in `w` as `x` grows. The result is accurate to a few ulps (relative)
//! for every `u` down to `−10¹⁵⁴` (where `u²` overflows), in `f32` as in `f64`: the worst case
//! is `−2 < u < 0`, where `K₁ = 1/M − x` cancels by about two bits.

use super::normal::{mills, mills_many, normal_cdf, normal_pdf, Mills, LN_SQRT_2PI};
use super::{cst, is_nan};
use crate::real::Real;

/// `h(u) = φ(u) + u·Φ(u) = E[max(Z + u, 0)]` for a standard normal `Z`: expected improvement
/// with unit standard deviation at standardised distance `u` above the incumbent. Accurate in
/// relative terms wherever it does not underflow (`u ≳ −38` in `f64`); use [`log_h`] beyond.
pub fn h<R: Real>(u: R) -> R {
    if is_nan(u) {
        return u;
    }
    if u >= R::ZERO {
        // Both terms are positive: no cancellation.
        return normal_pdf(u) + u * normal_cdf(u);
    }
    let m = mills(-u);
    normal_pdf(u) * m.k1 * m.m
}

/// `ln h(u)`, to a few ulps (relative) for every `u` (see the module documentation);
/// `−∞` at `u = −∞`, `+∞` at `u = +∞`.
pub fn log_h<R: Real>(u: R) -> R {
    if is_nan(u) {
        return u;
    }
    if u >= R::ZERO {
        return h(u).ln();
    }
    if u == -R::INFINITY {
        return u;
    }
    let x = -u;
    let m = mills(x);
    let ln_phi = -R::HALF * x * x - cst::<R>(LN_SQRT_2PI);
    ln_phi + (m.k1 * m.m).ln()
}

/// `d ln h/du = Φ(u)/h(u)`, the slope that Newton's method on [`log_h`] and the Gittins
/// index's gradient need; for `u < 0` it is `1/K₁(−u)`, the reciprocal of the mean excess of a
/// normal above `−u`, which neither underflows nor cancels.
pub fn log_h_slope<R: Real>(u: R) -> R {
    if is_nan(u) {
        return u;
    }
    if u >= R::ZERO {
        return normal_cdf(u) / h(u);
    }
    if u == -R::INFINITY {
        return R::INFINITY;
    }
    R::ONE / mills(-u).k1
}

/// [`log_h`] and [`log_h_slope`] together, from one Mills ratio (the pair Newton's method
/// needs at every step); bit for bit the two functions' values.
pub fn log_h_with_slope<R: Real>(u: R) -> (R, R) {
    if is_nan(u) {
        return (u, u);
    }
    if u >= R::ZERO {
        let hu = h(u);
        return (hu.ln(), normal_cdf(u) / hu);
    }
    if u == -R::INFINITY {
        return (u, R::INFINITY);
    }
    let x = -u;
    log_h_with_slope_in_tail(x, mills(x))
}

/// [`log_h_with_slope`] at `u = −x < 0` from the Mills ratio at `x`.
fn log_h_with_slope_in_tail<R: Real>(x: R, m: Mills<R>) -> (R, R) {
    let ln_phi = -R::HALF * x * x - cst::<R>(LN_SQRT_2PI);
    (ln_phi + (m.k1 * m.m).ln(), R::ONE / m.k1)
}

/// [`log_h_with_slope`] at `L` points at once (`None` where `us` is `None`), bit for bit: the
/// Mills ratios of the points in the tail come from [`mills_many`].
fn log_h_with_slope_many<R: Real, const L: usize>(us: [Option<R>; L]) -> [Option<(R, R)>; L] {
    let in_tail = |u: R| u < R::ZERO && u != -R::INFINITY;
    let tail = us.map(|u| u.filter(|&u| in_tail(u)).map(|u| -u));
    let ratios = mills_many(tail);
    let mut out = [None; L];
    for i in 0..L {
        out[i] = match (us[i], tail[i], ratios[i]) {
            (_, Some(x), Some(m)) => Some(log_h_with_slope_in_tail(x, m)),
            (Some(u), _, _) => Some(log_h_with_slope(u)),
            (None, _, _) => None,
        };
    }
    out
}

/// The `u` with `ln h(u) = log_r`, i.e. `h⁻¹(e^{log_r})`, by Newton's method on `ln h` (which
/// is increasing and concave, so Newton converges monotonically once left of the root) inside a
/// bracket that a bisection step falls back to; 4–6 iterations typically. Taking the logarithm
/// of `r` keeps ratios such as `λc/σ = 10⁻³⁰⁰` (and their `f32` counterparts) representable.
/// NaN for a NaN argument; `−∞` for `log_r = −∞`; `+∞` for `log_r = +∞`.
pub fn log_h_inverse<R: Real>(log_r: R) -> R {
    let mut root = Root::start(log_r);
    for _ in 0..max_root_iterations::<R>() {
        match root {
            Root::Found(u) => return u,
            Root::Searching { u, .. } => {
                let (value, slope) = log_h_with_slope(u);
                root.step(value, slope);
            }
        }
    }
    root.value()
}

/// [`log_h_inverse`] at `L` points at once, bit for bit: each point's Newton iteration is the
/// same, and the steps of the points still searching are taken together, their Mills ratios
/// side by side (`mills_many`, where the time of an iteration goes).
pub fn log_h_inverse_many<R: Real, const L: usize>(log_r: [R; L]) -> [R; L] {
    if cfg!(target_arch = "arm") {
        // A Cortex-M divides in one instruction and overlaps nothing: lockstep only adds
        // bookkeeping (1.4 % more instructions a PBGI-D decision on the M4F).
        return log_r.map(log_h_inverse);
    }
    let mut roots = log_r.map(Root::start);
    for _ in 0..max_root_iterations::<R>() {
        let us = roots.map(|r| match r {
            Root::Searching { u, .. } => Some(u),
            Root::Found(_) => None,
        });
        if us.iter().all(Option::is_none) {
            break;
        }
        for (root, step) in roots.iter_mut().zip(log_h_with_slope_many(us)) {
            if let Some((value, slope)) = step {
                root.step(value, slope);
            }
        }
    }
    roots.map(|r| r.value())
}

fn max_root_iterations<R: Real>() -> usize {
    if R::EPSILON < cst(1e-10) {
        60
    } else {
        40
    }
}

/// The state of [`log_h_inverse`]'s safeguarded Newton iteration for one root.
#[derive(Debug, Clone, Copy)]
enum Root<R> {
    Found(R),
    Searching { log_r: R, lo: R, hi: R, u: R },
}

impl<R: Real> Root<R> {
    /// The bracket and first guess for `ln h(u) = log_r`, or the answer where no iteration is
    /// needed.
    fn start(log_r: R) -> Self {
        if is_nan(log_r) || log_r == -R::INFINITY || log_r == R::INFINITY {
            return Root::Found(log_r);
        }
        let ln_phi0 = -cst::<R>(LN_SQRT_2PI);
        let inv_sqrt_2pi = cst::<R>(0.398_942_280_401_432_7);
        let (lo, hi, mut u) = if log_r < ln_phi0 {
            // h(u) ≤ φ(u) for u ≤ 0, so ln φ(lo) = log_r puts lo left of the root.
            let l = -R::TWO * (log_r - ln_phi0);
            let lo = -l.sqrt();
            // From h ≈ φ/u²: u ≈ −√(L − 2 ln L) with L = −2 ln r − ln 2π (`docs/notes/seed-002.md` §2.5).
            let guess = if log_r < cst(-3.0) && l > R::ONE {
                -(l - R::TWO * l.ln()).max(R::ZERO).sqrt()
            } else {
                R::HALF * lo
            };
            (lo, R::ZERO, guess)
        } else {
            // max(u, 0) ≤ h(u) ≤ max(u, 0) + φ(0).
            let r = log_r.exp();
            if r >= cst(10.0) {
                // h(u) − u = h(−u) < 1e-23 here: u = r to within rounding in either precision.
                return Root::Found(r);
            }
            ((r - inv_sqrt_2pi).max(R::ZERO), r, r)
        };
        if !(u > lo && u < hi) {
            u = R::HALF * (lo + hi);
        }
        Root::Searching { log_r, lo, hi, u }
    }

    /// One Newton step from `ln h` and its slope at the current guess (a bisection step where
    /// Newton leaves the bracket).
    fn step(&mut self, value: R, slope: R) {
        let Root::Searching { log_r, lo, hi, u } = self else {
            return;
        };
        let residual = value - *log_r;
        if residual == R::ZERO {
            *self = Root::Found(*u);
            return;
        }
        if residual > R::ZERO {
            *hi = *u;
        } else {
            *lo = *u;
        }
        let newton = *u - residual / slope;
        let next = if newton > *lo && newton < *hi {
            newton
        } else {
            R::HALF * (*lo + *hi)
        };
        let step = (next - *u).abs();
        *u = next;
        let tolerance = R::EPSILON;
        if step <= tolerance * u.abs().max(R::ONE) || *hi - *lo <= tolerance * u.abs().max(R::ONE) {
            *self = Root::Found(next);
        }
    }

    /// The root found, or the last guess when the iterations ran out.
    fn value(self) -> R {
        match self {
            Root::Found(u) | Root::Searching { u, .. } => u,
        }
    }
}

/// Why an expected-improvement quantity could not be computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImprovementError {
    /// An argument was NaN, or infinite where a finite value is required.
    NonFinite,
    /// The standard deviation was negative.
    NegativeStd,
    /// The standard deviation was zero or negative where a positive one is required (max-value
    /// entropy).
    NonPositiveStd,
    /// The price `λ·c` of a Gittins index was zero or negative.
    NonPositivePrice,
    /// A mixture had no component, or its means and standard deviations differ in number.
    BadMixture,
}

impl core::fmt::Display for ImprovementError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::NonFinite => "an argument is NaN, or infinite where a finite value is required",
            Self::NegativeStd => "the standard deviation is negative",
            Self::NonPositiveStd => "the standard deviation is not positive",
            Self::NonPositivePrice => "the price lambda*c of a gittins index is zero or negative",
            Self::BadMixture => {
                "the mixture has no component, or its means and standard deviations differ in \
                 number"
            }
        })
    }
}

impl core::error::Error for ImprovementError {}

/// Expected improvement `E[max(f − best, 0)]` of `f ~ N(mean, std²)`: `std·h((mean − best)/std)`,
/// or `max(mean − best, 0)` when `std = 0`.
pub fn expected_improvement<R: Real>(mean: R, std: R, best: R) -> Result<R, ImprovementError> {
    check(mean, std, best)?;
    if std == R::ZERO {
        return Ok((mean - best).max(R::ZERO));
    }
    let u = (mean - best) / std;
    // A std so small that `u` overflows (a subnormal std): EI is the gain itself, or 0, to
    // full precision; `std · h(±∞)` would be ∞·0.
    if !u.is_finite() {
        return Ok((mean - best).max(R::ZERO));
    }
    Ok(std * h(u))
}

/// `ln EI` (LogEI, Ament et al. 2023): `ln h(u) + ln σ` with `u = (mean − best)/std`, to full
/// relative precision however small EI is (it underflows at `u ≈ −38.5` in `f64`; its log
/// does not). With `std = 0`: `ln(mean − best)`, `−∞` when `mean ≤ best`.
pub fn log_expected_improvement<R: Real>(mean: R, std: R, best: R) -> Result<R, ImprovementError> {
    check(mean, std, best)?;
    let gain = mean - best;
    // `mean − best` of two finite numbers overflows only past the largest finite number; half
    // of it never does, so the log is taken of the half (`ln 2` added back).
    let ln_gain = || {
        if gain.is_finite() {
            gain.ln()
        } else {
            (mean * cst::<R>(0.5) - best * cst::<R>(0.5)).ln() + cst::<R>(core::f64::consts::LN_2)
        }
    };
    if std == R::ZERO {
        return Ok(if gain > R::ZERO {
            ln_gain()
        } else {
            -R::INFINITY
        });
    }
    let u = if gain.is_finite() {
        gain / std
    } else {
        (mean * cst::<R>(0.5) - best * cst::<R>(0.5)) / std * cst::<R>(2.0)
    };
    if u.is_finite() {
        // Where EI itself is a normal number, its log is as precise as EI (a few ulps
        // relative); the sum ln h + ln σ would add the rounding of two logs of opposite sign.
        if u > -cst::<R>(8.0) {
            let ei = std * h(u);
            if ei.is_finite() && ei >= R::MIN_POSITIVE {
                return Ok(ei.ln());
            }
        }
        return Ok(log_h(u) + std.ln());
    }
    // σ so small that u overflows: EI = max(mean − best, 0) to within h(−|u|)·σ.
    Ok(if u > R::ZERO { ln_gain() } else { -R::INFINITY })
}

/// The Pandora's Box Gittins index of `f ~ N(mean, std²)` at price `price = λ·c(x) > 0`
/// (paper 002, Eq. 6): the `g` with `EI(g) = price`, i.e. `mean − std·u*` with
/// `h(u*) = price/std`; `mean − price` when `std = 0` (also the limit as `std → 0`).
///
/// Solved in log space (`ln h(u*) = ln price − ln std`), so that any pair that `f64` (or
/// `f32`) can represent gives the index to a few ulps of `u*`; the last step is one fused
/// multiply–add.
pub fn gittins_index<R: Real>(mean: R, std: R, price: R) -> Result<R, ImprovementError> {
    Ok(gittins_index_with_root(mean, std, price)?.0)
}

/// [`gittins_index`] and the root `u*` it came from (`+∞` when `std = 0`), which the index's
/// gradient needs (`acquisition::improvement::gittins_index_gradient`).
pub fn gittins_index_with_root<R: Real>(
    mean: R,
    std: R,
    price: R,
) -> Result<(R, R), ImprovementError> {
    check(mean, std, price)?;
    if price <= R::ZERO {
        return Err(ImprovementError::NonPositivePrice);
    }
    Ok(index_at(mean, std, price.ln(), price))
}

/// [`gittins_index_with_root`] with the price given by its logarithm `ln(λ·c)`, which stays
/// representable when `λ` has been halved hundreds of times (PBGI-D) or in `f32`.
pub fn gittins_index_from_log_price<R: Real>(
    mean: R,
    std: R,
    log_price: R,
) -> Result<(R, R), ImprovementError> {
    check(mean, std, log_price)?;
    Ok(index_at(mean, std, log_price, log_price.exp()))
}

/// [`gittins_index_from_log_price`] at `L` points at once, bit for bit: the roots of the
/// points with `σ > 0` are found together ([`log_h_inverse_many`]).
pub fn gittins_index_from_log_price_many<R: Real, const L: usize>(
    mean: [R; L],
    std: [R; L],
    log_price: [R; L],
) -> [Result<(R, R), ImprovementError>; L] {
    let checked: [Result<(), ImprovementError>; L] =
        core::array::from_fn(|i| check(mean[i], std[i], log_price[i]));
    let log_r: [R; L] = core::array::from_fn(|i| {
        if checked[i].is_ok() && std[i] != R::ZERO {
            log_price[i] - std[i].ln()
        } else {
            -R::INFINITY
        }
    });
    let roots = log_h_inverse_many(log_r);
    core::array::from_fn(|i| {
        checked[i]?;
        Ok(index_from_root(
            mean[i],
            std[i],
            log_price[i].exp(),
            roots[i],
        ))
    })
}

/// The index and its root from validated arguments, `price = e^{log_price}`.
fn index_at<R: Real>(mean: R, std: R, log_price: R, price: R) -> (R, R) {
    if std == R::ZERO {
        return (mean - price, R::INFINITY);
    }
    index_from_root(mean, std, price, log_h_inverse(log_price - std.ln()))
}

/// The index from its root `u = h⁻¹(price/σ)` (any `u` when `σ = 0`).
fn index_from_root<R: Real>(mean: R, std: R, price: R, u: R) -> (R, R) {
    if std == R::ZERO {
        return (mean - price, R::INFINITY);
    }
    if u >= cst(10.0) {
        // u = price/std exactly enough; mean − price avoids rounding std·(price/std).
        return (mean - price, u);
    }
    ((-std).mul_add(u, mean), u)
}

/// Finite arguments and a non-negative standard deviation.
pub(super) fn check<R: Real>(mean: R, std: R, other: R) -> Result<(), ImprovementError> {
    if !(mean.is_finite() && std.is_finite() && other.is_finite()) {
        return Err(ImprovementError::NonFinite);
    }
    if std < R::ZERO {
        return Err(ImprovementError::NegativeStd);
    }
    Ok(())
}

/// The Pandora's Box Gittins index of an equal-weight mixture of normals: the `g` with
/// `(1/S) Σₛ EI(μₛ, σₛ; g) = e^{log_price}`, and what its gradient needs ([`MixtureIndex`]).
///
/// This is the index of a control set that leaves variables to chance (issue 20's Gittins rule
/// for control sets): the outcome of playing the set at `x` is the posterior at `[x, Xₛ]` for a
/// random `Xₛ`, a mixture over the bank's points, and its expected improvement over `g` is the
/// mixture's. With one component it is [`gittins_index`].
///
/// The left side is decreasing in `g`; its logarithm is solved by Newton's method inside the
/// bracket `[mean(μ) − price, maxₛ gₛ]` (the mean's EI is at least `mean(μ) − g`; each
/// component's EI is at most the price at its own index `gₛ`), with a bisection step whenever
/// Newton leaves it, from the right end, where the logarithm of one component is concave and
/// Newton approaches monotonically. Components are combined in log space (log-sum-exp), so EI
/// values that underflow, deep in the tails, still count in proportion. `σₛ = 0` is allowed (EI
/// is then `max(μₛ − g, 0)`).
///
/// Errors: [`ImprovementError::BadMixture`] for no component or slices of different lengths,
/// [`ImprovementError::NonFinite`], [`ImprovementError::NegativeStd`].
pub fn mixture_gittins_index<R: Real>(
    means: &[R],
    stds: &[R],
    log_price: R,
) -> Result<MixtureIndex<R>, ImprovementError> {
    if means.is_empty() || means.len() != stds.len() {
        return Err(ImprovementError::BadMixture);
    }
    for (&m, &sd) in means.iter().zip(stds) {
        check(m, sd, log_price)?;
    }
    let price = log_price.exp();
    let n = R::from_usize(means.len());
    let mean_mu = means.iter().fold(R::ZERO, |a, &m| a + m) / n;
    let mut lo = mean_mu - price;
    let mut hi = -R::INFINITY;
    for (&m, &sd) in means.iter().zip(stds) {
        hi = hi.max(index_at(m, sd, log_price, price).0);
    }
    // Rounding may leave the single-component indices a hair below the bracket's left end.
    if hi < lo {
        core::mem::swap(&mut lo, &mut hi);
    }
    let target = log_price + n.ln();
    let mut g = hi;
    let tolerance = R::EPSILON;
    let max_iterations = if R::EPSILON < cst(1e-10) { 100 } else { 60 };
    for _ in 0..max_iterations {
        let (log_sum, slope) = log_sum_ei(means, stds, g);
        let residual = log_sum - target;
        if residual == R::ZERO {
            break;
        }
        // The sum decreases in g: a positive residual puts g left of the root.
        if residual > R::ZERO {
            lo = g;
        } else {
            hi = g;
        }
        let newton = g - residual / slope;
        let next = if newton > lo && newton < hi && newton.is_finite() {
            newton
        } else {
            R::HALF * (lo + hi)
        };
        let step = (next - g).abs();
        g = next;
        let scale = g.abs().max(R::ONE);
        if step <= tolerance * scale || hi - lo <= tolerance * scale {
            break;
        }
    }
    let mut log_total = -R::INFINITY;
    for (&m, &sd) in means.iter().zip(stds) {
        log_total = log_add(log_total, log_cdf_at(m, sd, g));
    }
    Ok(MixtureIndex {
        index: g,
        log_total_cdf: log_total,
    })
}

/// The index of a mixture ([`mixture_gittins_index`]) and the normaliser of its sensitivities.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MixtureIndex<R> {
    /// The index `g`.
    pub index: R,
    /// `ln Σₛ Φ((μₛ − g)/σₛ)`: minus the derivative of the mixture's summed EI in `g`, in logs.
    log_total_cdf: R,
}

impl<R: Real> MixtureIndex<R> {
    /// `(∂g/∂μₛ, ∂g/∂σₛ)` for the component `(mean, std)`, by the implicit function theorem:
    /// `Φ(uₛ)/Σ Φ` and `φ(uₛ)/Σ Φ` with `uₛ = (μₛ − g)/σₛ`. The `∂g/∂μₛ` sum to one over the
    /// components (shifting every mean shifts the index).
    pub fn sensitivity(&self, mean: R, std: R) -> (R, R) {
        let g = self.index;
        let d_mean = (log_cdf_at(mean, std, g) - self.log_total_cdf).exp();
        if std == R::ZERO {
            return (d_mean, R::ZERO);
        }
        let u = (mean - g) / std;
        // φ/Φ: directly where Φ ≥ ½, as 1/(d ln h/du) − u = K₁(−u) + (−u) below, which
        // neither cancels nor underflows.
        let pdf_over_cdf = if u >= R::ZERO {
            super::normal::normal_pdf(u) / normal_cdf(u)
        } else {
            R::ONE / log_h_slope(u) - u
        };
        (d_mean, d_mean * pdf_over_cdf)
    }
}

/// `ln Σₛ EI(μₛ, σₛ; g)` and its derivative in `g`, `−Σ Φₛ / Σ EIₛ`, in one pass of
/// log-sum-exp (the sums are kept relative to the largest term seen so far).
fn log_sum_ei<R: Real>(means: &[R], stds: &[R], g: R) -> (R, R) {
    let mut largest = -R::INFINITY;
    // Σ EIₛ and Σ EIₛ·(d ln EIₛ/dg), both divided by e^{largest}.
    let (mut sum, mut slope_sum) = (R::ZERO, R::ZERO);
    for (&m, &sd) in means.iter().zip(stds) {
        let (log_ei, slope) = if sd == R::ZERO {
            if m <= g {
                continue;
            }
            ((m - g).ln(), -R::ONE / (m - g))
        } else {
            let (lh, sl) = log_h_with_slope((m - g) / sd);
            (lh + sd.ln(), -sl / sd)
        };
        if log_ei == -R::INFINITY {
            continue;
        }
        if log_ei > largest {
            let shrink = (largest - log_ei).exp();
            sum = sum * shrink + R::ONE;
            slope_sum = slope_sum * shrink + slope;
            largest = log_ei;
        } else {
            let w = (log_ei - largest).exp();
            sum += w;
            slope_sum += w * slope;
        }
    }
    if largest == -R::INFINITY {
        // Every component is certain to stay below g: the sum is 0 and falls no further.
        return (-R::INFINITY, R::ZERO);
    }
    (largest + sum.ln(), slope_sum / sum)
}

/// `ln Φ((μ − g)/σ)` (`ln 1` or `−∞` when `σ = 0`), from `ln Φ = ln h + ln(Φ/h)`, which stays
/// finite where Φ underflows.
fn log_cdf_at<R: Real>(mean: R, std: R, g: R) -> R {
    if std == R::ZERO {
        return if mean > g { R::ZERO } else { -R::INFINITY };
    }
    let (lh, slope) = log_h_with_slope((mean - g) / std);
    lh + slope.ln()
}

/// `ln(eᵃ + eᵇ)`.
fn log_add<R: Real>(a: R, b: R) -> R {
    let (big, small) = if a >= b { (a, b) } else { (b, a) };
    if small == -R::INFINITY {
        return big;
    }
    big + (small - big).exp().ln_1p()
}
