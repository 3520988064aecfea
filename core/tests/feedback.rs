//! Paper 003's time-varying GP and costly-feedback rules against independent references:
//! the temporal kernel and the decayed posterior against closed forms (a dense solve written
//! here, Lemma 2's recursion), the Kalman form against the data-space form, the confidence
//! probability against a direct evaluation through `erfc`, and the typed errors.

// Reference values are written with every digit mpmath gave; dense reference solves index.
#![allow(clippy::needless_range_loop, clippy::excessive_precision)]

use costbo_core::feedback::controller::{
    Beta, CandidateController, Chooser, Competitors, FeedbackError, FeedbackSettings,
};
use costbo_core::feedback::query::{
    ce_probability, ConfidenceTest, QueryError, QueryReason, QueryRule,
};
use costbo_core::feedback::select::{
    argmax, grid_competitors, grid_local_maxima, grid_local_maxima_competitors,
    grid_stationary_competitors,
};
use costbo_core::gp::candidates::CandidatePosterior;
use costbo_core::gp::time_varying::{Forgetting, TimeVaryingError, TimeVaryingGp};
use costbo_core::gp::{GpError, Prediction, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::random::uniform_open;
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

const LS: f64 = 0.2;

/// Matérn-3/2 written out here, independently of the crate's kernel.
fn matern32(a: f64, b: f64) -> f64 {
    let r = 3f64.sqrt() * (a - b).abs() / LS;
    (1.0 + r) * (-r).exp()
}

/// Solves `A x = b` by Gaussian elimination with partial pivoting (dense, a reference).
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .unwrap();
        a.swap(c, p);
        b.swap(c, p);
        for r in c + 1..n {
            let f = a[r][c] / a[c][c];
            for k in c..n {
                a[r][k] -= f * a[c][k];
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|k| a[r][k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    x
}

/// The data-space posterior of `docs/notes/seed-003.md` (§2.1), by a dense solve: observations `(x, y, h)`,
/// current round `t`.
fn reference(obs: &[(f64, f64, u32)], x: f64, t: u32, eps: f64, noise: f64) -> (f64, f64) {
    let w = |d: u32| (1.0 - eps).powf(f64::from(d) / 2.0);
    let n = obs.len();
    let k: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    matern32(obs[i].0, obs[j].0) * w(obs[i].2.abs_diff(obs[j].2))
                        + if i == j { noise } else { 0.0 }
                })
                .collect()
        })
        .collect();
    let kx: Vec<f64> = obs
        .iter()
        .map(|o| matern32(o.0, x) * w(t.abs_diff(o.2)))
        .collect();
    let alpha = solve(k.clone(), obs.iter().map(|o| o.1).collect());
    let v = solve(k, kx.clone());
    let mean = kx.iter().zip(&alpha).map(|(a, b)| a * b).sum();
    let var = 1.0 - kx.iter().zip(&v).map(|(a, b)| a * b).sum::<f64>();
    (mean, var)
}

type Tv = TimeVaryingGp<f64, 16, 1, [f64; tri_len(16)]>;

fn tv(eps: f64, noise: f64, when_full: WhenFull) -> Tv {
    TimeVaryingGp::new(
        Kernel::matern32([LS], 1.0).unwrap(),
        0.0,
        noise,
        eps,
        when_full,
        [0.0; tri_len(16)],
    )
    .unwrap()
}

/// `(1−ε)^{Δ/2}` by mpmath at 50 digits (ε the f64 nearest the decimal).
const WEIGHTS: [(f64, u32, f64); 12] = [
    (0.003, 1, 0.998_498_873_309_329_3),
    (0.003, 7, 0.989_539_315_959_655_1),
    (0.003, 500, 0.471_834_375_153_624_4),
    (0.003, 100_000, 5.726_847_029_630_43e-66),
    (0.05, 1, 0.974_679_434_480_896_4),
    (0.05, 7, 0.835_665_780_138_058_5),
    (0.05, 500, 2.697_126_537_899_031e-6),
    (0.5, 1, core::f64::consts::FRAC_1_SQRT_2),
    (0.5, 7, 0.088_388_347_648_318_44),
    (0.5, 500, 5.527_147_875_260_444_5e-76),
    (0.999, 1, 0.031_622_776_601_683_81),
    (0.999, 7, 3.162_277_660_168_389_2e-11),
];

#[test]
fn temporal_weights_are_the_closed_form() {
    for (eps, d, want) in WEIGHTS {
        let got = Forgetting::new(eps).unwrap().weight(d);
        // Relative error grows with Δ·|ln(1−ε)| (the exponent's rounding): 1e-13 covers Δ ≤ 10⁵.
        assert!(
            (got - want).abs() <= 1e-13 * want,
            "ε {eps}, Δ {d}: {got} vs {want}"
        );
    }
    // Underflow gives zero, not NaN; ε = 0 gives one at every distance.
    assert_eq!(Forgetting::new(0.05).unwrap().weight(100_000), 0.0);
    assert_eq!(Forgetting::new(0.0).unwrap().weight(u32::MAX), 1.0);
    assert_eq!(Forgetting::new(0.3).unwrap().weight(0), 1.0);
    for bad in [-0.1, 1.0, 1.5, f64::NAN, f64::INFINITY] {
        assert_eq!(Forgetting::new(bad), Err(TimeVaryingError::Forgetting));
    }
}

