//! The normal distribution truncated to an interval, accurate however far into a tail the
//! interval lies or however short it is.

use super::{kernel_args_ok, DistError};
use crate::real::Real;
use crate::special::normal::{
    exp_neg_half_sq, mills, normal_cdf, normal_pdf, normal_quantile, normal_sf, FRAC_1_SQRT_2,
    LN_SQRT_2PI,
};
use crate::special::quadrature::gauss_legendre;
use crate::special::{cst, is_nan, nan};

/// `P(a < Z < b)` for a standard normal `Z` and `a < 0 < b`: the two error functions have
/// opposite signs, so the difference is a sum and keeps its relative accuracy.
#[inline]
fn straddle_mass<R: Real>(a: R, b: R) -> R {
    let s = cst::<R>(FRAC_1_SQRT_2);
    R::HALF * ((b * s).erf() - (a * s).erf())
}

/// Whether `exp(−a t − t²/2)` on `t ∈ [0, y]` is tame enough for the 16-point rule to be exact
/// to rounding: width at most 4 and log-density varying by at most 10 (checked against
/// 40-digit quadrature; the error there is below 1e-17).
fn quadrature_suffices<R: Real>(a: R, y: R) -> bool {
    let short = y <= cst(4.0);
    if !short {
        return false;
    }
    let end = -y * (a + R::HALF * y);
    let peak = if a < R::ZERO && -a < y {
        R::HALF * a * a
    } else {
        end.max(R::ZERO)
    };
    peak - end.min(R::ZERO) <= cst(10.0)
}

/// `I(a, y) = ∫₀ʸ exp(−a t − t²/2) dt`: the normal mass of `[a, a + y]` divided by `φ(a)`.
///
/// Exact to rounding in relative terms (no underflow however large `a`) for `a ≥ 0`; for
/// `a < 0` as long as `φ(a)` does not underflow.
fn scaled_mass<R: Real>(a: R, y: R) -> R {
    let positive = y > R::ZERO;
    if !positive {
        return R::ZERO;
    }
    if quadrature_suffices(a, y) {
        let mut s = R::ZERO;
        for (t, q) in gauss_legendre(R::ZERO, y) {
            s += q * (-t * (a + R::HALF * t)).exp();
        }
        s
    } else if a >= R::ZERO {
        // M(a) − e^{−y(a + y/2)} M(a + y); the second term is at most 6e-5 of the first here
        // (y > 4 or a log-density drop above 10), so nothing cancels.
        mills(a).m - (-y * (a + R::HALF * y)).exp() * mills(a + y).m
    } else {
        // Reached only when refining quantiles near a bound of an interval that straddles the
        // location. Here y > 4 or the log-density rises by more than 10 across [a, a + y], so
        // either the interval straddles 0 or Φ(a + y) exceeds Φ(a) by a factor above e⁸: the
        // difference does not cancel.
        let b = a + y;
        let mass = if b <= R::ZERO {
            normal_cdf(b) - normal_cdf(a)
        } else {
            straddle_mass(a, b)
        };
        mass / normal_pdf(a)
    }
}

/// `ln P(a < Z < a + w)` for a standard normal `Z`, without underflow. The width is passed
/// separately because recomputing it from two rounded bounds would lose its relative accuracy
/// on short intervals.
pub(super) fn ln_normal_mass<R: Real>(a: R, w: R) -> R {
    let ln_sqrt_2pi = cst::<R>(LN_SQRT_2PI);
    let b = a + w;
    if a >= R::ZERO {
        -R::HALF * a * a - ln_sqrt_2pi + scaled_mass(a, w).ln()
    } else if b <= R::ZERO {
        -R::HALF * b * b - ln_sqrt_2pi + scaled_mass(-b, w).ln()
    } else {
        straddle_mass(a, b).ln()
    }
}

/// Mass, mean and variance of a standardised truncated normal, in the coordinates of its
/// [`Side`]: the excess over the nearest bound for one-sided intervals, `z` itself otherwise.
#[derive(Debug, Clone, Copy)]
struct Moments<R> {
    mass: R,
    mean: R,
    var: R,
}

