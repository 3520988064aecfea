//! Exact Gaussian-process regression with a fixed capacity and no heap.
//!
//! A [`Gp`] stores at most `N` observations of a function of `D` inputs. Its Cholesky factor
//! lives in a packed lower triangle held by caller-chosen storage `S` (an array on a
//! microcontroller, a `Vec` on a desktop where `N` reaches thousands), grows by one row in
//! O(n²) per observation, and shrinks from the front in O(n²) when the oldest observation is
//! dropped.
//!
//! Every fallible method returns a [`GpError`] and leaves the model exactly as it was.
//!
//! # Repeated inputs
//!
//! An observation whose input equals a stored one exactly (`==` in every coordinate) is merged
//! into it instead of taking a new slot: the slot keeps the mean of its outcomes, their count
//! `c` and their sum of squared deviations, and enters the kernel matrix with noise `σₙ²/c`.
//! That is the exact posterior of the `c` copies (their mean is a sufficient statistic for the
//! latent value), and [`log_marginal_likelihood`](Gp::log_marginal_likelihood) adds back the
//! terms the merge leaves out, so fitting sees the copies too. Without the merge each copy after
//! the first is a singular row that needs a jitter of about `diag·√ε`, which in `f32` swamps a
//! small noise and lets the first copy dominate the posterior. So [`len`](Gp::len), the
//! capacity `N` and [`WhenFull`] count distinct inputs, a merged slot moves to the newest
//! position (a re-measured input is recent data; drop-oldest forgets the input measured least
//! recently, with all its copies), and [`observations`](Gp::observations) counts every push.
//! Data without exact repeats is handled exactly as if no input could be merged.
//!
//! ```
//! use costbo_core::gp::{Gp, WhenFull};
//! use costbo_core::kernel::Kernel;
//! use costbo_core::linalg::tri_len;
//!
//! let kernel = Kernel::squared_exponential([0.3, 0.3], 1.0).unwrap();
//! let mut gp: Gp<f64, 16, 2, [f64; tri_len(16)]> =
//!     Gp::new(kernel, 0.0, 1e-4, WhenFull::Reject, [0.0; tri_len(16)]).unwrap();
//! gp.push(&[0.2, 0.4], 1.0).unwrap();
//! gp.push(&[0.7, 0.1], -0.5).unwrap();
//! let p = gp.predict(&[0.2, 0.4]).unwrap();
//! assert!((p.mean - 1.0).abs() < 1e-3 && p.variance < 1e-3);
//! ```

pub mod candidates;
mod fit;
pub mod time_varying;

pub use fit::{fit_cache_len, AdamFit, CoordinatePrior, FitAscent, FitConfig, FitReport, Prior};

use crate::kernel::{Kernel, KernelError};
use crate::linalg::{
    self, factor_row, log_det, row_start, solve_lower, solve_upper_transposed, tri_len,
};
use crate::real::{all_finite, dot, Real};

/// What [`Gp::push`] does when all `N` slots are used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenFull {
    /// Refuse the observation with [`GpError::Full`].
    Reject,
    /// Forget the oldest observation (O(n²) downdate), so a long-running controller keeps
    /// learning from a sliding window.
    DropOldest,
}

/// Errors of the GP layer. The model is unchanged whenever one is returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpError {
    /// An input, output or hyperparameter was NaN or infinite.
    NonFinite,
    /// The buffer is full and the policy is [`WhenFull::Reject`], or a merged slot's count of
    /// observations would exceed `u32::MAX`.
    Full,
    /// The kernel matrix could not be factorised even with the largest jitter.
    NotPositiveDefinite,
    /// A hyperparameter was out of its domain (non-positive scale or noise).
    InvalidHyperparameter,
    /// The factor storage holds fewer elements than `tri_len(N)` (or a workspace than needed).
    StorageTooSmall {
        /// Elements required.
        needed: usize,
        /// Elements provided.
        got: usize,
    },
    /// Slices passed together have different lengths.
    LengthMismatch,
    /// The operation needs at least one observation.
    NoData,
    /// Fitting bounds are not finite or have `lower > upper`.
    InvalidBounds,
    /// A capacity outside `1..=N`, or below the slots already held ([`Gp::with_capacity`]).
    InvalidCapacity {
        /// The capacity asked for.
        capacity: usize,
        /// The largest capacity, `N`.
        most: usize,
    },
}

impl core::fmt::Display for GpError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NonFinite => f.write_str("an input, output or hyperparameter is NaN or infinite"),
            Self::Full => f.write_str(
                "the gp's buffer is full and rejects new observations, or a merged slot's count of \
                 observations would exceed u32::MAX",
            ),
            Self::NotPositiveDefinite => f.write_str(
                "the kernel matrix could not be factorised even with the largest jitter",
            ),
            Self::InvalidHyperparameter => {
                f.write_str("a hyperparameter is out of its domain (non-positive scale or noise)")
            }
            Self::StorageTooSmall { needed, got } => write!(
                f,
                "factor storage (or workspace) holds {got} scalars, {needed} needed"
            ),
            Self::LengthMismatch => f.write_str("slices passed together have different lengths"),
            Self::NoData => f.write_str("the operation needs at least one observation"),
            Self::InvalidBounds => {
                f.write_str("fitting bounds are not finite or have lower > upper")
            }
            Self::InvalidCapacity { capacity, most } => write!(
                f,
                "capacity {capacity} is outside 1..={most} or below the observations held"
            ),
        }
    }
}

impl core::error::Error for GpError {}

impl From<KernelError> for GpError {
    fn from(_: KernelError) -> Self {
        GpError::InvalidHyperparameter
    }
}

/// Posterior mean and latent variance (without observation noise) at one point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction<R> {
    /// Posterior mean.
    pub mean: R,
    /// Posterior variance of the latent function, clamped at zero.
    pub variance: R,
}

/// Posterior moments and their gradients with respect to the input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PredictionGradient<R, const D: usize> {
    /// Posterior mean.
    pub mean: R,
    /// Posterior latent variance (clamped at zero).
    pub variance: R,
    /// Posterior standard deviation `√variance`.
    pub std: R,
    /// ∂mean/∂x.
    pub d_mean: [R; D],
    /// ∂std/∂x (zero where the variance is zero, where it is not differentiable).
    pub d_std: [R; D],
}

impl<R: Real, const D: usize> PredictionGradient<R, D> {
    /// From the mean, the clamped variance and their gradients: `std = √variance` and
    /// `∇std = ∇variance/(2·std)`, zero where the variance is zero.
    fn from_variance(mean: R, variance: R, d_mean: [R; D], d_var: [R; D]) -> Self {
        let std = variance.sqrt();
        let d_std = if std > R::ZERO {
            core::array::from_fn(|i| d_var[i] / (R::TWO * std))
        } else {
            [R::ZERO; D]
        };
        PredictionGradient {
            mean,
            variance,
            std,
            d_mean,
            d_std,
        }
    }
}

/// The hyperparameters in the coordinates the fitter works in: logs of the positive ones, the
/// constant mean as is. Also used for gradients with respect to those coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hyperparameters<R, const D: usize> {
    /// `ln ℓᵢ` per input.
    pub log_lengthscales: [R; D],
    /// `ln s`.
    pub log_outputscale: R,
    /// `ln σₙ²` (log of the noise variance).
    pub log_noise: R,
    /// Constant prior mean.
    pub mean: R,
}

