//! Whether to pay for this round's measurement: Algorithm 1 of paper 003.
//!
//! Each round draws two uniforms `u₁, u₂` (always both, so that the generator's stream does
//! not depend on the posterior and a replay needs no record of why a round paid):
//! - pay when `u₁ < B₁/T` (the quota coin, which carries the regret bound);
//! - otherwise pay when the confidence test fires *and* `u₂ < (B₂−B₁)/T`;
//! - otherwise skip.
//!
//! The confidence test asks whether the posterior is sure the chosen point `x_t` beats every
//! competitor `x` (the local maxima of the UCB other than `x_t`):
//! - [`ConfidenceTest::Kappa`]: fires when some `p(x) = Φ((μ(x_t) − μ(x)) / √(σ²(x_t) + σ²(x)))`
//!   is below κ — the paper's eq. (53), with the two values treated as independent and the
//!   latent variances (no observation noise), as the paper defines it. With a fresh prior
//!   every `p(x)` is ½, so κ must exceed ½ for the test ever to fire; κ ∈ (0, 1) is accepted
//!   and the caller warned by the docs, not refused, since κ ≤ ½ is a legitimate "never pay
//!   while undecided" setting.
//! - [`ConfidenceTest::LcbUcb`]: Lemma 8's rule, fires unless `μ(x) + wσ(x) ≤ μ(x_t) − wσ(x_t)`
//!   for every competitor (`w = √β_t`, the width that chose `x_t`).
//!
//! The paper's configurations: full feedback ([`QueryRule::full`]), pure Bernoulli
//! (`B₁ = B₂ = pT`, [`QueryRule::bernoulli`]) and pure CE (`B₁ = 0`, `B₂ = T`,
//! [`QueryRule::confidence`], [`QueryRule::lcb_ucb`]); [`QueryRule::new`] takes any quotas.

use rand_core::Rng;

use crate::gp::Prediction;
use crate::random::uniform_open_23_bits;
use crate::real::Real;
use crate::special::normal_cdf;

/// Why a query rule could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryError {
    /// The quotas are not `0 ≤ B₁ ≤ B₂ ≤ T` with `T > 0`, or a rate is not in `[0, 1]`.
    Quota,
    /// κ is not in the open interval (0, 1).
    Kappa,
    /// A number was NaN or infinite.
    NonFinite,
}

impl core::fmt::Display for QueryError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Quota => {
                "the quotas are not 0 <= b1 <= b2 <= t with t > 0, or a rate is not in [0, 1]"
            }
            Self::Kappa => "kappa is not in the open interval (0, 1)",
            Self::NonFinite => "a number is NaN or infinite",
        })
    }
}

impl core::error::Error for QueryError {}

/// The confidence test of the cost-efficient rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ConfidenceTest<R> {
    /// No test: only the quota coin pays (pure Bernoulli, full feedback).
    Off,
    /// Pay when some competitor's `p(x) < κ` (the "CE @κ" rows).
    Kappa(R),
    /// Pay unless every competitor's UCB is at most the chosen point's LCB (the "@*" rows).
    LcbUcb,
}

/// Why a round paid or skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryReason {
    /// The quota coin fired.
    Quota,
    /// The confidence test fired and its gate coin let it through.
    Confidence,
    /// Neither: the round is not measured.
    Skip,
}

/// A round's answer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryDecision<R> {
    /// Pay for this round's measurement.
    pub pay: bool,
    /// Which part of the rule decided.
    pub reason: QueryReason,
    /// The smallest `p(x)` over the competitors (1 when there are none), whatever the test.
    pub min_probability: R,
    /// Whether the confidence test fired (false for [`ConfidenceTest::Off`]).
    pub test_fired: bool,
}

/// Algorithm 1's query rule (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QueryRule<R> {
    quota_rate: R,
    gated_rate: R,
    test: ConfidenceTest<R>,
}

/// `Pr(ŷ(chosen) > ŷ(other))` for independent normals of the given means and latent
/// variances: `Φ(Δμ / √(σ²_a + σ²_b))`; with both variances zero, 1, ½ or 0 by the sign of Δμ.
pub fn ce_probability<R: Real>(chosen: Prediction<R>, other: Prediction<R>) -> R {
    let gap = chosen.mean - other.mean;
    let spread = (chosen.variance.max(R::ZERO) + other.variance.max(R::ZERO)).sqrt();
    if spread > R::ZERO {
        normal_cdf(gap / spread)
    } else if gap > R::ZERO {
        R::ONE
    } else if gap < R::ZERO {
        R::ZERO
    } else {
        R::HALF
    }
}

fn check_rate<R: Real>(p: R) -> Result<R, QueryError> {
    if !p.is_finite() {
        return Err(QueryError::NonFinite);
    }
    if !(R::ZERO..=R::ONE).contains(&p) {
        return Err(QueryError::Quota);
    }
    Ok(p)
}

