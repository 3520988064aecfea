//! `costbo reproduce`: the verdicts on synthetic result tables, the figure files, and both
//! smoke grids end to end.

use std::path::{Path, PathBuf};

use costbo_lab::plot::{Curve, Figure, Panel, PlotError};
use costbo_lab::reproduce::cvs::{self, UcbCvs};
use costbo_lab::reproduce::unknown_cost::{self, UnknownCost};
use costbo_lab::reproduce::verdict::{self, Row, Status, Table};
use costbo_lab::reproduce::{reproduce, study, ReproduceOptions, RunnerStudy, STUDIES};

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("costbo-repro-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn row(objective: &str, costs: &str, variance: f64, algorithm: &str, regret: f64) -> Row {
    Row {
        objective: objective.into(),
        has_full_set: objective != "airfoil",
        costs: costs.into(),
        variance,
        algorithm: algorithm.into(),
        budget: 50.0,
        seeds: 10,
        mean_regret: regret,
        stderr_regret: 0.01,
        mean_rounds: 50.0,
        cheap_share: 0.0,
        cheapest_optimal_share: 0.0,
        cheaper_optimal_set: true,
    }
}

/// A paper-000 table where, in every setting, the ETC variants end at `etc` and the PSQ
/// baselines at `psq`.
fn table_000(costs: &[&str], objective: &str, etc: f64, psq: f64) -> Table {
    let mut rows = Vec::new();
    for c in costs {
        for v in [0.02, 0.04, 0.08] {
            for a in ["ts-psq", "ucb-psq"] {
                rows.push(row(objective, c, v, a, psq));
            }
            for a in ["etc-50", "etc-100", "etc-ada"] {
                rows.push(row(objective, c, v, a, etc));
            }
        }
    }
    Table {
        rows,
        ..Table::default()
    }
}

fn status_of(verdicts: &[verdict::Verdict], id: &str) -> Status {
    verdicts
        .iter()
        .find(|v| v.id == id)
        .unwrap_or_else(|| panic!("no verdict {id}"))
        .status
}

#[test]
fn status_thresholds() {
    assert_eq!(verdict::status(0, 0), Status::Inconclusive);
    assert_eq!(verdict::status(2, 3), Status::Supported);
    assert_eq!(verdict::status(1, 3), Status::NotSupported);
    assert_eq!(verdict::status(1, 2), Status::Partly);
}

#[test]
fn etc_beating_psq_under_cheap_costs_supports_claim_1_and_the_reverse_does_not() {
    let good = table_000(&["cheap", "moderate"], "hartmann3", 0.1, 0.5);
    let v = cvs::verdicts(&good);
    assert_eq!(status_of(&v, "000-1"), Status::Supported);
    let bad = table_000(&["cheap", "moderate"], "hartmann3", 0.5, 0.1);
    assert_eq!(
        status_of(&cvs::verdicts(&bad), "000-1"),
        Status::NotSupported
    );
    // Claim 1 is about objectives with a full set: airfoil alone says nothing about it.
    let airfoil = table_000(&["cheap"], "airfoil", 0.1, 0.5);
    assert_eq!(
        status_of(&cvs::verdicts(&airfoil), "000-1"),
        Status::Inconclusive
    );
}

#[test]
fn one_seed_is_not_enough_to_judge_unless_asked() {
    let mut t = table_000(&["cheap"], "hartmann3", 0.1, 0.5);
    for r in &mut t.rows {
        r.seeds = 1;
    }
    assert_eq!(status_of(&cvs::verdicts(&t), "000-1"), Status::Inconclusive);
    t.min_seeds = 1;
    assert_eq!(status_of(&cvs::verdicts(&t), "000-1"), Status::Supported);
}

