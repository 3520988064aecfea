//! The batched and factorised expected bounds against the per-point reference
//! `expectation::expected_bound`, finite differences, and the closed-form expected mean; and
//! `policy::score_sets` (with and without workspace) against the reference maximisation.
#![allow(clippy::type_complexity, clippy::needless_range_loop)]

use costbo_core::acquisition::Need;
use costbo_core::dist::{Distribution, TruncatedNormal};
use costbo_core::expectation::{
    expected_bound, expected_bound_batched, Bound, Chunk, FactorisedSe, SampleBank,
};
use costbo_core::gp::{Gp, WhenFull};
use costbo_core::inner::{maximize, InnerConfig, InnerResult};
use costbo_core::kernel::{Kernel, Shape};
use costbo_core::linalg::tri_len;
use costbo_core::policy::{score_sets, workspace_len};
use costbo_core::problem::{ControlSet, Problem, Variable};
use costbo_core::Real;
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const N: usize = 96;
const D: usize = 4;
const M: usize = 5;

type Model<R> = Gp<R, N, D, Vec<R>>;
type Bank<R> = SampleBank<R, D, Vec<[R; D]>>;

fn unit(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// Mixed uncontrolled distributions: truncated normals of two widths, a uniform, a discrete.
fn problem<R: Real>() -> Problem<R, D, M> {
    let r = R::from_f64;
    let tn = |v: f64| {
        Distribution::TruncatedNormal(
            TruncatedNormal::with_truncated_variance(r(0.5), r(v), R::ZERO, R::ONE).unwrap(),
        )
    };
    let vars = [
        tn(0.04),
        tn(0.01),
        Distribution::uniform(R::ZERO, R::ONE).unwrap(),
        Distribution::discrete(&[r(0.1), r(0.5), r(0.8)], &[r(1.0), r(2.0), r(1.0)]).unwrap(),
    ];
    let variables = vars.map(|d| Variable {
        lower: R::ZERO,
        upper: R::ONE,
        uncontrolled: d,
    });
    let sets = [
        ControlSet::of(&[0]),
        ControlSet::of(&[1, 3]),
        ControlSet::of(&[0, 2]),
        ControlSet::of(&[1, 2, 3]),
        ControlSet::full(D),
    ];
    Problem::new(
        &variables,
        &sets,
        Some(&[r(0.1), r(0.2), r(0.2), r(0.5), r(1.0)]),
    )
    .unwrap()
}

/// A GP with `n` observations of a smooth function at random points, random lengthscales.
fn model<R: Real>(shape: Shape, n: usize, noise: f64, seed: u64) -> Model<R> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let ls: [R; D] = core::array::from_fn(|_| R::from_f64(0.15 + 0.5 * unit(&mut rng)));
    let kernel = Kernel::new(shape, ls, R::from_f64(0.7 + unit(&mut rng))).unwrap();
    let mut gp = Gp::new(
        kernel,
        R::from_f64(0.3),
        R::from_f64(noise),
        WhenFull::Reject,
        vec![R::ZERO; tri_len(N)],
    )
    .unwrap();
    for _ in 0..n {
        let x: [f64; D] = core::array::from_fn(|_| unit(&mut rng));
        let y = (5.0 * x[0]).sin() + x[1] * (3.0 * x[2]).cos() - x[3] * x[3];
        gp.push(&x.map(R::from_f64), R::from_f64(y)).unwrap();
    }
    gp
}

fn bank<R: Real>(size: usize, seed: u64) -> Bank<R> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    SampleBank::iid(&problem::<R>(), vec![[R::ZERO; D]; size], &mut rng).unwrap()
}

/// Worst norm-wise relative difference of two gradients, and the relative difference of two
/// values.
fn rel_value(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}
fn rel_grad(a: &[f64; D], b: &[f64; D]) -> f64 {
    let scale = b.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((x - y).abs() / scale))
}

