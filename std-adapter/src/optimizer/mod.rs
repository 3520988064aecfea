//! The desktop adapter: one ask/tell [`Optimizer`] for every rule, opened from the experiment
//! file the firmware builds in, with its sizes chosen at run time.
//!
//! ```no_run
//! use costbo_std::Optimizer;
//!
//! # fn measure(_: &[Option<f64>]) -> (Vec<f64>, f64) { unimplemented!() }
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut opt = Optimizer::from_file("firmware/experiment.toml")?;
//! while let Some(ask) = opt.ask()? {
//!     // Set the variables of `ask.set` to `ask.values` (None: left to chance), run the
//!     // round, measure every variable and the outcome.
//!     let (x, y) = measure(&ask.values);
//!     opt.tell(&x, y, ask.cost)?;
//! }
//! let best = opt.recommend()?;
//! println!("set {} at {:?}", best.set, best.values);
//! # Ok(())
//! # }
//! ```
//!
//! Every call that fails returns an [`Error`] whose message names the offending setting or
//! value, and leaves the optimizer as it was: the next [`ask`](Optimizer::ask) is the one it
//! would have made. [`to_json`](Optimizer::to_json) saves the state and
//! [`from_json`](Optimizer::from_json) restores it; the restored optimizer makes the same
//! decisions bit for bit, because the state is the experiment file and the rounds as told,
//! replayed through the core's journal replay (the path the firmware resumes by).
//!
//! A costly measurement (the file's `[measurement]` table, paper 003's pay-or-skip) adds one
//! call per round: after dosing, [`query`](Optimizer::query) with the measured point says
//! whether to pay for the outcome; then [`tell`](Optimizer::tell) it, or
//! [`skip`](Optimizer::skip) the round.

mod builder;
mod causal;
mod engine;
mod error;
mod state;

pub use builder::{Chance, ExperimentBuilder};
pub use causal::{
    ArmAsk, ArmInfo, CausalDecision, CausalOptimizer, CausalRecommendation, CAUSAL_CAPACITIES,
    MAX_ARMS,
};

pub use engine::{
    serves_dimension, Precision, CAPACITIES_F32, CAPACITIES_F64, MAX_DIM, MAX_SETS,
    MAX_SETS_LEARNING_COSTS, MAX_WIDE_DIM, MAX_WIDE_DIM_F32, WIDE_DIMS, WIDE_DIMS_F32,
    WIDE_MAX_CAPACITY,
};
pub use error::{Error, ErrorKind, MESSAGE_BYTES};

/// Rounds between refits of a fitted model and its least noise variance when the experiment
/// does not say (the file's `[model] refit_every` and `noise_floor`).
pub use costbo_experiment::toml::{BOTORCH_REFIT_EVERY, DEFAULT_NOISE_FLOOR, DEFAULT_REFIT_EVERY};

/// How the model's hyperparameters follow the data (the file's `[model] fit`).
pub use costbo_experiment::FitSpec;

use std::path::Path;

use costbo_core::driver::DriverError;
use costbo_experiment::Spec;

use engine::{Engine, RawDecision};
use state::Event;

/// Relative tolerance (of a variable's range) within which a told controlled value must equal
/// the decided one (the core's).
const APPLY_TOLERANCE: f64 = 1e-3;

/// Most points in the sample bank of the variables left to chance (as the runner's).
pub const MAX_BANK: usize = 16_384;

