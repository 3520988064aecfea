//! The core's CoCa-BO controller ([`costbo_core::causal`]) played on the environments of
//! [`envs`](super::envs): arms from the graph's POMPS (or CoBO's single scope), the SCM drawn
//! in topological order with the controller asked for the action once the arm's contexts have
//! been drawn, and the immediate pseudo-regret `E_{π*}[Y] − y_t` (sign flipped for a minimised
//! target) against the environment's optimum.
//!
//! The values drawn so far (NaN where not yet drawn, indexed by graph node) are exactly the
//! contexts slice the controller reads, so an arm whose context comes after its action in the
//! SCM (`docs/notes/seed-004.md`'s pitfall 6) is refused with `ContextMissing` rather than fed a guess.
//!
//! The controller maximises; a minimised target is negated before it is told.

use costbo_core::causal::{
    ActionRule, ArmFit, ArmModel, ArmRule, ArmTable as CoreTable, CausalController, CausalError,
    CausalSettings, Schedule,
};
use costbo_core::gp::{Gp, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::real::Real;
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::envs::Environment;
use super::graph::CausalGraph;
use super::nodeset::NodeSet;
use super::pomps::{group_into_arms, pomps, PompsOptions};
use super::scm::Rng;

/// The most arms a run holds.
pub const MAX_ARMS: usize = 4;
/// The most GP inputs (actions plus contexts) of an arm: enough for PSA, Fig. 1, A.2 and the
/// POMPS arms of A.3 (3 and 2). Every run whose arms fit plays this instantiation.
pub const MAX_INPUTS: usize = 4;
/// The inputs of the one-arm instantiation for CoBO on A.3: its 29 actions and 57 contexts
/// (of which it reads 55, see [`Environment::cobo_measured_first`]).
pub const LARGE_INPUTS: usize = 86;
/// The inputs of the several-arm instantiation for CaBO on A.3, whose context-free POMIS arms
/// set up to 28 actions.
pub const MEDIUM_INPUTS: usize = 32;
/// Observations per arm (the paper's 700 rounds need 700 for a dominant arm).
pub const CAPACITY: usize = 704;

/// Mixed into the seed of the controller's generator: the SCM's stream is xoshiro256++ from
/// the run's seed too, and the same stream would make the random baseline's actions copies of
/// the SCM's noise (on Fig. 1, `X2 = U2`-like choices and a negative regret).
const CONTROLLER_SEED: u64 = 0x0c0c_ab0c_0004_0004;

/// The GP model behind every arm of a run: Fig. 7's "backend" ablation. The paper swaps
/// whole libraries (HEBO, BoTorch, GPflow); here one GP implementation changes its kernel or
/// its precision, everything else (arms, rules, schedules, lengthscales, draws) the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// Squared-exponential kernel, f64 (every other cell of the study).
    #[default]
    SquaredExponential,
    /// Matérn-5/2 kernel with the same lengthscales, f64.
    Matern52,
    /// Squared-exponential kernel on the f32 core (the microcontroller's precision): the
    /// controller, its GPs and its schedules in f32; the SCM stays f64.
    F32,
    /// Squared-exponential kernel, f64, each arm's hyperparameters fitted to its own data
    /// (the core's [`ArmModel::Fitted`] with [`FITTED`]): ARD lengthscales, outputscale,
    /// constant mean and noise by MAP with BoTorch's priors on the arm's standardised problem,
    /// the model built from the fixed model's values and fitted from its second play on.
    Fitted,
}

/// The fitted model's schedule and budget ([`Backend::Fitted`]): a fit after every play up
/// to the 4th, then each 50 % more plays (15 fits in 700 plays), 200 likelihood evaluations
/// each, the noise variance at least 1e-6 (far below every environment's outcome noise, so
/// the data decide it).
pub const FITTED: ArmFit<f64> = ArmFit {
    every: 1,
    spacing: 2,
    noise_floor: 1e-6,
    evaluations: 200,
};

impl Backend {
    /// Fig. 7's ablation: the fixed model's kernel and precision variants, the default first.
    pub const ABLATION: [Backend; 3] =
        [Backend::SquaredExponential, Backend::Matern52, Backend::F32];

