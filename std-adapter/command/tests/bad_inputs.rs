//! Bad inputs to the `costbo` command, as a new user would give them: sizes far beyond what
//! the machine or the algorithm can do, settings that make no sense, negative numbers after a
//! flag, malformed values. Every one must end within seconds in a non-zero exit and a single
//! line on stderr that names the setting, never a panic, an abort or a hang.

use crate::common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The grid's fixed part (one objective, paper 000's sets); each case adds its own lines.
const GRID_TAIL: &str = r#"
[[objectives]]
name = "hartmann3"
sets = [[1], [2], [3], [1, 2], [1, 3], [2, 3], [1, 2, 3]]
budget = 0.05
"#;

/// A run config: `head` (top-level settings) over the defaults of a valid small grid.
fn config(head: &str) -> String {
    let mut lines = vec![head.to_string()];
    for (key, default) in [
        ("seeds", "seeds = 1"),
        ("costs", "costs = [\"cheap\"]"),
        ("variances", "variances = [0.04]"),
        ("algorithms", "algorithms = [\"etc-ada\"]"),
    ] {
        if !head.lines().any(|l| l.trim_start().starts_with(key)) {
            lines.push(default.to_string());
        }
    }
    lines.join("\n") + "\n" + GRID_TAIL
}

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("costbo-bad-inputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `costbo args` with a deadline; returns (exit code, stdout, stderr, seconds).
fn costbo(args: &[String], dir: &Path) -> (Option<i32>, String, String, f64) {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_costbo"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = common::wait_within(&mut child, Duration::from_secs(20), &format!("{args:?}"));
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code(), out, err, start.elapsed().as_secs_f64())
}

/// One bad input: the arguments (`{config}` stands for a config file holding `config`, if
/// any) and text the one-line error must contain (naming the setting).
struct Case {
    args: &'static str,
    config: Option<String>,
    names: &'static str,
}

fn cli(args: &'static str, names: &'static str) -> Case {
    Case {
        args,
        config: None,
        names,
    }
}

fn grid(head: &str, names: &'static str) -> Case {
    Case {
        args: "run --config {config} --out out --jobs 1",
        config: Some(config(head)),
        names,
    }
}

