//! Paper 004's core against references written here: Algorithm 2's and UCB1's bookkeeping
//! recomputed by hand from the logged decisions, the UCB maximiser against a brute-force grid,
//! the typed errors (state compared in full, generator included), and f32 against f64.

use costbo_core::causal::controller::MAX_STARTS;
use costbo_core::causal::{
    maximize_ucb, ActionRule, ArmReason, ArmRule, ArmTable, ArmTableError, CausalAsk,
    CausalController, CausalError, CausalReplayError, CausalSettings, Schedule,
};
use costbo_core::gp::{Gp, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::optimize::QuasiNewtonConfig;
use costbo_core::Real;
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

const N: usize = 32;
type Store<R> = [R; tri_len(N)];
type Ctl<R, const A: usize, const D: usize> =
    CausalController<R, A, N, D, Store<R>, Xoshiro256PlusPlus>;

fn gp<R: Real, const D: usize>(noise: f64) -> Gp<R, N, D, Store<R>> {
    let kernel = Kernel::squared_exponential([R::from_f64(0.4); D], R::ONE).unwrap();
    Gp::new(
        kernel,
        R::ZERO,
        R::from_f64(noise),
        WhenFull::Reject,
        [R::ZERO; tri_len(N)],
    )
    .unwrap()
}

/// Variables: 0 = X1, 1 = X2, 2 = C (the Fig. 1 SCM's names); two arms (X1; C), (X2; C).
fn fig1_table<R: Real>() -> ArmTable<R, 3, 2> {
    let b = |v| (v, -R::ONE, R::ONE);
    let mut t = ArmTable::new();
    assert_eq!(t.push(&[b(0)], &[b(2)]), Ok(0));
    assert_eq!(t.push(&[b(1)], &[b(2)]), Ok(1));
    t
}

fn controller<R: Real, const A: usize>(
    table: ArmTable<R, A, 2>,
    settings: CausalSettings<R>,
) -> Ctl<R, A, 2> {
    CausalController::new(
        table,
        core::array::from_fn(|_| gp::<R, 2>(1e-2)),
        settings,
        Xoshiro256PlusPlus::seed_from_u64(7),
    )
    .unwrap()
}

/// A deterministic outcome per arm (arm 0 the better one, its best action `−c`).
fn outcome(arm: usize, x: f64, c: f64) -> f64 {
    match arm {
        0 => 1.0 - (x + c) * (x + c),
        1 => 0.3 - 0.5 * (x - 0.2) * (x - 0.2) + 0.1 * c,
        _ => -1.0,
    }
}

/// The context of round `t` (a fixed irrational rotation, no generator).
fn context(t: usize) -> f64 {
    let s = 0.5 + t as f64 * 0.618_033_988_749_895;
    2.0 * (s - s.floor()) - 1.0
}

/// The UCB of `ask` recomputed from the arm's GP before the outcome is told.
fn ucb_before(ctl: &Ctl<f64, 3, 2>, ask: &CausalAsk<f64, 2>) -> f64 {
    let p = ctl.gp(ask.choice.arm).unwrap().predict(&ask.input).unwrap();
    p.mean + ask.beta.sqrt() * p.variance.max(0.0).sqrt()
}

#[test]
fn algorithm2_round_robin_then_running_average_plus_bonus() {
    // A third arm: the empty scope ("do nothing"), a constant to estimate.
    let mut table = fig1_table::<f64>();
    table.push(&[], &[]).unwrap();
    let (scale, offset) = (0.7, 0.4);
    let rho = |n: u32| (scale * f64::from(n).ln() + offset).max(0.0);
    let settings = CausalSettings::algorithm2(
        Schedule::Constant(4.0),
        Schedule::Logarithmic { scale, offset },
    );
    let mut ctl = controller(table, settings);
    // By hand: every UCB value each arm was given, and its outcomes.
    let mut ucbs: [Vec<f64>; 3] = Default::default();
    for t in 0..40 {
        let c = context(t);
        let ask = ctl.ask(&[f64::NAN, f64::NAN, c]).unwrap();
        let arm = ask.choice.arm;
        assert_eq!(ask.choice.round, t as u32 + 1);
        assert_eq!(ask.beta, 4.0);
        if t < 3 {
            // Round-robin in table order.
            assert_eq!((arm, ask.choice.reason), (t, ArmReason::RoundRobin));
            assert!(ask.choice.index.is_nan());
        } else {
            let index: Vec<f64> = (0..3)
                .map(|j| {
                    let n = ucbs[j].len();
                    let mean = ucbs[j].iter().sum::<f64>() / n as f64;
                    mean + rho(n as u32) / (n as f64).sqrt()
                })
                .collect();
            let best = (0..3).fold(0, |b, j| if index[j] > index[b] { j } else { b });
            assert_eq!(
                (arm, ask.choice.reason),
                (best, ArmReason::Index),
                "round {t}"
            );
            assert!((ask.choice.index - index[best]).abs() < 1e-12);
            assert!((ask.choice.rho - rho(ucbs[best].len() as u32)).abs() < 1e-12);
            for (j, v) in index.iter().enumerate() {
                assert!((ctl.index(j).unwrap() - v).abs() < 1e-12);
            }
        }
        // The value averaged is the pre-update UCB at the chosen input, in the target's units.
        assert!((ask.ucb - ucb_before(&ctl, &ask)).abs() < 1e-12);
        // The context is pinned at its measured value; the action stays in its box.
        let na = ask.n_actions;
        if arm < 2 {
            assert_eq!((na, ask.input[1]), (1, c));
            assert!(ask.action()[0].abs() <= 1.0);
        } else {
            assert_eq!(ask.input, [0.0, 0.0]);
        }
        let x = if na == 1 { ask.input[0] } else { 0.0 };
        ctl.tell(outcome(arm, x, c)).unwrap();
        ucbs[arm].push(ask.ucb);
        let mean = ucbs[arm].iter().sum::<f64>() / ucbs[arm].len() as f64;
        assert!((ctl.mean_ucb(arm).unwrap() - mean).abs() < 1e-12);
        assert_eq!(ctl.plays(arm) as usize, ucbs[arm].len());
    }
    assert_eq!(ctl.rounds(), 40);
    // The good arm (X1; C) is played most once the bonuses shrink.
    assert!(ctl.plays(0) > ctl.plays(1) && ctl.plays(0) > ctl.plays(2));
}

#[test]
fn ucb1_on_rewards_by_hand() {
    let settings = CausalSettings {
        arm_rule: ArmRule::Ucb1Rewards { scale: 0.5 },
        ..CausalSettings::algorithm2(Schedule::Hebo { delta: 0.01 }, Schedule::Constant(1.0))
    };
    let mut ctl = controller(fig1_table::<f64>(), settings);
    let mut ys: [Vec<f64>; 2] = Default::default();
    for t in 0..30 {
        let c = context(t);
        let ask = ctl.ask(&[0.0, 0.0, c]).unwrap();
        let arm = ask.choice.arm;
        if t < 2 {
            assert_eq!((arm, ask.choice.reason), (t, ArmReason::RoundRobin));
        } else {
            let index: Vec<f64> = (0..2)
                .map(|j| {
                    let n = ys[j].len() as f64;
                    ys[j].iter().sum::<f64>() / n + 0.5 * (2.0 * ((t + 1) as f64).ln() / n).sqrt()
                })
                .collect();
            let best = if index[1] > index[0] { 1 } else { 0 };
            assert_eq!(
                (arm, ask.choice.reason),
                (best, ArmReason::Index),
                "round {t}"
            );
            assert!((ask.choice.index - index[best]).abs() < 1e-12);
        }
        // HEBO's β: (2 + D/2)·ln n + ln(π²/δ), D = 2, n the arm's play number.
        let n = ys[arm].len() as f64 + 1.0;
        let beta = 3.0 * n.ln() + (std::f64::consts::PI.powi(2) / 0.01).ln();
        assert!((ask.beta - beta).abs() < 1e-12);
        let y = outcome(arm, ask.input[0], c);
        ctl.tell(y).unwrap();
        ys[arm].push(y);
        let mean = ys[arm].iter().sum::<f64>() / ys[arm].len() as f64;
        assert!((ctl.mean_outcome(arm).unwrap() - mean).abs() < 1e-12);
    }
}

#[test]
fn schedules_by_hand() {
    let hebo = Schedule::Hebo { delta: 0.01f64 };
    // The notes' example: D = 2, n = 100 gives β ≈ 20.7.
    let v = hebo.at(100, 1, 1, 2);
    assert!((v - (3.0 * 100f64.ln() + (std::f64::consts::PI.powi(2) / 0.01).ln())).abs() < 1e-12);
    assert!((v - 20.71).abs() < 0.01);
    let th = Schedule::Theorem1 {
        a1: 2.0f64,
        delta: 0.1,
    };
    // d̄ = max(1, 2) = 2, m = 3, n = 5: 2·2·ln(2·3·2·5/0.1).
    assert!((th.at(5, 1, 2, 3) - 4.0 * 600f64.ln()).abs() < 1e-12);
    assert_eq!(Schedule::Constant(2.5f64).at(0, 0, 0, 1), 2.5);
    // n is clamped to 1 (ln 1 = 0), and a negative value to 0.
    let log = Schedule::Logarithmic {
        scale: 1.0f64,
        offset: -0.5,
    };
    assert_eq!(log.at(0, 1, 1, 1), 0.0);
    assert!((log.at(10, 1, 1, 1) - (10f64.ln() - 0.5)).abs() < 1e-12);
    assert!(!Schedule::Hebo { delta: 1.5f64 }.valid());
    assert!(!Schedule::Constant(-1.0f64).valid());
}

/// A small known posterior: five observations of a bumpy function of (x, c).
fn known_gp<const D: usize>() -> Gp<f64, N, D, Store<f64>> {
    let mut g = gp::<f64, D>(1e-3);
    let pts: [(f64, f64, f64, f64); 5] = [
        (-0.8, 0.1, 0.3, 0.2),
        (-0.2, 0.4, -0.5, 1.0),
        (0.3, -0.3, 0.2, -0.4),
        (0.7, 0.35, 0.9, 0.6),
        (0.1, 0.2, -0.9, -0.1),
    ];
    for (a, b, c, y) in pts {
        let mut x = [0.0; D];
        x[0] = a;
        x[D - 1] = b;
        if D == 3 {
            x[1] = c;
        }
        g.push(&x, y).unwrap();
    }
    g
}

#[test]
fn ucb_maximiser_matches_a_brute_force_grid() {
    let width = 1.5;
    let config = QuasiNewtonConfig::default();
    // One action in [−1, 1], the context pinned at 0.3.
    let g1 = known_gp::<2>();
    let found = maximize_ucb(&g1, &[-1.0, 0.3], &[1.0, 0.3], width, 8, &config).unwrap();
    let ucb = |x: &[f64; 2]| {
        let p = g1.predict(x).unwrap();
        p.mean + width * p.variance.max(0.0).sqrt()
    };
    let (mut gx, mut gv) = (0.0, f64::NEG_INFINITY);
    for i in 0..=20_000 {
        let x = -1.0 + 2.0 * i as f64 / 20_000.0;
        let v = ucb(&[x, 0.3]);
        if v > gv {
            (gx, gv) = (x, v);
        }
    }
    assert_eq!(found.input[1], 0.3, "context held at its value");
    assert!(found.value >= gv - 1e-9, "{} < grid {}", found.value, gv);
    assert!(
        (found.input[0] - gx).abs() < 1e-3,
        "{} vs {}",
        found.input[0],
        gx
    );
    assert!((found.value - ucb(&found.input)).abs() < 1e-12);

    // Two actions in [−1, 1]², the context pinned at 0.35.
    let g2 = known_gp::<3>();
    let found = maximize_ucb(
        &g2,
        &[-1.0, -1.0, 0.35],
        &[1.0, 1.0, 0.35],
        width,
        MAX_STARTS,
        &config,
    )
    .unwrap();
    let mut gv = f64::NEG_INFINITY;
    for i in 0..=400 {
        for j in 0..=400 {
            let x = [-1.0 + i as f64 / 200.0, -1.0 + j as f64 / 200.0, 0.35];
            let p = g2.predict(&x).unwrap();
            gv = gv.max(p.mean + width * p.variance.max(0.0).sqrt());
        }
    }
    assert_eq!(found.input[2], 0.35);
    assert!(found.value >= gv - 1e-9, "{} < grid {}", found.value, gv);
}

#[test]
fn typed_errors_leave_the_state_unchanged() {
    let settings = CausalSettings::algorithm2(Schedule::Constant(2.0), Schedule::Constant(1.0));
    let mut ctl = controller(fig1_table::<f64>(), settings);
    for t in 0..4 {
        let c = context(t);
        let ask = ctl.ask(&[0.0, 0.0, c]).unwrap();
        ctl.tell(outcome(ask.choice.arm, ask.input[0], c)).unwrap();
    }
    let state = |c: &Ctl<f64, 3, 2>| format!("{c:?}");
    let before = state(&ctl);
    let nan = f64::NAN;
    assert_eq!(ctl.tell(0.0), Err(CausalError::NoRound));
    assert_eq!(ctl.abandon(), Err(CausalError::NoRound));
    assert_eq!(
        ctl.ask(&[0.0, 0.0, 1.5]),
        Err(CausalError::ContextOutOfBounds { variable: 2 })
    );
    assert_eq!(
        ctl.ask(&[0.0, 0.0, f64::INFINITY]),
        Err(CausalError::ContextOutOfBounds { variable: 2 })
    );
    assert_eq!(
        ctl.ask(&[0.0, 0.0, nan]),
        Err(CausalError::ContextMissing { variable: 2 })
    );
    assert_eq!(
        ctl.ask(&[0.0, 0.0]),
        Err(CausalError::ContextMissing { variable: 2 })
    );
    assert_eq!(
        ctl.ask_arm(2, &[0.0, 0.0, 0.0]),
        Err(CausalError::UnknownArm { arm: 2 })
    );
    assert_eq!(state(&ctl), before);

    // An open round: asking again, forcing an arm, a non-finite outcome.
    let ask = ctl.ask(&[nan, nan, 0.25]).unwrap();
    let open = state(&ctl);
    assert_eq!(ctl.ask(&[0.0, 0.0, 0.25]), Err(CausalError::RoundOpen));
    assert_eq!(ctl.next_arm(), Err(CausalError::RoundOpen));
    assert_eq!(
        ctl.ask_arm(0, &[0.0, 0.0, 0.25]),
        Err(CausalError::RoundOpen)
    );
    assert_eq!(ctl.tell(f64::NAN), Err(CausalError::NonFiniteOutcome));
    assert_eq!(
        ctl.tell(f64::NEG_INFINITY),
        Err(CausalError::NonFiniteOutcome)
    );
    assert_eq!(state(&ctl), open);
    assert_eq!(ctl.open(), Some(&ask));
    ctl.abandon().unwrap();
    assert_eq!(state(&ctl), before);

    // Two stages: the arm, then (after measuring) the action; the arm's contexts checked.
    let choice = ctl.next_arm().unwrap();
    assert_eq!(ctl.next_arm(), Err(CausalError::RoundOpen));
    let chosen = state(&ctl);
    assert_eq!(
        ctl.ask(&[0.0, 0.0, -3.0]),
        Err(CausalError::ContextOutOfBounds { variable: 2 })
    );
    assert_eq!(state(&ctl), chosen);
    let ask = ctl.ask(&[0.0, 0.0, -0.5]).unwrap();
    assert_eq!(ask.choice, choice);
    ctl.tell(outcome(ask.choice.arm, ask.input[0], -0.5))
        .unwrap();

    // The random baseline: a refused ask leaves the generator where it was.
    let settings = CausalSettings {
        arm_rule: ArmRule::Random,
        action_rule: ActionRule::Uniform,
        ..settings
    };
    let mut rnd = controller(fig1_table::<f64>(), settings);
    let before = state(&rnd);
    assert!(rnd.ask(&[0.0, 0.0, 9.0]).is_err());
    assert_eq!(state(&rnd), before);

    // Construction: an unknown fixed arm, bad settings, an empty table.
    let fixed = |arm| CausalSettings {
        arm_rule: ArmRule::Fixed(arm),
        ..CausalSettings::algorithm2(Schedule::Constant(2.0), Schedule::Constant(1.0))
    };
    let make = |t: ArmTable<f64, 3, 2>, s| {
        CausalController::<f64, 3, N, 2, Store<f64>, _>::new(
            t,
            core::array::from_fn(|_| gp::<f64, 2>(1e-2)),
            s,
            Xoshiro256PlusPlus::seed_from_u64(1),
        )
        .err()
    };
    assert_eq!(
        make(fig1_table(), fixed(2)),
        Some(CausalError::UnknownArm { arm: 2 })
    );
    assert_eq!(make(ArmTable::new(), fixed(0)), Some(CausalError::NoArms));
    let bad = CausalSettings {
        starts: 0,
        ..fixed(0)
    };
    assert_eq!(make(fig1_table(), bad), Some(CausalError::InvalidSetting));
    let bad = CausalSettings {
        rho: Schedule::Hebo { delta: 0.0 },
        ..fixed(0)
    };
    assert_eq!(make(fig1_table(), bad), Some(CausalError::InvalidSetting));
}

#[test]
fn arm_table_checks() {
    let b = |v| (v, 0.0f64, 1.0);
    let mut t: ArmTable<f64, 2, 3> = ArmTable::new();
    assert_eq!(
        t.push(&[b(0), b(1)], &[b(2), b(3)]),
        Err(ArmTableError::TooManyInputs)
    );
    assert_eq!(
        t.push(&[b(0)], &[b(0)]),
        Err(ArmTableError::DuplicateVariable { variable: 0 })
    );
    assert_eq!(
        t.push(&[(4, 1.0, 0.0)], &[]),
        Err(ArmTableError::InvalidBounds { variable: 4 })
    );
    assert_eq!(
        t.push(&[(4, 0.0, f64::NAN)], &[]),
        Err(ArmTableError::InvalidBounds { variable: 4 })
    );
    assert_eq!(t.push(&[b(0), b(1)], &[b(2)]), Ok(0));
    // The same scope in another order is the same arm.
    assert_eq!(
        t.push(&[b(1), b(0)], &[b(2)]),
        Err(ArmTableError::DuplicateArm { arm: 0 })
    );
    assert_eq!(t.push(&[b(1)], &[b(2)]), Ok(1));
    assert_eq!(t.push(&[b(0)], &[]), Err(ArmTableError::TooManyArms));
    assert_eq!(t.len(), 2);
    let arm = t.get(0).unwrap();
    assert_eq!(
        (arm.actions(), arm.contexts(), arm.inputs()),
        (&[0, 1][..], &[2][..], 3)
    );
    assert!(t.get(2).is_none());
}

#[test]
fn baselines_cobo_oracle_random_and_cabo() {
    let b = |v| (v, -1.0f64, 1.0);
    // CoBO: one arm, both actions given the context.
    let cobo = ArmTable::<f64, 1, 3>::single(&[b(0), b(1)], &[b(2)]).unwrap();
    let mut ctl = CausalController::<f64, 1, N, 3, Store<f64>, _>::new(
        cobo,
        [gp::<f64, 3>(1e-2)],
        CausalSettings::algorithm2(Schedule::Constant(2.0), Schedule::Constant(1.0)),
        Xoshiro256PlusPlus::seed_from_u64(3),
    )
    .unwrap();
    for t in 0..5 {
        let c = context(t);
        let ask = ctl.ask(&[f64::NAN, f64::NAN, c]).unwrap();
        assert_eq!((ask.choice.arm, ask.n_actions, ask.input[2]), (0, 2, c));
        ctl.tell(outcome(0, ask.input[0], c)).unwrap();
    }

    // The oracle arm: always the given one.
    let settings = CausalSettings {
        arm_rule: ArmRule::Fixed(1),
        ..CausalSettings::algorithm2(Schedule::Constant(2.0), Schedule::Constant(1.0))
    };
    let mut ctl = controller(fig1_table::<f64>(), settings);
    for t in 0..5 {
        let ask = ctl.ask(&[0.0, 0.0, context(t)]).unwrap();
        assert_eq!((ask.choice.arm, ask.choice.reason), (1, ArmReason::Fixed));
        ctl.tell(0.0).unwrap();
    }

    // Uniform-random arm and action: both arms drawn, actions spread over the box.
    let settings = CausalSettings {
        arm_rule: ArmRule::Random,
        action_rule: ActionRule::Uniform,
        ..settings
    };
    let mut ctl = controller(fig1_table::<f64>(), settings);
    let (mut counts, mut lo, mut hi) = ([0; 2], 1.0f64, -1.0f64);
    for t in 0..200 {
        let ask = ctl.ask(&[0.0, 0.0, context(t)]).unwrap();
        assert_eq!(ask.choice.reason, ArmReason::Random);
        counts[ask.choice.arm] += 1;
        (lo, hi) = (lo.min(ask.input[0]), hi.max(ask.input[0]));
        // Not told: 200 outcomes would overflow the GPs, and the baseline learns nothing.
        ctl.abandon().unwrap();
    }
    assert!(counts[0] > 70 && counts[1] > 70, "{counts:?}");
    assert!(lo < -0.9 && hi > 0.9);

    // CaBO: context-free arms {X1}, {X2}, {X1, X2}; after the round-robin, the arm with the
    // largest maximised UCB, recomputed here.
    let mut cabo: ArmTable<f64, 3, 2> = ArmTable::new();
    cabo.push(&[b(0)], &[]).unwrap();
    cabo.push(&[b(1)], &[]).unwrap();
    cabo.push(&[b(0), b(1)], &[]).unwrap();
    let settings = CausalSettings {
        arm_rule: ArmRule::BestAcquisition,
        ..CausalSettings::algorithm2(Schedule::Constant(1.0), Schedule::Constant(0.0))
    };
    let mut ctl = controller(cabo, settings);
    for t in 0..12 {
        let choice = ctl.next_arm().unwrap();
        if t >= 3 {
            let values: Vec<f64> = (0..3)
                .map(|j| {
                    let a = ctl.table().get(j).unwrap();
                    let g = ctl.gp(j).unwrap();
                    maximize_ucb(g, a.lower(), a.upper(), 1.0, 8, &settings.ascent)
                        .unwrap()
                        .value
                })
                .collect();
            let best = (0..3).fold(0, |b, j| if values[j] > values[b] { j } else { b });
            assert_eq!(
                (choice.arm, choice.reason),
                (best, ArmReason::BestAcquisition)
            );
            assert!((choice.index - values[best]).abs() < 1e-12);
        }
        let ask = ctl.ask(&[]).unwrap();
        let y = 0.5 - ask.input[0].powi(2) - 0.2 * (ask.input[1] - 0.5).powi(2);
        ctl.tell(y).unwrap();
    }
}

/// Runs the Fig. 1-like scenario for `rounds` rounds; per round the arm, action and UCB.
fn scenario<R: Real>(rounds: usize) -> Vec<(usize, f64, f64)> {
    let settings =
        CausalSettings::algorithm2(Schedule::Constant(R::TWO), Schedule::Constant(R::ONE));
    let mut ctl = controller(fig1_table::<R>(), settings);
    let nan = R::from_f64(f64::NAN);
    (0..rounds)
        .map(|t| {
            let c = context(t);
            let ask = ctl.ask(&[nan, nan, R::from_f64(c)]).unwrap();
            let x = ask.input[0].to_f64();
            ctl.tell(R::from_f64(outcome(ask.choice.arm, x, c)))
                .unwrap();
            (ask.choice.arm, x, ask.ucb.to_f64())
        })
        .collect()
}

#[test]
fn f32_agrees_with_f64_on_a_fixed_scenario() {
    // Tolerance: the same arm every round, actions within 0.02 of the box's width 2 and UCB
    // values within 0.02, over 25 rounds (f32's UCB surface is flat to ~1e-6 near its
    // maximum, so the maximiser may stop a few 1e-3 apart; the arms must not differ).
    let a = scenario::<f64>(25);
    let b = scenario::<f32>(25);
    for (t, (x, y)) in a.iter().zip(&b).enumerate() {
        assert_eq!(x.0, y.0, "arm, round {t}");
        assert!(
            (x.1 - y.1).abs() < 2e-2,
            "action, round {t}: {x:?} vs {y:?}"
        );
        assert!((x.2 - y.2).abs() < 2e-2, "ucb, round {t}: {x:?} vs {y:?}");
    }
}

/// The budget's ledger: a round's cost charged only by `tell_paid`, a bad cost or budget
/// refused with nothing changed, and the dosing controller's affordability rule (twenty f32
/// tenths pay a budget of 2 exactly, the twenty-first does not fit).
#[test]
fn the_ledger_caps_the_budget_as_the_dosing_controllers_does() {
    let settings = CausalSettings::algorithm2(Schedule::Constant(2.0f32), Schedule::Constant(1.0));
    for bad in [-1.0f32, f32::NAN, f32::INFINITY] {
        assert_eq!(
            controller(fig1_table::<f32>(), settings)
                .with_budget(bad)
                .err(),
            Some(CausalError::InvalidSetting)
        );
    }
    let mut ctl = controller(fig1_table::<f32>(), settings)
        .with_budget(2.0)
        .unwrap();
    let mut exact = 0.0f64;
    for t in 0..20 {
        assert!(ctl.affords(0.1));
        let c = context(t) as f32;
        let ask = ctl.ask(&[0.0, 0.0, c]).unwrap();
        let y = outcome(ask.choice.arm, f64::from(ask.input[0]), f64::from(c)) as f32;
        let before = format!("{ctl:?}");
        for bad in [-0.1f32, f32::NAN, f32::INFINITY] {
            assert_eq!(ctl.tell_paid(y, bad), Err(CausalError::InvalidCost));
            assert_eq!(format!("{ctl:?}"), before);
        }
        ctl.tell_paid(y, 0.1).unwrap();
        exact += f64::from(0.1f32);
    }
    assert!(!ctl.affords(0.1));
    assert_eq!(ctl.spent(), exact as f32);
    // Without a budget every cost is affordable, and `tell` charges nothing.
    let mut free = controller(fig1_table::<f32>(), settings);
    assert!(free.affords(f32::MAX));
    let ask = free.ask(&[0.0, 0.0, 0.5]).unwrap();
    free.tell(outcome(ask.choice.arm, f64::from(ask.input[0]), 0.5) as f32)
        .unwrap();
    assert_eq!(free.spent(), 0.0);
}

/// A journal's rounds replayed into a fresh controller leave it deciding as the one that
/// played them; a record that another arm or another action would have decided is refused
/// and leaves the controller as before (its generator aside: Algorithm 2 with GP-UCB never
/// draws from it).
#[test]
fn replayed_rounds_decide_as_played_and_a_foreign_round_is_refused() {
    let settings = CausalSettings::algorithm2(Schedule::Constant(2.0), Schedule::Constant(1.0));
    let mut played = controller(fig1_table::<f64>(), settings);
    let mut journal = Vec::new();
    for t in 0..6 {
        let c = context(t);
        let ask = played.ask(&[0.0, 0.0, c]).unwrap();
        let y = outcome(ask.choice.arm, ask.input[0], c);
        played.tell_paid(y, 0.1).unwrap();
        journal.push((ask.choice.arm, c, ask.input, y));
    }
    let mut fresh = controller(fig1_table::<f64>(), settings);
    for &(arm, c, input, y) in &journal {
        fresh
            .replay(arm, &[0.0, 0.0, c], y, 0.1, |_, ask| {
                match (0..input.len()).find(|&k| ask.input[k].to_bits() != input[k].to_bits()) {
                    Some(k) => Err(CausalReplayError::Action { variable: k }),
                    None => Ok(()),
                }
            })
            .unwrap();
    }
    assert_eq!(fresh.spent(), played.spent());
    let before = format!("{fresh:?}");
    let c = context(6);
    let next = played.ask(&[0.0, 0.0, c]).unwrap();
    // Another arm than the one decided, then a check that finds another action.
    let other = (next.choice.arm + 1) % fig1_table::<f64>().len();
    assert_eq!(
        fresh.replay(other, &[0.0, 0.0, c], 0.5, 0.1, |_, _| Ok(())),
        Err(CausalReplayError::Arm {
            recorded: other,
            decided: next.choice.arm
        })
    );
    assert_eq!(format!("{fresh:?}"), before);
    assert_eq!(
        fresh.replay(next.choice.arm, &[0.0, 0.0, c], 0.5, 0.1, |_, _| {
            Err(CausalReplayError::Action { variable: 0 })
        }),
        Err(CausalReplayError::Action { variable: 0 })
    );
    assert_eq!(format!("{fresh:?}"), before);
    let again = fresh.ask(&[0.0, 0.0, c]).unwrap();
    assert_eq!(again.choice.arm, next.choice.arm);
    assert_eq!(again.input.map(f64::to_bits), next.input.map(f64::to_bits));
}
