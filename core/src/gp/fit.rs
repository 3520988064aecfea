//! Hyperparameter fitting: maximum likelihood or MAP within box bounds, multi-start, with a
//! fixed evaluation budget so that a microcontroller knows what a fit costs.
//!
//! The optimiser is the crate's spectral projected gradient ascent ([`crate::optimize`]).

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro128PlusPlus;

use super::{Gp, GpError, Hyperparameters};
use crate::linalg::tri_len;
use crate::optimize;
use crate::random::uniform_open;
use crate::real::Real;

/// The prior of one fitting coordinate `t` (the log of a positive hyperparameter, or the
/// constant mean itself).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CoordinatePrior<R> {
    /// No prior.
    Flat,
    /// A normal density on `t` (log-normal on the hyperparameter).
    Normal {
        /// Mean of `t`.
        center: R,
        /// Standard deviation of `t` (a flat prior unless positive and finite).
        scale: R,
    },
    /// A Gamma(`shape`, `rate`) density on `θ = exp(t − shift)`, as GPyTorch evaluates it: on
    /// the hyperparameter's value, without the Jacobian of the log coordinate, so that the MAP
    /// estimate is GPyTorch's. `shift = ln s²` puts the prior on `θ/s²`: the outputscale of a
    /// model fitted to outputs standardised by `s`, in the units of the raw outputs.
    Gamma {
        /// Shape `α`.
        shape: R,
        /// Rate `β`.
        rate: R,
        /// Offset of the coordinate (0 for none).
        shift: R,
    },
}

impl<R: Real> CoordinatePrior<R> {
    /// Log density at `t` (up to a constant) and its derivative.
    fn log_density(&self, t: R) -> (R, R) {
        match *self {
            CoordinatePrior::Flat => (R::ZERO, R::ZERO),
            CoordinatePrior::Normal { center, scale } if scale > R::ZERO && scale.is_finite() => {
                let z = (t - center) / scale;
                (-R::HALF * z * z, -z / scale)
            }
            CoordinatePrior::Normal { .. } => (R::ZERO, R::ZERO),
            CoordinatePrior::Gamma { shape, rate, shift } => {
                // ln p(θ) = (α − 1) ln θ − β θ, with ln θ = t − shift.
                let lt = t - shift;
                let theta = lt.exp();
                (
                    (shape - R::ONE) * lt - rate * theta,
                    (shape - R::ONE) - rate * theta,
                )
            }
        }
    }
}

/// Independent priors on the fitting coordinates: with one, a fit is MAP.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prior<R, const D: usize> {
    /// Priors of the log lengthscales.
    pub lengthscales: [CoordinatePrior<R>; D],
    /// Prior of the log outputscale.
    pub outputscale: CoordinatePrior<R>,
    /// Prior of the log noise variance.
    pub noise: CoordinatePrior<R>,
    /// Prior of the constant mean.
    pub mean: CoordinatePrior<R>,
}

impl<R: Real, const D: usize> Prior<R, D> {
    /// Independent normal priors on every coordinate (log-normal on the positive
    /// hyperparameters); a coordinate whose `scale` is not positive and finite is flat.
    pub fn normal(center: Hyperparameters<R, D>, scale: Hyperparameters<R, D>) -> Self {
        let at = |i: usize| CoordinatePrior::Normal {
            center: center.get(i),
            scale: scale.get(i),
        };
        Prior {
            lengthscales: core::array::from_fn(at),
            outputscale: at(D),
            noise: at(D + 1),
            mean: at(D + 2),
        }
    }

    /// The prior of coordinate `i` (the order of [`Hyperparameters::get`]).
    pub fn coordinate(&self, i: usize) -> &CoordinatePrior<R> {
        match i {
            i if i < D => &self.lengthscales[i],
            i if i == D => &self.outputscale,
            i if i == D + 1 => &self.noise,
            _ => &self.mean,
        }
    }

