//! Paper 004's fitted per-arm model against references written here: the refit schedule
//! enumerated by hand; every fit against an independent fit of the same data done by hand in
//! the standardised problem (inputs mapped to the unit box, outcomes standardised, BoTorch's
//! priors as they are written for that problem) and mapped back; its typed settings errors;
//! and a controller rebuilt by replaying the rounds, which must fit to the same bits.

use costbo_core::causal::{
    ArmFit, ArmModel, ArmTable, CausalController, CausalError, CausalSettings, Schedule,
};
use costbo_core::gp::{FitConfig, Gp, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::Real;
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

const N: usize = 40;
type Store<R> = Vec<R>;
type Ctl<R> = CausalController<R, 2, N, 2, Store<R>, Xoshiro256PlusPlus>;

/// Boxes far from the unit box and outcomes far from the prior (the PSA problems' situation:
/// targets many prior standard deviations below a zero mean).
const X1: (f64, f64) = (2.0, 10.0);
const X2: (f64, f64) = (-1.0, 1.0);
const C: (f64, f64) = (0.0, 0.5);
const OFFSET: f64 = -40.0;
const SCALE: f64 = 7.0;

fn gp<R: Real>() -> Gp<R, N, 2, Store<R>> {
    let kernel = Kernel::squared_exponential([R::ONE; 2], R::ONE).unwrap();
    Gp::new(
        kernel,
        R::ZERO,
        R::from_f64(0.1),
        WhenFull::Reject,
        vec![R::ZERO; tri_len(N)],
    )
    .unwrap()
}

/// Variables: 0 = X1, 1 = X2, 2 = C; arms (X1; C) and (X2; C).
fn table<R: Real>() -> ArmTable<R, 2, 2> {
    let b = |v, (lo, hi): (f64, f64)| (v, R::from_f64(lo), R::from_f64(hi));
    let mut t = ArmTable::new();
    t.push(&[b(0, X1)], &[b(2, C)]).unwrap();
    t.push(&[b(1, X2)], &[b(2, C)]).unwrap();
    t
}

fn fit(every: u32, spacing: u32) -> ArmFit<f64> {
    ArmFit {
        every,
        spacing,
        noise_floor: 1e-6,
        evaluations: 400,
    }
}

fn settings<R: Real>(model: ArmModel<R>) -> CausalSettings<R> {
    CausalSettings {
        model,
        ..CausalSettings::algorithm2(Schedule::Constant(R::TWO), Schedule::Constant(R::ONE))
    }
}

fn controller(model: ArmModel<f64>) -> Ctl<f64> {
    CausalController::new(
        table(),
        [gp(), gp()],
        settings(model),
        Xoshiro256PlusPlus::seed_from_u64(3),
    )
    .unwrap()
}

fn outcome(arm: usize, x: f64, c: f64) -> f64 {
    let u = match arm {
        0 => 1.0 - ((x - 6.0) / 4.0 + 2.0 * c).powi(2),
        _ => 0.6 - 0.5 * (x - 0.3).powi(2) + 0.4 * c,
    };
    OFFSET + SCALE * u
}

fn context(t: usize) -> f64 {
    let s = 0.5 + t as f64 * 0.618_033_988_749_895;
    C.0 + (C.1 - C.0) * (s - s.floor())
}

#[test]
fn the_schedule_by_hand() {
    let listed = |f: ArmFit<f64>, list: &[u32], upto: u32| {
        for n in 0..=upto {
            assert_eq!(f.due(n), list.contains(&n), "{f:?} at {n}");
        }
    };
    listed(
        fit(1, 2),
        &[
            2, 3, 4, 6, 9, 13, 19, 28, 42, 63, 94, 141, 211, 316, 474, 711,
        ],
        800,
    );
    listed(
        fit(4, 8),
        &[4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 45, 50, 56, 63, 70],
        72,
    );
    let periodic: Vec<u32> = (1..=40).map(|k| 3 * k).collect();
    listed(fit(3, 0), &periodic, 120);
    // Every play from the second.
    let all: Vec<u32> = (2..=50).collect();
    listed(fit(1, 0), &all, 50);
}

#[test]
fn invalid_fit_settings_are_refused() {
    for bad in [
        ArmFit {
            every: 0,
            ..fit(1, 2)
        },
        ArmFit {
            evaluations: 0,
            ..fit(1, 2)
        },
        ArmFit {
            noise_floor: 0.0,
            ..fit(1, 2)
        },
        ArmFit {
            noise_floor: -1e-3,
            ..fit(1, 2)
        },
        ArmFit {
            noise_floor: f64::NAN,
            ..fit(1, 2)
        },
        ArmFit {
            noise_floor: f64::INFINITY,
            ..fit(1, 2)
        },
    ] {
        let r = CausalController::<f64, 2, N, 2, Store<f64>, _>::new(
            table(),
            [gp(), gp()],
            settings(ArmModel::Fitted(bad)),
            Xoshiro256PlusPlus::seed_from_u64(3),
        );
        assert_eq!(r.err(), Some(CausalError::InvalidSetting), "{bad:?}");
    }
}

/// The fit of `data` (physical inputs, raw outcomes) done in the standardised problem: inputs
/// mapped to the unit box, outcomes standardised by their mean and unbiased standard
/// deviation, BoTorch's priors as written for that problem (`map_learned_noise` on outcomes of
/// mean 0 and deviation 1, the floor divided by `s²`); returned mapped back to the arm's units
/// as (ln ℓ per input, ln outputscale, ln noise, mean).
fn fit_by_hand(
    data: &[([f64; 2], f64)],
    boxes: [(f64, f64); 2],
    fit: &ArmFit<f64>,
) -> ([f64; 2], f64, f64, f64) {
    let n = data.len() as f64;
    let mean = data.iter().map(|d| d.1).sum::<f64>() / n;
    let sd = (data.iter().map(|d| (d.1 - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let mut unit = gp::<f64>();
    let mut z = vec![];
    for (x, y) in data {
        let u = core::array::from_fn(|l| (x[l] - boxes[l].0) / (boxes[l].1 - boxes[l].0));
        unit.push(&u, (y - mean) / sd).unwrap();
        z.push((y - mean) / sd);
    }
    let mut config = FitConfig::map_learned_noise(&z, fit.noise_floor / (sd * sd));
    config.evaluations_per_start = fit.evaluations;
    unit.fit(&config).unwrap();
    let h = unit.hyperparameters();
    let s2 = (sd * sd).ln();
    (
        core::array::from_fn(|l| h.log_lengthscales[l] + (boxes[l].1 - boxes[l].0).ln()),
        h.log_outputscale + s2,
        h.log_noise + s2,
        mean + sd * h.mean,
    )
}

#[test]
fn every_fit_is_the_standardised_problems_fit_mapped_back() {
    let f = fit(1, 2);
    let mut ctl = controller(ArmModel::Fitted(f));
    let mut data: [Vec<([f64; 2], f64)>; 2] = [vec![], vec![]];
    let mut checked = [0; 2];
    for t in 0..36 {
        let c = context(t);
        let ask = ctl.ask(&[f64::NAN, f64::NAN, c]).unwrap();
        let arm = ask.choice.arm;
        let y = outcome(arm, ask.action()[0], c);
        let fits = ctl.fits(arm);
        ctl.tell(y).unwrap();
        data[arm].push((ask.input, y));
        let plays = ctl.plays(arm);
        assert_eq!(
            f.due(plays),
            ctl.fits(arm) == fits + 1,
            "arm {arm}, play {plays}"
        );
        if !f.due(plays) {
            continue;
        }
        let boxes = [if arm == 0 { X1 } else { X2 }, C];
        let (ls, os, noise, mean) = fit_by_hand(&data[arm], boxes, &f);
        let h = ctl.gp(arm).unwrap().hyperparameters();
        let close = |a: f64, b: f64, what: &str| {
            assert!(
                (a - b).abs() <= 2e-3 * (1.0 + b.abs()),
                "arm {arm}, play {plays}, {what}: controller {a}, by hand {b}"
            );
        };
        for (&fitted, &by_hand) in h.log_lengthscales.iter().zip(&ls) {
            close(fitted, by_hand, "ln lengthscale");
        }
        close(h.log_outputscale, os, "ln outputscale");
        close(h.log_noise, noise, "ln noise");
        close(h.mean, mean, "mean");
        checked[arm] += 1;
    }
    // Both arms were fitted several times (and so the test compared something).
    assert!(
        checked.iter().all(|&k| k >= 3),
        "fits checked per arm: {checked:?}"
    );
    // After its fits, the model's mean sits among the outcomes, not at the prior's 0.
    for (arm, d) in data.iter().enumerate() {
        let lo = d.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
        let hi = d.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
        let m = ctl.gp(arm).unwrap().prior_mean();
        assert!(
            m > lo - 3.0 * SCALE && m < hi + 3.0 * SCALE,
            "arm {arm}: mean {m}"
        );
    }
}

#[test]
fn a_replayed_controller_fits_to_the_same_bits() {
    let mut ctl = controller(ArmModel::Fitted(fit(1, 2)));
    let mut rounds = vec![];
    for t in 0..30 {
        let c = context(t);
        let ask = ctl.ask(&[f64::NAN, f64::NAN, c]).unwrap();
        let y = outcome(ask.choice.arm, ask.action()[0], c);
        ctl.tell_paid(y, 1.0).unwrap();
        rounds.push((ask.choice.arm, c, y, ask.input));
    }
    let mut again = controller(ArmModel::Fitted(fit(1, 2)));
    for (arm, c, y, input) in rounds {
        again
            .replay(arm, &[f64::NAN, f64::NAN, c], y, 1.0, |_, ask| {
                assert_eq!(ask.input, input);
                Ok(())
            })
            .unwrap();
    }
    for arm in 0..2 {
        assert!(ctl.fits(arm) > 0);
        assert_eq!(again.fits(arm), ctl.fits(arm));
        assert_eq!(
            again.gp(arm).unwrap().hyperparameters(),
            ctl.gp(arm).unwrap().hyperparameters()
        );
    }
}

#[test]
fn the_fixed_model_never_fits_and_f32_fits_too() {
    let mut fixed = controller(ArmModel::Fixed);
    let mut f32c: Ctl<f32> = CausalController::new(
        table(),
        [gp(), gp()],
        settings(ArmModel::Fitted(ArmFit {
            every: 1,
            spacing: 2,
            noise_floor: 1e-4f32,
            evaluations: 200,
        })),
        Xoshiro256PlusPlus::seed_from_u64(3),
    )
    .unwrap();
    for t in 0..20 {
        let c = context(t);
        let a = fixed.ask(&[f64::NAN, f64::NAN, c]).unwrap();
        fixed.tell(outcome(a.choice.arm, a.action()[0], c)).unwrap();
        let b = f32c.ask(&[f32::NAN, f32::NAN, c as f32]).unwrap();
        f32c.tell(outcome(b.choice.arm, f64::from(b.action()[0]), c) as f32)
            .unwrap();
    }
    for arm in 0..2 {
        assert_eq!(fixed.fits(arm), 0);
        assert_eq!(fixed.gp(arm).unwrap().prior_mean(), 0.0);
        if f32c.plays(arm) >= 2 {
            assert!(f32c.fits(arm) > 0, "arm {arm}");
            // The fitted mean moved from the prior's 0 to the outcomes' level.
            let m = f32c.gp(arm).unwrap().prior_mean();
            assert!(
                (m - OFFSET as f32).abs() < 3.0 * SCALE as f32,
                "arm {arm}: {m}"
            );
        }
    }
}
