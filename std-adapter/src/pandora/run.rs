//! One run of a rule on an objective over `[0, 1]^d` (see the module documentation of
//! [`crate::pandora`]).

use costbo_core::dist::{Distribution, Uniform};
use costbo_core::driver::{
    BudgetRule, Controller, ControllerSpec, DriverError, Refit, Settings, Step,
};
use costbo_core::gp::{Gp, WhenFull};
use costbo_core::inner::RestartConfig;
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::policy::{AnyPolicy, Maximiser, PolicySpec, RuleDefaults};
use costbo_core::problem::{ControlSet, CostFunction, Costs, Problem, Variable};
use costbo_core::qmc::Sobol;

use crate::objectives::Objective;

/// The dimensions a run can have (the controller's dimension is a compile-time constant).
pub const BOX_DIMS: &[usize] = &[1, 2, 4, 8, 16];

/// Most observations of a run, initial design included.
pub const CAPACITY: usize = 1024;

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
}

impl BoxCost {
    /// The cost at `u`.
    pub fn at(&self, u: &[f64]) -> f64 {
        match self {
            BoxCost::Uniform => 1.0,
            BoxCost::MeanLinear | BoxCost::MeanLinearLearned => {
                1.0 + 20.0 * u.iter().sum::<f64>() / u.len() as f64
            }
        }
    }

