//! GP-UCB with pinned contexts, the arm rules, and the ask/tell controller of paper 004.
//!
//! A round: choose an arm ([`CausalController::next_arm`], which says which contexts to
//! measure) → measure them → choose the action ([`CausalController::ask`], GP-UCB over the
//! arm's action box with the contexts held at their measured values) → act and report the
//! outcome ([`CausalController::tell`]). `ask` may also be called directly, choosing the arm
//! and the action in one call from contexts measured beforehand.
//!
//! The protocol is checked: asking while a round is open, a context missing (NaN) or outside
//! its bounds for the chosen arm, an unknown arm, a non-finite outcome and telling with no
//! round open are typed errors that change nothing (the generator included).
//!
//! Memory: each arm's GP is a `Gp<R, N, D, S>`, holding `N(N+1)/2` scalars of packed factor
//! in `S`, `N·D` of inputs and `4N` of outputs, jitters, weights and scratch, plus a kernel of
//! `2D + 1` scalars: about `N(N+1)/2 + N(D+4)` scalars per arm (f32, `N = 64`, `D = 2`:
//! 9.9 KB), times `A` arms. The bandit's own state is three numbers per arm.

use rand_core::Rng;

use super::arms::{Arm, ArmTable};
use super::schedule::Schedule;
#[cfg(feature = "serde")]
use super::snapshot::{ArmRecord, CausalSnapshot};
use crate::acquisition::ucb::ascend_ucb;
pub use crate::acquisition::ucb::UcbMaximum;
#[cfg(feature = "refit")]
use crate::gp::FitConfig;
use crate::gp::{Gp, GpError, Prediction};
#[cfg(feature = "serde")]
use crate::kernel::Kernel;
use crate::ledger::Ledger;
use crate::optimize::QuasiNewtonConfig;
use crate::random::uniform_open;
use crate::real::Real;
#[cfg(feature = "serde")]
use crate::snapshot::ModelRecord;

/// The most starting points of the UCB's ascent.
pub const MAX_STARTS: usize = 16;

/// How the arm is chosen each round (after the round-robin, where there is one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ArmRule<R> {
    /// Algorithm 2: every arm once in order, then `argmax_j Ū_j + ρ_j(n_j)/√n_j` with `Ū_j`
    /// the running average of the arm's maximised UCB values (each taken before its outcome
    /// was added; in the target's units).
    Algorithm2,
    /// The public code's rule: every arm once in order, then UCB1 on the observed outcomes,
    /// `argmax_j ȳ_j + scale·√(2 ln(t+1)/n_j)` with `t` the rounds closed so far.
    Ucb1Rewards {
        /// The bonus's factor (1 in the code, where outcomes are standardised).
        scale: R,
    },
    /// CaBO's rule: every arm once in order, then the arm whose maximised UCB at this round's
    /// contexts is largest (meant for context-free arms; arms with contexts need them all
    /// measured before the choice).
    BestAcquisition,
    /// Always this arm: CoBO (a one-arm table) or the oracle arm.
    Fixed(usize),
    /// A uniformly random arm every round.
    Random,
}

/// How the action is chosen once the arm and its contexts are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionRule {
    /// GP-UCB over the action box, contexts pinned.
    Ucb,
    /// Uniform in the action box (the random baseline).
    Uniform,
}

/// How each arm's GP hyperparameters follow its data.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum ArmModel<R> {
    /// The hyperparameters the GPs were built with, for the life of the controller (the
    /// paper's analysis: known, fixed kernels).
    #[default]
    Fixed,
    /// Each arm's hyperparameters fitted to its own data by MAP after its plays of the
    /// schedule (feature `refit`, so that a device that never fits links no fitting code);
    /// see [`ArmFit`].
    #[cfg(feature = "refit")]
    Fitted(ArmFit<R>),
    #[doc(hidden)]
    #[cfg(not(feature = "refit"))]
    _Never(core::convert::Infallible, core::marker::PhantomData<R>),
}

