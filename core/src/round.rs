//! The terms of a round that the controllers and the rules they ask share: the errors
//! ([`DriverError`]), the settings every rule may read ([`Settings`], [`BudgetRule`],
//! [`Refit`]) and the contexts measured before a decision ([`Context`]).
//!
//! They sit below both: the rules ([`crate::policy`]) return these errors and read these
//! settings, and the controller ([`crate::driver::Controller`]) holds them; `policy` and
//! `driver` re-export them.

use crate::gp::GpError;
use crate::inner::InnerConfig;
use crate::real::Real;

/// Errors of a controller and its policy. The controller is unchanged whenever one is
/// returned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DriverError {
    /// The remaining budget cannot pay for the next decision.
    BudgetExhausted,
    /// The policy decided to stop (see [`Choice::Stop`](crate::policy::Choice::Stop)).
    Stopped,
    /// `observe` was called without a pending decision.
    NoPendingDecision,
    /// A value is NaN or infinite.
    NonFinite,
    /// A measured variable lies outside its bounds.
    OutOfBounds(usize),
    /// A controlled variable differs from the decided value by more than the tolerance.
    InconsistentWithDecision(usize),
    /// The cost is not a positive finite number.
    InvalidCost,
    /// The rule cannot be used with this problem (for example ETC without known costs).
    RuleNeedsKnownCosts,
    /// No control set's acquisition could be evaluated.
    NoScore,
    /// The GP rejected the observation (for example its buffer is full under `Reject`).
    Gp(GpError),
    /// A snapshot does not fit this controller (another rule, lengths, or invalid values).
    InvalidSnapshot,
    /// A replayed observation names a control set the problem does not have.
    InvalidSet(usize),
    /// A replayed memo does not fit the rule (see [`Memo`](crate::policy::Memo)).
    InvalidMemo,
    /// A context was given for a variable the problem does not measure before deciding, or is
    /// missing for one it does.
    InvalidContext(usize),
    /// A cost model for a problem whose costs are not learned, or a model that is not empty.
    InvalidCostModel,
    /// The rule works over a box: the problem needs a control set of every variable.
    RuleNeedsFullSet,
    /// A rule's parameter is out of its range (for example a Gittins index rule's `λ ≤ 0`).
    InvalidParameter,
    /// The caller's workspace is shorter than the rule needs
    /// ([`Controller::workspace_len`](crate::driver::Controller::workspace_len)).
    WorkspaceTooSmall,
    /// A measurement question (`query`, `skip`, a skipped round replayed) to a controller
    /// whose measurement is not costly (no
    /// [`MeasurementRule`](crate::driver::MeasurementRule)).
    NoMeasurementRule,
    /// With a costly measurement: the round was not asked
    /// [`query`](crate::driver::Controller::query) for this point before its outcome or skip.
    NotQueried,
    /// An outcome reported for a round that the measurement rule told to skip.
    MeasurementSkipped,
    /// A skip reported for a round that the measurement rule told to measure.
    MeasurementDue,
}

impl core::fmt::Display for DriverError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::BudgetExhausted => {
                f.write_str("the remaining budget cannot pay for the next decision")
            }
            Self::Stopped => f.write_str("the policy decided to stop"),
            Self::NoPendingDecision => f.write_str("observe was called without a pending decision"),
            Self::NonFinite => f.write_str("a value is NaN or infinite"),
            Self::OutOfBounds(i) => write!(f, "measured variable {i} lies outside its bounds"),
            Self::InconsistentWithDecision(i) => write!(
                f,
                "controlled variable {i} differs from the decided value by more than the tolerance"
            ),
            Self::InvalidCost => f.write_str("the cost is not a positive finite number"),
            Self::RuleNeedsKnownCosts => {
                f.write_str("the rule cannot be used with this problem: it needs known costs")
            }
            Self::NoScore => f.write_str("no control set's acquisition could be evaluated"),
            Self::Gp(e) => write!(f, "the gp refused: {e}"),
            Self::InvalidSnapshot => f.write_str(
                "the snapshot does not fit this controller (another rule, lengths, or invalid \
                 values)",
            ),
            Self::InvalidSet(i) => write!(f, "control set {i} does not exist in this problem"),
            Self::InvalidMemo => f.write_str("a replayed memo does not fit the rule"),
            Self::InvalidContext(i) => write!(
                f,
                "the context of variable {i} was given though the problem does not measure it \
                 before deciding, or is missing though it does"
            ),
            Self::InvalidCostModel => f.write_str(
                "the cost model is for a problem whose costs are not learned, or is not empty",
            ),
            Self::RuleNeedsFullSet => f.write_str(
                "the rule works over a box: the problem needs a control set of every variable",
            ),
            Self::InvalidParameter => f.write_str("a rule's parameter is out of its range"),
            Self::WorkspaceTooSmall => f.write_str("the workspace is shorter than the rule needs"),
            Self::NoMeasurementRule => f.write_str(
                "a measurement question was asked of a controller whose measurement is not costly",
            ),
            Self::NotQueried => {
                f.write_str("the round was not queried for this point before its outcome or skip")
            }
            Self::MeasurementSkipped => {
                f.write_str("an outcome was reported for a round the measurement rule told to skip")
            }
            Self::MeasurementDue => {
                f.write_str("a skip was reported for a round the measurement rule told to measure")
            }
        }
    }
}

