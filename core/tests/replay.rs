//! `Controller::replay`: a fresh controller fed the rounds of a live run (set, measured point,
//! outcome, cost, memo) decides the next round bit for bit as the live one did, in f32 and
//! f64, for ETC-Ada, the unknown-cost rule, UCB-CVS and TS-PSQ; refused replays change nothing.

use costbo_core::dist::{Distribution, TruncatedNormal};
use costbo_core::driver::{BudgetRule, Controller, Decision, DriverError, Memo, Refit, Settings};
use costbo_core::expectation::SampleBank;
use costbo_core::gp::{Gp, GpError, WhenFull};
use costbo_core::inner::InnerConfig;
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::policy::explore_then_commit::PlaysPerGroup;
use costbo_core::policy::memo::tags;
use costbo_core::policy::ucb_cvs::EpsilonSchedule;
use costbo_core::policy::unknown_cost::{Exploration, UnknownCostConfig};
use costbo_core::policy::{AnyPolicy, PolicySpec, Selection};
use costbo_core::problem::{Problem, Variable};
use costbo_core::Real;
use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro128PlusPlus;

use crate::common;
use common::{hartmann3, CHEAP};

const N: usize = 48;
const D: usize = 3;
const M: usize = 7;
const LIGHT: InnerConfig = InnerConfig {
    pool: 16,
    starts: 2,
    evaluations_per_start: 8,
};

type Ctl<R> = Controller<R, N, D, M, Vec<R>, Vec<[R; D]>, AnyPolicy<R, D, M, 64, N>>;

fn controller<R: Real>(rule: PolicySpec<R>, known: bool, when_full: WhenFull) -> Ctl<R> {
    controller_refitting(rule, known, when_full, Refit::Never)
}

fn controller_refitting<R: Real>(
    rule: PolicySpec<R>,
    known: bool,
    when_full: WhenFull,
    refit: Refit<R>,
) -> Ctl<R> {
    let tn = TruncatedNormal::with_truncated_variance(R::HALF, R::from_f64(0.04), R::ZERO, R::ONE)
        .unwrap();
    let v = Variable {
        lower: R::ZERO,
        upper: R::ONE,
        uncontrolled: Distribution::TruncatedNormal(tn),
    };
    let sets = common::sets();
    let costs: [R; M] = CHEAP.map(R::from_f64);
    let problem = Problem::new(&[v; D], &sets, known.then_some(&costs[..])).unwrap();
    let kernel = Kernel::squared_exponential([R::from_f64(0.15); D], R::ONE).unwrap();
    let gp = Gp::new(
        kernel,
        R::ZERO,
        R::from_f64(1e-4),
        when_full,
        vec![R::ZERO; tri_len(N)],
    )
    .unwrap();
    let bank = SampleBank::quasi_random(&problem, vec![[R::ZERO; D]; 32], 5).unwrap();
    let settings = Settings {
        beta: R::TWO,
        budget: R::from_f64(1e3),
        inner: LIGHT,
        seed: 9,
        budget_rule: BudgetRule::Affordable,
        refit,
    };
    Controller::new(problem, gp, bank, settings, rule.build()).unwrap()
}

/// One observed round as a device journals it.
#[derive(Clone, Copy, Debug)]
struct Logged<R> {
    set: usize,
    x: [R; D],
    y: R,
    cost: R,
    memo: Memo<R>,
    spent: R,
}

fn initial<R: Real>(ctl: &mut Ctl<R>) {
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(1);
    for _ in 0..3 {
        let x: [R; D] =
            core::array::from_fn(|_| R::from_f64((rng.next_u32() as f64 + 0.5) / 4294967296.0));
        let y = R::from_f64(hartmann3(&x.map(|v| v.to_f64())));
        ctl.observe_initial(&x, y).unwrap();
    }
}

