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

use crate::real::Real;

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

// ---------------------------------------------------------------------------------------------
// Standard normal functions
// ---------------------------------------------------------------------------------------------

/// 1/√2.
const FRAC_1_SQRT_2: f64 = core::f64::consts::FRAC_1_SQRT_2;
/// 1/√(2π).
const FRAC_1_SQRT_2PI: f64 = 0.3989422804014327;
/// ln √(2π).
const LN_SQRT_2PI: f64 = 0.9189385332046728;

#[inline]
fn cst<R: Real>(v: f64) -> R {
    R::from_f64(v)
}

#[inline]
fn nan<R: Real>() -> R {
    R::from_f64(f64::NAN)
}

/// True for NaN, the only value unordered with itself.
#[inline]
fn is_nan<R: Real>(x: R) -> bool {
    x.partial_cmp(&x).is_none()
}

/// Whether `c` and `ℓ` are usable for a squared-exponential factor (`ℓ > 0`, neither NaN).
#[inline]
fn kernel_args_ok<R: Real>(c: R, lengthscale: R) -> bool {
    lengthscale > R::ZERO && !is_nan(c)
}

/// `exp(−x²/2)`, accurate to a few ulps even where `x²` is not representable exactly.
///
/// Rounding `x²` would cost a relative error of `x²·ε` (1e-13 at x = 30); splitting `x` into a
/// short head `h` (a multiple of 1/16, so `h²` is exact) and a tail keeps the exponent exact to
/// rounding.
fn exp_neg_half_sq<R: Real>(x: R) -> R {
    if !x.is_finite() {
        // ±∞ → 0, NaN → NaN.
        return if is_nan(x) { x } else { R::ZERO };
    }
    let sixteen = cst::<R>(16.0);
    let head = (x * sixteen).floor() / sixteen;
    let tail = x - head;
    (-R::HALF * head * head).exp() * (-R::HALF * tail * (x + head)).exp()
}

/// Standard normal density `φ(x)`.
pub fn normal_pdf<R: Real>(x: R) -> R {
    cst::<R>(FRAC_1_SQRT_2PI) * exp_neg_half_sq(x)
}

/// Standard normal CDF `Φ(x)`, accurate in relative terms in the lower tail (down to the
/// underflow threshold, x ≈ −37.5 in `f64`, −13 in `f32`) and in absolute terms everywhere.
///
/// `erfc(−x/√2)/2` for `x > −3`; below, `φ(x)·M(−x)` with the Mills ratio `M` from its
/// continued fraction, because rounding the argument `x/√2` alone would cost a relative error
/// of about `x²·ε` in the far tail (5e-14 at x = −37).
pub fn normal_cdf<R: Real>(x: R) -> R {
    if x <= cst(-3.0) {
        normal_pdf(x) * mills(-x).m
    } else {
        R::HALF * (-x * cst::<R>(FRAC_1_SQRT_2)).erfc()
    }
}

/// Standard normal upper tail `Q(x) = 1 − Φ(x) = Φ(−x)`, computed directly so that it keeps its
/// relative accuracy for large `x` (where `1 − Φ(x)` would round to zero).
pub fn normal_sf<R: Real>(x: R) -> R {
    if x >= cst(3.0) {
        normal_pdf(x) * mills(x).m
    } else {
        R::HALF * (x * cst::<R>(FRAC_1_SQRT_2)).erfc()
    }
}

/// Horner evaluation of `Σ cᵢ xⁱ` with coefficients in ascending order.
#[inline]
fn horner<R: Real>(x: R, coeffs: &[f64]) -> R {
    let mut acc = R::ZERO;
    for &c in coeffs.iter().rev() {
        acc = acc * x + R::from_f64(c);
    }
    acc
}

// Wichura (1988), Algorithm AS 241 (PPND16), Applied Statistics 37(3), 477–484. Coefficients
// in ascending powers; the central region |p − ½| ≤ 0.425 uses A/B in r = 0.180625 − q², the
// tails C/D in r = √(−ln p) − 1.6 (r ≤ 5) and E/F in r − 5 beyond.
const AS241_A: [f64; 8] = [
    3.3871328727963665,
    133.14166789178438,
    1971.5909503065513,
    13731.69376550946,
    45921.95393154987,
    67265.7709270087,
    33430.57558358813,
    2509.0809287301227,
];
const AS241_B: [f64; 8] = [
    1.0,
    42.31333070160091,
    687.1870074920579,
    5394.196021424751,
    21213.794301586597,
    39307.89580009271,
    28729.085735721943,
    5226.495278852854,
];
const AS241_C: [f64; 8] = [
    1.4234371107496835,
    4.630337846156546,
    5.769497221460691,
    3.6478483247632045,
    1.2704582524523684,
    0.2417807251774506,
    0.022723844989269184,
    0.0007745450142783414,
];
const AS241_D: [f64; 8] = [
    1.0,
    2.053191626637759,
    1.6763848301838038,
    0.6897673349851,
    0.14810397642748008,
    0.015198666563616457,
    0.0005475938084995345,
    1.0507500716444169e-9,
];
const AS241_E: [f64; 8] = [
    6.657904643501103,
    5.463784911164114,
    1.7848265399172913,
    0.29656057182850487,
    0.026532189526576124,
    0.0012426609473880784,
    2.7115555687434876e-5,
    2.0103343992922881e-7,
];
const AS241_F: [f64; 8] = [
    1.0,
    0.599832206555888,
    0.1369298809227358,
    0.014875361290850615,
    0.0007868691311456133,
    1.8463183175100548e-5,
    1.421511758316446e-7,
    2.0442631033899397e-15,
];

/// Standard normal quantile `Φ⁻¹(p)` by Wichura's AS 241 (PPND16): about 1e-16 relative error
/// in `f64`, correctly rounded to a few ulps in `f32`.
///
/// The tails are computed from `min(p, 1 − p)`, so small `p` keeps full relative accuracy (down
/// to the smallest subnormal); near `p = 1` the resolution is limited by the spacing of `p`
/// itself. Use `-normal_quantile(q)` to invert the upper tail `q = Q(x)` accurately.
///
/// `p = 0` gives −∞, `p = 1` gives +∞; `p` outside `[0, 1]` or NaN gives NaN.
pub fn normal_quantile<R: Real>(p: R) -> R {
    if !(p > R::ZERO && p < R::ONE) {
        return if p == R::ZERO {
            -R::INFINITY
        } else if p == R::ONE {
            R::INFINITY
        } else {
            nan()
        };
    }
    let q = p - R::HALF;
    if q.abs() <= cst(0.425) {
        let r = cst::<R>(0.180625) - q * q;
        return q * horner(r, &AS241_A) / horner(r, &AS241_B);
    }
    // 1 − p is exact for p ≥ ½ (Sterbenz), so the upper tail loses nothing here.
    let tail = if q < R::ZERO { p } else { R::ONE - p };
    let r = (-tail.ln()).sqrt();
    let v = if r <= cst(5.0) {
        let r = r - cst(1.6);
        horner(r, &AS241_C) / horner(r, &AS241_D)
    } else {
        let r = r - cst(5.0);
        horner(r, &AS241_E) / horner(r, &AS241_F)
    };
    if q < R::ZERO {
        -v
    } else {
        v
    }
}

