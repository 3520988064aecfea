//! The settings grid, read from TOML, and its expansion into cells and jobs.

use std::fmt;

use costbo_core::policy::unknown_cost::{Exploration, UnknownCostConfig};
use costbo_core::policy::{PolicySpec, PolicySpecError, RuleDefaults, RULES};
use costbo_core::problem::ControlSet;
use serde::Deserialize;

/// Paper 000's cost presets (for 7 control sets, in cost order).
pub const CHEAP: [f64; 7] = [0.01, 0.01, 0.01, 0.1, 0.1, 0.1, 1.0];
/// Paper 000's "moderate" costs.
pub const MODERATE: [f64; 7] = [0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 1.0];
/// Paper 000's "expensive" costs.
pub const EXPENSIVE: [f64; 7] = [0.6, 0.6, 0.6, 0.8, 0.8, 0.8, 1.0];

/// The experiment grid: every objective × costs × variance × algorithm × seed.
///
/// ```toml
/// seeds = 2                 # or a list: [0, 5, 7]
/// costs = ["cheap"]         # presets cheap/moderate/expensive, or lists [0.1, 0.2, ...]
/// variances = [0.04]        # truncated variance of each uncontrolled variable
/// algorithms = ["etc-ada", "ucb-psq"]
///
/// [[objectives]]
/// name = "hartmann3"
/// sets = [[1], [2], [3], [1, 2], [1, 3], [2, 3], [1, 2, 3]]   # 1-based variable indices
/// budget = 2.0
/// ```
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The problems.
    pub objectives: Vec<ObjectiveSpec>,
    /// Cost settings (each a preset name or a list with one cost per control set).
    pub costs: Vec<CostSpec>,
    /// Truncated variances of the uncontrolled variables (normal at 0.5 truncated to [0, 1]).
    pub variances: Vec<f64>,
    /// Algorithm names (see [`Algorithm::parse`]).
    pub algorithms: Vec<String>,
    /// Seeds: a count `n` (seeds `0..n`) or an explicit list.
    pub seeds: Seeds,
    /// Size of the algorithm's (quasi-random) sample bank.
    #[serde(default = "default_bank")]
    pub bank: usize,
    /// Size of the independent bank that measures regret.
    #[serde(default = "default_judge")]
    pub judge: usize,
    /// How the judge's bank is drawn: `"sobol"` (scrambled Sobol points, the default) or
    /// `"iid"` (independent draws).
    #[serde(default)]
    pub judge_points: JudgePoints,
    /// Uniformly random initial points (not charged).
    #[serde(default = "default_initial")]
    pub initial: usize,
    /// Observation noise standard deviation.
    #[serde(default = "default_noise")]
    pub noise: f64,
    /// Width of the confidence bounds.
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// ε of `ucb-cvs` when the name carries none.
    #[serde(default = "default_epsilon")]
    pub epsilon: f64,
    /// Standard deviation of the observed cost around its mean (unknown-cost algorithm).
    #[serde(default = "default_cost_noise")]
    pub cost_noise: f64,
    /// Stop each run after this many rounds even if budget is left (`None`: run until the
    /// budget is spent). Paper 001's grid needs it: a rule that settles on a 0.01-cost set
    /// would otherwise play thousands of rounds.
    #[serde(default)]
    pub max_rounds: Option<usize>,
    /// The GP's constant prior mean.
    #[serde(default)]
    pub prior_mean: PriorMean,
    /// The model of every algorithm written without a `+fitted` suffix: `"fixed"` (the
    /// default, the papers' fixed isotropic kernel) or `"fitted"`.
    #[serde(default)]
    pub model: Model,
    /// Rounds between the refits of a fitted model (1: before every decision).
    #[serde(default = "default_refit_every")]
    pub refit_every: usize,
}

