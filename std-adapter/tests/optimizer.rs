//! The desktop adapter's contract, as an outside program uses it: run to the budget, resume
//! bit for bit, refuse bad input with the state unchanged, and decide as the core's controller
//! of the same experiment does (built independently, with the experiment's exact sizes).

use costbo_core::driver::Controller;
use costbo_core::linalg::tri_len;
use costbo_core::policy::AnyPolicy;
use costbo_std::{ErrorKind, Optimizer, Precision, MESSAGE_BYTES};

/// A 7-variable experiment with four control sets and capacity `capacity`.
fn seven(capacity: usize, budget: f64, rule: &str) -> String {
    let mut t = format!(
        r#"
[experiment]
name = "seven"
seed = 11
budget = {budget}
capacity = {capacity}
bank = 32
rule = "{rule}"
growth_period_ms = 1

[model]
kernel = "se"
lengthscale = 0.3
outputscale = 1.0
noise = 1e-3

[inner]
pool = 16
starts = 2
evaluations_per_start = 8
"#
    );
    for l in 0..7 {
        t.push_str(&format!(
            r#"
[[variable]]
name = "v{l}"
lower = {lo}
upper = {hi}
distribution = {{ kind = "uniform" }}
pump = {{ channel = {l}, ml_per_s = 0.5, concentration = 0.1, max_on_ms = 30000 }}
sensor = {{ address = {addr}, scale = 0.001, offset = {lo} }}
"#,
            lo = -(l as f64),
            hi = 1.0 + l as f64,
            addr = 0x20 + l
        ));
    }
    for (vars, cost) in [
        ("\"v0\", \"v1\"", 0.1),
        ("\"v2\", \"v3\", \"v4\"", 0.2),
        ("\"v5\", \"v6\"", 0.15),
        (
            "\"v0\", \"v1\", \"v2\", \"v3\", \"v4\", \"v5\", \"v6\"",
            1.0,
        ),
    ] {
        t.push_str(&format!(
            "\n[[control_set]]\nvariables = [{vars}]\ncost = {cost}\n"
        ));
    }
    t
}

/// A small deterministic generator (SplitMix64) for the uncontrolled variables.
struct Rng(u64);

impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The measured point of a round (asked values, the rest drawn within the bounds) and its
/// outcome: a smooth function with its optimum inside the box.
fn play(opt: &Optimizer, values: &[Option<f64>], rng: &mut Rng) -> (Vec<f64>, f64) {
    let x: Vec<f64> = values
        .iter()
        .zip(opt.variables())
        .map(|(v, info)| {
            v.unwrap_or_else(|| info.lower + rng.uniform() * (info.upper - info.lower))
        })
        .collect();
    let y = -x
        .iter()
        .zip(opt.variables())
        .map(|(v, info)| {
            let u = (v - info.lower) / (info.upper - info.lower);
            (u - 0.3).powi(2)
        })
        .sum::<f64>();
    (x, y)
}

#[test]
fn a_seven_variable_experiment_runs_to_its_budget() {
    let mut opt = Optimizer::from_toml_str(&seven(300, 6.0, "ucb-cvs")).unwrap();
    assert_eq!(opt.variables().len(), 7);
    assert_eq!(opt.sets().len(), 4);
    let mut rng = Rng(1);
    let mut paid = 0.0;
    let mut rounds = 0;
    while let Some(ask) = opt.ask().unwrap() {
        assert!(ask.set < 4);
        for (l, v) in ask.values.iter().enumerate() {
            assert_eq!(v.is_some(), opt.sets()[ask.set].variables.contains(&l));
            if let Some(v) = v {
                let info = &opt.variables()[l];
                assert!(*v >= info.lower && *v <= info.upper, "{v} outside {info:?}");
            }
        }
        let (x, y) = play(&opt, &ask.values, &mut rng);
        opt.tell(&x, y, ask.cost).unwrap();
        paid += ask.cost;
        rounds += 1;
        assert!(rounds < 1000, "the run does not end");
    }
    // The ledger is the sum of the costs told; the run ends when the budget cannot pay for
    // the set the rule chooses (paper 000's loop), so less than the dearest set's cost is left.
    assert!(
        (opt.spent() - paid).abs() < 1e-12,
        "{} vs {paid}",
        opt.spent()
    );
    assert!(opt.spent() <= 6.0 + 1e-12);
    assert!(6.0 - opt.spent() < 1.0, "stopped early at {}", opt.spent());
    assert_eq!(opt.rounds(), rounds);
    assert!(rounds >= 6, "{rounds} rounds");
    let best = opt.recommend().unwrap();
    assert!(best.set < 4 && best.expected.is_finite());
    // Asking again after the end stays at the end.
    assert!(opt.ask().unwrap().is_none());
}

/// Runs `rounds` rounds (or to the end) from the generator's state.
fn run(opt: &mut Optimizer, rng: &mut Rng, rounds: usize) -> Vec<(usize, Vec<Option<u64>>)> {
    let mut seen = Vec::new();
    for _ in 0..rounds {
        let Some(ask) = opt.ask().unwrap() else { break };
        seen.push((
            ask.set,
            ask.values.iter().map(|v| v.map(f64::to_bits)).collect(),
        ));
        let (x, y) = play(opt, &ask.values, rng);
        // With learned costs, what the round cost is the caller's to tell.
        let cost = opt.sets()[ask.set].cost.unwrap_or(0.12);
        opt.tell(&x, y, cost).unwrap();
    }
    seen
}

fn resumes_bit_for_bit(precision: Precision, rule: &str) {
    resumes_after_prior(precision, rule, 0);
}

/// [`resumes_bit_for_bit`] after `prior` random points told as the initial design.
fn resumes_after_prior(precision: Precision, rule: &str, prior: usize) {
    // Capacity 8: the model drops its oldest observations well before the save.
    resumes_text(&seven(8, 40.0, rule), precision, prior);
}

/// The experiment of `seven` with a fitted model refitted every `every` rounds.
fn fitted(text: &str, every: usize) -> String {
    text.replace(
        "noise = 1e-3\n",
        &format!("noise = 1e-3\nfit = \"map\"\nrefit_every = {every}\n"),
    )
}

/// The experiment of `seven` with its costs learned: no set has a cost.
fn learned(text: &str) -> String {
    costbo_experiment::testing::with_learned_costs(text)
}

