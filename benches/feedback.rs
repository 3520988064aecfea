//! Time of one round of paper 003's synthetic study on the desktop (f64): TV-GP-UCB's choice
//! over the 1 000-point grid, the confidence test against the UCB's grid optima, and the
//! Kalman update of the posterior (O(M²)) when the round pays — measured on a controller that
//! has already paid for 250 observations (half the horizon). Beside it, the data-space model's
//! box round at capacity 64 (`box_ucb_optima` from 8 starts, D = 2), the firmware's scenario.
//!
//! Run: `cargo bench -p costbo-benches --bench feedback -- --warm-up-time 1 --measurement-time 5`.

use costbo_core::feedback::controller::{
    Beta, CandidateController, Chooser, Competitors, FeedbackSettings,
};
use costbo_core::feedback::query::QueryRule;
use costbo_core::feedback::select::{box_ucb_optima, BoxOptimum};
use costbo_core::gp::candidates::CandidatePosterior;
use costbo_core::gp::time_varying::TimeVaryingGp;
use costbo_core::gp::{Prediction, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::optimize::QuasiNewtonConfig;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;

const M: usize = 1000;

fn matern32(a: f64, b: f64) -> f64 {
    let r = 3f64.sqrt() * (a - b).abs() / 0.2;
    (1.0 + r) * (-r).exp()
}

fn grid_controller(rule: QueryRule<f64>) -> CandidateController<f64, Vec<f64>, Xoshiro256PlusPlus> {
    let xs: Vec<f64> = (0..M).map(|i| i as f64 / (M - 1) as f64).collect();
    let posterior = CandidatePosterior::new(
        vec![0.0; CandidatePosterior::<f64, Vec<f64>>::storage_len(M)],
        M,
        |i, j| matern32(xs[i], xs[j]),
        0.0,
        0.01,
        0.01,
    )
    .unwrap();
    let settings = FeedbackSettings {
        beta: Beta::Logarithmic {
            scale: 0.8,
            rate: 0.4,
        },
        chooser: Chooser::Ucb,
        rule,
        competitors: Competitors::PAPER_GRID,
        reset_every: None,
    };
    let mut c = CandidateController::new(posterior, settings, Xoshiro256PlusPlus::seed_from_u64(1))
        .unwrap();
    let mut paid = 0;
    while paid < 250 {
        let a = c.ask().unwrap();
        if a.query.pay {
            c.tell((xs[a.candidate] * 7.0).sin()).unwrap();
            paid += 1;
        } else {
            c.skip().unwrap();
        }
    }
    c
}

fn synthetic_round(c: &mut Criterion) {
    let mut group = c.benchmark_group("feedback/synthetic-round-m1000");
    let full = grid_controller(QueryRule::full());
    group.bench_function("paid (ask + tell)", |b| {
        b.iter_batched(
            || full.clone(),
            |mut c| {
                let a = c.ask().unwrap();
                c.tell(black_box(0.1)).unwrap();
                black_box(a)
            },
            BatchSize::LargeInput,
        )
    });
    let never = grid_controller(QueryRule::full());
    // The same state; the round is closed without a measurement (O(M) reads, O(1) decay).
    group.bench_function("skipped (ask + skip)", |b| {
        b.iter_batched(
            || never.clone(),
            |mut c| {
                let a = c.ask().unwrap();
                c.skip().unwrap();
                black_box(a)
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn box_round(c: &mut Criterion) {
    let kernel = Kernel::matern52([0.2, 0.2], 1.0).unwrap();
    let mut gp: TimeVaryingGp<f64, 64, 2, Vec<f64>> = TimeVaryingGp::new(
        kernel,
        0.0,
        0.01,
        0.01,
        WhenFull::DropOldest,
        vec![0.0; tri_len(64)],
    )
    .unwrap();
    for i in 0..64u32 {
        let x = [
            (f64::from(i) * 0.618_034) % 1.0,
            (f64::from(i) * 0.414_214) % 1.0,
        ];
        gp.push(&x, (5.0 * x[0]).sin() * x[1]).unwrap();
        gp.advance().unwrap();
    }
    let starts: Vec<[f64; 2]> = (0..8)
        .map(|i| {
            [
                (f64::from(i) + 0.5) / 8.0,
                (f64::from(i) * 0.618_034 + 0.25) % 1.0,
            ]
        })
        .collect();
    let config = QuasiNewtonConfig {
        max_iterations: 30,
        ..QuasiNewtonConfig::default()
    };
    let empty = BoxOptimum {
        x: [0.0; 2],
        value: 0.0,
        prediction: Prediction {
            mean: 0.0,
            variance: 0.0,
        },
    };
    c.bench_function("feedback/box-optima-n64-d2-8starts", |b| {
        b.iter(|| {
            let mut out = [empty; 8];
            let k = box_ucb_optima(&gp, 1.0, &starts, &config, 0.2, &mut out);
            black_box((k, out))
        })
    });
}

criterion_group!(benches, synthetic_round, box_round);
criterion_main!(benches);