impl<R: Real, const D: usize> crate::optimize::Coordinates<R> for Hyperparameters<R, D> {
    fn len(&self) -> usize {
        Self::LEN
    }
    fn get(&self, i: usize) -> R {
        Hyperparameters::get(self, i)
    }
    fn get_mut(&mut self, i: usize) -> &mut R {
        Hyperparameters::get_mut(self, i)
    }
}

impl<R: Real, const D: usize> Hyperparameters<R, D> {
    /// Number of coordinates, `D + 3`.
    pub const LEN: usize = D + 3;

    /// All coordinates equal to `v`.
    pub fn splat(v: R) -> Self {
        Hyperparameters {
            log_lengthscales: [v; D],
            log_outputscale: v,
            log_noise: v,
            mean: v,
        }
    }

    /// Coordinate `i` in the order lengthscales, outputscale, noise, mean.
    pub fn get(&self, i: usize) -> R {
        match i {
            i if i < D => self.log_lengthscales[i],
            i if i == D => self.log_outputscale,
            i if i == D + 1 => self.log_noise,
            _ => self.mean,
        }
    }

    /// Mutable coordinate `i` (same order as [`get`](Self::get)).
    pub fn get_mut(&mut self, i: usize) -> &mut R {
        match i {
            i if i < D => &mut self.log_lengthscales[i],
            i if i == D => &mut self.log_outputscale,
            i if i == D + 1 => &mut self.log_noise,
            _ => &mut self.mean,
        }
    }

    /// True when every coordinate is finite.
    pub fn is_finite(&self) -> bool {
        (0..Self::LEN).all(|i| self.get(i).is_finite())
    }
}

/// A Gaussian process of capacity `N` over `D` inputs, its packed factor kept in `S`.
#[derive(Debug, Clone)]
pub struct Gp<R, const N: usize, const D: usize, S> {
    kernel: Kernel<R, D>,
    mean: R,
    noise: R,
    when_full: WhenFull,
    // Slots in use before `when_full` applies: `N`, or less when a caller that sizes `N` from
    // a list of buckets asks for the capacity it was given ([`Gp::with_capacity`]).
    capacity: usize,
    len: usize,
    x: [[R; D]; N],
    // Mean outcome of each slot (the outcome itself unless repeated inputs were merged).
    y: [R; N],
    // Observations merged into each slot; its noise variance is `noise / count`.
    count: [u32; N],
    // Sum of squared deviations of a slot's outcomes from their mean (zero for a single one).
    spread: [R; N],
    // Extra diagonal added to an observation whose pivot was numerically non-positive.
    jitter: [R; N],
    // K_y⁻¹ (y − m), kept current after every change.
    alpha: [R; N],
    // One row of scratch for appends and downdates.
    work: [R; N],
    factor: S,
}

/// Largest jitter relative to `k(x, x) + σₙ²`; beyond it the model reports failure.
const MAX_RELATIVE_JITTER: f64 = 1.0;

/// A posterior that predicts at a point, with or without the gradient: what the ascents of
/// papers 003's and 004's upper bounds need of a model ([`Gp`] and
/// [`TimeVaryingGp`](time_varying::TimeVaryingGp) alike).
pub trait Posterior<R, const D: usize> {
    /// Mean and latent variance at `x` (unit coordinates).
    fn predict(&self, x: &[R; D]) -> Result<Prediction<R>, GpError>;
    /// Mean, standard deviation and their gradients at `x`.
    fn predict_with_gradient(&self, x: &[R; D]) -> Result<PredictionGradient<R, D>, GpError>;
}

impl<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>> Posterior<R, D>
    for Gp<R, N, D, S>
{
    fn predict(&self, x: &[R; D]) -> Result<Prediction<R>, GpError> {
        Gp::predict(self, x)
    }
    fn predict_with_gradient(&self, x: &[R; D]) -> Result<PredictionGradient<R, D>, GpError> {
        Gp::predict_with_gradient(self, x)
    }
}

impl<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>> Gp<R, N, D, S> {
    /// An empty GP. `noise` is the observation noise variance (≥ 0); `factor` must hold at
    /// least [`tri_len`]`(N)` elements (its contents are ignored).
    pub fn new(
        kernel: Kernel<R, D>,
        mean: R,
        noise: R,
        when_full: WhenFull,
        factor: S,
    ) -> Result<Self, GpError> {
        let got = factor.as_ref().len();
        if got < tri_len(N) {
            return Err(GpError::StorageTooSmall {
                needed: tri_len(N),
                got,
            });
        }
        check_mean_noise(mean, noise)?;
        Ok(Gp {
            kernel,
            mean,
            noise,
            when_full,
            capacity: N,
            len: 0,
            x: [[R::ZERO; D]; N],
            y: [R::ZERO; N],
            count: [1; N],
            spread: [R::ZERO; N],
            jitter: [R::ZERO; N],
            alpha: [R::ZERO; N],
            work: [R::ZERO; N],
            factor,
        })
    }

    /// Number of stored slots: distinct inputs, after merging repeated ones (see the
    /// [module documentation](self)).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Number of observations pushed and still held, counting every merged copy.
    pub fn observations(&self) -> u64 {
        self.count[..self.len].iter().map(|c| u64::from(*c)).sum()
    }

    /// True when no observation is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Maximum number of slots: `N`, or the smaller capacity given to
    /// [`with_capacity`](Self::with_capacity).
    pub const fn capacity(&self) -> usize {
        self.capacity
    }

    /// The model with room for `capacity` slots (1 to `N`) before its [`WhenFull`] policy
    /// applies: a desktop caller that picks `N` from a few sizes keeps the capacity it was
    /// asked for, and the model behaves as one of that const capacity (the same slots are
    /// dropped at the same pushes, with the same bits). Refused with
    /// [`GpError::InvalidCapacity`] outside `1..=N` or below the slots already held.
    pub fn with_capacity(mut self, capacity: usize) -> Result<Self, GpError> {
        if capacity == 0 || capacity > N || capacity < self.len {
            return Err(GpError::InvalidCapacity { capacity, most: N });
        }
        self.capacity = capacity;
        Ok(self)
    }

    /// The kernel.
    pub fn kernel(&self) -> &Kernel<R, D> {
        &self.kernel
    }

    /// Constant prior mean.
    pub fn prior_mean(&self) -> R {
        self.mean
    }

    /// Observation noise variance.
    pub fn noise(&self) -> R {
        self.noise
    }

    /// The policy applied when full.
    pub fn when_full(&self) -> WhenFull {
        self.when_full
    }

    /// Stored inputs, oldest first.
    pub fn inputs(&self) -> &[[R; D]] {
        &self.x[..self.len]
    }

    /// Stored outputs, oldest first: per slot, the mean of the outcomes merged into it.
    pub fn outputs(&self) -> &[R] {
        &self.y[..self.len]
    }

    /// Number of observations merged into each slot (1 unless inputs repeated), oldest first.
    pub fn counts(&self) -> &[u32] {
        &self.count[..self.len]
    }

    /// Sum of squared deviations of each slot's outcomes from their mean (0 for one outcome).
    pub fn spreads(&self) -> &[R] {
        &self.spread[..self.len]
    }

    /// Noise variance of slot `i` in the kernel matrix, `σₙ² / count` (without jitter); `None`
    /// past the stored slots.
    pub fn slot_noise(&self, i: usize) -> Option<R> {
        (i < self.len).then(|| merged_noise(self.noise, self.count[i]))
    }

