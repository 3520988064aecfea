//! Paper 004's contextual causal BO on the device: Algorithm 2 over two arms, each with a GP of
//! capacity 64, in f32, reduced to a fingerprint of every decision's bits.
//!
//! The scenario is fixed so that the device and the desktop run exactly the same arithmetic:
//!
//! * variables: `X` (0) and `Z` (1) are actions in `[0, 1]`, `C` (2) a context in `[0, 1]`
//!   measured before acting; the outcome is [`outcome`];
//! * arms: 0 sets `X` given `C` (a mixed policy scope `{X | C}`), 1 sets `X` and `Z`
//!   (context-free), so both arms have `D = 2` inputs;
//! * models: one [`Gp`] per arm of capacity [`N`] = 64 that drops its oldest observation when
//!   full, Matérn-5/2 with lengthscale 0.2, outputscale 1, prior mean 0, noise variance 0.01;
//! * warm-up ([`Scenario::new`]): each arm's GP is filled with 64 observations of its outcome
//!   on the 8×8 grid of cell centres, so that every decision runs at capacity 64 and every
//!   outcome told drops the oldest point;
//! * a round ([`Scenario::round`]): Algorithm 2 chooses the arm ([`CausalController::next_arm`]:
//!   round-robin first, then `Ū_j + ρ/√n_j` with ρ = 1), the context is "measured"
//!   ([`context`], a low-discrepancy sequence), GP-UCB with β = 2 climbs the arm's action box
//!   with the context pinned from [`STARTS`] starts under the small budget [`ASCENT`], the
//!   outcome is computed and told.
//!
//! Not behind the QEMU feature: the same functions run in the firmware's self-test and on the
//! desktop (`firmware/host-tests/tests/causal.rs`), and both compare the hash of the first
//! [`DECISIONS`] decisions with [`FINGERPRINT`].

use costbo_core::causal::arms::{ArmTable, ArmTableError};
use costbo_core::causal::controller::{
    ArmModel, CausalAsk, CausalController, CausalError, CausalSettings,
};
use costbo_core::causal::schedule::Schedule;
use costbo_core::gp::{Gp, GpError, WhenFull};
use costbo_core::kernel::Kernel;
use costbo_core::optimize::{
    QuasiNewtonConfig, PROJECTED_GRADIENT_TOLERANCE, RELATIVE_IMPROVEMENT_TOLERANCE,
};
use rand_xoshiro::rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

/// Arms.
pub const A: usize = 2;
/// Inputs of each arm's GP.
pub const D: usize = 2;
/// Capacity of each arm's GP.
pub const N: usize = 64;
/// Variables of the problem (`X`, `Z`, `C`).
pub const VARIABLES: usize = 3;
/// The context variable's index.
pub const C: usize = 2;
/// Decisions hashed into [`FINGERPRINT`]: the round-robin's two and six of Algorithm 2's index.
pub const DECISIONS: usize = 8;
/// The observation noise variance of the models.
pub const NOISE: f32 = 0.01;
/// The kernel's lengthscale (both inputs).
pub const LENGTHSCALE: f32 = 0.2;
/// Starts of each UCB ascent.
pub const STARTS: usize = 8;
/// Seed of the controller's generator (Algorithm 2 draws nothing; the random baseline would).
pub const SEED: u64 = 4;

/// FNV-1a of the first [`DECISIONS`] decisions (the arm, the action's and the UCB's bits) on
/// the desktop's f32 core.
#[cfg(not(feature = "fast-math"))]
pub const FINGERPRINT: u32 = 0x4e24_c2d3;
/// The same with the core's `fast-math` (micromath's exp: other bits), computed by
/// `cargo test -p costbo-firmware-host-tests --features fast-math --test integration causal::`.
#[cfg(feature = "fast-math")]
pub const FINGERPRINT: u32 = 0x7881_37ef;

/// The ascents' budget, as in the paper-003 scenario: at most 8 accepted steps and 20 UCB
/// evaluations per start (SciPy's tolerances otherwise).
pub const ASCENT: QuasiNewtonConfig = QuasiNewtonConfig {
    max_iterations: 8,
    max_evaluations: 20,
    projected_gradient_tolerance: PROJECTED_GRADIENT_TOLERANCE,
    relative_improvement_tolerance: RELATIVE_IMPROVEMENT_TOLERANCE,
};

/// One arm's model over its factor storage `S` (`tri_len(N)` elements).
pub type Model<S> = Gp<f32, N, D, S>;
/// The controller of the scenario.
pub type Controller<S> = CausalController<f32, A, N, D, S, Xoshiro128PlusPlus>;

/// The outcome of acting on `arm` with GP input `input` (the arm's actions, then its
/// contexts). Arm 0's best action follows the context (`X = C`, value 1); arm 1's optimum is
/// fixed at `(X, Z) = (0.3, 0.6)` with value 0.7: which arm is better depends on nothing the
/// controller sees in advance. Plain f32 and libm, so host and device compute the same bits.
pub fn outcome(arm: usize, input: &[f32; D]) -> f32 {
    if arm == 0 {
        let r = input[0] - input[1];
        libm::expf(-r * r / 0.05)
    } else {
        let (dx, dz) = (input[0] - 0.3, input[1] - 0.6);
        0.7 * libm::expf(-(dx * dx + dz * dz) / 0.1)
    }
}

