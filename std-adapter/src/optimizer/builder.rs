//! An experiment built in code: [`ExperimentBuilder`] writes the experiment file's text (the
//! format of `firmware/experiment.toml`) and opens it, so an optimizer built in code has a
//! file like any other: its saved state holds it, and the device can be built from it.

use costbo_experiment::FitSpec;
use serde::Serialize;

use super::{Error, ErrorKind, Optimizer, Precision};

/// How a variable left to chance is distributed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Chance {
    /// Uniform between the bounds.
    Uniform,
    /// A normal truncated to the bounds, of this mean and (truncated) variance.
    TruncatedNormal {
        /// Mean (physical units).
        mean: f64,
        /// Variance of the truncated distribution.
        variance: f64,
    },
}

#[derive(Serialize)]
struct File {
    experiment: Experiment,
    model: Model,
    #[serde(skip_serializing_if = "Option::is_none")]
    inner: Option<Inner>,
    variable: Vec<Variable>,
    control_set: Vec<Set>,
}

#[derive(Serialize)]
struct Experiment {
    name: String,
    seed: u64,
    budget: f64,
    capacity: usize,
    bank: usize,
    rule: String,
    beta: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    bank_seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    costs: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    budget_rule: Option<String>,
}

#[derive(Serialize)]
struct Model {
    kernel: String,
    lengthscale: f64,
    outputscale: f64,
    noise: f64,
    mean: f64,
    #[serde(flatten)]
    fit: FitEntries,
}

/// A fit's entries in `[model]`, those of the others left out.
#[derive(Serialize, Default)]
struct FitEntries {
    #[serde(skip_serializing_if = "Option::is_none")]
    fit: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    refit_every: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    noise_floor: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    from_spent: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    steps: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    learning_rate: Option<f64>,
}

impl FitEntries {
    fn of(fit: FitSpec) -> Self {
        match fit {
            FitSpec::Fixed => FitEntries::default(),
            FitSpec::Map { every, noise_floor } => FitEntries {
                fit: Some("map"),
                refit_every: Some(every),
                noise_floor: Some(noise_floor),
                ..FitEntries::default()
            },
            FitSpec::Botorch { every } => FitEntries {
                fit: Some("botorch"),
                refit_every: Some(every),
                ..FitEntries::default()
            },
            FitSpec::Adam {
                from_spent,
                steps,
                learning_rate,
            } => FitEntries {
                fit: Some("adam"),
                from_spent: Some(from_spent),
                steps: Some(steps),
                learning_rate: Some(learning_rate),
                ..FitEntries::default()
            },
        }
    }
}

#[derive(Serialize, Clone, Copy)]
struct Inner {
    pool: usize,
    starts: usize,
    evaluations_per_start: usize,
}

#[derive(Serialize)]
struct Distribution {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    mean: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    variance: Option<f64>,
}

#[derive(Serialize)]
struct Variable {
    name: String,
    unit: String,
    lower: f64,
    upper: f64,
    distribution: Distribution,
    #[serde(skip_serializing_if = "Option::is_none")]
    price: Option<f64>,
}

#[derive(Serialize)]
struct Set {
    variables: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<f64>,
}

/// An experiment described in code: it writes the experiment file's text and opens it, so its
/// optimizer's saved state holds the file and the device can be built from it. Every setting the
/// file has a default for may be left out: seed 0, capacity 256, a bank of 64 points, rule
/// `"ucb-cvs"` (paper 000's), β = 2, a squared-exponential kernel of lengthscale 0.2 (of the
/// unit cube), output scale 1, noise 1e-4, prior mean 0, the core's inner optimiser.
///
/// ```
/// use costbo_std::optimizer::{Chance, ExperimentBuilder};
///
/// let mut opt = ExperimentBuilder::new("bake", 5.0)
///     .variable("temperature", "C", 150.0, 250.0, Chance::Uniform)
///     .variable("time", "min", 10.0, 60.0, Chance::Uniform)
///     .control_set(&["temperature"], 0.5)
///     .control_set(&["temperature", "time"], 1.0)
///     .build()?;
/// let ask = opt.ask()?.expect("the budget pays for a round");
/// assert!(ask.set < 2);
/// # Ok::<(), costbo_std::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ExperimentBuilder {
    name: String,
    budget: f64,
    seed: u64,
    capacity: usize,
    bank: usize,
    rule: String,
    beta: f64,
    kernel: String,
    lengthscale: f64,
    outputscale: f64,
    noise: f64,
    mean: f64,
    inner: Option<(usize, usize, usize)>,
    variables: Vec<(String, String, f64, f64, Chance)>,
    sets: Vec<(Vec<String>, Option<f64>)>,
    precision: Precision,
    bank_seed: Option<u64>,
    fit: FitSpec,
    budget_rule: Option<String>,
    // Prices per unit dosed, by variable name.
    prices: Vec<(String, f64)>,
}