    /// Jitter added to each stored observation's diagonal (zero unless it was needed).
    pub fn jitters(&self) -> &[R] {
        &self.jitter[..self.len]
    }

    /// The packed Cholesky factor of `K + diag(σₙ² / count) + diag(jitter)`.
    pub fn factor(&self) -> &[R] {
        &self.factor.as_ref()[..tri_len(self.len)]
    }

    /// `K_y⁻¹ (y − m)`.
    pub fn alpha(&self) -> &[R] {
        &self.alpha[..self.len]
    }

    /// Current hyperparameters in fitting coordinates.
    pub fn hyperparameters(&self) -> Hyperparameters<R, D> {
        Hyperparameters {
            log_lengthscales: core::array::from_fn(|i| self.kernel.lengthscales()[i].ln()),
            log_outputscale: self.kernel.outputscale().ln(),
            log_noise: self.noise.ln(),
            mean: self.mean,
        }
    }

    /// Adds one observation. An input equal to a stored one is merged into its slot (see the
    /// [module documentation](self)) and needs no room; otherwise, when full, follows the
    /// [`WhenFull`] policy.
    pub fn push(&mut self, x: &[R; D], y: R) -> Result<(), GpError> {
        self.push_merged(x, y, 1, R::ZERO)
    }

    /// Adds `count` observations at `x` given by their mean outcome `y` and the sum of squared
    /// deviations from it, `spread` (0 when `count` is 1): what [`counts`](Self::counts) and
    /// [`spreads`](Self::spreads) report, so a saved model can be rebuilt slot by slot. Equal
    /// to pushing the observations one by one, up to rounding.
    pub fn push_merged(&mut self, x: &[R; D], y: R, count: u32, spread: R) -> Result<(), GpError> {
        if !all_finite(x) || !y.is_finite() || !spread.is_finite() {
            return Err(GpError::NonFinite);
        }
        if count == 0 || spread < R::ZERO || (count == 1 && spread != R::ZERO) {
            return Err(GpError::InvalidHyperparameter);
        }
        if let Some(j) = self.inputs().iter().position(|xj| xj == x) {
            return self.merge_into(j, y, count, spread);
        }
        if self.len == self.capacity {
            match self.when_full {
                WhenFull::Reject => return Err(GpError::Full),
                WhenFull::DropOldest => {
                    let old = self.slot(0);
                    self.remove_oldest()?;
                    if let Err(e) = self.push_unchecked(x, y, count, spread) {
                        self.restore_slot(0, old);
                        return Err(e);
                    }
                    return Ok(());
                }
            }
        }
        self.push_unchecked(x, y, count, spread)
    }

    /// Forgets the oldest observation in O(n²).
    pub fn remove_oldest(&mut self) -> Result<(), GpError> {
        if self.len == 0 {
            return Err(GpError::NoData);
        }
        let n = self.len;
        linalg::remove_first(self.factor.as_mut(), n, &mut self.work);
        self.x.copy_within(1..n, 0);
        self.y.copy_within(1..n, 0);
        self.count.copy_within(1..n, 0);
        self.spread.copy_within(1..n, 0);
        self.jitter.copy_within(1..n, 0);
        self.len = n - 1;
        self.update_alpha();
        Ok(())
    }

    /// Forgets every observation.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Replaces the kernel, prior mean and noise, and refactors in O(n³).
    pub fn set_hyperparameters(
        &mut self,
        kernel: Kernel<R, D>,
        mean: R,
        noise: R,
    ) -> Result<(), GpError> {
        check_mean_noise(mean, noise)?;
        let saved = (self.kernel, self.mean, self.noise);
        let saved_jitter = self.jitter;
        self.kernel = kernel;
        self.mean = mean;
        self.noise = noise;
        if let Err(e) = self.refactor() {
            (self.kernel, self.mean, self.noise) = saved;
            self.jitter = saved_jitter;
            // The saved hyperparameters factorised before with these jitters.
            let _ = self.refactor_keeping_jitter();
            return Err(e);
        }
        Ok(())
    }

    /// Like [`set_hyperparameters`](Self::set_hyperparameters), from fitting coordinates.
    pub fn set_log_hyperparameters(&mut self, h: &Hyperparameters<R, D>) -> Result<(), GpError> {
        if !h.is_finite() {
            return Err(GpError::NonFinite);
        }
        let kernel = self.kernel_from(h)?;
        self.set_hyperparameters(kernel, h.mean, h.log_noise.exp())
    }

    /// Posterior mean and latent variance at `x`.
    pub fn predict(&self, x: &[R; D]) -> Result<Prediction<R>, GpError> {
        if !all_finite(x) {
            return Err(GpError::NonFinite);
        }
        let n = self.len;
        let mut v = [R::ZERO; N];
        self.cross_covariance(x, &mut v[..n]);
        Ok(posterior_from_cross(
            self.factor.as_ref(),
            &self.alpha[..n],
            self.mean,
            self.kernel.diagonal(x),
            &mut v[..n],
        ))
    }

    /// [`predict`](Self::predict) at each point of `xs` into the matching entry of `out` (as
    /// many as the shorter of the two holds), with the same bits. Groups of [`PREDICT_BLOCK`]
    /// finite points share one pass over the factor ([`linalg::solve_lower_many`]), which at
    /// large n is several times faster than one solve per point.
    pub fn predict_many(&self, xs: &[[R; D]], out: &mut [Result<Prediction<R>, GpError>]) {
        let n = self.len;
        let m = xs.len().min(out.len());
        let (xs, out) = (&xs[..m], &mut out[..m]);
        let mut groups = xs
            .chunks_exact(PREDICT_BLOCK)
            .zip(out.chunks_exact_mut(PREDICT_BLOCK));
        for (xg, og) in &mut groups {
            if !xg.iter().all(|x| all_finite(x)) {
                for (x, o) in xg.iter().zip(og) {
                    *o = self.predict(x);
                }
                continue;
            }
            let xg: &[[R; D]; PREDICT_BLOCK] = xg.try_into().expect("a group");
            #[cfg(not(target_arch = "arm"))]
            {
                // Interleaved (`v[k][t]`: observation k, point t) for the vector solve; each
                // point's sums run over k in order, as `predict`'s do.
                let mut v = [[R::ZERO; PREDICT_BLOCK]; N];
                let mut sums = [R::ZERO; PREDICT_BLOCK];
                for ((vk, xk), ak) in v.iter_mut().zip(&self.x[..n]).zip(&self.alpha) {
                    // k(xₖ, x) has the bits of k(x, xₖ).
                    *vk = self.kernel.eval_lanes(xk, xg);
                    for (s, vkt) in sums.iter_mut().zip(vk.iter()) {
                        *s += *vkt * *ak;
                    }
                }
                linalg::solve_lower_interleaved(self.factor.as_ref(), n, &mut v[..n]);
                let mut squares = [R::ZERO; PREDICT_BLOCK];
                for vk in &v[..n] {
                    for (q, vkt) in squares.iter_mut().zip(vk) {
                        *q += *vkt * *vkt;
                    }
                }
                for (t, (o, x)) in og.iter_mut().zip(xg).enumerate() {
                    let variance = (self.kernel.diagonal(x) - squares[t]).max(R::ZERO);
                    *o = Ok(Prediction {
                        mean: self.mean + sums[t],
                        variance,
                    });
                }
            }
            #[cfg(target_arch = "arm")]
            {
                let mut v = [[R::ZERO; N]; PREDICT_BLOCK];
                let mut means = [R::ZERO; PREDICT_BLOCK];
                for ((vt, mt), x) in v.iter_mut().zip(&mut means).zip(xg) {
                    self.cross_covariance(x, &mut vt[..n]);
                    *mt = self.mean + dot(&vt[..n], &self.alpha[..n]);
                }
                linalg::solve_lower_many(
                    self.factor.as_ref(),
                    n,
                    &mut v.each_mut().map(|vt| &mut vt[..]),
                );
                for (((o, vt), mt), x) in og.iter_mut().zip(&v).zip(means).zip(xg) {
                    let variance = (self.kernel.diagonal(x) - dot(&vt[..n], &vt[..n])).max(R::ZERO);
                    *o = Ok(Prediction { mean: mt, variance });
                }
            }
        }
        let done = m - m % PREDICT_BLOCK;
        for (x, o) in xs[done..].iter().zip(&mut out[done..]) {
            *o = self.predict(x);
        }
    }

