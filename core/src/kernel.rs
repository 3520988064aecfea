//! Stationary covariance functions with one lengthscale per input dimension (ARD), optionally
//! modulated by an amplitude.
//!
//! Both kernels are functions of the scaled squared distance
//! `r² = Σᵢ ((aᵢ − bᵢ) / ℓᵢ)²`: `k(a, b) = s · φ(r²)` with outputscale `s`. Writing every
//! derivative through `φ'(r²)` keeps the input gradient, the lengthscale gradient and the
//! closed-form expectations of later layers consistent with one another.
//!
//! **Amplitude.** [`Kernel::with_amplitude`] wraps the stationary kernel `k_s` in a positive
//! variance profile `a(x)`: `k(x, x') = √(a(x)·a(x'))·k_s(x, x')`, so that the prior variance at
//! `x` is `a(x)·s` while correlations are those of `k_s` (a GP with this kernel is `√a·g` with
//! `g ~ GP(0, k_s)`). It is positive semi-definite because it is `D k_s D` with `D` diagonal.
//! This is paper 002's non-stationary prior of its 1-D constructions (Figs. 2 and 9, after
//! Astudillo et al. 2021, §A). The amplitude lives inside [`Kernel`] rather than in a second
//! kernel type because the GP and every layer above it take this one type; without an
//! amplitude every value is computed bit for bit as by a plain stationary kernel.
//!
//! What honours the amplitude: [`Kernel::eval`], its gradients and [`Kernel::diagonal`], hence
//! the GP's posterior, its gradients, its log marginal likelihood and fits (the amplitude is
//! fixed; only `ℓ` and `s` are fitted). What does not: the closed-form expectations of the
//! squared exponential (`expectation`, `acquisition::expected_path`, the factorised evaluator
//! of `expectation::batch`) refuse a modulated kernel as they refuse other shapes; the batched
//! expected bounds of `expectation::batch`, Thompson sample paths (`thompson`), the
//! time-varying GP (`gp::time_varying`), the measurement rule's prior variance and snapshots
//! read only the stationary part — do not give them one.

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

    /// [`profile`](Self::profile) of every lane, with its bits lane by lane: the same steps,
    /// lane-wise, with the exponentials by [`Real::exp_lanes`] (which shares vector
    /// instructions among the lanes on a desktop).
    #[inline(always)]
    pub fn profile_lanes<R: Real, const B: usize>(self, r2: [R; B]) -> ([R; B], [R; B]) {
        match self {
            Shape::SquaredExponential => {
                let v = R::exp_lanes(r2.map(|r2| -R::HALF * r2));
                (v, v.map(|v| -R::HALF * v))
            }
            Shape::Matern52 => {
                let sqrt5 = R::from_f64(2.236_067_977_499_79);
                let r = r2.map(R::sqrt);
                let e = R::exp_lanes(r.map(|r| -sqrt5 * r));
                let lin = r.map(|r| R::ONE + sqrt5 * r);
                let v = core::array::from_fn(|t| (lin[t] + R::from_f64(5.0 / 3.0) * r2[t]) * e[t]);
                let dv = core::array::from_fn(|t| R::from_f64(-5.0 / 6.0) * lin[t] * e[t]);
                (v, dv)
            }
            Shape::Matern32 => {
                let sqrt3 = R::from_f64(1.732_050_807_568_877_2);
                let r = r2.map(R::sqrt);
                let e = R::exp_lanes(r.map(|r| -sqrt3 * r));
                let v = core::array::from_fn(|t| (R::ONE + sqrt3 * r[t]) * e[t]);
                (v, e.map(|e| R::from_f64(-1.5) * e))
            }
        }
    }
}

/// A variance profile `a(x) > 0` and its gradient, `x ↦ (a(x), ∇a(x))`, modulating a
/// stationary kernel (see the module documentation). A plain function pointer, so the kernel
/// stays `Copy`, allocation-free and usable on a microcontroller. `a` must be positive and
/// finite wherever the kernel is evaluated; a non-positive or non-finite value makes kernel
/// values non-finite, which the GP reports as an error (it never panics).
#[derive(Clone, Copy)]
pub struct Amplitude<R, const D: usize>(pub fn(&[R; D]) -> (R, [R; D]));

impl<R, const D: usize> core::fmt::Debug for Amplitude<R, D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Amplitude(fn)")
    }
}