/// Runs 14 rounds of the experiment `text` (capacity 8), saves with a decision pending, and
/// checks that the restored optimizer asks it again and continues as the live one for 10 more.
fn resumes_text(text: &str, precision: Precision, prior: usize) {
    let mut live = Optimizer::from_toml_str_with(text, precision).unwrap();
    let mut rng = Rng(7);
    for _ in 0..prior {
        let (x, y) = play(&live, &[None; 7], &mut rng);
        live.tell_prior(&x, y).unwrap();
    }
    run(&mut live, &mut rng, 14);
    assert_eq!(live.observations(), 8);
    // Saved with a decision pending: the restored optimizer asks it again.
    let pending = live.ask().unwrap();
    let saved = live.to_json();
    let mut restored = Optimizer::from_json(&saved).unwrap();
    assert_eq!(restored.precision(), precision);
    assert_eq!(restored.to_json(), saved);
    assert_eq!(restored.ask().unwrap(), pending);
    let mut twin = Rng(rng.0);
    let a = run(&mut live, &mut rng, 10);
    let b = run(&mut restored, &mut twin, 10);
    assert_eq!(a.len(), 10);
    assert_eq!(a, b);
    assert_eq!(live.spent().to_bits(), restored.spent().to_bits());
}

#[test]
fn a_restored_optimizer_continues_bit_for_bit_f64() {
    resumes_bit_for_bit(Precision::F64, "ucb-cvs");
}

#[test]
fn a_restored_optimizer_continues_bit_for_bit_f32() {
    resumes_bit_for_bit(Precision::F32, "etc-ada");
}

#[test]
fn the_entropy_rules_run_and_resume_bit_for_bit_in_both_precisions() {
    // MES needs memory for its candidate set (the optimizer gives it in f32 too) and a
    // posterior to sample the maximum from (an initial design).
    resumes_after_prior(Precision::F64, "mes", 3);
    resumes_after_prior(Precision::F32, "mfmes", 3);
}

#[test]
fn the_lookahead_rules_run_and_resume_bit_for_bit() {
    // The one-shot problems' raw values need the optimizer's memory, their fantasies a
    // posterior.
    resumes_after_prior(Precision::F64, "kg", 3);
    resumes_after_prior(Precision::F32, "msei", 3);
    resumes_after_prior(Precision::F64, "bmsei", 3);
}

#[test]
fn a_restored_unknown_cost_rule_continues_bit_for_bit() {
    // The unknown-cost rule keeps running bounds that only its memos restore.
    resumes_bit_for_bit(Precision::F64, "unknown-cost");
}

#[test]
fn a_fitted_model_runs_and_resumes_bit_for_bit_in_both_precisions() {
    // Refits before every second decision, on a model that drops observations (capacity 8):
    // the restored optimizer refits at the same rounds from the same data.
    for (precision, rule) in [(Precision::F64, "ucb-cvs"), (Precision::F32, "etc-ada")] {
        resumes_text(&fitted(&seven(8, 40.0, rule), 2), precision, 2);
    }
}

#[test]
fn a_fitted_model_decides_otherwise_than_the_fixed_one() {
    let fixed = seven(64, 3.0, "ucb-psq");
    let mut a = Optimizer::from_toml_str(&fixed).unwrap();
    let mut b = Optimizer::from_toml_str(&fitted(&fixed, 1)).unwrap();
    let (mut ra, mut rb) = (Rng(5), Rng(5));
    for _ in 0..3 {
        let (x, y) = play(&a, &[None; 7], &mut ra);
        a.tell_prior(&x, y).unwrap();
        let (x, y) = play(&b, &[None; 7], &mut rb);
        b.tell_prior(&x, y).unwrap();
    }
    let (da, db) = (run(&mut a, &mut ra, 12), run(&mut b, &mut rb, 12));
    assert_eq!(da.len(), db.len());
    assert_ne!(
        da, db,
        "a model refitted before every decision decides as the fixed one"
    );
}

#[test]
fn learned_costs_are_told_and_resumed_bit_for_bit() {
    let text = learned(&seven(8, 40.0, "unknown-cost"));
    let mut opt = Optimizer::from_toml_str(&text).unwrap();
    assert!(opt.learns_costs());
    assert!(opt.sets().iter().all(|s| s.cost.is_none()));
    // Before a set is played its cost is unknown (0); after, the mean of what was told.
    let mut rng = Rng(9);
    let mut told: Vec<Vec<f64>> = vec![Vec::new(); 4];
    for round in 0..12 {
        let ask = opt.ask().unwrap().expect("budget left");
        let paid = &told[ask.set];
        let mean = if paid.is_empty() {
            0.0
        } else {
            paid.iter().sum::<f64>() / paid.len() as f64
        };
        assert_eq!(ask.cost.to_bits(), mean.to_bits(), "round {round}");
        let (x, y) = play(&opt, &ask.values, &mut rng);
        let cost = 0.1 + 0.05 * rng.uniform();
        opt.tell(&x, y, cost).unwrap();
        told[ask.set].push(cost);
    }
    let total: f64 = told.iter().flatten().sum();
    assert!((opt.spent() - total).abs() < 1e-12);
    resumes_text(&text, Precision::F64, 0);
    resumes_text(&text, Precision::F32, 0);
}

#[test]
fn rules_that_compare_known_costs_refuse_learned_ones() {
    let e = Optimizer::from_toml_str(&learned(&seven(64, 3.0, "etc-ada"))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Experiment);
    assert!(e.to_string().contains("cost"), "{e}");
}

/// The experiment of `seven` with prices per unit dosed on v0 (0.01) and v3 (0.02).
fn priced(text: &str) -> String {
    text.replace("name = \"v0\"\n", "name = \"v0\"\nprice = 0.01\n")
        .replace("name = \"v3\"\n", "name = \"v3\"\nprice = 0.02\n")
}

#[test]
fn prices_per_unit_dosed_are_asked_charged_and_resumed() {
    for precision in [Precision::F64, Precision::F32] {
        let text = priced(&seven(64, 12.0, "log-eipc"));
        let mut opt = Optimizer::from_toml_str_with(&text, precision).unwrap();
        assert_eq!(opt.variables()[0].price, 0.01);
        assert_eq!(opt.variables()[3].price, 0.02);
        let mut rng = Rng(2);
        for _ in 0..2 {
            let (x, y) = play(&opt, &[None; 7], &mut rng);
            opt.tell_prior(&x, y).unwrap();
        }
        let (mut paid, mut priced_rounds) = (0.0, 0);
        while let Some(ask) = opt.ask().unwrap() {
            // The set's cost plus each dosed variable's price times its value.
            let base = opt.sets()[ask.set].cost.unwrap();
            let dosed: f64 = [(0, 0.01), (3, 0.02)]
                .iter()
                .filter_map(|&(l, p)| ask.values[l].map(|v| p * v))
                .sum();
            let tolerance = match precision {
                Precision::F64 => 1e-12,
                Precision::F32 => 1e-6,
            };
            assert!(
                (ask.cost - (base + dosed)).abs() <= tolerance,
                "{} vs {base} + {dosed}",
                ask.cost
            );
            if dosed != 0.0 {
                priced_rounds += 1;
            }
            let (x, y) = play(&opt, &ask.values, &mut rng);
            opt.tell(&x, y, ask.cost).unwrap();
            paid += ask.cost;
        }
        assert!(priced_rounds > 0, "no round dosed a priced variable");
        assert!((opt.spent() - paid).abs() < 1e-9);
        assert!(opt.spent() <= 12.0 + 1e-9);
        resumes_text(&priced(&seven(8, 40.0, "log-eipc")), precision, 2);
    }
}

