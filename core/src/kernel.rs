//! Stationary covariance functions with one lengthscale per input dimension (ARD).
//!
//! Both kernels are functions of the scaled squared distance
//! `r² = Σᵢ ((aᵢ − bᵢ) / ℓᵢ)²`: `k(a, b) = s · φ(r²)` with outputscale `s`. Writing every
//! derivative through `φ'(r²)` keeps the input gradient, the lengthscale gradient and the
//! closed-form expectations of later layers consistent with one another.

use crate::real::Real;

/// The shape `φ` of a stationary kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Squared exponential (RBF): `φ(r²) = exp(−r²/2)`.
    SquaredExponential,
    /// Matérn with smoothness 5/2: `φ = (1 + √5 r + 5r²/3) exp(−√5 r)`.
    Matern52,
    /// Matérn with smoothness 3/2: `φ = (1 + √3 r) exp(−√3 r)` (paper 003's synthetic study).
    /// Once differentiable; `dφ/dr² = −(3/2) e^{−√3 r}` stays finite at `r = 0`.
    Matern32,
}

impl Shape {
    /// `(φ(r²), dφ/d(r²))`.
    #[inline]
    pub fn profile<R: Real>(self, r2: R) -> (R, R) {
        match self {
            Shape::SquaredExponential => {
                let v = (-R::HALF * r2).exp();
                (v, -R::HALF * v)
            }
            Shape::Matern52 => {
                let sqrt5 = R::from_f64(2.236_067_977_499_79);
                let r = r2.sqrt();
                let e = (-sqrt5 * r).exp();
                let lin = R::ONE + sqrt5 * r;
                let v = (lin + R::from_f64(5.0 / 3.0) * r2) * e;
                // dφ/dr = −(5/3) r (1 + √5 r) e^{−√5 r}; divided by dr²/dr = 2r it stays
                // finite at r = 0, so the gradient is smooth at the training points.
                (v, R::from_f64(-5.0 / 6.0) * lin * e)
            }
            Shape::Matern32 => {
                let sqrt3 = R::from_f64(1.732_050_807_568_877_2);
                let r = r2.sqrt();
                let e = (-sqrt3 * r).exp();
                let v = (R::ONE + sqrt3 * r) * e;
                // dφ/dr = −3 r e^{−√3 r}, so dφ/dr² = −(3/2) e^{−√3 r}: finite at r = 0 too.
                (v, R::from_f64(-1.5) * e)
            }
        }
    }
}

/// Why a kernel could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelError {
    /// A lengthscale was not a positive finite number.
    Lengthscale,
    /// The outputscale was not a positive finite number.
    Outputscale,
}

/// A stationary ARD kernel over `D` inputs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Kernel<R, const D: usize> {
    shape: Shape,
    lengthscales: [R; D],
    // 1/ℓᵢ², cached because every kernel evaluation needs it.
    inv_sq: [R; D],
    outputscale: R,
}

impl<R: Real, const D: usize> Kernel<R, D> {
    /// A kernel of the given shape; every lengthscale and the outputscale must be positive and
    /// finite.
    pub fn new(shape: Shape, lengthscales: [R; D], outputscale: R) -> Result<Self, KernelError> {
        if !lengthscales.iter().all(|l| l.is_finite() && *l > R::ZERO) {
            return Err(KernelError::Lengthscale);
        }
        if !(outputscale.is_finite() && outputscale > R::ZERO) {
            return Err(KernelError::Outputscale);
        }
        let inv_sq = core::array::from_fn(|i| R::ONE / lengthscales[i].sq());
        if !inv_sq.iter().all(|v: &R| v.is_finite() && *v > R::ZERO) {
            return Err(KernelError::Lengthscale);
        }
        Ok(Kernel {
            shape,
            lengthscales,
            inv_sq,
            outputscale,
        })
    }

    /// Squared exponential kernel.
    pub fn squared_exponential(lengthscales: [R; D], outputscale: R) -> Result<Self, KernelError> {
        Self::new(Shape::SquaredExponential, lengthscales, outputscale)
    }

    /// Matérn-5/2 kernel.
    pub fn matern52(lengthscales: [R; D], outputscale: R) -> Result<Self, KernelError> {
        Self::new(Shape::Matern52, lengthscales, outputscale)
    }

    /// Matérn-3/2 kernel.
    pub fn matern32(lengthscales: [R; D], outputscale: R) -> Result<Self, KernelError> {
        Self::new(Shape::Matern32, lengthscales, outputscale)
    }

    /// The kernel's shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Lengthscales, one per input.
    pub fn lengthscales(&self) -> &[R; D] {
        &self.lengthscales
    }

    /// Outputscale `s = k(x, x)`.
    pub fn outputscale(&self) -> R {
        self.outputscale
    }

    /// `1/ℓᵢ²`, the weight of coordinate `i` in [`scaled_sq_dist`](Self::scaled_sq_dist).
    pub fn inverse_squared_lengthscales(&self) -> &[R; D] {
        &self.inv_sq
    }

    /// Scaled squared distance `r²`.
    #[inline]
    pub fn scaled_sq_dist(&self, a: &[R; D], b: &[R; D]) -> R {
        self.scaled_sq_dist_over(a, b, |_| true)
    }

