//! A controller that learns costs as a function of the values (paper 002's unknown costs): its
//! model of ln(cost) receives every cost paid, initial ones included, survives replays and
//! snapshots, and is refused where costs are known.

use costbo_core::dist::{Distribution, Uniform};
use costbo_core::driver::{Controller, ControllerSpec, DriverError, NoCostModel, Settings};
use costbo_core::gp::{Gp, GpError, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::policy::{AnyPolicy, PolicySpec};
use costbo_core::problem::{ControlSet, Problem, Variable};

const N: usize = 12;
const D: usize = 2;
const M: usize = 1;
type Pol = AnyPolicy<f64, D, M, 1, 1>;
type Plain = Controller<f64, N, D, M, Vec<f64>, Vec<[f64; D]>, Pol>;
type Ctl = Controller<f64, N, D, M, Vec<f64>, Vec<[f64; D]>, Pol, Gp<f64, N, D, Vec<f64>>>;

fn spec(known: bool, when_full: WhenFull) -> ControllerSpec<f64, D, M> {
    let v = Variable {
        lower: 0.0,
        upper: 2.0,
        uncontrolled: Distribution::Uniform(Uniform::new(0.0, 2.0).unwrap()),
    };
    let problem =
        Problem::new(&[v; D], &[ControlSet::full(D)], known.then_some(&[1.0][..])).unwrap();
    ControllerSpec {
        problem,
        kernel: Kernel::matern52([0.3; D], 1.0).unwrap(),
        mean: 0.0,
        noise: 1e-4,
        when_full,
        bank_seed: 0,
        settings: Settings::new(1e3, 4),
        policy: PolicySpec::RandomSearch,
    }
}

fn controller(when_full: WhenFull) -> Ctl {
    let s = spec(false, when_full);
    let ctl: Plain = s.build(vec![0.0; tri_len(N)], vec![[0.0; D]; 1]).unwrap();
    ctl.with_cost_model(s.model(vec![0.0; tri_len(N)]).unwrap())
        .unwrap()
}

/// The true cost: 1 + x₀ + x₁² (physical units).
fn cost(x: &[f64; D]) -> f64 {
    1.0 + x[0] + x[1] * x[1]
}

fn play(ctl: &mut Ctl) -> ([f64; D], f64) {
    let d = ctl.suggest().unwrap();
    let x = [d.values[0].unwrap(), d.values[1].unwrap()];
    ctl.observe(&x, x[0] - x[1], cost(&x)).unwrap();
    (x, cost(&x))
}

#[test]
fn the_cost_model_learns_ln_cost_from_every_observation() {
    let mut ctl = controller(WhenFull::DropOldest);
    // Initial observations need their cost.
    assert_eq!(
        ctl.observe_initial(&[0.5, 0.5], 0.0),
        Err(DriverError::InvalidCost)
    );
    for bad in [0.0, -1.0, f64::NAN] {
        assert_eq!(
            ctl.observe_initial_with_cost(&[0.5, 0.5], 0.0, bad),
            Err(DriverError::InvalidCost)
        );
    }
    ctl.observe_initial_with_cost(&[0.5, 1.5], 1.0, cost(&[0.5, 1.5]))
        .unwrap();
    for _ in 0..6 {
        play(&mut ctl);
    }
    let model = ctl.cost_model().unwrap();
    assert_eq!(model.len(), 7);
    assert_eq!(model.inputs(), ctl.gp().inputs());
    for (u, lc) in model.inputs().iter().zip(model.outputs()) {
        let x = ctl.problem().to_physical(u);
        assert!(
            (lc - cost(&x).ln()).abs() < 1e-12,
            "{lc} vs ln {}",
            cost(&x)
        );
    }
    // Its posterior mean reproduces ln(cost) where it has seen it (noise 1e-4).
    let u = model.inputs()[3];
    let p = model.predict(&u).unwrap();
    assert!((p.mean - model.outputs()[3]).abs() < 1e-2);
}

#[test]
fn a_cost_model_is_refused_where_costs_are_known_or_data_exist() {
    let s = spec(true, WhenFull::DropOldest);
    let ctl: Plain = s.build(vec![0.0; tri_len(N)], vec![[0.0; D]; 1]).unwrap();
    let r = ctl.with_cost_model(s.model(vec![0.0; tri_len(N)]).unwrap());
    assert_eq!(r.err(), Some(DriverError::InvalidCostModel));
    let s = spec(false, WhenFull::DropOldest);
    let mut ctl: Plain = s.build(vec![0.0; tri_len(N)], vec![[0.0; D]; 1]).unwrap();
    ctl.observe_initial(&[1.0, 1.0], 0.0).unwrap();
    let err = ctl
        .with_cost_model(s.model(vec![0.0; tri_len(N)]).unwrap())
        .err();
    assert_eq!(
        err,
        Some(DriverError::InvalidCostModel),
        "the two models must see the same data"
    );
    let mut used: Gp<f64, N, D, Vec<f64>> = s.model(vec![0.0; tri_len(N)]).unwrap();
    used.push(&[0.5, 0.5], 0.0).unwrap();
    let fresh: Plain = s.build(vec![0.0; tri_len(N)], vec![[0.0; D]; 1]).unwrap();
    assert_eq!(
        fresh.with_cost_model(used).err(),
        Some(DriverError::InvalidCostModel)
    );
}

#[test]
fn a_full_model_refuses_the_round_and_nothing_changes() {
    let mut ctl = controller(WhenFull::Reject);
    for i in 0..N {
        let x = [i as f64 / N as f64, 1.0];
        ctl.observe_initial_with_cost(&x, 0.0, cost(&x)).unwrap();
    }
    let d = ctl.suggest().unwrap();
    let x = [d.values[0].unwrap(), d.values[1].unwrap()];
    assert_eq!(
        ctl.observe(&x, 0.0, cost(&x)),
        Err(DriverError::Gp(GpError::Full))
    );
    assert_eq!((ctl.rounds(), ctl.spent()), (0, 0.0));
    assert_eq!(ctl.cost_model().unwrap().len(), N);
}

#[test]
fn replays_feed_the_cost_model_like_the_live_run() {
    let mut live = controller(WhenFull::DropOldest);
    live.observe_initial_with_cost(&[0.2, 0.2], 0.0, cost(&[0.2, 0.2]))
        .unwrap();
    let log: Vec<_> = (0..5).map(|_| play(&mut live)).collect();
    let mut ctl = controller(WhenFull::DropOldest);
    ctl.observe_initial_with_cost(&[0.2, 0.2], 0.0, cost(&[0.2, 0.2]))
        .unwrap();
    for (x, c) in &log {
        ctl.replay(0, x, x[0] - x[1], *c, &ctl.memo()).unwrap();
    }
    assert_eq!(
        ctl.cost_model().unwrap().outputs(),
        live.cost_model().unwrap().outputs()
    );
    assert_eq!(ctl.suggest().unwrap(), live.suggest().unwrap());
}

#[cfg(feature = "serde")]
#[test]
fn snapshots_carry_the_cost_model() {
    let mut a = controller(WhenFull::DropOldest);
    a.observe_initial_with_cost(&[0.2, 0.7], 0.0, cost(&[0.2, 0.7]))
        .unwrap();
    for _ in 0..4 {
        play(&mut a);
    }
    let snap = a.snapshot();
    let json = serde_json::to_string(&snap).unwrap();
    let snap: costbo_core::snapshot::Snapshot<f64, N, D, _> = serde_json::from_str(&json).unwrap();
    let s = spec(false, WhenFull::DropOldest);
    let parts = || {
        (
            s.model::<N, _>(vec![0.0; tri_len(N)]).unwrap(),
            s.bank(vec![[0.0; D]; 1]).unwrap(),
        )
    };
    let (gp, bank) = parts();
    let cost_model = s.model(vec![0.0; tri_len(N)]).unwrap();
    let b: Ctl = Controller::restore(
        s.problem.clone(),
        gp,
        bank,
        s.settings,
        s.policy.build(),
        cost_model,
        &snap,
    )
    .unwrap();
    assert_eq!(
        b.cost_model().unwrap().outputs(),
        a.cost_model().unwrap().outputs()
    );
    // Without storage for it, or with one the snapshot does not have, restoring is refused.
    let (gp, bank) = parts();
    let r: Result<Plain, _> = Controller::restore(
        s.problem.clone(),
        gp,
        bank,
        s.settings,
        s.policy.build(),
        NoCostModel,
        &snap,
    );
    assert_eq!(r.err(), Some(DriverError::InvalidSnapshot));
    let mut plain: Plain = s.build(vec![0.0; tri_len(N)], vec![[0.0; D]; 1]).unwrap();
    plain.observe_initial(&[0.5, 0.5], 1.0).unwrap();
    let (gp, bank) = parts();
    let r: Result<Ctl, _> = Controller::restore(
        s.problem.clone(),
        gp,
        bank,
        s.settings,
        s.policy.build(),
        s.model(vec![0.0; tri_len(N)]).unwrap(),
        &plain.snapshot(),
    );
    assert_eq!(r.err(), Some(DriverError::InvalidSnapshot));
}

#[test]
fn a_cost_model_behind_a_pointer_is_the_cost_model_and_none_is_none() {
    // The model in caller storage (`&mut`, as a device's static would be): the controller
    // learns into it exactly as into a model it owns.
    let s = spec(false, WhenFull::DropOldest);
    let mut owned = controller(WhenFull::DropOldest);
    let mut storage: Gp<f64, N, D, Vec<f64>> = s.model(vec![0.0; tri_len(N)]).unwrap();
    let plain: Plain = s.build(vec![0.0; tri_len(N)], vec![[0.0; D]; 1]).unwrap();
    let mut borrowed = plain.with_cost_model(Some(&mut storage)).unwrap();
    for _ in 0..5 {
        let (a, b) = (owned.suggest().unwrap(), borrowed.suggest().unwrap());
        assert_eq!(a, b);
        let x = [a.values[0].unwrap(), a.values[1].unwrap()];
        owned.observe(&x, x[0] - x[1], cost(&x)).unwrap();
        borrowed.observe(&x, x[0] - x[1], cost(&x)).unwrap();
    }
    let outputs: Vec<u64> = owned
        .cost_model()
        .unwrap()
        .outputs()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    drop(borrowed);
    assert_eq!(
        storage
            .outputs()
            .iter()
            .map(|v| v.to_bits())
            .collect::<Vec<_>>(),
        outputs
    );
    assert_eq!(storage.len(), 5);
    // `None` is no model: allowed where costs are known, and the controller has none.
    let known = spec(true, WhenFull::DropOldest);
    let plain: Plain = known
        .build(vec![0.0; tri_len(N)], vec![[0.0; D]; 1])
        .unwrap();
    let none = plain
        .with_cost_model(None::<&mut Gp<f64, N, D, Vec<f64>>>)
        .unwrap();
    assert!(none.cost_model().is_none());
    // A model behind a pointer is refused where costs are known, as an owned one is.
    let mut storage: Gp<f64, N, D, Vec<f64>> = known.model(vec![0.0; tri_len(N)]).unwrap();
    let plain: Plain = known
        .build(vec![0.0; tri_len(N)], vec![[0.0; D]; 1])
        .unwrap();
    assert_eq!(
        plain.with_cost_model(Some(&mut storage)).err(),
        Some(DriverError::InvalidCostModel)
    );
}
