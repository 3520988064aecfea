//! Classical multi-armed bandit baselines (feature `bandit-baselines`): the comparison methods
//! of paper 003's time-varying bandit study (App. E.1, Table A1), which pay for feedback on a
//! Bernoulli(p) coin rather than by the cost-efficient rule.
//!
//! One file per algorithm, all over a const-generic number of arms `K` (arrays, no heap):
//! - [`exp3s::Exp3S`]: EXP3.S of Auer, Cesa-Bianchi, Freund & Schapire (2002), exponential
//!   weights with importance-weighted rewards and weight sharing for a changing best arm;
//! - [`exp3r::Exp3R`]: EXP3.R of Allesiardo & Féraud (2015), EXP3 restarted when a drift
//!   test on its uniform exploration finds an arm better than the one it trusts;
//! - [`epsilon_greedy::EpsilonGreedy`]: sample averages, a uniformly random arm with
//!   probability ε;
//! - [`softmax::Softmax`]: Boltzmann exploration over the sample averages with temperature τ;
//! - [`ucb1::Ucb1`]: UCB1 of Auer, Cesa-Bianchi & Fischer (2002), each arm once, then the
//!   largest `mean + √(2 ln n / nᵢ)`.
//!
//! The round protocol is the [`Bandit`] trait: [`Bandit::choose`] picks this round's arm;
//! then either [`Bandit::observe`] (the round's reward was paid for) or [`Bandit::skip`] (it
//! was not). Rounds without feedback leave the learner as it was: the coin that decides
//! whether to pay is independent of the arm, so the rounds that are observed form an ordinary
//! run of the algorithm on a subsequence of the rounds, which is how the baselines are run in
//! the paper's Bernoulli setting.
//!
//! Every error is a typed [`BanditError`], returned before anything changes: a refused call
//! leaves the learner exactly as it was. Nothing here panics on user input.
//!
//! Random numbers come from [`uniform_open_23_bits`], which is exact in `f32` and `f64`, so
//! the two precisions see the same uniforms and (away from exact ties) make the same choices.

use rand_core::Rng;

use crate::random::uniform_open_23_bits;
use crate::real::Real;

pub mod epsilon_greedy;
pub mod exp3r;
pub mod exp3s;
pub mod softmax;
pub mod ucb1;

pub use epsilon_greedy::EpsilonGreedy;
pub use exp3r::Exp3R;
pub use exp3s::Exp3S;
pub use softmax::Softmax;
pub use ucb1::Ucb1;

/// Why a bandit refused a construction or an observation. A refused call changes nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BanditError {
    /// The bandit was asked to be built with `K = 0` arms.
    NoArms,
    /// An arm index `arm` is not below the number of arms `arms`.
    ArmOutOfRange {
        /// The index given.
        arm: usize,
        /// The number of arms.
        arms: usize,
    },
    /// A reward (or the running sum it would produce) is NaN or infinite.
    NonFinite,
    /// A reward is outside `[0, 1]` for an algorithm whose update assumes it (EXP3.S, UCB1).
    OutsideUnitInterval,
    /// EXP3.S or EXP3.R was given a reward for an arm other than the one chosen this round, or with no
    /// round pending (no [`Bandit::choose`] since the last observation or skip): its
    /// importance weight `1/pᵢ` is only unbiased for the arm that was drawn.
    NotChosen,
    /// EXP3.S's or EXP3.R's γ is not in `(0, 1]`.
    Gamma,
    /// EXP3.R's interval is shorter than the number of arms.
    Interval,
    /// EXP3.R's δ is not in `(0, 1)`.
    Delta,
    /// EXP3.S's α is negative or not finite.
    Alpha,
    /// ε-greedy's ε is not in `[0, 1]`.
    Epsilon,
    /// Softmax's temperature τ is not positive and finite.
    Temperature,
}