/// Moments of the excess `Y ∈ [0, w]` with density `∝ exp(−a y − y²/2)`, `a ≥ 0`; `mass` is
/// `I(a, w)`.
fn one_sided_moments<R: Real>(a: R, w: R) -> Moments<R> {
    if quadrature_suffices(a, w) {
        // Central moments straight from the rule: no cancellation on short intervals.
        let pts = gauss_legendre(R::ZERO, w);
        let mut g = [R::ZERO; 16];
        let (mut s0, mut s1) = (R::ZERO, R::ZERO);
        for (gi, &(t, q)) in g.iter_mut().zip(pts.iter()) {
            *gi = q * (-t * (a + R::HALF * t)).exp();
            s0 += *gi;
            s1 += *gi * t;
        }
        let mean = s1 / s0;
        let mut s2 = R::ZERO;
        for (gi, &(t, _)) in g.iter().zip(pts.iter()) {
            s2 += *gi * (t - mean).sq();
        }
        return Moments {
            mass: s0,
            mean,
            var: s2 / s0,
        };
    }
    // Untruncated excess beyond a (mean K₁, variance K₁(K₂ − K₁)) minus the part beyond
    // b = a + w, which carries the fraction r = Q(b)/Q(a) ≤ 6e-5 of the mass in this branch.
    let ma = mills(a);
    let mb = mills(a + w);
    let r = (-w * (a + R::HALF * w)).exp() * mb.m / ma.m;
    let one_r = R::ONE - r;
    let lead = ma.k1 * (ma.k2 - ma.k1);
    let (mean, var) = if r > R::ZERO {
        let s = mb.k1 + w;
        let p = mb.k1 * mb.k2 + w * (R::TWO * mb.k1 + w);
        let num =
            lead - r * (p + ma.k1 * ma.k2 - R::TWO * ma.k1 * s) + r * r * mb.k1 * (mb.k2 - mb.k1);
        ((ma.k1 - r * s) / one_r, num / one_r.sq())
    } else {
        // Skipping the correction also avoids 0·∞ when w is huge.
        (ma.k1, lead)
    };
    Moments {
        mass: ma.m * one_r,
        mean,
        var,
    }
}

/// Moments of `Z` on `[alpha, alpha + w]` with `alpha < 0 < alpha + w`; `mass` is `P(α < Z < β)`.
fn straddle_moments<R: Real>(alpha: R, beta: R, w: R) -> Moments<R> {
    let mass = straddle_mass(alpha, beta);
    if w <= cst(4.0) {
        let pts = gauss_legendre(alpha, w);
        let mut g = [R::ZERO; 16];
        let (mut s0, mut s1) = (R::ZERO, R::ZERO);
        for (gi, &(z, q)) in g.iter_mut().zip(pts.iter()) {
            *gi = q * exp_neg_half_sq(z);
            s0 += *gi;
            s1 += *gi * z;
        }
        let mean = s1 / s0;
        let mut s2 = R::ZERO;
        for (gi, &(z, _)) in g.iter().zip(pts.iter()) {
            s2 += *gi * (z - mean).sq();
        }
        return Moments {
            mass,
            mean,
            var: s2 / s0,
        };
    }
    // Wide interval around the mode: the classical closed forms, whose terms are all O(1)
    // here (the variance is at least 0.36 and the mean at most 0.8).
    let (pa, pb) = (normal_pdf(alpha), normal_pdf(beta));
    let mean = (pa - pb) / mass;
    let var = R::ONE + (alpha * pa - beta * pb) / mass - mean * mean;
    Moments { mass, mean, var }
}