fn cases() -> Vec<Case> {
    vec![
        // Sizes not bounded before use (a panic, an abort, a hang before).
        grid("seeds = 18446744073709551615", "seeds"),
        grid("seeds = 0", "seeds"),
        grid("bank = 1000000000000", "bank"),
        grid("bank = 0", "bank"),
        grid("judge = 100000000000", "judge"),
        grid("initial = 100000000", "initial"),
        grid("max_rounds = 18446744073709551615", "max_rounds"),
        grid("max_rounds = 0", "max_rounds"),
        grid("costs = [[1e-300, 1, 1, 1, 1, 1, 1]]", "rounds"),
        grid("seeds = [1, 1]", "seeds"),
        grid("seeds = []", "seeds"),
        // Settings that make no sense.
        grid("beta = -2.0", "beta"),
        grid("beta = inf", "beta"),
        grid("beta = nan", "beta"),
        grid("epsilon = -5.0\nalgorithms = [\"ucb-cvs\"]", "epsilon"),
        grid("algorithms = [\"ucb-cvs:-5\"]", "ucb-cvs:-5"),
        grid("noise = -0.01", "noise"),
        grid("noise = 1e200", "noise"),
        grid("cost_noise = -1.0", "cost_noise"),
        grid("variances = [1e-300]", "variance"),
        grid("variances = [0.0]", "variance"),
        grid("variances = [-0.04]", "variance"),
        grid("variances = [0.5]", "variance"),
        grid("variances = [nan]", "variance"),
        grid("costs = [[0, 1, 1, 1, 1, 1, 1]]", "cost"),
        grid("costs = [[-1, 1, 1, 1, 1, 1, 1]]", "cost"),
        grid("costs = [[1, 1]]", "costs"),
        grid("costs = [\"free\"]", "cost preset"),
        grid(
            "algorithms = [\"unknown-cost\"]\ncosts = [[5, 5, 5, 5, 5, 5, 5]]",
            "clipped",
        ),
        grid("algorithms = [\"no-such-rule\"]", "algorithm"),
        grid("algorithms = []", "algorithms"),
        Case {
            args: "run --config {config} --out out --jobs 1",
            config: Some(config("").replace("budget = 0.05", "budget = -1")),
            names: "budget",
        },
        Case {
            args: "run --config {config} --out out --jobs 1",
            config: Some(config("").replace("budget = 0.05", "budget = 0.05\nlengthscale = 0")),
            names: "lengthscale",
        },
        Case {
            args: "run --config {config} --out out --jobs 1",
            config: Some(config("").replace("budget = 0.05", "budget = 0.05\ndim = 100000000")),
            names: "dim",
        },
        Case {
            args: "run --config {config} --out out --jobs 1",
            config: Some(config("").replace("[2, 3], [1, 2, 3]", "[2, 3], [1, 2, 30]")),
            names: "control set",
        },
        Case {
            args: "run --config {config} --out out --jobs 100000000000",
            config: Some(config("")),
            names: "--jobs",
        },
        Case {
            args: "run --config {config} --out out --jobs 0",
            config: Some(config("")),
            names: "--jobs",
        },
        Case {
            args: "run --config {config} --out out --shard 0/4",
            config: Some(config("")),
            names: "shard",
        },
        Case {
            args: "run --config {config} --out out",
            config: Some("seeds = \"many\"\n".into()),
            names: "seeds",
        },
        cli("run --config no-such-file.toml", "no-such-file.toml"),
        // `costbo gp`: negative numbers after a flag are values, then refused.
        cli(
            "gp predict --train train.csv --test test.csv --kernel se --lengthscales 0.5 \
             --outputscale 1 --noise -0.01",
            "--noise",
        ),
        cli(
            "gp predict --train train.csv --test test.csv --kernel se --lengthscales -0.5 \
             --outputscale 1 --noise 0.01",
            "--lengthscales",
        ),
        cli(
            "gp predict --train train.csv --test test.csv --kernel se --lengthscales 0.5 \
             --outputscale 0 --noise 0.01",
            "--outputscale",
        ),
        cli(
            "gp predict --train train.csv --test test.csv --kernel se --lengthscales 0.5 \
             --outputscale 1 --noise 1e-300",
            "--noise",
        ),
        cli(
            "gp predict --train train.csv --test test.csv --kernel se --lengthscales 0.5 \
             --outputscale 1 --noise 0.01 --mean inf",
            "--mean",
        ),
        cli(
            "gp predict --train train.csv --test test.csv --kernel se --lengthscales 0.5 \
             --outputscale 1",
            "--noise",
        ),
        cli(
            "gp predict --train huge.csv --test test.csv --kernel se --lengthscales 0.5 \
             --outputscale 1 --noise 0.01",
            "not finite",
        ),
        cli(
            "gp predict --train noy.csv --test test.csv --kernel se --lengthscales 0.5 \
             --outputscale 1 --noise 0.01",
            "column `y`",
        ),
        cli(
            "gp fit --train train.csv --kernel se --starts 0",
            "--starts",
        ),
        cli(
            "gp fit --train train.csv --kernel se --starts 18446744073709551615",
            "--starts",
        ),
        cli(
            "gp fit --train train.csv --kernel se --starts -3",
            "--starts",
        ),
        cli(
            "gp fit --train train.csv --kernel se --evaluations 0",
            "--evaluations",
        ),
        cli("gp fit --train train.csv --kernel sx", "--kernel"),
        cli("gp fit --train missing.csv --kernel se", "missing.csv"),
        cli("gp fit --train bad.csv --kernel se", "bad.csv"),
        // `costbo demo`, `pandora`, `objective`, `acq`.
        cli("demo --budget 1e300 --out demo", "--budget"),
        cli("demo --budget -1 --out demo", "--budget"),
        cli("demo --budget nan --out demo", "--budget"),
        cli("demo --seed -1 --out demo", "--seed"),
        cli(
            "pandora --objective levy --dim 8 --rule pbgi --budget 1e12",
            "--budget",
        ),
        cli(
            "pandora --objective levy --dim 8 --rule pbgi --budget -5",
            "--budget",
        ),
        cli(
            "pandora --objective levy --dim 1000000000000 --rule pbgi --budget 5",
            "1000000000000",
        ),
        cli(
            "pandora --objective levy --dim 8 --rule no-such --budget 5",
            "no-such",
        ),
        cli(
            "pandora --objective levy --dim 8 --rule pbgi --budget 5 --model fixed:-1",
            "fixed:-1",
        ),
        cli(
            "objective eval --name gp-sample --dim 1000000000000 --points test.csv",
            "1000000000000",
        ),
        cli("objective eval --name no-such --points test.csv", "no-such"),
        cli("acq pbgi --input test.csv", "test.csv"),
        cli("acq log-ei --input missing.csv", "missing.csv"),
        // `costbo reproduce`.
        cli(
            "reproduce ucb-cvs --quick --out rq --seeds 18446744073709551615",
            "--seeds",
        ),
        cli("reproduce ucb-cvs --quick --out rq --seeds 0", "--seeds"),
        cli("reproduce pandora --quick --out rq --seeds 0", "--seeds"),
        cli(
            "reproduce causal --quick --out rq --rounds 100000",
            "rounds",
        ),
        cli("reproduce causal --quick --out rq --rounds 0", "--rounds"),
        cli(
            "reproduce costly-feedback --quick --out rq --lengthscale -1",
            "--lengthscale",
        ),
        cli("reproduce ucb-cvs --quick --out rq --jobs 0", "--jobs"),
        cli("reproduce no-such-study", "no-such-study"),
        // `costbo device`: its settings, before any link is opened.
        cli("device --tcp 127.0.0.1:9 --timeout 1e30", "--timeout"),
        cli("device --tcp 127.0.0.1:9 --timeout -1", "--timeout"),
        cli("device --tcp 127.0.0.1:9 --timeout nan", "--timeout"),
        cli("device --tcp 127.0.0.1:9 --noise -0.01", "--noise"),
        cli("device --tcp 127.0.0.1:9 --noise inf", "--noise"),
        cli("device --serial /dev/null --baud 0", "--baud"),
        cli("device", "--tcp"),
        // `costbo causal`.
        cli("causal pomps --graph missing.toml", "missing.toml"),
        cli("causal pomps", "--graph"),
        // An output directory that cannot be written fails before any job runs (train.csv is
        // a file).
        cli(
            "reproduce pandora --quick --out train.csv/out",
            "train.csv/out",
        ),
        cli(
            "reproduce ucb-cvs --quick --out train.csv/out",
            "train.csv/out",
        ),
        cli(
            "reproduce costly-feedback --quick --out train.csv/out",
            "train.csv/out",
        ),
        cli(
            "reproduce causal --quick --out train.csv/out",
            "train.csv/out",
        ),
        cli("demo --seeds 0 --out train.csv/out", "train.csv/out"),
        Case {
            args: "run --config {config} --out train.csv/out --jobs 1",
            config: Some(config("")),
            names: "train.csv/out",
        },
        cli("causal envs --samples 0", "--samples"),
        cli("causal envs --samples 1", "--samples"),
        cli("causal envs --samples 18446744073709551615", "--samples"),
        cli("causal envs --samples -5", "--samples"),
    ]
}

