//! The benchmark objectives: optima at their maximisers, values against independent references,
//! the simulators against the check values of their `model.json`, and `costbo objective` end to
//! end.

use std::process::{Command, Output};

use costbo_lab::objectives::airfoil::Airfoil;
use costbo_lab::objectives::gp_sample::{self, GpSample};
use costbo_lab::objectives::plant::Plant;
use costbo_lab::objectives::search::{self, SearchConfig};
use costbo_lab::objectives::{build, Dims, Objective, ObjectiveError, Options, CATALOGUE};

fn with_dim(name: &str, d: usize) -> Box<dyn Objective> {
    build(
        name,
        &Options {
            dim: Some(d),
            seed: None,
        },
    )
    .unwrap()
}

fn assert_close(got: f64, want: f64, rel: f64, what: &str) {
    assert!(
        (got - want).abs() <= rel * want.abs().max(f64::MIN_POSITIVE),
        "{what}: got {got:?}, want {want:?} (relative error {:e})",
        ((got - want) / want).abs()
    );
}

#[test]
fn every_objective_reaches_its_optimum_at_its_argmax() {
    for e in CATALOGUE {
        let f = build(e.name, &Options::default()).unwrap();
        assert_eq!(f.name(), e.name);
        assert_eq!(f.dim(), e.default_dim);
        let x = f.argmax().unwrap();
        assert_eq!(x.len(), f.dim());
        let v = f.checked_eval(&x).unwrap();
        // Closed forms are exact to rounding; plant and airfoil report model.json's optimum,
        // which our evaluation reproduces to ~2e-13.
        let tol = if matches!(e.name, "plant" | "airfoil") {
            1e-9
        } else {
            1e-12
        };
        assert!(
            (v - f.optimum()).abs() <= tol * (1.0 + f.optimum().abs()),
            "{}: f(argmax) = {v:?}, optimum {:?}",
            e.name,
            f.optimum()
        );
    }
    // The variable-dimension functions in several dimensions.
    for (name, dims) in [
        ("ackley", &[1, 2, 5, 16][..]),
        ("levy", &[1, 2, 5, 16]),
        ("rosenbrock", &[2, 3, 16]),
        ("branin", &[2, 3, 4, 7]),
    ] {
        for &d in dims {
            let f = with_dim(name, d);
            let v = f.eval(&f.argmax().unwrap());
            assert!((v - f.optimum()).abs() < 1e-12, "{name} d={d}: {v:?}");
        }
    }
    assert_eq!(with_dim("ackley", 9).eval(&[0.5; 9]), 0.0);
    assert_close(
        with_dim("branin", 4).optimum(),
        -5.0 / (4.0 * std::f64::consts::PI),
        1e-15,
        "branin",
    );
}