/// The GP model of a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// The papers' model: an isotropic squared-exponential kernel of the objective's
    /// lengthscale, outputscale 1, noise variance 10⁻⁴, the prior mean of the settings; never
    /// refitted.
    #[default]
    Fixed,
    /// Every hyperparameter fitted by MAP every `refit_every` rounds: ARD lengthscales,
    /// outputscale, constant mean and noise variance, on standardised outputs
    /// ([`costbo_core::driver::Refit::Map`]).
    Fitted,
}

/// The suffix of an algorithm name that runs it on the fitted model (`etc-ada+fitted`).
pub const FITTED_SUFFIX: &str = "+fitted";

/// The rule's name and the model of an algorithm name as written in a cell
/// (`etc-ada+fitted` → (`etc-ada`, fitted)).
pub fn split_model(name: &str) -> (&str, Model) {
    match name.strip_suffix(FITTED_SUFFIX) {
        Some(rule) => (rule, Model::Fitted),
        None => (name, Model::Fixed),
    }
}

/// Rounds between refits of a fitted model unless the settings say otherwise (chosen by
/// measurement: docs/performance.md, "Fitted model").
pub const DEFAULT_REFIT_EVERY: usize = 5;

fn default_refit_every() -> usize {
    DEFAULT_REFIT_EVERY
}

/// The GP's constant prior mean (the kernel's outputscale stays 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PriorMean {
    /// Zero: right for objectives of about unit scale around 0 (paper 000's code).
    #[default]
    Zero,
    /// The mean of the initial (uncharged) observations: a fixed stand-in for the constant
    /// mean that paper 001's code fits, needed for objectives far from 0 (Ackley's values lie
    /// near −20, where a zero-mean GP expects every unexplored point to be 20 units better).
    Initial,
}

/// One problem of the grid.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObjectiveSpec {
    /// Objective name (see `costbo objective list`).
    pub name: String,
    /// Dimension, for objectives defined in several.
    pub dim: Option<usize>,
    /// Seed of a random objective (gp-sample).
    pub seed: Option<u64>,
    /// Control sets, each a list of 1-based variable indices.
    pub sets: Vec<Vec<usize>>,
    /// Total budget.
    pub budget: f64,
    /// SE lengthscale (default 0.1 for d ≤ 3, else 0.2, as paper 000's code).
    pub lengthscale: Option<f64>,
}

/// A cost setting.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum CostSpec {
    /// `cheap`, `moderate` or `expensive`.
    Named(String),
    /// One cost per control set.
    List(Vec<f64>),
}

/// Seeds of the grid.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Seeds {
    /// Seeds `0..n`.
    Count(u64),
    /// These seeds.
    List(Vec<u64>),
}

fn default_bank() -> usize {
    128
}
fn default_judge() -> usize {
    512
}

/// How the regret judge's bank is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JudgePoints {
    /// Scrambled Sobol points through the inverse CDF: 512 of them average the grids'
    /// objectives 5–30 times more accurately than 2 048 i.i.d. draws (docs/performance.md).
    #[default]
    Sobol,
    /// Independent draws.
    Iid,
}

impl JudgePoints {
    /// `size` points of this kind, in words ("512 scrambled Sobol points").
    pub fn describe(self, size: usize) -> String {
        match self {
            JudgePoints::Sobol => format!("{size} scrambled Sobol points"),
            JudgePoints::Iid => format!("{size} i.i.d. draws"),
        }
    }
}

fn default_initial() -> usize {
    5
}
fn default_noise() -> f64 {
    0.01
}
fn default_beta() -> f64 {
    2.0
}
fn default_epsilon() -> f64 {
    0.1
}
fn default_cost_noise() -> f64 {
    0.01
}

/// Paper 001's tolerance `α` (its experiments' value at the start of exploitation): the
/// unknown-cost rule's, and the one in the quality and cost regrets of every rule.
pub const PAPER_001_ALPHA: f64 = 0.1;

/// A decision rule of the grid: a rule of the core's registry.
pub type Algorithm = PolicySpec<f64>;

