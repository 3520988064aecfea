//! The ask/tell driver: the object a controller talks to every round.
//!
//! [`Controller::suggest`] returns which control set to pay for and the values of its variables
//! in physical units; the caller applies them, measures every variable (the uncontrolled ones
//! are whatever chance gave), reads the outcome and calls [`Controller::observe`] with the full
//! measured point, the outcome and the cost actually paid. The controller keeps the budget
//! ledger, refuses to decide when the budget cannot pay for the next decision, and recommends
//! the best (control set, values) by expected posterior mean.
//!
//! The controller is generic over its decision rule, a [`Policy`]: it validates, keeps the
//! ledger and the pending decision, and never branches on which rule it runs. Persistence
//! (replaying journaled rounds, snapshots) is in `persist.rs`.

mod measure;
mod persist;
mod spec;

pub use measure::MeasurementRule;
pub use spec::{BuildError, ControllerSpec};

pub use crate::policy::Memo;

use crate::ledger::Ledger;
pub use crate::round::{
    BudgetRule, Context, DriverError, Refit, Settings, DEFAULT_NOISE_FLOOR, DEFAULT_REFIT_EVERY,
    PAPER_001_ADAM_LEARNING_RATE, PAPER_001_ADAM_STEPS, PAPER_001_ALPHA, PAPER_001_EXPLORATION,
};

use crate::expectation::{Bound, SampleBank};
use crate::gp::Gp;
use crate::inner::InnerResult;
use crate::policy::{score_sets, Choice, Outcome, Play, Policy, Round};
use crate::problem::{ControlSet, Problem};
use crate::real::Real;

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
    /// Whether to pay for this round's measurement as the rule sees it (paper 003's costly
    /// feedback); always `true` for the rules of papers 000 and 001. A controller with a
    /// costly measurement ([`Controller::with_measurement`]) answers that question after the
    /// dose instead, with [`Controller::query`].
    pub measure: bool,
}

/// What the controller wants next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step<R, const D: usize> {
    /// Play this decision and report its outcome.
    Play(Decision<R, D>),
    /// The rule stops the run.
    Stop,
}

/// Where a controller keeps a model of ln(cost): nowhere ([`NoCostModel`], the default, which
/// takes no memory), or in a GP of the controller's capacity and storage (for rules that learn
/// costs as functions of the values, paper 002).
pub trait CostModel<R, const N: usize, const D: usize, S> {
    /// The model, if there is one.
    fn model(&self) -> Option<&Gp<R, N, D, S>>;
    /// The model, mutably.
    fn model_mut(&mut self) -> Option<&mut Gp<R, N, D, S>>;
}

/// No cost model: costs are known, or learned per control set by the rule itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NoCostModel;

impl<R, const N: usize, const D: usize, S> CostModel<R, N, D, S> for NoCostModel {
    fn model(&self) -> Option<&Gp<R, N, D, S>> {
        None
    }
    fn model_mut(&mut self) -> Option<&mut Gp<R, N, D, S>> {
        None
    }
}

impl<R, const N: usize, const D: usize, S> CostModel<R, N, D, S> for Gp<R, N, D, S> {
    fn model(&self) -> Option<&Gp<R, N, D, S>> {
        Some(self)
    }
    fn model_mut(&mut self) -> Option<&mut Gp<R, N, D, S>> {
        Some(self)
    }
}

/// A cost model chosen at run time, kept behind a pointer (a `Box` on the desktop, a
/// `&mut` to a static elsewhere): the same controller type with a model or without, and a
/// controller no larger for it.
impl<R, const N: usize, const D: usize, S, P> CostModel<R, N, D, S> for Option<P>
where
    P: core::ops::DerefMut<Target = Gp<R, N, D, S>>,
{
    fn model(&self) -> Option<&Gp<R, N, D, S>> {
        self.as_deref()
    }
    fn model_mut(&mut self) -> Option<&mut Gp<R, N, D, S>> {
        self.as_deref_mut()
    }
}

/// An ask/tell controller for `problem` with a GP of capacity `N` (factor storage `S`), a
/// sample bank in storage `B`, the decision rule `P`, and a model of ln(cost) `C` (none by
/// default; see [`with_cost_model`](Controller::with_cost_model)).
#[derive(Debug, Clone)]
pub struct Controller<R, const N: usize, const D: usize, const M: usize, S, B, P, C = NoCostModel> {
    problem: Problem<R, D, M>,
    gp: Gp<R, N, D, S>,
    bank: SampleBank<R, D, B>,
    settings: Settings<R>,
    policy: P,
    // A model of ln(cost) when costs are learned (paper 002's unknown costs), fed with every
    // observation's cost.
    cost_model: C,
    ledger: Ledger<R>,
    rounds: usize,
    pending: Option<Decision<R, D>>,
    // A costly measurement (paper 003), and this round's answer once asked (`measure.rs`).
    measurement: Option<MeasurementRule<R>>,
    asked: Option<measure::Asked<R, D>>,
}

