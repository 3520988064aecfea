//! The ask/tell driver: the object a controller talks to every round.
//!
//! [`Controller::suggest`] returns which control set to pay for and the values of its variables
//! in physical units; the caller applies them, measures every variable (the uncontrolled ones
//! are whatever chance gave), reads the outcome and calls [`Controller::observe`] with the full
//! measured point, the outcome and the cost actually paid. The controller keeps the budget
//! ledger, refuses to decide when the budget cannot pay for the next decision, and recommends
//! the best (control set, values) by expected posterior mean.

use crate::expectation::{Bound, SampleBank};
use crate::gp::{Gp, GpError};
use crate::inner::{InnerConfig, InnerResult};
use crate::policy::explore_then_commit::{ExploreThenCommit, PlaysPerGroup};
use crate::policy::ucb_cvs::{self, EpsilonSchedule};
use crate::policy::unknown_cost::{UnknownCost, UnknownCostConfig};
use crate::policy::{ei_psq, per_unit_cost, score_sets, score_sets_where, thompson_psq};
use crate::problem::{ControlSet, Costs, Problem};
use crate::real::Real;
use crate::thompson::PosteriorSample;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

/// The decision rule a controller follows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule<R> {
    /// UCB-CVS with an ε-schedule (paper 000); `EpsilonSchedule::Constant(0)` is UCB-PSQ.
    UcbCvs(EpsilonSchedule<R>),
    /// Explore-then-commit over cost groups: ETC-50, ETC-100 (`Fixed`) or ETC-Ada (paper 000).
    ExploreThenCommit(PlaysPerGroup),
    /// Expected UCB divided by cost (a baseline the paper shows failing).
    UcbPerUnitCost,
    /// Unknown random costs (paper 001).
    UnknownCost(UnknownCostConfig<R>),
    /// Thompson sampling over partial queries: one posterior path per round, best expected
    /// value over all (set, values) (paper 000's TS-PSQ baseline).
    ThompsonPsq,
    /// TS-PSQ with each set's best expected sample divided by its cost (a failing baseline).
    ThompsonPerUnitCost,
    /// Expected improvement over partial queries with 32 fantasy models (paper 000's EI-PSQ).
    ExpectedImprovementPsq,
    /// EI-PSQ with each set's best EI divided by its cost (a failing baseline).
    EiPerUnitCost,
}

/// Settings of a controller.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings<R> {
    /// The decision rule.
    pub rule: Rule<R>,
    /// Width of the confidence bounds, `μ ± βσ` (the papers use 2).
    pub beta: R,
    /// Total budget.
    pub budget: R,
    /// Inner optimiser budget per control set.
    pub inner: InnerConfig,
    /// Seed of the candidate pools.
    pub seed: u64,
}

/// What the controller decided for this round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision<R, const D: usize> {
    /// Index of the control set in the problem.
    pub set: usize,
    /// The control set.
    pub control: ControlSet,
    /// Physical value of each controlled variable; `None` for variables left to chance.
    pub values: [Option<R>; D],
    /// The acquisition value that won (expected UCB for the UCB rules).
    pub score: R,
}

/// Errors of the driver. The controller is unchanged whenever one is returned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DriverError {
    /// The remaining budget cannot pay for the next decision.
    BudgetExhausted,
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
    /// A replayed memo does not fit the rule (see [`Memo`]).
    InvalidMemo,
}

/// Scores the set that controls every variable alone when there is one (`full`; no other set
/// can beat its maximum), and the other sets only if there is none or its maximisation failed.
fn score_full_set_first<T>(
    out: &mut [Option<T>],
    full: Option<usize>,
    mut score: impl FnMut(&mut [Option<T>], &dyn Fn(usize) -> bool),
) {
    score(out, &|i| full.is_none_or(|f| i == f));
    if let Some(f) = full.filter(|&f| out.get(f).is_some_and(Option::is_none)) {
        score(out, &|i| i != f);
    }
}

impl From<GpError> for DriverError {
    fn from(e: GpError) -> Self {
        DriverError::Gp(e)
    }
}