const BOUNDS: [Bound<f64>; 3] = [Bound::Upper(2.0), Bound::Lower(1.5), Bound::Mean];

fn to<R: Real>(b: Bound<f64>) -> Bound<R> {
    match b {
        Bound::Upper(v) => Bound::Upper(R::from_f64(v)),
        Bound::Lower(v) => Bound::Lower(R::from_f64(v)),
        Bound::Mean => Bound::Mean,
    }
}

/// Every case: (shape, n, noise, bank size) × sets × bounds × candidates, for one chunk size.
fn compare_batched<const C: usize>(check_bits: bool) -> (f64, f64) {
    let problem = problem::<f64>();
    let mut chunk = Chunk::<f64, N, C>::new();
    let (mut worst_v, mut worst_g) = (0.0f64, 0.0f64);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(99);
    let cases = [
        (Shape::SquaredExponential, 0, 1e-4, 5),
        (Shape::SquaredExponential, 1, 1e-4, 16),
        (Shape::SquaredExponential, 40, 1e-4, 37),
        (Shape::SquaredExponential, 90, 1e-6, 64),
        (Shape::Matern52, 7, 1e-3, 1),
        (Shape::Matern52, 60, 1e-4, 33),
        (Shape::Matern52, 96, 1e-5, 50),
    ];
    for (k, &(shape, n, noise, size)) in cases.iter().enumerate() {
        let gp = model::<f64>(shape, n, noise, k as u64);
        let bank = bank::<f64>(size, 100 + k as u64);
        for set in problem.sets() {
            for bound in BOUNDS {
                for _ in 0..4 {
                    let x: [f64; D] = core::array::from_fn(|_| unit(&mut rng));
                    let (v0, g0) = expected_bound(&gp, &bank, *set, &x, bound).unwrap();
                    let (v1, g1) =
                        expected_bound_batched(&gp, &bank, *set, &x, bound, true, &mut chunk)
                            .unwrap();
                    let (v2, g2) =
                        expected_bound_batched(&gp, &bank, *set, &x, bound, false, &mut chunk)
                            .unwrap();
                    if check_bits {
                        assert_eq!(
                            v1, v0,
                            "{shape:?} n={n} {set:?} {bound:?}: value not bitwise"
                        );
                    }
                    assert_eq!(v2, v1, "the gradient must not change the value");
                    assert_eq!(g2, [0.0; D]);
                    worst_v = worst_v.max(rel_value(v1, v0));
                    worst_g = worst_g.max(rel_grad(&g1, &g0));
                    for l in 0..D {
                        if !set.contains(l) {
                            assert_eq!(g1[l], 0.0);
                        }
                    }
                }
            }
        }
    }
    (worst_v, worst_g)
}

#[test]
fn batched_matches_the_reference_in_f64() {
    let (v4, g4) = compare_batched::<4>(true);
    let (v16, g16) = compare_batched::<16>(true);
    println!(
        "batched vs reference, f64: value {:.1e}, gradient {:.1e}",
        v4.max(v16),
        g4.max(g16)
    );
    assert!(g4.max(g16) < 1e-10, "gradient {}", g4.max(g16));
}