#[test]
fn while_below_decides_until_the_budget_is_spent_and_may_overshoot() {
    use costbo_std::optimizer::{Chance, ExperimentBuilder};
    let rounds = |rule: &str| {
        let mut opt = ExperimentBuilder::new("b", 2.5)
            .variable("a", "", 0.0, 1.0, Chance::Uniform)
            .control_set(&["a"], 1.0)
            .rule("ucb-psq")
            .budget_rule(rule)
            .build()
            .unwrap();
        let mut rng = Rng(1);
        let mut n = 0;
        while let Some(ask) = opt.ask().unwrap() {
            let (x, y) = play(&opt, &ask.values, &mut rng);
            opt.tell(&x, y, ask.cost).unwrap();
            n += 1;
        }
        (n, opt.spent())
    };
    // Rounds at 1 from a budget of 2.5: two that it can pay for, or three, the last over it.
    assert_eq!(rounds("affordable"), (2, 2.0));
    assert_eq!(rounds("while-below"), (3, 3.0));
    let e = ExperimentBuilder::new("b", 2.5)
        .variable("a", "", 0.0, 1.0, Chance::Uniform)
        .control_set(&["a"], 1.0)
        .budget_rule("sometimes")
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("budget_rule = \"sometimes\""), "{e}");
}

#[test]
fn bad_model_and_cost_entries_are_refused_with_the_entry_named() {
    let text = seven(64, 3.0, "ucb-cvs");
    for (bad, named) in [
        (
            text.replace("noise = 1e-3\n", "noise = 1e-3\nfit = \"magic\"\n"),
            "fit = \"magic\"",
        ),
        (
            text.replace("noise = 1e-3\n", "noise = 1e-3\nrefit_every = 3\n"),
            "refit_every",
        ),
        (fitted(&text, 0), "refit_every"),
        (
            text.replace(
                "noise = 1e-3\n",
                "noise = 1e-3\nfit = \"map\"\nnoise_floor = -1\n",
            ),
            "noise_floor",
        ),
        (text.replacen("cost = 0.1\n", "", 1), "cost is missing"),
        (
            text.replace(
                "rule = \"ucb-cvs\"\n",
                "rule = \"ucb-cvs\"\ncosts = \"learned\"\n",
            ),
            "cost is given",
        ),
        (
            text.replace(
                "rule = \"ucb-cvs\"\n",
                "rule = \"ucb-cvs\"\ncosts = \"free\"\n",
            ),
            "costs = \"free\"",
        ),
        (
            text.replace("name = \"v0\"\n", "name = \"v0\"\nprice = -0.1\n"),
            "price must be finite",
        ),
        (
            priced(&learned(&text)),
            "prices per unit dosed need known costs",
        ),
        // A set that could cost nothing: no price on its variables and no cost of its own.
        (
            priced(&text).replace("cost = 0.15\n", "cost = 0\n"),
            "[[control_set]]",
        ),
        (
            text.replace(
                "noise = 1e-3\n",
                "noise = 1e-3\nfit = \"botorch\"\nnoise_floor = 1e-6\n",
            ),
            "noise_floor: not a setting of fit = \"botorch\"",
        ),
        (
            text.replace(
                "noise = 1e-3\n",
                "noise = 1e-3\nfit = \"adam\"\nsteps = 0\n",
            ),
            "steps in 1..=",
        ),
        (
            text.replace(
                "noise = 1e-3\n",
                "noise = 1e-3\nfit = \"adam\"\nfrom_spent = 1.5\n",
            ),
            "from_spent in [0, 1]",
        ),
        (
            text.replace("noise = 1e-3\n", "noise = 1e-3\nfit = \"map\"\nsteps = 3\n"),
            "steps: not a setting of fit = \"map\"",
        ),
        // A rule that compares the sets' fixed costs cannot take prices.
        (priced(&text), "prices per unit dosed ([[variable]] price)"),
    ] {
        let e = Optimizer::from_toml_str(&bad).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Experiment, "{e}");
        assert!(e.to_string().contains(named), "{named}: {e}");
    }
}

