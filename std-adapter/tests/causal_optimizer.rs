//! The desktop's contextual causal optimizer (`CausalOptimizer`) on the device's experiment
//! file `firmware/experiments/causal-contexts.toml`: in `f32` it decides as the device does
//! (the core's controller built from the file with exactly the file's arms, fed the contexts
//! in unit coordinates by the device's own conversions `Spec::to_unit`/`Spec::from_unit`,
//! the path the firmware's host test checks against the device bit for bit); it resumes from
//! its saved state bit for bit; and bad input is refused with the state unchanged.

use std::path::Path;

use costbo_core::causal::CausalController;
use costbo_core::linalg::tri_len;
use costbo_experiment::Spec;
use costbo_std::{CausalOptimizer, ErrorKind, Optimizer, Precision};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

const D: usize = 5;
const N: usize = 64;

fn text() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware/experiments/causal-contexts.toml"),
    )
    .unwrap()
}

/// The source water of round `round`: a deterministic point inside the bounds.
fn water(spec: &Spec<'_>, round: usize, l: usize) -> f64 {
    let v = &spec.variables[l];
    let t = ((round * 7 + l * 3) % 10) as f64 / 10.0;
    v.lower + (v.upper - v.lower) * (0.05 + 0.9 * t)
}

/// The file's model of the growth, noiseless, at the water with the doses applied.
fn growth(spec: &Spec<'_>, x: &[f64]) -> f64 {
    let u = |name: &str| {
        let l = spec.variable_index(name).unwrap();
        let v = &spec.variables[l];
        (x[l] - v.lower) / (v.upper - v.lower)
    };
    1.0 - 2.0 * (u("K") - 0.2 - 0.6 * u("NO3")).powi(2)
        - (u("pH") - 0.3 - 0.4 * u("T")).powi(2)
        - 0.5 * (u("Ca") - 0.5).powi(2)
}

/// A round's contexts as the optimizer takes them: the water of the variables asked for.
fn contexts(spec: &Spec<'_>, round: usize, asked: &[usize]) -> Vec<Option<f64>> {
    (0..D)
        .map(|l| asked.contains(&l).then(|| water(spec, round, l)))
        .collect()
}

/// The tray: the doses where dosed, the water elsewhere.
fn tray(spec: &Spec<'_>, round: usize, values: &[Option<f64>]) -> Vec<f64> {
    (0..D)
        .map(|l| values[l].unwrap_or_else(|| water(spec, round, l)))
        .collect()
}

#[test]
fn in_f32_the_causal_optimizer_decides_as_the_device_does() {
    let text = text();
    let spec = costbo_experiment::toml::parse(&text).unwrap();
    let mut opt = CausalOptimizer::from_toml_str_with(&text, Precision::F32).unwrap();
    // The device's path, built apart: exactly the file's 3 arms (the optimizer holds 8).
    let storage: [Vec<f32>; 3] = core::array::from_fn(|_| vec![0.0; tri_len(N)]);
    let mut device: CausalController<f32, 3, N, D, Vec<f32>, Xoshiro128PlusPlus> = spec
        .causal_controller(storage, Xoshiro128PlusPlus::seed_from_u64(spec.seed))
        .unwrap();
    let mut rounds = 0;
    let mut arms_seen = [0u32; 3];
    loop {
        let choice = device.next_arm().unwrap();
        let set = spec.arm_set(choice.arm).unwrap();
        let cost: f32 = spec.cost(set).unwrap();
        let ours = opt.next_arm().unwrap();
        if !device.affords(cost) {
            assert_eq!(ours, None, "round {rounds}: the budget is spent on both");
            break;
        }
        let ours = ours.unwrap();
        assert_eq!(ours.arm, choice.arm, "round {rounds}");
        assert_eq!(ours.set, set);
        let mask = spec.arm_contexts(choice.arm).unwrap();
        let asked: Vec<usize> = (0..D).filter(|l| mask & (1 << l) != 0).collect();
        assert_eq!(ours.contexts, asked);
        let unit: Vec<f32> = (0..D)
            .map(|l| {
                if asked.contains(&l) {
                    spec.to_unit(l, water(&spec, rounds, l) as f32)
                } else {
                    f32::NAN
                }
            })
            .collect();
        let ask = device.ask(&unit).unwrap();
        let decision = opt.ask(&contexts(&spec, rounds, &asked)).unwrap();
        assert_eq!(
            (decision.ucb as f32).to_bits(),
            ask.ucb.to_bits(),
            "round {rounds}"
        );
        let actions = device.table().get(choice.arm).unwrap().actions().to_vec();
        for l in 0..D {
            match actions.iter().position(|&a| a == l) {
                Some(k) => assert_eq!(
                    decision.values[l].map(|v| (v as f32).to_bits()),
                    Some(spec.from_unit(l, ask.input[k]).to_bits()),
                    "round {rounds} variable {l}"
                ),
                None => assert_eq!(decision.values[l], None),
            }
        }
        let y = growth(&spec, &tray(&spec, rounds, &decision.values));
        device.tell_paid(y as f32, cost).unwrap();
        opt.tell(y as f32 as f64).unwrap();
        arms_seen[choice.arm] += 1;
        rounds += 1;
    }
    // A budget of 2 at 0.1 per round: 20 rounds, every arm played.
    assert_eq!(rounds, 20);
    assert_eq!(opt.rounds(), 20);
    assert!(arms_seen.iter().all(|&n| n > 0), "{arms_seen:?}");
    assert_eq!(opt.spent().to_bits(), f64::from(device.spent()).to_bits());
    // The recommendation is the arm with the best mean outcome, as the device reports it.
    let best = opt.recommend().unwrap();
    for arm in 0..3 {
        let m = device.mean_outcome(arm).unwrap();
        assert!(f64::from(m) <= best.mean_outcome, "arm {arm}");
    }
    assert_eq!(best.plays, device.plays(best.arm));
    // Once over, it stays over.
    assert_eq!(opt.next_arm().unwrap(), None);
}