#[test]
fn every_bad_input_ends_in_one_line_naming_the_setting_and_a_non_zero_exit() {
    let dir = scratch();
    std::fs::write(
        dir.join("train.csv"),
        "x1,x2,y\n0.1,0.2,1\n0.5,0.5,2\n0.9,0.1,0\n",
    )
    .unwrap();
    std::fs::write(dir.join("test.csv"), "x1,x2\n0.3,0.3\n").unwrap();
    std::fs::write(dir.join("bad.csv"), "x1,y\n0.1,nan\n").unwrap();
    std::fs::write(dir.join("noy.csv"), "x1,x2,z\n0.1,0.2,1\n").unwrap();
    std::fs::write(
        dir.join("huge.csv"),
        "x1,x2,y\n0.1,0.2,1e308\n0.5,0.5,-1e308\n0.9,0.1,1e308\n",
    )
    .unwrap();
    let cases = cases();
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let path = dir.join(format!("case-{i}.toml"));
        if let Some(c) = &case.config {
            std::fs::write(&path, c).unwrap();
        }
        let args: Vec<String> = case
            .args
            .split_whitespace()
            .map(|a| a.replace("{config}", &path.display().to_string()))
            .collect();
        let (code, _out, err, seconds) = costbo(&args, &dir);
        let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
        let problems = [
            (code.is_none_or(|c| c == 0), "exit code 0 or a signal"),
            (
                err.contains("panicked") || err.contains("memory allocation"),
                "panic/abort",
            ),
            (lines.len() != 1, "not exactly one line on stderr"),
            (!err.contains(case.names), "does not name the setting"),
            (seconds > 10.0, "took more than 10 s"),
        ];
        for (bad, what) in problems {
            if bad {
                failures.push(format!(
                    "costbo {}: {what} (code {code:?}, {seconds:.1} s): {err}",
                    case.args
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        failures.is_empty(),
        "{} of {} bad inputs misbehaved:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn a_negative_number_after_a_flag_is_a_value() {
    // The prior mean may be negative: the value is accepted, and the prediction is the
    // closed form of a GP with one observation far from the test point (the prior mean).
    let dir = scratch().join("negative");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("train.csv"), "x,y\n0,1\n").unwrap();
    std::fs::write(dir.join("test.csv"), "x\n100\n").unwrap();
    let args: Vec<String> = "gp predict --train train.csv --test test.csv --kernel se \
         --lengthscales 0.5 --outputscale 1 --noise 0.01 --mean -3"
        .split_whitespace()
        .map(String::from)
        .collect();
    let (code, out, err, _) = costbo(&args, &dir);
    assert_eq!(code, Some(0), "{err}");
    // k(0, 100) = exp(-100²/(2·0.25)) underflows to 0: mean -3, latent variance 1.
    assert_eq!(out, "mean,variance\n-3.0,1.0\n");
}

#[test]
fn every_shipped_grid_passes_the_checks() {
    // The limits refuse nothing the project runs: the studies' grids (paper and smoke) and the
    // example config.
    for study in costbo_lab::reproduce::STUDIES {
        for quick in [false, true] {
            for part in study.parts(quick, study.paper_seeds()) {
                if let Err(e) = part.settings.validate() {
                    panic!("{} {} (quick {quick}): {e}", study.name(), part.dir);
                }
            }
        }
    }
    let quick = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/quick.toml"),
    )
    .unwrap();
    costbo_lab::experiment::Settings::from_toml(&quick).unwrap();
}

#[test]
fn long_decimals_give_bounded_file_names() {
    // Costs and a variance whose shortest decimals are long: the cell's directory and the
    // cached best values still get names a file system takes (they used to be the decimals).
    let dir = scratch().join("long-names");
    std::fs::create_dir_all(&dir).unwrap();
    let costs: Vec<String> = (1..=7).map(|i| format!("0.{i}23456789012345")).collect();
    let grid = format!(
        "seeds = 1\ncosts = [[{}]]\nvariances = [0.041234567890123456]\n\
         algorithms = [\"etc-ada\"]\n{GRID_TAIL}",
        costs.join(", ")
    );
    std::fs::write(dir.join("long.toml"), grid).unwrap();
    let args: Vec<String> = "run --config long.toml --out out --jobs 1"
        .split_whitespace()
        .map(String::from)
        .collect();
    let (code, _, err, _) = costbo(&args, &dir);
    assert_eq!(code, Some(0), "{err}");
    let names = |sub: &str| -> Vec<String> {
        std::fs::read_dir(dir.join("out").join(sub))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    let cells: Vec<String> = names("")
        .into_iter()
        .filter(|n| n.starts_with("hartmann3"))
        .collect();
    assert_eq!(cells.len(), 1);
    // The first 100 bytes of the full name, a dash and 16 hex digits of its hash.
    let cell = &cells[0];
    assert_eq!(cell.len(), 117, "{cell}");
    assert!(cell.starts_with("hartmann3_0.123456789012345-0.223456789012345-"));
    assert!(cell[101..].chars().all(|c| c.is_ascii_hexdigit()));
    let best = names("best");
    assert_eq!(best.len(), 1);
    // The variance's 20-character decimal is replaced by the hex of its bits.
    let bits = format!("vx{:016x}", 0.041234567890123456f64.to_bits());
    assert!(best[0].contains(&bits), "{best:?}");
    assert!(
        std::fs::read_dir(dir.join("out").join(cell))
            .unwrap()
            .count()
            >= 3
    );
}

/// `costbo gp predict` takes the output from the column named `y`, wherever it stands: the
/// same data with `y` first and `y` last give the same predictions.
#[test]
fn gp_predict_reads_y_by_its_name() {
    let dir = scratch().join("y-by-name");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("last.csv"),
        "x1,x2,y\n0.1,0.2,1\n0.5,0.5,2\n0.9,0.1,0\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("first.csv"),
        "y,x1,x2\n1,0.1,0.2\n2,0.5,0.5\n0,0.9,0.1\n",
    )
    .unwrap();
    std::fs::write(dir.join("test.csv"), "x1,x2\n0.3,0.3\n0.9,0.1\n").unwrap();
    let predict = |train: &str| {
        let args: Vec<String> = format!(
            "gp predict --train {train} --test test.csv --kernel se --lengthscales 0.5 \
             --outputscale 1 --noise 0.01"
        )
        .split_whitespace()
        .map(String::from)
        .collect();
        let (code, out, err, _) = costbo(&args, &dir);
        assert_eq!(code, Some(0), "{err}");
        out
    };
    let last = predict("last.csv");
    assert_eq!(predict("first.csv"), last);
    // At a training input the mean is close to its output (noise 0.01 against outputscale 1).
    let second: f64 = last
        .lines()
        .nth(2)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((second - 0.0).abs() < 0.1, "{last}");
}

/// Text from a user's file is shown escaped and cut in an error: a graph whose node name holds
/// terminal control codes, or is a megabyte long, is refused with one line that carries
/// neither; a CSV field of a megabyte is cut in the message.
#[test]
fn hostile_names_and_values_are_escaped_and_cut_in_errors() {
    let dir = scratch().join("hostile-names");
    std::fs::create_dir_all(&dir).unwrap();
    let graph = |name: &str| {
        format!(
            "nodes = [\"{name}\", \"Y\"]\ntarget = \"Y\"\nintervenable = [\"{name}\"]\n\
             edges = [[\"{name}\", \"Y\"]]\n"
        )
    };
    std::fs::write(dir.join("escape.toml"), graph("X\\u001b[31mred")).unwrap();
    std::fs::write(dir.join("long.toml"), graph(&"X".repeat(1 << 20))).unwrap();
    std::fs::write(dir.join("ok.toml"), graph("X")).unwrap();
    let field = "9".repeat(1 << 20) + "x";
    std::fs::write(dir.join("big.csv"), format!("mean,std,best\n{field},1,0\n")).unwrap();
    for (args, names) in [
        ("causal pomps --graph escape.toml", "nodes"),
        ("causal pomps --graph long.toml", "nodes"),
        ("acq log-ei --input big.csv", "line 2"),
    ] {
        let args: Vec<String> = args.split_whitespace().map(String::from).collect();
        let (code, _, err, _) = costbo(&args, &dir);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err:?}");
        assert!(err.contains(names), "{args:?}: {err:?}");
        assert!(
            !err.contains('\u{1b}'),
            "{args:?}: a raw escape code: {err:?}"
        );
        assert!(err.len() < 400, "{args:?}: {} bytes of error", err.len());
    }
    let ok: Vec<String> = "causal pomps --graph ok.toml"
        .split_whitespace()
        .map(String::from)
        .collect();
    let (code, _, err, _) = costbo(&ok, &dir);
    assert_eq!(
        code,
        Some(0),
        "the same graph with a plain name is accepted: {err}"
    );
}

/// A serial path that exists but is not a serial port fails at once, not after `--timeout`.
#[test]
fn a_serial_path_that_is_not_a_port_fails_at_once() {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../firmware/experiment.toml");
    let args: Vec<String> = [
        "device",
        "--config",
        &config.display().to_string(),
        "--serial",
        "/dev/null",
        "--timeout",
        "60",
    ]
    .map(String::from)
    .to_vec();
    let (code, _, err, seconds) = costbo(&args, &scratch());
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains("cannot open it as a serial port"), "{err}");
    assert!(seconds < 5.0, "{seconds} s");
}
