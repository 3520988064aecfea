//! The contextual causal experiments of the experiment file (its `[causal]` table, paper 004)
//! on the desktop: [`CausalOptimizer`], the device's round as three calls.
//!
//! ```no_run
//! use costbo_std::CausalOptimizer;
//!
//! # fn read_sensors(_: &[usize]) -> Vec<Option<f64>> { unimplemented!() }
//! # fn dose_and_grow(_: &[Option<f64>]) -> f64 { unimplemented!() }
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut opt = CausalOptimizer::from_file("firmware/experiments/causal-contexts.toml")?;
//! while let Some(arm) = opt.next_arm()? {
//!     // Measure the arm's contexts (the variables in `arm.contexts`), nothing else.
//!     let contexts = read_sensors(&arm.contexts);
//!     let decision = opt.ask(&contexts)?;
//!     // Dose the arm's control set to `decision.values`, wait, measure the outcome.
//!     let y = dose_and_grow(&decision.values);
//!     opt.tell(y)?;
//! }
//! println!("{:?}", opt.recommend());
//! # Ok(())
//! # }
//! ```
//!
//! It is the core's `causal::CausalController` built from the file by
//! [`Spec::causal_controller`] as the firmware builds it, with the same generator seed, so that
//! in `f32` it makes the device's decisions bit for bit from the same contexts; in `f64` the
//! desktop's. A failed call leaves the optimizer as it was. [`to_json`](CausalOptimizer::to_json)
//! saves the experiment file and the rounds as told; [`from_json`](CausalOptimizer::from_json)
//! replays them through the core's replay (the path the device resumes its journal by), so
//! the restored optimizer decides as the saved one would have.

use std::path::Path;

use costbo_core::causal::{CausalController, CausalError, CausalReplayError};
use costbo_core::linalg::tri_len;
use costbo_core::real::Real;
use costbo_experiment::{Spec, SpecError};
use rand_core::SeedableRng;
use serde::{Deserialize, Serialize};

use super::engine::{on_worker, Precision, MAX_DIM};
use super::{Error, ErrorKind, VariableInfo};

/// Most arms a causal experiment may have here (the core's controller holds a fixed number; a
/// table with fewer arms decides as a controller of exactly its size does).
pub const MAX_ARMS: usize = 8;

/// The capacities (observations per arm) served: a causal experiment's `capacity` must be
/// one of them (the controller's GPs are built at exactly the file's capacity, as on the
/// device).
pub const CAUSAL_CAPACITIES: [usize; 3] = [32, 64, 256];

/// The generator of a causal controller, seeded as the firmware seeds its own.
type CausalRng = rand_xoshiro::Xoshiro128PlusPlus;

/// An arm of the experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct ArmInfo {
    /// The control set it doses.
    pub set: usize,
    /// The variables it sets (the set's).
    pub actions: Vec<usize>,
    /// The variables it measures before deciding.
    pub contexts: Vec<usize>,
}

/// The arm chosen for this round: measure its contexts, then [`CausalOptimizer::ask`].
#[derive(Debug, Clone, PartialEq)]
pub struct ArmAsk {
    /// The arm's index, in the file's order.
    pub arm: usize,
    /// The control set it doses.
    pub set: usize,
    /// The variables to measure now (the arm's contexts), in the file's order.
    pub contexts: Vec<usize>,
    /// What the round costs (the set's cost).
    pub cost: f64,
}

/// The action of this round.
#[derive(Debug, Clone, PartialEq)]
pub struct CausalDecision {
    /// The arm.
    pub arm: usize,
    /// The control set it doses.
    pub set: usize,
    /// One value per variable in the file's order, physical units: the dose of each of the
    /// arm's actions, `None` for the others.
    pub values: Vec<Option<f64>>,
    /// The round's cost.
    pub cost: f64,
    /// The UCB value of the action (for logs, and for checking a device's decision bit for
    /// bit: the device sends it as the decision's score).
    pub ucb: f64,
}

/// The arm whose outcomes were best on average (what the device reports at the end).
#[derive(Debug, Clone, PartialEq)]
pub struct CausalRecommendation {
    /// The arm.
    pub arm: usize,
    /// Its control set.
    pub set: usize,
    /// Its mean outcome over its plays.
    pub mean_outcome: f64,
    /// Its plays.
    pub plays: u32,
}

