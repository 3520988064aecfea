//! `costbo gp predict` end to end against the mpmath reference in `fixtures/gp_cli_case`.

use std::path::Path;
use std::process::Command;

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/gp_cli_case")
        .join(name)
        .display()
        .to_string()
}

fn costbo() -> Command {
    Command::new(env!("CARGO_BIN_EXE_costbo"))
}

fn parse(text: &str) -> Vec<(f64, f64)> {
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("mean,variance"));
    lines
        .map(|l| {
            let (m, v) = l.split_once(',').unwrap();
            (m.parse().unwrap(), v.parse().unwrap())
        })
        .collect()
}

fn predict(precision: &str) -> Vec<(f64, f64)> {
    let out = costbo()
        .args([
            "gp",
            "predict",
            "--train",
            &fixture("train.csv"),
            "--test",
            &fixture("test.csv"),
        ])
        .args([
            "--kernel",
            "se",
            "--lengthscales",
            "0.3,0.5,0.7",
            "--outputscale",
            "1.3",
        ])
        .args(["--noise", "1e-4", "--mean", "0.2", "--precision", precision])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse(&String::from_utf8(out.stdout).unwrap())
}

#[test]
fn predict_f64_agrees_with_reference_to_1e9() {
    let want = parse(&std::fs::read_to_string(fixture("expected_f64.csv")).unwrap());
    let got = predict("f64");
    assert_eq!(got.len(), want.len());
    for ((gm, gv), (wm, wv)) in got.iter().zip(&want) {
        assert!((gm - wm).abs() <= 1e-9 * wm.abs().max(1e-3), "{gm} vs {wm}");
        assert!((gv - wv).abs() <= 1e-9 * wv.abs().max(1e-6), "{gv} vs {wv}");
    }
}

#[test]
fn predict_f32_agrees_with_reference_to_1e3() {
    let want = parse(&std::fs::read_to_string(fixture("expected_f64.csv")).unwrap());
    for ((gm, gv), (wm, wv)) in predict("f32").iter().zip(&want) {
        assert!((gm - wm).abs() <= 1e-3 * wm.abs().max(1.3), "{gm} vs {wm}");
        assert!((gv - wv).abs() <= 1e-3 * 1.3, "{gv} vs {wv}");
    }
}

#[test]
fn bad_input_is_an_error_not_a_crash() {
    let dir = std::env::temp_dir().join(format!("costbo-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "x1,y\n0.1,nan\n").unwrap();
    let out = costbo()
        .args([
            "gp",
            "predict",
            "--train",
            bad.to_str().unwrap(),
            "--test",
            &fixture("test.csv"),
        ])
        .args([
            "--kernel",
            "matern52",
            "--lengthscales",
            "0.3",
            "--outputscale",
            "1",
            "--noise",
            "0.01",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a finite number"));
    let out = costbo()
        .args([
            "gp",
            "predict",
            "--train",
            &fixture("train.csv"),
            "--test",
            &fixture("test.csv"),
        ])
        .args([
            "--kernel",
            "se",
            "--lengthscales",
            "0.3,0.5",
            "--outputscale",
            "1",
            "--noise",
            "0.01",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("2 lengthscales given for 3 inputs"));
}

#[test]
fn fit_improves_on_the_starting_likelihood() {
    let out = costbo()
        .args([
            "gp",
            "fit",
            "--train",
            &fixture("train.csv"),
            "--kernel",
            "se",
        ])
        .args(["--starts", "4", "--evaluations", "60"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lml: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix("log_marginal_likelihood,"))
        .unwrap()
        .parse()
        .unwrap();
    // The maximum must beat the likelihood at the hyperparameters of the reference case
    // (lengthscales 0.3,0.5,0.7, outputscale 1.3, noise 1e-4, mean 0.2), which lie in the box.
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("../../../tests/fixtures/gp_cases.json")).unwrap();
    let reference = fixture["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "cli_se_d3_n20")
        .unwrap()["lml"]
        .as_f64()
        .unwrap();
    assert!(
        lml >= reference - 1e-6,
        "fitted {lml} < reference {reference}"
    );
    assert_eq!(
        text.lines()
            .find_map(|l| l.strip_prefix("lengthscales,"))
            .unwrap()
            .split(',')
            .count(),
        3
    );
}
