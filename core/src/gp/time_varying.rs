//! The time-varying GP of TV-GP-UCB (Bogunovic et al. 2016; paper 003): a function that drifts
//! from round to round as `f_{t+1} = √(1−ε)·f_t + √ε·g_{t+1}` with `f₁, g_t ~ GP(m, k)`.
//!
//! That Markov model is a GP over (input, round) with the product kernel
//! `k(x, x')·(1−ε)^{|t−t'|/2}`. A [`TimeVaryingGp`] keeps each observation's round stamp and
//! answers for the function of its *current* round `t` ([`TimeVaryingGp::set_round`]): the
//! observation made at round `h` enters with weight `(1−ε)^{|t−h|/2}`, computed from the
//! difference of rounds so that no `(1−ε)^{−h/2}` ever overflows.
//!
//! Between two observations the train–train block never changes (it depends only on the
//! differences of stamps), so the Cholesky factor grows by one row in O(n²) per observation,
//! exactly as [`Gp`](super::Gp)'s does, and shrinks from the front in O(n²) when the oldest
//! observation is forgotten. A round without feedback needs no state at all: moving the
//! current round on shrinks the mean by `√(1−ε)` and moves the variance toward the prior,
//! `σ²_{t+1} = (1−ε)σ²_t + ε·k(x, x)` (the paper's Lemma 2), because every cross-covariance
//! gains the common factor `√(1−ε)`.
//!
//! ```
//! use costbo_core::gp::time_varying::TimeVaryingGp;
//! use costbo_core::gp::WhenFull;
//! use costbo_core::kernel::Kernel;
//! use costbo_core::linalg::tri_len;
//!
//! let kernel = Kernel::matern32([0.2], 1.0).unwrap();
//! let mut gp: TimeVaryingGp<f64, 8, 1, [f64; tri_len(8)]> =
//!     TimeVaryingGp::new(kernel, 0.0, 0.01, 0.05, WhenFull::DropOldest, [0.0; tri_len(8)])
//!         .unwrap();
//! gp.push(&[0.3], 1.0).unwrap(); // observed at round 0
//! let now = gp.predict(&[0.3]).unwrap();
//! gp.set_round(1).unwrap(); // a round without feedback
//! let next = gp.predict(&[0.3]).unwrap();
//! assert!((next.mean - now.mean * 0.95f64.sqrt()).abs() < 1e-12);
//! assert!((next.variance - (0.95 * now.variance + 0.05)).abs() < 1e-12);
//! ```

use super::{
    append_factor_row, posterior_from_cross, solve_alpha, GpError, Prediction, PredictionGradient,
    WhenFull,
};
use crate::kernel::Kernel;
use crate::linalg::{self, solve_lower, solve_upper_transposed, tri_len};
use crate::real::{all_finite, dot, Real};

/// Why a [`TimeVaryingGp`] (or a [`Forgetting`] rate) refused a request. The model is
/// unchanged whenever one is returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeVaryingError {
    /// The forgetting rate ε was not in `[0, 1)` (ε = 1 would make every round independent
    /// of the last, which the model's factor cannot express).
    Forgetting,
    /// The round counter would pass `u32::MAX`.
    RoundOverflow,
    /// An error of the GP layer (non-finite input, full buffer, singular kernel, ...).
    Gp(GpError),
}

impl core::fmt::Display for TimeVaryingError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Forgetting => f.write_str("the forgetting rate is not in [0, 1)"),
            Self::RoundOverflow => f.write_str("the round counter would pass u32::MAX"),
            Self::Gp(e) => write!(f, "the gp refused: {e}"),
        }
    }
}

impl core::error::Error for TimeVaryingError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            Self::Gp(e) => Some(e),
            Self::Forgetting | Self::RoundOverflow => None,
        }
    }
}

impl From<GpError> for TimeVaryingError {
    fn from(e: GpError) -> Self {
        TimeVaryingError::Gp(e)
    }
}

/// A forgetting rate ε ∈ [0, 1) and the temporal weights `(1−ε)^{Δ/2}` it gives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Forgetting<R> {
    epsilon: R,
    // ln(1−ε)/2, so that a weight is one exp of a product: no power of a number below one is
    // ever raised to a round count that could underflow before it is multiplied out.
    half_log_keep: R,
}

impl<R: Real> Forgetting<R> {
    /// The rate ε; an error unless `0 ≤ ε < 1` and finite.
    pub fn new(epsilon: R) -> Result<Self, TimeVaryingError> {
        if !(epsilon.is_finite() && epsilon >= R::ZERO && epsilon < R::ONE) {
            return Err(TimeVaryingError::Forgetting);
        }
        Ok(Forgetting {
            epsilon,
            half_log_keep: R::HALF * (-epsilon).ln_1p(),
        })
    }