/// One told round of the saved state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Round {
    arm: usize,
    /// The contexts as told (physical units), `None` for the variables not measured; numbers
    /// as exact strings, so that a replay sees the very bits told.
    #[serde(with = "super::state::exact::option_list")]
    contexts: Vec<Option<f64>>,
    #[serde(with = "super::state::exact")]
    y: f64,
}

/// The saved state: the experiment file, the precision and the rounds.
#[derive(Debug, Serialize, Deserialize)]
struct Saved {
    format: String,
    precision: String,
    experiment: String,
    rounds: Vec<Round>,
}

/// The saved state's format name.
const FORMAT: &str = "costbo-causal-optimizer-1";

/// What the optimizer needs of a typed controller, in `f64` at the boundary (an `f32` value
/// widened and narrowed back is the same value).
trait CausalEngine: Send {
    fn next_arm(&mut self) -> Result<usize, CausalError>;
    fn abandon(&mut self);
    fn affords(&self, cost: f64) -> bool;
    /// The arm's action inputs (unit coordinates) and the UCB value, for unit contexts.
    fn ask(&mut self, unit: &[f64]) -> Result<(Vec<f64>, f64), CausalError>;
    fn tell(&mut self, y: f64, cost: f64) -> Result<(), CausalError>;
    fn replay(
        &mut self,
        arm: usize,
        unit: &[f64],
        y: f64,
        cost: f64,
    ) -> Result<(), CausalReplayError>;
    fn spent(&self) -> f64;
    fn plays(&self, arm: usize) -> u32;
    fn mean_outcome(&self, arm: usize) -> Option<f64>;
    /// Each arm's const model capacity `N`.
    fn slots(&self) -> usize;
}

struct Typed<R: Real, const N: usize, const D: usize> {
    ctl: Box<CausalController<R, MAX_ARMS, N, D, Vec<R>, CausalRng>>,
}

impl<R: Real + Send, const N: usize, const D: usize> Typed<R, N, D> {
    fn new(spec: &Spec<'_>) -> Result<Self, SpecError> {
        let storage: [Vec<R>; MAX_ARMS] = core::array::from_fn(|_| vec![R::ZERO; tri_len(N)]);
        let ctl = spec.causal_controller::<R, MAX_ARMS, N, D, _, _>(
            storage,
            CausalRng::seed_from_u64(spec.seed),
        )?;
        Ok(Typed { ctl: Box::new(ctl) })
    }

    fn unit(unit: &[f64]) -> [R; D] {
        core::array::from_fn(|l| {
            unit.get(l)
                .map_or(R::from_f64(f64::NAN), |&u| R::from_f64(u))
        })
    }
}

impl<R: Real + Send, const N: usize, const D: usize> CausalEngine for Typed<R, N, D> {
    fn next_arm(&mut self) -> Result<usize, CausalError> {
        self.ctl.next_arm().map(|c| c.arm)
    }

    fn abandon(&mut self) {
        let _ = self.ctl.abandon();
    }

    fn affords(&self, cost: f64) -> bool {
        self.ctl.affords(R::from_f64(cost))
    }

    fn ask(&mut self, unit: &[f64]) -> Result<(Vec<f64>, f64), CausalError> {
        let ask = self.ctl.ask(&Self::unit(unit))?;
        let arm = ask.choice.arm;
        let n = self.ctl.table().get(arm).map_or(0, |a| a.actions().len());
        Ok((
            ask.input[..n].iter().map(|v| v.to_f64()).collect(),
            ask.ucb.to_f64(),
        ))
    }

    fn tell(&mut self, y: f64, cost: f64) -> Result<(), CausalError> {
        self.ctl.tell_paid(R::from_f64(y), R::from_f64(cost))
    }

    fn replay(
        &mut self,
        arm: usize,
        unit: &[f64],
        y: f64,
        cost: f64,
    ) -> Result<(), CausalReplayError> {
        self.ctl.replay(
            arm,
            &Self::unit(unit),
            R::from_f64(y),
            R::from_f64(cost),
            |_, _| Ok(()),
        )
    }

    fn spent(&self) -> f64 {
        self.ctl.spent().to_f64()
    }

    fn plays(&self, arm: usize) -> u32 {
        self.ctl.plays(arm)
    }