/// Plays `rounds` live; returns every round's decision (one more than the rounds: the next
/// one too) and log.
fn live<R: Real>(mut ctl: Ctl<R>, rounds: usize) -> (Vec<Decision<R, D>>, Vec<Logged<R>>) {
    initial(&mut ctl);
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(2);
    let u = |rng: &mut Xoshiro128PlusPlus| (rng.next_u32() as f64 + 0.5) / 4294967296.0;
    let (mut decisions, mut log) = (vec![], vec![]);
    for _ in 0..rounds {
        let d = ctl.suggest().unwrap();
        decisions.push(d);
        let x: [R; D] =
            core::array::from_fn(|l| d.values[l].unwrap_or_else(|| R::from_f64(u(&mut rng))));
        let y = R::from_f64(hartmann3(&x.map(|v| v.to_f64())) + 0.01 * (u(&mut rng) - 0.5));
        // A random cost around the set's (the unknown-cost rule learns it).
        let cost = R::from_f64(CHEAP[d.set] * (0.5 + u(&mut rng)));
        ctl.observe(&x, y, cost).unwrap();
        log.push(Logged {
            set: d.set,
            x,
            y,
            cost,
            memo: ctl.memo(),
            spent: ctl.spent(),
        });
    }
    decisions.push(ctl.suggest().unwrap());
    (decisions, log)
}

fn bits<R: Real>(d: &Decision<R, D>) -> (usize, Vec<Option<u64>>, u64) {
    (
        d.set,
        d.values
            .iter()
            .map(|v| v.map(|v| v.to_f64().to_bits()))
            .collect(),
        d.score.to_f64().to_bits(),
    )
}

fn check_rule<R: Real>(rule: PolicySpec<R>, known: bool, rounds: usize, ks: &[usize]) {
    check_rule_refitting(rule, known, rounds, ks, Refit::Never);
}

fn check_rule_refitting<R: Real>(
    rule: PolicySpec<R>,
    known: bool,
    rounds: usize,
    ks: &[usize],
    refit: Refit<R>,
) {
    let fresh = || controller_refitting::<R>(rule, known, WhenFull::DropOldest, refit);
    let (decisions, log) = live(fresh(), rounds);
    // Decisions differ from round to round (the test would be empty otherwise).
    assert!(decisions.windows(2).any(|w| bits(&w[0]) != bits(&w[1])));
    for &k in ks {
        let mut ctl = fresh();
        initial(&mut ctl);
        for r in &log[..k] {
            ctl.replay(r.set, &r.x, r.y, r.cost, &r.memo).unwrap();
        }
        assert_eq!(ctl.rounds(), k);
        let spent: f64 = log[..k].iter().map(|r| r.cost.to_f64()).sum();
        assert!((ctl.spent().to_f64() - spent).abs() < 1e-5);
        if k > 0 {
            // The ledger to the bit, and the rule's memo, as the live controller had them.
            assert_eq!(
                ctl.spent().to_f64().to_bits(),
                log[k - 1].spent.to_f64().to_bits()
            );
            assert_eq!(ctl.memo(), log[k - 1].memo);
        }
        let d = ctl.suggest().unwrap();
        assert_eq!(bits(&d), bits(&decisions[k]), "{rule:?}, after {k} rounds");
    }
}

const KS: [usize; 6] = [0, 1, 4, 9, 16, 24];

#[test]
fn etc_ada_replays_bit_identically_f64() {
    check_rule::<f64>(
        PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive),
        true,
        24,
        &KS,
    );
}

#[test]
fn etc_ada_replays_bit_identically_f32() {
    check_rule::<f32>(
        PolicySpec::ExploreThenCommit(PlaysPerGroup::Fixed(3)),
        true,
        24,
        &KS,
    );
    check_rule::<f32>(
        PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive),
        true,
        24,
        &KS,
    );
}

fn unknown<R: Real>() -> PolicySpec<R> {
    PolicySpec::UnknownCost(UnknownCostConfig {
        exploration: Exploration::Rounds(2),
        alpha: R::from_f64(0.1),
        halve_every: Some(3),
        exploitation: costbo_core::policy::unknown_cost::Exploitation::Paper,
    })
}

#[test]
fn unknown_cost_replays_bit_identically_f64() {
    check_rule::<f64>(unknown(), false, 24, &KS);
}

#[test]
fn unknown_cost_replays_bit_identically_f32() {
    check_rule::<f32>(unknown(), false, 24, &KS);
}

#[test]
fn ucb_cvs_and_thompson_replay_bit_identically() {
    check_rule::<f64>(
        PolicySpec::UcbCvs(EpsilonSchedule::Constant(0.05)),
        true,
        10,
        &[0, 3, 10],
    );
    check_rule::<f32>(PolicySpec::Thompson(Selection::Argmax), true, 8, &[0, 5, 8]);
}

