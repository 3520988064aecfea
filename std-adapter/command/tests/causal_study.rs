//! `costbo reproduce causal --quick`: the study writes its report, JSON and figures, and a
//! second call resumes from the per-run files instead of recomputing them.

use std::process::Command;

use costbo_lab::causal::study::{reproduce, CausalStudyOptions};

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
        ..options
    })
    .unwrap();
    assert_eq!(std::fs::metadata(&run).unwrap().modified().unwrap(), stamp);
    assert!(dir.join("runs/fig1-t24/cocabo/seed-2.csv").exists());
    let md = std::fs::read_to_string(dir.join("causal.md")).unwrap();
    assert!(md.contains("| fig1 | CoBO | 3 |"), "{md}");
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