/// Solves `F(y) = u` (equivalently `1 − F(y) = v`) for the excess `y ∈ [0, w]` with density
/// `∝ exp(−a y − y²/2)`, whose total scaled mass has logarithm `ln_total`.
///
/// Newton's method on `ln F` (for `u ≤ ½`) or `ln(1 − F)` (otherwise): both are concave because
/// the density is log-concave, so Newton converges monotonically after at most one overshoot;
/// a bisection safeguard keeps every iterate inside the bracket, and working in logarithms
/// keeps the relative accuracy of tiny tail probabilities.
fn solve_excess<R: Real>(a: R, w: R, u: R, v: R, ln_total: R, guess: R) -> R {
    let lower = u <= R::HALF;
    let target = if lower { u.ln() } else { v.ln() };
    let (mut lo, mut hi) = (R::ZERO, w);
    // Without a usable guess, the first-order one near 0 (F(y) ≈ y/I(a, w) when the density is
    // flat at 0) for small u, the middle otherwise.
    let linear = u * ln_total.exp();
    let y0 = if guess > R::ZERO && guess < w {
        guess
    } else if lower && linear > R::ZERO && linear < w {
        linear
    } else {
        R::HALF * w
    };
    let mut y = y0;
    let tol = cst::<R>(4.0) * R::EPSILON;
    for _ in 0..100 {
        // `res` increases with y in both forms; `slope` is its derivative.
        let (res, slope) = if lower {
            let m = scaled_mass(a, y);
            let g = (-y * (a + R::HALF * y)).exp();
            (m.ln() - ln_total - target, g / m)
        } else {
            let m = scaled_mass(a + y, w - y);
            (
                target - (m.ln() - y * (a + R::HALF * y) - ln_total),
                R::ONE / m,
            )
        };
        if res == R::ZERO {
            return y;
        }
        if res > R::ZERO {
            hi = y;
        } else {
            lo = y;
        }
        let mut next = y - res / slope;
        if !(next > lo && next < hi) && lower {
            // Near 0, F(y) ∝ y, so ln F is linear in ln y: this step crosses many orders of
            // magnitude at once where bisection would crawl.
            next = y * (-res).exp();
        }
        if !(next > lo && next < hi) {
            next = lo + R::HALF * (hi - lo);
        }
        // Newton converges quadratically, so once a step is down to a few ulps the next
        // iterate is as good as the residual's rounding allows.
        if (next - y).abs() <= tol * next || hi - lo <= tol * hi {
            return next;
        }
        y = next;
    }
    y
}

/// Initial guess for [`solve_excess`] on a one-sided interval (`a ≥ 0`).
fn one_sided_guess<R: Real>(a: R, w: R, u: R, v: R) -> R {
    if a <= cst(8.0) {
        // Inverse CDF through the upper tail, Q(z) = v Q(a) + u Q(a + w): a sum of positive
        // terms, accurate unless Q(a) approaches underflow (it is above 6e-16 here).
        let q = v * normal_sf(a) + u * normal_sf(a + w);
        -normal_quantile(q) - a
    } else {
        // Far in the tail the excess is nearly exponential with rate 1/M(a).
        let h = a + mills(a).k1;
        -(u * (-h * w).exp_m1()).ln_1p() / h
    }
}

// ---------------------------------------------------------------------------------------------
// Truncated normal
// ---------------------------------------------------------------------------------------------

/// Where the truncation interval lies relative to the location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// `lo ≥ loc`: computed through the excess over `lo`.
    Above,
    /// `hi ≤ loc`: computed through the excess below `hi`.
    Below,
    /// `lo < loc < hi`.
    Straddle,
}

/// The standardised geometry of a truncated normal.
#[derive(Debug, Clone, Copy)]
struct Standardised<R> {
    side: Side,
    alpha: R,
    beta: R,
    /// `(hi − lo)/scale`, computed directly rather than as `β − α`.
    width: R,
}

impl<R: Real> Standardised<R> {
    fn new(loc: R, scale: R, lo: R, hi: R) -> Option<Self> {
        let alpha = (lo - loc) / scale;
        let beta = (hi - loc) / scale;
        let width = (hi - lo) / scale;
        if !(alpha.is_finite() && beta.is_finite() && width.is_finite() && width > R::ZERO) {
            return None;
        }
        let side = if alpha >= R::ZERO {
            Side::Above
        } else if beta <= R::ZERO {
            Side::Below
        } else {
            Side::Straddle
        };
        Some(Standardised {
            side,
            alpha,
            beta,
            width,
        })
    }