    /// The model's key: `se`, `matern52`, `f32`, `fitted` (the examples' argument, the
    /// study's finals file).
    pub fn key(self) -> &'static str {
        match self {
            Backend::SquaredExponential => "se",
            Backend::Matern52 => "matern52",
            Backend::F32 => "f32",
            Backend::Fitted => "fitted",
        }
    }

    /// The model whose [`key`](Self::key) is `key`.
    pub fn from_key(key: &str) -> Option<Backend> {
        Some(match key {
            "se" => Backend::SquaredExponential,
            "matern52" => Backend::Matern52,
            "f32" => Backend::F32,
            "fitted" => Backend::Fitted,
            _ => return None,
        })
    }

    /// A short name for a report.
    pub fn name(self) -> &'static str {
        match self {
            Backend::SquaredExponential => "SE, f64",
            Backend::Matern52 => "Matérn-5/2, f64",
            Backend::F32 => "SE, f32",
            Backend::Fitted => "SE, f64, fitted per arm",
        }
    }
}

/// Which method plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// CoCa-BO: the POMPS arms, Algorithm 2, GP-UCB.
    CocaBo,
    /// CoCa-BO with the public code's arm rule (UCB1 on outcomes).
    CocaBoUcb1,
    /// CoBO: one arm setting every intervenable variable given every context.
    CoBo,
    /// CaBO: context-free arms, one per non-empty POMIS of the latent projection onto the
    /// intervenable variables, the arm with the best maximised acquisition each round.
    CaBo,
    /// The POMPS arm of the environment's optimum, always (isolates the action regret).
    Oracle,
    /// A uniformly random POMPS arm and action.
    Random,
    /// Fig. 7's ablation: CoCa-BO with the contexts deleted from every POMPS arm (the same
    /// actions, bandit and action rule; each arm's GP sees only its actions).
    CocaBoNoContext,
}

impl Method {
    /// The method's short key (`cocabo`, `cocabo-ucb1`, `cobo`, `cabo`, `oracle`, `random`,
    /// `cocabo-no-context`): its study directories' names, and what the examples take.
    pub fn key(self) -> &'static str {
        match self {
            Method::CocaBo => "cocabo",
            Method::CocaBoUcb1 => "cocabo-ucb1",
            Method::CoBo => "cobo",
            Method::CaBo => "cabo",
            Method::Oracle => "oracle",
            Method::Random => "random",
            Method::CocaBoNoContext => "cocabo-no-context",
        }
    }

    /// The method whose [`key`](Self::key) is `key`.
    pub fn from_key(key: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.key() == key)
    }

    /// All methods, in report order.
    pub const ALL: [Method; 7] = [
        Method::CocaBo,
        Method::CocaBoUcb1,
        Method::CoBo,
        Method::CaBo,
        Method::Oracle,
        Method::Random,
        Method::CocaBoNoContext,
    ];

    /// The report's name.
    pub fn name(self) -> &'static str {
        match self {
            Method::CocaBo => "CoCa-BO (Algorithm 2)",
            Method::CocaBoUcb1 => "CoCa-BO (UCB1 on y, public code)",
            Method::CoBo => "CoBO",
            Method::CaBo => "CaBO (POMIS, best acquisition)",
            Method::Oracle => "oracle arm",
            Method::Random => "random arm and action",
            Method::CocaBoNoContext => "CoCa-BO with the contexts removed (Fig. 7)",
        }
    }
}

/// Settings of a run.
#[derive(Clone, Copy, Debug)]
pub struct BanditOptions {
    /// Rounds (at most [`CAPACITY`] per arm).
    pub rounds: usize,
    /// Seed of the SCM's draws and of the controller's generator.
    pub seed: u64,
    /// β(n); default HEBO's `(2 + D/2) ln n + ln(π²/0.01)`.
    pub beta: Schedule<f64>,
    /// ρ(n); default the constant 1 (the paper gives no value: a benchmark hyperparameter).
    pub rho: Schedule<f64>,
    /// Each lengthscale as a fraction of its variable's box (default 0.25).
    pub lengthscale_fraction: f64,
    /// The kernel's output scale, in squared target units (default 1).
    pub outputscale: f64,
    /// The observation noise variance (default 0.1: Fig. 1's `U2·X2` term has variance ≤ 1/9
    /// under π*).
    pub noise: f64,
    /// Monte Carlo draws for optima without a closed form.
    pub optimum_samples: u64,
    /// Standard deviation of extra Gaussian noise added to the outcome the controller is told
    /// (not to the recorded outcome or regret): the noise sweep of Fig. 5 measures how noisy
    /// feedback slows learning, so the regret stays that of the noise-free SCM draw.
    pub extra_noise_sd: f64,
    /// The arms' GP model (default: SE in f64).
    pub backend: Backend,
}