#[test]
fn airfoil_claim_follows_the_psq_baselines() {
    let psq_better = table_000(&["cheap", "moderate"], "airfoil", 0.5, 0.1);
    assert_eq!(
        status_of(&cvs::verdicts(&psq_better), "000-3"),
        Status::Supported
    );
    let etc_better = table_000(&["cheap", "moderate"], "airfoil", 0.1, 0.5);
    assert_eq!(
        status_of(&cvs::verdicts(&etc_better), "000-3"),
        Status::NotSupported
    );
}

#[test]
fn expensive_costs_split_ada_from_the_fixed_variants() {
    let mut t = table_000(&["expensive"], "plant", 0.3, 0.2);
    for r in t.rows.iter_mut().filter(|r| r.algorithm == "etc-ada") {
        r.mean_regret = 0.2;
    }
    let v = cvs::verdicts(&t);
    assert_eq!(status_of(&v, "000-2a"), Status::Supported);
    assert_eq!(status_of(&v, "000-2b"), Status::Supported);
    // ETC-50 ahead of the baselines by 10 standard errors: a disagreement, and a clear one.
    let mut ahead = t.clone();
    for r in ahead.rows.iter_mut().filter(|r| r.algorithm == "etc-50") {
        r.mean_regret = 0.05;
    }
    let v = cvs::verdicts(&ahead);
    let b = v.iter().find(|v| v.id == "000-2b").unwrap();
    assert_eq!(b.status, Status::Partly);
    assert!(
        b.evidence.contains("Of the 3 that disagree, 3 end lower"),
        "{}",
        b.evidence
    );
    assert!(b
        .evidence
        .contains("plant/expensive/0.04: best PSQ 0.200, etc-50 0.050, etc-100 0.300"));
    // ETC-Ada far behind: not competitive.
    for r in t.rows.iter_mut().filter(|r| r.algorithm == "etc-ada") {
        r.mean_regret = 1.0;
    }
    assert_eq!(
        status_of(&cvs::verdicts(&t), "000-2a"),
        Status::NotSupported
    );
}

#[test]
fn shrinking_advantage_and_variance_effect() {
    let mut t = table_000(&["cheap", "moderate", "expensive"], "hartmann3", 0.0, 1.0);
    for r in &mut t.rows {
        if r.algorithm.starts_with("etc") {
            r.mean_regret = match r.costs.as_str() {
                "cheap" => 0.1,
                "moderate" => 0.5,
                _ => 0.9,
            };
            // Make a different variance win per algorithm.
            let winner = [("etc-50", 0.02), ("etc-100", 0.04), ("etc-ada", 0.08)];
            if winner.contains(&(r.algorithm.as_str(), r.variance)) {
                r.mean_regret -= 0.05;
            }
        }
    }
    let v = cvs::verdicts(&t);
    assert_eq!(status_of(&v, "000-1b"), Status::Supported);
    assert_eq!(status_of(&v, "000-4"), Status::Supported);
    // One variance winning everywhere is a uniform effect, not a problem-dependent one.
    for r in &mut t.rows {
        if r.variance == 0.08 {
            r.mean_regret -= 0.2;
        }
    }
    assert_eq!(status_of(&cvs::verdicts(&t), "000-4"), Status::NotSupported);
}

#[test]
fn per_unit_cost_variants_are_compared_at_their_own_budget() {
    let mut t = Table::default();
    for v in [0.02, 0.04] {
        t.rows.push(row("gp-sample", "moderate", v, "etc-ada", 0.1));
        t.rows
            .push(row("gp-sample", "moderate", v, "ts-per-cost", 0.4));
        t.rows
            .push(row("gp-sample", "moderate", v, "ucb-per-cost", 0.5));
        // EI ran only to budget 5; ETC-Ada at 5 had regret 0.9 and spent all on cheap sets.
        let mut ei = row("gp-sample", "moderate", v, "ei-per-cost", 0.6);
        ei.budget = 5.0;
        ei.cheap_share = 0.0;
        let mut ada5 = row("gp-sample", "moderate", v, "etc-ada", 0.9);
        ada5.budget = 5.0;
        ada5.cheap_share = 1.0;
        t.rows.push(ei);
        t.rows.push(ada5);
    }
    let v = cvs::verdicts(&t);
    // TS and UCB per cost lose to ETC-Ada (4 of 6), EI per cost beats it at budget 5 (2 of 6).
    let b1 = v.iter().find(|v| v.id == "000-B1").unwrap();
    assert!(b1.evidence.starts_with("4 of 6"), "{}", b1.evidence);
    assert_eq!(b1.status, Status::Supported);
    assert_eq!(status_of(&v, "000-B2"), Status::Supported);
}

