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
#[cfg_attr(
    feature = "fast-math",
    ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
)]
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

// (u, ln h(u), Φ(u)/h(u)) from mpmath (80 digits; 400 for u ≤ −100).
const LOG_H: [(f64, f64, f64); 24] = [
    (-1000.0, -500014.73445209115845, 1000.001999994000042),
    (-200.0, -20011.515648259739324, 200.00999925013121767),
    (-40.0, -808.29856835661996024, 40.049906657648518193),
    (-37.5, -711.29474844751272227, 37.55322011798027489),
    (-20.0, -206.91783850942509785, 20.099262811101281775),
    (-15.0, -118.84817068411358416, 15.131608564904813136),
    (-10.0, -55.553122036122355927, 10.194383033412553306),
    (-5.0, -16.744301162660990143, 5.3618162412880885298),
    (-3.0, -7.8696860596030285171, 3.5323375176251605167),
    (-2.0, -4.7687835239171141569, 2.6794168839555859839),
    (-1.5, -3.5299359208057098515, 2.2795806941564461644),
    (-1.0, -2.4851210257126413368, 1.9042712333296918229),
    (-0.5, -1.6205162643873199193, 1.5598731483480796712),
    (-0.1, -1.0471533140728459969, 1.3112733937140519111),
    (0.0, -0.91893853320467274178, 1.2533141373155002512),
    (0.1, -0.79643133955074713399, 1.197129166691884444),
    (0.5, -0.35982768374506381859, 0.99092271800410996015),
    (
        0.8994715612537435,
        -4.0481603386395231857e-17,
        0.81579923146199239969,
    ),
    (1.0, 0.080026218849306940029, 0.77663872520173925975),
    (2.0, 0.69738354578822831219, 0.48655931878528386862),
    (5.0, 1.6094379231264313851, 0.19999994053122004649),
    (10.0, core::f64::consts::LN_10, 0.1),
    (40.0, 3.6888794541139363029, 0.025),
    (1e6, 13.815510557964274104, 1.0e-6),
];

#[test]
fn log_h_matches_mpmath_from_deep_tail_to_large_u() {
    use super::improvement::{h, log_h, log_h_slope};
    let mut worst: f64 = 0.0;
    for &(u, want, slope) in &LOG_H {
        let got = log_h(u);
        // Relative to |ln h| except where ln h crosses zero (h = 1 at u ≈ 0.8995), where the
        // error of h itself (a few ulps) is the meaningful measure.
        let err = (got - want).abs() / want.abs().max(1.0);
        worst = worst.max(err);
        // A few ulps: 1/M − x cancels by about two bits for −2 < u < 0 (see mills).
        assert!(err < 1.5e-15, "ln h({u}) = {got:e}, mpmath {want:e}");
        let e = rel(log_h_slope(u), slope);
        assert!(
            e < 2e-15,
            "(ln h)'({u}) = {:e}, mpmath {slope:e}",
            log_h_slope(u)
        );
        if want > -700.0 {
            // exp of the reference carries its rounding (|ln h|·ε) as a relative error.
            assert!(
                rel(h(u), want.exp()) < 4e-16 * want.abs().max(8.0),
                "h({u})"
            );
        }
    }
    println!("ln h worst relative error {worst:.1e}");
    // The pair Newton's method uses is bit for bit the two functions.
    for i in 0..400 {
        let u = -60.0 + 0.17 * i as f64;
        let (v, s) = super::improvement::log_h_with_slope(u);
        assert_eq!(
            (v.to_bits(), s.to_bits()),
            (log_h(u).to_bits(), log_h_slope(u).to_bits())
        );
    }
    // Beyond the table: h(u) − h(−u) = u, and h ≥ max(u, 0).
    for i in 0..200 {
        let u = -8.0 + 0.08 * i as f64;
        assert!(
            (h(u) - h(-u) - u).abs() < 4e-15 * u.abs().max(1.0),
            "h({u}) − h({})",
            -u
        );
        assert!(h(u) >= u.max(0.0));
    }
}