impl Default for BanditOptions {
    fn default() -> Self {
        BanditOptions {
            rounds: 100,
            seed: 0,
            beta: Schedule::Hebo { delta: 0.01 },
            rho: Schedule::Constant(1.0),
            lengthscale_fraction: 0.25,
            outputscale: 1.0,
            noise: 0.1,
            optimum_samples: 100_000,
            extra_noise_sd: 0.0,
            backend: Backend::default(),
        }
    }
}

/// One arm of a run, by graph node.
#[derive(Clone, Debug, PartialEq)]
pub struct RunArm {
    /// Action nodes.
    pub actions: Vec<usize>,
    /// Context nodes.
    pub contexts: Vec<usize>,
    /// `(X1, X2; C)`-style label.
    pub label: String,
}

/// What a run did, round by round.
#[derive(Clone, Debug)]
pub struct Trace {
    /// The arms.
    pub arms: Vec<RunArm>,
    /// The optimum `E_{π*}[Y]` the regret is measured against.
    pub optimum: f64,
    /// Arm per round.
    pub chosen: Vec<usize>,
    /// Target value per round (its own units and sign).
    pub outcomes: Vec<f64>,
    /// Immediate pseudo-regret per round.
    pub regret: Vec<f64>,
    /// The UCB value of each decision (of the negated target when minimising).
    pub ucb: Vec<f64>,
    /// β used per round.
    pub beta: Vec<f64>,
    /// The posterior standard deviation at each decision (the UCB is the posterior mean plus
    /// `√β` times it).
    pub std: Vec<f64>,
    /// ρ used per round.
    pub rho: Vec<f64>,
    /// Wall-clock seconds of each round (the controller's choices and update, and the SCM
    /// draw).
    pub seconds: Vec<f64>,
    /// Each arm's model after the last round: its inputs' lengthscales, outputscale, noise
    /// variance and constant mean (the fixed model's as built; the fitted model's last fit).
    pub models: Vec<ArmModelSummary>,
}

/// An arm's GP hyperparameters (see [`Trace::models`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ArmModelSummary {
    /// The lengthscale of each of the arm's inputs (actions, then contexts).
    pub lengthscales: Vec<f64>,
    /// The outputscale.
    pub outputscale: f64,
    /// The noise variance.
    pub noise: f64,
    /// The constant prior mean.
    pub mean: f64,
}

impl Trace {
    /// The time-normalised cumulative regret `(1/t) Σ_{s ≤ t} r̂_s` per round.
    pub fn normalised_regret(&self) -> Vec<f64> {
        let mut sum = 0.0;
        self.regret
            .iter()
            .enumerate()
            .map(|(t, r)| {
                sum += r;
                sum / (t + 1) as f64
            })
            .collect()
    }

    /// The fraction of rounds each arm was played.
    pub fn frequencies(&self) -> Vec<f64> {
        let mut f = vec![0.0; self.arms.len()];
        for &a in &self.chosen {
            f[a] += 1.0 / self.chosen.len().max(1) as f64;
        }
        f
    }
}

/// The arms of `g`'s POMPS, by node.
pub fn pomps_arms(g: &CausalGraph) -> Result<Vec<RunArm>, String> {
    let p = pomps(g, PompsOptions::default()).map_err(|e| format!("{e}"))?;
    Ok(group_into_arms(&p.scopes)
        .iter()
        .map(|a| arm(g, a.actions, a.contexts))
        .collect())
}

