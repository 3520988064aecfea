//! Paper 003's synthetic time-varying bandits (App. E.1, Table A1, Figs. A1–A2): three
//! independent arms whose mean rewards drift over `T = 2000` rounds, and one trial of a
//! classical baseline ([`costbo_core::bandit`]) that pays for feedback on a Bernoulli(p) coin
//! (p = 0.1 in the paper).
//!
//! # The curves
//!
//! The paper shows its three curves only as a figure (Fig. A1) and gives no formulas; these
//! are ours, simple ones with the figure's shapes, means in `[0, 1]` and a best arm that
//! changes over time. With `s = t/T` for rounds `t = 0, …, T − 1` and arms `a = 0, 1, 2`:
//!
//! | curve | mean reward `μ_a(t)` | best arm |
//! |---|---|---|
//! | [`Curve::Sine`] | `0.5 + 0.4 sin(2π·2s + 2πa/3)` (two periods, phases a third apart) | changes six times |
//! | [`Curve::Gaussian`] | `0.2 + 0.6 exp(−(s − c_a)² / (2·0.1²))`, `c = (1/6, 1/2, 5/6)` | 0, then 1 from `s = 1/3`, then 2 from `s = 2/3` |
//! | [`Curve::Piecewise`] | `L[(a − j) mod 3]`, `L = (0.8, 0.5, 0.2)`, segment `j = ⌊4t/T⌋` | 0, 1, 2, 0, switching at rounds 500, 1000, 1500 |
//!
//! The sine's means lie in `[0.1, 0.9]`, the bumps' in `[0.2, 0.8]`, the steps' in
//! `{0.2, 0.5, 0.8}`.
//!
//! # A trial
//!
//! Each round `t`: the baseline chooses an arm; the regret `max_a μ_a(t) − μ_chosen(t)` is
//! counted whether or not anything is observed; with probability `p` the round is paid for
//! (one query) and the baseline is fed the noisy reward `μ_chosen(t) + z`, `z ~ N(0, 0.01)`
//! (variance 0.01, as the paper). EXP3.S and UCB1 assume rewards in `[0, 1]` (EXP3.S's weights,
//! UCB1's Hoeffding width), so they are fed the noisy reward clipped to `[0, 1]`; ε-greedy and
//! softmax average the unclipped reward. A trial reports `R_T/T` and `C_T` as Table A1.
//!
//! Two generators come from the seed (Xoshiro256++ as the rest of the project): the
//! environment's, seeded directly, which draws one coin and one noise value every round
//! whether or not they are used, and the learner's, the same state jumped 2¹²⁸ steps ahead.
//! So for one seed every baseline meets the same coins and the same noise (common random
//! numbers, paired comparisons), and its own choices do not shift the environment's stream.
//!
//! # The baselines' parameters
//!
//! The paper does not state them; ours ([`PARAMETERS`]):
//!
//! | baseline | parameters | rewards fed |
//! |---|---|---|
//! | EXP3.S | γ = 0.1, α = 1/T = 0.0005 | clipped to `[0, 1]` |
//! | ε-greedy | ε = 0.1 | noisy, unclipped |
//! | softmax | τ = 0.1 | noisy, unclipped |
//! | UCB1 | none | clipped to `[0, 1]` |
//! | EXP3.R | its authors' defaults for the `p·T` rounds observed ([`exp3r_parameters`]) | clipped to `[0, 1]` |

use costbo_core::bandit::{Bandit, BanditError, EpsilonGreedy, Exp3R, Exp3S, Softmax, Ucb1};
use costbo_core::random::{standard_normal, uniform_open};
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::platform::Platform;

/// The number of arms of every curve.
pub const ARMS: usize = 3;
/// The paper's horizon `T`.
pub const HORIZON: usize = 2000;
/// The paper's observation noise variance σ² (App. E.1).
pub const NOISE_VARIANCE: f64 = 0.01;
/// The paper's feedback probability for the baselines, Ber(0.1).
pub const FEEDBACK_PROBABILITY: f64 = 0.1;

