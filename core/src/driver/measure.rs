//! Costly measurement: [`MeasurementRule`] and the controller's `query`, `skip` and
//! `replay_skip` (documented on [`MeasurementRule`]).

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

use super::{Controller, CostModel, DriverError, Memo};
use crate::feedback::query::{QueryDecision, QueryReason, QueryRule};
use crate::gp::Prediction;
use crate::policy::Policy;
use crate::real::Real;

/// Salt of the measurement stream's seed (keeps it apart from the decision stream's).
const STREAM_SALT: u64 = 0x6D65_6173_7572_6531;
/// Odd multiplier spreading round numbers over seeds.
const ROUND_MIX: u64 = 0x9E37_79B9_7F4A_7C15;

/// When to pay for a round's measurement, and what it costs (paper 003's costly feedback in
/// the ask/tell driver): a controller with a `MeasurementRule`
/// ([`Controller::with_measurement`]) decides, after each round's dose, whether to pay for
/// measuring its outcome.
///
/// A round then goes: [`next`](Controller::next) decides (exactly as without the rule: the
/// decision stream is untouched); the caller doses and measures every variable; it asks
/// [`query`](Controller::query) with the full measured point `x` whether to measure the outcome;
/// then it either measures and calls [`observe`](Controller::observe) (charged the dose cost
/// *plus* [`MeasurementRule::cost`]) or does not and calls [`skip`](Controller::skip) (charged
/// the dose cost only; the round advances, nothing is observed, the decision rule is not told).
///
/// The answer is [`QueryRule::decide`] (Algorithm 1 of paper 003) with:
/// - the chosen point `x_t`: the full measured point of this round (uncontrolled variables as
///   measured), in the GP's unit coordinates;
/// - the competitors: the distinct inputs stored in the GP (the points whose outcomes were
///   measured, as far as the GP's capacity keeps them) other than `x_t` itself. While there is
///   none, the prior stands in for one unmeasured competitor (mean the prior mean, latent
///   variance the outputscale): on a fresh prior every `p(x)` is then ½, so the CE test pays
///   its first measurement exactly when κ > ½, and the LCB–UCB test always does;
/// - the width `β` of the controller's confidence bounds ([`Settings::beta`](super::Settings::beta)).
///
/// The rule's two uniforms come from their own stream, a generator seeded from the
/// controller's seed and the round number: the decision stream is untouched, every round draws
/// exactly two (measured or skipped), and a controller restored by replay or from a snapshot
/// (which restore the round count) asks with the same uniforms. The answer is a function of
/// the controller's state and `x`, so asking again gives the same answer.
///
/// Budget: under [`BudgetRule::Affordable`](super::BudgetRule::Affordable) a round whose dose
/// and measurement together exceed what is left is not measured (the answer says skip), so the
/// budget is never exceeded; the decision itself only needs the dose to be affordable, as
/// without the rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeasurementRule<R> {
    cost: R,
    rule: QueryRule<R>,
}

impl<R: Real> MeasurementRule<R> {
    /// A measurement costing `cost` (positive and finite: [`DriverError::InvalidCost`]
    /// otherwise), paid on the rounds `rule` says.
    pub fn new(cost: R, rule: QueryRule<R>) -> Result<Self, DriverError> {
        if !cost.is_finite() || cost <= R::ZERO {
            return Err(DriverError::InvalidCost);
        }
        Ok(MeasurementRule { cost, rule })
    }

    /// What one measurement costs.
    pub fn cost(&self) -> R {
        self.cost
    }

    /// Algorithm 1's rule.
    pub fn rule(&self) -> &QueryRule<R> {
        &self.rule
    }
}

/// This round's answer, kept until the round is observed or skipped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Asked<R, const D: usize> {
    /// The point asked about, physical units.
    pub(crate) x: [R; D],
    pub(crate) answer: QueryDecision<R>,
}

