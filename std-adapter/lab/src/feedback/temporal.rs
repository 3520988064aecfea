//! Paper 003's bandit model as its App. E.1 describes it: independent arms (`k_space = I`),
//! each a GP over *time* with an RBF kernel whose hyperparameters are fitted by maximum
//! likelihood, beside the study's forgetting model ([`super::bandits::run_gp_trial`], a fixed
//! drift rate ε).
//!
//! The two models differ in how an arm's uncertainty returns once it stops being measured. The
//! forgetting model adds `ε·(prior − σ²)` of variance every round whatever the data say; the
//! RBF model's variance at time `t` depends on how far `t` lies from the arm's measurements in
//! units of a lengthscale fitted to the rewards, so smooth curves give long lengthscales and
//! slow regrowth. Under the CE rule only the chosen arm is measured, so the competitors'
//! regrowing uncertainty is what makes it pay: the model, not the rule, sets `C_T`.
//!
//! # The model
//!
//! Inputs are `t/T`. All arms share one squared-exponential kernel (lengthscale `ℓ`,
//! outputscale `s`), the prior mean 0.5 (rewards lie in `[0, 1]`) and the true noise variance
//! 0.01. `(ℓ, s)` maximise the sum of the arms' log marginal likelihoods over the grid
//! [`LENGTHSCALES`] × [`OUTPUTSCALES`] (an exhaustive search: the likelihood of one
//! lengthscale is multimodal when few points are measured), refitted after the paid rounds of
//! [`refits_after`]; before the first fit, `(ℓ, s) = (0.1, 0.1)`.
//!
//! The decision of round `t` (from 1): the arm of largest `μ_a(t) + √β_t σ_a(t)`, `β_t =
//! 0.8·ln(0.4t)` as the forgetting model's; the query rule is the core's [`QueryRule`] with
//! every other arm as a competitor (three independent arms: every other arm is a local
//! optimum, so the paper's competitor set and ours coincide).

use costbo_core::feedback::controller::Beta;
use costbo_core::feedback::query::QueryRule;
use costbo_core::gp::{Gp, Prediction, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::random::{standard_normal, uniform_open};
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::bandits::{Curve, Trial, ARMS, HORIZON, NOISE_VARIANCE};
use crate::platform::Platform;

/// Prior mean of every arm (rewards lie in `[0, 1]`).
pub const PRIOR_MEAN: f64 = 0.5;

/// The lengthscales searched, in units of the horizon: 0.005 to 1, log-spaced (about 10 to
/// 2 000 rounds).
pub const LENGTHSCALES: [f64; 13] = [
    0.005, 0.0078, 0.012, 0.019, 0.030, 0.046, 0.072, 0.11, 0.17, 0.27, 0.42, 0.65, 1.0,
];

/// The outputscales searched (prior variances of an arm's reward).
pub const OUTPUTSCALES: [f64; 5] = [0.01, 0.03, 0.1, 0.3, 1.0];

/// Whether to refit after the `paid`-th paid round: the first 10, then every power of two up
/// to 128, then every 64th (at most about 40 fits in a 2 000-round trial).
pub fn refits_after(paid: usize) -> bool {
    paid <= 10 || (paid <= 128 && paid.is_power_of_two()) || paid.is_multiple_of(64)
}

type ArmGp = Gp<f64, HORIZON, 1, Vec<f64>>;

fn arm_gp(lengthscale: f64, outputscale: f64) -> Result<Box<ArmGp>, String> {
    let kernel = Kernel::squared_exponential([lengthscale], outputscale)
        .map_err(|e| format!("kernel: {e}"))?;
    Gp::new(
        kernel,
        PRIOR_MEAN,
        NOISE_VARIANCE,
        WhenFull::Reject,
        vec![0.0; tri_len(HORIZON)],
    )
    .map(Box::new)
    .map_err(|e| format!("model: {e}"))
}

/// The grid point of largest summed log marginal likelihood over the arms (ties: the first);
/// `None` when no grid point factorises.
fn fit(arms: &mut [Box<ArmGp>]) -> Option<(f64, f64)> {
    let mut best: Option<(f64, f64, f64)> = None;
    for &l in &LENGTHSCALES {
        for &s in &OUTPUTSCALES {
            let kernel = Kernel::squared_exponential([l], s).ok()?;
            let mut total = 0.0;
            let mut ok = true;
            for gp in arms.iter_mut() {
                if gp
                    .set_hyperparameters(kernel, PRIOR_MEAN, NOISE_VARIANCE)
                    .is_err()
                {
                    ok = false;
                    break;
                }
                total += if gp.is_empty() {
                    0.0
                } else {
                    gp.log_marginal_likelihood()
                };
            }
            if ok && total.is_finite() && best.is_none_or(|b| total > b.2) {
                best = Some((l, s, total));
            }
        }
    }
    best.map(|(l, s, _)| (l, s))
}

/// What a trial of the RBF model reports beyond Table A1's columns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RbfTrial {
    /// Regret and queries.
    pub trial: Trial,
    /// The lengthscale of the last fit, in rounds.
    pub lengthscale_rounds: f64,
    /// The outputscale of the last fit.
    pub outputscale: f64,
}