/// A fitted per-arm model ([`ArmModel::Fitted`]).
///
/// After the arm's `n`-th play is told, when `n` is on the schedule, the arm's GP is fitted by
/// MAP with BoTorch 0.9's default priors ([`FitConfig::map_learned_noise`]): ARD lengthscales,
/// outputscale, constant mean and noise variance. The priors are placed on the arm's
/// *standardised* problem, written in the target's and the inputs' own units: the outputscale
/// and noise priors on `θ/s²` with `ȳ`, `s` the mean and standard deviation of the arm's
/// outcomes, the constant mean within `ȳ ± 100 s`, each lengthscale's Gamma(3, 6) prior on
/// `ℓ/w` with `w` the width of the input's box (as BoTorch's `Normalize` input transform and
/// `Standardize` outcome transform would give). So the model is standardised per arm while its
/// predictions stay in the target's units, and the arms' UCB values, which Algorithm 2
/// averages and CaBO compares across arms, need no inverse map.
///
/// A fit starts from fixed values (GPyTorch's initial ones), not from the last fit, so it
/// depends only on the arm's data: a controller rebuilt by replaying its rounds fits at the
/// same plays to the same hyperparameters. A fit that fails (no positive definite kernel
/// matrix anywhere it looked) leaves the model as it was.
///
/// Algorithm 2's `Ū` keeps the UCB values as they were decided, each under the model of its
/// round, so after a refit it mixes models (`docs/notes/seed-004.md`'s pitfall 3): every value
/// is in the target's units, and the weight of those from before the `k`-th refit falls as
/// `1/n`. Recomputing them would need the posterior after every past play.
///
/// The schedule: plays `p₁ = every`, then `pₖ₊₁ = pₖ + max(every, ⌊pₖ / spacing⌋)`
/// (`spacing = 0`: every `every` plays), from the second play on (one outcome has no spread
/// to standardise by). With `every = 1` and `spacing = 2` an arm of 700 plays is fitted 15
/// times (at 2, 3, 4, 6, 9, …, 316, 474 plays); a device whose GPs hold 64 observations can
/// afford a fit every few plays.
#[cfg(feature = "refit")]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmFit<R> {
    /// The fewest plays of the arm between fits (at least 1).
    pub every: u32,
    /// Gaps grow to `⌊p / spacing⌋` plays after a fit at `p` plays; 0 keeps them at `every`.
    pub spacing: u32,
    /// The least noise variance a fit may choose, in the target's units squared (positive).
    pub noise_floor: R,
    /// Likelihood evaluations per fit (at least 1): each costs one `O(n³)` factorisation of
    /// the arm's kernel matrix and its gradient, so this bounds what a fit costs a device.
    pub evaluations: usize,
}

#[cfg(feature = "refit")]
impl<R: Real> ArmFit<R> {
    /// Whether the arm is fitted after its `plays`-th play (never before the second: one
    /// outcome has no spread to standardise by).
    pub fn due(&self, plays: u32) -> bool {
        if self.every == 0 || plays < 2 {
            return false;
        }
        if self.spacing == 0 {
            return plays.is_multiple_of(self.every);
        }
        let mut p = self.every;
        while p < plays {
            p = p.saturating_add(self.every.max(p / self.spacing));
        }
        p == plays
    }

    fn valid(&self) -> bool {
        self.every >= 1
            && self.evaluations >= 1
            && self.noise_floor.is_finite()
            && self.noise_floor > R::ZERO
    }
}

/// A controller's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CausalSettings<R> {
    /// The arm rule.
    pub arm_rule: ArmRule<R>,
    /// The action rule.
    pub action_rule: ActionRule,
    /// How each arm's GP hyperparameters follow its data.
    pub model: ArmModel<R>,
    /// β(n), `n` the play number of the arm this round (UCB width `√β`).
    pub beta: Schedule<R>,
    /// ρ(n), `n` the arm's plays so far (Algorithm 2's bonus `ρ/√n`).
    pub rho: Schedule<R>,
    /// Starting points of the UCB's ascent, 1 to [`MAX_STARTS`].
    pub starts: usize,
    /// The ascent's settings.
    pub ascent: QuasiNewtonConfig,
}

impl<R: Real> CausalSettings<R> {
    /// Algorithm 2 with GP-UCB, the given schedules, 8 starts and L-BFGS-B's defaults.
    pub fn algorithm2(beta: Schedule<R>, rho: Schedule<R>) -> Self {
        CausalSettings {
            arm_rule: ArmRule::Algorithm2,
            action_rule: ActionRule::Ucb,
            model: ArmModel::Fixed,
            beta,
            rho,
            starts: 8,
            ascent: QuasiNewtonConfig::default(),
        }
    }
}

/// Why a controller refused a call. Nothing changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CausalError {
    /// The arm table is empty.
    NoArms,
    /// A setting is out of its domain (a schedule's parameters, the number of starts, a
    /// negative UCB1 scale).
    InvalidSetting,
    /// An arm index beyond the table.
    UnknownArm {
        /// The index given.
        arm: usize,
    },
    /// A context of the chosen arm was not given (NaN, or beyond the slice).
    ContextMissing {
        /// The variable.
        variable: usize,
    },
    /// A context of the chosen arm lies outside its bounds (or is infinite).
    ContextOutOfBounds {
        /// The variable.
        variable: usize,
    },
    /// The outcome is NaN or infinite.
    NonFiniteOutcome,
    /// A round's cost is negative, NaN or infinite.
    InvalidCost,
    /// A round is already open (arm chosen or action given, outcome not yet told).
    RoundOpen,
    /// No round is open.
    NoRound,
    /// No starting point gave a finite UCB.
    NoAction,
    /// The arm's GP refused the observation (full, not positive definite).
    Model(GpError),
    /// A snapshot was taken from a controller of another arm table or GP capacity, or holds a
    /// value no controller can reach (non-finite statistics, more observations than plays,
    /// plays that do not add up to the rounds, an input outside its arm's box).
    InvalidSnapshot,
    /// A snapshot is restored into a controller that has closed or opened a round.
    NotFresh,
}

