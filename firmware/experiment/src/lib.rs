//! One description of a costbo experiment, shared by the firmware and the desktop.
//!
//! The experiment (variables, physical bounds, control sets and costs, distributions of the
//! uncontrolled variables, budget, capacity, bank, seed, model and inner optimiser, pump and
//! sensor calibrations, growth period) lives in one TOML file, `firmware/experiment.toml`.
//!
//! * The firmware's build script parses it with [`toml::parse`] (feature `std`), validates it and
//!   writes a [`Spec`] as Rust constants into `OUT_DIR`; an invalid file fails the build with a
//!   message naming the offending entry.
//! * The desktop parses the same file at run time with [`toml::load_device`] and gets the same
//!   [`Spec`].
//!
//! An experiment may be a *contextual causal* one (the file's optional `[causal]` table,
//! [`CausalSpec`], paper 004): some variables are contexts, measured before dosing and never
//! dosed; each arm doses one control set after measuring its contexts, and
//! [`Spec::causal_controller`] builds the core's [`CausalController`] (one GP per arm over the
//! arm's actions and contexts in unit coordinates, Algorithm 2's arm choice, GP-UCB over the
//! action box with the contexts held).
//!
//! Everything the controller is built from goes through the functions of this crate
//! ([`Spec::problem`], [`Spec::controller`], [`SensorSpec::to_physical`],
//! [`PumpSpec::on_time_ms`], ...), which are `no_std` and identical on both sides, so that the
//! host can rebuild the firmware's controller bit for bit from the same file, seed and data.
//! Numbers are stored as `f64` and converted with [`Real::from_f64`] (a plain `as` cast); the
//! generated constants print each `f64` in its shortest round-trip form, so both sides start
//! from identical bits.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "std")]
#[doc(hidden)]
pub mod testing;
#[cfg(feature = "std")]
pub mod toml;

#[cfg(feature = "refit")]
use costbo_core::causal::ArmFit;
use costbo_core::causal::{
    ArmModel, ArmTable, ArmTableError, CausalController, CausalError, CausalSettings, Schedule,
};
use costbo_core::dist::{DistError, Distribution, TruncatedNormal, Uniform};
use costbo_core::driver::{
    BudgetRule, BuildError, Controller, ControllerSpec, DriverError, MeasurementRule, Refit,
    Settings,
};
use costbo_core::expectation::BankError;
use costbo_core::feedback::query::{ConfidenceTest, QueryError, QueryRule};
use costbo_core::gp::{Gp, GpError, WhenFull};
use costbo_core::inner::InnerConfig;
use costbo_core::kernel::{Kernel, KernelError, Shape};
use costbo_core::linalg::tri_len;
use costbo_core::policy::{AnyPolicy, PolicySpec, PolicySpecError, RuleDefaults};
use costbo_core::problem::{
    ControlSet, Costs, Mask, Problem, ProblemError, Variable, MAX_VARIABLES,
};
use costbo_core::real::Real;

/// A whole experiment. Built as a constant by the firmware's build script, or by
/// [`toml::load_device`] on the desktop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spec<'a> {
    /// Name of the experiment (logs only).
    pub name: &'a str,
    /// Seed of the controller's candidate pools and of every random draw of its rule.
    pub seed: u64,
    /// Seed of the sample bank of the variables left to chance (the file's optional
    /// `bank_seed`; [`seed`](Self::seed) when it is not given).
    pub bank_seed: u64,
    /// Total budget, in the unit of the costs.
    pub budget: f64,
    /// Capacity of the GP (observations kept; the oldest are dropped beyond it).
    pub capacity: usize,
    /// Points in the sample bank of the uncontrolled variables.
    pub bank: usize,
    /// The decision rule, by its name in the core's registry
    /// ([`costbo_core::policy::RULES`]; a device runs the rules its firmware is built with).
    pub rule: &'a str,
    /// Width of the confidence bounds, `μ ± βσ`.
    pub beta: f64,
    /// When the budget ends the run (the file's `budget_rule`: `"affordable"`, the default,
    /// decides only what the budget can pay for; `"while-below"` decides while the spent
    /// budget is below the total, paper 002's loop, whose last round may overshoot it).
    pub budget_rule: BudgetRule,
    /// The GP model.
    pub model: ModelSpec,
    /// Inner optimiser budget per control set.
    pub inner: InnerConfig,
    /// Time between dosing and reading the outcome, in milliseconds.
    pub growth_period_ms: u32,
    /// The variables, in order (the controller's coordinate order).
    pub variables: &'a [VariableSpec<'a>],
    /// The control sets with their costs, in order (the controller's set indices).
    pub sets: &'a [SetSpec],
    /// A costly growth measurement (the file's optional `[measurement]` table): the
    /// controller then decides each round whether to measure the outcome. `None`: every
    /// round is measured, at no cost beyond the dose's.
    pub measurement: Option<MeasurementSpec>,
    /// A contextual causal experiment (the file's optional `[causal]` table): contexts
    /// measured before dosing and the arms. `None`: the cost-aware controller of the
    /// control sets.
    pub causal: Option<CausalSpec<'a>>,
}

/// A contextual causal experiment (paper 004, the file's `[causal]` table): the context
/// variables, measured before dosing and never dosed, and the arms, each dosing one control
/// set after measuring some of the contexts. Every arm's GP works in unit coordinates (each
/// variable's bounds mapped to [0, 1], [`Spec::to_unit`]) with the `[model]`'s kernel,
/// lengthscale, output scale, noise and mean; β and ρ are constants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CausalSpec<'a> {
    /// The context variables: bit `l` for variable `l`.
    pub contexts: Mask,
    /// The arms, in order (the arm indices of the link and the journal).
    pub arms: &'a [CausalArmSpec],
    /// β of GP-UCB: the UCB is `μ + √β·σ`.
    pub beta: f64,
    /// ρ of Algorithm 2's bonus `ρ/√n`.
    pub rho: f64,
    /// Starting points of the UCB's ascent, 1 to 16.
    pub starts: usize,
}

/// One arm of a contextual causal experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CausalArmSpec {
    /// The control set it doses (its actions are the set's variables; a round costs the
    /// set's cost).
    pub set: usize,
    /// The contexts it measures first: bit `l` for variable `l`.
    pub contexts: Mask,
}

/// A costly measurement of the outcome (paper 003): what it costs, and the rule that decides
/// each round whether to pay for it ([`costbo_core::feedback::query`]; Algorithm 1's quota
/// coin `B₁/T` and gate coin `(B₂−B₁)/T` as rates).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeasurementSpec {
    /// Cost of one measurement, charged to the budget only on rounds that measure.
    pub cost: f64,
    /// When to measure.
    pub rule: MeasureRule,
}

/// When to pay for the measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MeasureRule {
    /// Every round (`rule = "always"`): full feedback, each measurement charged.
    Always,
    /// Each round with probability `rate` (`rule = "bernoulli"`, paper 003's Ber(p)).
    Bernoulli {
        /// Probability of measuring.
        rate: f64,
    },
    /// Algorithm 1 with the CE test (`rule = "ce"`): measure when the quota coin fires, or
    /// when some competitor's `Φ((μ(x_t) − μ(x)) / √(σ²(x_t) + σ²(x))) < kappa` and the gate
    /// coin fires.
    Ce {
        /// The threshold κ ∈ (0, 1); only κ > ½ ever pays on a fresh prior.
        kappa: f64,
        /// Quota coin rate `B₁/T` (default 0).
        quota: f64,
        /// Gate coin rate `(B₂−B₁)/T` (default `1 − quota`).
        gate: f64,
    },
    /// Algorithm 1 with the LCB–UCB test (`rule = "lcb-ucb"`).
    LcbUcb {
        /// Quota coin rate `B₁/T` (default 0).
        quota: f64,
        /// Gate coin rate `(B₂−B₁)/T` (default `1 − quota`).
        gate: f64,
    },
}