/// Fig. 7's arms: the POMPS arms with their contexts deleted, in the same order (two arms that
/// differed only in their contexts become two identical arms, as deleting the contexts from
/// the paper's scopes leaves them).
pub fn context_free_pomps_arms(g: &CausalGraph) -> Result<Vec<RunArm>, String> {
    let p = pomps(g, PompsOptions::default()).map_err(|e| format!("{e}"))?;
    Ok(group_into_arms(&p.scopes)
        .iter()
        .map(|a| arm(g, a.actions, NodeSet::EMPTY))
        .collect())
}

/// CaBO's arms: one context-free arm per non-empty POMIS (`docs/notes/seed-004.md` §4.8: the empty set dropped, as
/// in the paper's code).
pub fn cabo_arms(g: &CausalGraph) -> Result<Vec<RunArm>, String> {
    Ok(super::pomis::pomis(g)?
        .into_iter()
        .filter(|x| !x.is_empty())
        .map(|x| arm(g, x, NodeSet::EMPTY))
        .collect())
}

/// CoBO's single arm: every intervenable variable given every context.
pub fn cobo_arm(g: &CausalGraph) -> RunArm {
    arm(g, g.intervenable(), g.contexts())
}

fn arm(g: &CausalGraph, actions: NodeSet, contexts: NodeSet) -> RunArm {
    let names = |s: NodeSet| g.names_of(s).join(", ");
    RunArm {
        actions: actions.iter().collect(),
        contexts: contexts.iter().collect(),
        label: format!("({}; {})", names(actions), names(contexts)),
    }
}

/// CoBO's single arm given only the contexts that can be measured before acting: every
/// intervenable variable, and every context that is not a descendant of one.
pub fn cobo_arm_measured_first(g: &CausalGraph) -> RunArm {
    let downstream = g.admg().descendants(g.intervenable());
    arm(g, g.intervenable(), g.contexts().minus(downstream))
}

/// The arms of a hand-written table (`[[arm]]` entries; boxes come from the graph).
pub fn table_arms(g: &CausalGraph, toml: &str) -> Result<Vec<RunArm>, String> {
    let t = super::arms::ArmTable::from_toml(toml).map_err(|e| format!("{e}"))?;
    t.check_against(g).map_err(|e| format!("{e}"))?;
    let nodes = |vars: &[(String, Option<(f64, f64)>)]| -> Result<NodeSet, String> {
        g.nodes_of(&vars.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>())
    };
    t.arms
        .iter()
        .map(|a| Ok(arm(g, nodes(&a.actions)?, nodes(&a.contexts)?)))
        .collect()
}

/// The POMPS arms of an environment: its hand-written table if it has one (A.3), else the
/// graph's enumeration.
pub fn environment_arms(env: &Environment, g: &CausalGraph) -> Result<Vec<RunArm>, String> {
    match env.arms_toml {
        Some(t) => table_arms(g, t),
        None => pomps_arms(g),
    }
}

/// The arms `method` plays on `env`.
pub fn method_arms(
    env: &Environment,
    g: &CausalGraph,
    method: Method,
) -> Result<Vec<RunArm>, String> {
    Ok(match method {
        Method::CoBo if env.cobo_measured_first => vec![cobo_arm_measured_first(g)],
        Method::CoBo => vec![cobo_arm(g)],
        Method::CaBo => cabo_arms(g)?,
        Method::CocaBoNoContext => environment_arms(env, g)?
            .into_iter()
            .map(|a| arm(g, NodeSet::from_nodes(a.actions), NodeSet::EMPTY))
            .collect(),
        _ => environment_arms(env, g)?,
    })
}

/// The core's table for `arms`, with the graph's boxes.
fn core_table<R: Real, const A: usize, const D: usize>(
    g: &CausalGraph,
    arms: &[RunArm],
) -> Result<CoreTable<R, A, D>, String> {
    let mut t = CoreTable::new();
    let boxed = |nodes: &[usize]| -> Result<Vec<(usize, R, R)>, String> {
        nodes
            .iter()
            .map(|&v| {
                let (lo, hi) = g
                    .bounds(v)
                    .ok_or_else(|| format!("{} has no bounds in the graph file", g.name(v)))?;
                Ok((v, R::from_f64(lo), R::from_f64(hi)))
            })
            .collect()
    };
    for a in arms {
        t.push(&boxed(&a.actions)?, &boxed(&a.contexts)?)
            .map_err(|e| format!("arm {}: {e}", a.label))?;
    }
    Ok(t)
}

