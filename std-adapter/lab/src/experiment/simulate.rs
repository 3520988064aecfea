//! One run: a grid cell with one seed, simulated like `costbo demo`.

use costbo_core::dist::{Distribution, TruncatedNormal};
use costbo_core::driver::{
    Controller, ControllerSpec, DriverError, Refit, Settings as CtlSettings, DEFAULT_NOISE_FLOOR,
    PAPER_001_ADAM_LEARNING_RATE, PAPER_001_ADAM_STEPS,
};
use costbo_core::gp::WhenFull;
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::problem::{ControlSet, Problem, Variable};
use costbo_core::random::{standard_normal, uniform_open};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

use super::config::{
    Algorithm, Model, PriorMean, MAX_OBSERVED_COST, MIN_OBSERVED_COST, PAPER_001_EXPLORATION,
};
use super::judge::Expected;
use super::Progress;
use crate::objectives::Objective;
use crate::platform::Platform;
use costbo_core::policy::AnyPolicy;

pub use super::config::MAX_SETS;
/// Random Fourier features of the Thompson and EI rules (paper 000: 1024).
pub const FEATURES: usize = 1024;

/// Everything one run needs.
pub struct JobInput<'a> {
    /// The objective (maximised, unit cube).
    pub objective: &'a dyn Objective,
    /// Control sets.
    pub sets: &'a [ControlSet],
    /// Cost (mean cost, for the unknown-cost rule) of each set.
    pub costs: &'a [f64],
    /// Truncated variance of the uncontrolled variables.
    pub variance: f64,
    /// The rule.
    pub algorithm: Algorithm,
    /// Seed of the run.
    pub seed: u64,
    /// Budget.
    pub budget: f64,
    /// Algorithm's bank size.
    pub bank: usize,
    /// Initial (uncharged) points.
    pub initial: usize,
    /// Observation noise std.
    pub noise: f64,
    /// Observed-cost noise std (unknown-cost rule).
    pub cost_noise: f64,
    /// Most rounds to play (`None`: until the budget is spent).
    pub max_rounds: Option<usize>,
    /// The GP's constant prior mean.
    pub prior_mean: PriorMean,
    /// Fixed hyperparameters, or refitted.
    pub model: Model,
    /// Rounds between refits of a fitted model.
    pub refit_every: usize,
    /// β.
    pub beta: f64,
    /// SE lengthscale.
    pub lengthscale: f64,
    /// The independent bank.
    pub judge: &'a dyn Expected,
    /// Best expected value of each set (independent bank).
    pub best: &'a [f64],
}

/// One round of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    /// 1-based round.
    pub round: usize,
    /// Budget spent after the round.
    pub spent: f64,
    /// Cost charged this round.
    pub cost: f64,
    /// 0-based index of the control set played.
    pub set: usize,
    /// The control set.
    pub control: ControlSet,
    /// Unit-cube value of each controlled variable (`None`: left to chance).
    pub values: Vec<Option<f64>>,
    /// Noisy observation.
    pub y: f64,
    /// Expected value of the decision (independent bank).
    pub expected: f64,
    /// Best expected value overall minus the best expected value of any decision so far.
    pub simple_regret: f64,
    /// Sum of instantaneous regrets (best minus expected value of each decision).
    pub cumulative_regret: f64,
    /// Sum of cost × instantaneous regret.
    pub cost_weighted_regret: f64,
}

