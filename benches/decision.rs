//! Time of one decision of ETC-Ada on a plant-like problem: d = 5, the seven plant control sets
//! with cheap costs, SE-ARD kernel (lengthscale 0.2, outputscale 1, noise 1e-4), every
//! uncontrolled variable a normal truncated to [0, 1] with truncated variance 0.04, β = 2,
//! default inner budget (64-point pool, 4 refinements of 20 evaluations, per set).
//!
//! - `decision_n100`: `Controller::suggest()` (fresh clone each iteration) with n = 100
//!   observations, for the paper's 1024-point i.i.d. bank and a 128-point scrambled-Sobol bank,
//!   f64 and f32. This is `policy::score_sets`, which needs no memory beyond its stack chunk.
//! - `scores_workspace_n100`: the same decision's scoring through
//!   `policy::score_sets_with_workspace` (precomputed random kernel factors, screening): what a
//!   decision costs when the caller lends the workspace. (Choosing among the scores is
//!   negligible next to computing them.)
//! - `scores_first_group_n100`: the same with only the three 0.01-cost sets scored
//!   (`policy::score_sets_where`): all that ETC-Ada's choice needs while it explores that group
//!   (its first 400 rounds).
//! - `decision_scaling_f64_bank128` and `scores_workspace_scaling_f64_bank128`: n = 100, 250,
//!   500, 1000 with capacity 1024.
//! - `expected_ucb_n100_f64`: one evaluation of the expected UCB of set {1,2} with its gradient:
//!   the per-point reference, the batched stack path and the factorised workspace path.
//!
//! Run: `cargo bench -p costbo-benches --bench decision -- --warm-up-time 1 --measurement-time 3`.

use costbo_benches::plant::{self, BankKind, Ctl, D, M};
use costbo_core::expectation::{
    expected_bound, expected_bound_batched, Bound, Chunk, FactorisedSe, SampleBank,
};
use costbo_core::inner::InnerConfig;
use costbo_core::policy::workspace_len;
use costbo_core::Real;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use std::hint::black_box;

/// The seed `suggest` uses in round 0 (`Settings::seed`).
const SEED: u64 = 3;

type Bank<R> = SampleBank<R, D, Vec<[R; D]>>;

/// The 1024-point bank is i.i.d. (the paper's), the 128-point one scrambled Sobol.
fn bank<R: Real>(size: usize) -> Bank<R> {
    let kind = if size == 1024 {
        BankKind::Iid(1)
    } else {
        BankKind::Sobol(1)
    };
    plant::bank(size, kind)
}

fn controller<R: Real, const N: usize>(n: usize, size: usize) -> Ctl<R, N> {
    plant::controller::<R, N>(n, bank(size), InnerConfig::default(), 7, SEED)
}

fn suggest<R: Real, const N: usize>(b: &mut criterion::Bencher<'_>, ctl: &Ctl<R, N>) {
    b.iter_batched_ref(
        || ctl.clone(),
        |c| black_box(c.suggest().unwrap()),
        BatchSize::LargeInput,
    )
}

/// The scoring of `suggest` with a workspace, for the first `sets` control sets; `bank` is the
/// controller's (rebuilt: the controller does not lend it out).
fn scores<R: Real, const N: usize>(
    b: &mut criterion::Bencher<'_>,
    ctl: &Ctl<R, N>,
    bank: &Bank<R>,
    sets: usize,
) {
    let mut ws = vec![R::ZERO; workspace_len(ctl.gp().len(), bank.len())];
    b.iter(|| black_box(plant::score_first_sets(ctl, bank, sets, SEED, &mut ws)))
}

fn first_group(c: &mut Criterion) {
    let mut g = c.benchmark_group("scores_first_group_n100");
    g.sample_size(10);
    for size in [1024, 128] {
        let ctl = controller::<f64, 128>(100, size);
        let bk = bank(size);
        g.bench_function(format!("f64_bank{size}"), |b| scores(b, &ctl, &bk, 3));
        let ctl = controller::<f32, 128>(100, size);
        let bk = bank(size);
        g.bench_function(format!("f32_bank{size}"), |b| scores(b, &ctl, &bk, 3));
    }
    g.finish();
}

fn n100(c: &mut Criterion) {
    let mut g = c.benchmark_group("decision_n100");
    g.sample_size(10);
    for size in [1024, 128] {
        let ctl = controller::<f64, 128>(100, size);
        g.bench_function(format!("f64_bank{size}"), |b| suggest(b, &ctl));
        let ctl = controller::<f32, 128>(100, size);
        g.bench_function(format!("f32_bank{size}"), |b| suggest(b, &ctl));
    }
    g.finish();
    let mut g = c.benchmark_group("scores_workspace_n100");
    g.sample_size(10);
    for size in [1024, 128] {
        let ctl = controller::<f64, 128>(100, size);
        let bk = bank(size);
        g.bench_function(format!("f64_bank{size}"), |b| scores(b, &ctl, &bk, M));
        let ctl = controller::<f32, 128>(100, size);
        let bk = bank(size);
        g.bench_function(format!("f32_bank{size}"), |b| scores(b, &ctl, &bk, M));
    }
    g.finish();
}

fn scaling(c: &mut Criterion) {
    let ns = [100usize, 250, 500, 1000];
    let mut g = c.benchmark_group("decision_scaling_f64_bank128");
    g.sample_size(10);
    for n in ns {
        let ctl = controller::<f64, 1024>(n, 128);
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| suggest(b, &ctl));
    }
    g.finish();
    let mut g = c.benchmark_group("scores_workspace_scaling_f64_bank128");
    g.sample_size(10);
    for n in ns {
        let ctl = controller::<f64, 1024>(n, 128);
        let bk = bank(128);
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            scores(b, &ctl, &bk, M)
        });
    }
    g.finish();
}

fn one_evaluation(c: &mut Criterion) {
    let mut g = c.benchmark_group("expected_ucb_n100_f64");
    let set = plant::sets()[0];
    let x = [0.3, 0.6, 0.5, 0.5, 0.5];
    let bound = Bound::Upper(2.0);
    for size in [128, 1024] {
        let ctl = controller::<f64, 128>(100, size);
        let bank = bank::<f64>(size);
        let gp = ctl.gp();
        g.bench_function(BenchmarkId::new("reference", size), |b| {
            b.iter(|| expected_bound(gp, &bank, set, black_box(&x), bound).unwrap())
        });
        let mut chunk = Chunk::<f64, 128, 16>::new();
        g.bench_function(BenchmarkId::new("batched", size), |b| {
            b.iter(|| {
                expected_bound_batched(gp, &bank, set, black_box(&x), bound, true, &mut chunk)
                    .unwrap()
            })
        });
        let mut ws = vec![0.0; FactorisedSe::<f64, 16>::workspace_len(100, size)];
        let mut fs = FactorisedSe::<f64, 16>::new(gp, &bank, set, &mut ws).unwrap();
        g.bench_function(BenchmarkId::new("factorised", size), |b| {
            b.iter(|| {
                fs.evaluate(gp, black_box(&x), bound, f64::NEG_INFINITY, &mut chunk)
                    .unwrap()
            })
        });
        g.bench_function(BenchmarkId::new("factorised_value_only", size), |b| {
            b.iter(|| {
                fs.evaluate(gp, black_box(&x), bound, f64::INFINITY, &mut chunk)
                    .unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(decision, n100, first_group, scaling, one_evaluation);
criterion_main!(decision);