/// The sine's number of periods over the horizon.
const SINE_PERIODS: f64 = 2.0;
/// The sine's amplitude around 0.5.
const SINE_AMPLITUDE: f64 = 0.4;
/// The Gaussian bumps' centres, as fractions of the horizon.
const BUMP_CENTRES: [f64; ARMS] = [1.0 / 6.0, 0.5, 5.0 / 6.0];
/// The Gaussian bumps' width (standard deviation), as a fraction of the horizon.
const BUMP_WIDTH: f64 = 0.1;
/// The Gaussian curve's floor and the bumps' height above it.
const BUMP_FLOOR: f64 = 0.2;
/// The bumps' height above the floor.
const BUMP_HEIGHT: f64 = 0.6;
/// The step curve's levels; arm `a` in segment `j` has `STEP_LEVELS[(a − j) mod 3]`.
const STEP_LEVELS: [f64; ARMS] = [0.8, 0.5, 0.2];
/// The step curve's number of equal segments.
const STEP_SEGMENTS: usize = 4;

/// One of the three time-varying bandits of Fig. A1 (formulas in the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Curve {
    /// Three sines a third of a period apart.
    Sine,
    /// A Gaussian bump per arm, centred at different times.
    Gaussian,
    /// Piecewise-constant levels that rotate among the arms.
    Piecewise,
}

impl Curve {
    /// The three curves, in the paper's order.
    pub const ALL: [Curve; 3] = [Curve::Sine, Curve::Gaussian, Curve::Piecewise];

    /// The curve's name in tables and files.
    pub fn name(self) -> &'static str {
        match self {
            Curve::Sine => "sine",
            Curve::Gaussian => "gaussian",
            Curve::Piecewise => "piecewise",
        }
    }

    /// The mean rewards `μ_a(t)` of the three arms at round `t` of a horizon of `horizon`
    /// rounds (`s = t/horizon`; a horizon of 0 is read as 1).
    pub fn means(self, t: usize, horizon: usize) -> [f64; ARMS] {
        let horizon = horizon.max(1);
        let s = t as f64 / horizon as f64;
        match self {
            Curve::Sine => core::array::from_fn(|a| {
                let phase = 2.0 * std::f64::consts::PI * a as f64 / ARMS as f64;
                0.5 + SINE_AMPLITUDE * (2.0 * std::f64::consts::PI * SINE_PERIODS * s + phase).sin()
            }),
            Curve::Gaussian => core::array::from_fn(|a| {
                let d = s - BUMP_CENTRES[a];
                BUMP_FLOOR + BUMP_HEIGHT * (-d * d / (2.0 * BUMP_WIDTH * BUMP_WIDTH)).exp()
            }),
            Curve::Piecewise => {
                // Integer arithmetic, so the switches fall exactly on rounds T/4, T/2, 3T/4.
                let segment = (STEP_SEGMENTS * t / horizon).min(STEP_SEGMENTS - 1);
                core::array::from_fn(|a| STEP_LEVELS[(a + ARMS * STEP_SEGMENTS - segment) % ARMS])
            }
        }
    }

    /// The arm with the largest mean at round `t` (the lowest index on a tie).
    pub fn best_arm(self, t: usize, horizon: usize) -> usize {
        let m = self.means(t, horizon);
        (0..ARMS).fold(0, |best, a| if m[a] > m[best] { a } else { best })
    }
}

/// A classical baseline of Table A1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Baseline {
    /// EXP3.S (Auer et al. 2002).
    Exp3S,
    /// ε-greedy over sample averages.
    EpsilonGreedy,
    /// Boltzmann exploration over sample averages.
    Softmax,
    /// UCB1 (Auer et al. 2002).
    Ucb1,
    /// EXP3.R (Allesiardo & Féraud 2015) with its authors' default parameters for the
    /// rounds it observes ([`exp3r_parameters`]).
    Exp3R,
}

impl Baseline {
    /// Table A1's four baselines in its order, then EXP3.R (paper 003's Table A3 baseline,
    /// which its notes say Table A1 calls EXP3.S).
    pub const ALL: [Baseline; 5] = [
        Baseline::Exp3S,
        Baseline::EpsilonGreedy,
        Baseline::Softmax,
        Baseline::Ucb1,
        Baseline::Exp3R,
    ];

