//! The settings grid, read from TOML, and its expansion into cells and jobs.

use std::fmt;

use costbo_core::policy::{PolicySpec, PolicySpecError, RuleDefaults, RULES};
use costbo_core::problem::ControlSet;
use serde::Deserialize;

/// Paper 000's cost presets (for 7 control sets, in cost order).
pub const CHEAP: [f64; 7] = [0.01, 0.01, 0.01, 0.1, 0.1, 0.1, 1.0];
/// Paper 000's "moderate" costs.
pub const MODERATE: [f64; 7] = [0.1, 0.1, 0.1, 0.2, 0.2, 0.2, 1.0];
/// Paper 000's "expensive" costs.
pub const EXPENSIVE: [f64; 7] = [0.6, 0.6, 0.6, 0.8, 0.8, 0.8, 1.0];

/// Most seeds of a grid: each is a job per cell, and a file.
pub const MAX_SEEDS: usize = 100_000;
/// Most jobs (cells × seeds) of a grid: each writes two files into its cell's directory.
pub const MAX_JOBS: usize = 1_000_000;
/// Most entries in each of `objectives`, `costs`, `variances` and `algorithms`.
pub const MAX_LIST: usize = 1_000;
/// Largest algorithm bank: a decision averages every candidate over it (paper 000 uses 64 to
/// 1 024 points); 16 × the largest keeps a decision within seconds.
pub const MAX_BANK: usize = 16_384;
/// Largest regret judge: every round and every control set's best value average over it.
pub const MAX_JUDGE: usize = 262_144;
/// Most rounds between refits of the fitted model (a larger period is a fixed model).
pub const MAX_REFIT_EVERY: usize = 100_000;
/// Most initial points: the GP's largest capacity (1 024 observations; beyond it the oldest
/// would be dropped before the first decision).
pub const MAX_INITIAL: usize = 1_024;
/// Most rounds a job may play (`max_rounds`, and the budget over the cheapest cost): a round
/// costs up to tens of milliseconds at the GP's capacity of 1 024, so a job stays within hours.
pub const MAX_ROUNDS: usize = 100_000;
/// Largest objective dimension accepted before the objective is built (the runner compiles 3,
/// 5, 6 and 12).
pub const MAX_DIM: usize = 64;
/// Smallest truncated variance of the uncontrolled variables: a standard deviation of 10⁻⁵
/// of the unit range (about 170 f32 ulps at ½); below, they are constants.
pub const MIN_VARIANCE: f64 = 1e-10;
/// Kernel lengthscales in the unit cube: below, every observation is its own spike; above,
/// the kernel is a constant to double precision.
pub const MIN_LENGTHSCALE: f64 = 1e-4;
/// See [`MIN_LENGTHSCALE`].
pub const MAX_LENGTHSCALE: f64 = 1e4;
/// Largest observation noise standard deviation (its square, the GP's noise, must stay finite
/// and the objectives are of unit scale).
pub const MAX_NOISE: f64 = 1e3;
/// Largest β.
pub const MAX_BETA: f64 = 1e3;
/// Paper 001's code clips every observed cost (mean plus noise) to this interval; a rule that
/// learns costs is only run on mean costs inside it, so that the clip is the paper's noise
/// model and never a silent change of the costs.
pub const MIN_OBSERVED_COST: f64 = 0.001;
/// See [`MIN_OBSERVED_COST`].
pub const MAX_OBSERVED_COST: f64 = 2.0;
/// Largest `cost_noise` (a standard deviation of the observed cost; see [`MIN_OBSERVED_COST`]).
pub const MAX_COST: f64 = MAX_OBSERVED_COST;

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
    /// Paper 001's model as its authors' code refits it: the fixed model until 60 % of the
    /// budget is spent (the unknown-cost rule's exploration), then, before every decision, 10
    /// Adam steps (learning rate 0.1) on every hyperparameter from the fixed model's values
    /// ([`costbo_core::driver::Refit::AdamWhenSpent`]). Only as a suffix (`+adam`).
    #[serde(skip)]
    Adam,
}

/// The suffix of an algorithm name that runs it on the fitted model (`etc-ada+fitted`).
pub const FITTED_SUFFIX: &str = "+fitted";