#[test]
fn posterior_matches_a_dense_solve_of_the_product_kernel() {
    let eps = 0.03;
    let mut gp = tv(eps, 0.01, WhenFull::Reject);
    // Observations at irregular rounds, with a skipped stretch and a repeated input.
    let plan = [
        (0u32, 0.1, 0.3),
        (1, 0.5, -0.2),
        (4, 0.52, 0.9),
        (4, 0.9, 0.1),
        (9, 0.1, -0.4),
        (10, 0.1, 0.2),
    ];
    let obs = push_plan(&mut gp, &plan);
    assert_matches_reference(
        &mut gp,
        &obs,
        eps,
        &[10, 11, 15, 40],
        &[0.0, 0.1, 0.33, 0.5, 0.77, 1.0],
    );
}

/// Pushes `(round, x, y)` observations in order; returns them as [`reference`] takes them.
fn push_plan(gp: &mut Tv, plan: &[(u32, f64, f64)]) -> Vec<(f64, f64, u32)> {
    let mut obs = Vec::new();
    for &(round, x, y) in plan {
        gp.set_round(round).unwrap();
        gp.push(&[x], y).unwrap();
        obs.push((x, y, round));
    }
    obs
}

/// The model's posterior at rounds `ts` and inputs `xs` equals the dense solve over every
/// observation in `obs` (noise 0.01) within 1e-10.
fn assert_matches_reference(
    gp: &mut Tv,
    obs: &[(f64, f64, u32)],
    eps: f64,
    ts: &[u32],
    xs: &[f64],
) {
    for &t in ts {
        gp.set_round(t).unwrap();
        for &x in xs {
            let p = gp.predict(&[x]).unwrap();
            let (m, v) = reference(obs, x, t, eps, 0.01);
            assert!(
                (p.mean - m).abs() < 1e-10,
                "ε {eps}: mean at t {t}, x {x}: {} vs {m}",
                p.mean
            );
            assert!(
                (p.variance - v).abs() < 1e-10,
                "ε {eps}: variance at t {t}, x {x}: {} vs {v}",
                p.variance
            );
        }
    }
}

#[test]
fn skipped_rounds_follow_lemma_2() {
    let eps = 0.05;
    let mut gp = tv(eps, 0.01, WhenFull::Reject);
    for (i, x) in [0.2, 0.4, 0.45, 0.8].iter().enumerate() {
        gp.set_round(i as u32).unwrap();
        gp.push(&[*x], (i as f64).sin()).unwrap();
    }
    let x = [0.42];
    let start = gp.predict(&x).unwrap();
    let (mut mean, mut var) = (start.mean, start.variance);
    for k in 1..=60u32 {
        gp.set_round(3 + k).unwrap();
        mean *= (1.0 - eps).sqrt();
        var = (1.0 - eps) * var + eps * 1.0;
        let p = gp.predict(&x).unwrap();
        assert!((p.mean - mean).abs() < 1e-12, "k {k}");
        assert!((p.variance - var).abs() < 1e-12, "k {k}");
        // The bounds `docs/notes/seed-003.md` derives: σ²_t ≤ σ²_{t+1} ≤ (1−ε)σ²_t + ε.
        assert!(p.variance >= start.variance - 1e-15);
    }
}

#[test]
fn gradient_matches_finite_differences() {
    let mut gp = tv(0.01, 1e-3, WhenFull::Reject);
    for (i, x) in [0.1, 0.35, 0.6, 0.62].iter().enumerate() {
        gp.set_round(2 * i as u32).unwrap();
        gp.push(&[*x], [0.5, -0.3, 1.2, 1.0][i]).unwrap();
    }
    gp.set_round(9).unwrap();
    for x in [0.05, 0.25, 0.5, 0.9] {
        let g = gp.predict_with_gradient(&[x]).unwrap();
        let h = 1e-6;
        let (a, b) = (gp.predict(&[x + h]).unwrap(), gp.predict(&[x - h]).unwrap());
        let dm = (a.mean - b.mean) / (2.0 * h);
        let ds = (a.variance.sqrt() - b.variance.sqrt()) / (2.0 * h);
        assert!(
            (g.d_mean[0] - dm).abs() < 1e-5,
            "x {x}: {} vs {dm}",
            g.d_mean[0]
        );
        assert!(
            (g.d_std[0] - ds).abs() < 1e-5,
            "x {x}: {} vs {ds}",
            g.d_std[0]
        );
    }
}

#[test]
fn drop_oldest_equals_a_model_of_the_newest_observations() {
    let mut small: TimeVaryingGp<f64, 4, 1, [f64; tri_len(4)]> = TimeVaryingGp::new(
        Kernel::matern32([LS], 1.0).unwrap(),
        0.0,
        0.01,
        0.02,
        WhenFull::DropOldest,
        [0.0; tri_len(4)],
    )
    .unwrap();
    let data: Vec<(f64, f64)> = (0..7)
        .map(|i| ((i as f64 * 0.37) % 1.0, (i as f64).cos()))
        .collect();
    for (i, (x, y)) in data.iter().enumerate() {
        small.set_round(i as u32 * 2).unwrap();
        small.push(&[*x], *y).unwrap();
    }
    assert_eq!(small.len(), 4);
    assert_eq!(small.stamps(), &[6, 8, 10, 12]);
    let obs: Vec<(f64, f64, u32)> = data[3..]
        .iter()
        .enumerate()
        .map(|(i, (x, y))| (*x, *y, 6 + 2 * i as u32))
        .collect();
    small.set_round(14).unwrap();
    for x in [0.0, 0.3, 0.9] {
        let p = small.predict(&[x]).unwrap();
        let (m, v) = reference(&obs, x, 14, 0.02, 0.01);
        assert!((p.mean - m).abs() < 1e-10 && (p.variance - v).abs() < 1e-10);
    }
}