#[test]
fn closed_forms_match_independent_python_references() {
    // Each value computed with numpy from the standard definitions, written independently of
    // the Rust code (/tmp script, float64), e.g. Levy:
    //   x = 20u - 10; w = 1 + (x - 1)/4
    //   -(sin(pi w0)^2 + sum((w[:-1]-1)^2 (1 + 10 sin(pi w[:-1] + 1)^2))
    //     + (w[-1]-1)^2 (1 + sin(2 pi w[-1])^2))
    // Ackley: x = 65.536u - 32.768, -(-20 exp(-0.2 sqrt(mean x^2)) - exp(mean cos 2 pi x) + 20 + e);
    // Rosenbrock: x = 15u - 5; Branin: mean over pairs (15u1 - 5, 15u2) of the 2-D Branin;
    // Hartmann: sum_r alpha_r exp(-sum_j A_rj (u_j - P_rj)^2) with the standard constants.
    let cases: &[(&str, &[f64], f64)] = &[
        ("hartmann3", &[0.1, 0.2, 0.3], 0.7329114876560026),
        ("hartmann3", &[0.9, 0.05, 0.6], 0.14892880741397257),
        ("hartmann3", &[0.5, 0.5, 0.5], 0.6280220150705937),
        (
            "hartmann6",
            &[0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
            1.4069105761385297,
        ),
        (
            "hartmann6",
            &[0.9, 0.05, 0.6, 0.33, 0.71, 0.02],
            0.0017301683522170758,
        ),
        ("ackley", &[0.3], -19.079337819752784),
        ("ackley", &[0.1, 0.9, 0.37], -21.63801153741851),
        (
            "ackley",
            &[0.52, 0.49, 0.6, 0.45, 0.5, 0.51],
            -11.112449041314035,
        ),
        ("levy", &[0.3], -3.625),
        ("levy", &[0.1, 0.9, 0.37], -13.399640152484814),
        (
            "levy",
            &[0.52, 0.49, 0.6, 0.45, 0.5, 0.51],
            -2.1848376975832537,
        ),
        ("rosenbrock", &[0.3, 0.7], -2758.5),
        ("rosenbrock", &[0.1, 0.9, 0.37], -515571.75000000006),
        (
            "rosenbrock",
            &[0.42, 0.39, 0.45, 0.38, 0.4, 0.41],
            -763.3012499999995,
        ),
        ("branin", &[0.2, 0.8], -11.294861493648417),
        ("branin", &[0.1, 0.9, 0.37], -1.1284927362930244),
        (
            "branin",
            &[0.5, 0.2, 0.9, 0.1, 0.3, 0.6],
            -9.931114426855958,
        ),
    ];
    for (name, u, want) in cases {
        let got = with_dim(name, u.len()).checked_eval(u).unwrap();
        assert_close(got, *want, 1e-12, &format!("{name} at {u:?}"));
    }
}

#[test]
fn extended_variants_ignore_their_dummy_inputs() {
    for (ext, base) in [
        ("hartmann6-ext12", "hartmann6"),
        ("ackley6-ext12", "ackley"),
        ("levy6-ext12", "levy"),
    ] {
        let (f, g) = (with_dim(ext, 12), with_dim(base, 6));
        assert_eq!(f.optimum(), g.optimum());
        let u: Vec<f64> = (0..12).map(|i| (i as f64 * 0.37 + 0.1) % 1.0).collect();
        let mut w = u.clone();
        w[6..].copy_from_slice(&[0.0, 1.0, 0.3, 0.9, 0.5, 0.2]);
        assert_eq!(f.eval(&u), g.eval(&u[..6]));
        assert_eq!(f.eval(&u), f.eval(&w));
    }
}

#[test]
fn plant_and_airfoil_match_their_check_values() {
    let plant = Plant::shared().unwrap();
    let airfoil = Airfoil::shared().unwrap();
    assert_eq!(plant.check_points().len(), 5);
    assert_eq!(airfoil.check_points().len(), 5);
    // Observed agreement: ≤ 2.5e-13 relative (summation order differs from the exporter's).
    for c in plant.check_points() {
        assert_close(plant.eval(&c.unit_x), c.value, 1e-9, "plant");
    }
    for c in airfoil.check_points() {
        assert_close(airfoil.eval(&c.unit_x), c.value, 1e-9, "airfoil");
    }
    // The registry hands out the same shared models.
    let p = build("plant", &Options::default()).unwrap();
    let c = &plant.check_points()[0];
    assert_eq!(p.eval(&c.unit_x), plant.eval(&c.unit_x));
}

/// Gradient ascent from the stated maximiser and a dense scan must not beat the stated
/// maximum (beyond `slack`).
fn assert_is_maximum<const D: usize>(
    f: impl Fn(&[f64; D]) -> (f64, [f64; D]),
    argmax: &[f64],
    optimum: f64,
    slack: f64,
    what: &str,
) {
    let x: [f64; D] = argmax.try_into().unwrap();
    let (_, refined) = search::maximise(&f, [x], SearchConfig::default()).unwrap();
    assert!(
        refined <= optimum + slack,
        "{what}: ascent reached {refined:?}"
    );
    let scan = search::maximise(
        |u: &[f64; D]| (f(u).0, [0.0; D]),
        search::space_filling::<D>(99, 1 << 12),
        SearchConfig {
            starts: 1,
            budget: 1,
        },
    )
    .unwrap();
    assert!(scan.1 < optimum, "{what}: scan found {:?}", scan.1);
}

#[test]
fn plant_and_airfoil_optima_are_maxima() {
    let plant = Plant::shared().unwrap();
    assert_is_maximum(
        |u| plant.value_and_gradient(u),
        &plant.argmax().unwrap(),
        plant.optimum(),
        1e-9,
        "plant",
    );
    let airfoil = Airfoil::shared().unwrap();
    assert_is_maximum(
        |u| airfoil.value_and_gradient(u),
        &airfoil.argmax().unwrap(),
        airfoil.optimum(),
        1e-9,
        "airfoil",
    );
}

#[test]
fn gp_sample_is_reproducible_and_its_optimum_is_a_maximum() {
    let s = GpSample::<3>::new(&gp_sample::Config::paper(3)).unwrap();
    // Seed 0, d = 3. Reference: numpy evaluated k(u, P) (K + 1e-6 I)⁻¹ y from the support
    // points P and values y this code draws (dumped once), agreeing to ~1e-13; numpy also
    // confirmed y = L (Lᵀ α) with L = cholesky(K + 1e-6 I), and that z = Lᵀ α has mean 0.015,
    // variance 1.04 (a standard normal sample). The values also pin the random stream.
    let pinned = [
        ([0.5, 0.5, 0.5], 0.058320627087312005),
        ([0.1, 0.9, 0.3], 0.894140334830035),
        ([0.0, 1.0, 0.25], 0.6597756984687533),
        ([0.77, 0.12, 0.64], -0.6795482199465397),
    ];
    for (u, want) in pinned {
        assert_close(s.value(&u), want, 1e-10, &format!("gp-sample at {u:?}"));
    }
    let f = build("gp-sample", &Options::default()).unwrap();
    assert_eq!(f.eval(&[0.5; 3]), s.value(&[0.5; 3]));
    let other = build(
        "gp-sample",
        &Options {
            seed: Some(1),
            dim: None,
        },
    )
    .unwrap();
    assert_ne!(other.eval(&[0.5; 3]), s.value(&[0.5; 3]));
    // numpy's best of 400k uniform points on this function was 3.5045465470193964.
    let (x, best) = s.maximum();
    assert!(best > 3.5045465470193964 && best < 3.6, "{best}");
    assert_eq!(f.optimum(), best);
    assert_eq!(s.value(&x), best);
    assert_is_maximum(|u| s.value_and_gradient(u), &x, best, 1e-12, "gp-sample");
}

#[test]
fn gp_sample_works_in_every_supported_dimension() {
    for d in 1..=gp_sample::MAX_DIM {
        let cfg = gp_sample::Config {
            points: 50,
            ..gp_sample::Config::paper(d)
        };
        let f = gp_sample::build(&cfg).unwrap();
        assert_eq!(f.dim(), d);
        assert!(f.eval(&vec![0.3; d]).is_finite());
    }
    assert!(gp_sample::build(&gp_sample::Config::paper(13)).is_err());
}

#[test]
fn invalid_requests_are_errors() {
    let err = |name: &str, dim: Option<usize>, seed: Option<u64>| {
        build(name, &Options { dim, seed }).err().unwrap()
    };
    assert_eq!(
        err("nope", None, None),
        ObjectiveError::UnknownName("nope".into())
    );
    assert!(err("nope", None, None)
        .to_string()
        .contains("hartmann6-ext12"));
    assert_eq!(
        err("rosenbrock", Some(1), None),
        ObjectiveError::Dimension {
            name: "rosenbrock".into(),
            requested: 1,
            allowed: Dims::AtLeast(2),
        }
    );
    assert!(matches!(
        err("hartmann3", Some(4), None),
        ObjectiveError::Dimension { .. }
    ));
    assert!(matches!(
        err("ackley", Some(0), None),
        ObjectiveError::Dimension { .. }
    ));
    assert!(matches!(
        err("gp-sample", Some(13), None),
        ObjectiveError::Dimension { .. }
    ));
    assert_eq!(
        err("plant", None, Some(3)),
        ObjectiveError::SeedNotApplicable("plant".into())
    );
    let h = with_dim("hartmann3", 3);
    assert_eq!(
        h.checked_eval(&[0.1, 0.2]),
        Err(ObjectiveError::Length {
            expected: 3,
            found: 2
        })
    );
    assert!(matches!(
        h.checked_eval(&[0.1, -1e-9, 0.3]),
        Err(ObjectiveError::OutsideCube { coordinate: 1, .. })
    ));
    assert!(h.checked_eval(&[0.1, 0.2, f64::NAN]).is_err());
    assert!(h.checked_eval(&[0.0, 1.0, 0.3]).is_ok());
}

// ---- the command -----------------------------------------------------------------------------

fn costbo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_costbo"))
        .args(args)
        .output()
        .unwrap()
}

