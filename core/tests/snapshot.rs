//! Saving and restoring a controller: the restored controller continues exactly as the
//! original would have, and damaged snapshots are rejected.
#![cfg(feature = "serde")]
#![allow(clippy::type_complexity)]

use costbo_core::dist::{Distribution, TruncatedNormal};
use costbo_core::driver::{BudgetRule, Controller, DriverError, NoCostModel, Refit, Settings};
use costbo_core::expectation::SampleBank;
use costbo_core::gp::{Gp, WhenFull};
use costbo_core::inner::InnerConfig;
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::policy::any::AnyRecord;
use costbo_core::policy::explore_then_commit::PlaysPerGroup;
use costbo_core::policy::unknown_cost::{Exploration, UnknownCostConfig};
use costbo_core::policy::{AnyPolicy, Policy, PolicySpec, Selection};
use costbo_core::problem::{ControlSet, Problem, Variable};
use costbo_core::snapshot::Snapshot;
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro128PlusPlus;

const N: usize = 32;
const D: usize = 2;
const M: usize = 3;
type Pol = AnyPolicy<f64, D, M, 32, N>;
type Ctl = Controller<f64, N, D, M, Vec<f64>, Vec<[f64; D]>, Pol>;
type Snap = Snapshot<f64, N, D, <Pol as Policy<f64, D, M>>::Record>;
const COSTS: [f64; M] = [0.1, 0.1, 1.0];
const LIGHT: InnerConfig = InnerConfig {
    pool: 8,
    starts: 1,
    evaluations_per_start: 5,
};

fn f(x: &[f64; D]) -> f64 {
    (5.0 * x[0]).sin() + (3.0 * x[1]).cos()
}

fn parts(
    rule: PolicySpec<f64>,
    known: bool,
) -> (
    Problem<f64, D, M>,
    Gp<f64, N, D, Vec<f64>>,
    SampleBank<f64, D, Vec<[f64; D]>>,
    Settings<f64>,
    Pol,
) {
    let tn = TruncatedNormal::with_truncated_variance(0.5, 0.04, 0.0, 1.0).unwrap();
    let v = Variable {
        lower: 0.0,
        upper: 1.0,
        uncontrolled: Distribution::TruncatedNormal(tn),
    };
    let sets = [
        ControlSet::of(&[0]),
        ControlSet::of(&[1]),
        ControlSet::of(&[0, 1]),
    ];
    let problem = Problem::new(&[v; D], &sets, known.then_some(&COSTS[..])).unwrap();
    let gp = Gp::new(
        Kernel::squared_exponential([0.2; D], 1.0).unwrap(),
        0.0,
        1e-4,
        WhenFull::DropOldest,
        vec![0.0; tri_len(N)],
    )
    .unwrap();
    let bank = SampleBank::quasi_random(&problem, vec![[0.0; D]; 16], 4).unwrap();
    let settings = Settings {
        beta: 2.0,
        budget: 50.0,
        inner: LIGHT,
        seed: 8,
        budget_rule: BudgetRule::Affordable,
        refit: Refit::Never,
    };
    (problem, gp, bank, settings, rule.build())
}

fn new(rule: PolicySpec<f64>, known: bool) -> Ctl {
    let (p, g, b, s, r) = parts(rule, known);
    Controller::new(p, g, b, s, r).unwrap()
}

fn step(ctl: &mut Ctl, rng: &mut Xoshiro128PlusPlus) -> (usize, [Option<f64>; D]) {
    let d = ctl.suggest().unwrap();
    let x: [f64; D] = core::array::from_fn(|l| {
        d.values[l].unwrap_or((rng.next_u32() as f64 + 0.5) / 4_294_967_296.0)
    });
    let cost = ctl
        .problem()
        .known_cost(d.set)
        .unwrap_or(0.05 + 0.1 * d.set as f64);
    ctl.observe(&x, f(&x), cost).unwrap();
    (d.set, d.values)
}

fn round_trip(rule: PolicySpec<f64>, known: bool) {
    let mut a = new(rule, known);
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(1);
    for _ in 0..3 {
        let x = [
            (rng.next_u32() as f64) / 4.3e9,
            (rng.next_u32() as f64) / 4.3e9,
        ];
        a.observe_initial(&x, f(&x)).unwrap();
    }
    for _ in 0..6 {
        step(&mut a, &mut rng);
    }
    // Save with a decision pending, through JSON.
    let pending = a.suggest().unwrap();
    let json = serde_json::to_string(&a.snapshot()).unwrap();
    let snap: Snap = serde_json::from_str(&json).unwrap();
    let (p, g, bk, s, r) = parts(rule, known);
    let mut b = Controller::restore(p, g, bk, s, r, NoCostModel, &snap).unwrap();
    assert_eq!(b.suggest().unwrap().set, pending.set);
    assert_eq!(
        (b.spent(), b.rounds(), b.gp().len()),
        (a.spent(), a.rounds(), a.gp().len())
    );
    let (mut ra, mut rb) = (rng.clone(), rng);
    for _ in 0..5 {
        let (sa, xa) = step(&mut a, &mut ra);
        let (sb, xb) = step(&mut b, &mut rb);
        assert_eq!(sa, sb, "{rule:?}");
        for l in 0..D {
            match (xa[l], xb[l]) {
                (Some(u), Some(v)) => assert!((u - v).abs() < 1e-9, "{rule:?}: {u} vs {v}"),
                (u, v) => assert_eq!(u.is_some(), v.is_some()),
            }
        }
    }
}

