//! Paper 002's rules through the controller: PBGI-D's λ falls exactly when the Pandora
//! stopping rule fires, the cost-per-sample rule stops, PBGI-U and LogEIPC price with a learned
//! cost, replays rebuild PBGI-D's λ from memos, and bad parameters are refused.

use costbo_core::dist::{Distribution, Uniform};
use costbo_core::driver::{Controller, ControllerSpec, DriverError, Settings, Step};
use costbo_core::gp::{Gp, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::policy::log_ei::{CostUse, LogEi};
use costbo_core::policy::pbgi::Lambda;
use costbo_core::policy::{AnyPolicy, Maximiser, PolicySpec, PolicySpecError, RuleDefaults};
use costbo_core::problem::{ControlSet, CostFunction, Costs, Problem, Variable};

const N: usize = 24;
const D: usize = 2;
const M: usize = 1;
type Pol = AnyPolicy<f64, D, M, 1, 1>;
type Ctl = Controller<f64, N, D, M, Vec<f64>, Vec<[f64; D]>, Pol>;
type Learned = Controller<f64, N, D, M, Vec<f64>, Vec<[f64; D]>, Pol, Gp<f64, N, D, Vec<f64>>>;

/// Paper 002's cost-aware setting on the unit square: c(u) = 1 + 20·mean(u).
fn paper_cost(_: usize, x: &[f64; D]) -> (f64, [f64; D]) {
    (1.0 + 20.0 * (x[0] + x[1]) / 2.0, [10.0, 10.0])
}

fn objective(x: &[f64; D]) -> f64 {
    -(x[0] - 0.3).powi(2) - (x[1] - 0.7).powi(2) + 0.2 * (5.0 * x[0]).sin()
}

fn spec(costs: Option<Costs<f64, D, M>>, rule: PolicySpec<f64>) -> ControllerSpec<f64, D, M> {
    let v = Variable {
        lower: 0.0,
        upper: 1.0,
        uncontrolled: Distribution::Uniform(Uniform::new(0.0, 1.0).unwrap()),
    };
    let mut problem = Problem::new(&[v; D], &[ControlSet::full(D)], Some(&[1.0])).unwrap();
    problem = match costs {
        Some(c) => problem.with_costs(c).unwrap(),
        None => problem.with_costs(Costs::Unknown).unwrap(),
    };
    ControllerSpec {
        problem,
        kernel: Kernel::matern52([0.25; D], 0.5).unwrap(),
        mean: 0.0,
        noise: 1e-4,
        when_full: WhenFull::DropOldest,
        bank_seed: 0,
        settings: Settings::new(1e6, 3),
        policy: rule,
    }
}

fn controller(rule: &str) -> Ctl {
    let rule = PolicySpec::parse(rule, &RuleDefaults::new(0.0)).unwrap();
    let s = spec(Some(Costs::Function(CostFunction(paper_cost))), rule);
    let mut ctl: Ctl = s.build(vec![0.0; tri_len(N)], vec![[0.0; D]; 1]).unwrap();
    for x in [[0.1, 0.1], [0.9, 0.4], [0.5, 0.9], [0.2, 0.6]] {
        ctl.observe_initial(&x, objective(&x)).unwrap();
    }
    ctl
}

fn play(ctl: &mut Ctl) -> ([f64; D], f64, f64) {
    let d = ctl.suggest().unwrap();
    let x = [d.values[0].unwrap(), d.values[1].unwrap()];
    let y = objective(&x);
    ctl.observe(&x, y, paper_cost(0, &x).0).unwrap();
    (x, y, d.score)
}

fn lambda(ctl: &Ctl) -> f64 {
    match ctl.policy() {
        AnyPolicy::Pandora(p) => p.lambda(),
        _ => panic!("not a Gittins index rule"),
    }
}

#[test]
fn pbgi_d_halves_lambda_exactly_when_the_stopping_rule_fires() {
    let mut ctl = controller("pbgi-d");
    assert_eq!(lambda(&ctl), 0.1);
    let mut best = [[0.1, 0.1], [0.9, 0.4], [0.5, 0.9], [0.2, 0.6]]
        .iter()
        .map(objective)
        .fold(f64::NEG_INFINITY, f64::max);
    let (mut fired, mut held) = (0, 0);
    for _ in 0..12 {
        let before = lambda(&ctl);
        let (x, y, index) = play(&mut ctl);
        assert!(x.iter().all(|v| (0.0..=1.0).contains(v)));
        best = best.max(y);
        // The rule of the paper's code: λ ← λ/β when a_τ < f*, f* including y_τ.
        let want = if index < best { before / 2.0 } else { before };
        assert!(
            (lambda(&ctl) - want).abs() <= 1e-15 * want,
            "λ {} vs {want}",
            lambda(&ctl)
        );
        if index < best {
            fired += 1;
        } else {
            held += 1;
        }
    }
    // Both branches were exercised (with λ₀ = 0.1 the index starts above f*).
    assert!(fired > 0 && held > 0, "fired {fired}, held {held}");
}

#[test]
fn replays_rebuild_pbgi_d_lambda_and_the_next_decision() {
    let mut live = controller("pbgi-d");
    let mut log = Vec::new();
    for _ in 0..6 {
        let (x, y, _) = play(&mut live);
        log.push((x, y, live.memo()));
    }
    let mut again = controller("pbgi-d");
    for (x, y, memo) in &log {
        again.replay(0, x, *y, paper_cost(0, x).0, memo).unwrap();
    }
    assert_eq!(lambda(&again), lambda(&live));
    assert_eq!(again.suggest().unwrap(), live.suggest().unwrap());
    // A memo of another rule is refused before anything changes.
    let mut other = controller("pbgi");
    let (x, y, memo) = log[0];
    assert_eq!(
        other.replay(0, &x, y, paper_cost(0, &x).0, &memo),
        Err(DriverError::InvalidMemo)
    );
}

#[test]
fn the_cost_per_sample_rule_stops_when_the_best_value_beats_every_index() {
    // λ so large that λc ≥ 1e3: every index is μ − λc < f*, so the Pandora rule stops at once.
    let mut ctl = controller("pbgi-stop:100");
    assert_eq!(ctl.next(&[None; D], &mut []), Ok(Step::Stop));
    assert_eq!(ctl.suggest(), Err(DriverError::Stopped));
    // A small λ keeps it going.
    let mut go = controller("pbgi-stop:1e-6");
    assert!(matches!(go.next(&[None; D], &mut []), Ok(Step::Play(_))));
}

#[test]
fn learned_costs_price_pbgi_u_and_log_eipc() {
    for rule in ["pbgi", "pbgi-d", "log-eipc", "log-eicc"] {
        let spec = spec(
            None,
            PolicySpec::parse(rule, &RuleDefaults::new(0.0)).unwrap(),
        );
        let plain: Ctl = spec
            .build(vec![0.0; tri_len(N)], vec![[0.0; D]; 1])
            .unwrap();
        // Without a model of ln c these rules cannot price a point.
        let mut bare = spec
            .build::<N, 1, 1, Vec<f64>, Vec<[f64; D]>>(vec![0.0; tri_len(N)], vec![[0.0; D]; 1])
            .unwrap();
        bare.observe_initial(&[0.5, 0.5], 0.0).unwrap();
        assert_eq!(
            bare.suggest(),
            Err(DriverError::RuleNeedsKnownCosts),
            "{rule}"
        );
        let mut ctl: Learned = plain
            .with_cost_model(spec.model(vec![0.0; tri_len(N)]).unwrap())
            .unwrap();
        for x in [[0.1, 0.1], [0.9, 0.4], [0.5, 0.9]] {
            ctl.observe_initial_with_cost(&x, objective(&x), paper_cost(0, &x).0)
                .unwrap();
        }
        for _ in 0..4 {
            let d = ctl.suggest().unwrap();
            let x = [d.values[0].unwrap(), d.values[1].unwrap()];
            ctl.observe(&x, objective(&x), paper_cost(0, &x).0).unwrap();
        }
        assert_eq!(ctl.cost_model().unwrap().len(), 7, "{rule}");
    }
}

#[test]
fn log_ei_cools_its_cost_exponent_with_the_budget() {
    let r = LogEi::new(CostUse::Cooling, Maximiser::Pool);
    assert_eq!(r.exponent(0.0, 10.0), 1.0);
    assert_eq!(r.exponent(2.5, 10.0), 0.75);
    assert_eq!(r.exponent(12.0, 10.0), 0.0);
    assert_eq!(
        LogEi::new(CostUse::PerUnit, Maximiser::Pool).exponent(5.0, 10.0),
        1.0
    );
    assert_eq!(
        LogEi::new(CostUse::Ignore, Maximiser::Pool).exponent(5.0, 10.0),
        0.0
    );
}

#[test]
fn bad_lambdas_are_refused() {
    let d = RuleDefaults::<f64>::new(0.0);
    for bad in [
        "pbgi:0",
        "pbgi:-1",
        "pbgi:nan",
        "pbgi:inf",
        "pbgi-stop:x",
        "pbgi-d:0.1",
        "pbgi-d:0:2",
        "pbgi-d:0.1:1",
        "pbgi-d:0.1:0.5",
        "pbgi-d:0.1:inf",
        "pbgi-d:x:2",
        "pbgi-d:0.1:2:3",
    ] {
        assert_eq!(
            PolicySpec::parse(bad, &d),
            Err(PolicySpecError::BadLambda),
            "{bad}"
        );
    }
    // PBGI-D's schedule named in full: the paper's default is the bare name's.
    assert_eq!(
        PolicySpec::parse("pbgi-d:0.1:2", &d),
        PolicySpec::parse("pbgi-d", &d)
    );
    assert_eq!(
        PolicySpec::parse("pbgi-d:1e-4:10", &d),
        Ok(PolicySpec::Pandora(
            Lambda::Decaying {
                initial: 1e-4,
                factor: 10.0
            },
            false,
            Maximiser::Pool
        ))
    );
    let hand_made = PolicySpec::Pandora(
        Lambda::Decaying {
            initial: 0.1,
            factor: 1.0,
        },
        false,
        Maximiser::Pool,
    );
    let s = spec(Some(Costs::Function(CostFunction(paper_cost))), hand_made);
    assert_eq!(
        s.build::<N, 1, 1, Vec<f64>, Vec<[f64; D]>>(vec![0.0; tri_len(N)], vec![[0.0; D]; 1])
            .map(|_: Ctl| ()),
        Err(costbo_core::driver::BuildError::Driver(
            DriverError::InvalidParameter
        ))
    );
}

/// A cost function that prices nothing: zero cost everywhere.
fn free(_: usize, _: &[f64; D]) -> (f64, [f64; D]) {
    (0.0, [0.0; D])
}

/// A cost function that is NaN on the right half of the first variable.
fn half_broken(_: usize, x: &[f64; D]) -> (f64, [f64; D]) {
    if x[0] > 0.5 {
        (f64::NAN, [0.0; D])
    } else {
        (1.0 + x[0], [1.0, 0.0])
    }
}

#[test]
fn bad_costs_and_bad_observations_are_typed_errors_that_change_nothing() {
    for rule in ["pbgi", "pbgi-d", "log-eipc"] {
        let spec = spec(
            Some(Costs::Function(CostFunction(free))),
            PolicySpec::parse(rule, &RuleDefaults::new(0.0)).unwrap(),
        );
        let mut ctl: Ctl = spec
            .build(vec![0.0; tri_len(N)], vec![[0.0; D]; 1])
            .unwrap();
        ctl.observe_initial(&[0.2, 0.3], 0.1).unwrap();
        let before = (ctl.rounds(), ctl.spent(), ctl.gp().len(), ctl.memo());
        // No point can be priced: no score anywhere, and nothing recorded.
        assert_eq!(ctl.suggest(), Err(DriverError::NoScore), "{rule}");
        assert_eq!(
            (ctl.rounds(), ctl.spent(), ctl.gp().len(), ctl.memo()),
            before
        );
    }
    // Where the cost is NaN the acquisition is not evaluated: every decision lies where the
    // cost is valid, and is priced there.
    let spec = spec(
        Some(Costs::Function(CostFunction(half_broken))),
        PolicySpec::parse("pbgi-d", &RuleDefaults::new(0.0)).unwrap(),
    );
    let mut ctl: Ctl = spec
        .build(vec![0.0; tri_len(N)], vec![[0.0; D]; 1])
        .unwrap();
    for x in [[0.1, 0.1], [0.4, 0.9], [0.3, 0.5]] {
        ctl.observe_initial(&x, objective(&x)).unwrap();
    }
    for _ in 0..5 {
        let d = ctl.suggest().unwrap();
        let x = [d.values[0].unwrap(), d.values[1].unwrap()];
        assert!(x[0] <= 0.5, "decided at {x:?}, where the cost is NaN");
        ctl.observe(&x, objective(&x), half_broken(0, &x).0)
            .unwrap();
    }
    // A NaN outcome, or a cost that is not the one decided, is refused and changes nothing.
    let mut ctl = controller("pbgi-d");
    let d = ctl.suggest().unwrap();
    let x = [d.values[0].unwrap(), d.values[1].unwrap()];
    let before = (ctl.rounds(), ctl.spent(), ctl.gp().len(), lambda(&ctl));
    assert_eq!(
        ctl.observe(&x, f64::NAN, paper_cost(0, &x).0),
        Err(DriverError::NonFinite)
    );
    assert_eq!(ctl.observe(&x, 0.0, -1.0), Err(DriverError::InvalidCost));
    assert_eq!(
        (ctl.rounds(), ctl.spent(), ctl.gp().len(), lambda(&ctl)),
        before
    );
    // The pending decision is still there and can be observed properly.
    ctl.observe(&x, objective(&x), paper_cost(0, &x).0).unwrap();
    assert_eq!(ctl.rounds(), before.0 + 1);
}
