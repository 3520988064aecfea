//! The Pandora's Box Gittins index rules of paper 002 over a box: play the maximiser of the
//! index `α(x)` solving `EI(x; α) = λ·c(x)` (see [`GittinsIndex`]).
//!
//! - **PBGI** ([`Lambda::Fixed`]): `λ` fixed (the paper uses `10⁻⁴` under a budget);
//! - **PBGI-D** ([`Lambda::Decaying`]): `λ₀ = 0.1`, divided by `β = 2` whenever the Pandora
//!   stopping rule fires, i.e. after an observation when the index the decision was made with
//!   is below the best value seen, the new one included (`a_τ < f*`, strict, as the paper's
//!   code; `docs/notes/seed-002.md` §2.9);
//! - **cost-per-sample PBGI** (`stop = true`): the same index, and the run stops when the best
//!   value seen reaches the largest index (`f* ≥ max α`) — the Pandora stopping rule itself;
//! - **PBGI-U**: with costs learned (`Costs::Unknown` and the controller's model of `ln c`), the
//!   price is `λ·E[c] = λ·exp(μ_ln c + σ²_ln c/2)` (Eq. 26).
//!
//! PBGI-D's state is the number of times `λ` was divided, `k`; the index is computed from
//! `ln λ = ln λ₀ − k·ln β`, so that hundreds of divisions stay representable in `f32`. `k`
//! changes when an observation is recorded, from the index of the decision it answers; a
//! replay, which does not decide again, restores it from the decision's memo.

use super::memo::{tags, Memo};
use super::{Choice, DriverError, Maximiser, Policy, Round};
use crate::acquisition::improvement::GittinsIndex;
use crate::problem::Problem;
use crate::real::Real;

/// How `λ` evolves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lambda<R> {
    /// The same `λ` every round.
    Fixed(R),
    /// Start at `initial`, divide by `factor > 1` whenever the stopping rule fires (PBGI-D).
    Decaying {
        /// `λ₀`.
        initial: R,
        /// `β`.
        factor: R,
    },
}

impl<R: Real> Lambda<R> {
    /// Paper 002's PBGI-D: `λ₀ = 0.1`, `β = 2`.
    pub fn paper_002_decaying() -> Self {
        Lambda::Decaying {
            initial: R::from_f64(0.1),
            factor: R::TWO,
        }
    }

    /// Paper 002's budgeted PBGI: `λ = 10⁻⁴`.
    pub fn paper_002_fixed() -> Self {
        Lambda::Fixed(R::from_f64(1e-4))
    }

    /// True for positive finite `λ` (and `β > 1`).
    pub fn is_valid(&self) -> bool {
        let ok = |v: R| v.is_finite() && v > R::ZERO;
        match *self {
            Lambda::Fixed(l) => ok(l),
            Lambda::Decaying { initial, factor } => {
                ok(initial) && factor.is_finite() && factor > R::ONE
            }
        }
    }
}

/// `λ` across decisions: the schedule, the number of divisions `k` so far, and what the
/// stopping rule needs of the pending decision (its index, the best value seen when it was
/// made). Shared by the rules that price with PBGI-D's `λ` ([`PandoraIndex`] and
/// `gittins_cvs::GittinsCvs`): its memo carries `k` for replays and its
/// record is the snapshot's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LambdaState<R> {
    schedule: Lambda<R>,
    /// Times `λ` was divided by `β`.
    divisions: u32,
    /// The index of the pending decision (NaN when none).
    pending_index: R,
    /// The best value seen when the pending decision was made.
    best_seen: R,
}

impl<R: Real> LambdaState<R> {
    /// A fresh state for `schedule` (no division, no pending decision).
    pub fn new(schedule: Lambda<R>) -> Self {
        LambdaState {
            schedule,
            divisions: 0,
            pending_index: R::from_f64(f64::NAN),
            best_seen: -R::INFINITY,
        }
    }