    /// The baseline's name in tables and files.
    pub fn name(self) -> &'static str {
        match self {
            Baseline::Exp3S => "exp3s",
            Baseline::EpsilonGreedy => "epsilon-greedy",
            Baseline::Softmax => "softmax",
            Baseline::Ucb1 => "ucb1",
            Baseline::Exp3R => "exp3r",
        }
    }

    /// True when the baseline is fed rewards clipped to `[0, 1]` (EXP3.S, EXP3.R and UCB1,
    /// whose updates assume that range).
    pub fn clips_rewards(self) -> bool {
        matches!(self, Baseline::Exp3S | Baseline::Exp3R | Baseline::Ucb1)
    }
}

/// EXP3.R's `(γ, H, δ)`: its authors' defaults ([`Exp3R::defaults`]) for the rounds a trial
/// expects to observe, `round(p·T)` (200 in the paper's setting, at least 2).
pub fn exp3r_parameters(config: &TrialConfig) -> Option<(f64, usize, f64)> {
    let observed = (config.horizon as f64 * config.feedback_probability).round() as usize;
    Exp3R::<f64, ARMS>::defaults(observed.max(2))
}

/// The baselines' parameters (the paper does not state its own).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Parameters {
    /// EXP3.S's exploration rate γ ∈ (0, 1].
    pub exp3s_gamma: f64,
    /// EXP3.S's sharing rate α ≥ 0.
    pub exp3s_alpha: f64,
    /// ε-greedy's exploration probability ε ∈ [0, 1].
    pub epsilon: f64,
    /// Softmax's temperature τ > 0.
    pub temperature: f64,
}

/// Our parameters: EXP3.S γ = 0.1 and α = 1/T (the sharing rate of Auer et al.'s tuned bound
/// for a bounded number of switches, §8; their tuned γ for our six sine switches would be
/// about 0.2 at full feedback, and the usual 0.1 keeps exploration modest), ε = 0.1, τ = 0.1
/// (the means differ by tenths, so τ = 0.1 weighs a gap of 0.3 by e³ ≈ 20).
pub const PARAMETERS: Parameters = Parameters {
    exp3s_gamma: 0.1,
    exp3s_alpha: 1.0 / HORIZON as f64,
    epsilon: 0.1,
    temperature: 0.1,
};

/// Everything one trial depends on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrialConfig {
    /// The environment.
    pub curve: Curve,
    /// The learner.
    pub baseline: Baseline,
    /// The learner's parameters.
    pub parameters: Parameters,
    /// The number of rounds `T` (at least 1).
    pub horizon: usize,
    /// The probability `p ∈ [0, 1]` of paying for a round's reward (1: full feedback).
    pub feedback_probability: f64,
    /// The observation noise variance (finite, ≥ 0).
    pub noise_variance: f64,
    /// The seed of both generators.
    pub seed: u64,
}

impl TrialConfig {
    /// The paper's setting: T = 2000, Ber(0.1) feedback, noise variance 0.01, [`PARAMETERS`].
    pub fn paper(curve: Curve, baseline: Baseline, seed: u64) -> Self {
        TrialConfig {
            curve,
            baseline,
            parameters: PARAMETERS,
            horizon: HORIZON,
            feedback_probability: FEEDBACK_PROBABILITY,
            noise_variance: NOISE_VARIANCE,
            seed,
        }
    }
}

/// The outcome of one trial, Table A1's two columns and the sum behind the first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trial {
    /// `R_T / T`: the mean regret per round.
    pub regret_per_round: f64,
    /// `R_T = Σ_t (max_a μ_a(t) − μ_chosen(t))`.
    pub cumulative_regret: f64,
    /// `C_T`: the number of rounds paid for.
    pub queries: usize,
}

/// Why a trial could not run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TrialError {
    /// The horizon is 0.
    Horizon,
    /// The feedback probability is not in `[0, 1]`.
    FeedbackProbability,
    /// The noise variance is negative or not finite.
    NoiseVariance,
    /// The baseline refused its parameters or an observation.
    Bandit(BanditError),
}

impl From<BanditError> for TrialError {
    fn from(e: BanditError) -> Self {
        TrialError::Bandit(e)
    }
}

impl std::fmt::Display for TrialError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrialError::Horizon => write!(f, "the horizon must be at least one round"),
            TrialError::FeedbackProbability => {
                write!(f, "the feedback probability must be in [0, 1]")
            }
            TrialError::NoiseVariance => {
                write!(f, "the noise variance must be finite and non-negative")
            }
            TrialError::Bandit(e) => write!(f, "the baseline refused: {e}"),
        }
    }
}