fn gp_for<R: Real, const A: usize, const D: usize>(
    table: &CoreTable<R, A, D>,
    i: usize,
    o: &BanditOptions,
) -> Result<Gp<R, CAPACITY, D, Vec<R>>, String> {
    let mut ls = [R::ONE; D];
    if let Some(a) = table.get(i) {
        for (l, v) in ls.iter_mut().enumerate().take(a.inputs()) {
            let w = a.upper()[l] - a.lower()[l];
            *v = if w > R::ZERO {
                R::from_f64(o.lengthscale_fraction) * w
            } else {
                R::ONE
            };
        }
    }
    let scale = R::from_f64(o.outputscale);
    let kernel = match o.backend {
        Backend::Matern52 => Kernel::matern52(ls, scale),
        Backend::SquaredExponential | Backend::F32 | Backend::Fitted => {
            Kernel::squared_exponential(ls, scale)
        }
    }
    .map_err(|e| format!("{e}"))?;
    Gp::new(
        kernel,
        R::ZERO,
        R::from_f64(o.noise),
        WhenFull::Reject,
        vec![R::ZERO; tri_len(CAPACITY)],
    )
    .map_err(|e| format!("{e}"))
}

fn schedule<R: Real>(s: Schedule<f64>) -> Schedule<R> {
    match s {
        Schedule::Constant(c) => Schedule::Constant(R::from_f64(c)),
        Schedule::Logarithmic { scale, offset } => Schedule::Logarithmic {
            scale: R::from_f64(scale),
            offset: R::from_f64(offset),
        },
        Schedule::Hebo { delta } => Schedule::Hebo {
            delta: R::from_f64(delta),
        },
        Schedule::Theorem1 { a1, delta } => Schedule::Theorem1 {
            a1: R::from_f64(a1),
            delta: R::from_f64(delta),
        },
    }
}

/// Runs `method` on `env` (see the module docs). Arms with at most [`MAX_INPUTS`] inputs play
/// the `MAX_ARMS × MAX_INPUTS` controller; arms of up to [`MEDIUM_INPUTS`] (CaBO on A.3) the
/// `MAX_ARMS × MEDIUM_INPUTS` one in f64; a single larger arm (CoBO on A.3) plays a one-arm
/// controller with [`LARGE_INPUTS`] inputs. `o.backend` picks the model and precision.
pub fn run(env: &Environment, method: Method, o: &BanditOptions) -> Result<Trace, String> {
    let g = env.graph();
    let arms = method_arms(env, &g, method)?;
    let inputs = arms
        .iter()
        .map(|a| a.actions.len() + a.contexts.len())
        .max()
        .unwrap_or(0);
    let f32 = o.backend == Backend::F32;
    if inputs <= MAX_INPUTS {
        if f32 {
            run_with::<f32, MAX_ARMS, MAX_INPUTS>(env, &g, method, arms, o)
        } else {
            run_with::<f64, MAX_ARMS, MAX_INPUTS>(env, &g, method, arms, o)
        }
    } else if arms.len() <= MAX_ARMS && inputs <= MEDIUM_INPUTS && !f32 {
        run_with::<f64, MAX_ARMS, MEDIUM_INPUTS>(env, &g, method, arms, o)
    } else if arms.len() == 1 && inputs <= LARGE_INPUTS {
        if f32 {
            run_with::<f32, 1, LARGE_INPUTS>(env, &g, method, arms, o)
        } else {
            run_with::<f64, 1, LARGE_INPUTS>(env, &g, method, arms, o)
        }
    } else {
        Err(format!(
            "{} arms with up to {inputs} inputs; at most {MAX_INPUTS} inputs per arm, \
             {MEDIUM_INPUTS} in f64, or one arm of at most {LARGE_INPUTS}",
            arms.len()
        ))
    }
}

