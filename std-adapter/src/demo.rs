//! `costbo demo`: a simulated nutrient-dosing experiment.
//!
//! Five nutrients (Ca, B, NH₃, K in log µM, and pH) feed plant trays whose growth follows the
//! plant simulator. Each round the controller (the core's ETC-Ada rule) decides which nutrients
//! to dose — paper 000's control sets, each with a cost — and how much; the others come from
//! the source water, drawn from truncated normals and measured. The tray's growth is observed
//! with noise and the cost is charged to the budget.
//!
//! Regret is measured honestly: the expected growth of each decision (its control set and
//! doses, averaged over the source water) is computed with its own 4 096-sample bank,
//! independent of the 128-point bank the controller decides with, and compared with the best
//! achievable expected growth (the simulator's optimum, reached by dosing all five nutrients).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use costbo_core::dist::{Distribution, TruncatedNormal};
use costbo_core::driver::{Controller, ControllerSpec, Decision, DriverError, Settings};
use costbo_core::gp::{FitConfig, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::policy::explore_then_commit::PlaysPerGroup;
use costbo_core::policy::{AnyPolicy, PolicySpec};
use costbo_core::problem::{ControlSet, Problem, Variable};
use costbo_core::random::{standard_normal, uniform_open};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

use crate::experiment::curves::Trace;
use crate::experiment::judge::Judge;
use crate::objectives::plant::Plant;
use crate::platform::Platform;
use crate::plot::{Curve, Figure, Panel};

const D: usize = 5;
const M: usize = 7;
const N: usize = 512;
/// Names and physical bounds of the nutrients (the simulator's raw units).
const NUTRIENTS: [(&str, f64, f64); D] = [
    ("Ca (log uM)", 0.0, 7.7),
    ("B (log uM)", 0.0, 3.5),
    ("NH3 (log uM)", 0.0, 10.4),
    ("K (log uM)", 8.9, 11.3),
    ("pH", 2.5, 6.5),
];
/// Costs of dosing each control set per tray-round (paper 000's "moderate" costs).
const COSTS: [f64; M] = [0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 1.0];

fn control_sets() -> [ControlSet; M] {
    [
        ControlSet::of(&[0, 1]),
        ControlSet::of(&[2, 3]),
        ControlSet::of(&[3, 4]),
        ControlSet::of(&[0, 1, 2]),
        ControlSet::of(&[1, 2, 3]),
        ControlSet::of(&[2, 3, 4]),
        ControlSet::of(&[0, 1, 2, 3, 4]),
    ]
}

/// Settings of the demo.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    /// Total budget.
    pub budget: f64,
    /// Seed of the whole simulation.
    pub seed: u64,
    /// Where the plot and the round-by-round CSV go.
    pub out: PathBuf,
}

/// One round of the demo.
#[derive(Debug, Clone)]
pub struct Round {
    /// Budget spent after the round.
    pub spent: f64,
    /// Control set index played.
    pub set: usize,
    /// Expected growth of the decision (independent bank).
    pub expected: f64,
    /// Simple regret so far: optimum minus the best expected growth of any decision so far.
    pub simple_regret: f64,
}

/// The result of the demo.
#[derive(Debug, Clone)]
pub struct DemoResult {
    /// Every round.
    pub rounds: Vec<Round>,
    /// The controller's recommendation at the end.
    pub recommendation: Decision<f64, D>,
    /// Expected growth of the recommendation (independent bank).
    pub recommended_expected: f64,
    /// The simulator's optimum.
    pub optimum: f64,
    /// Budget spent.
    pub spent: f64,
}

fn set_name(set: ControlSet) -> String {
    let names: Vec<&str> = (0..D)
        .filter(|&l| set.contains(l))
        .map(|l| NUTRIENTS[l].0.split(' ').next().unwrap_or(""))
        .collect();
    format!("{{{}}}", names.join(", "))
}

