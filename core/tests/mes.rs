//! Paper 002's entropy rules through the controller: MES and MFMES decide only with the
//! workspace their candidate set needs (and the same with more), find the optimum of a smooth
//! function, MFMES buys cheaper points than MES under a steep price, and a learned cost needs
//! its model.

use super::unit_square::{controller as observing, paper_cost, run, Ctl, D, N};
use costbo_core::driver::DriverError;
use costbo_core::policy::mes::workspace_len;
use costbo_core::policy::{PolicySpec, RuleDefaults, RULES};
use costbo_core::problem::{CostFunction, Costs};
use costbo_core::real::Real;

/// The controller of `rule` after four initial points on the peak.
fn controller<R: Real>(rule: &str, costs: Costs<R, D, 1>) -> Ctl<R> {
    observing(rule, costs, 1e6, super::unit_square::objective)
}

/// Observations all 0.
fn flat<R: Real>(_: &[R; D]) -> R {
    R::ZERO
}

fn priced<R: Real>() -> Costs<R, D, 1> {
    Costs::Function(CostFunction(paper_cost::<R>))
}

#[test]
fn mes_and_mfmes_are_registered() {
    for rule in ["mes", "mfmes"] {
        assert!(RULES.iter().any(|r| r.name == rule), "{rule}");
        assert!(PolicySpec::<f64>::parse(rule, &RuleDefaults::new(0.0)).is_ok());
    }
}

/// Without room for its candidates the rule refuses, and the refusal changes nothing: the
/// next decision with room is a fresh controller's. More room than needed decides the same.
#[test]
fn decisions_need_the_candidates_workspace_and_do_not_depend_on_more() {
    let mut short = controller::<f64>("mes", Costs::Known([1.0]));
    assert_eq!(short.workspace_len(), workspace_len(D, N));
    assert_eq!(short.suggest(), Err(DriverError::WorkspaceTooSmall));
    let mut small = vec![0.0; workspace_len(D, N) - 1];
    assert_eq!(
        short.suggest_with_workspace(&mut small),
        Err(DriverError::WorkspaceTooSmall)
    );
    let mut exact = vec![0.0; workspace_len(D, N)];
    let mut more = vec![0.0; 3 * workspace_len(D, N)];
    let mut fresh = controller::<f64>("mes", Costs::Known([1.0]));
    let a = short.suggest_with_workspace(&mut exact).unwrap();
    let b = fresh.suggest_with_workspace(&mut more).unwrap();
    assert_eq!(a, b);
}

/// A BO rule on a smooth peak: within 12 decisions MES observes a value within 0.03 of the
/// maximum 1 (the four initial points' best is 0.48). Uniform random points would reach it
/// with probability about 1 − (1 − 0.0236)¹² ≈ 0.25.
#[test]
fn mes_finds_the_peak() {
    let mut ctl = controller::<f64>("mes", Costs::Known([1.0]));
    let played = run(&mut ctl, 12, paper_cost);
    let best = played
        .iter()
        .map(super::unit_square::objective)
        .fold(f64::MIN, f64::max);
    assert!(best > 0.97, "best {best} after {played:?}");
}

/// A steep price on the first coordinate, 1 + 200·x₀: per unit cost the gain is worth most
/// near x₀ = 0.
fn steep_cost<R: Real>(_: usize, x: &[R; D]) -> (R, [R; D]) {
    let rate = R::from_f64(200.0);
    (R::ONE + rate * x[0], [rate, R::ZERO])
}

/// MFMES weighs the gain by the price and so buys cheaper points than MES, which ignores it,
/// on the same problem and seed. The observations are flat (all 0, so no region holds the
/// maximum more than another and the gain differs only by the posterior's spread); on a
/// peaked function the gain far from the peak is exponentially small and both rules buy
/// near it whatever the price.
#[test]
fn mfmes_buys_cheaper_points_than_mes() {
    let mean_cost = |rule: &str| {
        let mut ctl = observing(rule, Costs::Function(CostFunction(steep_cost)), 1e6, flat);
        let mut workspace = vec![0.0; ctl.workspace_len()];
        let costs: Vec<f64> = (0..10)
            .map(|_| {
                let d = ctl.suggest_with_workspace(&mut workspace).unwrap();
                let x = [d.values[0].unwrap(), d.values[1].unwrap()];
                let c = steep_cost(0, &x).0;
                ctl.observe(&x, 0.0, c).unwrap();
                c
            })
            .collect();
        costs.iter().sum::<f64>() / costs.len() as f64
    };
    let (mes, mfmes) = (mean_cost("mes"), mean_cost("mfmes"));
    // Measured: 50.4 against 100.7 (MFMES plays x₀ = 0 in 5 of 10 rounds, MES in 2).
    assert!(mfmes < 0.6 * mes, "MFMES {mfmes} against MES {mes}");
}

#[test]
fn mfmes_with_learned_costs_needs_a_cost_model() {
    let mut ctl = controller::<f64>("mfmes", Costs::Unknown);
    let mut workspace = vec![0.0; ctl.workspace_len()];
    assert_eq!(
        ctl.suggest_with_workspace(&mut workspace),
        Err(DriverError::RuleNeedsKnownCosts)
    );
}

/// In f32 the rule decides too, and the same decisions on the same seed.
#[test]
fn mes_decides_in_f32_reproducibly() {
    let first = run(&mut controller::<f32>("mfmes", priced()), 5, paper_cost);
    let again = run(&mut controller::<f32>("mfmes", priced()), 5, paper_cost);
    assert_eq!(first, again);
}
