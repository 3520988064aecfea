//! The sizes chosen at run time: the one place where an experiment's dimension, capacity and
//! precision become the core's const generics.
//!
//! [`Typed`] is the core's `driver::Controller` for one choice of sizes, with its storage on
//! the heap and its workspace; [`Engine`] is what the [`Optimizer`](super::Optimizer) needs of
//! it, in `f64` at the boundary (an `f32` value widened to `f64` and narrowed back is the same
//! value, so an `f32` engine sees exactly the bits its caller's `f32` data had). [`open`]
//! picks the sizes: the dimension exactly (every `D` from 1 to [`MAX_DIM`] is compiled
//! in), or beyond it the smallest of [`WIDE_DIMS`] (in `f32`, [`WIDE_DIMS_F32`]) that holds
//! it, the inputs beyond the experiment's variables inert (a padded model, below); the capacity as
//! the smallest of [`CAPACITIES_F64`] (or
//! [`CAPACITIES_F32`]) that holds it with the model told the
//! exact capacity ([`Gp::with_capacity`](costbo_core::gp::Gp::with_capacity)), so it drops
//! the same observations at the same rounds as a controller of that const capacity.

use costbo_core::driver::BuildError;
use costbo_core::driver::{Controller, DriverError, Step};
use costbo_core::gp::Gp;
use costbo_core::linalg::tri_len;
use costbo_core::policy::{AnyPolicy, Memo};
use costbo_core::real::Real;
use costbo_experiment::{Spec, SpecError};

/// Most control sets an experiment may have. Paper 001's rule (`unknown-cost`) takes at most
/// [`MAX_SETS_LEARNING_COSTS`].
pub const MAX_SETS: usize = 64;

/// Most control sets of an experiment whose rule learns each set's cost (`unknown-cost`): its
/// running bounds, one per set and one more, travel in each round's memo, which holds
/// [`MEMO_CAPACITY`](costbo_core::policy::memo::MEMO_CAPACITY) scalars (the device's journal
/// records are sized by it), and a saved state is replayed from the memos.
pub const MAX_SETS_LEARNING_COSTS: usize = costbo_core::policy::memo::MEMO_CAPACITY - 1;

/// Most variables: the dimensions compiled in are 1 to 8. Every compiled-in size is a whole
/// controller with every rule, about 8 s of compile time each (measured:
/// docs/architecture.md), so the table is kept small until the core takes its sizes at run
/// time.
pub const MAX_DIM: usize = 8;

/// Wider models served in `f64` up to capacity [`WIDE_MAX_CAPACITY`]: an experiment of more
/// than [`MAX_DIM`] variables runs on the smallest that holds it, its variables first and the
/// other inputs inert (controlled by every set, free, ignored by the kernel and by its fits:
/// [`Spec::controller_spec_padded`]), so that they change no value the model computes. With
/// 12 or 16 variables (paper 002's box problems, the benchmark against BoTorch) the size is
/// exact. Six sizes for three capacity buckets, instead of every dimension for every bucket
/// and precision (about 8 s of compile time each).
pub const WIDE_DIMS: [usize; 6] = [12, 16, 24, 32, 48, 64];

/// Most variables of an experiment in `f64` (with a capacity up to [`WIDE_MAX_CAPACITY`]).
pub const MAX_WIDE_DIM: usize = WIDE_DIMS[WIDE_DIMS.len() - 1];

/// Largest capacity of an `f64` experiment of more than [`MAX_DIM`] variables.
pub const WIDE_MAX_CAPACITY: usize = 1024;

/// The wider models served in `f32`, padded as [`WIDE_DIMS`] are: up to 16 inputs, as many
/// variables as a device holds, so that an `f32` optimizer opens every file a device builds.
pub const WIDE_DIMS_F32: [usize; 2] = [12, 16];

/// Most variables of an experiment in `f32`.
pub const MAX_WIDE_DIM_F32: usize = WIDE_DIMS_F32[WIDE_DIMS_F32.len() - 1];