/// What a decision changes in the rule's state beyond what its observation records, so that
/// [`Controller::replay`] can rebuild the state without deciding again.
///
/// Only the unknown-cost rule has such state: its running bounds are intersected with every
/// round's scores when it decides. Every other rule's state follows from the observations
/// alone (ETC's group counters from the sets played, the ledger from the costs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Memo<R, const M: usize> {
    /// Nothing beyond the observation.
    None,
    /// The unknown-cost rule's running bounds after the decision: the upper bound of each set
    /// (the first `sets` entries of `ucb`) and the lower bound.
    RunningBounds {
        /// Running upper bound per set.
        ucb: [R; M],
        /// Number of sets.
        sets: usize,
        /// Running lower bound.
        lcb: R,
    },
}

impl<R: Real, const M: usize> Memo<R, M> {
    /// Number of scalars [`write`](Self::write) produces: 0, or the sets plus one.
    pub fn len(&self) -> usize {
        match self {
            Memo::None => 0,
            Memo::RunningBounds { sets, .. } => sets + 1,
        }
    }

    /// True for [`Memo::None`].
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Writes the memo as a flat list of scalars (the upper bounds, then the lower bound) into
    /// `out`; returns how many, or `None` (nothing written) if `out` is too short.
    pub fn write(&self, out: &mut [R]) -> Option<usize> {
        let n = self.len();
        let out = out.get_mut(..n)?;
        if let Memo::RunningBounds { ucb, sets, lcb } = self {
            out[..*sets].copy_from_slice(&ucb[..*sets]);
            out[*sets] = *lcb;
        }
        Some(n)
    }

