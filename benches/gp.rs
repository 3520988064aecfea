//! GP benchmarks: append (O(n²)), predict (O(n²)), predict with gradient, refactor (O(n³))
//! and hyperparameter fitting, for d = 5 in f32 and f64.
//!
//! Run: `cargo bench -p costbo-benches --bench gp`.

use costbo_benches::{objective, points};
use costbo_core::gp::{FitConfig, Gp, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::Real;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;

const D: usize = 5;
const N: usize = 257;
type Model<R> = Gp<R, N, D, Vec<R>>;

fn model<R: Real>(n: usize) -> Model<R> {
    let k = Kernel::matern52([R::from_f64(0.4); D], R::ONE).unwrap();
    let mut gp = Gp::new(
        k,
        R::ZERO,
        R::from_f64(1e-3),
        WhenFull::Reject,
        vec![R::ZERO; tri_len(N)],
    )
    .unwrap();
    for x in points::<D>(n, 1) {
        gp.push(&x.map(R::from_f64), R::from_f64(objective(&x)))
            .unwrap();
    }
    gp
}

fn bench_precision<R: Real>(c: &mut Criterion, name: &str) {
    let sizes = [16usize, 32, 64, 128, 256];
    let probe = points::<D>(1, 99)[0].map(R::from_f64);
    let mut g = c.benchmark_group(format!("gp_append_{name}"));
    for &n in &sizes {
        let base = model::<R>(n - 1);
        let x = points::<D>(1, 7)[0];
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_batched_ref(
                || base.clone(),
                |gp| gp.push(black_box(&x.map(R::from_f64)), R::ONE).unwrap(),
                criterion::BatchSize::LargeInput,
            )
        });
    }
    g.finish();
    let mut g = c.benchmark_group(format!("gp_predict_{name}"));
    for &n in &sizes {
        let gp = model::<R>(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| gp.predict(black_box(&probe)).unwrap())
        });
    }
    g.finish();
    let mut g = c.benchmark_group(format!("gp_predict_gradient_{name}"));
    for &n in &sizes {
        let gp = model::<R>(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| gp.predict_with_gradient(black_box(&probe)).unwrap())
        });
    }
    g.finish();
    let mut g = c.benchmark_group(format!("gp_fit_{name}"));
    g.sample_size(10);
    for &n in &[16usize, 64] {
        let gp = model::<R>(n);
        let mut cfg = FitConfig::<R, D>::unit_cube(R::from_f64(-2.0), R::from_f64(2.0));
        cfg.starts = 2;
        cfg.evaluations_per_start = 30;
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_batched_ref(
                || gp.clone(),
                |gp| gp.fit(&cfg).unwrap(),
                criterion::BatchSize::LargeInput,
            )
        });
    }
    g.finish();
}

fn benches(c: &mut Criterion) {
    bench_precision::<f64>(c, "f64");
    bench_precision::<f32>(c, "f32");
}

criterion_group!(gp, benches);
criterion_main!(gp);
