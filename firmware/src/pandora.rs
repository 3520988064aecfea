//! Paper 002's rules on the device: a short run of PBGI-D and of LogEIPC over a 2-D box with
//! the cost `1 + 20·mean(u)`, in f32, reduced to a fingerprint of every decision's bits.
//!
//! Not behind the QEMU feature: the same function runs in the firmware's self-test and on the
//! desktop (`firmware/host-tests`), and both compare the fingerprint with [`PBGI_D_FINGERPRINT`]
//! and [`LOG_EIPC_FINGERPRINT`], so the device's f32 decisions are the desktop core's bit for
//! bit.

use crate::fingerprint::{fnv, FNV_START};
use costbo_core::dist::{Distribution, Uniform};
use costbo_core::driver::{BuildError, Controller, ControllerSpec, DriverError, Settings};
use costbo_core::gp::WhenFull;
use costbo_core::inner::InnerConfig;
use costbo_core::kernel::Kernel;
use costbo_core::policy::log_ei::{CostUse, LogEi};
use costbo_core::policy::pbgi::{Lambda, PandoraIndex};
use costbo_core::policy::{Maximiser, Policy, PolicySpec};
use costbo_core::problem::{ControlSet, CostFunction, Costs, Problem, Variable};

/// Variables of the box.
pub const D: usize = 2;
/// Initial (uncharged) observations.
pub const INITIAL: usize = 6;
/// Rounds decided by the rule (initial and decided observations fit a GP of capacity 24).
pub const ROUNDS: usize = 10;

/// FNV-1a of PBGI-D's decisions (values and scores, f32 bits) on the desktop's f32 core.
#[cfg(not(feature = "fast-math"))]
pub const PBGI_D_FINGERPRINT: u32 = 0x7795_321a;
/// FNV-1a of LogEIPC's decisions on the desktop's f32 core.
#[cfg(not(feature = "fast-math"))]
pub const LOG_EIPC_FINGERPRINT: u32 = 0xea44_fd58;
/// FNV-1a of PBGI-D's decisions on the desktop's f32 core built with `fast-math` (micromath's
/// `exp`, which changes every kernel value and so every decision's bits).
#[cfg(feature = "fast-math")]
pub const PBGI_D_FINGERPRINT: u32 = 0x75f3_3580;
/// FNV-1a of LogEIPC's decisions on the desktop's f32 core built with `fast-math`.
#[cfg(feature = "fast-math")]
pub const LOG_EIPC_FINGERPRINT: u32 = 0xd6eb_03c2;

/// The objective, maximised: a bowl at (0.3, 0.7) with a ripple along the first axis.
pub fn objective(x: &[f32; D]) -> f32 {
    let a = x[0] - 0.3;
    let b = x[1] - 0.7;
    -(a * a) - b * b + 0.1 * libm::sinf(5.0 * x[0])
}

/// Paper 002's cost-aware setting, `c(u) = 1 + 20·mean(u)`, with its gradient.
pub fn cost(_: usize, x: &[f32; D]) -> (f32, [f32; D]) {
    (1.0 + 10.0 * (x[0] + x[1]), [10.0; D])
}

/// The inner optimiser's budget on the device.
pub const INNER: InnerConfig = InnerConfig {
    pool: 32,
    starts: 2,
    evaluations_per_start: 16,
};

/// The controller of the run, of capacity `C`, over caller buffers.
pub type BoxController<'a, const C: usize, P> =
    Controller<f32, C, D, 1, &'a mut [f32], &'a mut [[f32; D]], P>;

/// A controller of capacity `C` deciding by `policy` on the box problem (budget 1000, the
/// inner budget [`INNER`]), its factor in `factor` (`tri_len(C)` values) and a one-point bank.
pub fn controller<'a, const C: usize, P: Policy<f32, D, 1>>(
    policy: P,
    spec_policy: PolicySpec<f32>,
    factor: &'a mut [f32],
    bank: &'a mut [[f32; D]],
) -> Result<BoxController<'a, C, P>, BuildError> {
    let v = Variable {
        lower: 0.0,
        upper: 1.0,
        uncontrolled: Distribution::Uniform(
            Uniform::new(0.0, 1.0).map_err(|_| BuildError::Driver(DriverError::NoScore))?,
        ),
    };
    let problem = Problem::new(&[v; D], &[ControlSet::full(D)], Some(&[1.0]))
        .and_then(|p| p.with_costs(Costs::Function(CostFunction(cost))))
        .map_err(|_| BuildError::Driver(DriverError::NoScore))?;
    let spec = ControllerSpec {
        problem,
        kernel: Kernel::matern52([0.3; D], 0.5).map_err(|e| BuildError::Gp(e.into()))?,
        mean: 0.0,
        noise: 1e-4,
        when_full: WhenFull::DropOldest,
        bank_seed: 1,
        settings: Settings {
            inner: INNER,
            ..Settings::new(1000.0, 11)
        },
        policy: spec_policy,
    };
    let gp = spec.model(factor)?;
    let bank = spec.bank(bank)?;
    spec.controller(gp, bank, policy)
}

/// PBGI-D as paper 002 sets it (λ₀ = 0.1, β = 2), maximised by the pool.
pub fn pbgi_d() -> (PandoraIndex<f32>, PolicySpec<f32>) {
    let lambda = Lambda::paper_002_decaying();
    (
        PandoraIndex::new(lambda, false, Maximiser::Pool),
        PolicySpec::Pandora(lambda, false, Maximiser::Pool),
    )
}

/// LogEIPC, maximised by the pool.
pub fn log_eipc() -> (LogEi, PolicySpec<f32>) {
    (
        LogEi::new(CostUse::PerUnit, Maximiser::Pool),
        PolicySpec::LogEi(CostUse::PerUnit, Maximiser::Pool),
    )
}

/// Plays [`INITIAL`] fixed points, then [`ROUNDS`] decisions of `ctl`; the FNV-1a hash of every
/// decision's values and score (f32 bits).
pub fn fingerprint<const C: usize, P: Policy<f32, D, 1>>(
    ctl: &mut BoxController<'_, C, P>,
) -> Result<u32, DriverError> {
    const START: [[f32; D]; INITIAL] = [
        [0.1, 0.1],
        [0.9, 0.4],
        [0.5, 0.9],
        [0.2, 0.6],
        [0.7, 0.2],
        [0.4, 0.4],
    ];
    for x in &START {
        ctl.observe_initial(x, objective(x))?;
    }
    let mut hash = FNV_START;
    for _ in 0..ROUNDS {
        let d = ctl.suggest()?;
        let x = [d.values[0].unwrap_or(0.5), d.values[1].unwrap_or(0.5)];
        hash = fnv(
            fnv(fnv(hash, x[0].to_bits()), x[1].to_bits()),
            d.score.to_bits(),
        );
        ctl.observe(&x, objective(&x), cost(0, &x).0)?;
    }
    Ok(hash)
}