fn run_with<R: Real, const A: usize, const D: usize>(
    env: &Environment,
    g: &CausalGraph,
    method: Method,
    arms: Vec<RunArm>,
    o: &BanditOptions,
) -> Result<Trace, String> {
    let (optimum, _) = env.best(o.optimum_samples, o.seed ^ 0x5eed);
    if arms.len() > A {
        return Err(format!("{} arms; at most {A}", arms.len()));
    }
    let table = core_table::<R, A, D>(g, &arms)?;
    // Context boxes by node, for environments whose contexts are clamped to them.
    let mut context_box: Vec<Option<(f64, f64)>> = vec![None; g.names().len()];
    if env.clamp_contexts {
        for a in &arms {
            for &c in &a.contexts {
                context_box[c] = g.bounds(c);
            }
        }
    }
    let arm_rule = match method {
        Method::CocaBo | Method::CocaBoNoContext => ArmRule::Algorithm2,
        Method::CocaBoUcb1 => ArmRule::Ucb1Rewards { scale: R::ONE },
        Method::CoBo => ArmRule::Fixed(0),
        Method::CaBo => ArmRule::BestAcquisition,
        Method::Random => ArmRule::Random,
        Method::Oracle => ArmRule::Fixed(oracle_arm(env, g, &arms, o)?),
    };
    let settings = CausalSettings {
        arm_rule,
        action_rule: if method == Method::Random {
            ActionRule::Uniform
        } else {
            ActionRule::Ucb
        },
        model: if o.backend == Backend::Fitted {
            ArmModel::Fitted(ArmFit {
                every: FITTED.every,
                spacing: FITTED.spacing,
                noise_floor: R::from_f64(FITTED.noise_floor),
                evaluations: FITTED.evaluations,
            })
        } else {
            ArmModel::Fixed
        },
        ..CausalSettings::algorithm2(schedule::<R>(o.beta), schedule::<R>(o.rho))
    };
    let mut gps = Vec::with_capacity(A);
    for i in 0..A {
        gps.push(gp_for(&table, i, o)?);
    }
    let gps: [_; A] = gps.try_into().map_err(|_| "arm count")?;
    let mut ctl: Box<CausalController<R, A, CAPACITY, D, Vec<R>, Xoshiro256PlusPlus>> = Box::new(
        CausalController::new(
            table,
            gps,
            settings,
            Xoshiro256PlusPlus::seed_from_u64(o.seed ^ CONTROLLER_SEED),
        )
        .map_err(|e| format!("{e}"))?,
    );
    let mut rng = Rng::new(o.seed);
    // A separate stream, so that the SCM's draws are the same at every noise level.
    let mut feedback_noise = Rng::new(o.seed ^ 0xfeed_0004);
    let target = g.target();
    let mut trace = Trace {
        arms,
        optimum,
        chosen: vec![],
        outcomes: vec![],
        regret: vec![],
        ucb: vec![],
        beta: vec![],
        std: vec![],
        rho: vec![],
        seconds: vec![],
        models: vec![],
    };
    let mut contexts: Vec<R> = Vec::with_capacity(g.names().len());
    for t in 0..o.rounds {
        let started = std::time::Instant::now();
        let choice = ctl.next_arm().map_err(|e| format!("round {t}: {e}"))?;
        let a = &trace.arms[choice.arm];
        let intervened = NodeSet::from_nodes(a.actions.iter().copied());
        let mut decided: Option<Result<_, CausalError>> = None;
        if a.actions.is_empty() {
            decided = Some(ctl.ask(&[]));
        }
        let values = (env.sample)(&mut rng, intervened, &mut |node, drawn| {
            let d = decided.get_or_insert_with(|| {
                // The values drawn so far are the contexts (NaN: not drawn yet); for f64
                // without clamping this is a copy, so the decisions are those of the slice.
                contexts.clear();
                contexts.extend(drawn.iter().zip(&context_box).map(|(&v, b)| match b {
                    Some((lo, hi)) if v.is_finite() => R::from_f64(v.clamp(*lo, *hi)),
                    _ => R::from_f64(v),
                }));
                ctl.ask(&contexts)
            });
            match d {
                Ok(ask) => a
                    .actions
                    .iter()
                    .position(|&v| v == node)
                    .map_or(f64::NAN, |k| ask.action()[k].to_f64()),
                Err(_) => f64::NAN,
            }
        });
        let ask = decided
            .ok_or_else(|| format!("round {t}: the SCM never reached the arm's actions"))?
            .map_err(|e| format!("round {t}, arm {}: {e}", a.label))?;
        let y = values[target];
        let told = if o.extra_noise_sd > 0.0 {
            y + feedback_noise.normal(0.0, o.extra_noise_sd)
        } else {
            y
        };
        ctl.tell(R::from_f64(if env.minimise { -told } else { told }))
            .map_err(|e| format!("round {t}: {e}"))?;
        trace.chosen.push(choice.arm);
        trace.outcomes.push(y);
        trace.regret.push(if env.minimise {
            y - optimum
        } else {
            optimum - y
        });
        trace.ucb.push(ask.ucb.to_f64());
        trace.beta.push(ask.beta.to_f64());
        trace
            .std
            .push(ask.prediction.variance.max(R::ZERO).sqrt().to_f64());
        trace.rho.push(choice.rho.to_f64());
        trace.seconds.push(started.elapsed().as_secs_f64());
    }
    trace.models = (0..trace.arms.len())
        .filter_map(|i| {
            let gp = ctl.gp(i)?;
            let inputs = ctl.table().get(i)?.inputs();
            Some(ArmModelSummary {
                lengthscales: gp.kernel().lengthscales()[..inputs]
                    .iter()
                    .map(|l| l.to_f64())
                    .collect(),
                outputscale: gp.kernel().outputscale().to_f64(),
                noise: gp.noise().to_f64(),
                mean: gp.prior_mean().to_f64(),
            })
        })
        .collect();
    Ok(trace)
}