#[test]
fn factorised_matches_the_reference_in_f64() {
    let problem = problem::<f64>();
    let mut chunk = Chunk::<f64, N, 16>::new();
    let (mut worst_v, mut worst_g) = (0.0f64, 0.0f64);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    for (k, &(n, noise, size)) in [(0, 1e-4, 3), (1, 1e-4, 16), (30, 1e-4, 17), (96, 1e-5, 100)]
        .iter()
        .enumerate()
    {
        let gp = model::<f64>(Shape::SquaredExponential, n, noise, 50 + k as u64);
        let bank = bank::<f64>(size, 200 + k as u64);
        let mut ws = vec![0.0; workspace_len(n, size)];
        for set in problem.sets() {
            let mut fs = FactorisedSe::<f64, 16>::new(&gp, &bank, *set, &mut ws).unwrap();
            for bound in BOUNDS {
                for _ in 0..4 {
                    let x: [f64; D] = core::array::from_fn(|_| unit(&mut rng));
                    let (v0, g0) = expected_bound(&gp, &bank, *set, &x, bound).unwrap();
                    let inf = f64::INFINITY;
                    let (v1, g1) = fs.evaluate(&gp, &x, bound, -inf, &mut chunk).unwrap();
                    let g1 = g1.unwrap();
                    let (v2, g2) = fs.evaluate(&gp, &x, bound, inf, &mut chunk).unwrap();
                    assert_eq!((v2, g2), (v1, None));
                    // The gradient comes exactly when the value reaches the threshold.
                    assert_eq!(
                        fs.evaluate(&gp, &x, bound, v1, &mut chunk).unwrap().1,
                        Some(g1)
                    );
                    let above = v1 + v1.abs() * 1e-12 + 1e-300;
                    assert_eq!(
                        fs.evaluate(&gp, &x, bound, above, &mut chunk).unwrap().1,
                        None
                    );
                    worst_v = worst_v.max(rel_value(v1, v0));
                    worst_g = worst_g.max(rel_grad(&g1, &g0));
                }
            }
        }
    }
    println!("factorised vs reference, f64: value {worst_v:.1e}, gradient {worst_g:.1e}");
    assert!(worst_v < 1e-10 && worst_g < 1e-10, "{worst_v} {worst_g}");
    // Not for Matérn, nor with too little workspace.
    let gp = model::<f64>(Shape::Matern52, 5, 1e-4, 1);
    let bank = bank::<f64>(8, 1);
    let mut ws = vec![0.0; workspace_len(5, 8)];
    assert!(FactorisedSe::<f64, 16>::new(&gp, &bank, ControlSet::of(&[0]), &mut ws).is_none());
    let gp = model::<f64>(Shape::SquaredExponential, 5, 1e-4, 1);
    let short = FactorisedSe::<f64, 16>::workspace_len(5, 8) - 1;
    assert!(
        FactorisedSe::<f64, 16>::new(&gp, &bank, ControlSet::of(&[0]), &mut ws[..short]).is_none()
    );
}

#[test]
#[cfg_attr(
    feature = "fast-math",
    ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
)]
fn fast_paths_match_the_reference_in_f32() {
    let problem = problem::<f32>();
    let mut chunk = Chunk::<f32, N, 32>::new();
    let mut ws = vec![0.0f32; workspace_len(60, 40)];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let (mut worst_v, mut worst_g) = (0.0f64, 0.0f64);
    for shape in [Shape::SquaredExponential, Shape::Matern52] {
        // f32 needs a larger noise for a usable factor.
        let gp = model::<f32>(shape, 60, 1e-3, 9);
        let gp64 = model::<f64>(shape, 60, 1e-3, 9);
        let bank = bank::<f32>(40, 4);
        for set in problem.sets() {
            let mut fs = FactorisedSe::<f32, 32>::new(&gp, &bank, *set, &mut ws);
            assert_eq!(fs.is_some(), shape == Shape::SquaredExponential);
            for bound in BOUNDS {
                for _ in 0..4 {
                    let x: [f32; D] = core::array::from_fn(|_| unit(&mut rng) as f32);
                    let (v0, g0) = expected_bound(&gp, &bank, *set, &x, to(bound)).unwrap();
                    let (v1, g1) =
                        expected_bound_batched(&gp, &bank, *set, &x, to(bound), true, &mut chunk)
                            .unwrap();
                    assert_eq!(v1, v0, "batched f32 value not bitwise");
                    let g0 = g0.map(f64::from);
                    // Gradients are compared against their scale in f64 (an f32 gradient is
                    // only as good as the f32 factor).
                    let (_, g64) =
                        expected_bound(&gp64, &bank_to_f64(&bank), *set, &x.map(f64::from), bound)
                            .unwrap();
                    let scale = g64.iter().fold(1e-3f64, |m, v| m.max(v.abs()));
                    let diff = |g: &[f64; D]| {
                        g.iter()
                            .zip(&g0)
                            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs() / scale))
                    };
                    worst_g = worst_g.max(diff(&g1.map(f64::from)));
                    if let Some(fs) = &mut fs {
                        let (v2, g2) = fs
                            .evaluate(&gp, &x, to(bound), -f32::INFINITY, &mut chunk)
                            .unwrap();
                        let g2 = g2.unwrap();
                        // Relative to the value's scale: a lower bound can be close to zero.
                        let e = (v2 - v0).abs() as f64 / (v0.abs() as f64).max(1.0);
                        worst_v = worst_v.max(e);
                        worst_g = worst_g.max(diff(&g2.map(f64::from)));
                    }
                }
            }
        }
    }
    println!("fast paths vs reference, f32: value {worst_v:.1e}, gradient {worst_g:.1e}");
    assert!(worst_v < 1e-4 && worst_g < 1e-4, "{worst_v} {worst_g}");
}

