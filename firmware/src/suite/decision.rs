//! On-target test of the whole decision loop: the core's ask/tell controller running ETC-Ada on
//! Hartmann-3 with paper 000's control sets and cheap costs, f32. On the Cortex-M4F (4 MiB of
//! RAM) the GP holds 64 observations and the bank 64 points; the microbit's 16 KiB of RAM cannot
//! hold that controller (about 20 KiB of stack with the harness), so there it holds 24 and 16.

use costbo_core::dist::{Distribution, TruncatedNormal};
use costbo_core::driver::{BuildError, Controller, ControllerSpec, DriverError, Settings};
use costbo_core::gp::{GpError, WhenFull};
use costbo_core::inner::InnerConfig;
use costbo_core::kernel::Kernel;
use costbo_core::linalg::tri_len;
use costbo_core::policy::explore_then_commit::{ExploreThenCommit, PlaysPerGroup};
use costbo_core::policy::PolicySpec;
use costbo_core::problem::{ControlSet, Problem, Variable};
use costbo_core::real::Libm;
use costbo_core::testfn::{Grouping, HARTMANN3};

use crate::harness::TestResult;
use crate::testdata::Lcg;

/// Capacity of the GP.
#[cfg(not(costbo_machine = "microbit"))]
pub const N: usize = 64;
/// Capacity of the GP.
#[cfg(costbo_machine = "microbit")]
pub const N: usize = 24;
/// Number of variables.
pub const D: usize = 3;
/// Number of control sets.
pub const M: usize = 7;
/// Size of the sample bank.
#[cfg(not(costbo_machine = "microbit"))]
pub const BANK: usize = 64;
/// Size of the sample bank.
#[cfg(costbo_machine = "microbit")]
pub const BANK: usize = 16;
/// Paper 000's cheap costs, in control-set order.
pub const COSTS: [f32; M] = [0.01, 0.01, 0.01, 0.1, 0.1, 0.1, 1.0];

/// The controller of the on-target tests and benchmarks, of capacity `C`, over caller-provided
/// buffers (the packed factor needs `tri_len(C)` values).
/// It names its one rule, so nothing else is linked.
pub type Ctl<'a, const C: usize> =
    Controller<f32, C, D, M, &'a mut [f32], &'a mut [[f32; D]], ExploreThenCommit<f32, M>>;

/// Hartmann-3 ([`HARTMANN3`]: negated so that it is maximised, maximum 3.86278), in f32 with
/// the core's `expf`, each term rounded left to right as this suite has always computed it.
pub fn hartmann3(x: &[f32; 3]) -> f32 {
    HARTMANN3.value::<f32, Libm>(x, Grouping::LeftToRight)
}

/// The uncontrolled variables' distribution: normal at 0.5 truncated to [0, 1], variance 0.04.
pub fn random_variable() -> TruncatedNormal<f32> {
    // Validated constants: cannot fail.
    TruncatedNormal::with_truncated_variance(0.5, 0.04, 0.0, 1.0).unwrap()
}