/// The rule called `name` in the core's registry ([`costbo_core::policy::RULES`]): `ucb-psq`,
/// `ucb-cvs` (ε from the settings) or `ucb-cvs:EPS`, `etc-50`, `etc-100`, `etc-N`, `etc-ada`,
/// `ts-psq`, `ei-psq`, `ucb-per-cost`, `ts-per-cost`, `ei-per-cost`, `unknown-cost`,
/// `random-search`, each optionally followed by `+fitted` (the rule on the fitted model; see
/// [`split_model`]). `d` is the dimension (the unknown-cost rule halves α every `d`
/// exploitation rounds, as paper 001).
pub fn parse_algorithm(name: &str, epsilon: f64, d: usize) -> Result<Algorithm, String> {
    let (rule, _) = split_model(name);
    let defaults = RuleDefaults::new(epsilon).with_unknown_cost(UnknownCostConfig {
        exploration: Exploration::BudgetFraction(0.6),
        alpha: PAPER_001_ALPHA,
        halve_every: Some(d as u32),
    });
    PolicySpec::parse(rule, &defaults).map_err(|e| match e {
        PolicySpecError::BadEpsilon => {
            format!("algorithm `{name}`: ε must be a number ≥ 0")
        }
        PolicySpecError::BadPlays => format!("algorithm `{name}`: plays per group must be > 0"),
        PolicySpecError::BadLambda => format!("algorithm `{name}`: λ must be a number > 0"),
        PolicySpecError::UnknownName => {
            let known: Vec<&str> = RULES.iter().map(|r| r.name).collect();
            format!("unknown algorithm `{name}` (known: {})", known.join(", "))
        }
    })
}

/// One cell of the grid: everything but the seed.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Directory name of the cell (unique within the grid).
    pub name: String,
    /// Index into [`Settings::objectives`].
    pub objective: usize,
    /// Label of the cost setting (`cheap`, ... or the list).
    pub costs_label: String,
    /// Cost of each control set.
    pub costs: Vec<f64>,
    /// Truncated variance of the uncontrolled variables.
    pub variance: f64,
    /// Algorithm name as written in the settings, with `+fitted` added when the settings'
    /// `model` is fitted.
    pub algorithm_name: String,
}