/// Runs the demo, printing progress to stdout; writes `demo.csv`, `demo.svg` and `demo.png`
/// into `out`.
pub fn run(options: &DemoOptions) -> Result<DemoResult, String> {
    let plant = Plant::shared().map_err(|e| format!("{e}"))?;
    let water = TruncatedNormal::with_truncated_variance(0.5, 0.04, 0.0, 1.0)
        .map_err(|e| format!("{e:?}"))?;
    // The source water: each nutrient a normal at the middle of its range, truncated to the
    // range, with variance 0.04 of the squared range (paper 000's middle setting).
    let mut variables = [Variable {
        lower: 0.0,
        upper: 1.0,
        uncontrolled: Distribution::Constant(0.5),
    }; D];
    for (v, &(_, lo, hi)) in variables.iter_mut().zip(&NUTRIENTS) {
        let tn = TruncatedNormal::with_truncated_variance(
            (lo + hi) / 2.0,
            0.04 * (hi - lo) * (hi - lo),
            lo,
            hi,
        )
        .map_err(|e| format!("{e:?}"))?;
        *v = Variable {
            lower: lo,
            upper: hi,
            uncontrolled: Distribution::TruncatedNormal(tn),
        };
    }
    let problem = Problem::<f64, D, M>::new(&variables, &control_sets(), Some(&COSTS))
        .map_err(|e| format!("{e:?}"))?;
    let spec = ControllerSpec {
        problem,
        kernel: Kernel::squared_exponential([0.2; D], 1.0).map_err(|e| format!("{e:?}"))?,
        mean: 0.0,
        noise: 1e-4,
        when_full: WhenFull::DropOldest,
        bank_seed: options.seed,
        settings: Settings::new(options.budget, options.seed),
        policy: PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive),
    };
    let mut ctl: Controller<f64, N, D, M, _, _, AnyPolicy<f64, D, M, 1, 1>> = spec
        .build(vec![0.0; tri_len(N)], vec![[0.0; D]; 128])
        .map_err(|e| format!("{e:?}"))?;
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(options.seed ^ 0x5EED);
    // The independent bank that measures regret: 4 096 i.i.d. draws of the source water.
    let draws: Vec<[f64; D]> = (0..4096)
        .map(|_| core::array::from_fn(|_| water.sample(uniform_open(&mut rng))))
        .collect();
    let judge = Judge::from_points(draws);
    let expected = |set: ControlSet, u: &[f64; D]| judge.expected(&plant, set, u);
    let optimum = 2.194_116_175_648_000_8;
    let noise = 0.01;

    println!(
        "costbo demo: dosing 5 nutrients into plant trays with ETC-Ada, budget {}",
        options.budget
    );
    println!(
        "control sets and costs: {}",
        control_sets()
            .iter()
            .zip(COSTS)
            .map(|(s, c)| format!("{} {c}", set_name(*s)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    // Five trays grown before the experiment, with random doses of everything (not charged).
    for _ in 0..5 {
        let u: [f64; D] = core::array::from_fn(|_| uniform_open(&mut rng));
        let x = ctl.problem().to_physical(&u);
        ctl.observe_initial(
            &x,
            plant.value_and_gradient(&u).0 + noise * standard_normal::<f64, Platform>(&mut rng),
        )
        .map_err(|e| format!("{e:?}"))?;
    }
    // The fast factorised path and candidate screening need this much memory; without it
    // every candidate costs an exponential per bank point and training input.
    let mut workspace = vec![0.0; ctl.workspace_len()];
    let start = Instant::now();
    let mut rounds: Vec<Round> = Vec::new();
    let mut best = f64::NEG_INFINITY;
    loop {
        let d = match ctl.suggest_with_workspace(&mut workspace) {
            Ok(d) => d,
            Err(DriverError::BudgetExhausted) => break,
            Err(e) => return Err(format!("round {}: {e:?}", rounds.len() + 1)),
        };
        // Dose the controlled nutrients; the source water brings the rest (measured).
        let x: [f64; D] = core::array::from_fn(|l| {
            d.values[l].unwrap_or_else(|| {
                let (_, lo, hi) = NUTRIENTS[l];
                lo + (hi - lo) * water.sample(uniform_open(&mut rng))
            })
        });
        let u = ctl.problem().to_unit(&x);
        let growth =
            plant.value_and_gradient(&u).0 + noise * standard_normal::<f64, Platform>(&mut rng);
        ctl.observe(&x, growth, COSTS[d.set])
            .map_err(|e| format!("{e:?}"))?;
        // Refit the kernel every 10 rounds (maximum likelihood, as paper 001's code does).
        if (rounds.len() + 1).is_multiple_of(10) {
            let ys = ctl.gp().outputs();
            let (lo, hi) = ys
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &y| {
                    (a.min(y), b.max(y))
                });
            let mut cfg = FitConfig::unit_cube(lo, hi);
            cfg.lower.log_noise = (1e-6f64).ln();
            cfg.upper.log_noise = (1e-2f64).ln();
            cfg.seed = options.seed;
            // A failed fit leaves the model as it was; the experiment goes on.
            let _ = ctl.fit_hyperparameters(&cfg);
        }
        let e = expected(d.control, &u);
        best = best.max(e);
        let r = Round {
            spent: ctl.spent(),
            set: d.set,
            expected: e,
            simple_regret: optimum - best,
        };
        let per_round = start.elapsed().as_secs_f64() / (rounds.len() + 1) as f64;
        let left = (options.budget - ctl.spent()).max(0.0) / COSTS[d.set] * per_round;
        println!(
            "round {:>3}  dose {:<22} spent {:>6.2}/{:<6}  expected growth {:>7.4}  simple regret {:.4}  (~{:.0}s left)",
            rounds.len() + 1,
            set_name(d.control),
            r.spent,
            options.budget,
            e,
            r.simple_regret,
            left
        );
        rounds.push(r);
    }
    let recommendation = ctl.recommend().map_err(|e| format!("{e:?}"))?;
    let ru: [f64; D] = ctl.problem().to_unit(&core::array::from_fn(|l| {
        recommendation.values[l].unwrap_or(NUTRIENTS[l].1)
    }));
    let recommended_expected = expected(recommendation.control, &ru);
    let result = DemoResult {
        rounds,
        recommendation,
        recommended_expected,
        optimum,
        spent: ctl.spent(),
    };
    print_summary(&result);
    std::fs::create_dir_all(&options.out).map_err(|e| format!("{}: {e}", options.out.display()))?;
    write_csv(&options.out.join("demo.csv"), &result)?;
    let plot = figure(&result);
    for name in ["demo.svg", "demo.png"] {
        let path = options.out.join(name);
        let written = if name.ends_with(".svg") {
            plot.write_svg(&path)
        } else {
            plot.write_png(&path)
        };
        written.map_err(|e| format!("{}: {e}", path.display()))?;
    }
    println!(
        "wrote {}, {} and {}",
        options.out.join("demo.csv").display(),
        options.out.join("demo.svg").display(),
        options.out.join("demo.png").display()
    );
    Ok(result)
}

fn print_summary(r: &DemoResult) {
    println!();
    println!("What was learned");
    println!("  rounds played             {}", r.rounds.len());
    println!("  budget spent              {:.2}", r.spent);
    println!(
        "  recommended to dose       {}",
        set_name(r.recommendation.control)
    );
    for (l, v) in r.recommendation.values.iter().enumerate() {
        match v {
            Some(v) => println!("    {:<14} {:>8.3}", NUTRIENTS[l].0, v),
            None => println!("    {:<14} {:>8}", NUTRIENTS[l].0, "(water)"),
        }
    }
    println!(
        "  expected growth           {:.4} (model: {:.4})",
        r.recommended_expected, r.recommendation.score
    );
    println!("  best achievable           {:.4}", r.optimum);
    println!(
        "  regret of recommendation  {:.4}",
        r.optimum - r.recommended_expected
    );
    if let Some(last) = r.rounds.last() {
        println!("  simple regret (played)    {:.4}", last.simple_regret);
    }
}

fn write_csv(path: &Path, r: &DemoResult) -> Result<(), String> {
    let mut s = String::from("round,spent,set,expected,simple_regret\n");
    for (i, x) in r.rounds.iter().enumerate() {
        let _ = writeln!(
            s,
            "{},{:?},{},{:?},{:?}",
            i + 1,
            x.spent,
            x.set,
            x.expected,
            x.simple_regret
        );
    }
    std::fs::write(path, s).map_err(|e| format!("{}: {e}", path.display()))
}

/// Simple regret against budget spent, drawn with the reproduction's plotting code; the
/// diamond marks the budget after which the controller only dosed all five nutrients (the
/// optimal control set), if it settled there.
fn figure(r: &DemoResult) -> Figure {
    let trace = Trace {
        spent: r.rounds.iter().map(|x| x.spent).collect(),
        cost: r.rounds.iter().map(|x| COSTS[x.set]).collect(),
        set: r.rounds.iter().map(|x| x.set).collect(),
        simple_regret: r.rounds.iter().map(|x| x.simple_regret).collect(),
    };
    Figure {
        title: "costbo demo: ETC-Ada on the plant simulator".into(),
        rows: 1,
        cols: 1,
        panels: vec![Panel {
            title: format!("moderate costs, budget {:.2}", r.spent),
            curves: vec![Curve {
                label: "ETC-Ada (one run)".into(),
                stderr: vec![0.0; trace.spent.len()],
                x: trace.spent.clone(),
                mean: trace.simple_regret.clone(),
                marker: trace.commit_budget(&[M - 1]),
                band: None,
            }],
        }],
        x_label: "budget spent".into(),
        y_label: "simple regret".into(),
        panel_width: 640,
        panel_height: 400,
    }
}
