//! References marked "mpmath" were computed with mpmath 1.3 at 50–80 significant digits
//! (closed forms, or bisection on the exact CDF) and rounded to `f64`.
#![allow(clippy::excessive_precision)]
extern crate std;

use super::normal::*;
use std::println;

pub(crate) fn rel(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else {
        (a - b).abs() / b.abs()
    }
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