impl core::error::Error for DriverError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Gp(e) => Some(e),
            _ => None,
        }
    }
}

impl From<GpError> for DriverError {
    fn from(e: GpError) -> Self {
        DriverError::Gp(e)
    }
}

/// When the budget ledger stops a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BudgetRule {
    /// Refuse a decision whose cost the remaining budget cannot pay (papers 000, 001: the
    /// budget is never exceeded).
    #[default]
    Affordable,
    /// Decide while the budget spent is below the total; the last evaluation may overshoot it
    /// (paper 002's loop, "while cumulative cost < B").
    WhileBelow,
}

/// Settings of a controller that every rule may read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings<R> {
    /// Width of the confidence bounds, `μ ± βσ` (the papers use 2), for the rules that use
    /// them.
    pub beta: R,
    /// Total budget.
    pub budget: R,
    /// Inner optimiser budget per control set.
    pub inner: InnerConfig,
    /// Seed of the candidate pools and of every random draw of the rules.
    pub seed: u64,
    /// When the ledger stops the run.
    pub budget_rule: BudgetRule,
    /// Whether and how the controller refits its model's hyperparameters as data arrive.
    pub refit: Refit<R>,
}

/// Rounds between the MAP refits of [`Refit::Map`] unless a setting says otherwise (the desktop
/// runner's and the experiment file's default, chosen by measurement: docs/performance.md,
/// "Fitted model").
pub const DEFAULT_REFIT_EVERY: usize = 5;

/// The least noise variance of [`Refit::Map`] unless a setting says otherwise: far below the
/// grids' measurement noise (10⁻⁴), which the fit finds.
pub const DEFAULT_NOISE_FLOOR: f64 = 1e-6;

/// The share of the budget paper 001's rule explores with (its experiments': 60 units of
/// 100), from which its authors' code refits with Adam ([`Refit::AdamWhenSpent`]).
pub const PAPER_001_EXPLORATION: f64 = 0.6;

/// Paper 001's tolerance `α` (its experiments' value at the start of exploitation).
pub const PAPER_001_ALPHA: f64 = 0.1;

/// Adam steps per refit in paper 001's authors' code ([`Refit::AdamWhenSpent`]).
pub const PAPER_001_ADAM_STEPS: usize = 10;

/// Adam's learning rate in paper 001's authors' code ([`Refit::AdamWhenSpent`]).
pub const PAPER_001_ADAM_LEARNING_RATE: f64 = 0.1;

