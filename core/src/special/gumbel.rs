//! Samples of the maximum `y*` of a GP from the Gumbel approximation of max-value entropy
//! search (Wang & Jegelka 2017, MES-G), as BoTorch's `_sample_max_value_Gumbel` draws them for
//! `qMaxValueEntropy(use_gumbel=True)`.
//!
//! Treating the posterior marginals `N(μᵢ, σᵢ²)` at a set of candidates as independent,
//!
//! `Pr[y* < z] ≈ F(z) = Πᵢ Φ((z − μᵢ)/σᵢ)`.
//!
//! Its quartiles `z₂₅, z₅₀, z₇₅` are found by bisection, and a Gumbel
//! `G(z) = exp(−exp(−(z − a)/b))` is fitted to them: its quantile is `a − b·ln(−ln q)`, so
//!
//! `b = (z₂₅ − z₇₅)/(ln ln(4/3) − ln ln 4)`, `a = z₅₀ + b·ln ln 2`,
//!
//! and a sample is `y* = a − b·ln(−ln u)` for `u` uniform on (0, 1). The fit goes through
//! `z₅₀` and the interquartile range exactly (two parameters, three quartiles: `z₂₅` and `z₇₅`
//! themselves only where `F` has a Gumbel's skew).
//!
//! `ln F` is summed from `ln Φ` terms ([`log_normal_cdf`]), so that a product of thousands of
//! factors (BoTorch's candidate set has 1000·d points) neither underflows nor loses its
//! relative precision.

use super::normal::{mills, LN_SQRT_2PI};
use super::{cst, normal_cdf, normal_sf};
use crate::real::Real;

/// `ln ln 2`.
const LN_LN_2: f64 = -0.366_512_920_581_664_3;
/// `ln ln 4`.
const LN_LN_4: f64 = 0.326_634_259_978_281;
/// `ln ln(4/3)`.
const LN_LN_4_3: f64 = -1.245_899_323_707_238_2;

/// Why max-value samples could not be drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GumbelError {
    /// A mean, standard deviation or uniform was NaN or infinite (or the bracket of a
    /// quartile grew past the largest finite value).
    NonFinite,
    /// A standard deviation was negative (zero is allowed: that factor is a step).
    NegativeStd,
    /// There was no candidate.
    Empty,
    /// The means and standard deviations, or the uniforms and the output, differ in number.
    LengthMismatch,
    /// A uniform was outside the open interval (0, 1), where `ln(−ln u)` is not finite.
    UniformOutOfRange,
}

impl core::fmt::Display for GumbelError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::NonFinite => "a mean, standard deviation or uniform is NaN or infinite",
            Self::NegativeStd => "a standard deviation is negative",
            Self::Empty => "there is no candidate",
            Self::LengthMismatch => {
                "the means and standard deviations, or the uniforms and the output, differ in \
                 number"
            }
            Self::UniformOutOfRange => "a uniform is outside (0, 1)",
        })
    }
}

impl core::error::Error for GumbelError {}

/// The Gumbel fitted to the quartiles of `F(z) = Πᵢ Φ((z − μᵢ)/σᵢ)` (see the module
/// documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GumbelFit<R> {
    /// Location `a = z₅₀ + b·ln ln 2`.
    pub location: R,
    /// Scale `b = (z₂₅ − z₇₅)/(ln ln(4/3) − ln ln 4) ≥ 0` (zero when `F` is a step).
    pub scale: R,
    /// The quartiles `[z₂₅, z₅₀, z₇₅]` of `F` the fit was made from.
    pub quartiles: [R; 3],
}

impl<R: Real> GumbelFit<R> {
    /// The fit's quantile at `u ∈ (0, 1)`, `a − b·ln(−ln u)`: a sample of `y*` when `u` is
    /// uniform. NaN or infinite for `u` outside (0, 1).
    pub fn sample(&self, u: R) -> R {
        // −ln u loses its relative precision as u → 1; there u − 1 is exact (Sterbenz) and
        // ln_1p keeps it.
        let minus_ln_u = if u > R::HALF {
            -(u - R::ONE).ln_1p()
        } else {
            -u.ln()
        };
        self.location - self.scale * minus_ln_u.ln()
    }
}