impl core::fmt::Display for CausalError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NoArms => f.write_str("the arm table is empty"),
            Self::InvalidSetting => f.write_str("a setting is out of its domain"),
            Self::UnknownArm { arm } => write!(f, "arm {arm} is beyond the arm table"),
            Self::ContextMissing { variable } => write!(
                f,
                "context variable {variable} of the chosen arm was not given"
            ),
            Self::ContextOutOfBounds { variable } => write!(
                f,
                "context variable {variable} of the chosen arm lies outside its bounds"
            ),
            Self::NonFiniteOutcome => f.write_str("the outcome is NaN or infinite"),
            Self::InvalidCost => f.write_str("the round's cost is negative, NaN or infinite"),
            Self::RoundOpen => f.write_str("a round is already open"),
            Self::NoRound => f.write_str("no round is open"),
            Self::NoAction => f.write_str("no starting point gave a finite ucb"),
            Self::Model(e) => write!(f, "the arm's gp refused the observation: {e}"),
            Self::InvalidSnapshot => f.write_str(
                "the snapshot is of another arm table or capacity, or holds a value no \
                 controller can reach",
            ),
            Self::NotFresh => {
                f.write_str("the controller already ran rounds: restore into a freshly built one")
            }
        }
    }
}

impl core::error::Error for CausalError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Model(e) => Some(e),
            _ => None,
        }
    }
}

/// Why a recorded round could not be replayed ([`CausalController::replay`]). The round was
/// abandoned: the controller is as before it, its generator aside (as
/// [`abandon`](CausalController::abandon) leaves it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CausalReplayError {
    /// The controller refused a step of the round.
    Controller(CausalError),
    /// Deciding the round again chose another arm than the recorded one.
    Arm {
        /// Recorded.
        recorded: usize,
        /// Decided again.
        decided: usize,
    },
    /// Deciding the round again gave another action than the recorded one.
    Action {
        /// The variable whose value differs.
        variable: usize,
    },
    /// The caller could not turn the decision into the record's terms (an arm without a
    /// control set).
    NoDecision,
}

impl core::fmt::Display for CausalReplayError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Controller(e) => write!(f, "the controller refused the round: {e}"),
            Self::Arm { recorded, decided } => write!(
                f,
                "deciding the round again chose arm {decided}, the record has arm {recorded}"
            ),
            Self::Action { variable } => write!(
                f,
                "deciding the round again gave another value of variable {variable} than the record's"
            ),
            Self::NoDecision => f.write_str("the decision has no doses to compare with the record's"),
        }
    }
}

impl core::error::Error for CausalReplayError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Controller(e) => Some(e),
            _ => None,
        }
    }
}

/// Why the arm was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArmReason {
    /// An arm not yet played, in table order (the initial round-robin).
    RoundRobin,
    /// The largest index of the arm rule.
    Index,
    /// The largest maximised UCB at this round's contexts (CaBO).
    BestAcquisition,
    /// The fixed arm of the settings.
    Fixed,
    /// Drawn uniformly.
    Random,
    /// Given by the caller ([`CausalController::ask_arm`]).
    Forced,
}

/// A round's arm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArmChoice<R> {
    /// The round, counted from 1.
    pub round: u32,
    /// The arm.
    pub arm: usize,
    /// Why.
    pub reason: ArmReason,
    /// The winning index (Algorithm 2, UCB1 or the best acquisition value); NaN otherwise.
    pub index: R,
    /// ρ at the arm's plays so far (at 1 before its first play), as used by Algorithm 2.
    pub rho: R,
}

/// A round's decision: the arm and the action, with what a log needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CausalAsk<R, const D: usize> {
    /// The arm and why.
    pub choice: ArmChoice<R>,
    /// The GP input: the action values, then the measured contexts, then zeros.
    pub input: [R; D],
    /// How many leading entries of `input` are actions.
    pub n_actions: usize,
    /// The UCB there, under the posterior before this round's outcome (what Algorithm 2
    /// averages), in the target's units.
    pub ucb: R,
    /// The posterior there.
    pub prediction: Prediction<R>,
    /// β used for the width.
    pub beta: R,
}

impl<R: Real, const D: usize> CausalAsk<R, D> {
    /// The action values, in the order of the arm's action variables.
    pub fn action(&self) -> &[R] {
        &self.input[..self.n_actions]
    }
}

/// Fractional parts of the square roots of the first primes: the per-coordinate steps of the
/// fixed starting points (an additive recurrence, well spread in few points).
const STEPS: [f64; MAX_STARTS] = [
    0.414_213_562_373_095, // √2
    0.732_050_807_568_877, // √3
    0.236_067_977_499_790, // √5
    0.645_751_311_064_591, // √7
    0.316_624_790_355_400, // √11
    0.605_551_275_463_989, // √13
    0.123_105_625_617_661, // √17
    0.358_898_943_540_674, // √19
    0.795_831_523_312_719, // √23
    0.385_164_807_134_504, // √29
    0.567_764_362_830_022, // √31
    0.082_762_530_298_219, // √37
    0.403_124_237_432_849, // √41
    0.557_438_524_302_000, // √43
    0.855_654_600_401_044, // √47
    0.280_109_889_280_518, // √53
];

