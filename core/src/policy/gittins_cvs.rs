//! A Gittins-index rule for control sets (ours, issue 20; no paper has it): each round, the
//! index of control set `i` is the best over its controlled values `x` of the `g` solving
//! `E_X[EI([x^i, X]; g)] = λ·cᵢ` ([`ExpectedGittins`]), the expectation over the variables the
//! set leaves to chance; the set with the largest index is played at its maximiser.
//!
//! It carries paper 002's Pandora's Box argument over to paper 000's setting: the index is the
//! threshold at which paying `cᵢ` to "open" set `i` at `x` breaks even in expected improvement,
//! so a cheap set that leaves much to chance and an expensive one that controls everything are
//! compared on one scale without a tolerance `ε` or an exploration length. `λ` follows PBGI-D's
//! schedule ([`Lambda`]; `λ₀ = 0.1`, halved whenever the stopping rule fires: the index the
//! decision was made with is below the best value observed, the new one included), and its
//! state (the number of halvings) is carried as PBGI-D's is: in the memo for replays and in
//! the snapshot record.
//!
//! Cost: one index per candidate needs a posterior per bank point (`S` predictions, `O(S·n²)`)
//! and a root of a sum of `S` expected improvements (a handful of Newton steps); memory: the
//! workspace holds `S·(2 + 2D)` scalars for the bank's posteriors.

use super::memo::{tags, Memo};
use super::pbgi::Lambda;
use super::scoring::set_seed;
use super::{play_selected, values, Choice, DriverError, Outcome, Policy, Round};
use crate::acquisition::expected_gittins::ExpectedGittins;
use crate::inner::maximize;
use crate::problem::Problem;
use crate::real::Real;

/// The Gittins-index rule for control sets (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GittinsCvs<R> {
    lambda: Lambda<R>,
    /// Times `λ` was divided by `β`.
    divisions: u32,
    /// The index of the pending decision (NaN when none).
    pending_index: R,
    /// The best value observed when the pending decision was made.
    best_seen: R,
}

impl<R: Real> GittinsCvs<R> {
    /// The rule with `λ` evolving by `lambda`. A controller refuses to start it
    /// ([`DriverError::InvalidParameter`]) unless `λ` is positive and finite (and `β > 1`), and
    /// on a problem without known per-set costs ([`DriverError::RuleNeedsKnownCosts`]).
    pub fn new(lambda: Lambda<R>) -> Self {
        GittinsCvs {
            lambda,
            divisions: 0,
            pending_index: R::from_f64(f64::NAN),
            best_seen: -R::INFINITY,
        }
    }

    /// How `λ` evolves.
    pub fn schedule(&self) -> Lambda<R> {
        self.lambda
    }

    /// How many times `λ` was divided (always 0 for a fixed `λ`).
    pub fn divisions(&self) -> u32 {
        self.divisions
    }

    /// The current `ln λ = ln λ₀ − k·ln β`.
    pub fn log_lambda(&self) -> R {
        match self.lambda {
            Lambda::Fixed(l) => l.ln(),
            Lambda::Decaying { initial, factor } => {
                initial.ln() - R::from_usize(self.divisions as usize) * factor.ln()
            }
        }
    }
}

/// The saved state of [`GittinsCvs`] (the same fields as PBGI-D's).
#[cfg(feature = "serde")]
pub type GittinsCvsRecord<R> = super::pbgi::PandoraRecord<R>;

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for GittinsCvs<R> {
    #[cfg(feature = "serde")]
    type Record = GittinsCvsRecord<R>;

    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        super::require_set_costs(problem)?;
        if !self.lambda.is_valid() {
            return Err(DriverError::InvalidParameter);
        }
        *self = GittinsCvs::new(self.lambda);
        Ok(())
    }

    fn workspace_len(&self, _: &Problem<R, D, M>, _: usize, bank: usize) -> usize {
        bank * (2 + 2 * D)
    }

    fn decide<const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        let problem = round.problem;
        let m = problem.num_sets();
        let costs = round.set_costs();
        let log_lambda = self.log_lambda();
        let mut out = [None; M];
        for (i, set) in problem.sets().iter().enumerate() {
            let mut acquisition = ExpectedGittins::new(
                round.gp,
                round.bank,
                *set,
                log_lambda + costs[i].ln(),
                &mut *round.workspace,
            )
            .ok_or(DriverError::WorkspaceTooSmall)?;
            out[i] = maximize(
                *set,
                &mut acquisition,
                &round.settings.inner,
                set_seed(round.seed, i),
            );
        }
        let scores: [R; M] = values(&out[..m]);
        // The largest index; ties go to the cheaper set.
        let chosen = (0..m).filter(|&i| scores[i].is_finite()).fold(
            None,
            |best: Option<usize>, i| match best {
                Some(b)
                    if scores[b] > scores[i]
                        || (scores[b] == scores[i] && costs[b] <= costs[i]) =>
                {
                    Some(b)
                }
                _ => Some(i),
            },
        );
        let choice = play_selected(&out[..m], chosen)?;
        if let Choice::Play(play) = choice {
            self.pending_index = play.score;
            self.best_seen = round.best_observed();
        }
        Ok(choice)
    }

    fn record(&mut self, outcome: &Outcome<'_, R, D, M>) {
        if outcome.set.is_none() {
            return;
        }
        let index = self.pending_index;
        self.pending_index = R::from_f64(f64::NAN);
        // PBGI-D's rule: a_τ < f*, f* including the value just observed; NaN never fires.
        if matches!(self.lambda, Lambda::Decaying { .. }) && index < self.best_seen.max(outcome.y) {
            self.divisions = self.divisions.saturating_add(1);
        }
    }

    fn memo(&self) -> Memo<R> {
        match self.lambda {
            Lambda::Fixed(_) => Memo::EMPTY,
            Lambda::Decaying { .. } => {
                let k = R::from_usize(self.divisions as usize);
                Memo::new(tags::GITTINS_DIVISIONS, &[k]).unwrap_or(Memo::EMPTY)
            }
        }
    }

    fn check_memo(&self, memo: &Memo<R>) -> Result<(), DriverError> {
        let fits = match self.lambda {
            Lambda::Fixed(_) => memo.is_empty(),
            Lambda::Decaying { .. } => {
                memo.tag() == tags::GITTINS_DIVISIONS
                    && memo.values().len() == 1
                    && super::pbgi::count(memo.values()[0]).is_some()
            }
        };
        if fits {
            Ok(())
        } else {
            Err(DriverError::InvalidMemo)
        }
    }

    fn apply_memo(&mut self, memo: &Memo<R>) {
        if let (Lambda::Decaying { .. }, Some(k)) = (
            self.lambda,
            memo.values().first().copied().and_then(super::pbgi::count),
        ) {
            self.divisions = k;
        }
    }

    #[cfg(feature = "serde")]
    fn save(&self) -> Self::Record {
        GittinsCvsRecord {
            divisions: self.divisions,
            pending_index: self.pending_index,
            best_seen: self.best_seen,
        }
    }

    #[cfg(feature = "serde")]
    fn load(&mut self, record: &Self::Record) -> Result<(), DriverError> {
        if matches!(self.lambda, Lambda::Fixed(_)) && record.divisions != 0 {
            return Err(DriverError::InvalidSnapshot);
        }
        self.divisions = record.divisions;
        self.pending_index = record.pending_index;
        self.best_seen = record.best_seen;
        Ok(())
    }
}