/// The generator of round `round`'s two uniforms.
fn stream(seed: u64, round: usize) -> Xoshiro128PlusPlus {
    Xoshiro128PlusPlus::seed_from_u64(
        seed ^ STREAM_SALT ^ (round as u64).wrapping_add(1).wrapping_mul(ROUND_MIX),
    )
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
    /// The controller with a costly measurement (see [`MeasurementRule`]): from now on every round is asked [`query`](Self::query) and then
    /// observed or [`skip`](Self::skip)ped. It is configuration, like the settings: a
    /// controller rebuilt by replay or from a snapshot must be given the same rule.
    pub fn with_measurement(mut self, rule: MeasurementRule<R>) -> Self {
        self.measurement = Some(rule);
        self.asked = None;
        self
    }

    /// The measurement rule, if the measurement is costly.
    pub fn measurement(&self) -> Option<&MeasurementRule<R>> {
        self.measurement.as_ref()
    }

    /// This round's answer, once [`query`](Self::query) has been asked.
    pub fn answer(&self) -> Option<QueryDecision<R>> {
        self.asked.map(|a| a.answer)
    }

    /// Whether to measure the pending decision's outcome, given the full measured point `x`
    /// (physical units: controlled values as dosed, within the decision's tolerance, the
    /// others as measured). Asking again (with any point) answers for that point; the last
    /// answer is the one [`observe`](Self::observe) and [`skip`](Self::skip) hold the caller
    /// to.
    ///
    /// Errors (nothing changes): [`DriverError::NoMeasurementRule`] without a rule,
    /// [`DriverError::NoPendingDecision`], and `x`'s [`observe`](Self::observe) errors.
    pub fn query(&mut self, x: &[R; D]) -> Result<QueryDecision<R>, DriverError> {
        let rule = self.measurement.ok_or(DriverError::NoMeasurementRule)?;
        let decision = self.pending.ok_or(DriverError::NoPendingDecision)?;
        let u = self.check_point(x, R::ZERO)?;
        self.check_applied(&decision, x)?;
        let chosen = self.gp.predict(&u)?;
        let prior = Prediction {
            mean: self.gp.prior_mean(),
            variance: self.gp.kernel().outputscale(),
        };
        let gp = &self.gp;
        let mut others = gp
            .inputs()
            .iter()
            .filter(|v| **v != u)
            // Cannot fail: stored inputs are finite.
            .filter_map(|v| gp.predict(v).ok())
            .peekable();
        let lone = others.peek().is_none();
        let competitors = others.chain(core::iter::once(prior).filter(|_| lone));
        let mut rng = stream(self.settings.seed, self.rounds);
        let mut answer = rule
            .rule
            .decide(chosen, competitors, self.settings.beta, &mut rng);
        if answer.pay && self.settings.budget_rule == super::BudgetRule::Affordable {
            let dose = self
                .problem
                .cost_at(decision.set, x)
                .ok()
                .flatten()
                .map_or(R::ZERO, |(c, _)| c);
            if !self.affordable(dose + rule.cost) {
                answer.pay = false;
                answer.reason = QueryReason::Skip;
            }
        }
        self.asked = Some(Asked { x: *x, answer });
        Ok(answer)
    }

    /// Ends the pending round without measuring its outcome, as [`query`](Self::query)
    /// answered: charges the dose's `cost` (positive and finite), advances the round, and
    /// observes nothing (the GP and the decision rule are not told). `x` is the point the
    /// query was asked with.
    ///
    /// Errors (nothing changes): [`DriverError::NoMeasurementRule`],
    /// [`DriverError::NoPendingDecision`], [`DriverError::InvalidCost`],
    /// [`DriverError::NotQueried`] (no answer for this point), [`DriverError::MeasurementDue`]
    /// (the answer was to measure).
    pub fn skip(&mut self, x: &[R; D], cost: R) -> Result<(), DriverError> {
        if self.measurement.is_none() {
            return Err(DriverError::NoMeasurementRule);
        }
        self.pending.ok_or(DriverError::NoPendingDecision)?;
        if !cost.is_finite() || cost <= R::ZERO {
            return Err(DriverError::InvalidCost);
        }
        let asked = self
            .asked
            .filter(|a| a.x == *x)
            .ok_or(DriverError::NotQueried)?;
        if asked.answer.pay {
            return Err(DriverError::MeasurementDue);
        }
        self.ledger.charge(cost);
        self.rounds += 1;
        self.pending = None;
        self.asked = None;
        Ok(())
    }

    /// The checks [`observe`](Self::observe) adds with a measurement rule: the round was asked
    /// about this point and told to measure. Returns the measurement's cost (zero without a
    /// rule).
    pub(crate) fn check_measured(&self, x: &[R; D]) -> Result<R, DriverError> {
        let Some(rule) = self.measurement else {
            return Ok(R::ZERO);
        };
        let asked = self
            .asked
            .filter(|a| a.x == *x)
            .ok_or(DriverError::NotQueried)?;
        if !asked.answer.pay {
            return Err(DriverError::MeasurementSkipped);
        }
        Ok(rule.cost)
    }

    /// Records a round that was decided and skipped before (see [`replay`](Self::replay)): the
    /// control set played, the measured point and the dose cost exactly as given to
    /// [`skip`](Self::skip) then, and the memo read after it. The round counter, the ledger
    /// and (through the round counter) the measurement stream change as they did then; the
    /// model is refitted if that round's decision refitted it, and the rule's state is set from
    /// the memo as [`replay`](Self::replay) does. The answer that skipped is not recomputed: the
    /// record is the authority.
    ///
    /// Discards a pending decision. Errors (nothing changes): [`DriverError::NoMeasurementRule`]
    /// (a skipped round needs a rule), [`DriverError::InvalidSet`],
    /// [`DriverError::InvalidCost`], [`DriverError::InvalidMemo`], and a point that is not
    /// finite or out of bounds.
    pub fn replay_skip(
        &mut self,
        set: usize,
        x: &[R; D],
        cost: R,
        memo: &Memo<R>,
    ) -> Result<(), DriverError> {
        if self.measurement.is_none() {
            return Err(DriverError::NoMeasurementRule);
        }
        self.problem.set(set).ok_or(DriverError::InvalidSet(set))?;
        if !cost.is_finite() || cost <= R::ZERO {
            return Err(DriverError::InvalidCost);
        }
        self.check_point(x, R::ZERO)?;
        self.policy.check_memo(memo)?;
        // That round's decision refitted the model first if the settings say so.
        self.refit_if_due(&mut []);
        self.ledger.charge(cost);
        self.rounds += 1;
        // The skipped round's decision changed the rule's state as any decision does (a
        // PBGI-D λ, the unknown-cost rule's statistics): the memo read after the skip holds it.
        self.policy.apply_memo(memo);
        self.pending = None;
        self.asked = None;
        Ok(())
    }
}