impl std::error::Error for TrialError {}

/// Runs one trial (see the [module docs](self)); deterministic given the configuration.
pub fn run_trial(config: &TrialConfig) -> Result<Trial, TrialError> {
    if config.horizon == 0 {
        return Err(TrialError::Horizon);
    }
    let p = config.feedback_probability;
    if !(0.0..=1.0).contains(&p) {
        return Err(TrialError::FeedbackProbability);
    }
    let v = config.noise_variance;
    if !(v.is_finite() && v >= 0.0) {
        return Err(TrialError::NoiseVariance);
    }
    let q = &config.parameters;
    match config.baseline {
        Baseline::Exp3S => play(
            Exp3S::<f64, ARMS>::new(q.exp3s_gamma, q.exp3s_alpha)?,
            config,
        ),
        Baseline::EpsilonGreedy => play(EpsilonGreedy::<f64, ARMS>::new(q.epsilon)?, config),
        Baseline::Softmax => play(Softmax::<f64, ARMS>::new(q.temperature)?, config),
        Baseline::Ucb1 => play(Ucb1::<f64, ARMS>::new()?, config),
        Baseline::Exp3R => {
            let (gamma, interval, delta) = exp3r_parameters(config).ok_or(TrialError::Horizon)?;
            play(Exp3R::<f64, ARMS>::new(gamma, interval, delta)?, config)
        }
    }
}

/// The trial loop for one learner (the configuration already checked).
fn play<B: Bandit<f64>>(mut bandit: B, config: &TrialConfig) -> Result<Trial, TrialError> {
    let mut environment = Xoshiro256PlusPlus::seed_from_u64(config.seed);
    let mut learner = environment.clone();
    learner.jump();
    let sd = config.noise_variance.sqrt();
    let clip = bandit.needs_unit_rewards();
    let mut regret = 0.0;
    let mut queries = 0;
    for t in 0..config.horizon {
        let means = config.curve.means(t, config.horizon);
        let arm = bandit.choose(&mut learner);
        let best = means.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x));
        regret += best - means[arm];
        // Both draws every round, so the environment's stream is the same for every learner.
        let coin: f64 = uniform_open(&mut environment);
        let z: f64 = standard_normal::<f64, Platform>(&mut environment);
        if coin < config.feedback_probability {
            queries += 1;
            let reward = means[arm] + sd * z;
            let reward = if clip { reward.clamp(0.0, 1.0) } else { reward };
            bandit.observe(arm, reward)?;
        } else {
            bandit.skip();
        }
    }
    Ok(Trial {
        regret_per_round: regret / config.horizon as f64,
        cumulative_regret: regret,
        queries,
    })
}