#[test]
fn kalman_form_on_candidates_equals_the_data_space_form() {
    let grid: Vec<f64> = (0..25).map(|i| i as f64 / 24.0).collect();
    let m = grid.len();
    for eps in [0.0, 0.005, 0.05] {
        let mut post = CandidatePosterior::new(
            vec![0.0; CandidatePosterior::<f64, Vec<f64>>::storage_len(m)],
            m,
            |i, j| matern32(grid[i], grid[j]),
            0.0,
            0.01,
            eps,
        )
        .unwrap();
        let mut gp = tv(eps, 0.01, WhenFull::Reject);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        use rand_xoshiro::rand_core::Rng;
        // 400 rounds (enough to fold the scale factors several times at ε = 0.05), 14 observed.
        let observed: Vec<u32> = vec![0, 1, 2, 5, 30, 31, 90, 150, 151, 152, 300, 301, 398, 399];
        for t in 0..400u32 {
            gp.set_round(t).unwrap();
            if observed.contains(&t) {
                let j = (rng.next_u32() as usize) % m;
                let y = (rng.next_u32() as f64 / u32::MAX as f64) - 0.5;
                post.observe(j, y).unwrap();
                gp.push(&[grid[j]], y).unwrap();
            }
            if t % 37 == 0 || t == 399 {
                for j in 0..m {
                    let a = post.predict(j).unwrap();
                    let b = gp.predict(&[grid[j]]).unwrap();
                    assert!(
                        (a.mean - b.mean).abs() < 1e-9,
                        "ε {eps} t {t} j {j}: {} vs {}",
                        a.mean,
                        b.mean
                    );
                    assert!(
                        (a.variance - b.variance).abs() < 1e-9,
                        "ε {eps} t {t} j {j}"
                    );
                }
            }
            post.advance();
        }
    }
}

#[test]
fn f32_candidate_posterior_agrees_with_f64() {
    let grid: Vec<f64> = (0..40).map(|i| i as f64 / 39.0).collect();
    let m = grid.len();
    let mut p64 = CandidatePosterior::new(
        vec![0.0f64; 2 * m * m + 2 * m],
        m,
        |i, j| matern32(grid[i], grid[j]),
        0.0,
        0.01,
        0.03,
    )
    .unwrap();
    let mut p32 = CandidatePosterior::new(
        vec![0.0f32; 2 * m * m + 2 * m],
        m,
        |i, j| matern32(grid[i], grid[j]) as f32,
        0.0f32,
        0.01,
        0.03,
    )
    .unwrap();
    for t in 0..300usize {
        if t % 3 == 0 {
            let j = (t * 7) % m;
            let y = ((t as f64) * 0.1).sin();
            p64.observe(j, y).unwrap();
            p32.observe(j, y as f32).unwrap();
        }
        p64.advance();
        p32.advance();
    }
    for j in 0..m {
        let (a, b) = (p64.predict(j).unwrap(), p32.predict(j).unwrap());
        // Stated tolerance: 1e-3 absolute on mean and variance after 100 rank-one updates.
        assert!(
            (a.mean - f64::from(b.mean)).abs() < 1e-3,
            "j {j}: {} vs {}",
            a.mean,
            b.mean
        );
        assert!((a.variance - f64::from(b.variance)).abs() < 1e-3, "j {j}");
    }
}

#[test]
fn candidate_posterior_refuses_bad_input_and_stays_unchanged() {
    let m = 3;
    let mk = |k: fn(usize, usize) -> f64| {
        CandidatePosterior::new(vec![0.0; 2 * m * m + 2 * m], m, k, 0.0, 0.01, 0.1)
    };
    assert!(mk(|i, j| if i == j { 1.0 } else { 0.2 }).is_ok());
    assert!(
        mk(|i, j| if i < j {
            0.3
        } else if i == j {
            1.0
        } else {
            0.2
        })
        .is_err(),
        "asymmetric"
    );
    assert!(
        mk(|i, j| if i == j { -1.0 } else { 0.0 }).is_err(),
        "negative variance"
    );
    assert!(mk(|_, _| f64::NAN).is_err());
    assert!(
        CandidatePosterior::new(vec![0.0; 5], m, |_, _| 1.0, 0.0, 0.01, 0.1).is_err(),
        "storage"
    );
    assert_eq!(
        CandidatePosterior::new(
            vec![0.0; 30],
            m,
            |i, j| f64::from(u8::from(i == j)),
            0.0,
            0.01,
            1.0
        )
        .err(),
        Some(TimeVaryingError::Forgetting)
    );
    let mut p = mk(|i, j| if i == j { 1.0 } else { 0.0 }).unwrap();
    p.observe(1, 0.5).unwrap();
    let before: Vec<_> = (0..m).map(|j| p.predict(j).unwrap()).collect();
    assert_eq!(
        p.observe(3, 0.1),
        Err(TimeVaryingError::Gp(GpError::LengthMismatch))
    );
    assert_eq!(
        p.observe(0, f64::NAN),
        Err(TimeVaryingError::Gp(GpError::NonFinite))
    );
    let after: Vec<_> = (0..m).map(|j| p.predict(j).unwrap()).collect();
    assert_eq!(before, after);
    // Independent arms: an observation of arm 1 moves only arm 1, by the scalar Kalman gain.
    assert_eq!(
        after[0],
        Prediction {
            mean: 0.0,
            variance: 1.0
        }
    );
    assert!((after[1].mean - 0.5 / 1.01).abs() < 1e-15);
    assert!((after[1].variance - (1.0 - 1.0 / 1.01)).abs() < 1e-15);
}

/// Φ through libm's erfc, independent of the crate's normal CDF.
fn phi(z: f64) -> f64 {
    0.5 * libm::erfc(-z / std::f64::consts::SQRT_2)
}