/// `ln Φ(t)`, finite for every finite `t` and accurate in relative terms: `ln(1 − Q(t))`
/// through `ln_1p` for `t ≥ 0` (where it vanishes like `−Q(t)`), `ln Φ(t)` directly on
/// `(−3, 0)`, and below `−3`, where `Φ` underflows from `t ≈ −37.5` in `f64`,
/// `ln Φ(t) = −t²/2 − ln √(2π) + ln M(−t)` with the Mills ratio `M`. `−∞` at `t = −∞` and
/// where `t²/2` itself overflows (below `−1.9e154` in `f64`, `−2.6e19` in `f32`).
pub fn log_normal_cdf<R: Real>(t: R) -> R {
    if t >= R::ZERO {
        return (-normal_sf(t)).ln_1p();
    }
    if t > cst(-3.0) {
        return normal_cdf(t).ln();
    }
    if t == -R::INFINITY {
        return t;
    }
    let x = -t;
    // x²/2 split as `normal_pdf`'s exponent is: a head h (a multiple of 1/16, so h² is
    // exact) and a tail, x²/2 = h²/2 + (x − h)(x + h)/2, where x² alone would cost a
    // relative error of x²·ε; directly beyond 1e30, where 16x could overflow (and x²/2
    // rounds to the same).
    let half_sq = if x < cst(1e30) {
        let sixteen = cst::<R>(16.0);
        let head = (x * sixteen).floor() / sixteen;
        R::HALF * head * head + R::HALF * (x - head) * (x + head)
    } else {
        R::HALF * x * x
    };
    -half_sq - cst::<R>(LN_SQRT_2PI) + mills(x).m.ln()
}

/// `ln F(z) = Σᵢ ln Φ((z − μᵢ)/σᵢ)` (a factor with `σᵢ = 0` is the step `z ≥ μᵢ`), or some
/// partial sum below `stop_below` once the sum is sure to end there: every term is at most
/// zero, so the comparisons of the bisection need no more.
fn log_cdf_of_max<R: Real>(means: &[R], stds: &[R], z: R, stop_below: R) -> R {
    let mut sum = R::ZERO;
    for (&m, &s) in means.iter().zip(stds) {
        sum += if s > R::ZERO {
            log_normal_cdf((z - m) / s)
        } else if z >= m {
            R::ZERO
        } else {
            -R::INFINITY
        };
        if sum < stop_below {
            break;
        }
    }
    sum
}