    /// Reads a memo written by [`write`](Self::write): empty is [`Memo::None`]; `None` if more
    /// than `M + 1` scalars are given.
    pub fn read(values: &[R]) -> Option<Self> {
        match values.split_last() {
            None => Some(Memo::None),
            Some((lcb, ucb_s)) if ucb_s.len() <= M => {
                let mut ucb = [R::ZERO; M];
                ucb[..ucb_s.len()].copy_from_slice(ucb_s);
                Some(Memo::RunningBounds {
                    ucb,
                    sets: ucb_s.len(),
                    lcb: *lcb,
                })
            }
            Some(_) => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum RuleState<R, const M: usize> {
    Stateless,
    Etc(ExploreThenCommit<R, M>),
    Unknown(UnknownCost<R, M>),
}

/// An ask/tell controller for `problem` with a GP of capacity `N` (factor storage `S`), a
/// sample bank in storage `B`, and `F` random Fourier features for the Thompson rules (unused
/// by the others; a posterior path takes `F × (D + 2) + N` scalars of stack while a Thompson
/// decision is made).
#[derive(Debug, Clone)]
pub struct Controller<R, const N: usize, const D: usize, const M: usize, const F: usize, S, B> {
    problem: Problem<R, D, M>,
    gp: Gp<R, N, D, S>,
    bank: SampleBank<R, D, B>,
    settings: Settings<R>,
    state: RuleState<R, M>,
    // Budget spent, summed with Neumaier compensation: thousands of small costs must add up to
    // the budget exactly enough that the last affordable round is not refused.
    spent: R,
    spent_error: R,
    rounds: usize,
    pending: Option<Decision<R, D>>,
    // Past queries (control set, point in unit coordinates), oldest first, for EI-PSQ's
    // incumbents; a sliding window of the last N like the GP's.
    history: [(ControlSet, [R; D]); N],
    history_len: usize,
}

/// Relative tolerance (of a variable's range) between a decided and a measured controlled value.
const APPLY_TOLERANCE: f64 = 1e-3;

impl<R, const N: usize, const D: usize, const M: usize, const F: usize, S, B>
    Controller<R, N, D, M, F, S, B>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    /// A controller. The GP's inputs live in the unit cube of `problem`.
    pub fn new(
        problem: Problem<R, D, M>,
        gp: Gp<R, N, D, S>,
        bank: SampleBank<R, D, B>,
        settings: Settings<R>,
    ) -> Result<Self, DriverError> {
        if !settings.budget.is_finite() || !settings.beta.is_finite() || settings.budget < R::ZERO {
            return Err(DriverError::NonFinite);
        }
        let known: Option<&[R]> = match problem.costs() {
            Costs::Known(c) => Some(&c[..problem.num_sets()]),
            Costs::Unknown => None,
        };
        let state = match (settings.rule, known) {
            (Rule::ExploreThenCommit(plays), Some(c)) => {
                RuleState::Etc(ExploreThenCommit::new(c, plays))
            }
            (Rule::UnknownCost(cfg), _) => {
                RuleState::Unknown(UnknownCost::new(problem.num_sets(), cfg))
            }
            (
                Rule::ExploreThenCommit(_)
                | Rule::UcbCvs(_)
                | Rule::UcbPerUnitCost
                | Rule::ThompsonPerUnitCost,
                None,
            ) => return Err(DriverError::RuleNeedsKnownCosts),
            _ => RuleState::Stateless,
        };
        Ok(Controller {
            problem,
            gp,
            bank,
            settings,
            state,
            spent: R::ZERO,
            spent_error: R::ZERO,
            rounds: 0,
            pending: None,
            history: [(ControlSet(0), [R::ZERO; D]); N],
            history_len: 0,
        })
    }

    /// The problem.
    pub fn problem(&self) -> &Problem<R, D, M> {
        &self.problem
    }

    /// The GP (inputs in unit coordinates).
    pub fn gp(&self) -> &Gp<R, N, D, S> {
        &self.gp
    }

    /// Budget spent so far.
    pub fn spent(&self) -> R {
        self.spent + self.spent_error
    }

    /// Budget left.
    pub fn remaining(&self) -> R {
        (self.settings.budget - self.spent) - self.spent_error
    }

    /// True when a cost can still be paid: up to a few units in the last place of the budget,
    /// so that costs that add up to the budget on paper are all affordable.
    fn affordable(&self, cost: R) -> bool {
        cost <= self.remaining() + R::from_f64(4.0) * R::EPSILON * self.settings.budget
    }

    /// Rounds observed (charged observations).
    pub fn rounds(&self) -> usize {
        self.rounds
    }

    /// The decision awaiting its observation, if any.
    pub fn pending(&self) -> Option<&Decision<R, D>> {
        self.pending.as_ref()
    }

    /// Refits the GP's hyperparameters (see [`Gp::fit`]); on error nothing changes. A pending
    /// decision stays as it was decided.
    pub fn fit_hyperparameters(
        &mut self,
        config: &crate::gp::FitConfig<R, D>,
    ) -> Result<crate::gp::FitReport<R, D>, DriverError> {
        Ok(self.gp.fit(config)?)
    }

    /// Adds an observation that is not charged to the budget and not tied to a decision
    /// (initial design points).
    pub fn observe_initial(&mut self, x: &[R; D], y: R) -> Result<(), DriverError> {
        let u = self.check_point(x, y)?;
        self.gp.push(&u, y)?;
        self.remember(ControlSet::full(D), u);
        Ok(())
    }

    /// Appends a query to the history window.
    fn remember(&mut self, set: ControlSet, u: [R; D]) {
        if N == 0 {
            return;
        }
        if self.history_len == N {
            self.history.copy_within(1.., 0);
            self.history_len -= 1;
        }
        self.history[self.history_len] = (set, u);
        self.history_len += 1;
    }

    /// Decides the next round. Calling it again before [`observe`](Self::observe) returns
    /// the same decision.
    pub fn suggest(&mut self) -> Result<Decision<R, D>, DriverError> {
        self.suggest_with_workspace(&mut [])
    }

    /// Scalars of workspace that make [`suggest_with_workspace`](Self::suggest_with_workspace)
    /// use the fast factorised path (about 0.35 MiB in f64 for n = 100 and a 128-point bank).
    pub fn workspace_len(&self) -> usize {
        crate::policy::workspace_len(N, self.bank.len())
    }

    /// [`suggest`](Self::suggest) with a caller-provided workspace: with at least
    /// [`workspace_len`](Self::workspace_len) scalars the squared-exponential kernel's random
    /// part is precomputed per set and candidates are screened by an exact bound (same
    /// decisions, several times faster); a shorter one falls back to the stack path.
    pub fn suggest_with_workspace(
        &mut self,
        workspace: &mut [R],
    ) -> Result<Decision<R, D>, DriverError> {
        if let Some(d) = self.pending {
            return Ok(d);
        }
        if !self.affordable(R::MIN_POSITIVE) {
            return Err(DriverError::BudgetExhausted);
        }
        let m = self.problem.num_sets();
        let seed = self.settings.seed ^ (self.rounds as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        if matches!(
            self.settings.rule,
            Rule::ThompsonPsq | Rule::ThompsonPerUnitCost
        ) {
            return self.suggest_thompson(seed);
        }
        if matches!(
            self.settings.rule,
            Rule::ExpectedImprovementPsq | Rule::EiPerUnitCost
        ) {
            return self.suggest_ei(seed);
        }
        let costs: [R; M] = core::array::from_fn(|i| self.problem.known_cost(i).unwrap_or(R::ONE));
        // While ETC explores a cost group only that group's sets can be played; a set's score
        // does not depend on which others are scored, so scoring the group alone gives the same
        // decision.
        let exploring: Option<R> = match &self.state {
            RuleState::Etc(etc) => etc.groups().find(|&(_, left)| left > 0).map(|(c, _)| c),
            _ => None,
        };
        let mut ucb: [Option<InnerResult<R, D>>; M] = [None; M];
        let mut score_ucb = |ucb: &mut [Option<InnerResult<R, D>>],
                             wanted: &dyn Fn(usize) -> bool| {
            score_sets_where(
                &self.problem,
                &self.gp,
                &self.bank,
                Bound::Upper(self.settings.beta),
                &self.settings.inner,
                seed,
                ucb,
                workspace,
                wanted,
            )
        };
        // A rule that plays the overall argmax of the scores needs only the set that controls
        // every variable, if there is one: no other set can score higher
        // (`Problem::full_set`).
        let plays_argmax = match (&self.state, self.settings.rule) {
            (RuleState::Etc(_), _) => exploring.is_none(),
            (_, Rule::UcbCvs(schedule)) => schedule.at(self.rounds) == R::ZERO,
            _ => false,
        };
        match self.problem.full_set().filter(|_| plays_argmax) {
            full @ Some(_) => score_full_set_first(&mut ucb[..m], full, &mut score_ucb),
            None => score_ucb(&mut ucb[..m], &|i| exploring.is_none_or(|c| costs[i] == c)),
        }
        if let Some(c) = exploring {
            if ucb[..m]
                .iter()
                .zip(&costs)
                .all(|(r, ci)| *ci != c || r.is_none())
            {
                // Every set of the group failed: ETC moves on, so score the others too.
                score_ucb(&mut ucb[..m], &|i| costs[i] != c);
            }
        }
        let scores: [R; M] = core::array::from_fn(|i| ucb[i].map_or(-R::INFINITY, |r| r.value));
        let (scores, costs) = (&scores[..m], &costs[..m]);
        let spent = self.spent();
        let chosen = match (&mut self.state, self.settings.rule) {
            (RuleState::Etc(etc), _) => etc.select(scores, costs),
            (RuleState::Unknown(rule), _) => {
                // Only the best lower bound over all sets is needed, and the set controlling
                // every variable attains it (`Problem::full_set`; the same argument holds for
                // µ − βσ): score it alone, and every set only if it has none or it failed.
                let mut lcb: [Option<InnerResult<R, D>>; M] = [None; M];
                score_full_set_first(&mut lcb[..m], self.problem.full_set(), |lcb, wanted| {
                    score_sets_where(
                        &self.problem,
                        &self.gp,
                        &self.bank,
                        Bound::Lower(self.settings.beta),
                        &self.settings.inner,
                        seed ^ 1,
                        lcb,
                        workspace,
                        wanted,
                    )
                });
                let lcb_max = lcb[..m]
                    .iter()
                    .flatten()
                    .map(|r| r.value)
                    .fold(-R::INFINITY, R::max);
                if !scores.iter().all(|s| s.is_finite()) || !lcb_max.is_finite() {
                    return Err(DriverError::NoScore);
                }
                rule.select(scores, lcb_max, spent, self.settings.budget)
                    .ok()
            }
            (_, Rule::UcbCvs(schedule)) => ucb_cvs::select(scores, costs, schedule.at(self.rounds)),
            (_, Rule::UcbPerUnitCost) => per_unit_cost::select(scores, costs),
            _ => None,
        };
        let i = chosen.ok_or(DriverError::NoScore)?;
        let best = ucb[i].ok_or(DriverError::NoScore)?;
        self.commit(i, best)
    }

    /// One Thompson decision: a fresh posterior path, maximised per set. Never inlined: the
    /// path's stack is only taken when this rule runs.
    #[inline(never)]
    fn suggest_thompson(&mut self, seed: u64) -> Result<Decision<R, D>, DriverError> {
        let m = self.problem.num_sets();
        let mut out: [Option<InnerResult<R, D>>; M] = [None; M];
        {
            // A generator per round, from the seed and the round: decisions are reproducible and
            // a saved state needs no generator state.
            let mut rng = Xoshiro128PlusPlus::seed_from_u64(seed);
            let path = PosteriorSample::<R, D, F, N>::draw(&self.gp, &mut rng)?;
            // TS-PSQ plays the argmax: the full set alone when there is one (a sample path's
            // maximum is never below its expectation over the uncontrolled variables).
            let full = match self.settings.rule {
                Rule::ThompsonPsq => self.problem.full_set(),
                _ => None,
            };
            let score = |out: &mut [Option<InnerResult<R, D>>], wanted: &dyn Fn(usize) -> bool| {
                thompson_psq::score_sets(
                    &self.problem,
                    &path,
                    &self.bank,
                    &self.settings.inner,
                    seed,
                    out,
                    wanted,
                )
            };
            score_full_set_first(&mut out[..m], full, score);
        }
        self.commit_best(&out[..m])
    }

    /// One EI-PSQ decision: fresh fantasies, their incumbents over the history, EI per set.
    /// Never inlined: the fantasies' stack (32 paths) is only taken when this rule runs.
    #[inline(never)]
    fn suggest_ei(&mut self, seed: u64) -> Result<Decision<R, D>, DriverError> {
        let m = self.problem.num_sets();
        let mut out: [Option<InnerResult<R, D>>; M] = [None; M];
        {
            let mut paths: [Option<PosteriorSample<'_, R, D, F, N>>; ei_psq::FANTASIES] =
                [const { None }; ei_psq::FANTASIES];
            let mut rng = Xoshiro128PlusPlus::seed_from_u64(seed);
            for p in paths.iter_mut() {
                *p = Some(PosteriorSample::draw(&self.gp, &mut rng)?);
            }
            let mut tau = [R::ZERO; ei_psq::FANTASIES];
            ei_psq::incumbents(
                &paths,
                &self.bank,
                &self.history[..self.history_len],
                &mut tau,
            );
            ei_psq::score_sets(
                &self.problem,
                &paths,
                &tau,
                &self.bank,
                &self.settings.inner,
                seed,
                &mut out[..m],
            );
        }
        self.commit_best(&out[..m])
    }

    /// The sample-path rules' choice: the best score overall, or per unit cost for the
    /// per-unit-cost variants; then [`commit`](Self::commit).
    fn commit_best(
        &mut self,
        out: &[Option<InnerResult<R, D>>],
    ) -> Result<Decision<R, D>, DriverError> {
        let m = out.len();
        let scores: [R; M] = core::array::from_fn(|i| {
            out.get(i)
                .copied()
                .flatten()
                .map_or(-R::INFINITY, |r| r.value)
        });
        let chosen = if matches!(
            self.settings.rule,
            Rule::ThompsonPerUnitCost | Rule::EiPerUnitCost
        ) {
            let costs: [R; M] =
                core::array::from_fn(|i| self.problem.known_cost(i).unwrap_or(R::ONE));
            per_unit_cost::select(&scores[..m], &costs[..m])
        } else {
            // Cost-blind argmax: ε = 0 with equal costs.
            ucb_cvs::select(&scores[..m], &[R::ONE; M][..m], R::ZERO)
        };
        let i = chosen.ok_or(DriverError::NoScore)?;
        let best = out[i].ok_or(DriverError::NoScore)?;
        self.commit(i, best)
    }

    /// Turns the chosen set and maximiser into the pending decision, if the budget can pay.
    fn commit(&mut self, i: usize, best: InnerResult<R, D>) -> Result<Decision<R, D>, DriverError> {
        if let Some(c) = self.problem.known_cost(i) {
            if !self.affordable(c) {
                return Err(DriverError::BudgetExhausted);
            }
        }
        let control = self.problem.sets()[i];
        let phys = self.problem.to_physical(&best.x);
        let decision = Decision {
            set: i,
            control,
            values: core::array::from_fn(|l| control.contains(l).then_some(phys[l])),
            score: best.value,
        };
        self.pending = Some(decision);
        Ok(decision)
    }

    /// Records the outcome of the pending decision: the full measured point `x` (physical
    /// units: controlled values as applied, the others as measured), the outcome `y` and the
    /// cost paid. With known costs, `cost` should be the set's cost; it is what is charged.
    pub fn observe(&mut self, x: &[R; D], y: R, cost: R) -> Result<(), DriverError> {
        let decision = self.pending.ok_or(DriverError::NoPendingDecision)?;
        if !cost.is_finite() || cost <= R::ZERO {
            return Err(DriverError::InvalidCost);
        }
        let u = self.check_point(x, y)?;
        for (l, (xl, decided)) in x.iter().zip(&decision.values).enumerate() {
            if let Some(v) = decided {
                let range = self.problem.upper()[l] - self.problem.lower()[l];
                if (*xl - *v).abs() > R::from_f64(APPLY_TOLERANCE) * range {
                    return Err(DriverError::InconsistentWithDecision(l));
                }
            }
        }
        self.gp.push(&u, y)?;
        // Nothing below can fail: the ledger and the rule state change together.
        let spent_before = self.spent();
        self.charge(cost);
        match &mut self.state {
            RuleState::Etc(etc) => {
                if let Some(c) = self.problem.known_cost(decision.set) {
                    etc.record_play(c);
                }
            }
            RuleState::Unknown(rule) => {
                rule.record(decision.set, cost, spent_before, self.settings.budget)
            }
            RuleState::Stateless => {}
        }
        self.remember(decision.control, u);
        self.rounds += 1;
        self.pending = None;
        Ok(())
    }

    /// The rule's decision-time state to store with this round's observation (see [`Memo`]
    /// and [`replay`](Self::replay)); read it after [`observe`](Self::observe).
    pub fn memo(&self) -> Memo<R, M> {
        match &self.state {
            RuleState::Unknown(u) => {
                let (_, _, ucb_s, lcb, _, _) = u.parts();
                let mut ucb = [R::ZERO; M];
                ucb[..ucb_s.len()].copy_from_slice(ucb_s);
                Memo::RunningBounds {
                    ucb,
                    sets: ucb_s.len(),
                    lcb,
                }
            }
            _ => Memo::None,
        }
    }

    /// Records a round that was decided and observed before, without deciding again: the
    /// control set `set` that was played, the measured point, outcome and cost exactly as
    /// given to [`observe`](Self::observe) then, and the [`memo`](Self::memo) read after it.
    /// The GP, the ledger, the round counter, the query history and the rule's state change
    /// exactly as that round's `suggest` and `observe` changed them, so replaying a run's
    /// rounds in order into a fresh controller (with the same configuration, and the same
    /// initial observations and refits at the same points) gives bit-identical decisions after.
    ///
    /// Discards a pending decision. On error nothing changes.
    pub fn replay(
        &mut self,
        set: usize,
        x: &[R; D],
        y: R,
        cost: R,
        memo: &Memo<R, M>,
    ) -> Result<(), DriverError> {
        let m = self.problem.num_sets();
        let control = self.problem.set(set).ok_or(DriverError::InvalidSet(set))?;
        if !cost.is_finite() || cost <= R::ZERO {
            return Err(DriverError::InvalidCost);
        }
        let u = self.check_point(x, y)?;
        let bounds = match (&self.state, memo) {
            (RuleState::Unknown(_), Memo::RunningBounds { ucb, sets, lcb })
                if *sets == m && !lcb.is_nan() && !ucb[..m].iter().any(|v| v.is_nan()) =>
            {
                Some((ucb, *lcb))
            }
            (RuleState::Unknown(_), _) | (_, Memo::RunningBounds { .. }) => {
                return Err(DriverError::InvalidMemo)
            }
            (_, Memo::None) => None,
        };
        self.gp.push(&u, y)?;
        // Nothing below can fail.
        let spent_before = self.spent();
        self.charge(cost);
        match &mut self.state {
            RuleState::Etc(etc) => {
                if let Some(c) = self.problem.known_cost(set) {
                    etc.record_play(c);
                }
            }
            RuleState::Unknown(rule) => {
                rule.record(set, cost, spent_before, self.settings.budget);
                if let Some((ucb, lcb)) = bounds {
                    rule.set_running_bounds(&ucb[..m], lcb);
                }
            }
            RuleState::Stateless => {}
        }
        self.remember(control, u);
        self.rounds += 1;
        self.pending = None;
        Ok(())
    }

    /// Adds `cost` to the ledger (Neumaier-compensated sum).
    fn charge(&mut self, cost: R) {
        let t = self.spent + cost;
        self.spent_error += if self.spent.abs() >= cost.abs() {
            (self.spent - t) + cost
        } else {
            (cost - t) + self.spent
        };
        self.spent = t;
    }

    /// The best (control set, values) by expected posterior mean, with that expectation.
    pub fn recommend(&self) -> Result<Decision<R, D>, DriverError> {
        let m = self.problem.num_sets();
        let mut mean: [Option<InnerResult<R, D>>; M] = [None; M];
        score_sets(
            &self.problem,
            &self.gp,
            &self.bank,
            Bound::Mean,
            &self.settings.inner,
            self.settings.seed ^ 0xA5A5,
            &mut mean[..m],
        );
        let (i, best) = mean[..m]
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.map(|r| (i, r)))
            .fold(
                None,
                |b: Option<(usize, InnerResult<R, D>)>, (i, r)| match b {
                    Some((_, br)) if br.value >= r.value => b,
                    _ => Some((i, r)),
                },
            )
            .ok_or(DriverError::NoScore)?;
        let control = self.problem.sets()[i];
        let phys = self.problem.to_physical(&best.x);
        Ok(Decision {
            set: i,
            control,
            values: core::array::from_fn(|l| control.contains(l).then_some(phys[l])),
            score: best.value,
        })
    }

    /// Saves the state (see [`crate::snapshot`]).
    #[cfg(feature = "serde")]
    pub fn snapshot(&self) -> crate::snapshot::Snapshot<R, N, D, M> {
        use crate::snapshot::*;
        let mut observations = BoundedVec::from_slice(&[]);
        for (x, y) in self.gp.inputs().iter().zip(self.gp.outputs()) {
            observations.items[observations.len] = ObservationRecord {
                x: FixedArray(*x),
                y: *y,
            };
            observations.len += 1;
        }
        let mut history = BoundedVec::from_slice(&[]);
        for (set, x) in &self.history[..self.history_len] {
            history.items[history.len] = QueryRecord {
                set: set.0,
                x: FixedArray(*x),
            };
            history.len += 1;
        }
        let rule = match &self.state {
            RuleState::Stateless => RuleRecord::Stateless,
            RuleState::Etc(etc) => {
                let (c, p) = etc.parts();
                RuleRecord::ExploreThenCommit {
                    group_cost: BoundedVec::from_slice(c),
                    plays_left: BoundedVec::from_slice(p),
                }
            }
            RuleState::Unknown(u) => {
                let (plays, sums, ucb, lcb, rounds, exploit) = u.parts();
                RuleRecord::UnknownCost {
                    plays: BoundedVec::from_slice(plays),
                    cost_sums: BoundedVec::from_slice(sums),
                    ucb_bar: BoundedVec::from_slice(ucb),
                    lcb_bar: lcb,
                    rounds,
                    exploit_rounds: exploit,
                }
            }
        };
        let pending = self.pending.map(|d| {
            let u = self.problem.to_unit(&core::array::from_fn(|l| {
                d.values[l].unwrap_or(self.problem.lower()[l])
            }));
            PendingRecord {
                set: d.set,
                x: FixedArray(u),
                score: d.score,
            }
        });
        let k = self.gp.kernel();
        Snapshot {
            observations,
            lengthscales: FixedArray(*k.lengthscales()),
            outputscale: k.outputscale(),
            noise: self.gp.noise(),
            mean: self.gp.prior_mean(),
            spent: (self.spent, self.spent_error),
            rounds: self.rounds,
            rule,
            history,
            pending,
        }
    }

    /// Rebuilds a controller from a snapshot and the configuration it was saved with. `gp`
    /// provides the storage and the kernel shape (its observations are discarded).
    #[cfg(feature = "serde")]
    pub fn restore(
        problem: Problem<R, D, M>,
        gp: Gp<R, N, D, S>,
        bank: SampleBank<R, D, B>,
        settings: Settings<R>,
        snap: &crate::snapshot::Snapshot<R, N, D, M>,
    ) -> Result<Self, DriverError> {
        use crate::snapshot::RuleRecord;
        let bad = DriverError::InvalidSnapshot;
        let mut ctl = Controller::new(problem, gp, bank, settings)?;
        let kernel = crate::kernel::Kernel::new(
            ctl.gp.kernel().shape(),
            snap.lengthscales.0,
            snap.outputscale,
        )
        .map_err(|_| bad)?;
        ctl.gp.clear();
        ctl.gp
            .set_hyperparameters(kernel, snap.mean, snap.noise)
            .map_err(|_| bad)?;
        let in_cube = |x: &[R; D]| {
            x.iter()
                .all(|v| v.is_finite() && *v >= R::ZERO && *v <= R::ONE)
        };
        for o in snap.observations.as_slice() {
            if !in_cube(&o.x.0) {
                return Err(bad);
            }
            ctl.gp.push(&o.x.0, o.y).map_err(|_| bad)?;
        }
        let (spent, err) = snap.spent;
        if !spent.is_finite() || !err.is_finite() || spent < R::ZERO {
            return Err(bad);
        }
        ctl.spent = spent;
        ctl.spent_error = err;
        ctl.rounds = snap.rounds;
        match (&mut ctl.state, &snap.rule) {
            (RuleState::Stateless, RuleRecord::Stateless) => {}
            (
                RuleState::Etc(etc),
                RuleRecord::ExploreThenCommit {
                    group_cost,
                    plays_left,
                },
            ) => {
                *etc = ExploreThenCommit::from_parts(group_cost.as_slice(), plays_left.as_slice())
                    .ok_or(bad)?;
            }
            (
                RuleState::Unknown(u),
                RuleRecord::UnknownCost {
                    plays,
                    cost_sums,
                    ucb_bar,
                    lcb_bar,
                    rounds,
                    exploit_rounds,
                },
            ) => {
                if !u.restore_parts(
                    plays.as_slice(),
                    cost_sums.as_slice(),
                    ucb_bar.as_slice(),
                    *lcb_bar,
                    *rounds,
                    *exploit_rounds,
                ) {
                    return Err(bad);
                }
            }
            _ => return Err(bad),
        }
        for q in snap.history.as_slice() {
            if !in_cube(&q.x.0) {
                return Err(bad);
            }
            ctl.remember(ControlSet(q.set), q.x.0);
        }
        if let Some(p) = &snap.pending {
            let control = ctl.problem.set(p.set).ok_or(bad)?;
            if !in_cube(&p.x.0) || !p.score.is_finite() {
                return Err(bad);
            }
            let phys = ctl.problem.to_physical(&p.x.0);
            ctl.pending = Some(Decision {
                set: p.set,
                control,
                values: core::array::from_fn(|l| control.contains(l).then_some(phys[l])),
                score: p.score,
            });
        }
        Ok(ctl)
    }

    /// Validates a measured point and outcome; returns the point in unit coordinates.
    fn check_point(&self, x: &[R; D], y: R) -> Result<[R; D], DriverError> {
        if !y.is_finite() || !x.iter().all(|v| v.is_finite()) {
            return Err(DriverError::NonFinite);
        }
        if let Some(l) = (0..D).find(|&l| !self.problem.contains_coordinate(l, x[l])) {
            return Err(DriverError::OutOfBounds(l));
        }
        Ok(self.problem.to_unit(x))
    }
}