    /// Posterior mean only, in O(n).
    pub fn predict_mean(&self, x: &[R; D]) -> Result<R, GpError> {
        if !all_finite(x) {
            return Err(GpError::NonFinite);
        }
        let mut s = self.mean;
        for (xi, ai) in self.x[..self.len].iter().zip(&self.alpha) {
            s += self.kernel.eval(x, xi) * *ai;
        }
        Ok(s)
    }

    /// Posterior mean and its input gradient, in O(nD) (no triangular solve).
    pub fn predict_mean_with_gradient(&self, x: &[R; D]) -> Result<(R, [R; D]), GpError> {
        if !all_finite(x) {
            return Err(GpError::NonFinite);
        }
        let mut mean = self.mean;
        let mut grad = [R::ZERO; D];
        let mut g = [R::ZERO; D];
        for (xj, aj) in self.x[..self.len].iter().zip(&self.alpha) {
            mean += self.kernel.eval_with_grad(x, xj, &mut g) * *aj;
            for (gi, gji) in grad.iter_mut().zip(&g) {
                *gi += *aj * *gji;
            }
        }
        Ok((mean, grad))
    }

    /// Posterior mean and latent variance at every point of `xs`.
    pub fn predict_batch(
        &self,
        xs: &[[R; D]],
        means: &mut [R],
        variances: &mut [R],
    ) -> Result<(), GpError> {
        if means.len() != xs.len() || variances.len() != xs.len() {
            return Err(GpError::LengthMismatch);
        }
        if !xs.iter().all(|x| all_finite(x)) {
            return Err(GpError::NonFinite);
        }
        for ((x, m), v) in xs.iter().zip(means.iter_mut()).zip(variances.iter_mut()) {
            let p = self.predict(x)?;
            *m = p.mean;
            *v = p.variance;
        }
        Ok(())
    }

    /// Posterior covariance of the latent function between `a` and `b`.
    pub fn covariance(&self, a: &[R; D], b: &[R; D]) -> Result<R, GpError> {
        if !all_finite(a) || !all_finite(b) {
            return Err(GpError::NonFinite);
        }
        let n = self.len;
        let l = self.factor.as_ref();
        let mut va = [R::ZERO; N];
        let mut vb = [R::ZERO; N];
        self.cross_covariance(a, &mut va[..n]);
        self.cross_covariance(b, &mut vb[..n]);
        solve_lower(l, n, &mut va);
        solve_lower(l, n, &mut vb);
        Ok(self.kernel.eval(a, b) - dot(&va[..n], &vb[..n]))
    }

    /// Posterior mean, variance, standard deviation and their input gradients at `x`.
    ///
    /// With `v = L⁻¹k` and `w = L⁻ᵀv = K_y⁻¹k`: `∂μ = Σ αⱼ ∂kⱼ`, `∂σ² = −2 Σ wⱼ ∂kⱼ`
    /// (plus `∂k(x, x)`, zero unless the kernel has an amplitude), `∂σ = ∂σ² / 2σ`.
    ///
    /// Stack: `N·(D + 1)` scalars (each observation's covariance and its gradient are kept from
    /// one kernel call): 1.5 KiB for a 64-point, 5-input `f32` model, 264 KiB for a 1024-point,
    /// 32-input `f64` one.
    pub fn predict_with_gradient(&self, x: &[R; D]) -> Result<PredictionGradient<R, D>, GpError> {
        if !all_finite(x) {
            return Err(GpError::NonFinite);
        }
        let n = self.len;
        let l = self.factor.as_ref();
        // Each covariance and its gradient come from one kernel evaluation (one `exp`), kept
        // until the solves are done: `eval_with_grad`'s value has the bits of `eval`'s.
        let mut v = [R::ZERO; N];
        let mut grads = [[R::ZERO; D]; N];
        let lanes = n - n % LANES;
        for ((vc, gc), xc) in v[..lanes]
            .chunks_exact_mut(LANES)
            .zip(grads[..lanes].chunks_exact_mut(LANES))
            .zip(self.x[..lanes].chunks_exact(LANES))
        {
            let (gc, xc): (&mut [_; LANES], &[_; LANES]) =
                (gc.try_into().expect("lanes"), xc.try_into().expect("lanes"));
            vc.copy_from_slice(&self.kernel.eval_with_grad_lanes(x, xc, gc));
        }
        for ((vj, gj), xj) in v[lanes..n]
            .iter_mut()
            .zip(&mut grads[lanes..n])
            .zip(&self.x[lanes..n])
        {
            *vj = self.kernel.eval_with_grad(x, xj, gj);
        }
        let mean = self.mean + dot(&v[..n], &self.alpha[..n]);
        solve_lower(l, n, &mut v);
        let mut d_var = [R::ZERO; D];
        let prior = self.kernel.diagonal_with_grad(x, &mut d_var);
        let variance = (prior - dot(&v[..n], &v[..n])).max(R::ZERO);
        solve_upper_transposed(l, n, &mut v);
        let mut d_mean = [R::ZERO; D];
        for ((g, aj), wj) in grads[..n].iter().zip(&self.alpha).zip(&v) {
            for i in 0..D {
                d_mean[i] += *aj * g[i];
                d_var[i] -= R::TWO * *wj * g[i];
            }
        }
        Ok(PredictionGradient::from_variance(
            mean, variance, d_mean, d_var,
        ))
    }