#[test]
fn bad_files_are_refused_with_the_entry_named() {
    let e = Optimizer::from_toml_str("[experiment]\nname = 1").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Experiment);
    let bad_rule = seven(64, 1.0, "ucb-cvs").replace("rule = \"ucb-cvs\"", "rule = \"nope\"");
    let e = Optimizer::from_toml_str(&bad_rule).unwrap_err();
    assert!(e.to_string().contains("nope"), "{e}");
    let too_big = seven(5000, 1.0, "ucb-cvs");
    let e = Optimizer::from_toml_str(&too_big).unwrap_err();
    assert!(e.to_string().contains("capacity = 5000"), "{e}");
    let e = Optimizer::from_file("/nonexistent/experiment.toml").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(
        e.to_string().contains("/nonexistent/experiment.toml"),
        "{e}"
    );
    // Through `?` into the standard error type.
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().contains("nonexistent"));
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let text = seven(64, 20.0, "ucb-cvs");
    let mut opt = Optimizer::from_toml_str(&text).unwrap();
    let mut twin = Optimizer::from_toml_str(&text).unwrap();
    let (mut r1, mut r2) = (Rng(3), Rng(3));
    run(&mut opt, &mut r1, 3);
    run(&mut twin, &mut r2, 3);
    let ask = opt.ask().unwrap().unwrap();
    let (x, y) = play(&opt, &ask.values, &mut r1);
    let before = opt.to_json();

    // A NaN outcome, a point of the wrong length, a NaN coordinate, a value out of bounds,
    // a non-positive cost, a controlled value other than the asked one, calls out of turn.
    let e = opt.tell(&x, f64::NAN, ask.cost).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Input);
    assert!(e.to_string().contains("NaN"), "{e}");
    let e = opt.tell(&x[..6], y, ask.cost).unwrap_err();
    assert!(
        e.to_string().contains("6 values") && e.to_string().contains("7 variables"),
        "{e}"
    );
    let mut nan = x.clone();
    nan[3] = f64::NAN;
    let e = opt.tell(&nan, y, ask.cost).unwrap_err();
    assert!(e.to_string().contains("x[3] (v3)"), "{e}");
    let mut out = x.clone();
    out[6] = 100.0;
    let e = opt.tell(&out, y, ask.cost).unwrap_err();
    assert!(
        e.to_string().contains("x[6] (v6) = 100") && e.to_string().contains("[-6, 7]"),
        "{e}"
    );
    for cost in [0.0, -1.0, f64::INFINITY] {
        assert_eq!(opt.tell(&x, y, cost).unwrap_err().kind(), ErrorKind::Input);
    }
    // A finite outcome too far from the others to standardise (its squared distance
    // overflows f64), which would leave every later ask without a posterior.
    let e = opt.tell(&x, -1e300, ask.cost).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Input);
    assert!(e.to_string().contains("rescale y"), "{e}");
    let l = (0..7).find(|&l| ask.values[l].is_some()).unwrap();
    let mut moved = x.clone();
    let info = &opt.variables()[l];
    moved[l] = if x[l] - info.lower > 0.5 * (info.upper - info.lower) {
        info.lower
    } else {
        info.upper
    };
    let e = opt.tell(&moved, y, ask.cost).unwrap_err();
    assert!(e.to_string().contains("not the value asked for"), "{e}");
    assert_eq!(
        opt.tell_prior(&x, y).unwrap_err().kind(),
        ErrorKind::Sequence
    );
    assert_eq!(opt.query(&x).unwrap_err().kind(), ErrorKind::Sequence);
    assert_eq!(
        opt.skip(&x, ask.cost).unwrap_err().kind(),
        ErrorKind::Sequence
    );
    assert_eq!(opt.to_json(), before);

    // The same round told correctly: both optimizers go on alike.
    opt.tell(&x, y, ask.cost).unwrap();
    let twin_ask = twin.ask().unwrap().unwrap();
    assert_eq!(twin_ask, ask);
    // The twin's generator draws the same round, so both go on from the same state.
    assert_eq!(play(&twin, &twin_ask.values, &mut r2), (x.clone(), y));
    twin.tell(&x, y, ask.cost).unwrap();
    assert_eq!(run(&mut opt, &mut r1, 5), run(&mut twin, &mut r2, 5));
    let e = Optimizer::from_toml_str(&text)
        .unwrap()
        .tell(&x, y, 1.0)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Sequence);
}

#[test]
fn enormous_or_endless_inputs_give_bounded_messages() {
    // A parser quotes the line it could not read; the message is cut, and says how long it was.
    let e = Optimizer::from_toml_str(&"x".repeat(10_000_000)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Experiment);
    assert!(
        e.message().len() < MESSAGE_BYTES + 40,
        "{}",
        e.message().len()
    );
    assert!(
        e.message().ends_with("bytes in all)"),
        "{}",
        &e.message()[..100]
    );
    let e = Optimizer::from_json(&format!("\"{}\"", "a".repeat(10_000_000))).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::State);
    assert!(
        e.message().len() < MESSAGE_BYTES + 40,
        "{}",
        e.message().len()
    );
    // An endless stream is refused after a mebibyte, not read until memory runs out.
    let e = Optimizer::from_file("/dev/zero").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Io);
    assert!(e.message().contains("longer than 1 MiB"), "{e}");
    // JSON nested beyond serde_json's recursion limit is an error, not a stack overflow.
    let e = Optimizer::from_json(&"[".repeat(1_000_000)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::State);
}

#[test]
fn damaged_or_foreign_states_are_refused_whole() {
    let mut opt = Optimizer::from_toml_str(&seven(64, 20.0, "ucb-cvs")).unwrap();
    run(&mut opt, &mut Rng(5), 4);
    let saved = opt.to_json();
    // One digit changed in an outcome.
    let i = saved.find("\"y\":\"-").unwrap() + 6;
    let mut damaged = saved.clone().into_bytes();
    damaged[i] = if damaged[i] == b'1' { b'2' } else { b'1' };
    let e = Optimizer::from_json(std::str::from_utf8(&damaged).unwrap()).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::State);
    assert!(e.to_string().contains("checksum"), "{e}");
    for text in [
        &saved[..saved.len() / 2],
        "{}",
        "[1, 2]",
        "",
        &saved.replace("costbo-optimizer", "other-tool"),
    ] {
        assert_eq!(
            Optimizer::from_json(text).unwrap_err().kind(),
            ErrorKind::State
        );
    }
}

type Core<const N: usize> =
    Controller<f32, N, 5, 7, Vec<f32>, Vec<[f32; 5]>, AnyPolicy<f32, 5, 7, 1, 1>>;

/// The firmware's experiment, at capacity 16 so that 30 rounds also drop observations.
fn firmware_experiment(capacity: usize) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../firmware/experiment.toml");
    std::fs::read_to_string(path)
        .unwrap()
        .replace("capacity = 64", &format!("capacity = {capacity}"))
        .replace("budget = 3.0", "budget = 6.0")
}

#[test]
fn an_f32_optimizer_makes_the_devices_decisions() {
    // The device's controller: the core's, built by the firmware's own path (exact counts of
    // variables and sets, capacity 16, no Thompson features or EI window).
    let text = firmware_experiment(16);
    let spec = costbo_experiment::toml::parse(&text).unwrap();
    let mut device: Core<16> = spec
        .controller::<f32, 16, 5, 7, _, _>(vec![0.0; tri_len(16)], vec![[0.0; 5]; spec.bank])
        .unwrap();
    let mut opt = Optimizer::from_toml_str_with(&text, Precision::F32).unwrap();
    let mut rng = Rng(9);
    let mut rounds = 0;
    while let Ok(d) = device.suggest() {
        let ask = opt
            .ask()
            .unwrap()
            .expect("the optimizer stops before the device");
        assert_eq!(ask.set, d.set);
        let bits: Vec<Option<u32>> = d.values.iter().map(|v| v.map(f32::to_bits)).collect();
        let ours: Vec<Option<u32>> = ask
            .values
            .iter()
            .map(|v| v.map(|v| (v as f32).to_bits()))
            .collect();
        assert_eq!(ours, bits, "round {rounds}");
        // The device measures in f32: the point and outcome as f32 values.
        let (x, y) = play(&opt, &ask.values, &mut rng);
        let x32: [f32; 5] = core::array::from_fn(|l| x[l] as f32);
        let y32 = y as f32;
        let cost: f32 = spec
            .cost(d.set)
            .expect("a device experiment prices every set");
        device.observe(&x32, y32, cost).unwrap();
        let x64: Vec<f64> = x32.iter().map(|v| f64::from(*v)).collect();
        opt.tell(&x64, f64::from(y32), f64::from(cost)).unwrap();
        rounds += 1;
    }
    assert!(opt.ask().unwrap().is_none());
    assert!(rounds > 20, "{rounds} rounds");
    assert_eq!(opt.spent(), f64::from(device.spent()));
}