/// The context measured in round `t`: `frac(½ + t·(√5 − 1)/2)`, spread over `[0, 1)`.
pub fn context(t: u32) -> f32 {
    let s = 0.5 + t as f32 * 0.618_034;
    s - libm::floorf(s)
}

/// Why the scenario stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunError {
    /// A model refused (building it, a warm-up observation).
    Model(GpError),
    /// The arm table refused an arm.
    Table(ArmTableError),
    /// The controller refused a call.
    Controller(CausalError),
}

impl From<GpError> for RunError {
    fn from(e: GpError) -> Self {
        RunError::Model(e)
    }
}

impl From<CausalError> for RunError {
    fn from(e: CausalError) -> Self {
        RunError::Controller(e)
    }
}

/// One round's decision.
pub type Decision = CausalAsk<f32, D>;

/// The scenario's state: the controller and the round.
pub struct Scenario<S> {
    controller: Controller<S>,
    round: u32,
}

impl<S: AsRef<[f32]> + AsMut<[f32]>> Scenario<S> {
    /// The two arms over `factors` (each at least `tri_len(N)` elements), warmed up: each
    /// arm's GP holds 64 observations on the 8×8 grid.
    pub fn new(factors: [S; A]) -> Result<Self, RunError> {
        Self::with_model(factors, ArmModel::Fixed)
    }

    /// [`new`](Self::new) with the arms' hyperparameters following `model` (the fingerprint
    /// is [`new`](Self::new)'s; `bench_causal` counts what fitted arms cost a round).
    pub fn with_model(factors: [S; A], model: ArmModel<f32>) -> Result<Self, RunError> {
        let mut table = ArmTable::<f32, A, D>::new();
        table
            .push(&[(0, 0.0, 1.0)], &[(C, 0.0, 1.0)])
            .map_err(RunError::Table)?;
        table
            .push(&[(0, 0.0, 1.0), (1, 0.0, 1.0)], &[])
            .map_err(RunError::Table)?;
        let kernel = Kernel::matern52([LENGTHSCALE; D], 1.0).map_err(GpError::from)?;
        let mut arm = 0;
        let gps = factors.map(|factor| {
            let gp =
                Gp::new(kernel, 0.0, NOISE, WhenFull::DropOldest, factor).and_then(|mut gp| {
                    for i in 0..N {
                        let x = [(i % 8) as f32 / 8.0 + 0.0625, (i / 8) as f32 / 8.0 + 0.0625];
                        gp.push(&x, outcome(arm, &x))?;
                    }
                    Ok(gp)
                });
            arm += 1;
            gp
        });
        let [g0, g1] = gps;
        let settings = CausalSettings {
            starts: STARTS,
            ascent: ASCENT,
            model,
            ..CausalSettings::algorithm2(Schedule::Constant(2.0), Schedule::Constant(1.0))
        };
        let controller = CausalController::new(
            table,
            [g0?, g1?],
            settings,
            Xoshiro128PlusPlus::seed_from_u64(SEED),
        )?;
        Ok(Scenario {
            controller,
            round: 0,
        })
    }

    /// The controller.
    pub fn controller(&self) -> &Controller<S> {
        &self.controller
    }

    /// One round (see the module docs): the arm, the context its scope needs, the action, the
    /// outcome told.
    pub fn round(&mut self) -> Result<Decision, RunError> {
        let choice = self.controller.next_arm()?;
        let mut contexts = [f32::NAN; VARIABLES];
        if let Some(arm) = self.controller.table().get(choice.arm) {
            if arm.contexts().contains(&C) {
                contexts[C] = context(self.round);
            }
        }
        let ask = self.controller.ask(&contexts)?;
        self.controller.tell(outcome(ask.choice.arm, &ask.input))?;
        self.round += 1;
        Ok(ask)
    }
}

pub use crate::fingerprint::{fnv, FNV_START};

/// Folds one decision into `hash`: the arm, the GP input's bits and the UCB's bits.
pub fn fold(hash: u32, d: &Decision) -> u32 {
    let h = fnv(hash, d.choice.arm as u32);
    let h = d.input.iter().fold(h, |h, v| fnv(h, v.to_bits()));
    fnv(h, d.ucb.to_bits())
}

/// Hashes the first [`DECISIONS`] rounds of a fresh scenario; also returns how many chose
/// arm 0.
pub fn fingerprint<S: AsRef<[f32]> + AsMut<[f32]>>(
    scenario: &mut Scenario<S>,
) -> Result<(u32, usize), RunError> {
    let mut hash = FNV_START;
    let mut first_arm = 0;
    for _ in 0..DECISIONS {
        let d = scenario.round()?;
        first_arm += usize::from(d.choice.arm == 0);
        hash = fold(hash, &d);
    }
    Ok((hash, first_arm))
}
