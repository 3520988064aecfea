//! Expected improvement and the Pandora's Box Gittins index computed from their textbook
//! formulas, as paper 002's code computes them where it takes no care: what its App. D.1
//! ablation (Fig. 10) compares with LogEI and the stable index of [`super::improvement`].
//!
//! `h(u) = φ(u) + u·Φ(u)` written out cancels for `u < 0` (its relative error grows like
//! `u²·ε`) and is exactly 0 once `φ(u)` underflows (`u ≈ −38.5` in `f64`, `−14` in `f32`); its
//! gradient vanishes with it, which is what the ablation measures. Decide with
//! [`super::improvement`]'s functions; these exist to reproduce the comparison.

use core::cmp::Ordering::{Equal, Greater, Less};

use super::cst;
use super::improvement::{check, ImprovementError};
use crate::real::Real;

const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_7;
const FRAC_1_SQRT_2: f64 = core::f64::consts::FRAC_1_SQRT_2;

/// `φ(u) = exp(−u²/2)/√(2π)` as written.
pub fn textbook_pdf<R: Real>(u: R) -> R {
    cst::<R>(FRAC_1_SQRT_2PI) * (-R::HALF * u * u).exp()
}

/// `Φ(u) = erfc(−u/√2)/2` as written (BoTorch's `Phi`).
pub fn textbook_cdf<R: Real>(u: R) -> R {
    R::HALF * (-u * cst::<R>(FRAC_1_SQRT_2)).erfc()
}

/// `h(u) = φ(u) + u·Φ(u)` as written (BoTorch's `_ei_helper`, which its analytic
/// `ExpectedImprovement` multiplies by σ).
pub fn textbook_h<R: Real>(u: R) -> R {
    textbook_pdf(u) + u * textbook_cdf(u)
}

/// `σ·h((μ − best)/σ)` with [`textbook_h`] (paper 002's "Unst. EI"), `max(μ − best, 0)` when
/// `σ = 0`.
pub fn textbook_expected_improvement<R: Real>(
    mean: R,
    std: R,
    best: R,
) -> Result<R, ImprovementError> {
    check(mean, std, best)?;
    if std == R::ZERO {
        return Ok((mean - best).max(R::ZERO));
    }
    Ok(std * textbook_h((mean - best) / std))
}

/// Doublings of the bracket before [`bisected_gittins_index`] gives up (the bracket's ends
/// pass `f64::MAX` after 1 024).
const BRACKET_DOUBLINGS: usize = 1100;

/// Bisection steps of [`bisected_gittins_index`]: the paper's "100 iterations of bisection
/// search without any early stopping" (App. C).
pub const BISECTION_STEPS: usize = 100;