fn bank_to_f64(b: &Bank<f32>) -> Bank<f64> {
    let pts: Vec<[f64; D]> = b.points().iter().map(|p| p.map(f64::from)).collect();
    SampleBank::from_points(pts).unwrap()
}

/// Central differences of `f` against its gradient at `x`; returns the worst error.
fn check_fd(
    mut f: impl FnMut(&[f64; D]) -> (f64, [f64; D]),
    x: &[f64; D],
    set: ControlSet,
    what: &str,
) -> f64 {
    let (_, g) = f(x);
    let h = 1e-6;
    let mut worst = 0.0f64;
    for l in 0..D {
        let (mut xp, mut xm) = (*x, *x);
        xp[l] += h;
        xm[l] -= h;
        let fd = if set.contains(l) {
            (f(&xp).0 - f(&xm).0) / (2.0 * h)
        } else {
            0.0
        };
        let e = (fd - g[l]).abs() / (1.0 + g[l].abs());
        worst = worst.max(e);
        assert!(e < 1e-6, "{what} x{l}: {fd} vs {}", g[l]);
    }
    worst
}

#[test]
fn gradients_match_finite_differences() {
    let problem = problem::<f64>();
    let mut chunk = Chunk::<f64, N, 16>::new();
    let mut ws = vec![0.0; workspace_len(40, 24)];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let mut worst = 0.0f64;
    for shape in [Shape::SquaredExponential, Shape::Matern52] {
        let gp = model::<f64>(shape, 40, 1e-3, 21);
        let bank = bank::<f64>(24, 22);
        for set in problem.sets() {
            for bound in BOUNDS {
                for _ in 0..3 {
                    let x: [f64; D] = core::array::from_fn(|_| 0.05 + 0.9 * unit(&mut rng));
                    let what = format!("{shape:?} {set:?} {bound:?} batched");
                    let f = |x: &[f64; D]| {
                        expected_bound_batched(&gp, &bank, *set, x, bound, true, &mut chunk)
                            .unwrap()
                    };
                    worst = worst.max(check_fd(f, &x, *set, &what));
                    if let Some(mut fs) = FactorisedSe::<f64, 16>::new(&gp, &bank, *set, &mut ws) {
                        let what = format!("{shape:?} {set:?} {bound:?} factorised");
                        let f = |x: &[f64; D]| {
                            let (v, g) = fs
                                .evaluate(&gp, x, bound, -f64::INFINITY, &mut chunk)
                                .unwrap();
                            (v, g.unwrap())
                        };
                        worst = worst.max(check_fd(f, &x, *set, &what));
                    }
                }
            }
        }
    }
    println!("gradients vs central differences: worst {worst:.1e}");
}

