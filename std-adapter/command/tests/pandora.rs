//! Paper 002 from the outside: the box loop's budget rule, `costbo reproduce pandora --quick`
//! end to end (resumable), and `costbo acq` against reference values.

use std::path::PathBuf;
use std::process::Command;

use costbo_lab::objectives::{self, Options};
use costbo_lab::pandora::study::{reproduce, PandoraOptions};
use costbo_lab::pandora::{finals, lookahead, sensitivity};
use costbo_lab::pandora::{run_box, BoxCost, BoxModel, BoxRun};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("costbo-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn the_loop_runs_while_the_spent_budget_is_below_the_total() {
    let f = objectives::build(
        "ackley-pbgi",
        &Options {
            dim: Some(2),
            seed: None,
        },
    )
    .unwrap();
    for rule in [
        "pbgi-d",
        "log-eicc",
        "ts-psq",
        "mes",
        "kg",
        "msei",
        "bmsei",
        "mfmes",
        "random-search",
    ] {
        let run = BoxRun {
            rule: rule.into(),
            seed: 3,
            budget: 25.0,
            cost: BoxCost::MeanLinear,
            model: BoxModel::Fitted,
            paper_optimiser: false,
        };
        let t = run_box(f.as_ref(), &run).unwrap();
        let n = t.rounds.len();
        assert!(n >= 2, "{rule}");
        // Paper 002's loop: continue while spent < B, so the last round may overshoot.
        assert!(
            t.rounds[n - 2].spent < 25.0 && t.rounds[n - 1].spent >= 25.0,
            "{rule}"
        );
        let mut best = t.initial_best;
        let mut spent = 0.0;
        for r in &t.rounds {
            // Each round pays 1 + 20·mean(u) ∈ [1, 21] and the best value never falls.
            assert!(
                r.spent - spent >= 1.0 - 1e-12 && r.spent - spent <= 21.0 + 1e-12,
                "{rule}"
            );
            assert!(r.best >= best && r.best >= r.y, "{rule}");
            spent = r.spent;
            best = r.best;
        }
    }
    // Uniform costs: the budget is a number of rounds.
    let run = BoxRun {
        rule: "pbgi".into(),
        seed: 1,
        budget: 7.0,
        cost: BoxCost::Uniform,
        model: BoxModel::Fixed {
            lengthscale: 0.2,
            shape: costbo_core::kernel::Shape::Matern52,
        },
        paper_optimiser: true,
    };
    assert_eq!(run_box(f.as_ref(), &run).unwrap().rounds.len(), 7);
}