/// The expected regret per round of choosing an arm uniformly at random every round:
/// `(1/T) Σ_t (max_a μ_a(t) − mean_a μ_a(t))`, the level any learner should beat.
pub fn uniform_regret_per_round(curve: Curve, horizon: usize) -> f64 {
    let horizon = horizon.max(1);
    let total: f64 = (0..horizon)
        .map(|t| {
            let m = curve.means(t, horizon);
            let best = m.iter().fold(f64::NEG_INFINITY, |b, &x| b.max(x));
            best - m.iter().sum::<f64>() / ARMS as f64
        })
        .sum();
    total / horizon as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    fn assert_means(curve: Curve, t: usize, expected: [f64; 3]) {
        let m = curve.means(t, HORIZON);
        for a in 0..ARMS {
            assert!(
                close(m[a], expected[a]),
                "{curve:?} t = {t}: {m:?} vs {expected:?}"
            );
        }
    }

    /// Hand values (worked on paper, to 6 decimals):
    /// - sine, t = 0: (0.5, 0.5 + 0.4 sin 120° = 0.846410, 0.5 + 0.4 sin 240° = 0.153590);
    ///   t = 125 (s = 1/16, angle 45°): (0.5 + 0.4 sin 45° = 0.782843, 0.5 + 0.4 sin 165° =
    ///   0.603528, 0.5 + 0.4 sin 285° = 0.113630).
    /// - Gaussian, t = 1000 (s = ½): arm 1 at its centre 0.8; arms 0 and 2 at distance ⅓:
    ///   0.2 + 0.6 e^(−(1/9)/0.02) = 0.2 + 0.6 e^(−5.5556) = 0.202320; t = 0 (s = 0): arm 0
    ///   at distance 1/6: 0.2 + 0.6 e^(−1.388889) = 0.349611, arm 1 0.2 + 0.6 e^(−12.5) =
    ///   0.200002, arm 2 0.2 + 0.6 e^(−34.72) = 0.2.
    /// - steps: rounds 0–499 (0.8, 0.5, 0.2), 500–999 (0.2, 0.8, 0.5), 1000–1499
    ///   (0.5, 0.2, 0.8), 1500–1999 (0.8, 0.5, 0.2).
    #[test]
    fn curves_match_hand_values() {
        assert_means(Curve::Sine, 0, [0.5, 0.846410, 0.153590]);
        assert_means(Curve::Sine, 125, [0.782843, 0.603528, 0.113630]);
        assert_means(Curve::Gaussian, 1000, [0.202320, 0.8, 0.202320]);
        assert_means(Curve::Gaussian, 0, [0.349611, 0.200002, 0.2]);
        assert_means(Curve::Piecewise, 0, [0.8, 0.5, 0.2]);
        assert_means(Curve::Piecewise, 499, [0.8, 0.5, 0.2]);
        assert_means(Curve::Piecewise, 500, [0.2, 0.8, 0.5]);
        assert_means(Curve::Piecewise, 999, [0.2, 0.8, 0.5]);
        assert_means(Curve::Piecewise, 1000, [0.5, 0.2, 0.8]);
        assert_means(Curve::Piecewise, 1500, [0.8, 0.5, 0.2]);
        assert_means(Curve::Piecewise, 1999, [0.8, 0.5, 0.2]);
    }

    #[test]
    fn means_stay_in_the_unit_interval() {
        for curve in Curve::ALL {
            for t in 0..HORIZON {
                assert!(curve
                    .means(t, HORIZON)
                    .iter()
                    .all(|m| (0.0..=1.0).contains(m)));
            }
        }
    }

    /// Every arm is best somewhere on every curve, and the best arm switches as the docs say.
    #[test]
    fn the_best_arm_changes_over_time() {
        for curve in Curve::ALL {
            let best: Vec<usize> = (0..HORIZON).map(|t| curve.best_arm(t, HORIZON)).collect();
            for a in 0..ARMS {
                assert!(best.contains(&a), "{curve:?}: arm {a} is never best");
            }
            let switches = best.windows(2).filter(|w| w[0] != w[1]).count();
            match curve {
                Curve::Sine => assert_eq!(switches, 6),
                Curve::Gaussian => assert_eq!(switches, 2),
                Curve::Piecewise => assert_eq!(switches, 3),
            }
        }
        // The steps switch exactly at rounds 500, 1000 and 1500.
        let step = |t| Curve::Piecewise.best_arm(t, HORIZON);
        assert_eq!((step(499), step(500)), (0, 1));
        assert_eq!((step(999), step(1000)), (1, 2));
        assert_eq!((step(1499), step(1500)), (2, 0));
        // The bumps cross at s = 1/3 and 2/3 (rounds 666.7 and 1333.3).
        let bump = |t| Curve::Gaussian.best_arm(t, HORIZON);
        assert_eq!((bump(666), bump(667)), (0, 1));
        assert_eq!((bump(1333), bump(1334)), (1, 2));
    }

    #[test]
    fn a_trial_is_deterministic_for_a_seed() {
        for curve in Curve::ALL {
            for baseline in Baseline::ALL {
                let config = TrialConfig::paper(curve, baseline, 7);
                let a = run_trial(&config).unwrap();
                let b = run_trial(&config).unwrap();
                assert_eq!(a, b);
                assert!(a.regret_per_round >= 0.0);
                assert!(close(
                    a.regret_per_round * HORIZON as f64,
                    a.cumulative_regret
                ));
                // Ber(0.1) over 2000 rounds: 200 ± 13.4 queries; 6 sd either side.
                assert!((120..=280).contains(&a.queries), "{a:?}");
            }
        }
        // Another seed gives another trial, and the coins are shared between learners.
        let one = run_trial(&TrialConfig::paper(Curve::Sine, Baseline::Softmax, 7)).unwrap();
        let two = run_trial(&TrialConfig::paper(Curve::Sine, Baseline::Softmax, 8)).unwrap();
        assert_ne!(one, two);
        let ucb = run_trial(&TrialConfig::paper(Curve::Sine, Baseline::Ucb1, 7)).unwrap();
        assert_eq!(one.queries, ucb.queries);
    }

    #[test]
    fn full_feedback_ucb1_beats_uniform_random_on_each_curve() {
        for curve in Curve::ALL {
            let uniform = uniform_regret_per_round(curve, HORIZON);
            for seed in 0..3 {
                let config = TrialConfig {
                    feedback_probability: 1.0,
                    ..TrialConfig::paper(curve, Baseline::Ucb1, seed)
                };
                let trial = run_trial(&config).unwrap();
                assert_eq!(trial.queries, HORIZON);
                assert!(
                    trial.regret_per_round < uniform,
                    "{curve:?} seed {seed}: {} vs uniform {uniform}",
                    trial.regret_per_round
                );
            }
        }
    }

    #[test]
    fn invalid_trials_are_refused() {
        let base = TrialConfig::paper(Curve::Sine, Baseline::Exp3S, 0);
        let with = |f: fn(&mut TrialConfig)| {
            let mut c = base;
            f(&mut c);
            run_trial(&c)
        };
        assert_eq!(with(|c| c.horizon = 0), Err(TrialError::Horizon));
        assert_eq!(
            with(|c| c.feedback_probability = 1.5),
            Err(TrialError::FeedbackProbability)
        );
        assert_eq!(
            with(|c| c.feedback_probability = f64::NAN),
            Err(TrialError::FeedbackProbability)
        );
        assert_eq!(
            with(|c| c.noise_variance = -1.0),
            Err(TrialError::NoiseVariance)
        );
        assert_eq!(
            with(|c| c.parameters.exp3s_gamma = 0.0),
            Err(TrialError::Bandit(BanditError::Gamma))
        );
    }
}

