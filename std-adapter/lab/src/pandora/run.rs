//! One run of a rule on an objective over `[0, 1]^d` (see the module documentation of
//! [`crate::pandora`]).

use costbo_core::dist::{Distribution, Uniform};
use costbo_core::driver::{
    BudgetRule, Controller, ControllerSpec, DriverError, Refit, Settings, Step,
};
use costbo_core::expectation::SampleBank;
use costbo_core::gp::{Gp, WhenFull};
use costbo_core::inner::RestartConfig;
use costbo_core::kernel::{Amplitude, Kernel, Shape};
use costbo_core::linalg::tri_len;
use costbo_core::policy::{AnyPolicy, Maximiser, PolicySpec, RuleDefaults};
use costbo_core::problem::{ControlSet, CostFunction, Costs, Problem, Variable};
use costbo_core::qmc::{IidUniform, Sobol, SOBOL_MAX_DIMENSIONS};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::objectives::{bump, pbgi_costs, pest_control, Objective};

/// The dimensions a run can have (the controller's dimension is a compile-time constant; 12,
/// 14 and 25 are paper 002's Lunar Lander, Robot Pushing and Pest Control; 32 is Fig. 4's largest).
pub const BOX_DIMS: &[usize] = &[1, 2, 3, 4, 5, 6, 8, 12, 14, 16, 25, 32];

/// The least cost Pest Control is priced at: an untreated plan pays nothing, which the index
/// cannot divide by (`docs/notes/seed-002.md` §6.2 pitfall 8); `10⁻⁶` is the scale of the noise the paper's
/// code adds to the cost.
pub const PEST_CONTROL_MIN_COST: f64 = 1e-6;

/// Most observations of a run, initial design included; a run whose model is full stops there,
/// below its budget.
pub const CAPACITY: usize = 1024;

/// A spread of observed values beyond which a failed decision is put down to the values: their
/// squares overflow `f64` when standardised.
const EXTREME_SPREAD: f64 = 1e150;

/// Random Fourier features of the Thompson-sampling rule's sample paths.
const FEATURES: usize = 1024;

/// How points are priced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoxCost {
    /// Every evaluation costs 1: the budget is a number of rounds.
    Uniform,
    /// Paper 002's code's cost-aware setting, `c(u) = 1 + 20·mean(u)`, known to the rule.
    MeanLinear,
    /// The same cost, learned by the rule from what it pays (a GP on `ln c`).
    MeanLinearLearned,
    /// Pest Control's total price ([`pest_control::cost`], d = 25), known to the rule:
    /// piecewise constant, so its gradient is 0; at least [`PEST_CONTROL_MIN_COST`].
    PestControl,
    /// The bump cost of paper 002's 1-D constructions ([`bump::bump_cost`], d = 1), known to
    /// the rule with its derivative.
    Bump,
    /// What an external objective's program reports ([`crate::objectives::external`]),
    /// learned by the rule (a GP on `ln c`) like [`MeanLinearLearned`](Self::MeanLinearLearned).
    External,
}

impl BoxCost {
    /// The cost at `u`; `None` for [`External`](Self::External), whose cost only the
    /// program's report gives.
    pub fn at(&self, u: &[f64]) -> Option<f64> {
        match self {
            BoxCost::Uniform => Some(1.0),
            BoxCost::MeanLinear | BoxCost::MeanLinearLearned => Some(pbgi_costs::mean_linear(u).0),
            BoxCost::PestControl => Some(pest_control::cost(u).0.max(PEST_CONTROL_MIN_COST)),
            BoxCost::Bump => Some(bump::bump_cost(u[0]).0),
            BoxCost::External => None,
        }
    }

    /// True when the rule learns the cost from what it pays rather than knowing it.
    pub fn is_learned(&self) -> bool {
        matches!(self, BoxCost::MeanLinearLearned | BoxCost::External)
    }