impl<R, const D: usize> PartialEq for Amplitude<R, D> {
    /// The same function (by address: two copies of one function may compare unequal, which
    /// only costs a refactor where equality is used to skip one).
    fn eq(&self, other: &Self) -> bool {
        core::ptr::fn_addr_eq(self.0, other.0)
    }
}

// The modulated kernel's arithmetic, kept out of line: the stationary kernels (every rule but
// paper 002's 1-D constructions) then inline a kernel evaluation as small as a plain
// stationary one (the branch inlined with it cost 9 % more instructions a decision on the
// Cortex-M4F; docs/embedded.md).
impl<R: Real, const D: usize> Amplitude<R, D> {
    /// `√(a(x)a(x'))`.
    #[cold]
    #[inline(never)]
    fn modulation(self, x: &[R; D], y: &[R; D]) -> R {
        ((self.0)(x).0 * (self.0)(y).0).sqrt()
    }

    /// `k = m(x)m(y)·k_s` with `m = √a`, given `k_s` and `∇ₓk_s` in `grad`, which becomes
    /// `∇ₓk = m(x)m(y)(∇ₓk_s + k_s·∇a(x)/(2a(x)))`.
    #[cold]
    #[inline(never)]
    fn modulate_with_grad(self, x: &[R; D], y: &[R; D], k: R, grad: &mut [R; D]) -> R {
        let ((va, da), vb) = ((self.0)(x), (self.0)(y).0);
        let m = (va * vb).sqrt();
        for i in 0..D {
            grad[i] = m * (grad[i] + k * da[i] / (R::TWO * va));
        }
        m * k
    }

    /// `m·s·v` with `m = √(a(x)a(y))`, scaling the lengthscale gradient in `grad` by `m`.
    #[cold]
    #[inline(never)]
    fn scale_lengthscale_grad(self, x: &[R; D], y: &[R; D], s: R, v: R, grad: &mut [R; D]) -> R {
        let m = self.modulation(x, y);
        for g in grad.iter_mut() {
            *g *= m;
        }
        m * s * v
    }

    /// `s·a(x)`, and `s·∇a(x)` in `grad`.
    #[cold]
    #[inline(never)]
    fn diagonal_with_grad(self, s: R, x: &[R; D], grad: &mut [R; D]) -> R {
        let (v, dv) = (self.0)(x);
        for i in 0..D {
            grad[i] = s * dv[i];
        }
        s * v
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

impl core::fmt::Display for KernelError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Self::Lengthscale => "a lengthscale is not a positive finite number",
            Self::Outputscale => "the outputscale is not a positive finite number",
        })
    }
}

impl core::error::Error for KernelError {}