    /// Standardised distance from the location to the nearest bound (one-sided intervals).
    fn edge(&self) -> R {
        match self.side {
            Side::Below => -self.beta,
            _ => self.alpha,
        }
    }

    fn moments(&self) -> Moments<R> {
        match self.side {
            Side::Straddle => straddle_moments(self.alpha, self.beta, self.width),
            _ => one_sided_moments(self.edge(), self.width),
        }
    }
}

/// A normal distribution with location `loc` and scale `scale`, truncated to `[lo, hi]`.
///
/// Sampling is by inverse CDF, `Φ⁻¹(Φ(α) + u (Φ(β) − Φ(α)))·scale + loc` in the paper's notation,
/// but evaluated so that it stays accurate when the interval lies far in a tail (where `Φ(α)`
/// and `Φ(β)` round to the same number or underflow) or is very short.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TruncatedNormal<R> {
    pub(super) loc: R,
    pub(super) scale: R,
    pub(super) lo: R,
    pub(super) hi: R,
    side: Side,
    alpha: R,
    beta: R,
    width: R,
    /// `Φ(α)` and `Q(β)`: the untruncated mass cut off on each side (straddling case).
    cut_lo: R,
    cut_hi: R,
    /// Straddling: `P(α < Z < β)`. One-sided: the scaled mass `I(a, width)`.
    norm: R,
    mean: R,
    variance: R,
}

impl<R: Real> TruncatedNormal<R> {
    /// A normal with location `loc` and scale `scale > 0` truncated to `[lo, hi]`, `lo < hi`.
    ///
    /// The location may lie outside the interval. Fails with [`DistError::Degenerate`] when
    /// the interval is so far into a tail or so narrow relative to `scale` that the moments
    /// cannot be represented.
    pub fn new(loc: R, scale: R, lo: R, hi: R) -> Result<Self, DistError> {
        if !(loc.is_finite() && scale.is_finite() && lo.is_finite() && hi.is_finite()) {
            return Err(DistError::NonFinite);
        }
        let positive = scale > R::ZERO;
        if !positive {
            return Err(DistError::NonPositiveScale);
        }
        let ordered = lo < hi;
        if !ordered {
            return Err(DistError::EmptyInterval);
        }
        if !(hi - lo).is_finite() {
            return Err(DistError::NonFinite);
        }
        let st = Standardised::new(loc, scale, lo, hi).ok_or(DistError::Degenerate)?;
        let m = st.moments();
        let mean = match st.side {
            Side::Above => lo + scale * m.mean,
            Side::Below => hi - scale * m.mean,
            Side::Straddle => loc + scale * m.mean,
        };
        let variance = scale * scale * m.var;
        if !(mean.is_finite()
            && variance.is_finite()
            && variance > R::ZERO
            && m.mass > R::ZERO
            && m.mass.is_finite()
            && mean >= lo
            && mean <= hi)
        {
            return Err(DistError::Degenerate);
        }
        Ok(TruncatedNormal {
            loc,
            scale,
            lo,
            hi,
            side: st.side,
            alpha: st.alpha,
            beta: st.beta,
            width: st.width,
            cut_lo: normal_cdf(st.alpha),
            cut_hi: normal_sf(st.beta),
            norm: m.mass,
            mean,
            variance: variance.min(cst::<R>(1.0 / 12.0) * (hi - lo).sq()),
        })
    }