    /// [`predict_with_gradient`](Self::predict_with_gradient) at each of `B` points, with its
    /// bits. On a desktop the points share one pass of each triangular solve
    /// ([`linalg::solve_lower_interleaved`], [`linalg::solve_upper_transposed_interleaved`]):
    /// a single point's solves are chains of dependent additions and divisions, which `B`
    /// points fill with independent work (vector lanes). Stack: `2·N·B` scalars (32 KiB for
    /// 256 `f64` points and `B = 8`). Modulated kernels, non-finite points and 32-bit Arm go
    /// one point at a time.
    pub fn predict_with_gradient_many<const B: usize>(
        &self,
        xs: &[[R; D]; B],
    ) -> [Result<PredictionGradient<R, D>, GpError>; B] {
        let one_at_a_time = || core::array::from_fn(|t| self.predict_with_gradient(&xs[t]));
        if cfg!(target_arch = "arm") || !xs.iter().all(|x| all_finite(x)) {
            return one_at_a_time();
        }
        let n = self.len;
        let l = self.factor.as_ref();
        // v[j][t] = k(xₜ, xⱼ) and f[j][t] its gradient's factor (Kernel::eval_with_grad's).
        let mut v = [[R::ZERO; B]; N];
        let mut f = [[R::ZERO; B]; N];
        for ((vj, fj), xj) in v.iter_mut().zip(&mut f).zip(&self.x[..n]) {
            let Some((value, factor)) = self.kernel.eval_with_grad_factor_lanes(xs, xj) else {
                return one_at_a_time();
            };
            (*vj, *fj) = (value, factor);
        }
        let mut means = [R::ZERO; B];
        for (vj, aj) in v[..n].iter().zip(&self.alpha) {
            for (m, vjt) in means.iter_mut().zip(vj) {
                *m += *vjt * *aj;
            }
        }
        linalg::solve_lower_interleaved(l, n, &mut v[..n]);
        let mut squares = [R::ZERO; B];
        for vj in &v[..n] {
            for (q, vjt) in squares.iter_mut().zip(vj) {
                *q += *vjt * *vjt;
            }
        }
        linalg::solve_upper_transposed_interleaved(l, n, &mut v[..n]);
        let inv_sq = self.kernel.inverse_squared_lengthscales();
        core::array::from_fn(|t| {
            let x = &xs[t];
            let mut d_var = [R::ZERO; D];
            let prior = self.kernel.diagonal_with_grad(x, &mut d_var);
            let variance = (prior - squares[t]).max(R::ZERO);
            let mut d_mean = [R::ZERO; D];
            for (((xj, aj), wj), fj) in self.x[..n].iter().zip(&self.alpha).zip(&v).zip(&f) {
                for i in 0..D {
                    let g = fj[t] * (x[i] - xj[i]) * inv_sq[i];
                    d_mean[i] += *aj * g;
                    d_var[i] -= R::TWO * wj[t] * g;
                }
            }
            Ok(PredictionGradient::from_variance(
                self.mean + means[t],
                variance,
                d_mean,
                d_var,
            ))
        })
    }

    /// Log marginal likelihood `−½ rᵀα − ½ ln|K_y| − (n/2) ln 2π` with `r = y − m`, of every
    /// observation: a slot of `c > 1` merged copies adds
    /// `−(c−1)/2 ln(2πσₙ²) − ½ ln c − spread/(2σₙ²)`, the density of the copies given their
    /// mean (left out when `σₙ² = 0`, where conflicting copies have no density).
    pub fn log_marginal_likelihood(&self) -> R {
        let n = self.len;
        let mut quad = R::ZERO;
        for i in 0..n {
            quad += (self.y[i] - self.mean) * self.alpha[i];
        }
        let lml =
            -R::HALF * (quad + log_det(self.factor.as_ref(), n) + R::from_usize(n) * R::LN_2PI);
        match self.repeat_terms() {
            Some((value, _)) => lml + value,
            None => lml,
        }
    }

    /// The log marginal likelihood and its gradient with respect to the fitting coordinates.
    /// `workspace` needs [`tri_len`]`(len())` elements; O(n³).
    pub fn log_marginal_likelihood_gradient(
        &self,
        workspace: &mut [R],
    ) -> Result<(R, Hyperparameters<R, D>), GpError> {
        let n = self.len;
        if workspace.len() < tri_len(n) {
            return Err(GpError::StorageTooSmall {
                needed: tri_len(n),
                got: workspace.len(),
            });
        }
        workspace[..tri_len(n)].copy_from_slice(self.factor());
        let mut scratch = [R::ZERO; N];
        let mut grad = lml_gradient(
            &self.kernel,
            self.noise,
            self.inputs(),
            self.counts(),
            self.alpha(),
            workspace,
            &mut scratch,
            None,
        );
        if let Some((_, d_log_noise)) = self.repeat_terms() {
            grad.log_noise += d_log_noise;
        }
        Ok((self.log_marginal_likelihood(), grad))
    }

    /// Fits the hyperparameters by maximising the log marginal likelihood (plus log prior, if
    /// given) within box bounds; see [`FitConfig`]. On error the model is unchanged. Inputs
    /// the kernel ignores ([`Kernel::ignoring_inputs_from`]) stay ignored: their coordinates
    /// are held and draw no random start, so the fit is, bit for bit, that of the model
    /// without them (whose report has their log-lengthscales at `+∞`).
    pub fn fit(&mut self, config: &FitConfig<R, D>) -> Result<FitReport<R, D>, GpError> {
        fit::fit(self, config, &mut [])
    }

    /// [`fit`](Self::fit) with caller memory for each pair's kernel profile: with at least
    /// [`fit_cache_len`]`(len())` scalars (and a stationary kernel) each likelihood evaluation
    /// computes every kernel exponential once instead of twice (once for the factor, once for
    /// the gradient); a shorter `cache` is not used. The same fit, bit for bit, either way.
    pub fn fit_with_cache(
        &mut self,
        config: &FitConfig<R, D>,
        cache: &mut [R],
    ) -> Result<FitReport<R, D>, GpError> {
        fit::fit(self, config, cache)
    }

    /// Fits every hyperparameter by Adam from `adam.start`, as GPyTorch's `Adam` on the exact
    /// marginal likelihood does ([`AdamFit`]); `cache` as in
    /// [`fit_with_cache`](Self::fit_with_cache). A fit whose kernel matrix cannot be factored
    /// at some step leaves the model exactly as it was.
    pub fn fit_adam(
        &mut self,
        adam: &AdamFit<R, D>,
        cache: &mut [R],
    ) -> Result<FitReport<R, D>, GpError> {
        fit::fit_adam(self, adam, cache)
    }

    // ---- internals -------------------------------------------------------------------------

    /// The kernel at `h`; the inputs the current kernel ignores stay ignored, whatever `h`
    /// holds for them (a padded model fits as the model without its inert inputs).
    fn kernel_from(&self, h: &Hyperparameters<R, D>) -> Result<Kernel<R, D>, GpError> {
        let seen = self.kernel.inputs_seen();
        let ls = core::array::from_fn(|i| {
            if i < seen {
                h.log_lengthscales[i].exp()
            } else {
                R::ONE
            }
        });
        let kernel = Kernel::new(self.kernel.shape(), ls, h.log_outputscale.exp())?
            .ignoring_inputs_from(seen);
        // A fit moves the lengthscales and the outputscale; the amplitude stays.
        Ok(match self.kernel.amplitude() {
            Some(a) => kernel.with_amplitude(a),
            None => kernel,
        })
    }

    /// `out[j] = k(x, xⱼ)`.
    fn cross_covariance(&self, x: &[R; D], out: &mut [R]) {
        covariances(&self.kernel, x, &self.x[..self.len], out, None);
    }