/// Start `k` in the box: the centre for `k = 0`, then `frac(½ + k·stepₗ)` of each side.
fn start<R: Real, const D: usize>(k: usize, lower: &[R; D], upper: &[R; D]) -> [R; D] {
    core::array::from_fn(|l| {
        let s = 0.5 + (k as f64) * STEPS[l % MAX_STARTS];
        let u = R::from_f64(s - libm::floor(s));
        lower[l] + u * (upper[l] - lower[l])
    })
}

/// The maximum of the UCB `μ + width·σ` of `gp` over the box `[lower, upper]`, found by
/// projected L-BFGS from `starts` fixed points (the centre first). Coordinates with
/// `lower = upper` are pinned (contexts at their measured values, unused inputs at zero).
/// `None` when no start gives a finite value.
pub fn maximize_ucb<R, const N: usize, const D: usize, S>(
    gp: &Gp<R, N, D, S>,
    lower: &[R; D],
    upper: &[R; D],
    width: R,
    starts: usize,
    config: &QuasiNewtonConfig,
) -> Option<UcbMaximum<R, D>>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
{
    let mut best: Option<UcbMaximum<R, D>> = None;
    for k in 0..starts.clamp(1, MAX_STARTS) {
        let x0 = start(k, lower, upper);
        let Some(a) = ascend_ucb(gp, width, x0, lower, upper, config) else {
            continue;
        };
        // Strictly better only: ties keep the earlier start, so the choice is reproducible.
        if best.is_some_and(|b| a.value <= b.value) {
            continue;
        }
        best = Some(a);
    }
    best
}

/// Sets the empty `gp` to `record`: its hyperparameters, then its observations one slot at a
/// time (the inputs in the arm's own units, checked against its box by the caller).
#[cfg(feature = "serde")]
fn restore_model<R, const N: usize, const D: usize, S>(
    gp: &mut Gp<R, N, D, S>,
    record: &ModelRecord<R, N, D>,
) -> Result<(), CausalError>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
{
    let kernel = Kernel::new(
        gp.kernel().shape(),
        record.lengthscales.0,
        record.outputscale,
    )
    .map_err(|_| CausalError::InvalidSnapshot)?;
    gp.set_hyperparameters(kernel, record.mean, record.noise)
        .map_err(|_| CausalError::InvalidSnapshot)?;
    for o in record.observations.as_slice() {
        gp.push_merged(&o.x.0, o.y, o.count, o.spread)
            .map_err(CausalError::Model)?;
    }
    Ok(())
}

/// Per-arm bandit state.
#[derive(Debug, Clone, Copy, PartialEq)]
struct ArmState<R> {
    plays: u32,
    mean_ucb: R,
    mean_outcome: R,
    fits: u32,
}

/// The controller (see the module docs): `A` arms, each with a GP of capacity `N` over `D`
/// inputs kept in storage `S`, and a generator `G` for the random baseline.
#[derive(Debug, Clone)]
pub struct CausalController<R, const A: usize, const N: usize, const D: usize, S, G> {
    table: ArmTable<R, A, D>,
    gps: [Gp<R, N, D, S>; A],
    state: [ArmState<R>; A],
    settings: CausalSettings<R>,
    rng: G,
    closed: u32,
    chosen: Option<ArmChoice<R>>,
    open: Option<CausalAsk<R, D>>,
    /// The budget of [`with_budget`](CausalController::with_budget), if any.
    budget: Option<R>,
    ledger: Ledger<R>,
}

impl<R, const A: usize, const N: usize, const D: usize, S, G> CausalController<R, A, N, D, S, G>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    G: Rng + Clone,
{
    /// A controller at round 1. `gps[i]` is arm `i`'s model (entries beyond the table's
    /// arms are unused); its hyperparameters stay fixed, so Algorithm 2's averages never mix
    /// models. Its prior mean and output scale are in the target's units.
    pub fn new(
        table: ArmTable<R, A, D>,
        gps: [Gp<R, N, D, S>; A],
        settings: CausalSettings<R>,
        rng: G,
    ) -> Result<Self, CausalError> {
        if table.is_empty() {
            return Err(CausalError::NoArms);
        }
        let rule_ok = match settings.arm_rule {
            ArmRule::Ucb1Rewards { scale } => scale.is_finite() && scale >= R::ZERO,
            ArmRule::Fixed(arm) if arm >= table.len() => {
                return Err(CausalError::UnknownArm { arm });
            }
            _ => true,
        };
        let model_ok = match settings.model {
            ArmModel::Fixed => true,
            #[cfg(feature = "refit")]
            ArmModel::Fitted(fit) => fit.valid(),
            #[cfg(not(feature = "refit"))]
            ArmModel::_Never(never, _) => match never {},
        };
        if !rule_ok
            || !model_ok
            || !settings.beta.valid()
            || !settings.rho.valid()
            || settings.starts == 0
            || settings.starts > MAX_STARTS
        {
            return Err(CausalError::InvalidSetting);
        }
        Ok(CausalController {
            table,
            gps,
            state: [ArmState {
                plays: 0,
                mean_ucb: R::ZERO,
                mean_outcome: R::ZERO,
                fits: 0,
            }; A],
            settings,
            rng,
            closed: 0,
            chosen: None,
            open: None,
            budget: None,
            ledger: Ledger::new(),
        })
    }