impl core::fmt::Display for BanditError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NoArms => f.write_str("a bandit needs at least one arm"),
            Self::ArmOutOfRange { arm, arms } => {
                write!(f, "arm {arm} is out of range for a bandit of {arms} arms")
            }
            Self::NonFinite => {
                f.write_str("a reward, or the running sum it would produce, is NaN or infinite")
            }
            Self::OutsideUnitInterval => f.write_str("a reward is outside [0, 1]"),
            Self::NotChosen => f.write_str(
                "exp3.s was given a reward for an arm other than the one chosen this round, or \
                 with no round pending",
            ),
            Self::Gamma => f.write_str("exp3.s's or exp3.r's gamma is not in (0, 1]"),
            Self::Interval => f.write_str("exp3.r's interval is shorter than the number of arms"),
            Self::Delta => f.write_str("exp3.r's delta is not in (0, 1)"),
            Self::Alpha => f.write_str("exp3.s's alpha is negative or not finite"),
            Self::Epsilon => f.write_str("epsilon-greedy's epsilon is not in [0, 1]"),
            Self::Temperature => f.write_str("softmax's temperature is not positive and finite"),
        }
    }
}

impl core::error::Error for BanditError {}

/// A `K`-armed bandit learner, played one round at a time.
///
/// Each round: [`choose`](Bandit::choose) once, then [`observe`](Bandit::observe) if the
/// round's reward was paid for, or [`skip`](Bandit::skip) if not.
pub trait Bandit<R: Real> {
    /// The number of arms `K`.
    fn arms(&self) -> usize;

    /// Picks this round's arm, an index below [`arms`](Bandit::arms), drawing from `rng` as
    /// the algorithm needs.
    fn choose<G: Rng + ?Sized>(&mut self, rng: &mut G) -> usize;

    /// Feeds the reward of `arm` for the current round. Called only on rounds whose reward
    /// was paid for; a refused observation leaves the learner unchanged.
    fn observe(&mut self, arm: usize, reward: R) -> Result<(), BanditError>;

    /// Ends a round without feedback. The default does nothing, because an unobserved round
    /// carries no information about the rewards.
    fn skip(&mut self) {}

    /// True when [`observe`](Bandit::observe) accepts only rewards in `[0, 1]` (the caller
    /// clips noisy rewards for these).
    fn needs_unit_rewards(&self) -> bool {
        false
    }
}

/// EXP3's distribution `pᵢ = (1 − γ) wᵢ / Σw + γ/K` (EXP3.S and EXP3.R).
pub(crate) fn exp3_probabilities<R: Real, const K: usize>(weights: &[R; K], gamma: R) -> [R; K] {
    let sum = weights.iter().fold(R::ZERO, |s, &w| s + w);
    let floor = gamma / R::from_usize(K);
    let mut p = [R::ZERO; K];
    for (pi, &w) in p.iter_mut().zip(weights) {
        *pi = (R::ONE - gamma) * (w / sum) + floor;
    }
    p
}

/// EXP3's update of weights stored divided by their sum, after reward `x` of `arm` drawn
/// with probability `p_arm`: `w_arm ← w_arm exp(γ x / (p_arm K))`, then every weight plus
/// EXP3.S's share `(e α / K) Σw` (`α = 0`: EXP3, and EXP3.R), renormalised.
pub(crate) fn exp3_update<R: Real, const K: usize>(
    weights: &mut [R; K],
    gamma: R,
    alpha: R,
    arm: usize,
    p_arm: R,
    reward: R,
) {
    let k = R::from_usize(K);
    // Σᵢ wᵢ(t) is 1 up to rounding; use the actual sum so the sharing term is exact.
    let sum = weights.iter().fold(R::ZERO, |s, &w| s + w);
    let share = R::from_f64(core::f64::consts::E) * alpha / k * sum;
    let estimate = reward / p_arm;
    let mut next = *weights;
    for (j, w) in next.iter_mut().enumerate() {
        let grown = if j == arm {
            *w * (gamma * estimate / k).exp()
        } else {
            *w
        };
        *w = grown + share;
    }
    // The new sum is at least the old one (each factor is ≥ 1, the share ≥ 0), so it is
    // positive and the division well defined.
    let new_sum = next.iter().fold(R::ZERO, |s, &w| s + w);
    for w in next.iter_mut() {
        *w /= new_sum;
    }
    *weights = next;
}

