//! `costbo reproduce costly-feedback`: the quick grid runs end to end and writes the report,
//! the figure and JSON rows of the schema; the committed full JSON has Table A2 in
//! full and satisfies the properties any honest run must (queries of the Bernoulli rows near
//! p·T, full feedback paying every round, CE's queries growing with κ), checked from the JSON;
//! and the committed report and JSON regenerate byte for byte from the committed per-trial
//! file.

use std::path::PathBuf;

use costbo_lab::feedback::study::{reproduce, FeedbackOptions, EPSILONS, KAPPAS, LENGTHSCALE, PS};
use serde_json::Value;

const METHODS: [&str; 20] = [
    "tv-gp-ucb",
    "r-gp-ucb",
    "ber",
    "ce",
    "ce-lcb-ucb",
    "pi-ber",
    "ei-ber",
    "exp3s",
    "epsilon-greedy",
    "softmax",
    "ucb1",
    "exp3r",
    "gp-ucb",
    "ce-gp-ucb",
    "ce-stationary",
    "ce-stationary-lcb-ucb",
    "ce-maxima",
    "ce-maxima-lcb-ucb",
    "gp-ucb-rbf",
    "ce-gp-ucb-rbf",
];
const EXPERIMENTS: [&str; 4] = [
    "synthetic",
    "bandit-sine",
    "bandit-gaussian",
    "bandit-piecewise",
];

/// The experiments of the changed settings: one unstated setting changed in each.
const SENSITIVITY: [&str; 6] = [
    "sensitivity-lengthscale-half",
    "sensitivity-lengthscale-double",
    "sensitivity-beta-0.4",
    "sensitivity-beta-1.6",
    "sensitivity-period-half",
    "sensitivity-period-double",
];

fn check_schema(rows: &[Value]) {
    for r in rows {
        let o = r.as_object().expect("row is an object");
        let experiment = o["experiment"].as_str().unwrap();
        assert!(
            EXPERIMENTS.contains(&experiment) || SENSITIVITY.contains(&experiment),
            "{r}"
        );
        assert!(METHODS.contains(&o["method"].as_str().unwrap()), "{r}");
        for k in ["epsilon", "kappa", "p"] {
            assert!(o[k].is_null() || o[k].is_f64(), "{k} in {r}");
        }
        assert!(o["trials"].as_u64().unwrap() >= 1);
        for k in [
            "regret_per_round_mean",
            "regret_per_round_std",
            "queries_mean",
            "queries_std",
        ] {
            let v = o[k].as_f64().unwrap_or(f64::NAN);
            assert!(v.is_finite() && v >= 0.0, "{k} in {r}");
        }
    }
    for e in EXPERIMENTS.iter().chain(&SENSITIVITY) {
        assert!(rows.iter().any(|r| r["experiment"] == *e), "no {e} rows");
    }
}

#[test]
fn the_quick_study_writes_report_figure_and_json() {
    let dir = std::env::temp_dir().join(format!("costbo-cf-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = FeedbackOptions {
        quick: true,
        trials: 2,
        jobs: 2,
        out: dir.clone(),
        report: dir.join("costly-feedback.md"),
        json: dir.join("costly-feedback.json"),
        no_run: false,
        lengthscale: LENGTHSCALE,
        progress: false,
    };
    let outcome = reproduce(&options).unwrap();
    let written = &outcome.written;
    assert!(written.iter().all(|p| p.exists()), "{written:?}");
    let md = std::fs::read_to_string(dir.join("costly-feedback.md")).unwrap();
    for heading in [
        "## Table A2",
        "## Fig. 1",
        "## Table A1",
        "## The STN / SimCLR analogue",
        "## Verdicts",
    ] {
        assert!(md.contains(heading), "missing {heading}");
    }
    let rows = rows_of(&dir.join("costly-feedback.json"));
    check_schema(&rows);
    // A rerun resumes: nothing is recomputed and the rows are identical.
    let again = reproduce(&options).unwrap();
    assert_eq!(written, &again.written);
    assert_eq!(outcome.verdicts, again.verdicts);
    // The verdicts handed back are the report's: the three claims, claim 3 also on the
    // paper's fitted model (the quick grid has no ε ≥ 0.01 row for Table A2's observation and
    // no κ = 0.99 for the LCB–UCB one), each in it with its evidence.
    let ids: Vec<&str> = outcome.verdicts.iter().map(|v| v.id.as_str()).collect();
    assert_eq!(ids, ["003-1", "003-2", "003-3", "003-3-rbf"]);
    for v in &outcome.verdicts {
        assert!(md.contains(&format!("**{}**: ", v.claim)), "{v}");
        assert!(md.contains(&v.evidence), "{v}");
    }
    let rows2 = rows_of(&dir.join("costly-feedback.json"));
    assert_eq!(rows, rows2);
    // The JSON's verdict counts are the verdicts', split by model.
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("costly-feedback.json")).unwrap())
            .unwrap();
    let counts = summary["verdict_counts"].as_array().unwrap();
    assert_eq!(counts.len(), 2);
    let total: u64 = counts
        .iter()
        .flat_map(|c| ["supported", "partly", "not_supported", "not_tested"].map(|k| &c[k]))
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(total as usize, outcome.verdicts.len());
    let fitted: u64 = ["supported", "partly", "not_supported", "not_tested"]
        .iter()
        .map(|k| counts[1][*k].as_u64().unwrap())
        .sum();
    assert_eq!(fitted, 1, "claim 3 on the paper's fitted model");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The table rows of a JSON summary (its `rows`).
