//! Time of one round of paper 004's Algorithm 2 on the desktop: two arms (`{X | C}` and
//! `{X, Z}`), a GP of capacity 64 per arm that is full (so the round's outcome drops the
//! oldest point), the arm choice, GP-UCB's ascent over the arm's action box from 8 starts with
//! the context pinned, and the outcome told — the firmware's scenario
//! (`costbo_firmware::causal`), in f64 and f32, with the firmware's small ascent budget and
//! with L-BFGS-B's defaults (what `costbo reproduce causal` uses); and with the firmware's budget
//! and the arm's model fitted after the round (`ArmModel::Fitted`, at most 100 likelihood
//! evaluations, as `[model] fit = "map"` does on the device), the cost of a round that fits.
//!
//! Run: `cargo bench -p costbo-benches --bench causal -- --warm-up-time 1 --measurement-time 5`.

use costbo_core::causal::arms::ArmTable;
use costbo_core::causal::controller::{ArmFit, ArmModel, CausalController, CausalSettings};
use costbo_core::causal::schedule::Schedule;
use costbo_core::gp::{Gp, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::optimize::QuasiNewtonConfig;
use costbo_core::real::Real;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;
use std::hint::black_box;

const N: usize = 64;

type Controller<R> = CausalController<R, 2, N, 2, Vec<R>, Xoshiro128PlusPlus>;

fn outcome(arm: usize, x: &[f64; 2]) -> f64 {
    if arm == 0 {
        (-(x[0] - x[1]).powi(2) / 0.05).exp()
    } else {
        0.7 * (-((x[0] - 0.3).powi(2) + (x[1] - 0.6).powi(2)) / 0.1).exp()
    }
}

/// Two full arms, after the two rounds of the round-robin, so the measured round is an
/// Algorithm 2 index round.
fn controller<R: Real>(ascent: QuasiNewtonConfig, model: ArmModel<R>) -> Controller<R> {
    let mut table = ArmTable::new();
    let unit = (R::ZERO, R::ONE);
    table
        .push(&[(0, unit.0, unit.1)], &[(2, unit.0, unit.1)])
        .unwrap();
    table
        .push(&[(0, unit.0, unit.1), (1, unit.0, unit.1)], &[])
        .unwrap();
    let kernel = Kernel::matern52([R::from_f64(0.2); 2], R::ONE).unwrap();
    let gps = [0usize, 1].map(|arm| {
        let mut gp = Gp::new(
            kernel,
            R::ZERO,
            R::from_f64(0.01),
            WhenFull::DropOldest,
            vec![R::ZERO; tri_len(N)],
        )
        .unwrap();
        for i in 0..N {
            let x = [(i % 8) as f64 / 8.0 + 0.0625, (i / 8) as f64 / 8.0 + 0.0625];
            gp.push(&x.map(R::from_f64), R::from_f64(outcome(arm, &x)))
                .unwrap();
        }
        gp
    });
    let settings = CausalSettings {
        ascent,
        model,
        ..CausalSettings::algorithm2(Schedule::Constant(R::TWO), Schedule::Constant(R::ONE))
    };
    let mut c =
        CausalController::new(table, gps, settings, Xoshiro128PlusPlus::seed_from_u64(4)).unwrap();
    for t in 0..2 {
        round(&mut c, t);
    }
    c
}

fn round<R: Real>(c: &mut Controller<R>, t: u32) -> usize {
    let choice = c.next_arm().unwrap();
    let context = (0.5 + f64::from(t) * 0.618_034).fract();
    let contexts = [
        R::from_f64(f64::NAN),
        R::from_f64(f64::NAN),
        R::from_f64(context),
    ];
    let ask = c.ask(&contexts).unwrap();
    let x = [ask.input[0].to_f64(), ask.input[1].to_f64()];
    c.tell(R::from_f64(outcome(choice.arm, &x))).unwrap();
    choice.arm
}

fn bench<R: Real>(c: &mut Criterion, name: &str) {
    let small = QuasiNewtonConfig {
        max_iterations: 8,
        max_evaluations: 20,
        ..QuasiNewtonConfig::default()
    };
    let mut group = c.benchmark_group(format!("causal/round-2arms-n64-{name}"));
    let fitted = ArmModel::Fitted(ArmFit {
        every: 1,
        spacing: 0,
        noise_floor: R::from_f64(1e-6),
        evaluations: 100,
    });
    for (label, ascent, model) in [
        ("firmware budget", small, ArmModel::Fixed),
        (
            "L-BFGS-B defaults",
            QuasiNewtonConfig::default(),
            ArmModel::Fixed,
        ),
        (
            "firmware budget, the arm fitted after the round",
            small,
            fitted,
        ),
    ] {
        let base = controller::<R>(ascent, model);
        group.bench_function(label, |b| {
            b.iter_batched(
                || base.clone(),
                |mut c| black_box(round(&mut c, 2)),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

fn rounds(c: &mut Criterion) {
    bench::<f64>(c, "f64");
    bench::<f32>(c, "f32");
}

criterion_group!(benches, rounds);
criterion_main!(benches);