    /// The terms of the log marginal likelihood that merging repeated inputs leaves out, and
    /// their derivative in `ln σₙ²`; `None` when no slot holds more than one observation (or
    /// the noise is zero), so data without repeats is untouched.
    fn repeat_terms(&self) -> Option<(R, R)> {
        if self.noise <= R::ZERO || self.counts().iter().all(|c| *c == 1) {
            return None;
        }
        let ln_2pi_noise = R::LN_2PI + self.noise.ln();
        let (mut value, mut d_log_noise) = (R::ZERO, R::ZERO);
        for (c, s) in self.counts().iter().zip(self.spreads()) {
            if *c > 1 {
                let extra = R::from_f64(f64::from(*c - 1));
                let ratio = *s / self.noise;
                value -= R::HALF * (extra * ln_2pi_noise + R::from_f64(f64::from(*c)).ln() + ratio);
                d_log_noise += R::HALF * (ratio - extra);
            }
        }
        Some((value, d_log_noise))
    }

    /// Slot `i` as stored: input, mean outcome, count, spread, jitter.
    fn slot(&self, i: usize) -> Slot<R, D> {
        (
            self.x[i],
            self.y[i],
            self.count[i],
            self.spread[i],
            self.jitter[i],
        )
    }

    /// Merges `count` observations with mean `y` and spread `spread` into slot `j`, which then
    /// moves to the newest position: the slot is removed from the factor (a stable rank-one
    /// update, O(n²)) and appended again with its smaller noise (O(n²)).
    fn merge_into(&mut self, j: usize, y: R, count: u32, spread: R) -> Result<(), GpError> {
        let old = self.slot(j);
        let (x, y_old, c_old, s_old, _) = old;
        let total = c_old.checked_add(count).ok_or(GpError::Full)?;
        let (a, b, t) = (
            R::from_f64(f64::from(c_old)),
            R::from_f64(f64::from(count)),
            R::from_f64(f64::from(total)),
        );
        // Chan et al.'s pairwise update of a mean and a sum of squared deviations.
        let delta = y - y_old;
        let merged_y = y_old + delta * (b / t);
        let merged_spread = s_old + spread + delta * delta * (a * b / t);
        if !merged_y.is_finite() || !merged_spread.is_finite() {
            return Err(GpError::NonFinite);
        }
        let n = self.len;
        if j + 1 < n {
            linalg::remove_row(self.factor.as_mut(), n, j, &mut self.work);
            self.x.copy_within(j + 1..n, j);
            self.y.copy_within(j + 1..n, j);
            self.count.copy_within(j + 1..n, j);
            self.spread.copy_within(j + 1..n, j);
            self.jitter.copy_within(j + 1..n, j);
        }
        self.len = n - 1;
        if let Err(e) = self.push_unchecked(&x, merged_y, total, merged_spread) {
            self.restore_slot(j, old);
            return Err(e);
        }
        Ok(())
    }

    /// Stores the observation in slot `len` and extends the factor.
    fn push_unchecked(&mut self, x: &[R; D], y: R, count: u32, spread: R) -> Result<(), GpError> {
        let i = self.len;
        self.x[i] = *x;
        self.y[i] = y;
        self.count[i] = count;
        self.spread[i] = spread;
        self.extend_factor(i, None, None)?;
        self.len = i + 1;
        self.update_alpha();
        Ok(())
    }

    /// Re-inserts a slot at position `i` after a failed replacement or merge (rare error path,
    /// so the O(n³) refactorisation is acceptable). The restored state factorised before.
    fn restore_slot(&mut self, i: usize, slot: Slot<R, D>) {
        let n = self.len;
        self.x.copy_within(i..n, i + 1);
        self.y.copy_within(i..n, i + 1);
        self.count.copy_within(i..n, i + 1);
        self.spread.copy_within(i..n, i + 1);
        self.jitter.copy_within(i..n, i + 1);
        (
            self.x[i],
            self.y[i],
            self.count[i],
            self.spread[i],
            self.jitter[i],
        ) = slot;
        self.len = n + 1;
        let _ = self.refactor_keeping_jitter();
    }

    /// Appends row `i` (observation `i`) to a factor of order `i`. With `fixed_jitter` the
    /// stored jitter is reused; otherwise a per-observation jitter is escalated from zero while
    /// the pivot is not safely positive (duplicate or near-duplicate inputs).
    fn extend_factor(
        &mut self,
        i: usize,
        fixed_jitter: Option<R>,
        profiles: Option<(&mut [R], &mut [R])>,
    ) -> Result<(), GpError> {
        let xi = self.x[i];
        let diag = self.kernel.diagonal(&xi) + merged_noise(self.noise, self.count[i]);
        covariances(
            &self.kernel,
            &xi,
            &self.x[..i],
            &mut self.work[..i],
            profiles,
        );
        self.work[i] = diag;
        self.jitter[i] = append_factor_row(self.factor.as_mut(), &mut self.work, i, fixed_jitter)?;
        Ok(())
    }

    /// Rebuilds the factor from scratch with fresh jitter decisions.
    fn refactor(&mut self) -> Result<(), GpError> {
        self.rebuild_factor(false, None)
    }

    /// Rebuilds the factor with the stored jitters.
    fn refactor_keeping_jitter(&mut self) -> Result<(), GpError> {
        self.rebuild_factor(true, None)
    }

    /// Rebuilds the factor row by row, [`FACTOR_BLOCK`] rows at a time: the block's entries in
    /// the finished columns are solved against the finished rows together
    /// ([`linalg::solve_lower_interleaved`] on a desktop, from a stack copy of `N` groups of
    /// [`FACTOR_BLOCK`] scalars, 16 KiB for 256 `f64` points; [`linalg::eliminate_rows`] in
    /// place on 32-bit Arm), then each row is finished and given its jitter in order. The bits
    /// are those of [`Self::extend_factor`] row by row. On failure the rows from the failing
    /// one on hold scratch (callers rebuild).
    fn rebuild_factor(
        &mut self,
        keep_jitter: bool,
        mut profiles: Option<&mut [R]>,
    ) -> Result<(), GpError> {
        let n = self.len;
        let half = tri_len(n);
        // The block's first `i0` columns, interleaved for the vector solve (desktop only: on a
        // Cortex-M there are no vector registers to fill and the stack is small).
        #[cfg(not(target_arch = "arm"))]
        let mut columns = [[R::ZERO; FACTOR_BLOCK]; N];
        let mut i0 = 0;
        while i0 + FACTOR_BLOCK <= n {
            let mut diag = [R::ZERO; FACTOR_BLOCK];
            let l = self.factor.as_mut();
            #[cfg(target_arch = "arm")]
            let solved = 0;
            #[cfg(not(target_arch = "arm"))]
            let solved = {
                let block = &mut columns[..i0];
                let rows: &[[R; D]; FACTOR_BLOCK] = (&self.x[i0..i0 + FACTOR_BLOCK])
                    .try_into()
                    .expect("a block of rows");
                // k(xₖ, xᵢ) has the bits of k(xᵢ, xₖ).
                for (k, (bk, xk)) in block.iter_mut().zip(&self.x).enumerate() {
                    match (profiles.as_deref_mut(), self.kernel.profile_lanes(xk, rows)) {
                        (Some(c), Some((v, dv))) => {
                            // Kernel::eval's bits, and the profile kept for the gradient.
                            *bk = v.map(|v| self.kernel.outputscale() * v);
                            for t in 0..FACTOR_BLOCK {
                                let at = row_start(i0 + t) + k;
                                (c[at], c[half + at]) = (v[t], dv[t]);
                            }
                        }
                        _ => *bk = self.kernel.eval_lanes(xk, rows),
                    }
                }
                linalg::solve_lower_interleaved(l, i0, block);
                for (k, bk) in block.iter().enumerate() {
                    for (t, b) in bk.iter().enumerate() {
                        l[row_start(i0 + t) + k] = *b;
                    }
                }
                i0
            };
            for (t, d) in diag.iter_mut().enumerate() {
                let i = i0 + t;
                let xi = self.x[i];
                *d = self.kernel.diagonal(&xi) + merged_noise(self.noise, self.count[i]);
                let r = &mut l[row_start(i)..=row_start(i) + i];
                let kept = profiles.as_deref_mut().map(|c| {
                    let (v, dv) = c.split_at_mut(half);
                    let at = row_start(i) + solved..row_start(i) + i;
                    (&mut v[at.clone()], &mut dv[at])
                });
                covariances(
                    &self.kernel,
                    &xi,
                    &self.x[solved..i],
                    &mut r[solved..i],
                    kept,
                );
                r[i] = *d;
            }
            #[cfg(target_arch = "arm")]
            linalg::eliminate_rows::<R, FACTOR_BLOCK>(l, i0);
            for (t, d) in diag.iter().enumerate() {
                let i = i0 + t;
                let (done, rest) = l.split_at_mut(row_start(i));
                let r = &mut rest[..=i];
                let pivot = linalg::factor_row_from(done, i, i0, r);
                let fixed = if keep_jitter {
                    Some(self.jitter[i])
                } else {
                    None
                };
                let (jitter, p) = accept_pivot(pivot, &r[..i], *d, fixed)?;
                r[i] = p.sqrt();
                self.jitter[i] = jitter;
            }
            i0 += FACTOR_BLOCK;
        }
        for i in i0..n {
            let fixed = if keep_jitter {
                Some(self.jitter[i])
            } else {
                None
            };
            let kept = profiles.as_deref_mut().map(|c| {
                let (v, dv) = c.split_at_mut(half);
                let at = row_start(i)..row_start(i) + i;
                (&mut v[at.clone()], &mut dv[at])
            });
            self.extend_factor(i, fixed, kept)?;
        }
        self.update_alpha();
        Ok(())
    }