#[test]
fn a_desktop_file_needs_no_hardware_and_a_device_file_does() {
    // No pumps, sensors or growth period: the optimizer opens it; a device's reader refuses it
    // with the entry named.
    let text = r#"
[experiment]
name = "two"
seed = 3
budget = 2.0
capacity = 32
bank = 16
rule = "ucb-cvs"

[model]
kernel = "matern52"
lengthscale = 0.25
outputscale = 1.0
noise = 1e-3

[[variable]]
name = "temperature"
unit = "C"
lower = 20.0
upper = 80.0
distribution = { kind = "uniform" }

[[variable]]
name = "humidity"
lower = 0.0
upper = 1.0
distribution = { kind = "truncated-normal", mean = 0.5, variance = 0.02 }

[[control_set]]
variables = ["temperature"]
cost = 0.25

[[control_set]]
variables = ["temperature", "humidity"]
cost = 1.0
"#;
    let mut opt = Optimizer::from_toml_str(text).unwrap();
    let n = run(&mut opt, &mut Rng(2), 100).len();
    assert!(n >= 2 && opt.ask().unwrap().is_none(), "{n} rounds");
    let e = costbo_experiment::toml::parse_device(text).unwrap_err();
    assert!(e.0.contains("growth_period_ms"), "{e}");
    let with_period = text.replace(
        "rule = \"ucb-cvs\"",
        "rule = \"ucb-cvs\"\ngrowth_period_ms = 60000",
    );
    let e = costbo_experiment::toml::parse_device(&with_period).unwrap_err();
    assert!(e.0.contains("temperature") && e.0.contains("sensor"), "{e}");
}

#[test]
fn an_experiment_built_in_code_decides_as_its_handwritten_file() {
    use costbo_std::optimizer::{Chance, ExperimentBuilder};
    let mut b = ExperimentBuilder::new("seven", 6.0)
        .seed(11)
        .capacity(300)
        .bank(32)
        .rule("ucb-cvs")
        .kernel("se", 0.3, 1.0)
        .noise(1e-3, 0.0)
        .inner(16, 2, 8);
    for l in 0..7 {
        let name = format!("v{l}");
        b = b.variable(&name, "", -(l as f64), 1.0 + l as f64, Chance::Uniform);
    }
    let b = b
        .control_set(&["v0", "v1"], 0.1)
        .control_set(&["v2", "v3", "v4"], 0.2)
        .control_set(&["v5", "v6"], 0.15)
        .control_set(&["v0", "v1", "v2", "v3", "v4", "v5", "v6"], 1.0);
    let mut built = b.build().unwrap();
    let mut written = Optimizer::from_toml_str(&seven(300, 6.0, "ucb-cvs")).unwrap();
    assert_eq!(
        run(&mut built, &mut Rng(4), 12),
        run(&mut written, &mut Rng(4), 12)
    );

    // Names that TOML must quote, and a bad setting refused with the file's message.
    let odd = ExperimentBuilder::new("quote \" and \\ backslash", 1.0)
        .variable("a \"b\"", "", 0.0, 1.0, Chance::Uniform)
        .control_set(&["a \"b\""], 0.5)
        .build()
        .unwrap();
    assert_eq!(odd.name(), "quote \" and \\ backslash");
    assert_eq!(odd.variables()[0].name, "a \"b\"");
    let e = ExperimentBuilder::new("x", 1.0)
        .variable("a", "", 0.0, 1.0, Chance::Uniform)
        .control_set(&["b"], 0.5)
        .build()
        .unwrap_err();
    assert!(e.to_string().contains("no variable called \"b\""), "{e}");
}