    fn mean_outcome(&self, arm: usize) -> Option<f64> {
        self.ctl.mean_outcome(arm).map(|m| m.to_f64())
    }

    fn slots(&self) -> usize {
        N
    }
}

fn open_engine(spec: &Spec<'_>, precision: Precision) -> Result<Box<dyn CausalEngine>, SpecError> {
    fn with<R: Real + Send + 'static, const N: usize>(
        spec: &Spec<'_>,
    ) -> Result<Box<dyn CausalEngine>, SpecError> {
        macro_rules! dims {
            ($($d:literal)*) => {
                match spec.variables.len() {
                    $($d => Ok(Box::new(Typed::<R, N, $d>::new(spec)?) as Box<dyn CausalEngine>),)*
                    d => Err(SpecError::VariableCount { spec: d, generic: MAX_DIM }),
                }
            };
        }
        dims!(1 2 3 4 5 6 7 8)
    }
    match (precision, spec.capacity) {
        (Precision::F64, 32) => with::<f64, 32>(spec),
        (Precision::F64, 64) => with::<f64, 64>(spec),
        (Precision::F64, 256) => with::<f64, 256>(spec),
        (Precision::F32, 32) => with::<f32, 32>(spec),
        (Precision::F32, 64) => with::<f32, 64>(spec),
        (Precision::F32, 256) => with::<f32, 256>(spec),
        (_, c) => Err(SpecError::Capacity {
            spec: c,
            generic: CAUSAL_CAPACITIES[0],
        }),
    }
}

/// An ask/tell optimizer over a contextual causal experiment (the file's `[causal]` table,
/// paper 004): a round is [`next_arm`](Self::next_arm), [`ask`](Self::ask) with the arm's
/// measured contexts, and [`tell`](Self::tell).
pub struct CausalOptimizer {
    text: String,
    /// The parsed file: its conversions to and from unit coordinates are the device's.
    spec: Spec<'static>,
    precision: Precision,
    variables: Vec<VariableInfo>,
    arms: Vec<ArmInfo>,
    costs: Vec<f64>,
    engine: Box<dyn CausalEngine>,
    rounds: Vec<Round>,
    pending: Option<Pending>,
}

/// Where the open round stands.
#[derive(Debug, Clone)]
enum Pending {
    Arm(ArmAsk),
    Decided(CausalDecision, Vec<Option<f64>>),
}

impl std::fmt::Debug for CausalOptimizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CausalOptimizer")
            .field("experiment", &self.spec.name)
            .field("precision", &self.precision)
            .field("rounds", &self.rounds.len())
            .field("spent", &self.engine.spent())
            .field("pending", &self.pending)
            .finish()
    }
}

impl CausalOptimizer {
    /// An `f64` optimizer for the causal experiment in `text` (the format of
    /// `firmware/experiment.toml` with a `[causal]` table).
    pub fn from_toml_str(text: &str) -> Result<Self, Error> {
        Self::from_toml_str_with(text, Precision::F64)
    }