#[test]
fn quick_study_writes_its_report_and_resumes() {
    let out = temp("pandora-quick");
    let options = PandoraOptions {
        out: out.clone(),
        report: out.join("pandora.md"),
        seeds: 2,
        quick: true,
        jobs: 2,
        figures: None,
        no_run: false,
    };
    let outcome = reproduce(&options).unwrap();
    let text = std::fs::read_to_string(&outcome.written[0]).unwrap();
    // The verdicts handed back are the reports' rows (claim, panel, ..., evidence): the main
    // report's and the side studies'.
    let both = text.clone()
        + &std::fs::read_to_string(out.join("pandora-lookahead.md")).unwrap()
        + &std::fs::read_to_string(out.join("pandora-sensitivity.md")).unwrap()
        + &std::fs::read_to_string(out.join("pandora-kernels.md")).unwrap()
        + &std::fs::read_to_string(out.join("pandora-stability.md")).unwrap();
    assert!(!outcome.verdicts.is_empty());
    for v in &outcome.verdicts {
        assert!(
            both.contains(&format!("| {} | {} |", v.claim, v.scope)),
            "{v}"
        );
        assert!(both.contains(&v.evidence), "{v}");
    }
    for rule in [
        "pbgi",
        "pbgi-d",
        "log-ei",
        "log-eipc",
        "log-eicc",
        "gp-ucb",
        "ts-psq",
        "random-search",
    ] {
        assert!(
            text.contains(&format!("| {rule} |")),
            "{rule} missing from the report"
        );
    }
    assert!(text.contains("## Verdicts"));
    assert!(out.join("figures/pandora-quick-fig4.png").exists());
    // The 1-D constructions (Figs. 2 and 9): their figures and a verdict row each.
    for fig in ["fig2", "fig9"] {
        assert!(out
            .join(format!("figures/pandora-quick-{fig}.png"))
            .exists());
    }
    assert!(text.contains("| Fig. 2 — paper") && text.contains("| Fig. 9 — paper"));
    // Fig. 6's smoke panel is Pest Control alone (Rust: no Python in CI), every rule of both
    // cost settings, as best values.
    assert!(text.contains("## Fig. 6: empirical problems"));
    assert!(text.contains("**Pest Control, d = 25, pest-control costs, budget 3**"));
    assert!(!text.contains("Lunar Lander, d = 12,"));
    assert!(out.join("figures/pandora-quick-fig6.png").exists());
    assert!(out
        .join("fig6/pest-control-d25-uniform/random-search/seed-1.csv")
        .exists());
    // Every job's trace is on disk; a second run runs nothing and writes the same report.
    let again = reproduce(&PandoraOptions {
        no_run: true,
        ..options.clone()
    })
    .unwrap();
    assert_eq!(std::fs::read_to_string(&again.written[0]).unwrap(), text);
    assert_eq!(again.verdicts, outcome.verdicts);
    // The lookahead comparison: its report and finals beside the main report, a row per run
    // whose regret is the trace's optimum minus its best value; with its traces deleted, the
    // finals alone rewrite the report byte for byte.
    let la = out.join("pandora-lookahead.md");
    assert!(outcome.written.contains(&la));
    let la_text = std::fs::read_to_string(&la).unwrap();
    let finals_text = std::fs::read_to_string(out.join("pandora-lookahead.finals.csv")).unwrap();
    let finals = lookahead::parse(&finals_text).unwrap();
    // 2 cells × 9 rules × 2 seeds.
    assert_eq!(finals.len(), 36);
    for rule in ["kg", "mes", "msei", "mfmes", "bmsei", "pbgi"] {
        assert!(la_text.contains(&format!("| {rule} | ")), "{rule}");
    }
    let kg = finals
        .iter()
        .find(|f| f.rule == "kg" && f.seed == 1)
        .unwrap();
    let trace =
        std::fs::read_to_string(out.join(format!("lookahead/{}/kg/seed-1.csv", kg.cell))).unwrap();
    let optimum: f64 = trace.split_whitespace().nth(2).unwrap().parse().unwrap();
    let last_best: f64 = trace
        .lines()
        .rfind(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap()
        .split(',')
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(kg.regret, optimum - last_best);
    assert_eq!(kg.decisions, 6);
    std::fs::remove_dir_all(out.join("lookahead")).unwrap();
    reproduce(&PandoraOptions {
        no_run: true,
        figures: Some(vec!["lookahead".into()]),
        ..options.clone()
    })
    .unwrap();
    assert_eq!(std::fs::read_to_string(&la).unwrap(), la_text);
    // A selection of the lookahead comparison alone leaves the main report untouched.
    assert_eq!(std::fs::read_to_string(&again.written[0]).unwrap(), text);
    // The sensitivity study: 11 settings × 2 seeds, each row's regrets the trace's at a tenth,
    // a quarter, a half and the whole of the budget (never rising), rewritten from the finals
    // alone once the traces are gone.
    let sens = out.join("pandora-sensitivity.md");
    assert!(outcome.written.contains(&sens));
    let sens_text = std::fs::read_to_string(&sens).unwrap();
    let finals = sensitivity::parse(
        &std::fs::read_to_string(out.join("pandora-sensitivity.finals.csv")).unwrap(),
    )
    .unwrap();
    assert_eq!(finals.len(), 22);
    for f in &finals {
        assert!(f.regret.windows(2).all(|w| w[0] >= w[1]), "{f:?}");
        assert!(
            sens_text.contains(&format!("| {} | ", f.rule)),
            "{}",
            f.rule
        );
    }
    let row = finals
        .iter()
        .find(|f| f.rule == "pbgi-d:0.0001:10" && f.seed == 1)
        .unwrap();
    let trace = std::fs::read_to_string(out.join(format!(
        "sensitivity/{}/pbgi-d_0.0001_10/seed-1.csv",
        row.cell
    )))
    .unwrap();
    // The trace: `# optimum O initial_best I`, a header, then `spent,y,best,seconds` per round.
    // Regret after spending c counts the rounds whose spending ended within c (the quick
    // budget is 20; the last round overshoots it).
    let head: Vec<&str> = trace.split_whitespace().collect();
    let (optimum, initial): (f64, f64) = (head[2].parse().unwrap(), head[4].parse().unwrap());
    let rounds: Vec<Vec<f64>> = trace
        .lines()
        .skip(2)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    for (k, fraction) in [0.1, 0.25, 0.5, 1.0].into_iter().enumerate() {
        let best = rounds
            .iter()
            .filter(|r| r[0] <= fraction * 20.0)
            .map(|r| r[1])
            .fold(initial, f64::max);
        assert_eq!(row.regret[k], optimum - best, "{k}");
    }
    assert!(rounds.last().unwrap()[0] > 20.0);
    std::fs::remove_dir_all(out.join("sensitivity")).unwrap();
    reproduce(&PandoraOptions {
        no_run: true,
        figures: Some(vec!["sensitivity".into()]),
        ..options.clone()
    })
    .unwrap();
    assert_eq!(std::fs::read_to_string(&sens).unwrap(), sens_text);
    assert_eq!(std::fs::read_to_string(&again.written[0]).unwrap(), text);
    // The kernel sweep (App. D.6): the squared exponential at κ = 0.5 in both cost settings,
    // 6 + 7 rules × 2 seeds; the objective is drawn with the model's lengthscale, so its
    // optimum differs from the catalogue's κ = 0.1 draw of the same seed; rewritten from the
    // finals alone.
    let kernels = out.join("pandora-kernels.md");
    assert!(outcome.written.contains(&kernels));
    let kernels_text = std::fs::read_to_string(&kernels).unwrap();
    let rows =
        finals::parse(&std::fs::read_to_string(out.join("pandora-kernels.finals.csv")).unwrap())
            .unwrap();
    assert_eq!(rows.len(), 26);
    assert!(kernels_text.contains("**App. D.6: gp-se, d = 2, uniform costs, budget 6**"));
    let wide: f64 =
        std::fs::read_to_string(out.join("kernels/d6-gp-se-l0.5-d2-uniform/pbgi/seed-1.csv"))
            .unwrap()
            .split_whitespace()
            .nth(2)
            .unwrap()
            .parse()
            .unwrap();
    let narrow = objectives::build(
        "gp-se",
        &Options {
            dim: Some(2),
            seed: Some(1),
        },
    )
    .unwrap()
    .optimum();
    assert!(wide.is_finite() && narrow.is_finite() && wide != narrow);
    std::fs::remove_dir_all(out.join("kernels")).unwrap();
    reproduce(&PandoraOptions {
        no_run: true,
        figures: Some(vec!["kernels".into()]),
        ..options.clone()
    })
    .unwrap();
    assert_eq!(std::fs::read_to_string(&kernels).unwrap(), kernels_text);
    // Runs the finals file holds are done: a run without their traces runs none of them.
    reproduce(&PandoraOptions {
        figures: Some(vec!["kernels".into()]),
        ..options.clone()
    })
    .unwrap();
    assert!(!out.join("kernels").exists());
    assert_eq!(std::fs::read_to_string(&kernels).unwrap(), kernels_text);
    let _ = std::fs::remove_dir_all(out);
}

/// The committed report `docs/results/<name>.md` and its discussion's section, beside its
/// finals.
fn committed(name: &str) -> (String, String, String) {
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/results");
    let csv = std::fs::read_to_string(docs.join(format!("{name}.finals.csv"))).unwrap();
    let md = std::fs::read_to_string(docs.join(format!("{name}.md"))).unwrap();
    let shown_as = format!("docs/results/{name}.discussion.md");
    let discussion = std::fs::read_to_string(docs.join(format!("{name}.discussion.md")))
        .map(|t| costbo_lab::reproduce::report::discussion_section(&shown_as, &t))
        .unwrap_or_default();
    (csv, md, discussion)
}

/// The committed lookahead report is what the committed finals give.
#[test]
fn lookahead_report_regenerates_from_the_committed_finals() {
    let (csv, md, discussion) = committed("pandora-lookahead");
    let (text, _) =
        lookahead::render(&lookahead::parse(&csv).unwrap(), false, 16, &discussion).unwrap();
    assert!(
        text == md,
        "docs/results/pandora-lookahead.md differs from its finals"
    );
}

/// The committed kernel sweep's report is what the committed finals give.
#[test]
fn kernels_report_regenerates_from_the_committed_finals() {
    let (csv, md, discussion) = committed("pandora-kernels");
    let (text, _) =
        costbo_lab::pandora::kernels::render(&finals::parse(&csv).unwrap(), false, 16, &discussion)
            .unwrap();
    assert!(
        text == md,
        "docs/results/pandora-kernels.md differs from its finals"
    );
}

/// The committed ablation's report is what the committed finals give.
#[test]
fn stability_report_regenerates_from_the_committed_finals() {
    let (csv, md, discussion) = committed("pandora-stability");
    let (text, _) = costbo_lab::pandora::stability::render(
        &finals::parse(&csv).unwrap(),
        false,
        16,
        &discussion,
    )
    .unwrap();
    assert!(
        text == md,
        "docs/results/pandora-stability.md differs from its finals"
    );
}

/// The committed sensitivity report is what the committed finals give.
#[test]
fn sensitivity_report_regenerates_from_the_committed_finals() {
    let (csv, md, discussion) = committed("pandora-sensitivity");
    let (text, _) = sensitivity::render(
        &sensitivity::parse(&csv).unwrap(),
        false,
        sensitivity::SEEDS,
        &discussion,
    )
    .unwrap();
    assert!(
        text == md,
        "docs/results/pandora-sensitivity.md differs from its finals"
    );
}

fn costbo(args: &[&str]) -> (bool, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_costbo"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Every objective `costbo objective list` offers runs in the box loop at its listed default
/// dimension (3, 5 and 6 were refused as "not compiled in").
#[test]
fn every_listed_objective_runs_at_its_default_dimension() {
    let (ok, list, err) = costbo(&["objective", "list"]);
    assert!(ok, "{err}");
    let mut ran = 0;
    for line in list.lines().skip(1) {
        let mut fields = line.split(',');
        let (name, dim) = (fields.next().unwrap(), fields.next().unwrap());
        let (ok, stdout, err) = costbo(&[
            "pandora",
            "--objective",
            name,
            "--rule",
            "random-search",
            "--budget",
            "2",
        ]);
        assert!(ok, "{name} at dimension {dim}: {err}");
        assert!(
            stdout.starts_with("round,spent,y,best,regret,decide_seconds\n1,"),
            "{name}: {stdout}"
        );
        ran += 1;
    }
    assert!(ran >= 20, "{list}");
}

#[test]
fn acq_commands_print_full_precision_values_and_refuse_bad_rows() {
    let dir = temp("acq");
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("p.csv");
    // mpmath (80 digits): the index at (0, 1, 1e-4) is 3.3630153259270826 (`docs/notes/seed-002.md` §2.4); at
    // (10, 1e-3, 1e-300) 10.036762417436687; σ = 0 gives mean − λc.
    std::fs::write(
        &p,
        "mean,std,lambda_cost\n0,1,1e-4\n10,1e-3,1e-300\n1,0,0.25\n",
    )
    .unwrap();
    let (ok, stdout, _) = costbo(&["acq", "pbgi", "--input", p.to_str().unwrap()]);
    assert!(ok);
    let v: Vec<&str> = stdout.lines().collect();
    assert_eq!(v[0], "index");
    let parse = |s: &str| s.parse::<f64>().unwrap();
    assert!((parse(v[1]) - 3.363_015_325_927_082_6).abs() < 1e-14);
    assert!((parse(v[2]) - 10.036_762_417_436_687).abs() < 1e-13);
    assert_eq!(parse(v[3]), 0.75);
    let l = dir.join("l.csv");
    // mpmath (400 digits): ln EI(0, 1; best 1000) = −500014.73445209116.
    std::fs::write(&l, "mean,std,best\n0,1,1000\n").unwrap();
    let (ok, stdout, _) = costbo(&["acq", "log-ei", "--input", l.to_str().unwrap()]);
    assert!(ok);
    let v: Vec<&str> = stdout.lines().collect();
    assert_eq!(v[0], "log_ei");
    assert!((parse(v[1]) + 500_014.734_452_091_16).abs() < 1e-9);
    // No improvement possible (σ = 0, mean below best): LogEI is −∞, refused rather than
    // printed as a value.
    std::fs::write(&l, "mean,std,best\n0,1,1000\n2,0,3\n").unwrap();
    let (ok, stdout, stderr) = costbo(&["acq", "log-ei", "--input", l.to_str().unwrap()]);
    assert!(!ok && stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("row 2: LogEI is -inf"), "{stderr}");
    let bad = dir.join("b.csv");
    std::fs::write(&bad, "mean,std,lambda_cost\n0,1,-1\n").unwrap();
    let (ok, stdout, stderr) = costbo(&["acq", "pbgi", "--input", bad.to_str().unwrap()]);
    assert!(!ok && stdout.is_empty());
    assert_eq!(stderr.lines().count(), 1);
    assert!(
        stderr.contains("row 1: lambda_cost is not positive"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