/// `P(a < Z < b)` for a standard normal `Z` and `a < 0 < b`: the two error functions have
/// opposite signs, so the difference is a sum and keeps its relative accuracy.
#[inline]
fn straddle_mass<R: Real>(a: R, b: R) -> R {
    let s = cst::<R>(FRAC_1_SQRT_2);
    R::HALF * ((b * s).erf() - (a * s).erf())
}

// ---------------------------------------------------------------------------------------------
// One-sided building blocks: Mills ratio and the scaled mass of an excess
// ---------------------------------------------------------------------------------------------

/// The Mills ratio `M(x) = Q(x)/φ(x)` and the first two tails of its continued fraction
/// `M = 1/(x + K₁)`, `K₁ = 1/(x + K₂)`, `K₂ = 2/(x + 3/(x + …))`.
///
/// `K₁ = E[Z − x | Z > x]` is the mean excess and `K₁(K₂ − K₁)` the variance of the excess;
/// reading them off the continued fraction avoids the cancellation of `1/M − x` for large `x`.
#[derive(Debug, Clone, Copy)]
struct Mills<R> {
    m: R,
    k1: R,
    k2: R,
}

/// [`Mills`] at `x ≥ 0`.
fn mills<R: Real>(x: R) -> Mills<R> {
    if x < R::TWO {
        // Direct: Q and φ are both well above underflow, and 1/M − x cancels by at most a few
        // bits here (K₂ loses about 25 ulps at x = 2).
        let m = normal_sf(x) / normal_pdf(x);
        let k1 = R::ONE / m - x;
        let k2 = R::ONE / k1 - x;
        return Mills { m, k1, k2 };
    }
    // Laplace's continued fraction, evaluated backwards from a fixed depth; the depths were
    // chosen (against 40-digit references) to converge to 1e-16 at the left end of each range.
    let depth: usize = if x < cst(3.0) {
        120
    } else if x < cst(4.0) {
        60
    } else if x < cst(6.0) {
        36
    } else if x < cst(10.0) {
        22
    } else if x < cst(20.0) {
        14
    } else {
        10
    };
    let mut t1 = R::ZERO;
    let mut t2 = R::ZERO;
    let mut k = depth;
    while k > 0 {
        t2 = t1;
        t1 = R::from_usize(k) / (x + t1);
        k -= 1;
    }
    Mills {
        m: R::ONE / (x + t1),
        k1: t1,
        k2: t2,
    }
}

/// Positive nodes and weights of the 16-point Gauss–Legendre rule on `[−1, 1]` (computed with
/// mpmath at 50 digits and rounded to `f64`).
const GAUSS_LEGENDRE_16: [(f64, f64); 8] = [
    (0.9894009349916499, 0.027152459411754096),
    (0.9445750230732326, 0.062253523938647894),
    (0.8656312023878318, 0.09515851168249279),
    (0.755404408355003, 0.12462897125553388),
    (0.6178762444026438, 0.14959598881657674),
    (0.45801677765722737, 0.16915651939500254),
    (0.2816035507792589, 0.18260341504492358),
    (0.09501250983763744, 0.1894506104550685),
];