    /// ε.
    pub fn epsilon(&self) -> R {
        self.epsilon
    }

    /// `(1−ε)^{rounds/2}`, the correlation of the function at two rounds `rounds` apart.
    pub fn weight(&self, rounds: u32) -> R {
        if rounds == 0 {
            return R::ONE;
        }
        (self.half_log_keep * R::from_f64(f64::from(rounds))).exp()
    }
}

/// A stored slot: input, mean outcome, round stamp, count, jitter.
type Slot<R, const D: usize> = ([R; D], R, u32, u32, R);

/// A GP over a drifting function, capacity `N`, `D` inputs, packed factor in `S`.
///
/// Observations are stamped with the current round when pushed; predictions are for the
/// function of the current round. Every fallible method returns an error and leaves the model
/// as it was.
#[derive(Debug, Clone)]
pub struct TimeVaryingGp<R, const N: usize, const D: usize, S> {
    kernel: Kernel<R, D>,
    mean: R,
    noise: R,
    forgetting: Forgetting<R>,
    when_full: WhenFull,
    round: u32,
    len: usize,
    x: [[R; D]; N],
    y: [R; N],
    stamp: [u32; N],
    // Observations merged into each slot (1 unless an input was repeated within one round,
    // or in any round when ε = 0); its noise variance is `noise / count`.
    count: [u32; N],
    jitter: [R; N],
    // (K̃ + σ²I)⁻¹ (y − m): independent of the current round, because the current round only
    // enters the cross-covariances.
    alpha: [R; N],
    work: [R; N],
    factor: S,
}

