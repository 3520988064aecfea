//! Paper 002's Pest Control, 1-D bump constructions and external objectives in the box loop:
//! their costs as the rule pays them, the 25-dimensional path (beyond Sobol's table), and the
//! external program's JSON-lines protocol with its errors.

use std::path::PathBuf;
use std::process::Command;

use costbo_lab::objectives::external::{External, ExternalError};
use costbo_lab::objectives::{self, Evaluation, Objective, ObjectiveError, Options};
use costbo_lab::pandora::{run_box, BoxCost, BoxModel, BoxRun};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("costbo-pobj-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(rule: &str, budget: f64, cost: BoxCost) -> BoxRun {
    BoxRun {
        rule: rule.into(),
        seed: 2,
        budget,
        cost,
        model: BoxModel::Fitted,
        paper_optimiser: false,
    }
}

/// The budget spent by each round.
fn payments(t: &costbo_lab::pandora::BoxTrace) -> Vec<f64> {
    let mut spent = 0.0;
    t.rounds
        .iter()
        .map(|r| {
            let c = r.spent - spent;
            spent = r.spent;
            c
        })
        .collect()
}

#[test]
fn pest_control_runs_in_25_dimensions_paying_its_price() {
    let f = objectives::build("pest-control", &Options::default()).unwrap();
    assert_eq!(f.dim(), 25);
    let t = run_box(f.as_ref(), &run("log-eipc", 2.0, BoxCost::PestControl)).unwrap();
    assert!(!t.rounds.is_empty());
    for (r, c) in t.rounds.iter().zip(payments(&t)) {
        // A plan's price is 0 (floored at 1e-6) or at least one use of the cheapest
        // pesticide (0.7·(1 − 0.3·25/25) = 0.49), at most 25 uses at full price; the value is
        // −(price + penalty) with the penalty in [0.04, 25] (0.04: simulations whose initial
        // fraction exceeds 0.1, counted at stage 1 whatever the plan).
        assert!(
            (c - 1e-6).abs() < 1e-9 || (0.49 - 1e-12..=25.0).contains(&c),
            "{c}"
        );
        assert!(
            -r.y >= c + 0.04 - 1e-9 && -r.y <= c + 25.0 + 1e-9,
            "{} {c}",
            r.y
        );
    }
    // The known cost is refused in another dimension.
    let g = objectives::build(
        "ackley-pbgi",
        &Options {
            dim: Some(2),
            seed: None,
        },
    )
    .unwrap();
    let e = run_box(g.as_ref(), &run("pbgi", 2.0, BoxCost::PestControl)).unwrap_err();
    assert!(e.contains("not defined for d = 2"), "{e}");
}

#[test]
fn bump_constructions_pay_the_bump_cost() {
    for name in ["bump-eipc", "bump-ei"] {
        let f = objectives::build(
            name,
            &Options {
                dim: None,
                seed: Some(1),
            },
        )
        .unwrap();
        let t = run_box(f.as_ref(), &run("pbgi", 3.0, BoxCost::Bump)).unwrap();
        let n = t.rounds.len();
        assert!(n >= 1 && t.rounds[n - 1].spent >= 3.0, "{name}");
        for c in payments(&t) {
            // c(x) = 0.1 + 9.9·g(x) ∈ [0.1, 10].
            assert!((0.1 - 1e-12..=10.0 + 1e-12).contains(&c), "{name}: {c}");
        }
    }
    let g = objectives::build(
        "ackley-pbgi",
        &Options {
            dim: Some(2),
            seed: None,
        },
    )
    .unwrap();
    assert!(run_box(g.as_ref(), &run("pbgi", 2.0, BoxCost::Bump)).is_err());
}

/// A Python program answering `y = −Σ(x − 0.3)²`, `cost = 1 + Σx` (and misbehaving on cue).
const SIMULATOR: &str = r#"
import json, os, sys, time
mode = sys.argv[1] if len(sys.argv) > 1 else "good"
for n, line in enumerate(sys.stdin):
    request = json.loads(line)
    x = request["x"]
    y = -sum((v - 0.3) ** 2 for v in x)
    if mode == "exit" and n == 1:
        sys.exit(3)
    if mode == "endless":
        while True:
            sys.stdout.write("9" * 65536)
    if mode == "silent":
        time.sleep(60)
    if mode == "unended":
        sys.stdout.write(json.dumps({"y": y}))
        sys.stdout.flush()
        time.sleep(60)
    if mode == "closed":
        os.close(1)
        time.sleep(60)
    if mode == "twice":
        print(json.dumps({"y": y}), flush=True)
        print(json.dumps({"y": y}), flush=True)
    elif mode == "wrong-id":
        print(json.dumps({"y": y, "id": request["id"] + 1}), flush=True)
    elif mode == "id":
        print(json.dumps({"y": y, "id": request["id"]}), flush=True)
    elif mode == "garbage":
        print("hello", flush=True)
    elif mode == "no-y":
        print(json.dumps({"cost": 1.0}), flush=True)
    elif mode == "nan":
        print('{"y": NaN}', flush=True)
    elif mode == "no-cost":
        print(json.dumps({"y": y}), flush=True)
    else:
        print(json.dumps({"y": y, "cost": 1 + sum(x)}), flush=True)