#[test]
fn confidence_probability_is_the_direct_evaluation() {
    let cases: [(f64, f64, f64, f64); 4] = [
        (0.3, 0.04, 0.1, 0.09),
        (-1.0, 0.5, 2.0, 0.01),
        (0.0, 1.0, 0.0, 1.0),
        (5.0, 1e-6, 4.9, 1e-6),
    ];
    for (ma, va, mb, vb) in cases {
        let p = ce_probability(
            Prediction {
                mean: ma,
                variance: va,
            },
            Prediction {
                mean: mb,
                variance: vb,
            },
        );
        let want = phi((ma - mb) / (va + vb).sqrt());
        assert!(
            (p - want).abs() < 1e-15 * want.max(1e-300) + 1e-16,
            "{p} vs {want}"
        );
    }
    let sure = |a: f64, b: f64| {
        ce_probability(
            Prediction {
                mean: a,
                variance: 0.0,
            },
            Prediction {
                mean: b,
                variance: 0.0,
            },
        )
    };
    assert_eq!(
        (sure(1.0, 0.0), sure(0.0, 0.0), sure(0.0, 1.0)),
        (1.0, 0.5, 0.0)
    );
}

#[test]
fn the_confidence_test_fires_below_kappa_only() {
    let chosen = Prediction {
        mean: 1.0,
        variance: 0.04,
    };
    let other = Prediction {
        mean: 0.7,
        variance: 0.05,
    };
    let p = phi(0.3 / 0.09f64.sqrt()); // ≈ 0.841
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    for (kappa, fires) in [(0.8, false), (0.85, true), (0.99, true), (0.6, false)] {
        let rule = QueryRule::confidence(kappa).unwrap();
        let d = rule.decide(chosen, [other], 1.0, &mut rng);
        assert_eq!(d.test_fired, fires, "κ {kappa}, p {p}");
        assert_eq!(d.pay, fires, "pure CE pays exactly when the test fires");
        assert!((d.min_probability - p).abs() < 1e-15);
    }
    // A fresh prior: every p is ½, so κ = 0.6 pays and κ = 0.5 never does.
    let prior = Prediction {
        mean: 0.0,
        variance: 1.0,
    };
    assert!(
        QueryRule::confidence(0.6)
            .unwrap()
            .decide(prior, [prior], 1.0, &mut rng)
            .pay
    );
    assert!(
        !QueryRule::confidence(0.5)
            .unwrap()
            .decide(prior, [prior], 1.0, &mut rng)
            .pay
    );
    // LCB–UCB: skip only when every competitor's UCB is at most the chosen point's LCB.
    let lcb = QueryRule::<f64>::lcb_ucb();
    let far = Prediction {
        mean: 0.0,
        variance: 0.01,
    };
    // chosen LCB = 1 − 2·0.2 = 0.6; far's UCB = 0 + 2·0.1 = 0.2 ≤ 0.6: skip.
    assert!(!lcb.decide(chosen, [far], 2.0, &mut rng).pay);
    // other's UCB = 0.7 + 2·0.2236 = 1.147 > 0.6: pay.
    assert!(lcb.decide(chosen, [far, other], 2.0, &mut rng).pay);
    // No competitors: nothing to be unsure about.
    assert!(
        !QueryRule::confidence(0.99)
            .unwrap()
            .decide(chosen, [], 1.0, &mut rng)
            .pay
    );
}

#[test]
fn coins_pay_at_their_rates() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let x = Prediction {
        mean: 0.0,
        variance: 1.0,
    };
    let n = 20_000;
    for p in [0.0, 0.2, 0.55, 1.0] {
        let rule = QueryRule::bernoulli(p).unwrap();
        let paid = (0..n)
            .filter(|_| rule.decide(x, [x], 1.0, &mut rng).pay)
            .count();
        let sd = (p * (1.0 - p) * n as f64).sqrt();
        assert!(
            (paid as f64 - p * n as f64).abs() <= 4.0 * sd + 1e-9,
            "p {p}: {paid}"
        );
    }
    // Mixed quotas B₁ = 50, B₂ = 150 of T = 500 with a test that always fires: rate 0.1 + 0.9·0.2.
    let rule = QueryRule::new(50.0, 150.0, 500.0, ConfidenceTest::Kappa(0.9)).unwrap();
    let (mut quota, mut conf) = (0, 0);
    for _ in 0..n {
        match rule.decide(x, [x], 1.0, &mut rng).reason {
            QueryReason::Quota => quota += 1,
            QueryReason::Confidence => conf += 1,
            QueryReason::Skip => {}
        }
    }
    let (eq, ec) = (0.1 * n as f64, 0.9 * 0.2 * n as f64);
    assert!(
        (quota as f64 - eq).abs() < 4.0 * (eq * 0.9).sqrt(),
        "{quota}"
    );
    assert!(
        (conf as f64 - ec).abs() < 4.0 * (ec * 0.82).sqrt(),
        "{conf}"
    );
}

#[test]
fn query_rules_refuse_settings_out_of_range() {
    assert_eq!(QueryRule::confidence(0.0).err(), Some(QueryError::Kappa));
    assert_eq!(QueryRule::confidence(1.0).err(), Some(QueryError::Kappa));
    assert_eq!(
        QueryRule::confidence(f64::NAN).err(),
        Some(QueryError::NonFinite)
    );
    assert_eq!(QueryRule::bernoulli(1.5).err(), Some(QueryError::Quota));
    assert_eq!(QueryRule::bernoulli(-0.1).err(), Some(QueryError::Quota));
    assert_eq!(
        QueryRule::new(60.0, 50.0, 500.0, ConfidenceTest::Off).err(),
        Some(QueryError::Quota)
    );
    assert_eq!(
        QueryRule::new(0.0, 600.0, 500.0, ConfidenceTest::Off).err(),
        Some(QueryError::Quota)
    );
    assert_eq!(
        QueryRule::new(0.0, 0.0, 0.0, ConfidenceTest::Off).err(),
        Some(QueryError::Quota)
    );
    assert_eq!(
        QueryRule::from_rates(0.6, 0.6, ConfidenceTest::Off).err(),
        Some(QueryError::Quota)
    );
}