    /// How `λ` evolves.
    pub fn schedule(&self) -> Lambda<R> {
        self.schedule
    }

    /// The current `λ` (`λ₀/β^k`; it underflows long before `ln λ` does).
    pub fn lambda(&self) -> R {
        match self.schedule {
            Lambda::Fixed(l) => l,
            Lambda::Decaying { initial, factor } => {
                (0..self.divisions).fold(initial, |l, _| l / factor)
            }
        }
    }

    /// The current `ln λ = ln λ₀ − k·ln β`.
    pub fn log_lambda(&self) -> R {
        match self.schedule {
            Lambda::Fixed(l) => l.ln(),
            Lambda::Decaying { initial, factor } => {
                initial.ln() - R::from_usize(self.divisions as usize) * factor.ln()
            }
        }
    }

    /// How many times `λ` was divided by `β` (always 0 for a fixed `λ`).
    pub fn divisions(&self) -> u32 {
        self.divisions
    }

    /// Remembers the decision just made: its `index` and the best value seen before it.
    pub fn decided(&mut self, index: R, best_seen: R) {
        self.pending_index = index;
        self.best_seen = best_seen;
    }

    /// The pending decision's outcome `y` is observed: with a decaying `λ`, divide it when
    /// the stopping rule fires, `a_τ < f*` with `f*` including `y` (strict, as the paper's
    /// code; NaN, no decision, never fires).
    pub fn observed(&mut self, y: R) {
        let index = self.pending_index;
        self.pending_index = R::from_f64(f64::NAN);
        if matches!(self.schedule, Lambda::Decaying { .. }) && index < self.best_seen.max(y) {
            self.divisions = self.divisions.saturating_add(1);
        }
    }

    /// `k` for a replay (empty for a fixed `λ`).
    pub fn memo(&self) -> Memo<R> {
        match self.schedule {
            Lambda::Fixed(_) => Memo::EMPTY,
            Lambda::Decaying { .. } => {
                let k = R::from_usize(self.divisions as usize);
                Memo::new(tags::GITTINS_DIVISIONS, &[k]).unwrap_or(Memo::EMPTY)
            }
        }
    }

    /// Whether `memo` is one of [`memo`](Self::memo)'s.
    pub fn check_memo(&self, memo: &Memo<R>) -> Result<(), DriverError> {
        let fits = match self.schedule {
            Lambda::Fixed(_) => memo.is_empty(),
            Lambda::Decaying { .. } => {
                memo.tag() == tags::GITTINS_DIVISIONS
                    && memo.values().len() == 1
                    && count(memo.values()[0]).is_some()
            }
        };
        if fits {
            Ok(())
        } else {
            Err(DriverError::InvalidMemo)
        }
    }

    /// Sets `k` from a memo that passed [`check_memo`](Self::check_memo).
    pub fn apply_memo(&mut self, memo: &Memo<R>) {
        if let (Lambda::Decaying { .. }, Some(k)) = (
            self.schedule,
            memo.values().first().copied().and_then(count),
        ) {
            self.divisions = k;
        }
    }

    /// The state to save.
    #[cfg(feature = "serde")]
    pub fn save(&self) -> PandoraRecord<R> {
        PandoraRecord {
            divisions: self.divisions,
            pending_index: self.pending_index,
            best_seen: self.best_seen,
        }
    }

    /// Restores a saved state; a fixed `λ` with divisions is refused.
    #[cfg(feature = "serde")]
    pub fn load(&mut self, record: &PandoraRecord<R>) -> Result<(), DriverError> {
        if matches!(self.schedule, Lambda::Fixed(_)) && record.divisions != 0 {
            return Err(DriverError::InvalidSnapshot);
        }
        self.divisions = record.divisions;
        self.pending_index = record.pending_index;
        self.best_seen = record.best_seen;
        Ok(())
    }
}