    /// Caps the total cost of the rounds told with [`tell_paid`](Self::tell_paid) at `budget`
    /// (finite, ≥ 0; [`CausalError::InvalidSetting`] otherwise): [`affords`](Self::affords)
    /// says whether an arm's cost can still be paid, by the dosing controller's rule
    /// ([`Ledger::affords`]). Without it every cost is affordable.
    pub fn with_budget(mut self, budget: R) -> Result<Self, CausalError> {
        if !(budget.is_finite() && budget >= R::ZERO) {
            return Err(CausalError::InvalidSetting);
        }
        self.budget = Some(budget);
        Ok(self)
    }

    /// True when `cost` can still be paid from the budget (always without one).
    pub fn affords(&self, cost: R) -> bool {
        self.budget.is_none_or(|b| self.ledger.affords(cost, b))
    }

    /// The costs of the rounds told with [`tell_paid`](Self::tell_paid), summed.
    pub fn spent(&self) -> R {
        self.ledger.total()
    }

    /// The arm table.
    pub fn table(&self) -> &ArmTable<R, A, D> {
        &self.table
    }

    /// The settings.
    pub fn settings(&self) -> &CausalSettings<R> {
        &self.settings
    }

    /// Arm `arm`'s GP.
    pub fn gp(&self, arm: usize) -> Option<&Gp<R, N, D, S>> {
        (arm < self.table.len()).then(|| &self.gps[arm])
    }

    /// Rounds closed so far.
    pub fn rounds(&self) -> u32 {
        self.closed
    }

    /// Times arm `arm`'s model was fitted ([`ArmModel::Fitted`]; 0 for an unknown arm).
    pub fn fits(&self, arm: usize) -> u32 {
        self.arm_state(arm).map_or(0, |s| s.fits)
    }

    /// Times arm `arm` was played (0 for an unknown arm).
    pub fn plays(&self, arm: usize) -> u32 {
        self.arm_state(arm).map_or(0, |s| s.plays)
    }

    /// Arm `arm`'s running average `Ū` of maximised UCB values (0 before its first play).
    pub fn mean_ucb(&self, arm: usize) -> Option<R> {
        self.arm_state(arm).map(|s| s.mean_ucb)
    }

    /// Arm `arm`'s average outcome `ȳ` (0 before its first play).
    pub fn mean_outcome(&self, arm: usize) -> Option<R> {
        self.arm_state(arm).map(|s| s.mean_outcome)
    }

    /// Algorithm 2's index of arm `arm`, `Ū + ρ(n)/√n`; +∞ before its first play.
    pub fn index(&self, arm: usize) -> Option<R> {
        let s = self.arm_state(arm)?;
        Some(self.algorithm2_index(arm, s))
    }

    /// The open round's arm, once chosen.
    pub fn chosen(&self) -> Option<&ArmChoice<R>> {
        self.open
            .as_ref()
            .map(|a| &a.choice)
            .or(self.chosen.as_ref())
    }

    /// The open round's decision, once asked.
    pub fn open(&self) -> Option<&CausalAsk<R, D>> {
        self.open.as_ref()
    }

    /// Chooses this round's arm; the caller then measures its
    /// [`contexts`](Arm::contexts) and calls [`ask`](Self::ask). Under
    /// [`ArmRule::BestAcquisition`] the choice needs the contexts: arms with contexts make it
    /// [`CausalError::ContextMissing`] here (call `ask` directly).
    pub fn next_arm(&mut self) -> Result<ArmChoice<R>, CausalError> {
        if self.chosen.is_some() || self.open.is_some() {
            return Err(CausalError::RoundOpen);
        }
        let mut rng = self.rng.clone();
        let choice = self.choose(&mut rng, None)?;
        self.rng = rng;
        self.chosen = Some(choice);
        Ok(choice)
    }

    /// The action for this round given `contexts` (indexed by problem variable, NaN where
    /// not measured; only the arm's contexts are read). Chooses the arm first unless
    /// [`next_arm`](Self::next_arm) did.
    pub fn ask(&mut self, contexts: &[R]) -> Result<CausalAsk<R, D>, CausalError> {
        if self.open.is_some() {
            return Err(CausalError::RoundOpen);
        }
        let mut rng = self.rng.clone();
        let choice = match self.chosen {
            Some(c) => c,
            None => self.choose(&mut rng, Some(contexts))?,
        };
        let ask = self.act(choice, contexts, &mut rng)?;
        self.rng = rng;
        self.chosen = None;
        self.open = Some(ask);
        Ok(ask)
    }