#[test]
fn local_maxima_of_a_grid() {
    let v = [0.0, 1.0, 0.5, 0.5, 2.0, 2.0, 1.0, 3.0];
    let mut out = [0usize; 8];
    let k = grid_local_maxima(v.len(), |i| v[i], &mut out);
    assert_eq!(&out[..k], &[1, 5, 7]);
    // Room for two: the two highest (5 and 7) are kept.
    let mut two = [0usize; 2];
    let k = grid_local_maxima(v.len(), |i| v[i], &mut two);
    assert_eq!(&two[..k], &[5, 7]);
    let flat = [1.0; 5];
    let k = grid_local_maxima(5, |i| flat[i], &mut out);
    assert_eq!(&out[..k], &[4]);
    assert_eq!(
        argmax(5, |i| [1.0, 3.0, f64::NAN, 3.0, 2.0][i]),
        Some((1, 3.0))
    );
}

#[test]
fn the_papers_competitors_are_the_local_maxima_apart_from_the_chosen_and_one_another() {
    // 11 points at 0, 0.1, …, 1. Local maxima: 1 (0.1), 4 (0.4), 5? no: v[5] < v[4].
    let v = [0.0, 2.0, 1.0, 1.5, 3.0, 2.9, 0.0, 2.5, 2.4, 2.6, 0.5];
    let mut out = [0usize; 8];
    // Maxima by height: 4 (3.0), 9 (2.6), 1 (2.0), 3? (1.5 < 3.0 on its right: no).
    let k = grid_local_maxima(v.len(), |i| v[i], &mut out);
    assert_eq!(&out[..k], &[1, 4, 7, 9]);
    // Chosen 4, bandwidth 0.2: 9 kept (0.5 away), 7 dropped (0.2 from 9? |0.7 − 0.9| = 0.2,
    // not beyond the bandwidth), 1 kept (0.3 from 4).
    let k = grid_local_maxima_competitors(v.len(), |i| v[i], 4, 0.2, &mut out);
    assert_eq!(&out[..k], &[9, 1]);
    // Bandwidth 0: every other maximum competes, highest first.
    let k = grid_local_maxima_competitors(v.len(), |i| v[i], 4, 0.0, &mut out);
    assert_eq!(&out[..k], &[9, 7, 1]);
    // One mode: no competitors (where `grid_competitors` would add the best far point).
    let hill: Vec<f64> = (0..21).map(|i| -((i as f64 - 5.0) / 4.0).powi(2)).collect();
    assert_eq!(
        grid_local_maxima_competitors(21, |i| hill[i], 5, 0.2, &mut out),
        0
    );
    // Fewer than two points: none.
    assert_eq!(
        grid_local_maxima_competitors(1, |_| 1.0, 0, 0.2, &mut out),
        0
    );
}

#[test]
fn the_papers_competitors_match_a_brute_force_reading_of_the_rule() {
    // Random step functions on 40 points: the reference takes every strict-right local
    // maximum, sorts them by height (stable, so ties keep index order) and keeps those more than
    // the bandwidth from the chosen point and from every higher kept one.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for case in 0..200 {
        let n = 40;
        let v: Vec<f64> = (0..n)
            .map(|_| (uniform_open::<f64>(&mut rng) * 8.0).floor())
            .collect();
        let chosen = case % n;
        let bandwidth = [0.0, 0.05, 0.2, 0.5][case % 4];
        let x = |i: usize| i as f64 / (n - 1) as f64;
        let mut maxima: Vec<usize> = (0..n)
            .filter(|&i| (i == 0 || v[i - 1] <= v[i]) && (i + 1 == n || v[i + 1] < v[i]))
            .collect();
        maxima.sort_by(|&a, &b| v[b].total_cmp(&v[a]));
        let mut want: Vec<usize> = Vec::new();
        for i in maxima {
            let far = |j: usize| ((x(i) - x(j)) * 1.0).abs() > bandwidth + 1e-12;
            if far(chosen) && want.iter().all(|&j| far(j)) {
                want.push(i);
            }
        }
        let mut out = [0usize; 64];
        let k = grid_local_maxima_competitors(n, |i| v[i], chosen, bandwidth, &mut out);
        assert_eq!(&out[..k], &want[..], "case {case}: {v:?}");
    }
}