/// One trial of TV-GP-UCB on the RBF model with `rule` deciding what to pay for, on `curve`
/// with the environment stream of [`super::bandits::run_trial`] (one coin and one noise value
/// drawn every round; the rule draws from the learner's own generator, the same state jumped
/// 2¹²⁸ steps ahead).
pub fn run_rbf_trial(
    curve: Curve,
    rule: QueryRule<f64>,
    horizon: usize,
    seed: u64,
) -> Result<RbfTrial, String> {
    if horizon == 0 || horizon > HORIZON {
        return Err(format!("horizon {horizon} outside 1..={HORIZON}"));
    }
    let beta: Beta<f64> = Beta::Logarithmic {
        scale: 0.8,
        rate: 0.4,
    };
    let (mut lengthscale, mut outputscale) = (0.1, 0.1);
    let mut arms = (0..ARMS)
        .map(|_| arm_gp(lengthscale, outputscale))
        .collect::<Result<Vec<_>, _>>()?;
    let mut environment = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut learner = environment.clone();
    learner.jump();
    let sd = NOISE_VARIANCE.sqrt();
    let (mut regret, mut paid) = (0.0, 0usize);
    for t in 0..horizon {
        let now = [t as f64 / horizon as f64];
        let mut predictions = [Prediction {
            mean: 0.0,
            variance: 0.0,
        }; ARMS];
        for (a, gp) in arms.iter().enumerate() {
            predictions[a] = gp
                .predict(&now)
                .map_err(|e| format!("round {t}, arm {a}: {e}"))?;
        }
        let width = beta.at(t as u32 + 1).sqrt();
        let ucb = |p: &Prediction<f64>| p.mean + width * p.variance.max(0.0).sqrt();
        let chosen = (0..ARMS).fold(0, |b, a| {
            if ucb(&predictions[a]) > ucb(&predictions[b]) {
                a
            } else {
                b
            }
        });
        let decision = rule.decide(
            predictions[chosen],
            (0..ARMS).filter(|&a| a != chosen).map(|a| predictions[a]),
            width,
            &mut learner,
        );
        let means = curve.means(t, horizon);
        let best = means.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x));
        regret += best - means[chosen];
        let _coin: f64 = uniform_open(&mut environment);
        let z: f64 = standard_normal::<f64, Platform>(&mut environment);
        if decision.pay {
            arms[chosen]
                .push(&now, means[chosen] + sd * z)
                .map_err(|e| format!("round {t}: {e}"))?;
            paid += 1;
            if refits_after(paid) {
                if let Some((l, s)) = fit(&mut arms) {
                    (lengthscale, outputscale) = (l, s);
                }
                let kernel = Kernel::squared_exponential([lengthscale], outputscale)
                    .map_err(|e| format!("kernel: {e}"))?;
                for gp in arms.iter_mut() {
                    gp.set_hyperparameters(kernel, PRIOR_MEAN, NOISE_VARIANCE)
                        .map_err(|e| format!("round {t}: {e}"))?;
                }
            }
        }
    }
    Ok(RbfTrial {
        trial: Trial {
            regret_per_round: regret / horizon as f64,
            cumulative_regret: regret,
            queries: paid,
        },
        lengthscale_rounds: lengthscale * horizon as f64,
        outputscale,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_recovers_a_smooth_curves_scale() {
        // One arm measured every 10 rounds on a sine of period T/2 (the study's sine): the
        // likelihood must prefer a lengthscale near the curve's own scale (a quarter period
        // is 500 rounds; an SE kernel fits such a sine with ℓ of the order of T/(2π·2) ≈ 160
        // rounds) over both ends of the grid.
        let mut arms = vec![arm_gp(0.1, 0.1).unwrap()];
        for k in 0..200 {
            let t = k as f64 / 200.0;
            let y = Curve::Sine.means(k * 10, HORIZON)[0];
            arms[0].push(&[t], y).unwrap();
        }
        let (l, s) = fit(&mut arms).unwrap();
        assert!((0.03..=0.3).contains(&l), "lengthscale {l}");
        assert!(s >= 0.03, "outputscale {s}");
    }

    #[test]
    fn full_feedback_pays_every_round_and_ce_pays_less() {
        let full = run_rbf_trial(Curve::Piecewise, QueryRule::full(), 300, 1).unwrap();
        assert_eq!(full.trial.queries, 300);
        let ce = run_rbf_trial(
            Curve::Piecewise,
            QueryRule::confidence(0.95).unwrap(),
            300,
            1,
        )
        .unwrap();
        assert!(ce.trial.queries > 0 && ce.trial.queries < 300, "{ce:?}");
    }
}
