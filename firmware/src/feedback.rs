//! Paper 003's costly feedback on the device: CE-GP-UCB over a drifting function on the unit
//! square, in f32, reduced to a fingerprint of every decision's bits.
//!
//! The scenario is fixed so that the device and the desktop run exactly the same arithmetic:
//!
//! * model: a time-varying GP ([`TimeVaryingGp`]) in `D = 2` of capacity [`N`] = 64 that drops
//!   its oldest observation when full, Matérn-5/2 with lengthscale 0.2 and outputscale 1, prior
//!   mean 0, forgetting rate ε = 0.01 and noise variance 0.01;
//! * warm-up ([`Scenario::warm_up`]): rounds 0–63 are paid measurements on an 8×8 grid, so that
//!   every measured decision runs at capacity 64 (and every paid one drops the oldest point);
//! * a decision ([`Scenario::decide`], round `t ≥ 64`): the UCB `μ + √β_t·σ` with the
//!   logarithmic schedule of Bogunovic et al.'s experiments, `β_t = 0.8·ln(0.4t)`, is climbed
//!   by [`box_competitors`] from the [`STARTS`] (8 fixed points) with the small quasi-Newton
//!   budget [`ASCENT`]; `x_t` is the highest optimum and the others are the competitors of
//!   [`QueryRule::confidence`]`(0.8)` (the UCB's other optima, and its best start beyond the
//!   bandwidth where no optimum that far is higher: the reading paper 003's study favours,
//!   `docs/results/costly-feedback.md`), which decides with a seeded [`Xoshiro128PlusPlus`] (the
//!   generator the core seeds everywhere else); a paid round measures [`objective`] at `x_t`
//!   and pushes it; then the round advances.
//!
//! Not behind the QEMU feature: the same functions run in the firmware's self-test and on the
//! desktop (`firmware/host-tests/tests/feedback.rs`), and both compare the hash of the first
//! [`DECISIONS`] decisions with [`FINGERPRINT`], so the device's f32 decisions are the desktop
//! core's bit for bit.

use costbo_core::feedback::query::{QueryDecision, QueryRule};
use costbo_core::feedback::select::{box_competitors, BoxOptimum};
use costbo_core::gp::time_varying::{TimeVaryingError, TimeVaryingGp};
use costbo_core::gp::{Prediction, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::optimize::{
    QuasiNewtonConfig, PROJECTED_GRADIENT_TOLERANCE, RELATIVE_IMPROVEMENT_TOLERANCE,
};
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

/// Variables of the box.
pub const D: usize = 2;
/// Capacity of the GP.
pub const N: usize = 64;
/// Rounds of the warm-up (one paid measurement each): exactly fills the GP.
pub const WARM_UP: usize = N;
/// Decisions hashed into [`FINGERPRINT`]: the first 16, because rounds 64–77 all pay and 78–79
/// skip, so the hash covers both branches of the rule (an M0 self-test of about 3.2 G
/// instructions, a few seconds in QEMU).
pub const DECISIONS: usize = 16;
/// The forgetting rate ε.
pub const EPSILON: f32 = 0.01;
/// The observation noise variance.
pub const NOISE: f32 = 0.01;
/// The spatial kernel's lengthscale (both inputs).
pub const LENGTHSCALE: f32 = 0.2;
/// κ of the confidence test: pay while some competitor beats `x_t` with probability above 0.2.
pub const KAPPA: f32 = 0.8;
/// Optima closer than this (Euclidean) are merged, as in the paper's mean-shift (App. E.3).
pub const BANDWIDTH: f32 = 0.2;
/// Seed of the query rule's generator. With pure CE's quotas the gate coin is always below 1,
/// so the seed changes no decision here; the rule still draws two uniforms a round, so that a
/// rule with quotas would replay the same way.
pub const SEED: u64 = 3;

/// FNV-1a of the first [`DECISIONS`] decisions (`x_t`'s bits, the pay bit, the smallest
/// confidence probability's bits and the number of optima) on the desktop's f32 core.
#[cfg(not(feature = "fast-math"))]
pub const FINGERPRINT: u32 = 0xfba3_93e5;
/// The same on the desktop's f32 core built with `fast-math` (micromath's `exp`).
#[cfg(feature = "fast-math")]
pub const FINGERPRINT: u32 = 0xbfee_0060;

/// Starts of the UCB ascents: points 1–8 of the 2-D Sobol sequence (the origin, point 0, is a
/// corner, where a projected ascent could stall on the bounds).
pub const STARTS: [[f32; D]; 8] = [
    [0.5, 0.5],
    [0.75, 0.25],
    [0.25, 0.75],
    [0.375, 0.375],
    [0.875, 0.875],
    [0.625, 0.125],
    [0.125, 0.625],
    [0.1875, 0.3125],
];

/// The ascents' budget: at most 8 accepted steps and 20 UCB evaluations per start (SciPy's
/// tolerances otherwise), so a decision costs at most 160 posterior evaluations with
/// gradient. Paper 003 runs L-BFGS to convergence from 50 starts; 8 × 20 keeps an M0
/// decision in the hundreds of millions of instructions (docs/embedded.md).
pub const ASCENT: QuasiNewtonConfig = QuasiNewtonConfig {
    max_iterations: 8,
    max_evaluations: 20,
    projected_gradient_tolerance: PROJECTED_GRADIENT_TOLERANCE,
    relative_improvement_tolerance: RELATIVE_IMPROVEMENT_TOLERANCE,
};

/// The model of the scenario over a factor of `tri_len(N)` elements in `S`.
pub type Model<S> = TimeVaryingGp<f32, N, D, S>;

/// The drifting objective at round `t`: a bump of height 1 whose centre circles (0.5, 0.5) at
/// radius 0.25, one lap in about 314 rounds, plus a fixed bump of height 0.6 at (0.2, 0.2) so
/// that the UCB has more than one mode (the confidence test needs competitors). Plain f32
/// operations and libm, so host and device compute the same bits.
pub fn objective(x: &[f32; D], t: u32) -> f32 {
    let angle = 0.02 * t as f32;
    let cx = 0.5 + 0.25 * libm::cosf(angle);
    let cy = 0.5 + 0.25 * libm::sinf(angle);
    let moving = (x[0] - cx) * (x[0] - cx) + (x[1] - cy) * (x[1] - cy);
    let fixed = (x[0] - 0.2) * (x[0] - 0.2) + (x[1] - 0.2) * (x[1] - 0.2);
    // Both bumps have standard deviation 0.15: exp(−r²/(2·0.15²)).
    libm::expf(-moving / 0.045) + 0.6 * libm::expf(-fixed / 0.045)
}

/// The UCB width `√β_t` with `β_t = max(0.8·ln(0.4t), 0)`.
pub fn width(t: u32) -> f32 {
    libm::sqrtf((0.8 * libm::logf(0.4 * t.max(1) as f32)).max(0.0))
}

/// Why the scenario stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunError {
    /// The model refused a request (building it, a push or a round).
    Model(TimeVaryingError),
    /// No ascent could evaluate the posterior.
    NoOptimum,
}