/// One decision: which control set to pay for and the values of its variables.
#[derive(Debug, Clone, PartialEq)]
pub struct Ask {
    /// Index of the control set, in the experiment file's order.
    pub set: usize,
    /// One value per variable in the file's order, in physical units; `None` for a variable
    /// left to chance, whose measured value the caller reports in [`Optimizer::tell`].
    pub values: Vec<Option<f64>>,
    /// What the round costs: the set's cost, plus with prices per unit dosed (the file's
    /// `[[variable]] price`) each dosed variable's price times its value, as the core prices
    /// it in the optimizer's precision (a costly measurement's cost comes on top on the
    /// rounds that measure). When the costs are learned (the file's `[experiment] costs =
    /// "learned"`), an estimate: the round costs what it costs, and [`Optimizer::tell`]
    /// reports it. With paper 001's rule, which learns each control set's cost, the mean of
    /// the costs told for this set so far, 0 before its first round; with a rule that prices
    /// each point, whose costs are learned as a function of the values (a GP of ln(cost) over
    /// the box, see [`Optimizer::learns_cost_function`]), that model's median, `exp` of its
    /// posterior mean at the asked values, once it has a cost.
    pub cost: f64,
    /// The rule's score of the decision (the expected upper bound for the UCB rules, an index
    /// or an improvement for others): for logs, and for checking a device's decision bit for
    /// bit.
    pub score: f64,
}

/// The answer of [`Optimizer::query`]: whether to pay for measuring this round's outcome.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryAnswer {
    /// Pay for the measurement (then [`Optimizer::tell`]); otherwise [`Optimizer::skip`].
    pub measure: bool,
    /// The smallest probability, over the competitors, that the dosed point is not beaten
    /// (paper 003's confidence test; 1 with no competitor).
    pub min_probability: f64,
}

/// The best (control set, values) by expected posterior mean.
#[derive(Debug, Clone, PartialEq)]
pub struct Recommendation {
    /// Index of the control set, in the file's order.
    pub set: usize,
    /// The set's variables' values (physical units); `None` for the others.
    pub values: Vec<Option<f64>>,
    /// The expected outcome when the set's variables take these values and the others are
    /// left to chance, under the model.
    pub expected: f64,
}

/// A variable of the experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct VariableInfo {
    /// Its name in the file.
    pub name: String,
    /// Its unit.
    pub unit: String,
    /// Lower bound (physical units).
    pub lower: f64,
    /// Upper bound.
    pub upper: f64,
    /// Price per physical unit, charged on top of a set's cost when the set doses it (0: none).
    pub price: f64,
}

impl VariableInfo {
    /// The variables of `spec`, in the file's order.
    pub(crate) fn all(spec: &Spec<'_>) -> Vec<VariableInfo> {
        spec.variables
            .iter()
            .map(|v| VariableInfo {
                name: v.name.to_string(),
                unit: v.unit.to_string(),
                lower: v.lower,
                upper: v.upper,
                price: v.price,
            })
            .collect()
    }
}

/// A control set of the experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct SetInfo {
    /// Indices of the variables it sets.
    pub variables: Vec<usize>,
    /// What a round with it costs (with prices per unit dosed, before them); `None` when the
    /// costs are learned from the costs told.
    pub cost: Option<f64>,
}

/// What the optimizer keeps of its experiment file.
#[derive(Debug, Clone)]
struct Experiment {
    text: String,
    name: String,
    rule: String,
    budget: f64,
    capacity: usize,
    bank: usize,
    variables: Vec<VariableInfo>,
    sets: Vec<SetInfo>,
    measurement_cost: Option<f64>,
}

/// An ask/tell optimizer over an experiment (see the [module documentation](self)).
pub struct Optimizer {
    experiment: Experiment,
    precision: Precision,
    engine: Box<dyn Engine>,
    // Every accepted observation, in order: the saved state.
    events: Vec<Event>,
    // The pending decision, as asked.
    pending: Option<Ask>,
    // The point the last `query` answered for and its answer.
    queried: Option<(Vec<f64>, bool)>,
    // The stack the caller's thread has, as it says (`with_caller_stack`).
    caller_stack: usize,
}

impl std::fmt::Debug for Optimizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Optimizer")
            .field("experiment", &self.experiment.name)
            .field("precision", &self.precision)
            .field("rounds", &self.rounds())
            .field("spent", &self.spent())
            .field("pending", &self.pending)
            .finish()
    }
}

impl Optimizer {
    /// An `f64` optimizer for the experiment in `text` (the format of
    /// `firmware/experiment.toml`).
    pub fn from_toml_str(text: &str) -> Result<Self, Error> {
        Self::from_toml_str_with(text, Precision::F64)
    }