    /// The action for this round on the caller's arm (an override, a replay, the oracle by
    /// hand), whatever the rule.
    pub fn ask_arm(&mut self, arm: usize, contexts: &[R]) -> Result<CausalAsk<R, D>, CausalError> {
        if self.chosen.is_some() || self.open.is_some() {
            return Err(CausalError::RoundOpen);
        }
        let s = self.arm_state(arm).ok_or(CausalError::UnknownArm { arm })?;
        let choice = ArmChoice {
            round: self.closed + 1,
            arm,
            reason: ArmReason::Forced,
            index: R::from_f64(f64::NAN),
            rho: self.rho_at(arm, s.plays),
        };
        let mut rng = self.rng.clone();
        let ask = self.act(choice, contexts, &mut rng)?;
        self.rng = rng;
        self.open = Some(ask);
        Ok(ask)
    }

    /// [`tell`](Self::tell), and the round's `cost` charged to the budget's ledger. A cost
    /// that is negative or not finite is refused ([`CausalError::InvalidCost`]) before
    /// anything changes.
    pub fn tell_paid(&mut self, y: R, cost: R) -> Result<(), CausalError> {
        if !(cost.is_finite() && cost >= R::ZERO) {
            return Err(CausalError::InvalidCost);
        }
        self.tell(y)?;
        self.ledger.charge(cost);
        Ok(())
    }

    /// Closes the open round with its outcome: the arm's GP learns `(input, y)`, its count,
    /// `Ū` (with the UCB of the decision, taken before this outcome) and `ȳ` are updated.
    pub fn tell(&mut self, y: R) -> Result<(), CausalError> {
        let ask = self.open.ok_or(CausalError::NoRound)?;
        if !y.is_finite() {
            return Err(CausalError::NonFiniteOutcome);
        }
        let arm = ask.choice.arm;
        self.gps[arm]
            .push(&ask.input, y)
            .map_err(CausalError::Model)?;
        let s = &mut self.state[arm];
        s.plays += 1;
        let n = R::from_f64(f64::from(s.plays));
        // Ū_n = ((n−1)/n)·Ū_{n−1} + u/n, written as an increment (Ū_1 = u exactly).
        s.mean_ucb = s.mean_ucb + (ask.ucb - s.mean_ucb) / n;
        s.mean_outcome = s.mean_outcome + (y - s.mean_outcome) / n;
        self.closed += 1;
        self.open = None;
        self.refit_if_due(arm);
        Ok(())
    }

    /// Fits arm `arm`'s model if the settings ask for it after its plays so far.
    #[cfg_attr(not(feature = "refit"), allow(unused_variables))]
    fn refit_if_due(&mut self, arm: usize) {
        match self.settings.model {
            ArmModel::Fixed => {}
            #[cfg(feature = "refit")]
            ArmModel::Fitted(fit) => {
                if fit.due(self.state[arm].plays) {
                    let config = self.fit_config(arm, &fit);
                    if self.gps[arm].fit(&config).is_ok() {
                        self.state[arm].fits += 1;
                    }
                }
            }
            #[cfg(not(feature = "refit"))]
            ArmModel::_Never(never, _) => match never {},
        }
    }

    /// [`FitConfig::map_learned_noise`] on arm `arm`'s outcomes, scaled to the widths of its
    /// inputs' boxes ([`FitConfig::with_input_widths`]); inputs the arm does not use (and
    /// inputs of zero width) keep their lengthscale.
    #[cfg(feature = "refit")]
    fn fit_config(&self, arm: usize, fit: &ArmFit<R>) -> FitConfig<R, D> {
        let gp = &self.gps[arm];
        let a = self.arm(arm);
        let widths: [R; D] = core::array::from_fn(|l| {
            if l < a.inputs() {
                a.upper()[l] - a.lower()[l]
            } else {
                R::ZERO
            }
        });
        let mut config = FitConfig::map_learned_noise(gp.outputs(), fit.noise_floor)
            .with_input_widths(&widths, &gp.hyperparameters().log_lengthscales);
        config.evaluations_per_start = fit.evaluations;
        config
    }

    /// Replays a recorded round, as a device does from its journal after a power cut: the arm
    /// is decided again and must be the recorded `arm`, the action is decided again from
    /// `contexts` (unit coordinates, as [`ask`](Self::ask) takes them) and `check` compares it
    /// with the record in the caller's terms (the table gives the arm's action variables),
    /// then the round is told `y` and charged `cost` ([`tell_paid`](Self::tell_paid)). On
    /// any error the round is abandoned, so the controller is as before it.
    pub fn replay(
        &mut self,
        arm: usize,
        contexts: &[R],
        y: R,
        cost: R,
        check: impl FnOnce(&ArmTable<R, A, D>, &CausalAsk<R, D>) -> Result<(), CausalReplayError>,
    ) -> Result<(), CausalReplayError> {
        let choice = self.next_arm().map_err(CausalReplayError::Controller)?;
        let result = (|| {
            if choice.arm != arm {
                return Err(CausalReplayError::Arm {
                    recorded: arm,
                    decided: choice.arm,
                });
            }
            let ask = self.ask(contexts).map_err(CausalReplayError::Controller)?;
            check(&self.table, &ask)?;
            self.tell_paid(y, cost)
                .map_err(CausalReplayError::Controller)
        })();
        if result.is_err() {
            let _ = self.abandon();
        }
        result
    }

