//! The demo end to end on a small budget: the ledger, the regret bookkeeping, the comparison
//! over seeds, the physical unit and the files.

use costbo_demo::{leaf_area, run, DemoOptions, COST_UNAWARE, OURS, PAPER};
use costbo_objectives::plant::MODEL_JSON;

#[test]
fn small_demo_runs_and_reports_consistently() {
    let out = std::env::temp_dir().join(format!("costbo-demo-{}", std::process::id()));
    let r = run(&DemoOptions {
        budget: 1.5,
        seed: 3,
        seeds: 2,
        out: out.clone(),
    })
    .unwrap();
    let shown = &r.shown;
    assert!(!shown.rounds.is_empty());
    assert!(shown.spent <= 1.5 + 1e-9);
    // Simple regret is the optimum minus the best expected growth so far: never increases,
    // never negative (expected growth under the water cannot beat the optimum).
    for w in shown.rounds.windows(2) {
        assert!(w[1].simple_regret <= w[0].simple_regret);
        assert!(w[1].spent > w[0].spent);
    }
    assert!(shown
        .rounds
        .iter()
        .all(|x| x.simple_regret >= -1e-9 && x.expected <= r.optimum + 1e-9));
    assert!(shown.recommended_expected <= r.optimum + 1e-9);
    // The comparison: our variant, the paper's ETC-Ada, the cost-unaware baseline, two seeds
    // each; its first run of ours is the shown run again (runs are deterministic in the seed).
    let labels: Vec<&str> = r.comparison.iter().map(|c| c.contender.label).collect();
    assert_eq!(labels, [OURS.label, PAPER.label, COST_UNAWARE.label]);
    assert!(r.comparison.iter().all(|c| c.runs.len() == 2));
    let again = &r.comparison[0].runs[0];
    assert_eq!(again.rounds.len(), shown.rounds.len());
    assert_eq!(
        again.recommended_expected.to_bits(),
        shown.recommended_expected.to_bits()
    );
    // The cost-unaware baseline only ever doses all five nutrients (the cost-1 set).
    assert!(r.comparison[2]
        .runs
        .iter()
        .all(|x| x.rounds.iter().all(|round| round.set == 6)));
    let csv = std::fs::read_to_string(out.join("demo.csv")).unwrap();
    assert_eq!(csv.lines().count(), shown.rounds.len() + 1);
    let svg = std::fs::read_to_string(out.join("demo.svg")).unwrap();
    assert!(svg.contains("<polyline"));
    assert!(svg.contains("cost-unaware"));
    let png = std::fs::read(out.join("demo.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(png.len() > 5_000);
}

#[test]
fn leaf_area_uses_the_data_files_constants() {
    // `leaf area = f·std + mean` with the constants of model.json's `destandardize`, read here
    // from the file rather than from the demo.
    let json: serde_json::Value = serde_json::from_str(MODEL_JSON).unwrap();
    let mean = json["destandardize"]["mean"].as_f64().unwrap();
    let std = json["destandardize"]["std"].as_f64().unwrap();
    for f in [0.0, 1.0, 2.194_116_175_648_000_8, -0.3] {
        assert!((leaf_area(f) - (f * std + mean)).abs() < 1e-9 * mean);
    }
}

/// The `costbo-demo` program: a small run writes its files and prints its summary; bad
/// arguments are refused in one line with the status of their kind and no file written.
#[test]
fn the_program_runs_and_refuses_bad_arguments_in_one_line() {
    let exe = env!("CARGO_BIN_EXE_costbo-demo");
    let out = std::env::temp_dir().join(format!("costbo-demo-cli-{}", std::process::id()));
    let run = std::process::Command::new(exe)
        .args(["--budget", "1", "--seeds", "1", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    let stdout = String::from_utf8(run.stdout).unwrap();
    assert!(stdout.contains("What was learned"));
    assert!(out.join("demo.csv").exists());
    for (args, status, start) in [
        (
            &["--budget", "-1"][..],
            1,
            "costbo-demo: --budget -1.0: must be in (0, 1000]",
        ),
        (
            &["--budget", "NaN"][..],
            1,
            "costbo-demo: --budget NaN: must be in (0, 1000]",
        ),
        (
            &["--seeds", "1001"][..],
            1,
            "costbo-demo: --seeds 1001: the comparison runs at most 1000",
        ),
        (
            &["--seed", "x"][..],
            2,
            "costbo-demo: invalid value 'x' for '--seed <SEED>'",
        ),
        (
            &["--colour"][..],
            2,
            "costbo-demo: unexpected argument '--colour' found",
        ),
    ] {
        let refused = out.join("refused");
        let r = std::process::Command::new(exe)
            .args(args)
            .arg("--out")
            .arg(&refused)
            .output()
            .unwrap();
        assert_eq!(r.status.code(), Some(status), "{args:?}");
        let stderr = String::from_utf8(r.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with(start), "{args:?}: {stderr}");
        assert!(r.stdout.is_empty(), "{args:?}");
        assert!(!refused.join("demo.csv").exists(), "{args:?}");
    }
    let _ = std::fs::remove_dir_all(&out);
}