    /// Its name in reports and on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            BoxCost::Uniform => "uniform",
            BoxCost::MeanLinear => "linear",
            BoxCost::MeanLinearLearned => "linear-learned",
        }
    }

    /// The cost called `name`.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "uniform" => Ok(BoxCost::Uniform),
            "linear" => Ok(BoxCost::MeanLinear),
            "linear-learned" => Ok(BoxCost::MeanLinearLearned),
            other => Err(format!(
                "unknown cost `{other}` (known: uniform, linear, linear-learned)"
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
    /// Matérn-5/2 with the objective's own isotropic lengthscale and unit outputscale, never
    /// refitted, zero mean, noise 1e-4 (paper 002's Bayesian-regret study).
    Fixed {
        /// Lengthscale.
        lengthscale: f64,
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
}

/// The initial design's size for dimension `d`: `2(d + 1)`.
pub fn initial_points(d: usize) -> usize {
    2 * (d + 1)
}

/// Runs `run` on `objective`; the rounds after the initial design. Errors name what failed.
pub fn run_box(objective: &dyn Objective, run: &BoxRun) -> Result<BoxTrace, String> {
    macro_rules! dispatch {
        ($($d:literal),*) => {
            match objective.dim() {
                $($d => run_dim::<$d>(objective, run),)*
                d => Err(format!(
                    "dimension {d} is not compiled in (supported: {BOX_DIMS:?})"
                )),
            }
        };
    }
    dispatch!(1, 2, 4, 8, 16)
}

/// `c(u) = 1 + 20·mean(u)` and its gradient, as the problem's known cost.
fn mean_linear<const D: usize>(_: usize, x: &[f64; D]) -> (f64, [f64; D]) {
    let n = D as f64;
    (1.0 + 20.0 * x.iter().sum::<f64>() / n, [20.0 / n; D])
}

type Pol<const D: usize> = AnyPolicy<f64, D, 1, FEATURES, 1>;
type Plain<const D: usize> = Controller<f64, CAPACITY, D, 1, Vec<f64>, Vec<[f64; D]>, Pol<D>>;
type Learned<const D: usize> = Controller<
    f64,
    CAPACITY,
    D,
    1,
    Vec<f64>,
    Vec<[f64; D]>,
    Pol<D>,
    Gp<f64, CAPACITY, D, Vec<f64>>,
>;

/// The controller of a run, with or without a cost model.
enum Either<const D: usize> {
    Plain(Box<Plain<D>>),
    Learned(Box<Learned<D>>),
}

macro_rules! on_either {
    ($c:expr, $ctl:ident => $body:expr) => {
        match $c {
            Either::Plain($ctl) => $body,
            Either::Learned($ctl) => $body,
        }
    };
}

fn run_dim<const D: usize>(objective: &dyn Objective, run: &BoxRun) -> Result<BoxTrace, String> {
    let v = Variable {
        lower: 0.0,
        upper: 1.0,
        uncontrolled: Distribution::Uniform(Uniform::new(0.0, 1.0).map_err(|e| format!("{e:?}"))?),
    };
    let problem = Problem::new(&[v; D], &[ControlSet::full(D)], Some(&[1.0]))
        .map_err(|e| format!("problem: {e:?}"))?;
    let problem = match run.cost {
        BoxCost::Uniform => Ok(problem),
        BoxCost::MeanLinear => problem.with_costs(Costs::Function(CostFunction(mean_linear::<D>))),
        BoxCost::MeanLinearLearned => problem.with_costs(Costs::Unknown),
    }
    .map_err(|e| format!("problem: {e:?}"))?;
    let maximiser = if run.paper_optimiser {
        Maximiser::Restarts(RestartConfig::paper_002(D))
    } else {
        Maximiser::Pool
    };
    let policy = PolicySpec::parse(&run.rule, &RuleDefaults::new(0.0).with_maximiser(maximiser))
        .map_err(|e| format!("rule `{}`: {e:?}", run.rule))?;
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
        BoxModel::Fixed { lengthscale } => (Kernel::matern52([lengthscale; D], 1.0), 0.0),
    };
    let spec = ControllerSpec {
        problem,
        kernel: kernel.map_err(|e| format!("kernel: {e:?}"))?,
        mean,
        noise: 1e-4,
        when_full: WhenFull::Reject,
        bank_seed: run.seed,
        settings,
        policy,
    };
    let plain: Plain<D> = spec
        .build(vec![0.0; tri_len(CAPACITY)], vec![[0.0; D]; 1])
        .map_err(|e| format!("controller: {e:?}"))?;
    let mut ctl = match run.cost {
        BoxCost::MeanLinearLearned => Either::Learned(Box::new(
            plain
                .with_cost_model(
                    spec.model(vec![0.0; tri_len(CAPACITY)])
                        .map_err(|e| format!("cost model: {e:?}"))?,
                )
                .map_err(|e| format!("cost model: {e:?}"))?,
        )),
        _ => Either::Plain(Box::new(plain)),
    };
    // The initial design: scrambled Sobol', seeded by the run.
    let mut sobol = Sobol::<D>::new(run.seed).map_err(|e| format!("sobol: {e:?}"))?;
    let mut best = f64::NEG_INFINITY;
    for _ in 0..initial_points(D) {
        let u: [f64; D] = sobol.next_point();
        let y = objective.eval(&u);
        best = best.max(y);
        let c = run.cost.at(&u);
        match &mut ctl {
            Either::Plain(c_) => c_.observe_initial(&u, y),
            Either::Learned(c_) => c_.observe_initial_with_cost(&u, y, c),
        }
        .map_err(|e| format!("initial design: {e:?}"))?;
    }
    let initial_best = best;
    let mut workspace = vec![0.0; on_either!(&ctl, c_ => c_.workspace_len())];
    let mut rounds = Vec::new();
    loop {
        let started = cpu_seconds();
        let step = on_either!(&mut ctl, c_ => c_.next(&[None; D], &mut workspace));
        let decide_seconds = cpu_seconds() - started;
        let decision = match step {
            Ok(Step::Play(d)) => d,
            Ok(Step::Stop) | Err(DriverError::BudgetExhausted) | Err(DriverError::Stopped) => break,
            Err(e) => return Err(format!("round {}: {e:?}", rounds.len() + 1)),
        };
        let u: [f64; D] = core::array::from_fn(|l| decision.values[l].unwrap_or(0.5));
        let y = objective.eval(&u);
        let c = run.cost.at(&u);
        on_either!(&mut ctl, c_ => c_.observe(&u, y, c))
            .map_err(|e| format!("round {}: {e:?}", rounds.len() + 1))?;
        best = best.max(y);
        rounds.push(BoxRound {
            spent: on_either!(&ctl, c_ => c_.spent()),
            y,
            best,
            decide_seconds,
        });
    }
    Ok(BoxTrace {
        initial_best,
        rounds,
    })
}

/// CPU time of this thread, in seconds (what the paper's runtime study measures).
fn cpu_seconds() -> f64 {
    cpu_time::ThreadTime::now().as_duration().as_secs_f64()
}