#[test]
fn stationary_competitors_match_a_brute_force_reading_and_ours_add_the_best_far_point() {
    // Reference: repeatedly the highest point (ties: lowest index) that is stationary (both
    // neighbours at most tolerance·h above it) and more than the bandwidth from the chosen
    // point and every point taken; ours takes the highest far point first, stationary or not.
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    for case in 0..200 {
        let n = 30;
        // Integer steps with a slope: flats where neighbours tie, rises elsewhere.
        let v: Vec<f64> = (0..n)
            .map(|i| (uniform_open::<f64>(&mut rng) * 4.0).floor() + 0.01 * i as f64)
            .collect();
        let chosen = (case * 7) % n;
        let (bandwidth, tolerance) = ([0.0, 0.1, 0.3][case % 3], [0.0, 0.5][case % 2]);
        let h = 1.0 / (n - 1) as f64;
        let x = |i: usize| i as f64 * h;
        let far = |i: usize, j: usize| (x(i) - x(j)).abs() > bandwidth + 1e-12;
        let stationary = |i: usize| {
            (i == 0 || v[i - 1] - tolerance * h <= v[i])
                && (i + 1 == n || v[i + 1] - tolerance * h <= v[i])
        };
        let greedy = |first_any: bool| {
            let mut taken: Vec<usize> = Vec::new();
            loop {
                let pick = (0..n)
                    .filter(|&i| far(i, chosen) && taken.iter().all(|&j| far(i, j)))
                    .filter(|&i| (first_any && taken.is_empty()) || stationary(i))
                    .fold(None, |b: Option<usize>, i| match b {
                        Some(j) if v[j] >= v[i] => Some(j),
                        _ => Some(i),
                    });
                match pick {
                    Some(i) => taken.push(i),
                    None => return taken,
                }
            }
        };
        let mut out = [0usize; 64];
        let k = grid_stationary_competitors(n, |i| v[i], chosen, tolerance, bandwidth, &mut out);
        assert_eq!(&out[..k], &greedy(false)[..], "stationary, case {case}");
        let k = grid_competitors(n, |i| v[i], chosen, tolerance, bandwidth, &mut out);
        assert_eq!(&out[..k], &greedy(true)[..], "ours, case {case}");
    }
    // A single hump rising to the right end: no stationary point but the maximum, which is the
    // chosen one, so the stationary reading has no competitor while ours still has one.
    let rise: Vec<f64> = (0..20).map(|i| (i as f64 / 19.0).powi(2)).collect();
    let mut out = [0usize; 8];
    assert_eq!(
        grid_stationary_competitors(20, |i| rise[i], 19, 1e-4, 0.2, &mut out),
        0
    );
    let k = grid_competitors(20, |i| rise[i], 19, 1e-4, 0.2, &mut out);
    assert_eq!(&out[..k], &[15]);
}

fn controller(rule: QueryRule<f64>) -> CandidateController<f64, Vec<f64>, Xoshiro256PlusPlus> {
    let m = 3;
    let post = CandidatePosterior::new(
        vec![0.0; 2 * m * m + 2 * m],
        m,
        |i, j| f64::from(u8::from(i == j)),
        0.0,
        0.01,
        0.05,
    )
    .unwrap();
    let settings = FeedbackSettings {
        beta: Beta::Constant(1.0),
        chooser: Chooser::Ucb,
        rule,
        competitors: Competitors::All,
        reset_every: None,
    };
    CandidateController::new(post, settings, Xoshiro256PlusPlus::seed_from_u64(5)).unwrap()
}

#[test]
fn the_round_protocol_is_checked() {
    let mut c = controller(QueryRule::bernoulli(0.0).unwrap());
    assert_eq!(c.tell(1.0), Err(FeedbackError::NoRound));
    assert_eq!(c.skip(), Err(FeedbackError::NoRound));
    let a = c.ask().unwrap();
    assert!(!a.query.pay);
    assert_eq!(c.ask(), Err(FeedbackError::RoundOpen));
    assert_eq!(
        c.tell(1.0),
        Err(FeedbackError::NotPaid),
        "an outcome for a skipped round"
    );
    c.skip().unwrap();
    assert_eq!((c.round(), c.paid()), (2, 0));
    let mut c = controller(QueryRule::full());
    let a = c.ask().unwrap();
    assert!(a.query.pay);
    assert_eq!(
        c.tell(f64::INFINITY),
        Err(FeedbackError::Model(TimeVaryingError::Gp(
            GpError::NonFinite
        )))
    );
    c.tell(0.8).unwrap();
    assert_eq!((c.round(), c.paid()), (2, 1));
    // The measured arm now leads; UCB picks it again next round.
    let b = c.ask().unwrap();
    assert_eq!(b.candidate, a.candidate);
    let bad = FeedbackSettings {
        beta: Beta::Constant(-2.0),
        chooser: Chooser::Ucb,
        rule: QueryRule::full(),
        competitors: Competitors::All,
        reset_every: None,
    };
    let post = CandidatePosterior::new(
        vec![0.0; 12],
        2,
        |i, j| f64::from(u8::from(i == j)),
        0.0,
        0.01,
        0.05,
    )
    .unwrap();
    assert_eq!(
        CandidateController::new(post, bad, Xoshiro256PlusPlus::seed_from_u64(0)).err(),
        Some(FeedbackError::InvalidSetting)
    );
}

#[test]
fn box_optima_find_both_modes_highest_first() {
    use costbo_core::feedback::select::{box_ucb_optima, BoxOptimum};
    use costbo_core::optimize::QuasiNewtonConfig;
    let mut gp = tv(0.01, 1e-4, WhenFull::Reject);
    for (x, y) in [(0.2, 1.0), (0.8, 0.9), (0.5, -1.0)] {
        gp.push(&[x], y).unwrap();
    }
    let starts: Vec<[f64; 1]> = (0..10).map(|i| [(i as f64 + 0.5) / 10.0]).collect();
    let empty = BoxOptimum {
        x: [0.0],
        value: 0.0,
        prediction: Prediction {
            mean: 0.0,
            variance: 0.0,
        },
    };
    let mut out = [empty; 8];
    let k = box_ucb_optima(
        &gp,
        0.0,
        &starts,
        &QuasiNewtonConfig::default(),
        0.2,
        &mut out,
    );
    // Width 0: the posterior mean, whose maxima sit near the two high observations.
    assert_eq!(k, 2, "{:?}", &out[..k]);
    assert!(
        (out[0].x[0] - 0.2).abs() < 0.05 && (out[1].x[0] - 0.8).abs() < 0.05,
        "{:?}",
        &out[..k]
    );
    assert!(out[0].value > out[1].value);
    // Each optimum is a stationary point: the mean's derivative vanishes there (or it sits on
    // the boundary).
    for o in &out[..k] {
        let g = gp.predict_with_gradient(&o.x).unwrap();
        assert!(g.d_mean[0].abs() < 1e-4, "{:?}", g);
        assert_eq!(o.prediction, gp.predict(&o.x).unwrap());
    }
}