/// A fresh ETC-Ada controller with budget `budget` and the given inner budget, its GP factor in
/// `factor` and its sample bank in `bank`.
pub fn controller<'a, const C: usize>(
    budget: f32,
    inner: InnerConfig,
    factor: &'a mut [f32],
    bank: &'a mut [[f32; D]],
) -> Result<Ctl<'a, C>, DriverError> {
    let v = Variable {
        lower: 0.0,
        upper: 1.0,
        uncontrolled: Distribution::TruncatedNormal(random_variable()),
    };
    let sets = [
        ControlSet::of(&[0]),
        ControlSet::of(&[1]),
        ControlSet::of(&[2]),
        ControlSet::of(&[0, 1]),
        ControlSet::of(&[0, 2]),
        ControlSet::of(&[1, 2]),
        ControlSet::of(&[0, 1, 2]),
    ];
    let problem = Problem::new(&[v; D], &sets, Some(&COSTS)).map_err(|_| DriverError::NoScore)?;
    let plays = PlaysPerGroup::Adaptive;
    let spec = ControllerSpec {
        problem,
        kernel: Kernel::squared_exponential([0.1; D], 1.0).map_err(GpError::from)?,
        mean: 0.0,
        noise: 1e-4,
        when_full: WhenFull::DropOldest,
        bank_seed: 7,
        settings: Settings {
            inner,
            ..Settings::new(budget, 1)
        },
        policy: PolicySpec::ExploreThenCommit(plays),
    };
    let built = spec.model(factor).and_then(|gp| {
        let bank = spec.bank(bank)?;
        spec.controller(gp, bank, ExploreThenCommit::new(plays))
    });
    built.map_err(|e| match e {
        BuildError::Gp(e) => DriverError::Gp(e),
        BuildError::Bank(_) => DriverError::NoScore,
        BuildError::Driver(e) => e,
    })
}

/// Plays one round against Hartmann-3: returns the set played.
pub fn play<const C: usize>(ctl: &mut Ctl<'_, C>, rng: &mut Lcg) -> Result<usize, DriverError> {
    let d = ctl.suggest()?;
    let tn = random_variable();
    let x: [f32; D] =
        core::array::from_fn(|l| d.values[l].unwrap_or_else(|| tn.sample(rng.next_unit() as f32)));
    ctl.observe(&x, hartmann3(&x), COSTS[d.set])?;
    Ok(d.set)
}

/// 20 rounds of ETC-Ada: every round goes to the cheapest cost group (which has 400 plays),
/// the observations reach the GP and the budget ledger adds up.
pub fn etc_ada_20_rounds_on_hartmann3() -> TestResult {
    let inner = InnerConfig {
        pool: 16,
        starts: 2,
        evaluations_per_start: 10,
    };
    let mut factor = [0.0f32; tri_len(N)];
    let mut bank = [[0.0f32; D]; BANK];
    let mut ctl = match controller::<N>(10.0, inner, &mut factor, &mut bank) {
        Ok(c) => c,
        Err(e) => fail!("controller: {:?}", e),
    };
    let mut rng = Lcg::new(3);
    for _ in 0..5 {
        let x: [f32; D] = core::array::from_fn(|_| rng.next_unit() as f32);
        check!(ctl.observe_initial(&x, hartmann3(&x)).is_ok());
    }
    let mut spent = 0.0f32;
    for round in 0..20 {
        match play(&mut ctl, &mut rng) {
            Ok(set) => {
                // floor(4/0.01) = 400 plays for the 0.01 group: all 20 rounds stay in it.
                check!(set < 3, "round {}: played set {}", round, set);
                spent += COSTS[set];
            }
            Err(e) => fail!("round {}: {:?}", round, e),
        }
    }
    check_eq!(ctl.rounds(), 20);
    // 5 initial points and 20 rounds; beyond capacity the oldest are dropped.
    check_eq!(ctl.gp().len(), 25.min(N));
    check_close!(ctl.spent(), spent, 1e-5);
    check_close!(ctl.remaining(), 10.0 - spent, 1e-5);
    Ok(())
}

#[cfg(feature = "pandora")]
/// Paper 002's PBGI-D over a 2-D box (f32, capacity `N`): its 10 decisions hash to the
/// fingerprint the desktop's f32 core produces (`firmware/host-tests/tests/pandora.rs`).
pub fn pbgi_d_decisions_equal_the_desktops() -> TestResult {
    use crate::pandora::{controller, fingerprint, pbgi_d, PBGI_D_FINGERPRINT};
    let mut factor = [0.0f32; tri_len(N)];
    let mut bank = [[0.0f32; crate::pandora::D]; 1];
    let (policy, spec) = pbgi_d();
    let mut ctl = match controller::<N, _>(policy, spec, &mut factor, &mut bank) {
        Ok(c) => c,
        Err(e) => fail!("controller: {:?}", e),
    };
    match fingerprint(&mut ctl) {
        Ok(h) => check_eq!(h, PBGI_D_FINGERPRINT),
        Err(e) => fail!("run: {:?}", e),
    }
    // λ₀ = 0.1 was divided by β = 2 at least once: the stopping rule fired on the device.
    check!(ctl.policy().divisions() > 0);
    Ok(())
}

