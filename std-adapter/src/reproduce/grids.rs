//! The papers' experiment grids as built-in runner settings.
//!
//! Each study is a list of [`Part`]s, each one runner grid with its own output subdirectory
//! (the runner's grid is a full product, and the appendix comparison uses only some of the main
//! grid's settings). The settings are plain [`Settings`] values, so `costbo run` with an
//! equivalent TOML file writes to and resumes the same cells.

use crate::experiment::{CostSpec, JudgePoints, ObjectiveSpec, PriorMean, Seeds, Settings};

/// One runner grid of a study.
#[derive(Debug, Clone)]
pub struct Part {
    /// Subdirectory of the study's output directory.
    pub dir: &'static str,
    /// What this grid reproduces (for the report).
    pub about: &'static str,
    /// The grid.
    pub settings: Settings,
}

/// Paper 000's sets over three variables: every non-empty subset, in cost order.
const SETS_3: [&[usize]; 7] = [&[1], &[2], &[3], &[1, 2], &[1, 3], &[2, 3], &[1, 2, 3]];
/// Paper 000's plant sets (also paper 001's).
const SETS_PLANT: [&[usize]; 7] = [
    &[1, 2],
    &[3, 4],
    &[4, 5],
    &[1, 2, 3],
    &[2, 3, 4],
    &[3, 4, 5],
    &[1, 2, 3, 4, 5],
];
/// Paper 000's airfoil sets: seven pairs, none a subset of another, no full set.
const SETS_AIRFOIL: [&[usize]; 7] = [
    &[4, 5],
    &[2, 5],
    &[1, 4],
    &[2, 3],
    &[3, 5],
    &[1, 2],
    &[3, 4],
];
/// Paper 001's sets over Hartmann-6/Ackley-6 plus six ignored variables.
const SETS_EXT12: [&[usize]; 7] = [
    &[1, 2, 3],
    &[4, 5, 6],
    &[7, 8, 9],
    &[10, 11, 12],
    &[1, 2, 3, 4, 5, 6],
    &[7, 8, 9, 10, 11, 12],
    &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
];

/// The five algorithms of paper 000's Figure 2, in legend order.
pub const UCB_CVS_MAIN: [&str; 5] = ["ts-psq", "ucb-psq", "etc-50", "etc-100", "etc-ada"];
/// The per-unit-cost variants of paper 000's appendix B (Figure 3).
pub const UCB_CVS_PER_COST: [&str; 3] = ["ts-per-cost", "ucb-per-cost", "ei-per-cost"];
/// Paper 001's method and its baselines.
pub const UNKNOWN_COST_ALGORITHMS: [&str; 4] = ["unknown-cost", "ts-psq", "ucb-psq", "etc-50"];

/// Bank of paper 000's grid: 64 scrambled Sobol points. The decision rule's cost is
/// proportional to the bank, and a 64-point bank picks the same control set as the paper's
/// 1024 i.i.d. samples as often as a 128-point one does (45/50, 48/50, 50/50 against 44/50,
/// 50/50, 50/50; `docs/performance.md`), so the full grid fits in two hours on two cores.
pub const UCB_CVS_BANK: usize = 64;

/// Seeds of EI per unit cost in the full appendix grid. One of its decisions took 168 CPU
/// seconds with the 128-point bank (32 fantasy paths of 1024 features, averaged over the bank
/// for every candidate), so it runs a reduced configuration: [`EI_SEEDS`] seeds, an
/// [`EI_BANK`]-point bank and the first [`EI_BUDGET`] of the budget (compared with the other
/// algorithms at that budget); the report says so.
pub const EI_SEEDS: u64 = 2;
/// Bank of EI per unit cost in the full appendix grid.
pub const EI_BANK: usize = 16;
/// Budget of EI per unit cost in the full appendix grid (the GP sample's budget is 50).
pub const EI_BUDGET: f64 = 5.0;

fn objective(name: &str, sets: &[&[usize]], budget: f64) -> ObjectiveSpec {
    ObjectiveSpec {
        name: name.to_string(),
        dim: None,
        seed: None,
        sets: sets.iter().map(|s| s.to_vec()).collect(),
        budget,
        lengthscale: None,
    }
}