/// Whether an experiment of `dim` variables and capacity `capacity` has an engine in
/// `precision` (capacity within the buckets, checked apart).
pub fn serves_dimension(precision: Precision, dim: usize, capacity: usize) -> bool {
    (1..=MAX_DIM).contains(&dim)
        || match precision {
            Precision::F64 => dim <= MAX_WIDE_DIM && capacity <= WIDE_MAX_CAPACITY,
            Precision::F32 => dim <= MAX_WIDE_DIM_F32,
        }
}

/// The const capacities of `f64` optimizers; an experiment's capacity is rounded up to one of
/// them (and the model told the exact capacity).
pub const CAPACITIES_F64: [usize; 4] = [64, 256, 1024, 4096];

/// The const capacities of `f32` optimizers (the device's precision: a device's model holds at
/// most a few hundred observations).
pub const CAPACITIES_F32: [usize; 2] = [64, 256];

/// Random Fourier features of the sample-path rules (as the desktop runner's).
const FEATURES: usize = 1024;

/// Stack of the thread an engine's calls run on, per 1024 slots of its model (at least one
/// unit). The core keeps its temporaries on the stack: a few arrays of `N` scalars per
/// prediction, `N` groups of eight in the vector paths, the controller's inline arrays while
/// it is built. Measured on 2026-11-30 in the test profile (opt-level 1: each bucket's worst
/// case run on threads of 1, 2, 4, … MiB), a model of 1024 slots needs up to 4 MiB and one of
/// 256 up to 2 MiB; an unoptimised caller's build was not measured and keeps more on the
/// stack, hence the 16-fold margin. The caller's own thread may have as little as a test
/// harness's 2 MiB, so no call runs on it: the reserve is address space, committed only as
/// far as it is touched.
const STACK_PER_1024_SLOTS: usize = 64 << 20;

/// Numeric precision of the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Precision {
    /// `f64`: the desktop's default.
    #[default]
    F64,
    /// `f32`: the device's precision; an `f32` optimizer makes the device's decisions bit for
    /// bit.
    F32,
}

impl Precision {
    /// The name used in saved states: `"f64"` or `"f32"`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F64 => "f64",
            Precision::F32 => "f32",
        }
    }

    /// The widest spread of outcomes a model standardises in this precision: beyond it the
    /// squared spread overflows and the model has no posterior.
    pub(crate) fn widest_spread(self) -> f64 {
        match self {
            Precision::F64 => 1e150,
            Precision::F32 => 1e18,
        }
    }
}

/// A decision as the boundary sees it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawDecision {
    pub set: usize,
    pub values: Vec<Option<f64>>,
    pub score: f64,
    /// The core's price of the decision where costs are known (per set or per unit dosed).
    pub cost: Option<f64>,
}

/// What the optimizer needs of a controller of any size.
pub(crate) trait Engine: Send {
    /// The pending decision, or a new one; `None` once the budget cannot pay for a round or
    /// the rule stops.
    fn next(&mut self) -> Result<Option<RawDecision>, DriverError>;
    /// Pay for this round's measurement of `x`?
    fn query(&mut self, x: &[f64]) -> Result<super::QueryAnswer, DriverError>;
    /// Observes the pending decision's outcome; returns the memo's scalars.
    fn observe(&mut self, x: &[f64], y: f64, cost: f64) -> Result<Vec<f64>, DriverError>;
    /// Ends the pending round without a measurement; returns the memo's scalars.
    fn skip(&mut self, x: &[f64], cost: f64) -> Result<Vec<f64>, DriverError>;
    /// An observation outside the rounds (earlier data, an initial design), with what it
    /// cost where the costs are learned as a function of the values.
    fn initial(&mut self, x: &[f64], y: f64, cost: Option<f64>) -> Result<(), DriverError>;
    /// Whether the costs are learned as a function of the values (a model of ln(cost)).
    fn learns_cost_function(&self) -> bool;
    /// Replays a measured round.
    fn replay(
        &mut self,
        set: usize,
        x: &[f64],
        y: f64,
        cost: f64,
        memo: &[f64],
    ) -> Result<(), DriverError>;
    /// Replays a skipped round.
    fn replay_skip(
        &mut self,
        set: usize,
        x: &[f64],
        cost: f64,
        memo: &[f64],
    ) -> Result<(), DriverError>;
    /// The best (set, values) by expected posterior mean.
    fn recommend(&mut self) -> Result<RawDecision, DriverError>;
    /// Budget spent.
    fn spent(&self) -> f64;
    /// Rounds played (measured or skipped).
    fn rounds(&self) -> usize;
    /// Slots in the model.
    fn observations(&self) -> usize;
    /// The model's const capacity `N` (the bucket), which sizes the core's stack temporaries.
    fn slots(&self) -> usize;
}