fn check_test<R: Real>(test: ConfidenceTest<R>) -> Result<ConfidenceTest<R>, QueryError> {
    if let ConfidenceTest::Kappa(k) = test {
        if !k.is_finite() {
            return Err(QueryError::NonFinite);
        }
        if !(k > R::ZERO && k < R::ONE) {
            return Err(QueryError::Kappa);
        }
    }
    Ok(test)
}

impl<R: Real> QueryRule<R> {
    /// Quotas `0 ≤ B₁ ≤ B₂ ≤ T` over a horizon of `T > 0` rounds, and a test.
    pub fn new(b1: R, b2: R, horizon: R, test: ConfidenceTest<R>) -> Result<Self, QueryError> {
        if !(b1.is_finite() && b2.is_finite() && horizon.is_finite()) {
            return Err(QueryError::NonFinite);
        }
        if !(horizon > R::ZERO && b1 >= R::ZERO && b1 <= b2 && b2 <= horizon) {
            return Err(QueryError::Quota);
        }
        Self::from_rates(b1 / horizon, (b2 - b1) / horizon, test)
    }

    /// The rule from its two coin probabilities `B₁/T` and `(B₂−B₁)/T` (their sum at most 1).
    pub fn from_rates(
        quota_rate: R,
        gated_rate: R,
        test: ConfidenceTest<R>,
    ) -> Result<Self, QueryError> {
        let (q, g) = (check_rate(quota_rate)?, check_rate(gated_rate)?);
        if q + g > R::ONE + R::EPSILON {
            return Err(QueryError::Quota);
        }
        Ok(QueryRule {
            quota_rate: q,
            gated_rate: g,
            test: check_test(test)?,
        })
    }

    /// Pay every round (full TV-GP-UCB).
    pub fn full() -> Self {
        QueryRule {
            quota_rate: R::ONE,
            gated_rate: R::ZERO,
            test: ConfidenceTest::Off,
        }
    }

    /// Pay with probability `p` each round (`B₁ = B₂ = pT`, "Ber(p)").
    pub fn bernoulli(p: R) -> Result<Self, QueryError> {
        Self::from_rates(p, R::ZERO, ConfidenceTest::Off)
    }

    /// Pure CE at threshold κ (`B₁ = 0`, `B₂ = T`).
    pub fn confidence(kappa: R) -> Result<Self, QueryError> {
        Self::from_rates(R::ZERO, R::ONE, ConfidenceTest::Kappa(kappa))
    }

    /// Pure CE with the LCB–UCB test (`B₁ = 0`, `B₂ = T`).
    pub fn lcb_ucb() -> Self {
        QueryRule {
            quota_rate: R::ZERO,
            gated_rate: R::ONE,
            test: ConfidenceTest::LcbUcb,
        }
    }

    /// `B₁/T`.
    pub fn quota_rate(&self) -> R {
        self.quota_rate
    }

    /// `(B₂−B₁)/T`.
    pub fn gated_rate(&self) -> R {
        self.gated_rate
    }

    /// The confidence test.
    pub fn test(&self) -> ConfidenceTest<R> {
        self.test
    }

    /// Decides this round from the posterior at the chosen point, at the competitors (the
    /// UCB's local maxima other than the chosen point) and the UCB width `w = √β_t` that
    /// chose it. Draws exactly two uniforms from `rng`.
    pub fn decide<G: Rng + ?Sized>(
        &self,
        chosen: Prediction<R>,
        competitors: impl IntoIterator<Item = Prediction<R>>,
        width: R,
        rng: &mut G,
    ) -> QueryDecision<R> {
        let quota_coin: R = uniform_open_23_bits(rng);
        let gate_coin: R = uniform_open_23_bits(rng);
        let mut min_probability = R::ONE;
        let mut ucb_above_lcb = false;
        let lcb = chosen.mean - width * chosen.variance.max(R::ZERO).sqrt();
        for other in competitors {
            let p = ce_probability(chosen, other);
            if p < min_probability || p.is_nan() {
                min_probability = p;
            }
            let ucb = other.mean + width * other.variance.max(R::ZERO).sqrt();
            // NaN compares false, so a NaN posterior counts as "not sure": pay.
            if ucb > lcb || ucb.is_nan() || lcb.is_nan() {
                ucb_above_lcb = true;
            }
        }
        let test_fired = match self.test {
            ConfidenceTest::Off => false,
            ConfidenceTest::Kappa(kappa) => min_probability < kappa || min_probability.is_nan(),
            ConfidenceTest::LcbUcb => ucb_above_lcb,
        };
        let (pay, reason) = if quota_coin < self.quota_rate {
            (true, QueryReason::Quota)
        } else if test_fired && gate_coin < self.gated_rate {
            (true, QueryReason::Confidence)
        } else {
            (false, QueryReason::Skip)
        };
        QueryDecision {
            pay,
            reason,
            min_probability,
            test_fired,
        }
    }
}
