//! The desktop runner's decisions, made again by an `f64` `costbo_std::Optimizer` opened from an
//! experiment file written by hand: the grid runner (`costbo run`, whose jobs build their cells
//! with `ExperimentBuilder`) writes its per-round CSVs, and an optimizer whose file describes the
//! same cell, told the same simulated rounds, must choose the same control set and the same
//! values, bit for bit, in every round — for known and learned costs and for the fixed and the
//! fitted model: the file's keys say what the grid's settings say.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use costbo_core::dist::TruncatedNormal;
use costbo_core::random::{standard_normal, uniform_open};
use costbo_lab::experiment::{self, RunOptions, Settings};
use costbo_lab::objectives::{self, Objective, Options};
use costbo_lab::platform::Platform;
use costbo_std::Optimizer;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

const SETS: [&[usize]; 7] = [&[1], &[2], &[3], &[1, 2], &[1, 3], &[2, 3], &[1, 2, 3]];
const COSTS: [f64; 7] = [0.05, 0.05, 0.05, 0.1, 0.1, 0.1, 0.4];
const BUDGET: f64 = 1.2;
const SEED: u64 = 3;
const VARIANCE: f64 = 0.04;
const MAX_ROUNDS: usize = 20;
const INITIAL: usize = 5;
const NOISE: f64 = 0.01;
const COST_NOISE: f64 = 0.01;

/// The runner's algorithm names and the rule names a file gives the same rules (the file's
/// `ucb-cvs` has the runner's ε; `+fitted` is the file's `fit = "map"`, `+adam` its
/// `fit = "adam"`).
const ALGORITHMS: [&str; 9] = [
    "etc-ada",
    "ucb-cvs",
    "ucb-psq",
    "gittins-cvs",
    "unknown-cost",
    "etc-ada+fitted",
    "ucb-psq+fitted",
    "unknown-cost-code",
    "unknown-cost-code+adam",
];

fn grid() -> String {
    let sets: Vec<String> = SETS.iter().map(|s| format!("{s:?}")).collect();
    format!(
        "seeds = [{SEED}]\n\
         costs = [{COSTS:?}]\n\
         variances = [{VARIANCE:?}]\n\
         algorithms = {ALGORITHMS:?}\n\
         bank = 128\n\
         judge = 256\n\
         initial = {INITIAL}\n\
         noise = {NOISE:?}\n\
         cost_noise = {COST_NOISE:?}\n\
         max_rounds = {MAX_ROUNDS}\n\
         refit_every = 3\n\
         [[objectives]]\n\
         name = \"hartmann3\"\n\
         sets = [{}]\n\
         budget = {BUDGET:?}\n",
        sets.join(", ")
    )
}

/// The experiment file of the runner's cell for `algorithm`.
fn experiment_file(algorithm: &str, lengthscale: f64) -> String {
    let (rule, fit) = match (
        algorithm.strip_suffix("+fitted"),
        algorithm.strip_suffix("+adam"),
    ) {
        (Some(rule), _) => (rule, "fit = \"map\"\nrefit_every = 3\nnoise_floor = 1e-6\n"),
        (_, Some(rule)) => (rule, "fit = \"adam\"\n"),
        _ => (algorithm, ""),
    };
    let learned = rule.starts_with("unknown-cost");
    let mut f = String::new();
    // The runner's bank seed is the run's seed with its high bits flipped.
    let _ = writeln!(
        f,
        "[experiment]\nname = \"runner-{algorithm}\"\nseed = {SEED}\nbank_seed = {}\n\
         budget = {BUDGET:?}\ncapacity = 128\nbank = 128\nrule = \"{rule}\"\nbeta = 2.0",
        SEED ^ 0xBA4C_0000_0000_0000
    );
    if learned {
        f.push_str("costs = \"learned\"\n");
    }
    let _ = writeln!(
        f,
        "[model]\nkernel = \"se\"\nlengthscale = {lengthscale:?}\noutputscale = 1.0\n\
         noise = 1e-4\nmean = 0.0"
    );
    f.push_str(fit);
    for l in 1..=3 {
        let _ = writeln!(
            f,
            "[[variable]]\nname = \"u{l}\"\nlower = 0.0\nupper = 1.0\n\
             distribution = {{ kind = \"truncated-normal\", mean = 0.5, variance = {VARIANCE:?} }}"
        );
    }
    for (set, cost) in SETS.iter().zip(COSTS) {
        let names: Vec<String> = set.iter().map(|l| format!("\"u{l}\"")).collect();
        let _ = writeln!(f, "[[control_set]]\nvariables = [{}]", names.join(", "));
        if !learned {
            let _ = writeln!(f, "cost = {cost:?}");
        }
    }
    f
}

