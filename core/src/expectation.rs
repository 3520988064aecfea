//! Expectations over the uncontrolled variables.
//!
//! When control set `i` is played at values `xⁱ`, the other variables are random, so every
//! acquisition is an expectation `E[a([xⁱ, X⁻ⁱ])]`. It is estimated by a sample average over a
//! [`SampleBank`]: a fixed set of draws of *all* variables made once per run, whose entries for
//! the uncontrolled variables fill in each query. Fixing the bank (common random numbers) makes
//! the estimated acquisition a smooth deterministic function of `xⁱ`, so it can be maximised with
//! gradients, and makes comparisons between candidates and between control sets consistent.
//!
//! [`expected_bound`] is the reference: one posterior prediction per bank point. The decision
//! rules use the faster evaluators of the same quantity ([`expected_bound_batched`],
//! [`FactorisedSe`], [`UcbScreen`]; see `batch.rs`). [`expected_mean_closed_form`] is the exact
//! expectation of the posterior mean for the squared-exponential kernel, the limit that a bank
//! approximates.

mod batch;

/// Where the bank's i.i.d. draws and the rules' uniforms come from (re-exported from
/// [`random`](crate::random), its home, for the callers that import it from here).
pub use crate::random::uniform_open;
pub use batch::{expected_bound_batched, Chunk, FactorisedSe, Precision, UcbScreen};

use rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro128PlusPlus;

use crate::gp::{Gp, GpError};
use crate::problem::{ControlSet, Problem};
use crate::qmc::{Sobol, SOBOL_MAX_DIMENSIONS};
use crate::real::Real;

/// Why a bank could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BankError {
    /// The storage holds no point.
    Empty,
    /// The quasi-random generator does not support this many dimensions.
    Dimension,
}

impl core::fmt::Display for BankError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Empty => f.write_str("the bank storage holds no point"),
            Self::Dimension => write!(
                f,
                "the quasi-random generator does not support this many dimensions (at most {})",
                crate::qmc::SOBOL_MAX_DIMENSIONS
            ),
        }
    }
}

impl core::error::Error for BankError {}

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
    /// Beyond the direction table's [`SOBOL_MAX_DIMENSIONS`] inputs, the first ones take the
    /// table's coordinates and the others i.i.d. uniforms from a generator of the same seed (as
    /// the inner optimiser's candidates go i.i.d. there). A scrambled Sobol point's first
    /// coordinates do not depend on how many there are, so a problem padded with inputs of a
    /// constant distribution (the desktop adapter's wider models) has the bank of the problem
    /// without them.
    pub fn quasi_random<const M: usize>(
        problem: &Problem<R, D, M>,
        mut storage: B,
        seed: u64,
    ) -> Result<Self, BankError> {
        if storage.as_ref().is_empty() {
            return Err(BankError::Empty);
        }
        if D <= SOBOL_MAX_DIMENSIONS {
            let mut sobol = Sobol::<D>::new(seed).map_err(|_| BankError::Dimension)?;
            for p in storage.as_mut().iter_mut() {
                let u: [R; D] = sobol.next_point();
                *p = core::array::from_fn(|l| problem.unit_distribution(l).sample(u[l]));
            }
        } else {
            let mut sobol =
                Sobol::<SOBOL_MAX_DIMENSIONS>::new(seed).map_err(|_| BankError::Dimension)?;
            let mut rng = Xoshiro128PlusPlus::seed_from_u64(seed);
            for p in storage.as_mut().iter_mut() {
                let u: [R; SOBOL_MAX_DIMENSIONS] = sobol.next_point();
                *p = core::array::from_fn(|l| {
                    let ul = u.get(l).copied().unwrap_or_else(|| uniform_open(&mut rng));
                    problem.unit_distribution(l).sample(ul)
                });
            }
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

    /// A bank of given points (unit-cube coordinates, drawn elsewhere).
    pub fn from_points(storage: B) -> Result<Self, BankError> {
        if storage.as_ref().is_empty() {
            return Err(BankError::Empty);
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
    bank_average(bank, set, x, |p| match bound {
        Bound::Mean => gp.predict_mean_with_gradient(p),
        Bound::Upper(beta) | Bound::Lower(beta) => {
            let beta = if matches!(bound, Bound::Lower(_)) {
                -beta
            } else {
                beta
            };
            let pg = gp.predict_with_gradient(p)?;
            Ok((
                pg.mean + beta * pg.std,
                core::array::from_fn(|l| pg.d_mean[l] + beta * pg.d_std[l]),
            ))
        }
    })
}

/// The average over the bank of `f([x^set, X])` (value and gradient in `x`, zero on the
/// uncontrolled coordinates): the one expectation loop every acquisition shares. When `set`
/// controls every variable there is nothing to average and `f` is evaluated once at `x`.
pub fn bank_average<R, const D: usize, B, E>(
    bank: &SampleBank<R, D, B>,
    set: ControlSet,
    x: &[R; D],
    mut f: impl FnMut(&[R; D]) -> Result<(R, [R; D]), E>,
) -> Result<(R, [R; D]), E>
where
    R: Real,
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
        let (v, g) = f(&merge(set, x, random))?;
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

/// `E[μ([x^set, X])]` in closed form and its gradient in `x` (zero on the uncontrolled
/// coordinates), for a squared-exponential GP whose inputs are the unit-cube coordinates of
/// `problem`: `m + Σⱼ αⱼ s Π_{l∈set} e^{−(x_l − x_{jl})²/2ℓ_l²} Π_{l∉set} E[e^{−(X_l − x_{jl})²/2ℓ_l²}]`,
/// the last factors from [`Distribution::expected_gaussian_factor`](crate::dist::Distribution::expected_gaussian_factor)
/// (truncated normal, uniform, discrete and constant variables alike). O(n·D) special
/// functions per call.
///
/// This is the limit of [`expected_bound`]`(.., Bound::Mean)` as the bank grows: a reference
/// for the integration error of a bank. `None` when the kernel is not the squared exponential
/// or a controlled coordinate of `x` is not finite.
pub fn expected_mean_closed_form<R, const N: usize, const D: usize, const M: usize, S>(
    gp: &Gp<R, N, D, S>,
    problem: &Problem<R, D, M>,
    set: ControlSet,
    x: &[R; D],
) -> Option<(R, [R; D])>
where
    R: Real,
    S: AsRef<[R]> + AsMut<[R]>,
{
    let kernel = gp.kernel();
    if kernel.shape() != crate::kernel::Shape::SquaredExponential
        || !kernel.is_stationary()
        || !(0..D).all(|l| !set.contains(l) || x[l].is_finite())
    {
        return None;
    }
    let ls = kernel.lengthscales();
    let inv_sq: [R; D] = core::array::from_fn(|l| R::ONE / ls[l].sq());
    let os = kernel.outputscale();
    let mut mean = R::ZERO;
    let mut grad = [R::ZERO; D];
    for (xj, aj) in gp.inputs().iter().zip(gp.alpha()) {
        let mut r2 = R::ZERO;
        let mut random = R::ONE;
        for l in 0..D {
            if set.contains(l) {
                r2 += (x[l] - xj[l]).sq() * inv_sq[l];
            } else {
                random *= problem
                    .unit_distribution(l)
                    .expected_gaussian_factor(xj[l], ls[l]);
            }
        }
        let t = *aj * os * (-R::HALF * r2).exp() * random;
        mean += t;
        for l in 0..D {
            if set.contains(l) {
                grad[l] -= t * (x[l] - xj[l]) * inv_sq[l];
            }
        }
    }
    Some((gp.prior_mean() + mean, grad))
}