    /// Log density (up to a constant) and its gradient, added into `grad`.
    fn log_density(&self, h: &Hyperparameters<R, D>, grad: &mut Hyperparameters<R, D>) -> R {
        let mut lp = R::ZERO;
        for i in 0..Hyperparameters::<R, D>::LEN {
            let (v, d) = self.coordinate(i).log_density(h.get(i));
            lp += v;
            *grad.get_mut(i) += d;
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
    /// The first start: these hyperparameters (`None`: the model's current ones).
    pub first_start: Option<Hyperparameters<R, D>>,
    /// How each start is climbed.
    pub ascent: FitAscent,
}

/// The ascent of one start of a fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FitAscent {
    /// Spectral projected gradient ([`optimize::maximize`]): cheap per step, for small budgets.
    #[default]
    SpectralGradient,
    /// Projected L-BFGS ([`optimize::maximize_quasi_newton`]) to L-BFGS-B's tolerances, as
    /// GPyTorch models are fitted.
    QuasiNewton,
}

impl<R: Real, const D: usize> FitConfig<R, D> {
    /// Paper 002's model fit as BoTorch 0.9 does it (`SingleTaskGP` with a fixed noise, a
    /// `Standardize` outcome transform, MAP by L-BFGS-B from a freshly built model), expressed
    /// on the raw outputs, which gives the same estimate: with `ȳ` and `s` the mean and
    /// (unbiased) standard deviation of `outputs`,
    /// - lengthscales: Gamma(3, 6) prior;
    /// - outputscale: Gamma(2, 0.15) prior on `outputscale / s²` (the standardised model's);
    /// - noise variance fixed at `noise` (BoTorch scales a fixed `train_Yvar` with the outputs,
    ///   so it stays `noise` in raw units);
    /// - constant mean flat (within `ȳ ± 100 s`);
    /// - one start at GPyTorch's initial values (lengthscales and standardised outputscale
    ///   `ln 2`, mean `ȳ`), climbed by quasi-Newton ascent.
    ///
    /// Box bounds (lengthscales in `[1e-3, 1e3]`, outputscale in `s²·[1e-6, 1e6]`) are far
    /// from where the priors put any mass.
    pub fn botorch_map(outputs: &[R], noise: R) -> Self {
        let (mean, sd) = standardisation(outputs);
        Self::botorch_map_standardised(mean, sd, noise)
    }

    /// [`botorch_map`](Self::botorch_map) with the standardisation's scale at least
    /// `scale_floor` (raw units): outputs standardised by `max(s, scale_floor)` instead of `s`.
    ///
    /// Why: when every output so far is pure measurement noise (an objective that is flat
    /// where it has been measured), `s` is the noise, and standardising by it tells the
    /// priors that the objective varies by about the noise: the model then has little reason
    /// to explore. A user who knows the scale on which the objective varies (e.g. the spread
    /// of past measurements) gives it as the floor; once the data spread more, the floor has
    /// no effect. A floor that is not finite and positive is ignored (plain `botorch_map`).
    pub fn botorch_map_with_scale_floor(outputs: &[R], noise: R, scale_floor: R) -> Self {
        let (mean, sd) = standardisation(outputs);
        let sd = if scale_floor.is_finite() && scale_floor > sd {
            scale_floor
        } else {
            sd
        };
        Self::botorch_map_standardised(mean, sd, noise)
    }

