//! The TOML form of a [`Spec`] (feature `std`): parsing, validation with messages that name the
//! offending entry, and the Rust constants the firmware's build script writes.
//!
//! The format is documented by `firmware/experiment.toml` itself. Sections: `[experiment]`
//! (name, seed, budget, capacity, bank, rule, beta, growth_period_ms; optional `budget_rule`,
//! `"affordable"` or paper 002's `"while-below"`; optional `bank_seed`,
//! the sample bank's seed when it is not `seed`, and `costs = "learned"` when no set's cost
//! is known in advance), `[model]` (kernel, lengthscale, outputscale, noise, mean; optional
//! `fit = "map"` with `refit_every` and `noise_floor` for a model refitted to the data, or
//! `fit = "botorch"` with `refit_every`, paper 002's fit with the noise fixed, or
//! `fit = "adam"` with `from_spent`, `steps` and `learning_rate`, paper 001's authors' refit,
//! [`FitSpec`]), `[inner]` (pool, starts, evaluations_per_start),
//! one `[[variable]]` per variable (name, unit, lower, upper, `distribution`, optional `pump`,
//! `sensor`: a device's experiment needs them, [`parse_device`]; optional `price`, the cost
//! per physical unit dosed on top of a set's cost), one `[[control_set]]` per
//! set (variables by name, cost; no cost when the costs are learned) and an optional
//! `[measurement]` (a costly growth measurement: `cost`, `rule` = `"always"`, `"bernoulli"`
//! with `rate`, `"ce"` with `kappa`, or `"lcb-ucb"`; the last two take optional `quota` and
//! `gate` rates) and an optional `[causal]` (a contextual causal experiment: `contexts`, the
//! variables measured before dosing; optional `beta`, `rho` and `starts`; one
//! `[[causal.arm]]` per arm with `actions`, the variables of one control set, and
//! `contexts`, some of the declared ones). Unknown keys are errors, and so are keys the
//! chosen rule does not use.

use std::boxed::Box;
use std::fmt::{self, Write as _};
use std::format;
use std::path::Path;
use std::string::{String, ToString};
use std::vec::Vec;

use costbo_core::driver::BudgetRule;
use costbo_core::inner::InnerConfig;
use costbo_core::kernel::Shape;
use costbo_core::problem::{Mask, MAX_VARIABLES};
use serde::Deserialize;

use crate::{
    CausalArmSpec, CausalSpec, DistSpec, FitSpec, MeasureRule, MeasurementSpec, ModelSpec,
    PumpSpec, SensorSpec, SetSpec, Spec, SpecError, VariableSpec,
};