/// The time-varying GP learners of Table A1, on the core's
/// [`CandidateController`](costbo_core::feedback::controller::CandidateController) over the
/// three arms as independent candidates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GpLearner {
    /// TV-GP-UCB paying with probability p ("GP-UCB" with Ber(0.1) in Table A1).
    Bernoulli(f64),
    /// CE-GP-UCB at threshold κ (pure CE; κ = 0.95 in Table A1).
    Confidence(f64),
}

/// The GP model of the bandit study (the paper: independent arms, "RBF kernel, lengthscale by
/// maximum likelihood", which we read as the temporal kernel; ours is the forgetting model
/// with a fixed rate): independent arms of prior mean 0.5 and prior variance 0.1 (rewards lie
/// in [0, 1]), noise variance 0.01 (the truth), forgetting rate [`BANDIT_EPSILON`].
pub const BANDIT_PRIOR_MEAN: f64 = 0.5;
/// Prior variance of each arm's mean reward.
pub const BANDIT_PRIOR_VARIANCE: f64 = 0.1;
/// Forgetting rate of the bandit GP: correlation `e^{−1}` after `2/ε` = 400 rounds, a fifth of
/// the horizon, fixed for every curve (not fitted; the paper fits a lengthscale).
pub const BANDIT_EPSILON: f64 = 0.005;

/// One trial of a GP learner with forgetting rate `epsilon` on `curve`, with the environment stream of [`run_trial`] (the
/// same coins are drawn but only the noise is used: a GP learner's own rule decides whether to
/// pay, with its own generator).
pub fn run_gp_trial(
    curve: Curve,
    learner: GpLearner,
    epsilon: f64,
    horizon: usize,
    seed: u64,
) -> Result<Trial, String> {
    run_gp_trial_diagnosed(
        curve,
        learner,
        epsilon,
        BANDIT_PRIOR_VARIANCE,
        horizon,
        seed,
    )
    .map(|t| t.trial)
}

/// What made a GP learner pay: averages over the rounds where the confidence test fired and
/// the round was paid, of the competitor with the smallest `p(x)` (the one that fired it).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PaidRounds {
    /// Rounds since that competitor was last measured (since round 0 if never).
    pub rounds_unmeasured: f64,
    /// Its posterior variance over the prior variance.
    pub variance_over_prior: f64,
    /// Its posterior mean's distance from the chosen arm's.
    pub mean_gap: f64,
}

