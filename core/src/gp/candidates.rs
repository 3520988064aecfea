//! The time-varying GP's posterior over a finite candidate set, kept as a Kalman filter:
//! the form for paper 003's grids (1 000 points on [0, 1]) and independent arms.
//!
//! Over candidates `x₁ … x_M` with prior covariance `K`, the Markov model
//! `f_{t+1} = √(1−ε)·f_t + √ε·g_{t+1}` makes each round two steps:
//! 1. *update* (only when the round's outcome was paid for): the rank-one Gaussian
//!    conditioning of `(μ, Σ)` on `y = f(x_j) + noise`;
//! 2. *predict* (every round): `μ ← m + √(1−ε)(μ − m)`, `Σ ← (1−ε)Σ + εK`.
//!
//! Writing `Σ = K − P`, the predict step is `P ← (1−ε)P`: a common factor. The filter keeps
//! `μ − m = a·μ̂` and `P = b·P̂` with scalars `a`, `b`, so a round without feedback costs O(1)
//! (and O(M) to read the posterior), an update O(M²), and the factors are folded back into the
//! stored arrays before they could underflow. The result is the exact posterior of the
//! data-space form ([`TimeVaryingGp`](super::time_varying::TimeVaryingGp)), which the tests
//! check, at a cost that does not grow with the number of observations.
//!
//! The arrays live in caller-provided storage of [`CandidatePosterior::storage_len`]`(M)`
//! elements (a `Vec` on a desktop; `M` is small on a device).

use super::time_varying::{Forgetting, TimeVaryingError};
use super::{GpError, Prediction};
use crate::real::Real;

/// Below this, the scale factors are folded into the stored arrays: far above f32's smallest
/// normal number, and reached only every few hundred rounds at the paper's largest ε.
const FOLD_BELOW: f64 = 1e-6;

/// The posterior of a drifting function over `M` candidates (see the module docs).
#[derive(Debug, Clone)]
pub struct CandidatePosterior<R, S> {
    m: usize,
    storage: S,
    mean: R,
    noise: R,
    forgetting: Forgetting<R>,
    // μ − m = mean_scale·μ̂ and P = reduction_scale·P̂.
    mean_scale: R,
    reduction_scale: R,
    observations: usize,
}

impl<R: Real, S: AsRef<[R]> + AsMut<[R]>> CandidatePosterior<R, S> {
    /// Elements of storage needed for `m` candidates: the prior covariance and the reduction
    /// (`m²` each), the scaled mean and one column of scratch (`m` each).
    pub const fn storage_len(m: usize) -> usize {
        2 * m * m + 2 * m
    }

    /// The prior over `m` candidates: `prior_covariance(i, j)` gives `k(xᵢ, xⱼ)` (it must be
    /// finite and symmetric, with a non-negative diagonal; positive semi-definiteness is the
    /// caller's), `mean` the constant the function reverts to, `noise` the observation noise
    /// variance (> 0 unless every candidate's prior variance is positive), `epsilon` the
    /// forgetting rate.
    pub fn new(
        mut storage: S,
        m: usize,
        prior_covariance: impl Fn(usize, usize) -> R,
        mean: R,
        noise: R,
        epsilon: R,
    ) -> Result<Self, TimeVaryingError> {
        let needed = Self::storage_len(m);
        let got = storage.as_ref().len();
        if got < needed || m == 0 {
            return Err(GpError::StorageTooSmall { needed, got }.into());
        }
        if !mean.is_finite() || !noise.is_finite() {
            return Err(GpError::NonFinite.into());
        }
        if noise < R::ZERO {
            return Err(GpError::InvalidHyperparameter.into());
        }
        let forgetting = Forgetting::new(epsilon)?;
        let s = storage.as_mut();
        for i in 0..m {
            for j in 0..m {
                s[i * m + j] = prior_covariance(i, j);
            }
        }
        for i in 0..m {
            if !(s[i * m + i].is_finite() && s[i * m + i] >= R::ZERO) {
                return Err(GpError::InvalidHyperparameter.into());
            }
            for j in 0..i {
                let (a, b) = (s[i * m + j], s[j * m + i]);
                if !a.is_finite() || a != b {
                    return Err(GpError::InvalidHyperparameter.into());
                }
            }
        }
        let mut posterior = CandidatePosterior {
            m,
            storage,
            mean,
            noise,
            forgetting,
            mean_scale: R::ONE,
            reduction_scale: R::ONE,
            observations: 0,
        };
        posterior.reset();
        Ok(posterior)
    }

    /// Number of candidates `M`.
    pub fn len(&self) -> usize {
        self.m
    }

    /// Always false: a posterior has at least one candidate.
    pub fn is_empty(&self) -> bool {
        self.m == 0
    }

    /// Observations conditioned on since the last [`reset`](Self::reset).
    pub fn observations(&self) -> usize {
        self.observations
    }

    /// The forgetting rate.
    pub fn forgetting(&self) -> Forgetting<R> {
        self.forgetting
    }

    /// Forgets every observation: back to the prior (R-GP-UCB's periodic reset).
    pub fn reset(&mut self) {
        let m = self.m;
        let s = self.storage.as_mut();
        s[m * m..2 * m * m + m]
            .iter_mut()
            .for_each(|v| *v = R::ZERO);
        self.mean_scale = R::ONE;
        self.reduction_scale = R::ONE;
        self.observations = 0;
    }

    /// Posterior mean at candidate `j` (`None` out of range).
    pub fn mean(&self, j: usize) -> Option<R> {
        (j < self.m).then(|| self.mean + self.mean_scale * self.storage.as_ref()[self.mu(j)])
    }

    /// Posterior latent variance (no observation noise) at candidate `j`, clamped at zero.
    pub fn variance(&self, j: usize) -> Option<R> {
        self.covariance(j, j).map(|v| v.max(R::ZERO))
    }

