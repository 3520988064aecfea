//! # costbo-demo
//!
//! `costbo demo` (and the `costbo-demo` program, the same run in a crate small enough that a
//! fresh clone builds it in about a minute): a simulated nutrient-dosing experiment.
//!
//! Five nutrients (Ca, B, NH₃, K in log µM, and pH) feed plant trays whose growth follows the
//! plant simulator. Each round the controller (the core's ETC-Ada rule on a model refitted by
//! MAP every few rounds, with the assay's known noise and growth standardised by at least its
//! historical spread, and wider confidence bounds: [`OURS`], see [`GROWTH_SCALE_FLOOR`] and
//! [`FITTED_BETA`]) decides which nutrients to dose —
//! paper 000's control sets, each with a cost — and how much; the others come from the source
//! water, drawn from truncated normals and measured. The tray's growth is observed with noise
//! and the cost is charged to the budget. Growth is printed standardised (the simulator's
//! output) and as leaf area (its physical unit, [`leaf_area`]).
//!
//! After the shown run, the same controller, the paper's ETC-Ada on its fixed kernel
//! ([`PAPER`]) and a cost-unaware rule ([`COST_UNAWARE`]) play a few seeds each, so that the
//! summary and the plot say what the fitted model and cost-awareness buy.
//!
//! Regret is measured honestly: the expected growth of each decision (its control set and
//! doses, averaged over the source water) is computed with its own 4 096-sample bank,
//! independent of the 128-point bank the controller decides with, and compared with the best
//! achievable expected growth (the simulator's optimum, reached by dosing all five nutrients).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use costbo_core::dist::{Distribution, TruncatedNormal};
use costbo_core::driver::{Controller, ControllerSpec, Decision, DriverError, Refit, Settings};
use costbo_core::gp::{FitConfig, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::policy::explore_then_commit::PlaysPerGroup;
use costbo_core::policy::ucb_cvs::EpsilonSchedule;
use costbo_core::policy::{AnyPolicy, PolicySpec};
use costbo_core::problem::{ControlSet, Problem, Variable};
use costbo_core::random::{standard_normal, uniform_open};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

use costbo_eval::curves::{mean_commit_budget, mean_curve, mean_stderr, Metric, Trace};
use costbo_eval::files::thread_cpu_seconds;
use costbo_eval::judge::Judge;
use costbo_eval::plot::{Curve, Figure, Panel};
use costbo_eval::{errln, outln};
use costbo_objectives::plant::Plant;
use costbo_objectives::platform::Platform;

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

/// The plant setting of a run: the costs of the control sets and the source water's spread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlantSetting {
    /// Cost of each control set per tray-round.
    pub costs: [f64; M],
    /// Truncated variance of each nutrient in the source water, as a share of its squared
    /// range (paper 000's variances: 0.02, 0.04, 0.08).
    pub variance: f64,
}

/// The demo's setting: paper 000's moderate costs and its middle variance.
pub const DEMO_SETTING: PlantSetting = PlantSetting {
    costs: COSTS,
    variance: 0.04,
};

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

/// A decision rule of the demo on a model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contender {
    /// Name in the summary.
    pub label: &'static str,
    /// Name in the plot's legend.
    pub short: &'static str,
    /// The rule.
    pub policy: PolicySpec<f64>,
    /// Whether the model is refitted (MAP with the known noise and the scale floor, every
    /// [`REFIT_EVERY`] rounds; see [`GROWTH_SCALE_FLOOR`]) or the papers' fixed isotropic
    /// kernel.
    pub fitted: bool,
    /// Width of the confidence bounds, `μ ± βσ`: each contender's own, chosen on the tuning
    /// seeds (see [`FITTED_BETA`] and [`PAPER`]).
    pub beta: f64,
}

/// Rounds between refits of the fitted model: the runner's default too (`costbo run`'s
/// `refit_every`, chosen by measurement: docs/performance.md, "Fitted model").
pub const REFIT_EVERY: usize = 5;

