//! The classical bandit baselines against independent references: EXP3.S's weights and
//! probabilities after a hand-worked sequence (the paper's update written out here on raw,
//! unnormalised weights), UCB1's index on a hand-built sequence, softmax's probabilities
//! against the closed form, ε-greedy's exploration frequency within a binomial tolerance,
//! convergence to the best arm of a stationary Bernoulli bandit, typed errors that change
//! nothing, and `f32` against `f64` on a fixed sequence.
// Reference and result arrays are compared element by element: an index reads better.
#![allow(clippy::needless_range_loop)]

use core::convert::Infallible;

use costbo_core::bandit::{Bandit, BanditError, EpsilonGreedy, Exp3R, Exp3S, Softmax, Ucb1};
use costbo_core::real::Real;
use rand_core::TryRng;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// A generator that yields chosen uniforms: `uniform_open_23_bits` reads the top 23 bits `k`
/// of `next_u32` and returns `(2k + 1)/2²⁴`, so a wanted `u` is returned as `⌊u·2²³⌋ << 9`.
struct Scripted {
    uniforms: Vec<f64>,
    next: usize,
}

impl Scripted {
    fn new(uniforms: &[f64]) -> Self {
        Scripted {
            uniforms: uniforms.to_vec(),
            next: 0,
        }
    }
}