    /// [`botorch_map`](Self::botorch_map) for outputs standardised by `mean` and `sd`.
    fn botorch_map_standardised(mean: R, sd: R, noise: R) -> Self {
        let f = R::from_f64;
        let log_s2 = (sd * sd).ln();
        let ln2 = f(core::f64::consts::LN_2);
        let gamma = |shape: f64, rate: f64, shift: R| CoordinatePrior::Gamma {
            shape: f(shape),
            rate: f(rate),
            shift,
        };
        FitConfig {
            lower: Hyperparameters {
                log_lengthscales: [f(1e-3f64.ln()); D],
                log_outputscale: log_s2 + f(1e-6f64.ln()),
                log_noise: noise.ln(),
                mean: mean - f(100.0) * sd,
            },
            upper: Hyperparameters {
                log_lengthscales: [f(1e3f64.ln()); D],
                log_outputscale: log_s2 + f(1e6f64.ln()),
                log_noise: noise.ln(),
                mean: mean + f(100.0) * sd,
            },
            prior: Some(Prior {
                lengthscales: [gamma(3.0, 6.0, R::ZERO); D],
                outputscale: gamma(2.0, 0.15, log_s2),
                noise: CoordinatePrior::Flat,
                mean: CoordinatePrior::Flat,
            }),
            starts: 1,
            evaluations_per_start: 1000,
            seed: 0,
            // GPyTorch's raw parameters start at 0, so softplus gives ln 2.
            first_start: Some(Hyperparameters {
                log_lengthscales: [ln2.ln(); D],
                log_outputscale: ln2.ln() + log_s2,
                log_noise: noise.ln(),
                mean,
            }),
            ascent: FitAscent::QuasiNewton,
        }
    }