/// The 16 Gauss–Legendre nodes and weights mapped to `[x0, x0 + w]`.
fn gauss_legendre<R: Real>(x0: R, w: R) -> [(R, R); 16] {
    let h = R::HALF * w;
    let mut out = [(R::ZERO, R::ZERO); 16];
    for (i, &(t, wt)) in GAUSS_LEGENDRE_16.iter().enumerate() {
        let t = R::from_f64(t);
        let q = h * R::from_f64(wt);
        out[2 * i] = (x0 + h * (R::ONE - t), q);
        out[2 * i + 1] = (x0 + h * (R::ONE + t), q);
    }
    out
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
fn ln_normal_mass<R: Real>(a: R, w: R) -> R {
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
    loc: R,
    scale: R,
    lo: R,
    hi: R,
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

// ---------------------------------------------------------------------------------------------
// Uniform, constant, discrete
// ---------------------------------------------------------------------------------------------

/// The uniform distribution on `[lo, hi]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Uniform<R> {
    lo: R,
    hi: R,
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

/// A distribution on at most [`MAX_DISCRETE_VALUES`] values, stored sorted by value with
/// normalised probabilities in fixed arrays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Discrete<R> {
    values: [R; MAX_DISCRETE_VALUES],
    probs: [R; MAX_DISCRETE_VALUES],
    len: usize,
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

// ---------------------------------------------------------------------------------------------
// The sum type
// ---------------------------------------------------------------------------------------------

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
mod tests {
    //! References marked "mpmath" were computed with mpmath 1.3 at 50–80 significant digits
    //! (closed forms, or bisection on the exact CDF) and rounded to `f64`.
    #![allow(clippy::excessive_precision)]
    extern crate std;

    use super::*;
    use proptest::prelude::*;
    use std::println;

    fn rel(a: f64, b: f64) -> f64 {
        if a == b {
            0.0
        } else {
            (a - b).abs() / b.abs()
        }
    }

    /// `∫ₐᵇ f` by adaptive Simpson on 64 initial panels, to an absolute error of about `eps`.
    fn integrate(a: f64, b: f64, eps: f64, f: impl Fn(f64) -> f64) -> f64 {
        #[allow(clippy::too_many_arguments)]
        fn step(
            f: &dyn Fn(f64) -> f64,
            a: f64,
            b: f64,
            fa: f64,
            fm: f64,
            fb: f64,
            whole: f64,
            eps: f64,
            depth: u32,
        ) -> f64 {
            let m = 0.5 * (a + b);
            let (lm, rm) = (0.5 * (a + m), 0.5 * (m + b));
            let (flm, frm) = (f(lm), f(rm));
            let left = (m - a) / 6.0 * (fa + 4.0 * flm + fm);
            let right = (b - m) / 6.0 * (fm + 4.0 * frm + fb);
            let delta = left + right - whole;
            // Also stop at the noise level of the panel: exp of a large argument carries a
            // relative error of |argument|·ε, which subdividing cannot remove.
            if depth == 0 || delta.abs() <= 15.0 * eps.max(1e-14 * (left + right).abs()) {
                left + right + delta / 15.0
            } else {
                step(f, a, m, fa, flm, fm, left, 0.5 * eps, depth - 1)
                    + step(f, m, b, fm, frm, fb, right, 0.5 * eps, depth - 1)
            }
        }
        let n = 64;
        let h = (b - a) / n as f64;
        let mut total = 0.0;
        for i in 0..n {
            let (x0, x1) = (
                a + h * i as f64,
                if i + 1 == n {
                    b
                } else {
                    a + h * (i + 1) as f64
                },
            );
            let (f0, fm, f1) = (f(x0), f(0.5 * (x0 + x1)), f(x1));
            let whole = (x1 - x0) / 6.0 * (f0 + 4.0 * fm + f1);
            total += step(&f, x0, x1, f0, fm, f1, whole, eps / n as f64, 40);
        }
        total
    }

    // (x, Φ(x)) from mpmath.
    const PHI: [(f64, f64); 14] = [
        (-37.5, 4.605353009581955e-308),
        (-30.0, 4.906713927148187e-198),
        (-20.0, 2.7536241186062337e-89),
        (-10.0, 7.619853024160525e-24),
        (-5.0, 2.866515718791939e-07),
        (-2.0, 0.02275013194817921),
        (-1.0, 0.15865525393145705),
        (-0.5, 0.3085375387259869),
        (0.0, 0.5),
        (0.5, 0.6914624612740131),
        (1.0, 0.8413447460685429),
        (2.0, 0.9772498680518208),
        (5.0, 0.9999997133484281),
        (8.0, 0.9999999999999993),
    ];

    // (p, Φ⁻¹(p)) from mpmath.
    const PHI_INV: [(f64, f64); 14] = [
        (1e-300, -37.0470962993612),
        (1e-100, -21.273453560965326),
        (1e-20, -9.262340089798407),
        (1e-10, -6.361340902404057),
        (1e-05, -4.264890793922825),
        (0.001, -3.0902323061678136),
        (0.025, -1.9599639845400543),
        (0.1, -1.2815515655446004),
        (0.3, -0.5244005127080408),
        (0.5, 0.0),
        (0.7, 0.5244005127080407),
        (0.975, 1.9599639845400538),
        (0.999, 3.090232306167813),
        (0.9999999999, 6.361340889697422),
    ];

    #[test]
    fn normal_cdf_matches_mpmath_in_both_tails() {
        let mut worst = 0.0f64;
        for &(x, want) in &PHI {
            let e = rel(normal_cdf(x), want);
            worst = worst.max(e);
            // The upper tail through Q keeps relative accuracy where 1 − Φ would not.
            let e = rel(normal_sf(-x), want);
            worst = worst.max(e);
        }
        println!("Φ / Q worst relative error (f64, x ∈ [−37.5, 8]): {worst:.2e}");
        assert!(worst < 2e-15, "{worst}");
        assert!(rel(normal_sf(10.0), 7.619853024160525e-24) < 5e-15);
        // Beyond the underflow threshold the answer is 0, not NaN.
        assert_eq!(normal_cdf(-40.0f64), 0.0);
        assert_eq!(normal_cdf(f64::INFINITY), 1.0);
        assert!(normal_cdf(f64::NAN).is_nan());
        // f32: relative accuracy down to the (normal-range) underflow threshold.
        for &(x, want) in &PHI[3..] {
            let e = rel(normal_cdf(x as f32) as f64, want);
            assert!(e < 2e-6, "f32 Φ({x}): {e}");
        }
        assert!((normal_pdf(0.0f64) - 0.3989422804014327).abs() < 1e-17);
        // φ(30) = exp(−450)/√(2π) (mpmath): the split exponent keeps it to a few ulps.
        assert!(rel(normal_pdf(30.0f64), 1.4736461348785476e-196) < 4e-16);
    }

    #[test]
    fn normal_quantile_matches_mpmath() {
        let mut worst = 0.0f64;
        for &(p, want) in &PHI_INV {
            let got = normal_quantile(p);
            let e = if want == 0.0 {
                got.abs()
            } else {
                rel(got, want)
            };
            worst = worst.max(e);
        }
        println!("Φ⁻¹ worst relative error (f64): {worst:.2e}");
        assert!(worst < 1e-15, "{worst}");
        // f32 against the f64 quantile of the same (rounded) probability.
        let mut worst32 = 0.0f64;
        let mut p = 1e-38f32;
        while p < 1.0 {
            let want = normal_quantile(p as f64);
            let got = normal_quantile(p) as f64;
            worst32 = worst32.max((got - want).abs() / want.abs().max(1.0));
            p = if p < 0.01 { p * 3.7 } else { p + 0.0063 };
        }
        println!("Φ⁻¹ worst error (f32, relative to max(|x|, 1)): {worst32:.2e}");
        assert!(worst32 < 1e-6, "{worst32}");
        // Deep subnormal tail in f64: still finite and ordered.
        assert!(normal_quantile(4.9e-324f64) < -38.0);
        assert_eq!(normal_quantile(0.0f64), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0f64), f64::INFINITY);
        assert!(normal_quantile(-0.1f64).is_nan());
        assert!(normal_quantile(1.1f64).is_nan());
        assert!(normal_quantile(f64::NAN).is_nan());
        assert_eq!(normal_quantile(0.0f32), f32::NEG_INFINITY);
    }

    #[test]
    fn normal_quantile_round_trips() {
        // Through Φ on the lower side and through Q on the upper side (where Φ saturates).
        let mut worst = 0.0f64;
        let mut x = -37.0f64;
        while x <= 37.0 {
            let back = if x <= 0.0 {
                normal_quantile(normal_cdf(x))
            } else {
                -normal_quantile(normal_sf(x))
            };
            worst = worst.max((back - x).abs() / x.abs().max(1.0));
            x += 0.173;
        }
        println!("Φ⁻¹(Φ(x)) worst error (f64, relative to max(|x|, 1)): {worst:.2e}");
        assert!(worst < 1e-14, "{worst}");
        let mut worst32 = 0.0f64;
        let mut x = -12.0f32;
        while x <= 12.0 {
            let back = if x <= 0.0 {
                normal_quantile(normal_cdf(x))
            } else {
                -normal_quantile(normal_sf(x))
            };
            worst32 = worst32.max(((back - x).abs() / x.abs().max(1.0)) as f64);
            x += 0.0917;
        }
        println!("Φ⁻¹(Φ(x)) worst error (f32): {worst32:.2e}");
        assert!(worst32 < 3e-6, "{worst32}");
    }

    #[test]
    fn mills_ratio_parts_are_consistent() {
        // M = Q/φ (mpmath values of Q/φ), K₁ = 1/M − x, and the excess variance
        // K₁(K₂ − K₁) = 1 − x h + … checked against 1 + x·h − h² with h = 1/M in high precision.
        // (x, M, K₁, K₂) from mpmath.
        let refs = [
            (
                0.0,
                1.2533141373155003,
                0.7978845608028654,
                1.2533141373155003,
            ),
            (
                1.0,
                0.6556795424187984,
                0.5251352761609812,
                0.9042712333296918,
            ),
            (
                2.0,
                0.4213692292880545,
                0.37321553282284087,
                0.679416883955586,
            ),
            (
                3.0,
                0.3045902987101033,
                0.2830986549304365,
                0.5323375176251605,
            ),
            (
                5.0,
                0.19280810471531576,
                0.1865039671258421,
                0.36181624128808854,
            ),
            (
                10.0,
                0.09902859647173193,
                0.09809323396251196,
                0.1943830334125533,
            ),
            (
                40.0,
                0.02498440420572057,
                0.024968847207263722,
                0.04990665764851819,
            ),
        ];
        let mut worst = 0.0f64;
        for &(x, m, k1, k2) in &refs {
            let got = mills(x);
            let e = rel(got.m, m).max(rel(got.k1, k1)).max(rel(got.k2, k2));
            worst = worst.max(e);
            assert!(e < 1e-14, "{x}: {got:?}");
        }
        // Just below the switch to the continued fraction.
        let below = mills(1.999_999_999f64);
        assert!(rel(below.k2, 0.679416883955586) < 1e-9);
        println!("Mills ratio parts worst relative error: {worst:.1e}");
    }

    // (loc, scale, lo, hi, mean, variance) from mpmath.
    const MOMENTS: [(f64, f64, f64, f64, f64, f64); 16] = [
        (
            0.5,
            0.01,
            0.9,
            1.0,
            0.9002496884720727,
            6.226683785913888e-08,
        ),
        (0.0, 1.0, 0.0, 4.5, 0.7978580150421216, 0.36327873318554127),
        (0.0, 1.0, 2.0, 3.0, 2.315821326743782, 0.06152077957448997),
        (0.0, 1.0, -0.001, 0.001, 0.0, 3.3333328888889104e-07),
        (
            0.0,
            1.0,
            5.0,
            100.0,
            5.186503967125842,
            0.032696434617112226,
        ),
        (
            0.0,
            1.0,
            -3.0,
            10.0,
            0.004437839042125664,
            0.9866667884582592,
        ),
        (0.0, 1.0, 8.0, 8.5, 8.113735989496524, 0.010525740358364856),
        (
            0.0,
            1.0,
            -100.0,
            -37.0,
            -37.02698768612699,
            0.0007272780988775133,
        ),
        (
            0.0,
            1.0,
            1.0,
            1.0001,
            1.000049999166625,
            8.333333326386637e-10,
        ),
        (
            0.3,
            2.0,
            -1.0,
            0.2,
            -0.37926581118727176,
            0.11831099594935894,
        ),
        (0.5, 0.3, 0.0, 1.0, 0.5, 0.05700297993661034),
        (0.5, 1000.0, 0.0, 1.0, 0.5, 0.08333333055555558),
        (2.0, 0.5, -1.0, 1.5, 1.2374323763255979, 0.04977438329060882),
        (0.0, 1.0, 3.0, 9.0, 3.283098654930436, 0.07055918678526528),
        (0.0, 1.0, 1.5, 30.0, 1.938677166622543, 0.1495465935502027),
        (0.5, 0.001, 0.0, 1.0, 0.5, 1e-06),
    ];

    #[test]
    fn truncated_moments_match_mpmath() {
        let (mut worst_mean, mut worst_var) = (0.0f64, 0.0f64);
        for &(loc, scale, lo, hi, mean, var) in &MOMENTS {
            let d = TruncatedNormal::new(loc, scale, lo, hi).unwrap();
            // The mean relative to the spread (it may be 0).
            let em = (d.mean() - mean).abs() / var.sqrt();
            let ev = rel(d.variance(), var);
            worst_mean = worst_mean.max(em);
            worst_var = worst_var.max(ev);
            assert!(
                em < 1e-12 && ev < 1e-12,
                "{loc} {scale} [{lo}, {hi}]: {em:e} {ev:e}"
            );
        }
        println!(
            "truncated normal vs mpmath (f64): mean {worst_mean:.1e} sd, variance \
             {worst_var:.1e} relative"
        );
    }

    #[test]
    fn moments_match_numerical_integration() {
        for &(loc, scale, lo, hi, _, _) in &MOMENTS {
            let d = TruncatedNormal::new(loc, scale, lo, hi).unwrap();
            let mass = integrate(lo, hi, 1e-13, |x| d.pdf(x));
            // The mean as an offset from the bound nearest the mass, so that the integrand
            // is small where the distribution lives.
            let c = d.mean();
            let mean = c + integrate(lo, hi, 1e-12 * d.variance().sqrt(), |x| (x - c) * d.pdf(x));
            let var = integrate(lo, hi, 1e-12 * d.variance(), |x| (x - c).powi(2) * d.pdf(x));
            assert!(
                (mass - 1.0).abs() < 1e-11,
                "{loc} {scale} [{lo}, {hi}] mass {mass}"
            );
            assert!(
                (mean - d.mean()).abs() < 1e-10 * d.variance().sqrt(),
                "{loc} {scale} [{lo}, {hi}]: {mean} vs {}",
                d.mean()
            );
            assert!(rel(var, d.variance()) < 1e-10, "{var} vs {}", d.variance());
        }
    }

    #[test]
    fn paper_construction_hits_the_target_variance() {
        // σ from mpmath (root of the truncated variance at 80 digits).
        let sigma = [
            (0.02, 0.14182094135492315),
            (0.04, 0.21354804005073025),
            (0.08, 0.9060993307173949),
        ];
        for &(target, s) in &sigma {
            let d = TruncatedNormal::with_truncated_variance(0.5f64, target, 0.0, 1.0).unwrap();
            let ev = rel(d.variance(), target);
            let es = rel(d.scale(), s);
            println!("target {target}: variance error {ev:.1e}, σ error {es:.1e} (f64)");
            assert!(ev < 1e-12, "{ev}");
            assert!(es < 1e-12, "{es}");
            assert!((d.mean() - 0.5).abs() < 1e-15);
            let d32 =
                TruncatedNormal::with_truncated_variance(0.5f32, target as f32, 0.0, 1.0).unwrap();
            let ev = rel(d32.variance() as f64, target);
            let es = rel(d32.scale() as f64, s);
            println!("target {target}: variance error {ev:.1e}, σ error {es:.1e} (f32)");
            assert!(ev < 2e-6 && es < 2e-5, "{ev} {es}");
        }
        // The sample average over a midpoint grid of u reproduces the moments (the midpoint
        // rule's error is O(1/N²) for this smooth quantile function).
        let d = TruncatedNormal::with_truncated_variance(0.5f64, 0.04, 0.0, 1.0).unwrap();
        let n = 100_000;
        let (mut s1, mut s2) = (0.0, 0.0);
        for k in 0..n {
            let x = d.sample((k as f64 + 0.5) / n as f64);
            assert!((0.0..=1.0).contains(&x));
            s1 += x;
            s2 += (x - 0.5) * (x - 0.5);
        }
        let (m, v) = (s1 / n as f64, s2 / n as f64);
        println!(
            "grid of 1e5 u: mean error {:.1e}, variance error {:.1e}",
            m - 0.5,
            v - 0.04
        );
        assert!((m - 0.5).abs() < 1e-12);
        assert!((v - 0.04).abs() < 1e-8);
    }

    #[test]
    fn off_centre_and_one_sided_targets() {
        for &(loc, lo, hi, target) in &[
            (0.2f64, 0.0, 1.0, 0.05),
            (-1.0, 0.0, 1.0, 0.01),
            (3.0, -2.0, 2.0, 1.2),
            (0.5, 0.0, 1.0, 1e-6),
            (0.5, 0.0, 1.0, 0.0833),
        ] {
            let d = TruncatedNormal::with_truncated_variance(loc, target, lo, hi).unwrap();
            assert!(rel(d.variance(), target) < 1e-12, "{loc}: {}", d.variance());
        }
    }

    // (loc, scale, lo, hi, u, x) from mpmath (bisection on the exact CDF).
    const QUANTILES: [(f64, f64, f64, f64, f64, f64); 30] = [
        (0.5, 0.01, 0.9, 1.0, 1e-12, 0.9000000000000002),
        (0.5, 0.01, 0.9, 1.0, 0.1, 0.9000263228320701),
        (0.5, 0.01, 0.9, 1.0, 0.5, 0.9001731412676466),
        (0.5, 0.01, 0.9, 1.0, 0.9, 0.9005748745803602),
        (0.5, 0.01, 0.9, 1.0, 0.9999999999990905, 0.9068682546461452),
        (0.0, 1.0, -100.0, -37.0, 1e-12, -37.73887323614383),
        (0.0, 1.0, -100.0, -37.0, 0.1, -37.062134574979005),
        (0.0, 1.0, -100.0, -37.0, 0.5, -37.018715326832194),
        (0.0, 1.0, -100.0, -37.0, 0.9, -37.00284539675098),
        (
            0.0,
            1.0,
            -100.0,
            -37.0,
            0.9999999999990905,
            -37.00000000000002,
        ),
        (0.0, 1.0, 1.0, 1.0001, 1e-12, 1.0),
        (0.0, 1.0, 1.0, 1.0001, 0.1, 1.0000099995499956),
        (0.0, 1.0, 1.0, 1.0001, 0.5, 1.0000499987499374),
        (0.0, 1.0, 1.0, 1.0001, 0.9, 1.0000899995499595),
        (0.0, 1.0, 1.0, 1.0001, 0.9999999999990905, 1.0001),
        (0.5, 0.3, 0.0, 1.0, 1e-12, 2.7275190252459654e-12),
        (0.5, 0.3, 0.0, 1.0, 0.1, 0.17351127328750493),
        (0.5, 0.3, 0.0, 1.0, 0.5, 0.5),
        (0.5, 0.3, 0.0, 1.0, 0.9, 0.8264887267124951),
        (0.5, 0.3, 0.0, 1.0, 0.9999999999990905, 0.9999999999975193),
        (0.0, 1.0, 0.0, 4.5, 1e-12, 1.2533056206119778e-12),
        (0.0, 1.0, 0.0, 4.5, 0.1, 0.1256604884338857),
        (0.0, 1.0, 0.0, 4.5, 0.5, 0.6744844041962644),
        (0.0, 1.0, 0.0, 4.5, 0.9, 1.6448239783136334),
        (0.0, 1.0, 0.0, 4.5, 0.9999999999990905, 4.499999971549575),
        (0.5, 1000.0, 0.0, 1.0, 1e-12, 1.0000000833333374e-12),
        (0.5, 1000.0, 0.0, 1.0, 0.1, 0.10000000600000011),
        (0.5, 1000.0, 0.0, 1.0, 0.5, 0.5),
        (0.5, 1000.0, 0.0, 1.0, 0.9, 0.8999999939999999),
        (
            0.5,
            1000.0,
            0.0,
            1.0,
            0.9999999999990905,
            0.9999999999990905,
        ),
    ];

    #[test]
    fn quantiles_match_mpmath() {
        let (mut worst, mut worst32) = (0.0f64, 0.0f64);
        for &(loc, scale, lo, hi, u, x) in &QUANTILES {
            let d = TruncatedNormal::new(loc, scale, lo, hi).unwrap();
            // Error relative to the spread of the distribution, and to the excess over the
            // nearer bound where that is smaller (tail probabilities keep relative accuracy).
            // Allow a few ulps of the magnitudes involved (x itself cannot be closer), plus
            // 1e-12 of the spread or of the excess over the nearer bound where that is smaller.
            let spread = d.variance().sqrt();
            let excess = (x - lo).abs().min((hi - x).abs());
            let ulps = 4.0 * f64::EPSILON * x.abs().max(loc.abs());
            let err = (d.quantile(u) - x).abs();
            let e = (err - ulps).max(0.0) / spread.min(excess.max(1e-300));
            worst = worst.max(e);
            assert!(
                e < 1e-12,
                "{loc} {scale} [{lo}, {hi}] u={u}: {} vs {x}",
                d.quantile(u)
            );
            let d32 = TruncatedNormal::new(loc as f32, scale as f32, lo as f32, hi as f32).unwrap();
            if (u as f32) < 1.0 {
                let ulps32 = 4.0 * f32::EPSILON as f64 * x.abs().max(loc.abs());
                let err = (d32.quantile(u as f32) as f64 - x).abs();
                worst32 = worst32.max((err - ulps32).max(0.0) / spread);
            }
        }
        println!(
            "quantile vs mpmath beyond 4 ulps of |x|: f64 {worst:.1e} (of the sd or excess), \
             f32 {worst32:.1e} (of the sd; f32 inputs are rounded too)"
        );
        assert!(worst32 < 1e-3, "{worst32}");
    }

    #[test]
    fn deep_tail_samples_cover_the_interval() {
        // loc 0.5, scale 0.01 on [0.9, 1]: α = 40, where Φ(α) = 1 and Q(α) underflows in f32.
        let d = TruncatedNormal::new(0.5f64, 0.01, 0.9, 1.0).unwrap();
        let d32 = TruncatedNormal::new(0.5f32, 0.01, 0.9, 1.0).unwrap();
        let n = 4096;
        let mut prev = 0.9;
        let mut prev32 = 0.0f32;
        for k in 0..n {
            let u = (k as f64 + 0.5) / n as f64;
            let x = d.sample(u);
            assert!((0.9..=1.0).contains(&x));
            assert!(x > prev, "not strictly increasing at {k}");
            prev = x;
            let x32 = d32.sample(u as f32);
            assert!((0.9f32..=1.0).contains(&x32));
            assert!(x32 >= prev32);
            prev32 = x32;
            assert!((x32 as f64 - x).abs() < 2e-6, "{k}: {x32} vs {x}");
        }
        // The excess is nearly exponential with mean 0.01/40: the quantiles spread over
        // [0.9, 0.9 + many·0.00025], they do not sit on the bound.
        assert!(d.sample(0.5) > 0.9001 && d.sample(0.5) < 0.9003);
        assert!(d.sample(1.0 - 1e-12) > 0.906);
        assert!(d.sample(1e-9) > 0.9 && d.sample(1e-9) < 0.90000001);
        // Mean and variance of the samples agree with the closed forms.
        let (mut s1, mut s2) = (0.0, 0.0);
        for k in 0..n {
            let x = d.sample((k as f64 + 0.5) / n as f64);
            s1 += x;
            s2 += (x - d.mean()).powi(2);
        }
        // (The midpoint rule is only O(ln N/N) accurate here: the quantile has a logarithmic
        // singularity at u = 1, like an exponential's.)
        assert!((s1 / n as f64 - d.mean()).abs() < 3e-3 * d.variance().sqrt());
        assert!(rel(s2 / n as f64, d.variance()) < 2e-2);
        // Even further: 1000 scales into the tail, and on the lower side.
        let far = TruncatedNormal::new(0.0f64, 1e-3, 1.0, 1.5).unwrap();
        assert!(far.sample(0.5) > 1.0 && far.sample(0.5) < 1.0 + 2e-6);
        assert!(rel(far.mean() - 1.0, 1e-6 * (1.0 - 2e-6)) < 1e-5);
        let below = TruncatedNormal::new(0.0f32, 1.0, -60.0, -50.0).unwrap();
        let x = below.sample(0.5);
        assert!(x < -50.0 && x > -50.1, "{x}");
    }

    #[test]
    fn cdf_inverts_quantile() {
        let cases = [
            (0.5, 0.01, 0.9, 1.0),
            (0.0, 1.0, -100.0, -37.0),
            (0.0, 1.0, 1.0, 1.0001),
            (0.5, 0.2, 0.0, 1.0),
            (0.5, 1e3, 0.0, 1.0),
            (0.3, 2.0, -1.0, 0.2),
            (0.0, 1.0, -0.3, 0.2),
            (0.0, 1.0, 1.5, 30.0),
            (2.0, 0.5, -1.0, 1.5),
        ];
        let mut worst = 0.0f64;
        for &(loc, scale, lo, hi) in &cases {
            let d = TruncatedNormal::new(loc, scale, lo, hi).unwrap();
            for &u in &[1e-300, 1e-15, 1e-6, 0.01, 0.2, 0.5, 0.77, 0.99, 1.0 - 1e-9] {
                let x = d.quantile(u);
                let back = d.cdf(x);
                // The representable x nearest the true quantile moves the CDF by up to
                // pdf(x)·ulp(x) (and x = bound ± scale·excess rounds twice); beyond that the error should be relative in the lower tail and
                // a few ulps of 1 above.
                let slack = d.pdf(x) * 8.0 * f64::EPSILON * x.abs().max(loc.abs());
                let e = ((back - u).abs() - slack).max(0.0) / u.min(0.5);
                worst = worst.max(e);
                assert!(e < 1e-12, "{loc} {scale}: {u} → {back}");
            }
        }
        println!(
            "cdf(quantile(u)) worst error beyond pdf·ulp(x), relative to min(u, ½): {worst:.1e}"
        );
    }

    #[test]
    fn constructor_errors() {
        use DistError::*;
        type T = TruncatedNormal<f64>;
        assert_eq!(T::new(f64::NAN, 1.0, 0.0, 1.0), Err(NonFinite));
        assert_eq!(T::new(0.0, f64::INFINITY, 0.0, 1.0), Err(NonFinite));
        assert_eq!(T::new(0.0, 1.0, f64::NEG_INFINITY, 1.0), Err(NonFinite));
        assert_eq!(T::new(0.0, 1.0, -f64::MAX, f64::MAX), Err(NonFinite));
        assert_eq!(T::new(0.0, 0.0, 0.0, 1.0), Err(NonPositiveScale));
        assert_eq!(T::new(0.0, -1.0, 0.0, 1.0), Err(NonPositiveScale));
        assert_eq!(T::new(0.0, 1.0, 1.0, 1.0), Err(EmptyInterval));
        assert_eq!(T::new(0.0, 1.0, 2.0, 1.0), Err(EmptyInterval));
        // Standardised bounds overflow.
        assert_eq!(T::new(0.0, 1e-320, 1e10, 2e10), Err(Degenerate));
        // Interval far narrower than representable relative to the tail.
        assert_eq!(
            TruncatedNormal::new(0.0f32, 1e-30, 1.0, 2.0),
            Err(Degenerate)
        );
        assert_eq!(
            T::with_truncated_variance(0.5, 0.0, 0.0, 1.0),
            Err(VarianceUnachievable)
        );
        assert_eq!(
            T::with_truncated_variance(0.5, -1.0, 0.0, 1.0),
            Err(VarianceUnachievable)
        );
        assert_eq!(
            T::with_truncated_variance(0.5, 1.0 / 12.0, 0.0, 1.0),
            Err(VarianceUnachievable)
        );
        assert_eq!(
            T::with_truncated_variance(0.5, 0.1, 0.0, 1.0),
            Err(VarianceUnachievable)
        );
        assert_eq!(
            T::with_truncated_variance(0.5, f64::NAN, 0.0, 1.0),
            Err(NonFinite)
        );
        assert_eq!(
            T::with_truncated_variance(0.5, 0.01, 1.0, 0.0),
            Err(EmptyInterval)
        );
        assert_eq!(
            T::with_truncated_variance(0.5, 0.01, -f64::MAX, f64::MAX),
            Err(NonFinite)
        );
        // Just below the limit: either found, or refused, never a panic.
        let near = T::with_truncated_variance(0.5, 1.0 / 12.0 * (1.0 - 1e-15), 0.0, 1.0);
        assert!(near.is_ok() || near == Err(VarianceUnachievable));

        assert_eq!(Uniform::new(0.0, f64::NAN), Err(NonFinite));
        assert_eq!(Uniform::new(1.0, 1.0), Err(EmptyInterval));
        assert_eq!(Uniform::new(-f64::MAX, f64::MAX), Err(NonFinite));
        assert_eq!(Distribution::constant(f64::INFINITY), Err(NonFinite));

        let v = [0.0f64; 17];
        assert_eq!(Discrete::new(&v, &v), Err(TooManyValues));
        assert_eq!(Discrete::<f64>::new(&[], &[]), Err(NoValues));
        assert_eq!(Discrete::new(&[1.0, 2.0], &[1.0]), Err(LengthMismatch));
        assert_eq!(
            Discrete::new(&[1.0, 2.0], &[1.0, -1.0]),
            Err(NegativeWeight)
        );
        assert_eq!(
            Discrete::new(&[1.0, 2.0], &[0.0, 0.0]),
            Err(ZeroTotalWeight)
        );
        assert_eq!(Discrete::new(&[1.0, f64::NAN], &[1.0, 1.0]), Err(NonFinite));
        assert_eq!(
            Discrete::new(&[1.0, 2.0], &[f64::MAX, f64::MAX]),
            Err(NonFinite)
        );

        let d = Distribution::uniform(0.0f64, 1.0).unwrap();
        assert_eq!(d.affine(0.0, 0.0), Err(ZeroScale));
        assert_eq!(d.affine(f64::NAN, 1.0), Err(NonFinite));
        assert_eq!(d.affine(0.0, 1e-310), Err(NonFinite));
        assert_eq!(d.affine(0.0, 1e300).map(|_| ()), Ok(()));
        assert_eq!(d.affine(0.5, 1e308 * 10.0), Err(NonFinite));
    }

    #[test]
    fn uniform_discrete_and_constant() {
        let u = Uniform::new(2.0f64, 5.0).unwrap();
        assert_eq!(u.mean(), 3.5);
        assert_eq!(u.variance(), 0.75);
        assert_eq!(u.sample(0.5), 3.5);
        assert_eq!(u.sample(2.0), 5.0);

        // Unsorted input with a zero weight.
        let d = Discrete::new(&[3.0f64, -1.0, 7.0, 2.0], &[2.0, 1.0, 0.0, 1.0]).unwrap();
        assert_eq!(d.values(), &[-1.0, 2.0, 3.0, 7.0]);
        assert_eq!(d.probabilities(), &[0.25, 0.25, 0.5, 0.0]);
        assert_eq!(d.mean(), 1.75);
        assert!(
            (d.variance() - (0.25 * 2.75f64.powi(2) + 0.25 * 0.0625 + 0.5 * 1.5625)).abs() < 1e-15
        );
        assert_eq!(d.support(), (-1.0, 3.0));
        assert_eq!(d.sample(0.0), -1.0);
        assert_eq!(d.sample(0.2499), -1.0);
        assert_eq!(d.sample(0.25), 2.0);
        assert_eq!(d.sample(0.75), 3.0);
        assert_eq!(d.sample(0.999_999), 3.0);
        assert_eq!(d.sample(1.0), 3.0); // never the zero-weight 7
        assert_eq!(d.sample(-3.0), -1.0);
        assert!(d.sample(f64::NAN).is_nan());
        // Frequencies over a grid of u match the probabilities exactly.
        let mut counts = [0usize; 4];
        for k in 0..1000 {
            let x = d.sample((k as f64 + 0.5) / 1000.0);
            counts[d.values().iter().position(|v| *v == x).unwrap()] += 1;
        }
        assert_eq!(counts, [250, 250, 500, 0]);

        let c = Distribution::constant(4.0f64).unwrap();
        assert_eq!(
            (c.sample(0.3), c.mean(), c.variance(), c.support()),
            (4.0, 4.0, 0.0, (4.0, 4.0))
        );
    }

    #[test]
    fn affine_maps_are_exact_per_kind() {
        let dists = [
            Distribution::truncated_normal(20.0f64, 3.0, 15.0, 30.0).unwrap(),
            Distribution::uniform(-4.0, 6.0).unwrap(),
            Distribution::discrete(&[1.0, 5.0, 3.0], &[1.0, 2.0, 3.0]).unwrap(),
            Distribution::constant(7.5).unwrap(),
        ];
        for d in &dists {
            for &(o, s) in &[(15.0, 15.0), (2.0, -0.5), (0.0, 1.0)] {
                let m = d.affine(o, s).unwrap();
                assert_eq!(core::mem::discriminant(d), core::mem::discriminant(&m));
                assert!((m.mean() - (d.mean() - o) / s).abs() < 1e-13);
                assert!(rel(m.variance() + 1e-300, d.variance() / (s * s) + 1e-300) < 1e-13);
                let (lo, hi) = d.support();
                let (mlo, mhi) = m.support();
                let mapped = if s > 0.0 {
                    ((lo - o) / s, (hi - o) / s)
                } else {
                    ((hi - o) / s, (lo - o) / s)
                };
                assert!((mlo - mapped.0).abs() < 1e-13 && (mhi - mapped.1).abs() < 1e-13);
                for &u in &[0.05, 0.3, 0.6, 0.95] {
                    // A negative scale mirrors the distribution, so u maps to 1 − u.
                    let uu = if s > 0.0 { u } else { 1.0 - u };
                    let want = (d.sample(uu) - o) / s;
                    assert!((m.sample(u) - want).abs() < 1e-12, "{d:?} {u}");
                }
                // Kernel expectations transform with the lengthscale.
                let e = d.expected_gaussian_factor(21.0, 2.0);
                let me = m.expected_gaussian_factor((21.0 - o) / s, 2.0 / s.abs());
                assert!((e - me).abs() < 1e-12, "{e} {me}");
            }
        }
        // The problem layer maps the paper's [0, 1] variables with (lower, width).
        let tn = Distribution::truncated_normal(0.5f64, 0.2, 0.0, 1.0).unwrap();
        assert_eq!(tn.affine(0.0, 1.0).unwrap(), tn);
    }

    #[test]
    fn expected_gaussian_factor_matches_quadrature() {
        let tns = [
            (0.5f64, 0.2135, 0.0, 1.0),
            (0.5, 0.01, 0.9, 1.0),
            (0.0, 1.0, -3.0, 10.0),
            (0.0, 1.0, 1.0, 1.0001),
            (0.3, 2.0, -1.0, 0.2),
            (0.5, 1e3, 0.0, 1.0),
        ];
        let mut worst = 0.0f64;
        for &(loc, scale, lo, hi) in &tns {
            let d = TruncatedNormal::new(loc, scale, lo, hi).unwrap();
            let n = 20_000;
            let samples: std::vec::Vec<f64> = (0..n)
                .map(|k| d.sample((k as f64 + 0.5) / n as f64))
                .collect();
            for &c in &[lo - 0.3, lo, 0.5 * (lo + hi), hi + 0.1, 3.0] {
                for &l in &[0.05, 0.2, 1.0, 10.0] {
                    let f = |x: f64| (-(x - c).powi(2) / (2.0 * l * l)).exp();
                    let got = d.expected_gaussian_factor(c, l);
                    let want = integrate(lo, hi, 1e-13 * got.max(1e-300), |x| f(x) * d.pdf(x));
                    let e = (got - want).abs() / want.max(1e-300);
                    if want > 1e-280 {
                        worst = worst.max(e);
                        assert!(
                            e < 1e-10,
                            "{loc} {scale} [{lo},{hi}] c={c} l={l}: {got} vs {want}"
                        );
                    }
                    // Against the sample average over a midpoint grid of u (a coarse check: the
                    // grid resolves an integrand concentrated near a bound only roughly).
                    if got < 1e-3 {
                        continue;
                    }
                    let avg = samples.iter().map(|&x| f(x)).sum::<f64>() / n as f64;
                    assert!(
                        (avg - got).abs() < 1e-2 * got + 1e-12,
                        "{loc} {scale} [{lo},{hi}] c={c} l={l}: {avg} vs {got}"
                    );
                }
            }
        }
        println!("E[SE factor] truncated normal vs adaptive quadrature: worst relative error {worst:.1e}");
        let u = Uniform::new(-1.0f64, 2.0).unwrap();
        let dd = Discrete::new(&[0.0f64, 0.5, 2.0], &[1.0, 2.0, 1.0]).unwrap();
        for &c in &[-3.0, -1.0, 0.3, 2.0, 8.0] {
            for &l in &[0.01, 0.3, 1.0, 100.0] {
                let f = |x: f64| (-(x - c).powi(2) / (2.0 * l * l)).exp();
                let got = u.expected_gaussian_factor(c, l);
                let want = integrate(-1.0, 2.0, 1e-13 * got, f) / 3.0;
                assert!(
                    (got - want).abs() <= 1e-10 * want + 1e-300,
                    "{c} {l}: {got} vs {want}"
                );
                let want = 0.25 * f(0.0) + 0.5 * f(0.5) + 0.25 * f(2.0);
                assert!((dd.expected_gaussian_factor(c, l) - want).abs() <= 1e-13 * want + 1e-300);
            }
        }
        let c = Distribution::constant(1.0f64).unwrap();
        assert!((c.expected_gaussian_factor(0.0, 2.0) - (-0.125f64).exp()).abs() < 1e-16);
        assert!(c.expected_gaussian_factor(0.0, 0.0).is_nan());
        assert!(u.expected_gaussian_factor(0.0, -1.0).is_nan());
        assert_eq!(u.expected_gaussian_factor(0.0, f64::INFINITY), 1.0);
        // f32 agrees with f64 to single precision, also 40 scales into the tail (where the
        // exponents involved are of order 800).
        let d = TruncatedNormal::with_truncated_variance(0.5f64, 0.04, 0.0, 1.0).unwrap();
        let d32 = TruncatedNormal::with_truncated_variance(0.5f32, 0.04, 0.0, 1.0).unwrap();
        let t = TruncatedNormal::new(0.5f64, 0.01, 0.875, 1.0).unwrap();
        let t32 = TruncatedNormal::new(0.5f32, 0.01, 0.875, 1.0).unwrap();
        let mut worst = 0.0f64;
        for &c in &[0.0, 0.3, 0.875, 0.9, 1.2] {
            for &l in &[0.01, 0.1, 1.0] {
                for (p, p32) in [(&d, &d32), (&t, &t32)] {
                    let a = p.expected_gaussian_factor(c, l);
                    let b = p32.expected_gaussian_factor(c as f32, l as f32) as f64;
                    if a > 1e-30 {
                        worst = worst.max(rel(b, a));
                    }
                }
            }
        }
        println!("E[SE factor] f32 vs f64 (values above 1e-30): worst relative {worst:.1e}");
        assert!(worst < 5e-5, "{worst}");
    }

    #[test]
    fn f32_agrees_with_f64() {
        let mut worst_q = 0.0f64;
        let mut worst_v = 0.0f64;
        for &(loc, scale, lo, hi, _, _) in &MOMENTS {
            // Use inputs exactly representable in f32 so only the arithmetic differs.
            let (loc, scale, lo, hi) = (loc as f32, scale as f32, lo as f32, hi as f32);
            let d32 = TruncatedNormal::new(loc, scale, lo, hi).unwrap();
            let d64 = TruncatedNormal::new(loc as f64, scale as f64, lo as f64, hi as f64).unwrap();
            let sd = d64.variance().sqrt();
            worst_v = worst_v.max(rel(d32.variance() as f64, d64.variance()));
            for k in 1..64 {
                let u = k as f32 / 64.0;
                let x = d64.quantile(u as f64);
                // Beyond the f32 rounding of x itself.
                let err = (d32.quantile(u) as f64 - x).abs() - 2.0 * f32::EPSILON as f64 * x.abs();
                worst_q = worst_q.max(err.max(0.0) / sd);
                let ec = (d32.cdf(x as f32) as f64 - d64.cdf(x as f32 as f64)).abs();
                assert!(ec < 1e-5, "cdf {loc} {scale} [{lo}, {hi}]: {ec}");
            }
        }
        println!("f32 vs f64: quantile {worst_q:.1e} sd, variance {worst_v:.1e} relative");
        assert!(worst_q < 2e-5, "{worst_q}");
        assert!(worst_v < 2e-5, "{worst_v}");
    }

    proptest! {
        #[test]
        fn truncated_normal_never_misbehaves(
            loc in -50.0f64..50.0,
            log_scale in -6.0f64..3.0,
            lo in -20.0f64..20.0,
            log_width in -6.0f64..2.0,
            u in 0.0f64..1.0,
            du in 0.0f64..0.01,
        ) {
            let scale = 10f64.powf(log_scale);
            let hi = lo + 10f64.powf(log_width);
            let Ok(d) = TruncatedNormal::new(loc, scale, lo, hi) else { return Ok(()); };
            prop_assert!(d.mean() >= lo && d.mean() <= hi);
            prop_assert!(d.variance() > 0.0 && d.variance() <= (hi - lo).powi(2) / 12.0);
            let x = d.sample(u);
            prop_assert!(x >= lo && x <= hi);
            let x2 = d.sample((u + du).min(1.0));
            prop_assert!(x2 >= x - 1e-12 * (hi - lo), "not monotone: {} then {}", x, x2);
            if u > 1e-6 && u < 1.0 - 1e-6 {
                // Up to the CDF step across one ulp of x.
                let back = d.cdf(x);
                let slack = d.pdf(x) * 2.0 * f64::EPSILON * x.abs();
                prop_assert!((back - u).abs() < 1e-10 + slack, "cdf(quantile({})) = {}", u, back);
            }
            let f32d = TruncatedNormal::new(loc as f32, scale as f32, lo as f32, hi as f32);
            if let Ok(f) = f32d {
                let y = f.sample(u as f32);
                prop_assert!(y >= lo as f32 && y <= hi as f32);
            }
        }
    }
}