impl From<TimeVaryingError> for RunError {
    fn from(e: TimeVaryingError) -> Self {
        RunError::Model(e)
    }
}

/// One round's decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    /// The round decided.
    pub round: u32,
    /// `x_t`, the highest UCB optimum.
    pub x: [f32; D],
    /// The query rule's answer (pay, why, the smallest confidence probability).
    pub query: QueryDecision<f32>,
    /// 1 + the number of competitors.
    pub optima: usize,
}

/// The scenario's state: the model, the query rule and its generator.
pub struct Scenario<S> {
    gp: Model<S>,
    rule: QueryRule<f32>,
    rng: Xoshiro128PlusPlus,
}

impl<S: AsRef<[f32]> + AsMut<[f32]>> Scenario<S> {
    /// An empty model at round 0 over `factor` (at least `tri_len(N)` elements).
    pub fn new(factor: S) -> Result<Self, RunError> {
        let kernel = Kernel::matern52([LENGTHSCALE; D], 1.0)
            .map_err(|e| RunError::Model(TimeVaryingError::Gp(e.into())))?;
        let gp = TimeVaryingGp::new(kernel, 0.0, NOISE, EPSILON, WhenFull::DropOldest, factor)?;
        // κ = 0.8 is in (0, 1): the rule cannot be refused.
        let rule = QueryRule::confidence(KAPPA).map_err(|_| RunError::NoOptimum)?;
        Ok(Scenario {
            gp,
            rule,
            rng: Xoshiro128PlusPlus::seed_from_u64(SEED),
        })
    }

    /// The model.
    pub fn gp(&self) -> &Model<S> {
        &self.gp
    }

    /// Rounds 0 … [`WARM_UP`]−1: one paid measurement each on the 8×8 grid of cell centres,
    /// row by row. Afterwards the GP holds `N` observations and the round is [`WARM_UP`].
    pub fn warm_up(&mut self) -> Result<(), RunError> {
        for i in 0..WARM_UP {
            let x = [(i % 8) as f32 / 8.0 + 0.0625, (i / 8) as f32 / 8.0 + 0.0625];
            self.gp.push(&x, objective(&x, self.gp.round()))?;
            self.gp.advance()?;
        }
        Ok(())
    }

    /// One decision at the current round (see the module docs): optima search, query
    /// decision, the measurement and push when paid, and the move to the next round.
    pub fn decide(&mut self) -> Result<Decision, RunError> {
        let round = self.gp.round();
        let w = width(round);
        let empty = BoxOptimum {
            x: [0.0; D],
            value: 0.0,
            prediction: Prediction {
                mean: 0.0,
                variance: 0.0,
            },
        };
        let mut optima = [empty; STARTS.len()];
        let found = box_competitors(&self.gp, w, &STARTS, &ASCENT, BANDWIDTH, &mut optima);
        if found == 0 {
            return Err(RunError::NoOptimum);
        }
        let chosen = optima[0];
        let query = self.rule.decide(
            chosen.prediction,
            optima[1..found].iter().map(|o| o.prediction),
            w,
            &mut self.rng,
        );
        if query.pay {
            self.gp.push(&chosen.x, objective(&chosen.x, round))?;
        }
        self.gp.advance()?;
        Ok(Decision {
            round,
            x: chosen.x,
            query,
            optima: found,
        })
    }
}

pub use crate::fingerprint::{fnv, FNV_START};

/// Folds one decision into `hash`: `x_t`'s bits, the pay bit, the smallest confidence
/// probability's bits and the number of optima.
pub fn fold(hash: u32, d: &Decision) -> u32 {
    let h = fnv(fnv(hash, d.x[0].to_bits()), d.x[1].to_bits());
    let h = fnv(h, u32::from(d.query.pay));
    fnv(fnv(h, d.query.min_probability.to_bits()), d.optima as u32)
}

/// Warms a fresh scenario up, then hashes its first [`DECISIONS`] decisions; also returns how
/// many of them paid.
pub fn fingerprint<S: AsRef<[f32]> + AsMut<[f32]>>(
    scenario: &mut Scenario<S>,
) -> Result<(u32, usize), RunError> {
    scenario.warm_up()?;
    let mut hash = FNV_START;
    let mut paid = 0;
    for _ in 0..DECISIONS {
        let d = scenario.decide()?;
        paid += usize::from(d.query.pay);
        hash = fold(hash, &d);
    }
    Ok((hash, paid))
}
