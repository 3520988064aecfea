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

use super::pbgi::{Lambda, LambdaState};
use super::scoring::set_seed;
use super::{play_selected, values, Choice, DriverError, Policy, Round};
use crate::acquisition::expected_gittins::ExpectedGittins;
use crate::inner::maximize;
use crate::problem::Problem;
use crate::real::Real;

/// The Gittins-index rule for control sets (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GittinsCvs<R> {
    lambda: LambdaState<R>,
}

impl<R: Real> GittinsCvs<R> {
    /// The rule with `λ` evolving by `lambda`. A controller refuses to start it
    /// ([`DriverError::InvalidParameter`]) unless `λ` is positive and finite (and `β > 1`), and
    /// on a problem without known per-set costs ([`DriverError::RuleNeedsKnownCosts`]).
    pub fn new(lambda: Lambda<R>) -> Self {
        GittinsCvs {
            lambda: LambdaState::new(lambda),
        }
    }

    /// How `λ` evolves.
    pub fn schedule(&self) -> Lambda<R> {
        self.lambda.schedule()
    }

    /// How many times `λ` was divided (always 0 for a fixed `λ`).
    pub fn divisions(&self) -> u32 {
        self.lambda.divisions()
    }

    /// The current `ln λ = ln λ₀ − k·ln β`.
    pub fn log_lambda(&self) -> R {
        self.lambda.log_lambda()
    }
}

/// The saved state of [`GittinsCvs`] (the same fields as PBGI-D's).
#[cfg(feature = "serde")]
pub type GittinsCvsRecord<R> = super::pbgi::PandoraRecord<R>;

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for GittinsCvs<R> {
    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        super::require_set_costs(problem)?;
        if !self.lambda.schedule().is_valid() {
            return Err(DriverError::InvalidParameter);
        }
        *self = GittinsCvs::new(self.lambda.schedule());
        Ok(())
    }

    // The expected Gittins index keeps the bank's per-point terms in the workspace: no
    // decision without it.
    fn needs_workspace(&self) -> bool {
        true
    }

    fn workspace_len(&self, _: &Problem<R, D, M>, _: usize, bank: usize) -> usize {
        crate::acquisition::expected_gittins::workspace_len::<D>(bank)
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
        // `score_each_set`'s loop (each set its own candidate stream, `set_seed`), written out:
        // each set's acquisition borrows the round's workspace mutably, which a closure cannot
        // lend once per set.
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
            self.lambda.decided(play.score, round.best_observed());
        }
        Ok(choice)
    }

    super::pbgi::lambda_state_hooks!(lambda);
}

use super::names::{Parsed, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "gittins-cvs",
        summary: "each control set's Gittins index over the bank, PBGI-D's lambda (ours, issue 20)",
    },
    RuleName {
        name: "gittins-cvs:LAMBDA",
        summary: "the Gittins-index rule for control sets with a fixed LAMBDA > 0 (ours)",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<Lambda<R>> {
    let _ = defaults;
    let lambda = match name {
        "gittins-cvs" => Ok(Lambda::paper_002_decaying()),
        _ => super::pbgi::fixed_lambda(name.strip_prefix("gittins-cvs:")?),
    };
    Some(lambda)
}