    fn update_alpha(&mut self) {
        let n = self.len;
        solve_alpha(
            self.factor.as_ref(),
            &self.y[..n],
            self.mean,
            &mut self.alpha[..n],
        );
    }
}

/// Gradient of the log marginal likelihood with respect to the fitting coordinates, given the
/// factor `L` in `linv` (inverted in place).
///
/// `∂/∂θ = ½ tr((ααᵀ − K_y⁻¹) ∂K_y/∂θ)`; `K_y⁻¹ = L⁻ᵀL⁻¹` is formed one row at a time from
/// the rows of `L⁻¹` into `scratch` (at least `n` elements), so no second n×n buffer is needed.
///
/// Entry `(i, j)` of `K_y⁻¹` is `Σ_{k ≥ i} (L⁻¹)_ki (L⁻¹)_kj`; summing it entry by entry would
/// read two columns of the packed rows (a cache line per term at large n), so row `i`'s
/// entries are accumulated together while the rows `k` are read contiguously. Each entry's
/// sum starts at zero and adds its terms in increasing `k` either way, so the bits (and the
/// fits and decisions built on them) are those of the entry-by-entry form.
///
/// With `profiles` (the kernel's profile `(φ, dφ/dr²)` of every pair `j < i`, packed as the
/// factor is, values then slopes: what the factorisation kept, [`Gp::rebuild_factor`]), the
/// kernel values and their gradients come from them (no exponential, same bits).
#[allow(clippy::too_many_arguments)]
fn lml_gradient<R: Real, const D: usize>(
    kernel: &Kernel<R, D>,
    noise: R,
    x: &[[R; D]],
    counts: &[u32],
    alpha: &[R],
    linv: &mut [R],
    scratch: &mut [R],
    profiles: Option<(&[R], &[R])>,
) -> Hyperparameters<R, D> {
    let n = x.len();
    let scratch = &mut scratch[..n];
    linalg::invert_lower_in_place_with(linv, n, scratch);
    let mut grad = Hyperparameters::splat(R::ZERO);
    for i in 0..n {
        let kinv_row = &mut scratch[..=i];
        kinv_row.fill(R::ZERO);
        // Four rows k at a time, each sum kept in a register across them (one load and one
        // store per four terms); every sum still adds its terms in increasing k.
        let mut k = i;
        while k + 4 <= n {
            let r = [
                linalg::row(linv, k),
                linalg::row(linv, k + 1),
                linalg::row(linv, k + 2),
                linalg::row(linv, k + 3),
            ];
            let a = [r[0][i], r[1][i], r[2][i], r[3][i]];
            for (j, s) in kinv_row.iter_mut().enumerate() {
                *s = *s + a[0] * r[0][j] + a[1] * r[1][j] + a[2] * r[2][j] + a[3] * r[3][j];
            }
            k += 4;
        }
        for k in k..n {
            let row_k = linalg::row(linv, k);
            let a = row_k[i];
            for (s, m) in kinv_row.iter_mut().zip(row_k) {
                *s += a * *m;
            }
        }
        // Kernel values and gradients LANES at a time (same bits), summed in order of j.
        let mut j0 = 0;
        while j0 <= i {
            let width = (i + 1 - j0).min(LANES);
            let mut kv = [R::ZERO; LANES];
            let mut gl = [[R::ZERO; D]; LANES];
            if let Some((vs, dvs)) = profiles {
                for t in 0..width {
                    let j = j0 + t;
                    kv[t] = if j < i {
                        let at = linalg::idx(i, j);
                        kernel.lengthscale_grad_from_profile(
                            &x[i], &x[j], vs[at], dvs[at], &mut gl[t],
                        )
                    } else {
                        kernel.eval_with_lengthscale_grad(&x[i], &x[j], &mut gl[t])
                    };
                }
            } else if width == LANES {
                let xs = (&x[j0..j0 + LANES]).try_into().expect("lanes");
                kv = kernel.eval_with_lengthscale_grad_lanes(&x[i], xs, &mut gl);
            } else {
                for t in 0..width {
                    kv[t] = kernel.eval_with_lengthscale_grad(&x[i], &x[j0 + t], &mut gl[t]);
                }
            }
            for t in 0..width {
                let j = j0 + t;
                let mut w = alpha[i] * alpha[j] - kinv_row[j];
                if i == j {
                    w *= R::HALF;
                    grad.log_noise += w * merged_noise(noise, counts[i]);
                }
                grad.log_outputscale += w * kv[t];
                for (gd, gld) in grad.log_lengthscales.iter_mut().zip(&gl[t]) {
                    *gd += w * *gld;
                }
            }
            j0 += width;
        }
    }
    for a in alpha {
        grad.mean += *a;
    }
    grad
}

/// Appends row `i` of the kernel matrix to a factor of order `i`: `work[..i]` holds the row's
/// covariances with the stored observations and `work[i]` its diagonal (`k(x, x) + σₙ²`). With
/// `fixed_jitter` that jitter is reused; otherwise one is escalated from zero while the pivot
/// is not safely positive (duplicate or near-duplicate inputs). Returns the jitter used. Shared
/// by [`Gp`] and [`time_varying::TimeVaryingGp`], whose rows differ only in their temporal
/// weights.
fn append_factor_row<R: Real>(
    factor: &mut [R],
    work: &mut [R],
    i: usize,
    fixed_jitter: Option<R>,
) -> Result<R, GpError> {
    let diag = work[i];
    let (done, rest) = factor.split_at_mut(row_start(i));
    let pivot = factor_row(done, i, &mut work[..=i]);
    let (jitter, p) = accept_pivot(pivot, &work[..i], diag, fixed_jitter)?;
    rest[..i].copy_from_slice(&work[..i]);
    rest[i] = p.sqrt();
    Ok(jitter)
}