#[test]
fn wider_experiments_run_and_the_rest_are_refused() {
    let wide = |d: usize, capacity: usize| {
        let mut t = format!(
            "[experiment]\nname = \"wide\"\nseed = 2\nbudget = 3\ncapacity = {capacity}\n\
             bank = 16\nrule = \"log-ei\"\n[model]\nkernel = \"matern52\"\nlengthscale = 0.3\n\
             outputscale = 1.0\nnoise = 1e-4\n"
        );
        for l in 0..d {
            t.push_str(&format!(
                "[[variable]]\nname = \"x{l}\"\nlower = 0\nupper = 1\n\
                 distribution = {{ kind = \"uniform\" }}\n"
            ));
        }
        let all: Vec<String> = (0..d).map(|l| format!("\"x{l}\"")).collect();
        t + &format!(
            "[[control_set]]\nvariables = [{}]\ncost = 1\n",
            all.join(", ")
        )
    };
    // Beyond 8 variables the model is the smallest of 12, 16, 24, 32, 48 and 64 inputs that
    // holds them, the others inert (12 and 16 exact).
    for d in [9, 12, 16, 20, 32, 40, 64] {
        let mut opt = Optimizer::from_toml_str(&wide(d, 64)).unwrap();
        // LogEI scores improvements over the best outcome: an empty model has none.
        let e = opt.ask().unwrap_err();
        assert!(e.message().contains("tell_prior"), "{e}");
        let mut rng = Rng(3);
        let (x, y) = play(&opt, &vec![None; d], &mut rng);
        opt.tell_prior(&x, y).unwrap();
        let mut rounds = 0;
        while let Some(ask) = opt.ask().unwrap() {
            assert!(ask.values.iter().all(Option::is_some));
            let (x, y) = play(&opt, &ask.values, &mut rng);
            opt.tell(&x, y, ask.cost).unwrap();
            rounds += 1;
        }
        assert_eq!(rounds, 3);
    }
    // Control sets name variables beyond the 32nd: a set of x35 and x36 asks for those two.
    let text = wide(40, 64).replace("rule = \"log-ei\"", "rule = \"random-search\"")
        + "[[control_set]]\nvariables = [\"x35\", \"x36\"]\ncost = 0.1\n";
    let mut opt = Optimizer::from_toml_str(&text).unwrap();
    let (mut rng, mut small) = (Rng(5), 0);
    while let Some(ask) = opt.ask().unwrap() {
        if ask.set == 1 {
            let asked: Vec<usize> = (0..40).filter(|&l| ask.values[l].is_some()).collect();
            assert_eq!(asked, [35, 36]);
            small += 1;
        }
        let (x, y) = play(&opt, &ask.values, &mut rng);
        opt.tell(&x, y, ask.cost).unwrap();
    }
    assert!(small > 0);
    // A padded model resumes bit for bit: 20 variables on a model of 24.
    let mut rng = Rng(9);
    let mut live = Optimizer::from_toml_str(&wide(20, 64)).unwrap();
    let (x, y) = play(&live, &[None; 20], &mut rng);
    live.tell_prior(&x, y).unwrap();
    let ask = live.ask().unwrap().unwrap();
    let (x, y) = play(&live, &ask.values, &mut rng);
    live.tell(&x, y, ask.cost).unwrap();
    let mut restored = Optimizer::from_json(&live.to_json()).unwrap();
    while let Some(ask) = live.ask().unwrap() {
        assert_eq!(restored.ask().unwrap(), Some(ask.clone()));
        let (x, y) = play(&live, &ask.values, &mut rng);
        live.tell(&x, y, ask.cost).unwrap();
        restored.tell(&x, y, ask.cost).unwrap();
    }
    assert_eq!(restored.ask().unwrap(), None);
    // A fit keeps the inert inputs ignored: a fitted padded model runs and resumes bit for bit.
    let fitted = wide(20, 64).replace(
        "noise = 1e-4\n",
        "noise = 1e-4\nfit = \"map\"\nrefit_every = 1\n",
    );
    let mut live = Optimizer::from_toml_str(&fitted).unwrap();
    let (x, y) = play(&live, &[None; 20], &mut rng);
    live.tell_prior(&x, y).unwrap();
    let (x, y) = play(&live, &[None; 20], &mut rng);
    live.tell_prior(&x, y).unwrap();
    let mut restored = Optimizer::from_json(&live.to_json()).unwrap();
    let mut rounds = 0;
    while let Some(ask) = live.ask().unwrap() {
        assert_eq!(restored.ask().unwrap(), Some(ask.clone()));
        let (x, y) = play(&live, &ask.values, &mut rng);
        live.tell(&x, y, ask.cost).unwrap();
        restored.tell(&x, y, ask.cost).unwrap();
        rounds += 1;
    }
    assert_eq!(rounds, 3);
    // Up to 16 variables in f32 (a device's most), and in f64 up to capacity 1024.
    for (d, capacity, precision) in [
        (9, 64, Precision::F32),
        (16, 256, Precision::F32),
        (20, 1024, Precision::F64),
    ] {
        let mut opt = Optimizer::from_toml_str_with(&wide(d, capacity), precision).unwrap();
        let (x, y) = play(&opt, &vec![None; d], &mut rng);
        opt.tell_prior(&x, y).unwrap();
        let ask = opt.ask().unwrap().unwrap();
        assert_eq!(ask.values.len(), d);
        let (x, y) = play(&opt, &ask.values, &mut rng);
        opt.tell(&x, y, ask.cost).unwrap();
    }
    for (d, capacity, precision) in [
        (17, 64, Precision::F32),
        (9, 4096, Precision::F64),
        (65, 64, Precision::F64),
    ] {
        let e = Optimizer::from_toml_str_with(&wide(d, capacity), precision).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Experiment, "{e}");
        assert!(
            e.message().contains("variables") || e.message().contains("[[variable]]"),
            "{e}"
        );
    }
}

/// The decisions the Python package must reproduce bit for bit: `python/tests/fixtures/
/// seven.json` holds, per precision, the experiment, every round's decision, measured point
/// and outcome (as bits) and the final saved state. This test checks the committed file
/// against the Rust optimizer (`COSTBO_BLESS=1` rewrites it);
/// `python/tests/test_same_as_rust.py` checks the Python package against the same file.
#[test]
fn the_python_packages_fixture_holds_the_rust_decisions() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../python/tests/fixtures/seven.json"
    );
    let hex = |v: f64| format!("{:016x}", v.to_bits());
    let mut cases = Vec::new();
    for (precision, rule, budget, rng_seed) in [
        (Precision::F64, "ucb-cvs", 8.0, 5u64),
        (Precision::F32, "etc-ada", 3.0, 6u64),
    ] {
        let text = seven(64, budget, rule);
        let mut opt = Optimizer::from_toml_str_with(&text, precision).unwrap();
        let mut rng = Rng(rng_seed);
        let mut rounds = Vec::new();
        while let Some(ask) = opt.ask().unwrap() {
            let (x, y) = play(&opt, &ask.values, &mut rng);
            rounds.push(serde_json::json!({
                "set": ask.set,
                "values": ask.values.iter().map(|v| v.map(hex)).collect::<Vec<_>>(),
                "cost": hex(ask.cost),
                "score": hex(ask.score),
                "x": x.iter().map(|v| hex(*v)).collect::<Vec<_>>(),
                "y": hex(y),
            }));
            opt.tell(&x, y, ask.cost).unwrap();
        }
        let best = opt.recommend().unwrap();
        cases.push(serde_json::json!({
            "precision": precision.name(),
            "rng_seed": rng_seed,
            "experiment": text,
            "rounds": rounds,
            "recommend": {
                "set": best.set,
                "values": best.values.iter().map(|v| v.map(hex)).collect::<Vec<_>>(),
                "expected": hex(best.expected),
            },
            "state": opt.to_json(),
        }));
    }
    let text = serde_json::to_string_pretty(&serde_json::json!({
        "made_by": "cargo test -p costbo-std --test optimizer the_python_packages_fixture \
                    (COSTBO_BLESS=1 rewrites it)",
        "cases": cases,
    }))
    .unwrap()
        + "\n";
    if std::env::var_os("COSTBO_BLESS").is_some() {
        std::fs::write(path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(path).expect("the fixture exists");
    assert!(
        committed == text,
        "python/tests/fixtures/seven.json differs from the Rust optimizer's decisions"
    );
}

/// Every size the optimizer compiles in, opened and run to its budget, saved and restored, on
/// a caller's thread of 256 KiB: the model computes on a thread of its own, so an outside
/// program's thread (a test harness gives 2 MiB) needs no more stack for 4096 observations
/// than for 64. Run in one process without `RUST_MIN_STACK` mattering: the stack is set here.
#[test]
fn every_size_runs_on_a_small_caller_stack() {
    let experiment = |d: usize, capacity: usize, rule: &str| {
        let mut t = format!(
            "[experiment]\nname = \"sizes\"\nseed = 5\nbudget = 4\ncapacity = {capacity}\n\
             bank = 16\nrule = \"{rule}\"\n[model]\nkernel = \"matern52\"\nlengthscale = 0.3\n\
             outputscale = 1.0\nnoise = 1e-4\n"
        );
        for l in 0..d {
            t.push_str(&format!(
                "[[variable]]\nname = \"x{l}\"\nlower = 0\nupper = 1\n\
                 distribution = {{ kind = \"uniform\" }}\n"
            ));
        }
        let names = |k: usize| (0..k).map(|l| format!("\"x{l}\"")).collect::<Vec<_>>();
        t + &format!(
            "[[control_set]]\nvariables = [{}]\ncost = 1\n\
             [[control_set]]\nvariables = [{}]\ncost = 0.5\n",
            names(d).join(", "),
            names(d / 2).join(", ")
        )
    };
    let cases = [
        (8, 64, Precision::F64, "ucb-cvs"),
        (8, 256, Precision::F64, "ucb-cvs"),
        (16, 256, Precision::F64, "ucb-cvs"),
        (8, 300, Precision::F64, "ucb-cvs"),
        (8, 300, Precision::F64, "mes"),
        (8, 4000, Precision::F64, "ucb-cvs"),
        (8, 64, Precision::F32, "ucb-cvs"),
        (8, 256, Precision::F32, "ucb-cvs"),
    ];
    for (d, capacity, precision, rule) in cases {
        let text = experiment(d, capacity, rule);
        let rounds = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || {
                let mut opt = Optimizer::from_toml_str_with(&text, precision).unwrap();
                let mut rng = Rng(9);
                for _ in 0..5 {
                    let (x, y) = play(&opt, &vec![None; d], &mut rng);
                    opt.tell_prior(&x, y).unwrap();
                }
                let mut rounds = 0;
                while let Some(ask) = opt.ask().unwrap() {
                    let (x, y) = play(&opt, &ask.values, &mut rng);
                    opt.tell(&x, y, ask.cost).unwrap();
                    rounds += 1;
                }
                let mut restored = Optimizer::from_json(&opt.to_json()).unwrap();
                assert_eq!(restored.rounds(), rounds);
                assert!(restored.recommend().unwrap().expected.is_finite());
                rounds
            })
            .unwrap()
            .join()
            .unwrap_or_else(|_| panic!("d = {d}, capacity {capacity}, {precision:?}, {rule}"));
        assert!(
            rounds >= 4,
            "{rounds} rounds at d = {d}, capacity {capacity}"
        );
    }
}