impl MeasurementSpec {
    /// The core's rule in precision `R`.
    pub fn rule<R: Real>(&self) -> Result<MeasurementRule<R>, SpecError> {
        let q = |e: QueryError| match e {
            QueryError::Kappa => SpecError::MeasurementKappa,
            QueryError::Quota | QueryError::NonFinite => match self.rule {
                MeasureRule::Bernoulli { .. } => SpecError::MeasurementRate,
                _ => SpecError::MeasurementQuota,
            },
        };
        if !(self.cost.is_finite() && self.cost > 0.0 && (self.cost as f32).is_finite()) {
            return Err(SpecError::MeasurementCost);
        }
        let r = R::from_f64;
        let rule = match self.rule {
            MeasureRule::Always => QueryRule::full(),
            MeasureRule::Bernoulli { rate } => QueryRule::bernoulli(r(rate)).map_err(q)?,
            MeasureRule::Ce { kappa, quota, gate } => {
                if !(kappa.is_finite() && kappa > 0.0 && kappa < 1.0) {
                    return Err(SpecError::MeasurementKappa);
                }
                QueryRule::from_rates(r(quota), r(gate), ConfidenceTest::Kappa(r(kappa)))
                    .map_err(q)?
            }
            MeasureRule::LcbUcb { quota, gate } => {
                QueryRule::from_rates(r(quota), r(gate), ConfidenceTest::LcbUcb).map_err(q)?
            }
        };
        MeasurementRule::new(r(self.cost), rule).map_err(|_| SpecError::MeasurementCost)
    }
}

/// The GP model: kernel and likelihood.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelSpec {
    /// Kernel shape.
    pub shape: Shape,
    /// Lengthscale of every input (inputs live in the unit cube).
    pub lengthscale: f64,
    /// Output scale (prior variance).
    pub outputscale: f64,
    /// Observation noise variance.
    pub noise: f64,
    /// Constant prior mean.
    pub mean: f64,
    /// Whether the hyperparameters above stay as given or are refitted to the data.
    pub fit: FitSpec,
}

/// How the model's hyperparameters follow the data (the file's `[model] fit`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FitSpec {
    /// `fit = "fixed"` (the default): the kernel, noise and mean stay as the file gives them
    /// (the papers' model).
    Fixed,
    /// `fit = "map"`: before every decision of a round divisible by `every`, every
    /// hyperparameter is fitted by MAP on the standardised outputs (ARD lengthscales,
    /// outputscale, constant mean, and the noise variance, at least `noise_floor`), starting
    /// each time from the file's values ([`costbo_core::driver::Refit::Map`]; the desktop
    /// runner's `+fitted` model). Needs this crate's `refit` feature to build a controller.
    Map {
        /// Rounds between refits (1: before every decision).
        every: usize,
        /// The least noise variance the fit may choose.
        noise_floor: f64,
    },
    /// `fit = "botorch"`: paper 002's model as BoTorch fits it, before every decision of a
    /// round divisible by `every`: MAP with BoTorch's default priors on the standardised
    /// outputs, the noise variance fixed at the file's `noise`
    /// ([`costbo_core::driver::Refit::BotorchMap`]; `costbo pandora`'s fitted model).
    Botorch {
        /// Rounds between refits (1: before every decision).
        every: usize,
    },
    /// `fit = "adam"`: paper 001's model as its authors' code refits it: the file's values
    /// until `from_spent` of the budget is spent, then before every decision `steps` Adam steps
    /// of rate `learning_rate` from the file's values, as GPyTorch runs them
    /// ([`costbo_core::driver::Refit::AdamWhenSpent`]; the runner's `+adam` model).
    Adam {
        /// Fraction of the budget spent from which every decision refits (the authors': 0.6).
        from_spent: f64,
        /// Adam steps per refit (the authors': 10).
        steps: usize,
        /// Adam's learning rate (the authors': 0.1).
        learning_rate: f64,
    },
}

impl FitSpec {
    /// Paper 001's authors' refit ([`FitSpec::Adam`]) with the settings given, the authors'
    /// for those not given (0.6 of the budget, 10 steps, rate 0.1).
    pub fn adam_of_paper_001(
        from_spent: Option<f64>,
        steps: Option<usize>,
        learning_rate: Option<f64>,
    ) -> Self {
        use costbo_core::driver::{
            PAPER_001_ADAM_LEARNING_RATE, PAPER_001_ADAM_STEPS, PAPER_001_EXPLORATION,
        };
        FitSpec::Adam {
            from_spent: from_spent.unwrap_or(PAPER_001_EXPLORATION),
            steps: steps.unwrap_or(PAPER_001_ADAM_STEPS),
            learning_rate: learning_rate.unwrap_or(PAPER_001_ADAM_LEARNING_RATE),
        }
    }
}

/// Most rounds between refits of a fitted model.
pub const MAX_REFIT_EVERY: usize = 100_000;

/// Most Adam steps per refit of `fit = "adam"`.
pub const MAX_ADAM_STEPS: usize = 10_000;

/// Most likelihood evaluations of one fit of a causal arm's model (`[model] fit = "map"` in a
/// `[causal]` experiment): the quasi-Newton ascent stops earlier once it converges, so this
/// bounds the worst case a device round can cost (`docs/embedded.md`).
pub const CAUSAL_FIT_EVALUATIONS: usize = 100;

/// One variable.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VariableSpec<'a> {
    /// Short name (`Ca`, `pH`, ...), used by control sets and logs.
    pub name: &'a str,
    /// Physical unit (logs only).
    pub unit: &'a str,
    /// Smallest physical value.
    pub lower: f64,
    /// Largest physical value.
    pub upper: f64,
    /// Distribution of the variable when it is not dosed (the source water).
    pub distribution: DistSpec,
    /// The dosing pump, for variables that some control set doses.
    pub pump: Option<PumpSpec>,
    /// The sensor that measures the variable: every variable of a device's experiment has one
    /// ([`Spec::validate_device`]); a desktop experiment may leave it out.
    pub sensor: Option<SensorSpec>,
    /// Price per physical unit of the variable, charged on top of a set's cost when the set
    /// doses it (the file's `price`, 0 when not given): a round of set `i` at values `x` costs
    /// `cost_i + Σ_{l ∈ set i} price_l·x_l` ([`costbo_core::problem::Costs::Dosed`]).
    pub price: f64,
}

/// Distribution of an uncontrolled variable, in physical units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DistSpec {
    /// A normal with location `mean` truncated to the bounds, scaled so that the truncated
    /// distribution's variance is `variance`.
    TruncatedNormal {
        /// Location of the normal before truncation.
        mean: f64,
        /// Variance after truncation.
        variance: f64,
    },
    /// Uniform over the bounds.
    Uniform,
}

/// Calibration of a dosing pump.
///
/// Model: each round the tray starts from fresh medium at the variable's lower bound; every ml
/// of stock solution raises the variable by `concentration` physical units; the pump delivers
/// `ml_per_s`. A dose to value `v` therefore runs the pump for
/// `1000 · (v − lower) / (concentration · ml_per_s)` ms, at most `max_on_ms`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PumpSpec {
    /// Index of the pump's output pin on the board (0-based).
    pub channel: u8,
    /// Flow of the pump, ml per second.
    pub ml_per_s: f64,
    /// Rise of the variable per ml of stock dosed, physical units per ml.
    pub concentration: f64,
    /// Longest on-time the pump may run in one round, ms.
    pub max_on_ms: u32,
}

/// A pump on-time computed from a dose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dose {
    /// Milliseconds the pump runs.
    pub on_ms: u32,
    /// True if the dose needed more than `max_on_ms` and was cut to it.
    pub clamped: bool,
}

/// Why a dose could not be turned into an on-time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DoseError {
    /// The requested value is NaN or infinite.
    NonFinite,
    /// The requested value is below the lower bound (a pump cannot remove nutrient).
    BelowLower,
}