/// The reference maximisation: `inner::maximize` on the per-point `expected_bound`.
fn reference_scores(
    problem: &Problem<f64, D, M>,
    gp: &Model<f64>,
    bank: &Bank<f64>,
    bound: Bound<f64>,
    inner: &InnerConfig,
    seed: u64,
) -> Vec<Option<InnerResult<f64, D>>> {
    problem
        .sets()
        .iter()
        .enumerate()
        .map(|(i, set)| {
            let mut f = |x: &[f64; D], _: Need<f64>| expected_bound(gp, bank, *set, x, bound).ok();
            maximize(
                *set,
                &mut f,
                inner,
                seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            )
        })
        .collect()
}

#[test]
fn score_sets_matches_the_reference_maximisation() {
    let problem = problem::<f64>();
    let inner = InnerConfig::default();
    let mut worst = 0.0f64;
    for (k, shape) in [Shape::SquaredExponential, Shape::Matern52]
        .into_iter()
        .enumerate()
    {
        for bound in BOUNDS {
            let gp = model::<f64>(shape, 50, 1e-4, 31 + k as u64);
            let bank = bank::<f64>(48, 32);
            let want = reference_scores(&problem, &gp, &bank, bound, &inner, 5);
            let mut got = [None; M];
            score_sets(
                &problem,
                &gp,
                &bank,
                bound,
                &inner,
                5,
                &mut got,
                &mut [],
                |_| true,
            );
            let mut ws = vec![0.0; workspace_len(50, 48)];
            let mut got_ws = [None; M];
            score_sets(
                &problem,
                &gp,
                &bank,
                bound,
                &inner,
                5,
                &mut got_ws,
                &mut ws,
                |_| true,
            );
            for ((w, g), h) in want.iter().zip(&got).zip(&got_ws) {
                let (w, g, h) = (w.unwrap(), g.unwrap(), h.unwrap());
                for r in [g, h] {
                    // Gradients differ by rounding, so the ascent may stop at a slightly
                    // different point of the same maximum.
                    let e = (r.value - w.value).abs() / w.value.abs().max(1.0);
                    worst = worst.max(e);
                    assert!(e < 1e-7, "{shape:?} {bound:?}: {} vs {}", r.value, w.value);
                    let dx = (0..D).fold(0.0f64, |m, l| m.max((r.x[l] - w.x[l]).abs()));
                    assert!(dx < 1e-3, "{shape:?} {bound:?}: {:?} vs {:?}", r.x, w.x);
                }
            }
        }
    }
    println!("score_sets vs reference maximisation: worst relative value {worst:.1e}");
}