/// The decisions do not depend on where the model's calls run: an optimizer whose caller
/// says its thread has the stack (`with_caller_stack`: 256 MiB, enough for this model, so the
/// calls run on the caller's thread), one whose caller says too little (1 MiB) and one that
/// says nothing make the same decisions, bit for bit. (Which thread ran a call is not
/// observable here; the equality is what is checked.)
#[test]
fn a_caller_with_the_stack_decides_on_its_own_thread_the_same() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../firmware/experiment.toml"
    ))
    .unwrap();
    let run = move |caller_stack: usize| {
        let text = text.clone();
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || {
                let mut opt = Optimizer::from_toml_str(&text)
                    .unwrap()
                    .with_caller_stack(caller_stack);
                let d = opt.variables().len();
                let mut rng = Rng(4);
                let mut asked = Vec::new();
                while let Some(ask) = opt.ask().unwrap() {
                    let (x, y) = play(&opt, &ask.values, &mut rng);
                    opt.tell(&x, y, ask.cost).unwrap();
                    asked.push((ask.set, x.iter().map(|v| v.to_bits()).collect::<Vec<_>>()));
                    assert_eq!(x.len(), d);
                }
                asked
            })
            .unwrap()
            .join()
            .unwrap()
    };
    let worker = run(0);
    assert!(worker.len() > 10, "{} rounds", worker.len());
    assert_eq!(run(256 << 20), worker);
    assert_eq!(run(1 << 20), worker);
}

/// A box of three variables, one control set of all of them, its costs learned, refitted
/// before every decision: paper 002's loop with unknown costs.
fn learned_box(rule: &str) -> String {
    let mut t = format!(
        "[experiment]\nname = \"learned-box\"\nseed = 8\nbudget = 40\ncapacity = 24\nbank = 1\n\
         rule = \"{rule}\"\nbudget_rule = \"while-below\"\ncosts = \"learned\"\n\
         [model]\nkernel = \"matern52\"\nlengthscale = 0.4\noutputscale = 1.0\nnoise = 1e-4\n\
         fit = \"botorch\"\nrefit_every = 1\n"
    );
    for l in 0..3 {
        t.push_str(&format!(
            "[[variable]]\nname = \"x{l}\"\nlower = 0\nupper = {}\n\
             distribution = {{ kind = \"uniform\" }}\n",
            l + 1
        ));
    }
    t + "[[control_set]]\nvariables = [\"x0\", \"x1\", \"x2\"]\n"
}

/// What a round at `x` costs in [`learned_box`]'s lab: 1 + 2·x0 (cheap near x0 = 0).
fn box_cost(x: &[f64]) -> f64 {
    1.0 + 2.0 * x[0]
}

/// Runs `rounds` rounds of a learned-cost box, telling each round's true cost; the decisions.
fn run_box(opt: &mut Optimizer, rng: &mut Rng, rounds: usize) -> Vec<Vec<Option<u64>>> {
    let mut seen = Vec::new();
    for _ in 0..rounds {
        let Some(ask) = opt.ask().unwrap() else { break };
        seen.push(ask.values.iter().map(|v| v.map(f64::to_bits)).collect());
        let (x, y) = play(opt, &ask.values, rng);
        opt.tell(&x, y, box_cost(&x)).unwrap();
    }
    seen
}

#[test]
fn a_cost_function_is_learned_over_a_box_and_resumed_bit_for_bit() {
    for (precision, rule) in [(Precision::F64, "pbgi"), (Precision::F32, "log-eipc")] {
        let text = learned_box(rule);
        let mut live = Optimizer::from_toml_str_with(&text, precision).unwrap();
        assert!(live.learns_costs() && live.learns_cost_function());
        let mut rng = Rng(4);
        for _ in 0..4 {
            let (x, y) = play(&live, &[None; 3], &mut rng);
            // Refused whole: the cost model needs the point's cost.
            let before = live.to_json();
            let e = live.tell_prior(&x, y).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Sequence, "{e}");
            let e = live.tell_prior_with_cost(&x, y, f64::NAN).unwrap_err();
            assert_eq!(e.kind(), ErrorKind::Input, "{e}");
            assert_eq!(live.to_json(), before);
            live.tell_prior_with_cost(&x, y, box_cost(&x)).unwrap();
        }
        run_box(&mut live, &mut rng, 5);
        let pending = live.ask().unwrap().expect("budget left");
        let saved = live.to_json();
        let mut restored = Optimizer::from_json(&saved).unwrap();
        assert_eq!(restored.to_json(), saved);
        assert_eq!(restored.ask().unwrap(), Some(pending));
        let mut twin = Rng(rng.0);
        let a = run_box(&mut live, &mut rng, 6);
        let b = run_box(&mut restored, &mut twin, 6);
        assert!(!a.is_empty(), "{rule}");
        assert_eq!(a, b, "{rule}");
        assert_eq!(live.spent().to_bits(), restored.spent().to_bits());
    }
}