/// The suffix of an algorithm name that runs it on the model refitted as paper 001's authors'
/// code refits it (`unknown-cost-code+adam`).
pub const ADAM_SUFFIX: &str = "+adam";

/// The rule's name and the model of an algorithm name as written in a cell
/// (`etc-ada+fitted` → (`etc-ada`, fitted)).
pub fn split_model(name: &str) -> (&str, Model) {
    if let Some(rule) = name.strip_suffix(FITTED_SUFFIX) {
        (rule, Model::Fitted)
    } else if let Some(rule) = name.strip_suffix(ADAM_SUFFIX) {
        (rule, Model::Adam)
    } else {
        (name, Model::Fixed)
    }
}

/// Most control sets a problem of the grid may have.
pub const MAX_SETS: usize = 8;

/// Rounds between refits of a fitted model unless the settings say otherwise.
pub use costbo_core::driver::DEFAULT_REFIT_EVERY;

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
    costbo_core::policy::PAPERS_EPSILON
}
fn default_cost_noise() -> f64 {
    0.01
}

/// Paper 001's exploration share and tolerance `α` (the unknown-cost rule's, and the one in
/// the quality and cost regrets of every rule), as the core has them.
pub use costbo_core::driver::{PAPER_001_ALPHA, PAPER_001_EXPLORATION};

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
    // The papers' settings, as an experiment file reads rule names, with the grid's ε.
    let defaults = RuleDefaults::papers(d).with_epsilon(epsilon);
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

