//! `costbo reproduce causal --quick`: the study writes its report, JSON and figures, and a
//! second call resumes from the per-run files instead of recomputing them.

use std::process::Command;

use std::path::Path;

use costbo_lab::causal::paired;
use costbo_lab::causal::study::{reproduce, CausalStudyOptions, MIN_SEEDS};

/// Asserts that every cell of the JSON summary `json` with runs has its seeds' rows in the
/// finals file `csv` (`seeds` of them when given) and that their mean equals the summary's mean
/// at the last round (relative 1e-12).
fn check_finals_against_summary(csv: &str, json: &str, seeds: Option<usize>) {
    let finals = paired::parse(csv).unwrap();
    let summary: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut checked = 0;
    for cell in summary["cells"].as_array().unwrap() {
        let n = cell["seeds"].as_u64().unwrap() as usize;
        if n == 0 {
            continue;
        }
        let (env, key) = (cell["env"].as_str().unwrap(), cell["key"].as_str().unwrap());
        let sd = cell["y_noise_sd"].as_f64().unwrap();
        let rows: Vec<f64> = finals
            .iter()
            .filter(|f| {
                f.env == env && format!("{}/{}", f.method, f.model) == key && f.y_noise_sd == sd
            })
            .map(|f| f.regret)
            .collect();
        assert_eq!(rows.len(), n, "{key} in {env} at {sd}");
        if let Some(s) = seeds {
            assert_eq!(n, s, "{key} in {env}");
        }
        let mean = rows.iter().sum::<f64>() / n as f64;
        let last = cell["mean"].as_array().unwrap().last().unwrap();
        let json_mean = last.as_f64().unwrap();
        assert!(
            (mean - json_mean).abs() <= 1e-12 * json_mean.abs().max(1e-3),
            "{key} in {env}: {mean} against {json_mean}"
        );
        checked += 1;
    }
    assert!(checked > 0);
}

/// The committed report's paired section is what its committed finals file gives, and the
/// finals file agrees with the committed JSON summary.
#[test]
fn causal_paired_section_regenerates_from_the_committed_finals() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/results");
    let csv = std::fs::read_to_string(docs.join("causal.finals.csv")).unwrap();
    let md = std::fs::read_to_string(docs.join("causal.md")).unwrap();
    let section = paired::section(&csv, "docs/results/causal.finals.csv", MIN_SEEDS).unwrap();
    assert!(
        md.contains(&section),
        "the report's paired section differs:\n{section}"
    );
    let json = std::fs::read_to_string(docs.join("causal.json")).unwrap();
    check_finals_against_summary(&csv, &json, None);
}