/// One round as the runner's CSV has it: the set and the controlled values' bits.
#[derive(Debug, PartialEq)]
struct Decided {
    set: usize,
    values: Vec<Option<u64>>,
    y: u64,
    cost: u64,
}

fn read_csv(path: &Path) -> Vec<Decided> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (set, y, cost) = (col("set"), col("y"), col("cost"));
    let u: Vec<usize> = (1..=3).map(|l| col(&format!("u{l}"))).collect();
    lines
        .map(|line| {
            let row: Vec<&str> = line.split(',').collect();
            let bits = |s: &str| s.parse::<f64>().unwrap().to_bits();
            Decided {
                set: row[set].parse().unwrap(),
                values: u
                    .iter()
                    .map(|&c| (!row[c].is_empty()).then(|| bits(row[c])))
                    .collect(),
                y: bits(row[y]),
                cost: bits(row[cost]),
            }
        })
        .collect()
}

/// The runner's simulation of a job, with the optimizer deciding: the same draws in the same
/// order (initial points, then per round the variables left to chance, the outcome's noise and
/// a learned cost's noise).
fn optimizer_rounds(opt: &mut Optimizer, f: &dyn Objective, learned: bool) -> Vec<Decided> {
    let tn = TruncatedNormal::with_truncated_variance(0.5, VARIANCE, 0.0, 1.0).unwrap();
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(SEED);
    let initial: Vec<([f64; 3], f64)> = (0..INITIAL)
        .map(|_| {
            let u: [f64; 3] = core::array::from_fn(|_| uniform_open(&mut rng));
            (
                u,
                f.eval(&u) + NOISE * standard_normal::<f64, Platform>(&mut rng),
            )
        })
        .collect();
    for (u, y) in &initial {
        opt.tell_prior(u, *y).unwrap();
    }
    let mut rounds = Vec::new();
    while rounds.len() < MAX_ROUNDS {
        let Some(ask) = opt.ask().unwrap() else { break };
        let x: [f64; 3] = core::array::from_fn(|l| {
            ask.values[l].unwrap_or_else(|| tn.sample(uniform_open(&mut rng)))
        });
        let y = f.eval(&x) + NOISE * standard_normal::<f64, Platform>(&mut rng);
        let cost = if learned {
            (COSTS[ask.set] + COST_NOISE * standard_normal::<f64, Platform>(&mut rng))
                .clamp(0.001, 2.0)
        } else {
            ask.cost
        };
        if opt.spent() + cost > BUDGET {
            break;
        }
        opt.tell(&x, y, cost).unwrap();
        rounds.push(Decided {
            set: ask.set,
            values: ask.values.iter().map(|v| v.map(f64::to_bits)).collect(),
            y: y.to_bits(),
            cost: cost.to_bits(),
        });
    }
    rounds
}