/// Relative tolerance (of a variable's range) between a decided and a measured controlled value.
const APPLY_TOLERANCE: f64 = 1e-3;

impl<R, const N: usize, const D: usize, const M: usize, S, B, P> Controller<R, N, D, M, S, B, P>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    P: Policy<R, D, M>,
{
    /// A controller running `policy`. The GP's inputs live in the unit cube of `problem`.
    pub fn new(
        problem: Problem<R, D, M>,
        gp: Gp<R, N, D, S>,
        bank: SampleBank<R, D, B>,
        settings: Settings<R>,
        mut policy: P,
    ) -> Result<Self, DriverError> {
        if !settings.budget.is_finite() || !settings.beta.is_finite() || settings.budget < R::ZERO {
            return Err(DriverError::NonFinite);
        }
        policy.start(&problem)?;
        Ok(Controller {
            problem,
            gp,
            bank,
            settings,
            policy,
            cost_model: NoCostModel,
            ledger: Ledger::new(),
            rounds: 0,
            pending: None,
            measurement: None,
            asked: None,
        })
    }

    /// The controller with a model of the logarithm of the costs paid, for rules that learn
    /// costs as functions of the values (paper 002's unknown costs): every observation's cost
    /// enters it, and rules see its posterior ([`Round::cost_model`]). `model` is a GP of the
    /// controller's sizes, or any other [`CostModel`] (one that keeps its GP elsewhere, or
    /// none: [`NoCostModel`], or a caller's choice made at run time). A model is only for a
    /// problem whose costs are learned ([`Costs::Unknown`](crate::problem::Costs::Unknown)),
    /// and it and the controller must be empty ([`DriverError::InvalidCostModel`] otherwise).
    #[allow(clippy::type_complexity)]
    pub fn with_cost_model<C: CostModel<R, N, D, S>>(
        self,
        model: C,
    ) -> Result<Controller<R, N, D, M, S, B, P, C>, DriverError> {
        let learned = matches!(self.problem.costs(), crate::problem::Costs::Unknown);
        if let Some(m) = model.model() {
            if !learned || !m.is_empty() || !self.gp.is_empty() {
                return Err(DriverError::InvalidCostModel);
            }
        }
        Ok(Controller {
            problem: self.problem,
            gp: self.gp,
            bank: self.bank,
            settings: self.settings,
            policy: self.policy,
            cost_model: model,
            ledger: self.ledger,
            rounds: self.rounds,
            pending: self.pending,
            measurement: self.measurement,
            asked: self.asked,
        })
    }
}