    /// Its name in reports and on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            BoxCost::Uniform => "uniform",
            BoxCost::MeanLinear => "linear",
            BoxCost::MeanLinearLearned => "linear-learned",
            BoxCost::PestControl => "pest-control",
            BoxCost::Bump => "bump",
            BoxCost::External => "external",
        }
    }

    /// The cost called `name`.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "uniform" => Ok(BoxCost::Uniform),
            "linear" => Ok(BoxCost::MeanLinear),
            "linear-learned" => Ok(BoxCost::MeanLinearLearned),
            "pest-control" => Ok(BoxCost::PestControl),
            "bump" => Ok(BoxCost::Bump),
            "external" => Ok(BoxCost::External),
            other => Err(format!(
                "unknown cost `{other}` (known: uniform, linear, linear-learned, pest-control, \
                 bump, external)"
            )),
        }
    }
}

/// The model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BoxModel {
    /// Matérn-5/2 ARD refitted every round by MAP with BoTorch 0.9's priors, outputs
    /// standardised, noise fixed at 1e-4 (paper 002's synthetic and empirical problems).
    Fitted,
    /// A kernel of the objective's own shape and isotropic lengthscale with unit outputscale,
    /// never refitted, zero mean, noise 1e-4 (paper 002's Bayesian-regret study: Matérn-5/2,
    /// and in App. D.6 Matérn-3/2 and the squared exponential).
    Fixed {
        /// Lengthscale.
        lengthscale: f64,
        /// Kernel shape.
        shape: Shape,
    },
    /// Paper 002's model of its 1-D constructions (Figs. 2 and 9; d = 1 only): the fixed
    /// Matérn-5/2 of [`Fixed`](Self::Fixed) modulated by the construction's amplitude,
    /// `k(x, x') = √(a(x)a(x'))·k_M(x, x')` (the code's kernel; see [`bump`] on how it relates
    /// to the objective `a·f_M`), never refitted, zero mean, noise 1e-4.
    Modulated {
        /// Lengthscale of `k_M` (the constructions: [`bump::LENGTHSCALE`]).
        lengthscale: f64,
        /// Which construction's amplitude `a`.
        amplitude: bump::Hard,
    },
}

/// A run's settings.
#[derive(Debug, Clone)]
pub struct BoxRun {
    /// The rule (a core registry name).
    pub rule: String,
    /// Seed of the initial design and of the rule's draws.
    pub seed: u64,
    /// Budget (rounds under uniform costs).
    pub budget: f64,
    /// Costs.
    pub cost: BoxCost,
    /// Model.
    pub model: BoxModel,
    /// Whether to maximise acquisitions as the paper does (`200d` raw samples, `10d` restarts);
    /// otherwise the inner optimiser's default pool (faster, for smoke tests).
    pub paper_optimiser: bool,
}

/// One round of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxRound {
    /// Budget spent after the round (initial design excluded).
    pub spent: f64,
    /// The value observed.
    pub y: f64,
    /// The best value observed so far, initial design included.
    pub best: f64,
    /// Seconds of CPU the controller took to decide (refit and acquisition optimisation).
    pub decide_seconds: f64,
}

/// A finished run: the best value of the initial design and the rounds after it.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxTrace {
    /// The best value the initial design observed.
    pub initial_best: f64,
    /// The rounds decided by the rule.
    pub rounds: Vec<BoxRound>,
    /// The run ended because the model was full ([`CAPACITY`] observations), below its budget.
    pub model_full: bool,
}

/// The initial design's size for dimension `d`: `2(d + 1)`.
pub fn initial_points(d: usize) -> usize {
    2 * (d + 1)
}

/// Runs `run` on `objective`; the rounds after the initial design. Errors name what failed.
pub fn run_box(objective: &dyn Objective, run: &BoxRun) -> Result<BoxTrace, String> {
    run_box_from(objective, run, None)
}

/// Like [`run_box`], from the given initial design (points of `[0, 1]^d`, not charged) instead
/// of the `2(d+1)`-point Sobol' design when `initial` is given (paper 002's 1-D constructions
/// start from the single point `x = 0`).
pub fn run_box_from(
    objective: &dyn Objective,
    run: &BoxRun,
    initial: Option<&[Vec<f64>]>,
) -> Result<BoxTrace, String> {
    run_box_watched(objective, run, initial, None)
}

