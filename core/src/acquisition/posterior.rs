//! The posterior's moments as the acquisitions over a box take them: the mean, the standard
//! deviation with the variance floored, and their gradients. The floor is the acquisition's:
//! LogEI and the Gittins index floor as BoTorch's `_mean_and_sigma` does
//! ([`variance_floor`](super::improvement::variance_floor)), MES as BoTorch's MES does
//! ([`MES_VARIANCE_FLOOR`](super::max_value_entropy::MES_VARIANCE_FLOOR)).

use crate::gp::{Gp, GpError, Prediction, PredictionGradient, PREDICT_BLOCK};
use crate::real::Real;

/// Mean, standard deviation and their gradients at a point.
pub(crate) type Moments<R, const D: usize> = (R, R, [R; D], [R; D]);

/// Mean and standard deviation of a prediction, the variance floored at `floor`.
pub(crate) fn mean_and_std<R: Real>(p: Prediction<R>, floor: R) -> (R, R) {
    (p.mean, p.variance.max(floor).sqrt())
}

/// Mean, standard deviation and their gradients of a prediction, the variance floored at
/// `floor`. Where the floor holds, σ is constant: its gradient is zero.
pub(crate) fn moments_with_gradient<R: Real, const D: usize>(
    p: PredictionGradient<R, D>,
    floor: R,
) -> Option<Moments<R, D>> {
    if p.variance > floor {
        Some((p.mean, p.std, p.d_mean, p.d_std))
    } else {
        Some((p.mean, floor.sqrt(), p.d_mean, [R::ZERO; D]))
    }
}

/// Mean, standard deviation and, if `gradient`, their gradients (zeros otherwise) at `x`, the
/// variance floored at `floor`; `None` where the posterior fails.
pub(crate) fn moments<R: Real, const N: usize, const D: usize, S: AsRef<[R]> + AsMut<[R]>>(
    gp: &Gp<R, N, D, S>,
    x: &[R; D],
    gradient: bool,
    floor: R,
) -> Option<Moments<R, D>> {
    if !gradient {
        let (mean, std) = mean_and_std(gp.predict(x).ok()?, floor);
        return Some((mean, std, [R::ZERO; D], [R::ZERO; D]));
    }
    moments_with_gradient(gp.predict_with_gradient(x).ok()?, floor)
}

/// [`Acquisition::values`](super::Acquisition::values) over the posteriors of
/// [`Gp::predict_many`], a group of up to [`PREDICT_BLOCK`] points at a time (the bits of
/// [`Gp::predict`]): `group(points, moments, out)` gets each point's mean and standard
/// deviation, the variance floored at `floor` (`None` where the posterior fails), and writes
/// its values, `−∞` where there is none.
pub(crate) fn values_from_posterior<R, const N: usize, const D: usize, S>(
    gp: &Gp<R, N, D, S>,
    xs: &[[R; D]],
    out: &mut [R],
    floor: R,
    mut group: impl FnMut(&[[R; D]], [Option<(R, R)>; PREDICT_BLOCK], &mut [R]),
) where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
{
    for (xg, og) in xs.chunks(PREDICT_BLOCK).zip(out.chunks_mut(PREDICT_BLOCK)) {
        let mut p = [Err(GpError::NonFinite); PREDICT_BLOCK];
        gp.predict_many(xg, &mut p);
        group(xg, p.map(|p| p.ok().map(|p| mean_and_std(p, floor))), og);
    }
}