#[test]
fn log_h_inverse_matches_the_notes_table_and_round_trips() {
    use super::improvement::{log_h, log_h_inverse};
    // (r, h⁻¹(r)) from the table in `docs/notes/seed-002.md` §2.4 (17 significant digits, mpmath).
    let table = [
        (1e-300, -36.949568054037773),
        (1e-100, -21.129673280216516),
        (1e-30, -11.251185889347143),
        (1e-12, -6.7571594604253289),
        (1e-8, -5.3045079152476928),
        (1e-6, -4.424892300505839),
        (1e-4, -3.3630153259270826),
        (1e-3, -2.7178055152317572),
        (1e-2, -1.9383563072901023),
        (0.1, -0.90234634751003452),
        (0.3989422804014327, 0.0),
        (1.0, 0.89947156125374355),
        (10.0, 10.0),
    ];
    for (r, want) in table {
        let got = log_h_inverse(f64::ln(r));
        assert!(
            (got - want).abs() <= 3e-15 * want.abs().max(1.0),
            "h⁻¹({r:e}) = {got:e}, want {want:e}"
        );
    }
    // Round trip over 30 decades of log-ratios, down to ln r = −1400 (λc/σ below f64's range).
    for i in 0..=400 {
        let log_r = -1400.0 + 3.55 * i as f64;
        let u = log_h_inverse(log_r);
        assert!(
            (log_h(u) - log_r).abs() <= 8e-16 * log_r.abs().max(1.0),
            "ln r = {log_r}"
        );
    }
    assert!(log_h_inverse(f64::NAN).is_nan());
    assert_eq!(log_h_inverse(f64::NEG_INFINITY), f64::NEG_INFINITY);
}

#[test]
fn log_expected_improvement_matches_mpmath_and_handles_zero_std() {
    use super::improvement::{expected_improvement, log_expected_improvement, ImprovementError};
    // (mean, std, best, ln EI) from mpmath at 400 digits.
    let cases = [
        (0.0, 1.0, 1000.0, -500014.7344520911584469),
        (0.0, 1.0, 40.0, -808.2985683566199602409),
        (1.0, 0.5, 1.2, -2.160916981785529110658),
        (-3.0, 2.0, 4.0, -9.0536628572054414275),
        (5.0, 1e-3, 0.0, 1.609437912434100374601),
        (0.0, 1.0, -3.0, 1.098739665327707772686),
        (1e-3, 1e-5, 0.5, -1245005034.067416562859),
    ];
    for (m, s, b, want) in cases {
        let got = log_expected_improvement(m, s, b).unwrap();
        assert!(
            rel(got, want) < 4e-16,
            "LogEI({m}, {s}, {b}) = {got:e}, want {want:e}"
        );
    }
    assert_eq!(log_expected_improvement(2.0, 0.0, 1.5), Ok(0.5f64.ln()));
    assert_eq!(
        log_expected_improvement(1.0, 0.0, 1.5),
        Ok(f64::NEG_INFINITY)
    );
    assert_eq!(expected_improvement(1.0, 0.0, 1.5), Ok(0.0));
    // A subnormal std: u = ±1e320 overflows; EI is the gain (1 − 0) or 0, as at std = 0 (the
    // std term, 1e-320·φ(u), is 0 in f64), in both precisions.
    assert_eq!(expected_improvement(1.0, 1e-320, 0.0), Ok(1.0));
    assert_eq!(expected_improvement(0.0, 1e-320, 1.0), Ok(0.0));
    assert_eq!(expected_improvement(1.0f32, 1e-40, 0.0), Ok(1.0));
    assert!(
        rel(
            expected_improvement(1.0, 0.5, 1.2).unwrap(),
            (-2.160916981785529110658f64).exp()
        ) < 1e-15
    );
    assert_eq!(
        log_expected_improvement(0.0, -1.0, 0.0),
        Err(ImprovementError::NegativeStd)
    );
    assert_eq!(
        log_expected_improvement(f64::NAN, 1.0, 0.0),
        Err(ImprovementError::NonFinite)
    );
    assert_eq!(
        log_expected_improvement(0.0, 1.0, f64::INFINITY),
        Err(ImprovementError::NonFinite)
    );
}