/// The jitter and jittered pivot for a factor row whose off-diagonal entries are `row` and
/// Schur complement `pivot` (`diag` the row's diagonal `k(x, x) + σₙ²`): `fixed_jitter` if
/// given, else escalated by [`escalate_jitter`].
fn accept_pivot<R: Real>(
    pivot: R,
    row: &[R],
    diag: R,
    fixed_jitter: Option<R>,
) -> Result<(R, R), GpError> {
    if !pivot.is_finite() || !all_finite(row) {
        return Err(GpError::NotPositiveDefinite);
    }
    match fixed_jitter {
        Some(j) if pivot + j > R::ZERO => Ok((j, pivot + j)),
        Some(_) => Err(GpError::NotPositiveDefinite),
        None => escalate_jitter(pivot, diag),
    }
}

/// `alpha = K_y⁻¹ (y − m)` from the factor of `K_y` (order `y.len()`).
fn solve_alpha<R: Real>(factor: &[R], y: &[R], mean: R, alpha: &mut [R]) {
    let n = y.len();
    for i in 0..n {
        alpha[i] = y[i] - mean;
    }
    solve_lower(factor, n, alpha);
    solve_upper_transposed(factor, n, alpha);
}

/// The posterior at a point from its cross-covariances `v` with the stored observations
/// (overwritten by `L⁻¹v`): mean `m + vᵀα`, latent variance `k(x, x) − ‖L⁻¹v‖²` clamped at 0.
fn posterior_from_cross<R: Real>(
    factor: &[R],
    alpha: &[R],
    mean: R,
    prior_variance: R,
    v: &mut [R],
) -> Prediction<R> {
    let n = v.len();
    let mean = mean + dot(v, &alpha[..n]);
    solve_lower(factor, n, v);
    let variance = (prior_variance - dot(v, v)).max(R::ZERO);
    Prediction { mean, variance }
}

/// The smallest jitter (zero, then `√ε·diag` growing tenfold) that makes `pivot + jitter`
/// safely positive, with the resulting pivot.
fn escalate_jitter<R: Real>(pivot: R, diag: R) -> Result<(R, R), GpError> {
    let tiny = diag * R::EPSILON * R::from_f64(32.0);
    if pivot > tiny {
        return Ok((R::ZERO, pivot));
    }
    let mut jitter = diag * R::EPSILON.sqrt();
    // A subnormal diagonal (a hostile snapshot's outputscale) makes the first jitter zero,
    // and a zero jitter would never grow: refuse instead of looping forever.
    if !diag.is_finite() || jitter <= R::ZERO {
        return Err(GpError::NotPositiveDefinite);
    }
    while jitter <= diag * R::from_f64(MAX_RELATIVE_JITTER) {
        if pivot + jitter > tiny {
            return Ok((jitter, pivot + jitter));
        }
        jitter *= R::from_f64(10.0);
    }
    Err(GpError::NotPositiveDefinite)
}

/// Rows factored side by side by [`Gp`]'s rebuilds: eight independent dot-product chains keep
/// a desktop core's two adders busy (their latency is about four additions), and eight
/// accumulators fit the Cortex-M4F's 32 single-precision registers.
const FACTOR_BLOCK: usize = 8;

/// Kernel values computed together ([`Kernel::eval_lanes`] and its gradient forms): eight
/// `f64` exponentials fill one AVX-512 register, or two AVX2 ones. One on 32-bit Arm, which
/// has no vector registers (the loops are then those of one value at a time).
const LANES: usize = if cfg!(target_arch = "arm") { 1 } else { 8 };

/// `out[j] = k(x, xs[j])` for every `j` (as many as the shorter of `xs` and `out` holds),
/// [`LANES`] at a time, with the bits of one at a time.
#[inline]
///
/// With `profiles` (a stationary kernel's), each value's profile `(φ, dφ/dr²)` is also written
/// there ([`Kernel::profile_lanes`]), for a likelihood gradient to finish without a second
/// exponential ([`lml_gradient`]).
fn covariances<R: Real, const D: usize>(
    kernel: &Kernel<R, D>,
    x: &[R; D],
    xs: &[[R; D]],
    out: &mut [R],
    profiles: Option<(&mut [R], &mut [R])>,
) {
    let m = xs.len().min(out.len());
    let lanes = m - m % LANES;
    if let (Some((vs, dvs)), true) = (profiles, kernel.is_stationary()) {
        let s = kernel.outputscale();
        for (((oc, xc), vc), dc) in out[..m]
            .chunks_mut(LANES)
            .zip(xs[..m].chunks(LANES))
            .zip(vs.chunks_mut(LANES))
            .zip(dvs.chunks_mut(LANES))
        {
            if let Ok(xc) = <&[[R; D]; LANES]>::try_from(xc) {
                let (v, dv) = kernel.profile_lanes(x, xc).expect("stationary");
                vc.copy_from_slice(&v);
                dc.copy_from_slice(&dv);
            } else {
                for ((vt, dt), xj) in vc.iter_mut().zip(dc.iter_mut()).zip(xc) {
                    (*vt, *dt) = kernel.shape().profile(kernel.scaled_sq_dist(x, xj));
                }
            }
            // Kernel::eval's bits: outputscale · φ.
            for (o, v) in oc.iter_mut().zip(vc.iter()) {
                *o = s * *v;
            }
        }
        return;
    }
    for (oc, xc) in out[..lanes]
        .chunks_exact_mut(LANES)
        .zip(xs[..lanes].chunks_exact(LANES))
    {
        oc.copy_from_slice(&kernel.eval_lanes::<LANES>(x, xc.try_into().expect("lanes")));
    }
    for (o, xj) in out[lanes..m].iter_mut().zip(&xs[lanes..m]) {
        *o = kernel.eval(x, xj);
    }
}

/// Points predicted side by side by [`Gp::predict_many`]: eight on a desktop (one AVX-512
/// register of `f64` lanes in the interleaved solve; `8·N` scalars of stack, 16 KiB for 256
/// `f64` points); four on 32-bit Arm (four cross-covariance vectors of capacity `N` on the
/// stack: 1 KiB for a 64-point f32 model on a microcontroller).
pub const PREDICT_BLOCK: usize = if cfg!(target_arch = "arm") { 4 } else { 8 };

/// A stored slot: input, mean outcome, count, spread, jitter.
type Slot<R, const D: usize> = ([R; D], R, u32, R, R);

/// Noise variance of a slot holding `count` observations: `noise / count`, and `noise` itself
/// (not divided by one) for a single observation.
fn merged_noise<R: Real>(noise: R, count: u32) -> R {
    if count == 1 {
        noise
    } else {
        noise / R::from_f64(f64::from(count))
    }
}

fn check_mean_noise<R: Real>(mean: R, noise: R) -> Result<(), GpError> {
    if !mean.is_finite() || !noise.is_finite() {
        return Err(GpError::NonFinite);
    }
    if noise < R::ZERO {
        return Err(GpError::InvalidHyperparameter);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
