//! Decision rules ("policies"): each round, turn acquisitions into a decision.
//!
//! A [`Policy`] is a small trait in the shape of smoltcp's congestion controllers: one required
//! hook, [`decide`](Policy::decide), and others that default to doing nothing
//! ([`start`](Policy::start), [`record`](Policy::record), the [`Memo`] of a decision for
//! replays, and the state saved in snapshots). The controller
//! ([`crate::driver::Controller`]) is generic over its policy and never branches on which rule
//! it runs: it validates, keeps the budget ledger, stores the pending decision and persists.
//!
//! A policy decides from a [`Round`]: the problem, the model, the sample bank, the settings,
//! the round number and seed, the budget spent, the contexts measured before deciding and a
//! workspace. It chooses which control sets need scoring, maximises acquisitions over them
//! ([`scoring`], [`crate::acquisition`], [`crate::inner`]) and returns a [`Choice`]: a control
//! set with its values (and whether to pay for this round's measurement), or to stop.
//!
//! One file per rule, each behind a cargo feature so that firmware links only the rules it
//! runs. A rule's file holds everything about it: the policy, its names in the registry
//! (`NAMES`), how a name becomes its parameters (`parse`), and the properties the callers ask of
//! it (whether it needs caller memory, learns costs, prices each point). The registry is one
//! table, `registry!` in this module's source, one line per rule: its feature, its module, its
//! parameters and its saved record; from it come the modules' declarations, [`RULES`],
//! [`PolicySpec`], [`AnyPolicy`] and its saved [`any::AnyRecord`], which only dispatch.
//! [`RULES`] lists every rule name of the build with what it is.
//!
//! A rule that needs state no other rule needs (ETC's counters, the unknown-cost rule's running
//! bounds, EI's query history, a second model) keeps it itself.

pub mod memo;
pub mod scoring;
pub mod select;

/// The registry: one entry per rule, in the order papers present them (the order of [`RULES`]
/// and of the saved records' variants, which a saved state names). An entry reads: the rule's
/// documentation, then in braces its cargo feature, its module, the variant of [`PolicySpec`]
/// and [`AnyPolicy`] with its parameters, the policy type built from them (by its `new`, the
/// parameters in order), and, for a rule with state of its own, the record it saves. Calls the
/// macro `$then` with the table (the braces let a macro that needs only the feature and the
/// module, `declare_modules`, take the rest of an entry as it comes).
macro_rules! registry {
    ($then:ident) => {
        $then! {
            /// UCB-CVS with an ε-schedule; `EpsilonSchedule::Constant(0)` is UCB-PSQ.
            { "policy-ucb-cvs" ucb_cvs
                UcbCvs(schedule: ucb_cvs::EpsilonSchedule<R>) => ucb_cvs::UcbCvs<R> }
            /// Explore-then-commit over cost groups.
            { "policy-explore-then-commit" explore_then_commit
                ExploreThenCommit(plays: explore_then_commit::PlaysPerGroup)
                => explore_then_commit::ExploreThenCommit<R, M>,
                record explore_then_commit::EtcRecord<R, M> }
            /// Unknown random costs.
            { "policy-unknown-cost" unknown_cost
                UnknownCost(config: unknown_cost::UnknownCostConfig<R>)
                => unknown_cost::UnknownCost<R, M>,
                record unknown_cost::UnknownCostRecord<R, M> }
            /// Thompson sampling over partial queries.
            { "policy-thompson" thompson_psq
                Thompson(selection: Selection) => thompson_psq::ThompsonPsq<F> }
            /// Expected improvement over partial queries.
            { "policy-ei" ei_psq
                Ei(selection: Selection) => ei_psq::EiPsq<R, D, F, H>,
                record ei_psq::EiRecord<R, D, H> }
            /// Expected UCB per unit cost.
            { "policy-per-unit-cost" per_unit_cost
                UcbPerUnitCost => per_unit_cost::UcbPerUnitCost }
            /// Uniform random search.
            { "policy-random-search" random_search
                RandomSearch => random_search::RandomSearch }
            /// Quasi-random search over the box.
            { "policy-sobol-search" sobol_search SobolSearch => sobol_search::SobolSearch }
            /// GP-UCB over the box.
            { "policy-gp-ucb" gp_ucb
                GpUcb(beta: gp_ucb::BetaSchedule<R>, maximiser: Maximiser) => gp_ucb::GpUcb<R> }
            /// A Pandora's Box Gittins index rule: `λ`, whether to stop by the Pandora rule.
            { "policy-pbgi" pbgi
                Pandora(lambda: pbgi::Lambda<R>, stop: bool, maximiser: Maximiser)
                => pbgi::PandoraIndex<R>,
                record pbgi::PandoraRecord<R> }
            /// The Gittins-index rule for control sets, with its `λ` schedule.
            { "policy-gittins-cvs" gittins_cvs
                GittinsCvs(lambda: pbgi::Lambda<R>) => gittins_cvs::GittinsCvs<R>,
                record gittins_cvs::GittinsCvsRecord<R> }
            /// A LogEI rule.
            { "policy-log-ei" log_ei
                LogEi(cost: log_ei::CostUse, maximiser: Maximiser) => log_ei::LogEi }
            /// An entropy rule (MES, MFMES): what the gain is weighed against.
            { "policy-mes" mes
                Mes(gain: mes::Gain, maximiser: Maximiser) => mes::MaxValueEntropySearch }
            /// The one-shot knowledge gradient, climbed by the maximiser's restarts.
            { "policy-kg" knowledge_gradient
                Kg(maximiser: Maximiser) => knowledge_gradient::KnowledgeGradientSearch }
            /// Multi-step lookahead EI (budgeted or not), climbed by the maximiser's restarts.
            { "policy-msei" multi_step
                Msei(budgeted: bool, maximiser: Maximiser) => multi_step::MultiStepLookahead }
            /// One of paper 002's App. D.1 ablation rules.
            { "policy-textbook" textbook
                Textbook(form: textbook::Form, maximiser: Maximiser) => textbook::TextbookRule }
        }
    };
}