#[cfg(feature = "pandora")]
/// Paper 002's LogEIPC over the same box: bit for bit the desktop's f32 decisions.
pub fn log_eipc_decisions_equal_the_desktops() -> TestResult {
    use crate::pandora::{controller, fingerprint, log_eipc, LOG_EIPC_FINGERPRINT};
    let mut factor = [0.0f32; tri_len(N)];
    let mut bank = [[0.0f32; crate::pandora::D]; 1];
    let (policy, spec) = log_eipc();
    let mut ctl = match controller::<N, _>(policy, spec, &mut factor, &mut bank) {
        Ok(c) => c,
        Err(e) => fail!("controller: {:?}", e),
    };
    match fingerprint(&mut ctl) {
        Ok(h) => check_eq!(h, LOG_EIPC_FINGERPRINT),
        Err(e) => fail!("run: {:?}", e),
    }
    Ok(())
}

#[cfg(feature = "feedback")]
/// Paper 003's CE-GP-UCB on a time-varying GP of capacity 64 (f32, `crate::feedback`): after
/// the 64-round warm-up, its first decisions hash to the fingerprint the desktop's f32 core
/// produces (`firmware/host-tests/tests/feedback.rs`).
pub fn feedback_decisions_equal_the_desktops() -> TestResult {
    use crate::feedback::{fingerprint, Scenario, DECISIONS, FINGERPRINT};
    let mut factor = [0.0f32; tri_len(crate::feedback::N)];
    let mut scenario = match Scenario::new(&mut factor[..]) {
        Ok(s) => s,
        Err(e) => fail!("scenario: {:?}", e),
    };
    match fingerprint(&mut scenario) {
        Ok((hash, paid)) => {
            check_eq!(hash, FINGERPRINT);
            // Both branches ran: paid rounds (pushes into a full buffer) and skipped ones.
            check!(
                paid > 0 && paid < DECISIONS,
                "{} of {} paid",
                paid,
                DECISIONS
            );
        }
        Err(e) => fail!("run: {:?}", e),
    }
    check_eq!(scenario.gp().len(), crate::feedback::N);
    Ok(())
}

#[cfg(all(feature = "causal", not(costbo_machine = "microbit")))]
/// Paper 004's Algorithm 2 over two arms with GPs of capacity 64 (f32, `crate::causal`): its
/// first decisions hash to the fingerprint the desktop's f32 core produces
/// (`firmware/host-tests/tests/causal.rs`). Not on the microbit: two factors of 64 take
/// 16.6 KB, more than its 16 KiB of RAM (bench_causal runs the M0 code on the AN386's map).
pub fn causal_decisions_equal_the_desktops() -> TestResult {
    use crate::causal::{fingerprint, Scenario, DECISIONS, FINGERPRINT, N};
    let mut f0 = [0.0f32; tri_len(N)];
    let mut f1 = [0.0f32; tri_len(N)];
    let mut scenario = match Scenario::new([&mut f0[..], &mut f1[..]]) {
        Ok(s) => s,
        Err(e) => fail!("scenario: {:?}", e),
    };
    match fingerprint(&mut scenario) {
        Ok((hash, first_arm)) => {
            check_eq!(hash, FINGERPRINT);
            // Both arms were played.
            check!(
                first_arm > 0 && first_arm < DECISIONS,
                "arm 0 in {} of {} rounds",
                first_arm,
                DECISIONS
            );
        }
        Err(e) => fail!("run: {:?}", e),
    }
    Ok(())
}