    /// Posterior mean and latent variance at candidate `j`.
    pub fn predict(&self, j: usize) -> Option<Prediction<R>> {
        Some(Prediction {
            mean: self.mean(j)?,
            variance: self.variance(j)?,
        })
    }

    /// Posterior covariance of candidates `i` and `j`.
    pub fn covariance(&self, i: usize, j: usize) -> Option<R> {
        if i >= self.m || j >= self.m {
            return None;
        }
        let s = self.storage.as_ref();
        let m = self.m;
        Some(s[i * m + j] - self.reduction_scale * s[m * m + i * m + j])
    }

    /// Conditions on `y`, a noisy observation of the current round's function at candidate
    /// `j`, in O(M²).
    pub fn observe(&mut self, j: usize, y: R) -> Result<(), TimeVaryingError> {
        if j >= self.m {
            return Err(GpError::LengthMismatch.into());
        }
        if !y.is_finite() {
            return Err(GpError::NonFinite.into());
        }
        let m = self.m;
        let (a, b) = (self.mean_scale, self.reduction_scale);
        let predicted = self.mean(j).unwrap_or(self.mean);
        let s = self.storage.as_mut();
        let (prior, rest) = s.split_at_mut(m * m);
        let (reduction, rest) = rest.split_at_mut(m * m);
        let (mu, column) = rest.split_at_mut(m);
        for i in 0..m {
            column[i] = prior[i * m + j] - b * reduction[i * m + j];
        }
        let total = column[j] + self.noise;
        if !(total > R::ZERO && total.is_finite() && crate::real::all_finite(&column[..m])) {
            return Err(GpError::NotPositiveDefinite.into());
        }
        let gain = (y - predicted) / total;
        let (mean_step, reduction_step) = (gain / a, R::ONE / (total * b));
        for i in 0..m {
            mu[i] += column[i] * mean_step;
            let ci = column[i] * reduction_step;
            for (p, cj) in reduction[i * m..(i + 1) * m].iter_mut().zip(&column[..m]) {
                *p += ci * *cj;
            }
        }
        self.observations += 1;
        Ok(())
    }

    /// Moves to the next round's function: the mean reverts by `√(1−ε)`, the covariance
    /// relaxes toward the prior. O(1) unless the scale factors are folded (O(M²), rarely).
    pub fn advance(&mut self) {
        let keep = self.forgetting.weight(2);
        self.mean_scale *= self.forgetting.weight(1);
        self.reduction_scale *= keep;
        if self.reduction_scale < R::from_f64(FOLD_BELOW) {
            let m = self.m;
            let (a, b) = (self.mean_scale, self.reduction_scale);
            let s = self.storage.as_mut();
            s[m * m..2 * m * m].iter_mut().for_each(|p| *p *= b);
            s[2 * m * m..2 * m * m + m].iter_mut().for_each(|v| *v *= a);
            self.mean_scale = R::ONE;
            self.reduction_scale = R::ONE;
        }
    }

    /// The learned state, borrowed for a snapshot: (mean scale, reduction scale, observations,
    /// scaled mean `μ̂` (M), reduction `P̂` (M², row-major)). The prior and the scratch column
    /// are configuration and workspace.
    #[cfg(feature = "serde")]
    pub(crate) fn learned(&self) -> (R, R, usize, &[R], &[R]) {
        let m = self.m;
        let s = self.storage.as_ref();
        (
            self.mean_scale,
            self.reduction_scale,
            self.observations,
            &s[2 * m * m..2 * m * m + m],
            &s[m * m..2 * m * m],
        )
    }

    /// The learned state, mutably, for restoring a snapshot (see [`Self::learned`]); the caller
    /// validates what it wrote with [`Self::learned_is_valid`] and calls [`Self::reset`] if not.
    #[cfg(feature = "serde")]
    pub(crate) fn learned_mut(&mut self) -> (&mut R, &mut R, &mut usize, &mut [R], &mut [R]) {
        let m = self.m;
        let s = self.storage.as_mut();
        let (_, rest) = s.split_at_mut(m * m);
        let (reduction, rest) = rest.split_at_mut(m * m);
        (
            &mut self.mean_scale,
            &mut self.reduction_scale,
            &mut self.observations,
            &mut rest[..m],
            reduction,
        )
    }

    /// Whether a restored learned state is one the filter can reach: finite values, scale
    /// factors in `[FOLD_BELOW, 1]` (the filter folds them below that), a
    /// reduction whose diagonal lies in `[0, prior variance]` up to rounding, so that the
    /// posterior variances are those of a valid filter. (Symmetry is not checked: the update
    /// adds `(cᵢ·s)·cⱼ` and `(cⱼ·s)·cᵢ`, equal only to rounding.)
    #[cfg(feature = "serde")]
    pub(crate) fn learned_is_valid(&self) -> bool {
        let m = self.m;
        let s = self.storage.as_ref();
        let (a, b) = (self.mean_scale, self.reduction_scale);
        let floor = R::from_f64(FOLD_BELOW);
        let scales_ok = a >= floor && a <= R::ONE && b >= floor && b <= R::ONE;
        if !scales_ok || !crate::real::all_finite(&s[m * m..2 * m * m + m]) {
            return false;
        }
        // Rounding slack for the diagonal: the update accumulates M terms per entry.
        let slack = R::EPSILON.sqrt();
        for i in 0..m {
            let prior = s[i * m + i];
            let reduced = b * s[m * m + i * m + i];
            if !(reduced >= -slack * prior && reduced <= prior * (R::ONE + slack) + slack) {
                return false;
            }
        }
        true
    }

    fn mu(&self, j: usize) -> usize {
        2 * self.m * self.m + j
    }
}
