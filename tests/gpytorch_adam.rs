//! The core's Adam fit (`Gp::fit_adam`) against GPyTorch running paper 001's authors' refit
//! (`fixtures/gpytorch_adam_fit.json`, written by `tools/reference/gpytorch_adam_fit.py`):
//! the hyperparameters after every one of the 10 steps, on four data sets, one of them with a
//! noise above its floor and one whose lengthscales have no gradient left to follow.

use costbo_core::gp::{AdamFit, Gp, GpError, Hyperparameters, WhenFull};
use costbo_core::kernel::{Kernel, Shape};
use costbo_core::linalg::tri_len;
use serde::Deserialize;

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Values {
    lengthscales: Vec<f64>,
    outputscale: f64,
    noise: f64,
    mean: f64,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    x: Vec<Vec<f64>>,
    y: Vec<f64>,
    start: Values,
    lengthscale_bounds: [f64; 2],
    noise_floor: f64,
    learning_rate: f64,
    trajectory: Vec<Values>,
}

fn fixture() -> Fixture {
    serde_json::from_str(include_str!("fixtures/gpytorch_adam_fit.json")).unwrap()
}

const N: usize = 64;

fn model<const D: usize>(c: &Case) -> Gp<f64, N, D, Vec<f64>> {
    let ls: [f64; D] = core::array::from_fn(|i| c.start.lengthscales[i]);
    let kernel = Kernel::new(Shape::SquaredExponential, ls, c.start.outputscale).unwrap();
    let mut gp = Gp::new(
        kernel,
        c.start.mean,
        c.start.noise,
        WhenFull::Reject,
        vec![0.0; tri_len(N)],
    )
    .unwrap();
    for (x, y) in c.x.iter().zip(&c.y) {
        gp.push(&core::array::from_fn(|i| x[i]), *y).unwrap();
    }
    gp
}

fn settings<const D: usize>(c: &Case, steps: usize) -> AdamFit<f64, D> {
    AdamFit {
        start: Hyperparameters {
            log_lengthscales: core::array::from_fn(|i| c.start.lengthscales[i].ln()),
            log_outputscale: c.start.outputscale.ln(),
            log_noise: c.start.noise.ln(),
            mean: c.start.mean,
        },
        lengthscale_bounds: (c.lengthscale_bounds[0], c.lengthscale_bounds[1]),
        noise_floor: c.noise_floor,
        steps,
        learning_rate: c.learning_rate,
    }
}

fn close(what: &str, ours: f64, theirs: f64) {
    let err = (ours - theirs).abs() / theirs.abs().max(1e-3);
    assert!(
        err < 1e-9,
        "{what}: ours {ours}, GPyTorch {theirs} (relative {err:.1e})"
    );
}

fn check<const D: usize>(c: &Case) {
    let mut cache = vec![0.0; costbo_core::gp::fit_cache_len(N)];
    for (k, want) in c.trajectory.iter().enumerate() {
        let mut gp = model::<D>(c);
        let report = gp.fit_adam(&settings::<D>(c, k + 1), &mut cache).unwrap();
        let h = report.hyperparameters;
        let at = |what: &str| format!("{} after {} steps: {what}", c.name, k + 1);
        for i in 0..D {
            close(
                &at("lengthscale"),
                h.log_lengthscales[i].exp(),
                want.lengthscales[i],
            );
        }
        close(
            &at("outputscale"),
            h.log_outputscale.exp(),
            want.outputscale,
        );
        close(&at("noise"), h.log_noise.exp(), want.noise);
        close(&at("mean"), h.mean, want.mean);
    }
}

#[test]
fn every_step_matches_gpytorch() {
    let f = fixture();
    assert_eq!(f.cases.len(), 4);
    for c in &f.cases {
        match c.start.lengthscales.len() {
            2 => check::<2>(c),
            3 => check::<3>(c),
            5 => check::<5>(c),
            12 => check::<12>(c),
            d => panic!("no case of dimension {d}"),
        }
    }
}

#[test]
fn the_fit_moves_from_the_start_not_from_the_model() {
    // A model whose current hyperparameters are far from the start fits to the same values.
    let f = fixture();
    let c = &f.cases[0];
    let mut moved = model::<3>(c);
    let mut elsewhere = settings::<3>(c, 10);
    elsewhere.start.log_lengthscales = [1.5f64.ln(); 3];
    moved.fit_adam(&elsewhere, &mut []).unwrap();
    let a = moved.fit_adam(&settings::<3>(c, 10), &mut []).unwrap();
    let b = model::<3>(c)
        .fit_adam(&settings::<3>(c, 10), &mut [])
        .unwrap();
    assert_eq!(a.hyperparameters, b.hyperparameters);
}

#[test]
fn bad_settings_are_refused_and_leave_the_model_unchanged() {
    let f = fixture();
    let c = &f.cases[0];
    let mut gp = model::<3>(c);
    let before = gp.hyperparameters();
    let probe = [0.3, 0.4, 0.5];
    let p = gp.predict(&probe).unwrap();
    let mut s = settings::<3>(c, 10);
    s.lengthscale_bounds = (1.0, 0.5);
    assert_eq!(
        gp.fit_adam(&s, &mut []).unwrap_err(),
        GpError::InvalidBounds
    );
    let mut s = settings::<3>(c, 10);
    s.start.log_lengthscales[1] = 0.001f64.ln();
    assert_eq!(
        gp.fit_adam(&s, &mut []).unwrap_err(),
        GpError::InvalidHyperparameter
    );
    let mut s = settings::<3>(c, 10);
    s.start.mean = f64::NAN;
    assert_eq!(gp.fit_adam(&s, &mut []).unwrap_err(), GpError::NonFinite);
    let mut s = settings::<3>(c, 10);
    s.learning_rate = 0.0;
    assert_eq!(
        gp.fit_adam(&s, &mut []).unwrap_err(),
        GpError::InvalidBounds
    );
    assert_eq!(gp.hyperparameters(), before);
    assert_eq!(gp.predict(&probe).unwrap(), p);
}