#[test]
fn box_competitors_add_the_best_far_start_only_where_no_farther_optimum_is_higher() {
    use costbo_core::feedback::select::{box_competitors, box_ucb_optima, BoxOptimum};
    use costbo_core::optimize::QuasiNewtonConfig;
    let empty = BoxOptimum {
        x: [0.0],
        value: 0.0,
        prediction: Prediction {
            mean: 0.0,
            variance: 0.0,
        },
    };
    let starts: Vec<[f64; 1]> = (0..10).map(|i| [(i as f64 + 0.5) / 10.0]).collect();
    let config = QuasiNewtonConfig::default();
    // Two modes of the mean (width 0): the far optimum at 0.8 is higher than every far start,
    // so the result is box_ucb_optima's.
    let mut gp = tv(0.01, 1e-4, WhenFull::Reject);
    for (x, y) in [(0.2, 1.0), (0.8, 0.9), (0.5, -1.0)] {
        gp.push(&[x], y).unwrap();
    }
    let (mut a, mut b) = ([empty; 8], [empty; 8]);
    let ka = box_ucb_optima(&gp, 0.0, &starts, &config, 0.2, &mut a);
    let kb = box_competitors(&gp, 0.0, &starts, &config, 0.2, &mut b);
    assert_eq!((ka, &a[..ka]), (kb, &b[..kb]));
    // One mode (a single high observation at 0.3, the mean falling away on both sides): the
    // optima merge into one; the best start beyond 0.2 of the choice competes, the start the
    // reference below picks by evaluating the posterior at each start.
    let mut gp = tv(0.01, 1e-4, WhenFull::Reject);
    gp.push(&[0.3], 1.0).unwrap();
    let ka = box_ucb_optima(&gp, 0.0, &starts, &config, 0.2, &mut a);
    assert_eq!(ka, 1, "{:?}", &a[..ka]);
    let kb = box_competitors(&gp, 0.0, &starts, &config, 0.2, &mut b);
    assert_eq!(kb, 2);
    assert_eq!(b[0], a[0]);
    let want = starts
        .iter()
        .filter(|s| (s[0] - a[0].x[0]).abs() > 0.2)
        .map(|s| (s[0], gp.predict(s).unwrap().mean))
        .fold(
            (f64::NAN, f64::NEG_INFINITY),
            |m, x| if x.1 > m.1 { x } else { m },
        );
    assert_eq!(b[1].x[0], want.0);
    assert_eq!(b[1].value, want.1);
    assert_eq!(b[1].prediction, gp.predict(&b[1].x).unwrap());
    // No room for a competitor: the choice alone.
    let mut one = [empty; 1];
    assert_eq!(
        box_competitors(&gp, 0.0, &starts, &config, 0.2, &mut one),
        1
    );
}

#[test]
fn a_log_replays_to_the_same_state_and_a_wrong_log_changes_nothing() {
    use costbo_core::feedback::controller::FeedbackRecord;
    let grid: Vec<f64> = (0..30).map(|i| i as f64 / 29.0).collect();
    let make = || {
        let post = CandidatePosterior::new(
            vec![0.0; CandidatePosterior::<f64, Vec<f64>>::storage_len(30)],
            30,
            |i, j| matern32(grid[i], grid[j]),
            0.0,
            0.01,
            0.03,
        )
        .unwrap();
        let settings = FeedbackSettings {
            beta: Beta::Constant(1.0),
            chooser: Chooser::Ucb,
            rule: QueryRule::confidence(0.8).unwrap(),
            competitors: Competitors::PAPER_GRID,
            reset_every: None,
        };
        CandidateController::new(post, settings, Xoshiro256PlusPlus::seed_from_u64(11)).unwrap()
    };
    let mut original = make();
    let mut log = Vec::new();
    for t in 0..80 {
        let a = original.ask().unwrap();
        let outcome = a
            .query
            .pay
            .then(|| (6.0 * grid[a.candidate] + 0.05 * t as f64).sin());
        match outcome {
            Some(y) => original.tell(y).unwrap(),
            None => original.skip().unwrap(),
        }
        log.push(FeedbackRecord {
            candidate: a.candidate,
            outcome,
        });
    }
    let paid = log.iter().filter(|r| r.outcome.is_some()).count();
    assert!(
        paid > 0 && paid < 80,
        "a mix of paid and skipped rounds: {paid}"
    );
    let mut rebuilt = make();
    rebuilt.replay(&log).unwrap();
    assert_eq!(
        (rebuilt.round(), rebuilt.paid()),
        (original.round(), original.paid())
    );
    for j in 0..30 {
        assert_eq!(
            rebuilt.posterior().predict(j),
            original.posterior().predict(j)
        );
    }
    assert_eq!(rebuilt.ask().unwrap(), original.ask().unwrap());
    // A log whose 5th round chose elsewhere: refused at that round, nothing replayed.
    let mut wrong = log.clone();
    wrong[4].candidate = (wrong[4].candidate + 7) % 30;
    let mut fresh = make();
    assert_eq!(
        fresh.replay(&wrong),
        Err(FeedbackError::Diverged { round: 5 })
    );
    assert_eq!((fresh.round(), fresh.paid()), (1, 0));
}