impl core::fmt::Display for DoseError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::NonFinite => "the requested dose is NaN or infinite",
            Self::BelowLower => {
                "the requested dose is below the lower bound (a pump cannot remove nutrient)"
            }
        })
    }
}

impl core::error::Error for DoseError {}

impl PumpSpec {
    /// The on-time that brings a tray from `lower` to `value` (f32, as on the firmware).
    pub fn on_time_ms(&self, value: f32, lower: f32) -> Result<Dose, DoseError> {
        if !value.is_finite() {
            return Err(DoseError::NonFinite);
        }
        let rise = value - lower;
        if rise < 0.0 {
            return Err(DoseError::BelowLower);
        }
        let ms = 1000.0 * rise / (self.concentration as f32 * self.ml_per_s as f32);
        // `ms` is finite or +inf (positive calibration, finite rise).
        if ms > self.max_on_ms as f32 {
            return Ok(Dose {
                on_ms: self.max_on_ms,
                clamped: true,
            });
        }
        // 0 <= ms <= max_on_ms < 2^32: the rounding cast is exact in range.
        Ok(Dose {
            on_ms: (ms + 0.5) as u32,
            clamped: false,
        })
    }
}

/// Calibration of a nutrient sensor on the I2C bus (register map: see the firmware's
/// `drivers::sensor` module): `physical = offset + scale · raw` for a 16-bit raw reading.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SensorSpec {
    /// 7-bit I2C address.
    pub address: u8,
    /// Physical units per raw count.
    pub scale: f64,
    /// Physical value of raw count 0.
    pub offset: f64,
}

impl SensorSpec {
    /// Physical value of a raw reading (f32, as on the firmware).
    pub fn to_physical(&self, raw: u16) -> f32 {
        self.offset as f32 + self.scale as f32 * raw as f32
    }

    /// The raw reading closest to a physical value, saturated to `0..=65535` (what a simulated
    /// sensor returns; NaN gives 0).
    pub fn to_raw(&self, value: f32) -> u16 {
        let r = (value - self.offset as f32) / self.scale as f32 + 0.5;
        if r >= 65535.0 {
            u16::MAX
        } else if r > 0.0 {
            r as u16
        } else {
            0
        }
    }
}

/// One control set and its cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SetSpec {
    /// Bitmask of the dosed variables (bit `l` = variable `l`).
    pub mask: Mask,
    /// Cost of one round with this set; `None` when the costs are learned (the file's
    /// `[experiment] costs = "learned"`: the rule sees no cost in advance and learns each
    /// set's from the costs paid, paper 001). Either every set has a cost or none has.
    pub cost: Option<f64>,
}

/// Why a [`Spec`] cannot be built into a problem or controller.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpecError {
    /// The const generic `D` differs from the number of variables.
    VariableCount {
        /// Variables in the spec.
        spec: usize,
        /// `D`.
        generic: usize,
    },
    /// The const generic `M` differs from the number of control sets.
    SetCount {
        /// Sets in the spec.
        spec: usize,
        /// `M`.
        generic: usize,
    },
    /// The const generic `N` differs from the capacity.
    Capacity {
        /// Capacity in the spec.
        spec: usize,
        /// `N`.
        generic: usize,
    },
    /// The bank storage length differs from `bank`.
    BankLength {
        /// Bank size in the spec.
        spec: usize,
        /// Storage length given.
        storage: usize,
    },
    /// More than 32 variables, or none.
    TooManyVariables,
    /// Variable `.0`'s bounds are not finite with `lower < upper`.
    Bounds(usize),
    /// Variable `.0`'s distribution is invalid.
    Distribution(usize, DistError),
    /// Variable `.0` is dosed by some control set but has no pump.
    MissingPump(usize),
    /// Variable `.0`'s pump calibration is not positive and finite.
    Pump(usize),
    /// Two dosed variables share pump channel: the second one's index.
    DuplicatePumpChannel(usize),
    /// Variable `.0`'s sensor calibration is invalid (address beyond 7 bits, scale not positive,
    /// offset not finite, or its 16-bit range does not cover the bounds).
    Sensor(usize),
    /// Two variables share a sensor address: the second one's index.
    DuplicateSensorAddress(usize),
    /// The budget is not positive and finite.
    Budget,
    /// Capacity or bank is zero.
    Sizes,
    /// β, or a model parameter, is not positive and finite (mean: finite).
    Model,
    /// The problem was rejected by the core.
    Problem(ProblemError),
    /// The kernel was rejected by the core.
    Kernel(KernelError),
    /// The GP was rejected by the core.
    Gp(GpError),
    /// The sample bank was rejected by the core.
    Bank(BankError),
    /// The controller was rejected by the core.
    Driver(DriverError),
    /// The rule's name is not in the registry of this build ([`costbo_core::policy::RULES`]).
    Rule(PolicySpecError),
    /// `[measurement] cost` is not positive and finite.
    MeasurementCost,
    /// `[measurement] rate` (Bernoulli) is not in [0, 1].
    MeasurementRate,
    /// `[measurement] kappa` is not in the open interval (0, 1).
    MeasurementKappa,
    /// `[measurement] quota` or `gate` is not in [0, 1], or their sum exceeds 1.
    MeasurementQuota,
    /// `[causal]` has no arm.
    CausalNoArms,
    /// Variable `.0` is declared a context but some control set doses it.
    CausalContextDosed(usize),
    /// Arm `arm` names control set `set`, which does not exist.
    CausalSet {
        /// The arm.
        arm: usize,
        /// The set index.
        set: usize,
    },
    /// Arm `arm` measures variable `variable`, which is not a declared context.
    CausalNotContext {
        /// The arm.
        arm: usize,
        /// The variable.
        variable: usize,
    },
    /// Arm `.0` has the same control set and contexts as an earlier arm.
    CausalDuplicateArm(usize),
    /// `[causal]` beta or rho is not finite and non-negative, or starts is not in 1..=16.
    CausalSetting,
    /// An experiment cannot have both `[causal]` and `[measurement]`.
    CausalWithMeasurement,
    /// A `[causal]` experiment's `[model] fit` is `"botorch"` or `"adam"` (papers 002's and
    /// 001's fits of the dosing rules); its arms are fixed or fitted with `"map"`.
    CausalFit,
    /// More arms in the spec than the const generic `A` holds (or more than 255).
    CausalArms {
        /// Arms in the spec.
        spec: usize,
        /// `A`.
        generic: usize,
    },
    /// The core refused the arm table.
    CausalTable(ArmTableError),
    /// The core refused the causal controller.
    Causal(CausalError),
    /// Variable `.0` has no sensor, which a device's experiment needs.
    MissingSensor(usize),
    /// The growth period is zero, which a device's experiment cannot have.
    GrowthPeriod,
    /// Some control sets have a cost and others none: the costs are known or learned for all.
    MixedCosts,
    /// The costs are learned, which a device cannot do: it measures no cost.
    LearnedCostsOnDevice,
    /// `[model] fit`'s `every` is not in 1..=[`MAX_REFIT_EVERY`], its `noise_floor` is not
    /// positive and finite, or an Adam fit's `from_spent` is outside [0, 1], its `steps`
    /// outside 1..=[`MAX_ADAM_STEPS`] or its `learning_rate` not positive and finite.
    Fit,
    /// The model is fitted but this build of the crate has no fitting code (feature `refit`).
    FitNotBuilt,
    /// Variable `.0`'s price is not finite and non-negative (in `f32` too).
    Price(usize),
    /// Prices with learned costs or a contextual causal experiment, which pay a set's cost.
    PricesNotHere,
}

