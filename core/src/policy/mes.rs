//! Paper 002's entropy baselines over a box: max-value entropy search (**MES**, Wang & Jegelka
//! 2017) under uniform costs, and its information gain per unit cost (**MFMES** as the paper's
//! code runs it: BoTorch's multi-fidelity MES on one fidelity, weighted by the inverse cost).
//!
//! Each round, as the paper's code builds BoTorch's `qMaxValueEntropy`
//! (`docs/notes/seed-002.md`, the table of baselines):
//! 1. a candidate set of `1000·d` uniform points of the unit box, followed by the model's inputs
//!    (BoTorch appends the training inputs);
//! 2. the posterior's marginals there, and [`gumbel_max_values`]' Gumbel fit to
//!    `Pr[y* < z] ≈ Πᵢ Φ((z − μᵢ)/σᵢ)`, from which [`MAX_VALUE_SAMPLES`] samples of the maximum
//!    are drawn;
//! 3. the play at the maximiser of [`MaxValueEntropy`] given those samples (divided by the
//!    cost for MFMES), by the same optimiser as the other rules over a box.
//!
//! Where ours departs from BoTorch's: the information gain is the noiseless closed form
//! ([`max_value_entropy`](crate::special::entropy::max_value_entropy)); BoTorch's
//! `qMaxValueEntropy` estimates the gain about a *noisy* observation by sampling it (128
//! samples). With the small noise of paper 002's models the two agree closely; they are not
//! the same number.
//!
//! The candidates' moments need `2·(1000·d + N)` scalars of the caller's workspace for a model
//! of capacity `N` ([`Policy::workspace_len`] says so); with less, the rule refuses to decide
//! ([`DriverError::WorkspaceTooSmall`]) rather than decide differently, so a decision never
//! depends on how much memory the caller gave.

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

use super::{Choice, DriverError, Maximiser, Policy, Round};
use crate::acquisition::cost::Uniform;
use crate::acquisition::max_value_entropy::{candidate_moments, MaxValueEntropy};
use crate::expectation::uniform_open;
use crate::gp::PREDICT_BLOCK;
use crate::problem::Problem;
use crate::real::Real;
use crate::special::gumbel::gumbel_max_values;

/// Samples of the maximum per round (BoTorch's `num_mv_samples` default).
pub const MAX_VALUE_SAMPLES: usize = 10;

/// Uniform candidates per dimension of the box (the paper's code: `1000·d`).
pub const CANDIDATES_PER_DIMENSION: usize = 1000;

/// Scalars of workspace the rule needs with a model of `capacity` observations in `d`
/// dimensions: the candidates' means and standard deviations.
pub const fn workspace_len(d: usize, capacity: usize) -> usize {
    2 * (CANDIDATES_PER_DIMENSION * d + capacity)
}

/// Mixed into the round's seed for the candidates and the uniforms of the samples, so that they
/// are not the same stream as the optimiser's raw samples (seeded with the round's seed).
const STREAM: u64 = 0x4d45_535f_6361_6e64;

/// What the information gain is weighed against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gain {
    /// The gain itself (MES, uniform costs).
    Total,
    /// The gain per unit cost (MFMES as the paper's code runs it).
    PerUnitCost,
}

/// An entropy rule (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaxValueEntropySearch {
    gain: Gain,
    maximiser: Maximiser,
}

impl MaxValueEntropySearch {
    /// The rule weighing the gain by `gain`, maximised by `maximiser`.
    pub fn new(gain: Gain, maximiser: Maximiser) -> Self {
        MaxValueEntropySearch { gain, maximiser }
    }

    /// What the gain is weighed against.
    pub fn gain(&self) -> Gain {
        self.gain
    }
}

impl<R: Real, const D: usize, const M: usize> Policy<R, D, M> for MaxValueEntropySearch {
    fn needs_workspace(&self) -> bool {
        true
    }

    fn prices_points(&self) -> bool {
        self.gain == Gain::PerUnitCost
    }

    super::stateless_record!();