/// Each rule's module, behind its feature (see `registry!`).
macro_rules! declare_modules {
    ($($(#[$doc:meta])* { $feature:literal $module:ident $($entry:tt)* })*) => {
        $(
            #[cfg(feature = $feature)]
            pub mod $module;
        )*
    };
}

registry!(declare_modules);

pub mod any;
pub mod names;

pub use any::{AnyPolicy, PolicySpec, RULES};
pub use memo::Memo;
pub use names::{PolicySpecError, RuleDefaults, RuleName, PAPERS_EPSILON};
pub use scoring::{
    chunk_size, factorised_len, score_each_set, score_full_set_first, score_sets, screening_len,
    set_seed, workspace_len, Maximiser,
};
pub use select::Selection;

pub use crate::round::{
    BudgetRule, Context, DriverError, Refit, Settings, DEFAULT_NOISE_FLOOR, DEFAULT_REFIT_EVERY,
    PAPER_001_ADAM_LEARNING_RATE, PAPER_001_ADAM_STEPS, PAPER_001_ALPHA, PAPER_001_EXPLORATION,
};

use crate::acquisition::cost::{KnownCost, LearnedCost, PointCost};
use crate::expectation::{Bound, SampleBank};
use crate::gp::Gp;
use crate::inner::InnerResult;
use crate::problem::{ControlSet, Costs, Problem};
use crate::real::Real;

/// Everything a policy decides from in one round.
#[derive(Debug)]
pub struct Round<'a, R, const N: usize, const D: usize, const M: usize, S, B> {
    /// The problem (variables, control sets, costs).
    pub problem: &'a Problem<R, D, M>,
    /// The model (inputs in unit coordinates).
    pub gp: &'a Gp<R, N, D, S>,
    /// The sample bank of the variables left to chance.
    pub bank: &'a SampleBank<R, D, B>,
    /// The controller's settings.
    pub settings: &'a Settings<R>,
    /// Rounds observed before this decision.
    pub number: usize,
    /// This round's seed (from the settings' seed and the round number): rules that draw at
    /// random seed a generator with it, so decisions are reproducible and a saved state needs
    /// no generator state.
    pub seed: u64,
    /// Budget spent so far.
    pub spent: R,
    /// Contexts measured before deciding, in unit coordinates.
    pub context: &'a Context<R, D>,
    /// The model of ln(cost) when costs are learned from what is paid (the controller's
    /// [`with_cost_model`](crate::driver::Controller::with_cost_model)).
    pub cost_model: Option<&'a Gp<R, N, D, S>>,
    /// Caller memory for the fast evaluators (may be empty).
    pub workspace: &'a mut [R],
}

impl<'a, R, const N: usize, const D: usize, const M: usize, S, B> Round<'a, R, N, D, M, S, B>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    /// [`score_sets`] of `bound` with this round's problem, model, bank, inner optimiser and
    /// workspace.
    pub fn score_bound(
        &mut self,
        bound: Bound<R>,
        seed: u64,
        out: &mut [Option<InnerResult<R, D>>],
        wanted: impl Fn(usize) -> bool,
    ) {
        score_sets(
            self.problem,
            self.gp,
            self.bank,
            bound,
            &self.settings.inner,
            seed,
            out,
            self.workspace,
            wanted,
        );
    }

    /// The best value observed so far (the model's outputs; −∞ before any).
    pub fn best_observed(&self) -> R {
        self.gp
            .outputs()
            .iter()
            .fold(-R::INFINITY, |m, &y| m.max(y))
    }

    /// The cost of the point of the set of every variable as the rules over a box charge it:
    /// the cost model's power mean of order `order` where the problem's costs are unknown
    /// (see [`LearnedCost`]), the problem's known cost
    /// otherwise.
    ///
    /// Errors: [`DriverError::RuleNeedsKnownCosts`] where costs are unknown and no cost model
    /// is learned; [`require_full_set`]'s where the problem has no set of every variable.
    pub fn box_cost(&self, order: R) -> Result<PointCost<'a, R, N, D, M, S>, DriverError> {
        match (self.problem.costs(), self.cost_model) {
            (Costs::Unknown, Some(model)) => Ok(PointCost::Learned(LearnedCost::new(model, order))),
            (Costs::Unknown, None) => Err(DriverError::RuleNeedsKnownCosts),
            _ => {
                let set = require_full_set(self.problem)?;
                Ok(PointCost::Known(KnownCost::new(self.problem, set)))
            }
        }
    }

    /// The play of the control set of every variable at the maximiser of `acquisition` by
    /// `maximiser` (with this round's inner budget, seed and workspace): the decision of a rule
    /// over a box.
    pub fn play_box<A: crate::acquisition::Acquisition<R, D>>(
        &mut self,
        maximiser: &Maximiser,
        acquisition: &mut A,
    ) -> Result<Play<R, D>, DriverError> {
        let set = require_full_set(self.problem)?;
        let control = self.problem.sets()[set];
        let best = maximiser.maximize(
            control,
            acquisition,
            &self.settings.inner,
            self.seed,
            self.workspace,
        )?;
        Ok(Play {
            set,
            x: best.x,
            score: best.value,
            measure: true,
        })
    }

    /// Each set's known cost, or 1 where costs are not known per set.
    pub fn set_costs(&self) -> [R; M] {
        core::array::from_fn(|i| self.problem.known_cost(i).unwrap_or(R::ONE))
    }

    /// The play of set `i` at the maximiser of its score.
    pub fn play(&self, i: usize, best: InnerResult<R, D>) -> Choice<R, D> {
        Choice::Play(Play {
            set: i,
            x: best.x,
            score: best.value,
            measure: true,
        })
    }
}