impl core::fmt::Display for SpecError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::VariableCount { spec, generic } => write!(
                f,
                "the spec has {spec} variables but the const generic D is {generic}"
            ),
            Self::SetCount { spec, generic } => write!(
                f,
                "the spec has {spec} control sets but the const generic M is {generic}"
            ),
            Self::Capacity { spec, generic } => write!(
                f,
                "the spec's capacity is {spec} but the const generic N is {generic}"
            ),
            Self::BankLength { spec, storage } => write!(
                f,
                "the bank storage has length {storage} but the spec's bank is {spec}"
            ),
            Self::TooManyVariables => f.write_str("the spec has more than 32 variables, or none"),
            Self::Bounds(l) => write!(
                f,
                "the bounds of variable {l} are not finite with lower < upper"
            ),
            Self::Distribution(l, e) => {
                write!(f, "the distribution of variable {l} is invalid: {e}")
            }
            Self::MissingPump(l) => {
                write!(f, "variable {l} is dosed by a control set but has no pump")
            }
            Self::Pump(l) => write!(
                f,
                "the pump calibration of variable {l} is not positive and finite"
            ),
            Self::DuplicatePumpChannel(l) => write!(
                f,
                "dosed variable {l} shares a pump channel with an earlier one"
            ),
            Self::Sensor(l) => write!(
                f,
                "the sensor calibration of variable {l} is invalid (address beyond 7 bits, scale \
                 not positive, offset not finite, or its 16-bit range does not cover the bounds)"
            ),
            Self::DuplicateSensorAddress(l) => write!(
                f,
                "variable {l} shares a sensor address with an earlier one"
            ),
            Self::Budget => f.write_str("the budget is not positive and finite"),
            Self::Sizes => f.write_str("the capacity or the bank is zero"),
            Self::MissingSensor(l) => write!(f, "variable {l} has no sensor, which a device needs"),
            Self::GrowthPeriod => {
                f.write_str("the growth period is zero, which a device cannot wait")
            }
            Self::MixedCosts => f.write_str(
                "some control sets have a cost and others none: give every set a cost, or none \
                 when the costs are learned",
            ),
            Self::LearnedCostsOnDevice => f.write_str(
                "the costs are learned, which a device cannot do (it measures no cost); give \
                 every control set its cost",
            ),
            Self::Fit => write!(
                f,
                "[model] refit_every is not in 1..={MAX_REFIT_EVERY}, noise_floor is not \
                 positive and finite, or an Adam fit's from_spent is outside [0, 1], its steps \
                 outside 1..={MAX_ADAM_STEPS} or its learning_rate not positive and finite"
            ),
            Self::Price(l) => write!(
                f,
                "the price of variable {l} is not finite and non-negative"
            ),
            Self::PricesNotHere => f.write_str(
                "prices per unit dosed need known costs and no [causal] table (a learned or an \
                 arm's cost is paid per round)",
            ),
            Self::FitNotBuilt => f.write_str(
                "a fitted model ([model] fit other than \"fixed\") needs fitting code this \
                 build does not have (the experiment crate's `refit` feature; for the firmware, \
                 `fitted-model`)",
            ),
            Self::Model => f.write_str(
                "beta or a model parameter is not positive and finite (the mean: not finite)",
            ),
            Self::Problem(e) => write!(f, "the core rejected the problem: {e}"),
            Self::Kernel(e) => write!(f, "the core rejected the kernel: {e}"),
            Self::Gp(e) => write!(f, "the core rejected the gp: {e}"),
            Self::Bank(e) => write!(f, "the core rejected the sample bank: {e}"),
            Self::Driver(e) => write!(f, "the core rejected the controller: {e}"),
            Self::Rule(e) => write!(f, "the rule is not in this build's registry: {e}"),
            Self::MeasurementCost => f.write_str("[measurement] cost is not positive and finite"),
            Self::MeasurementRate => f.write_str("[measurement] rate is not in [0, 1]"),
            Self::MeasurementKappa => {
                f.write_str("[measurement] kappa is not in the open interval (0, 1)")
            }
            Self::MeasurementQuota => {
                f.write_str("[measurement] quota or gate is not in [0, 1], or their sum exceeds 1")
            }
            Self::CausalNoArms => f.write_str("[causal] has no arm"),
            Self::CausalContextDosed(l) => write!(
                f,
                "variable {l} is declared a context but a control set doses it"
            ),
            Self::CausalSet { arm, set } => {
                write!(f, "arm {arm} names control set {set}, which does not exist")
            }
            Self::CausalNotContext { arm, variable } => write!(
                f,
                "arm {arm} measures variable {variable}, which is not a declared context"
            ),
            Self::CausalDuplicateArm(a) => write!(
                f,
                "arm {a} has the same control set and contexts as an earlier arm"
            ),
            Self::CausalSetting => f.write_str(
                "[causal] beta or rho is not finite and non-negative, or starts is not in 1..=16",
            ),
            Self::CausalWithMeasurement => {
                f.write_str("an experiment cannot have both [causal] and [measurement]")
            }
            Self::CausalFit => f.write_str(
                "a [causal] experiment's arms are fitted with fit = \"map\" or not at all",
            ),
            Self::CausalArms { spec, generic } => write!(
                f,
                "the spec has {spec} arms, more than the {generic} allowed"
            ),
            Self::CausalTable(e) => write!(f, "the core refused the arm table: {e}"),
            Self::Causal(e) => write!(f, "the core refused the causal controller: {e}"),
        }
    }
}

impl core::error::Error for SpecError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Distribution(_, e) => Some(e),
            Self::Problem(e) => Some(e),
            Self::Kernel(e) => Some(e),
            Self::Gp(e) => Some(e),
            Self::Bank(e) => Some(e),
            Self::Driver(e) => Some(e),
            Self::Rule(e) => Some(e),
            Self::CausalTable(e) => Some(e),
            Self::Causal(e) => Some(e),
            _ => None,
        }
    }
}