/// The demo's controller: ETC-Ada on the fitted model (our variant).
pub const OURS: Contender = Contender {
    label: "ETC-Ada, fitted model (ours)",
    short: "ours",
    policy: PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive),
    fitted: true,
    beta: FITTED_BETA,
};
/// Paper 000's ETC-Ada as the paper runs it (fixed isotropic kernel, lengthscale 0.2).
pub const PAPER: Contender = Contender {
    label: "ETC-Ada, fixed model (paper 000)",
    short: "paper ETC-Ada",
    policy: PolicySpec::ExploreThenCommit(PlaysPerGroup::Adaptive),
    fitted: false,
    beta: 2.0,
};
/// The rule declared better than [`OURS`] on the tuning seeds and tested on seeds it was not
/// chosen on (docs/results/variants/PLAN.md, log of 2026-11-29): explore-then-commit with 120
/// plays per cost group instead of ETC-Ada's `⌊4/c⌋`, on the same fitted model and β. Why:
/// [`OURS`]'s misses on the tuning seeds were exploration failures (their best *played* dose
/// was below 90 % of the best too), and ETC-Ada explores with 12 of the demo's 200. On its
/// test seeds it was not significantly better and short of the demo's goal
/// (docs/results/variants/demo.md), so the demo keeps [`OURS`].
pub const ETC_120: Contender = Contender {
    label: "ETC-120, fitted model (candidate)",
    short: "ETC-120",
    policy: PolicySpec::ExploreThenCommit(PlaysPerGroup::Fixed(120)),
    fitted: true,
    beta: FITTED_BETA,
};
/// A cost-unaware baseline: UCB-PSQ (always doses all five) on the same fitted model.
pub const COST_UNAWARE: Contender = Contender {
    label: "UCB-PSQ, fitted model (cost-unaware)",
    short: "cost-unaware",
    policy: PolicySpec::UcbCvs(EpsilonSchedule::Constant(0.0)),
    fitted: true,
    beta: FITTED_BETA,
};

/// Leaf area in the simulator's physical unit from the standardised growth (the constants of
/// `data/plant/model.json`'s `destandardize`).
pub fn leaf_area(standardised: f64) -> f64 {
    standardised * LEAF_AREA_STD + LEAF_AREA_MEAN
}
const LEAF_AREA_MEAN: f64 = 108.590_357_774_651_41;
const LEAF_AREA_STD: f64 = 107.557_290_945_674_15;

/// Standard deviation of the simulated growth measurement (standardised growth, i.e. about
/// 1.1 leaf area): the assay's noise, which a lab knows from repeated measurements of one tray.
pub const MEASUREMENT_NOISE_SD: f64 = 0.01;

/// The least scale by which the fitted model standardises growth: 1 standardised, i.e. the
/// spread of leaf area over the simulator's training trays (107.6, `data/plant/model.json`),
/// which a lab knows from its past experiments.
pub const GROWTH_SCALE_FLOOR: f64 = 1.0;

/// Width of the fitted contenders' confidence bounds, `μ ± βσ` (the papers' β is 2, which the
/// paper's contender keeps). Why wider: the plant simulator is flat on 92 % of the box and its
/// good region is small, and the fitted model, which learns a small outputscale from flat data,
/// is confident too early with β = 2 (runs settle on a second peak at 72 % of the best, or never
/// leave the flat region). Chosen on seeds 1..=20 among β ∈ {2, 4, 8, 12, 16} and checked on
/// seeds 21..=60 it was not chosen on: there ours reaches ≥ 90 % of the best growth in 35 of 40
/// runs with β = 8 and 12 of 40 with β = 2 (docs/performance.md, "The demo").
pub const FITTED_BETA: f64 = 8.0;

/// Refits the fitted contenders' model: MAP with BoTorch's priors and ARD lengthscales
/// ([`FitConfig::botorch_map_with_scale_floor`]), with two pieces of lab knowledge instead of
/// estimates from the first few trays:
/// - the noise variance is the assay's, [`MEASUREMENT_NOISE_SD`]², not learned;
/// - growth is standardised by at least [`GROWTH_SCALE_FLOOR`].
///
/// Why: the plant simulator is flat (its prior mean, leaf area 108.6) on about 92 % of the
/// dosing box and good only in a small region, so the first trays usually all measure
/// noise. Standardised by the spread of those trays (≈ the noise, 0.01) and with the noise
/// learned, the model explained the data as noise with long lengthscales, saw no reason to
/// explore, and in the default run dosed 192 trays in the flat region (0 % of the best
/// growth). With the floor the priors keep an outputscale of the size growth really varies
/// by, so unexplored doses stay uncertain until measured. Measured over seeds 1..=20 in
/// `docs/performance.md`: the default run goes from 0 % to 98 % of the best growth, but the
/// share of runs that find the good region does not measurably rise (11/20 → 10/20 at
/// ≥ 90 %); it is still largely luck. A failed fit leaves the model as it was (as the controller's own
/// refits do).
fn fit_model(ctl: &mut DemoController) {
    let config = FitConfig::botorch_map_with_scale_floor(
        ctl.gp().outputs(),
        MEASUREMENT_NOISE_SD * MEASUREMENT_NOISE_SD,
        GROWTH_SCALE_FLOOR,
    );
    let _ = ctl.fit_hyperparameters(&config);
}

