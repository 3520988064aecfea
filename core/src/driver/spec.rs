//! One description of a controller ([`ControllerSpec`]) and the one way to build it, used by
//! the firmware, the desktop simulations, the device tool and the benchmarks alike, so that
//! the same description gives the same controller, bit for bit, everywhere.

use super::{Controller, DriverError, Settings};
use crate::expectation::{BankError, SampleBank};
use crate::gp::{Gp, GpError, WhenFull};
use crate::kernel::Kernel;
use crate::policy::{AnyPolicy, Policy, PolicySpec};
use crate::problem::Problem;
use crate::real::Real;

/// Everything a controller is built from: the problem, the model, the sample bank's seed, the
/// settings and the rule.
#[derive(Debug, Clone, PartialEq)]
pub struct ControllerSpec<R, const D: usize, const M: usize> {
    /// The problem.
    pub problem: Problem<R, D, M>,
    /// The GP's kernel (inputs in the unit cube).
    pub kernel: Kernel<R, D>,
    /// The GP's constant prior mean.
    pub mean: R,
    /// The GP's noise variance.
    pub noise: R,
    /// What the GP does when full.
    pub when_full: WhenFull,
    /// Seed of the scrambled-Sobol sample bank ([`SampleBank::quasi_random`]).
    pub bank_seed: u64,
    /// The controller's settings.
    pub settings: Settings<R>,
    /// The decision rule.
    pub policy: PolicySpec<R>,
}

/// Why a controller could not be built.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BuildError {
    /// The GP refused the model (kernel, noise, storage).
    Gp(GpError),
    /// The bank could not be drawn.
    Bank(BankError),
    /// The controller refused the settings or the rule the problem (for example
    /// [`DriverError::RuleNeedsKnownCosts`]).
    Driver(DriverError),
}

impl core::fmt::Display for BuildError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Gp(e) => write!(f, "the gp refused the model: {e}"),
            Self::Bank(e) => write!(f, "the sample bank could not be drawn: {e}"),
            Self::Driver(e) => write!(f, "the controller refused the settings or the rule: {e}"),
        }
    }
}

impl core::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Gp(e) => Some(e),
            Self::Bank(e) => Some(e),
            Self::Driver(e) => Some(e),
        }
    }
}

impl<R: Real, const D: usize, const M: usize> ControllerSpec<R, D, M> {
    /// The controller of this description over caller storage: `factor` holds the GP's
    /// packed Cholesky factor (`tri_len(N)` scalars), `bank` the sample bank's points (filled
    /// here). `F` random Fourier features for the sample-path rules, a window of `H` queries
    /// for EI.
    #[allow(clippy::type_complexity)]
    pub fn build<const N: usize, const F: usize, const H: usize, S, B>(
        &self,
        factor: S,
        bank: B,
    ) -> Result<Controller<R, N, D, M, S, B, AnyPolicy<R, D, M, F, H>>, BuildError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        self.controller(self.model(factor)?, self.bank(bank)?, self.policy.build())
    }

    /// The GP of this description (no observations) over `factor` (`tri_len(N)` scalars).
    pub fn model<const N: usize, S>(&self, factor: S) -> Result<Gp<R, N, D, S>, BuildError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
    {
        Gp::new(self.kernel, self.mean, self.noise, self.when_full, factor).map_err(BuildError::Gp)
    }

    /// The scrambled-Sobol sample bank of this description in `storage` (its length is the
    /// bank's size).
    pub fn bank<B>(&self, storage: B) -> Result<SampleBank<R, D, B>, BuildError>
    where
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
    {
        SampleBank::quasi_random(&self.problem, storage, self.bank_seed).map_err(BuildError::Bank)
    }

    /// A controller of this description's problem and settings from parts: a model and a bank
    /// (from [`model`](Self::model) and [`bank`](Self::bank), or drawn otherwise, e.g. an
    /// i.i.d. bank), and a rule of the caller's type (firmware names its one rule, so that
    /// nothing else is linked; [`PolicySpec::build`] gives the description's).
    pub fn controller<const N: usize, S, B, P>(
        &self,
        gp: Gp<R, N, D, S>,
        bank: SampleBank<R, D, B>,
        policy: P,
    ) -> Result<Controller<R, N, D, M, S, B, P>, BuildError>
    where
        S: AsRef<[R]> + AsMut<[R]>,
        B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
        P: Policy<R, D, M>,
    {
        Controller::new(self.problem.clone(), gp, bank, self.settings, policy)
            .map_err(BuildError::Driver)
    }
}