#[test]
fn unknown_cost_claims() {
    let mut t = Table::default();
    for v in [0.02, 0.04] {
        let mut ours = row("hartmann6-ext12", "cheap", v, "unknown-cost", 0.1);
        ours.mean_rounds = 400.0;
        ours.cheapest_optimal_share = 0.5;
        t.rows.push(ours);
        for b in ["ts-psq", "ucb-psq", "etc-50"] {
            let mut r = row("hartmann6-ext12", "cheap", v, b, 0.3);
            r.mean_rounds = 100.0;
            r.cheapest_optimal_share = 0.0;
            t.rows.push(r);
        }
    }
    let v = unknown_cost::verdicts(&t);
    for id in ["001-1", "001-2", "001-3"] {
        assert_eq!(status_of(&v, id), Status::Supported, "{id}");
    }
    for r in t.rows.iter_mut().filter(|r| r.algorithm == "unknown-cost") {
        r.mean_regret = 0.5;
        r.mean_rounds = 110.0;
    }
    let v = unknown_cost::verdicts(&t);
    assert_eq!(status_of(&v, "001-1"), Status::NotSupported);
    assert_eq!(status_of(&v, "001-2"), Status::NotSupported);
    // When the only optimal set is the most expensive one (plant), there is no cheaper
    // optimum to spend on: claim 001-3 has nothing to compare, whatever the shares.
    for r in &mut t.rows {
        r.cheaper_optimal_set = false;
    }
    assert_eq!(
        status_of(&unknown_cost::verdicts(&t), "001-3"),
        Status::Inconclusive
    );
}

fn figure(panels: usize) -> Figure {
    let x: Vec<f64> = (1..=50).map(|i| i as f64).collect();
    let curve = |label: &str, scale: f64| Curve {
        label: label.into(),
        mean: x.iter().map(|v| scale / v).collect(),
        stderr: x.iter().map(|v| 0.1 * scale / v).collect(),
        x: x.clone(),
        marker: Some(20.0),
        band: None,
    };
    Figure {
        title: "test figure".into(),
        rows: 2,
        cols: 2,
        panels: (0..panels)
            .map(|i| Panel {
                title: format!("panel {i}"),
                curves: vec![curve("a", 1.0), curve("b", 2.0)],
            })
            .collect(),
        x_label: "budget spent".into(),
        y_label: "simple regret".into(),
        panel_width: 300,
        panel_height: 220,
    }
}

fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    (be(16), be(20))
}

#[test]
fn figures_are_written_as_png_and_svg() {
    let dir = fresh_dir("plot");
    std::fs::create_dir_all(&dir).unwrap();
    let f = figure(4);
    let (png, svg) = (dir.join("f.png"), dir.join("f.svg"));
    f.write_png(&png).unwrap();
    f.write_svg(&svg).unwrap();
    assert_eq!(png_size(&png), f.size());
    assert_eq!(f.size().0, 600);
    // Curves, bands and text make a PNG far larger than a blank image of this size.
    assert!(std::fs::metadata(&png).unwrap().len() > 10_000);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert!(text.contains("<polyline") && text.contains("<polygon"));
    assert!(text.contains("panel 3") && text.contains("simple regret"));
}