#[cfg(feature = "refit")]
#[test]
fn refitting_controllers_replay_bit_identically() {
    // Paper 002's model refitted before every decision, or every third: a replay refits at the
    // same rounds on the same data, so the next decision is the live one's.
    for every in [1, 3] {
        let refit = Refit::BotorchMap { every, noise: 1e-4 };
        check_rule_refitting::<f64>(
            PolicySpec::UcbCvs(EpsilonSchedule::Constant(0.05)),
            true,
            10,
            &[0, 2, 7, 10],
            refit,
        );
        check_rule_refitting::<f32>(
            PolicySpec::ExploreThenCommit(PlaysPerGroup::Fixed(2)),
            true,
            10,
            &[0, 3, 10],
            Refit::BotorchMap {
                every,
                noise: 1e-4f32,
            },
        );
    }
    // The refits change the model: hyperparameters differ from the built ones.
    let mut ctl = controller_refitting::<f64>(
        PolicySpec::UcbCvs(EpsilonSchedule::Constant(0.05)),
        true,
        WhenFull::DropOldest,
        Refit::BotorchMap {
            every: 1,
            noise: 1e-4,
        },
    );
    initial(&mut ctl);
    let before = *ctl.gp().kernel();
    ctl.suggest().unwrap();
    assert_ne!(*ctl.gp().kernel(), before);
    assert!(
        (ctl.gp().noise() / 1e-4 - 1.0).abs() < 1e-12,
        "the noise stays fixed"
    );
}

#[cfg(feature = "refit")]
#[test]
fn fully_fitted_controllers_replay_bit_identically_and_refit_as_gp_fit_does() {
    // The cost-varying-subset rules on the fitted model (noise learned too), refitted every
    // round or every fourth, in f64 and f32: a replay refits at the same rounds on the same
    // data, so the next decision is the live one's.
    for every in [1, 4] {
        check_rule_refitting::<f64>(
            PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive),
            true,
            12,
            &[0, 5, 12],
            Refit::Map {
                every,
                noise_floor: 1e-6,
            },
        );
        check_rule_refitting::<f32>(
            unknown(),
            false,
            12,
            &[0, 4, 12],
            Refit::Map {
                every,
                noise_floor: 1e-6f32,
            },
        );
    }
    // The controller's refit is the GP's MAP fit of the same data (not a copy of it): the
    // model after the first decision holds exactly what `Gp::fit` finds from the built
    // hyperparameters, and the noise moved off its built value.
    let refit = Refit::Map {
        every: 1,
        noise_floor: 1e-6,
    };
    let mut ctl = controller_refitting::<f64>(
        PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive),
        true,
        WhenFull::DropOldest,
        refit,
    );
    initial(&mut ctl);
    let mut gp = ctl.gp().clone();
    ctl.suggest().unwrap();
    let report = gp
        .fit(&costbo_core::gp::FitConfig::map_learned_noise(
            gp.outputs(),
            1e-6,
        ))
        .unwrap();
    assert_eq!(ctl.gp().hyperparameters(), report.hyperparameters);
    assert_ne!(ctl.gp().noise(), 1e-4);
}

#[test]
fn the_unknown_cost_memo_matters() {
    // Without the running bounds the replayed rule is refused rather than silently different.
    let rule = unknown::<f64>();
    let (_, log) = live(controller(rule, false, WhenFull::DropOldest), 16);
    let mut ctl = controller(rule, false, WhenFull::DropOldest);
    initial(&mut ctl);
    let r = log[0];
    assert_eq!(
        ctl.replay(r.set, &r.x, r.y, r.cost, &Memo::EMPTY),
        Err(DriverError::InvalidMemo)
    );
    assert_eq!(r.memo.tag(), tags::RUNNING_BOUNDS);
    let bounds = r.memo.values();
    assert_eq!(
        bounds.len(),
        M + 1,
        "one upper bound per set and the lower bound"
    );
    // Bounds for a wrong number of sets, under another tag, or with a NaN.
    let short = Memo::new(tags::RUNNING_BOUNDS, &bounds[1..]).unwrap();
    let other_tag = Memo::new(tags::RUNNING_BOUNDS + 1, bounds).unwrap();
    let mut nan = bounds.to_vec();
    nan[2] = f64::NAN;
    let nan = Memo::new(tags::RUNNING_BOUNDS, &nan).unwrap();
    for bad in [short, other_tag, nan] {
        assert_eq!(
            ctl.replay(r.set, &r.x, r.y, r.cost, &bad),
            Err(DriverError::InvalidMemo),
            "{bad:?}"
        );
    }
    assert_eq!(ctl.rounds(), 0, "refused replays change nothing");
    // The memo round-trips through its flat, tagged form.
    let mut flat = [0.0; M + 2];
    assert_eq!(r.memo.write(&mut flat), Some(M + 2));
    assert_eq!(flat[0], f64::from(tags::RUNNING_BOUNDS));
    assert_eq!(Memo::read(&flat), Ok(r.memo));
    assert_eq!(r.memo.write(&mut [0.0; M + 1]), None);
    assert_eq!(Memo::<f64>::read(&[]), Ok(Memo::EMPTY));
    // ETC takes no bounds.
    let mut etc = controller::<f64>(
        PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive),
        true,
        WhenFull::DropOldest,
    );
    assert_eq!(
        etc.replay(r.set, &r.x, r.y, r.cost, &r.memo),
        Err(DriverError::InvalidMemo)
    );
}