/// The `q`-quantile `inf{z : F(z) ≥ q}` of `F` by bisection (inputs already checked).
///
/// BoTorch brackets with `lo = minᵢ(μᵢ − 3σᵢ)`, where `F ≤ Φ(−3) < ¼`, and
/// `hi = maxᵢ(μᵢ + 5σᵢ)`, where `F ≥ Φ(5)ⁿ` (above ¾ for fewer than 10⁶ candidates), and calls
/// `brentq` with SciPy's tolerance `|Δz| ≤ 2·10⁻¹² + 4ε|z|`; the same bracket and tolerance are
/// used here, the bracket stepped upwards should `F(hi)` be below `q` (more candidates), and
/// the bisection also stops when the bracket has no float inside (in `f32`, where 2·10⁻¹² is
/// below the resolution).
fn quantile<R: Real>(means: &[R], stds: &[R], q: R) -> Result<R, GumbelError> {
    let log_q = q.ln();
    let mut lo = R::INFINITY;
    let mut hi = -R::INFINITY;
    for (&m, &s) in means.iter().zip(stds) {
        lo = lo.min(m - cst::<R>(3.0) * s);
        hi = hi.max(m + cst::<R>(5.0) * s);
    }
    if !lo.is_finite() || !hi.is_finite() {
        return Err(GumbelError::NonFinite);
    }
    // F(lo) ≥ q only when the lowest point of the bracket is a step's (σ = 0, every σ > 0
    // factor being at most Φ(−3) there): F is 0 below it, so it is the quantile.
    if log_cdf_of_max(means, stds, lo, log_q) >= log_q {
        return Ok(lo);
    }
    let mut steps = 0;
    while log_cdf_of_max(means, stds, hi, log_q) < log_q {
        // hi > lo here: hi = lo only if every σ is 0 and every μ equal, when F(hi) = 1.
        let width = hi - lo;
        lo = hi;
        hi += width * R::TWO;
        steps += 1;
        if !hi.is_finite() || steps > 64 || width <= R::ZERO {
            return Err(GumbelError::NonFinite);
        }
    }
    let xtol = cst::<R>(2e-12);
    let rtol = cst::<R>(4.0) * R::EPSILON;
    loop {
        // Halves first: lo + hi may overflow.
        let mid = lo * R::HALF + hi * R::HALF;
        if mid <= lo || mid >= hi || hi - lo <= xtol + rtol * mid.abs() {
            // hi, where F ≥ q is known: within the tolerance of the quantile like any point
            // of the bracket, and exactly it where F jumps there (σ = 0).
            return Ok(hi);
        }
        if log_cdf_of_max(means, stds, mid, log_q) >= log_q {
            hi = mid;
        } else {
            lo = mid;
        }
    }
}

/// Checks the candidates' moments: as many means as standard deviations, at least one, all
/// finite, no negative standard deviation.
fn check_moments<R: Real>(means: &[R], stds: &[R]) -> Result<(), GumbelError> {
    if means.len() != stds.len() {
        return Err(GumbelError::LengthMismatch);
    }
    if means.is_empty() {
        return Err(GumbelError::Empty);
    }
    if means.iter().chain(stds).any(|v| !v.is_finite()) {
        return Err(GumbelError::NonFinite);
    }
    if stds.iter().any(|&s| s < R::ZERO) {
        return Err(GumbelError::NegativeStd);
    }
    Ok(())
}

/// The Gumbel fitted to the quartiles of `F(z) = Πᵢ Φ((z − μᵢ)/σᵢ)` over candidates with
/// posterior means `means` and standard deviations `stds` (see the module documentation).
///
/// BoTorch floors the candidates' variances at `1e-8` before fitting; that is the caller's to
/// do (`σ = 0` is accepted here: its factor is the step `z ≥ μ`).
///
/// Errors: different lengths ([`GumbelError::LengthMismatch`]), no candidate
/// ([`GumbelError::Empty`]), a NaN or infinite moment ([`GumbelError::NonFinite`]), a
/// negative standard deviation ([`GumbelError::NegativeStd`]).
pub fn gumbel_fit<R: Real>(means: &[R], stds: &[R]) -> Result<GumbelFit<R>, GumbelError> {
    check_moments(means, stds)?;
    let z25 = quantile(means, stds, cst(0.25))?;
    let z50 = quantile(means, stds, R::HALF)?;
    let z75 = quantile(means, stds, cst(0.75))?;
    let scale = (z25 - z75) / cst::<R>(LN_LN_4_3 - LN_LN_4);
    Ok(GumbelFit {
        location: z50 + scale * cst::<R>(LN_LN_2),
        scale,
        quartiles: [z25, z50, z75],
    })
}