/// The [`Policy`] hooks of a rule whose only state of its own is a [`LambdaState`] in the field
/// `$field`: the record (the type `Record` too), the memo, and the stopping rule's check on each
/// observation. For use inside this crate's `impl Policy for ...` blocks.
macro_rules! lambda_state_hooks {
    ($field:ident) => {
        #[cfg(feature = "serde")]
        type Record = $crate::policy::pbgi::PandoraRecord<R>;

        fn record(&mut self, outcome: &$crate::policy::Outcome<'_, R, D, M>) {
            if outcome.set.is_some() {
                self.$field.observed(outcome.y);
            }
        }

        fn memo(&self) -> $crate::policy::memo::Memo<R> {
            self.$field.memo()
        }

        fn check_memo(
            &self,
            memo: &$crate::policy::memo::Memo<R>,
        ) -> Result<(), $crate::policy::DriverError> {
            self.$field.check_memo(memo)
        }

        fn apply_memo(&mut self, memo: &$crate::policy::memo::Memo<R>) {
            self.$field.apply_memo(memo)
        }

        #[cfg(feature = "serde")]
        fn save(&self) -> Self::Record {
            self.$field.save()
        }

        #[cfg(feature = "serde")]
        fn load(&mut self, record: &Self::Record) -> Result<(), $crate::policy::DriverError> {
            self.$field.load(record)
        }
    };
}
#[allow(unused_imports)] // used by gittins_cvs, which only some builds compile
pub(crate) use lambda_state_hooks;

/// A Pandora's Box Gittins index rule (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PandoraIndex<R> {
    lambda: LambdaState<R>,
    stop: bool,
    maximiser: Maximiser,
}

impl<R: Real> PandoraIndex<R> {
    /// The rule with `lambda`, stopping by the Pandora rule if `stop`, maximised by
    /// `maximiser`. A controller refuses to start it ([`DriverError::InvalidParameter`])
    /// unless `λ` is positive and finite (and `β > 1`).
    pub fn new(lambda: Lambda<R>, stop: bool, maximiser: Maximiser) -> Self {
        PandoraIndex {
            lambda: LambdaState::new(lambda),
            stop,
            maximiser,
        }
    }

    /// The current `λ` (`λ₀/β^k`; it underflows long before `ln λ` does).
    pub fn lambda(&self) -> R {
        self.lambda.lambda()
    }

    /// The current `ln λ = ln λ₀ − k·ln β`.
    pub fn log_lambda(&self) -> R {
        self.lambda.log_lambda()
    }

    /// How many times `λ` was divided by `β` (always 0 for a fixed `λ`).
    pub fn divisions(&self) -> u32 {
        self.lambda.divisions()
    }

    /// How `λ` evolves.
    pub fn schedule(&self) -> Lambda<R> {
        self.lambda.schedule()
    }
}

/// The saved state of [`PandoraIndex`] (and of every rule with a [`LambdaState`]).
#[cfg(feature = "serde")]
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PandoraRecord<R> {
    /// Times `λ` was divided by `β`.
    pub divisions: u32,
    /// The index of the pending decision (NaN when none).
    pub pending_index: R,
    /// The best value seen when it was made.
    pub best_seen: R,
}

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for PandoraIndex<R> {
    fn prices_points(&self) -> bool {
        true
    }

    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        super::require_full_set(problem)?;
        if !self.lambda.schedule().is_valid() {
            return Err(DriverError::InvalidParameter);
        }
        self.lambda = LambdaState::new(self.lambda.schedule());
        Ok(())
    }

    fn workspace_len(&self, _: &Problem<R, D, M>, _: usize, _: usize) -> usize {
        self.maximiser.workspace_len()
    }

    fn decide<const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        let (gp, m, log_lambda) = (round.gp, &self.maximiser, self.log_lambda());
        // The index's price is E[c] (paper 002, Eq. 26).
        let cost = round.box_cost(R::ONE)?;
        let play = round.play_box(m, &mut GittinsIndex::new(gp, log_lambda, cost))?;
        let seen = round.best_observed();
        if self.stop && seen >= play.score {
            return Ok(Choice::Stop);
        }
        self.lambda.decided(play.score, seen);
        Ok(Choice::Play(play))
    }

    lambda_state_hooks!(lambda);
}