#[test]
fn gittins_index_matches_mpmath_and_its_limits() {
    use super::improvement::{expected_improvement, gittins_index, ImprovementError};
    // (mean, std, λc, index) from mpmath (80 digits, bisection on h to 400 steps).
    let cases = [
        (0.0, 1.0, 1e-4, 3.363015325927082556397),
        (1.5, 0.3, 0.02, 1.834369163426122037294),
        (-2.0, 5.0, 1e-12, 32.91211022709849838977),
        (10.0, 1e-3, 1e-300, 10.03676241743668739235),
        (0.25, 2.0, 7.0, -6.749883010945114876567),
        (3.0, 1e-8, 0.5, 2.5),
        (-1e3, 1e2, 1e-200, 2024.504318239212880229),
        (0.7, 1e200, 1e-100, 3.694956805403777290075e+201),
        (2.0, 0.9, 0.9, 1.19047559487163080534),
    ];
    for (m, s, p, want) in cases {
        let got = gittins_index(m, s, p).unwrap();
        assert!(
            rel(got, want) < 1e-14,
            "PBGI({m}, {s}, {p}) = {got:e}, want {want:e}"
        );
        // The defining equation, independently: EI at the index equals the price.
        if p > 1e-250 && s < 1e100 {
            let ei = expected_improvement(m, s, got).unwrap();
            assert!(
                rel(ei, p) < 1e-9 * (1.0 + (m - got).abs() / s),
                "EI(index) = {ei:e} ≠ {p:e}"
            );
        }
    }
    assert_eq!(gittins_index(1.0, 0.0, 0.25), Ok(0.75));
    assert_eq!(
        gittins_index(1.0, 1.0, 0.0),
        Err(ImprovementError::NonPositivePrice)
    );
    assert_eq!(
        gittins_index(1.0, 1.0, -1.0),
        Err(ImprovementError::NonPositivePrice)
    );
    assert_eq!(
        gittins_index(1.0, -1.0, 1.0),
        Err(ImprovementError::NegativeStd)
    );
    assert_eq!(
        gittins_index(f64::NAN, 1.0, 1.0),
        Err(ImprovementError::NonFinite)
    );
    // σ → 0 is continuous: the index tends to mean − λc.
    let near: f64 = gittins_index(1.0, 1e-12, 0.25).unwrap();
    assert!((near - 0.75).abs() < 1e-15);
}

#[test]
#[cfg_attr(
    feature = "fast-math",
    ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
)]
fn improvement_functions_in_f32_agree_with_f64() {
    use super::improvement::{gittins_index, log_h, log_h_inverse};
    for &(u, _, _) in &LOG_H {
        let a = log_h(u as f32) as f64;
        let b = log_h((u as f32) as f64);
        assert!(
            (a - b).abs() <= 4e-7 * b.abs().max(1.0),
            "f32 ln h({u}) = {a}, f64 {b}"
        );
    }
    for i in 0..=100 {
        let log_r = -80.0 + 0.85 * i as f64;
        let a = log_h_inverse(log_r as f32) as f64;
        let b = log_h_inverse((log_r as f32) as f64);
        assert!(
            (a - b).abs() <= 2e-6 * b.abs().max(1.0),
            "f32 h⁻¹ at ln r = {log_r}"
        );
    }
    let a = gittins_index(0.0f32, 1.0, 1e-4).unwrap() as f64;
    assert!((a - 3.363015325927082556397).abs() < 2e-6);
}

/// Mixtures: means, stds, log₁₀ of the price, the index, and `∂g/∂μₛ`, `∂g/∂σₛ` (mpmath at 60
/// digits by bisection on the exact EI: `tools/references/mixture_gittins.py`).
#[allow(clippy::type_complexity)]
const MIXTURES: &[(&[f64], &[f64], i32, f64, &[f64], &[f64])] = &[
    (
        &[0.3, -0.2, 1.1, 0.05],
        &[0.5, 0.8, 0.2, 1.3],
        -2,
        1.9839772120347749455,
        &[
            5.2611686357259513784e-3,
            0.04400497303649994467,
            6.8608066881749534063e-5,
            0.95066525026089235442,
        ],
        &[
            0.019082645594495777829,
            0.13348185876835808394,
            3.1747424668118105297e-4,
            1.8330741364335549436,
        ],
    ),
    (
        &[0.3, -0.2, 1.1, 0.05],
        &[0.5, 0.8, 0.2, 1.3],
        0,
        -0.57827387076645971073,
        &[
            0.28862173999447950646,
            0.20488548663762676053,
            0.30049034650123032639,
            0.20600242686666340662,
        ],
        &[
            0.025629578926868436347,
            0.1071990253753382504,
            6.1418658549441024659e-17,
            0.10666506023788597211,
        ],
    ),
    (
        &[0.3, -0.2, 1.1, 0.05],
        &[0.5, 0.8, 0.2, 1.3],
        -12,
        8.6243302474772214745,
        &[
            7.3082211070248302587e-52,
            6.4381695584515744862e-18,
            2.2473813048314363068e-299,
            0.99999999999999999356,
        ],
        &[
            1.221079478021629998e-50,
            7.1590119998383727591e-17,
            8.4609847915900341126e-298,
            6.7409722195499471775,
        ],
    ),
    (
        &[0.0, 0.0],
        &[1.0, 0.001],
        -40,
        13.064024111243487466,
        &[1.0, 0.0],
        &[13.139698389826229696, 0.0],
    ),
    (
        &[2.0, -1.0, 0.5],
        &[0.0, 0.3, 0.01],
        -3,
        1.997,
        &[1.0, 8.429087200443090402e-24, 0.0],
        &[0.0, 8.5034214467989569823e-23, 0.0],
    ),
    (&[5.0, 4.0], &[0.1, 0.1], 1, -5.5, &[0.5, 0.5], &[0.0, 0.0]),
];