fn finite_pos(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

impl<'a> Spec<'a> {
    /// Checks everything that the core does not check when the controller is built, and builds
    /// each distribution in `f32` and `f64`. `Ok` means [`Spec::controller`] succeeds for both
    /// precisions with matching const generics.
    pub fn validate(&self) -> Result<(), SpecError> {
        let d = self.variables.len();
        if d == 0 || d > MAX_VARIABLES {
            return Err(SpecError::TooManyVariables);
        }
        if !finite_pos(self.budget) {
            return Err(SpecError::Budget);
        }
        if self.capacity == 0 || self.bank == 0 {
            return Err(SpecError::Sizes);
        }
        let m = &self.model;
        if !(finite_pos(self.beta)
            && finite_pos(m.lengthscale)
            && finite_pos(m.outputscale)
            && finite_pos(m.noise)
            && m.mean.is_finite())
        {
            return Err(SpecError::Model);
        }
        let fit_ok = match m.fit {
            FitSpec::Fixed => true,
            FitSpec::Map { every, noise_floor } => {
                (1..=MAX_REFIT_EVERY).contains(&every)
                    && finite_pos(noise_floor)
                    && (noise_floor as f32) > 0.0
            }
            FitSpec::Botorch { every } => (1..=MAX_REFIT_EVERY).contains(&every),
            FitSpec::Adam {
                from_spent,
                steps,
                learning_rate,
            } => {
                (0.0..=1.0).contains(&from_spent)
                    && (1..=MAX_ADAM_STEPS).contains(&steps)
                    && finite_pos(learning_rate)
            }
        };
        if !fit_ok {
            return Err(SpecError::Fit);
        }
        let dosed = self.sets.iter().fold(0, |acc: Mask, s| acc | s.mask);
        for (l, v) in self.variables.iter().enumerate() {
            if !(v.lower.is_finite() && v.upper.is_finite() && v.lower < v.upper) {
                return Err(SpecError::Bounds(l));
            }
            if !(v.price.is_finite() && v.price >= 0.0 && (v.price as f32).is_finite()) {
                return Err(SpecError::Price(l));
            }
            variable::<f32>(v).map_err(|e| SpecError::Distribution(l, e))?;
            variable::<f64>(v).map_err(|e| SpecError::Distribution(l, e))?;
            if let Some(s) = &v.sensor {
                if s.address > 0x7F || !finite_pos(s.scale) || !s.offset.is_finite() {
                    return Err(SpecError::Sensor(l));
                }
                if !(s.offset <= v.lower && s.offset + s.scale * 65535.0 >= v.upper) {
                    return Err(SpecError::Sensor(l));
                }
                if self.variables[..l]
                    .iter()
                    .any(|w| w.sensor.is_some_and(|t| t.address == s.address))
                {
                    return Err(SpecError::DuplicateSensorAddress(l));
                }
            }
            if let Some(p) = &v.pump {
                if !(finite_pos(p.ml_per_s) && finite_pos(p.concentration) && p.max_on_ms > 0) {
                    return Err(SpecError::Pump(l));
                }
                let clash = self.variables[..l]
                    .iter()
                    .any(|w| w.pump.is_some_and(|q| q.channel == p.channel));
                if clash {
                    return Err(SpecError::DuplicatePumpChannel(l));
                }
            }
        }
        if self.sets.is_empty() {
            return Err(SpecError::Problem(ProblemError::NoControlSets));
        }
        for (i, s) in self.sets.iter().enumerate() {
            if s.mask == 0 {
                return Err(SpecError::Problem(ProblemError::EmptyControlSet(i)));
            }
            if d < 32 && s.mask >> d != 0 {
                return Err(SpecError::Problem(ProblemError::ControlSetOutOfRange(i)));
            }
            if self.sets[..i].iter().any(|t| t.mask == s.mask) {
                return Err(SpecError::Problem(ProblemError::DuplicateControlSet(i)));
            }
            match s.cost {
                // With prices a set's own cost may be 0 (check_prices has the core's rule).
                Some(c) if !(self.priced() || finite_pos(c) && (c as f32).is_finite()) => {
                    return Err(SpecError::Problem(ProblemError::Cost(i)));
                }
                _ if s.cost.is_some() != self.sets[0].cost.is_some() => {
                    return Err(SpecError::MixedCosts);
                }
                _ => {}
            }
        }
        if self.priced() {
            if self.learns_costs() || self.causal.is_some() {
                return Err(SpecError::PricesNotHere);
            }
            // The core's own checks of a price list (a set that could cost nothing is
            // refused), in both precisions.
            self.check_prices::<f32>()?;
            self.check_prices::<f64>()?;
        }
        if let Some(m) = &self.measurement {
            m.rule::<f32>()?;
            m.rule::<f64>()?;
        }
        if let Some(c) = &self.causal {
            self.validate_causal(c, dosed)?;
        }
        Ok(())
    }

    /// True when some variable has a price per unit dosed (the costs depend on the values).
    pub fn priced(&self) -> bool {
        self.variables.iter().any(|v| v.price > 0.0)
    }

    /// The core's check of a price list ([`Problem::with_costs`] of
    /// [`Costs::Dosed`]) in precision `R`: every set's cost finite and non-negative, and
    /// positive at the lower bounds of the variables it doses.
    fn check_prices<R: Real>(&self) -> Result<(), SpecError> {
        for (i, s) in self.sets.iter().enumerate() {
            let base = s.cost.unwrap_or(f64::NAN);
            let cheapest = (0..self.variables.len())
                .filter(|&l| s.mask & (1 << l) != 0)
                .fold(R::from_f64(base), |c, l| {
                    let v = &self.variables[l];
                    c + R::from_f64(v.price) * R::from_f64(v.lower)
                });
            if !(base.is_finite() && base >= 0.0 && cheapest.is_finite() && cheapest > R::ZERO) {
                return Err(SpecError::Problem(ProblemError::Cost(i)));
            }
        }
        Ok(())
    }

    /// [`validate`](Self::validate), and what a device needs besides: a sensor for every
    /// variable, a pump for every dosed one, and a positive growth period. The firmware's build
    /// and `costbo device` read files with it; a desktop experiment needs only `validate`.
    pub fn validate_device(&self) -> Result<(), SpecError> {
        self.validate()?;
        if self.growth_period_ms == 0 {
            return Err(SpecError::GrowthPeriod);
        }
        if self.learns_costs() {
            return Err(SpecError::LearnedCostsOnDevice);
        }
        let dosed = self.sets.iter().fold(0, |acc: Mask, s| acc | s.mask);
        for (l, v) in self.variables.iter().enumerate() {
            if v.sensor.is_none() {
                return Err(SpecError::MissingSensor(l));
            }
            if v.pump.is_none() && dosed & (1 << l) != 0 {
                return Err(SpecError::MissingPump(l));
            }
        }
        Ok(())
    }

    fn validate_causal(&self, c: &CausalSpec<'_>, dosed: Mask) -> Result<(), SpecError> {
        if self.measurement.is_some() {
            return Err(SpecError::CausalWithMeasurement);
        }
        if matches!(
            self.model.fit,
            FitSpec::Botorch { .. } | FitSpec::Adam { .. }
        ) {
            return Err(SpecError::CausalFit);
        }
        if c.arms.is_empty() {
            return Err(SpecError::CausalNoArms);
        }
        if c.arms.len() > usize::from(u8::MAX) {
            return Err(SpecError::CausalArms {
                spec: c.arms.len(),
                generic: usize::from(u8::MAX),
            });
        }
        let d = self.variables.len();
        if let Some(l) = (0..d).find(|&l| c.contexts & dosed & (1 << l) != 0) {
            return Err(SpecError::CausalContextDosed(l));
        }
        if !(c.beta.is_finite() && c.beta >= 0.0 && c.rho.is_finite() && c.rho >= 0.0)
            || c.starts == 0
            || c.starts > costbo_core::causal::controller::MAX_STARTS
        {
            return Err(SpecError::CausalSetting);
        }
        for (i, a) in c.arms.iter().enumerate() {
            if a.set >= self.sets.len() {
                return Err(SpecError::CausalSet { arm: i, set: a.set });
            }
            if let Some(l) = (0..32).find(|&l| a.contexts & !c.contexts & (1 << l) != 0) {
                return Err(SpecError::CausalNotContext {
                    arm: i,
                    variable: l,
                });
            }
            if c.arms[..i].contains(a) {
                return Err(SpecError::CausalDuplicateArm(i));
            }
        }
        Ok(())
    }

    /// Variable `l`'s physical value `x` in unit coordinates, `(x − lower)/(upper − lower)`
    /// in f32 (as on the firmware); NaN for an unknown variable.
    pub fn to_unit(&self, l: usize, x: f32) -> f32 {
        match self.variables.get(l) {
            Some(v) => (x - v.lower as f32) / (v.upper as f32 - v.lower as f32),
            None => f32::NAN,
        }
    }

    /// Variable `l`'s unit coordinate `u` in physical units, `lower + u·(upper − lower)` in
    /// f32, kept within the bounds; NaN for an unknown variable.
    pub fn from_unit(&self, l: usize, u: f32) -> f32 {
        let Some(v) = self.variables.get(l) else {
            return f32::NAN;
        };
        let (lo, hi) = (v.lower as f32, v.upper as f32);
        let x = lo + u * (hi - lo);
        // No `f32::clamp`: its panic message would link core's float formatting.
        if x < lo {
            lo
        } else if x > hi {
            hi
        } else {
            x
        }
    }

    /// The arm table of the `[causal]` table in precision `R` (actions: the arm's control
    /// set's variables; contexts: the arm's; all in unit coordinates, boxes [0, 1]), for at
    /// most `A` arms over `D` variables.
    pub fn arm_table<R: Real, const A: usize, const D: usize>(
        &self,
    ) -> Result<ArmTable<R, A, D>, SpecError> {
        let c = self.causal.as_ref().ok_or(SpecError::CausalNoArms)?;
        if self.variables.len() != D {
            return Err(SpecError::VariableCount {
                spec: self.variables.len(),
                generic: D,
            });
        }
        if c.arms.len() > A {
            return Err(SpecError::CausalArms {
                spec: c.arms.len(),
                generic: A,
            });
        }
        let mut table = ArmTable::new();
        for (i, a) in c.arms.iter().enumerate() {
            let mask = self
                .sets
                .get(a.set)
                .ok_or(SpecError::CausalSet { arm: i, set: a.set })?
                .mask;
            let mut actions = [(0usize, R::ZERO, R::ONE); D];
            let mut contexts = [(0usize, R::ZERO, R::ONE); D];
            let (mut na, mut nc) = (0, 0);
            for l in 0..D {
                if mask & (1 << l) != 0 {
                    actions[na].0 = l;
                    na += 1;
                }
                if a.contexts & (1 << l) != 0 {
                    contexts[nc].0 = l;
                    nc += 1;
                }
            }
            table
                .push(&actions[..na], &contexts[..nc])
                .map_err(SpecError::CausalTable)?;
        }
        Ok(table)
    }

    /// The contextual causal controller of the `[causal]` table, with `A` arms at most (the
    /// table's; entries beyond are unused), GP capacity `N` over the `D` variables, one
    /// packed factor of `tri_len(N)` scalars per arm in `storage`, and the generator `rng`
    /// (Algorithm 2 with GP-UCB never draws from it; both sides seed it alike), its ledger
    /// capped at the experiment's budget.
    pub fn causal_controller<R, const A: usize, const N: usize, const D: usize, S, G>(
        &self,
        storage: [S; A],
        rng: G,
    ) -> Result<CausalController<R, A, N, D, S, G>, SpecError>
    where
        R: Real,
        S: AsRef<[R]> + AsMut<[R]>,
        G: rand_core::Rng + Clone,
    {
        let c = self.causal.as_ref().ok_or(SpecError::CausalNoArms)?;
        if self.capacity != N {
            return Err(SpecError::Capacity {
                spec: self.capacity,
                generic: N,
            });
        }
        let table = self.arm_table::<R, A, D>()?;
        let kernel = self.kernel::<R, D>()?;
        let (mean, noise) = (R::from_f64(self.model.mean), R::from_f64(self.model.noise));
        if let Some(s) = storage.iter().find(|s| s.as_ref().len() < tri_len(N)) {
            return Err(SpecError::Gp(GpError::StorageTooSmall {
                needed: tri_len(N),
                got: s.as_ref().len(),
            }));
        }
        let gps = storage.map(|s| Gp::new(kernel, mean, noise, WhenFull::DropOldest, s));
        if let Some(Err(e)) = gps.iter().find(|g| g.is_err()) {
            return Err(SpecError::Gp(*e));
        }
        // Every entry is `Ok`: no `Gp::new` failed.
        let gps = gps.map(|g| match g {
            Ok(g) => g,
            Err(_) => unreachable!("every GP was built"),
        });
        let settings = CausalSettings {
            starts: c.starts,
            model: self.arm_model::<R>()?,
            ..CausalSettings::algorithm2(
                Schedule::Constant(R::from_f64(c.beta)),
                Schedule::Constant(R::from_f64(c.rho)),
            )
        };
        CausalController::new(table, gps, settings, rng)
            .and_then(|c| c.with_budget(R::from_f64(self.budget)))
            .map_err(SpecError::Causal)
    }

    /// The causal arms' model: fixed, or with `[model] fit = "map"` each arm's GP fitted by
    /// MAP after every `every`-th play of the arm ([`ArmFit`] with `spacing = 0`, the noise
    /// variance at least `noise_floor`, at most [`CAUSAL_FIT_EVALUATIONS`] likelihood
    /// evaluations per fit). The arms work in unit coordinates, so the lengthscale priors are
    /// BoTorch's as they stand.
    fn arm_model<R: Real>(&self) -> Result<ArmModel<R>, SpecError> {
        match self.model.fit {
            FitSpec::Fixed => Ok(ArmModel::Fixed),
            #[cfg(feature = "refit")]
            FitSpec::Map { every, noise_floor } => Ok(ArmModel::Fitted(ArmFit {
                every: u32::try_from(every).map_err(|_| SpecError::Fit)?,
                spacing: 0,
                noise_floor: R::from_f64(noise_floor),
                evaluations: CAUSAL_FIT_EVALUATIONS,
            })),
            #[cfg(not(feature = "refit"))]
            FitSpec::Map { .. } => Err(SpecError::FitNotBuilt),
            FitSpec::Botorch { .. } | FitSpec::Adam { .. } => Err(SpecError::CausalFit),
        }
    }

    /// The variables arm `arm` measures before dosing (bit `l` for variable `l`), if there
    /// is such an arm.
    pub fn arm_contexts(&self, arm: usize) -> Option<Mask> {
        Some(self.causal.as_ref()?.arms.get(arm)?.contexts)
    }

    /// The control set arm `arm` doses, if there is such an arm.
    pub fn arm_set(&self, arm: usize) -> Option<usize> {
        Some(self.causal.as_ref()?.arms.get(arm)?.set)
    }

    /// Variable `l`'s bounds in precision `R`.
    pub fn bounds<R: Real>(&self, l: usize) -> Option<(R, R)> {
        self.variables
            .get(l)
            .map(|v| (R::from_f64(v.lower), R::from_f64(v.upper)))
    }

    /// Cost of control set `i` in precision `R`; `None` when there is no such set or the
    /// costs are learned.
    pub fn cost<R: Real>(&self, i: usize) -> Option<R> {
        self.sets.get(i)?.cost.map(R::from_f64)
    }

    /// True when the costs are learned from the costs paid (no control set has a cost).
    pub fn learns_costs(&self) -> bool {
        self.sets.iter().all(|s| s.cost.is_none())
    }

    /// A sensor's raw reading of variable `l` as the controller sees it: converted with the
    /// calibration and clamped to the variable's bounds (a reading just outside them is
    /// measurement error). `None` if `l` is out of range or has no sensor.
    pub fn measured(&self, l: usize, raw: u16) -> Option<f32> {
        let v = self.variables.get(l)?;
        let (lo, hi) = (v.lower as f32, v.upper as f32);
        let x = v.sensor?.to_physical(raw);
        // `f32::clamp`'s result, without its panic on reversed or NaN bounds: that panic's
        // message formats floats, which alone links core's float formatting (about 20 KB)
        // into the firmware.
        Some(if x < lo {
            lo
        } else if x > hi {
            hi
        } else {
            x
        })
    }

    /// The core problem, with `D` variables and `M` control sets.
    pub fn problem<R: Real, const D: usize, const M: usize>(
        &self,
    ) -> Result<Problem<R, D, M>, SpecError> {
        let problem = self.problem_within::<R, D, M>()?;
        if self.sets.len() != M {
            return Err(SpecError::SetCount {
                spec: self.sets.len(),
                generic: M,
            });
        }
        Ok(problem)
    }

    /// The core problem, with `D` variables and room for `M` control sets, of which the spec
    /// fills as many as it has (at most `M`): for a caller that sizes `M` once for every
    /// experiment (the desktop's `Optimizer`). The problem is the one [`problem`](Self::problem)
    /// builds when the counts match.
    pub fn problem_within<R: Real, const D: usize, const M: usize>(
        &self,
    ) -> Result<Problem<R, D, M>, SpecError> {
        self.problem_padded::<R, D, M>(false)
    }

    /// [`problem_within`](Self::problem_within), or with `padded` for `D` at least the
    /// spec's variables: those after them range over `[0, 1]`, are controlled by every set and
    /// cost nothing.
    fn problem_padded<R: Real, const D: usize, const M: usize>(
        &self,
        padded: bool,
    ) -> Result<Problem<R, D, M>, SpecError> {
        let d = self.variables.len();
        if !(d == D || padded && (1..D).contains(&d)) {
            return Err(SpecError::VariableCount {
                spec: self.variables.len(),
                generic: D,
            });
        }
        if self.sets.len() > M {
            return Err(SpecError::SetCount {
                spec: self.sets.len(),
                generic: M,
            });
        }
        let mut vars = [Variable {
            lower: R::ZERO,
            upper: R::ONE,
            uncontrolled: Distribution::Constant(R::HALF),
        }; D];
        for (l, (out, v)) in vars.iter_mut().zip(self.variables).enumerate() {
            *out = variable(v).map_err(|e| SpecError::Distribution(l, e))?;
        }
        let m = self.sets.len();
        let padding = ControlSet::full(D).0 & !ControlSet::full(d).0;
        let sets: [ControlSet; M] =
            core::array::from_fn(|i| ControlSet(self.sets.get(i).map_or(0, |s| s.mask | padding)));
        let costs: [R; M] = core::array::from_fn(|i| {
            R::from_f64(self.sets.get(i).and_then(|s| s.cost).unwrap_or(1.0))
        });
        // A priced problem's sets may cost nothing but their doses: its costs are set after.
        let known = (!self.learns_costs() && !self.priced()).then_some(&costs[..m]);
        let problem = Problem::new(&vars, &sets[..m], known).map_err(SpecError::Problem)?;
        if !self.priced() {
            return Ok(problem);
        }
        let rate: [R; D] =
            core::array::from_fn(|l| R::from_f64(self.variables.get(l).map_or(0.0, |v| v.price)));
        problem
            .with_costs(Costs::Dosed { base: costs, rate })
            .map_err(SpecError::Problem)
    }

    /// The kernel (the same lengthscale on every unit-cube input).
    pub fn kernel<R: Real, const D: usize>(&self) -> Result<Kernel<R, D>, SpecError> {
        Kernel::new(
            self.model.shape,
            [R::from_f64(self.model.lengthscale); D],
            R::from_f64(self.model.outputscale),
        )
        .map_err(SpecError::Kernel)
    }

    /// The controller's settings.
    ///
    /// A fitted model ([`FitSpec::Map`]) needs the crate's `refit` feature
    /// ([`SpecError::FitNotBuilt`] without it).
    pub fn settings<R: Real>(&self) -> Result<Settings<R>, SpecError> {
        Ok(Settings {
            beta: R::from_f64(self.beta),
            inner: self.inner,
            refit: self.refit()?,
            budget_rule: self.budget_rule,
            ..Settings::new(R::from_f64(self.budget), self.seed)
        })
    }

    fn refit<R: Real>(&self) -> Result<Refit<R>, SpecError> {
        match self.model.fit {
            FitSpec::Fixed => Ok(Refit::Never),
            #[cfg(feature = "refit")]
            FitSpec::Map { every, noise_floor } => Ok(Refit::Map {
                every,
                noise_floor: R::from_f64(noise_floor),
            }),
            #[cfg(feature = "refit")]
            FitSpec::Botorch { every } => Ok(Refit::BotorchMap {
                every,
                noise: R::from_f64(self.model.noise),
            }),
            #[cfg(feature = "refit")]
            FitSpec::Adam {
                from_spent,
                steps,
                learning_rate,
            } => Ok(Refit::AdamWhenSpent {
                from_spent: R::from_f64(from_spent),
                lengthscale: R::from_f64(self.model.lengthscale),
                outputscale: R::from_f64(self.model.outputscale),
                noise: R::from_f64(self.model.noise),
                mean: R::from_f64(self.model.mean),
                steps,
                learning_rate: R::from_f64(learning_rate),
            }),
            #[cfg(not(feature = "refit"))]
            FitSpec::Map { .. } | FitSpec::Botorch { .. } | FitSpec::Adam { .. } => {
                Err(SpecError::FitNotBuilt)
            }
        }
    }

    /// The decision rule, its name read with the settings the desktop runner gives the
    /// papers' rules ([`RuleDefaults::papers`]), so that a name means the same rule in a file
    /// and in a study.
    pub fn policy<R: Real>(&self) -> Result<PolicySpec<R>, SpecError> {
        PolicySpec::parse(self.rule, &RuleDefaults::papers(self.variables.len()))
            .map_err(SpecError::Rule)
    }

    /// The core's description of the controller this experiment runs, with `D` variables and
    /// `M` control sets in precision `R`.
    pub fn controller_spec<R: Real, const D: usize, const M: usize>(
        &self,
    ) -> Result<ControllerSpec<R, D, M>, SpecError> {
        self.describe(self.problem::<R, D, M>()?)
    }

    /// [`controller_spec`](Self::controller_spec) with room for `M` control sets, of which
    /// the spec fills as many as it has ([`problem_within`](Self::problem_within)).
    pub fn controller_spec_within<R: Real, const D: usize, const M: usize>(
        &self,
    ) -> Result<ControllerSpec<R, D, M>, SpecError> {
        self.describe(self.problem_within::<R, D, M>()?)
    }

    /// [`controller_spec_within`](Self::controller_spec_within) for a model of `D` inputs,
    /// at least the spec's variables: the inputs after them are inert, held by every control
    /// set, free, and ignored by the kernel
    /// ([`Kernel::ignoring_inputs_from`](costbo_core::kernel::Kernel::ignoring_inputs_from)),
    /// so that they change no value the model computes, and a fit keeps them so
    /// ([`Gp::fit`](costbo_core::gp::Gp::fit)). A decision's inert values mean nothing; an
    /// observation may carry any value there.
    pub fn controller_spec_padded<R: Real, const D: usize, const M: usize>(
        &self,
    ) -> Result<ControllerSpec<R, D, M>, SpecError> {
        let d = self.variables.len();
        let mut spec = self.describe(self.problem_padded::<R, D, M>(true)?)?;
        spec.kernel = spec.kernel.ignoring_inputs_from(d);
        Ok(spec)
    }

    fn describe<R: Real, const D: usize, const M: usize>(
        &self,
        problem: Problem<R, D, M>,
    ) -> Result<ControllerSpec<R, D, M>, SpecError> {
        Ok(ControllerSpec {
            problem,
            kernel: self.kernel()?,
            mean: R::from_f64(self.model.mean),
            noise: R::from_f64(self.model.noise),
            when_full: WhenFull::DropOldest,
            bank_seed: self.bank_seed,
            settings: self.settings()?,
            policy: self.policy()?,
        })
    }

    /// A fresh controller of capacity `N` over caller storage: `factor` must hold
    /// `tri_len(N)` scalars and `bank` exactly [`Spec::bank`] points. No Thompson features or
    /// query window (`F = H = 1`): a device runs rules that need neither. With a
    /// [`measurement`](Spec::measurement) the controller has its rule
    /// ([`Controller::with_measurement`]).
    #[allow(clippy::type_complexity)]
    pub fn controller<R, const N: usize, const D: usize, const M: usize, S, B>(
        &self,
        factor: S,
        bank: B,
    ) -> Result<Controller<R, N, D, M, S, B, AnyPolicy<R, D, M, 1, 1>>, SpecError>
    where
        R: Real,
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        if self.capacity != N {
            return Err(SpecError::Capacity {
                spec: self.capacity,
                generic: N,
            });
        }
        if bank.as_ref().len() != self.bank {
            return Err(SpecError::BankLength {
                spec: self.bank,
                storage: bank.as_ref().len(),
            });
        }
        let measurement = self.measurement.map(|m| m.rule::<R>()).transpose()?;
        let ctl = self
            .controller_spec::<R, D, M>()?
            .build(factor, bank)
            .map_err(|e| match e {
                BuildError::Gp(e) => SpecError::Gp(e),
                BuildError::Bank(e) => SpecError::Bank(e),
                BuildError::Driver(e) => SpecError::Driver(e),
            })?;
        Ok(match measurement {
            Some(m) => ctl.with_measurement(m),
            None => ctl,
        })
    }

    /// Index of the variable called `name`.
    pub fn variable_index(&self, name: &str) -> Option<usize> {
        self.variables.iter().position(|v| v.name == name)
    }
}

