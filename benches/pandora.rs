//! Time of one iteration of paper 002's loop: the MAP refit of the model (BoTorch 0.9's priors,
//! every round) and the acquisition's maximisation (200·d raw Sobol points, 10·d Boltzmann
//! restarts, quasi-Newton ascent), for PBGI (λ = 1e-4), PBGI-D and LogEI, at d = 4, 8, 16 and
//! n = 50, 100, 200 observations of the negated Ackley function on [−1, 1]^d (paper 002's
//! scaling), uniform costs, f64.
//!
//! `benches/pandora/botorch_iteration.py` runs the same iteration with BoTorch's LogEI for the
//! side-by-side comparison in docs/performance.md.
//!
//! Run: `cargo bench -p costbo-benches --bench pandora -- --warm-up-time 1 --measurement-time 5`.

use costbo_core::dist::{Distribution, Uniform};
use costbo_core::driver::{BudgetRule, Controller, ControllerSpec, Refit, Settings};
use costbo_core::gp::WhenFull;
use costbo_core::inner::RestartConfig;
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::policy::{AnyPolicy, Maximiser, PolicySpec, RuleDefaults};
use costbo_core::problem::{ControlSet, Problem, Variable};
use costbo_core::qmc::Sobol;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use std::hint::black_box;

const CAPACITY: usize = 256;
type Ctl<const D: usize> =
    Controller<f64, CAPACITY, D, 1, Vec<f64>, Vec<[f64; D]>, AnyPolicy<f64, D, 1, 1, 1>>;

fn controller<const D: usize>(rule: &str, n: usize) -> Ctl<D> {
    let v = Variable {
        lower: 0.0,
        upper: 1.0,
        uncontrolled: Distribution::Uniform(Uniform::new(0.0, 1.0).unwrap()),
    };
    let problem = Problem::new(&[v; D], &[ControlSet::full(D)], Some(&[1.0])).unwrap();
    let maximiser = Maximiser::Restarts(RestartConfig::paper_002(D));
    let policy =
        PolicySpec::parse(rule, &RuleDefaults::new(0.0).with_maximiser(maximiser)).unwrap();
    let mut settings = Settings::new(1e9, 1);
    settings.budget_rule = BudgetRule::WhileBelow;
    settings.refit = Refit::BotorchMap {
        every: 1,
        noise: 1e-4,
    };
    let spec = ControllerSpec {
        problem,
        kernel: Kernel::matern52([2.0; D], 1.0).unwrap(),
        mean: 0.0,
        noise: 1e-4,
        when_full: WhenFull::Reject,
        bank_seed: 1,
        settings,
        policy,
    };
    let mut ctl: Ctl<D> = spec
        .build(vec![0.0; tri_len(CAPACITY)], vec![[0.0; D]; 1])
        .unwrap();
    let mut sobol = Sobol::<D>::new(9).unwrap();
    for _ in 0..n {
        let u: [f64; D] = sobol.next_point();
        ctl.observe_initial(&u, costbo_benches::negated_ackley(&u))
            .unwrap();
    }
    ctl
}

fn iteration<const D: usize>(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("pandora_iteration_d{D}"));
    group.sample_size(10);
    for n in [50, 100, 200] {
        for rule in ["pbgi", "pbgi-d", "log-ei"] {
            let ctl = controller::<D>(rule, n);
            let mut workspace = vec![0.0; ctl.fast_workspace_len()];
            group.bench_with_input(BenchmarkId::new(rule, n), &n, |b, _| {
                b.iter_batched_ref(
                    || ctl.clone(),
                    |c| black_box(c.next(&[None; D], &mut workspace).unwrap()),
                    BatchSize::LargeInput,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, iteration::<4>, iteration::<8>, iteration::<16>);
criterion_main!(benches);