#[test]
fn mixture_gittins_index_matches_mpmath_with_its_sensitivities() {
    use super::improvement::mixture_gittins_index;
    for &(means, stds, log10_price, want, d_mean, d_std) in MIXTURES {
        let log_price = log10_price as f64 * core::f64::consts::LN_10;
        let got = mixture_gittins_index(means, stds, log_price).unwrap();
        assert!(
            (got.index - want).abs() <= 1e-12 * want.abs().max(1.0),
            "index {} against {want} for {means:?} {stds:?} 1e{log10_price}",
            got.index
        );
        for s in 0..means.len() {
            let (dm, ds) = got.sensitivity(means[s], stds[s]);
            for (g, w) in [(dm, d_mean[s]), (ds, d_std[s])] {
                assert!(
                    (g - w).abs() <= 1e-9 * w.abs() + 1e-300,
                    "sensitivity {g} against {w} for component {s} of {means:?} 1e{log10_price}"
                );
            }
        }
    }
}

#[test]
fn mixture_gittins_index_of_copies_is_the_single_index_and_errors_are_typed() {
    use super::improvement::{gittins_index, mixture_gittins_index, ImprovementError};
    for (m, sd, price) in [
        (0.0, 1.0, 1e-4),
        (1.5, 0.2, 0.3),
        (-3.0, 2.0, 1e-30),
        (0.7, 0.0, 0.01),
    ] {
        let one = gittins_index(m, sd, price).unwrap();
        let many = mixture_gittins_index(&[m; 5], &[sd; 5], f64::ln(price)).unwrap();
        assert!(
            (many.index - one).abs() <= 1e-13 * one.abs().max(1.0),
            "{m} {sd} {price}"
        );
    }
    let bad =
        |means: &[f64], stds: &[f64], lp: f64| mixture_gittins_index(means, stds, lp).map(|_| ());
    assert_eq!(bad(&[], &[], 0.0), Err(ImprovementError::BadMixture));
    assert_eq!(
        bad(&[0.0, 1.0], &[1.0], 0.0),
        Err(ImprovementError::BadMixture)
    );
    assert_eq!(
        bad(&[0.0], &[-1.0], 0.0),
        Err(ImprovementError::NegativeStd)
    );
    assert_eq!(
        bad(&[f64::NAN], &[1.0], 0.0),
        Err(ImprovementError::NonFinite)
    );
    assert_eq!(
        bad(&[0.0], &[1.0], f64::INFINITY),
        Err(ImprovementError::NonFinite)
    );
}

#[test]
#[cfg_attr(
    feature = "fast-math",
    ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
)]
fn mixture_gittins_index_in_f32_agrees_with_f64() {
    use super::improvement::mixture_gittins_index;
    for &(means, stds, log10_price, want, _, _) in MIXTURES {
        let m32: std::vec::Vec<f32> = means.iter().map(|&v| v as f32).collect();
        let s32: std::vec::Vec<f32> = stds.iter().map(|&v| v as f32).collect();
        let lp = (log10_price as f64 * core::f64::consts::LN_10) as f32;
        let got = mixture_gittins_index(&m32, &s32, lp).unwrap().index as f64;
        assert!(
            (got - want).abs() <= 2e-5 * want.abs().max(1.0),
            "f32 index {got} against {want} for {means:?} 1e{log10_price}"
        );
    }
}