/// The POMPS arm whose scope is the environment's best.
fn oracle_arm(
    env: &Environment,
    g: &CausalGraph,
    arms: &[RunArm],
    o: &BanditOptions,
) -> Result<usize, String> {
    let optima = (env.optima)(o.optimum_samples, o.seed ^ 0x5eed);
    let (_, label) = env.best(o.optimum_samples, o.seed ^ 0x5eed);
    let best = optima
        .iter()
        .find(|x| x.label == label)
        .ok_or("no optimum entry")?;
    let node = |n: &str| g.node(n).ok_or_else(|| format!("unknown node {n}"));
    let mut actions = Vec::new();
    let mut contexts = Vec::new();
    for (x, cs) in &best.scope {
        actions.push(node(x)?);
        for c in cs {
            contexts.push(node(c)?);
        }
    }
    actions.sort_unstable();
    contexts.sort_unstable();
    contexts.dedup();
    arms.iter()
        .position(|a| {
            let (mut x, mut c) = (a.actions.clone(), a.contexts.clone());
            x.sort_unstable();
            c.sort_unstable();
            x == actions && c == contexts
        })
        .ok_or_else(|| format!("the optimum's scope ({label}) is not among the arms"))
}

#[cfg(test)]
mod tests {
    use super::super::envs::FIG1;
    use super::*;

    #[test]
    fn fig1_pomps_arms_and_cobo() {
        let g = FIG1.graph();
        let arms = pomps_arms(&g).unwrap();
        let labels: Vec<&str> = arms.iter().map(|a| a.label.as_str()).collect();
        assert_eq!(labels, ["(X1; C)", "(X2; C)"]);
        assert_eq!(cobo_arm(&g).label, "(X1, X2; C)");
    }