    /// [`from_toml_str`](Self::from_toml_str) in a chosen precision (`f32`: the device's
    /// decisions, bit for bit).
    pub fn from_toml_str_with(text: &str, precision: Precision) -> Result<Self, Error> {
        let spec = costbo_experiment::toml::parse(text)
            .map_err(|e| Error::new(ErrorKind::Experiment, e.0))?;
        let Some(causal) = spec.causal.as_ref() else {
            return Err(Error::new(
                ErrorKind::Experiment,
                "[causal]: the experiment has no [causal] table (open it with Optimizer)",
            ));
        };
        if causal.arms.len() > MAX_ARMS {
            return Err(Error::new(
                ErrorKind::Experiment,
                format!(
                    "[causal]: {} arms; the optimizer holds at most {MAX_ARMS}",
                    causal.arms.len()
                ),
            ));
        }
        if !CAUSAL_CAPACITIES.contains(&spec.capacity) {
            return Err(Error::new(
                ErrorKind::Experiment,
                format!(
                    "[experiment] capacity = {}: a causal experiment's optimizer holds \
                     {CAUSAL_CAPACITIES:?} observations per arm",
                    spec.capacity
                ),
            ));
        }
        if !(1..=MAX_DIM).contains(&spec.variables.len()) {
            return Err(Error::new(
                ErrorKind::Experiment,
                format!(
                    "[[variable]]: {} variables; a causal experiment's optimizer serves 1 to \
                     {MAX_DIM}",
                    spec.variables.len()
                ),
            ));
        }
        let opened =
            on_worker(spec.capacity, || open_engine(&spec, precision)).map_err(Error::no_thread)?;
        let engine = opened.map_err(|e| {
            Error::new(
                ErrorKind::Experiment,
                costbo_experiment::toml::explain(&spec, e),
            )
        })?;
        let mut costs = Vec::new();
        for i in 0..spec.sets.len() {
            match spec.cost::<f64>(i) {
                Some(c) => costs.push(c),
                None => {
                    return Err(Error::new(
                        ErrorKind::Experiment,
                        format!(
                            "[[control_set]] {i}: a causal experiment's sets need their cost \
                             (learned costs are not served here)"
                        ),
                    ))
                }
            }
        }
        let d = spec.variables.len();
        let bits = |mask: costbo_core::problem::Mask| (0..d).filter(move |l| mask & (1 << l) != 0);
        let arms = causal
            .arms
            .iter()
            .map(|a| ArmInfo {
                set: a.set,
                actions: bits(spec.sets[a.set].mask).collect(),
                contexts: bits(a.contexts).collect(),
            })
            .collect();
        Ok(CausalOptimizer {
            text: text.to_string(),
            variables: VariableInfo::all(&spec),
            spec,
            precision,
            arms,
            costs,
            engine,
            rounds: Vec::new(),
            pending: None,
        })
    }

