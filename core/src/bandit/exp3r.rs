//! EXP3.R: Allesiardo & Féraud (2015), "EXP3 with drift detection for the switching bandit
//! problem" (DSAA; the journal version is Allesiardo, Féraud & Maillard 2017, IJDSA 3(4)),
//! EXP3 restarted whenever a drift test on its uniform exploration says that another arm has
//! become better than the one EXP3 trusts. Paper 003 runs it as a baseline of its STN study
//! (Table A3).
//!
//! Parameters `γ ∈ (0, 1]` (EXP3's exploration), `H ≥ K` (rounds per interval) and
//! `δ ∈ (0, 1)` (the test's failure probability); rewards in `[0, 1]`. Round `t`:
//! 1. with probability `γ` the arm is drawn uniformly (an *exploration* draw), otherwise from
//!    the weights `wᵢ / Σw`; together, `pᵢ(t) = (1 − γ) wᵢ / Σw + γ/K`, EXP3's distribution;
//! 2. on feedback `x` for the drawn arm `i`: EXP3's update `wᵢ ← wᵢ exp(γ x / (pᵢ(t) K))`,
//!    and an exploration draw's reward also joins arm `i`'s sample of the current interval;
//! 3. after `H` observed rounds the interval ends. When every arm has at least `⌈γH/K⌉`
//!    exploration rewards in it, the drift test compares their means `μ̂ₖ` with that of the
//!    arm EXP3 trusts most, `k_max = argmax pᵢ`: if some `μ̂ₖ − μ̂_{k_max} ≥ 2ε`,
//!    `ε = √(K ln(1/δ) / (2γH))`, the weights restart uniform. A new interval begins either way.
//!
//! Each arm's sample holds about `γH/K` rewards, so `2ε` is the Hoeffding width of a difference
//! of two such means at confidence `1 − δ`. With the authors' defaults ([`Exp3R::defaults`])
//! `2ε` exceeds 1 at the horizons of paper 003 (about 1.2 at `T` = 200 or 2 000), so rewards in
//! `[0, 1]` can never fire the test and EXP3.R plays as EXP3 (measured in the study).
//!
//! As in the other baselines, a round without feedback changes nothing (see the
//! [module docs](super)), so the intervals count observed rounds. Weights are stored divided
//! by their sum, as in [`Exp3S`](super::Exp3S).

use rand_core::Rng;

use super::{
    check_arm, check_reward, exp3_probabilities, exp3_update, sample_categorical, uniform_index,
    Bandit, BanditError,
};
use crate::random::uniform_open_23_bits;
use crate::real::Real;

/// EXP3.R over `K` arms (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exp3R<R, const K: usize> {
    gamma: R,
    interval: usize,
    /// `2ε`, the test's threshold.
    threshold: R,
    /// The exploration rewards each arm needs in an interval before the test runs.
    needed: usize,
    weights: [R; K],
    probabilities: [R; K],
    /// The arm drawn this round and whether the draw was an exploration draw.
    pending: Option<(usize, bool)>,
    /// Observed rounds in the current interval.
    elapsed: usize,
    sums: [R; K],
    counts: [usize; K],
    restarts: usize,
}

impl<R: Real, const K: usize> Exp3R<R, K> {
    /// EXP3.R with exploration `gamma ∈ (0, 1]`, intervals of `interval ≥ K` observed rounds
    /// and failure probability `delta ∈ (0, 1)`. Refuses `K = 0` ([`BanditError::NoArms`]),
    /// γ outside `(0, 1]` ([`BanditError::Gamma`]), an interval shorter than `K`
    /// ([`BanditError::Interval`]) and δ outside `(0, 1)` ([`BanditError::Delta`]).
    pub fn new(gamma: R, interval: usize, delta: R) -> Result<Self, BanditError> {
        if K == 0 {
            return Err(BanditError::NoArms);
        }
        if !(gamma > R::ZERO && gamma <= R::ONE) {
            return Err(BanditError::Gamma);
        }
        if interval < K {
            return Err(BanditError::Interval);
        }
        if !(delta > R::ZERO && delta < R::ONE) {
            return Err(BanditError::Delta);
        }
        let k = R::from_usize(K);
        let h = R::from_usize(interval);
        let epsilon = (k * (R::ONE / delta).ln() / (R::from_f64(2.0) * gamma * h)).sqrt();
        // ⌈x⌉ = −⌊−x⌋ (the real type has `floor`).
        let needed = (-(-(gamma * h / k)).floor()).to_f64() as usize;
        let uniform = R::ONE / k;
        Ok(Exp3R {
            gamma,
            interval,
            threshold: R::from_f64(2.0) * epsilon,
            needed: needed.max(1),
            weights: [uniform; K],
            probabilities: [uniform; K],
            pending: None,
            elapsed: 0,
            sums: [R::ZERO; K],
            counts: [0; K],
            restarts: 0,
        })
    }