/// The Pandora's Box Gittins index at `price = λ·c > 0` as paper 002's code finds it (its
/// "PBGI"; [`super::improvement::gittins_index`] is its "S-PBGI"): the `g` with
/// `σ·h((μ − g)/σ) = price`, [`textbook_h`] bisected in `g` from the bracket `[−1, 1]`, its
/// lower end doubled while the improvement there is below the price and its upper end while it
/// is above, then exactly [`BISECTION_STEPS`] halvings and the last midpoint; with the root
/// `u* = (μ − g)/σ` (`+∞` when `σ = 0`, where the index is `μ − price`). The code shares one
/// bracket across a batch of points; here each point has its own, which moves the root by
/// less than the last bracket's width (`2⁻¹⁰⁰` of the first).
///
/// Errors as [`super::improvement::gittins_index`]'s, and [`ImprovementError::NonFinite`]
/// where no bracket is found (the textbook `h` is NaN at `u = −∞`).
pub fn bisected_gittins_index<R: Real>(
    mean: R,
    std: R,
    price: R,
) -> Result<(R, R), ImprovementError> {
    check(mean, std, price)?;
    if price <= R::ZERO {
        return Err(ImprovementError::NonPositivePrice);
    }
    if std == R::ZERO {
        return Ok((mean - price, R::INFINITY));
    }
    let excess = |g: R| std * textbook_h((mean - g) / std) - price;
    let (mut lo, mut hi) = (-R::ONE, R::ONE);
    let mut doublings = 0;
    // NaN counts as outside the bracket: the ends move on until the cap.
    let at_least = |v: R| matches!(v.partial_cmp(&R::ZERO), Some(Greater | Equal));
    let at_most = |v: R| matches!(v.partial_cmp(&R::ZERO), Some(Less | Equal));
    while !at_least(excess(lo)) {
        lo *= R::TWO;
        doublings += 1;
        if doublings > BRACKET_DOUBLINGS || !lo.is_finite() {
            return Err(ImprovementError::NonFinite);
        }
    }
    while !at_most(excess(hi)) {
        hi *= R::TWO;
        doublings += 1;
        if doublings > BRACKET_DOUBLINGS || !hi.is_finite() {
            return Err(ImprovementError::NonFinite);
        }
    }
    for _ in 0..BISECTION_STEPS {
        let mid = R::HALF * (lo + hi);
        if excess(mid) > R::ZERO {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let index = R::HALF * (lo + hi);
    if !index.is_finite() {
        return Err(ImprovementError::NonFinite);
    }
    Ok((index, (mean - index) / std))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::special::improvement::{gittins_index_with_root, h, log_h};

    #[test]
    fn the_textbook_h_equals_mpmath_where_it_does_not_cancel_and_loses_the_tail() {
        // mpmath, 50 digits: h(1) = 1.08331547058768629838..., h(0) = 1/√(2π),
        // h(−3) = 3.82154317047723595...e-4 (cancels: two terms near 4.4e-3).
        assert!((textbook_h(1.0f64) - 1.083_315_470_587_686_3).abs() < 4e-16);
        assert_eq!(textbook_h(0.0f64), FRAC_1_SQRT_2PI);
        let want = 3.821_543_170_477_236e-4;
        // The cancellation costs tens of ulps here (1.2e-14 measured); the stable h keeps a few.
        let got = textbook_h(-3.0f64);
        assert!((got - want).abs() < 1e-13 * want, "{got:e} vs {want:e}");
        assert!((h(-3.0f64) - want).abs() < 1e-15 * want);
        // Past φ's underflow the textbook h is 0; the stable log of h is not -∞.
        assert_eq!(textbook_h(-40.0f64), 0.0);
        assert!(log_h(-40.0f64).is_finite());
        // In f32 φ underflows near −14.
        assert_eq!(textbook_h(-15.0f32), 0.0);
    }

    #[test]
    fn the_bisected_index_is_the_stable_one_where_the_textbook_h_is_accurate() {
        for &(mean, std, price) in &[
            (0.3, 1.0, 1e-4),
            (-2.0, 0.05, 1e-4),
            (1.5, 0.7, 0.1),
            (0.0, 3.0, 2.0),
            (10.0, 1e-3, 1e-4),
        ] {
            let (g, u) = bisected_gittins_index(mean, std, price).unwrap();
            let (g0, u0) = gittins_index_with_root(mean, std, price).unwrap();
            assert!((g - g0).abs() <= 1e-12 * (1.0 + g0.abs()), "{g} vs {g0}");
            if u0.is_finite() && u0 < 10.0 {
                assert!((u - u0).abs() <= 1e-9 * (1.0 + u0.abs()), "{u} vs {u0}");
            }
            // The definition: EI at the index is the price.
            let ei = textbook_expected_improvement(mean, std, g).unwrap();
            assert!((ei - price).abs() <= 1e-9 * price, "EI {ei} vs {price}");
        }
        assert_eq!(
            bisected_gittins_index(1.0, 0.0, 0.25).unwrap(),
            (0.75, f64::INFINITY)
        );
    }

    #[test]
    fn in_f32_the_bisected_index_is_the_stable_one_to_f32_rounding() {
        for &(mean, std, price) in &[(0.3f32, 1.0f32, 1e-4f32), (1.5, 0.7, 0.1), (0.0, 3.0, 2.0)] {
            let (g, _) = bisected_gittins_index(mean, std, price).unwrap();
            let (g0, _) = gittins_index_with_root(mean, std, price).unwrap();
            assert!((g - g0).abs() <= 1e-5 * (1.0 + g0.abs()), "{g} vs {g0}");
        }
    }

    #[test]
    fn bad_arguments_are_refused() {
        assert_eq!(
            bisected_gittins_index(0.0, 1.0, 0.0),
            Err(ImprovementError::NonPositivePrice)
        );
        assert_eq!(
            bisected_gittins_index(f64::NAN, 1.0, 0.1),
            Err(ImprovementError::NonFinite)
        );
        assert_eq!(
            textbook_expected_improvement(0.0, -1.0, 0.0),
            Err(ImprovementError::NegativeStd)
        );
        // A bracket that runs out of finite numbers is refused, not looped on: with a mean near
        // the largest number, the improvement stays above the price at every finite upper end.
        assert_eq!(
            bisected_gittins_index(f64::MAX, 1.0, 1e-4),
            Err(ImprovementError::NonFinite)
        );
    }
}