/// A memo scalar as a count of divisions: a whole number in `0..2²⁴` (exact in `f32`).
fn count<R: Real>(v: R) -> Option<u32> {
    let f = v.to_f64();
    ((0.0..16_777_216.0).contains(&f) && f == (f as u32) as f64).then_some(f as u32)
}

use super::names::{in_precision, Parsed, Parameter, PolicySpecError, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "pbgi",
        summary: "Pandora's Box Gittins index, lambda = 1e-4 (paper 002's budgeted PBGI)",
    },
    RuleName {
        name: "pbgi:LAMBDA",
        summary: "Pandora's Box Gittins index with a fixed LAMBDA > 0 (paper 002)",
    },
    RuleName {
        name: "pbgi-d",
        summary: "PBGI-D: lambda from 0.1, halved when the stopping rule fires (paper 002)",
    },
    RuleName {
        name: "pbgi-d:LAMBDA:BETA",
        summary: "PBGI-D from LAMBDA > 0, divided by BETA > 1 when the stopping rule fires",
    },
    RuleName {
        name: "pbgi-stop:LAMBDA",
        summary: "cost-per-sample PBGI: fixed LAMBDA, stops by the Pandora rule (paper 002)",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<(Lambda<R>, bool, Maximiser)> {
    let m = defaults.maximiser;
    let spec = |lambda: Result<Lambda<R>, PolicySpecError>, stop| {
        Some(lambda.map(|lambda| (lambda, stop, m)))
    };
    match name {
        "pbgi" => spec(Ok(Lambda::paper_002_fixed()), false),
        "pbgi-d" => spec(Ok(Lambda::paper_002_decaying()), false),
        _ => {
            if let Some(text) = name.strip_prefix("pbgi:") {
                spec(fixed_lambda(text), false)
            } else if let Some(text) = name.strip_prefix("pbgi-stop:") {
                spec(fixed_lambda(text), true)
            } else {
                let (initial, factor) = match name.strip_prefix("pbgi-d:")?.split_once(':') {
                    Some(parts) => parts,
                    None => return Some(Err(PolicySpecError::BadLambda)),
                };
                let number = |t: &str| t.parse::<f64>().map_err(|_| PolicySpecError::BadLambda);
                let lambda = number(initial).and_then(|initial| {
                    let lambda = Lambda::Decaying {
                        initial: R::from_f64(initial),
                        factor: R::from_f64(number(factor)?),
                    };
                    if lambda.is_valid() {
                        Ok(lambda)
                    } else {
                        Err(PolicySpecError::BadLambda)
                    }
                });
                spec(lambda, false)
            }
        }
    }
}

/// A fixed `λ` from its text: finite and > 0.
pub(super) fn fixed_lambda<R: Real>(text: &str) -> Result<Lambda<R>, PolicySpecError> {
    let lambda: f64 = text.parse().map_err(|_| PolicySpecError::BadLambda)?;
    let lambda = Lambda::Fixed(R::from_f64(lambda));
    if lambda.is_valid() {
        Ok(lambda)
    } else {
        Err(PolicySpecError::BadLambda)
    }
}

impl<R: Real, T: Real> Parameter<T> for Lambda<R> {
    type In = Lambda<T>;

    fn convert(self) -> Lambda<T> {
        let c = in_precision::<R, T>;
        match self {
            Lambda::Fixed(v) => Lambda::Fixed(c(v)),
            Lambda::Decaying { initial, factor } => Lambda::Decaying {
                initial: c(initial),
                factor: c(factor),
            },
        }
    }
}