#[test]
fn refused_replays_change_nothing() {
    let rule = PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive);
    let (decisions, log) = live(controller::<f64>(rule, true, WhenFull::Reject), 6);
    let mut ctl = controller::<f64>(rule, true, WhenFull::Reject);
    initial(&mut ctl);
    for r in &log[..5] {
        ctl.replay(r.set, &r.x, r.y, r.cost, &r.memo).unwrap();
    }
    let r = log[5];
    let none = Memo::EMPTY;
    let mut out = r.x;
    out[1] = 1.5;
    let mut nan = r.x;
    nan[0] = f64::NAN;
    let refused = [
        (
            ctl.clone().replay(M, &r.x, r.y, r.cost, &none),
            DriverError::InvalidSet(M),
        ),
        (
            ctl.clone().replay(99, &r.x, r.y, r.cost, &none),
            DriverError::InvalidSet(99),
        ),
        (
            ctl.clone().replay(r.set, &out, r.y, r.cost, &none),
            DriverError::OutOfBounds(1),
        ),
        (
            ctl.clone().replay(r.set, &nan, r.y, r.cost, &none),
            DriverError::NonFinite,
        ),
        (
            ctl.clone()
                .replay(r.set, &r.x, f64::INFINITY, r.cost, &none),
            DriverError::NonFinite,
        ),
        (
            ctl.clone().replay(r.set, &r.x, r.y, 0.0, &none),
            DriverError::InvalidCost,
        ),
        (
            ctl.clone().replay(r.set, &r.x, r.y, f64::NAN, &none),
            DriverError::InvalidCost,
        ),
    ];
    for (got, want) in refused {
        assert_eq!(got, Err(want));
    }
    // The same refusals on the controller itself, then the next decision is still the live one.
    for set in [M, 99] {
        assert!(ctl.replay(set, &r.x, r.y, r.cost, &none).is_err());
    }
    assert!(ctl.replay(r.set, &out, r.y, r.cost, &none).is_err());
    assert!(ctl.replay(r.set, &r.x, r.y, -1.0, &none).is_err());
    assert_eq!(ctl.rounds(), 5);
    assert_eq!(bits(&ctl.suggest().unwrap()), bits(&decisions[5]));
    // A pending decision is discarded by a successful replay.
    ctl.replay(r.set, &r.x, r.y, r.cost, &none).unwrap();
    assert!(ctl.pending().is_none());
    assert_eq!(bits(&ctl.suggest().unwrap()), bits(&decisions[6]));
    // A full GP under `Reject`: refused with the GP's error, nothing else changes.
    let mut full = controller::<f64>(rule, true, WhenFull::Reject);
    for i in 0..N {
        let x = [i as f64 / N as f64, 0.5, 0.25];
        full.observe_initial(&x, hartmann3(&x)).unwrap();
    }
    let (spent, rounds) = (full.spent(), full.rounds());
    assert_eq!(
        full.replay(r.set, &r.x, r.y, r.cost, &none),
        Err(DriverError::Gp(GpError::Full))
    );
    assert_eq!((full.spent(), full.rounds()), (spent, rounds));
    assert_eq!(full.gp().len(), N);
}