#[test]
fn bad_figures_are_refused_with_a_typed_error() {
    let dir = fresh_dir("plot-bad");
    std::fs::create_dir_all(&dir).unwrap();
    let too_many = Figure {
        panels: figure(5).panels,
        ..figure(4)
    };
    assert!(matches!(
        too_many.write_png(&dir.join("x.png")),
        Err(PlotError::Layout(_))
    ));
    let mut ragged = figure(1);
    ragged.panels[0].curves[0].mean.pop();
    assert!(matches!(
        ragged.write_svg(&dir.join("x.svg")),
        Err(PlotError::BadCurve(_))
    ));
    let mut nan = figure(1);
    nan.panels[0].curves[0].mean[3] = f64::NAN;
    assert!(matches!(
        nan.write_png(&dir.join("x.png")),
        Err(PlotError::BadCurve(_))
    ));
    assert!(matches!(
        figure(1).write_png(&dir.join("no/such/dir/x.png")),
        Err(PlotError::Backend(_))
    ));
}

fn quick(study: &'static dyn RunnerStudy, name: &str) -> (PathBuf, costbo_lab::reproduce::Outcome) {
    let out = fresh_dir(name);
    let options = ReproduceOptions {
        study,
        quick: true,
        seeds: 2,
        objectives: None,
        report: out.join(format!("{}.md", study.name())),
        out: out.clone(),
        jobs: 2,
        run: true,
        min_seeds: 2,
        progress: false,
    };
    let outcome = reproduce(&options).unwrap();
    // Resumable: a second invocation runs nothing and writes the same report.
    let first = std::fs::read_to_string(&options.report).unwrap();
    let again = reproduce(&ReproduceOptions {
        run: false,
        ..options.clone()
    })
    .unwrap();
    let second = std::fs::read_to_string(&options.report).unwrap();
    let strip = |s: &str| {
        s.lines()
            // The invocation's flags and its wall time differ; everything else must not.
            .filter(|l| !l.contains("this invocation took") && !l.starts_with("Generated by"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&first), strip(&second));
    assert_eq!(again.verdicts, outcome.verdicts);
    (out, outcome)
}

fn check_report(out: &Path, study: &dyn RunnerStudy, figures: usize) {
    let md = std::fs::read_to_string(out.join(format!("{}.md", study.name()))).unwrap();
    assert!(md.contains("## Final simple regret") && md.contains("## Headline claims"));
    // Every part that ran says how long its jobs took from first start to last end.
    let parts = md.lines().filter(|l| l.starts_with("- `")).count();
    let spans = md
        .lines()
        .filter(|l| l.contains("from the first start to the last end"))
        .count();
    assert!(
        parts > 0 && spans == parts,
        "{parts} parts, {spans} spans:\n{md}"
    );
    let pngs: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("![") && l.ends_with(".png)"))
        .collect();
    assert_eq!(pngs.len(), figures, "{md}");
    for l in pngs {
        let rel = &l[l.rfind('(').unwrap() + 1..l.len() - 1];
        let (w, h) = png_size(&out.join(rel));
        assert!(w >= 300 && h >= 300);
        assert!(out.join(rel.replace(".png", ".svg")).exists());
    }
}

#[test]
fn ucb_cvs_quick_runs_end_to_end() {
    let (out, outcome) = quick(&UcbCvs, "ucb-cvs");
    assert_eq!(outcome.parts.len(), 2);
    assert!(outcome.parts.iter().all(|p| p.failed.is_empty()));
    // Every paper-000 claim has a line, computed (some inconclusive on the smoke grid).
    let ids: Vec<&str> = outcome.verdicts.iter().map(|v| v.id.as_str()).collect();
    assert_eq!(
        ids,
        ["000-1", "000-1b", "000-2a", "000-2b", "000-3", "000-4", "000-B1", "000-B2"]
    );
    // One regret figure for the objective and the appendix figure.
    check_report(&out, &UcbCvs, 2);
}

