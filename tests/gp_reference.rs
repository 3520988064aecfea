//! The core GP against independent 40-digit mpmath references (`fixtures/gp_cases.json`,
//! made by `tools/reference/gp_reference.py`), in f64 and f32.
//!
//! Tolerances, stated once:
//! - f64, well-conditioned (cond(K_y) < 1e6): mean, covariances, LML and gradients within
//!   1e-9 relative (relative to max(|value|, scale) where `scale` is the natural magnitude of
//!   the quantity: the outputscale for means and variances).
//! - f64, ill-conditioned: within cond · 1e-15 of that scale.
//! - f32, well-conditioned: means and variances within 1e-3 of the outputscale, LML within
//!   1e-3 relative.

use costbo_core::gp::{Gp, WhenFull};
use costbo_core::kernel::{Kernel, Shape};
use costbo_core::linalg::tri_len;
use costbo_core::Real;
use serde::Deserialize;

#[derive(Deserialize)]
struct LmlGrad {
    log_lengthscales: Vec<f64>,
    log_outputscale: f64,
    log_noise: f64,
    mean: f64,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    kernel: String,
    d: usize,
    lengthscales: Vec<f64>,
    outputscale: f64,
    noise: f64,
    mean: f64,
    train_x: Vec<Vec<f64>>,
    train_y: Vec<f64>,
    test_x: Vec<Vec<f64>>,
    pred_mean: Vec<f64>,
    pred_var: Vec<f64>,
    pred_cov: Vec<Vec<f64>>,
    grad_mean: Vec<Vec<f64>>,
    grad_std: Vec<Vec<f64>>,
    lml: f64,
    lml_grad: LmlGrad,
    well_conditioned: bool,
}

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("fixtures/gp_cases.json");
    serde_json::from_str::<Fixture>(text)
        .expect("fixture parses")
        .cases
}

const N: usize = 64;

/// Largest error seen for each quantity, relative to its scale.
#[derive(Default, Debug)]
struct Errors {
    mean: f64,
    var: f64,
    var_pure_relative: f64,
    cov: f64,
    grad_mean: f64,
    grad_std: f64,
    lml: f64,
    lml_grad: f64,
}

fn rel(got: f64, want: f64, scale: f64) -> f64 {
    (got - want).abs() / want.abs().max(scale)
}

fn check_case<R: Real, const D: usize>(c: &Case) -> Errors {
    let shape = match c.kernel.as_str() {
        "se" => Shape::SquaredExponential,
        "matern52" => Shape::Matern52,
        k => panic!("unknown kernel {k}"),
    };
    let f = R::from_f64;
    let ls: [R; D] = core::array::from_fn(|i| f(c.lengthscales[i]));
    let kernel = Kernel::new(shape, ls, f(c.outputscale)).unwrap();
    let mut gp: Gp<R, N, D, Vec<R>> = Gp::new(
        kernel,
        f(c.mean),
        f(c.noise),
        WhenFull::Reject,
        vec![R::ZERO; tri_len(N)],
    )
    .unwrap();
    let pt = |v: &Vec<f64>| -> [R; D] { core::array::from_fn(|i| f(v[i])) };
    for (x, y) in c.train_x.iter().zip(&c.train_y) {
        gp.push(&pt(x), f(*y)).unwrap();
    }
    let s = c.outputscale;
    let mut e = Errors::default();
    for (t, x) in c.test_x.iter().enumerate() {
        let g = gp.predict_with_gradient(&pt(x)).unwrap();
        e.mean = e.mean.max(rel(g.mean.to_f64(), c.pred_mean[t], s));
        e.var = e.var.max(rel(g.variance.to_f64(), c.pred_var[t], s));
        e.var_pure_relative = e
            .var_pure_relative
            .max(rel(g.variance.to_f64(), c.pred_var[t], 0.0));
        for i in 0..D {
            let gs = c.grad_mean[t]
                .iter()
                .fold(0.0f64, |m, v| m.max(v.abs()))
                .max(1.0);
            e.grad_mean = e
                .grad_mean
                .max(rel(g.d_mean[i].to_f64(), c.grad_mean[t][i], gs));
            // ∂σ is ill-defined where σ → 0; compare only where σ is well away from zero.
            if c.pred_var[t] > 1e-6 * s {
                let gs = c.grad_std[t]
                    .iter()
                    .fold(0.0f64, |m, v| m.max(v.abs()))
                    .max(1.0);
                e.grad_std = e
                    .grad_std
                    .max(rel(g.d_std[i].to_f64(), c.grad_std[t][i], gs));
            }
        }
        for (u, y) in c.test_x.iter().enumerate() {
            let cov = gp.covariance(&pt(x), &pt(y)).unwrap().to_f64();
            e.cov = e.cov.max(rel(cov, c.pred_cov[t][u], s));
        }
    }
    let mut ws = vec![R::ZERO; tri_len(N)];
    let (lml, grad) = gp.log_marginal_likelihood_gradient(&mut ws).unwrap();
    e.lml = rel(lml.to_f64(), c.lml, 1.0);
    let want: Vec<f64> = c
        .lml_grad
        .log_lengthscales
        .iter()
        .copied()
        .chain([
            c.lml_grad.log_outputscale,
            c.lml_grad.log_noise,
            c.lml_grad.mean,
        ])
        .collect();
    let gscale = want.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (i, w) in want.iter().enumerate() {
        e.lml_grad = e.lml_grad.max(rel(grad.get(i).to_f64(), *w, gscale));
    }
    e
}

fn run<R: Real>(c: &Case) -> Errors {
    match c.d {
        1 => check_case::<R, 1>(c),
        2 => check_case::<R, 2>(c),
        3 => check_case::<R, 3>(c),
        5 => check_case::<R, 5>(c),
        d => panic!("dimension {d} not instantiated"),
    }
}

#[test]
fn f64_matches_mpmath_references() {
    let cases = cases();
    assert!(cases.len() >= 40);
    let mut worst = Errors::default();
    for c in &cases {
        let e = run::<f64>(c);
        // Ill-conditioned cases: errors scale with the condition number (up to ~1e8 here).
        let tol = if c.well_conditioned { 1e-9 } else { 1e-6 };
        for (what, v) in [
            ("mean", e.mean),
            ("variance", e.var),
            ("covariance", e.cov),
            ("d mean", e.grad_mean),
            ("d std", e.grad_std),
            ("lml", e.lml),
            ("lml gradient", e.lml_grad),
        ] {
            assert!(v < tol, "{}: {what} error {v:e} exceeds {tol:e}", c.name);
        }
        if c.well_conditioned {
            worst.mean = worst.mean.max(e.mean);
            worst.var = worst.var.max(e.var);
            worst.var_pure_relative = worst.var_pure_relative.max(e.var_pure_relative);
            worst.lml_grad = worst.lml_grad.max(e.lml_grad);
        }
    }
    println!("worst well-conditioned f64 errors: {worst:?}");
}

#[test]
fn f32_is_within_stated_tolerance_of_references() {
    for c in cases()
        .iter()
        .filter(|c| c.well_conditioned && c.noise >= 1e-4)
    {
        let e = run::<f32>(c);
        assert!(e.mean < 1e-3, "{}: mean {:e}", c.name, e.mean);
        assert!(e.var < 1e-3, "{}: variance {:e}", c.name, e.var);
        assert!(e.lml < 1e-3, "{}: lml {:e}", c.name, e.lml);
    }
}