/// The core variable of a spec in precision `R`.
fn variable<R: Real>(v: &VariableSpec<'_>) -> Result<Variable<R>, DistError> {
    let (lo, hi) = (R::from_f64(v.lower), R::from_f64(v.upper));
    let uncontrolled = match v.distribution {
        DistSpec::TruncatedNormal { mean, variance } => {
            Distribution::TruncatedNormal(TruncatedNormal::with_truncated_variance(
                R::from_f64(mean),
                R::from_f64(variance),
                lo,
                hi,
            )?)
        }
        DistSpec::Uniform => Distribution::Uniform(Uniform::new(lo, hi)?),
    };
    Ok(Variable {
        lower: lo,
        upper: hi,
        uncontrolled,
    })
}

/// Identifier of a configuration file: the CRC-32 (ISO-HDLC, zlib's `crc32`) of its bytes. The
/// firmware sends it in `Hello` (`config`), so the host can check that both read the same file.
pub fn config_id(text: &[u8]) -> u32 {
    const CRC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);
    CRC.checksum(text)
}

#[cfg(test)]
mod error_message_tests {
    extern crate std;

    use core::error::Error;
    use std::string::{String, ToString};

    use super::*;

    /// The message of `e`: one line, not empty, no capital first letter, no trailing period.
    fn message<E: Error>(e: &E) -> String {
        let m = e.to_string();
        assert!(
            !m.is_empty() && !m.contains('\n') && !m.ends_with('.'),
            "{e:?}: {m:?}"
        );
        assert!(!m.starts_with(char::is_uppercase), "{e:?}: {m:?}");
        m
    }