impl ExperimentBuilder {
    /// An experiment called `name` with a total budget of `budget`.
    pub fn new(name: &str, budget: f64) -> Self {
        ExperimentBuilder {
            name: name.to_string(),
            budget,
            seed: 0,
            capacity: 256,
            bank: 64,
            rule: "ucb-cvs".into(),
            beta: 2.0,
            kernel: "se".into(),
            lengthscale: 0.2,
            outputscale: 1.0,
            noise: 1e-4,
            mean: 0.0,
            inner: None,
            variables: Vec::new(),
            sets: Vec::new(),
            precision: Precision::F64,
            bank_seed: None,
            fit: FitSpec::Fixed,
            budget_rule: None,
            prices: Vec::new(),
        }
    }

    /// A variable: its name, unit, bounds (physical units) and how it is distributed when it
    /// is left to chance.
    pub fn variable(
        mut self,
        name: &str,
        unit: &str,
        lower: f64,
        upper: f64,
        chance: Chance,
    ) -> Self {
        self.variables
            .push((name.to_string(), unit.to_string(), lower, upper, chance));
        self
    }

    /// A control set: the variables it sets, by name, and what a round with it costs.
    pub fn control_set(mut self, variables: &[&str], cost: f64) -> Self {
        self.sets.push((
            variables.iter().map(|v| v.to_string()).collect(),
            Some(cost),
        ));
        self
    }

    /// The price per physical unit of variable `name`, charged on top of a set's cost on the
    /// rounds whose set doses it (the file's `[[variable]] price`): a round of a set at values
    /// `x` costs the set's cost plus `Σ price·x` over its variables.
    pub fn price(mut self, name: &str, price: f64) -> Self {
        self.prices.push((name.to_string(), price));
        self
    }

    /// A control set whose cost is not known in advance: the rule learns it from the costs
    /// told (paper 001's setting, rule `"unknown-cost"`). Either every set of an experiment is
    /// one, or none is.
    pub fn control_set_of_learned_cost(mut self, variables: &[&str]) -> Self {
        self.sets
            .push((variables.iter().map(|v| v.to_string()).collect(), None));
        self
    }

    /// The decision rule, by its name in the core's registry (`costbo_core::policy::RULES`).
    pub fn rule(mut self, rule: &str) -> Self {
        self.rule = rule.to_string();
        self
    }

    /// The seed of every random draw of the rules, and of the sample bank unless
    /// [`bank_seed`](Self::bank_seed) gives its own.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The seed of the sample bank of the variables left to chance, apart from the rules'.
    pub fn bank_seed(mut self, bank_seed: u64) -> Self {
        self.bank_seed = Some(bank_seed);
        self
    }

    /// A fitted model: every hyperparameter refitted by MAP every `every` rounds (1: before
    /// every decision), the noise variance at least `noise_floor` (the file's `fit = "map"`;
    /// the kernel, noise and mean given are where each fit starts).
    pub fn fitted(self, every: usize, noise_floor: f64) -> Self {
        self.fit(FitSpec::Map { every, noise_floor })
    }

    /// How the model's hyperparameters follow the data, any of the file's fits
    /// ([`fitted`](Self::fitted), [`fitted_as_botorch`](Self::fitted_as_botorch) and
    /// [`fitted_with_adam`](Self::fitted_with_adam) name them).
    pub fn fit(mut self, fit: FitSpec) -> Self {
        self.fit = fit;
        self
    }

    /// Paper 001's model as its authors' code refits it: the given hyperparameters until
    /// `from_spent` of the budget is spent, then before every decision `steps` Adam steps of
    /// rate `learning_rate` from them (the file's `fit = "adam"`; the authors': 0.6, 10, 0.1).
    pub fn fitted_with_adam(self, from_spent: f64, steps: usize, learning_rate: f64) -> Self {
        self.fit(FitSpec::Adam {
            from_spent,
            steps,
            learning_rate,
        })
    }

    /// Paper 002's fitted model: refitted by MAP every `every` rounds as BoTorch fits it, the
    /// noise kept at the given noise variance (the file's `fit = "botorch"`).
    pub fn fitted_as_botorch(self, every: usize) -> Self {
        self.fit(FitSpec::Botorch { every })
    }

    /// When the budget ends the run: `"affordable"` (the default: decide only what the
    /// budget can pay for) or `"while-below"` (decide while the spent budget is below the
    /// total, paper 002's loop; the last round may overshoot).
    pub fn budget_rule(mut self, rule: &str) -> Self {
        self.budget_rule = Some(rule.to_string());
        self
    }