type Ctl<R, const N: usize, const D: usize> = Controller<
    R,
    N,
    D,
    MAX_SETS,
    Vec<R>,
    Vec<[R; D]>,
    AnyPolicy<R, D, MAX_SETS, FEATURES, N>,
    HeapCostModel<R, N, D>,
>;

/// The model of ln(cost) of an experiment that learns its costs as a function of the values
/// (the file's `costs = "learned"` with a rule that prices each point, paper 002's unknown
/// costs), on the heap; none for the others. Chosen when the experiment is opened, so one
/// controller type serves both (a second type would compile every size twice).
type HeapCostModel<R, const N: usize, const D: usize> = Option<Box<Gp<R, N, D, Vec<R>>>>;

/// The core's controller at one choice of sizes, with its workspace.
///
/// The workspace selects the core's factorised, screened scoring; without one the core
/// scores on its stack. The two agree to rounding, not to the bit, so each precision takes the
/// path of the platform it must match: `f64` the desktop runner's (a workspace of
/// `workspace_len`, refits with their profile cache too), `f32` the device's (none, but for a
/// rule the device does not run that needs memory to decide at all).
pub(crate) struct Typed<R: Real, const N: usize, const D: usize> {
    controller: Box<Ctl<R, N, D>>,
    workspace: Vec<R>,
    /// The experiment's variables: `D`, or fewer on a padded model.
    dim: usize,
}

fn build_error(e: BuildError) -> SpecError {
    match e {
        BuildError::Gp(e) => SpecError::Gp(e),
        BuildError::Bank(e) => SpecError::Bank(e),
        BuildError::Driver(e) => SpecError::Driver(e),
    }
}

fn memo_scalars<R: Real>(memo: &Memo<R>) -> Vec<f64> {
    let mut out = [R::ZERO; costbo_core::policy::memo::MEMO_CAPACITY + 1];
    // Cannot fail: a memo writes at most MEMO_CAPACITY + 1 scalars.
    let n = memo.write(&mut out).unwrap_or(0);
    out[..n].iter().map(|v| v.to_f64()).collect()
}

fn memo_of<R: Real>(scalars: &[f64]) -> Result<Memo<R>, DriverError> {
    let values: Vec<R> = scalars.iter().map(|v| R::from_f64(*v)).collect();
    Memo::read(&values).map_err(|_| DriverError::InvalidMemo)
}

impl<R: Real + Send, const N: usize, const D: usize> Typed<R, N, D> {
    fn new(spec: &Spec<'_>, precision: Precision) -> Result<Self, SpecError> {
        let description = spec.controller_spec_padded::<R, D, MAX_SETS>()?;
        let gp = description
            .model::<N, _>(vec![R::ZERO; tri_len(N)])
            .map_err(build_error)?
            .with_capacity(spec.capacity)
            .map_err(SpecError::Gp)?;
        let bank = description
            .bank(vec![[R::ZERO; D]; spec.bank])
            .map_err(build_error)?;
        let policy = description.policy.build::<D, MAX_SETS, FEATURES, N>();
        let needs_workspace = description.policy.needs_workspace();
        // Learned costs priced at each point are learned as a function of the values: a GP
        // of ln(cost) of the same kind and capacity as the model, which every cost told
        // enters. Other rules read no such model (paper 001's learns a cost per set).
        let cost_model = if spec.learns_costs() && description.policy.prices_points() {
            let model = description
                .model::<N, _>(vec![R::ZERO; tri_len(N)])
                .map_err(build_error)?
                .with_capacity(spec.capacity)
                .map_err(SpecError::Gp)?;
            Some(Box::new(model))
        } else {
            None
        };
        let mut controller = description
            .controller(gp, bank, policy)
            .map_err(build_error)?
            .with_cost_model(cost_model)
            .map_err(SpecError::Driver)?;
        if let Some(m) = spec.measurement {
            controller = controller.with_measurement(m.rule::<R>()?);
        }
        let workspace = match precision {
            Precision::F64 => vec![R::ZERO; controller.fast_workspace_len()],
            // A rule that cannot decide without memory (MES's candidates) gets what it asks;
            // no device runs those rules, so there are no device bits to match.
            Precision::F32 if needs_workspace => {
                vec![R::ZERO; controller.workspace_len()]
            }
            Precision::F32 => Vec::new(),
        };
        Ok(Typed {
            controller: Box::new(controller),
            workspace,
            dim: spec.variables.len(),
        })
    }