#[test]
fn closed_form_mean_matches_banks_and_finite_differences() {
    use costbo_core::expectation::expected_mean_closed_form;
    let problem = problem::<f64>();
    let gp = model::<f64>(Shape::SquaredExponential, 60, 1e-4, 77);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(78);
    let candidates: Vec<[f64; D]> = (0..16)
        .map(|_| core::array::from_fn(|_| unit(&mut rng)))
        .collect();
    // RMS error of the bank's E[μ] over candidates, partial sets and bank seeds.
    let rms = |size: usize, sobol: bool| {
        let (mut s2, mut count) = (0.0, 0);
        for seed in 0..8u64 {
            let bank: Bank<f64> = if sobol {
                SampleBank::quasi_random(&problem, vec![[0.0; D]; size], 1000 + seed).unwrap()
            } else {
                let mut r = Xoshiro256PlusPlus::seed_from_u64(2000 + seed);
                SampleBank::iid(&problem, vec![[0.0; D]; size], &mut r).unwrap()
            };
            for set in &problem.sets()[..4] {
                for x in &candidates {
                    let (want, _) = expected_mean_closed_form(&gp, &problem, *set, x).unwrap();
                    let (got, _) = expected_bound(&gp, &bank, *set, x, Bound::Mean).unwrap();
                    s2 += (got - want).powi(2);
                    count += 1;
                }
            }
        }
        (s2 / count as f64).sqrt()
    };
    let iid = rms(1024, false);
    let mut sobol = Vec::new();
    for size in [32, 64, 256, 1024, 4096] {
        sobol.push((size, rms(size, true)));
    }
    println!("E[mu] bank vs closed form, RMS over 8 banks x 4 sets x 16 points:");
    println!("  i.i.d. 1024: {iid:.2e}");
    for (size, e) in &sobol {
        println!("  scrambled Sobol {size}: {e:.2e}");
    }
    let sobol_1024 = sobol[3].1;
    assert!(
        sobol_1024 < iid / 10.0,
        "Sobol {sobol_1024:.2e} vs i.i.d. {iid:.2e}"
    );
    // Even a 32-point Sobol bank beats the paper's 1024 i.i.d. points (docs/performance.md).
    assert!(
        sobol[0].1 < iid,
        "Sobol 32 {:.2e} vs i.i.d. {iid:.2e}",
        sobol[0].1
    );
    assert!(sobol[4].1 < sobol[1].1 / 10.0, "no convergence: {sobol:?}");
    // With every variable controlled there is nothing to average.
    let full = ControlSet::full(D);
    let x = candidates[0];
    let (v, _) = expected_mean_closed_form(&gp, &problem, full, &x).unwrap();
    assert!((v - gp.predict(&x).unwrap().mean).abs() < 1e-12);
    // Gradient against central differences.
    for set in problem.sets() {
        for x in &candidates[..4] {
            let (_, g) = expected_mean_closed_form(&gp, &problem, *set, x).unwrap();
            for l in 0..D {
                let h = 1e-6;
                let (mut xp, mut xm) = (*x, *x);
                xp[l] += h;
                xm[l] -= h;
                let fd = if set.contains(l) {
                    let f =
                        |p: &[f64; D]| expected_mean_closed_form(&gp, &problem, *set, p).unwrap().0;
                    (f(&xp) - f(&xm)) / (2.0 * h)
                } else {
                    0.0
                };
                assert!(
                    (fd - g[l]).abs() < 1e-7 * (1.0 + g[l].abs()),
                    "{set:?} x{l}: {fd} vs {}",
                    g[l]
                );
            }
        }
    }
    // Matérn has no closed form here.
    let m = model::<f64>(Shape::Matern52, 5, 1e-4, 1);
    assert!(expected_mean_closed_form(&m, &problem, full, &x).is_none());
}