/// A stationary ARD kernel over `D` inputs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Kernel<R, const D: usize> {
    shape: Shape,
    lengthscales: [R; D],
    // 1/ℓᵢ², cached because every kernel evaluation needs it.
    inv_sq: [R; D],
    outputscale: R,
    amplitude: Option<Amplitude<R, D>>,
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
            amplitude: None,
        })
    }

    /// The same kernel modulated by `amplitude`: `k(x, x') = √(a(x)a(x'))·k_s(x, x')`
    /// (replacing any amplitude it had).
    pub fn with_amplitude(mut self, amplitude: Amplitude<R, D>) -> Self {
        self.amplitude = Some(amplitude);
        self
    }

    /// The amplitude, if the kernel is modulated.
    pub fn amplitude(&self) -> Option<Amplitude<R, D>> {
        self.amplitude
    }

    /// True when the kernel has no amplitude, i.e. is a function of `x − x'` only.
    pub fn is_stationary(&self) -> bool {
        self.amplitude.is_none()
    }

    /// The prior variance `k(x, x)`: the outputscale, times `a(x)` when modulated.
    #[inline]
    pub fn diagonal(&self, x: &[R; D]) -> R {
        match self.amplitude {
            None => self.outputscale,
            Some(Amplitude(a)) => self.outputscale * a(x).0,
        }
    }

    /// `k(x, x)` and its gradient in `x` (zero unless modulated: `s·∇a(x)`), written to `grad`.
    #[inline]
    pub fn diagonal_with_grad(&self, x: &[R; D], grad: &mut [R; D]) -> R {
        match self.amplitude {
            None => {
                *grad = [R::ZERO; D];
                self.outputscale
            }
            Some(amp) => amp.diagonal_with_grad(self.outputscale, x, grad),
        }
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

    /// The same kernel blind to inputs `from..D`: their lengthscale is `+∞` and their weight
    /// `1/ℓ²` exactly 0, so they add exactly nothing to any distance, kernel value or gradient,
    /// whatever their values. A problem of `d` variables then runs on a kernel of `D > d`
    /// inputs and makes the decisions of one of `d` wherever its rule draws nothing per input
    /// (the desktop adapter's wider sizes). A fit of a model on this kernel keeps them
    /// ignored.
    pub fn ignoring_inputs_from(mut self, from: usize) -> Self {
        for l in from..D {
            self.lengthscales[l] = R::INFINITY;
            self.inv_sq[l] = R::ZERO;
        }
        self
    }

    /// How many inputs the kernel sees: `D` but for those
    /// [`ignoring_inputs_from`](Self::ignoring_inputs_from) made it blind to. The dimension
    /// of the problem for the rules whose settings grow with it.
    pub fn inputs_seen(&self) -> usize {
        self.inv_sq.iter().filter(|w| **w > R::ZERO).count()
    }

    /// The kernel's shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Lengthscales, one per input.
    pub fn lengthscales(&self) -> &[R; D] {
        &self.lengthscales
    }

    /// Outputscale `s` (`= k(x, x)` when stationary; see [`diagonal`](Self::diagonal)).
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
    // Always inlined: it sits in every O(n) loop over the observations, and a call per pair
    // cost the Cortex-M4F 9 % more instructions a decision when the amplitude's branch made
    // it look too big to inline (docs/embedded.md).
    #[inline(always)]
    pub fn eval(&self, a: &[R; D], b: &[R; D]) -> R {
        let k = self.outputscale * self.shape.profile(self.scaled_sq_dist(a, b)).0;
        match self.amplitude {
            None => k,
            Some(amp) => amp.modulation(a, b) * k,
        }
    }

    /// `k(a, b)` and its gradient with respect to `a`, written to `grad` (with an amplitude,
    /// `∇ₐk = √(a(a)a(b))·(∇ₐk_s + k_s·∇a(a)/(2a(a)))`).
    #[inline]
    pub fn eval_with_grad(&self, a: &[R; D], b: &[R; D], grad: &mut [R; D]) -> R {
        let (v, dv) = self.shape.profile(self.scaled_sq_dist(a, b));
        let k = self.input_grad_from_profile(a, b, v, dv, grad);
        match self.amplitude {
            None => k,
            Some(amp) => amp.modulate_with_grad(a, b, k, grad),
        }
    }

    /// The stationary part of [`eval_with_grad`](Self::eval_with_grad) from the profile
    /// `(v, dv)` at `r²(a, b)`: `outputscale·v`, and its gradient in `a` written to `grad`.
    #[inline(always)]
    fn input_grad_from_profile(&self, a: &[R; D], b: &[R; D], v: R, dv: R, grad: &mut [R; D]) -> R {
        // ∂r²/∂aᵢ = 2 (aᵢ − bᵢ)/ℓᵢ²
        let f = self.outputscale * dv * R::TWO;
        for i in 0..D {
            grad[i] = f * (a[i] - b[i]) * self.inv_sq[i];
        }
        self.outputscale * v
    }

    /// [`eval`](Self::eval)`(a, b)` for each `b` of `bs`, with its bits, the lanes computed
    /// together ([`Shape::profile_lanes`]). `k(b, a)` has the same bits as `k(a, b)`.
    #[inline(always)]
    pub fn eval_lanes<const B: usize>(&self, a: &[R; D], bs: &[[R; D]; B]) -> [R; B] {
        match self.profile_lanes(a, bs) {
            Some((v, _)) => v.map(|v| self.outputscale * v),
            None => core::array::from_fn(|t| self.eval(a, &bs[t])),
        }
    }

    /// [`eval_with_grad`](Self::eval_with_grad)`(a, b, grad)` for each `b` of `bs` and matching
    /// `grad` of `grads`, with its bits, the lanes computed together.
    #[inline(always)]
    pub fn eval_with_grad_lanes<const B: usize>(
        &self,
        a: &[R; D],
        bs: &[[R; D]; B],
        grads: &mut [[R; D]; B],
    ) -> [R; B] {
        let Some((v, dv)) = self.profile_lanes(a, bs) else {
            return core::array::from_fn(|t| self.eval_with_grad(a, &bs[t], &mut grads[t]));
        };
        core::array::from_fn(|t| {
            self.input_grad_from_profile(a, &bs[t], v[t], dv[t], &mut grads[t])
        })
    }

    /// For each `a` of `as_`: `k(a, b)` and the factor `f` of its input gradient,
    /// `∂k/∂aᵢ = f·(aᵢ − bᵢ)/ℓᵢ²`, with the bits [`eval_with_grad`](Self::eval_with_grad)
    /// computes them with (its gradient is `f * (a[i] - b[i]) * inv_sq[i]`). Stationary
    /// kernels only (`None` with an amplitude). The lanes are computed together.
    #[inline(always)]
    pub fn eval_with_grad_factor_lanes<const B: usize>(
        &self,
        as_: &[[R; D]; B],
        b: &[R; D],
    ) -> Option<([R; B], [R; B])> {
        if self.amplitude.is_some() {
            return None;
        }
        let r2 = core::array::from_fn(|t| self.scaled_sq_dist(&as_[t], b));
        let (v, dv) = self.shape.profile_lanes(r2);
        Some((
            v.map(|v| self.outputscale * v),
            dv.map(|dv| self.outputscale * dv * R::TWO),
        ))
    }

    /// [`eval_with_lengthscale_grad`](Self::eval_with_lengthscale_grad)`(a, b, grad)` for each
    /// `b` of `bs` and matching `grad` of `grads`, with its bits, the lanes computed together.
    #[inline(always)]
    pub fn eval_with_lengthscale_grad_lanes<const B: usize>(
        &self,
        a: &[R; D],
        bs: &[[R; D]; B],
        grads: &mut [[R; D]; B],
    ) -> [R; B] {
        let Some((v, dv)) = self.profile_lanes(a, bs) else {
            return core::array::from_fn(|t| {
                self.eval_with_lengthscale_grad(a, &bs[t], &mut grads[t])
            });
        };
        core::array::from_fn(|t| {
            self.lengthscale_grad_from_profile(a, &bs[t], v[t], dv[t], &mut grads[t])
        })
    }

    /// The shape's profile `(φ(r²), dφ/d(r²))` at `r²(a, b)` for each `b` of `bs`, the lanes
    /// computed together: what [`eval`](Self::eval) (`outputscale·φ`) and
    /// [`lengthscale_grad_from_profile`](Self::lengthscale_grad_from_profile) are made of, so
    /// that a caller can keep it and finish either later with the same bits. `None` with an
    /// amplitude.
    #[inline(always)]
    pub fn profile_lanes<const B: usize>(
        &self,
        a: &[R; D],
        bs: &[[R; D]; B],
    ) -> Option<([R; B], [R; B])> {
        if self.amplitude.is_some() {
            return None;
        }
        let r2 = core::array::from_fn(|t| self.scaled_sq_dist(a, &bs[t]));
        Some(self.shape.profile_lanes(r2))
    }

    /// `k(a, b)` and its gradient with respect to the log lengthscales, written to `grad`.
    /// (The gradient with respect to the log outputscale is `k(a, b)` itself.)
    #[inline]
    pub fn eval_with_lengthscale_grad(&self, a: &[R; D], b: &[R; D], grad: &mut [R; D]) -> R {
        let (v, dv) = self.shape.profile(self.scaled_sq_dist(a, b));
        self.lengthscale_grad_from_profile(a, b, v, dv, grad)
    }

    /// [`eval_with_lengthscale_grad`](Self::eval_with_lengthscale_grad) from the profile
    /// `(v, dv)` at `r²(a, b)` (or `r²(b, a)`, the same bits), as
    /// [`profile_lanes`](Self::profile_lanes) gives it.
    #[inline(always)]
    pub fn lengthscale_grad_from_profile(
        &self,
        a: &[R; D],
        b: &[R; D],
        v: R,
        dv: R,
        grad: &mut [R; D],
    ) -> R {
        // ∂r²/∂ln ℓᵢ = −2 (aᵢ − bᵢ)²/ℓᵢ²
        let f = -R::TWO * self.outputscale * dv;
        for i in 0..D {
            grad[i] = f * (a[i] - b[i]).sq() * self.inv_sq[i];
        }
        match self.amplitude {
            None => self.outputscale * v,
            // The amplitude does not depend on ℓ: every term scales by √(a(a)a(b)).
            Some(amp) => amp.scale_lengthscale_grad(a, b, self.outputscale, v, grad),
        }
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

    /// Inputs a kernel ignores add exactly nothing: its values and gradients over five inputs,
    /// whatever the last two hold, are those of the kernel over the first three, bit for bit,
    /// with zero gradient in the ignored ones; and it sees three.
    #[test]
    fn ignored_inputs_change_no_bit() {
        for shape in [Shape::SquaredExponential, Shape::Matern52, Shape::Matern32] {
            let small = Kernel::<f64, 3>::new(shape, [0.3, 0.8, 1.7], 2.0).unwrap();
            let wide = Kernel::<f64, 5>::new(shape, [0.3, 0.8, 1.7, 0.05, 9.0], 2.0)
                .unwrap()
                .ignoring_inputs_from(3);
            assert_eq!((small.inputs_seen(), wide.inputs_seen()), (3, 3));
            for (a, b) in [
                ([0.2, 0.9, 0.4], [0.5, 0.1, 0.45]),
                ([0.3, 0.3, 0.3], [0.3, 0.3, 0.3]),
                ([0.0, 1.0, 0.5], [1.0, 0.0, 0.5]),
            ] {
                let (wa, wb) = ([a[0], a[1], a[2], 0.0, 1.0], [b[0], b[1], b[2], 0.9, -3.0]);
                assert_eq!(small.eval(&a, &b).to_bits(), wide.eval(&wa, &wb).to_bits());
                let (mut g, mut wg) = ([0.0; 3], [7.0; 5]);
                let v = small.eval_with_grad(&a, &b, &mut g);
                let wv = wide.eval_with_grad(&wa, &wb, &mut wg);
                assert_eq!(v.to_bits(), wv.to_bits());
                assert_eq!(g.map(f64::to_bits), [wg[0], wg[1], wg[2]].map(f64::to_bits));
                assert_eq!([wg[3], wg[4]], [0.0, 0.0]);
            }
        }
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

    /// `a(x) = 1 + x²` (1-D).
    fn quadratic<R: Real>(x: &[R; 1]) -> (R, [R; 1]) {
        (R::ONE + x[0].sq(), [R::TWO * x[0]])
    }

    /// `a(x) = ¼ + exp(−(x₀ − ½)²/0.02)` (2-D, varying in the first coordinate only).
    fn bump2<R: Real>(x: &[R; 2]) -> (R, [R; 2]) {
        let d = x[0] - R::HALF;
        let g = (-d.sq() / R::from_f64(0.02)).exp();
        (R::from_f64(0.25) + g, [-g * d / R::from_f64(0.01), R::ZERO])
    }

    /// `a ≡ 1`.
    fn one<R: Real>(_: &[R; 2]) -> (R, [R; 2]) {
        (R::ONE, [R::ZERO; 2])
    }

    /// Lanes against one evaluation at a time, bit for bit: every shape, with and without an
    /// amplitude, f64 (vector exponentials) and f32, distances from 0 (the diagonal) to far
    /// beyond the exponential's underflow (r² = 1e6), in both argument orders.
    fn lanes_match<R: Real>(k: &Kernel<R, 2>) {
        let same = |a: R, b: R| a.to_f64().to_bits() == b.to_f64().to_bits();
        let a = [R::from_f64(0.45), R::from_f64(0.1)];
        let far = [R::from_f64(400.0), R::from_f64(-300.0)];
        let bs: [[R; 2]; 8] = core::array::from_fn(|t| match t {
            0 => a,
            7 => far,
            _ => [
                R::from_f64(0.1 * t as f64),
                R::from_f64(1.0 - 0.23 * t as f64),
            ],
        });
        let mut g = [[R::ZERO; 2]; 8];
        let mut gl = [[R::ZERO; 2]; 8];
        let values = k.eval_lanes(&a, &bs);
        let with_grad = k.eval_with_grad_lanes(&a, &bs, &mut g);
        let with_lgrad = k.eval_with_lengthscale_grad_lanes(&a, &bs, &mut gl);
        for t in 0..8 {
            let (mut g1, mut gl1) = ([R::ZERO; 2], [R::ZERO; 2]);
            let want = k.eval(&a, &bs[t]);
            assert!(
                same(values[t], want) && same(k.eval(&bs[t], &a), want),
                "lane {t}"
            );
            assert!(same(with_grad[t], k.eval_with_grad(&a, &bs[t], &mut g1)));
            assert!(same(
                with_lgrad[t],
                k.eval_with_lengthscale_grad(&a, &bs[t], &mut gl1)
            ));
            for i in 0..2 {
                assert!(
                    same(g[t][i], g1[i]) && same(gl[t][i], gl1[i]),
                    "lane {t}, {i}"
                );
            }
        }
    }

    #[test]
    fn lanes_have_the_bits_of_one_at_a_time() {
        for shape in [Shape::SquaredExponential, Shape::Matern52, Shape::Matern32] {
            let k = Kernel::new(shape, [0.3, 0.8], 2.0).unwrap();
            lanes_match(&k);
            lanes_match(&k.with_amplitude(Amplitude(bump2::<f64>)));
            let k32 = Kernel::new(shape, [0.3f32, 0.8], 2.0).unwrap();
            lanes_match(&k32);
            lanes_match(&k32.with_amplitude(Amplitude(bump2::<f32>)));
        }
    }

    #[test]
    #[cfg_attr(
        feature = "fast-math",
        ignore = "compares f32 with f64 at libm's tolerances; fast-math's f32 exp is 2.4e-3 relative"
    )]
    fn amplitude_closed_forms_in_f64_and_f32() {
        // mpmath (30 digits): √((1 + 0.2²)(1 + 0.7²))·1.5·φ₅/₂(r = 0.5/0.5 = 1).
        let want1 = 0.978_424_833_927_969_8;
        let k = Kernel::matern52([0.5], 1.5)
            .unwrap()
            .with_amplitude(Amplitude(quadratic::<f64>));
        assert!((k.eval(&[0.2], &[0.7]) - want1).abs() < 1e-15 * want1);
        // mpmath: √(a(p)a(q))·2·φ₅/₂(r) with ℓ = (0.3, 0.8), p = (0.45, 0.1), q = (0.6, 0.3).
        let want2 = 1.563_731_788_790_669_4;
        let k2 = Kernel::matern52([0.3, 0.8], 2.0)
            .unwrap()
            .with_amplitude(Amplitude(bump2::<f64>));
        assert!((k2.eval(&[0.45, 0.1], &[0.6, 0.3]) - want2).abs() < 1e-15 * want2);
        // The prior variance is s·a(x): 1.5·(1 + 0.3²) and 2·(¼ + 1) at the bump's centre.
        assert!((k.diagonal(&[0.3]) - 1.5 * 1.09).abs() < 1e-15);
        assert_eq!(k2.diagonal(&[0.5, 0.9]), 2.5);
        assert_eq!(k2.eval(&[0.5, 0.9], &[0.5, 0.9]), 2.5);
        // f32: the same values to f32's precision.
        let k32 = Kernel::matern52([0.5f32], 1.5)
            .unwrap()
            .with_amplitude(Amplitude(quadratic::<f32>));
        let v = k32.eval(&[0.2], &[0.7]) as f64;
        assert!((v - want1).abs() < 1e-6 * want1, "{v}");
        let k32 = Kernel::matern52([0.3f32, 0.8], 2.0)
            .unwrap()
            .with_amplitude(Amplitude(bump2::<f32>));
        let v = k32.eval(&[0.45, 0.1], &[0.6, 0.3]) as f64;
        assert!((v - want2).abs() < 1e-6 * want2, "{v}");
        assert!(!k32.is_stationary() && Kernel::matern52([1.0f32], 1.0).unwrap().is_stationary());
    }

    #[test]
    fn a_unit_amplitude_is_the_stationary_kernel_bit_for_bit() {
        for shape in [Shape::SquaredExponential, Shape::Matern52, Shape::Matern32] {
            let k = Kernel::new(shape, [0.3, 1.7], 1.3).unwrap();
            let m = k.with_amplitude(Amplitude(one::<f64>));
            let pts = [[0.1, 0.2], [0.1, 0.2], [0.9, -0.4], [0.35, 0.25]];
            for a in &pts {
                assert_eq!(m.diagonal(a), k.diagonal(a));
                for b in &pts {
                    assert_eq!(m.eval(a, b), k.eval(a, b));
                    let (mut g1, mut g2) = ([0.0; 2], [0.0; 2]);
                    assert_eq!(
                        m.eval_with_grad(a, b, &mut g1),
                        k.eval_with_grad(a, b, &mut g2)
                    );
                    assert_eq!(g1, g2);
                    let v1 = m.eval_with_lengthscale_grad(a, b, &mut g1);
                    let v2 = k.eval_with_lengthscale_grad(a, b, &mut g2);
                    assert_eq!((v1, g1), (v2, g2));
                }
            }
        }
    }

    #[test]
    fn modulated_gram_matrices_are_symmetric_and_positive_definite() {
        // 25 points of [0, 1]² on a grid; Gram = D·K_s·D with D = diag(√a(xᵢ)) entry by entry,
        // and a Cholesky factorisation (written out here, independent of `linalg`) succeeds
        // with positive pivots.
        let k = Kernel::matern52([0.3, 0.5], 1.0).unwrap();
        let m = k.with_amplitude(Amplitude(bump2::<f64>));
        let pts: [[f64; 2]; 25] =
            core::array::from_fn(|i| [(i % 5) as f64 / 4.0, (i / 5) as f64 / 4.0]);
        let n = pts.len();
        let mut g = [[0.0; 25]; 25];
        for i in 0..n {
            for j in 0..n {
                g[i][j] = m.eval(&pts[i], &pts[j]);
                assert_eq!(g[i][j], m.eval(&pts[j], &pts[i]));
                let want = (bump2(&pts[i]).0 * bump2(&pts[j]).0).sqrt() * k.eval(&pts[i], &pts[j]);
                assert!((g[i][j] - want).abs() < 1e-15, "{i} {j}");
            }
        }
        for i in 0..n {
            for j in 0..=i {
                let s = g[i][j] - (0..j).map(|l| g[i][l] * g[j][l]).sum::<f64>();
                if i == j {
                    assert!(s > 1e-6, "pivot {i}: {s}");
                    g[i][i] = s.sqrt();
                } else {
                    g[i][j] = s / g[j][j];
                }
            }
        }
    }

    #[test]
    fn modulated_gradients_match_finite_differences() {
        for shape in [Shape::SquaredExponential, Shape::Matern52, Shape::Matern32] {
            let ls = [0.3, 0.8];
            let k = Kernel::new(shape, ls, 2.0)
                .unwrap()
                .with_amplitude(Amplitude(bump2::<f64>));
            let a = [0.42, 0.9];
            let b = [0.55, 0.1];
            let (mut g, mut gl, mut gd) = ([0.0; 2], [0.0; 2], [0.0; 2]);
            k.eval_with_grad(&a, &b, &mut g);
            k.eval_with_lengthscale_grad(&a, &b, &mut gl);
            k.diagonal_with_grad(&a, &mut gd);
            let h = 1e-6;
            for i in 0..2 {
                let (mut ap, mut am) = (a, a);
                ap[i] += h;
                am[i] -= h;
                let fd = (k.eval(&ap, &b) - k.eval(&am, &b)) / (2.0 * h);
                assert!((fd - g[i]).abs() < 1e-7, "{shape:?} x{i}: {fd} vs {}", g[i]);
                let fd = (k.diagonal(&ap) - k.diagonal(&am)) / (2.0 * h);
                assert!(
                    (fd - gd[i]).abs() < 1e-7,
                    "{shape:?} diag x{i}: {fd} vs {}",
                    gd[i]
                );
                let (mut lp, mut lm) = (ls, ls);
                lp[i] *= h.exp();
                lm[i] *= (-h).exp();
                let amp = Amplitude(bump2::<f64>);
                let kp = Kernel::new(shape, lp, 2.0)
                    .unwrap()
                    .with_amplitude(amp)
                    .eval(&a, &b);
                let km = Kernel::new(shape, lm, 2.0)
                    .unwrap()
                    .with_amplitude(amp)
                    .eval(&a, &b);
                let fd = (kp - km) / (2.0 * h);
                assert!(
                    (fd - gl[i]).abs() < 1e-7,
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