    /// `x`, the experiment's variables (the caller has checked its length), as the core's
    /// point; its inert inputs as the pending decision has them (a round's point must carry
    /// its decision's values), else 0 (the kernel cannot tell).
    fn point(&self, x: &[f64]) -> [R; D] {
        let pending = self.controller.pending().map(|d| &d.values);
        core::array::from_fn(|l| match x.get(l) {
            Some(v) => R::from_f64(*v),
            None => pending.and_then(|values| values[l]).unwrap_or(R::ZERO),
        })
    }

    fn raw(&self, d: &costbo_core::driver::Decision<R, D>) -> RawDecision {
        let problem = self.controller.problem();
        RawDecision {
            set: d.set,
            values: d.values[..self.dim]
                .iter()
                .map(|v| v.map(|v| v.to_f64()))
                .collect(),
            score: d.score.to_f64(),
            cost: problem
                .decision_cost(d.set, &d.values)
                .or_else(|| self.learned_cost(&d.values))
                .map(|c| c.to_f64()),
        }
    }

    /// The cost model's estimate of what a round at `values` costs, `exp` of its posterior
    /// mean of ln(cost) (the median of its log-normal belief); `None` without a cost model,
    /// before its first cost or for a point with a variable left to chance.
    fn learned_cost(&self, values: &[Option<R>; D]) -> Option<R> {
        let model = self.controller.cost_model().filter(|m| !m.is_empty())?;
        let mut x = [R::ZERO; D];
        for (x, v) in x.iter_mut().zip(values) {
            *x = (*v)?;
        }
        let unit = self.controller.problem().to_unit(&x);
        model.predict_mean(&unit).ok().map(Real::exp)
    }
}