#[test]
fn screening_bounds_hold_and_change_nothing() {
    use costbo_core::expectation::{Precision, UcbScreen};
    use costbo_core::linalg::tri_len;
    use costbo_core::policy::factorised_len;
    let problem = problem::<f64>();
    let inner = InnerConfig::default();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let (mut tightest, mut tightest_lcb, mut checked) = (f64::INFINITY, f64::INFINITY, 0);
    for (k, &(n, noise, size)) in [
        (1, 1e-4, 16),
        (20, 1e-6, 40),
        (60, 1e-4, 64),
        (96, 1e-8, 33),
    ]
    .iter()
    .enumerate()
    {
        let mut gp = model::<f64>(Shape::SquaredExponential, n, noise, 300 + k as u64);
        if k == 3 {
            // Near-duplicate inputs: an ill-conditioned factor.
            let x = *gp.inputs().last().unwrap();
            gp.push(&x.map(|v| v + 1e-4), 0.1).unwrap_or(());
        }
        let n = gp.len();
        let bank = bank::<f64>(size, 400 + k as u64);
        // Bounds hold at random points, including far from the data (where Jensen is tight).
        let mut pr = vec![0.0; 2 * tri_len(n)];
        let mut scratch = vec![0.0; tri_len(n)];
        let precision = Precision::new(&gp, &mut pr, &mut scratch).unwrap();
        let mut ws = vec![0.0; workspace_len(n, size)];
        let mut sws = vec![0.0; 2 * tri_len(n)];
        let mut chunk = Chunk::<f64, N, 16>::new();
        for set in problem.sets() {
            let mut fs = FactorisedSe::<f64, 16>::new(&gp, &bank, *set, &mut ws).unwrap();
            let screen = UcbScreen::new(&precision, &fs, &mut sws, &mut chunk).unwrap();
            for t in 0..40 {
                let x: [f64; D] = if t % 4 == 0 {
                    core::array::from_fn(|_| 3.0 + unit(&mut rng))
                } else {
                    core::array::from_fn(|_| unit(&mut rng))
                };
                for beta in [0.0, 0.5, 2.0] {
                    let ub = screen.upper_bound(&fs, &gp, &x, beta, &mut chunk);
                    let (v, _) = fs
                        .evaluate(&gp, &x, Bound::Upper(beta), f64::INFINITY, &mut chunk)
                        .unwrap();
                    assert!(
                        ub >= v,
                        "n={n} {set:?} x={x:?} β={beta}: bound {ub} < value {v}"
                    );
                    tightest = tightest.min(ub - v);
                    let lb = screen.lcb_upper_bound(&fs, &gp, &x, beta, &mut chunk);
                    let (w, _) = fs
                        .evaluate(&gp, &x, Bound::Lower(beta), f64::INFINITY, &mut chunk)
                        .unwrap();
                    assert!(
                        lb >= w,
                        "n={n} {set:?} x={x:?} β={beta}: LCB bound {lb} < value {w}"
                    );
                    tightest_lcb = tightest_lcb.min(lb - w);
                    checked += 2;
                }
            }
        }
        // Screening changes no result: with and without it, bit for bit.
        for (seed, bound) in (0..3).flat_map(|s| [(s, Bound::Upper(2.0)), (s, Bound::Lower(2.0))]) {
            let mut with = [None; M];
            let mut without = [None; M];
            score_sets(
                &problem,
                &gp,
                &bank,
                bound,
                &inner,
                seed,
                &mut with,
                &mut ws,
                |_| true,
            );
            let mut small = vec![0.0; factorised_len(n, size)];
            score_sets(
                &problem,
                &gp,
                &bank,
                bound,
                &inner,
                seed,
                &mut without,
                &mut small,
                |_| true,
            );
            assert_eq!(with, without, "n={n} seed={seed} {bound:?}");
        }
    }
    println!(
        "screening: {checked} bounds hold, smallest slack {tightest:.1e} (UCB), \
         {tightest_lcb:.1e} (LCB)"
    );
}