fn write_points(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("costbo-objectives-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn values(out: &Output) -> Vec<f64> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("value"));
    lines.map(|l| l.parse().unwrap()).collect()
}

#[test]
fn cli_eval_prints_full_precision_values() {
    let h = with_dim("hartmann3", 3);
    let x = h.argmax().unwrap();
    let csv = format!(
        "u1,u2,u3\n{:?},{:?},{:?}\n0.1,0.2,0.3\n\n1,0,0.5\n",
        x[0], x[1], x[2]
    );
    let path = write_points("h3.csv", &csv);
    let got = values(&costbo(&[
        "objective",
        "eval",
        "--name",
        "hartmann3",
        "--points",
        &path,
    ]));
    let want: Vec<f64> = [x.clone(), vec![0.1, 0.2, 0.3], vec![1.0, 0.0, 0.5]]
        .iter()
        .map(|u| h.eval(u))
        .collect();
    assert_eq!(got, want); // bit for bit: `{:?}` round-trips
    assert_close(
        got[1],
        0.7329114876560026,
        1e-12,
        "hartmann3 via the command",
    );

    // Dimension and seed options.
    let path = write_points("a4.csv", "a,b,c,d\n0.5,0.5,0.5,0.5\n0.1,0.2,0.3,0.4\n");
    let got = values(&costbo(&[
        "objective",
        "eval",
        "--name",
        "ackley",
        "--dim",
        "4",
        "--points",
        &path,
    ]));
    assert_eq!(got[0], 0.0);
    assert_eq!(got[1], with_dim("ackley", 4).eval(&[0.1, 0.2, 0.3, 0.4]));
    let path = write_points("g3.csv", "a,b,c\n0.5,0.5,0.5\n");
    let seeded = |seed: &str| {
        values(&costbo(&[
            "objective",
            "eval",
            "--name",
            "gp-sample",
            "--seed",
            seed,
            "--points",
            &path,
        ]))[0]
    };
    assert_close(seeded("0"), 0.058320627087312005, 1e-10, "gp-sample seed 0");
    assert_ne!(seeded("0"), seeded("5"));
    // No rows: only the header.
    let path = write_points("empty.csv", "a,b,c\n");
    assert!(values(&costbo(&[
        "objective",
        "eval",
        "--name",
        "hartmann3",
        "--points",
        &path
    ]))
    .is_empty());
}

#[test]
fn cli_list_names_every_objective_with_its_optimum() {
    let out = costbo(&["objective", "list"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("name,dim,dims,optimum,summary"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.splitn(5, ',').collect()).collect();
    assert_eq!(rows.len(), CATALOGUE.len());
    for (row, e) in rows.iter().zip(CATALOGUE) {
        assert_eq!(row[0], e.name);
        assert_eq!(row[1], e.default_dim.to_string());
        assert_eq!(row[2], e.dims.to_string());
        if e.name != "gp-sample" {
            let f = build(e.name, &Options::default()).unwrap();
            assert_eq!(row[3].parse::<f64>().unwrap(), f.optimum());
        }
    }
    let find = |n: &str| rows.iter().find(|r| r[0] == n).unwrap()[3];
    assert_eq!(find("hartmann3"), "3.862779787332663");
    assert_eq!(find("hartmann6-ext12"), "3.322368011415515");
    assert_eq!(find("branin"), "-0.3978873577297384");
    assert_eq!(find("plant"), "2.1941161756480008");
    assert_eq!(find("airfoil"), "2.614005842384836");
}

#[test]
fn cli_errors_exit_non_zero_with_a_message() {
    let good = write_points("ok3.csv", "a,b,c\n0.1,0.2,0.3\n");
    let outside = write_points("out3.csv", "a,b,c\n0.1,0.2,0.3\n0.5,1.5,0.5\n");
    let missing = std::env::temp_dir()
        .join("costbo-objectives-no-such-file.csv")
        .display()
        .to_string();
    let cases: &[(&[&str], &str)] = &[
        (
            &["--name", "nope", "--points", &good],
            "unknown objective `nope`",
        ),
        (&["--name", "hartmann6", "--points", &good], "3 columns"),
        (&["--name", "hartmann3", "--points", &outside], "data row 2"),
        (
            &["--name", "rosenbrock", "--dim", "1", "--points", &good],
            "d = 1",
        ),
        (
            &["--name", "hartmann3", "--seed", "1", "--points", &good],
            "--seed",
        ),
        (
            &["--name", "gp-sample", "--dim", "40", "--points", &good],
            "1..=12",
        ),
        (
            &["--name", "hartmann3", "--points", &missing],
            "no-such-file",
        ),
    ];
    for (args, message) in cases {
        let mut all = vec!["objective", "eval"];
        all.extend_from_slice(args);
        let out = costbo(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed values");
    }
}
