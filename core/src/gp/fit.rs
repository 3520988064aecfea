//! Hyperparameter fitting: maximum likelihood or MAP within box bounds, multi-start, with a
//! fixed evaluation budget so that a microcontroller knows what a fit costs.
//!
//! The optimiser is the crate's spectral projected gradient ascent ([`crate::optimize`]).

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro128PlusPlus;

use super::{Gp, GpError, Hyperparameters};
use crate::optimize;
use crate::real::Real;

/// Independent Gaussian priors on the fitting coordinates (log-normal on the positive
/// hyperparameters). A coordinate whose `scale` is not positive and finite has a flat prior.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prior<R, const D: usize> {
    /// Prior mean of each coordinate.
    pub center: Hyperparameters<R, D>,
    /// Prior standard deviation of each coordinate.
    pub scale: Hyperparameters<R, D>,
}

impl<R: Real, const D: usize> Prior<R, D> {
    /// Log density (up to a constant) and its gradient, added into `grad`.
    fn log_density(&self, h: &Hyperparameters<R, D>, grad: &mut Hyperparameters<R, D>) -> R {
        let mut lp = R::ZERO;
        for i in 0..Hyperparameters::<R, D>::LEN {
            let s = self.scale.get(i);
            if s > R::ZERO && s.is_finite() {
                let z = (h.get(i) - self.center.get(i)) / s;
                lp -= R::HALF * z * z;
                *grad.get_mut(i) -= z / s;
            }
        }
        lp
    }
}

/// Settings of [`Gp::fit`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitConfig<R, const D: usize> {
    /// Lower bounds of the fitting coordinates (a coordinate with `lower == upper` is fixed).
    pub lower: Hyperparameters<R, D>,
    /// Upper bounds of the fitting coordinates.
    pub upper: Hyperparameters<R, D>,
    /// Optional prior: with one the fit is MAP, without it maximum likelihood.
    pub prior: Option<Prior<R, D>>,
    /// Number of starts: the current hyperparameters, then uniformly random points in the box.
    pub starts: usize,
    /// Likelihood evaluations allowed per start (each costs one O(n³) factorisation and
    /// gradient).
    pub evaluations_per_start: usize,
    /// Seed of the random starts.
    pub seed: u64,
}

impl<R: Real, const D: usize> FitConfig<R, D> {
    /// Bounds suited to inputs scaled to the unit cube and outputs of order one:
    /// lengthscales in [0.01, 10], outputscale in [0.01, 100], noise variance in [1e-6, 1],
    /// mean in `[mean_lo, mean_hi]`; 4 starts of 50 evaluations, no prior.
    pub fn unit_cube(mean_lo: R, mean_hi: R) -> Self {
        let f = R::from_f64;
        FitConfig {
            lower: Hyperparameters {
                log_lengthscales: [f(0.01f64.ln()); D],
                log_outputscale: f(0.01f64.ln()),
                log_noise: f(1e-6f64.ln()),
                mean: mean_lo,
            },
            upper: Hyperparameters {
                log_lengthscales: [f(10f64.ln()); D],
                log_outputscale: f(100f64.ln()),
                log_noise: R::ZERO,
                mean: mean_hi,
            },
            prior: None,
            starts: 4,
            evaluations_per_start: 50,
            seed: 0,
        }
    }

    fn validate(&self) -> Result<(), GpError> {
        for i in 0..Hyperparameters::<R, D>::LEN {
            let (lo, hi) = (self.lower.get(i), self.upper.get(i));
            if !lo.is_finite() || !hi.is_finite() || lo > hi {
                return Err(GpError::InvalidBounds);
            }
        }
        if self.starts == 0 || self.evaluations_per_start == 0 {
            return Err(GpError::InvalidBounds);
        }
        Ok(())
    }
}

/// What a fit found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitReport<R, const D: usize> {
    /// The hyperparameters now in the model.
    pub hyperparameters: Hyperparameters<R, D>,
    /// Log marginal likelihood at them.
    pub log_marginal_likelihood: R,
    /// Objective maximised (log marginal likelihood plus log prior).
    pub objective: R,
    /// Likelihood evaluations used in total.
    pub evaluations: usize,
}