    /// The authors' defaults for a horizon of `horizon` observed rounds (≥ 2):
    /// `γ = √(K ln K ln T / T)` (capped at 1), `H = ⌈√(T ln T)⌉` (at least `K`) and
    /// `δ = √(ln T / (K T))` (at most ½); `None` for a horizon below 2.
    pub fn defaults(horizon: usize) -> Option<(R, usize, R)> {
        if horizon < 2 {
            return None;
        }
        let t = horizon as f64;
        let k = K as f64;
        let (ln_t, ln_k) = (libm::log(t), libm::log(k));
        let gamma = libm::sqrt(k * ln_k * ln_t / t).clamp(f64::MIN_POSITIVE, 1.0);
        let interval = (libm::ceil(libm::sqrt(t * ln_t)) as usize).max(K);
        let delta = libm::sqrt(ln_t / (k * t)).min(0.5);
        Some((R::from_f64(gamma), interval, R::from_f64(delta)))
    }

    /// The test's threshold `2ε`.
    pub fn threshold(&self) -> R {
        self.threshold
    }

    /// Exploration rewards each arm needs in an interval before the test runs, `⌈γH/K⌉`.
    pub fn needed(&self) -> usize {
        self.needed
    }

    /// How many times the drift test has restarted the weights.
    pub fn restarts(&self) -> usize {
        self.restarts
    }

    /// The weights divided by their sum.
    pub fn weights(&self) -> &[R; K] {
        &self.weights
    }

    /// EXP3's distribution from the current weights, `(1 − γ) wᵢ / Σw + γ/K`.
    pub fn next_probabilities(&self) -> [R; K] {
        exp3_probabilities(&self.weights, self.gamma)
    }

    /// Ends the interval: the drift test when every arm has its exploration rewards, a
    /// restart if it fires, and empty samples for the next interval.
    fn end_interval(&mut self) {
        if self.counts.iter().all(|&c| c >= self.needed) {
            let p = self.next_probabilities();
            let trusted = (0..K).fold(0, |b, i| if p[i] > p[b] { i } else { b });
            let mean = |i: usize| self.sums[i] / R::from_usize(self.counts[i]);
            let drift = (0..K).any(|k| mean(k) - mean(trusted) >= self.threshold);
            if drift {
                self.weights = [R::ONE / R::from_usize(K); K];
                self.restarts += 1;
            }
        }
        self.elapsed = 0;
        self.sums = [R::ZERO; K];
        self.counts = [0; K];
    }
}

impl<R: Real, const K: usize> Bandit<R> for Exp3R<R, K> {
    fn arms(&self) -> usize {
        K
    }

    /// Two uniforms: the first decides exploration (below γ) and the second draws the arm,
    /// uniformly or from the weights.
    fn choose<G: Rng + ?Sized>(&mut self, rng: &mut G) -> usize {
        self.probabilities = self.next_probabilities();
        let explore = uniform_open_23_bits::<R, G>(rng) < self.gamma;
        let arm = if explore {
            uniform_index::<R, G>(rng, K)
        } else {
            let sum = self.weights.iter().fold(R::ZERO, |s, &w| s + w);
            let mut trust = [R::ZERO; K];
            for (t, &w) in trust.iter_mut().zip(&self.weights) {
                *t = w / sum;
            }
            sample_categorical(rng, &trust)
        };
        self.pending = Some((arm, explore));
        arm
    }

    /// EXP3's update with `x̂ = reward / pₐᵣₘ(t)`; an exploration draw's reward joins the
    /// interval's sample; the interval ends after `H` observations. The reward must be in
    /// `[0, 1]` and `arm` the arm this round drew.
    fn observe(&mut self, arm: usize, reward: R) -> Result<(), BanditError> {
        check_arm::<K>(arm)?;
        check_reward(reward, true)?;
        let Some((drawn, explore)) = self.pending else {
            return Err(BanditError::NotChosen);
        };
        if drawn != arm {
            return Err(BanditError::NotChosen);
        }
        exp3_update(
            &mut self.weights,
            self.gamma,
            R::ZERO,
            arm,
            self.probabilities[arm],
            reward,
        );
        if explore {
            self.sums[arm] += reward;
            self.counts[arm] += 1;
        }
        self.pending = None;
        self.elapsed += 1;
        if self.elapsed == self.interval {
            self.end_interval();
        }
        Ok(())
    }

    fn skip(&mut self) {
        self.pending = None;
    }

    fn needs_unit_rewards(&self) -> bool {
        true
    }
}