/// The demo's controller type.
type DemoController = Controller<f64, N, D, M, Vec<f64>, Vec<[f64; D]>, AnyPolicy<f64, D, M, 1, 1>>;

/// Most seeds of the comparison (3000 runs: about an hour on two cores).
pub const MAX_SEEDS: u64 = 1000;

/// While the comparison runs, a progress line on standard error after every this much time.
const PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// Stack of each comparison run's worker: four times the 2 MiB a spawned thread gets by
/// default, which the runs used before they shared the lab's pool.
const RUN_STACK: usize = 8 << 20;

/// Settings of the demo.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    /// Total budget.
    pub budget: f64,
    /// Seed of the shown run; the comparison uses this seed and the next `seeds − 1`.
    pub seed: u64,
    /// Seeds of the comparison of [`OURS`], [`PAPER`] and [`COST_UNAWARE`] (0: none).
    pub seeds: u64,
    /// Where the plot and the round-by-round CSV go.
    pub out: PathBuf,
}

/// Largest `--budget`: 10 000 rounds of the cheapest (0.1) control set.
pub const MAX_BUDGET: f64 = 1_000.0;

/// The demo's command line (`costbo demo`, `costbo-demo`).
#[derive(Debug, Clone, clap::Args)]
pub struct DemoArgs {
    /// Total budget (dosing costs: 0.1 per pair of nutrients, 0.2 per triple, 1 for all five;
    /// paper 000's plant budget).
    #[arg(long, default_value_t = 200.0)]
    pub budget: f64,
    /// Seed of the simulation (61: the first of the held-out seeds 61..=160 of
    /// docs/results/variants/PLAN.md; seeds 1..=20 tuned the contenders' β).
    #[arg(long, default_value_t = 61)]
    pub seed: u64,
    /// Seeds of the comparison with the paper's ETC-Ada and a cost-unaware baseline, from
    /// --seed on (0: none; 8 keeps the whole demo under a minute on 2 cores; the held-out
    /// success rates over 100 seeds are in docs/results/variants/demo.md).
    #[arg(long, default_value_t = 8)]
    pub seeds: u64,
    /// Directory for demo.csv and demo.svg.
    #[arg(long, default_value = "results/demo")]
    pub out: PathBuf,
}

impl DemoArgs {
    /// The options, once every argument is checked and the output directory can be written.
    pub fn options(self) -> Result<DemoOptions, String> {
        if !(self.budget > 0.0 && self.budget <= MAX_BUDGET) {
            return Err(format!(
                "--budget {:?}: must be in (0, {MAX_BUDGET}] (at most 10 000 rounds of the \
                 cheapest set, cost 0.1)",
                self.budget
            ));
        }
        if self.seeds > MAX_SEEDS || self.seed.checked_add(self.seeds).is_none() {
            return Err(format!(
                "--seeds {}: the comparison runs at most {MAX_SEEDS} seeds (three runs each) \
                 from --seed {}",
                self.seeds, self.seed
            ));
        }
        costbo_eval::files::ensure_writable(&self.out)?;
        Ok(DemoOptions {
            budget: self.budget,
            seed: self.seed,
            seeds: self.seeds,
            out: self.out,
        })
    }
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

/// One run of one contender.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// Every round.
    pub rounds: Vec<Round>,
    /// The controller's recommendation at the end.
    pub recommendation: Decision<f64, D>,
    /// Expected growth of the recommendation (independent bank, standardised).
    pub recommended_expected: f64,
    /// Budget spent.
    pub spent: f64,
    /// CPU seconds of the run (its thread's; `None` where the platform does not say).
    pub cpu_seconds: Option<f64>,
}

/// The comparison of one contender over the seeds.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// The contender.
    pub contender: Contender,
    /// One run per seed, in seed order.
    pub runs: Vec<RunResult>,
}