#[test]
fn unknown_cost_quick_runs_end_to_end() {
    let (out, outcome) = quick(&UnknownCost, "unknown-cost");
    let ids: Vec<&str> = outcome.verdicts.iter().map(|v| v.id.as_str()).collect();
    assert_eq!(ids, ["001-1", "001-2", "001-3"]);
    // Regret and evaluations for the one objective.
    check_report(&out, &UnknownCost, 2);
    // A hand-written discussion beside the report is appended when it is regenerated.
    let report = out.join("unknown-cost.md");
    let before = std::fs::read_to_string(&report).unwrap();
    assert!(!before.contains("## Discussion"));
    std::fs::write(
        out.join("unknown-cost.discussion.md"),
        "Why claim 2 fails: a reason.\n",
    )
    .unwrap();
    reproduce(&ReproduceOptions {
        study: &UnknownCost,
        quick: true,
        seeds: 2,
        objectives: None,
        report: report.clone(),
        out: out.clone(),
        jobs: 1,
        run: false,
        min_seeds: 2,
        progress: false,
    })
    .unwrap();
    let after = std::fs::read_to_string(&report).unwrap();
    let tail = after.split("\n## Discussion\n").nth(1).unwrap();
    assert!(
        tail.trim_end().ends_with("Why claim 2 fails: a reason."),
        "{tail}"
    );
}

#[test]
fn unknown_objective_filter_is_an_error() {
    let out = fresh_dir("filter");
    let options = ReproduceOptions {
        study: &UcbCvs,
        quick: true,
        seeds: 2,
        objectives: Some(vec!["no-such".into()]),
        report: out.join("r.md"),
        out,
        jobs: 1,
        run: false,
        min_seeds: 2,
        progress: false,
    };
    let e = reproduce(&options).unwrap_err();
    assert!(e.contains("no-such"), "{e}");
}

/// The registry names every study once, finds each by its name, and knows no other; each
/// study's report file stem is its name.
#[test]
fn studies_are_registered_by_name() {
    let names: Vec<&str> = STUDIES.iter().map(|s| s.name()).collect();
    assert_eq!(names, ["ucb-cvs", "unknown-cost"]);
    for s in STUDIES {
        assert_eq!(study(s.name()).map(|f| f.name()), Some(s.name()));
        assert!(!s.help().is_empty() && s.paper_seeds() > 0);
    }
    assert!(study("no-such").is_none());
}

mod variants {
    use std::path::PathBuf;

    use costbo_lab::variants::{
        self, from_csv, plan, read_baselines, report, to_csv, Role, SeedRow, VariantOptions,
        VariantStudy, STUDIES,
    };