/// Refuses an arm index that is not below `K`.
pub(crate) fn check_arm<const K: usize>(arm: usize) -> Result<(), BanditError> {
    if arm < K {
        Ok(())
    } else {
        Err(BanditError::ArmOutOfRange { arm, arms: K })
    }
}

/// Refuses a reward that is not finite, or (when `unit`) not in `[0, 1]`.
pub(crate) fn check_reward<R: Real>(reward: R, unit: bool) -> Result<(), BanditError> {
    if !reward.is_finite() {
        return Err(BanditError::NonFinite);
    }
    if unit && !(reward >= R::ZERO && reward <= R::ONE) {
        return Err(BanditError::OutsideUnitInterval);
    }
    Ok(())
}

/// A uniformly random arm among `count` from one uniform: `⌊u·count⌋`, clamped below `count`
/// because `u·count` may round up to `count` in `f32`.
pub(crate) fn uniform_index<R: Real, G: Rng + ?Sized>(rng: &mut G, count: usize) -> usize {
    let u: R = uniform_open_23_bits(rng);
    let i = (u * R::from_usize(count)).floor().to_f64() as usize;
    i.min(count.saturating_sub(1))
}

/// Draws an index from the distribution `probs` (non-negative, summing to one up to rounding)
/// by inverting its CDF at one uniform. Rounding can leave the CDF just short of one, so a
/// uniform beyond the last partial sum falls on the last arm with positive probability.
pub(crate) fn sample_categorical<R: Real, G: Rng + ?Sized, const K: usize>(
    rng: &mut G,
    probs: &[R; K],
) -> usize {
    let u: R = uniform_open_23_bits(rng);
    let mut cumulative = R::ZERO;
    let mut last_positive = 0;
    for (i, &p) in probs.iter().enumerate() {
        if p > R::ZERO {
            last_positive = i;
        }
        cumulative += p;
        if u < cumulative {
            return i;
        }
    }
    last_positive
}

/// Per-arm observation counts and sample averages, the state of ε-greedy, softmax and UCB1.
///
/// Each average is kept as a sum and recomputed as `sum / n` (one correctly rounded division)
/// rather than updated incrementally: two arms whose averages are equal as exact fractions
/// then compare equal in `f32` as in `f64` whenever the rewards are exact in both, so ties
/// (and the choices they decide) do not depend on the precision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleAverages<R, const K: usize> {
    counts: [usize; K],
    sums: [R; K],
    means: [R; K],
    total: usize,
}

impl<R: Real, const K: usize> SampleAverages<R, K> {
    /// No observations: every count and mean zero.
    pub fn new() -> Self {
        SampleAverages {
            counts: [0; K],
            sums: [R::ZERO; K],
            means: [R::ZERO; K],
            total: 0,
        }
    }

    /// The number of observations of each arm.
    pub fn counts(&self) -> &[usize; K] {
        &self.counts
    }

    /// The sample average of each arm's rewards (zero before its first observation).
    pub fn means(&self) -> &[R; K] {
        &self.means
    }

    /// The number of observations of all arms together.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Adds one reward of `arm`. Refuses (changing nothing) an arm out of range, a non-finite
    /// reward, a reward whose sum with the earlier ones would overflow, and a reward outside
    /// `[0, 1]` when `unit`.
    pub fn update(&mut self, arm: usize, reward: R, unit: bool) -> Result<(), BanditError> {
        check_arm::<K>(arm)?;
        check_reward(reward, unit)?;
        let n = self.counts[arm] + 1;
        let sum = self.sums[arm] + reward;
        if !sum.is_finite() {
            return Err(BanditError::NonFinite);
        }
        self.counts[arm] = n;
        self.sums[arm] = sum;
        self.means[arm] = sum / R::from_usize(n);
        self.total += 1;
        Ok(())
    }
}

impl<R: Real, const K: usize> Default for SampleAverages<R, K> {
    fn default() -> Self {
        Self::new()
    }
}