#[test]
fn quick_study_writes_report_figures_and_resumes() {
    let dir = std::env::temp_dir().join(format!("costbo-causal-study-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let options = CausalStudyOptions {
        out: dir.join("runs"),
        report: dir.join("causal.md"),
        seeds: 2,
        rounds: 24,
        quick: true,
        jobs: 2,
        progress: false,
        no_run: false,
        command: "test".into(),
        only: vec![],
    };
    let outcome = reproduce(&options).unwrap();
    let written = &outcome.written;
    for name in [
        "causal.md",
        "causal.json",
        "figures/causal-fig3-regret.png",
        "figures/causal-fig5-noise.png",
        "figures/causal-fig6b-frequencies.png",
    ] {
        let path = dir.join(name);
        assert!(written.contains(&path), "{name} not reported as written");
        assert!(
            std::fs::metadata(&path).unwrap().len() > 0,
            "{name} is empty"
        );
    }
    let md = std::fs::read_to_string(dir.join("causal.md")).unwrap();
    for needle in [
        "Subset run",
        "| fig1 | CoBO | 2 |",
        "Fig. 5",
        "not tested",
        "![figures/",
    ] {
        assert!(md.contains(needle), "report lacks {needle:?}");
    }
    // The finals file: one row per run, and each cell's mean of it is the JSON's mean curve
    // at T (two computations: the running normalised sum of the summary, the plain sum here).
    let finals = std::fs::read_to_string(dir.join("causal.finals.csv")).unwrap();
    assert!(written.contains(&dir.join("causal.finals.csv")));
    check_finals_against_summary(
        &finals,
        &std::fs::read_to_string(dir.join("causal.json")).unwrap(),
        Some(2),
    );
    assert!(md.contains("## Paired comparisons, seed for seed"));
    // One file per (environment, method, seed); resuming must not rewrite them.
    let run = dir.join("runs/fig1-t24/cocabo/seed-1.csv");
    let before = std::fs::read_to_string(&run).unwrap();
    // The arms line, the header, 24 rounds and the seal (`costbo_lab::sealed`).
    assert_eq!(before.lines().count(), 2 + 24 + 1);
    let stamp = std::fs::metadata(&run).unwrap().modified().unwrap();
    let again = reproduce(&CausalStudyOptions {
        no_run: true,
        ..options.clone()
    })
    .unwrap();
    assert_eq!(again.written.len(), written.len());
    // The verdicts handed back are the report's table rows, the untested ones included.
    assert_eq!(again.verdicts, outcome.verdicts);
    assert!(!outcome.verdicts.is_empty());
    for v in &outcome.verdicts {
        assert!(
            md.contains(&format!("| {} | {} |", v.claim, v.evidence)),
            "{v}"
        );
    }
    assert_eq!(std::fs::metadata(&run).unwrap().modified().unwrap(), stamp);
    // A third seed runs only the new seed's files.
    reproduce(&CausalStudyOptions {
        seeds: 3,
        ..options.clone()
    })
    .unwrap();
    assert_eq!(std::fs::metadata(&run).unwrap().modified().unwrap(), stamp);
    assert!(dir.join("runs/fig1-t24/cocabo/seed-2.csv").exists());
    let md = std::fs::read_to_string(dir.join("causal.md")).unwrap();
    assert!(md.contains("| fig1 | CoBO | 3 |"), "{md}");
    // Without the runs, `--no-run` writes every output again from the JSON summary and the
    // finals file alone, byte for byte, figures included.
    let outputs = [
        "causal.md",
        "causal.json",
        "causal.finals.csv",
        "figures/causal-fig3-regret.png",
        "figures/causal-fig5-noise.png",
        "figures/causal-fig6b-frequencies.png",
        "figures/causal-fig6b-a3.png",
        "figures/causal-fig7-ablations.png",
    ];
    let bytes = |name: &str| std::fs::read(dir.join(name)).unwrap();
    let before: Vec<Vec<u8>> = outputs.iter().map(|n| bytes(n)).collect();
    std::fs::remove_dir_all(dir.join("runs")).unwrap();
    for name in &outputs[3..] {
        std::fs::remove_file(dir.join(name)).unwrap();
    }
    reproduce(&CausalStudyOptions {
        seeds: 3,
        no_run: true,
        ..options
    })
    .unwrap();
    for (name, was) in outputs.iter().zip(&before) {
        assert!(
            &bytes(name) == was,
            "{name} differs when written from the summary"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The committed report, its JSON summary and the figures drawn from the regret curves are
/// what `--no-run` writes from the committed summary and finals alone (a clone has no
/// `results/`). The two figures of selection frequencies need the per-arm windows, which the
/// summary holds only from the next full run on.
#[test]
fn causal_report_regenerates_from_the_committed_summary() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/results");
    // A clone's layout without `results/`: the command's default paths, relative to it.
    let dir = std::env::temp_dir().join(format!("costbo-causal-regen-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let copy = dir.join("docs/results");
    std::fs::create_dir_all(copy.join("figures")).unwrap();
    for name in ["causal.json", "causal.finals.csv", "causal.discussion.md"] {
        std::fs::copy(docs.join(name), copy.join(name)).unwrap();
    }
    let md = std::fs::read_to_string(docs.join("causal.md")).unwrap();
    // The command the committed report was made with, as its second paragraph quotes it.
    let command = md
        .split("Produced by `")
        .nth(1)
        .and_then(|t| t.split('`').next())
        .unwrap();
    let args: Vec<&str> = command.split_whitespace().skip(1).collect();
    let out = Command::new(env!("CARGO_BIN_EXE_costbo"))
        .args(&args)
        .arg("--no-run")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in [
        "causal.md",
        "causal.json",
        "causal.finals.csv",
        "figures/causal-fig3-regret.png",
        "figures/causal-fig5-noise.png",
        "figures/causal-fig7-ablations.png",
    ] {
        assert!(
            std::fs::read(copy.join(name)).unwrap() == std::fs::read(docs.join(name)).unwrap(),
            "docs/results/{name} differs from what its summary gives"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn quick_cli_writes_the_report_beside_its_runs() {
    let dir = std::env::temp_dir().join(format!("costbo-causal-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_costbo"))
        .args(["reproduce", "causal", "--quick", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join("causal.md").exists());
    assert!(dir.join("figures/causal-fig3-regret.png").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