/// What [`run_box_watched`] calls as each round ends: the round's number (from 1) and the round.
pub type RoundWatcher<'a> = &'a (dyn Fn(usize, &BoxRound) + Sync);

/// Like [`run_box_from`], calling `watch` as each round ends (to print it at once, so that the
/// rounds before a failure are kept).
pub fn run_box_watched(
    objective: &dyn Objective,
    run: &BoxRun,
    initial: Option<&[Vec<f64>]>,
    watch: Option<RoundWatcher<'_>>,
) -> Result<BoxTrace, String> {
    if let Some(points) = initial {
        if points.is_empty() || points.iter().any(|p| p.len() != objective.dim()) {
            return Err(format!(
                "the initial design needs at least one point of dimension {}",
                objective.dim()
            ));
        }
    }
    macro_rules! dispatch {
        ($($d:literal),*) => {
            match objective.dim() {
                $($d => run_dim::<$d>(objective, run, initial, watch),)*
                d => Err(format!(
                    "dimension {d} is not compiled in (supported: {BOX_DIMS:?})"
                )),
            }
        };
    }
    // The controller keeps capacity-sized arrays on the stack; at d = 25 they outgrow a
    // default 2 MB thread stack (test and worker threads), so the run gets its own thread.
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("costbo-box-run".into())
            .stack_size(crate::experiment::JOB_STACK)
            .spawn_scoped(s, || dispatch!(1, 2, 3, 4, 5, 6, 8, 12, 14, 16, 25, 32))
            .map_err(|e| format!("cannot start the run's thread: {e}"))?
            .join()
            .map_err(|_| "the run's thread panicked".to_string())?
    })
}

/// Pest Control's price as the problem's known cost; piecewise constant, so the gradient is 0.
fn pest_control_cost<const D: usize>(_: usize, x: &[f64; D]) -> (f64, [f64; D]) {
    (pest_control::cost(x).0.max(PEST_CONTROL_MIN_COST), [0.0; D])
}

/// The bump cost of the first coordinate and its derivative (runs check that `D = 1`).
fn bump_cost<const D: usize>(_: usize, x: &[f64; D]) -> (f64, [f64; D]) {
    let (c, dc) = bump::bump_cost(x[0]);
    let mut g = [0.0; D];
    g[0] = dc;
    (c, g)
}

/// The amplitude of the construction hard for EI per unit cost, of the first coordinate
/// (runs check that `D = 1`).
fn eipc_amplitude<const D: usize>(x: &[f64; D]) -> (f64, [f64; D]) {
    first_coordinate(bump::Hard::Eipc.amplitude(x[0]))
}

/// The amplitude of the construction hard for EI (see [`eipc_amplitude`]).
fn ei_amplitude<const D: usize>(x: &[f64; D]) -> (f64, [f64; D]) {
    first_coordinate(bump::Hard::Ei.amplitude(x[0]))
}

fn first_coordinate<const D: usize>((v, d): (f64, f64)) -> (f64, [f64; D]) {
    let mut g = [0.0; D];
    g[0] = d;
    (v, g)
}

/// Evaluates `objective` at `u` and prices the point by `cost` (or by the objective's report
/// when the cost is [`BoxCost::External`]).
fn evaluate(objective: &dyn Objective, cost: BoxCost, u: &[f64]) -> Result<(f64, f64), String> {
    let e = objective.evaluate(u).map_err(|e| e.to_string())?;
    let c = match (cost.at(u), e.cost) {
        (Some(c), _) | (None, Some(c)) => c,
        (None, None) => {
            return Err(format!(
                "{} reported no cost, which `--cost external` needs in every answer",
                objective.name()
            ))
        }
    };
    Ok((e.value, c))
}

type Pol<const D: usize> = AnyPolicy<f64, D, 1, FEATURES, 1>;
type Plain<const D: usize> = Controller<f64, CAPACITY, D, 1, Vec<f64>, Vec<[f64; D]>, Pol<D>>;
/// The controller of a run: with a model of ln(cost) where the cost is learned, none otherwise.
type Ctl<const D: usize> = Controller<
    f64,
    CAPACITY,
    D,
    1,
    Vec<f64>,
    Vec<[f64; D]>,
    Pol<D>,
    Option<Box<Gp<f64, CAPACITY, D, Vec<f64>>>>,