/// Plays `rounds` rounds from round `from`, returning every arm, decision and UCB as text.
fn play(opt: &mut CausalOptimizer, spec: &Spec<'_>, from: usize, rounds: usize) -> Vec<String> {
    let mut out = Vec::new();
    for r in from..from + rounds {
        let Some(arm) = opt.next_arm().unwrap() else {
            break;
        };
        let d = opt.ask(&contexts(spec, r, &arm.contexts)).unwrap();
        out.push(format!("{} {:?} {}", d.arm, d.values, d.ucb.to_bits()));
        opt.tell(growth(spec, &tray(spec, r, &d.values))).unwrap();
    }
    out
}

#[test]
fn a_saved_causal_optimizer_resumes_bit_for_bit_in_both_precisions() {
    let text = text();
    let spec = costbo_experiment::toml::parse(&text).unwrap();
    for precision in [Precision::F64, Precision::F32] {
        let mut whole = CausalOptimizer::from_toml_str_with(&text, precision).unwrap();
        let first = play(&mut whole, &spec, 0, 8);
        let saved = whole.to_json();
        let rest = play(&mut whole, &spec, 8, 12);
        let mut restored = CausalOptimizer::from_json(&saved).unwrap();
        assert_eq!(restored.rounds(), 8);
        assert_eq!(restored.precision(), precision);
        assert_eq!(restored.spent().to_bits(), {
            let mut fresh = CausalOptimizer::from_toml_str_with(&text, precision).unwrap();
            assert_eq!(play(&mut fresh, &spec, 0, 8), first);
            fresh.spent().to_bits()
        });
        assert_eq!(play(&mut restored, &spec, 8, 12), rest, "{precision:?}");
        assert!(!rest.is_empty());
    }
    // A saved state whose round decides another arm is refused, naming the round.
    let mut opt = CausalOptimizer::from_toml_str(&text).unwrap();
    play(&mut opt, &spec, 0, 4);
    let saved = opt.to_json();
    let mut value: serde_json::Value = serde_json::from_str(&saved).unwrap();
    value["rounds"][0]["arm"] = serde_json::json!(2);
    let e = CausalOptimizer::from_json(&value.to_string()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::State);
    assert!(e.message().contains("round 0"), "{e}");
    let e = CausalOptimizer::from_json("{").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::State);
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let text = text();
    let spec = costbo_experiment::toml::parse(&text).unwrap();
    let mut opt = CausalOptimizer::from_toml_str(&text).unwrap();
    let mut twin = CausalOptimizer::from_toml_str(&text).unwrap();
    // Out of turn.
    assert_eq!(opt.ask(&[None; D]).unwrap_err().kind(), ErrorKind::Sequence);
    assert_eq!(opt.tell(1.0).unwrap_err().kind(), ErrorKind::Sequence);
    let arm = opt.next_arm().unwrap().unwrap();
    // Asked again before `ask`: the same arm.
    assert_eq!(opt.next_arm().unwrap().unwrap(), arm);
    assert_eq!(opt.tell(1.0).unwrap_err().kind(), ErrorKind::Sequence);
    // Arm 0 measures NO3: missing, NaN, out of bounds, the wrong length.
    assert_eq!(arm.contexts, [0]);
    let lower = opt.variables()[0].lower;
    for bad in [
        vec![None; D],
        vec![Some(f64::NAN), None, None, None, None],
        vec![Some(lower - 1.0), None, None, None, None],
        vec![Some(lower); D - 1],
    ] {
        let e = opt.ask(&bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Input, "{bad:?}");
        assert!(!e.to_string().is_empty());
    }
    // After every refusal the round goes on as in the twin that saw none.
    assert_eq!(twin.next_arm().unwrap().unwrap(), arm);
    let c = contexts(&spec, 0, &arm.contexts);
    let d = opt.ask(&c).unwrap();
    assert_eq!(twin.ask(&c).unwrap(), d);
    assert_eq!(opt.next_arm().unwrap_err().kind(), ErrorKind::Sequence);
    assert_eq!(
        opt.tell(f64::INFINITY).unwrap_err().kind(),
        ErrorKind::Input
    );
    opt.tell(0.5).unwrap();
    twin.tell(0.5).unwrap();
    assert_eq!(opt.to_json(), twin.to_json());
    // Experiments it does not serve, refused by name.
    let plain = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../firmware/experiment.toml"),
    )
    .unwrap();
    let e = CausalOptimizer::from_toml_str(&plain).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Experiment);
    assert!(e.message().contains("[causal]"), "{e}");
    let e = Optimizer::from_toml_str(&text).unwrap_err();
    assert!(e.message().contains("CausalOptimizer"), "{e}");
    // A round abandoned (not carried out) is chosen again as if it had never been.
    let arm = opt.next_arm().unwrap().unwrap();
    opt.ask(&contexts(&spec, 1, &arm.contexts)).unwrap();
    opt.abandon().unwrap();
    assert_eq!(opt.abandon().unwrap_err().kind(), ErrorKind::Sequence);
    assert_eq!(opt.to_json(), twin.to_json());
    assert_eq!(opt.next_arm().unwrap(), twin.next_arm().unwrap());
    let e = CausalOptimizer::from_toml_str(&text.replace("capacity = 64", "capacity = 48"))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Experiment);
    assert!(e.message().contains("capacity"), "{e}");
}