impl Cell {
    /// The cell's model (from its algorithm name).
    pub fn model(&self) -> Model {
        split_model(&self.algorithm_name).1
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

/// Keeps letters, digits, `.`, `-` and `_`; anything else becomes `_`.
pub(crate) fn sanitise(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

impl ObjectiveSpec {
    /// A label naming the objective with its options (`hartmann3`, `ackley-d4`, `gp-sample-s3`).
    pub fn label(&self) -> String {
        let mut s = self.name.clone();
        if let Some(d) = self.dim {
            s.push_str(&format!("-d{d}"));
        }
        if let Some(seed) = self.seed {
            s.push_str(&format!("-s{seed}"));
        }
        sanitise(&s)
    }

    /// The control sets as bitmasks (0-based), checked against the dimension `d`.
    pub fn control_sets(&self, d: usize) -> Result<Vec<ControlSet>, String> {
        if self.sets.is_empty() {
            return Err(format!("{}: no control sets", self.name));
        }
        self.sets
            .iter()
            .map(|s| {
                if s.is_empty() || s.iter().any(|&l| l == 0 || l > d) {
                    return Err(format!(
                        "{}: control set {s:?} must hold 1-based indices in 1..={d}",
                        self.name
                    ));
                }
                let zero: Vec<usize> = s.iter().map(|l| l - 1).collect();
                Ok(ControlSet::of(&zero))
            })
            .collect()
    }

    /// The kernel lengthscale.
    pub fn lengthscale_for(&self, d: usize) -> f64 {
        self.lengthscale.unwrap_or(if d <= 3 { 0.1 } else { 0.2 })
    }
}

impl Settings {
    /// Parses TOML text.
    pub fn from_toml(text: &str) -> Result<Self, String> {
        let s: Settings = toml::from_str(text).map_err(|e| e.to_string())?;
        s.validate()?;
        Ok(s)
    }

    fn validate(&self) -> Result<(), String> {
        if self.objectives.is_empty() {
            return Err("no [[objectives]]".into());
        }
        for o in &self.objectives {
            if !(o.budget.is_finite() && o.budget > 0.0) {
                return Err(format!("{}: budget must be positive", o.name));
            }
            if let Some(l) = o.lengthscale {
                if !(l.is_finite() && l > 0.0) {
                    return Err(format!("{}: lengthscale must be positive", o.name));
                }
            }
        }
        for &v in &self.variances {
            if !(v > 0.0 && v < 1.0 / 12.0) {
                return Err(format!("variance {v} must lie in (0, 1/12)"));
            }
        }
        if self.bank == 0 || self.judge == 0 {
            return Err("bank and judge must be positive".into());
        }
        if self.refit_every == 0 {
            return Err("refit_every must be positive".into());
        }
        if self.max_rounds == Some(0) {
            return Err("max_rounds must be positive".into());
        }
        if !(self.noise.is_finite() && self.noise >= 0.0) {
            return Err("noise must be ≥ 0".into());
        }
        if self.seed_list().is_empty()
            || self.costs.is_empty()
            || self.variances.is_empty()
            || self.algorithms.is_empty()
        {
            return Err("seeds, costs, variances and algorithms must not be empty".into());
        }
        for a in &self.algorithms {
            parse_algorithm(a, self.epsilon, 3)?;
        }
        Ok(())
    }

    /// The seeds.
    pub fn seed_list(&self) -> Vec<u64> {
        match &self.seeds {
            Seeds::Count(n) => (0..*n).collect(),
            Seeds::List(l) => l.clone(),
        }
    }

    /// Every cell, in grid order (objective, costs, variance, algorithm). Fails if a cost
    /// setting does not fit an objective's control sets.
    pub fn cells(&self) -> Result<Vec<Cell>, String> {
        let mut cells = Vec::new();
        for (oi, o) in self.objectives.iter().enumerate() {
            for c in &self.costs {
                let (label, costs) = match c {
                    CostSpec::Named(n) => {
                        let preset = match n.as_str() {
                            "cheap" => CHEAP,
                            "moderate" => MODERATE,
                            "expensive" => EXPENSIVE,
                            _ => {
                                return Err(format!(
                                    "unknown cost preset `{n}` (cheap, moderate, expensive)"
                                ))
                            }
                        };
                        (n.clone(), preset.to_vec())
                    }
                    CostSpec::List(l) => (
                        l.iter()
                            .map(|v| format!("{v}"))
                            .collect::<Vec<_>>()
                            .join("-"),
                        l.clone(),
                    ),
                };
                if costs.len() != o.sets.len() {
                    return Err(format!(
                        "{}: {} control sets but costs `{label}` has {}",
                        o.name,
                        o.sets.len(),
                        costs.len()
                    ));
                }
                if costs.iter().any(|c| !(c.is_finite() && *c > 0.0)) {
                    return Err(format!("costs `{label}` must be positive"));
                }
                for &v in &self.variances {
                    for a in &self.algorithms {
                        let fitted_by_settings =
                            self.model == Model::Fitted && split_model(a).1 == Model::Fixed;
                        let a = if fitted_by_settings {
                            format!("{a}{FITTED_SUFFIX}")
                        } else {
                            a.clone()
                        };
                        let name = sanitise(&format!("{}_{label}_v{v}_{a}", o.label()));
                        cells.push(Cell {
                            name,
                            objective: oi,
                            costs_label: label.clone(),
                            costs: costs.clone(),
                            variance: v,
                            algorithm_name: a,
                        });
                    }
                }
            }
        }
        let mut names: Vec<&str> = cells.iter().map(|c| c.name.as_str()).collect();
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            return Err("two cells of the grid have the same name (duplicate entries?)".into());
        }
        Ok(cells)
    }
}