/// `log_h_inverse_many` and `gittins_index_from_log_price_many` against the one-point
/// functions, bit for bit: log-ratios from the deep tail (every continued-fraction depth) to the
/// `r ≥ 10` shortcut, with NaN and ±∞ among them, grouped four at a time in both precisions.
#[test]
fn roots_of_several_points_have_the_bits_of_one_at_a_time() {
    use super::improvement::*;
    let mut log_r: std::vec::Vec<f64> = (0..200).map(|k| -700.0 + 3.6 * k as f64).collect();
    log_r.extend((0..120).map(|k| -12.0 + 0.11 * k as f64));
    log_r.extend([
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        2.5,
        3.0,
        -0.9189385332046727,
    ]);
    for group in log_r.chunks_exact(4) {
        let g = [group[0], group[1], group[2], group[3]];
        let many = log_h_inverse_many(g);
        for (r, u) in g.iter().zip(many) {
            assert_eq!(log_h_inverse(*r).to_bits(), u.to_bits(), "log_r = {r}");
        }
        let g32 = g.map(|r| r as f32);
        for (r, u) in g32.iter().zip(log_h_inverse_many(g32)) {
            assert_eq!(log_h_inverse(*r).to_bits(), u.to_bits(), "f32 log_r = {r}");
        }
        // As log-prices of the index, with means and standard deviations (one σ = 0, one < 0).
        let mean = [0.3, -1.2, 4.0, 0.0];
        let std = [0.7, 0.0, 2.5, -1.0];
        let many = gittins_index_from_log_price_many(mean, std, g);
        for i in 0..4 {
            let one = gittins_index_from_log_price(mean[i], std[i], g[i]);
            match (one, many[i]) {
                (Ok((a, ua)), Ok((b, ub))) => {
                    assert_eq!((a.to_bits(), ua.to_bits()), (b.to_bits(), ub.to_bits()));
                }
                (a, b) => assert_eq!(a, b),
            }
        }
    }
}

/// Means at the edges of `f64`, where `mean − best` overflows: LogEI is the log of a finite
/// number (EI ≈ mean − best when σ ≪ mean − best), not `+∞`. References: ln(2·10³⁰⁸) =
/// ln 2 + 308 ln 10 = 709.889355822726016 (the `f64` nearest 1e308 exceeds 10³⁰⁸ by a relative
/// 1.1e-17, below the tolerance); with σ = 10³⁰⁸ and `u` = 2, ln EI = ln 10³⁰⁸ + ln h(2) where
/// h(2) = φ(2) + 2Φ(2) = 2.0084907026168296 (mpmath), ln h(2) = 0.6973835457882283.
#[test]
fn log_expected_improvement_past_the_largest_difference() {
    use super::improvement::log_expected_improvement;
    let reference: f64 = 709.889355822726016;
    for std in [1.0, 0.0, 1e-300] {
        let got: f64 = log_expected_improvement(1e308, std, -1e308).unwrap();
        assert!(
            (got - reference).abs() < 1e-13 * reference,
            "std {std}: {got} against {reference}"
        );
    }
    let got = log_expected_improvement(1e308, 1e308, -1e308).unwrap();
    let reference = 308.0 * core::f64::consts::LN_10 + 0.6973835457882283;
    assert!(
        (got - reference).abs() < 1e-12 * reference,
        "{got} against {reference}"
    );
    // Below the edge nothing changed: the same value as the plain difference gives.
    let plain = log_expected_improvement(1e307, 1.0, -1e307).unwrap();
    assert!((plain - (2e307f64).ln()).abs() < 1e-13 * plain);
    assert_eq!(
        log_expected_improvement(-1e308, 1.0, 1e308).unwrap(),
        -f64::INFINITY
    );
}