    /// The normal with location `loc` truncated to `[lo, hi]` whose scale is chosen so that the
    /// *truncated* variance equals `target_variance` (the construction of the paper's
    /// experiments).
    ///
    /// The truncated variance grows with the scale from 0 towards the uniform variance
    /// `(hi − lo)²/12` (monotonically for every location we checked, centred or not), so the
    /// scale is bracketed by doubling/halving and then bisected until the bracket cannot
    /// shrink: to the last ulp of the scale, which puts the variance within a few ulps of the
    /// target. Fails with [`DistError::VarianceUnachievable`] unless
    /// `0 < target_variance < (hi − lo)²/12` (and when the target is so close to the limit that
    /// the floating-point type cannot resolve the difference).
    pub fn with_truncated_variance(
        loc: R,
        target_variance: R,
        lo: R,
        hi: R,
    ) -> Result<Self, DistError> {
        if !(loc.is_finite() && target_variance.is_finite() && lo.is_finite() && hi.is_finite()) {
            return Err(DistError::NonFinite);
        }
        let ordered = lo < hi;
        if !ordered {
            return Err(DistError::EmptyInterval);
        }
        let width = hi - lo;
        if !width.is_finite() {
            return Err(DistError::NonFinite);
        }
        let limit = cst::<R>(1.0 / 12.0) * width * width;
        if !(target_variance > R::ZERO && target_variance < limit) {
            return Err(DistError::VarianceUnachievable);
        }
        // Truncated variance at scale s; degenerate scales (only tiny ones can be) count as
        // below any target.
        let var_at = |s: R| -> Option<R> {
            let st = Standardised::new(loc, s, lo, hi)?;
            let v = s * s * st.moments().var;
            if v.is_finite() {
                Some(v)
            } else {
                None
            }
        };
        let below = |s: R| match var_at(s) {
            Some(v) => v < target_variance,
            None => true,
        };
        // Bracket [s_lo, s_hi] with V(s_lo) < target ≤ V(s_hi).
        let mut s_hi = width;
        let mut grown = 0;
        while below(s_hi) {
            s_hi *= R::TWO;
            grown += 1;
            if grown > 300 || !s_hi.is_finite() {
                return Err(DistError::VarianceUnachievable);
            }
        }
        let mut s_lo = R::HALF * s_hi;
        let mut shrunk = 0;
        while !below(s_lo) {
            s_hi = s_lo;
            s_lo *= R::HALF;
            shrunk += 1;
            let positive = s_lo > R::ZERO;
            if shrunk > 1100 || !positive {
                return Err(DistError::VarianceUnachievable);
            }
        }
        for _ in 0..300 {
            let mid = s_lo + R::HALF * (s_hi - s_lo);
            if !(mid > s_lo && mid < s_hi) {
                break;
            }
            if below(mid) {
                s_lo = mid;
            } else {
                s_hi = mid;
            }
        }
        // Both ends are within an ulp; keep the one whose variance is closer to the target.
        let err = |s: R| match var_at(s) {
            Some(v) => (v - target_variance).abs(),
            None => R::INFINITY,
        };
        let s = if err(s_lo) < err(s_hi) { s_lo } else { s_hi };
        Self::new(loc, s, lo, hi).map_err(|_| DistError::VarianceUnachievable)
    }

    /// Location of the untruncated normal.
    pub fn loc(&self) -> R {
        self.loc
    }

    /// Scale (standard deviation) of the untruncated normal.
    pub fn scale(&self) -> R {
        self.scale
    }

    /// Lower truncation bound.
    pub fn lo(&self) -> R {
        self.lo
    }

    /// Upper truncation bound.
    pub fn hi(&self) -> R {
        self.hi
    }

    /// Mean of the truncated distribution.
    pub fn mean(&self) -> R {
        self.mean
    }

    /// Variance of the truncated distribution.
    pub fn variance(&self) -> R {
        self.variance
    }

    /// One-sided intervals: standardised distance `a ≥ 0` from the location to the nearest
    /// bound.
    fn edge(&self) -> R {
        match self.side {
            Side::Below => -self.beta,
            _ => self.alpha,
        }
    }