#[test]
fn a_learned_cost_function_steers_a_cost_aware_rule_to_cheap_points() {
    // An outcome that does not depend on x0 and a cost e^(3·x0) (1 to 20 over x0's range):
    // PBGI priced by the learned cost plays lower x0 than PBGI where every round costs 1,
    // on each of six seeds (measured: 0.21–0.29 against 0.37–0.56).
    let cost = |x: &[f64]| (3.0 * x[0]).exp();
    let mean_x0 = |text: &str, learned: bool, seed: u64| {
        let mut opt = Optimizer::from_toml_str(text).unwrap();
        let mut rng = Rng(seed);
        for _ in 0..4 {
            let (x, _) = play(&opt, &[None; 3], &mut rng);
            opt.tell_prior_with_cost(&x, flat_in_x0(&x), cost(&x))
                .unwrap();
        }
        let mut x0 = Vec::new();
        for _ in 0..12 {
            let Some(ask) = opt.ask().unwrap() else { break };
            let (x, _) = play(&opt, &ask.values, &mut rng);
            x0.push(x[0]);
            opt.tell(&x, flat_in_x0(&x), if learned { cost(&x) } else { 1.0 })
                .unwrap();
        }
        assert_eq!(x0.len(), 12);
        x0.iter().sum::<f64>() / x0.len() as f64
    };
    let learned_text = learned_box("pbgi").replace("budget = 40", "budget = 4000");
    let uniform_text = learned_box("pbgi")
        .replace("costs = \"learned\"\n", "")
        .replace("\"x2\"]\n", "\"x2\"]\ncost = 1\n")
        .replace("budget = 40", "budget = 400");
    let (mut sum_learned, mut sum_uniform) = (0.0, 0.0);
    for seed in 0..6 {
        let learned = mean_x0(&learned_text, true, seed);
        let uniform = mean_x0(&uniform_text, false, seed);
        assert!(
            learned < uniform,
            "seed {seed}: mean x0 {learned} with the learned cost, {uniform} with uniform costs"
        );
        sum_learned += learned;
        sum_uniform += uniform;
    }
    assert!(
        sum_learned < 0.7 * sum_uniform,
        "{sum_learned} {sum_uniform}"
    );
}

/// An outcome with its optimum inside the box that does not depend on x0.
fn flat_in_x0(x: &[f64]) -> f64 {
    -((x[1] / 2.0 - 0.3).powi(2) + (x[2] / 3.0 - 0.3).powi(2))
}

/// The experiment of `seven`'s variables with `sets` control sets: the first `sets` non-empty
/// subsets of the seven variables in binary order (set `i` is subset `i + 1`), each costing
/// 0.1, so that the sets with more variables, past the 32nd, are the better ones.
fn many_sets(sets: usize, rule: &str) -> String {
    let head = seven(64, 3.0, rule);
    let mut t = head[..head.find("\n[[control_set]]").unwrap()].to_string();
    for k in 1..=sets {
        let vars: Vec<String> = (0..7)
            .filter(|l| k & (1 << l) != 0)
            .map(|l| format!("\"v{l}\""))
            .collect();
        t.push_str(&format!(
            "\n[[control_set]]\nvariables = [{}]\ncost = 0.1\n",
            vars.join(", ")
        ));
    }
    t
}

#[test]
fn sixty_four_control_sets_are_served_and_the_per_set_cost_rule_takes_thirty_two() {
    use costbo_std::optimizer::{MAX_SETS, MAX_SETS_LEARNING_COSTS};
    assert_eq!((MAX_SETS, MAX_SETS_LEARNING_COSTS), (64, 32));
    for precision in [Precision::F64, Precision::F32] {
        let mut opt = Optimizer::from_toml_str_with(&many_sets(64, "ucb-psq"), precision).unwrap();
        assert_eq!(opt.sets().len(), 64);
        let mut rng = Rng(12);
        let mut played = std::collections::BTreeSet::new();
        let mut rounds = 0;
        while let Some(ask) = opt.ask().unwrap() {
            // The values asked are those of the set's variables, and only those.
            for (l, v) in ask.values.iter().enumerate() {
                assert_eq!(
                    v.is_some(),
                    (ask.set + 1) & (1 << l) != 0,
                    "set {}",
                    ask.set
                );
            }
            assert_eq!(ask.cost, 0.1);
            played.insert(ask.set);
            let (x, y) = play(&opt, &ask.values, &mut rng);
            opt.tell(&x, y, ask.cost).unwrap();
            rounds += 1;
        }
        assert!(rounds >= 25, "{rounds} rounds");
        // Sets past the 32nd are played too.
        assert!(played.iter().any(|&s| s >= 32), "{played:?}");
        let saved = opt.to_json();
        assert_eq!(Optimizer::from_json(&saved).unwrap().to_json(), saved);
    }
    let learned = |sets: usize| learned(&many_sets(sets, "unknown-cost"));
    let mut opt = Optimizer::from_toml_str(&learned(32)).unwrap();
    run(&mut opt, &mut Rng(2), 3);
    let restored = Optimizer::from_json(&opt.to_json()).unwrap();
    assert_eq!(restored.rounds(), 3);
    let e = Optimizer::from_toml_str(&learned(33)).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Experiment);
    assert!(
        e.message().contains("unknown-cost") && e.message().contains("32"),
        "{e}"
    );
    let e = Optimizer::from_toml_str(&many_sets(65, "ucb-psq")).unwrap_err();
    assert!(e.message().contains("1 to 64"), "{e}");
}

#[test]
fn learned_costs_give_a_cost_model_only_to_the_rules_that_price_points() {
    // LogEI and GP-UCB read no cost: with learned costs they keep paper 001's contract (no
    // model of ln(cost), `tell_prior` without a cost, the asked cost the set's mean paid).
    for rule in ["log-ei", "gp-ucb"] {
        let mut opt = Optimizer::from_toml_str(&learned_box(rule)).unwrap();
        assert!(opt.learns_costs() && !opt.learns_cost_function(), "{rule}");
        let (x, y) = play(&opt, &[None; 3], &mut Rng(1));
        opt.tell_prior(&x, y).unwrap();
    }
    for rule in ["pbgi", "pbgi-d", "log-eipc", "log-eicc", "mfmes"] {
        let opt = Optimizer::from_toml_str(&learned_box(rule)).unwrap();
        assert!(opt.learns_cost_function(), "{rule}");
    }
}