    /// Most distinct points the model holds (the oldest are dropped beyond it).
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity;
        self
    }

    /// Points in the sample bank of the variables left to chance.
    pub fn bank(mut self, bank: usize) -> Self {
        self.bank = bank;
        self
    }

    /// Width of the confidence bounds, `μ ± βσ`.
    pub fn beta(mut self, beta: f64) -> Self {
        self.beta = beta;
        self
    }

    /// The kernel: `"se"`, `"matern52"` or `"matern32"`, with one lengthscale for every input
    /// of the unit cube and an output scale.
    pub fn kernel(self, kernel: &str, lengthscale: f64, outputscale: f64) -> Self {
        self.kernel_shape(kernel)
            .lengthscale(lengthscale)
            .outputscale(outputscale)
    }

    /// The kernel's shape alone (see [`kernel`](Self::kernel)).
    pub fn kernel_shape(mut self, kernel: &str) -> Self {
        self.kernel = kernel.to_string();
        self
    }

    /// The kernel's lengthscale alone, one for every input of the unit cube.
    pub fn lengthscale(mut self, lengthscale: f64) -> Self {
        self.lengthscale = lengthscale;
        self
    }

    /// The kernel's output scale alone (the prior variance of the outcome).
    pub fn outputscale(mut self, outputscale: f64) -> Self {
        self.outputscale = outputscale;
        self
    }

    /// The observation noise variance and the prior mean of the outcome.
    pub fn noise(self, noise: f64, mean: f64) -> Self {
        self.noise_variance(noise).mean(mean)
    }

    /// The observation noise variance alone.
    pub fn noise_variance(mut self, noise: f64) -> Self {
        self.noise = noise;
        self
    }

    /// The prior mean of the outcome alone.
    pub fn mean(mut self, mean: f64) -> Self {
        self.mean = mean;
        self
    }

    /// The inner optimiser per control set: candidates scored, refined starts, evaluations per
    /// start.
    pub fn inner(mut self, pool: usize, starts: usize, evaluations_per_start: usize) -> Self {
        self.inner = Some((pool, starts, evaluations_per_start));
        self
    }

    /// The precision the core computes in (`f64` unless said).
    pub fn precision(mut self, precision: Precision) -> Self {
        self.precision = precision;
        self
    }

    /// The experiment file's text.
    pub fn to_toml(&self) -> Result<String, Error> {
        if let Some((name, _)) = self
            .prices
            .iter()
            .find(|(n, _)| !self.variables.iter().any(|v| &v.0 == n))
        {
            return Err(Error::new(
                ErrorKind::Experiment,
                format!("price: no variable called \"{name}\""),
            ));
        }
        let file = File {
            experiment: Experiment {
                name: self.name.clone(),
                seed: self.seed,
                budget: self.budget,
                capacity: self.capacity,
                bank: self.bank,
                rule: self.rule.clone(),
                beta: self.beta,
                bank_seed: self.bank_seed,
                budget_rule: self.budget_rule.clone(),
                costs: self
                    .sets
                    .iter()
                    .any(|(_, cost)| cost.is_none())
                    .then_some("learned"),
            },
            model: Model {
                kernel: self.kernel.clone(),
                lengthscale: self.lengthscale,
                outputscale: self.outputscale,
                noise: self.noise,
                mean: self.mean,
                fit: FitEntries::of(self.fit),
            },
            inner: self
                .inner
                .map(|(pool, starts, evaluations_per_start)| Inner {
                    pool,
                    starts,
                    evaluations_per_start,
                }),
            variable: self
                .variables
                .iter()
                .map(|(name, unit, lower, upper, chance)| Variable {
                    price: self
                        .prices
                        .iter()
                        .rev()
                        .find(|(n, _)| n == name)
                        .map(|(_, p)| *p),
                    name: name.clone(),
                    unit: unit.clone(),
                    lower: *lower,
                    upper: *upper,
                    distribution: match *chance {
                        Chance::Uniform => Distribution {
                            kind: "uniform",
                            mean: None,
                            variance: None,
                        },
                        Chance::TruncatedNormal { mean, variance } => Distribution {
                            kind: "truncated-normal",
                            mean: Some(mean),
                            variance: Some(variance),
                        },
                    },
                })
                .collect(),
            control_set: self
                .sets
                .iter()
                .map(|(variables, cost)| Set {
                    variables: variables.clone(),
                    cost: *cost,
                })
                .collect(),
        };
        // A number TOML cannot write (NaN, infinity) is refused by the file's own checks when
        // it is read; here it would not even be written.
        toml::to_string(&file).map_err(|e| {
            Error::new(
                ErrorKind::Experiment,
                format!("the experiment cannot be written as a file: {e}"),
            )
        })
    }

    /// The optimizer of this experiment: [`to_toml`](Self::to_toml), opened as a file is (its
    /// settings checked with the same messages).
    pub fn build(&self) -> Result<Optimizer, Error> {
        Optimizer::from_toml_str_with(&self.to_toml()?, self.precision)
    }
}