    /// The part of `r²` from the coordinates `i` with `include(i)`: the squared exponential
    /// factorises over such parts (controlled and uncontrolled variables).
    #[inline]
    pub fn scaled_sq_dist_over(
        &self,
        a: &[R; D],
        b: &[R; D],
        include: impl Fn(usize) -> bool,
    ) -> R {
        let mut r2 = R::ZERO;
        for i in 0..D {
            if include(i) {
                r2 += (a[i] - b[i]).sq() * self.inv_sq[i];
            }
        }
        r2
    }

    /// `k(a, b)`.
    #[inline]
    pub fn eval(&self, a: &[R; D], b: &[R; D]) -> R {
        self.outputscale * self.shape.profile(self.scaled_sq_dist(a, b)).0
    }

    /// `k(a, b)` and its gradient with respect to `a`, written to `grad`.
    #[inline]
    pub fn eval_with_grad(&self, a: &[R; D], b: &[R; D], grad: &mut [R; D]) -> R {
        let (v, dv) = self.shape.profile(self.scaled_sq_dist(a, b));
        // ∂r²/∂aᵢ = 2 (aᵢ − bᵢ)/ℓᵢ²
        let f = self.outputscale * dv * R::TWO;
        for i in 0..D {
            grad[i] = f * (a[i] - b[i]) * self.inv_sq[i];
        }
        self.outputscale * v
    }

    /// `k(a, b)` and its gradient with respect to the log lengthscales, written to `grad`.
    /// (The gradient with respect to the log outputscale is `k(a, b)` itself.)
    #[inline]
    pub fn eval_with_lengthscale_grad(&self, a: &[R; D], b: &[R; D], grad: &mut [R; D]) -> R {
        let (v, dv) = self.shape.profile(self.scaled_sq_dist(a, b));
        // ∂r²/∂ln ℓᵢ = −2 (aᵢ − bᵢ)²/ℓᵢ²
        let f = -R::TWO * self.outputscale * dv;
        for i in 0..D {
            grad[i] = f * (a[i] - b[i]).sq() * self.inv_sq[i];
        }
        self.outputscale * v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_forms() {
        let k = Kernel::squared_exponential([0.5, 2.0], 1.5).unwrap();
        let v = k.eval(&[0.1, 0.2], &[0.4, -0.2]);
        let r2 = (0.3f64 / 0.5).powi(2) + (0.4f64 / 2.0).powi(2);
        assert!((v - 1.5 * (-0.5 * r2).exp()).abs() < 1e-15);
        let m = Kernel::matern52([0.5, 2.0], 1.5).unwrap();
        let r = r2.sqrt();
        let want = 1.5 * (1.0 + 5f64.sqrt() * r + 5.0 * r2 / 3.0) * (-(5f64.sqrt()) * r).exp();
        assert!((m.eval(&[0.1, 0.2], &[0.4, -0.2]) - want).abs() < 1e-15);
        assert_eq!(m.eval(&[0.3, 0.3], &[0.3, 0.3]), 1.5);
    }

    #[test]
    fn gradients_match_finite_differences() {
        for shape in [Shape::SquaredExponential, Shape::Matern52] {
            let ls = [0.3, 0.8, 1.7];
            let k = Kernel::new(shape, ls, 2.0).unwrap();
            let a = [0.2, 0.9, 0.4];
            let b = [0.5, 0.1, 0.45];
            let mut g = [0.0; 3];
            k.eval_with_grad(&a, &b, &mut g);
            let mut gl = [0.0; 3];
            k.eval_with_lengthscale_grad(&a, &b, &mut gl);
            let h = 1e-6;
            for i in 0..3 {
                let (mut ap, mut am) = (a, a);
                ap[i] += h;
                am[i] -= h;
                let fd = (k.eval(&ap, &b) - k.eval(&am, &b)) / (2.0 * h);
                assert!((fd - g[i]).abs() < 1e-8, "{shape:?} x{i}: {fd} vs {}", g[i]);
                let (mut lp, mut lm) = (ls, ls);
                lp[i] *= h.exp();
                lm[i] *= (-h).exp();
                let kp = Kernel::new(shape, lp, 2.0).unwrap().eval(&a, &b);
                let km = Kernel::new(shape, lm, 2.0).unwrap().eval(&a, &b);
                let fd = (kp - km) / (2.0 * h);
                assert!(
                    (fd - gl[i]).abs() < 1e-8,
                    "{shape:?} l{i}: {fd} vs {}",
                    gl[i]
                );
            }
        }
    }

    #[test]
    fn invalid_parameters_are_rejected() {
        assert_eq!(
            Kernel::squared_exponential([0.0], 1.0),
            Err(KernelError::Lengthscale)
        );
        assert_eq!(
            Kernel::squared_exponential([f64::NAN], 1.0),
            Err(KernelError::Lengthscale)
        );
        assert_eq!(Kernel::matern52([1.0], -1.0), Err(KernelError::Outputscale));
        assert_eq!(
            Kernel::matern52([1e-30f32], 1.0),
            Err(KernelError::Lengthscale)
        );
    }
}