    /// Drops the open round (chosen arm or decision) without an outcome: the action was not
    /// taken. Counts and models are as before the round; the generator stays advanced.
    pub fn abandon(&mut self) -> Result<(), CausalError> {
        if self.chosen.is_none() && self.open.is_none() {
            return Err(CausalError::NoRound);
        }
        self.chosen = None;
        self.open = None;
        Ok(())
    }

    /// The state to save, between rounds ([`CausalError::RoundOpen`] while an arm is chosen or
    /// a decision asked: tell, abandon, or save before); see [`super::snapshot`].
    #[cfg(feature = "serde")]
    pub fn snapshot(&self) -> Result<CausalSnapshot<R, A, N, D, G>, CausalError> {
        if self.chosen.is_some() || self.open.is_some() {
            return Err(CausalError::RoundOpen);
        }
        let mut arms = heapless::Vec::new();
        for (gp, s) in self.gps.iter().zip(&self.state).take(self.table.len()) {
            // Cannot fail: the table holds at most A arms.
            let _ = arms.push(ArmRecord {
                model: ModelRecord::of(gp),
                plays: s.plays,
                mean_ucb: s.mean_ucb,
                mean_outcome: s.mean_outcome,
                fits: s.fits,
            });
        }
        Ok(CausalSnapshot {
            arms,
            rounds: self.closed,
            spent: self.ledger.parts(),
            rng: self.rng.clone(),
        })
    }

    /// Restores `snapshot` into this controller, which must be freshly built (no round closed
    /// or open, every GP empty) with the arm table, settings, budget and GPs' kernel shapes
    /// and capacities of the one saved. Every value is checked and every observation pushed
    /// again; on any error ([`CausalError::InvalidSnapshot`], [`CausalError::NotFresh`], or
    /// [`CausalError::Model`] for a model its GP refuses) the controller is as it was.
    #[cfg(feature = "serde")]
    pub fn restore(&mut self, snapshot: &CausalSnapshot<R, A, N, D, G>) -> Result<(), CausalError> {
        let fresh = self.closed == 0
            && self.chosen.is_none()
            && self.open.is_none()
            && self.gps.iter().all(|g| g.is_empty());
        if !fresh {
            return Err(CausalError::NotFresh);
        }
        let bad = CausalError::InvalidSnapshot;
        let m = self.table.len();
        let (spent, error) = snapshot.spent;
        let plays: u64 = snapshot.arms.iter().map(|a| u64::from(a.plays)).sum();
        if snapshot.arms.len() != m
            || plays != u64::from(snapshot.rounds)
            || !(spent.is_finite() && error.is_finite() && spent >= R::ZERO)
        {
            return Err(bad);
        }
        for (i, a) in snapshot.arms.iter().enumerate() {
            let held: u64 = a
                .model
                .observations
                .iter()
                .map(|o| u64::from(o.count))
                .sum();
            let arm = self.arm(i);
            let in_box = |x: &[R; D]| {
                x.iter().enumerate().all(|(l, v)| {
                    if l < arm.inputs() {
                        *v >= arm.lower()[l] && *v <= arm.upper()[l]
                    } else {
                        *v == R::ZERO
                    }
                })
            };
            if !(a.mean_ucb.is_finite() && a.mean_outcome.is_finite())
                || held > u64::from(a.plays)
                || a.model.observations.len() > self.gps[i].capacity()
                || a.fits > a.plays
                || !a.model.observations.iter().all(|o| in_box(&o.x.0))
            {
                return Err(bad);
            }
        }
        // Each arm's GP is set to its record; the first refusal puts back every GP touched.
        let saved: [(Kernel<R, D>, R, R); A] = core::array::from_fn(|i| {
            let gp = &self.gps[i];
            (*gp.kernel(), gp.prior_mean(), gp.noise())
        });
        for i in 0..m {
            let outcome = restore_model(&mut self.gps[i], &snapshot.arms[i].model);
            if let Err(e) = outcome {
                for (gp, (kernel, mean, noise)) in self.gps.iter_mut().zip(saved).take(i + 1) {
                    gp.clear();
                    // An empty GP takes back the hyperparameters it was built with.
                    let _ = gp.set_hyperparameters(kernel, mean, noise);
                }
                return Err(e);
            }
        }
        for (s, a) in self.state.iter_mut().zip(&snapshot.arms) {
            *s = ArmState {
                plays: a.plays,
                mean_ucb: a.mean_ucb,
                mean_outcome: a.mean_outcome,
                fits: a.fits,
            };
        }
        self.closed = snapshot.rounds;
        self.ledger = Ledger::from_parts(spent, error);
        self.rng = snapshot.rng.clone();
        Ok(())
    }

    fn arm_state(&self, arm: usize) -> Option<ArmState<R>> {
        (arm < self.table.len()).then(|| self.state[arm])
    }

    fn arm(&self, arm: usize) -> &Arm<R, D> {
        &self.table.arms()[arm]
    }

    fn rho_at(&self, arm: usize, plays: u32) -> R {
        let a = self.arm(arm);
        self.settings.rho.at(
            plays,
            a.actions().len(),
            a.contexts().len(),
            self.table.len(),
        )
    }