    /// Density at `x` (0 outside `[lo, hi]`).
    pub fn pdf(&self, x: R) -> R {
        if is_nan(x) {
            return x;
        }
        if x < self.lo || x > self.hi {
            return R::ZERO;
        }
        let a = self.edge();
        match self.side {
            Side::Above => {
                let y = (x - self.lo) / self.scale;
                (-y * (a + R::HALF * y)).exp() / (self.scale * self.norm)
            }
            Side::Below => {
                let y = (self.hi - x) / self.scale;
                (-y * (a + R::HALF * y)).exp() / (self.scale * self.norm)
            }
            Side::Straddle => normal_pdf((x - self.loc) / self.scale) / (self.scale * self.norm),
        }
    }

    /// Cumulative distribution function `P(X ≤ x)`: 0 below `lo`, 1 above `hi`, NaN for NaN.
    ///
    /// Relative accuracy is kept for small probabilities (the lower tail of the truncated
    /// distribution), absolute accuracy everywhere.
    pub fn cdf(&self, x: R) -> R {
        if is_nan(x) {
            return x;
        }
        if x <= self.lo {
            return R::ZERO;
        }
        if x >= self.hi {
            return R::ONE;
        }
        let a = self.edge();
        let p = match self.side {
            Side::Above => scaled_mass(a, (x - self.lo) / self.scale) / self.norm,
            Side::Below => {
                // Mass between x and hi, as a fraction; its complement is the CDF.
                let y = (self.hi - x) / self.scale;
                let upper = scaled_mass(a, y) / self.norm;
                if upper <= R::HALF {
                    R::ONE - upper
                } else {
                    (-y * (a + R::HALF * y)).exp() * scaled_mass(a + y, self.width - y) / self.norm
                }
            }
            Side::Straddle => {
                let z = (x - self.loc) / self.scale;
                if z <= R::ZERO {
                    normal_pdf(z) * scaled_mass(-z, (x - self.lo) / self.scale) / self.norm
                } else {
                    R::ONE - normal_pdf(z) * scaled_mass(z, (self.hi - x) / self.scale) / self.norm
                }
            }
        };
        p.clamp_to(R::ZERO, R::ONE)
    }

    /// Quantile (inverse CDF) at `u`: `lo` for `u ≤ 0`, `hi` for `u ≥ 1`, NaN for NaN; the
    /// result always lies in `[lo, hi]`.
    ///
    /// Intervals around the location use the paper's formula through whichever of `Φ` and
    /// `1 − Φ` is smaller. One-sided intervals solve for the excess over the nearest bound
    /// (see the module docs), so an interval 40 scales into the tail still gets samples spread
    /// over its whole range rather than collapsed onto a bound; short intervals are polished
    /// the same way so that the error is a fraction of the width, not of the scale.
    pub fn quantile(&self, u: R) -> R {
        if is_nan(u) {
            return u;
        }
        if u <= R::ZERO {
            return self.lo;
        }
        if u >= R::ONE {
            return self.hi;
        }
        let v = R::ONE - u;
        let w = self.width;
        let x = match self.side {
            Side::Straddle => {
                let p = v * self.cut_lo + u * (R::ONE - self.cut_hi);
                let q = v * (R::ONE - self.cut_lo) + u * self.cut_hi;
                let z = if p <= q {
                    normal_quantile(p)
                } else {
                    -normal_quantile(q)
                };
                // z carries an absolute error of a few ulps of max(|z|, 1). That is large
                // relative to the width on short intervals (nearly flat density), and relative
                // to the excess over a bound for tiny u; there, refine the excess over the
                // bound on the side of the smaller tail probability.
                let (from_lo, a, y0, p, q) = if u <= R::HALF {
                    (true, self.alpha, z - self.alpha, u, v)
                } else {
                    (false, -self.beta, self.beta - z, v, u)
                };
                if w < R::ONE || y0 < cst::<R>(1e-3) * a.abs().max(R::ONE) {
                    // ln I(a, w) = ln P(α < Z < β) − ln φ(a).
                    let ln_total = self.norm.ln() + R::HALF * a * a + cst::<R>(LN_SQRT_2PI);
                    let y = solve_excess(a, w, p, q, ln_total, y0);
                    if from_lo {
                        self.lo + self.scale * y
                    } else {
                        self.hi - self.scale * y
                    }
                } else {
                    self.loc + self.scale * z
                }
            }
            Side::Above => {
                let a = self.alpha;
                let guess = one_sided_guess(a, w, u, v);
                self.lo + self.scale * solve_excess(a, w, u, v, self.norm.ln(), guess)
            }
            Side::Below => {
                // Mirror image: the excess below hi has CDF 1 − F.
                let a = -self.beta;
                let guess = one_sided_guess(a, w, v, u);
                self.hi - self.scale * solve_excess(a, w, v, u, self.norm.ln(), guess)
            }
        };
        x.clamp_to(self.lo, self.hi)
    }