"#;

fn simulator(dir: &std::path::Path) -> String {
    let path = dir.join("sim.py");
    std::fs::write(&path, SIMULATOR).unwrap();
    format!("python3 {}", path.display())
}

#[test]
fn external_program_answers_by_json_lines() {
    let dir = temp("external");
    let command = simulator(&dir);
    let f = External::spawn(&command, 2).unwrap();
    for x in [[0.3, 0.3], [0.0, 1.0], [0.125, 0.75]] {
        let want = -((x[0] - 0.3f64).powi(2) + (x[1] - 0.3f64).powi(2));
        let e = f.evaluate(&x).unwrap();
        // JSON carries shortest round-trip decimals, so the values are exact.
        assert_eq!(
            e,
            Evaluation {
                value: want,
                cost: Some(1.0 + x[0] + x[1])
            }
        );
        assert_eq!(f.eval(&x), want);
    }
    assert!(f.optimum().is_nan() && f.argmax().is_none());
    // Points are checked before they are sent.
    assert!(matches!(
        f.evaluate(&[0.5, 1.5]),
        Err(ObjectiveError::OutsideCube { coordinate: 1, .. })
    ));
    // The loop prices rounds by the program's cost: 1 + Σx ∈ [1, 3].
    let t = run_box(&f, &run("pbgi", 8.0, BoxCost::External)).unwrap();
    assert!(t.rounds.last().unwrap().spent >= 8.0);
    for (r, c) in t.rounds.iter().zip(payments(&t)) {
        assert!((1.0..=3.0).contains(&c), "{c}");
        assert!(r.y <= 0.0 && r.y >= -2.0 * 0.7f64.powi(2));
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn external_program_failures_are_typed_errors() {
    let dir = temp("external-errors");
    let command = simulator(&dir);
    let answer = |mode: &str| {
        let f = External::spawn(&format!("{command} {mode}"), 1).unwrap();
        let first = f.evaluate(&[0.5]);
        (first, f.evaluate(&[0.5]))
    };
    // Exit after one answer: the second point finds the program gone, with its status.
    let (first, second) = answer("exit");
    assert!(first.is_ok());
    match second {
        Err(ObjectiveError::External(ExternalError::Exited { status })) => {
            assert!(status.as_deref().unwrap_or("").contains('3'), "{status:?}")
        }
        other => panic!("{other:?}"),
    }
    let (first, second) = answer("garbage");
    assert!(matches!(
        first,
        Err(ObjectiveError::External(ExternalError::BadJson { .. }))
    ));
    // After a failure the program's state is unknown: nothing more is sent.
    assert_eq!(second, Err(ObjectiveError::External(ExternalError::Failed)));
    assert!(matches!(
        answer("no-y").0,
        Err(ObjectiveError::External(ExternalError::MissingValue { .. }))
    ));
    // Python writes NaN, which is not JSON.
    assert!(matches!(
        answer("nan").0,
        Err(ObjectiveError::External(ExternalError::BadJson { .. }))
    ));
    assert!(matches!(
        External::spawn("/nonexistent/program --flag", 1),
        Err(ExternalError::Spawn { .. })
    ));
    assert_eq!(
        External::spawn("  ", 1).unwrap_err(),
        ExternalError::EmptyCommand
    );
    // A cost the run needs but the program does not report.
    let f = External::spawn(&format!("{command} no-cost"), 1).unwrap();
    let e = run_box(&f, &run("pbgi", 3.0, BoxCost::External)).unwrap_err();
    assert!(e.contains("reported no cost"), "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn cli_runs_an_external_program_and_reports_its_failures_in_one_line() {
    let dir = temp("external-cli");
    let command = simulator(&dir);
    let costbo = |extra: &[&str]| {
        let mut args = vec![
            "pandora",
            "--objective",
            "external",
            "--dim",
            "2",
            "--rule",
            "random-search",
            "--budget",
            "6",
            "--cost",
            "external",
            "--fast",
        ];
        args.extend_from_slice(extra);
        let o = Command::new(env!("CARGO_BIN_EXE_costbo"))
            .args(&args)
            .output()
            .unwrap();
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let (ok, stdout, stderr) = costbo(&["--command", &command]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "round,spent,y,best,regret,decide_seconds");
    assert!(lines.len() >= 3);
    // Regret is unknown for an external objective: an empty cell.
    assert!(lines[1].split(',').nth(4) == Some(""), "{}", lines[1]);
    let garbage = format!("{command} garbage");
    let (ok, _, stderr) = costbo(&["--command", &garbage]);
    assert!(!ok);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("is not a JSON object"), "{stderr}");
    let (ok, _, stderr) = costbo(&[]);
    assert!(!ok && stderr.contains("needs --command"), "{stderr}");
    let _ = std::fs::remove_dir_all(dir);
}

/// A misbehaving program ends the run with a clear error within its timeout, never a hang, an
/// allocation of the whole line or an answer matched to the wrong point.
#[test]
fn misbehaving_external_programs_are_caught() {
    use std::time::{Duration, Instant};
    let dir = temp("external-hostile");
    let command = simulator(&dir);
    let first_within = |mode: &str, timeout: u64| {
        let f = External::spawn(&format!("{command} {mode}"), 1)
            .unwrap()
            .with_timeout(Duration::from_secs(timeout));
        let started = Instant::now();
        let answers = (f.evaluate(&[0.5]), f.evaluate(&[0.25]));
        let seconds = started.elapsed().as_secs_f64();
        let dropped = Instant::now();
        drop(f);
        // A program that will not end on end of input is killed after a second.
        assert!(
            dropped.elapsed() < Duration::from_secs(3),
            "{mode}: dropping took too long"
        );
        (answers, seconds)
    };
    let first = |mode: &str| first_within(mode, 2);
    let external = |r: &Result<Evaluation, ObjectiveError>| match r {
        Err(ObjectiveError::External(e)) => e.clone(),
        other => panic!("{other:?}"),
    };
    // An endless line: refused at the bound, not read whole.
    let ((a, _), _) = first("endless");
    assert_eq!(external(&a), ExternalError::TooLong);
    // No answer, or an answer whose line never ends (as one never flushed looks from here): a
    // timeout, in about the timeout.
    for mode in ["silent", "unended"] {
        let ((a, b), seconds) = first(mode);
        assert_eq!(
            external(&a),
            ExternalError::Timeout {
                id: 0,
                seconds: 2.0
            },
            "{mode}"
        );
        assert_eq!(external(&b), ExternalError::Failed, "{mode}");
        assert!((1.9..10.0).contains(&seconds), "{mode}: {seconds} s");
    }
    // Output closed while the program runs on: an error at once, not at the timeout (a long
    // one, so that a loaded machine starting the program slowly cannot blur the two).
    let ((a, _), seconds) = first_within("closed", 60);
    assert_eq!(external(&a), ExternalError::Exited { status: None });
    assert!(seconds < 30.0, "{seconds} s");
    // Two answers to one point: the second is not taken as the next point's.
    let f = External::spawn(&format!("{command} twice"), 1).unwrap();
    assert!(f.evaluate(&[0.5]).is_ok());
    std::thread::sleep(Duration::from_millis(300));
    assert!(matches!(
        f.evaluate(&[0.25]),
        Err(ObjectiveError::External(ExternalError::Unasked {
            id: 1,
            ..
        }))
    ));
    drop(f);
    // An answer for another point.
    let ((a, _), _) = first("wrong-id");
    assert_eq!(
        external(&a),
        ExternalError::WrongId {
            asked: 0,
            answered: "1".into()
        }
    );
    // Echoing the id is accepted, point after point.
    let f = External::spawn(&format!("{command} id"), 1).unwrap();
    for x in [0.5, 0.25, 0.125] {
        assert_eq!(f.evaluate(&[x]).unwrap().value, -(x - 0.3f64).powi(2));
    }
    // Every message is one line.
    for e in [
        ExternalError::TooLong,
        ExternalError::Timeout {
            id: 3,
            seconds: 2.0,
        },
        ExternalError::Unasked {
            id: 1,
            line: "x".into(),
        },
        ExternalError::WrongId {
            asked: 0,
            answered: "1".into(),
        },
    ] {
        assert_eq!(e.to_string().lines().count(), 1, "{e}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