fn index(algorithm: &str) -> usize {
    ALGORITHMS.iter().position(|a| *a == algorithm).unwrap()
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("costbo-optrun-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn an_f64_optimizer_opened_from_a_file_makes_the_runners_decisions() {
    let settings = Settings::from_toml(&grid()).unwrap();
    let out = fresh_dir("grid");
    experiment::run(
        &settings,
        &RunOptions {
            out: out.clone(),
            jobs: 2,
            progress: false,
        },
    )
    .unwrap();
    let f = objectives::build("hartmann3", &Options::default()).unwrap();
    let lengthscale = settings.objectives[0].lengthscale_for(3);
    let cells = settings.cells().unwrap();
    assert_eq!(cells.len(), ALGORITHMS.len());
    for (cell, algorithm) in cells.iter().zip(ALGORITHMS) {
        assert_eq!(cell.algorithm_name, algorithm);
    }
    let mut compared = 0;
    for cell in &cells {
        let csv = experiment::job_path(&out, cell, SEED);
        let runner = read_csv(&csv);
        assert!(
            runner.len() >= 2,
            "{}: the runner played {} rounds",
            cell.name,
            runner.len()
        );
        compared += runner.len();
        let algorithm = cell.algorithm_name.as_str();
        let file = experiment_file(algorithm, lengthscale);
        let mut opt =
            Optimizer::from_toml_str(&file).unwrap_or_else(|e| panic!("{algorithm}: {e}\n{file}"));
        let ours = optimizer_rounds(&mut opt, f.as_ref(), algorithm.starts_with("unknown-cost"));
        assert_eq!(ours.len(), runner.len(), "{algorithm}: rounds played");
        for (r, (a, b)) in ours.iter().zip(&runner).enumerate() {
            assert_eq!(a, b, "{algorithm}: round {} differs", r + 1);
        }
        // A restored optimizer is at the same place: the next decision is the same.
        let mut restored = Optimizer::from_json(&opt.to_json()).unwrap();
        assert_eq!(
            restored.ask().unwrap(),
            opt.ask().unwrap(),
            "{algorithm}: the restored optimizer's next decision"
        );
    }
    assert!(compared >= 50, "{compared} rounds compared");
    // The file's refitted models are refitted: their decisions are not the fixed model's.
    for (rule, model) in [
        ("etc-ada", "+fitted"),
        ("ucb-psq", "+fitted"),
        ("unknown-cost-code", "+adam"),
    ] {
        let fixed = read_csv(&experiment::job_path(&out, &cells[index(rule)], SEED));
        let fitted = read_csv(&experiment::job_path(
            &out,
            &cells[index(&format!("{rule}{model}"))],
            SEED,
        ));
        assert_ne!(
            fixed, fitted,
            "{rule}: the fitted model decides as the fixed one"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// The experiment file of `costbo pandora`'s loop over the box of `d` variables: one control
/// set of every variable at cost 1 (uniform costs), Matérn-5/2 refitted before every decision
/// as BoTorch fits it, decisions while the spent budget is below the total.
fn box_file(rule: &str, d: usize, budget: f64, seed: u64) -> String {
    let mut f = String::new();
    let _ = writeln!(
        f,
        "[experiment]\nname = \"box-{rule}\"\nseed = {seed}\nbudget = {budget:?}\n\
         capacity = {}\nbank = 1\nrule = \"{rule}\"\nbudget_rule = \"while-below\"\n\
         [model]\nkernel = \"matern52\"\nlengthscale = {:?}\noutputscale = 1.0\n\
         noise = 1e-4\nmean = 0.0\nfit = \"botorch\"\nrefit_every = 1",
        costbo_lab::pandora::run::CAPACITY,
        std::f64::consts::LN_2.exp()
    );
    let names: Vec<String> = (0..d).map(|l| format!("\"x{l}\"")).collect();
    for name in &names {
        let _ = writeln!(
            f,
            "[[variable]]\nname = {name}\nlower = 0.0\nupper = 1.0\n\
             distribution = {{ kind = \"uniform\" }}"
        );
    }
    let _ = writeln!(
        f,
        "[[control_set]]\nvariables = [{}]\ncost = 1.0",
        names.join(", ")
    );
    f
}

/// Ackley in `d` dimensions (paper 002's scaling), the box loops' objective here.
fn ackley(d: usize) -> Box<dyn Objective> {
    let options = Options {
        dim: Some(d),
        seed: None,
    };
    objectives::build("ackley-pbgi", &options).unwrap()
}

/// `costbo pandora`'s loop of `rule` on `f` with the fitted model and the pool optimiser: its
/// rounds after the initial design.
fn box_loop(
    f: &dyn Objective,
    rule: &str,
    seed: u64,
    budget: f64,
    cost: costbo_lab::pandora::run::BoxCost,
) -> costbo_lab::pandora::run::BoxTrace {
    use costbo_lab::pandora::run::{run_box, BoxModel, BoxRun};
    let run = BoxRun {
        rule: rule.to_string(),
        seed,
        budget,
        cost,
        model: BoxModel::Fitted,
        paper_optimiser: false,
    };
    run_box(f, &run).unwrap()
}

#[test]
fn an_f64_optimizer_opened_from_a_file_makes_the_box_loops_decisions() {
    use costbo_core::qmc::Sobol;
    use costbo_lab::pandora::run::{initial_points, BoxCost};
    const D: usize = 3;
    let f = ackley(D);
    let (budget, seed) = (10.0, 5);
    for rule in ["pbgi", "pbgi-d", "log-ei", "gp-ucb"] {
        let trace = box_loop(f.as_ref(), rule, seed, budget, BoxCost::Uniform);
        let mut opt = Optimizer::from_toml_str(&box_file(rule, D, budget, seed))
            .unwrap_or_else(|e| panic!("{rule}: {e}"));
        let mut sobol = Sobol::<D>::new(seed).unwrap();
        for _ in 0..initial_points(D) {
            let u = sobol.next_point();
            opt.tell_prior(&u, f.evaluate(&u).unwrap().value).unwrap();
        }
        let mut ys = Vec::new();
        while let Some(ask) = opt.ask().unwrap() {
            let u: Vec<f64> = ask.values.iter().map(|v| v.unwrap()).collect();
            let y = f.evaluate(&u).unwrap().value;
            opt.tell(&u, y, 1.0).unwrap();
            ys.push(y.to_bits());
        }
        let loop_ys: Vec<u64> = trace.rounds.iter().map(|r| r.y.to_bits()).collect();
        assert_eq!(ys.len(), 10, "{rule}: rounds of the optimizer");
        assert_eq!(ys, loop_ys, "{rule}: the outcomes of the decisions differ");
    }
}

/// [`box_file`] with the costs learned: no control set has a cost (the file's `costs =
/// "learned"`).
fn learned_box_file(rule: &str, d: usize, budget: f64, seed: u64) -> String {
    box_file(rule, d, budget, seed)
        .replace(
            "budget_rule = \"while-below\"\n",
            "budget_rule = \"while-below\"\ncosts = \"learned\"\n",
        )
        .replace("\ncost = 1.0", "")
}

#[test]
fn an_f64_optimizer_learns_the_cost_function_as_the_box_loop_does() {
    use costbo_core::qmc::Sobol;
    use costbo_lab::pandora::run::{initial_points, BoxCost};
    const D: usize = 3;
    let f = ackley(D);
    let (budget, seed) = (60.0, 4);
    let cost = |u: &[f64]| BoxCost::MeanLinearLearned.at(u).unwrap();
    for rule in ["pbgi", "pbgi-d", "log-eipc"] {
        // The box loop's controller: the core's, of this dimension, with a GP of ln(cost).
        let trace = box_loop(f.as_ref(), rule, seed, budget, BoxCost::MeanLinearLearned);
        let mut opt = Optimizer::from_toml_str(&learned_box_file(rule, D, budget, seed))
            .unwrap_or_else(|e| panic!("{rule}: {e}"));
        assert!(opt.learns_costs() && opt.learns_cost_function(), "{rule}");
        let mut sobol = Sobol::<D>::new(seed).unwrap();
        for i in 0..initial_points(D) {
            let u = sobol.next_point();
            let y = f.evaluate(&u).unwrap().value;
            if i == 0 {
                // The cost model needs what each point cost.
                let e = opt.tell_prior(&u, y).unwrap_err();
                assert!(e.message().contains("tell_prior_with_cost"), "{e}");
            }
            opt.tell_prior_with_cost(&u, y, cost(&u)).unwrap();
        }
        let (mut ys, mut errors) = (Vec::new(), Vec::new());
        while let Some(ask) = opt.ask().unwrap() {
            let u: Vec<f64> = ask.values.iter().map(|v| v.unwrap()).collect();
            let (y, c) = (f.evaluate(&u).unwrap().value, cost(&u));
            // The asked cost is the cost model's estimate at the asked point.
            errors.push((ask.cost / c).ln().abs());
            opt.tell(&u, y, c).unwrap();
            ys.push(y.to_bits());
        }
        let loop_ys: Vec<u64> = trace.rounds.iter().map(|r| r.y.to_bits()).collect();
        assert!(ys.len() >= 4, "{rule}: {} rounds", ys.len());
        assert_eq!(ys, loop_ys, "{rule}: the outcomes of the decisions differ");
        let spent: f64 = trace.rounds.last().map_or(0.0, |r| r.spent);
        assert_eq!(opt.spent().to_bits(), spent.to_bits(), "{rule}");
        // Costs run from 1 to 21 over the box; from 2(d + 1) costs on, the model's estimate at
        // the asked point is within 10 % of the truth (6 % at worst in these runs).
        let worst = errors.iter().cloned().fold(0.0, f64::max);
        assert!(worst < 0.1, "{rule}: |ln(asked / true cost)| up to {worst}");
    }
}