/// What a policy decided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Choice<R, const D: usize> {
    /// Play a control set at values.
    Play(Play<R, D>),
    /// Stop the run (a Pandora's-box stopping rule, paper 002).
    Stop,
}

/// A play: which control set, at which values, and whether to pay for the measurement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Play<R, const D: usize> {
    /// Index of the control set in the problem.
    pub set: usize,
    /// The values in unit coordinates (meaningful on the set's variables).
    pub x: [R; D],
    /// The acquisition value that won.
    pub score: R,
    /// Pay for this round's measurement (paper 003's costly feedback); `true` for every rule
    /// that always measures.
    pub measure: bool,
}

/// One observation as a policy sees it when it is recorded.
#[derive(Debug, Clone, Copy)]
pub struct Outcome<'a, R, const D: usize, const M: usize> {
    /// The problem.
    pub problem: &'a Problem<R, D, M>,
    /// Index of the control set played; `None` for an initial (uncharged) observation.
    pub set: Option<usize>,
    /// The control set played (every variable for an initial observation).
    pub control: ControlSet,
    /// The measured point in unit coordinates.
    pub x: &'a [R; D],
    /// The outcome.
    pub y: R,
    /// The cost charged (zero for an initial observation).
    pub cost: R,
    /// The round this observation belongs to (rounds observed before it): observations are
    /// stamped with their round.
    pub round: usize,
    /// Budget spent before this observation.
    pub spent_before: R,
    /// Total budget.
    pub budget: R,
}

/// A decision rule (see the module documentation).
pub trait Policy<R: Real, const D: usize, const M: usize> {
    /// The rule's learned state as saved in snapshots.
    #[cfg(feature = "serde")]
    type Record: Clone
        + core::fmt::Debug
        + PartialEq
        + serde::Serialize
        + for<'de> serde::Deserialize<'de>;