fn rows_of(path: &std::path::Path) -> Vec<Value> {
    let summary: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    summary["rows"].as_array().unwrap().clone()
}

fn committed() -> Vec<Value> {
    rows_of(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/results/costly-feedback.json"),
    )
}

fn synthetic<'a>(
    rows: &'a [Value],
    eps: f64,
    method: &str,
    kappa: Option<f64>,
    p: Option<f64>,
) -> &'a Value {
    rows.iter()
        .find(|r| {
            r["experiment"] == "synthetic"
                && r["method"] == method
                && r["epsilon"].as_f64() == Some(eps)
                && r["kappa"].as_f64() == kappa
                && r["p"].as_f64() == p
        })
        .unwrap_or_else(|| panic!("no {method} κ {kappa:?} p {p:?} at ε {eps}"))
}

#[test]
fn the_committed_json_has_table_a2_in_full_and_its_counts_are_consistent() {
    let rows = committed();
    check_schema(&rows);
    for eps in EPSILONS {
        let full = synthetic(&rows, eps, "tv-gp-ucb", None, None);
        assert_eq!(full["trials"], 50);
        assert_eq!(
            full["queries_mean"], 500.0,
            "full feedback pays every round"
        );
        assert_eq!(
            synthetic(&rows, eps, "r-gp-ucb", None, None)["queries_mean"],
            500.0
        );
        synthetic(&rows, eps, "ce-lcb-ucb", None, None);
        for p in PS {
            // Queries of Ber(p): binomial(500, p) averaged over 50 trials, within 5 s.e.
            let q = synthetic(&rows, eps, "ber", None, Some(p))["queries_mean"]
                .as_f64()
                .unwrap();
            let se = (500.0 * p * (1.0 - p) / 50.0f64).sqrt();
            assert!((q - 500.0 * p).abs() < 5.0 * se, "Ber({p}) at ε {eps}: {q}");
        }
        // Every changed setting has its rows at every ε: a changed period R-GP-UCB's alone,
        // a changed lengthscale or β the rows the verdicts read.
        for change in SENSITIVITY {
            let of = |method: &str| {
                rows.iter()
                    .filter(|r| {
                        r["experiment"] == change
                            && r["method"] == method
                            && r["epsilon"].as_f64() == Some(eps)
                    })
                    .count()
            };
            assert_eq!(of("r-gp-ucb"), 1, "{change} ε {eps}");
            let (full, ber, ce, lcb) = (of("tv-gp-ucb"), of("ber"), of("ce"), of("ce-lcb-ucb"));
            if change.starts_with("sensitivity-period") {
                assert_eq!((full, ber, ce, lcb), (0, 0, 0, 0), "{change} ε {eps}");
            } else {
                assert_eq!(
                    (full, ber, ce, lcb),
                    (1, PS.len(), KAPPAS.len(), 1),
                    "{change} ε {eps}"
                );
            }
        }
        synthetic(&rows, eps, "ce-stationary-lcb-ucb", None, None);
        synthetic(&rows, eps, "ce-maxima-lcb-ucb", None, None);
        let mut last = 0.0;
        for k in KAPPAS {
            let q = synthetic(&rows, eps, "ce", Some(k), None)["queries_mean"]
                .as_f64()
                .unwrap();
            assert!(
                q >= last,
                "CE queries fall from {last} to {q} at κ {k}, ε {eps}"
            );
            last = q;
        }
    }
}

/// `docs/results/costly-feedback.md` and `.json` are what the study writes from the committed
/// per-trial file alone (`costly-feedback.finals.csv`: every synthetic trial's R_T/T and C_T
/// per method), with no trial run: the synthetic rows come from the file; the bandit,
/// tuning and query-count sections are recomputed (seeded, a few seconds).
#[test]
fn the_report_regenerates_from_the_committed_finals() {
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/results");
    let dir = std::env::temp_dir().join(format!("costbo-cf-regen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let finals = std::fs::read_to_string(docs.join("costly-feedback.finals.csv")).unwrap();
    std::fs::write(dir.join("costly-feedback.finals.csv"), &finals).unwrap();
    let options = FeedbackOptions {
        quick: false,
        trials: 50,
        jobs: 1,
        // The command's default: the report names it. Nothing is read from it (no trial
        // file exists under the test's working directory).
        out: PathBuf::from("results/reproduce-costly-feedback"),
        report: dir.join("costly-feedback.md"),
        json: dir.join("costly-feedback.json"),
        no_run: true,
        lengthscale: LENGTHSCALE,
        progress: false,
    };
    assert!(!options.out.exists(), "{} exists", options.out.display());
    reproduce(&options).unwrap();
    for name in [
        "costly-feedback.md",
        "costly-feedback.json",
        "costly-feedback.finals.csv",
    ] {
        let ours = std::fs::read_to_string(dir.join(name)).unwrap();
        let committed = std::fs::read_to_string(docs.join(name)).unwrap();
        assert!(
            ours == committed,
            "docs/results/{name} differs from what its finals give"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