    fn committed() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/results/variants")
    }

    /// The committed reports are what `costbo reproduce variants --no-run` writes from the
    /// committed per-seed files, byte for byte (with no runner output to gather from).
    #[test]
    fn reports_regenerate_from_the_committed_per_seed_files() {
        let docs = super::fresh_dir("variants-docs");
        std::fs::create_dir_all(&docs).unwrap();
        for e in std::fs::read_dir(committed()).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), docs.join(e.file_name())).unwrap();
        }
        let written = variants::reproduce(&VariantOptions {
            out: docs.join("no-runs-here"),
            docs: docs.clone(),
            jobs: 1,
            run: false,
            progress: false,
            only: Vec::new(),
        })
        .unwrap();
        assert_eq!(written.len(), STUDIES.len() + 1);
        let names = STUDIES.iter().map(|s| s.name()).chain(["demo"]);
        for name in names {
            let name = format!("{name}.md");
            let ours = std::fs::read_to_string(docs.join(&name)).unwrap();
            let theirs = std::fs::read_to_string(committed().join(&name)).unwrap();
            assert!(
                ours == theirs,
                "{name} differs from what its per-seed file gives"
            );
        }
        std::fs::remove_dir_all(&docs).unwrap();
    }

    /// On a machine without the runner's output, a run takes the committed per-seed rows as
    /// done: with the demo's 960 runs committed it runs none (it would write `<out>/demo`)
    /// and rewrites nothing but the same report.
    #[test]
    fn committed_runs_are_not_run_again() {
        let docs = super::fresh_dir("variants-resume");
        std::fs::create_dir_all(&docs).unwrap();
        for e in std::fs::read_dir(committed()).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), docs.join(e.file_name())).unwrap();
        }
        let out = docs.join("out");
        variants::reproduce(&VariantOptions {
            out: out.clone(),
            docs: docs.clone(),
            jobs: 1,
            run: true,
            progress: false,
            only: vec!["demo".into()],
        })
        .unwrap();
        assert!(!out.join("demo").exists(), "committed demo runs ran again");
        for name in ["demo.csv", "demo.md"] {
            let ours = std::fs::read_to_string(docs.join(name)).unwrap();
            let theirs = std::fs::read_to_string(committed().join(name)).unwrap();
            assert!(ours == theirs, "{name} changed");
        }
        std::fs::remove_dir_all(&docs).unwrap();
    }

    fn seed_rows(cell: &str, algorithm: &str, role: Role, regrets: &[f64]) -> Vec<SeedRow> {
        regrets
            .iter()
            .enumerate()
            .map(|(i, &r)| SeedRow {
                cell: cell.into(),
                seed: 10 + i as u64,
                algorithm: algorithm.into(),
                origin: if role == Role::Baseline {
                    "paper"
                } else {
                    "ours"
                },
                role,
                final_simple_regret: r,
                rounds: 50,
                cpu_seconds: Some(1.25),
            })
            .collect()
    }

    /// The headline table's line of `cell` (whose paper's best is ETC-100) with 20 seeds.
    fn etc_100_line<'a>(md: &'a str, cell: &str) -> &'a str {
        md.lines()
            .find(|l| l.starts_with(&format!("| {cell} | etc-100 | etc-100 | 20 |")))
            .unwrap()
    }

    /// Lower on all 20 seeds by more than the noise: the exact two-sided p-value is
    /// 2 / 2^20, alone in its table so Holm leaves it, a win; regrets within the noise of each
    /// other are ties, never a win, whatever their ratio.
    #[test]
    fn wins_ties_and_the_criterion_from_per_seed_rows() {
        let study = VariantStudy::UcbCvs;
        let baselines = read_baselines(&committed(), study).unwrap();
        let planned = plan(study, &baselines);
        let b = baselines
            .iter()
            .find(|b| b.baseline == "etc-100")
            .expect("a cell whose paper's best is ETC-100");
        let better: Vec<f64> = (0..20).map(|i| 0.1 + 0.001 * i as f64).collect();
        let worse: Vec<f64> = (0..20).map(|i| 0.5 + 0.01 * i as f64).collect();
        let mut rows = seed_rows(&b.cell(), "etc-100", Role::Baseline, &worse);
        rows.extend(seed_rows(
            &b.cell(),
            "etc-ada+fitted",
            Role::Variant,
            &better,
        ));
        let md = report::render(study, &planned, &baselines, &rows, None).unwrap();
        let line = etc_100_line(&md, &b.cell());
        assert!(
            line.contains("| 20 / 0 / 0 |") && line.ends_with("| **win** |"),
            "{line}"
        );
        assert!(
            line.contains(&format!("| {:.1e} |", 2.0 / 1048576.0)),
            "{line}"
        );
        assert!(
            md.contains("**1 win and 0 losses** (Holm-significant) in 1 cell compared"),
            "{md}"
        );
        assert!(md.contains("not decided: the run is not complete"));

        // 0.0004 against 0.0080: twenty-fold, but both within the noise.
        let mut rows = seed_rows(&b.cell(), "etc-100", Role::Baseline, &[0.008; 20]);
        rows.extend(seed_rows(
            &b.cell(),
            "etc-ada+fitted",
            Role::Variant,
            &[0.0004; 20],
        ));
        let md = report::render(study, &planned, &baselines, &rows, None).unwrap();
        let line = etc_100_line(&md, &b.cell());
        assert!(
            line.contains("| 0 / 20 / 0 | 1.00 [1.00, 1.00] | 1.0000 | 1.0000 | – |"),
            "{line}"
        );
    }

    /// Before the run ends the goal is out of reach once the finished cells that are not wins
    /// leave fewer cells than the wins it asks: 19 finished ties of paper 000's 36 leave 17.
    #[test]
    fn the_criterion_fails_early_when_too_few_cells_can_still_win() {
        let study = VariantStudy::UcbCvs;
        let baselines = read_baselines(&committed(), study).unwrap();
        let planned = plan(study, &baselines);
        let mut rows = Vec::new();
        for b in baselines
            .iter()
            .filter(|b| b.baseline != "etc-ada")
            .take(19)
        {
            rows.extend(seed_rows(
                &b.cell(),
                &b.baseline,
                Role::Baseline,
                &[0.5; 20],
            ));
            rows.extend(seed_rows(
                &b.cell(),
                "etc-ada+fitted",
                Role::Variant,
                &[0.5; 20],
            ));
        }
        assert_eq!(rows.len(), 19 * 40);
        let md = report::render(study, &planned, &baselines, &rows, None).unwrap();
        assert!(
            md.contains("**not met**: at most 17 wins are still possible, since the 19"),
            "{md}"
        );
        // With 18 such cells, 18 wins are still possible: not decided.
        let rows: Vec<SeedRow> = rows.into_iter().take(18 * 40).collect();
        let md = report::render(study, &planned, &baselines, &rows, None).unwrap();
        assert!(md.contains("not decided: the run is not complete"), "{md}");
    }

    #[test]
    fn per_seed_files_round_trip_and_refuse_damage() {
        let rows = seed_rows(
            "hartmann3_expensive_v0.04",
            "etc-ada",
            Role::Baseline,
            &[0.25, 1e-9],
        );
        let text = to_csv(&rows);
        assert_eq!(from_csv(&text).unwrap(), rows);
        for (bad, why) in [
            ("cell,seed\n", "header"),
            ("x,1,a,paper,baseline,0.5,3\n", "8 fields"),
            ("x,1,a,theirs,baseline,0.5,3,\n", "origin"),
            ("x,1,a,ours,winner,0.5,3,\n", "role"),
            ("x,1,a,ours,variant,NaN,3,\n", "final_simple_regret"),
            ("x,1,a,ours,variant,inf,3,\n", "not finite"),
            ("x,-1,a,ours,variant,0.5,3,\n", "seed"),
        ] {
            let text = if why == "header" {
                bad.to_string()
            } else {
                format!("{}\n{bad}", variants::CSV_HEADER)
            };
            let e = from_csv(&text).unwrap_err();
            assert!(e.contains(why), "{bad:?}: {e}");
        }
    }

    #[test]
    fn demo_rows_round_trip_and_unplanned_rows_are_refused() {
        use costbo_lab::variants::demo::{self, DemoRow};
        let plan = demo::plan();
        // 3 contenders × 5 β × 20 tuning seeds, 3 × 100 held out, 9 settings × 2 × 20, the
        // candidate and ours on the 20 tuning seeds and the 100 test seeds.
        assert_eq!(plan.len(), 300 + 300 + 360 + 40 + 200);
        let rows: Vec<DemoRow> = plan[..3]
            .iter()
            .chain(&plan[700..701])
            .map(|job| DemoRow {
                job: job.clone(),
                share_of_best: 0.987654321,
                rounds: 212,
            })
            .collect();
        let text = demo::to_csv(&rows);
        assert_eq!(demo::from_csv(&text).unwrap(), rows);
        for (bad, why) in [
            ("tuning,ours,3,moderate,0.04,1,0.5,200", "not a planned run"),
            (
                "tuning,ours,2,moderate,0.04,999,0.5,200",
                "not a planned run",
            ),
            ("tuning,ours,2,moderate,0.04,1,NaN,200", "not finite"),
            ("tuning,ours,2,moderate,0.04,1,0.5", "8 fields"),
        ] {
            let e = demo::from_csv(&format!("{}\n{bad}\n", demo::CSV_HEADER)).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