#[test]
fn screening_bounds_hold_in_f32() {
    use costbo_core::expectation::{Precision, UcbScreen};
    use costbo_core::linalg::tri_len;
    let problem = problem::<f32>();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
    let mut checked = 0;
    for (k, &(n, noise, size)) in [(10, 1e-3, 16), (50, 1e-3, 64), (90, 1e-4, 40)]
        .iter()
        .enumerate()
    {
        let gp = model::<f32>(Shape::SquaredExponential, n, noise, 500 + k as u64);
        let n = gp.len();
        let bank = bank::<f32>(size, 600 + k as u64);
        let mut pr = vec![0.0f32; 2 * tri_len(n)];
        let mut scratch = vec![0.0f32; tri_len(n)];
        let precision = Precision::new(&gp, &mut pr, &mut scratch).unwrap();
        let mut ws = vec![0.0f32; workspace_len(n, size)];
        let mut sws = vec![0.0f32; 2 * tri_len(n)];
        let mut chunk = Chunk::<f32, N, 32>::new();
        for set in problem.sets() {
            let mut fs = FactorisedSe::<f32, 32>::new(&gp, &bank, *set, &mut ws).unwrap();
            let screen = UcbScreen::new(&precision, &fs, &mut sws, &mut chunk).unwrap();
            for t in 0..40 {
                let x: [f32; D] = if t % 4 == 0 {
                    core::array::from_fn(|_| 3.0 + unit(&mut rng) as f32)
                } else {
                    core::array::from_fn(|_| unit(&mut rng) as f32)
                };
                for beta in [0.0f32, 2.0] {
                    let ub = screen.upper_bound(&fs, &gp, &x, beta, &mut chunk);
                    let (v, _) = fs
                        .evaluate(&gp, &x, Bound::Upper(beta), f32::INFINITY, &mut chunk)
                        .unwrap();
                    assert!(ub >= v, "n={n} {set:?} β={beta}: bound {ub} < value {v}");
                    let lb = screen.lcb_upper_bound(&fs, &gp, &x, beta, &mut chunk);
                    let (w, _) = fs
                        .evaluate(&gp, &x, Bound::Lower(beta), f32::INFINITY, &mut chunk)
                        .unwrap();
                    assert!(
                        lb >= w,
                        "n={n} {set:?} β={beta}: LCB bound {lb} < value {w}"
                    );
                    checked += 2;
                }
            }
        }
    }
    println!("screening in f32: {checked} bounds hold");
}

#[test]
fn scoring_some_sets_gives_the_same_results_for_them() {
    let problem = problem::<f64>();
    let inner = InnerConfig::default();
    let gp = model::<f64>(Shape::SquaredExponential, 40, 1e-4, 700);
    let bank = bank::<f64>(32, 701);
    let mut ws = vec![0.0; workspace_len(40, 32)];
    let mut all = [None; M];
    let bound = Bound::Upper(2.0);
    score_sets(
        &problem,
        &gp,
        &bank,
        bound,
        &inner,
        9,
        &mut all,
        &mut ws,
        |_| true,
    );
    let mut some = [None; M];
    score_sets(
        &problem,
        &gp,
        &bank,
        bound,
        &inner,
        9,
        &mut some,
        &mut ws,
        |i| i % 2 == 1,
    );
    for i in 0..M {
        assert_eq!(some[i], if i % 2 == 1 { all[i] } else { None }, "set {i}");
    }
}

/// A bank wider than the Sobol table (21 inputs): its first 21 coordinates are the table's,
/// the same as a 21-input bank of the same seed (a scrambled Sobol point's coordinates do not
/// depend on how many there are), and the others are spread over their range like i.i.d.
/// uniforms: each of 4 quarters holds a quarter of the 256 × 7 draws within 5 standard errors.
#[test]
fn a_bank_wider_than_the_sobol_table_keeps_its_first_coordinates() {
    fn bank<const D: usize>() -> Vec<[f64; D]> {
        let v = Variable {
            lower: 0.0,
            upper: 1.0,
            uncontrolled: Distribution::Uniform(costbo_core::dist::Uniform::new(0.0, 1.0).unwrap()),
        };
        let problem: Problem<f64, D, 1> =
            Problem::new(&[v; D], &[ControlSet::of(&[0])], Some(&[1.0])).unwrap();
        SampleBank::quasi_random(&problem, vec![[0.0; D]; 256], 9)
            .unwrap()
            .points()
            .to_vec()
    }
    let (table, wide) = (bank::<21>(), bank::<28>());
    for (a, b) in table.iter().zip(&wide) {
        assert_eq!(a[..], b[..21]);
    }
    let mut quarters = [0usize; 4];
    for p in &wide {
        for v in &p[21..] {
            assert!(*v > 0.0 && *v < 1.0);
            quarters[(v * 4.0) as usize] += 1;
        }
    }
    let n = 256.0 * 7.0;
    let se = (n * 0.25 * 0.75f64).sqrt();
    for q in quarters {
        assert!((q as f64 - n / 4.0).abs() < 5.0 * se, "{quarters:?}");
    }
}