    /// An `f64` optimizer for the causal experiment file at `path`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, Error> {
        Self::from_file_with(path, Precision::F64)
    }

    /// [`from_file`](Self::from_file) in a chosen precision.
    pub fn from_file_with(path: impl AsRef<Path>, precision: Precision) -> Result<Self, Error> {
        super::open_file(path.as_ref(), |text| {
            Self::from_toml_str_with(text, precision)
        })
    }

    /// This round's arm (Algorithm 2: each arm once, then the best running average of its
    /// UCB values): measure its contexts, then [`ask`](Self::ask). `None` once the budget
    /// cannot pay for the chosen arm's set (the experiment is over). Asked again before
    /// `ask`, the same arm.
    pub fn next_arm(&mut self) -> Result<Option<ArmAsk>, Error> {
        match &self.pending {
            Some(Pending::Arm(a)) => return Ok(Some(a.clone())),
            Some(Pending::Decided(..)) => {
                return Err(Error::new(
                    ErrorKind::Sequence,
                    "a decision is pending: tell its outcome first",
                ))
            }
            None => {}
        }
        let arm = self.engine.next_arm().map_err(|e| self.core_error(e))?;
        let info = &self.arms[arm];
        let cost = self.costs[info.set];
        if !self.engine.affords(cost) {
            self.engine.abandon();
            return Ok(None);
        }
        let ask = ArmAsk {
            arm,
            set: info.set,
            contexts: info.contexts.clone(),
            cost,
        };
        self.pending = Some(Pending::Arm(ask.clone()));
        Ok(Some(ask))
    }

    /// The action for the chosen arm given its measured contexts: one entry per variable in
    /// the file's order, physical units; the arm's contexts must be given (finite, within
    /// their bounds), the other entries are ignored (`None` is fine).
    pub fn ask(&mut self, contexts: &[Option<f64>]) -> Result<CausalDecision, Error> {
        let arm = match &self.pending {
            Some(Pending::Arm(a)) => a.clone(),
            Some(Pending::Decided(..)) => {
                return Err(Error::new(
                    ErrorKind::Sequence,
                    "a decision is pending: tell its outcome first",
                ))
            }
            None => {
                return Err(Error::new(
                    ErrorKind::Sequence,
                    "no arm chosen: call next_arm first",
                ))
            }
        };
        let unit = self.unit_contexts(&arm.contexts, contexts)?;
        let asked = self.on_engine(|e| e.ask(&unit))?;
        let (input, ucb) = asked.map_err(|e| self.core_error(e))?;
        let actions = &self.arms[arm.arm].actions;
        let mut values = vec![None; self.variables.len()];
        for (k, &l) in actions.iter().enumerate() {
            values[l] = Some(self.physical(l, input[k]));
        }
        let decision = CausalDecision {
            arm: arm.arm,
            set: arm.set,
            values,
            cost: arm.cost,
            ucb,
        };
        let kept: Vec<Option<f64>> = (0..self.variables.len())
            .map(|l| {
                if arm.contexts.contains(&l) {
                    contexts[l]
                } else {
                    None
                }
            })
            .collect();
        self.pending = Some(Pending::Decided(decision.clone(), kept));
        Ok(decision)
    }

    /// The outcome of the decided round (finite); the round's cost is its set's.
    pub fn tell(&mut self, y: f64) -> Result<(), Error> {
        let Some(Pending::Decided(d, contexts)) = &self.pending else {
            return Err(Error::new(
                ErrorKind::Sequence,
                "no decision pending: call next_arm and ask first",
            ));
        };
        if !y.is_finite() {
            return Err(Error::new(
                ErrorKind::Input,
                "the outcome is NaN or infinite",
            ));
        }
        let (arm, cost, contexts) = (d.arm, d.cost, contexts.clone());
        let told = self.on_engine(|e| e.tell(y, cost))?;
        told.map_err(|e| self.core_error(e))?;
        self.rounds.push(Round { arm, contexts, y });
        self.pending = None;
        Ok(())
    }

    /// Drops the open round (an arm chosen, or a decision asked) without an outcome: the
    /// round was not carried out (a power cut before dosing, a tray lost). The models and
    /// counts are as before it; the next [`next_arm`](Self::next_arm) chooses again, as a
    /// device does after losing a round. An error when no round is open.
    pub fn abandon(&mut self) -> Result<(), Error> {
        if self.pending.take().is_none() {
            return Err(Error::new(ErrorKind::Sequence, "no round is open"));
        }
        self.engine.abandon();
        Ok(())
    }

    /// The arm with the best mean outcome so far (the first on ties), `None` before any
    /// round.
    pub fn recommend(&self) -> Option<CausalRecommendation> {
        let mut best: Option<CausalRecommendation> = None;
        for (arm, info) in self.arms.iter().enumerate() {
            let plays = self.engine.plays(arm);
            let Some(m) = self.engine.mean_outcome(arm).filter(|_| plays > 0) else {
                continue;
            };
            if best.as_ref().is_none_or(|b| m > b.mean_outcome) {
                best = Some(CausalRecommendation {
                    arm,
                    set: info.set,
                    mean_outcome: m,
                    plays,
                });
            }
        }
        best
    }

    /// The state: the experiment file, the precision and every round told (a pending round
    /// is not saved: it is asked again after [`from_json`](Self::from_json)).
    pub fn to_json(&self) -> String {
        let saved = Saved {
            format: FORMAT.into(),
            precision: self.precision.name().into(),
            experiment: self.text.clone(),
            rounds: self.rounds.clone(),
        };
        serde_json::to_string(&saved).unwrap_or_default()
    }

    /// An optimizer restored from [`to_json`](Self::to_json): its rounds replayed through the
    /// core, each arm decided again and required to be the saved one.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let state = |m: String| Error::new(ErrorKind::State, m);
        let saved: Saved =
            serde_json::from_str(text).map_err(|e| state(format!("the state: {e}")))?;
        if saved.format != FORMAT {
            return Err(state(format!(
                "the state's format is \"{}\", not \"{FORMAT}\"",
                saved.format
            )));
        }
        let precision = match saved.precision.as_str() {
            "f64" => Precision::F64,
            "f32" => Precision::F32,
            other => {
                return Err(state(format!(
                    "precision \"{other}\" is not \"f64\" or \"f32\""
                )))
            }
        };
        let mut opt = Self::from_toml_str_with(&saved.experiment, precision)
            .map_err(|e| state(format!("the state's experiment: {}", e.message())))?;
        for (i, r) in saved.rounds.iter().enumerate() {
            let info = opt
                .arms
                .get(r.arm)
                .ok_or_else(|| state(format!("round {i}: arm {} does not exist", r.arm)))?
                .clone();
            if r.contexts.len() != opt.variables.len() || !r.y.is_finite() {
                return Err(state(format!("round {i}: malformed")));
            }
            let unit = opt
                .unit_contexts(&info.contexts, &r.contexts)
                .map_err(|e| state(format!("round {i}: {}", e.message())))?;
            let cost = opt.costs[info.set];
            opt.on_engine(|e| e.replay(r.arm, &unit, r.y, cost))?
                .map_err(|e| state(format!("round {i} cannot be replayed: {e}")))?;
            opt.rounds.push(r.clone());
        }
        Ok(opt)
    }

    /// Unit coordinates of the contexts `wanted` from the caller's physical values (NaN for
    /// the other variables); refuses a wrong length and a missing, infinite or out-of-bounds
    /// context.
    fn unit_contexts(&self, wanted: &[usize], given: &[Option<f64>]) -> Result<Vec<f64>, Error> {
        let d = self.variables.len();
        if given.len() != d {
            return Err(Error::new(
                ErrorKind::Input,
                format!(
                    "contexts: {} values for {d} variables (one per variable, None where not \
                     measured)",
                    given.len()
                ),
            ));
        }
        let mut unit = vec![f64::NAN; d];
        for &l in wanted {
            let v = &self.variables[l];
            let Some(x) = given[l].filter(|x| x.is_finite()) else {
                return Err(Error::new(
                    ErrorKind::Input,
                    format!("context x[{l}] ({}) is missing or not finite", v.name),
                ));
            };
            // In the precision the controller reads it (an f32 reading at an upper bound that
            // f32 rounds up is inside, as on the device).
            let outside = match self.precision {
                Precision::F32 => {
                    let x = x as f32;
                    x < v.lower as f32 || x > v.upper as f32
                }
                Precision::F64 => x < v.lower || x > v.upper,
            };
            if outside {
                return Err(Error::new(
                    ErrorKind::Input,
                    format!(
                        "context x[{l}] ({}) = {x} is outside its bounds [{}, {}]",
                        v.name, v.lower, v.upper
                    ),
                ));
            }
            unit[l] = match self.precision {
                // The device's conversion, in f32.
                Precision::F32 => f64::from(self.spec.to_unit(l, x as f32)),
                Precision::F64 => (x - v.lower) / (v.upper - v.lower),
            };
        }
        Ok(unit)
    }

    /// A unit coordinate of variable `l` in physical units, clamped to the bounds: in `f32`
    /// the device's conversion (`Spec::from_unit`).
    fn physical(&self, l: usize, u: f64) -> f64 {
        let v = &self.variables[l];
        match self.precision {
            Precision::F32 => f64::from(self.spec.from_unit(l, u as f32)),
            Precision::F64 => (v.lower + u * (v.upper - v.lower)).clamp(v.lower, v.upper),
        }
    }

    /// Runs `f` on the engine, on a thread with a stack sized for its models (the caller's
    /// may be a test harness's 2 MiB; the controller holds [`MAX_ARMS`] of them).
    fn on_engine<T: Send>(
        &mut self,
        f: impl FnOnce(&mut dyn CausalEngine) -> T + Send,
    ) -> Result<T, Error> {
        let engine = &mut *self.engine;
        on_worker(engine.slots(), move || f(engine)).map_err(Error::no_thread)
    }

    fn core_error(&self, e: CausalError) -> Error {
        let kind = match e {
            CausalError::ContextMissing { .. }
            | CausalError::ContextOutOfBounds { .. }
            | CausalError::NonFiniteOutcome
            | CausalError::InvalidCost => ErrorKind::Input,
            CausalError::RoundOpen | CausalError::NoRound => ErrorKind::Sequence,
            _ => ErrorKind::Model,
        };
        Error::new(kind, e.to_string())
    }

    /// The experiment's name.
    pub fn name(&self) -> &str {
        self.spec.name
    }

    /// The precision.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The variables, in the file's order.
    pub fn variables(&self) -> &[VariableInfo] {
        &self.variables
    }

    /// The arms, in the file's order.
    pub fn arms(&self) -> &[ArmInfo] {
        &self.arms
    }

    /// The budget.
    pub fn budget(&self) -> f64 {
        self.spec.budget
    }

    /// Budget spent.
    pub fn spent(&self) -> f64 {
        self.engine.spent()
    }

    /// Rounds told.
    pub fn rounds(&self) -> usize {
        self.rounds.len()
    }

    /// Rounds played by arm `arm`.
    pub fn plays(&self, arm: usize) -> u32 {
        self.engine.plays(arm)
    }

    /// The experiment file.
    pub fn experiment_toml(&self) -> &str {
        &self.text
    }
}