/// How a controller refits its model's hyperparameters before deciding. A refit depends only on
/// the data (it starts from fixed values, not from the last fit), so a controller rebuilt by
/// replaying a run refits at the same rounds to the same hyperparameters.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Refit<R> {
    /// Never: the hyperparameters stay as built (papers 000 and 001).
    #[default]
    Never,
    /// Paper 002's model, as BoTorch 0.9 fits it (feature `refit`, so that firmware that never
    /// refits links no fitting code): MAP with its default Gamma priors on
    /// outputs standardised by the data, the noise variance fixed at `noise`
    /// ([`FitConfig::botorch_map`](crate::gp::FitConfig::botorch_map)), before every decision
    /// of a round divisible by `every` (1: every round).
    #[cfg(feature = "refit")]
    BotorchMap {
        /// Refit before the decisions of rounds `0, every, 2·every, …`.
        every: usize,
        /// The fixed noise variance.
        noise: R,
    },
    /// Every hyperparameter fitted (feature `refit`): MAP with BoTorch 0.9's default priors on
    /// standardised outputs, ARD lengthscales, outputscale, constant mean and the noise
    /// variance (at least `noise_floor`)
    /// ([`FitConfig::map_learned_noise`](crate::gp::FitConfig::map_learned_noise)), before
    /// every decision of a round divisible by `every` (1: every round). The model of the
    /// cost-varying-subset rules when they are run with `model = "fitted"`.
    #[cfg(feature = "refit")]
    Map {
        /// Refit before the decisions of rounds `0, every, 2·every, …`.
        every: usize,
        /// The least noise variance the fit may choose.
        noise_floor: R,
    },
    /// Paper 001's model as its authors' code refits it (feature `refit`): before every
    /// decision once at least `from_spent` of the budget is spent (the unknown-cost rule's
    /// exploitation, with the same fraction), Adam from the hyperparameters the model was built
    /// with, as GPyTorch runs it ([`AdamFit`](crate::gp::AdamFit)); before that the model keeps
    /// them. The start is the isotropic lengthscale, outputscale, noise variance and mean given
    /// here, which should be the model's as built; the lengthscales stay within the authors'
    /// `Interval(1e-2, 1e4)`.
    #[cfg(feature = "refit")]
    AdamWhenSpent {
        /// The fraction of the budget spent from which every round refits.
        from_spent: R,
        /// The starting lengthscale of every input.
        lengthscale: R,
        /// The starting outputscale.
        outputscale: R,
        /// The starting noise variance (and its floor, as in the authors' model, where it is
        /// GaussianLikelihood's floor 1e-4 and so never moves).
        noise: R,
        /// The starting constant mean.
        mean: R,
        /// Adam steps per refit (the authors': 10).
        steps: usize,
        /// Adam's learning rate (the authors': 0.1).
        learning_rate: R,
    },
    #[doc(hidden)]
    #[cfg(not(feature = "refit"))]
    _Never(core::convert::Infallible, core::marker::PhantomData<R>),
}

impl<R: Real> Settings<R> {
    /// β = 2, the default inner optimiser and [`BudgetRule::Affordable`].
    pub fn new(budget: R, seed: u64) -> Self {
        Settings {
            beta: R::TWO,
            budget,
            inner: InnerConfig::default(),
            seed,
            budget_rule: BudgetRule::Affordable,
            refit: Refit::Never,
        }
    }
}

/// Values of the variables measured before the decision (physical units), `None` for the
/// others: what a contextual rule acts on (paper 004). The problem says which variables are
/// contexts ([`Problem::contexts`](crate::problem::Problem::contexts)).
pub type Context<R, const D: usize> = [Option<R>; D];

/// How long exploration lasts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Exploration<R> {
    /// Every set is played `τ` times (the paper's analysis).
    Rounds(u32),
    /// Explore while the budget spent is below this fraction of the total (the paper's
    /// experiments: 0.6).
    BudgetFraction(R),
}

/// How the exploitation phase chooses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Exploitation<R> {
    /// Algorithm 1 as the paper writes it: running (intersected) bounds, the tolerance `α`, a
    /// strict filter reset when it empties, the cost bound clamped at 0, ties to the higher
    /// UCB; UCB and LCB with the controller's β.
    Paper,
    /// As the authors' code (`Exploit_CVS` in github.com/Fsoft-AIC/BO-uCVS) runs it: each set's
    /// best expected `µ + ucb_beta·σ`; the best `µ − lcb_beta·σ` over the set controlling every
    /// variable (over all sets without one), raised to the best observation; the sets with
    /// `UCB ≥ LCB` (no α, no running bounds); of those the one with the least cost bound
    /// `ĉᵢ − √(2 ln t / Tᵢ)`, not clamped, `t` counted from 1, ties to the later set; with no
    /// such set, the highest UCB. The code's values: `ucb_beta` 1.96, `lcb_beta` 0.3.
    AuthorsCode {
        /// β of the upper bounds.
        ucb_beta: R,
        /// β of the lower bound.
        lcb_beta: R,
    },
}

/// Settings of the unknown-cost rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UnknownCostConfig<R> {
    /// Exploration length.
    pub exploration: Exploration<R>,
    /// Tolerance `α` at the start of exploitation (paper: 0.1).
    pub alpha: R,
    /// Halve `α` every this many exploitation rounds (`None`: fixed).
    pub halve_every: Option<u32>,
    /// The exploitation phase's choice.
    pub exploitation: Exploitation<R>,
}