/// A trial of a GP learner with what made it pay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpTrial {
    /// Regret and queries.
    pub trial: Trial,
    /// `None` when the confidence test never paid (Bernoulli learners, or no query).
    pub paid_rounds: Option<PaidRounds>,
}

/// [`run_gp_trial`] with each arm's prior variance `prior_variance` (instead of
/// [`BANDIT_PRIOR_VARIANCE`]), measuring what fired the confidence test in the paid rounds.
/// The measurement reads the posterior only: the decisions are [`run_gp_trial`]'s.
pub fn run_gp_trial_diagnosed(
    curve: Curve,
    learner: GpLearner,
    epsilon: f64,
    prior_variance: f64,
    horizon: usize,
    seed: u64,
) -> Result<GpTrial, String> {
    use costbo_core::feedback::controller::{
        Beta, CandidateController, Chooser, Competitors, FeedbackSettings,
    };
    use costbo_core::feedback::query::{ce_probability, QueryReason, QueryRule};
    use costbo_core::gp::candidates::CandidatePosterior;
    let rule = match learner {
        GpLearner::Bernoulli(p) => QueryRule::bernoulli(p),
        GpLearner::Confidence(k) => QueryRule::confidence(k),
    }
    .map_err(|e| format!("{learner:?}: {e}"))?;
    let posterior = CandidatePosterior::new(
        vec![0.0; CandidatePosterior::<f64, Vec<f64>>::storage_len(ARMS)],
        ARMS,
        |i, j| if i == j { prior_variance } else { 0.0 },
        BANDIT_PRIOR_MEAN,
        NOISE_VARIANCE,
        epsilon,
    )
    .map_err(|e| format!("{e}"))?;
    let settings = FeedbackSettings {
        beta: Beta::Logarithmic {
            scale: 0.8,
            rate: 0.4,
        },
        chooser: Chooser::Ucb,
        rule,
        competitors: Competitors::All,
        reset_every: None,
    };
    let mut environment = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut learner_rng = environment.clone();
    learner_rng.jump();
    let mut controller =
        CandidateController::new(posterior, settings, learner_rng).map_err(|e| format!("{e}"))?;
    let sd = NOISE_VARIANCE.sqrt();
    let mut regret = 0.0;
    let mut last_measured = [0usize; ARMS];
    let (mut fired, mut unmeasured, mut ratio, mut gap) = (0usize, 0.0, 0.0, 0.0);
    for t in 0..horizon {
        let means = curve.means(t, horizon);
        let ask = controller.ask().map_err(|e| format!("round {t}: {e}"))?;
        let best = means.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x));
        regret += best - means[ask.candidate];
        let _coin: f64 = uniform_open(&mut environment);
        let z: f64 = standard_normal::<f64, Platform>(&mut environment);
        if ask.query.pay {
            if ask.query.reason == QueryReason::Confidence {
                let post = controller.posterior();
                let chosen = ask.prediction;
                let trigger = (0..ARMS)
                    .filter(|&a| a != ask.candidate)
                    .filter_map(|a| post.predict(a).map(|p| (a, p)))
                    .min_by(|x, y| {
                        ce_probability(chosen, x.1).total_cmp(&ce_probability(chosen, y.1))
                    });
                if let Some((a, p)) = trigger {
                    fired += 1;
                    unmeasured += (t - last_measured[a]) as f64;
                    ratio += p.variance / prior_variance;
                    gap += (chosen.mean - p.mean).abs();
                }
            }
            last_measured[ask.candidate] = t;
            controller
                .tell(means[ask.candidate] + sd * z)
                .map_err(|e| format!("round {t}: {e}"))?;
        } else {
            controller.skip().map_err(|e| format!("round {t}: {e}"))?;
        }
    }
    let n = fired as f64;
    Ok(GpTrial {
        trial: Trial {
            regret_per_round: regret / horizon.max(1) as f64,
            cumulative_regret: regret,
            queries: controller.paid() as usize,
        },
        paid_rounds: (fired > 0).then(|| PaidRounds {
            rounds_unmeasured: unmeasured / n,
            variance_over_prior: ratio / n,
            mean_gap: gap / n,
        }),
    })
}