impl TryRng for Scripted {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        let u = self.uniforms[self.next];
        self.next += 1;
        Ok(((u * 8_388_608.0) as u32) << 9)
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        unreachable!("the bandits draw 32-bit uniforms only")
    }
    fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Infallible> {
        unreachable!("the bandits draw 32-bit uniforms only")
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

// ---------------------------------------------------------------------------------------------
// EXP3.R

#[test]
fn exp3r_restarts_when_an_explored_arm_beats_the_trusted_one_by_the_threshold() {
    // K = 2, γ = 1, H = 4, δ = e^{−1/2}: 2ε = 2·√(2·½/(2·1·4)) = 1/√2, ⌈γH/K⌉ = 2. With
    // γ = 1 every draw explores and EXP3's distribution is uniform whatever the weights, so
    // the trusted arm (largest probability, ties to the lower index) is arm 0 throughout.
    let delta = (-0.5f64).exp();
    let mut b = Exp3R::<f64, 2>::new(1.0, 4, delta).unwrap();
    assert!(close(
        b.threshold(),
        2.0 * (2.0 * 0.5 / 8.0f64).sqrt(),
        1e-15
    ));
    assert_eq!(b.needed(), 2);
    // Each round takes two uniforms: the exploration coin (0.1 < γ) and the arm (below ½:
    // arm 0). EXP3's update on raw weights with p = ½: w ← w·exp(γ x/(p K)) = w·eˣ.
    let play = |b: &mut Exp3R<f64, 2>, rounds: &[(usize, f64)]| {
        let mut uniforms = Vec::new();
        for &(arm, _) in rounds {
            uniforms.extend([0.1, if arm == 0 { 0.2 } else { 0.7 }]);
        }
        let mut rng = Scripted::new(&uniforms);
        for &(arm, x) in rounds {
            assert_eq!(b.choose(&mut rng), arm);
            b.observe(arm, x).unwrap();
        }
    };
    let normalised = |w: [f64; 2]| [w[0] / (w[0] + w[1]), w[1] / (w[0] + w[1])];
    // Interval 1: arm 1's mean 1 beats arm 0's 0 by 1 ≥ 1/√2: restart, weights uniform.
    play(&mut b, &[(0, 0.0), (0, 0.0), (1, 1.0), (1, 1.0)]);
    assert_eq!(b.restarts(), 1);
    assert_eq!(b.weights(), &[0.5, 0.5]);
    // Interval 2: arm 0's mean 1, arm 1's 0: nothing beats the trusted arm, no restart;
    // the weights are EXP3's, (e², 1) normalised.
    play(&mut b, &[(0, 1.0), (0, 1.0), (1, 0.0), (1, 0.0)]);
    assert_eq!(b.restarts(), 1);
    let want = normalised([2f64.exp(), 1.0]);
    for i in 0..2 {
        assert!(close(b.weights()[i], want[i], 1e-15), "{:?}", b.weights());
    }
    // Interval 3: arm 1 beats arm 0 by 0.9, but arm 0 has one exploration reward, below the
    // two the test needs: no test, no restart.
    play(&mut b, &[(0, 0.1), (1, 1.0), (1, 1.0), (1, 1.0)]);
    assert_eq!(b.restarts(), 1);
    // Interval 4: a gap of 0.7 < 1/√2 does not fire; interval 5: 0.75 ≥ 1/√2 does.
    play(&mut b, &[(0, 0.3), (0, 0.3), (1, 1.0), (1, 1.0)]);
    assert_eq!(b.restarts(), 1);
    play(&mut b, &[(0, 0.25), (0, 0.25), (1, 1.0), (1, 1.0)]);
    assert_eq!(b.restarts(), 2);
    assert_eq!(b.weights(), &[0.5, 0.5]);
}

#[test]
fn exp3r_restarts_after_the_best_arm_switches_and_not_before() {
    // Two Bernoulli-free arms with deterministic rewards: arm 0 pays 1 and arm 1 pays 0 for
    // 2 000 rounds, then they swap. γ = 0.3, H = 100, δ = 0.05: 2ε = 2√(2 ln 20 / 60) ≈ 0.45.
    let mut b = Exp3R::<f64, 2>::new(0.3, 100, 0.05).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
    for t in 0..4_000 {
        let arm = b.choose(&mut rng);
        let pays = if t < 2_000 { arm == 0 } else { arm == 1 };
        b.observe(arm, if pays { 1.0 } else { 0.0 }).unwrap();
        if t == 1_999 {
            assert_eq!(b.restarts(), 0, "a restart before any switch");
        }
    }
    assert!(b.restarts() >= 1, "no restart after the switch");
    // After the restart EXP3 learns the new best arm.
    let p = b.next_probabilities();
    assert!(p[1] > 0.8, "{p:?}");
}

#[test]
fn exp3r_defaults_put_the_threshold_beyond_unit_rewards_at_paper_003s_horizons() {
    for horizon in [200usize, 2_000] {
        let (gamma, interval, delta) = Exp3R::<f64, 3>::defaults(horizon).unwrap();
        let t = horizon as f64;
        assert!(close(gamma, (3.0 * 3f64.ln() * t.ln() / t).sqrt(), 1e-15));
        assert_eq!(interval, (t * t.ln()).sqrt().ceil() as usize);
        assert!(close(delta, (t.ln() / (3.0 * t)).sqrt(), 1e-15));
        let b = Exp3R::<f64, 3>::new(gamma, interval, delta).unwrap();
        assert!(b.threshold() > 1.0, "T = {horizon}: 2ε = {}", b.threshold());
    }
    assert_eq!(Exp3R::<f64, 3>::defaults(1), None);
}

#[test]
fn exp3r_refuses_bad_settings_and_foreign_rewards_unchanged() {
    assert_eq!(
        Exp3R::<f64, 0>::new(0.1, 10, 0.1).err(),
        Some(BanditError::NoArms)
    );
    assert_eq!(
        Exp3R::<f64, 2>::new(0.0, 10, 0.1).err(),
        Some(BanditError::Gamma)
    );
    assert_eq!(
        Exp3R::<f64, 2>::new(f64::NAN, 10, 0.1).err(),
        Some(BanditError::Gamma)
    );
    assert_eq!(
        Exp3R::<f64, 3>::new(0.1, 2, 0.1).err(),
        Some(BanditError::Interval)
    );
    assert_eq!(
        Exp3R::<f64, 2>::new(0.1, 10, 1.0).err(),
        Some(BanditError::Delta)
    );
    assert_eq!(
        Exp3R::<f64, 2>::new(0.1, 10, f64::NAN).err(),
        Some(BanditError::Delta)
    );
    let mut b = Exp3R::<f64, 2>::new(0.5, 4, 0.1).unwrap();
    assert_eq!(b.observe(0, 0.5), Err(BanditError::NotChosen));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let arm = b.choose(&mut rng);
    let before = b;
    assert_eq!(b.observe(1 - arm, 0.5), Err(BanditError::NotChosen));
    assert_eq!(b.observe(arm, 1.5), Err(BanditError::OutsideUnitInterval));
    assert_eq!(b.observe(arm, f64::NAN), Err(BanditError::NonFinite));
    assert_eq!(
        b.observe(7, 0.5),
        Err(BanditError::ArmOutOfRange { arm: 7, arms: 2 })
    );
    assert_eq!(b, before);
    b.observe(arm, 0.5).unwrap();
}

// ---------------------------------------------------------------------------------------------
// EXP3.S

/// The paper's EXP3.S update (Auer et al. 2002, §8) on raw weights, written independently of
/// the crate: `w_j ← w_j exp(γ x̂_j / K) + (e α / K) Σᵢ wᵢ`, `x̂ = x / p_arm` for the drawn arm.
fn exp3s_reference_update(w: &mut [f64; 3], gamma: f64, alpha: f64, arm: usize, x: f64) {
    let k = 3.0;
    let total: f64 = w.iter().sum();
    let p = (1.0 - gamma) * w[arm] / total + gamma / k;
    let xhat = x / p;
    let share = std::f64::consts::E * alpha / k * total;
    for (j, wj) in w.iter_mut().enumerate() {
        let est = if j == arm { xhat } else { 0.0 };
        *wj = *wj * (gamma * est / k).exp() + share;
    }
}

fn exp3s_reference_probabilities(w: &[f64; 3], gamma: f64) -> [f64; 3] {
    let total: f64 = w.iter().sum();
    w.map(|wi| (1.0 - gamma) * wi / total + gamma / 3.0)
}

/// γ = 0.3, α = 0.02, K = 3. Rounds (uniform → arm, reward):
/// 1. p = (1/3, 1/3, 1/3); u = 0.5 → arm 1, x = 0.6, x̂ = 1.8;
///    w = (1 + 0.02e, e^0.18 + 0.02e, 1 + 0.02e) = (1.0543656, 1.2515830, 1.0543656).
/// 2. p = (0.3196390, 0.3607221, 0.3196390); u = 0.95 → arm 2, x = 0.9;
///    w = (1.1152608, 1.3124782, 1.4581465).
/// 3. p = (0.3009021, 0.3364287, 0.3626692); u = 0.1 → arm 0, no feedback (skip).
/// 4. same p; u = 0.1 → arm 0, x = 0 (only the sharing term): w = (1.1856804, 1.3828978,
///    1.5285661).
/// 5. p = (0.3025743, 0.3362691, 0.3611566); u = 0.5 → arm 1, x = 1;
///    w = (1.2599283, 1.9360820, 1.6028140), next p = (0.2837846, 0.3824145, 0.3338010).
#[test]
fn exp3s_hand_worked_sequence() {
    let (gamma, alpha) = (0.3, 0.02);
    let mut bandit = Exp3S::<f64, 3>::new(gamma, alpha).unwrap();
    let mut rng = Scripted::new(&[0.5, 0.95, 0.1, 0.1, 0.5]);
    let mut w = [1.0f64; 3];
    // (expected arm, reward or None for a skipped round)
    let rounds = [
        (1, Some(0.6)),
        (2, Some(0.9)),
        (0, None),
        (0, Some(0.0)),
        (1, Some(1.0)),
    ];
    for (round, &(expected_arm, reward)) in rounds.iter().enumerate() {
        let p_ref = exp3s_reference_probabilities(&w, gamma);
        let arm = bandit.choose(&mut rng);
        assert_eq!(arm, expected_arm, "round {}", round + 1);
        for i in 0..3 {
            assert!(close(bandit.probabilities()[i], p_ref[i], 1e-14));
        }
        match reward {
            Some(x) => {
                bandit.observe(arm, x).unwrap();
                exp3s_reference_update(&mut w, gamma, alpha, arm, x);
            }
            None => bandit.skip(),
        }
        let total: f64 = w.iter().sum();
        for i in 0..3 {
            assert!(close(bandit.weights()[i], w[i] / total, 1e-14));
        }
    }
    // The stated numbers, as a check of the reference itself.
    let expected_w = [
        1.259_928_344_033_174_8,
        1.936_081_964_835_915_5,
        1.602_814_034_530_960_5,
    ];
    for i in 0..3 {
        assert!(close(w[i], expected_w[i], 1e-12));
    }
    let expected_p = [
        0.283_784_564_241_487_8,
        0.382_414_457_876_346_7,
        0.333_800_977_882_165_4,
    ];
    let p = bandit.next_probabilities();
    for i in 0..3 {
        assert!(close(p[i], expected_p[i], 1e-14), "{p:?}");
    }
}

#[test]
fn exp3s_refuses_rewards_for_arms_not_drawn() {
    let mut bandit = Exp3S::<f64, 3>::new(0.3, 0.0).unwrap();
    // No round pending yet.
    assert_eq!(bandit.observe(0, 0.5), Err(BanditError::NotChosen));
    let mut rng = Scripted::new(&[0.5, 0.5]);
    let arm = bandit.choose(&mut rng);
    assert_eq!(arm, 1);
    let before = bandit;
    assert_eq!(bandit.observe(0, 0.5), Err(BanditError::NotChosen));
    assert_eq!(bandit, before);
    // A skipped round ends the round: its reward can no longer be fed.
    bandit.skip();
    assert_eq!(bandit.observe(1, 0.5), Err(BanditError::NotChosen));
    // Observing twice for one draw is refused too.
    let arm = bandit.choose(&mut rng);
    bandit.observe(arm, 0.5).unwrap();
    let before = bandit;
    assert_eq!(bandit.observe(arm, 0.5), Err(BanditError::NotChosen));
    assert_eq!(bandit, before);
}

#[test]
fn exp3s_weights_stay_finite_over_long_runs_in_f32() {
    // Raw weights would grow like e^(t/3) here (always reward 1 on the drawn arm) and overflow
    // f32 within a few hundred rounds; the stored, normalised ones stay in [0, 1].
    let mut bandit = Exp3S::<f32, 3>::new(1.0, 0.0).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for _ in 0..5000 {
        let arm = bandit.choose(&mut rng);
        bandit.observe(arm, 1.0).unwrap();
    }
    let sum: f32 = bandit.weights().iter().sum();
    assert!(bandit.weights().iter().all(|w| w.is_finite() && *w >= 0.0));
    assert!((sum - 1.0).abs() < 1e-5);
}

// ---------------------------------------------------------------------------------------------
// UCB1

/// Rewards 1.0 (arm 0), 0.0 (arm 1), 0.5 (arm 2), 0.5 (arm 0): n = 4, n₀ = 2, x̄ = (0.75, 0,
/// 0.5), so the indices are 0.75 + √(2 ln 4 / 2) = 1.9274100, 0 + √(2 ln 4) = 1.6651092 and
/// 0.5 + √(2 ln 4) = 2.1651092: arm 2 is next.
#[test]
fn ucb1_index_on_a_hand_built_sequence() {
    let mut bandit = Ucb1::<f64, 3>::new().unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
    // Each arm once, in order; a round without feedback does not count as playing the arm.
    assert_eq!(bandit.choose(&mut rng), 0);
    bandit.skip();
    assert_eq!(bandit.choose(&mut rng), 0);
    bandit.observe(0, 1.0).unwrap();
    assert_eq!(bandit.choose(&mut rng), 1);
    bandit.observe(1, 0.0).unwrap();
    assert_eq!(bandit.choose(&mut rng), 2);
    bandit.observe(2, 0.5).unwrap();
    bandit.observe(0, 0.5).unwrap();
    let ln4 = 4f64.ln();
    let expected = [
        0.75 + (2.0 * ln4 / 2.0).sqrt(),
        (2.0 * ln4).sqrt(),
        0.5 + (2.0 * ln4).sqrt(),
    ];
    let stated = [
        1.927_410_022_515_474_7,
        1.665_109_222_315_395_4,
        2.165_109_222_315_395_6,
    ];
    for arm in 0..3 {
        assert!(close(expected[arm], stated[arm], 1e-15));
        assert!(close(bandit.index(arm).unwrap(), expected[arm], 1e-15));
    }
    assert_eq!(bandit.index(3), None);
    assert_eq!(bandit.choose(&mut rng), 2);
}

// ---------------------------------------------------------------------------------------------
// Softmax

/// Means Q = (0.2, 0.5, 0.9), τ = 0.25: p = e^(Q/τ) / Σ = (e^0.8, e^2, e^3.6) / 46.212834
/// = (0.0481585, 0.1598919, 0.7919496). The empirical frequencies of 20 000 draws agree within
/// five binomial standard deviations.
#[test]
fn softmax_probabilities_match_the_closed_form() {
    let mut bandit = Softmax::<f64, 3>::new(0.25).unwrap();
    for (arm, q) in [0.2, 0.5, 0.9].into_iter().enumerate() {
        bandit.observe(arm, q).unwrap();
    }
    let e = [0.8f64.exp(), 2f64.exp(), 3.6f64.exp()];
    let s: f64 = e.iter().sum();
    let stated = [
        0.048_158_506_147_458_1,
        0.159_891_871_233_887_7,
        0.791_949_622_618_654_2,
    ];
    let p = bandit.probabilities();
    for i in 0..3 {
        assert!(close(e[i] / s, stated[i], 1e-15));
        assert!(close(p[i], stated[i], 1e-15), "{p:?}");
    }
    let n = 20_000;
    let mut counts = [0usize; 3];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    for _ in 0..n {
        counts[bandit.choose(&mut rng)] += 1;
    }
    for i in 0..3 {
        let sd = (stated[i] * (1.0 - stated[i]) / n as f64).sqrt();
        let freq = counts[i] as f64 / n as f64;
        assert!(
            (freq - stated[i]).abs() < 5.0 * sd,
            "arm {i}: {freq} vs {}",
            stated[i]
        );
    }
}

#[test]
fn softmax_is_uniform_before_any_reward_and_stable_at_low_temperature() {
    let bandit = Softmax::<f64, 3>::new(0.1).unwrap();
    assert_eq!(bandit.probabilities(), [1.0 / 3.0; 3]);
    // Q/τ = 1e4 would overflow exp; the shifted form gives a point mass, not NaN.
    let mut cold = Softmax::<f32, 3>::new(1e-4).unwrap();
    cold.observe(1, 1.0).unwrap();
    assert_eq!(cold.probabilities(), [0.0, 1.0, 0.0]);
}

// ---------------------------------------------------------------------------------------------
// ε-greedy

/// Means (0.9, 0.1, 0.1), ε = 0.2: a non-greedy arm comes only from exploration, with
/// probability ε (K − 1)/K = 0.1333. Over N = 40 000 draws the frequency's standard deviation
/// is √(p(1 − p)/N) = 0.0017; the test allows five of them (0.0085).
#[test]
fn epsilon_greedy_explores_at_rate_epsilon() {
    let mut bandit = EpsilonGreedy::<f64, 3>::new(0.2).unwrap();
    for (arm, q) in [0.9, 0.1, 0.1].into_iter().enumerate() {
        bandit.observe(arm, q).unwrap();
    }
    let n = 40_000;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut counts = [0usize; 3];
    for _ in 0..n {
        counts[bandit.choose(&mut rng)] += 1;
    }
    let p = 0.2 * 2.0 / 3.0;
    let sd = (p * (1.0 - p) / n as f64).sqrt();
    let freq = (counts[1] + counts[2]) as f64 / n as f64;
    assert!((freq - p).abs() < 5.0 * sd, "{freq} vs {p}");
    // Each non-greedy arm gets half of it: ε/K = 0.0667.
    for &c in &counts[1..] {
        let q = 0.2 / 3.0;
        let sd = (q * (1.0 - q) / n as f64).sqrt();
        assert!((c as f64 / n as f64 - q).abs() < 5.0 * sd);
    }
    // ε = 0 never explores.
    let mut greedy = EpsilonGreedy::<f64, 3>::new(0.0).unwrap();
    greedy.observe(2, 0.3).unwrap();
    assert!((0..1000).all(|_| greedy.choose(&mut rng) == 2));
}

#[test]
fn epsilon_greedy_breaks_ties_at_random() {
    // No rewards yet: every average is zero, and the greedy choice is uniform over the arms.
    let mut bandit = EpsilonGreedy::<f64, 3>::new(0.0).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
    let n = 30_000;
    let mut counts = [0usize; 3];
    for _ in 0..n {
        counts[bandit.choose(&mut rng)] += 1;
    }
    let q = 1.0 / 3.0;
    let sd = (q * (1.0 - q) / n as f64).sqrt();
    for c in counts {
        assert!((c as f64 / n as f64 - q).abs() < 5.0 * sd, "{counts:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Every algorithm

/// Plays `rounds` rounds of a stationary Bernoulli bandit with full feedback and returns how
/// often each arm was chosen in the last `tail` rounds.
fn play_bernoulli<B: Bandit<f64>>(
    bandit: &mut B,
    means: [f64; 3],
    rounds: usize,
    tail: usize,
    seed: u64,
) -> [usize; 3] {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut env = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x5eed);
    let mut counts = [0; 3];
    for t in 0..rounds {
        let arm = bandit.choose(&mut rng);
        let u = (env.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let reward = if u < means[arm] { 1.0 } else { 0.0 };
        bandit.observe(arm, reward).unwrap();
        if t >= rounds - tail {
            counts[arm] += 1;
        }
    }
    counts
}

/// Means (0.2, 0.5, 0.8), 3000 rounds: over the last 1000 the best arm (2) is played at
/// least 85 % of the time by each algorithm, on each of three seeds. (The limits: EXP3.S with
/// γ = 0.1 at most 1 − γ + γ/K = 0.933, ε-greedy with ε = 0.1 about 0.933, softmax with
/// τ = 0.1 about e⁸/(e⁸ + e⁵ + e²) = 0.950, UCB1 near 1.)
#[test]
fn each_algorithm_finds_the_best_arm_of_a_stationary_bandit() {
    let means = [0.2, 0.5, 0.8];
    for seed in 1..=3 {
        let runs: [(&str, [usize; 3]); 4] = [
            (
                "exp3s",
                play_bernoulli(
                    &mut Exp3S::<f64, 3>::new(0.1, 0.0).unwrap(),
                    means,
                    3000,
                    1000,
                    seed,
                ),
            ),
            (
                "epsilon-greedy",
                play_bernoulli(
                    &mut EpsilonGreedy::<f64, 3>::new(0.1).unwrap(),
                    means,
                    3000,
                    1000,
                    seed,
                ),
            ),
            (
                "softmax",
                play_bernoulli(
                    &mut Softmax::<f64, 3>::new(0.1).unwrap(),
                    means,
                    3000,
                    1000,
                    seed,
                ),
            ),
            (
                "ucb1",
                play_bernoulli(&mut Ucb1::<f64, 3>::new().unwrap(), means, 3000, 1000, seed),
            ),
        ];
        for (name, counts) in runs {
            assert!(counts[2] >= 850, "{name}, seed {seed}: {counts:?}");
        }
    }
}

/// Feeds every refused observation to `bandit` and checks the error and that nothing changed.
fn assert_refusals_change_nothing<B: Bandit<f64> + Clone + PartialEq + core::fmt::Debug>(
    bandit: &mut B,
    arm: usize,
    unit: bool,
) {
    let before = bandit.clone();
    assert_eq!(
        bandit.observe(3, 0.5),
        Err(BanditError::ArmOutOfRange { arm: 3, arms: 3 })
    );
    assert_eq!(
        bandit.observe(usize::MAX, 0.5),
        Err(BanditError::ArmOutOfRange {
            arm: usize::MAX,
            arms: 3
        })
    );
    assert_eq!(bandit.observe(arm, f64::NAN), Err(BanditError::NonFinite));
    assert_eq!(
        bandit.observe(arm, f64::INFINITY),
        Err(BanditError::NonFinite)
    );
    assert_eq!(
        bandit.observe(arm, f64::NEG_INFINITY),
        Err(BanditError::NonFinite)
    );
    if unit {
        assert!(bandit.needs_unit_rewards());
        assert_eq!(
            bandit.observe(arm, 1.5),
            Err(BanditError::OutsideUnitInterval)
        );
        assert_eq!(
            bandit.observe(arm, -0.01),
            Err(BanditError::OutsideUnitInterval)
        );
    } else {
        assert!(!bandit.needs_unit_rewards());
        // A running sum that would overflow is refused too.
        bandit.observe(arm, f64::MAX).unwrap();
        let after_one = bandit.clone();
        assert_eq!(bandit.observe(arm, f64::MAX), Err(BanditError::NonFinite));
        assert_eq!(*bandit, after_one);
        *bandit = before.clone();
    }
    assert_eq!(*bandit, before);
}

#[test]
fn typed_errors_leave_state_unchanged() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(21);

    let mut exp3s = Exp3S::<f64, 3>::new(0.2, 0.01).unwrap();
    for _ in 0..5 {
        let arm = exp3s.choose(&mut rng);
        exp3s.observe(arm, 0.7).unwrap();
    }
    let arm = exp3s.choose(&mut rng);
    assert_refusals_change_nothing(&mut exp3s, arm, true);
    // The pending round survives the refusals and can still be observed.
    exp3s.observe(arm, 0.4).unwrap();

    let mut eg = EpsilonGreedy::<f64, 3>::new(0.1).unwrap();
    let mut sm = Softmax::<f64, 3>::new(0.1).unwrap();
    let mut ucb = Ucb1::<f64, 3>::new().unwrap();
    for t in 0..6 {
        eg.observe(t % 3, 0.25).unwrap();
        sm.observe(t % 3, 0.25).unwrap();
        ucb.observe(t % 3, 0.25).unwrap();
    }
    assert_refusals_change_nothing(&mut eg, 1, false);
    assert_refusals_change_nothing(&mut sm, 1, false);
    assert_refusals_change_nothing(&mut ucb, 1, true);
    // Noisy rewards outside [0, 1] are fine for the sample-average rules.
    eg.observe(0, -0.3).unwrap();
    sm.observe(0, 1.3).unwrap();
}

#[test]
fn invalid_parameters_are_refused() {
    for gamma in [0.0, -0.1, 1.5, f64::NAN, f64::INFINITY] {
        assert_eq!(Exp3S::<f64, 3>::new(gamma, 0.0), Err(BanditError::Gamma));
    }
    assert!(Exp3S::<f64, 3>::new(1.0, 0.0).is_ok());
    for alpha in [-1e-9, f64::NAN, f64::INFINITY] {
        assert_eq!(Exp3S::<f64, 3>::new(0.1, alpha), Err(BanditError::Alpha));
    }
    for eps in [-0.1, 1.1, f64::NAN] {
        assert_eq!(EpsilonGreedy::<f64, 3>::new(eps), Err(BanditError::Epsilon));
    }
    assert!(EpsilonGreedy::<f64, 3>::new(0.0).is_ok());
    assert!(EpsilonGreedy::<f64, 3>::new(1.0).is_ok());
    for tau in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(Softmax::<f64, 3>::new(tau), Err(BanditError::Temperature));
    }
    assert_eq!(Exp3S::<f64, 0>::new(0.1, 0.0), Err(BanditError::NoArms));
    assert_eq!(EpsilonGreedy::<f64, 0>::new(0.1), Err(BanditError::NoArms));
    assert_eq!(Softmax::<f64, 0>::new(0.1), Err(BanditError::NoArms));
    assert_eq!(Ucb1::<f64, 0>::new(), Err(BanditError::NoArms));
}

/// The reward of `arm` in round `t` of the fixed sequence: a quarter-multiple in [0, 1],
/// exact in both precisions.
fn fixed_reward(arm: usize, t: usize) -> f64 {
    ((t * 7 + arm * 3 + arm * arm) % 5) as f64 / 4.0
}

/// The arms chosen over `rounds` rounds of the fixed sequence, every round observed.
fn fixed_choices<R: Real, B: Bandit<R>>(mut bandit: B, rounds: usize) -> Vec<usize> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(42);
    (0..rounds)
        .map(|t| {
            let arm = bandit.choose(&mut rng);
            if t % 3 != 2 {
                bandit
                    .observe(arm, R::from_f64(fixed_reward(arm, t)))
                    .unwrap();
            } else {
                bandit.skip();
            }
            arm
        })
        .collect()
}

/// `f32` and `f64` draw the same uniforms, so they make the same 500 choices on a fixed
/// reward sequence (every third round unobserved).
#[test]
fn f32_agrees_with_f64_on_a_fixed_sequence() {
    let n = 500;
    assert_eq!(
        fixed_choices(Exp3S::<f32, 3>::new(0.1, 0.01).unwrap(), n),
        fixed_choices(Exp3S::<f64, 3>::new(0.1, 0.01).unwrap(), n)
    );
    assert_eq!(
        fixed_choices(EpsilonGreedy::<f32, 3>::new(0.1).unwrap(), n),
        fixed_choices(EpsilonGreedy::<f64, 3>::new(0.1).unwrap(), n)
    );
    assert_eq!(
        fixed_choices(Softmax::<f32, 3>::new(0.1).unwrap(), n),
        fixed_choices(Softmax::<f64, 3>::new(0.1).unwrap(), n)
    );
    assert_eq!(
        fixed_choices(Ucb1::<f32, 3>::new().unwrap(), n),
        fixed_choices(Ucb1::<f64, 3>::new().unwrap(), n)
    );
    assert_eq!(
        fixed_choices(Exp3R::<f32, 3>::new(0.5, 30, 0.1).unwrap(), n),
        fixed_choices(Exp3R::<f64, 3>::new(0.5, 30, 0.1).unwrap(), n)
    );
    // EXP3.R where its test fires: the best arm alternates between 0 and 1 every 100 rounds
    // (rewards 1 and 0, exact in both precisions), 2ε = 2√(3 ln 10 / 30) ≈ 0.96 < 1.
    let (mut a, mut b) = (
        Exp3R::<f32, 3>::new(0.5, 30, 0.1).unwrap(),
        Exp3R::<f64, 3>::new(0.5, 30, 0.1).unwrap(),
    );
    let mut rng = (
        Xoshiro256PlusPlus::seed_from_u64(42),
        Xoshiro256PlusPlus::seed_from_u64(42),
    );
    let reward = |arm: usize, t: usize| if arm == (t / 100) % 2 { 1.0 } else { 0.0 };
    for t in 0..2_000 {
        let (i, j) = (a.choose(&mut rng.0), b.choose(&mut rng.1));
        assert_eq!(i, j, "round {t}");
        a.observe(i, reward(i, t) as f32).unwrap();
        b.observe(j, reward(j, t)).unwrap();
    }
    assert!(b.restarts() > 0);
    assert_eq!(a.restarts(), b.restarts());
}
