//! One run: a grid cell with one seed, simulated like `costbo demo`, the decisions made by an
//! `f64` [`Optimizer`] built from the cell (the experiment file it writes is the cell's).

use costbo_core::dist::TruncatedNormal;
use costbo_core::driver::{
    DEFAULT_NOISE_FLOOR, PAPER_001_ADAM_LEARNING_RATE, PAPER_001_ADAM_STEPS,
};
use costbo_core::problem::ControlSet;
use costbo_core::random::{standard_normal, uniform_open};
use costbo_std::optimizer::{Chance, ExperimentBuilder};
use costbo_std::Optimizer;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

use super::config::{
    Algorithm, Model, PriorMean, MAX_OBSERVED_COST, MIN_OBSERVED_COST, PAPER_001_EXPLORATION,
};
use super::judge::Expected;
use super::{Progress, JOB_STACK};
use crate::objectives::Objective;
use crate::platform::Platform;

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
    /// The rule's name as an experiment file gives it ([`super::config::file_rule_name`]).
    pub rule: String,
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

/// Runs one job on an `f64` [`Optimizer`] whose model holds `capacity` observations (the
/// oldest dropped beyond). Deterministic in `input.seed`.
pub fn run(
    input: &JobInput<'_>,
    capacity: usize,
    progress: &Progress,
) -> Result<Vec<Round>, String> {
    let err = |e: &dyn std::fmt::Display| format!("{e}");
    let f = input.objective;
    let d = f.dim();
    let tn = TruncatedNormal::with_truncated_variance(0.5, input.variance, 0.0, 1.0)
        .map_err(|e| err(&e))?;
    // A rule that learns costs sees none in advance.
    let known = !input.algorithm.learns_costs();
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(input.seed);
    let initial: Vec<(Vec<f64>, f64)> = (0..input.initial)
        .map(|_| {
            let u: Vec<f64> = (0..d).map(|_| uniform_open(&mut rng)).collect();
            let y = f.eval(&u) + input.noise * standard_normal::<f64, Platform>(&mut rng);
            (u, y)
        })
        .collect();
    let mean = match input.prior_mean {
        PriorMean::Zero => 0.0,
        PriorMean::Initial if initial.is_empty() => 0.0,
        PriorMean::Initial => initial.iter().map(|(_, y)| y).sum::<f64>() / initial.len() as f64,
    };
    let mut opt = optimizer(input, capacity, mean, known)?;
    for (u, y) in &initial {
        opt.tell_prior(u, *y).map_err(|e| err(&e))?;
    }
    let optimum = input.best.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut rounds: Vec<Round> = Vec::new();
    let (mut best_so_far, mut cumulative, mut weighted) = (f64::NEG_INFINITY, 0.0, 0.0);
    while input.max_rounds.is_none_or(|r| rounds.len() < r) {
        let ask = match opt.ask() {
            Ok(Some(ask)) => ask,
            Ok(None) => break,
            Err(e) => return Err(format!("round {}: {e}", rounds.len() + 1)),
        };
        // Unit cube: physical and unit coordinates coincide.
        let x: Vec<f64> = ask
            .values
            .iter()
            .map(|v| v.unwrap_or_else(|| tn.sample(uniform_open(&mut rng))))
            .collect();
        let y = f.eval(&x) + input.noise * standard_normal::<f64, Platform>(&mut rng);
        let cost = if known {
            input.costs[ask.set]
        } else {
            // Paper 001's code: mean + 0.01·N(0, 1), clipped to [0.001, 2]. The settings refuse
            // a rule that learns costs on mean costs outside (Settings::validate), so the clip
            // only trims the noise.
            (input.costs[ask.set] + input.cost_noise * standard_normal::<f64, Platform>(&mut rng))
                .clamp(MIN_OBSERVED_COST, MAX_OBSERVED_COST)
        };
        if opt.spent() + cost > input.budget {
            // Only with unknown costs: the realised cost is over what is left; the round is
            // not played and the run ends.
            break;
        }
        opt.tell(&x, y, cost).map_err(|e| err(&e))?;
        let control = input.sets[ask.set];
        let expected = input.judge.expected(f, control, &x);
        best_so_far = best_so_far.max(expected);
        let instant = optimum - expected;
        cumulative += instant;
        weighted += cost * instant;
        rounds.push(Round {
            round: rounds.len() + 1,
            spent: opt.spent(),
            cost,
            set: ask.set,
            control,
            values: ask.values,
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

/// The job's experiment as an `f64` optimizer: the unit cube, every uncontrolled variable a
/// normal around 0.5 truncated to it, a squared-exponential kernel of outputscale 1 and noise
/// variance 10⁻⁴, the bank seeded apart from the rules (the seed with its high bits flipped).
fn optimizer(
    input: &JobInput<'_>,
    capacity: usize,
    mean: f64,
    known: bool,
) -> Result<Optimizer, String> {
    let d = input.objective.dim();
    let names: Vec<String> = (1..=d).map(|l| format!("u{l}")).collect();
    let mut b = ExperimentBuilder::new("runner", input.budget)
        .seed(input.seed)
        .bank_seed(input.seed ^ 0xBA4C_0000_0000_0000)
        .rule(&input.rule)
        .capacity(capacity)
        .bank(input.bank)
        .beta(input.beta)
        .kernel("se", input.lengthscale, 1.0)
        .noise(1e-4, mean);
    let chance = Chance::TruncatedNormal {
        mean: 0.5,
        variance: input.variance,
    };
    for name in &names {
        b = b.variable(name, "", 0.0, 1.0, chance);
    }
    for (set, cost) in input.sets.iter().zip(input.costs) {
        let members: Vec<&str> = (0..d)
            .filter(|&l| set.contains(l))
            .map(|l| names[l].as_str())
            .collect();
        b = if known {
            b.control_set(&members, *cost)
        } else {
            b.control_set_of_learned_cost(&members)
        };
    }
    b = match input.model {
        Model::Fixed => b,
        // A floor far below the grids' measurement noise (10⁻⁴), which the fit finds.
        Model::Fitted => b.fitted(input.refit_every, DEFAULT_NOISE_FLOOR),
        Model::Adam => b.fitted_with_adam(
            PAPER_001_EXPLORATION,
            PAPER_001_ADAM_STEPS,
            PAPER_001_ADAM_LEARNING_RATE,
        ),
    };
    // A job runs on a thread of JOB_STACK bytes, which the model's calls need no more than.
    Ok(b.build()
        .map_err(|e| e.to_string())?
        .with_caller_stack(JOB_STACK))
}
