//! The standard normal distribution's density, CDF, upper tail and quantile, and the Mills
//! ratio, accurate in relative terms far into the tails.

use super::{cst, is_nan, nan};
use crate::real::Real;

/// 1/√2.
pub(crate) const FRAC_1_SQRT_2: f64 = core::f64::consts::FRAC_1_SQRT_2;
/// 1/√(2π).
pub(crate) const FRAC_1_SQRT_2PI: f64 = 0.3989422804014327;
/// ln √(2π).
pub(crate) const LN_SQRT_2PI: f64 = 0.9189385332046728;

///
/// Rounding `x²` would cost a relative error of `x²·ε` (1e-13 at x = 30); splitting `x` into a
/// short head `h` (a multiple of 1/16, so `h²` is exact) and a tail keeps the exponent exact to
/// rounding.
pub(crate) fn exp_neg_half_sq<R: Real>(x: R) -> R {
    if !x.is_finite() {
        // ±∞ → 0, NaN → NaN.
        return if is_nan(x) { x } else { R::ZERO };
    }
    if x.abs() >= cst(1e30) {
        // exp(−x²/2) underflowed long before (|x| > 40 in f64, 14 in f32); and `16·x` below
        // would overflow near the top of the range (NaN from ∞ − ∞).
        return R::ZERO;
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
pub(crate) fn horner<R: Real>(x: R, coeffs: &[f64]) -> R {
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

/// The Mills ratio `M(x) = Q(x)/φ(x)` and the first two tails of its continued fraction
/// `M = 1/(x + K₁)`, `K₁ = 1/(x + K₂)`, `K₂ = 2/(x + 3/(x + …))`.
///
/// `K₁ = E[Z − x | Z > x]` is the mean excess and `K₁(K₂ − K₁)` the variance of the excess;
/// reading them off the continued fraction avoids the cancellation of `1/M − x` for large `x`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mills<R> {
    pub(crate) m: R,
    pub(crate) k1: R,
    pub(crate) k2: R,
}

/// [`Mills`] at `x ≥ 0`.
pub(crate) fn mills<R: Real>(x: R) -> Mills<R> {
    if x < R::TWO {
        // Direct: Q and φ are both well above underflow, and 1/M − x cancels by at most a few
        // bits here (K₂ loses about 25 ulps at x = 2).
        let m = normal_sf(x) / normal_pdf(x);
        let k1 = R::ONE / m - x;
        let k2 = R::ONE / k1 - x;
        return Mills { m, k1, k2 };
    }
    let mut t1 = R::ZERO;
    let mut t2 = R::ZERO;
    let mut k = continued_fraction_depth(x);
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

/// Laplace's continued fraction for [`mills`] at `x ≥ 2` is evaluated backwards from a fixed
/// depth; the depths were chosen (against 40-digit references) to converge to 1e-16 at the
/// left end of each range.
fn continued_fraction_depth<R: Real>(x: R) -> usize {
    if x < cst(3.0) {
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
    }
}

/// [`mills`] at `L` points at once (`None` where `xs` is `None`), bit for bit.
///
/// Why: the continued fraction is a chain of up to 120 dependent divisions, each waiting for
/// the last, so a desktop core's divider sits mostly idle; the chains of `L` points are
/// independent and run side by side (a point whose depth is smaller joins when the count
/// reaches its depth, so each performs exactly its own divisions in its own order).
pub(crate) fn mills_many<R: Real, const L: usize>(xs: [Option<R>; L]) -> [Option<Mills<R>>; L] {
    let mut out = [None; L];
    let mut x = [R::TWO; L];
    let mut depth = [0usize; L];
    for i in 0..L {
        match xs[i] {
            Some(v) if v < R::TWO => out[i] = Some(mills(v)),
            Some(v) => {
                x[i] = v;
                depth[i] = continued_fraction_depth(v);
            }
            None => {}
        }
    }
    let mut t1 = [R::ZERO; L];
    let mut t2 = [R::ZERO; L];
    let mut k = depth.iter().copied().max().unwrap_or(0);
    while k > 0 {
        let kr = R::from_usize(k);
        for i in 0..L {
            // Every lane divides (x ≥ 2 keeps it finite); only those within their depth keep it.
            let next = kr / (x[i] + t1[i]);
            if k <= depth[i] {
                t2[i] = t1[i];
                t1[i] = next;
            }
        }
        k -= 1;
    }
    for i in 0..L {
        if depth[i] > 0 {
            out[i] = Some(Mills {
                m: R::ONE / (x[i] + t1[i]),
                k1: t1[i],
                k2: t2[i],
            });
        }
    }
    out
}