/// The result of the demo.
#[derive(Debug, Clone)]
pub struct DemoResult {
    /// The shown run ([`OURS`] with the options' seed).
    pub shown: RunResult,
    /// The simulator's optimum (standardised).
    pub optimum: f64,
    /// [`OURS`], [`PAPER`] and [`COST_UNAWARE`] over the seeds (empty with `seeds = 0`).
    pub comparison: Vec<Comparison>,
}

fn set_name(set: ControlSet) -> String {
    let names: Vec<&str> = (0..D)
        .filter(|&l| set.contains(l))
        .map(|l| NUTRIENTS[l].0.split(' ').next().unwrap_or(""))
        .collect();
    format!("{{{}}}", names.join(", "))
}

/// The best achievable expected growth (standardised): the simulator's optimum,
/// `data/plant/model.json`'s, reached by dosing all five nutrients.
pub const OPTIMUM: f64 = 2.194_116_175_648_000_8;

/// Runs the demo, printing progress to stdout; writes `demo.csv`, `demo.svg` and `demo.png`
/// into `out`.
pub fn run(options: &DemoOptions) -> Result<DemoResult, String> {
    outln!(
        "costbo demo: dosing 5 nutrients into plant trays with {}, budget {}",
        OURS.label,
        options.budget
    );
    outln!(
        "control sets and costs: {}",
        control_sets()
            .iter()
            .zip(COSTS)
            .map(|(s, c)| format!("{} {c}", set_name(*s)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let shown = simulate(&OURS, options.budget, options.seed, true)?;
    print_run(&shown);
    let comparison = compare(options)?;
    let result = DemoResult {
        shown,
        optimum: OPTIMUM,
        comparison,
    };
    print_comparison(&result, options);
    std::fs::create_dir_all(&options.out).map_err(|e| format!("{}: {e}", options.out.display()))?;
    write_csv(&options.out.join("demo.csv"), &result.shown)?;
    let plot = figure(&result, options);
    for name in ["demo.svg", "demo.png"] {
        let path = options.out.join(name);
        let written = if name.ends_with(".svg") {
            plot.write_svg(&path)
        } else {
            plot.write_png(&path)
        };
        written.map_err(|e| format!("{}: {e}", path.display()))?;
    }
    outln!(
        "wrote {}, {} and {}",
        options.out.join("demo.csv").display(),
        options.out.join("demo.svg").display(),
        options.out.join("demo.png").display()
    );
    Ok(result)
}

/// [`OURS`], [`PAPER`] and [`COST_UNAWARE`] over `options.seeds` seeds from `options.seed`,
/// in parallel; the shown run is simulated again (it is deterministic, so it is the same run).
fn compare(options: &DemoOptions) -> Result<Vec<Comparison>, String> {
    if options.seeds == 0 {
        return Ok(Vec::new());
    }
    let contenders = [OURS, PAPER, COST_UNAWARE];
    let jobs: Vec<(usize, u64)> = (0..contenders.len())
        .flat_map(|c| (0..options.seeds).map(move |k| (c, options.seed + k)))
        .collect();
    outln!(
        "\ncomparing {} over seeds {}..={} ({} runs)",
        contenders.map(|c| c.label).join(", "),
        options.seed,
        options.seed + options.seeds - 1,
        jobs.len()
    );
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let done = std::sync::atomic::AtomicUsize::new(0);
    let finished = std::sync::atomic::AtomicBool::new(false);
    let results: Vec<std::sync::Mutex<Option<Result<RunResult, String>>>> =
        jobs.iter().map(|_| std::sync::Mutex::new(None)).collect();
    let start = std::time::Instant::now();
    let pool = std::thread::scope(|scope| {
        let pool = scope.spawn(|| {
            let ran = costbo_eval::pool::for_each(
                &jobs,
                threads.min(jobs.len()),
                RUN_STACK,
                |i, &(c, seed)| {
                    let r = simulate(&contenders[c], options.budget, seed, false);
                    if let Ok(mut slot) = results[i].lock() {
                        *slot = Some(r);
                    }
                    done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                },
            );
            finished.store(true, std::sync::atomic::Ordering::Relaxed);
            ran
        });
        // Progress on standard error while the workers run, so a long comparison is never
        // silent (the report on standard output stays as it is).
        let mut shown = std::time::Duration::ZERO;
        while !finished.load(std::sync::atomic::Ordering::Relaxed) {
            let elapsed = start.elapsed();
            if elapsed >= shown + PROGRESS_EVERY {
                shown = elapsed;
                errln!(
                    "  {}/{} comparison runs finished ({} s)",
                    done.load(std::sync::atomic::Ordering::Relaxed),
                    jobs.len(),
                    elapsed.as_secs()
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        pool.join()
    });
    pool.map_err(|_| "a comparison run panicked".to_string())??;
    let mut runs = Vec::with_capacity(jobs.len());
    for slot in results {
        let r = slot
            .into_inner()
            .map_err(|_| "a comparison run panicked".to_string())?
            .ok_or("a comparison run did not finish")?;
        runs.push(r?);
    }
    let mut runs = runs.into_iter();
    Ok(contenders
        .iter()
        .map(|c| Comparison {
            contender: *c,
            runs: runs.by_ref().take(options.seeds as usize).collect(),
        })
        .collect())
}

/// One run of `contender` with `budget` and `seed` in the demo's setting; with `verbose`, a
/// line per round.
pub fn simulate(
    contender: &Contender,
    budget: f64,
    seed: u64,
    verbose: bool,
) -> Result<RunResult, String> {
    simulate_in(contender, &DEMO_SETTING, budget, seed, verbose)
}

/// [`simulate`] in another plant setting.
pub fn simulate_in(
    contender: &Contender,
    setting: &PlantSetting,
    budget: f64,
    seed: u64,
    verbose: bool,
) -> Result<RunResult, String> {
    let plant = Plant::shared().map_err(|e| format!("{e}"))?;
    let costs = setting.costs;
    let water = TruncatedNormal::with_truncated_variance(0.5, setting.variance, 0.0, 1.0)
        .map_err(|e| format!("{e}"))?;
    // The source water: each nutrient a normal at the middle of its range, truncated to the
    // range, with the setting's share of the squared range as its variance.
    let mut variables = [Variable {
        lower: 0.0,
        upper: 1.0,
        uncontrolled: Distribution::Constant(0.5),
    }; D];
    for (v, &(_, lo, hi)) in variables.iter_mut().zip(&NUTRIENTS) {
        let tn = TruncatedNormal::with_truncated_variance(
            (lo + hi) / 2.0,
            setting.variance * (hi - lo) * (hi - lo),
            lo,
            hi,
        )
        .map_err(|e| format!("{e}"))?;
        *v = Variable {
            lower: lo,
            upper: hi,
            uncontrolled: Distribution::TruncatedNormal(tn),
        };
    }
    let problem = Problem::<f64, D, M>::new(&variables, &control_sets(), Some(&costs))
        .map_err(|e| format!("{e}"))?;
    let mut settings = Settings {
        // The fitted contenders are refitted by `fit_model` below, not by the controller.
        refit: Refit::Never,
        ..Settings::new(budget, seed)
    };
    settings.beta = contender.beta;
    let spec = ControllerSpec {
        problem,
        kernel: Kernel::squared_exponential([0.2; D], 1.0).map_err(|e| format!("{e}"))?,
        mean: 0.0,
        noise: 1e-4,
        when_full: WhenFull::DropOldest,
        bank_seed: seed,
        settings,
        policy: contender.policy,
    };
    let mut ctl: DemoController = spec
        .build(vec![0.0; tri_len(N)], vec![[0.0; D]; 128])
        .map_err(|e| format!("{e}"))?;
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(seed ^ 0x5EED);
    // The independent bank that measures regret: 4 096 i.i.d. draws of the source water.
    let draws: Vec<[f64; D]> = (0..4096)
        .map(|_| core::array::from_fn(|_| water.sample(uniform_open(&mut rng))))
        .collect();
    let judge = Judge::from_points(draws);
    let expected = |set: ControlSet, u: &[f64; D]| judge.expected(&plant, set, u);
    let noise = MEASUREMENT_NOISE_SD;
    // Five trays grown before the experiment, with random doses of everything (not charged).
    for _ in 0..5 {
        let u: [f64; D] = core::array::from_fn(|_| uniform_open(&mut rng));
        let x = ctl.problem().to_physical(&u);
        ctl.observe_initial(
            &x,
            plant.value_and_gradient(&u).0 + noise * standard_normal::<f64, Platform>(&mut rng),
        )
        .map_err(|e| format!("{e}"))?;
    }
    // The fast factorised path and candidate screening need this much memory; without it
    // every candidate costs an exponential per bank point and training input.
    let mut workspace = vec![0.0; ctl.workspace_len()];
    let start = Instant::now();
    let cpu_start = thread_cpu_seconds();
    let mut rounds: Vec<Round> = Vec::new();
    let mut best = f64::NEG_INFINITY;
    loop {
        if contender.fitted && ctl.rounds().is_multiple_of(REFIT_EVERY) && ctl.pending().is_none() {
            fit_model(&mut ctl);
        }
        let d = match ctl.suggest_with_workspace(&mut workspace) {
            Ok(d) => d,
            Err(DriverError::BudgetExhausted) => break,
            Err(e) => return Err(format!("round {}: {e}", rounds.len() + 1)),
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
        ctl.observe(&x, growth, costs[d.set])
            .map_err(|e| format!("{e}"))?;
        let e = expected(d.control, &u);
        best = best.max(e);
        let r = Round {
            spent: ctl.spent(),
            set: d.set,
            expected: e,
            simple_regret: OPTIMUM - best,
        };
        if verbose {
            let per_round = start.elapsed().as_secs_f64() / (rounds.len() + 1) as f64;
            let left = (budget - ctl.spent()).max(0.0) / costs[d.set] * per_round;
            outln!(
                "round {:>3}  dose {:<22} spent {:>6.2}/{:<6}  expected growth {:>7.4} ({:>5.1} leaf area)  simple regret {:.4}  (~{:.0}s left)",
                rounds.len() + 1,
                set_name(d.control),
                r.spent,
                budget,
                e,
                leaf_area(e),
                r.simple_regret,
                left
            );
        }
        rounds.push(r);
    }
    let recommendation = ctl.recommend().map_err(|e| format!("{e}"))?;
    let ru: [f64; D] = ctl.problem().to_unit(&core::array::from_fn(|l| {
        recommendation.values[l].unwrap_or(NUTRIENTS[l].1)
    }));
    Ok(RunResult {
        rounds,
        recommendation,
        recommended_expected: expected(recommendation.control, &ru),
        spent: ctl.spent(),
        cpu_seconds: thread_cpu_seconds()
            .zip(cpu_start)
            .map(|(end, start)| end - start),
    })
}

/// Share of the best achievable growth in whole percent, standardised and in leaf area.
fn shares(growth: f64) -> (f64, f64) {
    // Whole percent; `+ 0.0` turns the −0 of a growth just below zero into 0.
    (
        (100.0 * growth / OPTIMUM).round() + 0.0,
        (100.0 * leaf_area(growth) / leaf_area(OPTIMUM)).round() + 0.0,
    )
}

fn print_run(r: &RunResult) {
    outln!();
    outln!("What was learned");
    outln!("  rounds played             {}", r.rounds.len());
    outln!("  budget spent              {:.2}", r.spent);
    outln!(
        "  recommended to dose       {}",
        set_name(r.recommendation.control)
    );
    for (l, v) in r.recommendation.values.iter().enumerate() {
        match v {
            Some(v) => outln!("    {:<14} {:>8.3}", NUTRIENTS[l].0, v),
            None => outln!("    {:<14} {:>8}", NUTRIENTS[l].0, "(water)"),
        }
    }
    let (pct, pct_area) = shares(r.recommended_expected);
    outln!(
        "  expected growth           {:.4} standardised (model: {:.4}), leaf area {:.1}",
        r.recommended_expected,
        r.recommendation.score,
        leaf_area(r.recommended_expected)
    );
    outln!(
        "  best achievable           {:.4} standardised, leaf area {:.1}",
        OPTIMUM,
        leaf_area(OPTIMUM)
    );
    outln!(
        "  regret of recommendation  {:.4} standardised, leaf area {:.1}",
        OPTIMUM - r.recommended_expected,
        leaf_area(OPTIMUM) - leaf_area(r.recommended_expected)
    );
    outln!(
        "  the recommendation reaches {pct:.0} % of the best achievable growth ({pct_area:.0} % of its leaf area)"
    );
    if let Some(last) = r.rounds.last() {
        outln!("  simple regret (played)    {:.4}", last.simple_regret);
    }
}

fn print_comparison(r: &DemoResult, options: &DemoOptions) {
    if r.comparison.is_empty() {
        return;
    }
    outln!();
    outln!(
        "Over seeds {}..={}, budget {} (mean ± standard error; leaf area = standardised × {:.2} + {:.2}, data/plant/model.json):",
        options.seed,
        options.seed + options.seeds - 1,
        options.budget,
        LEAF_AREA_STD,
        LEAF_AREA_MEAN
    );
    outln!(
        "  {:<38} {:>17} {:>17} {:>8} {:>20} {:>17} {:>9}",
        "",
        "recommended",
        "leaf area",
        "of best",
        "≥ 90 % [95 % CI]",
        "simple regret",
        "CPU s/run"
    );
    for c in &r.comparison {
        let rec: Vec<f64> = c.runs.iter().map(|x| x.recommended_expected).collect();
        let area: Vec<f64> = rec.iter().map(|&g| leaf_area(g)).collect();
        let regret: Vec<f64> = c
            .runs
            .iter()
            .filter_map(|x| x.rounds.last().map(|l| l.simple_regret))
            .collect();
        let cpu: Vec<f64> = c.runs.iter().filter_map(|x| x.cpu_seconds).collect();
        let secs = mean_stderr(&cpu).map_or(f64::NAN, |(m, _)| m);
        let ms = |v: &[f64]| {
            mean_stderr(v).map_or("–".to_string(), |(m, s)| format!("{m:.3} ± {s:.3}"))
        };
        let (pct, _) = shares(mean_stderr(&rec).map_or(0.0, |(m, _)| m));
        outln!(
            "  {:<38} {:>17} {:>17} {:>7.0}% {:>20} {:>17} {:>9.1}",
            c.contender.label,
            ms(&rec),
            ms(&area),
            pct,
            successes(&rec),
            ms(&regret),
            secs
        );
        // Each seed's share, so that a mean is not mistaken for a typical run.
        outln!(
            "  {:<38} % of best per seed: {}",
            "",
            rec.iter()
                .map(|&g| format!("{:.0}", shares(g).0))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
}

/// Runs reaching 90 % of the best growth, `k/n`, with the rate's Wilson interval at 95 %.
fn successes(recommended: &[f64]) -> String {
    let k = recommended.iter().filter(|&&g| g >= 0.9 * OPTIMUM).count();
    let n = recommended.len();
    match costbo_eval::stats::wilson(k, n, costbo_eval::stats::Z95) {
        Some((lo, hi)) => format!("{k}/{n} [{:.0}–{:.0} %]", 100.0 * lo, 100.0 * hi),
        None => format!("{k}/{n}"),
    }
}

fn write_csv(path: &Path, r: &RunResult) -> Result<(), String> {
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
    costbo_eval::files::write_atomic(path, &s)
}

fn trace(r: &RunResult) -> Trace {
    Trace {
        spent: r.rounds.iter().map(|x| x.spent).collect(),
        cost: r.rounds.iter().map(|x| COSTS[x.set]).collect(),
        set: r.rounds.iter().map(|x| x.set).collect(),
        simple_regret: r.rounds.iter().map(|x| x.simple_regret).collect(),
    }
}

/// Simple regret against budget spent, drawn with the reproduction's plotting code: the shown
/// run, and each contender's mean ± standard error over the comparison's seeds. A diamond
/// marks the budget after which a run only dosed all five nutrients (the optimal control
/// set), if every run of the curve settled there.
fn figure(r: &DemoResult, options: &DemoOptions) -> Figure {
    let shown = trace(&r.shown);
    let mut curves = vec![Curve {
        label: format!("{}, seed {}", OURS.short, options.seed),
        stderr: vec![0.0; shown.spent.len()],
        x: shown.spent.clone(),
        mean: shown.simple_regret.clone(),
        marker: shown.commit_budget(&[M - 1]),
        band: None,
    }];
    for c in &r.comparison {
        let traces: Vec<Trace> = c.runs.iter().map(trace).collect();
        let mean = mean_curve(&traces, options.budget, 100, Metric::SimpleRegret);
        curves.push(Curve {
            label: format!("{}, {} seeds", c.contender.short, c.runs.len()),
            x: mean.budget,
            mean: mean.mean,
            stderr: mean.stderr,
            marker: mean_commit_budget(&traces, &[M - 1]),
            band: None,
        });
    }
    Figure {
        title: "costbo demo: cost-aware dosing on the plant simulator".into(),
        rows: 1,
        cols: 1,
        panels: vec![Panel {
            title: format!("moderate costs, budget {}", options.budget),
            curves,
        }],
        x_label: "budget spent".into(),
        y_label: "simple regret (standardised growth)".into(),
        panel_width: 640,
        panel_height: 400,
    }
}