    /// Prepares the rule for `problem` (fresh state); an error if the rule cannot run on it
    /// (for example [`DriverError::RuleNeedsKnownCosts`]). Called once by the controller's
    /// constructor. Default: nothing to prepare.
    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        let _ = problem;
        Ok(())
    }

    /// Scalars of caller workspace with which the rule decides fastest on `problem`, with a
    /// model of `capacity` observations and a sample bank of `bank` points. Default: what the
    /// expected bounds' fast path uses ([`workspace_len`]), for the rules that score control
    /// sets; rules over a box override it with what they use (BoTorch's raw samples).
    fn workspace_len(&self, problem: &Problem<R, D, M>, capacity: usize, bank: usize) -> usize {
        let _ = problem;
        workspace_len(capacity, bank)
    }

    /// True for a rule that cannot decide without caller memory of its own
    /// ([`Controller::workspace_len`](crate::driver::Controller::workspace_len)); the others
    /// only decide faster with it. Default: false.
    fn needs_workspace(&self) -> bool {
        false
    }

    /// True for a rule that learns costs from what is paid (the problem then has no known
    /// costs). Default: false.
    fn learns_costs(&self) -> bool {
        false
    }

    /// True for a rule over a box that prices each point by its cost: where the costs are
    /// learned it reads a model of ln(cost)
    /// ([`Controller::with_cost_model`](crate::driver::Controller::with_cost_model)).
    /// Default: false.
    fn prices_points(&self) -> bool {
        false
    }

    /// Decides this round. On error the controller records nothing (a rule may have updated
    /// statistics of its own that only depend on the round's scores).
    fn decide<const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>;

    /// Records an accepted observation (initial ones too). Cannot fail: the controller has
    /// validated it. Default: nothing to record.
    fn record(&mut self, outcome: &Outcome<'_, R, D, M>) {
        let _ = outcome;
    }

    /// What this round's decision changed beyond what its observation records, read after
    /// `observe`, so that a replay rebuilds the state without deciding again. Default: nothing.
    fn memo(&self) -> Memo<R> {
        Memo::EMPTY
    }

    /// Whether `memo` fits this rule (checked before a replay changes anything). Default: only
    /// the empty memo.
    fn check_memo(&self, memo: &Memo<R>) -> Result<(), DriverError> {
        if memo.is_empty() {
            Ok(())
        } else {
            Err(DriverError::InvalidMemo)
        }
    }

    /// Applies a memo that passed [`check_memo`](Self::check_memo), after the replayed
    /// observation was [`record`](Self::record)ed. Default: nothing.
    fn apply_memo(&mut self, memo: &Memo<R>) {
        let _ = memo;
    }

    /// The state to save.
    #[cfg(feature = "serde")]
    fn save(&self) -> Self::Record;

    /// Restores a saved state into a rule [`start`](Self::start)ed on the same problem; on
    /// error nothing changes.
    #[cfg(feature = "serde")]
    fn load(&mut self, record: &Self::Record) -> Result<(), DriverError>;
}

/// The snapshot hooks of a rule with no state of its own to save (`Record = ()`), for use
/// inside this crate's `impl Policy for ...` blocks. Not exported: its `cfg(feature = "serde")`
/// would be read against the invoking crate's features, not this one's. Built with only
/// stateful rules (e.g. the firmware's explore-then-commit) nothing invokes it, hence the allow.
#[allow(unused_macros)]
macro_rules! stateless_record {
    () => {
        #[cfg(feature = "serde")]
        type Record = ();

        #[cfg(feature = "serde")]
        fn save(&self) -> Self::Record {}

        #[cfg(feature = "serde")]
        fn load(&mut self, _: &Self::Record) -> Result<(), $crate::policy::DriverError> {
            Ok(())
        }
    };
}
#[allow(unused_imports)]
pub(crate) use stateless_record;

/// The index of the control set of every variable, which rules over a box play;
/// [`DriverError::RuleNeedsFullSet`] if the problem has none.
pub fn require_full_set<R: Real, const D: usize, const M: usize>(
    problem: &Problem<R, D, M>,
) -> Result<usize, DriverError> {
    problem.full_set().ok_or(DriverError::RuleNeedsFullSet)
}

/// [`DriverError::RuleNeedsKnownCosts`] unless the problem prices each control set in advance:
/// what rules that compare sets by cost require of it in [`Policy::start`].
pub fn require_set_costs<R: Real, const D: usize, const M: usize>(
    problem: &Problem<R, D, M>,
) -> Result<(), DriverError> {
    match problem.known_cost(0) {
        Some(_) => Ok(()),
        None => Err(DriverError::RuleNeedsKnownCosts),
    }
}

/// The argmax of `scores` chosen by `select`, played at its maximiser; [`DriverError::NoScore`]
/// when nothing was chosen.
pub fn play_selected<R: Real, const D: usize>(
    out: &[Option<InnerResult<R, D>>],
    chosen: Option<usize>,
) -> Result<Choice<R, D>, DriverError> {
    let i = chosen.ok_or(DriverError::NoScore)?;
    let best = out.get(i).copied().flatten().ok_or(DriverError::NoScore)?;
    Ok(Choice::Play(Play {
        set: i,
        x: best.x,
        score: best.value,
        measure: true,
    }))
}

/// Each entry's value, −∞ where a set was not scored or failed.
pub fn values<R: Real, const D: usize, const M: usize>(
    out: &[Option<InnerResult<R, D>>],
) -> [R; M] {
    core::array::from_fn(|i| {
        out.get(i)
            .copied()
            .flatten()
            .map_or(-R::INFINITY, |r| r.value)
    })
}
