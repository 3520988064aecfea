//! The desktop adapter's overhead: `Optimizer::ask` beside the core's `Controller` deciding the
//! same round, both from one experiment file with n = 100 observations, side by side in one
//! run.
//!
//! The experiment is the firmware's (`firmware/experiment.toml`: the plant's five nutrients,
//! seven control sets, ETC-Ada, a 64-point bank) with the capacity set to `N`. The anchor is the
//! core's controller built by the firmware's own path (`Spec::controller`, the file's exact
//! sizes), deciding with the workspace that selects the fast paths
//! (`suggest_with_workspace`, what the optimizer lends too) and without it (`suggest`). Both
//! hold the same 100 observations (the plant-like `bumps5` at deterministic points) and decide
//! from a fresh copy each iteration. With capacity 256 the optimizer's model has the anchor's
//! const capacity; with 128 it is rounded up to 256 (told the capacity 128), which costs the
//! larger stack temporaries of a 256-slot model.
//!
//! The optimizer decides as the anchor with the workspace does, bit for bit (checked before
//! timing); without the workspace the core's stack path differs in the last bits.
//!
//! Run: `cargo bench -p costbo-benches --bench optimizer -- --warm-up-time 1 --measurement-time 5`.

use costbo_core::driver::Controller;
use costbo_core::linalg::tri_len;
use costbo_core::policy::AnyPolicy;
use costbo_std::Optimizer;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::hint::black_box;

const D: usize = 5;
const M: usize = 7;

type Core<const N: usize> =
    Controller<f64, N, D, M, Vec<f64>, Vec<[f64; D]>, AnyPolicy<f64, D, M, 1, 1>>;

fn experiment(capacity: usize) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../firmware/experiment.toml");
    std::fs::read_to_string(path)
        .expect("firmware/experiment.toml")
        .replace("capacity = 64", &format!("capacity = {capacity}"))
        .replace("budget = 3.0", "budget = 1000.0")
}

/// The 100 observations, in physical units.
fn data(opt: &Optimizer) -> Vec<(Vec<f64>, f64)> {
    costbo_benches::points::<D>(100, 7)
        .into_iter()
        .map(|u| {
            let x = u
                .iter()
                .zip(opt.variables())
                .map(|(u, v)| v.lower + u * (v.upper - v.lower))
                .collect();
            (x, costbo_benches::bumps5(&u))
        })
        .collect()
}

fn pair<const N: usize>(c: &mut Criterion, capacity: usize) {
    let text = experiment(capacity);
    let mut opt = Optimizer::from_toml_str(&text).unwrap();
    let data = data(&opt);
    for (x, y) in &data {
        opt.tell_prior(x, *y).unwrap();
    }
    let saved = opt.to_json();
    let spec = costbo_experiment::toml::parse(&text).unwrap();
    let mut core: Core<N> = spec
        .controller::<f64, N, D, M, _, _>(vec![0.0; tri_len(N)], vec![[0.0; D]; spec.bank])
        .unwrap();
    for (x, y) in &data {
        core.observe_initial(&core::array::from_fn(|l| x[l]), *y)
            .unwrap();
    }
    // The same decision on both sides (checked once, outside the timing).
    let ask = Optimizer::from_json(&saved)
        .unwrap()
        .ask()
        .unwrap()
        .unwrap();
    let mut workspace = vec![0.0; core.fast_workspace_len()];
    let d = core.clone().suggest_with_workspace(&mut workspace).unwrap();
    assert_eq!(ask.set, d.set);
    assert_eq!(ask.values, d.values.to_vec());

    let mut g = c.benchmark_group(format!("ask_n100_capacity{capacity}"));
    g.sample_size(20);
    g.bench_function("core_suggest_with_workspace", |b| {
        b.iter_batched_ref(
            || core.clone(),
            |c| black_box(c.suggest_with_workspace(&mut workspace).unwrap()),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("optimizer_ask", |b| {
        b.iter_batched_ref(
            || Optimizer::from_json(&saved).unwrap(),
            |o| black_box(o.ask().unwrap()),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("core_suggest", |b| {
        b.iter_batched_ref(
            || core.clone(),
            |c| black_box(c.suggest().unwrap()),
            BatchSize::LargeInput,
        )
    });
    g.finish();
}

fn ask(c: &mut Criterion) {
    pair::<256>(c, 256);
    pair::<128>(c, 128);
}

criterion_group!(benches, ask);
criterion_main!(benches);