#[test]
fn restored_controllers_continue_like_the_original() {
    round_trip(PolicySpec::ExploreThenCommit(PlaysPerGroup::Fixed(4)), true);
    round_trip(
        PolicySpec::UnknownCost(UnknownCostConfig {
            exploration: Exploration::Rounds(1),
            alpha: 0.1,
            halve_every: Some(2),
            exploitation: costbo_core::policy::unknown_cost::Exploitation::Paper,
        }),
        false,
    );
    round_trip(PolicySpec::Thompson(Selection::Argmax), true);
    // EI's query history lives in its record.
    round_trip(PolicySpec::Ei(Selection::Argmax), true);
}

#[test]
fn damaged_snapshots_are_rejected() {
    let a = new(PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive), true);
    let good = a.snapshot();
    let restore = |s: &Snap, rule| {
        let (p, g, b, st, r) = parts(rule, true);
        Ctl::restore(p, g, b, st, r, NoCostModel, s).err()
    };
    let mut s = good.clone();
    s.outputscale = -1.0;
    assert_eq!(
        restore(&s, PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive)),
        Some(DriverError::InvalidSnapshot)
    );
    let mut s = good.clone();
    s.spent = (f64::NAN, 0.0);
    assert_eq!(
        restore(&s, PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive)),
        Some(DriverError::InvalidSnapshot)
    );
    // A snapshot of one rule cannot restore another, nor a stateless rule's a stateful one.
    assert!(matches!(good.policy, AnyRecord::ExploreThenCommit(_)));
    assert_eq!(
        restore(&good, PolicySpec::Thompson(Selection::Argmax)),
        Some(DriverError::InvalidSnapshot)
    );
    let mut s = good.clone();
    s.policy = AnyRecord::Stateless;
    assert_eq!(
        restore(&s, PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive)),
        Some(DriverError::InvalidSnapshot)
    );
    // Too many observations for the capacity fail at deserialisation.
    let json = serde_json::to_string(&good).unwrap();
    let too_many = json.replacen(
        "\"observations\":[]",
        &format!(
            "\"observations\":[{}]",
            vec!["{\"x\":[0.5,0.5],\"y\":1.0}"; N + 1].join(",")
        ),
        1,
    );
    assert!(serde_json::from_str::<Snap>(&too_many).is_err());
    let wrong_dim = json.replacen("\"lengthscales\":[0.2,0.2]", "\"lengthscales\":[0.2]", 1);
    assert!(serde_json::from_str::<Snap>(&wrong_dim).is_err());
}

#[test]
fn merged_repeats_survive_a_snapshot_and_old_records_read_as_single() {
    let rule = PolicySpec::ExploreThenCommit(PlaysPerGroup::Fixed(4));
    let mut a = new(rule, true);
    for (x, y) in [([0.25, 0.5], 1.0), ([0.75, 0.5], 0.0), ([0.25, 0.5], 3.0)] {
        a.observe_initial(&x, y).unwrap();
    }
    // The repeat merged: mean 2, count 2, squared deviations 2 (1² + 1²), newest slot.
    assert_eq!(a.gp().counts(), &[1, 2]);
    assert_eq!(a.gp().outputs(), &[0.0, 2.0]);
    assert_eq!(a.gp().spreads(), &[0.0, 2.0]);
    let json = serde_json::to_string(&a.snapshot()).unwrap();
    let snap: Snap = serde_json::from_str(&json).unwrap();
    let (p, g, bk, s, r) = parts(rule, true);
    let b = Controller::restore(p, g, bk, s, r, NoCostModel, &snap).unwrap();
    assert_eq!(b.gp().counts(), a.gp().counts());
    assert_eq!(b.gp().outputs(), a.gp().outputs());
    assert_eq!(b.gp().spreads(), a.gp().spreads());
    assert_eq!(b.gp().factor(), a.gp().factor());
    // A record saved before repeats were merged has no count or spread: one observation.
    let old = json
        .replace(",\"count\":1,\"spread\":0.0", "")
        .replace(",\"count\":2,\"spread\":2.0", "");
    assert!(!old.contains("count"), "{old}");
    let snap: Snap = serde_json::from_str(&old).unwrap();
    let (p, g, bk, s, r) = parts(rule, true);
    let c = Controller::restore(p, g, bk, s, r, NoCostModel, &snap).unwrap();
    assert_eq!(c.gp().counts(), &[1, 1]);
    assert_eq!(c.gp().outputs(), &[0.0, 2.0]);
}