impl<R: Real + Send, const N: usize, const D: usize> Engine for Typed<R, N, D> {
    fn next(&mut self) -> Result<Option<RawDecision>, DriverError> {
        match self.controller.next(&[None; D], &mut self.workspace) {
            Ok(Step::Play(d)) => Ok(Some(self.raw(&d))),
            Ok(Step::Stop) | Err(DriverError::BudgetExhausted) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn query(&mut self, x: &[f64]) -> Result<super::QueryAnswer, DriverError> {
        let answer = self.controller.query(&self.point(x))?;
        Ok(super::QueryAnswer {
            measure: answer.pay,
            min_probability: answer.min_probability.to_f64(),
        })
    }

    fn observe(&mut self, x: &[f64], y: f64, cost: f64) -> Result<Vec<f64>, DriverError> {
        self.controller
            .observe(&self.point(x), R::from_f64(y), R::from_f64(cost))?;
        Ok(memo_scalars(&self.controller.memo()))
    }

    fn skip(&mut self, x: &[f64], cost: f64) -> Result<Vec<f64>, DriverError> {
        self.controller.skip(&self.point(x), R::from_f64(cost))?;
        Ok(memo_scalars(&self.controller.memo()))
    }

    fn initial(&mut self, x: &[f64], y: f64, cost: Option<f64>) -> Result<(), DriverError> {
        match cost {
            Some(c) => self.controller.observe_initial_with_cost(
                &self.point(x),
                R::from_f64(y),
                R::from_f64(c),
            ),
            None => self
                .controller
                .observe_initial(&self.point(x), R::from_f64(y)),
        }
    }

    fn learns_cost_function(&self) -> bool {
        self.controller.cost_model().is_some()
    }

    fn replay(
        &mut self,
        set: usize,
        x: &[f64],
        y: f64,
        cost: f64,
        memo: &[f64],
    ) -> Result<(), DriverError> {
        let memo = memo_of(memo)?;
        self.controller.replay(
            set,
            &self.point(x),
            R::from_f64(y),
            R::from_f64(cost),
            &memo,
        )
    }

    fn replay_skip(
        &mut self,
        set: usize,
        x: &[f64],
        cost: f64,
        memo: &[f64],
    ) -> Result<(), DriverError> {
        let memo = memo_of(memo)?;
        self.controller
            .replay_skip(set, &self.point(x), R::from_f64(cost), &memo)
    }

    fn recommend(&mut self) -> Result<RawDecision, DriverError> {
        let d = self.controller.recommend()?;
        Ok(self.raw(&d))
    }

    fn spent(&self) -> f64 {
        self.controller.spent().to_f64()
    }

    fn rounds(&self) -> usize {
        self.controller.rounds()
    }

    fn observations(&self) -> usize {
        self.controller.gp().len()
    }

    fn slots(&self) -> usize {
        N
    }
}

/// An engine of `R` for `spec`'s dimension at capacity bucket `N`.
fn with_dim<R: Real + Send, const N: usize>(
    spec: &Spec<'_>,
    precision: Precision,
) -> Result<Box<dyn Engine>, SpecError> {
    macro_rules! dims {
        ($($d:literal)*) => {
            match spec.variables.len() {
                $($d => Ok(Box::new(Typed::<R, N, $d>::new(spec, precision)?) as Box<dyn Engine>),)*
                d => Err(SpecError::VariableCount { spec: d, generic: MAX_DIM }),
            }
        };
    }
    dims!(1 2 3 4 5 6 7 8)
}

/// Builds an engine for an experiment on a padded model of the given width.
type PaddedEngine = fn(&Spec<'_>, Precision, usize) -> Result<Box<dyn Engine>, SpecError>;

/// [`with_dim`], and beyond [`MAX_DIM`] the model `padded` builds of the smallest of `widths`
/// that holds the variables.
fn with_wide_dim<R: Real + Send, const N: usize>(
    spec: &Spec<'_>,
    precision: Precision,
    widths: &[usize],
    padded: PaddedEngine,
) -> Result<Box<dyn Engine>, SpecError> {
    match spec.variables.len() {
        d if d <= MAX_DIM => with_dim::<R, N>(spec, precision),
        d => match widths.iter().find(|&&w| w >= d) {
            Some(&width) => padded(spec, precision, width),
            None => Err(SpecError::VariableCount {
                spec: d,
                generic: widths.last().copied().unwrap_or(MAX_DIM),
            }),
        },
    }
}

/// An engine of `width` inputs, one of the [`WIDE_DIMS`], for `spec` (at least its
/// variables; the others inert).
fn padded<R: Real + Send, const N: usize>(
    spec: &Spec<'_>,
    precision: Precision,
    width: usize,
) -> Result<Box<dyn Engine>, SpecError> {
    match width {
        12 => Ok(Box::new(Typed::<R, N, 12>::new(spec, precision)?)),
        16 => Ok(Box::new(Typed::<R, N, 16>::new(spec, precision)?)),
        24 => Ok(Box::new(Typed::<R, N, 24>::new(spec, precision)?)),
        32 => Ok(Box::new(Typed::<R, N, 32>::new(spec, precision)?)),
        48 => Ok(Box::new(Typed::<R, N, 48>::new(spec, precision)?)),
        64 => Ok(Box::new(Typed::<R, N, 64>::new(spec, precision)?)),
        _ => Err(SpecError::VariableCount {
            spec: spec.variables.len(),
            generic: MAX_WIDE_DIM,
        }),
    }
}

/// [`padded`] for the [`WIDE_DIMS_F32`] only (every width compiled in costs its build time).
fn padded_f32<R: Real + Send, const N: usize>(
    spec: &Spec<'_>,
    precision: Precision,
    width: usize,
) -> Result<Box<dyn Engine>, SpecError> {
    match width {
        12 => Ok(Box::new(Typed::<R, N, 12>::new(spec, precision)?)),
        16 => Ok(Box::new(Typed::<R, N, 16>::new(spec, precision)?)),
        _ => Err(SpecError::VariableCount {
            spec: spec.variables.len(),
            generic: MAX_WIDE_DIM_F32,
        }),
    }
}

/// The capacity bucket for `capacity` in `precision`: the smallest compiled-in capacity that
/// holds it.
pub(crate) fn bucket(precision: Precision, capacity: usize) -> Option<usize> {
    let buckets: &[usize] = match precision {
        Precision::F64 => &CAPACITIES_F64,
        Precision::F32 => &CAPACITIES_F32,
    };
    buckets.iter().copied().find(|&n| n >= capacity)
}

/// The engine for `spec` in `precision`; the outer error when no thread could be started for
/// the model. The caller has validated the spec and checked its sizes ([`bucket`],
/// [`MAX_DIM`]).
pub(crate) fn open(
    spec: &Spec<'_>,
    precision: Precision,
) -> std::io::Result<Result<Box<dyn Engine>, SpecError>> {
    let n = bucket(precision, spec.capacity).unwrap_or(0);
    on_worker(n, || match (precision, n) {
        (Precision::F64, 64) => {
            with_wide_dim::<f64, 64>(spec, precision, &WIDE_DIMS, padded::<f64, 64>)
        }
        (Precision::F64, 256) => {
            with_wide_dim::<f64, 256>(spec, precision, &WIDE_DIMS, padded::<f64, 256>)
        }
        (Precision::F64, 1024) => {
            with_wide_dim::<f64, 1024>(spec, precision, &WIDE_DIMS, padded::<f64, 1024>)
        }
        (Precision::F64, 4096) => with_dim::<f64, 4096>(spec, precision),
        (Precision::F32, 64) => {
            with_wide_dim::<f32, 64>(spec, precision, &WIDE_DIMS_F32, padded_f32::<f32, 64>)
        }
        (Precision::F32, 256) => {
            with_wide_dim::<f32, 256>(spec, precision, &WIDE_DIMS_F32, padded_f32::<f32, 256>)
        }
        _ => Err(SpecError::Capacity {
            spec: spec.capacity,
            generic: n,
        }),
    })
}

/// The stack a call into a model of `slots` slots is given ([`STACK_PER_1024_SLOTS`]).
pub(crate) fn stack_for(slots: usize) -> usize {
    STACK_PER_1024_SLOTS * slots.div_ceil(1024).max(1)
}

/// Runs `f` on a thread of its own with a stack for a model of `slots` slots
/// ([`STACK_PER_1024_SLOTS`]), whatever the caller's stack; the system's error when no such
/// thread can be started. The thread costs 0.2–0.3 ms of a 9.5 ms `ask` at n = 100
/// (docs/performance.md, the adapter's `ask` beside the core's).
pub(crate) fn on_worker<T: Send>(slots: usize, f: impl FnOnce() -> T + Send) -> std::io::Result<T> {
    let stack = stack_for(slots);
    std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("costbo-optimizer".into())
            .stack_size(stack)
            .spawn_scoped(s, f)?;
        match handle.join() {
            Ok(v) => Ok(v),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `d`-variable box experiment (every variable in one set, or, with `sets`, also a set
    /// of the first half at a third of the cost).
    fn experiment(d: usize, rule: &str, sets: bool) -> String {
        let mut t = format!(
            "[experiment]\nname = \"box\"\nseed = 5\nbudget = 6\ncapacity = 64\nbank = 16\n\
             rule = \"{rule}\"\n[model]\nkernel = \"matern52\"\nlengthscale = 0.4\n\
             outputscale = 1.0\nnoise = 1e-4\n[inner]\npool = 32\nstarts = 2\n\
             evaluations_per_start = 8\n"
        );
        for l in 0..d {
            t.push_str(&format!(
                "[[variable]]\nname = \"x{l}\"\nlower = -1\nupper = {}\n\
                 distribution = {{ kind = \"uniform\" }}\n",
                1 + l
            ));
        }
        let names = |n: usize| (0..n).map(|l| format!("\"x{l}\"")).collect::<Vec<_>>();
        t.push_str(&format!(
            "[[control_set]]\nvariables = [{}]\ncost = 1\n",
            names(d).join(", ")
        ));
        if sets {
            t.push_str(&format!(
                "[[control_set]]\nvariables = [{}]\ncost = 0.3\n",
                names(d / 2).join(", ")
            ));
        }
        t
    }

    /// Every decision of `engine` (set and values as bits) over its budget, the points told
    /// completed with `0.25` where the rule left a variable to chance.
    fn decisions(engine: Box<dyn Engine>, d: usize) -> Vec<(usize, Vec<u64>)> {
        decisions_paying(engine, d, None)
    }

    /// [`decisions`], paying `cost(x)` for each round and initial point where it is given (an
    /// experiment whose costs are learned), else the decision's cost.
    fn decisions_paying(
        mut engine: Box<dyn Engine>,
        d: usize,
        cost: Option<fn(&[f64]) -> f64>,
    ) -> Vec<(usize, Vec<u64>)> {
        let f = |x: &[f64]| -x.iter().map(|v| (v - 0.3).powi(2)).sum::<f64>();
        for k in 0..3 {
            let x: Vec<f64> = (0..d)
                .map(|l| ((k * 7 + l * 3) % 10) as f64 / 10.0)
                .collect();
            engine.initial(&x, f(&x), cost.map(|c| c(&x))).unwrap();
        }
        let mut out = vec![];
        while let Some(decision) = engine.next().unwrap() {
            let x: Vec<f64> = decision.values.iter().map(|v| v.unwrap_or(0.25)).collect();
            assert_eq!(x.len(), d);
            let paid = cost.map_or_else(|| decision.cost.unwrap(), |c| c(&x));
            engine.observe(&x, f(&x), paid).unwrap();
            out.push((decision.set, x.iter().map(|v| v.to_bits()).collect()));
        }
        out
    }

    /// Inputs the kernel ignores change nothing the model computes, and the candidates of the
    /// inner optimiser are Sobol points, whose first coordinates do not depend on how many
    /// there are: so an experiment of 8 variables makes the same decisions, bit for bit, on
    /// its exact model and on a model of 12 inputs, for the rules that draw nothing per input.
    #[test]
    fn a_padded_model_decides_as_the_exact_one() {
        for (rule, sets) in [
            ("log-ei", false),
            ("pbgi", false),
            ("gp-ucb", false),
            ("ucb-psq", true),
            ("ucb-cvs", true),
            ("gittins-cvs", true),
        ] {
            let text = experiment(8, rule, sets);
            let spec = costbo_experiment::toml::parse(&text).unwrap();
            let exact = with_dim::<f64, 64>(&spec, Precision::F64).unwrap();
            let wide = padded::<f64, 64>(&spec, Precision::F64, 12).unwrap();
            let (a, b) = (decisions(exact, 8), decisions(wide, 8));
            assert!(a.len() >= 4, "{rule}: {} rounds", a.len());
            assert_eq!(a, b, "{rule}");
        }
        // The rules that draw per input (sample paths' random features, uniform values) draw
        // for the inert inputs too: other decisions, as valid.
        for rule in ["ei-per-cost", "ts-psq", "random-search"] {
            let text = experiment(8, rule, true);
            let spec = costbo_experiment::toml::parse(&text).unwrap();
            let wide = padded::<f64, 64>(&spec, Precision::F64, 12).unwrap();
            let played = decisions(wide, 8);
            assert!(played.len() >= 6, "{rule}: {} rounds", played.len());
            for (_, x) in &played {
                for (l, v) in x.iter().enumerate() {
                    let v = f64::from_bits(*v);
                    assert!((-1.0..=1.0 + l as f64).contains(&v), "{rule}: x{l} = {v}");
                }
            }
        }
    }

    /// In `f32` too (the device's path, without a workspace), for the rules a device runs.
    #[test]
    fn a_padded_f32_model_decides_as_the_exact_one() {
        for (rule, sets) in [("ucb-psq", true), ("ucb-cvs", true), ("gittins-cvs", true)] {
            let text = experiment(8, rule, sets);
            let spec = costbo_experiment::toml::parse(&text).unwrap();
            let exact = with_dim::<f32, 64>(&spec, Precision::F32).unwrap();
            let wide = padded_f32::<f32, 64>(&spec, Precision::F32, 16).unwrap();
            let (a, b) = (decisions(exact, 8), decisions(wide, 8));
            assert!(a.len() >= 4, "{rule}: {} rounds", a.len());
            assert_eq!(a, b, "{rule}");
        }
    }

    /// Beyond the quasi-random table's 21 dimensions the bank of an experiment of at most 21
    /// variables is still its exact model's: the same points in the variables' coordinates.
    #[test]
    fn a_wide_bank_holds_the_exact_banks_points() {
        let text = experiment(8, "ucb-psq", true);
        let spec = costbo_experiment::toml::parse(&text).unwrap();
        let exact = spec.controller_spec_padded::<f64, 8, 2>().unwrap();
        let exact = exact.bank(vec![[0.0; 8]; 16]).unwrap();
        let wide = spec.controller_spec_padded::<f64, 24, 2>().unwrap();
        let wide = wide.bank(vec![[0.0; 24]; 16]).unwrap();
        for (a, b) in exact.points().iter().zip(wide.points()) {
            assert_eq!(a[..], b[..8]);
            assert!(b[8..].iter().all(|v| *v == 0.5));
        }
    }

    /// A fit holds the coordinates of the inputs its kernel ignores and draws no start for
    /// them, so a padded model fits, and then decides, as the exact one: every fit of the
    /// file, on the model and (unknown costs priced at each point) on the cost model.
    #[test]
    fn a_padded_fitted_model_decides_as_the_exact_one() {
        let fits = [
            "fit = \"map\"\nrefit_every = 2\n",
            "fit = \"botorch\"\nrefit_every = 1\n",
            "fit = \"adam\"\nfrom_spent = 0.3\n",
        ];
        for (fit, rule, sets) in [
            (fits[0], "log-ei", false),
            (fits[0], "ucb-cvs", true),
            (fits[1], "pbgi", false),
            (fits[1], "gittins-cvs", true),
            (fits[2], "ucb-psq", true),
        ] {
            let text = experiment(8, rule, sets)
                .replace("noise = 1e-4\n", &format!("noise = 1e-4\n{fit}"));
            let spec = costbo_experiment::toml::parse(&text).unwrap();
            let exact = with_dim::<f64, 64>(&spec, Precision::F64).unwrap();
            let wide = padded::<f64, 64>(&spec, Precision::F64, 12).unwrap();
            let (a, b) = (decisions(exact, 8), decisions(wide, 8));
            assert!(a.len() >= 4, "{rule}: {} rounds", a.len());
            assert_eq!(a, b, "{rule} {fit}");
        }
        // Costs learned as a function of the values: the cost model is fitted too.
        let text = experiment(8, "pbgi", false)
            .replace("noise = 1e-4\n", &format!("noise = 1e-4\n{}", fits[1]))
            .replace(
                "rule = \"pbgi\"\n",
                "rule = \"pbgi\"\ncosts = \"learned\"\n",
            )
            .replace("cost = 1\n", "");
        let spec = costbo_experiment::toml::parse(&text).unwrap();
        let cost = |x: &[f64]| 0.2 + x.iter().map(|v| v.abs()).sum::<f64>() / 8.0;
        let exact = with_dim::<f64, 64>(&spec, Precision::F64).unwrap();
        let wide = padded::<f64, 64>(&spec, Precision::F64, 12).unwrap();
        assert!(exact.learns_cost_function() && wide.learns_cost_function());
        let (a, b) = (
            decisions_paying(exact, 8, Some(cost)),
            decisions_paying(wide, 8, Some(cost)),
        );
        assert!(a.len() >= 4, "learned costs: {} rounds", a.len());
        assert_eq!(a, b, "learned costs");
    }
}