    #[test]
    fn fig1_runs_with_round_robin_and_finite_regret() {
        let o = BanditOptions {
            rounds: 40,
            optimum_samples: 1000,
            ..BanditOptions::default()
        };
        let tr = run(&FIG1, Method::CocaBo, &o).unwrap();
        assert_eq!(&tr.chosen[..2], &[0, 1]);
        assert!((tr.optimum - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(tr.regret.len(), 40);
        assert!(tr.regret.iter().chain(&tr.ucb).all(|v| v.is_finite()));
        // The regret is E_π*[Y] − y with the realised (noisy) outcome.
        for (r, y) in tr.regret.iter().zip(&tr.outcomes) {
            assert!((r - (tr.optimum - y)).abs() < 1e-12);
        }
        let oracle = run(&FIG1, Method::Oracle, &o).unwrap();
        assert!(
            oracle.chosen.iter().all(|&a| a == 0),
            "the oracle plays (X1; C)"
        );
        let cobo = run(&FIG1, Method::CoBo, &o).unwrap();
        assert_eq!(cobo.arms.len(), 1);
        let random = run(&FIG1, Method::Random, &o).unwrap();
        assert!(random.chosen.contains(&0) && random.chosen.contains(&1));
    }

    #[test]
    fn random_baseline_is_independent_of_the_scm_noise() {
        // Uniform actions cannot beat π* in expectation: with the controller's generator on
        // the SCM's stream they did (mean regret −0.07 over 30 seeds × 60 rounds).
        let mut sum = 0.0;
        for seed in 0..20 {
            let o = BanditOptions {
                rounds: 50,
                seed,
                optimum_samples: 1000,
                ..BanditOptions::default()
            };
            let tr = run(&FIG1, Method::Random, &o).unwrap();
            sum += tr.regret.iter().sum::<f64>() / 1000.0;
        }
        // E[regret] ≈ 1/3 − ½·(1/3)·E[e^{−(x+c)²}] ≈ 0.23 per round; s.e. of this mean ≈ 0.03.
        assert!(sum > 0.1, "mean regret {sum}");
    }

    #[test]
    fn backends_pick_the_kernel_and_precision() {
        use super::super::envs::A2;
        use costbo_core::kernel::Shape;
        let g = A2.graph();
        let arms = method_arms(&A2, &g, Method::CocaBo).unwrap();
        for (backend, shape) in [
            (Backend::SquaredExponential, Shape::SquaredExponential),
            (Backend::Matern52, Shape::Matern52),
            (Backend::F32, Shape::SquaredExponential),
        ] {
            let o = BanditOptions {
                backend,
                ..BanditOptions::default()
            };
            let t64 = core_table::<f64, MAX_ARMS, MAX_INPUTS>(&g, &arms).unwrap();
            let gp = gp_for(&t64, 0, &o).unwrap();
            assert_eq!(gp.kernel().shape(), shape);
            // A quarter of the box [−2, 2] for the action X1 and the context C; unused inputs 1.
            assert_eq!(gp.kernel().lengthscales(), &[1.0, 1.0, 1.0, 1.0]);
            let t32 = core_table::<f32, MAX_ARMS, MAX_INPUTS>(&g, &arms).unwrap();
            let gp = gp_for(&t32, 1, &o).unwrap();
            assert_eq!(gp.kernel().shape(), shape);
            assert_eq!(gp.noise(), 0.1f32);
        }
    }

    #[test]
    fn f32_core_tracks_the_f64_core_on_a2() {
        use super::super::envs::A2;
        // Same draws, same rules: the f32 controller's first decisions are the f64 one's to
        // f32 precision (before rounding differences can flip an argmax).
        let o = BanditOptions {
            rounds: 6,
            seed: 5,
            optimum_samples: 1000,
            ..BanditOptions::default()
        };
        let a = run(&A2, Method::CocaBo, &o).unwrap();
        let b = run(
            &A2,
            Method::CocaBo,
            &BanditOptions {
                backend: Backend::F32,
                ..o
            },
        )
        .unwrap();
        assert_eq!(a.chosen, b.chosen);
        for (x, y) in a.ucb.iter().zip(&b.ucb) {
            assert!((x - y).abs() <= 1e-3 * x.abs().max(1.0), "{x} vs {y}");
        }
        for (x, y) in a.outcomes.iter().zip(&b.outcomes) {
            assert!((x - y).abs() <= 1e-3, "{x} vs {y}");
        }
        // Matérn-5/2 is a different model: the same protocol, finite values.
        let m = run(
            &A2,
            Method::CocaBo,
            &BanditOptions {
                backend: Backend::Matern52,
                ..o
            },
        )
        .unwrap();
        assert_eq!(&m.chosen[..2], &[0, 1]);
        assert!(m.ucb.iter().chain(&m.regret).all(|v| v.is_finite()));
    }
}