    /// A sample from one uniform number: `quantile(u)` (meant for `u ∈ (0, 1)`; the result is
    /// always in `[lo, hi]` unless `u` is NaN).
    pub fn sample(&self, u: R) -> R {
        self.quantile(u)
    }

    /// `E[exp(−(X − c)²/(2ℓ²))]` in closed form.
    ///
    /// The product of the kernel factor `f` and the normal density is a Gaussian with
    /// standardised mode `m = σd/(ℓ² + σ²)` (`d = c − loc`) and scale `σ/τ`,
    /// `τ = √(1 + σ²/ℓ²)`, so
    /// `E = exp(−d²/(2(ℓ² + σ²))) · P(τ(α − m) < Z < τ(β − m)) / (τ P(α < Z < β))`.
    /// That form subtracts exponents of order α²/2 when the interval lies in a tail, so it is
    /// evaluated relative to the point `x_r` of `[lo, hi]` where `f·p` peaks: `ln E` is then
    /// `ln f(x_r)` plus `ln p(x_r)/p(x_p)` (both ≤ 0, `x_p` the reference point of `p`) plus
    /// logarithms of scaled masses of moderate size, and the relative error stays a few ulps
    /// of `max(1, |ln E|)` however deep the tail.
    pub fn expected_gaussian_factor(&self, c: R, lengthscale: R) -> R {
        if !kernel_args_ok(c, lengthscale) {
            return nan();
        }
        if !lengthscale.is_finite() {
            return R::ONE;
        }
        let (sigma, w, alpha, beta) = (self.scale, self.width, self.alpha, self.beta);
        let l2 = lengthscale * lengthscale;
        let t2 = l2 + sigma * sigma;
        let tau = (t2 / l2).sqrt();
        let d = c - self.loc;
        let m = sigma * d / t2;
        let ln_sqrt_2pi = cst::<R>(LN_SQRT_2PI);
        // x_r − c, the position of x_r in scales of p from lo and from hi, and ln of the mass
        // of f·p relative to its value at x_r (in units of the product's scale σ/τ).
        let (diff, from_lo, from_hi, ln_product) = if m <= alpha {
            let mass = scaled_mass(tau * (alpha - m), tau * w);
            (self.lo - c, R::ZERO, w, mass.ln())
        } else if m >= beta {
            let mass = scaled_mass(tau * (m - beta), tau * w);
            (self.hi - c, w, R::ZERO, mass.ln())
        } else {
            let mass = straddle_mass(tau * (alpha - m), tau * (beta - m));
            (-d * l2 / t2, m - alpha, beta - m, ln_sqrt_2pi + mass.ln())
        };
        let ln_f = -R::HALF * (diff / lengthscale).sq();
        // ln p(x_r)/p(x_p) and ln of the mass of p relative to p(x_p), in units of σ.
        let (ln_ratio, ln_p) = match self.side {
            Side::Above => (-from_lo * (alpha + R::HALF * from_lo), self.norm.ln()),
            Side::Below => (-from_hi * (-beta + R::HALF * from_hi), self.norm.ln()),
            Side::Straddle => {
                let z = alpha + from_lo;
                (-R::HALF * z * z, ln_sqrt_2pi + self.norm.ln())
            }
        };
        (ln_f + ln_ratio + ln_product - ln_p - tau.ln())
            .exp()
            .clamp_to(R::ZERO, R::ONE)
    }
}