    #[test]
    fn spec_errors_carry_their_values() {
        let m = message(&SpecError::VariableCount {
            spec: 4711,
            generic: 815,
        });
        assert!(m.contains("4711") && m.contains("815"), "{m}");
        let m = message(&SpecError::CausalNotContext {
            arm: 4711,
            variable: 815,
        });
        assert!(m.contains("4711") && m.contains("815"), "{m}");
        for e in [
            SpecError::Bounds(4711),
            SpecError::MissingPump(4711),
            SpecError::Sensor(4711),
            SpecError::CausalDuplicateArm(4711),
        ] {
            assert!(message(&e).contains("4711"), "{e:?}");
            assert!(e.source().is_none());
        }
    }

    #[test]
    fn spec_errors_wrap_the_core_errors() {
        let dist = SpecError::Distribution(4711, DistError::EmptyInterval);
        let m = message(&dist);
        assert!(
            m.contains("4711") && m.contains(&message(&DistError::EmptyInterval)),
            "{m}"
        );
        let source = dist.source().and_then(|s| s.downcast_ref::<DistError>());
        assert_eq!(source, Some(&DistError::EmptyInterval));

        let driver = DriverError::InvalidSet(4711);
        let e = SpecError::Driver(driver);
        assert!(message(&e).contains(&message(&driver)));
        assert_eq!(e.source().and_then(|s| s.downcast_ref()), Some(&driver));

        let rule = SpecError::Rule(PolicySpecError::UnknownName);
        let source = rule
            .source()
            .and_then(|s| s.downcast_ref::<PolicySpecError>());
        assert_eq!(source, Some(&PolicySpecError::UnknownName));

        // Two levels: the controller's error wraps the GP's.
        let nested = SpecError::Driver(DriverError::Gp(GpError::Full));
        let gp = nested.source().and_then(Error::source);
        assert_eq!(gp.and_then(|s| s.downcast_ref()), Some(&GpError::Full));
    }