/// Samples of the maximum from the Gumbel fit ([`gumbel_fit`]): `out[k] = a − b·ln(−ln uₖ)`
/// for `uₖ = uniforms[k]`. The caller gives every buffer (nothing is allocated) and the
/// uniforms (BoTorch draws `num_mv_samples = 10` of them with `torch.rand`).
///
/// Errors: those of [`gumbel_fit`], and [`GumbelError::LengthMismatch`] when `uniforms` and
/// `out` differ in length, [`GumbelError::UniformOutOfRange`] for a uniform outside (0, 1)
/// (NaN included). `out` is untouched on error.
pub fn gumbel_max_values<R: Real>(
    means: &[R],
    stds: &[R],
    uniforms: &[R],
    out: &mut [R],
) -> Result<(), GumbelError> {
    if uniforms.len() != out.len() {
        return Err(GumbelError::LengthMismatch);
    }
    if uniforms.iter().any(|&u| !(u > R::ZERO && u < R::ONE)) {
        return Err(GumbelError::UniformOutOfRange);
    }
    let fit = gumbel_fit(means, stds)?;
    for (o, &u) in out.iter_mut().zip(uniforms) {
        *o = fit.sample(u);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! References marked "mpmath" were computed with mpmath 1.3 at 50 digits and rounded to
    //! `f64`.
    extern crate std;

    use super::super::entropy::{mes_term, mes_term_slope};
    use super::super::normal_quantile;
    use super::*;

    /// The `q`-quantile of `Φ((z − μ)/σ)^C` in closed form, `μ + σΦ⁻¹(q^{1/C})`, with
    /// `1 − q^{1/C} = −expm1(ln q/C)` so that large `C` keeps its precision.
    fn closed_form_quantile(mean: f64, std: f64, count: usize, q: f64) -> f64 {
        mean - std * normal_quantile(-(q.ln() / count as f64).exp_m1())
    }

    #[test]
    fn gumbel_fit_of_equal_candidates_matches_the_closed_form_quartiles() {
        for (mean, std, count) in [
            (0.3, 1.7, 1usize),
            (0.3, 1.7, 1000),
            (-2.0, 0.05, 20_000),
            (5.0, 3.0, 7),
        ] {
            let means = std::vec![mean; count];
            let stds = std::vec![std; count];
            let fit = gumbel_fit(&means, &stds).unwrap();
            let z = [0.25, 0.5, 0.75].map(|q| closed_form_quantile(mean, std, count, q));
            for (got, want) in fit.quartiles.iter().zip(z) {
                assert!(
                    (got - want).abs() < 1e-9 * (1.0 + want.abs()),
                    "{got} vs {want}"
                );
            }
            // b = (z₂₅ − z₇₅)/(ln ln(4/3) − ln ln 4), a = z₅₀ + b ln ln 2, with the constants
            // from their definitions.
            let (ll2, ll4, ll43) = (
                core::f64::consts::LN_2.ln(),
                (4.0f64).ln().ln(),
                (4.0f64 / 3.0).ln().ln(),
            );
            let b = (z[0] - z[2]) / (ll43 - ll4);
            let a = z[1] + b * ll2;
            assert!(b > 0.0);
            assert!((fit.scale - b).abs() < 1e-9 * b, "b {} vs {b}", fit.scale);
            assert!((fit.location - a).abs() < 1e-9 * (1.0 + a.abs()));
            // Through the median and the interquartile range exactly.
            let median = fit.sample(0.5);
            assert!((median - z[1]).abs() < 1e-9 * (1.0 + z[1].abs()));
            let spread = fit.sample(0.75) - fit.sample(0.25);
            assert!((spread - (z[2] - z[0])).abs() < 1e-9 * (z[2] - z[0]));
        }
        // mpmath, C = 1000, μ = 0.3, σ = 1.7 (root of C·ln Φ((z − μ)/σ) = ln q).
        let fit = gumbel_fit(&[0.3; 1000], &[1.7; 1000]).unwrap();
        for (got, want) in
            fit.quartiles
                .iter()
                .zip([5.38656758337152, 5.735902142152826, 6.153114322508411])
        {
            assert!((got - want).abs() < 1e-10 * want, "{got} vs {want}");
        }
    }

    #[test]
    fn gumbel_samples_are_the_fits_quantiles_and_handle_steps() {
        // Mixed candidates: samples increase with u and are a − b ln(−ln u).
        let means = [0.1, 0.5, -0.3, 0.45, 0.2];
        let stds = [0.2, 0.05, 0.9, 0.0, 0.3];
        let u = [0.05, 0.25, 0.5, 0.75, 0.999_999];
        let mut out = [0.0; 5];
        gumbel_max_values(&means, &stds, &u, &mut out).unwrap();
        let fit = gumbel_fit(&means, &stds).unwrap();
        for (o, u) in out.iter().zip(u) {
            let want = fit.location - fit.scale * (-u.ln()).ln();
            assert!((o - want).abs() < 1e-9, "{o} vs {want}");
        }
        assert!(out.windows(2).all(|w| w[0] < w[1]));
        // Every σ = 0: F is the step at the largest mean, b = 0, every sample is that mean.
        let fit = gumbel_fit(&[1.0, 3.0, 2.0], &[0.0; 3]).unwrap();
        assert_eq!(fit.quartiles, [3.0; 3]);
        assert_eq!(fit.scale, 0.0);
        assert_eq!(fit.sample(0.1), 3.0);
        // The lowest bracket point a step's: F jumps from 0 to Φ(5)·Φ(10) ≥ ¾ at z = 0.
        let fit = gumbel_fit(&[0.0, -1.0], &[0.0, 0.2]).unwrap();
        assert_eq!(fit.quartiles, [0.0; 3]);
        // f32 works too, and agrees with f64 to its precision.
        let m32 = means.map(|m| m as f32);
        let s32 = stds.map(|s| s as f32);
        let f32fit = gumbel_fit(&m32, &s32).unwrap();
        assert!((f32fit.location as f64 - fit_location(&means, &stds)).abs() < 1e-5);
    }

    fn fit_location(means: &[f64], stds: &[f64]) -> f64 {
        gumbel_fit(means, stds).unwrap().location
    }

    #[test]
    fn many_candidates_far_in_the_tail_do_not_underflow() {
        // 30 000 factors, most of them near 1 but each 1 − 1e-5; and one factor deep in its
        // lower tail at the quartiles of the others: ln F stays finite and the bisection sound.
        let mut means = std::vec![0.0f64; 30_000];
        let mut stds = std::vec![1.0f64; 30_000];
        means[0] = 40.0;
        stds[0] = 1e-3;
        let fit = gumbel_fit(&means, &stds).unwrap();
        // The maximum is then the point at 40 to within its σ.
        assert!(
            (fit.quartiles[1] - 40.0).abs() < 1e-2,
            "{:?}",
            fit.quartiles
        );
        let fit = gumbel_fit(&means[1..], &stds[1..]).unwrap();
        let want = closed_form_quantile(0.0, 1.0, 29_999, 0.5);
        assert!((fit.quartiles[1] - want).abs() < 1e-9);
    }

    #[test]
    fn gumbel_refuses_bad_inputs_with_typed_errors() {
        let mut out = [0.0; 2];
        let u = [0.3, 0.6];
        let g = |m: &[f64], s: &[f64], u: &[f64], o: &mut [f64]| gumbel_max_values(m, s, u, o);
        assert_eq!(g(&[], &[], &u, &mut out), Err(GumbelError::Empty));
        assert_eq!(
            g(&[0.0], &[1.0, 1.0], &u, &mut out),
            Err(GumbelError::LengthMismatch)
        );
        assert_eq!(
            g(&[0.0], &[1.0], &u, &mut [0.0; 3]),
            Err(GumbelError::LengthMismatch)
        );
        assert_eq!(
            g(&[f64::NAN], &[1.0], &u, &mut out),
            Err(GumbelError::NonFinite)
        );
        assert_eq!(
            g(&[0.0], &[f64::INFINITY], &u, &mut out),
            Err(GumbelError::NonFinite)
        );
        assert_eq!(
            g(&[0.0], &[-1e-3], &u, &mut out),
            Err(GumbelError::NegativeStd)
        );
        for bad in [0.0, 1.0, -0.5, 1.5, f64::NAN] {
            assert_eq!(
                g(&[0.0], &[1.0], &[0.5, bad], &mut out),
                Err(GumbelError::UniformOutOfRange)
            );
        }
        assert_eq!(out, [0.0; 2], "untouched on error");
        assert_eq!(gumbel_fit::<f32>(&[], &[]), Err(GumbelError::Empty));
    }

    #[test]
    fn log_normal_cdf_matches_mpmath_from_the_far_tail_to_one() {
        // (t, ln Φ(t)) from mpmath.
        for (t, want) in [
            (-40.0, -804.6084420137538),
            (-10.0, -53.23128515051247),
            (-3.0, -6.607726221510349),
            (-1.0, -1.8410216450092636),
            (0.0, -core::f64::consts::LN_2),
            (1.0, -0.17275377902344988),
            (5.0, -2.866516129637636e-07),
        ] {
            let got = log_normal_cdf(t);
            assert!(
                (got - want).abs() <= 4e-15 * want.abs(),
                "ln Φ({t}) = {got} vs {want}"
            );
        }
        assert_eq!(log_normal_cdf(f64::NEG_INFINITY), f64::NEG_INFINITY);
        assert_eq!(log_normal_cdf(f64::INFINITY), 0.0);
        assert!(log_normal_cdf(-1e150f64).is_finite());
        assert!(log_normal_cdf(-20.0f32).is_finite());
    }

    #[test]
    #[cfg_attr(
        feature = "fast-math",
        ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
    )]
    fn mes_term_slope_matches_mpmath_and_finite_differences_in_both_precisions() {
        // (γ, −(r/2)(1 + γ² + γr)) from mpmath.
        let reference = [
            (-40.0, -0.024937791175459637),
            (-10.0, -0.09627350610953729),
            (-1.0, -0.362116470865665),
            (0.0, -0.3989422804014327),
            (1.0, -0.3289568425812865),
            (5.0, -1.932736475760423e-05),
        ];
        for (g, want) in reference {
            let got = mes_term_slope(g);
            assert!(
                (got - want).abs() < 1e-13 * want.abs(),
                "s({g}) = {got} vs {want}"
            );
            // Central differences of the term itself.
            let h = 1e-5 * (1.0f64).max(g.abs());
            let fd = (mes_term(g + h) - mes_term(g - h)) / (2.0 * h);
            assert!(
                (fd - got).abs() < 1e-7 * got.abs(),
                "fd {fd} vs {got} at {g}"
            );
            // f32: finite, and within its differences' precision.
            let g32 = g as f32;
            let s32 = mes_term_slope(g32);
            assert!(s32.is_finite());
            assert!(
                (s32 as f64 - want).abs() < 1e-5 * want.abs(),
                "f32 s({g}) = {s32}"
            );
            let h32 = 1e-2f32 * (1.0f32).max(g32.abs());
            let fd32 = (mes_term(g32 + h32) - mes_term(g32 - h32)) / (2.0 * h32);
            assert!(
                (fd32 - s32).abs() < 2e-2 * s32.abs(),
                "f32 fd {fd32} vs {s32} at {g}"
            );
        }
        // Finite (and negative) everywhere, tending to 1/γ below and 0 above.
        for g in [-1e300, -1e30, -1e6, -37.6, -2.0, 1e-3, 30.0, 1e300] {
            let s = mes_term_slope(g);
            assert!(s.is_finite() && s <= 0.0, "s({g}) = {s}");
        }
        assert!((mes_term_slope(-1e6f64) * -1e6 - 1.0).abs() < 1e-11);
        assert_eq!(mes_term_slope(f64::INFINITY), 0.0);
        assert_eq!(mes_term_slope(f64::NEG_INFINITY), 0.0);
        assert!(mes_term_slope(f64::NAN).is_nan());
        for g in [-1e30f32, -20.0, 15.0, 1e30] {
            assert!(mes_term_slope(g).is_finite());
        }
    }
}