    fn algorithm2_index(&self, arm: usize, s: ArmState<R>) -> R {
        if s.plays == 0 {
            return R::INFINITY;
        }
        let n = R::from_f64(f64::from(s.plays));
        s.mean_ucb + self.rho_at(arm, s.plays) / n.sqrt()
    }

    fn choose(&self, rng: &mut G, contexts: Option<&[R]>) -> Result<ArmChoice<R>, CausalError> {
        let m = self.table.len();
        let nan = R::from_f64(f64::NAN);
        let made = |arm: usize, reason: ArmReason, index: R| ArmChoice {
            round: self.closed + 1,
            arm,
            reason,
            index,
            rho: self.rho_at(arm, self.state[arm].plays),
        };
        match self.settings.arm_rule {
            ArmRule::Fixed(arm) => return Ok(made(arm, ArmReason::Fixed, nan)),
            ArmRule::Random => {
                // Drawn in f64 so that f32 and f64 controllers pick the same arms.
                let u: f64 = uniform_open(rng);
                let arm = ((u * m as f64) as usize).min(m - 1);
                return Ok(made(arm, ArmReason::Random, nan));
            }
            _ => {}
        }
        if let Some(arm) = (0..m).find(|&i| self.state[i].plays == 0) {
            return Ok(made(arm, ArmReason::RoundRobin, nan));
        }
        let t = R::from_f64(f64::from(self.closed));
        let mut best = (0, -R::INFINITY);
        for i in 0..m {
            let s = self.state[i];
            let n = R::from_f64(f64::from(s.plays));
            let v = match self.settings.arm_rule {
                ArmRule::Ucb1Rewards { scale } => {
                    s.mean_outcome + scale * (R::TWO * (t + R::ONE).ln() / n).sqrt()
                }
                ArmRule::BestAcquisition => {
                    let ctx = contexts.unwrap_or(&[]);
                    let (lower, upper) = self.input_box(i, ctx)?;
                    let width = self.beta_at(i).sqrt();
                    maximize_ucb(
                        &self.gps[i],
                        &lower,
                        &upper,
                        width,
                        self.settings.starts,
                        &self.settings.ascent,
                    )
                    .ok_or(CausalError::NoAction)?
                    .value
                }
                _ => self.algorithm2_index(i, s),
            };
            // Strictly larger: ties go to the lower index.
            if v > best.1 {
                best = (i, v);
            }
        }
        let reason = match self.settings.arm_rule {
            ArmRule::BestAcquisition => ArmReason::BestAcquisition,
            _ => ArmReason::Index,
        };
        Ok(made(best.0, reason, best.1))
    }

    fn beta_at(&self, arm: usize) -> R {
        let a = self.arm(arm);
        self.settings.beta.at(
            self.state[arm].plays + 1,
            a.actions().len(),
            a.contexts().len(),
            self.table.len(),
        )
    }

    /// The ascent's box for `arm`: its action box, its contexts pinned at their checked
    /// values, unused inputs at zero.
    fn input_box(&self, arm: usize, contexts: &[R]) -> Result<([R; D], [R; D]), CausalError> {
        let a = self.arm(arm);
        let mut lower = *a.lower();
        let mut upper = *a.upper();
        let na = a.actions().len();
        for (k, &v) in a.contexts().iter().enumerate() {
            let c = match contexts.get(v) {
                Some(&c) if !c.is_nan() => c,
                _ => return Err(CausalError::ContextMissing { variable: v }),
            };
            if !(c.is_finite() && c >= lower[na + k] && c <= upper[na + k]) {
                return Err(CausalError::ContextOutOfBounds { variable: v });
            }
            lower[na + k] = c;
            upper[na + k] = c;
        }
        Ok((lower, upper))
    }

    fn act(
        &self,
        choice: ArmChoice<R>,
        contexts: &[R],
        rng: &mut G,
    ) -> Result<CausalAsk<R, D>, CausalError> {
        let arm = choice.arm;
        let (lower, upper) = self.input_box(arm, contexts)?;
        let beta = self.beta_at(arm);
        let width = beta.sqrt();
        let gp = &self.gps[arm];
        let na = self.arm(arm).actions().len();
        let found = match self.settings.action_rule {
            ActionRule::Ucb => maximize_ucb(
                gp,
                &lower,
                &upper,
                width,
                self.settings.starts,
                &self.settings.ascent,
            )
            .ok_or(CausalError::NoAction)?,
            ActionRule::Uniform => {
                let mut input = lower;
                for l in 0..na {
                    let u: R = uniform_open(rng);
                    input[l] = lower[l] + u * (upper[l] - lower[l]);
                }
                let prediction = gp.predict(&input).map_err(CausalError::Model)?;
                UcbMaximum {
                    input,
                    value: prediction.mean + width * prediction.variance.sqrt(),
                    prediction,
                }
            }
        };
        Ok(CausalAsk {
            choice,
            input: found.input,
            n_actions: na,
            ucb: found.value,
            prediction: found.prediction,
            beta,
        })
    }
}