/// The Python package's fixture (`python/tests/fixtures/causal.json`) holds these decisions:
/// `python/tests/test_causal.py` replays it through `costbo.CausalOptimizer` bit for bit.
#[test]
fn the_python_packages_causal_fixture_holds_the_rust_decisions() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../python/tests/fixtures/causal.json"
    );
    let hex = |v: f64| format!("{:016x}", v.to_bits());
    let text = text();
    let spec = costbo_experiment::toml::parse(&text).unwrap();
    let mut cases = Vec::new();
    for precision in [Precision::F64, Precision::F32] {
        let mut opt = CausalOptimizer::from_toml_str_with(&text, precision).unwrap();
        let mut rounds = Vec::new();
        let mut r = 0;
        while let Some(arm) = opt.next_arm().unwrap() {
            let c = contexts(&spec, r, &arm.contexts);
            let d = opt.ask(&c).unwrap();
            let y = growth(&spec, &tray(&spec, r, &d.values));
            rounds.push(serde_json::json!({
                "arm": arm.arm,
                "contexts": c.iter().map(|v| v.map(hex)).collect::<Vec<_>>(),
                "values": d.values.iter().map(|v| v.map(hex)).collect::<Vec<_>>(),
                "ucb": hex(d.ucb),
                "y": hex(y),
            }));
            opt.tell(y).unwrap();
            r += 1;
        }
        let best = opt.recommend().unwrap();
        cases.push(serde_json::json!({
            "precision": precision.name(),
            "experiment": text,
            "rounds": rounds,
            "recommend": {"arm": best.arm, "mean_outcome": hex(best.mean_outcome)},
            "state": opt.to_json(),
        }));
    }
    let fixture = serde_json::to_string_pretty(&serde_json::json!({
        "made_by": "cargo test -p costbo-std --test causal_optimizer the_python_packages_causal \
                    (COSTBO_BLESS=1 rewrites it)",
        "cases": cases,
    }))
    .unwrap()
        + "\n";
    if std::env::var_os("COSTBO_BLESS").is_some() {
        std::fs::write(path, &fixture).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(path).unwrap(),
        fixture,
        "the fixture differs from the Rust optimizer's decisions (COSTBO_BLESS=1 rewrites it)"
    );
}

/// The largest capacity served opens and decides in both precisions, on a test thread's
/// 2 MiB stack (its controller holds 8 arms of 256 observations).
#[test]
fn the_largest_capacity_opens_and_decides() {
    let text = text().replace("capacity = 64", "capacity = 256");
    let spec = costbo_experiment::toml::parse(&text).unwrap();
    for precision in [Precision::F64, Precision::F32] {
        let mut opt = CausalOptimizer::from_toml_str_with(&text, precision).unwrap();
        assert_eq!(play(&mut opt, &spec, 0, 4).len(), 4);
    }
}

/// The largest capacity on a caller's thread of 256 KiB: the controller's eight models compute
/// on a thread of their own, whatever the caller's stack (the test harness's 2 MiB, or less).
#[test]
fn the_largest_capacity_runs_on_a_small_caller_stack() {
    let text = text().replace("capacity = 64", "capacity = 256");
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            let spec = costbo_experiment::toml::parse(&text).unwrap();
            for precision in [Precision::F64, Precision::F32] {
                let mut opt = CausalOptimizer::from_toml_str_with(&text, precision).unwrap();
                assert_eq!(play(&mut opt, &spec, 0, 4).len(), 4);
                let restored = CausalOptimizer::from_json(&opt.to_json()).unwrap();
                assert_eq!(restored.spent(), opt.spent());
            }
        })
        .unwrap()
        .join()
        .unwrap();
}