/// MES's terms and means against mpmath at 60 digits from the definition
/// (`tools/reference/mes_reference.py`): relative error within a few ulps from the far lower
/// tail (γ = −10⁶, where the definition's two parts cancel from 5·10¹¹ to 14) to the upper
/// tail, where a term vanishes (subnormal or zero).
#[test]
#[cfg_attr(
    feature = "fast-math",
    ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
)]
fn mes_matches_mpmath() {
    use super::entropy::{max_value_entropy, mes_term};
    use super::improvement::ImprovementError;
    const TERMS: [(f64, f64); 19] = [
        (-1000000.0, 14.234449091170946846),
        (-1000.0, 7.3266958121793098432),
        (-300.0, 6.1227432291572377634),
        (-40.0, 4.1090650696085137017),
        (-37.5, 4.0446979134386860778),
        (-30.0, 3.8223489448380415513),
        (-8.0, 2.5279647109700991729),
        (-3.0, 1.6830782391146947829),
        (-1.0, 1.0784540069287729012),
        (-1e-08, 0.69314718454936811343),
        (0.0, core::f64::consts::LN_2),
        (1e-08, 0.6931471765705225054),
        (0.5, 0.49623652374791476452),
        (1.0, 0.31655376449303907014),
        (3.0, 0.0080075685279366894888),
        (8.0, 2.083118039157476033e-14),
        (20.0, 5.5484846033458255265e-87),
        (38.0, 2.0876054271744954045e-313),
        (1000.0, 0.0),
    ];
    let mut worst = 0.0f64;
    for (gamma, reference) in TERMS {
        let got = mes_term(gamma);
        if reference < 1e-300 {
            // Subnormal: an absolute error of a few of the smallest steps.
            assert!(
                (got - reference).abs() < 1e-320,
                "γ {gamma}: {got:e} against {reference:e}"
            );
            continue;
        }
        let error = (got - reference).abs() / reference;
        worst = worst.max(error);
        assert!(
            error < 8.0 * f64::EPSILON,
            "γ {gamma}: {got} against {reference} ({error:e})"
        );
    }
    println!("mes_term: worst relative error {worst:e}");
    const CASES: [(f64, f64, &[f64], f64); 5] = [
        (0.0, 1.0, &[1.0, 2.0, 0.5], 0.29701702008296909408),
        (1.5, 0.3, &[1.2, 1.6, 2.5, 3.0], 0.41058905043692146497),
        (-2.0, 0.001, &[-1.999, -2.5], 3.4750541979999714706),
        (10.0, 2.0, &[100.0], 0.0),
        (0.0, 1e-06, &[1e-07, 3e-06], 0.33063958303412600676),
    ];
    for (mean, std, samples, reference) in CASES {
        let got = max_value_entropy(mean, std, samples).unwrap();
        let error = if reference == 0.0 {
            got.abs()
        } else {
            (got - reference).abs() / reference
        };
        assert!(
            error < 8.0 * f64::EPSILON,
            "{mean}, {std}, {samples:?}: {got} ({error:e})"
        );
    }
    // γ beyond f64 (a sample 10³⁰⁸ below the mean at σ = 10⁻¹⁰): ln √(2π) + ln|γ| − 1/2, with
    // ln|γ| = ln 2 + 308 ln 10 + 10 ln 10 (the mean of 10³⁰⁸ minus a sample of −10³⁰⁸ over σ).
    let got: f64 = max_value_entropy(1e308, 1e-10, &[-1e308]).unwrap();
    let reference =
        0.9189385332046727418 + core::f64::consts::LN_2 + 318.0 * core::f64::consts::LN_10 - 0.5;
    assert!(
        (got - reference).abs() < 1e-13 * reference,
        "{got} against {reference}"
    );
    assert_eq!(
        max_value_entropy(0.0, 1.0, &[]),
        Err(ImprovementError::BadMixture)
    );
    assert_eq!(
        max_value_entropy(0.0, 0.0, &[1.0]),
        Err(ImprovementError::NonPositiveStd)
    );
    assert_eq!(
        max_value_entropy(f64::NAN, 1.0, &[1.0]),
        Err(ImprovementError::NonFinite)
    );
    assert_eq!(
        max_value_entropy(0.0, 1.0, &[f64::INFINITY]),
        Err(ImprovementError::NonFinite)
    );
    // f32: the same function at single precision, against the same references.
    for (gamma, reference) in TERMS.iter().filter(|(g, r)| g.abs() < 30.0 && *r > 1e-30) {
        let got = f64::from(mes_term(*gamma as f32));
        let error = (got - reference).abs() / reference;
        assert!(
            error < 64.0 * f32::EPSILON as f64,
            "f32 γ {gamma}: {got} ({error:e})"
        );
    }
}

/// The density is 0, not NaN, at the top of the range (where `16·x` would overflow), and so are
/// the quantities built on it.
#[test]
fn normal_pdf_is_zero_at_the_top_of_the_range() {
    for x in [1e30, 1.2e307, f64::MAX, -f64::MAX] {
        assert_eq!(normal_pdf(x), 0.0, "{x:e}");
    }
    for x in [1e30f32, 3e37, f32::MAX, -f32::MAX] {
        assert_eq!(normal_pdf(x), 0.0, "{x:e}");
    }
    assert_eq!(super::improvement::h(2e307), 2e307);
}