    /// [`botorch_map`](Self::botorch_map) with the noise variance learned as well, as BoTorch
    /// 0.9's `SingleTaskGP` does without `train_Yvar`: a Gamma(1.1, 0.05) prior on the noise
    /// variance of the standardised outputs (`noise / s²`), starting at that prior's mode (2),
    /// and bounded below by `noise_floor` (raw units; BoTorch's floor is `1e-4·s²`, which
    /// would hide a measurement noise far below the spread of the outputs) and above by
    /// `1e6·s²`.
    ///
    /// The cost-varying-subset rules' fitted model (paper 000's and 001's objectives): every
    /// hyperparameter is fitted, so an objective's scale, offset, anisotropy and noise need
    /// not be known in advance.
    pub fn map_learned_noise(outputs: &[R], noise_floor: R) -> Self {
        let f = R::from_f64;
        let mut config = Self::botorch_map(outputs, noise_floor);
        let (_, sd) = standardisation(outputs);
        let log_s2 = (sd * sd).ln();
        config.lower.log_noise = noise_floor.ln();
        config.upper.log_noise = (log_s2 + f(1e6f64.ln())).max(config.lower.log_noise);
        if let Some(prior) = config.prior.as_mut() {
            prior.noise = CoordinatePrior::Gamma {
                shape: f(1.1),
                rate: f(0.05),
                shift: log_s2,
            };
        }
        if let Some(start) = config.first_start.as_mut() {
            // GPyTorch starts the noise at its prior's mode, (1.1 − 1) / 0.05 = 2.
            start.log_noise = (f(2.0f64.ln()) + log_s2)
                .max(config.lower.log_noise)
                .min(config.upper.log_noise);
        }
        config
    }

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
            first_start: None,
            ascent: FitAscent::SpectralGradient,
        }
    }

    /// This configuration for inputs on boxes of widths `widths` instead of the unit cube, as
    /// if the inputs were normalised to it (BoTorch's `Normalize`): where a width is finite and
    /// positive, the input's log-lengthscale bounds, first start and Gamma prior are shifted
    /// by `ln w`, so the fit in the box's units is the unit cube's scaled by `w`; elsewhere
    /// (an input not used, or of zero width) the log-lengthscale is held at `held[i]`, with no
    /// prior.
    pub fn with_input_widths(mut self, widths: &[R; D], held: &[R; D]) -> Self {
        for (l, (&w, &t)) in widths.iter().zip(held).enumerate() {
            let lower = &mut self.lower.log_lengthscales[l];
            let upper = &mut self.upper.log_lengthscales[l];
            let start = self
                .first_start
                .as_mut()
                .map(|h| &mut h.log_lengthscales[l]);
            let prior = self.prior.as_mut().map(|p| &mut p.lengthscales[l]);
            if w.is_finite() && w > R::ZERO {
                let shift = w.ln();
                *lower += shift;
                *upper += shift;
                if let Some(s) = start {
                    *s += shift;
                }
                if let Some(CoordinatePrior::Gamma { shift: s, .. }) = prior {
                    *s = shift;
                }
            } else {
                (*lower, *upper) = (t, t);
                if let Some(s) = start {
                    *s = t;
                }
                if let Some(p) = prior {
                    *p = CoordinatePrior::Flat;
                }
            }
        }
        self
    }

    /// This configuration with the log-lengthscales of inputs `from..D` held at 0, without a
    /// prior (the inputs a kernel ignores: their lengthscales stay infinite).
    fn holding_inputs_from(mut self, from: usize) -> Self {
        for l in from..D {
            self.lower.log_lengthscales[l] = R::ZERO;
            self.upper.log_lengthscales[l] = R::ZERO;
            if let Some(h) = self.first_start.as_mut() {
                h.log_lengthscales[l] = R::ZERO;
            }
            if let Some(p) = self.prior.as_mut() {
                p.lengthscales[l] = CoordinatePrior::Flat;
            }
        }
        self
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

/// The mean and the (unbiased) standard deviation by which BoTorch's `Standardize`
/// standardises `outputs`; a standard deviation below 1e-8 (or fewer than two outputs) is
/// replaced by 1, as BoTorch does.
fn standardisation<R: Real>(outputs: &[R]) -> (R, R) {
    let n = outputs.len();
    let mean = if n == 0 {
        R::ZERO
    } else {
        outputs.iter().fold(R::ZERO, |a, y| a + *y) / R::from_usize(n)
    };
    let var = if n > 1 {
        outputs.iter().fold(R::ZERO, |a, y| a + (*y - mean).sq()) / R::from_usize(n - 1)
    } else {
        R::ZERO
    };
    let sd = if var.sqrt() >= R::from_f64(1e-8) {
        var.sqrt()
    } else {
        R::ONE
    };
    (mean, sd)
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
///
/// With a `cache` of at least [`fit_cache_len`]`(n)` scalars (and a stationary kernel) the
/// factorisation keeps each pair's kernel profile there and the gradient reads it back, so
/// each kernel exponential is computed once per evaluation instead of twice (same bits).
fn evaluate<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>>(
    gp: &mut Gp<R, N, D, S>,
    config: &FitConfig<R, D>,
    h: &Hyperparameters<R, D>,
    cache: &mut [R],
) -> Option<(R, Hyperparameters<R, D>)> {
    gp.kernel = gp.kernel_from(h).ok()?;
    gp.mean = h.mean;
    gp.noise = h.log_noise.exp();
    let n = gp.len;
    // Only the desktop's factorisation fills the whole cache (Arm's eliminates its blocks in
    // place, without profiles).
    let mut cache = cache
        .get_mut(..fit_cache_len(n))
        .filter(|_| !cfg!(target_arch = "arm") && gp.kernel.is_stationary());
    gp.rebuild_factor(false, cache.as_deref_mut()).ok()?;
    let lml = gp.log_marginal_likelihood();
    // The factor is rebuilt at the next evaluation, so it can be inverted in place.
    let profiles = cache.map(|c| c.split_at(tri_len(n)));
    let mut grad = super::lml_gradient(
        &gp.kernel,
        gp.noise,
        &gp.x[..n],
        &gp.count[..n],
        &gp.alpha[..n],
        gp.factor.as_mut(),
        &mut gp.work,
        profiles,
    );
    if let Some((_, d_log_noise)) = gp.repeat_terms() {
        grad.log_noise += d_log_noise;
    }
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

/// Scalars of the cache [`Gp::fit_with_cache`] uses with `n` observations: each pair's kernel
/// profile, value and slope (`2·n(n+1)/2`; 314 KiB for 200 `f64` observations).
pub const fn fit_cache_len(n: usize) -> usize {
    2 * tri_len(n)
}

pub(super) fn fit<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>>(
    gp: &mut Gp<R, N, D, S>,
    config: &FitConfig<R, D>,
    cache: &mut [R],
) -> Result<FitReport<R, D>, GpError> {
    // Inputs the kernel ignores stay ignored (`Gp::kernel_from`): their coordinates are held
    // at 0 without a prior and get no random start, so that a model padded with inert inputs
    // fits, bit for bit, as the model without them.
    let seen = gp.kernel.inputs_seen();
    let config = &config.holding_inputs_from(seen);
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
            let mut h = config
                .first_start
                .unwrap_or_else(|| gp_hyperparameters(&original.0, original.1, original.2));
            h.log_lengthscales[seen..].fill(R::ZERO);
            if !h.is_finite() {
                h = random_point(config, seen, &mut rng);
            }
            h
        } else {
            random_point(config, seen, &mut rng)
        };
        let objective = |h: &Hyperparameters<R, D>, _| evaluate(gp, config, h, cache);
        let ascent = match config.ascent {
            FitAscent::SpectralGradient => optimize::maximize(
                objective,
                h,
                &config.lower,
                &config.upper,
                config.evaluations_per_start,
            ),
            FitAscent::QuasiNewton => optimize::maximize_quasi_newton(
                objective,
                h,
                &config.lower,
                &config.upper,
                &optimize::QuasiNewtonConfig {
                    max_iterations: config.evaluations_per_start,
                    max_evaluations: config.evaluations_per_start,
                    ..optimize::QuasiNewtonConfig::default()
                },
            ),
        };
        evaluations += ascent.map_or(1, |a| a.evaluations);
        if let Some(a) = ascent {
            if best.is_none_or(|(bf, _)| a.value > bf) {
                best = Some((a.value, a.point));
            }
        }
    }
    let Some((objective, h)) = best else {
        restore(gp, &original);
        return Err(GpError::NotPositiveDefinite);
    };
    install(gp, &h, &original, objective, evaluations)
}

/// The model's kernel, mean, noise and per-observation jitter before a fit.
type Saved<R, const N: usize, const D: usize> = (crate::kernel::Kernel<R, D>, R, R, [R; N]);

/// Puts back the model as it was before a fit.
fn restore<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>>(
    gp: &mut Gp<R, N, D, S>,
    original: &Saved<R, N, D>,
) {
    (gp.kernel, gp.mean, gp.noise, gp.jitter) = *original;
    let _ = gp.refactor_keeping_jitter();
}

/// Installs a fit's hyperparameters `h` (evaluation leaves the factor inverted, so it is factored
/// afresh) and reports them, or puts back `original` if they cannot be installed.
fn install<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>>(
    gp: &mut Gp<R, N, D, S>,
    h: &Hyperparameters<R, D>,
    original: &Saved<R, N, D>,
    objective: R,
    evaluations: usize,
) -> Result<FitReport<R, D>, GpError> {
    let installed = gp.kernel_from(h).ok().and_then(|k| {
        gp.kernel = k;
        gp.mean = h.mean;
        gp.noise = h.log_noise.exp();
        gp.refactor().ok()
    });
    if installed.is_none() {
        restore(gp, original);
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

/// Settings of [`Gp::fit_adam`](super::Gp::fit_adam): an exact GP fitted as GPyTorch fits one
/// with `torch.optim.Adam` on the negative `ExactMarginalLogLikelihood` (the likelihood divided
/// by the number of observations), every hyperparameter at once, in GPyTorch's parameterisation:
/// lengthscales under an `Interval(lo, hi)` constraint (`lo + (hi − lo)·sigmoid(raw)`), the
/// outputscale under `Positive` (`softplus(raw)`), the noise variance under `GreaterThan(floor)`
/// (`floor + softplus(raw)`; a start on the floor stays there, as in GPyTorch, where its raw
/// value is −∞) and the constant mean as it is. Adam as PyTorch runs it: β₁ = 0.9,
/// β₂ = 0.999, ε = 1e-8, bias-corrected. Paper 001's authors refit their model this way, from
/// the same start, in every exploitation round (10 steps, learning rate 0.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamFit<R, const D: usize> {
    /// The hyperparameters every fit starts from (not the model's current ones).
    pub start: Hyperparameters<R, D>,
    /// The lengthscales' interval `(lo, hi)`, `0 < lo < hi` (the authors': `(1e-2, 1e4)`).
    pub lengthscale_bounds: (R, R),
    /// The least noise variance (GPyTorch's `GaussianLikelihood`: 1e-4).
    pub noise_floor: R,
    /// Adam steps.
    pub steps: usize,
    /// Adam's learning rate.
    pub learning_rate: R,
}

/// How a hyperparameter is reached from the raw value Adam moves.
#[derive(Clone, Copy)]
enum RawTransform<R> {
    /// `lo + (hi − lo)·sigmoid(raw)`.
    Interval(R, R),
    /// `floor + softplus(raw)`.
    Above(R),
    /// The raw value itself (the constant mean).
    Identity,
}

fn sigmoid<R: Real>(x: R) -> R {
    if x >= R::ZERO {
        R::ONE / (R::ONE + (-x).exp())
    } else {
        let e = x.exp();
        e / (R::ONE + e)
    }
}

/// `ln(1 + eˣ)` without overflow (PyTorch returns `x` itself above 20).
fn softplus<R: Real>(x: R) -> R {
    if x > R::from_f64(20.0) {
        x
    } else {
        x.exp().ln_1p()
    }
}

impl<R: Real> RawTransform<R> {
    /// The hyperparameter's value (not its log) at `raw`, and its derivative in `raw`.
    fn forward(self, raw: R) -> (R, R) {
        match self {
            RawTransform::Interval(lo, hi) => {
                let s = sigmoid(raw);
                (lo + (hi - lo) * s, (hi - lo) * s * (R::ONE - s))
            }
            RawTransform::Above(floor) => (floor + softplus(raw), sigmoid(raw)),
            RawTransform::Identity => (raw, R::ONE),
        }
    }

    /// The raw value of `value` (−∞ on a softplus floor, as GPyTorch's `inv_softplus(0)`).
    fn inverse(self, value: R) -> R {
        match self {
            RawTransform::Interval(lo, hi) => {
                let s = (value - lo) / (hi - lo);
                (s / (R::ONE - s)).ln()
            }
            RawTransform::Above(floor) => {
                let x = value - floor;
                if x <= R::ZERO {
                    -R::INFINITY
                } else {
                    // x + ln(1 − e⁻ˣ), PyTorch's inverse softplus.
                    x + (-(-x).exp_m1()).ln()
                }
            }
            RawTransform::Identity => value,
        }
    }
}

pub(super) fn fit_adam<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>>(
    gp: &mut Gp<R, N, D, S>,
    adam: &AdamFit<R, D>,
    cache: &mut [R],
) -> Result<FitReport<R, D>, GpError> {
    let (lo, hi) = adam.lengthscale_bounds;
    let valid = lo > R::ZERO
        && hi > lo
        && hi.is_finite()
        && adam.noise_floor >= R::ZERO
        && adam.noise_floor.is_finite()
        && adam.learning_rate > R::ZERO
        && adam.learning_rate.is_finite();
    if !valid {
        return Err(GpError::InvalidBounds);
    }
    if !adam.start.is_finite() {
        return Err(GpError::NonFinite);
    }
    if gp.is_empty() {
        return Err(GpError::NoData);
    }
    let transform = |i: usize| {
        if i < D {
            RawTransform::Interval(lo, hi)
        } else if i == D {
            RawTransform::Above(R::ZERO)
        } else if i == D + 1 {
            RawTransform::Above(adam.noise_floor)
        } else {
            RawTransform::Identity
        }
    };
    // The start's values must lie inside their constraints (a lengthscale on an end of its
    // interval has an infinite raw value, from which Adam could not move it back).
    let value = |h: &Hyperparameters<R, D>, i: usize| {
        if i <= D + 1 {
            h.get(i).exp()
        } else {
            h.get(i)
        }
    };
    let mut raw = Hyperparameters::<R, D>::splat(R::ZERO);
    for i in 0..Hyperparameters::<R, D>::LEN {
        let v = value(&adam.start, i);
        let inside = match transform(i) {
            RawTransform::Interval(lo, hi) => v > lo && v < hi,
            RawTransform::Above(floor) => v >= floor,
            RawTransform::Identity => true,
        };
        if !inside {
            return Err(GpError::InvalidHyperparameter);
        }
        *raw.get_mut(i) = transform(i).inverse(v);
    }
    let original = (gp.kernel, gp.mean, gp.noise, gp.jitter);
    // The coordinates of the model at `raw` (logs of the positive ones) and, per coordinate,
    // the derivative of that coordinate in the raw value.
    let coordinates = |raw: &Hyperparameters<R, D>| {
        let mut h = *raw;
        let mut slope = *raw;
        for i in 0..Hyperparameters::<R, D>::LEN {
            let (v, dv) = transform(i).forward(raw.get(i));
            if i <= D + 1 {
                *h.get_mut(i) = v.ln();
                *slope.get_mut(i) = dv / v;
            } else {
                *h.get_mut(i) = v;
                *slope.get_mut(i) = dv;
            }
        }
        (h, slope)
    };
    let unbounded = FitConfig {
        lower: Hyperparameters::splat(-R::INFINITY),
        upper: Hyperparameters::splat(R::INFINITY),
        prior: None,
        starts: 1,
        evaluations_per_start: adam.steps,
        seed: 0,
        first_start: None,
        ascent: FitAscent::default(),
    };
    let (beta1, beta2, eps) = (R::from_f64(0.9), R::from_f64(0.999), R::from_f64(1e-8));
    let (mut b1t, mut b2t) = (R::ONE, R::ONE);
    let n = R::from_usize(gp.len());
    let mut m = Hyperparameters::<R, D>::splat(R::ZERO);
    let mut v = Hyperparameters::<R, D>::splat(R::ZERO);
    let mut objective = -R::INFINITY;
    for _ in 0..adam.steps {
        let (h, slope) = coordinates(&raw);
        let Some((lml, grad)) = evaluate(gp, &unbounded, &h, cache) else {
            restore(gp, &original);
            return Err(GpError::NotPositiveDefinite);
        };
        objective = lml;
        b1t *= beta1;
        b2t *= beta2;
        let step = adam.learning_rate / (R::ONE - b1t);
        let correction = (R::ONE - b2t).sqrt();
        for i in 0..Hyperparameters::<R, D>::LEN {
            // A raw value of −∞ (a noise on its floor) has no slope: it stays.
            if !raw.get(i).is_finite() {
                continue;
            }
            let g = -(grad.get(i) * slope.get(i)) / n;
            let mi = m.get_mut(i);
            *mi += (R::ONE - beta1) * (g - *mi);
            let vi = v.get_mut(i);
            *vi = *vi * beta2 + (R::ONE - beta2) * g * g;
            let denom = v.get(i).sqrt() / correction + eps;
            *raw.get_mut(i) -= step * m.get(i) / denom;
        }
    }
    let (h, _) = coordinates(&raw);
    if !h.is_finite() {
        restore(gp, &original);
        return Err(GpError::NotPositiveDefinite);
    }
    install(gp, &h, &original, objective, adam.steps)
}

/// A uniformly random point of `config`'s box; the log-lengthscales of inputs `seen..D` (the
/// ignored ones) stay at their lower bound and draw nothing.
fn random_point<R: Real, const D: usize>(
    config: &FitConfig<R, D>,
    seen: usize,
    rng: &mut Xoshiro128PlusPlus,
) -> Hyperparameters<R, D> {
    let mut h = config.lower;
    for i in 0..Hyperparameters::<R, D>::LEN {
        if (seen..D).contains(&i) {
            continue;
        }
        let u: R = uniform_open(rng);
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
