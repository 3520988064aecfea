//! The 16-point Gauss–Legendre rule, exact to rounding for the smooth, short integrands the
//! truncated normal meets (see `dist::truncated_normal`).

use crate::real::Real;

/// Positive nodes and weights of the 16-point Gauss–Legendre rule on `[−1, 1]` (computed with
/// mpmath at 50 digits and rounded to `f64`).
const GAUSS_LEGENDRE_16: [(f64, f64); 8] = [
    (0.9894009349916499, 0.027152459411754096),
    (0.9445750230732326, 0.062253523938647894),
    (0.8656312023878318, 0.09515851168249279),
    (0.755404408355003, 0.12462897125553388),
    (0.6178762444026438, 0.14959598881657674),
    (0.45801677765722737, 0.16915651939500254),
    (0.2816035507792589, 0.18260341504492358),
    (0.09501250983763744, 0.1894506104550685),
];

/// The 16 Gauss–Legendre nodes and weights mapped to `[x0, x0 + w]`.
pub(crate) fn gauss_legendre<R: Real>(x0: R, w: R) -> [(R, R); 16] {
    let h = R::HALF * w;
    let mut out = [(R::ZERO, R::ZERO); 16];
    for (i, &(t, wt)) in GAUSS_LEGENDRE_16.iter().enumerate() {
        let t = R::from_f64(t);
        let q = h * R::from_f64(wt);
        out[2 * i] = (x0 + h * (R::ONE - t), q);
        out[2 * i + 1] = (x0 + h * (R::ONE + t), q);
    }
    out
}