/// Objective (log likelihood plus log prior) and its gradient at `h`, or `None` where the
/// kernel matrix cannot be factored.
fn evaluate<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>>(
    gp: &mut Gp<R, N, D, S>,
    config: &FitConfig<R, D>,
    h: &Hyperparameters<R, D>,
) -> Option<(R, Hyperparameters<R, D>)> {
    gp.kernel = gp.kernel_from(h).ok()?;
    gp.mean = h.mean;
    gp.noise = h.log_noise.exp();
    gp.refactor().ok()?;
    let lml = gp.log_marginal_likelihood();
    // The factor is rebuilt at the next evaluation, so it can be inverted in place.
    let n = gp.len;
    let mut grad = super::lml_gradient(
        &gp.kernel,
        gp.noise,
        &gp.x[..n],
        &gp.alpha[..n],
        gp.factor.as_mut(),
    );
    let mut objective = lml;
    if let Some(prior) = &config.prior {
        objective += prior.log_density(h, &mut grad);
    }
    // Fixed coordinates do not move.
    for i in 0..Hyperparameters::<R, D>::LEN {
        if config.lower.get(i) == config.upper.get(i) {
            *grad.get_mut(i) = R::ZERO;
        }
    }
    (objective.is_finite() && grad.is_finite()).then_some((objective, grad))
}

pub(super) fn fit<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>>(
    gp: &mut Gp<R, N, D, S>,
    config: &FitConfig<R, D>,
) -> Result<FitReport<R, D>, GpError> {
    config.validate()?;
    if gp.is_empty() {
        return Err(GpError::NoData);
    }
    let original = (gp.kernel, gp.mean, gp.noise, gp.jitter);
    let mut rng = Xoshiro128PlusPlus::seed_from_u64(config.seed);
    let mut best: Option<(R, Hyperparameters<R, D>)> = None;
    let mut evaluations = 0;
    for start in 0..config.starts {
        let h = if start == 0 {
            let mut h = gp_hyperparameters(&original.0, original.1, original.2);
            if !h.is_finite() {
                h = random_point(config, &mut rng);
            }
            h
        } else {
            random_point(config, &mut rng)
        };
        let ascent = optimize::maximize(
            |h: &Hyperparameters<R, D>, _| evaluate(gp, config, h),
            h,
            &config.lower,
            &config.upper,
            config.evaluations_per_start,
        );
        evaluations += ascent.map_or(1, |a| a.evaluations);
        if let Some(a) = ascent {
            if best.is_none_or(|(bf, _)| a.value > bf) {
                best = Some((a.value, a.point));
            }
        }
    }
    let restore = |gp: &mut Gp<R, N, D, S>| {
        (gp.kernel, gp.mean, gp.noise, gp.jitter) = original;
        let _ = gp.refactor_keeping_jitter();
    };
    let Some((objective, h)) = best else {
        restore(gp);
        return Err(GpError::NotPositiveDefinite);
    };
    // Install the winner (evaluation leaves the factor inverted, so factor afresh).
    let installed = gp.kernel_from(&h).ok().and_then(|k| {
        gp.kernel = k;
        gp.mean = h.mean;
        gp.noise = h.log_noise.exp();
        gp.refactor().ok()
    });
    if installed.is_none() {
        restore(gp);
        return Err(GpError::NotPositiveDefinite);
    }
    Ok(FitReport {
        // Read back from the model: exp/ln round trips may move the last bit.
        hyperparameters: gp.hyperparameters(),
        log_marginal_likelihood: gp.log_marginal_likelihood(),
        objective,
        evaluations,
    })
}

fn random_point<R: Real, const D: usize>(
    config: &FitConfig<R, D>,
    rng: &mut Xoshiro128PlusPlus,
) -> Hyperparameters<R, D> {
    let mut h = config.lower;
    for i in 0..Hyperparameters::<R, D>::LEN {
        let u = R::from_f64((rng.next_u32() as f64 + 0.5) / 4_294_967_296.0);
        let (lo, hi) = (config.lower.get(i), config.upper.get(i));
        *h.get_mut(i) = lo + u * (hi - lo);
    }
    h
}

fn gp_hyperparameters<R: Real, const D: usize>(
    kernel: &crate::kernel::Kernel<R, D>,
    mean: R,
    noise: R,
) -> Hyperparameters<R, D> {
    Hyperparameters {
        log_lengthscales: core::array::from_fn(|i| kernel.lengthscales()[i].ln()),
        log_outputscale: kernel.outputscale().ln(),
        log_noise: noise.ln(),
        mean,
    }
}