    fn start(&mut self, problem: &Problem<R, D, M>) -> Result<(), DriverError> {
        super::require_full_set(problem).map(|_| ())
    }

    fn workspace_len(&self, _: &Problem<R, D, M>, capacity: usize, _: usize) -> usize {
        self.maximiser
            .workspace_len()
            .max(workspace_len(D, capacity))
    }

    fn decide<const N: usize, S, B>(
        &mut self,
        round: &mut Round<'_, R, N, D, M, S, B>,
    ) -> Result<Choice<R, D>, DriverError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        let gp = round.gp;
        if gp.is_empty() {
            // The Gumbel fit is of a posterior: the initial design comes first.
            return Err(DriverError::NoScore);
        }
        // What prices the gain, found before the candidates' work: a learned cost needs its
        // model, a known one the set of every variable. A learned cost weighs the gain by
        // E[c^{−1}], as LogEIPC's E[c^{−α}] at α = 1.
        let cost = match self.gain {
            Gain::PerUnitCost => Some(round.box_cost(-R::ONE)?),
            Gain::Total => None,
        };
        super::require_full_set(round.problem)?;
        let uniform = CANDIDATES_PER_DIMENSION * gp.kernel().inputs_seen();
        let count = uniform + gp.len();
        // The room for a full model is asked from the first round on, so that a workspace
        // which would run short later is refused before the run starts, not part-way.
        if round.workspace.len() < workspace_len(D, N) {
            return Err(DriverError::WorkspaceTooSmall);
        }
        let samples = {
            let (means, rest) = round.workspace.split_at_mut(count);
            let stds = &mut rest[..count];
            let mut rng = Xoshiro128PlusPlus::seed_from_u64(round.seed ^ STREAM);
            let mut block = [[R::ZERO; D]; PREDICT_BLOCK];
            let mut start = 0;
            while start < count {
                let len = PREDICT_BLOCK.min(count - start);
                for (k, x) in block[..len].iter_mut().enumerate() {
                    let i = start + k;
                    *x = if i < uniform {
                        core::array::from_fn(|_| uniform_open(&mut rng))
                    } else {
                        gp.inputs()[i - uniform]
                    };
                }
                let end = start + len;
                candidate_moments(
                    gp,
                    &block[..len],
                    &mut means[start..end],
                    &mut stds[start..end],
                )
                .map_err(DriverError::Gp)?;
                start = end;
            }
            let u: [R; MAX_VALUE_SAMPLES] = core::array::from_fn(|_| uniform_open(&mut rng));
            let mut samples = [R::ZERO; MAX_VALUE_SAMPLES];
            gumbel_max_values(means, stds, &u, &mut samples).map_err(|_| DriverError::NoScore)?;
            samples
        };
        let m = &self.maximiser;
        let play = match cost {
            None => round.play_box(m, &mut MaxValueEntropy::new(gp, &samples, R::ZERO, Uniform)),
            Some(cost) => round.play_box(m, &mut MaxValueEntropy::new(gp, &samples, R::ONE, cost)),
        };
        play.map(Choice::Play)
    }
}

use super::names::{Parsed, RuleDefaults, RuleName};

/// This rule's names in the registry ([`RULES`](super::RULES)).
pub const NAMES: &[RuleName] = &[
    RuleName {
        name: "mes",
        summary: "max-value entropy search over the box, Gumbel samples (paper 002's MES)",
    },
    RuleName {
        name: "mfmes",
        summary: "MES per unit cost (paper 002's MFMES on one fidelity)",
    },
];

/// The parameters of the rule called `name` if it is one of [`NAMES`], with `defaults` for
/// what the name leaves open; `None` for another rule's name.
pub fn parse<R: Real>(
    name: &str,
    defaults: &RuleDefaults<R>,
) -> Parsed<(Gain, Maximiser)> {
    Some(Ok(match name {
        "mes" => (Gain::Total, defaults.maximiser),
        "mfmes" => (Gain::PerUnitCost, defaults.maximiser),
        _ => return None,
    }))
}

super::names::plain_parameter!(Gain);