fn named(costs: &[&str]) -> Vec<CostSpec> {
    costs
        .iter()
        .map(|c| CostSpec::Named(c.to_string()))
        .collect()
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The runner's defaults (bank 128, judge 512 scrambled Sobol points, 5 initial points, noise
/// 0.01, β = 2, ε 0.1, cost noise 0.01) with the given grid.
fn settings(
    objectives: Vec<ObjectiveSpec>,
    costs: Vec<CostSpec>,
    variances: Vec<f64>,
    algorithms: Vec<String>,
    seeds: u64,
) -> Settings {
    Settings {
        objectives,
        costs,
        variances,
        algorithms,
        seeds: Seeds::Count(seeds),
        bank: 128,
        judge: 512,
        judge_points: JudgePoints::Sobol,
        initial: 5,
        noise: 0.01,
        beta: 2.0,
        epsilon: 0.1,
        cost_noise: 0.01,
        max_rounds: None,
        prior_mean: PriorMean::Zero,
    }
}

fn with_bank(s: Settings) -> Settings {
    Settings {
        bank: UCB_CVS_BANK,
        ..s
    }
}

/// Paper 000 (UCB-CVS): the Figure 2 grid (4 objectives × 3 cost presets × 3 variances × 5
/// algorithms) and the appendix B comparison (GP sample, moderate costs, every variance, the
/// per-unit-cost variants; EI per unit cost with [`EI_SEEDS`] seeds). `seeds` is the number of
/// seeds of the main grid (the paper: 10).
pub fn ucb_cvs(seeds: u64) -> Vec<Part> {
    let variances = vec![0.02, 0.04, 0.08];
    let gp = objective("gp-sample", &SETS_3, 50.0);
    vec![
        Part {
            dir: "grid",
            about: "Figure 2: every objective, cost preset and variance; TS-PSQ, UCB-PSQ, ETC-50, \
                    ETC-100, ETC-Ada",
            settings: with_bank(settings(
                vec![
                    gp.clone(),
                    objective("hartmann3", &SETS_3, 50.0),
                    objective("airfoil", &SETS_AIRFOIL, 50.0),
                    objective("plant", &SETS_PLANT, 200.0),
                ],
                named(&["cheap", "moderate", "expensive"]),
                variances.clone(),
                strings(&UCB_CVS_MAIN),
                seeds,
            )),
        },
        Part {
            dir: "appendix-b",
            about: "Appendix B (Figure 3): TS-PSQ and UCB-PSQ per unit cost on the GP sample, \
                    moderate costs",
            settings: with_bank(settings(
                vec![gp.clone()],
                named(&["moderate"]),
                variances.clone(),
                strings(&UCB_CVS_PER_COST[..2]),
                seeds,
            )),
        },
        Part {
            dir: "appendix-b-ei",
            about: "Appendix B (Figure 3): EI per unit cost on the GP sample, moderate costs, \
                    reduced: 2 seeds, bank 16, budget 5",
            settings: Settings {
                bank: EI_BANK,
                ..settings(
                    vec![ObjectiveSpec {
                        budget: EI_BUDGET,
                        ..gp
                    }],
                    named(&["moderate"]),
                    variances,
                    strings(&UCB_CVS_PER_COST[2..]),
                    seeds.min(EI_SEEDS),
                )
            },
        },
    ]
}

/// A smoke version of [`ucb_cvs`]: Hartmann-3 only (cheap to evaluate, so the best values
/// of the sets take no time), budget 1.5, moderate and expensive costs, one variance, 2 seeds,
/// small banks; every algorithm but EI per unit cost (minutes per decision) and every report
/// path runs.
pub fn ucb_cvs_quick() -> Vec<Part> {
    let small = |mut s: Settings| {
        s.bank = 16;
        s.judge = 256;
        s
    };
    let gp = objective("hartmann3", &SETS_3, 1.5);
    vec![
        Part {
            dir: "grid",
            about: "smoke grid: Hartmann-3, budget 1.5, moderate and expensive costs",
            settings: small(settings(
                vec![gp.clone()],
                named(&["moderate", "expensive"]),
                vec![0.04],
                strings(&UCB_CVS_MAIN),
                2,
            )),
        },
        Part {
            dir: "appendix-b",
            about: "smoke appendix B: TS and UCB per unit cost, budget 0.8",
            settings: small(settings(
                vec![ObjectiveSpec { budget: 0.8, ..gp }],
                named(&["moderate"]),
                vec![0.04],
                strings(&UCB_CVS_PER_COST[..2]),
                2,
            )),
        },
    ]
}

/// Most rounds of a job in paper 001's grid: the authors' code runs its rule for 450 rounds
/// and then plays random sets; we stop there instead. Without a cap a rule that settles on a
/// 0.01-cost set plays up to 4 000 rounds, each with 14 bank-averaged maximisations over a GP
/// of 1 024 points (airfoil jobs were still running after 30 minutes).
pub const UNKNOWN_COST_MAX_ROUNDS: usize = 450;

/// Paper 001's settings on top of the runner's defaults: the 64-point bank of paper 000's
/// grid, [`UNKNOWN_COST_MAX_ROUNDS`], and a GP prior mean at the initial observations' mean
/// (the authors' code fits a constant mean; Ackley's values lie near −20).
fn paper_001(s: Settings) -> Settings {
    Settings {
        bank: UCB_CVS_BANK,
        max_rounds: Some(UNKNOWN_COST_MAX_ROUNDS),
        prior_mean: PriorMean::Initial,
        ..s
    }
}

/// Paper 001 (unknown random costs): Hartmann-6 and Ackley-6 each extended by six ignored
/// variables, plant and airfoil; cheap and moderate mean costs; variances 0.02 and 0.04; budget
/// 100; the proposed rule against TS-PSQ, UCB-PSQ and ETC-50; `seeds` seeds (the paper: 5).
pub fn unknown_cost(seeds: u64) -> Vec<Part> {
    vec![Part {
        dir: "grid",
        about: "Figures 1 and 2: every objective, both cost settings and both variances",
        settings: paper_001(settings(
            vec![
                objective("hartmann6-ext12", &SETS_EXT12, 100.0),
                objective("ackley6-ext12", &SETS_EXT12, 100.0),
                objective("plant", &SETS_PLANT, 100.0),
                objective("airfoil", &SETS_AIRFOIL, 100.0),
            ],
            named(&["cheap", "moderate"]),
            vec![0.02, 0.04],
            strings(&UNKNOWN_COST_ALGORITHMS),
            seeds,
        )),
    }]
}

/// A smoke version of [`unknown_cost`]: Hartmann-6 extended, budget 2, moderate costs, one
/// variance, 2 seeds, small banks, with the full grid's round cap and prior mean.
pub fn unknown_cost_quick() -> Vec<Part> {
    let mut s = paper_001(settings(
        vec![objective("hartmann6-ext12", &SETS_EXT12, 2.0)],
        named(&["moderate"]),
        vec![0.04],
        strings(&UNKNOWN_COST_ALGORITHMS),
        2,
    ));
    s.bank = 16;
    s.judge = 256;
    vec![Part {
        dir: "grid",
        about: "smoke grid: Hartmann-6 extended to 12 variables, budget 2, moderate costs",
        settings: s,
    }]
}
