//! What the tests of paper 002's rules over a box share: the unit square with one smooth peak,
//! paper 002's price, and a controller of a named rule after four initial points.

use costbo_core::dist::{Distribution, Uniform};
use costbo_core::driver::{BudgetRule, Controller, ControllerSpec, Settings};
use costbo_core::gp::WhenFull;
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::policy::{AnyPolicy, PolicySpec, RuleDefaults};
use costbo_core::problem::{ControlSet, Costs, Problem, Variable};
use costbo_core::real::Real;

/// Capacity of the model.
pub const N: usize = 32;
/// Dimensions.
pub const D: usize = 2;
/// Control sets (one: every variable).
pub const M: usize = 1;
/// The controllers' seed.
pub const SEED: u64 = 7;

/// A controller of any rule on the unit square.
pub type Ctl<R> = Controller<R, N, D, M, Vec<R>, Vec<[R; D]>, AnyPolicy<R, D, M, 1, 1>>;

/// Paper 002's cost-aware setting on the unit square: c(u) = 1 + 20·mean(u).
pub fn paper_cost<R: Real>(_: usize, x: &[R; D]) -> (R, [R; D]) {
    let ten = R::from_f64(10.0);
    (R::ONE + ten * (x[0] + x[1]), [ten, ten])
}

/// Every point costs 1.
pub fn unit_cost<R: Real>(_: usize, _: &[R; D]) -> (R, [R; D]) {
    (R::ONE, [R::ZERO; D])
}

/// One smooth peak of height 1 at (0.3, 0.7).
pub fn objective<R: Real>(x: &[R; D]) -> R {
    let (a, b) = (x[0] - R::from_f64(0.3), x[1] - R::from_f64(0.7));
    R::ONE - R::from_f64(4.0) * (a * a + b * b)
}

/// The unit square with `costs`.
pub fn problem<R: Real>(costs: Costs<R, D, M>) -> Problem<R, D, M> {
    let v = Variable {
        lower: R::ZERO,
        upper: R::ONE,
        uncontrolled: Distribution::Uniform(Uniform::new(R::ZERO, R::ONE).unwrap()),
    };
    Problem::new(&[v; D], &[ControlSet::full(D)], Some(&[R::ONE]))
        .unwrap()
        .with_costs(costs)
        .unwrap()
}

/// The controller of `rule` on `problem` with `budget`, deciding while the spent budget is
/// below it (paper 002's loop), before any observation. Matérn-5/2, lengthscale 0.3, noise
/// 1e-4.
pub fn spec<R: Real>(
    rule: &str,
    problem: Problem<R, D, M>,
    budget: f64,
) -> ControllerSpec<R, D, M> {
    ControllerSpec {
        problem,
        kernel: Kernel::matern52([R::from_f64(0.3); D], R::ONE).unwrap(),
        mean: R::ZERO,
        noise: R::from_f64(1e-4),
        when_full: WhenFull::DropOldest,
        bank_seed: 0,
        settings: Settings {
            budget_rule: BudgetRule::WhileBelow,
            ..Settings::new(R::from_f64(budget), SEED)
        },
        policy: PolicySpec::parse(rule, &RuleDefaults::new(R::ZERO)).unwrap(),
    }
}

/// The controller of `rule` with `costs` and `budget` after four initial points valued by `f`.
pub fn controller<R: Real>(
    rule: &str,
    costs: Costs<R, D, M>,
    budget: f64,
    f: fn(&[R; D]) -> R,
) -> Ctl<R> {
    let mut ctl: Ctl<R> = spec(rule, problem(costs), budget)
        .build(vec![R::ZERO; tri_len(N)], vec![[R::ZERO; D]; 1])
        .unwrap();
    for x in [[0.1, 0.1], [0.9, 0.4], [0.6, 0.9], [0.85, 0.85]] {
        let x = x.map(R::from_f64);
        ctl.observe_initial(&x, f(&x)).unwrap();
    }
    ctl
}

/// Plays `rounds` decisions on the peak with a workspace of `ctl.workspace_len()`, paying
/// `cost`; the points played.
pub fn run<R: Real>(
    ctl: &mut Ctl<R>,
    rounds: usize,
    cost: fn(usize, &[R; D]) -> (R, [R; D]),
) -> Vec<[R; D]> {
    let mut workspace = vec![R::ZERO; ctl.workspace_len()];
    (0..rounds)
        .map(|_| {
            let d = ctl.suggest_with_workspace(&mut workspace).unwrap();
            let x = [d.values[0].unwrap(), d.values[1].unwrap()];
            assert!(x.iter().all(|v| (R::ZERO..=R::ONE).contains(v)), "{x:?}");
            ctl.observe(&x, objective(&x), cost(0, &x).0).unwrap();
            x
        })
        .collect()
}

/// Without room for its raw values `ctl`'s rule refuses, and the refusal changes nothing: the
/// next decision with room is `fresh`'s (an untouched twin). More room decides the same. Paper
/// 002's optimiser at d = 2 has 400 raw samples.
pub fn check_raw_samples_workspace(mut ctl: Ctl<f64>, fresh: Ctl<f64>) {
    use costbo_core::driver::DriverError;
    let len = ctl.workspace_len();
    assert_eq!(len, 400);
    assert_eq!(ctl.suggest(), Err(DriverError::WorkspaceTooSmall));
    let mut small = vec![0.0; len - 1];
    assert_eq!(
        ctl.suggest_with_workspace(&mut small),
        Err(DriverError::WorkspaceTooSmall)
    );
    let a = ctl.suggest_with_workspace(&mut vec![0.0; len]).unwrap();
    let mut fresh = fresh;
    let b = fresh
        .suggest_with_workspace(&mut vec![0.0; 3 * len])
        .unwrap();
    assert_eq!(a, b);
}