impl<R, const N: usize, const D: usize, const M: usize, S, B, P, C>
    Controller<R, N, D, M, S, B, P, C>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    P: Policy<R, D, M>,
    C: CostModel<R, N, D, S>,
{
    /// The model of ln(cost), if the controller has one.
    pub fn cost_model(&self) -> Option<&Gp<R, N, D, S>> {
        self.cost_model.model()
    }

    /// The problem.
    pub fn problem(&self) -> &Problem<R, D, M> {
        &self.problem
    }

    /// The GP (inputs in unit coordinates).
    pub fn gp(&self) -> &Gp<R, N, D, S> {
        &self.gp
    }

    /// The sample bank.
    pub fn bank(&self) -> &SampleBank<R, D, B> {
        &self.bank
    }

    /// The settings.
    pub fn settings(&self) -> &Settings<R> {
        &self.settings
    }

    /// The decision rule and its state.
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// Budget spent so far.
    pub fn spent(&self) -> R {
        self.ledger.total()
    }

    /// Budget left.
    pub fn remaining(&self) -> R {
        self.ledger.left(self.settings.budget)
    }

    /// True when a cost can still be paid: up to a few units in the last place of the budget,
    /// so that costs that add up to the budget on paper are all affordable.
    fn affordable(&self, cost: R) -> bool {
        self.ledger.affords(cost, self.settings.budget)
    }

    /// The cheapest control set's cost where the problem prices each set in advance; the
    /// least positive number where costs depend on the values or are learned.
    fn cheapest_set_cost(&self) -> R {
        (0..self.problem.num_sets())
            .filter_map(|i| self.problem.known_cost(i))
            .reduce(R::min)
            .unwrap_or(R::MIN_POSITIVE)
    }

    /// Rounds played and charged: observed, or skipped under a costly measurement
    /// ([`skip`](Self::skip)).
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
        if self.cost_model.model().is_some() {
            return Err(DriverError::InvalidCost);
        }
        self.initial(x, y, None)
    }

    /// [`observe_initial`](Self::observe_initial) with the cost the evaluation took, for a
    /// controller with a cost model (the initial design is not charged, but its costs are
    /// learned from); without a cost model the cost is ignored.
    pub fn observe_initial_with_cost(
        &mut self,
        x: &[R; D],
        y: R,
        cost: R,
    ) -> Result<(), DriverError> {
        if !cost.is_finite() || cost <= R::ZERO {
            return Err(DriverError::InvalidCost);
        }
        self.initial(x, y, Some(cost))
    }

    /// Records an initial observation (and its cost in the cost model, if any).
    fn initial(&mut self, x: &[R; D], y: R, cost: Option<R>) -> Result<(), DriverError> {
        let u = self.check_point(x, y)?;
        self.check_room()?;
        self.gp.push(&u, y)?;
        if let (Some(model), Some(c)) = (self.cost_model.model_mut(), cost) {
            // Cannot fail: checked for room, finite input and output.
            let _ = model.push(&u, c.ln());
        }
        let spent = self.spent();
        self.policy.record(&Outcome {
            problem: &self.problem,
            set: None,
            control: ControlSet::full(D),
            x: &u,
            y,
            cost: R::ZERO,
            round: self.rounds,
            spent_before: spent,
            budget: self.settings.budget,
        });
        Ok(())
    }

    /// Decides the next round. Calling it again before [`observe`](Self::observe) returns
    /// the same decision. A rule that stops gives [`DriverError::Stopped`] (see
    /// [`next`](Self::next)).
    ///
    /// With a refitted model ([`Refit`]) the one change an error may leave behind is the
    /// round's refit: a rule that chooses a set the budget cannot pay for while a cheaper one
    /// is affordable gives [`DriverError::BudgetExhausted`] after refitting (a refit depends
    /// only on the data, so asking again refits to the same model). Where every set's cost
    /// is known and none is affordable, the run ends before the refit.
    pub fn suggest(&mut self) -> Result<Decision<R, D>, DriverError> {
        self.suggest_with_workspace(&mut [])
    }

    /// Scalars of workspace that make [`suggest_with_workspace`](Self::suggest_with_workspace)
    /// use the fast factorised path (about 0.35 MiB in f64 for n = 100 and a 128-point bank),
    /// and that a rule which needs memory of its own (BoTorch's raw samples) needs.
    pub fn workspace_len(&self) -> usize {
        self.policy.workspace_len(&self.problem, N, self.bank.len())
    }

    /// Scalars of workspace with which [`next`](Self::next)'s refits run at full speed too:
    /// [`workspace_len`](Self::workspace_len), or room for the kernel profile of every pair of
    /// `N` observations ([`crate::gp::fit_cache_len`], `N(N + 1)` scalars) when the settings
    /// refit the model and that is more. The decisions are the same with either length.
    pub fn fast_workspace_len(&self) -> usize {
        let refit = !matches!(self.settings.refit, Refit::Never);
        let cache = if refit {
            crate::gp::fit_cache_len(N)
        } else {
            0
        };
        self.workspace_len().max(cache)
    }

    /// [`suggest`](Self::suggest) with a caller-provided workspace: with at least
    /// [`workspace_len`](Self::workspace_len) scalars the squared-exponential kernel's random
    /// part is precomputed per set and candidates are screened by an exact bound (same
    /// decisions, several times faster); a shorter one falls back to the stack path.
    pub fn suggest_with_workspace(
        &mut self,
        workspace: &mut [R],
    ) -> Result<Decision<R, D>, DriverError> {
        match self.next(&[None; D], workspace)? {
            Step::Play(d) => Ok(d),
            Step::Stop => Err(DriverError::Stopped),
        }
    }

    /// The next step, given the `context`: the values (physical units) of the variables the
    /// problem measures before deciding ([`Problem::contexts`]), `None` for the others. A
    /// pending decision is returned again. The context must give every context variable and
    /// nothing else ([`DriverError::InvalidContext`]), finite and within bounds.
    pub fn next(
        &mut self,
        context: &Context<R, D>,
        workspace: &mut [R],
    ) -> Result<Step<R, D>, DriverError> {
        if let Some(d) = self.pending {
            return Ok(Step::Play(d));
        }
        let context = self.check_context(context)?;
        let open = match self.settings.budget_rule {
            // Where every set's cost is known, a budget that cannot pay for the cheapest ends
            // the run here, before the refit: the controller stays as it was.
            BudgetRule::Affordable => self.affordable(self.cheapest_set_cost()),
            BudgetRule::WhileBelow => self.spent() < self.settings.budget,
        };
        if !open {
            return Err(DriverError::BudgetExhausted);
        }
        self.refit_if_due(workspace);
        let seed = self.settings.seed ^ (self.rounds as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut round = Round {
            problem: &self.problem,
            gp: &self.gp,
            bank: &self.bank,
            settings: &self.settings,
            number: self.rounds,
            seed,
            spent: self.ledger.total(),
            context: &context,
            cost_model: self.cost_model.model(),
            workspace,
        };
        match self.policy.decide(&mut round)? {
            Choice::Play(play) => self.commit(play).map(Step::Play),
            Choice::Stop => Ok(Step::Stop),
        }
    }

    /// Refits the model if the settings ask for it at this round (see [`Refit`]); a failed fit
    /// leaves the model as it was.
    /// Returns whether it refitted.
    /// `workspace` long enough ([`fast_workspace_len`](Self::fast_workspace_len)) speeds the
    /// fit up with the same result; the decision's own use of it comes after.
    #[cfg_attr(not(feature = "refit"), allow(unused_variables))]
    fn refit_if_due(&mut self, workspace: &mut [R]) -> bool {
        match self.settings.refit {
            #[cfg(feature = "refit")]
            Refit::BotorchMap { every, noise } => self.refit_every(
                every,
                |y: &[R]| crate::gp::FitConfig::botorch_map(y, noise),
                workspace,
            ),
            #[cfg(feature = "refit")]
            Refit::Map { every, noise_floor } => self.refit_every(
                every,
                |y: &[R]| crate::gp::FitConfig::map_learned_noise(y, noise_floor),
                workspace,
            ),
            #[cfg(feature = "refit")]
            Refit::AdamWhenSpent {
                from_spent,
                lengthscale,
                outputscale,
                noise,
                mean,
                steps,
                learning_rate,
            } => {
                if self.gp.is_empty() || self.ledger.total() < from_spent * self.settings.budget {
                    return false;
                }
                let adam = crate::gp::AdamFit {
                    start: crate::gp::Hyperparameters {
                        log_lengthscales: [lengthscale.ln(); D],
                        log_outputscale: outputscale.ln(),
                        log_noise: noise.ln(),
                        mean,
                    },
                    lengthscale_bounds: (R::from_f64(1e-2), R::from_f64(1e4)),
                    noise_floor: noise,
                    steps,
                    learning_rate,
                };
                self.gp.fit_adam(&adam, workspace).is_ok()
            }
            Refit::Never => false,
            #[cfg(not(feature = "refit"))]
            Refit::_Never(never, _) => match never {},
        }
    }

    /// Refits the model (and the cost model, if any) with the configuration `config` gives for
    /// its outputs, at rounds divisible by `every`; returns whether the model was refitted.
    #[cfg(feature = "refit")]
    fn refit_every(
        &mut self,
        every: usize,
        config: impl Fn(&[R]) -> crate::gp::FitConfig<R, D>,
        workspace: &mut [R],
    ) -> bool {
        if every == 0 || !self.rounds.is_multiple_of(every) || self.gp.is_empty() {
            return false;
        }
        let fitted = self
            .gp
            .fit_with_cache(&config(self.gp.outputs()), workspace)
            .is_ok();
        if let Some(model) = self.cost_model.model_mut().filter(|m| !m.is_empty()) {
            let _ = model.fit_with_cache(&config(model.outputs()), workspace);
        }
        fitted
    }

    /// Turns the chosen play into the pending decision, if the budget can pay.
    fn commit(&mut self, play: Play<R, D>) -> Result<Decision<R, D>, DriverError> {
        let control = self.problem.set(play.set).ok_or(DriverError::NoScore)?;
        let phys = self.problem.to_physical(&play.x);
        // A cost function that prices this play at nothing (or at NaN) is refused.
        let cost = (self.problem.cost_at(play.set, &phys)).map_err(|_| DriverError::InvalidCost)?;
        if let (BudgetRule::Affordable, Some((c, _))) = (self.settings.budget_rule, cost) {
            if !self.affordable(c) {
                return Err(DriverError::BudgetExhausted);
            }
        }
        let decision = Decision {
            set: play.set,
            control,
            values: core::array::from_fn(|l| control.contains(l).then_some(phys[l])),
            score: play.score,
            measure: play.measure,
        };
        self.pending = Some(decision);
        Ok(decision)
    }

    /// Records the outcome of the pending decision: the full measured point `x` (physical
    /// units: controlled values as applied, the others as measured), the outcome `y` and the
    /// cost paid. With known costs, `cost` should be the set's cost; it is what is charged,
    /// plus the measurement's cost when the measurement is costly
    /// ([`with_measurement`](Self::with_measurement)); then the round must have been asked
    /// [`query`](Self::query) with this `x` and told to measure
    /// ([`DriverError::NotQueried`], [`DriverError::MeasurementSkipped`] otherwise).
    pub fn observe(&mut self, x: &[R; D], y: R, cost: R) -> Result<(), DriverError> {
        let decision = self.pending.ok_or(DriverError::NoPendingDecision)?;
        if !cost.is_finite() || cost <= R::ZERO {
            return Err(DriverError::InvalidCost);
        }
        let u = self.check_point(x, y)?;
        self.check_applied(&decision, x)?;
        let measurement = self.check_measured(x)?;
        self.apply(decision.set, decision.control, &u, y, cost, measurement)?;
        self.pending = None;
        self.asked = None;
        Ok(())
    }

    /// Checks that the controlled values of `x` are the decided ones (within the tolerance).
    fn check_applied(&self, decision: &Decision<R, D>, x: &[R; D]) -> Result<(), DriverError> {
        for (l, (xl, decided)) in x.iter().zip(&decision.values).enumerate() {
            if let Some(v) = decided {
                let range = self.problem.upper()[l] - self.problem.lower()[l];
                if (*xl - *v).abs() > R::from_f64(APPLY_TOLERANCE) * range {
                    return Err(DriverError::InconsistentWithDecision(l));
                }
            }
        }
        Ok(())
    }

    /// Pushes a validated charged observation into the model, then (nothing below can fail)
    /// charges the ledger (the dose's `cost`, then the `measurement`'s when it is costly),
    /// records it with the rule and counts the round: what `observe` and a replay share.
    fn apply(
        &mut self,
        set: usize,
        control: ControlSet,
        u: &[R; D],
        y: R,
        cost: R,
        measurement: R,
    ) -> Result<(), DriverError> {
        self.check_room()?;
        self.gp.push(u, y)?;
        if let Some(model) = self.cost_model.model_mut() {
            // Cannot fail: checked for room, finite input and positive finite cost.
            let _ = model.push(u, cost.ln());
        }
        let spent_before = self.spent();
        self.ledger.charge(cost);
        if measurement > R::ZERO {
            self.ledger.charge(measurement);
        }
        self.policy.record(&Outcome {
            problem: &self.problem,
            set: Some(set),
            control,
            x: u,
            y,
            cost,
            round: self.rounds,
            spent_before,
            budget: self.settings.budget,
        });
        self.rounds += 1;
        Ok(())
    }

    /// The rule's decision-time state to store with this round's observation (see [`Memo`]
    /// and [`replay`](Self::replay)); read it after [`observe`](Self::observe).
    pub fn memo(&self) -> Memo<R> {
        self.policy.memo()
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
            &mut [],
            |_| true,
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
            measure: true,
        })
    }

    /// Refuses an observation that the model (or the cost model) has no room for, before
    /// anything changes.
    fn check_room(&self) -> Result<(), DriverError> {
        let full = |g: &Gp<R, N, D, S>| {
            g.len() == g.capacity() && g.when_full() == crate::gp::WhenFull::Reject
        };
        if full(&self.gp) || self.cost_model.model().is_some_and(full) {
            return Err(DriverError::Gp(crate::gp::GpError::Full));
        }
        Ok(())
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

    /// Validates a context against the problem's context variables; returns it in unit
    /// coordinates.
    fn check_context(&self, context: &Context<R, D>) -> Result<Context<R, D>, DriverError> {
        let wanted = self.problem.contexts();
        let mut unit = [None; D];
        for (l, (c, out)) in context.iter().zip(unit.iter_mut()).enumerate() {
            match (*c, wanted.contains(l)) {
                (None, false) => {}
                (Some(v), true) => {
                    if !v.is_finite() {
                        return Err(DriverError::NonFinite);
                    }
                    if !self.problem.contains_coordinate(l, v) {
                        return Err(DriverError::OutOfBounds(l));
                    }
                    let (lo, hi) = (self.problem.lower()[l], self.problem.upper()[l]);
                    *out = Some((v - lo) / (hi - lo));
                }
                _ => return Err(DriverError::InvalidContext(l)),
            }
        }
        Ok(unit)
    }
}
