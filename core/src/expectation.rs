//! Expectations over the uncontrolled variables.
//!
//! When control set `i` is played at values `xⁱ`, the other variables are random, so every
//! acquisition is an expectation `E[a([xⁱ, X⁻ⁱ])]`. It is estimated by a sample average over a
//! [`SampleBank`]: a fixed set of draws of *all* variables made once per run, whose entries for
//! the uncontrolled variables fill in each query. Fixing the bank (common random numbers) makes
//! the estimated acquisition a smooth deterministic function of `xⁱ`, so it can be maximised with
//! gradients, and makes comparisons between candidates and between control sets consistent.

use rand_core::Rng;

use crate::gp::{Gp, GpError};
use crate::problem::{ControlSet, Problem};
use crate::qmc::Sobol;
use crate::real::Real;

/// Why a bank could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BankError {
    /// The storage holds no point.
    Empty,
    /// The quasi-random generator does not support this many dimensions.
    Dimension,
}

/// A fixed bank of draws of all `D` variables in unit-cube coordinates, in storage `B`
/// (an array, a slice, or a `Vec` of points).
#[derive(Debug, Clone)]
pub struct SampleBank<R, const D: usize, B> {
    points: B,
    _real: core::marker::PhantomData<R>,
}

impl<R: Real, const D: usize, B: AsRef<[[R; D]]> + AsMut<[[R; D]]>> SampleBank<R, D, B> {
    /// Fills `storage` with scrambled Sobol points pushed through each variable's inverse CDF:
    /// far smaller integration error than i.i.d. draws for the smooth integrands of a GP.
    pub fn quasi_random<const M: usize>(
        problem: &Problem<R, D, M>,
        mut storage: B,
        seed: u64,
    ) -> Result<Self, BankError> {
        if storage.as_ref().is_empty() {
            return Err(BankError::Empty);
        }
        let mut sobol = Sobol::<D>::new(seed).map_err(|_| BankError::Dimension)?;
        for p in storage.as_mut().iter_mut() {
            let u: [R; D] = sobol.next_point();
            *p = core::array::from_fn(|l| problem.unit_distribution(l).sample(u[l]));
        }
        Ok(SampleBank {
            points: storage,
            _real: core::marker::PhantomData,
        })
    }

    /// Fills `storage` with independent draws (the paper's choice).
    pub fn iid<const M: usize>(
        problem: &Problem<R, D, M>,
        mut storage: B,
        rng: &mut impl Rng,
    ) -> Result<Self, BankError> {
        if storage.as_ref().is_empty() {
            return Err(BankError::Empty);
        }
        for p in storage.as_mut().iter_mut() {
            *p = core::array::from_fn(|l| problem.unit_distribution(l).sample(uniform_open(rng)));
        }
        Ok(SampleBank {
            points: storage,
            _real: core::marker::PhantomData,
        })
    }

    /// The points, in unit-cube coordinates.
    pub fn points(&self) -> &[[R; D]] {
        self.points.as_ref()
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.as_ref().len()
    }

    /// True when the bank holds no point (never, for a constructed bank).
    pub fn is_empty(&self) -> bool {
        self.points.as_ref().is_empty()
    }
}

/// A uniform draw in the open interval (0, 1) from 32 random bits.
pub fn uniform_open<R: Real>(rng: &mut impl Rng) -> R {
    R::from_f64((rng.next_u32() as f64 + 0.5) / 4_294_967_296.0)
}

/// The full point played when `set` is controlled at `x` and the rest comes from `random`.
#[inline]
pub fn merge<R: Real, const D: usize>(set: ControlSet, x: &[R; D], random: &[R; D]) -> [R; D] {
    core::array::from_fn(|l| if set.contains(l) { x[l] } else { random[l] })
}

/// Which bound of the GP an expectation averages.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound<R> {
    /// `μ + βσ`.
    Upper(R),
    /// `μ − βσ`.
    Lower(R),
    /// `μ` alone (cheaper: no triangular solve).
    Mean,
}

/// `E[b([x^set, X])]` over the bank and its gradient with respect to `x` (zero on the
/// uncontrolled coordinates). When `set` controls every variable there is nothing to average and
/// the bound is evaluated once at `x`.
pub fn expected_bound<R, const N: usize, const D: usize, S, B>(
    gp: &Gp<R, N, D, S>,
    bank: &SampleBank<R, D, B>,
    set: ControlSet,
    x: &[R; D],
    bound: Bound<R>,
) -> Result<(R, [R; D]), GpError>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
    B: AsRef<[[R; D]]> + AsMut<[[R; D]]>,
{
    let full = (0..D).all(|l| set.contains(l));
    let points = if full {
        &bank.points()[..1]
    } else {
        bank.points()
    };
    let mut value = R::ZERO;
    let mut grad = [R::ZERO; D];
    for random in points {
        let p = merge(set, x, random);
        let (v, g) = match bound {
            Bound::Mean => gp.predict_mean_with_gradient(&p)?,
            Bound::Upper(beta) | Bound::Lower(beta) => {
                let beta = if matches!(bound, Bound::Lower(_)) {
                    -beta
                } else {
                    beta
                };
                let pg = gp.predict_with_gradient(&p)?;
                (
                    pg.mean + beta * pg.std,
                    core::array::from_fn(|l| pg.d_mean[l] + beta * pg.d_std[l]),
                )
            }
        };
        value += v;
        for l in 0..D {
            if set.contains(l) {
                grad[l] += g[l];
            }
        }
    }
    let inv = R::ONE / R::from_usize(points.len());
    Ok((value * inv, grad.map(|g| g * inv)))
}