/// Why a configuration file was rejected: a message that names the file and the entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    experiment: Experiment,
    model: Model,
    #[serde(default)]
    inner: Option<Inner>,
    #[serde(default)]
    variable: Vec<Var>,
    #[serde(default)]
    control_set: Vec<Set>,
    #[serde(default)]
    measurement: Option<Measurement>,
    #[serde(default)]
    causal: Option<Causal>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Causal {
    contexts: Vec<String>,
    #[serde(default = "causal_beta")]
    beta: f64,
    #[serde(default = "one")]
    rho: f64,
    #[serde(default = "four")]
    starts: usize,
    #[serde(default)]
    arm: Vec<CausalArm>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CausalArm {
    actions: Vec<String>,
    #[serde(default)]
    contexts: Vec<String>,
}

fn causal_beta() -> f64 {
    4.0
}

fn one() -> f64 {
    1.0
}

fn four() -> usize {
    4
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Measurement {
    cost: f64,
    rule: String,
    #[serde(default)]
    rate: Option<f64>,
    #[serde(default)]
    kappa: Option<f64>,
    #[serde(default)]
    quota: Option<f64>,
    #[serde(default)]
    gate: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Experiment {
    name: String,
    seed: u64,
    budget: f64,
    capacity: usize,
    bank: usize,
    rule: String,
    #[serde(default = "two")]
    beta: f64,
    #[serde(default)]
    growth_period_ms: u32,
    #[serde(default)]
    bank_seed: Option<u64>,
    #[serde(default)]
    costs: Option<String>,
    #[serde(default)]
    budget_rule: Option<String>,
}

fn two() -> f64 {
    2.0
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Model {
    kernel: String,
    lengthscale: f64,
    outputscale: f64,
    noise: f64,
    #[serde(default)]
    mean: f64,
    #[serde(default)]
    fit: Option<String>,
    #[serde(default)]
    refit_every: Option<usize>,
    #[serde(default)]
    noise_floor: Option<f64>,
    #[serde(default)]
    from_spent: Option<f64>,
    #[serde(default)]
    steps: Option<usize>,
    #[serde(default)]
    learning_rate: Option<f64>,
}

/// A `"map"` fit's rounds between refits and least noise variance when the file does not say
/// (the desktop runner's defaults).
pub use costbo_core::driver::{DEFAULT_NOISE_FLOOR, DEFAULT_REFIT_EVERY};

/// A `"botorch"` fit's rounds between refits when the file does not say (paper 002 refits
/// before every decision).
pub const BOTORCH_REFIT_EVERY: usize = 1;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Inner {
    pool: usize,
    starts: usize,
    evaluations_per_start: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Var {
    name: String,
    #[serde(default)]
    unit: String,
    lower: f64,
    upper: f64,
    distribution: Dist,
    #[serde(default)]
    pump: Option<Pump>,
    #[serde(default)]
    sensor: Option<Sensor>,
    #[serde(default)]
    price: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Dist {
    kind: String,
    #[serde(default)]
    mean: Option<f64>,
    #[serde(default)]
    variance: Option<f64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Pump {
    channel: u8,
    ml_per_s: f64,
    concentration: f64,
    max_on_ms: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Sensor {
    address: u8,
    scale: f64,
    #[serde(default)]
    offset: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Set {
    variables: Vec<String>,
    #[serde(default)]
    cost: Option<f64>,
}

fn leak<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

fn leak_str(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// Reads, parses and validates the file at `path` as a device's experiment
/// ([`Spec::validate_device`]: sensors, pumps and a growth period).
///
/// The returned spec borrows nothing: its strings and slices are leaked (a few hundred bytes
/// per call; call it once per process).
pub fn load_device(path: &Path) -> Result<Spec<'static>, ConfigError> {
    let text = read_text(path)?;
    parse_device(&text).map_err(|e| ConfigError(format!("{}: {}", path.display(), e.0)))
}

/// The largest experiment file read, 1 MiB (a file with every variable, set and arm the core
/// holds is a few kilobytes).
pub const FILE_LIMIT: u64 = 1 << 20;

/// The text of the experiment file at `path`: at most [`FILE_LIMIT`] bytes of UTF-8 are read
/// whatever the path names (`/dev/zero` is refused after a mebibyte, not read until memory
/// runs out). Errors start with the path.
pub fn read_text(path: &Path) -> Result<String, ConfigError> {
    use std::io::Read as _;
    let fail = |m: &dyn fmt::Display| ConfigError(format!("{}: {m}", path.display()));
    let file = std::fs::File::open(path).map_err(|e| fail(&e))?;
    if file.metadata().map_err(|e| fail(&e))?.is_dir() {
        return Err(fail(&"is a directory"));
    }
    let mut bytes = Vec::new();
    file.take(FILE_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(&e))?;
    if bytes.len() as u64 > FILE_LIMIT {
        return Err(fail(&format_args!(
            "longer than {} MiB: not an experiment file",
            FILE_LIMIT >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        fail(&format_args!(
            "not UTF-8 text (byte {} is not part of a UTF-8 character)",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Parses and validates a device's experiment (see [`load_device`]).
pub fn parse_device(text: &str) -> Result<Spec<'static>, ConfigError> {
    let spec = parse(text)?;
    spec.validate_device()
        .map_err(|e| ConfigError(explain(&spec, e)))?;
    Ok(spec)
}

/// Parses and validates an experiment ([`Spec::validate`]: what the controller is built from;
/// the hardware entries are optional). See [`load_device`] about memory.
pub fn parse(text: &str) -> Result<Spec<'static>, ConfigError> {
    let file: File = ::toml::from_str(text).map_err(|e| ConfigError(e.to_string()))?;
    let err = |m: String| Err(ConfigError(m));
    // The rule by its name in the core's registry: only the rules this build knows.
    let rule: &'static str = leak_str(file.experiment.rule.clone());
    if costbo_core::policy::PolicySpec::<f64>::parse(
        rule,
        &costbo_core::policy::RuleDefaults::new(0.0),
    )
    .is_err()
    {
        let known: Vec<&str> = costbo_core::policy::RULES.iter().map(|r| r.name).collect();
        return err(format!(
            "[experiment] rule = \"{rule}\": not a rule this build can run (known: {})",
            known.join(", ")
        ));
    }
    let shape = match file.model.kernel.as_str() {
        "se" | "squared-exponential" => Shape::SquaredExponential,
        "matern52" => Shape::Matern52,
        "matern32" => Shape::Matern32,
        other => {
            return err(format!(
                "[model] kernel = \"{other}\": expected \"se\", \"matern52\" or \"matern32\""
            ))
        }
    };
    let inner = match file.inner {
        None => InnerConfig::default(),
        Some(i) => {
            if i.pool == 0
                || i.starts == 0
                || i.starts > costbo_core::inner::MAX_STARTS
                || i.evaluations_per_start == 0
            {
                return err(format!(
                    "[inner]: pool, starts and evaluations_per_start must be positive, starts at most {}",
                    costbo_core::inner::MAX_STARTS
                ));
            }
            InnerConfig {
                pool: i.pool,
                starts: i.starts,
                evaluations_per_start: i.evaluations_per_start,
            }
        }
    };
    let mut variables = Vec::new();
    for (l, v) in file.variable.iter().enumerate() {
        if v.name.is_empty() || variables.iter().any(|w: &VariableSpec| w.name == v.name) {
            return err(format!(
                "[[variable]] {l}: name \"{}\" is empty or repeated",
                v.name
            ));
        }
        let distribution = match (v.distribution.kind.as_str(), v.distribution.mean, v.distribution.variance) {
            ("truncated-normal", Some(mean), Some(variance)) => DistSpec::TruncatedNormal { mean, variance },
            ("uniform", None, None) => DistSpec::Uniform,
            (kind, _, _) => {
                return err(format!(
                    "[[variable]] {} distribution kind = \"{kind}\": expected {{ kind = \"truncated-normal\", mean = .., variance = .. }} or {{ kind = \"uniform\" }}",
                    v.name
                ))
            }
        };
        variables.push(VariableSpec {
            name: leak_str(v.name.clone()),
            unit: leak_str(v.unit.clone()),
            lower: v.lower,
            upper: v.upper,
            distribution,
            pump: v.pump.as_ref().map(|p| PumpSpec {
                channel: p.channel,
                ml_per_s: p.ml_per_s,
                concentration: p.concentration,
                max_on_ms: p.max_on_ms,
            }),
            sensor: v.sensor.as_ref().map(|s| SensorSpec {
                address: s.address,
                scale: s.scale,
                offset: s.offset,
            }),
            price: v.price.unwrap_or(0.0),
        });
    }
    // A control set is a mask of MAX_VARIABLES bits: beyond them its names could not be
    // resolved, and the count is what is wrong.
    if variables.len() > MAX_VARIABLES {
        return err(format!(
            "{} [[variable]] entries: between 1 and {MAX_VARIABLES} are needed",
            variables.len()
        ));
    }
    let learned = match file.experiment.costs.as_deref() {
        None | Some("known") => false,
        Some("learned") => true,
        Some(other) => {
            return err(format!(
                "[experiment] costs = \"{other}\": expected \"known\" (each [[control_set]] gives its cost) or \"learned\" (none does; the rule learns them from the costs paid)"
            ))
        }
    };
    let mut sets = Vec::new();
    for (i, s) in file.control_set.iter().enumerate() {
        match (learned, s.cost) {
            (false, None) => {
                return err(format!(
                    "[[control_set]] {i}: cost is missing (or set [experiment] costs = \"learned\")"
                ))
            }
            (true, Some(_)) => {
                return err(format!(
                    "[[control_set]] {i}: cost is given but [experiment] costs = \"learned\" (the rule sees no cost in advance; leave it out)"
                ))
            }
            _ => {}
        }
        let mut mask: Mask = 0;
        for name in &s.variables {
            match variables.iter().position(|v| v.name == name.as_str()) {
                Some(l) if l < MAX_VARIABLES => mask |= 1 << l,
                _ => {
                    return err(format!(
                        "[[control_set]] {i}: no variable called \"{name}\""
                    ))
                }
            }
        }
        sets.push(SetSpec { mask, cost: s.cost });
    }
    let measurement = match &file.measurement {
        None => None,
        Some(m) => Some(measurement(m)?),
    };
    let causal = match &file.causal {
        None => None,
        Some(c) => Some(causal(c, &variables, &sets)?),
    };
    let fit = model_fit(&file.model)?;
    let budget_rule = match file.experiment.budget_rule.as_deref() {
        None | Some("affordable") => BudgetRule::Affordable,
        Some("while-below") => BudgetRule::WhileBelow,
        Some(other) => {
            return err(format!(
                "[experiment] budget_rule = \"{other}\": expected \"affordable\" (decide only what the budget can pay for) or \"while-below\" (decide while the spent budget is below the total; paper 002's loop)"
            ))
        }
    };
    let spec = Spec {
        name: leak_str(file.experiment.name),
        seed: file.experiment.seed,
        bank_seed: file.experiment.bank_seed.unwrap_or(file.experiment.seed),
        budget: file.experiment.budget,
        capacity: file.experiment.capacity,
        bank: file.experiment.bank,
        rule,
        beta: file.experiment.beta,
        budget_rule,
        model: ModelSpec {
            shape,
            lengthscale: file.model.lengthscale,
            outputscale: file.model.outputscale,
            noise: file.model.noise,
            mean: file.model.mean,
            fit,
        },
        inner,
        growth_period_ms: file.experiment.growth_period_ms,
        variables: leak(variables),
        sets: leak(sets),
        measurement,
        causal,
    };
    spec.validate()
        .map_err(|e| ConfigError(explain(&spec, e)))?;
    Ok(spec)
}

/// `[model] fit` with its settings, refusing those a fixed model does not use.
fn model_fit(m: &Model) -> Result<FitSpec, ConfigError> {
    let fit = m.fit.as_deref().unwrap_or("fixed");
    // The settings of one fit are refused with another.
    for (key, given, of) in [
        (
            "refit_every",
            m.refit_every.is_some(),
            &["map", "botorch"][..],
        ),
        ("noise_floor", m.noise_floor.is_some(), &["map"][..]),
        ("from_spent", m.from_spent.is_some(), &["adam"][..]),
        ("steps", m.steps.is_some(), &["adam"][..]),
        ("learning_rate", m.learning_rate.is_some(), &["adam"][..]),
    ] {
        if given && !of.contains(&fit) {
            return Err(ConfigError(format!(
                "[model] {key}: not a setting of fit = \"{fit}\" (it belongs to fit = \"{}\")",
                of.join("\" or \"")
            )));
        }
    }
    match m.fit.as_deref() {
        None | Some("fixed") => Ok(FitSpec::Fixed),
        Some("map") => Ok(FitSpec::Map {
            every: m.refit_every.unwrap_or(DEFAULT_REFIT_EVERY),
            noise_floor: m.noise_floor.unwrap_or(DEFAULT_NOISE_FLOOR),
        }),
        Some("botorch") => Ok(FitSpec::Botorch {
            every: m.refit_every.unwrap_or(BOTORCH_REFIT_EVERY),
        }),
        Some("adam") => Ok(FitSpec::adam_of_paper_001(
            m.from_spent,
            m.steps,
            m.learning_rate,
        )),
        Some(other) => Err(ConfigError(format!(
            "[model] fit = \"{other}\": expected \"fixed\" (the hyperparameters as given), \"map\" (every hyperparameter refitted by MAP every refit_every rounds), \"botorch\" (paper 002's: the noise kept at [model] noise) or \"adam\" (paper 001's authors' code: Adam steps once from_spent of the budget is spent)"
        ))),
    }
}

/// The `[causal]` table: names resolved to variables and control sets.
fn causal(
    c: &Causal,
    variables: &[VariableSpec<'static>],
    sets: &[SetSpec],
) -> Result<CausalSpec<'static>, ConfigError> {
    let mask_of = |names: &[String], what: &str| -> Result<Mask, ConfigError> {
        let mut mask: Mask = 0;
        for name in names {
            match variables.iter().position(|v| v.name == name.as_str()) {
                Some(l) if l < MAX_VARIABLES => {
                    if mask & (1 << l) != 0 {
                        return Err(ConfigError(format!("{what}: \"{name}\" is listed twice")));
                    }
                    mask |= 1 << l
                }
                _ => {
                    return Err(ConfigError(format!(
                        "{what}: no variable called \"{name}\""
                    )))
                }
            }
        }
        Ok(mask)
    };
    let contexts = mask_of(&c.contexts, "[causal] contexts")?;
    if c.arm.is_empty() {
        return Err(ConfigError(
            "[causal]: no [[causal.arm]]; give the arms (`costbo causal arms --graph G.toml --experiment` prints them for a causal graph)".into(),
        ));
    }
    let mut arms = Vec::new();
    for (i, a) in c.arm.iter().enumerate() {
        if a.actions.is_empty() {
            return Err(ConfigError(format!(
                "[[causal.arm]] {i}: actions is empty (an arm doses the variables of one control set)"
            )));
        }
        let actions = mask_of(&a.actions, &format!("[[causal.arm]] {i} actions"))?;
        let arm_contexts = mask_of(&a.contexts, &format!("[[causal.arm]] {i} contexts"))?;
        if let Some(name) = a.contexts.iter().find(|n| a.actions.contains(n)) {
            return Err(ConfigError(format!(
                "[[causal.arm]] {i}: \"{name}\" is both an action and a context"
            )));
        }
        let Some(set) = sets.iter().position(|s| s.mask == actions) else {
            return Err(ConfigError(format!(
                "[[causal.arm]] {i} actions = {:?}: no [[control_set]] doses exactly these variables (an arm doses one control set and pays its cost)",
                a.actions
            )));
        };
        arms.push(CausalArmSpec {
            set,
            contexts: arm_contexts,
        });
    }
    Ok(CausalSpec {
        contexts,
        arms: leak(arms),
        beta: c.beta,
        rho: c.rho,
        starts: c.starts,
    })
}

/// The `[measurement]` table: the rule's settings, refusing those it does not use.
fn measurement(m: &Measurement) -> Result<MeasurementSpec, ConfigError> {
    let unused = |key: &str, given: bool| {
        if given {
            Err(ConfigError(format!(
                "[measurement] {key}: not a setting of rule = \"{}\"",
                m.rule
            )))
        } else {
            Ok(())
        }
    };
    let missing = |key: &str| {
        ConfigError(format!(
            "[measurement] {key}: rule = \"{}\" needs it",
            m.rule
        ))
    };
    let rule = match m.rule.as_str() {
        "always" => {
            unused("rate", m.rate.is_some())?;
            unused("kappa", m.kappa.is_some())?;
            unused("quota", m.quota.is_some())?;
            unused("gate", m.gate.is_some())?;
            MeasureRule::Always
        }
        "bernoulli" => {
            unused("kappa", m.kappa.is_some())?;
            unused("quota", m.quota.is_some())?;
            unused("gate", m.gate.is_some())?;
            MeasureRule::Bernoulli {
                rate: m.rate.ok_or_else(|| missing("rate"))?,
            }
        }
        "ce" | "lcb-ucb" => {
            unused("rate", m.rate.is_some())?;
            let quota = m.quota.unwrap_or(0.0);
            let gate = m.gate.unwrap_or(1.0 - quota);
            if m.rule == "ce" {
                MeasureRule::Ce {
                    kappa: m.kappa.ok_or_else(|| missing("kappa"))?,
                    quota,
                    gate,
                }
            } else {
                unused("kappa", m.kappa.is_some())?;
                MeasureRule::LcbUcb { quota, gate }
            }
        }
        other => {
            return Err(ConfigError(format!(
                "[measurement] rule = \"{other}\": expected \"always\", \"bernoulli\", \"ce\" or \"lcb-ucb\""
            )))
        }
    };
    Ok(MeasurementSpec { cost: m.cost, rule })
}

/// A message for a validation error, naming the entry.
pub fn explain(spec: &Spec<'_>, e: SpecError) -> String {
    let var = |l: usize| {
        spec.variables.get(l).map_or_else(
            || format!("variable {l}"),
            |v| format!("[[variable]] {}", v.name),
        )
    };
    match e {
        SpecError::TooManyVariables => {
            format!("between 1 and {MAX_VARIABLES} [[variable]] entries are needed")
        }
        SpecError::Bounds(l) => format!("{}: lower < upper, both finite, is required", var(l)),
        SpecError::Distribution(l, d) => format!(
            "{}: invalid distribution ({d:?}); a truncated normal's variance must be below (upper - lower)^2 / 12 and its mean finite",
            var(l)
        ),
        SpecError::MissingPump(l) => {
            format!("{}: a control set doses it, so it needs a pump = {{ .. }}", var(l))
        }
        SpecError::Pump(l) => format!(
            "{}: pump ml_per_s and concentration must be positive and finite, max_on_ms > 0",
            var(l)
        ),
        SpecError::DuplicatePumpChannel(l) => {
            format!("{}: pump channel already used by another variable", var(l))
        }
        SpecError::Sensor(l) => format!(
            "{}: sensor address must be 7-bit, scale positive, offset finite, and offset .. offset + 65535 * scale must cover [lower, upper]",
            var(l)
        ),
        SpecError::DuplicateSensorAddress(l) => {
            format!("{}: sensor address already used by another variable", var(l))
        }
        SpecError::Budget => "[experiment] budget must be positive and finite".into(),
        SpecError::Sizes => "[experiment] capacity and bank must be positive".into(),
        SpecError::MissingSensor(l) => format!(
            "{}: a device measures every variable, so it needs a sensor = {{ .. }}",
            var(l)
        ),
        SpecError::GrowthPeriod => {
            "[experiment] growth_period_ms: a device waits it after dosing, so it must be positive"
                .into()
        }
        SpecError::MixedCosts => "[[control_set]]: every set has a cost, or none (with [experiment] costs = \"learned\")".into(),
        SpecError::LearnedCostsOnDevice => "[experiment] costs = \"learned\": a device measures no cost, so its experiment gives every [[control_set]] its cost".into(),
        SpecError::Fit => format!(
            "[model] refit_every must be in 1..={} and noise_floor positive and finite (in f32 too); an Adam fit's from_spent in [0, 1], steps in 1..={} and learning_rate positive and finite",
            crate::MAX_REFIT_EVERY,
            crate::MAX_ADAM_STEPS
        ),
        SpecError::Price(l) => format!(
            "{}: price must be finite and >= 0 (a cost per physical unit dosed)",
            var(l)
        ),
        SpecError::PricesNotHere => "[[variable]] price: prices per unit dosed need known costs (not costs = \"learned\") and no [causal] table".into(),
        SpecError::FitNotBuilt => "[model] fit: a fitted model needs fitting code this build does not have (costbo-experiment's `refit` feature; the firmware's `fitted-model`)".into(),
        SpecError::Model => {
            "[model] lengthscale, outputscale, noise and [experiment] beta must be positive and finite".into()
        }
        SpecError::Problem(p) => format!("[[control_set]]: {p} (sets are numbered from 0)"),
        SpecError::MeasurementCost => {
            "[measurement] cost must be positive and finite (in f32 too)".into()
        }
        SpecError::MeasurementRate => "[measurement] rate must be in [0, 1]".into(),
        SpecError::MeasurementKappa => {
            "[measurement] kappa must be in (0, 1); only kappa > 0.5 ever pays on a fresh prior"
                .into()
        }
        SpecError::MeasurementQuota => {
            "[measurement] quota and gate must be in [0, 1] with quota + gate <= 1".into()
        }
        SpecError::CausalNoArms => "[causal]: at least one [[causal.arm]] is needed".into(),
        SpecError::CausalContextDosed(l) => format!(
            "[causal] contexts: \"{}\" is dosed by a [[control_set]]; a context is measured before dosing, never dosed",
            spec.variables.get(l).map_or("?", |v| v.name)
        ),
        SpecError::CausalNotContext { arm, variable } => format!(
            "[[causal.arm]] {arm} contexts: \"{}\" is not in [causal] contexts",
            spec.variables.get(variable).map_or("?", |v| v.name)
        ),
        SpecError::CausalDuplicateArm(i) => format!(
            "[[causal.arm]] {i}: the same actions and contexts as an earlier arm"
        ),
        SpecError::CausalSetting => {
            "[causal] beta and rho must be finite and >= 0, starts between 1 and 16".into()
        }
        SpecError::CausalWithMeasurement => {
            "[causal] and [measurement] cannot be combined (a contextual causal round always measures its outcome)".into()
        }
        SpecError::CausalFit => "[model] fit: a [causal] experiment's arms are fitted with fit = \"map\" (each arm's GP after every `every`-th play of the arm) or not at all; \"botorch\" and \"adam\" are the dosing rules' fits".into(),
        SpecError::CausalArms { spec: n, .. } => {
            format!("[causal]: {n} arms; at most 255")
        }
        SpecError::Driver(costbo_core::driver::DriverError::RuleNeedsKnownCosts)
            if spec.priced() =>
        {
            format!(
                "[experiment] rule = \"{}\" compares the control sets' fixed costs, which prices per unit dosed ([[variable]] price) make depend on the values: use a rule that prices each point (log-eipc, log-eicc, pbgi, pbgi-d, mfmes) or leave the prices out",
                spec.rule
            )
        }
        SpecError::Driver(costbo_core::driver::DriverError::RuleNeedsKnownCosts) => format!(
            "[experiment] rule = \"{}\" compares the control sets' costs, so they must be known: give every [[control_set]] its cost (with costs = \"learned\", use rule = \"unknown-cost\", or over a [[control_set]] of every variable a rule that prices each point: log-eipc, log-eicc, pbgi, pbgi-d, mfmes)",
            spec.rule
        ),
        SpecError::Driver(costbo_core::driver::DriverError::RuleNeedsFullSet) => format!(
            "[experiment] rule = \"{}\" searches the box of every variable: it needs a [[control_set]] of all of them",
            spec.rule
        ),
        other => format!("{other}"),
    }
}

fn lit(v: f64) -> String {
    // Debug prints the shortest string that parses back to the same f64.
    let s = format!("{v:?}");
    if s.contains('.') || s.contains('e') || s.contains("inf") || s.contains("NaN") {
        s
    } else {
        format!("{s}.0")
    }
}

/// Rust source defining `D`, `M`, `N`, `COSTLY_MEASUREMENT`, `CAUSAL_ARMS`, `BANK` and
/// `SPEC: Spec<'static>`
/// for `spec` (what the
/// firmware's build script writes to `OUT_DIR/experiment.rs`).
pub fn to_rust(spec: &Spec<'_>, source: &str) -> String {
    let mut s = String::new();
    let w = &mut s;
    let _ = writeln!(
        w,
        "// Generated by costbo-experiment from {source}. Do not edit."
    );
    let _ = writeln!(w, "/// Number of variables.");
    let _ = writeln!(w, "pub const D: usize = {};", spec.variables.len());
    let _ = writeln!(w, "/// Number of control sets.");
    let _ = writeln!(w, "pub const M: usize = {};", spec.sets.len());
    let _ = writeln!(w, "/// Capacity of the GP.");
    let _ = writeln!(w, "pub const N: usize = {};", spec.capacity);
    let _ = writeln!(
        w,
        "/// Whether the experiment has a costly measurement (a `[measurement]` table)."
    );
    let _ = writeln!(
        w,
        "pub const COSTLY_MEASUREMENT: bool = {};",
        spec.measurement.is_some()
    );
    let _ = writeln!(
        w,
        "/// Arms of the contextual causal experiment (its `[causal]` table; 0 without one)."
    );
    let _ = writeln!(
        w,
        "pub const CAUSAL_ARMS: usize = {};",
        spec.causal.map_or(0, |c| c.arms.len())
    );
    let _ = writeln!(w, "/// Points in the sample bank.");
    let _ = writeln!(w, "pub const BANK: usize = {};", spec.bank);
    let _ = writeln!(w, "/// The experiment.");
    let _ = writeln!(
        w,
        "pub static SPEC: costbo_experiment::Spec<'static> = costbo_experiment::Spec {{"
    );
    let _ = writeln!(w, "    name: {:?},", spec.name);
    let _ = writeln!(w, "    seed: {},", spec.seed);
    let _ = writeln!(w, "    bank_seed: {},", spec.bank_seed);
    let _ = writeln!(w, "    budget: {},", lit(spec.budget));
    let _ = writeln!(w, "    capacity: {},", spec.capacity);
    let _ = writeln!(w, "    bank: {},", spec.bank);
    let _ = writeln!(w, "    rule: {:?},", spec.rule);
    let _ = writeln!(w, "    beta: {},", lit(spec.beta));
    let budget_rule = match spec.budget_rule {
        BudgetRule::Affordable => "Affordable",
        BudgetRule::WhileBelow => "WhileBelow",
    };
    let _ = writeln!(
        w,
        "    budget_rule: costbo_core::driver::BudgetRule::{budget_rule},"
    );
    let shape = match spec.model.shape {
        Shape::SquaredExponential => "SquaredExponential",
        Shape::Matern52 => "Matern52",
        Shape::Matern32 => "Matern32",
    };
    let fit = match spec.model.fit {
        FitSpec::Fixed => "costbo_experiment::FitSpec::Fixed".to_string(),
        FitSpec::Map { every, noise_floor } => format!(
            "costbo_experiment::FitSpec::Map {{ every: {every}, noise_floor: {} }}",
            lit(noise_floor)
        ),
        FitSpec::Botorch { every } => {
            format!("costbo_experiment::FitSpec::Botorch {{ every: {every} }}")
        }
        FitSpec::Adam {
            from_spent,
            steps,
            learning_rate,
        } => format!(
            "costbo_experiment::FitSpec::Adam {{ from_spent: {}, steps: {steps}, learning_rate: {} }}",
            lit(from_spent),
            lit(learning_rate)
        ),
    };
    let _ = writeln!(
        w,
        "    model: costbo_experiment::ModelSpec {{ shape: costbo_core::kernel::Shape::{shape}, lengthscale: {}, outputscale: {}, noise: {}, mean: {}, fit: {fit} }},",
        lit(spec.model.lengthscale),
        lit(spec.model.outputscale),
        lit(spec.model.noise),
        lit(spec.model.mean)
    );
    let _ = writeln!(
        w,
        "    inner: costbo_core::inner::InnerConfig {{ pool: {}, starts: {}, evaluations_per_start: {} }},",
        spec.inner.pool, spec.inner.starts, spec.inner.evaluations_per_start
    );
    let _ = writeln!(w, "    growth_period_ms: {},", spec.growth_period_ms);
    let _ = writeln!(w, "    variables: &[");
    for v in spec.variables {
        let dist = match v.distribution {
            DistSpec::TruncatedNormal { mean, variance } => format!(
                "costbo_experiment::DistSpec::TruncatedNormal {{ mean: {}, variance: {} }}",
                lit(mean),
                lit(variance)
            ),
            DistSpec::Uniform => "costbo_experiment::DistSpec::Uniform".to_string(),
        };
        let sensor = match v.sensor {
            None => "None".to_string(),
            Some(s) => format!(
                "Some(costbo_experiment::SensorSpec {{ address: {:#04x}, scale: {}, offset: {} }})",
                s.address,
                lit(s.scale),
                lit(s.offset)
            ),
        };
        let pump = match v.pump {
            None => "None".to_string(),
            Some(p) => format!(
                "Some(costbo_experiment::PumpSpec {{ channel: {}, ml_per_s: {}, concentration: {}, max_on_ms: {} }})",
                p.channel,
                lit(p.ml_per_s),
                lit(p.concentration),
                p.max_on_ms
            ),
        };
        let _ = writeln!(
            w,
            "        costbo_experiment::VariableSpec {{ name: {:?}, unit: {:?}, lower: {}, upper: {}, distribution: {dist}, pump: {pump}, sensor: {sensor}, price: {} }},",
            v.name,
            v.unit,
            lit(v.lower),
            lit(v.upper),
            lit(v.price),
        );
    }
    let _ = writeln!(w, "    ],");
    let _ = writeln!(w, "    sets: &[");
    for set in spec.sets {
        let _ = writeln!(
            w,
            "        costbo_experiment::SetSpec {{ mask: {:#b}, cost: {} }},",
            set.mask,
            set.cost
                .map_or("None".to_string(), |c| format!("Some({})", lit(c)))
        );
    }
    let _ = writeln!(w, "    ],");
    let measurement = match spec.measurement {
        None => "None".to_string(),
        Some(m) => {
            let rule = match m.rule {
                MeasureRule::Always => "costbo_experiment::MeasureRule::Always".to_string(),
                MeasureRule::Bernoulli { rate } => format!(
                    "costbo_experiment::MeasureRule::Bernoulli {{ rate: {} }}",
                    lit(rate)
                ),
                MeasureRule::Ce { kappa, quota, gate } => format!(
                    "costbo_experiment::MeasureRule::Ce {{ kappa: {}, quota: {}, gate: {} }}",
                    lit(kappa),
                    lit(quota),
                    lit(gate)
                ),
                MeasureRule::LcbUcb { quota, gate } => format!(
                    "costbo_experiment::MeasureRule::LcbUcb {{ quota: {}, gate: {} }}",
                    lit(quota),
                    lit(gate)
                ),
            };
            format!(
                "Some(costbo_experiment::MeasurementSpec {{ cost: {}, rule: {rule} }})",
                lit(m.cost)
            )
        }
    };
    let _ = writeln!(w, "    measurement: {measurement},");
    let causal = match spec.causal {
        None => "None".to_string(),
        Some(c) => {
            let arms: Vec<String> = c
                .arms
                .iter()
                .map(|a| {
                    format!(
                        "costbo_experiment::CausalArmSpec {{ set: {}, contexts: {:#b} }}",
                        a.set, a.contexts
                    )
                })
                .collect();
            format!(
                "Some(costbo_experiment::CausalSpec {{ contexts: {:#b}, arms: &[{}], beta: {}, rho: {}, starts: {} }})",
                c.contexts,
                arms.join(", "),
                lit(c.beta),
                lit(c.rho),
                c.starts
            )
        }
    };
    let _ = writeln!(w, "    causal: {causal},");
    let _ = writeln!(w, "}};");
    s
}