    /// [`from_toml_str`](Self::from_toml_str) in a chosen precision (`f32`: the device's
    /// decisions, bit for bit).
    pub fn from_toml_str_with(text: &str, precision: Precision) -> Result<Self, Error> {
        let spec = costbo_experiment::toml::parse(text)
            .map_err(|e| Error::new(ErrorKind::Experiment, e.0))?;
        Self::open(text, &spec, precision)
    }

    /// An experiment described in code instead of a file (see [`ExperimentBuilder`]).
    pub fn builder(name: &str, budget: f64) -> ExperimentBuilder {
        ExperimentBuilder::new(name, budget)
    }

    /// An `f64` optimizer for the experiment file at `path`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, Error> {
        Self::from_file_with(path, Precision::F64)
    }

    /// [`from_file`](Self::from_file) in a chosen precision.
    pub fn from_file_with(path: impl AsRef<Path>, precision: Precision) -> Result<Self, Error> {
        open_file(path.as_ref(), |text| {
            Self::from_toml_str_with(text, precision)
        })
    }

    fn open(text: &str, spec: &Spec<'_>, precision: Precision) -> Result<Self, Error> {
        let experiment = Experiment::of(text, spec, precision)?;
        let engine = engine::open(spec, precision)
            .map_err(Error::no_thread)?
            .map_err(|e| {
                Error::new(
                    ErrorKind::Experiment,
                    costbo_experiment::toml::explain(spec, e),
                )
            })?;
        Ok(Optimizer {
            experiment,
            precision,
            engine,
            events: Vec::new(),
            pending: None,
            queried: None,
            caller_stack: 0,
        })
    }

    /// Runs `f` on the engine, on a thread with a stack sized for its model (the caller's, if
    /// it said it has that much).
    fn on_engine<T: Send>(
        &mut self,
        f: impl FnOnce(&mut dyn Engine) -> T + Send,
    ) -> Result<T, Error> {
        let engine = &mut *self.engine;
        if engine::stack_for(engine.slots()) <= self.caller_stack {
            return Ok(f(engine));
        }
        engine::on_worker(engine.slots(), move || f(engine)).map_err(Error::no_thread)
    }

    /// Says that the threads this optimizer is called from have `bytes` of stack: while its
    /// model needs no more (64 MiB per 1 024 observations of capacity, a bound measured with
    /// margin: docs/architecture.md), `ask`, `tell` and the other calls into the model run on
    /// the caller's thread instead of a thread of their own, which saves the thread's start
    /// (0.2–0.3 ms a call). The same decisions either way. Not part of the saved state.
    pub fn with_caller_stack(mut self, bytes: usize) -> Self {
        self.caller_stack = bytes;
        self
    }

    /// The next decision: `None` once the budget cannot pay for another round or the rule
    /// stops. Until its outcome is told, asking again returns the same decision.
    pub fn ask(&mut self) -> Result<Option<Ask>, Error> {
        if let Some(a) = &self.pending {
            return Ok(Some(a.clone()));
        }
        let decided = self.on_engine(|e| e.next())?;
        match decided.map_err(|e| self.core_error(e))? {
            None => Ok(None),
            Some(RawDecision {
                set,
                values,
                score,
                cost,
            }) => {
                let ask = Ask {
                    set,
                    // Priced per unit dosed: the core's price of these values.
                    cost: match cost {
                        Some(c) if self.priced() || self.learns_cost_function() => c,
                        _ => self.cost_of(set),
                    },
                    values,
                    score,
                };
                self.pending = Some(ask.clone());
                Ok(Some(ask))
            }
        }
    }

    /// Tells the outcome of the pending decision: the full measured point `x` (one value per
    /// variable in file order, physical units: the controlled ones as applied, within 0.1 %
    /// of their range of the asked values, the others as measured), the outcome `y` and the
    /// cost paid (the asked cost, unless the round cost something else). With a costly
    /// measurement the round must have been [`query`](Self::query)-ed with this `x` and told
    /// to measure; its cost is charged on top.
    pub fn tell(&mut self, x: &[f64], y: f64, cost: f64) -> Result<(), Error> {
        let ask = self.pending.clone().ok_or_else(|| {
            Error::new(
                ErrorKind::Sequence,
                "tell: no decision is pending (call ask first; data from outside the rounds \
                 goes to tell_prior)",
            )
        })?;
        self.check_point("tell", x)?;
        self.check_outcome("tell", y)?;
        self.check_cost("tell", cost)?;
        self.check_applied("tell", &ask, x)?;
        self.check_queried("tell", x, true)?;
        let memo = self
            .on_engine(|e| e.observe(x, y, cost))?
            .map_err(|e| self.core_error(e))?;
        self.end_round(Event::Measured {
            set: ask.set,
            x: x.to_vec(),
            y,
            cost,
            memo,
        });
        Ok(())
    }

    /// An observation made outside the rounds (earlier data, an initial design): the full
    /// point `x` and its outcome `y`, not charged to the budget. Not while a decision is
    /// pending. Where the costs are learned as a function of the values
    /// ([`learns_cost_function`](Self::learns_cost_function)) the cost model needs what the
    /// point cost: [`tell_prior_with_cost`](Self::tell_prior_with_cost).
    pub fn tell_prior(&mut self, x: &[f64], y: f64) -> Result<(), Error> {
        if self.learns_cost_function() {
            return Err(Error::new(
                ErrorKind::Sequence,
                "tell_prior: this experiment learns its costs as a function of the values;                  tell what the point cost with tell_prior_with_cost",
            ));
        }
        self.prior("tell_prior", x, y, None)
    }

    /// [`tell_prior`](Self::tell_prior) with what measuring `x` cost, which the model of
    /// ln(cost) learns from where the costs are learned as a function of the values (not
    /// charged to the budget; elsewhere the cost is checked and not used).
    pub fn tell_prior_with_cost(&mut self, x: &[f64], y: f64, cost: f64) -> Result<(), Error> {
        self.check_cost("tell_prior_with_cost", cost)?;
        self.prior("tell_prior_with_cost", x, y, Some(cost))
    }

    fn prior(&mut self, call: &str, x: &[f64], y: f64, cost: Option<f64>) -> Result<(), Error> {
        if self.pending.is_some() {
            return Err(Error::new(
                ErrorKind::Sequence,
                format!("{call}: a decision is pending; tell its outcome first"),
            ));
        }
        self.check_point(call, x)?;
        self.check_outcome(call, y)?;
        self.on_engine(|e| e.initial(x, y, cost))?
            .map_err(|e| self.core_error(e))?;
        self.events.push(Event::Prior {
            x: x.to_vec(),
            y,
            cost,
        });
        Ok(())
    }

    /// True when the costs are learned as a function of the values: the file's `costs =
    /// "learned"` with a rule that prices each point (pbgi, pbgi-d, log-eipc, log-eicc, mfmes;
    /// `PolicySpec::prices_points`; paper 002's unknown costs). A GP of ln(cost), of the model's kernel and capacity, learns
    /// from every cost told and the rule prices points by its posterior. (Paper 001's rule,
    /// `unknown-cost`, learns one cost per control set instead.)
    pub fn learns_cost_function(&self) -> bool {
        self.engine.learns_cost_function()
    }

    /// With a costly measurement (the file's `[measurement]`): whether to pay for measuring
    /// the pending round's outcome, given the full measured point `x` after dosing. Then
    /// [`tell`](Self::tell) the outcome (`measure`) or [`skip`](Self::skip) the round.
    pub fn query(&mut self, x: &[f64]) -> Result<QueryAnswer, Error> {
        if self.experiment.measurement_cost.is_none() {
            return Err(Error::new(
                ErrorKind::Sequence,
                "query: the experiment has no [measurement] table (every round is measured)",
            ));
        }
        let ask = self.pending.clone().ok_or_else(|| {
            Error::new(
                ErrorKind::Sequence,
                "query: no decision is pending (call ask first)",
            )
        })?;
        self.check_point("query", x)?;
        self.check_applied("query", &ask, x)?;
        let answer = self
            .on_engine(|e| e.query(x))?
            .map_err(|e| self.core_error(e))?;
        self.queried = Some((x.to_vec(), answer.measure));
        Ok(answer)
    }

    /// Ends the pending round without measuring its outcome, as [`query`](Self::query)
    /// answered for `x`: charges the dose's `cost`; the model learns nothing.
    pub fn skip(&mut self, x: &[f64], cost: f64) -> Result<(), Error> {
        let ask = self.pending.clone().ok_or_else(|| {
            Error::new(
                ErrorKind::Sequence,
                "skip: no decision is pending (call ask first)",
            )
        })?;
        self.check_point("skip", x)?;
        self.check_cost("skip", cost)?;
        self.check_queried("skip", x, false)?;
        let memo = self
            .on_engine(|e| e.skip(x, cost))?
            .map_err(|e| self.core_error(e))?;
        self.end_round(Event::Skipped {
            set: ask.set,
            x: x.to_vec(),
            cost,
            memo,
        });
        Ok(())
    }

    /// The best (control set, values) by expected posterior mean.
    pub fn recommend(&mut self) -> Result<Recommendation, Error> {
        let best = self
            .on_engine(|e| e.recommend())?
            .map_err(|e| self.core_error(e))?;
        Ok(Recommendation {
            set: best.set,
            values: best.values,
            expected: best.score,
        })
    }

    /// The state as JSON: the experiment file and every observation told, with a checksum.
    /// [`from_json`](Self::from_json) restores it; a decision asked but not told is asked
    /// again (and is the same decision).
    pub fn to_json(&self) -> String {
        state::save(&self.experiment.text, self.precision, &self.events)
    }

    /// Restores an optimizer saved by [`to_json`](Self::to_json). A damaged, foreign or
    /// inconsistent state is refused whole with an error that says where.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let saved = state::load(text)?;
        let mut opt = Self::from_toml_str_with(&saved.experiment, saved.precision)
            .map_err(|e| Error::new(ErrorKind::State, format!("saved experiment: {e}")))?;
        let events = saved.events;
        let replayed = opt.on_engine(|e| {
            for (i, event) in events.iter().enumerate() {
                let r = match event {
                    Event::Prior { x, y, cost } => e.initial(x, *y, *cost),
                    Event::Measured {
                        set,
                        x,
                        y,
                        cost,
                        memo,
                    } => e.replay(*set, x, *y, *cost, memo),
                    Event::Skipped { set, x, cost, memo } => e.replay_skip(*set, x, *cost, memo),
                };
                if let Err(err) = r {
                    return Err((i, err));
                }
            }
            Ok(())
        })?;
        if let Err((i, e)) = replayed {
            return Err(Error::new(
                ErrorKind::State,
                format!(
                    "saved state: observation {i} is refused: {}",
                    opt.describe(e)
                ),
            ));
        }
        for (i, event) in events.iter().enumerate() {
            if let Err(e) = opt.check_event(event) {
                return Err(Error::new(
                    ErrorKind::State,
                    format!("saved state: observation {i}: {}", e.message()),
                ));
            }
        }
        opt.events = events;
        Ok(opt)
    }

    /// The experiment file's text (for an optimizer built in code, the file its builder
    /// wrote).
    pub fn experiment_toml(&self) -> &str {
        &self.experiment.text
    }

    /// The experiment's name.
    pub fn name(&self) -> &str {
        &self.experiment.name
    }

    /// The precision the core computes in.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// The variables, in file order.
    pub fn variables(&self) -> &[VariableInfo] {
        &self.experiment.variables
    }

    /// The control sets, in file order.
    pub fn sets(&self) -> &[SetInfo] {
        &self.experiment.sets
    }

    /// Most distinct points the model holds (the file's capacity); beyond it the oldest are
    /// dropped.
    pub fn capacity(&self) -> usize {
        self.experiment.capacity
    }

    /// Points in the sample bank of the variables left to chance.
    pub fn bank(&self) -> usize {
        self.experiment.bank
    }

    /// The total budget.
    pub fn budget(&self) -> f64 {
        self.experiment.budget
    }

    /// Budget spent so far.
    pub fn spent(&self) -> f64 {
        self.engine.spent()
    }

    /// Rounds played (measured or skipped).
    pub fn rounds(&self) -> usize {
        self.engine.rounds()
    }

    /// Distinct points the model holds (at most the file's capacity).
    pub fn observations(&self) -> usize {
        self.engine.observations()
    }

    /// What a round with control set `set` costs: the file's cost, or with learned costs the
    /// mean of the costs told for it (0 before any).
    fn cost_of(&self, set: usize) -> f64 {
        if let Some(c) = self.experiment.sets[set].cost {
            return c;
        }
        let paid: Vec<f64> = self
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Measured { set: s, cost, .. } | Event::Skipped { set: s, cost, .. }
                    if *s == set =>
                {
                    Some(*cost)
                }
                _ => None,
            })
            .collect();
        if paid.is_empty() {
            0.0
        } else {
            paid.iter().sum::<f64>() / paid.len() as f64
        }
    }

    /// True when some variable has a price per unit dosed (the file's `[[variable]] price`).
    fn priced(&self) -> bool {
        self.experiment.variables.iter().any(|v| v.price > 0.0)
    }

    /// True when the costs are learned from the costs told (the file's `[experiment] costs =
    /// "learned"`): every [`tell`](Self::tell) reports what the round cost.
    pub fn learns_costs(&self) -> bool {
        self.experiment.sets.iter().all(|s| s.cost.is_none())
    }

    /// The decision asked and not yet told, if any.
    pub fn pending(&self) -> Option<&Ask> {
        self.pending.as_ref()
    }

    /// Records the round the core accepted and forgets its decision.
    fn end_round(&mut self, event: Event) {
        self.events.push(event);
        self.pending = None;
        self.queried = None;
    }

    fn check_point(&self, call: &str, x: &[f64]) -> Result<(), Error> {
        let vars = &self.experiment.variables;
        if x.len() != vars.len() {
            return Err(Error::new(
                ErrorKind::Input,
                format!(
                    "{call}: the point has {} values; the experiment has {} variables ({})",
                    x.len(),
                    vars.len(),
                    vars.iter()
                        .map(|v| v.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        for (l, (v, info)) in x.iter().zip(vars).enumerate() {
            if !v.is_finite() {
                return Err(Error::new(
                    ErrorKind::Input,
                    format!("{call}: x[{l}] ({}) is {v}, not a finite number", info.name),
                ));
            }
            // In the core's precision, as the core will compare it.
            let narrow = |v: f64| match self.precision {
                Precision::F64 => v,
                Precision::F32 => f64::from(v as f32),
            };
            if narrow(*v) < narrow(info.lower) || narrow(*v) > narrow(info.upper) {
                return Err(Error::new(
                    ErrorKind::Input,
                    format!(
                        "{call}: x[{l}] ({}) = {v} is outside its bounds [{}, {}]",
                        info.name, info.lower, info.upper
                    ),
                ));
            }
        }
        Ok(())
    }

    fn check_outcome(&self, call: &str, y: f64) -> Result<(), Error> {
        if !y.is_finite() {
            return Err(Error::new(
                ErrorKind::Input,
                format!("{call}: the outcome y is {y}, not a finite number"),
            ));
        }
        // The model standardises the outcomes: a spread whose square overflows the working
        // precision leaves it no posterior, and every later ask would fail. Refused here,
        // where the state is still whole and the message can say which value did it.
        let told = self.events.iter().filter_map(|e| match e {
            Event::Prior { y, .. } | Event::Measured { y, .. } => Some(*y),
            _ => None,
        });
        if let Some(far) = told.max_by(|a, b| (a - y).abs().total_cmp(&(b - y).abs())) {
            if (far - y).abs() > self.precision.widest_spread() {
                return Err(Error::new(
                    ErrorKind::Input,
                    format!(
                        "{call}: the outcome y = {y:e} is {:e} from the outcome {far:e} told \
                         before, a spread the model cannot standardise in {} (rescale y)",
                        (far - y).abs(),
                        self.precision.name()
                    ),
                ));
            }
        }
        Ok(())
    }

    fn check_cost(&self, call: &str, cost: f64) -> Result<(), Error> {
        if cost.is_finite() && cost > 0.0 {
            Ok(())
        } else {
            Err(Error::new(
                ErrorKind::Input,
                format!("{call}: the cost is {cost}; a cost is a positive finite number"),
            ))
        }
    }

    fn check_applied(&self, call: &str, ask: &Ask, x: &[f64]) -> Result<(), Error> {
        for (l, (v, decided)) in x.iter().zip(&ask.values).enumerate() {
            if let Some(d) = decided {
                let info = &self.experiment.variables[l];
                if (v - d).abs() > APPLY_TOLERANCE * (info.upper - info.lower) {
                    return Err(Error::new(
                        ErrorKind::Input,
                        format!(
                            "{call}: x[{l}] ({}) = {v} is not the value asked for, {d} (set {} \
                             controls it; within 0.1 % of its range)",
                            info.name, ask.set
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// With a costly measurement, `tell` needs the answer to measure and `skip` the answer to
    /// skip, for this point.
    fn check_queried(&self, call: &str, x: &[f64], measure: bool) -> Result<(), Error> {
        if self.experiment.measurement_cost.is_none() {
            if !measure {
                return Err(Error::new(
                    ErrorKind::Sequence,
                    "skip: the experiment has no [measurement] table (every round is measured)",
                ));
            }
            return Ok(());
        }
        match &self.queried {
            Some((q, pay)) if q.as_slice() == x => {
                if *pay == measure {
                    Ok(())
                } else if measure {
                    Err(Error::new(
                        ErrorKind::Sequence,
                        format!("{call}: query said to skip this round's measurement; skip it"),
                    ))
                } else {
                    Err(Error::new(
                        ErrorKind::Sequence,
                        format!("{call}: query said to measure this round; tell its outcome"),
                    ))
                }
            }
            _ => Err(Error::new(
                ErrorKind::Sequence,
                format!("{call}: ask query with this point first (the measurement is costly)"),
            )),
        }
    }

    /// Checks a replayed event as the live calls would have (a state that the core accepts but
    /// that the calls would have refused is not a state this optimizer wrote).
    fn check_event(&self, event: &Event) -> Result<(), Error> {
        match event {
            Event::Prior { x, y, cost } => {
                self.check_point("state", x)?;
                self.check_outcome("state", *y)?;
                // Without a cost, the core's replay has refused it where a cost model needs one.
                cost.map_or(Ok(()), |c| self.check_cost("state", c))
            }
            Event::Measured { x, y, cost, .. } => {
                self.check_point("state", x)?;
                self.check_outcome("state", *y)?;
                self.check_cost("state", *cost)
            }
            Event::Skipped { x, cost, .. } => {
                self.check_point("state", x)?;
                self.check_cost("state", *cost)
            }
        }
    }

    fn core_error(&self, e: DriverError) -> Error {
        let kind = match e {
            DriverError::Gp(_) | DriverError::NoScore => ErrorKind::Model,
            _ => ErrorKind::Input,
        };
        Error::new(kind, self.describe(e))
    }

    /// The core's error in the experiment's words.
    fn describe(&self, e: DriverError) -> String {
        let var = |l: usize| {
            self.experiment.variables.get(l).map_or_else(
                || format!("variable {l}"),
                |v| format!("x[{l}] ({})", v.name),
            )
        };
        match e {
            DriverError::OutOfBounds(l) => format!("{} is outside its bounds", var(l)),
            DriverError::InconsistentWithDecision(l) => {
                format!("{} is not the value the decision asked for", var(l))
            }
            DriverError::InvalidSet(i) => format!(
                "control set {i} does not exist (the experiment has {})",
                self.experiment.sets.len()
            ),
            // The improvement rules (LogEI and its kin, the Gittins indices) score against the
            // best outcome so far, and the entropy rules against a posterior's maximum, which
            // an empty model has neither of.
            DriverError::NoScore if self.engine.observations() == 0 => format!(
                "{e}: the model holds no observation, and rule \"{}\" scores against what the \
                 observations show (the best one, or the posterior's maximum) (tell_prior an \
                 initial design first)",
                self.experiment.rule
            ),
            other => other.to_string(),
        }
    }
}

/// `open` on the text of the experiment file at `path`; an error names the file.
pub(crate) fn open_file<T>(
    path: &Path,
    open: impl FnOnce(&str) -> Result<T, Error>,
) -> Result<T, Error> {
    let text =
        costbo_experiment::toml::read_text(path).map_err(|e| Error::new(ErrorKind::Io, e.0))?;
    open(&text).map_err(|e| Error::new(e.kind(), format!("{}: {}", path.display(), e.message())))
}

impl Experiment {
    fn of(text: &str, spec: &Spec<'_>, precision: Precision) -> Result<Self, Error> {
        let refuse = |m: String| Err(Error::new(ErrorKind::Experiment, m));
        if spec.causal.is_some() {
            return refuse(
                "[causal]: a contextual causal experiment: open it with CausalOptimizer \
                 (next_arm, ask with the arm's contexts, tell)"
                    .into(),
            );
        }
        if !engine::serves_dimension(precision, spec.variables.len(), spec.capacity) {
            return refuse(format!(
                "[[variable]]: {} variables; this build's Optimizer serves 1 to {MAX_DIM}, and \
                 up to {MAX_WIDE_DIM} in f64 with a capacity up to {WIDE_MAX_CAPACITY}, \
                 {MAX_WIDE_DIM_F32} in f32 (the core's sizes are compile-time; see \
                 docs/architecture.md)",
                spec.variables.len()
            ));
        }
        if spec.sets.is_empty() || spec.sets.len() > MAX_SETS {
            return refuse(format!(
                "[[control_set]]: {} control sets; an experiment has 1 to {MAX_SETS}",
                spec.sets.len()
            ));
        }
        let learns_per_set = spec.policy::<f64>().is_ok_and(|p| p.learns_costs());
        if learns_per_set && spec.sets.len() > MAX_SETS_LEARNING_COSTS {
            return refuse(format!(
                "[[control_set]]: {} control sets; rule = \"{}\" learns each set's cost and \
                 takes 1 to {MAX_SETS_LEARNING_COSTS} (its running bounds travel in each \
                 round's memo)",
                spec.sets.len(),
                spec.rule
            ));
        }
        if spec.capacity == 0 || engine::bucket(precision, spec.capacity).is_none() {
            let most = match precision {
                Precision::F64 => CAPACITIES_F64[CAPACITIES_F64.len() - 1],
                Precision::F32 => CAPACITIES_F32[CAPACITIES_F32.len() - 1],
            };
            return refuse(format!(
                "[experiment] capacity = {}: an {} Optimizer holds 1 to {most} observations",
                spec.capacity,
                precision.name()
            ));
        }
        if spec.bank == 0 || spec.bank > MAX_BANK {
            return refuse(format!(
                "[experiment] bank = {}: the Optimizer's sample bank holds 1 to {MAX_BANK} points",
                spec.bank
            ));
        }
        let d = spec.variables.len();
        Ok(Experiment {
            text: text.to_string(),
            name: spec.name.to_string(),
            rule: spec.rule.to_string(),
            budget: spec.budget,
            capacity: spec.capacity,
            bank: spec.bank,
            variables: VariableInfo::all(spec),
            sets: spec
                .sets
                .iter()
                .map(|s| SetInfo {
                    variables: (0..d).filter(|&l| s.mask & (1 << l) != 0).collect(),
                    cost: s.cost,
                })
                .collect(),
            measurement_cost: spec.measurement.map(|m| m.cost),
        })
    }
}