impl<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>>
    TimeVaryingGp<R, N, D, S>
{
    /// An empty model at round 0. `mean` is the constant the function reverts to, `noise` the
    /// observation noise variance (≥ 0), `epsilon` the forgetting rate (`0 ≤ ε < 1`; ε = 0 is
    /// an ordinary GP); `factor` holds at least [`tri_len`]`(N)` elements.
    pub fn new(
        kernel: Kernel<R, D>,
        mean: R,
        noise: R,
        epsilon: R,
        when_full: WhenFull,
        factor: S,
    ) -> Result<Self, TimeVaryingError> {
        let got = factor.as_ref().len();
        if got < tri_len(N) {
            return Err(GpError::StorageTooSmall {
                needed: tri_len(N),
                got,
            }
            .into());
        }
        if !mean.is_finite() || !noise.is_finite() {
            return Err(GpError::NonFinite.into());
        }
        if noise < R::ZERO {
            return Err(GpError::InvalidHyperparameter.into());
        }
        let forgetting = Forgetting::new(epsilon)?;
        Ok(TimeVaryingGp {
            kernel,
            mean,
            noise,
            forgetting,
            when_full,
            round: 0,
            len: 0,
            x: [[R::ZERO; D]; N],
            y: [R::ZERO; N],
            stamp: [0; N],
            count: [1; N],
            jitter: [R::ZERO; N],
            alpha: [R::ZERO; N],
            work: [R::ZERO; N],
            factor,
        })
    }

    /// Number of stored slots: observations, after merging repeats of one latent value (see
    /// [`push`](Self::push)).
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// The spatial kernel.
    pub fn kernel(&self) -> &Kernel<R, D> {
        &self.kernel
    }

    /// The forgetting rate.
    pub fn forgetting(&self) -> Forgetting<R> {
        self.forgetting
    }

    /// The observation noise variance.
    pub fn noise(&self) -> R {
        self.noise
    }

    /// The constant prior mean.
    pub fn prior_mean(&self) -> R {
        self.mean
    }

    /// The current round: the one predictions are for and new observations are stamped with.
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Moves to round `t`. Any round is allowed (the model is symmetric in time), though a
    /// controller only moves forward.
    pub fn set_round(&mut self, t: u32) -> Result<(), TimeVaryingError> {
        self.round = t;
        Ok(())
    }

    /// Moves one round on (a round with or without feedback); an error at `u32::MAX`.
    pub fn advance(&mut self) -> Result<(), TimeVaryingError> {
        self.round = self
            .round
            .checked_add(1)
            .ok_or(TimeVaryingError::RoundOverflow)?;
        Ok(())
    }

    /// Stored inputs, oldest first.
    pub fn inputs(&self) -> &[[R; D]] {
        &self.x[..self.len]
    }

    /// Stored outputs, oldest first.
    pub fn outputs(&self) -> &[R] {
        &self.y[..self.len]
    }

    /// The round each stored observation was made in.
    pub fn stamps(&self) -> &[u32] {
        &self.stamp[..self.len]
    }

    /// Number of observations merged into each slot (1 unless inputs repeated; see
    /// [`push`](Self::push)), oldest first.
    pub fn counts(&self) -> &[u32] {
        &self.count[..self.len]
    }

    /// Adds an observation of the current round's function. When full, follows the
    /// [`WhenFull`] policy (drop-oldest forgets the observation with the oldest stamp, which
    /// is also the least informative about the present).
    ///
    /// An observation whose input equals a stored one exactly, made at a round whose temporal
    /// weight to that one's is exactly 1 (the same round, or any round when ε = 0), is the same
    /// latent value observed again: it is merged into that slot (mean outcome, count `c`,
    /// noise `σ²/c`, the exact posterior of the copies), which moves to the newest position,
    /// as [`Gp`](super::Gp) does. Without the merge each copy would be a singular row whose
    /// jitter swamps a small noise in `f32`. Repeats in rounds the model tells apart (ε > 0)
    /// are distinct observations of a drifting function and keep their own slots.
    pub fn push(&mut self, x: &[R; D], y: R) -> Result<(), TimeVaryingError> {
        if !all_finite(x) || !y.is_finite() {
            return Err(GpError::NonFinite.into());
        }
        if let Some(j) = self.same_latent(x) {
            return self.merge_into(j, y);
        }
        if self.len == N {
            match self.when_full {
                WhenFull::Reject => return Err(GpError::Full.into()),
                WhenFull::DropOldest => {
                    let saved = (
                        self.x[0],
                        self.y[0],
                        self.stamp[0],
                        self.count[0],
                        self.jitter[0],
                    );
                    self.remove_oldest()?;
                    if let Err(e) = self.push_unchecked(x, y) {
                        self.restore_front(saved);
                        return Err(e);
                    }
                    return Ok(());
                }
            }
        }
        self.push_unchecked(x, y)
    }

    /// Forgets the oldest observation in O(n²).
    pub fn remove_oldest(&mut self) -> Result<(), TimeVaryingError> {
        if self.len == 0 {
            return Err(GpError::NoData.into());
        }
        let n = self.len;
        linalg::remove_first(self.factor.as_mut(), n, &mut self.work);
        self.x.copy_within(1..n, 0);
        self.y.copy_within(1..n, 0);
        self.stamp.copy_within(1..n, 0);
        self.count.copy_within(1..n, 0);
        self.jitter.copy_within(1..n, 0);
        self.len = n - 1;
        self.update_alpha();
        Ok(())
    }

    /// Forgets every observation (R-GP-UCB's periodic reset); the round stays.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Posterior mean and latent variance (no observation noise) of the current round's
    /// function at `x`.
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
            self.kernel.outputscale(),
            &mut v[..n],
        ))
    }

    /// Posterior covariance of the current round's function at `a` and `b`.
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

    /// Mean, variance, standard deviation and their input gradients at `x` (the temporal
    /// weights do not depend on `x`, so they scale each term of [`Gp`](super::Gp)'s formulas).
    pub fn predict_with_gradient(&self, x: &[R; D]) -> Result<PredictionGradient<R, D>, GpError> {
        if !all_finite(x) {
            return Err(GpError::NonFinite);
        }
        let n = self.len;
        let l = self.factor.as_ref();
        let mut v = [R::ZERO; N];
        self.cross_covariance(x, &mut v[..n]);
        let mean = self.mean + dot(&v[..n], &self.alpha[..n]);
        solve_lower(l, n, &mut v);
        let variance = (self.kernel.outputscale() - dot(&v[..n], &v[..n])).max(R::ZERO);
        solve_upper_transposed(l, n, &mut v);
        let mut d_mean = [R::ZERO; D];
        let mut d_var = [R::ZERO; D];
        let mut g = [R::ZERO; D];
        for (j, vj) in v[..n].iter().enumerate() {
            let w = self.weight_to_now(j);
            self.kernel.eval_with_grad(x, &self.x[j], &mut g);
            for i in 0..D {
                d_mean[i] += self.alpha[j] * w * g[i];
                d_var[i] -= R::TWO * *vj * w * g[i];
            }
        }
        Ok(PredictionGradient::from_variance(
            mean, variance, d_mean, d_var,
        ))
    }

    fn weight_to_now(&self, j: usize) -> R {
        self.forgetting.weight(self.round.abs_diff(self.stamp[j]))
    }

    fn cross_covariance(&self, x: &[R; D], out: &mut [R]) {
        for (j, o) in out.iter_mut().enumerate() {
            *o = self.kernel.eval(x, &self.x[j]) * self.weight_to_now(j);
        }
    }

    /// The slot holding the same latent value as `x` at the current round (see
    /// [`push`](Self::push)).
    fn same_latent(&self, x: &[R; D]) -> Option<usize> {
        (0..self.len).find(|&j| self.x[j] == *x && self.weight_to_now(j) >= R::ONE)
    }

    /// Merges one observation `y` into slot `j`, which moves to the newest position with the
    /// current round's stamp (its weight to the old stamp is 1, so nothing else changes): the
    /// slot is removed from the factor (a stable rank-one update) and appended again with its
    /// smaller noise, O(n²) in all.
    fn merge_into(&mut self, j: usize, y: R) -> Result<(), TimeVaryingError> {
        let saved = (
            self.x[j],
            self.y[j],
            self.stamp[j],
            self.count[j],
            self.jitter[j],
        );
        let total = saved.3.checked_add(1).ok_or(GpError::Full)?;
        let merged_y = saved.1 + (y - saved.1) / R::from_f64(f64::from(total));
        if !merged_y.is_finite() {
            return Err(GpError::NonFinite.into());
        }
        let n = self.len;
        if j + 1 < n {
            linalg::remove_row(self.factor.as_mut(), n, j, &mut self.work);
            self.x.copy_within(j + 1..n, j);
            self.y.copy_within(j + 1..n, j);
            self.stamp.copy_within(j + 1..n, j);
            self.count.copy_within(j + 1..n, j);
            self.jitter.copy_within(j + 1..n, j);
        }
        self.len = n - 1;
        if let Err(e) = self.push_counted(&saved.0, merged_y, total) {
            self.restore_slot(j, saved);
            return Err(e);
        }
        Ok(())
    }

    fn push_unchecked(&mut self, x: &[R; D], y: R) -> Result<(), TimeVaryingError> {
        self.push_counted(x, y, 1)
    }

    fn push_counted(&mut self, x: &[R; D], y: R, count: u32) -> Result<(), TimeVaryingError> {
        let i = self.len;
        self.x[i] = *x;
        self.y[i] = y;
        self.stamp[i] = self.round;
        self.count[i] = count;
        self.extend_factor(i, None)?;
        self.len = i + 1;
        self.update_alpha();
        Ok(())
    }

    fn restore_front(&mut self, saved: Slot<R, D>) {
        self.restore_slot(0, saved);
    }

    /// Re-inserts a slot at position `i` after a failed replacement or merge (a rare error
    /// path) and refactors with the stored jitters, which factorised this state before.
    fn restore_slot(&mut self, i: usize, saved: Slot<R, D>) {
        let n = self.len;
        self.x.copy_within(i..n, i + 1);
        self.y.copy_within(i..n, i + 1);
        self.stamp.copy_within(i..n, i + 1);
        self.count.copy_within(i..n, i + 1);
        self.jitter.copy_within(i..n, i + 1);
        (
            self.x[i],
            self.y[i],
            self.stamp[i],
            self.count[i],
            self.jitter[i],
        ) = saved;
        self.len = n + 1;
        // The restored state factorised before with these jitters.
        for i in 0..self.len {
            let _ = self.extend_factor(i, Some(self.jitter[i]));
        }
        self.update_alpha();
    }

    /// Appends row `i` of `K̃ + σ²I` to a factor of order `i` (the GP's row, each entry
    /// weighted by the two observations' temporal correlation).
    fn extend_factor(&mut self, i: usize, fixed_jitter: Option<R>) -> Result<(), GpError> {
        let (xi, hi) = (self.x[i], self.stamp[i]);
        for j in 0..i {
            self.work[j] = self.kernel.eval(&xi, &self.x[j])
                * self.forgetting.weight(hi.abs_diff(self.stamp[j]));
        }
        self.work[i] = self.kernel.outputscale() + super::merged_noise(self.noise, self.count[i]);
        self.jitter[i] = append_factor_row(self.factor.as_mut(), &mut self.work, i, fixed_jitter)?;
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

impl<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>> super::Posterior<R, D>
    for TimeVaryingGp<R, N, D, S>
{
    fn predict(&self, x: &[R; D]) -> Result<Prediction<R>, GpError> {
        TimeVaryingGp::predict(self, x)
    }
    fn predict_with_gradient(&self, x: &[R; D]) -> Result<PredictionGradient<R, D>, GpError> {
        TimeVaryingGp::predict_with_gradient(self, x)
    }
}