    #[test]
    fn dose_errors_format() {
        assert_ne!(
            message(&DoseError::NonFinite),
            message(&DoseError::BelowLower)
        );
    }
}

#[cfg(all(test, feature = "std"))]
mod file_entry_tests {
    extern crate std;

    use std::string::String;

    use super::*;

    const DEVICE: &str = include_str!("../../experiment.toml");

    fn fitted() -> String {
        DEVICE.replace(
            "mean = 0.0\n",
            "mean = 0.0\nfit = \"map\"\nrefit_every = 7\nnoise_floor = 2e-6\n",
        )
    }

    #[test]
    fn a_fitted_model_reaches_the_controller_settings_and_the_generated_constants() {
        let spec = toml::parse_device(&fitted()).unwrap();
        assert_eq!(
            spec.model.fit,
            FitSpec::Map {
                every: 7,
                noise_floor: 2e-6
            }
        );
        let code = toml::to_rust(&spec, "fitted.toml");
        assert!(
            code.contains("FitSpec::Map { every: 7, noise_floor: 2e-6 }"),
            "{code}"
        );
        #[cfg(feature = "refit")]
        assert_eq!(
            spec.settings::<f32>().unwrap().refit,
            Refit::Map {
                every: 7,
                noise_floor: 2e-6
            }
        );
        #[cfg(not(feature = "refit"))]
        assert_eq!(spec.settings::<f32>(), Err(SpecError::FitNotBuilt));
        // The file without the entries: the fixed model, and the bank seeded by `seed`.
        let plain = toml::parse_device(DEVICE).unwrap();
        assert_eq!(plain.model.fit, FitSpec::Fixed);
        assert_eq!(plain.bank_seed, plain.seed);
        assert_eq!(plain.settings::<f64>().unwrap().refit, Refit::Never);
    }

    #[test]
    fn the_files_prices_are_the_problems_costs() {
        // Prices on Ca and K (K's lower bound is 8.9: its price weighs even at the bound).
        let text = DEVICE
            .replace("name = \"Ca\"\n", "name = \"Ca\"\nprice = 0.013\n")
            .replace("name = \"K\"\n", "name = \"K\"\nprice = 0.0071\n");
        let spec = toml::parse_device(&text).unwrap();
        assert!(spec.priced());
        let code = toml::to_rust(&spec, "priced.toml");
        assert!(code.contains("price: 0.013"), "{code}");
        let prices = [0.013, 0.0, 0.0, 0.0071, 0.0];
        let problem = spec.problem::<f64, 5, 7>().unwrap();
        let mut u = 0.123_f64;
        for round in 0..200 {
            let set = round % 7;
            let mask = spec.sets[set].mask;
            let values: [Option<f64>; 5] = core::array::from_fn(|l| {
                u = (u * 9301.0 + 49297.0) % 233280.0 / 233280.0;
                let v = &spec.variables[l];
                (mask & (1 << l) != 0).then_some(v.lower + u * (v.upper - v.lower))
            });
            // The set's cost plus price times value over the variables it doses.
            let expected = spec.sets[set].cost.unwrap()
                + (0..5)
                    .map(|l| prices[l] * values[l].unwrap_or(0.0))
                    .sum::<f64>();
            let cost = problem.decision_cost(set, &values).unwrap();
            assert!(
                (cost - expected).abs() < 1e-12,
                "set {set}: {cost} vs {expected}"
            );
        }
        // The full set at the upper bounds.
        let upper: [Option<f64>; 5] = core::array::from_fn(|l| Some(spec.variables[l].upper));
        let full = 1.0 + 0.013 * 7.7 + 0.0071 * 11.3;
        assert!((problem.decision_cost(6, &upper).unwrap() - full).abs() < 1e-12);
        // Without prices, a round costs its set's cost.
        let plain = toml::parse_device(DEVICE).unwrap();
        assert!(!plain.priced());
        let problem = plain.problem::<f32, 5, 7>().unwrap();
        assert_eq!(problem.decision_cost(3, &[None; 5]), Some(0.2));
    }

    #[test]
    fn a_device_refuses_learned_costs_and_a_desktop_accepts_them() {
        let text = crate::testing::with_learned_costs(DEVICE);
        let spec = toml::parse(&text).unwrap();
        assert!(spec.learns_costs() && spec.cost::<f64>(0).is_none());
        let problem = spec.problem::<f64, 5, 7>().unwrap();
        assert_eq!(problem.known_cost(0), None);
        let e = toml::parse_device(&text).unwrap_err();
        assert!(e.0.contains("measures no cost"), "{}", e.0);
    }
}