/// Runs one job with GP capacity `N` over `D` variables. Deterministic in `input.seed`.
pub fn run<const N: usize, const D: usize>(
    input: &JobInput<'_>,
    progress: &Progress,
) -> Result<Vec<Round>, String> {
    let err = |e: &dyn std::fmt::Display| format!("{e}");
    let f = input.objective;
    let tn = TruncatedNormal::with_truncated_variance(0.5, input.variance, 0.0, 1.0)
        .map_err(|e| err(&e))?;
    let variables = [Variable {
        lower: 0.0,
        upper: 1.0,
        uncontrolled: Distribution::TruncatedNormal(tn),
    }; D];
    // A rule that learns costs sees none in advance.
    let known = !input.algorithm.learns_costs();
    let problem =
        Problem::<f64, D, MAX_SETS>::new(&variables, input.sets, known.then_some(input.costs))
            .map_err(|e| err(&e))?;
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(input.seed);
    let initial: Vec<([f64; D], f64)> = (0..input.initial)
        .map(|_| {
            let u: [f64; D] = core::array::from_fn(|_| uniform_open(&mut rng));
            (
                u,
                f.eval(&u) + input.noise * standard_normal::<f64, Platform>(&mut rng),
            )
        })
        .collect();
    let mean = match input.prior_mean {
        PriorMean::Zero => 0.0,
        PriorMean::Initial if initial.is_empty() => 0.0,
        PriorMean::Initial => initial.iter().map(|(_, y)| y).sum::<f64>() / initial.len() as f64,
    };
    let spec = ControllerSpec {
        problem,
        kernel: Kernel::squared_exponential([input.lengthscale; D], 1.0).map_err(|e| err(&e))?,
        mean,
        noise: 1e-4,
        when_full: WhenFull::DropOldest,
        bank_seed: input.seed ^ 0xBA4C_0000_0000_0000,
        settings: CtlSettings {
            beta: input.beta,
            refit: match input.model {
                Model::Fixed => Refit::Never,
                // A floor far below the grids' measurement noise (10⁻⁴), which the fit finds.
                Model::Fitted => Refit::Map {
                    every: input.refit_every,
                    noise_floor: DEFAULT_NOISE_FLOOR,
                },
                Model::Adam => Refit::AdamWhenSpent {
                    from_spent: PAPER_001_EXPLORATION,
                    lengthscale: input.lengthscale,
                    outputscale: 1.0,
                    noise: 1e-4,
                    mean,
                    steps: PAPER_001_ADAM_STEPS,
                    learning_rate: PAPER_001_ADAM_LEARNING_RATE,
                },
            },
            ..CtlSettings::new(input.budget, input.seed)
        },
        policy: input.algorithm,
    };
    let mut ctl: Controller<f64, N, D, MAX_SETS, _, _, AnyPolicy<f64, D, MAX_SETS, FEATURES, N>> =
        spec.build(vec![0.0; tri_len(N)], vec![[0.0; D]; input.bank])
            .map_err(|e| err(&e))?;
    for (u, y) in &initial {
        ctl.observe_initial(u, *y).map_err(|e| err(&e))?;
    }
    // The fast factorised path and candidate screening need this much memory; without it
    // every candidate costs an exponential per bank point and training input.
    let mut workspace = vec![0.0; ctl.workspace_len()];
    let optimum = input.best.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut rounds: Vec<Round> = Vec::new();
    let (mut best_so_far, mut cumulative, mut weighted) = (f64::NEG_INFINITY, 0.0, 0.0);
    while input.max_rounds.is_none_or(|r| rounds.len() < r) {
        let d = match ctl.suggest_with_workspace(&mut workspace) {
            Ok(d) => d,
            Err(DriverError::BudgetExhausted) => break,
            Err(e) => return Err(format!("round {}: {e}", rounds.len() + 1)),
        };
        // Unit cube: physical and unit coordinates coincide.
        let x: [f64; D] = core::array::from_fn(|l| {
            d.values[l].unwrap_or_else(|| tn.sample(uniform_open(&mut rng)))
        });
        let y = f.eval(&x) + input.noise * standard_normal::<f64, Platform>(&mut rng);
        let cost = if known {
            input.costs[d.set]
        } else {
            // Paper 001's code: mean + 0.01·N(0, 1), clipped to [0.001, 2]. The settings refuse
            // a rule that learns costs on mean costs outside (Settings::validate), so the clip
            // only trims the noise.
            (input.costs[d.set] + input.cost_noise * standard_normal::<f64, Platform>(&mut rng))
                .clamp(MIN_OBSERVED_COST, MAX_OBSERVED_COST)
        };
        if ctl.spent() + cost > input.budget {
            // Only with unknown costs: the realised cost is over what is left; the round is
            // not played and the run ends.
            break;
        }
        ctl.observe(&x, y, cost).map_err(|e| err(&e))?;
        let expected = input.judge.expected(f, d.control, &x);
        best_so_far = best_so_far.max(expected);
        let instant = optimum - expected;
        cumulative += instant;
        weighted += cost * instant;
        rounds.push(Round {
            round: rounds.len() + 1,
            spent: ctl.spent(),
            cost,
            set: d.set,
            control: d.control,
            values: d.values.to_vec(),
            y,
            expected,
            simple_regret: optimum - best_so_far,
            cumulative_regret: cumulative,
            cost_weighted_regret: weighted,
        });
        progress.round(cost / input.budget);
    }
    Ok(rounds)
}