/// The rule of the algorithm called `name` as an experiment file names it: `ucb-cvs` with the
/// grid's ε (`ucb-cvs:EPS`, which reads back to the same ε), any other by its own name, the
/// model's suffix left off (an experiment file says the model in `[model]`).
pub fn file_rule_name(name: &str, epsilon: f64) -> String {
    match split_model(name).0 {
        "ucb-cvs" => format!("ucb-cvs:{epsilon:?}"),
        rule => rule.to_string(),
    }
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

/// A TOML error of a settings file in one line ([`crate::toml_text::toml_error`]), with the
/// untagged settings named as the settings they are rather than as serde's enums.
pub fn toml_error(e: &toml::de::Error, text: &str) -> String {
    crate::toml_text::toml_error(e, text)
        .replace(
            "data did not match any variant of untagged enum Seeds",
            "seeds must be a count (seeds = 3) or a list of integers (seeds = [0, 5])",
        )
        .replace(
            "data did not match any variant of untagged enum CostSpec",
            "costs: each entry must be a preset (\"cheap\") or a list of numbers",
        )
}

/// The cost of each control set of a cost setting (a preset's, or the list).
pub(crate) fn cost_values(c: &CostSpec) -> Result<Vec<f64>, String> {
    match c {
        CostSpec::Named(n) => match n.as_str() {
            "cheap" => Ok(CHEAP.to_vec()),
            "moderate" => Ok(MODERATE.to_vec()),
            "expensive" => Ok(EXPENSIVE.to_vec()),
            _ => Err(format!(
                "unknown cost preset `{n}` (cheap, moderate, expensive)"
            )),
        },
        CostSpec::List(l) => Ok(l.clone()),
    }
}

/// Longest file or directory name the runner builds from settings: file systems refuse names
/// over 255 bytes, and a cell's name holds the decimals of its costs and variance.
pub const MAX_NAME: usize = 120;

/// `name` if it is at most [`MAX_NAME`] bytes (every name of an ordinary grid, unchanged), else
/// its first 100 bytes and the FNV-1a hash of the whole name in hex: bounded, and distinct for
/// distinct names (but for a 64-bit hash collision).
pub(crate) fn bounded_name(name: String) -> String {
    if name.len() <= MAX_NAME {
        return name;
    }
    // `name` is sanitised ASCII, so any byte offset is a character boundary.
    format!("{}-{:016x}", &name[..100], super::judge::fnv(&name))
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
        let s: Settings = toml::from_str(text).map_err(|e| toml_error(&e, text))?;
        s.validate()?;
        Ok(s)
    }

    /// Checks every setting against what the runner can do (the limits are the constants of
    /// this module, each with its reason); the message names the setting and its allowed range.
    /// [`Settings::from_toml`] calls it, and so do the runner's entry points, for grids built in
    /// code.
    pub fn validate(&self) -> Result<(), String> {
        if self.objectives.is_empty() {
            return Err("no [[objectives]]".into());
        }
        for (what, len) in [
            ("objectives", self.objectives.len()),
            ("costs", self.costs.len()),
            ("variances", self.variances.len()),
            ("algorithms", self.algorithms.len()),
        ] {
            if len > MAX_LIST {
                return Err(format!(
                    "{what}: {len} entries, at most {MAX_LIST} (every entry multiplies the grid)"
                ));
            }
        }
        for o in &self.objectives {
            if !(o.budget.is_finite() && o.budget > 0.0) {
                return Err(format!(
                    "{}: budget {:?} must be a finite number > 0",
                    o.name, o.budget
                ));
            }
            if let Some(l) = o.lengthscale {
                if !(MIN_LENGTHSCALE..=MAX_LENGTHSCALE).contains(&l) {
                    return Err(format!(
                        "{}: lengthscale {l:?} must lie in [{MIN_LENGTHSCALE:e}, {MAX_LENGTHSCALE:e}] \
                         (the unit cube's kernel is a constant or a spike outside)",
                        o.name
                    ));
                }
            }
            if o.sets.len() > MAX_SETS {
                return Err(format!(
                    "{}: {} control sets, at most {}",
                    o.name,
                    o.sets.len(),
                    MAX_SETS
                ));
            }
            if let Some(d) = o.dim {
                if d > MAX_DIM {
                    return Err(format!(
                        "{}: dim {d} outside 1..={MAX_DIM} (the runner supports 3, 5, 6 and 12)",
                        o.name
                    ));
                }
            }
        }
        for &v in &self.variances {
            if !(MIN_VARIANCE..1.0 / 12.0).contains(&v) {
                return Err(format!(
                    "variance {v:?} must lie in [{MIN_VARIANCE:e}, 1/12) (below, the uncontrolled \
                     variables are constants; 1/12 is the uniform distribution's)"
                ));
            }
        }
        if !(1..=MAX_BANK).contains(&self.bank) {
            return Err(format!(
                "bank {} outside 1..={MAX_BANK} (memory and time per decision grow with it)",
                self.bank
            ));
        }
        if !(1..=MAX_JUDGE).contains(&self.judge) {
            return Err(format!(
                "judge {} outside 1..={MAX_JUDGE} (every round averages over it)",
                self.judge
            ));
        }
        if !(1..=MAX_REFIT_EVERY).contains(&self.refit_every) {
            return Err(format!(
                "refit_every {} outside 1..={MAX_REFIT_EVERY} (rounds between refits of the \
                 fitted model)",
                self.refit_every
            ));
        }
        if self.initial > MAX_INITIAL {
            return Err(format!(
                "initial {} outside 0..={MAX_INITIAL} (the GP keeps at most {MAX_INITIAL} \
                 observations)",
                self.initial
            ));
        }
        if let Some(r) = self.max_rounds {
            if !(1..=MAX_ROUNDS).contains(&r) {
                return Err(format!("max_rounds {r} outside 1..={MAX_ROUNDS}"));
            }
        }
        if !(self.noise.is_finite() && (0.0..=MAX_NOISE).contains(&self.noise)) {
            return Err(format!(
                "noise {:?} must lie in [0, {MAX_NOISE:e}] (a standard deviation; the objectives \
                 are of unit scale)",
                self.noise
            ));
        }
        if !(self.beta.is_finite() && (0.0..=MAX_BETA).contains(&self.beta)) {
            return Err(format!(
                "beta {:?} must lie in [0, {MAX_BETA:e}] (the width of the confidence bounds)",
                self.beta
            ));
        }
        if !(self.epsilon.is_finite() && self.epsilon >= 0.0) {
            return Err(format!(
                "epsilon {:?} must be a finite number ≥ 0 (ucb-cvs's tolerance)",
                self.epsilon
            ));
        }
        if !(self.cost_noise.is_finite() && (0.0..=MAX_COST).contains(&self.cost_noise)) {
            return Err(format!(
                "cost_noise {:?} must lie in [0, {MAX_COST}] (a standard deviation of the observed \
                 cost, clipped to [{MIN_OBSERVED_COST}, {MAX_OBSERVED_COST}])",
                self.cost_noise
            ));
        }
        match &self.seeds {
            Seeds::Count(n) if *n == 0 || *n > MAX_SEEDS as u64 => {
                return Err(format!("seeds = {n} outside 1..={MAX_SEEDS}"));
            }
            Seeds::List(l) if l.is_empty() || l.len() > MAX_SEEDS => {
                return Err(format!(
                    "seeds: {} listed, between 1 and {MAX_SEEDS} allowed",
                    l.len()
                ));
            }
            Seeds::List(l) => {
                let mut sorted = l.clone();
                sorted.sort_unstable();
                if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                    return Err(format!(
                        "seeds: {} is listed twice (a seed is one job; a repeat would count it \
                         twice)",
                        w[0]
                    ));
                }
            }
            Seeds::Count(_) => {}
        }
        if self.costs.is_empty() || self.variances.is_empty() || self.algorithms.is_empty() {
            return Err("costs, variances and algorithms must not be empty".into());
        }
        for a in &self.algorithms {
            parse_algorithm(a, self.epsilon, 3)?;
        }
        let cells = self.cells()?;
        let jobs = cells.len().saturating_mul(self.seed_count());
        if jobs > MAX_JOBS {
            return Err(format!(
                "{} cells × {} seeds = {jobs} jobs, at most {MAX_JOBS} (one file each)",
                cells.len(),
                self.seed_count()
            ));
        }
        for o in &self.objectives {
            // Checked per cost setting: every cost list of the grid fits every objective (cells()).
            for c in &self.costs {
                let costs = cost_values(c).unwrap_or_default();
                let cheapest = costs.iter().copied().fold(f64::INFINITY, f64::min);
                let by_budget = o.budget / cheapest;
                let rounds = self
                    .max_rounds
                    .map_or(by_budget, |r| by_budget.min(r as f64));
                if rounds.is_nan() || rounds > MAX_ROUNDS as f64 {
                    return Err(format!(
                        "{}: budget {:?} over the cheapest cost {cheapest:?} allows {by_budget:.3e} \
                         rounds, at most {MAX_ROUNDS} (lower the budget or set max_rounds)",
                        o.name, o.budget
                    ));
                }
            }
        }
        for a in &self.algorithms {
            let learns = parse_algorithm(a, self.epsilon, 3)?.learns_costs();
            if !learns {
                continue;
            }
            for c in &self.costs {
                let costs = cost_values(c).unwrap_or_default();
                if let Some(bad) = costs
                    .iter()
                    .find(|c| !(MIN_OBSERVED_COST..=MAX_OBSERVED_COST).contains(*c))
                {
                    return Err(format!(
                        "algorithm `{a}` learns costs, and observed costs are clipped to \
                         [{MIN_OBSERVED_COST}, {MAX_OBSERVED_COST}] as in paper 001's code: mean \
                         cost {bad:?} lies outside, so its observations would all be clipped"
                    ));
                }
            }
        }
        Ok(())
    }

    /// The number of seeds (without building the list).
    pub fn seed_count(&self) -> usize {
        match &self.seeds {
            Seeds::Count(n) => usize::try_from(*n).unwrap_or(usize::MAX),
            Seeds::List(l) => l.len(),
        }
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
                let costs = cost_values(c)?;
                let label = match c {
                    CostSpec::Named(n) => n.clone(),
                    CostSpec::List(l) => l
                        .iter()
                        .map(|v| format!("{v}"))
                        .collect::<Vec<_>>()
                        .join("-"),
                };
                if costs.len() != o.sets.len() {
                    return Err(format!(
                        "{}: {} control sets but costs `{label}` has {}",
                        o.name,
                        o.sets.len(),
                        costs.len()
                    ));
                }
                if let Some(bad) = costs.iter().find(|c| !(c.is_finite() && **c > 0.0)) {
                    return Err(format!(
                        "costs `{label}`: cost {bad:?} must be a finite number > 0"
                    ));
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
                        let name =
                            bounded_name(sanitise(&format!("{}_{label}_v{v}_{a}", o.label())));
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