#[test]
fn a_budget_caps_the_measurements_paid_for() {
    let c = controller(QueryRule::full());
    assert_eq!(
        c.clone().with_budget(0.0, 1.0).err(),
        Some(FeedbackError::InvalidSetting)
    );
    assert_eq!(
        c.clone().with_budget(1.0, f64::NAN).err(),
        Some(FeedbackError::InvalidSetting)
    );
    // Each measurement costs 0.3 of a budget of 1: three are paid, then none.
    let mut c = c.with_budget(0.3, 1.0).unwrap();
    let mut paid = Vec::new();
    for _ in 0..6 {
        let a = c.ask().unwrap();
        paid.push((a.query.pay, a.over_budget));
        if a.query.pay {
            c.tell(0.5).unwrap();
        } else {
            assert_eq!(c.tell(0.5), Err(FeedbackError::NotPaid));
            c.skip().unwrap();
        }
    }
    assert_eq!(
        paid,
        [
            (true, false),
            (true, false),
            (true, false),
            (false, true),
            (false, true),
            (false, true)
        ]
    );
    assert_eq!(c.paid(), 3);
    assert!((c.spent() - 0.9).abs() < 1e-15);
}

#[test]
fn repeats_the_model_cannot_tell_apart_merge_and_match_the_dense_solve() {
    // ε > 0: three copies of x = 0.5 within round 4 are one latent value (merged into one
    // slot); x = 0.1 in rounds 9 and 10 is two values of a drifting function (two slots).
    // ε = 0: every repeat of an input is one latent value, whatever its round.
    for (eps, slots) in [(0.03, 5usize), (0.0, 3)] {
        let mut gp = tv(eps, 0.01, WhenFull::Reject);
        let plan = [
            (0u32, 0.1, 0.3),
            (4, 0.5, -0.2),
            (4, 0.5, 0.9),
            (4, 0.9, 0.1),
            (4, 0.5, 0.4),
            (9, 0.1, -0.4),
            (10, 0.1, 0.2),
        ];
        let obs = push_plan(&mut gp, &plan);
        assert_eq!(gp.len(), slots, "ε {eps}");
        assert_eq!(gp.counts().iter().sum::<u32>(), plan.len() as u32);
        // The reference keeps every copy as its own row (well conditioned at noise 0.01).
        assert_matches_reference(
            &mut gp,
            &obs,
            eps,
            &[10, 12, 30],
            &[0.0, 0.1, 0.5, 0.77, 1.0],
        );
    }
}

#[test]
#[cfg_attr(
    feature = "fast-math",
    ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
)]
fn f32_repeats_with_tiny_noise_agree_with_f64() {
    // 30 outcomes 0, 1, 0, 1, ... at one input, one per round, noise 1e-6. With ε = 0 they are
    // copies of one value (merged: the posterior mean there is their mean, 0.5); with ε = 0.01
    // they are a drifting value (kept apart, and the temporal decay conditions the matrix).
    // f32 must agree with f64 within the GP tests' tolerances (mean and variance 1e-3).
    for (eps, slots) in [(0.0, 1usize), (0.01, 30)] {
        let mut g32: TimeVaryingGp<f32, 32, 1, Vec<f32>> = TimeVaryingGp::new(
            Kernel::matern32([LS as f32], 1.0).unwrap(),
            0.0,
            1e-6,
            eps as f32,
            WhenFull::Reject,
            vec![0.0; tri_len(32)],
        )
        .unwrap();
        let mut g64: TimeVaryingGp<f64, 32, 1, Vec<f64>> = TimeVaryingGp::new(
            Kernel::matern32([LS], 1.0).unwrap(),
            0.0,
            1e-6,
            eps,
            WhenFull::Reject,
            vec![0.0; tri_len(32)],
        )
        .unwrap();
        for round in 0..30u32 {
            let y = f64::from(round % 2);
            g64.set_round(round).unwrap();
            g32.set_round(round).unwrap();
            g64.push(&[0.4], y).unwrap();
            g32.push(&[0.4], y as f32).unwrap();
        }
        assert_eq!((g64.len(), g32.len()), (slots, slots), "ε {eps}");
        for x in [0.4, 0.0, 0.45, 0.9] {
            let p = g64.predict(&[x]).unwrap();
            let q = g32.predict(&[x as f32]).unwrap();
            assert!(
                (p.mean - f64::from(q.mean)).abs() < 1e-3
                    && (p.variance - f64::from(q.variance)).abs() < 1e-3,
                "ε {eps} x {x}: f64 {p:?} f32 {q:?}"
            );
        }
        if eps == 0.0 {
            let q = g32.predict(&[0.4]).unwrap();
            assert!((q.mean - 0.5).abs() < 1e-3, "{}", q.mean);
        }
    }
}

#[test]
fn a_merge_that_fails_leaves_the_model_unchanged() {
    let mut gp = tv(0.03, 0.01, WhenFull::Reject);
    gp.push(&[0.2], f64::MAX).unwrap();
    gp.push(&[0.7], 0.5).unwrap();
    let before = (gp.predict(&[0.3]).unwrap(), gp.counts().to_vec(), gp.len());
    // The running mean of MAX and −MAX overflows: refused, nothing changed.
    assert_eq!(
        gp.push(&[0.2], -f64::MAX),
        Err(TimeVaryingError::Gp(GpError::NonFinite))
    );
    assert_eq!(
        (gp.predict(&[0.3]).unwrap(), gp.counts().to_vec(), gp.len()),
        before
    );
    assert_eq!(gp.inputs(), &[[0.2], [0.7]]);
}