>;

fn run_dim<const D: usize>(
    objective: &dyn Objective,
    run: &BoxRun,
    initial: Option<&[Vec<f64>]>,
    watch: Option<RoundWatcher<'_>>,
) -> Result<BoxTrace, String> {
    let v = Variable {
        lower: 0.0,
        upper: 1.0,
        uncontrolled: Distribution::Uniform(Uniform::new(0.0, 1.0).map_err(|e| format!("{e}"))?),
    };
    let problem = Problem::new(&[v; D], &[ControlSet::full(D)], Some(&[1.0]))
        .map_err(|e| format!("problem: {e}"))?;
    match (run.cost, D) {
        (BoxCost::PestControl, 25) | (BoxCost::Bump, 1) => {}
        (BoxCost::PestControl | BoxCost::Bump, _) => {
            return Err(format!(
                "the {} cost is not defined for d = {D} (pest-control: 25, bump: 1)",
                run.cost.name()
            ))
        }
        _ => {}
    }
    let problem = match run.cost {
        BoxCost::Uniform => Ok(problem),
        BoxCost::MeanLinear => problem.with_costs(Costs::Function(CostFunction(
            pbgi_costs::mean_linear_fn::<D>,
        ))),
        BoxCost::PestControl => {
            problem.with_costs(Costs::Function(CostFunction(pest_control_cost::<D>)))
        }
        BoxCost::Bump => problem.with_costs(Costs::Function(CostFunction(bump_cost::<D>))),
        BoxCost::MeanLinearLearned | BoxCost::External => problem.with_costs(Costs::Unknown),
    }
    .map_err(|e| format!("problem: {e}"))?;
    let maximiser = if run.paper_optimiser {
        Maximiser::Restarts(RestartConfig::paper_002(D))
    } else {
        Maximiser::Pool
    };
    let policy = PolicySpec::parse(&run.rule, &RuleDefaults::new(0.0).with_maximiser(maximiser))
        .map_err(|e| format!("rule `{}`: {e}", run.rule))?;
    let mut settings = Settings::new(run.budget, run.seed);
    settings.budget_rule = BudgetRule::WhileBelow;
    let (kernel, mean) = match run.model {
        BoxModel::Fitted => {
            settings.refit = Refit::BotorchMap {
                every: 1,
                noise: 1e-4,
            };
            (
                Kernel::matern52([std::f64::consts::LN_2.exp(); D], 1.0),
                0.0,
            )
        }
        BoxModel::Fixed { lengthscale, shape } => (Kernel::new(shape, [lengthscale; D], 1.0), 0.0),
        BoxModel::Modulated {
            lengthscale,
            amplitude,
        } => {
            if D != 1 {
                return Err(format!(
                    "the modulated model is defined for d = 1 only, not d = {D}"
                ));
            }
            let a = match amplitude {
                bump::Hard::Eipc => Amplitude(eipc_amplitude::<D> as fn(&[f64; D]) -> _),
                bump::Hard::Ei => Amplitude(ei_amplitude::<D> as fn(&[f64; D]) -> _),
            };
            (
                Kernel::matern52([lengthscale; D], 1.0).map(|k| k.with_amplitude(a)),
                0.0,
            )
        }
    };
    let spec = ControllerSpec {
        problem,
        kernel: kernel.map_err(|e| format!("kernel: {e}"))?,
        mean,
        noise: 1e-4,
        when_full: WhenFull::Reject,
        bank_seed: run.seed,
        settings,
        policy,
    };
    let plain: Plain<D> = if D <= SOBOL_MAX_DIMENSIONS {
        spec.build(vec![0.0; tri_len(CAPACITY)], vec![[0.0; D]; 1])
    } else {
        // Sobol's table stops at 21 dimensions; every variable is controlled, so the bank (of
        // uncontrolled draws) is never averaged over and one i.i.d. point serves.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(run.seed);
        SampleBank::iid(&spec.problem, vec![[0.0; D]; 1], &mut rng)
            .map_err(costbo_core::driver::BuildError::Bank)
            .and_then(|bank| {
                spec.controller(
                    spec.model(vec![0.0; tri_len(CAPACITY)])?,
                    bank,
                    spec.policy.build(),
                )
            })
    }
    .map_err(|e| format!("controller: {e}"))?;
    let cost_model = if run.cost.is_learned() {
        Some(Box::new(
            spec.model(vec![0.0; tri_len(CAPACITY)])
                .map_err(|e| format!("cost model: {e}"))?,
        ))
    } else {
        None
    };
    let mut ctl: Box<Ctl<D>> = Box::new(
        plain
            .with_cost_model(cost_model)
            .map_err(|e| format!("cost model: {e}"))?,
    );
    // The initial design: scrambled Sobol', seeded by the run; beyond Sobol's 21 dimensions
    // (Pest Control's 25), i.i.d. uniforms from the same seed.
    let mut sobol = Sobol::<D>::new(run.seed).ok();
    let mut iid = IidUniform::<D>::new(run.seed);
    let mut best = f64::NEG_INFINITY;
    // With the best, the range of the values seen, to explain a model that cannot hold them.
    let mut lowest = f64::INFINITY;
    let given = initial.map(|p| p.len());
    for i in 0..given.unwrap_or(initial_points(D)) {
        let u: [f64; D] = match (initial, &mut sobol) {
            (Some(points), _) => core::array::from_fn(|l| points[i][l]),
            (None, Some(s)) => s.next_point(),
            (None, None) => iid.next_point(),
        };
        let (y, c) =
            evaluate(objective, run.cost, &u).map_err(|e| format!("initial design: {e}"))?;
        best = best.max(y);
        lowest = lowest.min(y);
        if run.cost.is_learned() {
            ctl.observe_initial_with_cost(&u, y, c)
        } else {
            ctl.observe_initial(&u, y)
        }
        .map_err(|e| format!("initial design: {e}"))?;
    }
    let initial_best = best;
    let mut workspace = vec![0.0; ctl.fast_workspace_len()];
    let mut rounds = Vec::new();
    let mut model_full = false;
    loop {
        // A model that is full cannot take the next observation: the run ends here, below
        // its budget (cheap points can outlast the capacity, e.g. Robot Pushing's 0.1).
        if initial_points(D) + rounds.len() >= CAPACITY {
            model_full = true;
            break;
        }
        let started = cpu_seconds();
        let step = ctl.next(&[None; D], &mut workspace);
        let decide_seconds = cpu_seconds() - started;
        let decision = match step {
            Ok(Step::Play(d)) => d,
            Ok(Step::Stop) | Err(DriverError::BudgetExhausted) | Err(DriverError::Stopped) => break,
            Err(e) => {
                // Finite values too far apart to standardise (1e308 beside −1e308) leave the
                // model without a posterior; said in terms of the values, not the model.
                let why = if (best - lowest).abs() > EXTREME_SPREAD {
                    format!(
                        " (the values seen span [{lowest:e}, {best:e}], more than the model can \
                         standardise: rescale the objective)"
                    )
                } else {
                    String::new()
                };
                return Err(format!("round {}: {e}{why}", rounds.len() + 1));
            }
        };
        let u: [f64; D] = core::array::from_fn(|l| decision.values[l].unwrap_or(0.5));
        let (y, c) = evaluate(objective, run.cost, &u)
            .map_err(|e| format!("round {}: {e}", rounds.len() + 1))?;
        ctl.observe(&u, y, c)
            .map_err(|e| format!("round {}: {e}", rounds.len() + 1))?;
        best = best.max(y);
        lowest = lowest.min(y);
        rounds.push(BoxRound {
            spent: ctl.spent(),
            y,
            best,
            decide_seconds,
        });
        if let (Some(watch), Some(round)) = (watch, rounds.last()) {
            watch(rounds.len(), round);
        }
    }
    Ok(BoxTrace {
        initial_best,
        rounds,
        model_full,
    })
}

/// CPU time of this thread, in seconds (what the paper's runtime study measures).
fn cpu_seconds() -> f64 {
    cpu_time::ThreadTime::now().as_duration().as_secs_f64()
}
